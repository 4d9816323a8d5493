// The report on screen, for the page view: a page the report names gets its finding right
// under its status, before any routine note (the report ranks; the page view repeats its rank).
import { createStore } from '../lib/store';
import type { ReportBlock, ReportJson } from './protocol';

export const shownReport = createStore<{ root: string; report: ReportJson } | null>(null);

/** The report's finding for block `block` of the dropped file at `path`, if it names one. */
export function findingAt(shown: { root: string; report: ReportJson } | null, path: string, block: number): ReportBlock | null {
  if (!shown || !path.startsWith(shown.root)) return null;
  const file = path.slice(shown.root.length);
  for (const rel of shown.report.relations) for (const b of rel.blocks) if (b.file === file && b.block_in_file === block) return b;
  return null;
}
