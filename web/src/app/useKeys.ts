// The page's keys: `[` `]` the previous and next block of the shown file, `n` `N` the next
// and previous problem page of all files, Ctrl+G the go-to dialog (app/GoToDialog.tsx).
import { useEffect, useRef } from 'react';
import type { FileEntry } from '../files';
import type { ProblemRef, Selection } from './selection';

/** A page `n` and `N` stop at: a problem page, or a page the core notes (an all-zero page
 * between pages with rows). */
export type Stop = Pick<ProblemRef, 'f'> & { p: { block: number } };

export interface KeysState {
  files: readonly FileEntry[];
  problems: readonly Stop[];
  sel: Selection | null;
  setSel(s: Selection): void;
  /** A jump to another page (`n`, `N`), which brings the page view into sight; else setSel. */
  jump?(s: Selection): void;
  /** Opens the go-to dialog for the shown page (Ctrl+G). */
  openGoTo(): void;
}

/** Blocks of a file, before its verification has counted them from its size. */
function blockCount(f: FileEntry): number {
  return f.blocks || Math.ceil(f.size / (f.blockSize ?? 8192));
}

/** The block `delta` away from the selection, held within the file; the cursor keeps its
 * offset, so one field can be compared page after page. */
export function stepBlock(sel: Selection, f: FileEntry, delta: number): Selection {
  const last = Math.max(0, blockCount(f) - 1);
  return { ...sel, block: Math.min(last, Math.max(0, sel.block + delta)) };
}

/** The problem page after (dir 1) or before (-1) the selection, wrapping around; null when none. */
export function nextProblem(files: readonly FileEntry[], problems: readonly Stop[], sel: Selection | null, dir: 1 | -1): Selection | null {
  if (problems.length === 0) return null;
  const fileAt = new Map(files.map((f, i) => [f.id, i]));
  const at = sel ? fileAt.get(sel.fileId) : undefined;
  const cur = sel && at !== undefined ? [at, sel.block] : [-1, -1];
  const cmp = (x: Stop) => (fileAt.get(x.f.id) ?? -1) - cur[0] || x.p.block - cur[1];
  const pick = dir === 1 ? (problems.find((x) => cmp(x) > 0) ?? problems[0]) : (problems.findLast((x) => cmp(x) < 0) ?? problems[problems.length - 1]);
  return { fileId: pick.f.id, block: pick.p.block, offset: 0 };
}

export function useKeys(state: KeysState): void {
  // One listener for the page's life, reading the latest state through a ref, so a key
  // pressed between a state change and the next render is never handled with stale state.
  const latest = useRef(state);
  latest.current = state;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const { files, problems, sel, setSel, jump, openGoTo } = latest.current;
      const t = e.target as HTMLElement;
      // Typing in a field is not navigation; a focused file picker (after choosing files) is.
      if (t.closest?.('select, textarea, input:not([type=file])')) return;
      const f = sel ? files.find((x) => x.id === sel.fileId) : undefined;
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'g') {
        e.preventDefault();
        if (sel && f) openGoTo();
        return;
      }
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === '[' || e.key === ']') {
        e.preventDefault();
        if (sel && f) setSel(stepBlock(sel, f, e.key === ']' ? 1 : -1));
      } else if (e.key === 'n' || e.key === 'N') {
        e.preventDefault();
        const to = nextProblem(files, problems, sel, e.key === 'n' ? 1 : -1);
        if (to) (jump ?? setSel)(to);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
