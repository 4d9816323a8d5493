// The rows worker: finds a relation's columns (catalogs or a type list), reads its pages
// through the core in runs, posts rows as it goes, and makes exports as Blob URLs, so the
// page never runs a long task (the page ends a read by terminating the worker). Files are read with FileReaderSync: TOAST chunks are read
// back one value at a time instead of being kept.
import { loadWasm, type Wasm } from '../wasm';
import { emptySalvage, openTable, readRows, salvageText, segmentFirstBlock, type RowsFormat, type RowsReader, type RowsSource, type Salvage, type SyncFiles } from './drive';
import { copyTextRows } from './copyText';
import { SHOWN_MAX, type ColumnsFrom, type FromRows, type RowsFile, type ToRows } from './protocol';

/** The worker-only synchronous reader (not in the DOM library's types). */
declare const FileReaderSync: { new (): { readAsArrayBuffer(blob: Blob): ArrayBuffer } };

const post = (m: FromRows) => (self as unknown as Worker).postMessage(m);

function syncFiles(files: RowsFile[]): SyncFiles {
  const byPath = new Map(files.map((f) => [f.path, f.file]));
  const reader = new FileReaderSync();
  return {
    paths: files.map((f) => f.path),
    size: (p) => byPath.get(p)?.size ?? 0,
    read: (p, offset, length) => {
      const f = byPath.get(p);
      if (!f) return undefined;
      try {
        const b = new Uint8Array(reader.readAsArrayBuffer(f.slice(offset, offset + length)));
        return b.length === length ? b : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

/** `"name"` as SQL reads a quoted identifier. */
const quoted = (s: string) => `"${s.replace(/"/g, '""')}"`;

interface Opened {
  reader: RowsReader;
  source: RowsSource;
  title: string;
  damage: string[];
}

/** The relation's reader in `format`, its files and its name. */
function open(w: Wasm, files: SyncFiles, from: ColumnsFrom, format: RowsFormat): Opened {
  if (from.kind === 'types') {
    const reader = w.RowsReader.from_types(from.types, format, from.blockSize, from.bigEndian, 'pg_toast');
    return { reader, source: { paths: from.heap, toastPaths: [], blockSize: from.blockSize }, title: `${from.heap[0] ?? ''} as (${from.types})`, damage: [] };
  }
  // The relation of the file: the catalogs' listing names it by relfilenode and database.
  const version = files.read('PG_VERSION', 0, files.size('PG_VERSION'));
  const control = files.read('global/pg_control', 0, files.size('global/pg_control'));
  if (!version) throw new Error('PG_VERSION is not in the dropped folder: the catalogs cannot be read');
  const cat = new w.CatalogReader(files.paths, version, control ?? new Uint8Array());
  let listing: { relations: { database_oid: number; relfilenode: number; schema: string | null; name: string }[]; databases: { oid: number; datname: string }[] };
  try {
    for (let want = cat.wanted(); want.length > 0; want = cat.wanted()) {
      for (const p of want) cat.give(p, files.read(p, 0, files.size(p)));
    }
    listing = JSON.parse(cat.finish());
  } finally {
    cat.free();
  }
  const rel = listing.relations.find((r) => r.relfilenode === from.relfilenode && r.database_oid === from.databaseOid);
  const db = listing.databases.find((d) => d.oid === from.databaseOid);
  if (!rel || !db) throw new Error(`no relation of the catalogs has file ${from.relfilenode} in database ${from.databaseOid}`);
  const { reader, table } = openTable(w, files, `${quoted(rel.schema ?? 'public')}.${quoted(rel.name)}`, format, db.datname);
  return {
    reader,
    source: { paths: table.paths, toastPaths: table.toast_paths, blockSize: table.block_size },
    title: `${db.datname}: ${table.shown}`,
    damage: table.damage,
  };
}

async function handle(m: ToRows): Promise<void> {
  const w = await loadWasm();
  const files = syncFiles(m.files);
  if (m.type === 'tuple') {
    const o = open(w, files, m.from, 'text');
    try {
      const chunks = {
        read: (file: number, offset: number, length: number) => {
          const p = o.source.toastPaths[file];
          return p === undefined ? undefined : files.read(p, offset, length);
        },
      };
      // The tuple's TOAST values: the TOAST relation's chunks are indexed first.
      for (const [i, p] of o.source.toastPaths.entries()) {
        const bs = o.source.blockSize;
        const size = files.size(p) - (files.size(p) % bs);
        for (let at = 0; at < size; at += 256 * bs) {
          const bytes = files.read(p, at, Math.min(256 * bs, size - at));
          if (bytes) o.reader.add_toast_pages(bytes, i, at, segmentFirstBlock(p, bs) + at / bs);
        }
      }
      post({ type: 'tuple', job: m.job, ...(JSON.parse(o.reader.tuple(m.page, m.lp, chunks)) as Omit<Extract<FromRows, { type: 'tuple' }>, 'type' | 'job'>) });
    } finally {
      o.reader.free();
    }
    return;
  }
  const o = open(w, files, m.from, m.type === 'export' ? m.format : 'text');
  try {
    const columns = JSON.parse(o.reader.columns());
    const salvage: Salvage = emptySalvage(o.damage);
    if (m.type === 'open') post({ type: 'opened', job: m.job, title: o.title, columns });
    // The export's text goes into a Blob every 32 MB (the browser may keep a Blob on disk),
    // so the worker's heap holds one part of it, not the table.
    let blob = new Blob([]);
    let parts: string[] = [];
    let held = 0;
    let shown = 0;
    for (const text of readRows(o.reader, files, o.source, salvage)) {
      if (m.type === 'open') {
        const rows = shown < SHOWN_MAX ? copyTextRows(text).slice(0, SHOWN_MAX - shown) : [];
        shown += rows.length;
        post({ type: 'rows', job: m.job, rows, salvage });
        continue;
      }
      parts.push(text);
      held += text.length;
      if (held > 32 << 20) {
        blob = new Blob([blob, ...parts]);
        parts = [];
        held = 0;
      }
    }
    if (m.type === 'open') {
      post({ type: 'done', job: m.job, salvage });
      return;
    }
    const summary = salvageText(o.title, salvage);
    post({
      type: 'exported',
      job: m.job,
      blob: new Blob([blob, ...parts], { type: m.format === 'csv' ? 'text/csv' : 'text/plain' }),
      summary,
      salvage,
    });
  } finally {
    o.reader.free();
  }
}

self.onmessage = (e: MessageEvent<ToRows>) => {
  handle(e.data).catch((err: unknown) => post({ type: 'error', job: e.data.job, message: err instanceof Error ? err.message : String(err) }));
};
