//! Sequence records (access/rmgrdesc/seqdesc.c; commands/sequence.h, sequence_xlog.h in
//! 19): the sequence's new tuple, described by its relation.

use alloc::format;
use alloc::string::String;

use super::{Body, Desc, WalRecord};

const XLOG_SEQ_LOG: u8 = 0x00;

pub(super) fn desc(info: u8, rec: &WalRecord<'_>) -> Desc {
    Some(match info {
        XLOG_SEQ_LOG => Body::main(rec, "xl_seq_rec")
            .locator(0, "locator")
            .map(|l| format!("rel {}/{}/{}", l.spc_oid, l.db_oid, l.rel_number)),
        _ => Ok(String::new()),
    })
}
