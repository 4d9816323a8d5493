//! Bounds-checked, endian-aware reads of one page, TIDs as ItemPointerData holds them, and the
//! text forms pageinspect gives raw bytes and flag words.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::page::fields::Field;
use crate::page::geometry::{read_u16, read_u32, read_u64, Endian};

/// Endian-aware, bounds-checked reads from one page.
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    pub b: &'a [u8],
    pub e: Endian,
}

/// An ItemPointerData: block (bi_hi << 16 | bi_lo) and offset (ip_posid).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tid {
    pub block: u32,
    pub offset: u16,
}

impl Tid {
    /// tid's output function: `(block,offset)`.
    pub fn text(self) -> String {
        format!("({},{})", self.block, self.offset)
    }
}

impl<'a> Reader<'a> {
    pub fn len(&self) -> usize {
        self.b.len()
    }
    pub fn u8(&self, off: usize) -> Option<u8> {
        self.b.get(off).copied()
    }
    pub fn u16(&self, off: usize) -> Option<u16> {
        read_u16(self.b, off, self.e)
    }
    pub fn u32(&self, off: usize) -> Option<u32> {
        read_u32(self.b, off, self.e)
    }
    pub fn i32(&self, off: usize) -> Option<i32> {
        self.u32(off).map(|v| v as i32)
    }
    pub fn i64(&self, off: usize) -> Option<i64> {
        read_u64(self.b, off, self.e).map(|v| v as i64)
    }
    pub fn f64(&self, off: usize) -> Option<f64> {
        read_u64(self.b, off, self.e).map(f64::from_bits)
    }
    /// PageXLogRecPtr {xlogid, xrecoff} as pg_lsn prints it, in the form of a release not
    /// known yet (`DecodedPage::name_for` reprints it for a known one).
    pub fn lsn(&self, off: usize) -> Option<String> {
        let hi = self.u32(off)?;
        let lo = self.u32(off.checked_add(4)?)?;
        Some(crate::page::lsn::lsn_text(
            None,
            (u64::from(hi) << 32) | u64::from(lo),
        ))
    }
    pub fn tid(&self, off: usize) -> Option<Tid> {
        let hi = self.u16(off)?;
        let lo = self.u16(off.checked_add(2)?)?;
        let offset = self.u16(off.checked_add(4)?)?;
        Some(Tid {
            block: (u32::from(hi) << 16) | u32::from(lo),
            offset,
        })
    }
    /// A table field of up to 4 bytes (bit fields extracted) at `base`, 0 when unreadable.
    pub fn get(&self, base: usize, f: &Field) -> u32 {
        self.field(base, f).unwrap_or(0)
    }
    /// A table field of up to 4 bytes (bit fields extracted) at `base`.
    pub fn field(&self, base: usize, f: &Field) -> Option<u32> {
        let at = base.checked_add(usize::from(f.offset))?;
        let raw = match f.size {
            1 => u32::from(self.u8(at)?),
            2 => u32::from(self.u16(at)?),
            4 => self.u32(at)?,
            _ => return None,
        };
        Some(match f.bits {
            Some(b) => {
                let unit = u8::try_from(f.size.saturating_mul(8)).unwrap_or(32);
                raw.checked_shr(u32::from(b.shift_for(unit, self.e)))
                    .unwrap_or(0)
                    & b.mask()
            }
            None => raw,
        })
    }
    /// The bytes `[start, start+len)` that exist, and whether all of them did.
    pub fn bytes(&self, start: usize, len: usize) -> (&'a [u8], bool) {
        let end = start.saturating_add(len);
        let s = start.min(self.b.len());
        let e = end.min(self.b.len());
        (self.b.get(s..e).unwrap_or(&[]), e.saturating_sub(s) == len)
    }
}

/// Lowercase hex of bytes, optionally with a separator (bt_page_items' `data`). Two digit
/// pushes per byte, not `write!`: formatting machinery was half of decoding a page.
pub(crate) fn hex(bytes: &[u8], sep: &str) -> String {
    let mut s = String::with_capacity(bytes.len().saturating_mul(3));
    let digit = |v: u8| char::from_digit(u32::from(v), 16).unwrap_or('0');
    for (i, &b) in bytes.iter().enumerate() {
        if i > 0 {
            s.push_str(sep);
        }
        s.push(digit(b >> 4));
        s.push(digit(b & 0xF));
    }
    s
}

/// bytea's output as row_to_json prints it: `\x` then lowercase hex.
pub(crate) fn bytea(bytes: &[u8]) -> String {
    let mut s = String::from("\\x");
    s.push_str(&hex(bytes, ""));
    s
}

/// Flag names the way pageinspect's *_opaque_info functions print them: lowercase, without
/// the prefix, unknown bits as hex.
pub(crate) fn pageinspect_flags(value: u16, names: &[(u16, &'static str)]) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = value;
    for &(mask, name) in names {
        if value & mask != 0 {
            out.push(String::from(name));
        }
        rest &= !mask;
    }
    if rest != 0 {
        out.push(format!("{rest:x}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    #[test]
    fn hex_prints_every_byte_as_format_does() {
        let all: Vec<u8> = (0..=255).collect();
        let expected: Vec<String> = all.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex(&all, " "), expected.join(" "));
        assert_eq!(bytea(&all), format!("\\x{}", expected.concat()));
    }
}
