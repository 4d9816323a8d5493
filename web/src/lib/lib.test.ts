import { beforeAll, describe, expect, it } from 'vitest';
import { namesOf, summaryState, newEntry } from '../files';
import type { Wasm } from '../core';
import { checksumWords, hexdumpC, pgBasebackupLine, pgChecksumsLine, relpathOf, serverLines, signedInt2 } from './messages';
import { byteToSpan } from './spans';
import { wasmFromDisk } from '../core/disk';

describe('file names, as the core reads them', () => {
  let w: Wasm;
  beforeAll(async () => {
    w = await wasmFromDisk();
  });
  it('an entry takes its name and directory from the core', () => {
    expect(namesOf(w, 'pgdata/base/16384/16385_vm.3')).toEqual({ rel: { relfilenode: 16385, fork: 'vm', segment: 3 }, relDir: 'base/16384' });
    expect(namesOf(w, 'copies/pg_control')).toEqual({ rel: null, relDir: null });
    const e = newEntry(new File([], '16385.2'), 'base/5/16385.2', undefined, namesOf(w, 'base/5/16385.2'), 2);
    expect([e.segment, e.fork, e.relDir, e.checksums]).toEqual([2, 'main', 'base/5', 2]);
  });
});

describe('messages', () => {
  let w: Wasm;
  beforeAll(async () => {
    w = await wasmFromDisk();
  });
  it('formats checksums the three ways', () => {
    expect(signedInt2(0xffff)).toBe(-1);
    expect(signedInt2(0x7fff)).toBe(32767);
    expect(checksumWords(40000)).toBe('40000 (0x9C40, int2 -25536)');
  });
  it("writes PostgreSQL lines, in the core's words", () => {
    expect(pgChecksumsLine(w, 'base/5/16385', 3, 0xabc, 0x1f)).toBe(
      'pg_checksums: error: checksum verification failed in file "base/5/16385", block 3: calculated checksum ABC but block contains 1F',
    );
    expect(serverLines(w, 'base/5/16385', 131075, 'mismatch', 2748, 31)).toBe(
      'WARNING:  page verification failed, calculated checksum 2748 but expected 31\nERROR:  invalid page in block 131075 of relation base/5/16385',
    );
    expect(serverLines(w, 'base/5/16385_fsm', 2, 'new_not_zero', null, 0)).toBe('ERROR:  invalid page in block 2 of relation base/5/16385_fsm');
    // PostgreSQL 18: the checksum failure is a LOG line the client does not see; the path is quoted.
    expect(serverLines(w, 'base/5/16385', 3, 'mismatch', 2748, 31, 18)).toBe('ERROR:  invalid page in block 3 of relation "base/5/16385"');
    expect(serverLines(w, 'base/5/16385', 3, 'mismatch', 2748, 31, 17)).toMatch(/^WARNING: {2}page verification failed/);
    expect(pgBasebackupLine(w, 'base/5/16385.1', 3, 0xabc, 0x1f)).toBe(
      'WARNING:  checksum verification failed in file "./base/5/16385.1", block 3: calculated ABC but expected 1F',
    );
    expect(relpathOf('base/5', 16385, 'vm')).toBe('base/5/16385_vm');
  });
  it('writes hexdump -C, folding repeats', () => {
    const b = new Uint8Array(64);
    b.set([0x41, 0x42, 0x00, 0xff], 0);
    expect(hexdumpC(b, 0x2000)).toBe(
      '00002000  41 42 00 ff 00 00 00 00  00 00 00 00 00 00 00 00  |AB..............|\n' +
        '00002010  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n' +
        '*\n' +
        '00002040\n',
    );
    expect(hexdumpC(Uint8Array.from([0x61, 0x62, 0x63]))).toBe('00000000  61 62 63                                          |abc|\n00000003\n');
  });
});

describe('spans', () => {
  it('maps bytes to spans', () => {
    const spans = [
      { start: 0, len: 8, field: 'pd_lsn', qualified: 'PageHeaderData.pd_lsn', role: 'header', doc: '', value: '0/0' },
      { start: 8, len: 2, field: 'pd_checksum', qualified: 'PageHeaderData.pd_checksum', role: 'header', doc: '', value: '0' },
    ];
    const map = byteToSpan(spans, 12);
    expect(Array.from(map)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 1, 1, -1, -1]);
  });
});

describe('state', () => {
  it('summary state follows the files', () => {
    expect(summaryState([])).toBe('idle');
    const a = newEntry(new File([new Uint8Array(8192)], '16385'), '16385');
    const b = newEntry(new File([], '16386'), '16386');
    expect(summaryState([a, b])).toBe('running');
    a.state = 'done';
    b.state = 'error';
    expect(summaryState([a, b])).toBe('done');
    a.state = 'error';
    expect(summaryState([a, b])).toBe('error');
  });
});
