//! `pgpage verify`: finds relation files the way pg_checksums walks a data directory, reads
//! them read-only in large chunks on every core, and prints pg_checksums' lines and summary or
//! the contract's JSON, in input order. Page status and file names are the core's business
//! (pgpage::file); this module only does I/O, threads and printing.

use std::collections::{BTreeMap, HashSet};
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::ops::Range;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

use pgpage::file::{
    detect_block_size, is_temporary_entry, parse_relation_file_name, FileExtent, FileVerifier,
    Fork, PageResult, StatusCounts, DETECT_HEAD_BYTES,
};
use pgpage::{BlockSize, Endian, PageStatus};

use crate::input::open_regular;

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum EndianArg {
    Little,
    Big,
}

#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// Print JSON (CONTRACTS.md `verify --json`).
    #[arg(long)]
    pub json: bool,
    /// List every page, not only the problem pages.
    #[arg(long)]
    pub all: bool,
    /// Segment number for every file, instead of the one in its name's `.N` suffix.
    #[arg(long)]
    pub segment: Option<u32>,
    /// Block size (1024 to 32768) instead of the one detected from pd_pagesize_version.
    #[arg(long, value_parser = parse_block_size)]
    pub block_size: Option<BlockSize>,
    /// Byte order of the server that wrote the files.
    #[arg(long, value_enum, default_value = "little")]
    pub endian: EndianArg,
    /// Relation files (16385, 16385.2, 16385_fsm, ...) or directories (a data directory is
    /// walked like pg_checksums: global/, base/, pg_tblspc/).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
}

fn parse_block_size(s: &str) -> Result<BlockSize, String> {
    s.parse::<u32>()
        .ok()
        .and_then(BlockSize::new)
        .ok_or_else(|| {
            format!("{s} is not a PostgreSQL block size (1024, 2048, 4096, 8192, 16384, 32768)")
        })
}

/// Bytes read at once. A multiple of every block size, so chunks always hold whole pages;
/// large enough that syscalls and hand-overs between threads cost nothing. On the pgbench
/// scale 70 cluster, 4 MiB ran in a median 111 ms against 115 ms for 1 MiB (12 alternating
/// runs each, idle machine); 256 KiB was slower still.
const CHUNK_BYTES: usize = 1 << 22;
/// The alignment of the read buffer: a memory page.
const PAGE_ALIGN: usize = 4096;
// The first chunk of a file holds all that block size detection looks at, and chunks end on
// page boundaries whatever the block size.
const _: () = assert!(CHUNK_BYTES >= DETECT_HEAD_BYTES && CHUNK_BYTES.is_multiple_of(32768));

/// One relation file to verify.
struct FileJob {
    /// The path as printed: as given, or the directory as given joined with `/name` (exactly
    /// as pg_checksums builds it, so its lines and ours compare equal).
    display: String,
    path: PathBuf,
    len: u64,
    segno: u32,
    fork: Fork,
    /// Named on the command line rather than found in a directory.
    explicit: bool,
}

/// What a PATH argument expanded to, in output order.
enum Item {
    File(FileJob),
    /// A path or directory that cannot be verified, with the reason.
    Failed(String),
    /// Something the user should know that does not stop verification.
    Warning(String),
}

/// What the walk found so far, and the directories it has been in.
#[derive(Default)]
struct Found {
    items: Vec<Item>,
    visited: HashSet<(u64, u64)>,
}

/// A range of one file's bytes that one thread reads and verifies.
struct Unit {
    item: usize,
    offset: u64,
    len: usize,
    first: bool,
    last: bool,
}

/// A file's geometry, settled once by whichever thread reaches it first.
#[derive(Clone, Copy)]
struct Prepared {
    verifier: FileVerifier,
    extent: FileExtent,
}

#[derive(Default)]
struct UnitResult {
    prep: Option<Result<Prepared, String>>,
    counts: StatusCounts,
    pages: Vec<PageResult>,
    error: Option<String>,
}

struct Shared<'a> {
    items: &'a [Item],
    units: &'a [Unit],
    batches: &'a [Range<usize>],
    preps: Vec<OnceLock<Result<Prepared, String>>>,
    next: AtomicUsize,
    block_size: Option<BlockSize>,
    endian: Endian,
    keep_all: bool,
}

/// Runs the command; returns the exit status.
pub fn run(args: &VerifyArgs) -> i32 {
    let mut found = Found::default();
    for path in &args.paths {
        expand(args, path, &mut found);
    }
    let items = found.items;
    let units = split_into_units(&items);
    let batches = batch_units(&units);
    let endian = match args.endian {
        EndianArg::Little => Endian::Little,
        EndianArg::Big => Endian::Big,
    };
    let shared = Shared {
        items: &items,
        units: &units,
        batches: &batches,
        preps: items.iter().map(|_| OnceLock::new()).collect(),
        next: AtomicUsize::new(0),
        block_size: args.block_size,
        endian,
        keep_all: args.all,
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, batches.len().max(1));
    let stdout = io::stdout();
    let stderr = io::stderr();
    let mut report = Report::new(args, stdout.lock(), stderr.lock());
    let handover = Handover::new(threads);
    let written = std::thread::scope(|scope| {
        for _ in 0..threads {
            let (shared, handover) = (&shared, &handover);
            scope.spawn(move || {
                let _running = Running(handover);
                worker(shared, handover);
            });
        }
        let written = report.consume(&handover, &shared);
        // Printing failed: the threads stop at their next batch.
        if written.is_err() {
            handover.stop();
        }
        written
    });
    // Output closed (a pipe to `head`) or full: nothing more can be said.
    written.and_then(|()| report.finish()).unwrap_or(2)
}

/// Expands one PATH argument into files to verify, or into the reason it cannot be.
fn expand(args: &VerifyArgs, path: &Path, found: &mut Found) {
    let display = path.to_string_lossy().into_owned();
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) => {
            found.items.push(Item::Failed(format!(
                "could not open \"{display}\": {}",
                reason(&e)
            )));
            return;
        }
    };
    if meta.is_file() {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(parse_relation_file_name);
        found.items.push(Item::File(FileJob {
            display,
            path: path.to_path_buf(),
            len: meta.len(),
            segno: args.segment.or(name.map(|n| n.segno)).unwrap_or(0),
            fork: name.map_or(Fork::Main, |n| n.fork),
            explicit: true,
        }));
        return;
    }
    if !meta.is_dir() {
        found.items.push(Item::Failed(format!(
            "\"{display}\" is neither a file nor a directory"
        )));
        return;
    }
    let files_before = count_files(&found.items);
    if path.join("base").is_dir() || path.join("global").is_dir() {
        scan_data_dir(args, &display, path, found);
    } else {
        scan_dir(args, &display, path, None, found);
    }
    if count_files(&found.items) == files_before {
        found.items.push(Item::Failed(format!(
            "nothing to verify in \"{display}\": no relation files found"
        )));
    }
}

/// pg_checksums' scan order: global, base, pg_tblspc.
fn scan_data_dir(args: &VerifyArgs, display: &str, path: &Path, found: &mut Found) {
    // A tablespace holds one directory per major version: PG_<major>_<catversion>.
    let major = fs::read_to_string(path.join("PG_VERSION"))
        .ok()
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
        .unwrap_or_else(|| "15".to_owned());
    // pg_checksums refuses a running cluster; we read it, but pages the server writes while
    // we read them can come out torn.
    if path.join("postmaster.pid").exists() {
        found.items.push(Item::Warning(format!(
            "\"{display}/postmaster.pid\" exists: if the server is running, pages it writes \
             while they are read can show as damaged"
        )));
    }
    for sub in ["global", "base", "pg_tblspc"] {
        let dir = path.join(sub);
        if dir.is_dir() {
            let tablespaces = (sub == "pg_tblspc").then_some(major.as_str());
            scan_dir(args, &format!("{display}/{sub}"), &dir, tablespaces, found);
        }
    }
}

fn count_files(items: &[Item]) -> usize {
    items.iter().filter(|i| matches!(i, Item::File(_))).count()
}

/// Walks a directory as pg_checksums' scan_directory does: temporary entries skipped,
/// regular files verified when their names are relation file names (which leaves out
/// pg_control, pg_filenode.map, pg_internal.init*, PG_VERSION and config_exec_params),
/// directories and links to directories entered. In pg_tblspc (`tablespaces` = the major
/// version), each link is entered through its `PG_<major>_<catversion>` directory.
fn scan_dir(
    args: &VerifyArgs,
    display: &str,
    dir: &Path,
    tablespaces: Option<&str>,
    found: &mut Found,
) {
    // A link back up the tree would otherwise be walked forever.
    if let Ok(meta) = fs::metadata(dir) {
        if !found.visited.insert((meta.dev(), meta.ino())) {
            return;
        }
    }
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            found.items.push(Item::Failed(format!(
                "could not open directory \"{display}\": {}",
                reason(&e)
            )));
            return;
        }
    };
    // Sorted by relation file name (numerically), then by name: a stable, readable order.
    type Entry = (Option<(u32, Fork, u32)>, String, fs::DirEntry);
    let mut names: Vec<Entry> = Vec::new();
    for entry in entries {
        match entry {
            Ok(entry) => {
                // A name that is not UTF-8 is not a relation file nor a PostgreSQL directory.
                if let Ok(name) = entry.file_name().into_string() {
                    if !is_temporary_entry(&name) {
                        let key = parse_relation_file_name(&name)
                            .map(|r| (r.relfilenode, r.fork, r.segno));
                        names.push((key, name, entry));
                    }
                }
            }
            Err(e) => found.items.push(Item::Failed(format!(
                "could not read directory \"{display}\": {}",
                reason(&e)
            ))),
        }
    }
    names.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    for (key, name, entry) in names {
        let shown = format!("{display}/{name}");
        let path = entry.path();
        let kind = match entry.file_type() {
            Ok(k) => k,
            Err(e) => {
                found.items.push(Item::Failed(format!(
                    "could not stat file \"{shown}\": {}",
                    reason(&e)
                )));
                continue;
            }
        };
        if kind.is_file() {
            let (Some(_), Some(name)) = (key, parse_relation_file_name(&name)) else {
                continue;
            };
            match entry.metadata() {
                Ok(meta) => found.items.push(Item::File(FileJob {
                    display: shown,
                    path,
                    len: meta.len(),
                    segno: args.segment.unwrap_or(name.segno),
                    fork: name.fork,
                    explicit: false,
                })),
                Err(e) => found.items.push(Item::Failed(format!(
                    "could not stat file \"{shown}\": {}",
                    reason(&e)
                ))),
            }
        } else if kind.is_dir() || (kind.is_symlink() && path.is_dir()) {
            match tablespaces {
                Some(major) => scan_tablespace(args, &shown, &path, major, found),
                // A data directory inside a directory (a backup's, say) is scanned as one.
                None if path.join("PG_VERSION").is_file() && path.join("base").is_dir() => {
                    scan_data_dir(args, &shown, &path, found);
                }
                None => scan_dir(args, &shown, &path, None, found),
            }
        }
    }
}

/// Enters one tablespace link of pg_tblspc through its `PG_<major>_<catversion>` directory.
fn scan_tablespace(args: &VerifyArgs, display: &str, link: &Path, major: &str, found: &mut Found) {
    let prefix = format!("PG_{major}_");
    let version_dir = fs::read_dir(link).ok().and_then(|entries| {
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.starts_with(&prefix))
            .collect();
        names.sort();
        names.pop()
    });
    match version_dir {
        Some(v) => scan_dir(args, &format!("{display}/{v}"), &link.join(&v), None, found),
        None => found.items.push(Item::Failed(format!(
            "could not find \"{display}/{prefix}*\": not a tablespace directory"
        ))),
    }
}

/// Cuts files into CHUNK_BYTES ranges; every item gets at least one unit so that it is
/// reported in order.
fn split_into_units(items: &[Item]) -> Vec<Unit> {
    let mut units = Vec::new();
    let chunk = CHUNK_BYTES as u64;
    for (item, it) in items.iter().enumerate() {
        let len = match it {
            Item::File(job) => job.len,
            Item::Failed(_) | Item::Warning(_) => 0,
        };
        let mut offset = 0u64;
        loop {
            let this = len.saturating_sub(offset).min(chunk);
            let next = offset.saturating_add(this);
            units.push(Unit {
                item,
                offset,
                len: usize::try_from(this).unwrap_or(CHUNK_BYTES),
                first: offset == 0,
                last: next >= len,
            });
            if next >= len {
                break;
            }
            offset = next;
        }
    }
    units
}

/// Groups consecutive units into batches of about CHUNK_BYTES, so that a data directory's
/// many small files cost one hand-over between threads per batch, not one per file.
fn batch_units(units: &[Unit]) -> Vec<Range<usize>> {
    let mut batches = Vec::new();
    let (mut start, mut bytes) = (0usize, 0usize);
    for (i, unit) in units.iter().enumerate() {
        bytes = bytes.saturating_add(unit.len);
        let end = i.saturating_add(1);
        if bytes >= CHUNK_BYTES || end.saturating_sub(start) >= 256 || end == units.len() {
            batches.push(start..end);
            (start, bytes) = (end, 0);
        }
    }
    batches
}

/// How often the printer looks for finished batches. The threads do not wake it for each
/// one: on the pgbench scale 70 cluster (1,100 1 MiB batches) a wake-up per batch made
/// 600-1,100 context switches per run and cost 15 µs a batch on two cores.
const PRINT_EVERY: Duration = Duration::from_millis(10);
/// Batches a thread may finish ahead of the printer before it waits: memory stays bounded
/// when output is slow (a pipe, `--all` on a big cluster).
const MAX_AHEAD: usize = 64;

/// Finished batches on their way from the threads to the printer, which prints them in
/// order.
struct Handover {
    state: Mutex<HandoverState>,
    /// A thread ended, the printer made room, or printing stopped.
    changed: Condvar,
}

struct HandoverState {
    done: BTreeMap<usize, Vec<UnitResult>>,
    /// The batch the printer prints next.
    next: usize,
    running: usize,
    stopped: bool,
}

impl Handover {
    fn new(threads: usize) -> Handover {
        Handover {
            state: Mutex::new(HandoverState {
                done: BTreeMap::new(),
                next: 0,
                running: threads,
                stopped: false,
            }),
            changed: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, HandoverState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Hands a finished batch over; false when printing has stopped.
    fn put(&self, index: usize, results: Vec<UnitResult>) -> bool {
        let mut s = self.lock();
        while !s.stopped && index >= s.next.saturating_add(MAX_AHEAD) {
            // Too far ahead: the printer is woken to make room rather than left to look.
            self.changed.notify_all();
            s = self.changed.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
        if s.stopped {
            return false;
        }
        s.done.insert(index, results);
        true
    }

    /// The finished batches that come next in order, waiting until there are some; empty
    /// when every thread has ended and everything was taken.
    fn take(&self) -> Vec<(usize, Vec<UnitResult>)> {
        let mut s = self.lock();
        loop {
            let mut ready = Vec::new();
            let st = &mut *s;
            while let Some(results) = st.done.remove(&st.next) {
                ready.push((st.next, results));
                st.next = st.next.saturating_add(1);
            }
            if !ready.is_empty() {
                self.changed.notify_all();
                return ready;
            }
            if s.running == 0 {
                return ready;
            }
            s = self
                .changed
                .wait_timeout(s, PRINT_EVERY)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    fn stop(&self) {
        self.lock().stopped = true;
        self.changed.notify_all();
    }
}

/// Counts a thread as running until it ends, also by a panic, so the printer never waits
/// for a thread that is gone.
struct Running<'a>(&'a Handover);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        let mut s = self.0.lock();
        s.running = s.running.saturating_sub(1);
        drop(s);
        self.0.changed.notify_all();
    }
}

fn worker(shared: &Shared, handover: &Handover) {
    // The kernel copies page cache pages into this buffer; on this AMD EPYC that copy runs at
    // a quarter of its speed when the destination is not page aligned (bench/read_floor.c
    // with a buffer 16 bytes into a page: 0.28 s against 0.08 s for pgbench scale 70), and
    // malloc's large blocks start 16 bytes into a page. So the buffer starts on a page.
    let mut backing = vec![0u8; CHUNK_BYTES.saturating_add(PAGE_ALIGN)];
    let skip = backing.as_ptr().align_offset(PAGE_ALIGN).min(PAGE_ALIGN);
    let buf = backing
        .get_mut(skip..)
        .and_then(|b| b.get_mut(..CHUNK_BYTES))
        .unwrap_or_default();
    let mut open: Option<(usize, io::Result<File>)> = None;
    loop {
        let index = shared.next.fetch_add(1, Ordering::Relaxed);
        let Some(batch) = shared.batches.get(index) else {
            return;
        };
        let units = shared.units.get(batch.clone()).unwrap_or_default();
        let results = units
            .iter()
            .map(|unit| match shared.items.get(unit.item) {
                Some(Item::File(job)) => verify_unit(shared, unit, job, &mut *buf, &mut open),
                _ => UnitResult::default(),
            })
            .collect();
        if !handover.put(index, results) {
            return;
        }
    }
}

fn verify_unit(
    shared: &Shared,
    unit: &Unit,
    job: &FileJob,
    buf: &mut [u8],
    open: &mut Option<(usize, io::Result<File>)>,
) -> UnitResult {
    if open.as_ref().map(|(i, _)| *i) != Some(unit.item) {
        // Opened read-only: verification never writes to its input.
        *open = Some((unit.item, open_regular(&job.path)));
    }
    let (Some((_, file)), Some(cell), Some(data)) = (
        open.as_ref(),
        shared.preps.get(unit.item),
        buf.get_mut(..unit.len),
    ) else {
        return UnitResult::default();
    };
    // The thread that reaches a file first settles its block size; when it holds the file's
    // first chunk, it detects from that chunk, which it then verifies without reading again.
    let mut read: Option<(usize, Option<io::Error>)> = None;
    let prep = cell
        .get_or_init(|| {
            let f = file
                .as_ref()
                .map_err(|e| format!("could not open file \"{}\": {}", job.display, reason(e)))?;
            if shared.block_size.is_some() {
                return prepare(shared, job, &[]);
            }
            if unit.offset == 0 {
                let (got, err) = read_full_at(f, data, 0);
                let head = data.get(..got).unwrap_or_default();
                let prep = prepare(shared, job, head);
                read = Some((got, err));
                return prep;
            }
            let mut head = vec![
                0u8;
                usize::try_from(job.len)
                    .unwrap_or(DETECT_HEAD_BYTES)
                    .min(DETECT_HEAD_BYTES)
            ];
            match read_full_at(f, &mut head, 0) {
                (_, Some(e)) => Err(format!(
                    "could not read file \"{}\": {}",
                    job.display,
                    reason(&e)
                )),
                (got, None) => prepare(shared, job, head.get(..got).unwrap_or_default()),
            }
        })
        .clone();
    let mut result = UnitResult {
        prep: Some(prep.clone()),
        ..UnitResult::default()
    };
    let Ok(prep) = prep else {
        return result;
    };
    let file = match file {
        Ok(f) => f,
        Err(e) => {
            result.error = Some(format!(
                "could not open file \"{}\": {}",
                job.display,
                reason(e)
            ));
            return result;
        }
    };
    let (got, err) = read.unwrap_or_else(|| read_full_at(file, data, unit.offset));
    let size = u64::from(prep.verifier.block_size.bytes());
    let first_block = unit.offset.checked_div(size).unwrap_or(0);
    let pages_left = u64::from(prep.extent.blocks).saturating_sub(first_block);
    let whole_len = (got as u64).min(pages_left.saturating_mul(size));
    let (Ok(first), Some(whole)) = (
        u32::try_from(first_block),
        usize::try_from(whole_len).ok().and_then(|n| data.get(..n)),
    ) else {
        return result;
    };
    let keep_all = shared.keep_all;
    let pages = &mut result.pages;
    prep.verifier.verify_chunk(
        whole,
        first,
        &mut result.counts,
        |s| keep_all || s.is_problem(),
        |p| pages.push(p),
    );
    if got < unit.len {
        let at = unit.offset.saturating_add(got as u64);
        let block = at.checked_div(size).unwrap_or(0);
        let partial = at.checked_rem(size).unwrap_or(0);
        result.error = Some(match err {
            Some(e) => format!("could not read block {block} in file \"{}\": {}", job.display, reason(&e)),
            None => format!(
                "could not read block {block} in file \"{}\": read {partial} of {size} (the file shrank while being read)",
                job.display
            ),
        });
    }
    result
}

/// Settles a file's geometry: the block size (given, or detected from the head of the file,
/// or 8192) and its length in pages.
fn prepare(shared: &Shared, job: &FileJob, head: &[u8]) -> Result<Prepared, String> {
    let block_size = shared
        .block_size
        .or_else(|| detect_block_size(head, shared.endian))
        .unwrap_or_default();
    let extent = FileExtent::of_len(job.len, block_size).ok_or_else(|| {
        format!(
            "file \"{}\" holds more blocks than a block number can count",
            job.display
        )
    })?;
    let verifier = FileVerifier {
        block_size,
        endian: shared.endian,
        segno: job.segno,
        blocks: extent.blocks,
    };
    Ok(Prepared { verifier, extent })
}

/// Fills `buf` from `offset` with pread; returns how much was read and the error, if any,
/// that stopped it short of the end of the file.
fn read_full_at(file: &File, buf: &mut [u8], offset: u64) -> (usize, Option<io::Error>) {
    let mut done = 0usize;
    while let Some(rest) = buf.get_mut(done..).filter(|r| !r.is_empty()) {
        match file.read_at(rest, offset.saturating_add(done as u64)) {
            Ok(0) => break,
            Ok(n) => done = done.saturating_add(n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return (done, Some(e)),
        }
    }
    (done, None)
}

/// The OS's words for an error, as PostgreSQL's %m prints them (without Rust's "(os error N)").
fn reason(e: &io::Error) -> String {
    let s = e.to_string();
    match s.split_once(" (os error ") {
        Some((words, _)) => words.to_owned(),
        None => s,
    }
}

/// Prints results in input order as they arrive from the threads.
struct Report<'a, O: Write, E: Write> {
    args: &'a VerifyArgs,
    out: BufWriter<O>,
    err: BufWriter<E>,
    counts: StatusCounts,
    files: u64,
    truncated: u64,
    cannot_run: bool,
    /// The file being printed, unless it could not be opened.
    current: Option<Prepared>,
    first_file: bool,
    first_page: bool,
}

impl<'a, O: Write, E: Write> Report<'a, O, E> {
    fn new(args: &'a VerifyArgs, out: O, err: E) -> Self {
        Report {
            args,
            out: BufWriter::with_capacity(1 << 16, out),
            err: BufWriter::new(err),
            counts: StatusCounts::default(),
            files: 0,
            truncated: 0,
            cannot_run: false,
            current: None,
            first_file: true,
            first_page: true,
        }
    }

    fn consume(&mut self, handover: &Handover, shared: &Shared) -> io::Result<()> {
        if self.args.json {
            self.out.write_all(b"{\"files\": [")?;
        }
        loop {
            let ready = handover.take();
            if ready.is_empty() {
                return Ok(());
            }
            for (index, results) in ready {
                let batch = shared.batches.get(index).cloned().unwrap_or_default();
                for (unit, result) in shared
                    .units
                    .get(batch)
                    .unwrap_or_default()
                    .iter()
                    .zip(results)
                {
                    if let Some(item) = shared.items.get(unit.item) {
                        self.unit(item, unit, result)?;
                    }
                }
            }
        }
    }

    fn fail(&mut self, reason: &str) -> io::Result<()> {
        self.cannot_run = true;
        writeln!(self.err, "pgpage: error: {reason}")
    }

    fn unit(&mut self, item: &Item, unit: &Unit, result: UnitResult) -> io::Result<()> {
        let job = match item {
            Item::Failed(reason) => return self.fail(reason),
            Item::Warning(warning) => return writeln!(self.err, "pgpage: warning: {warning}"),
            Item::File(job) => job,
        };
        if unit.first {
            self.current = None;
            match result.prep {
                Some(Ok(prep)) => {
                    self.files = self.files.saturating_add(1);
                    self.current = Some(prep);
                    self.begin_file(job, &prep)?;
                }
                Some(Err(reason)) => return self.fail(&reason),
                None => {}
            }
        }
        let Some(prep) = self.current else {
            return Ok(());
        };
        self.counts.merge(&result.counts);
        for page in &result.pages {
            self.page(job, page)?;
        }
        if let Some(reason) = &result.error {
            self.fail(reason)?;
        }
        if unit.last {
            self.end_file(job, &prep)?;
        }
        Ok(())
    }

    fn begin_file(&mut self, job: &FileJob, prep: &Prepared) -> io::Result<()> {
        if self.args.json {
            let sep = if self.first_file { "\n" } else { ",\n" };
            self.first_file = false;
            self.first_page = true;
            write!(
                self.out,
                "{sep}{{\"path\": {}, \"segment\": {}, \"fork\": \"{}\", \"block_size\": {}, \"blocks\": {}, \
                 \"trailing_bytes\": {}, \"pages\": [",
                json_string(&job.display),
                job.segno,
                job.fork.as_str(),
                prep.verifier.block_size.bytes(),
                prep.extent.blocks,
                prep.extent.trailing_bytes,
            )
        } else if job.explicit && job.len == 0 {
            writeln!(
                self.err,
                "pgpage: warning: file \"{}\" is empty",
                job.display
            )
        } else {
            Ok(())
        }
    }

    fn page(&mut self, job: &FileJob, p: &PageResult) -> io::Result<()> {
        if self.args.json {
            let sep = if self.first_page { "" } else { ", " };
            self.first_page = false;
            let computed = p
                .computed
                .map_or_else(|| "null".to_owned(), |c| c.to_string());
            write!(
                self.out,
                "{sep}{{\"block\": {}, \"absolute_block\": {}, \"status\": \"{}\", \"stored\": {}, \"computed\": {computed}",
                p.block,
                p.absolute_block,
                p.status.as_str(),
                p.stored
            )?;
            if let Some(m) = p.matches_block {
                write!(self.out, ", \"matches_block\": {m}")?;
            }
            return self.out.write_all(b"}");
        }
        let (path, block, stored) = (&job.display, p.block, p.stored);
        match (p.status, p.computed) {
            (PageStatus::Mismatch, Some(computed)) => {
                // pg_checksums.c: scan_file's message, word for word.
                writeln!(
                    self.err,
                    "pgpage: error: checksum verification failed in file \"{path}\", block {block}: \
                     calculated checksum {computed:X} but block contains {stored:X}"
                )?;
                if let Some(m) = p.matches_block {
                    writeln!(self.err, "pgpage: hint: checksum {stored:X} would be valid for block {m} of this file")?;
                }
            }
            (PageStatus::NewNotZero, _) => writeln!(
                self.err,
                "pgpage: error: page verification failed in file \"{path}\", block {block}: \
                 pd_upper is 0 but the page is not all zeros"
            )?,
            (PageStatus::BadHeader, _) => writeln!(
                self.err,
                "pgpage: error: page verification failed in file \"{path}\", block {block}: \
                 checksum {stored:X} is correct but the page header is invalid"
            )?,
            _ => {}
        }
        if self.args.all {
            let computed = p
                .computed
                .map_or_else(|| "-".to_owned(), |c| format!("{c:X}"));
            writeln!(
                self.out,
                "file \"{path}\", block {block} (relation block {}): {}, stored checksum {stored:X}, \
                 calculated {computed}",
                p.absolute_block,
                p.status.as_str()
            )?;
        }
        Ok(())
    }

    fn end_file(&mut self, job: &FileJob, prep: &Prepared) -> io::Result<()> {
        let trailing = prep.extent.trailing_bytes;
        if trailing > 0 {
            self.truncated = self.truncated.saturating_add(1);
            if !self.args.json {
                // pg_checksums.c: scan_file's message for a short read (where it gives up).
                writeln!(
                    self.err,
                    "pgpage: error: could not read block {} in file \"{}\": read {trailing} of {}",
                    prep.extent.blocks,
                    job.display,
                    prep.verifier.block_size.bytes()
                )?;
            }
        }
        if self.args.json {
            self.out.write_all(b"]}")?;
        }
        Ok(())
    }

    /// Prints the summary and returns the exit status.
    fn finish(&mut self) -> io::Result<i32> {
        let c = self.counts;
        if self.args.json {
            write!(
                self.out,
                "\n], \"summary\": {{\"files\": {}, \"blocks\": {}, \"ok\": {}, \"mismatch\": {}, \"zero\": {}, \
                 \"new_not_zero\": {}, \"bad_header\": {}}}}}\n",
                self.files,
                c.blocks(),
                c.ok,
                c.mismatch,
                c.zero,
                c.new_not_zero,
                c.bad_header
            )?;
        } else if self.files > 0 {
            self.err.flush()?;
            // pg_checksums.c: main's summary, minus "Data checksum version", which lives in
            // pg_control and not in the pages.
            writeln!(self.out, "Checksum operation completed")?;
            writeln!(self.out, "Files scanned:   {}", self.files)?;
            writeln!(self.out, "Blocks scanned:  {}", c.blocks())?;
            writeln!(self.out, "Bad checksums:  {}", c.mismatch)?;
            if c.new_not_zero > 0 {
                writeln!(self.out, "New pages not all zeros:  {}", c.new_not_zero)?;
            }
            if c.bad_header > 0 {
                writeln!(self.out, "Bad page headers:  {}", c.bad_header)?;
            }
            if self.truncated > 0 {
                writeln!(self.out, "Files with trailing bytes:  {}", self.truncated)?;
            }
        }
        self.err.flush()?;
        self.out.flush()?;
        Ok(if self.cannot_run {
            2
        } else if c.problems() > 0 || self.truncated > 0 {
            1
        } else {
            0
        })
    }
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned())
}
