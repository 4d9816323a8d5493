// Reads one page of a loaded file for the share actions (report, picture band), the way the
// page view does: bytes, the core's verdict and decoding, and the file's page-map summary.
import { PENDING } from '../pageview/PageMap';
import type { FileEntry } from '../files';
import { pgChecksumsLine, relpathOf, serverLines } from '../lib/messages';
import type { FileSummary, ReportPage } from '../lib/report';
import { relationWords } from '../app/catalog';
import { zeroNoteAt } from '../app/selection';
import { entryGeometry } from '../lib/head';
import { decodeWithCore, fileKindOf } from '../lib/spans';
import { emptyCounts, STATUS_NAMES } from '../lib/status';
import { fileContext, pageVerdict, type PageGeometry } from '../lib/pageVerdict';
import { loadWasm, type Wasm } from '../core';
import { clusterOf } from './cluster';
import { redactionOf, type Redaction } from './redact';

/** Where a page sits: what the report says about it beyond its bytes. */
export interface PagePlace {
  path: string;
  relpath: string;
  segment: number;
  fork: string;
  block: number;
  blockSize: number;
  /** Whole pages in the file, for the block a misplaced page belongs to. */
  fileBlocks: number;
  bigEndian: boolean;
  /** The file's kind (core's `file_kind`): a page that does not show its own decodes as it. */
  fileKind?: string;
  /** PG_VERSION of the page's cluster, when dropped: pageinspect's names differ by version. */
  pgVersion?: number;
  /** What the file's verdict knows: checksums on or off, the page's row. */
  context?: Pick<PageGeometry, 'checksums' | 'row'>;
}

/** The core's verdict and decoding of one page, for the report; with `redact`, the bytes
 * that may hold row data masked in it (share/redact.ts). */
export function reportPage(wasm: Wasm, bytes: Uint8Array, at: PagePlace, redact = false): ReportPage {
  const { status, stored, computed, absoluteBlock, matchesBlock } = pageVerdict(wasm, bytes, { ...at, ...at.context, blocks: at.fileBlocks });
  const decoded = decodeWithCore(wasm, bytes, absoluteBlock, at.bigEndian, at.fork, at.fileKind, at.pgVersion);
  // The decoder's first complaint is the best guess at where the damage is.
  const flagged = decoded.spans.find((s) => s.problem);
  return {
    path: at.path,
    relpath: at.relpath,
    segment: at.segment,
    fork: at.fork,
    block: at.block,
    absoluteBlock,
    blockSize: at.blockSize,
    bytes,
    kind: decoded.kind,
    status,
    stored,
    computed,
    matchesBlock,
    header: decoded.header,
    flagNames: decoded.flag_names,
    said: {
      server: serverLines(wasm, at.relpath, absoluteBlock, status, computed, stored, at.pgVersion ?? null),
      pgChecksums: status === 'mismatch' && computed !== null ? pgChecksumsLine(wasm, at.path, at.block, computed, stored) : null,
    },
    bitFlips: status === 'mismatch' ? wasm.bit_flips_markdown(bytes, absoluteBlock >>> 0, at.bigEndian, at.block >>> 0, at.path) : '',
    damage: flagged
      ? { start: flagged.start, end: flagged.start + Math.max(1, flagged.len), why: `the decoder flags \`${flagged.qualified}\`: ${flagged.problem}` }
      : null,
    ...(redact ? { redaction: redactionOf(wasm, bytes, absoluteBlock, at.bigEndian, at.fork, decoded.kind) } : {}),
  };
}

/** A page of a loaded file as the page view reads it: its bytes and where it sits. */
async function readPlace(entry: FileEntry, block: number): Promise<{ wasm: Wasm; bytes: Uint8Array; at: PagePlace }> {
  const wasm = await loadWasm();
  const { head, blockSize, bigEndian } = await entryGeometry(entry);
  const bytes = new Uint8Array(await entry.file.slice(block * blockSize, (block + 1) * blockSize).arrayBuffer());
  if (bytes.length < blockSize) throw new Error(`block ${block} is past the end of ${entry.name}`);
  const at: PagePlace = {
    path: entry.path,
    relpath: relpathOf(entry.relDir, entry.rel?.relfilenode ?? 0, entry.fork),
    segment: entry.segment,
    fork: entry.fork,
    block,
    blockSize,
    fileBlocks: Math.floor(entry.size / blockSize),
    bigEndian,
    fileKind: fileKindOf(wasm, head, blockSize, bigEndian, entry.fork),
    pgVersion: entry.pgVersion ?? undefined,
    context: fileContext(entry, block),
  };
  return { wasm, bytes, at };
}

/** Reads a page of a loaded file as the page view does and makes its report data; with
 * `redact`, its row data masked. */
export async function readReportPage(entry: FileEntry, block: number, redact = false): Promise<ReportPage> {
  const { wasm, bytes, at } = await readPlace(entry, block);
  const page = reportPage(wasm, bytes, at, redact);
  const relation = entry.naming ? relationWords(entry.naming) : null;
  const note = page.status === 'zero' ? zeroNoteAt(entry, block) : null;
  return { ...page, cluster: clusterOf(entry, at.blockSize, at.bigEndian), ...(relation ? { relation } : {}), ...(note ? { zeroNote: note.message } : {}) };
}

/** The relation-wide block and the kind a page decodes as, as the page view finds them. */
function placed(wasm: Wasm, bytes: Uint8Array, at: PagePlace): { absoluteBlock: number; kind: string } {
  const absoluteBlock = pageVerdict(wasm, bytes, { ...at, ...at.context, blocks: at.fileBlocks }).absoluteBlock;
  return { absoluteBlock, kind: decodeWithCore(wasm, bytes, absoluteBlock, at.bigEndian, at.fork, at.fileKind, at.pgVersion).kind };
}

/** The page's redaction (share/redact.ts), decoded as the page view decodes it. */
export async function readRedaction(entry: FileEntry, block: number): Promise<Redaction> {
  const { wasm, bytes, at } = await readPlace(entry, block);
  const { absoluteBlock, kind } = placed(wasm, bytes, at);
  return redactionOf(wasm, bytes, absoluteBlock, at.bigEndian, at.fork, kind);
}

/** What `pg_filedump -f -i -R BLOCK FILE` prints for a page of a loaded file (the core's
 * formatter), naming the file by its path as the user has it; with `redact`, the bytes that
 * may hold row data print as `xx` under a line saying so. */
export async function readFiledump(entry: FileEntry, block: number, redact = false): Promise<string> {
  const { wasm, bytes, at } = await readPlace(entry, block);
  if (!redact) return wasm.filedump_fi(entry.path, bytes, block, at.bigEndian);
  const { absoluteBlock, kind } = placed(wasm, bytes, at);
  return wasm.filedump_fi_redacted(entry.path, bytes, block, absoluteBlock, at.bigEndian, at.fork, kind);
}

/** Counts per status from the page map's codes; blocks not verified yet count as pending. */
export function fileSummary(entry: FileEntry): FileSummary {
  const counts = emptyCounts();
  let pending = Math.max(0, entry.blocks - entry.statuses.length);
  for (const code of entry.statuses) {
    if (code === PENDING) pending++;
    else counts[STATUS_NAMES[code] ?? 'mismatch']++;
  }
  const notes = entry.findings.filter((x) => x.evidence === 'note' && x.code !== 'checksums_disabled').map((x) => x.message);
  return { blocks: entry.blocks, counts, pending, ...(notes.length > 0 ? { notes } : {}) };
}
