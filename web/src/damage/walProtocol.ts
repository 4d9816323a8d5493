// The one typed message module between the page and the WAL worker: a scan of WAL segment
// files for the full-page images of chosen blocks, and a page restored from one of them.
import type { WalBlock, WalProblem, WalRecovered, WalSummary } from '../core';

export type { WalBlock, WalProblem, WalRecovered, WalSummary, WalTouch } from '../core';

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
  /** Blocks to rebuild as `pgpage recover --block` does, while the same WAL is read: the
   * cluster's global/pg_control and (tablespace, database, relfilenode, fork number,
   * relation-wide block) quintuples. */
  recover: RecoverRequest | null;
}

export interface RecoverRequest {
  control: File;
  blocks: number[];
}

export interface PageRequest {
  type: 'page';
  job: number;
  /** The scan's job. */
  scan: number;
  image: number;
}

/** The page the scan `scan` rebuilt for entry `index` of its `recovered` list. */
export interface RecoveredPageRequest {
  type: 'recovered';
  job: number;
  scan: number;
  index: number;
}

/** `drop`: the scan `job` is no longer needed; its scanner is freed. */
export type ToWal = ScanRequest | PageRequest | RecoveredPageRequest | { type: 'drop'; job: number };

export type FromWal =
  | { type: 'progress'; job: number; bytesDone: number; bytesTotal: number }
  | {
      type: 'scanned';
      job: number;
      order: string[];
      blocks: WalBlock[];
      problems: WalProblem[];
      summary: WalSummary;
      /** The blocks rebuilt, when a `recover` was asked for and pg_control allowed it. */
      recovered: WalRecovered[];
      /** Why nothing was rebuilt (the core's refusal of pg_control), null otherwise. */
      recoverRefused: string | null;
      ms: number;
    }
  | { type: 'page'; job: number; page: Uint8Array }
  | { type: 'error'; job: number; message: string };
