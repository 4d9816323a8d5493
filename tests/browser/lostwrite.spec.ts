// A lost write in the browser, on a real PostgreSQL 18 data directory dropped whole, pg_wal/
// included: a table is checkpointed and its file copied (the older copy), rows of one block
// are updated and deleted, a checkpoint and a clean stop follow, and the older copy's page is
// put back. That page verifies and the server reads it without a word; only the WAL tells it
// is older than what the checkpoint wrote. The browser's report names it `stale` with the
// route the CLI gives (its Markdown is `pgpage report DIR`'s byte for byte), and an undamaged
// directory's report names no block.
import { expect, test } from './test';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Cluster } from '../pg/cluster';
import { makeDir } from './files';
import { repeatedSentences } from './sentences';

const BS = 8192;
const CLI = fileURLToPath(new URL('../../crates/target/release/pgpage', import.meta.url));
const STALE = 4;
const out = makeDir();

interface Made {
  heap: string;
  markdown: string;
  /** The server's COPY ... CSV of the rows not on the older block, before the stop. */
  otherRows: string;
  /** `pgpage rows` of the damaged directory's table: its stdout and stderr. */
  cliRows: { stdout: string; stderr: string };
  json: { relations: { blocks: { file: string; block_in_file: number; damage: string; route: string }[] }[] };
}
let made: Made;

test.beforeAll(() => {
  expect(existsSync(CLI), `${CLI} is missing: cargo build --release -p pgpage-cli`).toBe(true);
  const c = Cluster.create('pgpage-lostwrite', 18);
  try {
    c.sql(`create table orders (id int primary key, note text) with (fillfactor = 90, autovacuum_enabled = off);
      insert into orders select g, repeat('n', 100) || g from generate_series(1, 1500) g;
      select count(*) from orders;
      checkpoint;`);
    const heapAbs = c.relationPath('orders');
    const older = readFileSync(heapAbs).subarray(STALE * BS, (STALE + 1) * BS);
    c.sql(`update orders set note = 'changed' where (ctid::text::point)[0] = ${STALE} and id % 3 = 0;
      delete from orders where (ctid::text::point)[0] = ${STALE} and id % 7 = 0;`);
    // Read before the checkpoint: a read after it would set hint bits, and the full-page image
    // that logs would make the checkpoint's page the newest the WAL holds.
    const otherRows = c.sql(`copy (select * from orders where (ctid::text::point)[0] <> ${STALE} order by ctid) to stdout with (format csv);`);
    c.sql('checkpoint;');
    c.stop();
    const heap = relative(c.dataDir, heapAbs);
    cpSync(c.dataDir, join(out, 'clean'), { recursive: true, filter: (src) => !/postmaster\.pid$/.test(src) });
    cpSync(c.dataDir, join(out, 'dmg'), { recursive: true, filter: (src) => !/postmaster\.pid$/.test(src) });
    const file = readFileSync(join(out, 'dmg', heap));
    expect(Buffer.compare(file.subarray(STALE * BS, (STALE + 1) * BS), older)).not.toBe(0);
    older.copy(file, STALE * BS);
    writeFileSync(join(out, 'dmg', heap), file);

    const cli = (args: string[], status: number) => {
      const r = spawnSync(CLI, args, { cwd: out, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(status);
      return r.stdout;
    };
    cli(['report', 'clean'], 0);
    const rows = spawnSync(CLI, ['rows', '--database', 'postgres', 'dmg', 'public.orders'], { cwd: out, encoding: 'utf8' });
    made = {
      heap,
      otherRows,
      cliRows: { stdout: rows.stdout, stderr: rows.stderr },
      markdown: cli(['report', '--markdown', 'dmg'], 1),
      json: JSON.parse(cli(['report', '--json', 'dmg'], 1)) as Made['json'],
    };
  } finally {
    c.destroy();
  }
});

test("the browser's report names the older page stale, as pgpage report does, and the clean copy not", async ({ page }) => {
  const blocks = made.json.relations.flatMap((r) => r.blocks);
  expect(blocks.map((b) => [b.file, b.block_in_file, b.damage])).toEqual([[made.heap, STALE, 'stale']]);
  expect(blocks[0].route).toBe('recover');

  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(join(out, 'dmg'));
  await expect(page.getByTestId('incident-report')).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  const finding = page.locator(`[data-testid=finding][data-file="${made.heap}"][data-block="${STALE}"]`);
  await expect(finding).toHaveAttribute('data-damage', 'stale');
  await expect(finding).toContainText('older version of the page');
  // Its rows line says the core's reason once, however many fields carry it.
  expect(await repeatedSentences(finding)).toEqual([]);
  await expect(finding.getByTestId('finding-rows')).toContainText("the WAL's records after the page's pd_lsn");
  await expect(
    page
      .getByTestId('report-steps')
      .getByTestId('step-command')
      .filter({ hasText: /^pgpage recover .*--block 4\b/ }),
  ).not.toHaveCount(0);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('report-markdown').click()]);
  expect(readFileSync(await download.path(), 'utf8')).toBe(made.markdown);
  // Its checksum holds, so it is no problem page; the problem section (and its picture) lists
  // it apart, and opens it.
  const silent = page.getByTestId('read-without-error-page');
  await expect(silent).toHaveCount(1);
  await expect(silent).toHaveAttribute('data-damage', 'stale');
  await expect(silent).toHaveAttribute('data-block', String(STALE));
  await expect(silent).toContainText('older version of the page');
  await silent.getByRole('button').click();
  await expect(page.getByTestId('page-damage')).toHaveAttribute('data-damage', 'stale');

  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(join(out, 'clean'));
  await expect(page.getByTestId('incident-report')).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  await expect(page.locator('[data-testid=finding]:not([data-severity=note])')).toHaveCount(0);
});

test("the browser's rows leave the older page out, as pgpage rows does inside the data directory: its rows would be the ones before the changes", async ({
  page,
}) => {
  // The CLI: every row but the older block's, as the server returned them before the stop.
  expect(made.cliRows.stdout).toBe(made.otherRows);
  expect(made.cliRows.stderr).toContain(`block ${STALE}`);
  expect(made.cliRows.stderr).toContain('older than the WAL shows');

  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(join(out, 'dmg'));
  await expect(page.getByTestId('incident-report')).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  await page.locator(`[data-testid=finding][data-file="${made.heap}"][data-block="${STALE}"] button.finding-open`).click();
  const view = page.getByTestId('rows-view');
  await view.getByTestId('rows-open').click();
  await expect(view).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
  await expect(view.getByTestId('rows-salvage')).toContainText('pages left out: 1');
  await expect(view.getByTestId('rows-salvage')).toContainText('older than the WAL shows');
  const download = page.waitForEvent('download');
  await view.getByTestId('rows-export-csv').click();
  expect(readFileSync(await (await download).path(), 'utf8')).toBe(made.otherRows);
});
