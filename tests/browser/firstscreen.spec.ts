// The first screen as the seventh review met it: a PostgreSQL 17 data directory, stopped and
// dropped whole, whose table shop's public.orders (with its primary key and an index on
// customer, vacuumed: its pages are all-visible) has block 5 zeroed, block 9 overwritten with
// random bytes, one bit of block 30 flipped and block 41 copied over block 40. At 1280x900 and
// 390x844: the report's steps are open; the skipped files' notice comes after the verdicts;
// the files table lists the damaged table's files first and folds the 1,000 or so
// healthy files (the catalogs) behind one line that counts them and says they are healthy;
// the page map follows within a screen; and the page header's flags wrap only between flags.
import { expect, test, type Page } from './test';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, relative } from 'node:path';
import { Cluster } from '../pg/cluster';
import { makeDir } from './files';

const BS = 8192;
const [ZEROED, NOISE, FLIPPED, COPIED_OVER, SOURCE] = [5, 9, 30, 40, 41];
const out = makeDir();

interface Made {
  bad: string;
  /** The heap file's path as the app names it (`dmg/base/16384/16385`). */
  heapPath: string;
  /** What the server counts: relation files of every database (pg_relation_filepath). */
  serverFiles: number;
}
let made: Made;

test.beforeAll(() => {
  const c = Cluster.create('pgpage-first17', 17);
  try {
    c.sql('create database shop;');
    c.sql(
      `create table orders (id int primary key, customer text, amount numeric, note text) with (autovacuum_enabled = off);
       create index orders_customer_idx on orders (customer);
       insert into orders select g, 'cust_' || (g % 97), g * 1.5, repeat('n', 80) || g from generate_series(1, 5000) g;
       vacuum orders;
       checkpoint;`,
      'shop',
    );
    const pages = Number(c.sql("select pg_relation_size('orders') / 8192;", 'shop').trim());
    expect(pages, 'the table reaches past the damaged blocks').toBeGreaterThan(SOURCE);
    const heapAbs = c.relationPath('orders', 'shop');
    const serverFiles = Number(c.sql("select count(*) from pg_class where pg_relation_filepath(oid) is not null and relpersistence <> 't';", 'shop').trim());
    c.stop();
    const bad = join(out, 'dmg');
    cpSync(c.dataDir, bad, { recursive: true, filter: (src) => !/postmaster\.pid$/.test(src) });
    const heap = relative(c.dataDir, heapAbs);
    const file = readFileSync(join(bad, heap));
    file.fill(0, ZEROED * BS, (ZEROED + 1) * BS);
    randomBytes(BS).copy(file, NOISE * BS);
    file.copy(file, COPIED_OVER * BS, SOURCE * BS, (SOURCE + 1) * BS);
    // Item 1's last byte (bufpage.h: line pointers after the 24-byte header), bit 0: the
    // header and its flags stay as they were.
    const p = file.subarray(FLIPPED * BS, (FLIPPED + 1) * BS);
    const lp = p.readUInt32LE(24);
    p[(lp & 0x7fff) + (lp >>> 17) - 1] ^= 1;
    writeFileSync(join(bad, heap), file);
    made = { bad, heapPath: `dmg/${heap}`, serverFiles };
  } finally {
    c.destroy();
  }
});

async function drop(page: Page): Promise<void> {
  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(made.bad);
  await expect(page.getByTestId('incident-report')).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  await expect(page.getByTestId('catalog')).toHaveAttribute('data-state', 'done');
}

const top = async (page: Page, selector: string) => (await page.locator(selector).first().boundingBox())!.y;

for (const size of [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
]) {
  test(`${size.width}x${size.height}: the damaged table first, the healthy files folded, the steps open`, async ({ page }, info) => {
    test.setTimeout(300_000);
    await page.setViewportSize(size);
    await drop(page);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: info.outputPath(`first-${size.width}.png`) });
    await page.screenshot({ path: info.outputPath(`first-${size.width}-full.png`), fullPage: true });

    // The steps are open: a DBA in an incident sees them without a click.
    const steps = page.locator('details.steps');
    await expect(steps).toHaveAttribute('open', '');
    await expect(page.getByTestId('report-steps')).toBeVisible();

    // The skipped files' notice comes after both verdicts, not above them.
    const notice = page.getByTestId('skipped-notice');
    await expect(notice).toHaveText(/^Skipped \d+ files that are not relation files\.$/);
    const noticeY = await top(page, '[data-testid=skipped-notice]');
    expect(noticeY).toBeGreaterThan(await top(page, '[data-testid=report-verdict]'));
    expect(noticeY).toBeGreaterThan(await top(page, '[data-testid=verdict]'));

    // The files table: the damaged table's files first, open (its page is shown), its TOAST
    // table and indexes under it.
    const relations = page.getByTestId('relation');
    await expect(relations.first()).toHaveAttribute('data-relation', 'public.orders');
    await expect(relations.first().getByRole('button')).toHaveAttribute('aria-expanded', 'true');
    await expect(page.locator(`[data-testid=file][data-path="${made.heapPath}"]`)).toBeVisible();
    await expect(page.getByTestId('folder').first()).toHaveAttribute('data-database', 'shop');
    // The rest behind one line, closed: how many, how many are catalogs, and that they are healthy.
    const rest = page.getByTestId('healthy-files');
    await expect(rest).toHaveCount(1);
    await expect(rest.getByRole('button')).toHaveAttribute('aria-expanded', 'false');
    await expect(rest).toContainText('healthy, every page verified and none to look at');
    await expect(rest).toContainText(/ relations, (all|[\d,]+ of them) system catalogs\): healthy/);
    const total = Number((await page.locator('[data-testid=summary] tr.total td').first().textContent())!.match(/all (\d+) files/)![1]);
    // The files listed first: the shop database's row counts them.
    const listed = Number((await page.getByTestId('folder').first().textContent())!.match(/([\d,]+) files?/)![1].replace(/,/g, ''));
    await expect(rest).toHaveAttribute('data-files', String(total - listed));
    expect(Number(await rest.getAttribute('data-files'))).toBeGreaterThan(made.serverFiles);
    // No catalog row before the page map: the map comes within a screen of the table's start.
    await expect(page.locator('[data-testid=relation][data-relation^="pg_catalog."]')).toHaveCount(0);
    const tableY = await top(page, '[data-testid=files-scroll]');
    const mapY = await top(page, 'section.map');
    expect(mapY - tableY, 'from the files table to the page map (px)').toBeLessThan(size.height);
    // The healthy files open on a click, the catalogs among them.
    await rest.getByRole('button').click();
    await expect(rest.getByRole('button')).toHaveAttribute('aria-expanded', 'true');
    await expect(page.locator('[data-testid=relation][data-relation^="pg_catalog."]').first()).toBeVisible();
    await rest.getByRole('button').click();

    // The bit-flipped page: its header's flags name PD_ALL_VISIBLE whole, on one line each.
    await page.locator(`[data-testid=problem][data-block="${FLIPPED}"]`).click();
    await expect(page.locator(`[data-testid=page-view][data-block="${FLIPPED}"]`)).toHaveAttribute('data-status', /./);
    const flags = page
      .getByTestId('header-panel')
      .locator('tr', { has: page.locator('th', { hasText: /^flags$/ }) })
      .locator('.flag-name');
    await expect(flags.filter({ hasText: /^PD_ALL_VISIBLE$/ })).toHaveCount(1);
    for (const f of await flags.all()) expect(await f.evaluate((e) => e.getClientRects().length), (await f.textContent()) ?? '').toBe(1);
    await page.getByTestId('header-panel').scrollIntoViewIfNeeded();
    await page.screenshot({ path: info.outputPath(`header-${size.width}.png`) });
  });
}
