//! The byte spans of a decoded page: which row of which structure each byte range is, with
//! the finding that flags it when its bytes look wrong.

use alloc::vec::Vec;

use serde::Serialize;

use crate::findings::{Finding, Values};
use crate::page::fields::{item_id_data, Field, Role, SpanField, Table};

/// A byte range of the page and the field it belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Span {
    pub start: u32,
    pub end: u32,
    /// Its row in its structure's table (`PageHeaderData.pd_checksum`), or the region.
    pub field: SpanField,
    pub role: Role,
    /// The line pointer number (OffsetNumber) this span belongs to, if any.
    pub item: Option<u16>,
    /// Why the bytes look wrong, if they do.
    pub problem: Option<Finding>,
}

/// The span list being built for a page.
pub(crate) struct Spans {
    pub(crate) v: Vec<Span>,
    pub(crate) len: usize,
    /// Findings about the page as a whole ([`DecodedPage::findings`]).
    pub(crate) notes: Vec<Finding>,
    /// Only the findings are wanted ([`check_page`]): spans without a problem are not kept,
    /// a flag on a span not kept is kept as an empty span, and rows build no text.
    pub(crate) lean: bool,
    /// The highest line pointer given a span, for `flag_line_pointers` when lean.
    pub(crate) last_lp: u16,
    /// The numbers of findings flagged with [`Spans::flag_item_valued`].
    pub(crate) values: Vec<ValuedFinding>,
}

impl Spans {
    pub(crate) fn new(len: usize, lean: bool) -> Spans {
        Spans {
            v: Vec::new(),
            len,
            notes: Vec::new(),
            lean,
            last_lp: 0,
            values: Vec::new(),
        }
    }

    /// Whether the rows' text (hex data, tids, flag names) is wanted: not when lean.
    pub fn full(&self) -> bool {
        !self.lean
    }

    /// When lean, `problem` on `field` of `item` as an empty span, unless one is kept
    /// already (the first finding stays, as on a span); `replace` as `reflag_item`.
    pub(crate) fn lean_flag(
        &mut self,
        field: &Field,
        item: Option<u16>,
        problem: Finding,
        replace: bool,
    ) {
        let id = SpanField::Field(field.id);
        match self
            .v
            .iter_mut()
            .rev()
            .find(|s| s.field == id && (item.is_none() || s.item == item))
        {
            Some(s) if replace => s.problem = Some(problem),
            Some(s) => {
                s.problem.get_or_insert(problem);
            }
            None => self.v.push(Span {
                start: 0,
                end: 0,
                field: id,
                role: field.role,
                item,
                problem: Some(problem),
            }),
        }
    }

    /// A finding about the page as a whole, not one span's bytes.
    pub fn note(&mut self, finding: Finding) {
        if !self.notes.contains(&finding) {
            self.notes.push(finding);
        }
    }

    /// Adds `[start, start+size)` as `field`, clipped to the page; clipping flags it.
    pub fn push(
        &mut self,
        start: usize,
        size: usize,
        field: &Field,
        item: Option<u16>,
        problem: Option<Finding>,
    ) {
        self.push_region(
            start,
            size,
            SpanField::Field(field.id),
            field.role,
            item,
            problem,
        );
    }

    pub(crate) fn push_region(
        &mut self,
        start: usize,
        size: usize,
        field: SpanField,
        role: Role,
        item: Option<u16>,
        problem: Option<Finding>,
    ) {
        let end = start.saturating_add(size);
        let (s, e) = (start.min(self.len), end.min(self.len));
        let problem = if e < end {
            problem.or(Some(Finding::SpanPastPage))
        } else {
            problem
        };
        if self.lean {
            if field == SpanField::Field(item_id_data::LP_OFF.id) {
                self.last_lp = self.last_lp.max(item.unwrap_or(0));
            }
            if problem.is_none() {
                return;
            }
        }
        if s < e {
            let to32 = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
            self.v.push(Span {
                start: to32(s),
                end: to32(e),
                field,
                role,
                item,
                problem,
            });
        }
    }

    /// One span per fixed field of `table` laid at `base`; bit fields sharing a storage unit
    /// get one span, named by the unit's first row. Variable parts are the decoder's to walk.
    pub fn table(&mut self, base: usize, table: &Table, item: Option<u16>) {
        let mut unit = None;
        for f in table.fields {
            if f.size == 0 {
                continue;
            }
            if f.bits.is_some() {
                if unit == Some(f.offset) {
                    continue;
                }
                unit = Some(f.offset);
            }
            self.push(
                base.saturating_add(usize::from(f.offset)),
                usize::from(f.size),
                f,
                item,
                None,
            );
        }
    }

    /// Flags the most recent span of `field` (a value that is out of range or insane).
    pub fn flag(&mut self, field: &Field, problem: Finding) {
        if self.lean {
            return self.lean_flag(field, None, problem, false);
        }
        let id = SpanField::Field(field.id);
        if let Some(s) = self.v.iter_mut().rev().find(|s| s.field == id) {
            s.problem.get_or_insert(problem);
        }
    }

    /// Flags the span of `field` that belongs to line pointer `item`.
    pub fn flag_item(&mut self, field: &Field, item: u16, problem: Finding) {
        if self.lean {
            return self.lean_flag(field, Some(item), problem, false);
        }
        let id = SpanField::Field(field.id);
        if let Some(s) = self
            .v
            .iter_mut()
            .rev()
            .find(|s| s.field == id && s.item == Some(item))
        {
            s.problem.get_or_insert(problem);
        }
    }

    /// [`Spans::flag_item`] for a finding whose message prints `values`.
    pub fn flag_item_valued(&mut self, field: &Field, item: u16, problem: Finding, values: &[u32]) {
        self.value(Some(item), problem, Values::new(values));
        self.flag_item(field, item, problem);
    }

    /// [`Spans::flag`] for a finding about the page whose message prints `values`.
    pub fn flag_valued(&mut self, field: &Field, problem: Finding, values: &[u32]) {
        self.value(None, problem, Values::new(values));
        self.flag(field, problem);
    }

    /// How many line pointers carry a finding.
    /// Line pointers with a finding of their own: a torn write's flag says the line pointer
    /// is this header's and the tuple another version's, so it does not count against them.
    pub(crate) fn flagged_line_pointers(&self) -> usize {
        let id = SpanField::Field(item_id_data::LP_OFF.id);
        self.v
            .iter()
            .filter(|s| {
                s.field == id
                    && s.item.is_some()
                    && s.problem.is_some_and(|p| p != Finding::TornSectors)
            })
            .count()
    }

    /// Records the numbers the message of `finding` on line pointer `item` prints (the
    /// first check to record them for that line pointer keeps them).
    pub fn value(&mut self, item: Option<u16>, finding: Finding, values: Values) {
        let v = ValuedFinding {
            item,
            finding,
            values,
        };
        if !self
            .values
            .iter()
            .any(|x| x.item == v.item && x.finding == v.finding)
        {
            self.values.push(v);
        }
    }

    /// Flags the span of `field` of line pointer `item` with `problem`, replacing a finding
    /// a more general rule put there first.
    pub fn reflag_item(&mut self, field: &Field, item: u16, problem: Finding) {
        if self.lean {
            return self.lean_flag(field, Some(item), problem, true);
        }
        let id = SpanField::Field(field.id);
        if let Some(s) = self
            .v
            .iter_mut()
            .rev()
            .find(|s| s.field == id && s.item == Some(item))
        {
            s.problem = Some(problem);
        }
    }

    /// Flags the line pointers `which` picks, in one pass: flag_item for each of thousands of
    /// garbage line pointers searched the spans each time (quadratic, milliseconds a page).
    pub fn flag_line_pointers(&mut self, problem: Finding, which: impl Fn(u16) -> bool) {
        if self.lean {
            for lp in (1..=self.last_lp).filter(|&lp| which(lp)) {
                self.lean_flag(&item_id_data::LP_OFF, Some(lp), problem, false);
            }
            return;
        }
        let id = SpanField::Field(item_id_data::LP_OFF.id);
        for s in &mut self.v {
            if s.field == id && s.item.is_some_and(&which) {
                s.problem.get_or_insert(problem);
            }
        }
    }

    /// Drops the spans of `field` of `item` (to replace them with finer ones).
    pub fn remove(&mut self, field: &Field, item: Option<u16>) {
        let id = SpanField::Field(field.id);
        self.v.retain(|s| !(s.field == id && s.item == item));
    }

    /// Sorted, disjoint spans covering the page: overlaps are clipped (and flagged), gaps
    /// become `unused`.
    pub(crate) fn finish(mut self) -> Vec<Span> {
        self.v.sort_by_key(|s| (s.start, s.end));
        let mut out: Vec<Span> = Vec::with_capacity(self.v.len().saturating_mul(2));
        let mut at = 0u32;
        for mut s in self.v {
            if s.start < at {
                if s.end <= at {
                    // Wholly inside an earlier span: the earlier span keeps the bytes.
                    if let Some(prev) = out.last_mut() {
                        prev.problem.get_or_insert(Finding::SpanOverlap);
                    }
                    continue;
                }
                s.start = at;
                s.problem.get_or_insert(Finding::SpanOverlap);
            }
            if s.start > at {
                out.push(Span {
                    start: at,
                    end: s.start,
                    field: SpanField::Unused,
                    role: Role::Unused,
                    item: None,
                    problem: None,
                });
            }
            at = s.end;
            out.push(s);
        }
        let len = u32::try_from(self.len).unwrap_or(u32::MAX);
        if at < len {
            out.push(Span {
                start: at,
                end: len,
                field: SpanField::Unused,
                role: Role::Unused,
                item: None,
                problem: None,
            });
        }
        out
    }
}
/// The numbers a finding about one line pointer prints in its message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValuedFinding {
    pub item: Option<u16>,
    pub finding: Finding,
    pub values: Values,
}

/// The values recorded for `finding` on `item`, none when its message has no numbers.
pub(crate) fn values_of(values: &[ValuedFinding], finding: Finding, item: Option<u16>) -> Values {
    values
        .iter()
        .find(|v| v.finding == finding && v.item == item)
        .map(|v| v.values)
        .unwrap_or_default()
}
