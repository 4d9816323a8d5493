// A good copy from WAL end to end on a real PostgreSQL 16 cluster (full_page_writes on, data
// checksums on): after a checkpoint, one HOT update writes a full-page image of block 2, and
// two updates touch block 3 (an image, then a record without one). A copy of the stopped data
// directory with block 2 torn is dropped with its pg_wal/; the damage panel offers the image
// at the LSN pg_walinspect reports, by the record pg_walinspect names, with no record after
// it; its page, taken into the repair kit, makes a file that passes pg_checksums --check and
// verify_heapam with the server's rows. A loose copy with block 3 torn is offered block 3's
// image with the record after it listed, in the words that the image alone does not replay it.
import { expect, test } from './test';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { Cluster, runPg } from '../pg/cluster';
import { makeDir } from './files';

const BS = 8192;
const TAKEN = 2;
const LATER = 3;

interface BlockInfo {
  start_lsn: string;
  relblocknumber: number;
  resource_manager: string;
  record_type: string;
  fpi: boolean;
}

let c: Cluster;
let heapPath: string;
let rowsBefore: string;
let info: BlockInfo[];
const root = makeDir();
let dropped: string;
let loose: string;

const lsnValue = (lsn: string): bigint => {
  const [hi, lo] = lsn.split('/');
  return (BigInt(`0x${hi}`) << 32n) | BigInt(`0x${lo}`);
};

const tear = (bytes: Buffer, block: number): void => {
  for (let i = 0; i < 512; i++) bytes[block * BS + 4096 + i] ^= ((i * 37) & 0xff) | 1;
};

test.beforeAll(() => {
  c = Cluster.create('pgpage-walrepair', 16);
  c.sql(`create extension amcheck; create extension pg_walinspect;
    create table t (id int primary key, v text) with (fillfactor = 50);
    insert into t select g, md5(g::text) from generate_series(1, 2000) g;
    checkpoint;`);
  const start = c.sql('select pg_current_wal_insert_lsn();').trim();
  c.sql(`update t set v = v || '!' where ctid = '(${TAKEN},1)';
    update t set v = v || '?' where ctid = '(${LATER},1)';
    update t set v = v || '?' where ctid = '(${LATER},2)';`);
  const end = c.sql('select pg_current_wal_insert_lsn();').trim();
  info = c.rows<BlockInfo>(
    `select start_lsn::text, relblocknumber, resource_manager, record_type, block_fpi_length > 0 as fpi
       from pg_get_wal_block_info('${start}', '${end}', false)
      where relfilenode = pg_relation_filenode('t') and relforknumber = 0 order by start_lsn`,
  );
  heapPath = c.relationPath('t');
  rowsBefore = c.sql('copy (select * from t order by id) to stdout;');
  c.stop();
  dropped = join(root, 'data');
  cpSync(c.dataDir, dropped, { recursive: true });
  const bad = readFileSync(heapPath);
  tear(bad, TAKEN);
  writeFileSync(join(dropped, relative(c.dataDir, heapPath)), bad);
  const bad3 = readFileSync(heapPath);
  tear(bad3, LATER);
  loose = join(makeDir(), basename(heapPath));
  writeFileSync(loose, bad3);
});

test.afterAll(() => c?.destroy());

const pgChecksums = () => runPg('pg_checksums', ['--check', '-D', c.dataDir], undefined, 16);

test('a torn page of a dropped data directory: the newest image in its pg_wal, taken, gives a file the server accepts', async ({ page }) => {
  const images = info.filter((r) => r.relblocknumber === TAKEN);
  // pg_walinspect: one record touched block 2, carrying its image.
  expect(images.map((r) => r.fpi)).toEqual([true]);
  const fpi = images[0];
  const name = basename(heapPath);
  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(dropped);
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
  const problem = page.locator(`[data-testid=problem][data-file="${name}"][data-block="${TAKEN}"]`);
  await expect(problem).toHaveCount(1);
  await problem.click();
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', String(TAKEN));
  const wal = page.getByTestId('wal');
  await expect(wal).toHaveAttribute('data-state', 'done');
  const image = page.getByTestId('wal-image');
  const lsn = await image.getAttribute('data-lsn');
  expect(lsnValue(lsn!)).toBe(lsnValue(fpi.start_lsn));
  await expect(page.getByTestId('wal-record')).toHaveText(`${fpi.resource_manager}/${fpi.record_type}`);
  await expect(page.getByTestId('wal-after-note')).toHaveAttribute('data-count', '0');
  const view = page.getByTestId('wal-diff-view');
  await expect(view).toHaveAttribute('data-state', 'done');
  // The torn sector differs, byte for byte.
  await expect(view.locator('[data-side=a] [data-changed=true]')).not.toHaveCount(0);
  await page.getByTestId('wal-use').click();
  await expect(page.getByTestId('kit-pages').locator('li')).toHaveCount(1);
  await expect(page.getByTestId('kit-pages')).toContainText(`full-page image at LSN ${lsn}`);

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('repair-download').click()]);
  expect(download.suggestedFilename()).toBe(name);
  const repaired = join(root, 'repaired');
  await download.saveAs(repaired);
  writeFileSync(heapPath, readFileSync(repaired));
  const check = pgChecksums();
  expect(check.status, `pg_checksums --check: ${check.stdout}${check.stderr}`).toBe(0);
  c.start();
  try {
    expect(c.sql("select count(*) from verify_heapam('t');").trim()).toBe('0');
    expect(c.sql('copy (select * from t order by id) to stdout;')).toBe(rowsBefore);
  } finally {
    c.stop();
  }
});

test('a torn page whose block changed after its image: the record after it is listed, and said not to be in the image', async ({ page }) => {
  const touched = info.filter((r) => r.relblocknumber === LATER);
  // pg_walinspect: the first update carried block 3's image, the second did not.
  expect(touched.map((r) => r.fpi)).toEqual([true, false]);
  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(dropped);
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
  // Dropped loose: its database is not known, the WAL of the data directory dropped is read.
  await page.getByTestId('file-input').setInputFiles(loose);
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
  await page.locator(`[data-testid=problem][data-path="${basename(loose)}"][data-block="${LATER}"]`).click();
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', String(LATER));
  await expect(page.getByTestId('wal')).toHaveAttribute('data-state', 'done');
  expect(lsnValue((await page.getByTestId('wal-image').getAttribute('data-lsn'))!)).toBe(lsnValue(touched[0].start_lsn));
  const note = page.getByTestId('wal-after-note');
  await expect(note).toHaveAttribute('data-count', '1');
  await expect(note).toContainText('an image alone does not replay it');
  const after = page.getByTestId('wal-after').locator('li');
  await expect(after).toHaveCount(1);
  expect(lsnValue((await after.getAttribute('data-lsn'))!)).toBe(lsnValue(touched[1].start_lsn));
  await expect(after).toContainText(`${touched[1].resource_manager}/${touched[1].record_type}`);
  await expect(page.getByTestId('wal-diff-view')).toHaveAttribute('data-state', 'done');
});
