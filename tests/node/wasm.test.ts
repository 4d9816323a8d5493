// The wasm bindings under Node, both builds (simd128 and scalar), against the independent
// checksum oracle and, on a real cluster, against pageinspect's page_checksum().
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, rawPage } from '../pg/cluster';
import { concat, damagedFile, heapPage, oracleStatus, pgChecksumPage, rng, seal } from '../oracle/pgchecksum';

type Wasm = typeof import('../../web/pkg/pgpage_wasm.js');
const STATUS = ['ok', 'mismatch', 'zero', 'new_not_zero', 'bad_header'];

/** Each loaded module's memory, for the bindings that take their input in place. */
const memories = new Map<Wasm, WebAssembly.Memory>();

async function load(dir: string): Promise<Wasm> {
  const mod: Wasm = await import(`../../web/${dir}/pgpage_wasm.js`);
  memories.set(mod, mod.initSync({ module: readFileSync(join(__dirname, `../../web/${dir}/pgpage_wasm_bg.wasm`)) }).memory);
  return mod;
}

function verifyAll(w: Wasm, bytes: Uint8Array, firstAbs: number, bs: number) {
  const r = w.verify(bytes, firstAbs, bs, false);
  const out = Array.from(r.status, (s, i) => ({
    block: i,
    status: STATUS[s],
    stored: r.stored[i],
    computed: STATUS[s] === 'zero' || STATUS[s] === 'new_not_zero' ? null : r.computed[i],
    fold: r.fold[i],
  }));
  r.free();
  return out;
}

/** The relation-wide number of block 0 of segment `segno`, as the core's file scan places it. */
function firstBlock(w: Wasm, bytes: Uint8Array, segno: number, bs: number): number {
  const scan = new w.FileScanJs(bytes.subarray(0, w.detect_head_bytes()), bytes.length, segno, bs, 'little', true);
  const first = scan.first_absolute_block;
  scan.free();
  return first;
}

for (const build of ['pkg', 'pkg-scalar']) {
  describe(`wasm bindings (${build})`, () => {
    let w: Wasm;
    beforeAll(async () => {
      w = await load(build);
    });

    it('agrees with the oracle on every damage kind, block sizes and segments', () => {
      for (const bs of [1024, 8192, 32768]) {
        for (const segment of [0, 2]) {
          const f = damagedFile(9, segment, bs, bs + segment);
          const first = firstBlock(w, f.bytes, segment, bs);
          expect(first).toBe(segment * ((1 << 30) / bs));
          const got = verifyAll(w, f.bytes, first, bs).map(({ fold: _f, ...rest }) => rest);
          expect(got).toEqual(f.expected);
          expect(new Set(got.map((g) => g.status))).toEqual(new Set(STATUS));
        }
      }
    });

    it("FileScanJs: chunks written into its input, as the verify worker does, get the oracle's verdicts", () => {
      for (const bs of [1024, 8192]) {
        const f = damagedFile(9, 2, bs, bs + 2);
        const scan = new w.FileScanJs(f.bytes.subarray(0, w.detect_head_bytes()), f.bytes.length, 2, bs, 'little', true);
        expect(scan.first_absolute_block).toBe(2 * ((1 << 30) / bs));
        // One input for every chunk: 4 pages reserved once and reused, the last chunk shorter.
        const input = scan.reserve_input(4 * bs);
        const codes: number[] = [];
        for (let off = 0; off < f.bytes.length; off += 4 * bs) {
          const chunk = f.bytes.subarray(off, Math.min(f.bytes.length, off + 4 * bs));
          expect(scan.reserve_input(chunk.length)).toBe(input);
          new Uint8Array(memories.get(w)!.buffer).set(chunk, input);
          codes.push(...scan.chunk_input(chunk.length, off / bs));
        }
        expect(() => scan.chunk_input(4 * bs + 1, 0)).toThrow(/do not fit the scan's/);
        // Checksums on, as the oracle judges: the verdict lists the problem pages with their
        // checksums; a page it leaves out is fine, so its checksum is the one it stores.
        const v = scan.finish(1, 'base/5/16385.2');
        const listed = new Map(Array.from(v.block, (b, i) => [b, i]));
        const got = codes.map((code, b) => {
          const status = STATUS[code];
          const at = listed.get(b);
          if (at === undefined) {
            expect(['ok', 'zero'], `block ${b}`).toContain(status);
            const stored = new DataView(f.bytes.buffer, f.bytes.byteOffset + b * bs).getUint16(8, true);
            return { block: b, status, stored, computed: status === 'zero' ? null : stored };
          }
          expect(STATUS[v.status[at]], `block ${b}`).toBe(status);
          return { block: b, status, stored: v.stored[at], computed: status === 'zero' || status === 'new_not_zero' ? null : v.computed[at] };
        });
        v.free();
        scan.free();
        expect(got).toEqual(f.expected);
      }
    });

    it('names the block a swapped page belongs to: a candidate, as nothing but its checksum says so', () => {
      const f = damagedFile(9, 2);
      const scan = new w.FileScanJs(f.bytes.subarray(0, w.detect_head_bytes()), f.bytes.length, 2, 0, '', true);
      const first = scan.first_absolute_block;
      expect(first).toBe(2 * 131072);
      const got = verifyAll(w, f.bytes, first, 8192);
      expect(got[5].status).toBe('mismatch');
      scan.chunk(f.bytes, 0);
      const v = scan.finish(1, 'base/5/16385.2');
      const page = (b: number) => {
        const at = Array.from(v.block).indexOf(b);
        expect(at, `block ${b} is listed`).toBeGreaterThanOrEqual(0);
        return { kind: v.misplaced_kind[at], block: v.misplaced_block[at], matches: v.misplaced_matches[at] };
      };
      // The oracle's pages carry random tuples (no t_ctid of their own) and no btree links, so
      // the evidence rule allows no claim: each is a candidate naming the nearest valid block.
      expect(page(5)).toMatchObject({ kind: 2, block: first + 6 });
      expect(page(6)).toMatchObject({ kind: 2, block: first + 5 });
      expect(page(5).matches).toBeGreaterThanOrEqual(1);
      // A bit flip makes a checksum that belongs nowhere in a short file (as a rule); if it
      // does, it is only a candidate, and the page's checksum is valid there.
      const one = page(1);
      expect(one.kind).not.toBe(1);
      if (one.kind === 2) expect(pgChecksumPage(f.bytes.subarray(8192, 16384), one.block)).toBe(got[1].stored);
      v.free();
      scan.free();
    });

    it('matches the oracle on random pages and random block numbers', () => {
      const rand = rng(7);
      for (let i = 0; i < 300; i++) {
        const page = heapPage(8192, 1 + (i % 40), rand);
        for (let k = 0; k < 50; k++) page[Math.floor(rand() * 8192)] = Math.floor(rand() * 256);
        new DataView(page.buffer).setUint16(14, 1000 + (i % 7000), true); // not new
        const blkno = Math.floor(rand() * 0xffffffff);
        expect(verifyAll(w, page, blkno, 8192)[0].computed).toBe(pgChecksumPage(page, blkno));
        seal(page, blkno);
        const [v] = verifyAll(w, page, blkno, 8192);
        expect(v.status).toBe(oracleStatus(page, blkno).status);
      }
    });

    it('ignores a partial trailing page and detects the block size', () => {
      const f = damagedFile(3, 0, 4096);
      const torn = new Uint8Array(f.bytes.length + 100);
      torn.set(f.bytes);
      expect(verifyAll(w, torn, 0, 4096)).toHaveLength(3);
      // One page claims its size; 10 bytes claim none: 8 kB assumed, as pg_checksums reads a
      // relation file, or not a relation file when not named like one. Zeros are new pages.
      expect(w.file_geometry(f.bytes.subarray(0, 4096), undefined, false, true)).toMatchObject({ block_size: 4096, block_size_assumed: false });
      expect(w.file_geometry(new Uint8Array(10).fill(0x55), undefined, false, true)).toMatchObject({ block_size: 8192, block_size_assumed: true });
      expect(() => w.file_geometry(new Uint8Array(10).fill(0x55), undefined, false, false)).toThrow(/not a relation file/);
      expect(w.file_geometry(new Uint8Array(10), undefined, false, false)).toMatchObject({ block_size: 8192, block_size_assumed: false });
    });

    it("names a btree's columns as the cluster's pageinspect does: 13's btpo and oldest_xact", () => {
      // public/samples/16437: a btree PostgreSQL 15 wrote (block 0 the metapage, 1 a leaf).
      const file = readFileSync(join(__dirname, '../../public/samples/16437'));
      const special = (b: number, v?: number) => {
        const d = w.decode(file.subarray(b * 8192, (b + 1) * 8192), b, false, 'main', '', undefined, v);
        const j = JSON.parse(d.json) as { special: Record<string, unknown> & { meta?: Record<string, unknown> } };
        d.free();
        return j.special;
      };
      const [meta, meta13] = [special(0).meta!, special(0, 13).meta!];
      expect(meta13.oldest_xact).toBe(String(meta.last_cleanup_num_delpages));
      expect('last_cleanup_num_delpages' in meta13).toBe(false);
      const [leaf, leaf13, leaf14] = [special(1), special(1, 13), special(1, 14)];
      expect(leaf13.btpo).toBe(leaf.btpo_level);
      expect('btpo_level' in leaf13).toBe(false);
      expect(leaf14).toEqual(leaf);
    });

    it('decodes a page into spans that cover it, with the checksum bytes named', () => {
      const f = damagedFile(2, 0);
      const page = f.bytes.subarray(0, 8192);
      const d = w.decode(page, 0, false, 'main', '');
      const [start, end, field, item] = [d.start, d.end, d.field, d.item];
      const names = d.field_names;
      const docs = d.field_docs;
      const cols = JSON.parse(d.json);
      d.free();
      let at = 0;
      for (let i = 0; i < start.length; i++) {
        expect(start[i]).toBe(at);
        at = end[i];
      }
      expect(at).toBe(8192);
      const byName = (off: number) => names[field[Array.from(start).findLastIndex((s) => s <= off)]];
      expect([byName(8), byName(9), byName(10)]).toEqual(['pd_checksum', 'pd_checksum', 'pd_flags']);
      expect(docs[names.indexOf('pd_checksum')]).toMatch(/bufpage\.h/);
      expect(cols.kind).toBe('heap');
      expect(cols.header.checksum).toBe(f.expected[0].stored);
      expect(cols.items).toHaveLength(3);
      expect(Array.from(item).some((x) => x === 3)).toBe(true);
      expect(() => w.decode(page, 0, false, 'nonsense', '')).toThrow(/unknown fork/);
      const rand = rng(5);
      for (const n of [0, 5, 24, 100, 8192]) {
        const junk = Uint8Array.from({ length: n }, () => Math.floor(rand() * 256));
        w.decode(junk, 1, n % 2 === 0, 'main', '').free();
      }
    });

    it("detects a file's block size as the CLI does, even when page 0 is damaged, and its byte order", async () => {
      const { DETECT, fileGeometry } = await import('../../web/src/lib/geometry');
      const head = w.detect_head_bytes();
      const little = { blockSize: null, byteOrder: 'little' } as const;
      const big = { blockSize: null, byteOrder: 'big' } as const;
      for (const bs of [1024, 4096, 8192, 16384, 32768]) {
        const f = damagedFile(8, 0, bs);
        expect(fileGeometry(w, f.bytes.subarray(0, head), DETECT, true)).toEqual({
          blockSize: bs,
          bigEndian: false,
          blockSizeAssumed: false,
          byteOrderDetected: false,
        });
        const broken = f.bytes.slice(0, head);
        broken.fill(0xee, 0, 24);
        expect(fileGeometry(w, broken, little, false)).toMatchObject({ blockSize: bs, bigEndian: false });
        // The same pages with every header word swapped, as a big-endian server writes them.
        const swapped = swapHeaders(f.bytes.slice(0, head), bs);
        expect(fileGeometry(w, swapped, DETECT, true)).toEqual({ blockSize: bs, bigEndian: true, blockSizeAssumed: false, byteOrderDetected: true });
        expect(fileGeometry(w, swapped, big, true)).toEqual({ blockSize: bs, bigEndian: true, blockSizeAssumed: false, byteOrderDetected: false });
        // Told little-endian, the swapped head has no sane header: 8 kB pages as pg_checksums reads.
        expect(fileGeometry(w, swapped, little, true)).toEqual({ blockSize: 8192, bigEndian: false, blockSizeAssumed: true, byteOrderDetected: false });
        expect(fileGeometry(w, swapped, { blockSize: 4096, byteOrder: 'detect' }, true)).toMatchObject({ blockSize: 4096, bigEndian: true });
      }
      expect(fileGeometry(w, new Uint8Array(100), DETECT, false)).toEqual({
        blockSize: 8192,
        bigEndian: false,
        blockSizeAssumed: false,
        byteOrderDetected: false,
      });
      const text = new TextEncoder().encode('hello, this is not a relation file');
      expect(fileGeometry(w, text, DETECT, false)).toEqual({ error: expect.stringMatching(/not a relation file.*either byte order/) });
      expect(fileGeometry(w, text, DETECT, true)).toMatchObject({ blockSize: 8192, blockSizeAssumed: true });
    });

    it('throws a JS error with a message on a bad block size, and never traps on garbage', () => {
      expect(() => w.verify(new Uint8Array(8192), 0, 3000, false)).toThrow(/unsupported block size 3000/);
      expect(() => new w.FileScanJs(new Uint8Array(8192), 8192, 0, 3000, '', true)).toThrow(/unsupported block size 3000/);
      expect(() => w.file_geometry(new Uint8Array(8192), 3000, false, true)).toThrow(/unsupported block size 3000/);
      expect(() => w.checksum_rounds(new Uint8Array(8192), 3000, false, 1)).toThrow(/unsupported block size 3000/);
      const rand = rng(99);
      for (const n of [0, 1, 23, 24, 8191, 8193, 3 * 8192 + 5]) {
        const junk = Uint8Array.from({ length: n }, () => Math.floor(rand() * 256));
        expect(verifyAll(w, junk, 0xfffffff0, 8192)).toHaveLength(Math.floor(n / 8192));
        w.file_geometry(junk, undefined, true, true).free();
      }
    });

    // Issue 5: arbitrary bytes of every length, through every binding, never trap. A trap
    // (WebAssembly.RuntimeError) would also poison the instance, so the instance must still
    // agree with the oracle afterwards.
    it('arbitrary bytes of every length never trap, through every binding', () => {
      const rand = rng(2024);
      const bytes = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(rand() * 256));
      const kinds = ['', 'heap', 'sequence', 'btree', 'hash', 'gist', 'gin', 'spgist', 'brin', 'fsm', 'vm', 'unknown'];
      const forks = ['main', 'fsm', 'vm', 'init'];
      const lengths = [...Array.from({ length: 600 }, (_, n) => n)];
      for (const bs of [1024, 2048, 4096, 8192, 16384, 32768]) lengths.push(bs - 1, bs, bs + 1, 2 * bs + 24);
      for (let i = 0; i < 100; i++) lengths.push(Math.floor(rand() * 70_000));
      const inputs: Uint8Array[] = lengths.map(bytes);
      // Mutated real pages: a sealed heap page with random header fields and runs overwritten,
      // which reach far deeper into the decoders than noise does.
      for (let i = 0; i < 300; i++) {
        const p = seal(heapPage(8192, 1 + (i % 40), rand), i);
        for (let k = 0; k < 1 + (i % 12); k++) {
          const at = i % 3 === 0 ? Math.floor(rand() * 24) : Math.floor(rand() * 8192);
          p.set(bytes(Math.min(8192 - at, 1 + Math.floor(rand() * 8))), at);
        }
        inputs.push(p);
      }
      const sizes = [1024, 2048, 4096, 8192, 16384, 32768, 3000];
      const choices = [0, ...sizes];
      // Every FileScanJs call on arbitrary bytes: any geometry choice (some bad), chunks at any
      // block, the input buffer, parts crossing as export() bytes (and as garbage), finish.
      const fileScan = (b: Uint8Array, i: number, blkno: number) => {
        const order = ['', 'little', 'big', 'middle'][i % 4];
        const lengths = [b.length, b.length, b.length * 3 + 1, -1, 2 ** 53 + 2, 0.5];
        const s = new w.FileScanJs(
          b.subarray(0, w.detect_head_bytes()),
          lengths[i % lengths.length],
          blkno >>> 20,
          choices[i % choices.length],
          order,
          i % 3 !== 0,
        );
        const path = String.fromCharCode(...b.subarray(0, 40));
        try {
          JSON.parse(s.geometry());
          // Reading every getter is the check: none may throw on this input.
          // eslint-disable-next-line @typescript-eslint/no-meaningless-void-operator
          void [s.blocks, s.trailing_bytes, s.first_absolute_block];
          // A second worker's part through the input buffer, crossing as export() bytes.
          const part = w.FileScanJs.import(s.export());
          const at = part.reserve_input(b.length);
          new Uint8Array(memories.get(w)!.buffer, at, b.length).set(b);
          part.chunk_input(b.length, i % 3);
          s.merge(part.export());
          part.free();
          for (const step of [() => s.chunk(b, i % 2 === 0 ? 0 : blkno), () => s.merge(b)]) {
            try {
              step();
            } catch (e) {
              expect(e).not.toBeInstanceOf(WebAssembly.RuntimeError);
              expect((e as Error).message).not.toBe('');
            }
          }
          const v = s.finish(i % 4, path);
          JSON.parse(v.json);
          // Reading every getter is the check: none may throw on this input.
          // eslint-disable-next-line @typescript-eslint/no-meaningless-void-operator
          void [
            v.length,
            v.block,
            v.absolute_block,
            v.status,
            v.stored,
            v.computed,
            v.tuple_block,
            v.misplaced_block,
            v.misplaced_kind,
            v.misplaced_matches,
            v.finding_start,
            v.finding_codes,
          ];
          v.free();
        } finally {
          s.free();
        }
      };
      const noTrap = (what: string, f: () => unknown) => {
        try {
          f();
        } catch (e) {
          // A JS error with a message is the promise; a trap is a bug.
          expect(e, what).not.toBeInstanceOf(WebAssembly.RuntimeError);
          expect((e as Error).message, what).not.toBe('');
        }
      };
      inputs.forEach((b, i) => {
        const what = `input ${i} (${b.length} bytes)`;
        const blkno = Math.floor(rand() * 2 ** 32) >>> 0;
        const be = i % 2 === 1;
        noTrap(`${what} verify`, () => w.verify(b, blkno, 8192, be).free());
        noTrap(`${what} verify 1k`, () => w.verify(b, blkno, 1024, be).free());
        noTrap(`${what} checksum_rounds`, () => w.checksum_rounds(b, sizes[i % sizes.length], be, 1));
        noTrap(`${what} checksums_at`, () => {
          const v = w.verify(b, blkno, 1024, be);
          w.checksums_at(v.fold, blkno);
          v.free();
        });
        noTrap(`${what} file_geometry`, () => w.file_geometry(b, choices[i % choices.length] || undefined, i % 3 === 2 ? undefined : be, i % 4 < 2).free());
        noTrap(`${what} file_kind`, () => w.file_kind(b, sizes[i % sizes.length], be, forks[i % forks.length]));
        noTrap(`${what} pg_version`, () => w.pg_version(b));
        noTrap(`${what} decode_control`, () => w.decode_control(b));
        const name = String.fromCharCode(...b.subarray(0, 300));
        noTrap(`${what} names`, () => [w.relation_file_name(name), w.relation_directory(name), w.folder_filter([name, `base/1/${name}`])]);
        noTrap(`${what} FileScanJs`, () => fileScan(b, i, blkno));
        noTrap(`${what} FileScanJs.import`, () => w.FileScanJs.import(b).free());
        const fileKind = i % 5 === 0 ? undefined : kinds[(i * 7) % kinds.length];
        const pgVersion = [undefined, 0, 12, 13, 14, 15, 18, 99, 0xffffffff][i % 9];
        const d = w.decode(b, blkno, be, forks[i % forks.length], kinds[i % kinds.length], fileKind, pgVersion);
        expect(() => JSON.parse(d.json), what).not.toThrow();
        // Reading every getter is the check: none may throw on this input.
        // eslint-disable-next-line @typescript-eslint/no-meaningless-void-operator
        void [
          d.role,
          d.field,
          d.problem,
          d.page_problems,
          d.value,
          d.field_names,
          d.field_qualified,
          d.field_columns,
          d.field_docs,
          d.field_kinds,
          d.problems,
          d.problem_rules,
        ];
        expect(d.start.length, what).toBe(d.end.length);
        for (let k = 0; k < d.start.length; k++) expect(d.end[k], what).toBeLessThanOrEqual(Math.max(b.length, d.start[k]));
        d.free();
      });
      // Still a working instance.
      const page = seal(heapPage(8192, 7, rand), 3);
      expect(verifyAll(w, page, 3, 8192)[0]).toMatchObject({ status: 'ok', computed: pgChecksumPage(page, 3) });
      expect(
        [w.role_names().length, w.status_names().length, w.problem_statuses().length, w.block_sizes().length, w.detect_head_bytes()].every((n) => n > 0),
      ).toBe(true);
      expect(JSON.parse(w.findings_table()).length).toBeGreaterThan(0);
    });
  });
}

describe('wasm bindings against a real PostgreSQL 15', () => {
  let c: Cluster;
  beforeAll(() => {
    c = Cluster.create('pgpage-wasm');
    c.sql(`create extension pageinspect;
      create table t (id int primary key, v text);
      insert into t select g, repeat(md5(g::text), 1 + g % 7) from generate_series(1, 6000) g;
      update t set v = 'x' where id % 10 = 0;
      delete from t where id % 13 = 0;
      vacuum t;
      create index t_v on t using hash (v);
      checkpoint;`);
  }, 120_000);
  afterAll(() => c?.destroy());

  it('every page of heap, btree, hash, fsm and vm files checks as page_checksum() says', async () => {
    const w = await load('pkg');
    let pages = 0;
    for (const rel of ['t', 't_pkey', 't_v']) {
      for (const fork of ['', '_fsm', '_vm']) {
        const path = c.relationPath(rel) + fork;
        let bytes: Uint8Array;
        try {
          bytes = new Uint8Array(readFileSync(path));
        } catch {
          continue; // indexes have no vm fork
        }
        const blocks = bytes.length / 8192;
        const got = verifyAll(w, bytes, 0, 8192);
        const want = c.rows<{ b: number; c: number; s: number }>(
          `select b, page_checksum(${rawPage(path, 0).replace('0::bigint', 'b::bigint')}, b) as c,
                  (page_header(${rawPage(path, 0).replace('0::bigint', 'b::bigint')})).checksum as s
             from generate_series(0, ${blocks - 1}) b`,
        );
        for (const r of want) {
          expect(got[r.b].stored, `${rel}${fork} block ${r.b}`).toBe(r.s & 0xffff);
          if (got[r.b].status !== 'zero') expect(got[r.b].computed, `${rel}${fork} block ${r.b}`).toBe(r.c & 0xffff);
          expect(got[r.b].status).toBe('ok');
        }
        pages += blocks;
      }
    }
    expect(pages).toBeGreaterThan(100);
  });

  it('decoded headers and item counts equal page_header() and heap_page_items()', async () => {
    const w = await load('pkg');
    const path = c.relationPath('t');
    const bytes = new Uint8Array(readFileSync(path));
    const blocks = bytes.length / 8192;
    const page = (b: number) => rawPage(path, 0).replace('0::bigint', `${b}::bigint`);
    const want = c.rows<{ b: number; h: Record<string, unknown>; n: number }>(
      `select b, row_to_json(page_header(${page(0).replace('0::bigint', 'b::bigint')})) as h,
              (select count(*) from heap_page_items(${page(0).replace('0::bigint', 'b::bigint')})) as n
         from generate_series(0, ${blocks - 1}) b`,
    );
    for (const r of want) {
      const d = w.decode(bytes.subarray(r.b * 8192, (r.b + 1) * 8192), r.b, false, 'main', '');
      const cols = JSON.parse(d.json);
      d.free();
      expect(cols.header.lower, `block ${r.b}`).toBe(r.h.lower);
      expect(cols.header.upper).toBe(r.h.upper);
      expect(cols.header.lsn).toBe(r.h.lsn);
      expect(cols.header.checksum).toBe((r.h.checksum as number) & 0xffff);
      expect(cols.items).toHaveLength(r.n);
    }
  });
});

/** Each page's 24-byte header as a big-endian server lays it out: every field byte-swapped. */
function swapHeaders(bytes: Uint8Array, bs: number): Uint8Array {
  // PageHeaderData (bufpage.h): pd_lsn as two u32, pd_checksum, pd_flags, pd_lower, pd_upper,
  // pd_special, pd_pagesize_version (u16 each), pd_prune_xid (u32).
  const widths = [4, 4, 2, 2, 2, 2, 2, 2, 4];
  for (let p = 0; p + 24 <= bytes.length; p += bs) {
    let at = p;
    for (const n of widths) {
      bytes.subarray(at, at + n).reverse();
      at += n;
    }
  }
  return bytes;
}

for (const build of ['pkg', 'pkg-scalar']) {
  describe(`damage bindings (${build})`, () => {
    let w: Wasm;
    beforeAll(async () => {
      w = await load(build);
    });

    it('bit_flips: the flipped bit is among the candidates, and every candidate passes the independent checksum', () => {
      const rand = rng(7);
      for (let trial = 0; trial < 6; trial++) {
        const blkno = 3 + trial;
        const good = seal(heapPage(8192, 20, rand), blkno);
        const bad = good.slice();
        const offset = 24 + Math.floor(rand() * (8192 - 24));
        const bit = Math.floor(rand() * 8);
        bad[offset] ^= 1 << bit;
        const r = JSON.parse(w.bit_flips(bad, blkno, false, 'main', undefined));
        expect(r.searched).toBe(8192 * 8);
        expect(r.candidates.some((c: { offset: number; bit: number }) => c.offset === offset && c.bit === bit)).toBe(true);
        for (const c of r.candidates) {
          const fixed = bad.slice();
          fixed[c.offset] ^= 1 << c.bit;
          expect(fixed[c.offset]).toBe(c.flipped);
          const stored = fixed[8] | (fixed[9] << 8);
          expect(pgChecksumPage(fixed, blkno)).toBe(stored);
        }
        expect(r.odds).toMatch(/chance/);
      }
      // A page whose checksum holds has nothing to localise.
      expect(JSON.parse(w.bit_flips(seal(heapPage(8192, 5, rand), 1), 1, false, 'main', undefined)).candidates).toEqual([]);
    });

    it('diff_page: changed bytes, bits, sectors and ranges as counted here', () => {
      const rand = rng(11);
      const a = seal(heapPage(8192, 30, rand), 0);
      const b = a.slice();
      for (const off of [600, 601, 4100, 8000]) b[off] ^= 0x5a;
      const r = JSON.parse(w.diff_page(0, a, b, false));
      let set = 0;
      let cleared = 0;
      for (let i = 0; i < a.length; i++) {
        for (let k = 0; k < 8; k++) {
          const x = (a[i] >> k) & 1;
          const y = (b[i] >> k) & 1;
          if (!x && y) set++;
          if (x && !y) cleared++;
        }
      }
      expect(r.page).toMatchObject({ block: 0, state: 'different', newer: 'same', bytes_changed: 4, bits_set: set, bits_cleared: cleared });
      expect(r.page.sectors).toEqual([1, 8, 15]);
      expect(r.page.ranges).toEqual([
        [600, 2],
        [4100, 1],
        [8000, 1],
      ]);
      expect(JSON.parse(w.diff_page(0, a, a, false))).toEqual({ page: null, fields: [] });
    });

    it('compare_chunk: the differing blocks of two chunks, the rest counted equal', () => {
      const rand = rng(13);
      const pages = Array.from({ length: 6 }, (_, i) => seal(heapPage(8192, 10, rand), 40 + i));
      const a = concat(pages);
      const b = a.slice();
      b[2 * 8192 + 300] ^= 1;
      b[5 * 8192 + 7000] ^= 0x80;
      const r = JSON.parse(w.compare_chunk(40, a, b, 8192, false));
      expect(r.equal).toBe(4);
      expect(r.pages.map((p: { block: number }) => p.block)).toEqual([42, 45]);
      expect(r.pages[1].ranges).toEqual([[7000, 1]]);
      expect(() => w.compare_chunk(0, a, b, 3000, false)).toThrow(/block size/);
    });

    it('repair_page: a good copy or the flip back, its checksum the independent one; a page the server refuses is refused', () => {
      const rand = rng(17);
      const blkno = 131072 + 9;
      const good = seal(heapPage(8192, 25, rand), blkno);
      const bad = good.slice();
      bad[6100] ^= 1 << 3;
      expect(Array.from(w.repair_page(bad, good, 0, 0, blkno, false))).toEqual(Array.from(good));
      const flipped = w.repair_page(bad, undefined, 6100, 3, blkno, false);
      expect(Array.from(flipped)).toEqual(Array.from(good));
      // Any other good copy gets the checksum of this block, computed independently here.
      const older = heapPage(8192, 12, rand);
      const fixed = w.repair_page(bad, older, 0, 0, blkno, false);
      expect(fixed[8] | (fixed[9] << 8)).toBe(pgChecksumPage(fixed, blkno));
      const broken = good.slice();
      broken[12] = 0xff;
      broken[13] = 0x7f; // pd_lower past pd_upper
      expect(() => w.repair_page(bad, broken, 0, 0, blkno, false)).toThrow(/would still refuse/);
      expect(() => w.repair_page(bad, good.subarray(0, 4096), 0, 0, blkno, false)).toThrow(/not one 8192-byte page/);
    });

    it('page_advice: the tuples, the settings in words and the pg_surgery SQL', () => {
      const rand = rng(19);
      const bad = seal(heapPage(8192, 7, rand), 2);
      bad[7000] ^= 1;
      const a = JSON.parse(w.page_advice(bad, 2, false, 'main', undefined, w.quote_table('public', 'Orders'), 16385));
      expect(a.status).toBe('mismatch');
      expect(a.tuples).toHaveLength(7);
      expect(a.tuples[0]).toBe('(2,1)');
      expect(a.zero_damaged_pages).toContain('its 7 tuples are lost');
      expect(a.surgery_sql).toContain(`'public."Orders"'::regclass`);
    });
  });
}
