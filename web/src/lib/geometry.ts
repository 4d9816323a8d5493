// Block size from the first bytes of a file: pd_pagesize_version of the first page that has
// a header, checked at offsets that make sense for each size. An all-zero head is a file
// of new pages at the default size.

export const BLOCK_SIZES = [1024, 2048, 4096, 8192, 16384, 32768] as const;
export const DEFAULT_BLOCK_SIZE = 8192;
/** Bytes to read to detect the block size (a page-0 header plus a second page of each size). */
export const HEAD_BYTES = 65536;

export type Detected = { blockSize: number; how: 'detected' | 'all-zero' } | { blockSize: null; how: 'none' };

function claimed(head: Uint8Array, off: number, little: boolean): number | null {
  if (off + 20 > head.length) return null;
  const v = new DataView(head.buffer, head.byteOffset + off, 20).getUint16(18, little);
  const size = v & 0xff00;
  // Layout version 4 since 8.3; pd_special must lie in the page.
  const special = new DataView(head.buffer, head.byteOffset + off, 20).getUint16(16, little);
  return (BLOCK_SIZES as readonly number[]).includes(size) && (v & 0xff) === 4 && special <= size ? size : null;
}

export function detectBlockSize(head: Uint8Array, littleEndian: boolean): Detected {
  const first = claimed(head, 0, littleEndian);
  if (first !== null) return { blockSize: first, how: 'detected' };
  // Page 0 damaged or new: a page header at offset N that claims size N.
  for (const bs of BLOCK_SIZES) {
    for (let k = 1; k * bs + 24 <= head.length && k <= 4; k++) {
      if (claimed(head, k * bs, littleEndian) === bs) return { blockSize: bs, how: 'detected' };
    }
  }
  if (head.every((b) => b === 0)) return { blockSize: DEFAULT_BLOCK_SIZE, how: 'all-zero' };
  return { blockSize: null, how: 'none' };
}
