//! CRC-32C of WAL records as pg_crc32c computes it: the SSE4.2 crc32 instruction where the CPU
//! has it (the server's pg_crc32c_sse42.c does the same), else the crc crate's tables. Every
//! byte of the WAL goes through here, so this is most of a scan's time.

static TABLE: crc::Crc<u32, crc::Table<16>> =
    crc::Crc::<u32, crc::Table<16>>::new(&crc::CRC_32_ISCSI);

/// INIT_CRC32C, COMP_CRC32C over `first` then `second`, FIN_CRC32C.
pub(super) fn crc32c_of(first: &[u8], second: &[u8]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if has_sse42() {
        // SAFETY: has_sse42() has just confirmed the CPU supports SSE4.2.
        return unsafe { !sse42(sse42(!0, first), second) };
    }
    let mut digest = TABLE.digest();
    digest.update(first);
    digest.update(second);
    digest.finalize()
}

#[cfg(target_arch = "x86_64")]
fn has_sse42() -> bool {
    #[cfg(feature = "std")]
    {
        std::is_x86_feature_detected!("sse4.2")
    }
    #[cfg(not(feature = "std"))]
    {
        cfg!(target_feature = "sse4.2")
    }
}

/// The crc32 instruction over `data`, eight bytes at a time; `crc` is the register as is
/// (no inversion).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse4.2")]
fn sse42(crc: u32, data: &[u8]) -> u32 {
    use core::arch::x86_64::{_mm_crc32_u64, _mm_crc32_u8};
    let mut chunks = data.chunks_exact(8);
    let mut wide = u64::from(crc);
    for chunk in &mut chunks {
        let word: [u8; 8] = chunk.try_into().unwrap_or([0; 8]);
        wide = _mm_crc32_u64(wide, u64::from_le_bytes(word));
    }
    // The instruction leaves the 32-bit CRC in the low half.
    let mut crc = wide as u32;
    for &b in chunks.remainder() {
        crc = _mm_crc32_u8(crc, b);
    }
    crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_bodies_agree_with_the_check_value() {
        // CRC-32C's check value: the CRC of "123456789".
        assert_eq!(crc32c_of(b"12345", b"6789"), 0xE306_9283);
        let data: alloc::vec::Vec<u8> = (0..1000u32).map(|i| (i * 7 + 3) as u8).collect();
        let mut digest = TABLE.digest();
        digest.update(&data[..]);
        digest.update(&data[..13]);
        assert_eq!(crc32c_of(&data, &data[..13]), digest.finalize());
    }
}
