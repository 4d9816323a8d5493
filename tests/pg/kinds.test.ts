// Pages that do not show their kind decode as their file's: a heap page whose pd_upper was
// zeroed (the server calls it new and refuses it), a torn page (half of it from before an
// update) and a garbage page, each in a copy of a real heap file. Their items through
// `pgpage inspect --json` and through the wasm decoder equal what pageinspect's
// heap_page_items prints for the same raw bytes (pg_read_binary_file), within the page:
// pageinspect reads line pointers past the page's end, pgpage stops there and says so.
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Cluster, pgTempDir, rawPage } from './cluster';
import { ensurePgpage } from './pgpage';

type Wasm = typeof import('../../web/pkg/pgpage_wasm.js');
type Json = Record<string, unknown>;

const BS = 8192;
/** itemid.h: line pointers that fit in a page after its 24-byte header. */
const FIT = (BS - 24) / 4;

let cluster: Cluster;
let BIN = '';
let w: Wasm;
let path = '';
let damaged: Buffer;
const blocks = { upperZeroed: 1, torn: 2, garbage: 3 };

function page(b: Buffer, n: number): Buffer {
  return b.subarray(n * BS, (n + 1) * BS);
}

beforeAll(async () => {
  BIN = ensurePgpage();
  w = await import('../../web/pkg/pgpage_wasm.js');
  w.initSync({ module: readFileSync(join(__dirname, '../../web/pkg/pgpage_wasm_bg.wasm')) });
  cluster = Cluster.create('pgpage-kinds');
  cluster.sql(`create extension pageinspect;
    create table t (a int, b text, c int);
    insert into t select g, repeat('x', g % 50), case when g % 7 = 0 then null else g end from generate_series(1, 600) g;
    checkpoint;`);
  const file = cluster.relationPath('t');
  const before = readFileSync(file);
  cluster.sql(`update t set b = b || 'y' where a % 3 = 0 and a < 200; checkpoint;`);
  const after = readFileSync(file);
  damaged = Buffer.from(after.subarray(0, 5 * BS));
  // pd_upper zeroed: the server's PageIsNew, yet the line pointers and tuples are there.
  page(damaged, blocks.upperZeroed).writeUInt16LE(0, 14);
  // Torn: the first half from before the update, the second from after it.
  page(before, blocks.torn).copy(damaged, blocks.torn * BS, 0, BS / 2);
  // Garbage, with pd_lower 16 line pointers past the page's end.
  let x = 0x2545f491;
  const g = page(damaged, blocks.garbage);
  for (let i = 0; i < BS; i++) g[i] = (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 24;
  g.writeUInt16LE(BS + 64, 12);
  const dir = pgTempDir('pgpage-kinds-');
  path = join(dir, '16385');
  writeFileSync(path, damaged);
  chmodSync(path, 0o644);
});

afterAll(() => {
  cluster?.destroy();
});

/** heap_page_items on the raw bytes of block `b` of the damaged copy. */
function pageinspect(b: number): Json[] {
  const [r] = cluster.rows<{ items: Json[] | null }>(`select (select json_agg(x) from heap_page_items(${rawPage(path, b)}) x) as items`);
  return r.items ?? [];
}

/** Our rows equal pageinspect's, column by column, for the line pointers inside the page. */
function expectSameItems(ours: Json[], theirs: Json[], where: string): void {
  expect(ours.length, `${where}: rows`).toBe(Math.min(theirs.length, FIT));
  theirs.slice(0, FIT).forEach((row, i) => {
    for (const [k, v] of Object.entries(row)) expect(JSON.stringify(ours[i][k]), `${where} row ${i + 1} ${k}`).toBe(JSON.stringify(v));
  });
}

describe('pages decode as their file’s kind', () => {
  test('pgpage inspect --json: the damaged pages are heap pages with pageinspect’s items', () => {
    const r = spawnSync(BIN, ['inspect', '--json', path], { encoding: 'utf8', maxBuffer: 1 << 28 });
    expect(r.status, r.stderr).toBe(1);
    const out = JSON.parse(r.stdout) as { blocks: { kind: string; status: string; items: Json[] }[] };
    expect(out.blocks.map((b) => b.kind)).toEqual(['heap', 'heap', 'heap', 'heap', 'heap']);
    expect(out.blocks[blocks.upperZeroed].status).toBe('new_not_zero');
    for (const [name, b] of Object.entries(blocks)) {
      const theirs = pageinspect(b);
      expect(theirs.length, name).toBeGreaterThan(20);
      expectSameItems(out.blocks[b].items, theirs, `inspect ${name}`);
    }
    // pageinspect read line pointers past the garbage page's end; we listed those inside it.
    expect(pageinspect(blocks.garbage).length).toBe(FIT + 16);
    const text = spawnSync(BIN, ['inspect', '--block', String(blocks.garbage), path], { encoding: 'utf8' });
    expect(text.stdout).toContain('pd_lower counts line pointers past the end of the page');
    expect(text.stdout).toContain('decoded as its file');
  });

  test('wasm decode with the file’s kind: the same items, the same findings', () => {
    const kind = w.file_kind(damaged, BS, false, 'main');
    expect(kind).toBe('heap');
    for (const [name, b] of Object.entries(blocks)) {
      const d = w.decode(page(damaged, b), b, false, 'main', '', kind);
      const got = JSON.parse(d.json) as { kind: string; items: Json[] };
      const codes = d.problem_codes;
      d.free();
      expect(got.kind, name).toBe('heap');
      expectSameItems(got.items, pageinspect(b), `wasm ${name}`);
      if (b !== blocks.torn) expect(codes, name).toContain('kind_from_file');
      if (b === blocks.upperZeroed) expect(codes).toContain('new_page_not_zero');
      if (b === blocks.garbage) expect(codes).toContain('line_pointers_past_page');
    }
    // Without the file's kind the zeroed-pd_upper page shows nothing, as before.
    const alone = w.decode(page(damaged, blocks.upperZeroed), 1, false, 'main', '');
    expect(JSON.parse(alone.json).kind).toBe('unknown');
    alone.free();
  });
});
