//! Heap pages as heap_page_items() shows them (pageinspect/heapfuncs.c), including its
//! sanity rules for when tuple columns are shown, and sequence pages (one heap tuple of
//! FormData_pg_sequence_data plus sequence_magic in the special space).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::am::decoded::Items;
use crate::am::heap::layout::{HeapItem, HEAP_HASOID_OLD, MIN_HEAP_TUPLE_SIZE};
use crate::findings::Finding;
use crate::page::bufpage::{
    free_space, line_pointers, special_size, ItemBudget, ItemId, PageHeader,
};
use crate::page::fields::HEAP_HASNULL;
use crate::page::fields::{
    flag_names, heap_tuple_header_data as htup, page_header_data, HEAP_NATTS_MASK,
    HEAP_TUPLE_HEADER_DATA, T_INFOMASK, T_INFOMASK2, T_INFOMASK_COMBINED,
};
use crate::page::geometry::maxalign;
use crate::page::reader::{bytea, Reader};
use crate::page::spans::Spans;
use crate::tuple::SIZEOF_HEAP_TUPLE_HEADER;

/// heap_tuple_infomask_flags: every raw bit by name, t_infomask's then t_infomask2's.
pub fn raw_flags(infomask: u16, infomask2: u16) -> Vec<&'static str> {
    flag_names(u32::from(infomask), T_INFOMASK)
        .chain(flag_names(u32::from(infomask2), T_INFOMASK2))
        .collect()
}

/// heap_tuple_infomask_flags: the multi-bit combinations that are fully set.
pub fn combined_flags(infomask: u16) -> Vec<&'static str> {
    flag_names(u32::from(infomask), T_INFOMASK_COMBINED).collect()
}

/// One heap_page_items() row; the bytes it prints are spent from `budget`.
fn item(
    r: &Reader,
    id: &ItemId,
    columns: Option<(
        &[crate::tuple::columns::ColumnHint],
        &[crate::tuple::Attribute],
    )>,
    spans: &mut Spans,
    budget: &mut ItemBudget,
) -> HeapItem {
    let mut row = HeapItem {
        lp: id.lp,
        lp_off: id.off,
        lp_flags: id.flags,
        lp_len: id.len,
        t_xmin: None,
        t_xmax: None,
        t_field3: None,
        t_ctid: None,
        t_infomask2: None,
        t_infomask: None,
        t_hoff: None,
        t_bits: None,
        t_oid: None,
        t_data: None,
        raw_flags: None,
        combined_flags: None,
        values: None,
        toast: None,
    };
    let off = usize::from(id.off);
    let len = usize::from(id.len);
    // heapfuncs.c: ItemIdHasStorage, lp_len >= MinHeapTupleSize, lp_off MAXALIGNed, and the
    // item inside the page; otherwise every tuple column is NULL.
    let shown = id.len != 0
        && len >= MIN_HEAP_TUPLE_SIZE
        && off == maxalign(off)
        && off.saturating_add(len) <= r.len();
    if !shown {
        if id.len != 0
            && matches!(
                id.flags,
                crate::page::fields::LP_NORMAL | crate::page::fields::LP_DEAD
            )
        {
            // verify_heapam's words for what is wrong with a normal line pointer.
            let problem = (id.flags == crate::page::fields::LP_NORMAL)
                .then(|| crate::am::heap::check::lp_problem(id, r.len()))
                .flatten();
            // amcheck reports the first rule a line pointer breaks, and only that one.
            if let Some((f, values)) = problem {
                spans.reflag_item(&crate::page::fields::item_id_data::LP_OFF, id.lp, f);
                spans.value(Some(id.lp), f, values);
            }
            spans.push(
                off,
                len,
                &htup::TUPLE,
                Some(id.lp),
                Some(problem.map_or(Finding::HeapItemNotTuple, |p| p.0)),
            );
        }
        return row;
    }
    let t = &HEAP_TUPLE_HEADER_DATA;
    spans.table(off, t, Some(id.lp));
    let infomask2 = r.get(off, &htup::T_INFOMASK2) as u16;
    let infomask = r.get(off, &htup::T_INFOMASK) as u16;
    let hoff = r.get(off, &htup::T_HOFF) as u8;
    if spans.full() {
        row.t_xmin = Some(format!("{}", r.get(off, &htup::T_XMIN)));
        row.t_xmax = Some(format!("{}", r.get(off, &htup::T_XMAX)));
        row.t_field3 = Some(r.get(off, &htup::T_FIELD3) as i32);
        row.t_ctid = r
            .tid(off.saturating_add(usize::from(htup::T_CTID.offset)))
            .map(|t| t.text());
        row.t_infomask2 = Some(infomask2);
        row.t_infomask = Some(infomask);
        row.t_hoff = Some(hoff);
        row.raw_flags = Some(raw_flags(infomask, infomask2));
        row.combined_flags = Some(combined_flags(infomask));
    }
    let hoff_us = usize::from(hoff);
    let data_start = off.saturating_add(hoff_us);
    // heapfuncs.c (15.x) shows t_data, t_bits and t_oid only for a sane t_hoff.
    let hoff_sane =
        hoff_us >= SIZEOF_HEAP_TUPLE_HEADER && hoff_us <= len && hoff_us == maxalign(hoff_us);
    if !hoff_sane {
        // heapcheck flags t_hoff in verify_heapam's words.
        spans.push(
            off.saturating_add(SIZEOF_HEAP_TUPLE_HEADER),
            len.saturating_sub(SIZEOF_HEAP_TUPLE_HEADER),
            &htup::T_DATA,
            Some(id.lp),
            None,
        );
        return row;
    }
    let (data, _) = r.bytes(data_start, len.saturating_sub(hoff_us));
    budget.spend(data.len());
    if spans.full() {
        row.t_data = Some(bytea(data));
        if let Some((columns, attrs)) = columns {
            let (tuple, _) = r.bytes(off, len);
            if let Some((values, toasted)) =
                crate::tuple::columns::tuple_values(tuple, columns, attrs, r.e)
            {
                row.values = Some(values);
                row.toast = (!toasted.is_empty()).then_some(toasted);
            }
        }
    }
    spans.push(
        data_start,
        len.saturating_sub(hoff_us),
        &htup::T_DATA,
        Some(id.lp),
        None,
    );
    let bitmap_at = off.saturating_add(SIZEOF_HEAP_TUPLE_HEADER);
    let header_end = data_start;
    let mut bitmap_end = bitmap_at;
    if infomask & HEAP_HASNULL != 0 {
        let natts = usize::from(infomask2 & HEAP_NATTS_MASK);
        let bytes = natts.saturating_add(7) / 8;
        let (bits, complete) = r.bytes(bitmap_at, bytes);
        budget.spend(bytes);
        if spans.full() {
            let mut s = String::with_capacity(bytes.saturating_mul(8));
            for i in 0..bytes.saturating_mul(8) {
                let byte = bits.get(i / 8).copied().unwrap_or(0);
                s.push(if byte & (1 << (i % 8)) != 0 { '1' } else { '0' });
            }
            row.t_bits = Some(s);
        }
        bitmap_end = bitmap_at.saturating_add(bytes);
        let problem = if !complete || bitmap_end > header_end {
            Some(Finding::HeapNullBitmapPastHoff)
        } else {
            None
        };
        spans.push(bitmap_at, bytes, &htup::T_BITS, Some(id.lp), problem);
    }
    if infomask & HEAP_HASOID_OLD != 0 {
        let oid_at = header_end.saturating_sub(4);
        row.t_oid = r
            .u32(oid_at)
            .filter(|_| spans.full())
            .map(|v| format!("{v}"));
        spans.push(oid_at, 4, &htup::T_OID, Some(id.lp), None);
    }
    if bitmap_end < header_end {
        spans.push(
            bitmap_end,
            header_end.saturating_sub(bitmap_end),
            &htup::PADDING,
            Some(id.lp),
            None,
        );
    }
    row
}

/// heap_page_items' rows and the line pointers they came from.
pub(crate) fn heap_rows(
    r: &Reader,
    header: &PageHeader,
    columns: Option<&[crate::tuple::columns::ColumnHint]>,
    spans: &mut Spans,
) -> (Vec<HeapItem>, Vec<ItemId>) {
    let lps = line_pointers(r, header, spans);
    free_space(header, spans);
    let attrs = columns.map(crate::tuple::columns::attributes);
    let mut budget = ItemBudget::new(r.len());
    let mut rows = Vec::with_capacity(lps.len());
    for id in &lps {
        if !budget.allows(id.lp, spans) {
            break;
        }
        let with = columns.zip(attrs.as_deref());
        rows.push(item(r, id, with, spans, &mut budget));
    }
    (rows, lps)
}

/// heap_page_items() for every line pointer, until items overlap past the item budget.
/// `block` is the page's relation-wide block number, for verify_heapam's checks.
pub(crate) fn items(
    r: &Reader,
    header: &PageHeader,
    block: u32,
    hints: &crate::am::decoded::Hints,
    spans: &mut Spans,
) -> Items {
    let ctx = hints.heap;
    if special_size(header, r.len()) != Some(0) {
        spans.flag(&page_header_data::PD_SPECIAL, Finding::HeapHasSpecial);
    }
    let (rows, lps) = heap_rows(r, header, hints.columns, spans);
    // Past the item budget the items are garbage: their chains say nothing more.
    if rows.len() == lps.len() {
        crate::am::heap::check::check_page(r, block, &lps, ctx, spans);
        crate::am::heap::check::check_all_visible(header.flags as u16, &lps, spans);
        // A torn write shows only on a page whose checksum fails.
        let stored = r.field(0, &page_header_data::PD_CHECKSUM).unwrap_or(0) as u16;
        if stored != 0 && crate::page::checksum::pg_checksum_page(r.b, block, r.e) != stored {
            let torn = crate::am::heap::check::torn_sectors(r, &lps, block);
            let taken = crate::am::heap::check::torn_items(&lps, &torn);
            spans.flag_line_pointers(Finding::TornSectors, |lp| taken.contains(&lp));
        }
    }
    Items::Heap(rows)
}
