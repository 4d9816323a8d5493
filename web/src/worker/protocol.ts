// The one typed message module between the page and the verify worker.
import type { Geometry, GeometryChoice } from '../lib/geometry';
import type { StatusCounts, StatusName } from '../lib/status';

export interface VerifyRequest {
  type: 'verify';
  job: number;
  file: File;
  segment: number;
  /** Block size and byte order as chosen; what is not chosen comes from the file's head. */
  choice: GeometryChoice;
  chunkBytes?: number;
  /** Verify only the whole pages in bytes [from, to) of the file (both multiples of every
   * block size), as part `index` of a file the pool shares between workers. Part 0 sends
   * 'start'; every part sends 'progress' and 'done' with `part` filled in. */
  part?: { index: number; from: number; to: number };
}

export interface CancelRequest {
  type: 'cancel';
  job: number;
}

export type ToWorker = VerifyRequest | CancelRequest;

export interface ProblemPage {
  block: number;
  absoluteBlock: number;
  status: StatusName;
  stored: number;
  computed: number | null;
  matchesBlock: number | null;
}

/** What a part knows that only the whole file can decide: whether its file has data
 * checksums. Mismatches of pages that store 0 are held back until a page of the file shows a
 * stored checksum; a part that saw none hands its held-back pages over (as typed arrays: a
 * file without checksums holds back every page). */
export interface PartDone {
  index: number;
  sawStoredChecksum: boolean;
  headerPages: number;
  /** The relation-wide block number of the file's block 0. */
  firstAbsBlock: number;
  heldBlocks: Uint32Array;
  heldComputed: Uint16Array;
  /** matchesBlock, NaN for none. */
  heldMatches: Float64Array;
}

export interface StatusRun {
  /** Block (within the file) of statuses[0]. */
  firstBlock: number;
  statuses: Uint8Array;
}

export type FromWorker =
  | { type: 'start'; job: number; geometry: Geometry; blocks: number; trailingBytes: number; trailing: Uint8Array }
  | {
      type: 'progress';
      job: number;
      /** Statuses of runs of consecutive blocks, in no particular order. */
      runs: StatusRun[];
      /** In block order. */
      problems: ProblemPage[];
      bytesDone: number;
      /** Of a shared file: the part whose bytesDone this is. */
      part?: number;
    }
  | { type: 'done'; job: number; counts: StatusCounts; checksumsDisabled: boolean; elapsedMs: number; part?: PartDone }
  | { type: 'error'; job: number; message: string }
  | { type: 'cancelled'; job: number };
