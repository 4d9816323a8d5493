//! What `verify` says, in input order as results arrive from the pool: each file's scans
//! merged and finished into the core's verdict, then pg_checksums' lines (errors, `-v`'s
//! files, `-P`'s progress), the verdict's findings and the summary, or the contract's JSON;
//! and the exit status.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::time::{SystemTime, UNIX_EPOCH};

use pgpage::am::maps::walk as forks;
use pgpage::file::scan::{ChecksumsKnown, FileFinding, FileScan, FileVerdict, Misplaced, PageRow};
use pgpage::file::{ChecksumCounts, StatusCounts};
use pgpage::findings::{Checker, Evidence, Finding};
use pgpage::{Endian, PageStatus};

use super::amcheck::Checked;
use super::cluster::Cluster;
use super::json::{file_finding, FileJson, JsonStream, Page};
use super::pool::Handover;
use super::read::{ListedPage, Plan, Prepared, Unit, UnitResult};
use super::walk::{FileJob, Item};

/// What the user asked to be told.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    pub json: bool,
    pub all: bool,
    pub verbose: bool,
    pub progress: bool,
}

/// A candidate (a bare checksum match) is worth a human's attention only when chance
/// explains it rarely: in a file of under about 650 blocks.
const CANDIDATE_HINT_BELOW: f64 = 0.01;

/// The file being printed: its geometry, and its scans merged so far.
struct Current {
    prep: Prepared,
    scan: Option<FileScan>,
    /// With `--all`, every page as the units listed it.
    listed: Vec<ListedPage>,
    /// It could not be read to its end.
    failed: bool,
}

pub struct Report<O: Write, E: Write> {
    options: Options,
    out: BufWriter<O>,
    err: BufWriter<E>,
    json: Option<JsonStream>,
    progress: Option<Progress>,
    counts: StatusCounts,
    /// Every file's pages by whether their checksum is valid, and whether some file's
    /// cluster is changing its checksums (then the counts are said).
    checksum_counts: ChecksumCounts,
    checksums_in_progress: bool,
    files: u64,
    truncated: u64,
    cannot_run: bool,
    /// The file being printed, unless its geometry could not be settled.
    current: Option<Current>,
    said_big_endian: bool,
    said_checksums_off: bool,
    /// With `--amcheck`: pages with structural findings, and the relations whose item order
    /// was said to be unchecked.
    structural_pages: u64,
    said_unchecked: Vec<*const Checked>,
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
            checksum_counts: ChecksumCounts::default(),
            checksums_in_progress: false,
            files: 0,
            truncated: 0,
            cannot_run: false,
            current: None,
            said_big_endian: false,
            said_checksums_off: false,
            structural_pages: 0,
            said_unchecked: Vec::new(),
        }
    }

    /// Prints every batch the pool finishes, in order, until it has finished them all.
    pub fn consume(&mut self, handover: &Handover<Vec<UnitResult>>, plan: &Plan) -> io::Result<()> {
        if self.options.json {
            let clusters: Vec<_> = plan.clusters.iter().map(Cluster::json).collect();
            let state = plan.clusters.iter().find_map(Cluster::checksum_state);
            self.json = Some(JsonStream::begin(&mut self.out, state, &clusters)?);
        }
        loop {
            let ready = handover.take();
            if ready.is_empty() {
                return Ok(());
            }
            for (index, results) in ready {
                for (unit, result) in plan.batch(index).iter().zip(results) {
                    if let Some(item) = plan.items.get(unit.item) {
                        self.unit(item, unit, result, plan)?;
                    }
                }
            }
        }
    }

    fn fail(&mut self, reason: &str) -> io::Result<()> {
        self.cannot_run = true;
        writeln!(self.err, "pgpage: error: {reason}")
    }

    fn unit(
        &mut self,
        item: &Item,
        unit: &Unit,
        result: UnitResult,
        plan: &Plan,
    ) -> io::Result<()> {
        let job = match item {
            Item::Failed(reason) => return self.fail(reason),
            Item::Warning(warning) => return writeln!(self.err, "pgpage: warning: {warning}"),
            Item::Note(note) if !self.options.json => return writeln!(self.err, "pgpage: {note}"),
            Item::Note(_) => return Ok(()),
            Item::File(job) => job,
        };
        if unit.first {
            self.current = None;
            match result.prep {
                Some(Ok(prep)) => {
                    self.files = self.files.saturating_add(1);
                    self.current = Some(Current {
                        prep,
                        scan: None,
                        listed: Vec::new(),
                        failed: false,
                    });
                    self.begin_file(job, &prep)?;
                }
                Some(Err(reason)) => return self.fail(&reason),
                None => {}
            }
        }
        let Some(current) = &mut self.current else {
            return Ok(());
        };
        match (&mut current.scan, result.scan) {
            (_, None) => {}
            (None, Some(scan)) => current.scan = Some(scan),
            // Parts of one file, read with its one geometry: they always merge.
            (Some(mine), Some(part)) => mine.merge(&part).unwrap_or_default(),
        }
        current.listed.extend(result.pages);
        if let Some(reason) = &result.error {
            current.failed = true;
            self.fail(reason)?;
        }
        if let Some(progress) = &mut self.progress {
            progress.current = progress.current.saturating_add(result.read);
            progress.report(&mut self.err, false)?;
        }
        if unit.last {
            if let Some(current) = self.current.take() {
                let checksums = plan
                    .cluster(job)
                    .map_or(ChecksumsKnown::Unknown, Cluster::checksums);
                self.end_file(job, current, checksums, plan.checked(unit.item))?;
            }
        }
        Ok(())
    }

    fn begin_file(&mut self, job: &FileJob, prep: &Prepared) -> io::Result<()> {
        let g = prep.geometry;
        if let Some(size) = prep.pages_block_size {
            writeln!(
                self.err,
                "pgpage: warning: file \"{}\" holds pages of {} bytes, but pg_control says the \
                 cluster's block size is {}: it is verified with {}, as the server reads it",
                job.display,
                size.bytes(),
                g.block_size.bytes(),
                g.block_size.bytes()
            )?;
        }
        if self.json.is_some() {
            return Ok(());
        }
        if job.explicit && job.len == 0 {
            writeln!(
                self.err,
                "pgpage: warning: file \"{}\" is empty",
                job.display
            )?;
        }
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

    /// The file's verdict, from its merged scans: counted, then printed.
    fn end_file(
        &mut self,
        job: &FileJob,
        current: Current,
        checksums: ChecksumsKnown,
        checked: Option<&Checked>,
    ) -> io::Result<()> {
        let prep = current.prep;
        let scan = match current.scan {
            Some(scan) => scan,
            // No unit read a page (an empty file, or a read that failed at once).
            None => match FileScan::new(prep.geometry, job.segno, job.len) {
                Ok(scan) => scan,
                Err(e) => return self.fail(&format!("file \"{}\": {e}", job.display)),
            },
        };
        let mut failed = current.failed;
        let verdict = scan.finish(checksums);
        self.counts.merge(&verdict.counts);
        self.checksum_counts.merge(&verdict.checksum_counts);
        self.checksums_in_progress |= verdict.checksums_in_progress;
        if verdict.trailing_bytes > 0 {
            self.truncated = self.truncated.saturating_add(1);
            failed = true;
        }
        let first = scan.first_absolute_block();
        let structural = verdict.pages.iter().filter(|r| !r.structure.is_empty());
        self.structural_pages = self
            .structural_pages
            .saturating_add(structural.count() as u64);
        if self.json.is_some() {
            let relation = checked
                .and_then(|c| c.relname.as_deref())
                .unwrap_or(job.display.as_str());
            self.json_file(job, &prep, &verdict, &current.listed, first, relation)?;
        } else {
            self.human_file(job, &verdict, &current.listed, first, checked.is_some())?;
            if let Some(checked) = checked {
                self.structure_findings(job, &verdict, checked)?;
            }
        }
        if self.options.verbose && !failed {
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

    fn json_file(
        &mut self,
        job: &FileJob,
        prep: &Prepared,
        verdict: &FileVerdict,
        listed: &[ListedPage],
        first: u32,
        relation: &str,
    ) -> io::Result<()> {
        let segno = job.segno;
        let pages = if self.options.all {
            let mut rows = verdict.pages.iter().peekable();
            listed
                .iter()
                .map(|p| match rows.next_if(|r| r.block == p.block) {
                    Some(row) => Page::of_row(row, segno, first, relation),
                    None => {
                        let (status, computed) = fine(p, verdict.checksums_disabled);
                        Page::plain(
                            p.block,
                            first.wrapping_add(p.block),
                            status,
                            p.stored,
                            computed,
                        )
                    }
                })
                .collect()
        } else {
            // A page the relation's maps find wrong is listed with its findings, though the
            // server reads it (VACUUM warns of it).
            let said = |f: &Finding| forks::FINDINGS.contains(f) && f.evidence() != Evidence::Note;
            verdict
                .pages
                .iter()
                .filter(|r| {
                    r.status.is_problem() || r.findings.iter().any(said) || !r.structure.is_empty()
                })
                .map(|r| Page::of_row(r, segno, first, relation))
                .collect()
        };
        let file = FileJson {
            path: &job.display,
            segment: segno,
            fork: job.fork,
            block_size: prep.geometry.block_size.bytes(),
            endian: prep.geometry.endian,
            blocks: verdict.blocks,
            trailing_bytes: verdict.trailing_bytes,
            pages_block_size: prep.pages_block_size.map(|s| s.bytes()),
            findings: verdict
                .findings
                .iter()
                .map(|f| file_finding(f, &job.display))
                .collect(),
            checksums: verdict
                .checksums_in_progress
                .then_some(verdict.checksum_counts),
            pages,
        };
        match &mut self.json {
            Some(json) => json.file(&mut self.out, &file),
            None => Ok(()),
        }
    }

    fn human_file(
        &mut self,
        job: &FileJob,
        verdict: &FileVerdict,
        listed: &[ListedPage],
        first: u32,
        amcheck: bool,
    ) -> io::Result<()> {
        let path = &job.display;
        for f in &verdict.findings {
            match f {
                FileFinding::WrittenAsSegment { .. } | FileFinding::WrittenAtOffset { .. } => {
                    writeln!(
                        self.err,
                        "pgpage: hint: file \"{path}\": {}",
                        f.describe(path)
                    )?;
                }
                FileFinding::ChecksumsDisabled { from_pages: true } if !self.said_checksums_off => {
                    // Once, as for big-endian files: every file of such a cluster says it.
                    self.said_checksums_off = true;
                    writeln!(
                        self.err,
                        "pgpage: file \"{path}\" stores no page checksum: data checksums are \
                         taken as disabled, and it and every such file are checked by their \
                         page headers only"
                    )?;
                }
                FileFinding::ZeroPageBetweenRows { .. } => {
                    // Not a problem for the server (and for the exit status), but rows may
                    // be lost there: said, never counted.
                    writeln!(
                        self.err,
                        "pgpage: note: file \"{path}\", {}",
                        f.describe(path)
                    )?;
                }
                _ => {}
            }
        }
        let cx = Places {
            file: &job.path,
            segno: job.segno,
            first,
            blocks: verdict.blocks,
            amcheck,
        };
        for row in &verdict.pages {
            self.row(path, row, &cx)?;
        }
        self.map_findings(job, verdict)?;
        if self.options.all {
            let mut rows = verdict.pages.iter().peekable();
            for p in listed {
                let absolute = first.wrapping_add(p.block);
                let (status, stored, computed) = match rows.next_if(|r| r.block == p.block) {
                    Some(r) => (r.status, r.stored, r.computed),
                    None => {
                        let (status, computed) = fine(p, verdict.checksums_disabled);
                        (status, p.stored, computed)
                    }
                };
                let computed = computed.map_or_else(|| "-".to_owned(), |c| format!("{c:X}"));
                writeln!(
                    self.out,
                    "file \"{path}\", block {} (relation block {absolute}): {}, stored checksum \
                     {stored:X}, calculated {computed}",
                    p.block,
                    status.as_str()
                )?;
            }
        }
        for f in &verdict.findings {
            if let FileFinding::ReadShort { .. } = f {
                writeln!(self.err, "pgpage: error: {}", f.describe(path))?;
            }
        }
        Ok(())
    }

    /// A page of the verdict, in pg_checksums' and the server's words, then what the core
    /// found about where it belongs.
    fn row(&mut self, path: &str, row: &PageRow, cx: &Places) -> io::Result<()> {
        let (block, stored) = (row.block, row.stored);
        match (row.status, row.computed) {
            (PageStatus::Mismatch, Some(computed)) => {
                // pg_checksums.c: scan_file's message, word for word.
                writeln!(
                    self.err,
                    "pgpage: error: {}",
                    pgpage::damage::messages::pg_checksums_failure(path, block, computed, stored)
                )?;
            }
            (PageStatus::NewNotZero, _) => writeln!(
                self.err,
                "pgpage: error: page verification failed in file \"{path}\", block {block}: \
                 pd_upper is 0 but the page is not all zeros"
            )?,
            (PageStatus::BadHeader, computed) => {
                let rules: Vec<&str> = row
                    .findings
                    .iter()
                    .filter(|f| f.evidence() == pgpage::findings::Evidence::Server)
                    .map(|f| f.message())
                    .collect();
                let rules = rules.join("; ");
                match computed {
                    Some(_) => writeln!(
                        self.err,
                        "pgpage: error: page verification failed in file \"{path}\", block {block}: \
                         checksum {stored:X} is correct but the page header is invalid: {rules}"
                    )?,
                    None => writeln!(
                        self.err,
                        "pgpage: error: page verification failed in file \"{path}\", block {block}: \
                         the page header is invalid: {rules}"
                    )?,
                }
            }
            // An all-zero page the index's links reach: its access method refuses it on
            // every read (with --amcheck, said with the structural findings).
            (PageStatus::Zero, _) if !cx.amcheck => {
                let refused: Vec<_> = row
                    .structure
                    .iter()
                    .filter(|s| s.finding.evidence() == pgpage::findings::Evidence::Server)
                    .collect();
                // The server's message quotes the relation's name: the catalogs', where the
                // file lies in a data directory whose catalogs name it (read only here).
                let named = match refused.as_slice() {
                    [] => None,
                    _ => crate::heapctx::heap_source(cx.file).map(|s| s.relname().to_owned()),
                };
                let relation = named.as_deref().unwrap_or(path);
                for s in refused {
                    writeln!(
                        self.err,
                        "pgpage: error: file \"{path}\", block {block}: {}",
                        s.message_at(row.absolute_block, relation)
                    )?;
                    if let Some(hint) = s.finding.server_hint() {
                        writeln!(self.err, "pgpage: hint: {hint}")?;
                    }
                }
            }
            _ => {}
        }
        match row.misplaced {
            Some(m) if m.is_claim() => writeln!(
                self.err,
                "pgpage: hint: file \"{path}\", block {block}: {}",
                cx.fill(m.finding, &m)
            )?,
            Some(m) => {
                if let Some(chance) = m.chance.filter(|c| c.probability < CANDIDATE_HINT_BELOW) {
                    writeln!(
                        self.err,
                        "pgpage: hint: file \"{path}\", block {block}: {} ({:.4} chance matches \
                         expected in the {} blocks searched)",
                        cx.fill(m.finding, &m),
                        chance.expected,
                        chance.searched
                    )?;
                }
            }
            None => {
                if let Some(t) = row
                    .tuple_block
                    .filter(|_| row.findings.contains(&Finding::HeapTidOtherBlock))
                {
                    writeln!(
                        self.err,
                        "pgpage: warning: file \"{path}\", block {block}: {}",
                        cx.fill_block(Finding::HeapTidOtherBlock.message(), t)
                    )?;
                }
            }
        }
        Ok(())
    }

    /// What the relation's `_vm` and `_fsm` say wrong of the file's pages: VACUUM's warning
    /// per page, in the server's words with the relation's path and relation-wide block;
    /// the notes (maps the server corrects on its own) once per finding with the blocks.
    /// Neither counts for the exit status: the server reads every such page.
    fn map_findings(&mut self, job: &FileJob, verdict: &FileVerdict) -> io::Result<()> {
        let path = &job.display;
        // The relation is named by its segment 0's path, as relpath() names it.
        let relation = match path.rsplit_once('.') {
            Some((r, seg)) if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) => r,
            _ => path.as_str(),
        };
        for f in forks::FINDINGS {
            let rows: Vec<&PageRow> = verdict
                .pages
                .iter()
                .filter(|r| r.findings.contains(&f))
                .collect();
            let Some(first_row) = rows.first() else {
                continue;
            };
            if f.evidence() != Evidence::Note {
                for r in &rows {
                    let message = f.message().replacen("%s", relation, 1).replacen(
                        "%u",
                        &r.absolute_block.to_string(),
                        1,
                    );
                    writeln!(
                        self.err,
                        "pgpage: warning: file \"{path}\", block {}: {message}",
                        r.block
                    )?;
                }
                continue;
            }
            // The maps' notes (hints the server corrects on its own, common in any live
            // cluster) are said with --all only, as the JSON lists them: pg_checksums' plain
            // output stays what a script expects.
            if !self.options.all {
                continue;
            }
            const LISTED: usize = 10;
            let blocks: Vec<String> = rows
                .iter()
                .take(LISTED)
                .map(|r| r.block.to_string())
                .collect();
            let more = if rows.len() > LISTED { ", ..." } else { "" };
            let what = if rows.len() == 1 {
                format!("block {}", first_row.block)
            } else {
                format!("{} blocks ({}{more})", rows.len(), blocks.join(", "))
            };
            writeln!(
                self.err,
                "pgpage: note: file \"{path}\", {what}: {}",
                f.message()
            )?;
        }
        Ok(())
    }

    /// The structural checks' findings, one line each as pg_amcheck prints them (the
    /// relation named from the catalogs and its relation-wide block, else the file and its
    /// block), then once per index whose item order could not be checked, why.
    fn structure_findings(
        &mut self,
        job: &FileJob,
        verdict: &FileVerdict,
        checked: &Checked,
    ) -> io::Result<()> {
        for row in &verdict.pages {
            for s in &row.structure {
                let place = match &checked.name {
                    Some(name) => format!("{name}, block {}", row.absolute_block),
                    None => format!("file \"{}\", block {}", job.display, row.block),
                };
                let offset = s.item.map(|i| format!(", offset {i}")).unwrap_or_default();
                let relation = checked.relname.as_deref().unwrap_or(job.display.as_str());
                // pg_amcheck's line for amcheck's checks; pgpage's own are said to be its own,
                // so that nobody looks for them in amcheck.
                let own = match s.finding.checker() {
                    Checker::Pgpage => "pgpage: ",
                    Checker::Amcheck | Checker::Server => "",
                };
                writeln!(
                    self.out,
                    "{place}{offset}: {own}{}",
                    s.message_at(row.absolute_block, relation)
                )?;
                // pg_amcheck prints the server's HINT under its ERROR.
                if let Some(hint) = s.finding.server_hint() {
                    writeln!(self.out, "    HINT:  {hint}")?;
                }
            }
        }
        let key: *const Checked = checked;
        if let (Some(why), false) = (&checked.unchecked, self.said_unchecked.contains(&key)) {
            self.said_unchecked.push(key);
            let name = checked.name.as_deref().unwrap_or(job.display.as_str());
            writeln!(
                self.err,
                "pgpage: note: {name}: the order of its items is not checked: {why}"
            )?;
        }
        Ok(())
    }

    /// Prints the summary and returns the exit status.
    pub fn finish(&mut self, clusters: &[Cluster]) -> io::Result<i32> {
        if let Some(progress) = &mut self.progress {
            progress.report(&mut self.err, true)?;
        }
        let c = self.counts;
        if let Some(json) = self.json.take() {
            let checksums = self.checksums_in_progress.then_some(self.checksum_counts);
            json.finish(&mut self.out, self.files, &c, checksums)?;
        } else if self.files > 0 {
            self.err.flush()?;
            // pg_checksums.c: main's summary.
            writeln!(self.out, "Checksum operation completed")?;
            writeln!(self.out, "Files scanned:   {}", self.files)?;
            writeln!(self.out, "Blocks scanned:  {}", c.blocks())?;
            writeln!(self.out, "Bad checksums:  {}", c.mismatch)?;
            // pg_checksums reads it from the one cluster it checks.
            if let [cluster] = clusters {
                if let Some(v) = cluster
                    .trusted()
                    .and_then(|c| c.data_page_checksum_version())
                {
                    writeln!(self.out, "Data checksum version: {v}")?;
                }
            }
            if self.checksums_in_progress {
                let k = &self.checksum_counts;
                writeln!(self.out, "Valid checksums:  {}", k.checksums_valid)?;
                writeln!(
                    self.out,
                    "Checksums not yet valid:  {}",
                    k.checksums_not_yet
                )?;
                if k.checksums_not_yet_nonzero > 0 {
                    writeln!(
                        self.out,
                        "Nonzero checksums wrong for their block:  {}",
                        k.checksums_not_yet_nonzero
                    )?;
                }
            }
            if c.new_not_zero > 0 {
                writeln!(self.out, "New pages not all zeros:  {}", c.new_not_zero)?;
            }
            if c.bad_header > 0 {
                writeln!(self.out, "Bad page headers:  {}", c.bad_header)?;
            }
            if self.truncated > 0 {
                writeln!(self.out, "Files with trailing bytes:  {}", self.truncated)?;
            }
            if self.structural_pages > 0 {
                writeln!(
                    self.out,
                    "Pages with structural findings:  {}",
                    self.structural_pages
                )?;
            }
            for cluster in clusters {
                writeln!(self.out, "{}", cluster.describe())?;
            }
            self.out.flush()?;
            if self.checksums_in_progress {
                let k = &self.checksum_counts;
                let kind = if k.checksums_not_yet_nonzero > 0 {
                    "warning"
                } else {
                    "note"
                };
                writeln!(self.err, "pgpage: {kind}: {}", k.describe())?;
            }
        }
        self.err.flush()?;
        self.out.flush()?;
        Ok(if self.cannot_run {
            2
        } else if c.problems() > 0 || self.truncated > 0 || self.structural_pages > 0 {
            1
        } else {
            0
        })
    }
}

/// A page the verdict does not list is fine as the server reads it: a mismatch there is one
/// of a cluster with checksums off, whose checksum the server never computes, or of one
/// changing them, whose checksum is computed but not verified (its header is sane).
fn fine(p: &ListedPage, checksums_off: bool) -> (PageStatus, Option<u16>) {
    match p.status {
        PageStatus::Zero => (PageStatus::Zero, None),
        _ if checksums_off => (PageStatus::Ok, None),
        _ => (PageStatus::Ok, p.computed),
    }
}

/// Where the file sits in its relation, to name the blocks a finding points at.
struct Places<'j> {
    /// The file, to name its relation from the catalogs where a message quotes it.
    file: &'j std::path::Path,
    segno: u32,
    first: u32,
    blocks: u32,
    /// `--amcheck`: the structural findings are printed as pg_amcheck prints them.
    amcheck: bool,
}

impl Places<'_> {
    /// A relation-wide block as a human finds it: in this file, or in another segment.
    fn name(&self, absolute: u32, m: Option<&Misplaced>) -> String {
        match m {
            Some(m) if m.segno != self.segno => {
                format!("block {} of segment {}", m.block_in_segment, m.segno)
            }
            Some(m) => format!("block {} of this file", m.block_in_segment),
            None => format!("relation block {absolute}"),
        }
    }

    fn fill(&self, finding: Finding, m: &Misplaced) -> String {
        finding
            .message()
            .replacen("block %u", &self.name(m.block, Some(m)), 1)
    }

    fn fill_block(&self, message: &str, absolute: u32) -> String {
        let name = match absolute
            .checked_sub(self.first)
            .filter(|&b| b < self.blocks)
        {
            Some(within) => format!("block {within} of this file"),
            None => self.name(absolute, None),
        };
        message.replacen("block %u", &name, 1)
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
