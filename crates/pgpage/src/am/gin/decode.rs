//! GIN pages: GinPageOpaqueData as gin_page_opaque_info() shows it, the metapage as
//! gin_metapage_info() shows it, compressed posting-list segments of data leaf pages as
//! gin_leafpage_items() shows them, and line pointers of entry and pending-list pages.

use alloc::vec::Vec;

use crate::am::decoded::{Items, Special};
use crate::am::gin::layout::{
    decode_segment, GinLeafItem, GinMeta, GinSpecial, GIN_COMPRESSED, GIN_DATA, GIN_DATA_START,
    GIN_DELETED, GIN_LEAF, GIN_LIST, GIN_META,
};
use crate::am::nbtree::check::KeyColumn;
use crate::findings::Finding;
use crate::page::bufpage::{
    free_space, line_pointers, meta_spans, special_opaque, PageHeader, SIZE_OF_PAGE_HEADER_DATA,
};
use crate::page::fields::{
    gin_meta_page_data, gin_page_opaque_data, gin_posting_list, Field, GIN_DATA_PAGE,
    GIN_META_PAGE_DATA, GIN_PAGE_OPAQUE_DATA,
};
use crate::page::itup::index_tuple_spans;
use crate::page::reader::{pageinspect_flags, Reader, Tid};
use crate::page::spans::Spans;

fn leaf_items(r: &Reader, header: &PageHeader, spans: &mut Spans) -> Vec<GinLeafItem> {
    let end = usize::from(header.lower).min(r.len());
    let mut at = GIN_DATA_START;
    let mut rows = Vec::new();
    let mut n = 0u16;
    while at < end {
        let (Some(first), Some(nbytes)) = (
            r.tid(crate::page::bufpage::at(at, &gin_posting_list::FIRST)),
            r.field(at, &gin_posting_list::NBYTES).map(|v| v as u16),
        ) else {
            break;
        };
        n = n.saturating_add(1);
        spans.table(at, &crate::page::fields::GIN_POSTING_LIST, Some(n));
        let data_at = crate::page::bufpage::at(at, &gin_posting_list::BYTES);
        let len = usize::from(nbytes);
        let problem = (data_at.saturating_add(len) > end).then_some(Finding::GinSegmentPastLower);
        spans.push(data_at, len, &gin_posting_list::BYTES, Some(n), problem);
        let (bytes, _) = r.bytes(data_at, len.min(end.saturating_sub(data_at)));
        rows.push(GinLeafItem {
            first_tid: first.text(),
            nbytes,
            tids: decode_segment(first, bytes)
                .into_iter()
                .map(Tid::text)
                .collect(),
        });
        // GinNextPostingListSegment: SHORTALIGN(offsetof(bytes) + nbytes).
        at = data_at.saturating_add(len).saturating_add(1) & !1;
    }
    rows
}

/// `keys`: the key type of a one-column index (its opclass's storage type: int4 for
/// jsonb_path_ops, pg_trgm and int4[]'s array_ops, text for jsonb_ops and text[]), for the
/// entry order check.
pub(crate) fn decode(
    r: &Reader,
    header: &PageHeader,
    keys: Option<&[KeyColumn]>,
    spans: &mut Spans,
) -> (Items, Option<Special>) {
    let at = special_opaque(r, header, spans, &GIN_PAGE_OPAQUE_DATA);
    let g = |f: &Field| r.get(at, f);
    let flags = g(&gin_page_opaque_data::FLAGS) as u16;
    let maxoff = g(&gin_page_opaque_data::MAXOFF) as u16;
    let mut special = GinSpecial {
        rightlink: g(&gin_page_opaque_data::RIGHTLINK),
        maxoff,
        flags: pageinspect_flags(
            flags,
            &[
                (1, "data"),
                (1 << 1, "leaf"),
                (1 << 2, "deleted"),
                (1 << 3, "meta"),
                (1 << 4, "list"),
                (1 << 5, "list_fullrow"),
                (1 << 6, "incomplete_split"),
                (1 << 7, "compressed"),
            ],
        ),
        meta: None,
    };
    let mut items = Items::Lines(Vec::new());
    if flags & GIN_META != 0 {
        meta_spans(&GIN_META_PAGE_DATA, spans);
        let base = SIZE_OF_PAGE_HEADER_DATA;
        let m = |f: &Field| r.get(base, f);
        special.meta = Some(GinMeta {
            pending_head: m(&gin_meta_page_data::HEAD),
            pending_tail: m(&gin_meta_page_data::TAIL),
            tail_free_size: m(&gin_meta_page_data::TAIL_FREE_SIZE),
            n_pending_pages: m(&gin_meta_page_data::N_PENDING_PAGES),
            n_pending_tuples: r
                .i64(crate::page::bufpage::at(
                    base,
                    &gin_meta_page_data::N_PENDING_HEAP_TUPLES,
                ))
                .unwrap_or(0),
            n_total_pages: m(&gin_meta_page_data::N_TOTAL_PAGES),
            n_entry_pages: m(&gin_meta_page_data::N_ENTRY_PAGES),
            n_data_pages: m(&gin_meta_page_data::N_DATA_PAGES),
            n_entries: r
                .i64(crate::page::bufpage::at(
                    base,
                    &gin_meta_page_data::N_ENTRIES,
                ))
                .unwrap_or(0),
            version: m(&gin_meta_page_data::GIN_VERSION) as i32,
        });
    } else if flags & GIN_DATA != 0 {
        spans.table(SIZE_OF_PAGE_HEADER_DATA, &GIN_DATA_PAGE, None);
        if flags & (GIN_LEAF | GIN_COMPRESSED) == GIN_LEAF | GIN_COMPRESSED {
            items = Items::GinLeaf(leaf_items(r, header, spans));
        } else if flags & GIN_LEAF == 0 {
            // ginblock.h: PostingItem {child_blkno, key}, maxoff of them.
            for i in 0..maxoff {
                let off = GIN_DATA_START.saturating_add(usize::from(i).saturating_mul(10));
                spans.table(
                    off,
                    &crate::page::fields::POSTING_ITEM,
                    Some(i.saturating_add(1)),
                );
            }
            if flags & GIN_DELETED == 0 {
                crate::am::gin::check::check_posting_internal(
                    r,
                    header,
                    maxoff,
                    special.rightlink,
                    spans,
                );
            }
        }
    } else {
        let lps = line_pointers(r, header, spans);
        index_tuple_spans(r, &lps, spans);
        if flags & GIN_LIST == 0 {
            crate::am::gin::check::check_entry_page(
                r,
                flags & GIN_LEAF != 0,
                flags & GIN_DELETED != 0,
                special.rightlink,
                &lps,
                keys,
                spans,
            );
        }
        items = Items::Lines(lps.iter().map(crate::page::bufpage::ItemId::row).collect());
    }
    free_space(header, spans);
    (items, Some(Special::Gin(special)))
}
