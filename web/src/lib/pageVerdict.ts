// One page's verdict as the core's file scan gives it (FileScanJs over that page, with what
// the file's verdict knows: whether checksums are on, and the page's row when the file is
// done), for the page view, the lab's edited copy and the share actions alike.
import type { FileEntry } from '../files';
import type { Wasm } from '../wasm';
import type { ChecksumsCode, Misplaced, ProblemPage } from '../worker/protocol';
import type { DecodedPage } from './spans';
import type { StatusName } from './status';

export interface Verdict {
  status: StatusName;
  stored: number;
  /** null when the server computes none: new pages, and any page with checksums off. */
  computed: number | null;
  absoluteBlock: number;
  /** The block the page was written for, when something besides its checksum says so. */
  matchesBlock: number | null;
  /** The core's word on where the page was written: a claim or a candidate. */
  misplaced: Misplaced | null;
  /** The core's finding codes about the page. */
  findings: string[];
}

/** One page of a file as the page view holds it. */
export interface LoadedPage extends Verdict {
  block: number;
  bytes: Uint8Array;
  blockSize: number;
  bigEndian: boolean;
  decoded: DecodedPage;
}

export interface PageGeometry {
  /** Block within the file. */
  block: number;
  blockSize: number;
  segment: number;
  /** Whole blocks in the file: the range a misplaced page's block is searched in. */
  blocks: number;
  bigEndian: boolean;
  /** What is known of the cluster's data checksums (0: the page decides). */
  checksums?: ChecksumsCode;
  /** The file's verdict's row for this block, when the file is done and these are its bytes:
   * it knows what one page alone cannot (the neighbours' sibling links). */
  row?: ProblemPage | null;
}

/** What the file's verdict says for a page of `entry`: checksums on or off, and its row. */
export function fileContext(entry: FileEntry, block: number): Pick<PageGeometry, 'checksums' | 'row'> {
  if (entry.state !== 'done') return { checksums: entry.checksums };
  return { checksums: entry.checksumsDisabled ? 2 : 1, row: entry.problems.find((p) => p.block === block) ?? null };
}

let names: StatusName[] | null = null;

export function pageVerdict(wasm: Wasm, bytes: Uint8Array, g: PageGeometry): Verdict {
  names ??= wasm.status_names() as StatusName[];
  const blocks = Math.max(g.blocks, g.block + 1);
  const scan = new wasm.FileScanJs(bytes, blocks * g.blockSize, g.segment, g.blockSize, g.bigEndian ? 'big' : 'little', true);
  let listed: ProblemPage | null;
  let off: boolean;
  let first: number;
  try {
    first = scan.first_absolute_block;
    const [code] = scan.chunk(bytes, g.block);
    const v = scan.finish(g.checksums ?? 0, '');
    off = (JSON.parse(v.json) as { checksums_disabled: boolean }).checksums_disabled;
    const at = v.block.indexOf(g.block);
    listed =
      at < 0
        ? null
        : {
            block: g.block,
            absoluteBlock: v.absolute_block[at],
            status: names[v.status[at]],
            code: v.status[at],
            problem: true,
            stored: v.stored[at],
            computed: v.computed[at] === 0 ? null : v.computed[at],
            misplaced:
              v.misplaced_kind[at] === 0 ? null : { block: v.misplaced_block[at], claim: v.misplaced_kind[at] === 1, by: '', matches: v.misplaced_matches[at], inFile: null },
            tupleBlock: null,
            findings: [],
          };
    v.free();
    if (!listed) {
      // Not listed: fine as the server sees it (a mismatch only when checksums are on).
      const status = names[code] === 'mismatch' ? 'ok' : names[code];
      const one = wasm.verify(bytes, (first + g.block) >>> 0, g.blockSize, g.bigEndian);
      const stored = one.stored[0];
      const computed = one.computed[0];
      one.free();
      listed = { block: g.block, absoluteBlock: (first + g.block) >>> 0, status, code, problem: false, stored, computed: off || status === 'zero' || status === 'new_not_zero' ? null : computed, misplaced: null, tupleBlock: null, findings: [] };
    }
  } finally {
    scan.free();
  }
  const row = g.row && g.row.status === listed.status ? g.row : null;
  const misplaced = row ? row.misplaced : listed.misplaced;
  return {
    status: listed.status,
    stored: listed.stored,
    computed: listed.computed,
    absoluteBlock: listed.absoluteBlock,
    matchesBlock: misplaced?.claim ? misplaced.block : null,
    misplaced,
    findings: row?.findings ?? listed.findings,
  };
}
