//! XLOG and XLOG2 records (access/rmgrdesc/xlogdesc.c xlog_desc, xlog2_desc; the structs of
//! catalog/pg_control.h and access/xlog_internal.h): checkpoints, NEXTOID, restore points,
//! parameter changes, end of recovery, and 19's checksum state changes.

use alloc::format;
use alloc::string::String;

use super::{lsn, timestamp, Body, Desc, WalRecord};

const XLOG_CHECKPOINT_SHUTDOWN: u8 = 0x00;
const XLOG_CHECKPOINT_ONLINE: u8 = 0x10;
const XLOG_NEXTOID: u8 = 0x30;
const XLOG_BACKUP_END: u8 = 0x50;
const XLOG_PARAMETER_CHANGE: u8 = 0x60;
const XLOG_RESTORE_POINT: u8 = 0x70;
const XLOG_FPW_CHANGE: u8 = 0x80;
const XLOG_END_OF_RECOVERY: u8 = 0x90;
const XLOG_OVERWRITE_CONTRECORD: u8 = 0xD0;
const XLOG_CHECKPOINT_REDO: u8 = 0xE0;
const XLOG_LOGICAL_DECODING_STATUS_CHANGE: u8 = 0xF0;
const XLOG2_CHECKSUMS: u8 = 0x00;

/// xlogdesc.c get_wal_level_string: the first name of wal_level_options with that value.
fn wal_level(level: i32) -> &'static str {
    match level {
        0 => "minimal",
        1 => "replica",
        2 => "logical",
        _ => "?",
    }
}

/// xlogdesc.c get_checksum_state_string (19).
fn checksum_state(state: u32) -> &'static str {
    match state {
        0 => "off",
        1 => "on",
        2 => "inprogress-off",
        3 => "inprogress-on",
        _ => "?",
    }
}

fn true_false(b: bool) -> &'static str {
    if b {
        "true"
    } else {
        "false"
    }
}

pub(super) fn desc(version: u32, info: u8, rec: &WalRecord<'_>) -> Desc {
    let text = match info {
        XLOG_CHECKPOINT_SHUTDOWN | XLOG_CHECKPOINT_ONLINE => checkpoint(version, info, rec),
        XLOG_NEXTOID => Body::main(rec, "NEXTOID's Oid")
            .u32(0, "nextOid")
            .map(|oid| format!("{oid}")),
        XLOG_RESTORE_POINT => restore_point(rec),
        XLOG_BACKUP_END => Body::main(rec, "BACKUP_END's start point")
            .u64(0, "startpoint")
            .map(|start| lsn(version, start)),
        XLOG_PARAMETER_CHANGE => parameter_change(rec),
        XLOG_FPW_CHANGE => Body::main(rec, "FPW_CHANGE's bool")
            .bool(0, "fpw")
            .map(|b| String::from(true_false(b))),
        XLOG_END_OF_RECOVERY => end_of_recovery(version, rec),
        XLOG_OVERWRITE_CONTRECORD => {
            let b = Body::main(rec, "xl_overwrite_contrecord");
            b.u64(0, "overwritten_lsn").and_then(|l| {
                let t = b.i64(8, "overwrite_time")?;
                Ok(format!("lsn {}; time {}", lsn(version, l), timestamp(t)))
            })
        }
        // 17 and 18 write the wal_level (17.0 took it from 18's development, after the
        // branch), 19 xl_checkpoint_redo.
        XLOG_CHECKPOINT_REDO if (17..=18).contains(&version) => {
            Body::main(rec, "CHECKPOINT_REDO's wal_level")
                .i32(0, "wal_level")
                .map(|l| format!("wal_level {}", wal_level(l)))
        }
        XLOG_CHECKPOINT_REDO if version >= 19 => {
            let b = Body::main(rec, "xl_checkpoint_redo");
            b.i32(0, "wal_level").and_then(|l| {
                let c = b.u32(4, "data_checksum_version")?;
                Ok(format!(
                    "wal_level {}; checksums {}",
                    wal_level(l),
                    checksum_state(c)
                ))
            })
        }
        XLOG_LOGICAL_DECODING_STATUS_CHANGE if version >= 19 => {
            Body::main(rec, "LOGICAL_DECODING_STATUS_CHANGE's bool")
                .bool(0, "enabled")
                .map(|b| String::from(true_false(b)))
        }
        // NOOP, SWITCH, FPI, FPI_FOR_HINT, ASSIGN_LSN, and what the release does not know:
        // rm_desc prints nothing.
        _ => Ok(String::new()),
    };
    Some(text)
}

/// The data checksum state (checksum.h ChecksumStateType: 0 off, 1 on, 2 inprogress-off,
/// 3 inprogress-on) an XLOG2_CHECKSUMS record sets (xlog.c XLogChecksums); None for any
/// other record. Its main data is an xl_checksum_state.
pub fn checksum_state_set(rec: &WalRecord<'_>) -> Option<u32> {
    let ours = rec.version >= 19
        && rec.rmid == super::RM_XLOG2
        && rec.info & 0xF0 == XLOG2_CHECKSUMS
        && rec.blocks.is_empty();
    if !ours {
        return None;
    }
    Some(u32::from_le_bytes(
        rec.main_data().get(..4)?.try_into().ok()?,
    ))
}

/// xlog2_desc (19).
pub(super) fn desc2(info: u8, rec: &WalRecord<'_>) -> Desc {
    Some(match info {
        XLOG2_CHECKSUMS => Body::main(rec, "xl_checksum_state")
            .u32(0, "new_checksum_state")
            .map(|s| String::from(checksum_state(s))),
        _ => Ok(String::new()),
    })
}

/// pg_control.h CheckPoint of each release: 17 adds wal_level after fullPageWrites, 19
/// logicalDecodingEnabled, a 64-bit nextMultiOffset and dataChecksumState.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckPoint {
    pub redo: u64,
    pub this_timeline_id: u32,
    pub prev_timeline_id: u32,
    pub full_page_writes: bool,
    pub wal_level: Option<i32>,
    pub logical_decoding_enabled: Option<bool>,
    pub next_xid: u64,
    pub next_oid: u32,
    pub next_multi: u32,
    pub next_multi_offset: u64,
    pub oldest_xid: u32,
    pub oldest_xid_db: u32,
    pub oldest_multi: u32,
    pub oldest_multi_db: u32,
    pub time: i64,
    pub oldest_commit_ts_xid: u32,
    pub newest_commit_ts_xid: u32,
    pub oldest_active_xid: u32,
    pub data_checksum_state: Option<u32>,
}

impl CheckPoint {
    pub fn decode(version: u32, main: &[u8]) -> Result<CheckPoint, String> {
        let b = Body {
            bytes: main,
            what: "CheckPoint",
        };
        let v19 = version >= 19;
        // Where nextXid and the fields after it lie: 19's two new fields push nextXid to the
        // next 8-byte boundary, and its 8-byte nextMultiOffset takes the padding before time.
        let at: [usize; 13] = if v19 {
            [32, 40, 44, 48, 56, 60, 64, 68, 72, 80, 84, 88, 92]
        } else {
            [24, 32, 36, 40, 44, 48, 52, 56, 64, 72, 76, 80, 84]
        };
        let [xid, oid, multi, moff, oxid, oxdb, omulti, omdb, time, octs, ncts, oact, csum] = at;
        Ok(CheckPoint {
            redo: b.u64(0, "redo")?,
            this_timeline_id: b.u32(8, "ThisTimeLineID")?,
            prev_timeline_id: b.u32(12, "PrevTimeLineID")?,
            full_page_writes: b.bool(16, "fullPageWrites")?,
            wal_level: if version >= 17 {
                Some(b.i32(20, "wal_level")?)
            } else {
                None
            },
            logical_decoding_enabled: if v19 {
                Some(b.bool(24, "logicalDecodingEnabled")?)
            } else {
                None
            },
            next_xid: b.u64(xid, "nextXid")?,
            next_oid: b.u32(oid, "nextOid")?,
            next_multi: b.u32(multi, "nextMulti")?,
            next_multi_offset: if v19 {
                b.u64(moff, "nextMultiOffset")?
            } else {
                u64::from(b.u32(moff, "nextMultiOffset")?)
            },
            oldest_xid: b.u32(oxid, "oldestXid")?,
            oldest_xid_db: b.u32(oxdb, "oldestXidDB")?,
            oldest_multi: b.u32(omulti, "oldestMulti")?,
            oldest_multi_db: b.u32(omdb, "oldestMultiDB")?,
            time: b.i64(time, "time")?,
            oldest_commit_ts_xid: b.u32(octs, "oldestCommitTsXid")?,
            newest_commit_ts_xid: b.u32(ncts, "newestCommitTsXid")?,
            oldest_active_xid: b.u32(oact, "oldestActiveXid")?,
            data_checksum_state: if v19 {
                Some(b.u32(csum, "dataChecksumState")?)
            } else {
                None
            },
        })
    }
}

fn checkpoint(version: u32, info: u8, rec: &WalRecord<'_>) -> Result<String, String> {
    let c = CheckPoint::decode(version, rec.main_data())?;
    let mut s = format!(
        "redo {}; tli {}; prev tli {}; fpw {}; ",
        lsn(version, c.redo),
        c.this_timeline_id,
        c.prev_timeline_id,
        true_false(c.full_page_writes)
    );
    if let Some(l) = c.wal_level {
        s.push_str(&format!("wal_level {}; ", wal_level(l)));
    }
    if let Some(l) = c.logical_decoding_enabled {
        s.push_str(&format!("logical decoding {}; ", true_false(l)));
    }
    s.push_str(&format!(
        "xid {}:{}; oid {}; multi {}; offset {}; oldest xid {} in DB {}; oldest multi {} in DB {}; \
         oldest/newest commit timestamp xid: {}/{}; oldest running xid {}; ",
        c.next_xid >> 32,
        c.next_xid & 0xFFFF_FFFF,
        c.next_oid,
        c.next_multi,
        c.next_multi_offset,
        c.oldest_xid,
        c.oldest_xid_db,
        c.oldest_multi,
        c.oldest_multi_db,
        c.oldest_commit_ts_xid,
        c.newest_commit_ts_xid,
        c.oldest_active_xid
    ));
    if let Some(state) = c.data_checksum_state {
        s.push_str(&format!("checksums {}; ", checksum_state(state)));
    }
    s.push_str(if info == XLOG_CHECKPOINT_SHUTDOWN {
        "shutdown"
    } else {
        "online"
    });
    Ok(s)
}

/// xl_restore_point: rp_time, then rp_name[MAXFNAMELEN], printed up to its NUL.
fn restore_point(rec: &WalRecord<'_>) -> Result<String, String> {
    let b = Body::main(rec, "xl_restore_point");
    b.i64(0, "rp_time")?;
    let name = rec.main_data().get(8..).unwrap_or(&[]);
    let end = name
        .iter()
        .position(|&c| c == 0)
        .ok_or_else(|| String::from("xl_restore_point's rp_name has no terminating NUL"))?;
    Ok(String::from_utf8_lossy(name.get(..end).unwrap_or(&[])).into_owned())
}

/// xl_parameter_change.
fn parameter_change(rec: &WalRecord<'_>) -> Result<String, String> {
    let b = Body::main(rec, "xl_parameter_change");
    let on_off = |v: bool| if v { "on" } else { "off" };
    Ok(format!(
        "max_connections={} max_worker_processes={} max_wal_senders={} max_prepared_xacts={} \
         max_locks_per_xact={} wal_level={} wal_log_hints={} track_commit_timestamp={}",
        b.i32(0, "MaxConnections")?,
        b.i32(4, "max_worker_processes")?,
        b.i32(8, "max_wal_senders")?,
        b.i32(12, "max_prepared_xacts")?,
        b.i32(16, "max_locks_per_xact")?,
        wal_level(b.i32(20, "wal_level")?),
        on_off(b.bool(24, "wal_log_hints")?),
        on_off(b.bool(25, "track_commit_timestamp")?)
    ))
}

/// xl_end_of_recovery: 17 and later also print the wal_level it holds.
fn end_of_recovery(version: u32, rec: &WalRecord<'_>) -> Result<String, String> {
    let b = Body::main(rec, "xl_end_of_recovery");
    let mut s = format!(
        "tli {}; prev tli {}; time {}",
        b.u32(8, "ThisTimeLineID")?,
        b.u32(12, "PrevTimeLineID")?,
        timestamp(b.i64(0, "end_time")?)
    );
    if version >= 18 {
        s.push_str(&format!(
            "; wal_level {}",
            wal_level(b.i32(16, "wal_level")?)
        ));
    }
    Ok(s)
}
