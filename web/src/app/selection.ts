// What the page shows: one block of one loaded file, and the problem pages of all files, in
// the files' order, that the problem list, the keys and the share actions walk.
import type { FileEntry } from '../files';
import type { FileFinding, ProblemPage } from '../worker/protocol';

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

/** The core's finding for all-zero pages before a page with rows (findings.rs). */
export const ZERO_BETWEEN_ROWS = 'zero_page_between_rows';

/** Zero pages between rows of a file's verdict, as (first block, pages) runs. */
export function zeroRuns(f: FileEntry): FileFinding[] {
  return f.findings.filter((x) => x.code === ZERO_BETWEEN_ROWS);
}

/** The core's note on the run of all-zero pages between rows that holds `block`, if any:
 * what the page view, the map and the reports say of such a page instead of "fine". */
export function zeroNoteAt(f: FileEntry, block: number): FileFinding | null {
  return zeroRuns(f).find((x) => x.block !== undefined && block >= x.block && block < x.block + (x.pages ?? 1)) ?? null;
}

/** The pages `n` and `N` stop at, file by file in block order: every problem page, and the
 * first page of each run of all-zero pages between rows (rows may be gone there). */
export function stopsOf(files: readonly FileEntry[]): { f: FileEntry; p: { block: number } }[] {
  return files.flatMap((f) => {
    const blocks = [...f.problems.filter((p) => p.problem).map((p) => p.block), ...zeroRuns(f).flatMap((x) => (x.block === undefined ? [] : [x.block]))];
    return [...new Set(blocks)].sort((a, b) => a - b).map((block) => ({ f, p: { block } }));
  });
}
