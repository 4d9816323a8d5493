// The verify workers as a pool with one queue: each worker verifies one file at a time and
// takes the next waiting file when it is done, so a 5 GB file on one worker does not hold
// back the small files queued behind it while the other worker is idle.
import type { FromWorker, VerifyRequest } from './protocol';

/** The part of a Worker the pool uses (a fake one in tests). */
export interface PoolWorker {
  postMessage(m: unknown): void;
  onmessage: ((ev: MessageEvent<FromWorker>) => void) | null;
  onerror: ((ev: ErrorEvent) => void) | null;
}

export class VerifyPool {
  private readonly running: (number | null)[];
  private readonly waiting: VerifyRequest[] = [];

  constructor(
    private readonly workers: PoolWorker[],
    private readonly deliver: (m: FromWorker) => void,
  ) {
    this.running = workers.map(() => null);
    workers.forEach((w, i) => {
      w.onmessage = (ev) => {
        const m = ev.data;
        if ((m.type === 'done' || m.type === 'error' || m.type === 'cancelled') && this.running[i] === m.job) {
          this.running[i] = null;
          this.dispatch();
        }
        deliver(m);
      };
      w.onerror = (ev) => {
        const job = this.running[i];
        if (job === null) return;
        this.running[i] = null;
        deliver({ type: 'error', job, message: `the verify worker failed: ${ev.message}` });
        this.dispatch();
      };
    });
  }

  verify(req: VerifyRequest): void {
    this.waiting.push(req);
    this.dispatch();
  }

  cancel(job: number): void {
    const i = this.running.indexOf(job);
    if (i >= 0) {
      this.workers[i].postMessage({ type: 'cancel', job });
      return;
    }
    const w = this.waiting.findIndex((r) => r.job === job);
    if (w >= 0) {
      this.waiting.splice(w, 1);
      this.deliver({ type: 'cancelled', job });
    }
  }

  private dispatch(): void {
    for (let i = 0; i < this.workers.length && this.waiting.length > 0; i++) {
      if (this.running[i] !== null) continue;
      const req = this.waiting.shift()!;
      this.running[i] = req.job;
      this.workers[i].postMessage(req);
    }
  }
}
