//! Block media recovery: chosen blocks replayed from WAL as the server's recovery replays
//! them (xlogutils.c XLogReadBufferForRedoExtended's rules, each access method's redo), from a
//! start point: the page on disk at the redo point, or the block's newest full-page image. A
//! block that meets a record pgpage does not apply is named with it, never half replayed.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use crate::am::heap::redo::{
    recorded_free_space, redo_heap_block, unregistered_vm_clears, RedoError, RedoSettings,
};
use crate::am::maps::redo::{
    fsm_position, fsm_set_avail, fsm_space_avail_to_cat, vm_clear, vm_page_ready,
};
use crate::am::nbtree::redo::{mask as btree_mask, redo_btree_block};
use crate::cluster::control::ControlFile;
use crate::page::kind::VISIBILITYMAP_FORKNUM;
use crate::page::write::{is_new, page_lsn, set_checksum, set_lsn};
use crate::wal::rmgr::heap::{RM_HEAP2_ID, RM_HEAP_ID};
use crate::wal::rmgr::nbtree::RM_BTREE_ID;
use crate::wal::rmgr::{description, Description};
use crate::wal::{lsn_text_for, record_type, rmgr_name, BlockKey, WalRecord};
use crate::Endian;

const RM_XLOG_ID: u8 = 0;
const XLOG_FPI_FOR_HINT: u8 = 0xA0;
const XLOG_FPI: u8 = 0xB0;
/// common/relpath.h FSM_FORKNUM.
const FSM_FORKNUM: u8 = 1;

/// Where a block's replay started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartSource {
    /// A full-page image in the WAL (or a record that initialises the page).
    WalImage,
    /// The page on disk at the redo point (`--all`).
    File,
    /// The page of a base backup, at the backup's start (`--from`).
    Backup,
}

impl StartSource {
    pub fn as_str(self) -> &'static str {
        match self {
            StartSource::WalImage => "wal_image",
            StartSource::File => "file",
            StartSource::Backup => "backup",
        }
    }
}

/// One record replayed onto a block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    pub lsn: u64,
    pub rmgr: String,
    pub record: String,
    pub desc: String,
}

/// Why a block is not recovered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotRecovered {
    pub lsn: Option<u64>,
    pub reason: String,
}

#[derive(Clone, Debug)]
struct BlockState {
    /// The page as replay has it in memory.
    page: Option<Vec<u8>>,
    /// The page on disk, written back unless replay dirtied the buffer.
    original: Option<Vec<u8>>,
    /// MarkBufferDirty: the server writes the page at the end of recovery.
    dirty: bool,
    /// A free space map change made as a hint on a page not dirtied otherwise (before 19):
    /// whether the server's copy keeps it depends on what dirties the buffer later.
    hint_only: Option<u64>,
    start: Option<(StartSource, u64)>,
    applied: Vec<Applied>,
    failure: Option<NotRecovered>,
}

/// Which blocks are replayed.
#[derive(Clone, Debug)]
pub enum Chosen {
    /// Every block the WAL changes from the redo point on, starting from the page on disk.
    All { redo_point: u64 },
    /// These blocks, each from its newest full-page image.
    Blocks(BTreeSet<BlockKey>),
    /// From a base backup's pages (what `disk` gives), replayed from the backup's start:
    /// these blocks, or every block the WAL changes after it (None). `checksums`: the
    /// backup's pages carry checksums, which a starting page must pass.
    Backup {
        start: u64,
        blocks: Option<BTreeSet<BlockKey>>,
        checksums: bool,
    },
}

impl Chosen {
    /// Where the replay of pages read from disk starts, and what those pages are.
    fn disk_start(&self) -> Option<(u64, StartSource)> {
        match self {
            Chosen::All { redo_point } => Some((*redo_point, StartSource::File)),
            Chosen::Backup { start, .. } => Some((*start, StartSource::Backup)),
            Chosen::Blocks(_) => None,
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct RecoverOptions {
    pub hint_bits_logged: bool,
    pub block_size: usize,
    /// Replay records that start at or before this LSN only.
    pub upto: Option<u64>,
    /// A cluster shut down cleanly ends its history at its shutdown checkpoint: records past
    /// it are another history's (a copy started since, archiving to the same place), left
    /// out and counted ([`Recovery::other_history`]).
    pub history_end: Option<u64>,
}

/// What a cluster's pg_control decides of its replay: the block size, whether hint bits are
/// WAL-logged (data checksums or wal_log_hints: recovery then ignores an unlogged hint), and
/// whether the pages written get a checksum (`finish`'s argument). Refused, with the reason,
/// for a pg_control whose CRC fails or a big-endian cluster, whose pages replay does not write.
pub fn recover_settings(
    cf: &ControlFile,
    upto: Option<u64>,
) -> Result<(RecoverOptions, bool), &'static str> {
    if !cf.crc_ok() {
        return Err("pg_control is damaged (its CRC fails)");
    }
    if cf.endian != Endian::Little {
        return Err("recover replays little-endian clusters only");
    }
    let block_size = cf
        .block_size()
        .and_then(|b| usize::try_from(b).ok())
        .unwrap_or(8192);
    let checksums = cf.extra.data_checksum_version != 0;
    Ok((
        RecoverOptions {
            hint_bits_logged: checksums || cf.extra.wal_log_hints,
            block_size,
            upto,
            history_end: shutdown_checkpoint(cf),
        },
        checksums,
    ))
}

/// pg_control's latest checkpoint, where it says the cluster was shut down cleanly: the end
/// of its history. None for a cluster that crashed, runs or was a standby, whose WAL goes on
/// past its latest checkpoint.
pub fn shutdown_checkpoint(cf: &ControlFile) -> Option<u64> {
    if cf.state != crate::cluster::control::DB_SHUTDOWNED {
        return None;
    }
    match cf.get("checkpoint_lsn") {
        Some(crate::cluster::control::ControlValue::Text(t)) => crate::wal::parse_lsn(t),
        _ => None,
    }
}

/// A block's outcome.
#[derive(Clone, Debug)]
pub struct BlockResult {
    pub key: BlockKey,
    pub start: Option<(StartSource, u64)>,
    pub applied: Vec<Applied>,
    /// The page as recovery would write it (checksum not yet set); None when not recovered.
    pub page: Option<Vec<u8>>,
    pub lsn: Option<u64>,
    pub failure: Option<NotRecovered>,
}

pub struct Recovery {
    chosen: Chosen,
    opts: RecoverOptions,
    version: u32,
    blocks: BTreeMap<BlockKey, BlockState>,
    /// The start LSN of the record observed last (the next one's xl_prev names it) and
    /// where it ended.
    last: Option<(u64, u64)>,
    /// WAL missing from the replayed range (a segment not given, a record unread): every
    /// block met after it, without an image, is not recovered, for this reason.
    broken: Option<NotRecovered>,
    /// Every gap met in the WAL read, in words: a block recovered across one started again
    /// from an image after it, but the user is told the WAL was not whole.
    gaps: Vec<String>,
    /// A record past `--upto` was read: the WAL reaches it.
    beyond: bool,
    /// Records past `history_end` left out: how many, and the first one's LSN.
    other_history: (u64, Option<u64>),
    /// A record at or after the start of the replay from disk pages was read.
    reached: bool,
}

impl Recovery {
    pub fn new(chosen: Chosen, opts: RecoverOptions) -> Recovery {
        let blocks = match &chosen {
            Chosen::Blocks(set) => set
                .iter()
                .map(|k| {
                    (
                        *k,
                        BlockState {
                            page: None,
                            original: None,
                            dirty: false,
                            hint_only: None,
                            start: None,
                            applied: Vec::new(),
                            failure: None,
                        },
                    )
                })
                .collect(),
            Chosen::All { .. } | Chosen::Backup { .. } => BTreeMap::new(),
        };
        Recovery {
            chosen,
            opts,
            version: 0,
            blocks,
            last: None,
            broken: None,
            gaps: Vec::new(),
            beyond: false,
            other_history: (0, None),
            reached: false,
        }
    }

    /// With `Chosen::Backup` and blocks named, each block's starting page read now, so that
    /// a block no record touches comes out as the backup has it.
    pub fn prepare(&mut self, disk: &mut dyn FnMut(&BlockKey) -> Option<Vec<u8>>) {
        let keys: Vec<BlockKey> = match &self.chosen {
            Chosen::Backup {
                blocks: Some(set), ..
            } => set.iter().copied().collect(),
            _ => Vec::new(),
        };
        for key in keys {
            self.state(key, disk);
        }
    }

    /// Whether the WAL read is whole up to `rec`: each record's xl_prev names the one read
    /// before it. Missing WAL fails every block whose replay is under way (an image of the
    /// block, later, starts it again), and, inside the range replayed from disk pages, every
    /// block met later too.
    fn link(&mut self, rec: &WalRecord<'_>) {
        let prev = rec.prev();
        let missing = match self.last {
            Some((last, end)) if prev != last => Some(format!(
                "the WAL given has a gap from {} to {} (a segment missing or a record that could not be read): the records there are not replayed",
                lsn_text_for(rec.version, end),
                lsn_text_for(rec.version, rec.lsn)
            )),
            // The first record read: the WAL before it matters only inside the replayed
            // range, where a record (the one xl_prev names) was left out.
            None => self
                .chosen
                .disk_start()
                .filter(|(start, _)| prev != 0 && prev >= *start && rec.lsn > *start)
                .map(|(start, _)| {
                    format!(
                        "the WAL given starts at {}, after the replay's start at {}: the records between are not in it",
                        lsn_text_for(rec.version, rec.lsn),
                        lsn_text_for(rec.version, start)
                    )
                }),
            _ => None,
        };
        self.last = Some((rec.lsn, rec.end_lsn));
        let Some(reason) = missing else {
            return;
        };
        self.gaps.push(reason.clone());
        let failure = NotRecovered {
            lsn: Some(rec.lsn),
            reason,
        };
        for st in self.blocks.values_mut() {
            if st.page.is_some() && st.failure.is_none() {
                st.failure = Some(failure.clone());
            }
        }
        if self
            .chosen
            .disk_start()
            .is_some_and(|(start, _)| prev >= start)
        {
            self.broken = Some(failure);
        }
    }

    fn state(
        &mut self,
        key: BlockKey,
        disk: &mut dyn FnMut(&BlockKey) -> Option<Vec<u8>>,
    ) -> Option<&mut BlockState> {
        let wanted = match &self.chosen {
            Chosen::All { .. } => true,
            Chosen::Backup { blocks, .. } => blocks.as_ref().is_none_or(|b| b.contains(&key)),
            Chosen::Blocks(_) => false,
        };
        if let Some((start, source)) = self.chosen.disk_start().filter(|_| wanted) {
            if !self.blocks.contains_key(&key) {
                let original = disk(&key);
                let page = original
                    .clone()
                    .unwrap_or_else(|| vec![0u8; self.opts.block_size]);
                let lsn = if source == StartSource::Backup {
                    start
                } else {
                    page_lsn(&page)
                };
                // A backup's page the server's read would refuse is no starting point: only a
                // full-page image after the backup's start replaces it.
                let refused = match &self.chosen {
                    Chosen::Backup { checksums, .. } => {
                        let v = crate::page::verify::verify_page(&page, key.block, Endian::Little);
                        (v.status.is_problem() && (*checksums || v.status != crate::page::verify::PageStatus::Mismatch))
                            .then(|| NotRecovered {
                                lsn: None,
                                reason: format!(
                                    "the backup's page fails verification ({}) and no full-page image of the block follows the backup's start",
                                    v.status.as_str()
                                ),
                            })
                    }
                    _ => None,
                };
                self.blocks.insert(
                    key,
                    BlockState {
                        page: Some(page),
                        original,
                        dirty: false,
                        hint_only: None,
                        start: Some((source, lsn)),
                        applied: Vec::new(),
                        failure: refused.or_else(|| self.broken.clone()),
                    },
                );
            }
        }
        self.blocks.get_mut(&key)
    }

    /// Replays one record onto the blocks it touches that are being recovered. `disk` gives a
    /// block's page as the files hold it (None past a file's end), asked once per block.
    pub fn observe(
        &mut self,
        rec: &WalRecord<'_>,
        disk: &mut dyn FnMut(&BlockKey) -> Option<Vec<u8>>,
    ) {
        self.version = rec.version;
        if self.opts.history_end.is_some_and(|e| rec.lsn > e) {
            let (count, first) = self.other_history;
            self.other_history = (count.saturating_add(1), first.or(Some(rec.lsn)));
            return;
        }
        if self.opts.upto.is_some_and(|u| rec.lsn > u) {
            self.beyond = true;
            return;
        }
        self.link(rec);
        if let Some((start, _)) = self.chosen.disk_start() {
            if rec.lsn < start {
                return;
            }
            self.reached = true;
        }
        let settings = RedoSettings {
            version: rec.version,
            hint_bits_logged: self.opts.hint_bits_logged,
        };
        let applied = || Applied {
            lsn: rec.lsn,
            rmgr: rmgr_name(rec.rmid),
            record: record_type(rec.version, rec.rmid, rec.info),
            desc: match description(rec) {
                Description::Text(d) => d,
                Description::NotDecoded | Description::Invalid(_) => String::new(),
            },
        };
        let block_size = self.opts.block_size;
        let mut free_space = Vec::new();
        for b in rec.blocks {
            let key = BlockKey {
                locator: b.locator,
                fork: b.fork,
                block: b.block,
            };
            let Some(st) = self.state(key, disk) else {
                continue;
            };
            if let Some(img) = b.image.filter(|i| i.apply) {
                match rec.restore(&img, u32::try_from(block_size).unwrap_or(0)) {
                    Ok(mut page) => {
                        if !is_new(&page) {
                            set_lsn(&mut page, rec.end_lsn);
                        }
                        st.page = Some(page);
                        st.dirty = true;
                        st.hint_only = None;
                        st.failure = None;
                        if matches!(st.start, None | Some((StartSource::WalImage, _))) {
                            st.start = Some((StartSource::WalImage, rec.lsn));
                            st.applied.clear();
                        }
                        st.applied.push(applied());
                        if let Some(space) = st
                            .page
                            .as_deref()
                            .and_then(|p| recorded_free_space(&settings, rec, b.id, false, p))
                        {
                            free_space.push((b.locator, b.block, space));
                        }
                    }
                    Err(_) => {
                        st.failure = Some(NotRecovered {
                            lsn: Some(rec.lsn),
                            reason: String::from("its full-page image does not decompress"),
                        });
                    }
                }
                continue;
            }
            if b.will_init {
                st.page = Some(vec![0u8; block_size]);
                st.dirty = true;
                st.failure = None;
                if matches!(st.start, None | Some((StartSource::WalImage, _))) {
                    st.start = Some((StartSource::WalImage, rec.lsn));
                    st.applied.clear();
                }
            }
            if st.failure.is_some() {
                continue;
            }
            let Some(page) = st.page.as_mut() else {
                continue;
            };
            if !b.will_init {
                if is_new(page) && b.fork != VISIBILITYMAP_FORKNUM {
                    st.failure = Some(NotRecovered {
                        lsn: Some(rec.lsn),
                        reason: format!(
                            "the page is new (all zeros) when {}/{} at {} changes it",
                            rmgr_name(rec.rmid),
                            record_type(rec.version, rec.rmid, rec.info),
                            lsn_text_for(rec.version, rec.lsn)
                        ),
                    });
                    continue;
                }
                if rec.end_lsn <= page_lsn(page) {
                    if let Some(space) = recorded_free_space(&settings, rec, b.id, false, page) {
                        free_space.push((b.locator, b.block, space));
                    }
                    continue;
                }
            }
            let outcome = if rec.rmid == RM_HEAP_ID || rec.rmid == RM_HEAP2_ID {
                redo_heap_block(&settings, rec, b.id, page).map(|changed| {
                    st.dirty |= changed;
                    if let Some(space) = recorded_free_space(&settings, rec, b.id, true, page) {
                        free_space.push((b.locator, b.block, space));
                    }
                })
            } else if rec.rmid == RM_BTREE_ID {
                redo_btree_block(&settings, rec, b.id, page).map(|changed| st.dirty |= changed)
            } else if rec.rmid == RM_XLOG_ID
                && matches!(rec.info & 0xF0, XLOG_FPI | XLOG_FPI_FOR_HINT)
            {
                // An image the record does not apply (wal_consistency_checking's) changes
                // nothing.
                Ok(())
            } else {
                Err(RedoError::NotApplied)
            };
            // wal_consistency_checking's image of the block: the page as the primary had it
            // after this record. The server holds its replay to it under the rmgr's mask, and
            // so does this replay: a difference means the page would not be the server's.
            let outcome = outcome.and_then(|()| match b.image.filter(|i| !i.apply) {
                Some(img) if rec.rmid == RM_BTREE_ID => {
                    let logged = rec
                        .restore(&img, u32::try_from(block_size).unwrap_or(0))
                        .map_err(|_| {
                            RedoError::Invalid(String::from(
                                "its consistency-checking image does not decompress",
                            ))
                        })?;
                    match (btree_mask(page, rec.version), btree_mask(&logged, rec.version)) {
                        (Some(ours), Some(theirs)) if ours == theirs => Ok(()),
                        _ => Err(RedoError::Invalid(String::from(
                            "the replayed page differs from the page the server logged with the record for consistency checking (wal_consistency_checking)",
                        ))),
                    }
                }
                _ => Ok(()),
            });
            match outcome {
                Ok(()) => st.applied.push(applied()),
                Err(e) => {
                    let what = format!(
                        "{}/{}",
                        rmgr_name(rec.rmid),
                        record_type(rec.version, rec.rmid, rec.info)
                    );
                    let at = lsn_text_for(rec.version, rec.lsn);
                    let reason = match e {
                        RedoError::NotApplied => {
                            format!("record {what} at {at} is of a kind pgpage does not apply")
                        }
                        RedoError::Invalid(why) => {
                            format!("record {what} at {at} does not apply to the page: {why}")
                        }
                    };
                    st.failure = Some(NotRecovered {
                        lsn: Some(rec.lsn),
                        reason,
                    });
                }
            }
        }
        // The older records' map clears: no block reference, no LSN rule.
        for (locator, map_block, heap_block, flags) in unregistered_vm_clears(rec, block_size) {
            let key = BlockKey {
                locator,
                fork: VISIBILITYMAP_FORKNUM,
                block: map_block,
            };
            let Some(st) = self.state(key, disk) else {
                continue;
            };
            if st.failure.is_some() {
                continue;
            }
            if let Some(page) = st.page.as_mut() {
                if !is_new(page) && vm_clear(page, heap_block, flags) {
                    st.dirty = true;
                    st.applied.push(applied());
                }
            }
        }
        // XLogRecordPageWithFreeSpace: the bottom map page, extended or initialised if need
        // be. Before 19 it only marks the buffer dirty as a hint, which recovery ignores when
        // hint bits are logged: the change then lasts only if the page was dirtied otherwise.
        let fsm_dirties = rec.version >= 19 || !self.opts.hint_bits_logged;
        for (locator, heap_block, space) in free_space {
            let Some((fsm_block, slot)) = fsm_position(heap_block, block_size) else {
                continue;
            };
            let key = BlockKey {
                locator,
                fork: FSM_FORKNUM,
                block: fsm_block,
            };
            let Some(st) = self.state(key, disk) else {
                continue;
            };
            if st.failure.is_some() {
                continue;
            }
            if let Some(page) = st.page.as_mut() {
                vm_page_ready(page);
                let cat = fsm_space_avail_to_cat(space, block_size);
                if fsm_set_avail(page, slot, cat) {
                    st.dirty |= fsm_dirties;
                    if !st.dirty {
                        st.hint_only = Some(rec.lsn);
                    }
                    st.applied.push(applied());
                }
            }
        }
        // A chosen free space map page whose heap page is not replayed: its update is unknown.
        if let Chosen::Blocks(set) = &self.chosen {
            for b in rec.blocks.iter().filter(|b| b.fork == 0) {
                let fsm = fsm_position(b.block, block_size).map(|(blk, _)| BlockKey {
                    locator: b.locator,
                    fork: FSM_FORKNUM,
                    block: blk,
                });
                let heap = BlockKey {
                    locator: b.locator,
                    fork: 0,
                    block: b.block,
                };
                if let Some(fsm) = fsm.filter(|f| set.contains(f) && !set.contains(&heap)) {
                    if let Some(st) = self.blocks.get_mut(&fsm) {
                        if st.page.is_some() && st.failure.is_none() {
                            st.failure = Some(NotRecovered {
                                lsn: Some(rec.lsn),
                                reason: format!(
                                    "what record at {} leaves in the free space map depends on heap block {}, which is not being recovered",
                                    lsn_text_for(rec.version, rec.lsn),
                                    b.block
                                ),
                            });
                        }
                    }
                }
            }
        }
    }

    /// The gaps met in the WAL read so far, each in words.
    pub fn gaps(&self) -> &[String] {
        &self.gaps
    }

    /// The records left out past the cluster's shutdown checkpoint (another history's): how
    /// many, and the first one's LSN; None when there were none.
    pub fn other_history(&self) -> Option<(u64, u64)> {
        let (count, first) = self.other_history;
        Some((count, first?)).filter(|_| count > 0)
    }

    /// Every block's outcome, with the checksum set for its relation-wide number when the
    /// cluster has checksums.
    pub fn finish(self, checksums: bool) -> Vec<BlockResult> {
        // WAL that ends before --upto cannot say what the blocks were there.
        let short = self.opts.upto.filter(|_| !self.beyond).and_then(|u| {
            let end = self.last.map_or(0, |(_, end)| end);
            (end < u).then(|| NotRecovered {
                lsn: self.last.map(|(lsn, _)| lsn),
                reason: format!(
                    "the WAL given ends at {}, before --upto {}: what the records after its end did is unknown",
                    lsn_text_for(self.version, end),
                    lsn_text_for(self.version, u)
                ),
            })
        });
        // Pages read from disk need the WAL from the replay's start on.
        let none_read = match self.chosen.disk_start() {
            Some((start, _)) if !self.reached => Some(NotRecovered {
                lsn: None,
                reason: format!(
                    "the WAL given holds no record from the replay's start at {} on",
                    lsn_text_for(self.version, start)
                ),
            }),
            _ => None,
        };
        self.blocks
            .into_iter()
            .map(|(key, st)| {
                let failure = st
                    .failure
                    .or_else(|| none_read.clone())
                    .or_else(|| short.clone())
                    .or_else(|| {
                        st.page.is_none().then(|| NotRecovered {
                            lsn: None,
                            reason: String::from(
                                "no starting page: the WAL given holds no full-page image of it",
                            ),
                        })
                    })
                    .or_else(|| {
                        st.hint_only.filter(|_| !st.dirty).map(|lsn| NotRecovered {
                            lsn: Some(lsn),
                            reason: format!(
                                "the free space the record at {} leaves is a hint recovery keeps only if something else dirties the page; whether the server wrote it is unknown",
                                lsn_text_for(self.version, lsn)
                            ),
                        })
                    });
                let page = if failure.is_some() {
                    None
                } else if st.dirty {
                    st.page.map(|mut p| {
                        if checksums {
                            set_checksum(&mut p, key.block);
                        }
                        p
                    })
                } else {
                    // Not dirtied: the server leaves the page as it was (a block it had to
                    // extend the file by is zeros).
                    Some(
                        st.original
                            .unwrap_or_else(|| vec![0u8; self.opts.block_size]),
                    )
                };
                BlockResult {
                    key,
                    start: st.start,
                    applied: st.applied,
                    lsn: page.as_deref().map(page_lsn),
                    page,
                    failure,
                }
            })
            .collect()
    }

    /// The WAL's release, once a record has been seen.
    pub fn version(&self) -> u32 {
        self.version
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)] // a test: a failure is the report

    use super::*;
    use crate::cluster::control::{crc32c, decode_control};

    /// A 13-to-16 pg_control (1300), big-endian when `big`, with these settings and a valid CRC.
    fn control(big: bool, checksum_version: u32, wal_log_hints: bool, blcksz: u32) -> Vec<u8> {
        let put = |b: &mut [u8], at: usize, v: u32| {
            let bytes = if big {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            };
            b[at..at + 4].copy_from_slice(&bytes);
        };
        let mut b = vec![0u8; 8192];
        put(&mut b, 8, 1300);
        put(&mut b, 176, u32::from(wal_log_hints));
        put(&mut b, 216, blcksz);
        put(&mut b, 252, checksum_version);
        let crc = crc32c(&b[..288]);
        put(&mut b, 288, crc);
        b
    }

    /// A B-tree INSERT_LEAF of one 16-byte tuple at offset 1 whose block carries a
    /// wal_consistency_checking image (not applied): recovered when the image is the page redo
    /// makes (a hint flag and the free space aside), refused when it is not.
    #[test]
    fn consistency_checking_images_hold_btree_replay() {
        use crate::am::nbtree::redo::redo_btree_block;
        use crate::page::write::page_init;
        use crate::wal::{BlockImage, BlockRef, ImageCompression, RelFileLocator};

        let mut empty = vec![0u8; 8192];
        page_init(&mut empty, 16).unwrap();
        empty[8188] = 1; // BTP_LEAF
        let mut tuple = vec![0u8; 16];
        tuple[4] = 7; // t_tid (0,7)
        tuple[6] = 16; // t_info: size 16
        tuple[8] = 42;
        let run = |image: &[u8]| {
            let mut bytes = vec![1u8, 0];
            bytes.extend_from_slice(&tuple);
            bytes.extend_from_slice(image);
            let blocks = [BlockRef {
                id: 0,
                locator: RelFileLocator::default(),
                fork: 0,
                block: 1,
                will_init: false,
                data_offset: 2,
                data_length: 16,
                image: Some(BlockImage {
                    offset: 18,
                    length: 8192,
                    hole_offset: 0,
                    hole_length: 0,
                    compression: ImageCompression::None,
                    apply: false,
                    bimg_info: 0,
                }),
            }];
            let rec = WalRecord {
                version: 16,
                lsn: 0x100_0000,
                end_lsn: 0x100_0040,
                timeline: 1,
                xid: 1000,
                rmid: RM_BTREE_ID,
                info: 0x00,
                blocks: &blocks,
                main_data_offset: 0,
                bytes: &bytes,
                pieces: &[],
            };
            let mut redone = empty.clone();
            let settings = RedoSettings {
                version: 16,
                hint_bits_logged: true,
            };
            redo_btree_block(&settings, &rec, 0, &mut redone).unwrap();
            let mut r = Recovery::new(
                // Replay starts at this record: nothing before it is missing.
                Chosen::All {
                    redo_point: 0x100_0000,
                },
                RecoverOptions {
                    hint_bits_logged: true,
                    block_size: 8192,
                    upto: None,
                    history_end: None,
                },
            );
            r.observe(&rec, &mut |_| Some(empty.clone()));
            (redone, r.finish(false).remove(0))
        };
        let (mut primary, _) = run(&empty);
        // The primary's page as logged: its LSN, a hint flag and stray free-space bytes differ.
        primary[..8].fill(0xEE);
        primary[10] |= 0x0002; // PD_PAGE_FULL
        primary[100] = 0xAB;
        let (redone, ok) = run(&primary);
        assert_eq!(ok.failure, None);
        assert_eq!(ok.page.as_deref(), Some(&redone[..]));
        let mut other = primary.clone();
        other[8176 + 8] ^= 1;
        let (_, refused) = run(&other);
        assert!(refused.page.is_none());
        assert!(refused
            .failure
            .unwrap()
            .reason
            .contains("wal_consistency_checking"));
    }

    #[test]
    fn pg_control_decides_the_replay() {
        let settings = |b: &[u8]| recover_settings(&decode_control(b).unwrap(), Some(7));
        let (o, checksums) = settings(&control(false, 1, false, 8192)).unwrap();
        assert_eq!(
            (o.hint_bits_logged, o.block_size, o.upto, checksums),
            (true, 8192, Some(7), true)
        );
        let (o, checksums) = settings(&control(false, 0, true, 16384)).unwrap();
        assert_eq!(
            (o.hint_bits_logged, o.block_size, checksums),
            (true, 16384, false)
        );
        let (o, checksums) = settings(&control(false, 0, false, 8192)).unwrap();
        assert_eq!((o.hint_bits_logged, checksums), (false, false));
        assert_eq!(
            settings(&control(true, 1, false, 8192)).err(),
            Some("recover replays little-endian clusters only")
        );
        let mut broken = control(false, 1, false, 8192);
        broken[100] ^= 1;
        assert_eq!(
            settings(&broken).err(),
            Some("pg_control is damaged (its CRC fails)")
        );
    }
}
