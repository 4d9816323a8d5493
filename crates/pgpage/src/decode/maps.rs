//! Free space map and visibility map pages: FSMPageData's binary tree of one-byte categories
//! as fsm_page_contents() prints it and as freespace.c addresses it (the page's level in the
//! FSM, the heap blocks its leaves stand for), and the VM fork's two bits per heap block.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use serde::Serialize;

use super::{Items, Reader, Spans, Special, SIZE_OF_PAGE_HEADER_DATA};
use crate::fields::{fsm_page_data, visibility_map_contents, FSM_PAGE_DATA};

/// fsm_page_contents()'s text and FSMPageData.fp_next_slot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FsmSpecial {
    pub fp_next_slot: i32,
    /// Non-leaf nodes: BLCKSZ / 2 - 1 (fsm_internals.h: NonLeafNodesPerPage).
    pub non_leaf_nodes: u32,
    /// Leaf nodes (LeafNodesPerPage), one per heap page or lower-level FSM page.
    pub leaf_nodes: u32,
    pub fsm_page_contents: String,
}

/// The VM bits of one VM page: the heap blocks it covers and which are all-visible/frozen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VmSpecial {
    pub first_heap_block: u64,
    /// How many heap blocks one VM page can describe (MAPSIZE * HEAPBLOCKS_PER_BYTE): a
    /// capacity, not the heap's size, which the VM does not record.
    pub heap_blocks: u32,
    pub all_visible: Vec<u64>,
    pub all_frozen: Vec<u64>,
}

/// visibilitymapdefs.h: BITS_PER_HEAPBLOCK; visibilitymap.c: HEAPBLOCKS_PER_BYTE.
const HEAPBLOCKS_PER_BYTE: usize = 4;

/// One VM page as a map: for each heap block it can describe, its two bits.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VmBits {
    /// visibilitymap.c: HEAPBLK_TO_MAPBLOCK inverted, the VM block times HEAPBLOCKS_PER_PAGE.
    pub first_heap_block: u64,
    /// HEAPBLOCKS_PER_PAGE: a capacity, not the heap's size.
    pub heap_blocks: u32,
    /// Per heap block from `first_heap_block`: VISIBILITYMAP_ALL_VISIBLE (1) |
    /// VISIBILITYMAP_ALL_FROZEN (2).
    #[serde(skip)]
    pub bits: Vec<u8>,
}

/// The VM bits of VM block `absolute_block` (visibilitymap.c: MAPSIZE bytes after the
/// header, HEAPBLOCKS_PER_BYTE heap blocks a byte, the first in the low bits).
pub fn vm_bits(page: &[u8], absolute_block: u32) -> VmBits {
    let map = page.get(SIZE_OF_PAGE_HEADER_DATA..).unwrap_or(&[]);
    let per_page = map.len().saturating_mul(HEAPBLOCKS_PER_BYTE);
    let mut bits = Vec::with_capacity(per_page);
    for &b in map {
        for k in 0..HEAPBLOCKS_PER_BYTE as u32 {
            bits.push(b.checked_shr(k.saturating_mul(2)).unwrap_or(0) & 3);
        }
    }
    VmBits {
        first_heap_block: u64::from(absolute_block).saturating_mul(per_page as u64),
        heap_blocks: u32::try_from(per_page).unwrap_or(u32::MAX),
        bits,
    }
}

/// fsm_internals.h's sizes for a page of `page_len` bytes and freespace.c's tree depth.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct FsmShape {
    /// NodesPerPage: BLCKSZ - MAXALIGN(SizeOfPageHeaderData) - offsetof(FSMPageData, fp_nodes).
    pub nodes: u32,
    /// NonLeafNodesPerPage: BLCKSZ / 2 - 1.
    pub non_leaf_nodes: u32,
    /// LeafNodesPerPage, also SlotsPerFSMPage: the children of one FSM page.
    pub slots_per_page: u32,
    /// freespace.c: FSM_TREE_DEPTH, 3 when SlotsPerFSMPage >= 1626 (enough for 2^32 heap
    /// blocks), else 4. The root is level FSM_TREE_DEPTH - 1, the leaves' level 0.
    pub tree_depth: u32,
    /// freespace.c: FSM_CAT_STEP, BLCKSZ / FSM_CATEGORIES (256) bytes per category.
    pub cat_step: u32,
    /// freespace.c: MaxFSMRequestSize (MaxHeapTupleSize), what category 255 stands for.
    pub max_request: u32,
}

impl FsmShape {
    pub fn of(page_len: usize) -> FsmShape {
        let nodes_at =
            SIZE_OF_PAGE_HEADER_DATA.saturating_add(usize::from(fsm_page_data::FP_NODES.offset));
        let nodes = page_len.saturating_sub(nodes_at);
        let non_leaf = (page_len / 2).saturating_sub(1).min(nodes);
        let slots = nodes.saturating_sub(non_leaf);
        let to32 = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        FsmShape {
            nodes: to32(nodes),
            non_leaf_nodes: to32(non_leaf),
            slots_per_page: to32(slots),
            tree_depth: if slots >= 1626 { 3 } else { 4 },
            cat_step: to32(page_len / 256),
            // htup_details.h: MaxHeapTupleSize, BLCKSZ - MAXALIGN(SizeofPageHeaderData +
            // sizeof(ItemIdData)).
            max_request: to32(page_len.saturating_sub(crate::layout::maxalign(
                SIZE_OF_PAGE_HEADER_DATA.saturating_add(super::SIZE_OF_ITEM_ID),
            ))),
        }
    }

    /// freespace.c: fsm_space_cat_to_avail, the free bytes a category stands for (at least).
    pub fn avail(self, category: u8) -> u32 {
        match category {
            255 => self.max_request,
            c => self.cat_step.saturating_mul(u32::from(c)),
        }
    }

    /// Pages in the subtree of a page at `level`, itself included, in freespace.c's
    /// depth-first layout of the FSM fork (fsm_logical_to_physical).
    fn subtree_pages(self, level: u32) -> u64 {
        let mut size = 1u64;
        for _ in 0..level {
            size = size
                .saturating_mul(u64::from(self.slots_per_page))
                .saturating_add(1);
        }
        size
    }

    /// The FSM address (level, logical page number) of FSM block `blkno`: freespace.c's
    /// fsm_logical_to_physical inverted, walking down from the root at block 0. None when
    /// no FSM address maps to the block (a block past the tree, or a page too small for one).
    pub fn address(self, blkno: u64) -> Option<(u32, u64)> {
        if self.slots_per_page == 0 {
            return None;
        }
        let root = self.tree_depth.checked_sub(1)?;
        let (mut level, mut page, mut at) = (root, 0u64, 0u64);
        if blkno >= self.subtree_pages(root) {
            return None;
        }
        while blkno != at {
            let child_level = level.checked_sub(1)?;
            let child_size = self.subtree_pages(child_level);
            let below = blkno.checked_sub(at)?.checked_sub(1)?;
            let child = below.checked_div(child_size)?;
            page = page
                .checked_mul(u64::from(self.slots_per_page))?
                .checked_add(child)?;
            at = at
                .checked_add(1)?
                .checked_add(child.checked_mul(child_size)?)?;
            level = child_level;
        }
        Some((level, page))
    }
}

/// One level of an FSM page's binary tree: nodes `first_node..first_node + nodes` of fp_nodes.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct FsmTreeLevel {
    /// 0 for the page's root node.
    pub depth: u32,
    pub first_node: u32,
    pub nodes: u32,
}

/// One FSM page: its place in the FSM (freespace.c's FSMAddress) and its tree by levels.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FsmTree {
    pub shape: FsmShape,
    /// The page's level in the FSM (0: its leaves are heap blocks), from the block's place
    /// in the fork; None when no FSM address maps to the block.
    pub level: Option<u32>,
    /// FSMAddress.logpageno: the page's number among the FSM pages of its level.
    pub logical_page: Option<u64>,
    /// Heap blocks one leaf slot stands for: 1 on level 0, SlotsPerFSMPage on level 1, ...
    pub heap_blocks_per_slot: Option<u64>,
    /// The first heap block leaf slot 0 stands for.
    pub first_heap_block: Option<u64>,
    /// The page's binary tree, root first; the last level holds the leaf slots.
    pub levels: Vec<FsmTreeLevel>,
    /// fp_nodes: one free-space category (free bytes / (BLCKSZ / 256)) per node.
    #[serde(skip)]
    pub nodes: Vec<u8>,
}

/// FSM block `absolute_block` as freespace.c reads it.
pub fn fsm_tree(page: &[u8], absolute_block: u32) -> FsmTree {
    let shape = FsmShape::of(page.len());
    let nodes_at =
        SIZE_OF_PAGE_HEADER_DATA.saturating_add(usize::from(fsm_page_data::FP_NODES.offset));
    let nodes = page.get(nodes_at..).unwrap_or(&[]).to_vec();
    // fsm_internals.h: node i's children are 2i+1 and 2i+2, so depth d holds nodes
    // 2^d - 1 .. 2^(d+1) - 1; NonLeafNodesPerPage is 2^k - 1, so the leaves are depth k.
    let mut levels = Vec::new();
    let mut first = 0u32;
    let mut width = 1u32;
    let mut depth = 0u32;
    while first < shape.nodes {
        let n = width.min(shape.nodes.saturating_sub(first));
        levels.push(FsmTreeLevel {
            depth,
            first_node: first,
            nodes: n,
        });
        first = first.saturating_add(width);
        width = width.saturating_mul(2);
        depth = depth.saturating_add(1);
    }
    let address = shape.address(u64::from(absolute_block));
    let slots = u64::from(shape.slots_per_page);
    let per_slot = address.and_then(|(level, _)| slots.checked_pow(level));
    let first_heap_block = address
        .zip(per_slot)
        .and_then(|((_, page), per)| page.checked_mul(slots)?.checked_mul(per));
    FsmTree {
        shape,
        level: address.map(|a| a.0),
        logical_page: address.map(|a| a.1),
        heap_blocks_per_slot: per_slot,
        first_heap_block,
        levels,
        nodes,
    }
}

pub(super) fn fsm(r: &Reader, spans: &mut Spans) -> (Items, Option<Special>) {
    let base = SIZE_OF_PAGE_HEADER_DATA;
    spans.table(base, &FSM_PAGE_DATA, None);
    let next_slot = r.get(base, &fsm_page_data::FP_NEXT_SLOT) as i32;
    let nodes_at = super::at(base, &fsm_page_data::FP_NODES);
    let shape = FsmShape::of(r.len());
    let non_leaf = shape.non_leaf_nodes as usize;
    let nodes = shape.nodes as usize;
    spans.push(nodes_at, non_leaf, &fsm_page_data::FP_NODES, None, None);
    spans.push(
        nodes_at.saturating_add(non_leaf),
        nodes.saturating_sub(non_leaf),
        &fsm_page_data::FP_NODES,
        None,
        None,
    );
    let mut text = String::new();
    let (bytes, _) = r.bytes(nodes_at, nodes);
    for (i, &v) in bytes.iter().enumerate() {
        if v != 0 {
            let _ = writeln!(text, "{i}: {v}");
        }
    }
    text.push_str(&format!("fp_next_slot: {next_slot}\n"));
    let special = FsmSpecial {
        fp_next_slot: next_slot,
        non_leaf_nodes: shape.non_leaf_nodes,
        leaf_nodes: shape.slots_per_page,
        fsm_page_contents: text,
    };
    (Items::Lines(Vec::new()), Some(Special::Fsm(special)))
}

pub(super) fn vm(r: &Reader, absolute_block: u32, spans: &mut Spans) -> (Items, Option<Special>) {
    let base = SIZE_OF_PAGE_HEADER_DATA;
    spans.push(
        base,
        r.len().saturating_sub(base),
        &visibility_map_contents::BITS,
        None,
        None,
    );
    let map = vm_bits(r.b, absolute_block);
    let mut visible = Vec::new();
    let mut frozen = Vec::new();
    for (blk, &b) in (map.first_heap_block..).zip(&map.bits) {
        if b & 1 != 0 {
            visible.push(blk);
        }
        if b & 2 != 0 {
            frozen.push(blk);
        }
    }
    let special = VmSpecial {
        first_heap_block: map.first_heap_block,
        heap_blocks: map.heap_blocks,
        all_visible: visible,
        all_frozen: frozen,
    };
    (Items::Lines(Vec::new()), Some(Special::Vm(special)))
}

#[cfg(test)]
mod tests {
    #![allow(
        clippy::indexing_slicing,
        clippy::arithmetic_side_effects,
        clippy::unwrap_used
    )] // tests may panic

    use super::*;

    /// freespace.c's fsm_logical_to_physical, as written there: the independent forward map.
    fn logical_to_physical(shape: FsmShape, level: u32, logpageno: u64) -> u64 {
        let s = u64::from(shape.slots_per_page);
        let mut leafno = logpageno;
        for _ in 0..level {
            leafno *= s;
        }
        let mut pages = 0;
        for _ in 0..shape.tree_depth {
            pages += leafno + 1;
            leafno /= s;
        }
        pages -= u64::from(level);
        pages - 1
    }

    #[test]
    fn fsm_shape_is_fsm_internals_for_every_block_size() {
        // fsm_internals.h for BLCKSZ 8192: NodesPerPage 8192 - 24 - 4, NonLeafNodesPerPage
        // 4095, so 4069 leaves (the count pg_freespacemap's docs give per FSM page).
        let s = FsmShape::of(8192);
        assert_eq!(
            (s.nodes, s.non_leaf_nodes, s.slots_per_page, s.tree_depth),
            (8164, 4095, 4069, 3)
        );
        assert_eq!((s.avail(0), s.avail(3), s.avail(255)), (0, 96, 8160));
        // 1 kB pages: 996 nodes, 511 non-leaf, 485 slots < 1626, so four levels.
        let s = FsmShape::of(1024);
        assert_eq!(
            (s.nodes, s.non_leaf_nodes, s.slots_per_page, s.tree_depth),
            (996, 511, 485, 4)
        );
    }

    #[test]
    fn fsm_address_inverts_fsm_logical_to_physical() {
        for len in [1024usize, 8192, 32768] {
            let shape = FsmShape::of(len);
            let s = u64::from(shape.slots_per_page);
            let root = shape.tree_depth - 1;
            let mut cases = vec![(root, 0u64)];
            for level in 0..root {
                // Level l has s^(root - l) pages.
                let pages = s.pow(root - level);
                for page in [0, 1, 2, s - 1, s, s + 1, 3 * s + 7, s * s - 1] {
                    if page < pages {
                        cases.push((level, page));
                    }
                }
            }
            for (level, page) in cases {
                let blk = logical_to_physical(shape, level, page);
                assert_eq!(
                    shape.address(blk),
                    Some((level, page)),
                    "{len}: block {blk}"
                );
            }
        }
        let shape = FsmShape::of(8192);
        // Block 0 is the root, 1 the first level-1 page, 2 the first leaf page.
        assert_eq!(shape.address(0), Some((2, 0)));
        assert_eq!(shape.address(1), Some((1, 0)));
        assert_eq!(shape.address(2), Some((0, 0)));
        assert_eq!(shape.address(u64::MAX), None);
        assert_eq!(FsmShape::of(20).address(0), None);
    }

    #[test]
    fn fsm_tree_levels_cover_the_nodes_and_leaves_stand_for_heap_blocks() {
        let mut page = vec![0u8; 8192];
        page[28 + 4095] = 7; // leaf slot 0
        let t = fsm_tree(&page, 3); // the second leaf page: heap blocks 4069..
        assert_eq!((t.level, t.logical_page), (Some(0), Some(1)));
        assert_eq!(
            (t.heap_blocks_per_slot, t.first_heap_block),
            (Some(1), Some(4069))
        );
        assert_eq!(t.levels.len(), 13);
        let last = t.levels.last().unwrap();
        assert_eq!((last.first_node, last.nodes), (4095, 4069));
        assert_eq!(t.levels.iter().map(|l| l.nodes).sum::<u32>(), 8164);
        assert_eq!(t.nodes[usize::try_from(last.first_node).unwrap()], 7);
        let root = fsm_tree(&page, 0);
        assert_eq!(
            (root.level, root.heap_blocks_per_slot, root.first_heap_block),
            (Some(2), Some(4069 * 4069), Some(0))
        );
        let short = fsm_tree(&page[..10], 0);
        assert!(short.levels.is_empty() && short.nodes.is_empty() && short.level.is_none());
    }

    #[test]
    fn vm_bits_are_two_per_heap_block_low_bits_first() {
        let mut page = vec![0u8; 8192];
        page[24] = 0b1110_0001; // block 0 visible, 1 none, 2 frozen only, 3 both
        let m = vm_bits(&page, 1);
        assert_eq!(m.heap_blocks, 32672); // visibilitymap.c: HEAPBLOCKS_PER_PAGE for 8 kB
        assert_eq!(m.first_heap_block, 32672);
        assert_eq!(&m.bits[..5], &[1, 0, 2, 3, 0]);
        assert_eq!(vm_bits(&page[..3], 0).bits.len(), 0);
    }
}
