// The WAL a damaged page's good copy may come from: which dropped files are WAL segments (a
// data directory's pg_wal/, loose segments, an archive folder) or pages `pg_waldump
// --save-fullpage` wrote, and the scan of those segments in the WAL worker for a file's
// damaged blocks, which also rebuilds them as `pgpage recover` does when the file's data
// directory (its pg_control) is known. Kept outside React's state, as the comparisons are
// (store.ts).
import { createStore } from '../lib/store';
import { bridge } from '../worker/bridge';
import { FORKS, type FileEntry } from '../files';
import { droppedFiles } from '../rows/dropped';
import { fullPageName, type FullPageName, type Wasm } from '../core';
import type { FromWal, ToWal, WalBlock, WalProblem, WalRecovered, WalSegmentFile, WalSummary } from './walProtocol';

/** Where a relation's file lives, as relpath.c lays it out: its tablespace and database,
 * null when the file came without its path (dropped loose). */
export interface FileLocation {
  /** The data directory's path prefix (`pgdata/`, '' at the top), null when unknown. */
  root: string | null;
  spcOid: number | null;
  dbOid: number | null;
}

/** DEFAULTTABLESPACE_OID and GLOBALTABLESPACE_OID (pg_tablespace.dat). */
const PG_DEFAULT = 1663;
const PG_GLOBAL = 1664;

export function locationOf(entry: Pick<FileEntry, 'path' | 'name' | 'relDir'>): FileLocation {
  const dir = entry.relDir;
  if (!dir) return { root: null, spcOid: null, dbOid: null };
  const root = entry.path.slice(0, Math.max(0, entry.path.length - dir.length - 1 - entry.name.length));
  const parts = dir.split('/');
  if (parts[0] === 'global') return { root, spcOid: PG_GLOBAL, dbOid: 0 };
  if (parts[0] === 'base') return { root, spcOid: PG_DEFAULT, dbOid: Number(parts[1]) };
  return { root, spcOid: Number(parts[1]), dbOid: Number(parts[3]) };
}

/** A page `pg_waldump --save-fullpage` wrote, as its name says (`wal_fullpage_name`). */
export type SavedPage = FullPageName & { path: string; file: File };

const baseName = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/** The WAL dropped for a file of data directory `root`: segments of its own pg_wal/ and any
 * outside a data directory's pg_wal/ (loose, an archive), and the saved pages. Another data
 * directory's pg_wal is that cluster's, not this file's. */
export function walInputs(
  w: Wasm,
  root: string | null,
  list: readonly { path: string; file: File }[] = [...droppedFiles(), ...picked],
): { segments: WalSegmentFile[]; saved: SavedPage[] } {
  const segments: WalSegmentFile[] = [];
  const saved: SavedPage[] = [];
  const seen = new Set<string>();
  for (const x of list) {
    if (seen.has(x.path)) continue;
    seen.add(x.path);
    const name = baseName(x.path);
    // Segments (a `.partial` one too) and timeline history files, whose switches the worker
    // follows, as the core names them.
    if (w.wal_file_kind(name) !== undefined) {
      const at = x.path.lastIndexOf('pg_wal/');
      const walRoot = at < 0 ? null : x.path.slice(0, at);
      if (walRoot === null || root === null || walRoot === root) segments.push({ name, path: x.path, file: x.file });
      continue;
    }
    const n = fullPageName(w, name);
    if (n !== undefined) saved.push({ path: x.path, file: x.file, ...n });
  }
  return { segments, saved };
}

/** WAL chosen in the panel itself, beside what was dropped on the page. */
const picked: { path: string; file: File }[] = [];

export interface WalScan {
  job: number;
  /** What was scanned: the segments' paths and the watched triples, to know when to scan again. */
  key: string;
  watch: ReadonlySet<string>;
  state: 'running' | 'done' | 'error';
  bytesDone: number;
  bytesTotal: number;
  segments: number;
  order: string[];
  blocks: WalBlock[];
  problems: WalProblem[];
  summary: WalSummary | null;
  /** Whether the scan was asked to rebuild the blocks (their data directory is known). */
  recovering: boolean;
  recovered: WalRecovered[];
  recoverRefused: string | null;
  error: string | null;
  ms: number | null;
}

interface State {
  scans: ReadonlyMap<number, WalScan>;
  /** Bumped when WAL is chosen in the panel: the inputs are read again. */
  pickedVersion: number;
}

const store = createStore<State>({ scans: new Map(), pickedVersion: 0 });

export function useWalState(): State {
  return store.use();
}

export function pickWal(list: readonly { path: string; file: File }[]): void {
  picked.push(...list);
  store.set({ ...store.get(), pickedVersion: store.get().pickedVersion + 1 });
}

const walWorker = bridge<ToWal, FromWal>(() => new Worker(new URL('./wal.worker.ts', import.meta.url), { type: 'module' }));

export const tripleKey = (relfilenode: number, fork: string, block: number): string => `${relfilenode}/${fork}/${block}`;

/** The file's place that `pgpage recover` reads from its path, and its cluster's pg_control. */
export interface RecoverPlace {
  control: File;
  controlPath: string;
  spcOid: number;
  dbOid: number;
}

/** Scans `segments` for blocks `watch` of the file `entryId` (a scan already done or running
 * for the same segments that watches them all is kept), rebuilding them too with `recover`. */
export function ensureWalScan(
  entryId: number,
  segments: WalSegmentFile[],
  watch: { relfilenode: number; fork: string; block: number }[],
  systemIdentifier: string,
  blockSize: number,
  recover: RecoverPlace | null = null,
): void {
  const place = recover ? `${recover.controlPath}|${recover.spcOid}/${recover.dbOid}` : '';
  const key = `${systemIdentifier}|${blockSize}|${place}|${segments.map((s) => s.path).join('\n')}`;
  const old = store.get().scans.get(entryId);
  if (old && old.key === key && watch.every((t) => old.watch.has(tripleKey(t.relfilenode, t.fork, t.block)))) return;
  const w = walWorker();
  if (old) {
    walWorker().off(old.job);
    w.post({ type: 'drop', job: old.job });
  }
  const job = w.job();
  const forkNumber = (fork: string): number => Math.max(0, FORKS.indexOf(fork as (typeof FORKS)[number]));
  const triples = watch.flatMap((t) => [t.relfilenode, forkNumber(t.fork), t.block]);
  let s: WalScan = {
    job,
    key,
    watch: new Set(watch.map((t) => tripleKey(t.relfilenode, t.fork, t.block))),
    state: 'running',
    bytesDone: 0,
    bytesTotal: segments.reduce((n, x) => n + x.file.size, 0),
    segments: segments.length,
    order: [],
    blocks: [],
    problems: [],
    summary: null,
    recovering: recover !== null,
    recovered: [],
    recoverRefused: null,
    error: null,
    ms: null,
  };
  const put = () => {
    const m = new Map(store.get().scans);
    m.set(entryId, s);
    store.set({ ...store.get(), scans: m });
  };
  put();
  w.on(job, (m) => {
    if (store.get().scans.get(entryId)?.job !== job) return;
    if (m.type === 'progress') s = { ...s, bytesDone: m.bytesDone, bytesTotal: m.bytesTotal };
    else if (m.type === 'scanned')
      s = {
        ...s,
        state: 'done',
        bytesDone: s.bytesTotal,
        order: m.order,
        blocks: m.blocks,
        problems: m.problems,
        summary: m.summary,
        recovered: m.recovered,
        recoverRefused: m.recoverRefused,
        ms: m.ms,
      };
    else if (m.type === 'error') s = { ...s, state: 'error', error: m.message };
    else return;
    put();
  });
  const rebuild = recover && {
    control: recover.control,
    blocks: watch.flatMap((t) => [recover.spcOid, recover.dbOid, t.relfilenode, forkNumber(t.fork), t.block]),
  };
  w.post({ type: 'scan', job, segments, systemIdentifier, blockSize, watch: triples, recover: rebuild });
}

/** One page the worker gives back for `ask` (its job number filled in). */
function workerPage(ask: (job: number) => ToWal): Promise<Uint8Array> {
  const w = walWorker();
  const job = w.job();
  return new Promise((resolve, reject) => {
    w.on(job, (m) => {
      if (m.type === 'page') resolve(m.page);
      else if (m.type === 'error') reject(new Error(m.message));
    });
    w.post(ask(job));
  });
}

/** Image `image` of scan `scan`, restored in the worker. */
export function walPage(scan: number, image: number): Promise<Uint8Array> {
  return workerPage((job) => ({ type: 'page', job, scan, image }));
}

/** Entry `index` of scan `scan`'s rebuilt blocks: the page as `pgpage recover` writes it. */
export function walRecoveredPage(scan: number, index: number): Promise<Uint8Array> {
  return workerPage((job) => ({ type: 'recovered', job, scan, index }));
}

/** pg_lsn text as a number (exact: 2^53 bytes of WAL are far off). */
export function lsnValue(lsn: string): number {
  const [hi, lo] = lsn.split('/');
  return parseInt(hi, 16) * 2 ** 32 + parseInt(lo, 16);
}

/** The page as replay leaves a restored image (xlogutils.c XLogReadBufferForRedoExtended):
 * pd_lsn set to the end of the image's record, unless the page is new (pd_upper 0). */
export function withRedoLsn(page: Uint8Array, endLsn: string, bigEndian: boolean): Uint8Array {
  const out = page.slice();
  const v = new DataView(out.buffer, out.byteOffset, out.byteLength);
  if (v.getUint16(14, !bigEndian) === 0) return out;
  const lsn = lsnValue(endLsn);
  v.setUint32(0, Math.floor(lsn / 2 ** 32), !bigEndian);
  v.setUint32(4, lsn % 2 ** 32, !bigEndian);
  return out;
}
