//! The visibility map and free space map pages as heap redo changes them: a heap block's two
//! bits set or cleared on the map page that holds them (visibilitymap.c), and its free-space
//! category written on the bottom free space map page (freespace.c, fsmpage.c).

use crate::page::write::{self, SIZE_OF_PAGE_HEADER};

/// The map page, byte and bit shift of a heap block's bits (HEAPBLK_TO_MAPBLOCK, _MAPBYTE,
/// _OFFSET), for a block size.
pub fn vm_position(heap_block: u32, block_size: usize) -> Option<(u32, usize, u8)> {
    let mapsize = u32::try_from(block_size.checked_sub(SIZE_OF_PAGE_HEADER)?).ok()?;
    let per_page = mapsize.checked_mul(4)?;
    let map_block = heap_block.checked_div(per_page)?;
    let within = heap_block.checked_rem(per_page)?;
    let byte = usize::try_from(within / 4)
        .ok()?
        .checked_add(SIZE_OF_PAGE_HEADER)?;
    let shift = u8::try_from((within % 4).checked_mul(2)?).ok()?;
    Some((map_block, byte, shift))
}

/// visibilitymap_clear: whether a bit was set (and so the page changed).
pub fn vm_clear(vm_page: &mut [u8], heap_block: u32, flags: u8) -> bool {
    let Some((_, byte, shift)) = vm_position(heap_block, vm_page.len()) else {
        return false;
    };
    let mask = (flags & 3) << shift;
    match vm_page.get_mut(byte) {
        Some(b) if *b & mask != 0 => {
            *b &= !mask;
            true
        }
        _ => false,
    }
}

/// visibilitymap_get_status on the map page that holds the heap block's bits (`vm_position`'s
/// first value): its VISIBILITYMAP_ALL_VISIBLE and _ALL_FROZEN bits, 0 when the page is short.
pub fn vm_status(vm_page: &[u8], heap_block: u32) -> u8 {
    vm_position(heap_block, vm_page.len())
        .and_then(|(_, byte, shift)| Some((vm_page.get(byte)? >> shift) & 3))
        .unwrap_or(0)
}

/// visibilitymap_set: whether the bits differed from `flags` (the server then writes them and
/// sets the page's LSN).
pub fn vm_set(vm_page: &mut [u8], heap_block: u32, flags: u8) -> bool {
    let Some((_, byte, shift)) = vm_position(heap_block, vm_page.len()) else {
        return false;
    };
    match vm_page.get_mut(byte) {
        Some(b) if (*b >> shift) & 3 != flags & 3 => {
            *b |= (flags & 3) << shift;
            true
        }
        _ => false,
    }
}

/// vm_readbuf's start for a map page that is new: an empty page.
pub fn vm_page_ready(vm_page: &mut [u8]) {
    if write::is_new(vm_page) {
        let _ = write::page_init(vm_page, 0);
    }
}

/// FSMPageData: fp_next_slot (an int), then fp_nodes, after the page header.
const FP_NODES_AT: usize = SIZE_OF_PAGE_HEADER + 4;

/// fsmpage.c's tree shape for a block size: (NodesPerPage, NonLeafNodesPerPage,
/// SlotsPerFSMPage, FSM_TREE_DEPTH).
fn fsm_shape(block_size: usize) -> Option<(usize, usize, usize, u32)> {
    let nodes = block_size.checked_sub(FP_NODES_AT)?;
    let non_leaf = (block_size / 2).checked_sub(1)?;
    let slots = nodes.checked_sub(non_leaf)?;
    Some((nodes, non_leaf, slots, if slots >= 1626 { 3 } else { 4 }))
}

/// freespace.c fsm_space_avail_to_cat: free bytes as one of 256 categories, 255 for
/// MaxHeapTupleSize or more.
pub fn fsm_space_avail_to_cat(avail: usize, block_size: usize) -> u8 {
    let max_heap_tuple = block_size.saturating_sub(32);
    if avail >= max_heap_tuple {
        return 255;
    }
    let cat = avail.checked_div(block_size / 256).unwrap_or(0);
    u8::try_from(cat.min(254)).unwrap_or(254)
}

/// fsm_get_location and fsm_logical_to_physical for the bottom level: the free space map block
/// and slot that hold a heap block's category.
pub fn fsm_position(heap_block: u32, block_size: usize) -> Option<(u32, usize)> {
    let (_, _, slots, depth) = fsm_shape(block_size)?;
    let slots32 = u32::try_from(slots).ok()?;
    let mut leafno = heap_block.checked_div(slots32)?;
    let slot = usize::try_from(heap_block.checked_rem(slots32)?).ok()?;
    let mut pages = 0u32;
    for _ in 0..depth {
        pages = pages.checked_add(leafno)?.checked_add(1)?;
        leafno = leafno.checked_div(slots32)?;
    }
    Some((pages.checked_sub(1)?, slot))
}

/// fsmpage.c fsm_set_avail: the leaf set and the change carried up the page's binary tree
/// (the whole tree rebuilt when the root ends below the new value); whether anything changed.
pub fn fsm_set_avail(page: &mut [u8], slot: usize, value: u8) -> bool {
    let Some((nodes, non_leaf, _, _)) = fsm_shape(page.len()) else {
        return false;
    };
    let Some(tree) = page.get_mut(FP_NODES_AT..FP_NODES_AT.saturating_add(nodes)) else {
        return false;
    };
    let mut nodeno = non_leaf.saturating_add(slot);
    let node = |t: &[u8], n: usize| t.get(n).copied().unwrap_or(0);
    if nodeno >= nodes {
        return false;
    }
    if node(tree, nodeno) == value && value <= node(tree, 0) {
        return false;
    }
    if let Some(n) = tree.get_mut(nodeno) {
        *n = value;
    }
    while nodeno > 0 {
        nodeno = nodeno.saturating_sub(1) / 2;
        let lchild = nodeno.saturating_mul(2).saturating_add(1);
        let mut newvalue = node(tree, lchild);
        if lchild.saturating_add(1) < nodes {
            newvalue = newvalue.max(node(tree, lchild.saturating_add(1)));
        }
        if node(tree, nodeno) == newvalue {
            break;
        }
        if let Some(n) = tree.get_mut(nodeno) {
            *n = newvalue;
        }
    }
    if value > node(tree, 0) {
        for nodeno in (0..non_leaf).rev() {
            let lchild = nodeno.saturating_mul(2).saturating_add(1);
            let mut newvalue = 0;
            if lchild < nodes {
                newvalue = node(tree, lchild);
            }
            if lchild.saturating_add(1) < nodes {
                newvalue = newvalue.max(node(tree, lchild.saturating_add(1)));
            }
            if let Some(n) = tree.get_mut(nodeno) {
                *n = newvalue;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_of_a_block() {
        assert_eq!(vm_position(0, 8192), Some((0, 24, 0)));
        assert_eq!(vm_position(5, 8192), Some((0, 25, 2)));
        assert_eq!(vm_position(32672, 8192), Some((1, 24, 0)));
        let mut p = alloc::vec![0u8; 8192];
        vm_page_ready(&mut p);
        assert!(vm_set(&mut p, 5, 3));
        assert_eq!(p[25], 0b1100);
        assert!(!vm_set(&mut p, 5, 3));
        assert!(vm_clear(&mut p, 5, 2));
        assert_eq!(p[25], 0b0100);
    }

    #[test]
    fn free_space_of_a_block_goes_up_its_tree() {
        assert_eq!(fsm_position(0, 8192), Some((2, 0)));
        assert_eq!(fsm_position(4069, 8192), Some((3, 0)));
        assert_eq!(fsm_space_avail_to_cat(8160, 8192), 255);
        assert_eq!(fsm_space_avail_to_cat(100, 8192), 3);
        let mut p = alloc::vec![0u8; 8192];
        vm_page_ready(&mut p);
        assert!(fsm_set_avail(&mut p, 5, 7));
        assert_eq!(p[FP_NODES_AT], 7);
        assert_eq!(p[FP_NODES_AT + 4095 + 5], 7);
        assert!(!fsm_set_avail(&mut p, 5, 7));
        assert!(fsm_set_avail(&mut p, 5, 2));
        assert_eq!(p[FP_NODES_AT], 2);
    }
}
