// Names from the catalogs: a data directory made by PostgreSQL 13 and by 18,
// dropped whole, is listed by database and `schema.table`, each index and TOAST table under
// the table the server says (pg_index.indrelid, pg_class.reltoastrelid), each file under the
// relation whose pg_relation_filepath() it is. A damaged pg_class page is named in the core's
// words and the relations whose rows it held are listed as not in pg_class, the rest still
// named; a directory without its pg_filenode.map falls back to folders, saying why.
import { expect, test, type Locator, type Page } from './test';
import { cpSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Cluster, type PgVersion } from '../pg/cluster';
import { makeDir } from './files';

/** One relation with storage of database postgres, as the server lists it. */
interface ServerRelation {
  oid: number;
  qualified: string;
  relkind: string;
  path: string;
  /** The table an index is of, the table a TOAST table belongs to (qualified). */
  parent: string | null;
  /** The block of pg_class holding its row. */
  class_block: number;
}

interface Made {
  version: PgVersion;
  /** The copy's top folder: what the app shows before every path. */
  name: string;
  dir: string;
  relations: ServerRelation[];
  pgClassPath: string;
}

const out = makeDir();
const made = new Map<PgVersion, Made>();

// The victim's pg_class row first, then views (rows in pg_class, no files) to fill that page,
// so the other relations' rows are on later pages than the victim's.
const SQL = `
  create table public.victim (x int);
  insert into victim values (1);
  select format('create view pad_%s as select %s as n', g, g) from generate_series(1, 120) g \\gexec
  create schema "Odd Schema";
  create table public.orders (id int primary key, note text, big text);
  insert into orders select g, 'note ' || g, case when g % 10 = 0 then repeat(md5(g::text), 400) end from generate_series(1, 2000) g;
  create index orders_note on orders (note);
  create table "Odd Schema"."Mixed Case" (a int, b text);
  insert into "Odd Schema"."Mixed Case" select g, g::text from generate_series(1, 100) g;
  create index "Mixed idx" on "Odd Schema"."Mixed Case" using hash (a);
  create sequence public.counter;
  create materialized view public.mv as select id, note from orders where id < 50;
  -- A rewritten table: its files are named by a relfilenode that is not its oid.
  vacuum full orders;
  checkpoint;`;

// The server's own answer: every relation with storage, its file, what it is listed under
// and where its pg_class row is.
const ASK = `
  select c.oid::int8 as oid, quote_ident(n.nspname) || '.' || quote_ident(c.relname) as qualified, c.relkind,
         pg_relation_filepath(c.oid) as path,
         coalesce(
           (select quote_ident(tn.nspname) || '.' || quote_ident(t.relname) from pg_index i join pg_class t on t.oid = i.indrelid
              join pg_namespace tn on tn.oid = t.relnamespace where i.indexrelid = c.oid),
           (select quote_ident(tn.nspname) || '.' || quote_ident(t.relname) from pg_class t join pg_namespace tn on tn.oid = t.relnamespace
              where t.reltoastrelid = c.oid and c.relkind = 't')) as parent,
         (c.ctid::text::point)[0]::int as class_block
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where c.relkind in ('r', 'i', 'S', 't', 'm')`;

function make(version: PgVersion): Made {
  const c = Cluster.create('pgpage-names', version);
  try {
    c.sql(SQL);
    const relations = c.rows<ServerRelation>(ASK);
    const pgClassPath = c.sql(`select pg_relation_filepath('pg_class');`).trim();
    c.stop();
    const name = `pg${version}`;
    const dir = join(out, name);
    // The whole directory but its WAL and the server's pid file.
    cpSync(c.dataDir, dir, { recursive: true, filter: (src) => !/\/pg_wal\/.|postmaster\.pid$/.test(src) });
    return { version, name, dir, relations, pgClassPath };
  } finally {
    c.destroy();
  }
}

test.beforeAll(() => {
  for (const v of [13, 18] as const) made.set(v, make(v));
});

/** Psql's quoting would show `"Odd Schema"."Mixed Case"`; the app shows the names as stored. */
const shown = (q: string) => q.replace(/"([^"]*)"/g, '$1');

async function drop(page: Page, dir: string): Promise<void> {
  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(dir);
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 90_000 });
}

const relationRow = (page: Page, label: string) => page.locator(`[data-testid=relation][data-relation="${label}"]`);

/** Scrolls the files table (only the rows in view are rendered) until the locator has a row. */
async function reveal(page: Page, l: Locator): Promise<Locator> {
  if ((await l.count()) > 0) return l;
  // With damage, the healthy relations are folded behind one line: open it.
  const rest = page.getByTestId('healthy-files').getByRole('button', { expanded: false });
  if ((await rest.count()) > 0) await rest.click();
  const box = page.getByTestId('files-scroll');
  await box.evaluate((el) => (el.scrollTop = 0));
  for (let i = 0; i < 400 && (await l.count()) === 0; i++) {
    const end = await box.evaluate((el) => {
      const before = el.scrollTop;
      el.scrollTop += el.clientHeight / 2;
      return el.scrollTop === before;
    });
    if (end) break;
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
  }
  return l;
}

async function open(page: Page, label: string): Promise<void> {
  const row = await reveal(page, relationRow(page, label));
  const button = row.getByRole('button');
  if ((await button.getAttribute('aria-expanded')) !== 'true') await button.click();
  await expect(button).toHaveAttribute('aria-expanded', 'true');
}

for (const version of [13, 18] as const) {
  test(`PostgreSQL ${version}: the data directory is listed by database and schema.table, as the server names its files`, async ({ page }) => {
    test.setTimeout(300_000);
    const m = made.get(version)!;
    await drop(page, m.dir);
    await expect(page.getByTestId('catalog')).toHaveAttribute('data-state', 'done');
    await expect(page.getByTestId('catalog-damage')).toHaveCount(0);
    await expect(page.getByTestId('catalog-fallback')).toHaveCount(0);
    await expect(page.locator('[data-testid=folder][data-database=postgres]')).toHaveCount(1);
    await expect(await reveal(page, page.locator('[data-testid=folder][data-database="shared (global)"]'))).toHaveCount(1);

    const users = m.relations.filter((r) => r.oid >= 16384);
    const byName = new Map(users.map((r) => [shown(r.qualified), r]));
    // Every relation made, under the table the server says, with its file where the server
    // says it is (main fork, segment 0), and its kind from the catalog.
    const tables = users.filter((r) => r.parent === null);
    expect(tables.map((r) => shown(r.qualified)).sort()).toEqual(['Odd Schema.Mixed Case', 'public.counter', 'public.mv', 'public.orders', 'public.victim']);
    for (const t of tables) {
      const row = await reveal(page, relationRow(page, shown(t.qualified)));
      await expect(row).toHaveAttribute('data-depth', '0');
      await expect(row).toHaveAttribute('data-relkind', t.relkind);
    }
    const kinds: Record<string, string> = { r: 'heap', t: 'heap', m: 'heap', S: 'sequence' };
    // Down the tree: each child opened from its table.
    const children = users.filter((r) => r.parent !== null);
    expect(children.length).toBeGreaterThanOrEqual(6); // 3 indexes, 2 TOAST tables and their indexes at least
    for (const pass of [1, 2]) {
      for (const r of children) {
        const parent = byName.get(shown(r.parent!));
        const depth = parent && parent.parent === null ? 1 : 2;
        if (depth !== pass) continue;
        await open(page, shown(r.parent!));
        const row = await reveal(page, relationRow(page, shown(r.qualified)));
        await expect(row).toHaveAttribute('data-parent', shown(r.parent!));
        await expect(row).toHaveAttribute('data-depth', String(depth));
        await expect(row).toHaveAttribute('data-relkind', r.relkind);
      }
    }
    for (const r of users) {
      await open(page, shown(r.qualified));
      const file = await reveal(page, page.locator(`[data-testid=file][data-path="${m.name}/${r.path}"]`));
      await expect(file, `${r.qualified}: ${r.path}`).toHaveCount(1);
      const kind = r.relkind === 'i' ? (r.qualified.includes('Mixed idx') ? 'hash' : 'btree') : kinds[r.relkind];
      // An empty file (a TOAST table never written to) says so, as for any empty file.
      await expect(file.getByTestId('kind')).toHaveText(statSync(join(m.dir, r.path)).size === 0 ? 'empty' : kind);
    }
    // The rewritten table's file is not named by its oid, and is still found.
    const orders = byName.get('public.orders')!;
    expect(orders.path.endsWith(`/${orders.oid}`)).toBe(false);
    // A catalog of the shared ones, and a mapped one of the database.
    const pgDatabase = m.relations.find((r) => r.qualified === 'pg_catalog.pg_database')!;
    await open(page, 'pg_catalog.pg_database');
    await expect(relationRow(page, 'pg_catalog.pg_database')).toHaveAttribute('data-relkind', 'r');
    await expect(await reveal(page, page.locator(`[data-testid=file][data-path="${m.name}/${pgDatabase.path}"]`))).toHaveCount(1);
    await expect(page.locator('[data-testid=folder][data-database="not in pg_class"]')).toHaveCount(0);
  });
}

test('a damaged pg_class page is named in the core words; its relations are not in pg_class, the rest still named', async ({ page }) => {
  const m = made.get(18)!;
  const dir = join(out, 'damaged');
  rmSync(dir, { recursive: true, force: true });
  cpSync(m.dir, dir, { recursive: true });
  const victim = m.relations.find((r) => r.qualified === 'public.victim')!;
  const block = victim.class_block;
  const pgClass = join(dir, m.pgClassPath);
  const bytes = readFileSync(pgClass);
  bytes[block * 8192 + 8000] ^= 0x10;
  writeFileSync(pgClass, bytes);
  // A damaged page of a table and of an index: the verdict names their relations.
  const orders = m.relations.find((r) => r.qualified === 'public.orders')!;
  const pkey = m.relations.find((r) => r.qualified === 'public.orders_pkey')!;
  const pgClassRow = m.relations.find((r) => r.qualified === 'pg_catalog.pg_class')!;
  expect([orders.class_block, pkey.class_block]).not.toContain(block);
  for (const r of [orders, pkey]) {
    const f = join(dir, r.path);
    const b = readFileSync(f);
    b[8192 + 7000] ^= 0x01;
    writeFileSync(f, b);
  }

  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(dir);
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 90_000 });
  await expect(page.getByTestId('catalog')).toHaveAttribute('data-state', 'done');
  const damage = page.getByTestId('catalog-damage');
  await expect(damage).toHaveCount(1);
  await expect(damage).toContainText(`pg_class "${m.pgClassPath}", block ${block}: `);
  await expect(damage).toContainText('(checksum_mismatch): its rows left out');

  // The relations whose rows were on that page: their files are claimed by no catalog row.
  const lost = m.relations.filter((r) => r.class_block === block);
  expect(lost.map((r) => r.qualified)).toContain('public.victim');
  const unclaimed = page.locator('[data-testid=folder][data-database="not in pg_class"]');
  await expect(await reveal(page, unclaimed)).toHaveCount(1);
  for (const r of lost) {
    const row = await reveal(page, relationRow(page, r.path.replace(/\.\d+$/, '')));
    await expect(row, r.qualified).toHaveCount(1);
    await expect(row.getByTestId('relkind')).toHaveText('not in pg_class');
  }
  // The others are still named (those made after the victim are on later blocks, or not).
  for (const r of m.relations.filter((x) => x.class_block !== block && x.oid >= 16384 && x.parent === null)) {
    await expect(await reveal(page, relationRow(page, shown(r.qualified)))).toHaveCount(1);
  }

  // The verdict names the damaged relations: the table, the index of it, and pg_class.
  const named = page.getByTestId('affected-relation');
  await expect(page.locator('[data-testid=affected-relation][data-relation="postgres / public.orders"]')).toHaveAttribute('data-problems', '1');
  await expect(page.locator('[data-testid=affected-relation][data-relation="postgres / public.orders_pkey (index of public.orders)"]')).toHaveAttribute(
    'data-problems',
    '1',
  );
  // pg_class's own file has the damaged page: named too, unless its own row was on it.
  await expect(named).toHaveCount(pgClassRow.class_block === block ? 2 : 3);
  await expect(page.locator(`[data-testid=affected-file][data-path="damaged/${pkey.path}"]`)).toHaveAttribute(
    'data-relation',
    'postgres / public.orders_pkey (index of public.orders)',
  );
  // Its relation row counts the problem page.
  await expect(await reveal(page, relationRow(page, 'public.orders'))).toHaveAttribute('data-problems', '1');
});

test('catalogs that cannot be read: the files are listed by folder, and the page says why', async ({ page }) => {
  const m = made.get(13)!;
  const dir = join(out, 'nomap');
  rmSync(dir, { recursive: true, force: true });
  cpSync(m.dir, dir, { recursive: true });
  rmSync(join(dir, 'global', 'pg_filenode.map'));
  await drop(page, dir);
  await expect(page.getByTestId('catalog')).toHaveAttribute('data-state', 'failed');
  await expect(page.getByTestId('catalog-fallback')).toContainText('could not read file "global/pg_filenode.map"');
  await expect(page.getByTestId('catalog-fallback')).toContainText('listed by folder and relfilenode');
  const database = m.pgClassPath.slice(0, m.pgClassPath.lastIndexOf('/'));
  await expect(await reveal(page, page.locator(`[data-testid=folder][data-folder="nomap/${database}"]`))).toHaveCount(1);
  await expect(page.locator('[data-testid=folder][data-database]')).toHaveCount(0);
  await expect(page.locator('[data-testid=relation][data-relkind]')).toHaveCount(0);
});
