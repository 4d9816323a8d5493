//! Opening and reading the files the user names or a walk finds: read-only, never blocking
//! on what is not a regular file, and saying how much a read got when a file ends early.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

use pgpage::file::DETECT_HEAD_BYTES;

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

/// Fills `buf` from `offset` with pread; returns how much was read and the error, if any,
/// that stopped it short of the end of the file. Fewer bytes without an error means the file
/// ended first: past its length as it was when the read was planned, it shrank meanwhile.
pub fn read_full_at(file: &File, buf: &mut [u8], offset: u64) -> (usize, Option<io::Error>) {
    let mut done = 0usize;
    while let Some(rest) = buf.get_mut(done..).filter(|r| !r.is_empty()) {
        match file.read_at(rest, offset.saturating_add(done as u64)) {
            Ok(0) => break,
            Ok(n) => done = done.saturating_add(n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return (done, Some(e)),
        }
    }
    (done, None)
}

/// The alignment of read buffers: a memory page.
const PAGE_ALIGN: usize = 4096;

/// A read buffer starting on a memory page. The kernel copies page cache pages into such a
/// buffer at four times the speed it copies into one that is not page aligned, and malloc's
/// large blocks start 16 bytes into a page (bench/NOTES.md).
pub struct AlignedBuf {
    backing: Vec<u8>,
    skip: usize,
    len: usize,
}

impl AlignedBuf {
    pub fn new(len: usize) -> AlignedBuf {
        let backing = vec![0u8; len.saturating_add(PAGE_ALIGN)];
        let skip = backing.as_ptr().align_offset(PAGE_ALIGN).min(PAGE_ALIGN);
        AlignedBuf { backing, skip, len }
    }

    pub fn as_mut(&mut self) -> &mut [u8] {
        self.backing
            .get_mut(self.skip..)
            .and_then(|b| b.get_mut(..self.len))
            .unwrap_or_default()
    }
}

/// The head of a file of `len` bytes that the core's file_geometry looks at.
pub fn read_head(file: &File, len: u64) -> io::Result<Vec<u8>> {
    let want = usize::try_from(len).map_or(DETECT_HEAD_BYTES, |n| n.min(DETECT_HEAD_BYTES));
    let mut head = vec![0u8; want];
    match read_full_at(file, &mut head, 0) {
        (_, Some(e)) => Err(e),
        (got, None) => {
            head.truncate(got);
            Ok(head)
        }
    }
}

#[cfg(test)]
mod tests {
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
