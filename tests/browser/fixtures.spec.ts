// Every PostgreSQL-made fixture in tests/fixtures/verify/<case>/ (relation files plus
// expected.json, the server's answers): chosen in the page, the problem rows, the per-file
// counts, the misplaced-page hints and the trailing bytes must be what expected.json says.
// A new case folder is picked up without touching this file.
import { expect, test } from './test';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../fixtures/verify/', import.meta.url));

interface Expected {
  path: string;
  block_size: number;
  blocks: number;
  trailing_bytes: number;
  pages: { block: number; status: string; stored: number; computed: number | null; matches_block?: number }[];
}

const cases = readdirSync(ROOT).filter((d) => existsSync(join(ROOT, d, 'expected.json')));

test('there are PostgreSQL-made fixtures to check', () => {
  expect(cases.length).toBeGreaterThanOrEqual(5);
});

for (const name of cases) {
  test(`fixture ${name}`, async ({ page }) => {
    const dir = join(ROOT, name);
    const parsed = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Expected | Expected[];
    const files = Array.isArray(parsed) ? parsed : [parsed];
    const paths = readdirSync(dir).filter((f) => f !== 'expected.json' && statSync(join(dir, f)).isFile());
    await page.goto('/');
    await page.locator('[data-testid=file-input]').setInputFiles(paths.map((p) => join(dir, p)));
    await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
    for (const f of files) {
      const file = f.path.split('/').pop()!;
      const want = f.pages
        .filter((p) => p.status !== 'ok' && p.status !== 'zero')
        .map((p) => ({ block: String(p.block), status: p.status, stored: String(p.stored), computed: p.computed === null ? '' : String(p.computed) }));
      const rows = await page
        .locator(`[data-testid=problem][data-file="${file}"]`)
        .evaluateAll((els) => els.map((e) => ({ block: e.dataset.block, status: e.dataset.status, stored: e.dataset.stored, computed: e.dataset.computed })));
      expect(rows).toEqual(want);
      const row = page.locator(`[data-testid=file][data-file="${file}"]`);
      await expect(row.getByTestId('blocks')).toHaveText(String(f.blocks));
      for (const s of ['ok', 'mismatch', 'zero', 'new_not_zero', 'bad_header']) {
        await expect(row.locator(`[data-count=${s}]`)).toHaveText(String(f.pages.filter((p) => p.status === s).length));
      }
      for (const p of f.pages.filter((x) => x.matches_block !== undefined)) {
        await expect(page.locator(`[data-testid=problem][data-file="${file}"][data-block="${p.block}"]`)).toContainText(
          // A claim ("written for block N") or, from a CLI without the claim rule, a bare match.
          `for block ${p.matches_block}`,
        );
      }
      if (f.trailing_bytes > 0) await expect(page.getByTestId('trailing')).toContainText(`read only ${f.trailing_bytes} of ${f.block_size} bytes`);
      else await expect(page.getByTestId('trailing')).toHaveCount(0);
    }
  });
}

test('a btree metapage shows its special space and metapage fields with pageinspect names', async ({ page }) => {
  const dir = join(ROOT, 'btree_clean');
  const file = readdirSync(dir).find((f) => f !== 'expected.json')!;
  await page.goto('/');
  await page.locator('[data-testid=file-input]').setInputFiles(join(dir, file));
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', '0');
  const special = page.getByTestId('special-panel');
  await expect(special.locator('th', { hasText: /^btpo_flags$/ })).toHaveCount(1);
  await expect(special.locator('th', { hasText: /^meta\.root$/ })).toHaveCount(1);
  await expect(special).toContainText('BTP_META');
  await expect(page.getByRole('heading', { name: /btree page/ })).toBeVisible();
});
