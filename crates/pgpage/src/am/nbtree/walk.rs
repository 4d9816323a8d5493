//! A B-tree index file's levels walked as bt_index_check walks them
//! (contrib/amcheck/verify_nbtree.c bt_check_every_level, bt_check_level_from_leftmost): from
//! the metapage's root down each level's leftmost downlink, right along the sibling links,
//! checking that the links agree, that every page is at its level, and that the chain ends.

use alloc::vec::Vec;

use crate::am::nbtree::check::{lower_bound_holds, KeyColumn};
use crate::am::nbtree::layout::{
    BTP_HALF_DEAD, BTP_HAS_FULLXID, BTP_INCOMPLETE_SPLIT, BTP_LEAF, BTP_ROOT, BTREE_MAGIC,
};
use crate::am::nbtree::layout::{BTREE_HEAPKEYSPACE_VERSION, P_NONE};
use crate::findings::Finding;
use crate::page::fields::{
    bt_meta_page_data as meta, bt_page_opaque_data as bt, page_header_data, BTP_DELETED, BTP_META,
};
use crate::page::geometry::Endian;
use crate::page::reader::Reader;

/// nbtree.h: sizeof(BTPageOpaqueData).
const BT_OPAQUE_SIZE: usize = 16;
/// itup.h: offsetof(IndexTupleData, t_tid.ip_posid), where bt_pivot_tuple_identical starts
/// comparing a heapkeyspace index's pivot tuples (the block number differs across levels).
const IP_POSID_AT: usize = 4;

/// One index tuple as the cross-level checks read it: the block its t_tid names (a
/// downlink, or a half-dead leaf's top parent) and its bytes from ip_posid to
/// IndexTupleSize, which bt_pivot_tuple_identical compares (None when t_info's size does not
/// fit the page).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Pivot {
    pub block: u32,
    pub bytes: Option<Vec<u8>>,
}

/// What the walk needs of one B-tree page (relation-wide block numbers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BtPage {
    pub block: u32,
    pub prev: u32,
    pub next: u32,
    pub level: u32,
    pub flags: u16,
    /// pd_checksum as stored, for the verdict's row of a page the walk names.
    pub stored: u16,
    /// P_HIKEY's tuple; None on a rightmost page (or a line pointer that reads nothing).
    pub high_key: Option<Pivot>,
    /// An internal page's items from P_FIRSTDATAKEY on, in offset order (None: unreadable);
    /// empty on a leaf or a deleted page.
    pub items: Vec<Option<Pivot>>,
    /// The first item bt_child_check holds against the parent's key: a leaf's
    /// P_FIRSTDATAKEY, an internal page's next (its first is minus infinity). The page's
    /// items ascend (bt_target_page_check holds them to it), so it is the least of them.
    pub low_item: Option<Pivot>,
}

impl BtPage {
    fn is(&self, flag: u16) -> bool {
        self.flags & flag != 0
    }
    fn ignore(&self) -> bool {
        self.is(BTP_DELETED | BTP_HALF_DEAD)
    }
    fn rightmost(&self) -> bool {
        self.next == P_NONE
    }
    fn leftmost(&self) -> bool {
        self.prev == P_NONE
    }
    /// BTreeTupleGetDownLink of the P_FIRSTDATAKEY item.
    fn first_downlink(&self) -> u32 {
        self.items
            .first()
            .and_then(Option::as_ref)
            .map_or(P_NONE, |p| p.block)
    }
}

/// The metapage's root and its level, and whether the index is heapkeyspace (btm_version 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BtMeta {
    pub root: u32,
    pub level: u32,
    pub heapkeyspace: bool,
}

/// The index tuple line pointer `lp` (1-based) points at, as a Pivot.
fn pivot(r: &Reader, lp: usize) -> Option<Pivot> {
    let at = crate::page::bufpage::SIZE_OF_PAGE_HEADER_DATA.checked_add(
        lp.checked_sub(1)?
            .checked_mul(crate::page::bufpage::SIZE_OF_ITEM_ID)?,
    )?;
    let off = r.field(at, &crate::page::fields::item_id_data::LP_OFF)? as usize;
    let t = crate::page::itup::IndexTuple::read(r, off)?;
    let bytes = (t.size() >= 8)
        .then(|| {
            r.b.get(off.checked_add(IP_POSID_AT)?..off.checked_add(t.size())?)
        })
        .flatten()
        .map(<[u8]>::to_vec);
    Some(Pivot {
        block: t.tid.block,
        bytes,
    })
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
        high_key: None,
        items: Vec::new(),
        low_item: None,
    };
    if flags & BTP_META != 0 {
        let base = crate::page::bufpage::SIZE_OF_PAGE_HEADER_DATA;
        let m = (r.field(base, &meta::BTM_MAGIC)? == BTREE_MAGIC).then(|| BtMeta {
            root: r.field(base, &meta::BTM_ROOT).unwrap_or(P_NONE),
            level: r.field(base, &meta::BTM_LEVEL).unwrap_or(0),
            heapkeyspace: r
                .field(base, &meta::BTM_VERSION)
                .is_some_and(|v| v >= BTREE_HEAPKEYSPACE_VERSION),
        });
        return Some((p, m));
    }
    let lower = usize::try_from(r.field(0, &page_header_data::PD_LOWER)?).ok()?;
    let maxoff = lower.saturating_sub(crate::page::bufpage::SIZE_OF_PAGE_HEADER_DATA)
        / crate::page::bufpage::SIZE_OF_ITEM_ID;
    if !p.rightmost() && maxoff >= 1 {
        p.high_key = pivot(&r, 1);
    }
    // P_FIRSTDATAKEY: the item after the high key, which a rightmost page lacks.
    let first = if p.rightmost() { 1 } else { 2 };
    if flags & (BTP_LEAF | BTP_DELETED) == 0 {
        p.items = (first..=maxoff).map(|lp| pivot(&r, lp)).collect();
    }
    if flags & BTP_DELETED == 0 {
        let low = first.saturating_add(usize::from(flags & BTP_LEAF == 0));
        p.low_item = (low <= maxoff).then(|| pivot(&r, low)).flatten();
    }
    Some((p, None))
}

/// A finding of the walk: the block it is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WalkFinding {
    pub block: u32,
    pub finding: Finding,
}

/// Block `b` among the walk's pages, sorted by block (the GIN walk's too).
pub(crate) fn page_at<T>(pages: &[T], b: u32, block: impl Fn(&T) -> u32) -> Option<&T> {
    pages
        .binary_search_by_key(&b, block)
        .ok()
        .and_then(|i| pages.get(i))
}

/// A walk says each finding about a block once, however many paths lead to it.
pub(crate) fn report_once(out: &mut Vec<WalkFinding>, block: u32, finding: Finding) {
    let f = WalkFinding { block, finding };
    if !out.contains(&f) {
        out.push(f);
    }
}

/// Walks the levels of an index whose pages `pages` (sorted by block) are all of its file;
/// `blocks` is the relation's length and `zero` its all-zero pages as sorted, disjoint runs
/// [start, end): one the walk reaches is refused as _bt_checkpage refuses it. Every finding, not only amcheck's first. The walk holds
/// the index still (a file does not change under it), so it makes bt_index_parent_check's
/// cross-level checks too, as amcheck does under its ShareLock; the down-link lower bound
/// with the key columns `keys` only (the pages' byte order `endian`).
pub(crate) fn walk(
    meta: BtMeta,
    pages: &[BtPage],
    blocks: u32,
    zero: &[(u32, u32)],
    keys: Option<&[KeyColumn]>,
    endian: Endian,
) -> Vec<WalkFinding> {
    let mut w = Walk {
        pages,
        blocks,
        zero,
        heapkeyspace: meta.heapkeyspace,
        keys,
        endian,
        child_steps: 0,
        out: Vec::new(),
    };
    if meta.root == P_NONE {
        return w.out;
    }
    let (mut leftmost, mut level, mut true_root) = (meta.root, meta.level, true);
    // Each level is walked once; a tree has at most one level per page.
    for _ in 0..=blocks {
        let (mut leftcurrent, mut current) = (P_NONE, leftmost);
        let mut down: Option<(u32, u32)> = None;
        let mut leaf_level = false;
        let mut children = Children::default();
        w.child_steps = 0;
        let mut reached_end = false;
        let mut steps = 0u32;
        loop {
            steps = steps.saturating_add(1);
            if steps > blocks.saturating_add(1) {
                break;
            }
            if current >= blocks {
                w.report(
                    if leftcurrent == P_NONE {
                        0
                    } else {
                        leftcurrent
                    },
                    Finding::BtreeLinkPastEnd,
                );
                break;
            }
            // A page the walk cannot read as B-tree is the decoder's finding, not the walk's,
            // but for an all-zero one, which the decoder accepts as a new page.
            let Some(page) = w.find(current) else {
                w.zero_page(current);
                break;
            };
            if page.ignore() {
                if page.is(BTP_DELETED) {
                    w.report(current, Finding::BtreeLinkToDeleted);
                }
                if page.rightmost() {
                    w.report(current, Finding::BtreeFellOffEnd);
                }
            } else {
                if down.is_none() && !leaf_level {
                    if !page.leftmost() {
                        w.report(current, Finding::BtreeNotLeftmost);
                    }
                    if true_root && !page.is(BTP_ROOT) {
                        w.report(current, Finding::BtreeNotTrueRoot);
                    }
                    if page.is(BTP_LEAF) {
                        leaf_level = true;
                    } else {
                        down = Some((page.first_downlink(), page.level.saturating_sub(1)));
                    }
                }
                if page.prev != leftcurrent {
                    w.report(current, Finding::BtreeSiblingLinksDisagree);
                }
                if page.level != level {
                    w.report(current, Finding::BtreeLevelMismatch);
                }
                if !page.is(BTP_LEAF) {
                    w.downlinks(page, &mut children);
                }
            }
            if current == leftcurrent || current == page.prev {
                w.report(current, Finding::BtreeCircularLinks);
                break;
            }
            leftcurrent = current;
            current = page.next;
            children.low_key = if page.rightmost() {
                None
            } else {
                page.high_key.as_ref()
            };
            if current == P_NONE {
                reached_end = true;
                break;
            }
        }
        match down {
            Some((next, l)) if !leaf_level && next != P_NONE => {
                (leftmost, level, true_root) = (next, l, false);
            }
            None if !leaf_level && reached_end => {
                w.report(0, Finding::BtreeNoValidPagesOnLevel);
                break;
            }
            _ => break,
        }
    }
    w.out
}

/// bt_child_highkey_check's memory of the level below the one walked: the right link of
/// the child last reached by a downlink and its incomplete-split flag, and the left
/// sibling's high key (amcheck's "low key").
#[derive(Default)]
struct Children<'a> {
    prev_right: Option<u32>,
    prev_incomplete_split: bool,
    low_key: Option<&'a Pivot>,
}

struct Walk<'a> {
    pages: &'a [BtPage],
    blocks: u32,
    zero: &'a [(u32, u32)],
    heapkeyspace: bool,
    keys: Option<&'a [KeyColumn]>,
    endian: Endian,
    /// Pages visited on the child level of the level walked. A sound level below is
    /// visited once over; downlinks that point back and forth would have each traversal
    /// run the level's length, so a level's traversals stop at twice the file's pages.
    child_steps: u32,
    out: Vec<WalkFinding>,
}

impl<'a> Walk<'a> {
    fn find(&self, b: u32) -> Option<&'a BtPage> {
        page_at(self.pages, b, |p| p.block)
    }

    fn report(&mut self, block: u32, finding: Finding) {
        report_once(&mut self.out, block, finding);
    }

    /// _bt_checkpage's refusal of block `b`, when it is all zeros.
    fn zero_page(&mut self, b: u32) {
        let run = self.zero.partition_point(|&(_, end)| end <= b);
        if self.zero.get(run).is_some_and(|&(start, _)| start <= b) {
            self.report(b, Finding::BtreeUnexpectedZeroPage);
        }
    }

    /// bt_target_page_check's cross-level part for an internal `target`: each downlink as
    /// bt_child_check follows it (the "negative infinity" item's by bt_child_highkey_check
    /// only), then, on the level's rightmost page, the pages right of the last downlink.
    fn downlinks(&mut self, target: &'a BtPage, children: &mut Children<'a>) {
        for (i, item) in target.items.iter().enumerate() {
            let Some(item) = item else { return };
            self.child_highkey_check(target, Some((i, item.block)), children);
            let Some(child) = self.find(item.block) else {
                self.zero_page(item.block);
                continue;
            };
            // bt_child_check, for every item but the minus infinity one.
            if i == 0 {
                continue;
            }
            if child.is(BTP_DELETED) {
                self.report(target.block, Finding::BtreeDownlinkToDeleted);
            } else if !self.lower_bound_holds(item, child) {
                self.report(target.block, Finding::BtreeDownlinkLowerBound);
            }
        }
        if target.rightmost() {
            self.child_highkey_check(target, None, children);
        }
    }

    /// bt_child_check's down-link lower bound: the parent's key `item` is below the child's
    /// least item. Holds when the key types are not known or a key does not read as them.
    fn lower_bound_holds(&self, item: &Pivot, child: &BtPage) -> bool {
        let (Some(keys), Some(low)) = (self.keys, child.low_item.as_ref()) else {
            return true;
        };
        let (Some(parent), Some(low)) = (tuple(item, self.endian), tuple(low, self.endian)) else {
            return true;
        };
        lower_bound_holds(keys, self.heapkeyspace, self.endian, &parent, &low) != Some(false)
    }

    /// bt_child_highkey_check: from the last child reached, right along the child level to
    /// the page `downlink` names (item `i` of `target`), every page on the way at the level
    /// below, each page there without a downlink accounted for, and each child's high key
    /// the same tuple as the parent's key beside its downlink.
    fn child_highkey_check(
        &mut self,
        target: &'a BtPage,
        downlink: Option<(usize, u32)>,
        children: &mut Children<'a>,
    ) {
        let down = downlink.map_or(P_NONE, |d| d.1);
        let (mut blkno, mut rightsplit) = match children.prev_right {
            Some(b) => (b, children.prev_incomplete_split),
            None => (down, false),
        };
        let mut first = true;
        loop {
            self.child_steps = self.child_steps.saturating_add(1);
            if self.child_steps > self.blocks.saturating_mul(2).saturating_add(2) {
                return;
            }
            if blkno == P_NONE && down == P_NONE {
                children.prev_right = None;
                children.prev_incomplete_split = false;
                return;
            }
            if blkno == P_NONE {
                self.report(target.block, Finding::BtreeCannotTraverseToDownlink);
                return;
            }
            let Some(page) = self.find(blkno) else {
                self.zero_page(blkno);
                return;
            };
            if first && children.prev_right.is_none() && !page.leftmost() {
                self.report(target.block, Finding::BtreeFirstChildNotLeftmost);
            }
            if (!page.is(BTP_DELETED) || page.is(BTP_HAS_FULLXID))
                && Some(page.level) != target.level.checked_sub(1)
            {
                self.report(blkno, Finding::BtreeChildLevelInvalid);
            }
            if (!first && Some(blkno) == children.prev_right) || blkno == page.prev {
                self.report(blkno, Finding::BtreeCircularLinks);
                return;
            }
            if blkno != down && !page.ignore() {
                self.downlink_missing_check(rightsplit, page);
            }
            rightsplit = page.is(BTP_INCOMPLETE_SPLIT);
            if !rightsplit && !page.rightmost() {
                if let Some((i, _)) = downlink {
                    self.high_key_matches(target, i, blkno == down, page, children);
                }
            }
            if blkno == down {
                children.prev_right = Some(page.next);
                children.prev_incomplete_split = rightsplit;
                return;
            }
            blkno = page.next;
            first = false;
        }
    }

    /// The child's high key against the parent's pivot: the item after the downlink (the
    /// parent's own high key past its last item), or, left of the first downlink, the left
    /// sibling's high key.
    fn high_key_matches(
        &mut self,
        target: &'a BtPage,
        i: usize,
        reached: bool,
        child: &BtPage,
        children: &Children<'a>,
    ) {
        let at = if reached { i.saturating_add(1) } else { i };
        let parent_key = if at == 0 {
            let Some(low) = children.low_key else {
                self.report(target.block, Finding::BtreeNoLeftSiblingHighKey);
                return;
            };
            low
        } else if let Some(item) = target.items.get(at) {
            let Some(item) = item else { return };
            item
        } else {
            if target.rightmost() {
                self.report(target.block, Finding::BtreeChildHighKeyAboveRightmost);
                return;
            }
            let Some(high) = &target.high_key else { return };
            high
        };
        let (Some(a), Some(b)) = (
            child.high_key.as_ref().and_then(|k| k.bytes.as_deref()),
            parent_key.bytes.as_deref(),
        ) else {
            return;
        };
        if !pivot_tuple_identical(self.heapkeyspace, a, b) {
            self.report(target.block, Finding::BtreeParentKeyMismatch);
        }
    }

    /// bt_downlink_missing_check: a page reached along the child level that no downlink of
    /// the parent names is corruption, unless its left sibling's split is incomplete, it is
    /// the root, or it tops an interrupted multi-level deletion (a half-dead leaf below it
    /// whose high key names it as the top parent).
    fn downlink_missing_check(&mut self, rightsplit: bool, page: &BtPage) {
        if page.is(BTP_ROOT) || rightsplit {
            return;
        }
        if page.is(BTP_LEAF) {
            self.report(page.block, Finding::BtreeLeafLacksDownlink);
            return;
        }
        let mut level = page.level;
        let mut child_block = page.first_downlink();
        let mut child = None;
        for _ in 0..=self.blocks {
            let Some(c) = self.find(child_block) else {
                return;
            };
            child = Some(c);
            if c.is(BTP_LEAF) {
                break;
            }
            if Some(c.level) != level.checked_sub(1) {
                self.report(page.block, Finding::BtreeDescentLevelMismatch);
                return;
            }
            level = c.level;
            child_block = c.first_downlink();
        }
        let Some(leaf) = child.filter(|c| c.is(BTP_LEAF)) else {
            return;
        };
        if leaf.is(BTP_DELETED) {
            self.report(page.block, Finding::BtreeDownlinkToDeletedLeaf);
            return;
        }
        if leaf.is(BTP_HALF_DEAD)
            && !leaf.rightmost()
            && leaf.high_key.as_ref().map(|k| k.block) == Some(page.block)
        {
            return;
        }
        self.report(page.block, Finding::BtreeInternalBlockLacksDownlink);
    }
}

/// The index tuple a Pivot was read from: t_tid's block (bi_hi, bi_lo) before its bytes.
fn tuple(p: &Pivot, endian: Endian) -> Option<Vec<u8>> {
    let bytes = p.bytes.as_deref()?;
    let (hi, lo) = ((p.block >> 16) as u16, p.block as u16);
    let mut t = Vec::with_capacity(bytes.len().saturating_add(IP_POSID_AT));
    for half in [hi, lo] {
        t.extend_from_slice(&match endian {
            Endian::Little => half.to_le_bytes(),
            Endian::Big => half.to_be_bytes(),
        });
    }
    t.extend_from_slice(bytes);
    Some(t)
}

/// bt_pivot_tuple_identical over two tuples' bytes from ip_posid on: a heapkeyspace index's
/// pivots compare from ip_posid (the attribute count lives there), an older one's from t_info.
fn pivot_tuple_identical(heapkeyspace: bool, a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if heapkeyspace {
        a == b
    } else {
        a.get(2..) == b.get(2..)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn key(k: u8) -> Option<Pivot> {
        Some(Pivot {
            block: 0,
            bytes: Some(vec![0, 0, 16, 0, k, 0, 0, 0, 0, 0, 0, 0]),
        })
    }

    fn page(block: u32, prev: u32, next: u32, level: u32, flags: u16) -> BtPage {
        BtPage {
            block,
            prev,
            next,
            level,
            flags,
            stored: 0,
            high_key: None,
            items: Vec::new(),
            low_item: None,
        }
    }

    /// A root (block 1) over leaves 2, 3 and 4, high keys 10 and 20 as its pivots.
    fn tree() -> Vec<BtPage> {
        let mut root = page(1, 0, 0, 1, BTP_ROOT);
        root.items = vec![(2, None), (3, Some(10)), (4, Some(20))]
            .into_iter()
            .map(|(b, k)| {
                Some(Pivot {
                    block: b,
                    bytes: k.and_then(key).and_then(|p| p.bytes),
                })
            })
            .collect();
        let mut l2 = page(2, 0, 3, 0, BTP_LEAF);
        l2.high_key = key(10);
        let mut l3 = page(3, 2, 4, 0, BTP_LEAF);
        l3.high_key = key(20);
        vec![root, l2, l3, page(4, 3, 0, 0, BTP_LEAF)]
    }

    const META: BtMeta = BtMeta {
        root: 1,
        level: 1,
        heapkeyspace: true,
    };

    #[test]
    fn a_sound_tree_has_no_finding() {
        assert_eq!(walk(META, &tree(), 5, &[], None, Endian::Little), vec![]);
    }

    #[test]
    fn a_zero_page_the_tree_reaches_is_refused_and_one_it_does_not_is_not() {
        // Leaf 3 zeroed: its left sibling and its parent still lead there.
        let mut t = tree();
        t.remove(2);
        let found = walk(META, &t, 6, &[(3, 4), (5, 6)], None, Endian::Little);
        let zero: Vec<u32> = found
            .iter()
            .filter(|f| f.finding == Finding::BtreeUnexpectedZeroPage)
            .map(|f| f.block)
            .collect();
        assert_eq!(zero, vec![3]);
        // Block 5, past the tree's pages and reached by nothing, is a new page.
        assert_eq!(
            walk(META, &tree(), 6, &[(5, 6)], None, Endian::Little),
            vec![]
        );
    }

    #[test]
    fn a_child_high_key_unlike_its_parent_key_is_found_at_the_parent() {
        let mut t = tree();
        t[2].high_key = key(21);
        assert_eq!(
            walk(META, &t, 5, &[], None, Endian::Little),
            vec![WalkFinding {
                block: 1,
                finding: Finding::BtreeParentKeyMismatch
            }]
        );
    }

    #[test]
    fn a_leaf_no_downlink_names_is_found() {
        let mut t = tree();
        t[0].items[1].as_mut().unwrap().block = 4;
        let found = walk(META, &t, 5, &[], None, Endian::Little);
        assert!(
            found.contains(&WalkFinding {
                block: 3,
                finding: Finding::BtreeLeafLacksDownlink
            }),
            "{found:?}"
        );
    }

    /// A leaf's tuple of key `k` at heap TID (1, `posid`), as a Pivot.
    fn leaf_item(k: u8, posid: u8) -> Option<Pivot> {
        Some(Pivot {
            block: 1,
            bytes: Some(vec![posid, 0, 16, 0, k, 0, 0, 0, 0, 0, 0, 0]),
        })
    }

    #[test]
    fn a_child_item_below_its_parent_key_breaks_the_lower_bound_with_key_types_only() {
        let keys = [KeyColumn::from(crate::am::nbtree::check::KeyType::Int4)];
        let mut t = tree();
        // bt_mkscankey's pivots: one key attribute (ip_posid), INDEX_ALT_TID_MASK set.
        let pivots = t
            .iter_mut()
            .flat_map(|p| p.items.iter_mut().chain([&mut p.high_key]));
        for item in pivots.flatten() {
            if let Some(b) = item.bytes.as_mut() {
                b[0] = 1;
                b[3] = 0x20;
            }
        }
        for (page, k) in [(1, 1), (2, 10), (3, 20)] {
            t[page].low_item = leaf_item(k, 1);
        }
        let sound = walk(META, &t, 5, &[], Some(&keys), Endian::Little);
        assert_eq!(sound, vec![]);
        t[2].low_item = leaf_item(9, 1);
        let low = WalkFinding {
            block: 1,
            finding: Finding::BtreeDownlinkLowerBound,
        };
        assert_eq!(
            walk(META, &t, 5, &[], Some(&keys), Endian::Little),
            vec![low]
        );
        assert_eq!(walk(META, &t, 5, &[], None, Endian::Little), vec![]);
    }

    #[test]
    fn downlinks_pointing_back_and_forth_end() {
        // A thousand downlinks alternating between the last leaf and the first: each
        // traversal would run the whole level; the walk ends with findings, not a hang.
        let mut t = tree();
        t[0].items = (0..1000u32)
            .map(|i| {
                Some(Pivot {
                    block: if i % 2 == 0 { 4 } else { 2 },
                    bytes: None,
                })
            })
            .collect();
        assert!(!walk(META, &t, 5, &[], None, Endian::Little).is_empty());
    }
}
