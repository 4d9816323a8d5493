// The caption band burned under an exported picture: which file and block it shows, both
// checksums, the status and the pgpage version, so a pasted screenshot explains itself.
import { checksumWords } from '../lib/messages';
import { blockRanges, plural } from '../lib/report';
import { STATUS_NAMES, STATUS_WORDS, ZERO_NOTE_WORDS, type StatusCounts, type StatusName } from '../lib/status';

export interface BandInfo {
  /** What the picture shows: "page view", "page map", "problem list". */
  what: string;
  path: string;
  block: number;
  absoluteBlock: number;
  status: StatusName;
  stored: number;
  computed: number | null;
  version: string;
  /** The core notes the all-zero page between pages with rows (zero_page_between_rows). */
  zeroNote?: boolean;
}

/** One text line of the band, in CSS pixels (multiplied by the picture's scale). */
export const BAND_LINE_PX = 20;
export const BAND_PAD_PX = 8;

export function bandLines(i: BandInfo): string[] {
  return [
    `${i.path}, block ${i.block} (relation block ${i.absoluteBlock}) — ${i.what}`,
    `${i.status}: ${i.zeroNote ? ZERO_NOTE_WORDS : STATUS_WORDS[i.status]}. Stored ${checksumWords(i.stored)}, computed ${i.computed === null ? '— (new page)' : checksumWords(i.computed)}`,
    versionLine(i.version),
  ];
}

const versionLine = (version: string) => `pgpage ${version} — made locally, nothing uploaded`;

/** The page map's band: the file, how the map is laid out, the counts per status. */
export function mapBandLines(path: string, blocks: number, cols: number, counts: StatusCounts, pending: number, version: string): string[] {
  const parts = STATUS_NAMES.filter((k) => counts[k] > 0).map((k) => `${counts[k]} ${k}`);
  if (pending > 0) parts.push(`${pending} not verified yet`);
  return [
    `${path} — page map of ${plural(blocks, 'block')}, ${cols} a row, the first block of each row numbered at its left`,
    parts.join(', ') || 'none verified',
    versionLine(version),
  ];
}

/** One problem page, as the problem list's band counts it. */
export interface ListedProblem {
  path: string;
  block: number;
  status: StatusName;
  /** The relation the catalogs name the file (`forensic / public.orders`). */
  relation?: string;
}

/** Longest summary line of the problem list's band before it is cut with "…". */
const LIST_LINE_CHARS = 160;

/** Notes the problem list's band names a line each; the rest it counts in one line. */
export const LIST_BAND_NOTES = 5;

/** The problem list's band: how many pages in how many files, which blocks by file (with its
 * relation) and status, then `notes` (the all-zero pages between rows), a line each up to
 * LIST_BAND_NOTES. */
export function listBandLines(problems: readonly ListedProblem[], version: string, notes: readonly string[] = []): string[] {
  const files = new Set(problems.map((p) => p.path));
  const counts = new Map<StatusName, number>();
  const groups = new Map<string, { path: string; relation?: string; status: StatusName; blocks: number[] }>();
  for (const p of problems) {
    counts.set(p.status, (counts.get(p.status) ?? 0) + 1);
    const key = `${p.path} ${p.status}`;
    const g = groups.get(key) ?? { path: p.path, relation: p.relation, status: p.status, blocks: [] };
    g.blocks.push(p.block);
    groups.set(key, g);
  }
  const byStatus = [...counts].map(([s, n]) => `${n} ${s}`).join(', ');
  let where = [...groups.values()]
    .map((g) => `${g.path}${g.relation ? ` = ${g.relation}` : ''} (${g.status}) ${g.blocks.length === 1 ? 'block' : 'blocks'} ${blockRanges(g.blocks)}`)
    .join('; ');
  if (where.length > LIST_LINE_CHARS) where = `${where.slice(0, LIST_LINE_CHARS - 1)}…`;
  return [
    `Problem pages: ${plural(problems.length, 'page')} in ${plural(files.size, 'file')} (${byStatus}) — problem list`,
    where,
    ...notes.slice(0, LIST_BAND_NOTES),
    ...(notes.length > LIST_BAND_NOTES
      ? [`… and ${(notes.length - LIST_BAND_NOTES).toLocaleString('en-US')} more notes of all-zero pages between rows, not in this band`]
      : []),
    versionLine(version),
  ];
}

/** Band height in CSS pixels for `lines` lines. */
export function bandHeight(lines: number): number {
  return lines * BAND_LINE_PX + 2 * BAND_PAD_PX;
}

/** The problem list's picture's name: after the one relation its pages are in
 * (`forensic.public.orders-problems.png`), else the one file (`pgpage-base-5-16385-problems.png`),
 * else `pgpage-problems.png`. `relations` as `[database, schema.name]` where the catalogs
 * name the file. */
export function listPngName(problems: readonly { path: string; relation: readonly [string, string] | null }[]): string {
  const oneName = (s: string) => s.replace(/[/\\:*?"<>|\s]+/g, '-');
  const files = new Set(problems.map((p) => p.path));
  const rels = new Set(problems.map((p) => (p.relation ? `${p.relation[0]}.${p.relation[1]}` : null)));
  const [rel] = rels;
  if (rels.size === 1 && rel) return `${oneName(rel)}-problems.png`;
  if (files.size === 1) return `pgpage-${oneName([...files][0])}-problems.png`;
  return 'pgpage-problems.png';
}

/** `pgpage-16385-block1.png`; a path's slashes become dashes so it stays one file name. */
export function pngName(path: string, block: number, suffix = ''): string {
  return `pgpage-${path.replace(/[/\\]+/g, '-')}-block${block}${suffix}.png`;
}
