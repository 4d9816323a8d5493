//! How a command that writes to stdout ends: its exit status, or one line on stderr and
//! exit 2 when it cannot run. A closed pipe (`| head`) ends it quietly.

use std::io::{self, BufWriter, StdoutLock, Write};

pub enum Fail {
    /// Reading or writing failed.
    Io(io::Error),
    /// The input cannot be used: the one line for stderr.
    Input(String),
}

impl From<io::Error> for Fail {
    fn from(e: io::Error) -> Fail {
        Fail::Io(e)
    }
}

/// Runs `body` on a buffered stdout and flushes it; an I/O error is printed after
/// `io_context` (what the command was doing when I/O fails, "" for nothing to add).
pub fn run_to_stdout(
    io_context: &str,
    body: impl FnOnce(&mut BufWriter<StdoutLock<'static>>) -> Result<i32, Fail>,
) -> i32 {
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    match body(&mut out).and_then(|s| out.flush().map(|()| s).map_err(Fail::Io)) {
        Ok(s) => s,
        Err(Fail::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => 2,
        Err(Fail::Io(e)) => {
            eprintln!("pgpage: error: {io_context}{e}");
            2
        }
        Err(Fail::Input(reason)) => {
            eprintln!("pgpage: error: {reason}");
            2
        }
    }
}
