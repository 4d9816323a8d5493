//! The wasm32 `simd128` body: the 32 lanes as 8 x i32x4 (in two walks of four), big-endian
//! pages byte-swapped per word with one shuffle. Compiled only when the build enables simd128
//! (wasm has no runtime detection inside a module; the page loads a scalar or a SIMD build).

use core::arch::wasm32::{
    i32x4, i32x4_extract_lane, i32x4_mul, i8x16_shuffle, u32x4_shr, u32x4_splat, v128, v128_and,
    v128_load, v128_xor,
};

use super::{BASE_OFFSETS, FNV_PRIME, ROW_BYTES};
use crate::layout::Endian;

/// Clears the two bytes of pd_checksum (page bytes 8 and 9: the low half of lane 2 as loaded
/// in memory order). Applied before any byte swap, so it serves both byte orders.
const RAW_CHECKSUM_MASK: i32 = 0xFFFF_0000_u32 as i32;

fn lane(i: usize) -> i32 {
    BASE_OFFSETS.get(i).map_or(0, |&v| v as i32)
}

/// pg_checksum_block over `page` with pd_checksum counted as zero, on simd128.
pub fn simd128_fold(page: &[u8], endian: Endian) -> u32 {
    match endian {
        Endian::Little => rows::<false>(page),
        Endian::Big => rows::<true>(page),
    }
}

#[inline(always)]
fn comp(sum: v128, value: v128, prime: v128) -> v128 {
    let tmp = v128_xor(sum, value);
    v128_xor(i32x4_mul(tmp, prime), u32x4_shr(tmp, 17))
}

#[inline(always)]
fn load<const BIG: bool>(row: &[u8], k: usize, first: bool) -> v128 {
    // SAFETY: `row` comes from chunks_exact(ROW_BYTES), so it holds 128 bytes = 8 vectors
    // and k < 8; v128_load has no alignment requirement.
    let mut v = unsafe { v128_load(row.as_ptr().cast::<v128>().add(k)) };
    if first && k == 0 {
        v = v128_and(v, i32x4(-1, -1, RAW_CHECKSUM_MASK, -1));
    }
    if BIG {
        v = i8x16_shuffle::<3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12>(v, v);
    }
    v
}

/// The page in two walks of sixteen lanes (four sums) each. One walk with all eight sums is
/// the natural shape, but V8 hoists a row's loads ahead of the arithmetic, runs out of xmm
/// registers and spills a sum every row; two walks keep everything in registers and measured
/// 941-969 cycles per 8 KB page in Node 20 against 999-1138 (bench/NOTES.md).
#[inline(always)]
fn rows<const BIG: bool>(page: &[u8]) -> u32 {
    half::<BIG>(page, 0) ^ half::<BIG>(page, 4)
}

/// Sums `first..first + 4` (lanes `4 * first..4 * first + 16`) over the whole page, folded.
#[inline(always)]
fn half<const BIG: bool>(page: &[u8], first: usize) -> u32 {
    let prime = u32x4_splat(FNV_PRIME);
    let mut sums: [v128; 4] = core::array::from_fn(|k| {
        let i = k.saturating_add(first).saturating_mul(4);
        let l = |d: usize| lane(i.saturating_add(d));
        i32x4(l(0), l(1), l(2), l(3))
    });
    let mut rows = page.chunks_exact(ROW_BYTES);
    if let Some(row) = rows.next() {
        for (k, s) in sums.iter_mut().enumerate() {
            *s = comp(*s, load::<BIG>(row, k.saturating_add(first), true), prime);
        }
    }
    for row in rows {
        for (k, s) in sums.iter_mut().enumerate() {
            *s = comp(*s, load::<BIG>(row, k.saturating_add(first), false), prime);
        }
    }
    let zero = u32x4_splat(0);
    let mut acc = zero;
    for s in sums {
        acc = v128_xor(acc, comp(comp(s, zero, prime), zero, prime));
    }
    let folded = i32x4_extract_lane::<0>(acc)
        ^ i32x4_extract_lane::<1>(acc)
        ^ i32x4_extract_lane::<2>(acc)
        ^ i32x4_extract_lane::<3>(acc);
    folded as u32
}
