// Over 100,000 random and mutated pages through pageinspect's page_checksum and through
// `pgpage verify`, at block numbers from 0 to past 2^32 - 2^17 (--segment), every one equal.
// A second pass seals pages with the server's checksum so `ok` and `bad_header` get exercised
// too, and the server itself reads a slice of them through its buffer manager.
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Cluster, pgTempDir, serverVerdicts } from './cluster';
import { buildCorpus, CORPUS_DB } from './corpus';
import { chownPostgres, ensurePgpage, headerSane, isProblem, pgPages, verifyJson, type PgPage, type Status, type VerifyFile } from './pgpage';

const BLCKSZ = 8192;
const RELSEG_SIZE = 131072;
const SEED = Number(process.env.PGDIFF_SEED ?? 0x5eed2026);

/** xorshift32: fast, seeded, replayable with PGDIFF_SEED. */
function prng(seed: number): { u32: () => number; below: (n: number) => number } {
  let x = seed >>> 0 || 1;
  const u32 = () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
  return { u32, below: (n) => Math.floor((u32() / 4294967296) * n) };
}

type Rng = ReturnType<typeof prng>;

/** Fills `p` with one generated page; returns its kind (for failure messages). */
function makePage(p: Buffer, rng: Rng, corpus: Buffer[]): string {
  const fillRandom = () => {
    const w = new Uint32Array(p.buffer, p.byteOffset, BLCKSZ / 4);
    for (let i = 0; i < w.length; i++) w[i] = rng.u32();
  };
  const fromCorpus = () => corpus[rng.below(corpus.length)].copy(p);
  const plausibleHeader = () => {
    const special = rng.below(4) === 0 ? BLCKSZ - 8 * rng.below(8) : BLCKSZ;
    const lower = 24 + 4 * rng.below(200);
    const upper = lower + rng.below(special - lower + 1);
    p.writeUInt16LE(rng.below(10) === 0 ? rng.below(65536) : rng.below(8), 10); // pd_flags
    p.writeUInt16LE(rng.below(20) === 0 ? rng.below(65536) : lower, 12);
    p.writeUInt16LE(rng.below(20) === 0 ? 1 + rng.below(65535) : Math.max(upper, 1), 14);
    p.writeUInt16LE(rng.below(20) === 0 ? rng.below(65536) : special, 16);
    p.writeUInt16LE(rng.below(20) === 0 ? rng.below(65536) : BLCKSZ | 4, 18);
  };
  const k = rng.below(100);
  if (k < 15) {
    fillRandom();
    return 'random';
  }
  if (k < 35) {
    fillRandom();
    plausibleHeader();
    return 'random+header';
  }
  if (k < 70) {
    fromCorpus();
    const flips = 1 + rng.below(8);
    for (let i = 0; i < flips; i++) p[rng.below(BLCKSZ)] ^= 1 << rng.below(8);
    return 'corpus+bitflips';
  }
  if (k < 85) {
    fromCorpus();
    if (rng.below(2) === 0) {
      const n = 1 + rng.below(16);
      for (let i = 0; i < n; i++) p[rng.below(BLCKSZ)] = rng.below(256);
      return 'corpus+bytes';
    }
    const start = rng.below(BLCKSZ);
    const end = Math.min(BLCKSZ, start + 1 + rng.below(2048));
    const zero = rng.below(2) === 0;
    for (let i = start; i < end; i++) p[i] = zero ? 0 : rng.below(256);
    return zero ? 'corpus+zeroed-run' : 'corpus+random-run';
  }
  if (k < 92) {
    fromCorpus();
    plausibleHeader();
    if (rng.below(2) === 0) p.writeUInt16LE(rng.below(65536), 8);
    return 'corpus+header';
  }
  if (k < 97) {
    p.fill(0);
    const n = rng.below(6);
    for (let i = 0; i < n; i++) p[rng.below(BLCKSZ)] = 1 + rng.below(255);
    return n === 0 ? 'all-zero' : 'sparse';
  }
  fromCorpus();
  p.writeUInt16LE(0, 14); // pd_upper = 0 over a real page
  return 'corpus+upper-zero';
}

function expectedStatus(bytes: Buffer, pg: PgPage): Status {
  if (pg.computed === null) return bytes.every((x) => x === 0) ? 'zero' : 'new_not_zero';
  if (pg.computed !== pg.stored) return 'mismatch';
  return headerSane(pg) ? 'ok' : 'bad_header';
}

describe('random and mutated pages: pgpage against page_checksum', () => {
  let c: Cluster;
  let dir: string;
  const corpus: Buffer[] = [];
  const rng = prng(SEED);
  const tally = new Map<string, number>();

  beforeAll(() => {
    ensurePgpage();
    c = Cluster.create('pgdiff-random');
    const files = buildCorpus(c);
    for (const f of files) {
      const bytes = readFileSync(f.path);
      for (let b = 0; b < f.blocks; b++) {
        const pg = bytes.subarray(b * BLCKSZ, (b + 1) * BLCKSZ);
        if (pg.readUInt16LE(14) !== 0) corpus.push(pg);
      }
    }
    expect(corpus.length).toBeGreaterThan(3000);
    dir = pgTempDir('pgdiff-random-');
  });

  afterAll(() => {
    c?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Generates, writes and checks one file; returns its bytes, kinds and our verdicts. */
  function runBatch(name: string, pages: number, segment: number, args: string[], seal?: (b: Buffer, kinds: string[]) => void) {
    const bytes = Buffer.alloc(pages * BLCKSZ);
    const kinds: string[] = [];
    for (let b = 0; b < pages; b++) {
      const kind = b === 0 ? 'corpus' : makePage(bytes.subarray(b * BLCKSZ, (b + 1) * BLCKSZ), rng, corpus);
      if (b === 0) corpus[0].copy(bytes);
      kinds.push(kind);
    }
    seal?.(bytes, kinds);
    const path = join(dir, name);
    writeFileSync(path, bytes);
    const first = segment * RELSEG_SIZE;
    const [pg] = pgPages(c, [{ path, blocks: pages, firstBlock: first }], CORPUS_DB);
    const { doc, stderr } = verifyJson([path], ['--all', ...args]);
    expect(stderr).toBe('');
    const f: VerifyFile = doc.files[0];
    expect(f.segment).toBe(segment);
    expect(f.blocks).toBe(pages);
    expect(f.pages.length).toBe(pages);
    const bad: string[] = [];
    for (let b = 0; b < pages; b++) {
      const o = f.pages[b];
      const theirs = pg[b];
      const page = bytes.subarray(b * BLCKSZ, (b + 1) * BLCKSZ);
      const want = expectedStatus(page, theirs);
      tally.set(want, (tally.get(want) ?? 0) + 1);
      if (o.block !== b || o.absolute_block !== first + b || o.computed !== theirs.computed || o.stored !== theirs.stored || o.status !== want) {
        bad.push(`${name} block ${b} (abs ${first + b}, ${kinds[b]}): pgpage ${JSON.stringify(o)}, PostgreSQL ${JSON.stringify(theirs)} => ${want}`);
      }
    }
    expect(bad.slice(0, 10), `${bad.length} of ${pages} pages disagree (seed ${SEED})`).toEqual([]);
    rmSync(path);
    return { bytes, kinds, pg, ours: f };
  }

  test('100,000 pages at block numbers from 0 to 2^32 - 2^17 + 20,000', () => {
    let total = 0;
    // Segment from the name, then from --segment: a random one below 2^31 / RELSEG_SIZE, a
    // random one above, and the last whole one (BlockNumber's top end; 0xFFFFFFFF is invalid).
    const low = 1 + rng.below(16383);
    const high = 16384 + rng.below(16383);
    for (const [name, segment, args] of [
      ['71001', 0, ['--block-size', '8192']],
      // Block size detected from the pages (block 0 is a real page), segment from the name.
      ['71002.7', 7, []],
      ['71003', low, ['--segment', String(low), '--block-size', '8192']],
      ['71004', high, ['--segment', String(high), '--block-size', '8192']],
      ['71005', 32767, ['--segment', '32767', '--block-size', '8192']],
    ] as [string, number, string[]][]) {
      runBatch(name, 20_000, segment, args);
      total += 20_000;
    }
    expect(total).toBeGreaterThanOrEqual(100_000);
    // The generator reached every status.
    for (const s of ['mismatch', 'zero', 'new_not_zero'] as Status[]) expect(tally.get(s) ?? 0, s).toBeGreaterThan(100);
  });

  test('pages sealed with the server checksum: ok and bad_header as PageIsVerified decides, and as the server reads them', () => {
    const pages = 10_000;
    const seal = (bytes: Buffer) => {
      const path = join(dir, 'unsealed');
      writeFileSync(path, bytes);
      const [pg] = pgPages(c, [{ path, blocks: pages, firstBlock: 0 }], CORPUS_DB);
      // Three in four: the rest stay mismatched, for the server's WARNING to be compared too.
      for (const p of pg) if (p.computed !== null && p.block % 4 !== 3) bytes.writeUInt16LE(p.computed, p.block * BLCKSZ + 8);
      rmSync(path);
    };
    const { bytes, ours } = runBatch('72000', pages, 0, ['--block-size', '8192'], seal);
    const counts = new Map<Status, number>();
    for (const p of ours.pages) counts.set(p.status, (counts.get(p.status) ?? 0) + 1);
    expect(counts.get('ok') ?? 0).toBeGreaterThan(1000);
    expect(counts.get('bad_header') ?? 0).toBeGreaterThan(100);
    expect(counts.get('mismatch') ?? 0).toBeGreaterThan(1000);
    expect(ours.pages.every((p) => p.status !== 'mismatch' || p.block % 4 === 3)).toBe(true);

    // The server: the first 1,500 of those pages as a relation's file, read block by block.
    const served = 1500;
    c.sql('create table sealed (x int);', CORPUS_DB);
    const target = c.relationPath('sealed', CORPUS_DB);
    c.stop();
    const path = join(dir, 'sealed');
    writeFileSync(path, bytes.subarray(0, served * BLCKSZ));
    copyFileSync(path, target);
    chownPostgres(target);
    c.start();
    const verdicts = serverVerdicts(c, 'sealed', 'main', [...Array(served).keys()], CORPUS_DB);
    const bad: string[] = [];
    for (const v of verdicts) {
      const o = ours.pages[v.block];
      const warning = o.status === 'mismatch' ? { calculated: o.computed, expected: o.stored } : undefined;
      const agree = v.ok === !isProblem(o.status) && JSON.stringify(v.warning) === JSON.stringify(warning);
      if (!agree) bad.push(`block ${v.block}: server ${JSON.stringify(v)}, pgpage ${JSON.stringify(o)}`);
    }
    expect(bad.slice(0, 10), `${bad.length} of ${served} blocks disagree with the server`).toEqual([]);
    expect(verdicts.filter((v) => !v.ok).length).toBeGreaterThan(50);
    expect(verdicts.filter((v) => v.warning).length).toBeGreaterThan(50);
  });
});
