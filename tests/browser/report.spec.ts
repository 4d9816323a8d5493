// The incident report is the first screen after a drop, and it is the CLI's: a PostgreSQL 16
// data directory whose table (a primary key, ~100 pages) has one block zeroed, one
// overwritten with random bytes and one bit flipped in tuple data is dropped as a folder; the
// findings come in `pgpage report --json`'s rank order with its attributes, the zeroed
// block's lost keys are the ones the server held at that block's TIDs, the flipped value is
// the one the server stored, the Markdown download is `pgpage report --markdown`, and a
// finding opens its page in the page view. At 1440x900 and at 390x844.
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
const out = makeDir();
const [ZEROED, NOISE, FLIPPED] = [40, 60, 80];

interface Block {
  block: number;
  file: string;
  block_in_file: number;
  severity: 'error' | 'warning' | 'note';
  damage: string;
  bit_flips?: { item?: number; column?: string; stored?: string; flipped?: string }[];
  rows?: { lost: number | null; readable: number | null; known_from: string; index?: string; keys?: (string | null)[][] };
}
interface Made {
  bad: string;
  clean: string;
  cleanJson: { verdict: string; relations: unknown[] };
  heap: string;
  pages: number;
  /** The primary key's keys at the zeroed block's TIDs, on the undamaged cluster. */
  zeroedKeys: string[];
  /** The note the server stored in item 1 of the flipped block, and its id. */
  flippedNote: string;
  json: { verdict: string; relations: { relation: string | null; blocks: Block[] }[]; notes: { code: string; count: number }[] };
  markdown: string;
  /** `pgpage report --summary` of the same files. */
  summary: string;
  /** `pgpage report --markdown --redact` of the same files. */
  redacted: string;
}
let made: Made;

test.beforeAll(() => {
  expect(existsSync(CLI), `${CLI} is missing: cargo build --release -p pgpage-cli`).toBe(true);
  const c = Cluster.create('pgpage-report-web', 16);
  try {
    c.sql(`create table orders (id int primary key, note text not null) with (autovacuum_enabled = off);
      insert into orders select g, 'note-' || lpad(g::text, 6, '0') || '-Juliet' from generate_series(1, 14000) g;
      checkpoint;`);
    const pages = Number(c.sql("select pg_relation_size('orders') / 8192;").trim());
    expect(pages).toBeGreaterThan(FLIPPED);
    // What the primary key holds for the zeroed block: its entries whose heap TID is there.
    c.sql('create extension pageinspect;');
    const zeroedKeys = c
      .rows<{ id: number }>(
        `select (select o.id from orders o where o.ctid = e.htid) as id
           from generate_series(1, pg_relation_size('orders_pkey') / 8192 - 1) b,
                lateral bt_page_items('orders_pkey', b::int) e
          where (bt_page_stats('orders_pkey', b::int)).type = 'l' and e.htid is not null
            and (e.htid::text::point)[0] = ${ZEROED}
          order by 1`,
      )
      .map((r) => String(r.id));
    expect(zeroedKeys.length).toBeGreaterThan(50);
    const flippedNote = c.sql(`select note from orders where ctid = '(${FLIPPED},1)';`).trim();
    const heapAbs = c.relationPath('orders');
    c.stop();

    const copy = (to: string) => cpSync(c.dataDir, to, { recursive: true, filter: (src) => !/\/pg_wal\/.|postmaster\.pid$/.test(src) });
    const clean = join(out, 'clean');
    copy(clean);
    const bad = join(out, 'bad');
    copy(bad);
    const heap = relative(c.dataDir, heapAbs);
    const file = readFileSync(join(bad, heap));
    file.fill(0, ZEROED * BS, (ZEROED + 1) * BS);
    randomBytes(BS).copy(file, NOISE * BS);
    // Item 1's note: past the tuple header (t_hoff), the int4 id and the text's 1-byte
    // varlena header, bit 5 of its first letter ('n' -> 'N').
    const p = file.subarray(FLIPPED * BS, (FLIPPED + 1) * BS);
    const lpOff = p.readUInt32LE(24) & 0x7fff;
    const at = lpOff + p[lpOff + 22] + 4 + 1;
    expect(String.fromCharCode(p[at])).toBe(flippedNote[0]);
    p[at] ^= 0x20;
    writeFileSync(join(bad, heap), file);

    // The CLI from the directory's parent, so that it names the directory as the browser does.
    const json = spawnSync(CLI, ['report', '--json', 'bad'], { cwd: out, encoding: 'utf8' });
    expect(json.status, json.stderr).toBe(1);
    const md = spawnSync(CLI, ['report', '--markdown', 'bad'], { cwd: out, encoding: 'utf8' });
    expect(md.status, md.stderr).toBe(1);
    const redacted = spawnSync(CLI, ['report', '--markdown', '--redact', 'bad'], { cwd: out, encoding: 'utf8' });
    expect(redacted.status, redacted.stderr).toBe(1);
    const summary = spawnSync(CLI, ['report', '--summary', 'bad'], { cwd: out, encoding: 'utf8' });
    expect(summary.status, summary.stderr).toBe(1);
    const cleanJson = spawnSync(CLI, ['report', '--json', 'clean'], { cwd: out, encoding: 'utf8' });
    expect(cleanJson.status, cleanJson.stderr).toBe(0);
    made = {
      bad,
      clean,
      cleanJson: JSON.parse(cleanJson.stdout) as Made['cleanJson'],
      heap,
      pages,
      zeroedKeys,
      flippedNote,
      json: JSON.parse(json.stdout) as Made['json'],
      markdown: md.stdout,
      redacted: redacted.stdout,
      summary: summary.stdout,
    };
  } finally {
    c.destroy();
  }
});

const RANK = { error: 0, warning: 1, note: 2 } as const;

async function drop(page: Page): Promise<void> {
  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(made.bad);
  await expect(page.getByTestId('incident-report')).toHaveAttribute('data-state', 'done', { timeout: 90_000 });
}

for (const size of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  test.describe(`at ${size.width}x${size.height}`, () => {
    test.use({ viewport: size });

    test("the report of a damaged data directory: the CLI's findings, the server's keys, its Markdown, and a finding opens its page", async ({ page }) => {
      await drop(page);
      const report = page.getByTestId('incident-report');
      await expect(report).toBeInViewport();
      await expect(page.getByTestId('report-verdict')).toHaveText(made.json.verdict);

      // The CLI's blocks: the three damaged ones, each its class, errors.
      const blocks = made.json.relations.flatMap((r) => r.blocks);
      const of = (n: number) => blocks.find((b) => b.file === made.heap && b.block === n);
      expect(of(ZEROED)).toMatchObject({ damage: 'zeroed', severity: 'error' });
      expect(of(NOISE)).toMatchObject({ damage: 'overwritten', severity: 'error' });
      expect(of(FLIPPED)?.damage).toBe('bit_flip');

      // The page's findings: the CLI's blocks worst first, then its notes, with their attributes.
      const expected = [
        ...[...blocks]
          .sort((a, b) => RANK[a.severity] - RANK[b.severity])
          .map((b) => ({ severity: b.severity, file: b.file, block: String(b.block_in_file), damage: b.damage })),
        ...made.json.notes.map(() => ({ severity: 'note', file: null, block: null, damage: null })),
      ];
      const findings = page.getByTestId('finding');
      await expect(findings).toHaveCount(expected.length);
      const shown = await findings.evaluateAll((els) =>
        els.map((e) => ({
          severity: e.getAttribute('data-severity'),
          file: e.getAttribute('data-file'),
          block: e.getAttribute('data-block'),
          damage: e.getAttribute('data-damage'),
        })),
      );
      expect(shown).toEqual(expected);
      // No note or warning before an error.
      const severities = shown.map((s) => RANK[s.severity as keyof typeof RANK]);
      expect(severities).toEqual([...severities].sort((a, b) => a - b));
      expect(severities[0]).toBe(RANK.error);

      // The zeroed block's lost rows: the primary key's keys the server held at its TIDs.
      const zeroed = page.locator(`[data-testid=finding][data-file="${made.heap}"][data-block="${ZEROED}"]`);
      await expect(zeroed.getByTestId('finding-rows')).toHaveAttribute('data-known-from', 'index');
      await expect(zeroed.getByTestId('finding-rows')).toHaveAttribute('data-lost', String(made.zeroedKeys.length));
      await expect(zeroed.getByTestId('lost-keys')).toHaveAttribute('data-index', 'public.orders_pkey');
      await expect(zeroed.getByTestId('lost-key-list')).toHaveText(made.zeroedKeys.join(', '));
      // The noise page's rows are never counted from its header.
      const noise = page.locator(`[data-testid=finding][data-file="${made.heap}"][data-block="${NOISE}"]`);
      await expect(noise.getByTestId('finding-rows')).not.toHaveAttribute('data-known-from', 'header');
      // The flipped bit: item 1's note, stored with its first letter's case flipped, and back.
      const flip = page.locator(`[data-testid=finding][data-file="${made.heap}"][data-block="${FLIPPED}"] [data-testid=bit-flip][data-column=note]`);
      await expect(flip).toHaveAttribute('data-item', '1');
      const stored = made.flippedNote.replace(/^./, (c) => c.toUpperCase());
      await expect(flip).toContainText(stored);
      await expect(flip).toContainText(made.flippedNote);

      // The Markdown download is the CLI's.
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('report-markdown').click()]);
      expect(download.suggestedFilename()).toBe('public.orders-report.md');
      expect(readFileSync(await download.path(), 'utf8')).toBe(made.markdown);
      // Redacted, it is the CLI's redacted report: no note of the rows, no lost key.
      await page.getByTestId('report-redact').check();
      const [hidden] = await Promise.all([page.waitForEvent('download'), page.getByTestId('report-markdown').click()]);
      const shared = readFileSync(await hidden.path(), 'utf8');
      expect(shared).toBe(made.redacted);
      expect(shared).not.toContain(made.flippedNote);
      const keyLines = made.markdown.split('\n').filter((l) => l.startsWith('- lost keys ('));
      expect(keyLines.length).toBeGreaterThan(0);
      for (const l of keyLines) expect(shared).not.toContain(l);
      await page.getByTestId('report-redact').uncheck();
      // The summary for a mailing list is the CLI's --summary, copied.
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
      await page.getByTestId('report-summary').click();
      await expect(page.getByTestId('report-summary-status')).toContainText('copied the summary');
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(made.summary);

      // The pgsql-bugs message: the version, pg_control's summary, the filled field, the evidence.
      await page.getByTestId('report-bugs').locator('summary').click();
      await page.locator('[data-testid=report-bugs] textarea[data-field=platform]').fill('Debian 12, x86_64');
      const [bugs] = await Promise.all([page.waitForEvent('download'), page.getByTestId('report-bugs-download').click()]);
      const message = readFileSync(await bugs.path(), 'utf8');
      expect(message).toContain('PostgreSQL major version: 16');
      expect(message).toContain('Platform: Debian 12, x86_64');
      expect(message).toMatch(/Database system identifier: +\d+/);
      expect(message).toContain(made.markdown.trimEnd());

      // To look at: PGPAGE_SHOTS=dir keeps the first screen and the whole report.
      if (process.env.PGPAGE_SHOTS) {
        await page.screenshot({ path: join(process.env.PGPAGE_SHOTS, `report-${size.width}.png`) });
        await report.screenshot({ path: join(process.env.PGPAGE_SHOTS, `report-${size.width}-whole.png`) });
      }

      // A finding opens its page in the page view, in sight.
      await zeroed.getByRole('button').first().click();
      const view = page.getByTestId('page-view');
      await expect(view).toHaveAttribute('data-block', String(ZEROED));
      await expect(view).toHaveAttribute('data-file', made.heap.split('/').pop()!);
      await expect(view).toBeInViewport();
    });
  });
}

test('another directory dropped while the report is read: the report under way is dropped and the new one is made, off the main thread', async ({ page }) => {
  await page.addInitScript(() => {
    const w = window as unknown as { longTasks: number[] };
    w.longTasks = [];
    new PerformanceObserver((l) => w.longTasks.push(...l.getEntries().map((e) => e.duration))).observe({ type: 'longtask', buffered: true });
  });
  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(made.bad);
  await expect(page.getByTestId('incident-report')).toHaveAttribute('data-state', 'running');
  await page.getByTestId('folder-input').setInputFiles(made.clean);
  await expect(page.getByTestId('incident-report')).toHaveAttribute('data-state', 'done', { timeout: 90_000 });
  // The clean copy's report: the CLI's verdict, nothing damaged, only routine notes.
  expect(made.cleanJson.relations).toEqual([]);
  await expect(page.getByTestId('report-verdict')).toHaveText(made.cleanJson.verdict);
  await expect(page.locator('[data-testid=finding]:not([data-severity=note])')).toHaveCount(0);
  const longTasks = await page.evaluate(() => (window as unknown as { longTasks: number[] }).longTasks);
  console.log(`main-thread tasks over 50 ms while two directories were dropped and reported: ${JSON.stringify(longTasks.map(Math.round))}`);
});
