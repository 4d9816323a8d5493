//! Arrays and ranges: array_out's layout and quoting (utils/adt/arrayfuncs.c over
//! ArrayType of array.h) and range_out's (rangetypes.c over RangeType of rangetypes.h).

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use super::{element, Type};
use crate::findings::Finding;
use crate::page::geometry::{read_u32, Endian};
use crate::tuple::{datum_len, Align};

/// Every dimension's product past this is damage: MaxArraySize.
const MAX_ARRAY_SIZE: u64 = 0x3FFF_FFFF / 8;
const MAXDIM: usize = 6;

/// array_out of an array's payload (after the varlena header): ndim, dataoffset (0 = no
/// null bitmap), elemtype, dims, lbounds, the bitmap, elements at their alignment.
pub fn array(p: &[u8], elem: &Type, e: Endian, out: &mut String) -> Result<(), Finding> {
    let word = |i: usize| read_u32(p, i.saturating_mul(4), e).ok_or(Finding::ValueInvalid);
    let ndim = word(0)? as usize;
    let dataoffset = word(1)? as usize;
    if ndim == 0 {
        out.push_str("{}");
        return Ok(());
    }
    if ndim > MAXDIM {
        return Err(Finding::ValueInvalid);
    }
    let mut dims = Vec::with_capacity(ndim);
    let mut lbs = Vec::with_capacity(ndim);
    let mut total: u64 = 1;
    for d in 0..ndim {
        let n = word(3usize.saturating_add(d))? as i32;
        let lb = word(3usize.saturating_add(ndim).saturating_add(d))? as i32;
        let n = usize::try_from(n).map_err(|_| Finding::ValueInvalid)?;
        total = total.saturating_mul(n as u64);
        dims.push(n);
        lbs.push(lb);
    }
    if total > MAX_ARRAY_SIZE {
        return Err(Finding::ValueInvalid);
    }
    let nitems = total as usize;
    // The header is 16 bytes with the varlena header; p starts 4 bytes in.
    let bitmap_at = ndim.saturating_mul(8).saturating_add(12);
    let (bitmap, data_start) = if dataoffset == 0 {
        (None, align8(bitmap_at.saturating_add(4)).saturating_sub(4))
    } else {
        let bytes = nitems.div_ceil(8);
        let b = p
            .get(bitmap_at..bitmap_at.saturating_add(bytes))
            .ok_or(Finding::ValueInvalid)?;
        (Some(b), dataoffset.saturating_sub(4))
    };
    let data = p.get(data_start..).ok_or(Finding::ValueInvalid)?;
    if lbs.iter().any(|&lb| lb != 1) {
        for (n, lb) in dims.iter().zip(&lbs) {
            let ub = i64::from(*lb).saturating_add(*n as i64).saturating_sub(1);
            let _ = write!(out, "[{lb}:{ub}]");
        }
        out.push('=');
    }
    let att = elem.attribute();
    let mut off = 0usize;
    let mut text = String::new();
    let mut item = 0usize;
    // Braces open and close as the odometer of indexes turns, as array_out writes them.
    let mut idx = alloc::vec![0usize; ndim];
    for _ in 0..ndim {
        out.push('{');
    }
    if nitems == 0 {
        for _ in 0..ndim {
            out.push('}');
        }
        return Ok(());
    }
    loop {
        let is_null = bitmap.is_some_and(|b| {
            b.get(item / 8)
                .is_some_and(|byte| byte & (1 << (item % 8)) == 0)
        });
        if is_null {
            out.push_str("NULL");
        } else {
            off = att.attalign.align(off);
            let rest = data.get(off..).ok_or(Finding::ValueInvalid)?;
            let len = datum_len(rest, att.attlen, e).map_err(|_| Finding::ValueInvalid)?;
            let bytes = rest.get(..len).ok_or(Finding::ValueInvalid)?;
            off = off.saturating_add(len);
            text.clear();
            element(elem, bytes, e, &mut text)?;
            quote_array_element(&text, out);
        }
        item = item.saturating_add(1);
        // Advance the odometer: close a brace per finished dimension, reopen as many.
        let mut d = ndim;
        let mut closed = 0usize;
        loop {
            if d == 0 {
                break;
            }
            d = d.saturating_sub(1);
            let (Some(i), Some(n)) = (idx.get_mut(d), dims.get(d)) else {
                return Err(Finding::ValueInvalid);
            };
            *i = i.saturating_add(1);
            if *i < *n {
                break;
            }
            *i = 0;
            closed = closed.saturating_add(1);
            if d == 0 {
                for _ in 0..closed {
                    out.push('}');
                }
                return Ok(());
            }
        }
        for _ in 0..closed {
            out.push('}');
        }
        out.push(',');
        for _ in 0..closed {
            out.push('{');
        }
    }
}

fn align8(v: usize) -> usize {
    crate::page::geometry::maxalign(v)
}

/// array_out's quoting: empty, "NULL" in any case, or a delimiter, brace, quote, backslash
/// or array_isspace character inside; quotes and backslashes are backslash-escaped.
fn quote_array_element(s: &str, out: &mut String) {
    let needs = s.is_empty()
        || s.eq_ignore_ascii_case("NULL")
        || s.bytes().any(|b| {
            matches!(
                b,
                b'"' | b'\\' | b'{' | b'}' | b',' | b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C
            )
        });
    if !needs {
        out.push_str(s);
        return;
    }
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

/// rangetypes.h: RangeType flags, the last byte of the value.
const RANGE_EMPTY: u8 = 0x01;
const RANGE_LB_INC: u8 = 0x02;
const RANGE_UB_INC: u8 = 0x04;
const RANGE_LB_INF: u8 = 0x08;
const RANGE_UB_INF: u8 = 0x10;

/// range_out of a range's payload: rangetypid, the bounds present (fetch_att with
/// att_align_pointer), the flags byte last.
pub fn range(p: &[u8], sub: &Type, e: Endian, out: &mut String) -> Result<(), Finding> {
    let (&flags, body) = p.split_last().ok_or(Finding::ValueInvalid)?;
    let data = body.get(4..).ok_or(Finding::ValueInvalid)?;
    range_bounds(flags, data, sub, e, out)
}

/// multirangetypes.h: MULTIRANGE_ITEM_OFF_BIT, an item that holds an offset, not a length.
const MULTIRANGE_ITEM_OFF_BIT: u32 = 0x8000_0000;

/// multirange_out of a multirange's payload (multirangetypes.h's MultirangeType after its
/// varlena header): multirangetypid, rangeCount, rangeCount - 1 items (every fourth an
/// offset, the others lengths), one flags byte per range, then each range's bounds as a
/// range stores them, the whole aligned as the range type (`range_align`).
pub fn multirange(
    p: &[u8],
    sub: &Type,
    range_align: Align,
    e: Endian,
    out: &mut String,
) -> Result<(), Finding> {
    let count = read_u32(p, 4, e).ok_or(Finding::ValueInvalid)? as usize;
    out.push('{');
    if count == 0 {
        out.push('}');
        return Ok(());
    }
    let items_at = 8usize;
    let flags_at = items_at.saturating_add(count.saturating_sub(1).saturating_mul(4));
    let flags = p
        .get(flags_at..flags_at.saturating_add(count))
        .ok_or(Finding::ValueInvalid)?;
    // MultirangeGetBoundariesPtr aligns from the start of the value, 4 bytes before `p`.
    let bounds_at = range_align
        .align(flags_at.saturating_add(count).saturating_add(4))
        .saturating_sub(4);
    let bounds = p.get(bounds_at..).ok_or(Finding::ValueInvalid)?;
    let item = |i: usize| read_u32(p, items_at.saturating_add(i.saturating_mul(4)), e);
    for (i, &f) in flags.iter().enumerate() {
        // multirange_get_bounds_offset: lengths summed back to the nearest offset.
        let mut offset = 0usize;
        let mut j = i;
        while j > 0 {
            let it = item(j.saturating_sub(1)).ok_or(Finding::ValueInvalid)?;
            offset = offset.saturating_add((it & !MULTIRANGE_ITEM_OFF_BIT) as usize);
            if it & MULTIRANGE_ITEM_OFF_BIT != 0 {
                break;
            }
            j = j.saturating_sub(1);
        }
        if i > 0 {
            out.push(',');
        }
        let data = bounds.get(offset..).ok_or(Finding::ValueInvalid)?;
        range_bounds(f, data, sub, e, out)?;
    }
    out.push('}');
    Ok(())
}

/// range_out from a range's flags and the bytes of its bounds (after rangetypid).
fn range_bounds(
    flags: u8,
    data: &[u8],
    sub: &Type,
    e: Endian,
    out: &mut String,
) -> Result<(), Finding> {
    if flags & RANGE_EMPTY != 0 {
        out.push_str("empty");
        return Ok(());
    }
    let att = sub.attribute();
    let mut off = 0usize;
    let take = |off: &mut usize| -> Result<&[u8], Finding> {
        if att.attlen != -1 || data.get(*off).is_none_or(|&b| b == 0) {
            *off = att.attalign.align(*off);
        }
        let rest = data.get(*off..).ok_or(Finding::ValueInvalid)?;
        let len = datum_len(rest, att.attlen, e).map_err(|_| Finding::ValueInvalid)?;
        let bytes = rest.get(..len).ok_or(Finding::ValueInvalid)?;
        *off = off.saturating_add(len);
        Ok(bytes)
    };
    let lower = if flags & RANGE_LB_INF == 0 {
        Some(take(&mut off)?)
    } else {
        None
    };
    let upper = if flags & RANGE_UB_INF == 0 {
        Some(take(&mut off)?)
    } else {
        None
    };
    out.push(if flags & RANGE_LB_INC != 0 { '[' } else { '(' });
    let mut text = String::new();
    if let Some(b) = lower {
        element(sub, b, e, &mut text)?;
        quote_range_bound(&text, out);
    }
    out.push(',');
    if let Some(b) = upper {
        text.clear();
        element(sub, b, e, &mut text)?;
        quote_range_bound(&text, out);
    }
    out.push(if flags & RANGE_UB_INC != 0 { ']' } else { ')' });
    Ok(())
}

/// range_bound_escape: quoted when empty or holding a quote, backslash, parenthesis,
/// bracket, comma or space; quotes and backslashes doubled.
fn quote_range_bound(s: &str, out: &mut String) {
    let needs = s.is_empty()
        || s.bytes().any(|b| {
            matches!(b, b'"' | b'\\' | b'(' | b')' | b'[' | b']' | b',')
                || b.is_ascii_whitespace()
                || b == 0x0B
        });
    if !needs {
        out.push_str(s);
        return;
    }
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push(c);
        }
        out.push(c);
    }
    out.push('"');
}
