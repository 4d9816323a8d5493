// The one typed message module between the page and the WAL worker: a scan of WAL segment
// files for the full-page images of chosen blocks, and a page restored from one of them.
import type { WalBlock, WalProblem, WalSummary } from '../core';

export type { WalBlock, WalProblem, WalSummary, WalTouch } from '../core';

export interface WalSegmentFile {
  name: string;
  path: string;
  file: File;
}

export interface ScanRequest {
  type: 'scan';
  job: number;
  segments: WalSegmentFile[];
  /** pg_control's system identifier as decimal text, '' when none was dropped. */
  systemIdentifier: string;
  blockSize: number;
  /** (relfilenode, fork number, relation-wide block) triples. */
  watch: number[];
}

export interface PageRequest {
  type: 'page';
  job: number;
  /** The scan's job. */
  scan: number;
  image: number;
}

/** `drop`: the scan `job` is no longer needed; its scanner is freed. */
export type ToWal = ScanRequest | PageRequest | { type: 'drop'; job: number };

export type FromWal =
  | { type: 'progress'; job: number; bytesDone: number; bytesTotal: number }
  | { type: 'scanned'; job: number; order: string[]; blocks: WalBlock[]; problems: WalProblem[]; summary: WalSummary; ms: number }
  | { type: 'page'; job: number; page: Uint8Array }
  | { type: 'error'; job: number; message: string };
