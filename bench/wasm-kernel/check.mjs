// Holds the wasm checksum bodies (bench/wasm-kernel, built with simd128) against expected
// folds computed natively. Usage: node check.mjs MODULE.wasm CASES.bin
// CASES.bin: records of little-endian u32 page size, u32 big-endian flag, u32 expected fold,
// then the page. Exits 1 on any mismatch or when the module lacks the simd128 body.
import { readFileSync } from 'node:fs';

const [wasmPath, casesPath] = process.argv.slice(2);
const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath));
const { memory, alloc, fold_scalar, fold_simd128 } = instance.exports;
if (typeof fold_simd128 !== 'function') {
  console.error('the module has no fold_simd128: not built with -C target-feature=+simd128');
  process.exit(1);
}
const cases = readFileSync(casesPath);
const ptr = alloc(32768);
let off = 0;
let pages = 0;
let bad = 0;
while (off < cases.length) {
  const head = new DataView(cases.buffer, cases.byteOffset + off, 12);
  const size = head.getUint32(0, true);
  const big = head.getUint32(4, true);
  const want = head.getUint32(8, true);
  new Uint8Array(memory.buffer, ptr, size).set(cases.subarray(off + 12, off + 12 + size));
  const scalar = fold_scalar(ptr, size, big) >>> 0;
  const simd = fold_simd128(ptr, size, big) >>> 0;
  if (scalar !== want || simd !== want) {
    bad += 1;
    if (bad <= 5) {
      console.error(`page ${pages} (size ${size}, big ${big}): want ${want}, wasm scalar ${scalar}, simd128 ${simd}`);
    }
  }
  pages += 1;
  off += 12 + size;
}
console.log(`${pages} pages, ${bad} mismatches`);
process.exit(bad || pages === 0 ? 1 : 0);
