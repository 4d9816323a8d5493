// The report worker's messages: the page hands over the dropped files in chunks (paths
// relative to the data directory), the worker answers with its progress and the core's report.
import type { ReportJson } from '../core';

/** One dropped file, by its path relative to the data directory (or its name, dropped loose). */
export interface ReportFile {
  path: string;
  file: File;
  /** A file of the base backup the damaged blocks' pages are held against (`report --from`),
   * by its path relative to the backup's data directory. */
  backup?: boolean;
  /** A WAL segment or history file dropped outside any data directory (an archive), read with
   * the directory's own pg_wal as `pgpage report --wal ARCHIVE DIR` reads it. */
  wal?: boolean;
}

export type ToReport =
  /** Some of the files; `last` on the final chunk starts the report. `shown`: how messages
   * name the directory (its name and a `/`, or '' for files dropped loose); `backup` how they
   * name the base backup's directory, when its files are among them. */
  { type: 'files'; job: number; files: ReportFile[]; last: boolean; shown: string; backup?: string };

export type FromReport =
  | { type: 'progress'; job: number; read: number; total: number }
  /** `effects`: the core's words for each row effect a WAL record after an image names. */
  | {
      type: 'done';
      job: number;
      report: ReportJson;
      /** The same report without row data (`report --json --redact`), for the exports. */
      redacted: ReportJson;
      markdown: string;
      markdownRedacted: string;
      /** `report --summary`, and with `--redact`: a few lines for a mailing-list post. */
      summary: string;
      summaryRedacted: string;
      damaged: boolean;
      storage: string | null;
      effects: Record<string, string>;
      /** The core's hints for reading each damaged relation's rows, JSON by relation path. */
      rowHints: string;
    }
  | { type: 'error'; job: number; message: string };

export type { ReportBlock, ReportJson, ReportRelation, Severity } from '../core';
