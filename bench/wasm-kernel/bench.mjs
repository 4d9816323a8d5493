// Kernel timing of the wasm bodies in Node, the same way bench/pg_kernel.c and
// kernel_bench.rs time the native ones: PAGES random 8 KB pages in wasm memory, checksummed
// over and over (one call per pass) for SECONDS per round, ROUNDS rounds (default 7).
// Usage: node bench.mjs MODULE.wasm BUILD SECONDS PAGES [ROUNDS]
// BUILD names the build in the labels ("simd128 build" or "plain build": without simd128,
// LLVM cannot auto-vectorize the scalar body, with it it does).
// Prints "label<TAB>best GB/s<TAB>median GB/s<TAB>check" per body, check being the xor of
// pg_checksum_page(page i, block i) over the pages, as pg_kernel.c and kernel_bench.rs print.
// With KERNEL_PASSES=N (and KERNEL_BODY=simd128 or scalar) it makes exactly N untimed passes,
// for counting cycles with perf stat.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const [wasmPath, build, secondsArg, pagesArg, roundsArg] = process.argv.slice(2);
const seconds = Number(secondsArg);
const npages = Number(pagesArg);
const BLCKSZ = 8192;
const ROUNDS = Math.max(1, Number(roundsArg ?? 7));
const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath));
const { memory, alloc, checksum_pages: checksumPages } = instance.exports;
const ptr = alloc(npages * BLCKSZ);
const pages = new Uint8Array(memory.buffer, ptr, npages * BLCKSZ);
let state = 0x9e3779b97f4a7c15n;
const M = (1n << 64n) - 1n;
for (let i = 0; i < pages.length; i++) {
  state ^= state >> 12n;
  state ^= (state << 25n) & M;
  state ^= state >> 27n;
  pages[i] = Number(((state * 0x2545f4914f6cdd1dn) & M) >> 56n);
}

const bodies = [['wasm scalar body', 0]];
if (typeof instance.exports.fold_simd128 === 'function') bodies.push(['wasm simd128 body', 1]);
const passes = process.env.KERNEL_PASSES;
for (const [label, simd] of bodies) {
  let sink = 0;
  const check = checksumPages(simd, ptr, BLCKSZ, npages, 0, 0) >>> 0;
  if (passes !== undefined) {
    if (process.env.KERNEL_BODY !== (simd ? 'simd128' : 'scalar')) continue;
    for (let p = 0; p < Number(passes); p++) sink ^= checksumPages(simd, ptr, BLCKSZ, npages, 0, p);
    console.log(`${label}, ${build}\t${check}${sink === 0.5 ? ' ' : ''}`);
    continue;
  }
  const gbps = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = performance.now();
    let done = 0;
    let elapsed;
    do {
      sink ^= checksumPages(simd, ptr, BLCKSZ, npages, 0, done);
      done += npages;
      elapsed = (performance.now() - start) / 1000;
    } while (elapsed < seconds);
    gbps.push((done * BLCKSZ) / elapsed / 1e9);
  }
  gbps.sort((a, b) => a - b);
  const best = gbps[ROUNDS - 1].toFixed(2);
  const median = gbps[ROUNDS >> 1].toFixed(2);
  console.log(`${label}, ${build} (Node ${process.version})\t${best}\t${median}\t${check}`);
  if (sink === 0.5) console.error('unreachable: keeps the timed calls observable');
}
