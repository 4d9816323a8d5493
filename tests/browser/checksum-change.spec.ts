// A PostgreSQL 19 data directory stopped while its checksums were being turned on
// (inprogress-on) is dropped on the page: no page is a problem, the control panel and the
// verdict say what the server does in that state, and the verdict's counts and words are
// pgpage verify's (which the CLI's tests hold against page_checksum() on every page).
import { expect, test } from './test';
import { readFileSync, writeFileSync } from 'node:fs';
import { Cluster } from '../pg/cluster';
import { ensurePgpage, pgpage } from '../pg/pgpage';

test("a 19 cluster caught in inprogress-on: no problem page, the core's words and counts", async ({ page }) => {
  // A server run part-way, the CLI twice, then a whole data directory in the browser.
  test.setTimeout(300_000);
  ensurePgpage();
  const d = Cluster.create('pgpage-inprogress', 19, undefined, '--no-data-checksums');
  try {
    d.sql(`create table t (id int, v text);
      insert into t select g, repeat('x', 200) from generate_series(1, 6000) g;
      checkpoint;`);
    const file = d.relationPath('t');
    d.sql(`select pg_enable_data_checksums(cost_delay => 10, cost_limit => 1);`);
    const start = Date.now();
    for (;;) {
      const done = Number(d.sql(`select coalesce(sum(blocks_done), 0) from pg_stat_progress_data_checksums;`).trim());
      if (done >= 20) break;
      expect(Date.now() - start, 'the checksum worker does not start').toBeLessThan(60_000);
      await new Promise((r) => setTimeout(r, 100));
    }
    d.sql('checkpoint;');
    expect(d.sql('show data_checksums;').trim()).toBe('inprogress-on');
    d.stop('immediate');
    // One page the worker has not reached yet made to store a nonzero, wrong checksum.
    const bytes = readFileSync(file);
    const last = bytes.length - 8192;
    bytes[last + 8] = 0x34;
    bytes[last + 9] = 0x12;
    writeFileSync(file, bytes);

    const cli = pgpage(['verify', '--json', d.dataDir]);
    expect(cli.status, cli.stderr).toBe(0);
    const summary = JSON.parse(cli.stdout).summary as Record<string, number>;
    expect(summary.checksums_valid).toBeGreaterThan(0);
    expect(summary.checksums_not_yet_nonzero).toBeGreaterThan(0);
    const human = pgpage(['verify', d.dataDir]).stderr;
    const said = (prefix: string) =>
      human
        .split('\n')
        .find((l) => l.startsWith(prefix))
        ?.slice(prefix.length);
    const counts = said('pgpage: warning: ');
    const state = said(`pgpage: cluster "${d.dataDir}": `);
    expect(counts).toBeTruthy();
    expect(state).toBeTruthy();

    await page.goto('/');
    await page.getByTestId('folder-input').setInputFiles(d.dataDir);
    await expect(page.getByTestId('summary')).toHaveAttribute('data-state', 'done', { timeout: 90_000 });
    await expect(page.getByTestId('control')).toHaveAttribute('data-checksums', '3');
    await expect(page.getByTestId('control-checksums')).toContainText(`inprogress-on (data_page_checksum_version 3): ${state}`);
    await expect(page.getByTestId('problem')).toHaveCount(0);
    await expect(page.getByTestId('verdict')).toContainText('No problem pages');
    const change = page.getByTestId('verdict-checksum-change');
    await expect(change).toHaveAttribute('data-valid', String(summary.checksums_valid));
    await expect(change).toHaveAttribute('data-not-yet', String(summary.checksums_not_yet));
    await expect(change).toHaveAttribute('data-not-yet-nonzero', String(summary.checksums_not_yet_nonzero));
    const text = await change.textContent();
    const sentence = (s: string) => `${s.charAt(0).toUpperCase()}${s.slice(1)}.`;
    expect(text).toContain(sentence(state!));
    expect(text).toContain(sentence(counts!));
  } finally {
    d.destroy();
  }
});
