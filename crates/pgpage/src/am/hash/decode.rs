//! Hash index pages: HashPageOpaqueData with hash_page_stats()' counts and hash_page_type(),
//! the metapage as hash_metapage_info() shows it, and hash_page_items() rows.

use alloc::format;
use alloc::vec::Vec;

use crate::am::decoded::{Items, Special};
use crate::am::hash::layout::{
    HashItem, HashMeta, HashSpecial, HASH_MAGIC, LH_BITMAP_PAGE, LH_BUCKET_PAGE, LH_META_PAGE,
    LH_OVERFLOW_PAGE, LH_PAGE_TYPE,
};
use crate::findings::Finding;
use crate::page::bufpage::{
    free_space, line_pointers, meta_spans, page_get_free_space, special_opaque, PageHeader,
    SIZE_OF_PAGE_HEADER_DATA,
};
use crate::page::fields::LP_DEAD;
use crate::page::fields::{
    flag_names, hash_bitmap_page, hash_meta_page_data, hash_page_opaque_data, Field, HASHO_FLAG,
    HASH_MAX_SPLITPOINTS, HASH_META_PAGE_DATA, HASH_PAGE_OPAQUE_DATA,
};
use crate::page::itup::IndexTuple;
use crate::page::reader::Reader;
use crate::page::spans::Spans;

fn meta(r: &Reader, spans: &mut Spans) -> HashMeta {
    meta_spans(&HASH_META_PAGE_DATA, spans);
    let base = SIZE_OF_PAGE_HEADER_DATA;
    let g = |f: &Field| r.get(base, f);
    let magic = g(&hash_meta_page_data::HASHM_MAGIC);
    if magic != HASH_MAGIC {
        spans.flag(&hash_meta_page_data::HASHM_MAGIC, Finding::MetaMagicWrong);
    }
    let spares_at = crate::page::bufpage::at(base, &hash_meta_page_data::HASHM_SPARES);
    let spares = (0..usize::from(HASH_MAX_SPLITPOINTS))
        .map(|i| {
            r.u32(spares_at.saturating_add(i.saturating_mul(4)))
                .unwrap_or(0)
        })
        .collect();
    // hash.h: HASH_MAX_BITMAPS = Min(BLCKSZ / 8, 1024).
    let max_bitmaps = (r.len() / 8).min(1024);
    let mapp_at = crate::page::bufpage::at(base, &hash_meta_page_data::HASHM_MAPP);
    spans.push(
        mapp_at,
        max_bitmaps.saturating_mul(4),
        &hash_meta_page_data::HASHM_MAPP,
        None,
        None,
    );
    let mapp = (0..max_bitmaps)
        .map(|i| {
            r.u32(mapp_at.saturating_add(i.saturating_mul(4)))
                .unwrap_or(0)
        })
        .collect();
    HashMeta {
        magic,
        version: g(&hash_meta_page_data::HASHM_VERSION),
        ntuples: r
            .f64(crate::page::bufpage::at(
                base,
                &hash_meta_page_data::HASHM_NTUPLES,
            ))
            .unwrap_or(0.0),
        ffactor: g(&hash_meta_page_data::HASHM_FFACTOR) as u16,
        bsize: g(&hash_meta_page_data::HASHM_BSIZE) as u16,
        bmsize: g(&hash_meta_page_data::HASHM_BMSIZE) as u16,
        bmshift: g(&hash_meta_page_data::HASHM_BMSHIFT) as u16,
        maxbucket: g(&hash_meta_page_data::HASHM_MAXBUCKET),
        highmask: g(&hash_meta_page_data::HASHM_HIGHMASK),
        lowmask: g(&hash_meta_page_data::HASHM_LOWMASK),
        ovflpoint: g(&hash_meta_page_data::HASHM_OVFLPOINT),
        firstfree: g(&hash_meta_page_data::HASHM_FIRSTFREE),
        nmaps: g(&hash_meta_page_data::HASHM_NMAPS),
        procid: format!("{}", g(&hash_meta_page_data::HASHM_PROCID)),
        spares,
        mapp,
    }
}

pub(crate) fn decode(
    r: &Reader,
    header: &PageHeader,
    spans: &mut Spans,
) -> (Items, Option<Special>) {
    let at = special_opaque(r, header, spans, &HASH_PAGE_OPAQUE_DATA);
    let g = |f: &Field| r.get(at, f);
    let flag = g(&hash_page_opaque_data::HASHO_FLAG) as u16;
    let page_type = match flag & LH_PAGE_TYPE {
        LH_OVERFLOW_PAGE => "overflow",
        LH_BUCKET_PAGE => "bucket",
        LH_BITMAP_PAGE => "bitmap",
        LH_META_PAGE => "metapage",
        _ => "unused",
    };
    let mut special = HashSpecial {
        hash_page_type: page_type,
        live_items: 0,
        dead_items: 0,
        page_size: header.pagesize,
        free_size: page_get_free_space(header),
        hasho_prevblkno: g(&hash_page_opaque_data::HASHO_PREVBLKNO),
        hasho_nextblkno: g(&hash_page_opaque_data::HASHO_NEXTBLKNO),
        hasho_bucket: g(&hash_page_opaque_data::HASHO_BUCKET),
        hasho_flag: flag,
        hasho_page_id: g(&hash_page_opaque_data::HASHO_PAGE_ID) as u16,
        flags: flag_names(u32::from(flag), HASHO_FLAG).collect(),
        meta: None,
    };
    let mut rows = Vec::new();
    match flag & LH_PAGE_TYPE {
        LH_META_PAGE => special.meta = Some(meta(r, spans)),
        LH_BITMAP_PAGE => {
            // HashPageGetBitmap: the bitmap's words fill the page's contents.
            let end = usize::from(header.lower).max(SIZE_OF_PAGE_HEADER_DATA);
            spans.push(
                SIZE_OF_PAGE_HEADER_DATA,
                end.saturating_sub(SIZE_OF_PAGE_HEADER_DATA),
                &hash_bitmap_page::BITMAP,
                None,
                None,
            );
        }
        _ => {
            for id in line_pointers(r, header, spans) {
                if id.flags == LP_DEAD {
                    special.dead_items = special.dead_items.saturating_add(1);
                } else {
                    special.live_items = special.live_items.saturating_add(1);
                }
                let off = usize::from(id.off);
                let Some(t) = IndexTuple::read(r, off) else {
                    continue;
                };
                t.spans(off, usize::from(id.len), id.lp, spans);
                rows.push(HashItem {
                    itemoffset: id.lp,
                    ctid: t.tid.text(),
                    data: r.u32(off.saturating_add(t.data_offset())).unwrap_or(0),
                });
            }
        }
    }
    free_space(header, spans);
    (Items::Hash(rows), Some(Special::Hash(special)))
}
