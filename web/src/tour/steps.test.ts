import { beforeAll, describe, expect, it } from 'vitest';
import { namesOf } from '../files';
import type { Wasm } from '../core';
import type { SampleManifest } from '../samples/samples';
import manifestJson from '../../../public/samples/manifest.json';
import { stepHighlight, TOUR_STEPS } from './steps';
import { wasmFromDisk } from '../core/disk';

// The committed manifest: what PostgreSQL said about the samples (tests/pg/samples.test.ts
// holds it against a server); the steps must point at pages that show what their text claims.
const manifest = manifestJson as SampleManifest;
const sample = (role: string) => {
  const s = manifest.samples.find((x) => x.role === role);
  if (!s) throw new Error(`no sample ${role}`);
  return s;
};

describe('the samples', () => {
  let w: Wasm;
  beforeAll(async () => {
    w = await wasmFromDisk();
  });
  it('take fork and segment from their file names, as dropped files do', () => {
    for (const s of manifest.samples) {
      const { rel } = namesOf(w, s.file);
      expect(rel, s.file).not.toBeNull();
      expect({ fork: rel!.fork, segment: rel!.segment }, s.file).toEqual({ fork: s.fork, segment: s.segment });
      expect(new Set(manifest.samples.map((x) => x.file)).size).toBe(manifest.samples.length);
    }
  });
});

describe('tour steps', () => {
  it('each shows an existing page and outlines bytes within it', () => {
    for (const step of TOUR_STEPS) {
      const s = sample(step.role);
      expect(s.pages[step.block], step.title).toBeDefined();
      const h = stepHighlight(step, s);
      expect(h.end, step.title).toBeGreaterThan(h.start);
      expect(h.start).toBeGreaterThanOrEqual(0);
      expect(h.end).toBeLessThanOrEqual(manifest.block_size);
      const text = step.text({ manifest, sample: s, page: s.pages[step.block] }).join(' ');
      expect(text, step.title).not.toMatch(/undefined|null|NaN/);
    }
  });

  it('point at pages whose status is what their text says', () => {
    const status = (role: string, block: number) => sample(role).pages[block].status;
    const at = (role: string) => TOUR_STEPS.find((x) => x.role === role)!.block;
    expect(status('heap', 0)).toBe('ok');
    expect(status('heap', 1)).toBe('ok');
    expect(status('flipped_bit', at('flipped_bit'))).toBe('mismatch');
    expect(status('zeroed_page', at('zeroed_page'))).toBe('zero');
    // Its step says the zeroed page lies between pages with rows, blocks 1 and 3.
    for (const b of [1, 3]) expect(sample('zeroed_page').pages[b]).toMatchObject({ status: 'ok', upper: expect.any(Number) as number });
    expect(Math.min(sample('zeroed_page').pages[1].upper, sample('zeroed_page').pages[3].upper)).toBeGreaterThan(24);
    expect(status('upper_zeroed', at('upper_zeroed'))).toBe('new_not_zero');
    expect(status('swapped_pages', at('swapped_pages'))).toBe('mismatch');
    expect(status('segment_2', at('segment_2'))).toBe('mismatch');
  });

  it('quote PostgreSQL: the swapped page carries block 2 checksum, segment 2 the heap bytes', () => {
    const heap = sample('heap');
    const swapped = sample('swapped_pages');
    expect(swapped.pages[1].stored).toBe(heap.pages[2].stored);
    expect(swapped.pages[2].stored).toBe(heap.pages[1].stored);
    const seg2 = sample('segment_2');
    expect(seg2.pages.map((p) => p.stored)).toEqual(heap.pages.map((p) => p.stored));
    expect(seg2.pages[0].absolute_block).toBe(2 * 131072);
    const step = TOUR_STEPS.find((x) => x.role === 'segment_2')!;
    const text = step.text({ manifest, sample: seg2, page: seg2.pages[0] }).join(' ');
    expect(text).toContain(`checksum ${heap.pages[0].stored} is valid`);
    expect(text).toContain(`computes ${seg2.pages[0].computed}`);
  });
});
