// The screens of an incident, as a DBA meets them: a PostgreSQL 16 data directory, stopped and
// dropped whole, whose table public.orders (database forensic, a primary key, about 200 pages)
// has three damaged blocks: 64 zeroed, 128 overwritten with random bytes, 192 with one bit of
// a tuple's data flipped from 0 to 1. At a desktop (1440x900) and a phone (390x844) width:
// the page view opens on the report's first finding, and every jump (n/N, a problem link, the page
// map, go-to) brings it into sight; the zeroed page is named the same way wherever it is shown
// and `n` stops on it; a shared link opened without files names the files and opens its page
// once they are dropped; the comparison with the good copy counts the flipped bit as set; the
// problem list's picture is named after the relation.
import { expect, test, type Page } from './test';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { Cluster } from '../pg/cluster';
import { makeDir } from './files';
import { SIZES } from './shots';

const BS = 8192;
const ZEROED = 64;
const RANDOM = 128;
const FLIPPED = 192;
const out = makeDir();

interface Made {
  /** The damaged data directory and its good copy. */
  bad: string;
  good: string;
  /** The heap's path inside the data directory (`base/16384/16385`). */
  heap: string;
  /** The flipped byte's offset within block FLIPPED, and its bit (0 before, 1 after). */
  flipAt: number;
  flipBit: number;
  /** Loose copies of the heap file, in folders of their own: the good one, and the same with
   * block FLIPPED's bit flipped (no other damage). */
  live: string;
  backup: string;
}
let made: Made;

test.beforeAll(() => {
  const c = Cluster.create('pgpage-incident', 16);
  try {
    c.sql('create database forensic;');
    c.sql(
      `create table orders (id int primary key, note text) with (autovacuum_enabled = off);
       insert into orders select g, 'note-' || lpad(g::text, 6, '0') || '-' || repeat('x', 24) from generate_series(1, 25000) g;
       checkpoint;`,
      'forensic',
    );
    const pages = Number(c.sql("select pg_relation_size('orders') / 8192;", 'forensic').trim());
    expect(pages, 'the table reaches past the damaged blocks').toBeGreaterThan(FLIPPED + 1);
    const heapAbs = c.relationPath('orders', 'forensic');
    c.stop();
    const copy = (to: string) => cpSync(c.dataDir, to, { recursive: true, filter: (src) => !/\/pg_wal\/.|postmaster\.pid$/.test(src) });
    const good = join(out, 'good', 'pgdata');
    const bad = join(out, 'bad', 'pgdata');
    copy(good);
    copy(bad);
    const heap = relative(c.dataDir, heapAbs);
    const file = readFileSync(join(bad, heap));
    file.fill(0, ZEROED * BS, (ZEROED + 1) * BS);
    let seed = 12345;
    for (let i = RANDOM * BS; i < (RANDOM + 1) * BS; i++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      file[i] = seed >>> 24;
    }
    // Item 1's tuple data (bufpage.h: line pointers after the 24-byte header; htup_details.h:
    // t_hoff at byte 22 of the tuple header): the 8th byte of its text, an ASCII letter, bit 7.
    const page = file.subarray(FLIPPED * BS, (FLIPPED + 1) * BS);
    const lpOff = page.readUInt32LE(24) & 0x7fff;
    const flipAt = lpOff + page[lpOff + 22] + 4 + 1 + 8;
    const flipBit = 7;
    expect(page[flipAt] & (1 << flipBit), 'the bit is 0 before the damage').toBe(0);
    page[flipAt] |= 1 << flipBit;
    writeFileSync(join(bad, heap), file);
    const live = join(out, 'live');
    const backup = join(out, 'backup');
    mkdirSync(live);
    mkdirSync(backup);
    // The loose pair differs in the flipped bit alone.
    const clean = readFileSync(join(good, heap));
    const flippedOnly = Buffer.from(clean);
    flippedOnly[FLIPPED * BS + flipAt] |= 1 << flipBit;
    writeFileSync(join(live, basename(heap)), flippedOnly);
    writeFileSync(join(backup, basename(heap)), clean);
    made = { bad, good, heap, flipAt, flipBit, live: join(live, basename(heap)), backup: join(backup, basename(heap)) };
  } finally {
    c.destroy();
  }
});

async function dropDir(page: Page, dir: string): Promise<void> {
  await page.getByTestId('folder-input').setInputFiles(dir);
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 90_000 });
}

/** The page view shows `block` of the heap, and its top is within the window. */
async function inSight(page: Page, block: number): Promise<void> {
  const view = page.getByTestId('page-view');
  await expect(view).toHaveAttribute('data-block', String(block));
  await expect(view).toHaveAttribute('data-path', `pgdata/${made.heap}`);
  await expect(view).toHaveAttribute('data-status');
  const vp = page.viewportSize()!;
  await expect
    .poll(
      async () => {
        const box = await view.boundingBox();
        // Scrolled to its top, give or take a rounding pixel.
        return box !== null && box.y > -2 && box.y < vp.height / 2 + 1;
      },
      { message: `page view of block ${block} in sight at ${vp.width}x${vp.height}` },
    )
    .toBe(true);
}

for (const [width, height] of SIZES) {
  test.describe(`at ${width}x${height}`, () => {
    test.use({ viewport: { width, height } });

    test("after the drop the page view opens on the report's first finding; every jump brings it into sight", async ({ page }) => {
      await page.goto('/');
      await dropDir(page, made.bad);
      await expect(page.getByTestId('incident-report')).toHaveAttribute('data-state', 'done', { timeout: 90_000 });
      const view = page.getByTestId('page-view');
      // The report's first finding (the zeroed page, whose rows are lost without an error),
      // not block 0 of the first file (a template1 catalog) nor the first problem page.
      await expect(page.getByTestId('finding').first()).toHaveAttribute('data-block', String(ZEROED));
      await expect(view).toHaveAttribute('data-block', String(ZEROED));
      await expect(view).toHaveAttribute('data-path', `pgdata/${made.heap}`);
      await expect(page.getByTestId('problem')).toHaveCount(2);

      // `n` walks the problem pages and the zeroed page the core notes, then wraps.
      await page.locator('body').press('n');
      await inSight(page, RANDOM);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.locator('body').press('n');
      await inSight(page, FLIPPED);
      await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
      await page.locator('body').press('N');
      await inSight(page, RANDOM);

      // A problem link, below or above the page view.
      await page.locator(`[data-testid=problem][data-block="${RANDOM}"]`).click();
      await inSight(page, RANDOM);
      // The zeroed page's finding in the list.
      await page.locator(`[data-testid=file-finding][data-code=zero_page_between_rows] button`).click();
      await inSight(page, ZEROED);
      // The page map: a click on block 10's cell.
      const map = page.getByTestId('pagemap');
      await map.scrollIntoViewIfNeeded();
      const cols = Number(await map.getAttribute('data-cols'));
      const box = (await map.boundingBox())!;
      const cell = box.width / cols;
      await map.click({ position: { x: (10 % cols) * cell + cell / 2, y: Math.floor(10 / cols) * cell + cell / 2 } });
      await inSight(page, 10);
      // Go to, from the bottom of the page.
      await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
      await page.keyboard.press('Control+g');
      const input = page.getByRole('dialog', { name: 'Go to' }).getByLabel(/Block, relation block or byte offset/);
      await input.fill(String(FLIPPED));
      await input.press('Enter');
      await inSight(page, FLIPPED);
    });

    test('the zeroed page is an all-zero page between rows wherever it is shown', async ({ page, context }) => {
      await context.grantPermissions(['clipboard-read', 'clipboard-write']);
      await page.goto('/');
      await dropDir(page, made.bad);
      const rowsGone = 'rows stored there would be gone';
      await expect(page.getByTestId('verdict-notes')).toContainText(
        `1 all-zero page between pages with rows in 1 file: the server reads it as an empty new page, so ${rowsGone}`,
      );
      const finding = page.locator('[data-testid=file-finding][data-code=zero_page_between_rows]');
      await expect(finding).toHaveAttribute('data-block', String(ZEROED));
      await expect(finding).toContainText(rowsGone);
      await finding.locator('button').click();
      const verdict = page.getByTestId('page-verdict');
      await expect(verdict).toHaveAttribute('data-note', 'zero_page_between_rows');
      await expect(verdict).toContainText(`all-zero page between pages with rows: ${rowsGone}`);
      await expect(verdict).not.toContainText('fine');
      await expect(page.getByTestId('page-note')).toContainText(rowsGone);
      await expect(page.getByTestId('legend-zero-note')).toContainText(rowsGone);
      await page.getByTestId('copy-report').click();
      const report = page.getByTestId('report');
      await expect(report).toHaveValue(new RegExp(`Status:\\*\\* zero — all-zero page between pages with rows: ${rowsGone}`));
      expect(await report.inputValue()).not.toContain('(fine)');
    });

    test('a shared link opened without files says which to drop, and opens its page once they are', async ({ page, context, browser }) => {
      await context.grantPermissions(['clipboard-read', 'clipboard-write']);
      await page.goto('/');
      await dropDir(page, made.bad);
      await page.locator(`[data-testid=problem][data-block="${FLIPPED}"]`).click();
      await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', String(FLIPPED));
      await page.getByTestId('copy-link').click();
      await expect(page.getByTestId('share-status')).toContainText('copied the link');
      const link = await page.evaluate(() => navigator.clipboard.readText());

      const colleague = await browser.newContext({ viewport: { width, height } });
      try {
        const p2 = await colleague.newPage();
        await p2.goto(link);
        const wants = p2.getByTestId('link-wants');
        await expect(wants).toBeVisible();
        await expect(wants).toContainText(`block ${FLIPPED} of the file pgdata/${made.heap}`);
        await expect(wants).toContainText('relation forensic / public.orders');
        await expect(wants).toContainText(`the data directory pgdata (it holds ${made.heap}), or the file ${basename(made.heap)} alone`);
        const vp = p2.viewportSize()!;
        const box = (await wants.boundingBox())!;
        expect(box.y + box.height, 'the hint is on the first screen').toBeLessThanOrEqual(vp.height);
        expect(box.x + box.width).toBeLessThanOrEqual(vp.width);
        await dropDir(p2, made.bad);
        await expect(p2.getByTestId('page-view')).toHaveAttribute('data-block', String(FLIPPED));
        await expect(p2.getByTestId('page-view')).toHaveAttribute('data-path', `pgdata/${made.heap}`);
        await expect(wants).toHaveCount(0);
      } finally {
        await colleague.close();
      }
    });
  });
}

test('compare with the good copy: the bit the damage set is counted as set, in words that say which side is which', async ({ page }) => {
  await page.goto('/');
  await page.getByTestId('file-input').setInputFiles([made.live, made.backup]);
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
  await page.locator(`[data-testid=problem][data-block="${FLIPPED}"]`).click();
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', String(FLIPPED));
  await page.getByTestId('compare-with').click();
  await expect(page.getByTestId('compare-summary')).toHaveAttribute('data-state', 'done');
  // The damaged byte has the bit and the good copy has not (the ground truth).
  const byte = (f: string) => readFileSync(f)[FLIPPED * BS + made.flipAt];
  expect(byte(made.live) & (1 << made.flipBit)).not.toBe(0);
  expect(byte(made.backup) & (1 << made.flipBit)).toBe(0);
  const row = page.locator(`[data-testid=diff-page][data-block="${FLIPPED}"]`);
  await expect(row.locator('[data-bits-set]')).toHaveAttribute('data-bits-set', '1');
  await expect(row.locator('[data-bits-set]')).toHaveAttribute('data-bits-cleared', '0');
  await expect(row.locator('td').nth(6)).toHaveText(`${made.flipAt}..${made.flipAt + 1}`);
  await expect(page.getByTestId('compare-summary')).toHaveAttribute('data-different', '1');
  await expect(page.getByTestId('damage-summary')).toHaveText(
    'Damage, in the differing page that fails verification in this file or that the incident report finds damaged: 1 byte changed in 1 512-byte sector; 1 bit 1 in this file where the copy has 0, 0 bits 0 where the copy has 1.',
  );
  await expect(page.getByTestId('difference-summary')).toHaveText('Differences: 1 byte in 1 512-byte sector of 1 page.');
  await expect(page.getByTestId('compare-summary')).not.toContainText(/\b1 (bytes|bits|blocks|sectors|pages)\b/);
});

test('the problem list picture is named after the relation and names the files and findings', async ({ page }) => {
  await page.goto('/');
  await dropDir(page, made.bad);
  const downloading = page.waitForEvent('download');
  await page.getByTestId('png-problems').click();
  const dl = await downloading;
  expect(dl.suggestedFilename()).toBe('forensic.public.orders-problems.png');
  const status = page.getByTestId('png-problems-status');
  await expect(status).toContainText('saved forensic.public.orders-problems.png');
  const caption = (await status.getAttribute('data-caption')) ?? '';
  expect(caption).toContain(`pgdata/${made.heap}`);
  expect(caption).toContain('forensic / public.orders');
  expect(caption).toContain(`blocks ${RANDOM}, ${FLIPPED}`);
  expect(caption).toContain(`pgdata/${made.heap} block ${ZEROED}: all-zero page between pages with rows: rows stored there would be gone`);
  await dl.saveAs(test.info().outputPath('problems.png'));
});
