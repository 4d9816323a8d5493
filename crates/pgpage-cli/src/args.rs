//! What `verify` and `inspect` share on their command lines: how a file is to be read
//! (segment, block size, byte order), page kinds by name, and the words for an I/O error.

use std::io;
use std::sync::LazyLock;

use clap::builder::PossibleValue;
use pgpage::file::GeometryChoice;
use pgpage::page::kind::PageKind;
use pgpage::{BlockSize, Endian};

/// Byte order of the server that wrote the files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EndianArg {
    Little,
    Big,
}

impl From<EndianArg> for Endian {
    fn from(e: EndianArg) -> Endian {
        match e {
            EndianArg::Little => Endian::Little,
            EndianArg::Big => Endian::Big,
        }
    }
}

/// A page kind by the name `inspect --json` prints (docs/contracts.md, "inspect --json": `kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KindArg(pub PageKind);

/// The core's list of kinds, so that a kind added there is accepted here without an edit.
static KINDS: LazyLock<Vec<KindArg>> =
    LazyLock::new(|| PageKind::ALL.into_iter().map(KindArg).collect());

impl clap::ValueEnum for KindArg {
    fn value_variants<'a>() -> &'a [Self] {
        &KINDS
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.as_str()))
    }
}

/// How to read a file where its name and its pages do not say, or say it wrongly.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ReadAs {
    /// Segment number instead of the one in the file name's `.N` suffix.
    #[arg(long)]
    pub segment: Option<u32>,
    /// Block size (1024 to 32768) instead of the one detected from pd_pagesize_version.
    #[arg(long, value_parser = parse_block_size)]
    pub block_size: Option<BlockSize>,
    /// Byte order of the server that wrote the files, instead of the one detected from their
    /// page headers.
    #[arg(long, value_enum)]
    pub endian: Option<EndianArg>,
}

impl ReadAs {
    /// What the core's file_geometry is told; what is not chosen it detects per file.
    pub fn geometry_choice(&self) -> GeometryChoice {
        GeometryChoice {
            block_size: self.block_size,
            endian: self.endian.map(Endian::from),
        }
    }
}

pub fn parse_block_size(s: &str) -> Result<BlockSize, String> {
    s.parse::<u32>()
        .ok()
        .and_then(BlockSize::new)
        .ok_or_else(|| {
            format!("{s} is not a PostgreSQL block size (1024, 2048, 4096, 8192, 16384, 32768)")
        })
}

/// An LSN on the command line, as pg_lsn reads it (`16/B374D848`).
pub fn parse_lsn_arg(s: &str) -> Result<u64, String> {
    pgpage::wal::parse_lsn(s).ok_or_else(|| {
        format!("{s} is not an LSN (two hexadecimal numbers with a slash, as 16/B374D848)")
    })
}

/// The OS's words for an error, as PostgreSQL's %m prints them (Rust adds "(os error N)").
pub fn io_reason(e: &io::Error) -> String {
    let s = e.to_string();
    match s.split_once(" (os error ") {
        Some((words, _)) => words.to_owned(),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn every_core_kind_is_accepted_by_its_name() {
        for kind in PageKind::ALL {
            assert_eq!(KindArg::from_str(kind.as_str(), false), Ok(KindArg(kind)));
        }
        assert!(KindArg::from_str("table", false).is_err());
    }

    #[test]
    fn io_reasons_are_the_os_words() {
        let e = io::Error::from_raw_os_error(libc::EACCES);
        assert_eq!(io_reason(&e), "Permission denied");
        let e = io::Error::new(io::ErrorKind::InvalidInput, "not a regular file");
        assert_eq!(io_reason(&e), "not a regular file");
        assert_eq!(parse_block_size("4096").unwrap().bytes(), 4096);
        assert!(parse_block_size("3000").unwrap_err().contains("3000"));
    }
}
