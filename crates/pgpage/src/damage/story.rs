//! What happened to a page between two copies of it, in one plain sentence a teacher would say
//! ("pruning turned lp 3 into a redirect to lp 8"), with the facts behind the sentence; and a
//! heap page's line pointers with their redirects and HOT chains, for a picture to draw.

use crate::am::heap::layout::{HEAP_HOT_UPDATED, HEAP_ONLY_TUPLE};
use crate::am::maps::layout::{VISIBILITYMAP_ALL_FROZEN, VISIBILITYMAP_ALL_VISIBLE};
use crate::am::nbtree::layout::{BTP_LEAF, BTP_ROOT};
use crate::page::fields::{
    BTP_META, HEAP_XMAX_COMMITTED, HEAP_XMAX_INVALID, HEAP_XMAX_LOCK_ONLY, PD_ALL_VISIBLE,
};
use crate::words::plural;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

use crate::page::bufpage::{SIZE_OF_ITEM_ID, SIZE_OF_PAGE_HEADER_DATA};
use crate::page::fields::{HEAP_XMIN_COMMITTED, HEAP_XMIN_FROZEN};
use crate::page::geometry::{read_u16, read_u32, Endian};
use crate::page::kind::PageKind;
use crate::page::verify::{verify_page, PageStatus};
use crate::tuple::TupleHeader;

/// itemid.h: lp_flags.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum LpFlags {
    #[serde(rename = "LP_UNUSED")]
    Unused,
    #[serde(rename = "LP_NORMAL")]
    Normal,
    #[serde(rename = "LP_REDIRECT")]
    Redirect,
    #[serde(rename = "LP_DEAD")]
    Dead,
}

impl LpFlags {
    fn of(bits: u32) -> LpFlags {
        match bits & 3 {
            0 => LpFlags::Unused,
            1 => LpFlags::Normal,
            2 => LpFlags::Redirect,
            _ => LpFlags::Dead,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            LpFlags::Unused => "LP_UNUSED",
            LpFlags::Normal => "LP_NORMAL",
            LpFlags::Redirect => "LP_REDIRECT",
            LpFlags::Dead => "LP_DEAD",
        }
    }
}

/// One line pointer of a heap page and, for LP_NORMAL, the tuple header facts a picture of
/// HOT chains needs.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LineItem {
    pub lp: u16,
    pub lp_flags: LpFlags,
    pub lp_off: u16,
    pub lp_len: u16,
    /// LP_REDIRECT: the line pointer it redirects to (lp_off holds it).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub redirect_to: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub t_xmin: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub t_xmax: Option<u32>,
    /// "(block,offset)" as heap_page_items prints it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub t_ctid: Option<String>,
    pub hot_updated: bool,
    pub heap_only: bool,
    pub xmin_frozen: bool,
    /// HEAP_XMIN_COMMITTED without HEAP_XMIN_INVALID (the frozen combination).
    pub xmin_committed: bool,
    /// HEAP_XMAX_INVALID: a hint that t_xmax (if any) aborted or was never set.
    pub xmax_invalid: bool,
    pub xmax_lock_only: bool,
    /// The next member of this tuple's HOT chain: t_ctid's offset when the tuple is
    /// HEAP_HOT_UPDATED and t_ctid names this page (heap_hot_search_buffer follows it).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub hot_next: Option<u16>,
    /// t_ctid names another tuple (a newer version): where, when not a HOT successor.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub updated_to: Option<String>,
}

/// A heap page's line pointers, for the line-pointer and HOT-chain picture.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HeapLines {
    pub block: u32,
    pub all_visible: bool,
    pub pd_prune_xid: u32,
    pub items: Vec<LineItem>,
}

/// How many line pointers pd_lower counts, bounded by the page.
fn line_count(page: &[u8], endian: Endian) -> u16 {
    let lower = usize::from(read_u16(page, 12, endian).unwrap_or(0)).min(page.len());
    let n = lower.saturating_sub(SIZE_OF_PAGE_HEADER_DATA) / SIZE_OF_ITEM_ID;
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// itemid.h ItemIdData of line pointer `lp` (1-based): (lp_off, lp_flags, lp_len).
fn item_id(page: &[u8], lp: u16, endian: Endian) -> Option<(u16, LpFlags, u16)> {
    let at = usize::from(lp.checked_sub(1)?)
        .saturating_mul(SIZE_OF_ITEM_ID)
        .saturating_add(SIZE_OF_PAGE_HEADER_DATA);
    let w = read_u32(page, at, endian)?;
    let (off, flags, len) = match endian {
        Endian::Little => (w & 0x7FFF, (w >> 15) & 3, w >> 17),
        Endian::Big => (w >> 17, (w >> 15) & 3, w & 0x7FFF),
    };
    Some((
        u16::try_from(off).unwrap_or(0),
        LpFlags::of(flags),
        u16::try_from(len).unwrap_or(0),
    ))
}

fn line_item(page: &[u8], block: u32, lp: u16, endian: Endian) -> Option<LineItem> {
    let (off, flags, len) = item_id(page, lp, endian)?;
    let mut it = LineItem {
        lp,
        lp_flags: flags,
        lp_off: off,
        lp_len: len,
        redirect_to: None,
        t_xmin: None,
        t_xmax: None,
        t_ctid: None,
        hot_updated: false,
        heap_only: false,
        xmin_frozen: false,
        xmin_committed: false,
        xmax_invalid: false,
        xmax_lock_only: false,
        hot_next: None,
        updated_to: None,
    };
    match flags {
        LpFlags::Redirect => it.redirect_to = Some(off),
        LpFlags::Normal => {
            let start = usize::from(off);
            let tuple = page
                .get(start..start.saturating_add(usize::from(len)))
                .filter(|_| start >= SIZE_OF_PAGE_HEADER_DATA);
            if let Some(h) = tuple.and_then(|t| TupleHeader::read(t, endian)) {
                it.t_xmin = Some(h.t_xmin);
                it.t_xmax = Some(h.t_xmax);
                it.t_ctid = Some(format!("({},{})", h.t_ctid_block, h.t_ctid_offset));
                it.hot_updated = h.t_infomask2 & HEAP_HOT_UPDATED != 0;
                it.heap_only = h.t_infomask2 & HEAP_ONLY_TUPLE != 0;
                it.xmin_frozen = h.t_infomask & HEAP_XMIN_FROZEN == HEAP_XMIN_FROZEN;
                it.xmin_committed = !it.xmin_frozen && h.t_infomask & HEAP_XMIN_COMMITTED != 0;
                it.xmax_invalid = h.t_infomask & HEAP_XMAX_INVALID != 0;
                it.xmax_lock_only = h.t_infomask & HEAP_XMAX_LOCK_ONLY != 0;
                let points_elsewhere = h.t_ctid_block != block || h.t_ctid_offset != lp;
                if it.hot_updated && h.t_ctid_block == block && points_elsewhere {
                    it.hot_next = Some(h.t_ctid_offset);
                } else if points_elsewhere && h.t_xmax != 0 {
                    it.updated_to = it.t_ctid.clone();
                }
            }
        }
        LpFlags::Unused | LpFlags::Dead => {}
    }
    Some(it)
}

/// Every line pointer of heap page `page` (block `block` of its relation), with redirects,
/// HOT chain links and xmin/xmax; None when the page has no heap layout (a new page).
pub fn heap_lines(page: &[u8], block: u32, endian: Endian) -> Option<HeapLines> {
    if read_u16(page, 14, endian).unwrap_or(0) == 0 {
        return None;
    }
    let items = (1..=line_count(page, endian))
        .filter_map(|lp| line_item(page, block, lp, endian))
        .collect();
    Some(HeapLines {
        block,
        all_visible: read_u16(page, 10, endian).unwrap_or(0) & PD_ALL_VISIBLE != 0,
        pd_prune_xid: read_u32(page, 20, endian).unwrap_or(0),
        items,
    })
}

/// One thing that happened to a page; the sentence says them in this order.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Change {
    /// A page that was not there (or was new and empty).
    NewPage { kind: PageKind, items: u16 },
    /// New tuples that are not heap-only: an INSERT, or a non-HOT UPDATE's new versions.
    Inserted { lps: Vec<u16> },
    /// lp `from` gained HEAP_HOT_UPDATED, its t_ctid pointing at heap-only lp `to`.
    HotUpdate { from: u16, to: u16 },
    /// lp gained a t_xmax and a t_ctid naming another tuple, without HOT.
    Updated { lp: u16, to: String },
    /// lps gained a t_xmax, t_ctid still naming themselves.
    Deleted { lps: Vec<u16> },
    /// lps gained a t_xmax that only locks them (HEAP_XMAX_LOCK_ONLY).
    Locked { lps: Vec<u16> },
    /// lp became LP_REDIRECT to `to`.
    Redirected { from: u16, to: u16 },
    /// lps became LP_DEAD: a heap page's pruning or VACUUM's first pass; an index page's
    /// scan that found the heap tuples dead to all (kill_prior_tuple).
    Dead { lps: Vec<u16>, index: bool },
    /// lps became LP_UNUSED; `from` says what they were, `heap_only` whether they held
    /// heap-only tuples (which no index entry points at).
    Unused {
        lps: Vec<u16>,
        from: LpFlags,
        heap_only: bool,
    },
    /// lps were cut off the end of the line pointer array.
    Truncated { lps: Vec<u16> },
    /// PD_ALL_VISIBLE set (true) or cleared (false).
    AllVisible { set: bool },
    /// lps gained HEAP_XMIN_FROZEN.
    Frozen { lps: Vec<u16> },
    /// lps gained hint bits: HEAP_XMIN_COMMITTED, HEAP_XMAX_INVALID or HEAP_XMAX_COMMITTED.
    HintBits {
        lps: Vec<u16>,
        flags: Vec<&'static str>,
    },
    /// Tuples moved within the page (PageRepairFragmentation): pd_upper from `a` to `b`.
    Compacted { a: u16, b: u16 },
    /// pd_prune_xid set from 0.
    PruneHint { xid: u32 },
    /// A B-tree page that had no right sibling, or another, now links to `right`.
    Split { right: u32 },
    /// Index tuples added or removed.
    IndexTuples { added: u16, removed: u16 },
    /// The visibility map's bits of heap blocks.
    VmBits {
        heap_blocks: Vec<u64>,
        all_visible: bool,
        all_frozen: bool,
        set: bool,
    },
    /// The page failed its checksum before and passes it now: its damage can no longer
    /// be found by checksum.
    Resealed,
    /// The page passed its checksum before and fails it now.
    ChecksumBroken,
}

/// What happened to one page, as facts and as one sentence.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PageStory {
    pub changes: Vec<Change>,
    /// Empty when nothing the sentence tells of changed (only pd_lsn, say).
    pub sentence: String,
}

/// "lp 2-5, 9": runs of consecutive numbers; past six runs, the first five and a count.
pub fn lp_list(lps: &[u16]) -> String {
    let mut runs: Vec<(u16, u16)> = Vec::new();
    for &lp in lps {
        match runs.last_mut() {
            Some((_, end)) if end.checked_add(1) == Some(lp) => *end = lp,
            _ => runs.push((lp, lp)),
        }
    }
    let text = |&(a, b): &(u16, u16)| {
        if a == b {
            format!("{a}")
        } else {
            format!("{a}-{b}")
        }
    };
    let shown: Vec<String> = if runs.len() > 6 {
        runs.iter().take(5).map(text).collect()
    } else {
        runs.iter().map(text).collect()
    };
    let mut out = format!("lp {}", shown.join(", "));
    if runs.len() > 6 {
        out.push_str(&format!(", … ({} line pointers)", lps.len()));
    }
    out
}

fn is_new(page: Option<&[u8]>, endian: Endian) -> bool {
    page.is_none_or(|p| read_u16(p, 14, endian).unwrap_or(0) == 0)
}

fn heap_changes(a: Option<&[u8]>, b: &[u8], block: u32, endian: Endian) -> Vec<Change> {
    let mut out = Vec::new();
    let none = HeapLines {
        block,
        all_visible: false,
        pd_prune_xid: 0,
        items: Vec::new(),
    };
    let la = a.and_then(|p| heap_lines(p, block, endian)).unwrap_or(none);
    let Some(lb) = heap_lines(b, block, endian) else {
        return out;
    };
    let before = |lp: u16| la.items.iter().find(|i| i.lp == lp);
    let (mut inserted, mut deleted, mut locked, mut frozen, mut truncated) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut dead, mut hinted) = (Vec::new(), Vec::new());
    let mut hint_flags: Vec<&'static str> = Vec::new();
    let mut unused: Vec<(LpFlags, bool, Vec<u16>)> = Vec::new();
    let mut hot = Vec::new();
    let mut redirects = Vec::new();
    let mut updates = Vec::new();
    for y in &lb.items {
        let x = before(y.lp);
        let was = x.map_or(LpFlags::Unused, |x| x.lp_flags);
        match (was, y.lp_flags) {
            (LpFlags::Unused | LpFlags::Dead, LpFlags::Normal) if !y.heap_only => {
                inserted.push(y.lp);
            }
            (LpFlags::Normal, LpFlags::Normal) => {
                let Some(x) = x else { continue };
                if x.t_xmin != y.t_xmin {
                    // Another tuple in the same slot: the old one went and a new one came.
                    if !y.heap_only {
                        inserted.push(y.lp);
                    }
                    continue;
                }
                if x.t_xmax != y.t_xmax && y.t_xmax != Some(0) {
                    if y.xmax_lock_only {
                        locked.push(y.lp);
                    } else if let Some(to) = y.hot_next {
                        hot.push((y.lp, to));
                    } else if let Some(to) = &y.updated_to {
                        updates.push((y.lp, to.clone()));
                    } else {
                        deleted.push(y.lp);
                    }
                } else if y.hot_next.is_some() && !x.hot_updated {
                    hot.push((y.lp, y.hot_next.unwrap_or(0)));
                }
                if y.xmin_frozen && !x.xmin_frozen {
                    frozen.push(y.lp);
                } else {
                    let mut gained = false;
                    let mut note = |flag: &'static str| {
                        gained = true;
                        if !hint_flags.contains(&flag) {
                            hint_flags.push(flag);
                        }
                    };
                    if y.xmin_committed && !x.xmin_committed && !x.xmin_frozen {
                        note("HEAP_XMIN_COMMITTED");
                    }
                    if y.xmax_invalid && !x.xmax_invalid && y.t_xmax == x.t_xmax {
                        note("HEAP_XMAX_INVALID");
                    }
                    let committed = |t: &[u8], i: &LineItem| {
                        let at = usize::from(i.lp_off).saturating_add(20);
                        read_u16(t, at, endian).unwrap_or(0) & HEAP_XMAX_COMMITTED != 0
                    };
                    if let Some(pa) = a {
                        if committed(b, y) && !committed(pa, x) && y.t_xmax == x.t_xmax {
                            note("HEAP_XMAX_COMMITTED");
                        }
                    }
                    if gained {
                        hinted.push(y.lp);
                    }
                }
            }
            (LpFlags::Normal | LpFlags::Redirect, LpFlags::Redirect)
                if x.and_then(|x| x.redirect_to) != y.redirect_to =>
            {
                redirects.push((y.lp, y.redirect_to.unwrap_or(0)));
            }
            (LpFlags::Normal | LpFlags::Redirect, LpFlags::Dead) => dead.push(y.lp),
            (from, LpFlags::Unused) if from != LpFlags::Unused => {
                let heap_only = x.is_some_and(|x| x.heap_only);
                match unused
                    .iter_mut()
                    .find(|(f, h, _)| *f == from && *h == heap_only)
                {
                    Some((_, _, v)) => v.push(y.lp),
                    None => unused.push((from, heap_only, alloc::vec![y.lp])),
                }
            }
            _ => {}
        }
    }
    for x in &la.items {
        if x.lp > line_count(b, endian) {
            truncated.push(x.lp);
        }
    }
    // A heap-only tuple whose predecessor was updated in this diff is that HOT update's;
    // one whose predecessor is not on the page is still said.
    for y in lb
        .items
        .iter()
        .filter(|y| y.heap_only && y.lp_flags == LpFlags::Normal)
    {
        let was_there =
            before(y.lp).is_some_and(|x| x.lp_flags == LpFlags::Normal && x.t_xmin == y.t_xmin);
        if !was_there && !hot.iter().any(|&(_, to)| to == y.lp) {
            if let Some(p) = lb.items.iter().find(|p| p.hot_next == Some(y.lp)) {
                hot.push((p.lp, y.lp));
            }
        }
    }
    // A non-HOT update's new version on this page is told by its Updated, not as an insert.
    let here = |to: &String| to.starts_with(&format!("({block},"));
    inserted.retain(|lp| {
        !updates
            .iter()
            .any(|(_, to)| here(to) && to.ends_with(&format!(",{lp})")))
    });
    if a.is_none() || is_new(a, endian) {
        out.push(Change::NewPage {
            kind: PageKind::Heap,
            items: line_count(b, endian),
        });
    } else if !inserted.is_empty() {
        out.push(Change::Inserted { lps: inserted });
    }
    for (from, to) in hot {
        out.push(Change::HotUpdate { from, to });
    }
    for (lp, to) in updates {
        out.push(Change::Updated { lp, to });
    }
    if !deleted.is_empty() {
        out.push(Change::Deleted { lps: deleted });
    }
    if !locked.is_empty() {
        out.push(Change::Locked { lps: locked });
    }
    for (from, to) in redirects {
        out.push(Change::Redirected { from, to });
    }
    if !dead.is_empty() {
        out.push(Change::Dead {
            lps: dead,
            index: false,
        });
    }
    for (from, heap_only, lps) in unused {
        out.push(Change::Unused {
            lps,
            from,
            heap_only,
        });
    }
    if !truncated.is_empty() {
        out.push(Change::Truncated { lps: truncated });
    }
    if a.is_some() && la.all_visible != lb.all_visible {
        out.push(Change::AllVisible {
            set: lb.all_visible,
        });
    }
    if !frozen.is_empty() {
        out.push(Change::Frozen { lps: frozen });
    }
    if !hinted.is_empty() {
        out.push(Change::HintBits {
            lps: hinted,
            flags: hint_flags,
        });
    }
    if let Some(pa) = a.filter(|_| !is_new(a, endian)) {
        let moved = la.items.iter().any(|x| {
            lb.items.iter().any(|y| {
                y.lp == x.lp
                    && x.lp_flags == LpFlags::Normal
                    && y.lp_flags == LpFlags::Normal
                    && x.t_xmin == y.t_xmin
                    && x.lp_off != y.lp_off
            })
        });
        let (ua, ub) = (
            read_u16(pa, 14, endian).unwrap_or(0),
            read_u16(b, 14, endian).unwrap_or(0),
        );
        if moved {
            out.push(Change::Compacted { a: ua, b: ub });
        }
        if la.pd_prune_xid == 0 && lb.pd_prune_xid != 0 {
            out.push(Change::PruneHint {
                xid: lb.pd_prune_xid,
            });
        }
    }
    out
}

/// bt page's special space: (btpo_prev, btpo_next, btpo_level, btpo_flags).
fn bt_special(page: &[u8], endian: Endian) -> Option<(u32, u32, u32, u16)> {
    let s = usize::from(read_u16(page, 16, endian)?);
    Some((
        read_u32(page, s, endian)?,
        read_u32(page, s.saturating_add(4), endian)?,
        read_u32(page, s.saturating_add(8), endian)?,
        read_u16(page, s.saturating_add(12), endian)?,
    ))
}

fn btree_changes(a: Option<&[u8]>, b: &[u8], endian: Endian) -> Vec<Change> {
    let mut out = Vec::new();
    let Some((_, next_b, _, flags_b)) = bt_special(b, endian) else {
        return out;
    };
    if flags_b & BTP_META != 0 {
        return out;
    }
    let nb = line_count(b, endian);
    let Some(a) = a.filter(|_| !is_new(a, endian)) else {
        out.push(Change::NewPage {
            kind: PageKind::Btree,
            items: nb,
        });
        return out;
    };
    let na = line_count(a, endian);
    if let Some((_, next_a, _, _)) = bt_special(a, endian) {
        if next_a != next_b && next_b != 0 {
            out.push(Change::Split { right: next_b });
        }
    }
    let dead: Vec<u16> = (1..=nb)
        .filter(|&lp| {
            let fa = item_id(a, lp, endian).map(|x| x.1);
            let fb = item_id(b, lp, endian).map(|x| x.1);
            fb == Some(LpFlags::Dead) && fa.is_some() && fa != fb
        })
        .collect();
    if !dead.is_empty() {
        out.push(Change::Dead {
            lps: dead,
            index: true,
        });
    }
    if na != nb {
        out.push(Change::IndexTuples {
            added: nb.saturating_sub(na),
            removed: na.saturating_sub(nb),
        });
    }
    out
}

fn vm_changes(a: Option<&[u8]>, b: &[u8], block: u32) -> Vec<Change> {
    let bits_b = crate::am::maps::decode::vm_bits(b, block);
    let bits_a = a.map(|p| crate::am::maps::decode::vm_bits(p, block));
    // Heap blocks by (all-visible, all-frozen) before and after.
    let mut groups: Vec<Change> = Vec::new();
    for (i, &y) in bits_b.bits.iter().enumerate() {
        let x = bits_a
            .as_ref()
            .and_then(|v| v.bits.get(i).copied())
            .unwrap_or(0);
        if x == y {
            continue;
        }
        let heap_block = bits_b.first_heap_block.saturating_add(i as u64);
        let set = y & !x != 0;
        let changed = if set { y & !x } else { x & !y };
        let all_visible = changed & VISIBILITYMAP_ALL_VISIBLE != 0;
        let all_frozen = changed & VISIBILITYMAP_ALL_FROZEN != 0;
        let same = groups.iter_mut().find(|g| {
            matches!(g, Change::VmBits { all_visible: v, all_frozen: f, set: s, .. }
                if *v == all_visible && *f == all_frozen && *s == set)
        });
        match same {
            Some(Change::VmBits { heap_blocks, .. }) => heap_blocks.push(heap_block),
            _ => groups.push(Change::VmBits {
                heap_blocks: alloc::vec![heap_block],
                all_visible,
                all_frozen,
                set,
            }),
        }
    }
    groups
}

fn blocks_text(blocks: &[u64]) -> String {
    let shown: Vec<String> = blocks.iter().take(8).map(|b| format!("{b}")).collect();
    let more = if blocks.len() > 8 {
        format!(" and {} more", blocks.len().saturating_sub(8))
    } else {
        String::new()
    };
    let s = if blocks.len() == 1 { "" } else { "s" };
    format!("heap block{s} {}{more}", shown.join(", "))
}

/// "was" or "were", by how many.
fn were(n: usize) -> &'static str {
    if n == 1 {
        "was"
    } else {
        "were"
    }
}

fn said(c: &Change) -> String {
    match c {
        Change::NewPage { kind, items } => match kind {
            PageKind::Heap => format!(
                "a new heap page, its first tuples at {}",
                lp_list(&(1..=*items).collect::<Vec<_>>())
            ),
            PageKind::Btree => format!("a new B-tree page with {}", plural(*items, "item", "items")),
            k => format!("a new {} page", k.as_str()),
        },
        Change::Inserted { lps } => format!(
            "new tuples at {} (an INSERT, or the new versions of a non-HOT UPDATE)",
            lp_list(lps)
        ),
        Change::HotUpdate { from, to } => format!(
            "UPDATE put a new version at lp {to} on the same page: a HOT update (lp {from} has HEAP_HOT_UPDATED, lp {to} HEAP_ONLY_TUPLE); no index entry was added"
        ),
        Change::Updated { lp, to } => format!(
            "UPDATE put a new version of lp {lp} at {to} without HOT (lp {lp} has a t_xmax, its t_ctid names the new version, and the indexes get entries for it)"
        ),
        Change::Deleted { lps } => format!(
            "DELETE set t_xmax on {}: the tuples stay until they are dead to every transaction",
            lp_list(lps)
        ),
        Change::Locked { lps } => format!(
            "a row lock set t_xmax (HEAP_XMAX_LOCK_ONLY) on {}",
            lp_list(lps)
        ),
        Change::Redirected { from, to } => format!(
            "pruning turned lp {from} into a redirect to lp {to} (LP_REDIRECT: the index entries still point at lp {from})"
        ),
        Change::Dead { lps, index: false } => format!(
            "{} became LP_DEAD: the tuples are gone, the line pointers stay until the index entries pointing at them are removed",
            lp_list(lps)
        ),
        Change::Dead { lps, index: true } => format!(
            "an index scan marked {} LP_DEAD (kill_prior_tuple: their heap tuples are dead to every transaction)",
            lp_list(lps).replacen("lp", if lps.len() == 1 { "item" } else { "items" }, 1)
        ),
        Change::Unused {
            lps,
            from,
            heap_only,
        } => match (from, heap_only) {
            (LpFlags::Dead, _) => format!(
                "VACUUM made {} unused (LP_DEAD to LP_UNUSED, after removing their index entries)",
                lp_list(lps)
            ),
            (LpFlags::Normal, true) => format!(
                "pruning freed {} (LP_UNUSED): dead heap-only versions, which no index entry points at",
                lp_list(lps)
            ),
            (LpFlags::Normal, false) => format!(
                "{} became LP_UNUSED at once, with no LP_DEAD stage: no index entry pointed at their dead tuples",
                lp_list(lps)
            ),
            (f, _) => format!("{} went from {} to LP_UNUSED", lp_list(lps), f.as_str()),
        },
        Change::Truncated { lps } => format!(
            "{} {} cut off the end of the line pointer array",
            lp_list(lps),
            were(lps.len())
        ),
        Change::AllVisible { set: true } => {
            String::from("the page became all-visible (PD_ALL_VISIBLE)")
        }
        Change::AllVisible { set: false } => {
            String::from("PD_ALL_VISIBLE was cleared: the page is no longer all-visible")
        }
        Change::Frozen { lps } => format!(
            "{} {} frozen (HEAP_XMIN_FROZEN): visible to every transaction whatever t_xmin says",
            lp_list(lps),
            were(lps.len())
        ),
        Change::HintBits { lps, flags } => format!(
            "hint bits were set on {} ({}): not by the write itself, but by the first statement that checked these tuples' visibility after their transactions ended (it may be the same session's next statement), which looked the transactions up in pg_xact and noted their outcome on the tuples (heapam_visibility.c: SetHintBits)",
            lp_list(lps),
            flags.join(", ")
        ),
        Change::Compacted { a, b } => {
            format!("the tuples were moved together (pd_upper {a} → {b})")
        }
        Change::PruneHint { xid } => {
            format!("pd_prune_xid became {xid}: a later read may prune the page")
        }
        Change::Split { right } => {
            format!("the page split: its upper half went to block {right} (btpo_next)")
        }
        Change::IndexTuples { added, removed } => match (added, removed) {
            (n, 0) => format!("{} added", plural(*n, "index tuple was", "index tuples were")),
            (0, n) => format!("{} removed", plural(*n, "index tuple was", "index tuples were")),
            (x, y) => format!("{x} index tuples were added and {y} removed"),
        },
        Change::VmBits {
            heap_blocks,
            all_visible,
            all_frozen,
            set,
        } => {
            let bits = match (all_visible, all_frozen) {
                (true, true) => "all-visible and all-frozen",
                (true, false) => "all-visible",
                _ => "all-frozen",
            };
            if *set {
                format!("the visibility map marks {} {bits}", blocks_text(heap_blocks))
            } else {
                format!(
                    "the visibility map no longer marks {} {bits}",
                    blocks_text(heap_blocks)
                )
            }
        }
        Change::Resealed => String::from(
            "the page failed its checksum before and passes it now: it was written again with a checksum computed over its bytes as they were, so if they were damaged, no checksum check can find the damage any more",
        ),
        Change::ChecksumBroken => String::from("the page's checksum no longer matches its bytes"),
    }
}

/// HOT updates that follow each other (lp 1 → 71 → 72) as chains, each from its first member.
fn hot_chains(changes: &[Change]) -> Vec<Vec<u16>> {
    let pairs: Vec<(u16, u16)> = changes
        .iter()
        .filter_map(|c| match c {
            Change::HotUpdate { from, to } => Some((*from, *to)),
            _ => None,
        })
        .collect();
    let mut chains = Vec::new();
    for &(from, _) in pairs
        .iter()
        .filter(|(f, _)| !pairs.iter().any(|(_, t)| t == f))
    {
        let mut chain = alloc::vec![from];
        let mut at = from;
        while let Some(&(_, to)) = pairs.iter().find(|(f, _)| *f == at) {
            if chain.contains(&to) {
                break;
            }
            chain.push(to);
            at = to;
        }
        chains.push(chain);
    }
    chains
}

/// Joins the clauses into one sentence: "; " between, a full stop. Several HOT updates in a
/// row are told as their chain.
fn sentence(changes: &[Change]) -> String {
    let chains = hot_chains(changes);
    let many_hot = changes
        .iter()
        .filter(|c| matches!(c, Change::HotUpdate { .. }))
        .count()
        > 1;
    let mut parts: Vec<String> = Vec::new();
    let mut told_chains = false;
    for c in changes {
        match c {
            Change::HotUpdate { .. } if many_hot => {
                if told_chains {
                    continue;
                }
                told_chains = true;
                for chain in &chains {
                    let links: Vec<String> = chain.iter().map(|lp| format!("{lp}")).collect();
                    let n = links.len().saturating_sub(1);
                    let shown = if links.len() > 6 {
                        let head = links.get(..3).unwrap_or_default().join(" → ");
                        let last = links.last().cloned().unwrap_or_default();
                        format!("{head} → … → {last}")
                    } else {
                        links.join(" → ")
                    };
                    parts.push(format!(
                        "UPDATE put {n} new versions on the same page, a HOT chain lp {shown} (each updated version HEAP_HOT_UPDATED, its t_ctid naming the next, each new one HEAP_ONLY_TUPLE); no index entry was added"
                    ));
                }
            }
            c => parts.push(said(c)),
        }
    }
    let mut s = parts.join("; ");
    // "lp" stays as PostgreSQL spells it; any other first word gets its capital.
    if !s.starts_with("lp ") && !s.starts_with("pd_") {
        if let Some(first) = s.get(..1) {
            let upper = first.to_uppercase();
            s.replace_range(..1, &upper);
        }
    }
    if !s.is_empty() {
        s.push('.');
    }
    s
}

/// What happened to block `block` (relation-wide, for the checksum) between copy `a` (None:
/// the file had no such page) and copy `b`, read as a page of `kind`.
pub fn page_story(
    a: Option<&[u8]>,
    b: &[u8],
    block: u32,
    kind: PageKind,
    endian: Endian,
) -> PageStory {
    let mut changes = match kind {
        PageKind::Heap => heap_changes(a, b, block, endian),
        PageKind::Btree => btree_changes(a, b, endian),
        PageKind::Vm => vm_changes(a, b, block),
        _ => Vec::new(),
    };
    if let Some(pa) = a.filter(|_| !is_new(a, endian)) {
        let (va, vb) = (
            verify_page(pa, block, endian).status,
            verify_page(b, block, endian).status,
        );
        if va == PageStatus::Mismatch && vb == PageStatus::Ok {
            changes.push(Change::Resealed);
        } else if va == PageStatus::Ok && vb == PageStatus::Mismatch {
            changes.push(Change::ChecksumBroken);
        }
    }
    // A root split makes a root whose level is above 0: say which.
    if let (PageKind::Btree, Some(Change::NewPage { .. })) = (kind, changes.first()) {
        if let Some((prev, next, level, flags)) = bt_special(b, endian) {
            let what = if flags & BTP_ROOT != 0 && level > 0 {
                "the root split: a new root one level up"
            } else if flags & BTP_LEAF != 0 && (prev != 0 || next != 0) {
                "the leaf split"
            } else {
                ""
            };
            if !what.is_empty() {
                let s = format!("New B-tree page: {what}.");
                return PageStory {
                    changes,
                    sentence: s,
                };
            }
        }
    }
    let sentence = sentence(&changes);
    PageStory { changes, sentence }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_runs_of_line_pointers() {
        assert_eq!(lp_list(&[2, 3, 4, 5]), "lp 2-5");
        assert_eq!(lp_list(&[1, 3, 4, 9]), "lp 1, 3-4, 9");
        let even: Vec<u16> = (1..=30).map(|i| i * 2).collect();
        assert_eq!(lp_list(&even), "lp 2, 4, 6, 8, 10, … (30 line pointers)");
    }

    #[test]
    fn hot_updates_in_a_row_are_told_as_their_chain() {
        let mut changes: Vec<Change> = [(1, 71), (71, 72), (72, 73), (73, 74), (74, 75), (75, 76)]
            .iter()
            .map(|&(from, to)| Change::HotUpdate { from, to })
            .collect();
        changes.push(Change::PruneHint { xid: 754 });
        let s = sentence(&changes);
        assert!(
            s.starts_with(
                "UPDATE put 6 new versions on the same page, a HOT chain lp 1 → 71 → 72 → … → 76 ("
            ),
            "{s}"
        );
        assert!(
            s.ends_with("; pd_prune_xid became 754: a later read may prune the page."),
            "{s}"
        );
        let one = sentence(&[Change::HotUpdate { from: 3, to: 8 }]);
        assert_eq!(one, "UPDATE put a new version at lp 8 on the same page: a HOT update (lp 3 has HEAP_HOT_UPDATED, lp 8 HEAP_ONLY_TUPLE); no index entry was added.");
        // "lp" keeps PostgreSQL's spelling at the start of a sentence.
        let dead = sentence(&[Change::Dead {
            lps: alloc::vec![2, 3, 4, 5],
            index: false,
        }]);
        assert!(dead.starts_with("lp 2-5 became LP_DEAD"), "{dead}");
    }
}
