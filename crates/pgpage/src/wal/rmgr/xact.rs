//! Transaction records (access/rmgrdesc/xactdesc.c; access/xact.h): commit and abort with
//! their optional parts (ParseCommitRecord, ParseAbortRecord), prepare, subtransaction
//! assignment and 14's invalidations.

use alloc::format;
use alloc::string::String;

use super::standby::{invalidations, SIZE_OF_INVAL_MSG};
use super::{count, lsn, relpath, timestamp, Body, Desc, WalRecord};

const XLOG_XACT_COMMIT: u8 = 0x00;
const XLOG_XACT_PREPARE: u8 = 0x10;
const XLOG_XACT_ABORT: u8 = 0x20;
const XLOG_XACT_COMMIT_PREPARED: u8 = 0x30;
const XLOG_XACT_ABORT_PREPARED: u8 = 0x40;
const XLOG_XACT_ASSIGNMENT: u8 = 0x50;
const XLOG_XACT_INVALIDATIONS: u8 = 0x60;
const XLOG_XACT_OPMASK: u8 = 0x70;
const XLOG_XACT_HAS_INFO: u8 = 0x80;

const XACT_XINFO_HAS_DBINFO: u32 = 1 << 0;
const XACT_XINFO_HAS_SUBXACTS: u32 = 1 << 1;
const XACT_XINFO_HAS_RELFILELOCATORS: u32 = 1 << 2;
const XACT_XINFO_HAS_INVALS: u32 = 1 << 3;
const XACT_XINFO_HAS_TWOPHASE: u32 = 1 << 4;
const XACT_XINFO_HAS_ORIGIN: u32 = 1 << 5;
const XACT_XINFO_HAS_GID: u32 = 1 << 7;
const XACT_XINFO_HAS_DROPPED_STATS: u32 = 1 << 8;
const XACT_COMPLETION_APPLY_FEEDBACK: u32 = 1 << 29;
const XACT_COMPLETION_UPDATE_RELCACHE_FILE: u32 = 1 << 30;
const XACT_COMPLETION_FORCE_SYNC_COMMIT: u32 = 1 << 31;

/// xl_xact_stats_item: 18 widened objid to 64 bits (objid_lo, objid_hi).
fn stats_item_size(version: u32) -> usize {
    if version >= 18 {
        16
    } else {
        12
    }
}

/// xl_xact_parsed_commit / xl_xact_parsed_abort: the parts a record has.
#[derive(Default)]
struct Parsed<'a> {
    xinfo: u32,
    db_id: u32,
    ts_id: u32,
    subxacts: Option<Body<'a>>,
    rels: Option<Body<'a>>,
    stats: Option<Body<'a>>,
    msgs: Option<Body<'a>>,
    twophase_xid: u32,
    origin_lsn: u64,
    origin_timestamp: i64,
}

/// ParseCommitRecord and ParseAbortRecord: the same walk, an abort having no invalidations.
fn parse<'a>(version: u32, info: u8, b: Body<'a>, commit: bool) -> Result<Parsed<'a>, String> {
    let mut p = Parsed::default();
    // After xact_time.
    let mut at = 8usize;
    if info & XLOG_XACT_HAS_INFO != 0 {
        p.xinfo = b.u32(at, "xinfo")?;
        at = at.saturating_add(4);
    }
    if p.xinfo & XACT_XINFO_HAS_DBINFO != 0 {
        p.db_id = b.u32(at, "dbId")?;
        p.ts_id = b.u32(at.saturating_add(4), "tsId")?;
        at = at.saturating_add(8);
    }
    let array = |at: &mut usize, size: usize, field: &str| -> Result<Body<'a>, String> {
        let n = count(b.i32(*at, field)?, field)?;
        let items = b.array(at.saturating_add(4), n, size, field)?;
        *at = at.saturating_add(4).saturating_add(items.len());
        Ok(items)
    };
    if p.xinfo & XACT_XINFO_HAS_SUBXACTS != 0 {
        p.subxacts = Some(array(&mut at, 4, "nsubxacts")?);
    }
    if p.xinfo & XACT_XINFO_HAS_RELFILELOCATORS != 0 {
        p.rels = Some(array(&mut at, 12, "nrels")?);
    }
    if version >= 15 && p.xinfo & XACT_XINFO_HAS_DROPPED_STATS != 0 {
        p.stats = Some(array(&mut at, stats_item_size(version), "nitems")?);
    }
    if commit && p.xinfo & XACT_XINFO_HAS_INVALS != 0 {
        p.msgs = Some(array(&mut at, SIZE_OF_INVAL_MSG, "nmsgs")?);
    }
    if p.xinfo & XACT_XINFO_HAS_TWOPHASE != 0 {
        p.twophase_xid = b.u32(at, "twophase xid")?;
        at = at.saturating_add(4);
        if p.xinfo & XACT_XINFO_HAS_GID != 0 {
            let rest = b.bytes.get(at..).unwrap_or(&[]);
            let nul = rest
                .iter()
                .position(|&c| c == 0)
                .ok_or_else(|| String::from("the record's gid has no terminating NUL"))?;
            at = at.saturating_add(nul).saturating_add(1);
        }
    }
    if p.xinfo & XACT_XINFO_HAS_ORIGIN != 0 {
        p.origin_lsn = b.u64(at, "origin_lsn")?;
        p.origin_timestamp = b.i64(at.saturating_add(8), "origin_timestamp")?;
    }
    Ok(p)
}

pub(super) fn desc(version: u32, rec: &WalRecord<'_>) -> Desc {
    let info = rec.info & XLOG_XACT_OPMASK;
    Some(match info {
        XLOG_XACT_COMMIT | XLOG_XACT_COMMIT_PREPARED => completion(version, rec, true),
        XLOG_XACT_ABORT | XLOG_XACT_ABORT_PREPARED => completion(version, rec, false),
        XLOG_XACT_PREPARE => prepare(version, rec),
        XLOG_XACT_ASSIGNMENT => assignment(rec),
        XLOG_XACT_INVALIDATIONS if version >= 14 => {
            let b = Body::main(rec, "xl_xact_invals");
            (|| {
                let n = count(b.i32(0, "nmsgs")?, "nmsgs")?;
                let msgs = b.array(4, n, SIZE_OF_INVAL_MSG, "msgs")?;
                let mut s = String::new();
                invalidations(&mut s, version, msgs, 0, 0, false)?;
                Ok(s)
            })()
        }
        _ => Ok(String::new()),
    })
}

/// xact_desc_relations.
fn relations(s: &mut String, label: &str, rels: Option<Body<'_>>) -> Result<(), String> {
    let Some(rels) = rels.filter(|r| r.len() > 0) else {
        return Ok(());
    };
    s.push_str(&format!("; {label}:"));
    for i in 0..rels.len() / 12 {
        let l = rels.locator(i.saturating_mul(12), "xlocators")?;
        s.push(' ');
        s.push_str(&relpath(&l, 0)?);
    }
    Ok(())
}

/// xact_desc_subxacts.
fn subxacts(s: &mut String, xids: Option<Body<'_>>) -> Result<(), String> {
    let Some(xids) = xids.filter(|x| x.len() > 0) else {
        return Ok(());
    };
    s.push_str("; subxacts:");
    for i in 0..xids.len() / 4 {
        s.push_str(&format!(" {}", xids.u32(i.saturating_mul(4), "subxacts")?));
    }
    Ok(())
}

/// xact_desc_stats (15 and later): kind/database/object of each dropped statistics entry.
fn stats(s: &mut String, version: u32, label: &str, items: Option<Body<'_>>) -> Result<(), String> {
    let size = stats_item_size(version);
    let Some(items) = items.filter(|x| x.len() > 0) else {
        return Ok(());
    };
    s.push_str(&format!("; {label}dropped stats:"));
    for i in 0..items.len().checked_div(size).unwrap_or(0) {
        let at = i.saturating_mul(size);
        let kind = items.i32(at, "kind")?;
        let db = items.u32(at.saturating_add(4), "dboid")?;
        let obj = if version >= 18 {
            let lo = items.u32(at.saturating_add(8), "objid_lo")?;
            let hi = items.u32(at.saturating_add(12), "objid_hi")?;
            (u64::from(hi) << 32) | u64::from(lo)
        } else {
            u64::from(items.u32(at.saturating_add(8), "objoid")?)
        };
        s.push_str(&format!(" {kind}/{db}/{obj}"));
    }
    Ok(())
}

/// xact_desc_commit and xact_desc_abort.
fn completion(version: u32, rec: &WalRecord<'_>, commit: bool) -> Result<String, String> {
    let what = if commit {
        "xl_xact_commit"
    } else {
        "xl_xact_abort"
    };
    let b = Body::main(rec, what);
    let xact_time = b.i64(0, "xact_time")?;
    let p = parse(version, rec.info, b, commit)?;
    let mut s = String::new();
    if p.twophase_xid != 0 {
        s.push_str(&format!("{}: ", p.twophase_xid));
    }
    s.push_str(&timestamp(xact_time));
    relations(&mut s, "rels", p.rels)?;
    subxacts(&mut s, p.subxacts)?;
    let origin = |s: &mut String| -> Result<(), String> {
        if p.xinfo & XACT_XINFO_HAS_ORIGIN != 0 {
            s.push_str(&format!(
                "; origin: node {}, lsn {}, at {}",
                rec.origin().unwrap_or(0),
                lsn(version, p.origin_lsn),
                timestamp(p.origin_timestamp)
            ));
        }
        Ok(())
    };
    if commit {
        if version >= 15 {
            stats(&mut s, version, "", p.stats)?;
        }
        if let Some(msgs) = p.msgs {
            invalidations(
                &mut s,
                version,
                msgs,
                p.db_id,
                p.ts_id,
                p.xinfo & XACT_COMPLETION_UPDATE_RELCACHE_FILE != 0,
            )?;
        }
        if version >= 15 && p.xinfo & XACT_COMPLETION_APPLY_FEEDBACK != 0 {
            s.push_str("; apply_feedback");
        }
        if p.xinfo & XACT_COMPLETION_FORCE_SYNC_COMMIT != 0 {
            s.push_str("; sync");
        }
        origin(&mut s)?;
    } else if version >= 15 {
        origin(&mut s)?;
        stats(&mut s, version, "", p.stats)?;
    }
    Ok(s)
}

/// xact_desc_prepare over ParsePrepareRecord: xl_xact_prepare (15 added the two stats
/// counts), then the gid and each array, every one MAXALIGNed.
fn prepare(version: u32, rec: &WalRecord<'_>) -> Result<String, String> {
    let b = Body::main(rec, "xl_xact_prepare");
    let v15 = version >= 15;
    let (ninval_at, header) = if v15 { (48, 72) } else { (40, 64) };
    let xid_time = b.i64(16, "prepared_at")?;
    let db = b.u32(12, "database")?;
    let nsub = count(b.i32(28, "nsubxacts")?, "nsubxacts")?;
    let ncommit = count(b.i32(32, "ncommitrels")?, "ncommitrels")?;
    let nabort = count(b.i32(36, "nabortrels")?, "nabortrels")?;
    let (ncommitstats, nabortstats) = if v15 {
        (
            count(b.i32(40, "ncommitstats")?, "ncommitstats")?,
            count(b.i32(44, "nabortstats")?, "nabortstats")?,
        )
    } else {
        (0, 0)
    };
    let ninval = count(b.i32(ninval_at, "ninvalmsgs")?, "ninvalmsgs")?;
    let init_file = b.bool(ninval_at.saturating_add(4), "initfileinval")?;
    let gidlen = usize::from(b.u16(ninval_at.saturating_add(6), "gidlen")?);
    let origin_lsn = b.u64(ninval_at.saturating_add(8), "origin_lsn")?;
    let origin_timestamp = b.i64(ninval_at.saturating_add(16), "origin_timestamp")?;
    let maxalign = |n: usize| n.saturating_add(7) & !7;
    let gid = b.array(header, gidlen, 1, "gid bytes")?;
    // strncpy: up to the first NUL within gidlen.
    let gid_end = gid.bytes.iter().position(|&c| c == 0).unwrap_or(gid.len());
    let gid_text = String::from_utf8_lossy(gid.bytes.get(..gid_end).unwrap_or(&[])).into_owned();
    let mut at = header.saturating_add(maxalign(gidlen));
    let mut next = |n: usize, size: usize, field: &str| -> Result<Body<'_>, String> {
        let part = b.array(at, n, size, field)?;
        at = at.saturating_add(maxalign(part.len()));
        Ok(part)
    };
    let subs = next(nsub, 4, "subxacts")?;
    let commit_rels = next(ncommit, 12, "commit rels")?;
    let abort_rels = next(nabort, 12, "abort rels")?;
    let item = stats_item_size(version);
    let commit_stats = next(ncommitstats, item, "commit stats")?;
    let abort_stats = next(nabortstats, item, "abort stats")?;
    let msgs = next(ninval, SIZE_OF_INVAL_MSG, "invalidation messages")?;
    let mut s = format!("gid {gid_text}: {}", timestamp(xid_time));
    relations(&mut s, "rels(commit)", Some(commit_rels))?;
    relations(&mut s, "rels(abort)", Some(abort_rels))?;
    if v15 {
        stats(&mut s, version, "commit ", Some(commit_stats))?;
        stats(&mut s, version, "abort ", Some(abort_stats))?;
    }
    subxacts(&mut s, Some(subs))?;
    invalidations(&mut s, version, msgs, db, 0, init_file)?;
    if v15 {
        if let Some(node) = rec.origin().filter(|&o| o != 0) {
            s.push_str(&format!(
                "; origin: node {node}, lsn {}, at {}",
                lsn(version, origin_lsn),
                timestamp(origin_timestamp)
            ));
        }
    }
    Ok(s)
}

/// xl_xact_assignment: the top-level xid and its subtransactions.
fn assignment(rec: &WalRecord<'_>) -> Result<String, String> {
    let b = Body::main(rec, "xl_xact_assignment");
    let xtop = b.u32(0, "xtop")?;
    let n = count(b.i32(4, "nsubxacts")?, "nsubxacts")?;
    let xids = b.array(8, n, 4, "xsub")?;
    let mut s = format!("xtop {xtop}: subxacts:");
    for i in 0..n {
        s.push_str(&format!(" {}", xids.u32(i.saturating_mul(4), "xsub")?));
    }
    Ok(s)
}
