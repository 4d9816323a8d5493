//! Column values as PostgreSQL's output functions print them (the settings of
//! docs/contracts.md, "rows": DateStyle ISO, TimeZone UTC, IntervalStyle postgres,
//! extra_float_digits 1, bytea_output hex). A type is named as pg_type names it; what the
//! server would print is either produced exactly or refused with a finding, never guessed.

mod array;
mod datetime;
mod jsonb;
mod net;
mod numeric;

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use crate::findings::Finding;
use crate::page::geometry::Endian;
use crate::tuple::{self, Align, Attribute, Varlena};

pub use numeric::float;

/// A column's type, as far as its output function needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Type {
    Bool,
    Int2,
    Int4,
    Int8,
    /// oid, and xid/cid/regproc-like unsigned 4-byte types.
    Oid,
    Float4,
    Float8,
    Numeric,
    Text,
    Varchar,
    Bpchar,
    Name,
    /// The one-byte `"char"`.
    Char,
    Bytea,
    Date,
    Time,
    TimeTz,
    Timestamp,
    TimestampTz,
    Interval,
    Uuid,
    Json,
    Jsonb,
    Inet,
    Cidr,
    MacAddr,
    MacAddr8,
    Bit,
    VarBit,
    Array(Box<Type>),
    Range(Box<Type>),
    /// A multirange of ranges of the subtype (PostgreSQL 14+).
    Multirange(Box<Type>),
    /// A composite (a table's row type or CREATE TYPE ... AS): pg_type's typname and
    /// typalign, and every attribute of its typrelid in attnum order, dropped ones included
    /// (they hold a place in the stored tuple).
    Composite {
        name: String,
        attributes: Vec<(Type, Attribute)>,
        align: Align,
    },
    /// An enum: pg_enum's (oid, enumlabel) pairs of the type.
    Enum(Vec<(u32, String)>),
    /// A type without an output function here: printed as its name and its bytes in hex.
    Unknown {
        name: String,
        attlen: i16,
        attalign: Align,
    },
}

impl Type {
    /// A built-in type by its pg_type OID (pg_type.dat: initdb gives every cluster the same
    /// OIDs for these), for what only the OID names, as an index's key attributes.
    pub fn from_builtin_oid(oid: u32) -> Option<Type> {
        Type::from_name(match oid {
            16 => "bool",
            17 => "bytea",
            18 => "char",
            19 => "name",
            20 => "int8",
            21 => "int2",
            23 => "int4",
            25 => "text",
            26 => "oid",
            114 => "json",
            650 => "cidr",
            700 => "float4",
            701 => "float8",
            774 => "macaddr8",
            829 => "macaddr",
            869 => "inet",
            1042 => "bpchar",
            1043 => "varchar",
            1082 => "date",
            1083 => "time",
            1114 => "timestamp",
            1184 => "timestamptz",
            1186 => "interval",
            1266 => "timetz",
            1560 => "bit",
            1562 => "varbit",
            1700 => "numeric",
            2950 => "uuid",
            3802 => "jsonb",
            _ => return None,
        })
    }

    /// A built-in type by its pg_type.typname, a common SQL alias (integer, bigint, text,
    /// "double precision", ...) or an array of one (`int4[]`, `_int4`); None if unknown.
    pub fn from_name(name: &str) -> Option<Type> {
        let n = name.trim();
        if let Some(elem) = n.strip_suffix("[]") {
            return Type::from_name(elem).map(|t| Type::Array(Box::new(t)));
        }
        if let Some(elem) = n.strip_prefix('_') {
            return Type::from_name(elem).map(|t| Type::Array(Box::new(t)));
        }
        let lower = n.to_ascii_lowercase();
        Some(match lower.as_str() {
            "bool" | "boolean" => Type::Bool,
            "int2" | "smallint" | "smallserial" => Type::Int2,
            "int4" | "int" | "integer" | "serial" => Type::Int4,
            "int8" | "bigint" | "bigserial" => Type::Int8,
            "oid" | "xid" | "cid" | "regclass" | "regtype" | "regproc" => Type::Oid,
            "float4" | "real" => Type::Float4,
            "float8" | "float" | "double precision" => Type::Float8,
            "numeric" | "decimal" => Type::Numeric,
            "text" => Type::Text,
            "varchar" | "character varying" => Type::Varchar,
            "bpchar" | "character" => Type::Bpchar,
            "name" => Type::Name,
            "char" | "\"char\"" => Type::Char,
            "bytea" => Type::Bytea,
            "date" => Type::Date,
            "time" | "time without time zone" => Type::Time,
            "timetz" | "time with time zone" => Type::TimeTz,
            "timestamp" | "timestamp without time zone" => Type::Timestamp,
            "timestamptz" | "timestamp with time zone" => Type::TimestampTz,
            "interval" => Type::Interval,
            "uuid" => Type::Uuid,
            "json" => Type::Json,
            "jsonb" => Type::Jsonb,
            "inet" => Type::Inet,
            "cidr" => Type::Cidr,
            "macaddr" => Type::MacAddr,
            "macaddr8" => Type::MacAddr8,
            "bit" => Type::Bit,
            "varbit" | "bit varying" => Type::VarBit,
            "int4range" => Type::Range(Box::new(Type::Int4)),
            "int8range" => Type::Range(Box::new(Type::Int8)),
            "numrange" => Type::Range(Box::new(Type::Numeric)),
            "daterange" => Type::Range(Box::new(Type::Date)),
            "tsrange" => Type::Range(Box::new(Type::Timestamp)),
            "tstzrange" => Type::Range(Box::new(Type::TimestampTz)),
            "int4multirange" => Type::Multirange(Box::new(Type::Int4)),
            "int8multirange" => Type::Multirange(Box::new(Type::Int8)),
            "nummultirange" => Type::Multirange(Box::new(Type::Numeric)),
            "datemultirange" => Type::Multirange(Box::new(Type::Date)),
            "tsmultirange" => Type::Multirange(Box::new(Type::Timestamp)),
            "tstzmultirange" => Type::Multirange(Box::new(Type::TimestampTz)),
            _ => return None,
        })
    }

    /// typlen and typalign, which place the type's bytes in a tuple, array or range.
    pub fn layout(&self) -> (i16, Align) {
        use Align::{Char as C, Double as D, Int as I, Short as S};
        match self {
            Type::Bool | Type::Char => (1, C),
            Type::Int2 => (2, S),
            Type::Int4 | Type::Oid | Type::Float4 | Type::Date | Type::Enum(_) => (4, I),
            Type::Int8 | Type::Float8 | Type::Time | Type::Timestamp | Type::TimestampTz => (8, D),
            Type::TimeTz => (12, D),
            Type::Interval => (16, D),
            Type::Uuid => (16, C),
            Type::Name => (64, C),
            Type::MacAddr => (6, I),
            Type::MacAddr8 => (8, I),
            Type::Numeric
            | Type::Text
            | Type::Varchar
            | Type::Bpchar
            | Type::Bytea
            | Type::Json
            | Type::Jsonb
            | Type::Inet
            | Type::Cidr
            | Type::Bit
            | Type::VarBit => (-1, I),
            // An array or range is aligned like its element, at least 'i'.
            Type::Array(t) | Type::Range(t) | Type::Multirange(t) => match t.layout().1 {
                D => (-1, D),
                _ => (-1, I),
            },
            Type::Composite { align, .. } => (-1, *align),
            Type::Unknown {
                attlen, attalign, ..
            } => (*attlen, *attalign),
        }
    }

    /// The attribute descriptor `tuple::deform` takes for a column of this type.
    pub fn attribute(&self) -> Attribute {
        let (attlen, attalign) = self.layout();
        Attribute::of_type(attlen, attalign, attlen > 0 && attlen <= 8)
    }

    /// The type's name, as format_type prints it for built-ins.
    pub fn name(&self) -> String {
        let s = match self {
            Type::Bool => "boolean",
            Type::Int2 => "smallint",
            Type::Int4 => "integer",
            Type::Int8 => "bigint",
            Type::Oid => "oid",
            Type::Float4 => "real",
            Type::Float8 => "double precision",
            Type::Numeric => "numeric",
            Type::Text => "text",
            Type::Varchar => "character varying",
            Type::Bpchar => "character",
            Type::Name => "name",
            Type::Char => "\"char\"",
            Type::Bytea => "bytea",
            Type::Date => "date",
            Type::Time => "time without time zone",
            Type::TimeTz => "time with time zone",
            Type::Timestamp => "timestamp without time zone",
            Type::TimestampTz => "timestamp with time zone",
            Type::Interval => "interval",
            Type::Uuid => "uuid",
            Type::Json => "json",
            Type::Jsonb => "jsonb",
            Type::Inet => "inet",
            Type::Cidr => "cidr",
            Type::MacAddr => "macaddr",
            Type::MacAddr8 => "macaddr8",
            Type::Bit => "bit",
            Type::VarBit => "bit varying",
            Type::Array(t) => {
                let mut n = t.name();
                n.push_str("[]");
                return n;
            }
            Type::Range(t) => {
                return String::from(match **t {
                    Type::Int4 => "int4range",
                    Type::Int8 => "int8range",
                    Type::Numeric => "numrange",
                    Type::Date => "daterange",
                    Type::Timestamp => "tsrange",
                    Type::TimestampTz => "tstzrange",
                    _ => "anyrange",
                })
            }
            Type::Multirange(t) => {
                return String::from(match **t {
                    Type::Int4 => "int4multirange",
                    Type::Int8 => "int8multirange",
                    Type::Numeric => "nummultirange",
                    Type::Date => "datemultirange",
                    Type::Timestamp => "tsmultirange",
                    Type::TimestampTz => "tstzmultirange",
                    _ => "anymultirange",
                })
            }
            Type::Composite { name, .. } => return name.clone(),
            Type::Enum(_) => "enum",
            Type::Unknown { name, .. } => return name.clone(),
        };
        String::from(s)
    }
}

/// The output function of `ty` applied to `v`: for a fixed-width type its attlen bytes, for
/// a varlena its payload after the header, already decompressed and fetched from TOAST
/// (VARDATA_ANY of the detoasted value), for a cstring its bytes without the NUL.
pub fn output(ty: &Type, v: &[u8], e: Endian, out: &mut String) -> Result<(), Finding> {
    let fixed = |n: usize| -> Result<&[u8], Finding> {
        (v.len() == n).then_some(v).ok_or(Finding::ValueInvalid)
    };
    match ty {
        Type::Bool => out.push(if tuple::bool(v).ok_or(Finding::ValueInvalid)? {
            't'
        } else {
            'f'
        }),
        Type::Int2 => push_int(
            out,
            i64::from(tuple::int2(v, e).ok_or(Finding::ValueInvalid)?),
        ),
        Type::Int4 => push_int(
            out,
            i64::from(tuple::int4(v, e).ok_or(Finding::ValueInvalid)?),
        ),
        Type::Int8 => push_int(out, tuple::int8(v, e).ok_or(Finding::ValueInvalid)?),
        Type::Oid => push_int(
            out,
            i64::from(tuple::oid(v, e).ok_or(Finding::ValueInvalid)?),
        ),
        Type::Float4 => {
            let bits = tuple::oid(v, e).ok_or(Finding::ValueInvalid)?;
            float(f64::from(f32::from_bits(bits)), true, out);
        }
        Type::Float8 => {
            let bits = tuple::int8(v, e).ok_or(Finding::ValueInvalid)?;
            float(f64::from_bits(bits as u64), false, out);
        }
        Type::Numeric => numeric::numeric(v, e, out)?,
        Type::Text | Type::Varchar | Type::Bpchar | Type::Json => out.push_str(utf8(v)?),
        Type::Name => out.push_str(utf8(tuple::name(fixed(64)?))?),
        Type::Char => char_out(tuple::char(v).ok_or(Finding::ValueInvalid)?, out),
        Type::Bytea => {
            out.push_str("\\x");
            hex(v, out);
        }
        Type::Date => datetime::date(tuple::int4(v, e).ok_or(Finding::ValueInvalid)?, out),
        Type::Time => datetime::time(tuple::int8(v, e).ok_or(Finding::ValueInvalid)?, out),
        Type::TimeTz => {
            let v = fixed(12)?;
            let t = tuple::int8(v.get(..8).unwrap_or_default(), e);
            let z = tuple::int4(v.get(8..).unwrap_or_default(), e);
            let (Some(t), Some(z)) = (t, z) else {
                return Err(Finding::ValueInvalid);
            };
            datetime::timetz(t, z, out);
        }
        Type::Timestamp | Type::TimestampTz => datetime::timestamp(
            tuple::int8(v, e).ok_or(Finding::ValueInvalid)?,
            *ty == Type::TimestampTz,
            out,
        ),
        Type::Interval => {
            let v = fixed(16)?;
            let t = tuple::int8(v.get(..8).unwrap_or_default(), e);
            let d = tuple::int4(v.get(8..12).unwrap_or_default(), e);
            let m = tuple::int4(v.get(12..).unwrap_or_default(), e);
            let (Some(t), Some(d), Some(m)) = (t, d, m) else {
                return Err(Finding::ValueInvalid);
            };
            datetime::interval(t, d, m, out);
        }
        Type::Uuid => net::uuid(fixed(16)?, out),
        Type::Jsonb => jsonb::jsonb(v, e, out)?,
        Type::Inet => net::inet(v, false, out)?,
        Type::Cidr => net::inet(v, true, out)?,
        Type::MacAddr => net::macaddr(fixed(6)?, out),
        Type::MacAddr8 => net::macaddr(fixed(8)?, out),
        Type::Bit | Type::VarBit => {
            let len = tuple::int4(v.get(..4).unwrap_or_default(), e)
                .and_then(|n| usize::try_from(n).ok())
                .ok_or(Finding::ValueInvalid)?;
            let bits = v.get(4..).unwrap_or_default();
            if bits.len() != len.div_ceil(8) {
                return Err(Finding::ValueInvalid);
            }
            for i in 0..len {
                let byte = bits.get(i / 8).copied().unwrap_or(0);
                out.push(if byte & (0x80 >> (i % 8)) != 0 {
                    '1'
                } else {
                    '0'
                });
            }
        }
        Type::Array(elem) => array::array(v, elem, e, out)?,
        Type::Range(sub) => array::range(v, sub, e, out)?,
        Type::Multirange(sub) => {
            let range_align = Type::Range(sub.clone()).layout().1;
            array::multirange(v, sub, range_align, e, out)?;
        }
        Type::Composite { attributes, .. } => record(v, attributes, e, out)?,
        Type::Enum(labels) => {
            let oid = tuple::oid(v, e).ok_or(Finding::ValueInvalid)?;
            let (_, label) = labels
                .iter()
                .find(|(o, _)| *o == oid)
                .ok_or(Finding::ValueInvalid)?;
            out.push_str(label);
        }
        Type::Unknown { name, .. } => {
            out.push_str(name);
            out.push_str(":\\x");
            hex(v, out);
        }
    }
    Ok(())
}

/// An element of an array or a bound of a range: stored bytes (a varlena with its header,
/// never compressed or external there).
fn element(ty: &Type, stored: &[u8], e: Endian, out: &mut String) -> Result<(), Finding> {
    match ty.layout().0 {
        -1 => match Varlena::parse(stored, e).map_err(|_| Finding::ValueInvalid)? {
            Varlena::Inline(p) => output(ty, p, e, out),
            _ => Err(Finding::ValueInvalid),
        },
        -2 => output(ty, stored.strip_suffix(&[0]).unwrap_or(stored), e, out),
        _ => output(ty, stored, e, out),
    }
}

/// record_out of a composite's payload: a HeapTupleHeader whose first 4 bytes (t_len, where
/// a heap tuple has t_xmin) are the varlena header left off `p`; each attribute that is not
/// dropped printed, a NULL as nothing, quoted as record_out quotes.
fn record(
    p: &[u8],
    attributes: &[(Type, Attribute)],
    e: Endian,
    out: &mut String,
) -> Result<(), Finding> {
    // Offsets in the tuple (t_hoff, alignment) count from its header, the varlena's.
    let mut tuple = Vec::with_capacity(p.len().saturating_add(4));
    tuple.extend_from_slice(&[0; 4]);
    tuple.extend_from_slice(p);
    let attrs: Vec<Attribute> = attributes.iter().map(|(_, a)| a.clone()).collect();
    let mut values = Vec::with_capacity(attrs.len());
    tuple::deform(&tuple, &attrs, e, &mut values).map_err(|_| Finding::ValueInvalid)?;
    out.push('(');
    let mut text = String::new();
    let mut first = true;
    for ((ty, att), value) in attributes.iter().zip(&values) {
        if att.attisdropped {
            continue;
        }
        if !first {
            out.push(',');
        }
        first = false;
        let Some(stored) = value else { continue };
        text.clear();
        match ty.layout().0 {
            // A field may be compressed inline (never external: the server flattens those
            // into the composite when it forms it).
            -1 => {
                let mut refuse = |_: &tuple::ToastPointer| {
                    Err(crate::tuple::toast::ValueProblem::from(
                        Finding::ValueInvalid,
                    ))
                };
                let v =
                    crate::tuple::toast::detoast(stored, e, &mut refuse).map_err(|p| p.finding)?;
                output(ty, &v, e, &mut text)?;
            }
            _ => element(ty, stored, e, &mut text)?,
        }
        quote_record_field(&text, out);
    }
    out.push(')');
    Ok(())
}

/// record_out's quoting: empty, or holding a quote, backslash, parenthesis, comma or
/// isspace character; quotes and backslashes doubled.
fn quote_record_field(s: &str, out: &mut String) {
    let needs = s.is_empty()
        || s.bytes().any(|b| {
            matches!(
                b,
                b'"' | b'\\' | b'(' | b')' | b',' | b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C
            )
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

/// A text value's bytes as text. A NUL byte is no character of any text PostgreSQL stores
/// (its input functions read C strings, and no server encoding has one), so a value with
/// one is bytes that are not this value: a torn or overwritten page's, read as a tuple.
fn utf8(v: &[u8]) -> Result<&str, Finding> {
    if v.contains(&0) {
        return Err(Finding::ValueInvalid);
    }
    core::str::from_utf8(v).map_err(|_| Finding::ValueInvalid)
}

/// charout: the byte itself if ASCII, none for 0, "\ooo" for high bytes (PostgreSQL 15+;
/// 13 and 14 print the raw byte, which is not valid UTF-8 text either way).
fn char_out(c: u8, out: &mut String) {
    match c {
        0 => {}
        1..=0x7F => out.push(char::from(c)),
        _ => {
            let _ = write!(out, "\\{c:03o}");
        }
    }
}

/// An unsigned integer in decimal, at least `width` (up to 20) digits, zeros in front: what `write!`
/// with `{:0width$}` prints, without the formatting machinery, which cost more than all
/// the decoding in `rows`.
pub(crate) fn push_uint(out: &mut String, v: u64, width: usize) {
    let mut buf = [b'0'; 20];
    let mut v = v;
    let mut i = buf.len();
    while v > 0 {
        i = i.saturating_sub(1);
        if let Some(b) = buf.get_mut(i) {
            *b = b'0' | (v % 10) as u8;
        }
        v /= 10;
    }
    let from = i.min(buf.len().saturating_sub(width.max(1)));
    let digits = buf.get(from..).unwrap_or_default();
    // SAFETY: `digits` is ASCII digits only, so the String stays UTF-8. (from_utf8 here
    // was a tenth of `rows`'s time.)
    unsafe { out.as_mut_vec() }.extend_from_slice(digits);
}

/// A signed integer in decimal.
pub(crate) fn push_int(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    push_uint(out, v.unsigned_abs(), 1);
}

/// Two lowercase hex digits.
fn push_hex_byte(out: &mut String, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(char::from(
        HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0'),
    ));
    out.push(char::from(
        HEX.get(usize::from(b & 15)).copied().unwrap_or(b'0'),
    ));
}

fn hex(v: &[u8], out: &mut String) {
    out.reserve(v.len().saturating_mul(2));
    for &b in v {
        push_hex_byte(out, b);
    }
}

/// The order of two values of a type as `output` prints them, as the type's default B-tree
/// operator class orders the values (ORDER BY's ascending order): numbers by value
/// (numeric's and float's NaN above every number), dates and timestamps by time (BC before
/// AD, -infinity first, infinity last). Text and every other type compare by their bytes: the
/// C collation's order (a column's own collation is not applied here).
pub fn output_order(ty: &Type, a: &str, b: &str) -> core::cmp::Ordering {
    use core::cmp::Ordering;
    let parsed = match ty {
        Type::Int2 | Type::Int4 | Type::Int8 | Type::Oid => {
            match (a.parse::<i128>(), b.parse::<i128>()) {
                (Ok(x), Ok(y)) => Some(x.cmp(&y)),
                _ => None,
            }
        }
        Type::Float4 | Type::Float8 => match (a.parse::<f64>(), b.parse::<f64>()) {
            // float8_cmp_internal: every NaN equal, above every other value.
            (Ok(x), Ok(y)) => Some(match (x.is_nan(), y.is_nan()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                _ => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
            }),
            _ => None,
        },
        Type::Numeric => numeric_order(a, b),
        Type::Date | Type::Timestamp | Type::TimestampTz => Some(time_order(a, b)),
        _ => None,
    };
    parsed.unwrap_or_else(|| a.as_bytes().cmp(b.as_bytes()))
}

/// numeric_out's text in cmp_numerics' order: -Infinity, the numbers, Infinity, NaN.
fn numeric_order(a: &str, b: &str) -> Option<core::cmp::Ordering> {
    use core::cmp::Ordering;
    // (class, sign, integer digits without leading zeros, fraction without trailing zeros)
    fn parts(s: &str) -> Option<(u8, bool, &str, &str)> {
        match s {
            "-Infinity" => return Some((0, false, "", "")),
            "Infinity" => return Some((2, false, "", "")),
            "NaN" => return Some((3, false, "", "")),
            _ => {}
        }
        let (negative, digits) = match s.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, s),
        };
        let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
        if !int.bytes().chain(frac.bytes()).all(|c| c.is_ascii_digit()) {
            return None;
        }
        let int = int.trim_start_matches('0');
        let frac = frac.trim_end_matches('0');
        let zero = int.is_empty() && frac.is_empty();
        Some((1, negative && !zero, int, frac))
    }
    let (ca, na, ia, fa) = parts(a)?;
    let (cb, nb, ib, fb) = parts(b)?;
    if ca != 1 || cb != 1 {
        return Some(ca.cmp(&cb));
    }
    let magnitude = ia
        .len()
        .cmp(&ib.len())
        .then_with(|| ia.cmp(ib))
        .then_with(|| fa.cmp(fb));
    Some(match (na, nb) {
        (false, false) => magnitude,
        (true, true) => magnitude.reverse(),
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
    })
}

/// date_out's and timestamp_out's ISO text in time order: `-infinity` first, `infinity`
/// last, BC years counting down before AD years, then the year's number, then the rest of
/// the text (fixed-width fields, a shorter fraction first).
fn time_order(a: &str, b: &str) -> core::cmp::Ordering {
    fn key(s: &str) -> (i8, i64, &str) {
        match s {
            "-infinity" => return (-1, 0, ""),
            "infinity" => return (1, 0, ""),
            _ => {}
        }
        let (body, bc) = match s.strip_suffix(" BC") {
            Some(body) => (body, true),
            None => (s, false),
        };
        let digits = body.bytes().take_while(u8::is_ascii_digit).count();
        let (year, rest) = body.split_at(digits);
        let year: i64 = year.parse().unwrap_or(0);
        (0, if bc { year.saturating_neg() } else { year }, rest)
    }
    let (ka, kb) = (key(a), key(b));
    // Within one BC year the rest of the text still runs forward.
    (ka.0, ka.1)
        .cmp(&(kb.0, kb.1))
        .then_with(|| ka.2.as_bytes().cmp(kb.2.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn integers_print_as_core_fmt_does(v: i64, u: u64, width in 0usize..=20) {
            let mut s = String::new();
            push_int(&mut s, v);
            proptest::prop_assert_eq!(&s, &alloc::format!("{v}"));
            s.clear();
            push_uint(&mut s, u, width);
            proptest::prop_assert_eq!(&s, &alloc::format!("{u:0width$}"));
        }
    }

    #[test]
    fn names_parse_and_arrays_nest() {
        assert_eq!(Type::from_name("INTEGER"), Some(Type::Int4));
        assert_eq!(
            Type::from_name("_text"),
            Some(Type::Array(Box::new(Type::Text)))
        );
        assert_eq!(
            Type::from_name("int8[]").unwrap().layout(),
            (-1, Align::Double)
        );
        assert_eq!(Type::from_name("point"), None);
    }

    proptest::proptest! {
        #[test]
        fn every_output_survives_random_bytes(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..300)) {
            let names = ["bool", "int2", "int4", "int8", "float4", "float8", "numeric", "text",
                "name", "char", "bytea", "date", "time", "timetz", "timestamp", "timestamptz",
                "interval", "uuid", "jsonb", "inet", "cidr", "macaddr", "macaddr8", "varbit",
                "int4[]", "text[]", "numeric[]", "jsonb[]", "int8range", "numrange", "tstzrange",
                "int4multirange", "nummultirange", "tstzmultirange"];
            let mut types: Vec<Type> = names.iter().map(|n| Type::from_name(n).unwrap()).collect();
            // A composite of some of them, a dropped attribute between.
            let mut attributes: Vec<(Type, Attribute)> =
                types.iter().take(9).map(|t| (t.clone(), t.attribute())).collect();
            if let Some((_, a)) = attributes.get_mut(3) {
                a.attisdropped = true;
            }
            types.push(Type::Composite {
                name: String::from("pair"),
                attributes,
                align: Align::Double,
            });
            for t in types {
                let mut s = String::new();
                let _ = output(&t, &bytes, Endian::Little, &mut s);
                let _ = output(&t, &bytes, Endian::Big, &mut s);
            }
        }
    }

    #[test]
    fn output_order_is_the_types_order() {
        use core::cmp::Ordering::{Greater, Less};
        assert_eq!(output_order(&Type::Int4, "9", "10"), Less);
        assert_eq!(output_order(&Type::Int8, "-5", "-40"), Greater);
        assert_eq!(output_order(&Type::Numeric, "0.5", "0.25"), Greater);
        assert_eq!(output_order(&Type::Numeric, "-1.5", "-1.25"), Less);
        assert_eq!(output_order(&Type::Numeric, "10", "9.99"), Greater);
        assert_eq!(output_order(&Type::Numeric, "NaN", "Infinity"), Greater);
        assert_eq!(output_order(&Type::Float8, "NaN", "Infinity"), Greater);
        assert_eq!(
            output_order(&Type::Date, "0044-03-15 BC", "0001-01-01"),
            Less
        );
        assert_eq!(
            output_order(&Type::Date, "0044-03-15 BC", "0001-01-01 BC"),
            Less
        );
        assert_eq!(
            output_order(&Type::Date, "10000-01-01", "9999-12-31"),
            Greater
        );
        assert_eq!(
            output_order(
                &Type::TimestampTz,
                "2026-01-01 00:00:01+00",
                "2026-01-01 00:00:01.25+00"
            ),
            Less
        );
        assert_eq!(output_order(&Type::Text, "b", "a"), Greater);
    }
}
