//! verify_heapam's checks of one heap page (contrib/amcheck/verify_heapam.c), judged from the
//! page alone: line pointers, tuple headers (check_tuple_header) and HOT chains. What needs
//! more than the page (xid and multixact bounds, the commit status of an xmin without hint
//! bits, the catalog's attribute count) is left unjudged rather than guessed.

use super::{ItemId, Reader, Spans, LP_DEAD, LP_REDIRECT, LP_UNUSED};
use crate::fields::{
    heap_tuple_header_data as htup, item_id_data, HEAP_HASNULL, HEAP_NATTS_MASK,
    HEAP_TUPLE_HEADER_DATA, HEAP_XMAX_COMMITTED, HEAP_XMAX_INVALID, HEAP_XMAX_IS_MULTI,
    HEAP_XMAX_LOCK_ONLY, HEAP_XMIN_COMMITTED, HEAP_XMIN_FROZEN, HEAP_XMIN_INVALID,
};
use crate::findings::Finding;
use crate::layout::maxalign;

/// htup_details.h: SizeofHeapTupleHeader, and verify_heapam's least lp_len (its MAXALIGN).
const SIZEOF_HEAP_TUPLE_HEADER: usize = HEAP_TUPLE_HEADER_DATA.size as usize;
const MIN_LP_LEN: usize = 24;
/// htup_details.h: t_infomask's HEAP_UPDATED, t_infomask2's HOT bits.
const HEAP_UPDATED: u16 = 0x2000;
const HEAP_HOT_UPDATED: u16 = 0x4000;
const HEAP_ONLY_TUPLE: u16 = 0x8000;
/// transam.h: FrozenTransactionId, what HeapTupleHeaderGetXmin says of a frozen tuple.
const FROZEN_TRANSACTION_ID: u32 = 2;

/// verify_heapam's sanity checks of an LP_NORMAL line pointer, in its order: the first that
/// fails (the tuple header is not read then).
pub(super) fn lp_problem(id: &ItemId, page_len: usize) -> Option<Finding> {
    let (off, len) = (usize::from(id.off), usize::from(id.len));
    if off != maxalign(off) {
        Some(Finding::HeapLpNotMaxaligned)
    } else if len < MIN_LP_LEN {
        Some(Finding::HeapLpTooShort)
    } else if off.saturating_add(len) > page_len {
        Some(Finding::ItemPastPage)
    } else {
        None
    }
}

/// The header fields the checks read.
#[derive(Clone, Copy)]
struct Header {
    xmin: u32,
    xmax: u32,
    ctid_block: u32,
    ctid_offset: u16,
    infomask2: u16,
    infomask: u16,
    hoff: usize,
}

impl Header {
    fn read(r: &Reader, off: usize) -> Option<Header> {
        let ctid = r.tid(super::at(off, &htup::T_CTID))?;
        Some(Header {
            xmin: r.field(off, &htup::T_XMIN)?,
            xmax: r.field(off, &htup::T_XMAX)?,
            ctid_block: ctid.block,
            ctid_offset: ctid.offset,
            infomask2: r.field(off, &htup::T_INFOMASK2)? as u16,
            infomask: r.field(off, &htup::T_INFOMASK)? as u16,
            hoff: r.field(off, &htup::T_HOFF)? as usize,
        })
    }

    fn heap_only(&self) -> bool {
        self.infomask2 & HEAP_ONLY_TUPLE != 0
    }

    /// HeapTupleHeaderGetXmin: FrozenTransactionId for a frozen tuple.
    fn xmin(&self) -> u32 {
        if self.infomask & HEAP_XMIN_FROZEN == HEAP_XMIN_FROZEN {
            FROZEN_TRANSACTION_ID
        } else {
            self.xmin
        }
    }

    /// HeapTupleHeaderGetUpdateXid, None when it is a MultiXactId's update xid (only
    /// pg_multixact knows it).
    fn update_xid(&self) -> Option<u32> {
        let m = self.infomask;
        if m & HEAP_XMAX_INVALID == 0 && m & HEAP_XMAX_IS_MULTI != 0 && m & HEAP_XMAX_LOCK_ONLY == 0
        {
            None
        } else {
            Some(self.xmax)
        }
    }

    /// HeapTupleHeaderIsHotUpdated.
    fn hot_updated(&self) -> bool {
        self.infomask2 & HEAP_HOT_UPDATED != 0
            && self.infomask & HEAP_XMAX_INVALID == 0
            && self.infomask & (HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID) != HEAP_XMIN_INVALID
    }

    /// xmin committed as far as the hint bits tell (frozen counts: FrozenTransactionId is
    /// committed for get_xid_status).
    fn xmin_known_committed(&self) -> bool {
        self.infomask & HEAP_XMIN_COMMITTED != 0
    }
}

/// check_tuple_header for the tuple of `id` (its line pointer passed [`lp_problem`]):
/// whether the header is sane enough for check_tuple to go on.
fn check_header(h: &Header, id: &ItemId, spans: &mut Spans) -> bool {
    let lp = id.lp;
    let len = usize::from(id.len);
    if h.hoff > len {
        spans.flag_item(&htup::T_HOFF, lp, Finding::HeapHoffPastLength);
    }
    if h.infomask & HEAP_XMAX_COMMITTED != 0 && h.infomask & HEAP_XMAX_IS_MULTI != 0 {
        spans.flag_item(&htup::T_INFOMASK, lp, Finding::HeapMultixactCommitted);
    }
    if h.update_xid() == Some(0) && h.hot_updated() {
        spans.flag_item(&htup::T_INFOMASK2, lp, Finding::HeapHotUpdatedXmaxInvalid);
    }
    if h.heap_only() && h.infomask & HEAP_UPDATED == 0 {
        spans.flag_item(&htup::T_INFOMASK2, lp, Finding::HeapOnlyNotUpdated);
    }
    let natts = usize::from(h.infomask2 & HEAP_NATTS_MASK);
    let expected = if h.infomask & HEAP_HASNULL != 0 {
        maxalign(SIZEOF_HEAP_TUPLE_HEADER.saturating_add(natts.saturating_add(7) / 8))
    } else {
        maxalign(SIZEOF_HEAP_TUPLE_HEADER)
    };
    if h.hoff != expected {
        spans.flag_item(&htup::T_HOFF, lp, Finding::HeapHoffUnexpected);
    }
    h.hoff <= len && h.hoff == expected
}

/// verify_heapam's page loop: each line pointer, each valid tuple's header, then the update
/// chains within the page (16 on) from the successors it records.
/// `block` is the page's relation-wide block number: t_ctid naming it (and another line
/// pointer) makes that tuple the successor.
pub(super) fn check_page(r: &Reader, block: u32, lps: &[ItemId], spans: &mut Spans) {
    let maxoff = lps.len();
    let get = |off: u16| lps.get(usize::from(off).checked_sub(1)?);
    // Indexed by offset number - 1.
    let mut lp_valid = alloc::vec![false; maxoff];
    let mut successor = alloc::vec![0u16; maxoff];
    let mut headers: alloc::vec::Vec<Option<Header>> = alloc::vec![None; maxoff];
    let mut checked = alloc::vec![false; maxoff];
    for (i, id) in lps.iter().enumerate() {
        match id.flags {
            LP_UNUSED | LP_DEAD => {}
            LP_REDIRECT => {
                // lp_off is the redirect's target; out of range is line_pointers' finding.
                let Some(target) = get(id.off).filter(|_| id.off != 0) else {
                    continue;
                };
                let problem = match target.flags {
                    LP_UNUSED => Some(Finding::HeapRedirectToUnused),
                    LP_DEAD => Some(Finding::HeapRedirectToDead),
                    LP_REDIRECT => Some(Finding::HeapRedirectToRedirect),
                    _ => None,
                };
                if let Some(f) = problem {
                    spans.flag_item(&item_id_data::LP_OFF, id.lp, f);
                    continue;
                }
                set(&mut lp_valid, i, true);
                set(&mut successor, i, id.off);
            }
            _ => {
                if lp_problem(id, r.len()).is_some() {
                    continue;
                }
                let Some(h) = Header::read(r, usize::from(id.off)) else {
                    continue;
                };
                set(&mut lp_valid, i, true);
                set(&mut headers, i, Some(h));
                // check_tuple stops at a header it cannot trust: no commit status then.
                let sane = check_header(&h, id, spans);
                set(&mut checked, i, sane);
                if sane
                    && h.xmin_known_committed()
                    && h.infomask & HEAP_XMAX_IS_MULTI != 0
                    && h.xmax == 0
                {
                    spans.flag_item(&htup::T_XMAX, id.lp, Finding::HeapMultiXactInvalid);
                }
                let next = h.ctid_offset;
                let own_block = h.ctid_block == block;
                if own_block && next != id.lp && next >= 1 && usize::from(next) <= maxoff {
                    set(&mut successor, i, next);
                }
            }
        }
    }
    let mut predecessor = alloc::vec![0u16; maxoff];
    for (i, id) in lps.iter().enumerate() {
        let next = successor.get(i).copied().unwrap_or(0);
        let n = usize::from(next).wrapping_sub(1);
        if next == 0 || !lp_valid.get(n).copied().unwrap_or(false) {
            continue;
        }
        let Some(next_lp) = get(next) else { continue };
        let pred = predecessor.get(n).copied().unwrap_or(0);
        if id.flags == LP_REDIRECT {
            let next_h = headers.get(n).copied().flatten();
            if next_h.is_some_and(|h| !h.heap_only()) {
                spans.flag_item(
                    &item_id_data::LP_OFF,
                    id.lp,
                    Finding::HeapRedirectToNonHeapOnly,
                );
            }
            if pred != 0 {
                spans.flag_item(&item_id_data::LP_OFF, id.lp, Finding::HeapRedirectIntersect);
                continue;
            }
            set(&mut predecessor, n, id.lp);
            continue;
        }
        if next_lp.flags == LP_REDIRECT {
            continue;
        }
        let (Some(cur), Some(nh)) = (
            headers.get(i).copied().flatten(),
            headers.get(n).copied().flatten(),
        ) else {
            continue;
        };
        // Without the multixact's update xid the link cannot be followed.
        let Some(cur_xmax) = cur.update_xid() else {
            continue;
        };
        if cur_xmax == 0 || cur_xmax != nh.xmin() {
            continue;
        }
        if pred != 0 {
            spans.flag_item(&htup::T_CTID, id.lp, Finding::HeapUpdateIntersect);
            continue;
        }
        set(&mut predecessor, n, id.lp);
        let hot = cur.infomask2 & HEAP_HOT_UPDATED != 0;
        if !hot && nh.heap_only() {
            spans.flag_item(&htup::T_CTID, id.lp, Finding::HeapNonHotUpdateMadeHeapOnly);
        }
        if hot && !nh.heap_only() {
            spans.flag_item(&htup::T_CTID, id.lp, Finding::HeapHotUpdateMadeNonHeapOnly);
        }
    }
    for (i, id) in lps.iter().enumerate() {
        let Some(h) = headers.get(i).copied().flatten() else {
            continue;
        };
        let root = predecessor.get(i).copied().unwrap_or(0) == 0;
        let status_known = checked.get(i).copied().unwrap_or(false) && h.xmin_known_committed();
        // The line pointer nothing leads to (t_infomask2 may carry HeapOnlyNotUpdated).
        if root && status_known && h.heap_only() {
            spans.flag_item(&item_id_data::LP_OFF, id.lp, Finding::HeapRootIsHeapOnly);
        }
    }
}

fn set<T>(v: &mut [T], i: usize, value: T) {
    if let Some(slot) = v.get_mut(i) {
        *slot = value;
    }
}

/// bufpage.h: PD_ALL_VISIBLE.
const PD_ALL_VISIBLE: u16 = 0x0004;

/// vacuumlazy.c's warning: PD_ALL_VISIBLE on a page with LP_DEAD line pointers.
pub(super) fn check_all_visible(pd_flags: u16, lps: &[ItemId], spans: &mut Spans) {
    if pd_flags & PD_ALL_VISIBLE != 0 && lps.iter().any(|id| id.flags == LP_DEAD) {
        spans.flag(
            &crate::fields::page_header_data::PD_FLAGS,
            Finding::AllVisibleWithDeadItems,
        );
    }
}

/// Disk sectors: the unit a torn write tears along.
pub const SECTOR: usize = 512;

/// The 512-byte sectors of a heap page that look like another version of it: sectors that
/// line pointers point into whose tuples are all zeros or fail check_tuple_header, on a page
/// where tuples in other sectors are sound. Empty when nothing points that way (or every
/// tuple is bad: garbage, not a torn write). Only meaningful on a page whose checksum fails.
pub(super) fn torn_sectors(r: &Reader, lps: &[ItemId]) -> alloc::vec::Vec<usize> {
    let sectors = r.len() / SECTOR;
    let mut bad = alloc::vec![0u32; sectors];
    let mut good = alloc::vec![0u32; sectors];
    for id in lps
        .iter()
        .filter(|id| id.flags != LP_UNUSED && id.flags != LP_REDIRECT && id.len != 0)
    {
        if lp_problem(id, r.len()).is_some() {
            continue;
        }
        let off = usize::from(id.off);
        let sound = Header::read(r, off).is_some_and(|h| {
            let zero = r
                .bytes(off, SIZEOF_HEAP_TUPLE_HEADER)
                .0
                .iter()
                .all(|&b| b == 0);
            let natts = usize::from(h.infomask2 & HEAP_NATTS_MASK);
            let bitmap = if h.infomask & HEAP_HASNULL != 0 {
                natts.saturating_add(7) / 8
            } else {
                0
            };
            !zero
                && h.hoff <= usize::from(id.len)
                && h.hoff == maxalign(SIZEOF_HEAP_TUPLE_HEADER.saturating_add(bitmap))
        });
        let counts = if sound { &mut good } else { &mut bad };
        if let Some(n) = counts.get_mut(off / SECTOR) {
            *n = n.saturating_add(1);
        }
    }
    let torn: alloc::vec::Vec<usize> = (0..sectors)
        .filter(|&s| bad.get(s).copied().unwrap_or(0) > 0 && good.get(s).copied().unwrap_or(0) == 0)
        .collect();
    if good.iter().all(|&n| n == 0) {
        return alloc::vec::Vec::new();
    }
    torn
}
