// `pgpage verify` on a clean corpus of every access method, held against PostgreSQL 15:
// pageinspect's page_checksum/page_header on every page's raw bytes, and pg_checksums --check
// on the stopped cluster.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rmSync } from 'node:fs';
import { Cluster, PG_VERSION, pgTempDir } from './cluster';
import { buildCorpus, CORPUS_DB, listFiles, type CorpusFile } from './corpus';
import { ensurePgpage, failureLines, parseScanSummary, NO_PG_CHECKSUMS, pgChecksums, pgPages, pgpage, verifyJson } from './pgpage';

describe(`verify: clean corpus against PostgreSQL ${PG_VERSION}`, () => {
  let c: Cluster;
  let files: CorpusFile[];
  let tablespace: string;

  beforeAll(() => {
    ensurePgpage();
    c = Cluster.create('pgdiff-verify');
    files = buildCorpus(c);
    // A tablespace, so the data directory walk goes through pg_tblspc too.
    tablespace = pgTempDir('pgdiff-verify-ts-');
    c.sql(
      `create tablespace ts location '${tablespace}';
      create table in_ts (id int primary key, v text) tablespace ts;
      insert into in_ts select g, md5(g::text) from generate_series(1, 5000) g;
      create index in_ts_v on in_ts (v) tablespace ts;
      checkpoint;`,
      CORPUS_DB,
    );
    files = listFiles(c);
  });

  afterAll(() => {
    c?.destroy();
    if (tablespace) rmSync(tablespace, { recursive: true, force: true });
  });

  test('every page: computed, stored and status agree with page_checksum/page_header', () => {
    const ams = new Set(files.map((f) => `${f.am || f.relkind}/${f.fork}`));
    for (const want of [
      'heap/main',
      'heap/fsm',
      'heap/vm',
      'heap/init',
      'btree/main',
      'btree/init',
      'hash/main',
      'gist/main',
      'gin/main',
      'spgist/main',
      'brin/main',
      'S/main',
    ]) {
      expect(ams, `corpus lacks ${want}`).toContain(want);
    }

    const { status, doc, stderr } = verifyJson(files.map((f) => f.path));
    // The files are read while their server runs (page_checksum() reads them live beside):
    // verify says so, once, and nothing else.
    expect(stderr).toMatch(/^pgpage: warning: the server of "[^"]+" looks running \(postmaster\.pid is there[^\n]*\n$/);
    expect(status).toBe(0);
    expect(doc.files.map((f) => f.path)).toEqual(files.map((f) => f.path));

    const pg = pgPages(
      c,
      files.map((f) => ({ path: f.path, blocks: f.blocks, firstBlock: f.segment * 131072 })),
      'corpus',
    );
    let pages = 0;
    let newPages = 0;
    files.forEach((f, i) => {
      const ours = doc.files[i];
      expect(ours.blocks, f.path).toBe(f.blocks);
      expect(ours.segment, f.path).toBe(f.segment);
      expect(ours.fork, f.path).toBe(f.fork);
      expect(ours.trailing_bytes, f.path).toBe(0);
      expect(ours.pages.length, `--all lists every page of ${f.path}`).toBe(f.blocks);
      ours.pages.forEach((p, b) => {
        const theirs = pg[i][b];
        const where = `${f.rel} ${f.fork} ${f.path} block ${b}`;
        expect(p.block, where).toBe(b);
        expect(p.absolute_block, where).toBe(f.segment * 131072 + b);
        expect(p.stored, where).toBe(theirs.stored);
        expect(p.computed, where).toBe(theirs.computed);
        if (theirs.computed === null) {
          // PageIsNew: the server only writes all-zero new pages.
          expect(p.status, where).toBe('zero');
          newPages++;
        } else {
          expect(theirs.computed, `server-written page carries its checksum: ${where}`).toBe(theirs.stored);
          expect(p.status, where).toBe('ok');
        }
        pages++;
      });
    });
    expect(pages).toBe(files.reduce((n, f) => n + f.blocks, 0));
    expect(pages).toBeGreaterThan(3000);
    expect(doc.summary).toMatchObject({
      files: files.length,
      blocks: pages,
      ok: pages - newPages,
      zero: newPages,
      mismatch: 0,
      new_not_zero: 0,
      bad_header: 0,
    });
  });

  test.skipIf(NO_PG_CHECKSUMS)('the stopped data directory: exit 0 and the counts pg_checksums --check gives', () => {
    c.stop();
    try {
      const theirs = pgChecksums(c.dataDir);
      expect(theirs.status, theirs.stderr).toBe(0);
      expect(theirs.failures).toEqual([]);
      expect(theirs.filesScanned).toBeGreaterThan(500);

      const json = verifyJson([c.dataDir], []);
      const inTs = json.doc.files.filter((f) => f.path.startsWith(`${c.dataDir}/pg_tblspc/`));
      expect(inTs.length, 'files reached through pg_tblspc').toBeGreaterThanOrEqual(2);
      expect(inTs.reduce((n, f) => n + f.blocks, 0)).toBeGreaterThan(40);
      expect(json.status, json.stderr).toBe(0);
      expect(json.doc.summary.files).toBe(theirs.filesScanned);
      expect(json.doc.summary.blocks).toBe(theirs.blocksScanned);
      expect(json.doc.summary.mismatch).toBe(0);
      expect(json.doc.files.every((f) => f.pages.length === 0)).toBe(true);

      const human = pgpage(['verify', c.dataDir]);
      expect(human.status, human.stderr).toBe(0);
      expect(failureLines(human.stdout + human.stderr)).toEqual([]);
      const ours = parseScanSummary(human.stdout);
      expect(ours.files, `human summary:\n${human.stdout}`).toBe(theirs.filesScanned);
      expect(ours.blocks, `human summary:\n${human.stdout}`).toBe(theirs.blocksScanned);
    } finally {
      c.start();
    }
  });
});
