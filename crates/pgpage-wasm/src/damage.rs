//! Damage analysis for the browser: one page of two copies compared, and the single-bit
//! flips that would explain a checksum mismatch. JSON of the core's own structs, as the CLI's
//! `diff --json` and `inspect --bit-flips` print them.

use pgpage::bitflip::localise;
use pgpage::decode::DecodeOptions;
use pgpage::diff::{compare_pages, field_changes, FieldChange, PageDiff};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::{endian, parse_fork, parse_kind};

#[derive(Serialize)]
struct PageComparison {
    /// None when the pages are equal byte for byte.
    page: Option<PageDiff>,
    /// Decoded header fields and line pointers that differ.
    fields: Vec<FieldChange>,
}

/// Compares block `block` of two copies: `{"page": PageDiff | null, "fields": [...]}`
/// (`pgpage::diff::compare_pages` and `field_changes`). A page only one copy has is the
/// caller's to name (it has no bytes to give here).
#[wasm_bindgen]
pub fn diff_page(block: u32, a: &[u8], b: &[u8], big_endian: bool) -> Result<String, JsError> {
    let e = endian(big_endian);
    let out = PageComparison {
        page: compare_pages(block, a, b, e),
        fields: field_changes(a, b, e),
    };
    serde_json::to_string(&out).map_err(|err| JsError::new(&err.to_string()))
}

/// Every single-bit flip of `page` (relation-wide block `absolute_block`) that makes its
/// stored checksum valid, ranked by the structure of the page each gives
/// (`pgpage::bitflip::BitFlips` as JSON, with `odds`: the sentence on chance matches).
#[wasm_bindgen]
pub fn bit_flips(
    page: &[u8],
    absolute_block: u32,
    big_endian: bool,
    fork: &str,
    file_kind: Option<String>,
) -> Result<String, JsError> {
    #[derive(Serialize)]
    struct Out<'a> {
        #[serde(flatten)]
        flips: &'a pgpage::bitflip::BitFlips,
        odds: String,
    }
    let opts = DecodeOptions {
        endian: endian(big_endian),
        kind: None,
        fork: parse_fork(fork)?,
        file_kind: parse_kind(file_kind.as_deref().unwrap_or_default())?,
    };
    let flips = localise(page, absolute_block, &opts);
    let odds = pgpage::bitflip::odds_sentence(&flips);
    serde_json::to_string(&Out {
        flips: &flips,
        odds,
    })
    .map_err(|err| JsError::new(&err.to_string()))
}
