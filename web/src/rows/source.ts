// Which files a relation's rows are read from, as the page has them: a file of a dropped
// data directory (its catalogs name the relation), or a heap file read with a type list.
import type { FileEntry } from '../files';
import { droppedFiles } from './dropped';
import type { ColumnsFrom, RowsFile } from './protocol';

/** The data directory a file's path is in (the part before `base/`, `global/` or
 * `pg_tblspc/`), when PG_VERSION was dropped with it; null otherwise. */
export function dataDirOf(entry: FileEntry, dropped: readonly RowsFile[]): string | null {
  const m = /^(.*?)(?:base|global|pg_tblspc)\//.exec(entry.path);
  if (!m) return null;
  const root = m[1];
  return dropped.some((f) => f.path === `${root}PG_VERSION`) ? root : null;
}

/** The database oid of a relation file's directory (`base/OID`, `pg_tblspc/T/PG_../OID`). */
export function databaseOidOf(relDir: string | null): number | null {
  const m = /(?:^|\/)(?:base|pg_tblspc\/\d+\/[^/]+)\/(\d+)$/.exec(relDir ?? '');
  return m ? Number(m[1]) : null;
}

/** The files under `root`, with their paths relative to it. */
export function filesUnder(root: string, files: readonly RowsFile[]): RowsFile[] {
  return files.filter((f) => f.path.startsWith(root)).map((f) => ({ path: f.path.slice(root.length), file: f.file }));
}

/** Where the rows of `entry` come from: its catalogs when it is a main-fork file of a
 * dropped data directory, else null (a type list is asked for). */
export function catalogSource(entry: FileEntry, dropped: readonly RowsFile[] = droppedFiles()): { files: RowsFile[]; from: ColumnsFrom } | null {
  const root = dataDirOf(entry, dropped);
  const db = databaseOidOf(entry.relDir);
  if (root === null || db === null || !entry.rel || entry.rel.fork !== 'main') return null;
  return { files: filesUnder(root, dropped), from: { kind: 'catalog', relfilenode: entry.rel.relfilenode, databaseOid: db } };
}

/** A heap file and its other segments (same directory and relfilenode), read with `types`. */
export function typesSource(entry: FileEntry, files: readonly FileEntry[], types: string): { files: RowsFile[]; from: ColumnsFrom } {
  const segments = entry.rel
    ? files.filter((f) => f.rel && f.rel.fork === 'main' && f.rel.relfilenode === entry.rel?.relfilenode && f.relDir === entry.relDir).sort((a, b) => a.segment - b.segment)
    : [entry];
  return {
    files: segments.map((f) => ({ path: f.path, file: f.file })),
    from: { kind: 'types', types, heap: segments.map((f) => f.path), blockSize: entry.blockSize ?? 8192, bigEndian: entry.bigEndian ?? false },
  };
}
