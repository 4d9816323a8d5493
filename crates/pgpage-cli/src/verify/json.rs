//! `verify --json` (docs/contracts.md, "verify --json"), written as results arrive: a serde struct
//! for every object, a formatter for the contract's spacing, and the frame around them (the files
//! array one file per line, each written once its verdict is in).

use std::io::{self, Write};

use pgpage::file::scan::{FileFinding, PageRow};
use pgpage::file::{ChecksumCounts, StatusCounts};
use pgpage::findings::Finding;
use pgpage::page::kind::Fork;
use pgpage::{Endian, PageStatus};
use serde::Serialize;
use serde_json::ser::Formatter;

use super::cluster::ClusterJson;

/// One file with its pages.
#[derive(Serialize)]
pub struct FileJson<'a> {
    pub path: &'a str,
    pub segment: u32,
    pub fork: Fork,
    pub block_size: u32,
    /// Added to the contract's keys: the byte order the file was read in, detected or chosen.
    pub endian: Endian,
    pub blocks: u32,
    pub trailing_bytes: u32,
    /// Added: the block size the file's pages claim, when it is not the cluster's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages_block_size: Option<u32>,
    /// Added: findings about the whole file (a short read, checksums off, pages written as
    /// another segment), each with its code, message and values.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<serde_json::Value>,
    /// While checksums change (docs/contracts.md, "During an online checksum change"):
    /// `checksums_valid`, `checksums_not_yet` and (added) `checksums_not_yet_nonzero`.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub checksums: Option<ChecksumCounts>,
    pub pages: Vec<Page>,
}

/// A file finding as JSON: the registry's code and the message with its values filled in,
/// then the values themselves.
pub fn file_finding(f: &FileFinding, path: &str) -> serde_json::Value {
    let mut v = serde_json::to_value(f).unwrap_or_default();
    if let Some(map) = v.as_object_mut() {
        map.insert("code".into(), f.finding().code().into());
        map.insert("message".into(), f.describe(path).into());
    }
    v
}

#[derive(Serialize)]
pub struct Page {
    pub block: u32,
    pub absolute_block: u32,
    pub status: &'static str,
    pub stored: u16,
    /// null for new pages, whose checksum is never computed, and when checksums are off.
    pub computed: Option<u16>,
    /// Where the page was written, when its own tuples or its siblings' links agree with its
    /// checksum (docs/contracts.md, "verify --json"): a block of this file, or of
    /// `matches_segment`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matches_block: Option<u32>,
    /// Added: the segment of `matches_block`, when it is not this file's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matches_segment: Option<u32>,
    /// Added: a block of this file the stored checksum is also valid for, with nothing else
    /// agreeing, and the odds that chance explains it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidate: Option<Candidate>,
    /// Added: the registry's codes of every finding about the page.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<&'static str>,
    /// Added with `--amcheck`: the structural checks' findings, each with the line pointer
    /// (amcheck's offset) it is about and its message.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub structure: Vec<StructureJson>,
}

#[derive(Serialize)]
pub struct StructureJson {
    pub code: &'static str,
    pub offset: Option<u16>,
    pub message: String,
}

#[derive(Serialize)]
pub struct Candidate {
    /// Block within the file.
    pub block: u32,
    /// Blocks of the file the stored checksum is valid for, and blocks searched.
    pub matches: u32,
    pub searched: u32,
    /// Chance matches expected in the searched blocks (searched / 65535), and the
    /// probability of at least one.
    pub expected_chance_matches: f64,
    pub chance_probability: f64,
}

impl Page {
    /// A page of the file's verdict; `segno` and `first` (the relation-wide number of its
    /// block 0) place the blocks it names.
    /// `relation` is the name amcheck's messages quote (the catalogs', else the file's).
    pub fn of_row(row: &PageRow, segno: u32, first: u32, relation: &str) -> Page {
        let claim = row.claim();
        let candidate = row
            .misplaced
            .filter(|m| !m.is_claim())
            .and_then(|m| Some((m, m.chance?)))
            .map(|(m, chance)| Candidate {
                block: m.block.wrapping_sub(first),
                matches: chance.matches,
                searched: chance.searched,
                expected_chance_matches: chance.expected,
                chance_probability: chance.probability,
            });
        Page {
            block: row.block,
            absolute_block: row.absolute_block,
            status: row.status.as_str(),
            stored: row.stored,
            computed: row.computed,
            matches_block: claim.map(|m| m.block_in_segment),
            matches_segment: claim.map(|m| m.segno).filter(|&s| s != segno),
            candidate,
            findings: row.findings.iter().map(|f| Finding::code(*f)).collect(),
            structure: row
                .structure
                .iter()
                .map(|s| StructureJson {
                    code: s.finding.code(),
                    offset: s.item,
                    message: s.message_at(row.absolute_block, relation),
                })
                .collect(),
        }
    }

    /// A page the verdict does not list: fine as the server reads it.
    pub fn plain(
        block: u32,
        absolute_block: u32,
        status: PageStatus,
        stored: u16,
        computed: Option<u16>,
    ) -> Page {
        Page {
            block,
            absolute_block,
            status: status.as_str(),
            stored,
            computed,
            matches_block: None,
            matches_segment: None,
            candidate: None,
            findings: Vec::new(),
            structure: Vec::new(),
        }
    }
}

#[derive(Serialize)]
struct Summary {
    files: u64,
    blocks: u64,
    ok: u64,
    mismatch: u64,
    zero: u64,
    new_not_zero: u64,
    bad_header: u64,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    checksums: Option<ChecksumCounts>,
}

/// The contract's spacing: `"key": value` and `, ` between members and elements, which
/// serde_json's compact formatter writes as `:` and `,`.
struct Spaced;

impl Formatter for Spaced {
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            w.write_all(b", ")
        }
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            w.write_all(b", ")
        }
    }
}

fn write_value(out: &mut impl Write, value: &impl Serialize) -> io::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(out, Spaced);
    value.serialize(&mut ser).map_err(io::Error::from)
}

/// Where the document is: which separators come next.
#[derive(Default)]
pub struct JsonStream {
    files: u64,
}

impl JsonStream {
    /// Opens the document; `checksum_state` is the first data directory's (docs/contracts.md,
    /// "During an online checksum change"), `clusters` (an addition to the contract's keys)
    /// the data directories walked, listed when there are any.
    pub fn begin(
        out: &mut impl Write,
        checksum_state: Option<&str>,
        clusters: &[ClusterJson],
    ) -> io::Result<JsonStream> {
        out.write_all(b"{")?;
        if let Some(state) = checksum_state {
            out.write_all(b"\"checksum_state\": ")?;
            write_value(out, &state)?;
            out.write_all(b", ")?;
        }
        if !clusters.is_empty() {
            out.write_all(b"\"clusters\": ")?;
            write_value(out, &clusters)?;
            out.write_all(b", ")?;
        }
        out.write_all(b"\"files\": [")?;
        Ok(JsonStream::default())
    }

    pub fn file(&mut self, out: &mut impl Write, file: &FileJson) -> io::Result<()> {
        out.write_all(if self.files == 0 { b"\n" } else { b",\n" })?;
        self.files = self.files.saturating_add(1);
        write_value(out, file)
    }

    /// The summary; `checksums` while checksums change.
    pub fn finish(
        self,
        out: &mut impl Write,
        files: u64,
        c: &StatusCounts,
        checksums: Option<ChecksumCounts>,
    ) -> io::Result<()> {
        out.write_all(b"\n], \"summary\": ")?;
        write_value(
            out,
            &Summary {
                files,
                blocks: c.blocks(),
                ok: c.ok,
                mismatch: c.mismatch,
                zero: c.zero,
                new_not_zero: c.new_not_zero,
                bad_header: c.bad_header,
                checksums,
            },
        )?;
        out.write_all(b"}\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_contract_bytes() {
        let mut out = Vec::new();
        let mut s = JsonStream::begin(&mut out, None, &[]).unwrap();
        let page = |block, computed, matches_block| Page {
            matches_block,
            ..Page::plain(block, 262_144 + block, PageStatus::Mismatch, 981, computed)
        };
        let file = |path, pages| FileJson {
            path,
            segment: 2,
            fork: Fork::Main,
            block_size: 8192,
            endian: Endian::Little,
            blocks: 331,
            trailing_bytes: 0,
            pages_block_size: None,
            findings: Vec::new(),
            checksums: None,
            pages,
        };
        s.file(
            &mut out,
            &file(
                "base/5/16427.2",
                vec![page(0, Some(985), Some(4)), page(1, None, None)],
            ),
        )
        .unwrap();
        s.file(&mut out, &file("a \"quoted\"\npath", Vec::new()))
            .unwrap();
        let counts = StatusCounts {
            ok: 1,
            mismatch: 331,
            ..StatusCounts::default()
        };
        s.finish(&mut out, 2, &counts, None).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"files\": [\n\
             {\"path\": \"base/5/16427.2\", \"segment\": 2, \"fork\": \"main\", \"block_size\": 8192, \
             \"endian\": \"little\", \"blocks\": 331, \"trailing_bytes\": 0, \"pages\": [\
             {\"block\": 0, \"absolute_block\": 262144, \"status\": \"mismatch\", \"stored\": 981, \
             \"computed\": 985, \"matches_block\": 4}, \
             {\"block\": 1, \"absolute_block\": 262145, \"status\": \"mismatch\", \"stored\": 981, \
             \"computed\": null}]},\n\
             {\"path\": \"a \\\"quoted\\\"\\npath\", \"segment\": 2, \"fork\": \"main\", \"block_size\": 8192, \
             \"endian\": \"little\", \"blocks\": 331, \"trailing_bytes\": 0, \"pages\": []}\n\
             ], \"summary\": {\"files\": 2, \"blocks\": 332, \"ok\": 1, \"mismatch\": 331, \"zero\": 0, \
             \"new_not_zero\": 0, \"bad_header\": 0}}\n"
        );
    }
}
