// amcheck's per-page checks through the wasm core as the verify worker runs them: a file
// given its pages' own checks (`set_page_checks`) gets the finding on the damaged line pointer
// as a page finding at that offset, in the words the page view's decode marks the same item
// with; without them, or on the untouched page, none. The catalog worker's hints are the
// core's bytes: anything else is refused with a message.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Wasm } from '../core';
import { decodeWithCore } from '../lib/spans';
import { resultOf } from './result';
import { wasmFromDisk } from '../core/disk';

let w: Wasm;
const page = readFileSync(join(__dirname, '../../../tests/fixtures/heap_nulls_frozen/page.bin'));

beforeAll(async () => {
  w = await wasmFromDisk();
});

/** The fixture with line pointer 1 pointing past the page's end (lp_off 8190, its lp_len). */
function damaged(): Uint8Array {
  const p = new Uint8Array(page);
  const v = new DataView(p.buffer);
  const word = v.getUint32(24, true);
  v.setUint32(24, (word & ~0x7fff) | 8190, true);
  return p;
}

function verify(bytes: Uint8Array, pageChecks: boolean) {
  const scan = new w.FileScanJs(bytes, bytes.length, 0, 8192, 'little', true);
  try {
    if (pageChecks) scan.set_page_checks();
    scan.chunk(bytes, 0);
    // Checksums off: the fixture was made without them; the page is one the server reads.
    return resultOf(w, scan.finish(2, 'base/5/16384'), scan.first_absolute_block, scan.blocks, 'base/5/16384');
  } finally {
    scan.free();
  }
}

describe('structural checks in the verify worker', () => {
  it('a line pointer past the page: a page finding at its offset, in the words the page view marks it with', () => {
    const bytes = damaged();
    const r = verify(bytes, true);
    expect(r.problem).toBe(false);
    const found = r.pageFindings.filter((x) => x.amcheck);
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((x) => x.block === 0 && x.evidence !== 'note')).toBe(true);
    expect(found.map((x) => x.offset)).toContain(1);
    // The row lists the same codes, so the page view shows them for these bytes.
    expect(r.pages[0].findings).toEqual(expect.arrayContaining(found.map((x) => x.code)));
    const marked = decodeWithCore(w, bytes, 0, false, 'main').spans.filter((s) => s.problem !== undefined && s.item === 1);
    for (const x of found.filter((f) => f.offset === 1)) expect(marked.map((s) => s.problem)).toContain(x.message);
  });

  it('nothing without the checks, nor on the untouched page', () => {
    expect(verify(damaged(), false).pageFindings).toEqual([]);
    expect(verify(new Uint8Array(page), true).pageFindings).toEqual([]);
  });

  it("hints that are not the core's bytes are refused with a message", () => {
    expect(() => new w.StructuresJs(new Uint8Array([1, 2, 3]))).toThrow(/not the structural checks' hints/);
  });
});
