// A damaged PostgreSQL 16 data directory dropped whole, as a DBA's review met it: table
// public.orders (a primary key and a second index, about 100 pages, vacuumed so that its
// maps exist) with block 10 zeroed, 20 overwritten with random bytes, 30 with one bit of a
// customer's name flipped and 60 a copy of block 50. At 1440x900 and 390x844: the document
// never scrolls sideways, with the report open or block 30's page and its bit-flip table;
// every flip button lies inside the viewport and the report's flipped-back values are not
// cut off; every button has a name, and no two links of the problem list share a name unless
// they go to the same page; the page view puts the report's finding for the block above
// routine notes, and its PNG draws no column's text over another's; the summary and the
// report say what each of their counts counts. Then the directory dropped twice, with the
// main thread's long tasks measured.
import { expect, test, type Page } from './test';
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { randomBytes } from 'node:crypto';
import { PNG } from 'pngjs';
import { Cluster } from '../pg/cluster';
import { makeDir } from './files';
import { SIZES } from './shots';

const BS = 8192;
const [ZEROED, NOISE, FLIPPED, SOURCE, MISPLACED] = [10, 20, 30, 50, 60];
const out = makeDir();

interface Made {
  bad: string;
  /** The heap file's path as the page names it: the dropped folder's name first. */
  heapPath: string;
  /** What the server stored in the flipped row's customer, and that name with the bit flipped. */
  customer: string;
  flipped: string;
}
let made: Made;

test.beforeAll(() => {
  const c = Cluster.create('pgpage-dropped', 16);
  try {
    c.sql(`create table orders (id int primary key, customer text, amount numeric, created timestamptz, note text) with (autovacuum_enabled = off);
      create index orders_customer on orders (customer);
      insert into orders select g, 'cust' || (g % 500), (g % 1000) / 10.0, timestamptz '2026-01-01' + g * interval '1 minute', repeat('x', 80) || g
        from generate_series(1, 5000) g;
      delete from orders where id % 10 = 0;
      vacuum orders;
      update orders set amount = amount + 1 where id % 10 = 1;
      checkpoint;`);
    const pages = Number(c.sql("select pg_relation_size('orders') / 8192;").trim());
    expect(pages, 'the table reaches past the damaged blocks').toBeGreaterThan(MISPLACED);
    // The block's first row the server shows (an updated row's old version is not one).
    const [row] = c.rows<{ lp: number; customer: string }>(
      `select (ctid::text::point)[1]::int as lp, customer from orders where (ctid::text::point)[0] = ${FLIPPED} order by ctid limit 1`,
    );
    const customer = row.customer;
    expect(customer).toMatch(/^cust\d+$/);
    const heapAbs = c.relationPath('orders');
    c.stop();
    const bad = join(out, 'dmg');
    cpSync(c.dataDir, bad, { recursive: true, filter: (src) => !/postmaster\.pid$/.test(src) });
    const heap = relative(c.dataDir, heapAbs);
    const file = readFileSync(join(bad, heap));
    file.fill(0, ZEROED * BS, (ZEROED + 1) * BS);
    randomBytes(BS).copy(file, NOISE * BS);
    file.copy(file, MISPLACED * BS, SOURCE * BS, (SOURCE + 1) * BS);
    // That row's customer (bufpage.h: 4-byte line pointers after the 24-byte header;
    // htup_details.h: t_hoff at byte 22 of the tuple): past the int4 id and the text's
    // 1-byte varlena header, its second letter, bit 2 ('u' -> 'q').
    const p = file.subarray(FLIPPED * BS, (FLIPPED + 1) * BS);
    const lpOff = p.readUInt32LE(24 + 4 * (row.lp - 1)) & 0x7fff;
    const at = lpOff + p[lpOff + 22] + 4 + 1 + 1;
    expect(String.fromCharCode(p[at])).toBe(customer[1]);
    p[at] ^= 1 << 2;
    writeFileSync(join(bad, heap), file);
    // A segment after the last one written, as the server leaves a recycled one: its long
    // name is in what the page view says of the WAL.
    const segs = readdirSync(join(bad, 'pg_wal'))
      .filter((n) => /^[0-9A-F]{24}$/.test(n))
      .sort();
    const last = segs[segs.length - 1];
    const next = BigInt(`0x${last.slice(8, 16)}`) * 256n + BigInt(`0x${last.slice(16)}`) + 1n;
    const hex8 = (v: bigint) => v.toString(16).toUpperCase().padStart(8, '0');
    writeFileSync(join(bad, 'pg_wal', `${last.slice(0, 8)}${hex8(next / 256n)}${hex8(next % 256n)}`), Buffer.alloc(statSync(join(bad, 'pg_wal', last)).size));
    made = { bad, heapPath: `dmg/${heap}`, customer, flipped: customer.slice(0, 1) + String.fromCharCode(customer.charCodeAt(1) ^ 4) + customer.slice(2) };
  } finally {
    c.destroy();
  }
});

async function drop(page: Page): Promise<void> {
  const report = page.getByTestId('incident-report');
  const before = (await report.count()) > 0 ? await report.getAttribute('data-state') : null;
  await page.getByTestId('folder-input').setInputFiles(made.bad);
  // A second drop: the report of the first is done until the new one starts.
  if (before === 'done')
    await expect(report)
      .not.toHaveAttribute('data-state', 'done', { timeout: 10_000 })
      .catch(() => undefined);
  await expect(page.getByTestId('incident-report')).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
}

/** How far the document reaches past the viewport's width (0: it does not scroll sideways). */
const sideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** Every button's accessible name as a screen reader gets it (aria-labelledby, aria-label,
 * then its text, then its title) and where it goes: the list row it sits in. */
function buttons(page: Page, within: string): Promise<{ name: string; place: string | null }[]> {
  return page.evaluate((within) => {
    const text = (e: Element | null) => (e?.textContent ?? '').replace(/\s+/g, ' ').trim();
    return [...document.querySelectorAll(`${within} button`)].map((b) => {
      const by = b.getAttribute('aria-labelledby');
      const name =
        (by
          ? by
              .split(/\s+/)
              .map((id) => text(document.getElementById(id)))
              .join(' ')
          : '') ||
        (b.getAttribute('aria-label') ?? '').trim() ||
        text(b) ||
        (b.getAttribute('title') ?? '').trim();
      const row = b.closest('[data-block]');
      return { name, place: row ? `${row.getAttribute('data-path') ?? row.getAttribute('data-file')}#${row.getAttribute('data-block')}` : null };
    });
  }, within);
}

for (const [width, height] of SIZES) {
  test.describe(`at ${width}x${height}`, () => {
    test.use({ viewport: { width, height } });

    test('fits the screen, every button named, the page PNG readable, the counts explained', async ({ page, context }) => {
      test.setTimeout(300_000);
      await context.grantPermissions(['clipboard-read', 'clipboard-write']);
      await page.goto('/');
      await drop(page);

      // The report open: nothing reaches past the viewport.
      await expect(page.getByTestId('incident-report')).toBeVisible();
      expect(await sideways(page), 'the document scrolls sideways after the drop').toBeLessThanOrEqual(0);

      // Every button has a name; the problem list's links name where they go.
      const all = await buttons(page, 'body');
      // (The page view shows the report's first finding, the zeroed page: none of a refused
      // page's copy and repair buttons.)
      expect(all.length).toBeGreaterThan(40);
      expect(all.filter((b) => !b.name).length, 'buttons without an accessible name').toBe(0);
      const listed = await buttons(page, 'section.problems');
      const places = new Map<string, Set<string | null>>();
      for (const b of listed) places.set(b.name, (places.get(b.name) ?? new Set()).add(b.place));
      const shared = [...places].filter(([, p]) => p.size > 1).map(([n, p]) => `${n}: ${[...p].join(', ')}`);
      expect(listed.length, 'the problem list has links to several pages').toBeGreaterThan(3);
      expect(shared, 'one name for links to different pages').toEqual([]);

      // The report's flipped-back value is shown whole, not cut off by its box (at a desktop's
      // width the table fits; on a phone its box scrolls, which the keyboard can reach).
      const flipRow = page.locator(`[data-testid=finding][data-block="${FLIPPED}"] [data-testid=bit-flip][data-column=customer]`);
      await expect(flipRow).toContainText(made.flipped);
      await expect(flipRow).toContainText(made.customer);
      if (width >= 1000) {
        const cut = await page.locator(`[data-testid=finding][data-block="${FLIPPED}"] .incident-flips`).evaluate((e) => e.scrollWidth - e.clientWidth);
        expect(cut, 'the bit-flip table is wider than its box').toBeLessThanOrEqual(0);
      }

      // The summary and the report say what they count, in the same words.
      const files = Number((await page.getByTestId('verdict').textContent())?.match(/of the ([\d,]+) files verified:/)?.[1].replace(/,/g, ''));
      expect(files).toBeGreaterThan(100);
      const cluster = page.locator('.report-cluster');
      await expect(cluster).toContainText(/[\d,]+ main-fork pages read in [\d,]+ main-fork files/);
      await expect(cluster).toContainText(`all ${files.toLocaleString('en-US')} files, free space and visibility maps included`);
      const mainFiles = Number((await cluster.textContent())?.match(/in ([\d,]+) main-fork files/)?.[1].replace(/,/g, ''));
      expect(mainFiles).toBeLessThan(files);
      // Pages the server refuses (checksum failures) are never called pages it reads.
      const amcheck = page.getByTestId('verdict-amcheck');
      if ((await amcheck.count()) > 0) {
        const problems = await page
          .getByTestId('problem')
          .evaluateAll((rows) => rows.map((r) => `${r.getAttribute('data-file')}#${r.getAttribute('data-block')}`));
        const read = await page
          .locator('[data-testid=page-finding][data-amcheck=true]')
          .evaluateAll((rows) => rows.map((r) => `${r.getAttribute('data-file')}#${r.getAttribute('data-block')}`));
        expect(Number(await amcheck.getAttribute('data-pages'))).toBe(new Set(read.filter((k) => !problems.includes(k))).size);
      }
      await expect(page.locator('body')).not.toContainText('no damage by itself');

      // Block 30's page: the report's finding first under the status, routine notes after it.
      await page.locator(`[data-testid=finding][data-block="${FLIPPED}"] button.finding-open`).click();
      const view = page.locator(`[data-testid=page-view][data-block="${FLIPPED}"]`);
      await expect(view).toBeVisible();
      const damage = view.getByTestId('page-damage');
      await expect(damage).toHaveAttribute('data-damage', 'bit_flip');
      const order = await view.evaluate((v) =>
        [...v.querySelectorAll('[data-testid=page-verdict], [data-testid=page-damage], [data-testid=page-findings]')].map((e) => e.getAttribute('data-testid')),
      );
      expect(order.slice(0, 2)).toEqual(['page-verdict', 'page-damage']);

      // Its bit-flip table: every button inside the viewport, named after its flip.
      await expect(page.getByTestId('bitflips')).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
      const flipButtons = page.locator('[data-testid=flip-candidate] button');
      expect(await flipButtons.count()).toBeGreaterThan(0);
      for (const b of await flipButtons.all()) {
        // The window scrolls to it, up and down only: a box that scrolls sideways hides it.
        await b.evaluate((e) => window.scrollTo(0, e.getBoundingClientRect().top + window.scrollY - 200));
        const box = (await b.boundingBox())!;
        expect(box.x, 'a flip button starts left of the screen').toBeGreaterThanOrEqual(0);
        expect(box.x + box.width, 'a flip button ends past the screen').toBeLessThanOrEqual(width);
        await expect(b).toHaveAccessibleName(/^Show in hex view: byte \d+, bit \d flipped$/);
      }
      expect(await sideways(page), 'the document scrolls sideways with the page view open').toBeLessThanOrEqual(0);

      // The page's picture: each column's text where the table puts it, none over the next.
      const downloading = page.waitForEvent('download');
      await page.getByTestId('png-page').click();
      const png = PNG.sync.read(readFileSync(await (await downloading).path()), { checkCRC: true });
      // A card: at a desktop's width as wide as the page view (its item table wraps between
      // words), on a phone wider, as wide as the table's words.
      if (width >= 1000) expect(png.width).toBeLessThanOrEqual(width);
      else expect(png.width).toBeGreaterThan(width);
      const status = page.getByTestId('png-page-status');
      await expect(status).toContainText('saved');
      const columns = JSON.parse((await status.getAttribute('data-columns')) ?? '[]') as { col: string; left: number; right: number }[];
      const names = columns.map((c) => c.col);
      for (const c of ['lp', 't_ctid', 't_data', 'raw_flags']) expect(names).toContain(c);
      const sorted = [...columns].sort((a, b) => a.left - b.left);
      for (let i = 1; i < sorted.length; i++) {
        expect(sorted[i].left, `${sorted[i - 1].col} (to ${sorted[i - 1].right}) runs into ${sorted[i].col} (from ${sorted[i].left})`).toBeGreaterThanOrEqual(
          sorted[i - 1].right,
        );
      }
      if (process.env.PGPAGE_SHOTS) writeFileSync(join(process.env.PGPAGE_SHOTS, `dropped-page${FLIPPED}-${width}.png`), PNG.sync.write(png));
    });
  });
}

test('the directory dropped twice: the second report is made too (main-thread tasks over 50 ms logged, not timed)', async ({ page }) => {
  test.setTimeout(300_000);
  await page.addInitScript(() => {
    const w = window as unknown as { longTasks: number[] };
    w.longTasks = [];
    new PerformanceObserver((l) => w.longTasks.push(...l.getEntries().map((e) => e.duration))).observe({ type: 'longtask', buffered: true });
  });
  await page.goto('/');
  const taken = () =>
    page.evaluate(() => {
      const w = window as unknown as { longTasks: number[] };
      const t = w.longTasks.map(Math.round);
      w.longTasks = [];
      return t;
    });
  await drop(page);
  const first = await taken();
  await drop(page);
  const second = await taken();
  console.log(`main-thread tasks over 50 ms: first drop ${JSON.stringify(first)}, second drop ${JSON.stringify(second)}`);
  // Durations are figures to read, not to assert: a loaded CI machine stretched one task to
  // 503 ms where an idle one takes 100-170. What must hold is that both drops are reported.
  await expect(page.getByTestId('incident-report')).toHaveAttribute('data-state', 'done');
});
