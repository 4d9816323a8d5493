// The caption burned into exported pictures and their file names.
import { describe, expect, it } from 'vitest';
import { bandHeight, bandLines, BAND_LINE_PX, BAND_PAD_PX, pngName } from './band';

describe('picture band', () => {
  it('names file, block, relation block, both checksums in three forms, status and version', () => {
    const lines = bandLines({ what: 'page view', path: 'base/5/16385.2', block: 7, absoluteBlock: 2 * 131072 + 7, status: 'mismatch', stored: 56814, computed: 981, version: '1.2.3' });
    expect(lines).toEqual([
      'base/5/16385.2, block 7 (relation block 262151) — page view',
      'mismatch: checksum mismatch. Stored 56814 (0xDDEE, int2 -8722), computed 981 (0x03D5, int2 981)',
      'pgpage 1.2.3 — made locally, nothing uploaded',
    ]);
    expect(bandHeight(lines.length)).toBe(3 * BAND_LINE_PX + 2 * BAND_PAD_PX);
  });
  it('says a new page has no computed checksum', () => {
    const [, second] = bandLines({ what: 'page map', path: '16385', block: 3, absoluteBlock: 3, status: 'new_not_zero', stored: 14707, computed: null, version: '1.2.3' });
    expect(second).toContain('computed — (new page)');
  });
  it('makes one file name of a path', () => {
    expect(pngName('16385', 1)).toBe('pgpage-16385-block1.png');
    expect(pngName('data/base/5/16385.2', 12, '-map')).toBe('pgpage-data-base-5-16385.2-block12-map.png');
  });
});
