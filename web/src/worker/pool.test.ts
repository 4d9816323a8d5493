import { describe, expect, it } from 'vitest';
import { MAX_HANDED, MAX_HANDED_BYTES, PART_ALIGN, SPLIT_BYTES, VerifyPool, type PoolWorker } from './pool';
import type { FinishRequest, FromWorker, VerifyRequest } from './protocol';

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

const req = (job: number): VerifyRequest => ({
  type: 'verify',
  job,
  file: new File([], String(job)),
  path: String(job),
  segment: 0,
  checksums: 0,
  choice: { blockSize: null, byteOrder: 'detect' },
});
const add = (pool: VerifyPool, job: number, size = 0) => pool.verify(req(job), () => size);
/** Two fake workers, a pool over them, and what the pool delivered. */
function twoWorkers(now?: () => number) {
  const [a, b] = [new FakeWorker(), new FakeWorker()];
  const seen: FromWorker[] = [];
  const pool = new VerifyPool([a, b], (m) => seen.push(m), now);
  return { a, b, seen, pool };
}
const jobs = (w: FakeWorker) => w.got.map((m) => `${(m as { type: string }).type}:${(m as { job: number }).job}`);

describe('verify pool', () => {
  it('hands small files a few at a time, holds nothing back behind a big one', () => {
    const { a, b, seen, pool } = twoWorkers();
    // Big, but not big enough to be shared between the workers.
    add(pool, 1, SPLIT_BYTES - 1);
    for (let j = 2; j <= 20; j++) add(pool, j, 8192);
    // a has the big file and takes nothing more; b takes MAX_HANDED small ones at once.
    expect(jobs(a)).toEqual(['verify:1']);
    expect(jobs(b)).toEqual(Array.from({ length: MAX_HANDED }, (_, i) => `verify:${i + 2}`));
    // Each finished file makes room for the next waiting one, on the worker that has room.
    b.say({ type: 'done', job: 2, elapsedMs: 1 });
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
    for (const [j, size] of [
      [1, 100 * mb],
      [2, 40 * mb],
      [3, 40 * mb],
    ])
      add(pool, j, size);
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
    const { a, b, seen, pool } = twoWorkers();
    const big = SPLIT_BYTES - 1;
    add(pool, 1, big);
    add(pool, 2, big);
    add(pool, 3, big);
    a.onerror!({ message: 'boom' } as ErrorEvent);
    expect(seen).toEqual([{ type: 'error', job: 1, message: 'the verify worker failed: boom' }]);
    expect(jobs(a)).toEqual(['verify:1']);
    b.say({ type: 'done', job: 2, elapsedMs: 1 });
    expect(jobs(b)).toEqual(['verify:2', 'verify:3']);
    // With no worker left, what waits fails at once instead of waiting for ever.
    add(pool, 4, big);
    b.onerror!({ message: 'gone' } as ErrorEvent);
    expect(seen.slice(-2).map((m) => `${m.type}:${m.job}`)).toEqual(['error:3', 'error:4']);
  });

  const partDone = (index: number) => ({ index, scan: Uint8Array.of(index, 7) });
  const result = {
    counts: { ok: 99, mismatch: 1, zero: 0, new_not_zero: 0, bad_header: 0 },
    checksumsDisabled: false,
    checksumsInProgress: false,
    checksumCounts: { checksums_valid: 100, checksums_not_yet: 0, checksums_not_yet_nonzero: 0 },
    problem: true,
    pages: [],
    remap: [],
    findings: [],
    pageFindings: [],
    amcheckUnlisted: 0,
    chance: null,
  };
  const start = (job: number): FromWorker => ({
    type: 'start',
    job,
    geometry: { blockSize: 8192, bigEndian: false, blockSizeAssumed: false, byteOrderDetected: true },
    blocks: 100,
    trailingBytes: 0,
    trailing: new Uint8Array(0),
  });
  const partsOf = (w: FakeWorker) => w.got.filter((m) => (m as VerifyRequest).type === 'verify').map((m) => (m as VerifyRequest).part);

  it('shares a big file between the workers and makes their messages those of one file', () => {
    let t = 0;
    const { a, b, seen, pool } = twoWorkers(() => t);
    const size = 3 * SPLIT_BYTES + 12345;
    add(pool, 1, size);
    const [pa] = partsOf(a);
    const [pb] = partsOf(b);
    expect(pa).toEqual({ index: 0, from: 0, to: pb!.from });
    expect(pb!.index).toBe(1);
    expect(pb!.from % PART_ALIGN).toBe(0);
    expect(pb!.to).toBeGreaterThanOrEqual(size);
    // Part 1 is quicker than part 0's 'start': its progress waits, so the page never sees
    // a file's blocks before the file.
    b.say({ type: 'progress', job: 1, runs: [{ firstBlock: 50, statuses: new Uint8Array(2) }], bytesDone: 7, part: 1 });
    expect(seen).toEqual([]);
    a.say(start(1));
    a.say({ type: 'progress', job: 1, runs: [], bytesDone: 5, part: 0 });
    expect(seen.map((m) => m.type)).toEqual(['start', 'progress', 'progress']);
    expect(seen.slice(1).map((m) => (m as { bytesDone: number }).bytesDone)).toEqual([7, 12]);
    t = 42;
    a.say({ type: 'done', job: 1, elapsedMs: 1, part: partDone(0) });
    expect(seen).toHaveLength(3);
    b.say({ type: 'done', job: 1, elapsedMs: 1, part: partDone(1) });
    // Every part is in: one worker merges their scans (in part order) and decides the verdict.
    const finish = [...a.got, ...b.got].filter((m) => (m as FinishRequest).type === 'finish') as FinishRequest[];
    expect(finish).toEqual([{ type: 'finish', job: 1, parts: [partDone(0).scan, partDone(1).scan], path: '1', checksums: 0 }]);
    expect(seen).toHaveLength(3);
    const merger = a.got.includes(finish[0]) ? a : b;
    t = 50;
    merger.say({ type: 'done', job: 1, elapsedMs: 2, result });
    expect(seen.at(-1)).toEqual({ type: 'done', job: 1, elapsedMs: 50, result });
    // Both workers are free again.
    add(pool, 2, 8192);
    add(pool, 3, 8192);
    expect(jobs(a).at(-1)).toBe('verify:2');
    expect(jobs(b).at(-1)).toBe('verify:3');
  });

  it('a shared file that fails in one part fails once and stops its other part', () => {
    const { a, b, seen, pool } = twoWorkers();
    add(pool, 1, 2 * SPLIT_BYTES);
    b.say({ type: 'error', job: 1, message: 'the file changed size while being read' });
    expect(seen).toEqual([{ type: 'error', job: 1, message: 'the file changed size while being read' }]);
    expect(jobs(a)).toEqual(['verify:1', 'cancel:1']);
    a.say(start(1));
    a.say({ type: 'cancelled', job: 1 });
    expect(seen).toHaveLength(1);
    add(pool, 2, 8192);
    expect(jobs(a).at(-1)).toBe('verify:2');
  });

  it('cancels a shared file in both workers and says so once', () => {
    const { a, b, seen, pool } = twoWorkers();
    add(pool, 1, 2 * SPLIT_BYTES);
    a.say(start(1));
    pool.cancel(1);
    expect(jobs(a).at(-1)).toBe('cancel:1');
    expect(jobs(b).at(-1)).toBe('cancel:1');
    a.say({ type: 'cancelled', job: 1 });
    // A part that finished before it heard of the cancel still ends the file as cancelled.
    b.say({ type: 'done', job: 1, elapsedMs: 1, part: partDone(1) });
    expect(seen.map((m) => m.type)).toEqual(['start', 'cancelled']);
  });

  it('with one worker, a big file is not split', () => {
    const a = new FakeWorker();
    const pool = new VerifyPool([a], () => undefined);
    add(pool, 1, 4 * SPLIT_BYTES);
    expect(partsOf(a)).toEqual([undefined]);
  });

  it("takes a file's structural hints when it is handed over, and gives every worker the hints before the files naming them", () => {
    const a = new FakeWorker();
    const pool = new VerifyPool([a], () => undefined);
    let hints: VerifyRequest['structure'] = { set: null };
    const late = () => ({ structure: hints });
    pool.verify(req(1), () => 1 << 30, late);
    // Waiting behind the big file: its hints are not taken yet.
    pool.verify(req(2), () => 8192, late);
    expect(a.got.map((m) => (m as VerifyRequest).structure)).toEqual([{ set: null }]);
    // The catalogs come: the hints go out first, then the waiting file names them.
    hints = { set: 7, entry: 3 };
    pool.hints(7, new Uint8Array([1, 2]));
    a.say({ type: 'done', job: 1, elapsedMs: 1 });
    expect(a.got.map((m) => (m as { type: string }).type)).toEqual(['verify', 'hints', 'verify']);
    expect(a.got[1]).toEqual({ type: 'hints', set: 7, bytes: new Uint8Array([1, 2]) });
    expect((a.got[2] as VerifyRequest).structure).toEqual({ set: 7, entry: 3 });
  });

  it('gives every part of a shared file the same hints', () => {
    const { a, b, pool } = twoWorkers();
    pool.verify(
      req(1),
      () => SPLIT_BYTES * 2,
      () => ({ structure: { set: 1, entry: 0 } }),
    );
    const parts = [...a.got, ...b.got] as VerifyRequest[];
    expect(parts.length).toBe(2);
    for (const p of parts) expect(p.structure).toEqual({ set: 1, entry: 0 });
  });
});
