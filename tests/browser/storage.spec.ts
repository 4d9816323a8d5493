// Damage outside a table's pages, in a PostgreSQL 16 data directory dropped whole: a
// visibility map page that fails its checksum (the server zeroes it as it reads it, with a
// WARNING) and a heap file cut two blocks short (sequential scans miss those rows without a
// word; the indexes still point at them). The first screen names both, the cut blocks with
// the keys they held, and an index whose file is gone (every query that opens it fails). A drop of that directory beside a base backup (backup_label) reports on
// the damaged one and holds the backup against it, without a choice made.
import { expect, test } from './test';
import { cpSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Cluster } from '../pg/cluster';
import { makeDir } from './files';

const BS = 8192;
const out = makeDir();
let cut = 0;
let lostKeys = 0;
let heap = '';

test.beforeAll(() => {
  const c = Cluster.create('pgpage-storage', 16);
  try {
    c.sql(`create table orders (id int primary key, note text not null) with (autovacuum_enabled = off);
      insert into orders select g, 'note-' || g from generate_series(1, 3000) g;
      create index orders_note on orders (note);
      vacuum orders;
      checkpoint;`);
    const heapAbs = c.relationPath('orders');
    const noteIndex = c.relationPath('orders_note');
    heap = heapAbs.slice(c.dataDir.length + 1);
    const blocks = readFileSync(heapAbs).length / BS;
    cut = blocks - 2;
    lostKeys = Number(c.sql(`select count(*) from orders where (ctid::text::point)[0] >= ${cut}`).trim());
    c.stop();
    cpSync(c.dataDir, join(out, 'pair', 'backup'), { recursive: true, filter: (src) => !/postmaster\.pid$/.test(src) });
    // A base backup as pg_basebackup leaves it: a backup_label beside its pg_control.
    writeFileSync(join(out, 'pair', 'backup', 'backup_label'), 'START WAL LOCATION: 0/2000028 (file 000000010000000000000002)\n');
    const vm = readFileSync(`${heapAbs}_vm`);
    vm[27] ^= 0x10;
    writeFileSync(`${heapAbs}_vm`, vm);
    truncateSync(heapAbs, cut * BS);
    rmSync(noteIndex);
    cpSync(c.dataDir, join(out, 'pair', 'zdmg'), { recursive: true, filter: (src) => !/postmaster\.pid$/.test(src) });
    cpSync(c.dataDir, join(out, 'dmg'), { recursive: true, filter: (src) => !/postmaster\.pid$/.test(src) });
  } finally {
    c.destroy();
  }
});

test('a map page the server zeroes and blocks past the file end are on the first screen', async ({ page }) => {
  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(join(out, 'dmg'));
  const report = page.getByTestId('incident-report');
  await expect(report).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  await expect(page.getByTestId('report-verdict')).toContainText("2 blocks past the end of a table's file");
  await expect(page.getByTestId('report-verdict')).toContainText('1 visibility or free space map page that the server zeroes');
  const map = page.locator('[data-testid=finding][data-code=map_page]');
  await expect(map).toContainText('The visibility map of public.orders, block 0');
  await expect(map).toContainText('zeroing out page');
  const missing = page.locator('[data-testid=finding][data-damage=missing]');
  await expect(missing).toHaveCount(2);
  await expect(page.locator(`[data-testid=finding][data-damage=missing][data-block="${cut}"]`)).toBeVisible();
  // Every row past the cut is counted lost, by the primary key's entries.
  const texts = await missing.evaluateAll((els) => els.map((e) => e.textContent ?? ''));
  const counted = texts.map((t) => Number(/(\d+) rows? lost/.exec(t)?.[1] ?? NaN)).reduce((a, b) => a + b, 0);
  expect(counted).toBe(lostKeys);
  // The index without its file is a finding of its own, not only a clause of the verdict.
  const gone = page.locator('[data-testid=finding][data-code=missing_index][data-index="public.orders_note"]');
  await expect(gone).toContainText('has no file');
  await expect(gone).toContainText('REINDEX INDEX public.orders_note');
});

test('beside a base backup, the report is of the damaged directory and holds the backup against it', async ({ page }) => {
  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(join(out, 'pair'));
  const report = page.getByTestId('incident-report');
  await expect(report).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  const note = page.getByTestId('report-others');
  // The damaged directory's name sorts after the backup's: it is chosen for its own sake.
  await expect(note).toContainText('This report is of pair/zdmg/');
  await expect(note).toContainText('held against the base backup pair/backup/');
  await expect(page.getByTestId('report-verdict')).toContainText("past the end of a table's file");
  // Two pg_control files, each named by its directory: the backup's is never read as the
  // damaged one's.
  const dirs = page.getByTestId('control-dir');
  await expect(dirs).toHaveCount(2);
  expect((await dirs.allTextContents()).map((t) => t.replace(/ \(.*$/, '')).sort()).toEqual(['pair/backup/global/pg_control', 'pair/zdmg/global/pg_control']);
  expect(heap).not.toBe('');
});
