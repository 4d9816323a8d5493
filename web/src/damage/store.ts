// What the damage panel keeps per open file across page changes: the comparison with a copy
// (running in the damage worker, or done) and the repair kit's chosen pages. Outside React's
// state, so the page view re-mounting (another file, a reload of its page) loses nothing.
import { useSyncExternalStore } from 'react';
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
}

interface State {
  comparisons: ReadonlyMap<number, Comparison>;
  kits: ReadonlyMap<number, ReadonlyMap<number, KitPage>>;
}

let state: State = { comparisons: new Map(), kits: new Map() };
const listeners = new Set<() => void>();
const set = (next: State): void => {
  state = next;
  for (const l of listeners) l();
};
const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};

export function useDamageState(): State {
  return useSyncExternalStore(subscribe, () => state);
}

let worker: Worker | null = null;
let nextJob = 1;
const handlers = new Map<number, (m: FromDamage) => void>();

/** The damage worker, made on first use and kept: a comparison outlives the page view. */
export function damageWorker(): { post(m: ToDamage): void; on(job: number, h: (m: FromDamage) => void): void; job(): number } {
  if (!worker) {
    worker = new Worker(new URL('./damage.worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (ev: MessageEvent<FromDamage>) => {
      const m = ev.data;
      handlers.get(m.job)?.(m);
      // Every answer but progress is a job's last: its handler (and the page it holds) goes.
      if (m.type !== 'progress') handlers.delete(m.job);
    };
  }
  const w = worker;
  return { post: (m) => w.postMessage(m), on: (job, h) => handlers.set(job, h), job: () => nextJob++ };
}

const putComparison = (entryId: number, c: Comparison): void => {
  const m = new Map(state.comparisons);
  m.set(entryId, c);
  set({ ...state, comparisons: m });
};

/** Compares the open file (`a`) with a copy, page by page, in the worker. */
export function startComparison(entryId: number, a: File, copy: File, copyPath: string, blockSize: number, bigEndian: boolean): void {
  const w = damageWorker();
  const old = state.comparisons.get(entryId);
  if (old?.state === 'running') {
    w.post({ type: 'cancel', job: old.job });
    handlers.delete(old.job);
  }
  const job = w.job();
  let c: Comparison = { job, copy, copyPath, state: 'running', bytesDone: 0, bytesTotal: Math.max(a.size, copy.size), pages: [], summary: null, error: null, ms: null };
  putComparison(entryId, c);
  w.on(job, (m) => {
    if (state.comparisons.get(entryId)?.job !== job) return;
    if (m.type === 'progress') c = { ...c, bytesDone: m.bytesDone, bytesTotal: m.bytesTotal };
    else if (m.type === 'compared') {
      c = { ...c, state: 'done', pages: m.pages, summary: m.summary, ms: m.ms, bytesDone: c.bytesTotal };
    } else if (m.type === 'error') {
      c = { ...c, state: 'error', error: m.message };
    } else return;
    putComparison(entryId, c);
  });
  w.post({ type: 'compare', job, a, b: copy, blockSize, bigEndian });
}

export function clearComparison(entryId: number): void {
  const old = state.comparisons.get(entryId);
  if (old?.state === 'running') {
    damageWorker().post({ type: 'cancel', job: old.job });
    handlers.delete(old.job);
  }
  const m = new Map(state.comparisons);
  m.delete(entryId);
  set({ ...state, comparisons: m });
}

export function putKitPage(entryId: number, block: number, page: KitPage | null): void {
  const kits = new Map(state.kits);
  const kit = new Map(kits.get(entryId) ?? []);
  if (page) kit.set(block, page);
  else kit.delete(block);
  kits.set(entryId, kit);
  set({ ...state, kits });
}
