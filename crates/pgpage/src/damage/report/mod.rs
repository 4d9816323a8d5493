//! The incident report (docs/contracts.md, "report, the incident report"): what a DBA needs first
//! after `invalid page in block N of relation ...`. One model, built from what the caller has
//! already read (each file's `FileVerdict`, the bytes of the blocks `wanted_blocks` names, the
//! B-tree leaf entries of the table's indexes), so the CLI and the browser build the same report;
//! `render` prints it as text or Markdown.

mod allindexed;
mod backup;
mod headline;
mod keyrows;
mod keys;
mod leaves;
mod reader;
mod render;

use crate::words::plural;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec::Vec;

use serde::Serialize;

use crate::cluster::rows::{visibility, Column, Visibility};
use crate::damage::messages::server_read_lines;
use crate::file::scan::{FileFinding, FileVerdict, PageRow};
use crate::findings::{Evidence, Finding};
use crate::page::geometry::Endian;
use crate::page::kind::PageKind;
use crate::page::verify::{header_is_sane, PageStatus};
use crate::tuple::visibility::TransactionLog;
use crate::tuple::{heap_items, TupleHeader};

pub use allindexed::KeyMismatch;
pub use backup::{BackupInput, BackupPage};
use keyrows::{key_blocks, key_step};
pub use leaves::{leaf_entries, LeafEntry};
pub use reader::{flushed_redo, ReportReader, Request};
pub use render::{markdown, summary, text};

/// What the cluster says of itself (PG_VERSION, pg_control); None where it cannot say.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ClusterFacts {
    pub pg_version: Option<u32>,
    pub system_identifier: Option<String>,
    /// pg_controldata's words (`shut down`, `in production`).
    pub state: Option<String>,
    /// `on`, `off` or `unknown`.
    pub data_checksums: String,
    pub block_size: Option<u32>,
    /// pg_control's latest checkpoint: WAL read to a backup's page must reach past it to
    /// prove that nothing changed the block since.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint_lsn: Option<String>,
    /// The server looks running (postmaster.pid beside a pg_control not shut down): every
    /// finding may be the reading's, not the storage's.
    #[serde(skip_serializing_if = "core::ops::Not::not")]
    pub running: bool,
    /// pg_control's latest checkpoint's redo point: where crash recovery starts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redo_lsn: Option<String>,
    /// pg_control says the server did not shut down (a crash, a power loss, an immediate
    /// stop) and it is not running: starting it runs crash recovery first.
    #[serde(skip_serializing_if = "core::ops::Not::not")]
    pub crashed: bool,
    /// Where the cluster's history ends, for one shut down cleanly (`recover`'s rule,
    /// `shutdown_checkpoint`): WAL past it is another history's.
    #[serde(skip)]
    pub history_end: Option<u64>,
}

/// How bad a damaged block is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The server refuses the page, or rows are lost.
    Error,
    /// Wrong but readable. (Notes are counted apart: `Report::notes`.)
    Warning,
}

/// What happened to a block (the classes of docs/contracts.md, "report, the incident report").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Damage {
    Zeroed,
    Overwritten,
    Torn,
    Misplaced,
    BitFlip,
    Checksum,
    Header,
    Structure,
    /// An older valid version of the block: the WAL changed it after its pd_lsn, before
    /// the checkpoint that wrote every such change (a lost write, or a stale restore).
    Stale,
    /// One header field out of PageIsVerified's range on a page whose line pointers and
    /// tuples are its own (`crate::page::header_field`): its value named in `header_field`.
    HeaderField,
    /// A page that verifies whose rows disagree with the table's B-tree indexes: a row's
    /// key is not the one its index entry holds, or no entry leads to the row
    /// (`key_mismatches`). The bytes changed before the page was checksummed.
    KeyMismatch,
    /// A block past the end of the table's file that its indexes still point into: the file
    /// was cut short or a segment lost. Sequential scans end before it without a word.
    Missing,
    /// A page that verifies whose rows look older than its table's, by the table's B-tree
    /// indexes: rows none of the indexes has an entry for (deleted since, their entries
    /// vacuumed) or older versions of rows a unique index names elsewhere (updated since).
    /// A write lost or an older copy put back; the WAL, when it reaches back, makes it
    /// `stale`.
    Older,
}

impl Damage {
    pub fn as_str(self) -> &'static str {
        match self {
            Damage::Zeroed => "zeroed",
            Damage::Overwritten => "overwritten",
            Damage::Torn => "torn",
            Damage::Misplaced => "misplaced",
            Damage::BitFlip => "bit_flip",
            Damage::Checksum => "checksum",
            Damage::Header => "header",
            Damage::Structure => "structure",
            Damage::Stale => "stale",
            Damage::HeaderField => "header_field",
            Damage::KeyMismatch => "key_mismatch",
            Damage::Missing => "missing",
            Damage::Older => "older",
        }
    }

    /// A page that verifies, found by holding its rows against the table's indexes.
    pub fn is_key(self) -> bool {
        matches!(self, Damage::KeyMismatch | Damage::Older)
    }
}

/// Where a block's row counts come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KnownFrom {
    /// The heap TIDs the table's B-tree indexes hold for the block.
    Index,
    /// The page's own line pointers (its header is sane).
    Header,
    Unknown,
}

/// A heap block's rows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Rows {
    /// None: not known.
    pub lost: Option<u64>,
    pub readable: Option<u64>,
    pub known_from: KnownFrom,
    /// The index whose keys are listed (schema-qualified).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<String>,
    /// One array per lost row: the index's key columns as text (null for NULL).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<Vec<Option<String>>>,
    /// With `known_from: index`: the lost count is an upper bound (see `bound`).
    pub upper_bound: bool,
    /// Why the count is what it is, in words.
    pub bound: Option<String>,
    /// With a unique index's keys: the index entries behind `lost`, when more than the rows
    /// (a row updated without HOT keeps its older version's entry until VACUUM).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_entries: Option<u64>,
    /// Lost keys the index holds more than once, each with its number of entries.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub repeated: Vec<RepeatedKey>,
    /// Tuples the page shows live whose unique key is live on a sound page too: older
    /// versions a torn write or an older page brought back, neither readable nor lost.
    pub stale: u64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stale_rows: Vec<StaleRow>,
    /// On a page that gives no rows (zeroed, overwritten, another block's): index entries
    /// into it whose key is live on a sound page, an older version of a row updated since
    /// (VACUUM has not removed the entry yet). Neither lost nor read here.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub elsewhere: Vec<StaleRow>,
    /// Tuples that are not their line pointer's row: the naming index's entries for that
    /// line pointer all carry another key. Neither readable nor lost; the rows the entries
    /// name are lost (or live elsewhere).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reused: Vec<ReusedRow>,
    /// Tuples whose key is not the one the index holds for them, which the first-ranked bit
    /// flip gives back: rows of this line pointer, counted readable.
    #[serde(skip)]
    pub flipped: Vec<ReusedRow>,
    /// Line pointers the damage took whose row's newest version is a heap-only tuple here
    /// that nothing leads to (root, that tuple's line pointer), found by the row's key: the
    /// pairs a rebuilt page redirects, so that no heap-only tuple is left without its root.
    #[serde(skip)]
    pub orphan_roots: Vec<(u16, u16)>,
}

/// A tuple a damaged page shows under a line pointer the naming index gives to another
/// row: an older write's tuple under a line pointer VACUUM freed and a newer write gave to
/// a new row (a torn write, or a page from an older copy).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReusedRow {
    /// The tuple's own key (the naming index's key columns read off it).
    pub keys: Vec<Option<String>>,
    /// `(block,offset)` of the line pointer.
    pub ctid: String,
    /// The key the index's entry for that line pointer names.
    pub index_keys: Vec<Option<String>>,
    #[serde(skip)]
    pub lp: u16,
    /// Another line pointer that leads to the same tuple: two never share one, so this one's
    /// own bytes are damaged (a flipped lp_off), not the tuple an older write's.
    #[serde(skip)]
    pub shares: Option<u16>,
}

/// A lost key with more than one index entry on the block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RepeatedKey {
    pub keys: Vec<Option<String>>,
    pub entries: u64,
}

/// A stale version: the damaged page's copy of a row whose key is live elsewhere.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StaleRow {
    /// The unique index's key columns as text.
    pub keys: Vec<Option<String>>,
    /// The copy on the damaged page, `(block,offset)`.
    pub ctid: String,
    /// Where the key's live version stands, `(block,offset)`.
    pub live_at: String,
    /// The copy's line pointer, for the sectors it lies in.
    #[serde(skip)]
    pub lp: u16,
    /// The live version's line pointer when it is on the same page (a heap-only tuple
    /// nothing leads to: the newest version of the row this copy is the chain's root of).
    #[serde(skip)]
    pub same_page: Option<u16>,
    /// The key's newest version is not live but lost: an entry into a line pointer the
    /// page's header does not have (a torn page whose header is the older write), at
    /// `live_at`. This copy is all that reads of the row, and it is older.
    #[serde(skip_serializing_if = "core::ops::Not::not")]
    pub newest_lost: bool,
}

/// A row of a torn page whose tuple lies at another place in the older write.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MovedTuple {
    pub lp: u16,
    /// Where its tuple is: the page offset, and the line pointer whose place that is, if any.
    pub lp_off: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_lp: Option<u16>,
}

/// One single-bit flip that makes the stored checksum valid, as `flips::tell` ranks and
/// tells it wherever a page is discussed.
pub type BitFlip = crate::damage::flips::ToldFlip;

/// One damaged block.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Block {
    /// Relation-wide block number.
    pub block: u32,
    /// The segment file's path and the block within it.
    pub file: String,
    pub block_in_file: u32,
    pub severity: Severity,
    /// The page status as verify gives it (docs/contracts.md, "Page status").
    pub status: &'static str,
    pub damage: Damage,
    /// What says so, one sentence each, values filled in.
    pub evidence: Vec<String>,
    /// What the server says when it reads the block (None: it reads it).
    pub server: Option<String>,
    /// A cluster that crashed: the full-page image (or the record that builds the page) at
    /// or after the redo point from which crash recovery rewrites the block without reading
    /// it, so that the server never reads these bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crash_rewrites: Option<String>,
    /// An error-severity block the server reads without an error: what it does instead, in
    /// a few words (a badge where `error` would read as the server's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub silent: Option<&'static str>,
    /// `misplaced`: the relation-wide block the page was written for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub holds_block: Option<u32>,
    /// `torn`: the line pointers whose tuples in those sectors count as older versions of
    /// their rows (the others there read as the older write left them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub torn_items: Vec<u16>,
    /// `torn`: the 512-byte sectors (0-based) that look like another write.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub torn_sectors: Vec<u32>,
    /// `torn`: rows whose tuples the older write holds at another place (the page was
    /// compacted between the two writes), each line pointer with its tuple's offset.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub torn_moved: Vec<MovedTuple>,
    /// A checksum mismatch's page, one fingerprint per 512-byte sector (FNV-1a), to tell
    /// which of its sectors another copy of the page holds byte for byte.
    #[serde(skip)]
    pub sector_prints: Vec<u64>,
    /// `torn`: HOT chain roots the older write left whose newest version is a heap-only tuple
    /// on the page that nothing leads to: (root, that tuple's line pointer). `repair --torn`
    /// makes each root a redirect to it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub torn_newest: Vec<(u16, u16)>,
    /// `torn` with the header the older write: the newer write's line pointer array rebuilt
    /// from its tuples (`crate::am::torn_rebuild`), through which its rows are counted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub torn_rebuilt: Vec<crate::page::bufpage::LinePointer>,
    /// `torn` with the header the older write, when that array could not be rebuilt: why.
    #[serde(skip)]
    pub torn_not_rebuilt: Option<String>,
    /// `torn`: why `repair --torn` refuses the page (`torn_rebuilt`, called), None when it
    /// rebuilds it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub torn_refused: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bit_flips: Vec<BitFlip>,
    /// `header_field`: the field, as stored, and the value to set it back to, confirmed by
    /// the stored checksum or the line pointers' candidate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header_field: Option<crate::page::header_field::FieldFix>,
    /// `key_mismatch`: each row whose key an index does not hold at its TID.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub key_mismatches: Vec<allindexed::KeyMismatch>,
    /// A heap block's rows (None for an index's block).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<Rows>,
    /// With WAL given: the block's newest full-page image in it (None: none there).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wal_image: Option<WalImage>,
    /// With a backup given: the block's page there (None: no backup given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup: Option<BackupPage>,
    /// pd_lsn where the header is sane, to tell a backup's page older or newer.
    #[serde(skip)]
    pub page_lsn: Option<u64>,
    /// A checksum mismatch's (calculated, stored) checksums where the server's WARNING gives
    /// them in decimal, for the report to give once in the hex verify and pg_checksums print.
    #[serde(skip)]
    pub checksums: Option<(u16, u16)>,
    /// Each bit-flip candidate's (byte, bit) and the bit as the damaged page stores it, so a
    /// backup's unchanged page can tell which candidate is the damage.
    #[serde(skip)]
    pub flip_bits: Vec<(u32, u8, bool)>,
    /// The one way the steps recommend for the block ([`Route`]'s name): `reindex`,
    /// `confirmed_flip`, `recover`, `image`, `backup_same`, `flip`, `torn_whole`,
    /// `backup_older` or `none`.
    pub route: &'static str,
    /// `overwritten` over part of a page whose header is sane: the runs of random bytes
    /// (`crate::damage::noise`), `start..end` in the page.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub noise: Vec<crate::damage::noise::Run>,
    /// The block in one line: what happened, its rows, the way back (`headline`).
    pub headline: String,
    /// Each key the evidence names (`key 863 at (10,61)`) and its words without the key, for
    /// [`Report::redact`]: the lists the evidence was written from may change after it.
    #[serde(skip)]
    pub said_keys: Vec<(String, String)>,
}

impl Block {
    /// A damaged block of the class `checksum` and nothing said yet, for the classes to fill.
    fn blank(page: &[u8], row: &PageRow, endian: Endian) -> Block {
        let mut b = Block::blank_at(
            row.absolute_block,
            String::new(),
            row.block,
            row.status.as_str(),
        );
        b.page_lsn = header_is_sane(page, endian)
            .then(|| crate::damage::diff::page_lsn(page, endian))
            .flatten();
        b
    }

    /// A block of the class `checksum` with nothing said yet: relation-wide `block`, its
    /// segment `file` and the block in it, its page status.
    fn blank_at(block: u32, file: String, block_in_file: u32, status: &'static str) -> Block {
        Block {
            block,
            file,
            block_in_file,
            severity: Severity::Error,
            status,
            damage: Damage::Checksum,
            evidence: Vec::new(),
            server: None,
            crash_rewrites: None,
            silent: None,
            holds_block: None,
            torn_sectors: Vec::new(),
            torn_items: Vec::new(),
            torn_moved: Vec::new(),
            torn_newest: Vec::new(),
            torn_rebuilt: Vec::new(),
            torn_not_rebuilt: None,
            torn_refused: None,
            sector_prints: Vec::new(),
            bit_flips: Vec::new(),
            header_field: None,
            key_mismatches: Vec::new(),
            rows: None,
            wal_image: None,
            backup: None,
            checksums: None,
            flip_bits: Vec::new(),
            route: Route::None.as_str(),
            noise: Vec::new(),
            headline: String::new(),
            said_keys: Vec::new(),
            page_lsn: None,
        }
    }

    /// The older write of a torn block, as `repair --torn` and `rows --include-damaged`
    /// take it.
    pub fn torn_write(&self) -> crate::am::TornWrite {
        crate::am::TornWrite {
            noise: !self.noise.is_empty(),
            sectors: self.torn_sectors.clone(),
            items: self.torn_items.clone(),
            moved: self.torn_moved.iter().map(|m| (m.lp, m.lp_off)).collect(),
            newest: self
                .torn_newest
                .iter()
                .copied()
                .filter(|(root, _)| self.torn_items.contains(root))
                .collect(),
            rebuilt: self.torn_rebuilt.clone(),
            not_rebuilt: self.torn_not_rebuilt.clone(),
        }
    }
}

/// What the report tells a reader of one relation's rows ([`Report::row_hints`]), by
/// relation-wide block. It crosses from the report's worker to the rows' in the browser,
/// hence both serde directions.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct RowHints {
    pub torn: BTreeMap<u32, crate::am::TornWrite>,
    /// Pages whose first-ranked bit flip lies in the page header and makes it structurally
    /// sound: their rows read through the header flipped back, (byte, bit).
    #[serde(default)]
    pub header_flips: BTreeMap<u32, (u32, u8)>,
    /// (line pointer, what to say of its printed row).
    pub suspects: BTreeMap<u32, Vec<(u16, String)>>,
}

/// A damaged block's newest full-page image in the WAL given.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WalImage {
    pub lsn: String,
    /// Records after the image that changed the block: the image alone lacks them.
    pub records_after: u64,
    /// Those records, oldest first, each with what it did to the page's rows.
    pub later: Vec<LaterRecord>,
    /// The same records by kind, in the order each kind first comes, counted where one
    /// repeats: `10 x Heap/HOT_UPDATE (changes rows)`.
    pub kinds: Vec<String>,
    /// What restoring the image loses, from what those records did.
    pub restoring: String,
    /// No image, but a record that builds the page from nothing (BKPBLOCK_WILL_INIT, as
    /// heap inserts into a new page log it): replay starts there, at `lsn`, as recovery does.
    #[serde(skip_serializing_if = "core::ops::Not::not")]
    pub init: bool,
}

/// A record after a full-page image that touched its block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LaterRecord {
    pub lsn: String,
    /// `rmgr/record type`, as pg_waldump prints them.
    pub record: String,
    pub effect: crate::wal::RowEffect,
}

/// One relation with damaged blocks.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Relation {
    pub database: Option<String>,
    /// `schema.name`; None when the catalogs do not name it.
    pub relation: Option<String>,
    pub relkind: Option<String>,
    /// Segment 0's path, relative to the data directory where there is one.
    pub path: String,
    pub blocks: Vec<Block>,
    /// The byte order its pages were written in, to read a backup's copy of them.
    #[serde(skip)]
    pub endian: Endian,
    /// `schema.name` as SQL needs it written, for the steps' commands.
    #[serde(skip)]
    pub sql_name: Option<String>,
    /// A table's B-tree indexes (`schema.name`, and as SQL writes it), whose entries into a
    /// zeroed page lead nowhere.
    #[serde(skip)]
    pub indexes: Vec<(String, String)>,
    /// The indexes the rows were held against whose every page verified (`schema.name`).
    #[serde(skip)]
    pub whole_indexes: Vec<String>,
    /// How to read a row's key off a heap tuple (the naming index's key columns), to tell
    /// which lost keys another copy of a page holds.
    #[serde(skip)]
    pub keys: Option<backup::KeyReader>,
}

/// A routine note, counted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Note {
    pub code: String,
    pub count: u64,
    pub message: String,
}

/// A visibility-map or free-space-map page the server cannot verify. The server reads the
/// maps with ReadBufferExtended's RBM_ZERO_ON_ERROR: it zeroes such a page in memory with a
/// WARNING instead of refusing it, and VACUUM sets the map again; no row is on it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MapPage {
    /// The table whose map it is, where the catalogs name it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relation: Option<String>,
    /// The fork's file (`base/16384/16460_vm`).
    pub file: String,
    /// `vm` or `fsm`.
    pub fork: &'static str,
    pub block: u32,
    /// The page's status as PageIsVerified decides it (`mismatch`, `bad_header`, `new_not_zero`).
    pub status: PageStatus,
    /// What the server logs as it reads the page.
    pub server: String,
    /// The page in one sentence, as the report says it.
    pub line: String,
}

/// An index the catalogs list whose file the data directory lacks.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MissingIndex {
    pub index: String,
    pub sql_index: String,
    pub table: String,
    /// The index in one sentence, as the report says it.
    pub line: String,
}

/// A unique index's keys that more than one row of its table holds, among the rows a new
/// snapshot sees: the index cannot be rebuilt over them ("could not create unique index"),
/// and the server, reading through the index, returns one of each.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DuplicateKeys {
    pub index: String,
    pub sql_index: String,
    pub table: String,
    pub sql_table: String,
    /// Each key's rows, `(block,offset)` as ctid prints them.
    pub tids: Vec<Vec<String>>,
    /// Keys held twice beyond those named.
    pub more: u64,
    /// The index and its keys in one sentence, as the report says it.
    pub line: String,
}

/// The report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub cluster: ClusterFacts,
    pub verdict: String,
    /// Relations with damaged blocks, those with errors first.
    pub relations: Vec<Relation>,
    /// Relation files read.
    pub files: u64,
    /// Pages read.
    pub pages: u64,
    pub notes: Vec<Note>,
    /// What could not be read or named (damaged catalogs, unreadable files), one line each.
    pub unknown: Vec<String>,
    /// WAL was given and searched for the damaged blocks' full-page images.
    pub wal_searched: bool,
    /// A backup was given and its pages of the damaged blocks read.
    pub backup_searched: bool,
    /// The data directory's WAL was read for pages older than its latest checkpoint (lost
    /// writes, stale restores): without it such a page passes every other check.
    pub older_pages_checked: bool,
    /// Map pages the server zeroes as it reads them: damage to the storage, not to rows.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub map_pages: Vec<MapPage>,
    /// Indexes without their file: the server fails every query that opens them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing_indexes: Vec<MissingIndex>,
    /// Unique indexes whose key more than one row holds: a REINDEX of them fails.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub duplicate_keys: Vec<DuplicateKeys>,
    /// Files that end in a partial page, in words: the server's size of a relation counts
    /// whole blocks only, so it never reads them, but pg_checksums fails on the file.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub partial_pages: Vec<String>,
    /// WAL given past a cleanly shut down cluster's last checkpoint, left out: said first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_history: Option<String>,
    /// Row data left out ([`Report::redact`]): the values of bit-flip candidates, and the
    /// lost and stale rows' keys (each key an empty array, so that they are still counted).
    #[serde(skip_serializing_if = "core::ops::Not::not")]
    pub redacted: bool,
    /// Rows on pages that verify held against their tables' B-tree indexes, and those
    /// indexes (`key_mismatch`; amcheck's heapallindexed).
    pub rows_held: u64,
    pub indexes_held: u64,
    pub steps: Vec<String>,
    /// The data directory as the user named it, for the steps' commands.
    #[serde(skip)]
    pub data_directory: Option<String>,
    /// The WAL given beside the data directory (`--wal`), as the user named it: the steps'
    /// `pgpage recover` reads it too.
    #[serde(skip)]
    pub wal_given: Vec<String>,
}

impl Report {
    /// The report without row data, to share where the rows may not go: each bit-flip
    /// candidate's values (stored and flipped back), and every key the report names (lost
    /// rows, stale versions, what a backup holds), each key kept as an empty array so that
    /// counts stay. The steps are written again without the values they restore. What is
    /// not row data stays: names, blocks, offsets, counts, LSNs.
    pub fn redact(&mut self) {
        let blank = |keys: &mut Vec<Vec<Option<String>>>| keys.iter_mut().for_each(Vec::clear);
        for b in self.relations.iter_mut().flat_map(|r| r.blocks.iter_mut()) {
            for f in &mut b.bit_flips {
                f.stored = None;
                f.flipped = None;
            }
            if let Some(rows) = b.rows.as_mut() {
                blank(&mut rows.keys);
                rows.repeated.iter_mut().for_each(|k| k.keys.clear());
                rows.stale_rows.iter_mut().for_each(|k| k.keys.clear());
                rows.elsewhere.iter_mut().for_each(|k| k.keys.clear());
                for r in &mut rows.reused {
                    r.keys.clear();
                    r.index_keys.clear();
                }
            }
            // The evidence names stale versions by key: said again without it.
            for (plain, redacted) in &b.said_keys {
                for e in &mut b.evidence {
                    *e = e.replace(plain.as_str(), redacted);
                }
            }
            for m in &mut b.key_mismatches {
                m.keys.clear();
                blank(&mut m.index_keys);
            }
            if let Some(p) = b.backup.as_mut() {
                blank(&mut p.recovers);
                blank(&mut p.lacks);
                blank(&mut p.stale);
            }
        }
        self.redacted = true;
        // The verdict counts lost rows by their keys, which redaction empties: it stays as
        // it was counted.
        let verdict = core::mem::take(&mut self.verdict);
        self.restep();
        self.verdict = verdict;
    }

    /// Each block's route and the steps, again: after what the WAL or a backup told.
    pub(super) fn restep(&mut self) {
        for rel in &mut self.relations {
            let routes: Vec<&'static str> =
                rel.blocks.iter().map(|b| route(rel, b).as_str()).collect();
            for (b, r) in rel.blocks.iter_mut().zip(routes) {
                b.route = r;
                b.headline = headline::headline(b);
                b.silent = silent(b);
            }
        }
        self.verdict = verdict(self);
        self.steps = steps(self);
    }

    /// The older write of each torn block, by (relation path, relation-wide block): what
    /// `repair`'s advice and `rows --include-damaged` leave out there.
    pub fn torn_writes(&self) -> BTreeMap<(String, u32), crate::am::TornWrite> {
        self.relations
            .iter()
            .flat_map(|r| {
                r.blocks
                    .iter()
                    .filter(|b| !b.torn_sectors.is_empty())
                    .map(|b| ((r.path.clone(), b.block), b.torn_write()))
            })
            .collect()
    }

    /// What a reader of the rows of the relation whose segment 0 is `path` (inside the
    /// data directory, as the report names it) takes from this report: its torn blocks'
    /// older writes, and the values of its bit-flipped blocks that the first-ranked flip
    /// probably changed (`RowWriter::with_torn`, `with_suspects`), so that `rows` prints
    /// and counts a damaged page's rows as the report does.
    pub fn row_hints(&self, path: &str) -> RowHints {
        let mut hints = RowHints::default();
        for r in self.relations.iter().filter(|r| r.path == path) {
            for b in &r.blocks {
                if !b.torn_sectors.is_empty() {
                    hints.torn.insert(b.block, b.torn_write());
                }
                if b.damage != Damage::BitFlip {
                    continue;
                }
                let Some(f) = b.bit_flips.first() else {
                    continue;
                };
                if let Some(at) = header_flip(b) {
                    hints.header_flips.insert(b.block, (at.offset, at.bit));
                }
                let (Some(lp), Some(column), Some(stored), Some(flipped)) =
                    (f.item, &f.column, &f.stored, &f.flipped)
                else {
                    continue;
                };
                hints.suspects.entry(b.block).or_default().push((
                    lp,
                    format!(
                        "column {column} printed as stored, \"{stored}\"; a flipped bit probably changed it: flipped back it reads \"{flipped}\" (the report's first-ranked flip, byte {} bit {}; pgpage repair --flip {}:{} restores the page)",
                        f.byte, f.bit, f.byte, f.bit
                    ),
                ));
            }
        }
        hints
    }

    /// [`Self::row_hints`] of every relation that has any, by its path.
    pub fn all_row_hints(&self) -> BTreeMap<String, RowHints> {
        self.relations
            .iter()
            .map(|r| (r.path.clone(), self.row_hints(&r.path)))
            .filter(|(_, h)| !h.torn.is_empty() || !h.suspects.is_empty())
            .collect()
    }

    /// The blocks to watch in WAL (`wal::BlockHistory::of_blocks`): each damaged block's
    /// relfilenode, main fork and block.
    pub fn wal_blocks(&self) -> BTreeSet<(u32, u8, u32)> {
        self.blocks()
            .filter_map(|(rel, b)| {
                Some((crate::file::datadir::locator_of(&rel.path)?.2, 0u8, b.block))
            })
            .collect()
    }

    /// What the WAL given says of the damaged blocks (a history of `wal_blocks`): each
    /// block's newest full-page image, and the steps again with them.
    /// `version`: the WAL's release (its page magic), which names its records.
    pub fn set_wal(&mut self, history: &crate::wal::BlockHistory, version: Option<u32>) {
        self.wal_searched = true;
        // WAL that shows no page magic is still the cluster's: its LSNs print as its release's.
        let lsn_version = version.or(self.cluster.pg_version);
        let lsn_text = |lsn: u64| crate::page::lsn::lsn_text(lsn_version, lsn);
        let checkpoint = self
            .cluster
            .checkpoint_lsn
            .as_deref()
            .and_then(crate::wal::parse_lsn);
        // A cluster shut down cleanly wrote nothing after its shutdown checkpoint: records
        // past it come from another history (a copy started since, archiving to the same
        // place), whose pages are not this cluster's.
        let end = self.wal_end();
        let crash_redo = self
            .cluster
            .redo_lsn
            .as_deref()
            .and_then(crate::wal::parse_lsn)
            .filter(|_| self.cluster.crashed);
        let mut coverage = history.coverage();
        if let Some(end) = end {
            let (count, first) = history.past(end);
            if count > 0 {
                coverage.end = coverage.end.map(|e| e.min(end));
                self.other_history = Some(format!(
                    "the WAL given holds {} past this cluster's shutdown checkpoint at {} (pg_control says \"shut down\"), the first at {}: WAL of another history (a copy of the cluster started since, archiving to the same place?); pgpage leaves them out, and so does every step's pgpage recover. Keep that WAL apart from this cluster's archive",
                    crate::words::plural(count, "record that changes a damaged block", "records that change damaged blocks"),
                    lsn_text(end),
                    first.map_or_else(|| String::from("unknown"), lsn_text),
                ));
            }
        }
        for rel in &mut self.relations {
            let Some((spc, db, relnode)) = crate::file::datadir::locator_of(&rel.path) else {
                continue;
            };
            for b in &mut rel.blocks {
                let seen = history.until(end).find(|(k, _, _)| {
                    k.fork == 0
                        && k.block == b.block
                        && (k.locator.spc_oid, k.locator.db_oid, k.locator.rel_number)
                            == (spc, db, relnode)
                });
                let touches: Vec<(u64, String)> = seen
                    .map(|(_, image, after)| {
                        image
                            .into_iter()
                            .chain(after)
                            .map(|t| (t.lsn, lsn_text(t.lsn)))
                            .collect()
                    })
                    .unwrap_or_default();
                b.wal_image = seen.and_then(|(_, image, after)| {
                    // A record that builds the page from nothing is a start as good as an
                    // image: the newest of either, and the records after it.
                    let (start, init, after) = match after.iter().rposition(|t| t.will_init) {
                        Some(i) => (after.get(i), true, after.get(i.saturating_add(1)..)?),
                        None => (image, false, after),
                    };
                    let later: Vec<LaterRecord> = after
                        .iter()
                        .map(|t| LaterRecord {
                            lsn: lsn_text(t.lsn),
                            record: match version {
                                Some(v) => format!(
                                    "{}/{}",
                                    crate::wal::rmgr_name(t.rmid),
                                    crate::wal::record_type(v, t.rmid, t.info)
                                ),
                                None => format!("rmgr {} info {:#04x}", t.rmid, t.info),
                            },
                            effect: version.map_or(crate::wal::RowEffect::Unknown, |v| {
                                crate::wal::RowEffect::of(v, t.rmid, t.info)
                            }),
                        })
                        .collect();
                    let effects: Vec<crate::wal::RowEffect> =
                        later.iter().map(|l| l.effect).collect();
                    Some(WalImage {
                        lsn: lsn_text(start?.lsn),
                        records_after: after.len() as u64,
                        restoring: crate::wal::restoring("the image", &effects),
                        kinds: later_kinds(&later),
                        later,
                        init,
                    })
                });
                // Crash recovery writes a block from its image (or the record that builds
                // it) without reading it: after the next start, the server never reads the
                // damaged bytes, and raises no error for them.
                let start = seen.and_then(|(_, image, after)| {
                    match after.iter().rposition(|t| t.will_init) {
                        Some(i) => after.get(i).map(|t| t.lsn),
                        None => image.map(|t| t.lsn),
                    }
                });
                if let (Some(redo), Some(start)) = (crash_redo, start) {
                    if start >= redo {
                        b.crash_rewrites = Some(lsn_text(start));
                        let before = b
                            .server
                            .take()
                            .map(|s| format!(" Read before that, the server would say: {s}."))
                            .unwrap_or_default();
                        b.evidence.insert(
                            0,
                            format!(
                                "the cluster was not shut down cleanly, and the WAL holds this block's {} at {} after the redo point {}: starting the server runs crash recovery, which writes the block from it without reading the damaged page and replays the records after it, so the server raises no error for it and the page comes back as it was.{before}",
                                if after_init(seen) { "record that builds the page" } else { "full-page image" },
                                lsn_text(start),
                                lsn_text(redo)
                            ),
                        );
                    }
                }
                let facts = backup::WalFacts {
                    touches: &touches,
                    coverage,
                    checkpoint,
                    lsn_text: &lsn_text,
                    no_pd_lsn: backup::no_pd_lsn(b),
                    block: b.block,
                };
                if let Some(bk) = b.backup.as_mut() {
                    backup::wal_says(bk, &facts);
                }
            }
        }
        self.restep();
    }

    /// The last LSN of this cluster's history where pg_control says it was shut down cleanly:
    /// its shutdown checkpoint's. None otherwise (a crash, a running server, a standby,
    /// whose WAL goes on past their latest checkpoint).
    pub fn wal_end(&self) -> Option<u64> {
        self.cluster.history_end
    }

    /// Exit status: 0 nothing damaged, 1 damage found.
    pub fn damaged(&self) -> bool {
        !self.relations.is_empty()
            || !self.map_pages.is_empty()
            || !self.missing_indexes.is_empty()
            || !self.duplicate_keys.is_empty()
            || !self.partial_pages.is_empty()
    }

    /// Where to ask about this damage, when it is storage damage: pages zeroed, torn,
    /// overwritten or written at the wrong place, and checksum failures (bit flips among
    /// them), which the storage, the file system or memory make, almost never PostgreSQL;
    /// None when no block is damaged so.
    pub fn storage_damage(&self) -> Option<String> {
        let classes: BTreeSet<&'static str> = self
            .blocks()
            .filter(|(_, b)| {
                matches!(
                    b.damage,
                    Damage::Zeroed
                        | Damage::Torn
                        | Damage::Overwritten
                        | Damage::Misplaced
                        | Damage::BitFlip
                        | Damage::Checksum
                        | Damage::HeaderField
                )
            })
            .map(|(_, b)| match b.damage {
                Damage::Zeroed => "zeroed pages",
                Damage::HeaderField => "overwritten header fields",
                Damage::Torn => "torn pages",
                Damage::Overwritten => "overwritten pages",
                Damage::Misplaced => "misplaced pages",
                Damage::BitFlip => "bit flips",
                _ => "checksum failures",
            })
            .collect();
        if classes.is_empty() {
            return None;
        }
        let list: Vec<&str> = classes.into_iter().collect();
        Some(format!(
            "Storage damage ({}): almost always the hardware, storage, file system or memory, not PostgreSQL. pgsql-bugs is for bugs in PostgreSQL itself: ask pgsql-general@lists.postgresql.org or your vendor, and report to pgsql-bugs only a suspected PostgreSQL bug.",
            list.join(", ")
        ))
    }

    fn blocks(&self) -> impl Iterator<Item = (&Relation, &Block)> {
        self.relations
            .iter()
            .flat_map(|r| r.blocks.iter().map(move |b| (r, b)))
    }
}

/// One segment file of a relation as the caller read it.
#[derive(Clone, Debug)]
pub struct FileInput {
    /// As messages name it (`base/16384/16441.1`).
    pub path: String,
    pub verdict: FileVerdict,
    /// Blocks within the file that were all zeros (the statuses `FileScan::chunk_statuses`
    /// hands over): a zero page before rows, or one an index still points into, is damage.
    pub zero_blocks: Vec<u32>,
    /// The bytes of the blocks `wanted_blocks` names, by block within the file, but for the
    /// all-zero ones (`zero_blocks`): a file extended but never written may be gigabytes of
    /// them, and their bytes are known without holding them.
    pub pages: BTreeMap<u32, Vec<u8>>,
}

/// An all-zero page of any block size PostgreSQL builds with.
static ZERO_PAGE: [u8; 32768] = [0; 32768];

impl FileInput {
    /// Every block `wanted_blocks` names with its bytes, in block order: the pages read, and
    /// the all-zero ones as zeros.
    pub fn wanted_pages(&self) -> impl Iterator<Item = (u32, &[u8])> + '_ {
        let bs = usize::try_from(self.verdict.geometry.block_size.bytes())
            .unwrap_or(ZERO_PAGE.len())
            .min(ZERO_PAGE.len());
        let zero = ZERO_PAGE.get(..bs).unwrap_or_default();
        let mut read = self
            .pages
            .iter()
            .map(|(b, p)| (*b, p.as_slice()))
            .peekable();
        let mut zeros = self
            .zero_blocks
            .iter()
            .copied()
            .filter(|b| !self.pages.contains_key(b))
            .peekable();
        core::iter::from_fn(move || match (read.peek(), zeros.peek()) {
            (Some((r, _)), Some(z)) if z < r => zeros.next().map(|z| (z, zero)),
            (Some(_), _) => read.next(),
            (None, Some(_)) => zeros.next().map(|z| (z, zero)),
            (None, None) => None,
        })
    }

    /// Whether the file has a block the report looks at.
    pub fn has_wanted(&self) -> bool {
        !self.pages.is_empty() || !self.zero_blocks.is_empty()
    }
}

/// The leaf entries of one B-tree index of a table (`leaf_entries` of each leaf page).
#[derive(Clone, Debug)]
pub struct IndexInput {
    /// `schema.name`.
    pub name: String,
    /// `schema.name` as SQL needs it written (quote_ident), for the steps' commands.
    pub sql_name: String,
    /// The key types were known, so entries carry their keys.
    pub keys_known: bool,
    /// The key columns' types, to list keys in the order ORDER BY gives them; empty when
    /// not known.
    pub key_types: Vec<crate::tuple::value::Type>,
    /// A primary key (2) or another unique index (1): its keys name a row; 0 otherwise.
    pub uniqueness: u8,
    /// Leaf pages that could not be read: the index may not name every row.
    pub unreadable_pages: u64,
    pub entries: Vec<LeafEntry>,
    /// The index's key columns as its own pg_attribute rows name them (a plain column's
    /// key takes the table column's name), for reading a key off a heap tuple; empty when
    /// their types are not known.
    pub key_columns: Vec<Column>,
}

/// A relation as the caller read it.
#[derive(Clone, Debug)]
pub struct RelationInput {
    /// Blocks past the end of the table's file that its indexes point into.
    pub missing_blocks: Vec<u32>,
    /// Damaged blocks that hold another block's page byte for byte (block, the other).
    pub copies: BTreeMap<u32, u32>,
    pub database: Option<String>,
    pub relation: Option<String>,
    /// pg_class.relname alone, as the server's messages quote it (RelationGetRelationName).
    pub relname: Option<String>,
    /// `schema.name` as SQL needs it written (quote_ident), for the steps' commands.
    pub sql_name: Option<String>,
    /// pg_class.relkind; None without catalogs.
    pub relkind: Option<char>,
    pub endian: Endian,
    pub files: Vec<FileInput>,
    /// The table's columns (catalogs), for the values a bit flip touches.
    pub columns: Option<Vec<Column>>,
    /// pg_xact, for which tuples a new snapshot sees (one for the whole cluster).
    pub log: Option<Arc<TransactionLog>>,
    pub indexes: Vec<IndexInput>,
    /// Heap pages that verify, by relation-wide block, where a unique key of a damaged
    /// page's live tuple has another index entry (`twin_blocks`): whether a live version
    /// stands there tells a stale copy from the row's one live version.
    pub sound_pages: BTreeMap<u32, Vec<u8>>,
    /// Rows on pages that verify whose key a B-tree index does not hold at their TID, by
    /// relation-wide block (`allindexed`).
    pub key_mismatches: BTreeMap<u32, Vec<allindexed::KeyMismatch>>,
    /// pg_control's next xid (its low 32 bits) when the cluster was shut down cleanly.
    pub next_xid: Option<u32>,
    /// Rows held against their B-tree indexes, and the indexes (`allindexed`).
    pub rows_held: u64,
    pub indexes_held: u64,
    /// The indexes (`schema.name`) whose every page was read and verified when the rows
    /// were held against them: a row none of them has an entry for was not indexed since.
    pub whole_indexes: Vec<String>,
    /// pg_class.relfrozenxid (None without catalogs): no xid in the table precedes it.
    pub relfrozenxid: Option<u32>,
}

/// Everything a report is made from.
#[derive(Clone, Debug)]
pub struct Input {
    /// The data directory as the user named it (`dmg`), when one was read: the steps'
    /// commands name its files through it, so that they run from where the report was made.
    pub data_directory: Option<String>,
    pub cluster: ClusterFacts,
    pub relations: Vec<RelationInput>,
    pub unknown: Vec<String>,
    /// What the latest checkpoint must have written, from the data directory's WAL: each
    /// page older than that is `stale`. None: no WAL read.
    pub flushed: Option<Arc<crate::wal::FlushedChanges>>,
    pub map_pages: Vec<MapPage>,
    pub missing_indexes: Vec<MissingIndex>,
    pub duplicate_keys: Vec<DuplicateKeys>,
}

/// The blocks (within the file) whose bytes `FileInput::pages` must hold: every page the
/// verdict lists as a problem or with structural findings, and every all-zero page.
pub fn wanted_blocks(verdict: &FileVerdict, zero_blocks: &[u32]) -> Vec<u32> {
    let mut out: BTreeSet<u32> = zero_blocks.iter().copied().collect();
    out.extend(
        verdict
            .pages
            .iter()
            .filter(|r| r.status != PageStatus::Ok || !r.structure.is_empty())
            .map(|r| r.block),
    );
    out.into_iter().collect()
}

/// The blocks (within the file) of a main fork that records before the latest checkpoint's
/// redo point changed: `stale_block` holds each page against those records.
pub fn stale_candidates(
    verdict: &FileVerdict,
    path: &str,
    flushed: &crate::wal::FlushedChanges,
) -> Vec<u32> {
    let Some(locator) = main_fork_locator(path) else {
        return Vec::new();
    };
    let first = verdict.geometry.block_size.absolute_block(verdict.segno, 0);
    flushed
        .blocks()
        .filter(|(l, _, _)| **l == locator)
        .filter_map(|(_, block, _)| block.checked_sub(first))
        .filter(|b| *b < verdict.blocks)
        .collect()
}

/// Whether a page `stale_candidates` named is older than the WAL says (`stale_block`).
pub fn is_stale(
    verdict: &FileVerdict,
    path: &str,
    block_in_file: u32,
    page: &[u8],
    flushed: &crate::wal::FlushedChanges,
    endian: Endian,
) -> bool {
    let row = verdict.row_for(block_in_file, page);
    main_fork_locator(path)
        .and_then(|l| flushed.block(&l, row.absolute_block))
        .and_then(|changed| stale_block(page, &row, endian, flushed, changed, None))
        .is_some()
}

/// The relation a main fork's segment file belongs to; None for another fork's file.
fn main_fork_locator(path: &str) -> Option<crate::wal::RelFileLocator> {
    let name = path.rsplit('/').next()?;
    if crate::file::parse_relation_file_name(name)?.fork != crate::page::kind::Fork::Main {
        return None;
    }
    let (spc_oid, db_oid, rel_number) = crate::file::datadir::locator_of(path)?;
    Some(crate::wal::RelFileLocator {
        spc_oid,
        db_oid,
        rel_number,
    })
}

/// Whether a relkind's pages hold rows.
fn holds_rows(relkind: Option<char>, page: &[u8], endian: Endian) -> bool {
    match relkind {
        Some(k) => matches!(k, 'r' | 'm' | 't'),
        None => {
            crate::am::kind::detect_kind(page, endian, crate::page::kind::Fork::Main)
                == PageKind::Heap
        }
    }
}

/// Index entries of one heap block: the offsets (deduplicated) that no index marks dead.
struct Held<'i> {
    offsets: BTreeSet<u16>,
    /// The index whose keys are listed, and its entries for the block.
    keys_from: Option<&'i IndexInput>,
}

fn held_for(indexes: &[IndexInput], block: u32) -> Option<Held<'_>> {
    if indexes.is_empty() {
        return None;
    }
    let mut offsets = BTreeSet::new();
    let counted: Vec<(&IndexInput, usize)> = indexes
        .iter()
        .map(|ix| {
            let live: BTreeSet<u16> = ix
                .entries
                .iter()
                .filter(|e| e.block == block && !e.dead)
                .map(|e| e.offset)
                .collect();
            let n = live.len();
            offsets.extend(live);
            (ix, n)
        })
        .collect();
    let most = counted.iter().map(|(_, n)| *n).max().unwrap_or(0);
    // The index whose keys name one row each lists them (the primary key, then a unique
    // index), where it names nearly as many rows of the block as the index naming the most
    // (a non-unique index also keeps older versions' entries VACUUM has not removed, one
    // more row than the block held); else the index naming the most rows.
    let rank = |ix: &IndexInput, n: usize| {
        let naming = ix.uniqueness > 0 && n.saturating_mul(10) >= most.saturating_mul(9);
        (
            ix.keys_known,
            naming,
            if naming { ix.uniqueness } else { 0 },
            n,
        )
    };
    // Of equals, the first (max_by_key keeps the last it meets).
    let best = counted
        .iter()
        .rev()
        .copied()
        .max_by_key(|(ix, n)| rank(ix, *n))
        .filter(|_| !counted.is_empty());
    Some(Held {
        offsets,
        keys_from: best.map(|(ix, _)| ix),
    })
}

/// Two keys of an index in ORDER BY's order of its key columns (NULLs last, as ASC puts them).
fn key_order(
    types: &[crate::tuple::value::Type],
    a: &[Option<String>],
    b: &[Option<String>],
) -> core::cmp::Ordering {
    use core::cmp::Ordering;
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let o = match (x, y) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Greater,
            (Some(_), None) => Ordering::Less,
            (Some(x), Some(y)) => match types.get(i) {
                Some(ty) => crate::tuple::value::output_order(ty, x, y),
                None => x.as_bytes().cmp(y.as_bytes()),
            },
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

/// The unique index whose keys name the rows (the primary key first), with its keys known.
pub fn naming_index(indexes: &[IndexInput]) -> Option<&IndexInput> {
    indexes
        .iter()
        .filter(|ix| ix.keys_known && ix.uniqueness > 0)
        .max_by_key(|ix| ix.uniqueness)
}

/// The keys of `naming_index`'s entries (dead ones too: the page may show their versions
/// live) that point into `blocks`, without NULLs (a unique index lets NULLs repeat): the
/// keys whose other entries `twin_blocks` looks for.
pub fn keys_into(ix: &IndexInput, blocks: &BTreeSet<u32>) -> BTreeSet<Vec<Option<String>>> {
    ix.entries
        .iter()
        .filter(|e| blocks.contains(&e.block))
        .filter_map(|e| e.keys.clone())
        .filter(|k| k.iter().all(Option::is_some))
        .collect()
}

/// The blocks outside `blocks` that the index's live entries with those keys point at.
pub fn twin_blocks(
    ix: &IndexInput,
    keys: &BTreeSet<Vec<Option<String>>>,
    blocks: &BTreeSet<u32>,
) -> BTreeSet<u32> {
    ix.entries
        .iter()
        .filter(|e| !e.dead && !blocks.contains(&e.block))
        .filter(|e| e.keys.as_ref().is_some_and(|k| keys.contains(k)))
        .map(|e| e.block)
        .collect()
}

/// The line pointer of the version a new snapshot sees in the HOT chain from `root`, as
/// heap_hot_search_buffer follows it; None when no version of the chain is visible (a
/// deleted row, an updated-away version whose successor is on another page).
fn visible_in_chain(
    page: &[u8],
    block: u32,
    root: u16,
    endian: Endian,
    log: &TransactionLog,
) -> Option<u16> {
    let lines = crate::damage::story::heap_lines(page, block, endian)?;
    let next: BTreeMap<u16, u16> = lines
        .items
        .iter()
        .filter_map(|i| i.redirect_to.or(i.hot_next).map(|to| (i.lp, to)))
        .collect();
    let visible: BTreeSet<u16> = heap_items(page, endian)
        .filter_map(|item| {
            let header = TupleHeader::read(item.tuple?, endian)?;
            (visibility(&header, (block, item.lp), log) == Visibility::Visible).then_some(item.lp)
        })
        .collect();
    let mut lp = root;
    for _ in 0..=next.len() {
        if visible.contains(&lp) {
            return Some(lp);
        }
        lp = *next.get(&lp)?;
    }
    None
}

/// Where `key` has a visible version on a sound page other than `block`: the naming index's
/// other live entries for it, each chain followed on its page.
fn live_elsewhere(
    ix: &IndexInput,
    key: &[Option<String>],
    block: u32,
    rel: &RelationInput,
) -> Option<(u32, u16)> {
    let empty = TransactionLog::new(8192, rel.endian);
    let log = rel.log.as_deref().unwrap_or(&empty);
    ix.entries
        .iter()
        .filter(|e| !e.dead && e.block != block && e.keys.as_deref() == Some(key))
        .find_map(|e| {
            let page = rel.sound_pages.get(&e.block)?;
            let lp = visible_in_chain(page, e.block, e.offset, rel.endian, log)?;
            Some((e.block, lp))
        })
}

/// The readable rows of a page with a sane header: the offsets of tuples a new snapshot
/// sees (or whose state it cannot decide) whose header reads.
fn readable_offsets(
    page: &[u8],
    block: u32,
    endian: Endian,
    log: Option<&TransactionLog>,
) -> BTreeSet<u16> {
    let empty = TransactionLog::new(page.len(), endian);
    let log = log.unwrap_or(&empty);
    heap_items(page, endian)
        .filter_map(|item| {
            let header = TupleHeader::read(item.tuple?, endian)?;
            let hoff = usize::from(header.t_hoff);
            if hoff < 23 || hoff > item.len {
                return None;
            }
            match visibility(&header, (block, item.lp), log) {
                Visibility::Invisible => None,
                _ => Some(item.lp),
            }
        })
        .collect()
}

/// `sectors 8-15` / `sector 9` / `sectors 3, 5-6`: runs of consecutive sectors as `first-last`.
fn sector_list(sectors: &[u32]) -> String {
    let words = crate::words::run_texts(sectors);
    format!(
        "{} {}",
        if sectors.len() == 1 {
            "sector"
        } else {
            "sectors"
        },
        words.join(", ")
    )
}

/// Builds the report.
pub fn build(input: &Input) -> Report {
    let mut relations = Vec::new();
    let mut notes: BTreeMap<String, Note> = BTreeMap::new();
    let mut files = 0u64;
    let mut pages = 0u64;
    let mut partial_pages = Vec::new();
    let (mut rows_held, mut indexes_held) = (0u64, 0u64);
    for rel in &input.relations {
        let mut blocks = Vec::new();
        let segment0 = rel
            .files
            .iter()
            .find(|f| f.verdict.segno == 0)
            .or_else(|| rel.files.first());
        for file in &rel.files {
            files = files.saturating_add(1);
            if file.verdict.trailing_bytes > 0 {
                partial_pages.push(format!(
                    "{} ends {} bytes into block {} (a partial page): the server counts whole blocks only, so it never reads those bytes (a sequential scan ends before them, and the table's next extension writes over them), while pg_checksums --check fails on the file (a short read); what they held is unknown",
                    file.path,
                    file.verdict.trailing_bytes,
                    file.verdict.blocks
                ));
            }
            pages = pages.saturating_add(u64::from(file.verdict.blocks));
            count_notes(file, &mut notes);
            blocks.extend(file_blocks(
                rel,
                file,
                input.cluster.pg_version,
                segment0,
                input.flushed.as_deref(),
            ));
        }
        rows_held = rows_held.saturating_add(rel.rows_held);
        indexes_held = indexes_held.saturating_add(rel.indexes_held);
        blocks.extend(key_blocks(rel));
        blocks.extend(missing_blocks(rel, segment0));
        if blocks.is_empty() {
            continue;
        }
        catalog_sessions(rel, &mut blocks);
        blocks.sort_by_key(|b| (b.severity, b.block));
        relations.push(Relation {
            database: rel.database.clone(),
            relation: rel.relation.clone(),
            relkind: rel.relkind.map(|k| k.to_string()),
            path: segment0.map(|f| f.path.clone()).unwrap_or_default(),
            blocks,
            endian: rel.endian,
            sql_name: rel.sql_name.clone(),
            indexes: rel
                .indexes
                .iter()
                .map(|ix| (ix.name.clone(), ix.sql_name.clone()))
                .collect(),
            whole_indexes: rel.whole_indexes.clone(),
            keys: backup::KeyReader::of(rel),
        });
    }
    relations.sort_by_key(|r| r.blocks.first().map(|b| b.severity));
    let mut report = Report {
        cluster: input.cluster.clone(),
        verdict: String::new(),
        relations,
        files,
        pages,
        notes: notes.into_values().collect(),
        unknown: input.unknown.clone(),
        wal_searched: false,
        redacted: false,
        backup_searched: false,
        older_pages_checked: input.flushed.is_some(),
        map_pages: input
            .map_pages
            .iter()
            .map(|m| MapPage {
                line: render::map_line(m),
                ..m.clone()
            })
            .collect(),
        missing_indexes: input.missing_indexes.clone(),
        duplicate_keys: input.duplicate_keys.clone(),
        partial_pages,
        other_history: None,
        rows_held,
        indexes_held,
        steps: Vec::new(),
        data_directory: input.data_directory.clone(),
        wal_given: Vec::new(),
    };
    report.restep();
    report
}

/// amcheck findings that mark a tuple as older than the table's last freezing VACUUM, on a
/// page that is otherwise whole: its rows read, as they were.
fn older_page_finding(f: Finding) -> bool {
    matches!(
        f,
        Finding::HeapXminBeforeRelfrozenxid | Finding::HeapXmaxBeforeRelfrozenxid
    )
}

/// The blocks past the end of a table's file that its indexes point into: each one's rows,
/// by the indexes' entries, are lost (the file was cut short, or a segment lost).
fn missing_blocks(rel: &RelationInput, segment0: Option<&FileInput>) -> Vec<Block> {
    let Some(first) = rel.missing_blocks.first() else {
        return Vec::new();
    };
    let path = segment0.map(|f| f.path.clone()).unwrap_or_default();
    let per = segment0
        .map(|f| f.verdict.geometry.block_size.blocks_per_segment().max(1))
        .unwrap_or(131_072);
    let end = *first;
    let mut out = Vec::new();
    for &block in &rel.missing_blocks {
        // The segment file the block would be in, named as the server names it.
        let segno = block.checked_div(per).unwrap_or(0);
        let file = if segno == 0 {
            path.clone()
        } else {
            format!("{path}.{segno}")
        };
        let mut b = Block::blank_at(
            block,
            file.clone(),
            block.checked_rem(per).unwrap_or(block),
            "missing",
        );
        b.damage = Damage::Missing;
        b.severity = Severity::Error;
        b.evidence.push(format!(
            "the table's file ends before this block (its last whole block is {}), but the table's indexes still point at rows in it: the file was cut short or a segment file lost (an operator, a file copy, the file system). Sequential scans and count(*) end at the file's end without a word; an index scan that reaches one of these rows fails (could not read block {block} in file \"{file}\": read only 0 of 8192 bytes)",
            end.saturating_sub(1)
        ));
        let zero = alloc::vec![0u8; 8192];
        let held = held_for(&rel.indexes, block);
        b.rows = Some(rows_of(
            &zero,
            &b,
            &BTreeSet::new(),
            block,
            rel.endian,
            rel,
            held.as_ref(),
        ));
        out.push(b);
    }
    out
}

/// A system catalog's page the server refuses stops every session that reads it, and the
/// relation cache reads some catalogs (pg_class, pg_attribute, ...) as a session starts: that
/// is what such damage costs, more than the catalog's own rows.
fn catalog_sessions(rel: &RelationInput, blocks: &mut [Block]) {
    let Some(name) = rel.relation.as_deref() else {
        return;
    };
    if !name.starts_with("pg_catalog.") {
        return;
    }
    let shared = rel
        .files
        .first()
        .is_some_and(|f| f.path.starts_with("global/"));
    let scope = match (&rel.database, shared) {
        (_, true) => String::from("in every database (a shared catalog)"),
        (Some(db), false) => format!("of database {db}"),
        (None, false) => String::from("of its database"),
    };
    for b in blocks.iter_mut().filter(|b| b.server.is_some()) {
        b.evidence.push(format!(
            "a system catalog's page the server refuses: every session {scope} that reads it fails with that error, and since the relation cache reads catalogs such as pg_class and pg_attribute as a session starts, connecting may fail too (FATAL); repair this page first"
        ));
    }
}

/// The contract's code for a routine note where it names one otherwise than the registry.
fn note_code(f: Finding) -> String {
    match f {
        Finding::FsmMoreThanFree => String::from("fsm_more_free_space"),
        f => String::from(f.code()),
    }
}

fn count_notes(file: &FileInput, notes: &mut BTreeMap<String, Note>) {
    let mut add = |f: Finding, message: String| {
        let n = notes.entry(note_code(f)).or_insert(Note {
            code: note_code(f),
            count: 0,
            message,
        });
        n.count = n.count.saturating_add(1);
    };
    for row in &file.verdict.pages {
        // A note that is not routine on its page is among that page's evidence instead.
        for f in row.findings.iter().filter(|f| row.routine_note(**f)) {
            add(*f, String::from(f.message()));
        }
    }
    for f in &file.verdict.findings {
        if let FileFinding::ChecksumsDisabled { .. } = f {
            add(f.finding(), f.describe(&file.path));
        }
    }
}

fn file_blocks(
    rel: &RelationInput,
    file: &FileInput,
    major: Option<u32>,
    segment0: Option<&FileInput>,
    flushed: Option<&crate::wal::FlushedChanges>,
) -> Vec<Block> {
    let v = &file.verdict;
    let endian = rel.endian;
    let between: BTreeSet<u32> = v
        .findings
        .iter()
        .filter_map(|f| match *f {
            FileFinding::ZeroPageBetweenRows { block, pages } => {
                Some((block..block.saturating_add(pages)).collect::<Vec<u32>>())
            }
            _ => None,
        })
        .flatten()
        .collect();
    let relpath = segment0
        .map(|f| f.path.clone())
        .unwrap_or_else(|| file.path.clone());
    let mut out = Vec::new();
    for (block_in_file, page) in file.wanted_pages() {
        let row = v.row_for(block_in_file, page);
        let absolute = row.absolute_block;
        let rows_kind = holds_rows(rel.relkind, page, endian)
            || (row.status == PageStatus::Zero && rel.relkind.is_none() && !between.is_empty());
        let held = if rows_kind {
            held_for(&rel.indexes, absolute)
        } else {
            None
        };
        let index_holds = held.as_ref().is_some_and(|h| !h.offsets.is_empty());
        // What the naming index holds for each line pointer of the block: a flip that gives
        // a row back the key the index holds for it is the likeliest.
        let naming = naming_index(&rel.indexes);
        let positions = naming
            .zip(rel.columns.as_deref())
            .and_then(|(ix, columns)| key_positions(ix, columns));
        let entries: Vec<(u16, Vec<Option<String>>)> = naming
            .map(|ix| {
                ix.entries
                    .iter()
                    .filter(|e| e.block == absolute && !e.dead)
                    .filter_map(|e| Some((e.offset, e.keys.clone()?)))
                    .collect()
            })
            .unwrap_or_default();
        let table = Table {
            next_xid: rel.next_xid,
            index: naming.zip(positions.as_deref()).map(|(ix, positions)| {
                crate::damage::flips::IndexKeys {
                    name: &ix.name,
                    positions,
                    entries: &entries,
                }
            }),
            columns: rel.columns.as_deref(),
            relation: rel
                .relname
                .as_deref()
                .or(rel.relation.as_deref())
                .unwrap_or(&relpath),
            relfrozenxid: rel.relfrozenxid,
        };
        let Some(mut b) = classify(
            page,
            &row,
            endian,
            &table,
            between.contains(&block_in_file),
            index_holds,
        ) else {
            let stale = flushed.and_then(|f| {
                let locator = main_fork_locator(&file.path)?;
                stale_block(page, &row, endian, f, f.block(&locator, absolute)?, major)
            });
            if let Some(mut b) = stale {
                b.file = file.path.clone();
                if rows_kind {
                    b.rows = Some(stale_rows());
                }
                out.push(b);
            }
            continue;
        };
        b.file = file.path.clone();
        // Another block's page byte for byte, whose checksum is valid there: a misdirected
        // write, whatever else one flipped bit or sector might explain.
        if let Some(&source) = rel.copies.get(&absolute) {
            b.damage = Damage::Misplaced;
            b.holds_block = Some(source);
            b.bit_flips.clear();
            b.torn_sectors.clear();
            b.evidence = alloc::vec![format!(
                "the page holds block {source}: it is block {source}'s page byte for byte, and its checksum is valid for that block (a write sent to the wrong block, or a copy put at the wrong place)"
            )];
        }
        b.flip_bits = backup::stored_bits(&b.bit_flips, page);
        if row.status == PageStatus::Mismatch {
            b.sector_prints = backup::sector_prints(page);
            // What would be routine on a sound page may be the damage's trace here: an
            // all-visible flag from an older header whose later changes cleared the bit.
            for f in row
                .findings
                .iter()
                .filter(|f| f.evidence() == Evidence::Note && !row.routine_note(**f))
            {
                b.evidence.push(format!(
                    "on this page, which fails its checksum, not a routine note but possibly the damage's trace: {}",
                    f.message()
                ));
            }
        }
        if row.status == PageStatus::Mismatch
            && crate::damage::messages::server_warns_checksums(major)
        {
            b.checksums = row.computed.map(|c| (c, row.stored));
        }
        if b.severity == Severity::Error && row.status != PageStatus::Zero {
            b.server = Some(server_read_lines(
                &relpath,
                absolute,
                row.status,
                row.computed,
                row.stored,
                major,
            ));
        }
        // A page one header field away from the server's reads through that field set back:
        // its kind, its rows and the index entries into them are the fixed page's. So does
        // one whose first-ranked flip mends its header: the line pointers and tuples are the
        // page's own, and the server reads them all under ignore_checksum_failure.
        let flipped_header = header_flip(&b).map(|at| at.apply(page));
        let fixed = b
            .header_field
            .as_ref()
            .map(|f| f.apply(page, endian))
            .or_else(|| flipped_header.clone());
        let (rows_kind, held) = match &fixed {
            Some(p) if holds_rows(rel.relkind, p, endian) => {
                (true, held_for(&rel.indexes, absolute))
            }
            Some(_) => (false, None),
            None => (rows_kind, held),
        };
        if rows_kind {
            let page: &[u8] = match &fixed {
                Some(p) => p,
                None => page,
            };
            // A heap-only tuple nothing leads to is sound bytes: the newest version of a row
            // whose chain start is wrong, readable by a sequential scan.
            let structure_wrong: BTreeSet<u16> = row
                .structure
                .iter()
                .filter(|f| f.finding != Finding::HeapRootIsHeapOnly)
                // An xid older than relfrozenxid is an older page's tuple, which reads.
                .filter(|f| !older_page_finding(f.finding))
                .filter(|_| flipped_header.is_none())
                .filter_map(|f| f.item)
                .collect();
            // A tuple whose values are not values of the table's columns (bytes no column
            // type writes: invalid text, a varlena header past the tuple) gives no row: rows
            // leaves it out, so it is neither readable nor a row for repair --torn to keep.
            let garbled = if row.status == PageStatus::Mismatch {
                garbled_tuples(page, endian, rel.columns.as_deref())
            } else {
                BTreeSet::new()
            };
            let structure_wrong: BTreeSet<u16> = structure_wrong.union(&garbled).copied().collect();
            let wrong = structure_wrong.clone();
            let mut rows = rows_of(page, &b, &wrong, absolute, endian, rel, held.as_ref());
            // An older version of a row live elsewhere marks its sectors as an older write,
            // where a tuple updated since reads as never updated.
            let stale: Vec<u16> = rows
                .stale_rows
                .iter()
                .map(|r| r.lp)
                .chain(rows.reused.iter().map(|r| r.lp))
                .collect();
            // Found while the tuples still read; a recount without them has none to find.
            let reused = rows.reused.clone();
            // A stale root whose newest version is an unreached heap-only tuple here: the pair
            // a rebuilt page redirects (the recount below counts the root as damaged).
            b.torn_newest = rows
                .stale_rows
                .iter()
                .filter_map(|r| Some((r.lp, r.same_page?)))
                .chain(rows.orphan_roots.iter().copied())
                .collect();
            // One flipped bit changes one tuple: older versions of two rows are an older
            // write, and a flip that makes the checksum valid a chance match.
            let flip_by_chance = b.damage == Damage::BitFlip && stale.len() >= 2;
            if flip_by_chance {
                b.bit_flips.clear();
                b.flip_bits.clear();
                b.evidence
                    .retain(|e| !e.contains("single-bit flips make the stored checksum valid"));
                b.evidence.push(format!(
                    "a single-bit flip would make the stored checksum valid, but one bit changes at most one tuple and {} tuples here are older versions of their rows: that match is chance",
                    stale.len()
                ));
            }
            let header_older = b.damage == Damage::Torn
                && b.torn_sectors == [0]
                && !crate::am::header_older(page, absolute, endian).is_empty();
            if (matches!(b.damage, Damage::Checksum | Damage::Torn) || flip_by_chance)
                && !stale.is_empty()
                && !header_older
            {
                let (sectors, taken) = crate::am::torn_with(page, absolute, endian, &stale);
                let (_, voted) = crate::am::torn_write(page, absolute, endian);
                let taken: Vec<u16> = taken
                    .into_iter()
                    .filter(|lp| {
                        stale.contains(lp)
                            || voted.contains(lp)
                            || !sole_version(&rel.indexes, absolute, *lp)
                    })
                    .collect();
                if sectors != b.torn_sectors {
                    let by = if b.torn_sectors.is_empty() {
                        TORN_BY_STALE
                    } else {
                        TORN_BY_BOTH
                    };
                    b.damage = Damage::Torn;
                    b.evidence.retain(|e| {
                        !e.starts_with("no single-bit flip")
                            && !e.contains("of the page are an older write")
                            && !e.contains("of the page hold another write of it")
                            && e != TORN_TRUST
                    });
                    let mut wrong = wrong;
                    wrong.extend(taken.iter().copied());
                    b.torn_sectors = sectors;
                    b.torn_items = taken;
                    rows = rows_of(page, &b, &wrong, absolute, endian, rel, held.as_ref());
                    stale_evidence(&mut b, &rows);
                    b.evidence.push(torn_words(&b.torn_sectors, by));
                    b.evidence.push(String::from(TORN_TRUST));
                } else {
                    // The same sectors, but tuples in them that the first look read as
                    // rows are older versions (a key live elsewhere, or with a newer entry
                    // the tear took): one count for the report, rows and repair --torn.
                    let more: Vec<u16> = taken
                        .into_iter()
                        .filter(|lp| !b.torn_items.contains(lp))
                        .collect();
                    if !more.is_empty() {
                        b.torn_items.extend(more.iter().copied());
                        b.torn_items.sort_unstable();
                        let mut wrong = wrong;
                        wrong.extend(b.torn_items.iter().copied());
                        rows = rows_of(page, &b, &wrong, absolute, endian, rel, held.as_ref());
                    }
                    stale_evidence(&mut b, &rows);
                }
            } else if !header_older {
                stale_evidence(&mut b, &rows);
            }
            // An older header's line pointers lead to other tuples than the page's rows are
            // under: the stale versions are named where the rebuilt array reads them.
            let rebuilt = if header_older {
                let r = rebuild_header_older(page, absolute, endian, rel, held.as_ref(), &mut b);
                stale_evidence(&mut b, r.as_ref().unwrap_or(&rows));
                r
            } else {
                None
            };
            let was_rebuilt = rebuilt.is_some();
            if let Some(r) = rebuilt {
                rows = r;
            }
            // Random bytes over part of the page read as a tear (line pointers into
            // bytes that are no tuple) or as no single cause: named as what they are, and
            // every tuple they cover counted as lost. Looked for before the rows a tear
            // leaves elsewhere on the page: noise is no write of the page, and an older
            // copy of a tuple it covers, left in the free space, is no row to read instead.
            if row.status == PageStatus::Mismatch
                && matches!(b.damage, Damage::Torn | Damage::Checksum)
                && b.torn_rebuilt.is_empty()
                && b.torn_moved.is_empty()
            {
                // What the tear's look at the sectors took is the noise's to say.
                let wrong: BTreeSet<u16> = row
                    .structure
                    .iter()
                    .filter(|f| {
                        !matches!(
                            f.finding,
                            Finding::HeapRootIsHeapOnly | Finding::TornSectors
                        )
                    })
                    .filter_map(|f| f.item)
                    .chain(garbled.iter().copied())
                    .collect();
                let covered = noise_over(page, absolute, endian, &wrong, &mut b);
                if !covered.is_empty() {
                    let wrong: BTreeSet<u16> =
                        wrong.iter().chain(covered.iter()).copied().collect();
                    rows = rows_of(page, &b, &wrong, absolute, endian, rel, held.as_ref());
                }
            }
            // Over noise too: a tuple it covers may have an older copy elsewhere on the page.
            if !was_rebuilt
                && (b.damage == Damage::Torn
                    || (b.damage == Damage::Overwritten && !b.noise.is_empty()))
            {
                if let Some(mut moved) = moved_rows(page, absolute, endian, &mut b) {
                    // A tuple found elsewhere whose values do not decode there (a text
                    // running into the bytes of another write) is no row: the rebuild
                    // would keep bytes the server then fails on.
                    let undecoded = garbled_tuples(
                        &crate::am::torn_view(page, endian, &moved),
                        endian,
                        rel.columns.as_deref(),
                    );
                    let undecoded: BTreeSet<u16> = moved
                        .iter()
                        .map(|m| m.0)
                        .filter(|lp| undecoded.contains(lp))
                        .collect();
                    if !undecoded.is_empty() {
                        moved.retain(|m| !undecoded.contains(&m.0));
                        b.torn_moved.retain(|m| !undecoded.contains(&m.lp));
                        b.torn_items.extend(undecoded.iter().copied());
                        b.torn_items.sort_unstable();
                        b.torn_items.dedup();
                        let one = undecoded.len() == 1;
                        b.evidence.push(format!(
                            "{} {}: the {} found at another place {} bytes that are no value of the table's columns (invalid text, a length past the tuple): {} no row, {} lost",
                            if one { "line pointer" } else { "line pointers" },
                            crate::words::run_texts(&undecoded.iter().copied().collect::<Vec<_>>()).join(", "),
                            if one { "tuple" } else { "tuples" },
                            if one { "holds" } else { "hold" },
                            if one { "it is" } else { "they are" },
                            if one { "its row" } else { "their rows" },
                        ));
                    }
                    // The rows read where their tuples are; what amcheck said of the bytes
                    // at their own places is not about them.
                    // So is what it said of a redirect into one of them: it named the bytes
                    // at the target's own place, not the tuple the view puts there.
                    let lps: BTreeSet<u16> = moved.iter().map(|m| m.0).collect();
                    let into_moved: BTreeSet<u16> = crate::am::page_line_pointers(page, endian)
                        .iter()
                        .filter(|id| {
                            id.flags == crate::page::fields::LP_REDIRECT && lps.contains(&id.off)
                        })
                        .map(|id| id.lp)
                        .collect();
                    let wrong: BTreeSet<u16> = structure_wrong
                        .iter()
                        .chain(b.torn_items.iter())
                        .copied()
                        .filter(|lp| !lps.contains(lp) && !into_moved.contains(lp))
                        .collect();
                    let view = crate::am::torn_view(page, endian, &moved);
                    rows = rows_of(&view, &b, &wrong, absolute, endian, rel, held.as_ref());
                }
            }
            // What the first look found holds where the final view reads the same line
            // pointers: not through an array rebuilt from the tuples, nor at moved rows.
            for r in reused
                .into_iter()
                .filter(|r| b.torn_rebuilt.is_empty() && !b.torn_moved.iter().any(|m| m.lp == r.lp))
            {
                if !rows.reused.iter().any(|x| x.lp == r.lp) {
                    rows.reused.push(r);
                }
            }
            if !b.torn_sectors.is_empty() {
                // rows and repair --torn leave them out too, wherever the tuple was read.
                for r in &rows.reused {
                    b.torn_moved.retain(|m| m.lp != r.lp);
                    if !b.torn_items.contains(&r.lp) {
                        b.torn_items.push(r.lp);
                    }
                }
                b.torn_items.sort_unstable();
            }
            moved_evidence(&mut b);
            reused_evidence(&mut b, &rows);
            b.rows = Some(rows);
            if b.damage == Damage::Torn && b.torn_rebuilt.is_empty() {
                // The rebuild keeps no tuple whose values are garbage.
                let more: Vec<u16> = garbled
                    .iter()
                    .copied()
                    .filter(|lp| {
                        !b.torn_items.contains(lp) && !b.torn_moved.iter().any(|m| m.lp == *lp)
                    })
                    .collect();
                b.torn_items.extend(more);
                b.torn_items.sort_unstable();
            }
            if !b.torn_sectors.is_empty() {
                // The step offers the rebuild only where it builds a page.
                b.torn_refused =
                    crate::damage::repair::torn_rebuilt(page, endian, &b.torn_write()).err();
            }
        }
        if let Some(fix) = &b.header_field {
            let words = header_field_evidence(fix, b.rows.as_ref(), header_is_sane(page, endian));
            b.evidence.splice(0..0, words);
        }
        out.push(b);
    }
    out
}

/// Runs of random-looking bytes over a heap page whose header is sane
/// (`crate::damage::noise`), when they explain its damage: each run reaches bytes that no
/// sound tuple holds (a tuple no check found wrong, whose bytes a column may store as they
/// are), no tuple header of another write of the page lies just before it (an older write's
/// uncompressed value), and on a page read as torn every torn sector meets a run. Then the
/// block is `overwritten`, its runs named, and the line pointers whose tuples a run covers
/// join `torn_items` (what `rows` and `repair --torn` leave out); returns them. Returns
/// nothing, and changes nothing, otherwise.
fn noise_over(
    page: &[u8],
    absolute: u32,
    endian: Endian,
    wrong: &BTreeSet<u16>,
    b: &mut Block,
) -> BTreeSet<u16> {
    use crate::damage::noise::{random_runs, Run};
    use crate::page::bufpage::SIZE_OF_PAGE_HEADER_DATA;
    const SECTOR: usize = 512;
    let items: Vec<crate::tuple::HeapItem<'_>> = crate::tuple::heap_items(page, endian).collect();
    // Line pointers, 4 bytes each from the header's end to pd_lower, are looked at too:
    // noise over them takes the rows they lead to.
    let lower = crate::page::geometry::read_u16(page, 12, endian)
        .map_or(SIZE_OF_PAGE_HEADER_DATA, usize::from);
    let lp_count = lower.saturating_sub(SIZE_OF_PAGE_HEADER_DATA) / 4;
    let sound = |at: usize| {
        items.iter().any(|i| {
            !wrong.contains(&i.lp)
                && !b.torn_items.contains(&i.lp)
                && i.off <= at
                && at < i.off.saturating_add(i.len)
        })
    };
    let runs: Vec<Run> = random_runs(page, SIZE_OF_PAGE_HEADER_DATA)
        .into_iter()
        .filter(|r| (r.start..r.end).any(|at| !sound(at)))
        .filter(|r| {
            !crate::am::unled_tuple_within(
                page,
                absolute,
                endian,
                r.start.saturating_sub(40),
                r.start,
            )
        })
        .collect();
    if runs.is_empty() {
        return BTreeSet::new();
    }
    let meets = |s: usize| {
        runs.iter().any(|r| {
            r.overlaps(
                s.saturating_mul(SECTOR),
                s.saturating_add(1).saturating_mul(SECTOR),
            )
        })
    };
    if b.damage == Damage::Torn
        && !b
            .torn_sectors
            .iter()
            .all(|&s| usize::try_from(s).is_ok_and(meets))
    {
        return BTreeSet::new();
    }
    // A run's edges are the windows', up to a few dozen bytes wider than the noise: a tuple
    // that meets only those edges is covered when a check finds it wrong.
    const EDGE: usize = 32;
    let covered_tuples: BTreeSet<u16> = items
        .iter()
        .filter(|i| {
            let end = i.off.saturating_add(i.len);
            runs.iter().any(|r| {
                let (a, z) = (r.start.saturating_add(EDGE), r.end.saturating_sub(EDGE));
                (a < z && i.off < z && a < end) || (r.overlaps(i.off, end) && wrong.contains(&i.lp))
            })
        })
        .map(|i| i.lp)
        .collect();
    let pointers: BTreeSet<u16> = (1..=lp_count)
        .filter_map(|lp| u16::try_from(lp).ok())
        .filter(|&lp| {
            let at = SIZE_OF_PAGE_HEADER_DATA
                .saturating_add(usize::from(lp).saturating_sub(1).saturating_mul(4));
            let end = at.saturating_add(4);
            runs.iter().any(|r| {
                let (a, z) = (r.start.saturating_add(EDGE), r.end.saturating_sub(EDGE));
                (a < z && at < z && a < end) || (r.overlaps(at, end) && wrong.contains(&lp))
            })
        })
        .collect();
    let covered: BTreeSet<u16> = covered_tuples.union(&pointers).copied().collect();
    b.damage = Damage::Overwritten;
    b.evidence.retain(|e| {
        !e.contains("of the page hold another write of it")
            && !e.contains("of the page are an older write")
            && e != TORN_TRUST
            && !e.starts_with("no single-bit flip")
    });
    b.torn_sectors = (0..page.len() / SECTOR)
        .filter(|&s| meets(s))
        .filter_map(|s| u32::try_from(s).ok())
        .collect();
    b.torn_items = covered.union(wrong).copied().collect();
    let spans: Vec<String> = runs.iter().map(Run::text).collect();
    b.noise = runs;
    b.evidence.push(format!(
        "about bytes {} of the page are random bytes written over it (by the storage, its controller, memory or a stray write). In each 64 of them nearly every byte value differs, as in noise, where a page's own bytes repeat values far more, and no write of the page holds them: this is not a torn write. The page's header is its own",
        crate::words::and_list(&spans)
    ));
    let lps = |set: &BTreeSet<u16>| {
        crate::words::run_texts(&set.iter().copied().collect::<Vec<_>>()).join(", ")
    };
    if !pointers.is_empty() {
        b.evidence.push(format!(
            "{} {} lie in them: where they led is lost, and with it their rows",
            if pointers.len() == 1 {
                "line pointer"
            } else {
                "line pointers"
            },
            lps(&pointers)
        ));
    }
    let tuples: BTreeSet<u16> = covered_tuples.difference(&pointers).copied().collect();
    if !tuples.is_empty() {
        b.evidence.push(format!(
            "the tuples of {} {} lie in them (each row's other bytes may still read, but none of its values can be trusted)",
            if tuples.len() == 1 { "line pointer" } else { "line pointers" },
            lps(&tuples)
        ));
    }
    if covered.is_empty() {
        b.evidence.push(String::from(
            "no tuple lies in them: they are in the page's free space, which nothing reads",
        ));
    }
    covered
}

/// A page that verifies but is older than a record the latest checkpoint wrote
/// (`crate::wal::FlushedChanges`): pd_lsn at or before that record's start, so the page
/// lacks its change. A page the server reads as new (pd_upper 0) or whose header is not
/// sane says no age, and is left to the other checks.
fn stale_block(
    page: &[u8],
    row: &PageRow,
    endian: Endian,
    flushed: &crate::wal::FlushedChanges,
    changed: &crate::wal::FlushedBlock,
    major: Option<u32>,
) -> Option<Block> {
    if row.status != PageStatus::Ok || !row.structure.is_empty() {
        return None;
    }
    let pd_lsn = changed.older_page(page, row.absolute_block, endian)?;
    let lsn = |l: u64| crate::page::lsn::lsn_text(major, l);
    let mut b = Block::blank(page, row, endian);
    b.damage = Damage::Stale;
    // To tell a backup's copy that is this very page.
    b.sector_prints = backup::sector_prints(page);
    b.evidence.push(stale_words(
        row.absolute_block,
        pd_lsn,
        changed,
        flushed.redo(),
        &lsn,
    ));
    b.evidence.push(String::from(
        "its checksum and header are valid, so the server reads it without a word and serves the older rows: deleted rows back, updates undone, index entries into it that lead to other rows",
    ));
    Some(b)
}

/// Why the page is older than its block, said from the page's pd_lsn forward: the WAL's
/// last change of the block before the redo point, the checkpoint that must have written
/// it, and the pd_lsn the page would carry then. The block's earlier records (those the page
/// holds) are left unsaid: their count and first LSN tell the reader nothing about the page.
fn stale_words(
    block: u32,
    pd_lsn: u64,
    changed: &crate::wal::FlushedBlock,
    redo: u64,
    lsn: &dyn Fn(u64) -> String,
) -> String {
    let image = changed.image.filter(|i| *i >= pd_lsn);
    let (same, other) = match image {
        Some(i) if i == changed.newest => (
            String::from(" (a full-page image of the block)"),
            String::new(),
        ),
        Some(i) => (
            String::new(),
            format!(
                " (a full-page image of the block at {} is among those changes)",
                lsn(i)
            ),
        ),
        None => (String::new(), String::new()),
    };
    format!(
        "the page's pd_lsn is {}, but the WAL changed block {block} after it: last by the record at {}{same}, which ends at {}, before the latest checkpoint's redo point {}{other}; that checkpoint wrote every page changed before its redo point, so the block on disk should carry a pd_lsn of at least {}: this page is an older version of the block (a lost write, or a stale restore)",
        lsn(pd_lsn),
        lsn(changed.newest),
        lsn(changed.newest_end),
        lsn(redo),
        lsn(changed.newest_end),
    )
}

/// An older version's rows: what the records after its pd_lsn did to them is not on it.
fn stale_rows() -> Rows {
    Rows {
        lost: None,
        readable: None,
        known_from: KnownFrom::Unknown,
        index: None,
        keys: Vec::new(),
        upper_bound: false,
        bound: Some(String::from(
            "the rows that the WAL's records after the page's pd_lsn inserted, updated or deleted are not as the server last had them; which rows, and how many, is unknown without replaying those records (pgpage recover)",
        )),
        index_entries: None,
        repeated: Vec::new(),
        stale: 0,
        stale_rows: Vec::new(),
        elsewhere: Vec::new(),
        reused: Vec::new(),
        flipped: Vec::new(),
        orphan_roots: Vec::new(),
    }
}

/// A page whose header and line pointers are the older write: the newer write's line
/// pointer array rebuilt from its tuples (`crate::am::torn_rebuild`: their lengths from the
/// table's columns, the roots of heap-only tuples from the naming index's keys), recorded
/// on the block, and its rows counted through it. None, with the reason recorded, when it
/// cannot be rebuilt: the rows are then counted from the older header, not exactly.
fn rebuild_header_older(
    page: &[u8],
    absolute: u32,
    endian: Endian,
    rel: &RelationInput,
    held: Option<&Held>,
    b: &mut Block,
) -> Option<Rows> {
    let rebuilt = match rel.columns.as_deref() {
        None => Err(String::from(
            "the table's columns are not known (no catalog read), and without them neither are its tuples' lengths",
        )),
        Some(columns) => {
            let attrs: Vec<crate::tuple::Attribute> =
                columns.iter().map(|c| c.attribute.clone()).collect();
            let ix = naming_index(&rel.indexes);
            let which = ix.and_then(|ix| key_positions(ix, columns));
            let writer = crate::cluster::rows::RowWriter::new(
                columns.to_vec(),
                crate::cluster::rows::RowFormat::Json,
                endian,
                false,
            );
            let roots = |tuple: &[u8]| -> Vec<u16> {
                let (Some(ix), Some(which)) = (ix, which.as_deref()) else {
                    return Vec::new();
                };
                let Some(key) = writer.column_texts(tuple, which) else {
                    return Vec::new();
                };
                ix.entries
                    .iter()
                    .filter(|e| e.block == absolute && !e.dead && e.keys.as_ref() == Some(&key))
                    .map(|e| e.offset)
                    .collect::<BTreeSet<u16>>()
                    .into_iter()
                    .collect()
            };
            let referenced = held.map(|h| h.offsets.clone()).unwrap_or_default();
            crate::am::torn_rebuild(page, absolute, endian, &attrs, &roots, &referenced)
        }
    };
    let mut items = match rebuilt {
        Ok(items) => items,
        Err(why) => {
            b.evidence.push(format!(
                "the newer write's line pointers cannot be rebuilt from its tuples ({why}): its rows are counted through the older header, which may miss rows whose tuples are on the page"
            ));
            b.evidence.push(String::from(HEADER_OLDER_TRUST));
            b.torn_not_rebuilt = Some(why);
            return None;
        }
    };
    use crate::page::fields::{LP_DEAD, LP_NORMAL, LP_REDIRECT};
    // A tuple the tiling placed whose values do not decode (its length read from bytes of
    // the other write, a text running into another tuple's header) is no row: kept, the
    // server would serve its bytes and fail on them, so it is dead as a torn one is.
    let garbled = garbled_tuples(
        &crate::am::with_line_pointers(page, endian, &items),
        endian,
        rel.columns.as_deref(),
    );
    let made_dead = |lp: u16| crate::page::bufpage::LinePointer {
        lp,
        lp_off: 0,
        lp_flags: LP_DEAD,
        lp_len: 0,
    };
    for i in items
        .iter_mut()
        .filter(|i| i.lp_flags == LP_NORMAL && garbled.contains(&i.lp))
    {
        *i = made_dead(i.lp);
    }
    // A redirect to a tuple so left dead leads to no row either.
    let gone: BTreeSet<u16> = items
        .iter()
        .filter(|i| i.lp_flags != LP_NORMAL)
        .map(|i| i.lp)
        .collect();
    for i in items
        .iter_mut()
        .filter(|i| i.lp_flags == LP_REDIRECT && gone.contains(&i.lp_off))
    {
        *i = made_dead(i.lp);
    }
    let count = |flags: u8| items.iter().filter(|i| i.lp_flags == flags).count() as u64;
    let dead: BTreeSet<u16> = items
        .iter()
        .filter(|i| i.lp_flags == LP_DEAD)
        .map(|i| i.lp)
        .collect();
    b.evidence.push(format!(
        "pgpage rebuilt the newer write's line pointers from its tuples: {}, {} redirected to {} newest {}{}. It reads the rows through them, and repair --torn writes them. (Each tuple that tiles the page from its end goes under the line pointer its t_ctid names, or, for a version updated since, the one the table's unique index names.)",
        crate::words::plural(count(LP_NORMAL), "tuple", "tuples"),
        crate::words::plural(count(LP_REDIRECT), "HOT root", "HOT roots"),
        if count(LP_REDIRECT) == 1 { "its" } else { "their" },
        if count(LP_REDIRECT) == 1 { "version" } else { "versions" },
        if dead.is_empty() {
            String::new()
        } else {
            format!(
                ", {} of the older header or of index entries that the newer write holds no tuple for made LP_DEAD",
                crate::words::plural(dead.len() as u64, "line pointer", "line pointers")
            )
        },
    ));
    let undecoded: Vec<u16> = garbled
        .iter()
        .copied()
        .filter(|lp| items.iter().any(|i| i.lp == *lp && i.lp_flags == LP_DEAD))
        .collect();
    if !undecoded.is_empty() {
        let one = undecoded.len() == 1;
        b.evidence.push(format!(
            "{} {}: the {} the rebuild placed there {} bytes that are no value of the table's columns (invalid text, a length past the tuple): made LP_DEAD, {} lost",
            if one { "line pointer" } else { "line pointers" },
            crate::words::run_texts(&undecoded).join(", "),
            if one { "tuple" } else { "tuples" },
            if one { "holds" } else { "hold" },
            if one { "its row" } else { "their rows" },
        ));
    }
    b.torn_items = Vec::new();
    b.torn_newest = Vec::new();
    b.torn_moved = Vec::new();
    b.torn_rebuilt = items;
    let view = b.torn_write().view(page, endian);
    Some(rows_of(&view, b, &dead, absolute, endian, rel, held))
}

/// A torn page's rows whose tuples lie at other places in its older sectors, recorded on the
/// block with what that means; None when there are none.
fn moved_rows(
    page: &[u8],
    absolute: u32,
    endian: Endian,
    b: &mut Block,
) -> Option<Vec<(u16, u16)>> {
    let moved = crate::am::torn_moved(page, absolute, endian, &b.torn_sectors);
    if moved.is_empty() {
        return None;
    }
    let places: BTreeMap<u16, u16> = heap_line_offsets(page, endian);
    b.torn_items
        .retain(|lp| !moved.iter().any(|(m, _)| m == lp));
    b.torn_moved = moved
        .iter()
        .map(|&(lp, off)| MovedTuple {
            lp,
            lp_off: off,
            at_lp: places.get(&off).copied(),
        })
        .collect();
    Some(moved)
}

/// What the tuples `moved_rows` found at other places mean, said once they are final.
fn moved_evidence(b: &mut Block) {
    if b.torn_moved.is_empty() {
        return;
    }
    let shown: Vec<String> = b
        .torn_moved
        .iter()
        .take(3)
        .map(|m| match m.at_lp {
            Some(at) => format!(
                "lp {}'s tuple at offset {}, where lp {at} points",
                m.lp, m.lp_off
            ),
            None => format!("lp {}'s tuple at offset {}", m.lp, m.lp_off),
        })
        .collect();
    let more = b.torn_moved.len().saturating_sub(shown.len());
    b.evidence.push(format!(
        "{} lie at other places on the page, found by the t_ctid each tuple keeps ({}{}). Pruning compacts a page by copying its tuples and leaves the old bytes behind; pgpage reads the rows there",
        if b.torn_moved.len() == 1 {
            String::from("the tuple of 1 row")
        } else {
            format!("the tuples of {} rows", b.torn_moved.len())
        },
        shown.join(", "),
        if more > 0 { format!(", and {more} more") } else { String::new() },
    ));
    b.evidence.push(String::from(
        "under ignore_checksum_failure the server reads each line pointer where it points: a sequential scan returns those rows under other ctids (and versions the newer write had removed), and an index scan for one of them returns another row or none",
    ));
}

/// Each normal line pointer's tuple offset, by offset.
fn heap_line_offsets(page: &[u8], endian: Endian) -> BTreeMap<u16, u16> {
    heap_items(page, endian)
        .filter_map(|i| Some((u16::try_from(i.off).ok()?, i.lp)))
        .collect()
}

/// At most this many keys named in a sentence; the rest are counted (the JSON lists all).
const KEYS_NAMED: usize = 5;

/// `key 351 at (21,42), key 352 at (21,49), …, and 37 more`.
fn keys_at(rows: &[StaleRow]) -> String {
    let named: Vec<String> = rows
        .iter()
        .take(KEYS_NAMED)
        .map(|r| {
            if r.keys.is_empty() {
                format!("a row at {}", r.live_at)
            } else {
                format!("key {} at {}", keys::key_text(&r.keys), r.live_at)
            }
        })
        .collect();
    let more = rows.len().saturating_sub(named.len());
    if more > 0 {
        format!("{}, and {more} more", named.join(", "))
    } else {
        named.join(", ")
    }
}

/// The block's first-ranked bit flip when it lies in the page header (PageHeaderData) and
/// makes the page structurally sound: the page's rows are then read through it.
fn header_flip(b: &Block) -> Option<crate::damage::bitflip::PageBit> {
    let c = b
        .bit_flips
        .first()
        .filter(|_| b.damage == Damage::BitFlip)?;
    (usize::try_from(c.byte).ok()? < crate::page::bufpage::SIZE_OF_PAGE_HEADER_DATA
        && c.structurally_valid
        && c.item.is_none())
    .then_some(crate::damage::bitflip::PageBit {
        offset: c.byte,
        bit: c.bit,
    })
}

/// Whether the block's first-ranked bit flip, in line pointer `lp`'s tuple, gives it the
/// key `index_key` the index holds for it (a one-column key: the flip changes one value).
fn flip_gives_back(b: &Block, lp: u16, index_key: &[Option<String>]) -> bool {
    b.damage == Damage::BitFlip
        && b.bit_flips.first().is_some_and(|c| {
            c.item == Some(lp)
                && c.flipped.is_some()
                && index_key.len() == 1
                && index_key.first().and_then(|k| k.as_deref()) == c.flipped.as_deref()
        })
}

/// What stale versions on a page say: each key live elsewhere.
fn reused_evidence(b: &mut Block, rows: &Rows) {
    for r in &rows.flipped {
        let plain = format!(
            "{} holds key {} where the index names {}: the first-ranked flip gives it that key back, so the row is this line pointer's, one bit of its key changed; it counts as readable, its key as the flip gives it",
            r.ctid,
            keys::key_text(&r.keys),
            keys::key_text(&r.index_keys)
        );
        b.said_keys.push((
            plain.clone(),
            format!(
                "{} holds another key than the index names: the first-ranked flip gives it that key back, so the row is this line pointer's, one bit of its key changed; it counts as readable, its key as the flip gives it",
                r.ctid
            ),
        ));
        b.evidence.push(plain);
    }
    // A line pointer that leads to another one's tuple is itself damaged: said as such, and
    // not as an older write's tuple.
    for r in rows.reused.iter().filter(|r| r.shares.is_some()) {
        let other = r.shares.unwrap_or_default();
        let block = r
            .ctid
            .split(',')
            .next()
            .unwrap_or("(")
            .trim_start_matches('(');
        let plain = format!(
            "line pointer {} leads to the tuple line pointer {other} leads to too, the row of key {} (its t_ctid ({block},{other})), where the index names {} at {}",
            r.lp,
            keys::key_text(&r.keys),
            keys::key_text(&r.index_keys),
            r.ctid
        );
        b.said_keys.push((
            plain.clone(),
            format!(
                "line pointer {} leads to the tuple line pointer {other} leads to too, another row than the index names at {}",
                r.lp, r.ctid
            ),
        ));
        b.evidence.push(format!(
            "{plain}: two line pointers never share a tuple, so line pointer {}'s own bytes are damaged (its lp_off, as a flipped bit changes it), and the row the index names there is not where it points; it counts as lost until the line pointer is repaired",
            r.lp
        ));
    }
    let reused: Vec<ReusedRow> = rows
        .reused
        .iter()
        .filter(|r| r.shares.is_none())
        .cloned()
        .collect();
    let rows = &Rows {
        reused,
        ..rows.clone()
    };
    let n = rows.reused.len();
    if n == 0 {
        return;
    }
    // Tuples no entry leads to, by key; then tuples under a line pointer the index gives
    // to another key.
    let mut parts: Vec<String> = Vec::new();
    let unled: Vec<&ReusedRow> = rows
        .reused
        .iter()
        .filter(|r| r.index_keys.is_empty())
        .collect();
    if !unled.is_empty() {
        let named: Vec<String> = unled
            .iter()
            .take(KEYS_NAMED)
            .map(|r| {
                let plain = format!("key {} at {}", keys::key_text(&r.keys), r.ctid);
                b.said_keys
                    .push((plain.clone(), format!("a tuple at {}", r.ctid)));
                plain
            })
            .collect();
        let more = unled.len().saturating_sub(named.len());
        parts.push(format!(
            "{}{}: no entry of the primary key leads to {}",
            named.join(", "),
            if more > 0 {
                format!(", and {more} more")
            } else {
                String::new()
            },
            if unled.len() == 1 { "it" } else { "them" }
        ));
    }
    for r in rows
        .reused
        .iter()
        .filter(|r| !r.index_keys.is_empty())
        .take(KEYS_NAMED)
    {
        let plain = format!(
            "{} holds key {} where the index names {}",
            r.ctid,
            keys::key_text(&r.keys),
            keys::key_text(&r.index_keys)
        );
        b.said_keys.push((
            plain.clone(),
            format!("{} holds another row's key than the index names", r.ctid),
        ));
        parts.push(plain);
    }
    let list = parts.join("; ");
    b.evidence.push(if n == 1 {
        format!(
            "1 tuple is an older write's row, deleted or moved since ({list}): VACUUM removed its index entry, and a newer write may have given its line pointer to another row. It counts as neither readable nor lost; rows and repair --torn leave it out"
        )
    } else {
        format!(
            "{n} tuples are an older write's rows, deleted or moved since ({list}): VACUUM removed their index entries, and a newer write may have given their line pointers to other rows. They count as neither readable nor lost; rows and repair --torn leave them out"
        )
    });
}

fn stale_evidence(b: &mut Block, rows: &Rows) {
    for r in rows.elsewhere.iter().chain(&rows.stale_rows) {
        if !r.keys.is_empty() {
            b.said_keys.push((
                format!("key {} at {}", keys::key_text(&r.keys), r.live_at),
                format!("a row at {}", r.live_at),
            ));
        }
    }
    if !rows.elsewhere.is_empty() {
        let n = rows.elsewhere.len();
        b.evidence.push(if n == 1 {
            format!(
                "1 index entry into this block names an older version of a row updated since, live elsewhere ({}): that row is not lost",
                keys_at(&rows.elsewhere)
            )
        } else {
            format!(
                "{n} index entries into this block name older versions of rows updated since, live elsewhere ({}): those rows are not lost",
                keys_at(&rows.elsewhere)
            )
        });
    }
    let (lost, live): (Vec<StaleRow>, Vec<StaleRow>) =
        rows.stale_rows.iter().cloned().partition(|r| r.newest_lost);
    if !live.is_empty() {
        let n = live.len();
        b.evidence.push(if n == 1 {
            format!(
                "the row at {} is an older version of a row live elsewhere ({}), as a torn write or a page from an older copy leaves it: it counts as neither readable nor lost",
                live.first().map(|r| r.ctid.as_str()).unwrap_or_default(),
                keys_at(&live)
            )
        } else {
            format!(
                "{n} rows here are older versions of rows live elsewhere ({}), as a torn write or a page from an older copy leaves them: they count as neither readable nor lost",
                keys_at(&live)
            )
        });
    }
    if !lost.is_empty() {
        let n = lost.len();
        let at: Vec<String> = lost.iter().map(|r| r.ctid.clone()).collect();
        b.evidence.push(format!(
            "{} an older version of a lost row ({}): the index leads to a newer version at a line pointer this page's header does not have, which the damage took. {} not counted readable; rows --include-damaged gives the older {}, not the row as it was",
            if n == 1 {
                format!("the row at {} is", crate::words::and_list(&at))
            } else {
                format!("the rows at {} are", crate::words::and_list(&at))
            },
            keys_at(&lost),
            if n == 1 { "It is" } else { "They are" },
            if n == 1 { "version" } else { "versions" },
        ));
    }
}

/// How the first older sector of a torn page was found.
const TORN_BY_TUPLES: &str = "line pointers point there at tuples that are not the ones they describe (zeros, a header that breaks t_hoff's rule, or a t_ctid that is not the tuple's own although nothing updated it)";
const TORN_BY_STALE: &str =
    "tuples there are older versions of rows that read elsewhere (each named in this block's evidence)";
const TORN_BY_BOTH: &str = "line pointers point there at tuples that are not the ones they describe, or at older versions of rows that read elsewhere (each named in this block's evidence)";

/// What a tuple in a torn page's older sectors is worth, and the heap-only tuples outside.
const TORN_TRUST: &str = "how its rows are counted: a tuple in those sectors counts as lost even when it reads whole, since the newer write may have deleted or updated it (so the count is an upper bound). A row the older write holds at another place, found by its own t_ctid, reads there, unless the table's unique index knows a newer version of it or has no entry for it. A heap-only tuple outside those sectors that nothing leads to is its row's newest version: a sequential scan returns it, an index scan does not. Later sectors may be older too";

/// The sentence naming a torn page's older sectors.
/// The kinds of records after an image, each with its count where it repeats and what it did
/// to the page's rows, in the order they first come: `12 x Heap/HOT_UPDATE (changes rows)`.
fn later_kinds(later: &[LaterRecord]) -> Vec<String> {
    let mut kinds: Vec<(String, usize)> = Vec::new();
    for l in later {
        let k = format!("{} ({})", l.record, l.effect.words());
        match kinds.iter_mut().find(|(x, _)| *x == k) {
            Some((_, n)) => *n = n.saturating_add(1),
            None => kinds.push((k, 1)),
        }
    }
    kinds
        .into_iter()
        .map(|(k, n)| if n == 1 { k } else { format!("{n} x {k}") })
        .collect()
}

/// How a page torn in its first sector counts its rows when the newer write's line pointers
/// cannot be rebuilt.
const HEADER_OLDER_TRUST: &str = "how its rows are counted: an index entry into a line pointer the header calls unused, or does not have, leads to a row the tear took (its newest version is on the page, under no line pointer); a HOT root whose update the header does not know is an older version of its row, not the row";

/// The evidence that a page's header and line pointers (sector 0) are an older write than
/// its tuples, in one sentence: the line pointers its tuples name that it lacks, and the HOT
/// links past its array, a few named and the rest counted.
fn header_older_words(older: &crate::am::HeaderOlder) -> String {
    const SHOWN: usize = 4;
    let mut why: Vec<String> = Vec::new();
    if !older.named.is_empty() {
        let (past, unused): (Vec<u16>, Vec<u16>) =
            older.named.iter().partition(|&&lp| lp > older.header_items);
        let mut parts: Vec<String> = Vec::new();
        if !past.is_empty() {
            parts.push(format!(
                "{} {}, which it does not have (it has {})",
                if past.len() == 1 {
                    "line pointer"
                } else {
                    "line pointers"
                },
                crate::words::run_texts(&past).join(", "),
                older.header_items
            ));
        }
        if !unused.is_empty() {
            parts.push(format!(
                "{} {}, which it calls unused",
                if unused.len() == 1 {
                    "line pointer"
                } else {
                    "line pointers"
                },
                crate::words::run_texts(&unused).join(", ")
            ));
        }
        why.push(format!(
            "tuples nothing updated name, in their t_ctid, {}",
            parts.join(", and ")
        ));
    }
    if !older.links.is_empty() {
        let named: Vec<String> = older
            .links
            .iter()
            .take(SHOWN)
            .map(|(root, to)| format!("lp {root} to lp {to}"))
            .collect();
        let more = older.links.len().saturating_sub(SHOWN);
        why.push(format!(
            "{} past its array ({}{})",
            crate::words::plural(older.links.len(), "HOT update leads", "HOT updates lead"),
            named.join(", "),
            if more > 0 {
                format!(", and {more} more")
            } else {
                String::new()
            }
        ));
    }
    format!(
        "sector 0 of the page, its header and line pointers, is an older write than its tuples (a torn write): {}; a page written whole never shows that",
        why.join("; ")
    )
}

fn torn_words(sectors: &[u32], found: &str) -> String {
    // Tuples that are not what the line pointers describe say two writes met on the page,
    // not which was the older; older versions of rows live elsewhere say it, but only where
    // the line pointers lead to nothing else: an older header's line pointers into a newer
    // write's tuples (moved by pruning since) show the same mix.
    if found == TORN_BY_TUPLES || found == TORN_BY_BOTH {
        return format!(
            "{} of the page hold another write of it than sector 0, which holds the header and line pointers: a torn write, or a copy of another version of the page. The evidence: {found}. Which of the two writes is the older, the page does not show",
            sector_list(sectors),
        );
    }
    format!(
        "{} of the page are an older write of it (a torn write, or an older copy of the page): {found}; sector 0 holds the header and line pointers, which are the newer write's",
        sector_list(sectors),
    )
}

/// The damage class of one page, with its evidence; None for a page that is not damaged.
/// What classify knows of the page's relation: its columns (for the values a flip
/// touches), its name as the server's messages quote it, and its relfrozenxid.
struct Table<'a> {
    columns: Option<&'a [Column]>,
    relation: &'a str,
    relfrozenxid: Option<u32>,
    next_xid: Option<u32>,
    /// The naming index's entries into the block (`flips::IndexKeys`).
    index: Option<crate::damage::flips::IndexKeys<'a>>,
}

fn classify(
    page: &[u8],
    row: &PageRow,
    endian: Endian,
    table: &Table<'_>,
    zero_between_rows: bool,
    index_holds: bool,
) -> Option<Block> {
    let (columns, relation, relfrozenxid) = (table.columns, table.relation, table.relfrozenxid);
    let absolute = row.absolute_block;
    let mut b = Block::blank(page, row, endian);
    match row.status {
        PageStatus::Zero => {
            let refused: Vec<_> = row
                .structure
                .iter()
                .filter(|f| f.finding.evidence() == Evidence::Server)
                .collect();
            if !refused.is_empty() {
                // An index's page: no rows of its own, but every read that reaches it fails.
                b.damage = Damage::Zeroed;
                b.evidence.push(String::from(
                    "the page is all zeros, and the index's own links (its metapage, a sibling's link or a parent's downlink) lead to it: the server refuses it on every read that reaches it",
                ));
                let mut server = Vec::new();
                for f in refused {
                    let (message, rule) = (f.message_at(absolute, relation), f.finding.rule());
                    let hint = f.finding.server_hint();
                    b.evidence.push(format!(
                        "{message} ({}, {}){}",
                        rule.file,
                        rule.function,
                        hint.map(|h| format!(", with the hint \"{h}\""))
                            .unwrap_or_default()
                    ));
                    server.push(format!("ERROR:  {message}"));
                    server.extend(hint.map(|h| format!("HINT:  {h}")));
                }
                b.server = Some(server.join("\n"));
                return Some(b);
            }
            if !zero_between_rows && !index_holds {
                return None;
            }
            b.damage = Damage::Zeroed;
            // The indexes decide it; without them, an empty page between pages with rows is
            // what relation extension leaves too.
            if index_holds {
                b.evidence.push(String::from(
                    "the page is all zeros and the table's indexes still point at rows in it: it held rows, and the server now reads it as an empty page, without an error",
                ));
            } else {
                b.evidence.push(String::from(
                    "the page is all zeros: the server reads it as an empty page, without an error",
                ));
                b.evidence.push(String::from(
                    "a later page of the relation holds rows; relation extension also leaves empty pages (several at a time under concurrent inserts and bulk loads), so this alone does not say rows were lost",
                ));
            }
            return Some(b);
        }
        PageStatus::Ok => {
            if row.structure.is_empty() {
                return None;
            }
            b.severity = Severity::Warning;
            b.damage = Damage::Structure;
            b.evidence.push(format!(
                "the checksum is valid, but amcheck's checks of the page's structure fail (pgpage inspect --block {} shows the bytes):",
                row.block
            ));
            // amcheck's own message with its numbers, and where in amcheck it is made.
            for f in &row.structure {
                let rule = f.finding.rule();
                b.evidence.push(format!(
                    "{} ({}, {})",
                    f.message_at(absolute, relation),
                    rule.file,
                    rule.function
                ));
            }
            // Unfrozen xids older than the table's relfrozenxid: VACUUM froze or removed
            // these tuples since (it advances relfrozenxid only past every xid it leaves),
            // so the page predates that VACUUM. The server still reads them.
            if row.structure.iter().all(|f| older_page_finding(f.finding)) {
                b.evidence.push(String::from(
                    "every finding is an xid older than the table's relfrozenxid: VACUUM advances relfrozenxid only once no tuple keeps an older unfrozen xid, so this page is older than that VACUUM (a lost write, or an older copy put back), not garbled. The server reads its rows as they were then: rows changed or deleted since come back as they were. Give pgpage the WAL (--wal ARCHIVE) or a base backup (--from BACKUP_DIR) to rebuild it",
                ));
            }
            return Some(b);
        }
        PageStatus::BadHeader => {
            // A checksum computed over one wrong field: the line pointers may still give it.
            if let Some(fix) = crate::page::header_field::one_field(page, absolute, endian) {
                header_field_block(&mut b, fix, page, endian);
                return Some(b);
            }
            b.damage = Damage::Header;
            let words: Vec<&str> = crate::page::verify::header_check(page, endian)
                .findings()
                .map(|f| f.message())
                .collect();
            b.evidence.push(format!(
                "the stored checksum {} is valid, but the header breaks PageIsVerified's rules: {}",
                row.stored,
                words.join("; ")
            ));
            return Some(b);
        }
        PageStatus::NewNotZero => {
            if let Some(fix) = crate::page::header_field::one_field(page, absolute, endian) {
                header_field_block(&mut b, fix, page, endian);
                return Some(b);
            }
            b.damage = Damage::Overwritten;
            b.evidence.push(String::from(
                "pd_upper is 0, which only a new (all-zero) page has, but the page is not all zeros: not a PostgreSQL page",
            ));
            return Some(b);
        }
        PageStatus::Mismatch => {}
    }
    // The stored and computed checksums are not restated here: the server's WARNING, printed
    // with every refused block, gives both.
    if let Some(m) = row.misplaced {
        if m.is_claim() || row.tuple_block == Some(m.block) {
            b.damage = Damage::Misplaced;
            b.holds_block = Some(m.block);
            b.evidence.push(format!(
                "the page holds block {}: {}",
                m.block,
                match m.finding {
                    Finding::MisplacedByTupleIds =>
                        "its checksum is valid for that block and its tuples' ctids name it",
                    Finding::MisplacedBySiblingLinks =>
                        "its checksum is valid for that block and its neighbours' sibling links name it",
                    _ => "its checksum is valid for that block",
                }
            ));
            if m.finding == Finding::MisplacedByTupleIds && header_is_sane(page, endian) {
                b.evidence.push(format!(
                    "under ignore_checksum_failure the server reads block {}'s rows here: an index scan for a row of this block reaches the row block {} holds at the same line pointer, another row, and a sequential scan returns block {}'s rows twice",
                    m.block, m.block, m.block
                ));
            }
            return Some(b);
        }
    }
    let sane = header_is_sane(page, endian);
    // A header field set to another value still in range: the checksum and the line pointers
    // both name the value it had.
    if let Some(fix) = crate::page::header_field::one_field_in_range(page, absolute, endian) {
        header_field_block(&mut b, fix, page, endian);
        return Some(b);
    }
    if sane {
        let flagged: Vec<u16> = row.structure.iter().filter_map(|f| f.item).collect();
        let told = crate::damage::flips::tell_with(
            page,
            absolute,
            endian,
            &crate::damage::flips::Known {
                columns,
                relfrozenxid,
                flagged: &flagged,
                next_xid: table.next_xid,
                index: table.index,
            },
        );
        // Sectors of another version are not undone by one bit: with them, a flip counts
        // only when the flipped page shows no torn sector either (a flip in a t_ctid can
        // make one tuple look torn; a chance match cannot explain a tear).
        let (torn, _) = crate::am::torn_write(page, absolute, endian);
        let valid: Vec<_> = told
            .candidates
            .iter()
            .filter(|c| c.structurally_valid)
            .filter(|c| {
                torn.is_empty()
                    || crate::am::torn_write(
                        &crate::damage::bitflip::PageBit {
                            offset: c.byte,
                            bit: c.bit,
                        }
                        .apply(page),
                        absolute,
                        endian,
                    )
                    .0
                    .is_empty()
            })
            .collect();
        // Candidates whose flipped-back page PostgreSQL could not have written match by
        // chance: said, so that no one applies them.
        let rejected: Vec<String> = told
            .candidates
            .iter()
            .filter(|c| c.breaks_rule)
            .map(|c| format!("byte {} bit {}: {}", c.byte, c.bit, c.why))
            .collect();
        let rejected = (!rejected.is_empty()).then(|| rejected.join("; "));
        if !valid.is_empty() {
            b.damage = Damage::BitFlip;
            b.evidence.push(told.odds.clone());
            if let Some(words) = &rejected {
                b.evidence.push(format!(
                    "not the damage, each breaking a rule PostgreSQL keeps: {words}"
                ));
            }
            for c in valid {
                b.bit_flips.push(c.clone());
            }
            return Some(b);
        }
        if !torn.is_empty() {
            b.damage = Damage::Torn;
            let older = crate::am::header_older(page, absolute, endian);
            if torn == [0] && !older.is_empty() {
                b.evidence.push(header_older_words(&older));
            } else {
                b.evidence.push(torn_words(&torn, TORN_BY_TUPLES));
                b.evidence.push(String::from(TORN_TRUST));
            }
            b.torn_sectors = torn;
            b.torn_items = crate::am::torn_write(page, absolute, endian).1;
            return Some(b);
        }
        if let Some(words) = &rejected {
            b.evidence.push(format!(
                "{}. None of them is the damage, each breaking a rule PostgreSQL keeps: {words}",
                told.odds
            ));
        }
        b.evidence.push(String::from(
            "no single-bit flip, other block or torn sector explains the mismatch",
        ));
        return Some(b);
    }
    if let Some(fix) = crate::page::header_field::one_field(page, absolute, endian) {
        header_field_block(&mut b, fix, page, endian);
        return Some(b);
    }
    b.damage = Damage::Overwritten;
    let words: Vec<&str> = crate::page::verify::header_check(page, endian)
        .findings()
        .map(|f| f.message())
        .collect();
    b.evidence.push(format!(
        "the header is not a PostgreSQL page header ({}): its line pointers and counts mean nothing",
        words.join("; ")
    ));
    Some(b)
}

/// A page one header field away from the one the server wrote: its class, the fix, and its
/// pd_lsn read through the fixed header. The evidence waits for the rows
/// ([`header_field_evidence`]).
fn header_field_block(
    b: &mut Block,
    fix: crate::page::header_field::FieldFix,
    page: &[u8],
    endian: Endian,
) {
    b.damage = Damage::HeaderField;
    b.page_lsn = crate::damage::diff::page_lsn(&fix.apply(page, endian), endian);
    b.header_field = Some(fix);
}

/// What a `header_field` block's evidence says: the field, the value the checksum (or the
/// line pointers) give it, and what is intact, counted as the rows count it (`rows`) or, on
/// an index's page, as entries.
fn header_field_evidence(
    fix: &crate::page::header_field::FieldFix,
    rows: Option<&Rows>,
    in_range: bool,
) -> Vec<String> {
    use crate::page::header_field::HeaderField;
    let name = fix.field.name();
    let intact = match rows.and_then(|r| r.readable) {
        Some(n) => plural(n, "row", "rows"),
        None if rows.is_some() => String::from("rows"),
        None => plural(fix.items, "entry", "entries"),
    };
    let lp_words = match fix.field {
        HeaderField::PdUpper => "the lowest tuple's offset",
        HeaderField::PdLower => "the end of its line pointer array",
        HeaderField::PdSpecial => "the end of its highest tuple, MAXALIGNed",
    };
    let agree = match fix.from_line_pointers {
        Some(v) if v == fix.value => format!("; its line pointers agree ({lp_words} is {v})"),
        Some(v) => format!("; its line pointers would give {v} ({lp_words})"),
        None => String::new(),
    };
    let refused = if in_range {
        format!(
            "{name} {} is within PageIsVerified's range, so the header looks sane: the server refuses the page for its checksum, which the field's change broke",
            fix.stored
        )
    } else if fix.field == HeaderField::PdUpper && fix.stored == 0 {
        String::from(
            "with pd_upper 0 the server takes the page for a new one, which must be all zeros, and this one is not: it refuses it (the checksum is not even looked at)",
        )
    } else {
        format!(
            "{name} {} breaks PageIsVerified's rule pd_lower <= pd_upper <= pd_special <= the block size, pd_special MAXALIGNed: the server refuses the page",
            fix.stored
        )
    };
    let mut out = Vec::new();
    if fix.confirmed {
        out.push(format!(
            "{name} is {}; the stored checksum verifies with {name} = {}: the header's one field is damaged, its {intact} are intact",
            fix.stored, fix.value
        ));
        if fix.verifying.len() > 1 {
            let others: Vec<String> = fix
                .verifying
                .iter()
                .filter(|v| **v != fix.value)
                .map(u16::to_string)
                .collect();
            out.push(format!(
                "of the {} values {name} can take, the stored checksum also verifies with {} ({} that fit the line pointers too), but the line pointers give {} ({lp_words}): {} chance, as about {} in 65535 values are",
                fix.tried,
                crate::words::and_list(&others),
                if others.len() == 1 { "one" } else { "values" },
                fix.value,
                if others.len() == 1 { "that match is" } else { "those matches are" },
                fix.tried
            ));
        } else {
            out.push(format!(
                "of the {} values {name} can take, this one alone fits the line pointers and makes the stored checksum verify (a chance match has odds of about {} in 65535){agree}",
                fix.tried, fix.tried
            ));
        }
    } else if fix.checksummed_wrong {
        out.push(format!(
            "{name} is {}; the stored checksum is valid with that value, so the page was checksummed after the field went wrong (software wrote it so, or the checksum was recomputed since) and the checksum confirms nothing; its line pointers give {name} = {} ({lp_words}), a candidate: the header's one field is damaged, its {intact} read through it",
            fix.stored, fix.value
        ));
    } else if !fix.has_checksum {
        out.push(format!(
            "{name} is {}; the page has no checksum to confirm a value (pd_checksum is 0: data checksums were off when it was written), and its line pointers give {name} = {} ({lp_words}), a candidate, not confirmed: the header's one field is damaged, its {intact} read through it",
            fix.stored, fix.value
        ));
    } else if fix.verifying.len() > 1 {
        let values: Vec<String> = fix.verifying.iter().map(u16::to_string).collect();
        out.push(format!(
            "{name} is {}; the stored checksum verifies with {} values of it ({}), so it confirms none; {name} = {} is a candidate ({lp_words}): the header's one field is damaged, its {intact} read through it",
            fix.stored,
            values.len(),
            crate::words::and_list(&values),
            fix.value
        ));
    } else {
        out.push(format!(
            "{name} is {}; its line pointers give {name} = {} ({lp_words}), a candidate, not confirmed: no value of {name} makes the stored checksum verify, so more bytes than this field changed, and its {intact} read through it without the checksum vouching for them",
            fix.stored, fix.value
        ));
    }
    out.push(refused);
    out
}

/// Why an index count is an upper bound.
const INDEX_BOUND: &str = "an upper bound from the index: it also keeps entries of versions no snapshot sees (an aborted insert, a version VACUUM has not removed yet), which only the lost page could tell apart";

fn rows_of(
    page: &[u8],
    b: &Block,
    wrong_items: &BTreeSet<u16>,
    absolute: u32,
    endian: Endian,
    rel: &RelationInput,
    held: Option<&Held>,
) -> Rows {
    // A page's own line pointers count only when its header is sane and it is this block.
    let own = match b.damage {
        Damage::Overwritten if !b.noise.is_empty() => {
            Some(readable_offsets(page, absolute, endian, rel.log.as_deref()))
        }
        Damage::Zeroed
        | Damage::Overwritten
        | Damage::Misplaced
        | Damage::Header
        | Damage::Missing => None,
        _ if header_is_sane(page, endian) => {
            Some(readable_offsets(page, absolute, endian, rel.log.as_deref()))
        }
        _ => None,
    };
    // Rows the damaged bytes took: a torn page's tuples in the torn sectors, and items
    // amcheck finds wrong (an xmin past the next xid: no snapshot sees the row).
    let mut own = own;
    let mut damaged: BTreeSet<u16> = wrong_items.clone();
    if own.is_some() && b.damage == Damage::Torn && b.torn_rebuilt.is_empty() {
        // Rows found at their places in the older write read there, whatever its sectors.
        damaged.extend(
            crate::am::torn_write(page, absolute, endian)
                .1
                .into_iter()
                .filter(|lp| !b.torn_moved.iter().any(|m| m.lp == *lp)),
        );
    }
    if let Some(o) = own.as_mut() {
        o.retain(|lp| !damaged.contains(lp));
    }
    // An index entry names the root of its HOT chain (an LP_REDIRECT, or the oldest version
    // still on the page): the row is there when the chain, followed within the page as
    // heap_hot_search_buffer does, reaches a tuple that reads.
    let next: BTreeMap<u16, u16> = match &own {
        Some(_) => crate::damage::story::heap_lines(page, absolute, endian)
            .map(|l| {
                l.items
                    .iter()
                    .filter_map(|i| i.redirect_to.or(i.hot_next).map(|to| (i.lp, to)))
                    .collect()
            })
            .unwrap_or_default(),
        None => BTreeMap::new(),
    };
    // On a page whose header reads, an index entry's row is lost only when its chain meets
    // damaged bytes before a tuple that reads; a chain that ends in an intact dead or
    // invisible version (a deleted row, an LP_DEAD line pointer) lost nothing to the damage.
    // Ok(Some(lp)): the row reads at lp; Ok(None): nothing lost; Err: lost.
    // A torn page whose header may be older than its tuples (sector 0 torn, or sectors unlike
    // it, which write is the older the page seldom shows): an entry into a line pointer that
    // header calls unused or does not have names a version written after it, under no line
    // pointer the page shows: its row is lost. A rebuilt array has its own line pointers.
    let header_may_be_older = b.damage == Damage::Torn && b.torn_rebuilt.is_empty();
    let in_use: BTreeSet<u16> = if header_may_be_older {
        crate::am::page_line_pointers(page, endian)
            .iter()
            .filter(|id| id.flags != crate::page::fields::LP_UNUSED)
            .map(|id| id.lp)
            .collect()
    } else {
        BTreeSet::new()
    };
    let reached_own = |root: u16| -> Result<Option<u16>, ()> {
        let Some(o) = own.as_ref() else {
            return Err(());
        };
        if header_may_be_older && !in_use.contains(&root) {
            return Err(());
        }
        let mut lp = root;
        // A chain visits each line pointer once; more steps than that is a loop.
        for _ in 0..=next.len() {
            if o.contains(&lp) {
                return Ok(Some(lp));
            }
            if damaged.contains(&lp) {
                return Err(());
            }
            match next.get(&lp) {
                Some(&to) => lp = to,
                None => return Ok(None),
            }
        }
        Err(())
    };
    // A tuple whose key no entry for its line pointer carries is not that line pointer's
    // row: VACUUM removes a row's index entries before it frees the line pointer, and a
    // new row that takes it gets its own entry, so the tuple is an older write's (a torn
    // write, or a page from an older copy) under a line pointer given to another row since.
    // So is a tuple a whole primary key has no entry for, nor a chain from one leads to
    // (a row deleted and vacuumed since); a partial unique index may leave rows out.
    let (reused, flipped): (Vec<ReusedRow>, Vec<ReusedRow>) =
        match (&own, naming_index(&rel.indexes), rel.columns.as_ref()) {
            (Some(o), Some(ix), Some(cols)) if b.status == PageStatus::Mismatch.as_str() => {
                let live: Vec<&LeafEntry> = ix
                    .entries
                    .iter()
                    .filter(|e| e.block == absolute && !e.dead)
                    .filter(|e| {
                        e.keys
                            .as_ref()
                            .is_some_and(|k| k.iter().all(Option::is_some))
                    })
                    .collect();
                // Only a tuple at the entry's own line pointer is weighed against its key: a
                // chain followed through a torn page's line pointers may end in another row's
                // bytes for reasons the key cannot tell apart.
                let roots: BTreeMap<u16, u16> = live
                    .iter()
                    .filter(|e| reached_own(e.offset) == Ok(Some(e.offset)))
                    .map(|e| (e.offset, e.offset))
                    .collect();
                let whole = ix.uniqueness == 2 && ix.unreadable_pages == 0;
                // A redirect or HOT link into a tuple that is not heap-only leads to no row.
                let heads: BTreeSet<u16> = if whole {
                    heap_items(page, endian)
                        .filter(|i| o.contains(&i.lp))
                        .filter(|i| {
                            i.tuple
                                .and_then(|t| TupleHeader::read(t, endian))
                                .is_some_and(|h| {
                                    h.t_infomask2 & crate::am::heap::layout::HEAP_ONLY_TUPLE == 0
                                })
                        })
                        .filter(|i| !roots.contains_key(&i.lp))
                        .filter(|i| {
                            !ix.entries
                                .iter()
                                .any(|e| e.block == absolute && e.offset == i.lp)
                        })
                        .map(|i| i.lp)
                        .collect()
                } else {
                    BTreeSet::new()
                };
                let keys = tuple_keys(page, endian, ix, cols, |i| {
                    roots.contains_key(&i.lp) || heads.contains(&i.lp)
                });
                let normal: Vec<(u16, u16)> = crate::am::page_line_pointers(page, endian)
                    .iter()
                    .filter(|id| id.flags == crate::page::fields::LP_NORMAL && id.len > 0)
                    .map(|id| (id.lp, id.off))
                    .collect();
                let shares = |lp: u16| {
                    let off = normal.iter().find(|(l, _)| *l == lp)?.1;
                    normal
                        .iter()
                        .find(|(l, o)| *l != lp && *o == off)
                        .map(|(l, _)| *l)
                };
                let mut out: Vec<ReusedRow> = Vec::new();
                let mut flipped_keys = Vec::new();
                for (lp, key) in keys {
                    let Some(&root) = roots.get(&lp) else {
                        if key.iter().all(Option::is_some) {
                            out.push(ReusedRow {
                                keys: key,
                                ctid: format!("({absolute},{lp})"),
                                index_keys: Vec::new(),
                                lp,
                                shares: shares(lp),
                            });
                        }
                        continue;
                    };
                    let at_root: Vec<&Vec<Option<String>>> = live
                        .iter()
                        .filter(|e| e.offset == root)
                        .filter_map(|e| e.keys.as_ref())
                        .collect();
                    if key.iter().all(Option::is_some) && !at_root.contains(&&key) {
                        if let Some(first) = at_root.first() {
                            // The first-ranked flip gives this tuple the key the index holds
                            // for it: the row is this line pointer's, one bit changed.
                            if flip_gives_back(b, lp, first) {
                                flipped_keys.push(ReusedRow {
                                    keys: key,
                                    ctid: format!("({absolute},{root})"),
                                    index_keys: (*first).clone(),
                                    lp,
                                    shares: None,
                                });
                                continue;
                            }
                            out.push(ReusedRow {
                                keys: key,
                                ctid: format!("({absolute},{root})"),
                                index_keys: (*first).clone(),
                                lp,
                                shares: shares(lp),
                            });
                        }
                    }
                }
                (out, flipped_keys)
            }
            _ => (Vec::new(), Vec::new()),
        };
    let reached = |root: u16| -> Result<Option<u16>, ()> {
        match reached_own(root) {
            Ok(Some(lp)) if reused.iter().any(|r| r.lp == lp) => Err(()),
            r => r,
        }
    };
    // Heap-only tuples that read and that nothing on the page leads to: each is the newest
    // version of a row whose chain start the damage took (a torn write's older sectors).
    // Their keys tell which of the entries into the damaged bytes still have their row.
    let orphans = match (&own, naming_index(&rel.indexes), rel.columns.as_ref()) {
        (Some(o), Some(ix), Some(cols)) => {
            let led_to: BTreeSet<u16> = next.values().copied().collect();
            orphan_keys(page, endian, ix, cols, |lp| {
                o.contains(&lp) && !led_to.contains(&lp)
            })
        }
        _ => BTreeMap::new(),
    };
    // A unique index holds one live version per key: a tuple this damaged page shows live
    // whose key is live on a sound page too is an older version the damage brought back.
    let mut stale_rows: Vec<(u16, StaleRow)> = Vec::new();
    if b.status == PageStatus::Mismatch.as_str() && own.is_some() {
        if let Some(ix) = naming_index(&rel.indexes) {
            // An entry the index marked dead names a version it knows is dead: the page
            // showing that version live is the same evidence.
            for e in ix.entries.iter().filter(|e| e.block == absolute) {
                let (Ok(Some(lp)), Some(key)) = (reached(e.offset), e.keys.as_ref()) else {
                    continue;
                };
                if key.iter().any(Option::is_none) || stale_rows.iter().any(|(l, _)| *l == lp) {
                    continue;
                }
                // A heap-only tuple with the same key that nothing leads to is the row's
                // newest version: this one, read as never updated, is an older one.
                let same_page = orphans
                    .get(key)
                    .filter(|&&o| o != lp)
                    .map(|&o| (absolute, o));
                if let Some((ob, olp)) =
                    same_page.or_else(|| live_elsewhere(ix, key, absolute, rel))
                {
                    stale_rows.push((
                        lp,
                        StaleRow {
                            keys: key.clone(),
                            ctid: format!("({absolute},{lp})"),
                            live_at: format!("({ob},{olp})"),
                            lp,
                            same_page: (ob == absolute).then_some(olp),
                            newest_lost: false,
                        },
                    ));
                }
            }
        }
    }
    // An entry into a line pointer an older header does not have names a version written
    // after that header: where another entry of the same key leads to a tuple that reads,
    // that tuple is an older version of a row whose newest version the damage took.
    let newer_entry = |lp: u16| header_may_be_older && !in_use.contains(&lp);
    if b.status == PageStatus::Mismatch.as_str() && own.is_some() {
        if let Some(ix) = naming_index(&rel.indexes) {
            for e in ix
                .entries
                .iter()
                .filter(|e| e.block == absolute && !e.dead && newer_entry(e.offset))
            {
                let Some(key) = e.keys.as_ref().filter(|k| k.iter().all(Option::is_some)) else {
                    continue;
                };
                let older = ix
                    .entries
                    .iter()
                    .filter(|o| o.block == absolute && !o.dead && o.offset != e.offset)
                    .filter(|o| o.keys.as_ref() == Some(key))
                    .find_map(|o| reached(o.offset).ok().flatten());
                if let Some(lp) = older {
                    if !stale_rows.iter().any(|(l, _)| *l == lp) {
                        stale_rows.push((
                            lp,
                            StaleRow {
                                keys: key.clone(),
                                ctid: format!("({absolute},{lp})"),
                                live_at: format!("({absolute},{})", e.offset),
                                lp,
                                same_page: None,
                                newest_lost: true,
                            },
                        ));
                    }
                }
            }
        }
    }
    // A page the server refuses gives no rows to the server, but pgpage reads its sane ones;
    // a stale version is not one of its rows.
    let readable_count = own.as_ref().map(|o| {
        (o.len() as u64)
            .saturating_sub(stale_rows.len() as u64)
            .saturating_sub(reused.len() as u64)
    });
    match held {
        Some(h) => {
            let mut lost: Vec<u16> = Vec::new();
            let mut elsewhere: Vec<StaleRow> = Vec::new();
            let mut orphan_roots: Vec<(u16, u16)> = Vec::new();
            for lp in h.offsets.iter().copied().filter(|&lp| reached(lp).is_err()) {
                let key = naming_index(&rel.indexes).and_then(|ix| {
                    let e = ix
                        .entries
                        .iter()
                        .find(|e| e.block == absolute && e.offset == lp && !e.dead)?;
                    Some((ix, e.keys.clone()?))
                });
                match key {
                    // The row's newest version is a heap-only tuple that reads.
                    Some((_, k)) if orphans.contains_key(&k) => {
                        // One root per tuple: the first entry's (an older version's
                        // entry of the same key may still name another line pointer).
                        if let Some(&o) = orphans.get(&k) {
                            if !orphan_roots.iter().any(|&(_, t)| t == o) {
                                orphan_roots.push((lp, o));
                            }
                        }
                    }
                    // An older version's entry (an update without HOT): the row reads
                    // through the entry of its newer version on this page.
                    Some((ix, k))
                        if !newer_entry(lp)
                            && ix.entries.iter().any(|e| {
                                e.block == absolute
                                    && e.offset != lp
                                    && !e.dead
                                    && e.keys.as_ref() == Some(&k)
                                    && matches!(reached(e.offset), Ok(Some(_)))
                            }) => {}
                    Some((ix, k)) if k.iter().all(Option::is_some) => {
                        match live_elsewhere(ix, &k, absolute, rel) {
                            // An entry into a page that gives no rows: its row lives on.
                            Some((ob, olp)) if own.is_none() => elsewhere.push(StaleRow {
                                keys: k,
                                ctid: format!("({absolute},{lp})"),
                                live_at: format!("({ob},{olp})"),
                                lp,
                                same_page: None,
                                newest_lost: false,
                            }),
                            // An older version of a row live on a sound page.
                            Some((ob, olp)) => {
                                if !stale_rows.iter().any(|(l, _)| *l == lp) {
                                    stale_rows.push((
                                        lp,
                                        StaleRow {
                                            keys: k,
                                            ctid: format!("({absolute},{lp})"),
                                            live_at: format!("({ob},{olp})"),
                                            lp,
                                            same_page: None,
                                            newest_lost: false,
                                        },
                                    ));
                                }
                            }
                            None => lost.push(lp),
                        }
                    }
                    _ => lost.push(lp),
                }
            }
            // An older version of a lost row is counted with the lost row, not here.
            let stale = stale_rows.iter().filter(|(_, r)| !r.newest_lost).count() as u64;
            let mut stale_rows: Vec<StaleRow> = stale_rows.into_iter().map(|(_, r)| r).collect();
            if let Some(ix) = naming_index(&rel.indexes) {
                stale_rows.sort_by(|a, b| key_order(&ix.key_types, &a.keys, &b.keys));
            }
            let keys: Vec<Vec<Option<String>>> = h
                .keys_from
                .map(|ix| {
                    lost.iter()
                        .filter_map(|lp| {
                            ix.entries
                                .iter()
                                .find(|e| e.block == absolute && e.offset == *lp && !e.dead)
                                .and_then(|e| e.keys.clone())
                        })
                        .collect()
                })
                .unwrap_or_default();
            // A unique index's key names one row: entries that repeat a key are older
            // versions of the same row (updated without HOT, not yet vacuumed), so the
            // rows are the distinct keys, when every lost entry has its key.
            let unique = h.keys_from.is_some_and(|ix| ix.uniqueness > 0)
                && keys.len() == lost.len()
                && keys.iter().all(|k| k.iter().all(Option::is_some));
            let (keys, repeated, entries) = if unique {
                let mut counted: Vec<(Vec<Option<String>>, u64)> = Vec::new();
                for k in keys {
                    match counted.iter_mut().find(|(c, _)| *c == k) {
                        Some((_, n)) => *n = n.saturating_add(1),
                        None => counted.push((k, 1)),
                    }
                }
                let repeated: Vec<RepeatedKey> = counted
                    .iter()
                    .filter(|(_, n)| *n > 1)
                    .map(|(k, n)| RepeatedKey {
                        keys: k.clone(),
                        entries: *n,
                    })
                    .collect();
                let entries = (!repeated.is_empty()).then_some(lost.len() as u64);
                (
                    counted.into_iter().map(|(k, _)| k).collect(),
                    repeated,
                    entries,
                )
            } else {
                (keys, Vec::new(), None)
            };
            // In key order, as a query's ORDER BY lists them, not in the order of their TIDs.
            let types = h.keys_from.map(|ix| ix.key_types.as_slice()).unwrap_or(&[]);
            let (mut keys, mut repeated) = (keys, repeated);
            keys.sort_by(|a, b| key_order(types, a, b));
            repeated.sort_by(|a, b| key_order(types, &a.keys, &b.keys));
            let lost_rows = if unique {
                keys.len() as u64
            } else {
                lost.len() as u64
            };
            let partial = rel.indexes.iter().any(|ix| ix.unreadable_pages > 0);
            Rows {
                lost: Some(lost_rows),
                readable: Some(readable_count.unwrap_or(0)),
                known_from: KnownFrom::Index,
                index: h
                    .keys_from
                    .filter(|_| !keys.is_empty())
                    .map(|ix| ix.name.clone()),
                keys,
                // No row lost needs no bound: the count cannot be lower.
                upper_bound: lost_rows > 0,
                bound: (lost_rows > 0 || partial).then(|| {
                    if lost_rows == 0 {
                        String::from("some index pages could not be read or are older than the WAL, so rows may be missing from the count")
                    } else if partial {
                        format!("{INDEX_BOUND}; some index pages could not be read or are older than the WAL, so rows may be missing from the count too")
                    } else {
                        String::from(INDEX_BOUND)
                    }
                }),
                index_entries: entries,
                repeated,
                stale,
                stale_rows,
                elsewhere,
                reused,
                flipped: flipped.clone(),
                orphan_roots,
            }
        }
        None => {
            // An older version of a lost row is counted with the lost row, not here.
            let stale = stale_rows.iter().filter(|(_, r)| !r.newest_lost).count() as u64;
            let mut stale_rows: Vec<StaleRow> = stale_rows.into_iter().map(|(_, r)| r).collect();
            if let Some(ix) = naming_index(&rel.indexes) {
                stale_rows.sort_by(|a, b| key_order(&ix.key_types, &a.keys, &b.keys));
            }
            match own {
            Some(o) => {
                let all = heap_items(page, endian).count() as u64;
                Rows {
                    lost: Some(all.saturating_sub(o.len() as u64)),
                    readable: Some(o.len() as u64),
                    known_from: KnownFrom::Header,
                    index: None,
                    keys: Vec::new(),
                    upper_bound: false,
                    bound: Some(String::from(
                        "from the page's own line pointers; no B-tree index of the table was read to check them",
                    )),
                    index_entries: None,
                    repeated: Vec::new(),
                    stale,
                    stale_rows,
                    elsewhere: Vec::new(),
                    reused,
                    flipped: flipped.clone(),
                    orphan_roots: Vec::new(),
                }
            }
            None => Rows {
                lost: None,
                readable: Some(0),
                known_from: KnownFrom::Unknown,
                index: None,
                keys: Vec::new(),
                upper_bound: false,
                bound: Some(String::from(
                    "the page cannot say how many rows it held, and no B-tree index of the table was read",
                )),
                index_entries: None,
                repeated: Vec::new(),
                stale,
                stale_rows,
                elsewhere: Vec::new(),
                reused,
                flipped: flipped.clone(),
                orphan_roots: Vec::new(),
            },
        }
        }
    }
}

/// Whether the tuple at (`block`, `lp`) is its row's only version the naming index knows:
/// the index has an entry for it, with its key, and no other live entry with that key. A
/// tuple in a torn page's older sectors that is not (another entry, anywhere, names the
/// same row) is an older version of its row.
fn sole_version(indexes: &[IndexInput], block: u32, lp: u16) -> bool {
    let Some(ix) = naming_index(indexes) else {
        return false;
    };
    let Some(key) = ix
        .entries
        .iter()
        .find(|e| e.block == block && e.offset == lp && !e.dead)
        .and_then(|e| e.keys.as_ref())
        .filter(|k| k.iter().all(Option::is_some))
    else {
        return false;
    };
    !ix.entries
        .iter()
        .any(|e| !e.dead && e.keys.as_ref() == Some(key) && (e.block, e.offset) != (block, lp))
}

/// The line pointers of a page's tuples whose bytes are not values of the table's
/// `columns` (as `rows` finds them: invalid text, a length past the tuple, compressed data
/// that does not decompress). A value stored out of line is not read: no TOAST here.
fn garbled_tuples(page: &[u8], endian: Endian, columns: Option<&[Column]>) -> BTreeSet<u16> {
    let Some(columns) = columns else {
        return BTreeSet::new();
    };
    let writer = crate::cluster::rows::RowWriter::new(
        columns.to_vec(),
        crate::cluster::rows::RowFormat::Json,
        endian,
        false,
    );
    let mut no_toast = |_: &crate::tuple::ToastPointer| {
        Err(crate::tuple::toast::ValueProblem::from(
            Finding::ToastRelationMissing,
        ))
    };
    heap_items(page, endian)
        .filter_map(|i| {
            let problem = writer.values(i.tuple?, &mut no_toast).err()?;
            matches!(
                problem.finding,
                Finding::ValueInvalid
                    | Finding::TupleAttributePastEnd
                    | Finding::AttributeLengthInvalid
                    | Finding::VarlenaTagUnexpected
                    | Finding::VarlenaSizeInvalid
                    | Finding::PglzCorrupt
                    | Finding::Lz4Corrupt
                    | Finding::CompressionMethodInvalid
            )
            .then_some(i.lp)
        })
        .collect()
}

/// Where the index's key columns stand among the table's columns (a key column is the
/// table column of its name and type); None when one has no such column (an expression).
fn key_positions(ix: &IndexInput, columns: &[Column]) -> Option<Vec<usize>> {
    ix.key_columns
        .iter()
        .map(|k| {
            columns
                .iter()
                .position(|c| c.name == k.name && c.ty == k.ty && !c.attribute.attisdropped)
        })
        .collect::<Option<Vec<usize>>>()
        .filter(|w| !w.is_empty())
}

/// The key of the naming index on each heap-only tuple of `page` that `take` accepts, read
/// with the table's columns (a key column is the table column of its name and type; an
/// expression's key has no such column, and then no tuple gives a key).
fn orphan_keys(
    page: &[u8],
    endian: Endian,
    ix: &IndexInput,
    columns: &[Column],
    take: impl Fn(u16) -> bool,
) -> BTreeMap<Vec<Option<String>>, u16> {
    tuple_keys(page, endian, ix, columns, |i| {
        take(i.lp)
            && i.tuple
                .and_then(|t| TupleHeader::read(t, endian))
                .is_some_and(|h| h.t_infomask2 & crate::am::heap::layout::HEAP_ONLY_TUPLE != 0)
    })
    .into_iter()
    .map(|(lp, key)| (key, lp))
    .collect()
}

/// The key of the naming index on each tuple of `page` that `take` accepts.
fn tuple_keys(
    page: &[u8],
    endian: Endian,
    ix: &IndexInput,
    columns: &[Column],
    take: impl Fn(&crate::tuple::HeapItem<'_>) -> bool,
) -> BTreeMap<u16, Vec<Option<String>>> {
    let Some(which) = key_positions(ix, columns) else {
        return BTreeMap::new();
    };
    let writer = crate::cluster::rows::RowWriter::new(
        columns.to_vec(),
        crate::cluster::rows::RowFormat::Json,
        endian,
        false,
    );
    heap_items(page, endian)
        .filter(|i| take(i))
        .filter_map(|i| Some((i.lp, writer.column_texts(i.tuple?, &which)?)))
        .collect()
}

/// Whether the block's newest start in the WAL is a record that builds the page rather than
/// an image.
fn after_init(
    seen: Option<(
        &crate::wal::BlockKey,
        Option<&crate::wal::Touch>,
        &[crate::wal::Touch],
    )>,
) -> bool {
    seen.is_some_and(|(_, _, after)| after.iter().any(|t| t.will_init))
}

/// What the server does with an error-severity block it reads without an error.
fn silent(b: &Block) -> Option<&'static str> {
    if b.severity != Severity::Error || b.server.is_some() {
        return None;
    }
    Some(match b.damage {
        Damage::Zeroed => "read as empty: rows lost, no error from the server",
        Damage::Stale => "older, read without an error",
        Damage::Older => "older by its indexes, read without an error",
        Damage::Missing => "past the file's end: sequential scans skip it without an error",
        _ => "read without an error",
    })
}

/// The blocks crash recovery rewrites from the WAL, in words; None when none.
fn crash_blocks(r: &Report) -> Option<String> {
    let blocks: Vec<(&Relation, &Block)> = r
        .blocks()
        .filter(|(_, b)| b.crash_rewrites.is_some())
        .collect();
    (!blocks.is_empty()).then(|| blocks_words(&blocks))
}

fn verdict(r: &Report) -> String {
    let mut found = found_words(r);
    if r.cluster.crashed && !r.relations.is_empty() {
        found = format!(
            "NOT SHUT DOWN CLEANLY (pg_control says \"{}\"): the next start runs crash recovery before any query, {}. As read: {found}",
            r.cluster.state.as_deref().unwrap_or("unknown"),
            match crash_blocks(r) {
                Some(words) => format!(
                    "which writes {words} from the WAL without reading the damaged bytes; report again on a copy once crash recovery has run"
                ),
                None => String::from(
                    "which changes pages from the WAL before they are read; report again on a copy once crash recovery has run",
                ),
            }
        );
    }
    if let Some(h) = &r.other_history {
        found = format!("{found}. Note: {h}");
    }
    if r.cluster.running {
        return format!(
            "NOT RELIABLE: the server is running, so its pages changed while they were read and its newest changes may be only in its memory; every finding below may be the reading's, not damage. Stop the server cleanly (or report on a copy pg_basebackup made) and run the report again. As read: {found}"
        );
    }
    found
}

/// The files a report reads, as counted: the tables' and indexes' own data, which is fewer
/// than `pgpage verify` and pg_checksums count.
fn main_fork_files(n: u64) -> String {
    format!(
        "{} (the tables' and indexes' own data; verify counts their free space and visibility map files too)",
        plural(n, "main-fork file", "main-fork files")
    )
}

fn found_words(r: &Report) -> String {
    // A page older than the WAL verifies and reads: only the WAL shows it.
    let unchecked = if r.data_directory.is_some() && !r.older_pages_checked {
        "; pages older than the WAL (a lost write, a stale restore) not checked: the data directory's WAL was not read"
    } else {
        ""
    };
    let maps = (!r.map_pages.is_empty()).then(|| {
        format!(
            "{} that the server zeroes as it reads {} (no row is lost: VACUUM sets the map again)",
            plural(
                r.map_pages.len() as u64,
                "visibility or free space map page",
                "visibility or free space map pages"
            ),
            if r.map_pages.len() == 1 { "it" } else { "them" }
        )
    });
    let lacking = (!r.missing_indexes.is_empty()).then(|| {
        let names: Vec<String> = r.missing_indexes.iter().map(|m| m.index.clone()).collect();
        format!(
            "{} without {} file ({}): the server fails every query that opens {}",
            plural(r.missing_indexes.len() as u64, "index", "indexes"),
            if r.missing_indexes.len() == 1 {
                "its"
            } else {
                "their"
            },
            crate::words::and_list(&names),
            if r.missing_indexes.len() == 1 {
                "it"
            } else {
                "them"
            }
        )
    });
    let lacking = match (lacking, duplicates_clause(r)) {
        (Some(l), Some(d)) => Some(format!("{l}; {d}")),
        (l, d) => l.or(d),
    };
    let maps = match (lacking, maps) {
        (Some(l), Some(m)) => Some(format!("{l}; {m}")),
        (l, m) => l.or(m),
    };
    let partial = (!r.partial_pages.is_empty()).then(|| r.partial_pages.join("; "));
    let maps = match (partial, maps) {
        (Some(p), Some(m)) => Some(format!("{p}; {m}")),
        (p, m) => p.or(m),
    };
    if r.relations.is_empty() {
        if let Some(maps) = maps {
            return format!(
                "{maps}; no other damage found in {} of {}{unchecked}",
                plural(r.pages, "page", "pages"),
                main_fork_files(r.files)
            );
        }
        let held = if r.indexes_held > 0 {
            format!(
                "; every row on them held against its table's B-tree indexes ({} in {}), as amcheck's heapallindexed does",
                plural(r.rows_held, "row", "rows"),
                plural(r.indexes_held, "index", "indexes")
            )
        } else {
            String::new()
        };
        return format!(
            "no damage found in {} of {}{held}{unchecked}",
            plural(r.pages, "page", "pages"),
            main_fork_files(r.files)
        );
    }
    let refused = r.blocks().filter(|(_, b)| b.server.is_some()).count() as u64;
    let zeroed = r
        .blocks()
        .filter(|(_, b)| b.damage == Damage::Zeroed && b.server.is_none())
        .count() as u64;
    let warnings = r
        .blocks()
        .filter(|(_, b)| b.severity == Severity::Warning)
        .count() as u64;
    let older = r
        .blocks()
        .filter(|(_, b)| b.damage == Damage::Stale)
        .count() as u64;
    // The relations of the refused pages, not of every damaged one (an older page the
    // server reads is in its own clause).
    let rels = r
        .relations
        .iter()
        .filter(|rel| rel.blocks.iter().any(|b| b.server.is_some()))
        .count() as u64;
    let mut parts = Vec::new();
    if older > 0 {
        parts.push(format!(
            "{} older than the WAL shows (a lost write or a stale restore) that the server reads without a word",
            plural(older, "page", "pages")
        ));
    }
    let missing = r
        .blocks()
        .filter(|(_, b)| b.damage == Damage::Missing)
        .count() as u64;
    if missing > 0 {
        parts.push(format!(
            "{} past the end of a table's file that its indexes point into: sequential scans miss their rows without a word",
            plural(missing, "block", "blocks")
        ));
    }
    if refused > 0 {
        parts.push(format!(
            "{} in {} that the server refuses to read",
            plural(refused, "page", "pages"),
            plural(rels, "relation", "relations")
        ));
    }
    if zeroed > 0 {
        parts.push(format!(
            "{} that the server reads as empty",
            plural(zeroed, "zeroed page", "zeroed pages")
        ));
    }
    // Pages of another relation the server takes for the table's: their rows are not
    // counted one by one below.
    let foreign = r
        .blocks()
        .filter(|(_, b)| b.damage == Damage::Misplaced && b.server.is_none())
        .count() as u64;
    if foreign > 0 {
        parts.push(format!(
            "{} other rows than the block's (another relation's page) that the server reads as the table's without a word",
            plural(foreign, "page holds", "pages hold")
        ));
    }
    let by_indexes = r
        .blocks()
        .filter(|(_, b)| b.damage == Damage::Older)
        .count() as u64;
    if by_indexes > 0 {
        parts.push(format!(
            "{} that {} {} checksum but {} older than {} table by its indexes (rows deleted or updated since are back), read without a word",
            plural(by_indexes, "page", "pages"),
            if by_indexes == 1 { "passes" } else { "pass" },
            if by_indexes == 1 { "its" } else { "their" },
            if by_indexes == 1 { "looks" } else { "look" },
            if by_indexes == 1 { "its" } else { "their" },
        ));
    }
    if warnings > 0 {
        parts.push(format!(
            "{} wrong but readable",
            plural(warnings, "page", "pages")
        ));
    }
    // Rows, not entries: a row missing from two indexes is one row.
    let mut changed_rows: BTreeSet<(&str, u32, u16)> = BTreeSet::new();
    let mut unled_rows: BTreeSet<(&str, u32, u16)> = BTreeSet::new();
    for (rel, b) in r.blocks().filter(|(_, b)| b.damage == Damage::KeyMismatch) {
        for m in &b.key_mismatches {
            let row = (rel.path.as_str(), b.block, m.lp);
            if m.index_keys.is_empty() {
                unled_rows.insert(row);
            } else {
                changed_rows.insert(row);
            }
        }
    }
    let (changed, unled) = (changed_rows.len() as u64, unled_rows.len() as u64);
    if changed > 0 {
        parts.push(format!(
            "{} on pages that pass their checksum {} another key than {} index entry names",
            plural(changed, "row", "rows"),
            if changed == 1 { "holds" } else { "hold" },
            if changed == 1 { "its" } else { "their" }
        ));
    }
    if unled > 0 {
        parts.push(format!(
            "{} on pages that pass their checksum {} no entry in an index of {} table",
            plural(unled, "row", "rows"),
            if unled == 1 { "has" } else { "have" },
            if unled == 1 { "its" } else { "their" }
        ));
    }
    let lost: Vec<&Rows> = r.blocks().filter_map(|(_, b)| b.rows.as_ref()).collect();
    // A row whose versions lie on two damaged pages (an older one on a torn page, the
    // newest on a zeroed one) is one row: keyed counts are counted by key per relation.
    let mut seen: BTreeSet<(usize, &[Option<String>])> = BTreeSet::new();
    let mut known: u64 = 0;
    let by_relation = r
        .relations
        .iter()
        .enumerate()
        .flat_map(|(i, rel)| rel.blocks.iter().map(move |b| (i, b)));
    for (rel, b) in by_relation {
        let Some(x) = b.rows.as_ref() else { continue };
        match x.lost {
            Some(n) if x.index.is_some() && x.keys.len() as u64 == n => {
                for k in &x.keys {
                    if seen.insert((rel, k.as_slice())) {
                        known = known.saturating_add(1);
                    }
                }
            }
            Some(n) => known = known.saturating_add(n),
            None => {}
        }
    }
    let unknown = lost.iter().any(|x| x.lost.is_none());
    // An index's count is an upper bound (it also holds versions no snapshot sees): the
    // verdict says so rather than state it as the number lost.
    let bound = if lost
        .iter()
        .any(|x| x.upper_bound && x.lost.unwrap_or(0) > 0)
    {
        "up to "
    } else {
        ""
    };
    if !lost.is_empty() {
        parts.push(match (known, unknown) {
            (0, true) => String::from("rows lost: unknown"),
            (n, true) => format!(
                "{bound}{} lost, and more in blocks that cannot say",
                plural(n, "row", "rows")
            ),
            (0, false) => String::from("no row lost"),
            (n, false) => format!("{bound}{} lost", plural(n, "row", "rows")),
        });
    }
    // A page whose one wrong header field its checksum names loses nothing: the field set
    // back is the page the server wrote.
    let fields = r
        .blocks()
        .filter(|(_, b)| b.route == Route::ConfirmedField.as_str())
        .count() as u64;
    if fields > 0 {
        parts.push(format!(
            "{} one header field wrong, which the steps set back exactly",
            if fields == 1 {
                String::from("1 page has")
            } else {
                format!("{fields} pages have")
            },
        ));
    }
    // Rows on blocks whose one way restores the page exactly (the WAL's replay or image, the
    // backup's unchanged page, the flip the backup confirms) are lost only until it is taken.
    let restorable: u64 = r
        .blocks()
        .filter(|(_, b)| matches!(b.route, "recover" | "backup_same" | "confirmed_flip"))
        .filter_map(|(_, b)| b.rows.as_ref()?.lost)
        .sum();
    if restorable > 0 && !lost.is_empty() {
        let from_wal = r.blocks().any(|(_, b)| b.route == "recover");
        let from_backup = r.blocks().any(|(_, b)| b.route == "backup_same");
        parts.push(format!(
            "the steps bring back {} of them exactly, from {}",
            if restorable >= known && !unknown {
                String::from("all")
            } else {
                plural(restorable, "row", "rows")
            },
            match (from_wal, from_backup) {
                (true, true) => "the WAL and the backup",
                (true, false) => "the WAL",
                _ => "the backup",
            }
        ));
    }
    let stale: u64 = lost.iter().map(|x| x.stale).sum();
    if stale > 0 {
        parts.push(format!(
            "{} that read as live although their keys are live on other pages (not counted as readable)",
            plural(stale, "stale row version", "stale row versions")
        ));
    }
    parts.extend(maps);
    format!("{}{unchecked}", parts.join("; "))
}

/// A word as a POSIX shell reads it: quoted when it holds anything but letters, digits and
/// `_./:=@%+,-`.
fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./:=@%+,-".contains(&b));
    if plain {
        String::from(s)
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The commands' names for a report's files: each path as the user can give it from where
/// the report was made (the data directory's name joined with the file's path in it).
struct Paths<'r> {
    dir: Option<&'r str>,
}

impl Paths<'_> {
    fn file(&self, path: &str) -> String {
        match self.dir {
            Some(d) if d != "." => shell_word(&format!("{}/{path}", d.trim_end_matches('/'))),
            _ => shell_word(path),
        }
    }

    /// The data directory's `pg_wal`, or WAL where no data directory was read.
    fn wal(&self) -> String {
        self.dir
            .map_or_else(|| String::from("WAL"), |_| self.file("pg_wal"))
    }
}

/// What the placeholders of the steps' commands stand for.
const NEW_WORDS: &str =
    "NEW: the repaired copy of the file to create, a path that does not exist yet";
const BACKUP_WORDS: &str =
    "BACKUP_FILE: the same relation file in a base backup; NEW: the repaired copy to create";
const WAL_WORDS: &str = "search the WAL archive too, when there is one";

/// A command line of a step. A step is lines: its sentences, each command on a line of its
/// own indented by two spaces (a note after it as a shell comment, `  # ...`), so the text
/// and the Markdown can list the commands one a line and a command runs as printed.
pub(super) fn command_line(command: &str) -> String {
    format!("  {command}")
}

/// `pgpage fpi` for each relation of the blocks: its images in the data directory's WAL.
/// A file outside a data directory does not say its database: DB stands for it, and the
/// command names its file; commands that would read alike are given once.
fn fpi_commands(blocks: &[(&Relation, &Block)], paths: &Paths, out: &str) -> Vec<String> {
    let relations: BTreeSet<&str> = blocks.iter().map(|(rel, _)| rel.path.as_str()).collect();
    let mut lines: Vec<String> = Vec::new();
    let mut db_said = false;
    for path in relations {
        let line = match relation_arg(path) {
            Some(relation) => format!("pgpage fpi --relation {relation}{out} {}", paths.wal()),
            None => {
                let name = path.rsplit('/').next().unwrap_or(path);
                let relfilenode = crate::file::parse_relation_file_name(name).map_or_else(
                    || String::from("RELFILENODE"),
                    |f| f.relfilenode.to_string(),
                );
                // DB said once, at the first.
                let db = if db_said {
                    ""
                } else {
                    " (DB: its database's OID, the directory under base/ that holds it)"
                };
                db_said = true;
                format!(
                    "pgpage fpi --relation DB/{relfilenode}{out} {}  # {}{db}",
                    paths.wal(),
                    paths.file(path)
                )
            }
        };
        let line = command_line(&line);
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    lines
}

/// The blocks (within their files) of each file, files in the order first named.
fn blocks_by_file<'a>(blocks: &[(&Relation, &'a Block)]) -> Vec<(&'a str, Vec<u32>)> {
    let mut by_file: Vec<(&str, Vec<u32>)> = Vec::new();
    for (_, b) in blocks {
        match by_file.iter_mut().find(|(f, _)| *f == b.file.as_str()) {
            Some((_, list)) => list.push(b.block_in_file),
            None => by_file.push((b.file.as_str(), alloc::vec![b.block_in_file])),
        }
    }
    by_file
}

/// `pgpage repair --from`, one command per file with each of its blocks: one NEW holds
/// every block the backup gives, and blocks past a cut-short file's end are written only
/// together with the blocks before them.
fn backup_commands(blocks: &[(&Relation, &Block)], paths: &Paths) -> Vec<String> {
    blocks_by_file(blocks)
        .into_iter()
        .map(|(file, mut list)| {
            list.sort_unstable();
            list.dedup();
            let blocks: String = list.iter().map(|n| format!(" --block {n}")).collect();
            command_line(&format!(
                "pgpage repair{blocks} --from BACKUP_FILE --out NEW {}",
                paths.file(file)
            ))
        })
        .collect()
}

/// `pgpage recover --from BACKUP_DIR` for blocks, one command per file: each block rebuilt
/// from the backup's page with the WAL since the backup replayed onto it, as the server's
/// recovery of the backup would. `wal`: the command's --wal words.
fn recover_from_commands(blocks: &[(&Relation, &Block)], paths: &Paths, wal: &str) -> Vec<String> {
    blocks_by_file(blocks)
        .into_iter()
        .map(|(file, list)| {
            let blocks: String = list.iter().map(|n| format!(" --block {n}")).collect();
            command_line(&format!(
                "pgpage recover --from BACKUP_DIR{wal}{blocks} --out NEW {}",
                paths.file(file)
            ))
        })
        .collect()
}

/// Blocks named by relation: "blocks 10, 20 and 28 of public.orders".
fn blocks_words(blocks: &[(&Relation, &Block)]) -> String {
    let mut by_relation: Vec<(String, Vec<String>)> = Vec::new();
    for (rel, b) in blocks {
        let name = rel.relation.clone().unwrap_or_else(|| rel.path.clone());
        let n = b.block.to_string();
        match by_relation.iter_mut().find(|(r, _)| *r == name) {
            Some((_, list)) => list.push(n),
            None => by_relation.push((name, alloc::vec![n])),
        }
    }
    let parts: Vec<String> = by_relation
        .into_iter()
        .map(|(name, list)| {
            let which = if list.len() == 1 { "block" } else { "blocks" };
            format!("{which} {} of {name}", crate::words::and_list(&list))
        })
        .collect();
    parts.join("; ")
}

/// A block of an index: its entries are the table's, so REINDEX rebuilds it from the table
/// and loses nothing, while an older copy spliced in (a backup's, a WAL image's) would
/// disagree with the table and with its neighbour pages.
pub(super) fn index_block(relkind: Option<&str>, b: &Block) -> bool {
    match relkind {
        Some(k) => k == "i",
        None => b.rows.is_none(),
    }
}

/// `pgpage fpi --relation`'s `[TBS/]DB/RELFILENODE` of a relation path.
fn relation_arg(path: &str) -> Option<String> {
    let (spc, db, rel) = crate::file::datadir::locator_of(path)?;
    Some(if spc == 1663 {
        format!("{db}/{rel}")
    } else {
        format!("{spc}/{db}/{rel}")
    })
}

/// The one way the steps recommend for a damaged table page, best first: each block is
/// named under its route's step only, so that no two steps offer it, and the worse ways
/// are said to be worse where they would be the obvious ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Route {
    /// An index's page: REINDEX rebuilds it from the table, a copy is never spliced in.
    Reindex,
    /// A flip back that the backup's page confirms: the page exactly as it was, hint bits
    /// set since included.
    ConfirmedFlip,
    /// One header field set back to the value the stored checksum verifies with: the page
    /// exactly as the server wrote it, hint bits included, which no image or backup is.
    ConfirmedField,
    /// The WAL's full-page image with every record after it replayed (pgpage recover), or
    /// with none after it: recover writes it as the server's recovery does, pd_lsn the
    /// record's end, which the image taken alone lacks (and so reads as stale again).
    Recover,
    /// The backup's page, unchanged since by pd_lsn and the WAL.
    BackupSame,
    /// Single-bit flips, one of which may be the damage.
    Flip,
    /// One header field set to the value its line pointers imply, which no checksum
    /// confirms (the page has none, or it verifies with that value among others).
    Field,
    /// The torn page rebuilt as its rows read, every row kept.
    TornWhole,
    /// The backup's older page.
    BackupOlder,
    /// Rows whose key an index does not hold: the true one set by SQL, or the index rebuilt.
    Key,
    /// Rows that have no entry in an index: the index rebuilt from the table.
    KeyReindex,
    /// Rows without an entry in a unique index that holds their keys at other TIDs: the page
    /// looks older than its rows, and REINDEX would fail on the duplicates.
    KeyOlder,
    /// Nothing restores the page: its rows are salvaged, rebuilt in part or lost.
    None,
}

impl Route {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Route::Reindex => "reindex",
            Route::ConfirmedFlip => "confirmed_flip",
            Route::ConfirmedField => "confirmed_field",
            Route::Recover => "recover",
            Route::BackupSame => "backup_same",
            Route::Flip => "flip",
            Route::Field => "field",
            Route::TornWhole => "torn_whole",
            Route::BackupOlder => "backup_older",
            Route::Key => "key",
            Route::KeyReindex => "key_reindex",
            Route::KeyOlder => "key_older",
            Route::None => "none",
        }
    }
}

pub(super) fn route(rel: &Relation, b: &Block) -> Route {
    if b.damage.is_key() {
        // Older versions of rows that live elsewhere make the whole page older than its
        // table: the keys the index names at its other TIDs are then newer rows' (the line
        // pointers reused since), and no UPDATE of this page's rows is right.
        return if b.key_mismatches.iter().any(keyrows::older_version)
            || !keyrows::absent_everywhere(rel, b).is_empty()
        {
            Route::KeyOlder
        } else if b.key_mismatches.iter().any(|m| !m.index_keys.is_empty()) {
            Route::Key
        } else {
            Route::KeyReindex
        };
    }
    if index_block(rel.relkind.as_deref(), b) {
        return Route::Reindex;
    }
    let backup = b.backup.as_ref().filter(|p| p.status == "ok");
    if b.damage == Damage::BitFlip
        && backup.is_some_and(|p| p.confirms_flip.is_some())
        && !b.bit_flips.is_empty()
    {
        return Route::ConfirmedFlip;
    }
    let fix = b
        .header_field
        .as_ref()
        .filter(|_| b.damage == Damage::HeaderField);
    if fix.is_some_and(|f| f.confirmed) {
        return Route::ConfirmedField;
    }
    match b.wal_image.as_ref() {
        Some(w) if w.init => {}
        Some(_) => return Route::Recover,
        None => {}
    }
    // A replay from the record that initialised the page (no image since): where nothing
    // better serves, recover rebuilds the page from it. The WAL reaches that far back only
    // for a block extended since its segments were last recycled.
    let from_init = b.wal_image.as_ref().is_some_and(|w| w.init);
    // An older version of the block: a backup's page no newer than it lacks the same
    // changes, and nothing but the WAL holds them.
    if b.damage == Damage::Stale {
        return if from_init {
            Route::Recover
        } else {
            Route::None
        };
    }
    if backup.is_some_and(|p| p.age == Some("same")) {
        return Route::BackupSame;
    }
    if b.damage == Damage::BitFlip && !b.bit_flips.is_empty() {
        return Route::Flip;
    }
    // A candidate only where nothing can check it (no checksum, or one computed over the
    // wrong value), or where the checksum checks it among others; where the checksum rules
    // every value out, more than the field changed.
    if fix.is_some_and(|f| !f.has_checksum || f.checksummed_wrong || f.verifying.contains(&f.value))
    {
        return Route::Field;
    }
    let readable = b.rows.as_ref().and_then(|x| x.readable).unwrap_or(0) > 0;
    if !b.torn_sectors.is_empty()
        && readable
        && b.torn_refused.is_none()
        && b.rows.as_ref().is_some_and(|x| x.lost == Some(0))
    {
        return Route::TornWhole;
    }
    if from_init {
        return Route::Recover;
    }
    if backup.is_some_and(|p| p.age != Some("newer")) {
        return Route::BackupOlder;
    }
    Route::None
}

/// The step that sets a wrong header field back (`repair --set`): the value the stored
/// checksum verifies with, which gives the page the server wrote, or the line pointers'
/// candidate where no checksum confirms one (`--force` where the checksum rules it out).
/// An index's page is named too, beside the REINDEX its route takes.
fn field_step(r: &Report, paths: &Paths) -> Option<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut candidates = false;
    for (rel, b) in r.blocks() {
        let Some(f) = b
            .header_field
            .as_ref()
            .filter(|_| b.damage == Damage::HeaderField)
        else {
            continue;
        };
        let name = rel.relation.as_deref().unwrap_or(&rel.path);
        let (force, note) = match route(rel, b) {
            Route::ConfirmedField => ("", String::from("the stored checksum verifies with it")),
            Route::Reindex if f.confirmed => (
                "",
                String::from("the stored checksum verifies with it; or simply REINDEX the index, a step below"),
            ),
            Route::Field if f.verifying.contains(&f.value) => (
                "",
                String::from("the line pointers' candidate, one of the values the stored checksum verifies with"),
            ),
            Route::Field => (
                " --force",
                String::from("the line pointers' candidate: the page has no checksum to confirm it"),
            ),
            _ => continue,
        };
        candidates |= !f.confirmed;
        lines.push(format!(
            "Block {} of {name}: {} from {} back to {}:",
            b.block,
            f.field.name(),
            f.stored,
            f.value
        ));
        lines.push(command_line(&format!(
            "pgpage repair --block {} --set {}={}{force} --out NEW {}  # {note}",
            b.block_in_file,
            f.field.name(),
            f.value,
            paths.file(&b.file)
        )));
    }
    if lines.is_empty() {
        return None;
    }
    Some(format!(
        "Where one header field is wrong and the rest of the page is its own, setting that field back gives the page {}, with its checksum recomputed ({NEW_WORDS}).{}\n{}",
        if candidates { "back (where the stored checksum verifies with the value, exactly as the server wrote it)" } else { "exactly as the server wrote it, hint bits included" },
        if candidates {
            " A candidate no checksum confirms is the line pointers' value: check the rows the repaired page gives (pgpage rows) before putting it in place."
        } else {
            ""
        },
        lines.join("\n")
    ))
}

/// The WAL a step's `pgpage recover` reads: what the report was given (`--wal`), else the
/// data directory's own pg_wal, which it reads unasked; for files outside one, a placeholder.
fn recover_wal(r: &Report, paths: &Paths) -> String {
    // The data directory's own pg_wal, given as --wal too, recover reads unasked.
    let own = r
        .data_directory
        .as_deref()
        .map(|d| format!("{}/pg_wal", d.trim_end_matches('/')));
    let extra: Vec<&String> = r
        .wal_given
        .iter()
        .filter(|w| Some(w.trim_end_matches('/')) != own.as_deref())
        .collect();
    if !extra.is_empty() {
        extra
            .iter()
            .map(|w| format!(" --wal {}", shell_word(w)))
            .collect()
    } else if paths.dir.is_some() {
        String::new()
    } else {
        String::from(" --wal WAL")
    }
}

/// The step that rebuilds blocks from their full-page image with every record after it
/// replayed (pgpage recover), as the server's recovery does. It comes before every other
/// repair: recover reads its file in place in the data directory, and the later steps go on
/// from its NEW.
fn replay_step(r: &Report, paths: &Paths) -> Option<String> {
    let name = |rel: &Relation| rel.relation.clone().unwrap_or_else(|| rel.path.clone());
    let replay: Vec<(&Relation, &Block)> = r
        .blocks()
        .filter(|(rel, b)| !index_block(rel.relkind.as_deref(), b))
        .filter(|(rel, b)| route(rel, b) == Route::Recover)
        .collect();
    if replay.is_empty() {
        return None;
    }
    let mut files: Vec<(&str, Vec<u32>)> = Vec::new();
    for (_, b) in &replay {
        match files.iter_mut().find(|(f, _)| *f == b.file.as_str()) {
            Some((_, blocks)) => blocks.push(b.block_in_file),
            None => files.push((b.file.as_str(), alloc::vec![b.block_in_file])),
        }
    }
    let mut lines = alloc::vec![format!(
            "Rebuild {} as the server's recovery would: its full-page image (or the record that initialised the page) with every record after it replayed (heap and B-tree pages; a block that meets a record of any other kind is named and not written). {NEW_WORDS}:",
            blocks_words(&replay)
        )];
    for (file, blocks) in files {
        let blocks: Vec<String> = blocks.iter().map(|b| format!("--block {b}")).collect();
        let wal = recover_wal(r, paths);
        lines.push(command_line(&format!(
            "pgpage recover {}{wal} --out NEW {}",
            blocks.join(" "),
            paths.file(file)
        )));
    }
    for (rel, b) in &replay {
        let Some(w) = b.wal_image.as_ref() else {
            continue;
        };
        // What the image alone would lose, in the words the finding uses for it.
        lines.push(if w.init {
            format!(
                "Block {} of {}: no image, but the record at {} builds the page from nothing, and {} after it ({}).",
                b.block,
                name(rel),
                w.lsn,
                crate::words::plural(w.later.len(), "record", "records"),
                if w.kinds.is_empty() {
                    String::from("none")
                } else {
                    w.kinds.join(", ")
                }
            )
        } else if w.later.is_empty() {
            format!(
                "Block {} of {}: its image at {}, the last change to the block; recover writes it with the pd_lsn the server's recovery gives it (the record's end), which the image taken alone lacks.",
                b.block,
                name(rel),
                w.lsn
            )
        } else {
            // What the image alone would lose is the finding's to say: this step replays it.
            format!(
                "Block {} of {}: its image at {} and {} after it ({}), all replayed.",
                b.block,
                name(rel),
                w.lsn,
                crate::words::plural(w.later.len(), "record", "records"),
                w.kinds.join(", ")
            )
        });
    }
    Some(lines.join("\n"))
}

/// A heap block whose step gives back the page with every row: the server's ways past a
/// damaged page, and what to do while it stays damaged, are then beside the point.
pub(super) fn restored_whole(rel: &Relation, b: &Block) -> bool {
    matches!(
        route(rel, b),
        Route::Recover
            | Route::ConfirmedFlip
            | Route::ConfirmedField
            | Route::BackupSame
            | Route::TornWhole
    )
}

fn steps(r: &Report) -> Vec<String> {
    let mut out = Vec::new();
    if !r.damaged() {
        out.push(String::from(
            "Nothing to repair: keep taking backups, and run pgpage verify --amcheck (or pg_amcheck) from time to time.",
        ));
        return out;
    }
    let paths = Paths {
        dir: r.data_directory.as_deref(),
    };
    out.push(String::from(
        "Stop the server (or leave it stopped) and copy the whole data directory, WAL included, before anything else. Try every later step on the copy.",
    ));
    if r.cluster.crashed {
        out.push(format!(
            "The cluster was not shut down cleanly: start the copy and let crash recovery run (pg_ctl start; the log says \"redo done\"), then stop it cleanly (pg_ctl stop -m fast). Recovery replays the WAL from the redo point{}{}. Then run pgpage report on the stopped copy: what it still finds is the damage recovery does not mend, and the steps below are for that.",
            r.cluster
                .redo_lsn
                .as_deref()
                .map(|l| format!(" {l}"))
                .unwrap_or_default(),
            crash_blocks(r)
                .map(|w| format!(", writing {w} from the WAL without reading the damaged bytes"))
                .unwrap_or_default()
        ));
    }
    let damage: BTreeSet<&'static str> = r.blocks().map(|(_, b)| b.damage.as_str()).collect();
    out.push(format!(
        "Check the storage before trusting it again: the kernel log (dmesg) for I/O errors, the disks' SMART data, the controller's cache and battery.{}",
        if damage.contains("zeroed")
            || damage.contains("torn")
            || damage.contains("overwritten")
            || damage.contains("header_field")
        {
            " Zeroed, torn or overwritten pages point at writes the storage lost, cut short or garbled."
        } else if damage.contains("misplaced") {
            " A page written at the wrong place points at the storage layer or a file copy."
        } else {
            ""
        }
    ));
    if r.wal_searched {
        out.extend(replay_step(r, &paths));
    }
    out.extend(field_step(r, &paths));
    // An exact repair first: a flipped bit put back restores the page as it was, while a
    // good copy is as old as its image or backup.
    let mut flips: Vec<String> = Vec::new();
    // An index's page is rebuilt by REINDEX (its step below), which needs no pick and loses
    // nothing: a second way to the same end would only lengthen the steps.
    for (rel, b) in r.blocks().filter(|(rel, b)| {
        b.damage == Damage::BitFlip
            && !index_block(rel.relkind.as_deref(), b)
            && matches!(route(rel, b), Route::ConfirmedFlip | Route::Flip)
    }) {
        let name = rel.relation.as_deref().unwrap_or(&rel.path);
        let confirmed = b.backup.as_ref().and_then(|p| p.confirms_flip.as_deref());
        flips.push(match b.bit_flips.len() {
            _ if confirmed.is_some() => format!(
                "Block {} of {name}: the flip the backup's page confirms (the only candidate where the two pages differ):",
                b.block
            ),
            1 => format!("Block {} of {name}:", b.block),
            n => format!(
                "Block {} of {name}: {n} flips each make the page valid. Only what they restore tells them apart, and the first is the most likely by the evidence above (at most one is the damage):",
                b.block
            ),
        });
        for c in b
            .bit_flips
            .iter()
            .filter(|c| confirmed.is_none_or(|f| f == format!("{}:{}", c.byte, c.bit)))
        {
            let value = match (&c.column, &c.stored, &c.flipped) {
                (Some(col), Some(s), Some(v)) => {
                    format!("  # {}", crate::damage::flips::restores_text(col, s, v))
                }
                _ => String::new(),
            };
            flips.push(command_line(&format!(
                "pgpage repair --block {} --flip {}:{} --out NEW {}{value}",
                b.block_in_file,
                c.byte,
                c.bit,
                paths.file(&b.file)
            )));
        }
    }
    if !flips.is_empty() {
        out.push(format!(
            "Where single bits explain a checksum, flipping the right one back restores the page exactly ({NEW_WORDS}).\n{}",
            flips.join("\n")
        ));
    }
    // A torn page rebuilt as its rows read: the rows it still holds. It comes before the
    // step that looks for a good copy, so that the copy, if found, replaces the rebuilt
    // page: the other order would rebuild the good copy's page.
    let torn_heaps: Vec<&Block> = r
        .blocks()
        .filter(|(rel, b)| !b.torn_sectors.is_empty() && !index_block(rel.relkind.as_deref(), b))
        // A block whose backup page the backup step offers gets its rebuild named there,
        // as the other way for that block: a step here would go on from the backup's page.
        .filter(|(rel, b)| match route(rel, b) {
            Route::TornWhole | Route::None => true,
            Route::BackupOlder => !r.backup_searched,
            _ => false,
        })
        .filter(|(_, b)| b.rows.as_ref().is_some_and(|x| x.readable.unwrap_or(0) > 0))
        .map(|(_, b)| b)
        .collect();
    // Offered only where the rebuild, called, builds a page; elsewhere the ways left.
    for b in torn_heaps.iter().filter(|b| b.torn_refused.is_some()) {
        out.push(format!(
            "Block {} cannot be rebuilt as its rows read ({}). The ways left: {} (the page as the WAL makes it), or {} to save the rows that read.",
            b.block,
            b.torn_refused.as_deref().unwrap_or_default(),
            command_line(&format!(
                "pgpage recover --block {}{} --out NEW {}",
                b.block_in_file,
                recover_wal(r, &paths),
                paths.file(&b.file)
            ))
            .trim(),
            "pgpage rows --include-damaged"
        ));
    }
    // Without a backup given, the next step looks for a copy of every damaged page.
    let good_copy_later = !r.backup_searched;
    let torn: Vec<String> = torn_heaps
        .iter()
        .filter(|b| b.torn_refused.is_none())
        .map(|b| {
            command_line(&format!(
                "pgpage repair --block {} --torn --out NEW {}",
                b.block_in_file,
                paths.file(&b.file)
            ))
        })
        .collect();
    if !torn.is_empty() {
        out.push(format!(
            "Rebuild each torn page as its rows read ({NEW_WORDS}). The rows the older write holds at other places are pointed at there. A HOT root whose newest version nothing reached is redirected to it. Each line pointer whose row the tear took becomes dead: its keys are the lost keys listed above. The server then reads exactly the rows counted readable.{}\n{}",
            if good_copy_later {
                " A good copy found later replaces the rebuilt page: the next step says where to look."
            } else {
                ""
            },
            torn.join("\n")
        ));
    }
    if r.wal_searched {
        let tables: Vec<(&Relation, &Block)> = r
            .blocks()
            .filter(|(rel, b)| !index_block(rel.relkind.as_deref(), b))
            .collect();
        // A block no image serves: a backup given has its own step, a flip or the torn
        // rebuild theirs.
        let without: Vec<(&Relation, &Block)> = tables
            .iter()
            .copied()
            .filter(|(rel, b)| {
                b.wal_image.is_none()
                    && !(r.backup_searched && b.backup.is_some())
                    && matches!(route(rel, b), Route::BackupOlder | Route::None)
            })
            .collect();
        if !without.is_empty() {
            let mut lines = alloc::vec![format!(
                "The WAL given holds no full-page image of {}. Rebuild it from a base backup's page with the WAL since that backup replayed onto it, as the server's recovery of the backup would (BACKUP_DIR: the base backup's data directory, whose start the WAL given must reach back to):",
                blocks_words(&without)
            )];
            lines.extend(recover_from_commands(
                &without,
                &paths,
                &recover_wal(r, &paths),
            ));
            lines.push(format!(
                "Or, only where that WAL is gone, the backup's page alone ({BACKUP_WORDS}): rows deleted since come back and changes since are lost, and rows updated since come back beside their newer versions, two rows with one key (REINDEX of a unique index then fails; find them with pg_amcheck --heapallindexed first)."
            ));
            lines.extend(backup_commands(&without, &paths));
            lines.push(String::from(
                "Such a page lacks every change since the backup, unless the server's own recovery replays the WAL onto a restored copy of that backup.",
            ));
            out.push(lines.join("\n"));
        }
    } else {
        // An index's page needs no copy: the REINDEX step below rebuilds it. Nor does a page
        // whose one wrong header field the checksum confirms: its step restores it exactly.
        let all: Vec<(&Relation, &Block)> = r
            .blocks()
            .filter(|(rel, b)| !index_block(rel.relkind.as_deref(), b))
            .filter(|(rel, b)| route(rel, b) != Route::ConfirmedField && !b.damage.is_key())
            .collect();
        let report_wal = match paths.dir {
            Some(d) => format!("pgpage report --wal {} {}", paths.wal(), shell_word(d)),
            None => String::from("pgpage report --wal WAL FILE..."),
        };
        // Named with their relations: several files may each have a block 1.
        let flipped: Vec<(&Relation, &Block)> = all
            .iter()
            .filter(|(_, b)| b.damage == Damage::BitFlip)
            .copied()
            .collect();
        let field_set: Vec<(&Relation, &Block)> = all
            .iter()
            .filter(|(rel, b)| route(rel, b) == Route::Field)
            .copied()
            .collect();
        // A torn page that loses no row is rebuilt whole by a step below.
        let torn_whole: Vec<(&Relation, &Block)> = all
            .iter()
            .filter(|(_, b)| {
                !b.torn_sectors.is_empty()
                    && b.torn_refused.is_none()
                    && b.rows.as_ref().is_some_and(|x| x.lost == Some(0))
            })
            .copied()
            .collect();
        let mut first = format!(
            "Get a good copy of each damaged page ({}).",
            blocks_words(&all)
        );
        if !flipped.is_empty() {
            first.push_str(&format!(
                " For {}, only if no flip above is the damage: an older copy brings back row versions updated since.",
                blocks_words(&flipped)
            ));
        }
        if !torn_whole.is_empty() {
            first.push_str(&format!(
                " For {}, torn without a row lost, only if the rebuild above is not enough.",
                blocks_words(&torn_whole)
            ));
        }
        if !field_set.is_empty() {
            first.push_str(&format!(
                " For {}, only if the header field set above does not give a page whose rows read right.",
                blocks_words(&field_set)
            ));
        }
        let mut lines = alloc::vec![first,
            format!(
                "A full-page image in the WAL since the last checkpoint before the damage ({WAL_WORDS}):"
            ),
            command_line(&report_wal),
        ];
        lines.extend(fpi_commands(&all, &paths, ""));
        // The backup given has its own step below, with its own files.
        if !r.backup_searched {
            lines.push(String::from(
                "Better, a base backup's page with the WAL archived since that backup replayed onto it, as the server's recovery of the backup would (BACKUP_DIR: the base backup's data directory; ARCHIVE: the WAL archive):",
            ));
            lines.extend(recover_from_commands(&all, &paths, " --wal ARCHIVE"));
            lines.push(format!(
                "Or, only where that WAL is gone, the backup's page alone ({BACKUP_WORDS}): rows deleted since come back and changes since are lost, and rows updated since come back beside their newer versions, two rows with one key (REINDEX of a unique index then fails; find them with pg_amcheck --heapallindexed first)."
            ));
            lines.extend(backup_commands(&all, &paths));
        }
        lines.push(String::from(if r.backup_searched {
            "An image is as old as its record, unless the server's own recovery replays the WAL since then onto the restored page."
        } else {
            "Either is as old as the image or the backup, unless the server's own recovery replays the WAL since then onto a restored copy."
        }));
        if !all.is_empty() {
            out.push(lines.join("\n"));
        }
    }
    if r.backup_searched {
        out.extend(backup::step(r));
    }
    let heaps: Vec<&Relation> = r
        .relations
        .iter()
        .filter(|rel| rel.blocks.iter().any(|b| b.rows.is_some()))
        .collect();
    if !heaps.is_empty() {
        let commands: Vec<String> = heaps
            .iter()
            .map(|rel| match (paths.dir, rel.relation.as_deref()) {
                (Some(d), Some(name)) => {
                    let database = rel
                        .database
                        .as_deref()
                        .map(|db| format!(" --database {}", shell_word(db)))
                        .unwrap_or_default();
                    command_line(&format!(
                        "pgpage rows{database} {} {}",
                        shell_word(d),
                        shell_word(name)
                    ))
                }
                // No data directory, or no catalog name: the file's columns must be given.
                _ => command_line(&format!(
                    "pgpage rows --types TYPES {}  # TYPES: the table's column types in order, as int4,text,...",
                    paths.file(&rel.path)
                )),
            })
            .collect();
        // rows finds the pages older than the WAL by the data directory's own WAL, as the
        // report does.
        let older = r.data_directory.is_some()
            && r.blocks().any(|(rel, b)| {
                b.damage == Damage::Stale && !index_block(rel.relkind.as_deref(), b)
            });
        out.push(format!(
            "Salvage what can still be read before changing anything. This writes every readable row of the copy as COPY does, except the rows of damaged pages{} (add --include-damaged for those that read, each page named):\n{}\nThe keys listed as lost are the rows to find in a backup, a replica or the application.",
            if older {
                " and of pages older than the WAL (rows as they were before the changes those pages lack)"
            } else {
                ""
            },
            commands.join("\n")
        ));
    }
    // Named with their relations: several files may each have a block 1.
    let refused: Vec<(&Relation, &Block)> = r
        .blocks()
        .filter(|(_, b)| b.server.is_some() && b.rows.is_some())
        // Its step restores the page with every row; zeroing it would lose them.
        .filter(|(rel, b)| !restored_whole(rel, b))
        .collect();
    if !refused.is_empty() {
        // A torn page read through its own line pointers: what the server did with the one
        // a reviewer gave it (rows under other ctids, an error from the middle of a tuple).
        let torn_refused = r
            .blocks()
            .any(|(_, b)| b.server.is_some() && b.rows.is_some() && !b.torn_sectors.is_empty());
        out.push(format!(
            "On the copy only, the server's own ways past the pages it refuses ({}):\nzero_damaged_pages = on: the server zeroes each of them in memory as it reads it, and VACUUM writes the zeros. Every row on them is gone for good.\nignore_checksum_failure = on: the server reads a page whose header is sane despite its checksum, its bytes as they are: a flipped bit's value comes back wrong.{} Aggregates such as count(*) over the table are then wrong too. It does nothing for a page whose header is not sane.",
            blocks_words(&refused),
            if torn_refused {
                " A torn page's rows come back twice, under other ctids, or after their deletion, and a query that meets a line pointer inside another tuple fails (\"compressed pglz data is corrupt\", \"invalid memory alloc request size\") or crashes its backend, which restarts every session: only on a copy no one else uses."
            } else {
                ""
            }
        ));
        out.push(String::from(
            "pg_surgery's heap_force_kill(rel, ARRAY[tids]) marks rows dead without reading them; heap_force_freeze makes rows visible to all. Both need a page the server can read: use them after a repair or under ignore_checksum_failure, to remove or keep single rows the damage left wrong.",
        ));
    }
    // The repaired copies go in place before the steps on the running server.
    if out.iter().any(|s| s.contains("--out NEW")) {
        if let (Some(first), Some(d)) = (out.first_mut(), paths.dir) {
            first.push_str(&format!(
                " The pgpage commands below name {} as given: they only read it, and write each repair to a new file (NEW), which a later step puts in place in the copy.",
                shell_word(d)
            ));
        }
        out.push(String::from(
            "Put each repaired copy in place, on the copy of the data directory first: stop the server; keep the damaged file outside the data directory (mv FILE SAFE_DIR/: a stray file inside it stops pg_checksums and goes into every base backup); copy the last NEW of that file to its place with the server's owner and mode (cp NEW FILE; chown postgres: FILE; chmod 600 FILE); check it with pg_checksums --check (the server stopped); then start the server.",
        ));
    }
    // Before any REINDEX: rebuilding an index from the rows erases what it says of them.
    out.extend(key_step(r, &paths));
    for rel in &r.relations {
        let zeroed: Vec<String> = rel
            .blocks
            .iter()
            .filter(|b| b.damage == Damage::Zeroed && b.rows.is_some() && !restored_whole(rel, b))
            .map(|b| b.block.to_string())
            .collect();
        if !zeroed.is_empty() {
            out.push(zeroed_heap_step(r, rel, &zeroed));
        }
    }
    // Keys held twice because a damaged page holds older versions: that page's own step
    // settles them (the WAL's page, or the older versions removed); the others get theirs.
    out.extend(
        r.duplicate_keys
            .iter()
            .filter(|d| {
                d.more > 0
                    || !d
                        .tids
                        .iter()
                        .all(|g| g.iter().any(|t| on_damaged_block(r, &d.table, t)))
            })
            .map(duplicate_step),
    );
    let damaged_indexes: Vec<&Relation> = r
        .relations
        .iter()
        .filter(|rel| {
            rel.blocks
                .iter()
                .any(|b| index_block(rel.relkind.as_deref(), b))
        })
        .collect();
    if !damaged_indexes.is_empty() {
        let zero_only = damaged_indexes.iter().all(|rel| {
            rel.blocks
                .iter()
                .all(|b| b.damage == Damage::Zeroed && b.server.is_some())
        });
        let reindex: Vec<String> = damaged_indexes
            .iter()
            .map(|rel| {
                let name = rel.relation.as_deref().unwrap_or(&rel.path);
                format!("REINDEX INDEX {}", rel.sql_name.as_deref().unwrap_or(name))
            })
            .collect();
        let blocks: Vec<(&Relation, &Block)> = r
            .blocks()
            .filter(|(rel, b)| index_block(rel.relkind.as_deref(), b))
            .collect();
        out.push(format!(
            "{}. Rebuilding an index from its table loses nothing. An older copy of the page (from a backup or a WAL image) spliced into the live index would disagree with the table and its neighbour pages. Rebuild {}: {}",
            if zero_only {
                String::from(
                    "An index page that is all zeros where the index's links lead makes the server refuse every scan and insert that reaches it (\"Please REINDEX it.\")",
                )
            } else {
                format!("The damaged index pages ({}) are not restored from a copy", blocks_words(&blocks))
            },
            if reindex.len() == 1 { "it" } else { "them" },
            reindex.join("; ")
        ));
    }
    if !r.missing_indexes.is_empty() {
        let reindex: Vec<String> = r
            .missing_indexes
            .iter()
            .map(|m| format!("REINDEX INDEX {}", m.sql_index))
            .collect();
        let names: Vec<String> = r
            .missing_indexes
            .iter()
            .map(|m| format!("{} of {}", m.index, m.table))
            .collect();
        let one = r.missing_indexes.len() == 1;
        out.push(format!(
            "The {} {} {} no file in the data directory, so the server fails every query that opens {} (could not open file ...: No such file or directory), a query on the table too where the planner opens its indexes. Nothing is lost: an index is made from its table. On the running server: {}",
            if one { "index" } else { "indexes" },
            crate::words::and_list(&names),
            if one { "has" } else { "have" },
            if one { "it" } else { "them" },
            reindex.join("; ")
        ));
    }
    out.extend(map_step(r));
    out.push(if r.indexes_held > 0 {
        String::from(
            "Afterwards, on the running server: check the damaged tables and their indexes with pg_amcheck --heapallindexed before the REINDEX of an index that is not damaged itself (a damaged index cannot be checked: REINDEX it first). This report held the rows of the pages that verify against their B-tree indexes as the files were; the server's check covers the pages repaired since, and a REINDEX rebuilds an index from the rows as they are, erasing the trace of a value changed in memory before its page was checksummed. Then REINDEX the tables' indexes, check again, and take a new base backup.",
        )
    } else {
        String::from(
            "Afterwards, on the running server, before any REINDEX of the damaged tables' indexes: check them with pg_amcheck --heapallindexed. A row it finds without its index entry, or under another key, may be damage no checksum saw (a value changed in memory before the page was written and checksummed), and a REINDEX rebuilds the index from the changed rows and erases that trace. Then REINDEX those indexes (and every damaged index), check again, and take a new base backup. pgpage report holds rows against their indexes only when it reads a data directory (its catalogs name the indexes).",
        )
    });
    chain(&mut out);
    out
}

/// The verdict's clause for unique keys held twice: how many, and that REINDEX fails.
fn duplicates_clause(r: &Report) -> Option<String> {
    if r.duplicate_keys.is_empty() {
        return None;
    }
    let keys: u64 = r
        .duplicate_keys
        .iter()
        .map(|d| (d.tids.len() as u64).saturating_add(d.more))
        .fold(0, u64::saturating_add);
    let names: Vec<String> = r.duplicate_keys.iter().map(|d| d.index.clone()).collect();
    Some(format!(
        "{} of unique {} {} held by more than one row: the server reads them without a word, and REINDEX fails on them",
        plural(keys, "key", "keys"),
        if names.len() == 1 { "index" } else { "indexes" },
        crate::words::and_list(&names),
    ))
}

/// Whether `tid` (`(block,offset)`) lies on a block of `table` that the report names.
fn on_damaged_block(r: &Report, table: &str, tid: &str) -> bool {
    let block = tid
        .trim_start_matches('(')
        .split(',')
        .next()
        .and_then(|b| b.parse::<u32>().ok());
    r.relations
        .iter()
        .filter(|rel| rel.relation.as_deref() == Some(table))
        .flat_map(|rel| &rel.blocks)
        .any(|b| Some(b.block) == block)
}

/// Key groups named in a line; the rest are counted.
const DUPLICATES_SHOWN: usize = 10;

/// Each key's rows as `(60,3) and (61,3)`, groups separated by semicolons, the first
/// [`DUPLICATES_SHOWN`] of them.
fn duplicate_tids(tids: &[Vec<String>]) -> String {
    let shown: Vec<String> = tids
        .iter()
        .take(DUPLICATES_SHOWN)
        .map(|g| crate::words::and_list(g))
        .collect();
    shown.join("; ")
}

/// The finding for a unique index whose key more than one row holds (`tids`: each key's
/// rows, (block, line pointer); `more`: keys past those).
pub(super) fn duplicate_keys(
    index: &str,
    sql_index: &str,
    table: String,
    sql_table: String,
    tids: &[Vec<(u32, u16)>],
    more: u64,
) -> DuplicateKeys {
    let tids: Vec<Vec<String>> = tids
        .iter()
        .map(|g| g.iter().map(|(b, o)| format!("({b},{o})")).collect())
        .collect();
    let keys = (tids.len() as u64).saturating_add(more);
    let unnamed = keys.saturating_sub(tids.len().min(DUPLICATES_SHOWN) as u64);
    let line = format!(
        "unique index {index} of table {table}: {} held by more than one row a new snapshot sees ({}{}). One row of each is an older version of its row (a page restored from an older copy, or a write that was lost) or a duplicate the index let in; the server returns one or the other depending on the plan, and REINDEX INDEX {sql_index} fails on them (could not create unique index ... is duplicated) until one row of each key is gone",
        plural(keys, "key is", "keys are"),
        duplicate_tids(&tids),
        if unnamed > 0 {
            format!("; {unnamed} more")
        } else {
            String::new()
        }
    );
    DuplicateKeys {
        index: String::from(index),
        sql_index: String::from(sql_index),
        table,
        sql_table,
        tids,
        more,
        line,
    }
}

/// The step for a unique index's keys held twice: which rows, how to look at them, and that
/// one of each goes before the index is rebuilt.
fn duplicate_step(d: &DuplicateKeys) -> String {
    let all: Vec<String> = d
        .tids
        .iter()
        .take(DUPLICATES_SHOWN)
        .flatten()
        .map(|t| format!("\"{t}\""))
        .collect();
    format!(
        "Before any REINDEX of {}: the rows of {} hold {} twice among the rows a new snapshot sees ({}), and the REINDEX fails on them. On the running server, look at each pair (a TID scan reads the table without the index):\n{}\nKeep the row whose values are current (the application's records say which; of two versions of one row, the older one's columns are those of before its last update), delete the other by its ctid (BLOCK,OFFSET), then rebuild the index:\n{}\n{}",
        d.index,
        d.table,
        plural((d.tids.len() as u64).saturating_add(d.more), "key", "keys"),
        duplicate_tids(&d.tids),
        command_line(&format!(
            "SELECT ctid, xmin, * FROM {} WHERE ctid = ANY ('{{{}}}'::tid[]);",
            d.sql_table,
            all.join(",")
        )),
        command_line(&format!(
            "DELETE FROM {} WHERE ctid = '(BLOCK,OFFSET)';",
            d.sql_table
        )),
        command_line(&format!("REINDEX INDEX {};", d.sql_index))
    )
}

/// The maps' pages the server zeroes: VACUUM writes them anew. Until then every read of
/// such a page logs the WARNING again, and a zeroed visibility map page sends index-only
/// scans to the heap and VACUUM to every page it covers.
fn map_step(r: &Report) -> Option<String> {
    if r.map_pages.is_empty() {
        return None;
    }
    let mut tables: Vec<String> = Vec::new();
    let mut pages: Vec<String> = Vec::new();
    for m in &r.map_pages {
        pages.push(format!("{} block {}", m.file, m.block));
        let table = m
            .relation
            .clone()
            .unwrap_or_else(|| String::from("its table"));
        if !tables.contains(&table) {
            tables.push(table);
        }
    }
    let vm = r.map_pages.iter().any(|m| m.fork == "vm");
    Some(format!(
        "The map {} {} cannot be verified: the server zeroes {} in memory each time it reads {}, with a WARNING, and goes on; no row is lost. Nothing to copy or repair: on the running server, VACUUM {} sets the map again, which writes the page anew.{}",
        if pages.len() == 1 { "page" } else { "pages" },
        crate::words::and_list(&pages),
        if pages.len() == 1 { "it" } else { "each" },
        if pages.len() == 1 { "it" } else { "one" },
        crate::words::and_list(&tables),
        if vm {
            " Until then, the heap blocks that visibility map page covers count as neither all-visible nor all-frozen: index-only scans read the heap for them and VACUUM reads every one."
        } else {
            ""
        }
    ))
}

/// Steps that repair the same file one after another: each later step's command reads the
/// copy the step before made (`NEW_FROM_STEP_N`), not the damaged file again, so that the
/// steps followed in order keep every repair. recover's step comes first (`replay_step`):
/// it reads its file in place in the data directory, which a copy outside it is not.
fn chain(steps: &mut [String]) {
    // Each file's newest copy: the step whose NEW holds it.
    let mut newest: BTreeMap<String, usize> = BTreeMap::new();
    let mut read_later: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, step) in steps.iter_mut().enumerate() {
        let n = i.saturating_add(1);
        let mut reads: Vec<(String, usize)> = Vec::new();
        let mut in_place: Vec<(String, usize)> = Vec::new();
        let mut wrote: Vec<String> = Vec::new();
        // Within a step, the lines for one block are alternatives (flip candidates), while
        // another block of the same file is one more repair: it reads the first one's NEW.
        let mut block_input: BTreeMap<(String, String), String> = BTreeMap::new();
        let mut last_block: BTreeMap<String, String> = BTreeMap::new();
        // (placeholder, file, its block before, the block that goes on from it).
        let mut goes_on: Vec<(String, String, String, String)> = Vec::new();
        // (file, its block before, the in-place block that goes on from it).
        let mut placed: Vec<(String, String, String)> = Vec::new();
        let lines: Vec<String> = step
            .split('\n')
            .map(|line| {
                // recover and repair --torn read their file in place: recover beside the
                // directory's pg_control and WAL, --torn beside its catalogs.
                let recover = line.starts_with("  pgpage recover ")
                    || (line.starts_with("  pgpage repair ") && line.contains(" --torn "));
                let repair = line.starts_with("  pgpage repair ") || recover;
                let Some((head, tail)) = line.split_once(" --out NEW ").filter(|_| repair) else {
                    return String::from(line);
                };
                let (file, comment) = match tail.split_once("  #") {
                    Some((f, c)) => (f, format!("  #{c}")),
                    None => (tail, String::new()),
                };
                let file = String::from(file.trim_end());
                let block = head
                    .split_once(" --block ")
                    .and_then(|(_, b)| b.split(' ').next())
                    .map(String::from)
                    .unwrap_or_default();
                let input = match block_input.get(&(file.clone(), block.clone())) {
                    Some(input) => input.clone(),
                    None => {
                        let input = match (last_block.get(&file), newest.get(&file)) {
                            // An in-place command goes on from the block before's NEW put
                            // in place of the file.
                            (Some(prev), _) if recover => {
                                placed.push((file.clone(), prev.clone(), block.clone()));
                                file.clone()
                            }
                            (Some(prev), _) => {
                                // Two files of the step may both go on from their block 1:
                                // the second's placeholder names its file.
                                let plain = format!("NEW_OF_BLOCK_{prev}");
                                let taken =
                                    goes_on.iter().any(|(p, f, ..)| *p == plain && *f != file);
                                let placeholder = if taken {
                                    format!(
                                        "{plain}_OF_{}",
                                        file.rsplit('/').next().unwrap_or(&file)
                                    )
                                } else {
                                    plain
                                };
                                goes_on.push((
                                    placeholder.clone(),
                                    file.clone(),
                                    prev.clone(),
                                    block.clone(),
                                ));
                                placeholder
                            }
                            // recover reads its file in place, beside the data directory's
                            // pg_control and WAL: the copy the step before made goes there.
                            (None, Some(&from)) if recover => {
                                if !in_place.iter().any(|(f, _)| *f == file) {
                                    in_place.push((file.clone(), from));
                                }
                                file.clone()
                            }
                            (None, Some(&from)) => {
                                if !reads.iter().any(|(f, _)| *f == file) {
                                    reads.push((file.clone(), from));
                                }
                                format!("NEW_FROM_STEP_{from}")
                            }
                            (None, None) => file.clone(),
                        };
                        block_input.insert((file.clone(), block.clone()), input.clone());
                        last_block.insert(file.clone(), block);
                        input
                    }
                };
                wrote.push(file);
                format!("{head} --out NEW {input}{comment}")
            })
            .collect();
        if reads.is_empty() && wrote.is_empty() {
            continue;
        }
        let mut text = lines.join("\n");
        for (file, from) in &in_place {
            text.push_str(&format!(
                "\nFirst put the copy step {from} made of {file} (its NEW, the last one where it made several) in place of {file} in the copy of the data directory: this step reads the file in place, beside the directory's catalogs, pg_control and WAL. It goes on from that copy, keeping its repair."
            ));
            read_later.entry(*from).or_default().push(n);
        }
        for (file, prev, block) in &placed {
            text.push_str(&format!(
                "\nBlock {block}'s command reads {file} in place too: first put the NEW made for block {prev} above in place of {file}, keeping that repair."
            ));
        }
        for (placeholder, file, prev, block) in &goes_on {
            text.push_str(&format!(
                "\n{placeholder}: the NEW made for block {prev} of {file} above (the command you kept). Block {block} is in the same file and goes on from it, keeping that repair."
            ));
        }
        for (file, from) in &reads {
            text.push_str(&format!(
                "\nNEW_FROM_STEP_{from}: the copy step {from} made of {file} (its NEW, the last one where it made several). This step goes on from it, keeping that repair."
            ));
            read_later.entry(*from).or_default().push(n);
        }
        *step = text;
        for file in wrote {
            newest.insert(file, n);
        }
    }
    for (from, later) in read_later {
        let Some(step) = steps.get_mut(from.saturating_sub(1)) else {
            continue;
        };
        let later: Vec<String> = later.iter().map(usize::to_string).collect();
        step.push_str(&format!(
            "\nRun this step before step{} {}: {} on from its NEW.",
            if later.len() == 1 { "" } else { "s" },
            crate::words::and_list(&later),
            if later.len() == 1 {
                "it goes"
            } else {
                "they go"
            }
        ));
    }
}

/// What a table's zeroed pages (relation-wide blocks `zeroed`) do to the queries that use
/// its indexes: heap_hot_search_buffer finds no line pointer on an empty page, so every
/// entry into it leads nowhere, silently.
fn zeroed_heap_step(r: &Report, rel: &Relation, zeroed: &[String]) -> String {
    let name = rel.relation.as_deref().unwrap_or(&rel.path);
    let blocks = zeroed.join(", ");
    let damaged = |ix: &str| {
        r.relations
            .iter()
            .any(|o| o.relation.as_deref() == Some(ix))
    };
    let indexes: Vec<String> = rel
        .indexes
        .iter()
        .map(|(ix, _)| {
            if damaged(ix) {
                format!("{ix} (itself damaged: see its blocks above)")
            } else {
                ix.clone()
            }
        })
        .collect();
    let fallout = match indexes.as_slice() {
        [] => String::from(
            "An index scan through any index of the table that still points into it finds no tuple there and returns nothing for that row.",
        ),
        list => format!(
            "{} {}, which still {} into it, find no tuple there and return nothing for those rows (an index-only scan may still return their indexed columns while the visibility map marks the block all-visible).",
            if list.len() == 1 { "Index scans through its index" } else { "Index scans through its indexes" },
            list.join(", "),
            if list.len() == 1 { "points" } else { "point" }
        ),
    };
    let reindex = match rel.indexes.as_slice() {
        [] => String::from("REINDEX the table's indexes"),
        list => format!(
            "REINDEX {} ({})",
            if list.len() == 1 {
                "that index"
            } else {
                "those indexes"
            },
            list.iter()
                .map(|(_, sql)| format!("REINDEX INDEX {sql}"))
                .collect::<Vec<_>>()
                .join("; ")
        ),
    };
    format!(
        "{} {blocks} of {name} {} all zeros. The server reads it as empty, without an error: sequential scans miss its rows. {fallout} Restore the page, or {reindex} so that they agree with the table; its rows are then gone from every query.",
        if zeroed.len() == 1 { "Block" } else { "Blocks" },
        if zeroed.len() == 1 { "is" } else { "are" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::file::scan::{ChecksumsKnown, FileScan};
    use crate::file::Geometry;
    use crate::page::geometry::BlockSize;

    /// Two blocks: a page of noise whose "header" claims a count of line pointers, then an
    /// all-zero page.
    fn relation(indexes: Vec<IndexInput>) -> Report {
        let mut bytes = alloc::vec![0u8; 2 * 8192];
        let mut x = 7u64;
        for b in bytes.iter_mut().take(8192) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *b = x as u8;
        }
        // pd_lower 1024: a noise header that would "hold" 250 line pointers.
        bytes[12..14].copy_from_slice(&1024u16.to_le_bytes());
        let geometry = Geometry {
            block_size: BlockSize::DEFAULT,
            endian: Endian::Little,
            block_size_assumed: false,
            byte_order_detected: false,
        };
        let mut scan = FileScan::new(geometry, 0, bytes.len() as u64).unwrap();
        scan.chunk(&bytes, 0);
        let verdict = scan.finish(ChecksumsKnown::On);
        let zero_blocks = alloc::vec![1];
        let pages = wanted_blocks(&verdict, &zero_blocks)
            .into_iter()
            .map(|b| {
                (
                    b,
                    bytes[b as usize * 8192..(b as usize + 1) * 8192].to_vec(),
                )
            })
            .collect();
        build(&Input {
            data_directory: None,
            flushed: None,
            map_pages: Vec::new(),
            missing_indexes: Vec::new(),
            duplicate_keys: Vec::new(),
            cluster: ClusterFacts::default(),
            relations: alloc::vec![RelationInput {
                missing_blocks: Vec::new(),
                copies: BTreeMap::new(),
                database: None,
                relation: Some(String::from("public.t")),
                relname: Some(String::from("t")),
                sql_name: Some(String::from("public.t")),
                relkind: Some('r'),
                endian: Endian::Little,
                files: alloc::vec![FileInput {
                    path: String::from("base/5/16384"),
                    verdict,
                    zero_blocks,
                    pages,
                }],
                columns: None,
                log: None,
                indexes,
                sound_pages: BTreeMap::new(),
                key_mismatches: BTreeMap::new(),
                next_xid: None,
                rows_held: 0,
                whole_indexes: Vec::new(),
                indexes_held: 0,
                relfrozenxid: None,
            }],
            unknown: Vec::new(),
        })
    }

    /// A stale page is said from its pd_lsn forward: the last change it lacks, where that
    /// record ends (the pd_lsn a page written since would carry) and the redo point; not
    /// how many records changed the block since the WAL read began, which the page holds
    /// most of.
    #[test]
    fn a_stale_page_says_the_change_it_lacks() {
        let changed = crate::wal::FlushedBlock {
            first: 0x1AC_51E0,
            newest: 0x1D3_3618,
            newest_end: 0x1D3_4BA8,
            records: 111,
            image: Some(0x1D3_3618),
        };
        let lsn = |l: u64| crate::page::lsn::lsn_text(Some(14), l);
        let words = stale_words(50, 0x1C2_BF50, &changed, 0x1D7_B5E8, &lsn);
        assert_eq!(
            words,
            "the page's pd_lsn is 0/1C2BF50, but the WAL changed block 50 after it: last by the record at 0/1D33618 (a full-page image of the block), which ends at 0/1D34BA8, before the latest checkpoint's redo point 0/1D7B5E8; that checkpoint wrote every page changed before its redo point, so the block on disk should carry a pd_lsn of at least 0/1D34BA8: this page is an older version of the block (a lost write, or a stale restore)"
        );
        // An image older than the page is none of the changes it lacks.
        let older_image = crate::wal::FlushedBlock {
            image: Some(0x1B0_0000),
            ..changed
        };
        assert!(!stale_words(50, 0x1C2_BF50, &older_image, 0x1D7_B5E8, &lsn).contains("image"));
        let earlier_image = crate::wal::FlushedBlock {
            image: Some(0x1D0_0000),
            ..changed
        };
        assert!(stale_words(50, 0x1C2_BF50, &earlier_image, 0x1D7_B5E8, &lsn)
            .contains("redo point 0/1D7B5E8 (a full-page image of the block at 0/1D00000 is among those changes);"));
    }

    /// Two blocks of one file in one step are two repairs, the second on the first's NEW;
    /// a block's flip candidates stay alternatives on the same input; a later step on the
    /// file reads the step's copy.
    #[test]
    fn steps_chain_within_and_across() {
        let mut steps = alloc::vec![
            String::from("Flip:\n  pgpage repair --block 20 --flip 1:2 --out NEW d/base/5/1  # a\n  pgpage repair --block 20 --flip 3:4 --out NEW d/base/5/1\n  pgpage repair --block 40 --flip 5:6 --out NEW d/base/5/1\n  pgpage repair --block 1 --flip 7:0 --out NEW d/base/5/2"),
            String::from("Backup:\n  pgpage repair --block 51 --from BACKUP_FILE --out NEW d/base/5/1"),
        ];
        chain(&mut steps);
        let first: Vec<&str> = steps[0].lines().collect();
        assert_eq!(
            first[1],
            "  pgpage repair --block 20 --flip 1:2 --out NEW d/base/5/1  # a"
        );
        assert_eq!(
            first[2],
            "  pgpage repair --block 20 --flip 3:4 --out NEW d/base/5/1"
        );
        assert_eq!(
            first[3],
            "  pgpage repair --block 40 --flip 5:6 --out NEW NEW_OF_BLOCK_20"
        );
        assert_eq!(
            first[4],
            "  pgpage repair --block 1 --flip 7:0 --out NEW d/base/5/2"
        );
        assert!(steps[0].contains("NEW_OF_BLOCK_20: the NEW made for block 20 of d/base/5/1 above"));
        assert!(steps[0].ends_with("Run this step before step 2: it goes on from its NEW."));
        assert!(steps[1].contains("--from BACKUP_FILE --out NEW NEW_FROM_STEP_1"));
    }

    /// Two files that each go on from their block 1 in one step: each placeholder stands
    /// for one file's copy, and says which.
    #[test]
    fn steps_chain_two_files_with_the_same_blocks() {
        let mut steps = alloc::vec![String::from(
            "Backup:\n  pgpage repair --block 1 --from BACKUP_FILE --out NEW s/16427.2\n  pgpage repair --block 2 --from BACKUP_FILE --out NEW s/16427.2\n  pgpage repair --block 1 --from BACKUP_FILE --out NEW s/90004\n  pgpage repair --block 2 --from BACKUP_FILE --out NEW s/90004"
        )];
        chain(&mut steps);
        let lines: Vec<&str> = steps[0].lines().collect();
        assert_eq!(
            lines[2],
            "  pgpage repair --block 2 --from BACKUP_FILE --out NEW NEW_OF_BLOCK_1"
        );
        assert_eq!(
            lines[4],
            "  pgpage repair --block 2 --from BACKUP_FILE --out NEW NEW_OF_BLOCK_1_OF_90004"
        );
        assert!(steps[0].contains("\nNEW_OF_BLOCK_1: the NEW made for block 1 of s/16427.2 above"));
        assert!(steps[0]
            .contains("\nNEW_OF_BLOCK_1_OF_90004: the NEW made for block 1 of s/90004 above"));
    }

    #[test]
    fn locators_of_relation_paths() {
        assert_eq!(
            crate::file::datadir::locator_of("base/5/16384.2"),
            Some((1663, 5, 16384))
        );
        assert_eq!(
            crate::file::datadir::locator_of("/d/base/5/16384"),
            Some((1663, 5, 16384))
        );
        assert_eq!(
            crate::file::datadir::locator_of("global/1262"),
            Some((1664, 0, 1262))
        );
        assert_eq!(
            crate::file::datadir::locator_of("pg_tblspc/16390/PG_16_202307071/5/16391"),
            Some((16390, 5, 16391))
        );
        assert_eq!(crate::file::datadir::locator_of("16384"), None);
    }

    #[test]
    fn noise_gives_no_count_without_an_index() {
        let r = relation(Vec::new());
        let blocks = &r.relations[0].blocks;
        // The trailing zero page is no damage: nothing says rows were there.
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].damage, Damage::Overwritten);
        let rows = blocks[0].rows.as_ref().unwrap();
        assert_eq!(rows.known_from, KnownFrom::Unknown);
        assert_eq!(rows.lost, None);
        assert!(r.verdict.contains("rows lost: unknown"), "{}", r.verdict);
    }

    #[test]
    fn an_index_counts_the_rows_of_noise_and_of_a_zero_page() {
        let entry = |block, offset, dead| LeafEntry {
            block,
            offset,
            dead,
            keys: Some(alloc::vec![Some(alloc::format!("{block}-{offset}"))]),
        };
        let r = relation(alloc::vec![IndexInput {
            name: String::from("public.t_pkey"),
            sql_name: String::from("public.t_pkey"),
            keys_known: true,
            key_types: alloc::vec![crate::tuple::value::Type::Text],
            uniqueness: 2,
            unreadable_pages: 0,
            entries: alloc::vec![
                entry(0, 1, false),
                entry(0, 2, false),
                entry(0, 3, true),
                entry(1, 1, false),
            ],
            key_columns: Vec::new(),
        }]);
        let blocks = &r.relations[0].blocks;
        assert_eq!(blocks.len(), 2);
        let noise = blocks.iter().find(|b| b.block == 0).unwrap();
        let rows = noise.rows.as_ref().unwrap();
        assert_eq!((rows.known_from, rows.lost), (KnownFrom::Index, Some(2)));
        assert_eq!(
            rows.keys,
            alloc::vec![
                alloc::vec![Some(String::from("0-1"))],
                alloc::vec![Some(String::from("0-2"))]
            ]
        );
        let zero = blocks.iter().find(|b| b.block == 1).unwrap();
        assert_eq!(zero.damage, Damage::Zeroed);
        assert_eq!(zero.rows.as_ref().unwrap().lost, Some(1));
        assert!(r.verdict.ends_with("3 rows lost"), "{}", r.verdict);
        // The zeroed page's step names the index whose entries lead into it, and the repair.
        let step = r
            .steps
            .iter()
            .find(|s| s.starts_with("Block 1 of public.t is all zeros"))
            .unwrap();
        assert!(step
            .contains("Index scans through its index public.t_pkey, which still points into it"));
        assert!(step.contains("REINDEX that index (REINDEX INDEX public.t_pkey)"));
        let text = text(&r);
        assert!(!text.contains('…') && !text.contains("%u"));
    }

    #[test]
    fn evidence_said_of_an_earlier_block_is_not_repeated() {
        let mut r = relation(Vec::new());
        let mut again = r.relations[0].blocks[0].clone();
        again.block = 7;
        again.block_in_file = 7;
        r.relations[0].blocks.push(again);
        let first = r.relations[0].blocks[0].evidence[0].clone();
        for out in [text(&r), markdown(&r)] {
            assert_eq!(out.matches(first.as_str()).count(), 1, "{out}");
            assert!(
                out.contains("(the same odds and evidence as for block 0 above)"),
                "{out}"
            );
        }
        // The JSON keeps every block's evidence whole.
        assert_eq!(r.relations[0].blocks[1].evidence[0], first);
    }
}
