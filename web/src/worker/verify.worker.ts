// Verifies one file at a time off the main thread: streams File.slice chunks (a few reads
// in flight ahead of the one being checked) through the wasm batch call, and posts statuses and
// problem pages at most every 100 ms so the page never gets a flood of messages.
import { parseRelationFileName } from '../lib/filename';
import { detectBlockSize, headBytes } from '../lib/geometry';
import { emptyCounts, isProblem, statusName } from '../lib/status';
import { loadWasm } from '../wasm';
import type { FromWorker, ProblemPage, ToWorker, VerifyRequest } from './protocol';

const DEFAULT_CHUNK = 8 << 20;
const POST_EVERY_MS = 100;
const READS_AHEAD = 3;
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

  const read = (off: number): Promise<ArrayBuffer> => file.slice(off, Math.min(off + chunk, wholeBytes)).arrayBuffer();
  // Reads in flight ahead of the chunk being checked, so the wasm never waits for a read it
  // could have started earlier (Chromium serves concurrent slices at least as fast as one at
  // a time); memory stays at READS_AHEAD chunks.
  const inFlight: Promise<ArrayBuffer>[] = [];
  let nextRead = 0;
  const fill = (): void => {
    while (inFlight.length < READS_AHEAD && nextRead < wholeBytes) {
      const r = read(nextRead);
      r.catch(() => undefined); // left unawaited after a cancel or an error
      inFlight.push(r);
      nextRead += chunk;
    }
  };
  fill();
  for (let off = 0; off < wholeBytes; off += chunk) {
    const buf = new Uint8Array(await inFlight.shift()!);
    if (cancelled.has(job)) {
      post({ type: 'cancelled', job });
      return;
    }
    fill();
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
