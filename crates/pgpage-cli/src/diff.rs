//! `pgpage diff`: two copies of a relation file (or two data directories) page by page, as
//! docs/contracts.md, "diff --json", lists them. This module does the I/O (both files streamed in
//! big chunks) and the printing; the comparison is the core's
//! (`pgpage::diff`).

use std::collections::BTreeSet;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use pgpage::damage::diff::{
    compare_pages, field_changes, only_in, DiffState, DiffSummary, FieldChange, Newer, PageDiff,
};
use pgpage::file::{file_geometry, is_temporary_entry, parse_relation_file_name, GeometryChoice};
use pgpage::Endian;
use serde::Serialize;

use crate::args::io_reason;
use crate::fail::{run_to_stdout, Fail};
use crate::input::{open_regular, read_full_at, read_head};

#[derive(clap::Args, Debug)]
pub struct DiffArgs {
    /// Print JSON (docs/contracts.md, "diff --json").
    #[arg(long)]
    pub json: bool,
    /// The first copy (a relation file or a data directory), for instance the backup.
    pub a: PathBuf,
    /// The second copy, of the same kind as A, for instance the live file.
    pub b: PathBuf,
}

/// Bytes read per chunk and file: big enough that a read costs little per byte, small
/// enough that both chunks stay in L2, so the kernel's copy and the comparison both hit the
/// cache (4 MB chunks took twice cmp's system time, copying through RAM).
const CHUNK_BYTES: usize = 256 << 10;

/// Runs the command; returns the exit status.
pub fn run(args: &DiffArgs) -> i32 {
    run_to_stdout("writing output: ", |out| diff(args, out))
}

fn stat(path: &Path) -> Result<std::fs::Metadata, Fail> {
    std::fs::metadata(path).map_err(|e| {
        Fail::Input(format!(
            "could not stat \"{}\": {}",
            path.display(),
            io_reason(&e)
        ))
    })
}

fn diff(args: &DiffArgs, out: &mut impl Write) -> Result<i32, Fail> {
    let (ma, mb) = (stat(&args.a)?, stat(&args.b)?);
    let (a, b) = (args.a.display(), args.b.display());
    match (ma.is_dir(), mb.is_dir()) {
        (true, true) => diff_dirs(args, out),
        (false, false) => {
            let mut printer = Printer::new(args.json, false);
            let version = crate::inspect::cluster_version(&args.a)
                .or_else(|| crate::inspect::cluster_version(&args.b));
            let s = diff_files(
                &args.a,
                &args.b,
                &a.to_string(),
                &b.to_string(),
                version,
                &mut printer,
                out,
            )?;
            printer.end_file(out, &a.to_string(), &s, true)?;
            Ok(if s.is_equal() { 0 } else { 1 })
        }
        (true, false) => Err(Fail::Input(format!(
            "\"{a}\" is a directory but \"{b}\" is not: give two relation files or two data directories"
        ))),
        (false, true) => Err(Fail::Input(format!(
            "\"{a}\" is a file but \"{b}\" is a directory: give two relation files or two data directories"
        ))),
    }
}

/// Writes pages as they are found, so that a file of a million differing pages never sits
/// in memory: JSON opens a file's entry at its first differing page (directories list only
/// files that differ).
struct Printer {
    json: bool,
    dirs: bool,
    /// Pages written for the current file.
    pages: u64,
    /// Files written (directories).
    files: u64,
    /// Totals for the human summary of the differences, pages that differ only in hint bits
    /// apart (`hints`): a diff cannot tell damage from change, and hint bits are neither.
    hints: u64,
    bytes: u64,
    bits_set: u64,
    bits_cleared: u64,
    sectors: u64,
}

#[derive(Serialize)]
struct PageOut<'a> {
    #[serde(flatten)]
    page: &'a PageDiff,
    /// Added to the contract's keys: the decoded header fields and line pointers that
    /// differ, A's value and B's.
    #[serde(skip_serializing_if = "<[FieldChange]>::is_empty")]
    fields: &'a [FieldChange],
}

impl Printer {
    fn new(json: bool, dirs: bool) -> Printer {
        Printer {
            json,
            dirs,
            pages: 0,
            files: 0,
            hints: 0,
            bytes: 0,
            bits_set: 0,
            bits_cleared: 0,
            sectors: 0,
        }
    }

    fn page(
        &mut self,
        out: &mut impl Write,
        path: &str,
        page: &PageDiff,
        fields: &[FieldChange],
    ) -> io::Result<()> {
        if page.hints_only {
            self.hints = self.hints.saturating_add(1);
        } else {
            self.bytes = self.bytes.saturating_add(u64::from(page.bytes_changed));
            self.bits_set = self.bits_set.saturating_add(u64::from(page.bits_set));
            self.bits_cleared = self
                .bits_cleared
                .saturating_add(u64::from(page.bits_cleared));
            self.sectors = self.sectors.saturating_add(page.sectors.len() as u64);
        }
        if self.json {
            if self.pages == 0 {
                if self.dirs {
                    let sep = if self.files == 0 { "" } else { "," };
                    write!(out, "{sep}{{\"path\":{},\"pages\":[", json_str(path))?;
                    self.files = self.files.saturating_add(1);
                } else {
                    out.write_all(b"{\"pages\":[")?;
                }
            } else {
                out.write_all(b",")?;
            }
            serde_json::to_writer(&mut *out, &PageOut { page, fields }).map_err(io::Error::from)?;
        } else {
            writeln!(out, "{}", page_line(path, page, fields, self.dirs))?;
        }
        self.pages = self.pages.saturating_add(1);
        Ok(())
    }

    /// Closes a file's entry. `single`: the only file (its summary is printed even when
    /// equal, and JSON is the contract's single-file object).
    fn end_file(
        &mut self,
        out: &mut impl Write,
        path: &str,
        s: &DiffSummary,
        single: bool,
    ) -> io::Result<()> {
        let listed = self.pages > 0;
        self.pages = 0;
        if self.json {
            if single && !listed {
                out.write_all(b"{\"pages\":[")?;
            }
            if single || listed {
                let summary = serde_json::to_string(s).map_err(io::Error::from)?;
                write!(out, "],\"summary\":{summary}}}")?;
            }
            if single {
                writeln!(out)?;
            }
        } else if single || listed {
            writeln!(out, "{}", summary_line(path, s))?;
            if s.different > 0 && single {
                writeln!(out, "{}", self.differences_line())?;
            }
        }
        Ok(())
    }

    fn differences_line(&self) -> String {
        let hints = if self.hints > 0 {
            format!(
                "; besides, {} only in hint bits (not counted: the same rows)",
                pgpage::words::plural(self.hints, "page differs", "pages differ")
            )
        } else {
            String::new()
        };
        format!(
            "differences: {} changed ({} set, {} cleared) in {}{hints}",
            pgpage::words::plural(self.bytes, "byte", "bytes"),
            pgpage::words::plural(self.bits_set, "bit", "bits"),
            self.bits_cleared,
            pgpage::words::plural(self.sectors, "512-byte sector", "512-byte sectors")
        )
    }
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| String::from("\"\""))
}

fn page_line(path: &str, p: &PageDiff, fields: &[FieldChange], dirs: bool) -> String {
    let at = if dirs {
        format!("{path}: block {}", p.block)
    } else {
        format!("block {}", p.block)
    };
    match p.state {
        DiffState::OnlyA => format!("{at}: only in A"),
        DiffState::OnlyB => format!("{at}: only in B"),
        DiffState::Different => {
            let newer = match p.newer {
                Some(Newer::A) => "A newer by pd_lsn",
                Some(Newer::B) => "B newer by pd_lsn",
                Some(Newer::Same) => "same pd_lsn",
                None => "which is newer unknown (a header that is not a page's holds no pd_lsn)",
            };
            let ranges: Vec<String> = p
                .ranges
                .iter()
                .take(8)
                .map(|[o, l]| format!("{o}..{}", o.saturating_add(*l)))
                .collect();
            let more = p.ranges.len().saturating_sub(8);
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            let sectors = pgpage::words::run_texts(&p.sectors);
            // The header's fields all, the line pointers' first few: a page's hundred line
            // pointers on one line would make it thousands of characters (--json has them).
            const LINE_POINTERS_SHOWN: usize = 4;
            let (lps, header): (Vec<&FieldChange>, Vec<&FieldChange>) =
                fields.iter().partition(|f| f.field.starts_with("lp "));
            let mut fields: Vec<String> = header
                .iter()
                .chain(lps.iter().take(LINE_POINTERS_SHOWN))
                .map(|f| format!("{} {} -> {}", f.field, f.a, f.b))
                .collect();
            if lps.len() > LINE_POINTERS_SHOWN {
                fields.push(format!(
                    "and {} more line pointers (--json lists them)",
                    lps.len().saturating_sub(LINE_POINTERS_SHOWN)
                ));
            }
            let fields = if fields.is_empty() {
                String::new()
            } else {
                format!("; {}", fields.join(", "))
            };
            let hints = if p.hints_only {
                "; only hint bits and free space differ (pd_lsn, pd_checksum, pd_flags, pd_prune_xid, t_infomask's commit hints and the bytes between pd_lower and pd_upper, which wal_consistency_checking masks too): the same tuples, the same rows"
            } else {
                ""
            };
            format!(
                "{at}: different, {newer}, {} changed ({} set, {} cleared), sectors {}, bytes {}{more}{fields}{hints}",
                pgpage::words::plural(p.bytes_changed, "byte", "bytes"),
                pgpage::words::plural(p.bits_set, "bit", "bits"),
                p.bits_cleared,
                sectors.join(","),
                ranges.join(",")
            )
        }
    }
}

fn summary_line(path: &str, s: &DiffSummary) -> String {
    format!(
        "{path}: {} blocks in A, {} in B: {} equal, {} different, {} only in A, {} only in B",
        s.blocks_a, s.blocks_b, s.equal, s.different, s.only_a, s.only_b
    )
}

/// One opened copy.
struct Copy {
    file: File,
    /// Bytes of whole pages.
    whole: u64,
    blocks: u64,
}

/// Opens both copies and decides their page size and byte order with the core's
/// file_geometry, refusing two files that are not copies of one relation file.
fn open_pair(pa: &Path, pb: &Path, a: &str, b: &str) -> Result<(Copy, Copy, usize, Endian), Fail> {
    let name = |p: &Path| {
        p.file_name()
            .and_then(|n| n.to_str())
            .and_then(parse_relation_file_name)
    };
    let (na, nb) = (name(pa), name(pb));
    if let (Some(x), Some(y)) = (na, nb) {
        if x != y {
            return Err(Fail::Input(format!(
                "\"{a}\" and \"{b}\" are files of different relations: relfilenode {} fork {} segment {} against relfilenode {} fork {} segment {}",
                x.relfilenode,
                x.fork.as_str(),
                x.segno,
                y.relfilenode,
                y.fork.as_str(),
                y.segno
            )));
        }
    }
    let open = |p: &Path, shown: &str| -> Result<(File, u64, Vec<u8>), Fail> {
        let failed = |what: &str, e: io::Error| {
            Fail::Input(format!(
                "could not {what} file \"{shown}\": {}",
                io_reason(&e)
            ))
        };
        let file = open_regular(p).map_err(|e| failed("open", e))?;
        let len = file.metadata().map_err(|e| failed("stat", e))?.len();
        let head = read_head(&file, len).map_err(|e| failed("read", e))?;
        Ok((file, len, head))
    };
    let (fa, la, ha) = open(pa, a)?;
    let (fb, lb, hb) = open(pb, b)?;
    let named = na.is_some() || nb.is_some();
    let geometry = |head: &[u8], shown: &str| {
        file_geometry(head, GeometryChoice::default(), named)
            .map_err(|why| Fail::Input(format!("file \"{shown}\" is {why}")))
    };
    let (ga, gb) = (geometry(&ha, a)?, geometry(&hb, b)?);
    // An empty or all-zero copy says nothing of its pages: the other copy decides.
    let says = |g: &pgpage::file::Geometry, head: &[u8]| {
        !g.block_size_assumed && head.iter().any(|&x| x != 0)
    };
    let (sa, sb) = (says(&ga, &ha), says(&gb, &hb));
    if sa && sb && ga.block_size != gb.block_size {
        return Err(Fail::Input(format!(
            "\"{a}\" and \"{b}\" are not copies of one relation file: their page headers say block size {} and {}",
            ga.block_size.bytes(),
            gb.block_size.bytes()
        )));
    }
    if sa && sb && ga.endian != gb.endian {
        return Err(Fail::Input(format!(
            "\"{a}\" and \"{b}\" are not copies of one relation file: one was written by a big-endian server, the other by a little-endian one"
        )));
    }
    let g = if sa || !sb { ga } else { gb };
    let size = g.block_size.len();
    let copy = |file: File, len: u64, shown: &str| {
        let page = size as u64;
        let trailing = len.checked_rem(page).unwrap_or(0);
        if trailing > 0 {
            eprintln!(
                "pgpage: warning: file \"{shown}\" has {trailing} bytes past its last whole page: its last block is incomplete and not compared"
            );
        }
        Copy {
            file,
            whole: len.saturating_sub(trailing),
            blocks: len.checked_div(page).unwrap_or(0),
        }
    };
    Ok((copy(fa, la, a), copy(fb, lb, b), size, g.endian))
}

/// A file's whole pages in chunks, read into one buffer that is kept.
struct Chunks {
    file: File,
    whole: u64,
    offset: u64,
    buf: Vec<u8>,
    shown: String,
}

impl Chunks {
    fn new(file: File, whole: u64, shown: &str) -> Chunks {
        Chunks {
            file,
            whole,
            offset: 0,
            buf: Vec::new(),
            shown: shown.to_owned(),
        }
    }

    /// The next chunk, empty at the end of the file's whole pages.
    fn next(&mut self) -> Result<&[u8], Fail> {
        let left = self.whole.saturating_sub(self.offset);
        let want = usize::try_from(left).map_or(CHUNK_BYTES, |n| n.min(CHUNK_BYTES));
        self.buf.resize(want, 0);
        let (got, err) = read_full_at(&self.file, &mut self.buf, self.offset);
        let at = self.offset.saturating_add(got as u64);
        match err {
            Some(e) => Err(Fail::Input(format!(
                "could not read file \"{}\" at offset {at}: {}",
                self.shown,
                io_reason(&e)
            ))),
            None if got < want => Err(Fail::Input(format!(
                "file \"{}\" shrank while being read: it ends at {at}",
                self.shown
            ))),
            None => {
                self.offset = at;
                Ok(&self.buf)
            }
        }
    }
}

/// Compares two copies of one relation file, printing each page that is not equal.
fn diff_files(
    pa: &Path,
    pb: &Path,
    a: &str,
    b: &str,
    version: Option<u32>,
    printer: &mut Printer,
    out: &mut impl Write,
) -> Result<DiffSummary, Fail> {
    let (ca, cb, size, endian) = open_pair(pa, pb, a, b)?;
    let mut summary = DiffSummary {
        blocks_a: ca.blocks,
        blocks_b: cb.blocks,
        ..DiffSummary::default()
    };
    let shown = if printer.dirs { a } else { "" };
    let mut ra = Chunks::new(ca.file, ca.whole, a);
    let mut rb = Chunks::new(cb.file, cb.whole, b);
    let mut block = 0u64;
    loop {
        let (sa, sb) = (ra.next()?, rb.next()?);
        if sa.is_empty() && sb.is_empty() {
            break;
        }
        let pages_a = sa.chunks_exact(size);
        let pages_b = sb.chunks_exact(size);
        let n = pages_a.len().max(pages_b.len());
        let mut pages_a = pages_a.map(Some).chain(std::iter::repeat(None));
        let mut pages_b = pages_b.map(Some).chain(std::iter::repeat(None));
        for _ in 0..n {
            let blk = u32::try_from(block).unwrap_or(u32::MAX);
            let found = match (pages_a.next().flatten(), pages_b.next().flatten()) {
                (Some(x), Some(y)) => compare_pages(blk, x, y, endian)
                    .map(|d| (d, field_changes(x, y, endian, version))),
                (Some(_), None) => Some((only_in(blk, DiffState::OnlyA), Vec::new())),
                (None, Some(_)) => Some((only_in(blk, DiffState::OnlyB), Vec::new())),
                (None, None) => None,
            };
            match found {
                Some((d, fields)) => {
                    summary.add(&d);
                    printer.page(out, shown, &d, &fields)?;
                }
                None => summary.add_equal(1),
            }
            block = block.saturating_add(1);
        }
    }
    Ok(summary)
}

/// Relation files under a data directory, as paths relative to it, skipping temporary ones.
fn relation_files(root: &Path, dir: &Path, found: &mut BTreeSet<PathBuf>) -> Result<(), Fail> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        Fail::Input(format!(
            "could not open directory \"{}\": {}",
            dir.display(),
            io_reason(&e)
        ))
    })?;
    for entry in entries {
        let entry = entry.map_err(|e| {
            Fail::Input(format!(
                "could not read directory \"{}\": {}",
                dir.display(),
                io_reason(&e)
            ))
        })?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if is_temporary_entry(name) {
            continue;
        }
        let path = entry.path();
        // file_type does not follow symlinks; pg_tblspc's links to tablespaces are followed.
        let meta = match std::fs::metadata(&path) {
            Ok(m) => m,
            Err(_) => continue,
        };
        if meta.is_dir() {
            relation_files(root, &path, found)?;
        } else if meta.is_file() && parse_relation_file_name(name).is_some() {
            if let Ok(rel) = path.strip_prefix(root) {
                found.insert(rel.to_path_buf());
            }
        }
    }
    Ok(())
}

fn diff_dirs(args: &DiffArgs, out: &mut impl Write) -> Result<i32, Fail> {
    let (mut fa, mut fb) = (BTreeSet::new(), BTreeSet::new());
    relation_files(&args.a, &args.a, &mut fa)?;
    relation_files(&args.b, &args.b, &mut fb)?;
    let mut printer = Printer::new(args.json, true);
    let version = [&args.a, &args.b].into_iter().find_map(|d| {
        pgpage::file::datadir::parse_pg_version(&std::fs::read(d.join("PG_VERSION")).ok()?)
    });
    if args.json {
        out.write_all(b"{\"files\":[")?;
    }
    let mut differ = 0u64;
    let mut failed = 0u64;
    let mut total = DiffSummary::default();
    for rel in fa.intersection(&fb) {
        let shown = rel.display().to_string();
        let (pa, pb) = (args.a.join(rel), args.b.join(rel));
        match diff_files(&pa, &pb, &shown, &shown, version, &mut printer, out) {
            Ok(s) => {
                if !s.is_equal() {
                    differ = differ.saturating_add(1);
                }
                for (t, v) in [
                    (&mut total.blocks_a, s.blocks_a),
                    (&mut total.blocks_b, s.blocks_b),
                    (&mut total.equal, s.equal),
                    (&mut total.different, s.different),
                    (&mut total.only_a, s.only_a),
                    (&mut total.only_b, s.only_b),
                ] {
                    *t = t.saturating_add(v);
                }
                printer.end_file(out, &shown, &s, false)?;
            }
            Err(Fail::Input(m)) => {
                // One file that cannot be compared does not stop the others.
                eprintln!("pgpage: error: {m}");
                failed = failed.saturating_add(1);
            }
            Err(e) => return Err(e),
        }
    }
    let only_a: Vec<String> = fa
        .difference(&fb)
        .map(|p| p.display().to_string())
        .collect();
    let only_b: Vec<String> = fb
        .difference(&fa)
        .map(|p| p.display().to_string())
        .collect();
    if args.json {
        #[derive(Serialize)]
        struct Tail<'a> {
            only_a: &'a [String],
            only_b: &'a [String],
            /// Added: the totals over the files compared, and how many differ.
            summary: &'a DiffSummary,
            files_compared: usize,
            files_different: u64,
        }
        let tail = serde_json::to_string(&Tail {
            only_a: &only_a,
            only_b: &only_b,
            summary: &total,
            files_compared: fa.intersection(&fb).count(),
            files_different: differ,
        })
        .map_err(io::Error::from)?;
        writeln!(out, "],{}", tail.trim_start_matches('{'))?;
    } else {
        for p in &only_a {
            writeln!(out, "{p}: only in A")?;
        }
        for p in &only_b {
            writeln!(out, "{p}: only in B")?;
        }
        writeln!(
            out,
            "{} relation files compared: {} differ, {} only in A, {} only in B; {} pages different, {} only in A, {} only in B",
            fa.intersection(&fb).count(),
            differ,
            only_a.len(),
            only_b.len(),
            total.different,
            total.only_a,
            total.only_b
        )?;
        if total.different > 0 {
            writeln!(out, "{}", printer.differences_line())?;
        }
    }
    if failed > 0 {
        return Ok(2);
    }
    let equal = differ == 0 && only_a.is_empty() && only_b.is_empty();
    Ok(if equal { 0 } else { 1 })
}
