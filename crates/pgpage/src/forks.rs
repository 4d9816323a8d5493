//! A heap's visibility map and free space map held against its pages, as VACUUM and the
//! free space search judge them: a VM bit on a page without PD_ALL_VISIBLE (VACUUM's
//! warning), an all-frozen bit without all-visible, and, as notes (both maps are hints the
//! server corrects), a page flag without its VM bit and an FSM that promises more room than
//! the page has.

use alloc::vec::Vec;

use crate::decode::{fsm_tree, page_get_heap_free_space, vm_bits};
use crate::fields::page_header_data;
use crate::findings::Finding;
use crate::layout::Endian;

/// visibilitymap.h: the two bits of a heap block.
const VISIBILITYMAP_ALL_VISIBLE: u8 = 1;
const VISIBILITYMAP_ALL_FROZEN: u8 = 2;
/// bufpage.h: PD_ALL_VISIBLE.
const PD_ALL_VISIBLE: u32 = 0x0004;

/// A finding about one heap block, from a map fork.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ForkFinding {
    /// Relation-wide heap block number.
    pub heap_block: u32,
    pub finding: Finding,
}

/// Whether a page is a heap page with its header: the maps say nothing of new pages.
fn heap_flags(page: &[u8], endian: Endian) -> Option<u32> {
    let r = crate::decode::Reader { b: page, e: endian };
    let upper = r.field(0, &page_header_data::PD_UPPER)?;
    let special = usize::try_from(r.field(0, &page_header_data::PD_SPECIAL)?).ok()?;
    (upper != 0 && special == page.len()).then(|| r.field(0, &page_header_data::PD_FLAGS))?
}

/// The heap `heap` (its main fork, segment 0 and on, as one byte run of whole pages) against
/// its `_vm` fork `vm`.
pub fn vm_against_heap(
    heap: &[u8],
    vm: &[u8],
    block_size: usize,
    endian: Endian,
) -> Vec<ForkFinding> {
    let mut out = Vec::new();
    if block_size == 0 {
        return out;
    }
    for (vm_block, vm_page) in vm.chunks_exact(block_size).enumerate() {
        let Ok(vm_block) = u32::try_from(vm_block) else {
            break;
        };
        let bits = vm_bits(vm_page, vm_block);
        for (i, &b) in bits.bits.iter().enumerate() {
            let Some(heap_block) = bits
                .first_heap_block
                .checked_add(i as u64)
                .and_then(|h| u32::try_from(h).ok())
            else {
                break;
            };
            let page = usize::try_from(heap_block)
                .ok()
                .and_then(|h| h.checked_mul(block_size))
                .and_then(|at| heap.get(at..at.checked_add(block_size)?));
            let Some(page) = page else {
                // Past the heap's end: a truncated heap leaves the bits, which nothing reads.
                break;
            };
            let Some(flags) = heap_flags(page, endian) else {
                continue;
            };
            let all_visible = flags & PD_ALL_VISIBLE != 0;
            let mut push = |finding| {
                out.push(ForkFinding {
                    heap_block,
                    finding,
                })
            };
            if b & VISIBILITYMAP_ALL_FROZEN != 0 && b & VISIBILITYMAP_ALL_VISIBLE == 0 {
                push(Finding::VmFrozenWithoutVisible);
            }
            if b & VISIBILITYMAP_ALL_VISIBLE != 0 && !all_visible {
                push(Finding::VmBitWithoutPageFlag);
            } else if b & VISIBILITYMAP_ALL_VISIBLE == 0 && all_visible {
                push(Finding::PageFlagWithoutVmBit);
            }
        }
    }
    out
}

/// The heap against its `_fsm` fork's leaf pages: a slot whose category is above what the
/// page's free space (PageGetHeapFreeSpace, freespace.c fsm_space_avail_to_cat) gives.
pub fn fsm_against_heap(
    heap: &[u8],
    fsm: &[u8],
    block_size: usize,
    endian: Endian,
) -> Vec<ForkFinding> {
    let mut out = Vec::new();
    if block_size == 0 {
        return out;
    }
    for (fsm_block, fsm_page) in fsm.chunks_exact(block_size).enumerate() {
        let Ok(fsm_block) = u32::try_from(fsm_block) else {
            break;
        };
        let tree = fsm_tree(fsm_page, fsm_block);
        let (Some(0), Some(first)) = (tree.level, tree.first_heap_block) else {
            continue;
        };
        let leaves = tree
            .nodes
            .get(tree.shape.non_leaf_nodes as usize..)
            .unwrap_or(&[]);
        for (i, &cat) in leaves.iter().enumerate() {
            let Some(heap_block) = first
                .checked_add(i as u64)
                .and_then(|h| u32::try_from(h).ok())
            else {
                break;
            };
            let page = usize::try_from(heap_block)
                .ok()
                .and_then(|h| h.checked_mul(block_size))
                .and_then(|at| heap.get(at..at.checked_add(block_size)?));
            let Some(page) = page else { break };
            if heap_flags(page, endian).is_none() {
                continue;
            }
            let avail = page_get_heap_free_space(page, endian);
            let actual = if avail >= tree.shape.max_request {
                255
            } else {
                avail.checked_div(tree.shape.cat_step).unwrap_or(0).min(254)
            };
            if u32::from(cat) > actual {
                out.push(ForkFinding {
                    heap_block,
                    finding: Finding::FsmMoreThanFree,
                });
            }
        }
    }
    out
}
