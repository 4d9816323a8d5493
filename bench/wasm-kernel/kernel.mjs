// The kernel timing shared by Node (bench.mjs) and Chromium (chromium.mjs): one function with
// no imports and no outer names, so chromium.mjs can hand its source to a page. It instantiates
// a bare kernel module (bench/wasm-kernel), fills PAGES pages of its memory with the same
// xorshift bytes as pg_kernel.c and kernel_bench.rs use, and times each body of the module.
//
// timeKernel(bytes, build, engine, seconds, npages, rounds, passes, only) resolves to rows
// "label<TAB>best GB/s<TAB>median GB/s<TAB>check", check being the xor of
// pg_checksum_page(page i, block i) over the pages. Each body first runs untimed for
// min(seconds, 0.1) s, so that V8 has tiered the module up from Liftoff to its optimizing
// compiler before the clock starts. With `passes` set it makes exactly that many untimed
// passes of the body named `only` (for perf stat) and returns "label<TAB>check".
export async function timeKernel(bytes, build, engine, seconds, npages, rounds, passes, only) {
  const BLCKSZ = 8192;
  const { instance } = await WebAssembly.instantiate(bytes);
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
  // [label, body code for checksum_pages, name for `only`]
  const bodies = [['wasm scalar body', 0, 'scalar']];
  if (typeof instance.exports.fold_simd128 === 'function') bodies.push(['wasm simd128 body', 1, 'simd128']);
  const rows = [];
  let sink = 0;
  for (const [label, body, name] of bodies) {
    const check = checksumPages(body, ptr, BLCKSZ, npages, 0, 0) >>> 0;
    if (passes !== undefined) {
      if (only !== name) continue;
      for (let p = 0; p < passes; p++) sink ^= checksumPages(body, ptr, BLCKSZ, npages, 0, p);
      rows.push(`${label}, ${build}\t${check}`);
      continue;
    }
    const run = (limit) => {
      const start = performance.now();
      let done = 0;
      let elapsed;
      do {
        sink ^= checksumPages(body, ptr, BLCKSZ, npages, 0, done);
        done += npages;
        elapsed = (performance.now() - start) / 1000;
      } while (elapsed < limit);
      return (done * BLCKSZ) / elapsed / 1e9;
    };
    run(Math.min(seconds, 0.1));
    const gbps = [];
    for (let r = 0; r < rounds; r++) gbps.push(run(seconds));
    gbps.sort((a, b) => a - b);
    const best = gbps[rounds - 1].toFixed(2);
    const median = gbps[rounds >> 1].toFixed(2);
    rows.push(`${label}, ${build} (${engine})\t${best}\t${median}\t${check}`);
  }
  // Keeps the timed calls observable; sink is an integer, never 0.5.
  if (sink === 0.5) rows.push('unreachable');
  return rows;
}
