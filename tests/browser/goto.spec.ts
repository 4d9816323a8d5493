// Ctrl+G: a dialog with a labelled field that takes a block of the file, a relation-wide
// block as the server prints it, or a byte offset; refuses with a reason it shows, never
// clamping; Escape closes it and focus goes back where it was. Screenshots at desktop and
// phone sizes, light and dark, are kept as test artifacts.
import { expect, test, type Page } from './test';
import { damaged, makeDir, problemsOf, type Made } from './files';
import { shots } from './shots';
import { segsizeDir } from './states';

const ASSUMED = "131,072 blocks per segment assumed (1 GB segments, the default: no pg_control of this file's data directory was dropped)";

const dir = makeDir();
// 16385.2: segment 2, 9 blocks; 16385: segment 0 of the same relation, 12 blocks.
const seg2 = damaged(dir, '16385.2', 9, 2, 2);
const seg0 = damaged(dir, '16385', 12, 0, 1);

async function choose(page: Page, files: Made[]): Promise<void> {
  await page.locator('[data-testid=file-input]').setInputFiles(files.map((f) => f.path));
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 30_000 });
}

async function goTo(page: Page, text: string): Promise<void> {
  await page.keyboard.press('Control+g');
  const dialog = page.getByRole('dialog', { name: 'Go to' });
  await expect(dialog).toBeVisible();
  const input = dialog.getByLabel(/Block, relation block or byte offset/);
  await expect(input).toBeFocused();
  await input.fill(text);
  await input.press('Enter');
}

test('Ctrl+G goes to a block, a relation-wide block or a byte offset of the shown file', async ({ page }) => {
  await page.goto('/');
  await choose(page, [seg2]);
  const view = page.getByTestId('page-view');
  // Opened at its first problem page, or at the incident report's first finding when the
  // report comes in (it ranks the all-zero page among the rows first): which comes first
  // depends on the machine's load. Ctrl+G is tested from there.
  await expect(page.getByTestId('incident-report')).toHaveAttribute('data-state', 'done', { timeout: 30_000 });
  const opened = [String(problemsOf(seg2)[0].block), ...seg2.expected.filter((e) => e.status === 'zero').map((e) => String(e.block))];
  await expect.poll(async () => opened.includes((await view.getAttribute('data-block')) ?? ''), { timeout: 30_000 }).toBe(true);

  await goTo(page, '3');
  await expect(view).toHaveAttribute('data-block', '3');
  await expect(page.getByTestId('goto')).toHaveCount(0);

  // The server's number for block 6 of segment 2: 2 * 131072 + 6.
  await goTo(page, '262150');
  await expect(view).toHaveAttribute('data-block', '6');
  await expect(page).toHaveURL(/#file=16385\.2&block=6&off=0$/);
  // No pg_control was dropped: the page says the segment size was assumed.
  await expect(page.getByTestId('goto-note')).toHaveText(`Block 6 of 16385.2: relation block 262,150 read with ${ASSUMED}.`);

  // 0x2000 is the first byte of block 1; @8200 is byte 8 of it.
  await goTo(page, '0x2000');
  await expect(view).toHaveAttribute('data-block', '1');
  await goTo(page, '@8200');
  await expect(page).toHaveURL(/&block=1&off=8$/);
  await expect(page.locator('[data-testid=hexview] .cursor')).toHaveAttribute('data-off', '8');
});

test('Ctrl+G refuses abc, -5, a block past the end and a segment not loaded, saying why, and Escape puts focus back', async ({ page }) => {
  await page.goto('/');
  await choose(page, [seg2]);
  const view = page.getByTestId('page-view');
  await goTo(page, '2');
  await expect(view).toHaveAttribute('data-block', '2');
  const url = page.url();
  const error = page.getByTestId('goto-error');
  const input = page.getByTestId('goto-input');

  await goTo(page, 'abc');
  await expect(error).toContainText('"abc" is not a block number or a byte offset');
  await expect(input).toHaveAttribute('aria-invalid', 'true');
  await input.fill('-5');
  await input.press('Enter');
  await expect(error).toHaveText('-5 is negative: blocks are numbered from 0');
  // Past the end of 16385.2; as the server numbers blocks, 9 is in segment 0.
  await input.fill('9');
  await input.press('Enter');
  await expect(error).toHaveText(
    `9 is past the end of 16385.2 (9 blocks, 0 to 8); as the server numbers blocks (relation-wide, ${ASSUMED}), it is block 9 of segment file 16385, which is not loaded: drop it too to see it`,
  );
  await input.fill('0x12000');
  await input.press('Enter');
  await expect(error).toContainText('is past the end');
  // Relation block 131075 is block 3 of segment 1, 16385.1, which was not dropped.
  await input.fill('131075');
  await input.press('Enter');
  await expect(error).toContainText(
    '131075 is past the end of 16385.2 (9 blocks, 0 to 8); as the server numbers blocks (relation-wide, 131,072 blocks per segment assumed',
  );
  await expect(error).toContainText('it is block 3 of segment file 16385.1, which is not loaded');
  await expect(page.getByTestId('goto-segment')).toHaveAttribute('data-assumed', 'true');
  await shots(page, 'goto-refused');
  // Nothing moved while it refused, and the URL says so.
  await expect(view).toHaveAttribute('data-block', '2');
  expect(page.url()).toBe(url);

  // Escape closes it, and focus returns to what had it (the problem row clicked).
  await input.press('Escape');
  await expect(page.getByTestId('goto')).toHaveCount(0);
  const row = page.locator('[data-testid=problem]').first();
  await row.focus();
  await page.keyboard.press('Control+g');
  await expect(page.getByTestId('goto-input')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('goto')).toHaveCount(0);
  await expect(row).toBeFocused();
});

test('Ctrl+G opens the segment file that holds a relation-wide block when it is loaded', async ({ page }) => {
  await page.goto('/');
  await choose(page, [seg2, seg0]);
  await page.locator('[data-testid=problem][data-file="16385.2"]').first().click();
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-file', '16385.2');
  // 10 is past the end of 16385.2 (9 blocks): the server's relation block 10 is in segment 0.
  await goTo(page, '10');
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-file', '16385');
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-block', '10');
  await shots(page, 'goto-other-segment');
});

test("Ctrl+G reads relation-wide blocks with the segment size of the data directory's pg_control", async ({ page }) => {
  await page.goto('/');
  // pg_control says 1,024 blocks per segment (a server built --with-segsize-blocks=1024).
  await page.getByTestId('folder-input').setInputFiles(segsizeDir());
  await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 30_000 });
  await expect(page.getByTestId('control')).toHaveAttribute('data-crc-ok', 'true');
  const view = page.getByTestId('page-view');
  await expect(view).toHaveAttribute('data-file', '16385.2');

  await page.keyboard.press('Control+g');
  await expect(page.getByTestId('goto-segment')).toHaveText('1,024 blocks per segment, as pg_control records (RELSEG_SIZE)');
  await expect(page.getByTestId('goto-segment')).toHaveAttribute('data-assumed', 'false');
  await page.keyboard.press('Escape');
  // 2054 = 2 × 1024 + 6: block 6 of segment 2, where 1 GB segments would put it in segment 0.
  await goTo(page, '2054');
  await expect(view).toHaveAttribute('data-block', '6');
  await expect(page.getByTestId('goto-note')).toHaveText(
    'Block 6 of 16385.2: relation block 2,054 read with 1,024 blocks per segment, as pg_control records (RELSEG_SIZE).',
  );
  // 1030 = 1 × 1024 + 6: in segment 1, which was not dropped.
  await goTo(page, '1030');
  await expect(page.getByTestId('goto-error')).toContainText(
    '1030 is past the end of 16385.2 (9 blocks, 0 to 8); as the server numbers blocks (relation-wide, 1,024 blocks per segment, as pg_control records (RELSEG_SIZE)), it is block 6 of segment file 16385.1',
  );
  await shots(page, 'goto-segment-size-from-pg-control');
});
