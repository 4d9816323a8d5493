// The verify workers as a pool with one queue. A worker busy with a big file takes nothing
// more, so the small files behind it go to the other worker; small files are handed over a
// few at a time, so a worker never waits for the page to send it the next one (a data
// directory is hundreds of small files, and the page may be busy drawing). A big file is
// shared: each worker verifies a part of it, the pool makes their messages one file's, and
// one worker merges the parts' scans into the core's verdict of the file.
import type { FinishRequest, FromWorker, HintsRequest, VerifyRequest } from './protocol';

/** The part of a Worker the pool uses (a fake one in tests). */
export interface PoolWorker {
  postMessage(m: unknown): void;
  onmessage: ((ev: MessageEvent<FromWorker>) => void) | null;
  onerror: ((ev: ErrorEvent) => void) | null;
}

/** Files handed to one worker at once: at most this many, and this many bytes beyond the first. */
export const MAX_HANDED = 8;
export const MAX_HANDED_BYTES = 64 << 20;
/** Files of at least this many bytes are shared between the workers. One worker reading
 * and checksumming a 1 GB file kept its thread busy and left the other core's worker idle:
 * shared, 1 GB verified in about 0.8 of the time (Chromium 156, 2 cores). */
export const SPLIT_BYTES = 64 << 20;
/** Parts start on multiples of this: whole pages of every block size, whole read chunks. */
export const PART_ALIGN = 2 << 20;

interface Waiting {
  req: VerifyRequest;
  size: () => number;
  /** What the request learns only when it is handed over (the structural checks' hints,
   * which a data directory's catalogs give while its first files verify). */
  late?: () => Partial<VerifyRequest>;
}

/** A file shared between workers, until its last part ends. */
interface Shared {
  /** The file's request, as the page made it. */
  req: VerifyRequest;
  parts: number;
  /** Parts that ended (done, error or cancelled). */
  ended: number;
  started: boolean;
  /** Messages of parts that came before part 0's 'start'. */
  early: FromWorker[];
  bytesDone: number[];
  /** Each part's exported scan, by part index. */
  scans: Uint8Array[];
  /** Set once the job's end has been delivered (an error) or asked for (cancel). */
  failed: string | null;
  cancelled: boolean;
  t0: number;
}

/** A shared file's bytes verified so far, over all its parts. */
const bytesDone = (s: Shared): number => s.bytesDone.reduce((a, b) => a + b, 0);

export class VerifyPool {
  /** Per worker, the jobs (and parts) handed to it and not yet finished, in the order it takes them. */
  private readonly handed: { job: number; bytes: number }[][];
  /** Each with its file's size, asked for only when the file is next to go (see FileEntry.size). */
  private readonly waiting: Waiting[] = [];
  /** Workers that failed (e.g. their module did not load): they get nothing more. */
  private readonly failed: (string | null)[];
  private readonly shared = new Map<number, Shared>();
  /** Shared files whose verdict a worker is deciding from their parts: when they started. */
  private readonly finishing = new Map<number, number>();

  constructor(
    private readonly workers: PoolWorker[],
    private readonly deliver: (m: FromWorker) => void,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.handed = workers.map(() => []);
    this.failed = workers.map(() => null);
    workers.forEach((w, i) => {
      w.onmessage = (ev) => {
        const m = ev.data;
        if (m.type === 'done' || m.type === 'error' || m.type === 'cancelled') {
          // A worker ends what it was handed in the order it took it: this ends the first
          // handed file (or part of a file) of this job.
          const at = this.handed[i].findIndex((h) => h.job === m.job);
          if (at >= 0) {
            this.handed[i].splice(at, 1);
            this.dispatch();
          }
        }
        this.route(m);
      };
      w.onerror = (ev) => {
        // The worker's state is unknown: everything handed to it fails, and it gets no more.
        const message = `the verify worker failed: ${ev.message}`;
        const lost = this.handed[i];
        this.handed[i] = [];
        this.failed[i] = message;
        for (const h of lost) this.route({ type: 'error', job: h.job, message });
        this.dispatch();
      };
    });
  }

  verify(req: VerifyRequest, size: () => number, late?: () => Partial<VerifyRequest>): void {
    this.waiting.push({ req, size, late });
    this.dispatch();
  }

  /** Gives every worker a data directory's hints for the structural checks, before any
   * request that names `set` (a worker takes its messages in order). */
  hints(set: number, bytes: Uint8Array): void {
    const m: HintsRequest = { type: 'hints', set, bytes };
    for (const w of this.workers) w.postMessage(m);
  }

  cancel(job: number): void {
    const s = this.shared.get(job);
    if (s) {
      if (s.failed !== null || s.cancelled) return;
      s.cancelled = true;
      this.stopParts(job, s);
      this.finishIfEnded(job, s);
      return;
    }
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

  /** Replaces a big file waiting first in the queue by one part per live worker. */
  private split(next: Waiting, bytes: number): void {
    const live = this.failed.filter((f) => f === null).length;
    if (live < 2 || bytes < SPLIT_BYTES) return;
    const per = Math.ceil(bytes / live / PART_ALIGN) * PART_ALIGN;
    const parts: Waiting[] = [];
    for (let p = 0; p * per < bytes; p++) {
      const to = p === live - 1 ? Number.MAX_SAFE_INTEGER : (p + 1) * per;
      parts.push({ req: { ...next.req, part: { index: p, from: p * per, to } }, size: () => Math.min(bytes, to) - p * per, late: next.late });
    }
    this.shared.set(next.req.job, {
      req: next.req,
      parts: parts.length,
      ended: 0,
      started: false,
      early: [],
      bytesDone: parts.map(() => 0),
      scans: [],
      failed: null,
      cancelled: false,
      t0: this.now(),
    });
    this.waiting.splice(0, 1, ...parts);
  }

  /** A worker's message (or one the pool says for a worker): a shared file's part goes
   * through fromPart, anything else to the page as it is. */
  private route(m: FromWorker): void {
    const s = this.shared.get(m.job);
    if (s) {
      this.fromPart(m.job, s, m);
      return;
    }
    const t0 = this.finishing.get(m.job);
    if (t0 !== undefined && m.type !== 'start' && m.type !== 'progress') {
      this.finishing.delete(m.job);
      if (m.type === 'done') {
        this.deliver({ ...m, elapsedMs: this.now() - t0 });
        return;
      }
    }
    this.deliver(m);
  }

  /** A message of one part of a shared file: becomes the file's, or waits for its turn. */
  private fromPart(job: number, s: Shared, m: FromWorker): void {
    const live = s.failed === null && !s.cancelled;
    switch (m.type) {
      case 'start':
        s.started = true;
        if (live) this.deliver(m);
        this.replay(job, s);
        return;
      case 'progress':
        if (!live) return;
        // Nothing of the file goes out before part 0 has said what the file is.
        if (!s.started) {
          s.early.push(m);
          return;
        }
        s.bytesDone[m.part ?? 0] = m.bytesDone;
        this.deliver({ ...m, bytesDone: bytesDone(s) });
        return;
      case 'done':
        if (live && !s.started) {
          s.early.push(m);
          return;
        }
        if (m.part) s.scans[m.part.index] = m.part.scan;
        s.ended++;
        break;
      case 'error':
        s.ended++;
        if (live) {
          // The file failed: say so once, and stop its other parts.
          s.failed = m.message;
          this.deliver(m);
          this.stopParts(job, s);
        }
        break;
      case 'cancelled':
        s.ended++;
        break;
    }
    this.finishIfEnded(job, s);
  }

  /** Takes a shared file's waiting parts out of the queue and cancels its handed ones. */
  private stopParts(job: number, s: Shared): void {
    for (let w = this.waiting.length - 1; w >= 0; w--) {
      if (this.waiting[w].req.job === job) {
        this.waiting.splice(w, 1);
        s.ended++;
      }
    }
    this.handed.forEach((hs, i) => {
      if (hs.some((h) => h.job === job)) this.workers[i].postMessage({ type: 'cancel', job });
    });
    this.replay(job, s);
  }

  /** The messages that waited for part 0's 'start', once it came or the file ended. */
  private replay(job: number, s: Shared): void {
    for (const e of s.early.splice(0)) this.fromPart(job, s, e);
  }

  private finishIfEnded(job: number, s: Shared): void {
    if (s.ended < s.parts) return;
    this.shared.delete(job);
    if (s.failed !== null) return;
    if (s.cancelled) {
      this.deliver({ type: 'cancelled', job });
      return;
    }
    this.finishing.set(job, s.t0);
    const req: FinishRequest = { type: 'finish', job, parts: s.scans, path: s.req.path, checksums: s.req.checksums };
    this.hand(req, 0);
  }

  /** Hands a request to the least loaded live worker; false when none is left. */
  private hand(req: VerifyRequest | FinishRequest, bytes: number): boolean {
    let best = -1;
    for (let i = 0; i < this.workers.length; i++) {
      if (!this.takes(i, bytes)) continue;
      if (best < 0 || this.handed[i].length < this.handed[best].length) best = i;
    }
    if (best < 0) {
      // The verdict is owed even when every worker is busy: the least loaded live one.
      if (req.type !== 'finish') return false;
      best = this.failed.findIndex((f) => f === null);
      if (best < 0) {
        this.finishing.delete(req.job);
        this.deliver({ type: 'error', job: req.job, message: this.failed[0] ?? 'no verify worker' });
        return true;
      }
    }
    this.handed[best].push({ job: req.job, bytes });
    this.workers[best].postMessage(req);
    return true;
  }

  private dispatch(): void {
    while (this.waiting.length > 0) {
      let next = this.waiting[0];
      let bytes = next.size();
      if (!next.req.part) {
        this.split(next, bytes);
        next = this.waiting[0];
        bytes = next.size();
      }
      // Asked at each try: what it says when a worker takes it is what the file gets.
      if (!this.hand(next.late ? { ...next.req, ...next.late() } : next.req, bytes)) {
        // No worker left at all: what waits can never run.
        const reason = this.failed.every((f) => f !== null) ? this.failed[0] : null;
        if (reason === null) return;
        for (const r of this.waiting.splice(0)) this.route({ type: 'error', job: r.req.job, message: reason });
        return;
      }
      this.waiting.shift();
    }
  }
}
