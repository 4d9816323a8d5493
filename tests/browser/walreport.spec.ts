// The fifth review's browser findings on a real PostgreSQL 16 data directory dropped whole,
// pg_wal/ included: public.orders had rows of blocks 5, 10 and 20 updated after a checkpoint
// (HOT, each block's full-page image in the WAL), then block 5 was zeroed, block 10
// overwritten, one bit of block 20 flipped and one of the primary key's first leaf. At
// 1440x900 and 390x844: the incident report is `pgpage report --wal DIR/pg_wal DIR` (its
// Markdown byte for byte, each block's image at the LSN pg_walinspect gives, in the CLI's
// block order) and opens the block's rebuild from WAL; the steps' commands are code that ends
// where the command ends; the server's WARNING and ERROR are two lines; the rows panel counts
// the pages its rows came from; the problem count is never 0 while verifying; the zeroed page
// is loud in the page map; the landing page says what a drop gives.
import { expect, test, type Page } from './test';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Cluster } from '../pg/cluster';
import { makeDir } from './files';

const BS = 8192;
const CLI = fileURLToPath(new URL('../../crates/target/release/pgpage', import.meta.url));
const [ZEROED, NOISE, FLIPPED] = [5, 10, 20];
const out = makeDir();

interface ReportBlockJson {
  block: number;
  block_in_file: number;
  file: string;
  server: string | null;
  /** The one way the steps recommend for the block. */
  route: string;
  wal_image?: { lsn: string; later: { lsn: string; record: string }[] };
}
interface Made {
  heap: string;
  pages: number;
  /** pg_walinspect's newest full-page image of each damaged heap block. */
  images: Map<number, string>;
  markdown: string;
  text: string;
  json: { relations: { relation: string | null; blocks: ReportBlockJson[] }[] };
  /** The pages `pgpage rows` leaves out whole or finds zeroed between pages with rows. */
  rowsLost: number;
}
let made: Made;

const lsnValue = (lsn: string): bigint => {
  const [hi, lo] = lsn.split('/');
  return (BigInt(`0x${hi}`) << 32n) | BigInt(`0x${lo}`);
};

test.beforeAll(() => {
  expect(existsSync(CLI), `${CLI} is missing: cargo build --release -p pgpage-cli`).toBe(true);
  const c = Cluster.create('pgpage-walreport', 16);
  try {
    c.sql(`create extension pg_walinspect;
      create table orders (id int primary key, note text) with (fillfactor = 90, autovacuum_enabled = off);
      insert into orders select g, repeat('n', 100) || g from generate_series(1, 3000) g;
      select count(*) from orders;
      checkpoint;`);
    const start = c.sql('select pg_current_wal_insert_lsn();').trim();
    // The hint bits were set before the checkpoint: only these HOT updates log images.
    c.sql(`update orders set note = note || '!' where (ctid::text::point)[0] in (${ZEROED}, ${NOISE}, ${FLIPPED}) and id % 20 = 0;`);
    const end = c.sql('select pg_current_wal_insert_lsn();').trim();
    const info = c.rows<{ start_lsn: string; b: number }>(
      `select start_lsn::text, relblocknumber::int as b from pg_get_wal_block_info('${start}', '${end}', false)
        where relfilenode = pg_relation_filenode('orders') and relforknumber = 0 and block_fpi_length > 0 order by start_lsn`,
    );
    const images = new Map<number, string>();
    for (const r of info) images.set(r.b, r.start_lsn);
    expect([...images.keys()].sort((a, b) => a - b)).toEqual([ZEROED, NOISE, FLIPPED]);
    const pages = Number(c.sql("select pg_relation_size('orders') / 8192;").trim());
    expect(pages).toBeGreaterThan(FLIPPED + 1);
    const heapAbs = c.relationPath('orders');
    const indexAbs = c.relationPath('orders_pkey');
    c.stop();

    const bad = join(out, 'dmg');
    cpSync(c.dataDir, bad, { recursive: true, filter: (src) => !/postmaster\.pid$/.test(src) });
    const heap = relative(c.dataDir, heapAbs);
    const file = readFileSync(join(bad, heap));
    file.fill(0, ZEROED * BS, (ZEROED + 1) * BS);
    randomBytes(BS).copy(file, NOISE * BS);
    // Item 1's last byte, bit 0 ('n' or a digit, changed).
    const p = file.subarray(FLIPPED * BS, (FLIPPED + 1) * BS);
    const lp = p.readUInt32LE(24);
    p[(lp & 0x7fff) + (lp >>> 17) - 1] ^= 1;
    writeFileSync(join(bad, heap), file);
    // And one bit of a key in the primary key's first leaf: the steps end on its REINDEX.
    const index = readFileSync(join(bad, relative(c.dataDir, indexAbs)));
    index[BS + BS - 100] ^= 0x10;
    writeFileSync(join(bad, relative(c.dataDir, indexAbs)), index);

    // The CLI from the directory's parent, so that it names the directory as the browser does.
    const cli = (args: string[]) => {
      const r = spawnSync(CLI, args, { cwd: out, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(1);
      return r;
    };
    const markdown = cli(['report', '--markdown', '--wal', 'dmg/pg_wal', 'dmg']).stdout;
    const text = cli(['report', '--wal', 'dmg/pg_wal', 'dmg']).stdout;
    const json = JSON.parse(cli(['report', '--json', '--wal', 'dmg/pg_wal', 'dmg']).stdout) as Made['json'];
    // Its warnings name each page it leaves out whole (or finds zeroed), one line a page.
    const rows = cli(['rows', '--database', 'postgres', 'dmg', 'public.orders']);
    const rowsLost = rows.stderr.split('\n').filter((l) => l.startsWith(`pgpage: warning: file "dmg/${heap}", block `)).length;
    expect(rowsLost).toBe(3);
    made = { heap, pages, images, markdown, text, json, rowsLost };
  } finally {
    c.destroy();
  }
});

/** Every text the problem list's heading showed while the inventory was verifying. */
async function recordHeadings(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { headings: string[] };
    w.headings = [];
    new MutationObserver(() => {
      const h = document.querySelector('[data-testid=problems-heading]');
      const state = document.querySelector('[data-testid=summary]')?.getAttribute('data-state');
      if (h && state === 'running') w.headings.push(h.textContent ?? '');
    }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
  });
}

async function drop(page: Page): Promise<void> {
  await page.getByTestId('folder-input').setInputFiles(join(out, 'dmg'));
  await expect(page.getByTestId('incident-report')).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
}

for (const size of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  test.describe(`at ${size.width}x${size.height}`, () => {
    test.use({ viewport: size });

    test("the report with the dropped pg_wal is the CLI's report --wal, and opens the rebuild from WAL", async ({ page }) => {
      await recordHeadings(page);
      await page.goto('/');
      // Before a drop: what a drop gives, the report first.
      const what = page.getByTestId('drop-what');
      await expect(what).toBeInViewport();
      const words = (await what.textContent())!;
      expect(words.indexOf('incident report')).toBeGreaterThanOrEqual(0);
      expect(words.indexOf('incident report')).toBeLessThan(words.indexOf('every page'));

      await drop(page);
      await expect(what).toHaveCount(0);
      // While verifying, the heading never said a count of 0.
      const headings = await page.evaluate(() => (window as unknown as { headings: string[] }).headings);
      expect(headings.length, 'the heading was seen while verifying').toBeGreaterThan(0);
      expect(headings.filter((h) => /\(0\)/.test(h))).toEqual([]);
      expect(headings.every((h) => h.includes('still verifying'))).toBe(true);

      // The Markdown is the CLI's with --wal.
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('report-markdown').click()]);
      expect(readFileSync(await download.path(), 'utf8')).toBe(made.markdown);

      // Blocks in the order of the CLI's text.
      const textOrder = [...made.text.matchAll(/^ {4}block (\d+): /gm)].map((m) => m[1]);
      expect(textOrder.length).toBeGreaterThanOrEqual(3);
      const webOrder = await page.locator('[data-testid=finding]:not([data-severity=note])').evaluateAll((els) => els.map((e) => e.getAttribute('data-block')));
      expect(webOrder).toEqual(textOrder);

      // Each damaged heap block: its image at pg_walinspect's LSN, as the CLI's JSON says.
      const heapBlocks = made.json.relations.flatMap((r) => r.blocks).filter((b) => b.file === made.heap);
      for (const n of [ZEROED, NOISE, FLIPPED]) {
        const b = heapBlocks.find((x) => x.block === n)!;
        expect(lsnValue(b.wal_image!.lsn)).toBe(lsnValue(made.images.get(n)!));
        const finding = page.locator(`[data-testid=finding][data-file="${made.heap}"][data-block="${n}"]`);
        await expect(finding.getByTestId('finding-wal')).toHaveAttribute('data-lsn', b.wal_image!.lsn);
        await expect(finding.getByTestId('finding-wal')).toHaveAttribute('data-records-after', String(b.wal_image!.later.length));
        for (const l of b.wal_image!.later) await expect(finding.getByTestId('finding-wal')).toContainText(`${l.lsn} ${l.record}`);
      }

      // The server's lines, one a line, as its log prints them, under the finding's fold.
      const noise = heapBlocks.find((x) => x.block === NOISE)!;
      const why = page.locator(`[data-testid=finding][data-block="${NOISE}"] [data-testid=finding-why]`);
      await expect(why).not.toHaveAttribute('open');
      await why.locator('summary').click();
      await expect(why).toHaveAttribute('open', '');
      const said = page.locator(`[data-testid=finding][data-block="${NOISE}"] [data-testid=server-says]`);
      expect((await said.innerText()).split('\n')).toEqual(noise.server!.split('\n'));
      expect(noise.server!.split('\n')).toHaveLength(2);

      // The steps: every command line the CLI prints, as code, and no full stop glued to one.
      await expect(page.locator('details.steps')).toHaveAttribute('open', '');
      const steps = page.getByTestId('report-steps');
      const cliCommands = [...made.text.matchAll(/^ {7,}((?:pgpage|REINDEX) .*)$/gm)].map((m) => m[1].trim());
      const webCommands = (await steps.getByTestId('step-command').allTextContents()).map((t) => t.trim());
      expect(webCommands.length).toBeGreaterThan(0);
      for (const c of webCommands) expect(made.text).toContain(c);
      for (const c of cliCommands) expect(webCommands).toContain(c);
      for (const code of await steps.locator('code').allTextContents()) expect(code).not.toMatch(/\.$/);
      const stepTexts = await steps.getByTestId('report-step').allTextContents();
      for (const t of stepTexts) {
        expect(t).not.toMatch(/dmg\/base\/\d+\/\d+\.(\s|$)/);
        expect(t).not.toMatch(/REINDEX INDEX [\w.]+\.(\s|$)/);
      }
      // The statement the index's step ends on, as code.
      expect(await steps.locator('code').allTextContents()).toContain('REINDEX INDEX public.orders_pkey');
      // The in-app way beside the shell's: one button a block whose one route, in the CLI's
      // JSON, is the WAL (replayed with pgpage recover, or its image alone), each under the
      // step of that route and no other.
      const fromWal = made.json.relations.flatMap((r) => r.blocks).filter((b) => b.route === 'recover');
      const inApp = steps.getByTestId('step-wal-open');
      await expect(inApp).toHaveCount(fromWal.length);
      await expect(inApp).toHaveCount(3);
      for (const b of fromWal) {
        const step = steps.getByTestId('report-step').filter({ has: page.locator(`[data-testid=step-wal-open][data-block="${b.block_in_file}"]`) });
        await expect(step).toHaveCount(1);
        await expect(step.getByTestId('step-command').first()).toContainText(b.route === 'recover' ? 'pgpage recover ' : 'pgpage fpi ');
      }

      // The zeroed block changed after its image (more than one of its rows was updated): its
      // finding opens the page view at the rebuild from WAL, in sight, not at the image alone.
      const zeroed = heapBlocks.find((x) => x.block === ZEROED)!;
      expect(zeroed.wal_image!.later.length).toBeGreaterThan(0);
      await page.locator(`[data-testid=finding][data-block="${ZEROED}"] [data-testid=finding-wal-open]`).click();
      await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', String(ZEROED));
      await expect(page.getByTestId('wal-image')).toHaveAttribute('data-lsn', zeroed.wal_image!.lsn, { timeout: 60_000 });
      const take = page.getByTestId('wal-rebuild-take');
      await expect(take).toBeInViewport();
      await expect(take).toBeFocused();

      expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    });

    test('the rows panel counts the pages its rows came from; the zeroed page is as loud as damage in the map', async ({ page }) => {
      await page.goto('/');
      await drop(page);
      await page.locator(`[data-testid=finding][data-block="${NOISE}"] button.finding-open`).click();
      await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', String(NOISE));

      // The map: the zeroed page's cell is filled as the overwritten page's is, where the
      // two are not the middle of the cell.
      const map = page.getByTestId('pagemap');
      await map.scrollIntoViewIfNeeded();
      const cols = Number(await map.getAttribute('data-cols'));
      const colours = await map.evaluate(
        (c: HTMLCanvasElement, a: { cols: number; blocks: number[] }) => {
          const cell = c.width / a.cols;
          const ctx = c.getContext('2d')!;
          return a.blocks.map((b) =>
            Array.from(
              ctx.getImageData(Math.floor((b % a.cols) * cell + cell / 4), Math.floor(Math.floor(b / a.cols) * cell + cell / 4), 1, 1).data.slice(0, 3),
            ).join(','),
          );
        },
        { cols, blocks: [ZEROED, NOISE, 0] },
      );
      expect(colours[0]).toBe(colours[1]);
      expect(colours[0]).not.toBe(colours[2]);
      const swatch = (sel: string) =>
        page
          .locator(sel)
          .first()
          .evaluate((e) => getComputedStyle(e).backgroundColor);
      expect(await swatch('[data-testid=legend-zero-note] .swatch')).toBe(await swatch('.legend .swatch.status-mismatch'));

      const view = page.getByTestId('rows-view');
      await view.getByTestId('rows-open').click();
      await expect(view).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
      await expect(view.getByTestId('rows-progress')).toContainText(
        `rows from ${made.pages - made.rowsLost} of ${made.pages} pages; ${made.rowsLost} pages left out`,
      );
    });
  });
}
