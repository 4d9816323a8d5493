// The caption band burned under an exported picture: which file and block it shows, both
// checksums, the status and the pgpage version, so a pasted screenshot explains itself.
import { checksumWords } from '../lib/messages';
import { blockRanges, plural } from '../lib/report';
import { STATUS_NAMES, STATUS_WORDS, type StatusCounts, type StatusName } from '../lib/status';

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
}

/** One text line of the band, in CSS pixels (multiplied by the picture's scale). */
export const BAND_LINE_PX = 20;
export const BAND_PAD_PX = 8;

export function bandLines(i: BandInfo): string[] {
  return [
    `${i.path}, block ${i.block} (relation block ${i.absoluteBlock}) — ${i.what}`,
    `${i.status}: ${STATUS_WORDS[i.status]}. Stored ${checksumWords(i.stored)}, computed ${i.computed === null ? '— (new page)' : checksumWords(i.computed)}`,
    versionLine(i.version),
  ];
}

const versionLine = (version: string) => `pgpage ${version} — made locally, nothing uploaded`;

/** The page map's band: the file, how the map is laid out, the counts per status. */
export function mapBandLines(path: string, blocks: number, cols: number, counts: StatusCounts, pending: number, version: string): string[] {
  const parts = STATUS_NAMES.filter((k) => counts[k] > 0).map((k) => `${counts[k]} ${k}`);
  if (pending > 0) parts.push(`${pending} not verified yet`);
  return [`${path} — page map of ${plural(blocks, 'block')}, ${cols} a row, the first block of each row numbered at its left`, `${parts.join(', ') || 'none verified'}`, versionLine(version)];
}

/** One problem page, as the problem list's band counts it. */
export interface ListedProblem {
  path: string;
  block: number;
  status: StatusName;
}

/** Longest summary line of the problem list's band before it is cut with "…". */
const LIST_LINE_CHARS = 160;

/** The problem list's band: how many pages in how many files, and which blocks by file and status. */
export function listBandLines(problems: readonly ListedProblem[], version: string): string[] {
  const files = new Set(problems.map((p) => p.path));
  const counts = new Map<StatusName, number>();
  const groups = new Map<string, number[]>();
  for (const p of problems) {
    counts.set(p.status, (counts.get(p.status) ?? 0) + 1);
    const key = `${p.path} ${p.status}`;
    groups.set(key, [...(groups.get(key) ?? []), p.block]);
  }
  const byStatus = [...counts].map(([s, n]) => `${n} ${s}`).join(', ');
  let where = [...groups].map(([key, blocks]) => `${key.replace(' ', ' (')}) blocks ${blockRanges(blocks)}`).join('; ');
  if (where.length > LIST_LINE_CHARS) where = `${where.slice(0, LIST_LINE_CHARS - 1)}…`;
  return [`Problem pages: ${plural(problems.length, 'page')} in ${plural(files.size, 'file')} (${byStatus}) — problem list`, where, versionLine(version)];
}

/** Band height in CSS pixels for `lines` lines. */
export function bandHeight(lines: number): number {
  return lines * BAND_LINE_PX + 2 * BAND_PAD_PX;
}

/** `pgpage-16385-block1.png`; a path's slashes become dashes so it stays one file name. */
export function pngName(path: string, block: number, suffix = ''): string {
  return `pgpage-${path.replace(/[/\\]+/g, '-')}-block${block}${suffix}.png`;
}
