//! `pgpage report`: the incident report (docs/contracts.md, "report, the incident report"). The
//! core's `ReportReader` asks for byte ranges of the data directory's files (or of relation files
//! given alone) and this module reads them from disk; the core classifies, counts and words
//! everything, and this module prints it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use pgpage::damage::report::{
    flushed_redo, markdown, summary, text, BackupInput, Report, ReportReader, Request,
};
use pgpage::wal::{BlockHistory, FlushedChanges};

use crate::args::io_reason;
use crate::fpi::{read_history, read_records};
use crate::heapctx::data_directory;
use crate::input::{open_regular, read_full_at};
use crate::ls::Ls;

#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    /// Print the report as JSON (docs/contracts.md, "report, the incident report").
    #[arg(long, conflicts_with_all = ["markdown", "summary"])]
    pub json: bool,
    /// Print a summary in Markdown, short enough for a mailing-list post: the verdict, the
    /// cluster, the damaged blocks' table and each block's one line (attach the whole report).
    #[arg(long, conflicts_with = "markdown")]
    pub summary: bool,
    /// Print the report as Markdown, to paste into a mailing-list post or a ticket.
    #[arg(long)]
    pub markdown: bool,
    /// Leave row data out, to share the report where the rows may not go: the values of
    /// bit-flip candidates and every key named (lost rows, stale versions, a backup's), which
    /// are counted instead. Names, blocks, offsets and counts stay.
    #[arg(long)]
    pub redact: bool,
    /// WAL segment files or directories, for full-page images of the damaged blocks (a data
    /// directory's own pg_wal is read without it).
    #[arg(long, value_name = "WAL")]
    pub wal: Vec<PathBuf>,
    /// A base backup's data directory, or its copy of the damaged relation file: each damaged
    /// block's page there is judged (checksum, pd_lsn against the damaged page's).
    #[arg(long, value_name = "BACKUP")]
    pub from: Option<PathBuf>,
    /// A data directory, or relation files.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
}

pub fn run(args: &ReportArgs) -> i32 {
    let gathered = gather(&args.paths, true, &args.wal).and_then(|(mut report, root)| {
        if let Some(from) = &args.from {
            let pages = read_backup(from, &report, root.as_deref())?;
            report.set_backup(&pages);
        }
        if !args.wal.is_empty() {
            let mut history = BlockHistory::of_blocks(report.wal_blocks());
            let version = read_history(&args.wal, &mut history)?;
            report.wal_given = args.wal.iter().map(|w| w.display().to_string()).collect();
            report.set_wal(&history, version);
        } else if let Some(own) = root
            .as_deref()
            .map(|r| r.join("pg_wal"))
            .filter(|w| w.is_dir() && report.damaged())
        {
            // The data directory's own WAL, as the browser reads it when the directory is
            // dropped: what changed a damaged block after a backup or an image is there, and a
            // report without it would judge them by pd_lsn alone. Unreadable, it is said and
            // the report goes on.
            let mut history = BlockHistory::of_blocks(report.wal_blocks());
            match read_history(std::slice::from_ref(&own), &mut history) {
                Ok(version) => report.set_wal(&history, version),
                Err(e) => eprintln!(
                    "pgpage: note: the data directory's WAL ({}) was not read for the damaged blocks: {e}",
                    own.display()
                ),
            }
        }
        if args.redact {
            report.redact();
        }
        Ok(report)
    });
    match gathered {
        Ok(report) => {
            let out = if args.json {
                match serde_json::to_string_pretty(&report) {
                    Ok(s) => s + "\n",
                    Err(e) => {
                        eprintln!("pgpage: error: {e}");
                        return 2;
                    }
                }
            } else if args.markdown {
                markdown(&report)
            } else if args.summary {
                summary(&report)
            } else {
                text(&report)
            };
            // A reader that stops early (`| head`) closes the pipe: as every command, the
            // report then stops without a word (run_to_stdout), never with a panic.
            // A report read while the server runs is not the storage's word: never "all is well".
            let status = i32::from(report.damaged() || report.cluster.running);
            crate::fail::run_to_stdout("", |w| {
                std::io::Write::write_all(w, out.as_bytes())
                    .map(|()| status)
                    .map_err(crate::fail::Fail::Io)
            })
        }
        Err(e) => {
            eprintln!("pgpage: error: {e}");
            2
        }
    }
}

/// The report of the paths given, read by the core's `ReportReader` from disk, and the data
/// directory the paths in it are relative to (None for relation files outside any).
/// `own_wal`: hold the data directory's pages against its own WAL (`flushed`), and `wal`
/// (an archive given beside it).
pub(crate) fn gather(
    paths: &[PathBuf],
    own_wal: bool,
    wal: &[PathBuf],
) -> Result<(Report, Option<PathBuf>), String> {
    let mut dirs: BTreeMap<PathBuf, Option<Vec<String>>> = BTreeMap::new();
    let mut loose: Vec<PathBuf> = Vec::new();
    for p in paths {
        let meta = fs::metadata(p)
            .map_err(|e| format!("could not stat \"{}\": {}", p.display(), io_reason(&e)))?;
        if meta.is_dir() {
            if !p.join("PG_VERSION").is_file() {
                return Err(format!(
                    "\"{}\" is not a data directory (no PG_VERSION): give a data directory or relation files",
                    p.display()
                ));
            }
            dirs.insert(p.clone(), None);
        } else {
            match data_directory(p) {
                Some((root, inside)) => {
                    if let Some(set) = dirs.entry(root).or_insert_with(|| Some(Vec::new())) {
                        set.push(inside.to_string_lossy().into_owned());
                    }
                }
                None => loose.push(p.clone()),
            }
        }
    }
    let reader = match (dirs.len(), dirs.into_iter().next()) {
        (1, Some(_)) if !loose.is_empty() => {
            return Err(String::from(
                "report reads one data directory, or relation files outside any: not both",
            ))
        }
        (1, Some((root, only))) => {
            let ls = Ls::open(&root)?;
            let mut files: Vec<String> = ls.paths();
            files.push(String::from("PG_VERSION"));
            // Its presence, with pg_control's state, says the server may be running.
            if root.join("postmaster.pid").is_file() {
                files.push(String::from("postmaster.pid"));
            }
            let listed = files
                .into_iter()
                .map(|p| {
                    let len = fs::metadata(root.join(&p)).map_or(0, |m| m.len());
                    (p, len)
                })
                .collect();
            let mut reader = ReportReader::new(listed, only, &format!("{}/", ls.display));
            if own_wal {
                if let Some(f) = flushed(&root, wal) {
                    reader.set_flushed(Arc::new(f));
                }
            }
            Source {
                root: Some(root),
                reader,
            }
        }
        (0, _) => {
            let listed = loose
                .iter()
                .map(|p| {
                    let len = fs::metadata(p).map_or(0, |m| m.len());
                    (p.to_string_lossy().into_owned(), len)
                })
                .collect();
            Source {
                root: None,
                reader: ReportReader::new(listed, None, ""),
            }
        }
        _ => return Err(String::from(
            "report reads one data directory at a time: give one data directory, or files of one",
        )),
    };
    let root = reader.root.clone();
    Ok((reader.run()?, root))
}

/// What the data directory's own WAL, with any archive given (`extra`: after a clean stop
/// pg_wal holds little more than the last checkpoint), says its latest checkpoint wrote, for
/// the pages older than that (`stale`); None without WAL or where the core's `flushed_redo`
/// refuses. WAL that cannot be read is said and the report goes on without it.
pub(crate) fn flushed(root: &Path, extra: &[PathBuf]) -> Option<FlushedChanges> {
    let own = root.join("pg_wal");
    let mut wal: Vec<PathBuf> = extra.to_vec();
    if own.is_dir() {
        wal.push(own);
    }
    if wal.is_empty() {
        return None;
    }
    let control = fs::read(root.join("global/pg_control")).ok()?;
    let redo = flushed_redo(&control, root.join("backup_label").exists())?;
    let mut changes = FlushedChanges::new(redo);
    match read_records(&wal, &mut |rec| changes.observe(rec)) {
        Ok(_) => Some(changes),
        Err(e) => {
            let shown: Vec<String> = wal.iter().map(|w| w.display().to_string()).collect();
            eprintln!(
                "pgpage: note: the WAL ({}) was not read for pages older than the data directory's latest checkpoint: {e}",
                shown.join(", ")
            );
            None
        }
    }
}

/// Each damaged block's page in the backup: the file at the same path inside the backup's
/// data directory, or the backup's relation file given alone (for the damaged file of the
/// same name, or the only damaged file).
fn read_backup(
    from: &Path,
    report: &Report,
    root: Option<&Path>,
) -> Result<Vec<BackupInput>, String> {
    let meta = fs::metadata(from)
        .map_err(|e| format!("could not stat \"{}\": {}", from.display(), io_reason(&e)))?;
    let block_size = report.cluster.block_size.unwrap_or(8192);
    if !meta.is_dir()
        && (meta.len() == 0 || meta.len().checked_rem(u64::from(block_size)) != Some(0))
    {
        return Err(format!(
            "\"{}\" is not a relation file: its length {} is not a whole number of {block_size}-byte pages",
            from.display(),
            meta.len()
        ));
    }
    let wanted = report.backup_blocks();
    let files: BTreeSet<&str> = wanted.iter().map(|(f, _)| f.as_str()).collect();
    let name = |p: &str| Path::new(p).file_name().map(|n| n.to_os_string());
    let mut out = Vec::new();
    for (file, block) in &wanted {
        let path = if meta.is_dir() {
            if !from.join("PG_VERSION").is_file() {
                return Err(format!(
                    "\"{}\" is not a data directory (no PG_VERSION): give the backup's data directory or its copy of the relation file",
                    from.display()
                ));
            }
            if root.is_none() {
                return Err(String::from(
                    "a backup's data directory serves a report of a data directory (or of files inside one): give the backup's relation file instead",
                ));
            }
            from.join(file)
        } else if files.len() == 1 || name(file) == from.file_name().map(|n| n.to_os_string()) {
            from.to_path_buf()
        } else {
            continue;
        };
        let shown = path.display().to_string();
        let absent = !path.exists();
        let page = read_page(&path, *block, block_size)
            .map_err(|e| format!("could not read file \"{shown}\": {e}"));
        out.push(BackupInput {
            file: file.clone(),
            block_in_file: *block,
            shown,
            page,
            absent,
        });
    }
    if out.is_empty() && !wanted.is_empty() {
        return Err(format!(
            "the backup file \"{}\" has the name of none of the damaged files ({}): give the backup's data directory, or its copy of one damaged file",
            from.display(),
            files.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    Ok(out)
}

/// One block of a file; None when the file is absent or does not reach it.
fn read_page(path: &Path, block: u32, block_size: u32) -> Result<Option<Vec<u8>>, String> {
    let f = match open_regular(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_reason(&e)),
    };
    // A copy shorter than the block simply does not reach it.
    let mut buf = vec![0u8; block_size as usize];
    let (got, err) = read_full_at(
        &f,
        &mut buf,
        u64::from(block).saturating_mul(u64::from(block_size)),
    );
    if let Some(e) = err {
        return Err(io_reason(&e));
    }
    Ok((got == buf.len()).then_some(buf))
}

/// The core's reader and where its paths are on disk.
struct Source {
    root: Option<PathBuf>,
    reader: ReportReader,
}

impl Source {
    fn run(mut self) -> Result<Report, String> {
        loop {
            let wanted = self.reader.wanted();
            if wanted.is_empty() {
                break;
            }
            for rq in wanted {
                let bytes = self.read(&rq);
                self.reader.give(&rq, bytes);
            }
        }
        self.reader.finish()
    }

    fn read(&self, rq: &Request) -> Result<Vec<u8>, String> {
        let path = match &self.root {
            Some(root) => root.join(&rq.path),
            None => PathBuf::from(&rq.path),
        };
        let shown = match &self.root {
            Some(root) => format!("{}/{}", root.display(), rq.path),
            None => rq.path.clone(),
        };
        let reason =
            |e: &std::io::Error| format!("could not read file \"{shown}\": {}", io_reason(e));
        let f = open_regular(&path).map_err(|e| reason(&e))?;
        let mut buf = vec![0u8; usize::try_from(rq.len).unwrap_or(0)];
        let (got, err) = read_full_at(&f, &mut buf, rq.offset);
        if let Some(e) = err {
            return Err(reason(&e));
        }
        buf.truncate(got);
        Ok(buf)
    }
}
