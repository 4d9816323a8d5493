//! Decompression of TOAST-compressed values (access/common/toast_compression.c): pglz as
//! common/pg_lzcompress.c defines it, lz4 through lz4_flex. Both must produce exactly the
//! raw size the value declares; anything else is the server's "compressed data is corrupt".

use alloc::vec::Vec;

use crate::findings::Finding;

/// va_tcinfo / va_extinfo compression method ids (toast_compression.h ToastCompressionId).
pub const TOAST_PGLZ_COMPRESSION_ID: u8 = 0;
pub const TOAST_LZ4_COMPRESSION_ID: u8 = 1;

/// The largest raw size a varlena can declare (va_tcinfo's 30 bits); a bigger allocation is
/// never needed.
const MAX_RAWSIZE: u32 = 0x3FFF_FFFF;

/// Decompresses `data` with `method` into exactly `rawsize` bytes.
pub fn decompress(method: u8, data: &[u8], rawsize: u32) -> Result<Vec<u8>, Finding> {
    match method {
        TOAST_PGLZ_COMPRESSION_ID => pglz(data, rawsize),
        TOAST_LZ4_COMPRESSION_ID => lz4(data, rawsize),
        _ => Err(Finding::CompressionMethodInvalid),
    }
}

/// pg_lzcompress.c pglz_decompress with check_complete: a control byte, then 8 items, each
/// a literal byte (bit 0) or a 2-3 byte back reference (bit 1): length 3..18 in the low
/// nibble (18 adds a third byte), offset 1..4095 in the high nibble and the next byte.
/// Written here rather than taken from a crate: PostgreSQL's format has no maintained Rust
/// implementation, and its corruption rules (offset 0 or before the start, not ending
/// exactly at both ends) are part of what the server reports.
pub fn pglz(src: &[u8], rawsize: u32) -> Result<Vec<u8>, Finding> {
    if rawsize > MAX_RAWSIZE {
        return Err(Finding::PglzCorrupt);
    }
    let raw = rawsize as usize;
    // Each source byte yields at most 273/2 output bytes: a smaller raw size bounds the
    // allocation by what the input could ever produce.
    let cap = raw.min(src.len().saturating_mul(137).saturating_add(8));
    let mut dp: Vec<u8> = Vec::with_capacity(cap);
    let mut sp = 0usize;
    while sp < src.len() && dp.len() < raw {
        let Some(&ctrl) = src.get(sp) else { break };
        sp = sp.saturating_add(1);
        let mut ctrl = ctrl;
        let mut n = 0u8;
        while n < 8 && sp < src.len() && dp.len() < raw {
            if ctrl & 1 != 0 {
                let (Some(&a), Some(&b)) = (src.get(sp), src.get(sp.saturating_add(1))) else {
                    return Err(Finding::PglzCorrupt);
                };
                let mut len = usize::from(a & 0x0f).saturating_add(3);
                let off = (usize::from(a & 0xf0) << 4) | usize::from(b);
                sp = sp.saturating_add(2);
                if len == 18 {
                    let extra = src.get(sp).copied().ok_or(Finding::PglzCorrupt)?;
                    len = len.saturating_add(usize::from(extra));
                    sp = sp.saturating_add(1);
                }
                if off == 0 || off > dp.len() {
                    return Err(Finding::PglzCorrupt);
                }
                len = len.min(raw.saturating_sub(dp.len()));
                // Overlapping copies repeat the last `off` bytes, byte by byte.
                let from = dp.len().saturating_sub(off);
                for i in 0..len {
                    let byte = dp.get(from.saturating_add(i)).copied().unwrap_or(0);
                    dp.push(byte);
                }
            } else {
                let byte = src.get(sp).copied().ok_or(Finding::PglzCorrupt)?;
                dp.push(byte);
                sp = sp.saturating_add(1);
            }
            ctrl >>= 1;
            n = n.saturating_add(1);
        }
    }
    if dp.len() != raw || sp != src.len() {
        return Err(Finding::PglzCorrupt);
    }
    Ok(dp)
}

/// toast_compression.c lz4_decompress_datum (LZ4_decompress_safe), held to the declared size.
pub fn lz4(src: &[u8], rawsize: u32) -> Result<Vec<u8>, Finding> {
    if rawsize > MAX_RAWSIZE {
        return Err(Finding::Lz4Corrupt);
    }
    let raw = rawsize as usize;
    // lz4 expands at most 255x; a declared size beyond that is damage, not an allocation.
    if raw > src.len().saturating_mul(255).saturating_add(16) {
        return Err(Finding::Lz4Corrupt);
    }
    let mut out = alloc::vec![0u8; raw];
    match lz4_flex::block::decompress_into(src, &mut out) {
        Ok(n) if n == raw => Ok(out),
        _ => Err(Finding::Lz4Corrupt),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pglz_literals_and_overlapping_reference() {
        // ctrl 0b0010: literal 'a', then a reference of length 3+2=5 at offset 1 -> "aaaaaa".
        let src = [0b0000_0010, b'a', 0x02, 0x01];
        assert_eq!(pglz(&src, 6).unwrap(), b"aaaaaa");
        assert_eq!(pglz(&src, 7), Err(Finding::PglzCorrupt));
        assert_eq!(pglz(&[0b1, 0x02, 0x01], 5), Err(Finding::PglzCorrupt));
    }

    #[test]
    fn lz4_round_trip_and_size_check() {
        let data = b"hello hello hello hello hello";
        let c = lz4_flex::block::compress(data);
        assert_eq!(lz4(&c, data.len() as u32).unwrap(), data);
        assert_eq!(lz4(&c, data.len() as u32 + 1), Err(Finding::Lz4Corrupt));
        assert_eq!(decompress(2, &c, 3), Err(Finding::CompressionMethodInvalid));
    }

    proptest::proptest! {
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..400), raw in 0u32..5000) {
            let _ = pglz(&bytes, raw);
            let _ = lz4(&bytes, raw);
        }
    }
}
