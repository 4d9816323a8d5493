// The one worker bridge: typed requests and answers numbered by job, progress, a job's own
// follow-up messages, and cancellation. The page side (`bridge`) makes its worker on first use
// and routes each answer to its job's handler; the worker side (`serve`) runs one function per
// request and turns a throw into the protocol's error answer. Protocols declare only their
// own messages: the `cancel` message and the job routing are the bridge's.

/** Every message of a bridged protocol names the job it belongs to. */
export interface JobMessage {
  type: string;
  job: number;
}

/** Sent by the bridge, never by a protocol: the page gave the job up. */
export interface CancelMessage {
  type: 'cancel';
  job: number;
}

/** Answers that do not end their job: progress, and a worker's questions to the page. */
const NOT_LAST = new Set(['progress', 'want']);

/** The answers that end a job. */
export type Last<From extends JobMessage> = Exclude<From, { type: 'progress' | 'want' }>;

export interface Bridge<To extends JobMessage, From extends JobMessage> {
  /** A new job number, for a request and every message of that job. */
  job(): number;
  /** Sends a request, or a follow-up of a job the worker asked for. */
  post(m: To, transfer?: Transferable[]): void;
  /** `h` gets the job's answers until its last one (any but progress or a question). */
  on(job: number, h: (m: From) => void): void;
  /** Drops the job's answers still to come; the worker goes on. */
  off(job: number): void;
  /** Drops the job's answers and tells the worker, whose `cancelled()` turns true. */
  cancel(job: number): void;
}

/** The page's side: a worker made on first use and kept. */
export function bridge<To extends JobMessage, From extends JobMessage>(make: () => Worker): () => Bridge<To, From> {
  let worker: Worker | null = null;
  let nextJob = 1;
  const handlers = new Map<number, (m: From) => void>();
  const b: Bridge<To, From> = {
    job: () => nextJob++,
    post: (m, transfer = []) => worker?.postMessage(m, transfer),
    on: (job, h) => void handlers.set(job, h),
    off: (job) => void handlers.delete(job),
    cancel(job) {
      handlers.delete(job);
      worker?.postMessage({ type: 'cancel', job } satisfies CancelMessage);
    },
  };
  return () => {
    if (!worker) {
      worker = make();
      worker.onmessage = (ev: MessageEvent<From>) => {
        const m = ev.data;
        handlers.get(m.job)?.(m);
        // A job's last answer lets its handler (and what it holds) go.
        if (!NOT_LAST.has(m.type)) handlers.delete(m.job);
      };
    }
    return b;
  };
}

/** A worker made for one job and ended with it (or with `stop`). */
export interface OneJob<To extends JobMessage, From extends JobMessage> {
  /** The request, and any follow-ups of the job. */
  post(m: To, transfer?: Transferable[]): void;
  /** The job's last answer; `failed(message)` when the worker cannot load or run. */
  done: Promise<Last<From>>;
  /** Ends the worker; `done` never settles then. */
  stop(): void;
}

/** The page's side for a job that has a worker of its own: `on` gets the answers before the
 * last (progress, questions). */
export function workerForJob<To extends JobMessage, From extends JobMessage>(
  make: () => Worker,
  on: (m: From) => void,
  failed: (message: string) => From,
): OneJob<To, From> {
  const w = make();
  const done = new Promise<Last<From>>((resolve) => {
    w.onmessage = (ev: MessageEvent<From>) => {
      const m = ev.data;
      if (NOT_LAST.has(m.type)) {
        on(m);
        return;
      }
      w.terminate();
      resolve(m as Last<From>);
    };
    w.onerror = (ev) => {
      w.terminate();
      resolve(failed(ev.message || 'the worker failed') as Last<From>);
    };
  });
  return { post: (m, transfer = []) => w.postMessage(m, transfer), done, stop: () => w.terminate() };
}

/** What a request's function has of its job, in the worker. */
export interface Job<To extends JobMessage, From extends JobMessage> {
  job: number;
  post(m: From, transfer?: Transferable[]): void;
  /** The page cancelled the job: stop at the next step and answer nothing more. */
  cancelled(): boolean;
  /** Settles when the page cancels the job (for a job waiting on something else). */
  whenCancelled(): Promise<void>;
  /** The page's next follow-up of this job (a later message with its number). */
  next(): Promise<To>;
  /** Posts a question (a `want` answer) and waits for the page's follow-up of this job. */
  ask(question: From): Promise<To>;
}

/** The endpoint a worker serves on: its global scope, or a port in tests. */
export interface Endpoint {
  onmessage: ((ev: MessageEvent) => void) | null;
  postMessage(m: unknown, transfer: Transferable[]): void;
}

/** The worker's side: `run` for each request; a throw becomes `error(job, message)`.
 * `aside` takes the messages that are no job's (settings for every job, as the verify
 * worker's hints): it returns true for one it handled. */
export function serve<To extends JobMessage, From extends JobMessage>(
  run: (m: To, job: Job<To, From>) => Promise<void>,
  error: (job: number, message: string) => From,
  endpoint: Endpoint = self as unknown as Endpoint,
  aside: (m: unknown) => boolean = () => false,
): void {
  const cancelled = new Set<number>();
  const onCancel = new Map<number, () => void>();
  /** Per running job: follow-ups not yet taken, or the `next()` waiting for one. */
  const follow = new Map<number, { queued: To[]; waiting: ((m: To) => void) | null }>();
  const post = (m: From, transfer: Transferable[] = []) => endpoint.postMessage(m, transfer);
  endpoint.onmessage = (ev: MessageEvent<To | CancelMessage>) => {
    if (aside(ev.data)) return;
    const m = ev.data;
    if (m.type === 'cancel') {
      cancelled.add(m.job);
      onCancel.get(m.job)?.();
      return;
    }
    const running = follow.get(m.job);
    if (running) {
      const w = running.waiting;
      running.waiting = null;
      if (w) w(m as To);
      else running.queued.push(m as To);
      return;
    }
    const mine = { queued: [] as To[], waiting: null as ((m: To) => void) | null };
    follow.set(m.job, mine);
    const next = (): Promise<To> => {
      const queued = mine.queued.shift();
      return queued ? Promise.resolve(queued) : new Promise((resolve) => (mine.waiting = resolve));
    };
    const job: Job<To, From> = {
      job: m.job,
      post,
      cancelled: () => cancelled.has(m.job),
      whenCancelled: () =>
        cancelled.has(m.job)
          ? Promise.resolve()
          : new Promise((resolve) => {
              const earlier = onCancel.get(m.job);
              onCancel.set(m.job, () => {
                earlier?.();
                resolve();
              });
            }),
      next,
      ask: (question) => {
        post(question);
        return next();
      },
    };
    run(m as To, job)
      .catch((e: unknown) => {
        if (!cancelled.has(m.job)) post(error(m.job, e instanceof Error ? e.message : String(e)));
      })
      .finally(() => {
        cancelled.delete(m.job);
        onCancel.delete(m.job);
        follow.delete(m.job);
      });
  };
}
