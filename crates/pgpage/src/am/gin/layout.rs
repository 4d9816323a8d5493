//! GIN's on-disk layout (ginblock.h, gin_private.h): the page flags, where data pages start,
//! posting-list segments (ginpostinglist.c's varbyte encoding), and the rows
//! gin_page_opaque_info(), gin_metapage_info() and gin_leafpage_items() show.

use alloc::string::String;
use alloc::vec::Vec;

use crate::page::bufpage::SIZE_OF_PAGE_HEADER_DATA;
use crate::page::reader::Tid;
use serde::Serialize;

pub(crate) const GIN_DATA: u16 = 1 << 0;

pub(crate) const GIN_LEAF: u16 = 1 << 1;

pub(crate) const GIN_DELETED: u16 = 1 << 2;

pub(crate) const GIN_META: u16 = 1 << 3;

pub(crate) const GIN_LIST: u16 = 1 << 4;

pub(crate) const GIN_COMPRESSED: u16 = 1 << 7;

/// ginblock.h: GinDataPageGetData = PageGetContents + MAXALIGN(sizeof(ItemPointerData)).
pub(crate) const GIN_DATA_START: usize = SIZE_OF_PAGE_HEADER_DATA + 8;

/// ginpostinglist.c: MaxHeapTuplesPerPageBits.
pub(crate) const MAX_HEAP_TUPLES_PER_PAGE_BITS: u32 = 11;

/// One gin_leafpage_items() row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GinLeafItem {
    pub first_tid: String,
    pub nbytes: u16,
    pub tids: Vec<String>,
}

/// gin_metapage_info()'s columns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GinMeta {
    pub pending_head: u32,
    pub pending_tail: u32,
    pub tail_free_size: u32,
    pub n_pending_pages: u32,
    pub n_pending_tuples: i64,
    pub n_total_pages: u32,
    pub n_entry_pages: u32,
    pub n_data_pages: u32,
    pub n_entries: i64,
    pub version: i32,
}

/// gin_page_opaque_info()'s columns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GinSpecial {
    pub rightlink: u32,
    pub maxoff: u16,
    pub flags: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta: Option<GinMeta>,
}

/// ginpostinglist.c: ginPostingListDecode of one GinPostingList segment's varbyte deltas.
pub(crate) fn decode_segment(first: Tid, bytes: &[u8]) -> Vec<Tid> {
    let mut out = alloc::vec![first];
    let mut val =
        (u64::from(first.block) << MAX_HEAP_TUPLES_PER_PAGE_BITS) | u64::from(first.offset);
    let mut it = bytes.iter();
    while let Some(&b0) = it.next() {
        let mut delta = u64::from(b0 & 0x7F);
        let mut more = b0 & 0x80 != 0;
        let mut shift = 7u32;
        while more {
            let Some(&b) = it.next() else { break };
            // The seventh byte carries eight bits and no continuation.
            let (bits, cont) = if shift == 42 {
                (u64::from(b), false)
            } else {
                (u64::from(b & 0x7F), b & 0x80 != 0)
            };
            delta |= bits.checked_shl(shift).unwrap_or(0);
            more = cont;
            shift = shift.saturating_add(7);
        }
        val = val.wrapping_add(delta);
        let block = (val >> MAX_HEAP_TUPLES_PER_PAGE_BITS) as u32;
        let offset = (val & ((1 << MAX_HEAP_TUPLES_PER_PAGE_BITS) - 1)) as u16;
        out.push(Tid { block, offset });
    }
    out
}

/// ginblock.h: GIN_TREE_POSTING, the n-posting value of a tuple pointing at a posting tree.
pub(crate) const GIN_TREE_POSTING: u16 = 0xFFFF;

/// ginblock.h: GIN_ITUP_COMPRESSED, in the t_tid block number of a leaf entry tuple.
pub(crate) const GIN_ITUP_COMPRESSED: u32 = 1 << 31;

/// ginblock.h: sizeof(PostingItem), and where the first one starts (GinDataPageGetData).
pub(crate) const POSTING_ITEM_SIZE: usize = 10;

/// ginblock.h: GinNullCategory values; a key whose tuple has no null bit is GIN_CAT_NORM_KEY.
pub(crate) const GIN_CAT_NORM_KEY: u8 = 0;

/// ginblock.h: every GinPageOpaqueData.flags bit, GIN_DATA (1) to GIN_COMPRESSED (1 << 7).
pub(crate) const GIN_FLAGS_ALL: u16 = 0xFF;

/// ginblock.h: GIN_ROOT_BLKNO, where the entry tree starts.
pub(crate) const GIN_ROOT_BLKNO: u32 = 1;

/// ginblock.h: GinDataPageGetRightBound (PageGetContents) and GinDataPageGetData.
pub(crate) const GIN_RIGHT_BOUND: usize = SIZE_OF_PAGE_HEADER_DATA;

/// ginblock.h: sizeof(GinPostingList)'s header: the first TID and nbytes.
pub(crate) const SEGMENT_HEADER: usize = 8;
