// The app's main states, reached as a user reaches them, for the tests that look at every
// state alike: the layout at phone and desktop widths, axe, and the screenshots kept as test
// artifacts. Each waits on the state's own attributes, never on time.
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, type Page } from './test';
import { clean, damaged, makeDir, type Made } from './files';
import { PG_BINDIR, pgTempDir, runPg } from '../pg/cluster';

const dir = makeDir();
const seg0 = damaged(dir, '16385', 12, 0, 1);
const good = clean(dir, '16390', 6);

async function choose(page: Page, files: Made[]): Promise<void> {
  await page.locator('[data-testid=file-input]').setInputFiles(files.map((f) => f.path));
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', /\d+/);
}

/** A data directory of initdb's (pg_control, PG_VERSION) with the damaged file in base/5. */
let dataDir: string | null = null;
function controlDir(): string {
  if (dataDir) return dataDir;
  const root = pgTempDir('pgpage-states-');
  const data = join(root, 'data');
  const r = runPg('initdb', ['-k', '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C', '-D', data]);
  if (r.status !== 0) throw new Error(`initdb: ${r.stderr}`);
  // Only what the panel needs and one relation file: the whole catalog would be 1,000 rows.
  const out = join(dir, 'cluster');
  mkdirSync(join(out, 'global'), { recursive: true });
  mkdirSync(join(out, 'base', '5'), { recursive: true });
  copyFileSync(join(data, 'global', 'pg_control'), join(out, 'global', 'pg_control'));
  copyFileSync(join(data, 'PG_VERSION'), join(out, 'PG_VERSION'));
  copyFileSync(seg0.path, join(out, 'base', '5', '16385'));
  rmSync(root, { recursive: true, force: true });
  dataDir = out;
  return out;
}

/** CRC-32C (Castagnoli, reflected, inverted in and out: pg_crc32c.h), written out here so the
 * rewritten pg_control below is checked by pg_controldata, not by pgpage's own CRC. */
function crc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * A data directory of a server built with 1,024 blocks per segment (PostgreSQL 16's
 * `--with-segsize-blocks=1024`): initdb's pg_control with blocks_per_segment rewritten and its
 * CRC made anew, held by pg_controldata; beside it base/5/16385.2 of 9 blocks. Relation
 * block 2054 is then block 6 of that file (2 × 1024 + 6); with 1 GB segments it would be in
 * segment 0.
 */
let segDir: string | null = null;
export function segsizeDir(): string {
  if (segDir) return segDir;
  const out = join(controlDir(), '..', 'segsize');
  mkdirSync(join(out, 'global'), { recursive: true });
  mkdirSync(join(out, 'base', '5'), { recursive: true });
  copyFileSync(join(controlDir(), 'PG_VERSION'), join(out, 'PG_VERSION'));
  const control = new Uint8Array(readFileSync(join(controlDir(), 'global', 'pg_control')));
  const v = new DataView(control.buffer);
  // pg_control.h (version 1300, PostgreSQL 13-16): relseg_size at 220, crc at 288.
  if (v.getUint32(8, true) !== 1300) throw new Error(`pg_control version ${v.getUint32(8, true)}: the offsets below are 1300's`);
  v.setUint32(220, 1024, true);
  v.setUint32(288, crc32c(control.subarray(0, 288)), true);
  writeFileSync(join(out, 'global', 'pg_control'), control);
  const said = spawnSync(join(PG_BINDIR, 'pg_controldata'), [out], { encoding: 'utf8' });
  if (said.status !== 0 || /CRC/i.test(said.stderr + said.stdout) || !/Blocks per segment of large relation:\s+1024$/m.test(said.stdout)) {
    throw new Error(`pg_controldata does not read the rewritten pg_control: ${said.stderr}${said.stdout}`);
  }
  copyFileSync(damaged(dir, '16385.2', 9, 2, 2).path, join(out, 'base', '5', '16385.2'));
  segDir = out;
  return out;
}

/** A whole data directory of initdb's, named from its catalogs; `damaged`: with a bad
 * checksum on block 0 of database postgres' pg_class. */
const namesDirs = new Map<boolean, string>();
function namesDir(damaged: boolean): string {
  const known = namesDirs.get(damaged);
  if (known) return known;
  const root = pgTempDir('pgpage-names-');
  const data = join(root, 'data');
  const r = runPg('initdb', ['-k', '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C', '-D', data]);
  if (r.status !== 0) throw new Error(`initdb: ${r.stderr}`);
  const out = join(dir, damaged ? 'damaged' : 'pgdata');
  cpSync(data, out, { recursive: true, filter: (src) => !/\/pg_wal\/./.test(src) });
  rmSync(root, { recursive: true, force: true });
  if (damaged) {
    // pg_class is mapped; initdb gives it the file named by its oid.
    const f = join(out, 'base', '5', '1259');
    const b = readFileSync(f);
    b[8000] ^= 0x10;
    writeFileSync(f, b);
  }
  namesDirs.set(damaged, out);
  return out;
}

export interface AppState {
  name: string;
  /** From a fresh page.goto('/') to the state, settled. */
  reach(page: Page): Promise<void>;
}

export const STATES: AppState[] = [
  {
    name: 'start',
    reach: async (page) => {
      await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'idle');
    },
  },
  {
    name: 'problems',
    reach: async (page) => {
      await choose(page, [seg0, good]);
      await expect(page.getByTestId('problem').first()).toBeVisible();
    },
  },
  {
    name: 'page',
    // A problem page opened from the list, an item selected in its table.
    reach: async (page) => {
      await choose(page, [seg0, good]);
      await page.locator('[data-testid=problem][data-block="1"]').click();
      await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', '1');
      await expect(page.getByTestId('hexview')).toHaveAttribute('data-complete', 'true');
      const item = page.locator('[data-testid=items-panel] tr[data-lp="2"]');
      // Its first cell: the row is wider than a phone, and a click at its middle would scroll
      // the table's box sideways.
      await item.locator('td').first().click();
      await expect(item).toHaveClass(/sel/);
      await page.getByTestId('page-view').scrollIntoViewIfNeeded();
    },
  },
  {
    name: 'lab',
    // Edit mode with a byte changed, the lab open with a finished experiment.
    reach: async (page) => {
      await choose(page, [good]);
      await expect(page.getByTestId('hexview')).toHaveAttribute('data-complete', 'true');
      await page.getByTestId('lab-edit').click();
      await page.locator('[data-testid=hexview] [data-off="8150"]').click();
      await page.keyboard.type('5a');
      await expect(page.getByTestId('page-view')).toHaveAttribute('data-status', 'mismatch');
      await page.getByTestId('lab').locator('summary').click();
      await page.getByTestId('lab-max-flips').fill('2');
      await page.getByTestId('lab-trials').fill('200');
      await page.getByTestId('lab-run-random').click();
      await expect(page.locator('[data-testid=lab-result][data-state=done]')).toHaveCount(2);
      await page.getByTestId('lab').scrollIntoViewIfNeeded();
    },
  },
  {
    name: 'tour',
    // The third step: line pointers, an item outlined on a sample page.
    reach: async (page) => {
      await page.getByTestId('tour-start').click();
      const tour = page.getByTestId('tour');
      await expect(tour).toHaveAttribute('data-step', '1');
      await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
      await tour.getByRole('button', { name: 'Next' }).click();
      await tour.getByRole('button', { name: 'Next' }).click();
      await expect(tour).toHaveAttribute('data-step', '3');
      await expect(page.locator('[data-testid=hexview] [data-highlight=true]').first()).toBeInViewport();
    },
  },
  {
    name: 'names',
    // A data directory listed by database and relation, a catalog table open to its indexes.
    reach: async (page) => {
      await page.getByTestId('folder-input').setInputFiles(namesDir(false));
      await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 90_000 });
      await expect(page.getByTestId('catalog')).toHaveAttribute('data-state', 'done');
      const row = page.locator('[data-testid=relation][data-relation="pg_catalog.pg_aggregate"]');
      await row.getByRole('button').click();
      await expect(page.locator('[data-testid=relation][data-parent="pg_catalog.pg_aggregate"]').first()).toBeVisible();
      await page.getByTestId('files-scroll').scrollIntoViewIfNeeded();
    },
  },
  {
    name: 'catalog-damaged',
    // A bad checksum on a pg_class page: named, and the relations whose rows it held listed
    // as not in pg_class.
    reach: async (page) => {
      await page.getByTestId('folder-input').setInputFiles(namesDir(true));
      await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 90_000 });
      await expect(page.getByTestId('catalog-damage')).toHaveCount(1);
      await expect(page.getByTestId('affected-relation').first()).toBeVisible();
      await page.getByTestId('catalog').scrollIntoViewIfNeeded();
    },
  },
  {
    name: 'control',
    reach: async (page) => {
      await page.getByTestId('folder-input').setInputFiles(controlDir());
      await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
      await expect(page.getByTestId('control')).toHaveAttribute('data-crc-ok', 'true');
    },
  },
  {
    name: 'goto-segment',
    // Ctrl+G in a data directory whose pg_control says 1,024 blocks per segment: the dialog
    // reads relation block 1030 with it and says the segment file that holds it.
    reach: async (page) => {
      await page.getByTestId('folder-input').setInputFiles(segsizeDir());
      await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
      await expect(page.getByTestId('control')).toHaveAttribute('data-crc-ok', 'true');
      // The page view in sight: its panels are laid out only when near the viewport
      // (content-visibility), as the user who scrolled to it sees them.
      await expect(page.getByTestId('hexview')).toHaveAttribute('data-complete', 'true');
      await page.getByTestId('page-view').scrollIntoViewIfNeeded();
      await page.keyboard.press('Control+g');
      await expect(page.getByTestId('goto-segment')).toHaveAttribute('data-assumed', 'false');
      await page.getByTestId('goto-input').fill('1030');
      await page.getByTestId('goto-input').press('Enter');
      await expect(page.getByTestId('goto-error')).toContainText('segment file 16385.1');
    },
  },
  {
    name: 'map-keyboard',
    // The page map with the keyboard's focus: a cell highlighted and named by its tooltip.
    reach: async (page) => {
      await choose(page, [seg0, good]);
      const map = page.getByTestId('pagemap');
      await map.focus();
      await page.keyboard.press('ArrowRight');
      await expect(page.getByTestId('pagemap-focus')).toHaveText(/^block \d+: /);
      await expect(page.getByTestId('pagemap-tip')).toBeVisible();
      await map.scrollIntoViewIfNeeded();
    },
  },
];
