// The core's JSON that the Rust side builds without a struct of its own (serde_json::json!, a
// Value it edits, a hand-written Serialize), so the ts_export test cannot generate its type:
// the one TypeScript copy of each, here beside the door that parses it.
import type { StatusCounts } from '../lib/status';
import type { Chance, ChecksumCounts, FileFinding } from '../worker/protocol';
import type { FieldFix, NotTuple } from './generated';

/** `FileVerdictJs.json`: what the verdict of a file says beside its typed arrays. */
export interface FileVerdictDetails {
  checksums_disabled: boolean;
  checksums_in_progress: boolean;
  checksum_counts: ChecksumCounts;
  problem: boolean;
  counts: StatusCounts;
  /** [status, status it is judged as] where the file's state changes a page's status. */
  remap: [number, number][];
  findings: FileFinding[];
  structure_unlisted: number;
  chance: Chance | null;
}

/** `decode_control`: `pgpage control --json`'s object (pg_control_*() columns, `state`,
 * `crc_ok`, ...) with `releases` and `text`; keys differ by pg_control version. */
export type ControlJson = Record<string, unknown>;

/** `ReportReader.wanted`: the byte ranges of dropped files the report reads next. */
export interface ReportWanted {
  path: string;
  offset: number;
  len: number;
}

/** `DecodedPageJs.json`: `pgpage inspect --json`'s block, pageinspect's columns. */
export interface DecodedColumns {
  kind: string;
  /** False when the header and line pointers are not a PostgreSQL page's: `items` are what pd_lower of noise counts, and the number of tuples is unknown from the page. */
  items_counted: boolean;
  header: Record<string, string | number>;
  flag_names: string[];
  items: Record<string, unknown>[];
  special: Record<string, unknown> | null;
  /** The heap items whose bytes verify_heapam takes for no tuple: their header columns are other bytes. */
  not_tuples: NotTuple[];
}

/** CONTRACTS.md `report --json`, as the panel reads it. */
export interface ReportJson {
  cluster: { pg_version: number | null; system_identifier: string | null; state: string | null; data_checksums: string; block_size: number | null };
  verdict: string;
  relations: ReportRelation[];
  files: number;
  pages: number;
  notes: { code: string; count: number; message: string }[];
  unknown: string[];
  /** Visibility-map and free-space-map pages the server zeroes as it reads them. */
  map_pages?: ReportMapPage[];
  /** Indexes the catalogs list whose file is gone: every query that opens one fails. */
  missing_indexes?: { index: string; sql_index: string; table: string; line: string }[];
  /** Unique indexes whose key more than one visible row holds: their REINDEX fails. */
  duplicate_keys?: { index: string; sql_index: string; table: string; sql_table: string; tids: string[][]; more: number; line: string }[];
  steps: string[];
  /** WAL was read for the damaged blocks (`report --wal`). */
  wal_searched?: boolean;
  /** Rows on pages that verify held against their tables' B-tree indexes, and the indexes. */
  rows_held?: number;
  indexes_held?: number;
}

export interface ReportMapPage {
  relation?: string;
  file: string;
  fork: 'vm' | 'fsm';
  block: number;
  status: string;
  server: string;
  /** The page in one sentence, the core's. */
  line: string;
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
  /** An error the server raises none for: what it does instead, in a few words. */
  silent?: string;
  holds_block?: number;
  /** The one way the core's steps recommend for the block (`Route` in the core). */
  route:
    | 'reindex'
    | 'confirmed_flip'
    | 'confirmed_field'
    | 'recover'
    | 'backup_same'
    | 'flip'
    | 'field'
    | 'torn_whole'
    | 'backup_older'
    | 'key'
    | 'key_reindex'
    | 'key_older'
    | 'none';
  /** The block in one line: what happened, its rows, the way back. */
  headline: string;
  /** `header_field`: the one wrong header field, as stored, and the value to set back. */
  header_field?: FieldFix;
  /** `key_mismatch`: each row whose key an index does not hold at its TID (`root`: its HOT
   * chain's root, the TID the entry names; `index_keys` empty: no entry there). */
  key_mismatches?: {
    index: string;
    sql_index: string;
    lp: number;
    root: number;
    keys: (string | null)[];
    columns: string[];
    index_keys: (string | null)[][];
    twins: string[];
    unique: boolean;
  }[];
  /** `overwritten` over part of a page whose header is sane: the runs of random bytes, page offsets. */
  noise?: { start: number; end: number }[];
  torn_sectors?: number[];
  /** Line pointers in those sectors that count as older versions of their rows. */
  torn_items?: number[];
  /** Rows the older write holds at another place (the page was compacted between writes). */
  torn_moved?: { lp: number; lp_off: number; at_lp?: number }[];
  /** HOT chain roots in the older sectors and the heap-only tuple each should redirect to. */
  torn_newest?: [number, number][];
  /** A page whose header is the older write: the newer write's line pointers, rebuilt from its tuples. */
  torn_rebuilt?: { lp: number; lp_off: number; lp_flags: number; lp_len: number }[];
  /** Why pgpage repair --torn cannot rebuild the page; absent when it can. */
  torn_refused?: string;
  /** With WAL read: the block's newest full-page image, the records after it, what restoring it loses. */
  wal_image?: {
    lsn: string;
    records_after: number;
    later: { lsn: string; record: string; effect: string }[];
    /** The records after the image by kind, counted: `10 x Heap/HOT_UPDATE (changes rows)`. */
    kinds: string[];
    restoring: string;
    /** No image: the record at `lsn` builds the page from nothing (replay starts there). */
    init?: boolean;
  };
  bit_flips?: {
    rank: number;
    byte: number;
    bit: number;
    field: string;
    structurally_valid: boolean;
    item?: number;
    column?: string;
    stored?: string;
    flipped?: string;
    why: string;
  }[];
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
    /** Entries into a page that gives no rows whose key is live on a sound page: rows updated since, not lost. */
    elsewhere?: { keys: (string | null)[]; ctid: string; live_at: string }[];
  };
}
