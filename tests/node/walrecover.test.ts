// The wasm WalScanner's rebuild of chosen blocks (`recover`, crates/pgpage-wasm/src/wal.rs)
// against `pgpage recover --block N --json` (held against the server's own crash recovery in
// crates/pgpage-cli/tests/cli/recover.rs) on a PostgreSQL 16 server's WAL: the same page byte
// for byte, the same start, records and page LSN, and pg_walinspect's count of the records
// after the block's image. The scanner is fed each segment in 1 MB chunks, as the browser reads
// a File. The same WAL cut short and garbled mid-record is read to its valid end by both alike,
// its problem named, never a throw; a pg_control recover cannot use is refused with the CLI's
// words while the scan goes on.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from '../pg/cluster';
import { ensurePgpage } from '../pg/pgpage';

type Wasm = typeof import('../../web/pkg/pgpage_wasm.js');

const BLOCK = 4;
const SEGMENT = 16 << 20;

async function load(dir: string): Promise<Wasm> {
  const mod: Wasm = await import(`../../web/${dir}/pgpage_wasm.js`);
  mod.initSync({ module: readFileSync(join(__dirname, `../../web/${dir}/pgpage_wasm_bg.wasm`)) });
  return mod;
}

const lsnValue = (lsn: string): number => {
  const [hi, lo] = lsn.split('/');
  return parseInt(hi, 16) * 2 ** 32 + parseInt(lo, 16);
};

interface CliBlock {
  block: number;
  start: { source: string; lsn: string } | null;
  applied: { lsn: string; rmgr: string; record: string; desc: string }[];
  lsn: string | null;
  recovered: boolean;
  reason: string | null;
}

interface Recovered extends Omit<CliBlock, 'applied'> {
  tablespace_oid: number;
  database_oid: number;
  relfilenode: number;
  fork: string;
  applied: CliBlock['applied'];
  records_after_start: number;
}

describe('WalScanner.recover against pgpage recover on PostgreSQL 16 WAL', () => {
  let c: Cluster;
  let work: string;
  let heap: string;
  let locator: number[];
  let after: { start_lsn: string; end_lsn: string }[];
  let imageLsn: string;

  beforeAll(() => {
    ensurePgpage();
    c = Cluster.create('pgpage-walrecover-node', 16);
    c.sql(`create extension pg_walinspect;
      create table t (id int primary key, v text) with (fillfactor = 60, autovacuum_enabled = off);
      insert into t select g, md5(g::text) from generate_series(1, 1000) g;
      select count(*) from t;
      checkpoint;`);
    const ids = c.sql(`select id from t where (ctid::text::point)[0] = ${BLOCK} order by id;`).trim().split('\n').map(Number);
    const start = c.sql('select pg_current_wal_insert_lsn();').trim();
    for (let k = 0; k < 6; k++) c.sql(`update t set v = v || '${k}' where id = ${ids[k]};`);
    c.sql(`delete from t where id = ${ids[6]};`);
    const end = c.sql('select pg_current_wal_insert_lsn();').trim();
    const rows = c.rows<{ start_lsn: string; end_lsn: string; fpi: boolean }>(
      `select start_lsn::text, end_lsn::text, block_fpi_length > 0 as fpi from pg_get_wal_block_info('${start}', '${end}', false)
        where relfilenode = pg_relation_filenode('t') and relforknumber = 0 and relblocknumber = ${BLOCK} order by start_lsn`,
    );
    const at = rows.map((r) => r.fpi).lastIndexOf(true);
    expect(at, JSON.stringify(rows)).toBeGreaterThanOrEqual(0);
    imageLsn = rows[at].start_lsn;
    after = rows.slice(at + 1);
    expect(after.length).toBeGreaterThanOrEqual(5);
    const [spc, db, rel] = c
      .sql(
        "select reltablespace, (select oid from pg_database where datname = current_database()), pg_relation_filenode('t') from pg_class where relname = 't';",
      )
      .trim()
      .split('|')
      .map(Number);
    locator = [spc === 0 ? 1663 : spc, db, rel];
    heap = relative(c.dataDir, c.relationPath('t'));
    c.stop();
    work = mkdtempSync(join(tmpdir(), 'pgpage-walrecover-'));
  }, 180_000);
  afterAll(() => {
    c?.destroy();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** `pgpage recover --block BLOCK --json` of the heap file of data directory `dir`. */
  function cli(dir: string, out: string): { status: number | null; block: CliBlock; page: Buffer | null; stderr: string } {
    const r = spawnSync(ensurePgpage(), ['recover', '--json', '--block', String(BLOCK), '--out', out, join(dir, heap)], { encoding: 'utf8' });
    const report = JSON.parse(r.stdout) as { blocks: CliBlock[] };
    expect(report.blocks).toHaveLength(1);
    const written = readFileSync(out);
    const page = report.blocks[0].recovered ? written.subarray(BLOCK * 8192, (BLOCK + 1) * 8192) : null;
    return { status: r.status, block: report.blocks[0], page, stderr: r.stderr };
  }

  /** The scanner fed `dir`'s pg_wal, rebuilding BLOCK: its list, its page, its problems. */
  function scan(w: Wasm, dir: string, control: Uint8Array = readFileSync(join(dir, 'global/pg_control'))) {
    const wal = join(dir, 'pg_wal');
    const names = readdirSync(wal).filter((n) => /^[0-9A-F]{24}$/.test(n));
    const order = Array.from(w.wal_segment_plan(names), (i) => names[i]);
    const scanner = new w.WalScanner('', 8192);
    try {
      scanner.watch(new Uint32Array([locator[2], 0, BLOCK]));
      let refused: string | null = null;
      try {
        scanner.recover(control, new Uint32Array([...locator, 0, BLOCK]));
      } catch (e) {
        refused = e instanceof Error ? e.message : String(e);
      }
      for (const n of order) {
        const bytes = readFileSync(join(wal, n));
        scanner.begin_segment(n);
        for (let at = 0; at < bytes.length; at += 1 << 20) scanner.feed(bytes.subarray(at, at + (1 << 20)));
        scanner.end_segment();
      }
      scanner.finish();
      const list = JSON.parse(scanner.recovered_json()) as Recovered[];
      const page = list[0]?.recovered ? Buffer.from(scanner.recovered_page(0)) : null;
      const problems = JSON.parse(scanner.problems_json()) as { code: string; message: string }[];
      return { refused, list, page, problems };
    } finally {
      scanner.free();
    }
  }

  for (const build of ['pkg', 'pkg-scalar']) {
    it(`rebuilds the block as pgpage recover does (${build})`, async () => {
      const w = await load(build);
      const ours = scan(w, c.dataDir);
      expect(ours.refused).toBeNull();
      expect(ours.list).toHaveLength(1);
      const r = ours.list[0];
      const theirs = cli(c.dataDir, join(work, `out-${build}`));
      expect(theirs.status, theirs.stderr).toBe(0);
      expect(r.recovered).toBe(true);
      expect({ start: r.start, applied: r.applied, lsn: r.lsn, recovered: r.recovered, reason: r.reason }).toEqual({
        start: theirs.block.start,
        applied: theirs.block.applied,
        lsn: theirs.block.lsn,
        recovered: theirs.block.recovered,
        reason: theirs.block.reason,
      });
      expect([r.tablespace_oid, r.database_oid, r.relfilenode, r.fork, r.block]).toEqual([...locator, 'main', BLOCK]);
      // The server's own account: replay starts at the newest image and applies every record
      // after it, the last one's end being the page's LSN.
      expect(r.start).toEqual({ source: 'wal_image', lsn: imageLsn });
      expect(r.records_after_start).toBe(after.length);
      expect(r.lsn).toBe(after[after.length - 1].end_lsn);
      expect(ours.page).not.toBeNull();
      expect(Buffer.compare(ours.page!, theirs.page!), 'the page pgpage recover writes').toBe(0);
      // The WAL of a clean stop is read to its end without a problem.
      expect(ours.problems).toEqual([]);
    }, 120_000);
  }

  it('reads WAL cut short or garbled mid-record to its valid end as the CLI does, naming the problem', async () => {
    const w = await load('pkg');
    // The record in the middle of those after the image: its segment, and its offset there.
    const mid = after[Math.floor(after.length / 2)];
    const lsn = lsnValue(mid.start_lsn);
    const name = `00000001${Math.floor(lsn / 2 ** 32)
      .toString(16)
      .toUpperCase()
      .padStart(8, '0')}${Math.floor((lsn % 2 ** 32) / SEGMENT)
      .toString(16)
      .toUpperCase()
      .padStart(8, '0')}`;
    const offset = lsn % SEGMENT;
    for (const how of ['cut', 'garbled'] as const) {
      const dir = join(work, how);
      cpSync(c.dataDir, dir, { recursive: true });
      const seg = join(dir, 'pg_wal', name);
      if (how === 'cut') truncateSync(seg, offset + 12);
      else {
        const bytes = readFileSync(seg);
        for (let i = 0; i < 64; i++) bytes[offset + 24 + i] ^= 0xa5;
        writeFileSync(seg, bytes);
      }
      const ours = scan(w, dir);
      expect(ours.problems.length, `${how}: a problem is named`).toBeGreaterThan(0);
      const theirs = cli(dir, join(work, `out-${how}`));
      const r = ours.list[0];
      expect({ start: r.start, applied: r.applied, lsn: r.lsn, recovered: r.recovered, reason: r.reason }, how).toEqual({
        start: theirs.block.start,
        applied: theirs.block.applied,
        lsn: theirs.block.lsn,
        recovered: theirs.block.recovered,
        reason: theirs.block.reason,
      });
      // Replay stopped before the damaged record.
      expect(r.applied.every((a) => lsnValue(a.lsn) < lsn)).toBe(true);
      if (theirs.page) expect(Buffer.compare(ours.page!, theirs.page), how).toBe(0);
    }
  }, 120_000);

  it("refuses a pg_control it cannot use with the CLI's words, and scans on", async () => {
    const w = await load('pkg');
    const control = new Uint8Array(readFileSync(join(c.dataDir, 'global/pg_control')));
    control[200] ^= 1;
    const ours = scan(w, c.dataDir, control);
    expect(ours.refused).toBe('pg_control is damaged (its CRC fails)');
    expect(ours.list).toEqual([]);
    const dir = join(work, 'badcontrol');
    cpSync(c.dataDir, dir, { recursive: true });
    writeFileSync(join(dir, 'global/pg_control'), control);
    const r = spawnSync(ensurePgpage(), ['recover', '--block', String(BLOCK), '--out', join(work, 'out-badcontrol'), join(dir, heap)], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(ours.refused!);
    // The garbage in place of pg_control is refused alike.
    const scanned = scan(w, c.dataDir, new Uint8Array(100).fill(7));
    expect(scanned.refused).toBe('pg_control is damaged (its CRC fails)');
  }, 120_000);
});
