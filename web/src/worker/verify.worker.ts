// Verifies one file at a time off the main thread: streams the file in chunks into one reused
// buffer (a BYOB reader) through the wasm batch call, and posts statuses and
// problem pages at most every 100 ms so the page never gets a flood of messages.
import { parseRelationFileName } from '../lib/filename';
import { detectBlockSize, headBytes } from '../lib/geometry';
import { emptyCounts, isProblem, statusName } from '../lib/status';
import { loadWasm } from '../wasm';
import type { FromWorker, ProblemPage, ToWorker, VerifyRequest } from './protocol';

const DEFAULT_CHUNK = 8 << 20;
const POST_EVERY_MS = 100;
const cancelled = new Set<number>();
const queue: VerifyRequest[] = [];
let busy = false;

const post = (m: FromWorker, transfer: Transferable[] = []): void => postMessage(m, { transfer });

self.onmessage = (ev: MessageEvent<ToWorker>) => {
  const m = ev.data;
  if (m.type === 'cancel') {
    cancelled.add(m.job);
    return;
  }
  queue.push(m);
  void pump();
};

async function pump(): Promise<void> {
  if (busy) return;
  busy = true;
  while (queue.length > 0) {
    const req = queue.shift()!;
    if (cancelled.has(req.job)) {
      post({ type: 'cancelled', job: req.job });
      continue;
    }
    try {
      await verifyFile(req);
    } catch (e) {
      post({ type: 'error', job: req.job, message: readError(e) });
    }
  }
  busy = false;
}

function readError(e: unknown): string {
  const name = e instanceof DOMException ? e.name : '';
  if (name === 'NotReadableError' || name === 'NotFoundError') {
    return 'the file could not be read: it changed or was removed while being read; drop it again';
  }
  return e instanceof Error ? e.message : String(e);
}

async function verifyFile(req: VerifyRequest): Promise<void> {
  const { file, job } = req;
  const wasm = await loadWasm();
  const t0 = performance.now();
  const size = file.size;
  let blockSize = req.blockSize;
  let blockSizeAssumed = false;
  if (blockSize === null) {
    const head = new Uint8Array(await file.slice(0, headBytes(wasm)).arrayBuffer());
    const d = detectBlockSize(wasm, head, req.bigEndian);
    // A file named like a relation file whose head is all damage is read as 8 kB pages, as
    // the CLI and pg_checksums do, so its pages get their verdicts; empty relation files
    // (new or truncated relations) are normal. Anything else is not ours to judge.
    if (d.blockSize !== null) {
      blockSize = d.blockSize;
    } else if (parseRelationFileName(file.name) !== null) {
      blockSize = 8192;
      blockSizeAssumed = size > 0;
    } else {
      throw new Error(
        `not a relation file: no sane PostgreSQL page header at its start in ${req.bigEndian ? 'big' : 'little'}-endian order (choose the other byte order, or a block size to verify it anyway)`,
      );
    }
  }
  const blocks = Math.floor(size / blockSize);
  const trailingBytes = size - blocks * blockSize;
  const trailing = new Uint8Array(trailingBytes > 0 ? await file.slice(blocks * blockSize, size).arrayBuffer() : new ArrayBuffer(0));
  post({ type: 'start', job, blockSize, blockSizeAssumed, blocks, trailingBytes, trailing }, [trailing.buffer]);

  const firstAbs = wasm.absolute_block(blockSize, req.segment, 0);
  const chunk = Math.max(blockSize, Math.floor((req.chunkBytes ?? DEFAULT_CHUNK) / blockSize) * blockSize);
  const wholeBytes = blocks * blockSize;
  const counts = emptyCounts();
  // Data checksums off: every page with a header stores 0. Hold stored-0 problems back until
  // a page shows a non-zero checksum, so a checksum-less file is one message, not a flood.
  let sawStoredChecksum = false;
  let headerPages = 0;
  let heldBack: ProblemPage[] = [];

  let pendingFirst = 0;
  let pendingStatuses: Uint8Array[] = [];
  let pendingProblems: ProblemPage[] = [];
  let lastPost = performance.now();
  const flush = (bytesDone: number): void => {
    const n = pendingStatuses.reduce((a, s) => a + s.length, 0);
    const statuses = new Uint8Array(n);
    let at = 0;
    for (const s of pendingStatuses) {
      statuses.set(s, at);
      at += s.length;
    }
    post({ type: 'progress', job, firstBlock: pendingFirst, statuses, problems: pendingProblems, bytesDone }, [statuses.buffer]);
    pendingFirst += n;
    pendingStatuses = [];
    pendingProblems = [];
    lastPost = performance.now();
  };

  // One byte stream over the whole pages, read into one reused buffer (a BYOB reader):
  // Chromium streams a File about twice as fast as it answers File.slice().arrayBuffer()
  // (512 MB: ~550 ms against ~1,100 ms), and no 8 MiB buffer per chunk is left for the GC.
  const reader = file.slice(0, wholeBytes).stream().getReader({ mode: 'byob' });
  let spare = new ArrayBuffer(chunk);
  const readChunk = async (want: number): Promise<Uint8Array> => {
    let buf = spare;
    let got = 0;
    while (got < want) {
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        r = await reader.read(new Uint8Array(buf, got, want - got));
      } catch (e) {
        throw new Error(`the file could not be read: it changed or was removed while being read; drop it again (${e instanceof Error ? e.message : String(e)})`);
      }
      if (r.value) buf = r.value.buffer as ArrayBuffer;
      if (r.done) break;
      got += r.value!.byteLength;
    }
    spare = buf;
    return new Uint8Array(buf, 0, got);
  };
  for (let off = 0; off < wholeBytes; off += chunk) {
    const buf = await readChunk(Math.min(chunk, wholeBytes - off));
    if (cancelled.has(job)) {
      void reader.cancel().catch(() => undefined);
      post({ type: 'cancelled', job });
      return;
    }
    if (buf.length !== Math.min(chunk, wholeBytes - off)) throw new Error('the file changed size while being read');
    const firstBlock = off / blockSize;
    const batch = wasm.verify(buf, (firstAbs + firstBlock) >>> 0, blockSize, req.bigEndian);
    const status = batch.status;
    const stored = batch.stored;
    const computed = batch.computed;
    const fold = batch.fold;
    batch.free();
    for (let i = 0; i < status.length; i++) {
      const s = statusName(status[i]);
      counts[s]++;
      if (s === 'ok' || s === 'mismatch' || s === 'bad_header') {
        headerPages++;
        if (stored[i] !== 0 && !sawStoredChecksum) {
          sawStoredChecksum = true;
          pendingProblems.push(...heldBack);
          heldBack = [];
        }
      }
      if (!isProblem(s)) continue;
      const block = firstBlock + i;
      const m = s === 'mismatch' ? wasm.matches_block(fold[i], stored[i], block, firstAbs, blocks) : undefined;
      const p: ProblemPage = {
        block,
        absoluteBlock: (firstAbs + block) >>> 0,
        status: s,
        stored: stored[i],
        computed: s === 'new_not_zero' ? null : computed[i],
        matchesBlock: m ?? null,
      };
      if (!sawStoredChecksum && stored[i] === 0 && s === 'mismatch') heldBack.push(p);
      else pendingProblems.push(p);
    }
    pendingStatuses.push(status);
    if (performance.now() - lastPost >= POST_EVERY_MS) flush(Math.min(off + chunk, wholeBytes));
  }
  const checksumsDisabled = !sawStoredChecksum && headerPages > 0;
  if (!checksumsDisabled) pendingProblems.push(...heldBack);
  flush(wholeBytes);
  post({ type: 'done', job, counts, checksumsDisabled, elapsedMs: performance.now() - t0 });
}
