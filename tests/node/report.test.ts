// The incident report in the browser is the CLI's: the wasm module's ReportReader, driven
// as the browser drives it (told every path and length, asked for byte ranges, given their
// bytes), gives the same Markdown and JSON as `pgpage report` for the same damaged data
// directory of a real PostgreSQL cluster.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from '../pg/cluster';
import { scanWal } from '../../web/src/damage/walScan';

type Wasm = typeof import('../../web/pkg/pgpage_wasm.js');
const CLI = join(__dirname, '../../crates/target/release/pgpage');
const BLCKSZ = 8192;

/** Every file of the directories the report reads, relative to the data directory, as the
 * browser lists a dropped directory. */
function listing(root: string): string[] {
  const list = (rel: string): string[] => {
    try {
      return readdirSync(join(root, rel)).map((n) => `${rel}/${n}`);
    } catch {
      return [];
    }
  };
  const dirs = ['global', 'pg_xact', 'pg_multixact/offsets', 'pg_multixact/members', ...list('base')];
  for (const link of list('pg_tblspc')) for (const v of list(link)) dirs.push(...list(v));
  return ['PG_VERSION', ...dirs.flatMap(list).filter((p) => statSync(join(root, p)).isFile())];
}

async function wasmReport(w: Wasm, root: string): Promise<{ json: string; markdown: string; damaged: boolean }> {
  const paths = listing(root);
  const reader = new w.ReportReader(
    paths,
    paths.map((p) => statSync(join(root, p)).size),
    undefined,
    `${root}/`,
  );
  const walDir = join(root, 'pg_wal');
  const wal = readdirSync(walDir)
    .filter((n) => w.wal_file_kind(n) !== undefined && statSync(join(walDir, n)).isFile())
    .map((n) => ({ name: n, path: `pg_wal/${n}`, file: new File([readFileSync(join(walDir, n))], n) }));
  // First the pages the latest checkpoint wrote (older ones are lost writes), as the
  // browser's report worker and `pgpage report` read the directory's WAL.
  if (wal.length > 0) {
    const { scanner } = await scanWal(w, wal, '', 8192, new Uint32Array(), () => undefined, undefined, {
      control: new Uint8Array(readFileSync(join(root, 'global/pg_control'))),
      backupLabel: existsSync(join(root, 'backup_label')),
    });
    try {
      reader.set_flushed(scanner);
    } finally {
      scanner.free();
    }
  }
  for (;;) {
    const wanted = JSON.parse(reader.wanted()) as { path: string; offset: number; len: number }[];
    if (wanted.length === 0) break;
    for (const { path, offset, len } of wanted) {
      const fd = openSync(join(root, path), 'r');
      const buf = new Uint8Array(len);
      const got = readSync(fd, buf, 0, len, offset);
      closeSync(fd);
      reader.give(path, offset, len, buf.subarray(0, got), undefined);
    }
  }
  const out = reader.finish();
  // Then the damaged blocks' images and records.
  const watch = out.wal_blocks();
  if (wal.length > 0 && watch.length > 0) {
    const first = JSON.parse(out.json) as { cluster: { system_identifier?: string; block_size?: number } };
    const { scanner } = await scanWal(w, wal, first.cluster.system_identifier ?? '', first.cluster.block_size ?? 8192, watch, () => undefined);
    try {
      out.set_wal(scanner);
    } finally {
      scanner.free();
    }
  }
  return { json: out.json, markdown: out.markdown, damaged: out.damaged };
}

describe('the wasm report equals the CLI report', () => {
  let c: Cluster;
  let w: Wasm;
  beforeAll(async () => {
    w = await import('../../web/pkg/pgpage_wasm.js');
    w.initSync({ module: readFileSync(join(__dirname, '../../web/pkg/pgpage_wasm_bg.wasm')) });
    c = Cluster.create('pgpage-report');
    c.sql(`create table t (id int primary key, note text not null) with (autovacuum_enabled = off);
      insert into t select g, 'note-' || g || '-Juliet' from generate_series(1, 3000) g;
      checkpoint;`);
  }, 120_000);
  afterAll(() => c?.destroy());

  it('on a data directory with a zeroed block and a flipped bit', async () => {
    expect(existsSync(CLI), `${CLI} is missing: cargo build --release -p pgpage-cli`).toBe(true);
    const file = c.relationPath('t');
    c.stop();
    const bytes = readFileSync(file);
    bytes.fill(0, 3 * BLCKSZ, 4 * BLCKSZ);
    bytes[6 * BLCKSZ + 8000] ^= 0x04;
    writeFileSync(file, bytes);

    const root = c.dataDir;
    const md = spawnSync(CLI, ['report', '--markdown', root], { encoding: 'utf8' });
    expect(md.status, md.stderr).toBe(1);
    const json = spawnSync(CLI, ['report', '--json', root], { encoding: 'utf8' });
    expect(json.status, json.stderr).toBe(1);

    const mine = await wasmReport(w, root);
    expect(mine.damaged).toBe(true);
    expect(mine.markdown).toBe(md.stdout);
    expect(JSON.parse(mine.json)).toEqual(JSON.parse(json.stdout));
    // Both read the directory's own WAL for the damaged blocks.
    expect((JSON.parse(json.stdout) as { wal_searched?: boolean }).wal_searched).toBe(true);
    // Both name the two blocks; the zeroed one's rows come from the primary key.
    const report = JSON.parse(mine.json) as { relations: { relation: string; blocks: { block: number; damage: string; rows?: { known_from: string } }[] }[] };
    const t = report.relations.find((r) => r.relation === 'public.t');
    expect(t?.blocks.map((b) => [b.block, b.damage]).sort()).toEqual([
      [3, 'zeroed'],
      [6, 'bit_flip'],
    ]);
    expect(t?.blocks.find((b) => b.block === 3)?.rows?.known_from).toBe('index');
  });
});
