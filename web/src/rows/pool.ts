// Rows workers by relation: a worker keeps the relation it served (catalogs, transaction
// log, TOAST chunk index), so the next view, export or tuple of that relation starts from
// them instead of reading the catalogs again. A few idle workers are kept; a busy one is
// never shared (a read runs to its end in one task of the worker).
import type { ColumnsFrom, RowsFile, ToRows } from './protocol';

export interface RowsWorker {
  worker: Worker;
  key: string;
  /** The worker has its files (sent with its first request only). */
  filesSent: boolean;
}

/** Idle workers kept at most: each holds a relation's catalogs and TOAST chunk index. */
const IDLE_MAX = 3;
const idle: RowsWorker[] = [];

const fileIds = new WeakMap<File, number>();
let nextFileId = 1;
function fileId(f: File | undefined): number {
  if (!f) return 0;
  let id = fileIds.get(f);
  if (id === undefined) {
    id = nextFileId++;
    fileIds.set(f, id);
  }
  return id;
}

/** Which relation of which drop: the File handles, not their names (a folder dropped again
 * is new files), and where the columns come from. */
export function relationKey(files: readonly RowsFile[], from: ColumnsFrom): string {
  return `${JSON.stringify(from)}|${files.length}|${fileId(files[0]?.file)}|${fileId(files[files.length - 1]?.file)}`;
}

/** An idle worker that served `key` before, else a new one. */
export function acquire(key: string): RowsWorker {
  const i = idle.findIndex((w) => w.key === key);
  if (i >= 0) return idle.splice(i, 1)[0];
  return { worker: new Worker(new URL('./rows.worker.ts', import.meta.url), { type: 'module' }), key, filesSent: false };
}

/** Posts a request; the files go with the worker's first one only. */
export function send(w: RowsWorker, m: ToRows, files: RowsFile[]): void {
  w.worker.postMessage(w.filesSent ? m : { ...m, files });
  w.filesSent = true;
}

/** The worker has answered its request: kept for the next of its relation. */
export function release(w: RowsWorker): void {
  w.worker.onmessage = null;
  idle.push(w);
  while (idle.length > IDLE_MAX) idle.shift()?.worker.terminate();
}

/** Ends a worker mid-request (a read given up) or one that failed. */
export function discard(w: RowsWorker): void {
  w.worker.onmessage = null;
  w.worker.terminate();
}
