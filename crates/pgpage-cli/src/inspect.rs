//! `pgpage inspect`: decode pages of one relation file as pageinspect would show them.

use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct InspectArgs {
    /// Print JSON (CONTRACTS.md `inspect --json`).
    #[arg(long)]
    pub json: bool,
    /// Only this block (numbered within the file).
    #[arg(long)]
    pub block: Option<u32>,
    /// Page kind instead of the detected one.
    #[arg(long)]
    pub kind: Option<String>,
    /// Segment number instead of the one in the file name's `.N` suffix.
    #[arg(long)]
    pub segment: Option<u32>,
    /// Block size instead of the one detected from pd_pagesize_version.
    #[arg(long)]
    pub block_size: Option<u32>,
    /// Byte order of the server that wrote the file.
    #[arg(long, default_value = "little")]
    pub endian: String,
    pub path: PathBuf,
}

/// Runs the command; returns the exit status.
pub fn run(_args: &InspectArgs) -> i32 {
    eprintln!("pgpage inspect: not built yet");
    2
}
