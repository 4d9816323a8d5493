//! Redaction for the browser's share actions: the core's rule (`pgpage::redact`) of which
//! bytes of a page may hold row data, as a per-byte mask plus the counts and the note every
//! redacted export carries.

use pgpage::am::decode_page;
use pgpage::am::decoded::DecodeOptions;
use pgpage::damage::redact::{redact, Masked, Redaction};
use wasm_bindgen::prelude::*;

use crate::{endian, parse_fork, parse_kind};

/// One page's redaction.
#[wasm_bindgen]
pub struct RedactionJs {
    mask: Vec<u8>,
    tuple_data: u32,
    other: u32,
    note: String,
}

#[wasm_bindgen]
impl RedactionJs {
    /// One byte per page byte: 1 where the byte may hold row data and is masked.
    #[wasm_bindgen(getter)]
    pub fn mask(&self) -> Vec<u8> {
        self.mask.clone()
    }
    /// Masked bytes of tuple data (heap tuple data after t_hoff, index keys, summaries).
    #[wasm_bindgen(getter)]
    pub fn tuple_data(&self) -> u32 {
        self.tuple_data
    }
    /// Masked bytes of free space and unused bytes, which may hold old rows.
    #[wasm_bindgen(getter)]
    pub fn other(&self) -> u32 {
        self.other
    }
    /// "row data redacted: N bytes of tuple data masked (...); headers, line pointers, tuple
    /// headers and checksums kept".
    #[wasm_bindgen(getter)]
    pub fn note(&self) -> String {
        self.note.clone()
    }
}

fn redaction(
    page: &[u8],
    absolute_block: u32,
    big_endian: bool,
    fork: &str,
    file_kind: Option<String>,
) -> Result<Redaction, JsError> {
    let d = decode_page(
        page,
        absolute_block,
        &DecodeOptions {
            endian: endian(big_endian),
            kind: None,
            fork: parse_fork(fork)?,
            file_kind: parse_kind(file_kind.as_deref().unwrap_or_default())?,
        },
    );
    Ok(redact(&d))
}

/// The bytes of `page` (decoded as `decode` decodes it) that may hold row data.
#[wasm_bindgen]
pub fn redact_page(
    page: &[u8],
    absolute_block: u32,
    big_endian: bool,
    fork: &str,
    file_kind: Option<String>,
) -> Result<RedactionJs, JsError> {
    let r = redaction(page, absolute_block, big_endian, fork, file_kind)?;
    Ok(RedactionJs {
        mask: r.byte_mask(page.len()),
        tuple_data: r.bytes_of(Masked::TupleData),
        other: r
            .bytes_of(Masked::FreeSpace)
            .saturating_add(r.bytes_of(Masked::Unused)),
        note: r.note(),
    })
}

/// Whether a pageinspect column (as the decoded page's JSON names it) shows row data.
#[wasm_bindgen]
pub fn is_row_data_column(column: &str) -> bool {
    pgpage::damage::redact::is_row_data_column(column)
}

/// `filedump_fi` with the bytes that may hold row data printed as `xx`, and the redaction's
/// note after the banner (`pgpage::text::filedump::filedump_fi_redacted`).
#[wasm_bindgen]
pub fn filedump_fi_redacted(
    file: &str,
    page: &[u8],
    block: u32,
    absolute_block: u32,
    big_endian: bool,
    fork: &str,
    file_kind: Option<String>,
) -> Result<String, JsError> {
    let r = redaction(page, absolute_block, big_endian, fork, file_kind)?;
    Ok(pgpage::text::filedump::filedump_fi_redacted(
        file,
        page,
        block,
        endian(big_endian),
        &r,
    ))
}
