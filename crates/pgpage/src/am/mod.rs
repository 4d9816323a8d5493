//! Page decoding: one page's bytes to pageinspect's columns plus byte spans for the hex view.
//! The structures come from [`crate::page::fields`]: values are read through their rows' handles
//! and every span names its row; variable regions (line pointers, tuples, special spaces)
//! are walked here. Bad bytes give a value plus a span flagged with a [`Finding`], never an
//! abort: the rest of the page still decodes. A page that does not show its kind decodes as
//! its file's ([`kind::file_kind`]).
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
//!   page as a tree ([`maps::decode::fsm_tree`]): its level in the FSM from its block's place
//!   in the fork, its nodes by depth, the heap blocks its leaf slots stand for.
//! - vm: `special` = {first_heap_block, heap_blocks, all_visible, all_frozen} (heap blocks;
//!   heap_blocks is the page's capacity); every heap block's two bits:
//!   [`maps::decode::vm_bits`].
//!
//! Every struct serializes its fields in pageinspect's column order: callers that keep it
//! (serializing the structs, not a sorted map) show the columns as the server does.
//! - line pointers are {lp, lp_off, lp_flags, lp_len}, heap_page_items' first columns.

pub mod brin;
pub mod decoded;
pub mod gin;
pub mod gist;
pub mod hash;
pub mod heap;
pub mod kind;
pub mod maps;
pub mod nbtree;
pub mod seq;
pub mod spgist;

use alloc::vec::Vec;

use crate::am::decoded::{DecodeOptions, DecodedPage, Hints, ItemFinding, Items};
use crate::am::kind::detect_kind;
use crate::findings::Finding;
use crate::page::bufpage::{
    all_zero, decode_header, free_space, header_counts_items, line_pointers, max_offset, ItemId,
    SIZE_OF_PAGE_HEADER_DATA,
};

use crate::page::fields::page_header_data;
use crate::page::geometry::Endian;
use crate::page::kind::PageKind;
use crate::page::reader::Reader;
use crate::page::spans::Spans;

/// Decodes one page. `absolute_block` is the relation-wide block number (VM pages use it to
/// number the heap blocks they cover). Never panics; short or garbage pages decode to
/// flagged values.
/// A torn write seen on a heap page: the 512-byte sectors (0-based) whose tuples are not the ones
/// the line pointers describe (another version's sectors under this header), and the line pointers
/// whose tuples it took (`crate::am::heap::check::torn_items`). Sector 0 alone when the header
/// and line pointers are the older write ([`links_past_header`]): then the line pointers are
/// the HOT roots whose updates the header does not know. Empty when nothing says so; only
/// meaningful on a page whose checksum fails. `absolute_block` is the page's relation-wide block
/// number.
pub fn torn_write(page: &[u8], absolute_block: u32, endian: Endian) -> (Vec<u32>, Vec<u16>) {
    let r = Reader { b: page, e: endian };
    // The rules read here are the heap's (tuple headers, t_ctid): an index or other page
    // says nothing by them, and a header without a heap's empty special space is not one.
    if detect_kind(page, endian, crate::page::kind::Fork::Main) != PageKind::Heap {
        return (Vec::new(), Vec::new());
    }
    let lps = page_line_pointers(page, endian);
    let torn = crate::am::heap::check::torn_sectors(&r, &lps, absolute_block);
    if torn.is_empty() {
        // The tuples newer than the line pointers: sector 0, the header's, is the older
        // write. The roots whose links lead past it are versions their updates replaced.
        let links = crate::am::heap::check::links_past_header(&r, &lps, absolute_block);
        if !links.is_empty() {
            return (
                alloc::vec![0],
                links.into_iter().map(|(root, _)| root).collect(),
            );
        }
    }
    let taken = crate::am::heap::check::torn_items(&lps, &torn);
    (
        torn.into_iter()
            .map(|s| u32::try_from(s).unwrap_or(u32::MAX))
            .collect(),
        taken,
    )
}

/// The HOT links of a heap page that lead past its line pointer array: (root, successor) of
/// each tuple HOT-updated to a line pointer the header calls unused or does not have, the
/// sign that the header is an older write than the tuples
/// (`crate::am::heap::check::links_past_header`).
pub fn links_past_header(page: &[u8], absolute_block: u32, endian: Endian) -> Vec<(u16, u16)> {
    if detect_kind(page, endian, crate::page::kind::Fork::Main) != PageKind::Heap {
        return Vec::new();
    }
    let r = Reader { b: page, e: endian };
    crate::am::heap::check::links_past_header(&r, &page_line_pointers(page, endian), absolute_block)
}

/// A torn page's older write as an analysis that knows more than the page found it (the
/// incident report reads the table's indexes): its sectors, and the line pointers whose
/// tuples there are not to be trusted (older versions of their rows).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TornWrite {
    pub sectors: Vec<u32>,
    pub items: Vec<u16>,
    /// Rows whose tuples the older write holds at another place ([`torn_moved`]): (line
    /// pointer, offset of its tuple). Their line pointers are not in `items`.
    pub moved: Vec<(u16, u16)>,
    /// Of `items`, the HOT chain roots whose row's newest version is a heap-only tuple on
    /// the page that nothing leads to: (root, that tuple's line pointer).
    pub newest: Vec<(u16, u16)>,
}

impl TornWrite {
    /// The page as its rows read: [`torn_view`] of its moved rows.
    pub fn view(&self, page: &[u8], endian: Endian) -> Vec<u8> {
        torn_view(page, endian, &self.moved)
    }
}

/// The rows of a torn page whose tuples lie elsewhere in its older `sectors`: a page
/// compacted by pruning between the two writes moved them, keeping their line pointers,
/// and each such tuple still names its line pointer in t_ctid
/// (`crate::am::heap::check::torn_moved`). (line pointer, offset of its tuple).
pub fn torn_moved(
    page: &[u8],
    absolute_block: u32,
    endian: Endian,
    sectors: &[u32],
) -> Vec<(u16, u16)> {
    let r = Reader { b: page, e: endian };
    let lps = page_line_pointers(page, endian);
    let sectors: Vec<usize> = sectors
        .iter()
        .filter_map(|&s| usize::try_from(s).ok())
        .collect();
    crate::am::heap::check::torn_moved(&r, &lps, absolute_block, &sectors)
}

/// A copy of `page` whose line pointers in `moved` point at their tuples' offsets, so that
/// every reader of rows reads a torn page's moved rows where the older write holds them.
pub fn torn_view(page: &[u8], endian: Endian, moved: &[(u16, u16)]) -> Vec<u8> {
    let mut out = page.to_vec();
    let lps = page_line_pointers(page, endian);
    for &(lp, off) in moved {
        if let Some(id) = lps.iter().find(|id| id.lp == lp) {
            crate::page::bufpage::set_item_id(&mut out, endian, lp, off, id.flags, id.len);
        }
    }
    out
}

/// A torn page's older sectors and the line pointers whose tuples lie in them, from what
/// the page shows ([`torn_write`]) and what the caller knows: `stale`, tuples that are
/// older versions of rows whose newer version reads elsewhere (a unique key live on
/// another page, or a heap-only tuple with the same key that nothing leads to), which the
/// page alone cannot tell from current ones. The older write is taken to run from the first
/// sector either finds to the last. Empty when neither finds one.
pub fn torn_with(
    page: &[u8],
    absolute_block: u32,
    endian: Endian,
    stale: &[u16],
) -> (Vec<u32>, Vec<u16>) {
    let (votes, _) = torn_write(page, absolute_block, endian);
    let lps = page_line_pointers(page, endian);
    let stale_sectors = lps
        .iter()
        .filter(|id| stale.contains(&id.lp) && id.len != 0)
        .flat_map(|id| {
            let first = u32::from(id.off) / 512;
            let last = u32::from(id.off).saturating_add(u32::from(id.len).saturating_sub(1)) / 512;
            [first, last]
        });
    let all: Vec<u32> = votes.iter().copied().chain(stale_sectors).collect();
    match (all.iter().min(), all.iter().max()) {
        (Some(&first), Some(&last)) => {
            let sectors: Vec<u32> = (first..=last).collect();
            let taken = taken_in(&lps, &sectors);
            (sectors, taken)
        }
        _ => (Vec::new(), Vec::new()),
    }
}

/// The heap-only tuples of a heap page that nothing on it leads to any more: no redirect and
/// no HOT-updated tuple's t_ctid names them (verify_heapam: "tuple is root of chain but is
/// marked as heap-only tuple"). Each is the newest version of a row whose chain start is
/// wrong, as a torn write leaves a HOT root from before its update.
pub fn unreached_heap_only(page: &[u8], absolute_block: u32, endian: Endian) -> Vec<u16> {
    use crate::am::heap::layout::{HEAP_HOT_UPDATED, HEAP_ONLY_TUPLE};
    use crate::page::fields::{LP_NORMAL, LP_REDIRECT};
    use crate::tuple::TupleHeader;
    let lps = page_line_pointers(page, endian);
    let header_of = |id: &ItemId| {
        let off = usize::from(id.off);
        page.get(off..off.saturating_add(usize::from(id.len)))
            .and_then(|t| TupleHeader::read(t, endian))
    };
    let mut led_to: Vec<u16> = Vec::new();
    for id in &lps {
        if id.flags == LP_REDIRECT {
            led_to.push(id.off);
        } else if id.flags == LP_NORMAL {
            if let Some(h) = header_of(id) {
                if h.t_infomask2 & HEAP_HOT_UPDATED != 0 && h.t_ctid_block == absolute_block {
                    led_to.push(h.t_ctid_offset);
                }
            }
        }
    }
    lps.iter()
        .filter(|id| id.flags == LP_NORMAL && !led_to.contains(&id.lp))
        .filter(|id| header_of(id).is_some_and(|h| h.t_infomask2 & HEAP_ONLY_TUPLE != 0))
        .map(|id| id.lp)
        .collect()
}

/// The line pointers whose tuples lie even partly in `sectors` of a torn page's older write.
pub fn torn_taken(page: &[u8], sectors: &[u32], endian: Endian) -> Vec<u16> {
    taken_in(&page_line_pointers(page, endian), sectors)
}

fn taken_in(lps: &[ItemId], sectors: &[u32]) -> Vec<u16> {
    let sectors: Vec<usize> = sectors
        .iter()
        .filter_map(|&s| usize::try_from(s).ok())
        .collect();
    crate::am::heap::check::torn_items(lps, &sectors)
}

/// A page's line pointers as its header counts them, for the torn-write analyses.
pub(crate) fn page_line_pointers(page: &[u8], endian: Endian) -> Vec<ItemId> {
    let r = Reader { b: page, e: endian };
    let mut spans = Spans::new(page.len(), true);
    let header = decode_header(&r, &mut spans);
    line_pointers(&r, &header, &mut spans)
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
///
/// Every access method's decoder, and through it every check of one page, runs from here,
/// for the page view (`lean` false: [`decode_page_with`]) and for verify (`lean` true:
/// [`check_page`]). A lean run keeps no span without a problem and builds no row text
/// (`Spans::full()` is false), so a check reads the page's bytes through `Reader` and its
/// line pointers and flags through `Spans`, never a row's text: a check that read the text
/// would find nothing in `verify --amcheck`. tests/structure_scan.rs holds both runs equal.
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
                crate::am::heap::decode::items(&r, &header, absolute_block, hints, &mut spans),
                None,
            ),
            PageKind::Sequence => crate::am::seq::decode::sequence(&r, &header, &mut spans),
            PageKind::Btree => {
                crate::am::nbtree::decode::decode(&r, &header, hints.btree_keys, &mut spans)
            }
            PageKind::Hash => crate::am::hash::decode::decode(&r, &header, &mut spans),
            PageKind::Gist => crate::am::gist::decode::decode(&r, &header, &mut spans),
            PageKind::Gin => {
                crate::am::gin::decode::decode(&r, &header, hints.btree_keys, &mut spans)
            }
            PageKind::Spgist => crate::am::spgist::decode::decode(&r, &header, &mut spans),
            PageKind::Brin => {
                crate::am::brin::decode::decode(&r, &header, hints.columns, &mut spans)
            }
            PageKind::Fsm => crate::am::maps::decode::fsm(&r, &mut spans),
            PageKind::Vm => crate::am::maps::decode::vm(&r, absolute_block, &mut spans),
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
