//! The playground's words and pictures: what happened to a page between two snapshots
//! (`pgpage::damage::story::page_story`) and a heap page's line pointers and HOT chains
//! (`pgpage::damage::story::heap_lines`), as JSON of the core's structs.

use pgpage::am::kind::detect_kind;
use wasm_bindgen::prelude::*;

use crate::{endian, parse_fork, parse_kind};

/// `{"changes": [...], "sentence": "..."}` for block `block` (relation-wide) between `a`
/// (empty: the earlier snapshot had no such page) and `b`. `kind` is the file's kind (from
/// `file_kind`), or "" to read it off `b`.
#[wasm_bindgen]
pub fn page_story(
    a: &[u8],
    b: &[u8],
    block: u32,
    big_endian: bool,
    fork: &str,
    kind: &str,
) -> Result<String, JsError> {
    let e = endian(big_endian);
    let kind = match parse_kind(kind)? {
        Some(k) => k,
        None => detect_kind(b, e, parse_fork(fork)?),
    };
    let before = (!a.is_empty()).then_some(a);
    let story = pgpage::damage::story::page_story(before, b, block, kind, e);
    serde_json::to_string(&story).map_err(|err| JsError::new(&err.to_string()))
}

/// A heap page's line pointers (`pgpage::damage::story::HeapLines`) as JSON; "null" for a new page.
#[wasm_bindgen]
pub fn heap_lines(page: &[u8], block: u32, big_endian: bool) -> Result<String, JsError> {
    let lines = pgpage::damage::story::heap_lines(page, block, endian(big_endian));
    serde_json::to_string(&lines).map_err(|err| JsError::new(&err.to_string()))
}
