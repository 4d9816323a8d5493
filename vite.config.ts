// The app lives in web/; `vite build` writes dist/ (wasm included), `vite preview` serves it.
// The Content-Security-Policy goes into the built page only: the dev server needs inline
// scripts for hot reload.
import react from '@vitejs/plugin-react';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createLogger, defineConfig, type Plugin } from 'vite';

/** No connection beyond the page's own origin; wasm may compile; workers only from self. */
export const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data: blob:",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

function csp(): Plugin {
  return {
    name: 'pgpage-csp',
    apply: 'build',
    transformIndexHtml: (html) => html.replace('<!--CSP-->', `<meta http-equiv="Content-Security-Policy" content="${CSP}" />`),
  };
}

/**
 * The playground's files: its chunk and worker, PGlite's wasm, file system bundle and
 * extensions (15 MB, 5 MB gzipped). Left out of the install-time cache so the inspector's
 * first visit stays as light as before; the service worker caches them when the playground
 * first fetches them.
 */
export const PLAYGROUND_ASSETS = /^assets\/(Playground|pglite|initdb|pageinspect\.tar|pg_buffercache\.tar|pg_visibility\.tar|memfs2opfs|opfs-ahp|nodefs)[-.]/;

/**
 * Lists every built file for the service worker to cache at install (offline after one visit),
 * and the files of public/ (icon, manifest, the PostgreSQL samples), which Vite copies
 * without putting them in the bundle.
 */
function precacheList(): Plugin {
  let publicDir = '';
  return {
    name: 'pgpage-precache',
    apply: 'build',
    configResolved(config) {
      publicDir = config.publicDir;
    },
    generateBundle(_, bundle) {
      const copied = readdirSync(publicDir, { recursive: true, withFileTypes: true })
        .filter((d) => d.isFile() && d.name !== 'sw.js')
        .map((d) => `${d.parentPath.slice(publicDir.length + 1)}/${d.name}`.replace(/^\//, ''));
      const files = [...Object.keys(bundle).filter((f) => f !== 'index.html' && !PLAYGROUND_ASSETS.test(f)), ...copied];
      this.emitFile({ type: 'asset', fileName: 'precache.json', source: JSON.stringify(files) });
    },
  };
}

/**
 * package.json's version and the commit it was built from, as `pgpage --version` says them
 * (crates/pgpage-cli/build.rs asks git the same way), burned into the footer, exported
 * pictures and reports.
 */
const commit = (() => {
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || 'unknown';
  } catch {
    return 'unknown';
  }
})();
const version = `${(JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string }).version} (commit ${commit})`;

/**
 * PGlite's own bundle, which the playground loads: its direct `eval` (Emscripten's) and its
 * `node:module` import (for Node, never taken in a browser) are how it is built, not anything
 * this project can change, so the build does not print them on every run. Every other
 * warning, from our code or another package, is printed.
 */
const PGLITE = '@electric-sql/pglite';
const logger = createLogger();
const warn = logger.warn.bind(logger);
logger.warn = (msg, options) => {
  if (msg.includes('Module "node:module" has been externalized for browser compatibility') && msg.includes(PGLITE)) return;
  warn(msg, options);
};

export default defineConfig({
  customLogger: logger,
  root: 'web',
  base: './',
  // Static files (icon, web manifest, service worker, samples) live in the repository's public/.
  publicDir: '../public',
  define: { __PGPAGE_VERSION__: JSON.stringify(version) },
  plugins: [react(), csp(), precacheList()],
  worker: { format: 'es' },
  build: {
    outDir: '../dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    rolldownOptions: {
      onLog(level, log, handler) {
        if (log.code === 'EVAL' && (log.id ?? '').includes(PGLITE)) return;
        handler(level, log);
      },
    },
  },
  preview: { host: '127.0.0.1', port: 4173, strictPort: true },
  server: { host: '127.0.0.1' },
});
