//! BRIN pages: BrinSpecialSpace as brin_page_type() names it, the metapage as
//! brin_metapage_info() shows it, revmap pages as brin_revmap_data() lists them, and the
//! line pointers of regular pages (brin_page_items() needs the index's descriptor).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

use super::{
    free_space, line_pointers, meta_spans, special_opaque, Items, PageHeader, Reader, Spans,
    Special, LP_UNUSED, SIZE_OF_PAGE_HEADER_DATA,
};
use crate::fields::{
    brin_meta_page_data, brin_special_space, brin_tuple, revmap_contents, Field,
    BRIN_META_PAGE_DATA, BRIN_SPECIAL_SPACE, BRIN_TUPLE,
};
use crate::findings::Finding;

pub(crate) const BRIN_PAGETYPE_META: u16 = 0xF091;
const BRIN_PAGETYPE_REVMAP: u16 = 0xF092;
const BRIN_PAGETYPE_REGULAR: u16 = 0xF093;
const BRIN_META_MAGIC: u32 = 0xA810_9CFA;

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

pub(super) fn decode(
    r: &Reader,
    header: &PageHeader,
    spans: &mut Spans,
) -> (Items, Option<Special>) {
    special_opaque(r, header, spans, &BRIN_SPECIAL_SPACE);
    // brin_page.h: BrinPageType/BrinPageFlags index the vector from the page's end.
    let end = r.len();
    let vector = end.saturating_sub(usize::from(BRIN_SPECIAL_SPACE.size));
    let page_type = r.get(vector, &brin_special_space::TYPE) as u16;
    let flags = r.get(vector, &brin_special_space::FLAGS) as u16;
    let name = match page_type {
        BRIN_PAGETYPE_META => String::from("meta"),
        BRIN_PAGETYPE_REVMAP => String::from("revmap"),
        BRIN_PAGETYPE_REGULAR => String::from("regular"),
        other => format!("unknown ({other:02x})"),
    };
    let mut special = BrinSpecial {
        brin_page_type: name,
        flags,
        page_type,
        meta: None,
    };
    let items = match page_type {
        BRIN_PAGETYPE_META => {
            meta_spans(&BRIN_META_PAGE_DATA, spans);
            let g = |f: &Field| r.get(SIZE_OF_PAGE_HEADER_DATA, f);
            let magic = g(&brin_meta_page_data::BRIN_MAGIC);
            if magic != BRIN_META_MAGIC {
                spans.flag(&brin_meta_page_data::BRIN_MAGIC, Finding::MetaMagicWrong);
            }
            special.meta = Some(BrinMeta {
                magic: format!("0x{magic:08X}"),
                version: g(&brin_meta_page_data::BRIN_VERSION),
                pagesperrange: g(&brin_meta_page_data::PAGES_PER_RANGE),
                lastrevmappage: g(&brin_meta_page_data::LAST_REVMAP_PAGE),
            });
            free_space(header, spans);
            Items::Revmap(Vec::new())
        }
        BRIN_PAGETYPE_REVMAP => {
            // brin_revmap.c: REVMAP_PAGE_MAXITEMS TIDs fill the page up to the special space.
            let n = end
                .saturating_sub(SIZE_OF_PAGE_HEADER_DATA)
                .saturating_sub(8)
                / 6;
            let mut rows = Vec::with_capacity(n);
            for i in 0..n {
                let off = SIZE_OF_PAGE_HEADER_DATA.saturating_add(i.saturating_mul(6));
                let Some(tid) = r.tid(off) else { break };
                if tid.block != 0 || tid.offset != 0 {
                    spans.push(off, 6, &revmap_contents::RM_TIDS, None, None);
                }
                rows.push(RevmapItem { pages: tid.text() });
            }
            Items::Revmap(rows)
        }
        _ => {
            if page_type != BRIN_PAGETYPE_REGULAR {
                spans.flag(&brin_special_space::TYPE, Finding::BrinPageTypeUnexpected);
            }
            let lps = line_pointers(r, header, spans);
            for id in &lps {
                if id.flags == LP_UNUSED || !id.storage_ok(r.len()) {
                    continue;
                }
                let off = usize::from(id.off);
                let head = usize::from(BRIN_TUPLE.size);
                spans.table(off, &BRIN_TUPLE, Some(id.lp));
                spans.push(
                    off.saturating_add(head),
                    usize::from(id.len).saturating_sub(head),
                    &brin_tuple::T_DATA,
                    Some(id.lp),
                    None,
                );
            }
            free_space(header, spans);
            Items::Lines(lps.iter().map(super::ItemId::row).collect())
        }
    };
    (items, Some(Special::Brin(special)))
}
