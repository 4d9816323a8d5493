// Differential test of `pgpage inspect --json` against pageinspect: every block of every
// corpus file (every access method, FSM/VM/init forks) and of corrupted copies, compared
// column by column with what PostgreSQL 15 itself prints for the same raw bytes
// (pg_read_binary_file), so no expected value here is ours.
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Cluster, PG_VERSION, lit, pgTempDir, rawPage } from './cluster';
import { buildCorpus, CORPUS_DB, listFiles, type CorpusFile } from './corpus';
import { ensurePgpage } from './pgpage';

/** Pages the shared corpus does not reach: GIN posting trees, deleted btree and GiST pages,
 * hash overflow and bitmap pages. */
const EXTRA_SQL = String.raw`
create table gin_many (a int[]);
insert into gin_many select array[1, g % 3] from generate_series(1, 100000) g;
create index gin_many_idx on gin_many using gin (a);
create table bt_del (k int);
insert into bt_del select generate_series(1, 100000);
create index bt_del_k on bt_del (k);
delete from bt_del where k between 1000 and 60000;
vacuum bt_del;
create table hash_ovf (k int);
insert into hash_ovf select g % 5 from generate_series(1, 20000) g;
create index hash_ovf_idx on hash_ovf using hash (k);
create table gist_del (b box);
insert into gist_del select box(point(g, g), point(g + 1, g + 1)) from generate_series(1, 20000) g;
create index gist_del_idx on gist_del using gist (b);
delete from gist_del where (b[0])[0] < 15000;
vacuum gist_del;
checkpoint;
`;

const BS = 8192;

type Json = Record<string, unknown>;
interface Block {
  block: number;
  absolute_block: number;
  kind: string;
  status: string;
  header: Json;
  items: Json[];
  special: Json | null;
}
interface Inspect {
  path: string;
  segment: number;
  fork: string;
  block_size: number;
  blocks: Block[];
}

let cluster: Cluster;
let files: CorpusFile[];

function inspect(path: string, extra: string[] = []): { out: Inspect; status: number } {
  const r = spawnSync(BIN, ['inspect', '--json', ...extra, path], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.error) throw r.error;
  if (r.status !== 0 && r.status !== 1) throw new Error(`pgpage inspect ${path}: exit ${r.status}: ${r.stderr}`);
  return { out: JSON.parse(r.stdout) as Inspect, status: r.status };
}

/** One row per block of a query built from the block's raw bytes (`p`) and number (`b`). */
function perBlock<T>(path: string, blocks: number, columns: string): (T & { b: number })[] {
  const q = `select b, ${columns} from (select b, pg_read_binary_file(${lit(path)}, b::bigint * ${BS}, ${BS}) as p
             from generate_series(0, ${blocks - 1}) b) s order by b`;
  return cluster.rows<T & { b: number }>(q, CORPUS_DB);
}

/** Mismatches found so far; reported together (expect per column is too slow for ~10^6). */
let mismatches: string[] = [];
let columnsCompared = 0;

/** Every column PostgreSQL printed has the same value in ours. */
function expectColumns(ours: Json | undefined, theirs: Json, where: string): void {
  if (ours === undefined || ours === null) {
    mismatches.push(`${where}: missing`);
    return;
  }
  for (const [k, v] of Object.entries(theirs)) {
    columnsCompared++;
    const o = JSON.stringify(ours[k]);
    if (o !== JSON.stringify(v)) mismatches.push(`${where}: ${k}: ours ${o}, PostgreSQL ${JSON.stringify(v)}`);
  }
}

function expectRows(ours: Json[], theirs: Json[] | null, where: string): void {
  const t = theirs ?? [];
  if (ours.length !== t.length) mismatches.push(`${where}: ${ours.length} rows, PostgreSQL ${t.length}`);
  t.forEach((row, i) => expectColumns(ours[i], row, `${where} row ${i + 1}`));
}

/** Fails the test with the first mismatches, if any. */
function expectNoMismatches(): void {
  const found = mismatches;
  mismatches = [];
  expect(found.slice(0, 30), `${found.length} mismatches`).toEqual([]);
}

/** page_header() with the checksum as the contract has it (unsigned). */
function header(h: Json): Json {
  return { ...h, checksum: (h.checksum as number) & 0xffff };
}

const HEADER = `(select row_to_json(h) from page_header(p) h) as header`;
const NEW = `(select upper = 0 from page_header(p)) as new`;

function expectedKind(f: CorpusFile): string {
  if (f.fork === 'fsm' || f.fork === 'vm') return f.fork;
  if (f.relkind === 'S') return 'sequence';
  return f.am;
}

let BIN = '';

beforeAll(() => {
  BIN = ensurePgpage();
  cluster = Cluster.create('pgpage-inspect');
  buildCorpus(cluster);
  cluster.sql('create extension if not exists pg_visibility;', CORPUS_DB);
  cluster.sql(EXTRA_SQL, CORPUS_DB);
  files = listFiles(cluster);
});

afterAll(() => {
  cluster?.destroy();
});

describe('pgpage inspect --json agrees with pageinspect', () => {
  test('the corpus has every access method and fork', () => {
    const kinds = new Set(files.filter((f) => f.blocks > 0).map(expectedKind));
    for (const k of ['heap', 'sequence', 'btree', 'hash', 'gist', 'gin', 'spgist', 'brin', 'fsm', 'vm']) {
      expect(kinds, k).toContain(k);
    }
    expect(files.some((f) => f.fork === 'init' && f.blocks > 0)).toBe(true);
  });

  test('every block: kind, status, header, and the access method’s own functions', () => {
    let compared = 0;
    const seen = new Map<string, number>();
    for (const f of files.filter((x) => x.blocks > 0)) {
      const { out } = inspect(f.path);
      const where = (b: number) => `${f.rel} ${f.fork} block ${b}`;
      expect(out.fork).toBe(f.fork);
      expect(out.segment).toBe(f.segment);
      expect(out.block_size).toBe(BS);
      expect(out.blocks.length).toBe(f.blocks);
      const kind = expectedKind(f);
      const pgCols = [HEADER, NEW, `page_checksum(p, b::bigint) as checksum`];
      const am = f.fork === 'main' || f.fork === 'init' ? kind : f.fork;
      switch (am) {
        case 'heap':
        case 'sequence':
          pgCols.push(`(select json_agg(row_to_json(x)::jsonb || coalesce((select to_jsonb(fl) from
                        heap_tuple_infomask_flags(x.t_infomask, x.t_infomask2) fl), '{}'::jsonb))
                        from heap_page_items(p) x) as items`);
          break;
        case 'btree':
          // pageinspect 13 refuses a deleted leaf ("not a valid btree leaf page": its btpo
          // holds an xid, not level 0); 14 on list its items.
          pgCols.push(`case when b = 0 then null ${PG_VERSION === 13 ? `when (get_byte(p, 8188) & 4) <> 0 then '"refused"'::json` : ''}
                        else (select json_agg(x) from bt_page_items(p) x) end as items`);
          break;
        case 'hash':
          pgCols.push(`case when (select upper from page_header(p)) = 0 then null else hash_page_type(p) end as hash_page_type`);
          break;
        case 'gist':
          // pageinspect has no GiST functions before 14.
          if (PG_VERSION >= 14) {
            pgCols.push(`(select row_to_json(x) from gist_page_opaque_info(p) x) as opaque`);
            pgCols.push(`(select json_agg(x) from gist_page_items_bytea(p) x) as items`);
          }
          break;
        case 'gin':
          pgCols.push(`(select row_to_json(x) from gin_page_opaque_info(p) x) as opaque`);
          break;
        case 'brin':
          pgCols.push(`brin_page_type(p) as brin_page_type`);
          break;
        case 'fsm':
          pgCols.push(`fsm_page_contents(p) as fsm`);
          break;
      }
      // The line pointers as heap_page_items sees them, for the AMs without an item function.
      if (['spgist', 'brin', 'gin'].includes(am)) {
        pgCols.push(`(select json_agg(json_build_object('lp', lp, 'lp_off', lp_off, 'lp_flags', lp_flags, 'lp_len', lp_len))
                      from heap_page_items(p)) as lines`);
      }
      const pg = perBlock<Json>(f.path, f.blocks, pgCols.join(', '));
      for (const row of pg) {
        const b = row.b;
        const ours = out.blocks[b];
        const w = where(b);
        expect(ours.block, w).toBe(b);
        expect(ours.absolute_block, w).toBe(f.segment * 131072 + b);
        expectColumns(ours.header, header(row.header as Json), `${w} header`);
        if (row.new) {
          expect(ours.kind, w).toBe(am === 'fsm' || am === 'vm' ? am : 'unknown');
          expect(ours.status, w).toBe('zero');
          continue;
        }
        expect(ours.kind, w).toBe(kind);
        expect(ours.status, w).toBe('ok');
        expect(ours.header.checksum, w).toBe((row.checksum as number) & 0xffff);
        seen.set(kind, (seen.get(kind) ?? 0) + 1);
        const special = ours.special ?? {};
        switch (am) {
          case 'heap':
          case 'sequence':
          case 'btree':
            if ((am !== 'btree' || b !== 0) && row.items !== 'refused') expectRows(ours.items, row.items as Json[] | null, `${w} items`);
            break;
          case 'hash':
            expect(special.hash_page_type, w).toBe(row.hash_page_type);
            break;
          case 'gist':
            if (PG_VERSION >= 14) {
              expectColumns(special, row.opaque as Json, `${w} gist_page_opaque_info`);
              expectRows(ours.items, row.items as Json[] | null, `${w} gist items`);
            }
            break;
          case 'gin':
            expectColumns(special, row.opaque as Json, `${w} gin_page_opaque_info`);
            break;
          case 'brin':
            expect(special.brin_page_type, w).toBe(row.brin_page_type);
            break;
          case 'fsm':
            expect(special.fsm_page_contents, w).toBe(row.fsm);
            break;
        }
        if (row.lines !== undefined && !(am === 'brin' && special.brin_page_type !== 'regular')) {
          const gin = am === 'gin' && (special.flags as string[]).some((x) => ['meta', 'data'].includes(x));
          if (!gin && !(am === 'spgist' && b === 0)) expectRows(ours.items, row.lines as Json[] | null, `${w} lines`);
        }
        compared++;
      }
    }
    expectNoMismatches();
    console.log(`inspect vs pageinspect: ${compared} blocks, ${columnsCompared} columns compared`);
    expect(compared).toBeGreaterThan(1000);
    expect(columnsCompared).toBeGreaterThan(100_000);
    const special = (rel: string) =>
      files.filter((x) => x.rel === rel && x.fork === 'main').flatMap((f) => inspect(f.path).out.blocks.map((b) => b.special ?? {}));
    expect(special('bt_del_k').filter((s) => s.type === 'd' || s.type === 'D').length, 'deleted btree pages').toBeGreaterThan(0);
    expect(special('hash_ovf_idx').filter((s) => s.hash_page_type === 'overflow').length, 'hash overflow pages').toBeGreaterThan(0);
    expect(special('hash_ovf_idx').filter((s) => s.hash_page_type === 'bitmap').length, 'hash bitmap pages').toBeGreaterThan(0);
    expect(special('gin_many_idx').filter((s) => (s.flags as string[]).join() === 'data,leaf,compressed').length).toBeGreaterThan(1);
    expect(special('gin_many_idx').filter((s) => (s.flags as string[]).join() === 'data').length, 'posting tree internal').toBeGreaterThan(0);
    for (const k of ['heap', 'sequence', 'btree', 'hash', 'gist', 'gin', 'spgist', 'brin', 'fsm', 'vm']) {
      expect(seen.get(k) ?? 0, `decoded ${k} pages`).toBeGreaterThan(0);
    }
  });

  test('btree: bt_metap and bt_page_stats', () => {
    // These read through shared buffers; an unlogged relation's main fork on disk is only
    // written at shutdown, so only permanent relations are compared.
    const unlogged = new Set(files.filter((x) => x.fork === 'init').map((x) => x.rel));
    for (const f of files.filter((x) => x.am === 'btree' && x.fork === 'main' && !unlogged.has(x.rel))) {
      const { out } = inspect(f.path);
      const [meta] = cluster.rows<Json>(`select * from bt_metap(${lit(f.rel)})`, CORPUS_DB);
      expectColumns((out.blocks[0].special as Json).meta as Json, meta, `${f.rel} bt_metap`);
      const stats = cluster.rows<Json>(`select s.* from generate_series(1, ${f.blocks - 1}) b, bt_page_stats(${lit(f.rel)}, b) s order by b`, CORPUS_DB);
      for (const s of stats) {
        const { blkno, ...cols } = s;
        // bt_page_stats of 13 fills only `type` and `btpo` (the xid) of a deleted page.
        const want = PG_VERSION === 13 && cols.type === 'd' ? { type: cols.type, btpo: cols.btpo } : cols;
        expectColumns(out.blocks[blkno as number].special as Json, want, `${f.rel} bt_page_stats ${String(blkno)}`);
      }
    }
    expectNoMismatches();
    const multi = files.find((x) => x.rel === 'bt_multi' && x.fork === 'main');
    const dedup = files.find((x) => x.rel === 'bt_dedup' && x.fork === 'main');
    const multiOut = inspect(multi!.path).out;
    expect(((multiOut.blocks[0].special as Json).meta as Json).level as number).toBeGreaterThan(0);
    const postings = inspect(dedup!.path)
      .out.blocks.flatMap((b) => b.items)
      .filter((i) => Array.isArray(i.tids));
    expect(postings.length).toBeGreaterThan(0);
  });

  test('hash, gin, brin metapages; hash items; gin leaf items; brin revmap', () => {
    for (const f of files.filter((x) => x.fork === 'main' && ['hash', 'gin', 'brin'].includes(x.am))) {
      const { out } = inspect(f.path);
      const meta = (b: Block) => (b.special as Json).meta as Json;
      if (f.am === 'hash') {
        const pg = perBlock<Json>(
          f.path,
          f.blocks,
          `case when (select upper from page_header(p)) = 0 then null else hash_page_type(p) end as t,
           case when hash_page_type(p) = 'metapage' then (select row_to_json(x) from hash_metapage_info(p) x) end as meta,
           case when hash_page_type(p) in ('bucket', 'overflow') then (select json_agg(x) from hash_page_items(p) x) end as items,
           case when hash_page_type(p) in ('bucket', 'overflow') then (select row_to_json(x) from hash_page_stats(p) x) end as stats`,
        );
        for (const row of pg) {
          const ours = out.blocks[row.b];
          if (row.meta) expectColumns(meta(ours), row.meta as Json, `hash meta ${row.b}`);
          if (row.stats) {
            expectColumns(ours.special as Json, row.stats as Json, `hash_page_stats ${row.b}`);
            expectRows(ours.items, row.items as Json[] | null, `hash items ${row.b}`);
          }
        }
        expect(pg.filter((r) => r.items).length).toBeGreaterThan(0);
      }
      if (f.am === 'gin') {
        const pg = perBlock<Json>(
          f.path,
          f.blocks,
          `case when b = 0 then (select row_to_json(x) from gin_metapage_info(p) x) end as meta,
           case when (select flags from gin_page_opaque_info(p)) = '{data,leaf,compressed}'
             then (select json_agg(x) from gin_leafpage_items(p) x) end as items`,
        );
        expectColumns(meta(out.blocks[0]), pg[0].meta as Json, 'gin_metapage_info');
        for (const row of pg.filter((r) => r.items)) expectRows(out.blocks[row.b].items, row.items as Json[], `gin leaf ${row.b}`);
      }
      if (f.am === 'brin') {
        const pg = perBlock<Json>(
          f.path,
          f.blocks,
          `case when brin_page_type(p) = 'meta' then (select row_to_json(x) from brin_metapage_info(p) x) end as meta,
           case when brin_page_type(p) = 'revmap' then (select json_agg(json_build_object('pages', x)) from brin_revmap_data(p) x) end as items`,
        );
        expectColumns(meta(out.blocks[0]), pg[0].meta as Json, 'brin_metapage_info');
        const revmaps = pg.filter((r) => r.items);
        expect(revmaps.length).toBeGreaterThan(0);
        for (const row of revmaps) expectRows(out.blocks[row.b].items, row.items as Json[], `brin revmap ${row.b}`);
      }
    }
    expectNoMismatches();
  });

  test('sequence tuple and visibility map bits', () => {
    const seq = files.find((x) => x.rel === 'seq_a')!;
    const [s] = cluster.rows<Json>(`select last_value::int8 as last_value, log_cnt::int8 as log_cnt, is_called from seq_a`, CORPUS_DB);
    const special = inspect(seq.path).out.blocks[0].special as Json;
    expect(special.magic).toBe(0x1717);
    expect({ last_value: special.last_value, log_cnt: special.log_cnt, is_called: special.is_called }).toEqual({
      last_value: Number(s.last_value),
      log_cnt: Number(s.log_cnt),
      is_called: s.is_called,
    });
    let vmPages = 0;
    for (const f of files.filter((x) => x.fork === 'vm' && x.blocks > 0)) {
      const { out } = inspect(f.path);
      const pg = cluster.rows<{ blkno: number; all_visible: boolean; all_frozen: boolean }>(
        `select * from pg_visibility_map(${lit(f.rel)}) order by blkno`,
        CORPUS_DB,
      );
      const visible = new Set(out.blocks.flatMap((b) => (b.special as Json).all_visible as number[]));
      const frozen = new Set(out.blocks.flatMap((b) => (b.special as Json).all_frozen as number[]));
      for (const r of pg) {
        expect({ rel: f.rel, blk: r.blkno, v: visible.has(r.blkno), f: frozen.has(r.blkno) }).toEqual({
          rel: f.rel,
          blk: r.blkno,
          v: r.all_visible,
          f: r.all_frozen,
        });
      }
      vmPages += pg.filter((r) => r.all_visible).length;
    }
    expect(vmPages).toBeGreaterThan(0);
  });
});

describe('corrupted copies still decode as pageinspect reads them', () => {
  test('random byte damage in heap pages', () => {
    const dir = pgTempDir('pgpage-inspect-bad-');
    let rng = 0x2545f491;
    const rand = (n: number) => {
      rng ^= rng << 13;
      rng ^= rng >>> 17;
      rng ^= rng << 5;
      return (rng >>> 0) % n;
    };
    let compared = 0;
    // Only heap pages: heap_page_items checks line pointers against the page, while
    // bt_page_items trusts them and could read past the page on damaged input.
    for (const rel of ['heap_hist', 'heap_wide', 'heap_toast']) {
      const f = files.find((x) => x.rel === rel && x.fork === 'main')!;
      const bytes = readFileSync(f.path);
      const blocks = Math.min(f.blocks, 40);
      const bad = Buffer.from(bytes.subarray(0, blocks * BS));
      for (let b = 0; b < blocks; b++) {
        const base = b * BS;
        const lower = bad.readUInt16LE(base + 12);
        for (let k = 0; k < 6; k++) {
          // Half the hits land on line pointers and tuple headers, the rest anywhere past the header.
          const off = k % 2 === 0 ? 24 + rand(Math.max(lower - 24, 1)) : 24 + rand(BS - 24);
          bad[base + off] ^= 1 << rand(8);
        }
      }
      const path = join(dir, f.path.split('/').pop()!);
      writeFileSync(path, bad);
      chmodSync(path, 0o644);
      // A copy outside the data directory: its version is told, as pageinspect's is.
      const { out, status } = inspect(path, ['--pg-version', String(PG_VERSION)]);
      expect(status).toBe(1);
      for (let b = 0; b < blocks; b++) {
        const ours = out.blocks[b];
        const fn = 'heap_page_items';
        // pageinspect refuses some damaged pages (that is its answer); we compare where it answers.
        const r = cluster.psqlRaw(
          `select json_build_object('header', (select row_to_json(h) from page_header(p) h),
                   'items', (select json_agg(x) from ${fn}(p) x))
             from (select ${rawPage(path, b)} as p) s;`,
          CORPUS_DB,
          false,
        );
        expect(ours.status).not.toBe('ok');
        if (r.status !== 0 || r.stderr.includes('ERROR')) continue;
        const pg = JSON.parse(r.stdout.trim()) as { header: Json; items: Json[] | null };
        expectColumns(ours.header, header(pg.header), `${rel} damaged ${b} header`);
        expectRows(ours.items, pg.items, `${rel} damaged ${b} items`);
        compared++;
      }
    }
    expectNoMismatches();
    console.log(`damaged heap pages compared with pageinspect: ${compared}`);
    expect(compared).toBeGreaterThan(30);
  });
});

describe('damaged btree pages', () => {
  test('LP_DEAD bits, LSN and cycle ids changed: bt_page_items and the header follow', () => {
    // Only damage that keeps every tuple where its line pointer says: bt_page_items trusts
    // line pointers and tuple sizes, so other damage could make it read past the page.
    const dir = pgTempDir('pgpage-inspect-bt-');
    const f = files.find((x) => x.rel === 'bt_multi' && x.fork === 'main')!;
    const blocks = Math.min(f.blocks, 30);
    const bad = Buffer.from(readFileSync(f.path).subarray(0, blocks * BS));
    let deadBits = 0;
    for (let b = 1; b < blocks; b++) {
      const base = b * BS;
      bad[base + 3] ^= 0x5a; // pd_lsn
      bad[base + BS - 2] ^= 0x01; // btpo_cycleid
      const lower = bad.readUInt16LE(base + 12);
      for (let lp = base + 24 + 4; lp < base + lower; lp += 4 * 7) {
        const w = bad.readUInt32LE(lp);
        if (((w >>> 15) & 3) === 1) {
          bad.writeUInt32LE((w | (3 << 15)) >>> 0, lp); // LP_NORMAL -> LP_DEAD
          deadBits++;
        }
      }
    }
    const path = join(dir, f.path.split('/').pop()!);
    writeFileSync(path, bad);
    chmodSync(path, 0o644);
    const { out } = inspect(path, ['--pg-version', String(PG_VERSION)]);
    const pg = perBlock<Json>(path, blocks, `${HEADER}, case when b = 0 then null else (select json_agg(x) from bt_page_items(p) x) end as items`);
    for (const row of pg.filter((r) => r.b > 0)) {
      const ours = out.blocks[row.b];
      expectColumns(ours.header, header(row.header as Json), `bt damaged ${row.b} header`);
      expectRows(ours.items, row.items as Json[] | null, `bt damaged ${row.b} items`);
      expect(ours.status).toBe('mismatch');
    }
    expectNoMismatches();
    const dead = out.blocks.flatMap((b) => b.items).filter((i) => i.dead === true).length;
    expect(deadBits).toBeGreaterThan(50);
    expect(dead).toBeGreaterThan(0);
  });
});

describe('CLI contract', () => {
  function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
    return spawnSync(BIN, args, { encoding: 'utf8' });
  }

  test('--block, --kind, exit status 2 with one line', () => {
    const f = files.find((x) => x.rel === 'heap_hist' && x.fork === 'main')!;
    const one = inspect(f.path, ['--block', '3']).out;
    expect(one.blocks.map((b) => b.block)).toEqual([3]);
    const asUnknown = inspect(f.path, ['--block', '3', '--kind', 'unknown']).out.blocks[0];
    expect(asUnknown.kind).toBe('unknown');
    const out = run(['inspect', '--json', '--block', String(f.blocks), f.path]);
    expect(out.status).toBe(2);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    const dir = pgTempDir('pgpage-inspect-cli-');
    const empty = join(dir, '16384');
    writeFileSync(empty, '');
    const short = join(dir, '16387');
    writeFileSync(short, Buffer.alloc(100, 1));
    // An empty file is a relation of no pages (an unlogged table's _init fork), as for verify.
    const none = run(['inspect', '--json', empty]);
    expect(none.status).toBe(0);
    expect((JSON.parse(none.stdout) as { blocks: unknown[] }).blocks).toEqual([]);
    expect(none.stderr.trim().split('\n')).toHaveLength(1);
    for (const args of [
      ['inspect', short],
      ['inspect', join(dir, '99999')],
      ['inspect', '--kind', 'nope', f.path],
      ['inspect', '--endian', 'middle', f.path],
    ]) {
      const r = run(args);
      expect({ args, status: r.status }).toEqual({ args, status: 2 });
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
    // Text or garbage under a relation file's name is still pages, as for verify: each one a
    // mismatch with flagged values, exit 1, and the JSON stays whole.
    const text = join(dir, '16385');
    writeFileSync(text, 'hello, this is not a relation file\n'.repeat(400));
    const garbage = inspect(text);
    expect(garbage.status).toBe(1);
    expect(garbage.out.blocks.map((b) => b.status)).toEqual(['mismatch']);
    // The segment comes from the `.N` suffix (or --segment) and moves absolute_block, so the
    // checksum no longer matches: exit 1, every block a mismatch.
    const seg = join(dir, '16386.2');
    writeFileSync(seg, readFileSync(f.path).subarray(0, 4 * BS));
    const moved = inspect(seg);
    expect(moved.status).toBe(1);
    expect(moved.out.segment).toBe(2);
    expect(moved.out.blocks.map((b) => [b.absolute_block, b.status])).toEqual([0, 1, 2, 3].map((b) => [2 * 131072 + b, 'mismatch']));
    const back = inspect(seg, ['--segment', '0']);
    expect(back.status).toBe(0);
    expect(back.out.blocks.map((b) => b.absolute_block)).toEqual([0, 1, 2, 3]);
    const human = run(['inspect', '--block', '0', f.path]);
    expect(human.status).toBe(0);
    expect(human.stdout).toMatch(/header: .*lsn=0\//);
  });
});
