// The browser as the 2026-11-29 review met it: a PostgreSQL 16 data directory, stopped and
// dropped whole, whose table public.orders (3,600 rows of about 36 a page) has block 10
// zeroed, block 20 overwritten with random bytes, one bit of block 35 flipped and block 60
// copied over block 50; an older copy of the heap file was taken before rows of blocks 20 and
// 95 on changed. At 1440x900 and 390x844: the page view opens on the report's first finding;
// the zeroed page has one name in the report, the page view and the summary, apart from the
// pages the server refuses; the block counts are pg_checksums' and the summary says how the
// report's relate; the overwritten page runs no flip search and lists no item findings; the
// WAL panel says whose pd_lsn is whose; the page's picture is a card; Copy link says what it
// opens; the comparison with the older copy counts differences apart from damage; on a phone
// the hex dump scrolls in its box, said so, and the redaction switch keeps its words. The
// incident report is the one headline: the section below it is the checksum inventory, said
// so, and its Markdown lists the zeroed page too; the problem table gives checksums in decimal
// and hex; the zeroed page shows as one line and hexdump -C's rows, not 512 rows of zeros; and
// nothing of the report, the inventory or the page view is wider than the screen.
import { expect, test, type Page } from './test';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { basename, join, relative } from 'node:path';
import { randomBytes } from 'node:crypto';
import { PNG } from 'pngjs';
import { Cluster, runPg, toolBin } from '../pg/cluster';
import { makeDir } from './files';
import { SIZES } from './shots';

const BS = 8192;
const [ZEROED, NOISE, FLIPPED, COPIED_OVER, SOURCE] = [10, 20, 35, 50, 60];
const DAMAGED = [ZEROED, NOISE, FLIPPED, COPIED_OVER];
/** The blocks from which rows changed after the older copy was taken. */
const CHANGED_FROM = 95;
const out = makeDir();

interface Made {
  bad: string;
  /** The heap file's path as the page names it (`dmg/base/16384/16385`). */
  heapPath: string;
  /** The older copy of the heap file, loose. */
  older: string;
  /** pg_checksums --check of the undamaged directory: what it scanned. */
  files: number;
  blocks: number;
  /** Blocks that differ from the older copy only by the changes made since. */
  changed: number[];
}
let made: Made;

test.beforeAll(() => {
  const c = Cluster.create('pgpage-review', 16);
  try {
    c.sql(`create table orders (id int primary key, customer text, amount int, note text) with (fillfactor = 90, autovacuum_enabled = off);
      insert into orders select g, 'cust' || (g % 500), g % 1000, repeat('x', 150) || g from generate_series(1, 3600) g;
      checkpoint;`);
    const heapAbs = c.relationPath('orders');
    c.stop();
    const older = join(out, 'older', basename(heapAbs));
    mkdirSync(join(out, 'older'));
    cpSync(heapAbs, older);
    c.start();
    // HOT updates (amount has no index) after the copy: block 20's page gets a full-page
    // image in the WAL after the checkpoint, and the later blocks change as pages do.
    c.sql(`update orders set amount = amount + 1 where (ctid::text::point)[0] = ${NOISE} and id % 5 = 0;
      update orders set amount = amount + 1 where (ctid::text::point)[0] >= ${CHANGED_FROM};`);
    const changed = c
      .rows<{ b: number }>(`select distinct (ctid::text::point)[0]::int as b from orders where (ctid::text::point)[0] >= ${CHANGED_FROM} order by 1`)
      .map((r) => r.b);
    expect(changed.length).toBeGreaterThan(0);
    const pages = Number(c.sql("select pg_relation_size('orders') / 8192;").trim());
    expect(pages, 'the table reaches past the damaged blocks').toBeGreaterThan(SOURCE);
    c.stop();
    // What pg_checksums scans in the undamaged directory (the damage changes no file's size).
    const tool = toolBin('pg_checksums', 16);
    if (!tool) throw new Error('no pg_checksums reads PostgreSQL 16');
    const check = runPg(tool, ['--check', '-D', c.dataDir]);
    expect(check.status, check.stderr).toBe(0);
    const scanned = (what: string) => Number(check.stdout.match(new RegExp(`${what} scanned:\\s+(\\d+)`))?.[1]);
    const bad = join(out, 'dmg');
    cpSync(c.dataDir, bad, { recursive: true, filter: (src) => !/postmaster\.pid$/.test(src) });
    const heap = relative(c.dataDir, heapAbs);
    const file = readFileSync(join(bad, heap));
    file.fill(0, ZEROED * BS, (ZEROED + 1) * BS);
    randomBytes(BS).copy(file, NOISE * BS);
    file.copy(file, COPIED_OVER * BS, SOURCE * BS, (SOURCE + 1) * BS);
    // Item 1's note (bufpage.h: line pointers after the 24-byte header; htup_details.h:
    // t_hoff at byte 22): past the tuple header, its last byte, bit 0 ('x' -> 'y' or a digit's).
    const p = file.subarray(FLIPPED * BS, (FLIPPED + 1) * BS);
    const lp = p.readUInt32LE(24);
    const lpOff = lp & 0x7fff;
    const lpLen = lp >>> 17;
    p[lpOff + lpLen - 1] ^= 1;
    writeFileSync(join(bad, heap), file);
    made = { bad, heapPath: `dmg/${heap}`, older, files: scanned('Files'), blocks: scanned('Blocks'), changed };
    expect(made.blocks).toBeGreaterThan(100);
  } finally {
    c.destroy();
  }
});

async function drop(page: Page): Promise<void> {
  await page.getByTestId('folder-input').setInputFiles(made.bad);
  await expect(page.getByTestId('incident-report')).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
}

async function openBlock(page: Page, block: number): Promise<void> {
  await page.locator(`[data-testid=finding][data-block="${block}"] button.finding-open`).click();
  await expect(page.locator(`[data-testid=page-view][data-block="${block}"]`)).toHaveAttribute('data-status', /./);
}

const sideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** Elements of the report, the inventory and the page view that end past the window's right
 * edge with no box of their own that scrolls or clips them (a wide table in its scrolling box
 * is in sight up to the box's edge). */
const stickingOut = (page: Page) =>
  page.evaluate(() => {
    const right = document.documentElement.clientWidth + 0.5;
    const inBox = (e: Element, self = false) => {
      for (let a = self ? e : e.parentElement; a; a = a.parentElement)
        if (getComputedStyle(a).overflowX !== 'visible' && a.getBoundingClientRect().right <= right) return true;
      return false;
    };
    const roots = [...document.querySelectorAll('[data-testid=incident-report], [data-testid=summary], [data-testid=page-view]')];
    const elements = roots
      .flatMap((r) => [...r.querySelectorAll('*')])
      .filter((e) => e.getClientRects().length > 0 && e.getBoundingClientRect().right > right && !inBox(e))
      .map((e) => `${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().width)} px: ${(e.textContent ?? '').slice(0, 60)}`);
    // A word too long for its line runs past its element's box, which stays in bounds.
    const words: string[] = [];
    for (const r of roots) {
      const walk = document.createTreeWalker(r, NodeFilter.SHOW_TEXT);
      for (let t = walk.nextNode(); t; t = walk.nextNode()) {
        const range = document.createRange();
        range.selectNodeContents(t);
        if (t.parentElement && range.getBoundingClientRect().right > right && !inBox(t.parentElement, true))
          words.push(`text: ${(t.textContent ?? '').slice(0, 80)}`);
      }
    }
    return [...elements, ...words];
  });

/** The words the report, the page view and the summary share for a zeroed page (lib/status.ts). */
const READ_AS_EMPTY_WORDS =
  'a zeroed page whose rows are lost though the server reads it without an error, as an empty page: counted apart from the pages it refuses';

for (const [width, height] of SIZES) {
  test.describe(`at ${width}x${height}`, () => {
    test.use({ viewport: { width, height } });

    test('the report first: its first finding opens; the zeroed page has one name; the counts are explained', async ({ page }) => {
      test.setTimeout(300_000);
      await page.goto('/');
      await drop(page);

      // The report's first finding is the zeroed page, and the page view shows it.
      const first = page.getByTestId('finding').first();
      await expect(first).toHaveAttribute('data-block', String(ZEROED));
      await expect(first).toHaveAttribute('data-damage', 'zeroed');
      await expect(first).toHaveAttribute('data-severity', 'error');
      await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', String(ZEROED));
      await expect(page.getByTestId('page-view')).toHaveAttribute('data-path', made.heapPath);

      // One name, the same words in the report, the page view and the summary.
      await expect(first.locator('.severity')).toHaveText('read as empty');
      await expect(first.getByTestId('read-as-empty-words')).toContainText(READ_AS_EMPTY_WORDS);
      const damage = page.getByTestId('page-damage');
      await expect(damage.locator('.severity')).toHaveText('read as empty');
      await expect(damage).toContainText(READ_AS_EMPTY_WORDS);
      await expect(damage).toHaveAttribute('data-severity', 'error');
      const notes = page.getByTestId('verdict-notes');
      await expect(notes).toHaveAttribute('data-read-as-empty', '1');
      await expect(notes).toContainText(`read as empty: ${READ_AS_EMPTY_WORDS}`);
      await expect(page.locator('body')).not.toContainText('data lost', { ignoreCase: true });
      // Counted apart: the problem pages are the pages the server refuses, and the zeroed
      // page is listed in a section of its own after them.
      await expect(page.getByTestId('problem')).toHaveCount(DAMAGED.length - 1);
      await expect(page.getByTestId('verdict')).toContainText(`${DAMAGED.length - 1} problem pages`);
      await expect(page.locator('section.problems h3').first()).toHaveText(`Problem pages (${DAMAGED.length - 1})`);
      const apart = page.getByTestId('read-as-empty');
      await expect(apart).toHaveAttribute('data-pages', '1');
      await expect(apart).toContainText(`read as empty: ${READ_AS_EMPTY_WORDS}`);
      await expect(page.locator('[data-testid=file-finding][data-code=zero_page_between_rows]')).toHaveCount(1);
      await expect(apart.locator(`[data-testid=file-finding][data-code=zero_page_between_rows][data-block="${ZEROED}"]`)).toHaveCount(1);
      const before = await page.evaluate(() => {
        const f = document.querySelector('[data-testid=file-finding][data-code=zero_page_between_rows]');
        const t = document.querySelector('section.problems table.problems');
        return f !== null && t !== null && (f.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
      });
      expect(before, 'the zeroed page is listed before the problem table').toBe(false);

      // The counts: pg_checksums' blocks and files, the files table's total, and one line
      // that says how the report's main-fork pages relate.
      const counts = page.getByTestId('verdict-counts');
      await expect(counts).toHaveAttribute('data-blocks', String(made.blocks));
      await expect(counts).toHaveAttribute('data-files', String(made.files));
      await expect(counts).toContainText(`${made.blocks.toLocaleString('en-US')} blocks in ${made.files.toLocaleString('en-US')} files verified`);
      const cluster = (await page.locator('.report-cluster').textContent()) ?? '';
      const [, pages, mainFiles] = cluster.match(/([\d,]+) main-fork pages read in ([\d,]+) main-fork files/) ?? [];
      expect(Number(pages.replace(/,/g, ''))).toBeLessThan(made.blocks);
      await expect(counts).toContainText(`the incident report reads the ${pages} main-fork pages of them in ${mainFiles} main-fork files`);
      await expect(page.locator('table.files tfoot [data-count=blocks]')).toHaveText(String(made.blocks));
      const statuses = await page.locator('table.files tfoot td[data-count]:not([data-count=blocks])').allTextContents();
      expect(
        statuses.reduce((n, t) => n + Number(t), 0),
        'the status columns add up to the blocks',
      ).toBe(made.blocks);
      expect(await sideways(page)).toBeLessThanOrEqual(0);
    });

    test('one headline: the checksum inventory says what it is and lists the zeroed page; the zeroed page in one line; nothing wider than the screen', async ({
      page,
    }) => {
      test.setTimeout(300_000);
      await page.goto('/');
      await drop(page);

      // The report's verdict is the headline; the section below it is titled and introduced
      // as the checksum inventory, its counts set as body text.
      const summary = page.getByTestId('summary');
      await expect(summary.locator('h2')).toHaveText('Checksum inventory');
      await expect(summary.getByTestId('inventory-intro')).toHaveText(
        'Every file verified, forks and segments included, as pg_checksums counts them: the checksum evidence beside the incident report above.',
      );
      const fontSize = (id: string) => page.getByTestId(id).evaluate((e) => parseFloat(getComputedStyle(e).fontSize));
      expect(await fontSize('verdict'), 'the inventory count is smaller than the report verdict').toBeLessThan(await fontSize('report-verdict'));

      // Its Markdown: named for what it copies, titled apart from the report, and the zeroed
      // page the report counts is in its table.
      const copy = page.getByTestId('copy-report-all');
      await expect(copy).toHaveText('Copy the checksum inventory (Markdown)');
      await copy.click();
      const box = page.getByTestId('report-all');
      await expect(box).toHaveValue(/^# pgpage checksum inventory: /);
      const md = await box.inputValue();
      expect(md.split('\n')[0]).toBe(`# pgpage checksum inventory: ${DAMAGED.length - 1} problem pages and 1 all-zero page read as empty in 1 file`);
      expect(md).toContain(
        `| \`${made.heapPath}\` | zero (all-zero page between pages with rows: rows stored there would be gone; the incident report: read as empty, rows lost) | 1 | ${ZEROED} |`,
      );

      // The problem table: decimal and hex, as pg_checksums and the server's WARNING give
      // them; pageinspect's int2 is the page view's.
      const rows = page.getByTestId('problem');
      await expect(rows).toHaveCount(DAMAGED.length - 1);
      for (const row of await rows.all()) {
        const cells = row.locator('td');
        const hex = (v: number) => `${v} (0x${v.toString(16).toUpperCase().padStart(4, '0')})`;
        await expect(cells.nth(4)).toHaveText(hex(Number(await row.getAttribute('data-stored'))));
        await expect(cells.nth(5)).toHaveText(hex(Number(await row.getAttribute('data-computed'))));
      }
      await expect(page.locator('table.problems')).not.toContainText('int2');

      // The zeroed page, where the page view opened: one line, and its dump as hexdump -C
      // prints it (the real tool's output, three lines), not 512 rows of zeros.
      const view = page.getByTestId('page-view');
      await expect(view).toHaveAttribute('data-block', String(ZEROED));
      const zero = view.getByTestId('zero-page');
      await expect(zero).toContainText('All 8,192 bytes of this page are zero');
      const dump = execFileSync('hexdump', ['-C', '-s', String(ZEROED * BS), '-n', String(BS), join(out, made.heapPath)], { encoding: 'utf8' });
      const [first, star, end] = dump.split('\n').filter(Boolean);
      expect([star, dump.split('\n').filter(Boolean).length]).toEqual(['*', 3]);
      const [offset, ...rest] = first.split(/\s+/);
      const hexview = view.getByTestId('hexview');
      await expect(hexview).toHaveAttribute('data-folded', 'true');
      const shown = hexview.locator('.hexrow');
      await expect(shown).toHaveCount(3);
      await expect(shown.nth(0).locator('.hexoff')).toHaveText(offset);
      expect(await shown.nth(0).locator('.hexbytes [data-off]').allTextContents()).toEqual(rest.slice(0, 16));
      await expect(shown.nth(0).locator('.hexascii')).toHaveText(rest[16].slice(1, -1));
      await expect(shown.nth(1)).toHaveText('*');
      await expect(shown.nth(2)).toHaveText(end);
      expect((await view.locator('.pagebody').boundingBox())!.height, 'the zero page is said in a few lines').toBeLessThan(600);
      expect(await stickingOut(page)).toEqual([]);
      // Its rows when asked for: 512 rows of zeros, each painted.
      await zero.getByTestId('zero-page-rows').click();
      await expect(hexview).not.toHaveAttribute('data-folded');
      await expect(hexview).toHaveAttribute('data-complete', 'true');
      await expect(hexview.locator('.hexrow')).toHaveCount(BS / 16);
      await hexview.scrollIntoViewIfNeeded();
      await expect(hexview.locator('.hexrow').first().locator('.hexbytes')).toHaveText(/^(00){16}$/);

      // Nothing of the report (its folded parts opened), the inventory or the page views of
      // the damaged pages ends past the window's edge; long values wrap.
      await page
        .locator('[data-testid=incident-report] details, [data-testid=summary] details')
        .evaluateAll((ds) => ds.forEach((d) => ((d as HTMLDetailsElement).open = true)));
      expect(await stickingOut(page)).toEqual([]);
      expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(width);
      for (const block of DAMAGED.filter((b) => b !== ZEROED)) {
        await openBlock(page, block);
        expect(await page.evaluate(() => document.scrollingElement!.scrollWidth), `block ${block}`).toBeLessThanOrEqual(width);
        expect(await stickingOut(page), `block ${block}`).toEqual([]);
      }
    });

    test('the overwritten page: no flip search, no findings on items; the WAL image says whose pd_lsn is whose', async ({ page }) => {
      test.setTimeout(300_000);
      await page.goto('/');
      await drop(page);
      await openBlock(page, NOISE);
      const view = page.getByTestId('page-view');
      await expect(view.getByTestId('page-damage')).toHaveAttribute('data-damage', 'overwritten');
      const noise = view.getByTestId('items-noise');
      await expect(noise).toContainText('The header is not a PostgreSQL page header, so its line pointers mean nothing');
      expect(Number(await noise.getAttribute('data-findings'))).toBeGreaterThan(0);
      // The header's own findings stay; none on an item.
      const listed = await view.locator('[data-testid=decode-problems] li').allTextContents();
      expect(listed.filter((t) => / of item \d+/.test(t))).toEqual([]);
      await expect(view.getByTestId('bitflips')).toHaveCount(0);
      await expect(view.getByTestId('bitflips-skipped')).toContainText('its header is not a PostgreSQL page header');
      await expect(view.getByTestId('advice-flips')).toHaveCount(0);

      // The block's newest image in the WAL dropped with the directory.
      const image = view.getByTestId('wal-image');
      await expect(image).toBeVisible({ timeout: 120_000 });
      await expect(image).toContainText("replay sets the restored image's pd_lsn to that LSN, and the image shown below carries it");
      const lsnRow = await view.locator('[data-testid=header-panel] tr', { hasText: 'lsn' }).first().locator('td').textContent();
      await expect(image.getByTestId('wal-disk-lsn')).toHaveText((lsnRow ?? '').trim());
      await expect(image).not.toContainText('as it is here');
    });

    test('the page picture is a card; Copy link says what it opens; the older copy: differences apart from damage', async ({ page, context }) => {
      test.setTimeout(300_000);
      await context.grantPermissions(['clipboard-read', 'clipboard-write']);
      await page.addInitScript(() => {
        const w = window as unknown as { painted: string[] };
        w.painted = [];
        const fill = CanvasRenderingContext2D.prototype.fillText;
        CanvasRenderingContext2D.prototype.fillText = function (text: string, x: number, y: number, max?: number) {
          w.painted.push(text);
          if (max === undefined) fill.call(this, text, x, y);
          else fill.call(this, text, x, y, max);
        };
      });
      await page.goto('/');
      await drop(page);
      await openBlock(page, FLIPPED);
      const view = page.getByTestId('page-view');
      const items = await view.locator('[data-testid=items-panel] tbody tr').count();
      expect(items).toBeGreaterThan(20);

      // The card: header, the finding, the first 20 items and a count of the rest.
      const downloading = page.waitForEvent('download');
      await page.getByTestId('png-page').click();
      const png = PNG.sync.read(readFileSync(await (await downloading).path()), { checkCRC: true });
      await expect(page.getByTestId('png-page-status')).toContainText('saved');
      const dpr = await page.evaluate(() => devicePixelRatio);
      // Wrapped lines are painted a word at a time: the words joined, as read.
      const painted = (await page.evaluate(() => (window as unknown as { painted: string[] }).painted)).join(' ').replace(/\s+/g, ' ');
      console.log(`page card at ${width}: ${png.width}x${png.height}`);
      if (process.env.PGPAGE_SHOTS) writeFileSync(join(process.env.PGPAGE_SHOTS, `review-card-${width}.png`), PNG.sync.write(png));
      if (width >= 1000) {
        expect(png.width, 'the card is as wide as the screen').toBeLessThanOrEqual(width * dpr);
        expect(png.height, 'the card is at most about 1,600 px tall').toBeLessThanOrEqual(1600 * dpr);
      } else {
        expect(png.height, 'the phone card is a card, not a poster').toBeLessThanOrEqual(3200 * dpr);
      }
      expect(painted).toContain(`and ${items - 20} more items`);
      expect(painted).toContain('Page header (');
      expect(painted).toContain('Bit flip:');
      for (const left of ['Compare with a copy', 'Repair kit', 'Newest full-page image', 'Checksum lab']) expect(painted, left).not.toContain(left);

      // Copy link: what it opens, for whom, and that nothing goes anywhere.
      const note = page.getByTestId('copy-link-note');
      await expect(note).toBeVisible();
      await expect(note).toContainText(
        `the link opens block ${FLIPPED} of ${made.heapPath} for someone who drops the same files under the same names (the folder dmg)`,
      );
      await expect(note).toContainText('nothing is uploaded');
      const box = (await note.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(width);

      // The older copy: every differing page counted, damage only where the page fails
      // verification or the report finds it damaged (the ground truth: what was done).
      await page.getByTestId('compare-input').setInputFiles(made.older);
      const summary = page.getByTestId('compare-summary');
      await expect(summary).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
      const rows = page.getByTestId('diff-page');
      const all = (await rows.evaluateAll((r) => r.map((x) => Number(x.getAttribute('data-block'))))).sort((a, b) => a - b);
      const damaged = (
        await page.locator('[data-testid=diff-page][data-damaged=true]').evaluateAll((r) => r.map((x) => Number(x.getAttribute('data-block'))))
      ).sort((a, b) => a - b);
      expect(damaged).toEqual(DAMAGED);
      for (const b of made.changed) expect(all, `block ${b} changed after the copy`).toContain(b);
      // Pages both copies have are newer here by pd_lsn; the table also grew (only here).
      for (const b of made.changed) {
        const row = page.locator(`[data-testid=diff-page][data-block="${b}"]`);
        if ((await row.getAttribute('data-state')) === 'different') await expect(row).toHaveAttribute('data-newer', 'b');
        else await expect(row).toHaveAttribute('data-state', 'only_b');
      }
      // The page copied over another block carries that block's pd_lsn: no age to compare.
      await expect(page.locator(`[data-testid=diff-page][data-block="${COPIED_OVER}"] [data-testid=diff-newer]`)).toHaveText(
        `not comparable: this file's page is block ${SOURCE}'s, with that block's pd_lsn`,
      );
      await expect(page.getByTestId('difference-summary')).toHaveAttribute('data-pages', String(all.length));
      await expect(page.getByTestId('difference-summary')).toContainText(/^Differences: [\d,]+ bytes in [\d,]+ 512-byte sectors of [\d,]+ pages\.$/);
      await expect(page.getByTestId('damage-summary')).toHaveAttribute('data-pages', String(DAMAGED.length));
      await expect(page.getByTestId('damage-summary')).toContainText(`The other ${all.length - DAMAGED.length} differing pages verify`);
      await expect(summary).not.toContainText(/Damage: [\d,]+ bytes/);
    });

    test('the hex dump scrolls in its own box, said so when it is wider; the redaction switch keeps its words', async ({ page }) => {
      test.setTimeout(300_000);
      await page.goto('/');
      await drop(page);
      await openBlock(page, FLIPPED);
      const hex = page.getByTestId('hexview');
      const m = await hex.evaluate((e) => ({
        scroll: e.scrollWidth,
        client: e.clientWidth,
        right: e.getBoundingClientRect().right,
        overflow: getComputedStyle(e).overflowX,
      }));
      expect(m.right, 'the dump box ends inside the screen').toBeLessThanOrEqual(width);
      expect(['auto', 'scroll']).toContain(m.overflow);
      // A row is wider than a phone (69 characters): its box scrolls rather than clipping it.
      if (width < 500) expect(m.scroll, 'at a phone width the dump scrolls sideways').toBeGreaterThan(m.client);
      if (m.scroll > m.client) await expect(page.getByTestId('hex-scroll-hint')).toBeVisible();
      else await expect(page.getByTestId('hex-scroll-hint')).toHaveCount(0);
      // Scrolled to its end (if it scrolls at all), a row's last byte and its text column are
      // inside the box: nothing is cut off for good.
      await hex.evaluate((e) => (e.scrollLeft = e.scrollWidth));
      const row = hex.locator('.hexrow').first();
      for (const last of [row.locator('.hexbytes [data-off]').last(), row.locator('.hexascii')]) {
        const b = (await last.boundingBox())!;
        expect(b.x + b.width, 'the end of a hex row lies past its box').toBeLessThanOrEqual(m.right + 1);
      }
      expect(await sideways(page)).toBeLessThanOrEqual(0);

      // The box and its words on one line.
      const input = (await page.getByTestId('redact').boundingBox())!;
      const label = (await page.getByTestId('redact-label').boundingBox())!;
      const line = await page.getByTestId('redact-label').evaluate((e) => parseFloat(getComputedStyle(e).lineHeight) || 20);
      expect(label.height, 'the switch and its words wrap apart').toBeLessThan(line * 1.8);
      expect(input.y + input.height / 2).toBeGreaterThan(label.y);
      expect(input.y + input.height / 2).toBeLessThan(label.y + label.height);
    });
  });
}
