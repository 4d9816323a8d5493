//! Every on-disk structure pgpage decodes, described once: one table per structure, one row
//! per field, with PostgreSQL's own names, pageinspect's column, the value's kind and a doc
//! citing the header. Decoders read values through the rows' handles, spans name their row
//! ([`SpanField`]), and hex colours, tooltips, the header panel and docs read the same row.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

use crate::page::geometry::{read_u16, read_u32, read_u64, Endian};

/// What a byte is for; the hex view colours bytes by role (one colour per role).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// PageHeaderData.
    Header,
    /// ItemIdData array.
    LinePointer,
    /// HeapTupleHeaderData, IndexTupleData and other per-tuple headers.
    TupleHeader,
    /// A tuple's null bitmap (t_bits) or an index tuple's attribute bitmap.
    NullBitmap,
    /// Column data of a tuple.
    TupleData,
    /// The AM's special space (opaque data at pd_special).
    Special,
    /// A metapage's contents.
    Meta,
    /// Between pd_lower and pd_upper.
    FreeSpace,
    /// FSM tree nodes, VM bits, BRIN revmap TIDs: page contents that are not tuples.
    Map,
    /// Bytes nothing points at (alignment padding, space left by removed tuples).
    Unused,
}

impl Role {
    pub const ALL: [Role; 10] = [
        Role::Header,
        Role::LinePointer,
        Role::TupleHeader,
        Role::NullBitmap,
        Role::TupleData,
        Role::Special,
        Role::Meta,
        Role::FreeSpace,
        Role::Map,
        Role::Unused,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Header => "header",
            Role::LinePointer => "line_pointer",
            Role::TupleHeader => "tuple_header",
            Role::NullBitmap => "null_bitmap",
            Role::TupleData => "tuple_data",
            Role::Special => "special",
            Role::Meta => "meta",
            Role::FreeSpace => "free_space",
            Role::Map => "map",
            Role::Unused => "unused",
        }
    }

    /// A small code for typed-array transport (wasm): the declaration order.
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// A flag bit and its name as PostgreSQL's headers spell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct FlagName {
    pub mask: u32,
    pub name: &'static str,
}

const fn flag(mask: u32, name: &'static str) -> FlagName {
    FlagName { mask, name }
}

/// How a field's bytes are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    U8,
    U16,
    U32,
    I32,
    I64,
    U64,
    F64,
    Bool,
    /// PageXLogRecPtr: two u32 words, xlogid then xrecoff.
    Lsn,
    /// TransactionId.
    Xid,
    Oid,
    BlockNumber,
    /// ItemPointerData: bi_hi, bi_lo, ip_posid.
    Tid,
    /// A magic number or page id, printed in hex.
    Magic,
    /// Flag bits with their names.
    Flags(&'static [FlagName]),
    /// One of several values, each with its name (`mask` holds the value).
    Enum(&'static [FlagName]),
    /// An array of u32 (BlockNumbers and counters).
    U32Array,
    /// Opaque bytes.
    Bytes,
}

impl Kind {
    /// The kind's name, for the browser's tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::U8 => "u8",
            Kind::U16 => "u16",
            Kind::U32 => "u32",
            Kind::I32 => "i32",
            Kind::I64 => "i64",
            Kind::U64 => "u64",
            Kind::F64 => "f64",
            Kind::Bool => "bool",
            Kind::Lsn => "lsn",
            Kind::Xid => "xid",
            Kind::Oid => "oid",
            Kind::BlockNumber => "block_number",
            Kind::Tid => "tid",
            Kind::Magic => "magic",
            Kind::Flags(_) => "flags",
            Kind::Enum(_) => "enum",
            Kind::U32Array => "u32_array",
            Kind::Bytes => "bytes",
        }
    }
}

/// A C bit field inside a little-endian-laid-out storage unit: `shift` counts from the least
/// significant bit as GCC allocates them on little-endian machines; big-endian GCC allocates
/// from the most significant bit, see [`Bits::shift_for`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Bits {
    pub shift: u8,
    pub width: u8,
}

impl Bits {
    /// Shift within a `unit_bits`-wide word read in `endian` byte order.
    pub fn shift_for(self, unit_bits: u8, endian: crate::Endian) -> u8 {
        match endian {
            crate::Endian::Little => self.shift,
            crate::Endian::Big => unit_bits
                .saturating_sub(self.shift)
                .saturating_sub(self.width),
        }
    }

    pub fn mask(self) -> u32 {
        match 1u32.checked_shl(u32::from(self.width)) {
            Some(v) => v.wrapping_sub(1),
            None => u32::MAX,
        }
    }
}

/// Which row of which structure's table: the table's index in [`ALL_TABLES`] and the row's
/// index in it. Two bytes, so it crosses the wasm boundary as a small integer ([`Self::code`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct FieldId {
    pub table: u8,
    pub index: u8,
}

impl FieldId {
    /// The row this id names.
    pub fn field(self) -> Option<&'static Field> {
        self.table()?.fields.get(usize::from(self.index))
    }

    pub fn table(self) -> Option<&'static Table> {
        ALL_TABLES.get(usize::from(self.table)).copied()
    }
}

/// One field of an on-disk structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Field {
    /// Its row: set by [`structure!`] from the row's place in its table.
    pub id: FieldId,
    /// The member's name in PostgreSQL's header.
    pub name: &'static str,
    /// Byte offset from the structure's start; for a variable part (size 0), where the
    /// structure's fixed part ends.
    pub offset: u16,
    /// Bytes it occupies (for bit fields: the storage unit's size); 0 for a variable part
    /// whose extent the decoder walks (a flexible array member, a tuple's data).
    pub size: u16,
    pub bits: Option<Bits>,
    pub kind: Kind,
    pub role: Role,
    /// pageinspect's column for this field (`page_header()`'s `lsn` for pd_lsn,
    /// `bt_page_items()`' `ctid` for t_tid), if one shows it.
    pub column: Option<&'static str>,
    /// One line, citing the header it comes from.
    pub doc: &'static str,
}

impl Field {
    pub fn end(&self) -> u16 {
        self.offset.saturating_add(self.size)
    }

    /// `Structure.member`, as a C programmer names it (`GinPageOpaqueData.flags`).
    pub fn qualified(&self) -> String {
        let table = self.id.table().map_or("", |t| t.name);
        format!("{table}.{}", self.name)
    }

    const fn at(self, id: FieldId) -> Field {
        Field { id, ..self }
    }

    /// The pageinspect column that shows this field.
    const fn col(self, column: &'static str) -> Field {
        Field {
            column: Some(column),
            ..self
        }
    }

    /// The value of the bytes `b` (the field's own bytes, or for a bit field its storage
    /// unit's) as PostgreSQL prints this kind: LSN as X/Y, TID as (block,offset), flags as
    /// the names of the bits set, an enum as its value's name.
    pub fn format(&self, b: &[u8], e: Endian) -> String {
        let int = || -> Option<u64> {
            let raw = match b.len() {
                1 => u64::from(*b.first()?),
                2 => u64::from(read_u16(b, 0, e)?),
                4 => u64::from(read_u32(b, 0, e)?),
                8 => read_u64(b, 0, e)?,
                _ => return None,
            };
            Some(match self.bits {
                Some(bt) => {
                    let unit = u8::try_from(b.len().saturating_mul(8)).unwrap_or(32);
                    raw.checked_shr(u32::from(bt.shift_for(unit, e)))
                        .unwrap_or(0)
                        & u64::from(bt.mask())
                }
                None => raw,
            })
        };
        let text = match self.kind {
            Kind::Lsn => read_u32(b, 0, e).zip(read_u32(b, 4, e)).map(|(hi, lo)| {
                crate::page::lsn::lsn_text(None, (u64::from(hi) << 32) | u64::from(lo))
            }),
            Kind::Tid => read_u16(b, 0, e)
                .zip(read_u16(b, 2, e))
                .zip(read_u16(b, 4, e))
                .map(|((hi, lo), pos)| {
                    format!("({},{pos})", (u32::from(hi) << 16) | u32::from(lo))
                }),
            Kind::Magic => int().map(|v| format!("0x{v:X}")),
            Kind::Flags(names) => int().map(|v| {
                let mut set: Vec<String> = flag_names(v as u32, names).map(String::from).collect();
                // t_infomask2's low bits are no flags but the tuple's attribute count. By
                // name: a const slice's address is not unique (debug builds give each use
                // its own copy), so a pointer comparison missed it there.
                if self.name == "t_infomask2" {
                    set.push(format!("natts={}", v & u64::from(HEAP_NATTS_MASK)));
                }
                if set.is_empty() {
                    format!("0x{v:X}")
                } else {
                    format!("0x{v:X} {}", set.join("|"))
                }
            }),
            Kind::Xid => {
                int().map(
                    |v| match TRANSAM_XIDS.iter().find(|x| u64::from(x.mask) == v) {
                        Some(x) => format!("{v} ({})", x.name),
                        None => format!("{v}"),
                    },
                )
            }
            Kind::Enum(names) => {
                int().map(|v| match names.iter().find(|n| u64::from(n.mask) == v) {
                    Some(n) => format!("{v} {}", n.name),
                    None => format!("{v} (no such value)"),
                })
            }
            Kind::Bool => int().map(|v| String::from(if v != 0 { "true" } else { "false" })),
            Kind::I32 => int().map(|v| format!("{}", v as u32 as i32)),
            Kind::I64 => int().map(|v| format!("{}", v as i64)),
            Kind::F64 => int().map(|v| format!("{}", f64::from_bits(v))),
            Kind::U8 | Kind::U16 | Kind::U32 | Kind::U64 | Kind::Oid | Kind::BlockNumber => {
                int().map(|v| format!("{v}"))
            }
            Kind::U32Array | Kind::Bytes => None,
        };
        text.unwrap_or_else(|| format!("{} bytes", b.len()))
    }
}

/// A structure: its C name, its size (without a flexible array tail) and its fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Table {
    /// Its index in [`ALL_TABLES`].
    pub id: u8,
    pub name: &'static str,
    pub size: u16,
    /// One line, citing the header it comes from.
    pub doc: &'static str,
    pub fields: &'static [Field],
}

impl Table {
    /// The row the decoders read: an out-of-range index is a compile-time error, since every
    /// call is in a `const` the [`structure!`] macro writes.
    #[allow(clippy::panic)] // only ever evaluated at compile time
    const fn row(&self, index: u8) -> Field {
        let mut rest = self.fields;
        let mut i = index;
        while let Some((first, tail)) = rest.split_first() {
            if i == 0 {
                return *first;
            }
            rest = tail;
            i = i.saturating_sub(1);
        }
        panic!("no such row")
    }
}

/// What a byte range of a page is: a row of a structure's table or a region no structure
/// describes. A later column decoder names a tuple's attribute with [`SpanField::Column`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum SpanField {
    /// A row of a structure's table; bit fields sharing a storage unit are one span named by
    /// the unit's first row.
    Field(FieldId),
    /// Attribute number `attnum` (from 1) of the relation's tuple descriptor.
    Column(u16),
    /// Between pd_lower and pd_upper.
    FreeSpace,
    /// Bytes nothing points at.
    Unused,
}

impl SpanField {
    /// The bare PostgreSQL name (the hex view's `data-field`): the member's name, or for a
    /// structure of bit fields only (ItemIdData) the structure's.
    pub fn name(self) -> &'static str {
        match self {
            SpanField::Field(id) => match (id.table(), id.field()) {
                (Some(t), Some(f))
                    if f.bits.is_some() && t.fields.iter().all(|x| x.bits.is_some()) =>
                {
                    t.name
                }
                (_, Some(f)) => f.name,
                _ => "?",
            },
            SpanField::Column(_) => "attribute",
            SpanField::FreeSpace => "free space",
            SpanField::Unused => "unused",
        }
    }

    /// `Structure.member` (`ItemIdData.lp_off`), or the region's name.
    pub fn qualified(self) -> String {
        match self {
            SpanField::Field(id) => match (id.table(), id.field()) {
                (Some(t), Some(_)) if self.name() == t.name => String::from(t.name),
                (_, Some(f)) => f.qualified(),
                _ => String::from("?"),
            },
            SpanField::Column(n) => format!("attribute {n}"),
            other => String::from(other.name()),
        }
    }

    /// The row, for spans of a structure.
    pub fn field(self) -> Option<&'static Field> {
        match self {
            SpanField::Field(id) => id.field(),
            _ => None,
        }
    }

    /// One line citing the header: the row's doc, or the structure's for a span over a
    /// storage unit of bit fields.
    pub fn doc(self) -> &'static str {
        match self {
            SpanField::Field(id) => match (id.table(), id.field()) {
                (Some(t), Some(_)) if self.name() == t.name => t.doc,
                (_, Some(f)) => f.doc,
                _ => "",
            },
            SpanField::Column(_) => "htup_details.h: a column of the tuple, from t_hoff on",
            SpanField::FreeSpace => "bufpage.h: free space between pd_lower and pd_upper",
            SpanField::Unused => "bufpage.h: bytes no line pointer, header or special space covers",
        }
    }

    /// A small integer for typed-array transport (wasm): a row as table << 8 | index
    /// (tables number far below 0x80), a column as 0x8000 | attnum, the regions as 0x7FFE
    /// and 0x7FFF.
    pub fn code(self) -> u16 {
        match self {
            SpanField::Field(id) => (u16::from(id.table) << 8) | u16::from(id.index),
            SpanField::Column(n) => 0x8000 | (n & 0x7FFF),
            SpanField::FreeSpace => 0x7FFE,
            SpanField::Unused => 0x7FFF,
        }
    }

    /// The value of the span's bytes `b`, formatted by its row's kind; for a storage unit of
    /// bit fields, every field of the unit.
    pub fn format(self, b: &[u8], e: Endian) -> String {
        let Some(f) = self.field() else {
            return format!("{} bytes", b.len());
        };
        match (f.bits, f.id.table()) {
            (Some(_), Some(t)) => {
                let parts: Vec<String> = t
                    .fields
                    .iter()
                    .filter(|x| x.bits.is_some() && x.offset == f.offset)
                    .map(|x| format!("{}={}", x.name, x.format(b, e)))
                    .collect();
                parts.join(" ")
            }
            _ => f.format(b, e),
        }
    }
}

/// Defines one structure's table and a module of its rows, one `const` [`Field`] per row,
/// which the decoders read values through (`page_header_data::PD_LOWER`). The row's
/// [`FieldId`] comes from its place in the list, so a handle cannot name another row.
macro_rules! structure {
    ($table:ident, $module:ident, $id:literal, $cname:literal, $size:expr, $doc:literal;
     $( $handle:ident = $row:expr, )*) => {
        #[doc = $doc]
        pub const $table: Table = Table {
            id: $id,
            name: $cname,
            size: $size,
            doc: $doc,
            fields: &[ $( $row.at(FieldId { table: $id, index: $module::Row::$handle as u8 }), )* ],
        };

        #[doc = concat!("The rows of ", $cname, ".")]
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        pub mod $module {
            pub(super) enum Row { $( $handle, )* }
            $( pub const $handle: super::Field = super::$table.row(Row::$handle as u8); )*
        }
    };
}

const fn f(
    name: &'static str,
    offset: u16,
    size: u16,
    kind: Kind,
    role: Role,
    doc: &'static str,
) -> Field {
    Field {
        id: FieldId { table: 0, index: 0 },
        name,
        offset,
        size,
        bits: None,
        kind,
        role,
        column: None,
        doc,
    }
}

const fn bits(
    name: &'static str,
    shift: u8,
    width: u8,
    kind: Kind,
    role: Role,
    doc: &'static str,
) -> Field {
    Field {
        id: FieldId { table: 0, index: 0 },
        name,
        offset: 0,
        size: 4,
        bits: Some(Bits { shift, width }),
        kind,
        role,
        column: None,
        doc,
    }
}

/// A variable part the decoder walks: a flexible array member or a tuple's data, starting
/// where the fixed part (`offset`) ends or where a header field says.
const fn var(name: &'static str, offset: u16, kind: Kind, role: Role, doc: &'static str) -> Field {
    f(name, offset, 0, kind, role, doc)
}

// ---------------------------------------------------------------- bufpage.h / itemid.h

/// bufpage.h: PageGetPageSize, the page size in pd_pagesize_version's high byte.
pub const PAGE_SIZE_MASK: u16 = 0xFF00;
/// bufpage.h: PageGetPageLayoutVersion, the layout version in pd_pagesize_version's low byte.
pub const PAGE_LAYOUT_VERSION_MASK: u16 = 0x00FF;
/// bufpage.h: PG_PAGE_LAYOUT_VERSION, the layout every server since 8.3 writes.
pub const PG_PAGE_LAYOUT_VERSION: u16 = 4;

/// bufpage.h: PD_ALL_VISIBLE, all tuples on the page are visible to everyone.
pub const PD_ALL_VISIBLE: u16 = 0x0004;

/// bufpage.h: pd_flags bits.
pub const PD_FLAGS: &[FlagName] = &[
    flag(0x0001, "PD_HAS_FREE_LINES"),
    flag(0x0002, "PD_PAGE_FULL"),
    flag(PD_ALL_VISIBLE as u32, "PD_ALL_VISIBLE"),
];

structure! {
    PAGE_HEADER_DATA, page_header_data, 0, "PageHeaderData", 24,
    "bufpage.h: PageHeaderData; SizeOfPageHeaderData is 24 (pd_linp starts there).";
    PD_LSN = f("pd_lsn", 0, 8, Kind::Lsn, Role::Header, "bufpage.h: PageHeaderData.pd_lsn, LSN of the last WAL record that changed the page").col("lsn"),
    PD_CHECKSUM = f("pd_checksum", 8, 2, Kind::U16, Role::Header, "bufpage.h: PageHeaderData.pd_checksum, storage/checksum_impl.h's pg_checksum_page").col("checksum"),
    PD_FLAGS = f("pd_flags", 10, 2, Kind::Flags(PD_FLAGS), Role::Header, "bufpage.h: PageHeaderData.pd_flags, PD_HAS_FREE_LINES | PD_PAGE_FULL | PD_ALL_VISIBLE").col("flags"),
    PD_LOWER = f("pd_lower", 12, 2, Kind::U16, Role::Header, "bufpage.h: PageHeaderData.pd_lower, offset to start of free space (end of line pointers)").col("lower"),
    PD_UPPER = f("pd_upper", 14, 2, Kind::U16, Role::Header, "bufpage.h: PageHeaderData.pd_upper, offset to end of free space (first tuple)").col("upper"),
    PD_SPECIAL = f("pd_special", 16, 2, Kind::U16, Role::Header, "bufpage.h: PageHeaderData.pd_special, offset to start of special space").col("special"),
    PD_PAGESIZE_VERSION = f("pd_pagesize_version", 18, 2, Kind::U16, Role::Header, "bufpage.h: PageHeaderData.pd_pagesize_version, page size (high bits) | layout version (low byte, 4)").col("pagesize"),
    PD_PRUNE_XID = f("pd_prune_xid", 20, 4, Kind::Xid, Role::Header, "bufpage.h: PageHeaderData.pd_prune_xid, oldest prunable XID, or zero if none").col("prune_xid"),
}

/// itemid.h: LP_UNUSED, unused (should always have lp_len=0).
pub const LP_UNUSED: u8 = 0;
/// itemid.h: LP_NORMAL, used (should always have lp_len>0).
pub const LP_NORMAL: u8 = 1;
/// itemid.h: LP_REDIRECT, HOT redirect (should have lp_len=0).
pub const LP_REDIRECT: u8 = 2;
/// itemid.h: LP_DEAD, dead, may or may not have storage.
pub const LP_DEAD: u8 = 3;

/// itemid.h: lp_flags names.
pub const LP_FLAGS: &[FlagName] = &[
    flag(LP_UNUSED as u32, "LP_UNUSED"),
    flag(LP_NORMAL as u32, "LP_NORMAL"),
    flag(LP_REDIRECT as u32, "LP_REDIRECT"),
    flag(LP_DEAD as u32, "LP_DEAD"),
];

structure! {
    ITEM_ID_DATA, item_id_data, 1, "ItemIdData", 4,
    "itemid.h: ItemIdData, `unsigned lp_off:15, lp_flags:2, lp_len:15` in one 32-bit word.";
    LP_OFF = bits(
            "lp_off",
            0,
            15,
            Kind::U16,
            Role::LinePointer,
            "itemid.h: ItemIdData.lp_off, offset to tuple (from start of page)",
        ).col("lp_off"),
    LP_FLAGS = bits(
            "lp_flags",
            15,
            2,
            Kind::Enum(LP_FLAGS),
            Role::LinePointer,
            "itemid.h: ItemIdData.lp_flags, LP_UNUSED/LP_NORMAL/LP_REDIRECT/LP_DEAD",
        ).col("lp_flags"),
    LP_LEN = bits(
            "lp_len",
            17,
            15,
            Kind::U16,
            Role::LinePointer,
            "itemid.h: ItemIdData.lp_len, byte length of tuple",
        ).col("lp_len"),
}

// ---------------------------------------------------------------- htup_details.h

/// htup_details.h: the t_infomask bits that deforming, visibility and pg_filedump read; the
/// flag table below names every bit.
pub const HEAP_HASNULL: u16 = 0x0001;
pub const HEAP_XMAX_KEYSHR_LOCK: u16 = 0x0010;
pub const HEAP_XMAX_EXCL_LOCK: u16 = 0x0040;
pub const HEAP_XMAX_LOCK_ONLY: u16 = 0x0080;
pub const HEAP_XMIN_COMMITTED: u16 = 0x0100;
pub const HEAP_XMIN_INVALID: u16 = 0x0200;
/// XMIN_COMMITTED and XMIN_INVALID both set.
pub const HEAP_XMIN_FROZEN: u16 = HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID;
pub const HEAP_XMAX_COMMITTED: u16 = 0x0400;
pub const HEAP_XMAX_INVALID: u16 = 0x0800;
pub const HEAP_XMAX_IS_MULTI: u16 = 0x1000;
pub const HEAP_MOVED_OFF: u16 = 0x4000;
pub const HEAP_MOVED_IN: u16 = 0x8000;

/// A t_infomask bit's row in the flag tables (their masks are u32).
const fn bit(mask: u16, name: &'static str) -> FlagName {
    flag(mask as u32, name)
}

/// htup_details.h: t_infomask bits, in heap_tuple_infomask_flags' order.
pub const T_INFOMASK: &[FlagName] = &[
    bit(HEAP_HASNULL, "HEAP_HASNULL"),
    flag(0x0002, "HEAP_HASVARWIDTH"),
    flag(0x0004, "HEAP_HASEXTERNAL"),
    flag(0x0008, "HEAP_HASOID_OLD"),
    bit(HEAP_XMAX_KEYSHR_LOCK, "HEAP_XMAX_KEYSHR_LOCK"),
    flag(0x0020, "HEAP_COMBOCID"),
    bit(HEAP_XMAX_EXCL_LOCK, "HEAP_XMAX_EXCL_LOCK"),
    bit(HEAP_XMAX_LOCK_ONLY, "HEAP_XMAX_LOCK_ONLY"),
    bit(HEAP_XMIN_COMMITTED, "HEAP_XMIN_COMMITTED"),
    bit(HEAP_XMIN_INVALID, "HEAP_XMIN_INVALID"),
    bit(HEAP_XMAX_COMMITTED, "HEAP_XMAX_COMMITTED"),
    bit(HEAP_XMAX_INVALID, "HEAP_XMAX_INVALID"),
    bit(HEAP_XMAX_IS_MULTI, "HEAP_XMAX_IS_MULTI"),
    flag(0x2000, "HEAP_UPDATED"),
    bit(HEAP_MOVED_OFF, "HEAP_MOVED_OFF"),
    bit(HEAP_MOVED_IN, "HEAP_MOVED_IN"),
];

/// htup_details.h: combinations heap_tuple_infomask_flags reports as combined_flags.
pub const T_INFOMASK_COMBINED: &[FlagName] = &[
    flag(0x0050, "HEAP_XMAX_SHR_LOCK"),
    bit(HEAP_XMIN_FROZEN, "HEAP_XMIN_FROZEN"),
    flag(0xC000, "HEAP_MOVED"),
];

/// htup_details.h: t_infomask2 flag bits (the low 11 bits are HEAP_NATTS_MASK).
pub const T_INFOMASK2: &[FlagName] = &[
    flag(0x2000, "HEAP_KEYS_UPDATED"),
    flag(0x4000, "HEAP_HOT_UPDATED"),
    flag(0x8000, "HEAP_ONLY_TUPLE"),
];

/// access/transam.h: the special TransactionIds below FirstNormalTransactionId.
pub const TRANSAM_XIDS: &[FlagName] = &[
    flag(0, "InvalidTransactionId"),
    flag(1, "BootstrapTransactionId"),
    flag(2, "FrozenTransactionId"),
];

/// htup_details.h: HEAP_NATTS_MASK.
pub const HEAP_NATTS_MASK: u16 = 0x07FF;

structure! {
    HEAP_TUPLE_HEADER_DATA, heap_tuple_header_data, 2, "HeapTupleHeaderData", 23,
    "htup_details.h: HeapTupleHeaderData up to t_bits (SizeofHeapTupleHeader = 23).";
    T_XMIN = f("t_xmin", 0, 4, Kind::Xid, Role::TupleHeader, "htup_details.h: HeapTupleFields.t_xmin, inserting xact ID").col("t_xmin"),
    T_XMAX = f("t_xmax", 4, 4, Kind::Xid, Role::TupleHeader, "htup_details.h: HeapTupleFields.t_xmax, deleting or locking xact ID").col("t_xmax"),
    T_FIELD3 = f("t_field3", 8, 4, Kind::U32, Role::TupleHeader, "htup_details.h: HeapTupleFields.t_field3, t_cid (inserting or deleting command ID) or t_xvac").col("t_field3"),
    T_CTID = f("t_ctid", 12, 6, Kind::Tid, Role::TupleHeader, "htup_details.h: HeapTupleHeaderData.t_ctid, current TID of this or newer tuple").col("t_ctid"),
    T_INFOMASK2 = f("t_infomask2", 18, 2, Kind::Flags(T_INFOMASK2), Role::TupleHeader, "htup_details.h: HeapTupleHeaderData.t_infomask2, number of attributes + flag bits").col("t_infomask2"),
    T_INFOMASK = f("t_infomask", 20, 2, Kind::Flags(T_INFOMASK), Role::TupleHeader, "htup_details.h: HeapTupleHeaderData.t_infomask, flag bits").col("t_infomask"),
    T_HOFF = f("t_hoff", 22, 1, Kind::U8, Role::TupleHeader, "htup_details.h: HeapTupleHeaderData.t_hoff, sizeof header incl. bitmap, padding").col("t_hoff"),
    T_BITS = var("t_bits", 23, Kind::Bytes, Role::NullBitmap, "htup_details.h: HeapTupleHeaderData.t_bits, null bitmap, one bit per attribute (HEAP_HASNULL)").col("t_bits"),
    T_OID = var("t_oid", 23, Kind::Oid, Role::TupleHeader, "htup_details.h: HeapTupleHeaderGetOidOld, a WITH OIDS table's OID just before t_hoff (HEAP_HASOID_OLD)").col("t_oid"),
    PADDING = var("padding", 23, Kind::Bytes, Role::TupleHeader, "htup_details.h: alignment padding from t_bits' end up to t_hoff (MAXALIGN)"),
    T_DATA = var("t_data", 23, Kind::Bytes, Role::TupleData, "htup_details.h: the tuple's user data, from t_hoff to lp_len").col("t_data"),
    TUPLE = var("tuple", 0, Kind::Bytes, Role::TupleData, "htup_details.h: bytes a line pointer points at that heapfuncs.c's heap_page_items would not read as a HeapTupleHeaderData"),
}

// ---------------------------------------------------------------- itup.h

/// itup.h: INDEX_SIZE_MASK, the tuple's size in t_info's low 13 bits.
pub const INDEX_SIZE_MASK: u16 = 0x1FFF;
/// itup.h: INDEX_VAR_MASK, the tuple has variable-width attributes.
pub const INDEX_VAR_MASK: u32 = 0x4000;
/// itup.h: INDEX_NULL_MASK, the tuple has a null bitmap.
pub const INDEX_NULL_MASK: u32 = 0x8000;

/// itup.h: t_info bits (the low 13 bits are INDEX_SIZE_MASK).
pub const T_INFO: &[FlagName] = &[
    flag(0x2000, "INDEX_AM_RESERVED_BIT"),
    flag(INDEX_VAR_MASK, "INDEX_VAR_MASK"),
    flag(INDEX_NULL_MASK, "INDEX_NULL_MASK"),
];

structure! {
    INDEX_TUPLE_DATA, index_tuple_data, 3, "IndexTupleData", 8,
    "itup.h: IndexTupleData (8 bytes, then an optional IndexAttributeBitMapData).";
    T_TID = f(
            "t_tid",
            0,
            6,
            Kind::Tid,
            Role::TupleHeader,
            "itup.h: IndexTupleData.t_tid, reference TID to heap tuple",
        ).col("ctid"),
    T_INFO = f(
            "t_info",
            6,
            2,
            Kind::Flags(T_INFO),
            Role::TupleHeader,
            "itup.h: IndexTupleData.t_info, size (INDEX_SIZE_MASK) | var | null bits",
        ).col("itemlen"),
    T_BITS = var("t_bits", 8, Kind::Bytes, Role::NullBitmap, "itup.h: IndexAttributeBitMapData, the null bitmap after IndexTupleData (INDEX_NULL_MASK)"),
    T_DATA = var("t_data", 8, Kind::Bytes, Role::TupleData, "itup.h: the key data, from IndexInfoFindDataOffset to IndexTupleSize").col("data"),
    TUPLE = var("tuple", 0, Kind::Bytes, Role::TupleHeader, "itup.h: an IndexTupleData whose IndexTupleSize does not fit its own layout or the page"),
}

// ---------------------------------------------------------------- nbtree.h

/// nbtree.h: BTP_DELETED, the page is in the free-space chain.
pub const BTP_DELETED: u16 = 1 << 2;
/// nbtree.h: BTP_META, the metapage.
pub const BTP_META: u16 = 1 << 3;

/// nbtree.h: btpo_flags bits.
pub const BTPO_FLAGS: &[FlagName] = &[
    flag(1 << 0, "BTP_LEAF"),
    flag(1 << 1, "BTP_ROOT"),
    flag(BTP_DELETED as u32, "BTP_DELETED"),
    flag(BTP_META as u32, "BTP_META"),
    flag(1 << 4, "BTP_HALF_DEAD"),
    flag(1 << 5, "BTP_SPLIT_END"),
    flag(1 << 6, "BTP_HAS_GARBAGE"),
    flag(1 << 7, "BTP_INCOMPLETE_SPLIT"),
    flag(1 << 8, "BTP_HAS_FULLXID"),
];

structure! {
    BT_PAGE_OPAQUE_DATA, bt_page_opaque_data, 4, "BTPageOpaqueData", 16,
    "nbtree.h: BTPageOpaqueData, the btree special space.";
    BTPO_PREV = f(
            "btpo_prev",
            0,
            4,
            Kind::BlockNumber,
            Role::Special,
            "nbtree.h: BTPageOpaqueData.btpo_prev, left sibling, or P_NONE if leftmost",
        ).col("btpo_prev"),
    BTPO_NEXT = f(
            "btpo_next",
            4,
            4,
            Kind::BlockNumber,
            Role::Special,
            "nbtree.h: BTPageOpaqueData.btpo_next, right sibling, or P_NONE if rightmost",
        ).col("btpo_next"),
    BTPO_LEVEL = f(
            "btpo_level",
            8,
            4,
            Kind::U32,
            Role::Special,
            "nbtree.h: BTPageOpaqueData.btpo_level, tree level --- zero for leaf pages",
        ).col("btpo_level"),
    BTPO_FLAGS = f(
            "btpo_flags",
            12,
            2,
            Kind::Flags(BTPO_FLAGS),
            Role::Special,
            "nbtree.h: BTPageOpaqueData.btpo_flags, BTP_LEAF, BTP_ROOT, BTP_META ...",
        ).col("btpo_flags"),
    BTPO_CYCLEID = f(
            "btpo_cycleid",
            14,
            2,
            Kind::U16,
            Role::Special,
            "nbtree.h: BTPageOpaqueData.btpo_cycleid, vacuum cycle ID of latest split",
        ).col("btpo_cycleid"),
}

structure! {
    BT_META_PAGE_DATA, bt_meta_page_data, 5, "BTMetaPageData", 41,
    "nbtree.h: BTMetaPageData, at PageGetContents of block 0.";
    BTM_MAGIC = f("btm_magic", 0, 4, Kind::Magic, Role::Meta, "nbtree.h: BTMetaPageData.btm_magic, should contain BTREE_MAGIC (0x053162)").col("magic"),
    BTM_VERSION = f("btm_version", 4, 4, Kind::U32, Role::Meta, "nbtree.h: BTMetaPageData.btm_version, nbtree version (always <= BTREE_VERSION)").col("version"),
    BTM_ROOT = f("btm_root", 8, 4, Kind::BlockNumber, Role::Meta, "nbtree.h: BTMetaPageData.btm_root, current root location").col("root"),
    BTM_LEVEL = f("btm_level", 12, 4, Kind::U32, Role::Meta, "nbtree.h: BTMetaPageData.btm_level, tree level of the root page").col("level"),
    BTM_FASTROOT = f("btm_fastroot", 16, 4, Kind::BlockNumber, Role::Meta, "nbtree.h: BTMetaPageData.btm_fastroot, current \"fast\" root location").col("fastroot"),
    BTM_FASTLEVEL = f("btm_fastlevel", 20, 4, Kind::U32, Role::Meta, "nbtree.h: BTMetaPageData.btm_fastlevel, tree level of the \"fast\" root page").col("fastlevel"),
    BTM_LAST_CLEANUP_NUM_DELPAGES = f("btm_last_cleanup_num_delpages", 24, 4, Kind::U32, Role::Meta, "nbtree.h: BTMetaPageData.btm_last_cleanup_num_delpages, deleted non-recyclable pages at last cleanup").col("last_cleanup_num_delpages"),
    BTM_LAST_CLEANUP_NUM_HEAP_TUPLES = f("btm_last_cleanup_num_heap_tuples", 32, 8, Kind::F64, Role::Meta, "nbtree.h: BTMetaPageData.btm_last_cleanup_num_heap_tuples, heap tuples at last cleanup (deprecated)").col("last_cleanup_num_tuples"),
    BTM_ALLEQUALIMAGE = f("btm_allequalimage", 40, 1, Kind::Bool, Role::Meta, "nbtree.h: BTMetaPageData.btm_allequalimage, are all columns \"equalimage\"?").col("allequalimage"),
}

structure! {
    BT_DELETED_PAGE_DATA, bt_deleted_page_data, 6, "BTDeletedPageData", 8,
    "nbtree.h: BTDeletedPageData, at PageGetContents of a deleted page with BTP_HAS_FULLXID.";
    SAFEXID = f("safexid", 0, 8, Kind::U64, Role::Meta, "nbtree.h: BTDeletedPageData.safexid, FullTransactionId after which the page can be recycled"),
}

// ---------------------------------------------------------------- hash.h

/// hash.h: hasho_flag bits.
pub const HASHO_FLAG: &[FlagName] = &[
    flag(1 << 0, "LH_OVERFLOW_PAGE"),
    flag(1 << 1, "LH_BUCKET_PAGE"),
    flag(1 << 2, "LH_BITMAP_PAGE"),
    flag(1 << 3, "LH_META_PAGE"),
    flag(1 << 4, "LH_BUCKET_BEING_POPULATED"),
    flag(1 << 5, "LH_BUCKET_BEING_SPLIT"),
    flag(1 << 6, "LH_BUCKET_NEEDS_SPLIT_CLEANUP"),
    flag(1 << 7, "LH_PAGE_HAS_DEAD_TUPLES"),
];

structure! {
    HASH_PAGE_OPAQUE_DATA, hash_page_opaque_data, 7, "HashPageOpaqueData", 16,
    "hash.h: HashPageOpaqueData, the hash special space.";
    HASHO_PREVBLKNO = f("hasho_prevblkno", 0, 4, Kind::BlockNumber, Role::Special, "hash.h: HashPageOpaqueData.hasho_prevblkno, previous ovfl page, or maxbucket at last split for a bucket page").col("hasho_prevblkno"),
    HASHO_NEXTBLKNO = f("hasho_nextblkno", 4, 4, Kind::BlockNumber, Role::Special, "hash.h: HashPageOpaqueData.hasho_nextblkno, next ovfl blkno").col("hasho_nextblkno"),
    HASHO_BUCKET = f("hasho_bucket", 8, 4, Kind::U32, Role::Special, "hash.h: HashPageOpaqueData.hasho_bucket, bucket number this page belongs to").col("hasho_bucket"),
    HASHO_FLAG = f("hasho_flag", 12, 2, Kind::Flags(HASHO_FLAG), Role::Special, "hash.h: HashPageOpaqueData.hasho_flag, page type code + flag bits").col("hasho_flag"),
    HASHO_PAGE_ID = f("hasho_page_id", 14, 2, Kind::Magic, Role::Special, "hash.h: HashPageOpaqueData.hasho_page_id, HASHO_PAGE_ID (0xFF80)").col("hasho_page_id"),
}

/// hash.h: HASH_MAX_SPLITPOINTS.
pub const HASH_MAX_SPLITPOINTS: u16 = 98;

structure! {
    HASH_META_PAGE_DATA, hash_meta_page_data, 8, "HashMetaPageData", 444,
    "hash.h: HashMetaPageData up to hashm_spares; hashm_mapp (HASH_MAX_BITMAPS entries, which depends on the block size) follows at offset 444.";
    HASHM_MAGIC = f("hashm_magic", 0, 4, Kind::Magic, Role::Meta, "hash.h: HashMetaPageData.hashm_magic, HASH_MAGIC (0x6440640)").col("magic"),
    HASHM_VERSION = f("hashm_version", 4, 4, Kind::U32, Role::Meta, "hash.h: HashMetaPageData.hashm_version, HASH_VERSION (4)").col("version"),
    HASHM_NTUPLES = f("hashm_ntuples", 8, 8, Kind::F64, Role::Meta, "hash.h: HashMetaPageData.hashm_ntuples, number of tuples stored in the table").col("ntuples"),
    HASHM_FFACTOR = f("hashm_ffactor", 16, 2, Kind::U16, Role::Meta, "hash.h: HashMetaPageData.hashm_ffactor, target fill factor (tuples/bucket)").col("ffactor"),
    HASHM_BSIZE = f("hashm_bsize", 18, 2, Kind::U16, Role::Meta, "hash.h: HashMetaPageData.hashm_bsize, index page size (bytes)").col("bsize"),
    HASHM_BMSIZE = f("hashm_bmsize", 20, 2, Kind::U16, Role::Meta, "hash.h: HashMetaPageData.hashm_bmsize, bitmap array size (bytes)").col("bmsize"),
    HASHM_BMSHIFT = f("hashm_bmshift", 22, 2, Kind::U16, Role::Meta, "hash.h: HashMetaPageData.hashm_bmshift, log2(bitmap array size in BITS)").col("bmshift"),
    HASHM_MAXBUCKET = f("hashm_maxbucket", 24, 4, Kind::U32, Role::Meta, "hash.h: HashMetaPageData.hashm_maxbucket, ID of maximum bucket in use").col("maxbucket"),
    HASHM_HIGHMASK = f("hashm_highmask", 28, 4, Kind::U32, Role::Meta, "hash.h: HashMetaPageData.hashm_highmask, mask to modulo into entire table").col("highmask"),
    HASHM_LOWMASK = f("hashm_lowmask", 32, 4, Kind::U32, Role::Meta, "hash.h: HashMetaPageData.hashm_lowmask, mask to modulo into lower half of table").col("lowmask"),
    HASHM_OVFLPOINT = f("hashm_ovflpoint", 36, 4, Kind::U32, Role::Meta, "hash.h: HashMetaPageData.hashm_ovflpoint, splitpoint from which ovflpage being allocated").col("ovflpoint"),
    HASHM_FIRSTFREE = f("hashm_firstfree", 40, 4, Kind::U32, Role::Meta, "hash.h: HashMetaPageData.hashm_firstfree, lowest-number free ovflpage (bit#)").col("firstfree"),
    HASHM_NMAPS = f("hashm_nmaps", 44, 4, Kind::U32, Role::Meta, "hash.h: HashMetaPageData.hashm_nmaps, number of bitmap pages").col("nmaps"),
    HASHM_PROCID = f("hashm_procid", 48, 4, Kind::Oid, Role::Meta, "hash.h: HashMetaPageData.hashm_procid, hash function id from pg_proc").col("procid"),
    HASHM_SPARES = f("hashm_spares", 52, 392, Kind::U32Array, Role::Meta, "hash.h: HashMetaPageData.hashm_spares[HASH_MAX_SPLITPOINTS], spare pages before each splitpoint").col("spares"),
    HASHM_MAPP = var("hashm_mapp", 444, Kind::U32Array, Role::Meta, "hash.h: HashMetaPageData.hashm_mapp[HASH_MAX_BITMAPS], blknos of the bitmap pages").col("mapp"),
}

// ---------------------------------------------------------------- gist.h

/// gist.h: GISTPageOpaqueData flags bits.
pub const GIST_FLAGS: &[FlagName] = &[
    flag(1 << 0, "F_LEAF"),
    flag(1 << 1, "F_DELETED"),
    flag(1 << 2, "F_TUPLES_DELETED"),
    flag(1 << 3, "F_FOLLOW_RIGHT"),
    flag(1 << 4, "F_HAS_GARBAGE"),
];

structure! {
    GIST_PAGE_OPAQUE_DATA, gist_page_opaque_data, 9, "GISTPageOpaqueData", 16,
    "gist.h: GISTPageOpaqueData, the GiST special space.";
    NSN = f(
            "nsn",
            0,
            8,
            Kind::Lsn,
            Role::Special,
            "gist.h: GISTPageOpaqueData.nsn, this value must change on page split",
        ).col("nsn"),
    RIGHTLINK = f(
            "rightlink",
            8,
            4,
            Kind::BlockNumber,
            Role::Special,
            "gist.h: GISTPageOpaqueData.rightlink, next page if any",
        ).col("rightlink"),
    FLAGS = f(
            "flags",
            12,
            2,
            Kind::Flags(GIST_FLAGS),
            Role::Special,
            "gist.h: GISTPageOpaqueData.flags, F_LEAF, F_DELETED ...",
        ).col("flags"),
    GIST_PAGE_ID = f(
            "gist_page_id",
            14,
            2,
            Kind::Magic,
            Role::Special,
            "gist.h: GISTPageOpaqueData.gist_page_id, GIST_PAGE_ID (0xFF81)",
        ),
}

// ---------------------------------------------------------------- ginblock.h

/// ginblock.h: GinPageOpaqueData flags bits.
pub const GIN_FLAGS: &[FlagName] = &[
    flag(1 << 0, "GIN_DATA"),
    flag(1 << 1, "GIN_LEAF"),
    flag(1 << 2, "GIN_DELETED"),
    flag(1 << 3, "GIN_META"),
    flag(1 << 4, "GIN_LIST"),
    flag(1 << 5, "GIN_LIST_FULLROW"),
    flag(1 << 6, "GIN_INCOMPLETE_SPLIT"),
    flag(1 << 7, "GIN_COMPRESSED"),
];

structure! {
    GIN_PAGE_OPAQUE_DATA, gin_page_opaque_data, 10, "GinPageOpaqueData", 8,
    "ginblock.h: GinPageOpaqueData, the GIN special space.";
    RIGHTLINK = f("rightlink", 0, 4, Kind::BlockNumber, Role::Special, "ginblock.h: GinPageOpaqueData.rightlink, next page if any").col("rightlink"),
    MAXOFF = f("maxoff", 4, 2, Kind::U16, Role::Special, "ginblock.h: GinPageOpaqueData.maxoff, number of PostingItems on GIN_DATA & ~GIN_LEAF page").col("maxoff"),
    FLAGS = f("flags", 6, 2, Kind::Flags(GIN_FLAGS), Role::Special, "ginblock.h: GinPageOpaqueData.flags, GIN_DATA, GIN_LEAF, GIN_META ...").col("flags"),
}

structure! {
    GIN_META_PAGE_DATA, gin_meta_page_data, 11, "GinMetaPageData", 52,
    "ginblock.h: GinMetaPageData, at PageGetContents of block 0.";
    HEAD = f("head", 0, 4, Kind::BlockNumber, Role::Meta, "ginblock.h: GinMetaPageData.head, first page of the pending list").col("pending_head"),
    TAIL = f("tail", 4, 4, Kind::BlockNumber, Role::Meta, "ginblock.h: GinMetaPageData.tail, last page of the pending list").col("pending_tail"),
    TAIL_FREE_SIZE = f("tailFreeSize", 8, 4, Kind::U32, Role::Meta, "ginblock.h: GinMetaPageData.tailFreeSize, free space in bytes in the pending list's tail page").col("tail_free_size"),
    N_PENDING_PAGES = f("nPendingPages", 12, 4, Kind::U32, Role::Meta, "ginblock.h: GinMetaPageData.nPendingPages, pages in the pending list").col("n_pending_pages"),
    N_PENDING_HEAP_TUPLES = f("nPendingHeapTuples", 16, 8, Kind::I64, Role::Meta, "ginblock.h: GinMetaPageData.nPendingHeapTuples, heap tuples in the pending list").col("n_pending_tuples"),
    N_TOTAL_PAGES = f("nTotalPages", 24, 4, Kind::U32, Role::Meta, "ginblock.h: GinMetaPageData.nTotalPages, statistics for the planner, updated by VACUUM").col("n_total_pages"),
    N_ENTRY_PAGES = f("nEntryPages", 28, 4, Kind::U32, Role::Meta, "ginblock.h: GinMetaPageData.nEntryPages, entry tree pages").col("n_entry_pages"),
    N_DATA_PAGES = f("nDataPages", 32, 4, Kind::U32, Role::Meta, "ginblock.h: GinMetaPageData.nDataPages, posting tree pages").col("n_data_pages"),
    N_ENTRIES = f("nEntries", 40, 8, Kind::I64, Role::Meta, "ginblock.h: GinMetaPageData.nEntries, distinct keys").col("n_entries"),
    GIN_VERSION = f("ginVersion", 48, 4, Kind::I32, Role::Meta, "ginblock.h: GinMetaPageData.ginVersion, GIN_CURRENT_VERSION (2)").col("version"),
}

structure! {
    GIN_POSTING_LIST, gin_posting_list, 12, "GinPostingList", 8,
    "ginblock.h: GinPostingList, one compressed segment on a posting tree leaf page.";
    FIRST = f(
            "first",
            0,
            6,
            Kind::Tid,
            Role::TupleHeader,
            "ginblock.h: GinPostingList.first, first item in this posting list (unpacked)",
        ).col("first_tid"),
    NBYTES = f(
            "nbytes",
            6,
            2,
            Kind::U16,
            Role::TupleHeader,
            "ginblock.h: GinPostingList.nbytes, number of bytes that follow",
        ).col("nbytes"),
    BYTES = var("bytes", 8, Kind::Bytes, Role::TupleData, "ginblock.h: GinPostingList.bytes, varbyte-encoded item pointers").col("tids"),
}

structure! {
    POSTING_ITEM, posting_item, 13, "PostingItem", 10,
    "ginblock.h: PostingItem, a downlink on a posting tree internal page.";
    CHILD_BLKNO = f(
            "child_blkno",
            0,
            4,
            Kind::BlockNumber,
            Role::TupleData,
            "ginblock.h: PostingItem.child_blkno, BlockIdData of the child page",
        ),
    KEY = f(
            "key",
            4,
            6,
            Kind::Tid,
            Role::TupleData,
            "ginblock.h: PostingItem.key, high key of the child page",
        ),
}

// ---------------------------------------------------------------- spgist_private.h

/// spgist_private.h: SPGIST_LEAF, a leaf page.
pub const SPGIST_LEAF: u16 = 1 << 2;

/// spgist_private.h: SpGistPageOpaqueData flags bits.
pub const SPGIST_FLAGS: &[FlagName] = &[
    flag(1 << 0, "SPGIST_META"),
    flag(1 << 1, "SPGIST_DELETED"),
    flag(SPGIST_LEAF as u32, "SPGIST_LEAF"),
    flag(1 << 3, "SPGIST_NULLS"),
];

structure! {
    SPGIST_PAGE_OPAQUE_DATA, spgist_page_opaque_data, 14, "SpGistPageOpaqueData", 8,
    "spgist_private.h: SpGistPageOpaqueData, the SP-GiST special space.";
    FLAGS = f("flags", 0, 2, Kind::Flags(SPGIST_FLAGS), Role::Special, "spgist_private.h: SpGistPageOpaqueData.flags, SPGIST_META, SPGIST_LEAF, SPGIST_NULLS"),
    N_REDIRECTION = f("nRedirection", 2, 2, Kind::U16, Role::Special, "spgist_private.h: SpGistPageOpaqueData.nRedirection, number of redirection tuples on page"),
    N_PLACEHOLDER = f("nPlaceholder", 4, 2, Kind::U16, Role::Special, "spgist_private.h: SpGistPageOpaqueData.nPlaceholder, number of placeholder tuples on page"),
    SPGIST_PAGE_ID = f("spgist_page_id", 6, 2, Kind::Magic, Role::Special, "spgist_private.h: SpGistPageOpaqueData.spgist_page_id, SPGIST_PAGE_ID (0xFF82)"),
}

structure! {
    SPGIST_META_PAGE_DATA, spgist_meta_page_data, 15, "SpGistMetaPageData", 68,
    "spgist_private.h: SpGistMetaPageData: magicNumber, then SPGIST_CACHED_PAGES (8) SpGistLastUsedPage {blkno, freeSpace} entries.";
    MAGIC_NUMBER = f("magicNumber", 0, 4, Kind::Magic, Role::Meta, "spgist_private.h: SpGistMetaPageData.magicNumber, SPGIST_MAGIC_NUMBER (0xBA0BABEE)"),
    LAST_USED_PAGES = f("lastUsedPages", 4, 64, Kind::U32Array, Role::Meta, "spgist_private.h: SpGistMetaPageData.lastUsedPages, SpGistLUPCache of {blkno, freeSpace}"),
}

/// spgist_private.h: tupstate values.
pub const SPGIST_TUPSTATE: &[FlagName] = &[
    flag(0, "SPGIST_LIVE"),
    flag(1, "SPGIST_REDIRECT"),
    flag(2, "SPGIST_DEAD"),
    flag(3, "SPGIST_PLACEHOLDER"),
];

structure! {
    SPGIST_INNER_TUPLE_DATA, spgist_inner_tuple_data, 16, "SpGistInnerTupleData", 6,
    "spgist_private.h: SpGistInnerTupleData; the prefix datum and nodes follow.";
    TUPSTATE = bits(
            "tupstate",
            0,
            2,
            Kind::Enum(SPGIST_TUPSTATE),
            Role::TupleHeader,
            "spgist_private.h: SpGistInnerTupleData.tupstate, LIVE/REDIRECT/DEAD/PLACEHOLDER",
        ),
    ALL_THE_SAME = bits(
            "allTheSame",
            2,
            1,
            Kind::Bool,
            Role::TupleHeader,
            "spgist_private.h: SpGistInnerTupleData.allTheSame, all nodes in tuple are equivalent",
        ),
    N_NODES = bits(
            "nNodes",
            3,
            13,
            Kind::U16,
            Role::TupleHeader,
            "spgist_private.h: SpGistInnerTupleData.nNodes, number of nodes within inner tuple",
        ),
    PREFIX_SIZE = bits(
            "prefixSize",
            16,
            16,
            Kind::U16,
            Role::TupleHeader,
            "spgist_private.h: SpGistInnerTupleData.prefixSize, size of prefix, or 0 if none",
        ),
    SIZE = f(
            "size",
            4,
            2,
            Kind::U16,
            Role::TupleHeader,
            "spgist_private.h: SpGistInnerTupleData.size, total size of inner tuple",
        ),
    T_DATA = var("t_data", 6, Kind::Bytes, Role::TupleData, "spgist_private.h: SpGistInnerTupleData's prefix datum and SpGistNodeTuple nodes"),
}

/// spgist_private.h: SGLT_NEXTOFFSET_MASK, the next leaf's offset in t_info's low 14 bits.
pub const SGLT_NEXTOFFSET_MASK: u16 = 0x3FFF;

structure! {
    SPGIST_LEAF_TUPLE_DATA, spgist_leaf_tuple_data, 17, "SpGistLeafTupleData", 12,
    "spgist_private.h: SpGistLeafTupleData; a null bitmap and the leaf datum follow.";
    TUPSTATE = bits("tupstate", 0, 2, Kind::Enum(SPGIST_TUPSTATE), Role::TupleHeader, "spgist_private.h: SpGistLeafTupleData.tupstate, LIVE/REDIRECT/DEAD/PLACEHOLDER"),
    SIZE = bits("size", 2, 30, Kind::U32, Role::TupleHeader, "spgist_private.h: SpGistLeafTupleData.size, large enough for any palloc'able value"),
    T_INFO = f("t_info", 4, 2, Kind::U16, Role::TupleHeader, "spgist_private.h: SpGistLeafTupleData.t_info, nextOffset in the chain plus two flag bits"),
    HEAP_PTR = f("heapPtr", 6, 6, Kind::Tid, Role::TupleHeader, "spgist_private.h: SpGistLeafTupleData.heapPtr, TID of represented heap tuple"),
    T_DATA = var("t_data", 12, Kind::Bytes, Role::TupleData, "spgist_private.h: SpGistLeafTupleData's null bitmap and leaf datum"),
}

structure! {
    SPGIST_DEAD_TUPLE_DATA, spgist_dead_tuple_data, 18, "SpGistDeadTupleData", 16,
    "spgist_private.h: SpGistDeadTupleData, a REDIRECT, DEAD or PLACEHOLDER tuple.";
    TUPSTATE = bits(
            "tupstate",
            0,
            2,
            Kind::Enum(SPGIST_TUPSTATE),
            Role::TupleHeader,
            "spgist_private.h: SpGistDeadTupleData.tupstate, REDIRECT/DEAD/PLACEHOLDER",
        ),
    SIZE = bits(
            "size",
            2,
            30,
            Kind::U32,
            Role::TupleHeader,
            "spgist_private.h: SpGistDeadTupleData.size",
        ),
    T_INFO = f(
            "t_info",
            4,
            2,
            Kind::U16,
            Role::TupleHeader,
            "spgist_private.h: SpGistDeadTupleData.t_info, not used in dead tuples",
        ),
    POINTER = f(
            "pointer",
            6,
            6,
            Kind::Tid,
            Role::TupleHeader,
            "spgist_private.h: SpGistDeadTupleData.pointer, redirection inside index",
        ),
    XID = f(
            "xid",
            12,
            4,
            Kind::Xid,
            Role::TupleHeader,
            "spgist_private.h: SpGistDeadTupleData.xid, ID of xact that inserted this tuple",
        ),
    T_DATA = var("t_data", 16, Kind::Bytes, Role::TupleData, "spgist_private.h: bytes past SpGistDeadTupleData up to lp_len"),
}

// ---------------------------------------------------------------- brin_page.h

structure! {
    BRIN_SPECIAL_SPACE, brin_special_space, 19, "BrinSpecialSpace", 8,
    "brin_page.h: BrinSpecialSpace.vector[MAXALIGN(1)/sizeof(uint16)]: the page type is the last element, the flags the one before it.";
    VECTOR = f("vector", 0, 4, Kind::Bytes, Role::Special, "brin_page.h: BrinSpecialSpace.vector[0..1], unused"),
    FLAGS = f("flags", 4, 2, Kind::Flags(&[flag(1, "BRIN_EVACUATE_PAGE")]), Role::Special, "brin_page.h: BrinSpecialSpace.vector[2] (BrinPageFlags), BRIN_EVACUATE_PAGE").col("flags"),
    TYPE = f("type", 6, 2, Kind::Magic, Role::Special, "brin_page.h: BrinSpecialSpace.vector[3] (BrinPageType), BRIN_PAGETYPE_META/REVMAP/REGULAR").col("type"),
}

structure! {
    BRIN_META_PAGE_DATA, brin_meta_page_data, 20, "BrinMetaPageData", 16,
    "brin_page.h: BrinMetaPageData, at PageGetContents of block 0.";
    BRIN_MAGIC = f(
            "brinMagic",
            0,
            4,
            Kind::Magic,
            Role::Meta,
            "brin_page.h: BrinMetaPageData.brinMagic, BRIN_META_MAGIC (0xA8109CFA)",
        ).col("magic"),
    BRIN_VERSION = f(
            "brinVersion",
            4,
            4,
            Kind::U32,
            Role::Meta,
            "brin_page.h: BrinMetaPageData.brinVersion, BRIN_CURRENT_VERSION (1)",
        ).col("version"),
    PAGES_PER_RANGE = f(
            "pagesPerRange",
            8,
            4,
            Kind::BlockNumber,
            Role::Meta,
            "brin_page.h: BrinMetaPageData.pagesPerRange, heap blocks summarized per range",
        ).col("pagesperrange"),
    LAST_REVMAP_PAGE = f(
            "lastRevmapPage",
            12,
            4,
            Kind::BlockNumber,
            Role::Meta,
            "brin_page.h: BrinMetaPageData.lastRevmapPage, last page of the range map",
        ).col("lastrevmappage"),
}

structure! {
    BRIN_TUPLE, brin_tuple, 21, "BrinTuple", 5,
    "brin_tuple.h: BrinTuple's fixed part; the null bitmap and data follow.";
    BT_BLKNO = f("bt_blkno", 0, 4, Kind::BlockNumber, Role::TupleHeader, "brin_tuple.h: BrinTuple.bt_blkno, heap blkno that the tuple is for").col("blknum"),
    BT_INFO = f("bt_info", 4, 1, Kind::U8, Role::TupleHeader, "brin_tuple.h: BrinTuple.bt_info, data offset | BRIN_PLACEHOLDER_MASK | BRIN_NULLS_MASK"),
    T_DATA = var("t_data", 5, Kind::Bytes, Role::TupleData, "brin_tuple.h: BrinTuple's null bitmap and summary values, from BrinTupleDataOffset").col("value"),
}

// ---------------------------------------------------------------- sequence.c, fsm_internals.h, visibilitymapdefs.h

structure! {
    SEQUENCE_MAGIC, sequence_magic, 22, "sequence_magic", 4,
    "commands/sequence.c: sequence_magic, the special space of a sequence's page.";
    MAGIC = f(
        "magic",
        0,
        4,
        Kind::Magic,
        Role::Special,
        "commands/sequence.c: sequence_magic.magic, SEQ_MAGIC (0x1717)",
    ).col("magic"),
}

structure! {
    FORM_DATA_PG_SEQUENCE_DATA, form_data_pg_sequence_data, 23, "FormData_pg_sequence_data", 17,
    "commands/sequence.h: FormData_pg_sequence_data, the data (after t_hoff) of a sequence page's one tuple.";
    LAST_VALUE = f(
            "last_value",
            0,
            8,
            Kind::I64,
            Role::TupleData,
            "commands/sequence.h: FormData_pg_sequence_data.last_value",
        ).col("last_value"),
    LOG_CNT = f(
            "log_cnt",
            8,
            8,
            Kind::I64,
            Role::TupleData,
            "commands/sequence.h: FormData_pg_sequence_data.log_cnt, values pre-logged in WAL",
        ).col("log_cnt"),
    IS_CALLED = f(
            "is_called",
            16,
            1,
            Kind::Bool,
            Role::TupleData,
            "commands/sequence.h: FormData_pg_sequence_data.is_called",
        ).col("is_called"),
}

structure! {
    FSM_PAGE_DATA, fsm_page_data, 24, "FSMPageData", 4,
    "storage/fsm_internals.h: FSMPageData at PageGetContents: fp_next_slot, then the binary tree of one-byte free-space categories (NodesPerPage bytes).";
    FP_NEXT_SLOT = f(
        "fp_next_slot",
        0,
        4,
        Kind::I32,
        Role::Map,
        "storage/fsm_internals.h: FSMPageData.fp_next_slot, next slot to return from search",
    ).col("fp_next_slot"),
    FP_NODES = var("fp_nodes", 4, Kind::Bytes, Role::Map, "storage/fsm_internals.h: FSMPageData.fp_nodes, the binary tree of one-byte free-space categories"),
}

/// access/visibilitymapdefs.h: bits per heap block in the VM fork's bitmap.
pub const VM_FLAGS: &[FlagName] = &[
    flag(0x01, "VISIBILITYMAP_ALL_VISIBLE"),
    flag(0x02, "VISIBILITYMAP_ALL_FROZEN"),
];

// ---------------------------------------------------------------- contents walked by the decoders

structure! {
    BTREE_TUPLE, btree_tuple, 25, "BTreeTuple", 8,
    "nbtree.h: IndexTupleData as nbtree reads it: pivot heap TID and posting list (BTreeTupleGetHeapTID, BTreeTupleGetPosting).";
    HTID = var("htid", 8, Kind::Tid, Role::TupleHeader, "nbtree.h: BTreeTupleGetHeapTID, a pivot tuple's heap TID tiebreaker after its key").col("htid"),
    TIDS = var("tids", 8, Kind::Bytes, Role::TupleData, "nbtree.h: BTreeTupleGetPosting, a posting list tuple's sorted heap TIDs").col("tids"),
}

structure! {
    GIST_DELETED_PAGE_CONTENTS, gist_deleted_page_contents, 26, "GISTDeletedPageContents", 8,
    "gist.h: GISTDeletedPageContents, at PageGetContents of a deleted page (F_DELETED).";
    DELETE_XID = f("deleteXid", 0, 8, Kind::U64, Role::Meta, "gist.h: GISTDeletedPageContents.deleteXid, last xid which could see the page in a scan"),
}

structure! {
    GIN_DATA_PAGE, gin_data_page, 27, "GinDataPage", 6,
    "ginblock.h: a posting tree page's contents: the right bound, then PostingItems or GinPostingLists.";
    RIGHTBOUND = f("rightbound", 0, 6, Kind::Tid, Role::Meta, "ginblock.h: GinDataPageGetRightBound, the page's high key (an ItemPointerData at PageGetContents)"),
}

structure! {
    HASH_BITMAP_PAGE, hash_bitmap_page, 28, "HashBitmapPage", 0,
    "hash.h: a bitmap page's contents (HashPageGetBitmap), one bit per overflow page.";
    BITMAP = var("bitmap", 0, Kind::Bytes, Role::Map, "hash.h: HashPageGetBitmap, uint32 words of overflow-page in-use bits"),
}

structure! {
    REVMAP_CONTENTS, revmap_contents, 29, "RevmapContents", 0,
    "brin_page.h: RevmapContents, a revmap page's array of BRIN tuple TIDs, one per range.";
    RM_TIDS = var("rm_tids", 0, Kind::Tid, Role::Map, "brin_page.h: RevmapContents.rm_tids, TID of each range's summary tuple").col("pages"),
}

structure! {
    VISIBILITY_MAP_CONTENTS, visibility_map_contents, 30, "VisibilityMapContents", 0,
    "access/visibilitymap.c: a visibility map page's contents at PageGetContents, BITS_PER_HEAPBLOCK (2) per heap block.";
    BITS = var("bits", 0, Kind::Bytes, Role::Map, "access/visibilitymapdefs.h: VISIBILITYMAP_ALL_VISIBLE and VISIBILITYMAP_ALL_FROZEN bits, two per heap block"),
}

// ---------------------------------------------------------------- parts of other structures

structure! {
    PAGE_XLOG_REC_PTR, page_xlog_rec_ptr, 31, "PageXLogRecPtr", 8,
    "bufpage.h: PageXLogRecPtr, an LSN stored as two 32-bit halves (pd_lsn, GISTPageOpaqueData.nsn).";
    XLOGID = f("xlogid", 0, 4, Kind::U32, Role::Header, "bufpage.h: PageXLogRecPtr.xlogid, high bits"),
    XRECOFF = f("xrecoff", 4, 4, Kind::U32, Role::Header, "bufpage.h: PageXLogRecPtr.xrecoff, low bits"),
}

structure! {
    ITEM_POINTER_DATA, item_pointer_data, 32, "ItemPointerData", 6,
    "itemptr.h: ItemPointerData, a TID: ip_blkid (block.h's BlockIdData) and ip_posid.";
    BI_HI = f("bi_hi", 0, 2, Kind::U16, Role::TupleHeader, "block.h: BlockIdData.bi_hi, the block number's high 16 bits"),
    BI_LO = f("bi_lo", 2, 2, Kind::U16, Role::TupleHeader, "block.h: BlockIdData.bi_lo, the block number's low 16 bits"),
    IP_POSID = f("ip_posid", 4, 2, Kind::U16, Role::TupleHeader, "itemptr.h: ItemPointerData.ip_posid, the line pointer's number (from 1)"),
}

/// Every table, for docs and the table tests.
pub const ALL_TABLES: &[&Table] = &[
    &PAGE_HEADER_DATA,
    &ITEM_ID_DATA,
    &HEAP_TUPLE_HEADER_DATA,
    &INDEX_TUPLE_DATA,
    &BT_PAGE_OPAQUE_DATA,
    &BT_META_PAGE_DATA,
    &BT_DELETED_PAGE_DATA,
    &HASH_PAGE_OPAQUE_DATA,
    &HASH_META_PAGE_DATA,
    &GIST_PAGE_OPAQUE_DATA,
    &GIN_PAGE_OPAQUE_DATA,
    &GIN_META_PAGE_DATA,
    &GIN_POSTING_LIST,
    &POSTING_ITEM,
    &SPGIST_PAGE_OPAQUE_DATA,
    &SPGIST_META_PAGE_DATA,
    &SPGIST_INNER_TUPLE_DATA,
    &SPGIST_LEAF_TUPLE_DATA,
    &SPGIST_DEAD_TUPLE_DATA,
    &BRIN_SPECIAL_SPACE,
    &BRIN_META_PAGE_DATA,
    &BRIN_TUPLE,
    &SEQUENCE_MAGIC,
    &FORM_DATA_PG_SEQUENCE_DATA,
    &FSM_PAGE_DATA,
    &BTREE_TUPLE,
    &GIST_DELETED_PAGE_CONTENTS,
    &GIN_DATA_PAGE,
    &HASH_BITMAP_PAGE,
    &REVMAP_CONTENTS,
    &VISIBILITY_MAP_CONTENTS,
    &PAGE_XLOG_REC_PTR,
    &ITEM_POINTER_DATA,
];

/// The names of the flags set in `value`, in table order; bits with no name are left out.
pub fn flag_names(value: u32, names: &'static [FlagName]) -> impl Iterator<Item = &'static str> {
    names
        .iter()
        .filter(move |fl| fl.mask != 0 && value & fl.mask == fl.mask)
        .map(|fl| fl.name)
}

#[cfg(test)]
mod tests {

    use super::*;

    #[test]
    fn rows_are_sorted_disjoint_and_inside_the_structure() {
        for t in ALL_TABLES {
            let mut end = 0u16;
            let mut unit: Option<u16> = None;
            let mut bit_end = 0u8;
            let mut variable = false;
            for (i, fl) in t.fields.iter().enumerate() {
                assert_eq!(
                    (fl.id.table, usize::from(fl.id.index)),
                    (t.id, i),
                    "{}.{} has another row's id",
                    t.name,
                    fl.name
                );
                assert_eq!(fl.id.field(), Some(fl));
                if fl.size == 0 {
                    // Variable parts follow the fixed ones, starting where those end at the earliest.
                    assert!(
                        fl.bits.is_none() && fl.offset <= t.size.max(end),
                        "{}.{}",
                        t.name,
                        fl.name
                    );
                    variable = true;
                    assert!(
                        fl.doc.contains(".h: ") || fl.doc.contains(".c: "),
                        "{}.{} doc cites no header",
                        t.name,
                        fl.name
                    );
                    continue;
                }
                assert!(
                    !variable,
                    "{}.{} is a fixed row after a variable one",
                    t.name, fl.name
                );
                match fl.bits {
                    Some(b) => {
                        if unit != Some(fl.offset) {
                            assert!(
                                fl.offset >= end,
                                "{}.{} overlaps or is out of order",
                                t.name,
                                fl.name
                            );
                            unit = Some(fl.offset);
                            bit_end = 0;
                        }
                        assert!(b.shift >= bit_end, "{}.{} bits overlap", t.name, fl.name);
                        bit_end = b.shift + b.width;
                        assert!(
                            usize::from(bit_end) <= usize::from(fl.size) * 8,
                            "{}.{}",
                            t.name,
                            fl.name
                        );
                    }
                    None => assert!(
                        fl.offset >= end,
                        "{}.{} overlaps or is out of order",
                        t.name,
                        fl.name
                    ),
                }
                end = end.max(fl.end());
                assert!(
                    fl.end() <= t.size,
                    "{}.{} ends past {} bytes",
                    t.name,
                    fl.name,
                    t.size
                );
                assert!(
                    fl.doc.contains(".h: ") || fl.doc.contains(".c: "),
                    "{}.{} doc cites no header",
                    t.name,
                    i
                );
            }
        }
    }

    #[test]
    fn tables_are_numbered_by_their_place() {
        for (i, t) in ALL_TABLES.iter().enumerate() {
            assert_eq!(usize::from(t.id), i, "{}", t.name);
            assert!(
                t.doc.contains(".h: ") || t.doc.contains(".c: "),
                "{}",
                t.name
            );
        }
        assert_eq!(page_header_data::PD_LOWER.name, "pd_lower");
        assert_eq!(
            gin_page_opaque_data::FLAGS.qualified(),
            "GinPageOpaqueData.flags"
        );
        assert_eq!(item_id_data::LP_OFF.qualified(), "ItemIdData.lp_off");
        assert_eq!(page_header_data::PD_LSN.column, Some("lsn"));
        let lp = SpanField::Field(item_id_data::LP_OFF.id);
        assert_eq!(
            (lp.name(), lp.qualified().as_str()),
            ("ItemIdData", "ItemIdData")
        );
        assert!(lp.doc().starts_with("itemid.h: "));
        let codes = [
            lp.code(),
            SpanField::FreeSpace.code(),
            SpanField::Unused.code(),
            SpanField::Column(3).code(),
        ];
        assert!(codes
            .iter()
            .enumerate()
            .all(|(i, c)| !codes[..i].contains(c)));
    }

    #[test]
    fn values_format_by_kind() {
        let e = Endian::Little;
        let lsn = [0, 0, 0, 0, 0x40, 0x7a, 0x20, 0x02];
        assert_eq!(page_header_data::PD_LSN.format(&lsn, e), "0/2207A40");
        let tid = [0, 0, 5, 0, 3, 0];
        assert_eq!(heap_tuple_header_data::T_CTID.format(&tid, e), "(5,3)");
        assert_eq!(
            page_header_data::PD_FLAGS.format(&[5, 0], e),
            "0x5 PD_HAS_FREE_LINES|PD_ALL_VISIBLE"
        );
        // Only the bits that are set: 0x0902 is HEAP_HASVARWIDTH, XMIN_COMMITTED, XMAX_INVALID.
        assert_eq!(
            heap_tuple_header_data::T_INFOMASK.format(&[0x02, 0x09], e),
            "0x902 HEAP_HASVARWIDTH|HEAP_XMIN_COMMITTED|HEAP_XMAX_INVALID"
        );
        assert_eq!(
            heap_tuple_header_data::T_INFOMASK2.format(&[0x03, 0x40], e),
            "0x4003 HEAP_HOT_UPDATED|natts=3"
        );
        assert_eq!(
            heap_tuple_header_data::T_XMAX.format(&[0; 4], e),
            "0 (InvalidTransactionId)"
        );
        assert_eq!(
            heap_tuple_header_data::T_XMIN.format(&[2, 0, 0, 0], e),
            "2 (FrozenTransactionId)"
        );
        assert_eq!(
            heap_tuple_header_data::T_XMIN.format(&[0xe6, 2, 0, 0], e),
            "742"
        );
        // lp_off 8160, LP_NORMAL, lp_len 32: (32 << 17) | (1 << 15) | 8160.
        let word = ((32u32 << 17) | (1 << 15) | 8160).to_le_bytes();
        assert_eq!(
            SpanField::Field(item_id_data::LP_OFF.id).format(&word, e),
            "lp_off=8160 lp_flags=1 LP_NORMAL lp_len=32"
        );
    }

    #[test]
    fn header_covers_24_bytes_without_gaps() {
        let mut at = 0;
        for fl in PAGE_HEADER_DATA.fields {
            assert_eq!(fl.offset, at, "{} starts at {}", fl.name, fl.offset);
            at = fl.end();
        }
        assert_eq!(at, 24);
        assert_eq!(PAGE_HEADER_DATA.size, 24);
    }

    #[test]
    fn item_id_bits_fill_the_word() {
        let total: u32 = ITEM_ID_DATA
            .fields
            .iter()
            .filter_map(|f| f.bits)
            .map(|b| u32::from(b.width))
            .sum();
        assert_eq!(total, 32);
        let off = ITEM_ID_DATA.fields[0].bits.unwrap();
        assert_eq!(off.shift_for(32, crate::Endian::Big), 17);
        assert_eq!(off.mask(), 0x7FFF);
    }

    #[test]
    fn special_spaces_are_maxaligned_sizes() {
        for t in [
            &BT_PAGE_OPAQUE_DATA,
            &HASH_PAGE_OPAQUE_DATA,
            &GIST_PAGE_OPAQUE_DATA,
        ] {
            assert_eq!(t.size, 16, "{}", t.name);
        }
        for t in [
            &GIN_PAGE_OPAQUE_DATA,
            &SPGIST_PAGE_OPAQUE_DATA,
            &BRIN_SPECIAL_SPACE,
        ] {
            assert_eq!(t.size, 8, "{}", t.name);
        }
    }
}
