// The checksum lab's experiments (web/src/lab/experiment.ts) run through both wasm builds,
// held trial by trial against the independent JS checksum (tests/oracle/pgchecksum.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { heapPage, ORACLE_LAYOUT, pgChecksumPage, rng, seal } from '../oracle/pgchecksum';
import { coreBatchVerify, runExperiment, trialSource, type ExperimentSpec, type Tally } from '../../web/src/lab/experiment';

type Wasm = typeof import('../../web/pkg/pgpage_wasm.js');

async function load(dir: string): Promise<Wasm> {
  const mod: Wasm = await import(`../../web/${dir}/pgpage_wasm.js`);
  mod.initSync({ module: readFileSync(join(__dirname, `../../web/${dir}/pgpage_wasm_bg.wasm`)) });
  return mod;
}

const BLOCK = 7;
const page = seal(heapPage(8192, 30, rng(11)), BLOCK);

function run(w: Wasm, spec: ExperimentSpec, batchPages?: number, p = page): Tally {
  const verify = coreBatchVerify(w, p.length, false);
  let last: Tally | null = null;
  for (const t of runExperiment(verify, ORACLE_LAYOUT, p, BLOCK, spec, false, batchPages)) last = { ...t };
  return last!;
}

/** The oracle's count of trials whose checksum differs from the unmutated page's. */
function oracleDetected(spec: ExperimentSpec, trials: number, p = page): { detected: number; flips: number[][] } {
  const original = pgChecksumPage(p, BLOCK);
  const next = trialSource(ORACLE_LAYOUT, spec, p.length, false);
  let detected = 0;
  const flips: number[][] = [];
  for (let t = 0; t < trials; t++) {
    const bits = next(t);
    flips.push(bits);
    const copy = p.slice();
    for (const b of bits) copy[b >> 3] ^= 1 << (b & 7);
    if (pgChecksumPage(copy, BLOCK) !== original) detected++;
  }
  return { detected, flips };
}

for (const build of ['pkg', 'pkg-scalar']) {
  describe(`checksum lab experiments (${build})`, () => {
    let w: Wasm;
    beforeAll(async () => {
      w = await load(build);
    });

    it('single-bit errors: all 65,520 change the 32-bit sum; the 16-bit checksum as the oracle says', () => {
      const t = run(w, { kind: 'exhaustive', flips: 1, trials: 0, seed: 1 });
      expect(t.trials).toBe(65_520);
      // Each lane's step is a bijection of its sum, so one flipped bit always changes the
      // fold; `% 65535 + 1` can still map two folds to one checksum (about 1 in 65,535).
      expect(t.foldDiffers).toBe(65_520);
      // The oracle flips every bit of the page itself, skipping bytes 8 and 9.
      const original = pgChecksumPage(page, BLOCK);
      const undetected: number[][] = [];
      for (let byte = 0; byte < 8192; byte++) {
        if (byte === 8 || byte === 9) continue;
        for (let bit = 0; bit < 8; bit++) {
          page[byte] ^= 1 << bit;
          if (pgChecksumPage(page, BLOCK) === original) undetected.push([byte * 8 + bit]);
          page[byte] ^= 1 << bit;
        }
      }
      expect(t.detected).toBe(65_520 - undetected.length);
      expect(t.undetected).toEqual(undetected.slice(0, 5));
      console.log(`${build}: single-bit ${t.detected}/65520 detected, fold differs ${t.foldDiffers}, undetected ${JSON.stringify(t.undetected)}`);
    });

    it('random flips: the detection count equals the oracle trial by trial, across batches', () => {
      for (const flips of [2, 5, 16]) {
        const spec: ExperimentSpec = { kind: 'random', flips, trials: 700, seed: 1000 + flips };
        // A batch size that does not divide the trials: the last batch is a short one.
        const t = run(w, spec, 64);
        expect(t.trials).toBe(700);
        expect(t.detected).toBe(oracleDetected(spec, 700).detected);
      }
    });

    it('same-lane pairs: the detection count equals the oracle, and undetected trials are real', () => {
      const spec: ExperimentSpec = { kind: 'same_lane', flips: 2, trials: 3000, seed: 77 };
      const t = run(w, spec);
      const o = oracleDetected(spec, 3000);
      expect(t.detected).toBe(o.detected);
      for (const bits of t.undetected) {
        const copy = page.slice();
        for (const b of bits) copy[b >> 3] ^= 1 << (b & 7);
        expect(pgChecksumPage(copy, BLOCK)).toBe(pgChecksumPage(page, BLOCK));
      }
      console.log(`${build}: same-lane pairs ${t.detected}/${t.trials} detected, fold differs ${t.foldDiffers}`);
    });

    it('every same-lane pair: counted as the oracle counts on a 1 KB page; the 32-bit sum always differs on 8 KB', () => {
      const small = seal(heapPage(1024, 5, rng(12)), BLOCK);
      const spec: ExperimentSpec = { kind: 'same_lane_all', flips: 2, trials: 0, seed: 1 };
      const t1 = run(w, spec, undefined, small);
      // 8 rows a lane: 28 pairs × 32 lanes × 32 bits, less pd_checksum's 16 bits × 7 partners.
      expect(t1.trials).toBe(28 * 32 * 32 - 16 * 7);
      expect(t1.detected).toBe(oracleDetected(spec, t1.trials, small).detected);
      expect(t1.foldDiffers).toBe(t1.trials);
      const t8 = run(w, spec);
      expect(t8.trials).toBe(2_063_376);
      expect(t8.foldDiffers).toBe(2_063_376);
      for (const bits of t8.undetected) {
        const copy = page.slice();
        for (const b of bits) copy[b >> 3] ^= 1 << (b & 7);
        expect(pgChecksumPage(copy, BLOCK)).toBe(pgChecksumPage(page, BLOCK));
      }
      console.log(`${build}: every same-lane pair ${t8.detected}/${t8.trials} detected, fold differs ${t8.foldDiffers}`);
    });

    it('checksum_rounds XORs every page checksum, block numbers from 0, each round', () => {
      const r = rng(3);
      const pages = new Uint8Array(8192 * 5);
      for (let b = 0; b < 5; b++) pages.set(seal(heapPage(8192, 4 + b, r), b + 40), b * 8192);
      let want = 0;
      for (let b = 0; b < 5; b++) want ^= pgChecksumPage(pages.subarray(b * 8192, (b + 1) * 8192), b);
      expect(want).not.toBe(0);
      expect(w.checksum_rounds(pages, 8192, false, 1)).toBe(want);
      expect(w.checksum_rounds(pages, 8192, false, 3)).toBe(want);
      expect(w.checksum_rounds(pages, 8192, false, 2)).toBe(0);
      expect(() => w.checksum_rounds(pages, 1000, false, 1)).toThrow(/block size/);
    });
  });
}

describe('same-lane pairs', () => {
  it('every pair once, in the order of an independent enumeration', () => {
    const next = trialSource(ORACLE_LAYOUT, { kind: 'same_lane_all', flips: 2, trials: 0, seed: 1 }, 8192, false);
    let n = 0;
    let wrong = 0;
    for (let bit = 0; bit < 32; bit++)
      for (let lane = 0; lane < 32; lane++)
        for (let r1 = 0; r1 < 64; r1++)
          for (let r2 = r1 + 1; r2 < 64; r2++) {
            // Little-endian: bit `bit` of word w is byte 4w + bit/8, bit bit%8.
            const a = (4 * (r1 * 32 + lane) + (bit >> 3)) * 8 + (bit & 7);
            const b = (4 * (r2 * 32 + lane) + (bit >> 3)) * 8 + (bit & 7);
            if ((a >= 64 && a < 80) || (b >= 64 && b < 80)) continue;
            const got = next(n++);
            if (got.length !== 2 || got[0] !== a || got[1] !== b) wrong++;
          }
    expect(wrong).toBe(0);
    expect(n).toBe(2_063_376);
  });

  it('flip the same bit of two words of one lane (words i and i + 32k, k ≥ 1)', () => {
    const next = trialSource(ORACLE_LAYOUT, { kind: 'same_lane', flips: 2, trials: 2000, seed: 5 }, 8192, false);
    const lanesSeen = new Set<number>();
    for (let t = 0; t < 2000; t++) {
      const z = new Uint8Array(8192);
      for (const b of next(t)) z[b >> 3] ^= 1 << (b & 7);
      // Read back as checksum_impl.h does: little-endian 32-bit words.
      const v = new DataView(z.buffer);
      const words: [number, number][] = [];
      for (let i = 0; i < 2048; i++) if (v.getUint32(i * 4, true) !== 0) words.push([i, v.getUint32(i * 4, true)]);
      expect(words.length).toBe(2);
      const [[i, a], [j, b]] = words;
      expect((j - i) % 32).toBe(0);
      expect(a).toBe(b);
      expect(a & (a - 1)).toBe(0); // one bit
      expect(z[8] | z[9]).toBe(0); // never pd_checksum
      lanesSeen.add(i % 32);
    }
    expect(lanesSeen.size).toBe(32);
  });
});
