//! gin_index_check's checks of one GIN page (contrib/amcheck/verify_gin.c, PostgreSQL 18):
//! check_index_page and PageGetItemIdCareful on entry tree pages, their tuple sizes, the
//! heap pointers of their posting lists and, when the caller names the key type, their
//! order; the shape and key order of posting tree internal pages. The checks that need the
//! parent page (high keys against downlinks) are not made here.

use alloc::vec::Vec;

use crate::am::gin::layout::{
    GIN_CAT_NORM_KEY, GIN_DATA_START, GIN_ITUP_COMPRESSED, GIN_TREE_POSTING, POSTING_ITEM_SIZE,
};
use crate::am::nbtree::check::{KeyColumn, KeyType};
use crate::findings::Finding;
use crate::page::bufpage::{ItemId, PageHeader, INVALID_BLOCK_NUMBER};
use crate::page::fields::{
    gin_page_opaque_data, index_tuple_data, item_id_data, page_header_data, LP_NORMAL,
};
use crate::page::geometry::Endian;
use crate::page::itup::IndexTuple;
use crate::page::reader::{Reader, Tid};
use crate::page::spans::Spans;

/// MAXALIGN (8 bytes).
fn maxalign(n: usize) -> usize {
    n.saturating_add(7) & !7
}

/// check_index_page and the checks of gin_check_parent_keys_consistency that one entry tree
/// page (neither data, meta nor pending list) answers: line pointers, tuple sizes, posting
/// list heap pointers and, with the key type of a one-column index, the key order.
pub(super) fn check_entry_page(
    r: &Reader,
    leaf: bool,
    deleted: bool,
    rightlink: u32,
    lps: &[ItemId],
    keys: Option<&[KeyColumn]>,
    spans: &mut Spans,
) {
    let maxoff = lps.len();
    if deleted {
        // check_index_page also refuses a deleted internal page, but a pending list page
        // shiftList deleted has the same flags (GIN_DELETED alone) and is not in the tree:
        // only the walk from the root could tell them apart. A leaf is in the tree.
        if leaf && maxoff > 0 {
            spans.flag(
                &gin_page_opaque_data::FLAGS,
                Finding::GinDeletedPageWithTuples,
            );
        }
        return;
    }
    // itup.h: MaxIndexTuplesPerPage.
    let max_tuples = r
        .len()
        .saturating_sub(crate::page::bufpage::SIZE_OF_PAGE_HEADER_DATA)
        / (16 + crate::page::bufpage::SIZE_OF_ITEM_ID);
    if maxoff > max_tuples {
        spans.flag(&page_header_data::PD_LOWER, Finding::GinTooManyTuples);
        return;
    }
    // PageGetItemIdCareful: the tuple space ends where the special space of the right size
    // would start.
    let space_end = r.len().saturating_sub(8);
    let mut tuples: Vec<Option<(u16, usize, IndexTuple)>> = Vec::with_capacity(maxoff);
    for id in lps {
        let (off, len) = (usize::from(id.off), usize::from(id.len));
        let problem = if off.saturating_add(len) > space_end {
            Some(Finding::GinLpPastTupleSpace)
        } else if id.flags != LP_NORMAL || len == 0 {
            Some(Finding::GinLpInvalid)
        } else {
            None
        };
        if let Some(f) = problem {
            spans.reflag_item(&item_id_data::LP_OFF, id.lp, f);
            // amcheck stops at the first bad line pointer: the rest of the page is not read.
            return;
        }
        let t = IndexTuple::read(r, off);
        if let Some(t) = t {
            if maxalign(len) != maxalign(t.size()) {
                spans.flag_item(
                    &index_tuple_data::T_INFO,
                    id.lp,
                    Finding::GinTupleSizeInconsistent,
                );
            }
        }
        tuples.push(t.map(|t| (id.lp, off, t)));
    }
    if leaf {
        for (lp, off, t) in tuples.iter().flatten() {
            posting_list(r, *lp, *off, t, spans);
        }
    }
    let one_key = match keys {
        Some([k]) => Some(k.ty),
        _ => None,
    };
    let Some(k) = one_key else {
        if maxoff > 1 {
            spans.note(Finding::GinEntryOrderNotChecked);
        }
        return;
    };
    let mut unchecked = false;
    let mut prev: Option<Key> = None;
    for (i, t) in tuples.iter().enumerate() {
        let n = i.saturating_add(1);
        let cur = t.as_ref().and_then(|(_, off, t)| entry_key(r, *off, t, k));
        let skip = n == maxoff && rightlink == INVALID_BLOCK_NUMBER && !leaf;
        if n > 1 && !skip {
            match (&prev, &cur) {
                (Some(p), Some(c)) if p >= c => {
                    if let Some((lp, _, _)) = t {
                        // gin_check_parent_keys_consistency's numbers: offset, rightlink.
                        spans.flag_item_valued(
                            &index_tuple_data::T_TID,
                            *lp,
                            Finding::GinEntryOrder,
                            &[u32::from(*lp), rightlink],
                        );
                    }
                }
                (Some(_), Some(_)) => {}
                _ => unchecked = true,
            }
        }
        prev = cur;
    }
    if unchecked {
        spans.note(Finding::GinEntryOrderNotChecked);
    }
}

/// A key as ginCompareEntries orders it: the null category first, then the value (only
/// GIN_CAT_NORM_KEY keys have one).
type Key<'a> = (u8, Option<Datum<'a>>);

/// One key value, ordered as btint2cmp/btint4cmp/btint8cmp, and text as bttextcmp under the
/// C collation and gin_compare_jsonb order it (bytes, then length).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Datum<'a> {
    Int(i64),
    Bytes(&'a [u8]),
}

/// gintuple_get_key of a one-column index's tuple at `off`; None when the key cannot be read
/// as `k` (a compressed or garbage varlena, a big-endian page's text).
fn entry_key<'a>(r: &Reader<'a>, off: usize, t: &IndexTuple, k: KeyType) -> Option<Key<'a>> {
    let data = off.checked_add(t.data_offset())?;
    if t.has_nulls() {
        // The key's null bit is bit 0 of the bitmap; GinGetNullCategory then reads the
        // category byte where the data would start.
        let bits = r.u8(off.checked_add(8)?)?;
        if bits & 1 == 0 {
            return Some((r.u8(data)?, None));
        }
    }
    let end = off.checked_add(t.size())?;
    let d = match k {
        KeyType::Int2 => Datum::Int(i64::from(r.u16(data)? as i16)),
        KeyType::Int4 => Datum::Int(i64::from(r.i32(data)?)),
        KeyType::Int8 => Datum::Int(r.i64(data)?),
        // oid compares unsigned; date and timestamp(tz) as their integers (infinities are
        // the extreme values), as their btree opclasses do.
        KeyType::Oid => Datum::Int(i64::from(r.u32(data)?)),
        KeyType::Date => Datum::Int(i64::from(r.i32(data)?)),
        KeyType::Timestamp => Datum::Int(r.i64(data)?),
        KeyType::Text => {
            if r.e == Endian::Big {
                return None;
            }
            let first = r.u8(data)?;
            let (start, len) = if first & 0x01 == 0x01 {
                // varatt.h: a short (1-byte header) varlena; 0x01 alone is external.
                if first == 0x01 {
                    return None;
                }
                (
                    data.checked_add(1)?,
                    usize::from(first >> 1).checked_sub(1)?,
                )
            } else {
                let h = r.u32(data)?;
                if h & 0x03 != 0 {
                    return None;
                }
                (data.checked_add(4)?, ((h >> 2) as usize).checked_sub(4)?)
            };
            let stop = start.checked_add(len)?;
            if stop > end {
                return None;
            }
            Datum::Bytes(r.b.get(start..stop)?)
        }
    };
    Some((GIN_CAT_NORM_KEY, Some(d)))
}

/// ginReadTupleWithoutState and the heap pointer check of a leaf entry tuple's posting list.
fn posting_list(r: &Reader, lp: u16, off: usize, t: &IndexTuple, spans: &mut Spans) {
    let nipd = t.tid.offset;
    if nipd == GIN_TREE_POSTING || nipd == 0 {
        return;
    }
    let at = off.saturating_add((t.tid.block & !GIN_ITUP_COMPRESSED) as usize);
    let tids = if t.tid.block & GIN_ITUP_COMPRESSED != 0 {
        let (Some(first), Some(nbytes)) = (r.tid(at), r.u16(at.saturating_add(6))) else {
            return;
        };
        let start = at.saturating_add(8);
        let (bytes, _) = r.bytes(start, usize::from(nbytes));
        let tids = crate::am::gin::layout::decode_segment(first, bytes);
        if tids.len() != usize::from(nipd) {
            spans.flag_item(
                &index_tuple_data::T_TID,
                lp,
                Finding::GinPostingCountMismatch,
            );
            return;
        }
        tids
    } else {
        (0..usize::from(nipd))
            .map_while(|i| r.tid(at.saturating_add(i.saturating_mul(6))))
            .collect()
    };
    // OffsetNumberIsValid: 1..=MaxOffsetNumber (BLCKSZ / sizeof(ItemIdData)).
    let max_offset = r.len() / crate::page::bufpage::SIZE_OF_ITEM_ID;
    if tids
        .iter()
        .any(|t| t.offset == 0 || usize::from(t.offset) > max_offset)
    {
        spans.flag_item(
            &index_tuple_data::T_DATA,
            lp,
            Finding::GinPostingInvalidHeapPointer,
        );
    }
}

/// gin_check_posting_tree_parent_keys_consistency's checks of one posting tree internal
/// page: pd_lower against maxoff, the PostingItems' key order, and the rightmost page's last
/// key (0,0).
pub(super) fn check_posting_internal(
    r: &Reader,
    header: &PageHeader,
    maxoff: u16,
    rightlink: u32,
    spans: &mut Spans,
) {
    let fits = usize::from(header.lower)
        .checked_sub(GIN_DATA_START)
        .is_some_and(|n| n / POSTING_ITEM_SIZE == usize::from(maxoff));
    if !fits {
        spans.flag(
            &page_header_data::PD_LOWER,
            Finding::GinPostingTreeLowerMismatch,
        );
        return;
    }
    let key = |i: u16| -> Option<Tid> {
        let at = GIN_DATA_START
            .checked_add(usize::from(i.checked_sub(1)?).checked_mul(POSTING_ITEM_SIZE)?)?;
        r.tid(at.checked_add(4)?)
    };
    for i in 1..=maxoff {
        let Some(cur) = key(i) else { return };
        if i == maxoff && rightlink == INVALID_BLOCK_NUMBER {
            if cur.block != 0 || cur.offset != 0 {
                spans.flag_item(
                    &crate::page::fields::posting_item::KEY,
                    i,
                    Finding::GinPostingTreeRightmostKey,
                );
            }
        } else if i > 1 {
            let Some(prev) = key(i.saturating_sub(1)) else {
                return;
            };
            if (cur.block, cur.offset) < (prev.block, prev.offset) {
                spans.flag_item(
                    &crate::page::fields::posting_item::KEY,
                    i,
                    Finding::GinPostingTreeOrder,
                );
            }
        }
    }
}
