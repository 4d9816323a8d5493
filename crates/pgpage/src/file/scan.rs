//! A relation file's verdict, as the CLI and the browser both give it: pages fed in chunks in
//! any order (and by several threads or workers, whose scans merge), then one `finish` that
//! decides what only the whole file tells: whether checksums are on, which mismatching pages
//! were written for another block (and how sure that is), whether the whole file was written
//! as another segment, and the short read of a partial last block.

use alloc::sync::Arc;
use alloc::vec::Vec;
use serde::Serialize;

use crate::am::check_page;
use crate::am::decoded::{DecodeOptions, Hints, ItemFinding};
use crate::am::heap::check::HeapContext;
use crate::am::maps::walk::ForkMaps;
use crate::am::nbtree::check::KeyColumn;
use crate::am::nbtree::layout::{MAX_BT_CYCLE_ID, P_NONE};
use crate::am::nbtree::walk::{BtMeta, BtPage, Pivot};
use crate::file::{ChecksumCounts, FileExtent, Geometry, StatusCounts};
use crate::findings::{Evidence, Finding, Values};
use crate::page::bufpage::{SIZE_OF_ITEM_ID, SIZE_OF_PAGE_HEADER_DATA};
use crate::page::checksum::{blocks_matching, checksum_fold, finish as checksum_finish};
use crate::page::fields::{HEAP_TUPLE_HEADER_DATA, LP_NORMAL};
use crate::page::geometry::{BlockSize, Endian};
use crate::page::kind::PageKind;
use crate::page::reader::Reader;
use crate::page::verify::{header_check, verify_page, HeaderCheck, PageStatus, PageVerdict};
use crate::tuple::visibility::TransactionLog;

/// What the caller knows of the cluster's data checksums (pg_control's
/// data_checksum_version; checksum.h ChecksumStateType).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChecksumsKnown {
    /// 1 (PG_DATA_CHECKSUM_VERSION), or any value but 0 before 19.
    On,
    /// 0.
    Off,
    /// Nothing said: the file decides (checksums are off when every page with a header
    /// stores pd_checksum 0, as every page of a cluster initialized without them does).
    Unknown,
    /// 3, from 19 on: checksums are being enabled while the server runs. Every write computes
    /// one, no read verifies one, and a worker rewrites every page.
    InProgressOn,
    /// 2, from 19 on: checksums are being disabled. Still written, no longer verified.
    InProgressOff,
}

impl ChecksumsKnown {
    /// The code the wasm bindings pass (0 unknown, 1 on, 2 off, 3 inprogress-on,
    /// 4 inprogress-off).
    pub fn from_code(code: u8) -> Option<ChecksumsKnown> {
        match code {
            0 => Some(ChecksumsKnown::Unknown),
            1 => Some(ChecksumsKnown::On),
            2 => Some(ChecksumsKnown::Off),
            3 => Some(ChecksumsKnown::InProgressOn),
            4 => Some(ChecksumsKnown::InProgressOff),
            _ => None,
        }
    }

    /// `from_code`'s code.
    pub fn code(self) -> u8 {
        match self {
            ChecksumsKnown::Unknown => 0,
            ChecksumsKnown::On => 1,
            ChecksumsKnown::Off => 2,
            ChecksumsKnown::InProgressOn => 3,
            ChecksumsKnown::InProgressOff => 4,
        }
    }

    /// What pg_control's data_checksum_version says (None: no pg_control to trust). Before
    /// 19 the server took every value but 0 as on; 2 and 3 are 19's states of a change.
    pub fn of_version(version: Option<u32>) -> ChecksumsKnown {
        match version {
            None => ChecksumsKnown::Unknown,
            Some(0) => ChecksumsKnown::Off,
            Some(2) => ChecksumsKnown::InProgressOff,
            Some(3) => ChecksumsKnown::InProgressOn,
            Some(_) => ChecksumsKnown::On,
        }
    }

    /// Whether the server may verify a page's checksum when it reads it (DataChecksumsNeedVerify
    /// holds in state on alone; unknown: a file's own pages decide).
    pub fn verified_on_read(self) -> bool {
        matches!(self, ChecksumsKnown::On | ChecksumsKnown::Unknown)
    }

    /// A change of state is under way (19's inprogress-on or inprogress-off): checksums are
    /// written and not verified, and pages may or may not carry a valid one yet.
    pub fn in_progress(self) -> bool {
        matches!(
            self,
            ChecksumsKnown::InProgressOn | ChecksumsKnown::InProgressOff
        )
    }

    /// What the server does with checksums in a state of change (datachecksum_state.c,
    /// xlog.c DataChecksumsNeedWrite and DataChecksumsNeedVerify), in a sentence; None in
    /// the other states.
    pub fn change_words(self) -> Option<&'static str> {
        match self {
            ChecksumsKnown::InProgressOn => Some(
                "data checksums are being enabled (inprogress-on): the server computes a \
                 checksum on every page it writes but verifies none when it reads, and a \
                 background worker rewrites every page so that each carries one; pages it has \
                 not reached yet carry none that is valid, and no page is a checksum failure",
            ),
            ChecksumsKnown::InProgressOff => Some(
                "data checksums are being disabled (inprogress-off): the server still computes a \
                 checksum on every page it writes but verifies none when it reads, and turns \
                 them off once every process has seen the change, or at its next start; no page \
                 is a checksum failure",
            ),
            _ => None,
        }
    }

    /// As `SHOW data_checksums` names the state, or `unknown`.
    pub fn as_str(self) -> &'static str {
        match self {
            ChecksumsKnown::On => "on",
            ChecksumsKnown::Off => "off",
            ChecksumsKnown::Unknown => "unknown",
            ChecksumsKnown::InProgressOn => "inprogress-on",
            ChecksumsKnown::InProgressOff => "inprogress-off",
        }
    }
}

/// Why a scan cannot be made, imported or merged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanError {
    /// The file holds more blocks than a BlockNumber counts.
    TooLong,
    /// Exported bytes that are not a scan of this version.
    NotAScan,
    /// Two scans of different files (geometry, segment or length).
    DifferentFiles,
}

impl core::fmt::Display for ScanError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            ScanError::TooLong => "the file holds more blocks than PostgreSQL can number",
            ScanError::NotAScan => "not an exported file scan of this pgpage version",
            ScanError::DifferentFiles => "the two scans are of different files",
        })
    }
}

/// pd_checksum values are 1..=65535 (checksum.c: "% 65535 + 1"): the chance that a page's
/// checksum is valid for one other given block.
const CHECKSUM_VALUES: f64 = 65535.0;

/// How likely a bare checksum match is over a searched range of blocks.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Chance {
    /// Blocks searched.
    pub searched: u32,
    /// Blocks of the range for which the stored checksum is valid.
    pub matches: u32,
    /// Chance matches expected in the range: searched / 65535.
    pub expected: f64,
    /// Probability of at least one chance match: 1 - (1 - 1/65535)^searched.
    pub probability: f64,
}

impl Chance {
    pub fn of(searched: u32, matches: u32) -> Chance {
        let miss = 1.0 - 1.0 / CHECKSUM_VALUES;
        // (1 - p)^n by squaring: core has no powf.
        let (mut base, mut n, mut all_miss) = (miss, searched, 1.0f64);
        while n > 0 {
            if n & 1 == 1 {
                all_miss *= base;
            }
            base *= base;
            n >>= 1;
        }
        Chance {
            searched,
            matches,
            expected: f64::from(searched) / CHECKSUM_VALUES,
            probability: 1.0 - all_miss,
        }
    }
}

/// The block a mismatching page was written for, and why we think so.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Misplaced {
    /// Relation-wide block number.
    pub block: u32,
    /// The same block as segment and block within it.
    pub segno: u32,
    pub block_in_segment: u32,
    /// `MisplacedByTupleIds` or `MisplacedBySiblingLinks` (a claim, Evidence::Corroborated)
    /// or `ChecksumMatchesOtherBlock` (a candidate, Evidence::Candidate, with its odds).
    pub finding: Finding,
    pub chance: Option<Chance>,
}

impl Misplaced {
    /// Whether something besides the checksum agrees.
    pub fn is_claim(&self) -> bool {
        self.chance.is_none()
    }
}

/// One page the verdict lists: a problem page, or a page with a finding.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PageRow {
    /// Block within the file.
    pub block: u32,
    pub absolute_block: u32,
    pub status: PageStatus,
    pub stored: u16,
    /// None for new pages and when checksums are off: the server computes none.
    pub computed: Option<u16>,
    /// Every finding about the page, the status's first.
    pub findings: Vec<Finding>,
    pub misplaced: Option<Misplaced>,
    /// The block the page's own heap tuples name (t_ctid pointing at themselves), when a
    /// majority of them agree.
    pub tuple_block: Option<u32>,
    /// The structural checks' findings (`FileScan::set_structure`), each with the line
    /// pointer it is about; each is in `findings` too.
    pub structure: Vec<ItemFinding>,
}

impl PageRow {
    /// Whether the server fails to read the page: a status it refuses, or a page its access
    /// method refuses (a B-tree's zero page its links reach), as `FileVerdict::is_problem`
    /// counts the file.
    pub fn is_problem(&self) -> bool {
        self.status.is_problem()
            || self
                .structure
                .iter()
                .any(|f| f.finding.evidence() == Evidence::Server)
    }

    /// Where the page was written, when something besides its checksum says so: what
    /// `verify --json` prints as `matches_block` (docs/contracts.md, "verify --json").
    pub fn claim(&self) -> Option<Misplaced> {
        self.misplaced.filter(Misplaced::is_claim)
    }

    /// Whether `f`, one of the page's findings, is a routine note, which the server needs
    /// no help with. On a page that fails its checksum the all-visible flag without its
    /// visibility map bit is not: it may be the damage's own trace (a torn page's older
    /// header, whose bit later changes cleared), said with the page's damage instead.
    pub fn routine_note(&self, f: Finding) -> bool {
        f.evidence() == Evidence::Note
            && !(self.status == PageStatus::Mismatch && f == Finding::PageFlagWithoutVmBit)
    }
}

/// A finding about the whole file, with what fills its message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum FileFinding {
    /// md.c: the partial block `block` reads `bytes` of `block_size`.
    ReadShort {
        block: u32,
        bytes: u32,
        block_size: u32,
    },
    /// `from_pages`: no page stores a checksum (rather than pg_control saying so).
    ChecksumsDisabled { from_pages: bool },
    /// `pages` of the file verify as segment `segno`.
    WrittenAsSegment { segno: u32, pages: u32 },
    /// `pages` of the file verify with its block 0 as relation block `first_block`.
    WrittenAtOffset { first_block: u32, pages: u32 },
    /// `pages` all-zero pages from `block` on, before a later heap page with line pointers.
    ZeroPageBetweenRows { block: u32, pages: u32 },
}

impl FileFinding {
    pub fn finding(&self) -> Finding {
        match self {
            FileFinding::ReadShort { .. } => Finding::ReadShort,
            FileFinding::ChecksumsDisabled { .. } => Finding::ChecksumsDisabled,
            FileFinding::WrittenAsSegment { .. } => Finding::FileWrittenAsSegment,
            FileFinding::WrittenAtOffset { .. } => Finding::FileWrittenAtOffset,
            FileFinding::ZeroPageBetweenRows { .. } => Finding::ZeroPageBetweenRows,
        }
    }

    /// The finding's message with its values filled in; `path` names the file as the
    /// server would (`base/5/16385.2`).
    pub fn describe(&self, path: &str) -> alloc::string::String {
        use alloc::format;
        match *self {
            FileFinding::ReadShort {
                block,
                bytes,
                block_size,
            } => format!(
                "could not read block {block} in file \"{path}\": read only {bytes} of {block_size} bytes"
            ),
            FileFinding::ChecksumsDisabled { .. } => Finding::ChecksumsDisabled.message().into(),
            FileFinding::WrittenAsSegment { segno, pages } => format!(
                "these pages were written as segment {segno} of the relation ({pages} pages verify there)"
            ),
            FileFinding::WrittenAtOffset { first_block, pages } => format!(
                "these pages were written as relation blocks {first_block} and on ({pages} pages verify there)"
            ),
            FileFinding::ZeroPageBetweenRows { block, pages } => {
                let what = Finding::ZeroPageBetweenRows.message();
                match block.checked_add(pages).and_then(|end| end.checked_sub(1)) {
                    Some(last) if last != block => {
                        format!("blocks {block} to {last} ({pages} pages): {what}")
                    }
                    _ => format!("block {block}: {what}"),
                }
            }
        }
    }
}

/// A file's verdict.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileVerdict {
    pub geometry: Geometry,
    pub segno: u32,
    pub blocks: u32,
    pub trailing_bytes: u32,
    pub checksums_disabled: bool,
    /// The cluster is changing its data checksums (19's inprogress states): no read verifies
    /// a checksum, so no page is a mismatch, and `checksum_counts` says how far pages are.
    pub checksums_in_progress: bool,
    /// Every whole page by status, as the server judges it with checksums on or off.
    pub counts: StatusCounts,
    /// Every page that is not all zeros by whether its checksum is valid (in any state).
    pub checksum_counts: ChecksumCounts,
    /// Problem pages and pages with findings, in block order.
    pub pages: Vec<PageRow>,
    pub findings: Vec<FileFinding>,
}

impl FileVerdict {
    /// Whether the server would fail to read some block of the file: a status it refuses,
    /// a short read, or a page its access method refuses (a B-tree's zero page it reaches).
    pub fn is_problem(&self) -> bool {
        self.counts.problems() > 0
            || self.trailing_bytes > 0
            || self.pages.iter().any(PageRow::is_problem)
    }

    /// A status as a chunk saw it (checksums on) as this verdict judges a page it does not
    /// list: with checksums off, or while they change, the server never compares them, so a
    /// mismatch is no problem. (A page the verdict lists has its row's status.)
    pub fn judged(&self, status: PageStatus) -> PageStatus {
        match status {
            PageStatus::Mismatch if self.checksums_disabled || self.checksums_in_progress => {
                PageStatus::Ok
            }
            s => s,
        }
    }

    /// Page `block`'s row, whose bytes are `page`: the listed one, or, for a page the verdict
    /// does not list (the server reads it without complaint), one made from its bytes, with
    /// the checksum only where the server computes one.
    pub fn row_for(&self, block: u32, page: &[u8]) -> PageRow {
        if let Some(row) = self.pages.iter().find(|r| r.block == block) {
            return row.clone();
        }
        let absolute_block = self.geometry.block_size.absolute_block(self.segno, block);
        let v = verify_page(page, absolute_block, self.geometry.endian);
        PageRow {
            block,
            absolute_block,
            status: self.judged(v.status),
            stored: v.stored,
            computed: v.computed.filter(|_| !self.checksums_disabled),
            findings: Vec::new(),
            misplaced: None,
            tuple_block: None,
            structure: Vec::new(),
        }
    }
}

/// Pages by status as chunks see them (checksums on), with mismatches split by header
/// sanity so `finish` can judge them with checksums off.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    ok: u64,
    mismatch_sane: u64,
    mismatch_insane: u64,
    zero: u64,
    new_not_zero: u64,
    bad_header: u64,
    /// Pages whose heap tuples name a block.
    tuple_pages: u64,
    /// Pages not all zeros whose stored checksum is valid for their block.
    checksum_valid: u64,
    /// Pages not all zeros whose stored checksum is neither valid nor 0.
    checksum_invalid_nonzero: u64,
}

impl Counts {
    fn fields(&mut self) -> [&mut u64; 9] {
        [
            &mut self.ok,
            &mut self.mismatch_sane,
            &mut self.mismatch_insane,
            &mut self.zero,
            &mut self.new_not_zero,
            &mut self.bad_header,
            &mut self.tuple_pages,
            &mut self.checksum_valid,
            &mut self.checksum_invalid_nonzero,
        ]
    }

    fn checksums(&self) -> ChecksumCounts {
        let not_zero = [
            self.ok,
            self.mismatch_sane,
            self.mismatch_insane,
            self.new_not_zero,
            self.bad_header,
        ]
        .iter()
        .fold(0u64, |a, &n| a.saturating_add(n));
        ChecksumCounts {
            checksums_valid: self.checksum_valid,
            checksums_not_yet: not_zero.saturating_sub(self.checksum_valid),
            checksums_not_yet_nonzero: self.checksum_invalid_nonzero,
        }
    }
}

/// A page `finish` needs: every problem page, and every page whose tuples name another block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Row {
    block: u32,
    fold: u32,
    tuple_block: Option<u32>,
    stored: u16,
    status: PageStatus,
    header: HeaderCheck,
}

/// A btree page's sibling links (nbtree.h BTPageOpaqueData), relation-wide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Link {
    block: u32,
    prev: u32,
    next: u32,
    /// Its checksum is valid at its position.
    in_place: bool,
}

/// The state of one file's verification, fed chunks of whole pages in any order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileScan {
    geometry: Geometry,
    segno: u32,
    file_len: u64,
    extent: FileExtent,
    counts: Counts,
    /// Some page with a header stores a checksum other than 0.
    saw_stored_checksum: bool,
    rows: Vec<Row>,
    links: Vec<Link>,
    /// All-zero pages as runs of blocks [start, end), in the order chunks met them.
    zero_runs: Vec<(u32, u32)>,
    /// The last block that is a heap page with line pointers: zero pages before it are
    /// `ZeroPageBetweenRows`.
    last_heap_items: Option<u32>,
    /// Every readable B-tree page, and the metapage's root, for the level walk.
    bt_pages: Vec<BtPage>,
    bt_meta: Option<BtMeta>,
    /// The index's key columns, for the walk's down-link lower bound (`set_btree_keys`).
    bt_keys: Option<Vec<KeyColumn>>,
    /// Every readable GIN page, and whether the file has a GIN metapage, for the GIN walk.
    gin: crate::am::gin::walk::GinPages,
    /// The relation's `_vm` and `_fsm` forks, when the caller has them (`set_maps`), and
    /// what they say of this file's pages.
    maps: Option<Arc<ForkMaps>>,
    map_findings: Vec<MapFinding>,
    /// What the structural checks know of the relation, when the caller asked for them
    /// (`set_structure`), and what they found.
    structure: Option<Arc<Structure>>,
    structure_findings: Vec<StructureFinding>,
}

/// What the structural checks of a relation's pages know of it beyond their bytes (from the
/// catalogs or the user), owned so a scan can keep it; each part left out is not judged.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Structure {
    /// The kind of the file's pages (`am::kind::file_kind`, or the catalog's access method):
    /// a damaged page is checked as its file's kind. `Unknown`: the catalog's access method
    /// is one pgpage does not decode, and no page of the file is checked.
    pub kind: Option<PageKind>,
    /// A heap's pg_class row and the cluster's horizon (its `xact` left None: see `xact`).
    pub heap: Option<HeapContext<'static>>,
    /// pg_xact and pg_multixact, for `heap`.
    pub xact: Option<Arc<TransactionLog>>,
    /// A B-tree index's key columns, or a GIN index's key type (`Hints::btree_keys`).
    pub keys: Option<Vec<KeyColumn>>,
}

impl Structure {
    /// The checks' findings on one page; notes (`Evidence::Note`: "order not checked") are
    /// about the relation, not the page, and the header's findings are verify's own.
    fn check(&self, page: &[u8], absolute: u32, endian: Endian) -> Vec<ItemFinding> {
        if self.kind == Some(PageKind::Unknown) {
            return Vec::new();
        }
        let opts = DecodeOptions {
            endian,
            file_kind: self.kind,
            ..DecodeOptions::default()
        };
        let heap = self.heap.map(|h| HeapContext {
            xact: self.xact.as_deref(),
            ..h
        });
        let hints = Hints {
            btree_keys: self.keys.as_deref(),
            heap: heap.as_ref(),
            ..Hints::default()
        };
        let mut found = check_page(page, absolute, &opts, &hints);
        found.retain(|f| !matches!(f.finding.evidence(), Evidence::Note | Evidence::Server));
        found
    }
}

/// A structural finding about a page, with the page's stored checksum (for its row when the
/// page is otherwise fine).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct StructureFinding {
    block: u32,
    stored: u16,
    found: ItemFinding,
}

/// A finding of the relation's maps about a page, with the page's stored checksum (for its
/// row when the page is otherwise fine).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct MapFinding {
    block: u32,
    stored: u16,
    finding: Finding,
}

impl FileScan {
    /// A scan of a file of `file_len` bytes, segment `segno`, read with `geometry`
    /// (`file::file_geometry`).
    pub fn new(geometry: Geometry, segno: u32, file_len: u64) -> Result<FileScan, ScanError> {
        let extent = FileExtent::of_len(file_len, geometry.block_size).ok_or(ScanError::TooLong)?;
        Ok(FileScan {
            geometry,
            segno,
            file_len,
            extent,
            counts: Counts::default(),
            saw_stored_checksum: false,
            rows: Vec::new(),
            links: Vec::new(),
            zero_runs: Vec::new(),
            last_heap_items: None,
            bt_pages: Vec::new(),
            bt_meta: None,
            bt_keys: None,
            gin: crate::am::gin::walk::GinPages::default(),
            maps: None,
            map_findings: Vec::new(),
            structure: None,
            structure_findings: Vec::new(),
        })
    }

    pub fn geometry(&self) -> Geometry {
        self.geometry
    }

    pub fn extent(&self) -> FileExtent {
        self.extent
    }

    /// Relation-wide number of the file's block 0.
    pub fn first_absolute_block(&self) -> u32 {
        self.geometry.block_size.absolute_block(self.segno, 0)
    }

    /// Verifies the whole pages of `bytes`, the first being block `first_block` of the file.
    /// A partial page, and pages past the file's whole pages, are left out.
    pub fn chunk(&mut self, bytes: &[u8], first_block: u32) {
        self.chunk_statuses(bytes, first_block, |_| {});
    }

    /// `chunk`, handing each page's status (as with checksums on) to `status` in order.
    pub fn chunk_statuses(
        &mut self,
        bytes: &[u8],
        first_block: u32,
        mut status: impl FnMut(PageStatus),
    ) {
        self.chunk_verdicts(bytes, first_block, |v| status(v.status));
    }

    /// `chunk`, handing each page's verdict (its status as with checksums on, its stored and
    /// computed checksums) to `verdict` in order.
    pub fn chunk_verdicts(
        &mut self,
        bytes: &[u8],
        first_block: u32,
        mut verdict: impl FnMut(&PageVerdict),
    ) {
        let pages = bytes
            .chunks_exact(self.geometry.block_size.len())
            .zip(first_block..self.extent.blocks);
        for (page, block) in pages {
            verdict(&self.page(page, block));
        }
    }

    fn page(&mut self, page: &[u8], block: u32) -> PageVerdict {
        let endian = self.geometry.endian;
        let absolute = self.geometry.block_size.absolute_block(self.segno, block);
        let v = verify_page(page, absolute, endian);
        let header = header_check(page, endian);
        let new = matches!(v.status, PageStatus::Zero | PageStatus::NewNotZero);
        self.saw_stored_checksum |= !new && v.stored != 0;
        let count = match v.status {
            PageStatus::Ok => &mut self.counts.ok,
            PageStatus::Mismatch if header.is_sane() => &mut self.counts.mismatch_sane,
            PageStatus::Mismatch => &mut self.counts.mismatch_insane,
            PageStatus::Zero => &mut self.counts.zero,
            PageStatus::NewNotZero => &mut self.counts.new_not_zero,
            PageStatus::BadHeader => &mut self.counts.bad_header,
        };
        *count = count.saturating_add(1);
        // The server never sets a new page's checksum, but one that is not all zeros still
        // has a stored value that is valid for its block or not.
        let valid = match v.computed {
            Some(computed) => computed == v.stored,
            None => {
                v.status == PageStatus::NewNotZero
                    && checksum_finish(checksum_fold(page, endian), absolute) == v.stored
            }
        };
        if valid {
            self.counts.checksum_valid = self.counts.checksum_valid.saturating_add(1);
        } else if v.status != PageStatus::Zero && v.stored != 0 {
            self.counts.checksum_invalid_nonzero =
                self.counts.checksum_invalid_nonzero.saturating_add(1);
        }
        let readable = !new && header.is_sane();
        if v.status == PageStatus::Zero {
            match self.zero_runs.last_mut() {
                Some((_, end)) if *end == block => *end = block.saturating_add(1),
                _ => self.zero_runs.push((block, block.saturating_add(1))),
            }
        } else if readable && heap_has_items(page, endian) {
            self.last_heap_items = self.last_heap_items.max(Some(block));
        }
        let tuple_block = readable.then(|| heap_tuple_block(page, endian)).flatten();
        if tuple_block.is_some() {
            self.counts.tuple_pages = self.counts.tuple_pages.saturating_add(1);
        }
        if let Some((prev, next)) = readable.then(|| btree_links(page, endian)).flatten() {
            self.links.push(Link {
                block: absolute,
                prev,
                next,
                in_place: v.status != PageStatus::Mismatch,
            });
        }
        if let Some((p, meta)) = readable
            .then(|| crate::am::nbtree::walk::summarize(page, absolute, endian))
            .flatten()
        {
            self.bt_meta = self.bt_meta.or(meta);
            if meta.is_none() {
                self.bt_pages.push(p);
            }
        }
        if readable {
            self.gin.add(page, absolute, endian);
        }
        if let Some(maps) = self.maps.as_deref().filter(|_| readable) {
            self.map_findings
                .extend(
                    maps.check_heap_page(absolute, page, endian)
                        .map(|finding| MapFinding {
                            block,
                            stored: v.stored,
                            finding,
                        }),
                );
        }
        if let Some(structure) = self.structure.as_deref().filter(|_| readable) {
            let found = structure.check(page, absolute, endian);
            self.structure_findings
                .extend(found.into_iter().map(|found| StructureFinding {
                    block,
                    stored: v.stored,
                    found,
                }));
        }
        if v.status.is_problem() || tuple_block.is_some_and(|t| t != absolute) {
            self.rows.push(Row {
                block,
                fold: v.fold,
                tuple_block,
                stored: v.stored,
                status: v.status,
                header,
            });
        }
        v
    }

    /// Adds another part of the same file (disjoint pages) to this one.
    pub fn merge(&mut self, other: &FileScan) -> Result<(), ScanError> {
        if (other.geometry, other.segno, other.file_len)
            != (self.geometry, self.segno, self.file_len)
        {
            return Err(ScanError::DifferentFiles);
        }
        let mut theirs = other.counts;
        for (mine, theirs) in self.counts.fields().into_iter().zip(theirs.fields()) {
            *mine = mine.saturating_add(*theirs);
        }
        self.saw_stored_checksum |= other.saw_stored_checksum;
        self.rows.extend_from_slice(&other.rows);
        self.links.extend_from_slice(&other.links);
        self.zero_runs.extend_from_slice(&other.zero_runs);
        self.last_heap_items = self.last_heap_items.max(other.last_heap_items);
        self.bt_pages.extend_from_slice(&other.bt_pages);
        self.bt_meta = self.bt_meta.or(other.bt_meta);
        self.gin.merge(&other.gin);
        self.map_findings.extend_from_slice(&other.map_findings);
        self.structure_findings
            .extend_from_slice(&other.structure_findings);
        Ok(())
    }

    /// The verdict on the whole file, once every part has been scanned and merged.
    pub fn finish(&self, checksums: ChecksumsKnown) -> FileVerdict {
        let c = self.counts;
        let with_header =
            c.ok.saturating_add(c.mismatch_sane)
                .saturating_add(c.mismatch_insane)
                .saturating_add(c.bad_header);
        let off = match checksums {
            ChecksumsKnown::On | ChecksumsKnown::InProgressOn | ChecksumsKnown::InProgressOff => {
                false
            }
            ChecksumsKnown::Off => true,
            ChecksumsKnown::Unknown => !self.saw_stored_checksum && with_header > 0,
        };
        // While checksums change, each is computed and shown, but no read compares it.
        let judge = Judge {
            verified: !off && !checksums.in_progress(),
            computed: !off,
        };
        let mut rows = self.rows.clone();
        rows.sort_unstable_by_key(|r| r.block);
        let mut links = self.links.clone();
        links.sort_unstable_by_key(|l| l.block);

        let mut findings = Vec::new();
        if self.extent.trailing_bytes > 0 {
            findings.push(FileFinding::ReadShort {
                block: self.extent.blocks,
                bytes: self.extent.trailing_bytes,
                block_size: self.geometry.block_size.bytes(),
            });
        }
        if off {
            findings.push(FileFinding::ChecksumsDisabled {
                from_pages: checksums == ChecksumsKnown::Unknown,
            });
        }
        findings.extend(self.zero_pages_between_rows());
        let first = self.first_absolute_block();
        let per_segment = self.geometry.block_size.blocks_per_segment();
        // Tuples name their block exactly; checksums only up to their aliases.
        let shift = tuple_shift(&rows, first, c.tuple_pages).or_else(|| {
            if judge.verified {
                checksum_shift(&rows, first, per_segment)
            } else {
                None
            }
        });
        if let Some(shift) = shift {
            let pages = rows
                .iter()
                .filter(|r| {
                    let written = r.absolute(first).wrapping_add(shift);
                    r.valid_at(written) || r.tuple_block == Some(written)
                })
                .count();
            let pages = u32::try_from(pages).unwrap_or(u32::MAX);
            let written = first.wrapping_add(shift);
            findings.push(match written.checked_rem(per_segment) {
                Some(0) => FileFinding::WrittenAsSegment {
                    segno: written.checked_div(per_segment).unwrap_or(0),
                    pages,
                },
                _ => FileFinding::WrittenAtOffset {
                    first_block: written,
                    pages,
                },
            });
        }

        let ctx = Context {
            first,
            blocks: self.extent.blocks,
            block_size: self.geometry.block_size,
            shift,
            links: &links,
            mismatched_links: mismatched_links(&links, &rows, first),
        };
        let mut pages: Vec<PageRow> = rows.iter().filter_map(|r| ctx.row(r, judge)).collect();
        let computed = |block: u32, stored: u16| judge.computed_at(&rows, first, block, stored);
        self.btree_walk(&mut pages, &computed);
        self.attach_map_findings(&mut pages, &computed);
        self.attach_structure_findings(&mut pages, &computed);

        let mut counts = StatusCounts {
            ok: c.ok,
            mismatch: c.mismatch_sane.saturating_add(c.mismatch_insane),
            zero: c.zero,
            new_not_zero: c.new_not_zero,
            bad_header: c.bad_header,
        };
        if !judge.verified {
            counts.ok = counts.ok.saturating_add(c.mismatch_sane);
            counts.bad_header = counts.bad_header.saturating_add(c.mismatch_insane);
            counts.mismatch = 0;
        }
        FileVerdict {
            geometry: self.geometry,
            segno: self.segno,
            blocks: self.extent.blocks,
            trailing_bytes: self.extent.trailing_bytes,
            checksums_disabled: off,
            checksums_in_progress: checksums.in_progress(),
            counts,
            checksum_counts: c.checksums(),
            pages,
            findings,
        }
    }
}

impl FileScan {
    /// bt_index_check's level walk over an index held whole in this file (segment 0, shorter
    /// than a segment: a longer index's links reach into files this scan does not see), and
    /// gin_index_check's walk of a GIN index; their findings join the rows of their pages.
    fn btree_walk(&self, pages: &mut Vec<PageRow>, computed: &dyn Fn(u32, u16) -> Option<u16>) {
        if self.segno != 0 || self.extent.blocks >= self.geometry.block_size.blocks_per_segment() {
            return;
        }
        if self
            .structure
            .as_deref()
            .is_some_and(|s| s.kind == Some(PageKind::Unknown))
        {
            return;
        }
        let mut found = self.gin.walk(self.extent.blocks);
        let zero = self.joined_zero_runs();
        let btree = self.bt_meta.is_some()
            || !self.bt_pages.is_empty()
            || self
                .structure
                .as_deref()
                .is_some_and(|s| s.kind == Some(PageKind::Btree));
        if btree && self.bt_meta.is_none() && zero.first().is_some_and(|&(start, _)| start == 0) {
            // _bt_getmeta reads block 0 through _bt_checkpage before anything else.
            found.push((0, Finding::BtreeUnexpectedZeroPage, 0));
        }
        if let Some(meta) = self.bt_meta {
            let mut bt = self.bt_pages.clone();
            bt.sort_unstable_by_key(|p| p.block);
            let keys = self.bt_keys.as_deref();
            let endian = self.geometry.endian;
            for f in
                crate::am::nbtree::walk::walk(meta, &bt, self.extent.blocks, &zero, keys, endian)
            {
                let stored = bt
                    .binary_search_by_key(&f.block, |p| p.block)
                    .ok()
                    .and_then(|i| bt.get(i))
                    .map_or(0, |p| p.stored);
                found.push((f.block, f.finding, stored));
            }
        }
        for (block, finding, stored) in found {
            // The server refuses the page on every read, not amcheck alone: a structural
            // finding of the page, whatever checks were asked for.
            let refused = (finding.evidence() == Evidence::Server).then_some(ItemFinding {
                finding,
                item: None,
                values: Values::default(),
            });
            if let Some(row) = pages.iter_mut().find(|r| r.absolute_block == block) {
                if !row.findings.contains(&finding) {
                    row.findings.push(finding);
                }
                row.structure.extend(refused);
                continue;
            }
            let zero = finding == Finding::BtreeUnexpectedZeroPage;
            pages.push(PageRow {
                block,
                absolute_block: block,
                status: if zero {
                    PageStatus::Zero
                } else {
                    PageStatus::Ok
                },
                stored,
                computed: if zero { None } else { computed(block, stored) },
                findings: alloc::vec![finding],
                misplaced: None,
                tuple_block: None,
                structure: refused.into_iter().collect(),
            });
        }
        pages.sort_by_key(|r| r.block);
    }

    /// The runs of all-zero pages before the file's last heap page with line pointers.
    fn zero_pages_between_rows(&self) -> Vec<FileFinding> {
        let Some(last) = self.last_heap_items else {
            return Vec::new();
        };
        self.joined_zero_runs()
            .into_iter()
            .filter(|&(start, _)| start < last)
            .map(|(start, end)| FileFinding::ZeroPageBetweenRows {
                block: start,
                pages: end.min(last).saturating_sub(start),
            })
            .collect()
    }

    /// The file's all-zero pages as sorted, disjoint runs [start, end).
    fn joined_zero_runs(&self) -> Vec<(u32, u32)> {
        let mut runs = self.zero_runs.clone();
        runs.sort_unstable();
        // Chunks cut runs apart: join the pieces that touch.
        let mut joined: Vec<(u32, u32)> = Vec::with_capacity(runs.len());
        for (start, end) in runs {
            match joined.last_mut() {
                Some((_, e)) if *e >= start => *e = (*e).max(end),
                _ => joined.push((start, end)),
            }
        }
        joined
    }
}

impl FileScan {
    /// Judges the file's heap pages against the relation's `_vm` and `_fsm` forks as they
    /// are scanned from now on (a caller sets them before the first chunk).
    pub fn set_maps(&mut self, maps: Arc<ForkMaps>) {
        self.maps = Some(maps);
    }

    /// Runs the structural checks (verify_heapam's, bt_index_check's, gin_index_check's and
    /// the other access methods' page checks) on every readable page scanned from now on,
    /// knowing what `structure` says of the relation; pages with findings get rows.
    /// A B-tree's key columns also let its level walk check each child against its parent
    /// (`set_btree_keys`).
    pub fn set_structure(&mut self, structure: Arc<Structure>) {
        if let (Some(PageKind::Btree), Some(keys)) = (structure.kind, &structure.keys) {
            self.set_btree_keys(keys);
        }
        self.structure = Some(structure);
    }

    /// A B-tree's key columns (`--key-types`, the catalog's pg_index), so that the level walk
    /// holds each child's items to its parent's key (bt_child_check's down-link lower bound).
    pub fn set_btree_keys(&mut self, keys: &[KeyColumn]) {
        self.bt_keys = Some(keys.to_vec());
    }

    /// The maps' findings join the rows of their pages.
    fn attach_map_findings(
        &self,
        pages: &mut Vec<PageRow>,
        computed: &dyn Fn(u32, u16) -> Option<u16>,
    ) {
        let found = self.map_findings.iter().map(|f| StructureFinding {
            block: f.block,
            stored: f.stored,
            found: ItemFinding {
                finding: f.finding,
                item: None,
                values: Values::default(),
            },
        });
        self.attach(pages, computed, found.collect(), false);
    }

    /// The structural checks' findings join the rows of their pages.
    fn attach_structure_findings(
        &self,
        pages: &mut Vec<PageRow>,
        computed: &dyn Fn(u32, u16) -> Option<u16>,
    ) {
        self.attach(pages, computed, self.structure_findings.clone(), true);
    }

    /// Page findings join the rows of their pages (and their `structure` when `structural`);
    /// a page the verdict did not list is one the server reads without complaint (a problem
    /// page always has a row).
    fn attach(
        &self,
        pages: &mut Vec<PageRow>,
        computed: &dyn Fn(u32, u16) -> Option<u16>,
        mut found: Vec<StructureFinding>,
        structural: bool,
    ) {
        if found.is_empty() {
            return;
        }
        found.sort_by_key(|f| f.block);
        // `pages` is in block order: each finding's row is found by a binary search, and
        // the rows made here join them once all are made.
        let mut made: Vec<PageRow> = Vec::new();
        for f in found {
            let row = match pages.binary_search_by_key(&f.block, |r| r.block) {
                Ok(i) => pages.get_mut(i),
                Err(_) => match made.last_mut() {
                    Some(last) if last.block == f.block => Some(last),
                    _ => {
                        made.push(PageRow {
                            block: f.block,
                            absolute_block: self
                                .geometry
                                .block_size
                                .absolute_block(self.segno, f.block),
                            status: PageStatus::Ok,
                            stored: f.stored,
                            computed: computed(f.block, f.stored),
                            findings: Vec::new(),
                            misplaced: None,
                            tuple_block: None,
                            structure: Vec::new(),
                        });
                        made.last_mut()
                    }
                },
            };
            let Some(row) = row else { continue };
            if structural && !row.structure.contains(&f.found) {
                row.structure.push(f.found);
            }
            if !row.findings.contains(&f.found.finding) {
                row.findings.push(f.found.finding);
            }
        }
        pages.extend(made);
        pages.sort_by_key(|r| r.block);
    }
}

/// Exported scans start with this, then a version byte.
const MAGIC: &[u8; 4] = b"PGFS";
const VERSION: u8 = 8;
const ROW_BYTES: usize = 16;
const LINK_BYTES: usize = 13;
const RUN_BYTES: usize = 8;
/// A B-tree page's fixed part: four block numbers, flags, checksum, its high key's tag, its
/// item count and its least item's tag (each pivot: a tag, then a block and its bytes when
/// present).
const BT_PAGE_BYTES: usize = 26;
const MAP_FINDING_BYTES: usize = 8;
/// A structural finding: block, stored checksum, line pointer (0: none), finding, and its
/// message's values (their count, then four).
const STRUCTURE_FINDING_BYTES: usize = 27;
/// `tuple_block` None in an exported row (InvalidBlockNumber, never a block).
const NO_BLOCK: u32 = u32::MAX;

impl FileScan {
    /// The scan as bytes (little-endian, versioned), for a part's state to cross a worker
    /// or thread boundary; `import` reads it back.
    pub fn export(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            80usize
                .saturating_add(self.rows.len().saturating_mul(ROW_BYTES))
                .saturating_add(self.links.len().saturating_mul(LINK_BYTES)),
        );
        out.extend_from_slice(MAGIC);
        out.push(VERSION);
        out.push(u8::from(self.geometry.endian == Endian::Big));
        out.push(
            u8::from(self.geometry.block_size_assumed)
                | u8::from(self.geometry.byte_order_detected) << 1
                | u8::from(self.saw_stored_checksum) << 2,
        );
        out.extend_from_slice(&self.geometry.block_size.bytes().to_le_bytes());
        out.extend_from_slice(&self.segno.to_le_bytes());
        out.extend_from_slice(&self.file_len.to_le_bytes());
        let mut counts = self.counts;
        for n in counts.fields() {
            out.extend_from_slice(&n.to_le_bytes());
        }
        let len32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        out.extend_from_slice(&self.last_heap_items.unwrap_or(NO_BLOCK).to_le_bytes());
        out.extend_from_slice(&len32(self.rows.len()).to_le_bytes());
        out.extend_from_slice(&len32(self.links.len()).to_le_bytes());
        out.extend_from_slice(&len32(self.zero_runs.len()).to_le_bytes());
        out.extend_from_slice(&len32(self.bt_pages.len()).to_le_bytes());
        out.extend_from_slice(&len32(self.map_findings.len()).to_le_bytes());
        out.extend_from_slice(&len32(self.structure_findings.len()).to_le_bytes());
        let (has_meta, meta) = match self.bt_meta {
            Some(m) => (1u8, m),
            None => (
                0,
                BtMeta {
                    root: 0,
                    level: 0,
                    heapkeyspace: false,
                },
            ),
        };
        out.push(has_meta);
        out.extend_from_slice(&meta.root.to_le_bytes());
        out.extend_from_slice(&meta.level.to_le_bytes());
        out.push(u8::from(meta.heapkeyspace));
        for r in &self.rows {
            out.extend_from_slice(&r.block.to_le_bytes());
            out.extend_from_slice(&r.fold.to_le_bytes());
            out.extend_from_slice(&r.tuple_block.unwrap_or(NO_BLOCK).to_le_bytes());
            out.extend_from_slice(&r.stored.to_le_bytes());
            out.push(r.status.code());
            out.push(r.header.bits());
        }
        for l in &self.links {
            out.extend_from_slice(&l.block.to_le_bytes());
            out.extend_from_slice(&l.prev.to_le_bytes());
            out.extend_from_slice(&l.next.to_le_bytes());
            out.push(u8::from(l.in_place));
        }
        for (start, end) in &self.zero_runs {
            out.extend_from_slice(&start.to_le_bytes());
            out.extend_from_slice(&end.to_le_bytes());
        }
        for p in &self.bt_pages {
            for v in [p.block, p.prev, p.next, p.level] {
                out.extend_from_slice(&v.to_le_bytes());
            }
            out.extend_from_slice(&p.flags.to_le_bytes());
            out.extend_from_slice(&p.stored.to_le_bytes());
            export_pivot(&mut out, p.high_key.as_ref());
            out.extend_from_slice(&len32(p.items.len()).to_le_bytes());
            for i in &p.items {
                export_pivot(&mut out, i.as_ref());
            }
            export_pivot(&mut out, p.low_item.as_ref());
        }
        for f in &self.map_findings {
            out.extend_from_slice(&f.block.to_le_bytes());
            out.extend_from_slice(&f.stored.to_le_bytes());
            out.extend_from_slice(&(f.finding as u16).to_le_bytes());
        }
        for f in &self.structure_findings {
            out.extend_from_slice(&f.block.to_le_bytes());
            out.extend_from_slice(&f.stored.to_le_bytes());
            out.extend_from_slice(&f.found.item.unwrap_or(0).to_le_bytes());
            out.extend_from_slice(&(f.found.finding as u16).to_le_bytes());
            let values = f.found.values.as_slice();
            out.push(values.len() as u8);
            for i in 0..4 {
                out.extend_from_slice(&values.get(i).copied().unwrap_or(0).to_le_bytes());
            }
        }
        let gin = self.gin.export();
        out.extend_from_slice(&len32(gin.len()).to_le_bytes());
        out.extend_from_slice(&gin);
        out
    }

    /// A scan from `export`'s bytes.
    pub fn import(bytes: &[u8]) -> Result<FileScan, ScanError> {
        let mut r = Bytes(bytes);
        if r.take(4)? != MAGIC || r.u8()? != VERSION {
            return Err(ScanError::NotAScan);
        }
        let endian = if r.u8()? == 1 {
            Endian::Big
        } else {
            Endian::Little
        };
        let flags = r.u8()?;
        let block_size = BlockSize::new(r.u32()?).ok_or(ScanError::NotAScan)?;
        let segno = r.u32()?;
        let file_len = r.u64()?;
        let geometry = Geometry {
            block_size,
            endian,
            block_size_assumed: flags & 1 != 0,
            byte_order_detected: flags & 2 != 0,
        };
        let mut scan = FileScan::new(geometry, segno, file_len).map_err(|_| ScanError::NotAScan)?;
        scan.saw_stored_checksum = flags & 4 != 0;
        for n in scan.counts.fields() {
            *n = r.u64()?;
        }
        scan.last_heap_items = Some(r.u32()?).filter(|&b| b != NO_BLOCK);
        let rows = usize::try_from(r.u32()?).map_err(|_| ScanError::NotAScan)?;
        let links = usize::try_from(r.u32()?).map_err(|_| ScanError::NotAScan)?;
        let zero_runs = usize::try_from(r.u32()?).map_err(|_| ScanError::NotAScan)?;
        let bt_pages = usize::try_from(r.u32()?).map_err(|_| ScanError::NotAScan)?;
        let map_findings = usize::try_from(r.u32()?).map_err(|_| ScanError::NotAScan)?;
        let structure_findings = usize::try_from(r.u32()?).map_err(|_| ScanError::NotAScan)?;
        let has_meta = r.u8()? == 1;
        let meta = BtMeta {
            root: r.u32()?,
            level: r.u32()?,
            heapkeyspace: r.u8()? == 1,
        };
        scan.bt_meta = has_meta.then_some(meta);
        let expected = rows.checked_mul(ROW_BYTES).and_then(|n| {
            n.checked_add(links.checked_mul(LINK_BYTES)?)?
                .checked_add(zero_runs.checked_mul(RUN_BYTES)?)?
                .checked_add(bt_pages.checked_mul(BT_PAGE_BYTES)?)?
                .checked_add(map_findings.checked_mul(MAP_FINDING_BYTES)?)?
                .checked_add(structure_findings.checked_mul(STRUCTURE_FINDING_BYTES)?)
        });
        // The B-tree pages' pivots make their part longer than its fixed size.
        if expected.is_none_or(|n| n > r.0.len()) {
            return Err(ScanError::NotAScan);
        }
        scan.rows.reserve_exact(rows);
        for _ in 0..rows {
            let block = r.u32()?;
            let fold = r.u32()?;
            let tuple_block = Some(r.u32()?).filter(|&b| b != NO_BLOCK);
            let stored = r.u16()?;
            let status = PageStatus::from_code(r.u8()?).ok_or(ScanError::NotAScan)?;
            let header = HeaderCheck::from_bits(r.u8()?);
            scan.rows.push(Row {
                block,
                fold,
                tuple_block,
                stored,
                status,
                header,
            });
        }
        scan.links.reserve_exact(links);
        for _ in 0..links {
            scan.links.push(Link {
                block: r.u32()?,
                prev: r.u32()?,
                next: r.u32()?,
                in_place: r.u8()? != 0,
            });
        }
        scan.zero_runs.reserve_exact(zero_runs);
        for _ in 0..zero_runs {
            scan.zero_runs.push((r.u32()?, r.u32()?));
        }
        scan.bt_pages.reserve_exact(bt_pages);
        for _ in 0..bt_pages {
            let mut p = BtPage {
                block: r.u32()?,
                prev: r.u32()?,
                next: r.u32()?,
                level: r.u32()?,
                flags: r.u16()?,
                stored: r.u16()?,
                high_key: r.pivot()?,
                items: Vec::new(),
                low_item: None,
            };
            let items = r.u32()?;
            // Each item takes a byte at least: a count past the bytes left is not a scan.
            if usize::try_from(items).map_or(true, |n| n > r.0.len()) {
                return Err(ScanError::NotAScan);
            }
            for _ in 0..items {
                p.items.push(r.pivot()?);
            }
            p.low_item = r.pivot()?;
            scan.bt_pages.push(p);
        }
        scan.map_findings.reserve_exact(map_findings);
        for _ in 0..map_findings {
            let block = r.u32()?;
            let stored = r.u16()?;
            let finding = r.finding()?;
            scan.map_findings.push(MapFinding {
                block,
                stored,
                finding,
            });
        }
        scan.structure_findings.reserve_exact(structure_findings);
        for _ in 0..structure_findings {
            let block = r.u32()?;
            let stored = r.u16()?;
            let item = Some(r.u16()?).filter(|&i| i != 0);
            let finding = r.finding()?;
            let count = usize::from(r.u8()?);
            let mut values = [0u32; 4];
            for v in &mut values {
                *v = r.u32()?;
            }
            let values = Values::new(values.get(..count).ok_or(ScanError::NotAScan)?);
            scan.structure_findings.push(StructureFinding {
                block,
                stored,
                found: ItemFinding {
                    finding,
                    item,
                    values,
                },
            });
        }
        let gin = usize::try_from(r.u32()?).map_err(|_| ScanError::NotAScan)?;
        scan.gin =
            crate::am::gin::walk::GinPages::import(r.take(gin)?).ok_or(ScanError::NotAScan)?;
        if !r.0.is_empty() {
            return Err(ScanError::NotAScan);
        }
        Ok(scan)
    }
}

/// A pivot as `import` reads it: 0 (none), 1 (a block, no bytes) or 2 (a block, a u16 length
/// and the bytes).
fn export_pivot(out: &mut Vec<u8>, p: Option<&Pivot>) {
    let Some(p) = p else {
        out.push(0);
        return;
    };
    match p
        .bytes
        .as_deref()
        .and_then(|b| Some((b, u16::try_from(b.len()).ok()?)))
    {
        Some((b, n)) => {
            out.push(2);
            out.extend_from_slice(&p.block.to_le_bytes());
            out.extend_from_slice(&n.to_le_bytes());
            out.extend_from_slice(b);
        }
        None => {
            out.push(1);
            out.extend_from_slice(&p.block.to_le_bytes());
        }
    }
}

/// A reader over exported bytes that fails, never panics, past their end.
struct Bytes<'a>(&'a [u8]);

impl<'a> Bytes<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], ScanError> {
        let (head, rest) = self.0.split_at_checked(n).ok_or(ScanError::NotAScan)?;
        self.0 = rest;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], ScanError> {
        self.take(N)?.try_into().map_err(|_| ScanError::NotAScan)
    }

    fn u8(&mut self) -> Result<u8, ScanError> {
        Ok(u8::from_le_bytes(self.array()?))
    }

    fn u16(&mut self) -> Result<u16, ScanError> {
        Ok(u16::from_le_bytes(self.array()?))
    }

    fn finding(&mut self) -> Result<Finding, ScanError> {
        Finding::ALL
            .get(usize::from(self.u16()?))
            .copied()
            .ok_or(ScanError::NotAScan)
    }

    fn pivot(&mut self) -> Result<Option<Pivot>, ScanError> {
        let tag = self.u8()?;
        if tag == 0 {
            return Ok(None);
        }
        let block = self.u32()?;
        let bytes = match tag {
            1 => None,
            2 => {
                let n = usize::from(self.u16()?);
                Some(self.take(n)?.to_vec())
            }
            _ => return Err(ScanError::NotAScan),
        };
        Ok(Some(Pivot { block, bytes }))
    }

    fn u32(&mut self) -> Result<u32, ScanError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64, ScanError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
}

impl Row {
    fn absolute(&self, first: u32) -> u32 {
        first.wrapping_add(self.block)
    }

    /// Whether the stored checksum is valid for relation block `block`.
    fn valid_at(&self, block: u32) -> bool {
        self.status == PageStatus::Mismatch
            && self.stored != 0
            && checksum_finish(self.fold, block) == self.stored
    }
}

/// Pages a sample of the file's mismatches is drawn from, to find one shift all agree on.
const SHIFT_SAMPLE: usize = 8;
/// Pages that must agree on a shift: two agree by chance for one of the 65,536 shifts a
/// page's checksum allows; three, about once in 65,535 files.
const SHIFT_AGREEING: usize = 3;

/// The shift (relation block the pages were written at minus their position) that most of
/// a sample of mismatching pages verify under, when at least three do. The checksum mixes
/// the block number in by xor and a sum modulo 65535, so a page's checksum is also valid at
/// blocks related to the true one by a few bits of both halves (block 5's page verified at
/// 131075 here) far more often than one in 65,535: of the shifts the sample agrees on, the
/// one most of all mismatching pages verify under wins, then a whole segment's, then the
/// smallest.
fn checksum_shift(rows: &[Row], first: u32, per_segment: u32) -> Option<u32> {
    let mismatches: Vec<&Row> = rows
        .iter()
        .filter(|r| r.status == PageStatus::Mismatch && r.stored != 0)
        .collect();
    let n = mismatches.len();
    if n < SHIFT_AGREEING {
        return None;
    }
    let k = n.min(SHIFT_SAMPLE);
    let sample: Vec<&Row> = (0..k)
        .filter_map(|i| mismatches.get(i.saturating_mul(n).checked_div(k)?).copied())
        .collect();
    let needed = (k / 2).saturating_add(1).max(SHIFT_AGREEING);
    let agreeing = |rows: &[&Row], shift: u32| {
        rows.iter()
            .filter(|r| r.valid_at(r.absolute(first).wrapping_add(shift)))
            .count()
    };
    // Any agreeing majority includes one of the first k - needed + 1 sample pages.
    let anchors = k.saturating_sub(needed).saturating_add(1);
    let mut shifts: Vec<u32> = sample
        .iter()
        .take(anchors)
        .flat_map(|anchor| {
            let at = anchor.absolute(first);
            blocks_matching(anchor.fold, anchor.stored, 0, u32::MAX)
                .map(move |written| written.wrapping_sub(at))
        })
        .filter(|&shift| agreeing(&sample, shift) >= needed)
        .collect();
    shifts.sort_unstable();
    shifts.dedup();
    shifts.into_iter().max_by_key(|&shift| {
        let aligned = first
            .wrapping_add(shift)
            .checked_rem(per_segment)
            .is_some_and(|r| r == 0);
        let size = shift.min(shift.wrapping_neg());
        (
            agreeing(&mismatches, shift),
            aligned,
            core::cmp::Reverse(size),
        )
    })
}

/// The shift most pages' own tuples agree on, when at least three pages and more than half
/// of the pages whose tuples name a block do.
fn tuple_shift(rows: &[Row], first: u32, tuple_pages: u64) -> Option<u32> {
    let mut shifts: Vec<u32> = rows
        .iter()
        .filter_map(|r| {
            let t = r.tuple_block?;
            let shift = t.wrapping_sub(r.absolute(first));
            (shift != 0).then_some(shift)
        })
        .collect();
    shifts.sort_unstable();
    let (shift, agree) = shifts
        .chunk_by(|a, b| a == b)
        .map(|run| (run.first().copied().unwrap_or(0), run.len()))
        .max_by_key(|&(_, n)| n)?;
    let agree = u64::try_from(agree).unwrap_or(u64::MAX);
    (agree >= SHIFT_AGREEING as u64 && agree.saturating_mul(2) > tuple_pages).then_some(shift)
}

/// Whether a page is laid out as a heap page (no special space) with line pointers: a page
/// that held rows. VM and FSM pages have no special space either, but no line pointers.
fn heap_has_items(page: &[u8], endian: Endian) -> bool {
    use crate::page::fields::page_header_data;
    let r = Reader { b: page, e: endian };
    let field = |f| r.field(0, f).and_then(|v| usize::try_from(v).ok());
    field(&page_header_data::PD_SPECIAL) == Some(page.len())
        && field(&page_header_data::PD_LOWER).is_some_and(|l| l > SIZE_OF_PAGE_HEADER_DATA)
}

/// Mismatched btree pages with their fold and stored checksum, for the sibling-link search;
/// a file with more of them than this is searched by its pages in place only (every pair
/// would be tested otherwise).
const MAX_MISMATCHED_LINKS: usize = 4096;

fn mismatched_links(links: &[Link], rows: &[Row], first: u32) -> Vec<(Link, Row)> {
    let out: Vec<(Link, Row)> = links
        .iter()
        .filter(|l| !l.in_place)
        .filter_map(|l| {
            let i = rows
                .binary_search_by_key(&l.block, |r| r.absolute(first))
                .ok()?;
            Some((*l, *rows.get(i)?))
        })
        .collect();
    if out.len() > MAX_MISMATCHED_LINKS {
        Vec::new()
    } else {
        out
    }
}

/// How a file's pages are judged: whether a read verifies their checksums (state on), and
/// whether checksums mean anything to show (not with checksums off).
#[derive(Clone, Copy, Debug)]
struct Judge {
    verified: bool,
    computed: bool,
}

impl Judge {
    /// The checksum computed for block `block` of the file (not new) that stores `stored`,
    /// where the verdict shows one: a page the scan kept a row for has its own, any other
    /// page's stored checksum is valid (it would have a row otherwise). `rows` sorted.
    fn computed_at(&self, rows: &[Row], first: u32, block: u32, stored: u16) -> Option<u16> {
        if !self.computed {
            return None;
        }
        let row = rows
            .binary_search_by_key(&block, |r| r.block)
            .ok()
            .and_then(|i| rows.get(i))
            .filter(|r| r.status == PageStatus::Mismatch);
        Some(row.map_or(stored, |r| checksum_finish(r.fold, r.absolute(first))))
    }
}

struct Context<'a> {
    first: u32,
    blocks: u32,
    block_size: BlockSize,
    shift: Option<u32>,
    links: &'a [Link],
    mismatched_links: Vec<(Link, Row)>,
}

impl Context<'_> {
    fn row(&self, r: &Row, judge: Judge) -> Option<PageRow> {
        let absolute = r.absolute(self.first);
        let explained = self.shift.is_some_and(|s| {
            r.valid_at(absolute.wrapping_add(s)) || r.tuple_block == Some(absolute.wrapping_add(s))
        });
        let status = match r.status {
            PageStatus::Mismatch if !judge.verified && r.header.is_sane() => PageStatus::Ok,
            PageStatus::Mismatch if !judge.verified => PageStatus::BadHeader,
            s => s,
        };
        let mut findings = Vec::new();
        match status {
            PageStatus::Mismatch => findings.push(Finding::ChecksumMismatch),
            PageStatus::NewNotZero => findings.push(Finding::NewPageNotZero),
            _ => {}
        }
        findings.extend(r.header.findings());
        let misplaced = if status == PageStatus::Mismatch && !explained && r.stored != 0 {
            self.misplaced(r, absolute)
        } else {
            None
        };
        if let Some(m) = misplaced {
            findings.push(m.finding);
        }
        let tuple_block = r.tuple_block;
        if tuple_block.is_some_and(|t| t != absolute) && !explained {
            findings.push(Finding::HeapTidOtherBlock);
        }
        if findings.is_empty() {
            return None;
        }
        let computed = match status {
            PageStatus::Zero | PageStatus::NewNotZero => None,
            _ if !judge.computed => None,
            _ => Some(checksum_finish(r.fold, absolute)),
        };
        Some(PageRow {
            block: r.block,
            absolute_block: absolute,
            status,
            stored: r.stored,
            computed,
            findings,
            misplaced,
            tuple_block,
            structure: Vec::new(),
        })
    }

    fn at(&self, block: u32, finding: Finding, chance: Option<Chance>) -> Misplaced {
        let per_segment = self.block_size.blocks_per_segment();
        Misplaced {
            block,
            segno: block.checked_div(per_segment).unwrap_or(0),
            block_in_segment: block.checked_rem(per_segment).unwrap_or(block),
            finding,
            chance,
        }
    }

    /// Where a mismatching page was written, claimed when its own tuples or its siblings'
    /// links agree with its checksum; a bare checksum match only when nothing speaks
    /// against it (tuples or siblings naming the page's own block, or another block).
    fn misplaced(&self, r: &Row, absolute: u32) -> Option<Misplaced> {
        if let Some(t) = r.tuple_block {
            return (t != absolute && r.valid_at(t))
                .then(|| self.at(t, Finding::MisplacedByTupleIds, None));
        }
        let mut sibling_evidence = false;
        if let Some(link) = self.link_at(absolute) {
            for b in self.sibling_blocks(&link) {
                sibling_evidence = true;
                if b != absolute && r.valid_at(b) {
                    return Some(self.at(b, Finding::MisplacedBySiblingLinks, None));
                }
            }
        }
        if sibling_evidence {
            return None;
        }
        let matches = blocks_matching(r.fold, r.stored, self.first, self.blocks);
        let (mut nearest, mut count) = (None::<u32>, 0u32);
        for b in matches {
            count = count.saturating_add(1);
            if nearest.is_none_or(|n| (b.abs_diff(absolute), b) < (n.abs_diff(absolute), n)) {
                nearest = Some(b);
            }
        }
        let chance = Chance::of(self.blocks, count);
        nearest.map(|b| self.at(b, Finding::ChecksumMatchesOtherBlock, Some(chance)))
    }

    fn link_at(&self, absolute: u32) -> Option<Link> {
        let i = self
            .links
            .binary_search_by_key(&absolute, |l| l.block)
            .ok()?;
        self.links.get(i).copied()
    }

    /// The blocks the page's siblings say it is: the left sibling's btpo_next, the right
    /// sibling's btpo_prev. A sibling is the page in place at the block the link names, or
    /// a mismatching page whose checksum is valid there.
    fn sibling_blocks<'s>(&'s self, page: &'s Link) -> impl Iterator<Item = u32> + 's {
        let left = self.pages_that_are(page.prev, page.block).map(|l| l.next);
        let right = self.pages_that_are(page.next, page.block).map(|l| l.prev);
        left.chain(right).filter(|&b| b != P_NONE)
    }

    fn pages_that_are<'s>(&'s self, block: u32, not: u32) -> impl Iterator<Item = Link> + 's {
        let valid = block != P_NONE;
        let in_place = self
            .link_at(block)
            .filter(|l| valid && l.in_place && l.block != not);
        let moved = self
            .mismatched_links
            .iter()
            .filter(move |(l, r)| valid && l.block != not && r.valid_at(block))
            .map(|(l, _)| *l);
        in_place.into_iter().chain(moved)
    }
}

/// The block a heap page's own tuples name: the server writes a tuple's own TID into its
/// t_ctid (hio.c RelationPutHeapTuple) and changes it only when it updates the tuple, which
/// sets t_xmax. So tuples with t_xmax 0 whose t_ctid offset is their own line pointer name
/// the block they were written on; the block a majority of them name, if any. It runs for
/// every tuple of every page the CLI verifies, so the line pointer array and each tuple's
/// t_xmax..t_ctid are taken in one bounds check each; offsets and bit fields are the rows
/// of `fields`, which the decoder reads too.
pub(crate) fn heap_tuple_block(page: &[u8], endian: Endian) -> Option<u32> {
    use crate::page::fields::{heap_tuple_header_data as htup, item_id_data, page_header_data};
    const XMAX: usize = htup::T_XMAX.offset as usize;
    const CTID: usize = htup::T_CTID.offset as usize;
    const SPAN: usize = CTID + 6 - XMAX;
    let r = Reader { b: page, e: endian };
    if usize::try_from(r.field(0, &page_header_data::PD_SPECIAL)?).ok()? != page.len() {
        return None;
    }
    let lower = usize::try_from(r.field(0, &page_header_data::PD_LOWER)?).ok()?;
    let items = lower.saturating_sub(SIZE_OF_PAGE_HEADER_DATA) / SIZE_OF_ITEM_ID;
    // The line pointer array in one bounds check (pd_lower past the page: as far as it goes).
    let array = page.get(SIZE_OF_PAGE_HEADER_DATA..)?;
    let ids = array
        .get(..items.saturating_mul(SIZE_OF_ITEM_ID).min(array.len()))?
        .chunks_exact(SIZE_OF_ITEM_ID)
        .zip(1usize..);
    let bits = |f: &crate::page::fields::Field, word: u32| match f.bits {
        Some(b) => {
            word.checked_shr(u32::from(b.shift_for(32, endian)))
                .unwrap_or(0)
                & b.mask()
        }
        None => 0,
    };
    let word = |b: [u8; 4]| match endian {
        Endian::Little => u32::from_le_bytes(b),
        Endian::Big => u32::from_be_bytes(b),
    };
    let half = |b: [u8; 2]| match endian {
        Endian::Little => u16::from_le_bytes(b),
        Endian::Big => u16::from_be_bytes(b),
    };
    let own = |(id, lp): (&[u8], usize)| -> Option<u32> {
        let id = word(id.try_into().ok()?);
        if bits(&item_id_data::LP_FLAGS, id) != u32::from(LP_NORMAL)
            || bits(&item_id_data::LP_LEN, id) < u32::from(HEAP_TUPLE_HEADER_DATA.size)
        {
            return None;
        }
        let off = usize::try_from(bits(&item_id_data::LP_OFF, id))
            .ok()?
            .checked_add(XMAX)?;
        let head: &[u8; SPAN] = page.get(off..)?.first_chunk()?;
        let [x0, x1, x2, x3, _, _, _, _, h0, h1, l0, l1, p0, p1] = *head;
        let (xmax, hi, lo, posid) = (
            word([x0, x1, x2, x3]),
            half([h0, h1]),
            half([l0, l1]),
            half([p0, p1]),
        );
        (xmax == 0 && usize::from(posid) == lp).then_some((u32::from(hi) << 16) | u32::from(lo))
    };
    // One backend writes a page's tuples at one block, so nearly always the first tuple's
    // block is every tuple's: counted in one pass, and only a page where it has no majority
    // gets the Boyer-Moore vote, then a count to confirm it.
    // Once more than half of all line pointers name it, no count of the rest can change that.
    let (mut first, mut same, mut all) = (None::<u32>, 0usize, 0usize);
    for b in ids.clone().filter_map(own) {
        let f = *first.get_or_insert(b);
        all = all.saturating_add(1);
        same = same.saturating_add(usize::from(b == f));
        if same.saturating_mul(2) > items {
            return first;
        }
    }
    if same.saturating_mul(2) > all {
        return first;
    }
    let (mut candidate, mut votes) = (0u32, 0usize);
    for b in ids.clone().filter_map(own) {
        if votes == 0 {
            candidate = b;
        }
        votes = if b == candidate {
            votes.saturating_add(1)
        } else {
            votes.saturating_sub(1)
        };
    }
    let (mut same, mut all) = (0usize, 0usize);
    for b in ids.filter_map(own) {
        all = all.saturating_add(1);
        same = same.saturating_add(usize::from(b == candidate));
    }
    (same.saturating_mul(2) > all).then_some(candidate)
}

/// A btree page's btpo_prev and btpo_next, unless both are P_NONE.
fn btree_links(page: &[u8], endian: Endian) -> Option<(u32, u32)> {
    use crate::page::fields::{bt_page_opaque_data as bt, page_header_data, BT_PAGE_OPAQUE_DATA};
    let r = Reader { b: page, e: endian };
    let special = usize::try_from(r.field(0, &page_header_data::PD_SPECIAL)?).ok()?;
    if page.len().checked_sub(special)? != usize::from(BT_PAGE_OPAQUE_DATA.size) {
        return None;
    }
    let cycle = r.field(special, &bt::BTPO_CYCLEID)?;
    let prev = r.field(special, &bt::BTPO_PREV)?;
    let next = r.field(special, &bt::BTPO_NEXT)?;
    (cycle <= MAX_BT_CYCLE_ID && (prev, next) != (P_NONE, P_NONE)).then_some((prev, next))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The all-visible flag without its visibility map bit is routine on a sound page, and
    /// the damage's possible trace on one that fails its checksum; a note on the FSM stays
    /// routine on either.
    #[test]
    fn a_note_on_a_page_that_fails_its_checksum_may_be_the_damage() {
        let row = |status| PageRow {
            block: 0,
            absolute_block: 0,
            status,
            stored: 1,
            computed: Some(2),
            findings: Vec::new(),
            misplaced: None,
            tuple_block: None,
            structure: Vec::new(),
        };
        assert!(row(PageStatus::Ok).routine_note(Finding::PageFlagWithoutVmBit));
        assert!(!row(PageStatus::Mismatch).routine_note(Finding::PageFlagWithoutVmBit));
        assert!(row(PageStatus::Mismatch).routine_note(Finding::FsmMoreThanFree));
        assert!(!row(PageStatus::Ok).routine_note(Finding::ChecksumMismatch));
    }
    use crate::file::{file_geometry, GeometryChoice};

    proptest::proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..40_000),
            segno in proptest::prelude::any::<u32>(),
            first in proptest::prelude::any::<u32>(),
            big in proptest::prelude::any::<bool>(),
        ) {
            let choice = GeometryChoice {
                block_size: None,
                endian: Some(if big { Endian::Big } else { Endian::Little }),
            };
            let g = file_geometry(&bytes, choice, true).unwrap();
            let mut scan = FileScan::new(g, segno, u64::MAX >> 27).unwrap();
            scan.chunk(&bytes, first);
            scan.chunk(&bytes, 0);
            let exported = scan.export();
            let back = FileScan::import(&exported).unwrap();
            proptest::prop_assert_eq!(&back, &scan);
            for code in 0..=4 {
                let known = ChecksumsKnown::from_code(code).unwrap();
                let v = scan.finish(known);
                // Every page is in one status; every page not all zeros in one checksum count.
                let c = v.checksum_counts;
                proptest::prop_assert_eq!(
                    c.checksums_valid + c.checksums_not_yet,
                    v.counts.blocks() - v.counts.zero
                );
                proptest::prop_assert!(c.checksums_not_yet_nonzero <= c.checksums_not_yet);
                if known.in_progress() {
                    proptest::prop_assert_eq!(v.counts.mismatch, 0);
                }
            }
            // Cut or garbled exports are refused, never a panic.
            for cut in [0, 5, exported.len() / 2, exported.len().saturating_sub(1)] {
                proptest::prop_assert!(FileScan::import(&exported[..cut]).is_err());
            }
            let _ = FileScan::import(&bytes);
        }
    }

    #[test]
    fn row_for_lists_any_page_as_the_verdict_judges_it() {
        // A page PostgreSQL wrote (tests/fixtures), at its own block, with the checksum
        // pageinspect's page_checksum gave for it stored in pd_checksum.
        let mut sealed = include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/heap_hot_redirect/page.bin"
        ))
        .to_vec();
        let expected: serde_json::Value = serde_json::from_str(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/heap_hot_redirect/expected.json"
        )))
        .unwrap();
        let block = u32::try_from(expected["block"].as_u64().unwrap()).unwrap();
        let checksum = u16::try_from(expected["checksum"].as_u64().unwrap()).unwrap();
        sealed[8..10].copy_from_slice(&checksum.to_le_bytes());
        let page = &sealed[..];
        let g = file_geometry(page, GeometryChoice::default(), true).unwrap();
        let file_len = (u64::from(block) + 1) * 8192;
        let verdict_of = |bytes: &[u8], known| {
            let mut scan = FileScan::new(g, 0, file_len).unwrap();
            scan.chunk(bytes, block);
            scan.finish(known)
        };

        let fine = verdict_of(page, ChecksumsKnown::On);
        assert!(fine.pages.is_empty());
        let row = fine.row_for(block, page);
        assert_eq!((row.block, row.absolute_block), (block, block));
        assert_eq!(row.status, PageStatus::Ok);
        assert_eq!((row.stored, row.computed), (checksum, Some(checksum)));

        let mut damaged = page.to_vec();
        damaged[5000] ^= 1;
        let on = verdict_of(&damaged, ChecksumsKnown::On);
        assert_eq!(on.row_for(block, &damaged), on.pages[0]);
        assert_eq!(on.pages[0].status, PageStatus::Mismatch);

        // Checksums off: the server reads the page, and computes no checksum.
        let off = verdict_of(&damaged, ChecksumsKnown::Off);
        assert!(off.pages.is_empty());
        let row = off.row_for(block, &damaged);
        assert_eq!((row.status, row.computed), (PageStatus::Ok, None));

        // While checksums change no read verifies one: no problem, but both numbers shown
        // and the page counted as not yet valid, with a stored checksum that is not 0.
        for known in [ChecksumsKnown::InProgressOn, ChecksumsKnown::InProgressOff] {
            let v = verdict_of(&damaged, known);
            assert!(v.pages.is_empty() && !v.is_problem() && v.checksums_in_progress);
            assert_eq!((v.counts.ok, v.counts.mismatch), (1, 0));
            let row = v.row_for(block, &damaged);
            let computed = crate::page::checksum::pg_checksum_page(&damaged, block, g.endian);
            assert_ne!(computed, checksum);
            assert_eq!(
                (row.status, row.stored, row.computed),
                (PageStatus::Ok, checksum, Some(computed))
            );
            assert_eq!(
                v.checksum_counts,
                ChecksumCounts {
                    checksums_valid: 0,
                    checksums_not_yet: 1,
                    checksums_not_yet_nonzero: 1
                }
            );
            let sealed = verdict_of(page, known).checksum_counts;
            assert_eq!((sealed.checksums_valid, sealed.checksums_not_yet), (1, 0));
        }
        // A page written while checksums were off stores 0: not yet valid, not nonzero.
        let mut unsealed = page.to_vec();
        unsealed[8..10].copy_from_slice(&[0, 0]);
        let v = verdict_of(&unsealed, ChecksumsKnown::InProgressOn).checksum_counts;
        assert_eq!(
            (
                v.checksums_valid,
                v.checksums_not_yet,
                v.checksums_not_yet_nonzero
            ),
            (0, 1, 0)
        );
        assert_eq!(
            ChecksumsKnown::of_version(Some(3)).change_words().is_some(),
            ChecksumsKnown::of_version(Some(2)).change_words().is_some()
        );
        assert_eq!(ChecksumsKnown::of_version(Some(1)).change_words(), None);
        for code in 0..=4 {
            assert_eq!(
                ChecksumsKnown::from_code(code).map(ChecksumsKnown::code),
                Some(code)
            );
        }
        assert_eq!(ChecksumsKnown::from_code(5), None);
    }

    #[test]
    fn big_endian_tuples_name_their_block() {
        // A big-endian heap page with two self-pointing tuples naming block 0x0001_0002.
        let mut p = vec![0u8; 8192];
        let be =
            |p: &mut [u8], off: usize, v: u16| p[off..off + 2].copy_from_slice(&v.to_be_bytes());
        be(&mut p, 12, 32);
        be(&mut p, 14, 8000);
        be(&mut p, 16, 8192);
        for (lp, off) in [(1u32, 8000u32), (2, 8100)] {
            let id = (off << 17) | (1 << 15) | 40;
            let at = 24 + 4 * (lp as usize - 1);
            p[at..at + 4].copy_from_slice(&id.to_be_bytes());
            let off = off as usize;
            be(&mut p, off + 12, 1);
            be(&mut p, off + 14, 2);
            be(&mut p, off + 16, lp as u16);
        }
        assert_eq!(heap_tuple_block(&p, Endian::Big), Some(0x0001_0002));
        assert_eq!(heap_tuple_block(&p, Endian::Little), None);
    }
}
