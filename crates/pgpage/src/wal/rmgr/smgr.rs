//! Storage records (access/rmgrdesc/smgrdesc.c; catalog/storage_xlog.h): a fork created, a
//! relation truncated.

use alloc::format;
use alloc::string::String;

use super::{relpath, Body, Desc, RelFileLocator, WalRecord, RM_SMGR};

const XLOG_SMGR_CREATE: u8 = 0x10;
const XLOG_SMGR_TRUNCATE: u8 = 0x20;

pub(super) fn desc(info: u8, rec: &WalRecord<'_>) -> Desc {
    Some(match info {
        XLOG_SMGR_CREATE => {
            let b = Body::main(rec, "xl_smgr_create");
            (|| {
                let l = b.locator(0, "rlocator")?;
                let fork = b.i32(12, "forkNum")?;
                let fork = u8::try_from(fork).map_err(|_| format!("invalid fork number {fork}"))?;
                relpath(&l, fork)
            })()
        }
        XLOG_SMGR_TRUNCATE => {
            let b = Body::main(rec, "xl_smgr_truncate");
            (|| {
                let blkno = b.u32(0, "blkno")?;
                let l = b.locator(4, "rlocator")?;
                let flags = b.i32(16, "flags")?;
                Ok(format!(
                    "{} to {blkno} blocks flags {flags}",
                    relpath(&l, 0)?
                ))
            })()
        }
        _ => Ok(String::new()),
    })
}

/// What a Storage record does to a relation's files, for readers that follow which blocks
/// still hold what the WAL before it wrote there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StorageChange {
    /// A fork created anew: nothing of an earlier file of that locator remains.
    Create { locator: RelFileLocator, fork: u8 },
    /// Forks cut to `blocks` blocks; `main`: the main fork among them (SMGR_TRUNCATE_HEAP).
    Truncate {
        locator: RelFileLocator,
        blocks: u32,
        main: bool,
    },
}

/// The Storage record's change, None for another record or a body too short to say.
pub fn storage_change(rec: &WalRecord<'_>) -> Option<StorageChange> {
    if rec.rmid != RM_SMGR {
        return None;
    }
    match rec.info & 0xF0 {
        XLOG_SMGR_CREATE => {
            let b = Body::main(rec, "xl_smgr_create");
            Some(StorageChange::Create {
                locator: b.locator(0, "rlocator").ok()?,
                fork: u8::try_from(b.i32(12, "forkNum").ok()?).ok()?,
            })
        }
        XLOG_SMGR_TRUNCATE => {
            let b = Body::main(rec, "xl_smgr_truncate");
            // storage_xlog.h SMGR_TRUNCATE_HEAP.
            let main = b.i32(16, "flags").ok()? & 0x0001 != 0;
            Some(StorageChange::Truncate {
                locator: b.locator(4, "rlocator").ok()?,
                blocks: b.u32(0, "blkno").ok()?,
                main,
            })
        }
        _ => None,
    }
}
