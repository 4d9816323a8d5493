// Which files a relation's rows are read from, as the page has them: a file of a dropped
// data directory (its catalogs name the relation), or a heap file read with a type list.
// The worker is told the paths and asks for the Files it reads (a few), so the page never
// clones a data directory's thousands of File handles.
import type { FileEntry } from '../files';
import { droppedFile, droppedPathsUnder } from './dropped';
import { rowHintsOf } from './hints';
import type { ColumnsFrom } from './protocol';

/** A relation's files as the page gives them to its worker. */
export interface RelationFiles {
  /** Which relation of which drop: a worker that served the same key has its catalogs. */
  key: string;
  from: ColumnsFrom;
  /** Every path the worker may ask for (relative to the data directory). */
  paths(): string[];
  file(path: string): File | undefined;
  /** The data directory's incident report's row hints, when it is done. */
  hints?(): string | undefined;
}

const fileIds = new WeakMap<File, number>();
let nextFileId = 1;
/** A number per File handle: a folder dropped again is new handles, so new keys. */
function fileId(f: File | undefined): number {
  if (!f) return 0;
  let id = fileIds.get(f);
  if (id === undefined) {
    id = nextFileId++;
    fileIds.set(f, id);
  }
  return id;
}

/** The data directory a file's path is in (the part before `base/`, `global/` or
 * `pg_tblspc/`), when PG_VERSION was dropped with it; null otherwise. */
export function dataDirOf(entry: FileEntry, file: (path: string) => File | undefined = droppedFile): string | null {
  const m = /^(.*?)(?:base|global|pg_tblspc)\//.exec(entry.path);
  if (!m) return null;
  const root = m[1];
  return file(`${root}PG_VERSION`) ? root : null;
}

/** The database oid of a relation file's directory (`base/OID`, `pg_tblspc/T/PG_../OID`). */
export function databaseOidOf(relDir: string | null): number | null {
  const m = /(?:^|\/)(?:base|pg_tblspc\/\d+\/[^/]+)\/(\d+)$/.exec(relDir ?? '');
  return m ? Number(m[1]) : null;
}

/** Where the rows of `entry` come from: its catalogs when it is a main-fork file of a
 * dropped data directory, else null (a type list is asked for). */
export function catalogSource(entry: FileEntry): RelationFiles | null {
  const root = dataDirOf(entry);
  const db = databaseOidOf(entry.relDir);
  if (root === null || db === null || !entry.rel || entry.rel.fork !== 'main') return null;
  const from: ColumnsFrom = { kind: 'catalog', relfilenode: entry.rel.relfilenode, databaseOid: db };
  return {
    key: `${JSON.stringify(from)}|${root}|${fileId(droppedFile(`${root}PG_VERSION`))}`,
    from,
    paths: () => droppedPathsUnder(root),
    file: (p) => droppedFile(root + p),
    hints: () => rowHintsOf(root),
  };
}

/** A heap file and its other segments (same directory and relfilenode), read with `types`. */
export function typesSource(entry: FileEntry, files: readonly FileEntry[], types: string): RelationFiles {
  const segments = entry.rel
    ? files
        .filter((f) => f.rel && f.rel.fork === 'main' && f.rel.relfilenode === entry.rel?.relfilenode && f.relDir === entry.relDir)
        .sort((a, b) => a.segment - b.segment)
    : [entry];
  const byPath = new Map(segments.map((f) => [f.path, f.file]));
  const from: ColumnsFrom = {
    kind: 'types',
    types,
    heap: segments.map((f) => f.path),
    blockSize: entry.blockSize ?? 8192,
    bigEndian: entry.bigEndian ?? false,
  };
  return {
    key: `${JSON.stringify(from)}|${fileId(segments[0]?.file)}|${fileId(segments[segments.length - 1]?.file)}`,
    from,
    paths: () => [...byPath.keys()],
    file: (p) => byPath.get(p),
  };
}
