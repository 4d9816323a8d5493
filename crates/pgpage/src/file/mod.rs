//! Whole relation files: what a file name says (relfilenode, fork, segment), which block size
//! a file was written with, and page-by-page verification of a file fed in chunks of whole
//! pages. Pure: callers read the bytes (the CLI with pread, the browser with File.slice).

pub mod datadir;
pub mod scan;

use serde::Serialize;

use crate::page::geometry::{read_u16, BlockSize, Endian};
use crate::page::kind::Fork;
use crate::page::verify::{header_is_sane, PageStatus};

/// What a relation file's name says: `relfilenode[_fork][.segno]`.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct RelationFileName {
    pub relfilenode: u32,
    pub fork: Fork,
    pub segno: u32,
}

/// relpath.h: OIDCHARS, the most digits a relfilenode has in a file name.
const OIDCHARS: usize = 10;

/// Parses a relation file name as PostgreSQL's parse_filename_for_nontemp_relation (reinit.c)
/// accepts it: up to ten digits, an optional `_fsm`, `_vm` or `_init` (never `_main`), an
/// optional `.N`, nothing else. Segment 0 never carries a suffix, so `.0` is refused, as
/// pg_checksums refuses it. Temporary relations (`t3_16384`) and every non-relation file of a
/// data directory (pg_control, pg_filenode.map, pg_internal.init, PG_VERSION, ...) give None.
pub fn parse_relation_file_name(name: &str) -> Option<RelationFileName> {
    let (rest, segno) = match name.split_once('.') {
        Some((rest, seg)) => (rest, parse_digits(seg, OIDCHARS).filter(|&s| s != 0)?),
        None => (name, 0),
    };
    let (node, fork) = match rest.split_once('_') {
        Some((node, suffix)) => (node, Fork::from_suffix(suffix)?),
        None => (rest, Fork::Main),
    };
    Some(RelationFileName {
        // InvalidOid names no relation: GetNewRelFileNumber never returns it.
        relfilenode: parse_digits(node, OIDCHARS).filter(|&n| n != 0)?,
        fork,
        segno,
    })
}

/// A non-empty run of at most `max` ASCII digits that fits in u32.
fn parse_digits(s: &str, max: usize) -> Option<u32> {
    let ok = !s.is_empty() && s.len() <= max && s.bytes().all(|b| b.is_ascii_digit());
    if ok {
        s.parse().ok()
    } else {
        None
    }
}

/// Whether a directory entry of a data directory is temporary and skipped, as pg_checksums
/// skips names starting with PG_TEMP_FILE_PREFIX and PG_TEMP_FILES_DIR (both `pgsql_tmp`).
pub fn is_temporary_entry(name: &str) -> bool {
    name.starts_with("pgsql_tmp")
}

/// How many pages at `block_size`-aligned offsets of the head of a file are looked at.
const DETECT_PAGES: usize = 8;

/// Bytes of a file's head that `detect_block_size` needs to see all the pages it looks at.
pub const DETECT_HEAD_BYTES: usize = DETECT_PAGES * 32768;

/// The block size a file was written with, from the head of the file: for each size
/// PostgreSQL supports, the non-new pages (pd_upper != 0) among the first few at offsets of
/// that size vote when their pd_pagesize_version claims it. The size with most votes wins,
/// 8 KB on a tie; None when no page claims the size it sits at (all new, or garbage).
/// Only whole pages with a sane header vote: the one garbage page of an 8 KB file must not
/// pass for a 16 KB one.
pub fn detect_block_size(head: &[u8], endian: Endian) -> Option<BlockSize> {
    let mut best: Option<(usize, BlockSize)> = None;
    let default_first = core::iter::once(BlockSize::DEFAULT.bytes())
        .chain(BlockSize::ALL.into_iter().filter(|&s| s != 8192));
    for size in default_first.filter_map(BlockSize::new) {
        let votes = head
            .chunks_exact(size.len())
            .filter(|page| read_u16(page, 14, endian).is_some_and(|upper| upper != 0))
            .take(DETECT_PAGES)
            .filter(|page| BlockSize::from_page(page, endian) == Some(size))
            // A garbage page claims some size one time in 40; it must also pass
            // PageIsVerified's header sanity at that size to be believed.
            .filter(|page| header_is_sane(page, endian))
            .count();
        if votes > 0 && best.is_none_or(|(most, _)| votes > most) {
            best = Some((votes, size));
        }
    }
    best.map(|(_, size)| size)
}

/// What the user chose for a file's geometry; `None` leaves it to the file's head.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GeometryChoice {
    pub block_size: Option<BlockSize>,
    pub endian: Option<Endian>,
}

/// The block size and byte order a file is read with, and how they were decided.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Geometry {
    pub block_size: BlockSize,
    pub endian: Endian,
    /// No sane header at the head in any byte order tried: 8 kB pages assumed, as
    /// pg_checksums reads any file.
    pub block_size_assumed: bool,
    /// Big-endian pages were found in the head without being asked for (a big-endian
    /// server's files).
    pub byte_order_detected: bool,
}

/// Why a file is not read as pages at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotARelationFile {
    /// Whether both byte orders were tried.
    pub tried_both_orders: bool,
    pub endian: Endian,
}

impl core::fmt::Display for NotARelationFile {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let tried = if self.tried_both_orders {
            "either byte order"
        } else if self.endian == Endian::Big {
            "big-endian order"
        } else {
            "little-endian order"
        };
        write!(
            f,
            "not a relation file: no sane PostgreSQL page header at its start in {tried} (choose a block size to verify it anyway)"
        )
    }
}

/// A file's geometry from its head (`DETECT_HEAD_BYTES` of it, or all of a shorter file),
/// trying little- then big-endian unless a byte order is chosen. A head of nothing but zeros
/// is a file of new pages at the default size; a head with no sane header is read as 8 kB
/// pages when the file is named like a relation file (pg_checksums reads any such file),
/// and is not a relation file otherwise.
pub fn file_geometry(
    head: &[u8],
    choice: GeometryChoice,
    named_like_relation: bool,
) -> Result<Geometry, NotARelationFile> {
    let orders: &[Endian] = match choice.endian {
        None => &[Endian::Little, Endian::Big],
        Some(Endian::Little) => &[Endian::Little],
        Some(Endian::Big) => &[Endian::Big],
    };
    for &endian in orders {
        if let Some(size) = detect_block_size(head, endian) {
            return Ok(Geometry {
                block_size: choice.block_size.unwrap_or(size),
                endian,
                block_size_assumed: false,
                byte_order_detected: choice.endian.is_none() && endian == Endian::Big,
            });
        }
    }
    let endian = choice.endian.unwrap_or_default();
    let plain = |block_size, block_size_assumed| Geometry {
        block_size,
        endian,
        block_size_assumed,
        byte_order_detected: false,
    };
    if let Some(size) = choice.block_size {
        return Ok(plain(size, false));
    }
    if head.iter().all(|&b| b == 0) {
        return Ok(plain(BlockSize::DEFAULT, false));
    }
    if named_like_relation {
        return Ok(plain(BlockSize::DEFAULT, true));
    }
    Err(NotARelationFile {
        tried_both_orders: choice.endian.is_none(),
        endian,
    })
}

/// A file's length split into whole pages and the bytes past the last whole page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileExtent {
    pub blocks: u32,
    pub trailing_bytes: u32,
}

impl FileExtent {
    /// None when the file holds more blocks than a BlockNumber can count.
    pub fn of_len(len: u64, block_size: BlockSize) -> Option<FileExtent> {
        let size = u64::from(block_size.bytes());
        let blocks = u32::try_from(len.checked_div(size)?).ok()?;
        let trailing_bytes = u32::try_from(len.checked_rem(size)?).ok()?;
        Some(FileExtent {
            blocks,
            trailing_bytes,
        })
    }
}

/// Pages per status, summed over chunks, files or a whole run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StatusCounts {
    pub ok: u64,
    pub mismatch: u64,
    pub zero: u64,
    pub new_not_zero: u64,
    pub bad_header: u64,
}

impl StatusCounts {
    pub fn add(&mut self, status: PageStatus) {
        let n = match status {
            PageStatus::Ok => &mut self.ok,
            PageStatus::Mismatch => &mut self.mismatch,
            PageStatus::Zero => &mut self.zero,
            PageStatus::NewNotZero => &mut self.new_not_zero,
            PageStatus::BadHeader => &mut self.bad_header,
        };
        *n = n.saturating_add(1);
    }

    pub fn merge(&mut self, other: &StatusCounts) {
        self.ok = self.ok.saturating_add(other.ok);
        self.mismatch = self.mismatch.saturating_add(other.mismatch);
        self.zero = self.zero.saturating_add(other.zero);
        self.new_not_zero = self.new_not_zero.saturating_add(other.new_not_zero);
        self.bad_header = self.bad_header.saturating_add(other.bad_header);
    }

    /// Every page counted.
    pub fn blocks(&self) -> u64 {
        [
            self.ok,
            self.mismatch,
            self.zero,
            self.new_not_zero,
            self.bad_header,
        ]
        .iter()
        .fold(0u64, |a, &n| a.saturating_add(n))
    }

    /// Pages the server would refuse to read.
    pub fn problems(&self) -> u64 {
        self.mismatch
            .saturating_add(self.new_not_zero)
            .saturating_add(self.bad_header)
    }
}

/// Pages by whether the checksum they store is valid for their relation-wide block: what a
/// change of data checksums (19's inprogress-on and inprogress-off) leaves to be known.
/// Every page that is not all zeros is in `checksums_valid` or in `checksums_not_yet`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ChecksumCounts {
    /// pd_checksum equals pg_checksum_page for the page's block.
    pub checksums_valid: u64,
    pub checksums_not_yet: u64,
    /// Of `checksums_not_yet`, the pages whose pd_checksum is not 0. A page written while
    /// checksums were off keeps the checksum it had (0 if it never had one), so these were
    /// changed while checksums were off, or damaged: verified now, each would fail.
    pub checksums_not_yet_nonzero: u64,
}

impl ChecksumCounts {
    /// The counts in a sentence, and what a nonzero wrong checksum means.
    pub fn describe(&self) -> alloc::string::String {
        let pages = |n: u64| {
            if n == 1 {
                alloc::format!("{n} page")
            } else {
                alloc::format!("{n} pages")
            }
        };
        let mut s = alloc::format!(
            "{} carry a valid checksum for their block, {} do not yet",
            pages(self.checksums_valid),
            self.checksums_not_yet
        );
        if self.checksums_not_yet_nonzero > 0 {
            s.push_str(&alloc::format!(
                "; {} of these store a nonzero checksum that is wrong for the block (a page \
                 written while checksums were off keeps the one it had, 0 if it never had \
                 one): changed while checksums were off, or damaged, each would fail \
                 verification once the state is \"on\" unless rewritten before",
                self.checksums_not_yet_nonzero
            ));
        }
        s
    }

    pub fn merge(&mut self, other: &ChecksumCounts) {
        self.checksums_valid = self.checksums_valid.saturating_add(other.checksums_valid);
        self.checksums_not_yet = self
            .checksums_not_yet
            .saturating_add(other.checksums_not_yet);
        self.checksums_not_yet_nonzero = self
            .checksums_not_yet_nonzero
            .saturating_add(other.checksums_not_yet_nonzero);
    }
}

/// Where Ctrl+G's "go to" lands, for the page view.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "to", rename_all = "snake_case")]
pub enum GoTo {
    /// A block of this file, and the byte of it the cursor goes to; `read_as` says how the
    /// text was taken.
    Block {
        block: u32,
        offset: u32,
        relation_block: u32,
        read_as: &'static str,
        /// The segment size the relation-wide numbers were read with, and whether it was
        /// assumed (RELSEG_SIZE's default) rather than given (pg_control's).
        blocks_per_segment: u32,
        blocks_per_segment_assumed: bool,
    },
    /// A relation-wide block that lives in another segment file of the relation.
    OtherSegment {
        segno: u32,
        block: u32,
        relation_block: u32,
        /// That segment file's name (`16427.3`), or None when this file's name is not a
        /// relation file's.
        file: Option<alloc::string::String>,
        blocks_per_segment: u32,
        blocks_per_segment_assumed: bool,
    },
}

/// The name of segment `segno` of the relation whose file is `name` (same relfilenode and
/// fork), as md.c names it.
fn segment_file_name(name: &str, segno: u32) -> Option<alloc::string::String> {
    let n = parse_relation_file_name(name)?;
    let fork = match n.fork {
        Fork::Main => alloc::string::String::new(),
        other => alloc::format!("_{}", other.as_str()),
    };
    Some(if segno == 0 {
        alloc::format!("{}{fork}", n.relfilenode)
    } else {
        alloc::format!("{}{fork}.{segno}", n.relfilenode)
    })
}

/// Reads what the user typed to go to: a block of the file (`6`); a relation-wide block
/// number as the server prints it (`262150` in segment 2 of 8 kB pages is block 6 of the
/// file; one of another segment says which file holds it); a byte offset in the file
/// (`0x1f000` or `@126976`), going to the page holding it. `name` is the file's name,
/// `segno` its segment, `blocks` its whole pages. `blocks_per_segment` is the cluster's
/// RELSEG_SIZE as pg_control records it (a server built `--with-segsize` has segments other
/// than 1 GB); None or 0 assumes 1 GB segments, and the answer says which. Refusals say why,
/// in a sentence.
pub fn go_to(
    text: &str,
    name: &str,
    segno: u32,
    block_size: BlockSize,
    blocks: u32,
    blocks_per_segment: Option<u32>,
) -> Result<GoTo, alloc::string::String> {
    use alloc::format;
    let t = text.trim();
    let given = blocks_per_segment.filter(|&n| n > 0);
    let per_segment = given.unwrap_or_else(|| block_size.blocks_per_segment());
    let assumed = given.is_none();
    let relation_block = |block: u32| segno.wrapping_mul(per_segment).wrapping_add(block);
    let last = || match blocks {
        0 => alloc::string::String::from("the file has no blocks"),
        1 => alloc::string::String::from("the file has 1 block (block 0)"),
        n => format!("the file has {n} blocks (0 to {})", n.saturating_sub(1)),
    };
    let hex = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X"));
    if let Some(digits) = hex
        .map(|h| (h, 16))
        .or(t.strip_prefix('@').map(|d| (d, 10)))
    {
        let (digits, radix) = digits;
        let offset = u64::from_str_radix(digits, radix)
            .ok()
            .filter(|_| !digits.is_empty() && !digits.starts_with(['+', '-']))
            .ok_or_else(|| {
                format!("\"{t}\" is not a byte offset: write it as 0x1f000 or @126976")
            })?;
        let size = u64::from(block_size.bytes());
        let block = offset.checked_div(size).unwrap_or(0);
        let within = offset.checked_rem(size).unwrap_or(0);
        let file_bytes = u64::from(blocks).saturating_mul(size);
        return match u32::try_from(block) {
            Ok(block) if block < blocks => Ok(GoTo::Block {
                block,
                offset: u32::try_from(within).unwrap_or(0),
                relation_block: relation_block(block),
                read_as: "byte offset",
                blocks_per_segment: per_segment,
                blocks_per_segment_assumed: assumed,
            }),
            _ => Err(format!(
                "byte offset {t} ({offset}) is past the end: the file has {file_bytes} bytes in whole pages; {}",
                last()
            )),
        };
    }
    if let Some(rest) = t.strip_prefix('-') {
        if !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("{t} is negative: blocks are numbered from 0"));
        }
    }
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "\"{t}\" is not a block number or a byte offset (a block such as 6 or 262150, or a byte offset such as 0x1f000 or @126976)"
        ));
    }
    let Ok(n) = t.parse::<u32>() else {
        return Err(format!(
            "{t} is larger than any block number (the largest is {})",
            u32::MAX - 1
        ));
    };
    if n < blocks {
        return Ok(GoTo::Block {
            block: n,
            offset: 0,
            relation_block: relation_block(n),
            read_as: "block of this file",
            blocks_per_segment: per_segment,
            blocks_per_segment_assumed: assumed,
        });
    }
    // Past this file's end: the server's relation-wide block numbers are the other reading.
    let seg = n.checked_div(per_segment).unwrap_or(0);
    let in_seg = n.checked_rem(per_segment).unwrap_or(n);
    if seg == segno {
        if segno > 0 && in_seg < blocks {
            return Ok(GoTo::Block {
                block: in_seg,
                offset: 0,
                relation_block: n,
                read_as: "relation-wide block",
                blocks_per_segment: per_segment,
                blocks_per_segment_assumed: assumed,
            });
        }
        return Err(format!("block {n} is past the end: {}", last()));
    }
    Ok(GoTo::OtherSegment {
        segno: seg,
        block: in_seg,
        relation_block: n,
        file: segment_file_name(name, seg),
        blocks_per_segment: per_segment,
        blocks_per_segment_assumed: assumed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::checksum::pg_checksum_page;

    #[test]
    fn geometry_tries_both_byte_orders_and_says_why_it_refuses() {
        let mut page = vec![0u8; 8192];
        page[12..14].copy_from_slice(&24u16.to_be_bytes());
        page[14..16].copy_from_slice(&8000u16.to_be_bytes());
        page[16..18].copy_from_slice(&8192u16.to_be_bytes());
        page[18..20].copy_from_slice(&(8192u16 | 4).to_be_bytes());
        let g = file_geometry(&page, GeometryChoice::default(), false).unwrap();
        assert_eq!((g.endian, g.block_size.bytes()), (Endian::Big, 8192));
        assert!(g.byte_order_detected && !g.block_size_assumed);
        // Told little-endian, the same page has no sane header: refused unless named.
        let little = GeometryChoice {
            endian: Some(Endian::Little),
            ..GeometryChoice::default()
        };
        let e = file_geometry(&page, little, false).unwrap_err();
        assert!(e.to_string().contains("little-endian order"), "{e}");
        let g = file_geometry(&page, little, true).unwrap();
        assert!(g.block_size_assumed && g.endian == Endian::Little);
        // All zeros: new pages at the default size, nothing assumed.
        let g = file_geometry(&[0u8; 100], GeometryChoice::default(), false).unwrap();
        assert!(!g.block_size_assumed && g.block_size == BlockSize::DEFAULT);
        // A chosen block size wins over the head's.
        let choice = GeometryChoice {
            block_size: BlockSize::new(4096),
            endian: None,
        };
        assert_eq!(
            file_geometry(&page, choice, false)
                .unwrap()
                .block_size
                .bytes(),
            4096
        );
    }

    #[test]
    fn a_garbage_page_claiming_16k_does_not_set_the_block_size() {
        // Block 0 garbage whose pd_pagesize_version says 16 KB, block 1 all zeros: the server
        // and pg_checksums read two 8 KB pages; so must we.
        let mut file = vec![0u8; 16384];
        let mut x = 0x2545_F491u32;
        for b in file[..8192].iter_mut() {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            *b = x as u8;
        }
        file[18..20].copy_from_slice(&(16384u16 | 4).to_le_bytes());
        file[10..12].copy_from_slice(&0xFFF0u16.to_le_bytes()); // pd_flags: invalid bits
        assert_eq!(detect_block_size(&file, Endian::Little), None);
        // The same page with a sane 16 KB header is believed.
        file[10..12].copy_from_slice(&0u16.to_le_bytes());
        file[12..14].copy_from_slice(&24u16.to_le_bytes());
        file[14..16].copy_from_slice(&16000u16.to_le_bytes());
        file[16..18].copy_from_slice(&16384u16.to_le_bytes());
        assert_eq!(
            detect_block_size(&file, Endian::Little),
            BlockSize::new(16384)
        );
    }

    fn name(relfilenode: u32, fork: Fork, segno: u32) -> Option<RelationFileName> {
        Some(RelationFileName {
            relfilenode,
            fork,
            segno,
        })
    }

    #[test]
    fn relation_file_names() {
        assert_eq!(
            parse_relation_file_name("16385"),
            name(16385, Fork::Main, 0)
        );
        assert_eq!(
            parse_relation_file_name("16385.2"),
            name(16385, Fork::Main, 2)
        );
        assert_eq!(
            parse_relation_file_name("16385_fsm"),
            name(16385, Fork::Fsm, 0)
        );
        assert_eq!(
            parse_relation_file_name("16385_vm"),
            name(16385, Fork::Vm, 0)
        );
        assert_eq!(
            parse_relation_file_name("16385_init"),
            name(16385, Fork::Init, 0)
        );
        assert_eq!(
            parse_relation_file_name("16385_fsm.1"),
            name(16385, Fork::Fsm, 1)
        );
        assert_eq!(
            parse_relation_file_name("4294967295.7"),
            name(u32::MAX, Fork::Main, 7)
        );
        for bad in [
            "",
            "16385.",
            "16385.0",
            "16385_main",
            "16385_",
            "_fsm",
            ".1",
            "16385.1.2",
            "16385_fsm_vm",
            "4294967296",
            "12345678901",
            "0",
            "0_fsm.1",
            "t3_16385",
            "pg_control",
            "pg_filenode.map",
            "pg_internal.init",
            "pg_internal.init.123",
            "PG_VERSION",
            "config_exec_params",
            "pgsql_tmp",
            "pgsql_tmp123.4",
            "16385.x",
            "16385 ",
            "+16385",
            "16385.-1",
            "١٦٣٨٥",
        ] {
            assert_eq!(parse_relation_file_name(bad), None, "{bad:?}");
        }
        assert!(is_temporary_entry("pgsql_tmp"));
        assert!(is_temporary_entry("pgsql_tmp1234.0"));
        assert!(!is_temporary_entry("16385"));
    }

    /// A sealed page claiming `size` in pd_pagesize_version, written as block `blkno`.
    fn page(size: usize, blkno: u32, fill: u8) -> Vec<u8> {
        let mut p = vec![0u8; size];
        p[12..14].copy_from_slice(&28u16.to_le_bytes());
        p[14..16].copy_from_slice(&((size - 64) as u16).to_le_bytes());
        p[16..18].copy_from_slice(&(size as u16).to_le_bytes());
        p[18..20].copy_from_slice(&((size as u16) | 4).to_le_bytes());
        for b in &mut p[size - 64..] {
            *b = fill;
        }
        let c = pg_checksum_page(&p, blkno, Endian::Little);
        p[8..10].copy_from_slice(&c.to_le_bytes());
        p
    }

    #[test]
    fn block_size_detection() {
        for size in BlockSize::ALL.map(|s| s as usize) {
            let mut file = vec![0u8; size]; // a new page first
            for b in 1..4 {
                file.extend(page(size, b, b as u8));
            }
            assert_eq!(
                detect_block_size(&file, Endian::Little).map(BlockSize::len),
                Some(size)
            );
        }
        assert_eq!(detect_block_size(&[0u8; 65536], Endian::Little), None);
        assert_eq!(detect_block_size(&[], Endian::Little), None);
        assert_eq!(detect_block_size(&[0xFF; 100], Endian::Little), None);
        // A garbage first page is outvoted by the pages after it.
        let mut file = vec![0x5Au8; 8192];
        for b in 1..4 {
            file.extend(page(8192, b, 1));
        }
        assert_eq!(
            detect_block_size(&file, Endian::Little),
            BlockSize::new(8192)
        );
    }

    #[test]
    fn file_extent() {
        let bs = BlockSize::DEFAULT;
        assert_eq!(
            FileExtent::of_len(0, bs),
            Some(FileExtent {
                blocks: 0,
                trailing_bytes: 0
            })
        );
        assert_eq!(
            FileExtent::of_len(8193, bs),
            Some(FileExtent {
                blocks: 1,
                trailing_bytes: 1
            })
        );
        assert_eq!(FileExtent::of_len(u64::MAX, bs), None);
    }

    #[test]
    fn scans_report_every_status_with_relation_wide_blocks_in_any_chunk_order() {
        use crate::file::scan::{ChecksumsKnown, FileScan};
        let segno = 2;
        let bs = BlockSize::DEFAULT;
        let abs = |b: u32| bs.absolute_block(segno, b);
        let mut file = Vec::new();
        file.extend(page(8192, abs(0), 1)); // ok
        file.extend(page(8192, abs(3), 2)); // mismatch: carries block 3's checksum
        file.extend(vec![0u8; 8192]); // zero
        let mut not_zero = vec![0u8; 8192];
        not_zero[100] = 1;
        file.extend(not_zero); // new_not_zero
        let mut bad = page(8192, abs(4), 3);
        bad[12..14].copy_from_slice(&9000u16.to_le_bytes()); // pd_lower past pd_upper
        let c = pg_checksum_page(&bad, abs(4), Endian::Little);
        bad[8..10].copy_from_slice(&c.to_le_bytes());
        file.extend(bad); // bad_header
        let g = file_geometry(&file, GeometryChoice::default(), true).unwrap();
        let mut whole = FileScan::new(g, segno, file.len() as u64).unwrap();
        let mut statuses = Vec::new();
        whole.chunk_statuses(&file, 0, |s| statuses.push(s));
        use PageStatus::*;
        assert_eq!(statuses, [Ok, Mismatch, Zero, NewNotZero, BadHeader]);
        let verdict = whole.finish(ChecksumsKnown::On);
        let listed: Vec<(u32, u32, PageStatus)> = verdict
            .pages
            .iter()
            .map(|p| (p.block, p.absolute_block, p.status))
            .collect();
        assert_eq!(
            listed,
            [
                (1, 262_145, Mismatch),
                (3, 262_147, NewNotZero),
                (4, 262_148, BadHeader)
            ]
        );
        assert_eq!(
            verdict.pages[0].computed,
            Some(pg_checksum_page(
                &file[8192..16384],
                262_145,
                Endian::Little
            ))
        );
        assert_eq!(verdict.pages[1].computed, None);
        assert_eq!(
            verdict.counts,
            StatusCounts {
                ok: 1,
                mismatch: 1,
                zero: 1,
                new_not_zero: 1,
                bad_header: 1
            }
        );
        assert_eq!((verdict.counts.blocks(), verdict.counts.problems()), (5, 3));

        // Chunks in any order, each its own scan, merged: the same verdict.
        let mut parts: Option<FileScan> = None;
        for (i, chunk) in file.chunks(2 * 8192).enumerate().rev() {
            let mut part = FileScan::new(g, segno, file.len() as u64).unwrap();
            part.chunk(chunk, 2 * i as u32);
            match &mut parts {
                None => parts = Some(part),
                Some(p) => p.merge(&part).unwrap(),
            }
        }
        assert_eq!(parts.unwrap().finish(ChecksumsKnown::On), verdict);
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..20_000),
            size in 0usize..6,
            segno in proptest::prelude::any::<u32>(),
            first in proptest::prelude::any::<u32>(),
            big in proptest::prelude::any::<bool>(),
        ) {
            let endian = if big { Endian::Big } else { Endian::Little };
            let _ = detect_block_size(&bytes, endian);
            let block_size = BlockSize::new(BlockSize::ALL[size]).unwrap();
            let geometry = Geometry { block_size, endian, block_size_assumed: false, byte_order_detected: false };
            let len = u64::from(first.saturating_add(3)) * block_size.len() as u64;
            let mut scan = crate::file::scan::FileScan::new(geometry, segno, len).unwrap();
            scan.chunk(&bytes, first);
            let counts = scan.finish(crate::file::scan::ChecksumsKnown::On).counts;
            let whole = (bytes.len() / block_size.len()) as u64;
            proptest::prop_assert_eq!(counts.blocks(), whole.min(u64::from(first.saturating_add(3) - first)));
        }
    }

    #[test]
    fn go_to_reads_blocks_relation_blocks_and_offsets() {
        let bs = BlockSize::DEFAULT;
        // A block as go_to answers it with 1 GB segments assumed.
        let block = |block, offset, relation_block, read_as| GoTo::Block {
            block,
            offset,
            relation_block,
            read_as,
            blocks_per_segment: 131072,
            blocks_per_segment_assumed: true,
        };
        // 16427.2 of 331 blocks: 262150 = 2 * 131072 + 6, the server's number for block 6.
        let to = |t: &str| go_to(t, "16427.2", 2, bs, 331, None);
        assert_eq!(to("6"), Ok(block(6, 0, 262150, "block of this file")));
        assert_eq!(
            to(" 262150 "),
            Ok(block(6, 0, 262150, "relation-wide block"))
        );
        assert_eq!(
            to("393217"),
            Ok(GoTo::OtherSegment {
                segno: 3,
                block: 1,
                relation_block: 393217,
                file: Some("16427.3".into()),
                blocks_per_segment: 131072,
                blocks_per_segment_assumed: true,
            })
        );
        assert_eq!(
            go_to("7", "16427_fsm", 0, bs, 3, None),
            Err("block 7 is past the end: the file has 3 blocks (0 to 2)".into())
        );
        assert_eq!(
            go_to("131073", "16427_vm", 0, bs, 3, Some(0)),
            Ok(GoTo::OtherSegment {
                segno: 1,
                block: 1,
                relation_block: 131073,
                file: Some("16427_vm.1".into()),
                blocks_per_segment: 131072,
                blocks_per_segment_assumed: true,
            })
        );
        // 0x1f000 = 126976 = 15 * 8192 + 4096.
        let at = Ok(block(15, 4096, 262159, "byte offset"));
        assert_eq!(to("0x1f000"), at);
        assert_eq!(to("@126976"), at);
        assert!(to("0x").unwrap_err().contains("not a byte offset"));
        assert!(to("0xfffffff").unwrap_err().contains("past the end"));
        assert!(to("abc")
            .unwrap_err()
            .contains("\"abc\" is not a block number"));
        assert_eq!(
            to("-5"),
            Err("-5 is negative: blocks are numbered from 0".into())
        );
        assert!(to("99999999999")
            .unwrap_err()
            .contains("larger than any block"));
        // 16 kB pages: 65536 blocks a segment.
        let big = BlockSize::new(16384).unwrap();
        assert!(matches!(
            go_to("65537", "5.1", 1, big, 10, None),
            Ok(GoTo::Block {
                block: 1,
                blocks_per_segment: 65536,
                ..
            })
        ));
    }

    #[test]
    fn go_to_reads_relation_blocks_with_pg_controls_segment_size() {
        // A server built --with-segsize-blocks=1024 (PostgreSQL 16's configure option; 8 MB
        // segments of 8 kB pages): segment 2 starts at relation block 2 * 1024 = 2048.
        let bs = BlockSize::DEFAULT;
        let to = |t: &str| go_to(t, "16427.2", 2, bs, 9, Some(1024));
        let read = |block, relation_block, read_as| {
            Ok(GoTo::Block {
                block,
                offset: 0,
                relation_block,
                read_as,
                blocks_per_segment: 1024,
                blocks_per_segment_assumed: false,
            })
        };
        assert_eq!(to("2054"), read(6, 2054, "relation-wide block"));
        assert_eq!(to("3"), read(3, 2051, "block of this file"));
        assert_eq!(
            to("1030"),
            Ok(GoTo::OtherSegment {
                segno: 1,
                block: 6,
                relation_block: 1030,
                file: Some("16427.1".into()),
                blocks_per_segment: 1024,
                blocks_per_segment_assumed: false,
            })
        );
        // Read with 1 GB segments, the same number is in segment 0.
        assert!(matches!(
            go_to("2054", "16427.2", 2, bs, 9, None),
            Ok(GoTo::OtherSegment {
                segno: 0,
                block: 2054,
                ..
            })
        ));
        // Past the end of this segment's 9 blocks but within its 1024.
        assert_eq!(
            to("2060"),
            Err("block 2060 is past the end: the file has 9 blocks (0 to 8)".into())
        );
    }
}
