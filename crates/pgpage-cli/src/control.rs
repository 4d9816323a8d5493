//! `pgpage control`: decode `global/pg_control` (docs/contracts.md, "control --json"), or print it
//! as pg_controldata does. Reads the file read-only; exit 1 when its CRC does not match.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use pgpage::cluster::control::{decode_control, ControlFile, PG_CONTROL_FILE_SIZE};

use crate::input::open_regular;

#[derive(clap::Args, Debug)]
pub struct ControlArgs {
    /// Print one JSON object: the columns of pg_control_system(), _checkpoint(), _init() and
    /// _recovery(), plus `state` and `crc_ok`.
    #[arg(long)]
    pub json: bool,
    /// A data directory or its global/pg_control.
    pub path: PathBuf,
}

/// The file PATH names: the data directory's global/pg_control, or PATH itself.
fn control_path(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join("global").join("pg_control")
    } else {
        path.to_path_buf()
    }
}

/// Runs the command; returns the exit status.
pub fn run(args: &ControlArgs) -> i32 {
    let path = control_path(&args.path);
    let mut bytes = Vec::with_capacity(PG_CONTROL_FILE_SIZE);
    // More than the server writes is read only up to its size: the structure is at the start.
    let read = open_regular(&path).and_then(|f| {
        f.take(PG_CONTROL_FILE_SIZE as u64)
            .read_to_end(&mut bytes)
            .map(|_| ())
    });
    if let Err(e) = read {
        eprintln!(
            "pgpage control: could not open file \"{}\": {}",
            path.display(),
            crate::args::io_reason(&e)
        );
        return 2;
    }
    let control = match decode_control(&bytes) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("pgpage control: \"{}\": {e}", path.display());
            return 2;
        }
    };
    let printed = if args.json {
        print_json(&control)
    } else {
        print_text(&control, &path)
    };
    if let Err(e) = printed {
        if e.kind() != io::ErrorKind::BrokenPipe {
            eprintln!("pgpage control: {e}");
        }
        return 2;
    }
    i32::from(!control.crc_ok())
}

fn print_json(c: &ControlFile) -> io::Result<()> {
    let mut out = io::stdout().lock();
    serde_json::to_writer(&mut out, c)?;
    writeln!(out)
}

fn print_text(c: &ControlFile, path: &Path) -> io::Result<()> {
    let mut out = io::stdout().lock();
    if !c.crc_ok() {
        // pg_controldata's own warning, on stderr as it prints it.
        eprintln!(
            "pgpage control: warning: calculated CRC checksum does not match value stored in control file \"{}\"\n\
             pgpage control: detail: Either the control file is corrupt, or it has a different layout than this program is expecting.  The results below are untrustworthy.",
            path.display()
        );
    }
    out.write_all(c.controldata_text().as_bytes())
}
