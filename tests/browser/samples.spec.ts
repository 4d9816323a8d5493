// The PostgreSQL-made samples (public/samples/, scripts/make-samples.sh) and the guided tour:
// loading them shows exactly the problems PostgreSQL's page_checksum() found, which an
// independent checksum recomputes here from the bytes; they load offline after one visit;
// the tour walks every step and points at the right bytes of the right page.
import { expect, test, type Page } from './test';
import { readFileSync } from 'node:fs';
import { oracleStatus } from '../oracle/pgchecksum';
import type { SampleManifest } from '../../web/src/samples/samples';
import { stepHighlight, TOUR_STEPS } from '../../web/src/tour/steps';
import { repeatedSentences } from './sentences';

const DIR = new URL('../../public/samples/', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('manifest.json', DIR), 'utf8')) as SampleManifest;
const BLCKSZ = manifest.block_size;
const bytesOf = (file: string) => new Uint8Array(readFileSync(new URL(file, DIR)));
const sampleOf = (role: string) => manifest.samples.find((s) => s.role === role)!;

interface Row {
  file?: string;
  block?: string;
  status?: string;
  stored?: string;
  computed?: string;
}
const byPlace = (a: Row, b: Row) => (a.file! < b.file! ? -1 : a.file! > b.file! ? 1 : Number(a.block) - Number(b.block));

/** Problem pages as PostgreSQL answered in the manifest, in the contract's row shape. */
const wanted: Row[] = manifest.samples
  .flatMap((s) =>
    s.pages
      .filter((p) => p.status !== 'ok' && p.status !== 'zero')
      .map((p) => ({
        file: s.file,
        block: String(p.block),
        status: p.status,
        stored: String(p.stored),
        computed: p.computed === null ? '' : String(p.computed),
      })),
  )
  .sort(byPlace);

async function problemRows(page: Page): Promise<Row[]> {
  const rows = await page
    .getByTestId('problem')
    .evaluateAll((els) =>
      els.map((e) => ({ file: e.dataset.file, block: e.dataset.block, status: e.dataset.status, stored: e.dataset.stored, computed: e.dataset.computed })),
    );
  return rows.sort(byPlace);
}

async function loadSamples(page: Page): Promise<void> {
  await page.getByTestId('load-samples').click();
  await expect(page.getByTestId('file')).toHaveCount(manifest.samples.length);
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
}

test('the manifest holds what an independent checksum computes from the sample bytes', () => {
  expect(manifest.samples.length).toBe(15);
  for (const s of manifest.samples) {
    const bytes = bytesOf(s.file);
    expect(bytes.length, s.file).toBe(s.pages.length * BLCKSZ);
    for (const p of s.pages) {
      const o = oracleStatus(bytes.subarray(p.block * BLCKSZ, (p.block + 1) * BLCKSZ), s.segment * 131072 + p.block);
      expect({ file: s.file, block: p.block, ...o }).toEqual({ file: s.file, block: p.block, status: p.status, stored: p.stored, computed: p.computed });
    }
  }
  // Every kind of problem the tour talks about is there.
  expect(new Set(wanted.map((r) => r.status))).toEqual(new Set(['mismatch', 'new_not_zero']));
  expect(sampleOf('zeroed_page').pages[2].status).toBe('zero');
  expect(sampleOf('segment_2').segment).toBe(2);
});

test('Load samples: the problem rows are what PostgreSQL said about the sample pages', async ({ page }) => {
  await page.goto('/');
  await loadSamples(page);
  expect(await problemRows(page)).toEqual(wanted);
  // The incident report of the samples says each sentence of a finding once.
  await expect(page.getByTestId('incident-report')).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
  await expect(page.getByTestId('finding')).not.toHaveCount(0);
  expect(await repeatedSentences(page.getByTestId('finding'))).toEqual([]);
  // The segment-2 sample took its segment from its name.
  const seg2 = sampleOf('segment_2');
  await expect(page.getByRole('spinbutton', { name: `segment number of ${seg2.file}` })).toHaveValue('2');
  // Loading again adds nothing.
  await page.getByTestId('load-samples').click();
  await expect(page.getByTestId('file')).toHaveCount(manifest.samples.length);
  // The swapped pages name each other.
  const swapped = sampleOf('swapped_pages').file;
  await expect(page.locator(`[data-testid=problem][data-file="${swapped}"][data-block="1"]`)).toContainText(
    "written for block 2: its checksum is valid there and its tuples' t_ctid name it",
  );
  await expect(page.locator(`[data-testid=problem][data-file="${swapped}"][data-block="2"]`)).toContainText('written for block 1');
});

test('one sample from the list, with its description', async ({ page }) => {
  await page.goto('/');
  await page.getByText('or pick one').click();
  const flipped = sampleOf('flipped_bit');
  const pick = page.locator(`[data-testid=sample][data-file="${flipped.file}"]`);
  await expect(page.locator('li', { has: pick })).toContainText(flipped.description);
  await pick.click();
  await expect(page.getByTestId('file')).toHaveCount(1);
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
  expect(await problemRows(page)).toEqual(wanted.filter((r) => r.file === flipped.file));
});

test('the samples load offline after the first visit', async ({ page, context }) => {
  await page.goto('/');
  // One visit: the worker installs with public/'s files, the samples among them, and takes control.
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
  await context.setOffline(true);
  await page.reload();
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
  await loadSamples(page);
  expect(await problemRows(page)).toEqual(wanted);
  await context.setOffline(false);
});

test('the tour: every step shows its page and outlines its bytes; keys and Close', async ({ page }) => {
  await page.goto('/');
  await page.getByTestId('tour-start').click();
  const tour = page.getByTestId('tour');
  const view = page.getByTestId('page-view');
  const lit = page.locator('[data-testid=hexview] [data-highlight=true]');
  for (let i = 0; i < TOUR_STEPS.length; i++) {
    const s = TOUR_STEPS[i];
    const sample = sampleOf(s.role);
    await expect(tour).toHaveAttribute('data-step', String(i + 1));
    await expect(tour.locator('h2')).toContainText(s.title);
    await expect(view).toHaveAttribute('data-file', sample.file);
    await expect(view).toHaveAttribute('data-block', String(s.block));
    const range = stepHighlight(s, sample);
    expect(range.end).toBeGreaterThan(range.start);
    await expect(view.getByTestId('hexview')).toHaveAttribute('data-complete', 'true');
    await expect(lit).toHaveCount(range.end - range.start);
    await expect(lit.first()).toHaveAttribute('data-off', String(range.start));
    await expect(lit.last()).toHaveAttribute('data-off', String(range.end - 1));
    if (s.header) await expect(view.getByTestId('header-panel')).toHaveAttribute('data-highlight', 'true');
    else await expect(view.getByTestId('header-panel')).not.toHaveAttribute('data-highlight');
    if (s.item !== undefined) await expect(view.locator(`[data-testid=hexview] .sel[data-item="${s.item}"]`).first()).toBeVisible();
    if (s.expect) await expect(view.getByTestId('page-verdict')).toContainText(s.expect);
    // Step-specific checks against PostgreSQL's answers.
    if (s.role === 'flipped_bit') {
      const off = sample.change!.offset;
      const original = bytesOf(sampleOf('heap').file)[s.block * BLCKSZ + off];
      await expect(lit).toHaveText((original ^ 1).toString(16).padStart(2, '0'));
      await expect(view.locator('[data-field=pd_checksum][data-mismatch=true]')).toHaveCount(2);
    }
    if (s.role === 'zeroed_page') {
      await expect(view).toHaveAttribute('data-status', 'zero');
      // The tour says of the block what the incident report above it says: read as empty, an
      // all-zero page where rows were; never that no problem is listed.
      const finding = page.locator(`[data-testid=finding][data-file$="${sample.file}"][data-block="${s.block}"]`);
      await expect(finding).toHaveAttribute('data-damage', 'zeroed');
      const badge = (await finding.locator('.severity').first().textContent())!.trim();
      const damage = /^Zeroed: ([^;]+);/.exec((await finding.locator('.incident-damage').textContent())!)?.[1];
      expect(damage).toBeTruthy();
      const said = (await tour.textContent())!;
      expect(said.toLowerCase()).toContain(badge.toLowerCase());
      expect(said).toContain(damage!);
      expect(said).not.toContain('No problem is listed');
    }
    if (s.role === 'upper_zeroed') await expect(view).toHaveAttribute('data-status', 'new_not_zero');
    if (s.role === 'segment_2') await expect(tour).toContainText(`computes ${sample.pages[0].computed}`);
    if (i === TOUR_STEPS.length - 1) break;
    // Half the steps by the Next button, half by the arrow key while the panel has the focus.
    if (i % 2 === 0) await tour.getByRole('button', { name: 'Next' }).click();
    else await page.keyboard.press('ArrowRight');
  }
  await expect(tour.getByRole('button', { name: 'Next' })).toBeDisabled();
  await page.keyboard.press('ArrowLeft');
  await expect(tour).toHaveAttribute('data-step', String(TOUR_STEPS.length - 1));
  await tour.getByRole('button', { name: 'Close' }).click();
  await expect(tour).toHaveCount(0);
  await expect(lit).toHaveCount(0);
});
