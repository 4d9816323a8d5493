// The files store with the real worker pool over fake workers: adding files (a data
// directory's filter, the notices), the workers' news reaching the entries, and choices that
// verify a file again as a fresh entry while the fork only changes how pages decode.
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FileEntry } from '../files';
import type { FromWorker, VerifyRequest } from '../worker/protocol';
import { useFiles, type ChosenFile } from './useFiles';

// The core's bindings as built (names, the folder filter, pg_control), loaded from disk.
vi.mock('../core/load', () => ({ loadWasm: async () => (await import('./testing')).coreWasm() }));
vi.mock('../lib/head', () => ({ headOf: () => Promise.resolve(new Uint8Array(0)) }));

class FakeWorker {
  static all: FakeWorker[] = [];
  posted: (VerifyRequest | { type: 'cancel'; job: number })[] = [];
  onmessage: ((ev: MessageEvent<FromWorker>) => void) | null = null;
  onerror: ((ev: ErrorEvent) => void) | null = null;
  constructor() {
    FakeWorker.all.push(this);
  }
  postMessage(m: VerifyRequest | { type: 'cancel'; job: number }) {
    this.posted.push(m);
  }
  send(m: FromWorker) {
    this.onmessage?.({ data: m } as MessageEvent<FromWorker>);
  }
}

const chosen = (path: string, fromFolder = false, bytes = 8192 * 2): ChosenFile => ({
  file: new File([new Uint8Array(bytes)], path.split('/').pop()!),
  path,
  fromFolder,
});
const requests = () => FakeWorker.all.flatMap((w) => w.posted.filter((m): m is VerifyRequest => m.type === 'verify'));
const workerOf = (job: number) => FakeWorker.all.find((w) => w.posted.some((m) => m.type === 'verify' && m.job === job))!;
const counts = { ok: 1, mismatch: 1, zero: 0, new_not_zero: 0, bad_header: 0 };

describe('useFiles', () => {
  beforeEach(() => {
    FakeWorker.all = [];
    vi.stubGlobal('Worker', FakeWorker);
  });
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('adds a data directory as pg_checksums scans it, and says what it skipped', async () => {
    const { result } = renderHook(() => useFiles(() => {}));
    let out!: Awaited<ReturnType<typeof result.current.actions.add>>;
    await act(async () => {
      out = await result.current.actions.add(
        ['pgdata/base/5/16385.10', 'pgdata/base/5/16385.2', 'pgdata/global/pg_control', 'pgdata/pg_xact/0000', 'pgdata/base/5/16385'].map((p) =>
          chosen(p, true),
        ),
      );
    });
    expect(out.added.map((f) => f.path)).toEqual(['pgdata/base/5/16385', 'pgdata/base/5/16385.2', 'pgdata/base/5/16385.10']);
    expect(out.notice).toBe('Skipped 2 files that are not relation files.');
    expect(out.skipped).toEqual(['pgdata/global/pg_control', 'pgdata/pg_xact/0000']);
    expect(result.current.files.map((f) => f.segment)).toEqual([0, 2, 10]);
    // Two workers take them: each file once, whichever takes it.
    await waitFor(() =>
      expect(
        requests()
          .map((r) => r.segment)
          .sort((x, y) => x - y),
      ).toEqual([0, 2, 10]),
    );
    await act(async () => expect((await result.current.actions.add([chosen('notes.txt', true)])).notice).toBe('The file chosen is not a relation file.'));
    await act(async () => expect((await result.current.actions.add([])).notice).toBe('No files were chosen.'));
    // A file chosen on its own is verified whatever its name.
    await act(async () => expect((await result.current.actions.add([chosen('notes.txt')])).added).toHaveLength(1));
  });

  it("writes the workers' news into the entries", async () => {
    const { result } = renderHook(() => useFiles(() => {}));
    await act(async () => {
      await result.current.actions.add([chosen('16385')]);
    });
    await waitFor(() => expect(requests()).toHaveLength(1));
    const job = requests()[0].job;
    const w = workerOf(job);
    act(() => {
      w.send({
        type: 'start',
        job,
        geometry: { blockSize: 8192, bigEndian: false, blockSizeAssumed: false, byteOrderDetected: false },
        blocks: 2,
        trailingBytes: 0,
        trailing: new Uint8Array(0),
      });
      w.send({ type: 'progress', job, runs: [{ firstBlock: 0, statuses: Uint8Array.from([0, 1]) }], bytesDone: 16384 });
    });
    await waitFor(() => expect(Array.from(result.current.files[0].statuses)).toEqual([0, 1]));
    const page = {
      block: 1,
      absoluteBlock: 1,
      status: 'bad_header' as const,
      code: 4,
      problem: true,
      stored: 0,
      computed: null,
      misplaced: null,
      tupleBlock: null,
      findings: ['header_lower_past_upper'],
    };
    const finding = { code: 'checksums_disabled', message: 'data checksums are disabled: pages are checked by their header only' };
    act(() => {
      // Checksums off: the chunks' mismatch (1) is ok (0) but for the page the verdict lists.
      w.send({
        type: 'done',
        job,
        elapsedMs: 3,
        result: {
          counts,
          checksumsDisabled: true,
          checksumsInProgress: false,
          checksumCounts: { checksums_valid: 0, checksums_not_yet: 0, checksums_not_yet_nonzero: 0 },
          problem: true,
          pages: [page],
          remap: [[1, 0]],
          findings: [finding],
          pageFindings: [],
          amcheckUnlisted: 0,
          chance: null,
        },
      });
    });
    await waitFor(() => expect(result.current.files[0].state).toBe('done'));
    const f = result.current.files[0];
    expect([f.blockSize, f.blocks, Array.from(f.statuses), f.problems, f.findings, f.counts, f.checksumsDisabled]).toEqual([
      8192,
      2,
      [0, 4],
      [page],
      [finding],
      counts,
      true,
    ]);
    expect(requests()[0]).toMatchObject({ path: '16385', checksums: 0 });
  });

  it("a new copy of a file takes the earlier copy's lineage, geometry and, for the blocks that did not change, its statuses", async () => {
    const { result } = renderHook(() => useFiles(() => {}));
    await act(async () => {
      await result.current.actions.add([chosen('16385', false, 8192 * 3)]);
    });
    await waitFor(() => expect(requests()).toHaveLength(1));
    const job = requests()[0].job;
    const geometry = { blockSize: 8192, bigEndian: false, blockSizeAssumed: false, byteOrderDetected: false };
    act(() => {
      const w = workerOf(job);
      w.send({ type: 'start', job, geometry, blocks: 3, trailingBytes: 0, trailing: new Uint8Array(0) });
      w.send({ type: 'progress', job, runs: [{ firstBlock: 0, statuses: Uint8Array.from([0, 1, 2]) }], bytesDone: 3 * 8192 });
      w.send({
        type: 'done',
        job,
        elapsedMs: 1,
        result: {
          counts,
          checksumsDisabled: false,
          checksumsInProgress: false,
          checksumCounts: { checksums_valid: 0, checksums_not_yet: 0, checksums_not_yet_nonzero: 0 },
          problem: true,
          pages: [],
          remap: [],
          findings: [],
          pageFindings: [],
          amcheckUnlisted: 0,
          chance: null,
        },
      });
    });
    await waitFor(() => expect(result.current.files[0].state).toBe('done'));
    const earlier = result.current.files[0];
    // Block 1 changed, and the file grew by a block.
    let added!: FileEntry[];
    await act(
      async () =>
        void (added = (await result.current.actions.add([{ ...chosen('next/16385', false, 8192 * 4), earlier: { entry: earlier, changedBlocks: [1, 3] } }]))
          .added),
    );
    const e = added[0];
    expect([e.blockSize, e.bigEndian, e.blocks, Array.from(e.statuses)]).toEqual([8192, false, 4, [0, 255, 2, 255]]);
    // A copy of the same file: the page view stays mounted (App keys it by lineage).
    expect([e.id === earlier.id, e.lineage]).toEqual([false, earlier.id]);
    // Its own verification's start keeps them until its progress comes.
    await waitFor(() => expect(requests()).toHaveLength(2));
    act(() => workerOf(e.id).send({ type: 'start', job: e.id, geometry, blocks: 4, trailingBytes: 0, trailing: new Uint8Array(0) }));
    expect(Array.from(result.current.filesRef.current.find((f) => f.id === e.id)!.statuses)).toEqual([0, 255, 2, 255]);
  });

  it('verifies a file again as a fresh entry when its choices change, but not for its fork', async () => {
    const replaced: [FileEntry, FileEntry][] = [];
    const { result } = renderHook(() => useFiles((a, b) => replaced.push([a, b])));
    await act(async () => {
      await result.current.actions.add([chosen('16385'), chosen('16386')]);
    });
    await waitFor(() => expect(requests()).toHaveLength(2));
    const [a, b] = result.current.files;
    act(() => result.current.actions.segment(a, 3));
    const a2 = result.current.files[0];
    expect(a2.id).not.toBe(a.id);
    expect([a2.segment, a2.path]).toEqual([3, '16385']);
    expect(result.current.files[1]).toBe(b);
    expect(replaced).toEqual([[a, a2]]);
    expect(requests().find((r) => r.job === a2.id)).toMatchObject({ segment: 3, choice: a.choice });
    // The old run is cancelled: its late news is ignored.
    expect(FakeWorker.all.some((w) => w.posted.some((m) => m.type === 'cancel' && m.job === a.id))).toBe(true);

    act(() => result.current.actions.fork(b, 'fsm'));
    expect(result.current.files[1]).toMatchObject({ id: b.id, fork: 'fsm' });
    expect(requests()).toHaveLength(3);

    act(() => result.current.actions.chooseForAll({ blockSize: 16384, byteOrder: 'big' }));
    expect(result.current.allChoice).toEqual({ blockSize: 16384, byteOrder: 'big' });
    const now = result.current.files.map((f) => requests().find((r) => r.job === f.id)?.choice);
    expect(now).toEqual([
      { blockSize: 16384, byteOrder: 'big' },
      { blockSize: 16384, byteOrder: 'big' },
    ]);
    expect(result.current.files[1].fork).toBe('fsm');
    // Files added later take the choice too.
    let added!: FileEntry[];
    await act(async () => void (added = (await result.current.actions.add([chosen('16387')])).added));
    expect(added[0].choice).toEqual({ blockSize: 16384, byteOrder: 'big' });
  });
});
