// The playground in Chromium: PGlite starts in its worker, statements change the pages the
// inspector shows, the server's own words for bad SQL, a cancel that ends a statement that
// never would, snapshots compared, and pageinspect asked about the page on screen.
import { expect, test, type Page } from './test';

async function openPlayground(page: Page): Promise<void> {
  page.on('console', (m) => {
    if (m.type() === 'error') console.log(`console: ${m.text()}`);
  });
  await page.goto('/');
  await page.getByTestId('playground-start').click();
  await expect(page.getByTestId('playground')).toHaveAttribute('data-state', 'ready', { timeout: 90_000 });
}

async function runSql(page: Page, sql: string): Promise<void> {
  const snap = page.getByTestId('play-snapshot');
  const before = (await snap.count()) > 0 ? await snap.getAttribute('data-step') : null;
  await page.getByTestId('play-sql').fill(sql);
  await page.getByTestId('play-sql').press('Control+Enter');
  await expect(page.getByTestId('play-snapshot')).toHaveAttribute('data-step', String(Number(before ?? 0) + 1), { timeout: 60_000 });
  await expect(page.getByTestId('playground')).toHaveAttribute('data-state', 'ready');
}

test('SQL changes the page on screen; errors in the server\'s words', async ({ page }) => {
  await openPlayground(page);
  await expect(page.getByTestId('play-version')).toContainText('PostgreSQL 18');
  await runSql(page, "create table t (id int, v text);\ninsert into t values (1, 'one'), (2, 'two')");
  const heap = page.locator('[data-testid=play-file][data-relation=t][data-fork=main]');
  await expect(heap).toHaveAttribute('data-changed', 'true');
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-status', 'ok');
  await expect(page.getByTestId('items-panel').locator('tbody tr')).toHaveCount(2);

  await runSql(page, 'selec 1');
  await expect(page.getByTestId('play-error-message')).toHaveText('syntax error at or near "selec"');
  await expect(page.getByTestId('play-error')).toHaveAttribute('data-code', '42601');
});

test('a statement that never ends is cancelled; the tables made before it are back', async ({ page }) => {
  await openPlayground(page);
  await runSql(page, 'create table kept (id int);\ninsert into kept select generate_series(1, 5)');
  await page.getByTestId('play-sql').fill('do $$ begin loop end loop; end $$');
  await page.getByTestId('play-run').click();
  await expect(page.getByTestId('playground')).toHaveAttribute('data-state', 'running');
  // The tab is not frozen: the page still answers a click while the server spins.
  await page.getByRole('button', { name: 'switch theme' }).click();
  await expect(page.getByRole('button', { name: 'switch theme' })).toHaveText('Theme: dark');
  await page.getByTestId('play-cancel').click();
  await expect(page.getByTestId('play-cancelled')).toBeVisible({ timeout: 90_000 });
  await expect(page.getByTestId('playground')).toHaveAttribute('data-state', 'ready');
  await runSql(page, 'select count(*) from kept');
  await expect(page.getByTestId('play-result').locator('tbody td')).toHaveText('5');
});

test('a huge INSERT runs in the worker; the page stays live and shows its thousands of pages', async ({ page }) => {
  await openPlayground(page);
  await page.getByTestId('play-sql').fill("create table big (id int, pad text);\ninsert into big select g, repeat('x', 200) from generate_series(1, 100000) g");
  await page.getByTestId('play-run').click();
  await expect(page.getByTestId('playground')).toHaveAttribute('data-state', 'running');
  await page.getByRole('button', { name: 'switch theme' }).click();
  await expect(page.getByRole('button', { name: 'switch theme' })).toHaveText('Theme: dark');
  await expect(page.getByTestId('play-snapshot')).toHaveAttribute('data-step', '1', { timeout: 110_000 });
  const heap = page.locator('[data-testid=play-file][data-relation=big][data-fork=main]');
  await expect(heap).toHaveAttribute('data-changed', 'true');
  // 100,000 rows of 232 bytes: 34 to a page.
  await expect(heap.locator('td').nth(3)).toHaveText(String(Math.ceil(100000 / 34)));
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-status', 'ok');
});
