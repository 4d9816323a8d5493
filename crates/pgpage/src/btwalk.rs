//! A B-tree index file's levels walked as bt_index_check walks them
//! (contrib/amcheck/verify_nbtree.c bt_check_every_level, bt_check_level_from_leftmost): from
//! the metapage's root down each level's leftmost downlink, right along the sibling links,
//! checking that the links agree, that every page is at its level, and that the chain ends.

use alloc::vec::Vec;

use crate::decode::Reader;
use crate::fields::{bt_meta_page_data as meta, bt_page_opaque_data as bt, page_header_data};
use crate::findings::Finding;
use crate::layout::Endian;

/// nbtree.h: P_NONE, BTREE_MAGIC and the btpo_flags bits the walk reads.
const P_NONE: u32 = 0;
const BTREE_MAGIC: u32 = 0x053162;
const BTP_LEAF: u16 = 1 << 0;
const BTP_ROOT: u16 = 1 << 1;
const BTP_DELETED: u16 = 1 << 2;
const BTP_META: u16 = 1 << 3;
const BTP_HALF_DEAD: u16 = 1 << 4;
/// nbtree.h: sizeof(BTPageOpaqueData).
const BT_OPAQUE_SIZE: usize = 16;

/// What the walk needs of one B-tree page (relation-wide block numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BtPage {
    pub block: u32,
    pub prev: u32,
    pub next: u32,
    pub level: u32,
    pub flags: u16,
    /// pd_checksum as stored, for the verdict's row of a page the walk names.
    pub stored: u16,
    /// An internal page's first downlink (its P_FIRSTDATAKEY item's t_tid block).
    pub downlink: u32,
}

/// The metapage's root and its level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BtMeta {
    pub root: u32,
    pub level: u32,
}

/// Reads a B-tree page (or the metapage) whose header PageIsVerified accepts.
pub(crate) fn summarize(
    page: &[u8],
    block: u32,
    endian: Endian,
) -> Option<(BtPage, Option<BtMeta>)> {
    let r = Reader { b: page, e: endian };
    let special = usize::try_from(r.field(0, &page_header_data::PD_SPECIAL)?).ok()?;
    if page.len().checked_sub(special)? != BT_OPAQUE_SIZE {
        return None;
    }
    let flags = r.field(special, &bt::BTPO_FLAGS)? as u16;
    // Hash, GiST and SP-GiST keep their page id where btpo_cycleid is.
    if r.field(special, &bt::BTPO_CYCLEID)? > 0xFF7F || flags >= 1 << 9 {
        return None;
    }
    let mut p = BtPage {
        block,
        prev: r.field(special, &bt::BTPO_PREV)?,
        next: r.field(special, &bt::BTPO_NEXT)?,
        level: r.field(special, &bt::BTPO_LEVEL)?,
        flags,
        stored: r.field(0, &page_header_data::PD_CHECKSUM)? as u16,
        downlink: P_NONE,
    };
    if flags & BTP_META != 0 {
        let base = crate::decode::SIZE_OF_PAGE_HEADER_DATA;
        let m = (r.field(base, &meta::BTM_MAGIC)? == BTREE_MAGIC).then(|| BtMeta {
            root: r.field(base, &meta::BTM_ROOT).unwrap_or(P_NONE),
            level: r.field(base, &meta::BTM_LEVEL).unwrap_or(0),
        });
        return Some((p, m));
    }
    if flags & BTP_LEAF == 0 && flags & BTP_DELETED == 0 {
        // P_FIRSTDATAKEY: the item after the high key, which a rightmost page lacks.
        let before = if p.next == P_NONE {
            0
        } else {
            crate::decode::SIZE_OF_ITEM_ID
        };
        let lp_at = crate::decode::SIZE_OF_PAGE_HEADER_DATA.checked_add(before)?;
        let lower = usize::try_from(r.field(0, &page_header_data::PD_LOWER)?).ok()?;
        if lp_at.checked_add(crate::decode::SIZE_OF_ITEM_ID)? <= lower {
            let off = r.field(lp_at, &crate::fields::item_id_data::LP_OFF)? as usize;
            if let Some(t) = r.tid(off) {
                p.downlink = t.block;
            }
        }
    }
    Some((p, None))
}

/// A finding of the walk: the block it is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WalkFinding {
    pub block: u32,
    pub finding: Finding,
}

/// Walks the levels of an index whose pages `pages` (sorted by block) are all of its file;
/// `blocks` is the relation's length. Every finding, not only amcheck's first.
pub(crate) fn walk(meta: BtMeta, pages: &[BtPage], blocks: u32) -> Vec<WalkFinding> {
    let mut out = Vec::new();
    let find = |b: u32| {
        pages
            .binary_search_by_key(&b, |p| p.block)
            .ok()
            .and_then(|i| pages.get(i))
    };
    let mut report = |block: u32, finding: Finding| {
        let f = WalkFinding { block, finding };
        if !out.contains(&f) {
            out.push(f);
        }
    };
    if meta.root == P_NONE {
        return out;
    }
    let (mut leftmost, mut level, mut true_root) = (meta.root, meta.level, true);
    // Each level is walked once; a tree has at most one level per page.
    for _ in 0..=blocks {
        let (mut leftcurrent, mut current) = (P_NONE, leftmost);
        let mut down: Option<(u32, u32)> = None;
        let mut leaf_level = false;
        let mut steps = 0u32;
        loop {
            steps = steps.saturating_add(1);
            if steps > blocks.saturating_add(1) {
                break;
            }
            if current >= blocks {
                report(
                    if leftcurrent == P_NONE {
                        0
                    } else {
                        leftcurrent
                    },
                    Finding::BtreeLinkPastEnd,
                );
                break;
            }
            // A page the walk cannot read as B-tree is the decoder's finding, not the walk's.
            let Some(page) = find(current) else { break };
            let ignore = page.flags & (BTP_DELETED | BTP_HALF_DEAD) != 0;
            if ignore {
                if page.next == P_NONE {
                    report(current, Finding::BtreeFellOffEnd);
                }
            } else {
                if down.is_none() && !leaf_level {
                    if true_root && page.flags & BTP_ROOT == 0 {
                        report(current, Finding::BtreeNotTrueRoot);
                    }
                    if page.flags & BTP_LEAF != 0 {
                        leaf_level = true;
                    } else {
                        down = Some((page.downlink, page.level.saturating_sub(1)));
                    }
                }
                if page.prev != leftcurrent {
                    report(current, Finding::BtreeSiblingLinksDisagree);
                }
                if page.level != level {
                    report(current, Finding::BtreeLevelMismatch);
                }
            }
            if current == leftcurrent || current == page.prev {
                report(current, Finding::BtreeCircularLinks);
                break;
            }
            leftcurrent = current;
            current = page.next;
            if current == P_NONE {
                break;
            }
        }
        match down {
            Some((next, l)) if !leaf_level && next != P_NONE => {
                (leftmost, level, true_root) = (next, l, false);
            }
            _ => break,
        }
    }
    out
}
