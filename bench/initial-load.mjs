// The inspector's first load: what dist/index.html fetches before any click (its scripts,
// module preloads and styles) and the wasm core it instantiates at start, raw and gzipped.
// The playground's chunk and PGlite's assets are listed apart: they load only when opened.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const dist = process.argv[2] ?? 'dist';
const html = readFileSync(join(dist, 'index.html'), 'utf8');
const refs = [...html.matchAll(/(?:src|href)="\.?\/?(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);
const assets = readdirSync(join(dist, 'assets'));
// The simd128 build is the one a current browser instantiates.
const wasm = assets
  .filter((f) => /^pgpage_wasm_bg.*\.wasm$/.test(f))
  .map((f) => `assets/${f}`)
  .sort((a, b) => statSync(join(dist, b)).size - statSync(join(dist, a)).size)
  .slice(0, 1);
const size = (f) => {
  const b = readFileSync(join(dist, f));
  return { raw: b.length, gzip: gzipSync(b, { level: 9 }).length };
};
let raw = 0;
let gzip = 0;
for (const f of [...new Set([...refs, ...wasm])]) {
  const s = size(f);
  raw += s.raw;
  gzip += s.gzip;
  console.log(`${f}\t${s.raw}\t${s.gzip}`);
}
console.log(`initial load: ${raw} bytes (${(raw / 1024).toFixed(0)} KiB), gzipped ${gzip} bytes (${(gzip / 1024).toFixed(0)} KiB)`);
const play = assets.filter((f) => /^(Playground|pglite|initdb|pageinspect\.tar|pg_buffercache\.tar|pg_visibility\.tar|memfs2opfs|opfs-ahp|nodefs)[-.]/.test(f));
let praw = 0;
let pgz = 0;
for (const f of play) {
  const s = size(`assets/${f}`);
  praw += s.raw;
  pgz += s.gzip;
}
console.log(`playground on first use: ${play.length} files, ${praw} bytes (${(praw / 1048576).toFixed(1)} MiB), gzipped ${(pgz / 1048576).toFixed(1)} MiB`);
