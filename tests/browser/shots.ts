// Screenshots kept as test artifacts (test-results/, attached to the report) at a desktop and
// a phone size, light and dark, for a reviewer to look at what a test walked through.
import { test, type Page } from './test';

export const SIZES = [
  [1440, 900],
  [390, 844],
] as const;

export async function shots(page: Page, name: string): Promise<void> {
  const before = page.viewportSize();
  for (const [w, h] of SIZES) {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width: w, height: h });
      const path = test.info().outputPath(`${name}-${w}x${h}-${scheme}.png`);
      await page.screenshot({ path });
      await test.info().attach(`${name} ${w}x${h} ${scheme}`, { path, contentType: 'image/png' });
    }
  }
  await page.emulateMedia({ colorScheme: null });
  if (before) await page.setViewportSize(before);
}
