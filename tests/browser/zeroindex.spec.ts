// An all-zero B-tree leaf in the browser, held against PostgreSQL 16: the server refuses it
// (bt_index_check, as every read that reaches it: _bt_checkpage), and the page's finding names
// the file and the block in the server's words. The untouched directory gives none.
import { expect, test, type Page } from './test';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Cluster } from '../pg/cluster';
import { makeDir } from './files';

const BS = 8192;
const out = makeDir();

let made: { clean: string; bad: string; index: string; error: string };

test.beforeAll(() => {
  const c = Cluster.create('pgpage-zeroindex', 16);
  try {
    c.sql(`create extension amcheck;
      create table t (id int4, v int4) with (autovacuum_enabled = off);
      insert into t select g, g from generate_series(1, 5000) g;
      create index t_v on t (v);
      checkpoint;`);
    const indexAbs = c.relationPath('t_v');
    c.stop();
    const copy = (to: string) => cpSync(c.dataDir, to, { recursive: true, filter: (src) => !/\/pg_wal\/.|postmaster\.pid$/.test(src) });
    const clean = join(out, 'clean');
    copy(clean);
    const index = readFileSync(indexAbs);
    const leaf = index.subarray(2 * BS, 3 * BS);
    expect(leaf.readUInt16LE(leaf.readUInt16LE(16) + 12) & 3, 'block 2 is a leaf, not the root').toBe(1);
    leaf.fill(0);
    writeFileSync(indexAbs, index);
    const bad = join(out, 'bad');
    copy(bad);
    c.start();
    const r = c.psqlRaw("select bt_index_check('t_v');");
    const error = /ERROR: {2}(.*)/.exec(r.stderr)?.[1] ?? r.stderr;
    expect(r.stderr).toContain('HINT:  Please REINDEX it.');
    made = { clean, bad, index: relative(c.dataDir, indexAbs), error };
  } finally {
    c.destroy();
  }
});

async function drop(page: Page, dir: string): Promise<void> {
  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(dir);
  await expect(page.getByTestId('catalog')).toHaveAttribute('data-state', 'done', { timeout: 90_000 });
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 90_000 });
}

test('zero index page: the B-tree leaf the server refuses is named, in its words', async ({ page }) => {
  expect(made.error).toBe('index "t_v" contains unexpected zero page at block 2');
  await drop(page, made.bad);
  const row = page.locator(`[data-testid=page-finding][data-path$="${made.index}"]`);
  await expect(row).toHaveCount(1);
  await expect(row).toHaveAttribute('data-code', 'btree_unexpected_zero_page');
  await expect(row).toHaveAttribute('data-block', '2');
  const text = (await row.textContent()) ?? '';
  expect(text.slice(text.indexOf('block 2: ') + 'block 2: '.length)).toBe(made.error);
  await row.getByRole('button').click();
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', '2');
});

test('zero index page: the untouched directory gives no such finding', async ({ page }) => {
  await drop(page, made.clean);
  await expect(page.locator('[data-testid=page-finding][data-code=btree_unexpected_zero_page]')).toHaveCount(0);
});
