// Browser end to end for bench/run.sh: runs the Playwright bench (tests/browser-bench) in
// Debian's chromium against the built app and prints its figures as a Markdown section.
// Usage: node bench/browser.mjs SECONDS PAGES [--smoke]   (a smoke run verifies 16 MB)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

if (!existsSync('dist/index.html')) spawnSync('bash', ['scripts/build.sh'], { stdio: 'inherit' });

const smoke = process.argv.includes('--smoke');
const mb = smoke ? '16' : (process.env.PGPAGE_BENCH_MB ?? '1024');
const r = spawnSync('npx', ['playwright', 'test', '-c', 'tests/browser-bench', '--reporter=list'], {
  encoding: 'utf8',
  env: {
    ...process.env,
    PGPAGE_BENCH_MB: mb,
    PGPAGE_BENCH_SET_MB: smoke ? '64' : (process.env.PGPAGE_BENCH_SET_MB ?? '4096'),
    // A smoke run's rows bench makes a small cluster of its own instead of the 1 GB one.
    ...(smoke ? { PGPAGE_BENCH_ROWS: '20000', PGPAGE_BENCH_RELATIONS: '0' } : {}),
  },
  maxBuffer: 1 << 26,
});
const lines = (r.stdout ?? '').split('\n');
const start = lines.findIndex((l) => l.startsWith('chromium '));
console.log(`\n## 4. Browser end to end (${mb} MB relation file)\n`);
if (r.status !== 0 || start < 0) {
  console.log('The browser bench failed:\n```\n' + (r.stdout + r.stderr).slice(-3000) + '\n```');
  process.exit(1);
}
const body = lines.slice(start, start + 12).filter((l) => /\S/.test(l));
const targets = lines.filter((l) => l.startsWith('target: ')).map((l) => `- ${l.slice('target: '.length)}`);
const memory = lines.filter((l) => l.startsWith('memory: ')).map((l) => l.slice('memory: '.length));
console.log('```\n' + body.join('\n') + '\n```');
console.log('\nTargets:\n' + targets.join('\n'));
console.log(`\n### Memory (${smoke ? '64' : (process.env.PGPAGE_BENCH_SET_MB ?? '4096')} MB set of segment files)\n`);
console.log('```\n' + memory.join('\n') + '\n```');
console.log('Target: flat, under 256 MB of growth for a 4 GB set.');
const datadir = lines.filter((l) => l.startsWith('datadir: ')).map((l) => l.slice('datadir: '.length));
if (datadir.length > 0) {
  console.log(`\n### A whole data directory (the CLI section's cluster, chosen with the folder picker)\n`);
  console.log('```\n' + datadir.join('\n') + '\n```');
}
const damage = lines.filter((l) => l.startsWith('damage: ')).map((l) => l.slice('damage: '.length));
if (damage.length > 0) {
  console.log(`\n### Single-bit-flip localisation per page (tests/browser-bench/damage.bench.spec.ts)\n`);
  console.log('```\n' + damage.join('\n') + '\n```');
  console.log('Target: under 5 ms per page in the browser (issue 18).');
}
const rows = lines.filter((l) => l.startsWith('rows: ')).map((l) => l.slice('rows: '.length));
if (rows.length > 0) {
  console.log(`\n### Rows view and CSV export of the CLI section's table (tests/browser-bench/rows.bench.spec.ts)\n`);
  console.log('```\n' + rows.join('\n') + '\n```');
}
if (smoke) console.log('(smoke run: timings meaningless)');
