// Block size from the head of a file, as the CLI decides it (pgpage::file::detect_block_size
// through wasm: the first pages vote with their pd_pagesize_version). A head of nothing but
// zeros is a file of new pages at the default size.
import type { Wasm } from '../wasm';

export const BLOCK_SIZES = [1024, 2048, 4096, 8192, 16384, 32768] as const;
export const DEFAULT_BLOCK_SIZE = 8192;

export type Detected = { blockSize: number; how: 'detected' | 'all-zero' } | { blockSize: null; how: 'none' };

/** Bytes of the file's head to read for `detectBlockSize`. */
export function headBytes(w: Wasm): number {
  return w.detect_head_bytes();
}

export function detectBlockSize(w: Wasm, head: Uint8Array, bigEndian: boolean): Detected {
  const size = w.detect_file_block_size(head, bigEndian);
  if (size !== undefined) return { blockSize: size, how: 'detected' };
  if (head.every((b) => b === 0)) return { blockSize: DEFAULT_BLOCK_SIZE, how: 'all-zero' };
  return { blockSize: null, how: 'none' };
}
