// One file, the whole inspector: the statically linked (musl) pgpage, copied alone into an
// empty directory, serves its app on 127.0.0.1; the app verifies a real PostgreSQL 16 data
// directory with one damaged page, as the static build does, and asks nothing of any other
// origin (the fixture fails the test on a request off this server).
import { expect, test } from './test';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Cluster } from '../pg/cluster';
import { makeDir } from './files';

const CRATES = resolve(dirname(fileURLToPath(import.meta.url)), '../../crates');
const TARGET = 'x86_64-unknown-linux-musl';
// A port of its own beside the preview server's, so that the request fixture's origin is it.
const PORT = Number(process.env.PGPAGE_PORT ?? 4173) + 31;
const BS = 8192;
const BAD = 2;

let server: ChildProcess | null = null;
let dataDir = '';
let banner = '';

test.use({ baseURL: `http://127.0.0.1:${PORT}/` });

test.beforeAll(async () => {
  test.setTimeout(1_500_000);
  // The musl build: a static binary that needs no library of the machine it is copied to.
  const built = spawnSync('cargo', ['build', '--release', '-q', '-p', 'pgpage-cli', '--target', TARGET], { cwd: CRATES, encoding: 'utf8' });
  expect(built.status, built.stderr).toBe(0);
  const alone = makeDir();
  const bin = join(alone, 'pgpage');
  copyFileSync(join(CRATES, 'target', TARGET, 'release', 'pgpage'), bin);
  const file = spawnSync('file', [bin], { encoding: 'utf8' });
  expect(file.stdout).toMatch(/statically linked|static-pie linked/);

  const c = Cluster.create('pgpage-serve', 16);
  try {
    c.sql(`create table t (id int primary key, note text);
      insert into t select g, repeat('x', 80) || g from generate_series(1, 600) g;
      checkpoint;`);
    const heap = c.relationPath('t');
    c.stop();
    dataDir = join(makeDir(), 'pgdata');
    cpSync(c.dataDir, dataDir, { recursive: true, filter: (src) => !/postmaster\.pid$/.test(src) });
    const path = join(dataDir, relative(c.dataDir, heap));
    const bytes = readFileSync(path);
    bytes[BAD * BS + 8000] ^= 0x10;
    writeFileSync(path, bytes);
  } finally {
    c.destroy();
  }

  server = spawn(bin, ['serve', '--port', String(PORT)], { cwd: alone, stdio: ['ignore', 'pipe', 'pipe'] });
  banner = await new Promise<string>((ok, fail) => {
    let out = '';
    server!.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) ok(out);
    });
    server!.on('exit', (code) => fail(new Error(`pgpage serve exited with ${code}`)));
  });
  // Nothing beside the binary: the app is inside it.
  expect(readdirSync(alone)).toEqual(['pgpage']);
});

test.afterAll(() => {
  server?.kill();
});

test('the musl binary alone serves the app, which verifies a data directory with nothing off 127.0.0.1', async ({ page, requests }) => {
  expect(banner).toContain(`the browser app at http://127.0.0.1:${PORT}/`);
  expect(existsSync(dataDir)).toBe(true);
  await page.goto('/');
  await page.getByTestId('folder-input').setInputFiles(dataDir);
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  await expect(page.getByTestId('verdict')).toHaveText(/^1 problem page in 1 file of the [\d,]+ files verified: the server would refuse to read them\.$/);
  await expect(page.getByTestId('problem')).toHaveAttribute('data-path', /^pgdata\/base\/5\/\d+$/);
  await expect(page.getByTestId('incident-report')).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  await expect(page.locator(`[data-testid=finding][data-block="${BAD}"]`)).toHaveCount(1);
  // The core's wasm came from this server.
  expect(requests.some((r) => /^GET http:\/\/127\.0\.0\.1:\d+\/assets\/.*\.wasm$/.test(r))).toBe(true);
});
