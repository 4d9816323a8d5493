// The checksum lab's worker: bit-flip experiments in batches through the core's `verify`
// and the benchmark of both wasm builds, off the main thread, one job at a time, with
// progress at most every 100 ms, and cancel, pause and resume between batches.
import { loadBuild, loadWasm } from '../core';
import { checksumLayout } from './bits';
import { coreBatchVerify, runExperiment, trialsOf, type Tally } from './experiment';
import type { BenchRequest, BenchRow, BuildName, ExperimentRequest, FromLab, ToLab } from './protocol';

const POST_EVERY_MS = 100;
/** Yield to the event loop this often, so a cancel message gets in. */
const YIELD_EVERY_MS = 50;
const cancelled = new Set<number>();
const queue: (ExperimentRequest | BenchRequest)[] = [];
let busy = false;
let paused = false;
/** Wakes an experiment waiting while paused (on resume or cancel). */
let wake: (() => void) | null = null;

const post = (m: FromLab): void => postMessage(m);
const nextTask = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

self.onmessage = (ev: MessageEvent<ToLab>) => {
  const m = ev.data;
  if (m.type === 'cancel') {
    cancelled.add(m.job);
    wake?.();
    return;
  }
  if (m.type === 'pause' || m.type === 'resume') {
    paused = m.type === 'pause';
    if (!paused) wake?.();
    return;
  }
  queue.push(m);
  void pump();
};

async function pump(): Promise<void> {
  if (busy) return;
  busy = true;
  while (queue.length > 0) {
    const req = queue.shift()!;
    try {
      if (cancelled.has(req.job)) post({ type: 'cancelled', job: req.job });
      else if (req.type === 'experiment') await experiment(req);
      else await bench(req);
    } catch (e) {
      post({ type: 'error', job: req.job, message: e instanceof Error ? e.message : String(e) });
    }
  }
  busy = false;
}

const copyTally = (t: Tally): Tally => ({ ...t, undetected: t.undetected.map((u) => [...u]) });

async function experiment(req: ExperimentRequest): Promise<void> {
  const wasm = await loadWasm();
  const verify = coreBatchVerify(wasm, req.page.length, req.bigEndian);
  const layout = checksumLayout(wasm);
  const total = trialsOf(layout, req.spec, req.page.length);
  const t0 = performance.now();
  let lastPost = t0;
  let lastYield = t0;
  /** Time spent paused, left out of the run's elapsed time. */
  let pausedMs = 0;
  let tally: Tally = { trials: 0, detected: 0, foldDiffers: 0, undetected: [] };
  /** False when the job was cancelled (and said so). */
  const goOn = async (): Promise<boolean> => {
    if (paused && !cancelled.has(req.job)) {
      post({ type: 'paused', job: req.job, tally: copyTally(tally), total });
      const from = performance.now();
      while (paused && !cancelled.has(req.job)) await new Promise<void>((r) => (wake = r));
      wake = null;
      pausedMs += performance.now() - from;
      if (!cancelled.has(req.job)) post({ type: 'progress', job: req.job, tally: copyTally(tally), total });
    }
    if (cancelled.has(req.job)) {
      post({ type: 'cancelled', job: req.job });
      return false;
    }
    return true;
  };
  if (!(await goOn())) return;
  for (const t of runExperiment(verify, layout, req.page, req.absoluteBlock, req.spec, req.bigEndian)) {
    tally = t;
    const now = performance.now();
    if (now - lastYield >= YIELD_EVERY_MS) {
      await nextTask();
      lastYield = performance.now();
      if (!(await goOn())) return;
    }
    if (now - lastPost >= POST_EVERY_MS) {
      post({ type: 'progress', job: req.job, tally: copyTally(t), total });
      lastPost = now;
    }
  }
  post({ type: 'done', job: req.job, tally: copyTally(tally), total, elapsedMs: performance.now() - t0 - pausedMs });
}

const ROUNDS = 8;
const REPEATS = 5;

/**
 * ns per page of `pg_checksum_page` in one build: the best of a few calls of 1 + ROUNDS
 * rounds minus the best of 1 round over the same buffer, so the copy of the buffer into wasm
 * memory (once per call) cancels out and what remains is ROUNDS rounds of the kernel.
 */
async function benchBuild(build: BuildName, pages: Uint8Array, blockSize: number, job: number): Promise<number | null> {
  const w = await loadBuild(build);
  const n = pages.length / blockSize;
  const best = async (rounds: number): Promise<number | null> => {
    let min = Infinity;
    for (let r = 0; r < REPEATS; r++) {
      await nextTask();
      if (cancelled.has(job)) return null;
      const t0 = performance.now();
      w.checksum_rounds(pages, blockSize, false, rounds);
      min = Math.min(min, performance.now() - t0);
    }
    return min;
  };
  const one = await best(1);
  const many = await best(1 + ROUNDS);
  if (one === null || many === null) return null;
  return ((many - one) * 1e6) / (ROUNDS * n);
}

async function bench(req: BenchRequest): Promise<void> {
  const pages = new Uint8Array(req.bytes - (req.bytes % req.blockSize));
  // The kernel's speed does not depend on the bytes; random ones keep it honest anyway.
  for (let at = 0; at < pages.length; at += 65536) crypto.getRandomValues(pages.subarray(at, at + 65536));
  const rows: BenchRow[] = [];
  for (const build of ['simd128', 'scalar'] as const) {
    try {
      const ns = await benchBuild(build, pages, req.blockSize, req.job);
      if (cancelled.has(req.job)) {
        post({ type: 'cancelled', job: req.job });
        return;
      }
      rows.push({ build, nsPerPage: ns });
    } catch (e) {
      rows.push({ build, nsPerPage: null, error: e instanceof Error ? e.message : String(e) });
    }
  }
  post({ type: 'bench', job: req.job, rows, pages: pages.length / req.blockSize, blockSize: req.blockSize });
}
