// Sharing without leaking data: a heap PostgreSQL 15 wrote, whose rows hold a known secret,
// one tuple's t_hoff damaged so the report dumps the bytes around it. With "Redact row data"
// on, no export (Markdown report, hexdump -C, pg_filedump text, the PNG's painted text, the
// link) carries the secret, while the page header, line pointers and checksum lines are there
// with the redaction's note; with it off, the secret is there. The switch is remembered for
// the tab's session.
import { expect, test, type Page } from './test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Cluster } from '../pg/cluster';
import { makeDir } from './files';

const SECRET = 'SECRET-VALUE-123';
/** Any piece of the secret a 16-byte dump row can show, in ASCII or as hexdump's hex. */
const hexOf = (s: string) => Array.from(Buffer.from(s), (b) => b.toString(16).padStart(2, '0')).join(' ');
const PIECES = ['SECRET', 'VALUE', hexOf('SECRET'), hexOf('VALUE'), hexOf('SECRET').replace(/ /g, ''), hexOf('VALUE').replace(/ /g, '')];
const leaks = (text: string) => PIECES.filter((p) => text.includes(p));

let file = '';
let lower = 0;

test.beforeAll(() => {
  const c = Cluster.create('pgpage-redact');
  try {
    c.sql(`create table t (id int, v text) with (autovacuum_enabled = off);
      insert into t select g, '${SECRET}' from generate_series(1, 60) g;
      insert into t values (61, 'DELETED-SECRET-456');
      delete from t where id = 61;
      vacuum t;
      checkpoint;`);
    const path = c.relationPath('t');
    c.stop();
    const page = Buffer.from(readFileSync(path).subarray(0, 8192));
    // Line pointer 1's tuple: its t_hoff made 7 (not MAXALIGNed), which the decoder flags,
    // so the report dumps the rows around it, the tuple's data among them.
    const lp1 = page.readUInt32LE(24);
    page[(lp1 & 0x7fff) + 22] = 7;
    lower = page.readUInt16LE(12);
    file = join(makeDir(), '16390');
    writeFileSync(file, page);
  } finally {
    c.destroy();
  }
});

async function open(page: Page): Promise<void> {
  await page.goto('/');
  await page.locator('[data-testid=file-input]').setInputFiles([file]);
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 30_000 });
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', '0');
  // Item 1 selected: the hex dump scrolls to its tuple.
  await page.locator('[data-testid=items-panel] tr[data-lp="1"]').click();
}

const clipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText());

async function report(page: Page): Promise<string> {
  await page.getByTestId('copy-report').click();
  await expect(page.getByTestId('share-status')).toContainText('copied the Markdown report');
  return clipboard(page);
}

async function filedump(page: Page): Promise<string> {
  await page.getByTestId('copy-filedump').click();
  await expect(page.getByTestId('share-status')).toContainText('copied the pg_filedump -fi text');
  return clipboard(page);
}

async function hexdump(page: Page): Promise<string> {
  await page.getByTestId('copy-hexdump').click();
  await expect(page.getByTestId('copied')).toHaveText('copied hexdump -C');
  return clipboard(page);
}

/** The PNG of the page view and every text painted into it (fillText, recorded). */
async function png(page: Page): Promise<{ painted: string[]; caption: string }> {
  await page.evaluate(() => ((window as unknown as { painted: string[] }).painted = []));
  const downloading = page.waitForEvent('download');
  await page.getByTestId('png-page').click();
  await downloading;
  const status = page.getByTestId('png-page-status');
  await expect(status).toContainText('saved');
  const painted = await page.evaluate(() => (window as unknown as { painted: string[] }).painted);
  return { painted, caption: (await status.getAttribute('data-caption')) ?? '' };
}

test.beforeEach(async ({ page, context }) => {
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
});

test('off: every export carries the row data', async ({ page }) => {
  await open(page);
  await expect(page.getByTestId('redact-switch')).toHaveAttribute('data-state', 'off');
  expect(leaks(await report(page))).not.toEqual([]);
  expect(leaks(await filedump(page))).not.toEqual([]);
  expect(leaks(await hexdump(page))).not.toEqual([]);
  const picture = await png(page);
  // The picture is a card without the hex dump: the row data is in the items' t_data, which
  // an ellipsis cuts, so it is painted a character at a time.
  expect(leaks(picture.painted.join(''))).not.toEqual([]);
  expect(picture.caption).not.toContain('redacted');
});

test('on: no export carries the row data, the structure and the note are there, and the switch stays on for the session', async ({ page }) => {
  await open(page);
  await page.getByTestId('redact').check();
  await expect(page.getByTestId('redact-switch')).toHaveAttribute('data-state', 'on');
  await expect(page.getByTestId('redact-switch')).toContainText('on: exports carry no row data');

  const md = await report(page);
  expect(leaks(md)).toEqual([]);
  expect(md).toMatch(/- \*\*Redacted:\*\* row data redacted: \d+ bytes of tuple data masked .*; headers, line pointers, tuple headers and checksums kept/);
  expect(md).toContain('**Stored checksum** (pd_checksum)');
  expect(md).toContain('**Computed checksum**');
  expect(md).toContain(`| lower | pd_lower | ${lower} |`);
  expect(md).toContain('The first 64 bytes: the 24-byte page header and the first line pointers.');
  expect(md).toContain('xx xx');

  const dump = await hexdump(page);
  expect(leaks(dump)).toEqual([]);
  const [note, first] = dump.split('\n');
  expect(note).toMatch(/^row data redacted: \d+ bytes of tuple data masked/);
  // The page header's row prints as hexdump prints it: no byte of it is masked.
  expect(first).toMatch(/^00000000 {2}([0-9a-f]{2} ){8} ([0-9a-f]{2} ){8} \|.{16}\|$/);
  expect(dump).toContain('xx xx');

  const fd = await filedump(page);
  expect(leaks(fd)).toEqual([]);
  expect(fd).toContain('* row data redacted: ');
  expect(fd).toContain('<Header> -----');
  expect(fd).toMatch(/Item {3}1 -- Length: {3}45 {2}Offset: \d+ \(0x[0-9a-f]+\) {2}Flags: NORMAL/);

  const picture = await png(page);
  const painted = picture.painted.join('\n');
  expect(leaks(painted)).toEqual([]);
  expect(leaks(picture.painted.join(''))).toEqual([]);
  // (The card shows no hex dump, so no masked byte: the items' row data says so.)
  expect(picture.painted).toContain('redacted');
  expect(picture.caption).toMatch(/row data redacted: \d+ bytes of tuple data masked .*; masked bytes show as xx$/);
  expect(painted).toContain('row data redacted: ');

  await page.getByTestId('copy-link').click();
  await expect(page.getByTestId('share-status')).toContainText('no page bytes');
  const link = await clipboard(page);
  expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#file=16390&block=0&off=\d+$/);

  // Remembered for the tab's session: still on after a reload, the file chosen again.
  await page.reload();
  await page.locator('[data-testid=file-input]').setInputFiles([file]);
  await expect(page.getByTestId('redact-switch')).toHaveAttribute('data-state', 'on');
  await page.getByTestId('redact').uncheck();
  await expect(page.getByTestId('redact-switch')).toHaveAttribute('data-state', 'off');
});
