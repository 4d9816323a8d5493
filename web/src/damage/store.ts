// What the damage panel keeps per open file across page changes: the comparison with a copy
// (running in the damage worker, or done) and the repair kit's chosen pages. Outside React's
// state, so the page view re-mounting (another file, a reload of its page) loses nothing.
import { createStore } from '../lib/store';
import { bridge } from '../worker/bridge';
import type { DiffSummary, FromDamage, PageDiff, ToDamage } from './protocol';

export interface Comparison {
  job: number;
  copy: File;
  /** The copy's path as the user gave it (a folder's relative path, or its name). */
  copyPath: string;
  state: 'running' | 'done' | 'error';
  bytesDone: number;
  bytesTotal: number;
  pages: PageDiff[];
  summary: DiffSummary | null;
  error: string | null;
  ms: number | null;
}

/** One page put into the repaired copy: its bytes (checksum already recomputed) and whence. */
export interface KitPage {
  page: Uint8Array;
  from: string;
  /** What its checksum is, when not the one recomputed for its block (a page recovery wrote). */
  checksum?: string;
}

interface State {
  comparisons: ReadonlyMap<number, Comparison>;
  kits: ReadonlyMap<number, ReadonlyMap<number, KitPage>>;
}

const store = createStore<State>({ comparisons: new Map(), kits: new Map() });

export function useDamageState(): State {
  return store.use();
}

/** The damage worker, made on first use and kept: a comparison outlives the page view. */
export const damageWorker = bridge<ToDamage, FromDamage>(() => new Worker(new URL('./damage.worker.ts', import.meta.url), { type: 'module' }));

const putComparison = (entryId: number, c: Comparison): void => {
  const m = new Map(store.get().comparisons);
  m.set(entryId, c);
  store.set({ ...store.get(), comparisons: m });
};

/** Compares the open file (`a`) with a copy, page by page, in the worker. */
export function startComparison(entryId: number, a: File, copy: File, copyPath: string, blockSize: number, bigEndian: boolean): void {
  const w = damageWorker();
  const old = store.get().comparisons.get(entryId);
  if (old?.state === 'running') w.cancel(old.job);
  const job = w.job();
  let c: Comparison = {
    job,
    copy,
    copyPath,
    state: 'running',
    bytesDone: 0,
    bytesTotal: Math.max(a.size, copy.size),
    pages: [],
    summary: null,
    error: null,
    ms: null,
  };
  putComparison(entryId, c);
  w.on(job, (m) => {
    if (store.get().comparisons.get(entryId)?.job !== job) return;
    if (m.type === 'progress') c = { ...c, bytesDone: m.bytesDone, bytesTotal: m.bytesTotal };
    else if (m.type === 'compared') {
      c = { ...c, state: 'done', pages: m.pages, summary: m.summary, ms: m.ms, bytesDone: c.bytesTotal };
    } else if (m.type === 'error') {
      c = { ...c, state: 'error', error: m.message };
    } else return;
    putComparison(entryId, c);
  });
  // The copy is the baseline (A): the damage is what the file has that the copy has not.
  w.post({ type: 'compare', job, a: copy, b: a, blockSize, bigEndian });
}

export function clearComparison(entryId: number): void {
  const old = store.get().comparisons.get(entryId);
  if (old?.state === 'running') damageWorker().cancel(old.job);
  const m = new Map(store.get().comparisons);
  m.delete(entryId);
  store.set({ ...store.get(), comparisons: m });
}

export function putKitPage(entryId: number, block: number, page: KitPage | null): void {
  const kits = new Map(store.get().kits);
  const kit = new Map(kits.get(entryId) ?? []);
  if (page) kit.set(block, page);
  else kit.delete(block);
  kits.set(entryId, kit);
  store.set({ ...store.get(), kits });
}
