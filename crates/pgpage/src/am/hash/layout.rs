//! Hash indexes' on-disk layout (hash.h): page types, the page id and metapage magic, and the
//! rows hash_page_stats(), hash_metapage_info() and hash_page_items() show.

use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

pub(crate) const LH_OVERFLOW_PAGE: u16 = 1 << 0;

pub(crate) const LH_BUCKET_PAGE: u16 = 1 << 1;

pub(crate) const LH_BITMAP_PAGE: u16 = 1 << 2;

pub(crate) const LH_META_PAGE: u16 = 1 << 3;

pub(crate) const LH_PAGE_TYPE: u16 =
    LH_OVERFLOW_PAGE | LH_BUCKET_PAGE | LH_BITMAP_PAGE | LH_META_PAGE;

/// hash.h: HASH_MAGIC.
pub(crate) const HASH_MAGIC: u32 = 0x6440640;

/// One hash_page_items() row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HashItem {
    pub itemoffset: u16,
    pub ctid: String,
    /// The hash code stored as the tuple's only datum.
    pub data: u32,
}

/// hash_metapage_info()'s columns.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HashMeta {
    pub magic: u32,
    pub version: u32,
    pub ntuples: f64,
    pub ffactor: u16,
    pub bsize: u16,
    pub bmsize: u16,
    pub bmshift: u16,
    pub maxbucket: u32,
    pub highmask: u32,
    pub lowmask: u32,
    pub ovflpoint: u32,
    pub firstfree: u32,
    pub nmaps: u32,
    pub procid: String,
    pub spares: Vec<u32>,
    pub mapp: Vec<u32>,
}

/// HashPageOpaqueData as hash_page_stats() shows it, plus hash_page_type().
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HashSpecial {
    pub hash_page_type: &'static str,
    pub live_items: u32,
    pub dead_items: u32,
    pub page_size: u16,
    pub free_size: u32,
    pub hasho_prevblkno: u32,
    pub hasho_nextblkno: u32,
    pub hasho_bucket: u32,
    pub hasho_flag: u16,
    pub hasho_page_id: u16,
    pub flags: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta: Option<HashMeta>,
}

/// hash.h/gist.h/spgist_private.h/brin_page.h: the page ids the access methods keep in the
/// last two bytes of their special space.
pub(crate) const HASHO_PAGE_ID: u16 = 0xFF80;
