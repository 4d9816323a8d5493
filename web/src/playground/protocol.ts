// The one typed message module between the playground and its PGlite worker.
import type { AskPage } from './ask';
import type { PlayRelation } from './relations';

/** The worker's first message: starts a fresh server, or one from a saved data directory
 * (`dumpDataDir()`'s tarball). */
export interface StartPlay {
  type: 'start';
  job: typeof START_JOB;
  saved: Blob | null;
}

export type ToPlay =
  /** Runs SQL (one or more statements, simple query protocol), then CHECKPOINT and reads
   * every relation's files; `snapshot` false for a bare statement (the one that waits for a
   * restarted server). */
  | { type: 'run'; job: number; sql: string; snapshot: boolean }
  /** Saves the data directory ('saved'), for a cancel of the next statement to start from. */
  | { type: 'save'; job: number }
  /** pageinspect's answer for one page's bytes: every function of its access method (ask.ts). */
  | { type: 'ask'; job: number; page: Uint8Array; question: AskPage }
  /** Writes a page into a relation file and evicts the relation from shared buffers, so the
   * next read is the file's (the corruption lesson). */
  | { type: 'write'; job: number; path: string; block: number; page: Uint8Array };

export interface ServerError {
  message: string;
  /** SQLSTATE. */
  code?: string;
  severity?: string;
  detail?: string;
  hint?: string;
  /** 1-based character position in the SQL. */
  position?: number;
}

export interface ResultSet {
  fields: string[];
  /** At most MAX_ROWS rows, as text. */
  rows: string[][];
  /** All the rows the statement returned or changed. */
  rowCount: number;
  command: string;
}

/** One file of the snapshot: its bytes only when they changed since the previous one. */
export interface SnapFileMsg {
  relation: PlayRelation;
  fork: 'main' | 'fsm' | 'vm';
  path: string;
  size: number;
  bytes: Uint8Array<ArrayBuffer> | null;
  /** The blocks that differ from the previous snapshot's copy (every block of a new file). */
  changedBlocks: number[];
}

export type StartPhase = 'download' | 'extensions';

/** The server's start: its progress, `ready` and `fatal` answer as this job. */
export const START_JOB = 0;

export type FromPlay =
  | { type: 'progress'; job: number; phase: StartPhase; received: number; total: number }
  | { type: 'ready'; job: number; version: string }
  | { type: 'fatal'; job: number; message: string }
  | {
      type: 'result';
      job: number;
      results: ResultSet[];
      error: ServerError | null;
      notices: string[];
      /** null when no snapshot was asked for, or the catalog could not be read (an aborted
       * transaction block reads nothing until ROLLBACK). */
      files: SnapFileMsg[] | null;
      /** Why there are no files, when there are none. */
      snapshotNote: string | null;
      ms: number;
    }
  /** The data directory after the run `job` (sent after its result), or why there is none. */
  | { type: 'saved'; job: number; dump: Blob | null; error?: string }
  | { type: 'ask'; job: number; answer: Record<string, unknown> | null; error: string | null }
  | { type: 'written'; job: number; error: string | null };

export const MAX_ROWS = 100;
