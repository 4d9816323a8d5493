//! SP-GiST pages: SpGistPageOpaqueData, the metapage (SpGistMetaPageData with its cache of
//! last-used pages) and line pointers (pageinspect has no SP-GiST functions).

use alloc::vec::Vec;

use crate::am::decoded::{Items, Special};
use crate::am::spgist::layout::{
    SpGistLastUsedPage, SpGistMeta, SpGistSpecial, SPGIST_MAGIC_NUMBER, SPGIST_META,
};
use crate::findings::Finding;
use crate::page::bufpage::{
    free_space, line_pointers, meta_spans, special_opaque, PageHeader, SIZE_OF_PAGE_HEADER_DATA,
};
use crate::page::fields::SPGIST_LEAF;
use crate::page::fields::{
    flag_names, spgist_dead_tuple_data, spgist_inner_tuple_data, spgist_leaf_tuple_data,
    spgist_meta_page_data, spgist_page_opaque_data, Field, SPGIST_DEAD_TUPLE_DATA, SPGIST_FLAGS,
    SPGIST_INNER_TUPLE_DATA, SPGIST_LEAF_TUPLE_DATA, SPGIST_META_PAGE_DATA,
    SPGIST_PAGE_OPAQUE_DATA,
};
use crate::page::reader::Reader;
use crate::page::spans::Spans;

pub(crate) fn decode(
    r: &Reader,
    header: &PageHeader,
    spans: &mut Spans,
) -> (Items, Option<Special>) {
    let at = special_opaque(r, header, spans, &SPGIST_PAGE_OPAQUE_DATA);
    let g = |f: &Field| r.get(at, f);
    let flags = g(&spgist_page_opaque_data::FLAGS) as u16;
    let mut special = SpGistSpecial {
        flags,
        n_redirection: g(&spgist_page_opaque_data::N_REDIRECTION) as u16,
        n_placeholder: g(&spgist_page_opaque_data::N_PLACEHOLDER) as u16,
        spgist_page_id: g(&spgist_page_opaque_data::SPGIST_PAGE_ID) as u16,
        flag_names: flag_names(u32::from(flags), SPGIST_FLAGS).collect(),
        meta: None,
    };
    let mut rows = Vec::new();
    if flags & SPGIST_META != 0 {
        meta_spans(&SPGIST_META_PAGE_DATA, spans);
        let base = SIZE_OF_PAGE_HEADER_DATA;
        let magic = r.get(base, &spgist_meta_page_data::MAGIC_NUMBER);
        if magic != SPGIST_MAGIC_NUMBER {
            spans.flag(
                &spgist_meta_page_data::MAGIC_NUMBER,
                Finding::SpgistMetaMagicWrong,
            );
        }
        let pages = (0..8usize)
            .map(|i| {
                let e = crate::page::bufpage::at(base, &spgist_meta_page_data::LAST_USED_PAGES)
                    .saturating_add(i.saturating_mul(8));
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
            let state = r.get(off, &spgist_leaf_tuple_data::TUPSTATE);
            let (table, data) = match (state, leaf) {
                (0, true) => (&SPGIST_LEAF_TUPLE_DATA, &spgist_leaf_tuple_data::T_DATA),
                (0, false) => (&SPGIST_INNER_TUPLE_DATA, &spgist_inner_tuple_data::T_DATA),
                _ => (&SPGIST_DEAD_TUPLE_DATA, &spgist_dead_tuple_data::T_DATA),
            };
            let head = usize::from(table.size).min(usize::from(id.len));
            spans.table(off, table, Some(id.lp));
            spans.push(
                off.saturating_add(head),
                usize::from(id.len).saturating_sub(head),
                data,
                Some(id.lp),
                None,
            );
        }
        rows = lps.iter().map(crate::page::bufpage::ItemId::row).collect();
    }
    free_space(header, spans);
    (Items::Lines(rows), Some(Special::Spgist(special)))
}
