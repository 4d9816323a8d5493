//! Rows out of heap tuples: which tuples a new transaction would see (from hint bits, as
//! heapam_visibility.c HeapTupleSatisfiesMVCC reads them before asking pg_xact), and each
//! visible tuple as a COPY line or a JSON object. The relation's columns come from a
//! catalog or a type list; I/O (pages, TOAST files) is the caller's.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use crate::file::scan::ChecksumsKnown;
use crate::findings::Finding;
use crate::page::geometry::Endian;
use crate::page::verify::{header_is_sane, verify_page, PageStatus};
use crate::tuple::copy::{self, CopyFormat};
use crate::tuple::toast::{detoast, ValueProblem};
use crate::tuple::value::{output, Type};
use crate::tuple::visibility::{tuple_state, MultiXactMember, TransactionLog, TupleState};
use crate::tuple::{self, heap_items, Attribute, ToastPointer, TupleHeader};

/// One column of the relation, in attribute number order; dropped ones are kept (their
/// bytes still take room in old tuples) and left out of the output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    pub name: String,
    pub ty: Type,
    /// pg_attribute's attlen, attalign, attisdropped and missing value.
    pub attribute: Attribute,
}

impl Column {
    /// A column of a type, its layout the type's own (a `--types` list).
    pub fn of_type(name: String, ty: Type) -> Column {
        let attribute = ty.attribute();
        Column {
            name,
            ty,
            attribute,
        }
    }
}

/// What a tuple header's hint bits say about the tuple for a new snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visibility {
    Visible,
    /// An aborted insert, or a delete or update that committed.
    Invisible,
    /// The hint bits do not say; pg_xact (or pg_multixact) would.
    Undecided,
}

/// Whether a new transaction sees the tuple at `tid` (block, line pointer), as
/// `visibility::tuple_state` decides it from hint bits first, then the transaction log; with
/// a log that lacks the status (none given, as for `rows --types`), the tuple is undecided.
pub fn visibility(h: &TupleHeader, tid: (u32, u16), log: &TransactionLog) -> Visibility {
    match tuple_state(h, tid, log) {
        Ok(s) if s.is_visible() => Visibility::Visible,
        Ok(_) => Visibility::Invisible,
        Err(_) => Visibility::Undecided,
    }
}

/// Whether the rows of a page can be read; the reason, in the server's words where it has
/// them, when they cannot. With checksums off (pg_control's data_page_checksum_version 0) only
/// the header counts; when that is not known (files without their cluster), a stored
/// pd_checksum of 0 is taken as a cluster without checksums, since a cluster with them never
/// stores 0 (pg_checksum_page maps 0 to 1).
pub fn page_problem(
    page: &[u8],
    absolute: u32,
    endian: Endian,
    checksums: ChecksumsKnown,
) -> Option<String> {
    let verdict = verify_page(page, absolute, endian);
    let checksums_off = !checksums.verified_on_read()
        || (checksums == ChecksumsKnown::Unknown && verdict.stored == 0);
    match verdict.status {
        PageStatus::Ok | PageStatus::Zero => None,
        PageStatus::Mismatch if checksums_off && header_is_sane(page, endian) => None,
        PageStatus::Mismatch if checksums_off => Some(String::from(
            "invalid page (its header breaks PageIsVerified's rules)",
        )),
        PageStatus::Mismatch => Some(format!(
            "page verification failed, calculated checksum {} but expected {}",
            verdict.computed.unwrap_or(0),
            verdict.stored
        )),
        other => Some(format!("invalid page ({})", other.as_str())),
    }
}

/// Whether a page whose checksum fails is one the server reads under
/// `ignore_checksum_failure = on` (PageIsVerified then accepts any page with a sane header)
/// and whose structure is sound, so its rows read as the server would return them. Err: why
/// not, in the registry's words (the header, or the first structural finding).
pub fn readable_despite_checksum(page: &[u8], absolute: u32, endian: Endian) -> Result<(), String> {
    use crate::am::check_page;
    use crate::am::decoded::{DecodeOptions, Hints};
    use crate::findings::Evidence;
    use crate::page::kind::PageKind;
    if !header_is_sane(page, endian) {
        return Err(String::from(
            "its header breaks PageIsVerified's rules, which ignore_checksum_failure does not skip",
        ));
    }
    let opts = DecodeOptions {
        endian,
        file_kind: Some(PageKind::Heap),
        ..DecodeOptions::default()
    };
    let found = check_page(page, absolute, &opts, &Hints::default());
    match found
        .iter()
        .find(|f| matches!(f.finding.evidence(), Evidence::Structural))
    {
        Some(f) => Err(match f.item {
            Some(lp) => format!(
                "its structure is damaged too: line pointer {lp} leads to bytes that are not a tuple PostgreSQL wrote (amcheck: \"{}\"), so that row cannot be decoded, and a page with bytes like that cannot be trusted for any of its rows",
                f.message()
            ),
            None => format!(
                "its structure is damaged too (amcheck: \"{}\"), so none of its rows can be trusted",
                f.message()
            ),
        }),
        None => Ok(()),
    }
}

/// The other block of the same relation a heap page whose checksum fails was written for:
/// its stored checksum is valid for that block and the majority of its tuples' t_ctid name
/// it (what `verify` reports as `matches_block`). Such a page is a copy of that block's rows,
/// which that block gives itself; under ignore_checksum_failure the server returns them
/// twice.
pub fn copy_of_block(page: &[u8], absolute: u32, endian: Endian) -> Option<u32> {
    if !header_is_sane(page, endian) {
        return None;
    }
    let verdict = verify_page(page, absolute, endian);
    if verdict.status != PageStatus::Mismatch || verdict.stored == 0 {
        return None;
    }
    let other = crate::file::scan::heap_tuple_block(page, endian)?;
    (other != absolute
        && crate::page::checksum::pg_checksum_page(page, other, endian) == verdict.stored)
        .then_some(other)
}

/// What `rows` says of an all-zero page followed, later in the relation, by a page with
/// line pointers: the server reads it as an empty new page, so whatever it held is gone
/// without an error (relation extension leaves such pages too).
pub const ZERO_PAGE_BETWEEN_ROWS: &str =
    "all zeros between pages with rows: the server reads it as an empty page; whatever rows it held are lost (relation extension also leaves such pages, empty)";

/// The all-zero pages of a relation read in block order that lie between pages with line
/// pointers: [`ZeroRuns::page`] returns those a page with line pointers puts behind it.
#[derive(Clone, Debug, Default)]
pub struct ZeroRuns {
    pending: Vec<u32>,
}

impl ZeroRuns {
    /// The next page in block order (`PageRows::zero`, `PageRows::line_pointers`): the zero
    /// pages it proves to be between pages with rows.
    pub fn page(&mut self, absolute: u32, zero: bool, line_pointers: bool) -> Vec<u32> {
        if zero {
            self.pending.push(absolute);
            Vec::new()
        } else if line_pointers {
            core::mem::take(&mut self.pending)
        } else {
            Vec::new()
        }
    }
}

/// Which tuple versions a run prints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Versions {
    /// The rows a new transaction would see.
    #[default]
    Visible,
    /// Every version on the page, dead, aborted and updated-away ones too (pg_dirtyread's
    /// view), each led by ctid, xmin, xmax and its state.
    All,
}

/// A tuple version's state as `--all-versions` prints it.
pub fn state_name(state: Result<TupleState, Finding>) -> &'static str {
    match state {
        Ok(TupleState::Live) => "live",
        Ok(TupleState::Aborted) => "aborted",
        Ok(TupleState::Deleted) => "deleted",
        Ok(TupleState::Updated) => "updated",
        Err(_) => "undecided",
    }
}

/// A page, or a tuple on it, that gave no row (or gave one with a warning).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeftOut {
    /// The line pointer; None for the whole page.
    pub offset: Option<u16>,
    /// The attribute (1-based) the problem was found at.
    pub attnum: Option<usize>,
    pub message: String,
    /// The row was printed all the same (a note, not an omission).
    pub printed: bool,
    /// For a page whose checksum fails but whose rows read as the server would return them
    /// under ignore_checksum_failure: how many rows it gives (printed with
    /// `include_damaged`, left out without).
    pub rows: Option<u64>,
    /// The page is a copy of this other block ([`copy_of_block`]): its rows are left out
    /// even with `include_damaged`, since they would be printed twice; `message` says so.
    pub copy_of: Option<u32>,
    /// For a page-wide message about some of its tuples (a torn page's older write): their
    /// line pointers, left out though the page's other rows may be printed.
    pub tuples: Vec<u16>,
}

/// What one page gave.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PageRows {
    pub rows: u64,
    /// Tuples a new transaction would not see (left out unless all versions are asked for).
    pub invisible: u64,
    /// Tuples whose state neither hint bits nor the transaction log decide: printed.
    pub undecided: u64,
    pub left_out: Vec<LeftOut>,
    /// The page is all zeros (a new page: the server reads it as empty).
    pub zero: bool,
    /// The page has line pointers (pd_lower past the header): it held rows once.
    pub line_pointers: bool,
    /// The line pointers of the rows printed from a page whose checksum fails
    /// (`include_damaged`): flagged in JSON, listed by the caller for COPY's formats.
    pub damaged: Vec<u16>,
    /// Stale versions left out (`RowWriter::with_row_keys`): each also in `left_out`.
    pub stale: u64,
    /// A torn write: its rows read where its line pointers and the rows' t_ctid find them
    /// (as `repair --torn` rebuilds the page), not as the server reads the page under
    /// ignore_checksum_failure.
    pub torn: bool,
    /// The key of each live row printed (`RowWriter::with_unique_key`), for `PrintedKeys`.
    pub keys: Vec<PrintedKey>,
    /// The page verifies but is older than the WAL shows (`RowWriter::with_flushed`): its
    /// rows are left out, or printed and flagged, as a damaged page's.
    pub older: bool,
    /// The page's one wrong header field, set back to read it
    /// (`crate::page::header_field`): its rows are what `repair --set` gives the server.
    pub field_set: Option<crate::page::header_field::FieldFix>,
}

/// A printed live row's unique key: its text (None for no NULL key column, as the index
/// holds it) and a 128-bit hash of it, which `PrintedKeys` keeps instead of the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrintedKey {
    pub lp: u16,
    pub hash: u128,
    pub key: Vec<Option<String>>,
}

/// The keys of the live rows printed so far, each with where it was printed first: a unique
/// index holds one live row per key, so a key printed twice means one of the two is an
/// older version of its row (a lost write, a page restored from an older copy, a torn
/// write), or that the index let a duplicate in (its order changed under it, as a collation
/// update can do). Kept by hash, 24 bytes and a tree node a row, not by key text.
#[derive(Clone, Debug, Default)]
pub struct PrintedKeys {
    seen: alloc::collections::BTreeMap<u128, Ctid>,
}

impl PrintedKeys {
    /// One page's printed keys (`PageRows::keys`), pages in the order they are printed:
    /// for each key printed before, its line pointer here and the warning.
    pub fn page(
        &mut self,
        writer: &RowWriter,
        absolute: u32,
        keys: &[PrintedKey],
    ) -> Vec<(u16, String)> {
        let mut out = Vec::new();
        for k in keys {
            let here = Ctid {
                block: absolute,
                offset: k.lp,
            };
            match self.seen.get(&k.hash) {
                // The same row read again (a caller reading a page twice) is no second row.
                Some(first) if *first == here => {}
                Some(first) => out.push((k.lp, writer.printed_twice(&k.key, *first))),
                None => {
                    self.seen.insert(k.hash, here);
                }
            }
        }
        out
    }
}

/// The 128-bit hash `PrintedKeys` keeps of a key: each column's NULL flag, length and text.
fn key_hash(key: &[Option<String>]) -> u128 {
    use core::hash::Hasher;
    use siphasher::sip128::Hasher128;
    let mut h = siphasher::sip128::SipHasher13::new_with_keys(0x7067_7061_6765, 0x6b65_7973);
    for k in key {
        match k {
            None => h.write_u8(0),
            Some(t) => {
                h.write_u8(1);
                h.write_u64(t.len() as u64);
                h.write(t.as_bytes());
            }
        }
    }
    h.finish128().as_u128()
}

/// The output shape of `rows`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowFormat {
    Copy(CopyFormat),
    /// One JSON object per line: ctid, xmin, xmax, then every column by name.
    Json,
}

/// Why a tuple gives no row, or gives it with a warning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowProblem {
    pub finding: Finding,
    /// The column (0-based among all attributes) it was found at.
    pub column: Option<usize>,
    pub message: String,
}

/// Where a tuple sits, for ctid and messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ctid {
    pub block: u32,
    pub offset: u16,
}

/// A tuple's columns as `RowWriter::values` reads them.
#[derive(Clone, Debug)]
pub struct Values {
    pub header: TupleHeader,
    /// Each column that is not dropped: its output text, None for NULL.
    pub texts: Vec<Option<String>>,
    /// As `RowWriter::row`'s note.
    pub note: Option<RowProblem>,
}

/// A relation's columns, ready to turn tuples into lines.
pub struct RowWriter {
    columns: Vec<Column>,
    attrs: Vec<Attribute>,
    format: RowFormat,
    endian: Endian,
    /// Whether the attribute list is a guess to be checked against each tuple's length and
    /// natts (a `--types` list), not the relation's catalog.
    check_fit: bool,
    /// Columns printed (not dropped): COPY quotes `\\.` only in a row of one.
    visible: usize,
    versions: Versions,
    /// Rows of pages whose checksum fails are read when the server would read them under
    /// ignore_checksum_failure and their structure is sound.
    include_damaged: bool,
    /// Torn blocks' older writes as the incident report found them, by relation-wide block.
    torn: alloc::collections::BTreeMap<u32, crate::am::TornWrite>,
    suspects: alloc::collections::BTreeMap<u32, Vec<(u16, String)>>,
    /// Pages whose header the report's first-ranked flip mends: (byte, bit).
    header_flips: alloc::collections::BTreeMap<u32, (u32, u8)>,
    /// The keys of the live rows on pages that verify: a damaged page's live row with one of
    /// them is a stale version, left out.
    row_keys: Option<RowKeys>,
    /// The columns of the table's primary key (or a unique index), whose printed live rows'
    /// keys each page gives (`PageRows::keys`).
    unique: Option<Vec<usize>>,
    /// What the data directory's WAL says its latest checkpoint wrote, by relation-wide
    /// block (`with_flushed`): a page older than that is left out as a damaged one is.
    flushed: alloc::collections::BTreeMap<u32, crate::wal::FlushedBlock>,
    /// That checkpoint's redo point, and the server version for LSNs' text.
    flushed_redo: u64,
    major: Option<u32>,
}

/// The columns that name one row of a table (its primary key's or a unique index's) and
/// the keys of the live rows on the pages that verify, with each row's TID: a unique index
/// holds at most one live version per key, so a damaged page's live tuple with one of these
/// keys is an older version a torn write or an older page brought back.
#[derive(Clone, Debug, Default)]
pub struct RowKeys {
    /// 0-based positions among the columns (attnum - 1).
    columns: Vec<usize>,
    live: alloc::collections::BTreeMap<Vec<Option<String>>, Ctid>,
}

impl RowKeys {
    /// `attnums`: the key's attribute numbers (pg_index.indkey); None when one is not a
    /// column.
    pub fn new(attnums: &[i16]) -> Option<RowKeys> {
        let columns = attnums
            .iter()
            .map(|&a| usize::try_from(a).ok()?.checked_sub(1))
            .collect::<Option<Vec<usize>>>()?;
        (!columns.is_empty()).then(|| RowKeys {
            columns,
            live: alloc::collections::BTreeMap::new(),
        })
    }

    /// The first pass: the keys of the rows a new snapshot sees on one page, when the page
    /// verifies (a damaged page is the one to be judged, never the judge).
    #[allow(clippy::too_many_arguments)]
    pub fn sound_page(
        &mut self,
        writer: &RowWriter,
        page: &[u8],
        absolute: u32,
        checksums: ChecksumsKnown,
        log: &TransactionLog,
        fetch: &mut dyn FnMut(&ToastPointer) -> Result<Vec<u8>, ValueProblem>,
    ) {
        let e = writer.endian;
        if writer.problem(page, absolute, checksums).is_some() {
            return;
        }
        for item in heap_items(page, e) {
            let Some(tuple) = item.tuple else { continue };
            let Some(h) = TupleHeader::read(tuple, e) else {
                continue;
            };
            if visibility(&h, (absolute, item.lp), log) != Visibility::Visible {
                continue;
            }
            if let Some(key) = writer.key_of(tuple, &self.columns, fetch) {
                self.live.insert(
                    key,
                    Ctid {
                        block: absolute,
                        offset: item.lp,
                    },
                );
            }
        }
    }

    /// The rows named so far.
    pub fn len(&self) -> usize {
        self.live.len()
    }

    pub fn is_empty(&self) -> bool {
        self.live.is_empty()
    }
}

impl RowWriter {
    pub fn new(columns: Vec<Column>, format: RowFormat, endian: Endian, check_fit: bool) -> Self {
        let attrs = columns.iter().map(|c| c.attribute.clone()).collect();
        let visible = columns.iter().filter(|c| !c.attribute.attisdropped).count();
        RowWriter {
            visible,
            columns,
            attrs,
            format,
            endian,
            check_fit,
            versions: Versions::Visible,
            include_damaged: false,
            torn: alloc::collections::BTreeMap::new(),
            suspects: alloc::collections::BTreeMap::new(),
            header_flips: alloc::collections::BTreeMap::new(),
            row_keys: None,
            unique: None,
            flushed: alloc::collections::BTreeMap::new(),
            flushed_redo: 0,
            major: None,
        }
    }

    /// The same writer leaving out, as a damaged page's (printed with `include_damaged`),
    /// the rows of each page older than the WAL says the latest checkpoint (redo point
    /// `redo`) wrote: `blocks`, this relation's blocks changed before that redo point
    /// (`crate::wal::FlushedChanges`). Such a page verifies, and the server reads it without
    /// an error, but its rows are as they were before those changes.
    pub fn with_flushed(
        mut self,
        blocks: alloc::collections::BTreeMap<u32, crate::wal::FlushedBlock>,
        redo: u64,
        major: Option<u32>,
    ) -> Self {
        self.flushed = blocks;
        self.flushed_redo = redo;
        self.major = major;
        self
    }

    /// Why the rows of a page are not printed as a sound page's: [`page_problem`], or the
    /// page is older than the WAL shows (`with_flushed`).
    pub fn problem(&self, page: &[u8], absolute: u32, checksums: ChecksumsKnown) -> Option<String> {
        self.problem_of(page, absolute, checksums)
            .map(|(why, _)| why)
    }

    /// [`Self::problem`], and whether it is that the page is older than the WAL shows.
    fn problem_of(
        &self,
        page: &[u8],
        absolute: u32,
        checksums: ChecksumsKnown,
    ) -> Option<(String, bool)> {
        if let Some(why) = page_problem(page, absolute, self.endian, checksums) {
            return Some((why, false));
        }
        self.older_page(page, absolute).map(|why| (why, true))
    }

    /// Why the page of block `absolute` is older than the WAL shows, if it is.
    fn older_page(&self, page: &[u8], absolute: u32) -> Option<String> {
        let changed = self.flushed.get(&absolute)?;
        let pd_lsn = changed.older_page(page, absolute, self.endian)?;
        let lsn = |l: u64| crate::page::lsn::lsn_text(self.major, l);
        Some(format!(
            "older than the WAL shows (a lost write, or a stale restore): the WAL changed the block at {}, before the latest checkpoint's redo point {}, after the page's pd_lsn {}; the server reads the page without an error and returns its rows as they were before those changes (deleted rows back, updates undone)",
            lsn(changed.newest),
            lsn(self.flushed_redo),
            lsn(pd_lsn)
        ))
    }

    /// The same writer giving each page's printed live rows' keys (`PageRows::keys`) of the
    /// unique key `attnums` (pg_index.indkey), for `PrintedKeys`; unchanged when one is not a
    /// column.
    pub fn with_unique_key(mut self, attnums: &[i16]) -> Self {
        self.unique = RowKeys::new(attnums).map(|k| k.columns);
        self
    }

    /// The warning for a key printed at `first` and again (where the caller says).
    fn printed_twice(&self, key: &[Option<String>], first: Ctid) -> String {
        let names: Vec<&str> = self
            .unique
            .iter()
            .flatten()
            .filter_map(|&i| self.columns.get(i).map(|c| c.name.as_str()))
            .collect();
        let values: Vec<&str> = key.iter().flatten().map(String::as_str).collect();
        format!(
            "key ({})=({}) is printed at ({},{}) too, though a unique index allows one live row per key: one of the two is an older version of the row (a lost write, or a page restored from an older copy; pgpage report names a page older than its WAL), or the index let a duplicate in",
            names.join(", "),
            values.join(", "),
            first.block,
            first.offset
        )
    }

    /// The same writer leaving out, on pages whose checksum fails, the live rows whose key
    /// `keys` found live on a page that verifies.
    pub fn with_row_keys(mut self, keys: RowKeys) -> Self {
        self.row_keys = Some(keys);
        self
    }

    /// The key columns' output texts of a tuple (None for NULL); None when the tuple does not
    /// decode or a key is NULL (a unique index lets NULLs repeat).
    fn key_of(
        &self,
        tuple: &[u8],
        columns: &[usize],
        fetch: &mut dyn FnMut(&ToastPointer) -> Result<Vec<u8>, ValueProblem>,
    ) -> Option<Vec<Option<String>>> {
        let (datums, _, _) = self.deformed(tuple).ok()?;
        columns
            .iter()
            .map(|&i| {
                let stored = (*datums.get(i)?)?;
                let mut text = String::new();
                self.value(i, stored, fetch, &mut text).ok()?;
                Some(Some(text))
            })
            .collect()
    }

    /// The output texts of columns `which` (indexes into the writer's columns) of one tuple,
    /// for comparing it with an index entry's key; None when the tuple does not decode, a
    /// value is NULL or needs a TOAST table.
    pub fn column_texts(&self, tuple: &[u8], which: &[usize]) -> Option<Vec<Option<String>>> {
        let mut no_toast = |_: &ToastPointer| -> Result<Vec<u8>, ValueProblem> {
            Err(ValueProblem::from(
                crate::findings::Finding::ToastRelationMissing,
            ))
        };
        self.key_of(tuple, which, &mut no_toast)
    }

    /// Where a damaged page's live tuple's key is live on a page that verifies.
    fn live_elsewhere(
        &self,
        tuple: &[u8],
        ctid: Ctid,
        fetch: &mut dyn FnMut(&ToastPointer) -> Result<Vec<u8>, ValueProblem>,
    ) -> Option<(Vec<Option<String>>, Ctid)> {
        let keys = self.row_keys.as_ref()?;
        let key = self.key_of(tuple, &keys.columns, fetch)?;
        let at = *keys.live.get(&key)?;
        (at != ctid).then_some((key, at))
    }

    /// The same writer reading the rows of pages whose checksum fails, as
    /// [`readable_despite_checksum`] allows, each flagged.
    pub fn with_damaged(mut self, include: bool) -> Self {
        self.include_damaged = include;
        self
    }

    /// Torn blocks' older writes as the incident report found them (it reads the table's
    /// indexes, which tell older versions of rows the page alone cannot): the tuples it
    /// counts as older versions are left out of those blocks instead of the page's own guess.
    /// Values a damaged page's printed rows hold that a flipped bit probably changed, by
    /// relation-wide block: (line pointer, what to say of it). Each printed row of those
    /// gets its note (`include_damaged`).
    pub fn with_suspects(
        mut self,
        suspects: alloc::collections::BTreeMap<u32, Vec<(u16, String)>>,
    ) -> RowWriter {
        self.suspects = suspects;
        self
    }

    /// Pages whose header the report's first-ranked bit flip mends, by relation-wide block:
    /// their rows read through the header flipped back (`RowHints::header_flips`).
    pub fn with_header_flips(
        mut self,
        flips: alloc::collections::BTreeMap<u32, (u32, u8)>,
    ) -> RowWriter {
        self.header_flips = flips;
        self
    }

    pub fn with_torn(
        mut self,
        torn: alloc::collections::BTreeMap<u32, crate::am::TornWrite>,
    ) -> Self {
        self.torn = torn;
        self
    }

    /// COPY's HEADER line: the column names (led by ctid, xmin, xmax and state for all
    /// versions), quoted as COPY quotes a field; None for JSON.
    pub fn header_line(&self) -> Option<String> {
        let RowFormat::Copy(f) = self.format else {
            return None;
        };
        let lead: &[&str] = match self.versions {
            Versions::All => &["ctid", "xmin", "xmax", "state"],
            Versions::Visible => &[],
        };
        let names = lead.iter().copied().chain(
            self.columns
                .iter()
                .filter(|c| !c.attribute.attisdropped)
                .map(|c| c.name.as_str()),
        );
        let single = lead.len().saturating_add(self.visible) == 1;
        let mut out = String::new();
        for (i, name) in names.enumerate() {
            if i > 0 {
                out.push(copy::delimiter(f));
            }
            let at = out.len();
            out.push_str(name);
            copy::finish_field(f, &mut out, at, single);
        }
        out.push('\n');
        Some(out)
    }

    /// The same writer printing the versions asked for.
    pub fn with_versions(mut self, versions: Versions) -> Self {
        self.versions = versions;
        self
    }

    /// Every row of one page (relation-wide block `absolute`) appended to `out`, in line
    /// pointer order, and what was left out and why. `checksums` as `page_problem` takes it.
    pub fn page(
        &self,
        page: &[u8],
        absolute: u32,
        checksums: ChecksumsKnown,
        log: &TransactionLog,
        fetch: &mut dyn FnMut(&ToastPointer) -> Result<Vec<u8>, ValueProblem>,
        out: &mut String,
    ) -> PageRows {
        let e = self.endian;
        let mut got = PageRows {
            zero: page.iter().all(|&b| b == 0),
            line_pointers: crate::page::geometry::read_u16(page, 12, e).is_some_and(|lower| {
                usize::from(lower) > crate::page::bufpage::SIZE_OF_PAGE_HEADER_DATA
            }),
            ..PageRows::default()
        };
        if let Some((why, older)) = self.problem_of(page, absolute, checksums) {
            got.older = older;
            // A page one header field away from the server's (the incident report's
            // header_field) reads through that field set back: its tuples are its own.
            let fix = crate::page::header_field::one_field(page, absolute, e).filter(|_| !older);
            let flip = self
                .header_flips
                .get(&absolute)
                .filter(|_| fix.is_none() && !older)
                .copied();
            let fixed = fix.as_ref().map(|f| f.apply(page, e)).or_else(|| {
                let (offset, bit) = flip?;
                let mut p = page.to_vec();
                let byte = p.get_mut(usize::try_from(offset).ok()?)?;
                *byte ^= 1u8.checked_shl(u32::from(bit))?;
                Some(p)
            });
            let page: &[u8] = fixed.as_deref().unwrap_or(page);
            got.field_set.clone_from(&fix);
            let why = match (&fix, flip) {
                (None, Some((offset, bit))) => format!(
                    "{why}; one bit of its header is wrong (the report's first-ranked flip, byte {offset} bit {bit}; pgpage repair --flip {offset}:{bit} restores the page): its rows read with it flipped back"
                ),
                _ => why,
            };
            let why = match &fix {
                Some(f) => format!(
                    "{why}; only its {} is wrong ({}, {} {}): its rows read with it set back",
                    f.field.name(),
                    f.stored,
                    if f.confirmed {
                        "the stored checksum verifies with"
                    } else {
                        "its line pointers give"
                    },
                    f.value
                ),
                None => why,
            };
            // How a printed row of the page is flagged in JSON.
            let tag = Some(if older { "stale" } else { "checksum" });
            let mismatch = verify_page(page, absolute, e).status == PageStatus::Mismatch;
            let readable = if got.older || fix.is_some() || flip.is_some() {
                Ok(())
            } else if mismatch {
                // A torn page's line pointers into the older write's sectors meet bytes that
                // are no tuple of theirs: those rows are named one by one below, the rest
                // read as the report counts them readable.
                readable_despite_checksum(page, absolute, e).or_else(|why| {
                    let torn = header_is_sane(page, e)
                        && (self.torn.contains_key(&absolute)
                            || !self.older_write(page, absolute, log, fetch).0.is_empty());
                    if torn {
                        Ok(())
                    } else {
                        Err(why)
                    }
                })
            } else {
                Err(String::new())
            };
            let copy_of = readable
                .is_ok()
                .then(|| copy_of_block(page, absolute, e))
                .flatten();
            if let Some(other) = copy_of {
                let mut scratch = String::new();
                // Its rows counted as they read, the stale-version filter aside: all of
                // them are the other block's.
                let counted = self.page_rows(page, absolute, log, fetch, &mut scratch, tag);
                let n = counted.rows.saturating_add(counted.stale);
                got.left_out.push(LeftOut {
                    offset: None,
                    attnum: None,
                    message: format!(
                        "{why}; block {absolute} holds a copy of block {other} (its checksum is valid for block {other} and its tuples' t_ctid name block {other}): its {} left out, they are block {other}'s and would be printed twice (SET ignore_checksum_failure = on lets the server return them twice)",
                        crate::words::plural(n, "row is", "rows are")
                    ),
                    printed: false,
                    rows: None,
                    copy_of: Some(other),
                    tuples: Vec::new(),
                });
                return got;
            }
            match readable {
                Ok(()) => {
                    // Read either way: printed when asked, else counted for the message.
                    let mut scratch = String::new();
                    let target = if self.include_damaged {
                        &mut *out
                    } else {
                        &mut scratch
                    };
                    let rows = self.page_rows(page, absolute, log, fetch, target, tag);
                    let n = rows.rows;
                    // heap_prepare_pagescan skips every visibility check on a page marked
                    // all-visible: the server returns the versions pgpage leaves out too.
                    let all_visible = crate::page::geometry::read_u16(page, 10, e)
                        .is_some_and(|f| f & crate::page::fields::PD_ALL_VISIBLE != 0);
                    // heap_page_prune_opt runs first where pd_prune_xid is set: the dead
                    // versions it removes do not come back.
                    let prunable =
                        crate::page::geometry::read_u32(page, 20, e).is_some_and(|x| x != 0);
                    let why = if all_visible && rows.invisible > 0 && !rows.torn {
                        format!(
                            "{why}; the page is marked all-visible (PD_ALL_VISIBLE), so under SET ignore_checksum_failure = on a sequential scan returns every tuple on it without checking its visibility: {}{} no snapshot sees (updated or deleted), which pgpage does not print, come back as rows there{}",
                            if prunable { "up to " } else { "" },
                            crate::words::plural(rows.invisible, "version", "versions"),
                            if prunable {
                                " (fewer where the server's read prunes the page first, as pd_prune_xid lets it)"
                            } else {
                                ""
                            }
                        )
                    } else {
                        why
                    };
                    // Left out whole, the page's tuples that would give no row either way
                    // are counted in its one line, not named one by one after it.
                    let others: usize = rows
                        .left_out
                        .iter()
                        .filter(|l| !l.printed)
                        .map(|l| match l.offset {
                            Some(_) => 1,
                            None => l.tuples.len(),
                        })
                        .sum();
                    let why = if self.include_damaged || others == 0 {
                        why
                    } else {
                        format!(
                            "{why}; {} on it {} no row (--include-damaged names {})",
                            crate::words::plural(others, "other tuple", "other tuples"),
                            if others == 1 { "gives" } else { "give" },
                            if others == 1 { "it" } else { "each" }
                        )
                    };
                    got.left_out.push(LeftOut {
                        offset: None,
                        attnum: None,
                        message: why,
                        printed: self.include_damaged,
                        rows: Some(n),
                        copy_of: None,
                        tuples: Vec::new(),
                    });
                    got.torn = rows.torn;
                    if self.include_damaged {
                        got.rows = n;
                        got.invisible = rows.invisible;
                        got.undecided = rows.undecided;
                        got.damaged = rows.damaged;
                        got.stale = rows.stale;
                        got.keys = rows.keys;
                        got.left_out.extend(rows.left_out);
                    }
                }
                Err(more) => got.left_out.push(LeftOut {
                    offset: None,
                    attnum: None,
                    message: if more.is_empty() {
                        why
                    } else {
                        format!("{why}; {more}")
                    },
                    printed: false,
                    rows: None,
                    copy_of: None,
                    tuples: Vec::new(),
                }),
            }
            return got;
        }
        let rows = self.page_rows(page, absolute, log, fetch, out, None);
        PageRows {
            zero: got.zero,
            line_pointers: got.line_pointers,
            ..rows
        }
    }

    /// The rows of a page that can be read, each flagged as from a damaged page when
    /// `tag` says why it is (`checksum`, or `stale`: older than the WAL shows).
    fn page_rows(
        &self,
        page: &[u8],
        absolute: u32,
        log: &TransactionLog,
        fetch: &mut dyn FnMut(&ToastPointer) -> Result<Vec<u8>, ValueProblem>,
        out: &mut String,
        tag: Option<&'static str>,
    ) -> PageRows {
        let mut got = PageRows::default();
        let e = self.endian;
        let bs = page.len();
        let damaged = tag.is_some();
        // A page older than the WAL is a whole older write, not two writes met: its rows
        // whose keys are live elsewhere are still left out below, as older versions.
        let (older_sectors, older, moved) = match self.torn.get(&absolute) {
            _ if !damaged || tag == Some("stale") => (Vec::new(), Vec::new(), Vec::new()),
            Some(t) => (
                t.sectors
                    .iter()
                    .map(|&s| u16::try_from(s).unwrap_or(u16::MAX))
                    .collect(),
                t.items.clone(),
                t.moved.clone(),
            ),
            None => self.older_write(page, absolute, log, fetch),
        };
        // A page whose header is the older write reads through the newer write's line
        // pointers, rebuilt; another torn page's rows that the older write holds at other
        // places read there.
        let rebuilt = self
            .torn
            .get(&absolute)
            .filter(|t| damaged && !t.rebuilt.is_empty());
        let view;
        let page = match rebuilt {
            Some(t) => {
                view = t.view(page, e);
                view.as_slice()
            }
            None if !moved.is_empty() => {
                view = crate::am::torn_view(page, e, &moved);
                view.as_slice()
            }
            None => page,
        };
        got.torn = !older_sectors.is_empty();
        let mut older_left: Vec<u16> = Vec::new();
        // Where each tuple starts, by line pointer: on a damaged page two may lead to one
        // tuple, which the server never writes.
        let starts: Vec<(u16, usize)> = if damaged {
            heap_items(page, e).map(|i| (i.lp, i.off)).collect()
        } else {
            Vec::new()
        };
        for item in heap_items(page, e) {
            let lp = item.lp;
            let left_out = |message: String| LeftOut {
                offset: Some(lp),
                attnum: None,
                message,
                printed: false,
                rows: None,
                copy_of: None,
                tuples: Vec::new(),
            };
            let Some(tuple) = item.tuple else {
                got.left_out.push(left_out(format!(
                    "line pointer to page offset {} with length {} ends beyond maximum page offset {bs}",
                    item.off, item.len
                )));
                continue;
            };
            let Some(h) = TupleHeader::read(tuple, e) else {
                got.left_out
                    .push(left_out(String::from("tuple shorter than its header")));
                continue;
            };
            // The tuple another line pointer leads to as well, whose t_ctid names that one:
            // this line pointer's own bytes are damaged (a flipped lp_off), and the row is
            // printed once, at its own place.
            if let Some(&(other, _)) = starts.iter().find(|(l, off)| {
                *l != lp && *off == item.off && h.t_ctid_block == absolute && h.t_ctid_offset == *l
            }) {
                got.left_out.push(left_out(format!(
                    "line pointer {lp} leads to the tuple line pointer {other} leads to too (its t_ctid is ({absolute},{other})): two line pointers never share a tuple, so line pointer {lp}'s own bytes are damaged, and its row is not where it points; the tuple is printed once, at ({absolute},{other})"
                )));
                continue;
            }
            let state = tuple_state(&h, (absolute, lp), log);
            let state_shown = match (self.versions, state) {
                (Versions::Visible, Ok(s)) if !s.is_visible() => {
                    got.invisible = got.invisible.saturating_add(1);
                    continue;
                }
                (Versions::Visible, _) => None,
                (Versions::All, s) => Some(state_name(s)),
            };
            match state {
                Err(_) => got.undecided = got.undecided.saturating_add(1),
                Ok(s) if !s.is_visible() => got.invisible = got.invisible.saturating_add(1),
                Ok(_) => {}
            }
            let ctid = Ctid {
                block: absolute,
                offset: lp,
            };
            let live = match state {
                Ok(s) => s.is_visible(),
                Err(_) => true,
            };
            if damaged && live {
                if let Some((key, at)) = self.live_elsewhere(tuple, ctid, fetch) {
                    let names: Vec<&str> = self
                        .row_keys
                        .iter()
                        .flat_map(|k| k.columns.iter())
                        .filter_map(|&i| self.columns.get(i).map(|c| c.name.as_str()))
                        .collect();
                    let values: Vec<&str> = key.iter().flatten().map(String::as_str).collect();
                    got.stale = got.stale.saturating_add(1);
                    got.left_out.push(left_out(format!(
                        "key ({})=({}) is live at ({},{}) too, on a page that verifies: this copy at ({absolute},{lp}) is an older version of the row (a torn write or a page from an older copy), a stale version",
                        names.join(", "),
                        values.join(", "),
                        at.block,
                        at.offset
                    )));
                    continue;
                }
            }
            if damaged && live && older.contains(&lp) {
                got.stale = got.stale.saturating_add(1);
                older_left.push(lp);
                continue;
            }
            // A MultiXact's members, as pg_get_multixact_members() lists them (all versions).
            let members = match self.versions {
                Versions::All if h.t_infomask & crate::page::fields::HEAP_XMAX_IS_MULTI != 0 => {
                    log.multixact_members(h.t_xmax).ok()
                }
                _ => None,
            };
            match self.row_as(
                tuple,
                ctid,
                state_shown,
                members.as_deref(),
                tag,
                fetch,
                out,
            ) {
                Ok(note) => {
                    got.rows = got.rows.saturating_add(1);
                    // Only rows a snapshot sees: an undecided tuple may be an aborted one.
                    if let (Some(columns), Ok(s)) = (self.unique.as_ref(), state) {
                        if s.is_visible() {
                            if let Some(key) = self.key_of(tuple, columns, fetch) {
                                got.keys.push(PrintedKey {
                                    lp,
                                    hash: key_hash(&key),
                                    key,
                                });
                            }
                        }
                    }
                    if damaged {
                        got.damaged.push(lp);
                        let suspect = self
                            .suspects
                            .get(&absolute)
                            .and_then(|s| s.iter().find(|(l, _)| *l == lp));
                        if let Some((_, message)) = suspect {
                            got.left_out.push(LeftOut {
                                offset: Some(lp),
                                attnum: None,
                                message: message.clone(),
                                printed: true,
                                rows: None,
                                copy_of: None,
                                tuples: Vec::new(),
                            });
                        }
                    }
                    if let Some(n) = note {
                        got.left_out.push(LeftOut {
                            offset: Some(lp),
                            attnum: None,
                            message: n.message,
                            printed: true,
                            rows: None,
                            copy_of: None,
                            tuples: Vec::new(),
                        });
                    }
                }
                Err(p) => got.left_out.push(LeftOut {
                    offset: Some(lp),
                    attnum: p.column.map(|c| c.saturating_add(1)),
                    message: p.message,
                    printed: false,
                    rows: None,
                    copy_of: None,
                    tuples: Vec::new(),
                }),
            }
        }
        if let Some(dead) = rebuilt.map(|t| t.dead()).filter(|d| !d.is_empty()) {
            let ctids: Vec<String> = dead.iter().map(|lp| format!("({absolute},{lp})")).collect();
            got.left_out.push(LeftOut {
                offset: None,
                attnum: None,
                message: format!(
                    "{} under no tuple in the newer write's line pointers, rebuilt from its tuples (this torn page's header is the older write): LP_DEAD there, not printed: {} (each an updated version, whose t_ctid names its successor, a version pruning removed, or a row the tear took: the incident report lists the lost keys)",
                    if dead.len() == 1 {
                        String::from("1 line pointer the older header or an index entry names is")
                    } else {
                        format!("{} line pointers the older header or index entries name are", dead.len())
                    },
                    ctids.join(", ")
                ),
                printed: false,
                rows: None,
                copy_of: None,
                tuples: dead,
            });
        }
        if let (Some(first), Some(last), false) = (
            older_sectors.first(),
            older_sectors.last(),
            older_left.is_empty(),
        ) {
            let ctids: Vec<String> = older_left
                .iter()
                .map(|lp| format!("({absolute},{lp})"))
                .collect();
            let one = older_left.len() == 1;
            let message = if self.torn.get(&absolute).is_some_and(|t| t.noise) {
                format!(
                    "random bytes written over the page (in sectors {first}-{last}; pgpage report names them) cover {}, not printed: {}",
                    if one {
                        String::from("1 row's line pointer or tuple")
                    } else {
                        format!("{} rows' line pointers or tuples", older_left.len())
                    },
                    ctids.join(", ")
                )
            } else {
                format!(
                    "{} into sectors {first}-{last}, an older write of the page (a torn write), at bytes that are not {} (another row's tuple, or an older version), and the page holds {} nowhere else, not printed: {}",
                    if one {
                        String::from("1 line pointer points")
                    } else {
                        format!("{} line pointers point", older_left.len())
                    },
                    if one { "its row" } else { "their rows" },
                    if one { "it" } else { "them" },
                    ctids.join(", ")
                )
            };
            got.left_out.push(LeftOut {
                offset: None,
                attnum: None,
                message,
                printed: false,
                rows: None,
                copy_of: None,
                tuples: older_left.clone(),
            });
        }
        got
    }

    /// The older write of a torn page: its sectors and the line pointers in them
    /// (`decode::torn_with`), from what the page shows and from its live tuples that are
    /// older versions of their rows: a key live on a page that verifies, or the key of a
    /// heap-only tuple that nothing on the page leads to (the row's newest version).
    fn older_write(
        &self,
        page: &[u8],
        absolute: u32,
        log: &TransactionLog,
        fetch: &mut dyn FnMut(&ToastPointer) -> Result<Vec<u8>, ValueProblem>,
    ) -> (Vec<u16>, Vec<u16>, Vec<(u16, u16)>) {
        let e = self.endian;
        let mut stale: Vec<u16> = Vec::new();
        if let Some(keys) = self.row_keys.as_ref() {
            let unreached = crate::am::unreached_heap_only(page, absolute, e);
            let mut live: Vec<(u16, Vec<Option<String>>)> = Vec::new();
            for item in heap_items(page, e) {
                let (Some(tuple), lp) = (item.tuple, item.lp) else {
                    continue;
                };
                let Some(h) = TupleHeader::read(tuple, e) else {
                    continue;
                };
                if tuple_state(&h, (absolute, lp), log).is_ok_and(|s| !s.is_visible()) {
                    continue;
                }
                let ctid = Ctid {
                    block: absolute,
                    offset: lp,
                };
                if self.live_elsewhere(tuple, ctid, fetch).is_some() {
                    stale.push(lp);
                } else if let Some(k) = self.key_of(tuple, &keys.columns, fetch) {
                    live.push((lp, k));
                }
            }
            let orphans: Vec<&Vec<Option<String>>> = live
                .iter()
                .filter(|(lp, _)| unreached.contains(lp))
                .map(|(_, k)| k)
                .collect();
            stale.extend(
                live.iter()
                    .filter(|(lp, k)| !unreached.contains(lp) && orphans.contains(&k))
                    .map(|(lp, _)| *lp),
            );
        }
        let (sectors, older) = crate::am::torn_with(page, absolute, e, &stale);
        let moved = crate::am::torn_moved(page, absolute, e, &sectors);
        let older = older
            .into_iter()
            .filter(|lp| !moved.iter().any(|(m, _)| m == lp))
            .collect();
        (
            sectors
                .into_iter()
                .map(|s| u16::try_from(s).unwrap_or(u16::MAX))
                .collect(),
            older,
            moved,
        )
    }

    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    pub fn versions(&self) -> Versions {
        self.versions
    }

    /// Appends `tuple`'s line to `out`; on a problem nothing is appended. `fetch` returns
    /// an external value's reassembled chunks. Ok(Some(note)): the line was printed but is
    /// uncertain (a type list longer than the tuple's attributes: NULLs printed where a
    /// column added later would show its default).
    pub fn row(
        &self,
        tuple: &[u8],
        ctid: Ctid,
        fetch: &mut dyn FnMut(&ToastPointer) -> Result<Vec<u8>, ValueProblem>,
        out: &mut String,
    ) -> Result<Option<RowProblem>, RowProblem> {
        self.row_as(tuple, ctid, None, None, None, fetch, out)
    }

    /// The output text of each column that is not dropped, as `row` prints them, and the
    /// tuple's header: the page view's columns.
    pub fn values(
        &self,
        tuple: &[u8],
        fetch: &mut dyn FnMut(&ToastPointer) -> Result<Vec<u8>, ValueProblem>,
    ) -> Result<Values, RowProblem> {
        let (datums, header, note) = self.deformed(tuple)?;
        let mut texts = Vec::with_capacity(datums.len());
        for (i, (col, d)) in self.columns.iter().zip(&datums).enumerate() {
            if col.attribute.attisdropped {
                continue;
            }
            texts.push(match d {
                None => None,
                Some(stored) => {
                    let mut s = String::new();
                    self.value(i, stored, fetch, &mut s)?;
                    Some(s)
                }
            });
        }
        Ok(Values {
            header,
            texts,
            note,
        })
    }

    /// The tuple's datums and header, held to the type list when it is one; the note as
    /// `row` gives it.
    #[allow(clippy::type_complexity)]
    fn deformed<'t>(
        &'t self,
        tuple: &'t [u8],
    ) -> Result<(Vec<Option<&'t [u8]>>, TupleHeader, Option<RowProblem>), RowProblem> {
        let e = self.endian;
        let mut datums = Vec::with_capacity(self.attrs.len());
        let used = tuple::deform(tuple, &self.attrs, e, &mut datums).map_err(|d| RowProblem {
            finding: d.finding,
            column: d.attnum,
            message: String::from(d.finding.message()),
        })?;
        let header = TupleHeader::read(tuple, e).ok_or(RowProblem {
            finding: Finding::HeapItemNotTuple,
            column: None,
            message: String::from(Finding::HeapItemNotTuple.message()),
        })?;
        if self.check_fit {
            let data_len = tuple.len().saturating_sub(usize::from(header.t_hoff));
            if header.natts() > self.attrs.len() || used != data_len {
                let f = Finding::TupleBytesLeftOver;
                return Err(RowProblem {
                    finding: f,
                    column: None,
                    message: format!(
                        "the tuple has {} attributes and {data_len} data bytes; the type list reads {} attributes and {used} bytes: it does not fit",
                        header.natts(),
                        self.attrs.len()
                    ),
                });
            }
        }
        let mut note = None;
        if self.check_fit && header.natts() < self.attrs.len() {
            let f = Finding::TupleAttributesFewer;
            note = Some(RowProblem {
                finding: f,
                column: Some(header.natts()),
                message: format!(
                    "the tuple has {} attributes, the type list {}: the rest printed as NULL (a column added later with a default would show that default)",
                    header.natts(),
                    self.attrs.len()
                ),
            });
        }
        Ok((datums, header, note))
    }

    /// Column `i`'s value, `stored` as the tuple holds it, appended to `out` in its type's
    /// output (TOASTed values fetched and decompressed).
    fn value(
        &self,
        i: usize,
        stored: &[u8],
        fetch: &mut dyn FnMut(&ToastPointer) -> Result<Vec<u8>, ValueProblem>,
        out: &mut String,
    ) -> Result<(), RowProblem> {
        let e = self.endian;
        let problem = |p: ValueProblem| RowProblem {
            finding: p.finding,
            column: Some(i),
            message: p.message,
        };
        let Some(col) = self.columns.get(i) else {
            return Ok(());
        };
        let payload = match col.attribute.attlen {
            -1 => detoast(stored, e, fetch).map_err(problem)?,
            -2 => alloc::borrow::Cow::Borrowed(stored.strip_suffix(&[0]).unwrap_or(stored)),
            _ => alloc::borrow::Cow::Borrowed(stored),
        };
        output(&col.ty, &payload, e, out).map_err(|f| problem(ValueProblem::from(f)))
    }

    /// `row`, led by ctid, xmin, xmax and `state` when a state is given (all versions), and in
    /// JSON the members of an xmax that is a MultiXact; `damaged`: read from a page whose
    /// checksum fails (`checksum`) or that is older than the WAL shows (`stale`), flagged so
    /// in JSON.
    #[allow(clippy::too_many_arguments)] // one per part of the line: the tuple and its lead
    fn row_as(
        &self,
        tuple: &[u8],
        ctid: Ctid,
        state: Option<&str>,
        members: Option<&[MultiXactMember]>,
        damaged: Option<&str>,
        fetch: &mut dyn FnMut(&ToastPointer) -> Result<Vec<u8>, ValueProblem>,
        out: &mut String,
    ) -> Result<Option<RowProblem>, RowProblem> {
        let (datums, header, note) = self.deformed(tuple)?;
        // Written straight into `out`; a problem in any column takes the whole line back.
        let start = out.len();
        if let Err(p) = self.fields(&datums, &header, ctid, state, members, damaged, fetch, out) {
            out.truncate(start);
            return Err(p);
        }
        Ok(note)
    }

    /// The line of a deformed tuple, appended to `out`.
    #[allow(clippy::too_many_arguments)]
    fn fields(
        &self,
        datums: &[Option<&[u8]>],
        header: &TupleHeader,
        ctid: Ctid,
        state: Option<&str>,
        members: Option<&[MultiXactMember]>,
        damaged: Option<&str>,
        fetch: &mut dyn FnMut(&ToastPointer) -> Result<Vec<u8>, ValueProblem>,
        out: &mut String,
    ) -> Result<(), RowProblem> {
        let mut first = true;
        match (self.format, state) {
            (RowFormat::Json, _) => {
                let _ = write!(
                    out,
                    "{{\"ctid\":\"({},{})\",\"xmin\":\"{}\",\"xmax\":\"{}\"",
                    ctid.block, ctid.offset, header.t_xmin, header.t_xmax
                );
                if let Some(state) = state {
                    let _ = write!(out, ",\"state\":\"{state}\"");
                }
                if let Some(members) = members {
                    out.push_str(",\"xmax_members\":[");
                    for (i, m) in members.iter().enumerate() {
                        let comma = if i > 0 { "," } else { "" };
                        let _ = write!(
                            out,
                            "{comma}{{\"xid\":\"{}\",\"mode\":\"{}\"}}",
                            m.xid,
                            m.mode()
                        );
                    }
                    out.push(']');
                }
                if let Some(why) = damaged {
                    let _ = write!(out, ",\"damaged\":\"{why}\"");
                }
            }
            (RowFormat::Copy(f), Some(state)) => {
                let lead = [
                    format!("({},{})", ctid.block, ctid.offset),
                    format!("{}", header.t_xmin),
                    format!("{}", header.t_xmax),
                    String::from(state),
                ];
                for (i, t) in lead.iter().enumerate() {
                    if i > 0 {
                        out.push(copy::delimiter(f));
                    }
                    let at = out.len();
                    out.push_str(t);
                    copy::finish_field(f, out, at, false);
                }
                first = false;
            }
            (RowFormat::Copy(_), None) => {}
        }
        let single = state.is_none() && self.visible == 1;
        for (i, (col, d)) in self.columns.iter().zip(datums).enumerate() {
            if col.attribute.attisdropped {
                continue;
            }
            match self.format {
                RowFormat::Copy(f) if !first => out.push(copy::delimiter(f)),
                RowFormat::Copy(_) => {}
                RowFormat::Json => {
                    out.push(',');
                    json_string(&col.name, out);
                    out.push(':');
                }
            }
            first = false;
            let Some(stored) = d else {
                match self.format {
                    RowFormat::Copy(f) => out.push_str(copy::null(f)),
                    RowFormat::Json => out.push_str("null"),
                }
                continue;
            };
            let at = out.len();
            self.value(i, stored, fetch, out)?;
            match self.format {
                RowFormat::Copy(f) => copy::finish_field(f, out, at, single),
                RowFormat::Json => {
                    let text = out.split_off(at);
                    json_string(&text, out);
                }
            }
        }
        match self.format {
            RowFormat::Copy(_) => out.push('\n'),
            RowFormat::Json => out.push_str("}\n"),
        }
        Ok(())
    }
}

/// A JSON string literal (RFC 8259 escapes).
fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(infomask: u16, xmin: u32, xmax: u32) -> TupleHeader {
        TupleHeader {
            t_xmin: xmin,
            t_xmax: xmax,
            t_field3: 0,
            t_ctid_block: 0,
            t_ctid_offset: 1,
            t_infomask2: 1,
            t_infomask: infomask,
            t_hoff: 24,
        }
    }

    #[test]
    fn hint_bits_decide_what_they_can() {
        use Visibility::*;
        // No pg_xact: only what the hint bits and the special xids say is decided.
        let log = TransactionLog::new(8192, Endian::Little);
        let v = |m, xmin, xmax| visibility(&h(m, xmin, xmax), (0, 1), &log);
        assert_eq!(v(0x0900, 700, 0), Visible);
        assert_eq!(v(0x0200 | 0x0800, 700, 0), Invisible);
        assert_eq!(v(0x0300, 700, 800), Undecided);
        assert_eq!(v(0x0100 | 0x0400, 700, 800), Invisible);
        assert_eq!(v(0x0100 | 0x0080, 700, 800), Visible);
        assert_eq!(v(0x0100 | 0x0040, 700, 800), Visible);
        assert_eq!(v(0x0100 | 0x1000, 700, 800), Undecided);
        assert_eq!(v(0x0800, 700, 0), Undecided);
        assert_eq!(v(0x0800, 2, 0), Visible);
    }

    #[test]
    fn page_problem_judges_checksums_as_pg_control_says() {
        // A heap page PostgreSQL wrote, with the checksum pageinspect's page_checksum gave.
        let mut page = include_bytes!(concat!(
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
        let e = Endian::Little;
        page[8..10].copy_from_slice(&checksum.to_le_bytes());
        for known in [
            ChecksumsKnown::On,
            ChecksumsKnown::Off,
            ChecksumsKnown::Unknown,
        ] {
            assert_eq!(page_problem(&page, block, e, known), None, "{known:?}");
        }
        // The same page at another block: its checksum fails where checksums are on.
        let other = block.wrapping_add(1);
        let on = page_problem(&page, other, e, ChecksumsKnown::On).unwrap();
        assert!(
            on.starts_with("page verification failed, calculated checksum "),
            "{on}"
        );
        assert!(on.ends_with(&format!("but expected {checksum}")), "{on}");
        assert_eq!(page_problem(&page, other, e, ChecksumsKnown::Off), None);
        assert!(page_problem(&page, other, e, ChecksumsKnown::Unknown).is_some());
        // Stored 0: a cluster without checksums when nothing else says.
        page[8..10].copy_from_slice(&[0, 0]);
        assert_eq!(page_problem(&page, block, e, ChecksumsKnown::Unknown), None);
        assert!(page_problem(&page, block, e, ChecksumsKnown::On).is_some());
        // A broken header is refused whatever the checksums.
        page[12..14].copy_from_slice(&0xfff0u16.to_le_bytes());
        for known in [
            ChecksumsKnown::On,
            ChecksumsKnown::Off,
            ChecksumsKnown::Unknown,
        ] {
            assert!(page_problem(&page, block, e, known).is_some(), "{known:?}");
        }
    }
}
