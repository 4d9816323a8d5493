//! The WAL's full-page images for the browser: a reader fed segment by segment, chunk by
//! chunk, so a 1 GB pg_wal is never held whole. It keeps each image's place in the segments,
//! not its bytes; a page is restored from the bytes the caller reads again from those places.
//! Fed the same records, the core's recovery rebuilds chosen blocks as `pgpage recover` does.

use pgpage::cluster::control::{decode_control, ControlValue};
use pgpage::damage::recover::{recover_settings, BlockResult, Chosen, Recovery};
use pgpage::damage::report::flushed_redo;
use pgpage::wal::BlockKey;
use pgpage::wal::{
    fork_name, image_pieces, lsn_text, lsn_text_for, parse_fullpage_name, parse_history_name,
    parse_wal_file_name, plan_segments, record_type, restore_image, restoring_after, rmgr_name,
    segment_plan, BlockHistory, BlockImage, FlushedChanges, Piece, PlanProblem, RelFileLocator,
    RowEffect, Touch, WalOptions, WalReader, WalRecord,
};
use serde::Serialize;
use std::collections::BTreeSet;
use wasm_bindgen::prelude::*;

/// The core's words for each effect a later record can have on a heap page's rows, keyed by
/// the name `report --json` gives it (`"removes_dead"`), as a JSON object.
#[wasm_bindgen]
pub fn row_effect_words() -> Result<String, JsError> {
    const ALL: [RowEffect; 9] = [
        RowEffect::RemovesDead,
        RowEffect::RemovesDeadMayFreeze,
        RowEffect::Freezes,
        RowEffect::AllVisible,
        RowEffect::Locks,
        RowEffect::ChangesRows,
        RowEffect::Image,
        RowEffect::IndexEntries,
        RowEffect::Unknown,
    ];
    let mut words = serde_json::Map::new();
    for e in ALL {
        if let serde_json::Value::String(name) =
            serde_json::to_value(e).map_err(crate::serialize_error)?
        {
            words.insert(name, serde_json::Value::from(e.words()));
        }
    }
    serde_json::to_string(&words).map_err(crate::serialize_error)
}

/// The order to read segment files in (indexes into `names`): by segment, the higher timeline
/// of a segment present twice, other names last.
#[wasm_bindgen]
pub fn wal_segment_plan(names: Vec<String>) -> Vec<u32> {
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    segment_plan(&refs)
        .into_iter()
        .filter_map(|i| u32::try_from(i).ok())
        .collect()
}

struct Image {
    lsn: u64,
    end_lsn: u64,
    timeline: u32,
    locator: RelFileLocator,
    fork: u8,
    block: u32,
    image: BlockImage,
    pieces: Vec<Piece>,
}

/// `pgpage fpi --json`'s image entry (docs/contracts.md, "fpi", with the CLI's extra keys).
#[derive(Serialize)]
struct ImageJson<'a> {
    lsn: String,
    end_lsn: String,
    timeline: u32,
    tablespace_oid: u32,
    database_oid: u32,
    relfilenode: u32,
    fork: &'a str,
    block: u32,
    compression: &'a str,
    hole_offset: u16,
    hole_length: u16,
    apply: bool,
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "WalProblem"))]
#[derive(Serialize)]
pub(crate) struct ProblemJson<'a> {
    code: &'a str,
    evidence: pgpage::findings::Evidence,
    /// Index into the segments in reading order; null for what planning found (a history
    /// file, a segment left out), whose message names its file.
    segment: Option<u32>,
    lsn: Option<String>,
    message: &'a str,
}

/// A record that touched a watched block, as the damage panel lists it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "WalTouch"))]
#[derive(Serialize)]
pub(crate) struct TouchJson {
    lsn: String,
    rmgr: String,
    /// pg_waldump's record type (pg_walinspect's `record_type`) in the WAL's version.
    record_type: String,
    image: bool,
    will_init: bool,
    /// What the record did to a heap page's rows, in words.
    effect: &'static str,
    /// The same as `report --json` names it (`"index_entries"`, `"removes_dead"`, ...).
    effect_name: String,
}

impl TouchJson {
    fn of(t: &Touch, version: u32) -> TouchJson {
        TouchJson {
            lsn: lsn_text_for(version, t.lsn),
            rmgr: rmgr_name(t.rmid),
            record_type: record_type(version, t.rmid, t.info),
            image: t.image,
            will_init: t.will_init,
            effect: t.effect(version).words(),
            effect_name: serde_json::to_value(t.effect(version))
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default(),
        }
    }
}

/// A watched block: its newest image (an index for `image_pieces` and `restore`) and the
/// records after it, which the image alone does not replay.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "WalBlock"))]
#[derive(Serialize)]
pub(crate) struct BlockJson<'a> {
    tablespace_oid: u32,
    database_oid: u32,
    relfilenode: u32,
    fork: &'a str,
    block: u32,
    image: Option<usize>,
    /// The image's record: where it ends is the pd_lsn replay gives the restored page.
    image_record: Option<TouchJson>,
    image_end_lsn: Option<String>,
    records_after: Vec<TouchJson>,
    /// With an image: what restoring it loses, from what the records after it did.
    restoring: Option<String>,
}

/// Where a block's replay started: `wal_image` (its newest full-page image, or a record that
/// initialises the page), as `pgpage recover --json` says it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "WalReplayStart"))]
#[derive(Serialize)]
pub(crate) struct StartJson {
    source: &'static str,
    lsn: String,
}

/// A record replayed onto the block, in pg_waldump's words.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "WalApplied"))]
#[derive(Serialize)]
pub(crate) struct AppliedJson {
    lsn: String,
    rmgr: String,
    record: String,
    desc: String,
}

/// A block rebuilt from the WAL as `pgpage recover --block` rebuilds it: `pgpage recover
/// --json`'s block entry, with its relation and `records_after_start` added. Its page is
/// `recovered_page(i)` for its index `i` in the list.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "WalRecovered"))]
#[derive(Serialize)]
pub(crate) struct RecoveredJson<'a> {
    tablespace_oid: u32,
    database_oid: u32,
    relfilenode: u32,
    fork: &'a str,
    block: u32,
    start: Option<StartJson>,
    applied: Vec<AppliedJson>,
    /// The records applied after the one replay started from (its image or the record that
    /// initialised the page): what restoring the image alone would lose.
    records_after_start: u32,
    /// The recovered page's pd_lsn.
    lsn: Option<String>,
    recovered: bool,
    /// Why the block is not recovered, whole (the record's LSN and kind where one is the reason).
    reason: Option<String>,
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "WalSummary"))]
#[derive(Serialize)]
pub(crate) struct SummaryJson {
    version: Option<u32>,
    system_identifier: Option<String>,
    segment_size: Option<u32>,
    segments: u32,
    records: u64,
    end_lsn: Option<String>,
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "FullPageName"))]
#[derive(Serialize)]
pub(crate) struct FullPageNameJson<'a> {
    timeline: u32,
    lsn: String,
    tablespace_oid: u32,
    database_oid: u32,
    relfilenode: u32,
    fork: &'a str,
    block: u32,
}

/// What a file of WAL is by its name: "segment" (a segment's name, or one with `.partial`
/// after it: the unfinished end of a timeline), "history" (a timeline history file), or
/// undefined. Pages `pg_waldump --save-fullpage` wrote are `wal_fullpage_name`'s.
#[wasm_bindgen]
pub fn wal_file_kind(name: &str) -> Option<String> {
    if parse_wal_file_name(name).is_some() {
        Some("segment".to_owned())
    } else if parse_history_name(name).is_some() {
        Some("history".to_owned())
    } else {
        None
    }
}

/// A file `pg_waldump --save-fullpage` names (`%08X-%08X-%08X.%u.%u.%u.%u_%s`) as JSON, or
/// undefined for any other name.
#[wasm_bindgen]
pub fn wal_fullpage_name(name: &str) -> Option<String> {
    let n = parse_fullpage_name(name)?;
    serde_json::to_string(&FullPageNameJson {
        timeline: n.timeline,
        // The file name says no release: its LSN prints as 13 to 18 print it.
        lsn: lsn_text(None, n.lsn),
        tablespace_oid: n.locator.spc_oid,
        database_oid: n.locator.db_oid,
        relfilenode: n.locator.rel_number,
        fork: fork_name(n.fork)?,
        block: n.block,
    })
    .ok()
}

#[wasm_bindgen]
pub struct WalScanner {
    reader: WalReader,
    images: Vec<Image>,
    block_size: u32,
    history: Option<BlockHistory>,
    /// What `plan` found: history files missing or refused, segments left out.
    planned: Vec<PlanProblem>,
    /// `recover`'s replay while the WAL is read, and whether its pages get a checksum.
    recovery: Option<(Recovery, bool)>,
    /// Its outcome, once `finish` has been called.
    recovered: Vec<BlockResult>,
    /// `flushed`'s collector, until a report takes it.
    flushed: Option<FlushedChanges>,
}

#[wasm_bindgen]
impl WalScanner {
    /// `system_identifier`: pg_control's, as decimal text, or empty when unknown; `block_size`:
    /// the cluster's data block size (8192 unless pg_control says otherwise).
    #[wasm_bindgen(constructor)]
    pub fn new(system_identifier: &str, block_size: u32) -> Result<WalScanner, JsError> {
        let system_identifier = match system_identifier {
            "" => None,
            s => Some(
                s.parse::<u64>()
                    .map_err(|_| JsError::new(&format!("{s} is not a system identifier")))?,
            ),
        };
        Ok(WalScanner {
            reader: WalReader::new(WalOptions {
                system_identifier,
                block_size,
            }),
            images: Vec::new(),
            block_size,
            history: None,
            planned: Vec::new(),
            recovery: None,
            recovered: Vec::new(),
            flushed: None,
        })
    }

    /// Before the first `feed`: the blocks whose history `blocks_json` tells, as
    /// (relfilenode, fork number, relation-wide block) triples, in any database.
    pub fn watch(&mut self, triples: &[u32]) {
        let set: BTreeSet<(u32, u8, u32)> = triples
            .chunks_exact(3)
            .filter_map(|t| match t {
                [rel, fork, block] => Some((*rel, u8::try_from(*fork).ok()?, *block)),
                _ => None,
            })
            .collect();
        self.history = Some(BlockHistory::of_blocks(set));
    }

    /// Before the first `feed`: rebuild these blocks from the WAL as `pgpage recover --block`
    /// does, each from its newest full-page image, given as (tablespace, database,
    /// relfilenode, fork number, relation-wide block) quintuples. `control` is the cluster's
    /// global/pg_control, which decides the replay (checksums, logged hint bits, block size).
    /// Throws, replaying nothing, for a pg_control recover refuses (damaged, big-endian).
    pub fn recover(&mut self, control: &[u8], blocks: &[u32]) -> Result<(), JsError> {
        let cf = decode_control(control)
            .map_err(|_| JsError::new("pg_control is damaged (its CRC fails)"))?;
        let (options, checksums) = recover_settings(&cf, None).map_err(JsError::new)?;
        let chosen: BTreeSet<BlockKey> = blocks
            .chunks_exact(5)
            .filter_map(|q| match q {
                [spc, db, rel, fork, block] => Some(BlockKey {
                    locator: RelFileLocator {
                        spc_oid: *spc,
                        db_oid: *db,
                        rel_number: *rel,
                    },
                    fork: u8::try_from(*fork).ok()?,
                    block: *block,
                }),
                _ => None,
            })
            .collect();
        self.recovery = Some((Recovery::new(Chosen::Blocks(chosen), options), checksums));
        Ok(())
    }

    /// Before `plan`: also note which pages the data directory's latest checkpoint must have
    /// written, for `ReportReader::set_flushed` (pages older than that are lost writes or
    /// stale restores), reading the WAL as that directory's (its system identifier and block
    /// size). `control` is the directory's global/pg_control and `backup_label` whether it
    /// holds one. False, noting nothing, where the core's `flushed_redo` says the WAL cannot
    /// be held against the pages.
    pub fn flushed(&mut self, control: &[u8], backup_label: bool) -> bool {
        self.flushed = flushed_redo(control, backup_label).map(FlushedChanges::new);
        if self.flushed.is_some() {
            if let Ok(cf) = decode_control(control) {
                self.block_size = cf.block_size().unwrap_or(self.block_size);
                self.reader = WalReader::new(WalOptions {
                    system_identifier: match cf.get("system_identifier") {
                        Some(ControlValue::Int(v)) => Some(*v as u64),
                        _ => None,
                    },
                    block_size: self.block_size,
                });
            }
        }
        self.flushed.is_some()
    }

    /// The collector `flushed` filled, taken by a report (None after the first take).
    pub(crate) fn take_flushed(&mut self) -> Option<FlushedChanges> {
        self.flushed.take()
    }

    /// Before the first segment: the reading order of segment files `names` (indexes into it),
    /// along the newest timeline's history when its file is among the history files given
    /// (`history_names[i]` holds `history_texts[i]`), as `pgpage fpi` reads them. `seg_size`
    /// is the first segment's xlp_seg_size (0: 16 MB).
    pub fn plan(
        &mut self,
        names: Vec<String>,
        history_names: Vec<String>,
        history_texts: Vec<String>,
        seg_size: u32,
    ) -> Vec<u32> {
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let histories: Vec<(&str, Option<&str>)> = history_names
            .iter()
            .zip(history_texts.iter())
            .map(|(n, t)| (n.as_str(), Some(t.as_str())))
            .collect();
        let seg_size = if seg_size == 0 { 16 << 20 } else { seg_size };
        let plan = plan_segments(&refs, &histories, seg_size, self.reader.summary().version);
        if let Some(h) = plan.history {
            self.reader.set_history(h);
        }
        self.planned = plan.problems;
        plan.order
            .into_iter()
            .filter_map(|i| u32::try_from(i).ok())
            .collect()
    }

    /// The next segment of `plan`'s (or `wal_segment_plan`'s) order, by its file name.
    pub fn begin_segment(&mut self, name: &str) {
        self.reader.begin_segment(Some(name));
    }

    /// The segment's next bytes, in order, in chunks of any size.
    pub fn feed(&mut self, chunk: &[u8]) {
        let images = &mut self.images;
        let history = &mut self.history;
        let recovery = &mut self.recovery;
        let flushed = &mut self.flushed;
        self.reader.feed(chunk, &mut |rec: &WalRecord<'_>| {
            if let Some(h) = history.as_mut() {
                h.observe(rec);
            }
            if let Some(f) = flushed.as_mut() {
                f.observe(rec);
            }
            // Chosen blocks start from an image, never from a page on disk: nothing is read.
            if let Some((r, _)) = recovery.as_mut() {
                r.observe(rec, &mut |_| None);
            }
            for b in rec.blocks {
                if let Some(image) = b.image {
                    images.push(Image {
                        lsn: rec.lsn,
                        end_lsn: rec.end_lsn,
                        timeline: rec.timeline,
                        locator: b.locator,
                        fork: b.fork,
                        block: b.block,
                        image,
                        pieces: image_pieces(rec.pieces, image.offset, u32::from(image.length)),
                    });
                }
            }
        });
    }

    pub fn end_segment(&mut self) {
        self.reader.end_segment();
    }

    /// After the last segment.
    pub fn finish(&mut self) {
        self.reader.finish();
        if let Some((r, checksums)) = self.recovery.take() {
            self.recovered = r.finish(checksums);
        }
    }

    /// After `finish`: each block `recover` chose, rebuilt or not, with why not.
    pub fn recovered_json(&self) -> Result<String, JsError> {
        let list: Vec<RecoveredJson<'_>> = self
            .recovered
            .iter()
            .map(|r| {
                let start = r.start.map(|(_, lsn)| lsn);
                RecoveredJson {
                    tablespace_oid: r.key.locator.spc_oid,
                    database_oid: r.key.locator.db_oid,
                    relfilenode: r.key.locator.rel_number,
                    fork: fork_name(r.key.fork).unwrap_or("unknown"),
                    block: r.key.block,
                    start: r.start.map(|(source, lsn)| StartJson {
                        source: source.as_str(),
                        lsn: self.lsn_text(lsn),
                    }),
                    applied: r
                        .applied
                        .iter()
                        .map(|a| AppliedJson {
                            lsn: self.lsn_text(a.lsn),
                            rmgr: a.rmgr.clone(),
                            record: a.record.clone(),
                            desc: a.desc.clone(),
                        })
                        .collect(),
                    records_after_start: u32::try_from(
                        r.applied
                            .iter()
                            .filter(|a| start.is_some_and(|s| a.lsn > s))
                            .count(),
                    )
                    .unwrap_or(u32::MAX),
                    lsn: r.lsn.map(|l| self.lsn_text(l)),
                    recovered: r.page.is_some(),
                    reason: r.failure.as_ref().map(|f| f.reason.clone()),
                }
            })
            .collect();
        serde_json::to_string(&list).map_err(|e| JsError::new(&e.to_string()))
    }

    /// Block `index` of `recovered_json`'s list as recovery writes it (checksum set for its
    /// relation-wide block when the cluster has checksums); throws for one not recovered.
    pub fn recovered_page(&self, index: u32) -> Result<Vec<u8>, JsError> {
        let r = usize::try_from(index)
            .ok()
            .and_then(|i| self.recovered.get(i))
            .ok_or_else(|| JsError::new(&format!("no recovered block {index}")))?;
        r.page.clone().ok_or_else(|| {
            JsError::new(&format!(
                "block {} was not recovered: {}",
                r.key.block,
                r.failure.as_ref().map_or("", |f| f.reason.as_str())
            ))
        })
    }

    #[wasm_bindgen(getter)]
    pub fn image_count(&self) -> u32 {
        u32::try_from(self.images.len()).unwrap_or(u32::MAX)
    }

    /// Every image, in WAL order, as `pgpage fpi --json` lists them.
    pub fn images_json(&self) -> Result<String, JsError> {
        let list: Vec<ImageJson<'_>> = self
            .images
            .iter()
            .map(|i| ImageJson {
                lsn: self.lsn_text(i.lsn),
                end_lsn: self.lsn_text(i.end_lsn),
                timeline: i.timeline,
                tablespace_oid: i.locator.spc_oid,
                database_oid: i.locator.db_oid,
                relfilenode: i.locator.rel_number,
                fork: fork_name(i.fork).unwrap_or("unknown"),
                block: i.block,
                compression: i.image.compression.as_str(),
                hole_offset: i.image.hole_offset,
                hole_length: i.image.hole_length,
                apply: i.image.apply,
            })
            .collect();
        serde_json::to_string(&list).map_err(|e| JsError::new(&e.to_string()))
    }

    /// The problems met, each named by its finding, as `pgpage fpi --json` lists them
    /// (`segment` is the index in feeding order).
    pub fn problems_json(&self) -> Result<String, JsError> {
        let planned = self.planned.iter().map(|p| ProblemJson {
            code: p.finding.code(),
            evidence: p.finding.evidence(),
            segment: None,
            lsn: None,
            message: &p.detail,
        });
        let list: Vec<ProblemJson<'_>> = planned
            .chain(self.reader.problems().iter().map(|p| ProblemJson {
                code: p.finding.code(),
                evidence: p.finding.evidence(),
                segment: Some(p.segment),
                lsn: p.lsn.map(|l| self.lsn_text(l)),
                message: &p.detail,
            }))
            .collect();
        serde_json::to_string(&list).map_err(|e| JsError::new(&e.to_string()))
    }

    /// The watched blocks seen in the WAL, each with its newest image and the records after it.
    pub fn blocks_json(&self) -> Result<String, JsError> {
        let Some(history) = &self.history else {
            return Ok(String::from("[]"));
        };
        // Names are the version's: the page magic read decides it.
        let version = self.reader.summary().version.unwrap_or(18);
        let list: Vec<BlockJson<'_>> = history
            .blocks()
            .map(|(k, image, after)| {
                let index = image.and_then(|t| {
                    self.images.iter().rposition(|i| {
                        i.lsn == t.lsn
                            && i.locator == k.locator
                            && i.fork == k.fork
                            && i.block == k.block
                    })
                });
                BlockJson {
                    tablespace_oid: k.locator.spc_oid,
                    database_oid: k.locator.db_oid,
                    relfilenode: k.locator.rel_number,
                    fork: fork_name(k.fork).unwrap_or("unknown"),
                    block: k.block,
                    image: index,
                    image_record: image.map(|t| TouchJson::of(t, version)),
                    image_end_lsn: index
                        .and_then(|i| self.images.get(i))
                        .map(|i| lsn_text_for(version, i.end_lsn)),
                    records_after: after.iter().map(|t| TouchJson::of(t, version)).collect(),
                    restoring: image.map(|_| restoring_after("the image", version, after)),
                }
            })
            .collect();
        serde_json::to_string(&list).map_err(|e| JsError::new(&e.to_string()))
    }

    /// How far the WAL was read, and whose it is.
    pub fn summary_json(&self) -> Result<String, JsError> {
        let s = self.reader.summary();
        serde_json::to_string(&SummaryJson {
            version: s.version,
            system_identifier: s.system_identifier.map(|v| v.to_string()),
            segment_size: s.segment_size,
            segments: s.segments,
            records: s.records,
            end_lsn: s.end_lsn.map(|l| self.lsn_text(l)),
        })
        .map_err(|e| JsError::new(&e.to_string()))
    }

    /// Where image `index`'s stored bytes are: `[segment, offset, length]` triples, in order.
    pub fn image_pieces(&self, index: u32) -> Result<Vec<u32>, JsError> {
        let image = self.image(index)?;
        Ok(image
            .pieces
            .iter()
            .flat_map(|p| [p.segment, p.offset, p.len])
            .collect())
    }

    /// Image `index`'s page, restored from its stored bytes (the pieces, concatenated).
    pub fn restore(&self, index: u32, stored: &[u8]) -> Result<Vec<u8>, JsError> {
        let image = self.image(index)?;
        restore_image(&image.image, stored, self.block_size).map_err(|f| {
            JsError::new(&format!(
                "{}: {} at {}",
                f.code(),
                f.message(),
                self.lsn_text(image.lsn)
            ))
        })
    }
}

impl WalScanner {
    /// An LSN as the WAL's server prints it (19 pads the low half).
    fn lsn_text(&self, lsn: u64) -> String {
        lsn_text(self.reader.summary().version, lsn)
    }

    /// What `watch` asked for, as read, and the WAL's release (its page magic), for the report.
    pub(crate) fn history_and_version(&self) -> (Option<&BlockHistory>, Option<u32>) {
        (self.history.as_ref(), self.reader.summary().version)
    }

    fn image(&self, index: u32) -> Result<&Image, JsError> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.images.get(i))
            .ok_or_else(|| JsError::new(&format!("no image {index}")))
    }
}
