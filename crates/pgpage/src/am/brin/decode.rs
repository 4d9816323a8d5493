//! BRIN pages: BrinSpecialSpace as brin_page_type() names it, the metapage as
//! brin_metapage_info() shows it, revmap pages as brin_revmap_data() lists them, and the
//! tuples of regular pages as brin_page_items() lists them when the caller names the index's
//! columns (types and opclass families; the server reads them from the index's descriptor),
//! else their line pointers. Summaries print for minmax and bloom, and for inclusion over
//! types pgpage prints; minmax-multi summaries are skipped over and said not to be decoded.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::am::brin::layout::{
    BrinItem, BrinMeta, BrinSpecial, RevmapItem, BRIN_EMPTY_RANGE_MASK, BRIN_META_MAGIC,
    BRIN_NULLS_MASK, BRIN_OFFSET_MASK, BRIN_PAGETYPE_META, BRIN_PAGETYPE_REGULAR,
    BRIN_PAGETYPE_REVMAP, BRIN_PLACEHOLDER_MASK, SIZE_OF_BRIN_TUPLE,
};
use crate::am::decoded::{Items, Special};
use crate::compress::decompress;
use crate::findings::Finding;
use crate::page::bufpage::{
    free_space, line_pointers, meta_spans, special_opaque, PageHeader, SIZE_OF_PAGE_HEADER_DATA,
};
use crate::page::fields::LP_UNUSED;
use crate::page::fields::{
    brin_meta_page_data, brin_special_space, brin_tuple, revmap_contents, Field,
    BRIN_META_PAGE_DATA, BRIN_SPECIAL_SPACE, BRIN_TUPLE,
};
use crate::page::geometry::Endian;
use crate::page::reader::Reader;
use crate::page::spans::Spans;
use crate::tuple::columns::{BrinOpclass, ColumnHint};
use crate::tuple::value::{output, Type};
use crate::tuple::{self, Align, Varlena};

/// The types brin_*_opcinfo stores for one column (the disk descriptor's attributes), and
/// whether pgpage prints them as the server does.
fn stored(c: &ColumnHint) -> (Vec<Type>, Option<String>) {
    let varlena = |name: &str| Type::Unknown {
        name: String::from(name),
        attlen: -1,
        attalign: Align::Int,
    };
    let printable = !matches!(c.ty, Type::Unknown { .. });
    let unprintable = || format!("pgpage has no output function for {}", c.ty.name());
    match c.brin {
        Some(BrinOpclass::Minmax) => (
            alloc::vec![c.ty.clone(), c.ty.clone()],
            (!printable).then(unprintable),
        ),
        Some(BrinOpclass::Inclusion) => (
            alloc::vec![c.ty.clone(), Type::Bool, Type::Bool],
            (!printable).then(unprintable),
        ),
        Some(BrinOpclass::Bloom) => (alloc::vec![varlena(BLOOM_SUMMARY)], None),
        Some(BrinOpclass::MinmaxMulti) => (
            alloc::vec![varlena("pg_brin_minmax_multi_summary")],
            Some(String::from(
                "minmax-multi summaries (pg_brin_minmax_multi_summary) are not decoded",
            )),
        ),
        None => (
            Vec::new(),
            Some(String::from("the column's opclass is not known")),
        ),
    }
}

const BLOOM_SUMMARY: &str = "pg_brin_bloom_summary";

/// brin_bloom.c brin_bloom_summary_out: BloomFilter's nhashes, nbits and nbits_set (after
/// the varlena header: uint16 flags, uint8 nhashes, then uint32 nbits and nbits_set).
fn bloom_out(v: &[u8], e: Endian, out: &mut String) -> bool {
    let word = |at| crate::page::geometry::read_u32(v, at, e);
    match (v.get(2), word(4), word(8)) {
        (Some(nhashes), Some(nbits), Some(set)) => {
            out.push_str(&format!(
                "{{mode: hashed  nhashes: {nhashes}  nbits: {nbits}  nbits_set: {set}}}"
            ));
            true
        }
        _ => false,
    }
}

/// One stored value printed by its output function: a varlena's payload, decompressed.
fn print(ty: &Type, datum: &[u8], e: Endian, out: &mut String) -> bool {
    if ty.layout().0 != -1 {
        return output(ty, datum, e, out).is_ok();
    }
    let show = |v: &[u8], out: &mut String| match ty {
        Type::Unknown { name, .. } if name == BLOOM_SUMMARY => bloom_out(v, e, out),
        _ => output(ty, v, e, out).is_ok(),
    };
    match Varlena::parse(datum, e) {
        Ok(Varlena::Inline(v)) => show(v, out),
        Ok(Varlena::Compressed {
            rawsize,
            method,
            data,
        }) => decompress(method, data, rawsize).is_ok_and(|v| show(&v, out)),
        _ => false,
    }
}

/// brin_deform_tuple and brin_page_items: one row per column of the tuple at `at`.
fn tuple_rows(t: &[u8], lp: u16, columns: &[ColumnHint], e: Endian, rows: &mut Vec<BrinItem>) {
    let info = t.get(4).copied().unwrap_or(0);
    let blknum = crate::page::geometry::read_u32(t, 0, e);
    let natts = columns.len();
    // brin_deconstruct_tuple: two bits per column, allnulls then hasnulls, 1 for null.
    let nulls =
        (info & BRIN_NULLS_MASK != 0).then(|| t.get(SIZE_OF_BRIN_TUPLE..).unwrap_or_default());
    let bit =
        |n: usize| nulls.is_some_and(|b| b.get(n / 8).is_some_and(|x| x & (1 << (n % 8)) != 0));
    let data = t
        .get(usize::from(info & BRIN_OFFSET_MASK)..)
        .unwrap_or_default();
    let mut off = 0usize;
    // Past a value that does not fit, the offsets of the next ones are unknown.
    let mut lost = false;
    for (i, c) in columns.iter().enumerate() {
        let allnulls = bit(i);
        let mut row = BrinItem {
            itemoffset: lp,
            blknum,
            attnum: u16::try_from(i.saturating_add(1)).ok(),
            allnulls: Some(allnulls),
            hasnulls: Some(bit(natts.saturating_add(i))),
            placeholder: Some(info & BRIN_PLACEHOLDER_MASK != 0),
            empty: Some(info & BRIN_EMPTY_RANGE_MASK != 0),
            value: None,
            value_not_decoded: None,
        };
        let (types, why) = stored(c);
        if allnulls {
            rows.push(row);
            continue;
        }
        if types.is_empty() {
            lost = true;
        }
        let mut text = String::from("{");
        for (n, ty) in types.iter().enumerate() {
            if lost {
                break;
            }
            let att = ty.attribute();
            off = match att.attlen {
                -1 if data.get(off).is_some_and(|&b| b != 0) => off,
                _ => att.attalign.align(off),
            };
            let rest = data.get(off..).unwrap_or_default();
            let Some(datum) = tuple::datum_len(rest, att.attlen, e)
                .ok()
                .and_then(|len| rest.get(..len))
            else {
                lost = true;
                break;
            };
            off = off.saturating_add(datum.len());
            if why.is_none() {
                if n > 0 {
                    text.push_str(" .. ");
                }
                lost |= !print(ty, datum, e, &mut text);
            }
        }
        text.push('}');
        match (why, lost) {
            (Some(w), _) => row.value_not_decoded = Some(w),
            (None, true) => {
                row.value_not_decoded = Some(String::from(
                    "the summary's bytes do not fit the column types given",
                ))
            }
            (None, false) => row.value = Some(text),
        }
        rows.push(row);
    }
}

pub(crate) fn decode(
    r: &Reader,
    header: &PageHeader,
    columns: Option<&[ColumnHint]>,
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
            match columns {
                Some(columns) => {
                    let mut rows = Vec::new();
                    for id in &lps {
                        if id.flags == LP_UNUSED || !id.storage_ok(r.len()) {
                            rows.push(BrinItem {
                                itemoffset: id.lp,
                                blknum: None,
                                attnum: None,
                                allnulls: None,
                                hasnulls: None,
                                placeholder: None,
                                empty: None,
                                value: None,
                                value_not_decoded: None,
                            });
                            continue;
                        }
                        let (t, _) = r.bytes(usize::from(id.off), usize::from(id.len));
                        tuple_rows(t, id.lp, columns, r.e, &mut rows);
                    }
                    Items::Brin(rows)
                }
                None => Items::Lines(lps.iter().map(crate::page::bufpage::ItemId::row).collect()),
            }
        }
    };
    (items, Some(Special::Brin(special)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tuple built by brin_form_tuple's rules (brin_tuple.h): range at block 8, column 1
    /// all nulls, column 2 with some nulls and the text summary 'apple' .. 'pear'.
    #[test]
    fn a_tuple_splits_into_brin_page_items_rows() {
        let mut t = vec![8, 0, 0, 0, 0x80 | 8, 0b1001, 0, 0];
        t.extend_from_slice(&[(6 << 1) | 1, b'a', b'p', b'p', b'l', b'e']);
        t.extend_from_slice(&[(5 << 1) | 1, b'p', b'e', b'a', b'r']);
        let columns = ColumnHint::parse_list("int4 minmax,text text_minmax_ops").unwrap();
        let mut rows = Vec::new();
        tuple_rows(&t, 3, &columns, Endian::Little, &mut rows);
        let shown: Vec<_> = rows
            .iter()
            .map(|r| {
                (
                    r.itemoffset,
                    r.blknum,
                    r.attnum,
                    r.allnulls,
                    r.hasnulls,
                    r.value.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                (3, Some(8), Some(1), Some(true), Some(false), None),
                (
                    3,
                    Some(8),
                    Some(2),
                    Some(false),
                    Some(true),
                    Some("{apple .. pear}")
                ),
            ]
        );
        // Minmax-multi is skipped over, said, and the next column still decodes.
        let columns = ColumnHint::parse_list("text minmax_multi,int4 minmax").unwrap();
        let mut t = vec![1, 0, 0, 0, 8, 0, 0, 0, (3 << 1) | 1, b'x', b'y', 0];
        t.extend_from_slice(&5i32.to_le_bytes());
        t.extend_from_slice(&9i32.to_le_bytes());
        let mut rows = Vec::new();
        tuple_rows(&t, 1, &columns, Endian::Little, &mut rows);
        assert!(rows[0]
            .value_not_decoded
            .as_deref()
            .unwrap()
            .contains("minmax-multi"));
        assert_eq!(rows[1].value.as_deref(), Some("{5 .. 9}"));
    }
}
