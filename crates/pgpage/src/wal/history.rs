//! For chosen blocks: the newest full-page image and every record after it that touched the
//! block. An image is the page as it was when its record was written; the records after it
//! changed the page again, and only replaying them (not this image alone) gives the page the
//! server had last.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::vec::Vec;

use super::record::WalRecord;
use super::{RelFileLocator, RelationFilter};

/// A block of a relation fork.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BlockKey {
    pub locator: RelFileLocator,
    pub fork: u8,
    pub block: u32,
}

/// One record that referenced the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Touch {
    pub lsn: u64,
    pub rmid: u8,
    pub info: u8,
    /// The record carries an image of the block.
    pub image: bool,
    /// BKPBLOCK_WILL_INIT: replay builds the page from nothing, so no image is needed before it.
    pub will_init: bool,
}

impl Touch {
    /// What the record did to the rows of the heap page it touched, in WAL of `version`.
    pub fn effect(&self, version: u32) -> super::RowEffect {
        super::RowEffect::of(version, self.rmid, self.info)
    }
}

/// What putting `what` in place loses, given the records after it (WAL of `version`).
pub fn restoring_after(what: &str, version: u32, after: &[Touch]) -> alloc::string::String {
    let effects: Vec<super::RowEffect> = after.iter().map(|t| t.effect(version)).collect();
    super::restoring(what, &effects)
}

/// Which blocks are kept.
#[derive(Debug)]
enum Watch {
    /// One block number, in every relation or in `relation` when given (`fpi --block`).
    Block {
        relation: Option<RelationFilter>,
        block: u32,
    },
    /// Chosen blocks, each by relfilenode, fork and block: the browser's damaged pages. A file
    /// dropped loose does not say its database, so every database's and tablespace's are kept
    /// and the caller picks.
    Blocks(BTreeSet<(u32, u8, u32)>),
}

/// How much of the WAL the records observed cover without a break, by their xl_prev links.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// The first record's start LSN.
    pub start: Option<u64>,
    /// Where the last record ends.
    pub end: Option<u64>,
    /// The newest break: (where the record before it ended, the record whose xl_prev is
    /// not that record). The WAL between them was not read: a segment missing, a record
    /// that could not be read, or one left out for another timeline.
    pub gap: Option<(u64, u64)>,
}

#[derive(Debug)]
pub struct BlockHistory {
    watch: Watch,
    /// Every record that touched each watched block, in the order observed (LSN order): the
    /// newest image is picked at reading, under a bound the caller may set then
    /// ([`BlockHistory::until`]).
    blocks: BTreeMap<BlockKey, Vec<Touch>>,
    coverage: Coverage,
    /// The start LSN of the record observed last, which the next one's xl_prev must name.
    last: Option<u64>,
}

impl BlockHistory {
    pub fn new(relation: Option<RelationFilter>, block: u32) -> BlockHistory {
        BlockHistory {
            watch: Watch::Block { relation, block },
            blocks: BTreeMap::new(),
            coverage: Coverage::default(),
            last: None,
        }
    }

    /// The blocks of `blocks`: (relfilenode, fork, block) each, in any database.
    pub fn of_blocks(blocks: BTreeSet<(u32, u8, u32)>) -> BlockHistory {
        BlockHistory {
            watch: Watch::Blocks(blocks),
            blocks: BTreeMap::new(),
            coverage: Coverage::default(),
            last: None,
        }
    }

    fn watches(&self, locator: &RelFileLocator, fork: u8, block: u32) -> bool {
        match &self.watch {
            Watch::Block { relation, block: b } => {
                *b == block && relation.is_none_or(|r| r.matches(locator))
            }
            Watch::Blocks(set) => set.contains(&(locator.rel_number, fork, block)),
        }
    }

    pub fn observe(&mut self, rec: &WalRecord<'_>) {
        self.link(rec);
        for b in rec.blocks {
            if !self.watches(&b.locator, b.fork, b.block) {
                continue;
            }
            let key = BlockKey {
                locator: b.locator,
                fork: b.fork,
                block: b.block,
            };
            let touch = Touch {
                lsn: rec.lsn,
                rmid: rec.rmid,
                info: rec.info,
                image: b.image.is_some(),
                will_init: b.will_init,
            };
            self.blocks.entry(key).or_default().push(touch);
        }
    }

    /// Each record names the one before it (xl_prev): a record that names another than the
    /// one observed last follows WAL that was not read.
    fn link(&mut self, rec: &WalRecord<'_>) {
        let prev = rec.prev();
        match (self.last, self.coverage.end) {
            (Some(last), Some(end)) if prev != last => {
                self.coverage.gap = Some((end, rec.lsn));
            }
            (None, _) => self.coverage.start = Some(rec.lsn),
            _ => {}
        }
        self.last = Some(rec.lsn);
        self.coverage.end = Some(rec.end_lsn);
    }

    /// What the records observed cover of the WAL.
    pub fn coverage(&self) -> Coverage {
        self.coverage
    }

    /// Each block seen: its newest image's record (if any), and the records after it.
    pub fn blocks(&self) -> impl Iterator<Item = (&BlockKey, Option<&Touch>, &[Touch])> {
        self.until(None)
    }

    /// As [`BlockHistory::blocks`], of the records that start at or before `end` only (all
    /// of them for None): WAL past a cluster's shutdown checkpoint is another history's.
    pub fn until(
        &self,
        end: Option<u64>,
    ) -> impl Iterator<Item = (&BlockKey, Option<&Touch>, &[Touch])> {
        self.blocks.iter().filter_map(move |(k, all)| {
            let kept = all.get(..all.partition_point(|t| end.is_none_or(|e| t.lsn <= e)))?;
            if kept.is_empty() {
                return None;
            }
            Some(match kept.iter().rposition(|t| t.image) {
                Some(i) => (
                    k,
                    kept.get(i),
                    kept.get(i.saturating_add(1)..).unwrap_or(&[]),
                ),
                None => (k, None, kept),
            })
        })
    }

    /// The records past `end` that touched a watched block: how many, and the first's LSN.
    pub fn past(&self, end: u64) -> (u64, Option<u64>) {
        let past = self.blocks.values().flatten().filter(|t| t.lsn > end);
        let first = past.clone().map(|t| t.lsn).min();
        (past.count() as u64, first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wal::BlockRef;

    fn block(db: u32, rel: u32, block: u32, image: bool) -> BlockRef {
        crate::wal::fixture::block(db, rel, 0, block, image)
    }

    /// A Heap/INSERT-like record (rmgr 10, info 0x20) at `lsn`.
    fn record<'a>(lsn: u64, blocks: &'a [BlockRef]) -> WalRecord<'a> {
        crate::wal::fixture::record(lsn, 10, 0x20, blocks, &[])
    }

    /// A set of watched blocks keeps each one's newest image and the records after it, in
    /// every database, and nothing of the blocks not watched.
    #[test]
    fn watched_blocks_keep_the_newest_image_and_what_followed() {
        let mut h = BlockHistory::of_blocks([(16384, 0, 3), (16390, 0, 0)].into());
        let steps: [(u64, &[BlockRef]); 6] = [
            (100, &[block(5, 16384, 3, false)]),
            (200, &[block(5, 16384, 3, true), block(5, 16384, 4, true)]),
            (300, &[block(5, 16384, 3, false)]),
            (400, &[block(5, 16384, 3, true)]),
            (500, &[block(5, 16384, 3, false), block(7, 16384, 3, false)]),
            (600, &[block(5, 16390, 1, true)]),
        ];
        for (lsn, blocks) in steps {
            h.observe(&record(lsn, blocks));
        }
        let seen: Vec<(u32, Option<u64>, Vec<u64>)> = h
            .blocks()
            .map(|(k, image, after)| {
                (
                    k.locator.db_oid,
                    image.map(|t| t.lsn),
                    after.iter().map(|t| t.lsn).collect(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                (5, Some(400), alloc::vec![500]),
                (7, None, alloc::vec![500])
            ]
        );
        // Bounded at 350, the image at 400 and what followed are another history's.
        let bounded: Vec<(u32, Option<u64>, Vec<u64>)> = h
            .until(Some(350))
            .map(|(k, image, after)| {
                (
                    k.locator.db_oid,
                    image.map(|t| t.lsn),
                    after.iter().map(|t| t.lsn).collect(),
                )
            })
            .collect();
        assert_eq!(bounded, [(5, Some(200), alloc::vec![300])]);
        assert_eq!(h.past(350), (3, Some(400)));
    }

    /// Records linked by xl_prev cover the WAL from the first to the last; a record that
    /// names another before it marks a gap from where the one observed last ended.
    #[test]
    fn coverage_follows_xl_prev() {
        let header = |prev: u64| {
            let mut b = [0u8; 24];
            b[8..16].copy_from_slice(&prev.to_le_bytes());
            b
        };
        let mut h = BlockHistory::of_blocks([(16384, 0, 3)].into());
        let chain: [(u64, u64); 4] = [(100, 40), (108, 100), (116, 108), (200, 150)];
        for (lsn, prev) in chain {
            let bytes = header(prev);
            let mut rec = record(lsn, &[]);
            rec.bytes = &bytes;
            h.observe(&rec);
        }
        assert_eq!(
            h.coverage(),
            Coverage {
                start: Some(100),
                end: Some(208),
                gap: Some((124, 200)),
            }
        );
    }
}
