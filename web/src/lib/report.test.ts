// The Markdown report of a real page: a PostgreSQL-made fixture (tests/fixtures/btree_leaf,
// with pageinspect's answers) with one byte flipped, decoded by the core's wasm build as the
// app does. Checksums come from the independent oracle, header values from pageinspect, and
// the hexdump -C rows from a formatting written here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { pgChecksumPage } from '../../../tests/oracle/pgchecksum';
import { reportPage, type PagePlace } from '../share/page';
import { blockRanges, cell, clusterLine, firstDifference, markdownReport, markdownReportAll, plural, type FileSummary, type ProblemRow } from './report';

import type { Wasm } from '../core';
import { wasmFromDisk } from '../core/disk';

const fixture = join(__dirname, '../../../tests/fixtures/btree_leaf');
const original = new Uint8Array(readFileSync(join(fixture, 'page.bin')));
const expected = JSON.parse(readFileSync(join(fixture, 'expected.json'), 'utf8')) as {
  block: number;
  checksum: number;
  header: Record<string, string | number>;
};
const place: PagePlace = {
  path: 'base/16384/16390',
  relpath: 'base/16384/16390',
  segment: 0,
  fork: 'main',
  block: expected.block,
  blockSize: 8192,
  fileBlocks: 2,
  bigEndian: false,
};
const summary: FileSummary = { blocks: 2, counts: { ok: 1, mismatch: 1, zero: 0, new_not_zero: 0, bad_header: 0 }, pending: 0 };
const FLIPPED = 4000;

const hex4 = (v: number) => v.toString(16).toUpperCase().padStart(4, '0');
const int2 = (v: number) => (v > 32767 ? v - 65536 : v);

/** One `hexdump -C` row of `page` at page offset `at`, as hexdump prints it. */
function hexdumpRow(page: Uint8Array, at: number, fileOffset: number): string {
  const b = Array.from(page.subarray(at, at + 16));
  const h = b.map((x) => x.toString(16).padStart(2, '0'));
  const ascii = b.map((c) => (c >= 32 && c < 127 ? String.fromCharCode(c) : '.')).join('');
  return `${fileOffset.toString(16).padStart(8, '0')}  ${h.slice(0, 8).join(' ')}  ${h.slice(8).join(' ')}  |${ascii}|`;
}

let wasm: Wasm;
beforeAll(async () => {
  // The built bindings (npm run build), loaded from disk as under Node.
  wasm = await wasmFromDisk();
});

describe('Markdown report', () => {
  it('lists the single-bit flips that make the checksum valid, the true one among them, with its repair command', () => {
    // The fixture's own checksum is valid (the oracle's), so flipping the bit back is a candidate.
    expect(pgChecksumPage(original, expected.block)).toBe(expected.checksum);
    const damaged = original.slice();
    damaged[FLIPPED] ^= 1 << 2;
    const md = markdownReport(reportPage(wasm, damaged, place), summary, '9.9.9-test');
    expect(md).toContain('### Single-bit flips that make the checksum valid');
    expect(md).toContain('evidence, not proof');
    expect(md).toMatch(
      new RegExp(`^\\d+\\. byte ${FLIPPED} bit 2 .*\`pgpage repair --block ${expected.block} --flip ${FLIPPED}:2 --out NEW base/16384/16390\`$`, 'm'),
    );
    // An undamaged page has none.
    expect(markdownReport(reportPage(wasm, original, place), summary, '9.9.9-test')).not.toContain('Single-bit flips');
  });

  it('reports a damaged page with the oracle checksum, pageinspect header, both messages and hexdump rows', () => {
    const damaged = original.slice();
    damaged[FLIPPED] ^= 0xff;
    const stored = expected.checksum;
    const computed = pgChecksumPage(damaged, expected.block);
    expect(computed).not.toBe(stored);
    const diff = firstDifference(original, damaged);
    expect(diff).toEqual({ start: FLIPPED, end: FLIPPED + 1 });
    const page = { ...reportPage(wasm, damaged, place), damage: { ...diff!, why: 'differs from the copy on the standby' } };
    const md = markdownReport(page, summary, '9.9.9-test');

    expect(md).toContain(`**Status:** mismatch`);
    expect(md).toContain(`relation-wide block ${expected.block}`);
    expect(md).not.toContain('**Relation:**');
    // With the catalogs' name of the relation, the report says which table the file is.
    const named = markdownReport({ ...page, relation: 'shop / public.orders_pkey (index of public.orders)' }, summary, '9.9.9-test');
    expect(named).toContain('- **Relation:** `shop / public.orders_pkey (index of public.orders)`');
    // Stored and computed in decimal, hex and pageinspect's signed int2 (56814 is -8722).
    expect(int2(stored)).toBeLessThan(0);
    expect(md).toContain(`**Stored checksum** (pd_checksum): ${stored} (0x${hex4(stored)}, int2 ${int2(stored)})`);
    expect(md).toContain(`): ${computed} (0x${hex4(computed)}, int2 ${int2(computed)})`);
    expect(md).toContain(
      `pg_checksums: error: checksum verification failed in file "base/16384/16390", block ${expected.block}: calculated checksum ${computed.toString(16).toUpperCase()} but block contains ${stored.toString(16).toUpperCase()}`,
    );
    expect(md).toContain(
      `WARNING:  page verification failed, calculated checksum ${computed} but expected ${stored}\nERROR:  invalid page in block ${expected.block} of relation base/16384/16390`,
    );

    // Every page_header() column, with pageinspect's value for these bytes.
    const fields: Record<string, string> = {
      lsn: 'pd_lsn',
      flags: 'pd_flags',
      lower: 'pd_lower',
      upper: 'pd_upper',
      special: 'pd_special',
      pagesize: 'pd_pagesize_version',
      version: 'pd_pagesize_version',
      prune_xid: 'pd_prune_xid',
    };
    for (const [column, field] of Object.entries(fields)) expect(md).toContain(`| ${column} | ${field} | ${expected.header[column]} |`);
    expect(md).toContain(
      `| checksum | pd_checksum | ${expected.header.checksum} (0x${hex4(Number(expected.header.checksum))}, int2 ${int2(Number(expected.header.checksum))}) |`,
    );

    // The header rows, then rows around the flipped byte, at file offsets.
    const base = expected.block * 8192;
    const head = [0, 16, 32, 48].map((r) => hexdumpRow(damaged, r, base + r));
    expect(md).toContain(['```', `$ hexdump -C -s ${base} -n 64 base/16384/16390`, ...head, (base + 64).toString(16).padStart(8, '0'), '```'].join('\n'));
    const from = Math.floor(FLIPPED / 16) * 16 - 32;
    const around = [0, 16, 32, 48, 64].map((r) => hexdumpRow(damaged, from + r, base + from + r));
    expect(md).toContain(
      ['```', `$ hexdump -C -s ${base + from} -n 80 base/16384/16390`, ...around, (base + from + 80).toString(16).padStart(8, '0'), '```'].join('\n'),
    );
    expect(around[2]).toContain((damaged[FLIPPED] ?? 0).toString(16).padStart(2, '0'));
    expect(md).toContain('Around page offset 4000: differs from the copy on the standby.');

    expect(md).toContain('`base/16384/16390`: 2 blocks: 1 ok (checksum OK), 1 mismatch (checksum mismatch).');
    expect(md).toContain('pgpage 9.9.9-test');
    expect(md).toMatch(/nothing was uploaded/);
  });

  it('says the damage could be anywhere when only the checksum tells', () => {
    const damaged = original.slice();
    damaged[FLIPPED] ^= 0x01;
    const page = reportPage(wasm, damaged, place);
    expect(page.damage).toBeNull();
    const md = markdownReport(page, summary, '9.9.9-test');
    expect(md).toContain('the damage can be anywhere in its 8192 bytes');
    expect(md.match(/\$ hexdump -C/g)).toHaveLength(1);
  });

  it('reports the intact page as fine, with the checksum pageinspect computed', () => {
    const page = reportPage(wasm, original.slice(), place);
    expect(page.status).toBe('ok');
    expect(page.computed).toBe(expected.checksum);
    const md = markdownReport(page, summary, '9.9.9-test');
    expect(md).toContain('Nothing: the server reads this page without complaint.');
    expect(md).not.toContain('pg_checksums: error');
  });

  it('says an all-zero page the core notes between rows as the page view does, never "fine"', () => {
    const zero = new Uint8Array(original.length);
    const page = reportPage(wasm, zero, place);
    expect(page.status).toBe('zero');
    const note = 'block 2: all-zero page between pages with rows: the server reads it as an empty new page; ... but rows stored there would be gone';
    const md = markdownReport({ ...page, zeroNote: note }, summary, '9.9.9-test');
    expect(md).toContain('- **Status:** zero — all-zero page between pages with rows: rows stored there would be gone');
    expect(md).toContain(`- **Note:** ${note}`);
    expect(md).not.toContain('(fine)');
    expect(markdownReport(page, summary, '9.9.9-test')).toContain('- **Status:** zero — all-zero new page, which the server reads as empty');
  });

  it('puts every problem page of every file in one post: a summary, pages in full, an appendix row each', () => {
    const flipped = original.slice();
    flipped[FLIPPED] ^= 0xff;
    // pd_upper = 0 on a page that is not all zeros: the server rejects it, pg_checksums skips it.
    const newNotZero = original.slice();
    newNotZero[14] = 0;
    newNotZero[15] = 0;
    const other = { ...place, path: 'base/16384/16391', relpath: 'base/16384/16391', block: 0 };
    const pages = [reportPage(wasm, flipped, place), reportPage(wasm, newNotZero, other)];
    expect(pages.map((p) => p.status)).toEqual(['mismatch', 'new_not_zero']);
    const zeroNote =
      'block 3: all-zero page between pages with rows: the server reads it as an empty new page, so any rows it held are gone; a backup or WAL image may hold them';
    const otherSummary: FileSummary = { blocks: 1, counts: { ok: 0, mismatch: 0, zero: 0, new_not_zero: 1, bad_header: 0 }, pending: 0, notes: [zeroNote] };
    // 464 mismatching pages in a big file, as in the issue: blocks 0-399 and 500-563.
    const big = [...Array(400).keys(), ...Array.from({ length: 64 }, (_, i) => 500 + i)];
    const rows: ProblemRow[] = [
      ...big.map((b) => ({ path: place.path, block: b, absoluteBlock: b, status: 'mismatch' as const, stored: 1, computed: 2, note: b === 7 ? 'a | b' : '' })),
      { path: other.path, block: 0, absoluteBlock: 0, status: 'new_not_zero', stored: 0, computed: null, note: '' },
    ];
    const md = markdownReportAll(
      rows,
      pages,
      [
        { path: place.path, summary },
        { path: other.path, summary: otherSummary },
      ],
      '9.9.9-test',
      'PostgreSQL 15 (PG_VERSION)',
      [{ path: other.path, block: 3, readAsEmpty: true }],
    );
    // Titled as what it is: the incident report is the one headline.
    expect(md.startsWith('# pgpage checksum inventory: 465 problem pages and 1 all-zero page read as empty in 2 files\n')).toBe(true);
    expect(md).toContain('the checksum evidence beside the incident report (`pgpage report`), which is the account of the damage');
    // The zeroed page the incident report counts is in the summary's table too.
    expect(md).toContain(
      '| `base/16384/16391` | zero (all-zero page between pages with rows: rows stored there would be gone; the incident report: read as empty, rows lost) | 1 | 3 |',
    );
    expect(md).toContain('Made by pgpage 9.9.9-test. PostgreSQL 15 (PG_VERSION).');
    expect(md).toContain('- `base/16384/16391`: 1 block: 1 new_not_zero (');
    // The core's notes on pages the server accepts, under their file.
    expect(md).toContain(`\n  - note: ${zeroNote}\n`);
    // The summary: one row per file and status, with block ranges, not one line per page.
    expect(md).toContain('| `base/16384/16390` | mismatch (checksum mismatch) | 464 | 0-399, 500-563 |');
    expect(md).toContain('| `base/16384/16391` | new_not_zero (');
    const summaryPart = md.slice(0, md.indexOf('## Pages in detail'));
    expect(summaryPart.split('\n').length).toBeLessThan(20);
    expect(md).toContain('In full: the first 2 problem pages of 465; every one is in the appendix.');
    const sections = md.split(/^### /m).slice(1);
    expect(sections.map((x) => x.split('\n')[0])).toEqual(['`base/16384/16390`, block 1', '`base/16384/16391`, block 0']);
    expect(sections[0]).toContain(`calculated checksum ${pgChecksumPage(flipped, expected.block).toString(16).toUpperCase()} but block contains`);
    expect(sections[1]).toContain('ERROR:  invalid page in block 0 of relation base/16384/16391');
    expect(sections[1]).toContain('`pg_checksums --check` does not report it');
    expect(sections[1]).toContain('| upper | pd_upper | 0 |');
    // The appendix: every page, one table row each, a | in a note escaped.
    const appendix = md.slice(md.indexOf('## Appendix: every problem page'));
    expect(appendix.split('\n').filter((l) => l.startsWith('| `'))).toHaveLength(465);
    expect(appendix).toContain('| `base/16384/16390` | 7 | 7 | mismatch | 1 | 2 | a \\| b |');
    expect(appendix).toContain('| `base/16384/16391` | 0 | 0 | new_not_zero | 0 | — |  |');
    expect(md.match(/Produced locally by pgpage 9\.9\.9-test/g)).toHaveLength(1);
  });

  it("decodes a heap page whose pd_upper was zeroed as its file's kind, as the page view does", () => {
    // pageinspect still lists such a page's tuples; the report must not call it `unknown`.
    const heap = new Uint8Array(readFileSync(join(__dirname, '../../../tests/fixtures/heap_hot_redirect/page.bin')));
    heap[14] = 0;
    heap[15] = 0;
    const at: PagePlace = { ...place, path: 'base/5/16400', relpath: 'base/5/16400', block: 0, fileBlocks: 1 };
    expect(reportPage(wasm, heap, at).kind).toBe('unknown');
    const page = reportPage(wasm, heap, { ...at, fileKind: 'heap' });
    expect(page.kind).toBe('heap');
    expect(page.header.upper).toBe(0);
    expect(Number(page.header.lower)).toBeGreaterThan(24);
  });

  it('escapes | in table cells so pd_flags names keep the header table whole', () => {
    const page = {
      ...reportPage(wasm, original.slice(), place),
      header: { ...reportPage(wasm, original.slice(), place).header, flags: 5 },
      flagNames: ['PD_HAS_FREE_LINES', 'PD_ALL_VISIBLE'],
    };
    const md = markdownReport(page, summary, '9.9.9-test');
    const row = md.split('\n').find((l) => l.startsWith('| flags |'))!;
    expect(row).toBe('| flags | pd_flags | 5 (PD_HAS_FREE_LINES \\| PD_ALL_VISIBLE) |');
    // Three cells: the unescaped pipes are the row's own.
    expect(row.split(/(?<!\\)\|/).length - 2).toBe(3);
    expect(cell('a|b\nc')).toBe('a\\|b c');
  });

  it('says 1 file, 2 files, and names the cluster and platform when known', () => {
    expect(plural(1, 'file')).toBe('1 file');
    expect(plural(2, 'file')).toBe('2 files');
    expect(plural(0, 'block')).toBe('0 blocks');
    const one: FileSummary = { blocks: 1, counts: { ok: 1, mismatch: 0, zero: 0, new_not_zero: 0, bad_header: 0 }, pending: 0 };
    const md = markdownReport(
      { ...reportPage(wasm, original.slice(), place), cluster: 'PostgreSQL 15 (PG_VERSION), little-endian, 8192-byte pages' },
      one,
      '9.9.9-test',
    );
    expect(md).toContain('`base/16384/16390`: 1 block: 1 ok');
    expect(md).toContain('- **Cluster:** PostgreSQL 15 (PG_VERSION), little-endian, 8192-byte pages');
    expect(md).toContain('pgpage 9.9.9-test');
    expect(
      clusterLine({
        pgVersion: 15,
        control: { pg_control_version: 1300, catalog_version_no: 202209061, releases: '13-16', max_data_alignment: 8, data_page_checksum_version: 1 },
        bigEndian: false,
        blockSize: 8192,
      }),
    ).toBe(
      'PostgreSQL 15 (PG_VERSION), pg_control version 1300 (written by 13-16), catalog version 202209061, MAXALIGN 8, data checksum version 1, little-endian, 8192-byte pages',
    );
    expect(clusterLine({ pgVersion: null, control: null, bigEndian: true, blockSize: 4096 })).toBe(
      'PostgreSQL version unknown (no PG_VERSION dropped), big-endian, 4096-byte pages',
    );
    expect(blockRanges([5, 1, 2, 3, 9, 10])).toBe('1-3, 5, 9-10');
  });

  it('finds the first differing run', () => {
    expect(firstDifference(new Uint8Array([1, 2, 3, 4]), new Uint8Array([1, 9, 9, 4]))).toEqual({ start: 1, end: 3 });
    expect(firstDifference(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBeNull();
    expect(firstDifference(new Uint8Array([1, 2]), new Uint8Array([1, 2, 3]))).toEqual({ start: 2, end: 3 });
  });
});
