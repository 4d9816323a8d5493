//! CLOG records (access/rmgrdesc/clogdesc.c; access/clog.h): a page zeroed, the log
//! truncated. 17 made page numbers 64-bit.

use alloc::format;
use alloc::string::String;

use super::{Body, Desc, WalRecord};

const CLOG_ZEROPAGE: u8 = 0x00;
const CLOG_TRUNCATE: u8 = 0x10;

/// The page number at the start of a CLOG or MultiXact record: int before 17, int64 since.
pub(super) fn pageno(version: u32, b: &Body<'_>) -> Result<(i64, usize), String> {
    if version >= 17 {
        Ok((b.i64(0, "pageno")?, 8))
    } else {
        Ok((i64::from(b.i32(0, "pageno")?), 4))
    }
}

pub(super) fn desc(version: u32, info: u8, rec: &WalRecord<'_>) -> Desc {
    Some(match info {
        CLOG_ZEROPAGE => {
            pageno(version, &Body::main(rec, "CLOG page number")).map(|(p, _)| format!("page {p}"))
        }
        CLOG_TRUNCATE => {
            let b = Body::main(rec, "xl_clog_truncate");
            pageno(version, &b).and_then(|(p, size)| {
                Ok(format!(
                    "page {p}; oldestXact {}",
                    b.u32(size, "oldestXact")?
                ))
            })
        }
        _ => Ok(String::new()),
    })
}
