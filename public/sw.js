// Offline: the app shell and every same-origin asset it fetched, served cache-first after
// the first visit. It never touches other origins (the CSP forbids them anyway) and never
// sees the user's files, which are read with File.slice and not fetched.
const CACHE = 'pgpage-v3';

// precache.json (written by vite.config.ts) names every built asset, wasm and worker included,
// and public/'s files (the samples too), so the first visit is enough to work offline.
self.addEventListener('install', (e) => {
  e.waitUntil(
    (async () => {
      const c = await caches.open(CACHE);
      const assets = await fetch('./precache.json', { cache: 'no-cache' })
        .then((r) => (r.ok ? r.json() : []))
        .catch(() => []);
      await c.addAll(['./index.html', ...assets.map((a) => `./${a}`)]);
    })(),
  );
  self.skipWaiting();
});

self.addEventListener('activate', (e) => {
  e.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (e) => {
  const url = new URL(e.request.url);
  if (e.request.method !== 'GET' || url.origin !== self.location.origin) return;
  e.respondWith(
    caches.open(CACHE).then(async (c) => {
      const key = e.request.mode === 'navigate' ? './index.html' : e.request;
      // Network first for the page itself so a new build is picked up; cache first otherwise.
      if (e.request.mode === 'navigate') {
        try {
          const r = await fetch(e.request);
          if (r.ok) await c.put('./index.html', r.clone());
          return r;
        } catch {
          return (await c.match(key, { ignoreVary: true })) ?? Response.error();
        }
      }
      // ignoreVary: the preview server says Vary: Origin, and install-time fetches carry none.
      const hit = await c.match(key, { ignoreVary: true });
      if (hit) return hit;
      const r = await fetch(e.request);
      if (r.ok) await c.put(e.request, r.clone());
      return r;
    }),
  );
});
