//! `verify --json` (CONTRACTS.md), written as results arrive: a serde struct for every
//! object, a formatter for the contract's spacing, and the frame around them (the files
//! array one file per line, each file's pages streamed so that `--all` over a big cluster
//! never holds a file's pages in memory).

use std::io::{self, Write};

use pgpage::file::{Fork, PageResult, StatusCounts};
use pgpage::Endian;
use serde::Serialize;
use serde_json::ser::Formatter;

/// One file, but for its pages, which follow it.
#[derive(Serialize)]
pub struct FileHead<'a> {
    pub path: &'a str,
    pub segment: u32,
    pub fork: Fork,
    pub block_size: u32,
    /// Added to the contract's keys: the byte order the file was read in, detected or chosen.
    pub endian: Endian,
    pub blocks: u32,
    pub trailing_bytes: u32,
}

#[derive(Serialize)]
struct Page {
    block: u32,
    absolute_block: u32,
    status: &'static str,
    stored: u16,
    /// null for new pages, whose checksum is never computed.
    computed: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    matches_block: Option<u32>,
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
    pages_in_file: u64,
}

impl JsonStream {
    pub fn begin(out: &mut impl Write) -> io::Result<JsonStream> {
        out.write_all(b"{\"files\": [")?;
        Ok(JsonStream::default())
    }

    pub fn file(&mut self, out: &mut impl Write, head: &FileHead) -> io::Result<()> {
        out.write_all(if self.files == 0 { b"\n" } else { b",\n" })?;
        self.files = self.files.saturating_add(1);
        self.pages_in_file = 0;
        // The head object, then its pages inside it as they come: the head is serialized
        // whole and its closing brace left for end_file.
        let mut object = Vec::with_capacity(256);
        write_value(&mut object, head)?;
        if object.pop() != Some(b'}') {
            return Err(io::Error::other("a file's JSON head is not an object"));
        }
        out.write_all(&object)?;
        out.write_all(b", \"pages\": [")
    }

    pub fn page(&mut self, out: &mut impl Write, p: &PageResult) -> io::Result<()> {
        if self.pages_in_file > 0 {
            out.write_all(b", ")?;
        }
        self.pages_in_file = self.pages_in_file.saturating_add(1);
        write_value(
            out,
            &Page {
                block: p.block,
                absolute_block: p.absolute_block,
                status: p.status.as_str(),
                stored: p.stored,
                computed: p.computed,
                matches_block: p.matches_block,
            },
        )
    }

    pub fn end_file(&mut self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(b"]}")
    }

    pub fn finish(self, out: &mut impl Write, files: u64, c: &StatusCounts) -> io::Result<()> {
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
            },
        )?;
        out.write_all(b"}\n")
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use pgpage::PageStatus;

    #[test]
    fn the_contract_bytes() {
        let mut out = Vec::new();
        let mut s = JsonStream::begin(&mut out).unwrap();
        let head = |path| FileHead {
            path,
            segment: 2,
            fork: Fork::Main,
            block_size: 8192,
            endian: Endian::Little,
            blocks: 331,
            trailing_bytes: 0,
        };
        s.file(&mut out, &head("base/5/16427.2")).unwrap();
        let page = |block, computed, matches_block| PageResult {
            block,
            absolute_block: 262_144 + block,
            status: PageStatus::Mismatch,
            stored: 981,
            computed,
            matches_block,
        };
        s.page(&mut out, &page(0, Some(985), Some(4))).unwrap();
        s.page(&mut out, &page(1, None, None)).unwrap();
        s.end_file(&mut out).unwrap();
        s.file(&mut out, &head("a \"quoted\"\npath")).unwrap();
        s.end_file(&mut out).unwrap();
        let counts = StatusCounts {
            ok: 1,
            mismatch: 331,
            ..StatusCounts::default()
        };
        s.finish(&mut out, 2, &counts).unwrap();
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
