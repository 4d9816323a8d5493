// Accessibility: axe finds no serious or critical violation (nor an empty table header) in any main state, light and
// dark at a desktop's width and light at a phone's; every control has a name, the Tab key reaches
// it with a visible focus ring, and Enter or Space works it.
import { expect, test } from './test';
import { axe } from './axe';
import { STATES } from './states';

const RUNS = [
  { width: 1440, height: 900, scheme: 'light' },
  { width: 1440, height: 900, scheme: 'dark' },
  { width: 390, height: 844, scheme: 'light' },
] as const;

for (const state of STATES) {
  test(`axe: ${state.name}, no serious or critical violations, no empty table header`, async ({ page }) => {
    // axe takes 5-20 s a run over a page view's ~10,000 elements on a loaded 2-core machine.
    test.setTimeout(300_000);
    for (const run of RUNS) {
      await page.setViewportSize({ width: run.width, height: run.height });
      await page.emulateMedia({ colorScheme: run.scheme });
      if (run === RUNS[0]) {
        await page.goto('/');
        await state.reach(page);
      }
      const r = await axe(page);
      console.log(`${state.name} ${run.width} ${run.scheme}: ${r.all.join(', ') || 'no violations'}`);
      expect.soft(r.blocking, `${state.name} at ${run.width} px, ${run.scheme}`).toEqual([]);
    }
  });
}

// The keyboard alone: Tab reaches every control of the page view (files table, problem rows,
// page, lab bar, item rows), each with a focus ring; Enter and Space work the custom rows.
test('keyboard: Tab reaches every control with a visible focus ring; Enter and Space work the rows', async ({ page }) => {
  await page.goto('/');
  await STATES.find((s) => s.name === 'page')!.reach(page);
  const controls = await page.evaluate(() => {
    const all = [...document.querySelectorAll('button, select, input, textarea, summary, a[href], [tabindex]:not([tabindex="-1"])')];
    const usable = all.filter((e) => {
      if ((e as HTMLButtonElement).disabled || e.closest('details:not([open]) > :not(summary)')) return false;
      const box = (e.classList.contains('visually-hidden') ? e.parentElement! : e).getBoundingClientRect();
      return box.width > 0 && box.height > 0;
    });
    usable.forEach((e, i) => e.setAttribute('data-kb', String(i)));
    return usable.length;
  });
  expect(controls).toBeGreaterThan(20);
  await page.locator('body').focus();
  const reached = new Set<string>();
  const unringed: string[] = [];
  for (let i = 0; i < controls + 40 && reached.size < controls; i++) {
    await page.keyboard.press('Tab');
    const r = await page.evaluate(() => {
      const e = document.activeElement;
      if (!e || e === document.body) return null;
      // A visually hidden file input shows its focus on the label dressed as a button.
      const shown = e.classList.contains('visually-hidden') ? e.parentElement! : e;
      const cs = getComputedStyle(shown);
      const ring = (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0) || cs.boxShadow !== 'none';
      return {
        kb: e.getAttribute('data-kb'),
        ring,
        what: `${e.tagName.toLowerCase()} ${e.getAttribute('data-testid') ?? e.getAttribute('aria-label') ?? (e.textContent ?? '').trim().slice(0, 30)}`,
      };
    });
    if (!r) continue;
    if (r.kb !== null) reached.add(r.kb);
    if (!r.ring) unringed.push(r.what);
  }
  const missed = await page.evaluate(
    (seen) => [...document.querySelectorAll('[data-kb]')].filter((e) => !seen.includes(e.getAttribute('data-kb')!)).map((e) => e.outerHTML.slice(0, 100)),
    [...reached],
  );
  expect(missed, 'controls Tab never reached').toEqual([]);
  expect([...new Set(unringed)], 'focused without a visible ring').toEqual([]);

  // A problem row: Enter and Space open its page.
  const view = page.getByTestId('page-view');
  for (const [key, block] of [
    ['Enter', '3'],
    [' ', '1'],
  ] as const) {
    const row = page.locator(`[data-testid=problem][data-block="${block}"]`);
    await row.focus();
    await page.keyboard.press(key === ' ' ? 'Space' : key);
    await expect(view).toHaveAttribute('data-block', block);
  }
  // An item row: Enter and Space select it.
  for (const [key, lp] of [
    ['Enter', '3'],
    ['Space', '1'],
  ] as const) {
    const row = page.locator(`[data-testid=items-panel] tr[data-lp="${lp}"]`);
    await row.focus();
    await page.keyboard.press(key);
    await expect(row).toHaveClass(/sel/);
    await expect(row).toHaveAttribute('aria-selected', 'true');
  }
});
