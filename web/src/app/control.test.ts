// A drop's pg_control: found where a data directory keeps it (or dropped loose), read with its
// PG_VERSION, decoded by the core; and which files its checksum version governs.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Wasm } from '../core';
import { blocksPerSegmentFor, checksumsFor, readControls, versionFor, type ClusterControl } from './control';
import { coreWasm } from './testing';

// `code`: the core's checksums_code for the cluster (1 on, 2 off; decode_control gives it).
const control = (root: string, code: number, crcOk = true, pgVersion = 15): ClusterControl => ({
  root,
  path: `${root}global/pg_control`,
  pgVersion,
  control: { checksums_code: code, crc_ok: crcOk },
  error: null,
});

describe('pg_control of a drop', () => {
  let w: Wasm;
  beforeAll(async () => {
    w = await coreWasm();
  });

  it("says each file's checksums by the longest directory it lies in, when its CRC holds", () => {
    const cs = [control('a/', 1), control('a/b/', 2), control('c/', 2, false)];
    expect(checksumsFor(cs, 'a/base/5/16385')).toBe(1);
    expect(checksumsFor(cs, 'a/b/base/5/16385')).toBe(2);
    // A damaged pg_control says nothing: the files decide.
    expect(checksumsFor(cs, 'c/base/5/16385')).toBe(0);
    expect(checksumsFor(cs, 'elsewhere/16385')).toBe(0);
    expect(checksumsFor([control('', 2)], '16385')).toBe(2);
  });

  it("says each file's PostgreSQL version by the same rule, so pages are named as its pageinspect names them", () => {
    const cs = [control('a/', 1, true, 13), control('a/b/', 1, true, 18), control('c/', 1, false, 16)];
    expect(versionFor(cs, 'a/base/5/16385')).toBe(13);
    expect(versionFor(cs, 'a/b/base/5/16385')).toBe(18);
    expect(versionFor(cs, 'c/base/5/16385')).toBeNull();
    expect(versionFor(cs, 'elsewhere/16385')).toBeNull();
  });

  it("says each file's segment size (RELSEG_SIZE) by the same rule, null when no pg_control tells", () => {
    const withSeg = (root: string, n: unknown, crcOk = true): ClusterControl => ({
      ...control(root, 1, crcOk),
      control: { crc_ok: crcOk, blocks_per_segment: n },
    });
    const cs = [withSeg('a/', 1024), withSeg('a/b/', 131072), withSeg('c/', 1024, false), withSeg('d/', 0)];
    expect(blocksPerSegmentFor(cs, 'a/base/5/16385.2')).toBe(1024);
    expect(blocksPerSegmentFor(cs, 'a/b/base/5/16385.2')).toBe(131072);
    expect(blocksPerSegmentFor(cs, 'c/base/5/16385.2')).toBeNull();
    expect(blocksPerSegmentFor(cs, 'd/base/5/16385.2')).toBeNull();
    expect(blocksPerSegmentFor(cs, '16385.2')).toBeNull();
  });

  it('reads pg_control with its PG_VERSION, and says why one cannot be decoded', async () => {
    const file = (name: string, bytes: BlobPart) => new File([bytes], name);
    const list = [
      { file: file('pg_control', new Uint8Array(8192).fill(0x55)), path: 'pgdata/global/pg_control' },
      { file: file('PG_VERSION', '15\n'), path: 'pgdata/PG_VERSION' },
      { file: file('16385', new Uint8Array(8192)), path: 'pgdata/base/5/16385' },
    ];
    const [c, ...rest] = await readControls(w, list);
    expect(rest).toEqual([]);
    expect([c.root, c.path, c.pgVersion, c.control]).toEqual(['pgdata/', 'pgdata/global/pg_control', 15, null]);
    expect(c.error).toMatch(/\S/);
    expect(await readControls(w, list.slice(1))).toEqual([]);
  });
});
