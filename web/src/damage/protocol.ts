// The one typed message module between the page and the damage worker: bit-flip localisation
// of one page and the chunked comparison of two copies of a file.
import type { DiffSummary, FlipsRanked as BitFlips, PageDiff } from '../core';

export type { DiffSummary, FlipCandidate, FlipsRanked as BitFlips, PageDiff } from '../core';

export interface FlipsRequest {
  type: 'flips';
  job: number;
  page: Uint8Array;
  absoluteBlock: number;
  bigEndian: boolean;
  fork: string;
  fileKind: string | undefined;
}

export interface CompareRequest {
  type: 'compare';
  job: number;
  /** A: the good copy, the baseline; B: the file open in the page view. As `pgpage diff
   * COPY FILE`: bits set are 0 in the copy and 1 in the file, what the damage set. */
  a: File;
  b: File;
  blockSize: number;
  bigEndian: boolean;
}

export type ToDamage = FlipsRequest | CompareRequest;

export type FromDamage =
  | { type: 'flips'; job: number; flips: BitFlips; ms: number }
  | { type: 'progress'; job: number; bytesDone: number; bytesTotal: number }
  | { type: 'compared'; job: number; pages: PageDiff[]; summary: DiffSummary; ms: number }
  | { type: 'error'; job: number; message: string };
