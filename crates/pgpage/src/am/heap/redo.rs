//! Heap redo (heapam_xlog.c; heapam.c before 17): a Heap or Heap2 record applied to one of the
//! pages it references, as that release's redo routine changes it, and the visibility-map
//! bits the record clears or sets. The caller decides whether the page needs the record
//! (XLogReadBufferForRedo's LSN rule) and restores images; this module only changes pages.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::am::heap::layout::{FROZEN_TRANSACTION_ID, HEAP_HOT_UPDATED};
use crate::am::maps::layout::{VISIBILITYMAP_ALL_FROZEN, VISIBILITYMAP_ALL_VISIBLE};
use crate::am::maps::redo::{vm_clear, vm_page_ready, vm_position, vm_set};
use crate::page::fields::{
    HEAP_XMAX_EXCL_LOCK, HEAP_XMAX_IS_MULTI, HEAP_XMAX_KEYSHR_LOCK, HEAP_XMAX_LOCK_ONLY,
    HEAP_XMIN_FROZEN, LP_DEAD, LP_REDIRECT, LP_UNUSED, PD_ALL_VISIBLE,
};
use crate::page::kind::VISIBILITYMAP_FORKNUM;
use crate::page::write::{
    self, add_item_overwrite, get16, item_range, page_init, put16, put32, repair_fragmentation,
    set_lsn, set_prunable, truncate_line_pointer_array,
};
use crate::tuple::SIZEOF_HEAP_TUPLE_HEADER;
use crate::wal::rmgr::heap::{
    self as rec_heap, multi_insert_tuples, tuple_header, FreezePlan, HeapRecord, PruneItems,
    SIZE_OF_HEAP_HEADER, VISIBILITYMAP_VALID_BITS, XLHP_CLEANUP_LOCK, XLHP_VM_ALL_FROZEN,
    XLHP_VM_ALL_VISIBLE, XLH_DELETE_ALL_VISIBLE_CLEARED, XLH_DELETE_IS_PARTITION_MOVE,
    XLH_DELETE_IS_SUPER, XLH_FREEZE_XVAC, XLH_INSERT_ALL_FROZEN_SET,
    XLH_INSERT_ALL_VISIBLE_CLEARED, XLH_INVALID_XVAC, XLH_LOCK_ALL_FROZEN_CLEARED,
    XLH_UPDATE_NEW_ALL_VISIBLE_CLEARED, XLH_UPDATE_OLD_ALL_VISIBLE_CLEARED,
    XLH_UPDATE_PREFIX_FROM_OLD, XLH_UPDATE_SUFFIX_FROM_OLD,
};
use crate::wal::{RelFileLocator, WalRecord};

/// htup_details.h HeapTupleHeaderData: where each field lies.
const XMIN_AT: usize = 0;
const XMAX_AT: usize = 4;
const FIELD3_AT: usize = 8;
const CTID_AT: usize = 12;
const INFOMASK2_AT: usize = 18;
const INFOMASK_AT: usize = 20;
const HOFF_AT: usize = 22;

/// htup_details.h: t_cid holds a combo CID.
const HEAP_COMBOCID: u16 = 0x0020;
/// htup_details.h HEAP_XMAX_BITS: every bit about xmax.
const HEAP_XMAX_BITS: u16 = 0x1CD0;
/// htup_details.h HEAP_MOVED: MOVED_OFF | MOVED_IN (old VACUUM FULL).
const HEAP_MOVED: u16 = 0xC000;
/// htup_details.h: t_infomask2's key-columns-updated bit.
const HEAP_KEYS_UPDATED: u16 = 0x2000;

/// What redo needs to know beyond the record: the WAL's release, and XLogHintBitIsNeeded
/// (data checksums or wal_log_hints on the server that replays).
#[derive(Clone, Copy, Debug)]
pub struct RedoSettings {
    pub version: u32,
    pub hint_bits_logged: bool,
}

/// Why a record could not be applied to a page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RedoError {
    /// A record kind pgpage does not replay.
    NotApplied,
    /// The record or the page does not hold what redo needs (the server would PANIC).
    Invalid(String),
}

fn invalid(e: impl core::fmt::Debug) -> RedoError {
    RedoError::Invalid(format!("{e:?}"))
}

/// MaxHeapTuplesPerPage for a block size.
fn max_heap_tuples(block_size: usize) -> u16 {
    u16::try_from(block_size.saturating_sub(24) / 28).unwrap_or(u16::MAX)
}

/// The tuple header at a normal line pointer, its start offset in the page.
fn tuple_at(page: &[u8], off: u16) -> Result<(usize, usize), RedoError> {
    let r = item_range(page, off).map_err(|_| RedoError::Invalid(format!("invalid lp {off}")))?;
    if r.len() < SIZEOF_HEAP_TUPLE_HEADER {
        return Err(RedoError::Invalid(format!("invalid lp {off}")));
    }
    Ok((r.start, r.len()))
}

fn set_ctid(page: &mut [u8], t: usize, block: u32, off: u16) {
    let at = t.saturating_add(CTID_AT);
    put16(page, at, (block >> 16) as u16);
    put16(page, at.saturating_add(2), (block & 0xFFFF) as u16);
    put16(page, at.saturating_add(4), off);
}

/// fix_infomask_from_infobits.
fn fix_infomask(infobits: u8, infomask: &mut u16, infomask2: &mut u16) {
    *infomask &=
        !(HEAP_XMAX_IS_MULTI | HEAP_XMAX_LOCK_ONLY | HEAP_XMAX_KEYSHR_LOCK | HEAP_XMAX_EXCL_LOCK);
    *infomask2 &= !HEAP_KEYS_UPDATED;
    if infobits & 0x01 != 0 {
        *infomask |= HEAP_XMAX_IS_MULTI;
    }
    if infobits & 0x02 != 0 {
        *infomask |= HEAP_XMAX_LOCK_ONLY;
    }
    if infobits & 0x04 != 0 {
        *infomask |= HEAP_XMAX_EXCL_LOCK;
    }
    if infobits & 0x08 != 0 {
        *infomask |= HEAP_XMAX_KEYSHR_LOCK;
    }
    if infobits & 0x10 != 0 {
        *infomask2 |= HEAP_KEYS_UPDATED;
    }
}

/// What delete, update, lock and lock-updated do to the old tuple's xmax side: xmax bits
/// cleared, then the logged ones set.
fn set_xmax_bits(page: &mut [u8], t: usize, infobits: u8) -> (u16, u16) {
    let mut m = get16(page, t.saturating_add(INFOMASK_AT)) & !(HEAP_XMAX_BITS | HEAP_MOVED);
    let mut m2 = get16(page, t.saturating_add(INFOMASK2_AT)) & !HEAP_KEYS_UPDATED;
    fix_infomask(infobits, &mut m, &mut m2);
    (m, m2)
}

fn put_masks(page: &mut [u8], t: usize, m: u16, m2: u16) {
    put16(page, t.saturating_add(INFOMASK_AT), m);
    put16(page, t.saturating_add(INFOMASK2_AT), m2);
}

/// HeapTupleHeaderSetCmax/SetCmin with FirstCommandId: t_cid 0, not a combo CID.
fn set_cid_first(page: &mut [u8], t: usize) {
    put32(page, t.saturating_add(FIELD3_AT), 0);
    let m = get16(page, t.saturating_add(INFOMASK_AT)) & !HEAP_COMBOCID;
    put16(page, t.saturating_add(INFOMASK_AT), m);
}

fn flag_page(page: &mut [u8], set: u16, clear: u16) {
    let f = write::flags(page);
    write::set_flags(page, (f | set) & !clear);
}

/// A fresh tuple as heap_xlog_insert builds it: header zeroed, the logged masks and t_hoff,
/// xmin the record's xid, cmin 0, ctid its own place.
fn build_tuple(h: rec_heap::TupleHeader, data: &[u8], xid: u32, block: u32, off: u16) -> Vec<u8> {
    let mut t = alloc::vec![0u8; SIZEOF_HEAP_TUPLE_HEADER];
    t.extend_from_slice(data);
    put16(&mut t, INFOMASK2_AT, h.t_infomask2);
    put16(&mut t, INFOMASK_AT, h.t_infomask & !HEAP_COMBOCID);
    if let Some(b) = t.get_mut(HOFF_AT) {
        *b = h.t_hoff;
    }
    put32(&mut t, XMIN_AT, xid);
    set_ctid(&mut t, 0, block, off);
    t
}

fn decode(rec: &WalRecord<'_>) -> Result<HeapRecord, RedoError> {
    match rec_heap::decode(rec.version, rec.rmid, rec.info, rec.main_data()) {
        Some(Ok(d)) => Ok(d),
        Some(Err(e)) => Err(RedoError::Invalid(e.0)),
        None => Err(RedoError::NotApplied),
    }
}

/// The heap blocks whose visibility-map bits a record clears, and which bits.
fn vm_clears(rec: &WalRecord<'_>, d: &HeapRecord) -> Vec<(RelFileLocator, u32, u8)> {
    let mut out = Vec::new();
    let b0 = rec.block_ref(0);
    let mut push = |b: Option<&crate::wal::BlockRef>, flags: u8| {
        if let Some(b) = b {
            out.push((b.locator, b.block, flags));
        }
    };
    match d {
        HeapRecord::Insert { flags, .. } | HeapRecord::MultiInsert { flags, .. }
            if flags & XLH_INSERT_ALL_VISIBLE_CLEARED != 0 =>
        {
            push(b0, VISIBILITYMAP_VALID_BITS)
        }
        HeapRecord::Delete { flags, .. } if flags & XLH_DELETE_ALL_VISIBLE_CLEARED != 0 => {
            push(b0, VISIBILITYMAP_VALID_BITS)
        }
        HeapRecord::Lock { flags, .. } | HeapRecord::LockUpdated { flags, .. }
            if flags & XLH_LOCK_ALL_FROZEN_CLEARED != 0 =>
        {
            push(b0, VISIBILITYMAP_ALL_FROZEN)
        }
        HeapRecord::Update { flags, .. } => {
            let old = rec.block_ref(1).or(b0);
            if flags & XLH_UPDATE_OLD_ALL_VISIBLE_CLEARED != 0 {
                push(old, VISIBILITYMAP_VALID_BITS);
            }
            if flags & XLH_UPDATE_NEW_ALL_VISIBLE_CLEARED != 0 {
                push(b0, VISIBILITYMAP_VALID_BITS);
            }
        }
        _ => {}
    }
    out
}

/// The map pages a record of the older form changes without naming them: (relation, map
/// block, heap block, bits to clear). Redo clears them whatever the map page's LSN and leaves
/// that LSN alone.
pub fn unregistered_vm_clears(
    rec: &WalRecord<'_>,
    block_size: usize,
) -> Vec<(RelFileLocator, u32, u32, u8)> {
    if rec.rmid != rec_heap::RM_HEAP_ID && rec.rmid != rec_heap::RM_HEAP2_ID {
        return Vec::new();
    }
    if rec.blocks.iter().any(|b| b.fork == VISIBILITYMAP_FORKNUM) {
        return Vec::new();
    }
    let Ok(d) = decode(rec) else {
        return Vec::new();
    };
    vm_clears(rec, &d)
        .into_iter()
        .filter_map(|(l, heap_block, flags)| {
            let (map_block, _, _) = vm_position(heap_block, block_size)?;
            Some((l, map_block, heap_block, flags))
        })
        .collect()
}

/// Applies `rec` to the page of its block reference `block_id`, which needs redo (or was just
/// zeroed for a block the record initialises). Returns whether the page changed so that the
/// server would write it.
pub fn redo_heap_block(
    s: &RedoSettings,
    rec: &WalRecord<'_>,
    block_id: u8,
    page: &mut [u8],
) -> Result<bool, RedoError> {
    let d = decode(rec)?;
    let b = rec
        .block_ref(block_id)
        .ok_or_else(|| RedoError::Invalid(String::from("no such block reference")))?;
    let lsn = rec.end_lsn;
    let xid = rec.xid;
    let v = s.version;
    if b.fork == VISIBILITYMAP_FORKNUM {
        return redo_vm_block(s, rec, &d, block_id, page);
    }
    let data = rec.block_data(b);
    match &d {
        HeapRecord::Insert { offnum, flags } => {
            if rec_heap::is_init(rec.info) {
                page_init(page, 0).map_err(invalid)?;
            }
            let h = tuple_header(data).map_err(|e| RedoError::Invalid(e.0))?;
            let body = data.get(SIZE_OF_HEAP_HEADER..).unwrap_or(&[]);
            let t = build_tuple(h, body, xid, b.block, *offnum);
            add_item_overwrite(page, &t, *offnum, max_heap_tuples(page.len()))
                .map_err(|_| RedoError::Invalid(String::from("failed to add tuple")))?;
            if v >= 19 && is_normal_xid(xid) && h.t_infomask & HEAP_XMIN_FROZEN != HEAP_XMIN_FROZEN
            {
                set_prunable(page, xid);
            }
            set_lsn(page, lsn);
            if flags & XLH_INSERT_ALL_VISIBLE_CLEARED != 0 {
                flag_page(page, 0, PD_ALL_VISIBLE);
            }
        }
        HeapRecord::MultiInsert {
            flags,
            ntuples,
            offsets,
        } => {
            let init = rec_heap::is_init(rec.info);
            if init {
                page_init(page, 0).map_err(invalid)?;
            }
            let tuples =
                multi_insert_tuples(data, *ntuples).map_err(|e| RedoError::Invalid(e.0))?;
            for (i, t) in tuples.iter().enumerate() {
                let off = if init {
                    u16::try_from(i.saturating_add(1)).map_err(invalid)?
                } else {
                    *offsets
                        .get(i)
                        .ok_or_else(|| RedoError::Invalid(String::from("offsets")))?
                };
                let tuple = build_tuple(t.header, t.data, xid, b.block, off);
                add_item_overwrite(page, &tuple, off, max_heap_tuples(page.len()))
                    .map_err(|_| RedoError::Invalid(String::from("failed to add tuple")))?;
            }
            set_lsn(page, lsn);
            if flags & XLH_INSERT_ALL_VISIBLE_CLEARED != 0 {
                flag_page(page, 0, PD_ALL_VISIBLE);
            }
            if flags & XLH_INSERT_ALL_FROZEN_SET != 0 {
                flag_page(page, PD_ALL_VISIBLE, 0);
                if v >= 19 {
                    write::set_prune_xid(page, 0);
                }
            } else if v >= 19 {
                set_prunable(page, xid);
            }
        }
        HeapRecord::Update {
            hot,
            old_xmax,
            old_offnum,
            old_infobits_set,
            flags,
            new_xmax,
            new_offnum,
        } => {
            let other_old = rec.block_ref(1);
            let new_block = rec.block_ref(0).map_or(b.block, |n| n.block);
            let old_here = block_id == 1 || other_old.is_none();
            let new_here = block_id == 0;
            let mut old_tuple: Option<(usize, usize)> = None;
            if old_here {
                let (t, len) = tuple_at(page, *old_offnum)?;
                let (m, mut m2) = set_xmax_bits(page, t, *old_infobits_set);
                if *hot {
                    m2 |= HEAP_HOT_UPDATED;
                } else {
                    m2 &= !HEAP_HOT_UPDATED;
                }
                put_masks(page, t, m, m2);
                put32(page, t.saturating_add(XMAX_AT), *old_xmax);
                set_cid_first(page, t);
                set_ctid(page, t, new_block, *new_offnum);
                if is_normal_xid(xid) {
                    set_prunable(page, xid);
                }
                if flags & XLH_UPDATE_OLD_ALL_VISIBLE_CLEARED != 0 {
                    flag_page(page, 0, PD_ALL_VISIBLE);
                }
                set_lsn(page, lsn);
                old_tuple = Some((t, len));
            }
            if new_here {
                if other_old.is_some() && rec_heap::is_init(rec.info) {
                    page_init(page, 0).map_err(invalid)?;
                }
                let mut at = 0usize;
                let r16 = |at: usize| -> Result<u16, RedoError> {
                    match data.get(at..at.saturating_add(2)) {
                        Some(&[a, b]) => Ok(u16::from_le_bytes([a, b])),
                        _ => Err(RedoError::Invalid(String::from("update data too short"))),
                    }
                };
                let mut prefixlen = 0usize;
                let mut suffixlen = 0usize;
                if flags & XLH_UPDATE_PREFIX_FROM_OLD != 0 {
                    prefixlen = usize::from(r16(at)?);
                    at = at.saturating_add(2);
                }
                if flags & XLH_UPDATE_SUFFIX_FROM_OLD != 0 {
                    suffixlen = usize::from(r16(at)?);
                    at = at.saturating_add(2);
                }
                let h = tuple_header(data.get(at..).unwrap_or(&[]))
                    .map_err(|e| RedoError::Invalid(e.0))?;
                at = at.saturating_add(SIZE_OF_HEAP_HEADER);
                let rest = data.get(at..).unwrap_or(&[]);
                let mut body = Vec::new();
                if prefixlen > 0 || suffixlen > 0 {
                    let (t, len) = old_tuple.ok_or_else(|| {
                        RedoError::Invalid(String::from(
                            "prefix or suffix from an old tuple on another page",
                        ))
                    })?;
                    let old = page
                        .get(t..t.saturating_add(len))
                        .ok_or_else(|| invalid("old tuple"))?
                        .to_vec();
                    let hoff = usize::from(*old.get(HOFF_AT).unwrap_or(&0));
                    if prefixlen > 0 {
                        let hdr_len =
                            usize::from(h.t_hoff).saturating_sub(SIZEOF_HEAP_TUPLE_HEADER);
                        let (bitmap, tail) = rest
                            .split_at_checked(hdr_len)
                            .ok_or_else(|| invalid("update data"))?;
                        body.extend_from_slice(bitmap);
                        body.extend_from_slice(
                            old.get(hoff..hoff.saturating_add(prefixlen))
                                .ok_or_else(|| invalid("prefix"))?,
                        );
                        body.extend_from_slice(tail);
                    } else {
                        body.extend_from_slice(rest);
                    }
                    if suffixlen > 0 {
                        let from = len
                            .checked_sub(suffixlen)
                            .ok_or_else(|| invalid("suffix"))?;
                        body.extend_from_slice(old.get(from..).ok_or_else(|| invalid("suffix"))?);
                    }
                } else {
                    body.extend_from_slice(rest);
                }
                let mut t = build_tuple(h, &body, xid, new_block, *new_offnum);
                put32(&mut t, XMAX_AT, *new_xmax);
                add_item_overwrite(page, &t, *new_offnum, max_heap_tuples(page.len()))
                    .map_err(|_| RedoError::Invalid(String::from("failed to add tuple")))?;
                if flags & XLH_UPDATE_NEW_ALL_VISIBLE_CLEARED != 0 {
                    flag_page(page, 0, PD_ALL_VISIBLE);
                }
                set_lsn(page, lsn);
                if v >= 19 && is_normal_xid(xid) {
                    set_prunable(page, xid);
                }
            }
        }
        HeapRecord::Delete {
            xmax,
            offnum,
            infobits_set,
            flags,
        } => {
            let (t, _) = tuple_at(page, *offnum)?;
            let (m, m2) = set_xmax_bits(page, t, *infobits_set);
            put_masks(page, t, m, m2 & !HEAP_HOT_UPDATED);
            if flags & XLH_DELETE_IS_SUPER == 0 {
                put32(page, t.saturating_add(XMAX_AT), *xmax);
            } else {
                put32(page, t.saturating_add(XMIN_AT), 0);
            }
            set_cid_first(page, t);
            if is_normal_xid(xid) {
                set_prunable(page, xid);
            }
            if flags & XLH_DELETE_ALL_VISIBLE_CLEARED != 0 {
                flag_page(page, 0, PD_ALL_VISIBLE);
            }
            if flags & XLH_DELETE_IS_PARTITION_MOVE != 0 {
                set_ctid(page, t, 0xFFFF_FFFF, 0xFFFD);
            } else {
                set_ctid(page, t, b.block, *offnum);
            }
            set_lsn(page, lsn);
        }
        HeapRecord::Lock {
            xmax,
            offnum,
            infobits_set,
            ..
        } => {
            let (t, _) = tuple_at(page, *offnum)?;
            let (m, mut m2) = set_xmax_bits(page, t, *infobits_set);
            let locked_only = m & HEAP_XMAX_LOCK_ONLY != 0
                || m & (HEAP_XMAX_IS_MULTI | HEAP_XMAX_EXCL_LOCK | HEAP_XMAX_KEYSHR_LOCK)
                    == HEAP_XMAX_EXCL_LOCK;
            if locked_only {
                m2 &= !HEAP_HOT_UPDATED;
            }
            put_masks(page, t, m, m2);
            if locked_only {
                set_ctid(page, t, b.block, *offnum);
            }
            put32(page, t.saturating_add(XMAX_AT), *xmax);
            set_cid_first(page, t);
            set_lsn(page, lsn);
        }
        HeapRecord::LockUpdated {
            xmax,
            offnum,
            infobits_set,
            ..
        } => {
            let (t, _) = tuple_at(page, *offnum)?;
            let (m, m2) = set_xmax_bits(page, t, *infobits_set);
            put_masks(page, t, m, m2);
            put32(page, t.saturating_add(XMAX_AT), *xmax);
            set_lsn(page, lsn);
        }
        HeapRecord::Confirm { offnum } => {
            let (t, _) = tuple_at(page, *offnum)?;
            set_ctid(page, t, b.block, *offnum);
            set_lsn(page, lsn);
        }
        HeapRecord::Inplace { offnum, .. } => {
            let (t, len) = tuple_at(page, *offnum)?;
            let hoff = usize::from(*page.get(t.saturating_add(HOFF_AT)).unwrap_or(&0));
            if len.checked_sub(hoff) != Some(data.len()) {
                return Err(RedoError::Invalid(String::from("wrong tuple length")));
            }
            let at = t.saturating_add(hoff);
            page.get_mut(at..at.saturating_add(data.len()))
                .ok_or_else(|| invalid("inplace"))?
                .copy_from_slice(data);
            set_lsn(page, lsn);
        }
        HeapRecord::Clean {
            nredirected, ndead, ..
        } => {
            let items = rec_heap::prune_items_16(data, *nredirected, *ndead)
                .map_err(|e| RedoError::Invalid(e.0))?;
            prune_execute(page, v, false, &items)?;
            set_lsn(page, lsn);
        }
        HeapRecord::Vacuum { nunused } => {
            let unused = rec_heap::prune_items_16(data, 0, 0)
                .map_err(|e| RedoError::Invalid(e.0))?
                .unused;
            if unused.len() != usize::from(*nunused) {
                return Err(RedoError::Invalid(String::from(
                    "nunused does not match the offsets",
                )));
            }
            for off in unused {
                write::set_item_id(page, off, 0, LP_UNUSED, 0);
            }
            truncate_line_pointer_array(page);
            set_lsn(page, lsn);
        }
        HeapRecord::FreezePage { count, .. } => {
            let plans = if v <= 15 {
                rec_heap::freeze_tuples_15(data, *count)
            } else {
                rec_heap::freeze_plans_16(data, *count)
            }
            .map_err(|e| RedoError::Invalid(e.0))?;
            freeze(page, &plans)?;
            set_lsn(page, lsn);
        }
        HeapRecord::Prune { flags, .. } => {
            let items =
                rec_heap::prune_items_17(data, *flags).map_err(|e| RedoError::Invalid(e.0))?;
            let do_prune =
                !items.redirected.is_empty() || !items.dead.is_empty() || !items.unused.is_empty();
            if do_prune {
                prune_execute(page, v, flags & XLHP_CLEANUP_LOCK == 0, &items)?;
            }
            freeze(page, &items.plans)?;
            let vm = v >= 19 && flags & XLHP_VM_ALL_VISIBLE != 0;
            if vm {
                flag_page(page, PD_ALL_VISIBLE, 0);
                write::set_prune_xid(page, 0);
            }
            if v < 19 || do_prune || !items.plans.is_empty() || (vm && s.hint_bits_logged) {
                set_lsn(page, lsn);
            }
        }
        HeapRecord::Visible { .. } => {
            // Block 1, the heap page (block 0 is the map page). Every release's minor
            // updates since late 2022 set its LSN when hint bits are logged.
            flag_page(page, PD_ALL_VISIBLE, 0);
            if s.hint_bits_logged {
                set_lsn(page, lsn);
            }
        }
        HeapRecord::Truncate { .. }
        | HeapRecord::CleanupInfo { .. }
        | HeapRecord::NewCid { .. }
        | HeapRecord::Rewrite => return Err(RedoError::NotApplied),
    }
    Ok(true)
}

/// What heap redo records in the free space map for the page of `block_id` once it is done
/// with it (XLogRecordPageWithFreeSpace): insert, multi-insert and a non-HOT update's new page
/// when redone and left with under a fifth of the page free; a prune, vacuum or clean whenever
/// the page is there (17 and 18: when it changed line pointers; 19: or set map bits); VISIBLE
/// when it sets bits, by PageGetFreeSpace. None: redo records nothing.
pub fn recorded_free_space(
    s: &RedoSettings,
    rec: &WalRecord<'_>,
    block_id: u8,
    redone: bool,
    page: &[u8],
) -> Option<usize> {
    let d = decode(rec).ok()?;
    let b = rec.block_ref(block_id)?;
    if b.fork == VISIBILITYMAP_FORKNUM {
        return None;
    }
    let heap_space = || write::heap_free_space(page, max_heap_tuples(page.len()));
    let small = |space: usize| (space < page.len() / 5).then_some(space);
    match d {
        HeapRecord::Insert { .. } | HeapRecord::MultiInsert { .. } if redone => small(heap_space()),
        HeapRecord::Update { hot: false, .. } if redone && block_id == 0 => small(heap_space()),
        HeapRecord::Clean { .. } | HeapRecord::Vacuum { .. } => Some(heap_space()),
        HeapRecord::Prune { flags, .. } => {
            let changed = flags
                & (rec_heap::XLHP_HAS_REDIRECTIONS
                    | rec_heap::XLHP_HAS_DEAD_ITEMS
                    | rec_heap::XLHP_HAS_NOW_UNUSED_ITEMS)
                != 0;
            let vm = s.version >= 19 && flags & XLHP_VM_ALL_VISIBLE != 0;
            (changed || vm).then(heap_space)
        }
        HeapRecord::Visible { flags, .. }
            if block_id == 1 && flags & VISIBILITYMAP_VALID_BITS != 0 =>
        {
            Some(write::free_space(page))
        }
        _ => None,
    }
}

fn is_normal_xid(xid: u32) -> bool {
    xid >= 3
}

/// A map page a record names: VISIBLE's block 0 and 19's prune and multi-insert block 1 set
/// bits; the newer records' map references clear them.
fn redo_vm_block(
    s: &RedoSettings,
    rec: &WalRecord<'_>,
    d: &HeapRecord,
    block_id: u8,
    page: &mut [u8],
) -> Result<bool, RedoError> {
    let lsn = rec.end_lsn;
    let heap_ref = |id: u8| {
        rec.block_ref(id)
            .map(|b| b.block)
            .ok_or_else(|| invalid("no heap block reference"))
    };
    let setting = match d {
        HeapRecord::Visible { flags, .. } => Some((heap_ref(1)?, flags & VISIBILITYMAP_VALID_BITS)),
        HeapRecord::Prune { flags, .. } if s.version >= 19 && flags & XLHP_VM_ALL_VISIBLE != 0 => {
            let mut vm = VISIBILITYMAP_ALL_VISIBLE;
            if flags & XLHP_VM_ALL_FROZEN != 0 {
                vm |= VISIBILITYMAP_ALL_FROZEN;
            }
            Some((heap_ref(0)?, vm))
        }
        HeapRecord::MultiInsert { flags, .. }
            if s.version >= 19 && flags & XLH_INSERT_ALL_FROZEN_SET != 0 =>
        {
            Some((
                heap_ref(0)?,
                VISIBILITYMAP_ALL_VISIBLE | VISIBILITYMAP_ALL_FROZEN,
            ))
        }
        _ => None,
    };
    if let Some((heap_block, bits)) = setting {
        vm_page_ready(page);
        if vm_set(page, heap_block, bits) || s.version >= 19 {
            set_lsn(page, lsn);
        }
        return Ok(true);
    }
    let map_block = rec.block_ref(block_id).map(|b| b.block);
    let mut changed = false;
    for (_, heap_block, bits) in vm_clears(rec, d) {
        if vm_position(heap_block, page.len()).map(|p| p.0) == map_block
            && vm_clear(page, heap_block, bits)
        {
            set_lsn(page, lsn);
            changed = true;
        }
    }
    Ok(changed)
}

/// heap_page_prune_execute: redirects, dead and unused line pointers, then the compaction
/// (17 and later: only the line pointer array's end when the record took no cleanup lock).
fn prune_execute(
    page: &mut [u8],
    version: u32,
    lp_truncate_only: bool,
    items: &PruneItems,
) -> Result<(), RedoError> {
    let max = write::max_offset(page);
    let check = |off: u16| {
        if off == 0 || off > max {
            Err(RedoError::Invalid(format!("invalid offset {off}")))
        } else {
            Ok(())
        }
    };
    for &(from, to) in &items.redirected {
        check(from)?;
        write::set_item_id(page, from, to, LP_REDIRECT, 0);
    }
    for &off in &items.dead {
        check(off)?;
        write::set_item_id(page, off, 0, LP_DEAD, 0);
    }
    for &off in &items.unused {
        check(off)?;
        write::set_item_id(page, off, 0, LP_UNUSED, 0);
    }
    if lp_truncate_only {
        truncate_line_pointer_array(page);
        Ok(())
    } else {
        repair_fragmentation(page, version).map_err(invalid)
    }
}

/// heap_execute_freeze_tuple for each planned tuple.
fn freeze(page: &mut [u8], plans: &[FreezePlan]) -> Result<(), RedoError> {
    for p in plans {
        for &off in &p.offsets {
            let (t, _) = tuple_at(page, off)?;
            put32(page, t.saturating_add(XMAX_AT), p.xmax);
            if p.frzflags & XLH_FREEZE_XVAC != 0 {
                put32(page, t.saturating_add(FIELD3_AT), FROZEN_TRANSACTION_ID);
            }
            if p.frzflags & XLH_INVALID_XVAC != 0 {
                put32(page, t.saturating_add(FIELD3_AT), 0);
            }
            put_masks(page, t, p.t_infomask, p.t_infomask2);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wal::BlockRef;

    fn record<'a>(
        version: u32,
        rmid: u8,
        info: u8,
        bytes: &'a [u8],
        blocks: &'a [BlockRef],
        main_at: u32,
    ) -> WalRecord<'a> {
        WalRecord {
            version,
            lsn: 0x100_0000,
            end_lsn: 0x100_0040,
            timeline: 1,
            xid: 1000,
            rmid,
            info,
            blocks,
            main_data_offset: main_at,
            bytes,
            pieces: &[],
        }
    }

    fn block(id: u8, fork: u8, data_offset: u32, data_length: u16) -> BlockRef {
        BlockRef {
            id,
            locator: RelFileLocator::default(),
            fork,
            block: 0,
            will_init: false,
            data_offset,
            data_length,
            image: None,
        }
    }

    /// Noise for every Heap and Heap2 record type of every release, over an empty page and a
    /// page of noise: an error or a page, never a panic.
    #[test]
    fn garbage_records_and_pages_never_panic() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
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
            for rmid in [rec_heap::RM_HEAP_ID, rec_heap::RM_HEAP2_ID] {
                for info in (0..=0xF0u8).step_by(0x10) {
                    for round in 0..30 {
                        let len = (next() % 200) as usize;
                        let bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
                        let split = (next() % (len as u64 + 1)) as u32;
                        let blocks = [
                            block(0, 0, 0, split.min(u32::from(u16::MAX)) as u16),
                            block(1, (next() % 3) as u8, 0, 0),
                        ];
                        let rec = record(version, rmid, info, &bytes, &blocks, split);
                        let mut page = alloc::vec![0u8; 8192];
                        if round % 2 == 0 {
                            page_init(&mut page, 0).unwrap();
                        } else {
                            page.iter_mut().for_each(|b| *b = next() as u8);
                        }
                        for id in [0, 1] {
                            let _ = redo_heap_block(&s, &rec, id, &mut page);
                            let _ = recorded_free_space(&s, &rec, id, true, &page);
                        }
                        let _ = unregistered_vm_clears(&rec, 8192);
                    }
                }
            }
        }
    }

    #[test]
    fn an_insert_whose_body_is_short_is_an_error() {
        // xl_heap_insert (offnum 1, flags 0) and a block holding three bytes of its 5-byte
        // xl_heap_header.
        let bytes = [1u8, 0, 7, 0, 0, 1, 0, 0];
        let blocks = [block(0, 0, 3, 3)];
        let rec = record(16, rec_heap::RM_HEAP_ID, 0x00, &bytes, &blocks, 6);
        let mut page = alloc::vec![0u8; 8192];
        page_init(&mut page, 0).unwrap();
        let before = page.clone();
        let s = RedoSettings {
            version: 16,
            hint_bits_logged: false,
        };
        assert!(matches!(
            redo_heap_block(&s, &rec, 0, &mut page),
            Err(RedoError::Invalid(_))
        ));
        assert_eq!(page, before);
    }
}
