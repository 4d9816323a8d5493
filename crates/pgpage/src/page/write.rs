//! Writing a page as bufpage.c does, for redo: PageInit, PageAddItemExtended, the server's
//! compaction (PageRepairFragmentation, whose tuple order changed in 14 and which truncates the
//! line pointer array from 15), PageTruncateLinePointerArray, and the header's setters. Pages
//! are little-endian, as the WAL that redo reads is written by the same machine.

use alloc::vec::Vec;

use super::checksum::pg_checksum_page;
use super::fields::{LP_NORMAL, LP_UNUSED, PG_PAGE_LAYOUT_VERSION};
use crate::Endian;

/// SizeOfPageHeaderData.
pub const SIZE_OF_PAGE_HEADER: usize = 24;
/// pd_flags: PD_HAS_FREE_LINES.
const PD_HAS_FREE_LINES: u16 = 0x0001;

/// A page that cannot take the change redo asks of it: the server would PANIC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteError {
    /// pd_lower, pd_upper or pd_special out of order or past the page.
    CorruptPointers,
    /// A line pointer number past the array, or one that must be in use and is not.
    BadItem(u16),
    /// No room, or an offset the page cannot take.
    NoRoom,
}

pub fn maxalign(n: usize) -> Option<usize> {
    n.checked_add(7).map(|n| n & !7)
}

pub fn get16(page: &[u8], at: usize) -> u16 {
    match page.get(at..at.saturating_add(2)) {
        Some(&[a, b]) => u16::from_le_bytes([a, b]),
        _ => 0,
    }
}

pub fn put16(page: &mut [u8], at: usize, v: u16) {
    if let Some(s) = page.get_mut(at..at.saturating_add(2)) {
        s.copy_from_slice(&v.to_le_bytes());
    }
}

pub fn get32(page: &[u8], at: usize) -> u32 {
    page.get(at..at.saturating_add(4))
        .and_then(|s| <[u8; 4]>::try_from(s).ok())
        .map_or(0, u32::from_le_bytes)
}

pub fn put32(page: &mut [u8], at: usize, v: u32) {
    if let Some(s) = page.get_mut(at..at.saturating_add(4)) {
        s.copy_from_slice(&v.to_le_bytes());
    }
}

pub fn page_lsn(page: &[u8]) -> u64 {
    (u64::from(get32(page, 0)) << 32) | u64::from(get32(page, 4))
}

/// PageSetLSN: pd_lsn as two 32-bit halves, high first.
pub fn set_lsn(page: &mut [u8], lsn: u64) {
    put32(page, 0, (lsn >> 32) as u32);
    put32(page, 4, (lsn & 0xFFFF_FFFF) as u32);
}

pub fn flags(page: &[u8]) -> u16 {
    get16(page, 10)
}

pub fn set_flags(page: &mut [u8], flags: u16) {
    put16(page, 10, flags);
}

pub fn lower(page: &[u8]) -> u16 {
    get16(page, 12)
}

pub fn upper(page: &[u8]) -> u16 {
    get16(page, 14)
}

pub fn special(page: &[u8]) -> u16 {
    get16(page, 16)
}

pub fn prune_xid(page: &[u8]) -> u32 {
    get32(page, 20)
}

pub fn set_prune_xid(page: &mut [u8], xid: u32) {
    put32(page, 20, xid);
}

/// PageIsNew: pd_upper is 0.
pub fn is_new(page: &[u8]) -> bool {
    upper(page) == 0
}

/// TransactionIdPrecedes, with the wraparound comparison for normal xids.
pub fn xid_precedes(a: u32, b: u32) -> bool {
    if a < 3 || b < 3 {
        return a < b;
    }
    (a.wrapping_sub(b) as i32) < 0
}

/// PageSetPrunable: the oldest xid that may leave something to prune.
pub fn set_prunable(page: &mut [u8], xid: u32) {
    let old = prune_xid(page);
    if old == 0 || xid_precedes(xid, old) {
        set_prune_xid(page, xid);
    }
}

/// PageInit: zeros, then the header of an empty page with `special_size` bytes of special space.
pub fn page_init(page: &mut [u8], special_size: usize) -> Result<(), WriteError> {
    let size = page.len();
    let special_size = maxalign(special_size).ok_or(WriteError::CorruptPointers)?;
    let special = size
        .checked_sub(special_size)
        .filter(|s| *s >= SIZE_OF_PAGE_HEADER)
        .and_then(|s| u16::try_from(s).ok())
        .ok_or(WriteError::CorruptPointers)?;
    page.fill(0);
    put16(page, 12, SIZE_OF_PAGE_HEADER as u16);
    put16(page, 14, special);
    put16(page, 16, special);
    let size16 = u16::try_from(size & 0xFF00).map_err(|_| WriteError::CorruptPointers)?;
    put16(page, 18, size16 | PG_PAGE_LAYOUT_VERSION);
    Ok(())
}

/// The number of line pointers (PageGetMaxOffsetNumber).
pub fn max_offset(page: &[u8]) -> u16 {
    let l = usize::from(lower(page));
    u16::try_from(l.saturating_sub(SIZE_OF_PAGE_HEADER) / 4).unwrap_or(0)
}

fn lp_at(off: u16) -> Option<usize> {
    usize::from(off)
        .checked_sub(1)?
        .checked_mul(4)?
        .checked_add(SIZE_OF_PAGE_HEADER)
}

/// A line pointer: (lp_off, lp_flags, lp_len).
pub fn item_id(page: &[u8], off: u16) -> Option<(u16, u8, u16)> {
    if off == 0 || off > max_offset(page) {
        return None;
    }
    let w = get32(page, lp_at(off)?);
    Some(((w & 0x7FFF) as u16, ((w >> 15) & 3) as u8, (w >> 17) as u16))
}

pub fn set_item_id(page: &mut [u8], off: u16, lp_off: u16, lp_flags: u8, lp_len: u16) {
    if let Some(at) = lp_at(off) {
        let w = u32::from(lp_off & 0x7FFF)
            | (u32::from(lp_flags & 3) << 15)
            | (u32::from(lp_len & 0x7FFF) << 17);
        put32(page, at, w);
    }
}

/// Where a normal item's bytes lie (PageGetItem), checked against the page.
pub fn item_range(page: &[u8], off: u16) -> Result<core::ops::Range<usize>, WriteError> {
    match item_id(page, off) {
        Some((lp_off, LP_NORMAL, lp_len)) if lp_len > 0 => {
            let start = usize::from(lp_off);
            let end = start.saturating_add(usize::from(lp_len));
            if end <= page.len() {
                Ok(start..end)
            } else {
                Err(WriteError::BadItem(off))
            }
        }
        _ => Err(WriteError::BadItem(off)),
    }
}

fn check_pointers(page: &[u8]) -> Result<(u16, u16, u16), WriteError> {
    let (l, u, s) = (lower(page), upper(page), special(page));
    if usize::from(l) < SIZE_OF_PAGE_HEADER || l > u || u > s || usize::from(s) > page.len() {
        return Err(WriteError::CorruptPointers);
    }
    Ok((l, u, s))
}

/// PageAddItemExtended with a given offset, as heap redo calls it (PAI_OVERWRITE and
/// PAI_IS_HEAP): the item goes at `offnum`, a new line pointer or an unused one.
pub fn add_item_overwrite(
    page: &mut [u8],
    item: &[u8],
    offnum: u16,
    max_heap_tuples: u16,
) -> Result<u16, WriteError> {
    let (l, u, _) = check_pointers(page)?;
    let limit = max_offset(page).saturating_add(1);
    if offnum == 0 || offnum > limit || offnum > max_heap_tuples {
        return Err(WriteError::NoRoom);
    }
    if offnum < limit {
        match item_id(page, offnum) {
            Some((_, flags, len)) if flags != LP_UNUSED || len != 0 => {
                return Err(WriteError::BadItem(offnum))
            }
            _ => {}
        }
    }
    let new_lower = if offnum == limit {
        usize::from(l).saturating_add(4)
    } else {
        usize::from(l)
    };
    let aligned = maxalign(item.len()).ok_or(WriteError::NoRoom)?;
    let new_upper = usize::from(u)
        .checked_sub(aligned)
        .ok_or(WriteError::NoRoom)?;
    if new_lower > new_upper {
        return Err(WriteError::NoRoom);
    }
    let len = u16::try_from(item.len()).map_err(|_| WriteError::NoRoom)?;
    let upper16 = u16::try_from(new_upper).map_err(|_| WriteError::NoRoom)?;
    let lower16 = u16::try_from(new_lower).map_err(|_| WriteError::NoRoom)?;
    put16(page, 12, lower16);
    set_item_id(page, offnum, upper16, LP_NORMAL, len);
    page.get_mut(new_upper..new_upper.saturating_add(item.len()))
        .ok_or(WriteError::NoRoom)?
        .copy_from_slice(item);
    put16(page, 14, upper16);
    Ok(offnum)
}

/// PageRepairFragmentation of `version`: line pointers without storage that are not in use
/// are cleared, the tuples are moved together at the page's end (13 keeps their physical
/// order; 14's compactify_tuples places them in line pointer order), 15 and later drop
/// trailing unused line pointers, and PD_HAS_FREE_LINES says whether unused ones remain.
/// Only the bytes the tuples move to are written: the freed space keeps what it held.
pub fn repair_fragmentation(page: &mut [u8], version: u32) -> Result<(), WriteError> {
    let (l, u, s) = check_pointers(page)?;
    if s % 8 != 0 {
        return Err(WriteError::CorruptPointers);
    }
    let nline = max_offset(page);
    let mut items: Vec<(u16, usize, usize)> = Vec::new();
    let mut nunused = 0u16;
    let mut final_used = 0u16;
    let mut totallen = 0usize;
    for off in 1..=nline {
        let Some((lp_off, lp_flags, lp_len)) = item_id(page, off) else {
            continue;
        };
        if lp_flags != LP_UNUSED {
            final_used = off;
            if lp_len != 0 {
                if lp_off < u || lp_off >= s {
                    return Err(WriteError::BadItem(off));
                }
                let aligned = maxalign(usize::from(lp_len)).ok_or(WriteError::CorruptPointers)?;
                totallen = totallen.saturating_add(aligned);
                items.push((off, usize::from(lp_off), aligned));
            }
        } else {
            set_item_id(page, off, 0, LP_UNUSED, 0);
            nunused = nunused.saturating_add(1);
        }
    }
    let mut new_lower = l;
    if version >= 15 && final_used != nline {
        let trailing = nline.saturating_sub(final_used);
        nunused = nunused.saturating_sub(trailing);
        new_lower = new_lower.saturating_sub(trailing.saturating_mul(4));
    }
    if items.is_empty() {
        put16(page, 14, s);
    } else {
        if totallen > usize::from(s.saturating_sub(l)) {
            return Err(WriteError::CorruptPointers);
        }
        if version <= 13 {
            items.sort_by_key(|item| core::cmp::Reverse(item.1));
        }
        let scratch = page.to_vec();
        let mut upper = usize::from(s);
        for &(off, from, aligned) in &items {
            upper = upper
                .checked_sub(aligned)
                .ok_or(WriteError::CorruptPointers)?;
            let src = scratch
                .get(from..from.saturating_add(aligned))
                .ok_or(WriteError::BadItem(off))?;
            page.get_mut(upper..upper.saturating_add(aligned))
                .ok_or(WriteError::BadItem(off))?
                .copy_from_slice(src);
            let (_, fl, len) = item_id(page, off).unwrap_or((0, LP_NORMAL, 0));
            set_item_id(page, off, u16::try_from(upper).unwrap_or(0), fl, len);
        }
        put16(
            page,
            14,
            u16::try_from(upper).map_err(|_| WriteError::CorruptPointers)?,
        );
    }
    put16(page, 12, new_lower);
    let f = flags(page);
    set_flags(
        page,
        if nunused > 0 {
            f | PD_HAS_FREE_LINES
        } else {
            f & !PD_HAS_FREE_LINES
        },
    );
    Ok(())
}

/// PageAddItemExtended for an index page (no flags): the item goes at `offnum`, the line
/// pointers from there on move up one place, and `item.len()` bytes are copied (the rest of
/// the MAXALIGN'd room keeps what it held).
pub fn add_index_item(page: &mut [u8], item: &[u8], offnum: u16) -> Result<u16, WriteError> {
    let (l, u, _) = check_pointers(page)?;
    let limit = max_offset(page).saturating_add(1);
    if offnum == 0 || offnum > limit {
        return Err(WriteError::NoRoom);
    }
    let new_lower = usize::from(l).saturating_add(4);
    let aligned = maxalign(item.len()).ok_or(WriteError::NoRoom)?;
    let new_upper = usize::from(u)
        .checked_sub(aligned)
        .ok_or(WriteError::NoRoom)?;
    if new_lower > new_upper {
        return Err(WriteError::NoRoom);
    }
    let len = u16::try_from(item.len()).map_err(|_| WriteError::NoRoom)?;
    let upper16 = u16::try_from(new_upper).map_err(|_| WriteError::NoRoom)?;
    let lower16 = u16::try_from(new_lower).map_err(|_| WriteError::NoRoom)?;
    let at = lp_at(offnum).ok_or(WriteError::NoRoom)?;
    if offnum < limit {
        page.copy_within(at..usize::from(l), at.saturating_add(4));
    }
    set_item_id(page, offnum, upper16, LP_NORMAL, len);
    page.get_mut(new_upper..new_upper.saturating_add(item.len()))
        .ok_or(WriteError::NoRoom)?
        .copy_from_slice(item);
    put16(page, 12, lower16);
    put16(page, 14, upper16);
    Ok(offnum)
}

/// The paranoia of PageIndexTupleDelete and its kin: pointers in order and pd_special
/// MAXALIGN'd; then the item at `offnum` in use, MAXALIGN'd and inside the tuple space.
fn index_item_checked(page: &[u8], offnum: u16) -> Result<(usize, usize), WriteError> {
    let (_, u, s) = check_pointers(page)?;
    if s % 8 != 0 {
        return Err(WriteError::CorruptPointers);
    }
    let (off, _, len) = item_id(page, offnum).ok_or(WriteError::BadItem(offnum))?;
    let (off, len) = (usize::from(off), usize::from(len));
    if off < usize::from(u) || off.saturating_add(len) > usize::from(s) || !off.is_multiple_of(8) {
        return Err(WriteError::BadItem(offnum));
    }
    Ok((off, len))
}

/// PageIndexTupleDelete: the line pointer array closes up over `offnum`, and the tuples
/// below the deleted one move up by its MAXALIGN'd size (memmove: the bytes they leave keep
/// what they held, as does the array's old last slot).
pub fn index_tuple_delete(page: &mut [u8], offnum: u16) -> Result<(), WriteError> {
    let (offset, len) = index_item_checked(page, offnum)?;
    let size = maxalign(len).ok_or(WriteError::CorruptPointers)?;
    let (l, u) = (usize::from(lower(page)), usize::from(upper(page)));
    let at = lp_at(offnum).ok_or(WriteError::BadItem(offnum))?;
    let next = at.saturating_add(4);
    if l > next {
        page.copy_within(next..l, at);
    }
    if offset > u {
        page.copy_within(u..offset, u.saturating_add(size));
    }
    let new_upper = u16::try_from(u.saturating_add(size)).map_err(|_| WriteError::NoRoom)?;
    put16(page, 14, new_upper);
    put16(page, 12, u16::try_from(l.saturating_sub(4)).unwrap_or(0));
    if usize::from(lower(page)) > SIZE_OF_PAGE_HEADER {
        for i in 1..=max_offset(page) {
            if let Some((o, f, n)) = item_id(page, i) {
                if usize::from(o) <= offset {
                    let moved = u16::try_from(usize::from(o).saturating_add(size)).unwrap_or(0);
                    set_item_id(page, i, moved, f, n);
                }
            }
        }
    }
    Ok(())
}

/// The tuples that stay, in the order compactify_tuples places them: (line pointer number
/// after the change, tuple offset, MAXALIGN'd length). 13 packs them by decreasing offset, 14
/// and later in line pointer order; only the bytes the tuples move to are written.
fn compactify(
    page: &mut [u8],
    mut items: Vec<(u16, usize, usize)>,
    version: u32,
) -> Result<(), WriteError> {
    let s = usize::from(special(page));
    if version <= 13 {
        items.sort_by_key(|item| core::cmp::Reverse(item.1));
    }
    let scratch = page.to_vec();
    let mut upper = s;
    for &(lp, from, aligned) in &items {
        upper = upper
            .checked_sub(aligned)
            .ok_or(WriteError::CorruptPointers)?;
        let src = scratch
            .get(from..from.saturating_add(aligned))
            .ok_or(WriteError::BadItem(lp))?;
        page.get_mut(upper..upper.saturating_add(aligned))
            .ok_or(WriteError::BadItem(lp))?
            .copy_from_slice(src);
        let (_, fl, len) = item_id(page, lp).ok_or(WriteError::BadItem(lp))?;
        set_item_id(page, lp, u16::try_from(upper).unwrap_or(0), fl, len);
    }
    put16(
        page,
        14,
        u16::try_from(upper).map_err(|_| WriteError::CorruptPointers)?,
    );
    Ok(())
}

/// PageIndexMultiDelete of `version`: two items or fewer go one at a time (last first) by
/// PageIndexTupleDelete; more, by rewriting the line pointer array without them (its old
/// tail left as it was) and compacting the tuples that stay. `itemnos` must be ascending.
pub fn index_multi_delete(
    page: &mut [u8],
    itemnos: &[u16],
    version: u32,
) -> Result<(), WriteError> {
    if itemnos.len() <= 2 {
        for &off in itemnos.iter().rev() {
            index_tuple_delete(page, off)?;
        }
        return Ok(());
    }
    let (l, u, s) = check_pointers(page)?;
    if s % 8 != 0 {
        return Err(WriteError::CorruptPointers);
    }
    let nline = max_offset(page);
    let mut kept: Vec<(u16, u16, u8, u16)> = Vec::new();
    let mut next = 0usize;
    let mut totallen = 0usize;
    for off in 1..=nline {
        let (o, f, n) = item_id(page, off).ok_or(WriteError::BadItem(off))?;
        if o < u
            || usize::from(o).saturating_add(usize::from(n)) > usize::from(s)
            || !o.is_multiple_of(8)
        {
            return Err(WriteError::BadItem(off));
        }
        if itemnos.get(next) == Some(&off) {
            next = next.saturating_add(1);
        } else {
            totallen = totallen.saturating_add(maxalign(usize::from(n)).unwrap_or(usize::MAX));
            kept.push((off, o, f, n));
        }
    }
    if next != itemnos.len() {
        return Err(WriteError::BadItem(itemnos.get(next).copied().unwrap_or(0)));
    }
    if totallen > usize::from(s.saturating_sub(l)) {
        return Err(WriteError::CorruptPointers);
    }
    let mut items = Vec::with_capacity(kept.len());
    for (i, &(_, o, f, n)) in kept.iter().enumerate() {
        let lp = u16::try_from(i.saturating_add(1)).map_err(|_| WriteError::NoRoom)?;
        let at = lp_at(lp).ok_or(WriteError::NoRoom)?;
        let w = u32::from(o & 0x7FFF) | (u32::from(f & 3) << 15) | (u32::from(n & 0x7FFF) << 17);
        put32(page, at, w);
        items.push((lp, usize::from(o), maxalign(usize::from(n)).unwrap_or(0)));
    }
    let new_lower = SIZE_OF_PAGE_HEADER.saturating_add(kept.len().saturating_mul(4));
    put16(page, 12, u16::try_from(new_lower).unwrap_or(0));
    if items.is_empty() {
        put16(page, 14, s);
        Ok(())
    } else {
        compactify(page, items, version)
    }
}

/// PageIndexTupleOverwrite: the item at `offnum` replaced by `newtup`, the tuples below it
/// moved by the change in MAXALIGN'd size, its line pointer's flags kept.
pub fn index_tuple_overwrite(
    page: &mut [u8],
    offnum: u16,
    newtup: &[u8],
) -> Result<(), WriteError> {
    let (offset, oldlen) = index_item_checked(page, offnum)?;
    let oldsize = maxalign(oldlen).ok_or(WriteError::CorruptPointers)?;
    let newsize = maxalign(newtup.len()).ok_or(WriteError::NoRoom)?;
    let (l, u) = (usize::from(lower(page)), usize::from(upper(page)));
    if newsize > oldsize.saturating_add(u.saturating_sub(l)) {
        return Err(WriteError::NoRoom);
    }
    // size_diff may be negative: the tuple grows and the ones below it move down.
    let new_offset = offset
        .checked_add(oldsize)
        .and_then(|e| e.checked_sub(newsize))
        .ok_or(WriteError::NoRoom)?;
    let new_upper = u
        .checked_add(oldsize)
        .and_then(|e| e.checked_sub(newsize))
        .ok_or(WriteError::NoRoom)?;
    if oldsize != newsize {
        page.copy_within(u..offset, new_upper);
        put16(
            page,
            14,
            u16::try_from(new_upper).map_err(|_| WriteError::NoRoom)?,
        );
        for i in 1..=max_offset(page) {
            if let Some((o, f, n)) = item_id(page, i) {
                if n != 0 && usize::from(o) <= offset {
                    let moved = usize::from(o)
                        .checked_add(oldsize)
                        .and_then(|e| e.checked_sub(newsize))
                        .ok_or(WriteError::NoRoom)?;
                    set_item_id(page, i, u16::try_from(moved).unwrap_or(0), f, n);
                }
            }
        }
    }
    let (_, f, _) = item_id(page, offnum).ok_or(WriteError::BadItem(offnum))?;
    let len = u16::try_from(newtup.len()).map_err(|_| WriteError::NoRoom)?;
    set_item_id(page, offnum, u16::try_from(new_offset).unwrap_or(0), f, len);
    page.get_mut(new_offset..new_offset.saturating_add(newtup.len()))
        .ok_or(WriteError::NoRoom)?
        .copy_from_slice(newtup);
    Ok(())
}

/// PageGetTempPageCopySpecial: a new empty page (PageInit's zeros and header) with the same
/// special space, bytes and all.
pub fn temp_page_copy_special(page: &[u8]) -> Result<Vec<u8>, WriteError> {
    let (_, _, s) = check_pointers(page)?;
    let s = usize::from(s);
    let mut temp = alloc::vec![0u8; page.len()];
    page_init(&mut temp, page.len().saturating_sub(s))?;
    if usize::from(special(&temp)) != s {
        return Err(WriteError::CorruptPointers);
    }
    if let (Some(to), Some(from)) = (temp.get_mut(s..), page.get(s..)) {
        to.copy_from_slice(from);
    }
    Ok(temp)
}

/// PageTruncateLinePointerArray (14 and later): drops the unused line pointers at the array's
/// end (never the first), and sets PD_HAS_FREE_LINES when unused ones remain before them.
pub fn truncate_line_pointer_array(page: &mut [u8]) {
    let mut countdone = false;
    let mut sethint = false;
    let mut nunusedend = 0u16;
    let mut i = max_offset(page);
    while i >= 1 {
        let used = item_id(page, i).is_some_and(|(_, f, _)| f != LP_UNUSED);
        if !countdone && i > 1 {
            if !used {
                nunusedend = nunusedend.saturating_add(1);
            } else {
                countdone = true;
            }
        } else if !used {
            sethint = true;
            break;
        }
        i = i.saturating_sub(1);
    }
    if nunusedend > 0 {
        let l = lower(page).saturating_sub(nunusedend.saturating_mul(4));
        put16(page, 12, l);
    }
    let f = flags(page);
    set_flags(
        page,
        if sethint {
            f | PD_HAS_FREE_LINES
        } else {
            f & !PD_HAS_FREE_LINES
        },
    );
}

/// PageGetFreeSpace: the room between the line pointers and the tuples, less one line
/// pointer.
pub fn free_space(page: &[u8]) -> usize {
    usize::from(upper(page))
        .saturating_sub(usize::from(lower(page)))
        .saturating_sub(4)
}

/// PageGetHeapFreeSpace: PageGetFreeSpace, but none when the page has MaxHeapTuplesPerPage
/// line pointers and none of them is unused.
pub fn heap_free_space(page: &[u8], max_heap_tuples: u16) -> usize {
    let space = free_space(page);
    let nline = max_offset(page);
    if space == 0 || nline < max_heap_tuples {
        return space;
    }
    let any_unused = flags(page) & PD_HAS_FREE_LINES != 0
        && (1..=nline).any(|o| item_id(page, o).is_some_and(|(_, f, _)| f == LP_UNUSED));
    if any_unused {
        space
    } else {
        0
    }
}

/// The checksum the server writes with the page (PageSetChecksumCopy) for the block's
/// relation-wide number; a new (all-zero header) page keeps none.
pub fn set_checksum(page: &mut [u8], blkno: u32) {
    if is_new(page) {
        return;
    }
    let sum = pg_checksum_page(page, blkno, Endian::Little);
    put16(page, 8, sum);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page_with(items: &[&[u8]]) -> Vec<u8> {
        let mut p = alloc::vec![0u8; 8192];
        page_init(&mut p, 0).unwrap();
        for (i, it) in items.iter().enumerate() {
            add_item_overwrite(&mut p, it, i as u16 + 1, 291).unwrap();
        }
        p
    }

    #[test]
    fn init_and_add_lay_items_from_the_end() {
        let p = page_with(&[&[1u8; 30], &[2u8; 8]]);
        assert_eq!(
            (lower(&p), upper(&p), special(&p)),
            (32, 8192 - 32 - 8, 8192)
        );
        assert_eq!(get16(&p, 18), 0x2004);
        assert_eq!(item_id(&p, 1), Some((8160, LP_NORMAL, 30)));
        assert_eq!(item_id(&p, 2), Some((8152, LP_NORMAL, 8)));
        let mut q = p.clone();
        assert_eq!(
            add_item_overwrite(&mut q, &[0; 4], 1, 291),
            Err(WriteError::BadItem(1))
        );
        assert_eq!(
            add_item_overwrite(&mut q, &[0; 4], 4, 291),
            Err(WriteError::NoRoom)
        );
    }

    #[test]
    fn compaction_order_changed_in_14() {
        // Item 1 placed below item 2: 13 keeps the physical order, 14 the line pointer order.
        let mut p = page_with(&[&[1u8; 16], &[2u8; 16], &[3u8; 16]]);
        set_item_id(&mut p, 1, 0, LP_UNUSED, 0);
        let (o2, _, _) = item_id(&p, 2).unwrap();
        let (o3, _, _) = item_id(&p, 3).unwrap();
        set_item_id(&mut p, 2, o3, LP_NORMAL, 16);
        set_item_id(&mut p, 3, o2, LP_NORMAL, 16);
        let mut a = p.clone();
        repair_fragmentation(&mut a, 13).unwrap();
        assert_eq!(item_id(&a, 3).unwrap().0, 8176);
        assert_eq!(flags(&a) & PD_HAS_FREE_LINES, PD_HAS_FREE_LINES);
        let mut b = p.clone();
        repair_fragmentation(&mut b, 14).unwrap();
        assert_eq!(item_id(&b, 2).unwrap().0, 8176);
        assert_eq!(&b[8176..8192], &[3u8; 16]);
        assert_eq!(upper(&b), 8160);
    }

    #[test]
    fn fifteen_truncates_trailing_unused_pointers() {
        let mut p = page_with(&[&[1u8; 16], &[2u8; 16]]);
        set_item_id(&mut p, 2, 0, LP_UNUSED, 0);
        let mut a = p.clone();
        repair_fragmentation(&mut a, 14).unwrap();
        assert_eq!(lower(&a), 32);
        let mut b = p.clone();
        repair_fragmentation(&mut b, 15).unwrap();
        assert_eq!((lower(&b), flags(&b) & PD_HAS_FREE_LINES), (28, 0));
        let mut c = p;
        truncate_line_pointer_array(&mut c);
        assert_eq!(lower(&c), 28);
    }

    #[test]
    fn garbage_pointers_are_errors() {
        let mut p = alloc::vec![0xABu8; 8192];
        assert!(repair_fragmentation(&mut p, 16).is_err());
        assert!(add_item_overwrite(&mut p, &[1], 1, 291).is_err());
        truncate_line_pointer_array(&mut p);
    }
}
