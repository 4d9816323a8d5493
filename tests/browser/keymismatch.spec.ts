// A key changed in a heap tuple with the page's checksum made valid again (a value changed in
// memory before the page was written), in a PostgreSQL 16 data directory dropped whole: no
// page check sees it, so the incident report is the only thing that can. The server itself
// answers the primary key's old key with the changed row (checked below); the first screen
// must name the block as key_mismatch with both keys, rank it among the errors, and give the
// UPDATE that sets the index's key back, at a desktop and at a phone width.
import { expect, test, type Page } from './test';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Cluster } from '../pg/cluster';
import { pgChecksumPage } from '../oracle/pgchecksum';
import { makeDir } from './files';
import { measureLayout } from './layout';

const BS = 8192;
const KEY = 1000;
const CHANGED = 990_001;
const out = makeDir();

interface Made {
  dir: string;
  heap: string;
  block: number;
  lp: number;
  note: string;
}
let made: Made;

test.beforeAll(() => {
  const c = Cluster.create('pgpage-keymismatch', 16);
  try {
    c.sql(`create table orders (id int primary key, note text not null) with (autovacuum_enabled = off);
      insert into orders select g, 'note-' || g from generate_series(1, 3000) g;
      checkpoint;`);
    const [at] = c.rows<{ b: number; lp: number }>(`select (ctid::text::point)[0]::int as b, (ctid::text::point)[1]::int as lp from orders where id = ${KEY}`);
    const heapAbs = c.relationPath('orders');
    c.stop();
    // The undamaged cluster as a base backup, beside the damaged one in a folder of its own.
    cpSync(c.dataDir, join(out, 'pair', 'backup'), { recursive: true, filter: (src) => !/postmaster\.pid$/.test(src) });
    const file = readFileSync(heapAbs);
    const page = file.subarray(at.b * BS, (at.b + 1) * BS);
    const off = page.readUInt32LE(24 + 4 * (at.lp - 1)) & 0x7fff;
    page.writeInt32LE(CHANGED, off + page[off + 22]);
    page.writeUInt16LE(pgChecksumPage(page, at.b), 8);
    writeFileSync(heapAbs, file);
    // The server reads the page without a word and answers the old key with the changed row.
    c.start();
    const answered = c.sql(`set enable_seqscan = off; set enable_bitmapscan = off; select id, note from orders where id = ${KEY};`).trim();
    expect(answered).toBe(`${CHANGED}|note-${KEY}`);
    c.stop();
    const dir = join(out, 'dmg');
    cpSync(c.dataDir, dir, { recursive: true, filter: (src) => !/postmaster\.pid$/.test(src) });
    cpSync(dir, join(out, 'pair', 'dmg'), { recursive: true });
    made = { dir, heap: relative(c.dataDir, heapAbs), block: at.b, lp: at.lp, note: `note-${KEY}` };
  } finally {
    c.destroy();
  }
});

async function open(page: Page): Promise<void> {
  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(made.dir);
  await expect(page.getByTestId('incident-report')).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
}

for (const [name, viewport] of [
  ['desktop', { width: 1440, height: 900 }],
  ['phone', { width: 390, height: 844 }],
] as const) {
  test(`${name}: the changed key is named with the index's, and its UPDATE is a step`, async ({ page }) => {
    await page.setViewportSize(viewport);
    await open(page);
    await expect(page.getByTestId('report-verdict')).toContainText('1 row on pages that pass their checksum holds another key than its index entry names');
    const finding = page.locator(`[data-testid=finding][data-file="${made.heap}"][data-block="${made.block}"]`);
    await expect(finding).toHaveAttribute('data-damage', 'key_mismatch');
    await expect(finding).toContainText('Passes its checksum, but 1 row holds another key than public.orders_pkey names');
    await expect(finding).toContainText(`holds id ${CHANGED} where public.orders_pkey names id ${KEY} at (${made.block},${made.lp})`);
    // The one finding is the first: nothing else is wrong.
    await expect(page.locator('[data-testid=finding][data-damage]')).toHaveCount(1);
    await expect(page.getByTestId('report-steps')).toContainText(`UPDATE public.orders SET id = '${KEY}' WHERE ctid = '(${made.block},${made.lp})';`);
    // The page map marks the block, which verifies, as the report's finding.
    await finding.locator('button.finding-open').click();
    await expect(page.getByTestId('legend-told')).toBeVisible();
    const l = await measureLayout(page);
    expect(l.scrollWidth, `nothing scrolls sideways: ${l.wide.join(', ')}`).toBeLessThanOrEqual(l.innerWidth);
  });
}

test('a drop of two data directories says which one the report is of, and holds the other against it as a base backup', async ({ page }) => {
  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(join(out, 'pair'));
  const report = page.getByTestId('incident-report');
  await expect(report).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  const note = page.getByTestId('report-others');
  await expect(note).toContainText('This report is of');
  // Whichever directory the report began with, it is turned to the damaged one.
  const other = note.locator('li', { hasText: 'pair/dmg/' });
  if ((await other.count()) > 0) {
    await other.getByTestId('report-switch').click();
    await expect(report).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  }
  await expect(note).toContainText('This report is of pair/dmg/');
  await expect(page.getByTestId('report-verdict')).toContainText('1 row on pages that pass their checksum holds another key than its index entry names');
  await note.locator('li', { hasText: 'pair/backup/' }).getByTestId('report-backup').click();
  await expect(report).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  await expect(note).toContainText('held against the base backup pair/backup/');
  await expect(note).toContainText('pgpage report --from pair/backup pair/dmg');
  // The backup's page holds the row's version (same t_xmin, same line pointer): its key
  // settles which is the row's true one, though the server's reads moved the page's pd_lsn.
  const finding = page.locator(`[data-testid=finding][data-file="${made.heap}"][data-block="${made.block}"]`);
  await expect(finding).toContainText(`backup's page (pair/backup/${made.heap}) holds the same row version at (${made.block},${made.lp}) (t_xmin `);
  await expect(finding).toContainText(`it holds id ${KEY}, the key public.orders_pkey names`);
  await expect(page.getByTestId('report-steps')).toContainText(`UPDATE public.orders SET id = '${KEY}' WHERE ctid = '(${made.block},${made.lp})';`);
  // And back: the backup is left out again.
  await note.getByTestId('report-backup-off').click();
  await expect(report).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  await expect(note).toContainText('but not in this report');
  await expect(finding).not.toContainText("backup's page");
});
