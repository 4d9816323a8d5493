// The WAL worker: reads segment files in the order the core plans, feeds them to a WalScanner
// in chunks (progress at most every 100 ms), and keeps the scanner and its files so that a
// page is restored later from the few bytes its image occupies, read again from the files, and
// the blocks the same records rebuilt as `pgpage recover` does are handed out from it.
import { loadWasm, walRecovered, walScanned } from '../core';
import { serve, type Job } from '../worker/bridge';
import type { FromWal, PageRequest, RecoveredPageRequest, ScanRequest, ToWal, WalSegmentFile } from './walProtocol';
import { scanWal, type Scanner } from './walScan';

const POST_EVERY_MS = 100;
const scans = new Map<number, { scanner: Scanner; files: WalSegmentFile[] }>();

serve<ToWal, FromWal>(
  (m, job) => {
    if (m.type === 'scan') return scan(m, job);
    if (m.type === 'page') return page(m, job);
    if (m.type === 'recovered') return recoveredPage(m, job);
    scans.get(m.job)?.scanner.free();
    scans.delete(m.job);
    return Promise.resolve();
  },
  (job, message) => ({ type: 'error', job, message }),
);

async function scan(req: ScanRequest, { post }: Job<ToWal, FromWal>): Promise<void> {
  const w = await loadWasm();
  const t = performance.now();
  let posted = 0;
  const recover = req.recover && {
    control: new Uint8Array(await req.recover.control.arrayBuffer()),
    blocks: new Uint32Array(req.recover.blocks),
  };
  const { scanner, order, recoverRefused } = await scanWal(
    w,
    req.segments,
    req.systemIdentifier,
    req.blockSize,
    new Uint32Array(req.watch),
    (bytesDone, bytesTotal) => {
      const now = performance.now();
      if (now - posted < POST_EVERY_MS) return;
      posted = now;
      post({ type: 'progress', job: req.job, bytesDone, bytesTotal });
    },
    recover ?? undefined,
  );
  scans.set(req.job, { scanner, files: order });
  post({
    type: 'scanned',
    job: req.job,
    order: order.map((s) => s.path),
    ...walScanned(scanner),
    recovered: walRecovered(scanner),
    recoverRefused,
    ms: performance.now() - t,
  });
}

async function page(req: PageRequest, { post }: Job<ToWal, FromWal>): Promise<void> {
  const s = scans.get(req.scan);
  if (!s) throw new Error('the WAL scan is gone: scan again');
  const p = s.scanner.image_pieces(req.image);
  const parts: Uint8Array[] = [];
  for (let k = 0; k < p.length; k += 3) {
    const f = s.files[p[k]];
    if (!f) throw new Error(`image ${req.image} names segment ${p[k]}, which was not read`);
    parts.push(new Uint8Array(await f.file.slice(p[k + 1], p[k + 1] + p[k + 2]).arrayBuffer()));
  }
  const stored = new Uint8Array(parts.reduce((n, a) => n + a.length, 0));
  parts.reduce((at, a) => (stored.set(a, at), at + a.length), 0);
  post({ type: 'page', job: req.job, page: s.scanner.restore(req.image, stored) });
}

function recoveredPage(req: RecoveredPageRequest, { post }: Job<ToWal, FromWal>): Promise<void> {
  const s = scans.get(req.scan);
  if (!s) throw new Error('the WAL scan is gone: scan again');
  post({ type: 'page', job: req.job, page: s.scanner.recovered_page(req.index) });
  return Promise.resolve();
}
