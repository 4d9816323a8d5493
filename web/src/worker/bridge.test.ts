// The worker bridge over a MessageChannel: a job's answers reach its handler until the last,
// cancel reaches the worker and silences the job, a throw becomes the protocol's error, and a
// worker's question is answered by the page's follow-up of the same job.
import { afterEach, describe, expect, it } from 'vitest';
import { bridge, serve, type Job } from './bridge';

type To =
  | { type: 'count'; job: number; upTo: number }
  | { type: 'wait'; job: number }
  | { type: 'part'; job: number; text: string; last: boolean }
  | { type: 'ask'; job: number }
  | { type: 'reply'; job: number; text: string }
  | { type: 'fail'; job: number };
type From =
  | { type: 'progress'; job: number; at: number }
  | { type: 'want'; job: number; what: string }
  | { type: 'done'; job: number; result: string }
  | { type: 'error'; job: number; message: string };

const channels: MessageChannel[] = [];
afterEach(() => {
  for (const c of channels.splice(0)) {
    c.port1.close();
    c.port2.close();
  }
});

/** A bridged worker whose `count` job steps until cancelled, with the steps it saw. */
function setUp(): { page: ReturnType<ReturnType<typeof bridge<To, From>>>; seen: { cancelledAt: number | null } } {
  const c = new MessageChannel();
  channels.push(c);
  const seen: { cancelledAt: number | null } = { cancelledAt: null };
  const run = async (m: To, job: Job<To, From>): Promise<void> => {
    if (m.type === 'fail') throw new Error('the page is not a heap page');
    if (m.type === 'ask') {
      const reply = await job.ask({ type: 'want', job: m.job, what: 'PG_VERSION' });
      job.post({ type: 'done', job: m.job, result: reply.type === 'reply' ? reply.text : reply.type });
      return;
    }
    if (m.type === 'wait') {
      await job.whenCancelled();
      seen.cancelledAt = 0;
      return;
    }
    if (m.type === 'part') {
      const parts = [m.text];
      for (let p = m; !p.last;) {
        const next = await job.next();
        if (next.type !== 'part') throw new Error(`a ${next.type} among the parts`);
        p = next;
        parts.push(p.text);
      }
      job.post({ type: 'done', job: m.job, result: parts.join(' ') });
      return;
    }
    if (m.type !== 'count') return;
    for (let i = 1; i <= m.upTo; i++) {
      await new Promise((r) => setTimeout(r, 5));
      if (job.cancelled()) {
        seen.cancelledAt = i;
        return;
      }
      job.post({ type: 'progress', job: m.job, at: i });
    }
    job.post({ type: 'done', job: m.job, result: `counted to ${m.upTo}` });
  };
  serve<To, From>(run, (job, message) => ({ type: 'error', job, message }), c.port2);
  c.port2.start();
  const page = bridge<To, From>(() => c.port1 as unknown as Worker)();
  c.port1.start();
  return { page, seen };
}

function answers(page: ReturnType<typeof setUp>['page'], job: number, until: (m: From) => boolean): Promise<From[]> {
  const got: From[] = [];
  return new Promise((resolve) => {
    page.on(job, (m) => {
      got.push(m);
      if (until(m)) resolve(got);
    });
  });
}

describe('the worker bridge', () => {
  it("routes a job's progress and its last answer to its handler, and nothing after", async () => {
    const { page } = setUp();
    const a = page.job();
    const b = page.job();
    expect(b).not.toBe(a);
    const gotA = answers(page, a, (m) => m.type === 'done');
    const gotB = answers(page, b, (m) => m.type === 'done');
    page.post({ type: 'count', job: a, upTo: 3 });
    page.post({ type: 'count', job: b, upTo: 1 });
    expect(await gotA).toEqual([
      { type: 'progress', job: a, at: 1 },
      { type: 'progress', job: a, at: 2 },
      { type: 'progress', job: a, at: 3 },
      { type: 'done', job: a, result: 'counted to 3' },
    ]);
    expect(await gotB).toEqual([
      { type: 'progress', job: b, at: 1 },
      { type: 'done', job: b, result: 'counted to 1' },
    ]);
  });

  it('cancel reaches the running job, which stops, and its answers stop reaching the page', async () => {
    const { page, seen } = setUp();
    const job = page.job();
    const got: From[] = [];
    const first = new Promise<void>((resolve) =>
      page.on(job, (m) => {
        got.push(m);
        resolve();
      }),
    );
    page.post({ type: 'count', job, upTo: 1000 });
    await first;
    page.cancel(job);
    await expect.poll(() => seen.cancelledAt, { timeout: 2000 }).not.toBeNull();
    expect(seen.cancelledAt).toBeLessThan(1000);
    expect(got.every((m) => m.type === 'progress')).toBe(true);
    expect(got.length).toBeLessThan(seen.cancelledAt ?? 0);
  });

  it("turns a throw into the protocol's error answer", async () => {
    const { page } = setUp();
    const job = page.job();
    const got = answers(page, job, () => true);
    page.post({ type: 'fail', job });
    expect(await got).toEqual([{ type: 'error', job, message: 'the page is not a heap page' }]);
  });

  it("answers a worker's question with the page's follow-up of the same job", async () => {
    const { page } = setUp();
    const job = page.job();
    const done = new Promise<From[]>((resolve) => {
      const seen: From[] = [];
      page.on(job, (m) => {
        seen.push(m);
        if (m.type === 'want') page.post({ type: 'reply', job, text: `${m.what}: 17` });
        if (m.type === 'done') resolve(seen);
      });
    });
    page.post({ type: 'ask', job });
    expect(await done).toEqual([
      { type: 'want', job, what: 'PG_VERSION' },
      { type: 'done', job, result: 'PG_VERSION: 17' },
    ]);
  });

  it("queues a job's follow-ups sent before the worker takes them, in order", async () => {
    const { page } = setUp();
    const job = page.job();
    const got = answers(page, job, () => true);
    for (const [i, text] of ['pg_xact', 'pg_class', 'pg_attribute'].entries()) page.post({ type: 'part', job, text, last: i === 2 });
    expect(await got).toEqual([{ type: 'done', job, result: 'pg_xact pg_class pg_attribute' }]);
  });

  it('wakes a job waiting on something else when the page cancels it', async () => {
    const { page, seen } = setUp();
    const job = page.job();
    page.post({ type: 'wait', job });
    await new Promise((r) => setTimeout(r, 20));
    expect(seen.cancelledAt).toBeNull();
    page.cancel(job);
    await expect.poll(() => seen.cancelledAt, { timeout: 2000 }).toBe(0);
  });

  it("hands the messages that are no job's to `aside`, before any job's", async () => {
    const c = new MessageChannel();
    channels.push(c);
    const settings: string[] = [];
    serve<To, From>(
      async (m, job) => {
        await Promise.resolve();
        job.post({ type: 'done', job: m.job, result: settings.join() });
      },
      (job, message) => ({ type: 'error', job, message }),
      c.port2,
      (m) => {
        const s = m as { type: string; value?: string };
        if (s.type !== 'setting') return false;
        settings.push(s.value ?? '');
        return true;
      },
    );
    c.port2.start();
    const page = bridge<To, From>(() => c.port1 as unknown as Worker)();
    c.port1.start();
    c.port1.postMessage({ type: 'setting', value: 'hints of set 7' });
    const job = page.job();
    const got = answers(page, job, () => true);
    page.post({ type: 'count', job, upTo: 0 });
    expect(await got).toEqual([{ type: 'done', job, result: 'hints of set 7' }]);
  });
});
