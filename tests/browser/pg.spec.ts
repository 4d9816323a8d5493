// Real PostgreSQL 15 relation files, clean and corrupted, dropped on the page: the problem
// rows must be exactly the blocks the server refuses to read, with its checksums, and the
// copied server lines must be the server's own.
import { expect, test } from './test';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Cluster, runPg, serverVerdicts, type ServerVerdict } from '../pg/cluster';
import { makeDir } from './files';

interface Rel {
  rel: string;
  relpath: string; // base/DB/REL
  blocks: number;
  verdicts: ServerVerdict[];
}

let c: Cluster;
const root = makeDir();
const rels: Rel[] = [];

test.beforeAll(() => {
  c = Cluster.create('pgpage-browser');
  c.sql(`create extension pageinspect;
    create table t (id int primary key, v text);
    insert into t select g, md5(g::text) || repeat('x', g % 50) from generate_series(1, 4000) g;
    delete from t where id % 7 = 0;
    vacuum t;
    checkpoint;`);
  const paths = ['t', 't_pkey'].map((rel) => ({ rel, path: c.relationPath(rel) }));
  c.stop();
  for (const { rel, path } of paths) {
    const relpath = path.slice(c.dataDir.length + 1);
    const clean = readFileSync(path);
    const cleanOut = join(root, 'clean', relpath);
    mkdirSync(dirname(cleanOut), { recursive: true });
    copyFileSync(path, cleanOut);
    for (const fork of ['_fsm', '_vm']) {
      try {
        copyFileSync(path + fork, cleanOut + fork);
      } catch {
        /* indexes have no vm fork */
      }
    }
    const bad = Buffer.from(clean);
    const bs = 8192;
    const blocks = bad.length / bs;
    bad[3 * bs + 7000] ^= 0x01; // a bit flip in tuple data
    bad.writeUInt16LE(0, 5 * bs + 14); // pd_upper zeroed on a non-empty page
    const a = Buffer.from(bad.subarray(7 * bs, 8 * bs));
    bad.copy(bad, 7 * bs, 9 * bs, 10 * bs); // blocks 7 and 9 swapped
    a.copy(bad, 9 * bs);
    bad.fill(0, 11 * bs + 512, 11 * bs + 1024); // a zeroed sector
    writeFileSync(path, bad);
    const badOut = join(root, 'bad', relpath);
    mkdirSync(dirname(badOut), { recursive: true });
    writeFileSync(badOut, bad);
    rels.push({ rel, relpath, blocks, verdicts: [] });
  }
  c.start();
  for (const r of rels)
    r.verdicts = serverVerdicts(
      c,
      r.rel,
      'main',
      Array.from({ length: r.blocks }, (_, i) => i),
    );
});

test.afterAll(() => c?.destroy());

test('clean PostgreSQL files: every page ok', async ({ page }) => {
  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(join(root, 'clean', 'base'));
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
  const copied = readdirSync(join(root, 'clean'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  expect(copied.length).toBeGreaterThanOrEqual(4); // heap, its fsm and vm, the btree
  await expect(page.getByTestId('file')).toHaveCount(copied.length);
  await expect(page.getByTestId('problem')).toHaveCount(0);
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-status', 'ok');
});

test('corrupted PostgreSQL files: problem rows are what the server says', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(join(root, 'bad', 'base'));
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
  for (const r of rels) {
    const name = basename(r.relpath);
    const refused = r.verdicts.filter((v) => !v.ok);
    expect(refused.length).toBeGreaterThanOrEqual(4);
    const rows = await page
      .locator(`[data-testid=problem][data-file="${name}"]`)
      .evaluateAll((els) =>
        els.map((e) => ({ block: Number(e.dataset.block), status: e.dataset.status, stored: e.dataset.stored, computed: e.dataset.computed })),
      );
    expect(rows.map((x) => x.block)).toEqual(refused.map((v) => v.block));
    for (const v of refused) {
      const row = rows.find((x) => x.block === v.block)!;
      if (v.warning) {
        expect(row).toMatchObject({ status: 'mismatch', computed: String(v.warning.calculated), stored: String(v.warning.expected) });
      } else {
        expect(row.status === 'new_not_zero' || row.status === 'bad_header').toBe(true);
      }
      expect(v.error).toBe(`invalid page in block ${v.block} of relation ${r.relpath}`);
    }
    // The copied server lines are the server's own.
    const v = refused.find((x) => x.warning)!;
    await page.locator(`[data-testid=problem][data-file="${name}"][data-block="${v.block}"]`).click();
    await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', String(v.block));
    await expect(page.locator('[data-testid=hexview] [data-field=pd_checksum][data-mismatch=true]')).toHaveCount(2);
    await page.getByRole('button', { name: 'server WARNING/ERROR' }).click();
    await expect(page.getByTestId('copied')).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
      `WARNING:  page verification failed, calculated checksum ${v.warning!.calculated} but expected ${v.warning!.expected}\nERROR:  ${v.error}`,
    );
  }
  // The swapped heap pages name each other.
  const heap = basename(rels[0].relpath);
  await expect(page.locator(`[data-testid=problem][data-file="${heap}"][data-block="7"]`)).toContainText('written for block 9');
});

test('a whole data directory: the files and pages pg_checksums --check counts, hundreds of rows in a scrolling box', async ({ page }) => {
  const d = Cluster.create('pgpage-datadir');
  try {
    d.sql(`create table a (id int primary key, v text);
      insert into a select g, repeat('y', g % 90) from generate_series(1, 20000) g;
      create index on a (v);
      checkpoint;`);
    d.stop();
    const r = runPg('pg_checksums', ['--check', '-D', d.dataDir]);
    expect(r.status, r.stderr).toBe(0);
    const count = (what: string) => Number(new RegExp(`${what}:\\s+(\\d+)`).exec(r.stdout)?.[1]);
    const files = count('Files scanned');
    const blocks = count('Blocks scanned');
    expect(count('Bad checksums')).toBe(0);
    expect(files).toBeGreaterThan(200); // a fresh cluster's catalogs: more rows than one page of them

    await page.goto('/');
    await page.getByTestId('folder-input').setInputFiles(d.dataDir);
    await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
    // pg_control, pg_wal, the config files... are not relation files and are not counted.
    await expect(page.locator('[data-testid=summary] tr.total td').first()).toHaveText(`all ${files} files`);
    const total = async (s: string) => Number(await page.locator(`[data-testid=summary] tr.total [data-count=${s}]`).textContent());
    expect((await total('ok')) + (await total('zero'))).toBe(blocks);
    await expect(page.getByTestId('problem')).toHaveCount(0);
    // A data directory's relations start closed, one row each; the table renders the rows in
    // view of its box, and the others as it scrolls.
    const rows = page.getByTestId('relation');
    await expect(rows.first()).toBeVisible();
    expect(await rows.count()).toBeLessThan(100);
    const first = await rows.first().getAttribute('data-relation');
    await page.getByTestId('files-scroll').evaluate((box) => box.scrollTo(0, box.scrollHeight));
    await expect(rows.first()).not.toHaveAttribute('data-relation', first!);
    expect(await rows.count()).toBeGreaterThan(5);
  } finally {
    d.destroy();
  }
});

// Issue 16: a dropped data directory's pg_control is decoded and shown, and what it says of
// data checksums decides every file's verdict: with checksums on, a damaged pd_checksum is a
// mismatch; after pg_checksums --disable (which rewrites only pg_control) the same page is one
// the server reads, and no checksum message is offered.
test('a data directory with pg_control: its panel, and checksums on or off as pg_control says', async ({ page }) => {
  const d = Cluster.create('pgpage-control');
  try {
    d.sql(`create table t (id int, v text);
      insert into t select g, repeat('z', 50) from generate_series(1, 500) g;
      checkpoint;`);
    const file = d.relationPath('t');
    const name = basename(file);
    d.stop();
    const bytes = readFileSync(file);
    bytes[8] ^= 0x5a; // block 0's pd_checksum
    writeFileSync(file, bytes);

    await page.goto('/');
    await page.getByTestId('folder-input').setInputFiles(d.dataDir);
    await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
    const panel = page.getByTestId('control');
    await expect(panel).toHaveAttribute('data-checksums', '1');
    await expect(panel).toHaveAttribute('data-crc-ok', 'true');
    await expect(page.getByTestId('control-version')).toContainText('15 (pg_control version 1300');
    await expect(page.getByTestId('control-checksums')).toContainText('on (data_page_checksum_version 1)');
    await expect(page.getByTestId('control-block-size')).toHaveText('8192');
    await expect(page.getByTestId('control-state')).toHaveText('shut down');
    await expect(page.getByTestId('control-crc')).toContainText('matches');
    await expect(page.locator(`[data-testid=problem][data-file="${name}"]`)).toHaveCount(1);
    await expect(page.locator(`[data-testid=problem][data-file="${name}"]`)).toHaveAttribute('data-status', 'mismatch');

    const r = runPg('pg_checksums', ['--disable', '-D', d.dataDir]);
    expect(r.status, r.stderr).toBe(0);
    await page.goto('/');
    await page.getByTestId('folder-input').setInputFiles(d.dataDir);
    await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
    await expect(page.getByTestId('control')).toHaveAttribute('data-checksums', '0');
    await expect(page.getByTestId('control-checksums')).toContainText('checksums are off in this cluster');
    await expect(page.getByTestId('problem')).toHaveCount(0);
    // Said once, by the panel: no file repeats it.
    await expect(page.getByTestId('file-finding')).toHaveCount(0);
    await expect(page.getByTestId('verdict')).toContainText('No problem pages');
  } finally {
    d.destroy();
  }
});
