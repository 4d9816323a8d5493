// The caption burned into exported pictures and their file names.
import { describe, expect, it } from 'vitest';
import { bandHeight, bandLines, BAND_LINE_PX, BAND_PAD_PX, LIST_BAND_NOTES, listBandLines, listPngName, mapBandLines, pngName } from './band';

describe('picture band', () => {
  it('names file, block, relation block, both checksums in three forms, status and version', () => {
    const lines = bandLines({
      what: 'page view',
      path: 'base/5/16385.2',
      block: 7,
      absoluteBlock: 2 * 131072 + 7,
      status: 'mismatch',
      stored: 56814,
      computed: 981,
      version: '1.2.3',
    });
    expect(lines).toEqual([
      'base/5/16385.2, block 7 (relation block 262151) — page view',
      'mismatch: checksum mismatch. Stored 56814 (0xDDEE, int2 -8722), computed 981 (0x03D5, int2 981)',
      'pgpage 1.2.3 — made locally, nothing uploaded',
    ]);
    expect(bandHeight(lines.length)).toBe(3 * BAND_LINE_PX + 2 * BAND_PAD_PX);
  });
  it('says a new page has no computed checksum', () => {
    const [, second] = bandLines({
      what: 'page map',
      path: '16385',
      block: 3,
      absoluteBlock: 3,
      status: 'new_not_zero',
      stored: 14707,
      computed: null,
      version: '1.2.3',
    });
    expect(second).toContain('computed — (new page)');
  });
  it('makes one file name of a path', () => {
    expect(pngName('16385', 1)).toBe('pgpage-16385-block1.png');
    expect(pngName('data/base/5/16385.2', 12, '-map')).toBe('pgpage-data-base-5-16385.2-block12-map.png');
  });
  it('describes the problem list, not one block', () => {
    const lines = listBandLines(
      [
        { path: 'base/5/16385', block: 1, status: 'mismatch' },
        { path: 'base/5/16385', block: 2, status: 'mismatch' },
        { path: 'base/5/16385', block: 3, status: 'mismatch' },
        { path: 'base/5/16385.2', block: 9, status: 'new_not_zero' },
      ],
      '1.2.3',
    );
    expect(lines).toEqual([
      'Problem pages: 4 pages in 2 files (3 mismatch, 1 new_not_zero) — problem list',
      'base/5/16385 (mismatch) blocks 1-3; base/5/16385.2 (new_not_zero) block 9',
      'pgpage 1.2.3 — made locally, nothing uploaded',
    ]);
    expect(listBandLines([{ path: 'x', block: 0, status: 'zero' }], '1')[0]).toBe('Problem pages: 1 page in 1 file (1 zero) — problem list');
    const many = listBandLines(
      Array.from({ length: 300 }, (_, i) => ({ path: `f${i}`, block: i, status: 'mismatch' as const })),
      '1',
    );
    expect(many[1].length).toBe(160);
    expect(many[1].endsWith('…')).toBe(true);
    // Notes a line each up to LIST_BAND_NOTES, then one line counting the rest.
    const notes = Array.from({ length: LIST_BAND_NOTES + 3 }, (_, i) => `f block ${i}: all-zero`);
    const noted = listBandLines([{ path: 'f', block: 0, status: 'mismatch' }], '1', notes);
    expect(noted).toHaveLength(2 + LIST_BAND_NOTES + 2);
    expect(noted.slice(2, 2 + LIST_BAND_NOTES)).toEqual(notes.slice(0, LIST_BAND_NOTES));
    expect(noted[2 + LIST_BAND_NOTES]).toBe('… and 3 more notes of all-zero pages between rows, not in this band');
  });
  it('names the problem list after its one relation, else its one file', () => {
    const rel = ['forensic', 'public.orders'] as const;
    expect(
      listPngName([
        { path: 'pgdata/base/16384/16385', relation: rel },
        { path: 'pgdata/base/16384/16385.1', relation: rel },
      ]),
    ).toBe('forensic.public.orders-problems.png');
    expect(listPngName([{ path: 'pgdata/base/16384/16385', relation: null }])).toBe('pgpage-pgdata-base-16384-16385-problems.png');
    expect(
      listPngName([
        { path: 'a/16385', relation: null },
        { path: 'b/16385', relation: null },
      ]),
    ).toBe('pgpage-problems.png');
    expect(listPngName([{ path: 'x', relation: ['odd db', 'public.a/b'] }])).toBe('odd-db.public.a-b-problems.png');
    // The band names the relation beside the file.
    expect(listBandLines([{ path: 'base/5/16385', block: 3, status: 'mismatch', relation: 'forensic / public.orders' }], '1')[1]).toBe(
      'base/5/16385 = forensic / public.orders (mismatch) block 3',
    );
  });
  it('describes the page map layout and counts', () => {
    expect(mapBandLines('16385', 331, 64, { ok: 300, mismatch: 31, zero: 0, new_not_zero: 0, bad_header: 0 }, 0, '1.2.3')).toEqual([
      '16385 — page map of 331 blocks, 64 a row, the first block of each row numbered at its left',
      '300 ok, 31 mismatch',
      'pgpage 1.2.3 — made locally, nothing uploaded',
    ]);
  });
});
