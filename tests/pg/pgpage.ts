// The pgpage CLI as the differential tests drive it, and PostgreSQL's answers about raw page
// bytes on disk (pageinspect over pg_read_binary_file), so each test compares the two.
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Cluster, PG_VERSION, lit, runPg, toolBin, type PgVersion } from './cluster';

const CRATES = resolve(dirname(fileURLToPath(import.meta.url)), '../../crates');
export const PGPAGE_BIN = process.env.PGPAGE_BIN ?? join(CRATES, 'target/release/pgpage');

let built = false;

/**
 * Builds the CLI (a no-op when it is up to date), so the tests never run a stale binary.
 * PGPAGE_BIN set by the caller means "use this one as is".
 */
export function ensurePgpage(): string {
  if (built || process.env.PGPAGE_BIN) return PGPAGE_BIN;
  const r = spawnSync('cargo', ['build', '--release', '-q', '-p', 'pgpage-cli'], { cwd: CRATES, encoding: 'utf8' });
  if (r.error) throw new Error(`cargo build: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`cargo build --release -p pgpage-cli failed:\n${r.stderr}`);
  if (!existsSync(PGPAGE_BIN)) throw new Error(`${PGPAGE_BIN} missing after cargo build`);
  built = true;
  return PGPAGE_BIN;
}

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function pgpage(args: string[]): RunResult {
  const r = spawnSync(ensurePgpage(), args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export type Status = 'ok' | 'mismatch' | 'zero' | 'new_not_zero' | 'bad_header';

export interface VerifyPage {
  block: number;
  absolute_block: number;
  status: Status;
  stored: number;
  computed: number | null;
  /** Where the page was written, when its tuples or siblings agree with its checksum. */
  matches_block?: number;
  /** The segment of matches_block, when it is not the file's. */
  matches_segment?: number;
  /** A bare checksum match in the file, with the odds that chance explains it. */
  candidate?: { block: number; matches: number; searched: number; expected_chance_matches: number; chance_probability: number };
  /** The registry's codes of the findings about the page. */
  findings?: string[];
}

export interface VerifyFile {
  path: string;
  segment: number;
  fork: string;
  block_size: number;
  /** The byte order the file was read in, detected unless --endian chose it. */
  endian: 'little' | 'big';
  blocks: number;
  trailing_bytes: number;
  /** Findings about the whole file (short read, checksums off, written as another segment). */
  findings?: { code: string; message: string }[];
  pages: VerifyPage[];
}

export interface VerifySummary {
  files: number;
  blocks: number;
  ok: number;
  mismatch: number;
  zero: number;
  new_not_zero: number;
  bad_header: number;
}

export interface VerifyJson {
  files: VerifyFile[];
  summary: VerifySummary;
}

/** `pgpage verify --json [--all] ...`; returns the parsed document and the exit status. */
export function verifyJson(paths: string[], opts: string[] = ['--all']): { status: number | null; doc: VerifyJson; stderr: string } {
  const r = pgpage(['verify', '--json', ...opts, ...paths]);
  let doc: VerifyJson;
  try {
    doc = JSON.parse(r.stdout) as VerifyJson;
  } catch {
    throw new Error(`pgpage verify --json printed no JSON (exit ${r.status}): ${r.stderr}\n${r.stdout.slice(0, 500)}`);
  }
  return { status: r.status, doc, stderr: r.stderr };
}

export const isProblem = (s: Status): boolean => s !== 'ok' && s !== 'zero';

/** pageinspect's smallint checksums as the unsigned values pd_checksum holds. */
export const u16 = (v: number): number => ((v % 65536) + 65536) % 65536;

/** What PostgreSQL says about one page's raw bytes. */
export interface PgPage {
  block: number;
  /** page_checksum(raw, absolute block), unsigned; null for PageIsNew pages. */
  computed: number | null;
  /** page_header(raw).checksum, unsigned. */
  stored: number;
  flags: number;
  lower: number;
  upper: number;
  special: number;
}

export interface PgFileQuery {
  path: string;
  /** Whole blocks to read. */
  blocks: number;
  /** The relation-wide number of the file's block 0. */
  firstBlock: number;
}

/**
 * page_checksum and page_header of every block of every file, read from disk by the server
 * (pg_read_binary_file). The files must be readable by the postgres user.
 */
export function pgPages(c: Cluster, files: PgFileQuery[], db = 'postgres'): PgPage[][] {
  if (files.length === 0) return [];
  const values = files.map((f, i) => `(${i}, ${lit(f.path)}, ${f.blocks}, ${f.firstBlock}::bigint)`).join(',\n');
  const out = c.sql(
    `select f.i, b, page_checksum(r.p, f.first + b), h.checksum, h.flags, h.lower, h.upper, h.special
       from (values ${values}) f(i, path, n, first)
       cross join lateral generate_series(0, f.n - 1) b
       cross join lateral (select pg_read_binary_file(f.path, b::bigint * 8192, 8192) as p) r
       cross join lateral page_header(r.p) h
      order by 1, 2;`,
    db,
  );
  const result: PgPage[][] = files.map(() => []);
  for (const line of out.split('\n')) {
    if (!line) continue;
    const [i, b, computed, stored, flags, lower, upper, special] = line.split('|');
    result[Number(i)].push({
      block: Number(b),
      computed: computed === '' ? null : u16(Number(computed)),
      stored: u16(Number(stored)),
      flags: Number(flags),
      lower: u16(Number(lower)),
      upper: u16(Number(upper)),
      special: u16(Number(special)),
    });
  }
  files.forEach((f, i) => {
    if (result[i].length !== f.blocks) throw new Error(`server read ${result[i].length} of ${f.blocks} blocks of ${f.path}`);
  });
  return result;
}

/** bufpage.c PageIsVerified's header sanity, restated from the server's source for 8 KB pages. */
export function headerSane(p: { flags: number; lower: number; upper: number; special: number }): boolean {
  return (p.flags & ~0x7) === 0 && p.lower <= p.upper && p.upper <= p.special && p.special <= 8192 && p.special % 8 === 0;
}

/** Gives a file to the postgres user (the server reads and owns what we put in its data dir). */
export function chownPostgres(path: string): void {
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  chownSync(path, id('-u'), id('-g'));
}

/** pg_checksums --check as the postgres user on a stopped data directory. */
export interface PgChecksumsResult {
  status: number | null;
  /** The `checksum verification failed ...` lines, program prefix removed, in output order. */
  failures: string[];
  filesScanned?: number;
  blocksScanned?: number;
  badChecksums?: number;
  stdout: string;
  stderr: string;
}

const FAILURE = /checksum verification failed in file .*$/;

/** The pg_checksums failure lines of some output, with whatever prefix the program puts before them. */
export function failureLines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => FAILURE.exec(l)?.[0])
    .filter((l): l is string => l !== undefined);
}

export function parseScanSummary(text: string): { files?: number; blocks?: number; bad?: number } {
  const num = (re: RegExp) => {
    const m = re.exec(text);
    return m ? Number(m[1]) : undefined;
  };
  return {
    files: num(/Files scanned:\s+(\d+)/),
    blocks: num(/Blocks scanned:\s+(\d+)/),
    bad: num(/Bad checksums:\s+(\d+)/),
  };
}

/**
 * No pg_checksums on this machine reads a cluster of the run's version (PostgreSQL 17): the
 * tests that compare with it are skipped for that version, named as skipped.
 */
export const NO_PG_CHECKSUMS = toolBin('pg_checksums', PG_VERSION) === null;

/**
 * Debian's pg_checksums 15 reads the files of 13, 14 and 16 (control version 1300), but looks
 * for a tablespace's files under its own PG_15_<catversion> directory. For the time of a run,
 * each tablespace gets that name as a link to its real PG_<version>_<catversion> directory.
 */
function crossVersionTablespaceLinks(dataDir: string, version: PgVersion): { link: string; target: string }[] {
  if (version === 15 || version >= 18) return [];
  const catversion = /#define\s+CATALOG_VERSION_NO\s+(\d+)/.exec(readFileSync('/usr/include/postgresql/15/server/catalog/catversion.h', 'utf8'));
  if (!catversion) throw new Error("no CATALOG_VERSION_NO in PostgreSQL 15's catversion.h");
  const own = `PG_15_${catversion[1]}`;
  const links: { link: string; target: string }[] = [];
  const tblspc = join(dataDir, 'pg_tblspc');
  for (const oid of existsSync(tblspc) ? readdirSync(tblspc) : []) {
    const location = join(tblspc, oid);
    const real = readdirSync(location).find((d) => d.startsWith(`PG_${version}_`));
    if (!real) continue;
    const link = join(location, own);
    symlinkSync(real, link);
    links.push({ link, target: join(location, real) });
  }
  return links;
}

/** pg_checksums --check of a cluster of the run's version (PG_VERSION unless given). */
export function pgChecksums(dataDir: string, extra: string[] = [], version: PgVersion = PG_VERSION): PgChecksumsResult {
  const bin = toolBin('pg_checksums', version);
  if (bin === null) throw new Error(`no pg_checksums here reads a PostgreSQL ${version} cluster`);
  const links = crossVersionTablespaceLinks(dataDir, version);
  let r: ReturnType<typeof runPg>;
  try {
    r = runPg(bin, ['--check', '-D', dataDir, ...extra]);
  } finally {
    for (const l of links) rmSync(l.link);
  }
  if (r.error) throw r.error;
  // Paths through the links name the tablespace's own directory again.
  for (const l of links) {
    r.stdout = r.stdout.split(l.link).join(l.target);
    r.stderr = r.stderr.split(l.link).join(l.target);
  }
  const s = parseScanSummary(r.stdout);
  return {
    status: r.status,
    failures: failureLines(r.stderr),
    filesScanned: s.files,
    blocksScanned: s.blocks,
    badChecksums: s.bad,
    stdout: r.stdout,
    stderr: r.stderr,
  };
}
