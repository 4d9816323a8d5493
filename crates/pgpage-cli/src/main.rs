//! `pgpage`: argument parsing and printing over the pgpage core (docs/contracts.md). Each
//! subcommand lives in its own module and returns the process exit status.
// Tests compute offsets and sizes freely; clippy.toml opens the other panicking lints to them.
#![cfg_attr(test, allow(clippy::arithmetic_side_effects))]

mod args;
mod control;
mod diff;
mod fail;
mod fpi;
mod generate;
mod heapctx;
mod input;
mod inspect;
mod ls;
mod recover;
mod repair;
mod report;
mod rows;
mod serve;
mod table;
mod verify;
mod wal;

use clap::error::ErrorKind;
use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "pgpage",
    version = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("PGPAGE_COMMIT"), ")"),
    about = "Verify and inspect PostgreSQL relation files"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Verify page checksums and headers of relation files or whole data directories.
    Verify(verify::VerifyArgs),
    /// Decode the pages of one relation file as pageinspect shows them.
    Inspect(inspect::InspectArgs),
    /// Decode global/pg_control as pg_controldata and the pg_control_*() functions show it.
    Control(control::ControlArgs),
    /// List every relation of a data directory, named from its catalogs, with its files.
    Ls(ls::LsArgs),
    /// Print the visible rows of a table's files as COPY prints them (CSV, text or JSON).
    Rows(rows::RowsArgs),
    /// Compare two copies of a relation file (or two data directories) page by page.
    Diff(diff::DiffArgs),
    /// Write a repaired copy of a relation file (one block from a good copy, a page file or
    /// a bit flipped back, checksum recomputed), or say what pg_surgery and the server's
    /// settings would do with the damaged page.
    Repair(repair::RepairArgs),
    /// List the full-page images in WAL segments; write them as pg_waldump --save-fullpage.
    Fpi(fpi::FpiArgs),
    /// List WAL records one line each as pg_waldump prints them (or as JSON), optionally
    /// those of one relation or block, between two LSNs.
    Wal(wal::WalArgs),
    /// Rebuild blocks from WAL as the server's recovery would write them (heap, its maps and
    /// B-tree indexes; other records are named, their blocks not written).
    Recover(recover::RecoverArgs),
    /// The incident report: damaged relations and blocks, what happened to each, the rows
    /// lost and readable, and the steps to take, in order.
    Report(report::ReportArgs),
    /// Serve the browser app this binary carries on 127.0.0.1, offline; the files opened in it
    /// stay in the browser.
    Serve(serve::ServeArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish) or the man page.
    Generate(generate::GenerateArgs),
}

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // --help and --version (stdout, exit 0), and the help a bare `pgpage` asks for.
        Err(e)
            if !e.use_stderr()
                || e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand =>
        {
            e.exit()
        }
        Err(e) => {
            eprintln!("pgpage: error: {}", one_line(&e));
            std::process::exit(2);
        }
    };
    let status = match &cli.command {
        Command::Verify(args) => verify::run(args),
        Command::Inspect(args) => inspect::run(args),
        Command::Control(args) => control::run(args),
        Command::Ls(args) => ls::run(args),
        Command::Rows(args) => rows::run(args),
        Command::Diff(args) => diff::run(args),
        Command::Repair(args) => repair::run(args),
        Command::Fpi(args) => fpi::run(args),
        Command::Report(args) => report::run(args),
        Command::Wal(args) => wal::run(args),
        Command::Recover(args) => recover::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Generate(args) => generate::run::<Cli>(args),
    };
    std::process::exit(status);
}

/// A usage error in the one line docs/contracts.md ("Exit status") promises for exit status 2:
/// clap's message with its details (possible values, the usage) on the same line, without clap's
/// "error: " and its pointer to --help, which the line ends with instead.
fn one_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut line = String::new();
    for part in text.lines().map(str::trim) {
        if part.is_empty() || part.starts_with("For more information") {
            continue;
        }
        match part.strip_prefix("Usage:") {
            Some(usage) => line.push_str(&format!("; usage:{usage}")),
            None if line.is_empty() => line.push_str(part.strip_prefix("error: ").unwrap_or(part)),
            None => line.push_str(&format!(" {part}")),
        }
    }
    format!("{line} (try --help)")
}
