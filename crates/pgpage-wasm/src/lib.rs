//! Bindings only: batch calls over typed arrays into the pgpage core. Results are copied out
//! as owned typed arrays, so JS never holds a view of wasm memory across an allocation.
//! Bad arguments become JS exceptions with a message, never a trap.

use pgpage::page::checksum::pg_checksum_page;
use pgpage::page::kind::{Fork, PageKind};
use pgpage::page::verify::verify_page;
use pgpage::{BlockSize, Endian, PageStatus};
use wasm_bindgen::prelude::*;

mod damage;
mod redact;
mod report;
mod rows;
mod story;
#[cfg(all(test, feature = "ts"))]
mod ts_export;
mod wal;

fn endian(big_endian: bool) -> Endian {
    if big_endian {
        Endian::Big
    } else {
        Endian::Little
    }
}

fn block_size(bytes: u32) -> Result<BlockSize, JsError> {
    BlockSize::new(bytes).ok_or_else(|| {
        JsError::new(&format!(
            "unsupported block size {bytes}: PostgreSQL allows 1024, 2048, 4096, 8192, 16384 or 32768"
        ))
    })
}

/// The verdicts of consecutive pages, one entry per page in each array.
#[wasm_bindgen]
pub struct VerifyBatch {
    status: Vec<u8>,
    stored: Vec<u16>,
    computed: Vec<u16>,
    fold: Vec<u32>,
}

#[wasm_bindgen]
impl VerifyBatch {
    /// Page status codes (`PageStatus::code`: 0 ok, 1 mismatch, 2 zero, 3 new_not_zero,
    /// 4 bad_header).
    #[wasm_bindgen(getter)]
    pub fn status(&self) -> Vec<u8> {
        self.status.clone()
    }

    /// pd_checksum as stored.
    #[wasm_bindgen(getter)]
    pub fn stored(&self) -> Vec<u16> {
        self.stored.clone()
    }

    /// The checksum PostgreSQL would compute; 0 (never a valid checksum) for new pages,
    /// whose checksum the server does not compute.
    #[wasm_bindgen(getter)]
    pub fn computed(&self) -> Vec<u16> {
        self.computed.clone()
    }

    /// pg_checksum_block's fold before the block number is mixed in: the lab's "fold
    /// differs" tally, and `checksums_at` finishes it for any block.
    #[wasm_bindgen(getter)]
    pub fn fold(&self) -> Vec<u32> {
        self.fold.clone()
    }

    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.status.len()
    }
}

/// Verifies the whole pages in `bytes`; the first one is relation-wide block
/// `first_abs_block`. Bytes past the last whole page are ignored (the caller reports them).
#[wasm_bindgen]
pub fn verify(
    bytes: &[u8],
    first_abs_block: u32,
    block_size_bytes: u32,
    big_endian: bool,
) -> Result<VerifyBatch, JsError> {
    let bs = block_size(block_size_bytes)?;
    let e = endian(big_endian);
    let pages = bytes.chunks_exact(bs.len());
    let n = pages.len();
    let mut out = VerifyBatch {
        status: Vec::with_capacity(n),
        stored: Vec::with_capacity(n),
        computed: Vec::with_capacity(n),
        fold: Vec::with_capacity(n),
    };
    let mut blkno = first_abs_block;
    for page in pages {
        let v = verify_page(page, blkno, e);
        out.status.push(v.status.code());
        out.stored.push(v.stored);
        out.computed.push(v.computed.unwrap_or(0));
        out.fold.push(v.fold);
        blkno = blkno.wrapping_add(1);
    }
    Ok(out)
}

/// How many bytes of a file's head `file_geometry` and `FileScanJs` look at.
#[wasm_bindgen]
pub fn detect_head_bytes() -> usize {
    pgpage::file::DETECT_HEAD_BYTES
}

/// `pgpage::file::Geometry` as plain values.
#[wasm_bindgen]
#[derive(Clone, Copy)]
pub struct FileGeometry {
    #[wasm_bindgen(readonly)]
    pub block_size: u32,
    #[wasm_bindgen(readonly)]
    pub big_endian: bool,
    #[wasm_bindgen(readonly)]
    pub block_size_assumed: bool,
    #[wasm_bindgen(readonly)]
    pub byte_order_detected: bool,
}

/// The block size and byte order a file is read with, from its first `detect_head_bytes()`
/// bytes and what the user chose (undefined: detect); throws the core's sentence when the
/// file is not a relation file.
#[wasm_bindgen]
pub fn file_geometry(
    head: &[u8],
    block_size_bytes: Option<u32>,
    big_endian: Option<bool>,
    named_like_relation: bool,
) -> Result<FileGeometry, JsError> {
    let choice = pgpage::file::GeometryChoice {
        block_size: block_size_bytes.map(block_size).transpose()?,
        endian: big_endian.map(endian),
    };
    let g = pgpage::file::file_geometry(head, choice, named_like_relation)
        .map_err(|e| JsError::new(&e.to_string()))?;
    Ok(FileGeometry {
        block_size: g.block_size.bytes(),
        big_endian: g.endian == Endian::Big,
        block_size_assumed: g.block_size_assumed,
        byte_order_detected: g.byte_order_detected,
    })
}

/// The checksum lab's benchmark: `pg_checksum_page` over every whole page of `bytes`,
/// `rounds` times, inside one call, so the timing is the kernel's and not the copy of the
/// buffer into wasm memory. Returns the XOR of every checksum (a sink the optimizer keeps).
#[wasm_bindgen]
pub fn checksum_rounds(
    bytes: &[u8],
    block_size_bytes: u32,
    big_endian: bool,
    rounds: u32,
) -> Result<u32, JsError> {
    let bs = block_size(block_size_bytes)?;
    let e = endian(big_endian);
    let mut sink = 0u32;
    for _ in 0..rounds {
        let mut blkno = 0u32;
        for page in bytes.chunks_exact(bs.len()) {
            sink ^= u32::from(pg_checksum_page(page, blkno, e));
            blkno = blkno.wrapping_add(1);
        }
    }
    Ok(sink)
}

/// One decoded page: spans as parallel typed arrays, each span's field a handle (an index
/// into the per-handle tables: bare name, qualified name, pageinspect column, doc, value
/// kind), its problem a finding (an index into the per-finding tables), and the
/// pageinspect-style columns as one JSON string.
#[wasm_bindgen]
pub struct DecodedPageJs {
    start: Vec<u32>,
    end: Vec<u32>,
    role: Vec<u8>,
    /// Line pointer number, 0 for none (OffsetNumbers start at 1).
    item: Vec<u16>,
    field: Vec<u16>,
    /// Index into the finding tables + 1, 0 for none.
    problem: Vec<u16>,
    /// Findings about the page as a whole (decoded as its file's kind): finding table indexes.
    page_problems: Vec<u16>,
    /// The span's value formatted by its row's kind (LSN as X/Y, TID as (b,o), flags by name).
    value: Vec<String>,
    field_names: Vec<String>,
    field_qualified: Vec<String>,
    field_columns: Vec<String>,
    field_docs: Vec<String>,
    field_kinds: Vec<String>,
    problems: Vec<String>,
    problem_codes: Vec<String>,
    problem_rules: Vec<String>,
    json: String,
}

#[wasm_bindgen]
impl DecodedPageJs {
    #[wasm_bindgen(getter)]
    pub fn start(&self) -> Vec<u32> {
        self.start.clone()
    }
    #[wasm_bindgen(getter)]
    pub fn end(&self) -> Vec<u32> {
        self.end.clone()
    }
    /// `fields::Role::code` per span.
    #[wasm_bindgen(getter)]
    pub fn role(&self) -> Vec<u8> {
        self.role.clone()
    }
    #[wasm_bindgen(getter)]
    pub fn item(&self) -> Vec<u16> {
        self.item.clone()
    }
    /// Per span, an index into the `field_*` tables.
    #[wasm_bindgen(getter)]
    pub fn field(&self) -> Vec<u16> {
        self.field.clone()
    }
    #[wasm_bindgen(getter)]
    pub fn problem(&self) -> Vec<u16> {
        self.problem.clone()
    }
    /// Findings about the page as a whole, as indexes into the finding tables.
    #[wasm_bindgen(getter)]
    pub fn page_problems(&self) -> Vec<u16> {
        self.page_problems.clone()
    }
    #[wasm_bindgen(getter)]
    pub fn value(&self) -> Vec<String> {
        self.value.clone()
    }
    /// The bare PostgreSQL name (`pd_checksum`; `ItemIdData` for a line pointer's word).
    #[wasm_bindgen(getter)]
    pub fn field_names(&self) -> Vec<String> {
        self.field_names.clone()
    }
    /// `Structure.member` (`GinPageOpaqueData.flags`).
    #[wasm_bindgen(getter)]
    pub fn field_qualified(&self) -> Vec<String> {
        self.field_qualified.clone()
    }
    /// pageinspect's column for the field ("" when none shows it).
    #[wasm_bindgen(getter)]
    pub fn field_columns(&self) -> Vec<String> {
        self.field_columns.clone()
    }
    /// The row's one-line doc, citing its own structure's header.
    #[wasm_bindgen(getter)]
    pub fn field_docs(&self) -> Vec<String> {
        self.field_docs.clone()
    }
    /// The row's value kind (`lsn`, `xid`, `tid`, `flags`, `enum`, ...; "" for regions).
    #[wasm_bindgen(getter)]
    pub fn field_kinds(&self) -> Vec<String> {
        self.field_kinds.clone()
    }
    /// Each finding's whole message, its numbers filled in (`%s` where it quotes the
    /// relation's name, which the caller knows).
    #[wasm_bindgen(getter)]
    pub fn problems(&self) -> Vec<String> {
        self.problems.clone()
    }
    /// Each finding's stable code (`Finding::code`).
    #[wasm_bindgen(getter)]
    pub fn problem_codes(&self) -> Vec<String> {
        self.problem_codes.clone()
    }
    /// Each finding's PostgreSQL rule, `file: function`.
    #[wasm_bindgen(getter)]
    pub fn problem_rules(&self) -> Vec<String> {
        self.problem_rules.clone()
    }
    /// `{"kind", "header", "items", "special"}` as `pgpage inspect --json` prints a block.
    #[wasm_bindgen(getter)]
    pub fn json(&self) -> String {
        self.json.clone()
    }
}

/// The role names, in `Role::code` order.
#[wasm_bindgen]
pub fn role_names() -> Vec<String> {
    pgpage::page::fields::Role::ALL
        .iter()
        .map(|r| r.as_str().into())
        .collect()
}

fn index_of<T: PartialEq + Copy>(table: &mut Vec<T>, x: T) -> u16 {
    let at = table.iter().position(|y| *y == x).unwrap_or_else(|| {
        table.push(x);
        table.len().saturating_sub(1)
    });
    u16::try_from(at).unwrap_or(u16::MAX)
}

fn parse_fork(fork: &str) -> Result<Fork, JsError> {
    match fork {
        "main" | "" => Ok(Fork::Main),
        "fsm" => Ok(Fork::Fsm),
        "vm" => Ok(Fork::Vm),
        "init" => Ok(Fork::Init),
        other => Err(JsError::new(&format!("unknown fork {other:?}"))),
    }
}

/// "" for none, else a kind's name.
fn parse_kind(kind: &str) -> Result<Option<PageKind>, JsError> {
    match kind {
        "" => Ok(None),
        k => PageKind::parse(k)
            .map(Some)
            .ok_or_else(|| JsError::new(&format!("unknown page kind {k:?}"))),
    }
}

/// The kind of a file's pages (`pgpage::am::kind::file_kind`) from its whole pages in `head`
/// (the first `detect_head_bytes()` bytes do): its fork, its metapage, its pages' majority.
#[wasm_bindgen]
pub fn file_kind(
    head: &[u8],
    block_size_bytes: u32,
    big_endian: bool,
    fork: &str,
) -> Result<String, JsError> {
    let bs = block_size(block_size_bytes)?;
    let kind = pgpage::am::kind::file_kind(
        parse_fork(fork)?,
        head.chunks_exact(bs.len()),
        endian(big_endian),
    );
    Ok(kind.as_str().into())
}

/// Decodes one page with the core decoder. `fork` is `main`, `fsm`, `vm` or `init`; `kind`
/// overrides detection when it names a kind (`heap`, `btree`, ...), else pass ""; `file_kind`
/// is the file's kind (from `file_kind`), which a page that does not show its own decodes
/// as; undefined or "" for none. `pg_version` (the cluster's PG_VERSION) names the columns as
/// that version's pageinspect does; undefined for the newest names. `columns` (undefined for
/// none) names the relation's columns as `ColumnHint::parse_list` reads them (`int4,text`;
/// a BRIN index's `int4 minmax`): heap tuples' TOAST headers and BRIN summaries decode.
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)] // one call per page; the arguments are its options
pub fn decode(
    page: &[u8],
    absolute_block: u32,
    big_endian: bool,
    fork: &str,
    kind: &str,
    file_kind: Option<String>,
    pg_version: Option<u32>,
    columns: Option<String>,
) -> Result<DecodedPageJs, JsError> {
    let file_kind = parse_kind(file_kind.as_deref().unwrap_or_default())?;
    decode_hinted(
        page,
        absolute_block,
        big_endian,
        fork,
        kind,
        file_kind,
        pg_version,
        &pgpage::file::scan::Structure::default(),
        columns,
    )
}

/// `decode` knowing what the structural checks know of the page's relation (entry `entry` of
/// `hints`, as `FileScanJs.set_structure` is given it): its findings are the verify list's.
/// The relation's kind, when the catalog says it, is the file's.
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub fn decode_with(
    hints: &StructuresJs,
    entry: u32,
    page: &[u8],
    absolute_block: u32,
    big_endian: bool,
    fork: &str,
    kind: &str,
    file_kind: Option<String>,
    pg_version: Option<u32>,
) -> Result<DecodedPageJs, JsError> {
    let structure = hints.entry(entry)?;
    let file_kind = match structure.kind {
        Some(k) => Some(k),
        None => parse_kind(file_kind.as_deref().unwrap_or_default())?,
    };
    decode_hinted(
        page,
        absolute_block,
        big_endian,
        fork,
        kind,
        file_kind,
        pg_version,
        structure,
        None,
    )
}

#[allow(clippy::too_many_arguments)]
fn decode_hinted(
    page: &[u8],
    absolute_block: u32,
    big_endian: bool,
    fork: &str,
    kind: &str,
    file_kind: Option<PageKind>,
    pg_version: Option<u32>,
    structure: &pgpage::file::scan::Structure,
    columns: Option<String>,
) -> Result<DecodedPageJs, JsError> {
    use pgpage::am::decode_page_with;
    use pgpage::am::decoded::{DecodeOptions, Hints};
    use pgpage::am::heap::check::HeapContext;
    use pgpage::page::fields::SpanField;
    use pgpage::tuple::columns::ColumnHint;
    let fork = parse_fork(fork)?;
    let kind = parse_kind(kind)?;
    let columns = match columns.as_deref() {
        Some(c) if !c.is_empty() => Some(ColumnHint::parse_list(c).map_err(|e| JsError::new(&e))?),
        _ => None,
    };
    let heap = structure.heap.map(|h| HeapContext {
        xact: structure.xact.as_deref(),
        ..h
    });
    let hints = Hints {
        btree_keys: structure.keys.as_deref(),
        heap: heap.as_ref(),
        columns: columns.as_deref(),
    };
    let mut d = decode_page_with(
        page,
        absolute_block,
        &DecodeOptions {
            endian: endian(big_endian),
            kind,
            fork,
            file_kind,
        },
        &hints,
    );
    // pageinspect's column names of the cluster's version, when its PG_VERSION is known.
    if let Some(v) = pg_version {
        d.name_for(v);
    }
    let n = d.spans.len();
    let mut handles: Vec<SpanField> = Vec::new();
    // Findings with their numbers: each distinct message is one entry.
    let mut findings: Vec<pgpage::am::decoded::ItemFinding> = Vec::new();
    let mut out = DecodedPageJs {
        start: Vec::with_capacity(n),
        end: Vec::with_capacity(n),
        role: Vec::with_capacity(n),
        item: Vec::with_capacity(n),
        field: Vec::with_capacity(n),
        problem: Vec::with_capacity(n),
        page_problems: Vec::new(),
        value: Vec::with_capacity(n),
        field_names: Vec::new(),
        field_qualified: Vec::new(),
        field_columns: Vec::new(),
        field_docs: Vec::new(),
        field_kinds: Vec::new(),
        problems: Vec::new(),
        problem_codes: Vec::new(),
        problem_rules: Vec::new(),
        json: String::new(),
    };
    let e = endian(big_endian);
    for s in &d.spans {
        out.start.push(s.start);
        out.end.push(s.end);
        out.role.push(s.role.code());
        out.item.push(s.item.unwrap_or(0));
        out.field.push(index_of(&mut handles, s.field));
        out.problem.push(match s.problem {
            Some(p) => index_of(&mut findings, valued(&d, p, s.item)).saturating_add(1),
            None => 0,
        });
        let bytes = page
            .get(s.start as usize..s.end as usize)
            .unwrap_or_default();
        out.value.push(s.field.format(bytes, e));
    }
    for f in &d.findings {
        out.page_problems
            .push(index_of(&mut findings, d.item_finding(*f, None)));
    }
    for h in &handles {
        let row = h.field();
        out.field_names.push(h.name().into());
        out.field_qualified.push(h.qualified());
        out.field_columns
            .push(row.and_then(|f| f.column).unwrap_or_default().into());
        out.field_docs.push(h.doc().into());
        out.field_kinds
            .push(row.map(|f| f.kind.as_str()).unwrap_or_default().into());
    }
    for f in &findings {
        out.problems.push(f.message_at(absolute_block, "%s"));
        out.problem_codes.push(f.finding.code().into());
        let r = f.finding.rule();
        out.problem_rules
            .push(format!("{}: {}", r.file, r.function));
    }
    // Serialized from the core's structs, never through a serde_json::Value: a Value's
    // object sorts its keys, and the columns must keep pageinspect's order.
    out.json = serde_json::to_string(&PageColumns {
        kind: d.kind,
        items_counted: d.items_counted,
        header: &d.header,
        flag_names: &d.header.flag_names,
        items: &d.items,
        special: &d.special,
        not_tuples: d
            .not_tuples
            .iter()
            .filter_map(|x| {
                Some(NotTuple {
                    lp: x.item?,
                    code: x.finding.code(),
                    message: x.message(),
                })
            })
            .collect(),
    })
    .map_err(|e| JsError::new(&format!("cannot serialize the decoded page: {e}")))?;
    Ok(out)
}

/// A span's finding with the numbers its check recorded, and the line pointer only where
/// those numbers or the message need it: one entry per distinct message.
fn valued(
    d: &pgpage::am::decoded::DecodedPage,
    f: pgpage::findings::Finding,
    item: Option<u16>,
) -> pgpage::am::decoded::ItemFinding {
    let mut v = d.item_finding(f, item);
    if v.values.is_empty() && !f.message().contains("offset %u") {
        v.item = None;
    }
    v
}

/// The decoded page's columns in the core's declaration order, which is pageinspect's.
#[derive(serde::Serialize)]
struct PageColumns<'a> {
    kind: PageKind,
    /// `DecodedPage::items_counted`: false when `items` are what pd_lower of noise counts.
    items_counted: bool,
    header: &'a pgpage::page::bufpage::PageHeader,
    flag_names: &'a [&'static str],
    items: &'a pgpage::am::decoded::Items,
    special: &'a Option<pgpage::am::decoded::Special>,
    not_tuples: Vec<NotTuple>,
}

/// A heap item whose line pointer or tuple header verify_heapam rejects before it reads the
/// tuple (`DecodedPage::not_tuples`): its row's header columns are other bytes.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(serde::Serialize)]
pub(crate) struct NotTuple {
    lp: u16,
    code: &'static str,
    /// verify_heapam's message, its numbers filled in.
    message: String,
}

/// A VM or FSM page as a map: `values` per heap block (VM: VISIBILITYMAP_ALL_VISIBLE 1 |
/// VISIBILITYMAP_ALL_FROZEN 2) or per tree node (FSM: fp_nodes' free-space categories), and
/// the rest as JSON (`pgpage::am::maps::layout::VmBits` or `FsmTree`).
#[wasm_bindgen]
pub struct MapPageJs {
    values: Vec<u8>,
    json: String,
}

#[wasm_bindgen]
impl MapPageJs {
    #[wasm_bindgen(getter)]
    pub fn values(&self) -> Vec<u8> {
        self.values.clone()
    }
    /// VM: `{"first_heap_block", "heap_blocks"}`; FSM: `{"shape", "level", "logical_page",
    /// "heap_blocks_per_slot", "first_heap_block", "levels": [{"depth", "first_node", "nodes"}],
    /// "avail_by_category"}` (the free bytes each category stands for, 256 of them).
    #[wasm_bindgen(getter)]
    pub fn json(&self) -> String {
        self.json.clone()
    }
}

/// `map_page`'s JSON for an FSM page: the tree and the free bytes each category stands for.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(serde::Serialize)]
pub(crate) struct FsmPage<'a> {
    #[serde(flatten)]
    tree: &'a pgpage::am::maps::layout::FsmTree,
    avail_by_category: Vec<u32>,
}

/// The map a page of the `vm` or `fsm` fork holds, as the core reads it; `absolute_block` is
/// the page's relation-wide block number in its fork (it says which heap blocks it covers).
#[wasm_bindgen]
pub fn map_page(page: &[u8], absolute_block: u32, fork: &str) -> Result<MapPageJs, JsError> {
    match parse_fork(fork)? {
        Fork::Vm => {
            let mut m = pgpage::am::maps::decode::vm_bits(page, absolute_block);
            let json = serde_json::to_string(&m).map_err(serialize_error)?;
            Ok(MapPageJs {
                values: core::mem::take(&mut m.bits),
                json,
            })
        }
        Fork::Fsm => {
            let mut t = pgpage::am::maps::decode::fsm_tree(page, absolute_block);
            let json = serde_json::to_string(&FsmPage {
                tree: &t,
                avail_by_category: (0..=u8::MAX).map(|c| t.shape.avail(c)).collect(),
            })
            .map_err(serialize_error)?;
            Ok(MapPageJs {
                values: core::mem::take(&mut t.nodes),
                json,
            })
        }
        other => Err(JsError::new(&format!(
            "a {other:?} fork page holds no visibility or free space map"
        ))),
    }
}

/// The major version a `PG_VERSION` file names; undefined when it names none.
#[wasm_bindgen]
pub fn pg_version(contents: &[u8]) -> Option<u32> {
    pgpage::file::datadir::parse_pg_version(contents)
}

/// `global/pg_control` decoded: the JSON object of `pgpage control --json` (the
/// pg_control_*() columns, `state`, `crc_ok`, `endian`) with `releases` (the PostgreSQL
/// versions that write this control version) and `text` (pg_controldata's report) added.
/// Throws with the reason when the file is truncated or of an unknown version.
#[wasm_bindgen]
pub fn decode_control(bytes: &[u8]) -> Result<String, JsError> {
    let c = pgpage::cluster::control::decode_control(bytes)
        .map_err(|e| JsError::new(&e.to_string()))?;
    let mut v = serde_json::to_value(&c)
        .map_err(|e| JsError::new(&format!("cannot serialize pg_control: {e}")))?;
    if let Some(m) = v.as_object_mut() {
        m.insert("releases".into(), c.releases.into());
        m.insert("text".into(), c.controldata_text().into());
        // How the cluster's files are verified (`FileScanJs.finish`'s code), the current
        // state's number (pg_controldata's "Data page checksum version", which 19.0's
        // data_page_checksum_version column is not: that is the state initdb chose), its name
        // as SHOW data_checksums prints it, and while it changes what the server does.
        let state = c.data_page_checksum_version();
        let known = ChecksumsKnown::of_version(state);
        m.insert("checksums_code".into(), known.code().into());
        m.insert("checksum_version".into(), state.into());
        m.insert(
            "checksum_state".into(),
            state
                .map(pgpage::cluster::control::checksum_state_words)
                .into(),
        );
        m.insert("checksum_change".into(), known.change_words().into());
    }
    Ok(v.to_string())
}

// ---- File verdicts: geometry, the file scan (chunks, parts, finish) and the folder filter,
// each decided by the core (pgpage::file, pgpage::scan, pgpage::datadir). ----

use pgpage::file::scan::{ChecksumsKnown, FileScan, FileVerdict};
use pgpage::file::{Geometry, GeometryChoice};
use pgpage::findings::Finding;

/// Block size (0: detect) and byte order ("": detect, "little", "big") as the user chose.
fn geometry_choice(block_size_bytes: u32, byte_order: &str) -> Result<GeometryChoice, JsError> {
    let block_size = match block_size_bytes {
        0 => None,
        n => Some(block_size(n)?),
    };
    let endian = match byte_order {
        "" => None,
        "little" => Some(Endian::Little),
        "big" => Some(Endian::Big),
        other => {
            return Err(JsError::new(&format!(
                "unknown byte order {other:?}: little, big or \"\" to detect"
            )))
        }
    };
    Ok(GeometryChoice { block_size, endian })
}

fn geometry_of(
    head: &[u8],
    block_size_bytes: u32,
    byte_order: &str,
    named_like_relation: bool,
) -> Result<Geometry, JsError> {
    let choice = geometry_choice(block_size_bytes, byte_order)?;
    pgpage::file::file_geometry(head, choice, named_like_relation)
        .map_err(|e| JsError::new(&e.to_string()))
}

fn serialize_error(e: serde_json::Error) -> JsError {
    JsError::new(&format!("cannot serialize: {e}"))
}

/// What a relation file's name says, `{"relfilenode", "fork", "segno"}` as JSON; undefined
/// when the name is no relation file's.
#[wasm_bindgen]
pub fn relation_file_name(name: &str) -> Option<String> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let n = pgpage::file::parse_relation_file_name(base)?;
    serde_json::to_string(&n).ok()
}

/// What Ctrl+G's text goes to in the file `name` (segment `segno`, `blocks` whole pages),
/// relation-wide numbers read with `blocks_per_segment` (pg_control's; 0 when unknown: the
/// default is assumed): `pgpage::file::go_to`'s answer as JSON (`{"to": "block", "block",
/// "offset", "relation_block", "read_as", ...}` or `{"to": "other_segment", "segno", "block",
/// "relation_block", "file", ...}`, both with `blocks_per_segment` and
/// `blocks_per_segment_assumed`); throws the sentence saying why it refuses the text.
#[wasm_bindgen]
pub fn go_to(
    text: &str,
    name: &str,
    segno: u32,
    block_size_bytes: u32,
    blocks: u32,
    blocks_per_segment: u32,
) -> Result<String, JsError> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let to = pgpage::file::go_to(
        text,
        base,
        segno,
        block_size(block_size_bytes)?,
        blocks,
        Some(blocks_per_segment),
    )
    .map_err(|why| JsError::new(&why))?;
    serde_json::to_string(&to).map_err(serialize_error)
}

/// What `pg_filedump -f -i -R block FILE` prints for one page (`pgpage::filedump`), `file`
/// named in its banner as the user has it.
#[wasm_bindgen]
pub fn filedump_fi(file: &str, page: &[u8], block: u32, big_endian: bool) -> String {
    pgpage::text::filedump::filedump_fi(file, page, block, endian(big_endian))
}

/// Which of a folder's files to verify (1) or leave (0), in order: `datadir::folder_filter`.
#[wasm_bindgen]
pub fn folder_filter(paths: Vec<String>) -> Vec<u8> {
    pgpage::file::datadir::folder_filter(&paths)
        .into_iter()
        .map(u8::from)
        .collect()
}

/// The database directory of a relative path (`base/16384`), undefined for none.
#[wasm_bindgen]
pub fn relation_directory(path: &str) -> Option<String> {
    pgpage::file::datadir::relation_directory(path)
}

/// The page statuses' contract names (docs/contracts.md, "Page status"), indexed by the codes that
/// `FileScanJs.chunk` and `FileVerdictJs.status` hold.
#[wasm_bindgen]
pub fn status_names() -> Vec<String> {
    (0..=u8::MAX)
        .map_while(PageStatus::from_code)
        .map(|s| s.as_str().into())
        .collect()
}

/// The codes of the statuses the server refuses to read (`PageStatus::is_problem`).
#[wasm_bindgen]
pub fn problem_statuses() -> Vec<u8> {
    (0..=u8::MAX)
        .map_while(PageStatus::from_code)
        .filter(|s| s.is_problem())
        .map(PageStatus::code)
        .collect()
}

/// pg_checksum_page's last step for each fold, as block `blkno`: the checksum lab's trials
/// are copies of one block.
#[wasm_bindgen]
pub fn checksums_at(folds: &[u32], blkno: u32) -> Vec<u16> {
    folds
        .iter()
        .map(|&f| pgpage::page::checksum::finish(f, blkno))
        .collect()
}

/// pg_checksums' line for a page whose checksum fails, as `pg_checksums --check` prints it.
#[wasm_bindgen]
pub fn pg_checksums_line(path: &str, block_in_file: u32, computed: u16, stored: u16) -> String {
    format!(
        "pg_checksums: error: {}",
        pgpage::damage::messages::pg_checksums_failure(path, block_in_file, computed, stored)
    )
}

/// The server's lines reading the page (`messages::server_read_lines`); `status` a
/// contract status name, `major` PG_VERSION when known.
#[wasm_bindgen]
pub fn server_lines(
    relpath: &str,
    absolute_block: u32,
    status: &str,
    computed: Option<u16>,
    stored: u16,
    major: Option<u32>,
) -> Result<String, JsError> {
    let status = (0..=u8::MAX)
        .map_while(PageStatus::from_code)
        .find(|s| s.as_str() == status)
        .ok_or_else(|| JsError::new(&format!("no page status {status:?}")))?;
    Ok(pgpage::damage::messages::server_read_lines(
        relpath,
        absolute_block,
        status,
        computed,
        stored,
        major,
    ))
}

/// pg_basebackup's per-block warning (`messages::pg_basebackup_warning`).
#[wasm_bindgen]
pub fn pg_basebackup_line(path: &str, block_in_file: u32, computed: u16, stored: u16) -> String {
    pgpage::damage::messages::pg_basebackup_warning(path, block_in_file, computed, stored)
}

/// How pg_checksum_page reads a page (checksum_impl.h), for the lab's bit addressing:
/// `[N_SUMS, pd_checksum's byte offset, its bytes]`.
#[wasm_bindgen]
pub fn checksum_layout() -> Vec<u32> {
    let pd_checksum = pgpage::page::fields::page_header_data::PD_CHECKSUM;
    [
        pgpage::page::checksum::N_SUMS,
        usize::from(pd_checksum.offset),
        usize::from(pd_checksum.size),
    ]
    .iter()
    .map(|&v| u32::try_from(v).unwrap_or(u32::MAX))
    .collect()
}

/// The block sizes PostgreSQL can be built with, for the page's choices.
#[wasm_bindgen]
pub fn block_sizes() -> Vec<u32> {
    BlockSize::ALL.to_vec()
}

/// One finding of `findings_table`.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(serde::Serialize)]
pub(crate) struct FindingRow {
    code: &'static str,
    message: &'static str,
    evidence: pgpage::findings::Evidence,
    /// Whose check it is: `amcheck` findings are labelled amcheck's, `pgpage` ones pgpage's.
    checker: pgpage::findings::Checker,
    file: &'static str,
    function: &'static str,
    maps: bool,
}

/// Every finding, in the order of the codes `FileVerdictJs.finding_codes` holds:
/// `[{"code", "message", "evidence", "checker", "file", "function", "maps"}]` as JSON; `maps` marks the
/// findings of a heap page against its relation's `_vm` and `_fsm` (`FileScanJs.set_maps`).
#[wasm_bindgen]
pub fn findings_table() -> Result<String, JsError> {
    let rows: Vec<FindingRow> = Finding::ALL
        .iter()
        .map(|f| FindingRow {
            code: f.code(),
            message: f.message(),
            evidence: f.evidence(),
            checker: f.checker(),
            file: f.rule().file,
            function: f.rule().function,
            maps: pgpage::am::maps::walk::FINDINGS.contains(f),
        })
        .collect();
    serde_json::to_string(&rows).map_err(serialize_error)
}

/// Numbers (line pointers, blocks) as the core lists them: runs of consecutive ones as
/// `first-last`, separated by ", " (`6-36, 43, 46`).
#[wasm_bindgen]
pub fn run_texts(items: Vec<u32>) -> String {
    pgpage::words::run_texts(&items).join(", ")
}

fn finding_index(f: Finding) -> u16 {
    Finding::ALL
        .iter()
        .position(|&g| g == f)
        .and_then(|i| u16::try_from(i).ok())
        .unwrap_or(u16::MAX)
}

/// What the structural checks know of a data directory's relations, one entry per relation
/// of its catalogs' listing (`CatalogReader.structures`), read from the bytes the catalog
/// worker hands over: each verify worker and the page imports them once.
#[wasm_bindgen]
pub struct StructuresJs {
    inner: pgpage::cluster::structures::Structures,
}

#[wasm_bindgen]
impl StructuresJs {
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: &[u8]) -> Result<StructuresJs, JsError> {
        let inner = pgpage::cluster::structures::Structures::import(bytes)
            .map_err(|e| JsError::new(&e.to_string()))?;
        Ok(StructuresJs { inner })
    }

    /// How many relations it knows.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> u32 {
        u32::try_from(self.inner.relations.len()).unwrap_or(u32::MAX)
    }
}

impl StructuresJs {
    pub(crate) fn entry(
        &self,
        entry: u32,
    ) -> Result<&std::sync::Arc<pgpage::file::scan::Structure>, JsError> {
        usize::try_from(entry)
            .ok()
            .and_then(|i| self.inner.relations.get(i))
            .ok_or_else(|| {
                JsError::new(&format!(
                    "relation {entry} of {} the catalogs list",
                    self.inner.relations.len()
                ))
            })
    }
}

/// One file's verification, fed chunks of whole pages in any order; a part's state crosses
/// to another worker as `export()` bytes and joins with `merge`.
#[wasm_bindgen]
pub struct FileScanJs {
    scan: FileScan,
    input: Vec<u8>,
}

#[wasm_bindgen]
impl FileScanJs {
    /// A scan of a file of `file_len` bytes, segment `segno`, whose geometry is decided
    /// from `head` and the choice as `file_geometry` decides it.
    #[wasm_bindgen(constructor)]
    pub fn new(
        head: &[u8],
        file_len: f64,
        segno: u32,
        block_size_bytes: u32,
        byte_order: &str,
        named_like_relation: bool,
    ) -> Result<FileScanJs, JsError> {
        let g = geometry_of(head, block_size_bytes, byte_order, named_like_relation)?;
        // A JS number holds integers exactly up to 2^53; a file length is one of them.
        let ok = file_len.is_finite() && file_len >= 0.0 && file_len.fract() == 0.0;
        let max_exact = 9_007_199_254_740_992.0;
        if !ok || file_len > max_exact {
            return Err(JsError::new(&format!("bad file length {file_len}")));
        }
        let len = file_len as u64;
        let scan = FileScan::new(g, segno, len).map_err(|e| JsError::new(&e.to_string()))?;
        Ok(FileScanJs {
            scan,
            input: Vec::new(),
        })
    }

    /// A scan from another worker's `export()`.
    pub fn import(exported: &[u8]) -> Result<FileScanJs, JsError> {
        let scan = FileScan::import(exported).map_err(|e| JsError::new(&e.to_string()))?;
        Ok(FileScanJs {
            scan,
            input: Vec::new(),
        })
    }

    /// The geometry the scan reads with, as `file_geometry` returns it.
    pub fn geometry(&self) -> Result<String, JsError> {
        serde_json::to_string(&self.scan.geometry()).map_err(serialize_error)
    }

    /// Judges the file's heap pages against its relation's `_vm` and `_fsm` forks (either
    /// may be absent), read whole, from the next chunk on; their findings join the verdict's
    /// rows of the pages they concern.
    pub fn set_maps(&mut self, vm: Option<Vec<u8>>, fsm: Option<Vec<u8>>) {
        let maps = pgpage::am::maps::walk::ForkMaps::new(
            vm.as_deref(),
            fsm.as_deref(),
            self.scan.geometry().block_size,
        );
        self.scan.set_maps(std::sync::Arc::new(maps));
    }

    /// Runs the structural checks (amcheck's per-page checks) on every readable page from the
    /// next chunk on, knowing what entry `entry` of `hints` says of the file's relation; their
    /// findings join the verdict's rows of their pages.
    pub fn set_structure(&mut self, hints: &StructuresJs, entry: u32) -> Result<(), JsError> {
        let structure = std::sync::Arc::clone(hints.entry(entry)?);
        self.scan.set_structure(structure);
        Ok(())
    }

    /// The structural checks that need nothing beyond the pages (a file dropped without its
    /// data directory, or one its catalogs do not name): the kind of each page its own.
    pub fn set_page_checks(&mut self) {
        self.scan
            .set_structure(std::sync::Arc::new(pgpage::file::scan::Structure::default()));
    }

    /// Whole pages of the file.
    #[wasm_bindgen(getter)]
    pub fn blocks(&self) -> u32 {
        self.scan.extent().blocks
    }

    /// Bytes past the last whole page.
    #[wasm_bindgen(getter)]
    pub fn trailing_bytes(&self) -> u32 {
        self.scan.extent().trailing_bytes
    }

    /// The relation-wide number of the file's block 0.
    #[wasm_bindgen(getter)]
    pub fn first_absolute_block(&self) -> u32 {
        self.scan.first_absolute_block()
    }

    /// Verifies the whole pages of `bytes` (the first is block `first_block` of the file)
    /// and returns their status codes (`PageStatus::code`, as with checksums on; `finish`
    /// may judge a mismatch `ok` or `bad_header` when checksums turn out to be off).
    pub fn chunk(&mut self, bytes: &[u8], first_block: u32) -> Vec<u8> {
        chunk_codes(&mut self.scan, bytes, first_block)
    }

    /// An input buffer of at least `capacity` bytes in wasm memory, for `chunk_input`; its
    /// byte offset into `memory.buffer`. A view of it must be made again after any call.
    pub fn reserve_input(&mut self, capacity: usize) -> usize {
        if self.input.len() < capacity {
            self.input = vec![0; capacity];
        }
        self.input.as_ptr() as usize
    }

    /// `chunk` over the first `len` bytes of the input buffer: the chunk is copied into
    /// wasm memory once, by the caller, and nothing is allocated for it.
    pub fn chunk_input(&mut self, len: usize, first_block: u32) -> Result<Vec<u8>, JsError> {
        let bytes = self.input.get(..len).ok_or_else(|| {
            JsError::new(&format!(
                "{len} bytes do not fit the scan's {} byte input",
                self.input.len()
            ))
        })?;
        Ok(chunk_codes(&mut self.scan, bytes, first_block))
    }

    /// The scan's state as bytes, to send to the worker that merges the parts.
    pub fn export(&self) -> Vec<u8> {
        self.scan.export()
    }

    /// Adds a part of the same file, as another worker's `export()` gave it.
    pub fn merge(&mut self, exported: &[u8]) -> Result<(), JsError> {
        let other = FileScan::import(exported).map_err(|e| JsError::new(&e.to_string()))?;
        self.scan
            .merge(&other)
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// The file's verdict once every part is in. `checksums`: 0 unknown (the file decides),
    /// 1 on, 2 off, 3 inprogress-on, 4 inprogress-off (`decode_control`'s `checksums_code`).
    /// `path` names the file in the findings' messages.
    pub fn finish(&self, checksums: u8, path: &str) -> Result<FileVerdictJs, JsError> {
        FileVerdictJs::of(&self.scan.finish(checksums_known(checksums)?), path)
    }

    /// The verdict of a scan of one page, `page` at file block `block`, listing that page
    /// whether or not it is a problem (`FileVerdict::row_for`): the page view's verdict.
    pub fn finish_page(
        &self,
        checksums: u8,
        block: u32,
        page: &[u8],
    ) -> Result<FileVerdictJs, JsError> {
        let mut verdict = self.scan.finish(checksums_known(checksums)?);
        verdict.pages = vec![verdict.row_for(block, page)];
        FileVerdictJs::of(&verdict, "")
    }
}

fn chunk_codes(scan: &mut FileScan, bytes: &[u8], first_block: u32) -> Vec<u8> {
    let pages = bytes
        .len()
        .checked_div(scan.geometry().block_size.len())
        .unwrap_or(0);
    let mut codes = Vec::with_capacity(pages);
    scan.chunk_statuses(bytes, first_block, |s| codes.push(s.code()));
    codes
}

/// A file's verdict: its listed pages as parallel typed arrays, the rest as JSON.
#[wasm_bindgen]
pub struct FileVerdictJs {
    block: Vec<u32>,
    absolute_block: Vec<u32>,
    status: Vec<u8>,
    problem: Vec<u8>,
    stored: Vec<u16>,
    computed: Vec<u16>,
    tuple_block: Vec<u32>,
    misplaced_block: Vec<u32>,
    misplaced_kind: Vec<u8>,
    misplaced_matches: Vec<u32>,
    finding_start: Vec<u32>,
    finding_codes: Vec<u16>,
    finding_routine: Vec<u8>,
    structure_start: Vec<u32>,
    structure_codes: Vec<u16>,
    structure_items: Vec<u16>,
    structure_messages: Vec<String>,
    json: String,
}

/// What is known of the cluster's data checksums: 0 unknown, 1 on, 2 off, 3 inprogress-on,
/// 4 inprogress-off.
fn checksums_known(code: u8) -> Result<ChecksumsKnown, JsError> {
    ChecksumsKnown::from_code(code).ok_or_else(|| {
        JsError::new(&format!(
            "checksums {code}: 0 unknown, 1 on, 2 off, 3 inprogress-on or 4 inprogress-off"
        ))
    })
}

/// What the server does with checksums in a state of change, for `FileScanJs.finish`'s code
/// (3 inprogress-on, 4 inprogress-off); undefined for the other codes.
#[wasm_bindgen]
pub fn checksum_change_words(code: u8) -> Option<String> {
    ChecksumsKnown::from_code(code)
        .and_then(ChecksumsKnown::change_words)
        .map(String::from)
}

/// What a cluster changing its data checksums has of them, in the words `pgpage verify`
/// says it: pages with a valid checksum, pages without one yet, and of these the ones storing
/// a nonzero checksum.
#[wasm_bindgen]
pub fn checksum_counts_words(valid: u32, not_yet: u32, not_yet_nonzero: u32) -> String {
    pgpage::file::ChecksumCounts {
        checksums_valid: valid.into(),
        checksums_not_yet: not_yet.into(),
        checksums_not_yet_nonzero: not_yet_nonzero.into(),
    }
    .describe()
}

/// Pages of a file listed for their structural findings alone, at most (`FileVerdictJs::of`).
const STRUCTURE_ROWS: usize = 1000;

/// No block: InvalidBlockNumber, which no page has.
const NO_BLOCK: u32 = u32::MAX;

impl FileVerdictJs {
    fn of(v: &FileVerdict, path: &str) -> Result<FileVerdictJs, JsError> {
        let n = v.pages.len();
        let mut out = FileVerdictJs {
            block: Vec::with_capacity(n),
            absolute_block: Vec::with_capacity(n),
            status: Vec::with_capacity(n),
            problem: Vec::with_capacity(n),
            stored: Vec::with_capacity(n),
            computed: Vec::with_capacity(n),
            tuple_block: Vec::with_capacity(n),
            misplaced_block: Vec::with_capacity(n),
            misplaced_kind: Vec::with_capacity(n),
            misplaced_matches: Vec::with_capacity(n),
            finding_start: Vec::with_capacity(n.saturating_add(1)),
            finding_codes: Vec::new(),
            finding_routine: Vec::new(),
            structure_start: Vec::with_capacity(n.saturating_add(1)),
            structure_codes: Vec::new(),
            structure_items: Vec::new(),
            structure_messages: Vec::new(),
            json: String::new(),
        };
        let mut chance = None;
        let (mut structural, mut unlisted) = (0usize, 0u32);
        for p in &v.pages {
            // A page listed for the structural checks' findings alone (the server reads it):
            // past the first STRUCTURE_ROWS of the file it is counted, not listed, so a file
            // of pages that amcheck would reject everywhere cannot flood the page.
            let only_structure = p.status == PageStatus::Ok
                && p.misplaced.is_none()
                && p.tuple_block.is_none()
                && !p.structure.is_empty()
                && p.findings
                    .iter()
                    .all(|f| p.structure.iter().any(|s| s.finding == *f));
            if only_structure {
                if structural >= STRUCTURE_ROWS {
                    unlisted = unlisted.saturating_add(1);
                    continue;
                }
                structural = structural.saturating_add(1);
            }
            out.block.push(p.block);
            out.absolute_block.push(p.absolute_block);
            out.status.push(p.status.code());
            out.problem.push(u8::from(p.is_problem()));
            out.stored.push(p.stored);
            out.computed.push(p.computed.unwrap_or(0));
            out.tuple_block.push(p.tuple_block.unwrap_or(NO_BLOCK));
            let m = p.misplaced;
            out.misplaced_block.push(m.map_or(NO_BLOCK, |m| m.block));
            out.misplaced_kind.push(match m {
                None => 0,
                Some(m) if m.is_claim() => 1,
                Some(_) => 2,
            });
            let c = m.and_then(|m| m.chance);
            out.misplaced_matches.push(c.map_or(0, |c| c.matches));
            chance = chance.or(c);
            out.finding_start
                .push(u32::try_from(out.finding_codes.len()).unwrap_or(u32::MAX));
            out.finding_codes
                .extend(p.findings.iter().map(|&f| finding_index(f)));
            out.finding_routine
                .extend(p.findings.iter().map(|&f| u8::from(p.routine_note(f))));
            out.structure_start
                .push(u32::try_from(out.structure_codes.len()).unwrap_or(u32::MAX));
            for f in &p.structure {
                out.structure_codes.push(finding_index(f.finding));
                out.structure_items.push(f.item.unwrap_or(0));
                out.structure_messages
                    .push(f.message_at(p.absolute_block, "%s"));
            }
        }
        out.finding_start
            .push(u32::try_from(out.finding_codes.len()).unwrap_or(u32::MAX));
        out.structure_start
            .push(u32::try_from(out.structure_codes.len()).unwrap_or(u32::MAX));
        let findings: Vec<serde_json::Value> = v
            .findings
            .iter()
            .map(|f| {
                let mut j = serde_json::to_value(f).unwrap_or_default();
                if let Some(o) = j.as_object_mut() {
                    o.insert("message".into(), f.describe(path).into());
                    o.insert("evidence".into(), serde_json::json!(f.finding().evidence()));
                }
                j
            })
            .collect();
        out.json = serde_json::to_string(&serde_json::json!({
            "geometry": v.geometry,
            "segno": v.segno,
            "blocks": v.blocks,
            "trailing_bytes": v.trailing_bytes,
            "checksums_disabled": v.checksums_disabled,
            "checksums_in_progress": v.checksums_in_progress,
            "checksum_counts": v.checksum_counts,
            "problem": v.is_problem(),
            "counts": v.counts,
            "remap": (0..=u8::MAX)
                .map_while(PageStatus::from_code)
                .filter(|&s| v.judged(s) != s)
                .map(|s| [s.code(), v.judged(s).code()])
                .collect::<Vec<_>>(),
            "findings": findings,
            "structure_unlisted": unlisted,
            "chance": chance.map(|c| serde_json::json!({
                "searched": c.searched,
                "expected": c.expected,
                "probability": c.probability,
            })),
        }))
        .map_err(serialize_error)?;
        Ok(out)
    }
}

#[wasm_bindgen]
impl FileVerdictJs {
    /// Listed pages: problem pages and pages with a finding, in block order.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.block.len()
    }
    /// Block within the file.
    #[wasm_bindgen(getter)]
    pub fn block(&self) -> Vec<u32> {
        self.block.clone()
    }
    #[wasm_bindgen(getter)]
    pub fn absolute_block(&self) -> Vec<u32> {
        self.absolute_block.clone()
    }
    /// `PageStatus::code` as the verdict judges it (checksums on or off).
    #[wasm_bindgen(getter)]
    pub fn status(&self) -> Vec<u8> {
        self.status.clone()
    }
    /// 1 where the server fails to read the page (`PageRow::is_problem`: a status it
    /// refuses, or a B-tree's zero page its links reach), else 0.
    #[wasm_bindgen(getter)]
    pub fn problem(&self) -> Vec<u8> {
        self.problem.clone()
    }
    #[wasm_bindgen(getter)]
    pub fn stored(&self) -> Vec<u16> {
        self.stored.clone()
    }
    /// 0 (never a checksum) when the server computes none: new pages, checksums off.
    #[wasm_bindgen(getter)]
    pub fn computed(&self) -> Vec<u16> {
        self.computed.clone()
    }
    /// The block the page's own tuples name; 4294967295 for none.
    #[wasm_bindgen(getter)]
    pub fn tuple_block(&self) -> Vec<u32> {
        self.tuple_block.clone()
    }
    /// Relation-wide block the page was written for; 4294967295 for none.
    #[wasm_bindgen(getter)]
    pub fn misplaced_block(&self) -> Vec<u32> {
        self.misplaced_block.clone()
    }
    /// 0 none, 1 claimed (corroborated), 2 candidate (a bare checksum match; the odds are
    /// the JSON's `chance`).
    #[wasm_bindgen(getter)]
    pub fn misplaced_kind(&self) -> Vec<u8> {
        self.misplaced_kind.clone()
    }
    /// For a candidate, how many blocks of the file its checksum is valid for.
    #[wasm_bindgen(getter)]
    pub fn misplaced_matches(&self) -> Vec<u32> {
        self.misplaced_matches.clone()
    }
    /// Page i's findings are `finding_codes[finding_start[i]..finding_start[i + 1]]`.
    #[wasm_bindgen(getter)]
    pub fn finding_start(&self) -> Vec<u32> {
        self.finding_start.clone()
    }
    /// Indexes into `findings_table()`.
    #[wasm_bindgen(getter)]
    pub fn finding_codes(&self) -> Vec<u16> {
        self.finding_codes.clone()
    }
    /// Beside each of `finding_codes`: 1 when it is a routine note on its page
    /// (`PageRow::routine_note`), as the report counts its notes.
    #[wasm_bindgen(getter)]
    pub fn finding_routine(&self) -> Vec<u8> {
        self.finding_routine.clone()
    }
    /// Page i's structural findings (amcheck's per-page checks, `FileScanJs.set_structure`)
    /// are `structure_codes[structure_start[i]..structure_start[i + 1]]`, each in
    /// `finding_codes` too.
    #[wasm_bindgen(getter)]
    pub fn structure_start(&self) -> Vec<u32> {
        self.structure_start.clone()
    }
    /// Indexes into `findings_table()`.
    #[wasm_bindgen(getter)]
    pub fn structure_codes(&self) -> Vec<u16> {
        self.structure_codes.clone()
    }
    /// The line pointer (OffsetNumber) each structural finding is about; 0 for the page.
    #[wasm_bindgen(getter)]
    pub fn structure_items(&self) -> Vec<u16> {
        self.structure_items.clone()
    }
    /// Each structural finding's whole message, its numbers filled in; `%s` stands where
    /// the message quotes the relation's name, which the caller knows.
    #[wasm_bindgen(getter)]
    pub fn structure_messages(&self) -> Vec<String> {
        self.structure_messages.clone()
    }
    /// `{"geometry", "segno", "blocks", "trailing_bytes", "checksums_disabled", "problem",
    /// "counts", "remap": [[chunk status code, status as judged]] for pages it does not list,
    /// "findings": [{"code", ..., "message", "evidence"}], "structure_unlisted": pages with
    /// structural findings alone past the first 1000, not listed, "chance"}`.
    #[wasm_bindgen(getter)]
    pub fn json(&self) -> String {
        self.json.clone()
    }
}

/// The names of a dropped data directory's relations (`pgpage::cluster::catalog::reader`), read in
/// steps so that JS can fetch each file with `File.arrayBuffer()`: built from every path of
/// the directory (relative to it, `/`-separated) and its `PG_VERSION` and
/// `global/pg_control`; `wanted()` names the files to pass next with `give(path, bytes)`
/// (undefined for a file that cannot be read) until it returns an empty array; `finish()`
/// returns the listing as JSON: `{"relations": [{"database", "database_oid",
/// "tablespace_oid", "relfilenode", "oid", "schema", "name", "relkind", "relpersistence",
/// "am", "toast_relfilenode", "index_of", "kind", "parent", "user"}], "databases": [{"oid",
/// "datname", "dattablespace", "datistemplate"}], "tablespaces": {"OID":
/// "pg_tblspc/OID/PG_..."}, "damage": [line], "files": [{"relation", "page_kind"}]}`, the
/// relations as `pgpage ls --json` names them (without forks, blocks and problems, which
/// the browser has from its own scan of the files), each with its relkind in words and the
/// index in `relations` of the relation it is listed under (`CatalogListing::parents`);
/// `files` has one entry per path the reader was built with: the index of the relation
/// that claims it (null for none) and the kind of its pages from the catalog (null when
/// the catalog does not say).
#[wasm_bindgen]
pub struct CatalogReader {
    inner: Option<pgpage::cluster::catalog::reader::CatalogReader>,
    paths: Vec<String>,
    control: Option<pgpage::cluster::control::ControlFile>,
    /// `Structures::export` of the listing, once `finish` has made it.
    structures: Vec<u8>,
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(serde::Serialize)]
struct WebRelation<'a> {
    #[serde(flatten)]
    listed: &'a pgpage::cluster::catalog::reader::ListedRelation,
    kind: &'static str,
    parent: Option<usize>,
    /// Made after initdb (a user's relation, not a system catalog's).
    user: bool,
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(serde::Serialize)]
struct WebFile {
    relation: Option<usize>,
    page_kind: Option<&'static str>,
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(serde::Serialize)]
struct WebListing<'a> {
    relations: Vec<WebRelation<'a>>,
    databases: &'a [pgpage::cluster::catalog::read::DatabaseRow],
    tablespaces: &'a std::collections::BTreeMap<u32, String>,
    damage: &'a [String],
    files: Vec<WebFile>,
}

/// The major version a data directory's catalogs are read as (PG_VERSION, 13 to 18) and its
/// pg_control when its CRC holds.
pub(crate) fn catalog_cluster(
    pg_version: &[u8],
    pg_control: &[u8],
) -> Result<(u32, Option<pgpage::cluster::control::ControlFile>), JsError> {
    use pgpage::cluster::catalog::layout::{NEWEST, OLDEST};
    let major = pgpage::file::datadir::parse_pg_version(pg_version)
        .ok_or_else(|| JsError::new("PG_VERSION names no PostgreSQL version"))?;
    if !(OLDEST..=NEWEST).contains(&major) {
        return Err(JsError::new(&format!(
            "PostgreSQL {major}: pgpage reads the catalogs of PostgreSQL 13 to 19"
        )));
    }
    let control = pgpage::cluster::control::decode_control(pg_control)
        .ok()
        .filter(|c| c.crc_ok());
    Ok((major, control))
}

#[wasm_bindgen]
impl CatalogReader {
    #[wasm_bindgen(constructor)]
    pub fn new(
        paths: Vec<String>,
        pg_version: &[u8],
        pg_control: &[u8],
    ) -> Result<CatalogReader, JsError> {
        let (major, control) = catalog_cluster(pg_version, pg_control)?;
        let with =
            pgpage::cluster::catalog::reader::ReadWith::from_control(major, control.as_ref());
        let mut inner =
            pgpage::cluster::catalog::reader::CatalogReader::new(paths.iter().cloned(), with, "");
        // The structural checks order each B-tree's items by its key columns.
        inner.read_index_keys();
        Ok(CatalogReader {
            inner: Some(inner),
            paths,
            control,
            structures: Vec::new(),
        })
    }

    /// The paths to `give` next; empty when `finish` can be called.
    pub fn wanted(&mut self) -> Vec<String> {
        self.inner
            .as_mut()
            .map(pgpage::cluster::catalog::reader::CatalogReader::wanted)
            .unwrap_or_default()
    }

    pub fn give(&mut self, path: &str, bytes: Option<Vec<u8>>) {
        if let Some(r) = self.inner.as_mut() {
            r.give(path, bytes);
        }
    }

    /// The listing as JSON (see the type's doc); throws when called twice.
    pub fn finish(&mut self) -> Result<String, JsError> {
        let reader = self
            .inner
            .take()
            .ok_or_else(|| JsError::new("the catalog reader has finished already"))?;
        use pgpage::cluster::catalog::names::{
            file_page_kind, relkind_words, FIRST_NORMAL_OBJECT_ID,
        };
        let listing = reader.finish();
        self.structures =
            pgpage::cluster::structures::Structures::of_listing(&listing, self.control.as_ref())
                .export();
        let parents = listing.parents();
        let claims = listing.claims(self.paths.iter().map(String::as_str));
        let files = self
            .paths
            .iter()
            .zip(claims)
            .map(|(path, relation)| {
                let fork = path
                    .rsplit('/')
                    .next()
                    .and_then(pgpage::file::parse_relation_file_name)
                    .map(|f| f.fork);
                let rel = relation.and_then(|i| listing.relations.get(i));
                let page_kind = fork.zip(rel).and_then(|(fork, r)| {
                    file_page_kind(fork, r.relation.relkind, r.relation.am.as_deref())
                });
                WebFile {
                    relation,
                    page_kind: page_kind.map(PageKind::as_str),
                }
            })
            .collect();
        let web = WebListing {
            relations: listing
                .relations
                .iter()
                .zip(parents)
                .map(|(listed, parent)| WebRelation {
                    listed,
                    kind: relkind_words(listed.relation.relkind),
                    parent,
                    user: listed.relation.oid >= FIRST_NORMAL_OBJECT_ID,
                })
                .collect(),
            databases: &listing.databases,
            tablespaces: &listing.tablespaces,
            damage: &listing.damage,
            files,
        };
        serde_json::to_string(&web).map_err(serialize_error)
    }

    /// After `finish`: what the structural checks know of each relation of the listing, in
    /// its order (a file's `relation` is its entry), as the bytes `StructuresJs` reads.
    pub fn structures(&self) -> Vec<u8> {
        self.structures.clone()
    }
}
