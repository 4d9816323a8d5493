// The loaded files and what verification found, as the page keeps them.
import { DETECT, type GeometryChoice } from './lib/geometry';
import { isSkippedDataDirFile, parseRelationFileName, relationDirectory, type Fork, type RelationName } from './lib/filename';
import { emptyCounts, type StatusCounts } from './lib/status';
import type { ProblemPage } from './worker/protocol';

export type FileState = 'queued' | 'running' | 'done' | 'error' | 'cancelled';

export interface FileEntry {
  id: number;
  file: File;
  /** file.size, read once when first needed: for files of a chosen folder Chromium asks the
   * disk at each read of it (0.3 ms each). */
  readonly size: number;
  name: string;
  /** Relative path when a folder was chosen or dropped, else the name. */
  path: string;
  rel: RelationName | null;
  relDir: string | null;
  segment: number;
  fork: Fork;
  state: FileState;
  /** Block size and byte order as the user chose them for this file (or all files). */
  choice: GeometryChoice;
  /** As the verify worker settled them from the choice and the file's head; null until then. */
  blockSize: number | null;
  bigEndian: boolean | null;
  /** No sane header at the file's start: 8 kB pages assumed, as pg_checksums does. */
  blockSizeAssumed: boolean;
  /** Big-endian pages found in the head without being told (a big-endian server's files). */
  byteOrderDetected: boolean;
  blocks: number;
  trailingBytes: number;
  trailing: Uint8Array | null;
  statuses: Uint8Array;
  counts: StatusCounts;
  problems: ProblemPage[];
  bytesDone: number;
  message: string | null;
  checksumsDisabled: boolean;
  startedAt: number;
  elapsedMs: number;
  /** Bumped whenever the worker's news changes the entry in place (its row re-renders then). */
  version: number;
}

let nextId = 1;

export function newEntry(file: File, path: string, choice: GeometryChoice = DETECT): FileEntry {
  const rel = parseRelationFileName(file.name);
  let size: number | undefined;
  return {
    id: nextId++,
    file,
    // Read when first needed, not for hundreds of files in the task that adds them.
    get size(): number {
      size ??= file.size;
      return size;
    },
    name: file.name,
    path,
    rel,
    relDir: relationDirectory(path),
    segment: rel?.segment ?? 0,
    fork: rel?.fork ?? 'main',
    state: 'queued',
    choice,
    blockSize: null,
    bigEndian: null,
    blockSizeAssumed: false,
    byteOrderDetected: false,
    blocks: 0,
    trailingBytes: 0,
    trailing: null,
    statuses: new Uint8Array(0),
    counts: emptyCounts(),
    problems: [],
    bytesDone: 0,
    message: null,
    checksumsDisabled: false,
    startedAt: 0,
    elapsedMs: 0,
    version: 0,
  };
}

/**
 * Which of a folder drop's files to verify: relation files, minus pg_checksums' skip list; and
 * in a folder that is a data directory (it holds base/N, global or pg_tblspc files) only those
 * under base/, global/ and pg_tblspc/, the directories pg_checksums scans: pg_xact/0001 or
 * pg_multixact/offsets/0002 are named like relation files but are SLRU segments, not pages.
 */
export function folderFilter(paths: readonly string[]): (path: string) => boolean {
  const root = (p: string) => p.split('/')[0];
  const dataDirs = new Set(paths.filter((p) => relationDirectory(p) !== null).map(root));
  return (path) =>
    parseRelationFileName(path) !== null && !isSkippedDataDirFile(path) && (!dataDirs.has(root(path)) || relationDirectory(path) !== null);
}

export type SummaryState = 'idle' | 'running' | 'done' | 'error';

export function summaryState(files: FileEntry[]): SummaryState {
  if (files.length === 0) return 'idle';
  if (files.some((f) => f.state === 'queued' || f.state === 'running')) return 'running';
  if (files.every((f) => f.state === 'error')) return 'error';
  return 'done';
}

/** Two lists of problem pages, each in block order, as one in block order (the verify
 * worker reads regions of a file at once, so their problems come interleaved). */
export function mergeByBlock(a: ProblemPage[], b: ProblemPage[]): ProblemPage[] {
  if (b.length === 0) return a;
  if (a.length === 0 || a[a.length - 1].block < b[0].block) return a.concat(b);
  const out: ProblemPage[] = new Array<ProblemPage>(a.length + b.length);
  let i = 0;
  let j = 0;
  for (let k = 0; k < out.length; k++) out[k] = j >= b.length || (i < a.length && a[i].block < b[j].block) ? a[i++] : b[j++];
  return out;
}
