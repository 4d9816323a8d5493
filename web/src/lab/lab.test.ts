// The lab's pure logic: bit addressing and lanes read back through DataView as
// checksum_impl.h reads words, the flips of each trial, and the splice for the download.
import { beforeAll, describe, expect, it } from 'vitest';
import { ORACLE_LAYOUT } from '../../../tests/oracle/pgchecksum';
import {
  bitOfWord,
  checksumLayout,
  flipBit,
  flippableBits,
  isChecksumBit,
  nthFlippableBit,
  randomBits,
  sameLaneBits,
  wordBit,
  xorshift32,
  type ChecksumLayout,
} from './bits';
import { spliceEdits } from './splice';
import { wasmFromDisk } from '../core/disk';

/** The one set 32-bit word of a page with one bit set, read in the given byte order. */
function setWord(bit: number, littleEndian: boolean): { word: number; value: number } {
  const page = new Uint8Array(8192);
  flipBit(page, 0, bit);
  const v = new DataView(page.buffer);
  const words = Array.from({ length: 2048 }, (_, i) => v.getUint32(i * 4, littleEndian));
  const word = words.findIndex((w) => w !== 0);
  return { word, value: words[word] };
}

let L: ChecksumLayout;
beforeAll(async () => {
  // The core's layout, from the built bindings as the lab worker loads them.
  const wasm = await wasmFromDisk();
  L = checksumLayout(wasm);
});

describe('bit addressing', () => {
  it("takes the lanes and pd_checksum's place from the core, as checksum_impl.h and bufpage.h define them", () => {
    expect(L).toEqual(ORACLE_LAYOUT);
  });

  it('names the word, the bit within it and the lane as the checksum reads the page', () => {
    for (const bigEndian of [false, true]) {
      for (let bit = 0; bit < 65536; bit += 37) {
        const w = wordBit(L, bit, bigEndian);
        const got = setWord(bit, !bigEndian);
        expect(w.word).toBe(got.word);
        expect(2 ** w.bitInWord).toBe(got.value);
        expect(w.lane).toBe(got.word % 32);
        expect(bitOfWord(w.word, w.bitInWord, bigEndian)).toBe(bit);
      }
    }
    // pd_checksum's first bit: word 2 (lane 2), bit 0 little-endian, bit 24 big-endian.
    expect(wordBit(L, 64, false)).toEqual({ word: 2, bitInWord: 0, lane: 2 });
    expect(wordBit(L, 64, true)).toEqual({ word: 2, bitInWord: 24, lane: 2 });
  });

  it('the exhaustive run visits every bit but pd_checksum’s exactly once', () => {
    expect(flippableBits(L, 8192)).toBe(65_520);
    const seen = new Uint8Array(65536);
    for (let n = 0; n < 65_520; n++) seen[nthFlippableBit(L, n)]++;
    for (let bit = 0; bit < 65536; bit++) expect(seen[bit]).toBe(bit >= 64 && bit < 80 ? 0 : 1);
    expect(isChecksumBit(L, 63)).toBe(false);
    expect(isChecksumBit(L, 64)).toBe(true);
    expect(isChecksumBit(L, 79)).toBe(true);
    expect(isChecksumBit(L, 80)).toBe(false);
  });

  it('random trials flip distinct bits outside pd_checksum, repeatably from a seed', () => {
    const a = xorshift32(9);
    const b = xorshift32(9);
    for (let t = 0; t < 500; t++) {
      const bits = randomBits(L, a, 8192, 16);
      expect(new Set(bits).size).toBe(16);
      expect(bits.every((x) => x >= 0 && x < 65536 && !isChecksumBit(L, x))).toBe(true);
      expect(randomBits(L, b, 8192, 16)).toEqual(bits);
    }
  });

  it('same-lane trials flip the same bit of two distinct words 32k apart, big-endian too', () => {
    const r = xorshift32(3);
    for (let t = 0; t < 500; t++) {
      const [x, y] = sameLaneBits(L, r, 8192, true);
      // Read big-endian, as a big-endian server's checksum reads its words.
      const a = setWord(x, false);
      const b = setWord(y, false);
      expect(a.word).not.toBe(b.word);
      expect(Math.abs(b.word - a.word) % 32).toBe(0);
      expect(a.value).toBe(b.value);
      expect(isChecksumBit(L, x) || isChecksumBit(L, y)).toBe(false);
    }
  });

  it('flipping a bit twice restores the byte', () => {
    const p = Uint8Array.from([0xa5, 0x3c]);
    flipBit(p, 1, 3);
    expect(p).toEqual(Uint8Array.from([0xa5, 0x3c ^ 8]));
    flipBit(p, 1, 3);
    expect(p).toEqual(Uint8Array.from([0xa5, 0x3c]));
  });
});

describe('spliceEdits', () => {
  const bs = 1024;
  const file = Uint8Array.from({ length: 4 * bs + 100 }, (_, i) => (i * 7) & 0xff);
  const blob = new Blob([file]);

  it('puts edited pages in place of the file’s, everything else byte for byte', async () => {
    const p0 = new Uint8Array(bs).fill(0xee);
    const p2 = new Uint8Array(bs).fill(0x11);
    const out = new Uint8Array(
      await spliceEdits(
        blob,
        new Map([
          [2, p2],
          [0, p0],
        ]),
        bs,
      ).arrayBuffer(),
    );
    const want = file.slice();
    want.set(p0, 0);
    want.set(p2, 2 * bs);
    expect(out).toEqual(want);
    // No edits: the file as it is, trailing bytes included.
    expect(new Uint8Array(await spliceEdits(blob, new Map(), bs).arrayBuffer())).toEqual(file);
  });

  it('refuses a page of the wrong size or past the file’s whole pages', () => {
    expect(() => spliceEdits(blob, new Map([[1, new Uint8Array(bs - 1)]]), bs)).toThrow(/whole/);
    expect(() => spliceEdits(blob, new Map([[4, new Uint8Array(bs)]]), bs)).toThrow(/whole/);
  });
});
