// The page view as a DBA reads it: pageinspect's column order, values decoded on hover,
// items and bytes selecting each other, visibility and free space maps drawn as what they
// are, a page map that names the block under the pointer and numbers its rows and columns,
// and a hex dump that never moves under the pointer. The files are PostgreSQL's own
// (public/samples/, made by scripts/make-samples.sh); expected values are read from their
// bytes here, by the layouts of PostgreSQL's headers, not from pgpage. Each test leaves
// screenshots at 1440x900 and 390x844, light and dark, as artifacts.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TestInfo } from '@playwright/test';
import { expect, test, type Locator, type Page } from './test';
import { damaged, makeDir, problemsOf } from './files';

const sample = (name: string) => fileURLToPath(new URL(`../../public/samples/${name}`, import.meta.url));
const BS = 8192;

/** Opens the files; the first shows `block`, its first problem page (0 when it has none). */
async function open(page: Page, files: string[], block = 0): Promise<void> {
  await page.goto('/');
  await page.getByTestId('file-input').setInputFiles(files);
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done');
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', String(block));
}

async function toBlock(page: Page, block: number): Promise<void> {
  const view = page.getByTestId('page-view');
  while (Number(await view.getAttribute('data-block')) < block) {
    const now = Number(await view.getAttribute('data-block'));
    await page.getByRole('button', { name: 'next page' }).click();
    await expect(view).toHaveAttribute('data-block', String(now + 1));
  }
}

const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
];

/** Screenshots of `what` (the page when absent) at both sizes in both colour schemes. */
async function shots(page: Page, testInfo: TestInfo, name: string, what?: () => Locator, before?: () => Promise<void>): Promise<void> {
  for (const vp of VIEWPORTS) {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.setViewportSize(vp);
      await page.emulateMedia({ colorScheme });
      if (before) await before();
      const file = testInfo.outputPath(`${name}-${vp.width}x${vp.height}-${colorScheme}.png`);
      const el = what?.();
      if (el) {
        await el.scrollIntoViewIfNeeded();
        await el.screenshot({ path: file });
      } else await page.screenshot({ path: file });
      await testInfo.attach(`${name} ${vp.width}x${vp.height} ${colorScheme}`, { path: file, contentType: 'image/png' });
    }
  }
  await page.setViewportSize(VIEWPORTS[0]);
  await page.emulateMedia({ colorScheme: 'light' });
}

/** htup_details.h: t_infomask's bits. */
const INFOMASK: Record<string, number> = {
  HEAP_HASNULL: 0x0001,
  HEAP_HASVARWIDTH: 0x0002,
  HEAP_HASEXTERNAL: 0x0004,
  HEAP_HASOID_OLD: 0x0008,
  HEAP_XMAX_KEYSHR_LOCK: 0x0010,
  HEAP_COMBOCID: 0x0020,
  HEAP_XMAX_EXCL_LOCK: 0x0040,
  HEAP_XMAX_LOCK_ONLY: 0x0080,
  HEAP_XMIN_COMMITTED: 0x0100,
  HEAP_XMIN_INVALID: 0x0200,
  HEAP_XMAX_COMMITTED: 0x0400,
  HEAP_XMAX_INVALID: 0x0800,
  HEAP_XMAX_IS_MULTI: 0x1000,
  HEAP_UPDATED: 0x2000,
  HEAP_MOVED_OFF: 0x4000,
  HEAP_MOVED_IN: 0x8000,
};

test.describe('page view', () => {
  test('header and item columns come in pageinspect’s order', async ({ page }, testInfo) => {
    await open(page, [sample('16427')]);
    // page_header()'s columns, then heap_page_items()' (docs/contracts.md, "inspect --json";
    // tests/pg/pageview holds the wasm output against the server's own column lists).
    await expect(page.locator('[data-testid=header-panel] th')).toHaveText([
      'lsn',
      'checksum',
      'flags',
      'lower',
      'upper',
      'special',
      'pagesize',
      'version',
      'prune_xid',
    ]);
    const heads = await page.locator('[data-testid=items-panel] thead th').allTextContents();
    expect(heads.slice(0, 14)).toEqual([
      'lp',
      'lp_off',
      'lp_flags',
      'lp_len',
      't_xmin',
      't_xmax',
      't_field3',
      't_ctid',
      't_infomask2',
      't_infomask',
      't_hoff',
      't_bits',
      't_oid',
      't_data',
    ]);
    expect(heads.slice(14)).toEqual(['raw_flags', 'combined_flags']);
    await shots(page, testInfo, 'columns', () => page.getByTestId('items-panel'));
  });

  test('hovering a value shows its decoded form', async ({ page }, testInfo) => {
    await open(page, [sample('16427')]);
    const bytes = new Uint8Array(readFileSync(sample('16427'))).subarray(0, BS);
    const hover = page.getByTestId('hover-value');
    const hex = page.getByTestId('hexview');

    // pd_lsn as X/Y: xlogid then xrecoff, little-endian, as pg_lsn prints them.
    await hex.locator('[data-field=pd_lsn]').first().hover();
    const dv = new DataView(bytes.buffer, bytes.byteOffset);
    await expect(hover).toHaveText(`${dv.getUint32(0, true).toString(16).toUpperCase()}/${dv.getUint32(4, true).toString(16).toUpperCase()}`);

    // Line pointer 1 and its tuple's header (htup_details.h offsets from lp_off).
    const lp1 = dv.getUint32(24, true);
    const off = lp1 & 0x7fff;
    const ctid = `(${(dv.getUint16(off + 12, true) << 16) | dv.getUint16(off + 14, true)},${dv.getUint16(off + 16, true)})`;
    await hex.locator(`[data-off="${off + 12}"]`).hover();
    await expect(hover).toHaveText(ctid);
    // t_infomask: only the names of the bits that are set.
    const infomask = dv.getUint16(off + 20, true);
    const set = Object.entries(INFOMASK)
      .filter(([, bit]) => infomask & bit)
      .map(([n]) => n);
    await hex.locator(`[data-off="${off + 20}"]`).hover();
    await expect(hover).toHaveText(`0x${infomask.toString(16).toUpperCase()} ${set.join('|')}`);
    // t_xmax: InvalidTransactionId when zero, by name (access/transam.h).
    const xmax = dv.getUint32(off + 4, true);
    await hex.locator(`[data-off="${off + 4}"]`).hover();
    await expect(hover).toHaveText(xmax === 0 ? '0 (InvalidTransactionId)' : xmax <= 2 ? new RegExp(`^${xmax} \\(`) : String(xmax));

    // The items table: a cell's title and the hover line give its bytes' decoded form.
    const row = page.locator('[data-testid=items-panel] tr[data-lp="1"]');
    await expect(row.locator('td[data-col=t_ctid]')).toHaveText(ctid);
    await expect(row.locator('td[data-col=t_ctid]')).toHaveAttribute('title', ctid);
    await row.locator('td[data-col=t_infomask]').hover();
    await expect(hover).toHaveText(`0x${infomask.toString(16).toUpperCase()} ${set.join('|')}`);
    await expect(page.getByTestId('hover')).toHaveAttribute('data-qualified', 'HeapTupleHeaderData.t_infomask');
    await shots(page, testInfo, 'hover', undefined, async () => {
      await row.locator('td[data-col=t_infomask]').hover();
      await expect(hover).toHaveText(/HEAP_/);
    });
  });

  test('items and bytes select each other; the hex view scrolls to the tuple', async ({ page }, testInfo) => {
    await open(page, [sample('16427')]);
    const dv = new DataView(readFileSync(sample('16427')).buffer.slice(0, BS));
    const hex = page.getByTestId('hexview');
    const inView = async (el: Locator, box: Locator) => {
      const [a, b] = [await el.boundingBox(), await box.boundingBox()];
      return a !== null && b !== null && a.y >= b.y - 1 && a.y + a.height <= b.y + b.height + 1;
    };
    // Line pointer 1's tuple lies near the page's end: picking its row scrolls the dump there.
    const off1 = dv.getUint32(24, true) & 0x7fff;
    await page.locator('[data-testid=items-panel] tr[data-lp="1"]').click();
    await expect(page.locator('[data-testid=items-panel] tr[data-lp="1"]')).toHaveAttribute('aria-selected', 'true');
    const first = hex.locator(`[data-off="${off1}"]`);
    await expect(first).toHaveClass(/\bsel\b/);
    await expect.poll(() => inView(first, hex)).toBe(true);
    // A byte of another item's tuple selects that item's row and brings it into the table's view.
    const lps = (dv.getUint16(12, true) - 24) / 4;
    const last = lps;
    const offLast = dv.getUint32(24 + (last - 1) * 4, true) & 0x7fff;
    await hex.locator(`[data-off="${offLast + 30}"]`).scrollIntoViewIfNeeded();
    await hex.locator(`[data-off="${offLast + 30}"]`).click();
    const lastRow = page.locator(`[data-testid=items-panel] tr[data-lp="${last}"]`);
    await expect(lastRow).toHaveAttribute('aria-selected', 'true');
    await expect(hex.locator(`[data-off="${offLast}"]`)).toHaveClass(/\bsel\b/);
    await expect.poll(() => inView(lastRow, page.locator('.items-scroll'))).toBe(true);
    await shots(page, testInfo, 'selection');
  });

  test('a visibility map page is a grid of heap blocks and their bits', async ({ page }, testInfo) => {
    await open(page, [sample('16427_vm')]);
    const bytes = new Uint8Array(readFileSync(sample('16427_vm'))).subarray(0, BS);
    // visibilitymap.c: two bits per heap block from byte 24 on, four blocks a byte, low first.
    const bitsOf = (blk: number) => (bytes[24 + (blk >> 2)] >> (2 * (blk & 3))) & 3;
    const vm = page.getByTestId('vm-map');
    await expect(vm).toHaveAttribute('data-heap-blocks', String((BS - 24) * 4));
    await expect(vm).toContainText('a capacity');
    await expect(page.getByText('Special space')).toHaveCount(0);
    const cells = await vm.locator('[data-heap-block]').evaluateAll((els) => els.map((e) => [Number(e.dataset.heapBlock), Number(e.dataset.bits)]));
    expect(cells.length).toBeGreaterThan(0);
    for (const [blk, bits] of cells) expect([blk, bits]).toEqual([blk, bitsOf(blk)]);
    let last = -1;
    for (let b = 0; b < (BS - 24) * 4; b++) if (bitsOf(b) !== 0) last = b;
    expect(Math.max(...cells.map((c) => c[0]))).toBeGreaterThanOrEqual(last);
    await shots(page, testInfo, 'vm', () => vm);
  });

  test('a free space map page shows its level, tree and the heap blocks its leaves stand for', async ({ page }, testInfo) => {
    await open(page, [sample('16427_fsm')]);
    const file = new Uint8Array(readFileSync(sample('16427_fsm')));
    const fsm = page.getByTestId('fsm-map');
    // freespace.c's layout: block 0 the root (level 2), 1 level 1, 2 the first leaf page.
    await expect(fsm).toHaveAttribute('data-fsm-level', '2');
    await toBlock(page, 1);
    await expect(fsm).toHaveAttribute('data-fsm-level', '1');
    await toBlock(page, 2);
    await expect(fsm).toHaveAttribute('data-fsm-level', '0');
    await expect(fsm).toHaveAttribute('data-logical-page', '0');
    // fsm_internals.h: fp_nodes at 24 + 4, NonLeafNodesPerPage = 8192 / 2 - 1 non-leaf nodes
    // first; leaf slot i of the first leaf page is heap block i.
    const leaf0 = 2 * BS + 28 + (BS / 2 - 1);
    const cells = await fsm
      .locator('[data-slot]')
      .evaluateAll((els) => els.map((e) => [Number(e.dataset.slot), Number(e.dataset.heapBlock), Number(e.dataset.category)]));
    expect(cells.length).toBeGreaterThan(0);
    for (const [slot, heap, cat] of cells) expect([slot, heap, cat]).toEqual([slot, slot, file[leaf0 + slot]]);
    await expect(fsm.locator('[data-testid=fsm-level]')).toHaveCount(13);
    await expect(fsm.locator('[data-testid=fsm-level][data-depth="0"]')).toHaveAttribute('data-max', String(file[2 * BS + 28]));
    await shots(page, testInfo, 'fsm', () => fsm);
  });

  test('the page map names the block under the pointer and numbers its rows and columns', async ({ page }, testInfo) => {
    const dir = makeDir();
    const f = damaged(dir, '16385', 300, 0, 3);
    await open(page, [f.path], problemsOf(f)[0].block);
    const canvas = page.getByTestId('pagemap');
    const width = await canvas.evaluate((c: HTMLCanvasElement) => c.width);
    // The canvas is perRow x rows cells of one size, the last row the only one not full.
    const perRow = await canvas.evaluate((c: HTMLCanvasElement, blocks: number) => {
      for (let cell = 14; cell >= 2; cell--)
        if (c.width % cell === 0 && c.height % cell === 0 && Math.ceil(blocks / (c.width / cell)) === c.height / cell) return c.width / cell;
      return 0;
    }, 300);
    expect(perRow).toBeGreaterThan(0);
    // Rows are labelled with their first block: 0, then multiples of the row's width, rising.
    const rowLabels = (await page.getByTestId('pagemap-rows').locator('span').allTextContents()).map(Number);
    expect(rowLabels[0]).toBe(0);
    expect(rowLabels.length).toBeGreaterThan(1);
    rowLabels.forEach((l, i) => {
      expect(l % perRow).toBe(0);
      if (i > 0) expect(l).toBeGreaterThan(rowLabels[i - 1]);
    });
    expect(rowLabels[rowLabels.length - 1]).toBeLessThan(300);
    await expect(page.getByTestId('pagemap-cols').locator('span').first()).toHaveText('+0');
    const box = (await canvas.boundingBox())!;
    const cellPx = (box.width / width) * (width / perRow);
    for (const want of problemsOf(f).slice(0, 3)) {
      const b = want.block;
      await canvas.hover({ position: { x: ((b % perRow) + 0.5) * cellPx, y: (Math.floor(b / perRow) + 0.5) * cellPx } });
      const tip = page.getByTestId('pagemap-tip');
      await expect(tip).toHaveAttribute('data-block', String(b));
      await expect(tip).toContainText(`block ${b}: `);
      await expect(tip).toContainText(
        want.status === 'mismatch' ? 'checksum mismatch' : want.status === 'new_not_zero' ? 'pd_upper is 0' : want.status === 'bad_header' ? 'insane' : '',
      );
    }
    await shots(
      page,
      testInfo,
      'pagemap',
      () => page.locator('.pagemap'),
      async () => {
        const b = problemsOf(f)[0].block;
        const bb = (await canvas.boundingBox())!;
        const px = bb.width / perRow;
        await canvas.hover({ position: { x: ((b % perRow) + 0.5) * px, y: (Math.floor(b / perRow) + 0.5) * px } });
        await expect(page.getByTestId('pagemap-tip')).toHaveAttribute('data-block', String(b));
      },
    );
  });

  test('the page map by keyboard alone: Tab to it, arrows move a named cell, Enter opens that page', async ({ page }, testInfo) => {
    const dir = makeDir();
    const f = damaged(dir, '16385', 300, 0, 3);
    const first = problemsOf(f)[0].block;
    await open(page, [f.path], first);
    const canvas = page.getByTestId('pagemap');
    await expect(canvas).toHaveAccessibleName(/^page map of 300 blocks/);
    // Tab from the top of the page until the map has the focus: it is on the keyboard's path.
    await page.locator('body').focus();
    let tabs = 0;
    while (!(await canvas.evaluate((c) => c === document.activeElement))) {
      expect(++tabs, 'Tab presses before the page map').toBeLessThan(200);
      await page.keyboard.press('Tab');
    }
    // The highlighted cell starts at the page shown, its words live for a screen reader.
    const live = page.getByTestId('pagemap-focus');
    await expect(live).toHaveAttribute('data-block', String(first));
    await expect(live).toHaveText(new RegExp(`^block ${first}: `));
    const perRow = Number(await canvas.getAttribute('data-cols'));
    // Two to the right and one down, never leaving the file.
    const want = Math.min(299, first + 2 + perRow);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    await expect(live).toHaveAttribute('data-block', String(want));
    const status = f.expected[want].status;
    // Its status as the core names it (the verdict's words follow it).
    await expect(live).toHaveText(new RegExp(`^block ${want}: ${status} — .+\\. Enter opens it\\.$`));
    await expect(page.getByTestId('pagemap-tip')).toHaveAttribute('data-block', String(want));
    await shots(
      page,
      testInfo,
      'pagemap-keyboard',
      () => page.locator('.pagemap'),
      async () => {
        await canvas.focus();
        await expect(live).toHaveAttribute('data-block', String(want));
      },
    );
    await canvas.focus();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', String(want));
    await expect(page).toHaveURL(new RegExp(`&block=${want}&`));
    // Ctrl+End: the last block.
    await canvas.focus();
    await page.keyboard.press('Control+End');
    await expect(live).toHaveAttribute('data-block', '299');
  });

  for (const vp of VIEWPORTS) {
    test(`nothing moves under the pointer in the hex view at ${vp.width}x${vp.height}`, async ({ page }, testInfo) => {
      await page.setViewportSize(vp);
      await open(page, [sample('16427')]);
      const hex = page.getByTestId('hexview');
      await expect(hex).toHaveAttribute('data-complete', 'true');
      await hex.scrollIntoViewIfNeeded();
      const dumpBox = await hex.boundingBox();
      // Bytes of every kind of field, header to tuples: the hover line's text changes with each.
      const offs = [0, 8, 10, 12, 20, 24, 25, 28, 40, 60, 100, 160, 200, 230];
      const dv = new DataView(readFileSync(sample('16427')).buffer.slice(0, BS));
      const off1 = dv.getUint32(24, true) & 0x7fff;
      for (let i = 0; i < 48; i++) offs.push(off1 + i);
      const clipped: number[] = [];
      for (const off of offs) {
        const b = hex.locator(`[data-off="${off}"]`);
        // Wholly inside the dump's scrollport: on a phone the rows scroll sideways, and a
        // byte half under the scroll bar is not under the pointer at its centre.
        await b.evaluate((e) => e.scrollIntoView({ block: 'center', inline: 'center' }));
        const before = (await b.boundingBox())!;
        const x = before.x + before.width / 2;
        const y = before.y + before.height / 2;
        const atPoint = () => page.evaluate(([px, py]) => document.elementFromPoint(px, py)?.closest('[data-off]')?.getAttribute('data-off'), [x, y]);
        if ((await atPoint()) !== String(off)) {
          // Clipped by the layout (a phone's narrow column), not moved by the hover: noted.
          clipped.push(off);
          continue;
        }
        await page.mouse.move(x, y);
        await expect(page.getByTestId('hover')).toContainText(`offset ${off} `);
        const after = (await b.boundingBox())!;
        expect(after, `byte ${off}`).toEqual(before);
        expect(await atPoint(), `the element under the pointer at byte ${off}`).toBe(String(off));
        expect(await hex.boundingBox(), `the dump at byte ${off}`).toEqual(await hex.boundingBox());
      }
      if (vp.width >= 1024) expect(clipped).toEqual([]);
      expect(clipped.length, `bytes the layout clips: ${clipped.join(' ')}`).toBeLessThan(offs.length / 4);
      if (clipped.length > 0)
        testInfo.annotations.push({
          type: 'clipped bytes',
          description: `${clipped.length} of ${offs.length} bytes lie outside the dump's box: ${clipped.join(' ')}`,
        });
      // Clicking a byte selects its item: nothing above the dump appears or grows.
      await hex.scrollIntoViewIfNeeded();
      const top = (await hex.boundingBox())!;
      const b = hex.locator(`[data-off="${off1 + 30}"]`);
      await b.scrollIntoViewIfNeeded();
      const before = (await b.boundingBox())!;
      const pageScroll = await page.evaluate(() => window.scrollY);
      await b.click();
      await expect(b).toHaveClass(/\bsel\b/);
      expect(await b.boundingBox()).toEqual(before);
      expect(await page.evaluate(() => window.scrollY)).toBe(pageScroll);
      expect((await hex.boundingBox())!.height).toBe(top.height);
      if (dumpBox) expect((await hex.boundingBox())!.width).toBe(dumpBox.width);
      const file = testInfo.outputPath(`steady-${vp.width}x${vp.height}.png`);
      await page.screenshot({ path: file });
      await testInfo.attach(`hex view after hovering ${offs.length} bytes at ${vp.width}x${vp.height}`, { path: file, contentType: 'image/png' });
    });
  }
});
