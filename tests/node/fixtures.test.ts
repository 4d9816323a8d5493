// The wasm bindings on every PostgreSQL-made fixture (tests/fixtures/verify/<case>/): each
// page's status and checksums as expected.json (the server) says, and its misplaced-page
// hint: the block the server finds nearest whose page_checksum() the page carries is the
// core's claim (corroborated) or, with nothing else agreeing, its candidate.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliFile } from './cliPages';

type Wasm = typeof import('../../web/pkg/pgpage_wasm.js');
const ROOT = join(__dirname, '../fixtures/verify');

interface Expected {
  path: string;
  segment: number;
  block_size: number;
  blocks: number;
  trailing_bytes: number;
  pages: { block: number; absolute_block: number; status: string; stored: number; computed: number | null; matches_block?: number }[];
}

describe('wasm bindings on the PostgreSQL fixtures', async () => {
  const w: Wasm = await import('../../web/pkg/pgpage_wasm.js');
  w.initSync({ module: readFileSync(join(__dirname, '../../web/pkg/pgpage_wasm_bg.wasm')) });
  const cases = readdirSync(ROOT).filter((d) => existsSync(join(ROOT, d, 'expected.json')));

  it('has fixtures', () => expect(cases.length).toBeGreaterThanOrEqual(5));

  for (const name of cases) {
    it(name, () => {
      const parsed = JSON.parse(readFileSync(join(ROOT, name, 'expected.json'), 'utf8')) as Expected | Expected[];
      for (const f of Array.isArray(parsed) ? parsed : [parsed]) {
        const bytes = new Uint8Array(readFileSync(join(ROOT, name, f.path.split('/').pop()!)));
        const g = w.file_geometry(bytes.subarray(0, w.detect_head_bytes()), undefined, undefined, true);
        expect([g.block_size, g.big_endian, g.block_size_assumed]).toEqual([f.block_size, false, false]);
        g.free();
        const file = cliFile(w, bytes, f.segment, f.path);
        expect([file.block_size, file.blocks, file.trailing_bytes]).toEqual([f.block_size, f.blocks, f.trailing_bytes]);
        const claims: number[] = [];
        const got = file.pages.map(({ matches_block, candidate, findings: _f, ...p }) => {
          if (matches_block !== undefined) claims.push(p.block);
          const nearest = matches_block ?? candidate?.block;
          return nearest === undefined ? p : { ...p, matches_block: nearest };
        });
        // heap_mixed's swapped heap pages are claimed: their tuples' t_ctid agree.
        if (name === 'heap_mixed') expect(claims).toEqual([10, 11]);
        expect(got).toEqual(f.pages);
      }
    });
  }
});
