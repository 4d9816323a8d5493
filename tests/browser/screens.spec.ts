// Every main state at a phone's width and a desktop's, light and dark: the document never
// scrolls sideways, no two controls overlap, the summary's counts are on screen; and a
// screenshot of each is kept with the test's results (test-results/, attached to the report).
import { expect, test } from './test';
import { measureLayout } from './layout';
import { STATES } from './states';

const VIEWPORTS = [
  { width: 360, height: 740, shots: false },
  { width: 390, height: 844, shots: true },
  { width: 1440, height: 900, shots: true },
];

for (const vp of VIEWPORTS) {
  for (const state of STATES) {
    test(`${state.name} at ${vp.width}x${vp.height}: fits, nothing overlaps, counts on screen`, async ({ page }, testInfo) => {
      await page.setViewportSize({ width: vp.width, height: vp.height });
      await page.goto('/');
      await state.reach(page);
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        if (vp.shots) {
          const path = testInfo.outputPath(`${state.name}-${vp.width}x${vp.height}-${scheme}.png`);
          await page.screenshot({ path });
          await testInfo.attach(`${state.name} ${vp.width}x${vp.height} ${scheme}`, { path, contentType: 'image/png' });
        }
        const l = await measureLayout(page);
        expect(l.controls, 'controls looked at').toBeGreaterThan(3);
        expect.soft(l.scrollWidth, `document width at ${vp.width} px, ${scheme}`).toBeLessThanOrEqual(l.innerWidth);
        expect.soft(l.wide, `past the right edge, ${scheme}`).toEqual([]);
        expect.soft(l.overlaps, `overlapping controls, ${scheme}`).toEqual([]);
        expect.soft(l.countsOutside, `counts off screen, ${scheme}`).toEqual([]);
      }
    });
  }
}
