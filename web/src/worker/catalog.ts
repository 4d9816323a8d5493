// The one typed message module between the page and the catalog worker, which reads a
// dropped data directory's catalogs (the core's CatalogReader) off the main thread.

/** The page sends the paths only: cloning thousands of File handles into a message is
 * hundreds of ms of main-thread work (a 565 ms task for a 959-file pgbench directory, in a
 * trace), and the reader needs a few dozen of them. The worker asks for those (`want`), a
 * round at a time, and the page answers with the Files (`files`, null where it has none). */
export interface CatalogRequest {
  type: 'catalog';
  job: number;
  /** Every file of the data directory, relative to it, `/`-separated. */
  paths: string[];
  pgVersion: Uint8Array;
  control: Uint8Array;
}

export interface CatalogFiles {
  type: 'files';
  job: number;
  files: (File | null)[];
}

export type ToCatalogWorker = CatalogRequest | CatalogFiles;

/** One relation as the core's listing names it (`CatalogReader.finish`). */
export interface ListedRelationJson {
  database: string | null;
  database_oid: number;
  tablespace_oid: number;
  relfilenode: number;
  oid: number;
  schema: string | null;
  name: string;
  relkind: string;
  relpersistence: string;
  am: string | null;
  toast_relfilenode: number | null;
  index_of: number | null;
  /** The relkind in words: table, index, TOAST table, sequence, materialized view. */
  kind: string;
  /** The index in `relations` of the relation it is listed under (its table). */
  parent: number | null;
  /** Made after initdb. */
  user: boolean;
}

export interface ListingJson {
  relations: ListedRelationJson[];
  databases: { oid: number; datname: string; dattablespace: number; datistemplate: boolean }[];
  damage: string[];
  /** One per path of the request: the relation that claims it and its pages' kind. */
  files: { relation: number | null; page_kind: string | null }[];
}

export type FromCatalogWorker =
  | { type: 'want'; job: number; paths: string[] }
  /** `structures`: what the structural checks know of each relation of the listing, in its
   * order, as the core exports it (`CatalogReader.structures`). */
  | { type: 'listing'; job: number; listing: ListingJson; structures: Uint8Array; elapsedMs: number }
  | { type: 'error'; job: number; message: string };
