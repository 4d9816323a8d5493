// The core's file verdict through the wasm bindings, as the browser's workers will call it:
// parts scanned apart and merged through export() bytes give one scan's verdict, and the
// folder filter and name parsing are the core's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import type { FileVerdictJs } from '../../web/pkg/pgpage_wasm.js';
import { pgChecksumPage } from '../oracle/pgchecksum';

type Wasm = typeof import('../../web/pkg/pgpage_wasm.js');
const root = join(__dirname, '../..');
const BS = 8192;

describe('file verdicts from the core', () => {
  let w: Wasm;
  let memory: WebAssembly.Memory;
  beforeAll(async () => {
    w = await import('../../web/pkg/pgpage_wasm.js');
    memory = w.initSync({ module: readFileSync(join(root, 'web/pkg/pgpage_wasm_bg.wasm')) }).memory;
  });

  const scan = (file: Uint8Array, segno: number) => new w.FileScanJs(file.subarray(0, w.detect_head_bytes()), file.length, segno, 0, '', true);
  const summary = (v: FileVerdictJs) => ({
    json: JSON.parse(v.json) as Record<string, unknown>,
    block: [...v.block],
    status: [...v.status],
    computed: [...v.computed],
    misplaced: [...v.misplaced_block],
    kind: [...v.misplaced_kind],
    codes: [...v.finding_codes],
    start: [...v.finding_start],
  });

  it('merges parts in any order into one verdict, claims the swapped pages and names the short read', () => {
    const mixed = readFileSync(join(root, 'tests/fixtures/verify/heap_mixed/16427'));
    const file = new Uint8Array(mixed.length + 1234);
    file.set(mixed);
    const one = scan(file, 0);
    expect([...one.chunk(file, 0)].length).toBe(12);
    const whole = summary(one.finish(0, 'base/5/16427'));
    // Two workers, each a part; the second's state crosses as bytes, the input buffer way.
    const a = scan(file, 0);
    const b = scan(file, 0);
    a.chunk(file.subarray(5 * BS, 12 * BS), 5);
    const at = b.reserve_input(5 * BS);
    new Uint8Array(memory.buffer, at, 5 * BS).set(file.subarray(0, 5 * BS));
    expect([...b.chunk_input(5 * BS, 0)]).toEqual([0, 1, 1, 1, 1]);
    const merged = w.FileScanJs.import(b.export());
    merged.merge(a.export());
    expect(summary(merged.finish(0, 'base/5/16427'))).toEqual(whole);

    const findings = JSON.parse(w.findings_table()) as { code: string }[];
    const codes = (i: number) => whole.codes.slice(whole.start[i], whole.start[i + 1]).map((c) => findings[c].code);
    const at10 = whole.block.indexOf(10);
    const at11 = whole.block.indexOf(11);
    expect([whole.misplaced[at10], whole.kind[at10], whole.misplaced[at11], whole.kind[at11]]).toEqual([11, 1, 10, 1]);
    expect(codes(at10)).toContain('misplaced_by_tuple_ids');
    expect(whole.json.findings).toEqual([
      {
        code: 'read_short',
        block: 12,
        bytes: 1234,
        block_size: 8192,
        evidence: 'server',
        message: 'could not read block 12 in file "base/5/16427": read only 1234 of 8192 bytes',
      },
      // The fixture's block 7 is all zeros (expected.json: `zero`) and heap pages follow it.
      {
        code: 'zero_page_between_rows',
        block: 7,
        pages: 1,
        evidence: 'note',
        message:
          "block 7: all-zero page between pages with rows: the server reads it as an empty new page, without an error; relation extension leaves such pages (several at a time under concurrent inserts and bulk loads, more from PostgreSQL 16 on), and then nothing is lost, but otherwise rows stored there would be gone: the table's indexes tell which (pgpage report), and a backup or WAL image may hold them",
      },
    ]);
    expect(whole.json.problem).toBe(true);
  });

  it('names a misnamed segment once and judges a checksum-less file by its headers', () => {
    const seg2 = new Uint8Array(readFileSync(join(root, 'public/samples/16427.2')));
    const s = scan(seg2, 2);
    s.chunk(seg2, 0);
    const v = summary(s.finish(0, 'base/5/16427.2'));
    expect(v.json.findings).toMatchObject([{ code: 'written_as_segment', segno: 0, pages: 4 }]);
    expect(v.kind).toEqual([0, 0, 0, 0]);

    const off = new Uint8Array(readFileSync(join(root, 'public/samples/16427')));
    const view = new DataView(off.buffer);
    for (let b = 0; b < 4; b++) view.setUint16(b * BS + 8, 0, true);
    view.setUint16(2 * BS + 12, 9000, true);
    const o = scan(off, 0);
    expect([...o.chunk(off, 0)]).toEqual([1, 1, 1, 1]);
    const vo = summary(o.finish(0, 'base/5/16427'));
    expect(vo.json.checksums_disabled).toBe(true);
    expect(vo.json.counts).toEqual({ ok: 3, mismatch: 0, zero: 0, new_not_zero: 0, bad_header: 1 });
    expect([vo.block, vo.status, vo.computed]).toEqual([[2], [4], [0]]);
  });

  it('filters folders and parses names as the core does', () => {
    expect([...w.folder_filter(['pgdata/base/1/1259', 'pgdata/pg_xact/0001', 'copies/pg_xact/0001', 'copies/notes.txt'])]).toEqual([1, 0, 1, 0]);
    expect(w.relation_directory('data/base/16384/16385.1')).toBe('base/16384');
    expect(w.relation_directory('16385')).toBeUndefined();
    expect(JSON.parse(w.relation_file_name('base/5/16385_vm.3')!)).toEqual({ relfilenode: 16385, fork: 'vm', segno: 3 });
    expect(w.relation_file_name('pg_control')).toBeUndefined();
    expect(() => w.file_geometry(new Uint8Array(100).fill(0x55), undefined, undefined, false)).toThrow(/not a relation file/);
  });

  it('gives the page its tables: status names in code order, problems, block sizes, the checksum finish', () => {
    // The status names of docs/contracts.md ("Page status"), and the server's refusals among them.
    const names = w.status_names();
    expect(names).toEqual(['ok', 'mismatch', 'zero', 'new_not_zero', 'bad_header']);
    expect([...w.problem_statuses()].map((c) => names[c])).toEqual(['mismatch', 'new_not_zero', 'bad_header']);
    // configure's --with-blocksize choices.
    expect([...w.block_sizes()]).toEqual([1024, 2048, 4096, 8192, 16384, 32768]);
    // The lab's trials: a page's fold finished as any block is the oracle's checksum there.
    const page = new Uint8Array(readFileSync(join(root, 'public/samples/16427'))).subarray(0, BS);
    const v = w.verify(page, 0, BS, false);
    const fold = v.fold;
    v.free();
    for (const blkno of [0, 1, 7, 131072, 0xfffffffe]) expect(w.checksums_at(fold, blkno)[0]).toBe(pgChecksumPage(page, blkno));
  });
});
