// Verifies one file at a time off the main thread: streams the file in chunks into one reused
// buffer (a BYOB reader) through the core's file scan (FileScanJs), posts the chunks' status
// codes for the page map at most every 100 ms so the page never gets a flood of messages, and
// ends with the core's verdict of the file (or, for a part of a shared file, its exported scan).
import { fileGeometry, headBytes } from '../lib/geometry';
import { loadWasm, wasmBytes } from '../core';
import type { StructuresJs } from '../core';
import type { FinishRequest, FromWorker, HintsRequest, StatusRun, ToWorker, VerifyRequest } from './protocol';
import { resultOf } from './result';
import { serve, type Endpoint } from './bridge';

// 2 MiB: the wasm call's copy and checksum of a chunk read moments ago run from cache
// (1 GB in Chromium: 173-278 ms in wasm.verify at 2 MiB against 230-361 ms at 8 MiB).
const DEFAULT_CHUNK = 2 << 20;
/** Concurrent byte streams over one file, and the least bytes that earn a stream its own.
 * 1 GB in Chromium: 4 streams 884-905 ms, 2 streams 999-1000 ms (medians of 5, alternating). */
const DEFAULT_STREAMS = 4;
const MIN_STREAM_BYTES = 64 << 20;
/** Files up to this size are read with one arrayBuffer() call. */
const WHOLE_FILE_BYTES = 4 << 20;
const POST_EVERY_MS = 100;
// The readers of the streams of the file being read (one file at a time: see pump), held
// at module level until it is done.
// Chromium does not keep a File's stream alive for a pending read: on a page where nothing
// else reached the reader, a garbage collection took the stream and the read never settled
// (1 GB read with one to four streams: 6 stalls in 30 runs; 10 in 10 with a collection every
// 50 ms, none when a global held the readers). This worker has not been seen to stall, even
// with a collection every 500 allocations; what kept its streams alive is not promised.
const reading = new Set<ReadableStreamBYOBReader>();
/** The data directories' hints for the structural checks by set, as the pool sent them;
 * each is read into the core once, by the first file that needs it. */
const hints = new Map<number, Uint8Array | StructuresJs>();
/** Files are verified one after another, each after the one sent before it. */
let queue: Promise<void> = Promise.resolve();

const post = (m: FromWorker, transfer: Transferable[] = []): void => postMessage(m, { transfer });
// Compile the module as soon as the worker starts, before the first file arrives.
void loadWasm();

serve<ToWorker, FromWorker>(
  (m, job) => {
    const run = async (): Promise<void> => {
      if (job.cancelled()) {
        post({ type: 'cancelled', job: m.job });
        return;
      }
      try {
        if (m.type === 'finish') await finishParts(m);
        else await verifyFile(m, job.cancelled);
      } catch (e) {
        post({ type: 'error', job: m.job, message: readError(e) });
      }
    };
    queue = queue.then(run);
    return queue;
  },
  (job, message) => ({ type: 'error', job, message }),
  self as unknown as Endpoint,
  (m) => {
    const h = m as HintsRequest | ToWorker;
    if (h.type !== 'hints') return false;
    hints.set(h.set, h.bytes);
    return true;
  },
);

function readError(e: unknown): string {
  const name = e instanceof DOMException ? e.name : '';
  if (name === 'NotReadableError' || name === 'NotFoundError') {
    return 'the file could not be read: it changed or was removed while being read; drop it again';
  }
  return e instanceof Error ? e.message : String(e);
}

async function verifyFile(req: VerifyRequest, cancelled: () => boolean): Promise<void> {
  const { file, job, part } = req;
  const wasm = await loadWasm();
  const t0 = performance.now();
  const size = file.size;
  // A small file (most of a data directory) is read in one go: one read instead of three.
  const whole = size <= WHOLE_FILE_BYTES && !part ? new Uint8Array(await file.arrayBuffer()) : null;
  if (whole && whole.length !== size) throw new Error('the file changed size while being read');
  // A file named like a relation file whose head is all damage is read as 8 kB pages, as the
  // CLI and pg_checksums do; anything else is not ours to judge (the core decides both).
  const head = whole ? whole.subarray(0, headBytes(wasm)) : new Uint8Array(await file.slice(0, headBytes(wasm)).arrayBuffer());
  const named = wasm.relation_file_name(file.name) !== undefined;
  const g = fileGeometry(wasm, head, req.choice, named);
  if ('error' in g) throw new Error(g.error);
  const { blockSize } = g;
  const byteOrder = req.choice.byteOrder === 'detect' ? '' : req.choice.byteOrder;
  const scan = new wasm.FileScanJs(head, size, req.segment, req.choice.blockSize ?? 0, byteOrder, named);
  try {
    // The maps cover the whole relation: every segment (and part) reads them whole.
    if (req.maps) {
      const whole = (f?: File) => (f ? f.arrayBuffer().then((b) => new Uint8Array(b)) : Promise.resolve(undefined));
      const [vm, fsm] = await Promise.all([whole(req.maps.vm), whole(req.maps.fsm)]);
      scan.set_maps(vm, fsm);
    }
    const st = req.structure;
    if (st && st.set === null) scan.set_page_checks();
    else if (st) {
      let h = hints.get(st.set);
      if (h instanceof Uint8Array) hints.set(st.set, (h = new wasm.StructuresJs(h)));
      if (!h) throw new Error(`no structural hints ${st.set}: the pool sends them before the files`);
      scan.set_structure(h, st.entry);
    }
    const blocks = scan.blocks;
    const trailingBytes = scan.trailing_bytes;
    // Of a file shared between workers, part 0 says what the file is.
    if (!part || part.index === 0) {
      const trailing = whole
        ? whole.slice(blocks * blockSize)
        : new Uint8Array(trailingBytes > 0 ? await file.slice(blocks * blockSize, size).arrayBuffer() : new ArrayBuffer(0));
      post({ type: 'start', job, geometry: g, blocks, trailingBytes, trailing }, [trailing.buffer]);
    }

    const chunk = Math.max(blockSize, Math.floor((req.chunkBytes ?? DEFAULT_CHUNK) / blockSize) * blockSize);
    const wholeBytes = blocks * blockSize;
    const fromByte = part ? Math.min(part.from, wholeBytes) : 0;
    const toByte = part ? Math.min(part.to, wholeBytes) : wholeBytes;

    // Statuses go out as runs of consecutive blocks.
    let pendingRuns: StatusRun[] = [];
    let bytesDone = 0;
    let lastPost = performance.now();
    const flush = (): void => {
      post(
        { type: 'progress', job, runs: pendingRuns, bytesDone, part: part?.index },
        pendingRuns.map((r) => r.statuses.buffer),
      );
      pendingRuns = [];
      lastPost = performance.now();
    };
    // Streamed chunks are copied once into the scan's input buffer in wasm memory.
    let input = -1;
    const verifyChunk = (buf: Uint8Array, firstBlock: number, streamed: boolean): void => {
      let statuses: Uint8Array;
      if (streamed) {
        if (input < 0) input = scan.reserve_input(chunk);
        wasmBytes().set(buf, input);
        statuses = scan.chunk_input(buf.length, firstBlock);
      } else {
        statuses = scan.chunk(buf, firstBlock);
      }
      pendingRuns.push({ firstBlock, statuses });
      bytesDone += buf.length;
      if (performance.now() - lastPost >= POST_EVERY_MS) flush();
    };

    // The whole pages are read as a few byte streams over consecutive regions at once, each
    // into one reused buffer (a BYOB reader): Chromium streams a File about twice as fast as
    // it answers File.slice().arrayBuffer() (and leaves no buffer per chunk for the GC),
    // and serves several streams of one file faster than one, while this thread checksums
    // what has come. Regions are whole chunks, so every chunk but the file's last is full.
    const chunks = Math.ceil((toByte - fromByte) / chunk);
    const streams = Math.max(1, Math.min(DEFAULT_STREAMS, Math.floor((toByte - fromByte) / MIN_STREAM_BYTES), chunks));
    // Set when the job is cancelled or a region failed: the other regions stop reading.
    let stopped = false;
    const region = async (from: number, to: number): Promise<void> => {
      const reader = file.slice(from, to).stream().getReader({ mode: 'byob' });
      reading.add(reader);
      let spare = new ArrayBuffer(Math.min(chunk, to - from));
      for (let off = from; off < to && !stopped; off += chunk) {
        const want = Math.min(chunk, to - off);
        let got = 0;
        while (got < want) {
          let r: ReadableStreamReadResult<Uint8Array>;
          try {
            r = await reader.read(new Uint8Array(spare, got, want - got));
          } catch (e) {
            if (stopped) return;
            throw new Error(
              `the file could not be read: it changed or was removed while being read; drop it again (${e instanceof Error ? e.message : String(e)})`,
              { cause: e },
            );
          }
          if (r.value) spare = r.value.buffer as ArrayBuffer;
          if (r.done) break;
          got += r.value.byteLength;
        }
        if (cancelled()) stopped = true;
        if (stopped) return;
        if (got !== want) throw new Error('the file changed size while being read');
        verifyChunk(new Uint8Array(spare, 0, got), off / blockSize, true);
      }
    };
    const perStream = Math.ceil(chunks / streams) * chunk;
    try {
      if (whole) {
        for (let off = 0; off < wholeBytes; off += chunk) verifyChunk(whole.subarray(off, Math.min(wholeBytes, off + chunk)), off / blockSize, false);
      } else {
        const starts = Array.from({ length: streams }, (_, i) => fromByte + i * perStream).filter((from) => from < toByte);
        await Promise.all(starts.map((from) => region(from, Math.min(toByte, from + perStream))));
      }
    } finally {
      stopped = true;
      for (const r of reading) void r.cancel().catch(() => undefined);
      reading.clear();
    }
    if (cancelled()) {
      post({ type: 'cancelled', job });
      return;
    }
    flush();
    if (part) {
      // The file's verdict is decided once, from every part's scan (the pool asks for it).
      const exported = scan.export();
      post({ type: 'done', job, elapsedMs: performance.now() - t0, part: { index: part.index, scan: exported } }, [exported.buffer]);
      return;
    }
    const result = resultOf(wasm, scan.finish(req.checksums, req.path), scan.first_absolute_block, scan.blocks, req.path);
    post({ type: 'done', job, elapsedMs: performance.now() - t0, result });
  } finally {
    scan.free();
  }
}

/** Merges the parts' scans of a shared file and decides its verdict. */
async function finishParts(req: FinishRequest): Promise<void> {
  const wasm = await loadWasm();
  const t0 = performance.now();
  const [first, ...rest] = req.parts;
  const scan = wasm.FileScanJs.import(first);
  try {
    for (const p of rest) scan.merge(p);
    post({
      type: 'done',
      job: req.job,
      elapsedMs: performance.now() - t0,
      result: resultOf(wasm, scan.finish(req.checksums, req.path), scan.first_absolute_block, scan.blocks, req.path),
    });
  } finally {
    scan.free();
  }
}
