//! Opening the files the user names or a walk finds: read-only, and never blocking.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Opens a regular file read-only, refusing anything else. What the path names is looked at
/// first, so a FIFO or a device is never opened (opening one can block or act). The open
/// itself uses O_NONBLOCK (no effect on a regular file) and what it found is looked at again,
/// so a FIFO swapped in after that first look cannot hang a thread either.
pub fn open_regular(path: &Path) -> io::Result<File> {
    regular(&fs::metadata(path)?)?;
    open_nonblocking(path)
}

/// The open of `open_regular`, without the first look: what a swap would meet.
fn open_nonblocking(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    regular(&file.metadata()?)?;
    Ok(file)
}

fn regular(meta: &fs::Metadata) -> io::Result<()> {
    if meta.is_file() {
        Ok(())
    } else if meta.is_dir() {
        Err(io::Error::from(io::ErrorKind::IsADirectory))
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn a_fifo_is_refused_at_once_a_file_opened_a_directory_named() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("16385");
        let c = CString::new(fifo.as_os_str().as_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates the node.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let e = open_regular(&fifo).expect_err("a FIFO is not a relation file");
        assert_eq!(e.to_string(), "not a regular file");
        // A FIFO swapped in after the first look: without O_NONBLOCK this open would wait
        // for a writer forever. It runs on a thread so that such a regression fails the test
        // instead of hanging it.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || tx.send(open_nonblocking(&fifo).map(drop)));
        let e = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("the open returns for a FIFO")
            .expect_err("a FIFO is not a relation file");
        assert_eq!(e.to_string(), "not a regular file");
        let e = open_regular(dir.path()).expect_err("a directory is not a relation file");
        assert_eq!(e.kind(), io::ErrorKind::IsADirectory);
        let file = dir.path().join("16386");
        std::fs::write(&file, [7u8; 3]).unwrap();
        let mut got = Vec::new();
        io::Read::read_to_end(&mut open_regular(&file).unwrap(), &mut got).unwrap();
        assert_eq!(got, [7u8; 3]);
    }
}
