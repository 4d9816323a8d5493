//! Rows out in the browser: a `RowsReader` a worker feeds with runs of pages, its columns
//! from a type list or from the catalogs (`TableReader`, driven by wanted/give as
//! `CatalogReader` is); TOAST chunks are indexed from the TOAST relation's pages and read
//! back through a synchronous JS callback (FileReaderSync in a worker), so no value's
//! chunks are held in memory longer than its row takes.

use pgpage::cluster::catalog::table::Table;
use pgpage::cluster::rows::{
    page_problem, Column, PrintedKeys, RowFormat, RowKeys, RowWriter, Versions, ZeroRuns,
    ZERO_PAGE_BETWEEN_ROWS,
};
use pgpage::file::scan::ChecksumsKnown;
use pgpage::tuple::copy::CopyFormat;
use pgpage::tuple::toast::{ChunkIndex, ValueProblem};
use pgpage::tuple::value::Type;
use pgpage::tuple::visibility::TransactionLog;
use pgpage::tuple::{heap_items, ToastPointer};
use pgpage::Endian;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::{block_size, endian};

#[wasm_bindgen]
extern "C" {
    /// `{ read(file, offset, length) }`: `length` bytes at byte `offset` of the TOAST
    /// relation's file number `file` (as passed to `add_toast_pages`), or undefined when
    /// they cannot be read.
    pub type ChunkSource;
    #[wasm_bindgen(method, catch)]
    fn read(
        this: &ChunkSource,
        file: u32,
        offset: f64,
        length: u32,
    ) -> Result<Option<Vec<u8>>, JsValue>;
}

/// One TOAST chunk tuple's place: file number, byte offset, length.
#[derive(Clone, Copy, Debug)]
struct ChunkAt {
    file: u32,
    at: f64,
    len: usize,
}

/// A page, or a tuple of it, that gave no row (or gave one with a note).
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "LeftOut"))]
#[derive(Serialize)]
pub(crate) struct LeftOutJs {
    block: u32,
    offset: Option<u16>,
    attnum: Option<usize>,
    message: String,
    printed: bool,
    /// A page whose checksum fails but that reads as the server would under
    /// ignore_checksum_failure: its rows (printed with `include_damaged`, else left out).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    rows: Option<u64>,
    /// The page is a copy of this other block: its rows are left out even with
    /// `include_damaged` (they would be printed twice).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    copy_of: Option<u32>,
    /// A page-wide message about some of its tuples (a torn page's older write): their line
    /// pointers, left out though the page's other rows may be given.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    tuples: Option<Vec<u16>>,
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "RowsColumn"))]
#[derive(Serialize)]
pub(crate) struct ColumnJs<'a> {
    name: &'a str,
    #[serde(rename = "type")]
    ty: String,
    dropped: bool,
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "RowsTable"))]
#[derive(Serialize)]
pub(crate) struct TableJs<'a> {
    shown: &'a str,
    database: &'a str,
    oid: u32,
    paths: &'a [String],
    toast_paths: &'a [String],
    toast_name: &'a str,
    damage: &'a [String],
    block_size: u32,
    big_endian: bool,
}

fn row_format(format: &str) -> Result<RowFormat, JsError> {
    match format {
        "csv" => Ok(RowFormat::Copy(CopyFormat::Csv)),
        "text" => Ok(RowFormat::Copy(CopyFormat::Text)),
        "json" => Ok(RowFormat::Json),
        other => Err(JsError::new(&format!(
            "unknown rows format \"{other}\": csv, text or json"
        ))),
    }
}

/// The columns of a type list as `pgpage rows --types` reads it (`int4,text,...`).
fn type_list(types: &str) -> Result<Vec<Column>, JsError> {
    let mut columns = Vec::new();
    for (i, name) in types.split(',').enumerate() {
        let ty = Type::from_name(name).ok_or_else(|| {
            JsError::new(&format!(
                "unknown type \"{}\" in the type list",
                name.trim()
            ))
        })?;
        columns.push(Column::of_type(format!("col{}", i.saturating_add(1)), ty));
    }
    Ok(columns)
}

/// What one run of pages gave: its text, and the counts and left-out items as JSON.
#[wasm_bindgen]
pub struct RowsChunk {
    text: String,
    json: String,
}

#[wasm_bindgen]
impl RowsChunk {
    /// The rows, in the reader's format.
    #[wasm_bindgen(getter)]
    pub fn text(&self) -> String {
        self.text.clone()
    }
    /// `{"rows", "invisible", "undecided", "pages": [rows per page], "left_out": [{"block",
    /// "offset", "attnum", "message", "printed", "rows"?, "copy_of"?}], "damaged": [ctids of rows read
    /// from pages whose checksum fails]}`; an all-zero page between pages with rows is a
    /// left-out page, named once a later page shows line pointers.
    #[wasm_bindgen(getter)]
    pub fn json(&self) -> String {
        self.json.clone()
    }
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "RowsChunkCounts"))]
#[derive(Serialize)]
pub(crate) struct ChunkJs {
    rows: u64,
    invisible: u64,
    undecided: u64,
    pages: Vec<u64>,
    left_out: Vec<LeftOutJs>,
    damaged: Vec<String>,
}

/// One column of a tuple shown alone (`RowsReader::tuple`).
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "TupleValue"))]
#[derive(Serialize)]
pub(crate) struct Value<'a> {
    name: &'a str,
    #[serde(rename = "type")]
    ty: String,
    value: Option<String>,
}
/// Why a tuple's values could not be read, and at which column.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "TupleProblem"))]
#[derive(Serialize)]
pub(crate) struct Problem {
    message: String,
    attnum: Option<usize>,
}
/// `RowsReader::tuple`: a tuple's columns, or why they could not be read.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "TupleShown"))]
#[derive(Serialize)]
pub(crate) struct TupleJs<'a> {
    columns: Vec<Value<'a>>,
    problem: Option<Problem>,
    note: Option<String>,
}

/// A heap relation's rows read page run by page run (see the module's doc).
#[wasm_bindgen]
pub struct RowsReader {
    writer: RowWriter,
    /// The columns are a type list, held to each tuple's length (RowWriter's check_fit).
    check_fit: bool,
    log: TransactionLog,
    checksums: ChecksumsKnown,
    endian: Endian,
    block_size: usize,
    toast: ChunkIndex<ChunkAt>,
    /// The catalog form's table as JSON; "null" for a type list.
    table: String,
    /// The all-zero pages of the read so far not yet followed by a page with rows (a read
    /// starts at relation block 0).
    zeros: ZeroRuns,
    /// The attribute numbers of the columns that name one row (the catalogs' primary key or
    /// unique index); None for a type list or a table without one.
    row_key: Option<Vec<i16>>,
    /// The rows' keys on pages that verify: being read (`key_pages`), then read.
    keys: Option<RowKeys>,
    keys_read: bool,
    include_damaged: bool,
    /// The keys of the live rows printed so far in this read (a read starts at block 0).
    printed: PrintedKeys,
    /// The server version (the catalogs'), for the LSNs a stale page's reason prints.
    major: Option<u32>,
    /// This relation's blocks the data directory's own WAL changed before its latest
    /// checkpoint's redo point, and that point (`set_flushed`): older pages are left out.
    flushed: Option<(
        std::collections::BTreeMap<u32, pgpage::wal::FlushedBlock>,
        u64,
    )>,
    /// The incident report's torn blocks and bit-flip suspects of this relation
    /// (`set_hints`).
    hints: pgpage::damage::report::RowHints,
}

impl RowsReader {
    /// The writer made over by `f` (its builder methods take it by value).
    fn rewrite(&mut self, f: impl FnOnce(RowWriter) -> RowWriter) {
        let placeholder = RowWriter::new(Vec::new(), RowFormat::Json, self.endian, false);
        let writer = core::mem::replace(&mut self.writer, placeholder);
        self.writer = f(writer);
    }

    fn fetch<'a>(
        &'a self,
        source: Option<&'a ChunkSource>,
    ) -> impl FnMut(&ToastPointer) -> Result<Vec<u8>, ValueProblem> + 'a {
        move |p: &ToastPointer| {
            self.toast.fetch(p, |c| {
                let s = source?;
                let len = u32::try_from(c.len).ok()?;
                s.read(c.file, c.at, len).ok().flatten()
            })
        }
    }
}

#[wasm_bindgen]
impl RowsReader {
    /// A reader of files whose columns are `types` (`int4,text,...`), each tuple held to
    /// the list's length (the fit check); `format` csv, text or json; pages of `block_size`
    /// bytes. No pg_xact: hint bits decide what they can, the rest is printed as visible.
    pub fn from_types(
        types: &str,
        format: &str,
        block_size_bytes: u32,
        big_endian: bool,
        toast_name: &str,
    ) -> Result<RowsReader, JsError> {
        let columns = type_list(types)?;
        let bs = block_size(block_size_bytes)?.len();
        let e = endian(big_endian);
        Ok(RowsReader {
            writer: RowWriter::new(columns, row_format(format)?, e, true),
            check_fit: true,
            log: TransactionLog::new(bs, e),
            checksums: ChecksumsKnown::Unknown,
            endian: e,
            block_size: bs,
            toast: ChunkIndex::new(toast_name.to_owned(), bs, e),
            table: String::from("null"),
            zeros: ZeroRuns::default(),
            row_key: None,
            keys: None,
            keys_read: false,
            include_damaged: false,
            printed: PrintedKeys::default(),
            major: None,
            flushed: None,
            hints: Default::default(),
        })
    }

    /// The same reader (its catalogs, transaction log and TOAST chunk index kept) printing
    /// rows in `format` (csv, text or json), every tuple version when `all_versions` (each
    /// row led by ctid, xmin, xmax and its state, as `pgpage rows --all-versions` prints),
    /// and the rows of pages whose checksum fails but that read as the server reads them
    /// under ignore_checksum_failure when `include_damaged` (`pgpage rows --include-damaged`).
    pub fn set_output(
        &mut self,
        format: &str,
        all_versions: bool,
        include_damaged: bool,
    ) -> Result<(), JsError> {
        let versions = if all_versions {
            Versions::All
        } else {
            Versions::Visible
        };
        let mut writer = RowWriter::new(
            self.writer.columns().to_vec(),
            row_format(format)?,
            self.endian,
            self.check_fit,
        )
        .with_versions(versions)
        .with_damaged(include_damaged);
        if let Some((blocks, redo)) = self.flushed.as_ref() {
            writer = writer.with_flushed(blocks.clone(), *redo, self.major);
        }
        writer = writer
            .with_torn(self.hints.torn.clone())
            .with_suspects(self.hints.suspects.clone())
            .with_header_flips(self.hints.header_flips.clone());
        if let Some(key) = self.row_key.as_deref() {
            writer = writer.with_unique_key(key);
        }
        self.include_damaged = include_damaged;
        if let (true, true, Some(keys)) = (include_damaged, self.keys_read, self.keys.as_ref()) {
            writer = writer.with_row_keys(keys.clone());
        }
        self.writer = writer;
        Ok(())
    }

    /// Whether the rows of damaged pages are asked for and the keys of the rows on pages
    /// that verify must be read first (`key_pages` over every page, then `keys_done`), so
    /// that a damaged page's stale versions are left out.
    pub fn wants_row_keys(&self) -> bool {
        self.include_damaged && self.row_key.is_some() && !self.keys_read
    }

    /// Whether the rows of damaged pages are asked for but no key names a row (a type list,
    /// a table without a primary key or unique index): a stale version cannot be told apart.
    pub fn stale_unknown(&self) -> bool {
        self.include_damaged && self.row_key.as_deref().and_then(RowKeys::new).is_none()
    }

    /// Hold the pages against what `scanner` (finished, after its `flushed` said true) read
    /// of the data directory's own WAL, as `pgpage rows` does inside a data directory: a
    /// page of `path` (the relation's file inside the directory, `base/5/16384`) older than
    /// the WAL says the latest checkpoint wrote is left out as a damaged page is, its rows
    /// being as they were before those changes. False, changing nothing, when the scanner
    /// collected nothing or the WAL changed none of this relation's blocks before that point.
    pub fn set_flushed(&mut self, scanner: &mut crate::wal::WalScanner, path: &str) -> bool {
        let Some(f) = scanner.take_flushed() else {
            return false;
        };
        let Some((spc_oid, db_oid, rel_number)) = pgpage::file::datadir::locator_of(path) else {
            return false;
        };
        let blocks = f.relation_blocks(pgpage::wal::RelFileLocator {
            spc_oid,
            db_oid,
            rel_number,
        });
        if blocks.is_empty() {
            return false;
        }
        let redo = f.redo();
        let major = self.major;
        let held = blocks.clone();
        self.rewrite(|w| w.with_flushed(held, redo, major));
        self.flushed = Some((blocks, redo));
        true
    }

    /// Read the damaged pages' rows as the incident report does: `json` is one relation's
    /// entry of `ReportOutput::row_hints` (its torn blocks' older writes, the values a
    /// flipped bit probably changed), as `pgpage rows` takes them from the report. Applies
    /// from the next `set_output` on.
    pub fn set_hints(&mut self, json: &str) -> Result<(), JsError> {
        self.hints = serde_json::from_str(json)
            .map_err(|e| JsError::new(&format!("the report's hints for the rows: {e}")))?;
        Ok(())
    }

    /// The first pass: the keys of the live rows of whole pages `bytes` (relation-wide
    /// block `first_absolute` first) that verify.
    pub fn key_pages(&mut self, bytes: &[u8], first_absolute: u32, source: Option<ChunkSource>) {
        let Some(mut keys) = self
            .keys
            .take()
            .or_else(|| self.row_key.as_deref().and_then(RowKeys::new))
        else {
            return;
        };
        let mut fetch = self.fetch(source.as_ref());
        for (i, page) in bytes.chunks_exact(self.block_size).enumerate() {
            let absolute = first_absolute.saturating_add(u32::try_from(i).unwrap_or(u32::MAX));
            keys.sound_page(
                &self.writer,
                page,
                absolute,
                self.checksums,
                &self.log,
                &mut fetch,
            );
        }
        drop(fetch);
        self.keys = Some(keys);
    }

    /// The first pass is over: the writer leaves out the damaged pages' stale versions.
    pub fn keys_done(&mut self) {
        self.keys_read = true;
        if let Some(keys) = self.keys.clone() {
            self.rewrite(|w| w.with_row_keys(keys));
        }
    }

    /// COPY's HEADER line for the format set (`pgpage rows --header`); undefined for JSON.
    #[wasm_bindgen(getter)]
    pub fn header_line(&self) -> Option<String> {
        self.writer.header_line()
    }

    /// `[{"name", "type", "dropped"}]` in attribute number order, led by ctid, xmin, xmax
    /// and state when every version is printed.
    pub fn columns(&self) -> Result<String, JsError> {
        let leading = [
            ("ctid", "tid"),
            ("xmin", "xid"),
            ("xmax", "xid"),
            ("state", "text"),
        ];
        let shown = if self.writer.versions() == Versions::All {
            &leading[..]
        } else {
            &[]
        };
        let cols: Vec<ColumnJs> = shown
            .iter()
            .map(|(name, ty)| ColumnJs {
                name,
                ty: String::from(*ty),
                dropped: false,
            })
            .chain(self.writer.columns().iter().map(|c| ColumnJs {
                name: &c.name,
                ty: c.ty.name(),
                dropped: c.attribute.attisdropped,
            }))
            .collect();
        serde_json::to_string(&cols).map_err(crate::serialize_error)
    }

    /// The catalog form's table: `{"shown", "oid", "paths", "toast_paths", "toast_name",
    /// "damage", "block_size", "big_endian"}`, paths relative to the data directory; `null`
    /// for a type list.
    #[wasm_bindgen(getter)]
    pub fn table(&self) -> String {
        self.table.clone()
    }

    /// Notes the chunks of whole TOAST pages `bytes` (relation-wide block `first_absolute`
    /// first) that sit at byte `offset` of TOAST file number `file`. Returns the pages left
    /// out (damaged) as `[{"block", "message"}]`.
    pub fn add_toast_pages(
        &mut self,
        bytes: &[u8],
        file: u32,
        offset: f64,
        first_absolute: u32,
    ) -> Result<String, JsError> {
        let mut lost = Vec::new();
        for (i, page) in bytes.chunks_exact(self.block_size).enumerate() {
            let absolute = first_absolute.saturating_add(u32::try_from(i).unwrap_or(u32::MAX));
            if let Some(why) = page_problem(page, absolute, self.endian, self.checksums) {
                lost.push(LeftOutJs {
                    block: absolute,
                    offset: None,
                    attnum: None,
                    message: why,
                    printed: false,
                    rows: None,
                    copy_of: None,
                    tuples: None,
                });
                continue;
            }
            let start = offset + (i as f64) * (self.block_size as f64);
            self.toast
                .add_page(page, absolute, &self.log, |off, len| ChunkAt {
                    file,
                    at: start + off as f64,
                    len,
                });
        }
        serde_json::to_string(&lost).map_err(crate::serialize_error)
    }

    /// The rows of whole pages `bytes` (relation-wide block `first_absolute` first);
    /// `source` reads TOAST chunks (undefined: external values are named missing).
    pub fn pages(
        &mut self,
        bytes: &[u8],
        first_absolute: u32,
        source: Option<ChunkSource>,
    ) -> Result<RowsChunk, JsError> {
        let mut text = String::new();
        let mut got = ChunkJs {
            rows: 0,
            invisible: 0,
            undecided: 0,
            pages: Vec::new(),
            left_out: Vec::new(),
            damaged: Vec::new(),
        };
        if first_absolute == 0 {
            self.zeros = ZeroRuns::default();
            self.printed = PrintedKeys::default();
        }
        let mut zeros = core::mem::take(&mut self.zeros);
        let mut printed = core::mem::take(&mut self.printed);
        let mut fetch = self.fetch(source.as_ref());
        for (i, page) in bytes.chunks_exact(self.block_size).enumerate() {
            let absolute = first_absolute.saturating_add(u32::try_from(i).unwrap_or(u32::MAX));
            let r = self.writer.page(
                page,
                absolute,
                self.checksums,
                &self.log,
                &mut fetch,
                &mut text,
            );
            got.rows = got.rows.saturating_add(r.rows);
            got.invisible = got.invisible.saturating_add(r.invisible);
            got.undecided = got.undecided.saturating_add(r.undecided);
            got.pages.push(r.rows);
            for z in zeros.page(absolute, r.zero, r.line_pointers) {
                got.left_out.push(LeftOutJs {
                    block: z,
                    offset: None,
                    attnum: None,
                    message: String::from(ZERO_PAGE_BETWEEN_ROWS),
                    printed: false,
                    rows: None,
                    copy_of: None,
                    tuples: None,
                });
            }
            got.damaged
                .extend(r.damaged.iter().map(|lp| format!("({absolute},{lp})")));
            got.left_out.extend(
                printed
                    .page(&self.writer, absolute, &r.keys)
                    .into_iter()
                    .map(|(lp, message)| LeftOutJs {
                        block: absolute,
                        offset: Some(lp),
                        attnum: None,
                        message,
                        printed: true,
                        rows: None,
                        copy_of: None,
                        tuples: None,
                    }),
            );
            got.left_out
                .extend(r.left_out.into_iter().map(|l| LeftOutJs {
                    block: absolute,
                    offset: l.offset,
                    attnum: l.attnum,
                    message: l.message,
                    printed: l.printed,
                    rows: l.rows,
                    copy_of: l.copy_of,
                    tuples: (!l.tuples.is_empty()).then_some(l.tuples),
                }));
        }
        drop(fetch);
        self.zeros = zeros;
        self.printed = printed;
        let json = serde_json::to_string(&got).map_err(crate::serialize_error)?;
        Ok(RowsChunk { text, json })
    }

    /// One tuple's columns for the page view: `{"columns": [{"name", "type", "value"}],
    /// "problem": null or {"message", "attnum"}, "note": null or a message}`, `value` the
    /// output text (control characters escaped as `\xNN`, for a person to read) or null for
    /// NULL; dropped columns left out.
    pub fn tuple(
        &self,
        page: &[u8],
        lp: u16,
        source: Option<ChunkSource>,
    ) -> Result<String, JsError> {
        let item = heap_items(page, self.endian)
            .find(|i| i.lp == lp)
            .ok_or_else(|| JsError::new(&format!("item {lp} is not a tuple")))?;
        let tuple = item
            .tuple
            .ok_or_else(|| JsError::new(&format!("item {lp} ends beyond the page")))?;
        let mut fetch = self.fetch(source.as_ref());
        let live = self
            .writer
            .columns()
            .iter()
            .filter(|c| !c.attribute.attisdropped);
        let shown = match self.writer.values(tuple, &mut fetch) {
            Ok(v) => TupleJs {
                columns: live
                    .zip(v.texts)
                    .map(|(c, v)| Value {
                        name: &c.name,
                        ty: c.ty.name(),
                        // For a person to read: a control byte shows as \xNN, never raw.
                        value: v.as_deref().map(pgpage::damage::flips::visible),
                    })
                    .collect(),
                problem: None,
                note: v.note.map(|n| n.message),
            },
            Err(p) => TupleJs {
                columns: live
                    .map(|c| Value {
                        name: &c.name,
                        ty: c.ty.name(),
                        value: None,
                    })
                    .collect(),
                problem: Some(Problem {
                    message: p.message,
                    attnum: p.column.map(|c| c.saturating_add(1)),
                }),
                note: None,
            },
        };
        serde_json::to_string(&shown).map_err(crate::serialize_error)
    }
}

/// How the catalogs and rows of a cluster are read, from its PG_VERSION and pg_control.
fn table_cluster(
    pg_version: &[u8],
    pg_control: &[u8],
) -> Result<(pgpage::cluster::catalog::reader::ReadWith, ChecksumsKnown), JsError> {
    let (major, control) = crate::catalog_cluster(pg_version, pg_control)?;
    let checksums = ChecksumsKnown::of_version(
        control
            .as_ref()
            .and_then(|c| c.data_page_checksum_version()),
    );
    let with = pgpage::cluster::catalog::reader::ReadWith::from_control(major, control.as_ref());
    Ok((with, checksums))
}

/// A table of a dropped data directory found for its rows (`pgpage::cluster::catalog::table`):
/// built like `CatalogReader` plus the database (undefined: the only user database) and
/// the relation (`schema.name`, SQL quoting allowed); `wanted()`/`give()` until `wanted()`
/// is empty, then `finish(format)` gives the table's `RowsReader` (or throws why not:
/// no such relation, a view, ...).
#[wasm_bindgen]
pub struct TableReader {
    inner: Option<pgpage::cluster::catalog::table::TableReader>,
}

#[wasm_bindgen]
impl TableReader {
    #[wasm_bindgen(constructor)]
    pub fn new(
        paths: Vec<String>,
        pg_version: &[u8],
        pg_control: &[u8],
        database: Option<String>,
        relation: String,
    ) -> Result<TableReader, JsError> {
        let (with, checksums) = table_cluster(pg_version, pg_control)?;
        Ok(TableReader {
            inner: Some(pgpage::cluster::catalog::table::TableReader::new(
                paths, "", with, checksums, database, relation,
            )),
        })
    }

    /// The table whose file is `relfilenode` in the database of oid `database_oid` (the
    /// `base/DATABASE/RELFILENODE` of a relation file), found in the one reading of the
    /// catalogs; the rest as the constructor takes it.
    pub fn by_file(
        paths: Vec<String>,
        pg_version: &[u8],
        pg_control: &[u8],
        database_oid: u32,
        relfilenode: u32,
    ) -> Result<TableReader, JsError> {
        let (with, checksums) = table_cluster(pg_version, pg_control)?;
        Ok(TableReader {
            inner: Some(pgpage::cluster::catalog::table::TableReader::by_file(
                paths,
                "",
                with,
                checksums,
                database_oid,
                relfilenode,
            )),
        })
    }

    /// The paths to `give` next; empty when `finish` can be called.
    pub fn wanted(&mut self) -> Vec<String> {
        self.inner
            .as_mut()
            .map(pgpage::cluster::catalog::table::TableReader::wanted)
            .unwrap_or_default()
    }

    pub fn give(&mut self, path: &str, bytes: Option<Vec<u8>>) {
        if let Some(r) = self.inner.as_mut() {
            r.give(path, bytes);
        }
    }

    /// The table's reader in `format` (csv, text or json); throws when the table cannot be
    /// read, or when called twice.
    pub fn finish(&mut self, format: &str) -> Result<RowsReader, JsError> {
        let reader = self
            .inner
            .take()
            .ok_or_else(|| JsError::new("the table reader has finished already"))?;
        let format = row_format(format)?;
        let t: Table = reader.finish().map_err(|r| {
            let mut lines = r.damage;
            lines.push(r.reason);
            JsError::new(&lines.join("\n"))
        })?;
        let bs = t.with.block_size.len();
        let e = t.with.endian;
        let table = serde_json::to_string(&TableJs {
            shown: &t.shown,
            database: &t.database,
            oid: t.oid,
            paths: &t.paths,
            toast_paths: &t.toast_paths,
            toast_name: &t.toast_name,
            damage: &t.damage,
            block_size: u32::try_from(bs).unwrap_or(0),
            big_endian: e == Endian::Big,
        })
        .map_err(crate::serialize_error)?;
        let writer = RowWriter::new(t.columns, format, e, false);
        let writer = match t.row_key.as_deref() {
            Some(key) => writer.with_unique_key(key),
            None => writer,
        };
        Ok(RowsReader {
            writer,
            check_fit: false,
            log: t.log,
            checksums: t.checksums,
            endian: e,
            block_size: bs,
            toast: ChunkIndex::new(t.toast_name, bs, e),
            table,
            zeros: ZeroRuns::default(),
            row_key: t.row_key,
            keys: None,
            keys_read: false,
            include_damaged: false,
            printed: PrintedKeys::default(),
            major: Some(t.with.major),
            flushed: None,
            hints: Default::default(),
        })
    }
}
