// The page view's columns of a tuple are for a person to read: a control byte in a value shows
// as \xNN, never raw. A PostgreSQL-made heap page (tests/fixtures/heap_hot_redirect: table
// heap_hist (id int, v int, pad text, note text), pad = repeat('x', g % 40)) with one byte
// of a pad value set to 0x18.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';

import type { Wasm } from '../core';
import { wasmFromDisk } from '../core/disk';

const page = new Uint8Array(readFileSync(join(__dirname, '../../../tests/fixtures/heap_hot_redirect/page.bin')));

let wasm: Wasm;
beforeAll(async () => {
  wasm = await wasmFromDisk();
});

it('escapes a control byte in a tuple value as \\x18', () => {
  // In a tuple: past pd_upper, where the tuples begin.
  const upper = page[14] | (page[15] << 8);
  const at = page.findIndex((b, i) => i >= upper && b === 0x78 && page[i + 1] === 0x78 && page[i + 2] === 0x78);
  expect(at).toBeGreaterThan(0);
  const damaged = page.slice();
  damaged[at + 1] = 0x18;
  const reader = wasm.RowsReader.from_types('int4,int4,text,text', 'json', 8192, false, 'pg_toast');
  const pads: string[] = [];
  for (let lp = 1; lp < 300; lp++) {
    try {
      const t = JSON.parse(reader.tuple(damaged, lp, undefined)) as { columns: { name: string; value: string | null }[] };
      const pad = t.columns[2]?.value;
      if (pad) pads.push(pad);
    } catch {
      // not a tuple with storage
    }
  }
  const hit = pads.filter((p) => p.includes('\\x18'));
  expect(hit).toHaveLength(1);
  expect(hit[0]).toMatch(/^x*\\x18x*$/);
  expect(pads.some((p) => p.includes('\u0018'))).toBe(false);
});
