// Sharing what the page shows: PNG pictures of the page view, page map and problem list
// (decoded here: size against the element, a caption band burned into the pixels, the same
// picture on the clipboard), the Markdown report against the oracle, a link a colleague
// opens to land on the same spot, and the print stylesheet.
import { expect, test, type Locator, type Page } from './test';
import { readFileSync } from 'node:fs';
import { PNG } from 'pngjs';
import { pgChecksumPage } from '../oracle/pgchecksum';
import { bandHeight } from '../../web/src/share/band';
import { damaged, makeDir, problemsOf, sparse, type Made } from './files';

const dir = makeDir();
const seg0 = damaged(dir, '16385', 12, 0, 1);
const seg2 = damaged(dir, '16385.2', 9, 2, 2);
const BAND_LINES = 3;

async function choose(page: Page, files: Made[]): Promise<void> {
  await page.locator('[data-testid=file-input]').setInputFiles(files.map((f) => f.path));
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 30_000 });
}

const hex4 = (v: number) => v.toString(16).toUpperCase().padStart(4, '0');
const int2 = (v: number) => (v > 32767 ? v - 65536 : v);

/** Clicks an export button; returns the downloaded PNG decoded (signature and CRCs checked). */
async function exportPng(page: Page, button: string, section: Locator, name: string) {
  const box = (await section.boundingBox())!;
  const shot = PNG.sync.read(await section.screenshot());
  const downloading = page.waitForEvent('download');
  await page.getByTestId(button).click();
  const dl = await downloading;
  expect(dl.suggestedFilename()).toBe(name);
  const bytes = readFileSync((await dl.path())!);
  expect(Array.from(bytes.subarray(0, 8))).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const png = PNG.sync.read(bytes, { checkCRC: true });
  await expect(page.getByTestId(`${button}-status`)).toContainText(`saved ${name} and copied the picture`);
  return { png, box, shot };
}

/** Dark and light pixels in rows [y0, y1): text on a background, not a blank strip. */
function inkIn(png: PNG, y0: number, y1: number): { dark: number; light: number } {
  let dark = 0;
  let light = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = 0; x < png.width; x++) {
      const i = (y * png.width + x) * 4;
      const lum = 0.299 * png.data[i] + 0.587 * png.data[i + 1] + 0.114 * png.data[i + 2];
      if (lum < 90) dark++;
      else if (lum > 200) light++;
    }
  }
  return { dark, light };
}

/**
 * The share of pixels of `shot` (the browser's screenshot of the element) that differ clearly
 * in `png`, at the best of three vertical alignments: the element sits at a fractional y on
 * the page, which the screenshot rounds.
 */
function differingShare(png: PNG, shot: PNG): number {
  expect(Math.abs(shot.width - png.width)).toBeLessThanOrEqual(1);
  const w = Math.min(png.width, shot.width);
  const h = Math.min(png.height, shot.height) - 1;
  const share = (dy: number) => {
    let differ = 0;
    for (let y = 1; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const i = ((y + dy) * png.width + x) * 4;
        const j = (y * shot.width + x) * 4;
        if ([0, 1, 2].some((k) => Math.abs(png.data[i + k] - shot.data[j + k]) > 64)) differ++;
      }
    }
    return differ / (w * (h - 1));
  };
  return Math.min(share(-1), share(0), share(1));
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

test('PNG of the page view, page map and problem list: element size plus a burned-in band, also on the clipboard', async ({ page, context }) => {
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
  const cases = [
    { button: 'png-page', section: page.getByTestId('page-view'), name: 'pgpage-16385-block1.png' },
    { button: 'png-map', section: page.locator('section.map'), name: 'pgpage-16385-block1-map.png' },
    { button: 'png-problems', section: page.locator('section.problems'), name: 'pgpage-16385-block1-problems.png' },
  ];
  for (const c of cases) {
    const t0 = Date.now();
    const { png, box, shot } = await exportPng(page, c.button, c.section, c.name);
    const longest = await longestTask(page);
    console.log(`${c.name}: ${png.width}x${png.height} in ${Date.now() - t0} ms, longest main-thread task ${longest} ms`);
    // The clone yields to the event loop; what is left is the browser rasterizing the SVG.
    expect(longest, c.name).toBeLessThan(1500);
    const elementHeight = Math.round(box.height * dpr);
    expect(Math.abs(png.width - Math.round(box.width * dpr)), c.name).toBeLessThanOrEqual(1);
    expect(Math.abs(png.height - elementHeight - Math.round(bandHeight(BAND_LINES) * dpr)), c.name).toBeLessThanOrEqual(1);
    // The band is drawn text: dark glyphs on a light strip.
    const band = inkIn(png, elementHeight + 2, png.height);
    expect(band.dark, c.name).toBeGreaterThan(200);
    expect(band.light, c.name).toBeGreaterThan(png.width * 20);
    // The element itself is in the picture, not an empty canvas.
    const body = inkIn(png, 0, elementHeight);
    expect(body.dark, c.name).toBeGreaterThan(500);
    // And laid out as on the page: against the browser's own screenshot of the element.
    // What may differ: the pressed button (disabled while rendering) and its focus ring.
    expect(differingShare(png, shot), c.name).toBeLessThan(0.04);
    const clip = await clipboardPng(page);
    expect(clip.types).toContain('image/png');
    expect([clip.width, clip.height]).toEqual([png.width, png.height]);
  }
  expect(refused).toEqual([]);
});

test('a browser that refuses the clipboard still gets the PNG, and is told why', async ({ page }) => {
  // As Chromium does for a page without the permission, or Firefox for images.
  await page.addInitScript(() => {
    navigator.clipboard.write = () => Promise.reject(new DOMException('Write permission denied.', 'NotAllowedError'));
  });
  await page.goto('/');
  await choose(page, [seg0]);
  const downloading = page.waitForEvent('download');
  await page.getByTestId('png-problems').click();
  expect((await downloading).suggestedFilename()).toBe('pgpage-16385-block0-problems.png');
  await expect(page.getByTestId('png-problems-status')).toContainText(
    'saved pgpage-16385-block0-problems.png; the browser did not allow copying the picture (Write permission denied.)',
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
  const { png, box } = await exportPng(page, 'png-map', page.locator('section.map'), 'pgpage-16900-block0-map.png');
  const ms = Date.now() - t0;
  const dpr = await page.evaluate(() => devicePixelRatio);
  expect(Math.abs(png.height - Math.round(box.height * dpr) - Math.round(bandHeight(BAND_LINES) * dpr))).toBeLessThanOrEqual(1);
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

test('one Markdown report of every problem page of every file, segment-aware', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto('/');
  await choose(page, [seg0, seg2]);
  await page.getByTestId('copy-report-all').click();
  await expect(page.getByTestId('copy-report-all-status')).toContainText('copied the report');
  const md = await page.evaluate(() => navigator.clipboard.readText());
  await expect(page.getByTestId('report-all')).toHaveValue(md);
  const want = [seg0, seg2].flatMap((f) => problemsOf(f).map((e) => ({ f, e })));
  expect(md.split('\n')[0]).toBe(`# pgpage report: ${want.length} problem pages in 2 files`);
  const sections = md.split(/^## /m).slice(1);
  expect(sections.map((x) => x.split('\n')[0])).toEqual(want.map(({ f, e }) => `\`${f.name}\`, block ${e.block}`));
  // A mismatch in segment 2: the checksum is the one for the relation-wide block.
  const i = want.findIndex(({ f, e }) => f === seg2 && e.status === 'mismatch');
  const { e } = want[i];
  const computed = pgChecksumPage(new Uint8Array(readFileSync(seg2.path).subarray(e.block * 8192, (e.block + 1) * 8192)), 2 * 131072 + e.block);
  expect(computed).toBe(e.computed);
  expect(sections[i]).toContain(`relation-wide block ${2 * 131072 + e.block}`);
  expect(sections[i]).toContain(
    `pg_checksums: error: checksum verification failed in file "16385.2", block ${e.block}: calculated checksum ${computed.toString(16).toUpperCase()} but block contains ${e.stored.toString(16).toUpperCase()}`,
  );
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
    return { maxHeight: s.maxHeight, overflow: s.overflowY, adjust: s.printColorAdjust, body: getComputedStyle(document.body).backgroundColor, header: b.backgroundColor };
  });
  expect(style).toEqual({ maxHeight: 'none', overflow: 'visible', adjust: 'exact', body: 'rgb(255, 255, 255)', header: 'rgb(219, 233, 255)' });
  // Not cut off: the hex dump is as tall as its 512 rows.
  const h = await hex.evaluate((el) => [el.scrollHeight, el.clientHeight]);
  expect(h[0] - h[1]).toBeLessThanOrEqual(1);
  await page.emulateMedia({ media: 'screen' });
  await expect(page.getByTestId('dropzone')).toBeVisible();
});
