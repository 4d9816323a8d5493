// A heap dropped with its visibility map: the page whose VM bit is set while its own
// PD_ALL_VISIBLE is cleared is named in VACUUM's words, on that block only, as a page the
// server reads (no problem row). Held against a real PostgreSQL 15: pg_visibility reports the
// same block all-visible in the map and not on the page, and VACUUM warns of it in the same
// words (with the relation's name where the browser, without catalogs, has its path).
import { expect, test } from './test';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Cluster } from '../pg/cluster';
import { pgChecksumPage } from '../oracle/pgchecksum';
import { makeDir } from './files';

const BS = 8192;
const CLEARED = 1;
/** bufpage.h */
const PD_ALL_VISIBLE = 0x0004;

let c: Cluster;
let heapPath: string;
let vacuumWarning: string;
let visibleInMap: number[];
const root = makeDir();

test.beforeAll(() => {
  c = Cluster.create('pgpage-vmfsm', 15);
  c.sql(`create extension pg_visibility;
    create table t (id int, v text) with (autovacuum_enabled = off);
    insert into t select g, repeat('x', 100) from generate_series(1, 500) g;
    vacuum (freeze) t;
    checkpoint;`);
  heapPath = c.relationPath('t');
  visibleInMap = c.rows<{ blkno: unknown }>("select blkno from pg_visibility_map('t') where all_visible order by blkno").map((r) => Number(r.blkno));
  c.stop();
  const heap = readFileSync(heapPath);
  const page = heap.subarray(CLEARED * BS, (CLEARED + 1) * BS);
  page.writeUInt16LE(page.readUInt16LE(10) & ~PD_ALL_VISIBLE, 10);
  page.writeUInt16LE(pgChecksumPage(page, CLEARED), 8);
  const dir = join(root, 'copy');
  mkdirSync(dir);
  writeFileSync(join(dir, basename(heapPath)), heap);
  copyFileSync(`${heapPath}_vm`, join(dir, `${basename(heapPath)}_vm`));
  // The server on the same bytes: the map says all-visible, the page does not.
  writeFileSync(heapPath, heap);
  c.start();
  expect(c.sql("select blkno from pg_visibility('t') where all_visible and not pd_all_visible;").trim()).toBe(String(CLEARED));
  vacuumWarning = c.psqlRaw('vacuum t;').stderr;
});

test.afterAll(() => c?.destroy());

test('a heap and its _vm: the page whose VM bit is set without PD_ALL_VISIBLE is named, and no other', async ({ page }) => {
  // The table's pages are all in the map, so every page was judged against its bit.
  expect(visibleInMap.length).toBeGreaterThan(CLEARED + 1);
  const warning = /WARNING: {2}(page is not marked all-visible but visibility map bit is set in relation "t" page \d+)/.exec(vacuumWarning);
  expect(warning?.[1], vacuumWarning).toBe(`page is not marked all-visible but visibility map bit is set in relation "t" page ${CLEARED}`);

  const name = basename(heapPath);
  await page.goto('/');
  await page.getByTestId('file-input').setInputFiles([join(root, 'copy', name), join(root, 'copy', `${name}_vm`)]);
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
  // The server reads the page: no problem row, and the verdict says so.
  await expect(page.getByTestId('problem')).toHaveCount(0);
  await expect(page.getByTestId('verdict')).toContainText('No problem pages');
  await expect(page.getByTestId('verdict-maps')).toContainText("1 page that its relation's visibility map disagrees with");

  const found = page.getByTestId('page-finding');
  await expect(found).toHaveCount(1);
  await expect(found).toHaveAttribute('data-code', 'vm_bit_without_page_flag');
  await expect(found).toHaveAttribute('data-block', String(CLEARED));
  await expect(found).toHaveAttribute('data-file', name);
  // VACUUM's words, the relation named by its path.
  const ours = warning![1].replace('"t"', `"${name}"`);
  await expect(found).toContainText(ours);

  await found.getByRole('button').click();
  const view = page.getByTestId('page-view');
  await expect(view).toHaveAttribute('data-block', String(CLEARED));
  await expect(view).toHaveAttribute('data-status', 'ok');
  await expect(page.getByTestId('page-findings').locator('li')).toHaveText([ours]);
  // Its neighbours, whose flag and bit agree, have none.
  await page.getByRole('button', { name: 'previous page' }).click();
  await expect(view).toHaveAttribute('data-block', String(CLEARED - 1));
  await expect(page.getByTestId('page-findings')).toHaveCount(0);
  await page.getByRole('button', { name: 'next page' }).click();
  await expect(page.getByTestId('page-findings')).toHaveCount(1);
  await page.getByRole('button', { name: 'next page' }).click();
  await expect(view).toHaveAttribute('data-block', String(CLEARED + 1));
  await expect(page.getByTestId('page-findings')).toHaveCount(0);

  // Without its _vm the same heap has nothing to say of block 1.
  await page.goto('/');
  await page.getByTestId('file-input').setInputFiles(join(root, 'copy', name));
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
  await expect(page.getByTestId('page-finding')).toHaveCount(0);
});
