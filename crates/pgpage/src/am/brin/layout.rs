//! BRIN's on-disk layout (brin_page.h, brin_tuple.h): page types, the metapage magic, the
//! tuple header's bits, and the rows brin_page_items(), brin_revmap_data() and
//! brin_metapage_info() show.

use alloc::string::String;

use serde::Serialize;

pub(crate) const BRIN_PAGETYPE_META: u16 = 0xF091;

pub(crate) const BRIN_PAGETYPE_REVMAP: u16 = 0xF092;

pub(crate) const BRIN_PAGETYPE_REGULAR: u16 = 0xF093;

pub(crate) const BRIN_META_MAGIC: u32 = 0xA810_9CFA;

/// One brin_revmap_data() row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RevmapItem {
    pub pages: String,
}

/// brin_metapage_info()'s columns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BrinMeta {
    pub magic: String,
    pub version: u32,
    pub pagesperrange: u32,
    pub lastrevmappage: u32,
}

/// BrinSpecialSpace's flags and type, with brin_page_type()'s name for the type.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BrinSpecial {
    pub brin_page_type: String,
    pub flags: u16,
    #[serde(rename = "type")]
    pub page_type: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta: Option<BrinMeta>,
}

/// One brin_page_items() row: a tuple's column (every column of a tuple, one row each), or
/// an unused line pointer (itemoffset alone).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BrinItem {
    pub itemoffset: u16,
    pub blknum: Option<u32>,
    pub attnum: Option<u16>,
    pub allnulls: Option<bool>,
    pub hasnulls: Option<bool>,
    pub placeholder: Option<bool>,
    /// BRIN_EMPTY_RANGE_MASK (16+).
    pub empty: Option<bool>,
    /// `{v1 .. v2 ..}`: each stored value by its type's output function; null when allnulls
    /// (or not decoded).
    pub value: Option<String>,
    /// Why `value` is not decoded although the column has values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value_not_decoded: Option<String>,
}

/// brin_tuple.h: SizeOfBrinTuple and bt_info's bits.
pub(crate) const SIZE_OF_BRIN_TUPLE: usize = 5;

pub(crate) const BRIN_OFFSET_MASK: u8 = 0x1F;

pub(crate) const BRIN_EMPTY_RANGE_MASK: u8 = 0x20;

pub(crate) const BRIN_PLACEHOLDER_MASK: u8 = 0x40;

pub(crate) const BRIN_NULLS_MASK: u8 = 0x80;
