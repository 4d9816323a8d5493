//! The lines PostgreSQL's own tools print about a page they refuse, word for word, so a user
//! can paste pgpage's where theirs would appear (held against each server's words in
//! tests/pg). Hex and decimal, quoting and levels differ by tool and by version.

use alloc::format;
use alloc::string::String;

use crate::page::verify::PageStatus;

/// pg_checksums.c scan_file's failure, after the program's `pg_checksums: error: ` prefix:
/// the block within the file, both checksums in upper-case hex.
pub fn pg_checksums_failure(path: &str, block_in_file: u32, computed: u16, stored: u16) -> String {
    format!(
        "checksum verification failed in file \"{path}\", block {block_in_file}: \
         calculated checksum {computed:X} but block contains {stored:X}"
    )
}

/// The server reading the page: bufpage.c PageIsVerified's WARNING (a checksum mismatch
/// only) and bufmgr.c's ERROR with the relation-wide block and relpath() (no segment).
/// PostgreSQL 18 reads through its AIO path: the checksum failure is logged at LOG level,
/// which a client does not see by default, and the ERROR quotes the path. `major` None: the
/// cluster's version is not known, and the lines of 13 to 17 are given.
pub fn server_read_lines(
    relpath: &str,
    absolute_block: u32,
    status: PageStatus,
    computed: Option<u16>,
    stored: u16,
    major: Option<u32>,
) -> String {
    server_lines(
        relpath,
        absolute_block,
        status,
        computed,
        stored,
        major,
        false,
    )
}

/// Both the refusal and the zeroing: the same checksum WARNING before, then bufmgr.c's line
/// (`zeroed`: its WARNING with "; zeroing out page", else its ERROR).
fn server_lines(
    relpath: &str,
    absolute_block: u32,
    status: PageStatus,
    computed: Option<u16>,
    stored: u16,
    major: Option<u32>,
    zeroed: bool,
) -> String {
    let aio = !server_warns_checksums(major);
    let mut out = String::new();
    if let (PageStatus::Mismatch, Some(computed), false) = (status, computed, aio) {
        out.push_str(&format!(
            "WARNING:  page verification failed, calculated checksum {computed} but expected {stored}\n"
        ));
    }
    let rel = if aio {
        format!("\"{relpath}\"")
    } else {
        String::from(relpath)
    };
    if zeroed {
        out.push_str(&format!(
            "WARNING:  invalid page in block {absolute_block} of relation {rel}; zeroing out page"
        ));
    } else {
        out.push_str(&format!(
            "ERROR:  invalid page in block {absolute_block} of relation {rel}"
        ));
    }
    out
}

/// The server reading a page it may zero (a visibility or free space map page, read with
/// RBM_ZERO_ON_ERROR; any page under zero_damaged_pages): bufmgr.c's WARNING in place of
/// the ERROR, the page zeroed in memory.
pub fn server_zero_lines(
    relpath: &str,
    absolute_block: u32,
    status: PageStatus,
    computed: Option<u16>,
    stored: u16,
    major: Option<u32>,
) -> String {
    server_lines(
        relpath,
        absolute_block,
        status,
        computed,
        stored,
        major,
        true,
    )
}

/// Whether a client reading a page with a checksum mismatch gets PageIsVerified's WARNING
/// with both checksums in decimal: before 18's AIO path logs it at LOG level instead.
pub fn server_warns_checksums(major: Option<u32>) -> bool {
    major.is_none_or(|m| m < 18)
}

/// basebackup.c (PostgreSQL 15) sendFile's per-block warning, the path as the backup names
/// it (`./` and the segment's suffix).
pub fn pg_basebackup_warning(path: &str, block_in_file: u32, computed: u16, stored: u16) -> String {
    let path = path.strip_prefix("./").unwrap_or(path);
    format!(
        "WARNING:  checksum verification failed in file \"./{path}\", block {block_in_file}: \
         calculated {computed:X} but expected {stored:X}"
    )
}
