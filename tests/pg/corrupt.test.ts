// Corrupted copies of real relation files, each held against three PostgreSQL 15 oracles:
// (a) pageinspect on the raw corrupted bytes, (b) the server itself reading the file through
// its buffer manager (PageIsVerified's WARNING/ERROR), (c) pg_checksums --check on a stopped
// copy of the data directory, line by line.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Cluster, PG_VERSION, pgTempDir, serverVerdicts, type ServerVerdict } from './cluster';
import {
  chownPostgres,
  ensurePgpage,
  failureLines,
  headerSane,
  isProblem,
  parseScanSummary,
  NO_PG_CHECKSUMS,
  pgChecksums,
  pgPages,
  pgpage,
  u16,
  verifyJson,
  type PgPage,
  type Status,
  type VerifyFile,
} from './pgpage';

const BLCKSZ = 8192;
const RELSEG_SIZE = 131072;

/** mulberry32: a small seeded generator, so a failing case can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const page = (buf: Buffer, b: number): Buffer => buf.subarray(b * BLCKSZ, (b + 1) * BLCKSZ);
const flipBit = (buf: Buffer, b: number, off: number, bit: number): void => {
  buf[b * BLCKSZ + off] ^= 1 << bit;
};

interface Case {
  name: string;
  /** The corrupted file's bytes. */
  bytes: Buffer;
  /** Its name: a relfilenode, with a fork or segment suffix where the case needs one. */
  fileName: string;
  /** Relation-wide number of block 0 (segment * RELSEG_SIZE, in 32 bits as BlockNumber wraps). */
  firstBlock: number;
  /** The segment number, when firstBlock is not segment * RELSEG_SIZE. */
  segment?: number;
  /** What the corruption was built to produce; every other block must be fine. */
  intended: Map<number, Status>;
  /** Partner blocks a mismatched page's checksum belongs to (swapped pages). */
  partners?: Map<number, number>;
  /** Read by the server through the buffer manager (a later segment without the earlier ones is never read). */
  server: boolean;
  trailing?: number;
  /** Blocks to give the server's checksum for their relation-wide number (bad_header ones too). */
  seal?: number[];
}

describe(`corrupted relation files against PostgreSQL ${PG_VERSION}`, () => {
  let c: Cluster;
  let work: string;
  let cases: Case[];
  let tablespace: string;
  const filePath = (k: Case) => join(work, k.name, k.fileName);
  // Per case: our verdict, pageinspect's per page, the server's per block.
  const ours = new Map<string, VerifyFile>();
  const pgRaw = new Map<string, PgPage[]>();

  beforeAll(() => {
    ensurePgpage();
    c = Cluster.create('pgdiff-corrupt');
    tablespace = pgTempDir('pgdiff-corrupt-ts-');
    c.sql(`create extension pageinspect;
      create table src (id int primary key, v int, pad text) with (fillfactor = 90);
      insert into src select g, g, repeat(md5(g::text), 3) from generate_series(1, 5000) g;
      vacuum src;
      create tablespace ts location '${tablespace}';
      create table in_ts (x int) tablespace ts;
      create table tiny (id int, t text);
      insert into tiny values (1, 'one'), (2, 'two');
      checkpoint;`);
    const tinyPath = c.relationPath('tiny');
    const heapPath = c.relationPath('src');
    const idxPath = c.relationPath('src_pkey');
    const relfilenode = basename(heapPath);
    const before = readFileSync(heapPath);
    c.sql(`update src set v = -v where id % 4 = 0; checkpoint;`);
    const heap = readFileSync(heapPath);
    const index = readFileSync(idxPath);
    const fsm = readFileSync(`${heapPath}_fsm`);
    const vm = readFileSync(`${heapPath}_vm`);
    const n = heap.length / BLCKSZ;
    expect(n).toBeGreaterThan(40);

    const rand = prng(20260123);
    const copy = (b: Buffer) => Buffer.from(b);
    const upperOf = (buf: Buffer, b: number) => page(buf, b).readUInt16LE(14);
    const mk = (name: string, bytes: Buffer, intended: [number, Status][], extra: Partial<Case> = {}): Case => ({
      name,
      bytes,
      fileName: relfilenode,
      firstBlock: 0,
      intended: new Map(intended),
      server: true,
      ...extra,
    });

    // A page that changed in both halves between the two checkpoints: its torn version
    // carries the old header and checksum over new tuple data.
    const torn = [...Array(Math.min(n, before.length / BLCKSZ)).keys()].find(
      (b) =>
        b > 0 &&
        !page(before, b).subarray(0, 4096).equals(page(heap, b).subarray(0, 4096)) &&
        !page(before, b).subarray(4096).equals(page(heap, b).subarray(4096)),
    );
    expect(torn, 'the update changed both halves of some page').toBeDefined();

    cases = [];
    {
      const b = copy(heap);
      flipBit(b, 2, 2, 4); // pd_lsn
      cases.push(mk('header_bit', b, [[2, 'mismatch']]));
    }
    {
      const b = copy(heap);
      flipBit(b, 3, upperOf(heap, 3) + 40, 1); // inside the first tuple's data
      cases.push(mk('data_bit', b, [[3, 'mismatch']]));
    }
    {
      const b = copy(heap);
      flipBit(b, 4, 9, 6); // pd_checksum's high byte
      cases.push(mk('checksum_bit', b, [[4, 'mismatch']]));
    }
    {
      const b = copy(heap);
      // A 512-byte sector inside the tuple data (free space is zeros already).
      const sector = Math.ceil(upperOf(heap, 5) / 512) * 512;
      expect(sector + 512).toBeLessThanOrEqual(BLCKSZ);
      expect(
        page(heap, 5)
          .subarray(sector, sector + 512)
          .some((x) => x !== 0),
      ).toBe(true);
      b.fill(0, 5 * BLCKSZ + sector, 5 * BLCKSZ + sector + 512);
      cases.push(mk('zeroed_sector', b, [[5, 'mismatch']]));
    }
    {
      const b = copy(heap);
      page(before, torn!).copy(b, torn! * BLCKSZ, 0, 4096);
      cases.push(mk('torn_page', b, [[torn!, 'mismatch']]));
    }
    {
      // Torn while the relation was extended: the first half never reached the disk.
      // pd_upper reads 0, so pg_checksums skips the page; the server refuses it.
      const b = copy(heap);
      b.fill(0, 14 * BLCKSZ, 14 * BLCKSZ + 4096);
      cases.push(mk('torn_new_page', b, [[14, 'new_not_zero']]));
    }
    {
      // ... and the other way round: the second half lost.
      const b = copy(heap);
      b.fill(0, 15 * BLCKSZ + 4096, 16 * BLCKSZ);
      cases.push(mk('torn_lost_half', b, [[15, 'mismatch']]));
    }
    {
      const b = copy(heap);
      for (let i = 0; i < BLCKSZ; i++) b[6 * BLCKSZ + i] = Math.floor(rand() * 256);
      if (upperOf(b, 6) === 0) b[6 * BLCKSZ + 14] = 1;
      cases.push(mk('garbage_page', b, [[6, 'mismatch']]));
    }
    {
      const b = copy(heap);
      b.writeUInt16LE(0, 7 * BLCKSZ + 14);
      cases.push(mk('upper_zeroed', b, [[7, 'new_not_zero']]));
    }
    {
      const b = copy(heap);
      page(heap, 11).copy(b, 10 * BLCKSZ);
      page(heap, 10).copy(b, 11 * BLCKSZ);
      cases.push(
        mk(
          'swapped_pages',
          b,
          [
            [10, 'mismatch'],
            [11, 'mismatch'],
          ],
          {
            partners: new Map([
              [10, 11],
              [11, 10],
            ]),
          },
        ),
      );
    }
    cases.push(
      mk(
        'later_segment',
        copy(heap),
        [...Array(n).keys()].map((b) => [b, 'mismatch'] as [number, Status]),
        {
          fileName: `${relfilenode}.2`,
          firstBlock: 2 * RELSEG_SIZE,
          server: false,
        },
      ),
    );
    // Past the 32 TB a relation can have, BlockNumber arithmetic wraps, for the server and
    // for pg_checksums alike: segment 32769 checksums like segment 1.
    cases.push(
      mk(
        'wrapped_segment',
        copy(heap),
        [...Array(n).keys()].map((b) => [b, 'mismatch'] as [number, Status]),
        {
          fileName: `${relfilenode}.32769`,
          firstBlock: (32769 * RELSEG_SIZE) % 2 ** 32,
          segment: 32769,
          server: false,
        },
      ),
    );
    cases.push(mk('truncated', copy(heap.subarray(0, (n - 2) * BLCKSZ + 3000)), [], { trailing: 3000 }));
    cases.push(mk('truncated_in_first_page', copy(heap.subarray(0, 5000)), [], { trailing: 5000 }));
    {
      const b = copy(heap);
      b.fill(0, 13 * BLCKSZ, 14 * BLCKSZ);
      cases.push(mk('zero_page', b, [[13, 'zero']]));
    }
    // Header sanity failures under a valid checksum (sealed below with the server's checksum).
    {
      const b = copy(heap);
      const p = page(b, 8);
      p.writeUInt16LE(p.readUInt16LE(14) + 8, 12); // pd_lower > pd_upper
      cases.push(mk('lower_above_upper', b, [[8, 'bad_header']]));
    }
    {
      const b = copy(heap);
      page(b, 9).writeUInt16LE(0x0010, 10); // pd_flags outside PD_VALID_FLAG_BITS
      cases.push(mk('bad_flags', b, [[9, 'bad_header']]));
    }
    {
      const b = copy(heap);
      page(b, 12).writeUInt16LE(8188, 16); // pd_special not MAXALIGNed
      cases.push(mk('special_unaligned', b, [[12, 'bad_header']]));
    }
    {
      // The only page of a one-block relation turned to garbage that happens to claim
      // another block size in pd_pagesize_version (1 in 50 random pages do).
      const b = Buffer.alloc(BLCKSZ);
      for (let i = 0; i < BLCKSZ; i++) b[i] = Math.floor(rand() * 256);
      b.writeUInt16LE(100, 14);
      b.writeUInt16LE(0x4004, 18);
      expect(readFileSync(tinyPath).length).toBe(BLCKSZ);
      cases.push(mk('one_block_garbage', b, [[0, 'mismatch']], { fileName: basename(tinyPath) }));
    }
    // Other forks and access methods.
    {
      const b = copy(index);
      flipBit(b, 1, upperOf(index, 1) + 10, 3);
      cases.push(mk('btree_data_bit', b, [[1, 'mismatch']], { fileName: basename(idxPath) }));
    }
    {
      const b = copy(fsm);
      flipBit(b, 2, 100, 0);
      cases.push(mk('fsm_bit', b, [[2, 'mismatch']], { fileName: `${relfilenode}_fsm` }));
    }
    {
      const b = copy(vm);
      flipBit(b, 0, 8, 0);
      cases.push(mk('vm_checksum_bit', b, [[0, 'mismatch']], { fileName: `${relfilenode}_vm` }));
    }

    {
      // A second segment, read by the server behind a full first one: every other page
      // re-sealed for its relation-wide block, the rest still carrying segment 0's checksums.
      const even = [...Array(n).keys()].filter((b) => b % 2 === 0);
      cases.push(
        mk(
          'segment_one',
          copy(heap),
          [...Array(n).keys()].filter((b) => b % 2 === 1).map((b) => [b, 'mismatch'] as [number, Status]),
          {
            fileName: `${relfilenode}.1`,
            firstBlock: RELSEG_SIZE,
            seal: even,
          },
        ),
      );
    }

    const seal = (k: Case) => {
      const blocks = [...(k.seal ?? []), ...[...k.intended].filter(([, s]) => s === 'bad_header').map(([b]) => b)];
      for (const b of blocks) {
        const p = page(k.bytes, b);
        const sum = c.sql(`select page_checksum(decode('${p.toString('hex')}', 'hex'), ${k.firstBlock + b});`).trim();
        p.writeUInt16LE(u16(Number(sum)), 8);
      }
    };
    work = pgTempDir('pgdiff-corrupt-files-');
    for (const k of cases) {
      seal(k);
      mkdirSync(join(work, k.name));
      writeFileSync(filePath(k), k.bytes);
    }

    // (a) pageinspect on the raw bytes, and our verdicts.
    const raw = pgPages(
      c,
      cases.map((k) => ({ path: filePath(k), blocks: Math.floor(k.bytes.length / BLCKSZ), firstBlock: k.firstBlock })),
    );
    cases.forEach((k, i) => pgRaw.set(k.name, raw[i]));
    const v = verifyJson(cases.map(filePath));
    expect(v.status, v.stderr).toBe(1);
    cases.forEach((k, i) => ours.set(k.name, v.doc.files[i]));
  });

  afterAll(() => {
    c?.destroy();
    for (const d of [tablespace, work]) if (d) rmSync(d, { recursive: true, force: true });
  });

  /** What PageIsVerified decides, from pageinspect's answers about the raw bytes. */
  function pgStatus(k: Case, p: PgPage): Status {
    if (p.computed === null) return page(k.bytes, p.block).every((x) => x === 0) ? 'zero' : 'new_not_zero';
    if (p.computed !== p.stored) return 'mismatch';
    return headerSane(p) ? 'ok' : 'bad_header';
  }

  test('every case does what it was built to do, by pageinspect', () => {
    for (const k of cases) {
      for (const p of pgRaw.get(k.name)!) {
        expect(pgStatus(k, p), `${k.name} block ${p.block}`).toBe(k.intended.get(p.block) ?? 'ok');
      }
    }
  });

  test('(a) per page: status, computed and stored equal pageinspect on the raw bytes', () => {
    for (const k of cases) {
      const f = ours.get(k.name)!;
      const theirs = pgRaw.get(k.name)!;
      expect(f.path).toBe(filePath(k));
      expect(f.blocks, k.name).toBe(theirs.length);
      expect(f.segment, k.name).toBe(k.segment ?? k.firstBlock / RELSEG_SIZE);
      expect(f.trailing_bytes, k.name).toBe(k.trailing ?? 0);
      expect(f.pages.length, k.name).toBe(theirs.length);
      for (const p of theirs) {
        const o = f.pages[p.block];
        const where = `${k.name} block ${p.block}`;
        expect(o.block, where).toBe(p.block);
        expect(o.absolute_block, where).toBe(k.firstBlock + p.block);
        expect(o.status, where).toBe(pgStatus(k, p));
        expect(o.stored, where).toBe(p.stored);
        expect(o.computed, where).toBe(p.computed);
      }
    }
  });

  test('(a) matches_block only where the tuples agree with the checksum; a bare match is a candidate; both by page_checksum', () => {
    const claims: string[] = [];
    for (const k of cases) {
      const f = ours.get(k.name)!;
      const mism = f.pages.filter((p) => p.status === 'mismatch');
      if (mism.length === 0) continue;
      const nearest = new Map<number, number>();
      const out = c.sql(
        `select b, (select j from generate_series(0, ${f.blocks - 1}) j
                     where page_checksum(p, ${k.firstBlock} + j) = h.checksum
                     order by abs(j - b), j limit 1)
           from unnest(array[${mism.map((p) => p.block).join(',')}]) b,
                lateral (select pg_read_binary_file('${filePath(k)}', b::bigint * 8192, 8192) p) r,
                lateral page_header(r.p) h;`,
      );
      for (const line of out.trim().split('\n')) {
        const [b, j] = line.split('|');
        if (j !== '') nearest.set(Number(b), Number(j));
      }
      for (const p of mism) {
        const where = `${k.name} block ${p.block}`;
        // Whatever block is named, the stored checksum is valid there by the server's own
        // page_checksum, and it is the nearest such block.
        const named = p.matches_block ?? p.candidate?.block;
        if (named !== undefined) expect(named, where).toBe(nearest.get(p.block));
        expect(p.matches_block !== undefined && p.candidate !== undefined, where).toBe(false);
        if (p.candidate) expect(p.candidate.searched, where).toBe(f.blocks);
        if (p.matches_block !== undefined) claims.push(`${k.name} ${p.block} -> ${p.matches_block}`);
      }
      for (const [b, partner] of k.partners ?? []) expect(f.pages[b].matches_block, `${k.name} block ${b}`).toBe(partner);
    }
    // Only the truly swapped pages are claimed: a checksum match alone is chance's to explain.
    expect(claims.sort()).toEqual(['swapped_pages 10 -> 11', 'swapped_pages 11 -> 10']);
    // Pages of a file named as a later segment carry segment 0's checksums, outside the file.
    expect(ours.get('later_segment')!.pages.every((p) => p.status === 'mismatch')).toBe(true);
  });

  test('--segment overrides the name: segment 2 on a plain name, 0 on a .2 name', () => {
    const k = cases.find((x) => x.name === 'later_segment')!;
    const plain = join(work, 'plain-name');
    mkdirSync(plain);
    const asSeg2 = join(plain, basename(k.fileName, '.2'));
    copyFileSync(filePath(k), asSeg2);
    const two = verifyJson([asSeg2], ['--all', '--segment', '2']);
    expect(two.status).toBe(1);
    expect(two.doc.files[0].segment).toBe(2);
    expect(two.doc.files[0].pages).toEqual(ours.get(k.name)!.pages);

    const zero = verifyJson([filePath(k)], ['--all', '--segment', '0']);
    expect(zero.status, zero.stderr).toBe(0);
    expect(zero.doc.files[0].pages.every((p) => p.status === 'ok' && p.computed === p.stored)).toBe(true);
    expect(zero.doc.files[0].pages.map((p) => p.stored)).toEqual(pgRaw.get(k.name)!.map((p) => p.stored));
  });

  test('(b) the server reading each file through its buffer manager agrees block by block', () => {
    const served = cases.filter((k) => k.server);
    c.sql(served.map((_, i) => `create table tgt_${i} (x int);`).join('\n'));
    const targets = served.map((_, i) => c.relationPath(`tgt_${i}`));
    c.stop();
    served.forEach((k, i) => {
      if (k.firstBlock === 0) {
        copyFileSync(filePath(k), targets[i]);
      } else {
        // Segments before the file's own: full-length and sparse, all-zero pages as far as the server knows.
        expect(k.firstBlock % RELSEG_SIZE).toBe(0);
        for (let seg = 0; seg < k.firstBlock / RELSEG_SIZE; seg++) {
          const p = seg === 0 ? targets[i] : `${targets[i]}.${seg}`;
          writeFileSync(p, '');
          truncateSync(p, RELSEG_SIZE * BLCKSZ);
          chownPostgres(p);
        }
        const p = `${targets[i]}.${k.firstBlock / RELSEG_SIZE}`;
        copyFileSync(filePath(k), p);
        chownPostgres(p);
      }
      chownPostgres(targets[i]);
    });
    c.start();
    try {
      checkServer(served);
    } finally {
      // Leave the database as it was, for the pg_checksums copy.
      c.sql(served.map((_, i) => `drop table tgt_${i};`).join('\n') + '\ncheckpoint;');
    }
  });

  function checkServer(served: Case[]): void {
    let errors = 0;
    let warnings = 0;
    served.forEach((k, i) => {
      const f = ours.get(k.name)!;
      const verdicts: ServerVerdict[] = serverVerdicts(
        c,
        `tgt_${i}`,
        'main',
        [...Array(f.blocks).keys()].map((b) => k.firstBlock + b),
      );
      for (const v of verdicts) {
        const o = f.pages[v.block - k.firstBlock];
        const where = `${k.name} block ${v.block}: server ${JSON.stringify(v)}, pgpage ${JSON.stringify(o)}`;
        expect(v.ok, where).toBe(!isProblem(o.status));
        if (!v.ok) {
          errors++;
          expect(v.error, where).toMatch(new RegExp(`^invalid page in block ${v.block} of relation `));
        }
        if (o.status === 'mismatch') {
          warnings++;
          expect(v.warning, where).toEqual({ calculated: o.computed, expected: o.stored });
        } else {
          expect(v.warning, where).toBeUndefined();
        }
      }
    });
    // Every kind of problem reached the server.
    expect(errors).toBeGreaterThanOrEqual(served.reduce((s, k) => s + [...k.intended.values()].filter(isProblem).length, 0));
    expect(warnings).toBeGreaterThan(0);
  }

  test.skipIf(NO_PG_CHECKSUMS)('(c) pg_checksums --check on a stopped copy: the same failure lines and exit status', () => {
    const dbOid = c.sql('select oid from pg_database where datname = current_database();').trim();
    const inTs = c.sql(`select pg_relation_filepath('in_ts');`).trim();
    c.stop();
    const copyRoot = pgTempDir('pgdiff-corrupt-copy-');
    const data = join(copyRoot, 'data');
    try {
      execFileSync('cp', ['-a', c.dataDir, data]);
      const dbDir = join(data, 'base', dbOid);
      // Every case that is a whole-pages relation file goes in under a fresh relfilenode;
      // pg_checksums aborts on a partial block, so the truncated file is checked alone.
      const placed = new Map<string, string>();
      let node = 900000;
      for (const k of cases) {
        if (k.trailing) continue;
        const name = k.fileName.replace(/^\d+/, String(node++));
        const p = join(dbDir, name);
        copyFileSync(filePath(k), p);
        chownPostgres(p);
        placed.set(k.name, p);
      }
      // Damage in a shared catalog's directory and in a tablespace (through the copy's
      // pg_tblspc link) is reported under those paths.
      const elsewhere = [join(data, 'global', '900100'), join(dirname(join(data, inTs)), '900101')];
      for (const p of elsewhere) {
        copyFileSync(filePath(cases.find((x) => x.name === 'data_bit')!), p);
        chownPostgres(p);
      }

      const theirs = pgChecksums(data);
      const human = pgpage(['verify', data]);
      const json = verifyJson([data], []);
      expect(theirs.status, theirs.stderr).toBe(1);
      expect(human.status, human.stderr).toBe(1);
      expect(json.status).toBe(1);

      const ourLines = failureLines(human.stdout + '\n' + human.stderr);
      expect(theirs.failures.length).toBeGreaterThan(0);
      // pg_checksums walks directories in readdir order; line by line once both are sorted.
      expect([...ourLines].sort()).toEqual([...theirs.failures].sort());
      for (const p of elsewhere)
        expect(
          theirs.failures.filter((l) => l.includes(`"${p}"`)),
          p,
        ).toHaveLength(1);
      // Within a file, both go block by block.
      const byFile = (lines: string[]) => lines.map((l) => /file "([^"]*)"/.exec(l)![1]);
      for (const file of new Set(byFile(theirs.failures))) {
        expect(ourLines.filter((l) => l.includes(`"${file}"`))).toEqual(theirs.failures.filter((l) => l.includes(`"${file}"`)));
      }
      // The lines are the mismatches of our JSON, nothing else.
      const mism = json.doc.files.flatMap((f) => f.pages.filter((p) => p.status === 'mismatch').map((p) => ({ f, p })));
      expect(ourLines.length).toBe(mism.length);
      expect(json.doc.summary.mismatch).toBe(theirs.badChecksums);
      expect(json.doc.summary.files).toBe(theirs.filesScanned);
      expect(json.doc.summary.blocks).toBe(theirs.blocksScanned);
      expect(parseScanSummary(human.stdout)).toEqual({ files: theirs.filesScanned, blocks: theirs.blocksScanned, bad: theirs.badChecksums });

      // What pg_checksums cannot see: pages its PageIsNew shortcut skips, and sane-looking
      // checksums over insane headers. The server rejects both, and so do we.
      for (const name of ['upper_zeroed', 'torn_new_page', 'lower_above_upper', 'bad_flags', 'special_unaligned', 'zero_page']) {
        const p = placed.get(name)!;
        expect(
          theirs.failures.filter((l) => l.includes(`"${p}"`)),
          name,
        ).toEqual([]);
        const f = json.doc.files.find((x) => x.path === p);
        expect(f, `${name} in our JSON as ${p}`).toBeDefined();
        const want = [...cases.find((x) => x.name === name)!.intended].filter(([, s]) => isProblem(s));
        expect(
          f!.pages.map((x) => [x.block, x.status]),
          name,
        ).toEqual(want);
      }
      expect(json.doc.summary.new_not_zero).toBe(2);
      expect(json.doc.summary.bad_header).toBe(3);

      // Truncated files: pg_checksums stops at the partial block; we count its bytes.
      let truncNode = 899990;
      for (const k of cases.filter((x) => x.trailing)) {
        const node = String(truncNode++);
        const p = join(dbDir, node);
        copyFileSync(filePath(k), p);
        chownPostgres(p);
        const t = pgChecksums(data, ['-f', node]);
        expect(t.status, k.name).toBe(1);
        const m = /could not read block (\d+) in file "([^"]*)": read (\d+) of 8192/.exec(t.stderr);
        expect(m, t.stderr).not.toBeNull();
        const tj = verifyJson([p], []);
        expect(tj.status, k.name).toBe(1);
        expect(tj.doc.files[0].blocks, k.name).toBe(Number(m![1]));
        expect(tj.doc.files[0].trailing_bytes, k.name).toBe(Number(m![3]));
        expect(m![2]).toBe(p);
        // The same block and bytes from us, in the server's words (md.c), after the pages
        // pg_checksums never reaches.
        const th = pgpage(['verify', p]);
        expect(th.status, k.name).toBe(1);
        expect(th.stderr, k.name).toContain(`could not read block ${m![1]} in file "${p}": read only ${m![3]} of 8192 bytes`);
      }
    } finally {
      execFileSync('rm', ['-rf', copyRoot]);
      c.start();
    }
  });
});
