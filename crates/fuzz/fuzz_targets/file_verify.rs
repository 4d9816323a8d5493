//! Whole-file verification over any bytes: block size detection, extents and every page's
//! result, chunked at an arbitrary boundary, agree with verifying the file in one piece.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgpage::file::{detect_block_size, FileExtent, FileVerifier, StatusCounts};
use pgpage::{BlockSize, Endian};

fuzz_target!(|data: &[u8]| {
    let Some((&head, file)) = data.split_first() else { return };
    let endian = if head & 1 == 0 { Endian::Little } else { Endian::Big };
    // Small block sizes let short inputs hold several pages; detection gets its turn too.
    let block_size = match head >> 5 {
        0..=3 => detect_block_size(file, endian).unwrap_or(BlockSize::DEFAULT),
        n => BlockSize::new(1024 << (n - 4)).unwrap_or(BlockSize::DEFAULT),
    };
    let Some(extent) = FileExtent::of_len(file.len() as u64, block_size) else { return };
    let v = FileVerifier { block_size, endian, segno: u32::from(head >> 1), blocks: extent.blocks };
    let mut whole = StatusCounts::default();
    let mut all = Vec::new();
    v.verify_chunk(file, 0, &mut whole, |_| true, |p| all.push(p));
    assert_eq!(whole.blocks(), u64::from(extent.blocks));
    // The same file in two chunks split at a page boundary.
    let split_pages = usize::from(head) % (extent.blocks as usize + 1);
    let cut = split_pages * block_size.len();
    let (a, b) = file.split_at(cut);
    let mut parts = StatusCounts::default();
    let mut split = Vec::new();
    v.verify_chunk(a, 0, &mut parts, |_| true, |p| split.push(p));
    v.verify_chunk(b, split_pages as u32, &mut parts, |_| true, |p| split.push(p));
    assert_eq!(parts, whole);
    assert_eq!(split, all);
});
