// The Markdown report of one page for a bug report or a mailing-list post: where the page
// is, its checksums in every form people quote, the header as page_header() shows it, what
// PostgreSQL's tools would print, `hexdump -C` excerpts and the file's page-map summary.
import { checksumWords, hexdumpC, pgChecksumsLine, serverLines } from './messages';
import { STATUS_NAMES, STATUS_WORDS, type StatusCounts, type StatusName } from './status';

export interface ReportPage {
  /** The file as the user has it (the path of a dropped folder, else the name). */
  path: string;
  /** relpath() of the relation, as the server's ERROR names it. */
  relpath: string;
  segment: number;
  fork: string;
  block: number;
  absoluteBlock: number;
  blockSize: number;
  bytes: Uint8Array;
  kind: string;
  status: StatusName;
  stored: number;
  computed: number | null;
  matchesBlock: number | null;
  /** page_header()'s columns as the core decodes them (`inspect --json`'s `header`). */
  header: Record<string, string | number>;
  flagNames: string[];
  /** Bytes known or suspected to be damaged (page offsets, end exclusive), with why. */
  damage: { start: number; end: number; why: string } | null;
}

export interface FileSummary {
  blocks: number;
  counts: StatusCounts;
  /** Blocks not verified yet. */
  pending: number;
  /** The core's notes about the file's pages that the server reads though rows may be gone
   * there (all-zero pages between pages with rows), in its words. */
  notes?: string[];
}

/** page_header()'s column, the PageHeaderData field it shows (bufpage.h). */
const HEADER_FIELDS: [string, string][] = [
  ['lsn', 'pd_lsn'],
  ['checksum', 'pd_checksum'],
  ['flags', 'pd_flags'],
  ['lower', 'pd_lower'],
  ['upper', 'pd_upper'],
  ['special', 'pd_special'],
  ['pagesize', 'pd_pagesize_version'],
  ['version', 'pd_pagesize_version'],
  ['prune_xid', 'pd_prune_xid'],
];

/** Rows of context shown on each side of a damaged region. */
const CONTEXT_ROWS = 2;
/** The header excerpt: the 24-byte page header and the first line pointers. */
const HEAD_BYTES = 64;

/** The first run of differing bytes between two copies of a page (end exclusive), or null. */
export function firstDifference(a: Uint8Array, b: Uint8Array): { start: number; end: number } | null {
  const n = Math.min(a.length, b.length);
  let start = 0;
  while (start < n && a[start] === b[start]) start++;
  if (start === n) return a.length === b.length ? null : { start: n, end: Math.max(a.length, b.length) };
  let end = start;
  while (end < n && a[end] !== b[end]) end++;
  return { start, end };
}

function excerpt(p: ReportPage, from: number, to: number): string {
  const off = p.block * p.blockSize + from;
  return ['```', `$ hexdump -C -s ${off} -n ${to - from} ${p.path}`, hexdumpC(p.bytes.subarray(from, to), off).trimEnd(), '```'].join('\n');
}

function headerValue(p: ReportPage, column: string): string {
  const v = p.header[column];
  if (v === undefined) return '';
  if (column === 'checksum') return checksumWords(Number(v));
  if (column === 'flags' && p.flagNames.length > 0) return `${v} (${p.flagNames.join(' | ')})`;
  return String(v);
}

export function summaryLine(path: string, s: FileSummary): string {
  const parts = STATUS_NAMES.filter((k) => s.counts[k] > 0).map((k) => `${s.counts[k]} ${k} (${STATUS_WORDS[k]})`);
  if (s.pending > 0) parts.push(`${s.pending} not verified yet`);
  return `\`${path}\`: ${s.blocks} blocks: ${parts.join(', ') || 'none verified'}.`;
}

const footer = (version: string) => ['---', `Produced locally by pgpage ${version} in the browser: the files were read on this machine and nothing was uploaded.`];

/** One page's part under a `##` title: facts, header, messages, bytes. */
function pageSection(p: ReportPage, title: string): string[] {
  const fileOffset = p.block * p.blockSize;
  const out: string[] = [];
  out.push(`## ${title}\`${p.path}\`, block ${p.block}`, '');
  out.push(`- **Status:** ${p.status} — ${STATUS_WORDS[p.status]}`);
  out.push(
    `- **Where:** file \`${p.path}\` (segment ${p.segment}, ${p.fork} fork, relation \`${p.relpath}\`), block ${p.block} of the file = relation-wide block ${p.absoluteBlock}, file offset ${fileOffset} (0x${fileOffset.toString(16)}), ${p.blockSize}-byte pages, ${p.kind} page`,
  );
  out.push(`- **Stored checksum** (pd_checksum): ${checksumWords(p.stored)}`);
  out.push(`- **Computed checksum** (pg_checksum_page for block ${p.absoluteBlock}): ${p.computed === null ? 'none (a new page is not checksummed)' : checksumWords(p.computed)}`);
  if (p.matchesBlock !== null) out.push(`- Written for relation block ${p.matchesBlock}: its stored checksum is valid there and the page's own evidence agrees (a misplaced page).`);
  out.push('', `### Page header (pageinspect's \`page_header()\`)`, '', '| page_header() | PageHeaderData | value |', '| --- | --- | --- |');
  for (const [column, field] of HEADER_FIELDS) out.push(`| ${column} | ${field} | ${headerValue(p, column)} |`);

  out.push('', '### What PostgreSQL prints');
  if (p.status === 'ok' || p.status === 'zero') {
    out.push('', 'Nothing: the server reads this page without complaint.');
  } else {
    out.push('', 'The server, reading the page (bufpage.c, bufmgr.c):', '', '```', serverLines(p.relpath, p.absoluteBlock, p.status, p.computed, p.stored), '```');
    if (p.status === 'mismatch' && p.computed !== null) {
      out.push('', '`pg_checksums --check`:', '', '```', pgChecksumsLine(p.path, p.block, p.computed, p.stored), '```');
    } else {
      out.push('', `\`pg_checksums --check\` does not report it (it skips new pages and does not check headers).`);
    }
  }

  out.push('', '### Bytes (`hexdump -C`)', '', `The first ${HEAD_BYTES} bytes: the 24-byte page header and the first line pointers.`, '', excerpt(p, 0, Math.min(HEAD_BYTES, p.bytes.length)));
  if (p.damage) {
    const from = Math.max(0, (Math.floor(p.damage.start / 16) - CONTEXT_ROWS) * 16);
    const to = Math.min(p.bytes.length, (Math.ceil(p.damage.end / 16) + CONTEXT_ROWS) * 16);
    // Rows already in the header excerpt are not repeated.
    const start = Math.max(from, HEAD_BYTES);
    if (start < to) {
      const where = p.damage.end - p.damage.start === 1 ? `offset ${p.damage.start}` : `offsets ${p.damage.start}..${p.damage.end - 1}`;
      out.push('', `Around page ${where}: ${p.damage.why}.`, '', excerpt(p, start, to));
    }
  } else if (p.status === 'mismatch') {
    out.push('', `A checksum mismatch says that some bytes of the page changed, not which: the damage can be anywhere in its ${p.blockSize} bytes.`);
  }

  return out;
}

export function markdownReport(p: ReportPage, file: FileSummary, version: string): string {
  const out = pageSection(p, 'pgpage report: ');
  out.push('', '### The whole file', '', summaryLine(p.path, file), '', ...footer(version));
  return out.join('\n') + '\n';
}

/**
 * Every problem page of every file in one post: the files' counts first, then each page as
 * in the one-page report. `omitted` problem pages past the ones given are counted, not shown.
 */
export function markdownReportAll(pages: ReportPage[], files: { path: string; summary: FileSummary }[], omitted: number, version: string): string {
  const total = pages.length + omitted;
  const out = [`# pgpage report: ${total} problem pages in ${files.length} files`, ''];
  for (const f of files) {
    out.push(`- ${summaryLine(f.path, f.summary)}`);
    for (const n of f.summary.notes ?? []) out.push(`  - note: ${n}`);
  }
  if (omitted > 0) out.push('', `The first ${pages.length} problem pages follow; ${omitted} more are left out.`);
  for (const p of pages) out.push('', ...pageSection(p, ''));
  out.push('', ...footer(version));
  return out.join('\n') + '\n';
}
