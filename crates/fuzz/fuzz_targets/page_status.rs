//! Any bytes, any block number, either byte order: page status never panics, and a page's
//! status is consistent with its own verdict (computed absent exactly for new pages).
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgpage::page::checksum::{blocks_matching, finish};
use pgpage::page::verify::{verify_page, PageStatus};
use pgpage::Endian;

fuzz_target!(|data: &[u8]| {
    let Some((&head, page)) = data.split_first() else {
        return;
    };
    let endian = if head & 1 == 0 {
        Endian::Little
    } else {
        Endian::Big
    };
    let blkno = u32::from(head).wrapping_mul(0x9E37_79B9);
    let v = verify_page(page, blkno, endian);
    let new = matches!(v.status, PageStatus::Zero | PageStatus::NewNotZero);
    assert_eq!(v.computed.is_none(), new);
    // The blocks a mismatch's checksum is valid for, which `scan::FileScan` weighs: each
    // inside the searched range, each one the stored checksum is valid for.
    if v.status == PageStatus::Mismatch {
        for b in blocks_matching(v.fold, v.stored, blkno, 1 << 17) {
            assert!(b.wrapping_sub(blkno) < 1 << 17);
            assert_eq!(finish(v.fold, b), v.stored);
        }
    }
});
