//! verify_nbtree's checks of one B-tree page (contrib/amcheck/verify_nbtree.c): the page
//! shape palloc_btree_page insists on, posting list order, and, when the caller names the
//! key types, bt_target_page_check's item order and high key invariants. The keys compare as
//! the default btree opclasses of int2, int4, int8 and text under C collation order them,
//! each column ASC or DESC, NULLS FIRST or LAST as pg_index.indoption says; anything else is
//! said to be unchecked, never guessed.

use alloc::vec::Vec;
use core::cmp::Ordering;

use crate::am::nbtree::layout::P_HIKEY;
use crate::findings::Finding;
use crate::page::bufpage::ItemId;
use crate::page::fields::{bt_page_opaque_data, btree_tuple, index_tuple_data, LP_UNUSED};
use crate::page::geometry::Endian;
use crate::page::itup::IndexTuple;
use crate::page::reader::{Reader, Tid};
use crate::page::spans::Spans;

/// A key column's type, as the caller knows it from the catalog (pg_attribute.atttypid of
/// the index) or a hint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyType {
    Int2,
    Int4,
    Int8,
    /// oid: unsigned 32 bits (btoidcmp).
    Oid,
    /// date: days as int4 (date_cmp).
    Date,
    /// timestamp or timestamptz: microseconds as int8 (timestamp_cmp).
    Timestamp,
    /// text (or varchar) compared bytewise, as under the C collation.
    Text,
}

impl KeyType {
    /// The type's name as `format_type` prints it (int2, int4, int8, oid, date, timestamp,
    /// timestamptz, text; varchar too).
    pub fn parse(s: &str) -> Option<KeyType> {
        Some(match s.trim() {
            "int2" | "smallint" => KeyType::Int2,
            "int4" | "integer" | "int" => KeyType::Int4,
            "int8" | "bigint" => KeyType::Int8,
            "oid" => KeyType::Oid,
            "date" => KeyType::Date,
            "timestamp"
            | "timestamptz"
            | "timestamp without time zone"
            | "timestamp with time zone" => KeyType::Timestamp,
            "text" | "varchar" | "character varying" => KeyType::Text,
            _ => return None,
        })
    }

    /// The type of pg_type OID `oid` (pg_type_d.h), when pgpage orders it.
    pub fn from_type_oid(oid: u32) -> Option<KeyType> {
        Some(match oid {
            21 => KeyType::Int2,
            23 => KeyType::Int4,
            20 => KeyType::Int8,
            26 => KeyType::Oid,
            1082 => KeyType::Date,
            1114 | 1184 => KeyType::Timestamp,
            25 | 1043 => KeyType::Text,
            _ => return None,
        })
    }

    /// typalign as a byte count.
    fn align(self) -> usize {
        match self {
            KeyType::Int2 => 2,
            KeyType::Int4 | KeyType::Oid | KeyType::Date | KeyType::Text => 4,
            KeyType::Int8 | KeyType::Timestamp => 8,
        }
    }
}

/// A key column as the index orders it: its type and pg_index.indoption's INDOPTION_DESC and
/// INDOPTION_NULLS_FIRST bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyColumn {
    pub ty: KeyType,
    pub desc: bool,
    pub nulls_first: bool,
}

impl From<KeyType> for KeyColumn {
    /// ASC NULLS LAST, CREATE INDEX's default.
    fn from(ty: KeyType) -> KeyColumn {
        KeyColumn {
            ty,
            desc: false,
            nulls_first: false,
        }
    }
}

impl KeyColumn {
    /// A column as an index definition writes it: `int4`, `int4 desc`, `text nulls first`,
    /// `int8 desc nulls last` (DESC alone is NULLS FIRST, as in CREATE INDEX).
    pub fn parse(s: &str) -> Option<KeyColumn> {
        let lower = s.trim().to_ascii_lowercase();
        let mut rest = lower.as_str();
        let mut nulls = None;
        for (suffix, first) in [(" nulls first", true), (" nulls last", false)] {
            if let Some(r) = rest.strip_suffix(suffix) {
                (rest, nulls) = (r.trim_end(), Some(first));
            }
        }
        let mut desc = false;
        for (suffix, d) in [(" desc", true), (" asc", false)] {
            if let Some(r) = rest.strip_suffix(suffix) {
                (rest, desc) = (r.trim_end(), d);
            }
        }
        Some(KeyColumn {
            ty: KeyType::parse(rest)?,
            desc,
            nulls_first: nulls.unwrap_or(desc),
        })
    }
}

use crate::am::nbtree::layout::{
    BTP_HALF_DEAD, BTP_HAS_FULLXID, BTP_LEAF, BT_IS_POSTING, BT_OFFSET_MASK,
    BT_PIVOT_HEAP_TID_ATTR, INDEX_ALT_TID_MASK,
};
use crate::page::fields::BTP_DELETED;
/// itup.h: MaxIndexTuplesPerPage for a page of `len` bytes.
fn max_index_tuples(len: usize) -> usize {
    len.saturating_sub(crate::page::bufpage::SIZE_OF_PAGE_HEADER_DATA)
        / (16 + crate::page::bufpage::SIZE_OF_ITEM_ID)
}

/// palloc_btree_page's checks of a page that is not the metapage, in its order (it stops at
/// the first); the finding marks btpo_flags or btpo_level, or pd_lower for the item count.
pub(super) fn check_shape(
    flags: u16,
    level: u32,
    rightmost: bool,
    maxoff: usize,
    len: usize,
    spans: &mut Spans,
) {
    let leaf = flags & BTP_LEAF != 0;
    let deleted = flags & BTP_DELETED != 0;
    let half_dead = flags & BTP_HALF_DEAD != 0;
    let (field, finding) = if leaf && !deleted && level != 0 {
        (
            &bt_page_opaque_data::BTPO_LEVEL,
            Finding::BtreeLeafLevelInvalid,
        )
    } else if !leaf && !deleted && level == 0 {
        (
            &bt_page_opaque_data::BTPO_LEVEL,
            Finding::BtreeInternalLevelZero,
        )
    } else if maxoff > max_index_tuples(len) {
        (
            &crate::page::fields::page_header_data::PD_LOWER,
            Finding::BtreeTooManyItems,
        )
    } else if !deleted && leaf && !rightmost && maxoff < usize::from(P_HIKEY) {
        (
            &bt_page_opaque_data::BTPO_FLAGS,
            Finding::BtreeLeafLacksHighKey,
        )
    } else if !deleted
        && !leaf
        && maxoff < usize::from(P_HIKEY).saturating_add(usize::from(!rightmost))
    {
        (
            &bt_page_opaque_data::BTPO_FLAGS,
            Finding::BtreeInternalLacksDownlink,
        )
    } else if !leaf && half_dead {
        (
            &bt_page_opaque_data::BTPO_FLAGS,
            Finding::BtreeInternalHalfDead,
        )
    } else if !deleted && flags & BTP_HAS_FULLXID != 0 {
        (
            &bt_page_opaque_data::BTPO_FLAGS,
            Finding::BtreeFullXidNotDeleted,
        )
    } else if deleted && half_dead {
        (
            &bt_page_opaque_data::BTPO_FLAGS,
            Finding::BtreeDeletedHalfDead,
        )
    } else {
        return;
    };
    // The numbers palloc_btree_page prints besides the block: the level, or the limit.
    let values = match finding {
        Finding::BtreeLeafLevelInvalid => alloc::vec![level],
        Finding::BtreeTooManyItems => {
            alloc::vec![u32::try_from(max_index_tuples(len)).unwrap_or(u32::MAX)]
        }
        _ => alloc::vec::Vec::new(),
    };
    spans.flag_valued(field, finding, &values);
}

/// One item as the order checks read it.
struct Item {
    lp: u16,
    /// Where the key attributes start and the bytes they may use.
    data_at: usize,
    data_end: usize,
    /// Key attributes present (pivot tuples may have fewer: the rest are minus infinity).
    natts: usize,
    nulls: Option<usize>,
    /// The heap TID (the first of a posting list), None when truncated away.
    heap_tid: Option<Tid>,
    /// A posting list's TID count (its TIDs start at `data_end`).
    posting: Option<usize>,
    max_tid: Option<Tid>,
}

fn read_item(r: &Reader, id: &ItemId, nkeys: usize) -> Option<Item> {
    let off = usize::from(id.off);
    let t = IndexTuple::read(r, off)?;
    let size = t.size();
    let end = off.checked_add(size)?;
    if end > r.len() || size < t.data_offset() {
        return None;
    }
    let alt = t.info & INDEX_ALT_TID_MASK != 0;
    let posting = alt && t.tid.offset & BT_IS_POSTING != 0;
    let pivot = alt && !posting;
    let mut item = Item {
        lp: id.lp,
        data_at: off.saturating_add(t.data_offset()),
        data_end: end,
        natts: nkeys,
        nulls: t.has_nulls().then(|| off.saturating_add(8)),
        heap_tid: Some(t.tid),
        posting: None,
        max_tid: Some(t.tid),
    };
    if pivot {
        item.natts = usize::from(t.tid.offset & BT_OFFSET_MASK).min(nkeys);
        item.heap_tid = if t.tid.offset & BT_PIVOT_HEAP_TID_ATTR != 0 {
            item.data_end = end.checked_sub(6)?;
            r.tid(item.data_end)
        } else {
            None
        };
        item.max_tid = item.heap_tid;
    } else if posting {
        let at = off.checked_add(t.tid.block as usize)?;
        let n = usize::from(t.tid.offset & BT_OFFSET_MASK);
        item.data_end = at;
        item.posting = Some(n);
        item.heap_tid = r.tid(at);
        item.max_tid = r.tid(at.checked_add(n.checked_sub(1)?.checked_mul(6)?)?);
    }
    Some(item)
}

/// One key attribute's value.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Datum<'a> {
    Int(i64),
    Bytes(&'a [u8]),
    Null,
}

/// The key attributes of `item` (up to its natts); None when one cannot be read as its type
/// (a compressed or garbage varlena, a big-endian page's text).
fn datums<'a>(r: &Reader<'a>, item: &Item, keys: &[KeyColumn]) -> Option<Vec<Datum<'a>>> {
    let mut out = Vec::with_capacity(item.natts);
    let mut at = item.data_at;
    for (i, k) in keys.iter().map(|c| c.ty).enumerate().take(item.natts) {
        if let Some(bits) = item.nulls {
            let byte = r.u8(bits.checked_add(i / 8)?)?;
            if byte & (1 << (i % 8)) == 0 {
                out.push(Datum::Null);
                continue;
            }
        }
        let d = match k {
            KeyType::Int2
            | KeyType::Int4
            | KeyType::Int8
            | KeyType::Oid
            | KeyType::Date
            | KeyType::Timestamp => {
                at = align_to(at, item.data_at, k.align())?;
                let (v, n) = match k {
                    KeyType::Int2 => (i64::from(r.u16(at)? as i16), 2),
                    KeyType::Int4 | KeyType::Date => (i64::from(r.i32(at)?), 4),
                    KeyType::Oid => (i64::from(r.u32(at)?), 4),
                    _ => (r.i64(at)?, 8),
                };
                at = at.checked_add(n)?;
                Datum::Int(v)
            }
            KeyType::Text => {
                if r.e == Endian::Big {
                    return None;
                }
                let first = r.u8(at)?;
                let (start, len) = if first & 0x01 == 0x01 {
                    // varatt.h: a short (1-byte header) varlena; 0x01 alone is external.
                    if first == 0x01 {
                        return None;
                    }
                    (at.checked_add(1)?, usize::from(first >> 1).checked_sub(1)?)
                } else {
                    at = align_to(at, item.data_at, 4)?;
                    let h = r.u32(at)?;
                    if h & 0x03 != 0 {
                        // Compressed inline: its bytes do not compare.
                        return None;
                    }
                    (at.checked_add(4)?, ((h >> 2) as usize).checked_sub(4)?)
                };
                let end = start.checked_add(len)?;
                if end > item.data_end {
                    return None;
                }
                at = end;
                Datum::Bytes(r.b.get(start..end)?)
            }
        };
        if at > item.data_end {
            return None;
        }
        out.push(d);
    }
    Some(out)
}

/// att_align_nominal relative to the tuple's data start (which is MAXALIGNed in the page).
fn align_to(at: usize, base: usize, align: usize) -> Option<usize> {
    let rel = at.checked_sub(base)?;
    let mask = align.checked_sub(1)?;
    base.checked_add(rel.checked_add(mask)? & !mask)
}

fn tid_key(t: Option<Tid>) -> Option<(u32, u16)> {
    t.map(|t| (t.block, t.offset))
}

/// _bt_compare's order of one attribute: NULL against a value by NULLS FIRST or LAST, two
/// values by the opclass, inverted under DESC (NULLs are not inverted).
fn compare_datum(x: &Datum, y: &Datum, column: Option<&KeyColumn>) -> Ordering {
    let (desc, nulls_first) = column.map_or((false, false), |c| (c.desc, c.nulls_first));
    match (x, y) {
        (Datum::Null, Datum::Null) => Ordering::Equal,
        (Datum::Null, _) if nulls_first => Ordering::Less,
        (Datum::Null, _) => Ordering::Greater,
        (_, Datum::Null) if nulls_first => Ordering::Greater,
        (_, Datum::Null) => Ordering::Less,
        _ if desc => y.cmp(x),
        _ => x.cmp(y),
    }
}

/// _bt_compare's order of two items: the key attributes (missing ones minus infinity), then
/// the heap TID (missing: minus infinity). `a_tid` is the TID `a` compares with.
fn compare(
    keys: &[KeyColumn],
    a: &[Datum],
    a_tid: Option<Tid>,
    b: &[Datum],
    b_tid: Option<Tid>,
) -> Ordering {
    for i in 0..a.len().max(b.len()) {
        match (a.get(i), b.get(i)) {
            (Some(x), Some(y)) => match compare_datum(x, y, keys.get(i)) {
                Ordering::Equal => {}
                o => return o,
            },
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (None, None) => break,
        }
    }
    tid_key(a_tid).cmp(&tid_key(b_tid))
}

/// Posting list order and, with the key types, bt_target_page_check's item order and high
/// key invariants for a leaf or internal page's items `lps`.
pub(super) fn check_items(
    r: &Reader,
    lps: &[ItemId],
    leaf: bool,
    rightmost: bool,
    keys: Option<&[KeyColumn]>,
    spans: &mut Spans,
) {
    let first_data: u16 = if rightmost { 1 } else { 2 };
    let nkeys = keys.map_or(0, <[KeyColumn]>::len);
    let items: Vec<Option<Item>> = lps
        .iter()
        .map(|id| {
            (id.flags != LP_UNUSED)
                .then(|| read_item(r, id, nkeys))
                .flatten()
        })
        .collect();
    for item in items.iter().flatten() {
        posting_order(r, item, spans);
    }
    let data: Vec<&Item> = items
        .iter()
        .flatten()
        .filter(|i| i.lp >= first_data)
        .collect();
    let Some(keys) = keys else {
        if data.len() > 1 || (!rightmost && !data.is_empty()) {
            spans.note(Finding::BtreeOrderNotChecked);
        }
        return;
    };
    let high = if rightmost {
        None
    } else {
        items.first().and_then(Option::as_ref)
    };
    let high_key = high.and_then(|h| datums(r, h, keys).map(|d| (d, h.heap_tid)));
    let mut unchecked = !rightmost && high_key.is_none();
    // Internal pages' first data item is minus infinity: no key to compare.
    let skip_first = !leaf;
    let mut prev: Option<(Vec<Datum>, Option<Tid>, u16)> = None;
    for (n, item) in data.iter().enumerate() {
        if skip_first && n == 0 {
            continue;
        }
        let Some(d) = datums(r, item, keys) else {
            unchecked = true;
            prev = None;
            continue;
        };
        if let Some((hk, hk_tid)) = &high_key {
            // A posting list's last TID is what must stay under the high key.
            let o = compare(keys, &d, item.max_tid, hk, *hk_tid);
            if o == Ordering::Greater || (!leaf && o == Ordering::Equal) {
                spans.flag_item(&index_tuple_data::T_TID, item.lp, Finding::BtreeHighKey);
            }
        }
        if let Some((pd, ptid, plp)) = &prev {
            if compare(keys, pd, *ptid, &d, item.heap_tid) != Ordering::Less {
                spans.flag_item(&index_tuple_data::T_TID, *plp, Finding::BtreeItemOrder);
            }
        }
        prev = Some((d, item.heap_tid, item.lp));
    }
    if unchecked {
        spans.note(Finding::BtreeOrderNotChecked);
    }
}

/// bt_child_check's down-link lower bound (invariant_l_nontarget_offset): whether the scan
/// key bt_mkscankey builds from the parent's pivot `parent` is strictly below the child's
/// data item `child` (each a whole index tuple). None when either's keys cannot be read as
/// `keys`.
pub(crate) fn lower_bound_holds(
    keys: &[KeyColumn],
    heapkeyspace: bool,
    e: Endian,
    parent: &[u8],
    child: &[u8],
) -> Option<bool> {
    let tuple = |b| {
        let r = Reader { b, e };
        let id = ItemId {
            lp: 0,
            off: 0,
            flags: crate::page::fields::LP_NORMAL,
            len: u16::try_from(b.len()).ok()?,
        };
        let item = read_item(&r, &id, keys.len())?;
        let d = datums(&r, &item, keys)?;
        Some((item, d))
    };
    let (p, pd) = tuple(parent)?;
    let (c, cd) = tuple(child)?;
    // bt_mkscankey: keysz is the pivot's untruncated key count; its heap TID is the scan
    // TID of a heapkeyspace index only.
    let keysz = p.natts;
    let scantid = if heapkeyspace { p.heap_tid } else { None };
    let cmp = bt_compare(keys, &pd, scantid, &c, &cd);
    if !heapkeyspace {
        return Some(cmp != Ordering::Greater);
    }
    if cmp == Ordering::Equal {
        // BTreeTupleGetHeapTIDCareful: a leaf item's (first) heap TID; a pivot's may be
        // truncated away.
        return Some(if keysz == c.natts {
            scantid.is_none() && c.heap_tid.is_some()
        } else {
            keysz < c.natts
        });
    }
    Some(cmp == Ordering::Less)
}

/// _bt_compare of a scan key (the datums of a pivot, its heap TID as scantid) against an
/// item, as amcheck's pivot-search scan keys compare: a scan key with no heap TID is equal
/// to an item whose keys it matches.
fn bt_compare(
    keys: &[KeyColumn],
    key: &[Datum],
    scantid: Option<Tid>,
    item: &Item,
    datums: &[Datum],
) -> Ordering {
    for (i, (x, y)) in key.iter().zip(datums).enumerate() {
        match compare_datum(x, y, keys.get(i)) {
            Ordering::Equal => {}
            o => return o,
        }
    }
    if key.len() > item.natts {
        return Ordering::Greater;
    }
    let Some(scantid) = scantid else {
        return Ordering::Equal;
    };
    let Some(first) = item.heap_tid else {
        return Ordering::Greater;
    };
    let s = (scantid.block, scantid.offset);
    match s.cmp(&(first.block, first.offset)) {
        Ordering::Greater if item.posting.is_some() => {
            if tid_key(Some(scantid)) > tid_key(item.max_tid) {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        }
        o => o,
    }
}

/// bt_target_page_check: a posting list's TIDs strictly ascend.
fn posting_order(r: &Reader, item: &Item, spans: &mut Spans) {
    let (Some(first), Some(n)) = (item.heap_tid, item.posting) else {
        return;
    };
    let mut last = (first.block, first.offset);
    for i in 1..n {
        let Some(cur) = r.tid(item.data_end.saturating_add(i.saturating_mul(6))) else {
            return;
        };
        let cur = (cur.block, cur.offset);
        if cur <= last {
            spans.flag_item(
                &btree_tuple::TIDS,
                item.lp,
                Finding::BtreePostingMisplacedTid,
            );
            return;
        }
        last = cur;
    }
}
