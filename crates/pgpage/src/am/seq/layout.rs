//! A sequence page (commands/sequence.c): sequence_magic in the special space and the
//! special row pgpage shows.

use serde::Serialize;

/// A sequence page's sequence_magic and its tuple's FormData_pg_sequence_data.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SequenceSpecial {
    pub magic: u32,
    pub last_value: Option<i64>,
    pub log_cnt: Option<i64>,
    pub is_called: Option<bool>,
}

/// commands/sequence.c: SEQ_MAGIC.
pub(crate) const SEQ_MAGIC: u32 = 0x1717;
