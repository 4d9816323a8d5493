//! GiST pages: GISTPageOpaqueData as gist_page_opaque_info() shows it and items as
//! gist_page_items_bytea() shows them.

use alloc::string::String;
use alloc::vec::Vec;

use crate::am::decoded::{Items, Special};
use crate::am::gist::layout::{GistItem, GistSpecial, F_DELETED};
use crate::page::bufpage::{free_space, line_pointers, special_opaque, PageHeader};
use crate::page::fields::LP_DEAD;
use crate::page::fields::{
    gist_page_opaque_data, Field, GIST_DELETED_PAGE_CONTENTS, GIST_PAGE_OPAQUE_DATA,
};
use crate::page::itup::IndexTuple;
use crate::page::reader::{bytea, pageinspect_flags, Reader};
use crate::page::spans::Spans;

pub(crate) fn decode(
    r: &Reader,
    header: &PageHeader,
    spans: &mut Spans,
) -> (Items, Option<Special>) {
    let at = special_opaque(r, header, spans, &GIST_PAGE_OPAQUE_DATA);
    let g = |f: &Field| r.get(at, f);
    let flags = g(&gist_page_opaque_data::FLAGS) as u16;
    let special = GistSpecial {
        lsn: header.lsn.clone(),
        nsn: r.lsn(at).unwrap_or_else(|| String::from("0/0")),
        rightlink: g(&gist_page_opaque_data::RIGHTLINK),
        flags: pageinspect_flags(
            flags,
            &[
                (1, "leaf"),
                (1 << 1, "deleted"),
                (1 << 2, "tuples_deleted"),
                (1 << 3, "follow_right"),
                (1 << 4, "has_garbage"),
            ],
        ),
        gist_page_id: g(&gist_page_opaque_data::GIST_PAGE_ID) as u16,
    };
    let mut rows = Vec::new();
    if flags & F_DELETED != 0 {
        // gist.h: a deleted page keeps its deleteXid (FullTransactionId) at PageGetContents.
        spans.table(
            crate::page::bufpage::SIZE_OF_PAGE_HEADER_DATA,
            &GIST_DELETED_PAGE_CONTENTS,
            None,
        );
    } else {
        let mut budget = crate::page::bufpage::ItemBudget::new(r.len());
        for id in line_pointers(r, header, spans) {
            let off = usize::from(id.off);
            let Some(t) = IndexTuple::read(r, off) else {
                continue;
            };
            let size = t.size();
            if !budget.allows(id.lp, spans) {
                break;
            }
            budget.spend(size);
            t.spans(off, usize::from(id.len), id.lp, spans);
            let (bytes, _) = r.bytes(off, size);
            rows.push(GistItem {
                itemoffset: id.lp,
                ctid: t.tid.text(),
                itemlen: size as u16,
                dead: id.flags == LP_DEAD,
                key_data: bytea(bytes),
            });
        }
    }
    free_space(header, spans);
    (Items::Gist(rows), Some(Special::Gist(special)))
}
