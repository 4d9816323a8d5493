// What the page shows: one block of one loaded file, and the problem pages of all files, in
// the files' order, that the problem list, the keys and the share actions walk.
import type { FileEntry } from '../files';
import type { ProblemPage } from '../worker/protocol';

export interface Selection {
  fileId: number;
  block: number;
  /** Byte offset within the block of the hex view's cursor. */
  offset: number;
}

export interface ProblemRef {
  f: FileEntry;
  p: ProblemPage;
}

/** Every problem page of the files, file by file in block order. A file whose checksums are
 * disabled has no checksum problems to list: its mismatches are not the server's. */
export function problemsOf(files: readonly FileEntry[]): ProblemRef[] {
  return files.flatMap((f) => (f.checksumsDisabled ? [] : f.problems.map((p) => ({ f, p }))));
}
