// Reads a data directory's catalogs off the main thread: the core's CatalogReader asks for
// the files it needs (the SLRUs, the maps, pg_database, each database's pg_class,
// pg_namespace, pg_am and pg_index), each is read with File.arrayBuffer() and given to it,
// and its listing goes back to the page.
import { loadWasm } from '../wasm';
import type { CatalogRequest, FromCatalogWorker, ListingJson } from './catalog';

const post = (m: FromCatalogWorker): void => postMessage(m);

self.onmessage = (ev: MessageEvent<CatalogRequest>) => {
  void read(ev.data).catch((e: unknown) => post({ type: 'error', job: ev.data.job, message: e instanceof Error ? e.message : String(e) }));
};

async function read(req: CatalogRequest): Promise<void> {
  const t0 = performance.now();
  const wasm = await loadWasm();
  const byPath = new Map(req.paths.map((p, i) => [p, req.files[i]]));
  const reader = new wasm.CatalogReader(req.paths, req.pgVersion, req.control);
  try {
    for (;;) {
      const wanted = reader.wanted();
      if (wanted.length === 0) break;
      for (const path of wanted) {
        const file = byPath.get(path);
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
    const listing = JSON.parse(reader.finish()) as ListingJson;
    post({ type: 'listing', job: req.job, listing, elapsedMs: performance.now() - t0 });
  } finally {
    reader.free();
  }
}
