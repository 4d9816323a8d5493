// The repair kit end to end on a real PostgreSQL 15 table: its file damaged on disk (a torn
// sector in one page, one flipped bit in another) is dropped beside its backup copy; the page
// view compares the two, takes the backup's page for the torn block and the bit-flip
// candidate for the other, and downloads the repaired file. That file, put in place of the
// damaged one, passes pg_checksums --check on the stopped cluster and amcheck
// (verify_heapam, bt_index_check) on the started one, with every row back.
import { expect, test } from './test';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Cluster, runPg } from '../pg/cluster';
import { makeDir } from './files';

const BS = 8192;
const TORN = 2;
const FLIPPED = 4;
const FLIP_OFFSET = 7000;
const FLIP_BIT = 5;

let c: Cluster;
let heapPath: string;
let rowsBefore: string;
const root = makeDir();

test.beforeAll(() => {
  c = Cluster.create('pgpage-repair', 15);
  c.sql(`create extension amcheck;
    create table t (id int primary key, v text);
    insert into t select g, md5(g::text) || repeat('z', g % 40) from generate_series(1, 3000) g;
    checkpoint;`);
  heapPath = c.relationPath('t');
  rowsBefore = c.sql('select count(*), sum(length(v)) from t;');
  c.stop();
  const clean = readFileSync(heapPath);
  mkdirSync(join(root, 'backup'));
  mkdirSync(join(root, 'live'));
  copyFileSync(heapPath, join(root, 'backup', basename(heapPath)));
  const bad = Buffer.from(clean);
  for (let i = 0; i < 512; i++) bad[TORN * BS + 4096 + i] ^= ((i * 37) & 0xff) | 1;
  bad[FLIPPED * BS + FLIP_OFFSET] ^= 1 << FLIP_BIT;
  writeFileSync(join(root, 'live', basename(heapPath)), bad);
  writeFileSync(heapPath, bad);
});

test.afterAll(() => c?.destroy());

const pgChecksums = () => runPg('pg_checksums', ['--check', '-D', c.dataDir]);

test('a damaged file and its backup: compare, take the good page and a bit flip, download a file the server accepts', async ({ page }) => {
  expect(pgChecksums().status, 'pg_checksums sees the damage first').toBe(1);
  const name = basename(heapPath);
  await page.goto('/');
  // Both dropped together, loose: two files of one name.
  await page.getByTestId('file-input').setInputFiles([join(root, 'live', name), join(root, 'backup', name)]);
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
  await expect(page.getByTestId('problem')).toHaveCount(2);

  // The torn page: compared with the other file of that name.
  await page.locator(`[data-testid=problem][data-block="${TORN}"]`).click();
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', String(TORN));
  await page.getByTestId('compare-with').click();
  const summary = page.getByTestId('compare-summary');
  await expect(summary).toHaveAttribute('data-state', 'done');
  await expect(summary).toHaveAttribute('data-different', '2');
  await expect(page.getByTestId('diff-page')).toHaveCount(2);
  const torn = page.locator(`[data-testid=diff-page][data-block="${TORN}"]`);
  // 512 bytes of one sector, every one changed (each xor has its low bit set).
  await expect(torn.locator('td').nth(3)).toHaveText('512');
  await expect(torn.locator('td').nth(5)).toHaveText('8');
  await expect(page.getByTestId('damage-summary')).toContainText('in 2 512-byte sectors');
  const view = page.getByTestId('diff-view');
  await expect(view).toHaveAttribute('data-state', 'done');
  await expect(view.locator('[data-side=a] [data-changed=true]')).toHaveCount(512);
  await page.getByTestId('kit-add-copy').click();
  await expect(page.getByTestId('kit-pages').locator('li')).toHaveCount(1);

  // The page with one flipped bit: from the list of differing pages, then its candidates.
  await page.locator(`[data-testid=diff-page][data-block="${FLIPPED}"]`).click();
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', String(FLIPPED));
  await expect(page.getByTestId('bitflips')).toHaveAttribute('data-state', 'done');
  await expect(page.getByTestId('flip-odds')).toContainText('a candidate is evidence, not proof');
  const candidate = page.locator(`[data-testid=flip-candidate][data-offset="${FLIP_OFFSET}"][data-bit="${FLIP_BIT}"]`);
  await expect(candidate).toHaveCount(1);
  // The panel lists the candidates in the core's rank order, each with its reason.
  const ranks = await page.getByTestId('flip-rank').evaluateAll((cells) => cells.map((c) => Number(c.getAttribute('data-rank'))));
  expect(ranks).toEqual(ranks.map((_, i) => i + 1));
  await expect(candidate.getByTestId('flip-rank')).not.toContainText('not ranked');
  await candidate.getByRole('button').click();
  await expect(page.locator(`[data-testid=hexview] [data-off="${FLIP_OFFSET}"]`)).toHaveAttribute('data-highlight', 'true');
  const damagedByte = readFileSync(join(root, 'live', name))[FLIPPED * BS + FLIP_OFFSET];
  await expect(page.getByTestId('flip-shown')).toContainText(`would be 0x${(damagedByte ^ (1 << FLIP_BIT)).toString(16).padStart(2, '0')}`);
  // The diff agrees: one bit, at that byte.
  await expect(page.locator(`[data-testid=diff-page][data-block="${FLIPPED}"] td`).nth(6)).toHaveText(`${FLIP_OFFSET}..${FLIP_OFFSET + 1}`);
  await page.getByTestId('kit-add-flip').click();
  await expect(page.getByTestId('kit-pages').locator('li')).toHaveCount(2);
  // Without a good copy, the server's settings and pg_surgery, for this page.
  await expect(page.getByTestId('advice-zero')).toContainText('tuples are lost');
  await expect(page.getByTestId('surgery-sql')).toContainText('SET ignore_checksum_failure = on');
  // The Repair kit lists the same candidates before pg_surgery, the flipped bit among them, ranked.
  const advised = page.locator(`[data-testid=advice-flip][data-byte="${FLIP_OFFSET}"][data-bit="${FLIP_BIT}"]`);
  await expect(advised).toHaveCount(1);
  await expect(advised).toHaveAttribute('data-rank', /^[1-9]\d*$/);
  await expect(page.getByTestId('advice-flips')).toContainText('evidence, not proof');
  await expect(page.getByTestId('surgery-sql')).toContainText('flipping the right bit back restores the page exactly');

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('repair-download').click()]);
  expect(download.suggestedFilename()).toBe(name);
  const repaired = join(root, 'repaired');
  await download.saveAs(repaired);
  const fixed = readFileSync(repaired);
  // Only the two blocks changed, and the dropped file is as it was.
  expect(fixed.length).toBe(readFileSync(join(root, 'backup', name)).length);
  expect(readFileSync(join(root, 'live', name))[FLIPPED * BS + FLIP_OFFSET]).toBe(damagedByte);

  writeFileSync(heapPath, fixed);
  const check = pgChecksums();
  expect(check.status, `pg_checksums --check: ${check.stdout}${check.stderr}`).toBe(0);
  c.start();
  expect(c.sql("select count(*) from verify_heapam('t');").trim()).toBe('0');
  c.sql("select bt_index_check('t_pkey', true);");
  expect(c.sql('select count(*), sum(length(v)) from t;')).toBe(rowsBefore);
});

test('a copy of another relation is named, never compared', async ({ page }) => {
  const name = basename(heapPath);
  const other = join(root, String(Number(name) + 1));
  copyFileSync(join(root, 'backup', name), other);
  await page.goto('/');
  await page.getByTestId('file-input').setInputFiles(join(root, 'live', name));
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
  await page.getByTestId('compare-input').setInputFiles(other);
  await expect(page.getByTestId('compare-refused')).toContainText('files of different relations');
  await expect(page.getByTestId('compare-summary')).toHaveCount(0);
});
