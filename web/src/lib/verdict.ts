// A page's verdict from its bytes (status, stored, computed, the block its checksum belongs
// to), as the page view shows it: one function for the file's page and the lab's edited copy.
import type { Wasm } from '../wasm';
import type { DecodedPage } from './spans';
import { statusName, type StatusName } from './status';

export interface Verdict {
  status: StatusName;
  stored: number;
  /** null for new pages, whose checksum the server does not compute. */
  computed: number | null;
  absoluteBlock: number;
  matchesBlock: number | null;
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
  /** Whole blocks in the file, for the misplaced-page search. */
  blocks: number;
  bigEndian: boolean;
}

export function pageVerdict(wasm: Wasm, bytes: Uint8Array, g: PageGeometry): Verdict {
  const absoluteBlock = wasm.absolute_block(g.blockSize, g.segment, g.block);
  const v = wasm.verify(bytes, absoluteBlock, g.blockSize, g.bigEndian);
  const status = statusName(v.status[0]);
  const stored = v.stored[0];
  const computed = status === 'zero' || status === 'new_not_zero' ? null : v.computed[0];
  const fold = v.fold[0];
  v.free();
  const first = wasm.absolute_block(g.blockSize, g.segment, 0);
  const matchesBlock = status === 'mismatch' ? (wasm.matches_block(fold, stored, g.block, first, g.blocks) ?? null) : null;
  return { status, stored, computed, absoluteBlock, matchesBlock };
}
