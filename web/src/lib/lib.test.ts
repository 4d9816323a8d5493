import { describe, expect, it } from 'vitest';
import { damagedFile, heapPage, rng, seal } from '../../../tests/oracle/pgchecksum';
import { summaryState, newEntry } from '../files';
import { isSkippedDataDirFile, parseRelationFileName, relationDirectory } from './filename';
import { detectBlockSize } from './geometry';
import { checksumWords, hexdumpC, pgBasebackupLine, pgChecksumsLine, relpathOf, serverLines, signedInt2 } from './messages';
import { byteToSpan, decodePage, PAGE_HEADER, SIZE_OF_PAGE_HEADER } from './spans';

describe('relation file names', () => {
  it('parses segment and fork', () => {
    expect(parseRelationFileName('16385')).toEqual({ relfilenode: 16385, fork: 'main', segment: 0 });
    expect(parseRelationFileName('16385.2')).toEqual({ relfilenode: 16385, fork: 'main', segment: 2 });
    expect(parseRelationFileName('16385_fsm')).toEqual({ relfilenode: 16385, fork: 'fsm', segment: 0 });
    expect(parseRelationFileName('16385_vm.3')).toEqual({ relfilenode: 16385, fork: 'vm', segment: 3 });
    expect(parseRelationFileName('base/5/16385_init')).toEqual({ relfilenode: 16385, fork: 'init', segment: 0 });
  });
  it('rejects what is not a relation file', () => {
    for (const n of ['pg_control', 'PG_VERSION', '16385.0', '16385.02', '16385_xyz', 'x16385', '', '0', '16385.', '99999999999'])
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
  it('page header table is sorted, contiguous and 24 bytes', () => {
    let at = 0;
    for (const r of PAGE_HEADER) {
      expect(r.offset).toBe(at);
      at += r.size;
    }
    expect(at).toBe(SIZE_OF_PAGE_HEADER);
  });
  it('every byte of a heap page belongs to exactly one span', () => {
    const p = seal(heapPage(8192, 7, rng(3)), 0);
    const d = decodePage(p);
    expect(d.kind).toBe('heap');
    expect(d.linePointers).toHaveLength(7);
    const map = byteToSpan(d.spans, 8192);
    expect(map.every((i) => i >= 0)).toBe(true);
    let at = 0;
    for (const s of d.spans) {
      expect(s.start).toBe(at);
      at += s.len;
    }
    expect(at).toBe(8192);
    expect(d.spans[map[8]].field).toBe('pd_checksum');
    expect(d.spans[map[9]].field).toBe('pd_checksum');
    expect(d.spans[map[24]].field).toBe('ItemIdData');
    const lp1 = d.linePointers[0];
    expect(d.spans[map[lp1.lp_off]]).toMatchObject({ field: 't_xmin', item: 1, role: 'tuple_header' });
  });
  it('decodes garbage without throwing and flags wild line pointers', () => {
    const r = rng(11);
    for (let i = 0; i < 200; i++) {
      const p = Uint8Array.from({ length: 8192 }, () => Math.floor(r() * 256));
      const d = decodePage(p, i % 2 === 0);
      expect(byteToSpan(d.spans, 8192).every((x) => x >= 0)).toBe(true);
    }
    const p = heapPage(8192, 2, r);
    new DataView(p.buffer).setUint32(24, 8000 | (1 << 15) | (1000 << 17), true);
    expect(decodePage(p).linePointers[0].flagged).toBe(true);
  });
});

describe('geometry and state', () => {
  it('detects the block size even when page 0 is damaged', () => {
    for (const bs of [1024, 4096, 8192, 16384]) {
      const f = damagedFile(5, 0, bs);
      expect(detectBlockSize(f.bytes.subarray(0, 65536), true)).toEqual({ blockSize: bs, how: 'detected' });
      const broken = f.bytes.slice(0, 65536);
      broken.fill(0xee, 0, 24);
      expect(detectBlockSize(broken, true).blockSize).toBe(bs);
    }
    expect(detectBlockSize(new Uint8Array(100), true)).toEqual({ blockSize: 8192, how: 'all-zero' });
    expect(detectBlockSize(new TextEncoder().encode('hello, this is not a relation file'), true).blockSize).toBeNull();
  });
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
