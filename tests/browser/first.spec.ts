// The first screen: is anything wrong, and where. A data directory with one bad
// page opens on the verdict, the problem page and the affected file above the fold, the
// files table grouped by folder and relation; same-named files of two folders stay apart,
// also in links; each file shows its kind as the core reads it; an empty file is a normal
// state; an all-zero page between pages with rows is said in words. Every test leaves
// screenshots (1440x900 and 390x844, light and dark) as artifacts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from './test';
import type { TestInfo } from '@playwright/test';
import { concat, heapPage, rng, seal } from '../oracle/pgchecksum';
import { makeDir } from './files';

const BS = 8192;
const SIZES = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
] as const;

/** Screenshots of the page as it is, at both sizes, light and dark, attached to the test. */
async function shots(page: Page, info: TestInfo, name: string): Promise<void> {
  const before = page.viewportSize();
  for (const size of SIZES) {
    await page.setViewportSize(size);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      const path = info.outputPath(`${name}-${size.width}x${size.height}-${colorScheme}.png`);
      await page.screenshot({ path });
      await info.attach(`${name} ${size.width}x${size.height} ${colorScheme}`, { path, contentType: 'image/png' });
    }
  }
  await page.emulateMedia({ colorScheme: null });
  if (before) await page.setViewportSize(before);
}

/** Clean heap pages, sealed for their blocks; `bad` gets its pd_checksum damaged. */
function heap(blocks: number, seed: number, bad: number[] = []): Uint8Array {
  const r = rng(seed);
  return concat(
    Array.from({ length: blocks }, (_, b) => {
      const p = seal(heapPage(BS, 4, r), b);
      if (bad.includes(b)) p[8] ^= 0x5a;
      return p;
    }),
  );
}

function put(root: string, rel: string, bytes: Uint8Array): void {
  const path = join(root, rel);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, bytes);
}

/** Fully inside the window's height (above the fold). */
async function aboveFold(page: Page, testid: string): Promise<void> {
  const box = await page.getByTestId(testid).first().boundingBox();
  expect(box, testid).not.toBeNull();
  expect(box!.y + box!.height, `${testid} ends at ${box!.y + box!.height}px`).toBeLessThanOrEqual(page.viewportSize()!.height);
}

test('a data directory with one bad page opens on the verdict, the problem and the affected file', async ({ page }, info) => {
  const root = join(makeDir(), 'pgdata');
  // 120 relations of a main fork and a free space map, one bad page in the 71st's main fork.
  for (let i = 0; i < 120; i++) {
    const node = 16400 + i;
    put(root, `base/5/${node}`, heap(3, i + 1, node === 16470 ? [1] : []));
    put(root, `base/5/${node}_fsm`, heap(1, 500 + i));
  }
  await page.setViewportSize(SIZES[0]);
  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(root);
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
  await expect(page.getByTestId('verdict')).toHaveText('1 problem page in 1 file of the 240 files verified: the server would refuse to read them.');
  const problem = page.getByTestId('problem');
  await expect(problem).toHaveCount(1);
  await expect(problem).toHaveAttribute('data-path', 'pgdata/base/5/16470');
  await expect(page.getByTestId('affected-file')).toHaveAttribute('data-path', 'pgdata/base/5/16470');
  await page.evaluate(() => window.scrollTo(0, 0));
  for (const t of ['verdict', 'problem', 'affected-file']) await aboveFold(page, t);

  // The table: one folder, a row per relation (closed), only the rows in view rendered.
  await expect(page.getByTestId('folder')).toHaveAttribute('data-folder', 'pgdata/base/5');
  const relations = page.getByTestId('relation');
  await expect(relations.first()).toHaveAttribute('data-files', '2');
  expect(await relations.count()).toBeLessThan(120);
  await expect(page.locator('[data-testid=summary] tr.total td').first()).toHaveText('all 240 files');
  // A relation opens to its files, each with the core's kind.
  const first = relations.first();
  const node = await first.getAttribute('data-relation');
  await expect(first.getByTestId('kind')).toHaveText('heap');
  await first.getByRole('button').click();
  await expect(page.locator(`[data-testid=file][data-path="pgdata/base/5/${node}_fsm"] [data-testid=kind]`)).toHaveText('fsm');
  await expect(page.locator(`[data-testid=file][data-path="pgdata/base/5/${node}"] [data-testid=kind]`)).toHaveText('heap');
  await page.evaluate(() => window.scrollTo(0, 0));
  await shots(page, info, 'data-directory');
});

test('same-named files of a backup and the live copy are told apart, also by links', async ({ page }, info) => {
  const root = join(makeDir(), 'copies');
  put(root, 'backup/base/5/16427', heap(4, 1));
  put(root, 'live/base/5/16427', heap(4, 1, [2]));
  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(root);
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
  await expect(page.getByTestId('folder')).toHaveCount(2);
  await expect(page.locator('[data-testid=file][data-path="copies/backup/base/5/16427"]')).toContainText('copies/backup/base/5/16427');
  await expect(page.getByTestId('problem')).toHaveAttribute('data-path', 'copies/live/base/5/16427');
  await page.getByTestId('problem').click();
  // The link carries the path: it names the live copy, not the backup.
  await expect(page).toHaveURL(/#file=copies%2Flive%2Fbase%2F5%2F16427&block=2&off=0$/);
  await shots(page, info, 'backup-and-live');
  // A link pasted while the files are loaded opens the file it names.
  await page.evaluate(() => (location.hash = '#file=copies%2Fbackup%2Fbase%2F5%2F16427&block=3'));
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', '3');
  await expect(page.locator('[data-testid=file][data-path="copies/backup/base/5/16427"]')).toHaveClass(/current/);
  await page.getByTestId('problem').click();

  // The link opens that file after a reload and the same drop.
  const link = page.url();
  await page.goto('/?again' + link.slice(link.indexOf('#')));
  await page.getByTestId('folder-input').setInputFiles(root);
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', '2');
  await expect(page.locator('[data-testid=file][data-path="copies/live/base/5/16427"]')).toHaveClass(/current/);

  // An old link with a bare name: ambiguous here, and said so.
  await page.goto('/?both#file=16427&block=1');
  await page.getByTestId('folder-input').setInputFiles(root);
  await expect(page.getByRole('status').filter({ hasText: 'The link names "16427"' })).toContainText('copies/backup/base/5/16427, copies/live/base/5/16427');
  // ... and still opens the file when one file has that name.
  // (A query makes each a new document load: a hash alone would not reload the page.)
  await page.goto('/?one#file=16427&block=3');
  await page.getByTestId('folder-input').setInputFiles(join(root, 'live'));
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', '3');
});

test('each file shows the kind the core reads: heap, btree, gin, gist, spgist, brin, hash, sequence, fsm, vm', async ({ page }, info) => {
  const samples = ['16427', '16427_fsm', '16427_vm', '16437', '16443', '16444', '16445', '16446', '16447', '16448'];
  const want = ['heap', 'fsm', 'vm', 'btree', 'hash', 'gist', 'gin', 'spgist', 'brin', 'sequence'];
  await page.goto('/');
  await page.getByTestId('file-input').setInputFiles(samples.map((s) => join('public/samples', s)));
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
  for (const [i, s] of samples.entries()) await expect(page.locator(`[data-testid=file][data-file="${s}"] [data-testid=kind]`)).toHaveText(want[i]);
  await expect(page.locator('[data-testid=relation][data-relation="16427"] [data-testid=kind]')).toHaveText('heap');
  await shots(page, info, 'kinds');
});

test('an empty file is a normal state, and an all-zero page between rows is said in words', async ({ page, context }, info) => {
  const d = makeDir();
  writeFileSync(join(d, '16500_init'), new Uint8Array(0));
  const rows = heap(5, 7);
  rows.fill(0, 2 * BS, 3 * BS);
  writeFileSync(join(d, '16501'), rows);
  await page.goto('/');
  await page.getByTestId('file-input').setInputFiles([join(d, '16500_init'), join(d, '16501')]);
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
  // The empty file: neutral words, no error anywhere.
  await expect(page.getByTestId('empty-file')).toContainText('16500_init: empty file, no pages: a normal state');
  await expect(page.getByTestId('empty-file')).toHaveClass('note');
  // The page view opens on the report's first finding (the zero page of 16501); the empty
  // file's own view says what it is once opened.
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-file', '16501');
  await page.locator('[data-testid=file][data-file="16500_init"] button.link').click();
  await expect(page.getByTestId('empty-file-view')).toContainText("an unlogged table's init fork is empty");
  await expect(page.locator('.error, [role=alert]')).toHaveCount(0);
  await expect(page.locator('[data-testid=file][data-file="16500_init"] [data-testid=kind]')).toHaveText('empty');
  // The zero page: not a problem page, but in the verdict, the affected files and the problem area.
  await expect(page.getByTestId('verdict')).toHaveText('No problem pages in 2 verified files.');
  await expect(page.getByTestId('verdict-notes')).toContainText('1 all-zero page between pages with rows in 1 file');
  await expect(page.getByTestId('problem')).toHaveCount(0);
  const note = page.locator('[data-testid=file-finding][data-code=zero_page_between_rows]');
  await expect(note).toHaveAttribute('data-block', '2');
  await expect(note).toContainText(
    "block 2: all-zero page between pages with rows: the server reads it as an empty new page, without an error; relation extension leaves such pages (several at a time under concurrent inserts and bulk loads, more from PostgreSQL 16 on), and then nothing is lost, but otherwise rows stored there would be gone: the table's indexes tell which (pgpage report), and a backup or WAL image may hold them",
  );
  await expect(page.getByTestId('affected-file')).toHaveAttribute('data-file', '16501');
  await shots(page, info, 'empty-and-zero');
  // The report carries it, in the core's words, under its file.
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.getByTestId('copy-report-all').click();
  await expect(page.getByTestId('report-all')).toContainText('- note: block 2: all-zero page between pages with rows');
  await note.getByRole('button').click();
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', '2');
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-file', '16501');
});
