//! TOAST: the chunks of a TOAST relation's heap tuples (chunk_id oid, chunk_seq int4,
//! chunk_data bytea) put back together as access/heap/heaptoast.c heap_fetch_toast_slice
//! does, checked as it checks them, and detoasting of a stored varlena (detoast.c).

use alloc::borrow::Cow;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::compress::decompress;
use crate::findings::Finding;
use crate::page::geometry::{maxalign, Endian};
use crate::tuple::visibility::{tuple_state, TransactionLog};
use crate::tuple::{self, heap_items, Align, Attribute, ToastPointer, TupleHeader, Varlena};

/// A problem with one value, in the server's words where it has them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueProblem {
    pub finding: Finding,
    pub message: String,
}

impl From<Finding> for ValueProblem {
    fn from(finding: Finding) -> ValueProblem {
        ValueProblem {
            finding,
            message: String::from(finding.message()),
        }
    }
}

/// heaptoast.h TOAST_MAX_CHUNK_SIZE for a block size: a quarter of a page
/// (EXTERN_TUPLE_MAX_SIZE) less a tuple header, chunk_id, chunk_seq and a varlena header.
pub fn toast_max_chunk_size(block_size: usize) -> usize {
    let page_overhead = maxalign(24 + 4 * 4);
    let per_tuple = (block_size.saturating_sub(page_overhead) / 4) & !7;
    per_tuple.saturating_sub(maxalign(23).saturating_add(12))
}

/// The attributes of a TOAST relation's tuples.
pub fn chunk_attributes() -> [Attribute; 3] {
    [
        Attribute::of_type(4, Align::Int, true),
        Attribute::of_type(4, Align::Int, true),
        Attribute::of_type(-1, Align::Int, false),
    ]
}

/// A TOAST tuple's (chunk_id, chunk_seq, chunk_data); None when it is not one.
pub fn chunk_of<'a>(
    tuple: &'a [u8],
    attrs: &'a [Attribute; 3],
    e: Endian,
    scratch: &mut Vec<Option<&'a [u8]>>,
) -> Option<(u32, i32, &'a [u8])> {
    tuple::deform(tuple, attrs, e, scratch).ok()?;
    let id = tuple::oid((*scratch.first()?)?, e)?;
    let seq = tuple::int4((*scratch.get(1)?)?, e)?;
    match Varlena::parse((*scratch.get(2)?)?, e).ok()? {
        Varlena::Inline(data) => Some((id, seq, data)),
        _ => None,
    }
}

/// Where each value's chunks are in a TOAST relation, found by reading its pages (no index
/// needed: heap_fetch_toast_slice would use pg_toast_N_index, which may be damaged too).
/// `L` is the caller's handle on a chunk tuple's bytes (a file and offset, or the bytes).
#[derive(Clone, Debug)]
pub struct ChunkIndex<L> {
    chunks: BTreeMap<u32, Vec<(i32, L)>>,
    max_chunk: usize,
    name: String,
    endian: Endian,
}

impl<L> ChunkIndex<L> {
    /// An empty index of the TOAST relation `name` (for messages), read with `block_size`
    /// pages in `endian`.
    pub fn new(name: String, block_size: usize, endian: Endian) -> Self {
        ChunkIndex {
            chunks: BTreeMap::new(),
            max_chunk: toast_max_chunk_size(block_size),
            name,
            endian,
        }
    }

    /// Notes the chunks of one page (relation-wide block `absolute`) that a new transaction
    /// sees (a chunk of a deleted value is not the value's); `at(offset, length)` makes the
    /// handle on a chunk tuple within the page.
    pub fn add_page(
        &mut self,
        page: &[u8],
        absolute: u32,
        log: &TransactionLog,
        mut at: impl FnMut(usize, usize) -> L,
    ) {
        let attrs = chunk_attributes();
        let mut scratch = Vec::new();
        for item in heap_items(page, self.endian) {
            let Some(t) = item.tuple else { continue };
            let Some(h) = TupleHeader::read(t, self.endian) else {
                continue;
            };
            if tuple_state(&h, (absolute, item.lp), log).is_ok_and(|s| !s.is_visible()) {
                continue;
            }
            if let Some((id, seq, _)) = chunk_of(t, &attrs, self.endian, &mut scratch) {
                self.chunks
                    .entry(id)
                    .or_default()
                    .push((seq, at(item.off, item.len)));
            }
        }
    }

    /// The value `p` points to, its chunks' tuples read through `read` and put together as
    /// `reassemble` does; a chunk `read` cannot give counts as missing.
    pub fn fetch(
        &self,
        p: &ToastPointer,
        mut read: impl FnMut(&L) -> Option<Vec<u8>>,
    ) -> Result<Vec<u8>, ValueProblem> {
        let mut locs: Vec<&(i32, L)> = self
            .chunks
            .get(&p.va_valueid)
            .map(|v| v.iter().collect())
            .unwrap_or_default();
        locs.sort_by_key(|(seq, _)| *seq);
        let tuples: Vec<(i32, Vec<u8>)> = locs
            .iter()
            .filter_map(|(seq, l)| Some((*seq, read(l)?)))
            .collect();
        let attrs = chunk_attributes();
        let mut scratch = Vec::new();
        let mut parts: Vec<(i32, &[u8])> = Vec::with_capacity(tuples.len());
        for (seq, t) in &tuples {
            scratch.clear();
            if let Some((_, _, data)) = chunk_of(t, &attrs, self.endian, &mut scratch) {
                parts.push((*seq, data));
            }
        }
        reassemble(p, &parts, self.max_chunk, &self.name)
    }
}

/// heap_fetch_toast_slice for a whole value: `chunks` are the value's chunks by chunk_seq
/// (sorted), `toastrel` names the TOAST relation in messages (`pg_toast_16384`).
pub fn reassemble(
    p: &ToastPointer,
    chunks: &[(i32, &[u8])],
    max_chunk: usize,
    toastrel: &str,
) -> Result<Vec<u8>, ValueProblem> {
    let attrsize = p.extsize as usize;
    let totalchunks = if attrsize == 0 || max_chunk == 0 {
        0
    } else {
        attrsize
            .saturating_sub(1)
            .checked_div(max_chunk)
            .unwrap_or(0)
            .saturating_add(1)
    };
    let endchunk = (totalchunks as i64).saturating_sub(1);
    let id = p.va_valueid;
    let mut out = Vec::with_capacity(attrsize);
    let mut expected: i64 = 0;
    for &(seq, data) in chunks {
        let seq = i64::from(seq);
        if seq != expected {
            if seq < expected {
                // A second copy of a chunk (a dead tuple not yet vacuumed): the first wins.
                continue;
            }
            return Err(ValueProblem {
                finding: Finding::ToastChunkMissing,
                message: format!(
                    "missing chunk number {expected} for toast value {id} in {toastrel}"
                ),
            });
        }
        if seq > endchunk {
            return Err(ValueProblem {
                finding: Finding::ToastChunkNumberUnexpected,
                message: format!(
                    "unexpected chunk number {seq} (out of range 0..{endchunk}) for toast value {id} in {toastrel}"
                ),
            });
        }
        let want = if seq < endchunk {
            max_chunk
        } else {
            attrsize.saturating_sub(max_chunk.saturating_mul(endchunk.max(0) as usize))
        };
        if data.len() != want {
            return Err(ValueProblem {
                finding: Finding::ToastChunkSizeUnexpected,
                message: format!(
                    "unexpected chunk size {} (expected {want}) in chunk {seq} of {totalchunks} for toast value {id} in {toastrel}",
                    data.len()
                ),
            });
        }
        out.extend_from_slice(data);
        expected = expected.saturating_add(1);
    }
    if expected != totalchunks as i64 {
        return Err(ValueProblem {
            finding: Finding::ToastChunkMissing,
            message: format!("missing chunk number {expected} for toast value {id} in {toastrel}"),
        });
    }
    Ok(out)
}

/// The value of a stored varlena (as `deform` returns it) without its header: inline bytes
/// borrowed, compressed ones decompressed, external ones fetched by `fetch` (which returns
/// the reassembled chunks) and decompressed if they were stored compressed.
pub fn detoast<'a>(
    stored: &'a [u8],
    e: Endian,
    fetch: &mut dyn FnMut(&ToastPointer) -> Result<Vec<u8>, ValueProblem>,
) -> Result<Cow<'a, [u8]>, ValueProblem> {
    match Varlena::parse(stored, e)? {
        Varlena::Inline(p) => Ok(Cow::Borrowed(p)),
        Varlena::Compressed {
            rawsize,
            method,
            data,
        } => Ok(Cow::Owned(decompress(method, data, rawsize)?)),
        Varlena::External(p) => {
            let raw = fetch(&p)?;
            let want = usize::try_from(p.va_rawsize).unwrap_or(0).saturating_sub(4);
            let value = if p.is_compressed() {
                // The chunks hold the compressed varlena after its header: va_tcinfo, data.
                let info = tuple::oid(raw.get(..4).unwrap_or_default(), e)
                    .ok_or(Finding::VarlenaSizeInvalid)?;
                let method = (info >> 30) as u8;
                decompress(method, raw.get(4..).unwrap_or_default(), info & 0x3FFF_FFFF)?
            } else {
                raw
            };
            if value.len() != want {
                return Err(ValueProblem {
                    finding: Finding::ToastChunkSizeUnexpected,
                    message: format!(
                        "toast value {} has {} bytes but its pointer says {want}",
                        p.va_valueid,
                        value.len()
                    ),
                });
            }
            Ok(Cow::Owned(value))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ptr(extsize: u32) -> ToastPointer {
        ToastPointer {
            va_rawsize: extsize as i32 + 4,
            extsize,
            method: 0,
            va_valueid: 16500,
            va_toastrelid: 16400,
        }
    }

    #[test]
    fn chunk_size_is_the_servers() {
        assert_eq!(toast_max_chunk_size(8192), 1996);
    }

    #[test]
    fn chunks_put_together_and_problems_in_the_servers_words() {
        let a = [1u8; 1996];
        let b = [2u8; 4];
        let p = ptr(2000);
        let v = reassemble(&p, &[(0, &a), (1, &b)], 1996, "pg_toast_16384").unwrap();
        assert_eq!(v.len(), 2000);
        let e = reassemble(&p, &[(1, &b)], 1996, "pg_toast_16384").unwrap_err();
        assert_eq!(
            e.message,
            "missing chunk number 0 for toast value 16500 in pg_toast_16384"
        );
        let e = reassemble(&p, &[(0, &a)], 1996, "pg_toast_16384").unwrap_err();
        assert_eq!(
            e.message,
            "missing chunk number 1 for toast value 16500 in pg_toast_16384"
        );
        let e = reassemble(&p, &[(0, &a), (1, &a)], 1996, "pg_toast_16384").unwrap_err();
        assert_eq!(
            e.message,
            "unexpected chunk size 1996 (expected 4) in chunk 1 of 2 for toast value 16500 in pg_toast_16384"
        );
    }

    proptest::proptest! {
        #[test]
        fn reassembly_and_detoast_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..300), ext in 0u32..10_000) {
            let chunks: Vec<(i32, &[u8])> = bytes.chunks(7).enumerate().map(|(i, c)| (i as i32, c)).collect();
            let _ = reassemble(&ptr(ext), &chunks, 7, "t");
            let _ = detoast(&bytes, Endian::Little, &mut |_| Ok(bytes.clone()));
        }
    }
}
