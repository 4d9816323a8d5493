//! Any bytes decompressed as pglz and lz4 to any declared size: exactly that size or a
//! finding, never a panic, a hang or an allocation beyond what the input could produce.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgpage::compress::{lz4, pglz};

fuzz_target!(|data: &[u8]| {
    let Some((size, rest)) = data.split_first_chunk::<3>() else { return };
    let raw = u32::from_le_bytes([size[0], size[1], size[2], 0]);
    if let Ok(v) = pglz(rest, raw) {
        assert_eq!(v.len(), raw as usize);
    }
    if let Ok(v) = lz4(rest, raw) {
        assert_eq!(v.len(), raw as usize);
    }
});
