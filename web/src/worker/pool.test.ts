import { describe, expect, it } from 'vitest';
import { MAX_HANDED, MAX_HANDED_BYTES, VerifyPool, type PoolWorker } from './pool';
import type { FromWorker, VerifyRequest } from './protocol';

class FakeWorker implements PoolWorker {
  got: unknown[] = [];
  onmessage: ((ev: MessageEvent<FromWorker>) => void) | null = null;
  onerror: ((ev: ErrorEvent) => void) | null = null;
  postMessage(m: unknown): void {
    this.got.push(m);
  }
  say(m: FromWorker): void {
    this.onmessage!({ data: m } as MessageEvent<FromWorker>);
  }
}

const req = (job: number): VerifyRequest => ({ type: 'verify', job, file: new File([], String(job)), segment: 0, choice: { blockSize: null, byteOrder: 'detect' } });
const add = (pool: VerifyPool, job: number, size = 0) => pool.verify(req(job), () => size);
const jobs = (w: FakeWorker) => w.got.map((m) => `${(m as { type: string }).type}:${(m as { job: number }).job}`);

describe('verify pool', () => {
  it('hands small files a few at a time, holds nothing back behind a big one', () => {
    const [a, b] = [new FakeWorker(), new FakeWorker()];
    const seen: FromWorker[] = [];
    const pool = new VerifyPool([a, b], (m) => seen.push(m));
    add(pool, 1, 5 * 1024 ** 3);
    for (let j = 2; j <= 20; j++) add(pool, j, 8192);
    // a has the big file and takes nothing more; b takes MAX_HANDED small ones at once.
    expect(jobs(a)).toEqual(['verify:1']);
    expect(jobs(b)).toEqual(Array.from({ length: MAX_HANDED }, (_, i) => `verify:${i + 2}`));
    // Each finished file makes room for the next waiting one, on the worker that has room.
    b.say({ type: 'done', job: 2, counts: { ok: 0, mismatch: 0, zero: 0, new_not_zero: 0, bad_header: 0 }, checksumsDisabled: false, elapsedMs: 1 });
    expect(jobs(b).at(-1)).toBe(`verify:${MAX_HANDED + 2}`);
    b.say({ type: 'error', job: 3, message: 'x' });
    expect(jobs(b).at(-1)).toBe(`verify:${MAX_HANDED + 3}`);
    expect(jobs(a)).toEqual(['verify:1']);
    expect(seen.map((m) => `${m.type}:${m.job}`)).toEqual(['done:2', 'error:3']);
  });

  it('hands over no more than MAX_HANDED_BYTES beyond the first file', () => {
    const a = new FakeWorker();
    const pool = new VerifyPool([a], () => undefined);
    const mb = 1 << 20;
    for (const [j, size] of [[1, 100 * mb], [2, 40 * mb], [3, 40 * mb]]) add(pool, j, size);
    expect(jobs(a)).toEqual(['verify:1']);
    a.say({ type: 'cancelled', job: 1 });
    // 40 + 40 MB is more than MAX_HANDED_BYTES: the second waits.
    expect(MAX_HANDED_BYTES).toBeLessThan(80 * mb);
    expect(jobs(a)).toEqual(['verify:1', 'verify:2']);
  });

  it('cancels a handed file in its worker and a waiting one at once', () => {
    const a = new FakeWorker();
    const seen: FromWorker[] = [];
    const pool = new VerifyPool([a], (m) => seen.push(m));
    const big = 1 << 30;
    add(pool, 1, big);
    add(pool, 2, big);
    add(pool, 3, big);
    pool.cancel(2);
    expect(seen.map((m) => `${m.type}:${m.job}`)).toEqual(['cancelled:2']);
    pool.cancel(1);
    expect(jobs(a)).toEqual(['verify:1', 'cancel:1']);
    a.say({ type: 'cancelled', job: 1 });
    expect(jobs(a)).toEqual(['verify:1', 'cancel:1', 'verify:3']);
  });

  it('a worker that fails reports what it held as errors and gets nothing more', () => {
    const [a, b] = [new FakeWorker(), new FakeWorker()];
    const seen: FromWorker[] = [];
    const pool = new VerifyPool([a, b], (m) => seen.push(m));
    const big = 1 << 30;
    add(pool, 1, big);
    add(pool, 2, big);
    add(pool, 3, big);
    a.onerror!({ message: 'boom' } as ErrorEvent);
    expect(seen).toEqual([{ type: 'error', job: 1, message: 'the verify worker failed: boom' }]);
    expect(jobs(a)).toEqual(['verify:1']);
    b.say({ type: 'done', job: 2, counts: { ok: 0, mismatch: 0, zero: 0, new_not_zero: 0, bad_header: 0 }, checksumsDisabled: false, elapsedMs: 1 });
    expect(jobs(b)).toEqual(['verify:2', 'verify:3']);
    // With no worker left, what waits fails at once instead of waiting for ever.
    add(pool, 4, big);
    b.onerror!({ message: 'gone' } as ErrorEvent);
    expect(seen.slice(-2).map((m) => `${m.type}:${m.job}`)).toEqual(['error:3', 'error:4']);
  });
});
