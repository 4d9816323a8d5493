// The redaction binding and the exports it feeds, on pages PostgreSQL 15 wrote
// (tests/fixtures): which bytes are tuple data comes from pageinspect's lp_off, lp_len and
// t_hoff (heap_page_items) and bt_page_items' data in expected.json, never from the decoder
// the core's rule reads.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { hexdumpC } from '../lib/messages';
import { markdownReport, type FileSummary } from '../lib/report';
import { reportPage, type PagePlace } from './page';
import { maskCopy, pageHexdump, redactionOf, redactOn, setRedact } from './redact';

import type { Wasm } from '../core';
import { wasmFromDisk } from '../core/disk';

interface HeapItem {
  lp_off: number;
  lp_len: number;
  t_hoff: number | null;
  t_data: string | null;
}

const fixtures = join(__dirname, '../../../tests/fixtures');
const load = (name: string) => ({
  page: new Uint8Array(readFileSync(join(fixtures, name, 'page.bin'))),
  expected: JSON.parse(readFileSync(join(fixtures, name, 'expected.json'), 'utf8')) as {
    block: number;
    header: { lower: number; special: number };
    items: unknown[];
  },
});

let wasm: Wasm;
beforeAll(async () => {
  wasm = await wasmFromDisk();
});

describe('redact_page', () => {
  it('masks every tuple-data byte pageinspect shows and keeps header, line pointers and tuple headers', () => {
    for (const name of ['heap_nulls_frozen', 'heap_hot_redirect']) {
      const { page, expected } = load(name);
      const r = redactionOf(wasm, page, expected.block, false, 'main');
      expect(r.mask.length).toBe(page.length);
      let data = 0;
      for (const it of expected.items as HeapItem[]) {
        if (it.t_hoff === null) continue;
        const start = it.lp_off + it.t_hoff;
        const end = it.lp_off + it.lp_len;
        expect(Array.from(r.mask.subarray(it.lp_off, start)).every((m) => m === 0)).toBe(true);
        expect(Array.from(r.mask.subarray(start, end)).every((m) => m === 1)).toBe(true);
        data += end - start;
      }
      expect(r.tupleData).toBe(data);
      expect(Array.from(r.mask.subarray(0, expected.header.lower)).every((m) => m === 0)).toBe(true);
      expect(r.mask.reduce((n, m) => n + m, 0)).toBe(r.tupleData + r.other);
      expect(r.note).toBe(
        `row data redacted: ${data} bytes of tuple data masked (${r.other} more of free space and unused bytes that may hold old rows); headers, line pointers, tuple headers and checksums kept`,
      );
    }
  });

  it('masks nothing of an FSM page and names the value columns', () => {
    const { page, expected } = load('fsm_leaf');
    const r = redactionOf(wasm, page, expected.block, false, 'fsm');
    expect(r.tupleData + r.other).toBe(0);
    expect(wasm.is_row_data_column('t_data')).toBe(true);
    expect(wasm.is_row_data_column('t_ctid')).toBe(false);
  });
});

describe('redacted exports', () => {
  const { page, expected } = load('heap_nulls_frozen');
  const items = expected.items as HeapItem[];

  it('hexdump -C: masked bytes as xx and ·, the other rows as hexdump prints them, the note first', () => {
    const r = redactionOf(wasm, page, expected.block, false, 'main');
    const text = pageHexdump(page, 8192, 0, page.length, r);
    const [note, ...rows] = text.split('\n');
    expect(note).toBe(r.note);
    const plain = hexdumpC(page, 8192).split('\n');
    // The page header and line pointers (offsets below pd_lower) print unchanged.
    for (let row = 0; row < Math.floor(expected.header.lower / 16); row++) expect(rows[row]).toBe(plain[row]);
    for (const it of items) {
      if (!it.t_data) continue;
      // pageinspect's t_data, as hexdump would print its first bytes, is nowhere.
      const head = it.t_data.slice(2, 18).replace(/(..)/g, '$1 ').trim();
      if (head.length >= 8) expect(text).not.toContain(head);
    }
    expect(rows.some((l) => l.includes('xx xx') && l.includes('··'))).toBe(true);
  });

  it('the Markdown report says it is redacted and dumps no tuple data', () => {
    const place: PagePlace = {
      path: 'base/5/16502',
      relpath: 'base/5/16502',
      segment: 0,
      fork: 'main',
      block: 0,
      blockSize: 8192,
      fileBlocks: 1,
      bigEndian: false,
    };
    const summary: FileSummary = { blocks: 1, counts: { ok: 1, mismatch: 0, zero: 0, new_not_zero: 0, bad_header: 0 }, pending: 0 };
    // A damaged tuple puts its bytes in the report's second excerpt.
    const it = items.find((x) => x.t_data)!;
    const at = it.lp_off + (it.t_hoff ?? 0);
    const shown = { ...reportPage(wasm, page, place, true), damage: { start: at, end: at + 1, why: 'test' } };
    const md = markdownReport(shown, summary, '9.9.9-test');
    expect(md).toContain(`- **Redacted:** ${shown.redaction!.note}`);
    expect(md).toContain('xx xx');
    expect(md).not.toContain(it.t_data!.slice(2, 18).replace(/(..)/g, '$1 ').trim());
    const plain = markdownReport({ ...reportPage(wasm, page, place), damage: shown.damage }, summary, '9.9.9-test');
    expect(plain).not.toContain('Redacted');
    expect(plain).toContain(it.t_data!.slice(2, 18).replace(/(..)/g, '$1 ').trim());
  });

  it('pg_filedump -fi text: the note under the banner, masked bytes as xx', () => {
    const text = wasm.filedump_fi_redacted('16502', page, 0, 0, false, 'main', undefined);
    expect(text).toMatch(/\* Options used: -f -i -R 0\n\*+\n\* row data redacted: \d+ bytes of tuple data masked/);
    expect(text).toContain('xxxxxxxx');
  });

  it('the PNG copy: hex cells and ASCII of masked bytes, row-data columns, tuple columns', () => {
    const r = redactionOf(wasm, page, expected.block, false, 'main');
    const it = items.find((x) => x.t_data)!;
    const row = Math.floor((it.lp_off + (it.t_hoff ?? 0)) / 16) * 16;
    const copy = document.createElement('section');
    const cells = Array.from(page.subarray(row, row + 16), (b, i) => `<span data-off="${row + i}">${b.toString(16).padStart(2, '0')}</span>`).join('');
    copy.innerHTML = `<div class="hexrow"><span class="hexoff">0</span><span class="hexbytes">${cells}</span><span class="hexascii">${'a'.repeat(16)}</span></div>
      <table><tr><td data-col="t_data">\\x0102</td><td data-col="t_ctid">(0,1)</td></tr></table>
      <section data-testid="tuple-columns">SECRET</section><p data-testid="hover">t_data = 3 bytes</p>`;
    maskCopy(copy, r, (c) => wasm.is_row_data_column(c));
    const masked = Array.from({ length: 16 }, (_, i) => r.mask[row + i] === 1);
    expect(masked.some(Boolean)).toBe(true);
    copy.querySelectorAll<HTMLElement>('[data-off]').forEach((c, i) => expect(c.textContent === 'xx').toBe(masked[i]));
    expect(copy.querySelector('.hexascii')!.textContent).toBe(masked.map((m) => (m ? '·' : 'a')).join(''));
    expect(copy.querySelector('[data-col=t_data]')!.textContent).toBe('redacted');
    expect(copy.querySelector('[data-col=t_ctid]')!.textContent).toBe('(0,1)');
    expect(copy.textContent).not.toContain('SECRET');
    expect(copy.querySelector('[data-testid=hover]')).toBeNull();
  });

  it('the switch is remembered for the session', () => {
    setRedact(true);
    expect(redactOn()).toBe(true);
    expect(sessionStorage.getItem('pgpage-redact')).toBe('on');
    setRedact(false);
    expect(sessionStorage.getItem('pgpage-redact')).toBe('off');
  });
});
