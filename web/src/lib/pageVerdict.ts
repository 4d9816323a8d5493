// One page's verdict as the core's file scan gives it (FileScanJs over that page, with what
// the file's verdict knows: whether checksums are on, and the page's row when the file is
// done), for the page view, the lab's edited copy and the share actions alike.
import type { FileEntry } from '../files';
import type { Wasm } from '../core';
import type { ChecksumsCode, Misplaced, ProblemPage } from '../worker/protocol';
import type { DecodedPage } from './spans';
import type { StatusName } from './status';
import { resultOf } from '../worker/result';

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

export function pageVerdict(wasm: Wasm, bytes: Uint8Array, g: PageGeometry): Verdict {
  const blocks = Math.max(g.blocks, g.block + 1);
  const scan = new wasm.FileScanJs(bytes, blocks * g.blockSize, g.segment, g.blockSize, g.bigEndian ? 'big' : 'little', true);
  let listed: ProblemPage;
  try {
    scan.chunk(bytes, g.block);
    // The core lists this page whether or not it is a problem, as the file's verdict would.
    listed = resultOf(wasm, scan.finish_page(g.checksums ?? 0, g.block, bytes), scan.first_absolute_block, blocks).pages[0];
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
