// The small external stores the app keeps outside React's state (what a panel keeps across
// the page view re-mounting, where the playground's Ask slot is), read with
// useSyncExternalStore, and the job-numbered workers behind two of them.
import { useSyncExternalStore } from 'react';

export interface Store<T> {
  get(): T;
  set(next: T): void;
  subscribe(listener: () => void): () => void;
  /** The current value in a component, re-rendering it on every `set`. */
  use(): T;
}

export function createStore<T>(initial: T): Store<T> {
  let value = initial;
  const listeners = new Set<() => void>();
  const store: Store<T> = {
    get: () => value,
    set(next) {
      value = next;
      for (const l of listeners) l();
    },
    subscribe(l) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    use: () => useSyncExternalStore(store.subscribe, store.get),
  };
  return store;
}

export interface JobWorker<To, From> {
  post(m: To, transfer?: Transferable[]): void;
  /** `h` gets the job's messages until its last (any but 'progress'). */
  on(job: number, h: (m: From) => void): void;
  off(job: number): void;
  job(): number;
}

/** A worker made on first use and kept, whose answers carry the job they answer. */
export function jobWorker<To, From extends { job: number; type: string }>(make: () => Worker): () => JobWorker<To, From> {
  let worker: Worker | null = null;
  let nextJob = 1;
  const handlers = new Map<number, (m: From) => void>();
  const jw: JobWorker<To, From> = {
    post: (m, transfer = []) => worker?.postMessage(m, transfer),
    on: (job, h) => void handlers.set(job, h),
    off: (job) => void handlers.delete(job),
    job: () => nextJob++,
  };
  return () => {
    if (!worker) {
      worker = make();
      worker.onmessage = (ev: MessageEvent<From>) => {
        const m = ev.data;
        handlers.get(m.job)?.(m);
        // Every answer but progress is a job's last: its handler (and what it holds) goes.
        if (m.type !== 'progress') handlers.delete(m.job);
      };
    }
    return jw;
  };
}
