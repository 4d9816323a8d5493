//! `pgpage verify`: the paths walked (walk), their files read in large chunks (read) on every
//! core (pool), and what was found printed in input order (report, json). Page status, file
//! names and file geometry are the core's business (pgpage::file).

mod amcheck;
pub mod cluster;
mod json;
mod pool;
mod read;
mod report;
mod walk;

use std::io;
use std::path::PathBuf;

use crate::args::ReadAs;
use pgpage::cluster::control::{state_words, DB_SHUTDOWNED};
use read::{Plan, Reader};
use report::Report;
use walk::WalkOptions;

#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// Print JSON (docs/contracts.md, "verify --json").
    #[arg(long)]
    pub json: bool,
    /// List every page, not only the problem pages.
    #[arg(long)]
    pub all: bool,
    #[command(flatten)]
    pub read_as: ReadAs,
    /// Check only the files of the relation with this filenode, in every database and
    /// tablespace (pg_checksums -f); every PATH must then be a data directory.
    #[arg(short = 'f', long, value_name = "FILENODE")]
    pub filenode: Option<u32>,
    /// Also run amcheck's checks of each page's structure (verify_heapam's, bt_index_check's,
    /// gin_index_check's, the other access methods' page checks), with what a data
    /// directory's catalogs say of each relation, as pg_amcheck does beside pg_checksums;
    /// slower than checksums alone.
    #[arg(long)]
    pub amcheck: bool,
    /// Show progress on stderr, as pg_checksums -P does.
    #[arg(short = 'P', long)]
    pub progress: bool,
    /// Name each file on stderr once it is checked, as pg_checksums -v does.
    #[arg(short, long)]
    pub verbose: bool,
    /// Relation files (16385, 16385.2, 16385_fsm, ...) or directories (a data directory is
    /// walked like pg_checksums: global/, base/, pg_tblspc/).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
}

/// Runs the command; returns the exit status.
pub fn run(args: &VerifyArgs) -> i32 {
    if args.filenode.is_some() {
        // pg_checksums -f selects among a data directory's files; a file or another
        // directory has no such selection to make.
        if let Some(p) = args.paths.iter().find(|p| !walk::is_data_directory(p)) {
            eprintln!(
                "pgpage: error: option -f/--filenode needs data directories, and \"{}\" is not one",
                p.display()
            );
            return 2;
        }
    }
    let walked = walk::expand_all(
        &args.paths,
        WalkOptions {
            segment: args.read_as.segment,
            filenode: args.filenode,
        },
    );
    let (items, clusters) = (&walked.items, &walked.clusters);
    // pg_checksums refuses a running cluster: its pages change while they are read.
    for c in clusters {
        let running = std::path::Path::new(&c.display)
            .join("postmaster.pid")
            .is_file();
        if let Some(control) = c.trusted().filter(|c| running && !matches!(c.state, 1 | 2)) {
            eprintln!(
                "pgpage: warning: the server of \"{}\" looks running (postmaster.pid is there and \
                 pg_control says \"{}\"): its pages change while they are read and its newest \
                 changes may be only in its memory, so a failure below may be a page being \
                 written, and a pass is no proof; stop the server cleanly (or verify a copy \
                 pg_basebackup made) and verify again",
                c.display,
                state_words(control.state)
            );
        }
    }
    let mut plan = Plan::new(items, clusters, args.read_as.geometry_choice(), args.all);
    if args.amcheck {
        plan.checked = amcheck::relations(items);
        // HeapContext::next_known: a standby stopped in recovery, or a cluster that crashed
        // or runs, has pages newer than the checkpoint pg_control keeps.
        for c in clusters {
            if let Some(control) = c.trusted().filter(|c| c.state != DB_SHUTDOWNED) {
                eprintln!(
                    "pgpage: note: cluster \"{}\" is \"{}\": its pages may hold transactions \
                     after the checkpoint its pg_control keeps, so xids and MultiXactIds are \
                     not held against that checkpoint's nextXid and nextMulti",
                    c.display,
                    state_words(control.state)
                );
            }
        }
    }
    let options = report::Options {
        json: args.json,
        all: args.all,
        verbose: args.verbose,
        progress: args.progress,
    };
    let total_bytes = items
        .iter()
        .fold(0u64, |n, i| n.saturating_add(i.file_len()));
    let stdout = io::stdout();
    let stderr = io::stderr();
    let mut report = Report::new(options, stdout.lock(), stderr.lock(), total_bytes);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let printed = pool::run(
        plan.batches.len(),
        threads,
        Reader::new,
        |reader, index| plan.work(reader, index),
        |handover| report.consume(handover, &plan),
    );
    // Output closed (a pipe to `head`) or full: nothing more can be said.
    printed.and_then(|()| report.finish(clusters)).unwrap_or(2)
}
