// The checksum lab's worker: bit-flip experiments in batches through the core's `verify`
// and the benchmark of both wasm builds, off the main thread, one job at a time, with
// progress at most every 100 ms, and cancel, pause and resume between batches.
import { loadBuild, loadWasm } from '../core';
import { serve, type Job } from '../worker/bridge';
import { checksumLayout } from './bits';
import { coreBatchVerify, runExperiment, trialsOf, type Tally } from './experiment';
import type { BenchRequest, BenchRow, BuildName, ExperimentRequest, FromLab, ToLab } from './protocol';

const POST_EVERY_MS = 100;
/** Yield to the event loop this often, so a cancel message gets in. */
const YIELD_EVERY_MS = 50;
type LabJob = Job<ToLab, FromLab>;

let paused = false;
/** Wakes the experiment waiting while paused, on resume. */
let wake: (() => void) | null = null;
/** The jobs run one after another, each after the one sent before it. */
let queue: Promise<void> = Promise.resolve();

const nextTask = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

serve<ToLab, FromLab>(
  (m, job) => {
    if (m.type === 'pause' || m.type === 'resume') {
      paused = m.type === 'pause';
      if (!paused) wake?.();
      return Promise.resolve();
    }
    const run = async () => {
      if (job.cancelled()) job.post({ type: 'cancelled', job: m.job });
      else if (m.type === 'experiment') await experiment(m, job);
      else await bench(m, job);
    };
    const mine = queue.then(run);
    // A job that fails answers its error and leaves the queue running.
    queue = mine.catch(() => undefined);
    return mine;
  },
  (job, message) => ({ type: 'error', job, message }),
);

const copyTally = (t: Tally): Tally => ({ ...t, undetected: t.undetected.map((u) => [...u]) });

async function experiment(req: ExperimentRequest, { post, cancelled, whenCancelled }: LabJob): Promise<void> {
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
    if (paused && !cancelled()) {
      post({ type: 'paused', job: req.job, tally: copyTally(tally), total });
      const from = performance.now();
      while (paused && !cancelled()) await Promise.race([new Promise<void>((r) => (wake = r)), whenCancelled()]);
      wake = null;
      pausedMs += performance.now() - from;
      if (!cancelled()) post({ type: 'progress', job: req.job, tally: copyTally(tally), total });
    }
    if (cancelled()) {
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
async function benchBuild(build: BuildName, pages: Uint8Array, blockSize: number, cancelled: () => boolean): Promise<number | null> {
  const w = await loadBuild(build);
  const n = pages.length / blockSize;
  const best = async (rounds: number): Promise<number | null> => {
    let min = Infinity;
    for (let r = 0; r < REPEATS; r++) {
      await nextTask();
      if (cancelled()) return null;
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

async function bench(req: BenchRequest, { post, cancelled }: LabJob): Promise<void> {
  const pages = new Uint8Array(req.bytes - (req.bytes % req.blockSize));
  // The kernel's speed does not depend on the bytes; random ones keep it honest anyway.
  for (let at = 0; at < pages.length; at += 65536) crypto.getRandomValues(pages.subarray(at, at + 65536));
  const rows: BenchRow[] = [];
  for (const build of ['simd128', 'scalar'] as const) {
    try {
      const ns = await benchBuild(build, pages, req.blockSize, cancelled);
      if (cancelled()) {
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
