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

const BS = 8192;
const CLI = fileURLToPath(new URL('../../crates/target/release/pgpage', import.meta.url));
const STALE = 4;
const out = makeDir();

interface Made {
  heap: string;
  markdown: string;
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
      delete from orders where (ctid::text::point)[0] = ${STALE} and id % 7 = 0;
      checkpoint;`);
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
    made = {
      heap,
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
