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
    }
  | { type: 'done'; job: number; counts: StatusCounts; checksumsDisabled: boolean; elapsedMs: number }
  | { type: 'error'; job: number; message: string }
  | { type: 'cancelled'; job: number };
