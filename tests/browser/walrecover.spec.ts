// A damaged block rebuilt from WAL in the browser as `pgpage recover --block` rebuilds it, on a
// real PostgreSQL 16 cluster (data checksums on): after a checkpoint, heap block 10 changes by
// several records (HOT updates, the first with the block's full-page image, a non-HOT update,
// deletes, a row lock), the primary key's leaves by inserts, and a hash index's pages too. The
// stopped data directory is copied with block 10, one such leaf and one such hash page torn,
// and dropped whole with its pg_wal/. Block 10's rebuild says how many records it replayed
// after the image (pg_walinspect's count) and the page's LSN (the last record's end); the
// repaired file it downloads is byte for byte what the command it shows (`pgpage recover
// --block 10 --out NEW FILE`) writes, passes pg_checksums and verify_heapam, and holds the
// server's rows. The B-tree leaf is rebuilt as the CLI rebuilds it; the hash page, whose
// records pgpage does not replay, is refused with the CLI's reason, and its image alone is
// offered with the count of records after it; so is the heap file dropped loose, whose
// database and pg_control are not known. The incident report's finding opens the rebuild.
import { expect, test, type Page } from './test';
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { Cluster, runPg, toolBin } from '../pg/cluster';
import { ensurePgpage } from '../pg/pgpage';
import { makeDir } from './files';
import { sentence } from '../../web/src/lib/messages';

const BS = 8192;
const HEAP_BLOCK = 10;

interface BlockInfo {
  start_lsn: string;
  end_lsn: string;
  relblocknumber: number;
  fpi: boolean;
}

let c: Cluster;
let heapPath: string;
let indexPath: string;
let clean: Buffer;
let cleanIndex: Buffer;
let heapInfo: BlockInfo[];
let indexInfo: BlockInfo[];
let indexBlock: number;
let hashPath: string;
let hashInfo: BlockInfo[];
let hashBlock: number;
const root = makeDir();
const dropped = join(root, 'data');

const tear = (bytes: Buffer, block: number): void => {
  for (let i = 0; i < 512; i++) bytes[block * BS + 4096 + i] ^= ((i * 37) & 0xff) | 1;
};

/** pg_walinspect's newest image of a block and the records after it. */
function historyOf(info: BlockInfo[], block: number): { image: BlockInfo; after: BlockInfo[] } {
  const rows = info.filter((r) => r.relblocknumber === block);
  const at = rows.map((r) => r.fpi).lastIndexOf(true);
  expect(at, `pg_walinspect lists an image of block ${block}: ${JSON.stringify(rows)}`).toBeGreaterThanOrEqual(0);
  return { image: rows[at], after: rows.slice(at + 1) };
}

test.beforeAll(() => {
  ensurePgpage();
  c = Cluster.create('pgpage-walrecover', 16);
  c.sql(`alter system set wal_keep_size = '1GB'; select pg_reload_conf();`);
  c.sql(`create extension amcheck; create extension pg_walinspect;
    create table t (id int primary key, v text) with (fillfactor = 50, autovacuum_enabled = off);
    create index t_odd on t using hash ((id % 2));
    insert into t select g, md5(g::text) from generate_series(1, 2000) g;
    select count(*) from t;
    checkpoint;`);
  const ids = c.sql(`select id from t where (ctid::text::point)[0] = ${HEAP_BLOCK} order by id;`).trim().split('\n').map(Number);
  expect(ids.length).toBeGreaterThan(8);
  const start = c.sql('select pg_current_wal_insert_lsn();').trim();
  // One statement each: a record each, in this order.
  for (const q of [
    `update t set v = v || '!' where id = ${ids[0]}`,
    `update t set v = v || '?' where id = ${ids[1]}`,
    `update t set v = upper(v) where id = ${ids[2]}`,
    `delete from t where id = ${ids[3]}`,
    `delete from t where id = ${ids[4]}`,
    `update t set id = -id where id = ${ids[5]}`,
    `select * from t where id = ${ids[6]} for update`,
    `update t set v = v || '#' where id = ${ids[7]}`,
    ...[2001, 2002, 2003, 2004].map((g) => `insert into t values (${g}, md5('${g}'))`),
  ])
    c.sql(`${q};`);
  const end = c.sql('select pg_current_wal_insert_lsn();').trim();
  const blockInfo = (rel: string) =>
    c.rows<BlockInfo>(
      `select start_lsn::text, end_lsn::text, relblocknumber::int, block_fpi_length > 0 as fpi
         from pg_get_wal_block_info('${start}', '${end}', false)
        where relfilenode = pg_relation_filenode('${rel}') and relforknumber = 0 order by start_lsn`,
    );
  heapInfo = blockInfo('t');
  indexInfo = blockInfo('t_pkey');
  hashInfo = blockInfo('t_odd');
  // An index page changed by records after its image.
  const changedAfterImage = (info: BlockInfo[]) =>
    [...new Set(info.map((r) => r.relblocknumber))].filter((b) => {
      const rows = info.filter((r) => r.relblocknumber === b);
      const at = rows.map((r) => r.fpi).lastIndexOf(true);
      return at >= 0 && at < rows.length - 1;
    });
  const leaves = changedAfterImage(indexInfo);
  expect(leaves.length, JSON.stringify(indexInfo)).toBeGreaterThan(0);
  indexBlock = leaves[0];
  const hashed = changedAfterImage(hashInfo);
  expect(hashed.length, JSON.stringify(hashInfo)).toBeGreaterThan(0);
  hashBlock = hashed[0];
  heapPath = c.relationPath('t');
  indexPath = c.relationPath('t_pkey');
  hashPath = c.relationPath('t_odd');
  c.stop();
  clean = readFileSync(heapPath);
  cleanIndex = readFileSync(indexPath);
  cpSync(c.dataDir, dropped, { recursive: true, filter: (src) => !/postmaster\.pid$/.test(src) });
  const bad = Buffer.from(clean);
  tear(bad, HEAP_BLOCK);
  writeFileSync(join(dropped, relative(c.dataDir, heapPath)), bad);
  const index = readFileSync(join(dropped, relative(c.dataDir, indexPath)));
  tear(index, indexBlock);
  writeFileSync(join(dropped, relative(c.dataDir, indexPath)), index);
  const hash = readFileSync(join(dropped, relative(c.dataDir, hashPath)));
  tear(hash, hashBlock);
  writeFileSync(join(dropped, relative(c.dataDir, hashPath)), hash);
});

test.afterAll(() => c?.destroy());

/** The CLI as a person would run the command the page shows, from the folder the data
 * directory was dropped from, NEW being `out`. */
function runShown(command: string, out: string): { status: number | null; stderr: string } {
  const args = command.split(' ');
  expect(args.slice(0, 2)).toEqual(['pgpage', 'recover']);
  const r = spawnSync(
    ensurePgpage(),
    args.slice(1).map((a) => (a === 'NEW' ? out : a)),
    { cwd: root, encoding: 'utf8' },
  );
  return { status: r.status, stderr: r.stderr };
}

async function open(page: Page, file: string, block: number): Promise<void> {
  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(dropped);
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
  const problem = page.locator(`[data-testid=problem][data-file="${basename(file)}"][data-block="${block}"]`);
  await expect(problem).toHaveCount(1);
  await problem.click();
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', String(block));
  await expect(page.getByTestId('wal')).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
}

const pgChecksums = () => runPg(toolBin('pg_checksums', 16)!, ['--check', '-D', c.dataDir]);

test('a torn heap page changed after its image: rebuilt from WAL as pgpage recover does, the server reads its rows', async ({ page }) => {
  const { image, after } = historyOf(heapInfo, HEAP_BLOCK);
  expect(after.length, 'records after the image').toBeGreaterThanOrEqual(5);
  await open(page, heapPath, HEAP_BLOCK);
  const rebuild = page.getByTestId('wal-rebuild');
  await expect(rebuild).toHaveAttribute('data-state', 'recovered');
  await expect(page.getByTestId('wal-rebuild-summary')).toHaveText(
    `replayed ${after.length} records after the image at ${image.start_lsn}; page LSN ${after[after.length - 1].end_lsn}`,
  );
  // The image alone stays, named the older route; what it loses is the core's sentence, the
  // same one `pgpage report` gives for the block's image (its rebuild step replays them all).
  await expect(page.getByTestId('wal-use')).toHaveText('Use the image alone (the older route)');
  const told = spawnSync(ensurePgpage(), ['report', '--json', dropped], { encoding: 'utf8' });
  expect(told.status, told.stderr).toBe(1);
  const report = JSON.parse(told.stdout) as {
    relations: { path: string; blocks: { block: number; wal_image?: { restoring: string } }[] }[];
    steps: string[];
  };
  const restoring = report.relations.find((r) => r.path === relative(c.dataDir, heapPath))?.blocks.find((b) => b.block === HEAP_BLOCK)?.wal_image?.restoring;
  expect(restoring, told.stdout).toBeTruthy();
  expect(
    report.steps.some((s) => new RegExp(`Block ${HEAP_BLOCK} of \\S+: its image at \\S+ and \\d+ records? after it \\(.*\\), all replayed\\.`).test(s)),
    told.stdout,
  ).toBe(true);
  await expect(page.getByTestId('wal-restoring')).toHaveText(sentence(restoring!));
  const command = (await page.getByTestId('wal-rebuild-command').textContent())!;
  const rel = relative(root, join(dropped, relative(c.dataDir, heapPath)));
  expect(command).toBe(`pgpage recover --block ${HEAP_BLOCK} --out NEW ${rel}`);

  // The report finds the page torn: its rows-as-read rebuild defers to the WAL's.
  await expect(page.getByTestId('kit-torn-wal')).toBeVisible();
  await page.getByTestId('wal-rebuild-take').click();
  const kit = page.getByTestId('kit-pages').locator('li');
  await expect(kit).toHaveCount(1);
  await expect(kit).toContainText('rebuilt from WAL as pgpage recover does: replayed');
  await expect(page.getByTestId('wal-rebuild-take')).toBeDisabled();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('repair-download').click()]);
  expect(download.suggestedFilename()).toBe(basename(heapPath));
  const repaired = readFileSync(await download.path());

  const cliOut = join(makeDir(), 'recovered');
  const cli = runShown(command, cliOut);
  expect(cli.status, cli.stderr).toBe(0);
  const written = readFileSync(cliOut);
  expect(repaired.length).toBe(written.length);
  const block = (b: Buffer) => b.subarray(HEAP_BLOCK * BS, (HEAP_BLOCK + 1) * BS);
  expect(Buffer.compare(block(repaired), block(written)), 'block 10 as pgpage recover writes it').toBe(0);
  expect(Buffer.compare(repaired, written), 'the whole file as pgpage recover writes it').toBe(0);

  // The server's judgement of the repaired file, and its rows against the undamaged file's.
  writeFileSync(heapPath, repaired);
  const check = pgChecksums();
  expect(check.status, `pg_checksums --check: ${check.stdout}${check.stderr}`).toBe(0);
  c.start();
  let rows: string;
  try {
    expect(c.sql("select count(*) from verify_heapam('t');").trim()).toBe('0');
    rows = c.sql(`copy (select ctid, * from t where (ctid::text::point)[0] = ${HEAP_BLOCK} order by ctid) to stdout;`);
  } finally {
    c.stop();
  }
  writeFileSync(heapPath, clean);
  c.start();
  try {
    expect(rows, "block 10's rows as the server reads them from the undamaged file").toBe(
      c.sql(`copy (select ctid, * from t where (ctid::text::point)[0] = ${HEAP_BLOCK} order by ctid) to stdout;`),
    );
  } finally {
    c.stop();
  }
});

test('a torn B-tree leaf changed after its image: rebuilt from WAL as pgpage recover does', async ({ page }) => {
  const { image, after } = historyOf(indexInfo, indexBlock);
  await open(page, indexPath, indexBlock);
  await expect(page.getByTestId('wal-rebuild')).toHaveAttribute('data-state', 'recovered');
  await expect(page.getByTestId('wal-rebuild-summary')).toHaveText(
    `replayed ${after.length} record${after.length === 1 ? '' : 's'} after the image at ${image.start_lsn}; page LSN ${after[after.length - 1].end_lsn}`,
  );
  const command = (await page.getByTestId('wal-rebuild-command').textContent())!;
  const rel = relative(root, join(dropped, relative(c.dataDir, indexPath)));
  expect(command).toBe(`pgpage recover --block ${indexBlock} --out NEW ${rel}`);
  await page.getByTestId('wal-rebuild-take').click();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('repair-download').click()]);
  const repaired = readFileSync(await download.path());
  const cliOut = join(makeDir(), 'recovered');
  const cli = runShown(command, cliOut);
  expect(cli.status, cli.stderr).toBe(0);
  expect(Buffer.compare(repaired, readFileSync(cliOut)), 'the whole file as pgpage recover writes it').toBe(0);
  // The rebuilt leaf is the page the server wrote before the copy was torn.
  const block = (b: Buffer) => b.subarray(indexBlock * BS, (indexBlock + 1) * BS);
  expect(Buffer.compare(block(repaired), block(cleanIndex)), 'the leaf as the server wrote it').toBe(0);
});

test('an index page whose records pgpage does not replay: the reason replaces the button, and the image alone, an index page older than its table, is not offered', async ({
  page,
}) => {
  const { after } = historyOf(hashInfo, hashBlock);
  await open(page, hashPath, hashBlock);
  const rebuild = page.getByTestId('wal-rebuild');
  await expect(rebuild).toHaveAttribute('data-state', 'refused');
  await expect(page.getByTestId('wal-rebuild-take')).toHaveCount(0);
  // The CLI's own reason for the same block.
  const rel = relative(root, join(dropped, relative(c.dataDir, hashPath)));
  const cli = runShown(`pgpage recover --block ${hashBlock} --out NEW ${rel}`, join(makeDir(), 'recovered'));
  expect(cli.status, cli.stderr).toBe(1);
  const reason = /not recovered: (.*)$/m.exec(cli.stderr)?.[1];
  expect(reason, cli.stderr).toContain('of a kind pgpage does not apply');
  await expect(page.getByTestId('wal-rebuild-refused')).toContainText(reason!);
  // Refused, the page says no rebuild is there to take, and why the image alone is none: the
  // core's sentence, which the CLI's report prints too.
  await expect(page.getByTestId('wal-after-note')).not.toContainText('the rebuild above');
  await expect(page.getByTestId('wal-after-note')).toHaveAttribute('data-count', String(after.length));
  await expect(page.getByTestId('wal-restoring')).toContainText('leaves the index page older than its table');
  await expect(page.getByTestId('wal-diff-view')).toHaveAttribute('data-state', 'done');
  await expect(page.getByTestId('wal-use')).toHaveCount(0);
});

test("the incident report's way to block 10 is its rebuild, not the image that loses the records after it", async ({ page }) => {
  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(dropped);
  await expect(page.getByTestId('incident-report')).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  const finding = page.locator(`[data-testid=finding][data-file="${relative(c.dataDir, heapPath)}"][data-block="${HEAP_BLOCK}"]`);
  const rebuildIt = finding.getByTestId('finding-wal-open');
  await expect(rebuildIt).toHaveText('Rebuild it from the WAL…');
  await rebuildIt.click();
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', String(HEAP_BLOCK));
  const take = page.getByTestId('wal-rebuild-take');
  await expect(take).toBeFocused({ timeout: 60_000 });
  await expect(take).toBeInViewport();
});

test('a torn page dropped without its data directory: no rebuild, said why, and the image alone offered with its loss', async ({ page }) => {
  const { after } = historyOf(heapInfo, HEAP_BLOCK);
  const loose = join(makeDir(), basename(heapPath));
  writeFileSync(loose, readFileSync(join(dropped, relative(c.dataDir, heapPath))));
  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(dropped);
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
  await page.getByTestId('file-input').setInputFiles(loose);
  // The drop opens its own file first; the click below comes after that, as a person's would.
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-path', basename(loose));
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
  await page.locator(`[data-testid=problem][data-path="${basename(loose)}"][data-block="${HEAP_BLOCK}"]`).click();
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', String(HEAP_BLOCK));
  await expect(page.getByTestId('wal')).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
  await expect(page.getByTestId('wal-rebuild')).toHaveAttribute('data-state', 'refused');
  await expect(page.getByTestId('wal-rebuild-refused')).toContainText('this file came without its data directory');
  await expect(page.getByTestId('wal-rebuild-take')).toHaveCount(0);
  await expect(page.getByTestId('wal-use')).toHaveText('Use the image alone (the older route)');
  await expect(page.getByTestId('wal-after-note')).toHaveAttribute('data-count', String(after.length));
});
