// A heap's main fork is paired with the _vm and _fsm dropped beside it: same directory, same
// relfilenode, their segment 0; never another directory's copy.
import { describe, expect, it } from 'vitest';
import { mapsOf, newEntry, structureFor, type FileEntry, type Fork } from './files';
import type { ClusterCatalog, CatalogRelation } from './app/catalog';

const named = (path: string, relfilenode: number, fork: Fork, segment = 0): FileEntry =>
  newEntry(new File([], path.slice(path.lastIndexOf('/') + 1)), path, undefined, { rel: { relfilenode, fork, segment }, relDir: 'base/5' });

describe('mapsOf', () => {
  it('pairs every segment of a heap with its maps in the same directory', () => {
    const heap0 = named('live/base/5/16427', 16427, 'main');
    const heap1 = named('live/base/5/16427.1', 16427, 'main', 1);
    const vm = named('live/base/5/16427_vm', 16427, 'vm');
    const fsm = named('live/base/5/16427_fsm', 16427, 'fsm');
    const otherVm = named('backup/base/5/16427_vm', 16427, 'vm');
    const otherRel = named('live/base/5/16430_fsm', 16430, 'fsm');
    const files = [heap0, heap1, otherVm, otherRel, vm, fsm];
    expect(mapsOf(heap0, files)).toEqual({ vm: vm.file, fsm: fsm.file });
    expect(mapsOf(heap1, files)).toEqual({ vm: vm.file, fsm: fsm.file });
    // The maps themselves, and a heap without maps beside it, get none.
    expect(mapsOf(vm, files)).toBeUndefined();
    expect(mapsOf(named('backup/base/5/16427', 16427, 'main'), [otherRel])).toBeUndefined();
    expect(mapsOf(named('backup/base/5/16427', 16427, 'main'), files)).toEqual({ vm: otherVm.file, fsm: undefined });
  });
});

describe('structureFor', () => {
  it("gives a main-fork file its relation's hints once the catalogs name it, its pages' own checks before, and a map fork none", () => {
    const heap = named('pgdata/base/5/16427', 16427, 'main');
    const loose = newEntry(new File([], 'dump.bin'), 'dump.bin');
    expect(structureFor(heap)).toEqual({ set: null });
    expect(structureFor(loose)).toEqual({ set: null });
    expect(structureFor(named('pgdata/base/5/16427_vm', 16427, 'vm'))).toBeUndefined();
    const catalog: ClusterCatalog = { root: 'pgdata/', state: 'done', relations: [], damage: [], error: null, hints: { set: 4, bytes: new Uint8Array() } };
    const relation = { index: 12 } as CatalogRelation;
    heap.naming = { catalog, relation, pageKind: 'heap' };
    expect(structureFor(heap)).toEqual({ set: 4, entry: 12 });
    // A file the catalogs do not claim: its pages' own checks.
    heap.naming = { catalog, relation: null, pageKind: null };
    expect(structureFor(heap)).toEqual({ set: null });
  });
});
