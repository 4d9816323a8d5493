//! `pgpage`: argument parsing and printing over the pgpage core (CONTRACTS.md). Each
//! subcommand lives in its own module and returns the process exit status.

mod control;
mod input;
mod inspect;
mod verify;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "pgpage",
    version,
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
}

fn main() {
    // clap exits with status 2 on usage errors and 0 for --help and --version.
    let cli = Cli::parse();
    let status = match &cli.command {
        Command::Verify(args) => verify::run(args),
        Command::Inspect(args) => inspect::run(args),
        Command::Control(args) => control::run(args),
    };
    std::process::exit(status);
}
