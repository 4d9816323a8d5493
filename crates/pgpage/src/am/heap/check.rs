//! verify_heapam's checks of one heap page (contrib/amcheck/verify_heapam.c): line pointers,
//! tuple headers (check_tuple_header) and HOT chains from the page alone; with a
//! [`HeapContext`] (a data directory's pg_class row, pg_control and pg_xact) also the xid and
//! multixact bounds and the attribute count (check_tuple_visibility, check_tuple). Without
//! one those are left unjudged rather than guessed.

use crate::am::heap::layout::{
    BOOTSTRAP_TRANSACTION_ID, FIRST_NORMAL_TRANSACTION_ID, FROZEN_TRANSACTION_ID, HEAP_HOT_UPDATED,
    HEAP_ONLY_TUPLE, HEAP_UPDATED, MIN_LP_LEN, SECTOR, SPEC_TOKEN_OFFSET_NUMBER,
};
use crate::findings::{Finding, Values};
use crate::page::bufpage::{ItemId, SIZE_OF_PAGE_HEADER_DATA};
use crate::page::fields::PD_ALL_VISIBLE;
use crate::page::fields::{
    heap_tuple_header_data as htup, item_id_data, HEAP_HASNULL, HEAP_NATTS_MASK,
    HEAP_XMAX_COMMITTED, HEAP_XMAX_INVALID, HEAP_XMAX_IS_MULTI, HEAP_XMAX_LOCK_ONLY,
    HEAP_XMIN_COMMITTED, HEAP_XMIN_FROZEN, HEAP_XMIN_INVALID,
};
use crate::page::fields::{
    HEAP_MOVED_IN, HEAP_MOVED_OFF, LP_DEAD, LP_NORMAL, LP_REDIRECT, LP_UNUSED,
};
use crate::page::geometry::maxalign;
use crate::page::reader::Reader;
use crate::page::spans::Spans;
use crate::tuple::visibility::{xmax_is_locked_only, TransactionLog};
use crate::tuple::SIZEOF_HEAP_TUPLE_HEADER;

/// What verify_heapam reads beyond the page: the relation's pg_class row, the cluster's
/// transaction horizon as a server started on the data directory has it (pg_control's
/// checkpoint: ShmemVariableCache and ReadMultiXactIdRange start from it) and pg_xact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeapContext<'a> {
    /// pg_class.relnatts.
    pub relnatts: u16,
    /// pg_control's PG_CONTROL_VERSION (0: not known): amcheck's words changed with 19's
    /// (1900 and later).
    pub pg_control_version: u32,
    /// pg_class.relfrozenxid.
    pub relfrozenxid: u32,
    /// pg_class.relminmxid.
    pub relminmxid: u32,
    /// checkPointCopy.nextXid: epoch in the high 32 bits.
    pub next_full_xid: u64,
    /// checkPointCopy.oldestXid.
    pub oldest_xid: u32,
    /// checkPointCopy.oldestMulti.
    pub oldest_multi: u32,
    /// checkPointCopy.nextMulti.
    pub next_multi: u32,
    /// nextXid and nextMulti above bound every xid and MultiXactId in the pages: the
    /// cluster was shut down cleanly (DBState DB_SHUTDOWNED), its shutdown checkpoint the
    /// last thing it wrote. A standby stopped in recovery keeps its last restartpoint's
    /// checkpoint, older than the WAL it replayed into the pages it flushed (the server's
    /// own nextXid, which verify_heapam reads, has moved past it); a cluster that crashed or
    /// still runs has pages written after its last checkpoint too. Then an xid or
    /// MultiXactId at or past them is not said to be in the future.
    pub next_known: bool,
    /// pg_xact and pg_multixact: without them an xmin with no hint bits has no known status
    /// (and what verify_heapam checks after it is not judged), nor a MultiXactId's update xid.
    pub xact: Option<&'a TransactionLog>,
}

/// verify_heapam.c: XidBoundsViolation.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bounds {
    Invalid,
    InFuture,
    PrecedesClusterMin,
    PrecedesRelMin,
    Ok,
}

impl HeapContext<'_> {
    /// FullTransactionIdFromXidAndCtx: `xid` in the epoch that puts it nearest nextXid, and
    /// FirstNormalTransactionId for one that would fall before epoch 0.
    fn full(&self, xid: u32) -> u64 {
        if xid < FIRST_NORMAL_TRANSACTION_ID {
            return u64::from(xid);
        }
        let next = self.next_full_xid;
        // The 32-bit modulo distance back from nextXid (negative: ahead of it).
        let diff = (next as u32).wrapping_sub(xid) as i32;
        let first = u64::from(FIRST_NORMAL_TRANSACTION_ID);
        if diff > 0 && next.wrapping_sub(first) < u64::from(diff.unsigned_abs()) {
            first
        } else {
            next.wrapping_sub(i64::from(diff) as u64)
        }
    }

    /// get_xid_status's bounds.
    fn xid_bounds(&self, xid: u32) -> Bounds {
        match xid {
            0 => return Bounds::Invalid,
            BOOTSTRAP_TRANSACTION_ID | FROZEN_TRANSACTION_ID => return Bounds::Ok,
            _ => {}
        }
        let fxid = self.full(xid);
        if fxid >= self.next_full_xid && self.next_known {
            Bounds::InFuture
        } else if fxid < self.full(self.oldest_xid) {
            Bounds::PrecedesClusterMin
        } else if fxid < self.full(self.relfrozenxid) {
            Bounds::PrecedesRelMin
        } else {
            Bounds::Ok
        }
    }

    /// The numbers verify_heapam prints with an xid out of `b`: the xid, then the bound's
    /// epoch and xid (nextXid, the oldest xid, relfrozenxid as full transaction ids).
    fn xid_values(&self, xid: u32, b: Bounds) -> [u32; 3] {
        let bound = match b {
            Bounds::PrecedesClusterMin => self.full(self.oldest_xid),
            Bounds::PrecedesRelMin => self.full(self.relfrozenxid),
            _ => self.next_full_xid,
        };
        [xid, (bound >> 32) as u32, bound as u32]
    }

    /// The numbers verify_heapam prints with a MultiXactId out of `b`: it and the bound.
    fn multi_values(&self, multi: u32, b: Bounds) -> [u32; 2] {
        let bound = match b {
            Bounds::PrecedesRelMin => self.relminmxid,
            Bounds::PrecedesClusterMin => self.oldest_multi,
            _ => self.next_multi,
        };
        [multi, bound]
    }

    /// check_mxid_in_range (MultiXactIdPrecedes compares modulo 2^32).
    fn multi_bounds(&self, multi: u32) -> Bounds {
        let precedes = |a: u32, b: u32| (a.wrapping_sub(b) as i32) < 0;
        if multi == 0 {
            Bounds::Invalid
        } else if precedes(multi, self.relminmxid) {
            Bounds::PrecedesRelMin
        } else if precedes(multi, self.oldest_multi) {
            Bounds::PrecedesClusterMin
        } else if !precedes(multi, self.next_multi) && self.next_known {
            Bounds::InFuture
        } else {
            Bounds::Ok
        }
    }

    /// get_xid_status's commit status of an xid within bounds: TransactionIdDidCommit from
    /// pg_xact (in a stopped cluster nothing is in progress); None without pg_xact.
    fn committed(&self, xid: u32) -> Option<bool> {
        if matches!(xid, BOOTSTRAP_TRANSACTION_ID | FROZEN_TRANSACTION_ID) {
            return Some(true);
        }
        self.xact?.xid_status(xid).ok().map(|s| s.did_commit())
    }
}

/// The finding for an xid out of bounds: `which` lists the in-future, before-oldest and
/// before-relfrozenxid findings of xmin, xmax or the update xid.
fn bounds_finding(b: Bounds, which: [Finding; 3]) -> Option<Finding> {
    let [future, oldest, relmin] = which;
    match b {
        Bounds::InFuture => Some(future),
        Bounds::PrecedesClusterMin => Some(oldest),
        Bounds::PrecedesRelMin => Some(relmin),
        Bounds::Invalid | Bounds::Ok => None,
    }
}

/// What check_tuple_visibility decided.
struct Visibility {
    /// check_tuple goes on to the attributes (the natts check); None: not known here.
    checkable: Option<bool>,
    /// xmin's commit status, when its bounds hold and pg_xact (or a hint bit) tells it.
    xmin_committed: Option<bool>,
}

/// check_tuple_visibility for a tuple whose header passed check_header: flags xmin, xmax
/// and MultiXactIds out of the context's bounds, in verify_heapam's order (it stops at the
/// first xmin problem, and looks at xmax only once xmin committed).
fn check_visibility(h: &Header, lp: u16, ctx: &HeapContext, spans: &mut Spans) -> Visibility {
    let xmin = h.xmin();
    let xmin_bounds = ctx.xid_bounds(xmin);
    let xmin_findings = [
        Finding::HeapXminInFuture,
        Finding::HeapXminBeforeOldest,
        Finding::HeapXminBeforeRelfrozenxid,
    ];
    if let Some(f) = bounds_finding(xmin_bounds, xmin_findings) {
        spans.flag_item_valued(&htup::T_XMIN, lp, f, &ctx.xid_values(xmin, xmin_bounds));
    }
    if xmin_bounds != Bounds::Ok {
        return Visibility {
            checkable: Some(false),
            xmin_committed: None,
        };
    }
    let status = ctx.committed(xmin);
    let done = |checkable: Option<bool>| Visibility {
        checkable,
        xmin_committed: status.or(h.xmin_known_committed().then_some(true)),
    };
    let m = h.infomask;
    if m & HEAP_XMIN_COMMITTED == 0 {
        if m & HEAP_XMIN_INVALID != 0 {
            return done(Some(false));
        }
        // Moved by a pre-9.0 VACUUM FULL: t_xvac decides, which is not checked here.
        if m & (HEAP_MOVED_OFF | HEAP_MOVED_IN) != 0 {
            return done(None);
        }
        match status {
            Some(true) => {}
            Some(false) => return done(Some(false)),
            None => return done(None),
        }
    }
    if m & HEAP_XMAX_IS_MULTI != 0 {
        let b = ctx.multi_bounds(h.xmax);
        let f = match b {
            Bounds::Invalid => Some(Finding::HeapMultiXactInvalid),
            Bounds::PrecedesRelMin => Some(Finding::HeapMultiBeforeRelminmxid),
            Bounds::PrecedesClusterMin => Some(Finding::HeapMultiBeforeOldest),
            Bounds::InFuture => Some(Finding::HeapMultiInFuture),
            Bounds::Ok => None,
        };
        if let Some(f) = f {
            spans.flag_item_valued(&htup::T_XMAX, lp, f, &ctx.multi_values(h.xmax, b));
            return done(Some(true));
        }
    }
    if m & HEAP_XMAX_INVALID != 0 || xmax_is_locked_only(m) {
        return done(Some(true));
    }
    if m & HEAP_XMAX_IS_MULTI != 0 {
        // The update xid is in pg_multixact; without it the tuple is still checkable.
        let update = ctx.xact.map(|log| log.multixact_update_xid(h.xmax));
        let problem = match update {
            Some(Ok(xid)) => {
                let xid = xid.unwrap_or(0);
                let b = ctx.xid_bounds(xid);
                if b == Bounds::Invalid {
                    Some((Finding::HeapUpdateXidInvalid, [0; 3]))
                } else {
                    let which = [
                        Finding::HeapUpdateXidInFuture,
                        Finding::HeapUpdateXidBeforeOldest,
                        Finding::HeapUpdateXidBeforeRelfrozenxid,
                    ];
                    bounds_finding(b, which).map(|f| (f, ctx.xid_values(xid, b)))
                }
            }
            Some(Err(_)) | None => None,
        };
        if let Some((f, values)) = problem {
            spans.flag_item_valued(&htup::T_XMAX, lp, f, &values);
        }
        return done(Some(true));
    }
    let which = [
        Finding::HeapXmaxInFuture,
        Finding::HeapXmaxBeforeOldest,
        Finding::HeapXmaxBeforeRelfrozenxid,
    ];
    let b = ctx.xid_bounds(h.xmax);
    match bounds_finding(b, which) {
        Some(f) => {
            spans.flag_item_valued(&htup::T_XMAX, lp, f, &ctx.xid_values(h.xmax, b));
            done(Some(false))
        }
        None => done(Some(true)),
    }
}

/// verify_heapam's sanity checks of an LP_NORMAL line pointer, in its order: the first that
/// fails (the tuple header is not read then), with the numbers its message prints.
pub(crate) fn lp_problem(id: &ItemId, page_len: usize) -> Option<(Finding, Values)> {
    let (off, len) = (usize::from(id.off), usize::from(id.len));
    let (lp_off, lp_len) = (u32::from(id.off), u32::from(id.len));
    if off != maxalign(off) {
        Some((Finding::HeapLpNotMaxaligned, Values::new(&[lp_off])))
    } else if len < MIN_LP_LEN {
        Some((
            Finding::HeapLpTooShort,
            Values::new(&[lp_len, MIN_LP_LEN as u32]),
        ))
    } else if off.saturating_add(len) > page_len {
        let max = u32::try_from(page_len).unwrap_or(u32::MAX);
        Some((Finding::ItemPastPage, Values::new(&[lp_off, lp_len, max])))
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
        let ctid = r.tid(crate::page::bufpage::at(off, &htup::T_CTID))?;
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
    let hoff = u32::try_from(h.hoff).unwrap_or(u32::MAX);
    if h.hoff > len {
        spans.flag_item_valued(
            &htup::T_HOFF,
            lp,
            Finding::HeapHoffPastLength,
            &[hoff, u32::from(id.len)],
        );
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
    if let Some(values) = hoff_unexpected(h) {
        spans.flag_item_valued(
            &htup::T_HOFF,
            lp,
            Finding::HeapHoffUnexpected,
            values.as_slice(),
        );
        return false;
    }
    h.hoff <= len
}

/// check_tuple_header's rule for t_hoff: MAXALIGN(SizeofHeapTupleHeader + BITMAPLEN(natts))
/// with a null bitmap, MAXALIGN(SizeofHeapTupleHeader) without. When it is broken, the
/// numbers HeapHoffUnexpected prints.
fn hoff_unexpected(h: &Header) -> Option<Values> {
    let natts = usize::from(h.infomask2 & HEAP_NATTS_MASK);
    let expected = if h.infomask & HEAP_HASNULL != 0 {
        maxalign(SIZEOF_HEAP_TUPLE_HEADER.saturating_add(natts.saturating_add(7) / 8))
    } else {
        maxalign(SIZEOF_HEAP_TUPLE_HEADER)
    };
    let at = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
    (h.hoff != expected).then(|| {
        Values::new(&[
            at(expected),
            at(h.hoff),
            at(natts),
            u32::from(h.infomask & HEAP_HASNULL != 0),
        ])
    })
}

/// The LP_NORMAL line pointers whose bytes are no tuple by verify_heapam's rules, with the
/// first rule each breaks: its line pointer's ([`lp_problem`]) or its header's t_hoff
/// (check_tuple_header), after which verify_heapam checks the tuple no further. A header
/// read there is other bytes: a line pointer of an older write landing inside a newer
/// write's tuple (a torn page), or a line pointer array of garbage.
pub(crate) fn not_tuples(r: &Reader, lps: &[ItemId]) -> alloc::vec::Vec<(u16, Finding, Values)> {
    lps.iter()
        .filter(|id| id.flags == LP_NORMAL)
        .filter_map(|id| {
            if let Some((f, values)) = lp_problem(id, r.len()) {
                return Some((id.lp, f, values));
            }
            let h = Header::read(r, usize::from(id.off))?;
            if h.hoff > usize::from(id.len) {
                let hoff = u32::try_from(h.hoff).unwrap_or(u32::MAX);
                return Some((
                    id.lp,
                    Finding::HeapHoffPastLength,
                    Values::new(&[hoff, u32::from(id.len)]),
                ));
            }
            hoff_unexpected(&h).map(|v| (id.lp, Finding::HeapHoffUnexpected, v))
        })
        .collect()
}

/// verify_heapam's page loop: each line pointer, each valid tuple's header, then the update
/// chains within the page (16 on) from the successors it records.
/// `block` is the page's relation-wide block number: t_ctid naming it (and another line
/// pointer) makes that tuple the successor.
pub(crate) fn check_page(
    r: &Reader,
    block: u32,
    lps: &[ItemId],
    ctx: Option<&HeapContext>,
    spans: &mut Spans,
) {
    let maxoff = lps.len();
    let get = |off: u16| lps.get(usize::from(off).checked_sub(1)?);
    // Indexed by offset number - 1.
    let mut lp_valid = alloc::vec![false; maxoff];
    let mut successor = alloc::vec![0u16; maxoff];
    let mut headers: alloc::vec::Vec<Option<Header>> = alloc::vec![None; maxoff];
    // xmin's commit status where check_tuple learnt it (verify_heapam's xmin_commit_status).
    let mut xmin_committed = alloc::vec![false; maxoff];
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
                    spans.flag_item_valued(&item_id_data::LP_OFF, id.lp, f, &[u32::from(id.off)]);
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
                match ctx.filter(|_| sane) {
                    Some(ctx) => {
                        let v = check_visibility(&h, id.lp, ctx, spans);
                        set(&mut xmin_committed, i, v.xmin_committed == Some(true));
                        let natts = h.infomask2 & HEAP_NATTS_MASK;
                        if v.checkable == Some(true) && natts > ctx.relnatts {
                            spans.flag_item_valued(
                                &htup::T_INFOMASK2,
                                id.lp,
                                Finding::HeapNattsExceedsRelnatts,
                                &[
                                    u32::from(natts),
                                    u32::from(ctx.relnatts),
                                    ctx.pg_control_version,
                                ],
                            );
                        }
                    }
                    None => {
                        set(&mut xmin_committed, i, sane && h.xmin_known_committed());
                        if sane
                            && h.xmin_known_committed()
                            && h.infomask & HEAP_XMAX_IS_MULTI != 0
                            && h.xmax == 0
                        {
                            spans.flag_item(&htup::T_XMAX, id.lp, Finding::HeapMultiXactInvalid);
                        }
                    }
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
                spans.flag_item_valued(
                    &item_id_data::LP_OFF,
                    id.lp,
                    Finding::HeapRedirectToNonHeapOnly,
                    &[u32::from(next)],
                );
            }
            if pred != 0 {
                spans.flag_item_valued(
                    &item_id_data::LP_OFF,
                    id.lp,
                    Finding::HeapRedirectIntersect,
                    &[u32::from(next), u32::from(pred)],
                );
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
            spans.flag_item_valued(
                &htup::T_CTID,
                id.lp,
                Finding::HeapUpdateIntersect,
                &[u32::from(next), u32::from(pred)],
            );
            continue;
        }
        set(&mut predecessor, n, id.lp);
        let hot = cur.infomask2 & HEAP_HOT_UPDATED != 0;
        if !hot && nh.heap_only() {
            spans.flag_item_valued(
                &htup::T_CTID,
                id.lp,
                Finding::HeapNonHotUpdateMadeHeapOnly,
                &[u32::from(next)],
            );
        }
        if hot && !nh.heap_only() {
            spans.flag_item_valued(
                &htup::T_CTID,
                id.lp,
                Finding::HeapHotUpdateMadeNonHeapOnly,
                &[u32::from(next)],
            );
        }
    }
    for (i, id) in lps.iter().enumerate() {
        let Some(h) = headers.get(i).copied().flatten() else {
            continue;
        };
        let root = predecessor.get(i).copied().unwrap_or(0) == 0;
        let status_known = xmin_committed.get(i).copied().unwrap_or(false);
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

/// vacuumlazy.c's warning: PD_ALL_VISIBLE on a page with LP_DEAD line pointers.
pub(crate) fn check_all_visible(pd_flags: u16, lps: &[ItemId], spans: &mut Spans) {
    if pd_flags & PD_ALL_VISIBLE != 0 && lps.iter().any(|id| id.flags == LP_DEAD) {
        spans.flag(
            &crate::page::fields::page_header_data::PD_FLAGS,
            Finding::AllVisibleWithDeadItems,
        );
    }
}

/// The 512-byte sectors of a heap page that look like another version of it. A torn write
/// leaves sectors of the older (or newer) page under the header of the one whose first
/// sector holds it, so the line pointers describe tuples that are not the bytes there. A
/// tuple says so by rules PostgreSQL keeps on every page: its header is zeros or breaks
/// t_hoff's rule (check_tuple_header), its t_ctid is not its own TID although its xmax
/// is 0 (heap_insert sets t_ctid to the tuple's own TID; only an update, which also sets
/// xmax, points it elsewhere), or a redirect names it and it is not heap-only. A sector is
/// the other version's when most tuples whose headers end in it say so, and a sector
/// between two such is of the same tear. Empty when no sector is, or when
/// every tuple does (garbage or another block's page, not a torn write). `block` is the
/// page's relation-wide block number. Only meaningful on a page whose checksum fails.
pub(crate) fn torn_sectors(r: &Reader, lps: &[ItemId], block: u32) -> alloc::vec::Vec<usize> {
    // Each tuple's sector and whether it is sound; `at`: its index by line pointer.
    let mut verdicts: alloc::vec::Vec<(usize, bool)> = alloc::vec::Vec::new();
    let mut at: alloc::collections::BTreeMap<u16, usize> = alloc::collections::BTreeMap::new();
    let mut foreign = 0usize;
    for id in lps
        .iter()
        .filter(|id| id.flags != LP_UNUSED && id.flags != LP_REDIRECT && id.len != 0)
    {
        if lp_problem(id, r.len()).is_some() {
            continue;
        }
        let off = usize::from(id.off);
        let sound = tuple_is_own(r, off, id.len, block, id.lp);
        // Bytes that are no tuple header at all (zeros, or t_hoff's rule broken), as the middle
        // of another write's tuple is; a header whose only fault is its t_ctid is a tuple.
        // A sound header naming another block is that block's tuple (a misplaced page, or a
        // file read at the wrong block number) or a flipped bit: never a tear, whose older
        // sectors are this block's own earlier write and name this block. It speaks for
        // neither side.
        if !sound
            && header_is_tuple(r, off, id.len)
            && Header::read(r, off).is_some_and(|h| h.ctid_block != block)
        {
            foreign = foreign.saturating_add(1);
            continue;
        }
        // The sector the header ends in: a header across a sector boundary reads the later
        // sector's bytes there.
        let end = off.saturating_add(SIZEOF_HEAP_TUPLE_HEADER.saturating_sub(1));
        at.insert(id.lp, verdicts.len());
        verdicts.push((end.min(r.len().saturating_sub(1)) / SECTOR, sound));
    }
    // A redirect in the line pointer array names a heap-only tuple (verify_heapam:
    // "redirected line pointer points to a non-heap-only tuple"): a tuple there that is
    // not one is another version's, even when its own header and t_ctid agree with it.
    for id in lps.iter().filter(|id| id.flags == LP_REDIRECT) {
        let Some(target) = lps.get(usize::from(id.off).wrapping_sub(1)) else {
            continue;
        };
        let Some(&i) = at.get(&target.lp) else {
            continue;
        };
        if Header::read(r, usize::from(target.off)).is_some_and(|h| !h.heap_only()) {
            if let Some(v) = verdicts.get_mut(i) {
                v.1 = false;
            }
        }
    }
    let tuples = verdicts.len().saturating_add(foreign);
    // Most tuples another block's: that block's page, not a tear.
    if foreign.saturating_mul(2) >= tuples {
        return alloc::vec::Vec::new();
    }
    if verdicts.iter().all(|v| !v.1) {
        // Every tuple wrong under a sane header and line pointers: the line pointers all lie
        // in another write's sectors (a page whose tuples sit in its later half, torn at a
        // 4 kB boundary), named from the first tuple's sector to the last; where the other
        // write begins before them the page cannot show. Tuples whose t_ctid names another
        // block are that block's page, not a tear.
        if verdicts.len() >= 2 {
            let first = verdicts.iter().map(|v| v.0).min().unwrap_or(0);
            let last = verdicts.iter().map(|v| v.0).max().unwrap_or(0);
            return (first..=last).collect();
        }
        return alloc::vec::Vec::new();
    }
    // A sector is another version's when most tuples whose headers end there say so: one
    // odd tuple among sound ones is a damaged tuple (a flipped bit), not a tear.
    let sectors = r.len() / SECTOR;
    let mut bad = alloc::vec![0u32; sectors];
    let mut good = alloc::vec![0u32; sectors];
    for &(s, sound) in &verdicts {
        let counts = if sound { &mut good } else { &mut bad };
        if let Some(n) = counts.get_mut(s) {
            *n = n.saturating_add(1);
        }
    }
    let torn = |s: usize| bad.get(s).copied().unwrap_or(0) > good.get(s).copied().unwrap_or(0);
    let first = (0..sectors).find(|&s| torn(s));
    let last = (0..sectors).rev().find(|&s| torn(s));
    match (first, last) {
        (Some(f), Some(l)) => (f..=l).collect(),
        _ => alloc::vec::Vec::new(),
    }
}

/// HOT links a heap page's line pointer array does not have: (root, successor) for each
/// tuple that is HeapTupleHeaderIsHotUpdated, its t_ctid naming a line pointer of this page
/// that is LP_UNUSED or past the array's end. A consistent page never shows one: pruning
/// removes a heap-only tuple only with the chain it ends (the root then a redirect or dead),
/// and an aborted update marks its xmax invalid, which ends the link. So the line pointers
/// are an older write than the tuple that names the newer one (a page torn in its first
/// sector, the header's): the update's new version lies in what that header calls free
/// space. `block` is the page's relation-wide block number.
pub(crate) fn links_past_header(
    r: &Reader,
    lps: &[ItemId],
    block: u32,
) -> alloc::vec::Vec<(u16, u16)> {
    let unused = |lp: u16| {
        usize::from(lp)
            .checked_sub(1)
            .and_then(|i| lps.get(i))
            .is_none_or(|id| id.flags == LP_UNUSED)
    };
    // MaxHeapTuplesPerPage: a t_ctid past it names no line pointer at all (a damaged one).
    let max_tuples = r
        .len()
        .saturating_sub(SIZE_OF_PAGE_HEADER_DATA)
        .checked_div(maxalign(SIZEOF_HEAP_TUPLE_HEADER).saturating_add(4))
        .unwrap_or(0);
    lps.iter()
        .filter(|id| id.flags == LP_NORMAL && id.len != 0 && lp_problem(id, r.len()).is_none())
        .filter_map(|id| {
            let off = usize::from(id.off);
            if !header_is_tuple(r, off, id.len) {
                return None;
            }
            let h = Header::read(r, off)?;
            (h.hot_updated()
                && h.xmax != 0
                && h.ctid_block == block
                && h.ctid_offset != id.lp
                && h.ctid_offset != 0
                && usize::from(h.ctid_offset) <= max_tuples
                && unused(h.ctid_offset))
            .then_some((id.lp, h.ctid_offset))
        })
        .collect()
}

/// Whether the bytes at `off` read as a tuple header of length `len` at all: not zeros, and
/// t_hoff as its attribute count and null bitmap make it (check_tuple_header).
fn header_is_tuple(r: &Reader, off: usize, len: u16) -> bool {
    Header::read(r, off).is_some_and(|h| {
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
            && h.hoff <= usize::from(len)
            && h.hoff == maxalign(SIZEOF_HEAP_TUPLE_HEADER.saturating_add(bitmap))
    })
}

/// Whether the bytes at `off` can be line pointer `lp`'s tuple of length `len`: a header that
/// is not zeros, keeps t_hoff's rule (check_tuple_header) and whose t_ctid is the tuple's own
/// TID unless an update or a lock set xmax (heap_insert sets t_ctid to the tuple's own TID;
/// only an update, which also sets xmax, points it elsewhere).
fn tuple_is_own(r: &Reader, off: usize, len: u16, block: u32, lp: u16) -> bool {
    header_is_tuple(r, off, len)
        && Header::read(r, off).is_some_and(|h| {
            // A speculative insertion's token (SpecTokenOffsetNumber) stands in t_ctid
            // until it completes.
            h.xmax != 0
                || h.infomask & HEAP_XMAX_IS_MULTI != 0
                || h.ctid_offset == SPEC_TOKEN_OFFSET_NUMBER
                || (h.ctid_block == block && h.ctid_offset == lp)
        })
}

/// The rows of a torn page whose tuples the older write holds at another place. Pruning
/// between the two writes compacts the page (PageRepairFragmentation moves the tuples that
/// stay and keeps their line pointers), so the newer write's line pointers point into the
/// older sectors at other rows' bytes. A tuple nothing updated names its own line pointer in
/// t_ctid, so each normal line pointer whose own place holds another tuple is looked for at
/// every MAXALIGNed offset past the line pointers: a tuple of the line pointer's length,
/// across no tuple that stands at its own line pointer's place, with a sane header, xmax 0
/// and t_ctid naming it. The line pointer's length is its row's,
/// unchanged since an unupdated tuple's bytes are. Two finds that differ beyond the hint
/// bits are no find. `torn` (the older write's sectors found) only has to be non-empty.
/// Returns (line pointer, offset of its tuple).
pub(crate) fn torn_moved(
    r: &Reader,
    lps: &[ItemId],
    block: u32,
    torn: &[usize],
) -> alloc::vec::Vec<(u16, u16)> {
    if torn.is_empty() {
        return alloc::vec::Vec::new();
    }
    let sound: alloc::vec::Vec<&ItemId> = lps
        .iter()
        .filter(|id| id.flags == LP_NORMAL && usize::from(id.len) >= SIZEOF_HEAP_TUPLE_HEADER)
        .filter(|id| lp_problem(id, r.len()).is_none())
        .collect();
    let (own, wanted): (alloc::vec::Vec<&ItemId>, alloc::vec::Vec<&ItemId>) = sound
        .iter()
        .partition(|id| tuple_is_own(r, usize::from(id.off), id.len, block, id.lp));
    let wanted: alloc::collections::BTreeMap<u16, u16> =
        wanted.iter().map(|id| (id.lp, id.len)).collect();
    if wanted.is_empty() {
        return alloc::vec::Vec::new();
    }
    // A tuple that is its own line pointer's stands where it stands: nothing lies across it.
    let taken: alloc::vec::Vec<(usize, usize)> = own
        .iter()
        .map(|id| {
            let from = usize::from(id.off);
            (from, from.saturating_add(usize::from(id.len)))
        })
        .collect();
    let clear = |from: usize, len: usize| {
        let to = from.saturating_add(len);
        taken.iter().all(|&(a, b)| to <= a || from >= b)
    };
    let lower = SIZE_OF_PAGE_HEADER_DATA.saturating_add(lps.len().saturating_mul(4));
    let end = r.len();
    let mut found: alloc::collections::BTreeMap<u16, alloc::vec::Vec<usize>> =
        alloc::collections::BTreeMap::new();
    let mut off = maxalign(lower);
    while off.saturating_add(SIZEOF_HEAP_TUPLE_HEADER) <= end {
        if let Some(h) = Header::read(r, off) {
            if let Some(&len) = wanted.get(&h.ctid_offset) {
                if h.ctid_block == block
                    && h.xmax == 0
                    && h.infomask & HEAP_XMAX_IS_MULTI == 0
                    && off.saturating_add(usize::from(len)) <= end
                    && clear(off, usize::from(len))
                    && tuple_is_own(r, off, len, block, h.ctid_offset)
                {
                    found.entry(h.ctid_offset).or_default().push(off);
                }
            }
        }
        off = maxalign(off.saturating_add(1));
    }
    // t_infomask (bytes 20-21) carries the hint bits, set on one copy and not another.
    let body = |off: usize, len: usize| {
        let b = r.bytes(off, len).0;
        (b.get(..20).unwrap_or(&[]), b.get(22..).unwrap_or(&[]))
    };
    found
        .into_iter()
        .filter_map(|(lp, offs)| {
            let len = usize::from(*wanted.get(&lp)?);
            let (&one, rest) = offs.split_first()?;
            rest.iter()
                .all(|&o| body(o, len) == body(one, len))
                .then(|| Some((lp, u16::try_from(one).ok()?)))
                .flatten()
        })
        .collect()
}

/// The line pointers a torn write took, given its sectors: every tuple that lies even
/// partly in them (a stale version of its row, or pieces of two). A heap-only tuple outside
/// them that nothing leads to any more is not taken: its bytes are the new write's, the
/// newest version of a row whose chain starts in the older sectors (a sequential scan
/// returns it, an index scan does not).
pub(crate) fn torn_items(lps: &[ItemId], torn: &[usize]) -> alloc::vec::Vec<u16> {
    let in_torn = |id: &ItemId| {
        let first = usize::from(id.off) / SECTOR;
        let last =
            usize::from(id.off).saturating_add(usize::from(id.len).saturating_sub(1)) / SECTOR;
        id.flags != LP_REDIRECT && id.len != 0 && torn.iter().any(|s| (first..=last).contains(s))
    };
    lps.iter()
        .filter(|id| in_torn(id))
        .map(|id| id.lp)
        .collect()
}

/// What a tuple's header says of the line pointer it stands under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Claim {
    /// xmax 0 or lock-only: nothing updated or deleted it, so t_ctid is its own TID
    /// (heap_insert sets it so; only heap_update points it elsewhere, and sets xmax).
    Own(u16),
    /// Deleted or updated (or an update that aborted): t_ctid is its own TID after a delete,
    /// its successor's after an update.
    Either(u16),
    /// HEAP_HOT_UPDATED, or t_ctid naming another block: an updated version, whose t_ctid
    /// names its successor and whose own line pointer its bytes do not tell.
    Successor,
}

/// A tuple found by its bytes alone: where it lies, its exact length and what it claims.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Found {
    pub off: usize,
    pub len: usize,
    pub claim: Claim,
    pub heap_only: bool,
    /// HEAP_HOT_UPDATED with its xmax set: its successor is a heap-only tuple.
    pub hot_updated: bool,
}

/// t_infomask2's two bits between the attribute count and HEAP_KEYS_UPDATED, which
/// PostgreSQL never sets.
const INFOMASK2_UNUSED: u16 = 0x1800;

/// MaxHeapTuplesPerPage for a page of `len` bytes: a t_ctid past it names no line pointer.
pub(crate) fn max_heap_tuples(len: usize) -> usize {
    len.saturating_sub(SIZE_OF_PAGE_HEADER_DATA)
        .checked_div(maxalign(SIZEOF_HEAP_TUPLE_HEADER).saturating_add(4))
        .unwrap_or(0)
}

/// Whether the bytes at `off` are a heap tuple header of block `block` that PostgreSQL could
/// have written, and what it claims: t_hoff's rule (check_tuple_header), no bit PostgreSQL
/// never sets (t_infomask2's unused bits, HEAP_HASOID_OLD, the pre-9.0 HEAP_MOVED bits), at
/// least one attribute, xmin normal or frozen, and a t_ctid offset within
/// MaxHeapTuplesPerPage. A tuple nothing updated names this block.
fn plausible_tuple(r: &Reader, off: usize, block: u32) -> Option<(Header, Claim)> {
    use crate::am::heap::layout::HEAP_HASOID_OLD;
    let h = Header::read(r, off)?;
    let sane = header_is_tuple(r, off, u16::MAX)
        && h.infomask2 & INFOMASK2_UNUSED == 0
        && h.infomask & (HEAP_HASOID_OLD | HEAP_MOVED_OFF | HEAP_MOVED_IN) == 0
        && h.infomask2 & HEAP_NATTS_MASK != 0
        && (h.xmin() == FROZEN_TRANSACTION_ID || h.xmin >= FIRST_NORMAL_TRANSACTION_ID)
        && h.ctid_offset != 0
        && usize::from(h.ctid_offset) <= max_heap_tuples(r.len());
    if !sane {
        return None;
    }
    let untouched =
        h.xmax == 0 || (h.infomask & HEAP_XMAX_INVALID == 0 && xmax_is_locked_only(h.infomask));
    let claim = if h.infomask2 & HEAP_HOT_UPDATED != 0 && !untouched {
        Claim::Successor
    } else if h.ctid_block != block {
        if untouched {
            return None;
        }
        Claim::Successor
    } else if untouched {
        Claim::Own(h.ctid_offset)
    } else {
        Claim::Either(h.ctid_offset)
    };
    Some((h, claim))
}

/// Whether the bytes at `off` are a heap tuple header of block `block` that PostgreSQL
/// could have written ([`plausible_tuple`]).
pub(crate) fn plausible_at(r: &Reader, off: usize, block: u32) -> bool {
    plausible_tuple(r, off, block).is_some()
}

/// The tuples a heap page's bytes hold from its end down, found without its line pointers
/// (a page torn in its first sector, whose line pointer array is an older write's). Every
/// way PostgreSQL places a heap tuple (PageAddItem, and compactify_tuples when pruning
/// compacts the page) puts it right below the last one placed, MAXALIGN(t_len) long, from
/// pd_special down: so the tuples tile [pd_upper, page end). From the page end down, the one
/// tuple that ends where the last found begins is taken: a plausible header
/// ([`plausible_tuple`]) whose attributes, deformed with the table's `attrs`, end exactly
/// there. The walk stops where no tuple, or more than one, ends at the boundary, at `from`
/// (the first byte the newer write holds), and at bytes a compaction left in the free space
/// (a tuple that names a line pointer a tuple above holds for sure). Of two tuples naming one
/// line pointer, the lower is the successor of the higher, which claims none then. Returns
/// the tuples, highest first.
pub(crate) fn newer_tuples(
    r: &Reader,
    block: u32,
    from: usize,
    attrs: &[crate::tuple::Attribute],
) -> alloc::vec::Vec<Found> {
    let end = r.len();
    let mut ends: alloc::collections::BTreeMap<usize, alloc::vec::Vec<Found>> =
        alloc::collections::BTreeMap::new();
    let mut datums = alloc::vec::Vec::new();
    let mut off = maxalign(from);
    while off.saturating_add(SIZEOF_HEAP_TUPLE_HEADER) <= end {
        if let Some((h, claim)) = plausible_tuple(r, off, block) {
            let bytes = r.b.get(off..end).unwrap_or_default();
            let natts = usize::from(h.infomask2 & HEAP_NATTS_MASK);
            if natts <= attrs.len() {
                if let Ok(used) = crate::tuple::deform(bytes, attrs, r.e, &mut datums) {
                    let len = h.hoff.saturating_add(used);
                    ends.entry(off.saturating_add(maxalign(len)))
                        .or_default()
                        .push(Found {
                            off,
                            len,
                            claim,
                            heap_only: h.heap_only(),
                            hot_updated: h.infomask2 & HEAP_HOT_UPDATED != 0 && h.xmax != 0,
                        });
                }
            }
        }
        off = off.saturating_add(8);
    }
    // Each line pointer's claimant so far, by index into `out`.
    let mut claimed: alloc::collections::BTreeMap<u16, usize> = alloc::collections::BTreeMap::new();
    let mut out: alloc::vec::Vec<Found> = alloc::vec::Vec::new();
    let mut boundary = end;
    while let Some([one]) = ends.get(&boundary).map(alloc::vec::Vec::as_slice) {
        if one.off < from || one.off >= boundary {
            break;
        }
        if let Claim::Own(lp) | Claim::Either(lp) = one.claim {
            // Tuples lie in the order they were written (compactify_tuples keeps it), so a
            // successor lies below the version it updated: a tuple below one that names
            // the same line pointer as updated is its successor. Below a tuple that is its
            // line pointer's for sure, it is bytes a compaction left in the free space:
            // the newer write's tuples end above it.
            if let Some(&i) = claimed.get(&lp) {
                match out.get_mut(i) {
                    Some(higher) if matches!(higher.claim, Claim::Either(_)) => {
                        higher.claim = Claim::Successor;
                    }
                    _ => break,
                }
            }
            claimed.insert(lp, out.len());
        }
        out.push(*one);
        boundary = one.off;
    }
    out
}

/// Tuples of a heap page that its header cannot have written: a tuple nothing updated
/// (xmax 0 or lock-only) naming in t_ctid a line pointer of this block that the header calls
/// unused or does not have. Only bytes at or above pd_upper count, outside every tuple the
/// header's own line pointers describe correctly: on a page that is one write, those
/// tuples tile [pd_upper, page end), and the bytes a compaction or a truncated line pointer
/// array (PageTruncateLinePointerArray) leaves behind lie in the free space below pd_upper.
/// Only tuples inserted after every tuple the header describes at its place count.
/// Returns the line pointers they name, sorted, each once.
pub(crate) fn tuples_past_header(
    r: &Reader,
    lps: &[ItemId],
    block: u32,
    upper: usize,
) -> alloc::vec::Vec<u16> {
    let unused = |lp: u16| {
        usize::from(lp)
            .checked_sub(1)
            .and_then(|i| lps.get(i))
            .is_none_or(|id| id.flags == LP_UNUSED)
    };
    let described: alloc::vec::Vec<(usize, usize, u32)> = lps
        .iter()
        .filter(|id| id.flags == LP_NORMAL && usize::from(id.len) >= SIZEOF_HEAP_TUPLE_HEADER)
        .filter(|id| lp_problem(id, r.len()).is_none())
        .filter(|id| tuple_is_own(r, usize::from(id.off), id.len, block, id.lp))
        .filter_map(|id| {
            let from = usize::from(id.off);
            let xmin = Header::read(r, from)?.xmin();
            Some((
                from,
                from.saturating_add(maxalign(usize::from(id.len))),
                xmin,
            ))
        })
        .collect();
    // Written after the header, such a tuple was inserted after every tuple the header
    // describes: its xmin follows theirs (TransactionIdFollows). Sectors of an older write
    // under a newer header hold tuples that name line pointers VACUUM freed since, but
    // inserted before the newer header's own tuples; and with no tuple described at its
    // place the header says nothing to compare with.
    let follows_all = |xmin: u32| {
        xmin >= FIRST_NORMAL_TRANSACTION_ID
            && described.iter().all(|&(_, _, d)| {
                d < FIRST_NORMAL_TRANSACTION_ID || (xmin.wrapping_sub(d) as i32) > 0
            })
    };
    let mut out: alloc::collections::BTreeSet<u16> = alloc::collections::BTreeSet::new();
    if described.is_empty() {
        return alloc::vec::Vec::new();
    }
    let mut off = maxalign(upper.max(SIZE_OF_PAGE_HEADER_DATA));
    while off.saturating_add(SIZEOF_HEAP_TUPLE_HEADER) <= r.len() {
        if described.iter().all(|&(a, b, _)| off < a || off >= b) {
            if let Some((h, Claim::Own(lp))) = plausible_tuple(r, off, block) {
                if unused(lp) && follows_all(h.xmin()) {
                    out.insert(lp);
                }
            }
        }
        off = off.saturating_add(8);
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(next_full_xid: u64) -> HeapContext<'static> {
        HeapContext {
            relnatts: 2,
            pg_control_version: 0,
            relfrozenxid: 900,
            relminmxid: 5,
            next_full_xid,
            oldest_xid: 800,
            oldest_multi: 3,
            next_multi: 40,
            next_known: true,
            xact: None,
        }
    }

    #[test]
    fn xids_take_the_epoch_nearest_next_xid() {
        // Epoch 1, xid 100: 4e9 is of epoch 0, 200 is ahead of nextXid.
        let c = ctx((1 << 32) | 100);
        assert_eq!(c.full(4_000_000_000), 4_000_000_000);
        assert_eq!(c.full(100), (1 << 32) | 100);
        assert_eq!(c.full(200), (1 << 32) | 200);
        // Epoch 0: an xid that would fall before it is FirstNormalTransactionId.
        let c = ctx(1000);
        assert_eq!(c.full(3_000_000_000), 3);
        assert_eq!(c.full(2), 2);
    }

    #[test]
    fn bounds_in_get_xid_status_order() {
        let c = ctx(1000);
        assert!(c.xid_bounds(0) == Bounds::Invalid);
        assert!(c.xid_bounds(FROZEN_TRANSACTION_ID) == Bounds::Ok);
        assert!(c.xid_bounds(1000) == Bounds::InFuture);
        assert!(c.xid_bounds(3_000_000_000) == Bounds::PrecedesClusterMin);
        assert!(c.xid_bounds(799) == Bounds::PrecedesClusterMin);
        assert!(c.xid_bounds(899) == Bounds::PrecedesRelMin);
        assert!(c.xid_bounds(900) == Bounds::Ok);
        assert!(c.multi_bounds(0) == Bounds::Invalid);
        assert!(c.multi_bounds(4) == Bounds::PrecedesRelMin);
        assert!(c.multi_bounds(40) == Bounds::InFuture);
        // MultiXactIdPrecedes is modulo 2^32: half the range ahead is behind.
        assert!(c.multi_bounds(5 + (1 << 31) + 1) == Bounds::PrecedesRelMin);
        assert!(c.multi_bounds(39) == Bounds::Ok);
    }
}
