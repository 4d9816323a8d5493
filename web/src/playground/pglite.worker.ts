// The playground's PostgreSQL: PGlite (PostgreSQL 18 in WebAssembly) in a worker of its own,
// so a long statement never blocks the page, and the page can end it by terminating the
// worker. After each statement: CHECKPOINT (before it the files are stale), then the files of
// every relation, read from PGlite's in-memory file system; only files that changed are sent.
import { PGlite, type Results } from '@electric-sql/pglite';
import { pageinspect } from '@electric-sql/pglite/contrib/pageinspect';
import { pg_buffercache } from '@electric-sql/pglite/contrib/pg_buffercache';
import { pg_visibility } from '@electric-sql/pglite/contrib/pg_visibility';
import { pg_walinspect } from '@electric-sql/pglite/contrib/pg_walinspect';
import { serve } from '../worker/bridge';
import { MAX_ROWS, START_JOB, type FromPlay, type ResultSet, type ServerError, type SnapFileMsg, type StartPlay, type ToPlay } from './protocol';
import { RELATIONS_SQL, relationFiles, type PlayRelation } from './relations';
import { pageinspectSql, type AskPage } from './ask';
import { plainText } from '../lib/text';

const post = (m: FromPlay, transfer: Transferable[] = []): void => postMessage(m, { transfer });

// PGlite fetches its wasm, its file system bundle and the extensions itself: counting the
// bytes of those responses as they stream is the loading bar.
let received = 0;
let total = 0;
const plainFetch = globalThis.fetch.bind(globalThis);
globalThis.fetch = async (input, init) => {
  const r = await plainFetch(input, init);
  const length = Number(r.headers.get('content-length') ?? 0);
  if (!r.body || !r.ok) return r;
  total += length;
  const counted = r.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, c) {
        received += chunk.byteLength;
        post({ type: 'progress', job: START_JOB, phase: 'download', received, total: Math.max(total, received) });
        c.enqueue(chunk);
      },
    }),
  );
  return new Response(counted, { status: r.status, statusText: r.statusText, headers: r.headers });
};

const PGDATA = PGlite.paths.PGDATA;
let pg: PGlite | null = null;
/** The bytes each file had at the last snapshot, to send only what changed. */
const last = new Map<string, Uint8Array>();

/** Starts the server: a fresh one, or (after a cancel) the data directory saved after the
 * last statement that completed. */
async function start(saved: Blob | null): Promise<void> {
  const p = await PGlite.create({ extensions: { pageinspect, pg_buffercache, pg_visibility, pg_walinspect }, ...(saved ? { loadDataDir: saved } : {}) });
  post({ type: 'progress', job: START_JOB, phase: 'extensions', received, total });
  // pg_visibility answers "Ask PostgreSQL" for visibility map pages; pg_walinspect shows the
  // lessons' WAL records (a hint bit's full-page image).
  await p.exec(
    'create extension if not exists pageinspect; create extension if not exists pg_buffercache; create extension if not exists pg_visibility; create extension if not exists pg_walinspect',
  );
  pg = p;
  // The restored files are what the page's last snapshot shows: the next snapshot is
  // compared with them, not with nothing (which would call every block changed).
  if (saved) await snapshot(p);
  const v = (await p.query<{ v: string }>(`select current_setting('server_version') as v`)).rows[0].v;
  post({ type: 'ready', job: START_JOB, version: v });
}

function text(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (v instanceof Uint8Array) return `\\x${Array.from(v, (b) => b.toString(16).padStart(2, '0')).join('')}`;
  if (v instanceof Date) return v.toISOString();
  return plainText(v);
}

function resultSet(r: Results, command: string): ResultSet {
  const fields = r.fields.map((f) => f.name);
  const rows = (r.rows as Record<string, unknown>[]).slice(0, MAX_ROWS).map((row) => fields.map((f) => text(row[f])));
  return { fields, rows, rowCount: fields.length > 0 ? r.rows.length : (r.affectedRows ?? 0), command };
}

function serverError(e: unknown): ServerError {
  if (e && typeof e === 'object' && 'message' in e) {
    const x = e as { message: string; code?: string; severity?: string; detail?: string; hint?: string; position?: string };
    return { message: x.message, code: x.code, severity: x.severity, detail: x.detail, hint: x.hint, position: x.position ? Number(x.position) : undefined };
  }
  return { message: String(e) };
}

const BLCKSZ = 8192;

/** The blocks of `b` that differ from `a` (a block only one has differs), compared four
 * bytes at a time: readFile's copies start aligned. Int32, not BigUint64: every element read
 * of a BigUint64Array makes a BigInt, and comparing 1,000 pages took tens of milliseconds. */
function changedBlocks(a: Uint8Array | undefined, b: Uint8Array): number[] {
  const blocks = Math.ceil(Math.max(a?.length ?? 0, b.length) / BLCKSZ);
  if (!a) return Array.from({ length: blocks }, (_, i) => i);
  const aligned = a.byteOffset % 4 === 0 && b.byteOffset % 4 === 0 && a.length % 4 === 0 && b.length % 4 === 0;
  const x = aligned ? new Int32Array(a.buffer, a.byteOffset, a.length / 4) : a;
  const y = aligned ? new Int32Array(b.buffer, b.byteOffset, b.length / 4) : b;
  const per = aligned ? BLCKSZ / 4 : BLCKSZ;
  const out: number[] = [];
  for (let blk = 0; blk < blocks; blk++) {
    const end = (blk + 1) * per;
    if (end > x.length || end > y.length) {
      out.push(blk);
      continue;
    }
    for (let i = blk * per; i < end; i++) {
      if (x[i] !== y[i]) {
        out.push(blk);
        break;
      }
    }
  }
  return out;
}

/** PGlite's Emscripten file system, which its types leave unresolved. */
interface EmscriptenFs {
  analyzePath(path: string): { exists: boolean };
  readFile(path: string): Uint8Array;
  writeFile(path: string, data: Uint8Array): void;
}

const fsOf = (p: PGlite): EmscriptenFs => (p as unknown as { Module: { FS: EmscriptenFs } }).Module.FS;

async function snapshot(p: PGlite): Promise<SnapFileMsg[]> {
  await p.exec('checkpoint');
  const rels = (await p.query<PlayRelation>(RELATIONS_SQL)).rows;
  const exists = (path: string) => fsOf(p).analyzePath(`${PGDATA}/${path}`).exists;
  const files = relationFiles(rels, exists);
  const out: SnapFileMsg[] = [];
  const seen = new Set<string>();
  for (const f of files) {
    const bytes = fsOf(p).readFile(`${PGDATA}/${f.path}`);
    const changed = changedBlocks(last.get(f.path), bytes);
    // A new empty file is news too: the relation appeared.
    const same = last.has(f.path) && changed.length === 0;
    // readFile's bytes are a fresh copy: they are kept for the next comparison, and a copy
    // is transferred (not copied again by postMessage) to the page.
    last.set(f.path, bytes);
    seen.add(f.path);
    out.push({ ...f, size: bytes.length, bytes: same ? null : bytes.slice(), changedBlocks: changed });
  }
  for (const k of [...last.keys()]) if (!seen.has(k)) last.delete(k);
  return out;
}

async function run(job: number, sql: string, snap: boolean): Promise<void> {
  const p = pg!;
  const t0 = performance.now();
  const notices: string[] = [];
  let results: ResultSet[] = [];
  let error: ServerError | null = null;
  try {
    const rs = await p.exec(sql, { onNotice: (n) => void notices.push(`${n.severity}: ${n.message}`) });
    results = rs.map((r) => resultSet(r, ''));
  } catch (e) {
    error = serverError(e);
  }
  let files: SnapFileMsg[] | null = null;
  let snapshotNote: string | null = null;
  if (snap) {
    try {
      files = await snapshot(p);
    } catch (e) {
      snapshotNote = `No snapshot: ${serverError(e).message}`;
    }
  }
  const transfer = (files ?? []).flatMap((f) => (f.bytes ? [f.bytes.buffer] : []));
  post({ type: 'result', job, results, error, notices, files, snapshotNote, ms: performance.now() - t0 }, transfer);
}

/** The data directory as it is now, for a cancel of the next statement to start from
 * (replaying the statements instead would give other now(), random() and sequence values).
 * The page asks once it has drawn the statement's page: the save takes seconds of a core. */
async function save(job: number): Promise<void> {
  try {
    post({ type: 'saved', job, dump: await pg!.dumpDataDir('none') });
  } catch (e) {
    post({ type: 'saved', job, dump: null, error: serverError(e).message });
  }
}

async function ask(job: number, page: Uint8Array, question: AskPage): Promise<void> {
  try {
    const r = await pg!.query<Record<string, unknown>>(pageinspectSql(question), [page]);
    post({ type: 'ask', job, answer: r.rows[0] ?? null, error: null });
  } catch (e) {
    post({ type: 'ask', job, answer: null, error: serverError(e).message });
  }
}

async function write(job: number, path: string, block: number, page: Uint8Array): Promise<void> {
  const p = pg!;
  try {
    const full = `${PGDATA}/${path}`;
    const bytes = fsOf(p).readFile(full);
    bytes.set(page, block * page.length);
    // The snapshot's copy (`last`) stays as it was: the next snapshot shows the write as a change.
    fsOf(p).writeFile(full, bytes);
    // The server still has the page in shared buffers: evict the relation's, so its next
    // read is the file's (pg_buffercache_evict, PostgreSQL 17+).
    const node = path.split('/').pop()!.replace(/_.*$/, '');
    await p.query(`select pg_buffercache_evict(bufferid) from pg_buffercache where relfilenode = $1`, [Number(node)]);
    post({ type: 'written', job, error: null });
  } catch (e) {
    post({ type: 'written', job, error: serverError(e).message });
  }
}

// The first message starts the server; the others wait for it to be up, then run one at a
// time, in order.
let queue: Promise<void> | null = null;
serve<ToPlay | StartPlay, FromPlay>(
  (m) => {
    if (m.type === 'start') {
      queue ??= start(m.saved).catch((e: unknown) => post({ type: 'fatal', job: m.job, message: e instanceof Error ? e.message : String(e) }));
      return queue;
    }
    queue = (queue ?? Promise.resolve()).then(() => {
      if (!pg) return;
      switch (m.type) {
        case 'run':
          return run(m.job, m.sql, m.snapshot);
        case 'ask':
          return ask(m.job, m.page, m.question);
        case 'write':
          return write(m.job, m.path, m.block, m.page);
        case 'save':
          return save(m.job);
      }
    });
    // Each request answers its own failures; one that throws anyway is the console's, as
    // before the bridge.
    return queue.catch(() => undefined);
  },
  (job, message) => ({ type: 'fatal', job, message }),
);
