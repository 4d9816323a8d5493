// Long lists: more than 1,000 problem pages (where the contract lets the list render only the
// rows in view) stay readable: the counts are complete, the first rows are there, and `N`
// brings the last problem page's row into the list, selected.
import { expect, test } from './test';
import { concat, heapPage, oracleStatus, rng, seal } from '../oracle/pgchecksum';
import { makeDir, write } from './files';

const BLOCKS = 1500;
// One page sealed for block 0, copied into every block: each copy's checksum is block 0's,
// so every other block mismatches (but where chance makes the checksum match).
const page = seal(heapPage(8192, 6, rng(9)), 0);
const file = write(makeDir(), '16600', concat(Array.from({ length: BLOCKS }, () => page)));
const mismatches = Array.from({ length: BLOCKS }, (_, b) => b).filter((b) => oracleStatus(page, b).status === 'mismatch');

test('more than 1,000 problem pages: complete counts, rows in view, N reaches the last one', async ({ page: p }) => {
  expect(mismatches.length).toBeGreaterThan(1000);
  await p.goto('/');
  await p.locator('[data-testid=file-input]').setInputFiles(file.path);
  await expect(p.getByTestId('summary')).toHaveAttribute('data-state', 'done');
  await expect(p.locator('[data-testid=file][data-file="16600"] [data-count=mismatch]')).toHaveText(String(mismatches.length));
  await expect(p.getByRole('heading', { name: `Problem pages (${mismatches.length})` })).toBeVisible();
  const rows = p.getByTestId('problem');
  await expect(rows.first()).toHaveAttribute('data-block', String(mismatches[0]));
  expect(await rows.count()).toBeLessThan(200);
  const last = String(mismatches[mismatches.length - 1]);
  await p.keyboard.press('Shift+N');
  await expect(p.getByTestId('page-view')).toHaveAttribute('data-block', last);
  const row = p.locator(`[data-testid=problem][data-block="${last}"]`);
  await expect(row).toHaveClass('current');
  await expect(row).toHaveAttribute('data-computed', String(oracleStatus(page, Number(last)).computed));
  // Clicking a row in view shows its page.
  const before = p.locator(`[data-testid=problem][data-block="${mismatches[mismatches.length - 3]}"]`);
  await before.click();
  await expect(p.getByTestId('page-view')).toHaveAttribute('data-block', String(mismatches[mismatches.length - 3]));
});
