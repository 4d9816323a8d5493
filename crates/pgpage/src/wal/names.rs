//! Record types as pg_waldump and pg_walinspect print them: each resource manager's
//! rm_identify (access/rmgrdesc/*desc.c) of each release from 13 to 19, one row per name, with
//! the first and last release that names the info bits so. Names and bits changed over the
//! releases (Heap2's CLEAN became PRUNE in 14 and three PRUNE_* records in 17; Database's
//! CREATE split in 15; Heap2's VISIBLE is gone in 19, whose prune records carry the
//! visibility-map bits), so a record's name needs the WAL's version (its page magic).

use alloc::format;
use alloc::string::String;

/// (resource manager id, `info & ~XLR_INFO_MASK`, first release, last release, name).
type Row = (u8, u8, u32, u32, &'static str);

/// Resource manager ids of access/rmgrlist.h (13 to 18; 19 adds XLOG2).
pub(super) const XLOG: u8 = 0;
const XACT: u8 = 1;
const SMGR: u8 = 2;
const CLOG: u8 = 3;
const DBASE: u8 = 4;
const TBLSPC: u8 = 5;
const MULTIXACT: u8 = 6;
const RELMAP: u8 = 7;
const STANDBY: u8 = 8;
pub(super) const HEAP2: u8 = 9;
pub(super) const HEAP: u8 = 10;
pub(super) const BTREE: u8 = 11;
const HASH: u8 = 12;
const GIN: u8 = 13;
const GIST: u8 = 14;
const SEQ: u8 = 15;
const SPGIST: u8 = 16;
const BRIN: u8 = 17;
const COMMIT_TS: u8 = 18;
const REPLORIGIN: u8 = 19;
const GENERIC: u8 = 20;
const LOGICALMSG: u8 = 21;
const XLOG2: u8 = 22;

/// The last release pgpage reads; rows valid "to this day" end here.
const LAST: u32 = 19;

#[rustfmt::skip]
const RECORD_TYPES: &[Row] = &[
    // xlogdesc.c xlog_identify; pg_control.h XLOG_*. OVERWRITE_CONTRECORD came with the 2021
    // minor releases of every branch (13.5, 14.0); CHECKPOINT_REDO with 17; ASSIGN_LSN and
    // LOGICAL_DECODING_STATUS_CHANGE with 19.
    (XLOG, 0x00, 13, LAST, "CHECKPOINT_SHUTDOWN"),
    (XLOG, 0x10, 13, LAST, "CHECKPOINT_ONLINE"),
    (XLOG, 0x20, 13, LAST, "NOOP"),
    (XLOG, 0x30, 13, LAST, "NEXTOID"),
    (XLOG, 0x40, 13, LAST, "SWITCH"),
    (XLOG, 0x50, 13, LAST, "BACKUP_END"),
    (XLOG, 0x60, 13, LAST, "PARAMETER_CHANGE"),
    (XLOG, 0x70, 13, LAST, "RESTORE_POINT"),
    (XLOG, 0x80, 13, LAST, "FPW_CHANGE"),
    (XLOG, 0x90, 13, LAST, "END_OF_RECOVERY"),
    (XLOG, 0xA0, 13, LAST, "FPI_FOR_HINT"),
    (XLOG, 0xB0, 13, LAST, "FPI"),
    (XLOG, 0xD0, 13, LAST, "OVERWRITE_CONTRECORD"),
    (XLOG, 0xC0, 19, LAST, "ASSIGN_LSN"),
    (XLOG, 0xE0, 17, LAST, "CHECKPOINT_REDO"),
    (XLOG, 0xF0, 19, LAST, "LOGICAL_DECODING_STATUS_CHANGE"),
    // xlogdesc.c xlog2_identify (19); pg_control.h XLOG2_*.
    (XLOG2, 0x00, 19, LAST, "CHECKSUMS"),
    // xactdesc.c xact_identify switches on info & XLOG_XACT_OPMASK (xact.h): see `mask`.
    (XACT, 0x00, 13, LAST, "COMMIT"),
    (XACT, 0x10, 13, LAST, "PREPARE"),
    (XACT, 0x20, 13, LAST, "ABORT"),
    (XACT, 0x30, 13, LAST, "COMMIT_PREPARED"),
    (XACT, 0x40, 13, LAST, "ABORT_PREPARED"),
    (XACT, 0x50, 13, LAST, "ASSIGNMENT"),
    (XACT, 0x60, 14, LAST, "INVALIDATION"),
    // smgrdesc.c; catalog/storage_xlog.h.
    (SMGR, 0x10, 13, LAST, "CREATE"),
    (SMGR, 0x20, 13, LAST, "TRUNCATE"),
    // clogdesc.c; access/clog.h.
    (CLOG, 0x00, 13, LAST, "ZEROPAGE"),
    (CLOG, 0x10, 13, LAST, "TRUNCATE"),
    // dbasedesc.c; commands/dbcommands_xlog.h: 15 added CREATE DATABASE ... STRATEGY.
    (DBASE, 0x00, 13, 14, "CREATE"),
    (DBASE, 0x10, 13, 14, "DROP"),
    (DBASE, 0x00, 15, LAST, "CREATE_FILE_COPY"),
    (DBASE, 0x10, 15, LAST, "CREATE_WAL_LOG"),
    (DBASE, 0x20, 15, LAST, "DROP"),
    // tblspcdesc.c; commands/tablespace.h.
    (TBLSPC, 0x00, 13, LAST, "CREATE"),
    (TBLSPC, 0x10, 13, LAST, "DROP"),
    // mxactdesc.c; access/multixact.h.
    (MULTIXACT, 0x00, 13, LAST, "ZERO_OFF_PAGE"),
    (MULTIXACT, 0x10, 13, LAST, "ZERO_MEM_PAGE"),
    (MULTIXACT, 0x20, 13, LAST, "CREATE_ID"),
    (MULTIXACT, 0x30, 13, LAST, "TRUNCATE_ID"),
    // relmapdesc.c; utils/relmapper.h.
    (RELMAP, 0x00, 13, LAST, "UPDATE"),
    // standbydesc.c; storage/standbydefs.h.
    (STANDBY, 0x00, 13, LAST, "LOCK"),
    (STANDBY, 0x10, 13, LAST, "RUNNING_XACTS"),
    (STANDBY, 0x20, 13, LAST, "INVALIDATIONS"),
    // heapdesc.c heap2_identify; access/heapam_xlog.h XLOG_HEAP2_*, 0x80 XLOG_HEAP_INIT_PAGE.
    (HEAP2, 0x00, 13, LAST, "REWRITE"),
    (HEAP2, 0x10, 13, 13, "CLEAN"),
    (HEAP2, 0x20, 13, 13, "FREEZE_PAGE"),
    (HEAP2, 0x30, 13, 13, "CLEANUP_INFO"),
    (HEAP2, 0x10, 14, 16, "PRUNE"),
    (HEAP2, 0x20, 14, 16, "VACUUM"),
    (HEAP2, 0x30, 14, 16, "FREEZE_PAGE"),
    (HEAP2, 0x10, 17, LAST, "PRUNE_ON_ACCESS"),
    (HEAP2, 0x20, 17, LAST, "PRUNE_VACUUM_SCAN"),
    (HEAP2, 0x30, 17, LAST, "PRUNE_VACUUM_CLEANUP"),
    (HEAP2, 0x40, 13, 18, "VISIBLE"),
    (HEAP2, 0x50, 13, LAST, "MULTI_INSERT"),
    (HEAP2, 0xD0, 13, LAST, "MULTI_INSERT+INIT"),
    (HEAP2, 0x60, 13, LAST, "LOCK_UPDATED"),
    (HEAP2, 0x70, 13, LAST, "NEW_CID"),
    // heapdesc.c heap_identify; XLOG_HEAP_*, +INIT only where the server sets it.
    (HEAP, 0x00, 13, LAST, "INSERT"),
    (HEAP, 0x80, 13, LAST, "INSERT+INIT"),
    (HEAP, 0x10, 13, LAST, "DELETE"),
    (HEAP, 0x20, 13, LAST, "UPDATE"),
    (HEAP, 0xA0, 13, LAST, "UPDATE+INIT"),
    (HEAP, 0x30, 13, LAST, "TRUNCATE"),
    (HEAP, 0x40, 13, LAST, "HOT_UPDATE"),
    (HEAP, 0xC0, 13, LAST, "HOT_UPDATE+INIT"),
    (HEAP, 0x50, 13, LAST, "HEAP_CONFIRM"),
    (HEAP, 0x60, 13, LAST, "LOCK"),
    (HEAP, 0x70, 13, LAST, "INPLACE"),
    // nbtdesc.c btree_identify; access/nbtxlog.h (numbered anew in 13 for deduplication).
    (BTREE, 0x00, 13, LAST, "INSERT_LEAF"),
    (BTREE, 0x10, 13, LAST, "INSERT_UPPER"),
    (BTREE, 0x20, 13, LAST, "INSERT_META"),
    (BTREE, 0x30, 13, LAST, "SPLIT_L"),
    (BTREE, 0x40, 13, LAST, "SPLIT_R"),
    (BTREE, 0x50, 13, LAST, "INSERT_POST"),
    (BTREE, 0x60, 13, LAST, "DEDUP"),
    (BTREE, 0x70, 13, LAST, "DELETE"),
    (BTREE, 0x80, 13, LAST, "UNLINK_PAGE"),
    (BTREE, 0x90, 13, LAST, "UNLINK_PAGE_META"),
    (BTREE, 0xA0, 13, LAST, "NEWROOT"),
    (BTREE, 0xB0, 13, LAST, "MARK_PAGE_HALFDEAD"),
    (BTREE, 0xC0, 13, LAST, "VACUUM"),
    (BTREE, 0xD0, 13, LAST, "REUSE_PAGE"),
    (BTREE, 0xE0, 13, LAST, "META_CLEANUP"),
    // hashdesc.c; access/hash_xlog.h.
    (HASH, 0x00, 13, LAST, "INIT_META_PAGE"),
    (HASH, 0x10, 13, LAST, "INIT_BITMAP_PAGE"),
    (HASH, 0x20, 13, LAST, "INSERT"),
    (HASH, 0x30, 13, LAST, "ADD_OVFL_PAGE"),
    (HASH, 0x40, 13, LAST, "SPLIT_ALLOCATE_PAGE"),
    (HASH, 0x50, 13, LAST, "SPLIT_PAGE"),
    (HASH, 0x60, 13, LAST, "SPLIT_COMPLETE"),
    (HASH, 0x70, 13, LAST, "MOVE_PAGE_CONTENTS"),
    (HASH, 0x80, 13, LAST, "SQUEEZE_PAGE"),
    (HASH, 0x90, 13, LAST, "DELETE"),
    (HASH, 0xA0, 13, LAST, "SPLIT_CLEANUP"),
    (HASH, 0xB0, 13, LAST, "UPDATE_META_PAGE"),
    (HASH, 0xC0, 13, LAST, "VACUUM_ONE_PAGE"),
    // gindesc.c; access/ginxlog.h.
    (GIN, 0x10, 13, LAST, "CREATE_PTREE"),
    (GIN, 0x20, 13, LAST, "INSERT"),
    (GIN, 0x30, 13, LAST, "SPLIT"),
    (GIN, 0x40, 13, LAST, "VACUUM_PAGE"),
    (GIN, 0x50, 13, LAST, "DELETE_PAGE"),
    (GIN, 0x60, 13, LAST, "UPDATE_META_PAGE"),
    (GIN, 0x70, 13, LAST, "INSERT_LISTPAGE"),
    (GIN, 0x80, 13, LAST, "DELETE_LISTPAGE"),
    (GIN, 0x90, 13, LAST, "VACUUM_DATA_LEAF_PAGE"),
    // gistdesc.c; access/gistxlog.h.
    (GIST, 0x00, 13, LAST, "PAGE_UPDATE"),
    (GIST, 0x10, 13, LAST, "DELETE"),
    (GIST, 0x20, 13, LAST, "PAGE_REUSE"),
    (GIST, 0x30, 13, LAST, "PAGE_SPLIT"),
    (GIST, 0x60, 13, LAST, "PAGE_DELETE"),
    (GIST, 0x70, 13, LAST, "ASSIGN_LSN"),
    // seqdesc.c; commands/sequence.h.
    (SEQ, 0x00, 13, LAST, "LOG"),
    // spgdesc.c; access/spgxlog.h.
    (SPGIST, 0x10, 13, LAST, "ADD_LEAF"),
    (SPGIST, 0x20, 13, LAST, "MOVE_LEAFS"),
    (SPGIST, 0x30, 13, LAST, "ADD_NODE"),
    (SPGIST, 0x40, 13, LAST, "SPLIT_TUPLE"),
    (SPGIST, 0x50, 13, LAST, "PICKSPLIT"),
    (SPGIST, 0x60, 13, LAST, "VACUUM_LEAF"),
    (SPGIST, 0x70, 13, LAST, "VACUUM_ROOT"),
    (SPGIST, 0x80, 13, LAST, "VACUUM_REDIRECT"),
    // brindesc.c; access/brin_xlog.h, 0x80 XLOG_BRIN_INIT_PAGE.
    (BRIN, 0x00, 13, LAST, "CREATE_INDEX"),
    (BRIN, 0x10, 13, LAST, "INSERT"),
    (BRIN, 0x90, 13, LAST, "INSERT+INIT"),
    (BRIN, 0x20, 13, LAST, "UPDATE"),
    (BRIN, 0xA0, 13, LAST, "UPDATE+INIT"),
    (BRIN, 0x30, 13, LAST, "SAMEPAGE_UPDATE"),
    (BRIN, 0x40, 13, LAST, "REVMAP_EXTEND"),
    (BRIN, 0x50, 13, LAST, "DESUMMARIZE"),
    // committsdesc.c; access/commit_ts.h.
    (COMMIT_TS, 0x00, 13, LAST, "ZEROPAGE"),
    (COMMIT_TS, 0x10, 13, LAST, "TRUNCATE"),
    // replorigindesc.c; replication/origin.h.
    (REPLORIGIN, 0x00, 13, LAST, "SET"),
    (REPLORIGIN, 0x10, 13, LAST, "DROP"),
    // logicalmsgdesc.c; replication/message.h.
    (LOGICALMSG, 0x00, 13, LAST, "MESSAGE"),
];

/// The bits rm_identify switches on: ~XLR_INFO_MASK, less XLOG_XACT_HAS_INFO for
/// Transaction (xact_identify masks with XLOG_XACT_OPMASK).
fn mask(rmid: u8) -> u8 {
    if rmid == XACT {
        0x70
    } else {
        0xF0
    }
}

/// The record type pg_waldump prints after `desc:` and pg_walinspect in `record_type`, for
/// WAL of `version`: rm_identify's name, or `UNKNOWN (%x)` where it has none (as both print
/// it), which is also what a custom resource manager's records get here.
pub fn record_type(version: u32, rmid: u8, info: u8) -> String {
    let bits = info & mask(rmid);
    // genericdesc.c generic_identify names every record alike.
    if rmid == GENERIC {
        return String::from("Generic");
    }
    let name = RECORD_TYPES
        .iter()
        .find(|&&(r, i, first, last, _)| {
            r == rmid && i == bits && (first..=last).contains(&version)
        })
        .map(|row| row.4);
    match name {
        Some(n) => String::from(n),
        None => format!("UNKNOWN ({:x})", info & 0xF0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One name per (resource manager, bits) in each release: two rows that overlap would
    /// make the answer depend on row order.
    #[test]
    fn rows_do_not_overlap_and_span_the_releases_read() {
        for (n, a) in RECORD_TYPES.iter().enumerate() {
            assert!(a.2 <= a.3 && a.2 >= 13 && a.3 <= LAST, "{a:?}");
            assert_eq!(a.1 & !mask(a.0), 0, "{a:?}: bits outside the mask");
            for b in RECORD_TYPES.iter().skip(n.saturating_add(1)) {
                let overlap = a.0 == b.0 && a.1 == b.1 && a.2 <= b.3 && b.2 <= a.3;
                assert!(!overlap, "{a:?} and {b:?}");
            }
        }
    }

    #[test]
    fn names_follow_the_release() {
        assert_eq!(record_type(13, HEAP2, 0x10), "CLEAN");
        assert_eq!(record_type(16, HEAP2, 0x10), "PRUNE");
        assert_eq!(record_type(17, HEAP2, 0x10), "PRUNE_ON_ACCESS");
        assert_eq!(record_type(14, DBASE, 0x00), "CREATE");
        assert_eq!(record_type(15, DBASE, 0x10), "CREATE_WAL_LOG");
        // XLOG_XACT_HAS_INFO and XLR_INFO_MASK's bits do not change the name.
        assert_eq!(record_type(18, XACT, 0x80 | 0x01), "COMMIT");
        assert_eq!(record_type(16, XLOG, 0xE0), "UNKNOWN (e0)");
        assert_eq!(record_type(18, 130, 0x10), "UNKNOWN (10)");
        assert_eq!(record_type(15, GENERIC, 0x10), "Generic");
    }
}
