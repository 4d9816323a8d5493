//! B-tree redo (nbtxlog.c, with nbtdedup.c's posting list helpers and nbtpage.c's page and
//! metapage initialisation): a Btree record applied to one of the pages it references, as
//! that release's redo routine changes it. Every change a record makes falls on one block
//! at a time, so the caller replays each block on its own, deciding as for the heap whether
//! the page needs the record and restoring images.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::layout::{
    BTP_HALF_DEAD, BTP_HAS_FULLXID, BTP_INCOMPLETE_SPLIT, BTP_LEAF, BTP_ROOT, BTREE_MAGIC,
    BT_IS_POSTING, BT_OFFSET_MASK, INDEX_ALT_TID_MASK, P_HIKEY, P_NONE,
};
use crate::am::heap::redo::{RedoError, RedoSettings};
use crate::page::fields::{
    bt_page_opaque_data as bt, Field, BTP_DELETED, BTP_META, BT_PAGE_OPAQUE_DATA, INDEX_SIZE_MASK,
    LP_UNUSED, PD_ALL_VISIBLE,
};
use crate::page::write::{
    self, add_index_item, get16, index_multi_delete, index_tuple_delete, index_tuple_overwrite,
    item_range, max_offset, maxalign, page_init, put16, put32, set_lsn, temp_page_copy_special,
    WriteError,
};
use crate::wal::rmgr::nbtree::{
    BtreeDeletedAndUpdated, BtreeRecord, BtreeUpdate, XlBtreeMetadata, XlBtreeSplit,
    XlBtreeUnlinkPage,
};
use crate::wal::WalRecord;

/// nbtree.h: BTP_HAS_GARBAGE (deprecated in 14, still cleared by redo).
const BTP_HAS_GARBAGE: u16 = 1 << 6;
/// PageGetContents: where BTMetaPageData and BTDeletedPageData start.
const PAGE_CONTENTS: usize = 24;
/// sizeof(BTMetaPageData): pd_lower of a metapage is just past it.
const BT_META_SIZE: usize = 48;
/// sizeof(IndexTupleData) and of ItemPointerData.
const INDEX_TUPLE_HEADER: usize = 8;
const TID_SIZE: usize = 6;

/// sizeof(BTPageOpaqueData).
fn opaque_size() -> usize {
    usize::from(BT_PAGE_OPAQUE_DATA.size)
}

/// Where a BTPageOpaqueData field lies in the special space (13's btpo union is
/// btpo_level's word).
fn at(f: &Field) -> usize {
    usize::from(f.offset)
}

fn invalid(what: impl Into<String>) -> RedoError {
    RedoError::Invalid(what.into())
}

fn write_error(e: WriteError) -> RedoError {
    RedoError::Invalid(format!("{e:?}"))
}

/// Where BTPageOpaqueData lies: the page's special space, which must be its size.
fn opaque(page: &[u8]) -> Result<usize, RedoError> {
    let s = usize::from(write::special(page));
    if s.checked_add(opaque_size()) != Some(page.len()) {
        return Err(invalid("the page's special space is not a B-tree page's"));
    }
    Ok(s)
}

fn flags(page: &[u8]) -> Result<u16, RedoError> {
    Ok(get16(
        page,
        opaque(page)?.saturating_add(at(&bt::BTPO_FLAGS)),
    ))
}

fn set_flags(page: &mut [u8], f: u16) -> Result<(), RedoError> {
    let o = opaque(page)?;
    put16(page, o.saturating_add(at(&bt::BTPO_FLAGS)), f);
    Ok(())
}

fn set_opaque32(page: &mut [u8], field: usize, v: u32) -> Result<(), RedoError> {
    let o = opaque(page)?;
    put32(page, o.saturating_add(field), v);
    Ok(())
}

/// _bt_pageinit: an empty page with a B-tree special space, all zeros.
fn bt_pageinit(page: &mut [u8]) -> Result<(), RedoError> {
    page_init(page, opaque_size()).map_err(write_error)
}

/// The bytes of the normal item at `off`.
fn item(page: &[u8], off: u16) -> Result<&[u8], RedoError> {
    let r = item_range(page, off).map_err(|_| invalid(format!("invalid item {off}")))?;
    page.get(r)
        .ok_or_else(|| invalid(format!("invalid item {off}")))
}

/// An index tuple's view of its bytes: t_tid and t_info (itup.h, nbtree.h).
struct Tuple<'a>(&'a [u8]);

impl Tuple<'_> {
    fn t_info(&self) -> u16 {
        get16(self.0, 6)
    }

    /// IndexTupleSize.
    fn size(&self) -> usize {
        usize::from(self.t_info() & INDEX_SIZE_MASK)
    }

    fn tid_block(&self) -> u32 {
        (u32::from(get16(self.0, 0)) << 16) | u32::from(get16(self.0, 2))
    }

    fn tid_offset(&self) -> u16 {
        get16(self.0, 4)
    }

    /// BTreeTupleIsPosting.
    fn is_posting(&self) -> bool {
        self.t_info() & INDEX_ALT_TID_MASK != 0 && self.tid_offset() & BT_IS_POSTING != 0
    }

    /// BTreeTupleIsPivot.
    fn is_pivot(&self) -> bool {
        self.t_info() & INDEX_ALT_TID_MASK != 0 && self.tid_offset() & BT_IS_POSTING == 0
    }

    /// The posting list's TIDs (checked to lie within the tuple), or the tuple's own TID.
    fn htids(&self) -> Result<Vec<[u8; TID_SIZE]>, RedoError> {
        if self.is_pivot() {
            return Err(invalid("a pivot tuple where redo expects a leaf tuple"));
        }
        if !self.is_posting() {
            let tid = self
                .0
                .get(..TID_SIZE)
                .and_then(|t| <[u8; TID_SIZE]>::try_from(t).ok())
                .ok_or_else(|| invalid("index tuple too short"))?;
            return Ok(alloc::vec![tid]);
        }
        let start = usize::try_from(self.tid_block()).unwrap_or(usize::MAX);
        let n = usize::from(self.tid_offset() & BT_OFFSET_MASK);
        let end = n
            .checked_mul(TID_SIZE)
            .and_then(|len| start.checked_add(len))
            .filter(|&end| end <= self.size())
            .ok_or_else(|| invalid("posting list past its tuple"))?;
        let list = self
            .0
            .get(start..end)
            .ok_or_else(|| invalid("posting list past its tuple"))?;
        Ok(list
            .chunks_exact(TID_SIZE)
            .filter_map(|c| <[u8; TID_SIZE]>::try_from(c).ok())
            .collect())
    }

    /// What a posting list is formed from: the tuple up to its posting list
    /// (BTreeTupleGetPostingOffset), or all of it.
    fn key_size(&self) -> usize {
        if self.is_posting() {
            usize::try_from(self.tid_block()).unwrap_or(usize::MAX)
        } else {
            self.size()
        }
    }
}

/// _bt_form_posting (and _bt_update_posting's tuple): the key part of `base`, then the heap
/// TIDs as a posting list when there are several, else as t_tid; padding zeros (palloc0).
fn form_posting(
    base: &[u8],
    keysize: usize,
    htids: &[[u8; TID_SIZE]],
) -> Result<Vec<u8>, RedoError> {
    let key = base
        .get(..keysize)
        .filter(|k| k.len() >= INDEX_TUPLE_HEADER && keysize.is_multiple_of(8))
        .ok_or_else(|| invalid("posting list key size"))?;
    let newsize = if htids.len() > 1 {
        htids
            .len()
            .checked_mul(TID_SIZE)
            .and_then(|n| n.checked_add(keysize))
            .and_then(maxalign)
            .ok_or_else(|| invalid("posting list size"))?
    } else {
        keysize
    };
    let size16 = u16::try_from(newsize)
        .ok()
        .filter(|s| *s <= INDEX_SIZE_MASK)
        .ok_or_else(|| invalid("posting list tuple too large"))?;
    let mut t = alloc::vec![0u8; newsize];
    t.get_mut(..keysize)
        .ok_or_else(|| invalid("posting list key size"))?
        .copy_from_slice(key);
    let mut info = (get16(&t, 6) & !INDEX_SIZE_MASK) | size16;
    match htids {
        [one] => {
            info &= !INDEX_ALT_TID_MASK;
            if let Some(tid) = t.get_mut(..TID_SIZE) {
                tid.copy_from_slice(one);
            }
        }
        [] => return Err(invalid("a posting list with no TIDs")),
        many => {
            info |= INDEX_ALT_TID_MASK;
            let n = u16::try_from(many.len())
                .ok()
                .filter(|n| *n <= BT_OFFSET_MASK)
                .ok_or_else(|| invalid("too many TIDs for a posting list"))?;
            let k = u32::try_from(keysize).map_err(|_| invalid("posting list key size"))?;
            put16(&mut t, 0, (k >> 16) as u16);
            put16(&mut t, 2, (k & 0xFFFF) as u16);
            put16(&mut t, 4, n | BT_IS_POSTING);
            for (i, tid) in many.iter().enumerate() {
                let at = keysize.saturating_add(i.saturating_mul(TID_SIZE));
                if let Some(dst) = t.get_mut(at..at.saturating_add(TID_SIZE)) {
                    dst.copy_from_slice(tid);
                }
            }
        }
    }
    put16(&mut t, 6, info);
    Ok(t)
}

/// _bt_swap_posting: `newitem` (a private copy) takes the posting list's last TID, and the
/// returned copy of the posting list takes newitem's TID at `postingoff`, its TIDs from
/// there shifted right by one (the last one dropped).
fn swap_posting(
    newitem: &mut [u8],
    oposting: &[u8],
    postingoff: u16,
) -> Result<Vec<u8>, RedoError> {
    let o = Tuple(oposting);
    if !o.is_posting() {
        return Err(invalid(
            "a posting list split of a tuple that is no posting list",
        ));
    }
    let htids = o.htids()?;
    let n = htids.len();
    let p = usize::from(postingoff);
    if !(p > 0 && p < n) {
        return Err(invalid(format!(
            "posting list tuple with {n} items cannot be split at offset {p}"
        )));
    }
    let mut nposting = oposting
        .get(..o.size())
        .ok_or_else(|| invalid("posting list tuple past its item"))?
        .to_vec();
    let start = o.key_size();
    let at = |i: usize| start.saturating_add(i.saturating_mul(TID_SIZE));
    nposting.copy_within(at(p)..at(n.saturating_sub(1)), at(p.saturating_add(1)));
    let new_tid: [u8; TID_SIZE] = newitem
        .get(..TID_SIZE)
        .and_then(|t| <[u8; TID_SIZE]>::try_from(t).ok())
        .ok_or_else(|| invalid("new item too short"))?;
    nposting
        .get_mut(at(p)..at(p).saturating_add(TID_SIZE))
        .ok_or_else(|| invalid("posting list past its tuple"))?
        .copy_from_slice(&new_tid);
    let max = htids
        .last()
        .ok_or_else(|| invalid("a posting list with no TIDs"))?;
    newitem
        .get_mut(..TID_SIZE)
        .ok_or_else(|| invalid("new item too short"))?
        .copy_from_slice(max);
    Ok(nposting)
}

/// An index tuple at the start of `data`, its IndexTupleSize checked to fit (and at least
/// a header's size): the tuple and its MAXALIGN'd size.
fn tuple_in(data: &[u8]) -> Result<(&[u8], usize), RedoError> {
    let t = Tuple(data);
    if data.len() < INDEX_TUPLE_HEADER || t.size() < INDEX_TUPLE_HEADER {
        return Err(invalid("an index tuple in the record is too short"));
    }
    let size = t.size();
    let aligned = maxalign(size).ok_or_else(|| invalid("index tuple size"))?;
    let bytes = data
        .get(..size)
        .ok_or_else(|| invalid("an index tuple runs past the record's data"))?;
    Ok((bytes, aligned))
}

/// _bt_restore_page: a freshly initialised page given back the tuples of `from`, a copy of
/// what lay between pd_upper and pd_special (the highest item number first).
fn restore_page(page: &mut [u8], from: &[u8]) -> Result<(), RedoError> {
    let mut items: Vec<&[u8]> = Vec::new();
    let mut at = 0usize;
    while at < from.len() {
        let rest = from.get(at..).unwrap_or(&[]);
        let (_, aligned) = tuple_in(rest)?;
        let bytes = rest
            .get(..aligned)
            .ok_or_else(|| invalid("an index tuple runs past the record's data"))?;
        items.push(bytes);
        at = at.saturating_add(aligned);
    }
    let n = items.len();
    for (i, bytes) in items.iter().enumerate().rev() {
        let off = u16::try_from(n.saturating_sub(i)).map_err(|_| invalid("too many items"))?;
        add_index_item(page, bytes, off)
            .map_err(|_| invalid("_bt_restore_page: cannot add item to page"))?;
    }
    Ok(())
}

/// _bt_restore_meta: the metapage rebuilt from the record's xl_btree_metadata.
fn restore_meta(version: u32, data: &[u8], page: &mut [u8]) -> Result<(), RedoError> {
    let m = XlBtreeMetadata::decode(version, data).map_err(RedoError::Invalid)?;
    bt_pageinit(page)?;
    let md = PAGE_CONTENTS;
    let words = [
        BTREE_MAGIC,
        m.version,
        m.root,
        m.level,
        m.fastroot,
        m.fastlevel,
        m.oldest_btpo_xact
            .or(m.last_cleanup_num_delpages)
            .unwrap_or(0),
    ];
    for (i, w) in words.iter().enumerate() {
        put32(page, md.saturating_add(i.saturating_mul(4)), *w);
    }
    // 14 stopped keeping the heap tuple count: redo writes -1 there.
    let tuples = if version <= 13 {
        m.last_cleanup_num_heap_tuples.unwrap_or(0.0)
    } else {
        -1.0
    };
    if let Some(s) = page.get_mut(md.saturating_add(32)..md.saturating_add(40)) {
        s.copy_from_slice(&tuples.to_le_bytes());
    }
    if let Some(b) = page.get_mut(md.saturating_add(40)) {
        *b = u8::from(m.allequalimage);
    }
    set_flags(page, BTP_META)?;
    put16(page, 12, (md.saturating_add(BT_META_SIZE)) as u16);
    Ok(())
}

/// _bt_clear_incomplete_split.
fn clear_incomplete_split(page: &mut [u8]) -> Result<(), RedoError> {
    let f = flags(page)?;
    set_flags(page, f & !BTP_INCOMPLETE_SPLIT)
}

/// The dummy high key of a half-dead leaf page: an 8-byte pivot tuple whose t_tid block is
/// the top parent (BTreeTupleSetTopParent), no key attributes.
fn topparent_hikey(topparent: u32) -> [u8; INDEX_TUPLE_HEADER] {
    let mut t = [0u8; INDEX_TUPLE_HEADER];
    put16(&mut t, 0, (topparent >> 16) as u16);
    put16(&mut t, 2, (topparent & 0xFFFF) as u16);
    put16(&mut t, 6, INDEX_TUPLE_HEADER as u16 | INDEX_ALT_TID_MASK);
    t
}

/// A half-dead leaf page made from scratch (MARK_PAGE_HALFDEAD's leaf, UNLINK_PAGE's leaf
/// when a parent was unlinked).
fn halfdead_leaf(page: &mut [u8], prev: u32, next: u32, topparent: u32) -> Result<(), RedoError> {
    bt_pageinit(page)?;
    set_opaque32(page, at(&bt::BTPO_PREV), prev)?;
    set_opaque32(page, at(&bt::BTPO_NEXT), next)?;
    set_flags(page, BTP_HALF_DEAD | BTP_LEAF)?;
    add_index_item(page, &topparent_hikey(topparent), P_HIKEY)
        .map_err(|_| invalid("could not add dummy high key to half-dead page"))?;
    Ok(())
}

/// The record's block numbers, by block reference id.
fn block_number(rec: &WalRecord<'_>, id: u8) -> Option<u32> {
    rec.block_ref(id).map(|b| b.block)
}

/// P_FIRSTDATAKEY: item 1 on the rightmost page of a level, else item 2 (item 1 is the
/// high key).
fn first_data_key(page: &[u8]) -> Result<u16, RedoError> {
    let o = opaque(page)?;
    Ok(
        if write::get32(page, o.saturating_add(at(&bt::BTPO_NEXT))) == P_NONE {
            P_HIKEY
        } else {
            P_HIKEY.saturating_add(1)
        },
    )
}

/// Applies `rec` to the page of its block reference `block_id`, which needs redo (or was just
/// zeroed for a block the record initialises).
pub fn redo_btree_block(
    s: &RedoSettings,
    rec: &WalRecord<'_>,
    block_id: u8,
    page: &mut [u8],
) -> Result<bool, RedoError> {
    let v = s.version;
    let d = match BtreeRecord::decode(v, rec.info & 0xF0, rec) {
        Some(Ok(d)) => d,
        Some(Err(why)) => return Err(RedoError::Invalid(why)),
        None => return Err(RedoError::NotApplied),
    };
    let b = rec
        .block_ref(block_id)
        .ok_or_else(|| invalid("no such block reference"))?;
    let data = rec.block_data(b);
    match (&d, block_id) {
        (
            BtreeRecord::InsertLeaf(x)
            | BtreeRecord::InsertUpper(x)
            | BtreeRecord::InsertMeta(x)
            | BtreeRecord::InsertPost(x),
            0,
        ) => {
            if matches!(d, BtreeRecord::InsertPost(_)) {
                insert_post(page, data, x.offnum)?;
            } else {
                add_index_item(page, data, x.offnum)
                    .map_err(|_| invalid("failed to add new item"))?;
            }
        }
        (BtreeRecord::InsertUpper(_) | BtreeRecord::InsertMeta(_), 1) => {
            clear_incomplete_split(page)?
        }
        (BtreeRecord::InsertMeta(_), 2) => restore_meta(v, data, page)?,
        (BtreeRecord::SplitL(x), _) => split(rec, x, true, block_id, data, page)?,
        (BtreeRecord::SplitR(x), _) => split(rec, x, false, block_id, data, page)?,
        (BtreeRecord::Newroot(x), 0) => {
            bt_pageinit(page)?;
            let mut f = BTP_ROOT;
            if x.level == 0 {
                f |= BTP_LEAF;
            }
            set_flags(page, f)?;
            set_opaque32(page, at(&bt::BTPO_LEVEL), x.level)?;
            if x.level > 0 {
                restore_page(page, data)?;
            }
        }
        (BtreeRecord::Newroot(x), 1) if x.level > 0 => clear_incomplete_split(page)?,
        (BtreeRecord::Newroot(_), 2) => restore_meta(v, data, page)?,
        (BtreeRecord::Dedup(x), 0) => dedup(page, data, x.nintervals)?,
        (BtreeRecord::Vacuum(x), 0) => {
            let items = BtreeDeletedAndUpdated::decode(
                data,
                usize::from(x.ndeleted),
                usize::from(x.nupdated),
            )
            .map_err(RedoError::Invalid)?;
            delete_and_update(page, &items, v)?;
            if v >= 18 {
                let o = opaque(page)?;
                put16(page, o.saturating_add(at(&bt::BTPO_CYCLEID)), 0);
            }
        }
        (BtreeRecord::Delete(x), 0) => {
            let ndeleted = usize::try_from(x.ndeleted).map_err(|_| invalid("ndeleted"))?;
            let items = BtreeDeletedAndUpdated::decode(data, ndeleted, usize::from(x.nupdated))
                .map_err(RedoError::Invalid)?;
            delete_and_update(page, &items, v)?;
        }
        (BtreeRecord::MarkPageHalfdead(x), 1) => {
            let next = x.poffset.saturating_add(1);
            let rightsib = Tuple(item(page, next)?).tid_block();
            let at = item_range(page, x.poffset)
                .map_err(|_| invalid(format!("invalid item {}", x.poffset)))?
                .start;
            put16(page, at, (rightsib >> 16) as u16);
            put16(page, at.saturating_add(2), (rightsib & 0xFFFF) as u16);
            index_tuple_delete(page, next).map_err(write_error)?;
        }
        (BtreeRecord::MarkPageHalfdead(x), 0) => {
            halfdead_leaf(page, x.leftblk, x.rightblk, x.topparent)?
        }
        (BtreeRecord::UnlinkPage(x) | BtreeRecord::UnlinkPageMeta(x), _) => {
            unlink(v, x, block_id, data, page)?
        }
        (BtreeRecord::MetaCleanup(_), 0) => restore_meta(v, data, page)?,
        _ => {
            return Err(invalid(format!(
                "the record has no change for block reference {block_id}"
            )))
        }
    }
    set_lsn(page, rec.end_lsn);
    Ok(true)
}

/// INSERT_POST's block 0: the posting list before `offnum` split by the new item
/// (_bt_swap_posting), overwritten in place, and the new item with its swapped TID added.
fn insert_post(page: &mut [u8], data: &[u8], offnum: u16) -> Result<(), RedoError> {
    let postingoff = match data.get(..2) {
        Some(&[a, b]) => u16::from_le_bytes([a, b]),
        _ => return Err(invalid("INSERT_POST data too short")),
    };
    let orig = data.get(2..).unwrap_or(&[]);
    let (_, _) = tuple_in(orig)?;
    let mut newitem = orig.to_vec();
    let prev = offnum.saturating_sub(1);
    let r = item_range(page, prev).map_err(|_| invalid(format!("invalid item {prev}")))?;
    let oposting = page
        .get(r.clone())
        .ok_or_else(|| invalid(format!("invalid item {prev}")))?
        .to_vec();
    let nposting = swap_posting(&mut newitem, &oposting, postingoff)?;
    let len = maxalign(nposting.len()).ok_or_else(|| invalid("posting list size"))?;
    let mut padded = nposting;
    padded.resize(len, 0);
    page.get_mut(r.start..r.start.saturating_add(len))
        .ok_or_else(|| invalid("posting list past the page"))?
        .copy_from_slice(&padded);
    add_index_item(page, &newitem, offnum)
        .map_err(|_| invalid("failed to add posting split new item"))?;
    Ok(())
}

/// SPLIT_L and SPLIT_R, one block at a time: the original page's left half (block 0), the
/// new right page (block 1), the right page's right sibling (block 2), and the child whose
/// split this one finished (block 3).
fn split(
    rec: &WalRecord<'_>,
    x: &XlBtreeSplit,
    newitemonleft: bool,
    block_id: u8,
    data: &[u8],
    page: &mut [u8],
) -> Result<(), RedoError> {
    let isleaf = x.level == 0;
    let orig = block_number(rec, 0).ok_or_else(|| invalid("no original page"))?;
    let right = block_number(rec, 1).ok_or_else(|| invalid("no right page"))?;
    let snext = block_number(rec, 2).unwrap_or(P_NONE);
    match block_id {
        0 => split_left(x, newitemonleft, isleaf, right, data, page),
        1 => {
            bt_pageinit(page)?;
            set_opaque32(page, at(&bt::BTPO_PREV), orig)?;
            set_opaque32(page, at(&bt::BTPO_NEXT), snext)?;
            set_opaque32(page, at(&bt::BTPO_LEVEL), x.level)?;
            set_flags(page, if isleaf { BTP_LEAF } else { 0 })?;
            restore_page(page, data)
        }
        2 => set_opaque32(page, at(&bt::BTPO_PREV), right),
        3 if !isleaf => clear_incomplete_split(page),
        _ => Err(invalid(format!(
            "the record has no change for block reference {block_id}"
        ))),
    }
}

fn split_left(
    x: &XlBtreeSplit,
    newitemonleft: bool,
    isleaf: bool,
    right: u32,
    data: &[u8],
    page: &mut [u8],
) -> Result<(), RedoError> {
    let mut rest = data;
    let mut newitem: Option<Vec<u8>> = None;
    let mut nposting: Option<(u16, Vec<u8>)> = None;
    if newitemonleft || x.postingoff != 0 {
        let (_, aligned) = tuple_in(rest)?;
        let mut item = rest
            .get(..aligned)
            .ok_or_else(|| invalid("the new item runs past the record's data"))?
            .to_vec();
        rest = rest.get(aligned..).unwrap_or(&[]);
        if x.postingoff != 0 {
            let replace = x.newitemoff.saturating_sub(1);
            let oposting = item_range(page, replace)
                .ok()
                .and_then(|r| page.get(r))
                .ok_or_else(|| invalid(format!("invalid item {replace}")))?
                .to_vec();
            let np = swap_posting(&mut item, &oposting, x.postingoff)?;
            nposting = Some((replace, np));
        }
        newitem = Some(item);
    }
    let (_, hikeysz) = tuple_in(rest)?;
    let hikey = rest
        .get(..hikeysz)
        .ok_or_else(|| invalid("the left high key runs past the record's data"))?;
    let mut left = temp_page_copy_special(page).map_err(write_error)?;
    add_index_item(&mut left, hikey, P_HIKEY)
        .map_err(|_| invalid("failed to add high key to left page after split"))?;
    let mut leftoff = P_HIKEY.saturating_add(1);
    let mut add = |left: &mut Vec<u8>, bytes: &[u8], what: &str| -> Result<(), RedoError> {
        add_index_item(left, bytes, leftoff)
            .map_err(|_| invalid(format!("failed to add {what} to left page after split")))?;
        leftoff = leftoff.saturating_add(1);
        Ok(())
    };
    let first = first_data_key(page)?;
    let mut off = first;
    while off < x.firstrightoff {
        if let Some((_, np)) = nposting.as_ref().filter(|(r, _)| *r == off) {
            let len = maxalign(np.len()).ok_or_else(|| invalid("posting list size"))?;
            let mut padded = np.clone();
            padded.resize(len, 0);
            add(&mut left, &padded, "new posting list item")?;
            off = off.saturating_add(1);
            continue;
        }
        if newitemonleft && off == x.newitemoff {
            let n = newitem.as_deref().ok_or_else(|| invalid("no new item"))?;
            add(&mut left, n, "new item")?;
        }
        let old = item(page, off)?.to_vec();
        add(&mut left, &old, "old item")?;
        off = off.saturating_add(1);
    }
    if newitemonleft && off == x.newitemoff {
        let n = newitem.as_deref().ok_or_else(|| invalid("no new item"))?;
        add(&mut left, n, "new item")?;
    }
    if page.len() != left.len() {
        return Err(invalid("page size"));
    }
    page.copy_from_slice(&left);
    let mut f = BTP_INCOMPLETE_SPLIT;
    if isleaf {
        f |= BTP_LEAF;
    }
    set_flags(page, f)?;
    set_opaque32(page, at(&bt::BTPO_NEXT), right)?;
    let o = opaque(page)?;
    put16(page, o.saturating_add(at(&bt::BTPO_CYCLEID)), 0);
    Ok(())
}

/// UNLINK_PAGE and UNLINK_PAGE_META: the left sibling's right link (block 1), the target
/// made an empty deleted page (block 0), the right sibling's left link (block 2), the
/// half-dead leaf pointed at the next child to delete (block 3), the metapage (block 4).
fn unlink(
    v: u32,
    x: &XlBtreeUnlinkPage,
    block_id: u8,
    data: &[u8],
    page: &mut [u8],
) -> Result<(), RedoError> {
    match block_id {
        1 if x.leftsib != P_NONE => set_opaque32(page, at(&bt::BTPO_NEXT), x.rightsib),
        0 => {
            bt_pageinit(page)?;
            set_opaque32(page, at(&bt::BTPO_PREV), x.leftsib)?;
            set_opaque32(page, at(&bt::BTPO_NEXT), x.rightsib)?;
            if v <= 13 {
                // btpo.xact shares the level's word.
                set_opaque32(page, at(&bt::BTPO_LEVEL), (x.safexid & 0xFFFF_FFFF) as u32)?;
                set_flags(page, BTP_DELETED)
            } else {
                let level = x.level.unwrap_or(0);
                set_opaque32(page, at(&bt::BTPO_LEVEL), level)?;
                // BTPageSetDeleted: the full safexid as the page's contents.
                let mut f = BTP_DELETED | BTP_HAS_FULLXID;
                if level == 0 {
                    f |= BTP_LEAF;
                }
                set_flags(page, f)?;
                let s = write::special(page);
                put16(page, 12, (PAGE_CONTENTS + 8) as u16);
                put16(page, 14, s);
                if let Some(at) = page.get_mut(PAGE_CONTENTS..PAGE_CONTENTS + 8) {
                    at.copy_from_slice(&x.safexid.to_le_bytes());
                }
                Ok(())
            }
        }
        2 => set_opaque32(page, at(&bt::BTPO_PREV), x.leftsib),
        3 => halfdead_leaf(page, x.leafleftsib, x.leafrightsib, x.leaftopparent),
        4 => restore_meta(v, data, page),
        _ => Err(invalid(format!(
            "the record has no change for block reference {block_id}"
        ))),
    }
}

/// VACUUM's and DELETE's block 0: the posting lists that lose TIDs rewritten in place
/// (btree_xlog_updates), then the deleted items removed (PageIndexMultiDelete), and
/// BTP_HAS_GARBAGE cleared.
fn delete_and_update(
    page: &mut [u8],
    items: &BtreeDeletedAndUpdated,
    version: u32,
) -> Result<(), RedoError> {
    for BtreeUpdate { offnum, ptids } in &items.updated {
        let orig = item(page, *offnum)?.to_vec();
        let t = Tuple(&orig);
        if !t.is_posting() {
            return Err(invalid(format!("item {offnum} is not a posting list")));
        }
        let htids = t.htids()?;
        let mut d = 0usize;
        let mut kept = Vec::new();
        for (i, tid) in htids.iter().enumerate() {
            if ptids.get(d).map(|p| usize::from(*p)) == Some(i) {
                d = d.saturating_add(1);
                continue;
            }
            kept.push(*tid);
        }
        if d != ptids.len() || kept.is_empty() {
            return Err(invalid(format!(
                "the TIDs to delete from item {offnum} are not in its posting list"
            )));
        }
        let new = form_posting(&orig, t.key_size(), &kept)?;
        index_tuple_overwrite(page, *offnum, &new)
            .map_err(|_| invalid("failed to update partially dead item"))?;
    }
    if !items.deleted.is_empty() {
        index_multi_delete(page, &items.deleted, version).map_err(write_error)?;
    }
    let f = flags(page)?;
    set_flags(page, f & !BTP_HAS_GARBAGE)
}

/// DEDUP's block 0: the page rebuilt with the record's intervals merged into posting lists,
/// as btree_xlog_dedup runs _bt_dedup_start_pending, _bt_dedup_save_htid and
/// _bt_dedup_finish_pending over it.
fn dedup(page: &mut [u8], data: &[u8], nintervals: u16) -> Result<(), RedoError> {
    let intervals: Vec<(u16, u16)> = (0..usize::from(nintervals))
        .map(|i| {
            let at = i.saturating_mul(4);
            match data.get(at..at.saturating_add(4)) {
                Some(&[a, b, c, d]) => Ok((u16::from_le_bytes([a, b]), u16::from_le_bytes([c, d]))),
                _ => Err(invalid("the dedup intervals run past the record's data")),
            }
        })
        .collect::<Result<_, _>>()?;
    // BTMaxItemSize: redo is more lenient than the primary was.
    let maxpostingsize = (page.len().saturating_sub(56).saturating_sub(opaque_size()) / 3) & !7;
    let minoff = first_data_key(page)?;
    let maxoff = max_offset(page);
    let mut newpage = temp_page_copy_special(page).map_err(write_error)?;
    if minoff != P_HIKEY {
        let hikey = item(page, P_HIKEY)?;
        add_index_item(&mut newpage, hikey, P_HIKEY)
            .map_err(|_| invalid("deduplication failed to add highkey"))?;
    }
    struct Pending {
        base: Vec<u8>,
        baseoff: u16,
        basetupsize: usize,
        htids: Vec<[u8; TID_SIZE]>,
        nitems: u16,
    }
    let start = |itup: &[u8], off: u16| -> Result<Pending, RedoError> {
        let t = Tuple(itup);
        Ok(Pending {
            base: itup.to_vec(),
            baseoff: off,
            basetupsize: t.key_size(),
            htids: t.htids()?,
            nitems: 1,
        })
    };
    // _bt_dedup_finish_pending: whether it wrote a posting list (closing an interval).
    let finish = |newpage: &mut Vec<u8>, p: &Pending| -> Result<bool, RedoError> {
        let tupoff = max_offset(newpage).saturating_add(1);
        if p.nitems == 1 {
            let size = Tuple(&p.base).size();
            let bytes = p
                .base
                .get(..size)
                .ok_or_else(|| invalid("index tuple past its item"))?;
            add_index_item(newpage, bytes, tupoff)
                .map_err(|_| invalid("deduplication failed to add tuple to page"))?;
            Ok(false)
        } else {
            let fin = form_posting(&p.base, p.basetupsize, &p.htids)?;
            add_index_item(newpage, &fin, tupoff)
                .map_err(|_| invalid("deduplication failed to add tuple to page"))?;
            Ok(true)
        }
    };
    let mut done = 0usize;
    let mut pending: Option<Pending> = None;
    for off in minoff..=maxoff {
        let itup = item(page, off)?;
        let t = Tuple(itup);
        match pending.as_mut() {
            None => pending = Some(start(itup, off)?),
            Some(p) => {
                let interval = intervals
                    .get(done)
                    .filter(|(baseoff, nitems)| p.baseoff == *baseoff && p.nitems < *nitems);
                if interval.is_some() {
                    let more = t.htids()?;
                    let merged = p
                        .htids
                        .len()
                        .saturating_add(more.len())
                        .saturating_mul(TID_SIZE)
                        .saturating_add(p.basetupsize);
                    if maxalign(merged).unwrap_or(usize::MAX) > maxpostingsize {
                        return Err(invalid(
                            "deduplication failed to add heap tid to pending posting list",
                        ));
                    }
                    p.htids.extend(more);
                    p.nitems = p.nitems.saturating_add(1);
                } else {
                    if finish(&mut newpage, p)? {
                        done = done.saturating_add(1);
                    }
                    pending = Some(start(itup, off)?);
                }
            }
        }
    }
    if let Some(p) = pending.as_ref() {
        if finish(&mut newpage, p)? {
            done = done.saturating_add(1);
        }
    }
    if done != intervals.len() {
        return Err(invalid(
            "the page does not hold the record's dedup intervals",
        ));
    }
    let f = flags(&newpage)?;
    set_flags(&mut newpage, f & !BTP_HAS_GARBAGE)?;
    if page.len() != newpage.len() {
        return Err(invalid("page size"));
    }
    page.copy_from_slice(&newpage);
    Ok(())
}

/// bufmask.h MASK_MARKER: what masked bytes become.
const MASK_MARKER: u8 = 0;
/// bufpage.h: the page header's hint flags (PD_HAS_FREE_LINES, PD_PAGE_FULL) and
/// PD_ALL_VISIBLE, which mask_page_hint_bits clears.
const PD_HINT_FLAGS: u16 = 0x0001 | 0x0002 | PD_ALL_VISIBLE;
/// nbtree.h: BTP_SPLIT_END, which split redo does not set.
const BTP_SPLIT_END: u16 = 1 << 5;

/// btree_mask (nbtxlog.c, with bufmask.c's helpers): `page` without what wal_consistency_checking
/// leaves out when it compares a replayed B-tree page with the one the primary logged after
/// the same record: pd_lsn and pd_checksum, pd_prune_xid and the header's hint flags, the free
/// space, a leaf page's line pointer flags (LP_DEAD is set unlogged), BTP_HAS_GARBAGE,
/// BTP_SPLIT_END and btpo_cycleid; in 13, all of a deleted page but its header's first
/// fields (its primary kept the items that redo drops). None when the page's pointers are
/// not sane (the server's check errors out).
pub fn mask(page: &[u8], version: u32) -> Option<Vec<u8>> {
    let mut p = page.to_vec();
    if let Some(h) = p.get_mut(..10) {
        h.fill(MASK_MARKER);
    }
    put32(&mut p, 20, u32::from(MASK_MARKER));
    let pd_flags = get16(&p, 10);
    put16(&mut p, 10, pd_flags & !PD_HINT_FLAGS);
    let (l, u, sp) = (
        usize::from(write::lower(&p)),
        usize::from(write::upper(&p)),
        usize::from(write::special(&p)),
    );
    if l > u || sp < u || l < PAGE_CONTENTS || sp > p.len() {
        return None;
    }
    p.get_mut(l..u)?.fill(MASK_MARKER);
    let o = opaque(&p).ok()?;
    let f = get16(&p, o.saturating_add(at(&bt::BTPO_FLAGS)));
    if version <= 13 && f & BTP_DELETED != 0 {
        // mask_page_content: everything after the header, and pd_lower and pd_upper.
        p.get_mut(PAGE_CONTENTS..)?.fill(MASK_MARKER);
        p.get_mut(12..16)?.fill(MASK_MARKER);
        return Some(p);
    }
    if f & BTP_LEAF != 0 {
        for off in 1..=max_offset(&p) {
            if let Some((lp_off, lp_flags, lp_len)) = write::item_id(&p, off) {
                if lp_flags != LP_UNUSED {
                    write::set_item_id(&mut p, off, lp_off, LP_UNUSED, lp_len);
                }
            }
        }
    }
    put16(
        &mut p,
        o.saturating_add(at(&bt::BTPO_FLAGS)),
        f & !(BTP_HAS_GARBAGE | BTP_SPLIT_END),
    );
    put16(&mut p, o.saturating_add(at(&bt::BTPO_CYCLEID)), 0);
    Some(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wal::{BlockRef, RelFileLocator};

    /// Noise for every Btree record type of every release, over an empty B-tree page and a
    /// page of noise: an error or a page, never a panic.
    #[test]
    fn garbage_records_and_pages_never_panic() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for version in 13..=19 {
            let s = RedoSettings {
                version,
                hint_bits_logged: true,
            };
            for info in (0..=0xF0u8).step_by(0x10) {
                for round in 0..40 {
                    let len = (next() % 300) as usize;
                    let bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
                    let split = (next() % (len as u64 + 1)) as u32;
                    let blocks: Vec<BlockRef> = (0..5u8)
                        .map(|id| BlockRef {
                            id,
                            locator: RelFileLocator::default(),
                            fork: 0,
                            block: (next() % 8) as u32,
                            will_init: false,
                            data_offset: 0,
                            data_length: split.min(u32::from(u16::MAX)) as u16,
                            image: None,
                        })
                        .collect();
                    let rec = WalRecord {
                        version,
                        lsn: 0x100_0000,
                        end_lsn: 0x100_0040,
                        timeline: 1,
                        xid: 1000,
                        rmid: 11,
                        info,
                        blocks: &blocks,
                        main_data_offset: split,
                        bytes: &bytes,
                        pieces: &[],
                    };
                    let mut page = alloc::vec![0u8; 8192];
                    if round % 2 == 0 {
                        bt_pageinit(&mut page).unwrap();
                        for i in 0..(next() % 20) {
                            let n = 8 + (next() % 4) as usize * 8;
                            let mut t = alloc::vec![0u8; n];
                            t.iter_mut().for_each(|b| *b = next() as u8);
                            put16(&mut t, 6, n as u16 | (next() as u16 & 0xE000));
                            let _ = add_index_item(&mut page, &t, i as u16 + 1);
                        }
                    } else {
                        page.iter_mut().for_each(|b| *b = next() as u8);
                    }
                    for id in 0..5 {
                        let _ = redo_btree_block(&s, &rec, id, &mut page);
                    }
                }
            }
        }
    }

    fn leaf_tuple(key: u8, tid: (u32, u16)) -> Vec<u8> {
        let mut t = alloc::vec![0u8; 16];
        put16(&mut t, 0, (tid.0 >> 16) as u16);
        put16(&mut t, 2, tid.0 as u16);
        put16(&mut t, 4, tid.1);
        put16(&mut t, 6, 16);
        t[8] = key;
        t
    }

    #[test]
    fn posting_lists_form_update_and_swap() {
        let base = leaf_tuple(7, (1, 1));
        let tids: Vec<[u8; 6]> = (1..=3u16)
            .map(|o| {
                let mut t = [0u8; 6];
                t[2..4].copy_from_slice(&1u16.to_le_bytes());
                t[4..6].copy_from_slice(&(o * 2).to_le_bytes());
                t
            })
            .collect();
        let p = form_posting(&base, 16, &tids).unwrap();
        let t = Tuple(&p);
        assert!(t.is_posting());
        assert_eq!(
            (t.size(), t.key_size(), t.htids().unwrap()),
            (40, 16, tids.clone())
        );
        let one = form_posting(&p, 16, &tids[1..2]).unwrap();
        assert_eq!((Tuple(&one).size(), Tuple(&one).is_posting()), (16, false));
        assert_eq!(&one[..6], &tids[1]);
        // A new TID (1,3) between the first two: it goes in, the last (1,6) goes to the new item.
        let mut newitem = leaf_tuple(7, (1, 3));
        let np = swap_posting(&mut newitem, &p, 1).unwrap();
        let got = Tuple(&np).htids().unwrap();
        assert_eq!(got[1][4], 3);
        assert_eq!(got[2], tids[1]);
        assert_eq!(&newitem[..6], &tids[2]);
        assert!(swap_posting(&mut newitem, &p, 3).is_err());
    }
}
