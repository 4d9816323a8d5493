// The checksum lab: edit a byte of a page's in-memory copy and watch the verdict follow the
// independent JS checksum, fix the checksum, download the edited copy (the file on disk never
// changes); bit-flip experiments counted as the oracle counts them; the two-build benchmark.
import { expect, test, type Page } from './test';
import { readFileSync, statSync } from 'node:fs';
import { ORACLE_LAYOUT, pgChecksumPage } from '../oracle/pgchecksum';
import { trialSource, type ExperimentSpec } from '../../web/src/lab/experiment';
import { clean, makeDir } from './files';

const dir = makeDir();
const good = clean(dir, '16390', 4);
const hex = (v: number) => v.toString(16).padStart(2, '0');

async function openBlock0(page: Page): Promise<void> {
  await page.goto('/');
  await page.locator('[data-testid=file-input]').setInputFiles([good.path]);
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-status', 'ok');
  await expect(page.getByTestId('hexview')).toHaveAttribute('data-complete', 'true');
}

/** Detected trials of `spec` on block 0 of the file, by the oracle. */
function oracleDetected(spec: ExperimentSpec, trials: number): number {
  // A Uint8Array copy: a Buffer's slice() would be a view, and flips would pile up.
  const original = Uint8Array.from(readFileSync(good.path).subarray(0, 8192));
  const sum = pgChecksumPage(original, 0);
  const next = trialSource(ORACLE_LAYOUT, spec, 8192, false);
  let detected = 0;
  for (let t = 0; t < trials; t++) {
    const copy = original.slice();
    for (const b of next(t)) copy[b >> 3] ^= 1 << (b & 7);
    if (pgChecksumPage(copy, 0) !== sum) detected++;
  }
  return detected;
}

test('edit a byte: mismatch as the oracle computes it, back to ok, fix checksum, download', async ({ page }) => {
  const before = statSync(good.path);
  const original = readFileSync(good.path);
  await openBlock0(page);
  const view = page.getByTestId('page-view');
  const verdict = page.getByTestId('page-verdict');
  const checksumBytes = page.locator('[data-testid=hexview] [data-field=pd_checksum]');

  await page.getByTestId('lab-edit').click();
  await expect(page.getByTestId('lab-edit')).toHaveAttribute('aria-pressed', 'true');
  // A byte of tuple data near the end of the page.
  const off = 8150;
  const b0 = original[off];
  const b1 = b0 ^ 0x5a;
  const byte = page.locator(`[data-testid=hexview] [data-off="${off}"]`);
  await expect(byte).toHaveAttribute('data-field', /.+/);
  await byte.click();
  await page.keyboard.type(hex(b1));
  await expect(byte).toHaveText(hex(b1));
  await expect(byte).toHaveAttribute('data-edited', 'true');
  await expect(view).toHaveAttribute('data-status', 'mismatch');
  await expect(checksumBytes.and(page.locator('[data-mismatch=true]'))).toHaveCount(2);
  const edited = Uint8Array.from(original.subarray(0, 8192));
  edited[off] = b1;
  const computed = pgChecksumPage(edited, 0);
  expect(computed).not.toBe(pgChecksumPage(original.subarray(0, 8192), 0));
  await expect(verdict).toHaveAttribute('data-computed', String(computed));
  await expect(verdict).toHaveAttribute('data-stored', String(original.readUInt16LE(8)));

  // The cursor moved on after two digits; go back and type the original byte.
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.type(hex(b0));
  await expect(view).toHaveAttribute('data-status', 'ok');
  await expect(page.locator('[data-testid=hexview] [data-mismatch=true]')).toHaveCount(0);
  await expect(page.locator('[data-testid=hexview] [data-edited=true]')).toHaveCount(0);
  await expect(page.getByTestId('lab-download')).toBeDisabled();

  // Edit again and download: the whole file, only that byte different.
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.type(hex(b1));
  await expect(view).toHaveAttribute('data-status', 'mismatch');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('lab-download').click()]);
  expect(download.suggestedFilename()).toBe('16390');
  const got = readFileSync(await download.path());
  expect(got.length).toBe(original.length);
  const differ = [...got.keys()].filter((i) => got[i] !== original[i]);
  expect(differ).toEqual([off]);
  expect(got[off]).toBe(b1);

  // Fix checksum: the computed checksum goes into pd_checksum of the copy.
  await page.getByTestId('lab-fix').click();
  await expect(view).toHaveAttribute('data-status', 'ok');
  await expect(verdict).toHaveAttribute('data-stored', String(computed));
  await expect(verdict).toHaveAttribute('data-computed', String(computed));
  await expect(checksumBytes.nth(0)).toHaveText(hex(computed & 0xff));
  await expect(checksumBytes.nth(1)).toHaveText(hex(computed >> 8));
  await expect(page.locator('[data-testid=hexview] [data-mismatch=true]')).toHaveCount(0);

  // Revert: the file's page again.
  await page.getByTestId('lab-revert').click();
  await expect(verdict).toHaveAttribute('data-stored', String(original.readUInt16LE(8)));
  await expect(page.locator('[data-testid=hexview] [data-edited=true]')).toHaveCount(0);

  // The decoded panels follow the copy: pd_lower (bytes 12..13) typed to 0x0030.
  const lower = page
    .getByTestId('header-panel')
    .locator('tr', { has: page.locator('th', { hasText: /^lower$/ }) })
    .locator('td');
  await expect(lower).toHaveText(String(original.readUInt16LE(12)));
  await page.locator('[data-testid=hexview] [data-off="12"]').click();
  await page.keyboard.type('30');
  await expect(lower).toHaveText('48');
  await expect(view).toHaveAttribute('data-status', 'mismatch');
  await page.getByTestId('lab-revert').click();
  await expect(lower).toHaveText(String(original.readUInt16LE(12)));
  await expect(view).toHaveAttribute('data-status', 'ok');

  // The user's file was only read.
  const after = statSync(good.path);
  expect(after.mtimeMs).toBe(before.mtimeMs);
  expect(readFileSync(good.path).equals(original)).toBe(true);
});

test('experiments: detection counts equal the oracle; every bit flipped once', async ({ page }) => {
  await openBlock0(page);
  await page.getByTestId('lab').locator('summary').click();
  await page.getByTestId('lab-max-flips').fill('3');
  await page.getByTestId('lab-trials').fill('400');
  await page.getByTestId('lab-seed').fill('7');
  await page.getByTestId('lab-run-random').click();
  const rows = page.getByTestId('lab-result');
  await expect(rows).toHaveCount(3);
  for (let n = 1; n <= 3; n++) {
    const row = page.locator(`[data-testid=lab-result][data-kind=random][data-flips="${n}"]`);
    await expect(row).toHaveAttribute('data-state', 'done');
    await expect(row).toHaveAttribute('data-trials', '400');
    // Seeds are seed + n - 1, one per row.
    await expect(row).toHaveAttribute('data-detected', String(oracleDetected({ kind: 'random', flips: n, trials: 400, seed: 7 + n - 1 }, 400)));
    await expect(row).toContainText('%');
  }

  await page.getByTestId('lab-run-exhaustive').click();
  const all = page.locator('[data-testid=lab-result][data-kind=exhaustive]');
  await expect(all).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
  await expect(all).toHaveAttribute('data-trials', '65520');
  await expect(all).toHaveAttribute('data-fold-differs', '65520');
  const want = oracleDetected({ kind: 'exhaustive', flips: 1, trials: 0, seed: 7 }, 65_520);
  await expect(all).toHaveAttribute('data-detected', String(want));
  console.log(`exhaustive single-bit on block 0: ${want}/65520 detected by the 16-bit checksum, 65520 by the 32-bit sum`);

  await page.getByTestId('lab-run-same-lane').click();
  const lane = page.locator('[data-testid=lab-result][data-kind=same_lane]');
  await expect(lane).toHaveAttribute('data-state', 'done');
  await expect(lane).toHaveAttribute('data-detected', String(oracleDetected({ kind: 'same_lane', flips: 2, trials: 400, seed: 7 }, 400)));
  // Its companion, two random bits with the same seed, comes after the first run's rows.
  const pair = page.locator('[data-testid=lab-result][data-kind=random][data-flips="2"]').last();
  await expect(pair).toHaveAttribute('data-state', 'done');
  await expect(pair).toHaveAttribute('data-detected', String(oracleDetected({ kind: 'random', flips: 2, trials: 400, seed: 7 }, 400)));

  // Every same-lane pair (the node tests hold the count against the oracle on a 1 KB page).
  await page.getByTestId('lab-run-same-lane-all').click();
  const pairs = page.locator('[data-testid=lab-result][data-kind=same_lane_all]');
  await expect(pairs).toHaveAttribute('data-state', 'done', { timeout: 90_000 });
  await expect(pairs).toHaveAttribute('data-trials', '2063376');
  await expect(pairs).toHaveAttribute('data-fold-differs', '2063376');
  console.log(
    `every same-lane pair on block 0: ${await pairs.getAttribute('data-detected')}/2063376 detected; ${(await pairs.innerText()).replace(/\s+/g, ' ')}`,
  );
  // Earlier rows stay for comparison until cleared.
  await expect(rows).toHaveCount(3 + 1 + 2 + 1);
  await page.getByTestId('lab-clear').click();
  await expect(rows).toHaveCount(0);
});

// Paused, the worker stops between batches and a run started then waits before its first
// trial: the states below follow from the clicks alone, however fast the machine.
test('pause holds a run before its first trial, resume finishes it, cancel stops a paused run', async ({ page }) => {
  await openBlock0(page);
  await page.getByTestId('lab').locator('summary').click();
  await page.getByTestId('lab-max-flips').fill('1');
  await page.getByTestId('lab-trials').fill('400');
  await page.getByTestId('lab-seed').fill('3');
  await page.getByTestId('lab-pause').click();
  await expect(page.getByTestId('lab-pause')).toHaveAttribute('data-paused', 'true');
  await page.getByTestId('lab-run-random').click();
  const row = page.getByTestId('lab-result');
  await expect(row).toHaveAttribute('data-state', 'paused');
  await expect(row).toHaveAttribute('data-trials', '0');
  await expect(page.getByTestId('lab-bench')).toBeDisabled();
  await page.getByTestId('lab-pause').click();
  await expect(row).toHaveAttribute('data-state', 'done');
  await expect(row).toHaveAttribute('data-trials', '400');
  await expect(row).toHaveAttribute('data-detected', String(oracleDetected({ kind: 'random', flips: 1, trials: 400, seed: 3 }, 400)));

  // A long run, paused before it starts, is cancelled with nothing counted.
  await page.getByTestId('lab-pause').click();
  await page.getByTestId('lab-trials').fill('1000000');
  await page.getByTestId('lab-run-random').click();
  const long = row.last();
  await expect(long).toHaveAttribute('data-state', 'paused');
  await page.getByTestId('lab-cancel').click();
  await expect(long).toHaveAttribute('data-state', 'cancelled');
  await expect(long).toHaveAttribute('data-trials', '0');
  await expect(page.getByTestId('lab-cancel')).toBeDisabled();
});

// Cancel while running: whenever it lands, the run ends cancelled with what it had counted,
// or done with every trial if it was faster than the click; never anything else.
test('cancel stops a running run where it is', async ({ page }) => {
  await openBlock0(page);
  await page.getByTestId('lab').locator('summary').click();
  await page.getByTestId('lab-max-flips').fill('1');
  await page.getByTestId('lab-trials').fill('1000000');
  await page.getByTestId('lab-run-random').click();
  const row = page.getByTestId('lab-result');
  await expect(row).toHaveAttribute('data-state', /running|done/);
  await page.getByTestId('lab-cancel').click({ force: true });
  await expect(row).toHaveAttribute('data-state', /cancelled|done/);
  const trials = Number(await row.getAttribute('data-trials'));
  if ((await row.getAttribute('data-state')) === 'done') expect(trials).toBe(1_000_000);
  else expect(trials).toBeLessThan(1_000_000);
  await expect(page.getByTestId('lab-cancel')).toBeDisabled();
});

test('benchmark: a row per wasm build with positive figures', async ({ page }) => {
  await openBlock0(page);
  await page.getByTestId('lab').locator('summary').click();
  await page.getByTestId('lab-bench').click();
  const rows = page.getByTestId('bench-row');
  await expect(rows).toHaveCount(2, { timeout: 60_000 });
  for (const build of ['simd128', 'scalar']) {
    const row = page.locator(`[data-testid=bench-row][data-build=${build}]`);
    const ns = Number(await row.getAttribute('data-ns-per-page'));
    const mbps = Number(await row.getAttribute('data-mbps'));
    expect(ns).toBeGreaterThan(0);
    expect(mbps).toBeGreaterThan(0);
    console.log(`${build}: ${ns.toFixed(0)} ns/page, ${mbps.toFixed(0)} MB/s; ${(await row.innerText()).replace(/\s+/g, ' ')}`);
  }
});
