// The head of a loaded file, read once: the page view and the share actions decide the
// geometry from it (until the worker has settled it) and the page view shows block 0 out of
// it, and the app starts verifying only once it is in, so the first page's read does not
// queue behind the verify workers' streams.
import type { FileEntry } from '../files';
import { loadWasm } from '../core';
import { fileGeometry, headBytes } from './geometry';

const heads = new WeakMap<File, Promise<Uint8Array>>();

export function headOf(entry: FileEntry): Promise<Uint8Array> {
  let head = heads.get(entry.file);
  if (!head) {
    head = loadWasm().then(async (w) => new Uint8Array(await entry.file.slice(0, headBytes(w)).arrayBuffer()));
    heads.set(entry.file, head);
  }
  return head;
}

/**
 * The block size and byte order a loaded file is read with: as the verify worker settled them,
 * or, before that, from the head the same way (PostgreSQL's default when the head says nothing).
 */
export async function entryGeometry(entry: FileEntry): Promise<{ head: Uint8Array; blockSize: number; bigEndian: boolean }> {
  const head = await headOf(entry);
  if (entry.blockSize !== null && entry.bigEndian !== null) return { head, blockSize: entry.blockSize, bigEndian: entry.bigEndian };
  const g = fileGeometry(await loadWasm(), head, entry.choice, true);
  return 'error' in g ? { head, blockSize: 8192, bigEndian: entry.choice.byteOrder === 'big' } : { head, blockSize: g.blockSize, bigEndian: g.bigEndian };
}
