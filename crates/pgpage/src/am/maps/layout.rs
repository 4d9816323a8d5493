//! The free space map's and visibility map's page layouts (fsm_internals.h, visibilitymap.c):
//! FSMPageData's tree, the VM's two bits per heap block, and what fsm_page_contents() shows.

use alloc::string::String;
use alloc::vec::Vec;

use crate::page::bufpage::SIZE_OF_PAGE_HEADER_DATA;
use crate::page::fields::fsm_page_data;
use serde::Serialize;

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
pub(crate) const HEAPBLOCKS_PER_BYTE: usize = 4;

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
            max_request: to32(page_len.saturating_sub(crate::page::geometry::maxalign(
                SIZE_OF_PAGE_HEADER_DATA.saturating_add(crate::page::bufpage::SIZE_OF_ITEM_ID),
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
    pub(crate) fn subtree_pages(self, level: u32) -> u64 {
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

/// visibilitymap.h: the two bits of a heap block.
pub(crate) const VISIBILITYMAP_ALL_VISIBLE: u8 = 1;

pub(crate) const VISIBILITYMAP_ALL_FROZEN: u8 = 2;

/// visibilitymapdefs.h: BITS_PER_HEAPBLOCK.
pub(crate) const BITS_PER_HEAPBLOCK: usize = 2;
