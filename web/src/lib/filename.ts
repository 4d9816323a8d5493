// Relation file names as md.c and relpath.c write them: `RELFILENODE[_FORK][.SEGNO]`.
// The segment number feeds the checksum's relation-wide block number; the fork picks the
// page kind (fsm and vm pages have no line pointers).

export const FORKS = ['main', 'fsm', 'vm', 'init'] as const;
export type Fork = (typeof FORKS)[number];

export interface RelationName {
  relfilenode: number;
  fork: Fork;
  segment: number;
}

const RELATION_FILE = /^(\d+)(?:_(fsm|vm|init))?(?:\.(\d+))?$/;

/** Parses a relation file's base name; null when it is not one (pg_control, PG_VERSION, ...). */
export function parseRelationFileName(name: string): RelationName | null {
  const base = name.split(/[\\/]/).pop() ?? name;
  const m = RELATION_FILE.exec(base);
  if (!m) return null;
  const relfilenode = Number(m[1]);
  const segment = m[3] === undefined ? 0 : Number(m[3]);
  // Oids and segment numbers are 32-bit; the `.0` suffix is never written by the server.
  // `.02` reads as segment 2, as pg_checksums' atoi() and the core read it.
  if (relfilenode === 0 || relfilenode > 0xffffffff || segment > 0xffffffff) return null;
  if (m[3] !== undefined && segment === 0) return null;
  return { relfilenode, fork: (m[2] as Fork | undefined) ?? 'main', segment };
}

/** The database directory part of a relative path (`base/16384/16385` -> `base/16384`). */
export function relationDirectory(path: string): string | null {
  const m = /(?:^|\/)(base\/\d+|global|pg_tblspc\/\d+\/[^/]+\/\d+)\/[^/]+$/.exec(path);
  return m ? m[1] : null;
}

/** Files a data-directory drop holds that are not relation files (pg_checksums' skip list). */
export function isSkippedDataDirFile(name: string): boolean {
  const base = name.split('/').pop() ?? name;
  return (
    base === 'pg_control' ||
    base === 'pg_filenode.map' ||
    base.startsWith('pg_internal.init') ||
    base === 'PG_VERSION' ||
    base.startsWith('pgsql_tmp') ||
    /^t\d+_/.test(base)
  );
}
