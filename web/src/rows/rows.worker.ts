// The rows worker: finds a relation's columns (catalogs or a type list), reads its pages
// through the core in runs, posts rows as it goes, and makes exports as Blobs, so the page
// never runs a long task (the page ends a read by terminating the worker). One worker
// serves one relation and keeps its catalogs and TOAST chunk index between requests. Files
// are read with FileReaderSync: TOAST chunks are read back one value at a time instead of
// being kept.
import { loadWasm, type Wasm } from '../wasm';
import { emptySalvage, indexToast, openTable, readRows, salvageText, toastChunks, type RowsFormat, type RowsReader, type RowsSource, type Salvage, type SyncFiles } from './drive';
import { SHOWN_MAX, type ColumnsFrom, type FromRows, type Progress, type RowsFile, type ToRows } from './protocol';

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

/** The relation this worker serves: its files (from the first request), and once opened,
 * its reader (catalogs, transaction log) and what indexing its TOAST relation left out
 * (null until a request needed the TOAST chunk index). */
let files: SyncFiles | null = null;
let relation: { from: string; o: Opened; toastLost: { block: number; message: string }[] | null } | null = null;

function opened(w: Wasm, m: ToRows): NonNullable<typeof relation> {
  if (m.files) {
    files = syncFiles(m.files);
    relation?.o.reader.free();
    relation = null;
  }
  if (!files) throw new Error('the rows worker was given no files');
  const from = JSON.stringify(m.from);
  if (relation?.from !== from) {
    relation?.o.reader.free();
    relation = null;
    relation = { from, o: open(w, files, m.from, 'text'), toastLost: null };
  }
  return relation;
}

/** The view is sent rows at most this often: each message is a render, and each render
 * costs the page 15-20 ms of paint (measured in a trace) whatever the rows. */
const POST_MS = 250;

async function handle(m: ToRows): Promise<void> {
  const w = await loadWasm();
  const rel = opened(w, m);
  const { o } = rel;
  const f = files!;
  const indexed = () => (rel.toastLost ??= indexToast(o.reader, f, o.source));
  if (m.type === 'tuple') {
    o.reader.set_output('text', false);
    indexed();
    post({ type: 'tuple', job: m.job, ...(JSON.parse(o.reader.tuple(m.page, m.lp, toastChunks(f, o.source))) as Omit<Extract<FromRows, { type: 'tuple' }>, 'type' | 'job'>) });
    return;
  }
  o.reader.set_output(m.type === 'export' ? m.format : 'text', m.allVersions);
  const columns = JSON.parse(o.reader.columns());
  const salvage: Salvage = emptySalvage(o.damage);
  if (m.type === 'open') post({ type: 'opened', job: m.job, title: o.title, columns });
  const progress = () => ({ rows: salvage.rows, pagesRead: salvage.pagesRead, pagesTotal: salvage.pagesTotal, pagesLost: salvage.pagesLost.length });
  // The export's text goes into a Blob every 32 MB (the browser may keep a Blob on disk),
  // so the worker's heap holds one part of it, not the table.
  let blob = new Blob([]);
  let parts: string[] = [];
  let held = 0;
  let shown = 0;
  const sent = { lines: 0 };
  let lastPost = performance.now();
  for (const text of readRows(o.reader, f, o.source, salvage, indexed())) {
    const due = performance.now() - lastPost >= POST_MS;
    if (m.type === 'open') {
      // Lines for the view up to SHOWN_MAX, sent with the progress every POST_MS.
      if (shown < SHOWN_MAX) {
        parts.push(text);
        shown += lineCount(text);
      }
      if (due) {
        postLines(m.job, parts, progress(), sent);
        parts = [];
        lastPost = performance.now();
      }
      continue;
    }
    parts.push(text);
    held += text.length;
    if (held > 32 << 20) {
      blob = new Blob([blob, ...parts]);
      parts = [];
      held = 0;
    }
    if (due) {
      post({ type: 'progress', job: m.job, progress: progress() });
      lastPost = performance.now();
    }
  }
  if (m.type === 'open') {
    postLines(m.job, parts, progress(), sent);
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
}

function lineCount(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** Posts runs' COPY text lines for the view (cut at SHOWN_MAX lines in all) with the
 * offset of each line, the offsets' buffer transferred. */
function postLines(job: number, parts: string[], progress: Progress, sent: { lines: number }): void {
  let text = parts.join('');
  const starts: number[] = [];
  for (let i = 0; i < text.length && sent.lines + starts.length < SHOWN_MAX; ) {
    starts.push(i);
    const nl = text.indexOf('\n', i);
    i = nl < 0 ? text.length : nl + 1;
  }
  const end = sent.lines + starts.length >= SHOWN_MAX ? text.indexOf('\n', starts[starts.length - 1] ?? 0) + 1 : text.length;
  text = text.slice(0, end);
  sent.lines += starts.length;
  const s = Uint32Array.from(starts);
  (self as unknown as Worker).postMessage({ type: 'rows', job, text, starts: s, progress } satisfies FromRows, [s.buffer]);
}

self.onmessage = (e: MessageEvent<ToRows>) => {
  handle(e.data).catch((err: unknown) => post({ type: 'error', job: e.data.job, message: err instanceof Error ? err.message : String(err) }));
};
