// Big and odd files in the browser: a 5 GB sparse file and a set of 1 GB segment files
// verify to the last page with the tab's memory flat (bounded far below what it read).
import { expect, test } from './test';
import { rmSync } from 'node:fs';
import { clean, makeDir, rendererRssKiB, sparse } from './files';

const GiB = 1024 ** 3;

test('a 5 GB sparse file and three 1 GB segments verify with flat memory', async ({ page }) => {
  test.setTimeout(300_000);
  const d = makeDir();
  // The tab's memory while it verifies `files`, from a fresh load whose workers are up with
  // their wasm (a small file verified says so): the growth at its peak, in MB.
  const growth = async (files: string[], label: string): Promise<number> => {
    await page.goto('/');
    await page.locator('[data-testid=file-input]').setInputFiles([clean(d, '16499', 2).path]);
    await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
    const before = rendererRssKiB();
    let peak = before;
    const timer = setInterval(() => (peak = Math.max(peak, rendererRssKiB())), 50);
    try {
      await page.locator('[data-testid=file-input]').setInputFiles(files);
      await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 280_000 });
    } finally {
      clearInterval(timer);
    }
    peak = Math.max(peak, rendererRssKiB());
    const mb = (peak - before) / 1024;
    console.log(`${label}: renderer RSS before ${(before / 1024).toFixed(0)} MB, peak ${(peak / 1024).toFixed(0)} MB, growth ${mb.toFixed(0)} MB`);
    return mb;
  };
  // The same shape of drop (four files, the same workers and readers) at an eighth of the size.
  const small = [sparse(d, '16510', GiB / 4), sparse(d, '16511', GiB / 4), sparse(d, '16512', GiB / 4), sparse(d, '16513', GiB / 4)].map((f) => f.path);
  const files = [sparse(d, '16500', 5 * GiB), sparse(d, '16501', GiB), sparse(d, '16501.1', GiB), sparse(d, '16501.2', GiB)].map((f) => f.path);
  // The 8 GB read first, in the tab's first load, as a user's first drop is.
  const eightGiB = await growth(files, '8 GB read');
  // Every page of every file was read: all-zero pages, new pages as the server sees them.
  const zero = (name: string) => page.locator(`[data-testid=file][data-file="${name}"] [data-count=zero]`);
  await expect(zero('16500')).toHaveText(String((5 * GiB) / 8192));
  for (const n of ['16501', '16501.1', '16501.2']) await expect(zero(n)).toHaveText(String(GiB / 8192));
  await expect(page.getByTestId('problem')).toHaveCount(0);
  await expect(page.getByTestId('file-error')).toHaveCount(0);
  // Flat: bounded by the workers and their readers' buffers, nowhere near the 8 GB read (the
  // report once held every all-zero page it looked at: 70 MB more here).
  expect(eightGiB).toBeLessThan(384);
  // The last block of the 5 GB file, past 4 GB, opens (no 32-bit offsets on the way).
  await page.locator('[data-testid=file][data-file="16500"] button.link').click();
  const last = (5 * GiB) / 8192 - 1;
  await page.keyboard.press('Control+g');
  await page.getByTestId('goto-input').fill(String(last));
  await page.getByTestId('goto-input').press('Enter');
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', String(last));
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-status', 'zero');
  // A 1 GB read of the same shape, printed beside it: the two differ by more than the readers
  // explain, which is still to be accounted for (the 5 GB file's page map is one suspect).
  const oneGiB = await growth(small, '1 GB read');
  console.log(`growth 8 GB - 1 GB: ${(eightGiB - oneGiB).toFixed(0)} MB`);
  rmSync(d, { recursive: true, force: true });
});
