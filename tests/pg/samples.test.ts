// The committed samples (public/samples/, scripts/make-samples.sh) held against a throwaway
// PostgreSQL 15: pageinspect on every page of every file gives manifest.json again, and the
// server reading the heap samples through its buffer manager refuses exactly the pages the
// manifest (and the tour's text) calls problems, with the checksums it names.
import { copyFileSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { SampleManifest, SamplePage } from '../../web/src/samples/samples';
import { Cluster, pgTempDir, serverVerdicts } from './cluster';
import { chownPostgres, headerSane, pgPages, type PgPage } from './pgpage';

const SAMPLES = resolve(dirname(fileURLToPath(import.meta.url)), '../../public/samples');
const manifest = JSON.parse(readFileSync(join(SAMPLES, 'manifest.json'), 'utf8')) as SampleManifest;
const BLCKSZ = 8192;
const RELSEG_SIZE = 131072;

describe('public/samples: committed files and PostgreSQL', () => {
  let c: Cluster;

  beforeAll(() => {
    c = Cluster.create('pgpage-samples');
    c.sql('create extension pageinspect;');
  });

  afterAll(() => c?.destroy());

  test('page_checksum() and page_header() of every page give manifest.json', () => {
    const dir = pgTempDir('pgpage-samples-');
    try {
      const files = manifest.samples.map((s) => {
        const path = join(dir, s.file);
        copyFileSync(join(SAMPLES, s.file), path);
        chownPostgres(path);
        const size = readFileSync(path).length;
        expect(size % BLCKSZ, s.file).toBe(0);
        return { path, blocks: size / BLCKSZ, firstBlock: s.segment * RELSEG_SIZE };
      });
      const pg = pgPages(c, files);
      manifest.samples.forEach((s, i) => {
        const bytes = readFileSync(files[i].path);
        const status = (p: PgPage): SamplePage['status'] => {
          if (p.computed === null) return bytes.subarray(p.block * BLCKSZ, (p.block + 1) * BLCKSZ).every((x) => x === 0) ? 'zero' : 'new_not_zero';
          if (p.computed !== p.stored) return 'mismatch';
          return headerSane(p) ? 'ok' : 'bad_header';
        };
        const fromServer = pg[i].map((p) => ({
          block: p.block,
          absolute_block: files[i].firstBlock + p.block,
          stored: p.stored,
          computed: p.computed,
          upper: p.upper,
          status: status(p),
        }));
        expect(fromServer, s.file).toEqual(s.pages);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the server reading the heap samples refuses exactly their problem pages', () => {
    const heaps = manifest.samples.filter((s) => s.kind === 'heap' && s.fork === 'main');
    expect(heaps.map((s) => s.role).sort()).toEqual(['flipped_bit', 'heap', 'segment_2', 'swapped_pages', 'upper_zeroed', 'zeroed_page']);
    c.sql(heaps.map((_, i) => `create table sample_${i} (x int);`).join('\n'));
    const targets = heaps.map((_, i) => c.relationPath(`sample_${i}`));
    c.stop();
    heaps.forEach((s, i) => {
      // Segments before the sample's own: full-length and sparse, all-zero as far as the server knows.
      for (let seg = 0; seg < s.segment; seg++) {
        const p = seg === 0 ? targets[i] : `${targets[i]}.${seg}`;
        writeFileSync(p, '');
        truncateSync(p, RELSEG_SIZE * BLCKSZ);
        chownPostgres(p);
      }
      const p = s.segment === 0 ? targets[i] : `${targets[i]}.${s.segment}`;
      copyFileSync(join(SAMPLES, s.file), p);
      chownPostgres(p);
    });
    c.start();
    heaps.forEach((s, i) => {
      const verdicts = serverVerdicts(
        c,
        `sample_${i}`,
        'main',
        s.pages.map((p) => p.absolute_block),
      );
      verdicts.forEach((v, b) => {
        const page = s.pages[b];
        const where = `${s.file} block ${page.block}: server ${JSON.stringify(v)}, manifest ${JSON.stringify(page)}`;
        expect(v.ok, where).toBe(page.status === 'ok' || page.status === 'zero');
        if (!v.ok) expect(v.error, where).toMatch(new RegExp(`^invalid page in block ${page.absolute_block} of relation `));
        if (page.status === 'mismatch') expect(v.warning, where).toEqual({ calculated: page.computed, expected: page.stored });
        else expect(v.warning, where).toBeUndefined();
      });
    });
  });
});
