//! pg_waldump's line for a record (pg_waldump.c XLogDumpDisplayRecord, and the short block
//! references of XLogRecGetBlockRefInfo, xlogdesc.c; the same layout in 13 to 19), and the
//! fields `pgpage wal --json` and the browser show. The description comes from `rmgr`.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::rmgr::{description, Description};
use super::{fork_name, record_type, rmgr_name, WalRecord};

/// One record as pg_waldump shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DumpRecord {
    pub lsn: u64,
    /// xl_prev: the previous record's start.
    pub prev: u64,
    pub xid: u32,
    pub rmgr: String,
    /// rm_identify's name, or `UNKNOWN (%x)`.
    pub record: String,
    pub description: Description,
    /// The record less its images (pg_waldump's "rec").
    pub len_rec: u32,
    /// xl_tot_len.
    pub len_tot: u32,
    pub blocks: Vec<DumpBlock>,
}

/// One block reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DumpBlock {
    pub id: u8,
    pub tablespace_oid: u32,
    pub database_oid: u32,
    pub relfilenode: u32,
    pub fork: u8,
    pub block: u32,
    pub image: bool,
    /// BKPIMAGE_APPLY: replay restores the image ("FPW"); without it the image is only for
    /// wal_consistency_checking ("FPW for WAL verification").
    pub image_applied: bool,
}

impl DumpRecord {
    pub fn of(rec: &WalRecord<'_>) -> DumpRecord {
        let images: u32 = rec
            .blocks
            .iter()
            .filter_map(|b| b.image.map(|i| u32::from(i.length)))
            .fold(0, u32::saturating_add);
        let len_tot = u32::try_from(rec.bytes.len()).unwrap_or(u32::MAX);
        let prev = rec.prev();
        DumpRecord {
            lsn: rec.lsn,
            prev,
            xid: rec.xid,
            rmgr: rmgr_name(rec.rmid),
            record: record_type(rec.version, rec.rmid, rec.info),
            description: description(rec),
            len_rec: len_tot.saturating_sub(images),
            len_tot,
            blocks: rec
                .blocks
                .iter()
                .map(|b| DumpBlock {
                    id: b.id,
                    tablespace_oid: b.locator.spc_oid,
                    database_oid: b.locator.db_oid,
                    relfilenode: b.locator.rel_number,
                    fork: b.fork,
                    block: b.block,
                    image: b.image.is_some(),
                    image_applied: b.image.is_some_and(|i| i.apply),
                })
                .collect(),
        }
    }

    /// The text after `desc: ` up to the block references: the record type and its
    /// description as pg_waldump prints them, or the type and why pgpage prints no
    /// description (never one made up).
    pub fn desc_text(&self) -> String {
        match &self.description {
            Description::Text(t) => format!("{} {t}", self.record),
            Description::NotDecoded => format!(
                "{} (pgpage does not decode this record's description)",
                self.record
            ),
            Description::Invalid(why) => {
                format!("{} (not described: {why})", self.record)
            }
        }
    }

    /// pg_waldump's line, without its newline.
    pub fn line(&self) -> String {
        let mut s = format!(
            "rmgr: {:<11} len (rec/tot): {:>6}/{:>6}, tx: {:>10}, lsn: {:X}/{:08X}, prev {:X}/{:08X}, desc: {}",
            self.rmgr,
            self.len_rec,
            self.len_tot,
            self.xid,
            self.lsn >> 32,
            self.lsn & 0xFFFF_FFFF,
            self.prev >> 32,
            self.prev & 0xFFFF_FFFF,
            self.desc_text()
        );
        for b in &self.blocks {
            s.push_str(&format!(
                ", blkref #{}: rel {}/{}/{}",
                b.id, b.tablespace_oid, b.database_oid, b.relfilenode
            ));
            if b.fork != 0 {
                match fork_name(b.fork) {
                    Some(name) => s.push_str(&format!(" fork {name}")),
                    None => s.push_str(&format!(" fork {}", b.fork)),
                }
            }
            s.push_str(&format!(" blk {}", b.block));
            if b.image {
                s.push_str(if b.image_applied {
                    " FPW"
                } else {
                    " FPW for WAL verification"
                });
            }
        }
        s
    }
}
