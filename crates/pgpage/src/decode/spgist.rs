//! SP-GiST pages: SpGistPageOpaqueData, the metapage (SpGistMetaPageData with its cache of
//! last-used pages) and line pointers (pageinspect has no SP-GiST functions).

use alloc::vec::Vec;

use serde::Serialize;

use super::{
    free_space, get, line_pointers, meta_spans, special_opaque, Items, PageHeader, Reader, Spans,
    Special, SIZE_OF_PAGE_HEADER_DATA,
};
use crate::fields::{
    flag_names, Role, SPGIST_DEAD_TUPLE_DATA, SPGIST_FLAGS, SPGIST_INNER_TUPLE_DATA,
    SPGIST_LEAF_TUPLE_DATA, SPGIST_META_PAGE_DATA, SPGIST_PAGE_OPAQUE_DATA,
};

const SPGIST_META: u16 = 1 << 0;
const SPGIST_LEAF: u16 = 1 << 2;
/// spgist_private.h: SPGIST_MAGIC_NUMBER.
const SPGIST_MAGIC_NUMBER: u32 = 0xBA0B_ABEE;

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

pub(super) fn decode(
    r: &Reader,
    header: &PageHeader,
    spans: &mut Spans,
) -> (Items, Option<Special>) {
    let at = special_opaque(
        r,
        header,
        spans,
        &SPGIST_PAGE_OPAQUE_DATA,
        "special space is not sizeof(SpGistPageOpaqueData)",
    );
    let g = |name| get(r, at, &SPGIST_PAGE_OPAQUE_DATA, name);
    let flags = g("flags") as u16;
    let mut special = SpGistSpecial {
        flags,
        n_redirection: g("nRedirection") as u16,
        n_placeholder: g("nPlaceholder") as u16,
        spgist_page_id: g("spgist_page_id") as u16,
        flag_names: flag_names(u32::from(flags), SPGIST_FLAGS).collect(),
        meta: None,
    };
    let mut rows = Vec::new();
    if flags & SPGIST_META != 0 {
        meta_spans(&SPGIST_META_PAGE_DATA, spans);
        let base = SIZE_OF_PAGE_HEADER_DATA;
        let magic = get(r, base, &SPGIST_META_PAGE_DATA, "magicNumber");
        if magic != SPGIST_MAGIC_NUMBER {
            spans.flag("magicNumber", "not SPGIST_MAGIC_NUMBER (0xBA0BABEE)");
        }
        let pages = (0..8usize)
            .map(|i| {
                let e = base.saturating_add(4).saturating_add(i.saturating_mul(8));
                SpGistLastUsedPage {
                    blkno: r.u32(e).unwrap_or(0),
                    free_space: r.i32(e.saturating_add(4)).unwrap_or(0),
                }
            })
            .collect();
        special.meta = Some(SpGistMeta {
            magic_number: magic,
            last_used_pages: pages,
        });
    } else {
        let lps = line_pointers(r, header, spans);
        let leaf = flags & SPGIST_LEAF != 0;
        for id in &lps {
            if id.len == 0 || !id.storage_ok(r.len()) {
                continue;
            }
            let off = usize::from(id.off);
            let state = get(r, off, &SPGIST_LEAF_TUPLE_DATA, "tupstate");
            let table = match (state, leaf) {
                (0, true) => &SPGIST_LEAF_TUPLE_DATA,
                (0, false) => &SPGIST_INNER_TUPLE_DATA,
                _ => &SPGIST_DEAD_TUPLE_DATA,
            };
            let head = usize::from(table.size).min(usize::from(id.len));
            spans.table(off, table, Some(id.lp));
            spans.push(
                off.saturating_add(head),
                usize::from(id.len).saturating_sub(head),
                "t_data",
                Role::TupleData,
                Some(id.lp),
                None,
            );
        }
        rows = lps.iter().map(super::ItemId::row).collect();
    }
    free_space(header, spans);
    (Items::Lines(rows), Some(Special::Spgist(special)))
}
