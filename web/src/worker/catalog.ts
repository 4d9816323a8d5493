// The one typed message module between the page and the catalog worker, which reads a
// dropped data directory's catalogs (the core's CatalogReader) off the main thread.
import type { WebListing } from '../core';

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

export type FromCatalogWorker =
  | { type: 'want'; job: number; paths: string[] }
  /** `structures`: what the structural checks know of each relation of the listing, in its
   * order, as the core exports it (`CatalogReader.structures`). */
  | { type: 'listing'; job: number; listing: WebListing; structures: Uint8Array; elapsedMs: number }
  | { type: 'error'; job: number; message: string };
