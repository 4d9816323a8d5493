// Verify speed in chromium for a big relation file, beside the speed at which the same page
// merely reads the same File (slice + arrayBuffer, 8 MiB at a time, no other work).
import { test } from '@playwright/test';
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { concat, heapPage, rng, seal } from '../oracle/pgchecksum';
import { makeDir } from '../browser/files';

const MB = Number(process.env.PGPAGE_BENCH_MB ?? 512);

test(`verify ${MB} MB in chromium`, async ({ page, browser }) => {
  const dir = makeDir();
  const path = join(dir, '16385');
  const fd = openSync(path, 'w');
  const r = rng(1);
  const blocksPerWrite = 1024;
  for (let b = 0; b < (MB * 1024 * 1024) / 8192; b += blocksPerWrite) {
    writeSync(fd, concat(Array.from({ length: blocksPerWrite }, (_, i) => seal(heapPage(8192, 20, r), b + i))));
  }
  closeSync(fd);

  await page.goto('/');
  await page.evaluate(() => {
    (window as unknown as { longest: number }).longest = 0;
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) {
        const w = window as unknown as { longest: number; tasks: string[]; changedAt: number };
        w.longest = Math.max(w.longest, e.duration);
        (w.tasks ??= []).push(`${(e.startTime - (w.changedAt ?? 0)).toFixed(0)}+${e.duration.toFixed(0)}`);
      }
    }).observe({ type: 'longtask', buffered: false });
    const w = window as unknown as { changedAt: number; block0At: number };
    document.addEventListener('change', () => (w.changedAt = performance.now()), true);
    new MutationObserver(() => {
      if (!w.block0At && document.querySelector('[data-testid=page-view][data-block="0"] [data-testid=hexview]')) w.block0At = performance.now();
    }).observe(document.body, { childList: true, subtree: true });
  });
  const t0 = Date.now();
  await page.locator('[data-testid=file-input]').setInputFiles(path);
  await page.locator('[data-testid=page-view][data-block="0"] [data-testid=hexview]').waitFor();
  const toBlock0 = Date.now() - t0;
  await page.locator('[data-testid=summary][data-state=done]').waitFor({ timeout: 600_000 });
  const wall = Date.now() - t0;
  const elapsed = Number(await page.locator('[data-testid=file]').getAttribute('data-elapsed-ms'));
  const longest = await page.evaluate(() => (window as unknown as { longest: number }).longest);
  const inPage = await page.evaluate(() => {
    const w = window as unknown as { changedAt: number; block0At: number };
    return w.block0At - w.changedAt;
  });
  const tasks = await page.evaluate(() => (window as unknown as { tasks?: string[] }).tasks ?? []);

  // Bare read of the same file by the same page.
  await page.evaluate(() => {
    const i = document.createElement('input');
    i.type = 'file';
    i.id = 'bare';
    document.body.append(i);
  });
  await page.locator('#bare').setInputFiles(path);
  const bare = await page.evaluate(async () => {
    const f = (document.getElementById('bare') as HTMLInputElement).files![0];
    const t = performance.now();
    let sum = 0;
    for (let off = 0; off < f.size; off += 8 << 20) sum += (await f.slice(off, off + (8 << 20)).arrayBuffer()).byteLength;
    return { ms: performance.now() - t, sum };
  });
  // The same read split in two halves read at once: does reading parallelise?
  const bare2 = await page.evaluate(async () => {
    const f = (document.getElementById('bare') as HTMLInputElement).files![0];
    const t = performance.now();
    const half = Math.ceil(f.size / 2 / 8192) * 8192;
    const loop = async (from: number, to: number) => {
      for (let off = from; off < to; off += 8 << 20) await f.slice(off, Math.min(to, off + (8 << 20))).arrayBuffer();
    };
    await Promise.all([loop(0, half), loop(half, f.size)]);
    return performance.now() - t;
  });
  // The same bytes as two segment-sized halves chosen together (two workers).
  const halfA = join(dir, '16386');
  const halfB = join(dir, '16387');
  const all = readFileSync(path);
  writeFileSync(halfA, all.subarray(0, all.length / 2));
  writeFileSync(halfB, all.subarray(all.length / 2));
  await page.goto('/');
  const t2 = Date.now();
  await page.locator('[data-testid=file-input]').setInputFiles([halfA, halfB]);
  await page.locator('[data-testid=summary][data-state=done]').waitFor({ timeout: 600_000 });
  const twoFiles = Date.now() - t2;
  const mbps = (ms: number) => (MB / (ms / 1000)).toFixed(0);
  console.log(
    `chromium ${browser.version()}, ${MB} MB (page cache warm):\n` +
      `  verify in worker: ${elapsed} ms = ${mbps(elapsed)} MB/s (wall incl. UI ${wall} ms)\n` +
      `  bare File read:   ${bare.ms.toFixed(0)} ms = ${mbps(bare.ms)} MB/s  -> ratio ${(bare.ms / elapsed).toFixed(2)}\n` +
      `  the same bytes as two files (two workers): ${twoFiles} ms wall = ${mbps(twoFiles)} MB/s\n` +
      `  bare read, two halves at once: ${bare2.toFixed(0)} ms = ${mbps(bare2)} MB/s\n` +
      `  block 0 on screen ${inPage.toFixed(0)} ms after the input's change event (${toBlock0} ms from setInputFiles); longest main-thread task ${longest.toFixed(0)} ms\n` +
      `  long tasks (start after change + duration, ms): ${tasks.join(' ') || 'none'}`,
  );
});
