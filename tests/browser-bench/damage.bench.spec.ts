// Single-bit-flip localisation per page in chromium (the target: under 5 ms a page), beside the
// CLI's native figure: the fixture pages a real PostgreSQL wrote (tests/fixtures), each with
// its checksum stored and one bit flipped (as crates/pgpage/examples/bitflip_bench.rs does),
// dropped as one file; the page view's damage panel localises each page in its worker and
// says how long the core's call took (data-ms). The first two pages warm the engine's tiers.
import { test } from '@playwright/test';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { seal } from '../oracle/pgchecksum';
import { makeDir } from '../browser/files';

const here = dirname(fileURLToPath(import.meta.url));
const ROUNDS = Number(process.env.PGPAGE_BENCH_FLIP_ROUNDS ?? 3);

test('bit-flip localisation per page in chromium', async ({ page, browser }) => {
  const fixtures = join(here, '../fixtures');
  const pages: Uint8Array[] = [];
  for (const d of readdirSync(fixtures).sort()) {
    const p = join(fixtures, d, 'page.bin');
    if (!existsSync(p)) continue;
    const bytes = new Uint8Array(readFileSync(p));
    if (bytes.length !== 8192) continue;
    for (let r = 0; r < ROUNDS; r++) pages.push(bytes.slice());
  }
  const file = new Uint8Array(pages.length * 8192);
  pages.forEach((pg, i) => {
    const sealed = seal(pg, i);
    sealed[5000] ^= 0x10;
    file.set(sealed, i * 8192);
  });
  const dir = makeDir();
  const path = join(dir, '16384');
  writeFileSync(path, file);
  await page.goto('/');
  await page.getByTestId('file-input').setInputFiles(path);
  await page.locator('[data-testid=summary][data-state=done]').waitFor();
  const ms: number[] = [];
  for (let b = 0; b < pages.length; b++) {
    await page.locator(`[data-testid=problem][data-block="${b}"]`).click();
    await page.locator(`[data-testid=page-view][data-block="${b}"]`).waitFor();
    const panel = page.locator('[data-testid=bitflips][data-state=done]');
    await panel.waitFor();
    // The panel of this page (the previous page's result is never shown for new bytes).
    ms.push(Number(await panel.getAttribute('data-ms')));
  }
  const warm = ms.slice(2).sort((x, y) => x - y);
  const median = warm[Math.floor(warm.length / 2)];
  let cli = 'n/a (build crates/pgpage/examples/bitflip_bench: bench/damage.sh does)';
  const example = join(here, '../../crates/target/release/examples/bitflip_bench');
  if (existsSync(example)) {
    const r = spawnSync(example, ['0.5'], { encoding: 'utf8' });
    const row = r.stdout.split('\n').find((l) => l.includes('(localise)'));
    if (row) {
      const [, best, med] = row.split('\t');
      cli = `best ${best} ms, median ${med} ms`;
    }
  }
  console.log(
    `damage: chromium ${browser.version()}: bit-flip localisation (the core's localise through wasm, in the damage worker) of ${warm.length} real PostgreSQL pages with one bit flipped: ` +
      `best ${warm[0].toFixed(3)} ms, median ${median.toFixed(3)} ms, worst ${warm[warm.length - 1].toFixed(3)} ms per page; native CLI (one core): ${cli}`,
  );
});
