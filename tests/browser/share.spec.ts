// Sharing what the page shows: PNG pictures of the page view, page map and problem list
// (decoded here: size against the element, a caption band saying what the picture shows,
// block numbers beside the map, tables whole, a dark band in dark mode, the same picture on
// the clipboard), the Markdown report against the oracle, a link a colleague
// opens to land on the same spot, and the print stylesheet.
import { expect, test, type Locator, type Page } from './test';
import { readFileSync, writeFileSync } from 'node:fs';
import { PNG } from 'pngjs';
import { pgChecksumPage } from '../oracle/pgchecksum';
import { bandHeight } from '../../web/src/share/band';
import { CARD_ITEMS } from '../../web/src/share/card';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { concat, heapPage, rng, seal } from '../oracle/pgchecksum';
import { damaged, makeDir, problemsOf, sparse, write, type Made } from './files';
import { shots } from './shots';

/** `pgpage --version` of the CLI built from this tree: the app names the same version and commit. */
const BUILT = execFileSync(fileURLToPath(new URL('../../crates/target/release/pgpage', import.meta.url)), ['--version'], { encoding: 'utf8' }).trim();

const dir = makeDir();
const seg0 = damaged(dir, '16385', 12, 0, 1);
const seg2 = damaged(dir, '16385.2', 9, 2, 2);
const BAND_LINES = 3;
// 60 pages, each with one flipped byte: a problem list longer than its scroll box.
const manyRng = rng(9);
const many = write(
  dir,
  '16400',
  concat(
    Array.from({ length: 60 }, (_, b) => {
      const p = seal(heapPage(8192, 4, manyRng), b);
      p[8000] ^= 1;
      return p;
    }),
  ),
);
// Pages PostgreSQL 15 made (tests/fixtures): a btree metapage and leaf as blocks 0 and 1 of
// an index file, heap pages (nulls and frozen; a HOT chain with a redirect) of a table file.
const fixture = (name: string) => readFileSync(fileURLToPath(new URL(`../fixtures/${name}/page.bin`, import.meta.url)));
const btree = write(dir, '16501', concat([fixture('btree_meta'), fixture('btree_leaf')]));
const heap = write(dir, '16502', concat([fixture('heap_nulls_frozen'), fixture('heap_hot_redirect')]));

async function choose(page: Page, files: Made[]): Promise<void> {
  await page.locator('[data-testid=file-input]').setInputFiles(files.map((f) => f.path));
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 30_000 });
}

const hex4 = (v: number) => v.toString(16).toUpperCase().padStart(4, '0');
const int2 = (v: number) => (v > 32767 ? v - 65536 : v);

/** Clicks an export button; returns the downloaded PNG decoded (signature and CRCs checked). */
async function exportPng(page: Page, button: string, section: Locator, name: string) {
  const box = (await section.boundingBox())!;
  const downloading = page.waitForEvent('download');
  await page.getByTestId(button).click();
  const dl = await downloading;
  expect(dl.suggestedFilename()).toBe(name);
  const bytes = readFileSync(await dl.path());
  expect(Array.from(bytes.subarray(0, 8))).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const png = PNG.sync.read(bytes, { checkCRC: true });
  const status = page.getByTestId(`${button}-status`);
  await expect(status).toContainText(`saved ${name} and copied the picture`);
  const caption = ((await status.getAttribute('data-caption')) ?? '').split('\n');
  return { png, box, caption };
}

/** Dark and light pixels in rows [y0, y1) (and columns [x0, x1)): text on a background, not a blank strip. */
function inkIn(png: PNG, y0: number, y1: number, x0 = 0, x1 = png.width): { dark: number; light: number } {
  let dark = 0;
  let light = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * png.width + x) * 4;
      const lum = 0.299 * png.data[i] + 0.587 * png.data[i + 1] + 0.114 * png.data[i + 2];
      if (lum < 90) dark++;
      else if (lum > 200) light++;
    }
  }
  return { dark, light };
}

async function clipboardPng(page: Page): Promise<{ types: string[]; width: number; height: number }> {
  return page.evaluate(async () => {
    const [item] = await navigator.clipboard.read();
    const bmp = await createImageBitmap(await item.getType('image/png'));
    return { types: [...item.types], width: bmp.width, height: bmp.height };
  });
}

/** Collects main-thread tasks over 50 ms from now on; `longestTask` reads and resets. */
async function watchLongTasks(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { longTasks: number[] };
    w.longTasks = [];
    new PerformanceObserver((l) => l.getEntries().forEach((e) => w.longTasks.push(e.duration))).observe({ type: 'longtask' });
  });
}

async function longestTask(page: Page): Promise<number> {
  return page.evaluate(() => {
    const w = window as unknown as { longTasks: number[] };
    const m = Math.round(Math.max(0, ...w.longTasks));
    w.longTasks = [];
    return m;
  });
}

test('PNG of the page view, page map and problem list: the content with a band saying what it shows, also on the clipboard', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  // The renderer must live within the page's CSP: no refusals (the request recorder sees any request elsewhere).
  const refused: string[] = [];
  page.on('console', (m) => m.type() === 'error' && refused.push(m.text()));
  await page.goto('/');
  await page.evaluate(() => document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP refused ${e.blockedURI} (${e.violatedDirective})`)));
  await choose(page, [seg0]);
  await page.locator('[data-testid=problem][data-block="1"]').click();
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', '1');
  await expect(page.getByTestId('hexview')).toHaveAttribute('data-complete', 'true');
  const dpr = await page.evaluate(() => devicePixelRatio);
  await watchLongTasks(page);
  const n = problemsOf(seg0).length;
  const cases = [
    { button: 'png-page', section: page.getByTestId('page-view'), name: 'pgpage-16385-block1.png', first: /^16385, block 1 \(relation block 1\) — page view$/ },
    {
      button: 'png-map',
      section: page.locator('section.map'),
      name: 'pgpage-16385-block1-map.png',
      first: /^16385 — page map of 12 blocks, \d+ a row, the first block of each row numbered at its left$/,
    },
    // The list's caption describes the list, not the block shown.
    {
      button: 'png-problems',
      section: page.locator('section.problems'),
      name: 'pgpage-16385-problems.png',
      first: new RegExp(`^Problem pages: ${n} pages in 1 file \\(.*\\) — problem list$`),
    },
  ];
  // The item table as wide as its columns (a random null bitmap makes it very wide).
  const itemsWidth = await page
    .getByTestId('page-view')
    .locator('.items-scroll table')
    .evaluate((t) => t.scrollWidth);
  // A budget of 1 ms: the picture yields every millisecond it paints, however fast the
  // machine paints this page, so the count shows the yielding itself.
  await page.evaluate(() => (document.documentElement.dataset.pngSliceMs = '1'));
  for (const c of cases) {
    const t0 = Date.now();
    const { png, box, caption } = await exportPng(page, c.button, c.section, c.name);
    const longest = await longestTask(page);
    const slices = Number(await page.getByTestId(`${c.button}-status`).getAttribute('data-slices'));
    // Timings are the benchmark's to hold; here they are only reported. What is held: the
    // picture was painted in many short tasks, not one.
    console.log(`${c.name}: ${png.width}x${png.height} in ${Date.now() - t0} ms, painted in ${slices + 1} tasks, longest main-thread task ${longest} ms`);
    if (c.button === 'png-page') expect(slices, c.name).toBeGreaterThan(3);
    expect(caption[0], c.name).toMatch(c.first);
    // The list's band also names each all-zero page the core notes between rows (block 2).
    const notes = c.button === 'png-problems' ? await page.locator('[data-testid=file-finding][data-code=zero_page_between_rows]').count() : 0;
    if (c.button === 'png-problems') expect(notes, 'seg0 has a zero page between rows').toBe(1);
    expect(caption, c.name).toHaveLength(BAND_LINES + notes);
    if (notes > 0) expect(caption[2]).toMatch(/^16385 block \d+: all-zero page between pages with rows: rows stored there would be gone$/);
    expect(BUILT).toMatch(/^pgpage \d+\.\d+\.\d+ \(commit [0-9a-f]{12}\)$/);
    expect(caption[2 + notes]).toBe(`${BUILT} — made locally, nothing uploaded`);
    await expect(page.getByTestId('build-version')).toHaveText(BUILT);
    const band = Math.round(bandHeight(caption.length) * dpr);
    const body = png.height - band;
    // The element's width (the map adds a gutter of block numbers; the page view's card as
    // wide as its item table's words); its height less the controls left out.
    expect(png.width, c.name).toBeGreaterThanOrEqual(Math.round(box.width * dpr) - 1);
    // The page view's picture is a card: its item table wraps between words and cuts a
    // null bitmap as the page cuts t_data, never as wide as the page's whole table.
    if (c.button === 'png-page') expect(png.width, c.name).toBeLessThan(Math.round(itemsWidth * dpr));
    else expect(png.width, c.name).toBeLessThanOrEqual(Math.round(box.width * dpr) + 80 * dpr);
    // At least a third of the element's height: block 1's two garbage items are one line
    // each now ("not a tuple: ..."), which leaves the controls a larger part of the screen.
    expect(body, c.name).toBeGreaterThan(Math.round(box.height * dpr * 0.33));
    // The band is drawn text: dark glyphs on a light strip.
    const ink = inkIn(png, body + 2, png.height);
    expect(ink.dark, c.name).toBeGreaterThan(200);
    expect(ink.light, c.name).toBeGreaterThan(png.width * 20);
    expect(inkIn(png, 0, body).dark, c.name).toBeGreaterThan(500);
    const clip = await clipboardPng(page);
    expect(clip.types).toContain('image/png');
    expect([clip.width, clip.height]).toEqual([png.width, png.height]);
  }
  expect(refused).toEqual([]);
});

test('PNG exports show the problem list whole, the page view as a card of its first items, the page map with block numbers, and a dark band in dark mode', async ({
  page,
  context,
}) => {
  // Four pictures, one of a page with 367 item rows, on a shared 2-core machine.
  test.setTimeout(300_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto('/');
  // The btree leaf's 367 items scroll in the page view; the picture is a card: the first
  // rows and how many more, never a poster of all of them.
  await choose(page, [btree]);
  await page.keyboard.press('Control+g');
  await page.getByTestId('goto-input').fill('1');
  await page.getByTestId('goto-input').press('Enter');
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', '1');
  await expect(page.getByTestId('hexview')).toHaveAttribute('data-complete', 'true');
  const dpr = await page.evaluate(() => devicePixelRatio);
  const items = page.getByTestId('page-view').locator('.items-scroll');
  const { hidden, full } = await items.evaluate((el) => ({ hidden: el.scrollHeight - el.clientHeight, full: el.scrollHeight }));
  expect(hidden).toBeGreaterThan(2000);
  const leaf = await exportPng(page, 'png-page', page.getByTestId('page-view'), 'pgpage-16501-block1.png');
  const leafBody = leaf.png.height - Math.round(bandHeight(leaf.caption.length) * dpr);
  expect(leafBody).toBeLessThan(Math.round(full * dpr));
  expect(leaf.png.height).toBeLessThanOrEqual(1600 * dpr);
  const rows = await items.locator('tbody tr').count();
  expect(rows).toBeGreaterThan(CARD_ITEMS);

  await page.goto('about:blank');
  await page.goto('/');
  await choose(page, [many]);
  await expect(page.locator('[data-testid=problem]')).toHaveCount(60);
  const table = (await page.locator('section.problems table.problems').boundingBox())!;
  const list = await exportPng(page, 'png-problems', page.locator('section.problems'), 'pgpage-16400-problems.png');
  const listBody = list.png.height - Math.round(bandHeight(list.caption.length) * dpr);
  expect(listBody).toBeGreaterThanOrEqual(Math.round(table.height * dpr));
  expect(list.caption[0]).toBe('Problem pages: 60 pages in 1 file (60 mismatch) — problem list');
  expect(list.caption[1]).toBe('16400 (mismatch) blocks 0-59');

  // The page map: wider than the element by a gutter that carries the rows' block numbers.
  const map = await exportPng(page, 'png-map', page.locator('section.map'), 'pgpage-16400-block0-map.png');
  const gutter = map.png.width - Math.round(map.box.width * dpr);
  expect(gutter).toBeGreaterThan(10);
  // Left of where the section's own content starts (its heading at the padding), only the
  // numbers are drawn: 0 and 45 for 60 blocks at 45 a row.
  const mapBody = map.png.height - Math.round(bandHeight(map.caption.length) * dpr);
  const numbers = inkIn(map.png, 0, mapBody, 0, Math.floor(gutter * 0.75));
  expect(numbers.dark).toBeGreaterThan(15);
  expect(map.caption[0]).toBe('16400 — page map of 60 blocks, 45 a row, the first block of each row numbered at its left');
  expect(map.caption[1]).toBe('60 mismatch');

  // Dark mode: the band takes the theme's dark panel, with light text.
  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = await exportPng(page, 'png-page', page.getByTestId('page-view'), 'pgpage-16400-block0.png');
  const bandTop = dark.png.height - Math.round(bandHeight(dark.caption.length) * dpr);
  const bandInk = inkIn(dark.png, bandTop + 3, dark.png.height);
  const area = (dark.png.height - bandTop - 3) * dark.png.width;
  expect(bandInk.dark / area).toBeGreaterThan(0.8);
  expect(bandInk.light).toBeGreaterThan(100);
  const attach = async (name: string, png: PNG) => {
    const path = test.info().outputPath(`${name.replace(/ /g, '-')}.png`);
    writeFileSync(path, PNG.sync.write(png));
    await test.info().attach(name, { path, contentType: 'image/png' });
  };
  await attach('page view PNG with every item', leaf.png);
  await attach('problem list PNG', list.png);
  await attach('page map PNG', map.png);
  await attach('dark page view PNG', dark.png);
  await page.emulateMedia({ colorScheme: null });
  await shots(page, 'share-after-exports');
});

test('a browser that refuses the clipboard still gets the PNG, and is told why', async ({ page }) => {
  // As Chromium does for a page without the permission, or Firefox for images.
  await page.addInitScript(() => {
    navigator.clipboard.write = () => Promise.reject(new DOMException('Write permission denied.', 'NotAllowedError'));
  });
  await page.goto('/');
  await choose(page, [seg0]);
  // The file opens at its first problem page; the list's picture is named after the file.
  const first = problemsOf(seg0)[0].block;
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', String(first));
  const downloading = page.waitForEvent('download');
  await page.getByTestId('png-problems').click();
  expect((await downloading).suggestedFilename()).toBe('pgpage-16385-problems.png');
  await expect(page.getByTestId('png-problems-status')).toContainText(
    `saved pgpage-16385-problems.png; the browser did not allow copying the picture (Write permission denied.)`,
  );
});

test('a large page map exports without long main-thread tasks', async ({ page }) => {
  const d = makeDir();
  // 131,072 new pages (1 GB, sparse): the largest map cells of 2 pixels.
  const big = sparse(d, '16900', 131072 * 8192);
  await page.goto('/');
  await choose(page, [big]);
  await watchLongTasks(page);
  const t0 = Date.now();
  const { png, box, caption } = await exportPng(page, 'png-map', page.locator('section.map'), 'pgpage-16900-block0-map.png');
  const ms = Date.now() - t0;
  const dpr = await page.evaluate(() => devicePixelRatio);
  // The map's height (the export button is left out), the band below it.
  const body = png.height - Math.round(bandHeight(caption.length) * dpr);
  expect(body).toBeLessThanOrEqual(Math.round(box.height * dpr));
  expect(body).toBeGreaterThan(Math.round((await page.getByTestId('pagemap').boundingBox())!.height * dpr));
  expect(caption[0]).toMatch(/^16900 — page map of 131072 blocks, \d+ a row/);
  const longest = await longestTask(page);
  console.log(`large map ${png.width}x${png.height}: exported in ${ms} ms, longest main-thread task ${Math.round(longest)} ms`);
  expect(longest).toBeLessThan(1000);
});

test('the Markdown report holds what the oracle computes for the page and pg_checksums line', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto('/');
  await choose(page, [seg0]);
  const block = problemsOf(seg0).find((e) => e.status === 'mismatch')!.block;
  await page.locator(`[data-testid=problem][data-block="${block}"]`).click();
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', String(block));
  await page.getByTestId('copy-report').click();
  await expect(page.getByTestId('share-status')).toContainText('copied the Markdown report');
  const md = await page.evaluate(() => navigator.clipboard.readText());
  await expect(page.getByTestId('report')).toHaveValue(md);

  const bytes = readFileSync(seg0.path).subarray(block * 8192, (block + 1) * 8192);
  const stored = bytes.readUInt16LE(8);
  const computed = pgChecksumPage(new Uint8Array(bytes), block);
  expect(computed).not.toBe(stored);
  expect(md).toContain(`**Stored checksum** (pd_checksum): ${stored} (0x${hex4(stored)}, int2 ${int2(stored)})`);
  expect(md).toContain(`): ${computed} (0x${hex4(computed)}, int2 ${int2(computed)})`);
  expect(md).toContain(
    `pg_checksums: error: checksum verification failed in file "16385", block ${block}: calculated checksum ${computed.toString(16).toUpperCase()} but block contains ${stored.toString(16).toUpperCase()}`,
  );
  expect(md).toContain(`WARNING:  page verification failed, calculated checksum ${computed} but expected ${stored}`);
  expect(md).toContain(`| lower | pd_lower | ${bytes.readUInt16LE(12)} |`);
  const counts = new Map<string, number>();
  for (const e of seg0.expected) counts.set(e.status, (counts.get(e.status) ?? 0) + 1);
  for (const [status, n] of counts) expect(md).toContain(`${n} ${status} (`);
  expect(md).toMatch(/pgpage \d+\.\d+\.\d+/);
});

test('one Markdown report of every problem page of every file: a summary, pages in full, an appendix row each, segment-aware', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto('/');
  await choose(page, [seg0, seg2]);
  await page.getByTestId('copy-report-all').click();
  await expect(page.getByTestId('copy-report-all-status')).toContainText('copied the report');
  const md = await page.evaluate(() => navigator.clipboard.readText());
  await expect(page.getByTestId('report-all')).toHaveValue(md);
  const want = [seg0, seg2].flatMap((f) => problemsOf(f).map((e) => ({ f, e })));
  // The all-zero pages between rows the core notes are in its count too (seg0 has one).
  const zeros = (
    await page.locator('[data-testid=file-finding][data-code=zero_page_between_rows]').evaluateAll((els) => els.map((e) => Number(e.dataset.pages ?? 1)))
  ).reduce((a, b) => a + b, 0);
  expect(zeros).toBeGreaterThan(0);
  expect(md.split('\n')[0]).toBe(
    `# pgpage checksum inventory: ${want.length} problem pages and ${zeros} all-zero page${zeros === 1 ? '' : 's'} read as empty in 2 files`,
  );
  expect(md.split('\n')).toContain(`Made by ${BUILT}. PostgreSQL version unknown (no PG_VERSION dropped), little-endian, 8192-byte pages.`);
  // The first five pages in full, then one appendix row per problem page.
  const sections = md.split(/^### /m).slice(1);
  expect(sections.map((x) => x.split('\n')[0])).toEqual(want.slice(0, 5).map(({ f, e }) => `\`${f.name}\`, block ${e.block}`));
  const appendix = md
    .slice(md.indexOf('## Appendix: every problem page'))
    .split('\n')
    .filter((l) => l.startsWith('| `'));
  expect(appendix).toHaveLength(want.length);
  // A mismatch in segment 2: the checksum is the one for the relation-wide block.
  const i = want.findIndex(({ f, e }) => f === seg2 && e.status === 'mismatch');
  const { e } = want[i];
  const computed = pgChecksumPage(new Uint8Array(readFileSync(seg2.path).subarray(e.block * 8192, (e.block + 1) * 8192)), 2 * 131072 + e.block);
  expect(computed).toBe(e.computed);
  expect(appendix[i]).toMatch(new RegExp(`^\\| \`16385\\.2\` \\| ${e.block} \\| ${2 * 131072 + e.block} \\| mismatch \\| ${e.stored} \\| ${computed} \\|`));
  await shots(page, 'report-all');
});

test('Copy as pg_filedump -fi gives what pg_filedump 14.1 prints for the block', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const withoutFileLine = (s: string) =>
    s
      .split('\n')
      .filter((l) => !l.startsWith('* File: '))
      .join('\n');
  for (const [f, block] of [
    [btree, 0],
    [btree, 1],
    [heap, 0],
    [heap, 1],
  ] as const) {
    // A link to the block, as a colleague would open it (a fresh page: the link is read once).
    await page.goto('about:blank');
    await page.goto(`/#file=${f.name}&block=${block}&off=0`);
    await choose(page, [btree, heap]);
    await expect(page.getByTestId('page-view')).toHaveAttribute('data-file', f.name);
    await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', String(block));
    await page.getByTestId('copy-filedump').click();
    await expect(page.getByTestId('share-status')).toContainText('copied the pg_filedump -fi text');
    const ours = await page.evaluate(() => navigator.clipboard.readText());
    await expect(page.getByTestId('filedump')).toHaveValue(ours);
    expect(ours).toContain(`* File: ${f.name}\n* Options used: -f -i -R ${block}\n`);
    const theirs = execFileSync('pg_filedump', ['-f', '-i', '-R', String(block), f.path], { encoding: 'utf8' });
    expect(withoutFileLine(ours), `${f.name} block ${block}`).toBe(withoutFileLine(theirs));
  }
  await shots(page, 'filedump');
});

test('a copied link opened by a colleague who chooses the same file lands on the same block and offset', async ({ page, context, browser }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto('/');
  await choose(page, [seg0]);
  const block = problemsOf(seg0)[2].block;
  await page.locator(`[data-testid=problem][data-block="${block}"]`).click();
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', String(block));
  await page.locator('[data-testid=hexview] [data-off="20"]').click();
  await page.getByTestId('copy-link').click();
  await expect(page.getByTestId('share-status')).toContainText('copied the link');
  const link = await page.evaluate(() => navigator.clipboard.readText());
  expect(link).toMatch(new RegExp(`#file=16385&block=${block}&off=20$`));

  const colleague = await browser.newContext();
  const other = await colleague.newPage();
  await other.goto(link);
  await choose(other, [seg2, seg0]);
  await expect(other.getByTestId('page-view')).toHaveAttribute('data-file', '16385');
  await expect(other.getByTestId('page-view')).toHaveAttribute('data-block', String(block));
  await expect(other.locator('[data-testid=hexview] .cursor')).toHaveAttribute('data-off', '20');
  await colleague.close();
});

test('print: no drop zone or buttons, the whole hex dump in light colours, colours kept', async ({ page }) => {
  await page.goto('/');
  await choose(page, [seg0]);
  await page.getByRole('button', { name: 'switch theme' }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.emulateMedia({ media: 'print' });
  await expect(page.getByTestId('dropzone')).toBeHidden();
  await expect(page.getByTestId('copy-report')).toBeHidden();
  await expect(page.getByTestId('png-map')).toBeHidden();
  await expect(page.getByTestId('page-view')).toBeVisible();
  const hex = page.getByTestId('hexview');
  await expect(hex).toHaveAttribute('data-complete', 'true');
  const style = await hex.evaluate((el) => {
    const s = getComputedStyle(el);
    const b = getComputedStyle(el.querySelector('[data-field=pd_lsn]')!);
    return {
      maxHeight: s.maxHeight,
      overflow: s.overflowY,
      adjust: s.printColorAdjust,
      body: getComputedStyle(document.body).backgroundColor,
      header: b.backgroundColor,
    };
  });
  expect(style).toEqual({ maxHeight: 'none', overflow: 'visible', adjust: 'exact', body: 'rgb(255, 255, 255)', header: 'rgb(219, 233, 255)' });
  // Not cut off: the hex dump is as tall as its 512 rows.
  const h = await hex.evaluate((el) => [el.scrollHeight, el.clientHeight]);
  expect(h[0] - h[1]).toBeLessThanOrEqual(1);
  await page.emulateMedia({ media: 'screen' });
  await expect(page.getByTestId('dropzone')).toBeVisible();
});
