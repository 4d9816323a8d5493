// The one typed message module between the page and the WAL worker: a scan of WAL segment
// files for the full-page images of chosen blocks, and a page restored from one of them.

/** A record that touched a block, as `WalScanner.blocks_json` lists it. */
export interface WalTouch {
  lsn: string;
  rmgr: string;
  /** pg_waldump's record type (pg_walinspect's `record_type`) in the WAL's version. */
  record_type: string;
  image: boolean;
  will_init: boolean;
}

/** A watched block seen in the WAL: its newest image and the records after it. */
export interface WalBlock {
  tablespace_oid: number;
  database_oid: number;
  relfilenode: number;
  fork: string;
  block: number;
  /** Index of the image for a `page` request, null when the WAL holds none of this block. */
  image: number | null;
  image_record: WalTouch | null;
  image_end_lsn: string | null;
  records_after: WalTouch[];
}

/** A problem the reader met, named by its finding (`WalScanner.problems_json`). */
export interface WalProblem {
  code: string;
  evidence: string;
  /** Index into the scan's segments, in reading order; null for what planning found (a
   * history file missing or refused, a segment of an abandoned branch), named in the message. */
  segment: number | null;
  lsn: string | null;
  message: string;
}

export interface WalSummary {
  version: number | null;
  system_identifier: string | null;
  segment_size: number | null;
  segments: number;
  records: number;
  end_lsn: string | null;
}

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

export type ToWal = ScanRequest | PageRequest | { type: 'drop'; scan: number };

export type FromWal =
  | { type: 'progress'; job: number; bytesDone: number; bytesTotal: number }
  | { type: 'scanned'; job: number; order: string[]; blocks: WalBlock[]; problems: WalProblem[]; summary: WalSummary; ms: number }
  | { type: 'page'; job: number; page: Uint8Array }
  | { type: 'error'; job: number; message: string };
