// The browser's incident report on a PostgreSQL 19 data directory dropped whole, pg_wal/
// included, whose WAL holds XLOG2 records: data checksums were turned on while the server ran
// (pg_enable_data_checksums), then rows of one block updated after a checkpoint (its full-page
// image after the XLOG2 records), then that block zeroed. The report reads the WAL past the
// XLOG2 records to that image, and every LSN it shows is the text 19 prints (`%X/%08X`):
// pg_walinspect's start_lsn byte for byte, as `pgpage report --wal` gives it; the page view's
// image says the same LSN and its record's end (pg_walinspect's end_lsn), the decoded fields
// beside it print pd_lsn so too, and the Markdown is the CLI's.
import { expect, test } from './test';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Cluster } from '../pg/cluster';
import { makeDir } from './files';

const BS = 8192;
const CLI = fileURLToPath(new URL('../../crates/target/release/pgpage', import.meta.url));
const ZEROED = 3;
const out = makeDir();

interface Made {
  heap: string;
  image: string;
  /** The end of the image's record: the pd_lsn replay gives the restored page. */
  imageEnd: string;
  markdown: string;
  json: { relations: { blocks: { block: number; file: string; wal_image?: { lsn: string } }[] }[] };
}
let made: Made;

test.beforeAll(() => {
  expect(existsSync(CLI), `${CLI} is missing: cargo build --release -p pgpage-cli`).toBe(true);
  const c = Cluster.create('pgpage-walreport19', 19, undefined, '--no-data-checksums');
  try {
    c.sql(`create extension pg_walinspect;
      select pg_create_physical_replication_slot('keep', true);
      create table orders (id int primary key, note text) with (fillfactor = 90, autovacuum_enabled = off);
      insert into orders select g, repeat('n', 100) || g from generate_series(1, 1000) g;
      select count(*) from orders;
      checkpoint;`);
    const start = c.sql('select pg_current_wal_insert_lsn()::text;').trim();
    c.sql('select pg_enable_data_checksums();');
    const deadline = Date.now() + 120_000;
    while (c.sql('show data_checksums;').trim() !== 'on') {
      expect(Date.now(), 'data_checksums never turned on').toBeLessThan(deadline);
      spawnSync('sleep', ['0.2']);
    }
    c.sql(`checkpoint; update orders set note = note || '!' where (ctid::text::point)[0] = ${ZEROED} and id % 10 = 0;`);
    const end = c.sql('select pg_current_wal_insert_lsn()::text;').trim();
    const [image, imageEnd] = c
      .sql(
        `select start_lsn::text || ' ' || end_lsn::text from pg_get_wal_block_info('${start}', '${end}', false)
          where relfilenode = pg_relation_filenode('orders') and relforknumber = 0 and relblocknumber = ${ZEROED}
          and block_fpi_length > 0 order by start_lsn desc limit 1;`,
      )
      .trim()
      .split(' ');
    for (const lsn of [image, imageEnd]) expect(lsn).toMatch(/^[0-9A-F]+\/[0-9A-F]{8}$/);
    const xlog2 = c.sql(`select count(*) from pg_get_wal_records_info('${start}', '${image}') where resource_manager = 'XLOG2';`).trim();
    expect(Number(xlog2), 'XLOG2 records before the image').toBeGreaterThan(0);
    const heapAbs = c.relationPath('orders');
    c.stop();

    const bad = join(out, 'dmg');
    cpSync(c.dataDir, bad, { recursive: true, filter: (src) => !/postmaster\.pid$/.test(src) });
    const heap = relative(c.dataDir, heapAbs);
    const file = readFileSync(join(bad, heap));
    file.fill(0, ZEROED * BS, (ZEROED + 1) * BS);
    writeFileSync(join(bad, heap), file);
    const cli = (args: string[]) => {
      const r = spawnSync(CLI, args, { cwd: out, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(1);
      return r.stdout;
    };
    const markdown = cli(['report', '--markdown', '--wal', 'dmg/pg_wal', 'dmg']);
    const json = JSON.parse(cli(['report', '--json', '--wal', 'dmg/pg_wal', 'dmg'])) as Made['json'];
    made = { heap, image, imageEnd, markdown, json };
  } finally {
    c.destroy();
  }
});

test("19's WAL with XLOG2 records: the image's LSN as 19 prints it, in the report and the page view", async ({ page }) => {
  const b = made.json.relations.flatMap((r) => r.blocks).find((x) => x.file === made.heap && x.block === ZEROED)!;
  expect(b.wal_image!.lsn).toBe(made.image);

  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(join(out, 'dmg'));
  await expect(page.getByTestId('incident-report')).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 120_000 });

  const finding = page.locator(`[data-testid=finding][data-file="${made.heap}"][data-block="${ZEROED}"]`);
  await expect(finding.getByTestId('finding-wal')).toHaveAttribute('data-lsn', made.image);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('report-markdown').click()]);
  expect(readFileSync(await download.path(), 'utf8')).toBe(made.markdown);

  await finding.getByTestId('finding-wal-open').click();
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', String(ZEROED));
  await expect(page.getByTestId('wal-image')).toHaveAttribute('data-lsn', made.image, { timeout: 60_000 });
  await expect(page.getByTestId('wal-image')).toContainText(`LSN ${made.image}`);
  await expect(page.getByTestId('wal-image-end')).toHaveText(made.imageEnd);
  // The zeroed page beside the image: pd_lsn 0 and the record's end, as 19's pg_lsn prints them.
  const lsnRow = page.getByTestId('wal-diff-view').locator('[data-field=pd_lsn] td');
  await expect(lsnRow).toHaveText(['0/00000000', made.imageEnd]);
});
