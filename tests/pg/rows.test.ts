// The browser's rows (the wasm RowsReader and TableReader driven by web/src/rows/drive.ts,
// as the rows worker drives them) against the server's COPY and `pgpage rows` on the same
// data directory: byte for byte, also with a damaged page, which both leave out and name.
import { closeSync, cpSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { emptySalvage, openTable, readRows, type SyncFiles, type TableTarget } from '../../web/src/rows/drive';
import { Cluster, PG_VERSION } from './cluster';
import { ensurePgpage, pgpage } from './pgpage';

type Wasm = typeof import('../../web/pkg/pgpage_wasm.js');
let w: Wasm;
let c: Cluster;

const COPY_SETTINGS = `set timezone = 'UTC'; set datestyle = 'ISO, MDY'; set intervalstyle = postgres; set extra_float_digits = 1; set bytea_output = hex;`;

function dirFiles(root: string): SyncFiles {
  const paths: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) paths.push(relative(root, p).split('\\').join('/'));
    }
  };
  walk(root);
  return {
    paths,
    size: (p) => statSync(join(root, p)).size,
    read: (p, offset, length) => {
      const fd = openSync(join(root, p), 'r');
      try {
        const b = new Uint8Array(length);
        return readSync(fd, b, 0, length, offset) === length ? b : undefined;
      } finally {
        closeSync(fd);
      }
    },
  };
}

async function wasmRows(relation: string | TableTarget, format: 'csv' | 'text') {
  const files = dirFiles(c.dataDir);
  const { reader, table } = await openTable(w, files, typeof relation === 'string' ? { relation, database: 'postgres' } : relation, format);
  const salvage = emptySalvage(table.damage);
  let text = '';
  for (const t of readRows(reader, files, { paths: table.paths, toastPaths: table.toast_paths, blockSize: table.block_size }, salvage)) text += t;
  const columns = JSON.parse(reader.columns()) as { name: string; type: string; dropped: boolean }[];
  reader.free();
  return { text, salvage, columns, table };
}

beforeAll(async () => {
  ensurePgpage();
  w = await import('../../web/pkg/pgpage_wasm.js');
  w.initSync({ module: readFileSync(join(__dirname, '../../web/pkg/pgpage_wasm_bg.wasm')) });
  c = Cluster.create('pgpage-rows-web');
});
afterAll(() => c?.destroy());

test(`PostgreSQL ${PG_VERSION}: the browser's rows equal COPY and pgpage rows, a damaged page left out and named`, async () => {
  c.sql(`
    create type mood as enum ('sad', 'ok', 'happy');
    create table "Odd ""T""" (id int, gone text, n numeric, f float8, t text, b bytea, ts timestamptz, m mood, a int[], j jsonb, u uuid);
    alter table "Odd ""T""" alter column t set storage external;
    insert into "Odd ""T"""
      select g, 'x', g * 1.5, g / 7.0, case when g % 50 = 0 then (select string_agg(md5(g::text || i::text), '') from generate_series(1, 200) i)
        when g % 11 = 0 then null else 'row ' || g || E'\\ttab,"q"' end,
        decode(lpad(to_hex(g), 8, '0'), 'hex'), '2024-01-01 00:00:00+00'::timestamptz + g * interval '1 hour',
        (array['sad', 'ok', 'happy'])[1 + g % 3]::mood, array[g, null, g + 1], jsonb_build_object('g', g, 'k', array[1, 2]),
        md5(g::text)::uuid
      from generate_series(1, 1500) g;
    alter table "Odd ""T""" drop column gone;
    delete from "Odd ""T""" where id % 97 = 0;
    checkpoint;`);
  const copy = (format: string) => c.sql(`${COPY_SETTINGS} copy (select * from "Odd ""T""" order by ctid) to stdout (format ${format});`);
  const csv = copy('csv');
  const text = copy('text');
  const perBlock = c.rows<{ b: number; n: number }>(`select (ctid::text::point)[0]::int as b, count(*)::int as n from "Odd ""T""" group by 1 order by 1`);
  expect(perBlock.length).toBeGreaterThan(3);
  const file = c.relationPath('"Odd ""T"""');
  c.stop();

  const relation = `"Odd ""T"""`;
  const got = await wasmRows(relation, 'csv');
  expect(got.text).toBe(csv);
  expect((await wasmRows(relation, 'text')).text).toBe(text);
  // Found by its file, as the rows worker finds a dropped file's relation: the same table.
  const [, databaseOid, relfilenode] = /base\/(\d+)\/(\d+)$/.exec(file) ?? [];
  const byFile = await wasmRows({ databaseOid: Number(databaseOid), relfilenode: Number(relfilenode) }, 'csv');
  expect(byFile.text).toBe(csv);
  expect(byFile.table).toEqual(got.table);
  expect(got.table.database).toBe('postgres');
  expect(got.salvage.rows).toBe(perBlock.reduce((n, r) => n + r.n, 0));
  expect(got.salvage.pagesLost).toEqual([]);
  expect(got.columns.filter((col) => !col.dropped).map((col) => col.name)).toEqual(['id', 'n', 'f', 't', 'b', 'ts', 'm', 'a', 'j', 'u']);
  const cli = pgpage(['rows', '--database', 'postgres', c.dataDir, relation]);
  expect(cli.status).toBe(0);
  expect(got.text).toBe(cli.stdout);

  // A damaged page (its checksum no longer matches): its rows are left out, the rest come out.
  const BAD = 2;
  const bytes = readFileSync(file);
  bytes[BAD * 8192 + 8192 - 100] ^= 0xff;
  writeFileSync(file, bytes);
  const damaged = await wasmRows(relation, 'csv');
  const cliDamaged = pgpage(['rows', '--database', 'postgres', c.dataDir, relation]);
  expect(cliDamaged.status).toBe(1);
  expect(damaged.text).toBe(cliDamaged.stdout);
  // Its header and structure are sound, so the core counts the rows it gives and, in the same
  // line, the tuples that would give none: together the rows the server had on that block.
  expect(damaged.salvage.pagesLost).toHaveLength(1);
  const [lost] = damaged.salvage.pagesLost;
  const said =
    /^page verification failed, calculated checksum \d+ but expected \d+(?:; (\d+) other tuples? on it gives? no row \(--include-damaged names (?:it|each)\))?$/.exec(
      lost.message,
    );
  expect(said, lost.message).not.toBeNull();
  expect(lost.block).toBe(BAD);
  expect((lost.rows ?? NaN) + Number(said?.[1] ?? 0)).toBe(perBlock.find((r) => r.b === BAD)?.n ?? 0);
  // No tuple of the left-out page is named one by one after its line.
  expect(damaged.salvage.tuples.filter((t) => t.block === BAD)).toEqual([]);
  expect(damaged.salvage.rows).toBe(got.salvage.rows - (perBlock.find((r) => r.b === BAD)?.n ?? 0));
  const kept = csv.split('\n').filter((l) => l !== '');
  expect(
    damaged.text
      .split('\n')
      .filter((l) => l !== '')
      .every((l) => kept.includes(l)),
  ).toBe(true);
});

test(`PostgreSQL ${PG_VERSION}: a type list gives the CLI's rows and names tuples that do not fit`, () => {
  c.start();
  c.sql(`create table typed (a int4, b text, c int8); insert into typed select g, 'v' || g, g * 1000 from generate_series(1, 300) g; checkpoint;`);
  const file = c.relationPath('typed');
  c.stop();
  const files = dirFiles(c.dataDir);
  const path = relative(c.dataDir, file);
  const run = (types: string) => {
    const reader = w.RowsReader.from_types(types, 'csv', 8192, false, 'pg_toast');
    const salvage = emptySalvage();
    let out = '';
    for (const t of readRows(reader, files, { paths: [path], toastPaths: [], blockSize: 8192 }, salvage)) out += t;
    reader.free();
    return { out, salvage };
  };
  const ok = run('int4,text,int8');
  const cli = pgpage(['rows', '--types', 'int4,text,int8', file]);
  expect(ok.out).toBe(cli.stdout);
  expect(ok.salvage.rows).toBe(300);
  const bad = run('int4,int8');
  expect(bad.salvage.rows).toBe(0);
  expect(bad.salvage.tuples[0].message).toMatch(/does not fit/);
});

test(`PostgreSQL ${PG_VERSION}: a page older than its rows' newer versions (a lost write): each key printed twice is named, as pgpage rows names it`, async () => {
  c.start();
  c.sql(`create table kept (id int primary key, v text) with (fillfactor = 90, autovacuum_enabled = off);
    insert into kept select g, repeat('v', 200) || g from generate_series(1, 400) g; checkpoint;`);
  const file = c.relationPath('kept');
  const older = readFileSync(file).subarray(2 * 8192, 3 * 8192);
  const on2 = c.sql(`select string_agg(id::text, ',') from kept where (ctid::text::point)[0] = 2;`).trim();
  // Non-HOT (the page is full): each new version goes to another page.
  c.sql(`update kept set v = v || 'x' where (ctid::text::point)[0] = 2 and id % 2 = 0; checkpoint;`);
  // The rows of the older page whose live version is now on another page: printed twice.
  const moved = c
    .sql(`select id from kept where id in (${on2}) and (ctid::text::point)[0] <> 2 order by id;`)
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map(Number);
  c.stop();
  const bytes = readFileSync(file);
  older.copy(bytes, 2 * 8192);
  writeFileSync(file, bytes);

  const got = await wasmRows('kept', 'csv');
  const twice = got.salvage.tuples.filter((t) => / is printed at \(\d+,\d+\) too/.test(t.message));
  const keys = twice.map((t) => Number(/key \(id\)=\((\d+)\)/.exec(t.message)?.[1])).sort((a, b) => a - b);
  expect(moved.length).toBeGreaterThan(0);
  expect(keys).toEqual(moved);
  expect(twice.every((t) => t.printed)).toBe(true);
  // The browser's rows reads no WAL, so it cannot tell the older page from the WAL as
  // `pgpage rows` does in a data directory (it leaves such a page out): the CLI is given
  // the same directory without its WAL, to hold the same reading of the same bytes.
  const noWal = mkdtempSync(join(tmpdir(), 'pgpage-nowal-'));
  cpSync(c.dataDir, noWal, { recursive: true });
  for (const n of readdirSync(join(noWal, 'pg_wal'))) rmSync(join(noWal, 'pg_wal', n), { recursive: true, force: true });
  const cli = pgpage(['rows', '--database', 'postgres', noWal, 'kept']);
  rmSync(noWal, { recursive: true, force: true });
  expect(cli.status).toBe(1);
  expect(got.text).toBe(cli.stdout);
  const cliLines = cli.stderr.split('\n').filter((l) => l.includes(' is printed at ('));
  expect(cliLines.map((l) => l.replace(/^pgpage: warning: file "[^"]*", block \d+, offset \d+: /, ''))).toEqual(twice.map((t) => t.message));
});
