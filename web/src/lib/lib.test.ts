import { describe, expect, it } from 'vitest';
import { folderFilter, mergeByBlock, summaryState, newEntry } from '../files';
import type { ProblemPage } from '../worker/protocol';
import { isSkippedDataDirFile, parseRelationFileName, relationDirectory } from './filename';
import { checksumWords, hexdumpC, pgBasebackupLine, pgChecksumsLine, relpathOf, serverLines, signedInt2 } from './messages';
import { byteToSpan } from './spans';

describe('relation file names', () => {
  it('parses segment and fork', () => {
    expect(parseRelationFileName('16385')).toEqual({ relfilenode: 16385, fork: 'main', segment: 0 });
    expect(parseRelationFileName('16385.2')).toEqual({ relfilenode: 16385, fork: 'main', segment: 2 });
    expect(parseRelationFileName('16385_fsm')).toEqual({ relfilenode: 16385, fork: 'fsm', segment: 0 });
    expect(parseRelationFileName('16385_vm.3')).toEqual({ relfilenode: 16385, fork: 'vm', segment: 3 });
    expect(parseRelationFileName('base/5/16385_init')).toEqual({ relfilenode: 16385, fork: 'init', segment: 0 });
    // pg_checksums reads the segment with atoi(), so a leading zero still names segment 2.
    expect(parseRelationFileName('16385.02')).toEqual({ relfilenode: 16385, fork: 'main', segment: 2 });
  });
  it('rejects what is not a relation file', () => {
    for (const n of ['pg_control', 'PG_VERSION', '16385.0', '16385_xyz', 'x16385', '', '0', '16385.', '99999999999'])
      expect(parseRelationFileName(n), n).toBeNull();
  });
  it('finds the database directory and the skip list', () => {
    expect(relationDirectory('data/base/16384/16385.1')).toBe('base/16384');
    expect(relationDirectory('global/1262')).toBe('global');
    expect(relationDirectory('16385')).toBeNull();
    expect(isSkippedDataDirFile('global/pg_control')).toBe(true);
    expect(isSkippedDataDirFile('base/5/pg_internal.init')).toBe(true);
    expect(isSkippedDataDirFile('base/5/t3_16385')).toBe(true);
    expect(isSkippedDataDirFile('base/5/16385')).toBe(false);
  });
  it('keeps from a data directory only what pg_checksums scans, from other folders every relation file', () => {
    const data = ['pgdata/base/1/1259', 'pgdata/global/1262', 'pgdata/global/pg_control', 'pgdata/pg_xact/0001',
      'pgdata/pg_multixact/offsets/0002', 'pgdata/pg_tblspc/16400/PG_15_202209061/5/16401.1', 'pgdata/16385'];
    const copies = ['copies/16385', 'copies/16385_fsm', 'copies/pg_xact/0001', 'copies/notes.txt'];
    const keep = folderFilter([...data, ...copies]);
    expect([...data, ...copies].filter(keep)).toEqual([
      'pgdata/base/1/1259', 'pgdata/global/1262', 'pgdata/pg_tblspc/16400/PG_15_202209061/5/16401.1',
      'copies/16385', 'copies/16385_fsm', 'copies/pg_xact/0001',
    ]);
    // A database directory dropped on its own is not a data directory: all its files count.
    expect(['16384/16385', '16384/pg_filenode.map'].filter(folderFilter(['16384/16385', '16384/pg_filenode.map']))).toEqual(['16384/16385']);
  });
});

describe('messages', () => {
  it('formats checksums the three ways', () => {
    expect(signedInt2(0xffff)).toBe(-1);
    expect(signedInt2(0x7fff)).toBe(32767);
    expect(checksumWords(40000)).toBe('40000 (0x9C40, int2 -25536)');
  });
  it('writes PostgreSQL lines', () => {
    expect(pgChecksumsLine('base/5/16385', 3, 0xabc, 0x1f)).toBe(
      'pg_checksums: error: checksum verification failed in file "base/5/16385", block 3: calculated checksum ABC but block contains 1F',
    );
    expect(serverLines('base/5/16385', 131075, 'mismatch', 2748, 31)).toBe(
      'WARNING:  page verification failed, calculated checksum 2748 but expected 31\nERROR:  invalid page in block 131075 of relation base/5/16385',
    );
    expect(serverLines('base/5/16385_fsm', 2, 'new_not_zero', null, 0)).toBe('ERROR:  invalid page in block 2 of relation base/5/16385_fsm');
    expect(pgBasebackupLine('base/5/16385.1', 3, 0xabc, 0x1f)).toBe(
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

describe('problem pages from regions read at once', () => {
  const page = (block: number): ProblemPage => ({ block, absoluteBlock: block, status: 'mismatch', stored: 1, computed: 2, matchesBlock: null });
  it('merge into block order, whatever order the regions report in', () => {
    const rand = (() => {
      let x = 7;
      return () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
    })();
    for (let trial = 0; trial < 50; trial++) {
      const blocks = Array.from({ length: 200 }, (_, i) => i).filter(() => rand() < 0.3);
      // Two regions, each reporting its own blocks in order, in messages of random sizes.
      const half = 100;
      const regions = [blocks.filter((b) => b < half), blocks.filter((b) => b >= half)];
      let list: ProblemPage[] = [];
      while (regions.some((r) => r.length > 0)) {
        const r = regions[rand() < 0.5 ? 0 : 1];
        const msg = r.splice(0, Math.floor(rand() * 5)).map(page);
        list = mergeByBlock(list, msg);
      }
      expect(list.map((p) => p.block)).toEqual(blocks);
    }
    const a = [page(1)];
    expect(mergeByBlock(a, [])).toBe(a);
  });
});
