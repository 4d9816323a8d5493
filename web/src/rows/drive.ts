// Drives the core's rows reader (wasm `RowsReader`, `TableReader`) over files read
// synchronously: FileReaderSync in the rows worker, fs.readSync in the Node tests. All
// PostgreSQL rules are in the core; this only walks files in page runs and sums up.
import { addToastPages, catalogTable, chunkCounts, type LeftOut, type RowsTable as TableInfo, type Wasm } from '../core';

/** The core's rows reader as the wasm bindings give it. */
export type RowsReader = ReturnType<Wasm['RowsReader']['from_types']>;

/** Synchronous access to a relation's files (a dropped data directory or single files). */
export interface SyncFiles {
  /** Every path, relative to the data directory, `/`-separated. */
  paths: string[];
  size(path: string): number;
  /** `length` bytes at `offset`, or undefined when they cannot be read. */
  read(path: string, offset: number, length: number): Uint8Array | undefined;
  /** Gets hold of files before they are read, where that waits (the rows worker asks the
   * page for them); absent where every file can be read at once. */
  fetch?(paths: string[]): Promise<void>;
}

export type RowsFormat = 'csv' | 'text';

export type { LeftOut, RowsColumn as ColumnInfo, RowsTable as TableInfo } from '../core';

/** Where a relation's rows are: its segments and its TOAST relation's, with how to read. */
export interface RowsSource {
  paths: string[];
  toastPaths: string[];
  blockSize: number;
}

/** Running totals of a read, for the progress line and the salvage summary. */
export interface Salvage {
  rows: number;
  invisible: number;
  undecided: number;
  pagesRead: number;
  /** Pages read whose rows were given: those read, less those left out whole. */
  pagesGiven: number;
  pagesTotal: number;
  /** Pages of the table left out whole (or, all zeros between pages with rows, lost), by
   * block, with the reason and, where the core counts them, their rows. */
  pagesLost: { block: number; message: string; rows?: number }[];
  /** Pages whose checksum fails whose rows were given (damaged pages included), and the
   * ctids of those rows. */
  pagesDamaged: { block: number; message: string; rows: number }[];
  damagedCtids: string[];
  /** Tuples left out, and rows given with a note. */
  tuples: LeftOut[];
  /** TOAST pages left out, by block of the TOAST relation. */
  toastPagesLost: { block: number; message: string }[];
  /** Lines the catalogs' reader could not read. */
  damage: string[];
}

/** 1 GB segments: a segment's first relation-wide block (RELSEG_SIZE of the default build). */
export function segmentFirstBlock(path: string, blockSize: number): number {
  const m = /\.(\d+)$/.exec(path);
  return m ? Number(m[1]) * Math.floor(2 ** 30 / blockSize) : 0;
}

function readWhole(files: SyncFiles, path: string): Uint8Array | undefined {
  return files.read(path, 0, files.size(path));
}

/** Which table: by name (`schema.name` as SQL reads it; `database` undefined for the only
 * user database), or by its file (`base/databaseOid/relfilenode`). */
export type TableTarget = { relation: string; database?: string } | { relfilenode: number; databaseOid: number };

/** A table of a data directory found through its catalogs, read once, with its segments
 * and its TOAST relation's fetched; throws the core's reason. */
export async function openTable(w: Wasm, files: SyncFiles, target: TableTarget, format: RowsFormat): Promise<{ reader: RowsReader; table: TableInfo }> {
  await files.fetch?.(['PG_VERSION', 'global/pg_control']);
  const version = readWhole(files, 'PG_VERSION');
  if (!version) throw new Error('PG_VERSION is not in the data directory');
  const control = readWhole(files, 'global/pg_control') ?? new Uint8Array();
  const t =
    'relation' in target
      ? new w.TableReader(files.paths, version, control, target.database, target.relation)
      : w.TableReader.by_file(files.paths, version, control, target.databaseOid, target.relfilenode);
  let opened: { reader: RowsReader; table: TableInfo };
  try {
    for (let want = t.wanted(); want.length > 0; want = t.wanted()) {
      await files.fetch?.(want);
      for (const p of want) t.give(p, readWhole(files, p));
    }
    const reader = t.finish(format);
    opened = { reader, table: catalogTable(reader) };
  } finally {
    t.free();
  }
  await files.fetch?.([...opened.table.paths, ...opened.table.toast_paths]);
  return opened;
}

/** Pages per run: 256 pages (2 MB of 8 kB pages), a few ms of work each. */
export const RUN_PAGES = 256;

/** Notes the chunks of every page of the source's TOAST files in the reader's chunk index
 * (done once per reader: the index serves every later read of the relation); returns the
 * TOAST pages left out. */
export function indexToast(reader: RowsReader, files: SyncFiles, source: RowsSource): { block: number; message: string }[] {
  const bs = source.blockSize;
  const run = RUN_PAGES * bs;
  const lostAll: { block: number; message: string }[] = [];
  for (const [i, p] of source.toastPaths.entries()) {
    const size = files.size(p);
    const whole = size - (size % bs);
    for (let at = 0; at < whole; at += run) {
      const bytes = files.read(p, at, Math.min(run, whole - at));
      if (!bytes) break;
      const lost = addToastPages(reader, bytes, i, at, segmentFirstBlock(p, bs) + at / bs);
      lostAll.push(...lost.map((l) => ({ block: l.block, message: l.message })));
    }
  }
  return lostAll;
}

/** The reader's ChunkSource: TOAST file number `file` is `source.toastPaths[file]`. */
export function toastChunks(files: SyncFiles, source: RowsSource) {
  return {
    read(file: number, offset: number, length: number): Uint8Array | undefined {
      const p = source.toastPaths[file];
      return p === undefined ? undefined : files.read(p, offset, length);
    },
  };
}

/** Reads the source's heap files run by run, yielding each run's text and adding to
 * `salvage` as it goes; the TOAST files are indexed first unless `toastLost` says they
 * were (what that indexing left out). */
export function* readRows(
  reader: RowsReader,
  files: SyncFiles,
  source: RowsSource,
  salvage: Salvage,
  toastLost?: { block: number; message: string }[],
): Generator<string, void, void> {
  const bs = source.blockSize;
  const run = RUN_PAGES * bs;
  salvage.toastPagesLost.push(...(toastLost ?? indexToast(reader, files, source)));
  const chunks = toastChunks(files, source);
  salvage.pagesTotal = source.paths.reduce((n, p) => n + Math.floor(files.size(p) / bs), 0);
  // With the rows of damaged pages: a first pass takes the keys of the rows on pages that
  // verify, so that the core leaves out a damaged page's stale versions of them.
  if (reader.wants_row_keys()) {
    for (const p of source.paths) {
      const size = files.size(p);
      const whole = size - (size % bs);
      const first = segmentFirstBlock(p, bs);
      for (let at = 0; at < whole; at += run) {
        const bytes = files.read(p, at, Math.min(run, whole - at));
        if (bytes) reader.key_pages(bytes, first + at / bs, chunks);
      }
    }
    reader.keys_done();
  }
  if (reader.stale_unknown())
    salvage.damage.push(
      "the table's primary key (or another unique index on its columns) is not known: on the pages whose checksum fails, a stale version of a row that a torn write or an older page brought back cannot be told apart from the row, and may be given beside its live version",
    );
  for (const p of source.paths) {
    const size = files.size(p);
    const whole = size - (size % bs);
    const first = segmentFirstBlock(p, bs);
    for (let at = 0; at < whole; at += run) {
      const len = Math.min(run, whole - at);
      const bytes = files.read(p, at, len);
      if (!bytes) {
        for (let b = at / bs; b < (at + len) / bs; b++) salvage.pagesLost.push({ block: first + b, message: 'could not read the page' });
        continue;
      }
      const got = reader.pages(bytes, first + at / bs, chunks);
      const json = chunkCounts(got);
      const text = got.text;
      got.free();
      salvage.rows += json.rows;
      salvage.invisible += json.invisible;
      salvage.undecided += json.undecided;
      salvage.pagesRead += len / bs;
      salvage.pagesGiven += len / bs;
      for (const l of json.left_out) {
        if (l.offset === null && (l.tuples?.length ?? 0) > 0) salvage.tuples.push(l);
        else if (l.offset === null && l.printed) salvage.pagesDamaged.push({ block: l.block, message: l.message, rows: l.rows ?? 0 });
        else if (l.offset === null) {
          salvage.pagesLost.push({ block: l.block, message: l.message, ...(l.rows !== undefined ? { rows: l.rows } : {}) });
          salvage.pagesGiven -= 1;
        } else salvage.tuples.push(l);
      }
      salvage.damagedCtids.push(...json.damaged);
      yield text;
    }
  }
}

export function emptySalvage(damage: string[] = []): Salvage {
  return {
    rows: 0,
    invisible: 0,
    undecided: 0,
    pagesRead: 0,
    pagesGiven: 0,
    pagesTotal: 0,
    pagesLost: [],
    pagesDamaged: [],
    damagedCtids: [],
    tuples: [],
    toastPagesLost: [],
    damage,
  };
}

/** The salvage summary as plain text, a file of its own beside the export (no comment lines
 * in the export itself, so it loads with COPY FROM as it is). */
export function salvageText(what: string, s: Salvage): string {
  const lines = [`pgpage rows: ${what}`, `rows recovered: ${s.rows}`, `pages read: ${s.pagesRead} of ${s.pagesTotal}`];
  lines.push(`pages left out: ${s.pagesLost.length}`);
  for (const p of s.pagesLost) {
    const rows =
      p.rows === undefined
        ? ''
        : `; its ${p.rows} rows are left out (include the rows of damaged pages to get them, as SET ignore_checksum_failure = on lets the server read the page)`;
    lines.push(`  block ${p.block}: ${p.message}${rows}`);
  }
  if (s.pagesDamaged.length > 0) {
    lines.push(`pages whose checksum fails, their rows given as SET ignore_checksum_failure = on lets the server read them: ${s.pagesDamaged.length}`);
    for (const p of s.pagesDamaged) lines.push(`  block ${p.block}: ${p.message}; its ${p.rows} rows given`);
    lines.push(`  rows given from them (ctid): ${s.damagedCtids.join(', ')}`);
  }
  const toast = s.tuples.filter((t) => !t.printed && /toast value/.test(t.message));
  lines.push(`TOAST values missing: ${toast.length}`);
  for (const t of toast) lines.push(`  block ${t.block}, offset ${t.offset}: ${t.message}`);
  const other = s.tuples.filter((t) => !toast.includes(t));
  if (other.length > 0) {
    lines.push(`tuples left out or noted: ${other.reduce((n, t) => n + (t.tuples?.length ?? 1), 0)}`);
    for (const t of other)
      lines.push(
        `  block ${t.block}${t.offset === null ? '' : `, offset ${t.offset}`}${t.attnum ? ` (attribute ${t.attnum})` : ''}: ${t.message}${t.printed ? ' (row given)' : ''}`,
      );
  }
  if (s.toastPagesLost.length > 0) {
    lines.push(`TOAST pages left out: ${s.toastPagesLost.length}`);
    for (const p of s.toastPagesLost) lines.push(`  block ${p.block}: ${p.message}`);
  }
  if (s.undecided > 0) lines.push(`tuples neither hint bits nor pg_xact decide, given as visible: ${s.undecided}`);
  for (const d of s.damage) lines.push(`catalog: ${d}`);
  return lines.join('\n') + '\n';
}
