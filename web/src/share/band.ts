// The caption band burned under an exported picture: which file and block it shows, both
// checksums, the status and the pgpage version, so a pasted screenshot explains itself.
import { checksumWords } from '../lib/messages';
import { STATUS_WORDS, type StatusName } from '../lib/status';

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
    `pgpage ${i.version} — made locally, nothing uploaded`,
  ];
}

/** Band height in CSS pixels for `lines` lines. */
export function bandHeight(lines: number): number {
  return lines * BAND_LINE_PX + 2 * BAND_PAD_PX;
}

/** `pgpage-16385-block1.png`; a path's slashes become dashes so it stays one file name. */
export function pngName(path: string, block: number, suffix = ''): string {
  return `pgpage-${path.replace(/[/\\]+/g, '-')}-block${block}${suffix}.png`;
}
