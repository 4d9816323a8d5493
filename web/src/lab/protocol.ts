// The one typed message module between the page and the checksum lab's worker.
import type { ExperimentSpec, Tally } from './experiment';

export interface ExperimentRequest {
  type: 'experiment';
  job: number;
  /** A copy of the page (the file's, or the lab's edited copy). */
  page: Uint8Array;
  absoluteBlock: number;
  bigEndian: boolean;
  spec: ExperimentSpec;
}

export interface BenchRequest {
  type: 'bench';
  job: number;
  /** Bytes of pages to checksum per round. */
  bytes: number;
  blockSize: number;
}

/** Experiments stop between batches until resumed (or cancelled); a job sent while paused
 * starts paused, before its first trial. Pausing is the worker's, not a job's: `job` is a
 * number of its own. A job is cancelled with the bridge's `cancel` message. */
export type PauseRequest = { type: 'pause'; job: number } | { type: 'resume'; job: number };

export type ToLab = ExperimentRequest | BenchRequest | PauseRequest;

export type BuildName = 'simd128' | 'scalar';

export interface BenchRow {
  build: BuildName;
  /** null when this browser cannot run the build (no wasm SIMD). */
  nsPerPage: number | null;
  error?: string;
}

export type FromLab =
  | { type: 'progress'; job: number; tally: Tally; total: number }
  | { type: 'done'; job: number; tally: Tally; total: number; elapsedMs: number }
  | { type: 'bench'; job: number; rows: BenchRow[]; pages: number; blockSize: number }
  | { type: 'paused'; job: number; tally: Tally; total: number }
  | { type: 'error'; job: number; message: string }
  | { type: 'cancelled'; job: number };
