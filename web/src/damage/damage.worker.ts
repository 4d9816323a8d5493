// The damage worker: bit-flip localisation of one page, and the comparison of two copies of a
// file in chunks (the core's compare_chunks through wasm), with progress at most every 100 ms
// and cancel between chunks. The page only posts requests and renders.
import { bitFlips, compareChunk, loadWasm } from '../core';
import { serve, type Job } from '../worker/bridge';
import type { CompareRequest, DiffSummary, FlipsRequest, FromDamage, PageDiff, ToDamage } from './protocol';

/** Bytes of each copy read at once: whole pages of every block size, few reads per GB. */
const CHUNK_BYTES = 4 << 20;
const POST_EVERY_MS = 100;
/** The pages listed are capped, so a file of a million differing pages stays small; the
 * summary still counts them all. */
export const MAX_LISTED = 10_000;

serve<ToDamage, FromDamage>(
  (m, job) => (m.type === 'flips' ? flips(m, job) : compare(m, job)),
  (job, message) => ({ type: 'error', job, message }),
);

async function flips(req: FlipsRequest, { post }: Job<ToDamage, FromDamage>): Promise<void> {
  const w = await loadWasm();
  // Timed around the core's call alone: the figure the browser benchmark reports.
  const t = performance.now();
  const flips = bitFlips(w, req.page, req.absoluteBlock >>> 0, req.bigEndian, req.fork, req.fileKind);
  const ms = performance.now() - t;
  post({ type: 'flips', job: req.job, flips, ms });
}

async function compare(req: CompareRequest, { post, cancelled }: Job<ToDamage, FromDamage>): Promise<void> {
  const w = await loadWasm();
  const t = performance.now();
  const bs = req.blockSize;
  const wholeA = Math.floor(req.a.size / bs) * bs;
  const wholeB = Math.floor(req.b.size / bs) * bs;
  const both = Math.min(wholeA, wholeB);
  const summary: DiffSummary = { blocks_a: wholeA / bs, blocks_b: wholeB / bs, equal: 0, different: 0, only_a: 0, only_b: 0 };
  const pages: PageDiff[] = [];
  let posted = 0;
  for (let off = 0; off < both; off += CHUNK_BYTES) {
    if (cancelled()) return;
    const end = Math.min(both, off + CHUNK_BYTES);
    const [a, b] = await Promise.all([req.a.slice(off, end).arrayBuffer(), req.b.slice(off, end).arrayBuffer()]);
    const r = compareChunk(w, off / bs, new Uint8Array(a), new Uint8Array(b), bs, req.bigEndian);
    summary.equal += r.equal;
    summary.different += r.pages.length;
    for (const p of r.pages) if (pages.length < MAX_LISTED) pages.push(p);
    const now = performance.now();
    if (now - posted >= POST_EVERY_MS) {
      posted = now;
      post({ type: 'progress', job: req.job, bytesDone: end, bytesTotal: Math.max(wholeA, wholeB) });
    }
  }
  // Pages past the shorter copy: only in one.
  const longer = wholeA > wholeB ? 'only_a' : 'only_b';
  for (let block = both / bs; block < Math.max(wholeA, wholeB) / bs; block++) {
    summary[longer]++;
    if (pages.length < MAX_LISTED)
      pages.push({ block, state: longer, bytes_changed: 0, bits_set: 0, bits_cleared: 0, sectors: [], ranges: [], hints_only: false });
  }
  post({ type: 'compared', job: req.job, pages, summary, ms: performance.now() - t });
}
