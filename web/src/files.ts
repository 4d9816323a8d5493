// The loaded files and what verification found, as the page keeps them.
import { isSkippedDataDirFile, parseRelationFileName, relationDirectory, type Fork, type RelationName } from './lib/filename';
import { emptyCounts, type StatusCounts } from './lib/status';
import type { ProblemPage } from './worker/protocol';

export type FileState = 'queued' | 'running' | 'done' | 'error' | 'cancelled';

export interface FileEntry {
  id: number;
  file: File;
  name: string;
  /** Relative path when a folder was chosen or dropped, else the name. */
  path: string;
  rel: RelationName | null;
  relDir: string | null;
  segment: number;
  fork: Fork;
  state: FileState;
  blockSize: number | null;
  /** No sane header at the file's start: 8 kB pages assumed, as pg_checksums does. */
  blockSizeAssumed: boolean;
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
}

let nextId = 1;

export function newEntry(file: File, path: string): FileEntry {
  const rel = parseRelationFileName(file.name);
  return {
    id: nextId++,
    file,
    name: file.name,
    path,
    rel,
    relDir: relationDirectory(path),
    segment: rel?.segment ?? 0,
    fork: rel?.fork ?? 'main',
    state: 'queued',
    blockSize: null,
    blockSizeAssumed: false,
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
  };
}

/** Which of a folder's files to verify: relation files, minus pg_checksums' skip list. */
export function keepFromFolder(path: string, name: string): boolean {
  return parseRelationFileName(name) !== null && !isSkippedDataDirFile(path);
}

export type SummaryState = 'idle' | 'running' | 'done' | 'error';

export function summaryState(files: FileEntry[]): SummaryState {
  if (files.length === 0) return 'idle';
  if (files.some((f) => f.state === 'queued' || f.state === 'running')) return 'running';
  if (files.every((f) => f.state === 'error')) return 'error';
  return 'done';
}
