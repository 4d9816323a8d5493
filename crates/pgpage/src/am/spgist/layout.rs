//! SP-GiST's on-disk layout (spgist_private.h): the page id, flag bits, metapage magic and the
//! metapage's cache of last-used pages.

use alloc::vec::Vec;

use serde::Serialize;

pub(crate) const SPGIST_META: u16 = 1 << 0;

/// spgist_private.h: SPGIST_MAGIC_NUMBER.
pub(crate) const SPGIST_MAGIC_NUMBER: u32 = 0xBA0B_ABEE;

/// spgist_private.h: SpGistLastUsedPage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SpGistLastUsedPage {
    pub blkno: u32,
    #[serde(rename = "freeSpace")]
    pub free_space: i32,
}

/// spgist_private.h: SpGistMetaPageData.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SpGistMeta {
    #[serde(rename = "magicNumber")]
    pub magic_number: u32,
    #[serde(rename = "lastUsedPages")]
    pub last_used_pages: Vec<SpGistLastUsedPage>,
}

/// spgist_private.h: SpGistPageOpaqueData, with PostgreSQL's member names.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SpGistSpecial {
    pub flags: u16,
    #[serde(rename = "nRedirection")]
    pub n_redirection: u16,
    #[serde(rename = "nPlaceholder")]
    pub n_placeholder: u16,
    pub spgist_page_id: u16,
    pub flag_names: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta: Option<SpGistMeta>,
}

pub(crate) const SPGIST_PAGE_ID: u16 = 0xFF82;
