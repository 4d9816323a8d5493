// The playground in Chromium: PGlite starts in its worker, statements change the pages the
// inspector shows, the server's own words for bad SQL, a cancel that ends a statement that
// never would, snapshots compared, and pageinspect asked about the page on screen.
import { LESSONS, type LessonStep } from '../../web/src/playground/lessons';
import { expect, test, type Page } from './test';

async function openPlayground(page: Page): Promise<void> {
  page.on('console', (m) => {
    if (m.type() === 'error') console.log(`console: ${m.text()}`);
  });
  await page.goto('/');
  await page.getByTestId('playground-start').click();
  await expect(page.getByTestId('playground')).toHaveAttribute('data-state', 'ready', { timeout: 90_000 });
}

async function runSql(page: Page, sql: string): Promise<void> {
  const snap = page.getByTestId('play-snapshot');
  const before = (await snap.count()) > 0 ? await snap.getAttribute('data-step') : null;
  await page.getByTestId('play-sql').fill(sql);
  await page.getByTestId('play-sql').press('Control+Enter');
  await expect(page.getByTestId('play-snapshot')).toHaveAttribute('data-step', String(Number(before ?? 0) + 1), { timeout: 60_000 });
  await expect(page.getByTestId('playground')).toHaveAttribute('data-state', 'ready');
}

test("SQL changes the page on screen; errors in the server's words", async ({ page }) => {
  await openPlayground(page);
  await expect(page.getByTestId('play-version')).toContainText('PostgreSQL 18');
  await runSql(page, "create table t (id int, v text);\ninsert into t values (1, 'one'), (2, 'two')");
  const heap = page.locator('[data-testid=play-file][data-relation=t][data-fork=main]');
  await expect(heap).toHaveAttribute('data-changed', 'true');
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-status', 'ok');
  await expect(page.getByTestId('items-panel').locator('tbody tr')).toHaveCount(2);

  // Ask PostgreSQL: pageinspect on the same bytes agrees with every decoded column.
  await page.getByTestId('ask-button').click();
  await expect(page.getByTestId('ask-postgres')).toHaveAttribute('data-state', 'agree');
  await expect(page.locator('[data-testid=ask-function][data-fn=heap_page_items]')).toHaveAttribute('data-state', 'agree');
  // The button sits beside the decoded page panels, in the page view's slot.
  await expect(page.getByTestId('ask-slot').getByTestId('ask-button')).toBeVisible();

  // A second snapshot, then back to the first and forward again; each shows its own files.
  await runSql(page, "insert into t values (3, 'three')");
  await expect(page.getByTestId('items-panel').locator('tbody tr')).toHaveCount(3);
  await page.getByTestId('snap-back').click();
  await expect(page.getByTestId('play-snapshot')).toHaveAttribute('data-step', '1');
  await page.locator('[data-testid=play-file][data-relation=t][data-fork=main] [data-testid=play-open]').click();
  await expect(page.getByTestId('items-panel').locator('tbody tr')).toHaveCount(2);
  await page.getByTestId('snap-forward').click();
  await expect(page.getByTestId('play-snapshot')).toHaveAttribute('data-step', '2');
  await page.locator('[data-testid=play-file][data-relation=t][data-fork=main] [data-testid=play-open]').click();
  await expect(page.getByTestId('items-panel').locator('tbody tr')).toHaveCount(3);

  await runSql(page, 'selec 1');
  await expect(page.getByTestId('play-error-message')).toHaveText('syntax error at or near "selec"');
  await expect(page.getByTestId('play-error')).toHaveAttribute('data-code', '42601');
});

/** The page answers a click while the server is busy: the theme button's text changes. */
async function stillAnswers(page: Page): Promise<void> {
  const theme = page.getByRole('button', { name: 'switch theme' });
  const before = await theme.textContent();
  await theme.click();
  await expect(theme).not.toHaveText(before ?? '');
}

/** Starts `sql`, checks the tab stays live while it runs, cancels it and waits for the new server. */
async function runAndCancel(page: Page, sql: string): Promise<void> {
  await page.getByTestId('play-sql').fill(sql);
  await page.getByTestId('play-run').click();
  await expect(page.getByTestId('playground')).toHaveAttribute('data-state', 'running');
  await expect(page.getByTestId('play-cancel')).toBeEnabled();
  await stillAnswers(page);
  await page.getByTestId('play-cancel').click();
  await expect(page.getByTestId('play-cancelled')).toBeVisible({ timeout: 90_000 });
  await expect(page.getByTestId('playground')).toHaveAttribute('data-state', 'ready', { timeout: 90_000 });
}

test('statements that never end are cancelled; the server starts again from the files saved after the last statement', async ({ page }) => {
  test.setTimeout(300_000);
  await openPlayground(page);
  // random() and a sequence: replaying the statements would give other values; the saved
  // data directory gives the same.
  await runSql(page, 'create table kept as select g, random()::text as r from generate_series(1, 5) g;\ncreate sequence s');
  await runSql(page, "select nextval('s'), r from kept where g = 1");
  const first = page.getByTestId('play-result').locator('tbody td');
  await expect(first.first()).toHaveText('1');
  const r = await first.nth(1).textContent();

  await runAndCancel(page, 'select pg_sleep(1e6)');
  await expect(page.getByTestId('play-cancelled')).toContainText('select pg_sleep(1e6)');
  await expect(page.getByTestId('play-cancelled')).toContainText('after snapshot 2');
  await runAndCancel(page, 'with recursive n(i) as (select 1 union all select i + 1 from n) select count(*) from n');
  await expect(page.getByTestId('play-cancelled')).toContainText('with recursive');

  await runSql(page, "select nextval('s'), r from kept where g = 1");
  await expect(first.first()).toHaveText('2');
  await expect(first.nth(1)).toHaveText(r ?? '');
  // The snapshot's files are compared with the restored ones, not with nothing: a SELECT
  // changes no block of the table.
  await expect(page.locator('[data-testid=play-file][data-relation=kept][data-fork=main]')).toHaveAttribute('data-changed', 'false');
});

test('a huge INSERT is cancelled and leaves no row behind; the tab stays live', async ({ page }) => {
  test.setTimeout(300_000);
  await openPlayground(page);
  await runSql(page, 'create table huge (id int)');
  await runAndCancel(page, 'insert into huge select generate_series(1, 1e7)');
  await expect(page.getByTestId('play-cancelled')).toContainText('after snapshot 1');
  await runSql(page, 'select count(*) from huge');
  await expect(page.getByTestId('play-result').locator('tbody td')).toHaveText('0');
});

test('the files table lists the snapshot being viewed; older snapshots come from the snapshot list', async ({ page }) => {
  await openPlayground(page);
  await runSql(page, 'create table s1 (id int primary key)');
  await runSql(page, 'insert into s1 values (1)');
  await runSql(page, 'insert into s1 values (2)');
  const files = page.getByTestId('play-file');
  const heading = page.getByTestId('summary').locator('h3', { hasText: /^Files \(/ });
  // One row per file of the snapshot: the table and its index, however many statements ran.
  await expect(files).toHaveCount(2);
  await expect(heading).toHaveText(/^Files \(2\)/);
  await expect(page.locator('[data-testid=summary] [data-testid=file][data-path^="playground/1/"]')).toHaveCount(0);

  const list = page.getByTestId('snap-list');
  await expect(list.locator('option')).toHaveText(['1: create table s1 (id int primary key)', '2: insert into s1 values (1)', '3: insert into s1 values (2)']);
  // The page on screen follows the snapshot: s1's block 0 with one row at snapshot 2.
  await page.locator('[data-testid=play-file][data-relation=s1][data-fork=main] [data-testid=play-open]').click();
  await expect(page.getByTestId('items-panel').locator('tbody tr')).toHaveCount(2);
  await list.selectOption({ label: '2: insert into s1 values (1)' });
  await expect(page.getByTestId('play-snapshot')).toHaveAttribute('data-step', '2');
  await expect(page.getByTestId('items-panel').locator('tbody tr')).toHaveCount(1);
  await expect(heading).toHaveText(/^Files \(2\)/);
  await expect(page.locator('[data-testid=summary] [data-testid=file][data-path^="playground/3/"]')).toHaveCount(0);
  await page.getByTestId('snap-back').click();
  await expect(page.getByTestId('play-snapshot')).toHaveAttribute('data-step', '1');
  await expect(page.getByTestId('empty-file-view')).toBeVisible();
  await page.getByTestId('snap-forward').click();
  await page.getByTestId('snap-forward').click();
  await expect(page.getByTestId('play-snapshot')).toHaveAttribute('data-step', '3');
  await page.locator('[data-testid=play-file][data-relation=s1][data-fork=main] [data-testid=play-open]').click();
  await expect(page.getByTestId('items-panel').locator('tbody tr')).toHaveCount(2);
});

test('a huge INSERT runs in the worker; the page stays live and shows its thousands of pages', async ({ page }) => {
  await openPlayground(page);
  await page.getByTestId('play-sql').fill("create table big (id int, pad text);\ninsert into big select g, repeat('x', 200) from generate_series(1, 100000) g");
  await page.getByTestId('play-run').click();
  await expect(page.getByTestId('playground')).toHaveAttribute('data-state', 'running');
  await page.getByRole('button', { name: 'switch theme' }).click();
  await expect(page.getByRole('button', { name: 'switch theme' })).toHaveText('Theme: dark');
  await expect(page.getByTestId('play-snapshot')).toHaveAttribute('data-step', '1', { timeout: 110_000 });
  const heap = page.locator('[data-testid=play-file][data-relation=big][data-fork=main]');
  await expect(heap).toHaveAttribute('data-changed', 'true');
  // 100,000 rows of 232 bytes: 34 to a page.
  await expect(heap.locator('td').nth(3)).toHaveText(String(Math.ceil(100000 / 34)));
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-status', 'ok');
});

/** The lesson being run and its next step. */
let current: { steps: LessonStep[]; next: number } = { steps: [], next: 0 };

/** Runs the lesson's next step, waits for its snapshot, and sees every change the step
 * expects checked (✓) in the diff view, and its outline on the page it shows. */
async function lessonStep(page: Page): Promise<void> {
  const step = current.steps[current.next++];
  const snap = page.getByTestId('play-snapshot');
  const before = (await snap.count()) > 0 ? Number(await snap.getAttribute('data-step')) : 0;
  await page.getByTestId('lesson-next').click();
  await expect(snap).toHaveAttribute('data-step', String(before + 1), { timeout: 60_000 });
  // Ready once the data directory is saved for a cancel (dumpDataDir: seconds on a busy machine).
  await expect(page.getByTestId('playground')).toHaveAttribute('data-state', 'ready', { timeout: 90_000 });
  if (step.expect.length > 0) await expect(page.getByTestId('snap-diff')).toHaveAttribute('data-state', 'done');
  const checks = step.expect.length + (step.error ? 1 : 0);
  await expect(page.locator('[data-testid=lesson-check][data-ok=true]')).toHaveCount(checks);
  await expect(page.locator('[data-testid=lesson-check][data-ok=false]')).toHaveCount(0);
  if (step.show?.header) await expect(page.getByTestId('header-panel')).toHaveAttribute('data-highlight', 'true');
}

async function startLesson(page: Page, id: string): Promise<void> {
  const lesson = LESSONS.find((l) => l.id === id);
  if (!lesson) throw new Error(`no lesson ${id}`);
  current = { steps: lesson.steps, next: 0 };
  await page.getByTestId('lesson-select').selectOption(id);
  await lessonStep(page);
}

/** The diff view's changed field of a relation's block. */
function field(page: Page, relation: string, block: number, name: string) {
  return page.locator(`[data-testid=diff-page][data-relation="${relation}"][data-block="${block}"] [data-testid=diff-field][data-field="${name}"]`);
}

async function diffDone(page: Page): Promise<void> {
  await expect(page.getByTestId('snap-diff')).toHaveAttribute('data-state', 'done');
}

test('lessons: each step changes the decoded fields it says it does', async ({ page }) => {
  test.setTimeout(400_000);
  await openPlayground(page);

  await startLesson(page, 'insert');
  await page.getByTestId('snap-compare').check();
  await lessonStep(page);
  await diffDone(page);
  await expect(page.locator('[data-testid=diff-page][data-relation=fruit][data-block="0"]')).toHaveAttribute('data-state', 'only_b');
  await expect(field(page, 'fruit', 0, 'item 2')).toHaveAttribute('data-b', 'present');
  await expect(page.getByTestId('items-panel').locator('tbody tr')).toHaveCount(2);

  await startLesson(page, 'hot');
  await lessonStep(page);
  await diffDone(page);
  // The old version: t_xmax set and HEAP_HOT_UPDATED; the new one HEAP_ONLY_TUPLE; the index untouched.
  await expect(field(page, 'stock', 0, 'item 1 raw_flags')).toHaveAttribute('data-b', /HEAP_HOT_UPDATED/);
  await expect(field(page, 'stock', 0, 'item 1 t_xmax')).toHaveAttribute('data-a', '0');
  await expect(field(page, 'stock', 0, 'item 11')).toHaveAttribute('data-b', 'present');
  await expect(page.locator('[data-testid=diff-page][data-relation=stock_pkey]')).toHaveCount(0);
  await lessonStep(page);
  await diffDone(page);
  await expect(field(page, 'stock', 0, 'item 2 t_xmax')).toHaveAttribute('data-a', '0');
  await expect(field(page, 'stock', 0, 'item 2 raw_flags')).not.toHaveAttribute('data-b', /HEAP_HOT_UPDATED/);
  await expect(page.locator('[data-testid=diff-page][data-relation=stock_pkey]')).not.toHaveCount(0);

  await startLesson(page, 'vacuum');
  await lessonStep(page);
  await diffDone(page);
  await expect(field(page, 'gone', 0, 'item 2 t_xmax')).toHaveAttribute('data-a', '0');
  await expect(field(page, 'gone', 0, 'item 1 t_xmax')).toHaveCount(0);
  await lessonStep(page);
  await diffDone(page);
  await expect(field(page, 'gone', 0, 'item 2 lp_flags')).toHaveAttribute('data-b', '0');
  await expect(page.getByTestId('diff-added')).toContainText('_fsm');
  await expect(page.getByTestId('diff-added')).toContainText('_vm');

  // TOAST: the varlena headers the core decodes, beside the server's own pg_column_* answers.
  await startLesson(page, 'toast');
  await lessonStep(page);
  await diffDone(page);
  await expect(page.locator('[data-testid=diff-page][data-relation^=pg_toast_]')).toHaveCount(0);
  await expect(field(page, 'docs', 0, 'item 1 toast')).toHaveAttribute(
    'data-b',
    /"varattrib":"varattrib_4b\.va_compressed".*"rawsize":7000,"compression":"pglz"/,
  );
  await expect(page.locator('[data-testid=play-result]', { hasText: 'pglz' })).toHaveCount(1);
  await lessonStep(page);
  await expect(page.getByTestId('play-error-message')).toHaveText('compression method lz4 not supported');
  await lessonStep(page);
  await diffDone(page);
  await expect(page.locator('[data-testid=diff-page][data-relation^=pg_toast_][data-state=only_b]')).not.toHaveCount(0);
  await expect(field(page, 'docs', 0, 'item 2 toast')).toHaveAttribute('data-b', /"varattrib":"varattrib_1b_e","size":18,"va_tag":18,"va_rawsize":12804/);
  await lessonStep(page);
  await diffDone(page);
  await expect(page.locator('[data-testid=diff-page][data-relation^=pg_toast_]')).toHaveCount(0);

  await startLesson(page, 'split');
  await lessonStep(page);
  await lessonStep(page);
  await diffDone(page);
  await expect(page.locator('[data-testid=diff-page][data-relation=nums_n][data-state=only_b]')).not.toHaveCount(0);
  await expect(page.locator('[data-testid=play-file][data-relation=nums_n] td').nth(3)).not.toHaveText(/^[012]$/);

  await startLesson(page, 'vacuum-full');
  await lessonStep(page);
  await diffDone(page);
  await expect(page.locator('[data-testid=diff-filenode][data-relation=big]')).toBeVisible();

  // Hash, GiST, GIN and BRIN: "Ask PostgreSQL" beside the decoded page agrees with every
  // field of every pageinspect function for the index's pages.
  await startLesson(page, 'index-ams');
  for (const [rel, fns] of [
    ['places_id_hash', ['hash_page_type', 'hash_metapage_info']],
    ['places_at_gist', ['gist_page_opaque_info', 'gist_page_items_bytea']],
    ['places_tags_gin', ['gin_metapage_info', 'gin_page_opaque_info']],
    ['places_id_brin', ['brin_page_type', 'brin_revmap_data']],
  ] as const) {
    await lessonStep(page);
    await expect(page.locator(`[data-testid=play-file][data-relation=${rel}][data-fork=main]`)).toHaveClass('sel');
    const ask = page.getByTestId('ask-slot').getByTestId('ask-postgres');
    await ask.getByTestId('ask-button').click();
    await expect(ask).toHaveAttribute('data-state', 'agree');
    for (const fn of fns) await expect(ask.locator(`[data-testid=ask-function][data-fn=${fn}]`)).toHaveAttribute('data-state', 'agree');
  }
  // BRIN summaries: an INSERT widens the last range's; brin_summarize_new_values adds the
  // new ranges'. pageinspect's brin_page_items agrees with the decoded values.
  await lessonStep(page);
  await diffDone(page);
  await expect(
    page.locator('[data-testid=diff-page][data-relation=places_id_brin][data-block="2"] [data-testid=diff-field][data-field$=" value"]'),
  ).toHaveAttribute('data-b', /^\{\d+ \.\. \d+\}$/);
  const ask = page.getByTestId('ask-slot').getByTestId('ask-postgres');
  await ask.getByTestId('ask-button').click();
  await expect(ask).toHaveAttribute('data-state', 'agree');
  await expect(ask.locator('[data-testid=ask-function][data-fn=brin_page_items]')).toHaveAttribute('data-state', 'agree');
  await expect(ask.getByTestId('ask-note')).toHaveCount(0);
  await lessonStep(page);
  await diffDone(page);
  await expect(
    page.locator('[data-testid=diff-page][data-relation=places_id_brin][data-block="2"] [data-testid=diff-field][data-a="-"][data-field$=" value"]'),
  ).not.toHaveCount(0);
});

test("corruption: a byte changed with the lab, written into the server's file, and the server's own error", async ({ page }) => {
  await openPlayground(page);
  await startLesson(page, 'corruption');
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-status', 'ok');
  // Row 1's tuple is the last on the page (lp_off 8152, 40 bytes): t_hoff 24, id at 8176,
  // the text's 1-byte header at 8180 and 'row 1' at 8181-8185. Its '1' (0x31) becomes '!' (0x21).
  await page.getByTestId('lab-edit').click();
  const byte = page.locator('[data-testid=hexview] [data-off="8185"]');
  await expect(byte).toHaveText('31');
  await byte.click();
  await page.keyboard.type('21');
  await expect(page.getByTestId('page-view')).toHaveAttribute('data-status', 'mismatch');
  await page.getByTestId('play-write-lab').click();
  await expect(page.getByTestId('play-written')).toContainText('Written: block 0');

  await lessonStep(page);
  await expect(page.getByTestId('play-error-message')).toHaveText(/^invalid page in block 0 of relation "?base\/5\/\d+"?$/);
  await expect(page.getByTestId('play-error')).toHaveAttribute('data-code', 'XX001');

  await lessonStep(page);
  await expect(page.getByTestId('play-notice')).toHaveText(/^WARNING: ignoring checksum failure in block 0 of relation "?base\/5\/\d+"?$/);
  await expect(page.getByTestId('play-result')).toContainText('row !');
});

test('corruption without the flip: step 2 cannot run on the undamaged page', async ({ page }) => {
  await openPlayground(page);
  await startLesson(page, 'corruption');
  // Step 2 with block 0 untouched would walk the lesson to its end with nothing damaged.
  await expect(page.getByTestId('lesson-next')).toBeDisabled();
  await expect(page.getByTestId('lesson-waiting')).toContainText('Step 2 waits for the damage');
  await expect(page.locator('[data-testid=lesson-check]')).toHaveCount(0);
});

test('offline: the inspector never precaches the playground; the playground works offline after its first use', async ({ page, context }) => {
  await page.goto('/');
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  const precache = (await (await page.request.get('/precache.json')).json()) as string[];
  expect(precache.some((f) => /pglite|Playground/.test(f))).toBe(false);
  expect(precache.some((f) => /^assets\/index-.*\.js$/.test(f))).toBe(true);
  // First use, online: the service worker keeps what the playground fetched.
  await openPlayground(page);
  await context.setOffline(true);
  await page.reload();
  await page.getByTestId('playground-start').click();
  await expect(page.getByTestId('playground')).toHaveAttribute('data-state', 'ready', { timeout: 90_000 });
  await runSql(page, 'create table off (id int);\ninsert into off values (1)');
  await expect(page.locator('[data-testid=play-file][data-relation=off][data-fork=main]')).toHaveAttribute('data-changed', 'true');
  await context.setOffline(false);
});
