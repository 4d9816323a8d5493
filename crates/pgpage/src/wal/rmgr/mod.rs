//! What each resource manager's rm_desc (access/rmgrdesc/*desc.c) prints for a record, release
//! by release: the text pg_waldump prints after `desc: ` and the record type, and
//! pg_walinspect's `description`. One module per resource manager; bodies that a later redo
//! needs (B-tree's) are decoded into typed structs first.

mod clog;
mod dbase;
pub mod heap;
mod mxact;
pub mod nbtree;
mod relmap;
mod seq;
mod smgr;
pub use smgr::{storage_change, StorageChange};
mod standby;
mod xact;
mod xlog;
pub use xlog::checksum_state_set;

use alloc::format;
use alloc::string::String;

use super::{fork_name, lsn_text_for, record_type, RelFileLocator, WalRecord};
use crate::page::kind::{DEFAULTTABLESPACE_OID, GLOBALTABLESPACE_OID};

/// Resource manager ids of access/rmgrlist.h.
const RM_XLOG: u8 = 0;
const RM_XACT: u8 = 1;
const RM_SMGR: u8 = 2;
const RM_CLOG: u8 = 3;
const RM_DBASE: u8 = 4;
const RM_MULTIXACT: u8 = 6;
const RM_RELMAP: u8 = 7;
const RM_STANDBY: u8 = 8;
use nbtree::RM_BTREE_ID as RM_BTREE;
const RM_SEQ: u8 = 15;
const RM_XLOG2: u8 = 22;

/// A record's description, or why there is none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Description {
    /// What rm_desc appends after the record type (possibly nothing).
    Text(String),
    /// pgpage does not decode this resource manager's or record's description (yet): saying
    /// anything would be a guess.
    NotDecoded,
    /// The body is too short or holds values the server never writes, or the description
    /// needs what WAL does not hold: why.
    Invalid(String),
}

/// rm_desc's text for `rec`, without the record type and the block references.
pub fn description(rec: &WalRecord<'_>) -> Description {
    let info = rec.info & 0xF0;
    let v = rec.version;
    let result = match rec.rmid {
        RM_XLOG => xlog::desc(v, info, rec),
        RM_XLOG2 if v >= 19 => xlog::desc2(info, rec),
        RM_XACT => xact::desc(v, rec),
        RM_SMGR => smgr::desc(info, rec),
        RM_CLOG => clog::desc(v, info, rec),
        RM_DBASE => dbase::desc(v, info, rec),
        RM_MULTIXACT => mxact::desc(v, info, rec),
        RM_RELMAP => relmap::desc(v, info, rec),
        RM_STANDBY => standby::desc(v, info, rec),
        RM_BTREE => nbtree::desc(v, info, rec),
        RM_SEQ => seq::desc(info, rec),
        // Heap and Heap2 bodies are decoded once, for their descriptions and their redo.
        heap::RM_HEAP_ID | heap::RM_HEAP2_ID => heap::describe(rec).map(|r| r.map_err(|e| e.0)),
        // The others are not decoded yet.
        _ => None,
    };
    match result {
        None => Description::NotDecoded,
        Some(Ok(text)) => Description::Text(text),
        Some(Err(why)) => Description::Invalid(why),
    }
}

/// The text pg_waldump prints after `desc: ` for `rec`, without the block references: the
/// record type (rm_identify, or `UNKNOWN (%x)`), a space, and rm_desc's text. None when pgpage
/// does not decode the record's description or its body is not one the server writes.
pub fn describe(rec: &WalRecord<'_>) -> Option<String> {
    match description(rec) {
        Description::Text(text) => Some(format!(
            "{} {text}",
            record_type(rec.version, rec.rmid, rec.info)
        )),
        Description::NotDecoded | Description::Invalid(_) => None,
    }
}

/// What a resource manager's desc returns: None where it does not decode the record type,
/// else its text or what is wrong with the body.
type Desc = Option<Result<String, String>>;

/// A record body (main data or a block's data) read field by field at C struct offsets; a
/// read past its end names the field instead of reading garbage as the C code would.
#[derive(Clone, Copy)]
struct Body<'a> {
    bytes: &'a [u8],
    /// The struct the body holds, for messages.
    what: &'static str,
}

impl<'a> Body<'a> {
    fn main(rec: &'a WalRecord<'_>, what: &'static str) -> Body<'a> {
        Body {
            bytes: rec.main_data(),
            what,
        }
    }

    fn take<const N: usize>(&self, at: usize, field: &str) -> Result<[u8; N], String> {
        at.checked_add(N)
            .and_then(|end| self.bytes.get(at..end))
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| {
                format!(
                    "{} of {} bytes is too short for {field} (bytes {at}..{})",
                    self.what,
                    self.bytes.len(),
                    at.saturating_add(N)
                )
            })
    }

    fn u8(&self, at: usize, field: &str) -> Result<u8, String> {
        self.take::<1>(at, field).map(|[b]| b)
    }

    fn bool(&self, at: usize, field: &str) -> Result<bool, String> {
        self.u8(at, field).map(|b| b != 0)
    }

    fn u16(&self, at: usize, field: &str) -> Result<u16, String> {
        self.take(at, field).map(u16::from_le_bytes)
    }

    fn u32(&self, at: usize, field: &str) -> Result<u32, String> {
        self.take(at, field).map(u32::from_le_bytes)
    }

    fn i32(&self, at: usize, field: &str) -> Result<i32, String> {
        self.take(at, field).map(i32::from_le_bytes)
    }

    fn u64(&self, at: usize, field: &str) -> Result<u64, String> {
        self.take(at, field).map(u64::from_le_bytes)
    }

    fn i64(&self, at: usize, field: &str) -> Result<i64, String> {
        self.take(at, field).map(i64::from_le_bytes)
    }

    fn f64(&self, at: usize, field: &str) -> Result<f64, String> {
        self.take(at, field).map(f64::from_le_bytes)
    }

    /// relfilelocator.h RelFileLocator (RelFileNode before 16): three Oids.
    fn locator(&self, at: usize, field: &str) -> Result<RelFileLocator, String> {
        Ok(RelFileLocator {
            spc_oid: self.u32(at, field)?,
            db_oid: self.u32(at.saturating_add(4), field)?,
            rel_number: self.u32(at.saturating_add(8), field)?,
        })
    }

    /// `count` elements of `size` bytes from `at`, checked to lie within the body.
    fn array(&self, at: usize, count: usize, size: usize, field: &str) -> Result<Body<'a>, String> {
        let len = count
            .checked_mul(size)
            .ok_or_else(|| format!("{}: {field} count {count} is impossible", self.what))?;
        let end = at.saturating_add(len);
        let bytes = self.bytes.get(at..end).ok_or_else(|| {
            format!(
                "{} of {} bytes is too short for {count} {field} (bytes {at}..{end})",
                self.what,
                self.bytes.len()
            )
        })?;
        Ok(Body {
            bytes,
            what: self.what,
        })
    }

    fn len(&self) -> usize {
        self.bytes.len()
    }
}

/// A count read from a C int: negative counts are not written by the server.
fn count(n: i32, what: &str) -> Result<usize, String> {
    usize::try_from(n).map_err(|_| format!("{what} is {n}"))
}

/// common/relpath.c relpathperm: the path of a relation's fork within the data directory.
/// Another tablespace's path holds TABLESPACE_VERSION_DIRECTORY, which has the catalog
/// version in it: WAL does not say it, so that path is unknown.
fn relpath(l: &RelFileLocator, fork: u8) -> Result<String, String> {
    let mut path = match l.spc_oid {
        GLOBALTABLESPACE_OID => format!("global/{}", l.rel_number),
        DEFAULTTABLESPACE_OID => format!("base/{}/{}", l.db_oid, l.rel_number),
        spc => {
            return Err(format!(
            "the path of relation {spc}/{}/{} holds the catalog version, which WAL does not give",
            l.db_oid, l.rel_number
        ))
        }
    };
    if fork != 0 {
        let name = fork_name(fork).ok_or_else(|| format!("invalid fork number {fork}"))?;
        path.push('_');
        path.push_str(name);
    }
    Ok(path)
}

/// An LSN inside a description, as `%X/%X` (13 to 18) or `%X/%08X` (19) prints it.
fn lsn(version: u32, lsn: u64) -> String {
    lsn_text_for(version, lsn)
}

/// pg_waldump's timestamptz_to_str (pg_waldump/compat.c): strftime's `%Y-%m-%d %H:%M:%S`,
/// the microseconds, then `%Z`, in the time zone pg_waldump runs in. pgpage prints UTC: equal
/// to pg_waldump run with TZ=UTC.
fn timestamp(t: i64) -> String {
    const USECS_PER_SEC: i64 = 1_000_000;
    // (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY.
    const POSTGRES_EPOCH_UNIX: i64 = 946_684_800;
    let secs = (t / USECS_PER_SEC).saturating_add(POSTGRES_EPOCH_UNIX);
    let fraction = t % USECS_PER_SEC;
    let days = secs.div_euclid(86_400);
    let of_day = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let (hour, minute, second) = (of_day / 3600, of_day % 3600 / 60, of_day % 60);
    format!("{y:04}-{m:02}-{d:02} {hour:02}:{minute:02}:{second:02}.{fraction:06} UTC")
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's civil_from_days),
/// as gmtime computes it.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days.saturating_add(719_468);
    let era = z.div_euclid(146_097);
    // Within an era every value below is small: wrapping never wraps.
    let doe = z.rem_euclid(146_097);
    let yoe = doe
        .wrapping_sub(doe / 1460)
        .wrapping_add(doe / 36_524)
        .wrapping_sub(doe / 146_096)
        / 365;
    let doy = doe.wrapping_sub(
        yoe.wrapping_mul(365)
            .wrapping_add(yoe / 4)
            .wrapping_sub(yoe / 100),
    );
    let mp = doy.wrapping_mul(5).wrapping_add(2) / 153;
    let d = doy
        .wrapping_sub(mp.wrapping_mul(153).wrapping_add(2) / 5)
        .wrapping_add(1);
    let m = if mp < 10 {
        mp.wrapping_add(3)
    } else {
        mp.wrapping_sub(9)
    };
    let y = yoe.saturating_add(era.saturating_mul(400));
    (if m <= 2 { y.saturating_add(1) } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    /// A record of `rmid`/`info` whose main data is `main`, without block references.
    fn with_main<R>(
        version: u32,
        rmid: u8,
        info: u8,
        main: &[u8],
        f: impl FnOnce(&WalRecord<'_>) -> R,
    ) -> R {
        let mut bytes = alloc::vec![0u8; 24];
        bytes.extend_from_slice(main);
        let rec = WalRecord {
            version,
            lsn: 0x0100_0028,
            end_lsn: 0x0100_0100,
            timeline: 1,
            xid: 0,
            rmid,
            info,
            blocks: &[],
            main_data_offset: 24,
            bytes: &bytes,
            pieces: &[],
        };
        f(&rec)
    }

    /// Fuzz-style: every record type of every resource manager described, with bodies of
    /// every short length and of noise, gives a text or a reason, never a panic; a body cut
    /// short of its fixed fields is named as such.
    #[test]
    fn short_and_garbage_bodies_are_named_never_a_panic() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut noise = |n: usize| -> Vec<u8> {
            (0..n)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed as u8
                })
                .collect()
        };
        for version in 13..=19 {
            for rmid in [0u8, 1, 2, 3, 4, 6, 7, 8, 11, 15, 22] {
                for info in (0..16u8).map(|i| i << 4) {
                    for len in (0..40).chain([64, 100, 300, 1000]) {
                        let body = noise(len);
                        with_main(version, rmid, info, &body, |rec| {
                            let _ = description(rec);
                            let _ = describe(rec);
                        });
                    }
                    // Counts at their largest: arrays that cannot fit are refused.
                    with_main(version, rmid, info, &[0xFF; 96], |rec| {
                        let _ = description(rec);
                    });
                }
            }
        }
        // A checkpoint of 20 bytes, a commit of 4: too short, and said so.
        with_main(18, 0, 0x10, &[0; 20], |rec| {
            let Description::Invalid(why) = description(rec) else {
                panic!("{:?}", description(rec));
            };
            assert!(
                why.contains("CheckPoint of 20 bytes is too short for"),
                "{why}"
            );
            assert_eq!(describe(rec), None);
        });
        with_main(16, 1, 0x00, &[0; 4], |rec| {
            assert!(matches!(description(rec), Description::Invalid(_)));
        });
        // A heap INSERT's xl_heap_insert (offnum 0, flags 0) as heapdesc.c prints it on 18.
        with_main(18, 10, 0x00, &[0; 3], |rec| {
            assert_eq!(
                description(rec),
                Description::Text(String::from("off: 0, flags: 0x00"))
            );
        });
        // A resource manager pgpage does not describe (Hash): not decoded.
        with_main(18, 12, 0x00, &[0; 3], |rec| {
            assert_eq!(description(rec), Description::NotDecoded);
        });
    }

    /// The origin header comes after the block headers: found past one with its relation
    /// and one with an image and the same relation; a commit with HAS_ORIGIN names it.
    #[test]
    fn a_commit_names_its_replication_origin() {
        let mut bytes = alloc::vec![0u8; 24];
        // Block 0: no image, a relation, block 7.
        bytes.extend_from_slice(&[0, 0x00, 0, 0]);
        bytes.extend_from_slice(&[0x7F, 6, 0, 0, 5, 0, 0, 0, 0x00, 0x40, 0, 0]);
        bytes.extend_from_slice(&7u32.to_le_bytes());
        // Block 1: an image (length, hole offset, bimg_info with a hole), the same relation.
        bytes.extend_from_slice(&[1, 0x90, 0, 0, 0, 0x10, 0x40, 0, 0x01]);
        bytes.extend_from_slice(&8u32.to_le_bytes());
        // The origin, then the main data's length and the main data.
        bytes.extend_from_slice(&[253, 0x34, 0x12]);
        let mut main = Vec::new();
        main.extend_from_slice(&0i64.to_le_bytes());
        main.extend_from_slice(&(1u32 << 5).to_le_bytes());
        main.extend_from_slice(&0x0100_0000u64.to_le_bytes());
        main.extend_from_slice(&1_000_000i64.to_le_bytes());
        bytes.extend_from_slice(&[255, main.len() as u8]);
        let main_data_offset = bytes.len() as u32;
        bytes.extend_from_slice(&main);
        let rec = WalRecord {
            version: 16,
            lsn: 0x0100_0028,
            end_lsn: 0x0100_0100,
            timeline: 1,
            xid: 740,
            rmid: 1,
            info: 0x80,
            blocks: &[],
            main_data_offset,
            bytes: &bytes,
            pieces: &[],
        };
        assert_eq!(rec.origin(), Some(0x1234));
        assert_eq!(
            describe(&rec).unwrap(),
            "COMMIT 2000-01-01 00:00:00.000000 UTC; origin: node 4660, lsn 0/1000000, at 2000-01-01 00:00:01.000000 UTC"
        );
    }

    #[test]
    fn descriptions_of_hand_made_bodies() {
        // NEXTOID, and a B-tree insert's offset in 15's and 16's words.
        with_main(15, 0, 0x30, &16_384u32.to_le_bytes(), |rec| {
            assert_eq!(describe(rec).unwrap(), "NEXTOID 16384");
        });
        with_main(15, 11, 0x00, &7u16.to_le_bytes(), |rec| {
            assert_eq!(describe(rec).unwrap(), "INSERT_LEAF off 7");
        });
        with_main(16, 11, 0x00, &7u16.to_le_bytes(), |rec| {
            assert_eq!(describe(rec).unwrap(), "INSERT_LEAF off: 7");
        });
        // A commit at PostgreSQL's epoch with two subtransactions (xinfo HAS_SUBXACTS).
        let mut body = Vec::new();
        body.extend_from_slice(&0i64.to_le_bytes());
        body.extend_from_slice(&2u32.to_le_bytes());
        body.extend_from_slice(&2i32.to_le_bytes());
        body.extend_from_slice(&741u32.to_le_bytes());
        body.extend_from_slice(&742u32.to_le_bytes());
        with_main(17, 1, 0x80, &body, |rec| {
            assert_eq!(
                describe(rec).unwrap(),
                "COMMIT 2000-01-01 00:00:00.000000 UTC; subxacts: 741 742"
            );
        });
        // The count says three subtransactions; the body holds two.
        body[12..16].copy_from_slice(&3i32.to_le_bytes());
        with_main(17, 1, 0x80, &body, |rec| {
            assert!(matches!(description(rec), Description::Invalid(_)));
        });
    }

    #[test]
    fn timestamps_print_as_pg_waldump_with_tz_utc() {
        // 2000-01-01 00:00:00 is PostgreSQL's epoch.
        assert_eq!(timestamp(0), "2000-01-01 00:00:00.000000 UTC");
        assert_eq!(
            timestamp(817_560_000_123_456),
            "2025-11-27 12:00:00.123456 UTC"
        );
        assert_eq!(timestamp(-1_000_000), "1999-12-31 23:59:59.000000 UTC");
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn relpaths_as_relpathperm() {
        let l = |spc, db, rel| RelFileLocator {
            spc_oid: spc,
            db_oid: db,
            rel_number: rel,
        };
        assert_eq!(relpath(&l(1663, 5, 16384), 0).unwrap(), "base/5/16384");
        assert_eq!(relpath(&l(1664, 0, 1262), 2).unwrap(), "global/1262_vm");
        assert!(relpath(&l(16390, 5, 16384), 0).is_err());
        assert!(relpath(&l(1663, 5, 16384), 9).is_err());
    }
}
