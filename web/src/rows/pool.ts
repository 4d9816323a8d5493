// Rows workers by relation: a worker keeps the relation it served (catalogs, transaction
// log, TOAST chunk index), so the next view, export or tuple of that relation starts from
// them instead of reading the catalogs again. A few idle workers are kept; a busy one is
// never shared (a read runs to its end in one task of the worker). The pool answers a
// worker's asks for files from the relation's files; the rest goes to `listen`'s handler.
import type { FromRows, ToRows, ToRowsWorker } from './protocol';
import type { RelationFiles } from './source';

export interface RowsWorker {
  worker: Worker;
  key: string;
  /** The worker has the relation's paths (sent with its first request only). */
  pathsSent: boolean;
  /** Where the files the worker asks for are looked up. */
  files: RelationFiles | null;
  answer: ((m: FromRows) => void) | null;
}

/** Idle workers kept at most: each holds a relation's catalogs and TOAST chunk index. */
const IDLE_MAX = 3;
const idle: RowsWorker[] = [];

/** An idle worker that served `key` before, else a new one. */
export function acquire(key: string): RowsWorker {
  const i = idle.findIndex((w) => w.key === key);
  if (i >= 0) return idle.splice(i, 1)[0];
  const w: RowsWorker = {
    worker: new Worker(new URL('./rows.worker.ts', import.meta.url), { type: 'module' }),
    key,
    pathsSent: false,
    files: null,
    answer: null,
  };
  w.worker.onmessage = (e: MessageEvent<FromRows>) => {
    const m = e.data;
    if (m.type !== 'want') {
      w.answer?.(m);
      return;
    }
    // A lookup of the few files asked for: the page's whole work for a worker's files.
    const files = m.paths.map((path) => ({ path, file: w.files?.file(path) ?? null }));
    w.worker.postMessage({ type: 'files', job: m.job, files } satisfies ToRowsWorker);
  };
  return w;
}

/** Where the worker's answers to its request go. */
export function listen(w: RowsWorker, answer: (m: FromRows) => void): void {
  w.answer = answer;
}

/** Posts a request; the relation's paths go with the worker's first one only. */
export function send(w: RowsWorker, m: ToRows, files: RelationFiles): void {
  w.files = files;
  const hints = files.hints?.();
  const withHints = hints === undefined ? m : { ...m, hints };
  w.worker.postMessage(w.pathsSent ? withHints : { ...withHints, paths: files.paths() });
  w.pathsSent = true;
}

/** The worker has answered its request: kept for the next of its relation. */
export function release(w: RowsWorker): void {
  w.answer = null;
  idle.push(w);
  while (idle.length > IDLE_MAX) idle.shift()?.worker.terminate();
}

/** Ends a worker mid-request (a read given up) or one that failed. */
export function discard(w: RowsWorker): void {
  w.answer = null;
  w.worker.terminate();
}
