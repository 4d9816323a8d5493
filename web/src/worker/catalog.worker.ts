// Reads a data directory's catalogs off the main thread: the core's CatalogReader asks for
// the files it needs (the SLRUs, the maps, pg_database, each database's pg_class,
// pg_namespace, pg_am, pg_index, pg_attribute and pg_opclass), the page is asked for those Files, each is
// read with File.arrayBuffer() and given to it, and its listing goes back to the page with
// what the structural checks know of each relation (key columns, pg_class row, pg_xact).
import { catalogListing, loadWasm } from '../core';
import type { CatalogRequest, FromCatalogWorker, ToCatalogWorker } from './catalog';

const post = (m: FromCatalogWorker): void => postMessage(m);

/** The page's answer to the round of `want` in flight. */
let answer: ((files: (File | null)[]) => void) | null = null;

self.onmessage = (ev: MessageEvent<ToCatalogWorker>) => {
  const m = ev.data;
  if (m.type === 'files') {
    answer?.(m.files);
    return;
  }
  void read(m).catch((e: unknown) => post({ type: 'error', job: m.job, message: e instanceof Error ? e.message : String(e) }));
};

function ask(job: number, paths: string[]): Promise<(File | null)[]> {
  return new Promise((resolve) => {
    answer = resolve;
    post({ type: 'want', job, paths });
  });
}

async function read(req: CatalogRequest): Promise<void> {
  const t0 = performance.now();
  const wasm = await loadWasm();
  const reader = new wasm.CatalogReader(req.paths, req.pgVersion, req.control);
  try {
    for (;;) {
      const wanted = reader.wanted();
      if (wanted.length === 0) break;
      const files = await ask(req.job, wanted);
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
    postMessage({ type: 'listing', job: req.job, listing, structures, elapsedMs: performance.now() - t0 } satisfies FromCatalogWorker, { transfer: [structures.buffer] });
  } finally {
    reader.free();
  }
}
