// The Tour's sample 90003 (scripts/make-samples.sh: the heap 16427 with only pd_upper of block 1
// set to 0) as the browser's incident report reads it, through the same wasm ReportReader: not
// a page of noise, nor an index to REINDEX, but a heap page with one header field wrong, set
// back to the pd_upper PostgreSQL's page_header() gave the heap's block 1 before the damage
// (manifest.json), the stored checksum confirming it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

type Wasm = typeof import('../../web/pkg/pgpage_wasm.js');
const SAMPLES = join(__dirname, '../../public/samples');

interface Sample {
  role: string;
  file: string;
  pages: { block: number; upper: number }[];
}

it("reads sample 90003's block 1 as one header field, confirmed by its checksum", async () => {
  const w: Wasm = await import('../../web/pkg/pgpage_wasm.js');
  w.initSync({ module: readFileSync(join(__dirname, '../../web/pkg/pgpage_wasm_bg.wasm')) });
  const manifest = JSON.parse(readFileSync(join(SAMPLES, 'manifest.json'), 'utf8')) as { samples: Sample[] };
  const sample = (role: string) => manifest.samples.find((s) => s.role === role)!;
  const damaged = sample('upper_zeroed');
  const upper = sample('heap').pages.find((p) => p.block === 1)!.upper;
  const bytes = new Uint8Array(readFileSync(join(SAMPLES, damaged.file)));

  const reader = new w.ReportReader([damaged.file], [bytes.length], undefined, '');
  for (;;) {
    const wanted = JSON.parse(reader.wanted()) as { path: string; offset: number; len: number }[];
    if (wanted.length === 0) break;
    for (const { path, offset, len } of wanted) reader.give(path, offset, len, bytes.subarray(offset, offset + len), undefined);
  }
  const report = JSON.parse(reader.finish().json) as {
    verdict: string;
    steps: string[];
    relations: {
      blocks: { block: number; damage: string; route: string; headline: string; header_field?: Record<string, unknown>; rows?: { lost: number } }[];
    }[];
  };
  const blocks = report.relations.flatMap((r) => r.blocks);
  expect(blocks.map((b) => b.block)).toEqual([1]);
  const b = blocks[0];
  expect([b.damage, b.route]).toEqual(['header_field', 'confirmed_field']);
  expect(b.header_field).toMatchObject({ field: 'pd_upper', stored: 0, value: upper, confirmed: true });
  expect(b.headline).toMatch(new RegExp(`^pd_upper is 0; the stored checksum verifies with pd_upper = ${upper}: `));
  expect(b.rows?.lost).toBe(0);
  const steps = report.steps.join('\n');
  expect(steps).toContain(`pgpage repair --block 1 --set pd_upper=${upper} --out NEW ${damaged.file}`);
  expect(steps).not.toContain('REINDEX INDEX');
  expect(report.verdict).toContain('no row lost; 1 page has one header field wrong');

  // The Repair kit's page: the sample's block 1 as the undamaged heap has it, byte for byte.
  const page = bytes.subarray(8192, 2 * 8192);
  const fixed = w.set_header_field(page, 'pd_upper', upper, false, 1, false);
  const heap = new Uint8Array(readFileSync(join(SAMPLES, sample('heap').file))).subarray(8192, 2 * 8192);
  expect(Buffer.compare(Buffer.from(fixed), Buffer.from(heap))).toBe(0);
  expect(() => w.set_header_field(page, 'pd_upper', upper - 8, false, 1, false)).toThrow(/does not verify/);
});
