// What the page view shows, held against the server: the columns the wasm decoder gives the
// browser come in pageinspect's own order (page_header(), heap_page_items(), bt_page_items(),
// hash_page_items(), gist_page_items_bytea(), brin_revmap_data()); a visibility map page's
// bits per heap block equal pg_visibility_map(); a free space map page's nodes equal
// fsm_page_contents(), and its leaves stand for the heap blocks pg_freespace() reports, with
// the free bytes it reports. Every expected value here is the server's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Cluster, PG_VERSION, rawPage } from './cluster';

type Wasm = typeof import('../../web/pkg/pgpage_wasm.js');
type Json = Record<string, unknown>;

const BS = 8192;
let cluster: Cluster;
let w: Wasm;

const SQL = String.raw`
create extension pageinspect;
create extension pg_visibility;
create extension pg_freespacemap;
create table t (a int, b text, c int);
insert into t select g, repeat('x', g % 50), case when g % 7 = 0 then null else g end from generate_series(1, 3000) g;
create index t_bt on t (a);
create index t_hash on t using hash (a);
create index t_brin on t using brin (a);
create table boxes (b box);
insert into boxes select box(point(g, g), point(g + 1, g + 1)) from generate_series(1, 2000) g;
create index boxes_gist on boxes using gist (b);
-- A heap of every visibility map state: frozen pages, pages only all-visible (new tuples
-- that vacuum does not freeze), and pages whose bits a delete cleared.
create table vm (a int, b text) with (autovacuum_enabled = off);
insert into vm select g, repeat('v', 100) from generate_series(1, 4000) g;
vacuum (freeze) vm;
insert into vm select g, repeat('w', 100) from generate_series(1, 600) g;
vacuum vm;
delete from vm where a between 300 and 400;
-- Free space of many sizes: deletes of different densities, then vacuum records them.
create table fs (a int, b text) with (autovacuum_enabled = off);
insert into fs select g, repeat('f', 200) from generate_series(1, 6000) g;
delete from fs where a % 97 < (a / 1000) * 15;
vacuum fs;
checkpoint;
`;

function path(rel: string, fork = ''): string {
  return cluster.relationPath(rel) + (fork ? `_${fork}` : '');
}

function pageOf(file: string, b: number): Uint8Array {
  return new Uint8Array(readFileSync(file).subarray(b * BS, (b + 1) * BS));
}

/** The columns of the decoded page as the browser gets them, in their order. */
function ours(file: string, b: number): { header: string[]; items: string[] } {
  const d = w.decode(pageOf(file, b), b, false, 'main', '');
  const j = JSON.parse(d.json) as { header: Json; items: Json[] };
  d.free();
  return { header: Object.keys(j.header), items: Object.keys(j.items[0] ?? {}) };
}

/** The column names of `select * from fn(raw page)`, in the server's order. */
function theirs(fn: string, file: string, b: number): string[] {
  const [row] = cluster.rows<Json>(`select * from ${fn}(${rawPage(file, b)}) limit 1`);
  return Object.keys(row ?? {});
}

beforeAll(async () => {
  w = await import('../../web/pkg/pgpage_wasm.js');
  w.initSync({ module: readFileSync(join(__dirname, '../../web/pkg/pgpage_wasm_bg.wasm')) });
  cluster = Cluster.create('pgpage-pageview');
  cluster.sql(SQL);
});

afterAll(() => {
  cluster?.destroy();
});

describe(`the page view's columns and maps against PostgreSQL ${PG_VERSION}`, () => {
  test('columns come in pageinspect’s order, not alphabetically', () => {
    const heap = path('t');
    expect(ours(heap, 0).header).toEqual(theirs('page_header', heap, 0));
    // heap_page_items' columns first, in its order; heap_tuple_infomask_flags' two after.
    const heapCols = theirs('heap_page_items', heap, 0);
    expect(heapCols.slice(0, 6)).toEqual(['lp', 'lp_off', 'lp_flags', 'lp_len', 't_xmin', 't_xmax']);
    expect(ours(heap, 0).items).toEqual([...heapCols, 'raw_flags', 'combined_flags']);
    // Leaf 1 of each index: block 0 is the metapage.
    const cases: [string, string, number][] = [
      ['bt_page_items', path('t_bt'), 1],
      ['hash_page_items', path('t_hash'), 1],
      ['brin_revmap_data', path('t_brin'), 1],
    ];
    // gist_page_items_bytea is pageinspect 1.9 (PostgreSQL 14) on.
    if (PG_VERSION >= 14) cases.push(['gist_page_items_bytea', path('boxes_gist'), 0]);
    for (const [fn, file, b] of cases) {
      const server = theirs(fn, file, b);
      expect(server.length, fn).toBeGreaterThan(0);
      expect(ours(file, b).header, fn).toEqual(theirs('page_header', file, b));
      // bt_page_items of 13 lacks 14's dead, htid and tids, which pgpage shows as null.
      expect(ours(file, b).items.slice(0, server.length), fn).toEqual(server);
    }
  });

  test('a visibility map page: the bits of every heap block equal pg_visibility_map()', () => {
    const server = cluster.rows<{ blkno: number; all_visible: boolean; all_frozen: boolean }>(`select * from pg_visibility_map('vm') order by blkno`);
    expect(server.length).toBeGreaterThan(50);
    const m = w.map_page(pageOf(path('vm', 'vm'), 0), 0, 'vm');
    const bits = m.values;
    const meta = JSON.parse(m.json) as { first_heap_block: number; heap_blocks: number };
    m.free();
    expect(meta.first_heap_block).toBe(0);
    expect(bits.length).toBe(meta.heap_blocks);
    for (const r of server) {
      expect({ blkno: r.blkno, visible: (bits[r.blkno] & 1) !== 0, frozen: (bits[r.blkno] & 2) !== 0 }).toEqual({
        blkno: r.blkno,
        visible: r.all_visible,
        frozen: r.all_frozen,
      });
    }
    // Past the heap's last block the page's pairs are all 0 0: heap_blocks is a capacity.
    expect(bits.subarray(server.length).every((b) => b === 0)).toBe(true);
    // The case covers every state the server writes.
    const states = new Set(server.map((r) => `${r.all_visible}/${r.all_frozen}`));
    expect([...states].sort()).toEqual(['false/false', 'true/false', 'true/true']);
  });

  test('free space map pages: the nodes equal fsm_page_contents(), the leaves pg_freespace()', () => {
    const fsm = path('fs', 'fsm');
    const blocks = readFileSync(fsm).length / BS;
    expect(blocks).toBe(3);
    const levels: (number | null)[] = [];
    for (let b = 0; b < blocks; b++) {
      const m = w.map_page(pageOf(fsm, b), b, 'fsm');
      const nodes = m.values;
      const meta = JSON.parse(m.json) as { level: number | null; levels: { first_node: number; nodes: number }[] };
      m.free();
      levels.push(meta.level);
      const [row] = cluster.rows<{ t: string }>(`select fsm_page_contents(${rawPage(fsm, b)}) as t`);
      const lines = row.t.trim().split('\n');
      expect(lines.pop()).toMatch(/^fp_next_slot: \d+$/);
      const got: string[] = [];
      nodes.forEach((v, i) => v !== 0 && got.push(`${i}: ${v}`));
      expect(got, `FSM block ${b}`).toEqual(lines);
      expect(meta.levels.reduce((n, l) => n + l.nodes, 0)).toBe(nodes.length);
    }
    // The root, its one level-1 child, the one leaf page (freespace.c's depth-first layout).
    expect(levels).toEqual([2, 1, 0]);
    const leaf = w.map_page(pageOf(fsm, 2), 2, 'fsm');
    const meta = JSON.parse(leaf.json) as {
      first_heap_block: number;
      heap_blocks_per_slot: number;
      levels: { first_node: number; nodes: number }[];
      avail_by_category: number[];
    };
    const nodes = leaf.values;
    leaf.free();
    expect([meta.first_heap_block, meta.heap_blocks_per_slot]).toEqual([0, 1]);
    const slots = meta.levels[meta.levels.length - 1];
    const server = cluster.rows<{ blkno: number; avail: number }>(`select blkno, avail from pg_freespace('fs') order by blkno`);
    expect(server.filter((r) => r.avail > 0).length).toBeGreaterThan(10);
    expect(new Set(server.map((r) => r.avail)).size).toBeGreaterThan(3);
    for (const r of server) {
      const cat = nodes[slots.first_node + r.blkno];
      expect({ blkno: r.blkno, avail: meta.avail_by_category[cat] }).toEqual({ blkno: r.blkno, avail: r.avail });
    }
  });
});
