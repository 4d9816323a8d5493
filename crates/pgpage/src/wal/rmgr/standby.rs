//! Standby records (access/rmgrdesc/standbydesc.c; storage/standbydefs.h): the locks and
//! running transactions a hot standby needs, and invalidation messages, whose description
//! commit records share.

use alloc::format;
use alloc::string::String;

use super::{count, Body, Desc, WalRecord};

const XLOG_STANDBY_LOCK: u8 = 0x00;
const XLOG_RUNNING_XACTS: u8 = 0x10;
const XLOG_INVALIDATIONS: u8 = 0x20;

/// sinval.h: sizeof(SharedInvalidationMessage).
pub(super) const SIZE_OF_INVAL_MSG: usize = 16;

pub(super) fn desc(version: u32, info: u8, rec: &WalRecord<'_>) -> Desc {
    Some(match info {
        XLOG_STANDBY_LOCK => locks(rec),
        XLOG_RUNNING_XACTS => running_xacts(version, rec),
        XLOG_INVALIDATIONS => {
            let b = Body::main(rec, "xl_invalidations");
            (|| {
                let db = b.u32(0, "dbId")?;
                let ts = b.u32(4, "tsId")?;
                let init_file = b.bool(8, "relcacheInitFileInval")?;
                let n = count(b.i32(12, "nmsgs")?, "nmsgs")?;
                let msgs = b.array(16, n, SIZE_OF_INVAL_MSG, "msgs")?;
                let mut s = String::new();
                invalidations(&mut s, version, msgs, db, ts, init_file)?;
                Ok(s)
            })()
        }
        _ => Ok(String::new()),
    })
}

/// xl_standby_locks: each lock followed by a space, as the server prints them.
fn locks(rec: &WalRecord<'_>) -> Result<String, String> {
    let b = Body::main(rec, "xl_standby_locks");
    let n = count(b.i32(0, "nlocks")?, "nlocks")?;
    let locks = b.array(4, n, 12, "locks")?;
    let mut s = String::new();
    for i in 0..n {
        let at = i.saturating_mul(12);
        s.push_str(&format!(
            "xid {} db {} rel {} ",
            locks.u32(at, "xid")?,
            locks.u32(at.saturating_add(4), "dbOid")?,
            locks.u32(at.saturating_add(8), "relOid")?
        ));
    }
    Ok(s)
}

/// standby_desc_running_xacts: 16 spelled out "overflowed" and added the subtransactions.
fn running_xacts(version: u32, rec: &WalRecord<'_>) -> Result<String, String> {
    let b = Body::main(rec, "xl_running_xacts");
    let xcnt = count(b.i32(0, "xcnt")?, "xcnt")?;
    let subxcnt = count(b.i32(4, "subxcnt")?, "subxcnt")?;
    let overflow = b.bool(8, "subxid_overflow")?;
    let mut s = format!(
        "nextXid {} latestCompletedXid {} oldestRunningXid {}",
        b.u32(12, "nextXid")?,
        b.u32(20, "latestCompletedXid")?,
        b.u32(16, "oldestRunningXid")?
    );
    let xids = b.array(24, xcnt.saturating_add(subxcnt), 4, "xids")?;
    if xcnt > 0 {
        s.push_str(&format!("; {xcnt} xacts:"));
        for i in 0..xcnt {
            s.push_str(&format!(" {}", xids.u32(i.saturating_mul(4), "xids")?));
        }
    }
    if overflow {
        s.push_str(if version >= 16 {
            "; subxid overflowed"
        } else {
            "; subxid ovf"
        });
    }
    if version >= 16 && subxcnt > 0 {
        s.push_str(&format!("; {subxcnt} subxacts:"));
        for i in xcnt..xcnt.saturating_add(subxcnt) {
            s.push_str(&format!(" {}", xids.u32(i.saturating_mul(4), "xids")?));
        }
    }
    Ok(s)
}

/// standby_desc_invalidations: `msgs` holds SharedInvalidationMessages (sinval.h), each an
/// int8 id and, after padding, the fields of its kind.
pub(super) fn invalidations(
    s: &mut String,
    version: u32,
    msgs: Body<'_>,
    db: u32,
    ts: u32,
    relcache_init_file_inval: bool,
) -> Result<(), String> {
    let n = msgs.len() / SIZE_OF_INVAL_MSG;
    if n == 0 {
        return Ok(());
    }
    if relcache_init_file_inval {
        s.push_str(&format!("; relcache init file inval dbid {db} tsid {ts}"));
    }
    s.push_str("; inval msgs:");
    for i in 0..n {
        let at = i.saturating_mul(SIZE_OF_INVAL_MSG);
        let id = msgs.u8(at, "id")? as i8;
        let word = |off: usize, field: &str| msgs.u32(at.saturating_add(off), field);
        match id {
            0.. => s.push_str(&format!(" catcache {id}")),
            -1 => s.push_str(&format!(" catalog {}", word(8, "catId")?)),
            -2 => s.push_str(&format!(" relcache {}", word(8, "relId")?)),
            -3 => s.push_str(" smgr"),
            -4 => s.push_str(&format!(" relmap db {}", word(4, "dbId")?)),
            -5 => s.push_str(&format!(" snapshot {}", word(8, "relId")?)),
            -6 if version >= 18 => s.push_str(&format!(" relsync {}", word(8, "relid")?)),
            _ => s.push_str(&format!(" unrecognized id {id}")),
        }
    }
    Ok(())
}
