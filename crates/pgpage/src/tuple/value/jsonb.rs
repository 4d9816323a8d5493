//! jsonb as jsonb_out prints it (utils/adt/jsonb.c JsonbToCString over the on-disk
//! JsonbContainer of jsonb.h: a header word, JEntry words, then the children's data).

use alloc::string::String;
use core::fmt::Write;

use super::numeric::numeric;
use crate::findings::Finding;
use crate::page::geometry::{read_u32, Endian};
use crate::tuple::Varlena;

const JB_CMASK: u32 = 0x0FFF_FFFF;
const JB_FSCALAR: u32 = 0x1000_0000;
const JB_FOBJECT: u32 = 0x2000_0000;
const JB_FARRAY: u32 = 0x4000_0000;
const JENTRY_OFFLENMASK: u32 = 0x0FFF_FFFF;
const JENTRY_TYPEMASK: u32 = 0x7000_0000;
const JENTRY_HAS_OFF: u32 = 0x8000_0000;
const JENTRY_ISSTRING: u32 = 0x0000_0000;
const JENTRY_ISNUMERIC: u32 = 0x1000_0000;
const JENTRY_ISBOOL_FALSE: u32 = 0x2000_0000;
const JENTRY_ISBOOL_TRUE: u32 = 0x3000_0000;
const JENTRY_ISNULL: u32 = 0x4000_0000;
const JENTRY_ISCONTAINER: u32 = 0x5000_0000;
/// Deeper nesting than the server allows (check_stack_depth) is damage, not a value.
const MAX_DEPTH: u32 = 10_000;

/// jsonb_out of a jsonb's payload (the root container).
pub fn jsonb(p: &[u8], e: Endian, out: &mut String) -> Result<(), Finding> {
    container(p, e, out, 0)
}

fn container(c: &[u8], e: Endian, out: &mut String, depth: u32) -> Result<(), Finding> {
    if depth > MAX_DEPTH {
        return Err(Finding::ValueInvalid);
    }
    let header = read_u32(c, 0, e).ok_or(Finding::ValueInvalid)?;
    let count = (header & JB_CMASK) as usize;
    let object = header & JB_FOBJECT != 0;
    let is_array = header & JB_FARRAY != 0;
    if object == is_array {
        return Err(Finding::ValueInvalid);
    }
    let entries = if object {
        count.checked_mul(2).ok_or(Finding::ValueInvalid)?
    } else {
        count
    };
    let data_at = entries
        .checked_add(1)
        .and_then(|n| n.checked_mul(4))
        .ok_or(Finding::ValueInvalid)?;
    if data_at > c.len() {
        return Err(Finding::ValueInvalid);
    }
    let jentry = |i: usize| read_u32(c, i.saturating_add(1).saturating_mul(4), e);
    // getJsonbOffset: lengths summed back to the nearest entry that stores an offset.
    let offset = |i: usize| -> usize {
        let mut off = 0usize;
        let mut j = i;
        while j > 0 {
            j = j.saturating_sub(1);
            let je = jentry(j).unwrap_or(0);
            off = off.saturating_add((je & JENTRY_OFFLENMASK) as usize);
            if je & JENTRY_HAS_OFF != 0 {
                break;
            }
        }
        off
    };
    let child = |i: usize| -> Result<(u32, &[u8]), Finding> {
        let je = jentry(i).ok_or(Finding::ValueInvalid)?;
        let start = offset(i);
        let len = if je & JENTRY_HAS_OFF != 0 {
            offset(i.saturating_add(1)).saturating_sub(start)
        } else {
            (je & JENTRY_OFFLENMASK) as usize
        };
        let from = data_at.saturating_add(start);
        let bytes = from
            .checked_add(len)
            .and_then(|to| c.get(from..to))
            .ok_or(Finding::ValueInvalid)?;
        Ok((je & JENTRY_TYPEMASK, bytes))
    };
    // Numerics and containers start INTALIGNed from the container's start; the padding
    // counts in the child's length.
    let scalar = |i: usize, out: &mut String| -> Result<(), Finding> {
        let (kind, bytes) = child(i)?;
        match kind {
            JENTRY_ISSTRING => escape_json(bytes, out)?,
            JENTRY_ISNUMERIC => {
                let v = aligned(bytes, data_at.saturating_add(offset(i)));
                match Varlena::parse(v, e).map_err(|_| Finding::ValueInvalid)? {
                    Varlena::Inline(p) => numeric(p, e, out)?,
                    _ => return Err(Finding::ValueInvalid),
                }
            }
            JENTRY_ISBOOL_FALSE => out.push_str("false"),
            JENTRY_ISBOOL_TRUE => out.push_str("true"),
            JENTRY_ISNULL => out.push_str("null"),
            JENTRY_ISCONTAINER => container(
                aligned(bytes, data_at.saturating_add(offset(i))),
                e,
                out,
                depth.saturating_add(1),
            )?,
            _ => return Err(Finding::ValueInvalid),
        }
        Ok(())
    };
    if header & JB_FSCALAR != 0 {
        if !is_array || count != 1 {
            return Err(Finding::ValueInvalid);
        }
        return scalar(0, out);
    }
    if object {
        out.push('{');
        for i in 0..count {
            if i > 0 {
                out.push_str(", ");
            }
            let (kind, key) = child(i)?;
            if kind != JENTRY_ISSTRING {
                return Err(Finding::ValueInvalid);
            }
            escape_json(key, out)?;
            out.push_str(": ");
            scalar(i.saturating_add(count), out)?;
        }
        out.push('}');
    } else {
        out.push('[');
        for i in 0..count {
            if i > 0 {
                out.push_str(", ");
            }
            scalar(i, out)?;
        }
        out.push(']');
    }
    Ok(())
}

/// Numerics and containers start INTALIGNed from the container's start (`abs` is the
/// child's offset from there); the padding counts in the child's length.
fn aligned(bytes: &[u8], abs: usize) -> &[u8] {
    let pad = abs.wrapping_neg() & 3;
    bytes.get(pad..).unwrap_or_default()
}

/// json.c escape_json: quotes, backslash escapes, \uXXXX for other control characters.
fn escape_json(s: &[u8], out: &mut String) -> Result<(), Finding> {
    let s = core::str::from_utf8(s).map_err(|_| Finding::ValueInvalid)?;
    out.push('"');
    // Every escaped character is ASCII, so the runs between them are whole UTF-8.
    let mut from = 0;
    for (i, b) in s.bytes().enumerate() {
        if b >= 0x20 && b != b'"' && b != b'\\' {
            continue;
        }
        out.push_str(s.get(from..i).unwrap_or_default());
        from = i.saturating_add(1);
        match b {
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            _ => {
                let _ = write!(out, "\\u{:04x}", b);
            }
        }
    }
    out.push_str(s.get(from..).unwrap_or_default());
    out.push('"');
    Ok(())
}
