//! A table's columns from its catalog rows: pg_attribute's layout of each attribute (dropped
//! ones kept, fast defaults from attmissingval), pg_type's output type (domains as their base
//! type, arrays of their element type, enums with pg_enum's labels, ranges of pg_range's
//! subtype), as `rows` prints them.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use super::read::{AttributeRow, EnumRow, RangeRow, TypeRow};
use crate::cluster::rows::Column;
use crate::page::geometry::{read_u32, Endian};
use crate::tuple::value::Type;
use crate::tuple::{datum_len, Align, Attribute, Varlena};

/// pg_namespace_d.h: PG_CATALOG_NAMESPACE, where the built-in types are.
pub const PG_CATALOG_NAMESPACE: u32 = 11;

/// Domains over domains and arrays of domains nest; past this many steps the type is a
/// loop in damaged catalogs.
const MAX_DEPTH: usize = 16;

/// The type catalogs a column's output type is found in.
#[derive(Clone, Copy, Debug)]
pub struct TypeCatalogs<'a> {
    pub types: &'a [TypeRow],
    /// pg_attribute, for the attributes of composite types.
    pub attributes: &'a [AttributeRow],
    pub enums: &'a [EnumRow],
    pub ranges: &'a [RangeRow],
}

/// The columns of relation `relid` in attribute number order (attnum > 0). Attributes whose
/// type cannot be printed come out as `Type::Unknown` (hex with the type's name).
pub fn table_columns(relid: u32, catalogs: TypeCatalogs, e: Endian) -> Vec<Column> {
    columns_of(relid, catalogs, e, 0)
}

fn columns_of(relid: u32, catalogs: TypeCatalogs, e: Endian, depth: usize) -> Vec<Column> {
    let mut atts: Vec<&AttributeRow> = catalogs
        .attributes
        .iter()
        .filter(|a| a.attrelid == relid && a.attnum > 0)
        .collect();
    atts.sort_by_key(|a| a.attnum);
    atts.dedup_by_key(|a| a.attnum);
    atts.into_iter()
        .map(|a| {
            let attalign = Align::from_typalign(a.attalign).unwrap_or(Align::Char);
            let ty = if a.attisdropped {
                Type::Unknown {
                    name: String::from("dropped"),
                    attlen: a.attlen,
                    attalign,
                }
            } else {
                type_of(a.atttypid, catalogs, e, depth)
            };
            let missing = a
                .attmissingval
                .as_deref()
                .filter(|_| a.atthasmissing && !a.attisdropped)
                .and_then(|v| missing_value(v, a.attlen, e));
            Column {
                name: a.attname.clone(),
                ty,
                attribute: Attribute {
                    attlen: a.attlen,
                    attalign,
                    attbyval: a.attbyval,
                    attisdropped: a.attisdropped,
                    missing,
                },
            }
        })
        .collect()
}

/// The output type of pg_type row `oid`.
pub fn type_of(oid: u32, catalogs: TypeCatalogs, e: Endian, depth: usize) -> Type {
    let Some(t) = catalogs.types.iter().find(|t| t.oid == oid) else {
        return Type::Unknown {
            name: alloc::format!("type {oid}"),
            attlen: -1,
            attalign: Align::Int,
        };
    };
    let unknown = || Type::Unknown {
        name: t.typname.clone(),
        attlen: t.typlen,
        attalign: Align::from_typalign(t.typalign).unwrap_or(Align::Char),
    };
    if depth > MAX_DEPTH {
        return unknown();
    }
    let next = depth.saturating_add(1);
    let ty = match t.typtype {
        b'd' => type_of(t.typbasetype, catalogs, e, next),
        b'e' => {
            let mut labels: Vec<&EnumRow> = catalogs
                .enums
                .iter()
                .filter(|e| e.enumtypid == oid)
                .collect();
            labels.sort_by(|a, b| a.enumsortorder.total_cmp(&b.enumsortorder));
            Type::Enum(
                labels
                    .into_iter()
                    .map(|e| (e.oid, e.enumlabel.clone()))
                    .collect(),
            )
        }
        // IsTrueArrayType: a varlena with an element type (not a fixed-length "array" such
        // as name or point).
        b'b' if t.typelem != 0 && t.typlen == -1 => {
            Type::Array(Box::new(type_of(t.typelem, catalogs, e, next)))
        }
        b'b' if t.typnamespace == PG_CATALOG_NAMESPACE => {
            Type::from_name(&t.typname).unwrap_or_else(unknown)
        }
        b'r' => match catalogs.ranges.iter().find(|r| r.rngtypid == oid) {
            Some(r) => Type::Range(Box::new(type_of(r.rngsubtype, catalogs, e, next))),
            None => unknown(),
        },
        b'm' => match catalogs.ranges.iter().find(|r| r.rngmultitypid == oid) {
            Some(r) => Type::Multirange(Box::new(type_of(r.rngsubtype, catalogs, e, next))),
            None => unknown(),
        },
        // A row type: its relation's attributes.
        b'c' => {
            let columns = columns_of(t.typrelid, catalogs, e, next);
            if columns.is_empty() {
                unknown()
            } else {
                Type::Composite {
                    name: t.typname.clone(),
                    attributes: columns.into_iter().map(|c| (c.ty, c.attribute)).collect(),
                    align: Align::from_typalign(t.typalign).unwrap_or(Align::Double),
                }
            }
        }
        _ => unknown(),
    };
    // A built-in name whose layout differs from the row's is not the type we know.
    match &ty {
        Type::Unknown { .. } => ty,
        _ if ty.layout().0 != t.typlen => unknown(),
        _ => ty,
    }
}

/// attmissingval's one element as a tuple stores it (the attlen bytes of a fixed-width
/// value, a whole varlena, a cstring with its NUL): the payload of a one-dimensional,
/// one-element array without NULLs (array.h's ArrayType), or None when it is not one.
pub fn missing_value(attmissingval: &[u8], attlen: i16, e: Endian) -> Option<Vec<u8>> {
    let payload = match Varlena::parse(attmissingval, e).ok()? {
        Varlena::Inline(p) => p,
        _ => return None,
    };
    let word = |i: usize| read_u32(payload, i.checked_mul(4)?, e);
    let (ndim, dataoffset) = (word(0)?, word(1)?);
    if ndim != 1 || dataoffset != 0 || word(3)? != 1 {
        return None;
    }
    // ARR_DATA_OFFSET without a bitmap: MAXALIGN(16 + 8 * ndim) from the 4-byte header.
    let data = payload.get(20..)?;
    let len = datum_len(data, attlen, e).ok()?;
    data.get(..len).map(<[u8]>::to_vec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_attmissingval_never_panics(v in proptest::collection::vec(any::<u8>(), 0..64),
                                          attlen in -2i16..20) {
            let _ = missing_value(&v, attlen, Endian::Little);
            let _ = missing_value(&v, attlen, Endian::Big);
        }
    }

    #[test]
    fn domain_loops_end_as_unknown() {
        let row = |oid, base| TypeRow {
            oid,
            typname: String::from("d"),
            typnamespace: 2200,
            typlen: 4,
            typbyval: true,
            typtype: b'd',
            typalign: b'i',
            typelem: 0,
            typbasetype: base,
            typtypmod: -1,
            typrelid: 0,
        };
        let types = vec![row(1, 2), row(2, 1)];
        let catalogs = TypeCatalogs {
            types: &types,
            attributes: &[],
            enums: &[],
            ranges: &[],
        };
        assert!(matches!(
            type_of(1, catalogs, Endian::Little, 0),
            Type::Unknown { .. }
        ));
    }
}
