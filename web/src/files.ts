// The loaded files and what verification found, as the page keeps them.
import { DETECT, type GeometryChoice } from './lib/geometry';
import { emptyCounts, type StatusCounts } from './lib/status';
import type { Naming } from './app/catalog';
import { relationFileName, type Wasm } from './core';
import type { Chance, ChecksumCounts, ChecksumsCode, FileFinding, PageFinding, ProblemPage, StructureRef } from './worker/protocol';

/** The forks a relation file can hold (the fork picks how pages decode). */
export const FORKS = ['main', 'fsm', 'vm', 'init'] as const;
export type Fork = (typeof FORKS)[number];

/** What a relation file's name says, as the core parses it. */
export interface RelationName {
  relfilenode: number;
  fork: Fork;
  segment: number;
}

/** A file's name and path as the core reads them. */
export interface FileNames {
  rel: RelationName | null;
  /** The database directory of its path (`base/16384`), null for none. */
  relDir: string | null;
}

export const NO_NAMES: FileNames = { rel: null, relDir: null };

export function namesOf(w: Wasm, path: string): FileNames {
  const n = relationFileName(w, path) ?? null;
  return { rel: n && { relfilenode: n.relfilenode, fork: n.fork, segment: n.segno }, relDir: w.relation_directory(path) ?? null };
}

export type FileState = 'queued' | 'running' | 'done' | 'error' | 'cancelled';

export interface FileEntry {
  id: number;
  /** The id of the file's first copy: a new copy of the same file (the playground's snapshot
   * after a statement) keeps it, so the page view stays mounted and only re-reads its page. */
  lineage: number;
  file: File;
  /** file.size, read once when first needed: for files of a chosen folder Chromium asks the
   * disk at each read of it (0.3 ms each). */
  readonly size: number;
  name: string;
  /** Relative path when a folder was chosen or dropped, else the name. */
  path: string;
  rel: RelationName | null;
  relDir: string | null;
  /** The relation its data directory's catalogs say it is; null until they are read, or
   * when there are none (files dropped loose, catalogs that could not be read). */
  naming: Naming | null;
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
  /** The pages the core's verdict lists (problem pages and pages with a finding), in block order. */
  problems: ProblemPage[];
  /** The verdict's findings about the whole file (a short read, checksums off, a misnamed segment). */
  findings: FileFinding[];
  /** What the relation's `_vm` and `_fsm`, dropped beside it, and the structural checks
   * (amcheck's per-page checks) say of its pages (the server reads these pages: they are no
   * problem pages). */
  pageFindings: PageFinding[];
  /** What the structural checks knew when the file was handed to a worker (null: none ran,
   * a map fork; `set` null: its pages' own checks). */
  structure: StructureRef | null;
  /** Pages with amcheck's findings alone past the first 1000: counted, not listed. */
  amcheckUnlisted: number;
  /** The odds of a bare checksum match, when some page has a candidate block. */
  chance: Chance | null;
  /** The verdict: the server would fail to read some block of the file. */
  problem: boolean;
  /** What pg_control beside the file says of data checksums (0: nothing known). */
  checksums: ChecksumsCode;
  /** Its cluster's PostgreSQL major version (PG_VERSION beside pg_control), null when unknown. */
  pgVersion: number | null;
  bytesDone: number;
  message: string | null;
  checksumsDisabled: boolean;
  /** The cluster is changing its checksums (PostgreSQL 19): none is verified, and
   * `checksumCounts` says how many pages carry a valid one. */
  checksumsInProgress: boolean;
  checksumCounts: ChecksumCounts | null;
  startedAt: number;
  elapsedMs: number;
  /** Bumped whenever the worker's news changes the entry in place (its row re-renders then). */
  version: number;
}

let nextId = 1;

export function newEntry(
  file: File,
  path: string,
  choice: GeometryChoice = DETECT,
  names: FileNames = NO_NAMES,
  checksums: ChecksumsCode = 0,
  pgVersion: number | null = null,
): FileEntry {
  const { rel, relDir } = names;
  let size: number | undefined;
  const id = nextId++;
  return {
    id,
    lineage: id,
    file,
    // Read when first needed, not for hundreds of files in the task that adds them.
    get size(): number {
      size ??= file.size;
      return size;
    },
    name: file.name,
    path,
    rel,
    relDir,
    naming: null,
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
    findings: [],
    pageFindings: [],
    structure: null,
    amcheckUnlisted: 0,
    chance: null,
    problem: false,
    checksums,
    pgVersion,
    bytesDone: 0,
    message: null,
    checksumsDisabled: false,
    checksumsInProgress: false,
    checksumCounts: null,
    startedAt: 0,
    elapsedMs: 0,
    version: 0,
  };
}

export type SummaryState = 'idle' | 'running' | 'done' | 'error';

export function summaryState(files: FileEntry[]): SummaryState {
  if (files.length === 0) return 'idle';
  if (files.some((f) => f.state === 'queued' || f.state === 'running')) return 'running';
  if (files.every((f) => f.state === 'error')) return 'error';
  return 'done';
}

/** The directory part of a dropped path ('' for a file dropped loose). */
const dirOf = (path: string): string => path.slice(0, path.lastIndexOf('/') + 1);

/** The `_vm` and `_fsm` dropped with a heap's main-fork file: same directory, same
 * relfilenode, their first segment (the maps of any but a huge relation). */
export function mapsOf(f: FileEntry, files: readonly FileEntry[]): { vm?: File; fsm?: File } | undefined {
  if (!f.rel || f.rel.fork !== 'main') return undefined;
  const maps = mapIndex(files);
  const key = (fork: Fork) => `${dirOf(f.path)}\0${f.rel?.relfilenode}\0${fork}`;
  const vm = maps.get(key('vm'));
  const fsm = maps.get(key('fsm'));
  return vm || fsm ? { vm, fsm } : undefined;
}

/** Each list's map forks by directory, relfilenode and fork, the first one dropped kept: a
 * data directory's every main fork asks for its maps, and a search of the whole list each
 * time held the main thread for 100 ms and more on a second drop of 1,000 files. */
const mapIndexes = new WeakMap<readonly FileEntry[], Map<string, File>>();
function mapIndex(files: readonly FileEntry[]): Map<string, File> {
  let m = mapIndexes.get(files);
  if (m) return m;
  m = new Map();
  for (const x of files) {
    if (x.rel === null || x.rel.segment !== 0 || (x.rel.fork !== 'vm' && x.rel.fork !== 'fsm')) continue;
    const k = `${dirOf(x.path)}\0${x.rel.relfilenode}\0${x.rel.fork}`;
    if (!m.has(k)) m.set(k, x.file);
  }
  mapIndexes.set(files, m);
  return m;
}

/** What the structural checks are given for `f` (amcheck's per-page checks, as `pgpage
 * verify --amcheck` runs them): a main-fork file its data directory's catalogs name gets its
 * relation's hints; any other main-fork file its pages' own checks; a map fork none. */
export function structureFor(f: FileEntry): StructureRef | undefined {
  if ((f.rel?.fork ?? 'main') !== 'main') return undefined;
  const n = f.naming;
  const hints = n?.catalog.hints;
  return hints && n.relation ? { set: hints.set, entry: n.relation.index } : { set: null };
}
