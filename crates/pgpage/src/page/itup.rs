//! IndexTupleData (itup.h), the tuple header every index access method but GIN's posting
//! lists and BRIN's summaries stores: its TID, t_info's size and flags, and its spans.

use crate::page::bufpage::{at, ItemId};
use crate::page::fields::{index_tuple_data, LP_UNUSED};
use crate::page::reader::{Reader, Tid};
use crate::page::spans::Spans;

/// itup.h: IndexTupleData as read at `off`: t_tid, t_info, size and data offset.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IndexTuple {
    pub tid: Tid,
    pub info: u16,
}

impl IndexTuple {
    pub fn read(r: &Reader, off: usize) -> Option<IndexTuple> {
        Some(IndexTuple {
            tid: r.tid(off.checked_add(usize::from(index_tuple_data::T_TID.offset))?)?,
            info: r.field(off, &index_tuple_data::T_INFO)? as u16,
        })
    }
    /// IndexTupleSize: t_info & INDEX_SIZE_MASK.
    pub fn size(&self) -> usize {
        usize::from(self.info & 0x1FFF)
    }
    pub fn has_nulls(&self) -> bool {
        self.info & 0x8000 != 0
    }
    pub fn has_varwidths(&self) -> bool {
        self.info & 0x4000 != 0
    }
    /// IndexInfoFindDataOffset: MAXALIGN(sizeof(IndexTupleData) [+ IndexAttributeBitMapData]).
    pub fn data_offset(&self) -> usize {
        if self.has_nulls() {
            16
        } else {
            8
        }
    }
    /// Emits the tuple's spans at `off` (header, null bitmap, data up to `len`).
    pub fn spans(&self, off: usize, len: usize, item: u16, spans: &mut Spans) {
        spans.table(off, &crate::page::fields::INDEX_TUPLE_DATA, Some(item));
        if self.has_nulls() {
            spans.push(
                at(off, &index_tuple_data::T_BITS),
                4,
                &index_tuple_data::T_BITS,
                Some(item),
                None,
            );
        }
        let data = self.data_offset();
        if len > data {
            spans.push(
                off.saturating_add(data),
                len.saturating_sub(data),
                &index_tuple_data::T_DATA,
                Some(item),
                None,
            );
        }
    }
}

/// Index tuples behind line pointers as bt_page_items' first columns show them, for pages of
/// access methods without an item function of their own.
pub(crate) fn index_tuple_spans(r: &Reader, lps: &[ItemId], spans: &mut Spans) {
    for id in lps {
        if id.flags == LP_UNUSED || !id.storage_ok(r.len()) {
            continue;
        }
        let off = usize::from(id.off);
        if let Some(t) = IndexTuple::read(r, off) {
            t.spans(off, usize::from(id.len), id.lp, spans);
        }
    }
}
