// The one typed message module between the page and the rows worker.
import type { ColumnInfo, RowsFormat, Salvage } from './drive';

/** A file the worker may read, by its path relative to the data directory (or its name). */
export interface RowsFile {
  path: string;
  file: File;
}

/** Where a relation's columns come from: its data directory's catalogs (the relation found
 * by its file's relfilenode in its database), or a type list as `pg_filedump -D` takes it. */
export type ColumnsFrom =
  | { kind: 'catalog'; relfilenode: number; databaseOid: number }
  | { kind: 'types'; types: string; heap: string[]; blockSize: number; bigEndian: boolean };

export interface OpenRequest {
  type: 'open';
  job: number;
  files: RowsFile[];
  from: ColumnsFrom;
}

/** One tuple's columns, for the page view. */
export interface TupleRequest {
  type: 'tuple';
  job: number;
  files: RowsFile[];
  from: ColumnsFrom;
  page: Uint8Array;
  lp: number;
}

export interface ExportRequest {
  type: 'export';
  job: number;
  files: RowsFile[];
  from: ColumnsFrom;
  format: RowsFormat;
}

export type ToRows = OpenRequest | TupleRequest | ExportRequest;

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

/** A run of rows, each its columns' texts (null for NULL), and the salvage so far. */
export interface RowsMessage {
  type: 'rows';
  job: number;
  rows: (string | null)[][];
  salvage: Salvage;
}

export interface DoneMessage {
  type: 'done';
  job: number;
  salvage: Salvage;
}

export interface TupleMessage {
  type: 'tuple';
  job: number;
  columns: { name: string; type: string; value: string | null }[];
  problem: { message: string; attnum: number | null } | null;
  note: string | null;
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

export type FromRows = OpenedMessage | RowsMessage | DoneMessage | TupleMessage | ExportedMessage | ErrorMessage;
