//! The report's inputs read the way a caller without a file system can drive it, as
//! `CatalogReader` does: the reader is told every path (and length) the data directory
//! holds, asks for the byte ranges it needs next (PG_VERSION and pg_control, the catalogs,
//! each relation file in chunks, the pages it must look at again, a damaged table's maps,
//! indexes and columns), is given their bytes, and in the end builds the report. The CLI
//! answers with reads from disk, the browser with File slices.

use alloc::boxed::Box;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec::Vec;

use super::allindexed::IndexPrints;
use super::{
    build, is_stale, leaf_entries, stale_candidates, wanted_blocks, ClusterFacts, FileInput,
    IndexInput, Input, RelationInput, Report,
};
use crate::am::maps::walk::ForkMaps;
use crate::cluster::catalog::reader::{CatalogListing, CatalogReader, ListedRelation, ReadWith};
use crate::cluster::catalog::table::TableReader;
use crate::cluster::control::{decode_control, state_words, ControlFile, ControlValue};
use crate::file::datadir::parse_pg_version;
use crate::file::scan::{ChecksumsKnown, FileScan};
use crate::file::{file_geometry, parse_relation_file_name, GeometryChoice};
use crate::page::geometry::{BlockSize, Endian};
use crate::page::kind::Fork;
use crate::page::verify::PageStatus;
use crate::tuple::visibility::TransactionLog;

/// Pages asked for at once while a file is scanned.
const CHUNK_PAGES: u64 = 256;
/// What file_geometry looks at first.
const HEAD_BYTES: u64 = crate::file::DETECT_HEAD_BYTES as u64;

/// Bytes the reader wants: `len` bytes of `path` from `offset` (fewer at the file's end).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct Request {
    pub path: String,
    pub offset: u64,
    pub len: u64,
}

/// One relation's files and what the catalogs say of it.
struct Group {
    listed: Option<ListedRelation>,
    /// Directory and relfilenode (`base/5/16384`), for the maps' forks.
    base: String,
    /// (segno, path) in segment order.
    segments: Vec<(u32, String)>,
}

/// A file being scanned.
struct Scanning {
    path: String,
    scan: FileScan,
    next_block: u32,
    zero_blocks: Vec<u32>,
}

/// One B-tree index of a table to read: its name, `IndexInput::uniqueness`, key types and
/// (segno, path) of its segments.
#[derive(Clone)]
struct IndexPlan {
    /// (database oid, index oid).
    oid: (u32, u32),
    name: String,
    sql_name: String,
    uniqueness: u8,
    keys: Option<Vec<crate::cluster::rows::Column>>,
    segments: Vec<(u32, String)>,
}

/// What the reader is doing.
enum Step {
    /// PG_VERSION and pg_control.
    Control,
    Catalogs(Box<CatalogReader>),
    /// Group `g`: its maps (heap segment 0 only).
    Maps(usize),
    /// Group `g`, segment `s`: the head (geometry), then chunks.
    Head(usize, usize),
    Scan(usize, usize, Box<Scanning>),
    /// Group `g`, segment `s`: the pages the verdict wants.
    Pages(usize, usize),
    /// Group `g`: its B-tree indexes' files, index `i` segment `s` from block `b`.
    Indexes(usize, usize, usize, u32),
    /// Group `g`: the naming index again, segment `s` from block `b`, for the other entries
    /// of the keys a damaged page shows live.
    Twins(usize, usize, u32),
    /// Group `g`: the heap pages those entries point at.
    Sound(usize),
    /// Group `g`: the pages whose checksum is valid at another block, and those blocks'
    /// pages, for a copy byte for byte.
    Copies(usize),
    /// Group `g`: the table's columns.
    Columns(usize, Box<TableReader>),
    /// Group `g` (a table), before its pages: its B-tree index `i`'s entries, segment `s`
    /// from block `b`, for the rows the pages will show (`allindexed`).
    Prints(usize, usize, usize, u32),
    /// Group `g`, after its pages: index `i` read again for what it holds where rows were
    /// not found.
    Names(usize, usize, usize, u32),
    Done,
}

/// The reader (see the module's doc).
pub struct ReportReader {
    lengths: BTreeMap<String, u64>,
    /// Relation files the caller named (None: every relation file of the directory).
    only: Option<BTreeSet<String>>,
    /// How paths are shown in messages (the data directory's name and a `/`).
    shown: String,
    datadir: bool,
    step: Step,
    given: BTreeMap<Request, Result<Vec<u8>, String>>,
    with: Option<ReadWith>,
    /// pg_control when it can be trusted: the horizon of the heap checks.
    control: Option<ControlFile>,
    checksums: ChecksumsKnown,
    choice: GeometryChoice,
    listing: Option<CatalogListing>,
    log: Option<Arc<TransactionLog>>,
    groups: Vec<Group>,
    /// The relation being read.
    files: Vec<FileInput>,
    maps: Option<ForkMaps>,
    indexes: Vec<IndexInput>,
    /// The B-tree indexes of the table being read.
    index_plan: Vec<IndexPlan>,
    /// The naming index's place in `indexes` and the keys whose other entries are sought.
    twins: Option<(usize, BTreeSet<Vec<Option<String>>>)>,
    sound_pages: BTreeMap<u32, Vec<u8>>,
    /// The table's B-tree indexes whose entries its rows are held against, with their
    /// (segno, path) segments.
    prints: Vec<(IndexPrints, Vec<(u32, String)>)>,
    relations: Vec<RelationInput>,
    cluster: ClusterFacts,
    unknown: Vec<String>,
    /// Why the report cannot be made (a file given alone that is not a relation file).
    fatal: Option<String>,
    /// What the latest checkpoint must have written (`set_flushed`).
    flushed: Option<Arc<crate::wal::FlushedChanges>>,
    map_pages: Vec<super::MapPage>,
    /// The group's damaged blocks that are byte for byte another block's page (damaged
    /// block, the block it copies); None until read for the group.
    copies: Option<BTreeMap<u32, u32>>,
    missing_indexes: Vec<super::MissingIndex>,
    duplicate_keys: Vec<super::DuplicateKeys>,
}

/// Where a data directory's own WAL starts telling which pages its latest checkpoint wrote
/// (`FlushedChanges::new`): pg_control's REDO location. None where that cannot be relied on:
/// a pg_control whose CRC fails, or a backup_label beside it (a base backup not yet
/// recovered: its files were copied at other times than its pg_control, so they may
/// predate its checkpoint).
pub fn flushed_redo(control: &[u8], backup_label: bool) -> Option<u64> {
    if backup_label {
        return None;
    }
    let cf = decode_control(control).ok().filter(ControlFile::crc_ok)?;
    match cf.get("redo_lsn") {
        Some(ControlValue::Text(t)) => crate::page::lsn::parse_lsn(t),
        _ => None,
    }
}

impl ReportReader {
    /// What the data directory's WAL says the latest checkpoint wrote (its redo point the
    /// one of the directory's pg_control): pages older than that are reported `stale`.
    pub fn set_flushed(&mut self, flushed: Arc<crate::wal::FlushedChanges>) {
        self.flushed = Some(flushed);
    }

    /// `paths`: every file of a data directory, relative to it and `/`-separated, with its
    /// length (PG_VERSION and global/pg_control among them); or relation files given alone
    /// (no PG_VERSION among them). `only`: the relation files of the directory to report on
    /// (None: all). `shown`: how messages name the directory (its name and a `/`, or "").
    pub fn new(paths: Vec<(String, u64)>, only: Option<Vec<String>>, shown: &str) -> Self {
        let lengths: BTreeMap<String, u64> = paths.into_iter().collect();
        let datadir =
            lengths.contains_key("PG_VERSION") && lengths.contains_key("global/pg_control");
        let mut r = ReportReader {
            only: only.map(|o| o.into_iter().collect()),
            shown: String::from(shown),
            datadir,
            step: Step::Control,
            given: BTreeMap::new(),
            with: None,
            control: None,
            checksums: ChecksumsKnown::Unknown,
            choice: GeometryChoice::default(),
            listing: None,
            log: None,
            groups: Vec::new(),
            files: Vec::new(),
            maps: None,
            indexes: Vec::new(),
            index_plan: Vec::new(),
            twins: None,
            sound_pages: BTreeMap::new(),
            prints: Vec::new(),
            relations: Vec::new(),
            cluster: ClusterFacts {
                data_checksums: String::from("unknown"),
                ..ClusterFacts::default()
            },
            unknown: Vec::new(),
            fatal: None,
            flushed: None,
            map_pages: Vec::new(),
            copies: None,
            missing_indexes: Vec::new(),
            duplicate_keys: Vec::new(),
            lengths,
        };
        if !datadir {
            r.groups = r
                .lengths
                .keys()
                .map(|p| Group {
                    listed: None,
                    base: p.clone(),
                    // A loose segment's blocks are numbered from its place in the relation,
                    // as its name gives it (16385.2: the third gigabyte), as verify numbers them:
                    // the checksums are of those block numbers.
                    segments: alloc::vec![(
                        crate::file::parse_relation_file_name(
                            p.rsplit('/').next().unwrap_or(p.as_str())
                        )
                        .map_or(0, |n| n.segno),
                        p.clone()
                    )],
                })
                .collect();
            r.step = r.first_group_step(0);
        }
        r
    }

    fn len(&self, path: &str) -> u64 {
        self.lengths.get(path).copied().unwrap_or(0)
    }

    fn whole(&self, path: &str) -> Request {
        Request {
            path: String::from(path),
            offset: 0,
            len: self.len(path),
        }
    }

    /// Gives the bytes of a request `wanted` returned, or why it could not be read.
    pub fn give(&mut self, request: &Request, bytes: Result<Vec<u8>, String>) {
        self.given.insert(request.clone(), bytes);
    }

    fn take(&mut self, request: &Request) -> Option<Result<Vec<u8>, String>> {
        self.given.remove(request)
    }

    /// The next byte ranges to give; empty when `finish` can be called.
    pub fn wanted(&mut self) -> Vec<Request> {
        loop {
            let step = core::mem::replace(&mut self.step, Step::Done);
            match self.advance(step) {
                Ok(next) => self.step = next,
                Err((want, step)) => {
                    self.step = step;
                    return want;
                }
            }
            if matches!(self.step, Step::Done) {
                return Vec::new();
            }
        }
    }

    /// One step forward: the next step, or (what to read, the step that waits for it).
    fn advance(&mut self, step: Step) -> Result<Step, (Vec<Request>, Step)> {
        match step {
            Step::Control => {
                let want = [self.whole("PG_VERSION"), self.whole("global/pg_control")];
                let (Some(v), Some(c)) = (self.take(&want[0]), self.take(&want[1])) else {
                    return Err((want.to_vec(), Step::Control));
                };
                self.control_read(v, c);
                let Some(with) = self.with else {
                    return Ok(Step::Done);
                };
                let paths: Vec<String> = self.lengths.keys().cloned().collect();
                let mut reader = CatalogReader::new(paths, with, &self.shown);
                reader.read_index_keys();
                Ok(Step::Catalogs(Box::new(reader)))
            }
            Step::Catalogs(mut reader) => {
                let want = reader.wanted();
                if want.is_empty() {
                    self.catalogs_read(reader.finish());
                    return Ok(self.first_group_step(0));
                }
                let requests: Vec<Request> = want.iter().map(|p| self.whole(p)).collect();
                let mut all = true;
                for (p, rq) in want.iter().zip(&requests) {
                    match self.take(rq) {
                        Some(Ok(b)) => reader.give(p, Some(b)),
                        Some(Err(e)) => {
                            self.unknown.push(e);
                            reader.give(p, None);
                        }
                        None => all = false,
                    }
                }
                if all {
                    Ok(Step::Catalogs(reader))
                } else {
                    Err((requests, Step::Catalogs(reader)))
                }
            }
            Step::Maps(g) => {
                let base = self
                    .groups
                    .get(g)
                    .map(|x| x.base.clone())
                    .unwrap_or_default();
                let (vm, fsm) = (format!("{base}_vm"), format!("{base}_fsm"));
                let want: Vec<Request> = [&vm, &fsm]
                    .iter()
                    .filter(|p| self.lengths.contains_key(p.as_str()))
                    .map(|p| self.whole(p))
                    .collect();
                if want.iter().any(|w| !self.given.contains_key(w)) {
                    return Err((want, Step::Maps(g)));
                }
                let mut bytes = BTreeMap::new();
                for w in &want {
                    if let Some(Ok(b)) = self.take(w) {
                        bytes.insert(w.path.clone(), b);
                    }
                }
                // A map with a page the server zeroes judges nothing: read as zeros, it would
                // make every all-visible heap page it covers a finding of its own.
                for (path, fork) in [(&vm, "vm"), (&fsm, "fsm")] {
                    let failed = bytes
                        .get(path)
                        .is_some_and(|b| self.map_problems(g, path, fork, b) > 0);
                    if failed {
                        bytes.remove(path);
                    }
                }
                self.maps = Some(ForkMaps::new(
                    bytes.get(&vm).map(Vec::as_slice),
                    bytes.get(&fsm).map(Vec::as_slice),
                    self.choice.block_size.unwrap_or(BlockSize::DEFAULT),
                ));
                self.prints = self.plan_prints(g);
                // An index without its file: the server fails every query that opens it, and
                // the table's rows cannot be held against it.
                if self.datadir {
                    let table = self.group_name(g);
                    for plan in self
                        .plan_indexes(g)
                        .iter()
                        .filter(|p| p.segments.is_empty())
                    {
                        self.missing_indexes.push(super::MissingIndex {
                            line: format!(
                                "index {} of table {table} has no file in the data directory: the server fails every query that opens it (could not open file ...: No such file or directory); nothing is lost, REINDEX INDEX {} makes it again from the table",
                                plan.name, plan.sql_name
                            ),
                            index: plan.name.clone(),
                            sql_index: plan.sql_name.clone(),
                            table: table.clone(),
                        });
                    }
                }
                // Where the table's file ends: an index entry past it names a row whose
                // block is gone.
                let blocks = self.heap_blocks(g);
                for (p, _) in &mut self.prints {
                    p.set_heap_blocks(blocks);
                }
                Ok(Step::Prints(g, 0, 0, 0))
            }
            Step::Head(g, s) => {
                let Some((segno, path)) = self.segment(g, s) else {
                    return Ok(self.after_scan(g));
                };
                let len = self.len(&path);
                if len == 0 {
                    return Ok(Step::Head(g, s.saturating_add(1)));
                }
                let want = Request {
                    path: path.clone(),
                    offset: 0,
                    len: len.min(HEAD_BYTES),
                };
                let head = match self.take(&want) {
                    None => return Err((alloc::vec![want], Step::Head(g, s))),
                    Some(Err(e)) => {
                        self.unreadable(e);
                        return Ok(Step::Head(g, s.saturating_add(1)));
                    }
                    Some(Ok(h)) => h,
                };
                // A data directory's files are named as the server names them (relative to it).
                let shown = path.clone();
                let named = path
                    .rsplit('/')
                    .next()
                    .and_then(parse_relation_file_name)
                    .is_some();
                let geometry = match file_geometry(&head, self.choice, named) {
                    Ok(geometry) => geometry,
                    Err(why) => {
                        self.unreadable(format!("file \"{shown}\" is {why}"));
                        return Ok(Step::Head(g, s.saturating_add(1)));
                    }
                };
                let mut scan = match FileScan::new(geometry, segno, len) {
                    Ok(scan) => scan,
                    Err(e) => {
                        self.unreadable(format!("file \"{shown}\": {e}"));
                        return Ok(Step::Head(g, s.saturating_add(1)));
                    }
                };
                if segno == 0 {
                    if let Some(m) = self.maps.take() {
                        scan.set_maps(Arc::new(m));
                    }
                }
                // amcheck's page checks, with what the catalogs say of the relation: a page
                // whose checksum is valid can still be wrong.
                if let (Some(listing), Some(listed)) = (
                    self.listing.as_ref(),
                    self.groups.get(g).and_then(|x| x.listed.as_ref()),
                ) {
                    let (structure, _) = crate::cluster::structures::relation_structure(
                        listing,
                        listed,
                        self.control.as_ref(),
                        self.log.as_ref(),
                    );
                    scan.set_structure(Arc::new(structure));
                }
                Ok(Step::Scan(
                    g,
                    s,
                    Box::new(Scanning {
                        path: shown,
                        scan,
                        next_block: 0,
                        zero_blocks: Vec::new(),
                    }),
                ))
            }
            Step::Scan(g, s, mut sc) => {
                let Some((segno, path)) = self.segment(g, s) else {
                    return Ok(self.after_scan(g));
                };
                let blocks = sc.scan.extent().blocks;
                let bs = u64::from(sc.scan.geometry().block_size.bytes());
                if sc.next_block >= blocks {
                    let verdict = sc.scan.finish(self.checksums);
                    let sc = *sc;
                    self.files.push(FileInput {
                        path: sc.path,
                        verdict,
                        zero_blocks: sc.zero_blocks,
                        pages: BTreeMap::new(),
                    });
                    return Ok(Step::Pages(g, s));
                }
                let n = u64::from(blocks.saturating_sub(sc.next_block)).min(CHUNK_PAGES);
                let want = Request {
                    path,
                    offset: u64::from(sc.next_block).saturating_mul(bs),
                    len: n.saturating_mul(bs),
                };
                let chunk = match self.take(&want) {
                    None => return Err((alloc::vec![want], Step::Scan(g, s, sc))),
                    Some(Err(e)) => {
                        self.unreadable(e);
                        return Ok(Step::Head(g, s.saturating_add(1)));
                    }
                    Some(Ok(c)) => c,
                };
                let bs_usize = usize::try_from(bs).unwrap_or(usize::MAX);
                let whole = chunk
                    .len()
                    .checked_div(bs_usize)
                    .unwrap_or(0)
                    .saturating_mul(bs_usize);
                let first = sc.next_block;
                let mut i = first;
                let zero = &mut sc.zero_blocks;
                let mut sound = Vec::new();
                sc.scan
                    .chunk_statuses(chunk.get(..whole).unwrap_or_default(), first, |st| {
                        if st == PageStatus::Zero {
                            zero.push(i);
                        }
                        if st == PageStatus::Ok {
                            sound.push(i);
                        }
                        i = i.saturating_add(1);
                    });
                if !self.prints.is_empty() {
                    let geometry = sc.scan.geometry();
                    let empty;
                    let log = match self.log.as_deref() {
                        Some(l) => l,
                        None => {
                            empty = TransactionLog::new(bs_usize, geometry.endian);
                            &empty
                        }
                    };
                    for b in sound {
                        let at = usize::try_from(b.saturating_sub(first))
                            .unwrap_or(usize::MAX)
                            .saturating_mul(bs_usize);
                        let Some(page) = chunk.get(at..at.saturating_add(bs_usize)) else {
                            continue;
                        };
                        let absolute = geometry.block_size.absolute_block(segno, b);
                        for (p, _) in &mut self.prints {
                            p.check_heap_page(page, absolute, geometry.endian, log);
                        }
                    }
                }
                let got = u32::try_from(whole.checked_div(bs_usize).unwrap_or(0)).unwrap_or(0);
                // A short read (the file shrank): what was read is the file.
                sc.next_block = if got == 0 {
                    blocks
                } else {
                    first.saturating_add(got)
                };
                Ok(Step::Scan(g, s, sc))
            }
            Step::Pages(g, s) => {
                let Some((_, path)) = self.segment(g, s) else {
                    return Ok(self.after_scan(g));
                };
                let Some(file) = self.files.last() else {
                    return Ok(Step::Head(g, s.saturating_add(1)));
                };
                let bs = u64::from(file.verdict.geometry.block_size.bytes());
                let damaged: BTreeSet<u32> = wanted_blocks(&file.verdict, &file.zero_blocks)
                    .into_iter()
                    .collect();
                let mut blocks: Vec<u32> = damaged.iter().copied().collect();
                if let Some(f) = &self.flushed {
                    blocks.extend(stale_candidates(&file.verdict, &file.path, f));
                    blocks.sort_unstable();
                    blocks.dedup();
                }
                // An all-zero page's bytes are known: not read, not held (FileInput::pages).
                let zero: BTreeSet<u32> = file.zero_blocks.iter().copied().collect();
                blocks.retain(|b| !zero.contains(b));
                let want: Vec<(u32, Request)> = blocks
                    .iter()
                    .map(|b| {
                        (
                            *b,
                            Request {
                                path: path.clone(),
                                offset: u64::from(*b).saturating_mul(bs),
                                len: bs,
                            },
                        )
                    })
                    .collect();
                if want.iter().any(|(_, w)| !self.given.contains_key(w)) {
                    return Err((
                        want.into_iter().map(|(_, w)| w).collect(),
                        Step::Pages(g, s),
                    ));
                }
                let mut pages = BTreeMap::new();
                for (b, w) in &want {
                    if let Some(Ok(p)) = self.take(w) {
                        if p.len() as u64 == bs {
                            pages.insert(*b, p);
                        }
                    }
                }
                // A page read to be held against the WAL stays only when it is older than the
                // WAL says: the others are sound pages, which later steps read as such.
                let endian = self.endian();
                if let (Some(f), Some(file)) = (self.flushed.as_deref(), self.files.last()) {
                    pages.retain(|b, p| {
                        damaged.contains(b) || is_stale(&file.verdict, &file.path, *b, p, f, endian)
                    });
                }
                if let Some(f) = self.files.last_mut() {
                    f.pages = pages;
                }
                Ok(Step::Head(g, s.saturating_add(1)))
            }
            Step::Indexes(g, i, s, block) => self.read_indexes(g, i, s, block),
            Step::Prints(g, i, s, block) => self.read_prints(g, i, s, block, false),
            Step::Names(g, i, s, block) => self.read_prints(g, i, s, block, true),
            Step::Twins(g, s, block) => self.read_twins(g, s, block),
            Step::Sound(g) => self.read_sound(g),
            Step::Copies(g) => self.read_copies(g),
            Step::Columns(g, mut reader) => {
                let want = reader.wanted();
                if want.is_empty() {
                    let columns = match reader.finish() {
                        Ok(t) => Some(t.columns),
                        Err(r) => {
                            self.unknown.push(format!(
                                "the columns of {} could not be read ({}): bit flips are named without their values",
                                self.group_name(g),
                                r.reason
                            ));
                            None
                        }
                    };
                    return Ok(self.relation_done(g, columns));
                }
                let requests: Vec<Request> = want.iter().map(|p| self.whole(p)).collect();
                if requests.iter().any(|w| !self.given.contains_key(w)) {
                    return Err((requests, Step::Columns(g, reader)));
                }
                for (p, rq) in want.iter().zip(&requests) {
                    let bytes = self.take(rq).and_then(Result::ok);
                    reader.give(p, bytes);
                }
                Ok(Step::Columns(g, reader))
            }
            Step::Done => Ok(Step::Done),
        }
    }

    /// A file that cannot be read: said in the report, or for files given alone (which are
    /// all there is to report on), the reason the report cannot be made.
    fn unreadable(&mut self, why: String) {
        if self.datadir {
            self.unknown.push(why);
        } else if self.fatal.is_none() {
            self.fatal = Some(why);
        }
    }

    fn segment(&self, g: usize, s: usize) -> Option<(u32, String)> {
        self.groups.get(g)?.segments.get(s).cloned()
    }

    /// The pages of a table's map fork (`fork`: vm or fsm) that PageIsVerified fails: the
    /// server zeroes them as it reads them. A checksum counts only where the cluster has them.
    fn map_problems(&mut self, g: usize, path: &str, fork: &'static str, bytes: &[u8]) -> usize {
        let mut zeroed = 0usize;
        let size = self.choice.block_size.unwrap_or(BlockSize::DEFAULT).len();
        let endian = self.endian_of_choice();
        let relation = self
            .groups
            .get(g)
            .and_then(|x| x.listed.as_ref())
            .map(qualified);
        let major = self.cluster.pg_version;
        for (block, page) in bytes.chunks_exact(size).enumerate() {
            let Ok(block) = u32::try_from(block) else {
                break;
            };
            let v = crate::page::verify::verify_page(page, block, endian);
            let checksums = match self.checksums {
                ChecksumsKnown::On => true,
                ChecksumsKnown::Unknown => v.stored != 0,
                _ => false,
            };
            let status = match v.status {
                PageStatus::Mismatch if !checksums => {
                    if crate::page::verify::header_is_sane(page, endian) {
                        continue;
                    }
                    PageStatus::BadHeader
                }
                s if s.is_problem() => s,
                _ => continue,
            };
            zeroed = zeroed.saturating_add(1);
            self.map_pages.push(super::MapPage {
                relation: relation.clone(),
                file: String::from(path),
                fork,
                block,
                status,
                server: crate::damage::messages::server_zero_lines(
                    path, block, status, v.computed, v.stored, major,
                ),
                line: String::new(),
            });
        }
        zeroed
    }

    fn group_name(&self, g: usize) -> String {
        self.groups
            .get(g)
            .and_then(|x| x.listed.as_ref())
            .map_or_else(String::new, qualified)
    }

    fn is_heap(&self, g: usize) -> bool {
        self.groups
            .get(g)
            .and_then(|x| x.listed.as_ref())
            .is_some_and(|l| matches!(l.relation.relkind, 'r' | 'm' | 't'))
    }

    fn first_group_step(&mut self, g: usize) -> Step {
        self.files = Vec::new();
        self.copies = None;
        self.maps = None;
        self.indexes = Vec::new();
        self.twins = None;
        self.sound_pages = BTreeMap::new();
        self.prints = Vec::new();
        if g >= self.groups.len() {
            return Step::Done;
        }
        if self.is_heap(g) {
            Step::Maps(g)
        } else {
            Step::Head(g, 0)
        }
    }

    /// After a group's segments: its indexes read again where rows were not found in them,
    /// then its indexes and columns when it is a damaged table.
    fn after_scan(&mut self, g: usize) -> Step {
        if let Some(i) = self.prints.iter().position(|(p, _)| p.missed()) {
            return Step::Names(g, i, 0, 0);
        }
        self.after_names(g)
    }

    /// The pages a damaged page's stored checksum is valid for, in the same file, read and
    /// held against it: a page that is another block's byte for byte was written at the
    /// wrong place (a misdirected write), whatever its siblings or tuples say.
    fn read_copies(&mut self, g: usize) -> Result<Step, (Vec<Request>, Step)> {
        let endian = self.endian();
        let mut pairs: Vec<(u32, u32, Request)> = Vec::new();
        for f in &self.files {
            let bs = f.verdict.geometry.block_size;
            let size = u64::from(bs.bytes());
            let first = bs.absolute_block(f.verdict.segno, 0);
            let count =
                u32::try_from(self.len(&f.path).checked_div(size).unwrap_or(0)).unwrap_or(0);
            for (&b, page) in &f.pages {
                let absolute = bs.absolute_block(f.verdict.segno, b);
                let v = crate::page::verify::verify_page(page, absolute, endian);
                if v.status != PageStatus::Mismatch {
                    continue;
                }
                // The blocks of this file whose checksum the stored one is: a few at most.
                let sources: Vec<u32> =
                    crate::page::checksum::blocks_matching(v.fold, v.stored, first, count)
                        .filter(|&o| o != absolute)
                        .take(4)
                        .collect();
                for source in sources {
                    pairs.push((
                        absolute,
                        source,
                        Request {
                            path: f.path.clone(),
                            offset: u64::from(source.saturating_sub(first)).saturating_mul(size),
                            len: size,
                        },
                    ));
                }
            }
        }
        if pairs.iter().any(|(_, _, w)| !self.given.contains_key(w)) {
            return Err((
                pairs.into_iter().map(|(_, _, w)| w).collect(),
                Step::Copies(g),
            ));
        }
        let mut copies = BTreeMap::new();
        for (damaged, source, w) in &pairs {
            let Some(Ok(other)) = self.take(w) else {
                continue;
            };
            let same = self.files.iter().any(|f| {
                let bs = f.verdict.geometry.block_size;
                f.pages.iter().any(|(&b, page)| {
                    bs.absolute_block(f.verdict.segno, b) == *damaged && *page == other
                })
            });
            if same {
                copies.insert(*damaged, *source);
            }
        }
        self.copies = Some(copies);
        Ok(self.after_names(g))
    }

    fn after_names(&mut self, g: usize) -> Step {
        if self.copies.is_none() {
            return Step::Copies(g);
        }
        let damaged = self.files.iter().any(FileInput::has_wanted) || !self.past_end().is_empty();
        if !damaged || !self.is_heap(g) {
            return self.relation_done(g, None);
        }
        self.index_plan = self.plan_indexes(g);
        Step::Indexes(g, 0, 0, 0)
    }

    /// The table's blocks past its file's end that any of its indexes point into.
    fn past_end(&self) -> BTreeSet<u32> {
        self.prints
            .iter()
            .flat_map(|(p, _)| p.past_end().iter().copied())
            .collect()
    }

    /// The table's length in blocks, its segments' lengths added (None where a segment
    /// before the last is short: the blocks then are not numbered by the lengths alone).
    fn heap_blocks(&self, g: usize) -> Option<u32> {
        let size =
            u64::try_from(self.choice.block_size.unwrap_or(BlockSize::DEFAULT).len()).ok()?;
        let group = self.groups.get(g)?;
        let per = self
            .choice
            .block_size
            .unwrap_or(BlockSize::DEFAULT)
            .blocks_per_segment();
        let mut segments: Vec<&(u32, String)> = group.segments.iter().collect();
        segments.sort_by_key(|(n, _)| *n);
        let mut total: u64 = 0;
        for (i, (segno, path)) in segments.iter().enumerate() {
            if u64::from(*segno) != i as u64 {
                return None;
            }
            let blocks = self.len(path).checked_div(size).unwrap_or(0);
            if i.saturating_add(1) < segments.len() && blocks != u64::from(per) {
                return None;
            }
            total = total.saturating_add(blocks);
        }
        u32::try_from(total).ok()
    }

    /// The B-tree indexes of group `g`'s table whose keys its rows can be held against
    /// (`CatalogListing::heap_keys`), with their segments.
    fn plan_prints(&self, g: usize) -> Vec<(IndexPrints, Vec<(u32, String)>)> {
        let Some(listing) = self.listing.as_ref() else {
            return Vec::new();
        };
        let endian = self.endian_of_choice();
        self.plan_indexes(g)
            .into_iter()
            .filter(|plan| !plan.segments.is_empty())
            .filter_map(|plan| {
                let heap = listing.heap_keys.get(&plan.oid)?;
                let keys = plan.keys.clone()?;
                Some((
                    IndexPrints::new(
                        plan.name,
                        plan.sql_name,
                        plan.uniqueness > 0,
                        keys,
                        heap.columns.clone(),
                        heap.positions.clone(),
                        endian,
                    ),
                    plan.segments,
                ))
            })
            .collect()
    }

    /// pg_control's next xid (low 32 bits), when the cluster was shut down cleanly: every xid
    /// its tables hold precedes it.
    fn next_xid(&self) -> Option<u32> {
        let c = self.control.as_ref()?;
        if c.state != crate::cluster::control::DB_SHUTDOWNED {
            return None;
        }
        match c.get("next_xid") {
            Some(ControlValue::Text(t)) => t.split_once(':')?.1.parse().ok(),
            _ => None,
        }
    }

    /// The endianness pg_control gives, before any file of the group is read.
    fn endian_of_choice(&self) -> Endian {
        self.choice.endian.unwrap_or(Endian::Little)
    }

    /// Index `i` of `prints`, segment `s`, from block `block`: each page's entries
    /// fingerprinted (`names` false), or read for what they hold where rows were not
    /// found (`names` true).
    fn read_prints(
        &mut self,
        g: usize,
        i: usize,
        s: usize,
        block: u32,
        names: bool,
    ) -> Result<Step, (Vec<Request>, Step)> {
        let step = |i, s, b| {
            if names {
                Step::Names(g, i, s, b)
            } else {
                Step::Prints(g, i, s, b)
            }
        };
        let Some((_, segments)) = self.prints.get(i) else {
            return Ok(if names {
                self.after_names(g)
            } else {
                Step::Head(g, 0)
            });
        };
        let next_index = if names {
            self.prints
                .iter()
                .skip(i.saturating_add(1))
                .position(|(p, _)| p.missed())
                .map_or(self.prints.len(), |k| k.saturating_add(i).saturating_add(1))
        } else {
            i.saturating_add(1)
        };
        let Some((segno, path)) = segments.get(s).cloned() else {
            if !names {
                if let Some((p, _)) = self.prints.get_mut(i) {
                    p.index_read();
                }
            }
            return Ok(step(next_index, 0, 0));
        };
        let bs = self.choice.block_size.unwrap_or(BlockSize::DEFAULT);
        let endian = self.endian_of_choice();
        let size = u64::from(bs.bytes());
        let blocks = self.len(&path).checked_div(size).unwrap_or(0);
        if u64::from(block) >= blocks {
            return Ok(step(i, s.saturating_add(1), 0));
        }
        let n = blocks.saturating_sub(u64::from(block)).min(CHUNK_PAGES);
        let want = Request {
            path,
            offset: u64::from(block).saturating_mul(size),
            len: n.saturating_mul(size),
        };
        let chunk = match self.take(&want) {
            None => return Err((alloc::vec![want], step(i, s, block))),
            Some(Err(_)) => {
                // Said when the index itself is read; its entries are not all known.
                if let Some((p, _)) = self.prints.get_mut(i) {
                    p.damaged_pages = p.damaged_pages.saturating_add(n);
                }
                return Ok(step(i, s.saturating_add(1), 0));
            }
            Some(Ok(c)) => c,
        };
        let checksums = self.checksums.verified_on_read();
        let older = self.older_pages(&want.path, segno, block, &chunk, bs);
        let others: usize = self
            .prints
            .iter()
            .enumerate()
            .filter(|(k, _)| *k != i)
            .map(|(_, (p, _))| p.entries())
            .sum();
        let limit = super::allindexed::MAX_ENTRIES.saturating_sub(others);
        if let Some((p, _)) = self.prints.get_mut(i) {
            for (k, page) in chunk.chunks_exact(bs.len()).enumerate() {
                let absolute = bs.absolute_block(segno, block.saturating_add(k as u32));
                let older = older.contains(&absolute);
                if names {
                    // An older version of a leaf names what the index no longer holds.
                    if !older {
                        p.name_page(page, absolute, endian, checksums);
                    }
                } else {
                    p.add_index_page(page, absolute, endian, checksums, older, limit);
                }
            }
        }
        Ok(step(i, s, block.saturating_add(n as u32)))
    }

    /// The relation-wide blocks of an index's `chunk` (segment `segno` from `block`) that are
    /// older than the data directory's WAL says (`stale`): a leaf put back from an older
    /// copy, or whose last write was lost, names TIDs and keys the index no longer holds,
    /// and is no witness to what a heap page held.
    fn older_pages(
        &self,
        path: &str,
        segno: u32,
        block: u32,
        chunk: &[u8],
        bs: BlockSize,
    ) -> BTreeSet<u32> {
        let (Some(f), Some(l)) = (self.flushed.as_deref(), super::main_fork_locator(path)) else {
            return BTreeSet::new();
        };
        let endian = self.endian_of_choice();
        chunk
            .chunks_exact(bs.len())
            .enumerate()
            .filter_map(|(k, page)| {
                let absolute = bs.absolute_block(segno, block.saturating_add(k as u32));
                f.block(&l, absolute)
                    .and_then(|c| c.older_page(page, absolute, endian))
                    .map(|_| absolute)
            })
            .collect()
    }

    /// The B-tree indexes of group `g`'s table, with their segments.
    fn plan_indexes(&self, g: usize) -> Vec<IndexPlan> {
        let (Some(listing), Some(table)) = (
            self.listing.as_ref(),
            self.groups.get(g).and_then(|x| x.listed.as_ref()),
        ) else {
            return Vec::new();
        };
        let t = &table.relation;
        let mut out = Vec::new();
        for ix in listing.relations.iter().filter(|r| {
            r.index_of == Some(t.oid)
                && r.relation.database_oid == t.database_oid
                && r.relation.am.as_deref() == Some("btree")
        }) {
            let rel = &ix.relation;
            let Some(dir) = listing.directory(rel.tablespace_oid, rel.database_oid) else {
                continue;
            };
            let keys = listing
                .index_key_output
                .get(&(rel.database_oid, rel.oid))
                .cloned();
            let mut segments: Vec<(u32, String)> = self
                .lengths
                .keys()
                .filter_map(|p| {
                    let (d, n) = p.rsplit_once('/')?;
                    let f = parse_relation_file_name(n)?;
                    (d == dir && f.relfilenode == rel.relfilenode && f.fork == Fork::Main)
                        .then(|| (f.segno, p.clone()))
                })
                .collect();
            segments.sort();
            let uniqueness = match listing.unique_indexes.get(&(rel.database_oid, rel.oid)) {
                Some(true) => 2,
                Some(false) => 1,
                None => 0,
            };
            out.push(IndexPlan {
                oid: (rel.database_oid, rel.oid),
                name: qualified(ix),
                sql_name: sql_name(ix),
                uniqueness,
                keys,
                segments,
            });
        }
        out
    }

    /// Index `i` of the plan, segment `s`, from block `block`: its leaf entries for the
    /// blocks the table's files want.
    fn read_indexes(
        &mut self,
        g: usize,
        i: usize,
        s: usize,
        block: u32,
    ) -> Result<Step, (Vec<Request>, Step)> {
        let Some(IndexPlan {
            name,
            sql_name,
            uniqueness,
            keys,
            segments,
            ..
        }) = self.index_plan.get(i).cloned()
        else {
            return Ok(self.twins_step(g));
        };
        let bs = self
            .files
            .first()
            .map_or(BlockSize::DEFAULT, |f| f.verdict.geometry.block_size);
        let endian = self.endian();
        if self.indexes.len() <= i {
            self.indexes.push(IndexInput {
                name,
                sql_name,
                keys_known: keys.is_some(),
                key_types: keys.iter().flatten().map(|c| c.ty.clone()).collect(),
                uniqueness,
                unreadable_pages: 0,
                entries: Vec::new(),
                key_columns: keys.clone().unwrap_or_default(),
            });
        }
        let Some((segno, path)) = segments.get(s).cloned() else {
            return Ok(Step::Indexes(g, i.saturating_add(1), 0, 0));
        };
        let size = u64::from(bs.bytes());
        let blocks = self.len(&path).checked_div(size).unwrap_or(0);
        if u64::from(block) >= blocks {
            return Ok(Step::Indexes(g, i, s.saturating_add(1), 0));
        }
        let n = blocks.saturating_sub(u64::from(block)).min(CHUNK_PAGES);
        let want = Request {
            path,
            offset: u64::from(block).saturating_mul(size),
            len: n.saturating_mul(size),
        };
        let chunk = match self.take(&want) {
            None => return Err((alloc::vec![want], Step::Indexes(g, i, s, block))),
            Some(Err(e)) => {
                self.unknown.push(e);
                if let Some(ix) = self.indexes.get_mut(i) {
                    ix.unreadable_pages = ix.unreadable_pages.saturating_add(n);
                }
                return Ok(Step::Indexes(g, i, s.saturating_add(1), 0));
            }
            Some(Ok(c)) => c,
        };
        let mut wanted: BTreeSet<u32> = self
            .files
            .iter()
            .flat_map(|f| {
                f.wanted_pages().map(move |(b, _)| {
                    f.verdict
                        .geometry
                        .block_size
                        .absolute_block(f.verdict.segno, b)
                })
            })
            .collect();
        // Blocks past the file's end: their entries name the rows they held.
        wanted.extend(self.past_end());
        let checksums = self.checksums.verified_on_read();
        let older = self.older_pages(&want.path, segno, block, &chunk, bs);
        let mut unreadable = 0u64;
        let mut entries = Vec::new();
        for (k, page) in chunk.chunks_exact(bs.len()).enumerate() {
            let absolute = bs.absolute_block(segno, block.saturating_add(k as u32));
            if older.contains(&absolute) {
                unreadable = unreadable.saturating_add(1);
                continue;
            }
            let e = leaf_entries(page, absolute, endian, checksums, keys.as_deref());
            if e.is_empty()
                && crate::page::verify::verify_page(page, absolute, endian).status != PageStatus::Ok
                && crate::page::verify::verify_page(page, absolute, endian).status
                    != PageStatus::Zero
            {
                unreadable = unreadable.saturating_add(1);
            }
            entries.extend(e.into_iter().filter(|e| wanted.contains(&e.block)));
        }
        if let Some(ix) = self.indexes.get_mut(i) {
            ix.entries.extend(entries);
            ix.unreadable_pages = ix.unreadable_pages.saturating_add(unreadable);
        }
        Ok(Step::Indexes(g, i, s, block.saturating_add(n as u32)))
    }

    /// Relation-wide numbers of the blocks the table's files want (the damaged ones), and of
    /// those that fail their checksum with a sane header: pages whose live tuples may be stale.
    fn damaged_blocks(&self) -> (BTreeSet<u32>, BTreeSet<u32>) {
        let endian = self.endian();
        let mut all = BTreeSet::new();
        let mut sane = BTreeSet::new();
        for f in &self.files {
            let bs = f.verdict.geometry.block_size;
            for (b, page) in f.wanted_pages() {
                let absolute = bs.absolute_block(f.verdict.segno, b);
                all.insert(absolute);
                if crate::page::verify::verify_page(page, absolute, endian).status
                    == PageStatus::Mismatch
                    && crate::page::verify::header_is_sane(page, endian)
                {
                    sane.insert(absolute);
                }
            }
        }
        all.extend(self.past_end());
        (all, sane)
    }

    /// After the indexes: the naming index read again for the other entries of the keys a
    /// damaged page with a sane header shows (their TIDs were left out as not wanted).
    fn twins_step(&mut self, g: usize) -> Step {
        // Every damaged block: an entry into a zeroed page may name a row updated since.
        let (damaged, _) = self.damaged_blocks();
        let Some(i) = super::naming_index(&self.indexes)
            .and_then(|ix| self.indexes.iter().position(|x| core::ptr::eq(x, ix)))
        else {
            return self.columns_step(g);
        };
        let keys = self
            .indexes
            .get(i)
            .map(|ix| super::keys_into(ix, &damaged))
            .unwrap_or_default();
        if keys.is_empty() {
            return self.columns_step(g);
        }
        self.twins = Some((i, keys));
        Step::Twins(g, 0, 0)
    }

    fn read_twins(&mut self, g: usize, s: usize, block: u32) -> Result<Step, (Vec<Request>, Step)> {
        let Some((i, keys)) = self.twins.clone() else {
            return Ok(self.columns_step(g));
        };
        let Some(plan) = self.index_plan.get(i).cloned() else {
            return Ok(self.columns_step(g));
        };
        let Some((segno, path)) = plan.segments.get(s).cloned() else {
            return Ok(Step::Sound(g));
        };
        let bs = self
            .files
            .first()
            .map_or(BlockSize::DEFAULT, |f| f.verdict.geometry.block_size);
        let endian = self.endian();
        let size = u64::from(bs.bytes());
        let blocks = self.len(&path).checked_div(size).unwrap_or(0);
        if u64::from(block) >= blocks {
            return Ok(Step::Twins(g, s.saturating_add(1), 0));
        }
        let n = blocks.saturating_sub(u64::from(block)).min(CHUNK_PAGES);
        let want = Request {
            path,
            offset: u64::from(block).saturating_mul(size),
            len: n.saturating_mul(size),
        };
        let chunk = match self.take(&want) {
            None => return Err((alloc::vec![want], Step::Twins(g, s, block))),
            // Already said when the index was read first.
            Some(Err(_)) => return Ok(Step::Twins(g, s.saturating_add(1), 0)),
            Some(Ok(c)) => c,
        };
        let (wanted, _) = self.damaged_blocks();
        let checksums = self.checksums.verified_on_read();
        let older = self.older_pages(&want.path, segno, block, &chunk, bs);
        let mut found = Vec::new();
        for (k, page) in chunk.chunks_exact(bs.len()).enumerate() {
            let absolute = bs.absolute_block(segno, block.saturating_add(k as u32));
            if older.contains(&absolute) {
                continue;
            }
            found.extend(
                leaf_entries(page, absolute, endian, checksums, plan.keys.as_deref())
                    .into_iter()
                    .filter(|e| !wanted.contains(&e.block))
                    .filter(|e| e.keys.as_ref().is_some_and(|k| keys.contains(k))),
            );
        }
        if let Some(ix) = self.indexes.get_mut(i) {
            ix.entries.extend(found);
        }
        Ok(Step::Twins(g, s, block.saturating_add(n as u32)))
    }

    /// The heap pages the twins point at; those that verify are kept.
    fn read_sound(&mut self, g: usize) -> Result<Step, (Vec<Request>, Step)> {
        let Some((i, keys)) = self.twins.clone() else {
            return Ok(self.columns_step(g));
        };
        let (wanted, _) = self.damaged_blocks();
        let blocks = self
            .indexes
            .get(i)
            .map(|ix| super::twin_blocks(ix, &keys, &wanted))
            .unwrap_or_default();
        let bs = self
            .files
            .first()
            .map_or(BlockSize::DEFAULT, |f| f.verdict.geometry.block_size);
        let size = u64::from(bs.bytes());
        let per = bs.blocks_per_segment().max(1);
        let want: Vec<(u32, Request)> = blocks
            .iter()
            .filter_map(|&absolute| {
                let segno = absolute.checked_div(per)?;
                let within = absolute.checked_rem(per)?;
                let (_, path) = self
                    .groups
                    .get(g)?
                    .segments
                    .iter()
                    .find(|(n, _)| *n == segno)?
                    .clone();
                Some((
                    absolute,
                    Request {
                        path,
                        offset: u64::from(within).saturating_mul(size),
                        len: size,
                    },
                ))
            })
            .collect();
        if want.iter().any(|(_, w)| !self.given.contains_key(w)) {
            return Err((want.into_iter().map(|(_, w)| w).collect(), Step::Sound(g)));
        }
        let endian = self.endian();
        for (absolute, w) in &want {
            if let Some(Ok(page)) = self.take(w) {
                let sound = page.len() as u64 == size
                    && crate::cluster::rows::page_problem(&page, *absolute, endian, self.checksums)
                        .is_none()
                    && !page.iter().all(|&b| b == 0);
                if sound {
                    self.sound_pages.insert(*absolute, page);
                }
            }
        }
        Ok(self.columns_step(g))
    }

    fn endian(&self) -> Endian {
        self.files
            .first()
            .map_or(Endian::Little, |f| f.verdict.geometry.endian)
    }

    /// The table's columns, when a page of it fails its checksum (a bit flip's values).
    fn columns_step(&mut self, g: usize) -> Step {
        let mismatch = self.files.iter().any(|f| {
            f.verdict
                .pages
                .iter()
                .any(|r| r.status == PageStatus::Mismatch)
        });
        let (Some(with), Some(l)) = (
            self.with,
            self.groups.get(g).and_then(|x| x.listed.as_ref()),
        ) else {
            return self.relation_done(g, None);
        };
        if !mismatch {
            return self.relation_done(g, None);
        }
        let reader = TableReader::by_file(
            self.lengths.keys().cloned().collect(),
            &self.shown,
            with,
            self.checksums,
            l.relation.database_oid,
            l.relation.relfilenode,
        );
        Step::Columns(g, Box::new(reader))
    }

    fn relation_done(
        &mut self,
        g: usize,
        columns: Option<Vec<crate::cluster::rows::Column>>,
    ) -> Step {
        let listed = self.groups.get(g).and_then(|x| x.listed.clone());
        let endian = self.endian();
        // The rows not found in an index, but on pages the report judges already (an older
        // write's rows lack the entries of rows changed since).
        let judged: BTreeSet<u32> = self
            .files
            .iter()
            .flat_map(|f| {
                let bs = f.verdict.geometry.block_size;
                let segno = f.verdict.segno;
                f.pages.keys().map(move |&b| bs.absolute_block(segno, b))
            })
            .collect();
        let mut key_mismatches: BTreeMap<u32, Vec<super::allindexed::KeyMismatch>> =
            BTreeMap::new();
        let (mut rows_held, mut indexes_held) = (0u64, 0u64);
        let mut whole_indexes = Vec::new();
        for (p, _) in &self.prints {
            if p.too_many {
                self.unknown.push(format!(
                    "the rows of {} were not held against its index {}: its indexes hold more than {} entries, more than pgpage keeps in memory",
                    self.group_name(g),
                    p.name,
                    super::allindexed::MAX_ENTRIES
                ));
                continue;
            }
            indexes_held = indexes_held.saturating_add(1);
            rows_held = rows_held.max(p.checked);
            if p.damaged_pages == 0 {
                whole_indexes.push(p.name.clone());
            }
            if p.keyed_partly {
                self.unknown.push(format!(
                    "the rows of {} were held against each other for keys its unique index {} allows once only as far as {} rows: more than pgpage keeps in memory",
                    self.group_name(g),
                    p.name,
                    p.checked
                ));
            }
            let (tids, more) = p.duplicates();
            if !tids.is_empty() {
                let table = self.group_name(g);
                let sql_table = listed.as_ref().map_or_else(|| table.clone(), sql_name);
                self.duplicate_keys.push(super::duplicate_keys(
                    &p.name,
                    &p.sql_name,
                    table,
                    sql_table,
                    &tids,
                    more,
                ));
            }
            for (block, m) in p.mismatches() {
                if !judged.contains(&block) {
                    key_mismatches.entry(block).or_default().extend(m);
                }
            }
        }
        let missing_blocks: Vec<u32> = self.past_end().into_iter().collect();
        self.relations.push(RelationInput {
            missing_blocks,
            copies: self.copies.take().unwrap_or_default(),
            database: listed.as_ref().and_then(|l| l.database.clone()),
            relation: listed.as_ref().map(qualified),
            relname: listed.as_ref().map(|l| l.relation.name.clone()),
            sql_name: listed.as_ref().map(sql_name),
            relkind: listed.as_ref().map(|l| l.relation.relkind),
            endian,
            files: core::mem::take(&mut self.files),
            columns,
            log: self.log.clone(),
            indexes: core::mem::take(&mut self.indexes),
            sound_pages: core::mem::take(&mut self.sound_pages),
            key_mismatches,
            next_xid: self.next_xid(),
            rows_held,
            indexes_held,
            whole_indexes,
            relfrozenxid: listed
                .as_ref()
                .map(|l| l.relation.relfrozenxid)
                .filter(|&x| x != 0),
        });
        self.first_group_step(g.saturating_add(1))
    }

    fn control_read(&mut self, version: Result<Vec<u8>, String>, control: Result<Vec<u8>, String>) {
        let version = match version {
            Ok(v) => v,
            Err(e) => {
                self.fatal = Some(e);
                return;
            }
        };
        let Some(major) = parse_pg_version(&version) else {
            self.fatal = Some(format!(
                "\"{}PG_VERSION\" names no PostgreSQL version",
                self.shown
            ));
            return;
        };
        if !(crate::cluster::catalog::layout::OLDEST..=crate::cluster::catalog::layout::NEWEST)
            .contains(&major)
        {
            self.fatal = Some(format!(
                "PostgreSQL {major} data directory \"{}\": pgpage reads the catalogs of PostgreSQL 13 to 19",
                self.shown.trim_end_matches('/')
            ));
            return;
        }
        self.cluster.pg_version = Some(major);
        let shown = format!("{}global/pg_control", self.shown);
        let control = match control.map(|c| decode_control(&c)) {
            Ok(Ok(c)) if c.crc_ok() && c.block_size().and_then(BlockSize::new).is_some() => Some(c),
            Ok(Ok(_)) => {
                self.unknown.push(format!(
                    "control file \"{shown}\" is damaged (its CRC or block size): cluster facts unknown, block size and checksums decided from each file's pages"
                ));
                None
            }
            Ok(Err(e)) => {
                self.unknown.push(format!("\"{shown}\": {e}"));
                None
            }
            Err(e) => {
                self.unknown.push(e);
                None
            }
        };
        if let Some(c) = &control {
            self.cluster.system_identifier = match c.get("system_identifier") {
                Some(ControlValue::Int(v)) => Some((*v as u64).to_string()),
                _ => None,
            };
            self.cluster.state = Some(String::from(state_words(c.state)));
            // pg_checksums refuses a running cluster; a report on one is read as the bytes
            // fall, and says so first.
            if self.lengths.contains_key("postmaster.pid") && !matches!(c.state, 1 | 2) {
                self.cluster.running = true;
                self.unknown.push(format!(
                    "the server looks running (postmaster.pid is there and pg_control says \"{}\"): its pages change while they are read and its newest changes may be only in its memory, so a page here can look torn, stale or sound when it is not; stop the server cleanly (or report on a copy pg_basebackup made) and run the report again",
                    state_words(c.state)
                ));
            }
            self.cluster.checkpoint_lsn = match c.get("checkpoint_lsn") {
                Some(ControlValue::Text(t)) => Some(t.clone()),
                _ => None,
            };
            self.cluster.redo_lsn = match c.get("redo_lsn") {
                Some(ControlValue::Text(t)) => Some(t.clone()),
                _ => None,
            };
            // Not shut down, and no server running on it: the next start replays the WAL
            // from the redo point before it reads a page.
            self.cluster.crashed = !matches!(c.state, 1 | 2) && !self.cluster.running;
            self.cluster.history_end = crate::damage::recover::shutdown_checkpoint(c);
            self.cluster.block_size = c.block_size();
            self.checksums = ChecksumsKnown::of_version(c.data_page_checksum_version());
            self.choice = GeometryChoice {
                block_size: c.block_size().and_then(BlockSize::new),
                endian: Some(c.endian),
            };
        }
        self.cluster.data_checksums = String::from(self.checksums.as_str());
        self.with = Some(ReadWith::from_control(major, control.as_ref()));
        self.control = control;
    }

    fn catalogs_read(&mut self, mut listing: CatalogListing) {
        self.unknown.append(&mut listing.damage);
        self.log = listing.log.take().map(Arc::new);
        let files: Vec<String> = self
            .lengths
            .keys()
            .filter(|p| {
                let Some((dir, name)) = p.rsplit_once('/') else {
                    return false;
                };
                (dir == "global" || dir.starts_with("base/") || dir.starts_with("pg_tblspc/"))
                    && parse_relation_file_name(name).is_some_and(|f| f.fork == Fork::Main)
                    && self.only.as_ref().is_none_or(|o| o.contains(p.as_str()))
            })
            .cloned()
            .collect();
        let claims = listing.claims(files.iter().map(String::as_str));
        let mut groups: BTreeMap<(Option<usize>, String), Group> = BTreeMap::new();
        for (p, claim) in files.iter().zip(claims) {
            let Some((dir, name)) = p.rsplit_once('/') else {
                continue;
            };
            let Some(f) = parse_relation_file_name(name) else {
                continue;
            };
            let base = format!("{dir}/{}", f.relfilenode);
            let g = groups
                .entry((claim, base.clone()))
                .or_insert_with(|| Group {
                    listed: claim.and_then(|i| listing.relations.get(i).cloned()),
                    base,
                    segments: Vec::new(),
                });
            g.segments.push((f.segno, p.clone()));
        }
        self.groups = groups
            .into_values()
            .map(|mut g| {
                g.segments.sort();
                g
            })
            .collect();
        self.listing = Some(listing);
    }

    /// The report, or why none can be made.
    pub fn finish(self) -> Result<Report, String> {
        if let Some(f) = self.fatal {
            return Err(f);
        }
        let data_directory = self.datadir.then(|| {
            let name = self.shown.trim_end_matches('/');
            String::from(if name.is_empty() { "." } else { name })
        });
        Ok(build(&Input {
            data_directory,
            cluster: self.cluster,
            relations: self.relations,
            unknown: self.unknown,
            flushed: self.flushed,
            map_pages: self.map_pages,
            missing_indexes: self.missing_indexes,
            duplicate_keys: self.duplicate_keys,
        }))
    }
}

/// `schema.name` as SQL needs it written (quote_ident each part).
fn sql_name(l: &ListedRelation) -> String {
    let name = crate::cluster::catalog::table::quote_ident(&l.relation.name);
    match &l.relation.schema {
        Some(s) => format!("{}.{name}", crate::cluster::catalog::table::quote_ident(s)),
        None => name,
    }
}

fn qualified(l: &ListedRelation) -> String {
    match &l.relation.schema {
        Some(s) => format!("{s}.{}", l.relation.name),
        None => l.relation.name.clone(),
    }
}
