// A PostgreSQL-made data directory dropped on the page: a table's Rows view holds the rows
// the server's COPY printed before it stopped, its CSV export is that COPY byte for byte,
// a damaged page is named in the salvage summary, and a heap tuple shows its columns.
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { axe } from './axe';
import { shots } from './shots';
import { expect, test, type Page } from './test';
import { Cluster } from '../pg/cluster';

const COPY_SETTINGS = `set timezone = 'UTC'; set datestyle = 'ISO, MDY'; set intervalstyle = postgres; set extra_float_digits = 1; set bytea_output = hex;`;
const BAD = 1;

let c: Cluster;
let csv: string;
let text: string;
let relpath: string;
let perBlock: { b: number; n: number }[];
let vRelpath: string;
let allVersionsCsv: string;

test.beforeAll(() => {
  c = Cluster.create('pgpage-rows-browser');
  c.sql(`create table orders (id int, who text, total numeric, at timestamptz, note text, tags text[]);
    alter table orders alter column note set storage external;
    insert into orders select g, 'customer ' || g, g * 2.25, '2025-03-01 12:00:00+00'::timestamptz + g * interval '1 minute',
      case when g % 40 = 0 then (select string_agg(md5(g::text || i::text), '') from generate_series(1, 150) i) when g % 9 = 0 then null else E'line\\nbreak, "quoted"' end,
      array['a', 'b c']
    from generate_series(1, 800) g;
    delete from orders where id % 13 = 0;
    checkpoint;`);
  const copy = (format: string) => c.sql(`${COPY_SETTINGS} copy (select * from orders order by ctid) to stdout (format ${format});`);
  csv = copy('csv');
  text = copy('text');
  perBlock = c.rows<{ b: number; n: number }>(`select (ctid::text::point)[0]::int as b, count(*)::int as n from orders group by 1 order by 1`);
  relpath = c.sql(`select pg_relation_filepath('orders');`).trim();

  // Table v's tuple versions as crates/pgpage-cli/tests/versions.rs makes them: each led by
  // its ctid, the xmin and xmax the server gave it (txid_current() inside each transaction)
  // and its state as the transactions ended, its columns as COPY printed them while live.
  c.sql(`create table v (id int4, s text); insert into v select g, 'row ' || g from generate_series(1, 6) g;`);
  const live = () => c.sql(`copy (select ctid, xmin, * from v order by ctid) to stdout (format csv);`);
  const before = live();
  const txn = (sql: string, end: string) => c.sql(`begin; ${sql}; select txid_current(); ${end};`).trim().split('\n').pop()!;
  const deleter = txn('delete from v where id = 2', 'commit');
  const updater = txn(`update v set s = 'new' where id = 3`, 'commit');
  const aborted = txn(`insert into v values (99, 'gone')`, 'rollback');
  const undeleter = txn('delete from v where id = 4', 'rollback');
  const locker = txn('select count(*) from (select 1 from v where id = 5 for update) l', 'commit');
  const after = live();
  // `"(b,o)",xmin,columns` led as --all-versions leads it.
  const lead = (line: string, xmax: string, state: string) => {
    const m = /^("\(\d+,\d+\)"),(\d+),(.*)$/.exec(line)!;
    return `${m[1]},${m[2]},${xmax},${state},${m[3]}`;
  };
  const want: string[] = [];
  const beforeLines = before.split('\n').filter((l) => l !== '');
  for (const line of beforeLines) {
    const id = /^"[^"]*",\d+,(\d+),/.exec(line)![1];
    // An aborted delete leaves its xmax; a row lock leaves a lock-only one: both live.
    want.push(lead(line, { '2': deleter, '3': updater, '4': undeleter, '5': locker }[id] ?? '0', { '2': 'deleted', '3': 'updated' }[id] ?? 'live'));
  }
  want.push(
    lead(
      after.split('\n').find((l) => l.endsWith(',3,new'))!,
      '0',
      'live',
    ),
  );
  want.push(`"(0,${beforeLines.length + 2})",${aborted},0,aborted,99,gone`);
  allVersionsCsv = want.join('\n') + '\n';
  vRelpath = c.sql(`select pg_relation_filepath('v');`).trim();
  c.sql('checkpoint;');
  c.stop();
});
test.afterAll(() => c?.destroy());

async function openRows(page: Page, rel = relpath) {
  // The link opens the table's file once the folder is chosen (the files list is virtualized).
  await page.goto(`/#file=${basename(c.dataDir)}/${rel}&block=0`);
  await page.getByTestId('folder-input').setInputFiles(c.dataDir);
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
  const view = page.getByTestId('rows-view');
  await view.getByTestId('rows-open').click();
  await expect(view).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
  return view;
}

test('Rows view: the rows COPY printed, exported byte for byte', async ({ page }) => {
  const view = await openRows(page);
  const lines = text.split('\n').filter((l) => l !== '');
  await expect(view).toHaveAttribute('data-rows', String(lines.length));
  await expect(view.getByRole('heading', { level: 2 })).toContainText('public.orders');
  // The first rows in view are the first lines of COPY's text output, NULL shown as NULL.
  const first = view.getByTestId('rows-row').first();
  await expect(first.getByRole('cell')).toHaveText(lines[0].split('\t').map((f) => (f === '\\N' ? 'NULL' : f.replace(/\\n/g, '\n'))));
  await expect(view.getByTestId('rows-salvage')).toContainText(`rows recovered: ${lines.length}`);
  await expect(view.getByTestId('rows-salvage')).toContainText('pages left out: 0');

  const download = page.waitForEvent('download');
  await view.getByTestId('rows-export-csv').click();
  const d = await download;
  expect(d.suggestedFilename()).toMatch(/\.csv$/);
  expect(readFileSync(await d.path(), 'utf8')).toBe(csv);
  const textDownload = page.waitForEvent('download');
  await view.getByTestId('rows-export-text').click();
  expect(readFileSync(await (await textDownload).path(), 'utf8')).toBe(text);
  // The salvage summary link still downloads after the worker that wrote it is gone.
  const summaryDownload = page.waitForEvent('download');
  await view.getByTestId('rows-summary-link').click();
  expect(readFileSync(await (await summaryDownload).path(), 'utf8')).toContain(`rows recovered: ${lines.length}`);

  expect((await axe(page)).blocking).toEqual([]);
  await view.scrollIntoViewIfNeeded();
  await shots(page, 'rows-view');
});

test('Rows view: a damaged page is left out and named in the salvage summary', async ({ page }) => {
  const file = `${c.dataDir}/${relpath}`;
  const clean = readFileSync(file);
  const bad = Buffer.from(clean);
  bad[BAD * 8192 + 8000] ^= 0xff;
  writeFileSync(file, bad);
  try {
    const view = await openRows(page);
    const lost = perBlock.find((r) => r.b === BAD)?.n ?? 0;
    expect(lost).toBeGreaterThan(0);
    const total = perBlock.reduce((n, r) => n + r.n, 0);
    await expect(view).toHaveAttribute('data-rows', String(total - lost));
    const summary = view.getByTestId('rows-salvage');
    await expect(summary).toContainText('pages left out: 1');
    await expect(summary).toContainText(new RegExp(`block ${BAD}: page verification failed, calculated checksum \\d+ but expected \\d+`));
    // The export holds every other row as COPY printed it, the summary beside it.
    const download = page.waitForEvent('download');
    await view.getByTestId('rows-export-csv').click();
    const got = readFileSync(await (await download).path(), 'utf8');
    const kept = new Set(csv.split('\n'));
    expect(got.split('\n').every((l) => kept.has(l))).toBe(true);
    await expect(view.getByTestId('rows-summary-link')).toBeVisible();
    await shots(page, 'rows-view-damaged');
  } finally {
    writeFileSync(file, clean);
  }
});

/** Each column's cells: x and width of the header cell and of every drawn row's cell. */
async function columnBoxes(view: ReturnType<Page['getByTestId']>) {
  return view.evaluate((el) => {
    const box = (c: Element) => {
      const r = c.getBoundingClientRect();
      return { x: Math.round(r.x * 10) / 10, w: Math.round(r.width * 10) / 10, h: r.height };
    };
    const head = [...el.querySelectorAll('.rows-head [role=columnheader]')].map(box);
    const rows = [...el.querySelectorAll('[data-testid=rows-row]')].map((r) => ({
      nulls: r.querySelectorAll('.rows-null').length,
      cells: [...r.querySelectorAll('[role=cell]')].map(box),
    }));
    const span = el.querySelector('.rows-head .rows-name');
    const line = span ? span.getBoundingClientRect().height : 0;
    return { head, rows, line };
  });
}

test('Rows grid: one set of column widths for the header and every row, NULLs or not', async ({ page }) => {
  const view = await openRows(page);
  for (const [width, height] of [
    [1440, 900],
    [390, 844],
  ]) {
    await page.setViewportSize({ width, height });
    await view.getByTestId('rows-row').first().scrollIntoViewIfNeeded();
    const { head, rows, line } = await columnBoxes(view);
    expect(head.length).toBe(6);
    // Rows with and without NULLs are among those drawn (note is NULL on every ninth id).
    expect(rows.some((r) => r.nulls > 0) && rows.some((r) => r.nulls === 0)).toBe(true);
    for (const r of rows)
      expect(
        r.cells.map((c) => [c.x, c.w]),
        `${width}px`,
      ).toEqual(head.map((c) => [c.x, c.w]));
    // A header cell is its name and type, one line each: never taller than two lines.
    expect(line).toBeGreaterThan(0);
    for (const c of head) expect(c.h, `${width}px header`).toBeLessThanOrEqual(2 * line + 10);
    await view.getByRole('table').scrollIntoViewIfNeeded();
    const path = test.info().outputPath(`rows-grid-${width}x${height}.png`);
    await page.screenshot({ path });
    await test.info().attach(`rows grid ${width}x${height}`, { path, contentType: 'image/png' });
  }
});

test('Rows view: a zeroed page is named lost, a flipped page given as ignore_checksum_failure reads it, with COPY HEADER', async ({ page }) => {
  const file = `${c.dataDir}/${relpath}`;
  const clean = readFileSync(file);
  const bad = Buffer.from(clean);
  const ZERO = 2;
  const FLIP = 3;
  bad.fill(0, ZERO * 8192, (ZERO + 1) * 8192);
  // Bit 5 of the "c" of the first tuple's "customer": the server returns "Customer".
  const w = bad.readUInt32LE(FLIP * 8192 + 24);
  const off = FLIP * 8192 + (w & 0x7fff);
  const at = bad.indexOf('customer', off);
  expect(at).toBeGreaterThan(off);
  expect(at).toBeLessThan(off + (w >>> 17));
  bad[at] ^= 0x20;
  writeFileSync(file, bad);
  try {
    // The server's own reading of the damaged copy: a zero page is empty, the flipped page
    // readable under ignore_checksum_failure.
    c.start();
    const expected = c.sql(`set ignore_checksum_failure = on; ${COPY_SETTINGS} copy (select * from orders order by ctid) to stdout (format csv, header);`);
    const count = c.sql(`set ignore_checksum_failure = on; select count(*) from orders;`).trim();
    const flipped = c.rows<{ t: string }>(`select ctid::text as t from orders where (ctid::text::point)[0] = ${FLIP} order by orders.ctid`);
    c.stop();
    expect(expected).toContain('Customer');
    const view = await openRows(page);
    const zeroRows = perBlock.find((r) => r.b === ZERO)?.n ?? 0;
    const flipRows = perBlock.find((r) => r.b === FLIP)?.n ?? 0;
    expect(zeroRows).toBeGreaterThan(0);
    const summary = view.getByTestId('rows-salvage');
    await expect(summary).toContainText(
      `block ${ZERO}: all zeros between pages with rows: the server reads it as an empty page; whatever rows it held are lost`,
    );
    await expect(summary).toContainText(
      new RegExp(`block ${FLIP}: page verification failed, calculated checksum \\d+ but expected \\d+; its ${flipRows} rows are left out`),
    );
    // With the damaged pages' rows: the server's rows, the flipped ones listed by ctid.
    await view.getByTestId('rows-include-damaged').check();
    await expect(view).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
    await expect(view).toHaveAttribute('data-rows', count);
    await expect(summary).toContainText(`rows given from them (ctid): ${flipped.map((r) => r.t).join(', ')}`);
    await view.getByTestId('rows-header').check();
    const download = page.waitForEvent('download');
    await view.getByTestId('rows-export-csv').click();
    expect(readFileSync(await (await download).path(), 'utf8')).toBe(expected);
  } finally {
    writeFileSync(file, clean);
  }
});

test('All versions: every tuple version, led by ctid, xmin, xmax and state as the server left them', async ({ page }) => {
  const view = await openRows(page, vRelpath);
  const want = allVersionsCsv.split('\n').filter((l) => l !== '');
  await view.getByTestId('rows-all-versions').check();
  await expect(view).toHaveAttribute('data-rows', String(want.length));
  await expect(view).toHaveAttribute('data-state', 'done');
  await expect(view.getByRole('columnheader')).toHaveText([/^ctid/, /^xmin/, /^xmax/, /^state/, /^id/, /^s/]);
  // Each row's cells are the expected line's fields (the quoted ctid the one with a comma).
  const cells = want.map((l) => {
    const [, ctid, rest] = /^"([^"]*)",(.*)$/.exec(l)!;
    return [ctid, ...rest.split(',')];
  });
  for (const [i, row] of cells.entries()) await expect(view.getByTestId('rows-row').nth(i).getByRole('cell')).toHaveText(row);
  const download = page.waitForEvent('download');
  await view.getByTestId('rows-export-csv').click();
  const d = await download;
  expect(d.suggestedFilename()).toMatch(/all-versions\.csv$/);
  expect(readFileSync(await d.path(), 'utf8')).toBe(allVersionsCsv);
  // Off again: the rows a new transaction sees.
  await view.getByTestId('rows-all-versions').uncheck();
  await expect(view).toHaveAttribute('data-rows', String(want.filter((l) => l.split(',')[4] === 'live').length));
  await expect(view.getByRole('columnheader')).toHaveText([/^id/, /^s/]);
});

test('a heap tuple shows its columns from the catalogs', async ({ page }) => {
  await openRows(page);
  const pv = page.getByTestId('page-view');
  await expect(pv).toHaveAttribute('data-status', 'ok');
  await page.locator('[data-testid=items-panel] tbody tr').first().click();
  const cols = page.getByTestId('tuple-columns');
  await expect(cols).toHaveAttribute('data-state', 'done');
  const first = text.split('\n')[0].split('\t');
  await expect(cols.getByTestId('tuple-column')).toHaveCount(first.length);
  await expect(cols.getByTestId('tuple-column').first()).toContainText(`id`);
  await expect(cols.getByTestId('tuple-column').first()).toContainText(first[0]);
});

test('a heap file alone: a type list gives its rows and columns, a list that does not fit is named', async ({ page }) => {
  await page.goto('/');
  await page.getByTestId('file-input').setInputFiles(`${c.dataDir}/${relpath}`);
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-status', 'ok');
  const types = 'int4,text,numeric,timestamptz,text,text[]';
  const lines = text.split('\n').filter((l) => l !== '');
  const view = page.getByTestId('rows-view');
  await view.getByTestId('rows-types').fill(types);
  await view.getByTestId('rows-open').click();
  await expect(view).toHaveAttribute('data-state', 'done');
  await expect(view.getByTestId('rows-row').first().getByRole('cell').first()).toHaveText(lines[0].split('\t')[0]);

  await page.locator('[data-testid=items-panel] tbody tr').first().click();
  const cols = page.getByTestId('tuple-columns');
  await cols.getByTestId('tuple-types').fill(types);
  await expect(cols).toHaveAttribute('data-state', 'done');
  await expect(cols.getByTestId('tuple-column')).toHaveCount(6);
  await expect(cols.getByTestId('tuple-column').nth(1)).toContainText(lines[0].split('\t')[1]);
  await cols.getByTestId('tuple-types').fill('int4,int8');
  await expect(cols.getByTestId('tuple-problem')).toContainText('does not fit');
  expect((await axe(page)).blocking).toEqual([]);
  await cols.scrollIntoViewIfNeeded();
  await shots(page, 'tuple-columns-types');
});
