// The page's fileGeometry is the core's file_geometry through the wasm binding: choices go in
// as the binding's arguments, the core's decision and its sentence come out. Pages are
// PostgreSQL's (public/samples, made by a real server); big-endian ones are those pages with
// their PageHeaderData fields byte-swapped, as a big-endian server writes them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fileGeometry, headBytes, type GeometryChoice } from '../../web/src/lib/geometry';

type Wasm = typeof import('../../web/pkg/pgpage_wasm.js');

const heap = new Uint8Array(readFileSync(join(__dirname, '../../public/samples/16427')));

/** pd_lsn's two 32-bit halves, 16-bit pd_checksum .. pd_pagesize_version, 32-bit pd_prune_xid. */
function bigEndianHeaders(file: Uint8Array, blockSize: number): Uint8Array {
  const out = file.slice();
  const swap = (at: number, n: number) => out.subarray(at, at + n).reverse();
  for (let p = 0; p + blockSize <= out.length; p += blockSize) {
    swap(p, 4);
    swap(p + 4, 4);
    for (let f = 8; f < 20; f += 2) swap(p + f, 2);
    swap(p + 20, 4);
  }
  return out;
}

const choice = (blockSize: number | null, byteOrder: GeometryChoice['byteOrder']): GeometryChoice => ({ blockSize, byteOrder });
const detect = choice(null, 'detect');

describe('fileGeometry through the core', () => {
  let w: Wasm;
  let head: (b: Uint8Array) => Uint8Array;
  beforeAll(async () => {
    w = await import('../../web/pkg/pgpage_wasm.js');
    w.initSync({ module: readFileSync(join(__dirname, '../../web/pkg/pgpage_wasm_bg.wasm')) });
    head = (b) => b.subarray(0, headBytes(w));
  });

  it('reads a server-made file as 8 kB little-endian pages, or at the block size chosen', () => {
    expect(fileGeometry(w, head(heap), detect, true)).toEqual({ blockSize: 8192, bigEndian: false, blockSizeAssumed: false, byteOrderDetected: false });
    expect(fileGeometry(w, head(heap), choice(4096, 'detect'), false)).toMatchObject({ blockSize: 4096, bigEndian: false });
  });

  it("finds a big-endian server's pages, and says it found them only when not told", () => {
    const be = head(bigEndianHeaders(heap, 8192));
    expect(fileGeometry(w, be, detect, false)).toEqual({ blockSize: 8192, bigEndian: true, blockSizeAssumed: false, byteOrderDetected: true });
    expect(fileGeometry(w, be, choice(null, 'big'), false)).toEqual({ blockSize: 8192, bigEndian: true, blockSizeAssumed: false, byteOrderDetected: false });
    // Told little-endian, its headers are not sane: a relation file's name still gets 8 kB pages.
    expect(fileGeometry(w, be, choice(null, 'little'), true)).toEqual({ blockSize: 8192, bigEndian: false, blockSizeAssumed: true, byteOrderDetected: false });
    expect(fileGeometry(w, be, choice(null, 'little'), false)).toEqual({
      error: 'not a relation file: no sane PostgreSQL page header at its start in little-endian order (choose a block size to verify it anyway)',
    });
  });

  it('reads new pages at the default size and refuses garbage not named like a relation file', () => {
    expect(fileGeometry(w, new Uint8Array(3 * 8192), detect, false)).toEqual({
      blockSize: 8192,
      bigEndian: false,
      blockSizeAssumed: false,
      byteOrderDetected: false,
    });
    expect(fileGeometry(w, new Uint8Array(0), detect, true)).toMatchObject({ blockSize: 8192, blockSizeAssumed: false });
    const text = new TextEncoder().encode('listen_addresses = *\n'.repeat(500));
    expect(fileGeometry(w, text, detect, false)).toEqual({
      error: 'not a relation file: no sane PostgreSQL page header at its start in either byte order (choose a block size to verify it anyway)',
    });
    expect(fileGeometry(w, text, detect, true)).toMatchObject({ blockSize: 8192, blockSizeAssumed: true });
    expect(fileGeometry(w, text, choice(16384, 'detect'), false)).toMatchObject({ blockSize: 16384, blockSizeAssumed: false });
  });

  it('refuses a block size PostgreSQL does not allow with the reason', () => {
    expect(fileGeometry(w, head(heap), choice(3000, 'detect'), true)).toEqual({
      error: 'unsupported block size 3000: PostgreSQL allows 1024, 2048, 4096, 8192, 16384 or 32768',
    });
  });

  it('answers arbitrary heads with a geometry or a sentence, never a trap', () => {
    let x = 0x2545f491;
    const next = () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), x >>> 0);
    const orders = ['detect', 'little', 'big'] as const;
    for (let i = 0; i < 300; i++) {
      const bytes = new Uint8Array(next() % 70000).map(() => next() & 0xff);
      // Now and then a sane-looking pd_pagesize_version at the start.
      if (bytes.length >= 20 && i % 3 === 0) bytes.set([0x04, 0x20], 18);
      const g = fileGeometry(w, bytes, choice(i % 4 === 0 ? 8192 : null, orders[i % 3]), i % 2 === 0);
      if ('error' in g) expect(g.error).toMatch(/^not a relation file: /);
      else expect([1024, 2048, 4096, 8192, 16384, 32768]).toContain(g.blockSize);
    }
  });
});
