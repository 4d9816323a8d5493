//! The wasm32 `simd128` body: the 32 lanes as 8 x i32x4 in one walk of the page, big-endian
//! pages byte-swapped per word with a byte swizzle. Compiled only when the build enables
//! simd128 (wasm has no runtime detection inside a module; the page loads a scalar or a SIMD
//! build). Its speed depends on the code V8 makes of it: bench/NOTES.md has the measurements
//! behind each choice below.

use core::arch::wasm32::{
    i32x4, i32x4_extract_lane, i32x4_mul, i8x16, i8x16_swizzle, u32x4_shr, u32x4_splat, v128,
    v128_and, v128_load, v128_xor,
};
use core::hint::black_box;

use super::{BASE_OFFSETS, FNV_PRIME, RAW_CHECKSUM_MASK, ROW_BYTES};
use crate::page::geometry::Endian;

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
fn load<const BIG: bool>(row: &[u8], k: usize, first: bool, swap: v128) -> v128 {
    // SAFETY: `row` comes from chunks_exact(ROW_BYTES), so it holds 128 bytes = 8 vectors
    // and k < 8; v128_load has no alignment requirement.
    let mut v = unsafe { v128_load(row.as_ptr().cast::<v128>().add(k)) };
    if first && k == 0 {
        v = v128_and(v, i32x4(-1, -1, RAW_CHECKSUM_MASK, -1));
    }
    if BIG {
        v = i8x16_swizzle(v, swap);
    }
    v
}

/// The whole page in one walk with all eight sums: eight independent multiply chains per row
/// keep the SIMD units as busy as native SSE4.1's do, where four (two walks) left them waiting
/// on each chain's latency. Never inlined, so that V8 allocates the loop's registers for this
/// function alone, whatever the caller LLVM would have put it in.
#[inline(never)]
fn rows<const BIG: bool>(page: &[u8]) -> u32 {
    // Made opaque to LLVM: a visible constant prime is rematerialized inside the loop (Chromium's
    // V8 then rebuilds it every row), and a visible constant swizzle is turned back into the
    // shuffle V8 lowers to six instructions per vector instead of a pshufb and an add.
    let prime = u32x4_splat(black_box(FNV_PRIME));
    let swap = if BIG {
        black_box(i8x16(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12))
    } else {
        u32x4_splat(0)
    };
    let mut sums: [v128; 8] = core::array::from_fn(|k| {
        let i = k.saturating_mul(4);
        let l = |d: usize| lane(i.saturating_add(d));
        i32x4(l(0), l(1), l(2), l(3))
    });
    let mut rows = page.chunks_exact(ROW_BYTES);
    if let Some(row) = rows.next() {
        for (k, s) in sums.iter_mut().enumerate() {
            *s = comp(*s, load::<BIG>(row, k, true, swap), prime);
        }
    }
    for row in rows {
        for (k, s) in sums.iter_mut().enumerate() {
            *s = comp(*s, load::<BIG>(row, k, false, swap), prime);
        }
    }
    // Through memory, so that the sums' registers are free once the loop ends: when the fold
    // below needed more registers than were left, V8 spilled a sum at its definition, inside
    // the loop, every row.
    let sums = black_box(sums);
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
