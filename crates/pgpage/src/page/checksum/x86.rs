//! x86_64 bodies: SSE4.1 keeps the 32 lanes in 8 x i32x4, AVX2 in 4 x i32x8; big-endian
//! pages are byte-swapped per word with one shuffle. Which of them this CPU runs is decided
//! once (runtime detection with the `std` feature, compile-time target features without).

use core::arch::x86_64::{
    __m128i, __m256i, _mm256_and_si256, _mm256_castsi256_si128, _mm256_extracti128_si256,
    _mm256_loadu_si256, _mm256_mullo_epi32, _mm256_set1_epi32, _mm256_setr_epi32, _mm256_setr_epi8,
    _mm256_shuffle_epi8, _mm256_srli_epi32, _mm256_xor_si256, _mm_and_si128, _mm_cvtsi128_si32,
    _mm_loadu_si128, _mm_mullo_epi32, _mm_set1_epi32, _mm_setr_epi32, _mm_setr_epi8,
    _mm_shuffle_epi32, _mm_shuffle_epi8, _mm_srli_epi32, _mm_xor_si128,
};
use core::sync::atomic::{AtomicU8, Ordering};

use super::{BASE_OFFSETS, FNV_PRIME, RAW_CHECKSUM_MASK, ROW_BYTES};
use crate::page::geometry::Endian;

/// FNV_PRIME as the signed lane value the intrinsics take (same bits).
const PRIME: i32 = FNV_PRIME as i32;
fn lane(i: usize) -> i32 {
    BASE_OFFSETS.get(i).map_or(0, |&v| v as i32)
}

/// Whether this CPU can run the SSE4.1 body.
pub fn has_sse41() -> bool {
    #[cfg(feature = "std")]
    {
        std::is_x86_feature_detected!("sse4.1")
    }
    #[cfg(not(feature = "std"))]
    {
        cfg!(target_feature = "sse4.1")
    }
}

/// Whether this CPU can run the AVX2 body.
pub fn has_avx2() -> bool {
    #[cfg(feature = "std")]
    {
        std::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(feature = "std"))]
    {
        cfg!(target_feature = "avx2")
    }
}

/// The SSE4.1 body, or None when the CPU lacks SSE4.1.
pub fn sse41_fold(page: &[u8], endian: Endian) -> Option<u32> {
    // SAFETY: has_sse41() has just confirmed the CPU supports SSE4.1.
    has_sse41().then(|| unsafe { sse41(page, endian) })
}

/// The AVX2 body, or None when the CPU lacks AVX2.
pub fn avx2_fold(page: &[u8], endian: Endian) -> Option<u32> {
    // SAFETY: has_avx2() has just confirmed the CPU supports AVX2.
    has_avx2().then(|| unsafe { avx2(page, endian) })
}

const UNKNOWN: u8 = 0;
const SCALAR: u8 = 1;
const SSE41: u8 = 2;
const AVX2: u8 = 3;

/// The body chosen for this CPU, detected on first use. Relaxed is enough: every thread
/// that races here detects the same answer.
static CHOSEN: AtomicU8 = AtomicU8::new(UNKNOWN);

fn chosen() -> u8 {
    match CHOSEN.load(Ordering::Relaxed) {
        UNKNOWN => {
            let body = if has_avx2() {
                AVX2
            } else if has_sse41() {
                SSE41
            } else {
                SCALAR
            };
            CHOSEN.store(body, Ordering::Relaxed);
            body
        }
        body => body,
    }
}

/// The name of the body `fold` runs on this CPU.
pub fn chosen_body() -> &'static str {
    match chosen() {
        AVX2 => "avx2",
        SSE41 => "sse4.1",
        _ => "scalar",
    }
}

/// The fastest body this CPU has.
pub fn fold(page: &[u8], endian: Endian) -> u32 {
    match chosen() {
        // SAFETY: chosen() picks AVX2 only after has_avx2() confirmed it on this CPU.
        AVX2 => unsafe { avx2(page, endian) },
        // SAFETY: chosen() picks SSE4.1 only after has_sse41() confirmed it on this CPU.
        SSE41 => unsafe { sse41(page, endian) },
        _ => super::scalar::checksum_fold(page, endian),
    }
}

#[target_feature(enable = "sse4.1")]
fn sse41(page: &[u8], endian: Endian) -> u32 {
    match endian {
        Endian::Little => sse41_rows::<false>(page),
        Endian::Big => sse41_rows::<true>(page),
    }
}

#[inline]
#[target_feature(enable = "sse4.1")]
fn sse41_comp(sum: __m128i, value: __m128i, prime: __m128i) -> __m128i {
    let tmp = _mm_xor_si128(sum, value);
    _mm_xor_si128(_mm_mullo_epi32(tmp, prime), _mm_srli_epi32::<17>(tmp))
}

#[inline]
#[target_feature(enable = "sse4.1")]
fn sse41_rows<const BIG: bool>(page: &[u8]) -> u32 {
    let prime = _mm_set1_epi32(PRIME);
    let swap = _mm_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12);
    let load = |row: &[u8], k: usize, first: bool| -> __m128i {
        // SAFETY: `row` comes from chunks_exact(ROW_BYTES), so it holds 128 bytes = 8
        // vectors and k < 8; loadu has no alignment requirement.
        let mut v = unsafe { _mm_loadu_si128(row.as_ptr().cast::<__m128i>().add(k)) };
        if first && k == 0 {
            v = _mm_and_si128(v, _mm_setr_epi32(-1, -1, RAW_CHECKSUM_MASK, -1));
        }
        if BIG {
            v = _mm_shuffle_epi8(v, swap);
        }
        v
    };
    let base = |k: usize| {
        let i = k.saturating_mul(4);
        _mm_setr_epi32(
            lane(i),
            lane(i.saturating_add(1)),
            lane(i.saturating_add(2)),
            lane(i.saturating_add(3)),
        )
    };
    let mut sums: [__m128i; 8] = core::array::from_fn(base);
    let mut rows = page.chunks_exact(ROW_BYTES);
    if let Some(row) = rows.next() {
        for (k, s) in sums.iter_mut().enumerate() {
            *s = sse41_comp(*s, load(row, k, true), prime);
        }
    }
    for row in rows {
        for (k, s) in sums.iter_mut().enumerate() {
            *s = sse41_comp(*s, load(row, k, false), prime);
        }
    }
    let zero = _mm_set1_epi32(0);
    let mut acc = zero;
    for s in sums {
        let s = sse41_comp(sse41_comp(s, zero, prime), zero, prime);
        acc = _mm_xor_si128(acc, s);
    }
    let acc = _mm_xor_si128(acc, _mm_shuffle_epi32::<0b01_00_11_10>(acc));
    let acc = _mm_xor_si128(acc, _mm_shuffle_epi32::<0b10_11_00_01>(acc));
    _mm_cvtsi128_si32(acc) as u32
}

#[target_feature(enable = "avx2")]
fn avx2(page: &[u8], endian: Endian) -> u32 {
    match endian {
        Endian::Little => avx2_rows::<false>(page),
        Endian::Big => avx2_rows::<true>(page),
    }
}

#[inline]
#[target_feature(enable = "avx2")]
fn avx2_comp(sum: __m256i, value: __m256i, prime: __m256i) -> __m256i {
    let tmp = _mm256_xor_si256(sum, value);
    _mm256_xor_si256(_mm256_mullo_epi32(tmp, prime), _mm256_srli_epi32::<17>(tmp))
}

#[inline]
#[target_feature(enable = "avx2")]
fn avx2_rows<const BIG: bool>(page: &[u8]) -> u32 {
    let prime = _mm256_set1_epi32(PRIME);
    let swap = _mm256_setr_epi8(
        3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8,
        15, 14, 13, 12,
    );
    let load = |row: &[u8], k: usize, first: bool| -> __m256i {
        // SAFETY: `row` comes from chunks_exact(ROW_BYTES), so it holds 128 bytes = 4
        // vectors and k < 4; loadu has no alignment requirement.
        let mut v = unsafe { _mm256_loadu_si256(row.as_ptr().cast::<__m256i>().add(k)) };
        if first && k == 0 {
            let mask = _mm256_setr_epi32(-1, -1, RAW_CHECKSUM_MASK, -1, -1, -1, -1, -1);
            v = _mm256_and_si256(v, mask);
        }
        if BIG {
            v = _mm256_shuffle_epi8(v, swap);
        }
        v
    };
    let base = |k: usize| {
        let i = k.saturating_mul(8);
        let l = |d: usize| lane(i.saturating_add(d));
        _mm256_setr_epi32(l(0), l(1), l(2), l(3), l(4), l(5), l(6), l(7))
    };
    let mut sums: [__m256i; 4] = core::array::from_fn(base);
    let mut rows = page.chunks_exact(ROW_BYTES);
    if let Some(row) = rows.next() {
        for (k, s) in sums.iter_mut().enumerate() {
            *s = avx2_comp(*s, load(row, k, true), prime);
        }
    }
    for row in rows {
        for (k, s) in sums.iter_mut().enumerate() {
            *s = avx2_comp(*s, load(row, k, false), prime);
        }
    }
    let zero = _mm256_set1_epi32(0);
    let mut acc = zero;
    for s in sums {
        let s = avx2_comp(avx2_comp(s, zero, prime), zero, prime);
        acc = _mm256_xor_si256(acc, s);
    }
    let half = _mm_xor_si128(
        _mm256_castsi256_si128(acc),
        _mm256_extracti128_si256::<1>(acc),
    );
    let half = _mm_xor_si128(half, _mm_shuffle_epi32::<0b01_00_11_10>(half));
    let half = _mm_xor_si128(half, _mm_shuffle_epi32::<0b10_11_00_01>(half));
    _mm_cvtsi128_si32(half) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::checksum::scalar;
    use crate::page::geometry::BlockSize;
    use proptest::prelude::*;

    type Body = fn(&[u8], Endian) -> Option<u32>;

    fn page_and_endian() -> impl Strategy<Value = (Vec<u8>, Endian)> {
        let endian = prop_oneof![Just(Endian::Little), Just(Endian::Big)];
        (prop::sample::select(&BlockSize::ALL[..]), endian)
            .prop_flat_map(|(size, e)| (prop::collection::vec(any::<u8>(), size as usize), Just(e)))
    }

    proptest! {
        #[test]
        fn sse41_equals_scalar((page, endian) in page_and_endian()) {
            let want = has_sse41().then(|| scalar::checksum_fold(&page, endian));
            prop_assert_eq!(sse41_fold(&page, endian), want);
        }

        #[test]
        fn avx2_equals_scalar((page, endian) in page_and_endian()) {
            let want = has_avx2().then(|| scalar::checksum_fold(&page, endian));
            prop_assert_eq!(avx2_fold(&page, endian), want);
        }

        /// Lengths that are not whole rows: every body ignores the partial row alike.
        #[test]
        fn odd_lengths_agree(page in prop::collection::vec(any::<u8>(), 0..1100)) {
            for endian in [Endian::Little, Endian::Big] {
                let want = scalar::checksum_fold(&page, endian);
                prop_assert_eq!(sse41_fold(&page, endian), has_sse41().then_some(want));
                prop_assert_eq!(avx2_fold(&page, endian), has_avx2().then_some(want));
            }
        }
    }

    /// pd_checksum (bytes 8..10) is ignored in both byte orders; pd_flags next to it is not.
    #[test]
    fn only_pd_checksum_is_masked() {
        let mut page: Vec<u8> = (0..8192u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
            .collect();
        for endian in [Endian::Little, Endian::Big] {
            let bodies: [Body; 3] = [
                |p, e| Some(scalar::checksum_fold(p, e)),
                sse41_fold,
                avx2_fold,
            ];
            for body in bodies {
                let Some(before) = body(&page, endian) else {
                    continue;
                };
                page[8] ^= 0xA5;
                page[9] ^= 0x5A;
                assert_eq!(body(&page, endian).unwrap(), before);
                page[10] ^= 1;
                assert_ne!(body(&page, endian).unwrap(), before);
                page[10] ^= 1;
                page[7] ^= 0x80;
                assert_ne!(body(&page, endian).unwrap(), before);
                page[7] ^= 0x80;
            }
        }
    }

    /// The bodies above only ran if detection found them: hold it against the kernel's own
    /// list of CPU flags, so that a machine with SSE4.1 and AVX2 really tests both.
    #[cfg(all(feature = "std", target_os = "linux"))]
    #[test]
    fn detection_agrees_with_proc_cpuinfo() {
        let info = std::fs::read_to_string("/proc/cpuinfo").unwrap();
        let flags: Vec<&str> = info
            .lines()
            .find(|l| l.starts_with("flags"))
            .unwrap()
            .split_whitespace()
            .collect();
        assert_eq!(has_sse41(), flags.contains(&"sse4_1"));
        assert_eq!(has_avx2(), flags.contains(&"avx2"));
    }

    #[test]
    fn dispatch_picks_the_best_body_here() {
        let want = if has_avx2() {
            "avx2"
        } else if has_sse41() {
            "sse4.1"
        } else {
            "scalar"
        };
        assert_eq!(chosen_body(), want);
    }
}
