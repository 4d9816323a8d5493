import { describe, expect, it } from 'vitest';
import { VerifyPool, type PoolWorker } from './pool';
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
const jobs = (w: FakeWorker) => w.got.map((m) => `${(m as { type: string }).type}:${(m as { job: number }).job}`);

describe('verify pool', () => {
  it('gives each worker one file at a time and the next waiting file to whichever is free', () => {
    const [a, b] = [new FakeWorker(), new FakeWorker()];
    const seen: FromWorker[] = [];
    const pool = new VerifyPool([a, b], (m) => seen.push(m));
    for (const j of [1, 2, 3, 4]) pool.verify(req(j));
    expect([jobs(a), jobs(b)]).toEqual([['verify:1'], ['verify:2']]);
    // The small file on b is done long before the big one on a: b takes both that wait.
    b.say({ type: 'done', job: 2, counts: { ok: 0, mismatch: 0, zero: 0, new_not_zero: 0, bad_header: 0 }, checksumsDisabled: false, elapsedMs: 1 });
    expect(jobs(b)).toEqual(['verify:2', 'verify:3']);
    b.say({ type: 'error', job: 3, message: 'x' });
    expect(jobs(b)).toEqual(['verify:2', 'verify:3', 'verify:4']);
    expect(jobs(a)).toEqual(['verify:1']);
    expect(seen.map((m) => `${m.type}:${m.job}`)).toEqual(['done:2', 'error:3']);
  });

  it('cancels a running file in its worker and a waiting one at once', () => {
    const [a] = [new FakeWorker()];
    const seen: FromWorker[] = [];
    const pool = new VerifyPool([a], (m) => seen.push(m));
    pool.verify(req(1));
    pool.verify(req(2));
    pool.verify(req(3));
    pool.cancel(2);
    expect(seen.map((m) => `${m.type}:${m.job}`)).toEqual(['cancelled:2']);
    pool.cancel(1);
    expect(jobs(a)).toEqual(['verify:1', 'cancel:1']);
    a.say({ type: 'cancelled', job: 1 });
    expect(jobs(a)).toEqual(['verify:1', 'cancel:1', 'verify:3']);
  });

  it('a worker that fails reports its file as an error and goes on with the next', () => {
    const a = new FakeWorker();
    const seen: FromWorker[] = [];
    const pool = new VerifyPool([a], (m) => seen.push(m));
    pool.verify(req(1));
    pool.verify(req(2));
    a.onerror!({ message: 'boom' } as ErrorEvent);
    expect(seen).toEqual([{ type: 'error', job: 1, message: 'the verify worker failed: boom' }]);
    expect(jobs(a)).toEqual(['verify:1', 'verify:2']);
  });
});
