//! What a caller knows of a relation's columns from its catalog (pg_attribute's type, attlen
//! and attalign; for a BRIN index, each column's opclass family), and what decodes with it:
//! a heap tuple's compressed and out-of-line varlenas (varatt.h), named field by field.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

use crate::compress::{TOAST_LZ4_COMPRESSION_ID, TOAST_PGLZ_COMPRESSION_ID};
use crate::page::geometry::Endian;
use crate::tuple::value::Type;
use crate::tuple::{self, Align, Attribute, Varlena};

/// A BRIN opclass family: what brin_*_opcinfo stores per column (oi_nstored values).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BrinOpclass {
    /// brin_minmax.c: two values of the column's type, min then max.
    Minmax,
    /// brin_minmax_multi.c (14+): one pg_brin_minmax_multi_summary varlena.
    MinmaxMulti,
    /// brin_inclusion.c: the union (the column's type), then unmergeable and contains_empty
    /// (bool).
    Inclusion,
    /// brin_bloom.c (14+): one pg_brin_bloom_summary varlena.
    Bloom,
}

impl BrinOpclass {
    /// The family by its word (`minmax`, `minmax_multi`, `inclusion`, `bloom`) or an opclass
    /// name that ends in it (`int4_minmax_ops`, `box_inclusion_ops`).
    pub fn parse(s: &str) -> Option<BrinOpclass> {
        let w = s.trim().to_ascii_lowercase();
        let w = w.strip_suffix("_ops").unwrap_or(&w);
        [
            ("minmax_multi", BrinOpclass::MinmaxMulti),
            ("minmax", BrinOpclass::Minmax),
            ("inclusion", BrinOpclass::Inclusion),
            ("bloom", BrinOpclass::Bloom),
        ]
        .into_iter()
        .find(|(word, _)| w == *word || w.ends_with(&format!("_{word}")))
        .map(|(_, f)| f)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            BrinOpclass::Minmax => "minmax",
            BrinOpclass::MinmaxMulti => "minmax_multi",
            BrinOpclass::Inclusion => "inclusion",
            BrinOpclass::Bloom => "bloom",
        }
    }
}

/// One column as the catalog describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnHint {
    pub ty: Type,
    /// A BRIN index column's opclass family.
    pub brin: Option<BrinOpclass>,
}

impl ColumnHint {
    /// `TYPE[:ATTLEN:ATTALIGN][ FAMILY]`: a pg_type name (`int4`, `text`, `_int4`), its
    /// attlen and attalign as pg_attribute holds them (needed for a type pgpage has no output
    /// function for, and for a dropped column), and for a BRIN column its opclass family or
    /// name (`int4 minmax`, `point:16:d inclusion`).
    pub fn parse(s: &str) -> Result<ColumnHint, String> {
        let s = s.trim();
        let (ty, brin) = match s.rsplit_once(char::is_whitespace) {
            Some((t, f)) if BrinOpclass::parse(f).is_some() => (t.trim(), BrinOpclass::parse(f)),
            _ => (s, None),
        };
        let mut parts = ty.split(':');
        let name = parts.next().unwrap_or_default();
        let layout = match (parts.next(), parts.next(), parts.next()) {
            (None, _, _) => None,
            (Some(len), Some(align), None) => {
                let attlen = len
                    .parse::<i16>()
                    .ok()
                    .filter(|&n| n > 0 || n == -1 || n == -2);
                let attalign = match align.as_bytes() {
                    [c] => Align::from_typalign(*c),
                    _ => None,
                };
                match (attlen, attalign) {
                    (Some(l), Some(a)) => Some((l, a)),
                    _ => {
                        return Err(format!(
                            "column \"{s}\": attlen:attalign must be like 4:i, -1:i or 16:d"
                        ))
                    }
                }
            }
            _ => return Err(format!("column \"{s}\": TYPE or TYPE:ATTLEN:ATTALIGN")),
        };
        let ty = match (Type::from_name(name), layout) {
            (Some(t), None) => t,
            (Some(t), Some(l)) if t.layout() == l => t,
            (_, Some((attlen, attalign))) => Type::Unknown {
                name: String::from(name),
                attlen,
                attalign,
            },
            (None, None) => {
                return Err(format!(
                    "column type \"{name}\" is not one pgpage knows: give its attlen and attalign (\"{name}:-1:i\")"
                ))
            }
        };
        Ok(ColumnHint { ty, brin })
    }

    /// A comma-separated list of [`ColumnHint::parse`]'s columns, in attnum order.
    pub fn parse_list(s: &str) -> Result<Vec<ColumnHint>, String> {
        s.split(',')
            .filter(|c| !c.trim().is_empty())
            .map(ColumnHint::parse)
            .collect()
    }
}

/// One attribute of a heap tuple stored compressed inline or out of line: its varlena header
/// taken apart with varatt.h's names.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ToastedDatum {
    /// 1-based, as pg_attribute.attnum.
    pub attnum: u16,
    /// The header's struct: `varattrib_4b.va_compressed` (compressed inline) or
    /// `varattrib_1b_e` (a TOAST pointer: its va_tag, then a varatt_external).
    pub varattrib: &'static str,
    /// VARSIZE_ANY: the datum's bytes in the tuple, header included (pg_column_size of an
    /// inline value).
    pub size: u32,
    /// varattrib_4b.va_compressed.va_tcinfo: the raw size (low 30 bits) and the
    /// compression method (top 2 bits).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub va_tcinfo: Option<u32>,
    /// varattrib_1b_e.va_tag: VARTAG_ONDISK (18) on disk.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub va_tag: Option<u8>,
    /// varatt_external.va_rawsize: the original size, header included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub va_rawsize: Option<i32>,
    /// varatt_external.va_extinfo: the stored size (low 30 bits) and the compression method
    /// (top 2 bits).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub va_extinfo: Option<u32>,
    /// The original size without the header: VARDATA_COMPRESSED_GET_EXTSIZE, or
    /// va_rawsize - VARHDRSZ (octet_length of the value).
    pub rawsize: u32,
    /// VARATT_EXTERNAL_GET_EXTSIZE: the bytes in the TOAST relation (pg_column_size).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extsize: Option<u32>,
    /// pg_column_compression's answer: pglz, lz4, or null for a value stored uncompressed.
    pub compression: Option<&'static str>,
    /// varatt_external.va_valueid: the chunk_id of its chunks in the TOAST relation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub va_valueid: Option<u32>,
    /// varatt_external.va_toastrelid: the TOAST relation's oid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub va_toastrelid: Option<u32>,
}

/// toast_compression.h: the method's name as pg_column_compression prints it.
fn method_name(method: u8) -> &'static str {
    match method {
        TOAST_PGLZ_COMPRESSION_ID => "pglz",
        TOAST_LZ4_COMPRESSION_ID => "lz4",
        _ => "invalid",
    }
}

/// The attributes `tuple::deform` takes for the columns.
pub(crate) fn attributes(columns: &[ColumnHint]) -> Vec<Attribute> {
    columns.iter().map(|c| c.ty.attribute()).collect()
}

/// Values longer than this are left to the hex view: a row's diff stays readable.
const SHOWN_VALUE_BYTES: usize = 64;

/// One heap tuple (its whole bytes, header included) split into the columns: each
/// attribute's value as its output function prints it (None for a NULL, a compressed or
/// external value, one longer than 64 bytes or of a type pgpage does not print), and its
/// compressed and external varlenas; None when the tuple does not split into them.
pub(crate) fn tuple_values(
    tuple: &[u8],
    columns: &[ColumnHint],
    attrs: &[Attribute],
    e: Endian,
) -> Option<(Vec<Option<String>>, Vec<ToastedDatum>)> {
    let mut datums = Vec::new();
    tuple::deform(tuple, attrs, e, &mut datums).ok()?;
    let mut values = Vec::with_capacity(datums.len());
    for (d, c) in datums.iter().zip(columns) {
        let payload = match (d, c.ty.layout().0) {
            (Some(v), -1) => match Varlena::parse(v, e) {
                Ok(Varlena::Inline(p)) => Some(p),
                _ => None,
            },
            (v, _) => *v,
        };
        let printable = !matches!(c.ty, Type::Unknown { .. });
        values.push(
            payload
                .filter(|p| printable && p.len() <= SHOWN_VALUE_BYTES)
                .and_then(|p| {
                    let mut s = String::new();
                    crate::tuple::value::output(&c.ty, p, e, &mut s)
                        .ok()
                        .map(|()| s)
                }),
        );
    }
    Some((values, toasted(&datums, attrs, e)))
}

/// The compressed and external varlenas among a tuple's datums.
fn toasted(datums: &[Option<&[u8]>], attrs: &[Attribute], e: Endian) -> Vec<ToastedDatum> {
    let mut out = Vec::new();
    for (i, (d, att)) in datums.iter().zip(attrs).enumerate() {
        let (Some(v), -1) = (d, att.attlen) else {
            continue;
        };
        let attnum = u16::try_from(i.saturating_add(1)).unwrap_or(u16::MAX);
        let size = v.len() as u32;
        let word = |at: usize| crate::page::geometry::read_u32(v, at, e);
        match Varlena::parse(v, e) {
            Ok(Varlena::Compressed {
                rawsize, method, ..
            }) => out.push(ToastedDatum {
                attnum,
                varattrib: "varattrib_4b.va_compressed",
                size,
                va_tcinfo: word(4),
                va_tag: None,
                va_rawsize: None,
                va_extinfo: None,
                rawsize,
                extsize: None,
                compression: Some(method_name(method)),
                va_valueid: None,
                va_toastrelid: None,
            }),
            Ok(Varlena::External(p)) => out.push(ToastedDatum {
                attnum,
                varattrib: "varattrib_1b_e",
                size,
                va_tcinfo: None,
                va_tag: v.get(1).copied(),
                va_rawsize: Some(p.va_rawsize),
                va_extinfo: word(6),
                rawsize: p.va_rawsize.saturating_sub(4).max(0).unsigned_abs(),
                extsize: Some(p.extsize),
                compression: p.is_compressed().then(|| method_name(p.method)),
                va_valueid: Some(p.va_valueid),
                va_toastrelid: Some(p.va_toastrelid),
            }),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_parse_as_the_catalog_names_them() {
        let c =
            ColumnHint::parse_list("int4, text ,point:16:d inclusion,int8 int8_minmax_multi_ops")
                .unwrap();
        assert_eq!(
            c[0],
            ColumnHint {
                ty: Type::Int4,
                brin: None
            }
        );
        assert_eq!(c[1].ty, Type::Text);
        assert_eq!(
            c[2],
            ColumnHint {
                ty: Type::Unknown {
                    name: "point".into(),
                    attlen: 16,
                    attalign: Align::Double
                },
                brin: Some(BrinOpclass::Inclusion)
            }
        );
        assert_eq!(c[3].brin, Some(BrinOpclass::MinmaxMulti));
        assert_eq!(ColumnHint::parse("int4:4:i minmax").unwrap().ty, Type::Int4);
        assert!(ColumnHint::parse("point").is_err());
        assert!(ColumnHint::parse("int4:4").is_err());
        assert!(ColumnHint::parse("x:3:q").is_err());
    }
}
