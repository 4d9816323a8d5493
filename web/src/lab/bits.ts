// Bit addressing for the checksum lab: which bits of a page an experiment may flip (all but
// pd_checksum's), which 32-bit word and lane a bit falls in, and the flips of each trial.
// PostgreSQL's checksum (checksum_impl.h) reads the page as 32-bit words in the server's
// byte order and feeds word i to lane i % 32 (N_SUMS = 32).

/** N_SUMS in checksum_impl.h: the number of parallel lanes. */
export const LANES = 32;
/** pd_checksum is bytes 8..9 of every page; its 16 bits are never flipped. */
const CHECKSUM_FIRST_BIT = 8 * 8;
const CHECKSUM_BITS = 16;

/** Bit indexes are `byte * 8 + bit` (bit 0 the byte's least significant). */
export const isChecksumBit = (bit: number): boolean => bit >= CHECKSUM_FIRST_BIT && bit < CHECKSUM_FIRST_BIT + CHECKSUM_BITS;

/** How many bits of a page an experiment may flip: all but pd_checksum's 16. */
export const flippableBits = (pageBytes: number): number => pageBytes * 8 - CHECKSUM_BITS;

/** The `n`th flippable bit, skipping pd_checksum's: the exhaustive run's trial `n`. */
export const nthFlippableBit = (n: number): number => (n < CHECKSUM_FIRST_BIT ? n : n + CHECKSUM_BITS);

export function flipBit(bytes: Uint8Array, base: number, bit: number): void {
  bytes[base + (bit >>> 3)] ^= 1 << (bit & 7);
}

/** Where a page bit sits in the checksum's view: 32-bit word, bit within it, lane. */
export function wordBit(bit: number, bigEndian: boolean): { word: number; bitInWord: number; lane: number } {
  const byte = bit >>> 3;
  const word = byte >>> 2;
  const byteInWord = bigEndian ? 3 - (byte & 3) : byte & 3;
  return { word, bitInWord: byteInWord * 8 + (bit & 7), lane: word % LANES };
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
export function randomBits(rand: () => number, pageBytes: number, n: number): number[] {
  const out: number[] = [];
  while (out.length < n) {
    const bit = nthFlippableBit(below(rand, flippableBits(pageBytes)));
    if (!out.includes(bit)) out.push(bit);
  }
  return out;
}

/**
 * Two flips of the same bit of two words in one lane (words i and i + 32k, k ≥ 1): the case
 * the 2013 "Enabling Checksums" threads worried about, since both land in the same sum.
 */
export function sameLaneBits(rand: () => number, pageBytes: number, bigEndian: boolean): [number, number] {
  const rows = pageBytes / 4 / LANES;
  for (;;) {
    const bitInWord = below(rand, 32);
    const lane = below(rand, LANES);
    const r1 = below(rand, rows);
    let r2 = below(rand, rows - 1);
    if (r2 >= r1) r2++;
    const a = bitOfWord(r1 * LANES + lane, bitInWord, bigEndian);
    const b = bitOfWord(r2 * LANES + lane, bitInWord, bigEndian);
    if (!isChecksumBit(a) && !isChecksumBit(b)) return [a, b];
  }
}

/** Pairs `sameLanePairs` visits: 32 bits × 32 lanes × every two rows, less pd_checksum's. */
export function sameLanePairCount(pageBytes: number): number {
  const rows = pageBytes / 4 / LANES;
  const pairs = (rows * (rows - 1)) / 2;
  // pd_checksum is 16 bits of word 2 (row 0), each paired with the lane's other rows.
  return 32 * LANES * pairs - CHECKSUM_BITS * (rows - 1);
}

/** Every same-lane pair once: for each bit of the word, each lane, rows r1 < r2. */
export function* sameLanePairs(pageBytes: number, bigEndian: boolean): Generator<[number, number]> {
  const rows = pageBytes / 4 / LANES;
  for (let bitInWord = 0; bitInWord < 32; bitInWord++) {
    for (let lane = 0; lane < LANES; lane++) {
      for (let r1 = 0; r1 < rows; r1++) {
        const a = bitOfWord(r1 * LANES + lane, bitInWord, bigEndian);
        if (isChecksumBit(a)) continue;
        for (let r2 = r1 + 1; r2 < rows; r2++) {
          const b = bitOfWord(r2 * LANES + lane, bitInWord, bigEndian);
          if (!isChecksumBit(b)) yield [a, b];
        }
      }
    }
  }
}
