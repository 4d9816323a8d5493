//! The portable body: one lane at a time, exactly checksum_impl.h's loop. Every other body
//! is held against this one by property tests.

use super::{pd_checksum_mask, BASE_OFFSETS, FNV_PRIME, N_SUMS, ROW_BYTES};
use crate::page::geometry::Endian;

#[inline(always)]
fn comp(sum: &mut u32, value: u32) {
    let tmp = *sum ^ value;
    *sum = tmp.wrapping_mul(FNV_PRIME) ^ (tmp >> 17);
}

#[inline(always)]
fn word(bytes: &[u8], endian: Endian) -> u32 {
    let mut w = [0u8; 4];
    for (d, s) in w.iter_mut().zip(bytes) {
        *d = *s;
    }
    match endian {
        Endian::Little => u32::from_le_bytes(w),
        Endian::Big => u32::from_be_bytes(w),
    }
}

/// pg_checksum_block over `page` with pd_checksum counted as zero.
pub fn checksum_fold(page: &[u8], endian: Endian) -> u32 {
    let mut sums = BASE_OFFSETS;
    let mut rows = page.chunks_exact(ROW_BYTES);
    if let Some(row) = rows.next() {
        for (j, (s, w)) in sums.iter_mut().zip(row.chunks_exact(4)).enumerate() {
            let v = word(w, endian);
            comp(
                s,
                if j == 2 {
                    v & pd_checksum_mask(endian)
                } else {
                    v
                },
            );
        }
    }
    for row in rows {
        for (s, w) in sums.iter_mut().zip(row.chunks_exact(4)) {
            comp(s, word(w, endian));
        }
    }
    let mut result = 0u32;
    for s in sums.iter_mut().take(N_SUMS) {
        comp(s, 0);
        comp(s, 0);
        result ^= *s;
    }
    result
}

/// Lane `lane` of pg_checksum_block after the two rounds of zeros, with the lane's word of
/// row 0 taken as `first` instead of the page's: a value of row 0 enters that lane alone, so
/// a search over one header field recomputes one lane (64 steps on an 8 kB page), not the
/// page. `lane` 2 (pd_checksum's) is not masked here.
pub fn lane_with_first(page: &[u8], endian: Endian, lane: usize, first: u32) -> u32 {
    let mut s = BASE_OFFSETS.get(lane).copied().unwrap_or(0);
    comp(&mut s, first);
    for row in page.chunks_exact(ROW_BYTES).skip(1) {
        let at = lane.saturating_mul(4);
        comp(&mut s, word(row.get(at..).unwrap_or_default(), endian));
    }
    comp(&mut s, 0);
    comp(&mut s, 0);
    s
}
