// An all-zero page in the middle of a heap, as the server reads it: PageIsVerified accepts it
// as a new page, so SELECT succeeds and counts fewer rows, no error anywhere. pgpage counts it
// as pg_checksums does (a new page, exit 0) and names the block in a note.
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Cluster, PG_VERSION } from './cluster';
import { ensurePgpage, pgpage, verifyJson } from './pgpage';

const BLCKSZ = 8192;
const ZEROED = 3;

let c: Cluster;
beforeAll(() => {
  ensurePgpage();
  c = Cluster.create('pgpage-zeroed');
});
afterAll(() => c?.destroy());

test(`PostgreSQL ${PG_VERSION} reads a zeroed middle heap page as empty; pgpage names it`, () => {
  c.sql(`create table t (id int, pad text); insert into t select g, repeat('x', 100) from generate_series(1, 600) g; checkpoint;`);
  const perBlock = c.rows<{ b: number; n: number }>(`select (ctid::text::point)[0]::int as b, count(*)::int as n from t group by 1 order by 1`);
  const blocks = perBlock.length;
  expect(blocks).toBeGreaterThan(ZEROED + 1);
  const lost = perBlock.find((r) => r.b === ZEROED)?.n ?? 0;
  expect(lost).toBeGreaterThan(0);
  const path = c.relationPath('t');

  c.stop();
  const bytes = readFileSync(path);
  bytes.fill(0, ZEROED * BLCKSZ, (ZEROED + 1) * BLCKSZ);
  writeFileSync(path, bytes);
  c.start();

  // The server: no error, no warning, the block's rows simply missing.
  const r = c.psqlRaw(`set client_min_messages = log; select count(*) from t;`);
  expect(r.status).toBe(0);
  expect(r.stderr).not.toMatch(/ERROR|WARNING|invalid page/);
  expect(Number(r.stdout.trim())).toBe(600 - lost);

  const { status, doc } = verifyJson([path], []);
  expect(status).toBe(0);
  const [file] = doc.files;
  expect(file.pages).toEqual([]);
  expect(doc.summary).toMatchObject({ blocks, zero: 1, ok: blocks - 1, mismatch: 0 });
  expect(file.findings).toEqual([expect.objectContaining({ code: 'zero_page_between_rows', block: ZEROED, pages: 1 })]);
  expect(file.findings?.[0].message).toMatch(new RegExp(`^block ${ZEROED}: all-zero page between pages with rows`));
  // The human output: pg_checksums' lines unchanged, the note on stderr.
  const human = pgpage(['verify', path]);
  expect(human.status).toBe(0);
  expect(human.stdout).toContain('Bad checksums:  0');
  expect(human.stderr).toContain(`block ${ZEROED}: all-zero page between pages with rows`);
});
