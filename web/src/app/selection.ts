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

/** Every problem page of the files' verdicts, file by file in block order. */
export function problemsOf(files: readonly FileEntry[]): ProblemRef[] {
  return files.flatMap((f) => f.problems.filter((p) => p.problem).map((p) => ({ f, p })));
}
