// The files table's grouping. Files of a data directory whose catalogs were read go by
// database and relation (`schema.table`, its indexes and TOAST table under it, shared
// catalogs under "shared (global)", files no catalog row claims under "not in pg_class");
// other files by the folder of their dropped path, then by relfilenode (a relation's
// segments and forks), so a data directory of thousands of files reads as its relations.
import type { FileEntry } from '../files';
import { addCounts, emptyCounts, type StatusCounts } from '../lib/status';
import { databaseOf, qualified, type CatalogRelation, type ClusterCatalog } from './catalog';
import { zeroRuns } from './selection';

export interface RelationGroup {
  /** Unique among all groups: folder and relfilenode (or file name), or catalog and relation. */
  key: string;
  /** `schema.name` from the catalog; else the relfilenode, or the file's name when the core
   * read no relation from it. */
  label: string;
  /** In path order: segments and forks. */
  files: FileEntry[];
  /** The catalog's relation, when it names the files. */
  relation: CatalogRelation | null;
  /** How deep it is listed under its table (0 for a table; 1 for its index or TOAST table;
   * 2 for the TOAST table's index). */
  depth: number;
  /** The keys of the groups it is listed under, outermost first. */
  ancestors: string[];
  /** The label of the relation it is listed under (an index's table). */
  parent: string | null;
  /** Files of a data directory whose catalogs were read, but that no pg_class row claims. */
  unclaimed: boolean;
}

export interface FolderGroup {
  /** Unique: the dropped path's folder (`live/base/5`, '' for files chosen one by one), or
   * the data directory and database of a catalog's group. */
  folder: string;
  /** What the row says, when not the folder: `pgdata / postgres`, `pgdata / shared (global)`. */
  title: string | null;
  /** The database's name (or "shared (global)", "not in pg_class") of a catalog's group. */
  database: string | null;
  relations: RelationGroup[];
}

/** The folder part of a dropped path: everything before its last '/'. */
export function folderOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

const byName = new Intl.Collator(undefined, { numeric: true });
export const SHARED = 'shared (global)';
export const NOT_IN_PG_CLASS = 'not in pg_class';

/** Groups files (kept in their order, which is path order): by catalog where one names them,
 * else by folder, then by relation. */
export function groupFiles(files: readonly FileEntry[]): FolderGroup[] {
  const loose: FileEntry[] = [];
  const named = new Map<ClusterCatalog, FileEntry[]>();
  for (const f of files) {
    const c = f.naming?.catalog;
    if (!c || c.state !== 'done') {
      loose.push(f);
      continue;
    }
    let l = named.get(c);
    if (!l) named.set(c, (l = []));
    l.push(f);
  }
  const out: FolderGroup[] = [];
  for (const [c, fs] of named) out.push(...catalogGroups(c, fs));
  out.push(...folderGroups(loose));
  return out;
}

/** By folder, then relfilenode. */
function folderGroups(
  files: readonly FileEntry[],
  keyPrefix = '',
  title: (folder: string) => string | null = () => null,
  database: string | null = null,
): FolderGroup[] {
  const folders = new Map<string, Map<string, RelationGroup>>();
  for (const f of files) {
    const folder = folderOf(f.path);
    let rels = folders.get(folder);
    if (!rels) folders.set(folder, (rels = new Map<string, RelationGroup>()));
    const label = f.rel ? String(f.rel.relfilenode) : f.name;
    const key = `${keyPrefix}${folder}/${f.rel ? label : `:${label}`}`;
    let g = rels.get(key);
    if (!g) rels.set(key, (g = { key, label, files: [], relation: null, depth: 0, ancestors: [], parent: null, unclaimed: false }));
    g.files.push(f);
  }
  return [...folders].map(([folder, rels]) => ({ folder: `${keyPrefix}${folder}`, title: title(folder), database, relations: [...rels.values()] }));
}

/** One data directory's files by database, then relation: tables (users' first) with their
 * TOAST table and indexes under them; the files no catalog row claims last. */
function catalogGroups(c: ClusterCatalog, files: readonly FileEntry[]): FolderGroup[] {
  const rels = c.relations;
  const own = new Map<number, FileEntry[]>();
  const unclaimed: FileEntry[] = [];
  for (const f of files) {
    const r = f.naming?.relation;
    if (!r) {
      unclaimed.push(f);
      continue;
    }
    let l = own.get(r.index);
    if (!l) own.set(r.index, (l = []));
    l.push(f);
  }
  // The relations shown: those with files, and the tables they are listed under.
  const shown = new Set<number>();
  for (const i of own.keys()) {
    for (let r: CatalogRelation | undefined = rels[i]; r && !shown.has(r.index); r = r.parent === null ? undefined : rels[r.parent]) shown.add(r.index);
  }
  const children = new Map<number, CatalogRelation[]>();
  const tops = new Map<string, CatalogRelation[]>();
  const push = <K>(m: Map<K, CatalogRelation[]>, k: K, r: CatalogRelation) => {
    const l = m.get(k);
    if (l) l.push(r);
    else m.set(k, [r]);
  };
  for (const i of shown) {
    const r = rels[i];
    if (r.parent !== null && shown.has(r.parent)) push(children, r.parent, r);
    else push(tops, databaseOf(r), r);
  }
  // A table's TOAST table first, then its indexes; each by name.
  const order = (a: CatalogRelation, b: CatalogRelation) =>
    Number(b.user) - Number(a.user) || Number(b.relkind === 't') - Number(a.relkind === 't') || byName.compare(qualified(a), qualified(b));
  const root = c.root.replace(/\/$/, '');
  const titled = (what: string) => (root ? `${root} / ${what}` : what);
  const databases = [...tops.keys()].sort((a, b) => Number(a === SHARED) - Number(b === SHARED) || byName.compare(a, b));
  const out: FolderGroup[] = [];
  for (const db of databases) {
    const groups: RelationGroup[] = [];
    const walk = (r: CatalogRelation, depth: number, ancestors: string[], parent: string | null) => {
      const key = `${c.root}#${r.index}`;
      groups.push({ key, label: qualified(r), files: own.get(r.index) ?? [], relation: r, depth, ancestors, parent, unclaimed: false });
      for (const ch of (children.get(r.index) ?? []).sort(order)) walk(ch, depth + 1, [...ancestors, key], qualified(r));
    };
    for (const r of (tops.get(db) ?? []).sort(order)) walk(r, 0, [], null);
    out.push({ folder: `${c.root}#db:${db}`, title: titled(db), database: db, relations: groups });
  }
  if (unclaimed.length > 0) {
    // Labelled by their place in the directory: base/5/16999.
    const relations = folderGroups(unclaimed, `${c.root}#unclaimed:`).flatMap((g) =>
      g.relations.map((r) => ({ ...r, unclaimed: true, label: r.files[0].rel ? `${folderOf(r.files[0].path).slice(c.root.length)}/${r.label}` : r.label })),
    );
    out.push({ folder: `${c.root}#unclaimed`, title: titled(NOT_IN_PG_CLASS), database: NOT_IN_PG_CLASS, relations });
  }
  return out;
}

/** A file a DBA must look at: pages the server would refuse, all-zero pages where rows were,
 * a structural finding (amcheck's, or a map's that is not a routine note), or a file that
 * could not be read. */
export const needsLook = (f: FileEntry): boolean =>
  f.problem || zeroRuns(f).length > 0 || f.pageFindings.some((x) => x.amcheck || x.evidence !== 'note') || f.message !== null;

/**
 * The groups split for a data directory with damage: first the relations to look at (a table
 * with any file that needs a look, with its TOAST table and indexes), then the rest, healthy
 * or still verifying. Null when nothing needs a look: the groups stay as they are.
 */
export function splitGroups(groups: readonly FolderGroup[]): { look: FolderGroup[]; rest: FolderGroup[] } | null {
  const roots = new Set<string>();
  for (const d of groups) for (const g of d.relations) if (g.files.some(needsLook)) roots.add(g.ancestors[0] ?? g.key);
  if (roots.size === 0) return null;
  const part = (inLook: boolean) =>
    groups.flatMap((d) => {
      const relations = d.relations.filter((g) => roots.has(g.ancestors[0] ?? g.key) === inLook);
      return relations.length > 0 ? [{ ...d, relations }] : [];
    });
  return { look: part(true), rest: part(false) };
}

/** The counts of a group's files, added. */
export function countsOf(files: readonly FileEntry[]): StatusCounts {
  const c = emptyCounts();
  for (const f of files) addCounts(c, f.counts);
  return c;
}
