// A visibility map or free space map page as the core reads it (pgpage::decode::vm_bits and
// fsm_tree through the wasm `map_page`): which heap blocks the page stands for, its bits or
// its tree. The page view draws these; every number here comes from the core.
import { fsmPageOf, vmPageOf, type FsmTreeLevel as FsmLevel, type Wasm } from '../core';

export interface VmMap {
  kind: 'vm';
  /** The heap block of the page's first pair of bits. */
  firstHeapBlock: number;
  /** How many heap blocks one VM page can describe: a capacity, not the heap's size. */
  heapBlocks: number;
  /** Per heap block from `firstHeapBlock`: 1 all-visible | 2 all-frozen. */
  bits: Uint8Array;
}

export type { FsmTreeLevel as FsmLevel } from '../core';

export interface FsmMap {
  kind: 'fsm';
  slotsPerPage: number;
  nonLeafNodes: number;
  treeDepth: number;
  /** The page's level in the FSM (0: its leaves stand for heap blocks), null when none. */
  level: number | null;
  logicalPage: number | null;
  heapBlocksPerSlot: number | null;
  firstHeapBlock: number | null;
  /** The page's binary tree, root first; the last level holds the leaf slots. */
  levels: FsmLevel[];
  /** fp_nodes: one free-space category per node. */
  nodes: Uint8Array;
  /** The free bytes (at least) each category stands for. */
  availByCategory: number[];
}

export type MapPage = VmMap | FsmMap;

/** The map of a page of the `vm` or `fsm` fork; null for pages of other forks. */
export function mapPage(w: Wasm, page: Uint8Array, absoluteBlock: number, fork: string): MapPage | null {
  if (fork !== 'vm' && fork !== 'fsm') return null;
  const m = w.map_page(page, absoluteBlock >>> 0, fork);
  try {
    if (fork === 'vm') {
      const j = vmPageOf(m);
      return { kind: 'vm', firstHeapBlock: j.first_heap_block, heapBlocks: j.heap_blocks, bits: m.values };
    }
    const j = fsmPageOf(m);
    return {
      kind: 'fsm',
      slotsPerPage: j.shape.slots_per_page,
      nonLeafNodes: j.shape.non_leaf_nodes,
      treeDepth: j.shape.tree_depth,
      level: j.level,
      logicalPage: j.logical_page,
      heapBlocksPerSlot: j.heap_blocks_per_slot,
      firstHeapBlock: j.first_heap_block,
      levels: j.levels,
      nodes: m.values,
      availByCategory: j.avail_by_category,
    };
  } finally {
    m.free();
  }
}
