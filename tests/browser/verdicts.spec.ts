// The browser's verdict of a file is the core's, as `pgpage verify --json` gives it: the same
// problem pages with the same statuses and checksums, the same claimed blocks, the same
// counts, and a partial last page as the server's short read at its block. The CLI is run
// here on the very files the page is given.
import { expect, test, type Page } from './test';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checksumless, clean, damaged, makeDir, sparse, write, type Made } from './files';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'crates/target/release/pgpage');
const SAMPLES = join(ROOT, 'public/samples');
const BS = 8192;

interface CliPage {
  block: number;
  status: string;
  stored: number;
  computed: number | null;
  matches_block?: number;
}
interface CliFile {
  blocks: number;
  trailing_bytes: number;
  pages: CliPage[];
}

/** `pgpage verify --json --all` of one file, and its exit status. */
function cli(path: string): { file: CliFile; status: number } {
  const r = spawnSync(CLI, ['verify', '--json', '--all', path], { encoding: 'utf8' });
  if (r.status === 2 || r.status === null) throw new Error(`pgpage verify: ${r.stderr}`);
  return { file: (JSON.parse(r.stdout) as { files: CliFile[] }).files[0], status: r.status };
}

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

const dir = makeDir();
const heap = readFileSync(join(SAMPLES, '16427'));
const truncated = write(dir, '16501', heap.subarray(0, 3 * BS + 1234));
const tiny = write(dir, '16502', heap.subarray(0, 42));
// A cluster without data checksums: every pd_checksum 0, and block 2's pd_lower past the page.
const offBytes = new Uint8Array(heap);
const view = new DataView(offBytes.buffer);
for (let b = 0; b < offBytes.length / BS; b++) view.setUint16(b * BS + 8, 0, true);
view.setUint16(2 * BS + 12, 9000, true);
const checksumsOff = write(dir, '16504', offBytes);
// The heap sample copied as segment 2: its pages were written as segment 0.
copyFileSync(join(SAMPLES, '16427'), join(dir, '16503.2'));
const misnamed: Made = { path: join(dir, '16503.2'), name: '16503.2', expected: [] };
const swapped: Made = { path: join(SAMPLES, '90004'), name: '90004', expected: [] };

async function choose(page: Page, files: Made[]): Promise<void> {
  await page.goto('/');
  await page.locator('[data-testid=file-input]').setInputFiles(files.map((f) => f.path));
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
}

/** The page's verdict of a file in the CLI's terms: problem rows, claims and counts. */
async function browserVerdict(page: Page, name: string) {
  const rows = await page.locator(`[data-testid=problem][data-file="${name}"]`).evaluateAll((els) =>
    els.map((e) => {
      const claim = e.querySelector<HTMLElement>('[data-testid=hint]')?.dataset.claim;
      return {
        block: Number(e.dataset.block),
        status: e.dataset.status,
        stored: Number(e.dataset.stored),
        computed: e.dataset.computed === '' ? null : Number(e.dataset.computed),
        claim: claim === undefined ? null : Number(claim),
      };
    }),
  );
  const row = page.locator(`[data-testid=file][data-file="${name}"]`);
  const counts: Record<string, number> = {};
  for (const s of ['ok', 'mismatch', 'zero', 'new_not_zero', 'bad_header']) counts[s] = Number(await row.locator(`[data-count=${s}]`).textContent());
  return { rows, counts, blocks: Number(await row.getByTestId('blocks').textContent()) };
}

function cliVerdict(f: CliFile) {
  const problems = f.pages.filter((p) => p.status !== 'ok' && p.status !== 'zero');
  const counts: Record<string, number> = { ok: 0, mismatch: 0, zero: 0, new_not_zero: 0, bad_header: 0 };
  for (const p of f.pages) counts[p.status]++;
  return {
    rows: problems.map((p) => ({ block: p.block, status: p.status, stored: p.stored, computed: p.computed, claim: p.matches_block ?? null })),
    counts,
    blocks: f.blocks,
  };
}

test('a truncated file and a 42-byte file: the short read at the block the server reads, as the CLI fails them', async ({ page }) => {
  await choose(page, [truncated, tiny]);
  for (const [f, block, bytes] of [
    [truncated, 3, 1234],
    [tiny, 0, 42],
  ] as const) {
    const c = cli(f.path);
    expect(c.status).toBe(1);
    expect([c.file.blocks, c.file.trailing_bytes]).toEqual([block, bytes]);
    expect(await browserVerdict(page, f.name)).toEqual(cliVerdict(c.file));
    const finding = page.locator(`[data-testid=file-finding][data-file="${f.name}"]`);
    await expect(finding).toHaveCount(1);
    await expect(finding).toHaveAttribute('data-block', String(block));
    await expect(finding).toContainText(`could not read block ${block} in file "${f.name}": read only ${bytes} of 8192 bytes`);
  }
  await expect(page.getByTestId('file-finding').filter({ hasText: 'block -1' })).toHaveCount(0);
  await expect(page.getByTestId('verdict')).not.toContainText('No problem pages');
});

test('a misnamed segment: one sentence for the file, the same mismatches as the CLI, no per-page hints', async ({ page }) => {
  await choose(page, [misnamed]);
  const c = cli(misnamed.path);
  expect(await browserVerdict(page, misnamed.name)).toEqual(cliVerdict(c.file));
  const finding = page.locator(`[data-testid=file-finding][data-file="16503.2"]`);
  await expect(finding).toHaveCount(1);
  await expect(finding).toHaveAttribute('data-code', 'written_as_segment');
  await expect(finding).toContainText('these pages were written as segment 0 of the relation (4 pages verify there)');
  for (const hint of await page.locator('[data-testid=problem] [data-testid=hint]').allTextContents()) expect(hint).toBe('');
});

test('swapped pages: each claims the other, said by what, as the CLI claims them', async ({ page }) => {
  await choose(page, [swapped]);
  const c = cli(swapped.path);
  const v = await browserVerdict(page, swapped.name);
  expect(v).toEqual(cliVerdict(c.file));
  expect(v.rows.map((r) => [r.block, r.claim])).toEqual([
    [1, 2],
    [2, 1],
  ]);
  await expect(page.locator('[data-testid=problem][data-block="1"] [data-testid=hint]')).toHaveText(
    "written for block 2: its checksum is valid there and its tuples' t_ctid name it",
  );
});

test('checksums off: only the page the server refuses (pd_lower 9000), no checksum message anywhere', async ({ page }) => {
  await choose(page, [checksumsOff]);
  const v = await browserVerdict(page, checksumsOff.name);
  expect(v.rows).toEqual([{ block: 2, status: 'bad_header', stored: 0, computed: null, claim: null }]);
  expect(v.counts).toEqual({ ok: 3, mismatch: 0, zero: 0, new_not_zero: 0, bad_header: 1 });
  await expect(page.getByTestId('checksums-disabled')).toContainText('16504: every page stores checksum 0');
  await expect(page.locator('[data-testid=file-finding][data-code=checksums_disabled]')).toHaveCount(1);
  // The page the server refuses: its ERROR, never a checksum WARNING it would not print.
  await page.locator('[data-testid=problem][data-block="2"]').click();
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-status', 'bad_header');
  await expect(page.getByTestId('page-verdict')).toHaveAttribute('data-computed', '');
  await expect(page.locator('[data-testid=hexview] [data-field=pd_checksum][data-mismatch=true]')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'pg_checksums line' })).toHaveCount(0);
  await page.getByRole('button', { name: 'server WARNING/ERROR' }).click();
  await expect(page.getByTestId('copied')).toBeVisible();
  const lines = await page.evaluate(() => navigator.clipboard.readText());
  expect(lines).not.toContain('WARNING');
  expect(lines).toMatch(/^ERROR: {2}invalid page in block 2 of relation /);
  // The file opens at the page the server refuses; the page before it the server reads: no
  // problem, and no mismatch marked.
  await page.locator('[data-testid=file][data-file="16504"] button.link').click();
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', '2');
  await page.keyboard.press('[');
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', '1');
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-status', 'ok');
  await expect(page.getByRole('button', { name: 'server WARNING/ERROR' })).toHaveCount(0);

  // The CLI decides with the same core function.
  expect(v).toEqual(cliVerdict(cli(checksumsOff.path).file));
});

// Every other file the tests hold: the samples, the verify fixtures, each single-page
// fixture as a file of its own (its checksum is for the block PostgreSQL wrote it at, which
// the file's block 0 may not be), and the synthetic files of the other browser tests. Loaded
// a few at a time, so every file's row is in view.
function everyTestFile(): Made[] {
  const d = makeDir();
  const out: Made[] = [];
  for (const n of readdirSync(SAMPLES).filter((n) => n !== 'manifest.json')) out.push({ path: join(SAMPLES, n), name: n, expected: [] });
  // Fixture directories reuse relfilenodes: each file gets its own, its fork and segment kept.
  const verifyDir = join(ROOT, 'tests/fixtures/verify');
  let node = 17000;
  for (const c of readdirSync(verifyDir).filter((c) => statSync(join(verifyDir, c)).isDirectory())) {
    for (const n of readdirSync(join(verifyDir, c)).filter((n) => /^\d+/.test(n))) {
      const name = n.replace(/^\d+/, String(node++));
      out.push(write(d, name, readFileSync(join(verifyDir, c, n))));
    }
  }
  const fixtures = join(ROOT, 'tests/fixtures');
  for (const c of readdirSync(fixtures).filter((c) => statSync(join(fixtures, c)).isDirectory() && c !== 'verify')) {
    const kind = c.startsWith('fsm') ? '_fsm' : c === 'vm' ? '_vm' : '';
    out.push(write(d, `${node++}${kind}`, readFileSync(join(fixtures, c, 'page.bin'))));
  }
  out.push(damaged(d, '17300', 12, 0, 1), damaged(d, '17301.2', 9, 2, 2), clean(d, '17302', 20), checksumless(d, '17303', 6));
  const heapPages = new Map([[3, readFileSync(join(SAMPLES, '16427')).subarray(BS, 2 * BS)]]);
  out.push(sparse(d, '17304', 64 * BS, heapPages));
  return out;
}

test('every test file: the same verdict in the browser as `pgpage verify --json`', async ({ page }) => {
  const files = everyTestFile();
  expect(files.length).toBeGreaterThan(40);
  const per = 8;
  const statuses = new Set<string>();
  for (let i = 0; i < files.length; i += per) {
    const group = files.slice(i, i + per);
    await choose(page, group);
    for (const f of group) {
      const want = cliVerdict(cli(f.path).file);
      expect(await browserVerdict(page, f.name), f.name).toEqual(want);
      for (const r of want.rows) statuses.add(r.claim === null ? r.status : `${r.status} claimed`);
    }
  }
  // The files hold the cases worth comparing: each problem status and a claimed block.
  expect([...statuses].sort()).toEqual(['bad_header', 'mismatch', 'mismatch claimed', 'new_not_zero']);
});

test('the CLI the tests run is the one built from this tree', () => {
  expect(execFileSync(CLI, ['--version'], { encoding: 'utf8' })).toMatch(/pgpage/);
});
