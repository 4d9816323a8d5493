// A file's geometry (block size and byte order) from its head, as the CLI decides the block
// size (pgpage::file::detect_block_size through wasm: the first pages vote with their
// pd_pagesize_version), tried in both byte orders unless one is chosen. One function serves
// the verify worker and the page view, so both read a file the same way.
import type { Wasm } from '../wasm';

export const BLOCK_SIZES = [1024, 2048, 4096, 8192, 16384, 32768] as const;
export const DEFAULT_BLOCK_SIZE = 8192;

export type ByteOrderChoice = 'detect' | 'little' | 'big';
export const BYTE_ORDER_CHOICES: readonly ByteOrderChoice[] = ['detect', 'little', 'big'];

/** What the user chose for a file: null and 'detect' leave it to the file's head. */
export interface GeometryChoice {
  blockSize: number | null;
  byteOrder: ByteOrderChoice;
}
export const DETECT: GeometryChoice = { blockSize: null, byteOrder: 'detect' };

export interface Geometry {
  blockSize: number;
  bigEndian: boolean;
  /** No sane header at the head in any byte order tried: 8 kB pages assumed, as pg_checksums does. */
  blockSizeAssumed: boolean;
  /** The byte order came from the head (the other order had no sane header), not from a choice. */
  byteOrderDetected: boolean;
}

/** Bytes of the file's head to read for `fileGeometry`. */
export function headBytes(w: Wasm): number {
  return w.detect_head_bytes();
}

export function orderName(bigEndian: boolean): string {
  return bigEndian ? 'big-endian' : 'little-endian';
}

/**
 * The file's geometry, or a reason why it is not a relation file. A head of nothing but
 * zeros is a file of new pages at the default size; a head with no sane header is read as
 * 8 kB pages when the file is named like a relation file (as pg_checksums reads any file).
 */
export function fileGeometry(w: Wasm, head: Uint8Array, choice: GeometryChoice, relationName: boolean): Geometry | { error: string } {
  const orders = choice.byteOrder === 'detect' ? [false, true] : [choice.byteOrder === 'big'];
  for (const bigEndian of orders) {
    const size = w.detect_file_block_size(head, bigEndian);
    if (size !== undefined) {
      return { blockSize: choice.blockSize ?? size, bigEndian, blockSizeAssumed: false, byteOrderDetected: choice.byteOrder === 'detect' && bigEndian };
    }
  }
  const bigEndian = choice.byteOrder === 'big';
  if (choice.blockSize !== null) return { blockSize: choice.blockSize, bigEndian, blockSizeAssumed: false, byteOrderDetected: false };
  if (head.every((b) => b === 0)) return { blockSize: DEFAULT_BLOCK_SIZE, bigEndian, blockSizeAssumed: false, byteOrderDetected: false };
  if (relationName) return { blockSize: DEFAULT_BLOCK_SIZE, bigEndian, blockSizeAssumed: head.length > 0, byteOrderDetected: false };
  const tried = choice.byteOrder === 'detect' ? 'either byte order' : `${orderName(bigEndian)} order`;
  return { error: `not a relation file: no sane PostgreSQL page header at its start in ${tried} (choose a block size to verify it anyway)` };
}
