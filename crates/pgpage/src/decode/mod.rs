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

use crate::findings::{Finding, Values};
use crate::page::bufpage::*;
use crate::page::fields::{page_header_data, Field};
use crate::page::geometry::Endian;
use crate::page::kind::{Fork, PageKind};
use crate::page::reader::Reader;
use crate::page::spans::{values_of, Span, Spans, ValuedFinding};

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
            if r.field(
                special,
                &crate::page::fields::bt_page_opaque_data::BTPO_FLAGS,
            )
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
        PageKind::Btree => (
            &crate::page::fields::bt_page_opaque_data::BTPO_FLAGS,
            1 << 3,
        ),
        PageKind::Hash => (
            &crate::page::fields::hash_page_opaque_data::HASHO_FLAG,
            1 << 3,
        ),
        PageKind::Gin => (&crate::page::fields::gin_page_opaque_data::FLAGS, 1 << 3),
        PageKind::Spgist => (&crate::page::fields::spgist_page_opaque_data::FLAGS, 1 << 0),
        PageKind::Brin => {
            let t = &crate::page::fields::brin_special_space::TYPE;
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

#[cfg(test)]
mod tests;
