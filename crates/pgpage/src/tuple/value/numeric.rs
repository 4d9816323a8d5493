//! Numbers as PostgreSQL prints them: int2/4/8out, float4/8out with extra_float_digits=1
//! (shortest round-trip digits, laid out as src/common/d2s.c's to_chars does), numeric_out.

use alloc::string::String;

use crate::findings::Finding;
use crate::page::geometry::{read_u16, Endian};

/// float8out / float4out for extra_float_digits > 0: Ryu's shortest digits in d2s.c's and
/// f2s.c's layout (fixed point for display exponents -4..14 and -4..5, else `d.ddde+XX`).
pub fn float(v: f64, is_float4: bool, out: &mut String) {
    if v.is_nan() {
        out.push_str("NaN");
        return;
    }
    if v.is_infinite() {
        out.push_str(if v > 0.0 { "Infinity" } else { "-Infinity" });
        return;
    }
    if v == 0.0 {
        out.push_str(if v.is_sign_negative() { "-0" } else { "0" });
        return;
    }
    let mut buf = ryu::Buffer::new();
    // f32 -> f64 is exact, but its shortest digits are the f32's own.
    let s = if is_float4 {
        buf.format_finite(v as f32)
    } else {
        buf.format_finite(v)
    };
    let (negative, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (mantissa, exp10) = match s.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (s, 0),
    };
    // Ryu prints digits with a point somewhere; bring them to d1 d2 ... x 10^(point - 1).
    // At most 17 significant digits: a buffer on the stack, not a String per value.
    let mut buf = [0u8; 24];
    let mut n = 0usize;
    let mut point: i32 = 0;
    let mut seen_point = false;
    for c in mantissa.bytes() {
        if c == b'.' {
            seen_point = true;
        } else if c.is_ascii_digit() {
            if n == 0 && c == b'0' {
                if seen_point {
                    point = point.saturating_sub(1);
                }
                continue;
            }
            if let Some(slot) = buf.get_mut(n) {
                *slot = c;
                n = n.saturating_add(1);
            }
            if !seen_point {
                point = point.saturating_add(1);
            }
        }
    }
    let digits = buf.get(..n).unwrap_or_default();
    let digits = match digits.iter().rposition(|&d| d != b'0') {
        Some(last) => digits.get(..=last).unwrap_or_default(),
        None => &[],
    };
    let digits = core::str::from_utf8(digits).unwrap_or_default();
    let display = point.saturating_sub(1).saturating_add(exp10);
    if negative {
        out.push('-');
    }
    let upper = if is_float4 { 6 } else { 15 };
    let n = i32::try_from(digits.len()).unwrap_or(i32::MAX);
    if (-4..upper).contains(&display) {
        if display < 0 {
            out.push_str("0.");
            for _ in 0..display.saturating_neg().saturating_sub(1) {
                out.push('0');
            }
            out.push_str(digits);
        } else {
            let int_digits = display.saturating_add(1);
            if n <= int_digits {
                out.push_str(digits);
                for _ in 0..int_digits.saturating_sub(n) {
                    out.push('0');
                }
            } else {
                let (a, b) = digits.split_at(int_digits.unsigned_abs() as usize);
                out.push_str(a);
                out.push('.');
                out.push_str(b);
            }
        }
    } else {
        let (first, rest) = digits.split_at(1.min(digits.len()));
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let sign = if display < 0 { '-' } else { '+' };
        out.push('e');
        out.push(sign);
        super::push_uint(out, u64::from(display.unsigned_abs()), 2);
    }
}

/// numeric.h: the header forms of a numeric's first 16 bits.
const NUMERIC_SIGN_MASK: u16 = 0xC000;
const NUMERIC_NEG: u16 = 0x4000;
const NUMERIC_SHORT: u16 = 0x8000;
const NUMERIC_SPECIAL: u16 = 0xC000;
const NUMERIC_EXT_SIGN_MASK: u16 = 0xF000;
const NUMERIC_NAN: u16 = 0xC000;
const NUMERIC_PINF: u16 = 0xD000;
const NUMERIC_NINF: u16 = 0xF000;
const NUMERIC_SHORT_SIGN_MASK: u16 = 0x2000;
const NUMERIC_SHORT_DSCALE_MASK: u16 = 0x1F80;
const NUMERIC_SHORT_WEIGHT_SIGN_MASK: u16 = 0x0040;
const NUMERIC_SHORT_WEIGHT_MASK: u16 = 0x003F;
const NUMERIC_DSCALE_MASK: u16 = 0x3FFF;
const NBASE: u16 = 10000;

/// numeric_out of a numeric's varlena payload (the bytes after the varlena header), both
/// the short (NUMERIC_SHORT) and the long header forms, NaN and +-Infinity.
pub fn numeric(p: &[u8], e: Endian, out: &mut String) -> Result<(), Finding> {
    let header = read_u16(p, 0, e).ok_or(Finding::ValueInvalid)?;
    let (negative, dscale, weight, digits_at) = match header & NUMERIC_SIGN_MASK {
        NUMERIC_SPECIAL => {
            out.push_str(match header & NUMERIC_EXT_SIGN_MASK {
                NUMERIC_NAN => "NaN",
                NUMERIC_PINF => "Infinity",
                NUMERIC_NINF => "-Infinity",
                _ => return Err(Finding::ValueInvalid),
            });
            return Ok(());
        }
        NUMERIC_SHORT => {
            let w = header & NUMERIC_SHORT_WEIGHT_MASK;
            let weight = if header & NUMERIC_SHORT_WEIGHT_SIGN_MASK != 0 {
                i32::from(w).wrapping_sub(64)
            } else {
                i32::from(w)
            };
            (
                header & NUMERIC_SHORT_SIGN_MASK != 0,
                usize::from((header & NUMERIC_SHORT_DSCALE_MASK) >> 7),
                weight,
                2,
            )
        }
        sign => {
            let weight = read_u16(p, 2, e).ok_or(Finding::ValueInvalid)? as i16;
            (
                sign == NUMERIC_NEG,
                usize::from(header & NUMERIC_DSCALE_MASK),
                i32::from(weight),
                4,
            )
        }
    };
    let raw = p.get(digits_at..).unwrap_or_default();
    if raw.len() % 2 != 0 {
        return Err(Finding::ValueInvalid);
    }
    let ndigits = raw.len() / 2;
    let digit = |i: i32| -> Result<u16, Finding> {
        // Digit i holds NBASE^(weight - i); digits past the stored ones are zero.
        match usize::try_from(i) {
            Ok(i) if i < ndigits => {
                let d = read_u16(raw, i.saturating_mul(2), e).ok_or(Finding::ValueInvalid)?;
                if d >= NBASE {
                    return Err(Finding::ValueInvalid);
                }
                Ok(d)
            }
            _ => Ok(0),
        }
    };
    // get_str_from_var prints the sign whenever it is NUMERIC_NEG.
    if negative {
        out.push('-');
    }
    // get_str_from_var: the integer part, the first group without leading zeros.
    if weight < 0 {
        out.push('0');
    } else {
        for i in 0..=weight {
            let d = digit(i)?;
            super::push_uint(out, u64::from(d), if i == 0 { 1 } else { 4 });
        }
    }
    if dscale > 0 {
        out.push('.');
        let mut written = 0usize;
        let mut i = weight.saturating_add(1);
        while written < dscale {
            let d = digit(i)?;
            let s = [d / 1000, (d / 100) % 10, (d / 10) % 10, d % 10];
            for x in s {
                if written < dscale {
                    out.push(char::from(b'0'.saturating_add(x as u8)));
                    written = written.saturating_add(1);
                }
            }
            i = i.saturating_add(1);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f8(v: f64) -> String {
        let mut s = String::new();
        float(v, false, &mut s);
        s
    }

    fn f4(v: f32) -> String {
        let mut s = String::new();
        float(f64::from(v), true, &mut s);
        s
    }

    // Expected strings: PostgreSQL 15 casting the same literals, extra_float_digits=1.
    #[test]
    fn floats_as_postgres_prints_them() {
        assert_eq!(f8(1.0), "1");
        assert_eq!(f8(0.1), "0.1");
        assert_eq!(f8(-1.5e-5), "-1.5e-05");
        assert_eq!(f8(1e15), "1e+15");
        assert_eq!(f8(123456789012345.0), "123456789012345");
        assert_eq!(f8(0.0001), "0.0001");
        assert_eq!(f8(1e100), "1e+100");
        assert_eq!(f8(1.7976931348623157e308), "1.7976931348623157e+308");
        assert_eq!(f8(-0.0), "-0");
        assert_eq!(f4(1.1), "1.1");
        assert_eq!(f4(100000.0), "100000");
        assert_eq!(f4(1000000.0), "1e+06");
        assert_eq!(f4(3.4028235e38), "3.4028235e+38");
    }
}
