//! The visibility map page as heap redo changes it (visibilitymap.c): a heap block's two bits
//! set or cleared on the map page that holds them.

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
}
