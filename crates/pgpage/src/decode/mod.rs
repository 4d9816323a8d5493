//! Page decoding: one page's bytes to pageinspect's columns plus byte spans for the hex view.
//! The structures come from [`crate::fields`]: values are read through their rows' handles
//! and every span names its row; variable regions (line pointers, tuples, special spaces)
//! are walked here. Bad bytes give a value plus a span flagged with a [`Finding`], never an
//! abort: the rest of the page still decodes. A page that does not show its kind decodes as
//! its file's ([`file_kind`]).
//!
//! What `items` and `special` hold per kind (pageinspect's function and column names):
//! - heap, sequence: `items` = heap_page_items() plus heap_tuple_infomask_flags()' `raw_flags`
//!   and `combined_flags` (and, given the columns, `values` and `toast`: the varlena headers
//!   of compressed and external values); sequence `special` = {magic, last_value, log_cnt,
//!   is_called}.
//! - btree: `items` = bt_page_items(); `special` = BTPageOpaqueData (btpo_*, flag names) with
//!   bt_page_stats()' type/live_items/dead_items/avg_item_size/page_size/free_size, and on
//!   the metapage `meta` = bt_metap().
//! - hash: `items` = hash_page_items(); `special` = hash_page_stats() + hash_page_type(),
//!   `meta` = hash_metapage_info().
//! - gist: `items` = gist_page_items_bytea(); `special` = gist_page_opaque_info().
//! - gin: `special` = gin_page_opaque_info(), `meta` = gin_metapage_info(); `items` =
//!   gin_leafpage_items() on compressed posting-tree leaves, else line pointers.
//! - brin: `special` = {brin_page_type, flags, type}, `meta` = brin_metapage_info();
//!   `items` = brin_revmap_data() rows ({pages}) on revmap pages; on regular pages
//!   brin_page_items() given the index's columns, else line pointers.
//! - spgist: `special` = SpGistPageOpaqueData (+ `meta` = SpGistMetaPageData); line pointers.
//! - fsm: `special` = {fp_next_slot, non_leaf_nodes, leaf_nodes, fsm_page_contents}; the
//!   page as a tree ([`fsm_tree`]): its level in the FSM from its block's place in the fork,
//!   its nodes by depth, the heap blocks its leaf slots stand for.
//! - vm: `special` = {first_heap_block, heap_blocks, all_visible, all_frozen} (heap blocks;
//!   heap_blocks is the page's capacity); every heap block's two bits: [`vm_bits`].
//!
//! Every struct serializes its fields in pageinspect's column order: callers that keep it
//! (serializing the structs, not a sorted map) show the columns as the server does.
//! - line pointers are {lp, lp_off, lp_flags, lp_len}, heap_page_items' first columns.

mod brin;
pub(crate) mod btcheck;
pub(crate) mod btree;
mod columns;
pub(crate) mod gin;
mod gincheck;
mod gist;
mod hash;
mod heap;
mod heapcheck;
mod maps;
mod spgist;

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

use crate::fields::{
    index_tuple_data, item_id_data, page_header_data, Field, Role, SpanField, Table,
    PAGE_HEADER_DATA,
};
pub use crate::file::Fork;
use crate::findings::{Finding, Values};
use crate::layout::{read_u16, read_u32, read_u64, Endian};

pub use brin::{BrinItem, BrinMeta, BrinSpecial, RevmapItem};
pub use btcheck::{KeyColumn, KeyType};
pub use btree::{BtreeItem, BtreeMeta, BtreeSpecial};
pub use columns::{BrinOpclass, ColumnHint, ToastedDatum};
pub use gin::{GinLeafItem, GinMeta, GinSpecial};
pub use gist::{GistItem, GistSpecial};
pub use hash::{HashItem, HashMeta, HashSpecial};
pub use heap::{HeapItem, SequenceSpecial};
pub use heapcheck::HeapContext;
pub use maps::{fsm_tree, vm_bits, FsmShape, FsmSpecial, FsmTree, FsmTreeLevel, VmBits, VmSpecial};
pub use spgist::{SpGistMeta, SpGistSpecial};

/// bufpage.h: SizeOfPageHeaderData; also MAXALIGN(SizeOfPageHeaderData), PageGetContents.
pub const SIZE_OF_PAGE_HEADER_DATA: usize = 24;
/// itemid.h: sizeof(ItemIdData).
pub const SIZE_OF_ITEM_ID: usize = 4;

/// What kind of page this is (CONTRACTS.md `kind`).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PageKind {
    Heap,
    Sequence,
    Btree,
    Hash,
    Gist,
    Gin,
    Spgist,
    Brin,
    Fsm,
    Vm,
    Unknown,
}

impl PageKind {
    pub const ALL: [PageKind; 11] = [
        PageKind::Heap,
        PageKind::Sequence,
        PageKind::Btree,
        PageKind::Hash,
        PageKind::Gist,
        PageKind::Gin,
        PageKind::Spgist,
        PageKind::Brin,
        PageKind::Fsm,
        PageKind::Vm,
        PageKind::Unknown,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PageKind::Heap => "heap",
            PageKind::Sequence => "sequence",
            PageKind::Btree => "btree",
            PageKind::Hash => "hash",
            PageKind::Gist => "gist",
            PageKind::Gin => "gin",
            PageKind::Spgist => "spgist",
            PageKind::Brin => "brin",
            PageKind::Fsm => "fsm",
            PageKind::Vm => "vm",
            PageKind::Unknown => "unknown",
        }
    }

    pub fn parse(s: &str) -> Option<PageKind> {
        PageKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// How to decode a page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeOptions {
    pub endian: Endian,
    /// Decode as this kind instead of the detected one.
    pub kind: Option<PageKind>,
    /// The fork the page comes from (FSM and VM pages cannot be told from their bytes).
    pub fork: Fork,
    /// The kind of the page's file ([`file_kind`]): a page that does not show its kind, or
    /// shows another, is decoded as this one and flagged.
    pub file_kind: Option<PageKind>,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            endian: Endian::Little,
            kind: None,
            fork: Fork::Main,
            file_kind: None,
        }
    }
}

/// What the caller knows of the relation beyond its bytes (from the catalog or the user),
/// for checks that need it; each left out is not judged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hints<'a> {
    /// A B-tree index's key columns, in index column order; for a one-column GIN index, its
    /// opclass's key (storage) type (the column options do not apply).
    pub btree_keys: Option<&'a [KeyColumn]>,
    /// A heap's catalog row and the cluster's transaction horizon, for verify_heapam's xid
    /// and attribute-count checks.
    pub heap: Option<&'a HeapContext<'a>>,
    /// The relation's columns in attnum order (a table's, dropped ones included; a BRIN
    /// index's, with their opclass families): heap tuples' varlena headers and BRIN
    /// summaries decode with them.
    pub columns: Option<&'a [ColumnHint]>,
}

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

/// pageinspect's page_header() row (checksum unsigned, as CONTRACTS.md says).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PageHeader {
    pub lsn: String,
    pub checksum: u16,
    /// smallint in page_header(): bits past 0x7FFF show negative, as pageinspect shows them.
    pub flags: i16,
    pub lower: u16,
    pub upper: u16,
    pub special: u16,
    pub pagesize: u16,
    pub version: u8,
    pub prune_xid: String,
    /// pd_flags bit names (bufpage.h).
    #[serde(skip)]
    pub flag_names: Vec<&'static str>,
}

/// A line pointer as heap_page_items' first four columns show it; the rows of pages whose
/// access method has no pageinspect item function.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LinePointer {
    pub lp: u16,
    pub lp_off: u16,
    pub lp_flags: u8,
    pub lp_len: u16,
}

/// The items of a page, as the access method's pageinspect function lists them.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Items {
    /// heap_page_items().
    Heap(Vec<HeapItem>),
    /// bt_page_items().
    Btree(Vec<BtreeItem>),
    /// hash_page_items().
    Hash(Vec<HashItem>),
    /// gist_page_items_bytea().
    Gist(Vec<GistItem>),
    /// gin_leafpage_items().
    GinLeaf(Vec<GinLeafItem>),
    /// brin_revmap_data().
    Revmap(Vec<RevmapItem>),
    /// brin_page_items(), when the index's columns are known.
    Brin(Vec<BrinItem>),
    /// Line pointers only.
    Lines(Vec<LinePointer>),
}

impl Items {
    pub fn len(&self) -> usize {
        match self {
            Items::Heap(v) => v.len(),
            Items::Btree(v) => v.len(),
            Items::Hash(v) => v.len(),
            Items::Gist(v) => v.len(),
            Items::GinLeaf(v) => v.len(),
            Items::Revmap(v) => v.len(),
            Items::Brin(v) => v.len(),
            Items::Lines(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The special space (and metapage, when the page is one), per access method.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Special {
    Btree(BtreeSpecial),
    Hash(HashSpecial),
    Gist(GistSpecial),
    Gin(GinSpecial),
    Spgist(SpGistSpecial),
    Brin(BrinSpecial),
    Sequence(SequenceSpecial),
    Fsm(FsmSpecial),
    Vm(VmSpecial),
}

/// One decoded page. Serializes as the CONTRACTS.md `inspect --json` block without the
/// fields that only the caller knows (`block`, `absolute_block`, `status`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DecodedPage {
    pub kind: PageKind,
    pub header: PageHeader,
    pub items: Items,
    pub special: Option<Special>,
    /// Byte ranges covering the whole page, sorted and disjoint.
    #[serde(skip)]
    pub spans: Vec<Span>,
    /// Findings about the page as a whole, not one span's bytes (decoded as its file's kind).
    #[serde(skip)]
    pub findings: Vec<Finding>,
    /// The numbers of the item findings whose messages print them, as the checks found them.
    #[serde(skip)]
    pub values: Vec<ValuedFinding>,
    /// Whether the page's own header and line pointers can count its items: the header
    /// passes PageIsVerified's sanity checks (with pd_lower past the header and
    /// pd_pagesize_version right) and at most half of the line pointers are flagged. When
    /// not (random bytes, another file's data), `items` are what pd_lower of noise counts
    /// and how many tuples the page held is unknown from the page.
    #[serde(skip)]
    pub items_counted: bool,
}

/// The numbers a finding about one line pointer prints in its message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValuedFinding {
    pub item: Option<u16>,
    pub finding: Finding,
    pub values: Values,
}

/// The values recorded for `finding` on `item`, none when its message has no numbers.
fn values_of(values: &[ValuedFinding], finding: Finding, item: Option<u16>) -> Values {
    values
        .iter()
        .find(|v| v.finding == finding && v.item == item)
        .map(|v| v.values)
        .unwrap_or_default()
}

impl DecodedPage {
    /// Names the columns as pageinspect of PostgreSQL `major` names them (the newest names
    /// unless told): only btree's changed between 13 and 18.
    pub fn name_for(&mut self, major: u32) {
        if let Some(Special::Btree(b)) = self.special.as_mut() {
            b.name_for(major);
        }
    }

    /// Every flagged span: what looks wrong and where.
    pub fn problems(&self) -> impl Iterator<Item = &Span> {
        self.spans.iter().filter(|s| s.problem.is_some())
    }

    /// `finding` about line pointer `item` as an [`ItemFinding`], with the numbers its check
    /// recorded.
    pub fn item_finding(&self, finding: Finding, item: Option<u16>) -> ItemFinding {
        ItemFinding {
            finding,
            item,
            values: values_of(&self.values, finding, item),
        }
    }
}

/// Endian-aware, bounds-checked reads from one page.
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    pub b: &'a [u8],
    pub e: Endian,
}

/// An ItemPointerData: block (bi_hi << 16 | bi_lo) and offset (ip_posid).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tid {
    pub block: u32,
    pub offset: u16,
}

impl Tid {
    /// tid's output function: `(block,offset)`.
    pub fn text(self) -> String {
        format!("({},{})", self.block, self.offset)
    }
}

impl<'a> Reader<'a> {
    pub fn len(&self) -> usize {
        self.b.len()
    }
    pub fn u8(&self, off: usize) -> Option<u8> {
        self.b.get(off).copied()
    }
    pub fn u16(&self, off: usize) -> Option<u16> {
        read_u16(self.b, off, self.e)
    }
    pub fn u32(&self, off: usize) -> Option<u32> {
        read_u32(self.b, off, self.e)
    }
    pub fn i32(&self, off: usize) -> Option<i32> {
        self.u32(off).map(|v| v as i32)
    }
    pub fn i64(&self, off: usize) -> Option<i64> {
        read_u64(self.b, off, self.e).map(|v| v as i64)
    }
    pub fn f64(&self, off: usize) -> Option<f64> {
        read_u64(self.b, off, self.e).map(f64::from_bits)
    }
    /// PageXLogRecPtr {xlogid, xrecoff} as pg_lsn prints it.
    pub fn lsn(&self, off: usize) -> Option<String> {
        let hi = self.u32(off)?;
        let lo = self.u32(off.checked_add(4)?)?;
        Some(format!("{hi:X}/{lo:X}"))
    }
    pub fn tid(&self, off: usize) -> Option<Tid> {
        let hi = self.u16(off)?;
        let lo = self.u16(off.checked_add(2)?)?;
        let offset = self.u16(off.checked_add(4)?)?;
        Some(Tid {
            block: (u32::from(hi) << 16) | u32::from(lo),
            offset,
        })
    }
    /// A table field of up to 4 bytes (bit fields extracted) at `base`, 0 when unreadable.
    pub fn get(&self, base: usize, f: &Field) -> u32 {
        self.field(base, f).unwrap_or(0)
    }
    /// A table field of up to 4 bytes (bit fields extracted) at `base`.
    pub fn field(&self, base: usize, f: &Field) -> Option<u32> {
        let at = base.checked_add(usize::from(f.offset))?;
        let raw = match f.size {
            1 => u32::from(self.u8(at)?),
            2 => u32::from(self.u16(at)?),
            4 => self.u32(at)?,
            _ => return None,
        };
        Some(match f.bits {
            Some(b) => {
                let unit = u8::try_from(f.size.saturating_mul(8)).unwrap_or(32);
                raw.checked_shr(u32::from(b.shift_for(unit, self.e)))
                    .unwrap_or(0)
                    & b.mask()
            }
            None => raw,
        })
    }
    /// The bytes `[start, start+len)` that exist, and whether all of them did.
    pub fn bytes(&self, start: usize, len: usize) -> (&'a [u8], bool) {
        let end = start.saturating_add(len);
        let s = start.min(self.b.len());
        let e = end.min(self.b.len());
        (self.b.get(s..e).unwrap_or(&[]), e.saturating_sub(s) == len)
    }
}

/// Lowercase hex of bytes, optionally with a separator (bt_page_items' `data`). Two digit
/// pushes per byte, not `write!`: formatting machinery was half of decoding a page.
pub(crate) fn hex(bytes: &[u8], sep: &str) -> String {
    let mut s = String::with_capacity(bytes.len().saturating_mul(3));
    let digit = |v: u8| char::from_digit(u32::from(v), 16).unwrap_or('0');
    for (i, &b) in bytes.iter().enumerate() {
        if i > 0 {
            s.push_str(sep);
        }
        s.push(digit(b >> 4));
        s.push(digit(b & 0xF));
    }
    s
}

/// bytea's output as row_to_json prints it: `\x` then lowercase hex.
pub(crate) fn bytea(bytes: &[u8]) -> String {
    let mut s = String::from("\\x");
    s.push_str(&hex(bytes, ""));
    s
}

/// The span list being built for a page.
pub(crate) struct Spans {
    v: Vec<Span>,
    len: usize,
    /// Findings about the page as a whole ([`DecodedPage::findings`]).
    notes: Vec<Finding>,
    /// Only the findings are wanted ([`check_page`]): spans without a problem are not kept,
    /// a flag on a span not kept is kept as an empty span, and rows build no text.
    lean: bool,
    /// The highest line pointer given a span, for `flag_line_pointers` when lean.
    last_lp: u16,
    /// The numbers of findings flagged with [`Spans::flag_item_valued`].
    values: Vec<ValuedFinding>,
}

impl Spans {
    fn new(len: usize, lean: bool) -> Spans {
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
    fn lean_flag(&mut self, field: &Field, item: Option<u16>, problem: Finding, replace: bool) {
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

    fn push_region(
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
    fn flagged_line_pointers(&self) -> usize {
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
    fn finish(mut self) -> Vec<Span> {
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

/// The page header, as page_header() shows it.
fn decode_header(r: &Reader, spans: &mut Spans) -> PageHeader {
    spans.table(0, &PAGE_HEADER_DATA, None);
    let get = |f: &Field| r.get(0, f);
    let psv = get(&page_header_data::PD_PAGESIZE_VERSION) as u16;
    let flags = get(&page_header_data::PD_FLAGS) as u16;
    let lower = get(&page_header_data::PD_LOWER) as u16;
    let upper = get(&page_header_data::PD_UPPER) as u16;
    let special = get(&page_header_data::PD_SPECIAL) as u16;
    let names = crate::fields::flag_names(u32::from(flags), crate::fields::PD_FLAGS).collect();
    let len = r.len();
    if r.len() >= SIZE_OF_PAGE_HEADER_DATA && r.b.iter().any(|&b| b != 0) {
        // PageIsVerified's rules come from the one header check; pd_lower below the header
        // and pd_pagesize_version are structural rules the server applies elsewhere.
        for finding in crate::verify::header_check(r.b, r.e).findings() {
            let field = match finding {
                Finding::HeaderFlagsInvalid => &page_header_data::PD_FLAGS,
                Finding::HeaderLowerAboveUpper => &page_header_data::PD_LOWER,
                Finding::HeaderUpperAboveSpecial => &page_header_data::PD_UPPER,
                _ => &page_header_data::PD_SPECIAL,
            };
            spans.flag(field, finding);
        }
        if usize::from(lower) < SIZE_OF_PAGE_HEADER_DATA {
            spans.flag(&page_header_data::PD_LOWER, Finding::HeaderLowerBelowHeader);
        }
        if usize::from(psv & 0xFF00) != len || psv & 0x00FF != 4 {
            spans.flag(
                &page_header_data::PD_PAGESIZE_VERSION,
                Finding::HeaderPageSizeVersion,
            );
        }
    }
    PageHeader {
        lsn: r
            .lsn(at(0, &page_header_data::PD_LSN))
            .unwrap_or_else(|| String::from("0/0")),
        checksum: get(&page_header_data::PD_CHECKSUM) as u16,
        flags: flags as i16,
        lower,
        upper,
        special,
        pagesize: psv & 0xFF00,
        version: (psv & 0x00FF) as u8,
        prune_xid: format!("{}", get(&page_header_data::PD_PRUNE_XID)),
        flag_names: names,
    }
}

/// Item bytes decoded so far on one page: the bytes the rows print (hex data, posting
/// lists, heap t_data and t_bits), not the size t_info claims (garbage claims 0 and prints
/// 8 kB). On a real page the items' storage adds up to less than the page; garbage line
/// pointers can all point at the same bytes, and decoding each again took seconds in wasm.
/// Past four pages' worth, the rest of the items are flagged, not decoded.
pub(crate) struct ItemBudget {
    spent: usize,
    limit: usize,
}

impl ItemBudget {
    pub(crate) fn new(page_len: usize) -> Self {
        Self {
            spent: 0,
            limit: page_len.saturating_mul(4),
        }
    }

    /// Whether item `lp` may still be decoded; when not, it is flagged.
    pub(crate) fn allows(&self, lp: u16, spans: &mut Spans) -> bool {
        if self.spent <= self.limit {
            return true;
        }
        spans.flag_item(&item_id_data::LP_OFF, lp, Finding::ItemsOverlapFar);
        false
    }

    pub(crate) fn spend(&mut self, bytes: usize) {
        self.spent = self.spent.saturating_add(bytes);
    }
}

/// bufpage.h: PageGetMaxOffsetNumber, capped to the line pointers that fit in the page;
/// whether pd_lower counts more (pageinspect reads those past the page's end).
fn max_offset(header: &PageHeader, len: usize) -> (u16, bool) {
    let lower = usize::from(header.lower);
    if lower <= SIZE_OF_PAGE_HEADER_DATA {
        return (0, false);
    }
    let n = (lower.saturating_sub(SIZE_OF_PAGE_HEADER_DATA)) / SIZE_OF_ITEM_ID;
    let fit = len.saturating_sub(SIZE_OF_PAGE_HEADER_DATA) / SIZE_OF_ITEM_ID;
    (u16::try_from(n.min(fit)).unwrap_or(u16::MAX), n > fit)
}

/// An ItemIdData as read from the page.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ItemId {
    pub lp: u16,
    pub off: u16,
    pub flags: u8,
    pub len: u16,
}

pub(crate) const LP_UNUSED: u8 = 0;
pub(crate) const LP_NORMAL: u8 = 1;
pub(crate) const LP_REDIRECT: u8 = 2;
pub(crate) const LP_DEAD: u8 = 3;

impl ItemId {
    pub fn row(&self) -> LinePointer {
        LinePointer {
            lp: self.lp,
            lp_off: self.off,
            lp_flags: self.flags,
            lp_len: self.len,
        }
    }
    /// The item's bytes lie within the page (and after the line pointers).
    pub fn storage_ok(&self, len: usize) -> bool {
        self.len != 0
            && usize::from(self.off) >= SIZE_OF_PAGE_HEADER_DATA
            && usize::from(self.off).saturating_add(usize::from(self.len)) <= len
    }
}

/// Reads line pointers 1..=max_offset and emits their spans.
pub(crate) fn line_pointers(r: &Reader, header: &PageHeader, spans: &mut Spans) -> Vec<ItemId> {
    let (n, past_page) = max_offset(header, r.len());
    let mut out = Vec::with_capacity(usize::from(n));
    for lp in 1..=n {
        let base = SIZE_OF_PAGE_HEADER_DATA
            .saturating_add(usize::from(lp.saturating_sub(1)).saturating_mul(SIZE_OF_ITEM_ID));
        let id = ItemId {
            lp,
            off: r.get(base, &item_id_data::LP_OFF) as u16,
            flags: r.get(base, &item_id_data::LP_FLAGS) as u8,
            len: r.get(base, &item_id_data::LP_LEN) as u16,
        };
        // verify_heapam's numbers: the redirect's target against FirstOffsetNumber or maxoff,
        // the item's offset and length against the page's end.
        let end = usize::from(id.off).saturating_add(usize::from(id.len));
        if id.flags == LP_REDIRECT && (id.off == 0 || id.off > n) {
            let bound = if id.off == 0 { 1 } else { n };
            let values = Values::new(&[u32::from(id.off), u32::from(bound)]);
            spans.value(Some(lp), Finding::LpRedirectOutOfRange, values);
        } else if matches!(id.flags, LP_NORMAL | LP_DEAD) && id.len != 0 && end > r.len() {
            let page = u32::try_from(r.len()).unwrap_or(u32::MAX);
            let values = Values::new(&[u32::from(id.off), u32::from(id.len), page]);
            spans.value(Some(lp), Finding::ItemPastPage, values);
        }
        let problem = match id.flags {
            LP_UNUSED if id.len != 0 || id.off != 0 => Some(Finding::LpUnusedWithStorage),
            LP_NORMAL if id.len == 0 => Some(Finding::LpNormalWithoutStorage),
            LP_REDIRECT if id.len != 0 || id.off == 0 || id.off > n => {
                Some(Finding::LpRedirectOutOfRange)
            }
            LP_NORMAL | LP_DEAD if id.len != 0 && !id.storage_ok(r.len()) => {
                Some(Finding::ItemPastPage)
            }
            LP_NORMAL | LP_DEAD
                if id.len != 0
                    && (id.off < header.upper
                        || usize::from(id.off).saturating_add(usize::from(id.len))
                            > usize::from(header.special)) =>
            {
                Some(Finding::ItemOutsideUpperSpecial)
            }
            _ => None,
        };
        spans.push(
            base,
            SIZE_OF_ITEM_ID,
            &item_id_data::LP_OFF,
            Some(lp),
            problem,
        );
        out.push(id);
    }
    if past_page {
        spans.note(Finding::LinePointersPastPage);
    }
    out
}

/// The free space between pd_lower and pd_upper.
pub(crate) fn free_space(header: &PageHeader, spans: &mut Spans) {
    let (lower, upper) = (usize::from(header.lower), usize::from(header.upper));
    if lower < upper && lower >= SIZE_OF_PAGE_HEADER_DATA {
        spans.push_region(
            lower,
            upper.saturating_sub(lower),
            SpanField::FreeSpace,
            Role::FreeSpace,
            None,
            None,
        );
    }
}

/// The special space's size (PageGetSpecialSize), None when pd_special is not in the page.
pub(crate) fn special_size(header: &PageHeader, len: usize) -> Option<usize> {
    len.checked_sub(usize::from(header.special))
}

/// Spans the special space as the access method's opaque data `table`, flagging pd_special
/// when the space is not that size; returns where the space starts.
pub(crate) fn special_opaque(
    r: &Reader,
    header: &PageHeader,
    spans: &mut Spans,
    table: &Table,
) -> usize {
    let at = usize::from(header.special);
    if special_size(header, r.len()) != Some(usize::from(table.size)) {
        spans.flag(&page_header_data::PD_SPECIAL, Finding::SpecialSizeWrong);
    }
    spans.table(at, table, None);
    at
}

/// hash.h/gist.h/spgist_private.h/brin_page.h: the page ids the access methods keep in the
/// last two bytes of their special space.
const HASHO_PAGE_ID: u16 = 0xFF80;
const GIST_PAGE_ID: u16 = 0xFF81;
const SPGIST_PAGE_ID: u16 = 0xFF82;
/// ginblock.h: every GinPageOpaqueData.flags bit, GIN_DATA (1) to GIN_COMPRESSED (1 << 7).
const GIN_FLAGS_ALL: u16 = 0xFF;
/// commands/sequence.c: SEQ_MAGIC.
pub(crate) const SEQ_MAGIC: u32 = 0x1717;

/// The page kind from the special space (size and page ids) and the fork.
pub fn detect_kind(page: &[u8], endian: Endian, fork: Fork) -> PageKind {
    match fork {
        Fork::Fsm => return PageKind::Fsm,
        Fork::Vm => return PageKind::Vm,
        Fork::Main | Fork::Init => {}
    }
    let r = Reader { b: page, e: endian };
    let (Some(upper), Some(special)) = (
        r.field(0, &page_header_data::PD_UPPER).map(|v| v as u16),
        r.field(0, &page_header_data::PD_SPECIAL).map(|v| v as u16),
    ) else {
        return PageKind::Unknown;
    };
    if upper == 0 {
        // A new page: nothing says what it belongs to.
        return PageKind::Unknown;
    }
    let special = usize::from(special);
    let Some(size) = page.len().checked_sub(special) else {
        return PageKind::Unknown;
    };
    let page_id = page.len().checked_sub(2).and_then(|at| r.u16(at));
    match (size, page_id) {
        (0, _) => PageKind::Heap,
        (16, Some(HASHO_PAGE_ID)) => PageKind::Hash,
        (16, Some(GIST_PAGE_ID)) => PageKind::Gist,
        (8, Some(SPGIST_PAGE_ID)) => PageKind::Spgist,
        (8, Some(0xF091..=0xF093)) => PageKind::Brin,
        (8, _) if r.u32(special) == Some(SEQ_MAGIC) => PageKind::Sequence,
        (16, _)
            if r.field(special, &crate::fields::bt_page_opaque_data::BTPO_FLAGS)
                .is_some_and(|f| f < 1 << 9) =>
        {
            PageKind::Btree
        }
        // ginblock.h: GIN's flags (GIN_DATA .. GIN_COMPRESSED) are the low eight bits of
        // the special space's last two bytes; other access methods keep a page id there
        // (contrib/bloom's BLOOM_PAGE_ID 0xFF83, pgvector's 0xFF84 and 0xFF90), never GIN's.
        (8, Some(flags)) if flags <= GIN_FLAGS_ALL => PageKind::Gin,
        _ => PageKind::Unknown,
    }
}

/// Whether `page`, of `kind`, is its access method's metapage (block 0 of an index).
fn is_metapage(page: &[u8], kind: PageKind, endian: Endian) -> bool {
    let r = Reader { b: page, e: endian };
    let special = r.get(0, &page_header_data::PD_SPECIAL) as usize;
    let (field, meta): (&Field, u32) = match kind {
        PageKind::Btree => (&crate::fields::bt_page_opaque_data::BTPO_FLAGS, 1 << 3),
        PageKind::Hash => (&crate::fields::hash_page_opaque_data::HASHO_FLAG, 1 << 3),
        PageKind::Gin => (&crate::fields::gin_page_opaque_data::FLAGS, 1 << 3),
        PageKind::Spgist => (&crate::fields::spgist_page_opaque_data::FLAGS, 1 << 0),
        PageKind::Brin => {
            let t = &crate::fields::brin_special_space::TYPE;
            return r.field(special, t) == Some(u32::from(brin::BRIN_PAGETYPE_META));
        }
        _ => return false,
    };
    r.field(special, field).is_some_and(|v| v & meta != 0)
}

/// The kind of a relation file's pages, as a PostgreSQL expert tells it: the fork suffix
/// for FSM and VM; otherwise an index's metapage, else the kind most of the readable pages
/// show on their own. A damaged page then decodes as its file's kind
/// ([`DecodeOptions::file_kind`]) instead of `unknown`.
pub fn file_kind<'a>(
    fork: Fork,
    pages: impl IntoIterator<Item = &'a [u8]>,
    endian: Endian,
) -> PageKind {
    match fork {
        Fork::Fsm => return PageKind::Fsm,
        Fork::Vm => return PageKind::Vm,
        Fork::Main | Fork::Init => {}
    }
    let mut votes = [0u32; PageKind::ALL.len()];
    for page in pages {
        let kind = detect_kind(page, endian, fork);
        if is_metapage(page, kind, endian) {
            return kind;
        }
        if let Some(v) = votes.get_mut(kind as usize) {
            *v = v.saturating_add(1);
        }
    }
    // The first kind with the most votes; `unknown` never wins over a kind seen.
    let mut best = PageKind::Unknown;
    let mut most = 0;
    for (k, &v) in PageKind::ALL.iter().zip(&votes) {
        if *k != PageKind::Unknown && v > most {
            (best, most) = (*k, v);
        }
    }
    best
}

/// Decodes one page. `absolute_block` is the relation-wide block number (VM pages use it to
/// number the heap blocks they cover). Never panics; short or garbage pages decode to
/// flagged values.
/// A torn write seen on a heap page: the 512-byte sectors (0-based) whose tuples are not
/// the ones the line pointers describe (another version's sectors under this header), and
/// the line pointers whose tuples it took (`heapcheck::torn_items`). Empty when nothing
/// says so; only meaningful on a page whose checksum fails. `absolute_block` is the page's
/// relation-wide block number.
pub fn torn_write(page: &[u8], absolute_block: u32, endian: Endian) -> (Vec<u32>, Vec<u16>) {
    let r = Reader { b: page, e: endian };
    let mut spans = Spans::new(page.len(), true);
    let header = decode_header(&r, &mut spans);
    let lps = line_pointers(&r, &header, &mut spans);
    let torn = heapcheck::torn_sectors(&r, &lps, absolute_block);
    let taken = heapcheck::torn_items(&r, &lps, &torn);
    (
        torn.into_iter()
            .map(|s| u32::try_from(s).unwrap_or(u32::MAX))
            .collect(),
        taken,
    )
}

pub fn decode_page(page: &[u8], absolute_block: u32, opts: &DecodeOptions) -> DecodedPage {
    decode_page_with(page, absolute_block, opts, &Hints::default())
}

/// [`decode_page`] with what the caller knows of the relation ([`Hints`]).
pub fn decode_page_with(
    page: &[u8],
    absolute_block: u32,
    opts: &DecodeOptions,
    hints: &Hints,
) -> DecodedPage {
    let (d, spans) = decode_spans(page, absolute_block, opts, hints, false);
    DecodedPage {
        spans: spans.finish(),
        ..d
    }
}

/// A finding [`check_page`] makes, with the line pointer (OffsetNumber) it is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ItemFinding {
    pub finding: Finding,
    pub item: Option<u16>,
    /// The numbers its message prints (none when it prints none).
    pub values: Values,
}

impl ItemFinding {
    /// The message with the numbers its check recorded.
    pub fn message(&self) -> String {
        self.finding.valued(&self.values)
    }

    /// The whole message of a finding on relation-wide block `block` of `relation` (the
    /// name its `%s` quotes: the catalogs' name, else the file): the numbers its check
    /// recorded, then the block and the line pointer where the message names them (amcheck's
    /// index checks say "block %u", "page %u", "offset %u" of the page they are on).
    pub fn message_at(&self, block: u32, relation: &str) -> String {
        let mut m = self.message().replace("%s", relation);
        let block = format!("{block}");
        for place in ["block %u", "page %u", "blk %u"] {
            m = m.replace(place, &place.replace("%u", &block));
        }
        if let Some(item) = self.item {
            m = m.replace("offset %u", &format!("offset {item}"));
        }
        m
    }
}

/// The findings [`decode_page_with`] makes on a page (its flagged spans' and its notes'),
/// each once, without building the spans and rows only a viewer needs: what verify runs on
/// every page. Overlaps between spans (`SpanOverlap`) are the hex view's and not judged.
pub fn check_page(
    page: &[u8],
    absolute_block: u32,
    opts: &DecodeOptions,
    hints: &Hints,
) -> Vec<ItemFinding> {
    let (d, spans) = decode_spans(page, absolute_block, opts, hints, true);
    let mut out: Vec<ItemFinding> = Vec::new();
    let flagged = spans
        .v
        .iter()
        .filter_map(|s| s.problem.map(|finding| d.item_finding(finding, s.item)));
    let notes = d
        .findings
        .iter()
        .map(|&finding| d.item_finding(finding, None));
    for f in flagged.chain(notes) {
        if !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

/// The decoded page (its spans left in the builder) and the span builder.
fn decode_spans(
    page: &[u8],
    absolute_block: u32,
    opts: &DecodeOptions,
    hints: &Hints,
    lean: bool,
) -> (DecodedPage, Spans) {
    let r = Reader {
        b: page,
        e: opts.endian,
    };
    let mut spans = Spans::new(page.len(), lean);
    let header = decode_header(&r, &mut spans);
    let own = detect_kind(page, opts.endian, opts.fork);
    let is_new = header.upper == 0;
    let kind = match (opts.kind, opts.file_kind) {
        (Some(k), _) => k,
        // An all-zero page is new, fine as it is: nothing to decode as the file's kind.
        (None, Some(file)) if file != own && file != PageKind::Unknown && !all_zero(page) => {
            spans.note(Finding::KindFromFile);
            file
        }
        _ => own,
    };
    if is_new && !all_zero(page) && page.len() >= SIZE_OF_PAGE_HEADER_DATA {
        spans.flag(&page_header_data::PD_UPPER, Finding::NewPageNotZero);
    }
    let (items, special) = if is_new && opts.kind.is_none() && kind == own {
        (Items::Lines(Vec::new()), None)
    } else {
        match kind {
            PageKind::Heap => (
                heap::items(&r, &header, absolute_block, hints, &mut spans),
                None,
            ),
            PageKind::Sequence => heap::sequence(&r, &header, &mut spans),
            PageKind::Btree => btree::decode(&r, &header, hints.btree_keys, &mut spans),
            PageKind::Hash => hash::decode(&r, &header, &mut spans),
            PageKind::Gist => gist::decode(&r, &header, &mut spans),
            PageKind::Gin => gin::decode(&r, &header, hints.btree_keys, &mut spans),
            PageKind::Spgist => spgist::decode(&r, &header, &mut spans),
            PageKind::Brin => brin::decode(&r, &header, hints.columns, &mut spans),
            PageKind::Fsm => maps::fsm(&r, &mut spans),
            PageKind::Vm => maps::vm(&r, absolute_block, &mut spans),
            PageKind::Unknown => {
                let lps = line_pointers(&r, &header, &mut spans);
                free_space(&header, &mut spans);
                (Items::Lines(lps.iter().map(ItemId::row).collect()), None)
            }
        }
    };
    let items_counted = header_counts_items(&r, &header) && {
        let (n, _) = max_offset(&header, r.len());
        spans.flagged_line_pointers().saturating_mul(2) <= usize::from(n)
    };
    let d = DecodedPage {
        items_counted,
        kind,
        header,
        items,
        special,
        findings: core::mem::take(&mut spans.notes),
        values: core::mem::take(&mut spans.values),
        spans: Vec::new(),
    };
    (d, spans)
}

/// The header is one PostgreSQL wrote: PageIsVerified's checks, pd_lower past the header,
/// pd_pagesize_version saying the page's size and layout 4. An all-zero page counts (none).
fn header_counts_items(r: &Reader, header: &PageHeader) -> bool {
    let psv = r.get(0, &page_header_data::PD_PAGESIZE_VERSION) as usize;
    all_zero(r.b)
        || (crate::verify::header_is_sane(r.b, r.e)
            && usize::from(header.lower) >= SIZE_OF_PAGE_HEADER_DATA
            && psv & 0xFF00 == r.len()
            && psv & 0x00FF == 4)
}

fn all_zero(page: &[u8]) -> bool {
    page.iter().all(|&b| b == 0)
}

/// Flag names the way pageinspect's *_opaque_info functions print them: lowercase, without
/// the prefix, unknown bits as hex.
pub(crate) fn pageinspect_flags(value: u16, names: &[(u16, &'static str)]) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = value;
    for &(mask, name) in names {
        if value & mask != 0 {
            out.push(String::from(name));
        }
        rest &= !mask;
    }
    if rest != 0 {
        out.push(format!("{rest:x}"));
    }
    out
}

/// PageGetFreeSpace (bufpage.c): pd_upper - pd_lower less one line pointer, or 0.
pub(crate) fn page_get_free_space(header: &PageHeader) -> u32 {
    let space = i32::from(header.upper).saturating_sub(i32::from(header.lower));
    if space < SIZE_OF_ITEM_ID as i32 {
        0
    } else {
        space.saturating_sub(SIZE_OF_ITEM_ID as i32) as u32
    }
}

/// PageGetHeapFreeSpace (bufpage.c) of a heap page: PageGetFreeSpace, or 0 when the page
/// has MaxHeapTuplesPerPage line pointers and none of them is unused.
pub fn page_get_heap_free_space(page: &[u8], endian: Endian) -> u32 {
    let r = Reader { b: page, e: endian };
    let lower = r.get(0, &page_header_data::PD_LOWER) as u16;
    let upper = r.get(0, &page_header_data::PD_UPPER) as u16;
    let space = i32::from(upper).saturating_sub(i32::from(lower));
    let space = if space < SIZE_OF_ITEM_ID as i32 {
        0
    } else {
        space.saturating_sub(SIZE_OF_ITEM_ID as i32) as u32
    };
    let nline = usize::from(lower).saturating_sub(SIZE_OF_PAGE_HEADER_DATA) / SIZE_OF_ITEM_ID;
    // htup_details.h: MaxHeapTuplesPerPage, (BLCKSZ - header) / (MAXALIGN(23) + 4).
    let max_tuples = page.len().saturating_sub(SIZE_OF_PAGE_HEADER_DATA) / 28;
    if space > 0 && nline >= max_tuples {
        let any_unused = (0..nline).any(|i| {
            let at = SIZE_OF_PAGE_HEADER_DATA.saturating_add(i.saturating_mul(SIZE_OF_ITEM_ID));
            r.field(at, &item_id_data::LP_FLAGS) == Some(u32::from(LP_UNUSED))
        });
        if !any_unused {
            return 0;
        }
    }
    space
}

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
        spans.table(off, &crate::fields::INDEX_TUPLE_DATA, Some(item));
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

/// Where row `f` of a structure laid at `base` starts.
pub(crate) fn at(base: usize, f: &Field) -> usize {
    base.saturating_add(usize::from(f.offset))
}

/// The metapage table's spans at PageGetContents.
pub(crate) fn meta_spans(table: &Table, spans: &mut Spans) {
    spans.table(SIZE_OF_PAGE_HEADER_DATA, table, None);
}

#[cfg(test)]
mod tests;
