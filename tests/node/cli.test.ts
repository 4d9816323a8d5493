// The wasm bindings and the CLI (`pgpage verify --json --all`, built by `npm run build`)
// must say the same thing about every page of the same files: one core verdict.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { damagedFile } from '../oracle/pgchecksum';
import { cliFile, type CliPage } from './cliPages';

type Wasm = typeof import('../../web/pkg/pgpage_wasm.js');
const CLI = join(__dirname, '../../crates/target/release/pgpage');

describe('wasm bindings agree with the CLI', () => {
  let w: Wasm;
  beforeAll(async () => {
    w = await import('../../web/pkg/pgpage_wasm.js');
    w.initSync({ module: readFileSync(join(__dirname, '../../web/pkg/pgpage_wasm_bg.wasm')) });
  });

  it('on every page of damaged files of segments 0 and 2 and block sizes 8 and 4 kB', () => {
    expect(existsSync(CLI), `${CLI} is missing: run npm run build`).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'pgpage-cli-wasm-'));
    for (const [name, segment, bs] of [
      ['16385', 0, 8192],
      ['16385.2', 2, 8192],
      ['16390.1', 1, 4096],
    ] as const) {
      const f = damagedFile(40, segment, bs, 17 + segment);
      const path = join(dir, name);
      writeFileSync(path, f.bytes);
      const r = spawnSync(CLI, ['verify', '--json', '--all', path], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(1);
      const cli = JSON.parse(r.stdout) as { files: { segment: number; block_size: number; blocks: number; pages: CliPage[] }[] };
      const file = cli.files[0];
      expect([file.segment, file.block_size, file.blocks]).toEqual([segment, bs, 40]);

      // The browser's calls: verify for every page, the core's FileScan for the verdict.
      const mine = cliFile(w, f.bytes, segment, name);
      expect([mine.segment, mine.block_size, mine.blocks]).toEqual([segment, bs, 40]);
      expect(file.pages).toEqual(mine.pages);
      // The swapped pages' random tuples corroborate nothing: each names the other as a
      // candidate, never as matches_block.
      expect([file.pages[5].candidate?.block, file.pages[6].candidate?.block]).toEqual([6, 5]);
      expect(file.pages.some((p) => p.matches_block !== undefined)).toBe(false);
    }
  });
});
