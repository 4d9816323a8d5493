// CPU time per page of the wasm bodies, for comparing bodies on a shared machine without a
// PMU (bench/NOTES.md): wall-clock GB/s swings with the other load, the time the thread
// actually ran barely does. Fixed work per measurement: PASSES passes over 32 pages (the bench's
// xorshift pages), REPS measurements per module, taken in turn across the modules.
// Usage: node cputime.mjs node|chromium PASSES REPS LABEL=MODULE.wasm:BODY[:BIG]...
//   BODY is checksum_pages' code (0 scalar, 1 simd128), BIG 1 for big-endian pages.
// Node: process.cpuUsage(). Chromium (Debian's, via Playwright): the renderer main thread's
// run time from /proc/PID/schedstat around each measurement. Prints min and median ns/page.
// Native bodies, for comparison: perf stat -e task-clock over kernel_bench with
// KERNEL_PASSES=N and KERNEL_BODY=label, minus a short run.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const [engine, passesArg, repsArg, ...specs] = process.argv.slice(2);
const passes = Number(passesArg);
const NPAGES = 32;
const mods = specs.map((spec) => {
  const at = spec.indexOf('=');
  const [path, body, big] = spec.slice(at + 1).split(':');
  return { label: spec.slice(0, at), wasm: readFileSync(path), body: Number(body), big: Number(big ?? 0) };
});

// Self-contained, so that it can run in a page too: instantiates, fills the pages, warms up
// (V8 tiers the module up), and returns a function making `passes` passes.
async function load(bytes, body, big, npages) {
  const { instance } = await WebAssembly.instantiate(bytes);
  const { memory, alloc, checksum_pages: checksumPages } = instance.exports;
  const ptr = alloc(npages * 8192);
  const pages = new Uint8Array(memory.buffer, ptr, npages * 8192);
  let s = 0x9e3779b97f4a7c15n;
  const M = (1n << 64n) - 1n;
  for (let i = 0; i < pages.length; i++) {
    s ^= s >> 12n;
    s ^= (s << 25n) & M;
    s ^= s >> 27n;
    pages[i] = Number(((s * 0x2545f4914f6cdd1dn) & M) >> 56n);
  }
  let sink = 0;
  const run = (n) => {
    for (let p = 0; p < n; p++) sink ^= checksumPages(body, ptr, 8192, npages, big, p);
    return sink;
  };
  const t0 = performance.now();
  while (performance.now() - t0 < 200) run(1);
  return run;
}

const ns = mods.map(() => []);
if (engine === 'node') {
  const runs = [];
  for (const m of mods) runs.push(await load(m.wasm, m.body, m.big, NPAGES));
  for (let r = 0; r < Number(repsArg); r++) {
    runs.forEach((run, i) => {
      const c0 = process.cpuUsage();
      run(passes);
      const c = process.cpuUsage(c0);
      ns[i].push(((c.user + c.system) * 1000) / (passes * NPAGES));
    });
  }
} else {
  const { chromium } = await import('@playwright/test');
  const marker = `--pgpage-cputime=${process.pid}`;
  // No zygote, so that the renderers are the browser's children.
  const browser = await chromium.launch({
    executablePath: process.env.PGPAGE_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-zygote', marker],
  });
  try {
    const page = await browser.newPage();
    await page.goto('about:blank');
    const pgrep = (...a) => execFileSync('pgrep', a, { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
    const renderers = pgrep('-P', pgrep('-f', '--', marker)[0], '-f', '--', '--type=renderer');
    const ran = () => renderers.reduce((t, pid) => t + Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]), 0);
    await page.evaluate(() => (globalThis.runs = []));
    for (const m of mods) {
      await page.evaluate(
        async ([source, wasm, body, big, npages]) => {
          const loadIn = new Function(`return (${source})`)();
          const bytes = Uint8Array.from(atob(wasm), (c) => c.charCodeAt(0));
          globalThis.runs.push(await loadIn(bytes, body, big, npages));
        },
        [load.toString(), m.wasm.toString('base64'), m.body, m.big, NPAGES],
      );
    }
    for (let r = 0; r < Number(repsArg); r++) {
      for (let i = 0; i < mods.length; i++) {
        const t0 = ran();
        await page.evaluate(([i, n]) => globalThis.runs[i](n), [i, passes]);
        ns[i].push((ran() - t0) / (passes * NPAGES));
      }
    }
    console.log(`Chromium ${browser.version()}`);
  } finally {
    await browser.close();
  }
}
mods.forEach((m, i) => {
  const v = ns[i].sort((a, b) => a - b);
  const med = v[v.length >> 1];
  console.log(`${m.label}\tmin ${v[0].toFixed(0)} ns/page\tmedian ${med.toFixed(0)} ns/page\t(${(8192 / med).toFixed(1)} GB/s)`);
});
