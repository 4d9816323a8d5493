// Small relation files with every page status, and what PostgreSQL 15 says about each page,
// kept in tests/fixtures/verify/ for fast tests that have no server. `make.sh` there rebuilds
// them (PGDIFF_WRITE_FIXTURES=1); every run holds the committed expectations against a real
// server again and against `pgpage verify`.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Cluster, pgTempDir } from './cluster';
import { ensurePgpage, headerSane, pgPages, u16, verifyJson, type PgPage, type Status, type VerifyFile } from './pgpage';

const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures/verify');
const BLCKSZ = 8192;
const RELSEG_SIZE = 131072;
const WRITE = process.env.PGDIFF_WRITE_FIXTURES === '1';

/** A fixture: one relation file and the contract's `--all` JSON for it, path relative. */
interface Fixture {
  dir: string;
  file: string;
  expected: Omit<VerifyFile, 'endian'>;
}

function loadFixtures(): Fixture[] {
  if (!existsSync(FIXTURES)) return [];
  return readdirSync(FIXTURES, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => {
      const dir = join(FIXTURES, d.name);
      const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Omit<VerifyFile, 'endian'>;
      return { dir, file: join(dir, expected.path), expected };
    });
}

/** Everything PostgreSQL says about a file's pages, in the contract's terms. */
function expectedFromPostgres(c: Cluster, file: string, segment: number, fork: string): Omit<VerifyFile, 'endian'> {
  // The server reads a copy in a directory of its own, wherever the checkout lives.
  const bytes = readFileSync(file);
  const path = join(pgTempDir('pgdiff-fixture-'), basename(file));
  writeFileSync(path, bytes);
  const blocks = Math.floor(bytes.length / BLCKSZ);
  const first = (segment * RELSEG_SIZE) % 2 ** 32;
  const [pg] = pgPages(c, [{ path, blocks, firstBlock: first }]);
  const status = (p: PgPage): Status => {
    if (p.computed === null) return bytes.subarray(p.block * BLCKSZ, (p.block + 1) * BLCKSZ).every((x) => x === 0) ? 'zero' : 'new_not_zero';
    if (p.computed !== p.stored) return 'mismatch';
    return headerSane(p) ? 'ok' : 'bad_header';
  };
  const nearest = new Map<number, number>();
  const mism = pg.filter((p) => status(p) === 'mismatch').map((p) => p.block);
  if (mism.length > 0) {
    const out = c.sql(
      `select b, (select j from generate_series(0, ${blocks - 1}) j
                   where page_checksum(p, ${first} + j) = h.checksum order by abs(j - b), j limit 1)
         from unnest(array[${mism.join(',')}]) b,
              lateral (select pg_read_binary_file('${path}', b::bigint * 8192, 8192) p) r,
              lateral page_header(r.p) h;`,
    );
    for (const line of out.trim().split('\n')) {
      const [b, j] = line.split('|');
      if (j !== '') nearest.set(Number(b), Number(j));
    }
  }
  rmSync(dirname(path), { recursive: true, force: true });
  return {
    path: basename(path),
    segment,
    fork,
    block_size: BLCKSZ,
    blocks,
    trailing_bytes: bytes.length % BLCKSZ,
    pages: pg.map((p) => ({
      block: p.block,
      absolute_block: first + p.block,
      status: status(p),
      stored: p.stored,
      computed: p.computed,
      ...(nearest.has(p.block) ? { matches_block: nearest.get(p.block) } : {}),
    })),
  };
}

/** Builds the fixture files from a fresh relation; expectations come from the server afterwards. */
function writeFixtures(c: Cluster): void {
  c.sql(`create table fx (id int primary key, v text);
    insert into fx select g, repeat(md5(g::text), 4) from generate_series(1, 700) g;
    vacuum fx;
    checkpoint;`);
  const heapPath = c.relationPath('fx');
  const heap = readFileSync(heapPath);
  const index = readFileSync(c.relationPath('fx_pkey'));
  const node = basename(heapPath);
  expect(heap.length / BLCKSZ).toBeGreaterThanOrEqual(12);
  const page = (b: Buffer, n: number) => b.subarray(n * BLCKSZ, (n + 1) * BLCKSZ);
  const seal = (b: Buffer, n: number, abs: number) => {
    const sum = c.sql(`select page_checksum(decode('${page(b, n).toString('hex')}', 'hex'), ${abs});`).trim();
    page(b, n).writeUInt16LE(u16(Number(sum)), 8);
  };

  // One page of each status and corruption kind, block by block.
  const mixed = Buffer.from(heap.subarray(0, 12 * BLCKSZ));
  mixed[1 * BLCKSZ + 2] ^= 0x10; // 1: a bit of pd_lsn
  mixed[2 * BLCKSZ + page(heap, 2).readUInt16LE(14) + 40] ^= 0x02; // 2: a bit of tuple data
  mixed[3 * BLCKSZ + 9] ^= 0x40; // 3: a bit of pd_checksum
  const sector = Math.ceil(page(heap, 4).readUInt16LE(14) / 512) * 512;
  mixed.fill(0, 4 * BLCKSZ + sector, 4 * BLCKSZ + sector + 512); // 4: a zeroed sector of tuples
  let x = 12345;
  for (let i = 0; i < BLCKSZ; i++) mixed[5 * BLCKSZ + i] = (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 24; // 5: garbage
  page(mixed, 5).writeUInt16LE(4000, 14);
  page(mixed, 6).writeUInt16LE(0, 14); // 6: pd_upper zeroed (new_not_zero)
  page(mixed, 7).fill(0); // 7: a new, all-zero page
  page(mixed, 8).writeUInt16LE(page(mixed, 8).readUInt16LE(14) + 8, 12); // 8: pd_lower > pd_upper,
  seal(mixed, 8, 8); //    checksum valid (bad_header)
  page(mixed, 9).writeUInt16LE(0x0010, 10); // 9: an invalid pd_flags bit, checksum valid
  seal(mixed, 9, 9);
  page(heap, 11).copy(mixed, 10 * BLCKSZ); // 10, 11: swapped
  page(heap, 10).copy(mixed, 11 * BLCKSZ);

  const files: [string, string, Buffer][] = [
    ['heap_mixed', node, mixed],
    ['heap_segment_2', `${node}.2`, Buffer.from(heap.subarray(0, 4 * BLCKSZ))],
    ['heap_truncated', node, Buffer.from(heap.subarray(0, 3 * BLCKSZ + 3000))],
    ['btree_clean', basename(c.relationPath('fx_pkey')), index],
    ['fsm_clean', `${node}_fsm`, readFileSync(`${heapPath}_fsm`)],
    ['vm_clean', `${node}_vm`, readFileSync(`${heapPath}_vm`)],
  ];
  for (const d of loadFixtures()) rmSync(d.dir, { recursive: true, force: true });
  for (const [dir, name, bytes] of files) {
    mkdirSync(join(FIXTURES, dir), { recursive: true });
    writeFileSync(join(FIXTURES, dir, name), bytes);
  }
  for (const [dir, name] of files) {
    const m = /^\d+(?:_(fsm|vm|init))?(?:\.(\d+))?$/.exec(name)!;
    const expected = expectedFromPostgres(c, join(FIXTURES, dir, name), Number(m[2] ?? 0), m[1] ?? 'main');
    const { pages, ...head } = expected;
    const json = JSON.stringify(head).replace(/}$/, `, "pages": [\n  ${pages.map((p) => JSON.stringify(p)).join(',\n  ')}\n]}\n`);
    writeFileSync(join(FIXTURES, dir, 'expected.json'), json);
  }
}

describe('tests/fixtures/verify: committed files, PostgreSQL and pgpage', () => {
  let c: Cluster;
  let fixtures: Fixture[];

  beforeAll(() => {
    ensurePgpage();
    c = Cluster.create('pgdiff-fixtures');
    c.sql('create extension pageinspect;');
    if (WRITE) writeFixtures(c);
    fixtures = loadFixtures();
  });

  afterAll(() => c?.destroy());

  test('every status is among the fixtures', () => {
    const statuses = new Set(fixtures.flatMap((f) => f.expected.pages.map((p) => p.status)));
    expect([...statuses].sort()).toEqual(['bad_header', 'mismatch', 'new_not_zero', 'ok', 'zero']);
    expect(fixtures.some((f) => f.expected.trailing_bytes > 0)).toBe(true);
    expect(fixtures.some((f) => f.expected.segment > 0)).toBe(true);
    expect(fixtures.some((f) => f.expected.pages.some((p) => p.matches_block !== undefined))).toBe(true);
  });

  test('expected.json is what PostgreSQL says about the committed bytes', () => {
    for (const f of fixtures) {
      expect(expectedFromPostgres(c, f.file, f.expected.segment, f.expected.fork), f.dir).toEqual(f.expected);
    }
  });

  test('pgpage verify --json --all gives expected.json', () => {
    const { doc } = verifyJson(fixtures.map((f) => f.file));
    fixtures.forEach((f, i) => {
      // The byte order each file was read in, detected: PostgreSQL wrote them little-endian.
      // Keys beyond PostgreSQL's answers (the core's findings, a bare match's odds) are
      // left out; matches_block, a claim, stays.
      const { endian, findings: _findings, ...file } = doc.files[i];
      expect(endian, f.dir).toBe('little');
      const pages = file.pages.map(({ findings: _f, candidate: _c, ...p }) => p);
      expect({ ...file, pages, path: basename(file.path) }, f.dir).toEqual(f.expected);
    });
  });
});
