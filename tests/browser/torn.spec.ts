// The first screen of an incident tells its truth (a PostgreSQL 16 data directory, stopped and
// dropped whole): heap block 1 of public.t torn (its sectors 8-15 from the write before a
// DELETE, a VACUUM that moved its tuples and three HOT updates), block 3 zeroed, one bit of a
// value on block 5 flipped. At 1440x900 and 390x844: the Rows view says pages are left out, not
// lost, and counts their rows as the core reads them and the lost rows as the incident report
// counts them; the page view labels pgpage's own torn-sector finding "pgpage:", in one line
// for all its line pointers; a torn page offers no bit flips; the Repair kit rebuilds the torn
// page byte for byte as `pgpage repair --torn` does, and the server's verify_heapam finds
// nothing wrong with it; the landing page shows no empty inventory; on a phone the hex dump's
// note sits right under what precedes it.
import { expect, test, type Page } from './test';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Cluster } from '../pg/cluster';
import { ensurePgpage, pgpage } from '../pg/pgpage';
import { makeDir } from './files';
import { SIZES } from './shots';

const BS = 8192;
const SECTOR = 512;
const [TORN, ZEROED, FLIPPED] = [1, 3, 5];
const TORN_FROM = 8;
const out = makeDir();

interface ReportRows {
  lost: number | null;
  readable: number | null;
  upper_bound: boolean;
  keys?: string[][];
}
interface Made {
  dir: string;
  /** The heap file relative to the data directory (`base/5/16385`). */
  heap: string;
  /** The server's rows of each block before the damage: id and the row as COPY prints it. */
  byBlock: Map<number, Map<string, string>>;
  pages: number;
  report: Map<number, { damage: string; rows: ReportRows }>;
}
let made: Made;
let c: Cluster;

test.beforeAll(() => {
  ensurePgpage();
  c = Cluster.create('pgpage-torn', 16);
  c.sql(`create extension pageinspect; create extension amcheck;
    create table t (id int primary key, note text not null, n int) with (autovacuum_enabled = off);
    insert into t select g, repeat(chr(97 + g % 26), 100) || lpad(g::text, 6, '0'), 0 from generate_series(1, 600) g;
    checkpoint;`);
  const old = Buffer.from(c.sql(`select encode(get_raw_page('t', ${TORN}), 'hex');`).trim(), 'hex');
  // The first four rows of the block go; VACUUM compacts the page (tuples move), three rows
  // are updated in place (HOT, into the space the VACUUM freed).
  c.sql(`delete from t where ctid in ('(${TORN},1)', '(${TORN},2)', '(${TORN},3)', '(${TORN},4)');
    vacuum t;
    update t set n = n + 1 where ctid in ('(${TORN},5)', '(${TORN},9)', '(${TORN},20)');
    checkpoint;`);
  const rows = c.rows<{ b: number; id: number; line: string }>(`select (ctid::text::point)[0]::int as b, id, format('%s,%s,%s', id, note, n) as line from t`);
  const byBlock = new Map<number, Map<string, string>>();
  for (const r of rows) byBlock.set(r.b, (byBlock.get(r.b) ?? new Map<string, string>()).set(String(r.id), r.line));
  const pages = Number(c.sql("select pg_relation_size('t') / 8192;").trim());
  const heapAbs = c.relationPath('t');
  c.stop();
  const dir = join(out, 'dmg');
  cpSync(c.dataDir, dir, { recursive: true, filter: (src) => !/postmaster\.pid$/.test(src) });
  const heap = relative(c.dataDir, heapAbs);
  const file = readFileSync(join(dir, heap));
  old.subarray(TORN_FROM * SECTOR).copy(file, TORN * BS + TORN_FROM * SECTOR);
  file.fill(0, ZEROED * BS, (ZEROED + 1) * BS);
  // The last byte of item 1's note (bufpage.h: line pointers after the 24-byte header).
  const p = file.subarray(FLIPPED * BS, (FLIPPED + 1) * BS);
  const lp = p.readUInt32LE(24);
  p[(lp & 0x7fff) + (lp >>> 17) - 1] ^= 4;
  writeFileSync(join(dir, heap), file);
  const r = pgpage(['report', '--json', dir]);
  const json = JSON.parse(r.stdout) as { relations: { relation: string; blocks: { block: number; damage: string; rows: ReportRows }[] }[] };
  const report = new Map(json.relations.find((x) => x.relation === 'public.t')!.blocks.map((b) => [b.block, b] as const));
  made = { dir, heap, byBlock, pages, report };
  expect(report.get(TORN)?.damage, r.stdout).toBe('torn');
  expect(report.get(ZEROED)?.damage).toBe('zeroed');
  // The report counts the zeroed page's rows lost, as many as the server had there.
  expect(report.get(ZEROED)?.rows.lost).toBe(byBlock.get(ZEROED)!.size);
});

test.afterAll(() => c?.destroy());

const rowsOn = (b: number) => made.byBlock.get(b)?.size ?? 0;
const en = (n: number) => n.toLocaleString('en-US');

async function drop(page: Page): Promise<void> {
  await page.getByTestId('folder-input').setInputFiles(made.dir);
  await expect(page.getByTestId('incident-report')).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
}

async function openBlock(page: Page, block: number): Promise<void> {
  await page.locator(`[data-testid=finding][data-block="${block}"] button.finding-open`).first().click();
  await expect(page.locator(`[data-testid=page-view][data-block="${block}"]`)).toHaveAttribute('data-status', /./);
}

for (const [width, height] of SIZES) {
  test.describe(`at ${width}x${height}`, () => {
    test.use({ viewport: { width, height } });

    test('the landing page shows no empty checksum inventory', async ({ page }) => {
      await page.goto('/');
      await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'idle');
      await expect(page.getByTestId('summary')).toBeHidden();
      await expect(page.locator('body')).not.toContainText('No files yet');
      await expect(page.getByText('Checksum inventory')).toBeHidden();
    });

    test('the Rows view: pages left out, their rows as the core reads them, rows lost as the report counts', async ({ page }) => {
      test.setTimeout(300_000);
      await page.goto('/');
      await drop(page);
      await openBlock(page, TORN);
      const rows = page.getByTestId('rows-view');
      await rows.getByTestId('rows-open').click();
      await expect(rows).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
      const damaged = [TORN, ZEROED, FLIPPED];
      let given = 0;
      for (const [b, m] of made.byBlock) if (!damaged.includes(b)) given += m.size;
      const torn = made.report.get(TORN)!.rows;
      // What 'Rows of damaged pages' reads: the flipped page's rows and the torn page's
      // readable ones; lost: the zeroed page's rows and the rows the tear took.
      const readable = rowsOn(FLIPPED) + torn.readable!;
      const lost = `${made.report.get(ZEROED)!.rows.upper_bound || torn.upper_bound ? 'up to ' : ''}${rowsOn(ZEROED) + torn.lost!}`;
      expect(torn.readable! + torn.lost!, 'the torn page counts every row it had').toBe(rowsOn(TORN));
      const words = `${en(given)} rows from ${made.pages - 3} of ${made.pages} pages; 3 pages left out (their rows: 'Rows of damaged pages' reads ${readable} of them; ${lost} rows lost, as the incident report counts)`;
      await expect(rows.getByTestId('rows-progress')).toHaveText(words);
      await expect(rows).toHaveAttribute('data-rows', String(given));
      await expect(rows.getByTestId('rows-salvage')).toContainText('pages left out: 3');
      await rows.getByTestId('rows-progress').scrollIntoViewIfNeeded();
      await page.screenshot({ path: test.info().outputPath('rows.png') });

      await rows.getByTestId('rows-include-damaged').check();
      await expect(rows).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
      await expect(rows).toHaveAttribute('data-rows', String(given + readable));
      await expect(rows.getByTestId('rows-progress')).toHaveText(
        `${en(given + readable)} rows from ${made.pages - 1} of ${made.pages} pages; 1 page left out (their rows: ${lost} rows lost, as the incident report counts)`,
      );
      const box = await rows.getByTestId('rows-progress').boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(width);
      // The rows themselves are the CLI's: the torn page read through what the report found
      // of its older write, the flipped value as stored.
      const cli = pgpage(['rows', '--include-damaged', '--database', 'postgres', made.dir, 'public.t']);
      expect(cli.stdout.split('\n').length - 1).toBe(given + readable);
      const download = page.waitForEvent('download');
      await rows.getByTestId('rows-export-csv').click();
      expect(readFileSync(await (await download).path(), 'utf8')).toBe(cli.stdout);
      // The flipped value is printed as stored, and said so, with the report's flip back.
      // Item 1's last byte is the high byte of n (0, little-endian): bit 2 of it makes 4 << 24.
      const suspect = `column n printed as stored, "${4 << 24}"; a flipped bit probably changed it: flipped back it reads "0"`;
      expect(cli.stderr).toContain(suspect);
      await expect(rows.getByTestId('rows-salvage')).toContainText(suspect);
    });

    test('the torn page: no bit flips, pgpage labels its own finding once, the Repair kit rebuilds it as repair --torn does', async ({ page }) => {
      test.setTimeout(300_000);
      await page.goto('/');
      await drop(page);
      await openBlock(page, TORN);
      const view = page.getByTestId('page-view');
      // pgpage's check, not amcheck's: labelled so, one line for every line pointer it names.
      const torn = view.locator('[data-testid=page-findings] li[data-code=torn_sectors]');
      await expect(torn).toHaveCount(1);
      await expect(torn).toContainText(/^pgpage: each of line pointers [\d, -]+: this line pointer's tuple lies in 512-byte sectors/);
      // amcheck's own findings (verify_heapam's words) keep its name; none of pgpage's does.
      for (const li of await view.locator('[data-testid=page-findings] li[data-amcheck=true]').all()) {
        const checker = await li.getAttribute('data-checker');
        expect(['amcheck', 'pgpage', 'server']).toContain(checker);
        await expect(li).toHaveText(new RegExp(`^${checker}: `));
      }
      const box = await view.locator('[data-testid=page-findings]').boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(width);
      await expect(page.getByTestId('bitflips')).toHaveCount(0);
      await expect(page.getByTestId('advice-flips')).toHaveCount(0);
      await expect(page.getByTestId('bitflips-skipped')).toContainText('torn');
      await view.getByTestId('page-findings').scrollIntoViewIfNeeded();
      await page.screenshot({ path: test.info().outputPath('findings.png') });
      // Above the dump nothing is a blank band: the hover line's room holds its words until a
      // byte is pointed at, and the note on the dump's width (on a phone) or the dump follows.
      const hint = width < 500 ? page.getByTestId('hex-scroll-hint') : page.getByTestId('hexview');
      const band = await hint.evaluate((hint) => {
        const hover = document.querySelector('[data-testid=page-view] [data-testid=hover]')!;
        const range = document.createRange();
        range.selectNodeContents(hover);
        const words = range.getBoundingClientRect();
        return { words: words.height, gap: hint.getBoundingClientRect().top - words.bottom };
      });
      expect(band.words, 'the hover line says what it is for').toBeGreaterThan(10);
      expect(band.gap, 'no blank band above the dump').toBeLessThan(40);
      await page.getByTestId('hover').scrollIntoViewIfNeeded();
      await page.screenshot({ path: test.info().outputPath('hex.png') });

      const rebuild = page.getByTestId('kit-add-torn');
      await expect(rebuild).toHaveText('Rebuild the torn page (as pgpage repair --torn)');
      await rebuild.click();
      await expect(page.locator(`[data-testid=kit-pages] li[data-block="${TORN}"]`)).toContainText('pgpage repair --torn');
      await page.getByTestId('repair-kit').scrollIntoViewIfNeeded();
      await page.screenshot({ path: test.info().outputPath('kit.png') });
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('repair-download').click()]);
      const got = join(out, `browser-${width}`);
      await download.saveAs(got);
      const cli = join(out, `cli-${width}`);
      const r = pgpage(['repair', '--torn', '--block', String(TORN), '--out', cli, join(made.dir, made.heap)]);
      expect(r.status, r.stderr).toBe(0);
      const block = (f: string) => readFileSync(f).subarray(TORN * BS, (TORN + 1) * BS);
      expect(Buffer.compare(block(got), block(cli)), 'the browser rebuilds the page byte for byte as the CLI does').toBe(0);

      // The server on the clean directory with the rebuilt page in place: amcheck finds
      // nothing, and it reads the torn page's readable rows as they were.
      const heapAbs = join(c.dataDir, made.heap);
      const clean = readFileSync(heapAbs);
      const withPage = Buffer.from(clean);
      block(got).copy(withPage, TORN * BS);
      writeFileSync(heapAbs, withPage);
      c.start();
      try {
        expect(c.sql("select count(*) from verify_heapam('t');").trim()).toBe('0');
        const now = c.rows<{ id: number; line: string }>(
          `select id, format('%s,%s,%s', id, note, n) as line from t where (ctid::text::point)[0] = ${TORN} order by id`,
        );
        const lostKeys = new Set((made.report.get(TORN)!.rows.keys ?? []).map((k) => k[0]));
        const expected = [...made.byBlock.get(TORN)!].filter(([id]) => !lostKeys.has(id)).map(([, line]) => line);
        expect(now.map((x) => x.line).sort()).toEqual(expected.sort());
        expect(now.length).toBe(made.report.get(TORN)!.rows.readable);
      } finally {
        c.stop();
        writeFileSync(heapAbs, clean);
      }

      // The Rows view reads the staged page in place of the torn one, and says so: the torn
      // page's readable rows are given, and it is no longer left out.
      const rows = page.getByTestId('rows-view');
      await rows.getByTestId('rows-open').click();
      await expect(rows).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
      let given = 0;
      for (const [b, m] of made.byBlock) if (b !== ZEROED && b !== FLIPPED) given += b === TORN ? made.report.get(TORN)!.rows.readable! : m.size;
      await expect(rows).toHaveAttribute('data-rows', String(given));
      const progress = rows.getByTestId('rows-progress');
      await expect(progress).toContainText(`${en(given)} rows from ${made.pages - 2} of ${made.pages} pages; 2 pages left out`);
      await expect(progress).toContainText(`; block ${TORN} of ${made.heap.split('/').pop()} read as staged in the Repair kit, not as on disk`);
      await progress.scrollIntoViewIfNeeded();
      await page.screenshot({ path: test.info().outputPath('staged.png') });
    });
  });
}
