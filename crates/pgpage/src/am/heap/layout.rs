//! The heap's on-disk rules beyond the tuple header (htup_details.h, transam.h): the sizes
//! and infomask bits verify_heapam reads, the special xids, the sector size of a torn write,
//! and the row heap_page_items() shows.

use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

pub(crate) const MIN_HEAP_TUPLE_SIZE: usize = 24;

pub(crate) const HEAP_HASOID_OLD: u16 = 0x0008;

/// One heap_page_items() row, plus heap_tuple_infomask_flags()' two arrays.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HeapItem {
    pub lp: u16,
    pub lp_off: u16,
    pub lp_flags: u8,
    pub lp_len: u16,
    pub t_xmin: Option<String>,
    pub t_xmax: Option<String>,
    /// int4 in pageinspect: t_cid or t_xvac read as signed.
    pub t_field3: Option<i32>,
    pub t_ctid: Option<String>,
    pub t_infomask2: Option<u16>,
    pub t_infomask: Option<u16>,
    pub t_hoff: Option<u8>,
    pub t_bits: Option<String>,
    pub t_oid: Option<String>,
    pub t_data: Option<String>,
    /// heap_tuple_infomask_flags(t_infomask, t_infomask2).raw_flags.
    pub raw_flags: Option<Vec<&'static str>>,
    /// heap_tuple_infomask_flags(t_infomask, t_infomask2).combined_flags.
    pub combined_flags: Option<Vec<&'static str>>,
    /// Only when the table's column types are known: each attribute's value as its output
    /// function prints it (null for a NULL, a compressed or external value, one longer than
    /// 64 bytes or of a type pgpage does not print)...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<Option<String>>>,
    /// ...and the attributes stored compressed or out of line, their varlena headers decoded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub toast: Option<Vec<crate::tuple::columns::ToastedDatum>>,
}

pub(crate) const MIN_LP_LEN: usize = 24;

/// htup_details.h: t_infomask's HEAP_UPDATED, t_infomask2's HOT bits.
pub(crate) const HEAP_UPDATED: u16 = 0x2000;

pub(crate) const HEAP_HOT_UPDATED: u16 = 0x4000;

pub(crate) const HEAP_ONLY_TUPLE: u16 = 0x8000;

/// transam.h: FrozenTransactionId, what HeapTupleHeaderGetXmin says of a frozen tuple.
pub(crate) const FROZEN_TRANSACTION_ID: u32 = 2;

/// transam.h: BootstrapTransactionId and FirstNormalTransactionId.
pub(crate) const BOOTSTRAP_TRANSACTION_ID: u32 = 1;

pub(crate) const FIRST_NORMAL_TRANSACTION_ID: u32 = 3;

/// Disk sectors: the unit a torn write tears along.
pub const SECTOR: usize = 512;

/// htup_details.h: SpecTokenOffsetNumber.
pub(crate) const SPEC_TOKEN_OFFSET_NUMBER: u16 = 0xfffe;
