// amcheck's per-page checks in the browser, held against amcheck on PostgreSQL 16:
// a stopped data directory whose heap has a tuple with an xmin past nextXid and whose int4
// B-tree has a leaf with two keys swapped (each page's checksum made valid again, so the
// checksums see nothing, and only pg_index's key type, read from the catalogs, can judge the
// order) is dropped as a folder: the page findings name both where verify_heapam and
// bt_index_check put them (block and offset), in their words, and the page view marks the
// same items. The untouched directory gives none.
import { expect, test, type Page } from './test';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Cluster } from '../pg/cluster';
import { pgChecksumPage } from '../oracle/pgchecksum';
import { makeDir } from './files';

const BS = 8192;
const out = makeDir();

interface Made {
  clean: string;
  bad: string;
  /** The files' paths inside the data directory (`base/5/16384`). */
  heap: string;
  index: string;
  /** verify_heapam's rows on the corrupted heap. */
  heapam: { blkno: number; offnum: number; msg: string }[];
  /** bt_index_check's error and its DETAIL on the corrupted index. */
  btree: { error: string; block: number; offset: number };
}
let made: Made;

const u32 = (p: Buffer, at: number) => p.readUInt32LE(at);
/** Line pointer `lp`'s lp_off and lp_flags. */
const lpOff = (p: Buffer, lp: number) => u32(p, 24 + (lp - 1) * 4) & 0x7fff;
const lpFlags = (p: Buffer, lp: number) => (u32(p, 24 + (lp - 1) * 4) >>> 15) & 3;

function seal(file: Buffer, block: number): void {
  const page = file.subarray(block * BS, (block + 1) * BS);
  page.writeUInt16LE(pgChecksumPage(page, block), 8);
}

test.beforeAll(() => {
  const c = Cluster.create('pgpage-amcheck', 16);
  try {
    c.sql(`create extension amcheck;
      create table x (id int4, s text) with (autovacuum_enabled = off);
      insert into x select g, 'row ' || g from generate_series(1, 3000) g;
      create index x_id on x (id);
      vacuum analyze;
      checkpoint;`);
    expect(c.sql("select count(*) from verify_heapam('x');").trim()).toBe('0');
    c.sql("select bt_index_check('x_id');");
    const next = Number(c.sql('select next_xid from pg_control_checkpoint();').trim().split(':')[1]);
    const heapAbs = c.relationPath('x');
    const indexAbs = c.relationPath('x_id');
    c.stop();
    // The whole directory but its WAL and the server's pid file.
    const copy = (to: string) => cpSync(c.dataDir, to, { recursive: true, filter: (src) => !/\/pg_wal\/.|postmaster\.pid$/.test(src) });
    const clean = join(out, 'clean');
    copy(clean);

    // Heap block 1: its first normal tuple's xmin past nextXid.
    const heap = readFileSync(heapAbs);
    const hp = heap.subarray(BS, 2 * BS);
    const items = (hp.readUInt16LE(12) - 24) / 4;
    const lp = Array.from({ length: items }, (_, i) => i + 1).find((n) => lpFlags(hp, n) === 1)!;
    hp.writeUInt32LE(next + 1000, lpOff(hp, lp));
    seal(heap, 1);
    writeFileSync(heapAbs, heap);
    // B-tree leaf block 1 (not the rightmost: item 1 is its high key): the int4 keys of items
    // 2 and 3 swapped, their heap TIDs left.
    const index = readFileSync(indexAbs);
    const ip = index.subarray(BS, 2 * BS);
    const special = ip.readUInt16LE(16);
    expect(ip.readUInt16LE(special + 12) & 1, 'block 1 is a leaf').toBe(1);
    expect(u32(ip, special + 4), 'not the rightmost').not.toBe(0);
    const [a, b] = [lpOff(ip, 2) + 8, lpOff(ip, 3) + 8];
    const [ka, kb] = [u32(ip, a), u32(ip, b)];
    expect(ka).toBeLessThan(kb);
    ip.writeUInt32LE(kb, a);
    ip.writeUInt32LE(ka, b);
    seal(index, 1);
    writeFileSync(indexAbs, index);
    const bad = join(out, 'bad');
    copy(bad);

    // amcheck on the same bytes.
    c.start();
    const heapam = c.rows<Made['heapam'][number]>("select blkno::int, offnum::int, msg from verify_heapam('x')");
    const r = c.psqlRaw("select bt_index_check('x_id');");
    const error = /ERROR: {2}(.*)/.exec(r.stderr)?.[1] ?? r.stderr;
    const tid = /Lower index tid=\((\d+),(\d+)\)/.exec(r.stderr);
    expect(tid, r.stderr).not.toBeNull();
    made = {
      clean,
      bad,
      heap: relative(c.dataDir, heapAbs),
      index: relative(c.dataDir, indexAbs),
      heapam,
      btree: { error, block: Number(tid![1]), offset: Number(tid![2]) },
    };
  } finally {
    c.destroy();
  }
});

async function drop(page: Page, dir: string): Promise<void> {
  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(dir);
  // The catalogs first: files verified before them are verified again with their hints.
  await expect(page.getByTestId('catalog')).toHaveAttribute('data-state', 'done', { timeout: 90_000 });
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 90_000 });
}

test("amcheck: an xmin past nextXid and two swapped B-tree keys, at amcheck's block and offset, in its words", async ({ page }) => {
  expect(made.heapam).toHaveLength(1);
  const [h] = made.heapam;
  await drop(page, made.bad);
  // The checksums see nothing: no problem page.
  await expect(page.getByTestId('problem')).toHaveCount(0);
  await expect(page.getByTestId('verdict-amcheck')).toHaveAttribute('data-pages', '2');
  await expect(page.getByTestId('catalog-structure')).toBeVisible();

  const found = page.locator('[data-testid=page-finding][data-amcheck=true]');
  await expect(found).toHaveCount(2);
  const heapRow = found.and(page.locator(`[data-path$="${made.heap}"]`));
  await expect(heapRow).toHaveAttribute('data-code', 'heap_xmin_in_future');
  await expect(heapRow).toHaveAttribute('data-relation-block', String(h.blkno));
  await expect(heapRow).toHaveAttribute('data-offset', String(h.offnum));
  const heapText = (await heapRow.textContent()) ?? '';
  const heapMessage = heapText.slice(heapText.indexOf(`offset ${h.offnum}: `) + `offset ${h.offnum}: `.length);
  // amcheck's message word for word, its numbers in.
  expect(heapMessage).toBe(h.msg);

  const indexRow = found.and(page.locator(`[data-path$="${made.index}"]`));
  await expect(indexRow).toHaveAttribute('data-code', 'btree_item_order');
  await expect(indexRow).toHaveAttribute('data-relation-block', String(made.btree.block));
  await expect(indexRow).toHaveAttribute('data-offset', String(made.btree.offset));
  const indexText = (await indexRow.textContent()) ?? '';
  const indexMessage = indexText.slice(indexText.indexOf(`offset ${made.btree.offset}: `) + `offset ${made.btree.offset}: `.length);
  expect(indexMessage).toBe(made.btree.error);

  // The page view says the same of the heap's page and marks the tuple's xmin.
  await heapRow.getByRole('button').click();
  const view = page.getByTestId('page-view');
  await expect(view).toHaveAttribute('data-block', String(h.blkno));
  await expect(view).toHaveAttribute('data-status', 'ok');
  await expect(page.locator(`[data-testid=page-findings] li[data-amcheck=true][data-offset="${h.offnum}"]`)).toHaveAttribute(
    'data-code',
    'heap_xmin_in_future',
  );
  // Said once, in amcheck's list with the line pointer's place: the decoder, which flags
  // the same item in the same words, does not say it again.
  const heapItem = page.locator(`[data-testid=page-findings] li[data-amcheck=true][data-offset="${h.offnum}"]`);
  await expect(heapItem).toContainText(`of item ${h.offnum}`);
  await expect(heapItem).toContainText(heapMessage);
  await expect(page.locator('[data-testid=decode-problems] li', { hasText: heapMessage })).toHaveCount(0);
  // And of the index's page: the swapped item.
  await indexRow.getByRole('button').click();
  await expect(view).toHaveAttribute('data-block', String(made.btree.block));
  await expect(page.locator(`[data-testid=page-findings] li[data-amcheck=true][data-offset="${made.btree.offset}"]`)).toContainText(
    `of item ${made.btree.offset}`,
  );
});

test('amcheck: the untouched data directory gives no finding', async ({ page }) => {
  await drop(page, made.clean);
  await expect(page.getByTestId('verdict')).toContainText('No problem pages');
  await expect(page.locator('[data-testid=page-finding][data-amcheck=true]')).toHaveCount(0);
  await expect(page.getByTestId('verdict-amcheck')).toHaveCount(0);
});

test('amcheck: switched off, the damaged directory verifies by its checksums alone; on again, its files are checked again', async ({ page }) => {
  await drop(page, made.bad);
  await page.getByTestId('amcheck-switch').uncheck();
  await drop(page, made.bad);
  await expect(page.getByTestId('amcheck-switch')).not.toBeChecked();
  await expect(page.getByTestId('verdict')).toContainText('No problem pages');
  await expect(page.locator('[data-testid=page-finding][data-amcheck=true]')).toHaveCount(0);
  await page.getByTestId('amcheck-switch').check();
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 90_000 });
  await expect(page.locator('[data-testid=page-finding][data-amcheck=true]')).toHaveCount(2);
});
