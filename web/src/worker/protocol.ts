// The one typed message module between the page and the verify worker.
import type { StatusCounts, StatusName } from '../lib/status';

export interface VerifyRequest {
  type: 'verify';
  job: number;
  file: File;
  segment: number;
  /** null: detect from the file. */
  blockSize: number | null;
  bigEndian: boolean;
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

export type FromWorker =
  | { type: 'start'; job: number; blockSize: number; blockSizeAssumed: boolean; blocks: number; trailingBytes: number; trailing: Uint8Array }
  | {
      type: 'progress';
      job: number;
      /** Block (within the file) of statuses[0]. */
      firstBlock: number;
      statuses: Uint8Array;
      problems: ProblemPage[];
      bytesDone: number;
    }
  | { type: 'done'; job: number; counts: StatusCounts; checksumsDisabled: boolean; elapsedMs: number }
  | { type: 'error'; job: number; message: string }
  | { type: 'cancelled'; job: number };
