// An independent PostgreSQL page checksum and page status for tests, written from
// storage/checksum_impl.h and bufpage.c's PageIsVerified; the lane offsets are read from the
// installed server header at run time, not copied. Also builds pages and relation files.
import { readFileSync } from 'node:fs';

const HEADER = process.env.PG_CHECKSUM_IMPL ?? '/usr/include/postgresql/15/server/storage/checksum_impl.h';

function baseOffsets(): Uint32Array {
  const src = readFileSync(HEADER, 'utf8');
  const m = /checksumBaseOffsets\[N_SUMS\]\s*=\s*\{([^}]*)\}/.exec(src);
  if (!m) throw new Error(`checksumBaseOffsets not found in ${HEADER}`);
  const values = m[1]
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => Number(s));
  if (values.length !== 32) throw new Error(`expected 32 offsets in ${HEADER}, got ${values.length}`);
  return Uint32Array.from(values);
}

let offsets: Uint32Array | null = null;

/** Where pg_checksum_page reads a page (checksum_impl.h's N_SUMS lanes, bufpage.h's
 * pd_checksum at bytes 8..9), in the lab's terms, for tests that hold the core's against it. */
export const ORACLE_LAYOUT = { lanes: 32, checksumFirstBit: 8 * 8, checksumBits: 16 } as const;

/** pg_checksum_page(page, blkno), little-endian server unless told otherwise. */
export function pgChecksumPage(page: Uint8Array, blkno: number, littleEndian = true): number {
  offsets ??= baseOffsets();
  const sums = Uint32Array.from(offsets);
  const view = new DataView(page.buffer, page.byteOffset, page.byteLength);
  const comp = (j: number, value: number) => {
    const tmp = (sums[j] ^ value) >>> 0;
    sums[j] = (Math.imul(tmp, 16777619) ^ (tmp >>> 17)) >>> 0;
  };
  const rows = page.length / 128;
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < 32; j++) {
      const off = i * 128 + j * 4;
      let w = view.getUint32(off, littleEndian);
      // pd_checksum (bytes 8..9) counts as zero.
      if (off === 8) w = littleEndian ? w & 0xffff0000 : w & 0x0000ffff;
      comp(j, w >>> 0);
    }
  }
  for (let r = 0; r < 2; r++) for (let j = 0; j < 32; j++) comp(j, 0);
  let result = 0;
  for (let j = 0; j < 32; j++) result = (result ^ sums[j]) >>> 0;
  return (((result ^ blkno) >>> 0) % 65535) + 1;
}

export type OracleStatus = 'ok' | 'mismatch' | 'zero' | 'new_not_zero' | 'bad_header';

/** PageIsVerified (bufpage.c) with checksums on, split the way the contract names it. */
export function oracleStatus(page: Uint8Array, blkno: number): { status: OracleStatus; stored: number; computed: number | null } {
  const v = new DataView(page.buffer, page.byteOffset, page.byteLength);
  const stored = v.getUint16(8, true);
  const upper = v.getUint16(14, true);
  if (upper === 0) {
    return { status: page.every((b) => b === 0) ? 'zero' : 'new_not_zero', stored, computed: null };
  }
  const computed = pgChecksumPage(page, blkno);
  if (computed !== stored) return { status: 'mismatch', stored, computed };
  const flags = v.getUint16(10, true);
  const lower = v.getUint16(12, true);
  const special = v.getUint16(16, true);
  const sane = (flags & ~7) === 0 && lower <= upper && upper <= special && special <= page.length && special % 8 === 0;
  return { status: sane ? 'ok' : 'bad_header', stored, computed };
}

/** A deterministic pseudo-random generator (tests must be repeatable). */
export function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
}

/** A heap-like page: a sane header, `items` line pointers and tuples of random bytes. */
export function heapPage(blockSize: number, items: number, rand: () => number): Uint8Array {
  const p = new Uint8Array(blockSize);
  const v = new DataView(p.buffer);
  const tupleLen = 40;
  let upper = blockSize;
  for (let i = 0; i < items; i++) {
    upper -= tupleLen;
    v.setUint32(24 + i * 4, (upper & 0x7fff) | (1 << 15) | (tupleLen << 17), true);
    for (let k = 0; k < tupleLen; k++) p[upper + k] = Math.floor(rand() * 256);
    v.setUint8(upper + 22, 24); // t_hoff
  }
  v.setUint32(0, 0, true);
  v.setUint32(4, 0x01000000 + Math.floor(rand() * 0xffff), true); // pd_lsn
  v.setUint16(12, 24 + items * 4, true);
  v.setUint16(14, upper, true);
  v.setUint16(16, blockSize, true);
  v.setUint16(18, blockSize | 4, true);
  return p;
}

/** Writes pg_checksum_page for relation-wide block `blkno` into pd_checksum. */
export function seal(page: Uint8Array, blkno: number): Uint8Array {
  new DataView(page.buffer, page.byteOffset, page.byteLength).setUint16(8, pgChecksumPage(page, blkno), true);
  return page;
}

export function concat(pages: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(pages.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of pages) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export interface SyntheticFile {
  bytes: Uint8Array;
  /** Expected verdict of every page, from the oracle. */
  expected: { block: number; status: OracleStatus; stored: number; computed: number | null }[];
}

/**
 * A relation file of `blocks` sealed heap pages of segment `segment`, then damaged: a bit
 * flip in block 1's data, block 2 all zeros, block 3 with pd_upper zeroed, block 4 with
 * pd_lower > pd_upper but a valid checksum, blocks 5 and 6 swapped.
 */
export function damagedFile(blocks: number, segment: number, blockSize = 8192, seed = 42): SyntheticFile {
  const rand = rng(seed);
  const first = segment * ((1 << 30) / blockSize);
  const pages = Array.from({ length: blocks }, (_, b) => seal(heapPage(blockSize, 3 + (b % 5), rand), first + b));
  if (blocks > 1) pages[1][blockSize - 7] ^= 0x10;
  if (blocks > 2) pages[2] = new Uint8Array(blockSize);
  if (blocks > 3) new DataView(pages[3].buffer).setUint16(14, 0, true);
  if (blocks > 4) {
    const v = new DataView(pages[4].buffer);
    v.setUint16(12, v.getUint16(14, true) + 8, true);
    seal(pages[4], first + 4);
  }
  if (blocks > 6) [pages[5], pages[6]] = [pages[6], pages[5]];
  const expected = pages.map((p, b) => ({ block: b, ...oracleStatus(p, first + b) }));
  return { bytes: concat(pages), expected };
}
