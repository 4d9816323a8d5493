// The checksum lab's bit-flip experiments, independent of where they run: a batch of
// mutated copies of one page goes through the core's `verify` in one call, and each copy's
// checksum at the page's own block number is held against the unmutated page's.
import type { Wasm } from '../core';
import { flippableBits, flipBit, nthFlippableBit, randomBits, sameLaneBits, sameLanePairCount, sameLanePairs, xorshift32, type ChecksumLayout } from './bits';

/** same_lane draws same-lane pairs at random; same_lane_all visits every one once. */
export type ExperimentKind = 'random' | 'exhaustive' | 'same_lane' | 'same_lane_all';

export interface ExperimentSpec {
  kind: ExperimentKind;
  /** Bits flipped per trial (random only; exhaustive flips 1, the same-lane kinds 2). */
  flips: number;
  /** Trials (ignored by exhaustive and same_lane_all, which visit every case once). */
  trials: number;
  seed: number;
}

export interface Tally {
  trials: number;
  /** Trials whose pg_checksum_page differs from the unmutated page's (or whose pd_upper
   * became 0: the server rejects such a page without a checksum). */
  detected: number;
  /** Trials whose 32-bit fold (pg_checksum_block, before `% 65535 + 1`) differs. */
  foldDiffers: number;
  /** The flipped bits (byte * 8 + bit) of the first few undetected trials. */
  undetected: number[][];
}

/** What the experiments need of the core for a batch of copies of one page: whether the
 * server rejects each unverified (a new page that is not all zeros), its checksum's fold, and
 * its checksum as block `absBlock`. */
export type BatchVerify = (pages: Uint8Array, absBlock: number) => { rejected: ArrayLike<boolean>; fold: Uint32Array; checksum: ArrayLike<number> };

/** The core's `verify` and checksum finish as a BatchVerify. */
export function coreBatchVerify(w: Wasm, blockSize: number, bigEndian: boolean): BatchVerify {
  const rejectedCode = w.status_names().indexOf('new_not_zero');
  return (pages, absBlock) => {
    const v = w.verify(pages, 0, blockSize, bigEndian);
    const { status, fold } = v;
    v.free();
    return { rejected: Array.from(status, (s) => s === rejectedCode), fold, checksum: w.checksums_at(fold, absBlock) };
  };
}

export const BATCH_PAGES = 256;
const UNDETECTED_KEPT = 5;

export const flipsPerTrial = (spec: ExperimentSpec): number => (spec.kind === 'random' ? spec.flips : spec.kind === 'exhaustive' ? 1 : 2);

export function trialsOf(L: ChecksumLayout, spec: ExperimentSpec, pageBytes: number): number {
  if (spec.kind === 'exhaustive') return flippableBits(L, pageBytes);
  if (spec.kind === 'same_lane_all') return sameLanePairCount(L, pageBytes);
  return spec.trials;
}

/** The flips of trial 0, 1, 2, ... in order: the same sequence for the same spec. */
export function trialSource(L: ChecksumLayout, spec: ExperimentSpec, pageBytes: number, bigEndian: boolean): (trial: number) => number[] {
  const rand = xorshift32(spec.seed);
  switch (spec.kind) {
    case 'exhaustive':
      return (t) => [nthFlippableBit(L, t)];
    case 'random':
      return () => randomBits(L, rand, pageBytes, spec.flips);
    case 'same_lane':
      return () => sameLaneBits(L, rand, pageBytes, bigEndian);
    case 'same_lane_all': {
      const pairs = sameLanePairs(L, pageBytes, bigEndian);
      return () => {
        const next = pairs.next();
        return next.done ? [] : next.value;
      };
    }
  }
}

/**
 * Runs `spec` on `page` (relation-wide block `absBlock`), yielding the running tally after
 * each batch so the caller can report progress, yield to its event loop, or stop.
 */
export function* runExperiment(
  verify: BatchVerify,
  L: ChecksumLayout,
  page: Uint8Array,
  absBlock: number,
  spec: ExperimentSpec,
  bigEndian: boolean,
  batchPages = BATCH_PAGES,
): Generator<Tally, void> {
  const size = page.length;
  const total = trialsOf(L, spec, size);
  const n = Math.max(1, Math.min(batchPages, total));
  const buf = new Uint8Array(n * size);
  for (let i = 0; i < n; i++) buf.set(page, i * size);
  const ref = verify(buf.subarray(0, size), absBlock);
  const original = ref.checksum[0];
  const originalFold = ref.fold[0];
  const next = trialSource(L, spec, size, bigEndian);
  const tally: Tally = { trials: 0, detected: 0, foldDiffers: 0, undetected: [] };
  while (tally.trials < total) {
    const count = Math.min(n, total - tally.trials);
    const flips: number[][] = [];
    for (let i = 0; i < count; i++) {
      const bits = next(tally.trials + i);
      for (const b of bits) flipBit(buf, i * size, b);
      flips.push(bits);
    }
    const got = verify(buf.subarray(0, count * size), absBlock);
    for (let i = 0; i < count; i++) {
      // A flip that zeroes pd_upper makes a "new" page the server rejects unverified.
      const rejected = got.rejected[i];
      if (rejected || got.fold[i] !== originalFold) tally.foldDiffers++;
      if (rejected || got.checksum[i] !== original) tally.detected++;
      else if (tally.undetected.length < UNDETECTED_KEPT) tally.undetected.push(flips[i]);
      // Flipping back restores the copy for the next batch.
      for (const b of flips[i]) flipBit(buf, i * size, b);
    }
    tally.trials += count;
    yield tally;
  }
}
