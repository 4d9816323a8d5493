//! `pgpage rows`: the visible rows of a heap relation's files as COPY prints them
//! (docs/contracts.md, "rows"). The `--types` form takes the columns from a type list, as
//! pg_filedump -D does; `stream_rows` takes any column list, so a catalog plugs in there.
//! Pages are read in units of CHUNK_BLOCKS, one pread each, decoded by a worker per core
//! and printed in block order by the calling thread.

use pgpage::words::plural;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};

use pgpage::cluster::rows::{
    page_problem, Column, PrintedKey, PrintedKeys, RowFormat, RowKeys, RowWriter, Versions,
    ZeroRuns, ZERO_PAGE_BETWEEN_ROWS,
};
use pgpage::file::scan::ChecksumsKnown;
use pgpage::file::{file_geometry, parse_relation_file_name, GeometryChoice};
use pgpage::tuple::copy::CopyFormat;
use pgpage::tuple::toast::{ChunkIndex, ValueProblem};
use pgpage::tuple::value::Type;
use pgpage::tuple::visibility::TransactionLog;
use pgpage::tuple::ToastPointer;
use pgpage::{BlockSize, Endian};

use crate::args::{io_reason, ReadAs};
use crate::input::{open_regular, read_full_at, read_head, AlignedBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    Csv,
    Text,
    Json,
}

#[derive(clap::Args, Debug)]
pub struct RowsArgs {
    /// csv (COPY's CSV), text (COPY's text format) or json (one object per line).
    #[arg(long, value_enum, default_value = "csv")]
    pub format: FormatArg,
    /// The table's column types in order, as pg_filedump -D takes them (int4,text,...).
    #[arg(long, value_delimiter = ',', value_name = "TYPE[,TYPE...]")]
    pub types: Vec<String>,
    /// With DATADIR RELATION: the database the relation is in (default: the only one that
    /// is not a template or postgres).
    #[arg(long, value_name = "NAME")]
    pub database: Option<String>,
    /// Every tuple version, dead, aborted and updated-away ones too (as pg_dirtyread shows
    /// them), led by the columns ctid, xmin, xmax and state (live, aborted, deleted,
    /// updated, undecided).
    #[arg(long)]
    pub all_versions: bool,
    /// Also the rows of pages whose checksum fails but whose header and structure are sound,
    /// as `SET ignore_checksum_failure = on` lets the server read them: JSON marks each
    /// `"damaged": "checksum"`; for csv and text, whose lines have no room, stderr lists
    /// their ctids.
    #[arg(long)]
    pub include_damaged: bool,
    /// A first line with the column names, as COPY's HEADER option prints it (csv, text).
    #[arg(long)]
    pub header: bool,
    /// A file (segment) of the table's TOAST relation; repeat for each segment.
    #[arg(long, value_name = "FILE")]
    pub toast: Vec<PathBuf>,
    #[command(flatten)]
    pub read_as: ReadAs,
    /// With --types, the table's files (its segments); else DATADIR RELATION, the relation
    /// named `schema.name` or `name` (schema public), SQL quoting allowed.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
}

/// Blocks per unit of work: 2 MB of 8 kB pages.
const CHUNK_BLOCKS: u64 = 256;

pub fn run(args: &RowsArgs) -> i32 {
    if args.types.is_empty() {
        return crate::table::run(args);
    }
    let mut columns = Vec::with_capacity(args.types.len());
    for (i, name) in args.types.iter().enumerate() {
        match Type::from_name(name) {
            Some(ty) => columns.push(Column::of_type(format!("col{}", i.saturating_add(1)), ty)),
            None => {
                eprintln!("pgpage: error: unknown type \"{}\" in --types", name.trim());
                return 2;
            }
        }
    }
    // Without a catalog the TOAST relation's name is a guess: pg_toast_<table oid>, and a
    // table never rewritten has its oid as its file's name.
    let toast_name = args
        .paths
        .first()
        .and_then(|p| p.file_name()?.to_str())
        .and_then(parse_relation_file_name)
        .map_or_else(
            || "pg_toast".to_owned(),
            |n| format!("pg_toast_{}", n.relfilenode),
        );
    // No pg_xact in this form: the hint bits decide what they can (`rows::visibility`).
    let log = TransactionLog::new(BlockSize::DEFAULT.len(), Endian::Little);
    let relation = Relation {
        paths: &args.paths,
        toast_paths: &args.toast,
        toast_name: &toast_name,
        log: &log,
        checksums: ChecksumsKnown::Unknown,
        row_key: None,
    };
    print_rows(columns, args, true, &relation, false)
}

impl FormatArg {
    pub fn row_format(self) -> RowFormat {
        match self {
            FormatArg::Csv => RowFormat::Copy(CopyFormat::Csv),
            FormatArg::Text => RowFormat::Copy(CopyFormat::Text),
            FormatArg::Json => RowFormat::Json,
        }
    }
}

/// A heap relation's files and what its rows are read with.
pub struct Relation<'a> {
    /// Its main fork's segments.
    pub paths: &'a [PathBuf],
    /// Its TOAST relation's segments.
    pub toast_paths: &'a [PathBuf],
    /// The TOAST relation's name, for the server's messages about missing chunks.
    pub toast_name: &'a str,
    /// pg_xact and pg_multixact (empty when not read: hint bits only).
    pub log: &'a TransactionLog,
    /// Data checksums on or off as pg_control says, if it says.
    pub checksums: ChecksumsKnown,
    /// The attribute numbers of the columns that name one row (the catalogs' primary key or
    /// unique index); None when not known.
    pub row_key: Option<&'a [i16]>,
}

/// Streams the rows to stdout and reports on stderr; returns the exit status. `damaged`:
/// something was already named on stderr as left out (exit status 1 even when the rows
/// are all there).
pub fn print_rows(
    columns: Vec<Column>,
    args: &RowsArgs,
    check_fit: bool,
    relation: &Relation,
    damaged: bool,
) -> i32 {
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let result = stream_rows(columns, args, check_fit, relation, &mut out);
    let flushed = out.flush();
    match (result, flushed) {
        (Err(e), _) => {
            eprintln!("pgpage: error: {e}");
            2
        }
        (Ok(_), Err(e)) => {
            eprintln!(
                "pgpage: error: could not write to stdout: {}",
                io_reason(&e)
            );
            2
        }
        (Ok(summary), Ok(())) => {
            summary.report(relation.log.has_xact());
            i32::from(summary.problems > 0 || damaged)
        }
    }
}

/// What a run found, for stderr and the exit status.
#[derive(Debug, Default)]
pub struct Summary {
    pub rows: u64,
    pub invisible: u64,
    pub undecided: u64,
    pub problems: u64,
    /// Rows printed from pages whose checksum fails (`--include-damaged`).
    pub damaged_rows: u64,
    /// Rows of pages older than the WAL shows: printed (`--include-damaged`), or left out.
    pub older_rows: u64,
    pub older_rows_left_out: u64,
    /// Pages whose rows are left out, and how many rows those whose count is known give.
    pub pages_left_out: u64,
    pub rows_left_out: u64,
    /// Tuples left out one by one.
    pub tuples_left_out: u64,
    /// All-zero pages between pages with rows.
    pub zero_pages: u64,
    /// Live rows printed whose unique key an earlier printed row has.
    pub keys_twice: u64,
}

impl Summary {
    fn report(&self, xact_read: bool) {
        if self.undecided > 0 {
            let why = if xact_read {
                "nor pg_xact"
            } else {
                "(pg_xact is not read)"
            };
            eprintln!(
                "pgpage: warning: {} tuples could not be decided from their hint bits {why}: \
                 printed as visible",
                self.undecided
            );
        }
        if self.problems > 0 {
            let mut what = Vec::new();
            if self.pages_left_out > 0 {
                let mut of = Vec::new();
                if self.rows_left_out > 0 {
                    of.push(format!(
                        "{} of pages whose checksum fails",
                        plural(self.rows_left_out, "row", "rows")
                    ));
                }
                if self.older_rows_left_out > 0 {
                    of.push(format!(
                        "{} of pages older than the WAL shows",
                        plural(self.older_rows_left_out, "row", "rows")
                    ));
                }
                let counted = if of.is_empty() {
                    String::new()
                } else {
                    format!(
                        " (among them {}: --include-damaged prints them)",
                        of.join(" and ")
                    )
                };
                what.push(format!(
                    "{} left out{counted}",
                    plural(self.pages_left_out, "page", "pages")
                ));
            }
            if self.tuples_left_out > 0 {
                what.push(format!(
                    "{} left out",
                    plural(self.tuples_left_out, "tuple", "tuples")
                ));
            }
            if self.zero_pages > 0 {
                what.push(format!(
                    "{} between pages with rows, their rows lost",
                    plural(self.zero_pages, "all-zero page", "all-zero pages")
                ));
            }
            if self.keys_twice > 0 {
                what.push(format!(
                    "{} printed a second time",
                    plural(self.keys_twice, "unique key", "unique keys")
                ));
            }
            if self.damaged_rows > 0 {
                what.push(format!(
                    "{} printed from pages whose checksum fails",
                    plural(self.damaged_rows, "row", "rows")
                ));
            }
            if self.older_rows > 0 {
                what.push(format!(
                    "{} printed from pages older than the WAL shows, as they were before the changes the page lacks",
                    plural(self.older_rows, "row", "rows")
                ));
            }
            let what = if what.is_empty() {
                plural(self.problems, "problem", "problems")
            } else {
                what.join("; ")
            };
            eprintln!(
                "pgpage: {} printed; {what} (named above)",
                plural(self.rows, "row", "rows")
            );
        }
    }
}

/// One TOAST chunk tuple's place: file, byte offset, length.
#[derive(Clone, Copy)]
struct ChunkAt {
    file: usize,
    at: u64,
    len: usize,
}

struct Toast {
    files: Vec<File>,
    index: ChunkIndex<ChunkAt>,
}

impl Toast {
    fn fetch(&self, p: &ToastPointer) -> Result<Vec<u8>, ValueProblem> {
        self.index.fetch(p, |c| {
            let mut buf = vec![0u8; c.len];
            let (got, _) = read_full_at(self.files.get(c.file)?, &mut buf, c.at);
            (got == c.len).then_some(buf)
        })
    }
}

/// A relation file opened, its geometry decided and its segment number known.
struct HeapFile {
    /// Its place in the relation's list of files.
    index: usize,
    display: String,
    file: File,
    len: u64,
    block_size: BlockSize,
    endian: Endian,
    segment: u32,
}

fn open_heap(
    path: &Path,
    choice: GeometryChoice,
    segment: Option<u32>,
) -> Result<HeapFile, String> {
    let display = path.display().to_string();
    let file = open_regular(path)
        .map_err(|e| format!("could not open file \"{display}\": {}", io_reason(&e)))?;
    let len = file
        .metadata()
        .map_err(|e| format!("could not stat file \"{display}\": {}", io_reason(&e)))?
        .len();
    let head = read_head(&file, len)
        .map_err(|e| format!("could not read file \"{display}\": {}", io_reason(&e)))?;
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(parse_relation_file_name);
    let geometry = file_geometry(&head, choice, name.is_some())
        .map_err(|e| format!("file \"{display}\": {e}"))?;
    Ok(HeapFile {
        index: 0,
        display,
        file,
        len,
        block_size: geometry.block_size,
        endian: geometry.endian,
        segment: segment.unwrap_or(name.map_or(0, |n| n.segno)),
    })
}

/// What the incident report finds of the damaged pages, for relation files inside a data
/// directory (the report reads the table's indexes): torn blocks' older writes, and the
/// values a bit flip probably changed (the first-ranked flip of a bit-flipped page, in a
/// column), by relation-wide block. Empty otherwise: then the page's own evidence decides.
/// The incident report's hints for this relation's rows (`Report::row_hints`): read only
/// inside a data directory, where the report can read the table's catalogs and indexes.
fn report_hints(paths: &[PathBuf]) -> pgpage::damage::report::RowHints {
    let Some((_, inside)) = paths
        .first()
        .and_then(|p| crate::heapctx::data_directory(p))
    else {
        return Default::default();
    };
    match crate::report::gather(paths, false, &[]) {
        // The report names each relation by its segment 0's path inside the data directory.
        Ok((report, _)) => report.row_hints(&inside.to_string_lossy()),
        Err(e) => {
            eprintln!(
                "pgpage: warning: the incident report could not be made ({e}): damaged pages are read without what it finds (torn writes, flipped bits)"
            );
            Default::default()
        }
    }
}

/// For relation files inside a data directory: the relation's blocks that the directory's
/// own WAL says its latest checkpoint wrote (the core's `FlushedChanges`), its redo point
/// and the server version, so that a page older than that is left out as a damaged one is.
type Flushed = (BTreeMap<u32, pgpage::wal::FlushedBlock>, u64, Option<u32>);

fn flushed_blocks(paths: &[PathBuf]) -> Option<Flushed> {
    let (root, inside) = crate::heapctx::data_directory(paths.first()?)?;
    let flushed = crate::report::flushed(&root, &[])?;
    let (spc_oid, db_oid, rel_number) =
        pgpage::file::datadir::locator_of(&inside.to_string_lossy())?;
    let blocks = flushed.relation_blocks(pgpage::wal::RelFileLocator {
        spc_oid,
        db_oid,
        rel_number,
    });
    if blocks.is_empty() {
        return None;
    }
    let major = std::fs::read_to_string(root.join("PG_VERSION"))
        .ok()
        .and_then(|v| v.trim().parse().ok());
    Some((blocks, flushed.redo(), major))
}

/// Streams the rows of a heap relation to `out` as `args` asks (format, all versions, how
/// to read the files: `--segment` overrides the segment number of the files' names, for a
/// file named otherwise), warning on stderr about each tuple or page left out. `check_fit`
/// holds every tuple to the column list's length (a type list, not a catalog). Errors are
/// only what stops the run (a file that cannot be opened or written).
pub fn stream_rows(
    columns: Vec<Column>,
    args: &RowsArgs,
    check_fit: bool,
    relation: &Relation,
    out: &mut dyn Write,
) -> Result<Summary, String> {
    let (choice, segment) = (args.read_as.geometry_choice(), args.read_as.segment);
    let versions = if args.all_versions {
        Versions::All
    } else {
        Versions::Visible
    };
    let mut files = relation
        .paths
        .iter()
        .map(|p| open_heap(p, choice, segment))
        .collect::<Result<Vec<_>, _>>()?;
    files.sort_by_key(|f| f.segment);
    for (i, f) in files.iter_mut().enumerate() {
        f.index = i;
    }
    let endian = files.first().map_or(Endian::Little, |f| f.endian);
    let mut summary = Summary::default();
    let toast = index_toast(relation, choice, &mut summary)?;
    let mut writer = RowWriter::new(columns, args.format.row_format(), endian, check_fit)
        .with_versions(versions)
        .with_damaged(args.include_damaged);
    // Printed or only counted, a damaged page's rows are the incident report's: a torn page's
    // read through the line pointers it rebuilds, so that `rows` and `report` give one count.
    // The report reads the table's indexes too: only worth it when a page is damaged.
    if let Some((blocks, redo, major)) = flushed_blocks(relation.paths) {
        writer = writer.with_flushed(blocks, redo, major);
    }
    let damaged = any_page_problem(&files, &writer, relation.checksums);
    let hints = if damaged {
        report_hints(relation.paths)
    } else {
        Default::default()
    };
    writer = writer
        .with_torn(hints.torn)
        .with_suspects(hints.suspects)
        .with_header_flips(hints.header_flips);
    if let Some(key) = relation.row_key {
        writer = writer.with_unique_key(key);
    }
    let mut printed_keys = PrintedKeys::default();
    // Printed or only counted, a damaged page's stale versions (keys live on a page that
    // verifies) are not its rows: the same count with --include-damaged and without.
    let mut keys_unknown = false;
    if damaged {
        match relation.row_key.and_then(RowKeys::new) {
            Some(mut keys) => {
                sound_keys(&files, &writer, &toast, relation, &mut keys);
                writer = writer.with_row_keys(keys);
            }
            None => keys_unknown = args.include_damaged,
        }
    }
    if args.header {
        let line = writer
            .header_line()
            .ok_or("--header is COPY's option: it applies to --format csv and text")?;
        out.write_all(line.as_bytes())
            .map_err(|e| format!("could not write to stdout: {}", io_reason(&e)))?;
    }
    let mut zeros = ZeroRuns::default();
    let mut units = Vec::new();
    for (fi, f) in files.iter().enumerate() {
        let bs = f.block_size.len() as u64;
        let blocks = f.len.checked_div(bs).unwrap_or(0);
        let trailing = f.len.checked_rem(bs).unwrap_or(0);
        if trailing != 0 {
            eprintln!(
                "pgpage: warning: file \"{}\": {} bytes past the last whole page are not read",
                f.display, trailing
            );
            summary.problems = summary.problems.saturating_add(1);
        }
        let mut start = 0u64;
        while start < blocks {
            let end = start.saturating_add(CHUNK_BLOCKS).min(blocks);
            units.push((fi, start, end));
            start = end;
        }
    }
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    // A text buffer per unit in flight, handed back after printing: memory stays bounded
    // (a few times 2 MB of pages' text) and the buffers' pages are faulted in once.
    let in_flight = workers.saturating_mul(2).saturating_add(2);
    let (free_tx, free_rx) = mpsc::sync_channel::<String>(in_flight);
    for _ in 0..in_flight {
        let _ = free_tx.send(String::new());
    }
    let free_rx = Mutex::new(free_rx);
    let next = AtomicUsize::new(0);
    let (done_tx, done_rx) = mpsc::channel::<(usize, Chunk)>();
    let largest_block = files.iter().map(|f| f.block_size.len()).max().unwrap_or(0);
    std::thread::scope(|scope| -> Result<(), String> {
        // Dropped when this returns, before the workers are joined: on an error they find
        // no more buffers and stop.
        let free_tx = free_tx;
        for _ in 0..workers {
            let done_tx = done_tx.clone();
            let (units, files, writer, toast, free_rx, next) =
                (&units, &files, &writer, &toast, &free_rx, &next);
            scope.spawn(move || {
                let mut buf = AlignedBuf::new(largest_block.saturating_mul(CHUNK_BLOCKS as usize));
                loop {
                    // A buffer first, then a unit: every unit taken is one being decoded, so
                    // the printer always gets the unit it waits for.
                    let text = match free_rx.lock().map(|rx| rx.recv()) {
                        Ok(Ok(text)) => text,
                        _ => return,
                    };
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(fi, start, end)) = units.get(i) else {
                        return;
                    };
                    let Some(f) = files.get(fi) else {
                        return;
                    };
                    let c = std::panic::catch_unwind(AssertUnwindSafe(|| {
                        chunk(f, (start, end), writer, toast, relation, buf.as_mut(), text)
                    }))
                    .unwrap_or_else(|_| Chunk::failed());
                    if done_tx.send((i, c)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done_tx);
        // Units come back in any order; they are printed in block order.
        let mut waiting = BTreeMap::new();
        let mut want = 0usize;
        while want < units.len() {
            let c = match waiting.remove(&want) {
                Some(c) => c,
                None => match done_rx.recv() {
                    Ok((i, c)) if i == want => c,
                    Ok((i, c)) => {
                        waiting.insert(i, c);
                        continue;
                    }
                    // Every worker gone before the last unit (cannot happen: a worker
                    // stops only when the units are all taken).
                    Err(_) => {
                        eprintln!("pgpage: warning: the workers stopped unexpectedly");
                        summary.problems = summary.problems.saturating_add(1);
                        break;
                    }
                },
            };
            for &(fi, absolute, zero, line_pointers) in &c.pages {
                for z in zeros.page(absolute, zero, line_pointers) {
                    let display = files.get(fi).map_or("", |f| f.display.as_str());
                    eprintln!(
                        "pgpage: warning: file \"{display}\", block {z}: {ZERO_PAGE_BETWEEN_ROWS}"
                    );
                    summary.zero_pages = summary.zero_pages.saturating_add(1);
                    summary.problems = summary.problems.saturating_add(1);
                }
            }
            for w in &c.warnings {
                eprintln!("{w}");
            }
            for (fi, absolute, keys) in &c.keys {
                let display = files.get(*fi).map_or("", |f| f.display.as_str());
                for (lp, why) in printed_keys.page(&writer, *absolute, keys) {
                    eprintln!(
                        "pgpage: warning: file \"{display}\", block {absolute}, offset {lp}: {why}"
                    );
                    summary.keys_twice = summary.keys_twice.saturating_add(1);
                    summary.problems = summary.problems.saturating_add(1);
                }
            }
            out.write_all(c.text.as_bytes())
                .map_err(|e| format!("could not write to stdout: {}", io_reason(&e)))?;
            summary.rows = summary.rows.saturating_add(c.rows);
            summary.invisible = summary.invisible.saturating_add(c.invisible);
            summary.undecided = summary.undecided.saturating_add(c.undecided);
            summary.problems = summary.problems.saturating_add(c.problems);
            summary.damaged_rows = summary.damaged_rows.saturating_add(c.damaged_rows);
            summary.older_rows = summary.older_rows.saturating_add(c.older_rows);
            summary.older_rows_left_out = summary
                .older_rows_left_out
                .saturating_add(c.older_rows_left_out);
            summary.pages_left_out = summary.pages_left_out.saturating_add(c.pages_left_out);
            summary.rows_left_out = summary.rows_left_out.saturating_add(c.rows_left_out);
            summary.tuples_left_out = summary.tuples_left_out.saturating_add(c.tuples_left_out);
            let mut text = c.text;
            text.clear();
            let _ = free_tx.send(text);
            want = want.saturating_add(1);
        }
        Ok(())
    })?;
    if keys_unknown && summary.damaged_rows > 0 {
        eprintln!(
            "pgpage: warning: the table's primary key (or another unique index on its columns) is not known (none in the catalogs read, or --types, which reads none): on the pages whose checksum fails, a stale version of a row that a torn write or an older page brought back cannot be told apart from the row, and may be printed beside its live version"
        );
    }
    Ok(summary)
}

/// The output of a run of blocks.
#[derive(Default)]
struct Chunk {
    text: String,
    warnings: Vec<String>,
    rows: u64,
    invisible: u64,
    undecided: u64,
    problems: u64,
    damaged_rows: u64,
    older_rows: u64,
    older_rows_left_out: u64,
    pages_left_out: u64,
    rows_left_out: u64,
    tuples_left_out: u64,
    /// Each page read: its file, relation-wide block, whether all zeros, whether it has line
    /// pointers (for the zero pages between pages with rows).
    pages: Vec<(usize, u32, bool, bool)>,
    /// Each page's printed live rows' keys (file, relation-wide block), checked in order.
    keys: Vec<(usize, u32, Vec<PrintedKey>)>,
}

impl Chunk {
    fn failed() -> Chunk {
        Chunk {
            warnings: vec!["pgpage: warning: a worker stopped unexpectedly".to_owned()],
            problems: 1,
            ..Chunk::default()
        }
    }
}

/// Decodes blocks `start..end` of a file, read with one pread into `buf` (room for the
/// whole unit), their text into `text`.
fn chunk(
    f: &HeapFile,
    (start, end): (u64, u64),
    writer: &RowWriter,
    toast: &Option<Toast>,
    relation: &Relation,
    buf: &mut [u8],
    text: String,
) -> Chunk {
    let mut c = Chunk {
        text,
        ..Chunk::default()
    };
    let bs = f.block_size.len();
    let mut fetch = |p: &ToastPointer| match toast {
        Some(t) => t.fetch(p),
        None => Err(ValueProblem::from(
            pgpage::findings::Finding::ToastRelationMissing,
        )),
    };
    let want = usize::try_from(end.saturating_sub(start))
        .unwrap_or(0)
        .saturating_mul(bs);
    let buf = buf.get_mut(..want).unwrap_or_default();
    let (got, _) = read_full_at(&f.file, buf, start.saturating_mul(bs as u64));
    let mut page_buf = Vec::new();
    let fi = f.index;
    for (block, at) in (start..end).zip((0..want).step_by(bs.max(1))) {
        let absolute = f.block_size.absolute_block(f.segment, block as u32);
        let at_msg = |lp: Option<u16>| match lp {
            Some(lp) => format!("file \"{}\", block {absolute}, offset {lp}", f.display),
            None => format!("file \"{}\", block {absolute}", f.display),
        };
        // Past a short read each page is read again on its own, so that the error or the
        // file's end is said for exactly the pages it took.
        let page = match buf.get(at..at.saturating_add(bs)) {
            Some(page) if at.saturating_add(bs) <= got => page,
            _ => {
                page_buf.resize(bs, 0);
                let (got, err) =
                    read_full_at(&f.file, &mut page_buf, block.saturating_mul(bs as u64));
                if got < bs {
                    let why = err.map_or_else(|| "the file ended".to_owned(), |e| io_reason(&e));
                    c.warnings.push(format!(
                        "pgpage: warning: {}: could not read the page: {why}",
                        at_msg(None)
                    ));
                    c.problems = c.problems.saturating_add(1);
                    continue;
                }
                &page_buf
            }
        };
        let rows = writer.page(
            page,
            absolute,
            relation.checksums,
            relation.log,
            &mut fetch,
            &mut c.text,
        );
        c.pages.push((fi, absolute, rows.zero, rows.line_pointers));
        if !rows.keys.is_empty() {
            c.keys.push((fi, absolute, rows.keys));
        }
        c.rows = c.rows.saturating_add(rows.rows);
        c.invisible = c.invisible.saturating_add(rows.invisible);
        c.undecided = c.undecided.saturating_add(rows.undecided);
        if rows.older {
            c.older_rows = c.older_rows.saturating_add(rows.damaged.len() as u64);
        } else {
            c.damaged_rows = c.damaged_rows.saturating_add(rows.damaged.len() as u64);
        }
        // The printed rows' line pointers as runs: a page's hundred rows in one short line.
        let ctids: Vec<String> = pgpage::words::runs(&rows.damaged)
            .iter()
            .map(|&(a, b)| {
                if a == b {
                    format!("({absolute},{a})")
                } else {
                    format!("({absolute},{a})-({absolute},{b})")
                }
            })
            .collect();
        for l in rows.left_out {
            let attribute = l
                .attnum
                .map_or_else(String::new, |n| format!(" (attribute {n})"));
            let what = match (l.printed, l.offset, l.rows) {
                (true, None, Some(n)) => format!(
                    "; its {n} rows are printed, {}: {}",
                    if rows.older {
                        "as the server returns them"
                    } else if rows.torn {
                        "read where the rows' own t_ctid finds their tuples (as pgpage repair --torn rebuilds the page)"
                    } else if rows.field_set.is_some() {
                        "read as the server reads them once pgpage repair --set gives the page back"
                    } else {
                        "read as SET ignore_checksum_failure = on lets the server read them"
                    },
                    if ctids.is_empty() {
                        "none".to_owned()
                    } else {
                        ctids.join(", ")
                    }
                ),
                (true, _, _) => String::new(),
                (false, None, Some(n)) if rows.older => {
                    c.pages_left_out = c.pages_left_out.saturating_add(1);
                    c.older_rows_left_out = c.older_rows_left_out.saturating_add(n);
                    format!(
                        "; its {n} rows are left out (--include-damaged prints them, as the server returns them)"
                    )
                }
                (false, None, Some(n)) => {
                    c.pages_left_out = c.pages_left_out.saturating_add(1);
                    c.rows_left_out = c.rows_left_out.saturating_add(n);
                    if rows.torn {
                        format!(
                            "; its {n} rows are left out (--include-damaged prints them, read where the rows' own t_ctid finds their tuples)"
                        )
                    } else {
                        format!(
                            "; its {n} rows are left out (--include-damaged prints them, as SET ignore_checksum_failure = on lets the server read the page)"
                        )
                    }
                }
                // Some of a page's tuples, named in the message.
                (false, None, None) if !l.tuples.is_empty() => {
                    c.tuples_left_out = c.tuples_left_out.saturating_add(l.tuples.len() as u64);
                    String::new()
                }
                (false, None, None) => {
                    c.pages_left_out = c.pages_left_out.saturating_add(1);
                    // A copy of another block says itself why its rows are left out.
                    if l.copy_of.is_some() {
                        String::new()
                    } else {
                        "; its rows are left out".to_owned()
                    }
                }
                (false, Some(_), _) => {
                    c.tuples_left_out = c.tuples_left_out.saturating_add(1);
                    "; left out".to_owned()
                }
            };
            c.warnings.push(format!(
                "pgpage: warning: {}{attribute}: {}{what}",
                at_msg(l.offset),
                l.message
            ));
            c.problems = c.problems.saturating_add(1);
        }
    }
    c
}

/// Whether some page of the files is one the server refuses or reads wrong, or older than
/// the WAL shows (`RowWriter::problem`); stops at the first.
fn any_page_problem(files: &[HeapFile], writer: &RowWriter, checksums: ChecksumsKnown) -> bool {
    files.iter().any(|f| {
        let bs = f.block_size.len();
        let mut page = vec![0u8; bs];
        (0..f.len.checked_div(bs as u64).unwrap_or(0)).any(|block| {
            let (got, _) = read_full_at(&f.file, &mut page, block.saturating_mul(bs as u64));
            let absolute = f.block_size.absolute_block(f.segment, block as u32);
            got == bs && writer.problem(&page, absolute, checksums).is_some()
        })
    })
}

/// The first pass of `--include-damaged`: the keys of the live rows on every page that
/// verifies, so that the second leaves out a damaged page's stale versions of them.
fn sound_keys(
    files: &[HeapFile],
    writer: &RowWriter,
    toast: &Option<Toast>,
    relation: &Relation,
    keys: &mut RowKeys,
) {
    let mut fetch = |p: &ToastPointer| match toast {
        Some(t) => t.fetch(p),
        None => Err(ValueProblem::from(
            pgpage::findings::Finding::ToastRelationMissing,
        )),
    };
    for f in files {
        let bs = f.block_size.len();
        let mut page = vec![0u8; bs];
        for block in 0..f.len.checked_div(bs as u64).unwrap_or(0) {
            let (got, _) = read_full_at(&f.file, &mut page, block.saturating_mul(bs as u64));
            if got < bs {
                continue;
            }
            let absolute = f.block_size.absolute_block(f.segment, block as u32);
            keys.sound_page(
                writer,
                &page,
                absolute,
                relation.checksums,
                relation.log,
                &mut fetch,
            );
        }
    }
}

/// Reads every page of the TOAST files and notes where each chunk is.
fn index_toast(
    relation: &Relation,
    choice: GeometryChoice,
    summary: &mut Summary,
) -> Result<Option<Toast>, String> {
    let paths = relation.toast_paths;
    if paths.is_empty() {
        return Ok(None);
    }
    let mut files = Vec::new();
    let mut index: Option<ChunkIndex<ChunkAt>> = None;
    for (fi, p) in paths.iter().enumerate() {
        let f = open_heap(p, choice, None)?;
        let bs = f.block_size.len();
        let index = index
            .get_or_insert_with(|| ChunkIndex::new(relation.toast_name.to_owned(), bs, f.endian));
        let mut page = vec![0u8; bs];
        for block in 0..f.len.checked_div(bs as u64).unwrap_or(0) {
            let start = block.saturating_mul(bs as u64);
            let (got, _) = read_full_at(&f.file, &mut page, start);
            let absolute = f.block_size.absolute_block(f.segment, block as u32);
            if got < bs {
                continue;
            }
            if let Some(why) = page_problem(&page, absolute, f.endian, relation.checksums) {
                eprintln!(
                    "pgpage: warning: file \"{}\", block {absolute}: {why}; its TOAST chunks are left out",
                    f.display
                );
                summary.problems = summary.problems.saturating_add(1);
                continue;
            }
            index.add_page(&page, absolute, relation.log, |off, len| ChunkAt {
                file: fi,
                at: start.saturating_add(off as u64),
                len,
            });
        }
        files.push(f.file);
    }
    Ok(index.map(|index| Toast { files, index }))
}
