// Redaction of the keys the incident report names: a PostgreSQL 15 data directory, dropped
// whole, where one bit of a line pointer's lp_off makes it lead to the tuple of another row
// of its page, so the report says which key the tuple holds where the primary key's entry
// names another, and counts the row the entry names lost. With "Redact row data" on, no
// export carries either key: the page view's picture (whose finding is the core's redacted
// words), the problem list's and the page map's pictures, the page's Markdown and pg_filedump
// text, the checksum inventory and the report's Markdown. With it off, the picture names
// them, so this test would see a leak.
import { expect, test, type Page } from './test';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Cluster } from '../pg/cluster';
import { makeDir } from './files';

const BS = 8192;
const BLOCK = 2;
const out = makeDir();

interface Made {
  dir: string;
  heap: string;
  /** The key the line pointer's tuple now holds, and the key its index entry names. */
  held: string;
  named: string;
}
let made: Made;

test.beforeAll(() => {
  const c = Cluster.create('pgpage-redact-keys');
  try {
    // 64-byte tuples, 120 to a page: lp_off's bit 10 (1024 bytes) is 16 tuples away.
    c.sql(`create table t (id int primary key, v text not null) with (fillfactor = 100, autovacuum_enabled = off);
      insert into t select 700000 + g, repeat('v', 30) from generate_series(1, 500) g;
      checkpoint;`);
    const ids = new Map(
      c
        .rows<{ lp: number; id: number }>(`select (ctid::text::point)[1]::int as lp, id from t where (ctid::text::point)[0] = ${BLOCK}`)
        .map((r) => [r.lp, r.id]),
    );
    const heapAbs = c.relationPath('t');
    c.stop();
    const dir = join(out, 'dmg');
    cpSync(c.dataDir, dir, { recursive: true, filter: (src) => !/postmaster\.pid$/.test(src) });
    const heap = relative(c.dataDir, heapAbs);
    const file = readFileSync(join(dir, heap));
    const page = file.subarray(BLOCK * BS, (BLOCK + 1) * BS);
    const lpOff = (lp: number) => page.readUInt32LE(24 + 4 * (lp - 1)) & 0x7fff;
    const lps = [...ids.keys()];
    // A line pointer and a bit of its lp_off that, flipped, lead to another line pointer's tuple.
    let found: { lp: number; other: number; bit: number } | null = null;
    for (const lp of lps) {
      for (let bit = 6; bit < 15 && !found; bit++) {
        const other = lps.find((o) => o !== lp && lpOff(o) === (lpOff(lp) ^ (1 << bit)));
        if (other !== undefined) found = { lp, other, bit };
      }
      if (found) break;
    }
    expect(found, 'two tuples 2^n bytes apart on the page').not.toBeNull();
    const { lp, other, bit } = found!;
    page[24 + 4 * (lp - 1) + (bit >> 3)] ^= 1 << (bit & 7);
    writeFileSync(join(dir, heap), file);
    made = { dir, heap, held: String(ids.get(other)), named: String(ids.get(lp)) };
  } finally {
    c.destroy();
  }
});

test.beforeEach(async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  // Every text painted into a picture, as redact.spec.ts records it.
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
});

/** The keys a text names. */
const keysIn = (text: string) => [made.held, made.named].filter((k) => text.includes(k));

async function open(page: Page): Promise<void> {
  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(made.dir);
  await expect(page.getByTestId('incident-report')).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  const finding = page.locator(`[data-testid=finding][data-file="${made.heap}"][data-block="${BLOCK}"]`);
  await expect(finding).toHaveAttribute('data-damage', 'bit_flip');
  await finding.locator('button.finding-open').click();
  await expect(page.locator(`[data-testid=page-view][data-block="${BLOCK}"]`)).toHaveAttribute('data-status', 'mismatch');
}

/** The texts painted into the picture `button` makes, its caption among them. */
async function png(page: Page, button: string): Promise<string> {
  await page.evaluate(() => ((window as unknown as { painted: string[] }).painted = []));
  const downloading = page.waitForEvent('download');
  await page.getByTestId(button).click();
  await downloading;
  const status = page.getByTestId(`${button}-status`);
  await expect(status).toContainText('saved');
  const painted = await page.evaluate(() => (window as unknown as { painted: string[] }).painted);
  // A paragraph is painted a word at a time.
  return `${painted.join(' ')} ${(await status.getAttribute('data-caption')) ?? ''}`.replace(/\s+/g, ' ');
}

const clipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText());

test('off: the page view and its picture name the key the tuple holds and the one its entry names', async ({ page }) => {
  await open(page);
  await expect(page.getByTestId('redact-switch')).toHaveAttribute('data-state', 'off');
  // Two line pointers lead to one tuple: the damaged one is named with both keys.
  await expect(page.getByTestId('page-damage')).toContainText(`the row of key ${made.held}`);
  await expect(page.getByTestId('page-damage')).toContainText(`where the index names ${made.named}`);
  expect(keysIn(await png(page, 'png-page'))).toEqual([made.held, made.named]);
});

test('on: no export names either key, and the picture says the finding without them', async ({ page }) => {
  await open(page);
  await page.getByTestId('redact').check();
  await expect(page.getByTestId('redact-switch')).toHaveAttribute('data-state', 'on');
  // The screen keeps them (the switch is for exports).
  await expect(page.getByTestId('page-damage')).toContainText(`the row of key ${made.held}`);

  const picture = await png(page, 'png-page');
  expect(keysIn(picture)).toEqual([]);
  expect(picture).toContain('another row than the index names');
  expect(keysIn(await png(page, 'png-problems'))).toEqual([]);
  expect(keysIn(await png(page, 'png-map'))).toEqual([]);

  await page.getByTestId('copy-report').click();
  await expect(page.getByTestId('share-status')).toContainText('copied the Markdown report');
  expect(keysIn(await clipboard(page))).toEqual([]);
  await page.getByTestId('copy-filedump').click();
  await expect(page.getByTestId('share-status')).toContainText('copied the pg_filedump -fi text');
  expect(keysIn(await clipboard(page))).toEqual([]);
  await page.getByTestId('copy-report-all').click();
  await expect(page.getByTestId('copy-report-all-status')).toContainText('copied');
  expect(keysIn(await clipboard(page))).toEqual([]);

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('report-markdown').click()]);
  const md = readFileSync(await download.path(), 'utf8');
  expect(md).toContain('Row data redacted');
  expect(keysIn(md)).toEqual([]);
});
