// The wasm WalScanner (crates/pgpage-wasm/src/wal.rs) against the CLI (`pgpage fpi --json
// --out DIR`, held against pg_waldump and pg_walinspect in crates/pgpage-cli/tests/fpi.rs) on
// the same WAL: a PostgreSQL 15 server's, with images in pglz, lz4 and zstd. The scanner is fed
// each segment in 1 MB chunks, as the browser reads a File, and restores pages from the bytes
// it names, read again from the segment files.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from '../pg/cluster';

type Wasm = typeof import('../../web/pkg/pgpage_wasm.js');
const CLI = join(__dirname, '../../crates/target/release/pgpage');

async function load(dir: string): Promise<Wasm> {
  const mod: Wasm = await import(`../../web/${dir}/pgpage_wasm.js`);
  mod.initSync({ module: readFileSync(join(__dirname, `../../web/${dir}/pgpage_wasm_bg.wasm`)) });
  return mod;
}

interface CliImage {
  lsn: string;
  file: string;
  [key: string]: unknown;
}

describe('WalScanner against pgpage fpi on PostgreSQL 15 WAL', () => {
  let c: Cluster;
  let out: string;
  let cli: { images: CliImage[]; problems: unknown[] };
  let wal: string;
  let relfilenode: number;
  let blocks: { relfilenode: number; records_after: { lsn: string; effect: string; [key: string]: unknown }[]; [key: string]: unknown }[];
  beforeAll(() => {
    c = Cluster.create('pgpage-wal', 15);
    c.sql(`alter system set wal_keep_size = '1GB'; select pg_reload_conf();`);
    c.sql(`create table t (id int primary key, v text);
      insert into t select g, md5(g::text) from generate_series(1, 5000) g;`);
    for (const m of ['pglz', 'lz4', 'zstd', 'off']) {
      c.sql(`set wal_compression = ${m}; checkpoint; update t set v = v || 'x' where id % 5 = 0;`);
    }
    c.sql('select pg_switch_wal();');
    relfilenode = Number(c.sql("select pg_relation_filenode('t');").trim());
    c.stop();
    wal = join(c.dataDir, 'pg_wal');
    out = mkdtempSync(join(tmpdir(), 'pgpage-wal-'));
    const r = spawnSync(CLI, ['fpi', '--json', '--out', join(out, 'pages'), wal], { encoding: 'utf8', maxBuffer: 1 << 28 });
    expect(r.status, r.stderr).toBe(0);
    cli = JSON.parse(r.stdout);
    // Block 1's history in every relation, as `fpi --block` tells it.
    const h = spawnSync(CLI, ['fpi', '--json', '--block', '1', wal], { encoding: 'utf8', maxBuffer: 1 << 28 });
    expect(h.status, h.stderr).toBe(0);
    blocks = JSON.parse(h.stdout).blocks;
  }, 180_000);
  afterAll(() => {
    c?.destroy();
    if (out) rmSync(out, { recursive: true, force: true });
  });

  for (const build of ['pkg', 'pkg-scalar']) {
    it(`lists the same images and restores the same pages (${build})`, async () => {
      const w = await load(build);
      const names = readdirSync(wal).filter((n) => /^[0-9A-F]{24}$/.test(n));
      const order = Array.from(w.wal_segment_plan(names), (i) => names[i]);
      const files = order.map((n) => readFileSync(join(wal, n)));
      const scanner = new w.WalScanner('', 8192);
      scanner.watch(new Uint32Array([relfilenode, 0, 1]));
      files.forEach((bytes, i) => {
        scanner.begin_segment(order[i]);
        for (let at = 0; at < bytes.length; at += 1 << 20) scanner.feed(bytes.subarray(at, at + (1 << 20)));
        scanner.end_segment();
      });
      scanner.finish();
      const images = JSON.parse(scanner.images_json()) as Record<string, unknown>[];
      expect(images).toEqual(cli.images.map(({ file: _f, ...rest }) => rest));
      expect(new Set(images.map((i) => i.compression))).toEqual(new Set(['pglz', 'lz4', 'zstd', 'none']));
      expect(JSON.parse(scanner.problems_json()).map((p: { code: string }) => p.code)).toEqual((cli.problems as { code: string }[]).map((p) => p.code));
      // Every page, from the pieces the scanner names, read again from the segment files.
      for (let i = 0; i < images.length; i++) {
        const p = scanner.image_pieces(i);
        const parts: Uint8Array[] = [];
        for (let k = 0; k < p.length; k += 3) parts.push(files[p[k]].subarray(p[k + 1], p[k + 1] + p[k + 2]));
        const stored = new Uint8Array(parts.reduce((n, a) => n + a.length, 0));
        parts.reduce((at, a) => (stored.set(a, at), at + a.length), 0);
        const page = scanner.restore(i, stored);
        const expected = readFileSync(join(out, 'pages', cli.images[i].file));
        expect(Buffer.from(page).equals(expected), `image ${i} at ${cli.images[i].lsn}`).toBe(true);
      }
      // The watched block's newest image and the records after it, as the CLI's history says.
      const watched = JSON.parse(scanner.blocks_json()) as {
        image: number | null;
        image_record: { lsn: string } | null;
        records_after: { lsn: string; rmgr: string; record_type: string; image: boolean; will_init: boolean; effect: string }[];
        restoring: string | null;
        [key: string]: unknown;
      }[];
      const expected = blocks.filter((b) => b.relfilenode === relfilenode);
      expect(expected).toHaveLength(1);
      // Both say what each record did to the rows (the CLI by its code, the browser in the
      // core's words for it) and what restoring the image loses, in the same words.
      const effects = new Map(expected.flatMap((b) => b.records_after.map((r) => [r.lsn, r.effect])));
      const words = JSON.parse(w.row_effect_words()) as Record<string, string>;
      for (const r of watched.flatMap((b) => b.records_after)) {
        expect(r.effect, `record at ${r.lsn}`).toBe(words[effects.get(r.lsn)!]);
      }
      expect(
        watched.map((b) => ({
          tablespace_oid: b.tablespace_oid,
          database_oid: b.database_oid,
          relfilenode: b.relfilenode,
          fork: b.fork,
          block: b.block,
          newest_image_lsn: b.image_record?.lsn ?? null,
          records_after: b.records_after.map(({ lsn, rmgr, record_type, image, will_init }) => ({ lsn, rmgr, record_type, image, will_init })),
          restoring: b.restoring,
        })),
      ).toEqual(expected.map((b) => ({ ...b, records_after: b.records_after.map(({ effect: _, ...r }) => r) })));
      // Its image index names that image.
      expect(images[watched[0].image!].lsn).toBe(watched[0].image_record!.lsn);
      // The --out files' names read back as pg_waldump wrote them.
      for (const img of cli.images.slice(0, 50)) {
        const n = JSON.parse(w.wal_fullpage_name(img.file)!);
        expect(n).toEqual({
          timeline: img.timeline,
          lsn: img.lsn,
          tablespace_oid: img.tablespace_oid,
          database_oid: img.database_oid,
          relfilenode: img.relfilenode,
          fork: img.fork,
          block: img.block,
        });
      }
      expect(w.wal_fullpage_name('000000010000000000000001')).toBeUndefined();
      const summary = JSON.parse(scanner.summary_json());
      expect(summary.version).toBe(15);
      scanner.free();
    }, 120_000);
  }
});
