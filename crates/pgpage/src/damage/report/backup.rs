//! What a base backup holds of each damaged block (`pgpage report --from BACKUP`): the same
//! block of the same relation file, judged as the server would read it there, and how its age
//! compares with the damaged page's. A backup's page lacks every change made since the backup,
//! so the report says how old it is rather than calling it good.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

use super::{readable_offsets, Block, Damage, Relation, Report};
use crate::damage::diff::page_lsn;
use crate::page::geometry::Endian;
use crate::page::verify::{header_is_sane, verify_page, PageStatus};
use crate::tuple::TupleHeader;

/// A damaged block's page in the backup given.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BackupPage {
    /// The backup's file, as the caller names it.
    pub path: String,
    /// verify's status of the backup's page (`ok`, `mismatch`, `zero`, ...); `missing` when
    /// the backup's file is shorter or absent, `unreadable` when it could not be read.
    pub status: String,
    /// The backup page's pd_lsn, when its header is sane.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lsn: Option<String>,
    /// `older`, `same` or `newer` than the damaged page by pd_lsn; absent when the damaged
    /// page is all zeros (pd_lsn 0) or its header is not sane (its pd_lsn is not known).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub age: Option<&'static str>,
    /// How `age` is known: `pd_lsn` (the two pages' pd_lsn compared) or `wal` (the records
    /// of the block in the WAL read, or their absence from WAL that covers the backup's
    /// pd_lsn to past the latest checkpoint).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub age_from: Option<&'static str>,
    /// A heap page's tuples that its hint bits do not mark dead (the backup's transaction
    /// status is not read); absent for an index's page or a page that cannot serve.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tuples: Option<u64>,
    /// Why the page cannot serve, or what to know before it does, in words.
    pub note: String,
    /// A bit-flip candidate the backup's unchanged page confirms (`byte:bit`): it holds the
    /// bit flipped back, where the damaged page's pd_lsn says nothing changed since.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confirms_flip: Option<String>,
    /// Of the block's lost keys, the ones the backup's page holds a row of (live by its hint
    /// bits): restoring the page, or taking those rows from the backup, recovers them as
    /// they were then.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub recovers: Vec<Vec<Option<String>>>,
    /// Of the block's lost keys, the ones the backup's page does not hold: written to this
    /// block since (new rows, or newer versions of rows the backup may hold elsewhere).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lacks: Vec<Vec<Option<String>>>,
    /// The damaged page's 512-byte sectors that the backup's page holds byte for byte, when
    /// some do and some do not: on a torn page, the older write is the page the backup has.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub same_sectors: Vec<u32>,
    /// Keys the backup's page holds whose rows read elsewhere now (updated since, their newer
    /// versions on other pages): restoring the page brings back these older versions.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stale: Vec<Vec<Option<String>>>,
}

/// A table's key columns (its primary key's, or another unique index's) and how to read
/// them off a heap tuple.
#[derive(Clone, Debug)]
pub struct KeyReader {
    columns: Vec<crate::cluster::rows::Column>,
    which: Vec<usize>,
    types: Vec<crate::tuple::value::Type>,
}

/// Two readers of the same relation's keys are alike: the columns come with the relation.
impl PartialEq for KeyReader {
    fn eq(&self, other: &KeyReader) -> bool {
        self.which == other.which && self.types == other.types
    }
}

impl KeyReader {
    pub(super) fn of(rel: &super::RelationInput) -> Option<KeyReader> {
        let ix = super::naming_index(&rel.indexes).filter(|ix| ix.uniqueness > 0)?;
        let columns = rel.columns.as_ref()?;
        let which = super::key_positions(ix, columns)?;
        Some(KeyReader {
            columns: columns.clone(),
            which,
            types: ix.key_types.clone(),
        })
    }

    /// The keys of a heap page's tuples that its hint bits do not mark dead.
    fn keys(&self, page: &[u8], block: u32, endian: Endian) -> Vec<Vec<Option<String>>> {
        let writer = crate::cluster::rows::RowWriter::new(
            self.columns.clone(),
            crate::cluster::rows::RowFormat::Json,
            endian,
            false,
        );
        let live = readable_offsets(page, block, endian, None);
        crate::tuple::heap_items(page, endian)
            .filter(|i| live.contains(&i.lp))
            .filter_map(|i| writer.column_texts(i.tuple?, &self.which))
            .collect()
    }
}

/// One damaged block's bytes in the backup, as the caller read them.
#[derive(Clone, Debug)]
pub struct BackupInput {
    /// The damaged block's segment file (`Block::file`) and block within it.
    pub file: String,
    pub block_in_file: u32,
    /// The backup's file as messages name it.
    pub shown: String,
    /// The page's bytes; Ok(None) when the backup's file does not reach the block, Err when
    /// it could not be read.
    pub page: Result<Option<Vec<u8>>, String>,
    /// The backup has no file at that path.
    pub absent: bool,
}

impl Report {
    /// The damaged blocks whose page a backup may hold: each one's segment file and block
    /// within it.
    pub fn backup_blocks(&self) -> Vec<(String, u32)> {
        self.blocks()
            .map(|(_, b)| (b.file.clone(), b.block_in_file))
            .collect()
    }

    /// What the backup holds of the damaged blocks, and the steps again with it.
    pub fn set_backup(&mut self, pages: &[BackupInput]) {
        self.backup_searched = true;
        // A backup's page is judged as the server would read it: a wrong checksum is no
        // damage while checksums change (or are off).
        let checksums = !matches!(
            self.cluster.data_checksums.as_str(),
            "off" | "inprogress-on" | "inprogress-off"
        );
        // A backup of this cluster is of its release: its pd_lsn prints as the report's LSNs.
        let version = self.cluster.pg_version;
        for rel in &mut self.relations {
            let heap = rel
                .relkind
                .as_deref()
                .is_none_or(|k| k == "r" || k == "t" || k == "m");
            let endian = rel.endian;
            for b in &mut rel.blocks {
                let index = super::index_block(rel.relkind.as_deref(), b);
                b.backup = pages
                    .iter()
                    .find(|p| p.file == b.file && p.block_in_file == b.block_in_file)
                    .map(|p| {
                        let mut page = judge(p, b, endian, checksums, heap, version);
                        if let (Some(reader), Ok(Some(bytes)), true) =
                            (rel.keys.as_ref(), &p.page, page.status == "ok" && heap)
                        {
                            account(&mut page, reader, bytes, b, endian);
                        }
                        if let (Ok(Some(bytes)), true) = (
                            &p.page,
                            page.status == "ok" && b.damage.is_key(),
                        ) {
                            key_witness(b, bytes, &p.shown, endian);
                        }
                        if index && page.status == "ok" {
                            page.note.push_str(
                                "; an index's page is not taken from a backup: REINDEX rebuilds the index from the table (its step below)",
                            );
                        }
                        page
                    });
                let same = pages.iter().find(|p| {
                    p.file == b.file
                        && p.block_in_file == b.block_in_file
                        && matches!(&p.page, Ok(Some(bytes)) if sector_prints(bytes) == b.sector_prints)
                });
                if let (Damage::Stale, Some(p)) = (b.damage, same) {
                    b.evidence.push(format!(
                        "the backup's page ({}) is this page byte for byte: the older version on disk is the backup's (a stale restore, or a write lost since the backup was taken), so putting it in place changes nothing",
                        p.shown
                    ));
                }
            }
        }
        self.restep();
    }
}

/// What a backup's page holds at each row whose key an index does not hold, where it holds
/// the same row version: a tuple of the same t_xmin at the same line pointer. A version's data
/// never changes once written (an UPDATE writes a new one; hint bits and xmax are not data),
/// whatever else changed on the page since the backup. The index's key there says the row's
/// value changed afterwards (its UPDATE step sets it back); the row's own key there says the
/// change is older than the backup, which then cannot tell which of the two is true.
fn key_witness(b: &mut Block, page: &[u8], shown: &str, endian: Endian) {
    let block = b.block;
    for m in b.key_mismatches.clone().iter().take(super::keyrows::NAMED) {
        // A frozen or bootstrap xmin names no one version.
        if m.xmin < 3 || m.positions.is_empty() {
            continue;
        }
        let writer = crate::cluster::rows::RowWriter::new(
            m.heap_columns.to_vec(),
            crate::cluster::rows::RowFormat::Json,
            endian,
            false,
        );
        let which = &m.positions;
        let Some(held) = crate::tuple::heap_items(page, endian)
            .find(|i| i.lp == m.lp)
            .and_then(|i| i.tuple)
            .filter(|t| TupleHeader::read(t, endian).is_some_and(|h| h.t_xmin == m.xmin))
            .and_then(|t| writer.column_texts(t, which))
        else {
            continue;
        };
        let at = format!(
            "the backup's page ({shown}) holds the same row version at ({block},{}) (t_xmin {}), whose data never changes once written",
            m.lp, m.xmin
        );
        let said = super::keyrows::named_key(m, &held);
        let (plain, redacted) = if m.index_keys.contains(&held) {
            let then = "so the row's value changed after it was written (no SQL changes a row version in place), and setting the index's key back is right";
            (
                format!("{at}: it holds {said}, the key {} names, {then}", m.index),
                format!("{at}: it holds the key {} names, {then}", m.index),
            )
        } else if held == m.keys {
            let then = "the change is older than the backup, which cannot tell which of the two keys is the true one";
            (
                format!("{at}: it holds {said} too: {then}"),
                format!("{at}: it holds the row's key too: {then}"),
            )
        } else {
            (
                format!("{at}: it holds {said}, neither the row's key nor the index's"),
                format!("{at}: it holds a third key, neither the row's nor the index's"),
            )
        };
        b.said_keys.push((plain.clone(), redacted));
        b.evidence.push(plain);
    }
}

/// Which of the block's lost keys the backup's page holds, which it lacks, and which of
/// its rows are older versions of rows that read elsewhere now.
fn account(out: &mut BackupPage, reader: &KeyReader, page: &[u8], b: &Block, endian: Endian) {
    let Some(rows) = b.rows.as_ref() else {
        return;
    };
    let held = reader.keys(page, b.block, endian);
    let elsewhere: Vec<&Vec<Option<String>>> = rows
        .elsewhere
        .iter()
        .chain(rows.stale_rows.iter())
        .map(|r| &r.keys)
        .collect();
    out.recovers = rows
        .keys
        .iter()
        .filter(|k| held.contains(k))
        .cloned()
        .collect();
    out.lacks = rows
        .keys
        .iter()
        .filter(|k| !held.contains(k))
        .cloned()
        .collect();
    let mut stale: Vec<Vec<Option<String>>> = held
        .iter()
        .filter(|k| elsewhere.contains(k))
        .cloned()
        .collect();
    stale.sort_by(|x, y| super::key_order(&reader.types, x, y));
    stale.dedup();
    out.stale = stale;
}

fn judge(
    input: &BackupInput,
    b: &Block,
    endian: Endian,
    checksums: bool,
    heap: bool,
    version: Option<u32>,
) -> BackupPage {
    let mut out = BackupPage {
        path: input.shown.clone(),
        status: String::new(),
        lsn: None,
        age: None,
        age_from: None,
        tuples: None,
        note: String::new(),
        confirms_flip: None,
        recovers: Vec::new(),
        lacks: Vec::new(),
        same_sectors: Vec::new(),
        stale: Vec::new(),
    };
    let page = match &input.page {
        _ if input.absent => {
            out.status = String::from("missing");
            out.note = String::from(
                "the backup has no such file: the relation file was created after the backup (a new table, or one rewritten by VACUUM FULL, CLUSTER, TRUNCATE or ALTER TABLE), so all of its rows were written since",
            );
            return out;
        }
        Err(e) => {
            out.status = String::from("unreadable");
            out.note = e.clone();
            return out;
        }
        Ok(None) => {
            out.status = String::from("missing");
            out.note = String::from(
                "the backup's file ends before this block: the relation grew after the backup, so the rows in this block were all written since",
            );
            return out;
        }
        Ok(Some(page)) => page,
    };
    let verdict = verify_page(page, b.block, endian);
    let status = match verdict.status {
        PageStatus::Mismatch if !checksums && header_is_sane(page, endian) => PageStatus::Ok,
        s => s,
    };
    out.status = String::from(status.as_str());
    if status.is_problem() {
        out.note = String::from(
            "the backup's page is damaged too (the server would refuse it): it cannot serve",
        );
        return out;
    }
    if status == PageStatus::Zero {
        out.note = String::from(
            "the backup's page is all zeros: the block was empty when the backup was taken, so it holds none of the rows written to it since",
        );
        return out;
    }
    out.same_sectors = same_sectors(b, page);
    let backup_lsn = page_lsn(page, endian);
    out.lsn = backup_lsn.map(|l| crate::page::lsn::lsn_text(version, l));
    if heap {
        out.tuples = Some(readable_offsets(page, b.block, endian, None).len() as u64);
    }
    // The damaged page's pd_lsn means something wherever its header is sane; an all-zero
    // page's is 0, its history gone, and a misplaced page's is the other block's.
    // A torn page's header may be the older write whichever sectors are named torn (they are
    // the ones unlike sector 0, and which write is older the page seldom shows): its pd_lsn is
    // not known to be the block's newest, and a backup with the same pd_lsn may hold only the
    // older write.
    let damaged_lsn = match b.damage {
        Damage::Zeroed | Damage::Misplaced | Damage::Torn => None,
        _ => b.page_lsn,
    };
    out.age = match (backup_lsn, damaged_lsn) {
        (Some(old), Some(new)) if old < new => Some("older"),
        (Some(old), Some(new)) if old == new => Some("same"),
        (Some(_), Some(_)) => Some("newer"),
        _ => None,
    };
    if out.age.is_some() {
        out.age_from = Some("pd_lsn");
    }
    if out.age == Some("same") {
        let differ: Vec<&(u32, u8, bool)> = b
            .flip_bits
            .iter()
            .filter(|&&(byte, bit, stored)| bit_at(page, byte, bit).is_some_and(|x| x != stored))
            .collect();
        if let [(byte, bit, _)] = differ.as_slice() {
            out.confirms_flip = Some(format!("{byte}:{bit}"));
        }
    }
    out.note = match out.age {
        Some("same") => String::from(
            "the backup's page passes its checksum and has the damaged page's pd_lsn: no WAL record changed the block after the backup, so it is the page as it was before the damage",
        ),
        Some("newer") => String::from(
            "the backup's page passes its checksum and is newer than the damaged page by pd_lsn: the damaged copy is the older one (was this backup taken after the damage, or is it from another cluster?)",
        ),
        Some(_) => String::from(
            "the backup's page passes its checksum but is older than the damaged page by pd_lsn: it lacks the changes made to the block since the backup (rows inserted, updated or deleted then), unless the server's own recovery replays the WAL since the backup onto a restored copy",
        ),
        None => format!("{}: {}", unknown_age(&no_pd_lsn(b)), without_wal(b.damage)),
    };
    out
}

/// That the damaged page's pd_lsn, for `why`, says nothing of how old the backup's page is.
fn unknown_age(why: &str) -> String {
    format!("the backup's page passes its checksum; {why}, so how old the backup's page is cannot be told from it")
}

/// Why the damaged page has no pd_lsn of its block's own.
pub(super) fn no_pd_lsn(b: &Block) -> String {
    match b.damage {
        Damage::Misplaced => match b.holds_block {
            Some(n) => format!("the damaged page is block {n}'s (its pd_lsn is that block's)"),
            None => String::from(
                "the damaged page is another page than this block's (its pd_lsn is that page's)",
            ),
        },
        Damage::Torn if !b.torn_rebuilt.is_empty() || b.torn_sectors.contains(&0) => String::from(
            "the damaged page is torn with its header in the older write, so its pd_lsn is not the block's newest",
        ),
        Damage::Torn => String::from(
            "the damaged page is torn, and its header (sector 0) may be the older of the two writes, so its pd_lsn may not be the block's newest",
        ),
        Damage::Zeroed => String::from(
            "the damaged page is all zeros (its pd_lsn is 0: nothing of its history is left)",
        ),
        _ => String::from("the damaged page's header is not sane, so its pd_lsn is not known"),
    }
}

/// What to do about an age pd_lsn cannot tell, when no WAL was read.
fn without_wal(damage: Damage) -> &'static str {
    match damage {
        Damage::Misplaced => "with the WAL given (report --wal), a newer full-page image of the block shows what it lacks",
        Damage::Torn => "with the WAL given (report --wal), the records since show what it lacks",
        _ => "it lacks whatever changed the block since the backup",
    }
}

/// What the WAL read tells of one block's backup page.
pub(super) struct WalFacts<'a> {
    /// Every record of the block's main fork read (the newest image and those after it),
    /// each start LSN with its text.
    pub touches: &'a [(u64, String)],
    pub coverage: crate::wal::Coverage,
    /// pg_control's latest checkpoint LSN (None: pg_control not read).
    pub checkpoint: Option<u64>,
    /// Prints an LSN as the report does.
    pub lsn_text: &'a dyn Fn(u64) -> String,
    /// Why the damaged page's pd_lsn could not say how old the backup's page is (`no_pd_lsn`).
    pub no_pd_lsn: String,
    pub block: u32,
}

/// What the WAL read says of the backup's page. A record of the block that starts at or
/// after the backup's pd_lsn (the end of the record that wrote the backup's page) changed
/// the block after the backup, whatever the damaged page's own pd_lsn claims. Where pd_lsn
/// could not tell and no record did, the page is current only if the WAL read runs unbroken
/// from the backup's pd_lsn to past pg_control's latest checkpoint; otherwise the note says
/// what is missing.
pub(super) fn wal_says(out: &mut BackupPage, w: &WalFacts<'_>) {
    let Some(backup) = out.lsn.as_deref().and_then(crate::wal::parse_lsn) else {
        return;
    };
    if out.status != "ok" {
        return;
    }
    let since: Vec<&(u64, String)> = w.touches.iter().filter(|(n, _)| *n >= backup).collect();
    let Some((_, shown)) = since.iter().max_by_key(|(n, _)| *n) else {
        if out.age.is_none() {
            no_record_since(out, backup, w);
        }
        return;
    };
    let changes = since.len();
    let words = format!(
        "the WAL changed the block after the backup's pd_lsn {} ({}, the newest at {shown}): the backup's page lacks those changes, whatever the damaged page's pd_lsn says, unless the server's own recovery replays the WAL since the backup onto a restored copy (or pgpage recover rebuilds the block from the WAL)",
        out.lsn.as_deref().unwrap_or("?"),
        crate::words::plural(changes, "record or image", "records or images"),
    );
    // What pd_lsn said stays where it said nothing wrong (an all-zero or misplaced page has
    // no age of its own); a judgement by pd_lsn that the WAL contradicts is replaced.
    out.note = match out.age {
        None => format!(
            "the backup's page passes its checksum; {}; {words}",
            w.no_pd_lsn
        ),
        Some(_) => format!("the backup's page passes its checksum, but {words}"),
    };
    out.age = Some("older");
    out.age_from = Some("wal");
    out.confirms_flip = None;
}

/// No record of the block since the backup's pd_lsn: the page is current if nothing of the
/// WAL since then was left unread.
fn no_record_since(out: &mut BackupPage, backup: u64, w: &WalFacts<'_>) {
    let at = w.lsn_text;
    let c = w.coverage;
    let short = match (c.start, c.end, c.gap, w.checkpoint) {
        (None, _, _, _) | (_, None, _, _) => Some(String::from("the WAL read holds no record")),
        (Some(start), _, _, _) if start > backup => Some(format!(
            "the WAL read starts at {}, after the backup's pd_lsn",
            at(start)
        )),
        (_, _, Some((from, to)), _) if to > backup => Some(format!(
            "the WAL read has a gap from {} to {} (a segment missing or a record unreadable)",
            at(from),
            at(to)
        )),
        (_, _, _, None) => Some(String::from(
            "pg_control was not read, so the WAL's end cannot be held against the latest checkpoint",
        )),
        (_, Some(end), _, Some(checkpoint)) if end <= checkpoint => Some(format!(
            "the WAL read ends at {}, before the latest checkpoint at {} (pg_control)",
            at(end),
            at(checkpoint)
        )),
        _ => None,
    };
    let pd_lsn = at(backup);
    match short {
        Some(why) => {
            out.note = format!(
                "{}. No WAL record read touched block {} after the backup's pd_lsn {pd_lsn}, but that proves nothing: {why}",
                unknown_age(&w.no_pd_lsn),
                w.block
            );
        }
        None => {
            out.age = Some("same");
            out.age_from = Some("wal");
            out.note = format!(
                "the backup's page passes its checksum; {}. No WAL record touched block {} after the backup's pd_lsn {pd_lsn}, and the WAL read covers everything since. The backup's page is the block as it was before the damage",
                w.no_pd_lsn, w.block
            );
        }
    }
}

/// One FNV-1a fingerprint per 512-byte sector of a page.
pub(super) fn sector_prints(page: &[u8]) -> Vec<u64> {
    page.chunks(crate::am::heap::layout::SECTOR)
        .map(|s| {
            s.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
                (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
            })
        })
        .collect()
}

/// The sectors of a torn page that the backup's page holds byte for byte, when some do and
/// some do not (all would be the same page; none, nothing to say). Of a page damaged some
/// other way they say nothing: a page changes by sectors over time, so an older backup
/// shares some of them with any page not rewritten whole since.
fn same_sectors(b: &Block, page: &[u8]) -> Vec<u32> {
    let theirs = sector_prints(page);
    if b.damage != Damage::Torn || b.sector_prints.len() != theirs.len() {
        return Vec::new();
    }
    let same: Vec<u32> = b
        .sector_prints
        .iter()
        .zip(&theirs)
        .enumerate()
        .filter(|(_, (x, y))| x == y)
        .filter_map(|(i, _)| u32::try_from(i).ok())
        .collect();
    // Only one write's side of the tear says which write the backup holds: every sector the
    // tear names (and maybe more of that write), or sector 0 with none of them. Sectors a
    // page has not rewritten since the backup match it whatever happened to the rest, and
    // say nothing of a tear.
    let torn = &b.torn_sectors;
    let one_side = torn.iter().all(|s| same.contains(s))
        || (same.contains(&0) && !same.iter().any(|s| torn.contains(s)));
    if same.is_empty() || same.len() == theirs.len() || torn.is_empty() || !one_side {
        Vec::new()
    } else {
        same
    }
}

/// The bit as a page stores it.
fn bit_at(page: &[u8], byte: u32, bit: u8) -> Option<bool> {
    let b = page.get(usize::try_from(byte).ok()?)?;
    Some(b.checked_shr(u32::from(bit))? & 1 == 1)
}

/// Each candidate's bit as the damaged page stores it.
pub(super) fn stored_bits(flips: &[super::BitFlip], page: &[u8]) -> Vec<(u32, u8, bool)> {
    flips
        .iter()
        .filter_map(|f| Some((f.byte, f.bit, bit_at(page, f.byte, f.bit)?)))
        .collect()
}

/// The words of one block's backup page for the text and Markdown reports.
pub(super) fn line(p: &BackupPage) -> String {
    let mut s = format!("backup {}: {}", p.path, p.status);
    if let Some(lsn) = &p.lsn {
        s.push_str(&format!(", pd_lsn {lsn}"));
    }
    if let Some(n) = p.tuples {
        s.push_str(&format!(
            ", {} (by their hint bits)",
            crate::words::plural(n, "live tuple", "live tuples")
        ));
    }
    s.push_str(": ");
    s.push_str(&p.note);
    if let Some(f) = &p.confirms_flip {
        s.push_str(&format!(
            "; of the bit-flip candidates, only {f} (byte:bit) differs from it, as the flip back would make it: that candidate is the damage"
        ));
    }
    if !p.same_sectors.is_empty() {
        s.push_str(&format!(
            "; the damaged page's {} {} byte for byte the backup's page, its other sectors not: {}",
            super::sector_list(&p.same_sectors),
            if p.same_sectors.len() == 1 { "is" } else { "are" },
            "a write of the page that reached the disk only in part (a torn write), the rest as the backup has it"
        ));
    }
    if !p.recovers.is_empty() || !p.lacks.is_empty() {
        s.push_str(&format!(
            "; of the lost keys it holds {}",
            if p.recovers.is_empty() {
                String::from("none")
            } else {
                super::keys::keys_text(&p.recovers)
            }
        ));
        if !p.lacks.is_empty() {
            s.push_str(&format!(
                " and lacks {} on this block (written here since the backup: new rows, or newer versions of rows whose older ones the backup may hold on another block)",
                super::keys::keys_text(&p.lacks)
            ));
        }
    }
    if !p.stale.is_empty() {
        s.push_str(&format!(
            "; keys {} it holds in an older version: their rows read elsewhere now, and restoring the page brings the older versions back beside them",
            super::keys::keys_text(&p.stale)
        ));
    }
    s
}

/// The step a backup gives: the repair command of each block whose backup page can serve,
/// and the blocks it cannot serve, with why.
pub(super) fn step(r: &Report) -> Option<String> {
    let name = |rel: &Relation| rel.relation.clone().unwrap_or_else(|| rel.path.clone());
    let paths = super::Paths {
        dir: r.data_directory.as_deref(),
    };
    let mut same = Vec::new();
    let (mut same_by_wal, mut same_by_lsn) = (false, false);
    let mut older = Vec::new();
    let mut older_blocks = Vec::new();
    let mut not = Vec::new();
    // (how, relation, block): said once per way and relation.
    let mut exact: Vec<(&'static str, String, u32)> = Vec::new();
    for (rel, b) in r.blocks() {
        let Some(p) = &b.backup else { continue };
        // An index's page is rebuilt by REINDEX (its own step), never spliced in; a page
        // that verifies but disagrees with its indexes has its own step, which no older
        // copy serves.
        if super::index_block(rel.relkind.as_deref(), b) || b.damage.is_key() {
            continue;
        }
        // A page its own repair restores with every row needs no older copy: the flip back
        // gives the page itself, a torn page with no row lost is rebuilt as its rows read.
        let own = match super::route(rel, b) {
            super::Route::ConfirmedFlip => Some(
                "the flip the backup confirms, flipped back: the same page, with the hint bits set since",
            ),
            super::Route::ConfirmedField => {
                Some("its one wrong header field set back: the page exactly as the server wrote it")
            }
            super::Route::Flip => Some("its bit flip, flipped back: the page as it was, newer than the backup's"),
            super::Route::Recover => {
                Some("pgpage recover: the page with every change the WAL holds since its image")
            }
            super::Route::TornWhole => Some("pgpage repair --torn, with every row"),
            _ => None,
        };
        if let Some(how) = own {
            exact.push((how, name(rel), b.block));
            continue;
        }
        if p.status == "ok" && p.age != Some("newer") {
            let command = (p.path.as_str(), b.file.as_str(), b.block_in_file);
            if p.age == Some("same") {
                same_by_wal |= p.age_from == Some("wal");
                same_by_lsn |= p.age_from != Some("wal");
                same.push(command);
            } else {
                older.push(command);
                older_blocks.push((rel, b));
            }
        } else {
            not.push(format!("block {} of {} ({})", b.block, name(rel), p.status));
        }
    }
    // One command per file: its blocks all taken from the backup's file into one NEW.
    let commands = |list: &[(&str, &str, u32)]| -> Vec<String> {
        let mut files: Vec<(&str, &str, Vec<u32>)> = Vec::new();
        for &(from, file, block) in list {
            match files.iter_mut().find(|(f, d, _)| *f == from && *d == file) {
                Some((_, _, blocks)) => blocks.push(block),
                None => files.push((from, file, alloc::vec![block])),
            }
        }
        files
            .iter()
            .map(|(from, file, blocks)| {
                let blocks: Vec<String> = blocks.iter().map(|b| format!("--block {b}")).collect();
                super::command_line(&format!(
                    "pgpage repair {} --from {} --out NEW {}",
                    blocks.join(" "),
                    super::shell_word(from),
                    paths.file(file)
                ))
            })
            .collect()
    };
    // The backup's page with the WAL since the backup replayed onto it: what the server's
    // recovery of the backup would write, where the older page alone lacks those changes.
    let replays: Vec<String> = commands(&older)
        .iter()
        .map(|c| c.replacen("pgpage repair", "pgpage recover", 1))
        .collect();
    // The other way for a torn or overwritten block: its own rows that read, rebuilt from
    // the damaged file (never from the backup's page), in words so that no step goes on
    // from it.
    let rebuilds: Vec<String> = older_blocks
        .iter()
        .filter(|(_, b)| !b.torn_sectors.is_empty() && b.torn_refused.is_none())
        .filter(|(_, b)| b.rows.as_ref().is_some_and(|x| x.readable.unwrap_or(0) > 0))
        .map(|(_, b)| {
            format!(
                "`pgpage repair --block {} --torn --out NEW {}` keeps block {}'s {} that read and loses its listed keys",
                b.block_in_file,
                paths.file(&b.file),
                b.block,
                crate::words::plural(
                    b.rows.as_ref().and_then(|x| x.readable).unwrap_or(0),
                    "row",
                    "rows"
                )
            )
        })
        .collect();
    let (same, older) = (commands(&same), commands(&older));
    let mut parts = Vec::new();
    if !same.is_empty() {
        parts.push(format!(
            "The backup holds the damaged page as it was, unchanged since ({}). It restores the page exactly (NEW: the repaired copy to create).\n{}",
            match (same_by_lsn, same_by_wal) {
                (true, true) => "the same pd_lsn, or no WAL record of the block after the backup's",
                (false, true) => "no WAL record touched the block after the backup's pd_lsn",
                _ => "the same pd_lsn",
            },
            same.join("\n")
        ));
    }
    if !older.is_empty() {
        parts.push(format!(
            "The backup holds an older page that passes its checksum for {} (NEW: the repaired copy to create).\nRebuild each from the backup's page with the WAL since the backup replayed onto it, as the server's recovery of the backup would (the WAL from the backup's start must be at hand: the data directory's pg_wal, or the archive given with --wal ARCHIVE):\n{}\nOr restore the whole backup and let the server's recovery replay the WAL since it (point-in-time recovery).\nThe older page alone brings back every row as the backup had it: rows updated or deleted since come back beside their newer versions (duplicate keys, index entries that disagree with the table), and rows written since are missing. Splice it in only when that WAL is gone, then find the duplicates with pg_amcheck --heapallindexed and remove them:\n{}",
            super::blocks_words(&older_blocks),
            replays.join("\n"),
            older.join("\n")
        ));
        if !rebuilds.is_empty() {
            parts.push(format!(
                "Instead of the backup's page, not after it: {}. Each runs on the damaged file itself, where --torn finds the table's catalogs; take its block into the other steps' NEW with pgpage repair --block N --from THAT_NEW.",
                rebuilds.join("; ")
            ));
        }
    }
    // Said only beside a page the backup does serve: alone, it would be a step that does
    // nothing.
    let served = !same.is_empty() || !older.is_empty();
    if !exact.is_empty() && served {
        let mut groups: Vec<(&'static str, String, Vec<String>)> = Vec::new();
        for (how, rel, block) in exact {
            match groups.iter_mut().find(|(h, r, _)| *h == how && *r == rel) {
                Some((_, _, blocks)) => blocks.push(format!("{block}")),
                None => groups.push((how, rel, alloc::vec![format!("{block}")])),
            }
        }
        let said: Vec<String> = groups
            .into_iter()
            .map(|(how, rel, blocks)| {
                format!(
                    "{} {} of {rel} ({how})",
                    if blocks.len() == 1 { "block" } else { "blocks" },
                    crate::words::and_list(&blocks)
                )
            })
            .collect();
        parts.push(format!(
            "Not from the backup, for a better way named above: {}.",
            crate::words::and_list(&said),
        ));
    }
    // Rows rather than pages: the backup's rows with the lost keys, as COPY prints them.
    let mut rows_from: Vec<String> = Vec::new();
    for rel in &r.relations {
        let Some(name) = rel.relation.as_deref() else {
            continue;
        };
        let dir = rel.blocks.iter().find_map(|b| {
            let p = b.backup.as_ref().filter(|p| !p.recovers.is_empty())?;
            let dir = p.path.strip_suffix(b.file.as_str())?;
            Some(String::from(dir.strip_suffix('/').unwrap_or(dir)))
        });
        if let Some(dir) = dir.filter(|d| !d.is_empty()) {
            let database = rel
                .database
                .as_deref()
                .map(|db| format!(" --database {}", super::shell_word(db)))
                .unwrap_or_default();
            rows_from.push(super::command_line(&format!(
                "pgpage rows{database} {} {}",
                super::shell_word(&dir),
                super::shell_word(name)
            )));
        }
    }
    // Every page the backup could serve has a way back with all its rows: no row to take.
    if !rows_from.is_empty() && (served || !not.is_empty()) {
        parts.push(format!(
            "Or take the lost rows rather than whole pages: the backup holds rows with lost keys (named per block above, as of the backup). This prints the backup's rows as COPY does; keep those with the lost keys it holds:\n{}",
            rows_from.join("\n")
        ));
    }
    if !not.is_empty() {
        parts.push(format!(
            "The backup holds no page that can serve for {}. Look for a full-page image in the WAL (pgpage report --wal) or another backup.",
            not.join(", ")
        ));
    }
    (!parts.is_empty()).then(|| parts.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::file::scan::PageRow;

    /// An empty heap page of `block` with pd_lsn `lsn`, its checksum set.
    fn page(block: u32, lsn: u64) -> Vec<u8> {
        let mut p = alloc::vec![0u8; 8192];
        p[0..4].copy_from_slice(&((lsn >> 32) as u32).to_le_bytes());
        p[4..8].copy_from_slice(&(lsn as u32).to_le_bytes());
        p[12..14].copy_from_slice(&24u16.to_le_bytes());
        p[14..16].copy_from_slice(&8192u16.to_le_bytes());
        p[16..18].copy_from_slice(&8192u16.to_le_bytes());
        p[18..20].copy_from_slice(&(8192u16 | 4).to_le_bytes());
        let sum = crate::page::checksum::pg_checksum_page(&p, block, Endian::Little);
        p[8..10].copy_from_slice(&sum.to_le_bytes());
        p
    }

    #[test]
    fn a_torn_pages_header_says_nothing_of_its_age_whichever_sectors_are_named() {
        let (block, lsn) = (4, 0x0100_2000);
        let backup = page(block, lsn);
        let row = PageRow {
            block,
            absolute_block: block,
            status: PageStatus::Mismatch,
            stored: 0,
            computed: Some(1),
            findings: Vec::new(),
            misplaced: None,
            tuple_block: None,
            structure: Vec::new(),
        };
        // Sector 0 (the header, pd_lsn the backup's) unlike sectors 8-14: which write is the
        // older one the page does not show.
        let mut b = Block::blank(&backup, &row, Endian::Little);
        b.damage = Damage::Torn;
        b.torn_sectors = (8..15).collect();
        assert_eq!(b.page_lsn, Some(lsn));
        let input = BackupInput {
            file: String::new(),
            block_in_file: block,
            shown: String::from("backup/base/5/16384"),
            page: Ok(Some(backup.clone())),
            absent: false,
        };
        let out = judge(&input, &b, Endian::Little, true, true, Some(16));
        assert_eq!(out.status, "ok");
        assert_eq!(out.age, None, "{}", out.note);
        assert!(
            out.note.contains("may be the older of the two writes"),
            "{}",
            out.note
        );
        // The same pd_lsn on a page that is not torn: the backup's page is the block unchanged.
        b.damage = Damage::Checksum;
        b.torn_sectors.clear();
        assert_eq!(
            judge(&input, &b, Endian::Little, true, true, Some(16)).age,
            Some("same")
        );
    }
}
