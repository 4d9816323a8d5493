// The core's file verdict (FileVerdictJs) as plain values for the page, for the verify
// worker's files and the page view's one-page verdict alike.
import { findingsTable, verdictDetails, type FileVerdictJs } from '../core';
import type { StatusName } from '../lib/status';
import type { Wasm } from '../core';
import type { FileResult, PageFinding, ProblemPage } from './protocol';

// The core's tables, read once per thread.
let tables: {
  status: StatusName[];
  findings: string[];
  maps: Map<string, { message: string; evidence: string }>;
  /** By code index: the finding's evidence. */
  evidence: string[];
  /** By code index: whose check the finding is. */
  checkers: string[];
} | null = null;

/** The core's verdict as plain values for the page; `first` is the relation-wide number of
 * the file's block 0, `blocks` its whole pages, `path` the file as the server names it (its
 * relation is named in the maps' messages). */
export function resultOf(wasm: Wasm, v: FileVerdictJs, first: number, blocks: number, path = ''): FileResult {
  if (!tables) {
    const rows = findingsTable(wasm);
    tables = {
      status: wasm.status_names() as StatusName[],
      findings: rows.map((f) => f.code),
      maps: new Map(rows.filter((f) => f.maps).map((f) => [f.code, { message: f.message, evidence: f.evidence }])),
      evidence: rows.map((f) => f.evidence),
      checkers: rows.map((f) => f.checker),
    };
  }
  const t = tables;
  const j = verdictDetails(v);
  const [block, abs, status, problem, stored, computed] = [v.block, v.absolute_block, v.status, v.problem, v.stored, v.computed];
  const [tuple, mBlock, mKind, mMatches, start, codes] = [
    v.tuple_block,
    v.misplaced_block,
    v.misplaced_kind,
    v.misplaced_matches,
    v.finding_start,
    v.finding_codes,
  ];
  const routine = v.finding_routine;
  const [sStart, sCodes, sItems, sMessages] = [v.structure_start, v.structure_codes, v.structure_items, v.structure_messages];
  v.free();
  const NONE = 0xffffffff;
  const pages: ProblemPage[] = new Array<ProblemPage>(block.length);
  const pageFindings: PageFinding[] = [];
  // VACUUM names the relation, as relpath() does: its segment 0's path.
  const relation = path.replace(/\.\d+$/, '');
  for (let i = 0; i < block.length; i++) {
    const findings = Array.from(codes.subarray(start[i], start[i + 1]), (c) => t.findings[c]);
    pages[i] = {
      block: block[i],
      absoluteBlock: abs[i],
      status: t.status[status[i]],
      code: status[i],
      problem: problem[i] === 1,
      stored: stored[i],
      // 0 is never a checksum (1..65535): the server computes none.
      computed: computed[i] === 0 ? null : computed[i],
      misplaced:
        mKind[i] === 0
          ? null
          : {
              block: mBlock[i],
              claim: mKind[i] === 1,
              by: findings.find((f) => f.startsWith('misplaced_by_') || f === 'checksum_matches_other_block') ?? '',
              matches: mMatches[i],
              inFile: mBlock[i] - first >= 0 && mBlock[i] - first < blocks ? mBlock[i] - first : null,
            },
      tupleBlock: tuple[i] === NONE ? null : tuple[i],
      findings,
    };
    for (let k = start[i]; k < start[i + 1]; k++) {
      const code = t.findings[codes[k]];
      const m = t.maps.get(code);
      if (!m) continue;
      const message = m.message.replace('%s', relation).replace('%u', String(abs[i]));
      const notRoutine = m.evidence === 'note' && routine[k] === 0;
      pageFindings.push({ block: block[i], absoluteBlock: abs[i], code, message, evidence: m.evidence, ...(notRoutine ? { notRoutine } : {}) });
    }
    // amcheck's per-page checks, in its words with its numbers, at its block and offset.
    for (let k = sStart[i]; k < sStart[i + 1]; k++) {
      // `%s`: the relation's name, which the page knows from the catalogs (useFiles).
      const message = sMessages[k];
      pageFindings.push({
        block: block[i],
        absoluteBlock: abs[i],
        code: t.findings[sCodes[k]],
        message,
        evidence: t.evidence[sCodes[k]],
        checker: t.checkers[sCodes[k]],
        amcheck: true,
        ...(sItems[k] ? { offset: sItems[k] } : {}),
      });
    }
  }
  return {
    counts: j.counts,
    checksumsDisabled: j.checksums_disabled,
    checksumsInProgress: j.checksums_in_progress,
    checksumCounts: j.checksum_counts,
    problem: j.problem,
    pages,
    remap: j.remap,
    findings: j.findings.map((f) => ({
      code: f.code,
      message: f.message,
      evidence: f.evidence,
      ...(f.block !== undefined ? { block: f.block } : {}),
      ...(f.pages !== undefined ? { pages: f.pages } : {}),
    })),
    pageFindings,
    amcheckUnlisted: j.structure_unlisted,
    chance: j.chance,
  };
}
