//! Any bytes as any column type's stored value (and as a tuple of such columns) in either
//! byte order: an output or a finding, never a panic or a hang.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use pgpage::cluster::rows::{Column, Ctid, RowFormat, RowWriter};
use pgpage::tuple::toast::{detoast, ValueProblem};
use pgpage::tuple::value::{output, Type};
use pgpage::tuple::Align;
use pgpage::Endian;

const TYPES: &[&str] = &[
    "bool",
    "int2",
    "int4",
    "int8",
    "oid",
    "float4",
    "float8",
    "numeric",
    "text",
    "name",
    "char",
    "bytea",
    "date",
    "time",
    "timetz",
    "timestamp",
    "timestamptz",
    "interval",
    "uuid",
    "json",
    "jsonb",
    "inet",
    "cidr",
    "macaddr",
    "macaddr8",
    "bit",
    "varbit",
    "int4[]",
    "text[]",
    "numeric[]",
    "jsonb[]",
    "int8[]",
    "int4range",
    "numrange",
    "tstzrange",
    "daterange",
    "int8range",
    "int4multirange",
    "nummultirange",
    "tstzmultirange",
    "datemultirange",
    "int8multirange[]",
];

/// The named types, then composites: record_out over a tuple inside a varlena, with a
/// dropped attribute holding its place, one nested in another and an array of one.
fn types() -> &'static [Type] {
    static TYPES_BUILT: OnceLock<Vec<Type>> = OnceLock::new();
    TYPES_BUILT.get_or_init(|| {
        let mut types: Vec<Type> = TYPES.iter().map(|n| Type::from_name(n).unwrap()).collect();
        let field = |n: &str| {
            let t = Type::from_name(n).unwrap();
            let a = t.attribute();
            (t, a)
        };
        let mut dropped = field("numeric");
        dropped.1.attisdropped = true;
        let pair = Type::Composite {
            name: String::from("pair"),
            attributes: vec![
                field("int4"),
                field("text"),
                dropped,
                field("jsonb[]"),
                field("bool"),
            ],
            align: Align::Int,
        };
        let outer = Type::Composite {
            name: String::from("outer"),
            attributes: vec![
                field("int8"),
                (pair.clone(), pair.attribute()),
                field("int4multirange"),
                field("timetz"),
            ],
            align: Align::Double,
        };
        types.push(Type::Array(Box::new(pair.clone())));
        types.push(pair);
        types.push(outer);
        types
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    let endian = if head & 0x80 == 0 {
        Endian::Little
    } else {
        Endian::Big
    };
    let all = types();
    let ty = &all[usize::from(head & 0x7F) % all.len()];
    let mut s = String::new();
    let _ = output(ty, rest, endian, &mut s);
    let mut fetch =
        |_: &pgpage::tuple::ToastPointer| -> Result<Vec<u8>, ValueProblem> { Ok(rest.to_vec()) };
    if let Ok(v) = detoast(rest, endian, &mut fetch) {
        let _ = output(ty, &v, endian, &mut s);
    }
    // The same bytes as a heap tuple of three columns of the type, and a type list's check.
    let cols = (0..3)
        .map(|i| Column::of_type(format!("c{i}"), ty.clone()))
        .collect();
    let w = RowWriter::new(cols, RowFormat::Json, endian, true);
    let _ = w.row(
        rest,
        Ctid {
            block: 0,
            offset: 1,
        },
        &mut fetch,
        &mut s,
    );
});
