// The page's file-name parser (web/src/lib/filename.ts) must read every name as the core's
// parser (pgpage::file, through the CLI's `verify --json`) does: segment and fork feed the
// checksum's block number and the page kind, so a disagreement is a wrong verdict.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { parseRelationFileName } from '../../web/src/lib/filename';

const CLI = join(__dirname, '../../crates/target/release/pgpage');
const dir = mkdtempSync(join(tmpdir(), 'pgpage-names-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NAMES = [
  '16385', '16385.2', '16385_fsm', '16385_vm.3', '16385_init', '16385_fsm.1', '16385.0', '16385_main',
  '016385', '16385.', '16385.02', '16385_fsm.0', 'pg_control', 'PG_VERSION', '4294967295', '4294967296',
  '16385.4294967295', '16385.4294967296', '16385.1a', 't3_99999', '16385_vm_fsm', '0', '16385_FSM', '1_init.7',
];

it.each(NAMES)('%s: the page and the core agree on segment and fork', (name) => {
  const path = join(dir, name);
  writeFileSync(path, new Uint8Array(0));
  const r = spawnSync(CLI, ['verify', '--json', path], { encoding: 'utf8' });
  expect(r.error).toBeUndefined();
  const file = JSON.parse(r.stdout).files[0] as { segment: number; fork: string };
  // A name the parser refuses is verified as segment 0 of a main fork, by both.
  const js = parseRelationFileName(name) ?? { segment: 0, fork: 'main' };
  expect({ segment: js.segment, fork: js.fork }).toEqual({ segment: file.segment, fork: file.fork });
});
