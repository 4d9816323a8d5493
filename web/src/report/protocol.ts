// The report worker's messages: the page hands over the dropped files in chunks (paths
// relative to the data directory), the worker answers with its progress and the core's report.

/** One dropped file, by its path relative to the data directory (or its name, dropped loose). */
export interface ReportFile {
  path: string;
  file: File;
}

export type ToReport =
  /** Some of the files; `last` on the final chunk starts the report. `shown`: how messages
   * name the directory (its name and a `/`, or '' for files dropped loose). */
  { type: 'files'; files: ReportFile[]; last: boolean; shown: string };

export type FromReport =
  | { type: 'progress'; read: number; total: number }
  | { type: 'done'; json: string; markdown: string; damaged: boolean }
  | { type: 'error'; message: string };

/** `report --json` (docs/contracts.md, "report, the incident report"), as the panel reads it. */
export interface ReportJson {
  cluster: { pg_version: number | null; system_identifier: string | null; state: string | null; data_checksums: string; block_size: number | null };
  verdict: string;
  relations: ReportRelation[];
  files: number;
  pages: number;
  notes: { code: string; count: number; message: string }[];
  unknown: string[];
  steps: string[];
}

export interface ReportRelation {
  database: string | null;
  relation: string | null;
  relkind: string | null;
  path: string;
  blocks: ReportBlock[];
}

export type Severity = 'error' | 'warning' | 'note';

export interface ReportBlock {
  block: number;
  file: string;
  block_in_file: number;
  severity: Severity;
  status: string;
  damage: string;
  evidence: string[];
  server: string | null;
  holds_block?: number;
  torn_sectors?: number[];
  bit_flips?: { rank: number; byte: number; bit: number; field: string; structurally_valid: boolean; item?: number; column?: string; stored?: string; flipped?: string; why: string }[];
  rows?: {
    lost: number | null;
    readable: number | null;
    known_from: 'index' | 'header' | 'unknown';
    index?: string;
    keys?: (string | null)[][];
    upper_bound: boolean;
    bound: string | null;
    /** The index entries behind `lost` where a lost row had several (older versions'). */
    index_entries?: number;
    /** Lost keys the index holds more than once. */
    repeated?: { keys: (string | null)[]; entries: number }[];
    /** Tuples the page shows live whose key is live on a sound page too: neither readable nor lost. */
    stale?: number;
    stale_rows?: { keys: (string | null)[]; ctid: string; live_at: string }[];
  };
}
