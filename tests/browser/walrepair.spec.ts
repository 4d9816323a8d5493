// A good copy from WAL end to end on a real PostgreSQL 16 cluster (full_page_writes on, data
// checksums on): after a checkpoint, one HOT update writes a full-page image of block 2, and
// two updates touch block 3 (an image, then a record without one); the table is not read
// again before the stop, so no prune follows. A copy of the stopped data
// directory with block 2 torn is dropped with its pg_wal/; the damage panel offers the image
// at the LSN pg_walinspect reports, by the record pg_walinspect names, with no record after
// it; its page, taken into the repair kit, makes a file that passes pg_checksums --check and
// verify_heapam with the server's rows. A loose copy with block 3 torn is offered block 3's
// image with the record after it listed, in the words that the image alone does not replay it.
// The same loose copy with the WAL as pg_receivewal leaves it (the segment it was streaming
// named .partial) is offered the same image.
import { expect, test } from './test';
import { copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { Cluster, runPg, toolBin } from '../pg/cluster';
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
let clean: Buffer;
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
    select count(*) from t;
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
  // Not read again before the stop: a read would prune the updated pages (a record after
  // their images). The server's rows are read from this clean file at the end.
  c.stop();
  clean = readFileSync(heapPath);
  dropped = join(root, 'data');
  cpSync(c.dataDir, dropped, { recursive: true });
  const bad = Buffer.from(clean);
  tear(bad, TAKEN);
  writeFileSync(join(dropped, relative(c.dataDir, heapPath)), bad);
  const bad3 = Buffer.from(clean);
  tear(bad3, LATER);
  loose = join(makeDir(), basename(heapPath));
  writeFileSync(loose, bad3);
});

test.afterAll(() => c?.destroy());

/** pg_walinspect's newest image of a block and the records after it. */
function historyOf(block: number): { image: BlockInfo; after: BlockInfo[] } {
  const rows = info.filter((r) => r.relblocknumber === block);
  const at = rows.map((r) => r.fpi).lastIndexOf(true);
  expect(at, `pg_walinspect lists an image of block ${block}: ${JSON.stringify(rows)}`).toBeGreaterThanOrEqual(0);
  return { image: rows[at], after: rows.slice(at + 1) };
}

async function expectAfter(page: import('./test').Page, after: BlockInfo[]): Promise<void> {
  await expect(page.getByTestId('wal-after-note')).toHaveAttribute('data-count', String(after.length));
  const items = page.getByTestId('wal-after').locator('li');
  await expect(items).toHaveCount(after.length);
  for (let i = 0; i < after.length; i++) {
    expect(lsnValue((await items.nth(i).getAttribute('data-lsn'))!)).toBe(lsnValue(after[i].start_lsn));
    // pgpage names every record as pg_waldump and pg_walinspect do.
    await expect(items.nth(i)).toContainText(`${after[i].resource_manager}/${after[i].record_type}`);
  }
}

// The harness's pg_checksums that reads 16's control file (Debian's 15 reads 13 to 16).
const pgChecksums = () => runPg(toolBin('pg_checksums', 16)!, ['--check', '-D', c.dataDir]);

test('a torn page of a dropped data directory: the newest image in its pg_wal, taken, gives a file the server accepts', async ({ page }) => {
  const { image: fpi, after: later } = historyOf(TAKEN);
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
  await expectAfter(page, later);
  const view = page.getByTestId('wal-diff-view');
  await expect(view).toHaveAttribute('data-state', 'done');
  // The torn sector differs, byte for byte.
  await expect(view.locator('[data-side=a] [data-changed=true]')).not.toHaveCount(0);
  // The image carries no hole: no byte between its pd_lower and pd_upper is compared.
  const holeNote = view.getByTestId('image-hole');
  await expect(holeNote).toContainText('does not carry its hole');
  const [lo, hi] = (await holeNote.textContent())!
    .match(/bytes (\d+) to (\d+)/)!
    .slice(1)
    .map(Number);
  const offs = await view.locator('[data-side=a] [data-changed=true]').evaluateAll((es) => es.map((e) => Number(e.getAttribute('data-off'))));
  expect(offs.filter((o) => o >= lo && o <= hi)).toEqual([]);
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
  let rows: string;
  try {
    expect(c.sql("select count(*) from verify_heapam('t');").trim()).toBe('0');
    rows = c.sql('copy (select * from t order by id) to stdout;');
  } finally {
    c.stop();
  }
  writeFileSync(heapPath, clean);
  c.start();
  try {
    expect(rows, "the server's rows").toBe(c.sql('copy (select * from t order by id) to stdout;'));
  } finally {
    c.stop();
  }
});

test('a torn page whose block changed after its image: the record after it is listed, and said not to be in the image', async ({ page }) => {
  const { image: fpi, after: later } = historyOf(LATER);
  // The second update of block 3 came after its image, without one.
  expect(later.length).toBeGreaterThan(0);
  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(dropped);
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
  // Dropped loose: its database is not known, the WAL of the data directory dropped is read.
  await page.getByTestId('file-input').setInputFiles(loose);
  // The drop opens its own file first; the click below comes after that, as a person's would.
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-path', basename(loose));
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
  await page.locator(`[data-testid=problem][data-path="${basename(loose)}"][data-block="${LATER}"]`).click();
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', String(LATER));
  await expect(page.getByTestId('wal')).toHaveAttribute('data-state', 'done');
  expect(lsnValue((await page.getByTestId('wal-image').getAttribute('data-lsn'))!)).toBe(lsnValue(fpi.start_lsn));
  await expect(page.getByTestId('wal-after-note')).toContainText(
    later.length === 1 ? 'an image alone does not replay it' : 'an image alone does not replay them',
  );
  await expectAfter(page, later);
  await expect(page.getByTestId('wal-diff-view')).toHaveAttribute('data-state', 'done');
});

test('the segment pg_receivewal was streaming, named .partial, gives the same image', async ({ page }) => {
  const { image: fpi, after: later } = historyOf(LATER);
  // The image's segment (16 MB, timeline 1) is the one being streamed.
  const at = lsnValue(fpi.start_lsn);
  const hex = (n: bigint): string => n.toString(16).toUpperCase().padStart(8, '0');
  const streaming = `00000001${hex(at >> 32n)}${hex((at >> 24n) & 0xffn)}`;
  const receive = join(makeDir(), 'receive');
  mkdirSync(receive);
  const wal = join(dropped, 'pg_wal');
  const segments = readdirSync(wal).filter((n) => /^[0-9A-F]{24}$/.test(n) && n <= streaming);
  expect(segments).toContain(streaming);
  for (const n of segments) copyFileSync(join(wal, n), join(receive, n === streaming ? `${n}.partial` : n));
  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(receive);
  await page.getByTestId('file-input').setInputFiles(loose);
  // The drop opens its own file first; the click below comes after that, as a person's would.
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-path', basename(loose));
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
  await page.locator(`[data-testid=problem][data-path="${basename(loose)}"][data-block="${LATER}"]`).click();
  await expect(page.getByTestId('wal')).toHaveAttribute('data-state', 'done');
  expect(lsnValue((await page.getByTestId('wal-image').getAttribute('data-lsn'))!)).toBe(lsnValue(fpi.start_lsn));
  await expectAfter(page, later);
});
