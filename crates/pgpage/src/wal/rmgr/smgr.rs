//! Storage records (access/rmgrdesc/smgrdesc.c; catalog/storage_xlog.h): a fork created, a
//! relation truncated.

use alloc::format;
use alloc::string::String;

use super::{relpath, Body, Desc, WalRecord};

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
