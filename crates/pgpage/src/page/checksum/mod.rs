//! PostgreSQL's data page checksum (storage/checksum_impl.h): 32 parallel FNV-1a-like lanes
//! over the page read as rows of 32 u32 words, pd_checksum counted as zero, two rounds of
//! zeros, an xor-fold, the block number mixed in, reduced to 1..=65535.
//!
//! One signature, several bodies: `scalar` everywhere, `x86` (SSE4.1, AVX2) picked at run
//! time, `wasm` (simd128) when the build enables it. `checksum_fold` dispatches.

pub mod scalar;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub mod wasm;
#[cfg(target_arch = "x86_64")]
pub mod x86;

use crate::page::geometry::Endian;

/// Clears the two bytes of pd_checksum (page bytes 8 and 9: the low half of lane 2 as loaded
/// in memory order). Applied before any byte swap, so it serves both byte orders.
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
const RAW_CHECKSUM_MASK: i32 = 0xFFFF_0000_u32 as i32;

/// Number of parallel sums (checksum_impl.h: N_SUMS).
pub const N_SUMS: usize = 32;
/// Bytes in one row of the page as the checksum walks it.
pub const ROW_BYTES: usize = N_SUMS * 4;
/// checksum_impl.h: FNV_PRIME.
pub const FNV_PRIME: u32 = 16_777_619;
/// Byte offset of pd_checksum in PageHeaderData (bufpage.h); it is the low-addressed half of
/// the third word of the first row.
pub const PD_CHECKSUM_OFFSET: usize = 8;

/// checksum_impl.h: checksumBaseOffsets, the initial state of each lane.
pub const BASE_OFFSETS: [u32; N_SUMS] = [
    0x5B1F36E9, 0xB8525960, 0x02AB50AA, 0x1DE66D2A, 0x79FF467A, 0x9BB9F8A3, 0x217E7CD2, 0x83E13D2C,
    0xF8D4474F, 0xE39EB970, 0x42C6AE16, 0x993216FA, 0x7B093B5D, 0x98DAFF3C, 0xF718902A, 0x0B1C9CDB,
    0xE58F764B, 0x187636BC, 0x5D7B3BB1, 0xE73DE7DE, 0x92BEC979, 0xCCA6C0B2, 0x304A0979, 0x85AA43D4,
    0x783125BB, 0x6CA8EAA2, 0xE407EAC6, 0x4B5CFC3E, 0x9FBF8C76, 0x15CA20BE, 0xF2CA9FD3, 0x959BD756,
];

/// The mask that zeroes pd_checksum inside word 2 of row 0, as that word reads in `endian`.
pub const fn pd_checksum_mask(endian: Endian) -> u32 {
    match endian {
        Endian::Little => 0xFFFF_0000,
        Endian::Big => 0x0000_FFFF,
    }
}

/// The xor-folded lanes of a page (pg_checksum_block) with pd_checksum taken as zero, using
/// the fastest body this build and CPU have. `page.len()` should be a whole number of rows
/// (every PostgreSQL block size is); a partial last row is ignored.
pub fn checksum_fold(page: &[u8], endian: Endian) -> u32 {
    #[cfg(target_arch = "x86_64")]
    let fold = x86::fold(page, endian);
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let fold = wasm::simd128_fold(page, endian);
    #[cfg(not(any(
        target_arch = "x86_64",
        all(target_arch = "wasm32", target_feature = "simd128")
    )))]
    let fold = scalar::checksum_fold(page, endian);
    fold
}

/// The name of the body `checksum_fold` runs here: "avx2", "sse4.1", "simd128" or "scalar".
pub fn dispatched_body() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    let name = x86::chosen_body();
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let name = "simd128";
    #[cfg(not(any(
        target_arch = "x86_64",
        all(target_arch = "wasm32", target_feature = "simd128")
    )))]
    let name = "scalar";
    name
}

/// pg_checksum_page's last step: mix in the block number and reduce to 1..=65535.
pub fn finish(fold: u32, blkno: u32) -> u16 {
    let reduced = (fold ^ blkno) % 65535;
    // reduced < 65535, so the sum fits in u16.
    (reduced as u16).wrapping_add(1)
}

/// pg_checksum_page(page, blkno) as the server computes it.
pub fn pg_checksum_page(page: &[u8], blkno: u32, endian: Endian) -> u16 {
    finish(checksum_fold(page, endian), blkno)
}

/// The block numbers in `first..first + count` (relation-wide) for which a page whose
/// lanes fold to `fold` would carry the checksum `stored`. Solved arithmetically per 65536
/// aligned block numbers (2^16 = 1 mod 65535), so it costs O(count / 65536), not O(count).
pub fn blocks_matching(
    fold: u32,
    stored: u16,
    first: u32,
    count: u32,
) -> impl Iterator<Item = u32> {
    let end = u64::from(first).saturating_add(u64::from(count));
    let target = u32::from(stored).wrapping_sub(1);
    let first_chunk = first >> 16;
    let last_chunk = (end.saturating_sub(1) >> 16) as u32;
    let valid = stored != 0 && count != 0;
    let chunks = valid
        .then_some(first_chunk..=last_chunk)
        .into_iter()
        .flatten();
    chunks.flat_map(move |c| {
        // x = fold ^ b = (hi ^ c) * 65536 + (lo ^ y), and 65536 = 1 (mod 65535), so
        // x mod 65535 = ((hi ^ c) + (lo ^ y)) mod 65535 with lo ^ y in 0..=65535.
        let h = ((fold >> 16) ^ c) % 65535;
        // Both terms are below 65535, so neither step can wrap.
        let want = (target % 65535).wrapping_add(65535).wrapping_sub(h) % 65535;
        let alt = if want == 0 { Some(65535u32) } else { None };
        core::iter::once(want).chain(alt).filter_map(move |low| {
            let b = (c << 16) | ((fold & 0xFFFF) ^ low);
            (u64::from(b) >= u64::from(first) && u64::from(b) < end).then_some(b)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::geometry::BlockSize;
    use proptest::prelude::*;

    proptest! {
        /// The dispatched body (whichever this build and CPU pick) equals the scalar one.
        #[test]
        fn dispatched_equals_scalar(
            (page, big) in prop::sample::select(&BlockSize::ALL[..]).prop_flat_map(|size| {
                (prop::collection::vec(any::<u8>(), size as usize), any::<bool>())
            })
        ) {
            let endian = if big { Endian::Big } else { Endian::Little };
            prop_assert_eq!(checksum_fold(&page, endian), scalar::checksum_fold(&page, endian));
        }
    }

    #[test]
    fn blocks_matching_agrees_with_brute_force() {
        let mut x: u32 = 0x1234_5678;
        for _ in 0..200 {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let fold = x;
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let first = x % 400_000;
            let count = 140_000;
            let stored = finish(fold, first.wrapping_add(x % count));
            let mut fast: Vec<u32> = blocks_matching(fold, stored, first, count).collect();
            fast.sort_unstable();
            let slow: Vec<u32> = (first..first + count)
                .filter(|&b| finish(fold, b) == stored)
                .collect();
            assert_eq!(fast, slow);
            assert!(!fast.is_empty());
        }
    }

    #[test]
    fn stored_zero_never_matches() {
        assert_eq!(blocks_matching(7, 0, 0, 1 << 20).count(), 0);
    }
}
