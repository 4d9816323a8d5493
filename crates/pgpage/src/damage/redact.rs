//! Redaction for sharing a page: which bytes of a decoded page may hold users' row data, so
//! that a corruption report can carry the page's structure (header, line pointers, tuple
//! headers, special space, checksum) without the customer data around it.
//!
//! The rule reads the decoder's spans: a byte is row data when its span's role is tuple data,
//! or when it is free space or bytes nothing points at, which PostgreSQL does not clear:
//! PageRepairFragmentation (bufpage.c) moves the live tuples together and leaves the old
//! copies' bytes in the gap it opens between pd_lower and pd_upper, PageAddItem copies only a
//! tuple's own bytes into a slot whose alignment padding keeps what was there, and a line
//! pointer set unused or dead (ItemIdSetUnused, ItemIdSetDead) leaves its tuple's bytes where
//! they were. FSM and VM pages hold no row data.

use alloc::vec::Vec;

use serde::Serialize;

use crate::am::decoded::DecodedPage;
use crate::page::fields::{
    btree_tuple, gin_posting_list, index_tuple_data, posting_item, Role, SpanField, ALL_TABLES,
};
use crate::page::kind::PageKind;
use crate::page::spans::Span;

/// Why a byte range is masked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Masked {
    /// A tuple's column data: heap tuple data after t_hoff (TOAST chunks included), index
    /// keys, BRIN summaries, a sequence's values, bytes a line pointer points at that do not
    /// read as a tuple.
    TupleData,
    /// Between pd_lower and pd_upper: old tuples' bytes stay there after pruning and VACUUM.
    FreeSpace,
    /// Bytes no structure claims: alignment padding and space left by removed tuples.
    Unused,
}

impl Masked {
    pub fn as_str(self) -> &'static str {
        match self {
            Masked::TupleData => "tuple_data",
            Masked::FreeSpace => "free_space",
            Masked::Unused => "unused",
        }
    }
}

/// One masked byte range of a page (end exclusive).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MaskedRange {
    pub start: u32,
    pub end: u32,
    pub what: Masked,
}

impl MaskedRange {
    pub fn len(&self) -> u32 {
        self.end.saturating_sub(self.start)
    }

    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }
}

/// The masked ranges of one page, sorted and disjoint.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Redaction {
    pub ranges: Vec<MaskedRange>,
}

impl Redaction {
    /// Bytes masked for `what`.
    pub fn bytes_of(&self, what: Masked) -> u32 {
        self.ranges
            .iter()
            .filter(|r| r.what == what)
            .fold(0u32, |n, r| n.saturating_add(r.len()))
    }

    /// Every masked byte.
    pub fn bytes(&self) -> u32 {
        self.ranges
            .iter()
            .fold(0u32, |n, r| n.saturating_add(r.len()))
    }

    /// Whether page offset `off` is masked.
    pub fn masks(&self, off: usize) -> bool {
        let Ok(off) = u32::try_from(off) else {
            return false;
        };
        // Sorted and disjoint: the last range starting at or before `off` is the only candidate.
        let i = self.ranges.partition_point(|r| r.start <= off);
        i.checked_sub(1)
            .and_then(|i| self.ranges.get(i))
            .is_some_and(|r| off < r.end)
    }

    /// A per-byte mask of a page of `len` bytes: 1 where masked.
    pub fn byte_mask(&self, len: usize) -> Vec<u8> {
        let mut mask = alloc::vec![0u8; len];
        for r in &self.ranges {
            let (s, e) = (r.start as usize, (r.end as usize).min(len));
            if let Some(part) = mask.get_mut(s.min(e)..e) {
                part.fill(1);
            }
        }
        mask
    }

    /// The one-line note every redacted export carries.
    pub fn note(&self) -> alloc::string::String {
        alloc::format!(
            "row data redacted: {} bytes of tuple data masked ({} more of free space and unused bytes that may hold old rows); headers, line pointers, tuple headers and checksums kept",
            self.bytes_of(Masked::TupleData),
            self.bytes_of(Masked::FreeSpace).saturating_add(self.bytes_of(Masked::Unused)),
        )
    }

    fn push(&mut self, start: u32, end: u32, what: Masked) {
        if start >= end {
            return;
        }
        if let Some(last) = self.ranges.last_mut() {
            if last.end == start && last.what == what {
                last.end = end;
                return;
            }
        }
        self.ranges.push(MaskedRange { start, end, what });
    }
}

/// Tuple-data rows that hold pointers, not values: heap TIDs of a B-tree posting list and of
/// a GIN posting list, and a GIN posting tree's downlinks. They say where rows are, not what
/// they hold, and a report on a broken index needs them.
fn is_pointer(field: SpanField) -> bool {
    let SpanField::Field(id) = field else {
        return false;
    };
    [
        btree_tuple::TIDS.id,
        gin_posting_list::BYTES.id,
        posting_item::CHILD_BLKNO.id,
        posting_item::KEY.id,
    ]
    .contains(&id)
}

/// What of one span is row data; `tuples` is where tuples can lie (pd_lower to pd_special).
fn masked_part(s: &Span, tuples: &core::ops::Range<u32>) -> Option<(u32, Masked)> {
    match s.role {
        Role::TupleData if !is_pointer(s.field) => Some((s.start, Masked::TupleData)),
        Role::FreeSpace => Some((s.start, Masked::FreeSpace)),
        // Padding inside a metapage's or special space's structure holds no rows.
        Role::Unused if tuples.contains(&s.start) => Some((s.start, Masked::Unused)),
        // An index tuple whose size does not fit its layout is one span: its t_tid and t_info
        // (IndexTupleData's 8 bytes) are kept, whatever follows may be keys.
        Role::TupleHeader if s.field == SpanField::Field(index_tuple_data::TUPLE.id) => Some((
            s.start
                .saturating_add(u32::from(crate::page::fields::INDEX_TUPLE_DATA.size)),
            Masked::TupleData,
        )),
        _ => None,
    }
}

/// The byte ranges of `page` that may hold users' row data, from its decoded spans.
pub fn redact(page: &DecodedPage) -> Redaction {
    let mut out = Redaction::default();
    if matches!(page.kind, PageKind::Fsm | PageKind::Vm) {
        return out;
    }
    let h = &page.header;
    let tuples = u32::from(h.lower)..u32::from(h.special);
    for s in &page.spans {
        if let Some((start, what)) = masked_part(s, &tuples) {
            out.push(start.min(s.end), s.end, what);
        }
    }
    out
}

/// The pageinspect columns (as `inspect --json` names them) whose values are row data: the
/// columns of the tuple-data rows that hold values, and gist_page_items_bytea's `key_data`
/// (the whole index tuple as bytea, keys included).
pub fn is_row_data_column(column: &str) -> bool {
    column == "key_data"
        // A heap tuple's values, printed when the caller gave its column types.
        || column == "values"
        || ALL_TABLES.iter().any(|t| {
            t.fields.iter().any(|f| {
                f.role == Role::TupleData
                    && f.column == Some(column)
                    && !is_pointer(SpanField::Field(f.id))
            })
        })
}

#[cfg(test)]
mod tests;
