//! Write-ahead log of PostgreSQL 13 to 19, read from its segment files: page headers, records
//! spanning pages, block references and their full-page images (good copies of damaged pages).
//! `reader` walks the segments, `record` decodes one record and restores its images, `history`
//! keeps, for chosen blocks, the newest image and what touched the block after it; `flushed`
//! what the latest checkpoint must have written.

mod crc;
mod dump;
mod effect;
#[cfg(test)]
mod fixture;
mod flushed;
mod history;
mod names;
mod reader;
mod record;
pub mod rmgr;
mod timeline;

// The LSN's printed form is the page layer's rule; WAL's readers name it from here too.
pub use crate::page::lsn::{lsn_text, lsn_text_for, parse_lsn};
pub use dump::{DumpBlock, DumpRecord};
pub use effect::{restoring, RowEffect};
pub use flushed::{FlushedBlock, FlushedChanges};
pub use history::{restoring_after, BlockHistory, BlockKey, Coverage, Touch};
pub use names::record_type;
pub use reader::{WalOptions, WalProblem, WalReader, WalSummary};
pub use record::{
    image_pieces, restore_image, BlockImage, BlockRef, ImageCompression, Piece, WalRecord,
};
pub use timeline::{
    parse_history, parse_history_name, plan_segments, segment_plan_on, PlanProblem, SegmentLeftOut,
    TimelineHistory, TimelinePlan, TimelineSwitch,
};

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::page::kind::FORK_NAMES;

/// The `XLOG_PAGE_MAGIC` of each major version pgpage reads (access/xlog_internal.h of each
/// release branch). It changes whenever the WAL format does, so it names the version. 19 has
/// two: 0xD120 as its betas wrote, 0xD121 once heap records registered the visibility-map
/// block they clear.
pub const PAGE_MAGICS: [(u16, u32); 8] = [
    (0xD106, 13),
    (0xD10D, 14),
    (0xD110, 15),
    (0xD113, 16),
    (0xD116, 17),
    (0xD118, 18),
    (0xD120, 19),
    (0xD121, 19),
];

/// The server version whose `XLOG_PAGE_MAGIC` this is.
pub fn version_of_magic(magic: u16) -> Option<u32> {
    PAGE_MAGICS
        .iter()
        .find(|(m, _)| *m == magic)
        .map(|&(_, v)| v)
}

/// relfilelocator.h RelFileLocator (RelFileNode before 16): which relation a block belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct RelFileLocator {
    pub spc_oid: u32,
    pub db_oid: u32,
    pub rel_number: u32,
}

pub fn fork_name(fork: u8) -> Option<&'static str> {
    FORK_NAMES.get(usize::from(fork)).copied()
}

/// access/rmgrlist.h: the built-in resource managers' names as pg_waldump prints them; the
/// list is the same in 13 to 18, and 19 adds XLOG2. Ids 128 to 255 are custom resource
/// managers (15 and later).
const RMGR_NAMES: [&str; 23] = [
    "XLOG",
    "Transaction",
    "Storage",
    "CLOG",
    "Database",
    "Tablespace",
    "MultiXact",
    "RelMap",
    "Standby",
    "Heap2",
    "Heap",
    "Btree",
    "Hash",
    "Gin",
    "Gist",
    "Sequence",
    "SPGist",
    "BRIN",
    "CommitTs",
    "ReplicationOrigin",
    "Generic",
    "LogicalMessage",
    "XLOG2",
];

/// The largest built-in resource manager id of a version's WAL (RM_MAX_BUILTIN_ID; RM_MAX_ID
/// before 15): 19's XLOG2 is 22.
pub fn rm_max_builtin_id(version: u32) -> u8 {
    if version >= 19 {
        22
    } else {
        21
    }
}
/// RM_MIN_CUSTOM_ID: custom resource managers (15 and later) take 128 to 255.
pub const RM_MIN_CUSTOM_ID: u8 = 128;

/// The resource manager's name, `custom%03u` for a custom one as pg_waldump prints it.
pub fn rmgr_name(rmid: u8) -> String {
    match RMGR_NAMES.get(usize::from(rmid)) {
        Some(name) => String::from(*name),
        None => format!("custom{rmid:03}"),
    }
}

/// A segment file's name, `%08X%08X%08X` (xlog_internal.h XLogFileName): timeline, then the
/// segment number split in "log" and "seg" parts at 4 GB.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegmentName {
    pub timeline: u32,
    pub log: u32,
    pub seg: u32,
}

impl SegmentName {
    /// The segment number, for a segment size.
    pub fn segno(&self, seg_size: u32) -> Option<u64> {
        let per_log = 0x1_0000_0000u64.checked_div(u64::from(seg_size))?;
        u64::from(self.log)
            .checked_mul(per_log)?
            .checked_add(u64::from(self.seg))
    }

    pub fn text(&self) -> String {
        format!("{:08X}{:08X}{:08X}", self.timeline, self.log, self.seg)
    }
}

/// `name` as XLogFromFileName reads it: exactly 24 hex digits (a `.partial` or `.backup` file
/// is something else).
pub fn parse_segment_name(name: &str) -> Option<SegmentName> {
    if name.len() != 24 || !name.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let part =
        |r: core::ops::Range<usize>| name.get(r).and_then(|s| u32::from_str_radix(s, 16).ok());
    Some(SegmentName {
        timeline: part(0..8)?,
        log: part(8..16)?,
        seg: part(16..24)?,
    })
}

/// A WAL segment file's name: a segment's own (`parse_segment_name`), or one with `.partial`
/// after it, the unfinished last segment of a timeline (a promoted server renames its old
/// timeline's so when archiving, xlog.c; pg_receivewal names so the segment it is writing).
/// The flag says partial: such a file is read as its segment, after a complete copy of it.
pub fn parse_wal_file_name(name: &str) -> Option<(SegmentName, bool)> {
    match name.strip_suffix(".partial") {
        Some(base) => parse_segment_name(base).map(|s| (s, true)),
        None => parse_segment_name(name).map(|s| (s, false)),
    }
}

/// The order to read segment files in, as indexes into `names`: by segment, and of two files
/// of the same segment (a timeline switch) only the higher timeline's, since its copy holds
/// the older timeline's records up to the switch and the new timeline's after it; of a
/// complete and a `.partial` file of one segment and timeline, the complete one. Names that
/// are not segment names keep their place after the named segments, in the order given.
pub fn segment_plan(names: &[&str]) -> Vec<usize> {
    let mut named: Vec<(u32, u32, u32, bool, usize)> = Vec::new();
    let mut other = Vec::new();
    for (i, name) in names.iter().enumerate() {
        match parse_wal_file_name(name) {
            Some((s, partial)) => named.push((s.log, s.seg, s.timeline, partial, i)),
            None => other.push(i),
        }
    }
    // Highest timeline first within a segment, then a complete file before a partial one, so
    // that dedup keeps it.
    named.sort_by(|a, b| (a.0, a.1, b.2, a.3).cmp(&(b.0, b.1, a.2, b.3)));
    named.dedup_by(|later, kept| later.0 == kept.0 && later.1 == kept.1);
    named.into_iter().map(|n| n.4).chain(other).collect()
}

/// A file `pg_waldump --save-fullpage` wrote: `%08X-%08X-%08X.%u.%u.%u.%u_%s` (timeline, the
/// record's LSN in two halves, tablespace, database, relfilenode, block, fork name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FullPageName {
    pub timeline: u32,
    pub lsn: u64,
    pub locator: RelFileLocator,
    pub block: u32,
    pub fork: u8,
}

impl FullPageName {
    /// The name pg_waldump's XLogRecordSaveFPWs gives the file.
    pub fn text(&self) -> Option<String> {
        Some(format!(
            "{:08X}-{:08X}-{:08X}.{}.{}.{}.{}_{}",
            self.timeline,
            self.lsn >> 32,
            self.lsn & 0xFFFF_FFFF,
            self.locator.spc_oid,
            self.locator.db_oid,
            self.locator.rel_number,
            self.block,
            fork_name(self.fork)?
        ))
    }
}

pub fn parse_fullpage_name(name: &str) -> Option<FullPageName> {
    let (head, fork) = name.rsplit_once('_')?;
    let fork = u8::try_from(FORK_NAMES.iter().position(|f| *f == fork)?).ok()?;
    let mut parts = head.split('.');
    let mut hex = parts.next()?.split('-');
    let mut h = || {
        hex.next()
            .filter(|s| s.len() == 8)
            .and_then(|s| u32::from_str_radix(s, 16).ok())
    };
    let (timeline, hi, lo) = (h()?, h()?, h()?);
    if h().is_some() {
        return None;
    }
    let mut d = || {
        parts
            .next()
            .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|s| s.parse::<u32>().ok())
    };
    let locator = RelFileLocator {
        spc_oid: d()?,
        db_oid: d()?,
        rel_number: d()?,
    };
    let block = d()?;
    if parts.next().is_some() {
        return None;
    }
    Some(FullPageName {
        timeline,
        lsn: (u64::from(hi) << 32) | u64::from(lo),
        locator,
        block,
        fork,
    })
}

/// `--relation [TBS/]DB/RELFILENODE`: without a tablespace, the relation in any tablespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RelationFilter {
    pub spc_oid: Option<u32>,
    pub db_oid: u32,
    pub rel_number: u32,
}

impl RelationFilter {
    pub fn parse(s: &str) -> Option<RelationFilter> {
        let nums: Vec<u32> = s
            .split('/')
            .map(|p| p.parse::<u32>().ok())
            .collect::<Option<Vec<u32>>>()?;
        match nums.as_slice() {
            [db, rel] => Some(RelationFilter {
                spc_oid: None,
                db_oid: *db,
                rel_number: *rel,
            }),
            [spc, db, rel] => Some(RelationFilter {
                spc_oid: Some(*spc),
                db_oid: *db,
                rel_number: *rel,
            }),
            _ => None,
        }
    }

    pub fn matches(&self, l: &RelFileLocator) -> bool {
        self.spc_oid.is_none_or(|s| s == l.spc_oid)
            && self.db_oid == l.db_oid
            && self.rel_number == l.rel_number
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lsns_parse_as_pg_lsn_in() {
        assert_eq!(parse_lsn("16/B374D848"), Some(0x16_B374_D848));
        assert_eq!(parse_lsn("0/0"), Some(0));
        assert_eq!(parse_lsn("FFFFFFFF/FFFFFFFF"), Some(u64::MAX));
        for bad in ["", "0", "/1", "1/", "123456789/0", "0/g", "0/1/2", " 0/1"] {
            assert_eq!(parse_lsn(bad), None, "{bad}");
        }
    }

    #[test]
    fn segment_and_fullpage_names_round_trip() {
        let s = parse_segment_name("00000002000000010000003A").unwrap();
        assert_eq!((s.timeline, s.log, s.seg), (2, 1, 0x3A));
        assert_eq!(s.segno(16 << 20), Some(256 + 0x3A));
        assert_eq!(s.text(), "00000002000000010000003A");
        assert!(parse_segment_name("00000002000000010000003A.partial").is_none());
        let name = "00000001-00000000-0155A3C8.1663.5.16384.7_main";
        let f = parse_fullpage_name(name).unwrap();
        assert_eq!(f.lsn, 0x0155_A3C8);
        assert_eq!(f.locator.rel_number, 16384);
        assert_eq!((f.block, f.fork), (7, 0));
        assert_eq!(f.text().unwrap(), name);
        assert!(parse_fullpage_name("00000001-00000000-0155A3C8.1663.5.16384_main").is_none());
        assert!(parse_fullpage_name("00000001-00000000-0155A3C8.1663.5.16384.7_heap").is_none());
    }

    #[test]
    fn plan_prefers_the_newer_timeline_of_a_segment() {
        let names = [
            "000000020000000000000003",
            "000000010000000000000003",
            "000000010000000000000002",
            "x",
            "000000020000000000000004",
        ];
        assert_eq!(segment_plan(&names), [2, 0, 4, 3]);
    }

    #[test]
    fn a_partial_segment_is_read_unless_a_complete_or_newer_copy_is_there() {
        let (s, partial) = parse_wal_file_name("00000002000000010000003A.partial").unwrap();
        assert_eq!((s.timeline, s.log, s.seg, partial), (2, 1, 0x3A, true));
        assert_eq!(
            parse_wal_file_name("00000002000000010000003A").map(|(_, p)| p),
            Some(false)
        );
        assert!(parse_wal_file_name("00000002000000010000003A.backup").is_none());
        assert!(parse_wal_file_name("0000000200000001000003A.partial").is_none());
        // pg_receivewal's directory: the segment being written is the last one read.
        let names = [
            "000000010000000000000007.partial",
            "000000010000000000000006",
        ];
        assert_eq!(segment_plan(&names), [1, 0]);
        // A promoted server's: the new timeline's copy of the switch segment wins.
        let names = [
            "000000010000000000000005.partial",
            "000000020000000000000005",
        ];
        assert_eq!(segment_plan(&names), [1]);
        // Both forms of one segment and timeline: the complete one.
        let names = [
            "000000010000000000000005.partial",
            "000000010000000000000005",
        ];
        assert_eq!(segment_plan(&names), [1]);
    }

    /// Fuzz-style: a valid long page header followed by noise (and pages of noise with valid
    /// headers), fed in odd chunk sizes, is read to the end with problems named, never a panic.
    #[test]
    fn noise_after_valid_headers_is_named_never_a_panic() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..40u64 {
            let mut seg = alloc::vec![0u8; 1 << 20];
            for b in seg.iter_mut() {
                *b = next() as u8;
            }
            for page in 0..128usize {
                let at = page * 8192;
                let lsn = (1u64 << 20) + at as u64;
                seg[at..at + 2].copy_from_slice(&0xD118u16.to_le_bytes());
                let info: u16 = if page == 0 { 2 } else { (next() & 1) as u16 };
                seg[at + 2..at + 4].copy_from_slice(&info.to_le_bytes());
                seg[at + 4..at + 8].copy_from_slice(&1u32.to_le_bytes());
                seg[at + 8..at + 16].copy_from_slice(&lsn.to_le_bytes());
                if round % 2 == 0 {
                    // Small record lengths, so that records end and new ones start.
                    seg[at + 16..at + 20].copy_from_slice(&((next() % 300) as u32).to_le_bytes());
                    seg[at + 24..at + 28]
                        .copy_from_slice(&(24 + (next() % 200) as u32).to_le_bytes());
                }
            }
            seg[32..36].copy_from_slice(&(1u32 << 20).to_le_bytes());
            seg[36..40].copy_from_slice(&8192u32.to_le_bytes());
            let mut reader = WalReader::new(WalOptions::default());
            reader.begin_segment(Some("000000010000000000000001"));
            let mut at = 0;
            let mut records = 0;
            while at < seg.len() - (round as usize) * 1000 {
                let n = 1 + (next() % 20_000) as usize;
                let end = (at + n).min(seg.len() - (round as usize) * 1000);
                reader.feed(&seg[at..end], &mut |r: &WalRecord<'_>| {
                    records += 1;
                    for b in r.blocks {
                        if let Some(img) = b.image {
                            let _ = r.restore(&img, 8192);
                        }
                    }
                });
                at = end;
            }
            reader.end_segment();
            reader.finish();
            assert!(records == 0 || !reader.problems().is_empty() || round % 2 == 0);
            if round > 0 {
                assert!(
                    !reader.problems().is_empty(),
                    "round {round}: noise read as clean WAL"
                );
            }
        }
    }

    #[test]
    fn relation_filters() {
        let f = RelationFilter::parse("5/16384").unwrap();
        let l = RelFileLocator {
            spc_oid: 1663,
            db_oid: 5,
            rel_number: 16384,
        };
        assert!(f.matches(&l));
        assert!(!RelationFilter::parse("1664/5/16384").unwrap().matches(&l));
        assert!(RelationFilter::parse("16384").is_none());
        assert!(RelationFilter::parse("a/b").is_none());
    }
}
