// Relation files for the browser tests, written to a temp dir. Synthetic ones carry the
// oracle's expected verdicts; tests/browser/pg.spec.ts makes real ones with PostgreSQL.
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { concat, damagedFile, heapPage, oracleStatus, rng, seal, type SyntheticFile } from '../oracle/pgchecksum';

export interface Made {
  path: string;
  name: string;
  expected: SyntheticFile['expected'];
}

const made: string[] = [];
// Test files go when the test process does (the bench's are hundreds of MB).
process.on('exit', () => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

export function makeDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'pgpage-files-'));
  made.push(d);
  return d;
}

export function write(dir: string, name: string, bytes: Uint8Array, expected: SyntheticFile['expected'] = []): Made {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return { path, name, expected };
}

/** A sparse file of `bytes` bytes: new (all-zero) 8 kB pages but for `pages` (by block),
 * written in their places; instant to make, as long to read as any file of its size. */
export function sparse(dir: string, name: string, bytes: number, pages = new Map<number, Uint8Array>()): Made {
  const path = join(dir, name);
  const fd = openSync(path, 'w');
  for (const [b, p] of pages) writeSync(fd, p, 0, p.length, b * 8192);
  closeSync(fd);
  truncateSync(path, bytes);
  return { path, name, expected: [...pages].map(([b, p]) => ({ block: b, ...oracleStatus(p, b) })) };
}

export function damaged(dir: string, name: string, blocks: number, segment: number, seed = 1): Made {
  const f = damagedFile(blocks, segment, 8192, seed);
  return write(dir, name, f.bytes, f.expected);
}

export function clean(dir: string, name: string, blocks: number): Made {
  const r = rng(5);
  const pages = Array.from({ length: blocks }, (_, b) => seal(heapPage(8192, 4, r), b));
  return write(
    dir,
    name,
    concat(pages),
    pages.map((p, b) => ({ block: b, ...oracleStatus(p, b) })),
  );
}

/** Pages as a cluster without data checksums writes them: pd_checksum 0 everywhere. */
export function checksumless(dir: string, name: string, blocks: number): Made {
  const r = rng(6);
  return write(dir, name, concat(Array.from({ length: blocks }, () => heapPage(8192, 4, r))));
}

export const problemsOf = (m: Made) => m.expected.filter((e) => e.status !== 'ok' && e.status !== 'zero');

/**
 * Resident memory of the renderer processes (the page and its workers) of the chromium this
 * test process started, in KiB. Other browsers on the machine do not count: a renderer is
 * ours when this process is among its ancestors.
 */
export function rendererRssKiB(): number {
  const parent = new Map<number, number>();
  const renderers: number[] = [];
  for (const d of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      // /proc/PID/stat: "pid (comm) state ppid ..."; comm may hold spaces and parentheses.
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('--type=renderer')) renderers.push(Number(d));
    } catch {
      // gone between the listing and the read
    }
  }
  const ours = (pid: number): boolean => {
    for (let p = pid, hops = 0; p > 1 && hops < 64; p = parent.get(p) ?? 0, hops++) if (p === process.pid) return true;
    return false;
  };
  let sum = 0;
  for (const pid of renderers.filter(ours)) {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      sum += m ? Number(m[1]) : 0;
    } catch {
      // gone meanwhile
    }
  }
  return sum;
}
