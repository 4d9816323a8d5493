// The playground as a teacher uses it, at a desktop and a phone size: each lesson step shows
// its SQL and a question before it runs and its explanation only after; the picture of a heap
// page's line pointers draws the redirects and HOT links the core reads off the page; each
// changed page gets the core's one sentence; the new lessons' changes are checked; and the
// corruption lesson shows the moment a hint-bit write reseals the damaged page.
import { LESSONS, type LessonStep } from '../../web/src/playground/lessons';
import { SIZES } from './shots';
import { expect, test, type Page } from './test';

async function openPlayground(page: Page): Promise<void> {
  page.on('console', (m) => {
    if (m.type() === 'error') console.log(`console: ${m.text()}`);
  });
  await page.goto('/');
  await page.getByTestId('playground-start').click();
  await expect(page.getByTestId('playground')).toHaveAttribute('data-state', 'ready', { timeout: 90_000 });
}

let current: { steps: LessonStep[]; next: number } = { steps: [], next: 0 };

/** Before the step: its SQL and question on screen, no explanation of it yet. Runs it, then:
 * its explanation, every change it expects checked, and the next step's SQL waiting. A step
 * that went otherwise (`went`) shows the explanation of what did happen, and its checks say
 * which expectations failed. */
async function lessonStep(page: Page, went?: { say: string; failed: number }): Promise<void> {
  const i = current.next++;
  const step = current.steps[i];
  const upcoming = page.getByTestId('lesson-upcoming');
  await expect(upcoming).toHaveAttribute('data-step', String(i + 1));
  await expect(page.getByTestId('lesson-next-sql')).toHaveText(step.sql);
  if (step.predict) await expect(page.getByTestId('lesson-predict')).toContainText(step.predict);
  await expect(page.getByTestId('lesson-said')).toHaveCount(i === 0 ? 0 : 1);
  if (i > 0) await expect(page.getByTestId('lesson-said')).toHaveAttribute('data-step', String(i));

  const snap = page.getByTestId('play-snapshot');
  const before = (await snap.count()) > 0 ? Number(await snap.getAttribute('data-step')) : 0;
  await page.getByTestId('lesson-next').click();
  await expect(snap).toHaveAttribute('data-step', String(before + 1), { timeout: 60_000 });
  await expect(page.getByTestId('playground')).toHaveAttribute('data-state', 'ready', { timeout: 90_000 });
  await expect(page.getByTestId('lesson-said')).toHaveAttribute('data-step', String(i + 1));
  await expect(page.getByTestId('lesson-say')).toHaveText((went?.say ?? step.say).replaceAll('`', ''));
  // What happened stays where the reader is: the step's outline of the page does not scroll it
  // away. (On a phone, reaching the step's button scrolls the page as a reader's thumb would.)
  if ((page.viewportSize()?.width ?? 0) >= 1000) await expect(page.getByTestId('lesson-say')).toBeInViewport();
  if (i + 1 < current.steps.length) {
    await expect(upcoming).toHaveAttribute('data-step', String(i + 2));
    await expect(page.getByTestId('lesson-next-sql')).toHaveText(current.steps[i + 1].sql);
  } else await expect(page.getByTestId('lesson-done')).toBeVisible();
  if (step.expect.length > 0) await expect(page.getByTestId('snap-diff')).toHaveAttribute('data-state', 'done');
  const failed = went?.failed ?? 0;
  await expect(page.locator('[data-testid=lesson-check][data-ok=true]')).toHaveCount(step.expect.length + (step.error ? 1 : 0) - failed);
  await expect(page.locator('[data-testid=lesson-check][data-ok=false]')).toHaveCount(failed);
}

async function startLesson(page: Page, id: string): Promise<void> {
  const lesson = LESSONS.find((l) => l.id === id);
  if (!lesson) throw new Error(`no lesson ${id}`);
  current = { steps: lesson.steps, next: 0 };
  await page.getByTestId('lesson-select').selectOption(id);
}

/** The diff's changed field of a relation's block. */
function field(page: Page, relation: string, block: number, name: string) {
  return page.locator(
    `[data-testid=diff-page][data-relation="${relation}"][data-fork=main][data-block="${block}"] [data-testid=diff-field][data-field="${name}"]`,
  );
}

/** The core's sentence for a relation's block in the diff on screen. */
function sentence(page: Page, relation: string, block: number, fork = 'main') {
  return page.locator(`[data-testid=diff-page][data-relation="${relation}"][data-fork="${fork}"][data-block="${block}"] [data-testid=diff-sentence]`);
}

async function shot(page: Page, name: string): Promise<void> {
  const size = page.viewportSize()!;
  const path = test.info().outputPath(`${name}-${size.width}x${size.height}.png`);
  await page.screenshot({ path, fullPage: true });
  await test.info().attach(name, { path, contentType: 'image/png' });
}

for (const [width, height] of SIZES) {
  test.describe(`${width}x${height}`, () => {
    test.use({ viewport: { width, height } });

    test('predict, then run; the line pointers and HOT chains drawn; a sentence per page; on-access pruning, kill_prior_tuple, the two passes of VACUUM, the visibility map', async ({
      page,
    }) => {
      test.setTimeout(400_000);
      await openPlayground(page);

      await startLesson(page, 'prune');
      // Before anything runs: the first step's SQL and question, and no explanation.
      await expect(page.getByTestId('lesson-say')).toHaveCount(0);
      await lessonStep(page);
      await lessonStep(page);
      // The chain: lp 1 → 71 → … → 76, each a HOT link from a HEAP_HOT_UPDATED version.
      const picture = page.getByTestId('lp-picture');
      await expect(picture).toHaveAttribute('data-relation', 'hotpage');
      const hot = picture.locator('[data-testid=lp-arrow][data-kind=hot]');
      await expect(hot).toHaveCount(6);
      for (const [from, to] of [
        [1, 71],
        [71, 72],
        [72, 73],
        [73, 74],
        [74, 75],
        [75, 76],
      ])
        await expect(hot.and(page.locator(`[data-from="${from}"][data-to="${to}"]`))).toHaveCount(1);
      await expect(picture.locator('[data-testid=lp-box][data-lp="76"]')).toHaveAttribute('data-heap-only', 'true');
      await expect(picture.locator('[data-testid=lp-box][data-lp="1"]')).toHaveAttribute('data-hot-updated', 'true');
      await expect(sentence(page, 'hotpage', 0)).toContainText('a HOT chain lp 1 → 71 → 72 → … → 76');
      await shot(page, 'prune-chain');
      await picture.screenshot({ path: test.info().outputPath(`picture-chain-${width}.png`) });

      await lessonStep(page);
      // Pruned by a SELECT: lp 1 redirects to lp 76; 71-75 are unused; no HOT link is left.
      await expect(picture.locator('[data-testid=lp-arrow][data-kind=redirect]')).toHaveCount(1);
      await expect(picture.locator('[data-testid=lp-arrow][data-kind=redirect]')).toHaveAttribute('data-from', '1');
      await expect(picture.locator('[data-testid=lp-arrow][data-kind=redirect]')).toHaveAttribute('data-to', '76');
      await expect(picture.locator('[data-testid=lp-arrow][data-kind=hot]')).toHaveCount(0);
      await expect(picture.locator('[data-testid=lp-box][data-lp="1"]')).toHaveAttribute('data-flags', 'LP_REDIRECT');
      for (const lp of [71, 72, 73, 74, 75]) await expect(picture.locator(`[data-testid=lp-box][data-lp="${lp}"]`)).toHaveAttribute('data-flags', 'LP_UNUSED');
      await expect(picture.locator('[data-testid=lp-box][data-lp="1"] title')).toHaveText('lp 1: LP_REDIRECT, redirects to lp 76');
      await expect(sentence(page, 'hotpage', 0)).toContainText('Pruning turned lp 1 into a redirect to lp 76');
      await expect(sentence(page, 'hotpage', 0)).toContainText('pruning freed lp 71-75 (LP_UNUSED)');
      // The picture fits the screen's width: no box is cut off at the phone size.
      const svg = picture.locator('svg');
      expect((await svg.boundingBox())!.width).toBeLessThanOrEqual(width);
      // Nor does the page scroll sideways: long lesson titles and statements stay in the screen.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await picture.scrollIntoViewIfNeeded();
      await shot(page, 'prune-redirect');
      await picture.screenshot({ path: test.info().outputPath(`picture-redirect-${width}.png`) });
      await page.getByTestId('lesson-box').screenshot({ path: test.info().outputPath(`lesson-box-${width}.png`) });
      await page.getByTestId('snap-diff').screenshot({ path: test.info().outputPath(`diff-${width}.png`) });

      await startLesson(page, 'hot');
      await lessonStep(page);
      // Ten tuples of 32 bytes: the page is nowhere near half full.
      for (let lp = 1; lp <= 10; lp++) await expect(field(page, 'stock', 0, `item ${lp} lp_len`)).toHaveAttribute('data-b', '32');
      await expect(field(page, 'stock', 0, 'item 11 lp_len')).toHaveCount(0);
      await lessonStep(page);
      await lessonStep(page);
      // Not HOT: stock_pkey gets an entry for the new version, (0,12), and keeps the old one's.
      const pkey = (name: string) => field(page, 'stock_pkey', 1, name);
      await expect(pkey('item 11 ctid')).toHaveAttribute('data-a', '-');
      await expect(pkey('item 11 ctid')).toHaveAttribute('data-b', '(0,12)');
      await expect(pkey('item 2 ctid')).toHaveCount(0);
      await expect(page.locator('[data-testid=diff-page][data-relation=stock_pkey] [data-testid=diff-field][data-field$=" ctid"]')).toHaveCount(1);
      // The third case: no indexed column changes, but the page is full.
      await lessonStep(page);
      await expect(page.locator('[data-testid=diff-page][data-relation=tight][data-fork=main][data-block="0"]')).toHaveAttribute('data-state', 'only_b');
      await expect(field(page, 'tight', 0, 'item 226 lp_len')).toHaveAttribute('data-b', '32');
      await expect(field(page, 'tight', 0, 'item 227 lp_len')).toHaveCount(0);
      await lessonStep(page);
      // Not HOT: the new version is lp 75 of block 1, the old one names it, and the index gets
      // an entry for it beside the old one's.
      await expect(field(page, 'tight', 0, 'item 1 t_ctid')).toHaveAttribute('data-b', '(1,75)');
      await expect(field(page, 'tight', 0, 'item 1 raw_flags')).not.toHaveAttribute('data-b', /HEAP_HOT_UPDATED/);
      await expect(field(page, 'tight', 1, 'item 75')).toHaveAttribute('data-b', 'present');
      await expect(
        page.locator('[data-testid=diff-page][data-relation=tight_pkey] [data-testid=diff-field][data-field$=" ctid"][data-b="(1,75)"]'),
      ).toHaveCount(1);
      // ... and the pruning lesson is one click away.
      await expect(page.getByTestId('lesson-see')).toHaveAttribute('data-lesson', 'prune');
      await page.getByTestId('lesson-see').click();
      await expect(page.getByTestId('lesson-select')).toHaveValue('prune');
      await expect(page.getByTestId('lesson-next-sql')).toHaveText(LESSONS.find((l) => l.id === 'prune')!.steps[0].sql);

      await startLesson(page, 'kill-tuple');
      for (let i = 0; i < 3; i++) await lessonStep(page);
      await expect(sentence(page, 'k_pkey', 1)).toHaveText(
        'An index scan marked items 1-10 LP_DEAD (kill_prior_tuple: their heap tuples are dead to every transaction).',
      );

      await startLesson(page, 'vacuum-passes');
      for (let i = 0; i < 3; i++) await lessonStep(page);
      await expect(sentence(page, 'twopass', 0)).toContainText('lp 1-20 became LP_DEAD');
      await expect(page.getByTestId('lp-picture').locator('[data-testid=lp-box][data-flags=LP_DEAD]')).toHaveCount(20);
      await shot(page, 'vacuum-first-pass');
      await lessonStep(page);
      await expect(sentence(page, 'twopass', 0)).toContainText('VACUUM made lp 1-20 unused (LP_DEAD to LP_UNUSED, after removing their index entries)');
      await expect(sentence(page, 'twopass_pkey', 1)).toHaveText('20 index tuples were removed.');
      // The visibility map's page was all zeros in the file after the first VACUUM (extended,
      // never written): no checksum to verify, which the diff never calls a failed one.
      const vm = page.locator('[data-testid=diff-page][data-relation=twopass][data-fork=vm][data-block="0"] [data-testid=diff-checksum]');
      await expect(vm).toHaveAttribute('data-a', 'zero');
      await expect(vm).toHaveAttribute('data-b', 'ok');
      await expect(vm).toHaveText(/all zeros \(a new page: no checksum to verify\) in snapshot \d+, checksum passes now/);
      await expect(page.getByTestId('snap-diff')).not.toContainText('checksum failed');
      // Step 3 froze lp 21-50 in a plain VACUUM: the page on screen, step 3's snapshot, says so.
      await page.getByTestId('snap-back').click();
      await expect(sentence(page, 'twopass', 0)).toContainText('lp 21-50 were frozen (HEAP_XMIN_FROZEN)');
      await expect(page.locator('[data-testid=diff-page][data-relation=twopass][data-fork=vm][data-block="0"]')).toHaveAttribute('data-state', 'only_b');
      await page.getByTestId('snap-forward').click();

      await startLesson(page, 'visibility');
      await lessonStep(page);
      // The new tuples' t_infomask as the lesson says: 0x0802, HEAP_HASVARWIDTH and HEAP_XMAX_INVALID.
      for (const lp of [1, 50, 100]) {
        await expect(field(page, 'vis', 0, `item ${lp} t_infomask`)).toHaveAttribute('data-b', '2050');
        await expect(field(page, 'vis', 0, `item ${lp} raw_flags`)).toHaveAttribute('data-b', '["HEAP_HASVARWIDTH","HEAP_XMAX_INVALID"]');
      }
      await lessonStep(page);
      for (const lp of [1, 50, 100]) {
        await expect(field(page, 'vis', 0, `item ${lp} t_infomask`)).toHaveAttribute('data-a', '2050');
        await expect(field(page, 'vis', 0, `item ${lp} t_infomask`)).toHaveAttribute('data-b', '2306');
      }
      // The hint bits' write was WAL-logged: the server's WAL has the full-page image that
      // ends at the page's pd_lsn (the Node test holds end_lsn against page_header()).
      await lessonStep(page);
      const records = page.getByTestId('play-result').locator('tbody tr');
      await expect(records).toHaveCount(1);
      await expect(records).toContainText('XLOG');
      await expect(records).toContainText('FPI_FOR_HINT');
      await lessonStep(page);
      // A plain VACUUM with nothing to prune froze nothing: no tuple's flags changed.
      await expect(page.locator('[data-testid=diff-page][data-relation=vis][data-fork=main] [data-testid=diff-field][data-field$=" raw_flags"]')).toHaveCount(
        0,
      );
      await expect(sentence(page, 'vis', 0)).toHaveText('The page became all-visible (PD_ALL_VISIBLE).');
      await expect(sentence(page, 'vis', 0, 'vm')).toHaveText('The visibility map marks heap block 0 all-visible.');
      await lessonStep(page);
      await expect(sentence(page, 'vis', 0)).toContainText('lp 1-100 were frozen (HEAP_XMIN_FROZEN)');
      await expect(page.getByTestId('lp-picture').locator('[data-testid=lp-box] text', { hasText: 'frozen' })).toHaveCount(100);
      await expect(sentence(page, 'vis', 0, 'vm')).toHaveText('The visibility map marks heap block 0 all-frozen.');
      await lessonStep(page);
      await expect(sentence(page, 'vis', 0, 'vm')).toHaveText('The visibility map no longer marks heap block 0 all-visible and all-frozen.');
      await shot(page, 'visibility');
    });

    test('corruption without the edit: step 2 waits for the damage, said why', async ({ page }) => {
      test.setTimeout(300_000);
      await openPlayground(page);
      await startLesson(page, 'corruption');
      await lessonStep(page);
      // The diff's heading is followed by its first line, with no empty line between.
      await page.getByTestId('snap-compare').check();
      const heading = page.getByTestId('snap-diff').locator('h3');
      await expect(heading).toHaveText('What snapshot 1 changed since 0');
      const [h, next] = [await heading.boundingBox(), await heading.locator('xpath=following-sibling::*[1]').boundingBox()];
      expect(h && next && next.y - (h.y + h.height), 'the gap under the heading (px)').toBeLessThan(6);
      // Before step 2: step 1's edit was not made, and step 2 cannot run until it is (run
      // without it, the lesson would walk to its end with nothing damaged).
      await expect(page.getByTestId('lesson-waiting')).toContainText('Step 2 waits for the damage');
      await expect(page.getByTestId('lesson-waiting')).toContainText('nothing has been written since');
      await expect(page.getByTestId('lesson-next')).toBeDisabled();
      await expect(page.getByTestId('lesson-next')).toHaveAttribute('aria-describedby', 'lesson-waiting');
      // The reason is also beside the disabled button, in sight, not only in the step's text.
      const why = page.getByTestId('lesson-next-why');
      await expect(why).toBeVisible();
      await expect(why).toHaveText('Waits for the damage: press "Flip a byte for me" above, or write an edited page with the lab.');
      const [button, reason] = [await page.getByTestId('lesson-next').boundingBox(), await why.boundingBox()];
      expect(button && reason && Math.abs(reason.y - button.y) < 2 * button.height && reason.x >= button.x, 'the reason sits next to the button').toBe(true);
      await expect(page.getByTestId('lesson-flip')).toBeEnabled();
      await page.getByTestId('lesson-flip').click();
      await expect(page.getByTestId('lesson-flipped')).toContainText('Flipped bit');
      await expect(page.getByTestId('lesson-waiting')).toHaveCount(0);
      await expect(page.getByTestId('lesson-next')).toBeEnabled();
      await expect(why).toHaveCount(0);
    });

    test('corruption with "Flip a byte for me": the byte it names is refused, then resealed', async ({ page }) => {
      test.setTimeout(300_000);
      await openPlayground(page);
      await startLesson(page, 'corruption');
      await lessonStep(page);
      // Row 1's 'row 1' ends at byte 8185 (as the hand edit below finds it): its '1' becomes '!'.
      await page.getByTestId('lesson-flip').click();
      await expect(page.getByTestId('lesson-flipped')).toContainText('Flipped bit 4 of byte 8185 of block 0 of base/5/');
      await expect(page.getByTestId('lesson-flipped')).toContainText("0x31 '1' became 0x21 '!'");
      await expect(page.getByTestId('lesson-flipped')).toContainText("the last byte of lp 1's tuple");
      await expect(page.getByTestId('lesson-waiting')).toHaveCount(0);

      await lessonStep(page);
      await expect(page.getByTestId('play-error')).toHaveAttribute('data-code', 'XX001');
      await expect(page.getByTestId('lesson-flipped')).toHaveCount(0);
      await expect(sentence(page, 'victim', 0)).toHaveText("The page's checksum no longer matches its bytes.");

      await lessonStep(page);
      await expect(page.getByTestId('play-result')).toContainText('row !');
      const checksum = page.locator('[data-testid=diff-page][data-relation=victim][data-block="0"] [data-testid=diff-checksum]');
      await expect(checksum).toHaveAttribute('data-a', 'mismatch');
      await expect(checksum).toHaveAttribute('data-b', 'ok');
      await expect(sentence(page, 'victim', 0)).toContainText('no checksum check can find the damage any more');

      await lessonStep(page);
      await expect(page.getByTestId('play-error')).toHaveCount(0);
      await expect(page.getByTestId('play-result')).toContainText('row !');
    });

    test('corruption: the hint-bit write that makes the damage invisible to checksums', async ({ page }) => {
      test.setTimeout(300_000);
      await openPlayground(page);
      await startLesson(page, 'corruption');
      await lessonStep(page);
      // Row 1's 'row 1' ends at byte 8185: its '1' (0x31) becomes '!' (0x21), as the learner does it.
      await page.getByTestId('lab-edit').click();
      const byte = page.locator('[data-testid=hexview] [data-off="8185"]');
      await byte.scrollIntoViewIfNeeded();
      await expect(byte).toHaveText('31');
      await byte.click();
      await page.keyboard.type('21');
      await expect(page.getByTestId('page-view')).toHaveAttribute('data-status', 'mismatch');
      await expect(page.getByTestId('lesson-waiting')).toHaveCount(1);
      await page.getByTestId('play-write-lab').click();
      await expect(page.getByTestId('play-written')).toContainText('Written: block 0');
      await expect(page.getByTestId('lesson-waiting')).toHaveCount(0);

      await lessonStep(page);
      await expect(page.getByTestId('play-error')).toHaveAttribute('data-code', 'XX001');
      // The file's page as this snapshot read it: the byte the lab wrote, and a checksum that fails.
      const broken = page.locator('[data-testid=diff-page][data-relation=victim][data-block="0"] [data-testid=diff-checksum]');
      await expect(broken).toHaveAttribute('data-a', 'ok');
      await expect(broken).toHaveAttribute('data-b', 'mismatch');
      await expect(sentence(page, 'victim', 0)).toHaveText("The page's checksum no longer matches its bytes.");

      await lessonStep(page);
      await expect(page.getByTestId('play-result')).toContainText('row !');
      const checksum = page.locator('[data-testid=diff-page][data-relation=victim][data-block="0"] [data-testid=diff-checksum]');
      await expect(checksum).toHaveAttribute('data-a', 'mismatch');
      await expect(checksum).toHaveAttribute('data-b', 'ok');
      await expect(checksum).toContainText('checksum failed in snapshot 2, passes now');
      await expect(sentence(page, 'victim', 0)).toContainText('Hint bits were set on lp 1-20 (HEAP_XMIN_COMMITTED)');
      await expect(sentence(page, 'victim', 0)).toContainText('no checksum check can find the damage any more');
      // The page on screen, as the file now holds it: it passes verification, 'row !' and all.
      await expect(page.getByTestId('page-view')).toHaveAttribute('data-status', 'ok');
      await shot(page, 'corruption-resealed');

      await lessonStep(page);
      await expect(page.getByTestId('play-error')).toHaveCount(0);
      await expect(page.getByTestId('play-notice')).toHaveCount(0);
      await expect(page.getByTestId('play-result')).toContainText('row !');
    });
  });
}
