// A damaged PostgreSQL 16 data directory as the third DBA review met it: table public.orders
// (a primary key) with heap block 5 zeroed, a torn block (its second half from a copy taken
// before HOT updates, so its line pointers meet older tuples), heap block 2 with an xmin past
// nextXid and its checksum made valid again (a page the server reads and amcheck faults), and
// the primary key's first leaf zeroed. The summary counts the index's zero page, which the
// server refuses ("unexpected zero page"), as a problem page wherever the report does; its
// amcheck sentence counts only pages the server reads, as many as it lists; the pgsql-bugs
// composer says first that storage damage belongs elsewhere; the torn page's view says each
// stale key and each amcheck finding once.
import { expect, test, type Page } from './test';
import { readFileSync, writeFileSync } from 'node:fs';
import { Cluster } from '../pg/cluster';
import { pgChecksumPage } from '../oracle/pgchecksum';

const BS = 8192;
const ZEROED = 5;
const XMIN_BLOCK = 2;

interface Made {
  dir: string;
  /** The torn heap block. */
  torn: number;
  /** The server's error for the primary key's zero leaf, and verify_heapam's for block 2. */
  btreeError: string;
  heapam: { blkno: number; offnum: number; msg: string }[];
}
let made: Made;
let cluster: Cluster;

const u32 = (p: Buffer, at: number) => p.readUInt32LE(at);
const lpOff = (p: Buffer, lp: number) => u32(p, 24 + (lp - 1) * 4) & 0x7fff;
const lpFlags = (p: Buffer, lp: number) => (u32(p, 24 + (lp - 1) * 4) >>> 15) & 3;
const seal = (file: Buffer, block: number) => {
  const page = file.subarray(block * BS, (block + 1) * BS);
  page.writeUInt16LE(pgChecksumPage(page, block), 8);
};

test.beforeAll(() => {
  const c = Cluster.create('pgpage-refused', 16);
  cluster = c;
  c.sql(`create extension amcheck;
    create table orders (id int primary key, customer text, amount numeric, note text) with (autovacuum_enabled = off);
    insert into orders select g, 'cust-' || (g % 97), g * 1.5, 'note-' || lpad(g::text, 6, '0') || '-xxxxxxxxxxxxxxxxxxxx' from generate_series(1, 6000) g;
    update orders set amount = amount + 1 where id % 10 = 0;
    vacuum orders;
    checkpoint;`);
  const heapPath = c.relationPath('orders');
  const indexPath = c.relationPath('orders_pkey');
  c.stop();
  const before = readFileSync(heapPath);
  c.start();
  c.sql(`update orders set note = note || '!' where id between 1000 and 1100;
    update orders set customer = 'moved-' || id where id between 2000 and 2020;
    checkpoint;`);
  const next = Number(c.sql('select next_xid from pg_control_checkpoint();').trim().split(':')[1]);
  c.stop();
  const heap = readFileSync(heapPath);
  // Block 2: its first normal tuple's xmin past nextXid, the checksum made valid again.
  const hp = heap.subarray(XMIN_BLOCK * BS, (XMIN_BLOCK + 1) * BS);
  const lp = Array.from({ length: (hp.readUInt16LE(12) - 24) / 4 }, (_, i) => i + 1).find((n) => lpFlags(hp, n) === 1)!;
  hp.writeUInt32LE(next + 1000, lpOff(hp, lp));
  seal(heap, XMIN_BLOCK);
  writeFileSync(heapPath, heap);
  // What amcheck says of block 2, the server reading the same bytes.
  c.start();
  const heapam = c.rows<Made['heapam'][number]>("select blkno::int, offnum::int, msg from verify_heapam('orders')");
  c.stop();
  expect(heapam.length, 'verify_heapam finds the xmin').toBeGreaterThan(0);
  // A torn block: the first whose second half the updates changed, that half from before them.
  const blocks = heap.length / BS;
  const torn = Array.from({ length: blocks }, (_, b) => b).find(
    (b) => b !== ZEROED && b !== XMIN_BLOCK && !heap.subarray(b * BS + BS / 2, (b + 1) * BS).equals(before.subarray(b * BS + BS / 2, (b + 1) * BS)),
  )!;
  expect(torn, 'the updates changed the second half of some block').toBeDefined();
  before.copy(heap, torn * BS + BS / 2, torn * BS + BS / 2, (torn + 1) * BS);
  heap.fill(0, ZEROED * BS, (ZEROED + 1) * BS);
  writeFileSync(heapPath, heap);
  const index = readFileSync(indexPath);
  const leaf = index.subarray(BS, 2 * BS);
  expect(leaf.readUInt16LE(leaf.readUInt16LE(16) + 12) & 1, 'block 1 of orders_pkey is a leaf').toBe(1);
  index.fill(0, BS, 2 * BS);
  writeFileSync(indexPath, index);
  // The server's own words for the zero leaf.
  c.start();
  const r = c.psqlRaw("select bt_index_check('orders_pkey');");
  c.stop();
  const btreeError = /ERROR: {2}(.*)/.exec(r.stderr)?.[1] ?? r.stderr;
  expect(btreeError).toContain('contains unexpected zero page at block 1');
  made = { dir: c.dataDir, torn, btreeError, heapam };
});

test.afterAll(() => cluster?.destroy());

async function drop(page: Page): Promise<void> {
  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(made.dir);
  await expect(page.getByTestId('incident-report')).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
}

test.use({ viewport: { width: 1440, height: 900 } });

test('the summary counts the pages the server refuses as the report does; amcheck counts only pages it reads; storage damage is not for pgsql-bugs', async ({
  page,
}) => {
  test.setTimeout(300_000);
  await drop(page);
  // The report: the torn heap block and the index's zero leaf (the zeroed heap block is read
  // as empty, and block 2 is read).
  const refused = Number(
    (await page.getByTestId('report-verdict').textContent())?.match(/^(\d+) pages? in \d+ relations? that the server refuses to read/)?.[1],
  );
  expect(refused).toBe(2);
  await expect(page.getByTestId('verdict')).toContainText(`${refused} problem pages in 2 files`);
  await expect(page.getByTestId('problem')).toHaveCount(refused);
  // The zero leaf is one of them, with the server's message.
  const leafRow = page.locator('[data-testid=problem][data-block="1"][data-status=zero]');
  await expect(leafRow).toHaveCount(1);
  await expect(leafRow.getByTestId('hint')).toContainText(made.btreeError);
  const pkey = page.locator('[data-testid=affected-relation][data-relation*="orders_pkey"]');
  await expect(pkey).toHaveAttribute('data-problems', '1');
  await expect(page.locator('[data-testid=affected-file][data-relation*="orders_pkey"]')).toHaveAttribute('data-problems', '1');

  // amcheck's sentence: the pages the server reads and no checksum faults, as many as listed
  // under it: block 2, as verify_heapam says.
  const sentence = page.getByTestId('verdict-amcheck');
  await expect(sentence).toHaveAttribute('data-pages', '1');
  const listed = page.locator('[data-testid=amcheck-findings] [data-testid=page-finding]');
  const pages = new Set(await listed.evaluateAll((rows) => rows.map((r) => `${r.getAttribute('data-path')}#${r.getAttribute('data-block')}`)));
  expect(pages.size).toBe(1);
  await expect(listed.first()).toHaveAttribute('data-relation-block', String(made.heapam[0].blkno));
  await expect(listed.first()).toContainText(made.heapam[0].msg);
  // The refused pages' findings are listed apart, never counted in that sentence.
  const apart = page.getByTestId('amcheck-findings-refused');
  await expect(apart).toBeVisible();
  // (The first few are shown; the rest a button away.)
  if ((await page.getByTestId('amcheck-refused-all').count()) > 0) await page.getByTestId('amcheck-refused-all').click();
  await expect(apart.locator('[data-testid=page-finding][data-block="1"]')).toHaveCount(1);

  // Storage damage: said before the pgsql-bugs composer, which stays.
  const storage = page.getByTestId('report-bugs-storage');
  await expect(storage).toBeVisible();
  await expect(storage).toContainText('pgsql-bugs is for bugs in PostgreSQL itself');
  await expect(storage).toContainText('pgsql-general@lists.postgresql.org');
  await expect(storage).toContainText('zeroed pages');
  await expect(page.getByTestId('report-bugs')).toHaveAttribute('data-storage-damage', 'true');
  await expect(page.getByTestId('report-bugs-download')).toHaveCount(1);
  await page.getByTestId('report-bugs-storage').screenshot({ path: test.info().outputPath('storage.png') });
});

test('the torn page says each stale key and each amcheck finding once', async ({ page }) => {
  test.setTimeout(300_000);
  await drop(page);
  const finding = page.locator(`[data-testid=finding][data-block="${made.torn}"]`);
  await expect(finding).toHaveCount(1);
  const count = (text: string, what: RegExp) => (text.match(what) ?? []).length;
  const reportText = (await finding.textContent()) ?? '';
  expect(count(reportText, /older versions? of (a )?rows? live elsewhere \(key /g), 'the stale keys listed once in the report').toBe(1);
  await finding.locator('button.finding-open').click();
  const view = page.locator(`[data-testid=page-view][data-block="${made.torn}"]`);
  await expect(view).toBeVisible();
  await expect(view.getByTestId('page-damage')).toBeVisible();
  const viewText = (await view.getByTestId('page-damage').textContent()) ?? '';
  expect(count(viewText, /older versions? of (a )?rows? live elsewhere \(key /g), 'the stale keys listed once in the page view').toBe(1);
  // Each amcheck finding once: in amcheck's list, with its line pointer's place, not again
  // among the decoder's problems.
  const amcheck = view.locator('[data-testid=page-findings] li[data-amcheck=true]');
  const n = await amcheck.count();
  expect(n, 'amcheck faults the torn page').toBeGreaterThan(0);
  const messages = await amcheck.allTextContents();
  const all = (await view.textContent()) ?? '';
  for (const m of messages) {
    const words = m.replace(/^amcheck: (offset \d+ \([^)]*\)|each of line pointers [\d, -]+): /, '');
    expect(count(all, new RegExp(words.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g')), `"${words}" once per finding`).toBe(
      messages.filter((x) => x.endsWith(words)).length,
    );
  }
  // One line per finding: at its line pointer's place, or, shared by several, listing them.
  for (const m of messages)
    expect(m).toMatch(/^amcheck: (offset \d+ \(ItemIdData of item \d+ at byte \d+\)|each of line pointers \d+(-\d+)?(, \d+(-\d+)?)+): /);
  expect(new Set(messages.map((m) => m.replace(/^amcheck: (offset \d+ \([^)]*\)|each of line pointers [\d, -]+): /, ''))).size, 'each finding said once').toBe(
    messages.length,
  );
  await view.getByTestId('page-damage').screenshot({ path: test.info().outputPath('torn-damage.png') });
});
