// The core's file verdict (FileVerdictJs) as plain values for the page, for the verify
// worker's files and the page view's one-page verdict alike.
import type { FileVerdictJs } from '../../pkg/pgpage_wasm.js';
import type { StatusName } from '../lib/status';
import type { Wasm } from '../wasm';
import type { FileFinding, FileResult, ProblemPage } from './protocol';

// The core's tables, read once per thread.
let tables: { status: StatusName[]; problem: Set<number>; findings: string[] } | null = null;

/** The core's verdict as plain values for the page; `first` is the relation-wide number of
 * the file's block 0, `blocks` its whole pages. */
export function resultOf(wasm: Wasm, v: FileVerdictJs, first: number, blocks: number): FileResult {
  tables ??= {
    status: wasm.status_names() as StatusName[],
    problem: new Set(wasm.problem_statuses()),
    findings: (JSON.parse(wasm.findings_table()) as { code: string }[]).map((f) => f.code),
  };
  const t = tables;
  const j = JSON.parse(v.json) as {
    checksums_disabled: boolean;
    problem: boolean;
    counts: FileResult['counts'];
    remap: FileResult['remap'];
    findings: FileFinding[];
    chance: FileResult['chance'];
  };
  const [block, abs, status, stored, computed] = [v.block, v.absolute_block, v.status, v.stored, v.computed];
  const [tuple, mBlock, mKind, mMatches, start, codes] = [v.tuple_block, v.misplaced_block, v.misplaced_kind, v.misplaced_matches, v.finding_start, v.finding_codes];
  v.free();
  const NONE = 0xffffffff;
  const pages: ProblemPage[] = new Array<ProblemPage>(block.length);
  for (let i = 0; i < block.length; i++) {
    const findings = Array.from(codes.subarray(start[i], start[i + 1]), (c) => t.findings[c]);
    pages[i] = {
      block: block[i],
      absoluteBlock: abs[i],
      status: t.status[status[i]],
      code: status[i],
      problem: t.problem.has(status[i]),
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
  }
  return {
    counts: j.counts,
    checksumsDisabled: j.checksums_disabled,
    problem: j.problem,
    pages,
    remap: j.remap,
    findings: j.findings.map((f) => ({ code: f.code, message: f.message, evidence: f.evidence, ...(f.block !== undefined ? { block: f.block } : {}), ...(f.pages !== undefined ? { pages: f.pages } : {}) })),
    chance: j.chance,
  };
}
