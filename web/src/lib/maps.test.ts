// map_page through the wasm core on bytes of any length and any block number: a map or a
// JS error with a message, never a trap; a VM page's first heap block grows with its block.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Wasm } from '../core';
import { mapPage, type FsmMap, type VmMap } from './maps';
import { wasmFromDisk } from '../core/disk';

let w: Wasm;

beforeAll(async () => {
  w = await wasmFromDisk();
});

describe('mapPage', () => {
  it('never traps on short, odd or huge input, at any block', () => {
    let x = 7;
    for (const n of [0, 5, 24, 27, 28, 100, 1024, 8191, 8192, 32768]) {
      const junk = Uint8Array.from({ length: n }, () => (x = (x * 1103515245 + 12345) >>> 0) >>> 24);
      for (const block of [0, 1, 2, 4070, 0xfffffffe, 0xffffffff]) {
        const vm = mapPage(w, junk, block, 'vm') as VmMap;
        expect(vm.bits.length).toBe(Math.max(0, n - 24) * 4);
        const fsm = mapPage(w, junk, block, 'fsm') as FsmMap;
        expect(fsm.nodes.length).toBe(Math.max(0, n - 28));
      }
    }
    expect(mapPage(w, new Uint8Array(8192), 0, 'main')).toBeNull();
    expect(() => w.map_page(new Uint8Array(8192), 0, 'main')).toThrow(/holds no visibility or free space map/);
  });

  it('numbers a VM page’s heap blocks from its block times its capacity', () => {
    const vm = mapPage(w, new Uint8Array(8192), 3, 'vm') as VmMap;
    expect(vm.firstHeapBlock).toBe(3 * vm.heapBlocks);
  });
});
