//! MultiXact records (access/rmgrdesc/mxactdesc.c; access/multixact.h): pages zeroed, a
//! MultiXact created with its members, truncation. 17 made page numbers 64-bit; 19 made
//! member offsets 64-bit and truncates by oldest MultiXact and offset.

use alloc::format;
use alloc::string::String;

use super::clog::pageno;
use super::{count, Body, Desc, WalRecord};

const XLOG_MULTIXACT_ZERO_OFF_PAGE: u8 = 0x00;
const XLOG_MULTIXACT_ZERO_MEM_PAGE: u8 = 0x10;
const XLOG_MULTIXACT_CREATE_ID: u8 = 0x20;
const XLOG_MULTIXACT_TRUNCATE_ID: u8 = 0x30;

/// mxactdesc.c out_member: MultiXactStatus's short names.
fn status(s: u32) -> &'static str {
    match s {
        0 => "(keysh) ",
        1 => "(sh) ",
        2 => "(fornokeyupd) ",
        3 => "(forupd) ",
        4 => "(nokeyupd) ",
        5 => "(upd) ",
        _ => "(unk) ",
    }
}

pub(super) fn desc(version: u32, info: u8, rec: &WalRecord<'_>) -> Desc {
    Some(match info {
        XLOG_MULTIXACT_ZERO_OFF_PAGE | XLOG_MULTIXACT_ZERO_MEM_PAGE => {
            pageno(version, &Body::main(rec, "MultiXact page number")).map(|(p, _)| format!("{p}"))
        }
        XLOG_MULTIXACT_CREATE_ID => create(version, rec),
        XLOG_MULTIXACT_TRUNCATE_ID => {
            let b = Body::main(rec, "xl_multixact_truncate");
            (|| {
                if version >= 19 {
                    Ok(format!(
                        "oldestMulti {}, oldestOffset {}",
                        b.u32(4, "oldestMulti")?,
                        b.u64(8, "oldestOffset")?
                    ))
                } else {
                    Ok(format!(
                        "offsets [{}, {}), members [{}, {})",
                        b.u32(4, "startTruncOff")?,
                        b.u32(8, "endTruncOff")?,
                        b.u32(12, "startTruncMemb")?,
                        b.u32(16, "endTruncMemb")?
                    ))
                }
            })()
        }
        _ => Ok(String::new()),
    })
}

/// xl_multixact_create: mid, moff (64-bit and 8-aligned in 19), nmembers, then the members
/// (xid, status).
fn create(version: u32, rec: &WalRecord<'_>) -> Result<String, String> {
    let b = Body::main(rec, "xl_multixact_create");
    let mid = b.u32(0, "mid")?;
    let (moff, n_at) = if version >= 19 {
        (b.u64(8, "moff")?, 16)
    } else {
        (u64::from(b.u32(4, "moff")?), 8)
    };
    let nmembers = b.i32(n_at, "nmembers")?;
    let n = count(nmembers, "nmembers")?;
    let members = b.array(n_at.saturating_add(4), n, 8, "members")?;
    let mut s = format!("{mid} offset {moff} nmembers {nmembers}: ");
    for i in 0..n {
        let at = i.saturating_mul(8);
        s.push_str(&format!("{} ", members.u32(at, "xid")?));
        s.push_str(status(members.u32(at.saturating_add(4), "status")?));
    }
    Ok(s)
}
