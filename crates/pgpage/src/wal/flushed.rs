//! Which main-fork blocks the latest checkpoint must have written: per block, the records
//! before the checkpoint's redo point that changed it. CreateCheckPoint writes every buffer
//! dirtied before the redo point (CheckPointGuts, BufferSync), each only after its WAL up to
//! pd_lsn (FlushBuffer), and every record below set pd_lsn to its end on the pages it
//! registers: a page on disk whose pd_lsn is older than such a record is an older version
//! of the block (a lost write, or a stale restore).

use alloc::collections::BTreeMap;

use super::record::WalRecord;
use super::rmgr::{storage_change, StorageChange};
use super::{record_type, RelFileLocator};

/// The records of one block before the redo point, as far as they tell its age.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlushedBlock {
    /// The first and the newest record's start LSN.
    pub first: u64,
    pub newest: u64,
    /// Where the newest record ends.
    pub newest_end: u64,
    pub records: u32,
    /// The newest of those records that carries an image of the block.
    pub image: Option<u64>,
}

impl FlushedBlock {
    /// The page's pd_lsn when the page on disk is an older version of this block: a page
    /// that verifies, with a sane header, not new (pd_upper 0 says no age), whose pd_lsn is
    /// at or before the newest record that changed the block. None otherwise.
    pub fn older_page(&self, page: &[u8], absolute: u32, endian: crate::Endian) -> Option<u64> {
        use crate::page::verify::{header_is_sane, verify_page, PageStatus};
        if verify_page(page, absolute, endian).status != PageStatus::Ok
            || !header_is_sane(page, endian)
            || crate::page::geometry::read_u16(page, 14, endian)? == 0
        {
            return None;
        }
        let hi = crate::page::geometry::read_u32(page, 0, endian)?;
        let lo = crate::page::geometry::read_u32(page, 4, endian)?;
        let pd_lsn = u64::from(hi) << 32 | u64::from(lo);
        (pd_lsn <= self.newest).then_some(pd_lsn)
    }
}

/// The collector (see the module's doc). One entry per block touched, so its memory is
/// bounded by the blocks the WAL names, not by its length.
#[derive(Debug, Default)]
pub struct FlushedChanges {
    redo: u64,
    blocks: BTreeMap<(RelFileLocator, u32), FlushedBlock>,
}

/// Whether the record sets pd_lsn on every main-fork page it registers and dirties it in
/// the same critical section. Heap and B-tree records do (heapam.c, nbtinsert.c, ...), and
/// so do full-page images (log_newpage, MarkBufferDirtyHint). Left out, because a page can
/// keep an older pd_lsn on disk: Heap2/VISIBLE (visibilitymap_set sets the heap page's LSN
/// only with checksums or wal_log_hints, and without dirtying a page already all-visible),
/// and the access methods not checked here (hash registers buckets it does not change,
/// REGBUF_NO_CHANGE).
fn sets_pd_lsn(rec: &WalRecord<'_>) -> bool {
    let name = record_type(rec.version, rec.rmid, rec.info);
    match rec.rmid {
        super::names::HEAP => true,
        super::names::HEAP2 => !matches!(name.as_str(), "VISIBLE" | "NEW_CID" | "REWRITE"),
        super::names::BTREE => true,
        super::names::XLOG => matches!(name.as_str(), "FPI" | "FPI_FOR_HINT"),
        _ => false,
    }
}

impl FlushedChanges {
    /// `redo`: the latest checkpoint's REDO location (pg_control).
    pub fn new(redo: u64) -> FlushedChanges {
        FlushedChanges {
            redo,
            blocks: BTreeMap::new(),
        }
    }

    pub fn redo(&self) -> u64 {
        self.redo
    }

    pub fn observe(&mut self, rec: &WalRecord<'_>) {
        // A file created anew or cut short no longer holds what earlier records wrote
        // there, whenever that happened: a block later extended again starts from nothing.
        match storage_change(rec) {
            Some(StorageChange::Create { locator, fork: 0 }) => {
                self.blocks.retain(|(l, _), _| *l != locator);
                return;
            }
            Some(StorageChange::Truncate {
                locator,
                blocks,
                main: true,
            }) => {
                self.blocks
                    .retain(|(l, block), _| *l != locator || *block < blocks);
                return;
            }
            Some(_) => return,
            None => {}
        }
        if rec.end_lsn > self.redo || !sets_pd_lsn(rec) {
            return;
        }
        for b in rec.blocks.iter().filter(|b| b.fork == 0) {
            let image = b.image.is_some().then_some(rec.lsn);
            self.blocks
                .entry((b.locator, b.block))
                .and_modify(|f| {
                    f.newest = rec.lsn;
                    f.newest_end = rec.end_lsn;
                    f.records = f.records.saturating_add(1);
                    f.image = image.or(f.image);
                })
                .or_insert(FlushedBlock {
                    first: rec.lsn,
                    newest: rec.lsn,
                    newest_end: rec.end_lsn,
                    records: 1,
                    image,
                });
        }
    }

    /// The block's records before the redo point, None when none changed it.
    pub fn block(&self, locator: &RelFileLocator, block: u32) -> Option<&FlushedBlock> {
        self.blocks.get(&(*locator, block))
    }

    /// The relation's blocks changed before the redo point, by relation-wide block.
    pub fn relation_blocks(&self, locator: RelFileLocator) -> BTreeMap<u32, FlushedBlock> {
        self.blocks
            .range((locator, 0)..=(locator, u32::MAX))
            .map(|((_, b), f)| (*b, *f))
            .collect()
    }

    /// Every block changed before the redo point, by relation.
    pub fn blocks(&self) -> impl Iterator<Item = (&RelFileLocator, u32, &FlushedBlock)> {
        self.blocks.iter().map(|((l, b), f)| (l, *b, f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wal::fixture::record;
    use crate::wal::BlockRef;
    use alloc::vec::Vec;

    fn locator(rel: u32) -> RelFileLocator {
        RelFileLocator {
            spc_oid: 1663,
            db_oid: 5,
            rel_number: rel,
        }
    }

    fn block(rel: u32, fork: u8, block: u32, image: bool) -> BlockRef {
        crate::wal::fixture::block(5, rel, fork, block, image)
    }

    fn truncate(rel: u32, blocks: u32) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&blocks.to_le_bytes());
        for v in [1663u32, 5, rel] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&7i32.to_le_bytes());
        b
    }

    /// Records before the redo point count, those after it or of the visibility map, a
    /// Heap2/VISIBLE or a hash index do not, and a truncation forgets the blocks it cut.
    #[test]
    fn only_records_that_the_checkpoint_flushed_count() {
        let mut f = FlushedChanges::new(1000);
        let heap_delete = [block(16384, 0, 3, false)];
        let fpi = [block(16384, 0, 3, true), block(16384, 0, 9, true)];
        let vm = [block(16384, 2, 0, false)];
        let cut = truncate(16384, 5);
        let steps: [WalRecord<'_>; 7] = [
            record(100, 10, 0x10, &heap_delete, &[]),
            record(200, 0, 0xB0, &fpi, &[]),
            record(300, 10, 0x10, &heap_delete, &[]),
            record(400, 9, 0x40, &heap_delete, &[]),
            record(500, 12, 0x00, &heap_delete, &[]),
            record(600, 10, 0x10, &vm, &[]),
            record(2000, 10, 0x10, &heap_delete, &[]),
        ];
        for rec in &steps {
            f.observe(rec);
        }
        assert_eq!(
            f.block(&locator(16384), 3),
            Some(&FlushedBlock {
                first: 100,
                newest: 300,
                newest_end: 308,
                records: 3,
                image: Some(200),
            })
        );
        assert!(f.block(&locator(16384), 9).is_some());
        f.observe(&record(3000, 2, 0x20, &[], &cut));
        assert!(f.block(&locator(16384), 9).is_none());
        assert!(f.block(&locator(16384), 3).is_some());
        assert_eq!(f.blocks().count(), 1);
    }
}
