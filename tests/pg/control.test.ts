// pg_control of the run's PostgreSQL version (vitest runs it for each of 13-19) against the server's own pg_control_*()
// functions (queried, then the server stopped with -m immediate so the file is what they
// read) and against pg_controldata where one reads that control version; a corrupted copy
// (bad CRC), a truncated one and an unknown version are named. 19 runs twice: its 1903
// build (19.0) and its 1902 build (the betas), each with its own pg_controldata.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { binDir, Cluster, PG_VERSION, pg19Bin, pgTempDir, toolBin } from './cluster';
import { chownPostgres, pgpage } from './pgpage';

type Json = Record<string, unknown>;

const FUNCTIONS = ['pg_control_system', 'pg_control_checkpoint', 'pg_control_init', 'pg_control_recovery'];

/** pg_controldata in the C locale with times in UTC, as the postgres user when we are root. */
function controldata(bin: string, dataDir: string): { status: number | null; stdout: string; stderr: string } {
  const argv = ['env', 'TZ=UTC', 'LC_ALL=C', bin, '-D', dataDir];
  const [cmd, args] = userInfo().uid === 0 ? ['runuser', ['-u', 'postgres', '--', ...argv]] : [argv[0], argv.slice(1)];
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const made: Cluster[] = [];
afterAll(() => {
  for (const c of made) c.destroy();
});

/** The builds of the run's version, by the pg_control version they write. */
const BUILDS: { control: number; bin: string; controldata: string | null }[] =
  PG_VERSION === 19
    ? [1903, 1902].map((control) => {
        const bin = pg19Bin(control as 1902 | 1903);
        return { control, bin, controldata: join(bin, 'pg_controldata') };
      })
    : [
        {
          control: PG_VERSION === 18 ? 1800 : PG_VERSION === 17 ? 1700 : 1300,
          bin: binDir(PG_VERSION),
          controldata: toolBin('pg_controldata', PG_VERSION),
        },
      ];

describe.each(BUILDS)(`pg_control of PostgreSQL ${PG_VERSION} (pg_control $control)`, ({ control, bin: serverBin, controldata: controldataBin }) => {
  const version = PG_VERSION;
  let cluster: Cluster;
  let expected: Json;

  test('decodes to what pg_control_*() return', () => {
    cluster = Cluster.create('pgpage-control', version, serverBin);
    made.push(cluster);
    cluster.sql(`create table t as select g from generate_series(1, 1000) g; checkpoint;`);
    expected = {};
    for (const f of FUNCTIONS) {
      const [row] = cluster.rows<Json>(`select * from ${f}()`);
      Object.assign(expected, row);
    }
    cluster.stop('immediate');
    const r = pgpage(['control', '--json', cluster.dataDir]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const got = JSON.parse(r.stdout) as Json;
    // Every column the server returns, with its value as row_to_json prints it.
    for (const [k, v] of Object.entries(expected)) expect({ [k]: got[k] }).toEqual({ [k]: v });
    expect(got.pg_control_version).toBe(control);
    expect(got.state).toBe('in production');
    expect(got.crc_ok).toBe(true);
  });

  test('prints what pg_controldata prints, where one reads this version', () => {
    const bin = controldataBin;
    // PostgreSQL 17's pg_control (1700) has no pg_controldata on this machine to compare with.
    if (bin === null) {
      expect(version).toBe(17);
      return;
    }
    const pg = controldata(bin, cluster.dataDir);
    expect(pg.status).toBe(0);
    const ours = pgpage(['control', cluster.dataDir]);
    expect(ours.status).toBe(0);
    expect(ours.stdout).toBe(pg.stdout);
  });

  test('a corrupted, a truncated and an unknown-version copy are named', () => {
    const dir = pgTempDir('pgpage-control-bad-');
    mkdirSync(join(dir, 'global'));
    const good = join(cluster.dataDir, 'global', 'pg_control');
    const bad = join(dir, 'global', 'pg_control');
    copyFileSync(good, bad);
    const bytes = readFileSync(bad);
    bytes[40] ^= 0x01; // a bit of the checkpoint's redo LSN, inside the CRC
    writeFileSync(bad, bytes);
    for (const p of [dir, join(dir, 'global'), bad]) chownPostgres(p);
    const r = pgpage(['control', '--json', bad]);
    expect(r.status).toBe(1);
    expect((JSON.parse(r.stdout) as Json).crc_ok).toBe(false);
    const text = pgpage(['control', bad]);
    expect(text.status).toBe(1);
    expect(text.stderr).toContain('calculated CRC checksum does not match value stored in control file');
    const bin = controldataBin;
    if (bin !== null) {
      // pg_controldata warns too (15 on stdout before the report, 18 on stderr) and prints
      // the same untrustworthy values.
      const pg = controldata(bin, dir);
      expect((pg.stdout + pg.stderr).toLowerCase()).toContain('calculated crc checksum does not match value stored in');
      expect(pg.stdout.endsWith(text.stdout)).toBe(true);
    }

    writeFileSync(bad, readFileSync(good).subarray(0, 100));
    const short = pgpage(['control', bad]);
    expect(short.status).toBe(2);
    expect(short.stderr).toContain('pg_control is truncated: 100 bytes');

    const other = Buffer.from(readFileSync(good));
    other.writeUInt32LE(1201, 8);
    writeFileSync(bad, other);
    const unknown = pgpage(['control', '--json', bad]);
    expect(unknown.status).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toContain('unknown pg_control version 1201');
  });
});
