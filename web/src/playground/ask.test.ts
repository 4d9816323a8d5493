import { describe, expect, it } from 'vitest';
import type { DecodedColumns } from '../lib/spans';
import { compareAnswer, pageinspectFunctions, pageinspectSql, type AskPage } from './ask';

const decoded = (d: Partial<DecodedColumns>): DecodedColumns => ({
  kind: 'heap',
  items_counted: true,
  header: {},
  flag_names: [],
  items: [],
  special: null,
  not_tuples: [],
  ...d,
});

describe('Ask PostgreSQL', () => {
  it('asks every function of the access method, one column each', () => {
    const q: AskPage = { kind: 'gin', block: 0, fork: 'main', relation: 16400 };
    expect(pageinspectFunctions(q)).toEqual(['page_header', 'gin_metapage_info', 'gin_page_opaque_info', 'gin_leafpage_items']);
    const sql = pageinspectSql(q);
    for (const fn of pageinspectFunctions(q)) expect(sql).toContain(` as ${fn}`);
    // Without a relation the live functions are not asked: their answer would be another page's.
    expect(pageinspectSql({ kind: 'btree', block: 0, fork: 'main', relation: null })).not.toContain('bt_metap(');
  });

  it('one verdict per field, agree or differ, with pd_checksum unsigned', () => {
    const q: AskPage = { kind: 'heap', block: 0, fork: 'main', relation: 1 };
    const ours = decoded({ header: { lsn: '0/1', checksum: 40000 }, items: [{ lp: 1, t_xmax: '0' }] });
    const v = compareAnswer(q, ours, { same_page: true, page_header: { lsn: '0/1', checksum: 40000 - 65536 }, heap_page_items: [{ lp: 1, t_xmax: '7' }] });
    expect(v.fields.map((f) => [f.fn, f.field, f.agree])).toEqual([
      ['page_header', 'lsn', true],
      ['page_header', 'checksum', true],
      ['heap_page_items', 'rows', true],
      ['heap_page_items', 'item 1.lp', true],
      ['heap_page_items', 'item 1.t_xmax', false],
    ]);
  });

  it("says why a relation's function is silent when the server's page moved on", () => {
    const q: AskPage = { kind: 'btree', block: 0, fork: 'main', relation: 1 };
    const v = compareAnswer(q, decoded({ kind: 'btree' }), { same_page: false, page_header: {}, bt_metap: null, bt_page_stats: null, bt_page_items: null });
    expect(v.silent.find((s) => s.fn === 'bt_metap')?.why).toMatch(/no longer these bytes/);
    expect(v.silent.find((s) => s.fn === 'bt_page_items')?.why).toBe('not for this page');
  });

  it('visibility map bits per heap block', () => {
    const q: AskPage = { kind: 'vm', block: 0, fork: 'vm', relation: 1 };
    const ours = decoded({ kind: 'vm', header: { checksum: 5 }, special: { all_visible: [0, 2], all_frozen: [2] } });
    const v = compareAnswer(q, ours, {
      same_page: true,
      page_header: { checksum: 5 },
      pg_visibility_map: [
        { blkno: 0, all_visible: true, all_frozen: false },
        { blkno: 1, all_visible: true, all_frozen: false },
      ],
    });
    expect(v.fields.filter((f) => !f.agree).map((f) => f.field)).toEqual(['heap block 1.all_visible']);
  });

  it('brin_page_items field by field; a summary pgpage does not print is said, not compared', () => {
    const q: AskPage = { kind: 'brin', block: 2, fork: 'main', relation: 1 };
    const row = (itemoffset: number, value: string | null) => ({
      itemoffset,
      blknum: 0,
      attnum: 1,
      allnulls: false,
      hasnulls: false,
      placeholder: false,
      empty: false,
      value,
    });
    const ours = decoded({
      kind: 'brin',
      items: [row(1, '{1 .. 9}'), { ...row(2, null), value_not_decoded: 'bloom summaries (pg_brin_bloom_summary) are not decoded' }],
    });
    const v = compareAnswer(q, ours, { same_page: true, page_header: {}, brin_page_items: [row(1, '{1 .. 10}'), row(2, '{mode: hashed}')] });
    expect(v.fields.filter((f) => f.fn === 'brin_page_items' && !f.agree).map((f) => f.field)).toEqual(['item 1.value']);
    expect(v.fields.some((f) => f.field === 'item 2.value')).toBe(false);
    expect(v.notes).toEqual(['brin_page_items value: bloom summaries (pg_brin_bloom_summary) are not decoded']);
    // Without the index's columns: the line pointers against the tuples' offsets.
    const lines = compareAnswer(q, decoded({ kind: 'brin', items: [{ lp: 1, lp_off: 8000, lp_flags: 1, lp_len: 16 }] }), {
      same_page: true,
      page_header: {},
      brin_page_items: [row(1, '{1 .. 10}')],
    });
    expect(lines.fields.filter((f) => f.fn === 'brin_page_items').map((f) => [f.field, f.agree])).toEqual([['itemoffset', true]]);
  });
});
