//! Damage analysis and the repair kit for the browser: two copies compared (one page, or
//! chunks of whole files), the single-bit flips that would explain a checksum mismatch, the
//! repaired page and the advice for a page with no good copy. JSON of the core's own structs,
//! as the CLI's `diff --json`, `inspect --bit-flips` and `repair --json` print them.

use pgpage::am::decoded::DecodeOptions;
use pgpage::damage::bitflip::{localise, PageBit};
use pgpage::damage::diff::{compare_chunks, compare_pages, field_changes, FieldChange, PageDiff};
use pgpage::damage::repair::{advise, quote_qualified, PageSource};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::{endian, parse_fork, parse_kind};

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Serialize)]
pub(crate) struct PageComparison {
    /// None when the pages are equal byte for byte.
    page: Option<PageDiff>,
    /// Decoded header fields and line pointers that differ.
    fields: Vec<FieldChange>,
}

/// Compares block `block` of two copies: `{"page": PageDiff | null, "fields": [...]}`
/// (`pgpage::damage::diff::compare_pages` and `field_changes`). A page only one copy has is the
/// caller's to name (it has no bytes to give here). `pg_version`: the cluster's release
/// (PG_VERSION) when the copies' directory gave it, which decides how pd_lsn prints.
#[wasm_bindgen]
pub fn diff_page(
    block: u32,
    a: &[u8],
    b: &[u8],
    big_endian: bool,
    pg_version: Option<u32>,
) -> Result<String, JsError> {
    let e = endian(big_endian);
    let out = PageComparison {
        page: compare_pages(block, a, b, e),
        fields: field_changes(a, b, e, pg_version),
    };
    serde_json::to_string(&out).map_err(|err| JsError::new(&err.to_string()))
}

/// `bit_flips`: the core's BitFlips, the odds in words and each candidate's rank.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Serialize)]
pub(crate) struct FlipsRanked<'a> {
    #[serde(flatten)]
    flips: &'a pgpage::damage::bitflip::BitFlips,
    odds: String,
    ranks: Vec<Rank>,
}

/// One candidate's rank (1 = most likely) and its reason, as `pgpage::flips` tells them.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Serialize)]
pub(crate) struct Rank {
    offset: u32,
    bit: u8,
    rank: usize,
    why: String,
}

/// Every single-bit flip of `page` (relation-wide block `absolute_block`) that makes its
/// stored checksum valid (`pgpage::damage::bitflip::BitFlips` as JSON, with `odds`: the sentence on
/// chance matches, and `ranks`: each candidate's rank and its reason, as `pgpage::flips`
/// tells them wherever a page is discussed).
#[wasm_bindgen]
pub fn bit_flips(
    page: &[u8],
    absolute_block: u32,
    big_endian: bool,
    fork: &str,
    file_kind: Option<String>,
) -> Result<String, JsError> {
    let opts = DecodeOptions {
        endian: endian(big_endian),
        kind: None,
        fork: parse_fork(fork)?,
        file_kind: parse_kind(file_kind.as_deref().unwrap_or_default())?,
    };
    let flips = localise(page, absolute_block, &opts);
    let odds = pgpage::damage::bitflip::odds_sentence(&flips);
    let ranks = pgpage::damage::flips::tell(page, absolute_block, endian(big_endian), None)
        .candidates
        .into_iter()
        .map(|c| Rank {
            offset: c.byte,
            bit: c.bit,
            rank: c.rank,
            why: c.why,
        })
        .collect();
    serde_json::to_string(&FlipsRanked {
        flips: &flips,
        odds,
        ranks,
    })
    .map_err(|err| JsError::new(&err.to_string()))
}

/// The page's bit-flip candidates as its Markdown report tells them (`pgpage::flips`,
/// ranked, each with its `pgpage repair --flip` command for block `block_in_file` of `path`);
/// empty when the checksum matches, no flip fits, or the page shows a torn write. Without the
/// table's columns the values are not named.
#[wasm_bindgen]
pub fn bit_flips_markdown(
    page: &[u8],
    absolute_block: u32,
    big_endian: bool,
    block_in_file: u32,
    path: &str,
) -> String {
    // A torn page's checksum is explained by its older sectors: a flip that matches is chance,
    // and none is offered (as the report and the page view say).
    if !pgpage::am::torn_write(page, absolute_block, endian(big_endian))
        .0
        .is_empty()
    {
        return String::new();
    }
    let told = pgpage::damage::flips::tell(page, absolute_block, endian(big_endian), None);
    pgpage::damage::flips::markdown(&told, block_in_file, path)
}

/// `compare_chunk`: the pages of the chunk that differ and how many are equal.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Serialize)]
pub(crate) struct ChunkComparison {
    pages: Vec<PageDiff>,
    equal: u64,
}

/// Compares the whole pages of two chunks of copies of one file that start at block
/// `first_block` (`pgpage::damage::diff::compare_chunks`): `{"pages": [PageDiff...], "equal": n}`.
/// Pages past the shorter chunk are the caller's to name as only in one copy.
#[wasm_bindgen]
pub fn compare_chunk(
    first_block: u32,
    a: &[u8],
    b: &[u8],
    block_size_bytes: u32,
    big_endian: bool,
) -> Result<String, JsError> {
    let size = crate::block_size(block_size_bytes)?.len();
    let (pages, equal) = compare_chunks(first_block, a, b, size, endian(big_endian));
    serde_json::to_string(&ChunkComparison { pages, equal })
        .map_err(|err| JsError::new(&err.to_string()))
}

/// The page to write in place of `damaged` (relation-wide block `absolute_block`): `good`,
/// a good copy's page, or else `damaged` with bit `flip_bit` of byte `flip_offset` flipped,
/// its checksum recomputed (`pgpage::damage::repair::repair_page`). Throws the refusal in words
/// when the server would still refuse the page.
#[wasm_bindgen]
pub fn repair_page(
    damaged: &[u8],
    good: Option<Vec<u8>>,
    flip_offset: u32,
    flip_bit: u8,
    absolute_block: u32,
    big_endian: bool,
) -> Result<Vec<u8>, JsError> {
    let source = match &good {
        Some(page) => PageSource::Page(page),
        None => PageSource::Flip(PageBit {
            offset: flip_offset,
            bit: flip_bit,
        }),
    };
    pgpage::damage::repair::repair_page(damaged, source, absolute_block, endian(big_endian))
        .map(|r| r.page)
        .map_err(|why| JsError::new(&why.to_string()))
}

/// `damaged` with one header field (`pd_lower`, `pd_upper` or `pd_special`) set to `value`
/// and its checksum recomputed (`pgpage repair --set`), as the page advice's `header_field`
/// names them. Throws when the field is not one of those, when the server would still refuse
/// the page, or, unless `force`, when the stored checksum does not verify with the value.
#[wasm_bindgen]
pub fn set_header_field(
    damaged: &[u8],
    field: &str,
    value: u16,
    force: bool,
    absolute_block: u32,
    big_endian: bool,
) -> Result<Vec<u8>, JsError> {
    let f = pgpage::page::header_field::HeaderField::from_name(field)
        .ok_or_else(|| JsError::new(&format!("{field} is not pd_lower, pd_upper or pd_special")))?;
    let e = endian(big_endian);
    let r = pgpage::damage::repair::repair_page(
        damaged,
        PageSource::Field(f, value),
        absolute_block,
        e,
    )
    .map_err(|why| JsError::new(&why.to_string()))?;
    if r.field_verified == Some(false) && !force {
        return Err(JsError::new(&format!(
            "the stored checksum does not verify with {field} = {value}: nothing to vouch for the page"
        )));
    }
    Ok(r.page)
}

/// A torn page rebuilt as its rows read (`pgpage repair --torn`), from the incident report's
/// finding on its block: `sectors` (`torn_sectors`), `items` (`torn_items`), `moved`
/// (`torn_moved` as pairs: line pointer, offset of its tuple) and `newest` (`torn_newest` as
/// pairs: root, heap-only tuple), and on a page whose header is the older write `rebuilt`
/// (`torn_rebuilt`, the newer write's line pointers as quadruples: lp, lp_off, lp_flags,
/// lp_len) or `refused` (`torn_refused`). Its checksum is set for `absolute_block`. Throws
/// why not.
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)] // one plain value per field of the report's finding
pub fn torn_rebuilt(
    page: &[u8],
    absolute_block: u32,
    big_endian: bool,
    sectors: Vec<u32>,
    items: Vec<u16>,
    moved: Vec<u16>,
    newest: Vec<u16>,
    rebuilt: Vec<u16>,
    refused: Option<String>,
) -> Result<Vec<u8>, JsError> {
    if let Some(why) = refused {
        return Err(JsError::new(&why));
    }
    let pairs = |v: &[u16]| {
        v.chunks_exact(2)
            .map(|p| {
                (
                    p.first().copied().unwrap_or(0),
                    p.get(1).copied().unwrap_or(0),
                )
            })
            .collect::<Vec<_>>()
    };
    let torn = pgpage::am::TornWrite {
        noise: false,
        sectors,
        items,
        moved: pairs(&moved),
        newest: pairs(&newest),
        rebuilt: rebuilt
            .chunks_exact(4)
            .filter_map(|q| {
                Some(pgpage::page::bufpage::LinePointer {
                    lp: *q.first()?,
                    lp_off: *q.get(1)?,
                    lp_flags: u8::try_from(*q.get(2)?).ok()?,
                    lp_len: *q.get(3)?,
                })
            })
            .collect(),
        not_rebuilt: None,
    };
    let e = endian(big_endian);
    let rebuilt =
        pgpage::damage::repair::torn_rebuilt(page, e, &torn).map_err(|why| JsError::new(&why))?;
    pgpage::damage::repair::repair_page(page, PageSource::Page(&rebuilt), absolute_block, e)
        .map(|r| r.page)
        .map_err(|why| JsError::new(&why.to_string()))
}

/// A torn page's older write as the incident report found it: its block's `torn_sectors`,
/// the line pointers it counts as older versions (`torn_items`), and its moved rows
/// (`torn_moved` as pairs: line pointer, offset of its tuple).
struct Older {
    sectors: Option<Vec<u32>>,
    items: Option<Vec<u16>>,
    moved: Option<Vec<u16>>,
}

/// What pg_surgery and the server's settings would do with `page` as it is
/// (`pgpage::damage::repair::PageAdvice` as JSON). `table`: the catalogs' `schema.name` as SQL.
/// `older_sectors`, `older_items`, `older_moved`: on a torn page, its older write as the
/// incident report found it ([`Older`]).
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub fn page_advice(
    page: &[u8],
    absolute_block: u32,
    big_endian: bool,
    fork: &str,
    file_kind: Option<String>,
    table: Option<String>,
    relfilenode: Option<u32>,
    older_sectors: Option<Vec<u32>>,
    older_items: Option<Vec<u16>>,
    older_moved: Option<Vec<u16>>,
) -> Result<String, JsError> {
    advice_json(
        page,
        absolute_block,
        big_endian,
        fork,
        file_kind,
        table,
        relfilenode,
        Older {
            sectors: older_sectors,
            items: older_items,
            moved: older_moved,
        },
        &pgpage::file::scan::Structure::default(),
    )
}

/// `page_advice` knowing what the structural checks know of the page's relation (entry
/// `entry` of `hints`, as `decode_with` is given it): the heap's pg_class row, the cluster's
/// horizon and pg_xact, so that its findings are the ones the CLI's repair makes in a data
/// directory.
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub fn page_advice_with(
    hints: &crate::StructuresJs,
    entry: u32,
    page: &[u8],
    absolute_block: u32,
    big_endian: bool,
    fork: &str,
    file_kind: Option<String>,
    table: Option<String>,
    relfilenode: Option<u32>,
    older_sectors: Option<Vec<u32>>,
    older_items: Option<Vec<u16>>,
    older_moved: Option<Vec<u16>>,
) -> Result<String, JsError> {
    let structure = hints.entry(entry)?;
    advice_json(
        page,
        absolute_block,
        big_endian,
        fork,
        file_kind,
        table,
        relfilenode,
        Older {
            sectors: older_sectors,
            items: older_items,
            moved: older_moved,
        },
        structure,
    )
}

#[allow(clippy::too_many_arguments)]
fn advice_json(
    page: &[u8],
    absolute_block: u32,
    big_endian: bool,
    fork: &str,
    file_kind: Option<String>,
    table: Option<String>,
    relfilenode: Option<u32>,
    older: Older,
    structure: &pgpage::file::scan::Structure,
) -> Result<String, JsError> {
    let opts = DecodeOptions {
        endian: endian(big_endian),
        kind: None,
        fork: parse_fork(fork)?,
        file_kind: match structure.kind {
            Some(k) => Some(k),
            None => parse_kind(file_kind.as_deref().unwrap_or_default())?,
        },
    };
    let heap = structure
        .heap
        .map(|h| pgpage::am::heap::check::HeapContext {
            xact: structure.xact.as_deref(),
            ..h
        });
    let moved: Vec<(u16, u16)> = older
        .moved
        .unwrap_or_default()
        .chunks_exact(2)
        .filter_map(|p| Some((*p.first()?, *p.get(1)?)))
        .collect();
    let items = older.items.unwrap_or_default();
    let older = older.sectors.map(|sectors| pgpage::am::TornWrite {
        sectors,
        items,
        moved,
        ..pgpage::am::TornWrite::default()
    });
    let advice = advise(
        page,
        absolute_block,
        &opts,
        table.as_deref(),
        relfilenode,
        heap.as_ref(),
        None,
        older.as_ref(),
    );
    serde_json::to_string(&advice).map_err(|err| JsError::new(&err.to_string()))
}

/// `quote_ident(schema) || '.' || quote_ident(name)`, for the SQL the repair kit prints.
#[wasm_bindgen]
pub fn quote_table(schema: &str, name: &str) -> String {
    quote_qualified(schema, name)
}
