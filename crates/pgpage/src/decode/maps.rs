//! Free space map and visibility map pages: FSMPageData's binary tree of one-byte categories
//! as fsm_page_contents() prints it, and the VM fork's two bits per heap block.

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
    pub heap_blocks: u32,
    pub all_visible: Vec<u64>,
    pub all_frozen: Vec<u64>,
}

pub(super) fn fsm(r: &Reader, spans: &mut Spans) -> (Items, Option<Special>) {
    let base = SIZE_OF_PAGE_HEADER_DATA;
    spans.table(base, &FSM_PAGE_DATA, None);
    let next_slot = r.get(base, &fsm_page_data::FP_NEXT_SLOT) as i32;
    let nodes_at = super::at(base, &fsm_page_data::FP_NODES);
    let nodes = r.len().saturating_sub(nodes_at);
    let non_leaf = (r.len() / 2).saturating_sub(1).min(nodes);
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
        non_leaf_nodes: non_leaf as u32,
        leaf_nodes: nodes.saturating_sub(non_leaf) as u32,
        fsm_page_contents: text,
    };
    (Items::Lines(Vec::new()), Some(Special::Fsm(special)))
}

pub(super) fn vm(r: &Reader, absolute_block: u32, spans: &mut Spans) -> (Items, Option<Special>) {
    // visibilitymap.c: MAPSIZE bytes after the header, HEAPBLOCKS_PER_BYTE = 4.
    let base = SIZE_OF_PAGE_HEADER_DATA;
    let map = r.len().saturating_sub(base);
    spans.push(base, map, &visibility_map_contents::BITS, None, None);
    let per_page = (map as u64).saturating_mul(4);
    let first = u64::from(absolute_block).saturating_mul(per_page);
    let (bytes, _) = r.bytes(base, map);
    let mut visible = Vec::new();
    let mut frozen = Vec::new();
    for (i, &b) in bytes.iter().enumerate() {
        if b == 0 {
            continue;
        }
        for k in 0..4u8 {
            let blk = first
                .saturating_add((i as u64).saturating_mul(4))
                .saturating_add(u64::from(k));
            let bits = b.checked_shr(u32::from(k).saturating_mul(2)).unwrap_or(0) & 3;
            if bits & 1 != 0 {
                visible.push(blk);
            }
            if bits & 2 != 0 {
                frozen.push(blk);
            }
        }
    }
    let special = VmSpecial {
        first_heap_block: first,
        heap_blocks: per_page as u32,
        all_visible: visible,
        all_frozen: frozen,
    };
    (Items::Lines(Vec::new()), Some(Special::Vm(special)))
}
