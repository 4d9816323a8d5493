// The report on screen, for the page view: a page the report names gets its finding right
// under its status, before any routine note (the report ranks; the page view repeats its rank).
import { createStore } from '../lib/store';
import type { ReportBlock, ReportJson } from './protocol';

/** `redacted`: the same report without row data (`report --json --redact`), whose words the
 * exports say while "Redact row data" is on. */
export interface ShownReport {
  root: string;
  report: ReportJson;
  redacted?: ReportJson;
}

export const shownReport = createStore<ShownReport | null>(null);

function blockOf(report: ReportJson, file: string, block: number): ReportBlock | null {
  for (const rel of report.relations) for (const b of rel.blocks) if (b.file === file && b.block_in_file === block) return b;
  return null;
}

/** The report's finding for block `block` of the dropped file at `path`, if it names one. */
export function findingAt(shown: ShownReport | null, path: string, block: number): ReportBlock | null {
  if (!shown || !path.startsWith(shown.root)) return null;
  return blockOf(shown.report, path.slice(shown.root.length), block);
}

/** The blocks of the dropped file at `path` that the report finds wrong though they verify
 * (a stale page, rows that disagree with their index): the page map marks them. */
export function toldButOk(shown: ShownReport | null, path: string): { block: number; damage: string }[] {
  if (!shown || !path.startsWith(shown.root)) return [];
  const file = path.slice(shown.root.length);
  return shown.report.relations.flatMap((rel) =>
    rel.blocks.filter((b) => b.file === file && b.status === 'ok').map((b) => ({ block: b.block_in_file, damage: b.damage })),
  );
}

/** The same finding in the redacted report: its evidence lines are the plain one's, in the
 * same order, without the keys they name. */
export function redactedFindingAt(shown: ShownReport | null, path: string, block: number): ReportBlock | null {
  if (!shown?.redacted || !path.startsWith(shown.root)) return null;
  return blockOf(shown.redacted, path.slice(shown.root.length), block);
}
