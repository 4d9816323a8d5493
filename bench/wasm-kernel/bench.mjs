// Kernel timing of the wasm bodies in Node, the same way bench/pg_kernel.c and
// kernel_bench.rs time the native ones: PAGES random 8 KB pages in wasm memory, checksummed
// over and over (one call per pass) for SECONDS per round, ROUNDS rounds (default 7).
// Usage: node bench.mjs MODULE.wasm BUILD SECONDS PAGES [ROUNDS]
// BUILD names the build in the labels ("simd128 build" or "plain build": without simd128,
// LLVM cannot auto-vectorize the scalar body, with it it does).
// Prints "label<TAB>best GB/s<TAB>median GB/s<TAB>check" per body (kernel.mjs), check being
// the xor of pg_checksum_page(page i, block i) over the pages, as pg_kernel.c and
// kernel_bench.rs print. With KERNEL_PASSES=N (and KERNEL_BODY=simd128 or scalar) it makes
// exactly N untimed passes, for counting cycles with perf stat.
import { readFileSync } from 'node:fs';
import { timeKernel } from './kernel.mjs';

const [wasmPath, build, secondsArg, pagesArg, roundsArg] = process.argv.slice(2);
const passes = process.env.KERNEL_PASSES;
const rows = await timeKernel(
  readFileSync(wasmPath),
  build,
  `Node ${process.version}`,
  Number(secondsArg),
  Number(pagesArg),
  Math.max(1, Number(roundsArg ?? 7)),
  passes === undefined ? undefined : Number(passes),
  process.env.KERNEL_BODY,
);
console.log(rows.join('\n'));
