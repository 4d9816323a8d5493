//! A GIN index file walked as PostgreSQL 18's gin_index_check walks it
//! (contrib/amcheck/verify_gin.c gin_check_parent_keys_consistency and
//! gin_check_posting_tree_parent_keys_consistency): depth first from the entry tree's root,
//! into each posting tree an entry leaf names, holding each page to the one that led to it:
//! every leaf of a tree at one depth, and a posting tree page's TIDs and high key against
//! its parent's key. Summaries are collected per page as the file streams by, judged at the
//! end; the checks one page answers alone are am/gin/check.rs's.

use alloc::vec::Vec;

use crate::am::gin::layout::{
    decode_segment, GIN_COMPRESSED, GIN_DATA, GIN_DATA_START, GIN_DELETED, GIN_LEAF, GIN_LIST,
    GIN_META, GIN_RIGHT_BOUND, GIN_ROOT_BLKNO, GIN_TREE_POSTING, POSTING_ITEM_SIZE, SEGMENT_HEADER,
};
use crate::am::kind::detect_kind;
use crate::am::nbtree::walk::{page_at, report_once, WalkFinding};
use crate::findings::Finding;
use crate::page::bufpage::INVALID_BLOCK_NUMBER;
use crate::page::fields::{gin_page_opaque_data as gin, page_header_data};
use crate::page::geometry::Endian;
use crate::page::kind::{Fork, PageKind};
use crate::page::reader::{Reader, Tid};

/// What the walk needs of one GIN page (entry or posting tree; relation-wide block).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GinPage {
    pub block: u32,
    pub flags: u16,
    pub rightlink: u32,
    /// pd_checksum as stored, for the verdict's row of a page the walk names.
    pub stored: u16,
    /// In offset order: an entry internal page's downlinks (t_tid's block); an entry leaf's
    /// posting tree roots; a posting tree internal page's PostingItems (child, key).
    pub links: Vec<(u32, Tid)>,
    /// A posting tree internal page's right bound (its high key).
    pub right_bound: Tid,
    /// A posting tree leaf's last TID (GinDataLeafPageGetItems' list[nlist - 1]).
    pub last_tid: Option<Tid>,
}

impl GinPage {
    fn is(&self, flag: u16) -> bool {
        self.flags & flag != 0
    }
}

const NO_TID: Tid = Tid {
    block: INVALID_BLOCK_NUMBER,
    offset: 0,
};

/// Reads a GIN page the walk can follow; the metapage gives `Some((_, true))`. None for
/// another access method's page, a pending list page or a deleted one.
pub(crate) fn summarize(page: &[u8], block: u32, endian: Endian) -> Option<(GinPage, bool)> {
    if detect_kind(page, endian, Fork::Main) != PageKind::Gin {
        return None;
    }
    let r = Reader { b: page, e: endian };
    let special = usize::try_from(r.field(0, &page_header_data::PD_SPECIAL)?).ok()?;
    let flags = r.field(special, &gin::FLAGS)? as u16;
    let mut p = GinPage {
        block,
        flags,
        rightlink: r.field(special, &gin::RIGHTLINK)?,
        stored: r.field(0, &page_header_data::PD_CHECKSUM)? as u16,
        links: Vec::new(),
        right_bound: NO_TID,
        last_tid: None,
    };
    if flags & GIN_META != 0 {
        return Some((p, true));
    }
    if flags & (GIN_LIST | GIN_DELETED) != 0 {
        return None;
    }
    let lower = usize::try_from(r.field(0, &page_header_data::PD_LOWER)?).ok()?;
    if flags & GIN_DATA == 0 {
        let maxoff = lower.saturating_sub(crate::page::bufpage::SIZE_OF_PAGE_HEADER_DATA)
            / crate::page::bufpage::SIZE_OF_ITEM_ID;
        for lp in 0..maxoff {
            let at = crate::page::bufpage::SIZE_OF_PAGE_HEADER_DATA
                .saturating_add(lp.saturating_mul(crate::page::bufpage::SIZE_OF_ITEM_ID));
            let off = r.field(at, &crate::page::fields::item_id_data::LP_OFF)? as usize;
            let tid = r.tid(off)?;
            let leaf = flags & GIN_LEAF != 0;
            if !leaf || tid.offset == GIN_TREE_POSTING {
                p.links.push((tid.block, tid));
            }
        }
    } else if flags & GIN_LEAF == 0 {
        p.right_bound = r.tid(GIN_RIGHT_BOUND)?;
        let maxoff = r.field(special, &gin::MAXOFF)? as usize;
        for i in 0..maxoff {
            let at = GIN_DATA_START.checked_add(i.checked_mul(POSTING_ITEM_SIZE)?)?;
            let child = (r.u16(at)?, r.u16(at.checked_add(2)?)?);
            let child = (u32::from(child.0) << 16) | u32::from(child.1);
            p.links.push((child, r.tid(at.checked_add(4)?)?));
        }
    } else {
        p.last_tid = leaf_last_tid(&r, flags, special, lower);
    }
    Some((p, false))
}

/// The last TID of a posting tree leaf: its last compressed segment's last (to pd_lower),
/// or the last of an uncompressed (pre-9.4) page's maxoff items.
fn leaf_last_tid(r: &Reader, flags: u16, special: usize, lower: usize) -> Option<Tid> {
    if flags & GIN_COMPRESSED == 0 {
        let n = r.field(special, &gin::MAXOFF)? as usize;
        return r.tid(GIN_DATA_START.checked_add(n.checked_sub(1)?.checked_mul(6)?)?);
    }
    let end = lower.min(r.len());
    let mut at = GIN_DATA_START;
    let mut last = None;
    while at.checked_add(SEGMENT_HEADER)? <= end {
        let first = r.tid(at)?;
        let nbytes = usize::from(r.u16(at.checked_add(6)?)?);
        let data = at.checked_add(SEGMENT_HEADER)?;
        let bytes = r.b.get(data..data.checked_add(nbytes)?.min(end))?;
        last = decode_segment(first, bytes).last().copied();
        // GinNextPostingListSegment: SHORTALIGN(offsetof(bytes) + nbytes).
        at = data.checked_add(nbytes)?.checked_add(1)? & !1;
    }
    last
}

/// A file's GIN pages as the scan collects them, in any order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct GinPages {
    pages: Vec<GinPage>,
    /// The file has a GIN metapage: it is a GIN index, walked from GIN_ROOT_BLKNO.
    meta: bool,
}

impl GinPages {
    pub(crate) fn add(&mut self, page: &[u8], block: u32, endian: Endian) {
        match summarize(page, block, endian) {
            Some((_, true)) => self.meta = true,
            Some((p, false)) => self.pages.push(p),
            None => {}
        }
    }

    pub(crate) fn merge(&mut self, other: &GinPages) {
        self.pages.extend_from_slice(&other.pages);
        self.meta |= other.meta;
    }

    /// The walk's findings as (block, finding, the page's stored checksum).
    pub(crate) fn walk(&self, blocks: u32) -> Vec<(u32, Finding, u16)> {
        if !self.meta {
            return Vec::new();
        }
        let mut pages = self.pages.clone();
        pages.sort_unstable_by_key(|p| p.block);
        walk(&pages, blocks)
            .into_iter()
            .map(|f| {
                let stored = pages
                    .binary_search_by_key(&f.block, |p| p.block)
                    .ok()
                    .and_then(|i| pages.get(i))
                    .map_or(0, |p| p.stored);
                (f.block, f.finding, stored)
            })
            .collect()
    }

    /// Little-endian: the metapage flag, the page count, then per page its block, flags,
    /// rightlink, stored checksum, right bound, last TID (a tag first) and its links.
    pub(crate) fn export(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let tid = |out: &mut Vec<u8>, t: Tid| {
            out.extend_from_slice(&t.block.to_le_bytes());
            out.extend_from_slice(&t.offset.to_le_bytes());
        };
        let len32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        out.push(u8::from(self.meta));
        out.extend_from_slice(&len32(self.pages.len()).to_le_bytes());
        for p in &self.pages {
            out.extend_from_slice(&p.block.to_le_bytes());
            out.extend_from_slice(&p.flags.to_le_bytes());
            out.extend_from_slice(&p.rightlink.to_le_bytes());
            out.extend_from_slice(&p.stored.to_le_bytes());
            tid(&mut out, p.right_bound);
            out.push(u8::from(p.last_tid.is_some()));
            tid(&mut out, p.last_tid.unwrap_or(NO_TID));
            out.extend_from_slice(&len32(p.links.len()).to_le_bytes());
            for &(child, key) in &p.links {
                out.extend_from_slice(&child.to_le_bytes());
                tid(&mut out, key);
            }
        }
        out
    }

    /// `export`'s bytes back; None when they are not all of one export.
    pub(crate) fn import(bytes: &[u8]) -> Option<GinPages> {
        let mut r = bytes;
        let mut take = |n: usize| -> Option<&[u8]> {
            let (head, rest) = r.split_at_checked(n)?;
            r = rest;
            Some(head)
        };
        fn u16_of(b: &[u8]) -> Option<u16> {
            Some(u16::from_le_bytes(b.try_into().ok()?))
        }
        fn u32_of(b: &[u8]) -> Option<u32> {
            Some(u32::from_le_bytes(b.try_into().ok()?))
        }
        let mut out = GinPages {
            pages: Vec::new(),
            meta: *take(1)?.first()? == 1,
        };
        let n = u32_of(take(4)?)?;
        for _ in 0..n {
            let block = u32_of(take(4)?)?;
            let flags = u16_of(take(2)?)?;
            let rightlink = u32_of(take(4)?)?;
            let stored = u16_of(take(2)?)?;
            let rb = take(6)?;
            let right_bound = Tid {
                block: u32_of(rb.get(..4)?)?,
                offset: u16_of(rb.get(4..)?)?,
            };
            let has_last = *take(1)?.first()? == 1;
            let lt = take(6)?;
            let last_tid = has_last.then_some(Tid {
                block: u32_of(lt.get(..4)?)?,
                offset: u16_of(lt.get(4..)?)?,
            });
            let links = u32_of(take(4)?)?;
            let mut p = GinPage {
                block,
                flags,
                rightlink,
                stored,
                links: Vec::new(),
                right_bound,
                last_tid,
            };
            for _ in 0..links {
                let l = take(10)?;
                p.links.push((
                    u32_of(l.get(..4)?)?,
                    Tid {
                        block: u32_of(l.get(4..8)?)?,
                        offset: u16_of(l.get(8..)?)?,
                    },
                ));
            }
            out.pages.push(p);
        }
        r.is_empty().then_some(out)
    }
}

/// One page to visit: its depth, and for a posting tree page its parent's key (NO_TID: none,
/// or plus infinity below a rightmost page) and whether it has a parent.
#[derive(Clone, Copy)]
struct Visit {
    block: u32,
    depth: u32,
    parent_key: Tid,
    has_parent: bool,
}

struct Walk<'a> {
    pages: &'a [GinPage],
    /// Pages visited in all; a sound index visits each once, so a walk that downlinks send
    /// in circles stops at a few times the file's pages.
    budget: u32,
    out: Vec<WalkFinding>,
}

/// Walks the entry tree and its posting trees; `pages` sorted by block, all of the file.
pub(crate) fn walk(pages: &[GinPage], blocks: u32) -> Vec<WalkFinding> {
    let mut w = Walk {
        pages,
        budget: blocks.saturating_mul(4).saturating_add(16),
        out: Vec::new(),
    };
    w.entry_tree();
    w.out
}

impl<'a> Walk<'a> {
    fn find(&self, b: u32) -> Option<&'a GinPage> {
        page_at(self.pages, b, |p| p.block)
    }

    fn report(&mut self, block: u32, finding: Finding) {
        report_once(&mut self.out, block, finding);
    }

    /// The next page off `stack` within the budget. amcheck pushes each child right after
    /// the page it is on, so the last child is visited first: a stack.
    fn next(&mut self, stack: &mut Vec<Visit>) -> Option<(Visit, &'a GinPage)> {
        loop {
            let v = stack.pop()?;
            self.budget = self.budget.checked_sub(1)?;
            // A page the walk cannot read as GIN is check_index_page's, not the walk's.
            if let Some(p) = self.find(v.block) {
                return Some((v, p));
            }
        }
    }

    /// gin_check_parent_keys_consistency's descent: every entry leaf at the first leaf's
    /// depth, and each posting tree an entry leaf names, in item order.
    fn entry_tree(&mut self) {
        let mut leaf_depth = None;
        let mut stack = alloc::vec![Visit {
            block: GIN_ROOT_BLKNO,
            depth: 0,
            parent_key: NO_TID,
            has_parent: false,
        }];
        while let Some((v, page)) = self.next(&mut stack) {
            if page.is(GIN_DATA) {
                continue;
            }
            let leaf = page.is(GIN_LEAF);
            if leaf && *leaf_depth.get_or_insert(v.depth) != v.depth {
                self.report(page.block, Finding::GinLeafDepthUnexpected);
            }
            for &(child, _) in &page.links {
                if leaf {
                    self.posting_tree(child);
                } else {
                    stack.push(Visit {
                        block: child,
                        depth: v.depth.saturating_add(1),
                        parent_key: NO_TID,
                        has_parent: true,
                    });
                }
            }
        }
    }

    /// gin_check_posting_tree_parent_keys_consistency from `root`.
    fn posting_tree(&mut self, root: u32) {
        let mut leaf_depth = None;
        let mut stack = alloc::vec![Visit {
            block: root,
            depth: 0,
            parent_key: NO_TID,
            has_parent: false,
        }];
        while let Some((v, page)) = self.next(&mut stack) {
            if !page.is(GIN_DATA) {
                continue;
            }
            let key = (v.parent_key.block, v.parent_key.offset);
            if page.is(GIN_LEAF) {
                if *leaf_depth.get_or_insert(v.depth) != v.depth {
                    self.report(page.block, Finding::GinLeafDepthUnexpected);
                }
                if let Some(last) = page.last_tid {
                    if v.has_parent && v.parent_key.offset != 0 && key < (last.block, last.offset) {
                        self.report(page.block, Finding::GinPostingTreeTidAboveParent);
                    }
                }
                continue;
            }
            // ItemPointerIsValid: an offset other than InvalidOffsetNumber.
            if v.parent_key.offset != 0
                && page.rightlink != INVALID_BLOCK_NUMBER
                && v.parent_key != page.right_bound
            {
                self.report(page.block, Finding::GinPostingTreeHighKeyMismatch);
            }
            let maxoff = page.links.len();
            for (i, &(child, item_key)) in page.links.iter().enumerate() {
                if v.has_parent
                    && i.saturating_add(1) == maxoff
                    && key < (item_key.block, item_key.offset)
                {
                    self.report(page.block, Finding::GinPostingItemAboveParent);
                }
                stack.push(Visit {
                    block: child,
                    depth: v.depth.saturating_add(1),
                    parent_key: if page.rightlink == INVALID_BLOCK_NUMBER {
                        NO_TID
                    } else {
                        item_key
                    },
                    has_parent: true,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn tid(block: u32, offset: u16) -> Tid {
        Tid { block, offset }
    }

    fn page(block: u32, flags: u16, rightlink: u32, links: Vec<(u32, Tid)>) -> GinPage {
        GinPage {
            block,
            flags,
            rightlink,
            stored: 0,
            links,
            right_bound: NO_TID,
            last_tid: None,
        }
    }

    /// Entry root 1 over leaves 2 and 3; leaf 3 names posting tree 4: a rightmost root over
    /// internal pages 5 (keys up to (10,1)) and 6, over leaves 7, 8 and 9.
    fn index() -> Vec<GinPage> {
        let data = GIN_DATA;
        let mut p5 = page(5, data, 6, vec![(7, tid(5, 1)), (8, tid(10, 1))]);
        p5.right_bound = tid(10, 1);
        let mut leaves: Vec<GinPage> = [
            (7, 8, tid(5, 1)),
            (8, 9, tid(10, 1)),
            (9, INVALID_BLOCK_NUMBER, tid(20, 1)),
        ]
        .into_iter()
        .map(|(b, right, last)| {
            let mut p = page(b, data | GIN_LEAF, right, vec![]);
            p.last_tid = Some(last);
            p
        })
        .collect();
        let mut out = vec![
            page(1, 0, INVALID_BLOCK_NUMBER, vec![(2, NO_TID), (3, NO_TID)]),
            page(2, GIN_LEAF, 3, vec![]),
            page(
                3,
                GIN_LEAF,
                INVALID_BLOCK_NUMBER,
                vec![(4, tid(4, GIN_TREE_POSTING))],
            ),
            page(
                4,
                data,
                INVALID_BLOCK_NUMBER,
                vec![(5, tid(10, 1)), (6, tid(0, 0))],
            ),
            p5,
            page(6, data, INVALID_BLOCK_NUMBER, vec![(9, tid(0, 0))]),
        ];
        out.append(&mut leaves);
        out
    }

    fn found(pages: &[GinPage]) -> Vec<(u32, Finding)> {
        walk(pages, 10)
            .into_iter()
            .map(|f| (f.block, f.finding))
            .collect()
    }

    #[test]
    fn a_sound_index_has_no_finding() {
        assert_eq!(found(&index()), vec![]);
    }

    #[test]
    fn a_posting_leaf_past_its_parent_key_is_found_at_the_leaf() {
        let mut t = index();
        t[6].last_tid = Some(tid(6, 1));
        assert_eq!(found(&t), vec![(7, Finding::GinPostingTreeTidAboveParent)]);
    }

    #[test]
    fn a_posting_page_whose_high_key_is_not_its_downlink_key_is_found() {
        let mut t = index();
        // A rightmost page's children have no key to meet: make the root's level go on.
        t[3].rightlink = 99;
        assert_eq!(found(&t), vec![]);
        t[3].links[0].1 = tid(11, 1);
        assert_eq!(found(&t), vec![(5, Finding::GinPostingTreeHighKeyMismatch)]);
        t[4].right_bound = tid(11, 1);
        t[4].links[1].1 = tid(12, 1);
        assert_eq!(found(&t), vec![(5, Finding::GinPostingItemAboveParent)]);
    }

    #[test]
    fn a_leaf_at_another_depth_is_found_and_circles_end() {
        let mut t = index();
        // The root's first downlink names internal page 10 above leaf 2: leaf 3, visited
        // first (the last downlink first), sets the depth.
        t[0].links[0] = (10, NO_TID);
        t.push(page(10, 0, INVALID_BLOCK_NUMBER, vec![(2, NO_TID)]));
        t.sort_by_key(|p| p.block);
        assert_eq!(found(&t), vec![(2, Finding::GinLeafDepthUnexpected)]);
        // A root naming itself ends within the budget.
        t[0].links = vec![(1, NO_TID)];
        assert_eq!(found(&t), vec![]);
    }
}
