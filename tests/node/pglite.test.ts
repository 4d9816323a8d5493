// The playground's plumbing under Node: PGlite (PostgreSQL 18 in WebAssembly) runs every
// lesson; after each statement and a CHECKPOINT, every file of every relation, read from
// PGlite's own file system, decodes in pgpage's wasm core to exactly what the same server's
// pageinspect says of the same bytes, and its checksums verify as page_checksum() computes them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pageinspect } from '@electric-sql/pglite/contrib/pageinspect';
import { pg_walinspect } from '@electric-sql/pglite/contrib/pg_walinspect';
import { pg_buffercache } from '@electric-sql/pglite/contrib/pg_buffercache';
import { pg_visibility } from '@electric-sql/pglite/contrib/pg_visibility';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareAnswer, pageinspectSql, type AskPage } from '../../web/src/playground/ask';
import type { DecodedColumns } from '../../web/src/lib/spans';
import { LESSONS, sayOf, type LessonStep, type StepOutcome } from '../../web/src/playground/lessons';
import type { Snapshot } from '../../web/src/playground/Playground';
import { compareSnapshots, type SnapshotComparison } from '../../web/src/playground/SnapshotDiff';
import { RELATIONS_SQL, relationFiles, type PlayFile, type PlayRelation } from '../../web/src/playground/relations';

type Wasm = typeof import('../../web/pkg/pgpage_wasm.js');
type Json = Record<string, unknown>;

const BS = 8192;
const STATUS = ['ok', 'mismatch', 'zero', 'new_not_zero', 'bad_header'];

let w: Wasm;
let pg: PGlite;

function readRel(path: string): Uint8Array {
  return pg.Module.FS.readFile(`${PGlite.paths.PGDATA}/${path}`) as Uint8Array;
}
function exists(path: string): boolean {
  return pg.Module.FS.analyzePath(`${PGlite.paths.PGDATA}/${path}`).exists;
}

async function snapshot(): Promise<{ file: PlayFile; bytes: Uint8Array }[]> {
  await pg.exec('checkpoint');
  const rels = (await pg.query<PlayRelation>(RELATIONS_SQL)).rows;
  return relationFiles(rels, exists).map((file) => ({ file, bytes: readRel(file.path) }));
}

/** What pageinspect says of one page's bytes: the playground's own "Ask PostgreSQL" query. */
async function pageinspectOf(page: Uint8Array, question: AskPage): Promise<Json> {
  return (await pg.query<Json>(pageinspectSql(question), [page])).rows[0];
}

let mismatches: string[] = [];
/** The bytes each file had when it last agreed. */
const agreed = new Map<string, Uint8Array>();
let compared = 0;
/** brin_page_items' values compared, and what was said not to be. */
let summariesCompared = 0;
const notCompared = new Set<string>();

/** The relation's columns (from the server's catalog) for the core's decode of its main fork. */
const columnsOf = (file: PlayFile): string | undefined => (file.fork === 'main' ? (file.relation.columns ?? undefined) : undefined);
/** Functions that answered, per page kind, over the whole run. */
const answered = new Map<string, Set<string>>();

/** Every page of every file: pgpage's decode against pageinspect, its checksum against page_checksum. */
async function expectAgrees(files: { file: PlayFile; bytes: Uint8Array }[], where: string): Promise<void> {
  for (const { file, bytes } of files) {
    // A file a statement left as it was agreed already.
    const last = agreed.get(file.path);
    if (last && last.length === bytes.length && last.every((x, i) => x === bytes[i])) continue;
    agreed.set(file.path, bytes);
    expect(bytes.length % BS, `${file.path} whole pages`).toBe(0);
    const blocks = bytes.length / BS;
    const fileKind = blocks > 0 ? w.file_kind(bytes.subarray(0, Math.min(bytes.length, w.detect_head_bytes())), BS, false, file.fork) : '';
    const v = w.verify(bytes, 0, BS, false);
    const status = Array.from(v.status, (s) => STATUS[s]);
    const stored = Array.from(v.stored);
    v.free();
    for (let b = 0; b < blocks; b++) {
      const page = bytes.subarray(b * BS, (b + 1) * BS);
      const at = `${where}: ${file.relation.name} ${file.path} block ${b}`;
      const question: AskPage = {
        kind: file.fork === 'main' ? file.relation.am || 'sequence' : file.fork,
        block: b,
        fork: file.fork,
        relation: file.relation.oid,
      };
      const theirs = await pageinspectOf(page, question);
      const header = theirs.page_header as Json;
      // An all-zero page (a VM or FSM extended ahead) has no checksum; the server accepts it.
      if (header.upper === 0) {
        expect(status[b], at).toBe('zero');
        continue;
      }
      expect(status[b], at).toBe('ok');
      expect(stored[b], at).toBe((theirs.page_checksum as number) & 0xffff);
      // The buffer's copy is the file's page but for pd_checksum: the server sets the checksum
      // only in the copy it writes (PageSetChecksumCopy), so the buffer keeps 0 or whatever
      // an older read brought in.
      const raw = (await pg.query<{ p: Uint8Array }>(`select get_raw_page($1::int::oid::regclass::text, $2, $3) as p`, [file.relation.oid, file.fork, b]))
        .rows[0].p;
      const differ = Array.from(raw.keys()).filter((i) => raw[i] !== page[i] && i !== 8 && i !== 9);
      expect(differ.slice(0, 10), `${at}: bytes where the file is not the buffer's page`).toEqual([]);
      expect(theirs.same_page, `${at}: the server's page is the file's`).toBe(true);

      const d = w.decode(page, b, false, file.fork, '', fileKind, 18, columnsOf(file));
      const ours = JSON.parse(d.json) as DecodedColumns;
      d.free();
      expect(ours.kind, at).toBe(question.kind);
      const verdict = compareAnswer(question, { ...ours, items: ours.items ?? [] }, theirs);
      compared += verdict.fields.length;
      for (const f of verdict.fields) if (!f.agree) mismatches.push(`${at}: ${f.fn} ${f.field}: ours ${f.pgpage}, PostgreSQL ${f.postgres}`);
      for (const f of verdict.fields) if (f.fn === 'brin_page_items' && /\.value$/.test(f.field)) summariesCompared++;
      for (const n of verdict.notes) notCompared.add(n);
      const seen = answered.get(question.kind) ?? new Set<string>();
      for (const f of verdict.fields) seen.add(f.fn);
      answered.set(question.kind, seen);
    }
  }
  const found = mismatches;
  mismatches = [];
  expect(found.slice(0, 20), `${found.length} mismatches`).toEqual([]);
}

/** The decoded items of a relation's main fork, every block, in order. */
function itemsOf(files: { file: PlayFile; bytes: Uint8Array }[], name: string): Json[][] {
  const f = files.find((x) => x.file.relation.name === name && x.file.fork === 'main');
  if (!f) throw new Error(`no ${name}`);
  const kind = w.file_kind(f.bytes.subarray(0, Math.min(f.bytes.length, w.detect_head_bytes())), BS, false, 'main');
  return Array.from({ length: f.bytes.length / BS }, (_, b) => {
    const d = w.decode(f.bytes.subarray(b * BS, (b + 1) * BS), b, false, 'main', '', kind, 18, columnsOf(f.file));
    const items = (JSON.parse(d.json) as { items?: Json[] }).items ?? [];
    d.free();
    return items;
  });
}

/**
 * What the learner does with the lab after a `lab-write` step: one byte of the shown page's
 * first tuple changed in the server's file ('row 1' becomes 'row !'), its buffer evicted so
 * the next read is the file's. The damaged file is the snapshot the next step is compared with;
 * it disagrees with the server on purpose, so it is not held against pageinspect.
 */
async function learnerEdits(files: { file: PlayFile; bytes: Uint8Array }[], step: LessonStep): Promise<{ file: PlayFile; bytes: Uint8Array }[]> {
  const show = step.show!;
  const f = files.find((x) => x.file.relation.name === show.relation && x.file.fork === 'main')!;
  const bytes = f.bytes.slice();
  const end = (
    await pg.query<{ end: number }>(`select lp_off + lp_len - 1 as end from heap_page_items(get_raw_page($1, $2)) where lp = 1`, [show.relation, show.block])
  ).rows[0].end;
  bytes[show.block * BS + end] ^= 0x10;
  pg.Module.FS.writeFile(`${PGlite.paths.PGDATA}/${f.file.path}`, bytes);
  await pg.query(`select pg_buffercache_evict(bufferid) from pg_buffercache where relfilenode = pg_relation_filenode($1)`, [show.relation]);
  agreed.set(f.file.path, bytes);
  return files.map((x) => (x === f ? { file: x.file, bytes } : x));
}

type Item = { lp: number; lp_off: number; lp_flags: number; t_xmin: string | null; t_xmax: string | null; t_ctid: string | null; raw_flags: string[] | null };
/** heap_page_items of a page's bytes, with the raw flags by name. */
async function heapItems(page: Uint8Array | null): Promise<Map<number, Item>> {
  if (!page) return new Map();
  const rows = (
    await pg.query<Item>(
      `select lp, lp_off, lp_flags, t_xmin::text, t_xmax::text, t_ctid::text, (select raw_flags from heap_tuple_infomask_flags(t_infomask, t_infomask2)) as raw_flags from heap_page_items($1)`,
      [page],
    )
  ).rows;
  return new Map(rows.map((r) => [r.lp, r]));
}
const storyEvents = new Set<string>();

/**
 * Each fact of every page story the diff tells (pgpage::story, through the wasm module), held
 * against pageinspect's heap_page_items, bt_page_items, page_header, page_checksum and
 * pg_visibility_map on the same pages; and every heap page's line-pointer picture (heap_lines)
 * against heap_page_items.
 */
async function expectStoriesHold(
  d: SnapshotComparison,
  was: { file: PlayFile; bytes: Uint8Array }[],
  now: { file: PlayFile; bytes: Uint8Array }[],
  where: string,
): Promise<void> {
  const pageOf = (files: typeof now, path: string, block: number) => {
    const f = files.find((x) => x.file.path === path);
    return f && f.bytes.length >= (block + 1) * BS ? f.bytes.slice(block * BS, (block + 1) * BS) : null;
  };
  for (const p of d.pages) {
    const at = `${where}: ${p.relation} ${p.fork} block ${p.block}`;
    const a = pageOf(was, p.path, p.block);
    const b = pageOf(now, p.path, p.block);
    if (p.story.changes.length > 0) expect(p.story.sentence, at).not.toBe('');
    const file = now.find((x) => x.file.path === p.path)!.file;
    const heap = file.fork === 'main' && ['r', 't', 'm'].includes(file.relation.relkind);
    const [ia, ib] = heap ? await Promise.all([heapItems(a), heapItems(b)]) : [new Map<number, Item>(), new Map<number, Item>()];
    if (heap && b) {
      // The picture's facts are pageinspect's.
      const lines = JSON.parse(w.heap_lines(b, p.block, false)) as {
        items: {
          lp: number;
          lp_flags: string;
          redirect_to?: number;
          t_xmin?: number;
          t_xmax?: number;
          t_ctid?: string;
          hot_updated: boolean;
          heap_only: boolean;
          hot_next?: number;
        }[];
      } | null;
      for (const it of lines?.items ?? []) {
        const r = ib.get(it.lp)!;
        expect(['LP_UNUSED', 'LP_NORMAL', 'LP_REDIRECT', 'LP_DEAD'][r.lp_flags], `${at} lp ${it.lp}`).toBe(it.lp_flags);
        if (r.lp_flags === 2) expect(it.redirect_to, `${at} lp ${it.lp} redirect`).toBe(r.lp_off);
        if (r.lp_flags === 1) {
          expect([String(it.t_xmin), String(it.t_xmax), it.t_ctid], `${at} lp ${it.lp}`).toEqual([r.t_xmin, r.t_xmax, r.t_ctid]);
          expect(it.hot_updated, `${at} lp ${it.lp} HEAP_HOT_UPDATED`).toBe(r.raw_flags!.includes('HEAP_HOT_UPDATED'));
          expect(it.heap_only, `${at} lp ${it.lp} HEAP_ONLY_TUPLE`).toBe(r.raw_flags!.includes('HEAP_ONLY_TUPLE'));
          if (it.hot_next !== undefined) expect(r.t_ctid, `${at} lp ${it.lp} HOT chain`).toBe(`(${p.block},${it.hot_next})`);
        }
      }
    }
    const flagsOf = (m: Map<number, Item>, lp: number) => m.get(lp)?.raw_flags ?? [];
    for (const c of p.story.changes) {
      storyEvents.add(c.event);
      const t = `${at}: ${c.event} ${JSON.stringify(c)}`;
      switch (c.event) {
        case 'redirected':
          expect(ib.get(c.from), t).toMatchObject({ lp_flags: 2, lp_off: c.to });
          expect(p.story.sentence, t).toContain(`lp ${c.from} into a redirect to lp ${c.to}`);
          break;
        case 'hot_update':
          expect(ib.get(c.from)?.t_ctid, t).toBe(`(${p.block},${c.to})`);
          expect(flagsOf(ib, c.from), t).toContain('HEAP_HOT_UPDATED');
          expect(flagsOf(ib, c.to), t).toContain('HEAP_ONLY_TUPLE');
          // One HOT update is told as such; several in a row as their chain.
          if (p.story.changes.filter((x) => x.event === 'hot_update').length === 1)
            expect(p.story.sentence, t).toContain(`a HOT update (lp ${c.from} has HEAP_HOT_UPDATED, lp ${c.to} HEAP_ONLY_TUPLE)`);
          else expect(p.story.sentence, t).toMatch(/a HOT chain lp \d+ → /);
          break;
        case 'updated':
          expect(ib.get(c.lp)?.t_ctid, t).toBe(c.to);
          expect(ib.get(c.lp)?.t_xmax, t).not.toBe('0');
          expect(flagsOf(ib, c.lp), t).not.toContain('HEAP_HOT_UPDATED');
          break;
        case 'deleted':
          for (const lp of c.lps) {
            expect(ib.get(lp)?.t_ctid, t).toBe(`(${p.block},${lp})`);
            expect(ib.get(lp)?.t_xmax, t).not.toBe(ia.get(lp)?.t_xmax);
          }
          break;
        case 'inserted':
          for (const lp of c.lps) {
            expect(ib.get(lp)?.lp_flags, t).toBe(1);
            expect(flagsOf(ib, lp), t).not.toContain('HEAP_ONLY_TUPLE');
          }
          break;
        case 'dead':
          if (c.index) {
            const items = async (page: Uint8Array | null) =>
              page ? (await pg.query<{ itemoffset: number; dead: boolean }>('select itemoffset, dead from bt_page_items($1)', [page])).rows : [];
            const [xa, xb] = await Promise.all([items(a), items(b)]);
            for (const lp of c.lps) {
              expect(xb.find((r) => r.itemoffset === lp)?.dead, t).toBe(true);
              expect(xa.find((r) => r.itemoffset === lp)?.dead, t).toBe(false);
            }
          } else for (const lp of c.lps) expect([ia.get(lp)?.lp_flags, ib.get(lp)?.lp_flags], t).toEqual([expect.any(Number), 3]);
          break;
        case 'unused':
          for (const lp of c.lps)
            expect([ia.get(lp)?.lp_flags, ib.get(lp)?.lp_flags], t).toEqual([['LP_UNUSED', 'LP_NORMAL', 'LP_REDIRECT', 'LP_DEAD'].indexOf(c.from), 0]);
          break;
        case 'truncated':
          for (const lp of c.lps) expect([ia.has(lp), ib.has(lp)], t).toEqual([true, false]);
          break;
        case 'frozen':
          for (const lp of c.lps) {
            expect(flagsOf(ib, lp), t).toEqual(expect.arrayContaining(['HEAP_XMIN_COMMITTED', 'HEAP_XMIN_INVALID']));
            expect(flagsOf(ia, lp).includes('HEAP_XMIN_INVALID'), t).toBe(false);
          }
          break;
        case 'hint_bits':
          for (const lp of c.lps)
            expect(
              c.flags.some((f) => flagsOf(ib, lp).includes(f) && !flagsOf(ia, lp).includes(f)),
              t,
            ).toBe(true);
          break;
        case 'all_visible': {
          const flags = async (page: Uint8Array) => (await pg.query<{ flags: number }>('select flags from page_header($1)', [page])).rows[0].flags;
          expect([(await flags(a!)) & 4, (await flags(b!)) & 4], t).toEqual(c.set ? [0, 4] : [4, 0]);
          expect(p.story.sentence, t).toContain('PD_ALL_VISIBLE');
          break;
        }
        case 'index_tuples': {
          const count = async (page: Uint8Array | null) =>
            page ? (await pg.query<{ n: number }>('select count(*)::int as n from bt_page_items($1)', [page])).rows[0].n : 0;
          expect((await count(b)) - (await count(a)), t).toBe(c.added - c.removed);
          break;
        }
        case 'vm_bits':
          // The server's own map, right after the statement: the snapshot is its state.
          for (const blk of c.heap_blocks) {
            const m = (
              await pg.query<{ all_visible: boolean; all_frozen: boolean }>(
                'select all_visible, all_frozen from pg_visibility_map($1::int::oid::regclass, $2)',
                [file.relation.oid, blk],
              )
            ).rows[0];
            if (c.all_visible) expect(m.all_visible, t).toBe(c.set);
            if (c.all_frozen) expect(m.all_frozen, t).toBe(c.set);
          }
          break;
        case 'resealed':
        case 'checksum_broken': {
          const ok = async (page: Uint8Array) => {
            const r = (await pg.query<{ c: number; s: number }>('select page_checksum($1, $2) as c, (page_header($1)).checksum as s', [page, p.block])).rows[0];
            return (r.c & 0xffff) === (r.s & 0xffff);
          };
          expect([await ok(a!), await ok(b!)], t).toEqual(c.event === 'resealed' ? [false, true] : [true, false]);
          break;
        }
        default:
          break;
      }
    }
  }
}

let entryId = 0;
/** A snapshot as the playground holds it (its files as the inspector's entries). */
function asSnapshot(files: { file: PlayFile; bytes: Uint8Array }[]): Snapshot {
  return {
    files: files.map(({ file, bytes }) => ({ ...file, entry: { id: ++entryId, file: new File([bytes.slice()], file.path) } })),
  } as unknown as Snapshot;
}

/** A lesson's steps run on the server as they are, with the learner's edit of step 1's page
 * made after step `editAfter + 1` (or never): what each explanation is. As in the playground,
 * the edit shows in the diff of the next step. */
async function saidAsRun(id: string, editAfter?: number): Promise<{ said: string[]; outcomes: StepOutcome[] }> {
  const lesson = LESSONS.find((l) => l.id === id)!;
  let before = asSnapshot(await snapshot());
  const outcomes: StepOutcome[] = [];
  const said: string[] = [];
  for (const [i, step] of lesson.steps.entries()) {
    const notices: string[] = [];
    let error: string | null = null;
    await pg.exec(step.sql, { onNotice: (n) => void notices.push(`${n.severity}: ${n.message}`) }).catch((e: unknown) => {
      error = e instanceof Error ? e.message : String(e);
    });
    const files = await snapshot();
    const now = asSnapshot(files);
    const o: StepOutcome = { error, notices, diff: await compareSnapshots(w, before, now), earlier: [...outcomes] };
    outcomes.push(o);
    said.push(sayOf(step, o));
    before = now;
    if (i === editAfter) await learnerEdits(files, lesson.steps[0]);
  }
  return { said, outcomes };
}

beforeAll(async () => {
  w = await import('../../web/pkg/pgpage_wasm.js');
  w.initSync({ module: readFileSync(join(__dirname, '../../web/pkg/pgpage_wasm_bg.wasm')) });
  pg = await PGlite.create({ extensions: { pageinspect, pg_buffercache, pg_visibility, pg_walinspect } });
  await pg.exec('create extension pageinspect; create extension pg_buffercache; create extension pg_visibility; create extension pg_walinspect');
}, 120_000);

afterAll(async () => {
  await pg?.close();
});

describe('PGlite playground: the files agree with pageinspect', () => {
  it('the server is PostgreSQL 18 with data checksums on', async () => {
    const r = (await pg.query<{ v: string; c: string }>(`select current_setting('server_version_num') v, current_setting('data_checksums') c`)).rows[0];
    expect(r.v.slice(0, 2)).toBe('18');
    expect(r.c).toBe('on');
  });

  it('every lesson, statement by statement', { timeout: 600_000 }, async () => {
    const after = new Map<string, { file: PlayFile; bytes: Uint8Array }[]>();
    let before = asSnapshot([]);
    let last: { file: PlayFile; bytes: Uint8Array }[] = [];
    for (const lesson of LESSONS) {
      const outcomes: StepOutcome[] = [];
      for (const [i, step] of lesson.steps.entries()) {
        const where = `${lesson.id} step ${i + 1}`;
        // The corruption lesson's own SELECT fails once the learner has flipped a bit (done
        // here as the learner does it, after the step that asks for it). A step that fails
        // must say so.
        const notices: string[] = [];
        let error: string | null = null;
        const results = await pg.exec(step.sql, { onNotice: (n) => void notices.push(`${n.severity}: ${n.message}`) }).catch((e: unknown) => {
          const message = e instanceof Error ? e.message : String(e);
          if (!step.error?.test(message)) throw new Error(`${where}: ${message}`);
          error = message;
          return [];
        });
        if (lesson.id === 'visibility' && /pg_get_wal_block_info/.test(step.sql)) {
          // The server's WAL: the record that set block 0's pd_lsn is the hint bits' full-page image.
          const rows = results.at(-1)?.rows as { end_lsn: string; resource_manager: string; record_type: string; block_fpi_length: number }[];
          const lsn = (await pg.query<{ lsn: string }>(`select lsn::text from page_header(get_raw_page('vis', 0))`)).rows[0].lsn;
          const last = rows.at(-1);
          expect(last && [last.end_lsn, last.resource_manager, last.record_type], where).toEqual([lsn, 'XLOG', 'FPI_FOR_HINT']);
          expect(last!.block_fpi_length, where).toBeGreaterThan(0);
        }
        let files = await snapshot();
        await expectAgrees(files, where);
        if (step.then === 'lab-write') files = await learnerEdits(files, step);
        after.set(`${lesson.id}/${i + 1}`, files);
        // Each change the step expects, in the playground's own diff of the two snapshots.
        const now = asSnapshot(files);
        const d = await compareSnapshots(w, before, now);
        for (const x of step.expect) expect(x.test(d), `${where}: ${x.what}`).toBe(true);
        // Every step went as its lesson expects: the explanation shown is the lesson's own.
        const o: StepOutcome = { error, notices, diff: d, earlier: [...outcomes] };
        outcomes.push(o);
        expect(sayOf(step, o), `${where}: the explanation`).toBe(step.say);
        if (lesson.id === 'corruption' && i === 2) expect(notices.join('\n'), where).toMatch(/WARNING: ignoring checksum failure in block 0 /);
        if (lesson.id === 'corruption' && i === 3) {
          // The resealed page passes when read from the file too, not only from shared buffers.
          await pg.exec(`select pg_buffercache_evict(bufferid) from pg_buffercache where relfilenode = pg_relation_filenode('victim')`);
          expect((await pg.query<{ v: string }>('select v from victim where id = 1')).rows[0].v, where).toBe('row !');
        }
        await expectStoriesHold(d, last, files, where);
        last = files;
        before = now;
      }
    }
    await pg.exec('reset all');
    // Every kind of event the core's page_story tells was seen and held against the server.
    expect([...storyEvents].sort()).toEqual(
      expect.arrayContaining([
        'all_visible',
        'dead',
        'deleted',
        'frozen',
        'hint_bits',
        'hot_update',
        'index_tuples',
        'inserted',
        'new_page',
        'redirected',
        'resealed',
        'split',
        'truncated',
        'unused',
        'updated',
        'vm_bits',
      ]),
    );
    console.log(`PGlite lessons: ${compared} pageinspect columns compared`);
    expect(compared).toBeGreaterThan(10_000);
    // Every function "Ask PostgreSQL" asks answered for some page of the lessons.
    const asked = Object.fromEntries([...answered].map(([k, v]) => [k, [...v].sort()]));
    expect(asked).toEqual({
      heap: ['heap_page_items', 'page_header'],
      btree: ['bt_metap', 'bt_page_items', 'bt_page_stats', 'page_header'],
      hash: ['hash_metapage_info', 'hash_page_items', 'hash_page_stats', 'hash_page_type', 'page_header'],
      gist: ['gist_page_items_bytea', 'gist_page_opaque_info', 'page_header'],
      gin: ['gin_leafpage_items', 'gin_metapage_info', 'gin_page_opaque_info', 'page_header'],
      brin: ['brin_metapage_info', 'brin_page_items', 'brin_page_type', 'brin_revmap_data', 'page_header'],
      fsm: ['fsm_page_contents', 'page_header'],
      vm: ['page_header', 'pg_visibility_map'],
    });

    // What each lesson says happened, seen in pgpage's decode (the flags by pageinspect's names).
    const flags = (it: Json) => (it.raw_flags as string[] | undefined) ?? [];
    const hot = itemsOf(after.get('hot/2')!, 'stock')[0];
    expect(hot.filter((x) => flags(x).includes('HEAP_HOT_UPDATED')).length).toBe(1);
    expect(hot.filter((x) => flags(x).includes('HEAP_ONLY_TUPLE')).length).toBe(1);
    const pkeyBefore = itemsOf(after.get('hot/2')!, 'stock_pkey').flat().length;
    const pkeyAfter = itemsOf(after.get('hot/3')!, 'stock_pkey').flat().length;
    expect(pkeyAfter).toBe(pkeyBefore + 1);

    const deleted = itemsOf(after.get('vacuum/2')!, 'gone')[0];
    expect(deleted.filter((x) => x.t_xmax !== '0').length).toBe(30);
    const vacuumed = after.get('vacuum/3')!;
    // Row 60 was deleted too: its line pointer was the last, and VACUUM cuts unused ones off
    // the end of the array (PageTruncateLinePointerArray).
    const kept = itemsOf(vacuumed, 'gone')[0];
    expect(kept.length).toBe(59);
    expect(kept.filter((x) => x.lp_flags === 0).length).toBe(29);
    expect(vacuumed.filter((x) => x.file.relation.name === 'gone').map((x) => x.file.fork)).toEqual(['main', 'fsm', 'vm']);

    // TOAST: the core's varlena headers against the server's own functions and the TOAST
    // table's rows.
    const toastOf = (key: string) =>
      itemsOf(after.get(key)!, 'docs')
        .flat()
        .filter((x) => x.toast)
        .map((x) => ({ lp: x.lp as number, t: (x.toast as Json[])[0] }));
    const server = (
      await pg.query<{ id: number; c: string | null; s: number; o: number; ctid: string }>(
        'select id, pg_column_compression(body) c, pg_column_size(body) s, octet_length(body) o, ctid::text from docs order by id',
      )
    ).rows;
    const inline = toastOf('toast/2');
    expect(inline.map((x) => x.t)).toEqual([
      expect.objectContaining({ attnum: 2, varattrib: 'varattrib_4b.va_compressed', size: server[0].s, rawsize: server[0].o, compression: server[0].c }),
    ]);
    const docsToast = (
      await pg.query<{ oid: number; name: string }>(
        `select c.reltoastrelid::int as oid, t.relname::text as name from pg_class c join pg_class t on t.oid = c.reltoastrelid where c.relname = 'docs'`,
      )
    ).rows[0];
    const chunks = (
      await pg.query<{ chunk_id: number; chunk_seq: number }>(`select chunk_id::int, chunk_seq from pg_toast.${docsToast.name} order by chunk_seq`)
    ).rows;
    const external = toastOf('toast/4').find((x) => x.lp === 2)!.t;
    // The row with the pointer is id 3 now (the UPDATE of toast/5).
    const ext = server.find((r) => r.c === null)!;
    expect(external).toEqual({
      attnum: 2,
      varattrib: 'varattrib_1b_e',
      size: 18,
      va_tag: 18,
      va_rawsize: ext.o + 4,
      va_extinfo: ext.s,
      rawsize: ext.o,
      extsize: ext.s,
      compression: null,
      va_valueid: chunks[0].chunk_id,
      va_toastrelid: docsToast.oid,
    });
    expect(chunks.map((c) => c.chunk_id)).toEqual(chunks.map(() => external.va_valueid));
    // The TOAST table's tuples decode with its columns: chunk_id, chunk_seq, and chunk_data
    // (too long to print).
    const decodedChunks = itemsOf(after.get('toast/4')!, docsToast.name)
      .flat()
      .map((x) => x.values as (string | null)[]);
    expect(decodedChunks.map(([id, seq, data]) => [Number(id), Number(seq), data])).toEqual(chunks.map((c) => [c.chunk_id, c.chunk_seq, null]));
    // The UPDATE copied the pointer: the same value, no new chunk.
    const updated = toastOf('toast/5').filter((x) => x.t.varattrib === 'varattrib_1b_e');
    expect(updated.map((x) => x.t.va_valueid)).toEqual([external.va_valueid, external.va_valueid]);
    expect(itemsOf(after.get('toast/5')!, docsToast.name).flat().length).toBe(chunks.length);
    expect(itemsOf(after.get('toast/2')!, docsToast.name).flat().length, 'compressed inline: no chunks').toBe(0);

    // BRIN: every summary pageinspect printed was compared with the core's.
    expect(summariesCompared).toBeGreaterThan(10);
    expect([...notCompared]).toEqual([]);

    const leaves = (key: string) => itemsOf(after.get(key)!, 'nums_n').length;
    expect(leaves('split/2')).toBe(2);
    expect(leaves('split/3')).toBeGreaterThan(3);

    const node = (key: string) => after.get(key)!.find((x) => x.file.relation.name === 'big')!.file.relation.filenode;
    expect(node('vacuum-full/2')).not.toBe(node('vacuum-full/1'));
  });

  it('BRIN summaries of every opclass family against brin_page_items; what is not decoded is said', { timeout: 300_000 }, async () => {
    await pg.exec(`create table ranges (id int, s text, n int, a inet, r int4range, b box);
      insert into ranges select g, 'v' || g, case when g % 3 = 0 then null else g end, ('10.' || g % 200 || '.0.1')::inet,
        int4range(g, g + 10), box(point(g, g), point(g + 1, g + 1)) from generate_series(1, 2000) g;
      create index ranges_minmax on ranges using brin (id, s, n) with (pages_per_range = 2);
      create index ranges_inclusion on ranges using brin (a inet_inclusion_ops, r range_inclusion_ops, b box_inclusion_ops) with (pages_per_range = 4);
      create index ranges_bloom on ranges using brin (id int4_bloom_ops, s text_bloom_ops) with (pages_per_range = 4);
      create index ranges_multi on ranges using brin (id int4_minmax_multi_ops) with (pages_per_range = 4)`);
    const files = (await snapshot()).filter((f) => f.file.relation.owner === 'ranges' && f.file.relation.am === 'brin' && f.file.fork === 'main');
    expect(files.map((f) => f.file.relation.name).sort()).toEqual(['ranges_bloom', 'ranges_inclusion', 'ranges_minmax', 'ranges_multi']);
    const before = summariesCompared;
    await expectAgrees(files, 'BRIN opclasses');
    expect(summariesCompared - before).toBeGreaterThan(20);
    // minmax (int4, text, with NULLs), bloom and inclusion over inet print as the server
    // prints them. Said, not compared: minmax-multi; box (no output function here); and
    // range_inclusion_ops, whose index column is anyrange (the subtype is in each value's
    // range type oid, which the core does not map).
    expect([...notCompared].sort()).toEqual([
      'brin_page_items value: minmax-multi summaries (pg_brin_minmax_multi_summary) are not decoded',
      'brin_page_items value: pgpage has no output function for anyrange',
      'brin_page_items value: pgpage has no output function for box',
    ]);
    notCompared.clear();
  });

  it('the corruption lesson run without the edit it asks for: each explanation says what happened instead', { timeout: 120_000 }, async () => {
    await pg.exec('drop table if exists victim');
    const steps = LESSONS.find((l) => l.id === 'corruption')!.steps;
    const { said, outcomes } = await saidAsRun('corruption');
    // Nothing was refused, nothing warned of: the page never failed its checksum.
    expect(outcomes.map((o) => o.error)).toEqual([null, null, null, null]);
    expect(outcomes.flatMap((o) => o.notices).filter((n) => /checksum/.test(n))).toEqual([]);
    // Step 2's read set the hint bits (and nothing resealed anything).
    expect(outcomes[1].diff.pages.flatMap((p) => p.story.changes).some((c) => c.event === 'hint_bits')).toBe(true);
    expect(outcomes.flatMap((o) => o.diff.pages.flatMap((p) => p.story.changes)).some((c) => c.event === 'resealed')).toBe(false);
    expect(said).toEqual([steps[0].say, steps[1].otherwise![0].say, steps[2].otherwise![0].say, steps[3].otherwise![2].say]);
    await pg.exec('reset all');
  });

  it(
    'the corruption lesson with the edit made after step 2: the warning, no reseal, and the server refusing the page again',
    { timeout: 120_000 },
    async () => {
      await pg.exec('drop table if exists victim');
      const steps = LESSONS.find((l) => l.id === 'corruption')!.steps;
      const { said, outcomes } = await saidAsRun('corruption', 1);
      // Step 4 reads the damaged page from shared buffers, where no checksum is checked.
      expect(outcomes.map((o) => o.error)).toEqual([null, null, null, null]);
      expect(outcomes[2].notices.join('\n')).toMatch(/WARNING: ignoring checksum failure in block 0 /);
      // Step 3's read wrote nothing: the page in the file is the learner's, failing its checksum.
      const victim = outcomes[2].diff.pages.filter((p) => p.relation === 'victim' && p.fork === 'main');
      expect(victim.map((p) => [p.block, p.checksum.a, p.checksum.b, p.story.changes.map((c) => c.event)])).toEqual([
        [0, 'ok', 'mismatch', ['checksum_broken']],
      ]);
      expect(outcomes.flatMap((o) => o.diff.pages.flatMap((p) => p.story.changes)).some((c) => c.event === 'resealed')).toBe(false);
      expect(said).toEqual([steps[0].say, steps[1].otherwise![0].say, steps[2].otherwise![1].say, steps[3].otherwise![1].say]);
      // The file's page still fails: read from the file, it is refused.
      await pg.exec(`select pg_buffercache_evict(bufferid) from pg_buffercache where relfilenode = pg_relation_filenode('victim')`);
      await expect(pg.query('select count(*) from victim')).rejects.toThrow(steps[1].error!);
      await pg.exec('reset all; drop table victim');
    },
  );

  it('a flipped bit in the file: the server says so, and ignore_checksum_failure reads on', async () => {
    await pg.exec(`create table victim2 (id int, v text); insert into victim2 select g, 'row ' || g from generate_series(1, 20) g`);
    const [file] = await snapshot().then((fs) => fs.filter((f) => f.file.relation.name === 'victim2' && f.file.fork === 'main'));
    const page = file.bytes.slice(0, BS);
    // The last byte of the first row's tuple, the last letter of its text: 'row 1' becomes 'row !'.
    const lp = (await pg.query<{ end: number }>(`select lp_off + lp_len - 1 as end from heap_page_items(get_raw_page('victim2', 0)) where lp = 1`)).rows[0];
    page[lp.end] ^= 0x10;
    pg.Module.FS.writeFile(`${PGlite.paths.PGDATA}/${file.file.path}`, page);
    // The server still has the good page in shared buffers: evict it, so the next read is the file.
    await pg.exec(`select pg_buffercache_evict(bufferid) from pg_buffercache where relfilenode = pg_relation_filenode('victim2')`);
    await expect(pg.query('select count(*) from victim2')).rejects.toThrow(/invalid page in block 0 of relation "?base\/5\/\d+"?/);
    await pg.exec('set ignore_checksum_failure = on');
    const n = (await pg.query<{ n: number }>('select count(*)::int as n from victim2')).rows[0].n;
    expect(n).toBe(20);
    const first = (await pg.query<{ v: string }>('select v from victim2 where id = 1')).rows[0].v;
    expect(first).toBe('row !');
    await pg.exec('reset ignore_checksum_failure');
  });
});
