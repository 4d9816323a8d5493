// Bit addressing for the checksum lab: which bits of a page an experiment may flip (all but
// pd_checksum's), which 32-bit word and lane a bit falls in, and the flips of each trial.
// PostgreSQL's checksum (checksum_impl.h) reads the page as 32-bit words in the server's
// byte order and feeds word i to lane i % N_SUMS; the core says how many lanes there are and
// where pd_checksum sits (`checksum_layout`), so no PostgreSQL constant is repeated here.
import type { Wasm } from '../core';

/** Where the checksum reads a page, as the core states it. */
export interface ChecksumLayout {
  /** N_SUMS in checksum_impl.h: the number of parallel lanes. */
  lanes: number;
  /** pd_checksum's first bit (byte offset * 8) and its bits, never flipped. */
  checksumFirstBit: number;
  checksumBits: number;
}

export function checksumLayout(w: Pick<Wasm, 'checksum_layout'>): ChecksumLayout {
  const [lanes, offset, bytes] = w.checksum_layout();
  return { lanes, checksumFirstBit: offset * 8, checksumBits: bytes * 8 };
}

/** Bit indexes are `byte * 8 + bit` (bit 0 the byte's least significant). */
export const isChecksumBit = (L: ChecksumLayout, bit: number): boolean => bit >= L.checksumFirstBit && bit < L.checksumFirstBit + L.checksumBits;

/** How many bits of a page an experiment may flip: all but pd_checksum's. */
export const flippableBits = (L: ChecksumLayout, pageBytes: number): number => pageBytes * 8 - L.checksumBits;

/** The `n`th flippable bit, skipping pd_checksum's: the exhaustive run's trial `n`. */
export const nthFlippableBit = (L: ChecksumLayout, n: number): number => (n < L.checksumFirstBit ? n : n + L.checksumBits);

export function flipBit(bytes: Uint8Array, base: number, bit: number): void {
  bytes[base + (bit >>> 3)] ^= 1 << (bit & 7);
}

/** Where a page bit sits in the checksum's view: 32-bit word, bit within it, lane. */
export function wordBit(L: ChecksumLayout, bit: number, bigEndian: boolean): { word: number; bitInWord: number; lane: number } {
  const byte = bit >>> 3;
  const word = byte >>> 2;
  const byteInWord = bigEndian ? 3 - (byte & 3) : byte & 3;
  return { word, bitInWord: byteInWord * 8 + (bit & 7), lane: word % L.lanes };
}

/** The page bit that is bit `bitInWord` of 32-bit word `word`; inverse of `wordBit`. */
export function bitOfWord(word: number, bitInWord: number, bigEndian: boolean): number {
  const byteInWord = bitInWord >>> 3;
  const byte = word * 4 + (bigEndian ? 3 - byteInWord : byteInWord);
  return byte * 8 + (bitInWord & 7);
}

/** xorshift32: experiments are repeatable from their seed. */
export function xorshift32(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

const below = (rand: () => number, n: number): number => Math.floor((rand() / 0x100000000) * n);

/** `n` distinct flippable bits of a page of `pageBytes`, uniformly. */
export function randomBits(L: ChecksumLayout, rand: () => number, pageBytes: number, n: number): number[] {
  const out: number[] = [];
  while (out.length < n) {
    const bit = nthFlippableBit(L, below(rand, flippableBits(L, pageBytes)));
    if (!out.includes(bit)) out.push(bit);
  }
  return out;
}

/**
 * Two flips of the same bit of two words in one lane (words i and i + 32k, k ≥ 1): the case
 * the 2013 "Enabling Checksums" threads worried about, since both land in the same sum.
 */
export function sameLaneBits(L: ChecksumLayout, rand: () => number, pageBytes: number, bigEndian: boolean): [number, number] {
  const rows = pageBytes / 4 / L.lanes;
  for (;;) {
    const bitInWord = below(rand, 32);
    const lane = below(rand, L.lanes);
    const r1 = below(rand, rows);
    let r2 = below(rand, rows - 1);
    if (r2 >= r1) r2++;
    const a = bitOfWord(r1 * L.lanes + lane, bitInWord, bigEndian);
    const b = bitOfWord(r2 * L.lanes + lane, bitInWord, bigEndian);
    if (!isChecksumBit(L, a) && !isChecksumBit(L, b)) return [a, b];
  }
}

/** Pairs `sameLanePairs` visits: 32 bits × the lanes × every two rows, less pd_checksum's. */
export function sameLanePairCount(L: ChecksumLayout, pageBytes: number): number {
  const rows = pageBytes / 4 / L.lanes;
  const pairs = (rows * (rows - 1)) / 2;
  // pd_checksum's bits lie in row 0, each paired with its lane's other rows.
  return 32 * L.lanes * pairs - L.checksumBits * (rows - 1);
}

/** Every same-lane pair once: for each bit of the word, each lane, rows r1 < r2. */
export function* sameLanePairs(L: ChecksumLayout, pageBytes: number, bigEndian: boolean): Generator<[number, number]> {
  const rows = pageBytes / 4 / L.lanes;
  for (let bitInWord = 0; bitInWord < 32; bitInWord++) {
    for (let lane = 0; lane < L.lanes; lane++) {
      for (let r1 = 0; r1 < rows; r1++) {
        const a = bitOfWord(r1 * L.lanes + lane, bitInWord, bigEndian);
        if (isChecksumBit(L, a)) continue;
        for (let r2 = r1 + 1; r2 < rows; r2++) {
          const b = bitOfWord(r2 * L.lanes + lane, bitInWord, bigEndian);
          if (!isChecksumBit(L, b)) yield [a, b];
        }
      }
    }
  }
}
