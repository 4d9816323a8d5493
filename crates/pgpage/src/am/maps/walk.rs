//! A heap's visibility map and free space map held against its pages as they stream by, as
//! VACUUM and the free space search judge them: a VM bit on a page without PD_ALL_VISIBLE
//! (VACUUM's warning), an all-frozen bit without all-visible, and, as notes (both maps are
//! hints the server corrects), a page flag without its VM bit and an FSM that promises more
//! room than the page has. The two small forks are held whole; the heap never is.
//!
//! Bits for heap blocks past the heap's end are not judged. The server never asks for them
//! (visibilitymap_get_status is called for blocks that exist: VACUUM scans up to
//! RelationGetNumberOfBlocks, an index-only scan asks for the blocks its index tuples name);
//! they would matter only once the heap grew over them, as a new page without
//! PD_ALL_VISIBLE whose stale bit an index-only scan trusts, and then the page exists and
//! is judged like any other (visibilitymap_prepare_truncate clears them at truncation for
//! that reason).

use alloc::vec::Vec;

use crate::am::maps::decode::fsm_tree;
use crate::am::maps::layout::{
    FsmShape, BITS_PER_HEAPBLOCK, HEAPBLOCKS_PER_BYTE, VISIBILITYMAP_ALL_FROZEN,
    VISIBILITYMAP_ALL_VISIBLE,
};
use crate::findings::Finding;
use crate::page::bufpage::{page_get_heap_free_space, SIZE_OF_PAGE_HEADER_DATA};
use crate::page::fields::{page_header_data, PD_ALL_VISIBLE};
use crate::page::geometry::{BlockSize, Endian};

/// Every finding the maps give, for callers that say them apart from a page's own.
pub const FINDINGS: [Finding; 4] = [
    Finding::VmBitWithoutPageFlag,
    Finding::VmFrozenWithoutVisible,
    Finding::PageFlagWithoutVmBit,
    Finding::FsmMoreThanFree,
];

/// A relation's `_vm` and `_fsm` forks, read whole, to judge its heap pages one at a time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForkMaps {
    block_size: BlockSize,
    /// The `_vm` fork's bytes as they are; None when it was not given.
    vm: Option<Vec<u8>>,
    /// The FSM's leaf categories (its level-0 pages' leaf slots) by heap block; None when
    /// the `_fsm` fork was not given.
    fsm: Option<Vec<u8>>,
    shape: FsmShape,
}

/// Where a heap block's bits are in the `_vm` fork (visibilitymap.c: HEAPBLK_TO_MAPBLOCK,
/// HEAPBLK_TO_MAPBYTE, HEAPBLK_TO_OFFSET).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VmPlace {
    pub vm_block: u32,
    /// The byte within the VM page.
    pub offset: usize,
    /// The bit of VISIBILITYMAP_ALL_VISIBLE within that byte; ALL_FROZEN is the next one.
    pub shift: u32,
}

impl ForkMaps {
    /// The maps of a heap read with `block_size`; an absent fork judges nothing.
    pub fn new(vm: Option<&[u8]>, fsm: Option<&[u8]>, block_size: BlockSize) -> ForkMaps {
        let shape = FsmShape::of(block_size.len());
        ForkMaps {
            block_size,
            vm: vm.map(<[u8]>::to_vec),
            fsm: fsm.map(|f| fsm_leaves(f, block_size.len())),
            shape,
        }
    }

    /// Where heap block `heap_block`'s VM bits are, whether or not the fork reaches it.
    pub fn vm_place(&self, heap_block: u32) -> Option<VmPlace> {
        let map_size = self
            .block_size
            .len()
            .checked_sub(SIZE_OF_PAGE_HEADER_DATA)?;
        let per_page = map_size.checked_mul(HEAPBLOCKS_PER_BYTE)?;
        let heap_block = usize::try_from(heap_block).ok()?;
        let within = heap_block.checked_rem(per_page)?;
        let slot = within.checked_rem(HEAPBLOCKS_PER_BYTE)?;
        Some(VmPlace {
            vm_block: u32::try_from(heap_block.checked_div(per_page)?).ok()?,
            offset: SIZE_OF_PAGE_HEADER_DATA
                .checked_add(within.checked_div(HEAPBLOCKS_PER_BYTE)?)?,
            shift: u32::try_from(slot.checked_mul(BITS_PER_HEAPBLOCK)?).ok()?,
        })
    }

    /// visibilitymap_get_status: the block's two bits, 0 past the fork's end (as the server
    /// reads a map page that does not exist). None when no `_vm` was given.
    fn vm_status(&self, heap_block: u32) -> Option<u8> {
        let vm = self.vm.as_deref()?;
        let bits = self.vm_place(heap_block).and_then(|p| {
            let at = usize::try_from(p.vm_block)
                .ok()?
                .checked_mul(self.block_size.len())?
                .checked_add(p.offset)?;
            Some(vm.get(at)?.checked_shr(p.shift)? & 3)
        });
        Some(bits.unwrap_or(0))
    }

    /// fsm_get_avail's category for the block: 0 past the fork's end. None when no `_fsm`
    /// was given.
    fn fsm_category(&self, heap_block: u32) -> Option<u8> {
        let fsm = self.fsm.as_deref()?;
        let at = usize::try_from(heap_block).ok();
        Some(at.and_then(|i| fsm.get(i)).copied().unwrap_or(0))
    }

    /// What the maps say wrong of heap block `heap_block` (relation-wide), whose bytes are
    /// `page`. A page that is not a heap page with a header (a new page, an index page) has
    /// nothing to say to either map.
    pub fn check_heap_page(
        &self,
        heap_block: u32,
        page: &[u8],
        endian: Endian,
    ) -> impl Iterator<Item = Finding> {
        let mut found = [None; 3];
        if let Some(flags) = heap_flags(page, endian) {
            let all_visible = flags & u32::from(PD_ALL_VISIBLE) != 0;
            if let Some(bits) = self.vm_status(heap_block) {
                let visible = bits & VISIBILITYMAP_ALL_VISIBLE != 0;
                if bits & VISIBILITYMAP_ALL_FROZEN != 0 && !visible {
                    found[0] = Some(Finding::VmFrozenWithoutVisible);
                }
                found[1] = match (visible, all_visible) {
                    (true, false) => Some(Finding::VmBitWithoutPageFlag),
                    (false, true) => Some(Finding::PageFlagWithoutVmBit),
                    _ => None,
                };
            }
            if let Some(category) = self.fsm_category(heap_block) {
                // freespace.c: fsm_space_avail_to_cat of PageGetHeapFreeSpace, as VACUUM
                // records it.
                let avail = page_get_heap_free_space(page, endian);
                let actual = if avail >= self.shape.max_request {
                    255
                } else {
                    avail.checked_div(self.shape.cat_step).unwrap_or(0).min(254)
                };
                if u32::from(category) > actual {
                    found[2] = Some(Finding::FsmMoreThanFree);
                }
            }
        }
        found.into_iter().flatten()
    }
}

/// The leaf categories of an `_fsm` fork's level-0 pages, by the heap block each stands for.
fn fsm_leaves(fsm: &[u8], block_size: usize) -> Vec<u8> {
    let mut out = Vec::new();
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
        let Some(first) = usize::try_from(first)
            .ok()
            .filter(|&f| f <= u32::MAX as usize)
        else {
            continue;
        };
        let Some(end) = first.checked_add(leaves.len()) else {
            continue;
        };
        if out.len() < end {
            out.resize(end, 0);
        }
        if let Some(slots) = out.get_mut(first..end) {
            slots.copy_from_slice(leaves);
        }
    }
    out
}

/// pd_flags of a heap page with its header: the maps say nothing of new pages, nor of pages
/// with a special space (an index's FSM records whole free pages, not heap free space).
fn heap_flags(page: &[u8], endian: Endian) -> Option<u32> {
    let r = crate::page::reader::Reader { b: page, e: endian };
    let upper = r.field(0, &page_header_data::PD_UPPER)?;
    let special = usize::try_from(r.field(0, &page_header_data::PD_SPECIAL)?).ok()?;
    (upper != 0 && special == page.len()).then(|| r.field(0, &page_header_data::PD_FLAGS))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_heap_blocks_vm_bits_are_where_visibilitymap_c_puts_them() {
        let maps = ForkMaps::new(None, None, BlockSize::DEFAULT);
        // visibilitymap.c: MAPSIZE 8168, HEAPBLOCKS_PER_PAGE 32672 for 8 kB pages.
        assert_eq!(
            maps.vm_place(32_671 + 6),
            Some(VmPlace {
                vm_block: 1,
                offset: 24 + 1,
                shift: 2
            })
        );
        assert_eq!(
            maps.vm_place(32_671),
            Some(VmPlace {
                vm_block: 0,
                offset: 24 + 8167,
                shift: 6
            })
        );
    }

    #[test]
    fn absent_forks_judge_nothing_and_short_forks_read_as_zero() {
        let mut page = [0u8; 8192];
        page[14..16].copy_from_slice(&8192u16.to_le_bytes()); // pd_upper
        page[16..18].copy_from_slice(&8192u16.to_le_bytes()); // pd_special
        page[12..14].copy_from_slice(&24u16.to_le_bytes()); // pd_lower
        page[10] = PD_ALL_VISIBLE as u8;
        let none = ForkMaps::new(None, None, BlockSize::DEFAULT);
        assert_eq!(none.check_heap_page(7, &page, Endian::Little).count(), 0);
        let empty = ForkMaps::new(Some(&[]), Some(&[]), BlockSize::DEFAULT);
        let found: Vec<_> = empty.check_heap_page(7, &page, Endian::Little).collect();
        assert_eq!(found, [Finding::PageFlagWithoutVmBit]);
    }
}
