// Kernel timing of the wasm bodies in headless Chromium (Debian's /usr/bin/chromium, driven by
// Playwright; never a downloaded browser): the same timeKernel (kernel.mjs) as bench.mjs runs
// in Node, run inside a blank page, so the rows differ only by the engine.
// Usage: node chromium.mjs SECONDS PAGES ROUNDS MODULE.wasm=BUILD...
// Prints bench.mjs's rows, labelled "(Chromium VERSION)". Launching the browser and loading
// the modules happen before any clock starts.
import { readFileSync } from 'node:fs';
import { chromium } from '@playwright/test';
import { timeKernel } from './kernel.mjs';

const [secondsArg, pagesArg, roundsArg, ...modules] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.PGPAGE_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
});
try {
  const page = await browser.newPage();
  await page.goto('about:blank');
  const engine = `Chromium ${browser.version()}`;
  for (const spec of modules) {
    const at = spec.lastIndexOf('=');
    const wasm = readFileSync(spec.slice(0, at)).toString('base64');
    const rows = await page.evaluate(
      async ([source, wasm, build, engine, seconds, npages, rounds]) => {
        const timeKernel = new Function(`return (${source})`)();
        const bytes = Uint8Array.from(atob(wasm), (c) => c.charCodeAt(0));
        return timeKernel(bytes, build, engine, seconds, npages, rounds);
      },
      [timeKernel.toString(), wasm, spec.slice(at + 1), engine, Number(secondsArg), Number(pagesArg), Number(roundsArg)],
    );
    console.log(rows.join('\n'));
  }
} finally {
  await browser.close();
}
