//! GiST's on-disk layout (gist.h): the page id, the flag bits, and the rows
//! gist_page_opaque_info() and gist_page_items_bytea() show.

use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

pub(crate) const F_DELETED: u16 = 1 << 1;

/// One gist_page_items_bytea() row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GistItem {
    pub itemoffset: u16,
    pub ctid: String,
    pub itemlen: u16,
    pub dead: bool,
    pub key_data: String,
}

/// gist_page_opaque_info()'s columns, plus gist_page_id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GistSpecial {
    pub lsn: String,
    pub nsn: String,
    pub rightlink: u32,
    pub flags: Vec<String>,
    pub gist_page_id: u16,
}

pub(crate) const GIST_PAGE_ID: u16 = 0xFF81;
