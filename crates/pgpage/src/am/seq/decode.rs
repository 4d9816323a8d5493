//! Sequence pages: one heap tuple of FormData_pg_sequence_data plus sequence_magic in the
//! special space.

use crate::am::decoded::{Items, Special};
use crate::am::seq::layout::{SequenceSpecial, SEQ_MAGIC};
use crate::findings::Finding;
use crate::page::bufpage::PageHeader;
use crate::page::fields::{
    form_data_pg_sequence_data as seq_data, heap_tuple_header_data as htup, sequence_magic,
    FORM_DATA_PG_SEQUENCE_DATA, SEQUENCE_MAGIC,
};
use crate::page::reader::Reader;
use crate::page::spans::Spans;

pub(crate) fn sequence(
    r: &Reader,
    header: &PageHeader,
    spans: &mut Spans,
) -> (Items, Option<Special>) {
    let (rows, _) = crate::am::heap::decode::heap_rows(r, header, None, spans);
    let at = usize::from(header.special);
    spans.table(at, &SEQUENCE_MAGIC, None);
    let magic = r.get(at, &sequence_magic::MAGIC);
    if magic != SEQ_MAGIC {
        spans.flag(&sequence_magic::MAGIC, Finding::SequenceMagicWrong);
    }
    let mut special = SequenceSpecial {
        magic,
        last_value: None,
        log_cnt: None,
        is_called: None,
    };
    // commands/sequence.c reads the first tuple's data as FormData_pg_sequence_data.
    if let Some(first) = rows.first() {
        if let (Some(hoff), Some(_)) = (first.t_hoff, first.t_data.as_ref()) {
            let base = usize::from(first.lp_off).saturating_add(usize::from(hoff));
            let t = &FORM_DATA_PG_SEQUENCE_DATA;
            spans.remove(&htup::T_DATA, Some(first.lp));
            spans.table(base, t, Some(first.lp));
            let at = |f: &crate::page::fields::Field| base.saturating_add(usize::from(f.offset));
            special.last_value = r.i64(at(&seq_data::LAST_VALUE));
            special.log_cnt = r.i64(at(&seq_data::LOG_CNT));
            special.is_called = r.field(base, &seq_data::IS_CALLED).map(|b| b != 0);
        }
    }
    (Items::Heap(rows), Some(Special::Sequence(special)))
}
