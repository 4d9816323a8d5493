//! `pgpage report`: the incident report (CONTRACTS.md "The incident report"). The core's
//! `ReportReader` asks for byte ranges of the data directory's files (or of relation files
//! given alone) and this module reads them from disk; the core classifies, counts and words
//! everything, and this module prints it.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

use pgpage::report::{markdown, text, Report, ReportReader, Request};
use pgpage::wal::BlockHistory;

use crate::args::io_reason;
use crate::fpi::read_history;
use crate::heapctx::data_directory;
use crate::input::{open_regular, read_full_at};
use crate::ls::Ls;

#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    /// Print the report as JSON (CONTRACTS.md).
    #[arg(long, conflicts_with = "markdown")]
    pub json: bool,
    /// Print the report as Markdown, to paste into a mailing-list post or a ticket.
    #[arg(long)]
    pub markdown: bool,
    /// WAL segment files or directories, for full-page images of the damaged blocks.
    #[arg(long, value_name = "WAL")]
    pub wal: Vec<PathBuf>,
    /// A base backup's data directory or the relation file from it.
    #[arg(long, value_name = "BACKUP")]
    pub from: Option<PathBuf>,
    /// A data directory, or relation files.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
}

pub fn run(args: &ReportArgs) -> i32 {
    if args.from.is_some() {
        eprintln!(
            "pgpage: error: report does not read --from yet: run pgpage diff BACKUP_FILE FILE, or pgpage repair --block N --from BACKUP_FILE, for the blocks the report names"
        );
        return 2;
    }
    let gathered = gather(&args.paths).and_then(|mut report| {
        if !args.wal.is_empty() {
            let mut history = BlockHistory::of_blocks(report.wal_blocks());
            read_history(&args.wal, &mut history)?;
            report.set_wal(&history);
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
            } else {
                text(&report)
            };
            print!("{out}");
            i32::from(report.damaged())
        }
        Err(e) => {
            eprintln!("pgpage: error: {e}");
            2
        }
    }
}

/// The report of the paths given, read by the core's `ReportReader` from disk.
fn gather(paths: &[PathBuf]) -> Result<Report, String> {
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
            let listed = files
                .into_iter()
                .map(|p| {
                    let len = fs::metadata(root.join(&p)).map_or(0, |m| m.len());
                    (p, len)
                })
                .collect();
            Source {
                root: Some(root),
                reader: ReportReader::new(listed, only, &format!("{}/", ls.display)),
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
    reader.run()
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
