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
    // Tuples newer than the line pointers: sector 0, the header's, is the older write,
    // whatever the other sectors' tuples say of the stale line pointers into them. The
    // roots whose links lead past it are versions their updates replaced.
    let older = header_older(page, absolute_block, endian);
    if !older.is_empty() {
        return (
            alloc::vec![0],
            older.links.into_iter().map(|(root, _)| root).collect(),
        );
    }
    let torn = crate::am::heap::check::torn_sectors(&r, &lps, absolute_block);
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

/// What shows a heap page's header and line pointers (sector 0) to be an older write than
/// its tuples: HOT links past the array ([`links_past_header`]) and tuples nothing updated
/// that name line pointers the header calls unused or does not have, found at or above
/// pd_upper outside the tuples the header describes (`check::tuples_past_header`). A page
/// written whole shows neither.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HeaderOlder {
    pub links: Vec<(u16, u16)>,
    /// The line pointers such tuples name, sorted.
    pub named: Vec<u16>,
    /// How many line pointers the header has (pd_lower's count).
    pub header_items: u16,
}

impl HeaderOlder {
    pub fn is_empty(&self) -> bool {
        self.links.is_empty() && self.named.is_empty()
    }
}

/// [`HeaderOlder`] of a heap page; empty on any other page.
pub fn header_older(page: &[u8], absolute_block: u32, endian: Endian) -> HeaderOlder {
    if detect_kind(page, endian, crate::page::kind::Fork::Main) != PageKind::Heap {
        return HeaderOlder::default();
    }
    let r = Reader { b: page, e: endian };
    let lps = page_line_pointers(page, endian);
    let upper = crate::page::geometry::read_u16(page, 14, endian).unwrap_or(0);
    HeaderOlder {
        links: crate::am::heap::check::links_past_header(&r, &lps, absolute_block),
        named: crate::am::heap::check::tuples_past_header(
            &r,
            &lps,
            absolute_block,
            usize::from(upper),
        ),
        header_items: u16::try_from(lps.len()).unwrap_or(u16::MAX),
    }
}

/// The line pointer array of the newer write of a page torn in its first sector (the header
/// and line pointers are the older write's), rebuilt from the tuples' own bytes: the tuples
/// that tile the page from its end down (`check::newer_tuples`, with the table's `attrs`
/// for their exact lengths), each under the line pointer its t_ctid names when nothing
/// updated it (or it was deleted: its own TID). A heap-only tuple's root line pointer the bytes cannot tell:
/// `roots` gives the line pointers the table's unique index holds for its key, and the
/// one that no tuple stands under becomes an LP_REDIRECT to it, as pruning leaves a chain;
/// a version updated without HOT goes under the one line pointer the index holds for its key
/// that nothing else takes. Every other line pointer the older header uses, or an index entry names
/// (`referenced`), becomes LP_DEAD: an index entry into it finds nothing, and VACUUM
/// removes both. Err says why the tuples do not make one array.
pub fn torn_rebuild(
    page: &[u8],
    absolute_block: u32,
    endian: Endian,
    attrs: &[crate::tuple::Attribute],
    roots: &dyn Fn(&[u8]) -> Vec<u16>,
    referenced: &alloc::collections::BTreeSet<u16>,
) -> Result<Vec<crate::page::bufpage::LinePointer>, alloc::string::String> {
    use crate::am::heap::check::Claim;
    use crate::am::heap::layout::SECTOR;
    use crate::page::bufpage::LinePointer;
    use crate::page::fields::{LP_DEAD, LP_NORMAL, LP_REDIRECT, LP_UNUSED};
    use alloc::collections::BTreeMap;
    use alloc::format;
    let r = Reader { b: page, e: endian };
    let found = crate::am::heap::check::newer_tuples(&r, absolute_block, SECTOR, attrs);
    if found.is_empty() {
        return Err(alloc::string::String::from(
            "no tuple ends where the page does, so the newer write's tuples cannot be told from the bytes",
        ));
    }
    let at: BTreeMap<u16, crate::am::heap::check::Found> = found
        .iter()
        .filter_map(|f| match f.claim {
            Claim::Own(lp) | Claim::Either(lp) => Some((lp, *f)),
            Claim::Successor => None,
        })
        .collect();
    let mut items: BTreeMap<u16, LinePointer> = BTreeMap::new();
    for (&lp, f) in &at {
        items.insert(
            lp,
            LinePointer {
                lp,
                lp_off: u16::try_from(f.off)
                    .map_err(|_| format!("offset {} is past any page", f.off))?,
                lp_flags: LP_NORMAL,
                lp_len: u16::try_from(f.len)
                    .map_err(|_| format!("length {} is past any page", f.len))?,
            },
        );
    }
    // The line pointers the index holds for a tuple's key that no tuple stands under.
    let free_for = |f: &crate::am::heap::check::Found, items: &BTreeMap<u16, LinePointer>| {
        let bytes = page
            .get(f.off..f.off.saturating_add(f.len))
            .unwrap_or_default();
        roots(bytes)
            .into_iter()
            .filter(|lp| !at.contains_key(lp) && !items.contains_key(lp))
            .collect::<Vec<u16>>()
    };
    for (&lp, f) in at.iter().filter(|(_, f)| f.heap_only) {
        let free = free_for(f, &items);
        let [root] = free.as_slice() else {
            return Err(format!(
                "the heap-only tuple of line pointer {lp} has {} root line pointer the table's unique index names, not one",
                if free.is_empty() { "no" } else { "more than one" }
            ));
        };
        items.insert(
            *root,
            LinePointer {
                lp: *root,
                lp_off: lp,
                lp_flags: LP_REDIRECT,
                lp_len: 0,
            },
        );
    }
    // A version updated without HOT keeps its own index entries, which name its line
    // pointer: placed there, an index scan through them meets it as the newer write did
    // (updated away) rather than a dead line pointer. Intermediate heap-only versions have
    // no entry: the redirect above skips them, as pruning does.
    for f in found
        .iter()
        .filter(|f| f.claim == Claim::Successor && !f.heap_only && !f.hot_updated)
    {
        if let [lp] = free_for(f, &items).as_slice() {
            items.insert(
                *lp,
                LinePointer {
                    lp: *lp,
                    lp_off: u16::try_from(f.off).unwrap_or(u16::MAX),
                    lp_flags: LP_NORMAL,
                    lp_len: u16::try_from(f.len).unwrap_or(u16::MAX),
                },
            );
        }
    }
    let max_tuples =
        u16::try_from(crate::am::heap::check::max_heap_tuples(page.len())).unwrap_or(u16::MAX);
    let dead: Vec<u16> = page_line_pointers(page, endian)
        .iter()
        .filter(|id| id.flags != LP_UNUSED)
        .map(|id| id.lp)
        .chain(referenced.iter().copied())
        .filter(|lp| *lp != 0 && *lp <= max_tuples && !items.contains_key(lp))
        .collect();
    for lp in dead {
        items.insert(
            lp,
            LinePointer {
                lp,
                lp_off: 0,
                lp_flags: LP_DEAD,
                lp_len: 0,
            },
        );
    }
    let last = items.keys().next_back().copied().unwrap_or(0);
    let lower = SIZE_OF_PAGE_HEADER_DATA.saturating_add(usize::from(last).saturating_mul(4));
    let lowest = found.iter().map(|f| f.off).min().unwrap_or(page.len());
    if lower > lowest {
        return Err(format!(
            "the rebuilt array of {last} line pointers would end at byte {lower}, past the tuple at offset {lowest}"
        ));
    }
    Ok((1..=last)
        .map(|lp| {
            items.remove(&lp).unwrap_or(LinePointer {
                lp,
                lp_off: 0,
                lp_flags: LP_UNUSED,
                lp_len: 0,
            })
        })
        .collect())
}

/// `page` with the line pointer array `items` ([`torn_rebuild`]'s): pd_lower after its
/// last line pointer, pd_upper at its lowest tuple.
pub fn with_line_pointers(
    page: &[u8],
    endian: Endian,
    items: &[crate::page::bufpage::LinePointer],
) -> Vec<u8> {
    let mut out = page.to_vec();
    for i in items {
        crate::page::bufpage::set_item_id(&mut out, endian, i.lp, i.lp_off, i.lp_flags, i.lp_len);
    }
    let lower = SIZE_OF_PAGE_HEADER_DATA.saturating_add(items.len().saturating_mul(4));
    if let Ok(lower) = u16::try_from(lower) {
        crate::page::geometry::write_u16(&mut out, 12, endian, lower);
    }
    let lowest = items
        .iter()
        .filter(|i| i.lp_flags == crate::page::fields::LP_NORMAL)
        .map(|i| i.lp_off)
        .min();
    if let Some(upper) = lowest {
        crate::page::geometry::write_u16(&mut out, 14, endian, upper);
    }
    out
}

/// A torn page's older write as an analysis that knows more than the page found it (the
/// incident report reads the table's indexes): its sectors, and the line pointers whose
/// tuples there are not to be trusted (older versions of their rows).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TornWrite {
    /// Not an older write but random bytes written over the page (the report's
    /// `overwritten` in part): `sectors` are the ones they meet, `items` the line pointers
    /// they take.
    pub noise: bool,
    pub sectors: Vec<u32>,
    pub items: Vec<u16>,
    /// Rows whose tuples the older write holds at another place ([`torn_moved`]): (line
    /// pointer, offset of its tuple). Their line pointers are not in `items`.
    pub moved: Vec<(u16, u16)>,
    /// Of `items`, the HOT chain roots whose row's newest version is a heap-only tuple on
    /// the page that nothing leads to: (root, that tuple's line pointer).
    pub newest: Vec<(u16, u16)>,
    /// A page whose header and line pointers are the older write: the newer write's line
    /// pointer array rebuilt from its tuples ([`torn_rebuild`]), which every reader of its
    /// rows and `repair --torn` read the page through. Empty when not rebuilt.
    pub rebuilt: Vec<crate::page::bufpage::LinePointer>,
    /// A page whose header and line pointers are the older write but whose newer array
    /// could not be rebuilt: why. `repair --torn` refuses it.
    pub not_rebuilt: Option<alloc::string::String>,
}

impl TornWrite {
    /// The page as its rows read: through the rebuilt line pointer array where there is
    /// one, else [`torn_view`] of its moved rows.
    pub fn view(&self, page: &[u8], endian: Endian) -> Vec<u8> {
        if self.rebuilt.is_empty() {
            torn_view(page, endian, &self.moved)
        } else {
            with_line_pointers(page, endian, &self.rebuilt)
        }
    }

    /// The line pointers the rebuilt array made LP_DEAD: the older header's and the index
    /// entries' whose tuple the newer write was not found to hold.
    pub fn dead(&self) -> Vec<u16> {
        self.rebuilt
            .iter()
            .filter(|i| i.lp_flags == crate::page::fields::LP_DEAD)
            .map(|i| i.lp)
            .collect()
    }
}

/// Whether a heap tuple header PostgreSQL could have written (`check::plausible_tuple`)
/// lies in `page[from..=to]` at a MAXALIGN'ed offset that no line pointer leads to: a
/// tuple of another write of the page, whose values follow it.
pub fn unled_tuple_within(
    page: &[u8],
    absolute_block: u32,
    endian: Endian,
    from: usize,
    to: usize,
) -> bool {
    let r = Reader { b: page, e: endian };
    let led: Vec<usize> = page_line_pointers(page, endian)
        .iter()
        .map(|i| usize::from(i.off))
        .collect();
    let first = from.div_ceil(8).saturating_mul(8);
    (first..=to.min(page.len()))
        .step_by(8)
        .filter(|o| !led.contains(o))
        .any(|o| crate::am::heap::check::plausible_at(&r, o, absolute_block))
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
    unreached(page, Some(absolute_block), endian)
}

/// [`unreached_heap_only`] where the page's block number is not known: a HOT update's
/// t_ctid names the same page, so a HOT-updated tuple's t_ctid is taken as this page's.
pub fn unreached_heap_only_here(page: &[u8], endian: Endian) -> Vec<u16> {
    unreached(page, None, endian)
}

fn unreached(page: &[u8], absolute_block: Option<u32>, endian: Endian) -> Vec<u16> {
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
                if h.t_infomask2 & HEAP_HOT_UPDATED != 0
                    && absolute_block.is_none_or(|b| h.t_ctid_block == b)
                {
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
    // What a viewer shows as a tuple's header only; the checks flag the same bytes.
    let not_tuples = match &items {
        Items::Heap(rows) if kind == PageKind::Heap && !lean => {
            let ids: Vec<ItemId> = rows
                .iter()
                .map(|x| ItemId {
                    lp: x.lp,
                    off: x.lp_off,
                    flags: x.lp_flags,
                    len: x.lp_len,
                })
                .collect();
            crate::am::heap::check::not_tuples(&r, &ids)
                .into_iter()
                .map(|(lp, finding, values)| ItemFinding {
                    finding,
                    item: Some(lp),
                    values,
                })
                .collect()
        }
        _ => Vec::new(),
    };
    let d = DecodedPage {
        items_counted,
        not_tuples,
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
