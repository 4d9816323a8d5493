//! pgpage's structural findings on a whole relation file, as the amcheck-family tests hold
//! them against the server: every page decoded with the index's key columns, and the file
//! scan (the B-tree walk among it).

use std::collections::HashSet;

use pgpage::am::decode_page_with;
use pgpage::am::decoded::{DecodeOptions, Hints};
use pgpage::am::kind::file_kind;
use pgpage::am::nbtree::check::KeyColumn;
use pgpage::file::scan::{ChecksumsKnown, FileScan};
use pgpage::file::{file_geometry, GeometryChoice};
use pgpage::findings::Finding;
use pgpage::page::kind::Fork;
use pgpage::Endian;

pub const BLCKSZ: usize = 8192;

/// Every (block, item, finding) the decoder reports on a file's pages, with `keys` as the
/// index's key columns.
pub fn page_findings(
    bytes: &[u8],
    keys: Option<&[KeyColumn]>,
) -> HashSet<(u32, Option<u16>, Finding)> {
    let opts = DecodeOptions {
        file_kind: Some(file_kind(
            Fork::Main,
            bytes.chunks_exact(BLCKSZ),
            Endian::Little,
        )),
        ..DecodeOptions::default()
    };
    let hints = Hints {
        btree_keys: keys,
        ..Hints::default()
    };
    let mut out = HashSet::new();
    for (b, page) in bytes.chunks_exact(BLCKSZ).enumerate() {
        let d = decode_page_with(page, b as u32, &opts, &hints);
        for s in d.problems() {
            out.insert((b as u32, s.item, s.problem.unwrap()));
        }
        for f in &d.findings {
            out.insert((b as u32, None, *f));
        }
    }
    out
}

/// The file scan's findings per block (the B-tree level and parent walk among them).
pub fn file_findings(bytes: &[u8]) -> HashSet<(u32, Finding)> {
    let g = file_geometry(bytes, GeometryChoice::default(), true).unwrap();
    let mut scan = FileScan::new(g, 0, bytes.len() as u64).unwrap();
    scan.chunk(bytes, 0);
    let v = scan.finish(ChecksumsKnown::On);
    v.pages
        .iter()
        .flat_map(|r| r.findings.iter().map(move |f| (r.block, *f)))
        .collect()
}

/// The message of the server's ERROR line in `err` (psql's stderr), or all of it.
pub fn error_message(err: &str) -> String {
    err.lines()
        .find_map(|l| l.strip_prefix("ERROR:  "))
        .unwrap_or(err)
        .to_owned()
}

/// The number right after the first `key` in `text` (a block in amcheck's message or detail).
pub fn number_after(text: &str, key: &str) -> Option<u32> {
    let at = text.find(key)? + key.len();
    text[at..]
        .split(|ch: char| !ch.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}
