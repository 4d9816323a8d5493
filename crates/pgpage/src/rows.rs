//! Rows out of heap tuples: which tuples a new transaction would see (from hint bits, as
//! heapam_visibility.c HeapTupleSatisfiesMVCC reads them before asking pg_xact), and each
//! visible tuple as a COPY line or a JSON object. The relation's columns come from a
//! catalog or a type list; I/O (pages, TOAST files) is the caller's.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use crate::copy::{self, CopyFormat};
use crate::findings::Finding;
use crate::layout::Endian;
use crate::toast::{detoast, ValueProblem};
use crate::tuple::{self, Attribute, ToastPointer, TupleHeader};
use crate::value::{output, Type};
use crate::visibility::{tuple_state, TransactionLog};

/// One column of the relation, in attribute number order; dropped ones are kept (their
/// bytes still take room in old tuples) and left out of the output.
#[derive(Clone, Debug)]
pub struct Column {
    pub name: String,
    pub ty: Type,
    /// pg_attribute's attlen, attalign, attisdropped and missing value.
    pub attribute: Attribute,
}

impl Column {
    /// A column of a type, its layout the type's own (a `--types` list).
    pub fn of_type(name: String, ty: Type) -> Column {
        let attribute = ty.attribute();
        Column {
            name,
            ty,
            attribute,
        }
    }
}

/// What a tuple header's hint bits say about the tuple for a new snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visibility {
    Visible,
    /// An aborted insert, or a delete or update that committed.
    Invisible,
    /// The hint bits do not say; pg_xact (or pg_multixact) would.
    Undecided,
}

/// Whether a new transaction sees the tuple at `tid` (block, line pointer), as
/// `visibility::tuple_state` decides it from hint bits first, then the transaction log; with
/// a log that lacks the status (none given, as for `rows --types`), the tuple is undecided.
pub fn visibility(h: &TupleHeader, tid: (u32, u16), log: &TransactionLog) -> Visibility {
    match tuple_state(h, tid, log) {
        Ok(s) if s.is_visible() => Visibility::Visible,
        Ok(_) => Visibility::Invisible,
        Err(_) => Visibility::Undecided,
    }
}

/// The output shape of `rows`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowFormat {
    Copy(CopyFormat),
    /// One JSON object per line: ctid, xmin, xmax, then every column by name.
    Json,
}

/// Why a tuple gives no row, or gives it with a warning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowProblem {
    pub finding: Finding,
    /// The column (0-based among all attributes) it was found at.
    pub column: Option<usize>,
    pub message: String,
}

/// Where a tuple sits, for ctid and messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ctid {
    pub block: u32,
    pub offset: u16,
}

/// A relation's columns, ready to turn tuples into lines.
pub struct RowWriter {
    columns: Vec<Column>,
    attrs: Vec<Attribute>,
    format: RowFormat,
    endian: Endian,
    /// Whether the attribute list is a guess to be checked against each tuple's length and
    /// natts (a `--types` list), not the relation's catalog.
    check_fit: bool,
    /// Columns printed (not dropped): COPY quotes `\\.` only in a row of one.
    visible: usize,
}

impl RowWriter {
    pub fn new(columns: Vec<Column>, format: RowFormat, endian: Endian, check_fit: bool) -> Self {
        let attrs = columns.iter().map(|c| c.attribute.clone()).collect();
        let visible = columns.iter().filter(|c| !c.attribute.attisdropped).count();
        RowWriter {
            visible,
            columns,
            attrs,
            format,
            endian,
            check_fit,
        }
    }

    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// Appends `tuple`'s line to `out`; on a problem nothing is appended. `fetch` returns
    /// an external value's reassembled chunks. Ok(Some(note)): the line was printed but is
    /// uncertain (a type list longer than the tuple's attributes: NULLs printed where a
    /// column added later would show its default).
    pub fn row(
        &self,
        tuple: &[u8],
        ctid: Ctid,
        fetch: &mut dyn FnMut(&ToastPointer) -> Result<Vec<u8>, ValueProblem>,
        out: &mut String,
    ) -> Result<Option<RowProblem>, RowProblem> {
        let e = self.endian;
        let mut datums = Vec::with_capacity(self.attrs.len());
        let used = tuple::deform(tuple, &self.attrs, e, &mut datums).map_err(|d| RowProblem {
            finding: d.finding,
            column: d.attnum,
            message: String::from(d.finding.message()),
        })?;
        let header = TupleHeader::read(tuple, e).ok_or(RowProblem {
            finding: Finding::HeapItemNotTuple,
            column: None,
            message: String::from(Finding::HeapItemNotTuple.message()),
        })?;
        if self.check_fit {
            let data_len = tuple.len().saturating_sub(usize::from(header.t_hoff));
            if header.natts() > self.attrs.len() || used != data_len {
                let f = Finding::TupleBytesLeftOver;
                return Err(RowProblem {
                    finding: f,
                    column: None,
                    message: format!(
                        "the tuple has {} attributes and {data_len} data bytes; the type list reads {} attributes and {used} bytes: it does not fit",
                        header.natts(),
                        self.attrs.len()
                    ),
                });
            }
        }
        let mut note = None;
        if self.check_fit && header.natts() < self.attrs.len() {
            let f = Finding::TupleAttributesFewer;
            note = Some(RowProblem {
                finding: f,
                column: Some(header.natts()),
                message: format!(
                    "the tuple has {} attributes, the type list {}: the rest printed as NULL (a column added later with a default would show that default)",
                    header.natts(),
                    self.attrs.len()
                ),
            });
        }
        // Written straight into `out`; a problem in any column takes the whole line back.
        let start = out.len();
        if let Err(p) = self.fields(&datums, &header, ctid, fetch, out) {
            out.truncate(start);
            return Err(p);
        }
        Ok(note)
    }

    /// The line of a deformed tuple, appended to `out`.
    fn fields(
        &self,
        datums: &[Option<&[u8]>],
        header: &TupleHeader,
        ctid: Ctid,
        fetch: &mut dyn FnMut(&ToastPointer) -> Result<Vec<u8>, ValueProblem>,
        out: &mut String,
    ) -> Result<(), RowProblem> {
        let e = self.endian;
        if self.format == RowFormat::Json {
            let _ = write!(
                out,
                "{{\"ctid\":\"({},{})\",\"xmin\":\"{}\",\"xmax\":\"{}\"",
                ctid.block, ctid.offset, header.t_xmin, header.t_xmax
            );
        }
        let mut first = true;
        for (i, (col, d)) in self.columns.iter().zip(datums).enumerate() {
            if col.attribute.attisdropped {
                continue;
            }
            match self.format {
                RowFormat::Copy(f) if !first => out.push(copy::delimiter(f)),
                RowFormat::Copy(_) => {}
                RowFormat::Json => {
                    out.push(',');
                    json_string(&col.name, out);
                    out.push(':');
                }
            }
            first = false;
            let Some(stored) = d else {
                match self.format {
                    RowFormat::Copy(f) => out.push_str(copy::null(f)),
                    RowFormat::Json => out.push_str("null"),
                }
                continue;
            };
            let problem = |p: ValueProblem| RowProblem {
                finding: p.finding,
                column: Some(i),
                message: p.message,
            };
            let payload = match col.attribute.attlen {
                -1 => detoast(stored, e, fetch).map_err(problem)?,
                -2 => alloc::borrow::Cow::Borrowed(stored.strip_suffix(&[0]).unwrap_or(stored)),
                _ => alloc::borrow::Cow::Borrowed(*stored),
            };
            let at = out.len();
            output(&col.ty, &payload, e, out).map_err(|f| problem(ValueProblem::from(f)))?;
            match self.format {
                RowFormat::Copy(f) => copy::finish_field(f, out, at, self.visible == 1),
                RowFormat::Json => {
                    let text = out.split_off(at);
                    json_string(&text, out);
                }
            }
        }
        match self.format {
            RowFormat::Copy(_) => out.push('\n'),
            RowFormat::Json => out.push_str("}\n"),
        }
        Ok(())
    }
}

/// A JSON string literal (RFC 8259 escapes).
fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(infomask: u16, xmin: u32, xmax: u32) -> TupleHeader {
        TupleHeader {
            t_xmin: xmin,
            t_xmax: xmax,
            t_field3: 0,
            t_ctid_block: 0,
            t_ctid_offset: 1,
            t_infomask2: 1,
            t_infomask: infomask,
            t_hoff: 24,
        }
    }

    #[test]
    fn hint_bits_decide_what_they_can() {
        use Visibility::*;
        // No pg_xact: only what the hint bits and the special xids say is decided.
        let log = TransactionLog::new(8192, Endian::Little);
        let v = |m, xmin, xmax| visibility(&h(m, xmin, xmax), (0, 1), &log);
        assert_eq!(v(0x0900, 700, 0), Visible);
        assert_eq!(v(0x0200 | 0x0800, 700, 0), Invisible);
        assert_eq!(v(0x0300, 700, 800), Undecided);
        assert_eq!(v(0x0100 | 0x0400, 700, 800), Invisible);
        assert_eq!(v(0x0100 | 0x0080, 700, 800), Visible);
        assert_eq!(v(0x0100 | 0x0040, 700, 800), Visible);
        assert_eq!(v(0x0100 | 0x1000, 700, 800), Undecided);
        assert_eq!(v(0x0800, 700, 0), Undecided);
        assert_eq!(v(0x0800, 2, 0), Visible);
    }
}
