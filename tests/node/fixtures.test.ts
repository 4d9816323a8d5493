// The wasm bindings on every PostgreSQL-made fixture (tests/fixtures/verify/<case>/): each
// page's status, checksums and misplaced-page hint as expected.json (the server) says.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

type Wasm = typeof import('../../web/pkg/pgpage_wasm.js');
const STATUS = ['ok', 'mismatch', 'zero', 'new_not_zero', 'bad_header'];
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
        const bs = w.detect_block_size(bytes.subarray(0, 8192), false) ?? 8192;
        expect(bs).toBe(f.block_size);
        const first = w.absolute_block(bs, f.segment, 0);
        const blocks = Math.floor(bytes.length / bs);
        expect([blocks, bytes.length - blocks * bs]).toEqual([f.blocks, f.trailing_bytes]);
        const v = w.verify(bytes, first, bs, false);
        const got = Array.from(v.status, (code, i) => {
          const status = STATUS[code];
          const p: Expected['pages'][number] = {
            block: i,
            absolute_block: first + i,
            status,
            stored: v.stored[i],
            computed: status === 'zero' || status === 'new_not_zero' ? null : v.computed[i],
          };
          const m = status === 'mismatch' ? w.matches_block(v.fold[i], v.stored[i], i, first, blocks) : undefined;
          if (m !== undefined) p.matches_block = m;
          return p;
        });
        v.free();
        expect(got).toEqual(f.pages);
      }
    });
  }
});
