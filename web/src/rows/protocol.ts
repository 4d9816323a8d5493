// The one typed message module between the page and the rows worker.
import type { TupleShown } from '../core';
import type { ColumnInfo, RowsFormat, Salvage } from './drive';

/** Where a relation's columns come from: its data directory's catalogs (the relation found
 * by its file's relfilenode in its database), or a type list as `pg_filedump -D` takes it. */
export type ColumnsFrom =
  { kind: 'catalog'; relfilenode: number; databaseOid: number } | { kind: 'types'; types: string; heap: string[]; blockSize: number; bigEndian: boolean };

/** A worker serves one relation (web/src/rows/pool.ts): `paths` (every file it may ask
 * for, relative to the data directory) comes with its first request only, and the
 * relation's catalogs, transaction log and TOAST chunk index are kept for the next. */
interface RelationRequest {
  job: number;
  paths?: string[];
  from: ColumnsFrom;
  /** The incident report's row hints of the data directory (JSON by relation path), once
   * its report is done: a damaged page's rows are read through them. */
  hints?: string;
}

export interface OpenRequest extends RelationRequest {
  type: 'open';
  /** Every tuple version, led by ctid, xmin, xmax and state (`--all-versions`). */
  allVersions: boolean;
  /** The rows of pages whose checksum fails but that read as the server reads them under ignore_checksum_failure (`--include-damaged`). */
  includeDamaged: boolean;
}

/** One tuple's columns, for the page view. */
export interface TupleRequest extends RelationRequest {
  type: 'tuple';
  page: Uint8Array;
  lp: number;
}

export interface ExportRequest extends RelationRequest {
  type: 'export';
  format: RowsFormat;
  allVersions: boolean;
  includeDamaged: boolean;
  /** COPY's HEADER line first (`--header`). */
  header: boolean;
}

export type ToRows = OpenRequest | TupleRequest | ExportRequest;

/** The page's answer to a `WantMessage`: each file asked for, null when it has none. */
export interface FilesMessage {
  type: 'files';
  job: number;
  files: { path: string; file: File | null }[];
}

export type ToRowsWorker = ToRows | FilesMessage;

/** The worker asks for the files it is about to read (the catalogs' rounds, then the
 * relation's segments and TOAST segments); answered with a `FilesMessage`. */
export interface WantMessage {
  type: 'want';
  job: number;
  paths: string[];
}

/** The relation as found: its name and columns. */
export interface OpenedMessage {
  type: 'opened';
  job: number;
  title: string;
  columns: ColumnInfo[];
}

/** Rows the view holds at most (the rest are counted, and exported): a page keeps a few
 * hundred MB at most, whatever the table's size. */
export const SHOWN_MAX = 200_000;

/** How far a read is: counts only (the lists of what was lost come with the end). */
export interface Progress {
  rows: number;
  pagesRead: number;
  /** Pages the rows came from: read and not left out whole. */
  pagesGiven: number;
  pagesTotal: number;
  pagesLost: number;
}

/** Rows for the view as COPY text lines in UTF-8 (one transferred buffer: ~15,000 arrays
 * of cells cost the page tens of ms to clone, and strings of MBs a copy each and long
 * major GCs), `starts` the offset of each line in `bytes` (the view decodes and splits
 * only the rows it draws), and the progress. */
export interface RowsMessage {
  type: 'rows';
  job: number;
  bytes: Uint8Array;
  starts: Uint32Array;
  progress: Progress;
}

/** An export's progress. */
export interface ProgressMessage {
  type: 'progress';
  job: number;
  progress: Progress;
}

export interface DoneMessage {
  type: 'done';
  job: number;
  salvage: Salvage;
}

export interface TupleMessage {
  type: 'tuple';
  job: number;
  columns: TupleShown['columns'];
  problem: TupleShown['problem'];
  note: TupleShown['note'];
}

/** An export made: the rows as a Blob. A Blob URL belongs to the context that made it and
 * dies with it, so the page, not the worker (terminated once it answers), makes the URLs. */
export interface ExportedMessage {
  type: 'exported';
  job: number;
  blob: Blob;
  summary: string;
  salvage: Salvage;
}

export interface ErrorMessage {
  type: 'error';
  job: number;
  message: string;
}

export type FromRows = WantMessage | OpenedMessage | RowsMessage | ProgressMessage | DoneMessage | TupleMessage | ExportedMessage | ErrorMessage;
