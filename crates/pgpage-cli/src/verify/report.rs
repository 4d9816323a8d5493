//! What `verify` says, in input order as results arrive from the pool: pg_checksums' lines
//! (errors, `-v`'s files, `-P`'s progress) and summary, or the contract's JSON; and the exit
//! status.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::time::{SystemTime, UNIX_EPOCH};

use pgpage::file::{PageResult, StatusCounts};
use pgpage::{Endian, PageStatus};

use super::json::{FileHead, JsonStream};
use super::pool::Handover;
use super::read::{Plan, Prepared, Unit, UnitResult};
use super::walk::{FileJob, Item};

/// What the user asked to be told.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    pub json: bool,
    pub all: bool,
    pub verbose: bool,
    pub progress: bool,
}

pub struct Report<O: Write, E: Write> {
    options: Options,
    out: BufWriter<O>,
    err: BufWriter<E>,
    json: Option<JsonStream>,
    progress: Option<Progress>,
    counts: StatusCounts,
    files: u64,
    truncated: u64,
    cannot_run: bool,
    /// The file being printed, unless its geometry could not be settled.
    current: Option<Prepared>,
    /// The file being printed could not be read to its end.
    current_failed: bool,
    said_big_endian: bool,
}

impl<O: Write, E: Write> Report<O, E> {
    /// `total_bytes`: the size of every file to read, for progress.
    pub fn new(options: Options, out: O, err: E, total_bytes: u64) -> Self {
        let tty = io::stderr().is_terminal();
        Report {
            options,
            out: BufWriter::with_capacity(1 << 16, out),
            err: BufWriter::new(err),
            json: None,
            progress: options.progress.then_some(Progress {
                total: total_bytes,
                current: 0,
                last: None,
                tty,
            }),
            counts: StatusCounts::default(),
            files: 0,
            truncated: 0,
            cannot_run: false,
            current: None,
            current_failed: false,
            said_big_endian: false,
        }
    }

    /// Prints every batch the pool finishes, in order, until it has finished them all.
    pub fn consume(&mut self, handover: &Handover<Vec<UnitResult>>, plan: &Plan) -> io::Result<()> {
        if self.options.json {
            self.json = Some(JsonStream::begin(&mut self.out)?);
        }
        loop {
            let ready = handover.take();
            if ready.is_empty() {
                return Ok(());
            }
            for (index, results) in ready {
                for (unit, result) in plan.batch(index).iter().zip(results) {
                    if let Some(item) = plan.items.get(unit.item) {
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
            self.current_failed = false;
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
            self.current_failed = true;
            self.fail(reason)?;
        }
        if let Some(progress) = &mut self.progress {
            progress.current = progress.current.saturating_add(result.read);
            progress.report(&mut self.err, false)?;
        }
        if unit.last {
            self.end_file(job, &prep)?;
        }
        Ok(())
    }

    fn begin_file(&mut self, job: &FileJob, prep: &Prepared) -> io::Result<()> {
        if let Some(json) = &mut self.json {
            return json.file(
                &mut self.out,
                &FileHead {
                    path: &job.display,
                    segment: job.segno,
                    fork: job.fork,
                    block_size: prep.geometry.block_size.bytes(),
                    endian: prep.geometry.endian,
                    blocks: prep.extent.blocks,
                    trailing_bytes: prep.extent.trailing_bytes,
                },
            );
        }
        if job.explicit && job.len == 0 {
            writeln!(
                self.err,
                "pgpage: warning: file \"{}\" is empty",
                job.display
            )?;
        }
        let g = prep.geometry;
        if g.byte_order_detected && g.endian == Endian::Big && !self.said_big_endian {
            // Once: a big-endian server's cluster would otherwise say it for every file.
            self.said_big_endian = true;
            writeln!(
                self.err,
                "pgpage: file \"{}\" holds big-endian pages (a big-endian server's): it and \
                 every such file are verified in that byte order",
                job.display
            )?;
        }
        Ok(())
    }

    fn page(&mut self, job: &FileJob, p: &PageResult) -> io::Result<()> {
        if let Some(json) = &mut self.json {
            return json.page(&mut self.out, p);
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
                    writeln!(
                        self.err,
                        "pgpage: hint: checksum {stored:X} would be valid for block {m} of this file"
                    )?;
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
        if self.options.all {
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
            self.current_failed = true;
            if self.json.is_none() {
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
        if let Some(json) = &mut self.json {
            json.end_file(&mut self.out)?;
        }
        if self.options.verbose && !self.current_failed {
            // pg_checksums.c: scan_file's pg_log_info, once the file was read to its end
            // (where pg_checksums gave up on a file, it never says it).
            writeln!(
                self.err,
                "pgpage: checksums verified in file \"{}\"",
                job.display
            )?;
        }
        Ok(())
    }

    /// Prints the summary and returns the exit status.
    pub fn finish(&mut self) -> io::Result<i32> {
        if let Some(progress) = &mut self.progress {
            progress.report(&mut self.err, true)?;
        }
        let c = self.counts;
        if let Some(json) = self.json.take() {
            json.finish(&mut self.out, self.files, &c)?;
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

/// pg_checksums' progress_report: bytes of the files read so far against their total size,
/// at most once a second (by the wall clock's seconds, as time() counts them) and once when
/// done; on a terminal each report overwrites the last.
struct Progress {
    total: u64,
    current: u64,
    last: Option<u64>,
    tty: bool,
}

impl Progress {
    fn report(&mut self, err: &mut impl Write, finished: bool) -> io::Result<()> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        if self.last == Some(now) && !finished {
            return Ok(());
        }
        self.last = Some(now);
        // A file that grew while it was read.
        self.total = self.total.max(self.current);
        let percent = self
            .current
            .saturating_mul(100)
            .checked_div(self.total)
            .unwrap_or(0);
        const MB: u64 = 1024 * 1024;
        write!(
            err,
            "{}/{} MB ({percent}%) computed",
            self.current / MB,
            self.total / MB
        )?;
        err.write_all(if !finished && self.tty { b"\r" } else { b"\n" })?;
        err.flush()
    }
}
