// A file's geometry (block size and byte order) as the core decides it from the file's head
// (pgpage::file::file_geometry through wasm), for the verify worker and the page view alike,
// and the choices the page offers the user.
import type { Wasm } from '../core';

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

/** The file's geometry, or the core's sentence saying why it is not a relation file. */
export function fileGeometry(w: Wasm, head: Uint8Array, choice: GeometryChoice, relationName: boolean): Geometry | { error: string } {
  const bigEndian = choice.byteOrder === 'detect' ? undefined : choice.byteOrder === 'big';
  let g;
  try {
    g = w.file_geometry(head, choice.blockSize ?? undefined, bigEndian, relationName);
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
  const out = { blockSize: g.block_size, bigEndian: g.big_endian, blockSizeAssumed: g.block_size_assumed, byteOrderDetected: g.byte_order_detected };
  g.free();
  return out;
}
