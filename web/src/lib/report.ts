// The Markdown report of one page for a bug report or a mailing-list post: where the page
// is, its checksums in every form people quote, the header as page_header() shows it, what
// PostgreSQL's tools would print, `hexdump -C` excerpts and the file's page-map summary.
import { checksumWords, hexdumpC } from './messages';
import { READ_AS_EMPTY, STATUS_NAMES, STATUS_WORDS, ZERO_NOTE_WORDS, type StatusCounts, type StatusName } from './status';
import { plainText } from './text';

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
  /** The cluster and platform the file comes from, as far as they are known (clusterLine). */
  cluster?: string;
  /** The relation its data directory's catalogs say the file is: `database / schema.table`,
   * with what it is of (`(index of public.orders)`). */
  relation?: string;
  /** The core's note on an all-zero page between pages with rows (zero_page_between_rows),
   * its message: the report says it rather than "fine". */
  zeroNote?: string;
  /** What PostgreSQL prints about the page, in the core's words: the server reading it, and
   * pg_checksums (null where it reports nothing: new pages, header-only problems). */
  said: { server: string; pgChecksums: string | null };
  /** The core's Markdown section on the single-bit flips that make the stored checksum
   * valid, ranked (wasm `bit_flips_markdown`); empty or absent when there are none. */
  bitFlips?: string;
  /** Row data masked (the share row's "Redact row data" switch): 1 per masked byte, and the
   * note saying so, which the report carries where the bytes are. */
  redaction?: { mask: Uint8Array; note: string };
}

/** What is known of a file's cluster: PG_VERSION, pg_control (decode_control's object), its
 * byte order and block size. */
export interface ClusterFacts {
  pgVersion: number | null;
  control: Record<string, unknown> | null;
  bigEndian: boolean;
  blockSize: number;
}

/** One sentence on the server and platform that wrote the file: the version from PG_VERSION,
 * pg_control's versions and alignment, the byte order and page size read from the pages. */
export function clusterLine(c: ClusterFacts): string {
  const parts: string[] = [];
  parts.push(c.pgVersion !== null ? `PostgreSQL ${c.pgVersion} (PG_VERSION)` : 'PostgreSQL version unknown (no PG_VERSION dropped)');
  const ctl = c.control;
  if (ctl) {
    const releases = typeof ctl.releases === 'string' && ctl.releases ? ` (written by ${ctl.releases})` : '';
    parts.push(`pg_control version ${String(ctl.pg_control_version)}${releases}, catalog version ${String(ctl.catalog_version_no)}`);
    if (ctl.max_data_alignment !== undefined) parts.push(`MAXALIGN ${plainText(ctl.max_data_alignment)}`);
    if (ctl.data_page_checksum_version !== undefined) parts.push(`data checksum version ${plainText(ctl.data_page_checksum_version)}`);
  }
  parts.push(`${c.bigEndian ? 'big' : 'little'}-endian`, `${c.blockSize}-byte pages`);
  return parts.join(', ');
}

/** `n thing` or `n things`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A Markdown table cell: a `|` inside would end the cell, a line break the row. */
export function cell(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** Sorted block numbers as runs: `0-99, 120, 130-329`. */
export function blockRanges(blocks: readonly number[]): string {
  const sorted = [...new Set(blocks)].sort((a, b) => a - b);
  const runs: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    runs.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return runs.join(', ');
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
  const dump = hexdumpC(p.bytes.subarray(from, to), off, p.redaction?.mask.subarray(from, to)).trimEnd();
  return ['```', `$ hexdump -C -s ${off} -n ${to - from} ${p.path}`, dump, '```'].join('\n');
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
  return `\`${path}\`: ${plural(s.blocks, 'block')}: ${parts.join(', ') || 'none verified'}.`;
}

const footer = (version: string) => [
  '---',
  `Produced locally by pgpage ${version} in the browser: the files were read on this machine and nothing was uploaded.`,
];

/** One page's part under a `##` title: facts, header, messages, bytes. */
function pageSection(p: ReportPage, title: string): string[] {
  const fileOffset = p.block * p.blockSize;
  const out: string[] = [];
  out.push(`## ${title}\`${p.path}\`, block ${p.block}`, '');
  out.push(`- **Status:** ${p.status} — ${p.zeroNote ? ZERO_NOTE_WORDS : STATUS_WORDS[p.status]}`);
  if (p.zeroNote) out.push(`- **Note:** ${p.zeroNote}`);
  if (p.relation) out.push(`- **Relation:** \`${p.relation}\` (from the data directory's catalogs)`);
  out.push(
    `- **Where:** file \`${p.path}\` (segment ${p.segment}, ${p.fork} fork, relation \`${p.relpath}\`), block ${p.block} of the file = relation-wide block ${p.absoluteBlock}, file offset ${fileOffset} (0x${fileOffset.toString(16)}), ${p.blockSize}-byte pages, ${p.kind} page`,
  );
  out.push(`- **Stored checksum** (pd_checksum): ${checksumWords(p.stored)}`);
  out.push(
    `- **Computed checksum** (pg_checksum_page for block ${p.absoluteBlock}): ${p.computed === null ? 'none (a new page is not checksummed)' : checksumWords(p.computed)}`,
  );
  if (p.cluster) out.push(`- **Cluster:** ${p.cluster}`);
  if (p.matchesBlock !== null)
    out.push(`- Written for relation block ${p.matchesBlock}: its stored checksum is valid there and the page's own evidence agrees (a misplaced page).`);
  if (p.redaction) out.push(`- **Redacted:** ${p.redaction.note}; masked bytes show as \`xx\` in the dumps below.`);
  out.push('', `### Page header (pageinspect's \`page_header()\`)`, '', '| page_header() | PageHeaderData | value |', '| --- | --- | --- |');
  for (const [column, field] of HEADER_FIELDS) out.push(`| ${column} | ${field} | ${cell(headerValue(p, column))} |`);

  out.push('', '### What PostgreSQL prints');
  if (p.status === 'ok' || p.status === 'zero') {
    out.push('', 'Nothing: the server reads this page without complaint.');
  } else {
    out.push('', 'The server, reading the page (bufpage.c, bufmgr.c):', '', '```', p.said.server, '```');
    if (p.said.pgChecksums !== null) {
      out.push('', '`pg_checksums --check`:', '', '```', p.said.pgChecksums, '```');
    } else {
      out.push('', `\`pg_checksums --check\` does not report it (it skips new pages and does not check headers).`);
    }
  }

  out.push(
    '',
    '### Bytes (`hexdump -C`)',
    '',
    `The first ${HEAD_BYTES} bytes: the 24-byte page header and the first line pointers.`,
    '',
    excerpt(p, 0, Math.min(HEAD_BYTES, p.bytes.length)),
  );
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
  if (p.bitFlips) out.push('', p.bitFlips.trimEnd());

  return out;
}

export function markdownReport(p: ReportPage, file: FileSummary, version: string): string {
  const out = pageSection(p, 'pgpage report: ');
  out.push('', '### The whole file', '', summaryLine(p.path, file), '', ...footer(version));
  return out.join('\n') + '\n';
}

/** One problem page as the problem list knows it, for the summary and the appendix. */
export interface ProblemRow {
  path: string;
  block: number;
  absoluteBlock: number;
  status: StatusName;
  stored: number;
  computed: number | null;
  /** A short note: the block a misplaced page was written for, a finding. */
  note: string;
}

/** An all-zero page the server reads as empty though rows may have been there: the core's
 * note (zero_page_between_rows), or the incident report's `zeroed` finding. */
export interface ZeroRow {
  path: string;
  block: number;
  /** The incident report finds the page's rows lost (READ_AS_EMPTY). */
  readAsEmpty: boolean;
}

/** Pages shown in full in the all-problems report; the appendix lists every one. */
export const DETAILED_PAGES = 5;

/**
 * The checksum inventory of every file verified, in one post: a short summary first (each
 * file's counts, then per file and status the number of pages and their block ranges, the
 * all-zero pages the server reads as empty among them), the first few problem pages in full
 * as in the one-page report, and an appendix table with one row per problem page. The
 * incident report is the account of the damage; this is its checksum evidence, titled apart.
 */
export function markdownReportAll(
  rows: readonly ProblemRow[],
  detailed: readonly ReportPage[],
  files: { path: string; summary: FileSummary }[],
  version: string,
  cluster?: string,
  zeros: readonly ZeroRow[] = [],
): string {
  const zeroWords = zeros.length > 0 ? ` and ${plural(zeros.length, 'all-zero page')} read as empty` : '';
  const out = [`# pgpage checksum inventory: ${plural(rows.length, 'problem page')}${zeroWords} in ${plural(files.length, 'file')}`, ''];
  out.push(
    `Made by pgpage ${version}.${cluster ? ` ${cluster}.` : ''}`,
    '',
    'Every file verified, each fork and segment, as pg_checksums counts them: the checksum evidence beside the incident report (`pgpage report`), which is the account of the damage.',
    '',
    '## Summary',
    '',
  );
  for (const f of files) {
    out.push(`- ${summaryLine(f.path, f.summary)}`);
    for (const n of f.summary.notes ?? []) out.push(`  - note: ${cell(n)}`);
  }
  out.push('', '| file | status | pages | blocks |', '| --- | --- | --- | --- |');
  const groups = new Map<string, ProblemRow[]>();
  for (const r of rows) {
    const key = `${r.path}\u0000${r.status}`;
    const g = groups.get(key);
    if (g) g.push(r);
    else groups.set(key, [r]);
  }
  for (const g of groups.values()) {
    const { path, status } = g[0];
    out.push(`| \`${cell(path)}\` | ${status} (${cell(STATUS_WORDS[status])}) | ${g.length} | ${blockRanges(g.map((r) => r.block))} |`);
  }
  // The all-zero pages have no checksum to fail, but rows may be gone there: a row each way
  // the incident report counts them, so that the two tables name the same pages.
  const zeroGroups = new Map<string, ZeroRow[]>();
  for (const z of zeros) {
    const key = `${z.path}\u0000${z.readAsEmpty}`;
    zeroGroups.set(key, [...(zeroGroups.get(key) ?? []), z]);
  }
  for (const g of zeroGroups.values()) {
    const words = g[0].readAsEmpty ? `${ZERO_NOTE_WORDS}; the incident report: ${READ_AS_EMPTY}, rows lost` : ZERO_NOTE_WORDS;
    out.push(`| \`${cell(g[0].path)}\` | zero (${cell(words)}) | ${g.length} | ${blockRanges(g.map((z) => z.block))} |`);
  }
  if (detailed.length > 0) {
    const which =
      detailed.length < rows.length
        ? `the first ${plural(detailed.length, 'problem page')} of ${rows.length}; every one is in the appendix`
        : plural(detailed.length, 'problem page');
    out.push('', `## Pages in detail`, '', `In full: ${which}.`);
  }
  for (const p of detailed) out.push('', ...pageSection(p, '').map((l) => (l.startsWith('#') ? `#${l}` : l)));
  out.push(
    '',
    '## Appendix: every problem page',
    '',
    '| file | block | relation block | status | stored | computed | note |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const r of rows) {
    const computed = r.computed === null ? '—' : String(r.computed);
    out.push(`| \`${cell(r.path)}\` | ${r.block} | ${r.absoluteBlock} | ${r.status} | ${r.stored} | ${computed} | ${cell(r.note)} |`);
  }
  out.push('', ...footer(version));
  return out.join('\n') + '\n';
}
