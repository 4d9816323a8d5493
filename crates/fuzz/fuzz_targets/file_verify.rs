//! Whole-file verification over any bytes: geometry, extents and the file's verdict, scanned
//! in two parts split at an arbitrary page boundary and merged, agree with one scan of the
//! whole file, whatever the checksum setting.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgpage::file::scan::{ChecksumsKnown, FileScan};
use pgpage::file::{file_geometry, GeometryChoice};
use pgpage::{BlockSize, Endian};

fuzz_target!(|data: &[u8]| {
    let Some((&head, file)) = data.split_first() else {
        return;
    };
    let endian = if head & 1 == 0 {
        Endian::Little
    } else {
        Endian::Big
    };
    // Small block sizes let short inputs hold several pages; detection gets its turn too.
    let block_size = match head >> 5 {
        0..=3 => None,
        n => BlockSize::new(1024 << (n - 4)),
    };
    let choice = GeometryChoice {
        block_size,
        endian: Some(endian),
    };
    let Ok(g) = file_geometry(file, choice, true) else {
        return;
    };
    let segno = u32::from(head >> 1);
    let Ok(mut whole) = FileScan::new(g, segno, file.len() as u64) else {
        return;
    };
    whole.chunk(file, 0);
    let blocks = whole.extent().blocks;
    // The same file in two parts split at a page boundary, the later part first.
    let split_pages = usize::from(head) % (blocks as usize + 1);
    let (a, b) = file.split_at(split_pages * g.block_size.len());
    let mut parts = FileScan::new(g, segno, file.len() as u64).unwrap();
    parts.chunk(b, split_pages as u32);
    let mut first = FileScan::new(g, segno, file.len() as u64).unwrap();
    first.chunk(a, 0);
    parts.merge(&first).unwrap();
    for known in [
        ChecksumsKnown::On,
        ChecksumsKnown::Off,
        ChecksumsKnown::Unknown,
    ] {
        let verdict = whole.finish(known);
        assert_eq!(verdict.counts.blocks(), u64::from(blocks));
        assert_eq!(parts.finish(known), verdict);
    }
});
