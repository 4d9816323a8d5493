//! RelMap records (access/rmgrdesc/relmapdesc.c; utils/relmapper.h): a relation map file
//! rewritten.

use alloc::format;
use alloc::string::String;

use super::{Body, Desc, WalRecord};

const XLOG_RELMAP_UPDATE: u8 = 0x00;

pub(super) fn desc(version: u32, info: u8, rec: &WalRecord<'_>) -> Desc {
    Some(match info {
        XLOG_RELMAP_UPDATE => {
            let b = Body::main(rec, "xl_relmap_update");
            (|| {
                let nbytes = b.i32(8, "nbytes")?;
                // 13 and 14 printed the int32 with %u.
                let size = if version <= 14 {
                    format!("{}", nbytes as u32)
                } else {
                    format!("{nbytes}")
                };
                Ok(format!(
                    "database {} tablespace {} size {size}",
                    b.u32(0, "dbid")?,
                    b.u32(4, "tsid")?
                ))
            })()
        }
        _ => Ok(String::new()),
    })
}
