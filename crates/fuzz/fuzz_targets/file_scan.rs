//! A file's verdict over any bytes: the file scanned in one piece equals it scanned in two
//! parts merged (one through export and import), under every checksum setting; an export
//! cut short is refused.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgpage::file::scan::{ChecksumsKnown, FileScan};
use pgpage::file::{file_geometry, GeometryChoice};
use pgpage::{BlockSize, Endian};

fuzz_target!(|data: &[u8]| {
    let Some((&head, file)) = data.split_first() else {
        return;
    };
    let choice = GeometryChoice {
        // Small block sizes let short inputs hold several pages; detection gets its turn too.
        block_size: match head >> 5 {
            0..=3 => None,
            n => BlockSize::new(1024 << (n - 4)),
        },
        endian: Some(if head & 1 == 0 {
            Endian::Little
        } else {
            Endian::Big
        }),
    };
    let Ok(g) = file_geometry(file, choice, true) else {
        return;
    };
    let segno = u32::from(head >> 1);
    let Ok(mut whole) = FileScan::new(g, segno, file.len() as u64) else {
        return;
    };
    whole.chunk(file, 0);
    let blocks = whole.extent().blocks as usize;
    let split_pages = usize::from(head) % (blocks + 1);
    let (a, b) = file.split_at(split_pages * g.block_size.len());
    let mut first = FileScan::new(g, segno, file.len() as u64).unwrap();
    let mut second = first.clone();
    second.chunk(b, split_pages as u32);
    first.chunk(a, 0);
    let exported = second.export();
    first.merge(&FileScan::import(&exported).unwrap()).unwrap();
    for known in [
        ChecksumsKnown::On,
        ChecksumsKnown::Off,
        ChecksumsKnown::Unknown,
    ] {
        assert_eq!(first.finish(known), whole.finish(known));
    }
    assert!(FileScan::import(&exported[..exported.len() - 1]).is_err());
});
