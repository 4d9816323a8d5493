// The playground's figure (not a test): from a statement's Run to the inspector showing the
// page it changed, for a table of 1,000 pages: PGlite's statement, CHECKPOINT, the files read
// from its file system, sent, checked and drawn (the verdict and the hex dump's first rows). Median of runs; also the statement alone
// (the worker's own time), so the rest is what pgpage adds.
import { expect, test } from '@playwright/test';

const RUNS = Number(process.env.PGPAGE_BENCH_RUNS ?? 9);
const PAGES = Number(process.env.PGPAGE_BENCH_PAGES ?? 1000);

test(`playground: statement to updated page view, ${PAGES}-page table`, async ({ page }) => {
  await page.goto('/');
  await page.getByTestId('playground-start').click();
  await expect(page.getByTestId('playground')).toHaveAttribute('data-state', 'ready', { timeout: 120_000 });
  // 31 rows of 232 bytes to a page at fillfactor 90: 31,000 rows, 1,000 pages.
  await page
    .getByTestId('play-sql')
    .fill(`create table b (id int, pad text) with (fillfactor = 90);\ninsert into b select g, repeat('x', 200) from generate_series(1, ${PAGES * 31}) g`);
  await page.getByTestId('play-run').click();
  await expect(page.getByTestId('play-snapshot')).toHaveAttribute('data-step', '1', { timeout: 120_000 });
  const pages = Number(await page.locator('[data-testid=play-file][data-relation=b][data-fork=main] td').nth(3).textContent());

  const total: number[] = [];
  const server: number[] = [];
  // Click to the worker's answer on the page, and to the snapshot's files added and opened.
  const toResult: number[] = [];
  const toOpen: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const step = i + 2;
    // A row in the middle of the table: its page gets a new version (HOT, fillfactor 90).
    const id = Math.floor(((i + 1) * PAGES * 31) / (RUNS + 1));
    await page.getByTestId('play-sql').fill(`update b set pad = 'changed ${i}' where id = ${id}`);
    await page.evaluate((step) => {
      const w = window as unknown as { benchStart: number; benchDone: Promise<number>; phases: number[] };
      w.benchDone = new Promise((resolve) => {
        const check = () => {
          const h = document.querySelector('.map h2')?.textContent ?? '';
          const view = document.querySelector('[data-testid=page-view][data-status]');
          // The verdict and the hex dump's first rows: what the eye sees (the rest of the
          // dump follows once the file's verification ends).
          const hex = view?.querySelector('[data-testid=hexview]');
          if (h.includes(`playground/${step}/`) && view && hex) {
            obs.disconnect();
            const at = (name: string) => (performance.getEntriesByName(name).at(-1)?.startTime ?? NaN) - w.benchStart;
            w.phases = [at('playground-result'), at('playground-open')];
            resolve(performance.now() - w.benchStart);
          }
        };
        const obs = new MutationObserver(check);
        obs.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
      });
      document.querySelector('[data-testid=play-run]')!.addEventListener('click', () => (w.benchStart = performance.now()), { capture: true, once: true });
    }, step);
    await page.getByTestId('play-run').click();
    const ms = await page.evaluate(() => (window as unknown as { benchDone: Promise<number> }).benchDone);
    await expect(page.getByTestId('play-snapshot')).toHaveAttribute('data-step', String(step));
    const took = await page.getByTestId('play-snapshot').locator('.play-steps span').textContent();
    server.push(Number(/\((\d+) ms\)/.exec(took ?? '')?.[1] ?? NaN));
    total.push(ms);
    const [result, opened] = await page.evaluate(() => (window as unknown as { phases: number[] }).phases);
    toResult.push(result);
    toOpen.push(opened);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(
    `PLAYGROUND_BENCH pages=${pages} runs=${RUNS} median_ms=${median(total).toFixed(0)} min_ms=${Math.min(...total).toFixed(0)} max_ms=${Math.max(...total).toFixed(0)} worker_median_ms=${median(server)} answer_median_ms=${median(toResult).toFixed(0)} opened_median_ms=${median(toOpen).toFixed(0)} all=${total.map((x) => x.toFixed(0)).join(',')}`,
  );
});
