// The wasm bindings and the CLI (`pgpage verify --json --all`, built by `npm run build`)
// must say the same thing about every page of the same files.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { damagedFile } from '../oracle/pgchecksum';

type Wasm = typeof import('../../web/pkg/pgpage_wasm.js');
const STATUS = ['ok', 'mismatch', 'zero', 'new_not_zero', 'bad_header'];
const CLI = join(__dirname, '../../crates/target/release/pgpage');

interface CliPage {
  block: number;
  absolute_block: number;
  status: string;
  stored: number;
  computed: number | null;
  matches_block?: number;
}

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

      const first = w.absolute_block(bs, segment, 0);
      const v = w.verify(f.bytes, first, bs, false);
      const mine: CliPage[] = Array.from(v.status, (code, i) => {
        const status = STATUS[code];
        const page: CliPage = {
          block: i,
          absolute_block: first + i,
          status,
          stored: v.stored[i],
          computed: status === 'zero' || status === 'new_not_zero' ? null : v.computed[i],
        };
        const m = status === 'mismatch' ? w.matches_block(v.fold[i], v.stored[i], i, first, 40) : undefined;
        if (m !== undefined) page.matches_block = m;
        return page;
      });
      v.free();
      expect(file.pages.map((p) => ({ ...p }))).toEqual(mine);
    }
  });
});
