// The visibility and free space map panels on the samples PostgreSQL wrote (public/samples/
// 16427_vm and 16427_fsm, read by the wasm core): every VM cell shows the two bits the page
// holds for its heap block (read here by visibilitymap.c's layout), heap_blocks is called a
// capacity; the FSM panel names the page's level from its block's place in the fork and its
// leaf slots the heap blocks they stand for, with fsm_internals.h's node layout.
import { cleanup, fireEvent, render } from '@testing-library/react';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mapPage, type FsmMap, type VmMap } from '../lib/maps';
import type { Wasm } from '../core';
import { MapPanel } from './MapPanel';
import { wasmFromDisk } from '../core/disk';

const ROOT = join(__dirname, '../../..');
const BS = 8192;
let w: Wasm;
const sample = (name: string) => new Uint8Array(readFileSync(join(ROOT, 'public/samples', name)));

beforeAll(async () => {
  w = await wasmFromDisk();
});

describe('MapPanel', () => {
  afterEach(cleanup);

  it('draws a VM page as its heap blocks’ bits and calls heap_blocks a capacity', () => {
    const page = sample('16427_vm').subarray(0, BS);
    const map = mapPage(w, page, 0, 'vm') as VmMap;
    expect(map.heapBlocks).toBe((BS - 24) * 4);
    const v = render(<MapPanel map={map} block={0} />);
    expect(v.getByTestId('vm-map').textContent).toMatch(/a capacity, not the table's size/);
    const cells = v.container.querySelectorAll<HTMLElement>('[data-heap-block]');
    expect(cells.length).toBeGreaterThan(0);
    for (const c of cells) {
      const blk = Number(c.dataset.heapBlock);
      expect(Number(c.dataset.bits), `heap block ${blk}`).toBe((page[24 + (blk >> 2)] >> (2 * (blk & 3))) & 3);
    }
  });

  it('a VM page of a later block stands for later heap blocks, and a long grid pages', () => {
    const page = new Uint8Array(BS);
    page.fill(0xff, 24); // every heap block all-visible and all-frozen
    const map = mapPage(w, page, 2, 'vm') as VmMap;
    expect(map.firstHeapBlock).toBe(2 * (BS - 24) * 4);
    const v = render(<MapPanel map={map} block={2} />);
    const first = v.container.querySelector<HTMLElement>('[data-heap-block]')!;
    expect(first.dataset.heapBlock).toBe(String(map.firstHeapBlock));
    const shown = v.container.querySelectorAll('[data-heap-block]').length;
    expect(shown).toBeLessThan(map.heapBlocks);
    fireEvent.click(v.getByText('later'));
    expect(v.container.querySelector<HTMLElement>('[data-heap-block]')!.dataset.heapBlock).toBe(String(map.firstHeapBlock + shown));
  });

  it('names an FSM page’s level by its block and its leaves by the heap blocks they stand for', () => {
    const file = sample('16427_fsm');
    const levels = [0, 1, 2].map((b) => (mapPage(w, file.subarray(b * BS, (b + 1) * BS), b, 'fsm') as FsmMap).level);
    expect(levels).toEqual([2, 1, 0]);
    const leafPage = file.subarray(2 * BS, 3 * BS);
    const map = mapPage(w, leafPage, 2, 'fsm') as FsmMap;
    const v = render(<MapPanel map={map} block={2} />);
    expect(v.getByTestId('fsm-map').dataset.fsmLevel).toBe('0');
    expect(v.getAllByTestId('fsm-level')).toHaveLength(13);
    // fsm_internals.h: fp_nodes at 28, the leaves after BLCKSZ / 2 - 1 inner nodes.
    for (const c of v.container.querySelectorAll<HTMLElement>('[data-slot]')) {
      const slot = Number(c.dataset.slot);
      expect([c.dataset.heapBlock, Number(c.dataset.category)]).toEqual([String(slot), leafPage[28 + BS / 2 - 1 + slot]]);
    }
    const root = mapPage(w, file.subarray(0, BS), 0, 'fsm') as FsmMap;
    const r = render(<MapPanel map={root} block={0} />);
    expect(r.getAllByTestId('fsm-map')[1].textContent).toMatch(
      /the root page \(FSM level 2, page 0 of its level\): each leaf slot stands for an FSM page of level 1, that is 16,556,761 heap blocks/,
    );
  });
});
