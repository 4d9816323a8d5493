// A dropped data directory's catalogs, read by the catalog worker (the core's CatalogReader):
// which relation each file is (`database / schema.table`), its relkind in words, the table an
// index or TOAST table is listed under, the kind of its pages, and what could not be read.
import type { FileEntry } from '../files';
import type { WebRelation } from '../core';
import { workerForJob } from '../worker/bridge';
import type { CatalogRequest, FromCatalogWorker, ToCatalogWorker } from '../worker/catalog';

/** One relation of the listing, with its place in it. */
export interface CatalogRelation extends WebRelation {
  /** Index in its catalog's `relations`. */
  index: number;
}

/** What the catalogs of one dropped data directory say, or why they could not be read. */
export interface ClusterCatalog {
  /** The dropped directory's path prefix (`pgdata/`), as `ClusterControl.root`. */
  root: string;
  state: 'reading' | 'done' | 'failed';
  relations: CatalogRelation[];
  /** The core's lines on what it could not read (a damaged pg_class page, a missing map). */
  damage: string[];
  /** Why no relation could be named: the files are listed by folder and relfilenode. */
  error: string | null;
  /** What the structural checks know of each relation (entry: `CatalogRelation.index`), as
   * the core exports it; `set` names it to the verify workers. */
  hints?: { set: number; bytes: Uint8Array };
  /** Files verified before the catalogs were read (their pages' checks only), verified
   * again with them. */
  again?: number;
}

/** A file's place in its data directory's catalogs. */
export interface Naming {
  catalog: ClusterCatalog;
  /** Null: no catalog row claims the file. */
  relation: CatalogRelation | null;
  /** The kind of its pages from the catalog's relkind and access method. */
  pageKind: string | null;
}

/** A file as the pickers and drops hand it over (only what this module reads). */
interface Dropped {
  file: File;
  path: string;
}

let nextJob = 1;

/**
 * Reads the catalogs of the data directory at `root` (`pgdata/`) from the dropped files in a
 * worker; `names` has one entry per path of the directory, in the order given.
 */
export async function readCatalog(root: string, list: readonly Dropped[]): Promise<{ catalog: ClusterCatalog; names: Map<string, Naming> }> {
  const inside = list.filter((x) => x.path.startsWith(root));
  const version = inside.find((x) => x.path === `${root}PG_VERSION`);
  const control = inside.find((x) => x.path === `${root}global/pg_control`);
  const catalog: ClusterCatalog = { root, state: 'failed', relations: [], damage: [], error: null };
  const names = new Map<string, Naming>();
  if (!version || !control) {
    catalog.error = `no ${version ? 'global/pg_control' : 'PG_VERSION'} in ${root}`;
    return { catalog, names };
  }
  const req: CatalogRequest = {
    type: 'catalog',
    job: nextJob++,
    paths: inside.map((x) => x.path.slice(root.length)),
    pgVersion: new Uint8Array(await version.file.arrayBuffer()),
    control: new Uint8Array(await control.file.arrayBuffer()),
  };
  let byPath: Map<string, File> | null = null;
  const worker = workerForJob<ToCatalogWorker, FromCatalogWorker>(
    () => new Worker(new URL('../worker/catalog.worker.ts', import.meta.url), { type: 'module' }),
    (m) => {
      if (m.type !== 'want') return;
      byPath ??= new Map(inside.map((x) => [x.path.slice(root.length), x.file]));
      worker.post({ type: 'files', job: m.job, files: m.paths.map((p) => byPath?.get(p) ?? null) });
    },
    (message) => ({ type: 'error', job: req.job, message }),
  );
  worker.post(req);
  const answer = await worker.done;
  if (answer.type === 'error') {
    catalog.error = answer.message;
    return { catalog, names };
  }
  const { listing } = answer;
  catalog.damage = listing.damage;
  catalog.relations = listing.relations.map((r, index) => ({ ...r, index }));
  if (catalog.relations.length === 0) {
    catalog.error = listing.damage.length > 0 ? listing.damage.join('; ') : 'the catalogs name no relation';
    return { catalog, names };
  }
  catalog.state = 'done';
  catalog.hints = { set: req.job, bytes: answer.structures };
  inside.forEach((x, i) => {
    const f = listing.files[i];
    if (!f) return;
    names.set(x.path, { catalog, relation: f.relation === null ? null : (catalog.relations[f.relation] ?? null), pageKind: f.page_kind });
  });
  return { catalog, names };
}

/** `schema.name`, as psql prints a qualified name (the name alone when the schema is unknown). */
export function qualified(r: WebRelation): string {
  return r.schema === null ? r.name : `${r.schema}.${r.name}`;
}

/** The database a relation is listed under: its name, or "shared (global)" for shared catalogs. */
export function databaseOf(r: WebRelation): string {
  return r.database ?? 'shared (global)';
}

/** `database / schema.table (index of schema.table)`: a relation as the verdict and report name it. */
export function relationWords(n: Naming): string | null {
  const r = n.relation;
  if (!r) return null;
  const parent = r.parent === null ? null : n.catalog.relations[r.parent];
  const of = parent ? ` (${r.kind} of ${qualified(parent)})` : r.kind === 'table' ? '' : ` (${r.kind})`;
  return `${databaseOf(r)} / ${qualified(r)}${of}`;
}

/** Writes each file's naming into its entry (a new version, so its row renders again). */
export function nameEntries(files: readonly FileEntry[], names: ReadonlyMap<string, Naming>): boolean {
  let changed = false;
  for (const f of files) {
    const n = names.get(f.path);
    if (!n || f.naming === n) continue;
    f.naming = n;
    f.version++;
    changed = true;
  }
  return changed;
}
