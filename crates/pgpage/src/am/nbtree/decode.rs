//! B-tree pages: BTPageOpaqueData with bt_page_stats' counts, the metapage as bt_metap()
//! shows it, and items as bt_page_items() shows them (posting lists, pivot tuples, htid).

use alloc::string::String;
use alloc::vec::Vec;

use crate::am::decoded::{Items, Special};
use crate::am::nbtree::layout::{
    BtreeItem, BtreeMeta, BtreeSpecial, BTP_HALF_DEAD, BTP_HAS_FULLXID, BTP_LEAF, BTP_ROOT,
    BTREE_MAGIC, BTREE_NOVAC_VERSION, BT_IS_POSTING, BT_OFFSET_MASK, BT_PIVOT_HEAP_TID_ATTR,
    INDEX_ALT_TID_MASK,
};
use crate::findings::Finding;
use crate::page::bufpage::{
    free_space, line_pointers, meta_spans, page_get_free_space, special_opaque, ItemBudget,
    PageHeader, SIZE_OF_PAGE_HEADER_DATA,
};
use crate::page::fields::{
    bt_meta_page_data, bt_page_opaque_data, btree_tuple, flag_names, index_tuple_data, Field,
    BTPO_FLAGS, BT_META_PAGE_DATA, BT_PAGE_OPAQUE_DATA,
};
use crate::page::fields::{BTP_DELETED, BTP_META};
use crate::page::fields::{LP_DEAD, LP_UNUSED};
use crate::page::itup::IndexTuple;
use crate::page::reader::{hex, Reader, Tid};
use crate::page::spans::Spans;

fn meta(r: &Reader, spans: &mut Spans) -> BtreeMeta {
    meta_spans(&BT_META_PAGE_DATA, spans);
    let base = SIZE_OF_PAGE_HEADER_DATA;
    let g = |f: &Field| r.get(base, f);
    let magic = g(&bt_meta_page_data::BTM_MAGIC);
    if magic != BTREE_MAGIC {
        spans.flag(&bt_meta_page_data::BTM_MAGIC, Finding::MetaMagicWrong);
    }
    let version = g(&bt_meta_page_data::BTM_VERSION);
    // bt_metap shows defaults for the fields older versions did not have.
    let (delpages, tuples, allequal) = if version >= BTREE_NOVAC_VERSION {
        (
            g(&bt_meta_page_data::BTM_LAST_CLEANUP_NUM_DELPAGES),
            r.f64(base.saturating_add(usize::from(
                bt_meta_page_data::BTM_LAST_CLEANUP_NUM_HEAP_TUPLES.offset,
            )))
            .unwrap_or(0.0),
            g(&bt_meta_page_data::BTM_ALLEQUALIMAGE) != 0,
        )
    } else {
        (0, -1.0, false)
    };
    BtreeMeta {
        magic,
        version,
        root: g(&bt_meta_page_data::BTM_ROOT),
        level: g(&bt_meta_page_data::BTM_LEVEL),
        fastroot: g(&bt_meta_page_data::BTM_FASTROOT),
        fastlevel: g(&bt_meta_page_data::BTM_FASTLEVEL),
        last_cleanup_num_delpages: Some(delpages),
        oldest_xact: None,
        last_cleanup_num_tuples: tuples,
        allequalimage: allequal,
    }
}

/// bt_page_print_tuples for one line pointer; the bytes it prints are spent from `budget`.
fn item(
    r: &Reader,
    id: &crate::page::bufpage::ItemId,
    leaf: bool,
    rightmost: bool,
    spans: &mut Spans,
    budget: &mut ItemBudget,
) -> BtreeItem {
    let off = usize::from(id.off);
    let tup = IndexTuple::read(r, off);
    let (tid, info) = tup.map_or(
        (
            Tid {
                block: 0,
                offset: 0,
            },
            0,
        ),
        |t| (t.tid, t.info),
    );
    let t = IndexTuple { tid, info };
    let size = t.size();
    let alt = info & INDEX_ALT_TID_MASK != 0;
    let is_posting = alt && tid.offset & BT_IS_POSTING != 0;
    let is_pivot = alt && tid.offset & BT_IS_POSTING == 0;
    let posting_off = tid.block as usize;
    let mut dlen = (size as isize).saturating_sub(t.data_offset() as isize);
    if is_posting {
        dlen = dlen.saturating_sub((size as isize).saturating_sub(posting_off as isize));
    } else if is_pivot && tid.offset & BT_PIVOT_HEAP_TID_ATTR != 0 {
        dlen = dlen.saturating_sub(8);
    }
    let data_at = off.saturating_add(t.data_offset());
    let data = if !(0..=0x1FFF).contains(&dlen) {
        spans.push(
            off,
            size,
            &index_tuple_data::TUPLE,
            Some(id.lp),
            Some(Finding::IndexTupleSizeWrong),
        );
        String::new()
    } else {
        let (bytes, complete) = r.bytes(data_at, dlen as usize);
        budget.spend(bytes.len());
        if !complete {
            spans.push(
                off,
                size,
                &index_tuple_data::TUPLE,
                Some(id.lp),
                Some(Finding::ItemPastPage),
            );
        }
        if spans.full() {
            hex(bytes, " ")
        } else {
            String::new()
        }
    };
    if tup.is_some() && dlen >= 0 {
        spans.table(off, &crate::page::fields::INDEX_TUPLE_DATA, Some(id.lp));
        if t.has_nulls() {
            spans.push(
                crate::page::bufpage::at(off, &index_tuple_data::T_BITS),
                4,
                &index_tuple_data::T_BITS,
                Some(id.lp),
                None,
            );
        }
        spans.push(
            data_at,
            dlen as usize,
            &index_tuple_data::T_DATA,
            Some(id.lp),
            None,
        );
    }
    let ispivottuple = !leaf || (!rightmost && id.lp == 1);
    let mut htid = if is_pivot {
        if tid.offset & BT_PIVOT_HEAP_TID_ATTR != 0 {
            let at = off.saturating_add(size).saturating_sub(6);
            spans.push(at, 6, &btree_tuple::HTID, Some(id.lp), None);
            r.tid(at)
        } else {
            None
        }
    } else if is_posting {
        r.tid(off.saturating_add(posting_off))
    } else {
        Some(tid)
    };
    if ispivottuple && !is_pivot {
        htid = None;
    }
    let tids = is_posting.then(|| {
        let n = usize::from(tid.offset & BT_OFFSET_MASK);
        let at = off.saturating_add(posting_off);
        spans.push(
            at,
            n.saturating_mul(6),
            &btree_tuple::TIDS,
            Some(id.lp),
            None,
        );
        // The list stops at the page's end: garbage can claim 4,095 tids there, item after item.
        let full = spans.full();
        let tids: Vec<String> = (0..n)
            .map_while(|i| r.tid(at.saturating_add(i.saturating_mul(6))))
            .filter(|_| full)
            .map(Tid::text)
            .collect();
        // What the list would print, were it printed.
        let shown = (0..n)
            .take_while(|&i| at.saturating_add(i.saturating_mul(6)).saturating_add(6) <= r.len())
            .count();
        budget.spend(shown.saturating_mul(6));
        tids
    });
    let text = |t: Tid| {
        if spans.full() {
            t.text()
        } else {
            String::new()
        }
    };
    BtreeItem {
        itemoffset: id.lp,
        ctid: text(tid),
        itemlen: size as u16,
        nulls: t.has_nulls(),
        vars: t.has_varwidths(),
        data,
        dead: (!ispivottuple).then_some(id.flags == LP_DEAD),
        htid: htid.map(text),
        tids,
    }
}

/// `keys`: the index's key types when the caller knows them, for the item order checks.
pub(crate) fn decode(
    r: &Reader,
    header: &PageHeader,
    keys: Option<&[crate::am::nbtree::check::KeyColumn]>,
    spans: &mut Spans,
) -> (Items, Option<Special>) {
    let at = special_opaque(r, header, spans, &BT_PAGE_OPAQUE_DATA);
    let g = |f: &Field| r.get(at, f);
    let flags = g(&bt_page_opaque_data::BTPO_FLAGS) as u16;
    let mut special = BtreeSpecial {
        btpo_prev: g(&bt_page_opaque_data::BTPO_PREV),
        btpo_next: g(&bt_page_opaque_data::BTPO_NEXT),
        btpo_level: Some(g(&bt_page_opaque_data::BTPO_LEVEL)),
        btpo: None,
        btpo_flags: flags,
        btpo_cycleid: g(&bt_page_opaque_data::BTPO_CYCLEID) as u16,
        flags: flag_names(u32::from(flags), BTPO_FLAGS).collect(),
        page_type: String::new(),
        live_items: 0,
        dead_items: 0,
        avg_item_size: 0,
        page_size: header.pagesize,
        free_size: page_get_free_space(header),
        meta: None,
    };
    // GetBTPageStatistics' page type letter.
    let deleted = flags & BTP_DELETED != 0;
    let leaf = flags & BTP_LEAF != 0;
    special.page_type = String::from(if deleted {
        if leaf || flags & BTP_HAS_FULLXID == 0 {
            "d"
        } else {
            "D"
        }
    } else if flags & (BTP_DELETED | BTP_HALF_DEAD) != 0 {
        "e"
    } else if leaf {
        "l"
    } else if flags & BTP_ROOT != 0 {
        "r"
    } else {
        "i"
    });
    if flags & BTP_META != 0 {
        special.meta = Some(meta(r, spans));
        free_space(header, spans);
        return (Items::Btree(Vec::new()), Some(Special::Btree(special)));
    }
    let maxoff = usize::from(header.lower).saturating_sub(SIZE_OF_PAGE_HEADER_DATA)
        / crate::page::bufpage::SIZE_OF_ITEM_ID;
    let rightmost = special.btpo_next == 0;
    crate::am::nbtree::check::check_shape(
        flags,
        special.btpo_level.unwrap_or(0),
        rightmost,
        maxoff,
        r.len(),
        spans,
    );
    if deleted {
        // BTDeletedPageData: safexid, and no index tuples to interpret.
        if flags & BTP_HAS_FULLXID != 0 {
            spans.table(
                SIZE_OF_PAGE_HEADER_DATA,
                &crate::page::fields::BT_DELETED_PAGE_DATA,
                None,
            );
        }
        free_space(header, spans);
        return (Items::Btree(Vec::new()), Some(Special::Btree(special)));
    }
    let lps = line_pointers(r, header, spans);
    free_space(header, spans);
    let mut item_size = 0u64;
    let mut rows = Vec::with_capacity(lps.len());
    let mut budget = ItemBudget::new(r.len());
    for id in &lps {
        if !budget.allows(id.lp, spans) {
            break;
        }
        let row = item(r, id, leaf, rightmost, spans, &mut budget);
        item_size = item_size.saturating_add(u64::from(row.itemlen));
        if id.flags == LP_DEAD {
            special.dead_items = special.dead_items.saturating_add(1);
        } else {
            special.live_items = special.live_items.saturating_add(1);
        }
        rows.push(row);
    }
    let decoded = rows.len();
    // amcheck skips half-dead pages (P_IGNORE); garbage past the item budget says nothing.
    if flags & BTP_HALF_DEAD == 0 && decoded == lps.len() {
        crate::am::nbtree::check::check_items(r, &lps, leaf, rightmost, keys, spans);
    }
    spans.flag_line_pointers(Finding::BtreeLpInvalid, |lp| {
        usize::from(lp) <= decoded
            && lps
                .get(usize::from(lp.saturating_sub(1)))
                .is_some_and(|id| id.flags == LP_UNUSED)
    });
    let n = u64::from(special.live_items.saturating_add(special.dead_items));
    special.avg_item_size = item_size.checked_div(n).map_or(0, |v| v as u32);
    (Items::Btree(rows), Some(Special::Btree(special)))
}
