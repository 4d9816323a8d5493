// The head of a loaded file, read once: the page view decides the geometry from it and shows
// block 0 out of it, and the app starts verifying only once it is in, so the first page's
// read does not queue behind the verify workers' streams.
import type { FileEntry } from '../files';
import { loadWasm } from '../wasm';
import { headBytes } from './geometry';

const heads = new WeakMap<File, Promise<Uint8Array>>();

export function headOf(entry: FileEntry): Promise<Uint8Array> {
  let head = heads.get(entry.file);
  if (!head) {
    head = loadWasm().then(async (w) => new Uint8Array(await entry.file.slice(0, headBytes(w)).arrayBuffer()));
    heads.set(entry.file, head);
  }
  return head;
}
