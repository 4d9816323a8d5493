// The verify workers as a pool with one queue. A worker busy with a big file takes nothing
// more, so the small files behind it go to the other worker; small files are handed over a
// few at a time, so a worker never waits for the page to send it the next one (a data
// directory is hundreds of small files, and the page may be busy drawing).
import type { FromWorker, VerifyRequest } from './protocol';

/** The part of a Worker the pool uses (a fake one in tests). */
export interface PoolWorker {
  postMessage(m: unknown): void;
  onmessage: ((ev: MessageEvent<FromWorker>) => void) | null;
  onerror: ((ev: ErrorEvent) => void) | null;
}

/** Files handed to one worker at once: at most this many, and this many bytes beyond the first. */
export const MAX_HANDED = 8;
export const MAX_HANDED_BYTES = 64 << 20;

export class VerifyPool {
  /** Per worker, the jobs handed to it and not yet finished, in the order it takes them. */
  private readonly handed: { job: number; bytes: number }[][];
  /** Each with its file's size, asked for only when the file is next to go (see FileEntry.size). */
  private readonly waiting: { req: VerifyRequest; size: () => number }[] = [];
  /** Workers that failed (e.g. their module did not load): they get nothing more. */
  private readonly failed: (string | null)[];

  constructor(
    private readonly workers: PoolWorker[],
    private readonly deliver: (m: FromWorker) => void,
  ) {
    this.handed = workers.map(() => []);
    this.failed = workers.map(() => null);
    workers.forEach((w, i) => {
      w.onmessage = (ev) => {
        const m = ev.data;
        if (m.type === 'done' || m.type === 'error' || m.type === 'cancelled') {
          const at = this.handed[i].findIndex((h) => h.job === m.job);
          if (at >= 0) {
            this.handed[i].splice(at, 1);
            this.dispatch();
          }
        }
        deliver(m);
      };
      w.onerror = (ev) => {
        // The worker's state is unknown: everything handed to it fails, and it gets no more.
        const message = `the verify worker failed: ${ev.message}`;
        const lost = this.handed[i];
        this.handed[i] = [];
        this.failed[i] = message;
        for (const h of lost) deliver({ type: 'error', job: h.job, message });
        this.dispatch();
      };
    });
  }

  verify(req: VerifyRequest, size: () => number): void {
    this.waiting.push({ req, size });
    this.dispatch();
  }

  cancel(job: number): void {
    const i = this.handed.findIndex((hs) => hs.some((h) => h.job === job));
    if (i >= 0) {
      this.workers[i].postMessage({ type: 'cancel', job });
      return;
    }
    const w = this.waiting.findIndex((r) => r.req.job === job);
    if (w >= 0) {
      this.waiting.splice(w, 1);
      this.deliver({ type: 'cancelled', job });
    }
  }

  private takes(i: number, bytes: number): boolean {
    if (this.failed[i] !== null) return false;
    const hs = this.handed[i];
    if (hs.length === 0) return true;
    const total = hs.reduce((a, h) => a + h.bytes, 0);
    return hs.length < MAX_HANDED && total + bytes <= MAX_HANDED_BYTES;
  }

  private dispatch(): void {
    while (this.waiting.length > 0) {
      const next = this.waiting[0];
      const bytes = next.size();
      // The least loaded worker that takes it.
      let best = -1;
      for (let i = 0; i < this.workers.length; i++) {
        if (!this.takes(i, bytes)) continue;
        if (best < 0 || this.handed[i].length < this.handed[best].length) best = i;
      }
      if (best < 0) {
        // No worker left at all: what waits can never run.
        const reason = this.failed.every((f) => f !== null) ? this.failed[0] : null;
        if (reason === null) return;
        for (const r of this.waiting.splice(0)) this.deliver({ type: 'error', job: r.req.job, message: reason });
        return;
      }
      this.waiting.shift();
      this.handed[best].push({ job: next.req.job, bytes });
      this.workers[best].postMessage(next.req);
    }
  }
}
