// Reads a data directory's catalogs off the main thread: the core's CatalogReader asks for
// the files it needs (the SLRUs, the maps, pg_database, each database's pg_class,
// pg_namespace, pg_am, pg_index, pg_attribute and pg_opclass), the page is asked for those Files, each is
// read with File.arrayBuffer() and given to it, and its listing goes back to the page with
// what the structural checks know of each relation (key columns, pg_class row, pg_xact).
import { catalogListing, loadWasm } from '../core';
import { serve, type Job } from './bridge';
import type { CatalogRequest, FromCatalogWorker, ToCatalogWorker } from './catalog';

serve<ToCatalogWorker, FromCatalogWorker>(
  (m, job) => (m.type === 'catalog' ? read(m, job) : Promise.resolve()),
  (job, message) => ({ type: 'error', job, message }),
);

/** The page's Files for `paths`, null where it has none. */
async function ask(job: Job<ToCatalogWorker, FromCatalogWorker>, paths: string[]): Promise<(File | null)[]> {
  const m = await job.ask({ type: 'want', job: job.job, paths });
  return m.type === 'files' ? m.files : paths.map(() => null);
}

async function read(req: CatalogRequest, job: Job<ToCatalogWorker, FromCatalogWorker>): Promise<void> {
  const t0 = performance.now();
  const wasm = await loadWasm();
  const reader = new wasm.CatalogReader(req.paths, req.pgVersion, req.control);
  try {
    for (;;) {
      const wanted = reader.wanted();
      if (wanted.length === 0) break;
      const files = await ask(job, wanted);
      for (const [i, path] of wanted.entries()) {
        const file = files[i];
        let bytes: Uint8Array | undefined;
        try {
          bytes = file ? new Uint8Array(await file.arrayBuffer()) : undefined;
        } catch {
          // The reader names a file it was not given as unreadable.
          bytes = undefined;
        }
        reader.give(path, bytes);
      }
    }
    const listing = catalogListing(reader);
    const structures = reader.structures();
    job.post({ type: 'listing', job: req.job, listing, structures, elapsedMs: performance.now() - t0 }, [structures.buffer]);
  } finally {
    reader.free();
  }
}
