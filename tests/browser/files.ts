// Relation files for the browser tests, written to a temp dir. Synthetic ones carry the
// oracle's expected verdicts; tests/browser/pg.spec.ts makes real ones with PostgreSQL.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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

export function damaged(dir: string, name: string, blocks: number, segment: number, seed = 1): Made {
  const f = damagedFile(blocks, segment, 8192, seed);
  return write(dir, name, f.bytes, f.expected);
}

export function clean(dir: string, name: string, blocks: number): Made {
  const r = rng(5);
  const pages = Array.from({ length: blocks }, (_, b) => seal(heapPage(8192, 4, r), b));
  return write(dir, name, concat(pages), pages.map((p, b) => ({ block: b, ...oracleStatus(p, b) })));
}

/** Pages as a cluster without data checksums writes them: pd_checksum 0 everywhere. */
export function checksumless(dir: string, name: string, blocks: number): Made {
  const r = rng(6);
  return write(dir, name, concat(Array.from({ length: blocks }, () => heapPage(8192, 4, r))));
}

export const problemsOf = (m: Made) => m.expected.filter((e) => e.status !== 'ok' && e.status !== 'zero');
