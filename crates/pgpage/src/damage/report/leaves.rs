//! The heap TIDs a B-tree leaf page holds (nbtree.h: plain tuples, posting lists), with each
//! entry's key columns as their output functions print them: how the report knows which rows
//! a damaged heap block held when the block itself cannot say.

use alloc::string::String;
use alloc::vec::Vec;

use alloc::borrow::Cow;

use crate::am::nbtree::layout::{
    BTP_HALF_DEAD, BTP_LEAF, BT_IS_POSTING, BT_OFFSET_MASK, INDEX_ALT_TID_MASK,
};
use crate::cluster::rows::Column;
use crate::findings::Finding;
use crate::page::fields::{
    bt_page_opaque_data, item_id_data, page_header_data, BTP_DELETED, BTP_META, INDEX_NULL_MASK,
    INDEX_SIZE_MASK, LP_DEAD, LP_NORMAL,
};
use crate::page::geometry::Endian;
use crate::page::reader::Reader;
use crate::page::verify::{verify_page, PageStatus};
use crate::tuple::datum_len;
use crate::tuple::toast::{detoast, ValueProblem};
use crate::tuple::value::output;

/// One heap TID a leaf page holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeafEntry {
    pub block: u32,
    pub offset: u16,
    /// The leaf's line pointer is LP_DEAD: the index knows the row is dead to every snapshot.
    pub dead: bool,
    /// The key columns as text (None for NULL); None when the key types are not known.
    pub keys: Option<Vec<Option<String>>>,
}

/// Whether a page can be read as the server would: its checksum valid (or not kept) and its
/// header sane. A damaged index page names no TIDs, its entries may be noise, but for a leaf
/// whose checksum alone fails, its header sane and its structure sound to the decoder: read
/// as the server reads it under ignore_checksum_failure, a bit flip or a few changed bytes
/// leave its other entries the server's, and a confirmed flip in a primary key's leaf must
/// not hide every key it holds (torn or overwritten leaves stay unread).
fn readable(page: &[u8], absolute_block: u32, endian: Endian, checksums: bool) -> bool {
    match verify_page(page, absolute_block, endian).status {
        PageStatus::Ok => true,
        PageStatus::Mismatch if !crate::page::verify::header_is_sane(page, endian) => false,
        PageStatus::Mismatch if !checksums => true,
        PageStatus::Mismatch => {
            let opts = crate::am::decoded::DecodeOptions {
                endian,
                ..crate::am::decoded::DecodeOptions::default()
            };
            let decoded = crate::am::decode_page(page, absolute_block, &opts);
            crate::damage::bitflip::structural_findings(page, &decoded, endian).is_empty()
        }
        _ => false,
    }
}

/// Each key column's value of an index tuple's data (`data`, starting at the tuple's data
/// offset, `nulls` its null bitmap), laid out as index_deform_tuple reads it, as the type's
/// bytes (a varlena's without its header, decompressed; a cstring's without its NUL), or
/// None when a column cannot be read. The same value a heap tuple holds gives the same bytes.
pub(super) fn key_payloads<'a>(
    data: &'a [u8],
    nulls: Option<&[u8]>,
    keys: &[Column],
    endian: Endian,
) -> Option<Vec<Option<Cow<'a, [u8]>>>> {
    let mut out = Vec::with_capacity(keys.len());
    let mut off = 0usize;
    for (i, k) in keys.iter().enumerate() {
        if let Some(bits) = nulls {
            // A clear bit is a NULL (itup.h: the bitmap says which attributes are not null).
            let byte = bits.get(i / 8).copied().unwrap_or(0);
            if byte & (1u8 << (i % 8)) == 0 {
                out.push(None);
                continue;
            }
        }
        let att = &k.attribute;
        off = match att.attlen {
            // att_align_pointer: a nonzero byte is a 1-byte varlena header, never padded.
            -1 if data.get(off).is_some_and(|&b| b != 0) => off,
            _ => att.attalign.align(off),
        };
        let len = datum_len(data.get(off..)?, att.attlen, endian).ok()?;
        let end = off.checked_add(len)?;
        let stored = data.get(off..end)?;
        out.push(Some(payload(stored, att.attlen, endian)?));
        off = end;
    }
    Some(out)
}

/// A stored datum's bytes as its type reads them: a varlena's payload (an index tuple never
/// points into TOAST; a heap tuple's value out of line gives None), a cstring without its
/// NUL, a fixed-length value as it is.
pub(super) fn payload(stored: &[u8], attlen: i16, endian: Endian) -> Option<Cow<'_, [u8]>> {
    Some(match attlen {
        -1 => detoast(stored, endian, &mut |_| {
            Err(ValueProblem::from(Finding::ValueInvalid))
        })
        .ok()?,
        -2 => Cow::Borrowed(stored.strip_suffix(&[0]).unwrap_or(stored)),
        _ => Cow::Borrowed(stored),
    })
}

/// The output text of each key column of an index tuple's data ([`key_payloads`]).
fn key_texts(
    data: &[u8],
    nulls: Option<&[u8]>,
    keys: &[Column],
    endian: Endian,
) -> Option<Vec<Option<String>>> {
    key_payloads(data, nulls, keys, endian)?
        .into_iter()
        .zip(keys)
        .map(|(p, k)| match p {
            None => Some(None),
            Some(p) => {
                let mut text = String::new();
                output(&k.ty, &p, endian, &mut text).ok()?;
                Some(Some(text))
            }
        })
        .collect()
}

/// Every heap TID of a B-tree leaf page (relation-wide block `absolute_block`), with its key
/// columns when `keys` names their types; nothing for a page that is not a readable leaf
/// (the metapage, internal, deleted and half-dead pages, a damaged page but a sound one
/// whose checksum alone fails, as [`readable`] says). `checksums`: the cluster keeps data checksums, so a
/// mismatch makes the page unreadable.
pub fn leaf_entries(
    page: &[u8],
    absolute_block: u32,
    endian: Endian,
    checksums: bool,
    keys: Option<&[Column]>,
) -> Vec<LeafEntry> {
    let mut out = Vec::new();
    walk_leaf(
        page,
        absolute_block,
        endian,
        checksums,
        &mut |data, nulls, dead, tids| {
            let text = keys.and_then(|k| key_texts(data, nulls, k, endian));
            for &(block, offset) in tids {
                out.push(LeafEntry {
                    block,
                    offset,
                    dead,
                    keys: text.clone(),
                });
            }
        },
    );
    out
}

/// What [`walk_leaf`] hands each index tuple to: its key data, null bitmap, LP_DEAD, TIDs.
pub(super) type LeafVisit<'v> = dyn FnMut(&[u8], Option<&[u8]>, bool, &[(u32, u16)]) + 'v;

/// Each index tuple of a readable leaf ([`leaf_entries`]'s pages): its key data, null
/// bitmap, whether its line pointer is LP_DEAD, and its heap TIDs (a posting list's all).
pub(super) fn walk_leaf(
    page: &[u8],
    absolute_block: u32,
    endian: Endian,
    checksums: bool,
    visit: &mut LeafVisit<'_>,
) {
    if !readable(page, absolute_block, endian, checksums) {
        return;
    }
    let r = Reader { b: page, e: endian };
    let Some(special) = r.field(0, &page_header_data::PD_SPECIAL) else {
        return;
    };
    let special = usize::try_from(special).unwrap_or(usize::MAX);
    let Some(flags) = r.field(special, &bt_page_opaque_data::BTPO_FLAGS) else {
        return;
    };
    let next = r
        .field(special, &bt_page_opaque_data::BTPO_NEXT)
        .unwrap_or(0);
    if flags & u32::from(BTP_LEAF) == 0
        || flags & u32::from(BTP_DELETED | BTP_HALF_DEAD | BTP_META) != 0
    {
        return;
    }
    let lower = r.field(0, &page_header_data::PD_LOWER).unwrap_or(0);
    let count = usize::try_from(lower).unwrap_or(0).saturating_sub(24) / 4;
    // P_FIRSTDATAKEY: on a page with a right sibling, item 1 is the high key.
    let first = if next != 0 { 2 } else { 1 };
    for lp in first..=count {
        let at = lp.saturating_sub(1).saturating_mul(4).saturating_add(24);
        let lp_flags = r.field(at, &item_id_data::LP_FLAGS).unwrap_or(0);
        if lp_flags != u32::from(LP_NORMAL) && lp_flags != u32::from(LP_DEAD) {
            continue;
        }
        let off = usize::try_from(r.get(at, &item_id_data::LP_OFF)).unwrap_or(usize::MAX);
        let (Some(t_tid), Some(info)) = (r.tid(off), r.u16(off.saturating_add(6))) else {
            continue;
        };
        let posid = t_tid.offset;
        // BTreeTupleGetPostingOffset: an alternative TID's block number is a byte offset.
        let list_at = usize::try_from(t_tid.block).unwrap_or(usize::MAX);
        let size = usize::from(info & INDEX_SIZE_MASK);
        let Some(tuple) = page.get(off..off.saturating_add(size)) else {
            continue;
        };
        let data_offset = if u32::from(info) & INDEX_NULL_MASK != 0 {
            16
        } else {
            8
        };
        let nulls = (u32::from(info) & INDEX_NULL_MASK != 0)
            .then(|| tuple.get(8..16))
            .flatten();
        let posting = info & INDEX_ALT_TID_MASK != 0 && posid & BT_IS_POSTING != 0;
        let data_end = if posting { list_at } else { size };
        let data = tuple.get(data_offset..data_end).unwrap_or_default();
        let dead = lp_flags == u32::from(LP_DEAD);
        if posting {
            let n = usize::from(posid & BT_OFFSET_MASK);
            let mut tids = Vec::with_capacity(n);
            for i in 0..n {
                let at = off
                    .saturating_add(list_at)
                    .saturating_add(i.saturating_mul(6));
                let Some(tid) = r.tid(at) else {
                    break;
                };
                tids.push((tid.block, tid.offset));
            }
            visit(data, nulls, dead, &tids);
        } else if info & INDEX_ALT_TID_MASK == 0 {
            visit(data, nulls, dead, &[(t_tid.block, posid)]);
        }
    }
}
