// The rows worker: finds a relation's columns (catalogs or a type list), reads its pages
// through the core in runs, posts rows as it goes, and makes exports as Blobs, so the page
// never runs a long task (the page ends a read by terminating the worker). One worker
// serves one relation and keeps its catalogs and TOAST chunk index between requests. Files
// are read with FileReaderSync: TOAST chunks are read back one value at a time instead of
// being kept.
import { loadWasm, rowsColumns, tupleShown, type Wasm } from '../core';
import {
  emptySalvage,
  indexToast,
  openTable,
  readRows,
  salvageText,
  toastChunks,
  type RowsFormat,
  type RowsReader,
  type RowsSource,
  type Salvage,
  type SyncFiles,
} from './drive';
import { ownWalName, scanWal } from '../damage/walScan';
import { serve, type Job } from '../worker/bridge';
import { SHOWN_MAX, type ColumnsFrom, type FromRows, type Progress, type ToRows, type ToRowsWorker } from './protocol';

/** The worker-only synchronous reader (not in the DOM library's types). */
declare const FileReaderSync: { new (): { readAsArrayBuffer(blob: Blob): ArrayBuffer } };

type RowsJob = Job<ToRowsWorker, FromRows>;

/** The request being served: files are asked for in its name. */
let current: RowsJob | null = null;

serve<ToRowsWorker, FromRows>(
  async (m, job) => {
    if (m.type === 'files') return;
    current = job;
    try {
      await handle(m, job.post);
    } finally {
      current = null;
    }
  },
  (job, message) => ({ type: 'error', job, message }),
);

/** The relation's paths as the page told them, with the files it gave when asked: the
 * page looks up the few files a request reads instead of cloning every File handle. */
function askedFiles(paths: string[]): SyncFiles & { file(path: string): File | undefined } {
  const held = new Map<string, File | null>();
  const reader = new FileReaderSync();
  return {
    paths,
    size: (p) => held.get(p)?.size ?? 0,
    file: (p) => held.get(p) ?? undefined,
    read: (p, offset, length) => {
      const f = held.get(p);
      if (!f) return undefined;
      try {
        const b = new Uint8Array(reader.readAsArrayBuffer(f.slice(offset, offset + length)));
        return b.length === length ? b : undefined;
      } catch {
        return undefined;
      }
    },
    fetch: async (want) => {
      const missing = want.filter((p) => !held.has(p));
      if (missing.length === 0) return;
      if (!current) throw new Error('files were wanted outside a request');
      const answer = await current.ask({ type: 'want', job: current.job, paths: missing });
      if (answer.type !== 'files') throw new Error(`the page answered files with a ${answer.type} request`);
      for (const { path, file } of answer.files) held.set(path, file);
    },
  };
}

interface Opened {
  reader: RowsReader;
  source: RowsSource;
  title: string;
  damage: string[];
}

/** The relation's reader in `format`, its files and its name. */
async function open(w: Wasm, files: ReturnType<typeof askedFiles>, from: ColumnsFrom, format: RowsFormat): Promise<Opened> {
  if (from.kind === 'types') {
    await files.fetch?.(from.heap);
    const reader = w.RowsReader.from_types(from.types, format, from.blockSize, from.bigEndian, 'pg_toast');
    return { reader, source: { paths: from.heap, toastPaths: [], blockSize: from.blockSize }, title: `${from.heap[0] ?? ''} as (${from.types})`, damage: [] };
  }
  // The relation of the file, found by relfilenode and database in one reading of the catalogs.
  const { reader, table } = await openTable(w, files, { relfilenode: from.relfilenode, databaseOid: from.databaseOid }, format);
  await holdAgainstOwnWal(w, files, reader, table.paths[0] ?? '');
  return {
    reader,
    source: { paths: table.paths, toastPaths: table.toast_paths, blockSize: table.block_size },
    title: `${table.database}: ${table.shown}`,
    damage: table.damage,
  };
}

/** With the data directory's pg_control and pg_wal among the files, as `pgpage rows` inside a
 * data directory: the reader leaves out the pages older than the WAL says the latest
 * checkpoint wrote (a lost write, a stale restore), whose rows the server would return as they
 * were before those changes. Without them nothing is held, as with `pgpage rows` on files
 * outside a data directory. */
async function holdAgainstOwnWal(w: Wasm, files: ReturnType<typeof askedFiles>, reader: RowsReader, path: string): Promise<void> {
  const walPaths = files.paths.filter((p) => ownWalName(w, p) !== undefined);
  if (walPaths.length === 0 || !files.paths.includes('global/pg_control') || path === '') return;
  await files.fetch?.(['global/pg_control', ...walPaths]);
  const control = files.file('global/pg_control');
  const wal = walPaths.flatMap((p) => {
    const [file, name] = [files.file(p), ownWalName(w, p)];
    return file && name !== undefined ? [{ name, path: p, file }] : [];
  });
  if (!control || wal.length === 0) return;
  const { scanner } = await scanWal(w, wal, '', 8192, new Uint32Array(), () => {}, undefined, {
    control: new Uint8Array(await control.arrayBuffer()),
    backupLabel: files.paths.includes('backup_label'),
  });
  try {
    reader.set_flushed(scanner, path);
  } finally {
    scanner.free();
  }
}

/** The relation this worker serves: its files (paths from the first request, files as
 * asked for), and once opened, its reader (catalogs, transaction log) and what indexing
 * its TOAST relation left out (null until a request needed the TOAST chunk index). */
let files: ReturnType<typeof askedFiles> | null = null;
let relation: { from: string; o: Opened; toastLost: { block: number; message: string }[] | null } | null = null;

async function opened(w: Wasm, m: ToRows): Promise<NonNullable<typeof relation>> {
  if (m.paths) {
    files = askedFiles(m.paths);
    relation?.o.reader.free();
    relation = null;
  }
  if (!files) throw new Error('the rows worker was given no files');
  const from = JSON.stringify(m.from);
  if (relation?.from !== from) {
    relation?.o.reader.free();
    relation = null;
    relation = { from, o: await open(w, files, m.from, 'text'), toastLost: null };
  }
  return relation;
}

/** The view is sent rows at most this often: each message is a render, and each render
 * costs the page 15-20 ms of paint (measured in a trace) whatever the rows. */
const POST_MS = 250;

async function handle(m: ToRows, post: RowsJob['post']): Promise<void> {
  const w = await loadWasm();
  const rel = await opened(w, m);
  const { o } = rel;
  const f = files!;
  const indexed = () => (rel.toastLost ??= indexToast(o.reader, f, o.source));
  // The report's hints of this relation (by its segment 0's path), read from the next output on.
  const hints = m.hints === undefined ? undefined : (JSON.parse(m.hints) as Record<string, unknown>)[o.source.paths[0] ?? ''];
  if (hints !== undefined) o.reader.set_hints(JSON.stringify(hints));
  if (m.type === 'tuple') {
    o.reader.set_output('text', false, false);
    indexed();
    post({ type: 'tuple', job: m.job, ...tupleShown(o.reader, m.page, m.lp, toastChunks(f, o.source)) });
    return;
  }
  o.reader.set_output(m.type === 'export' ? m.format : 'text', m.allVersions, m.includeDamaged);
  const columns = rowsColumns(o.reader);
  const salvage: Salvage = emptySalvage(o.damage);
  if (m.type === 'open') post({ type: 'opened', job: m.job, title: o.title, columns });
  const progress = () => ({
    rows: salvage.rows,
    pagesRead: salvage.pagesRead,
    pagesGiven: salvage.pagesGiven,
    pagesTotal: salvage.pagesTotal,
    pagesLost: salvage.pagesLost.length,
  });
  // The export's text goes into a Blob every 32 MB (the browser may keep a Blob on disk),
  // so the worker's heap holds one part of it, not the table.
  let blob = new Blob([]);
  // COPY's HEADER line, from the core, when the export asks for it.
  let parts: string[] = m.type === 'export' && m.header ? [o.reader.header_line ?? ''] : [];
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
        postLines(post, m.job, parts, progress(), sent);
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
    postLines(post, m.job, parts, progress(), sent);
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

const encoder = new TextEncoder();

/** Posts runs' COPY text lines for the view (cut at SHOWN_MAX lines in all) as UTF-8 with
 * the offset of each line, both buffers transferred: the page neither copies the text nor
 * keeps it on its JS heap, where a few hundred MB of strings made its major GCs long. */
function postLines(post: RowsJob['post'], job: number, parts: string[], progress: Progress, sent: { lines: number }): void {
  const all = encoder.encode(parts.join(''));
  const starts: number[] = [];
  let end = all.length;
  // A newline byte is only ever a newline in UTF-8, and COPY text escapes those in values.
  for (let i = 0; i < all.length;) {
    if (sent.lines + starts.length >= SHOWN_MAX) {
      end = i;
      break;
    }
    starts.push(i);
    const nl = all.indexOf(10, i);
    i = nl < 0 ? all.length : nl + 1;
  }
  const bytes = end === all.length ? all : all.slice(0, end);
  sent.lines += starts.length;
  const s = Uint32Array.from(starts);
  post({ type: 'rows', job, bytes, starts: s, progress }, [s.buffer, bytes.buffer]);
}
