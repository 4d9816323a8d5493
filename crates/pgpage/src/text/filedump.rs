//! The text `pg_filedump -f -i -R N FILE` prints for one block: the format people paste into
//! pgsql-hackers threads. Written from the page layouts (bufpage.h, htup_details.h, itup.h,
//! nbtree.h, hash.h, gist.h, ginblock.h, spgist_private.h) to read as pg_filedump 14.1 does,
//! including where it guesses (the special section's kind from its size and last two bytes).

use alloc::string::String;
use core::fmt::{Arguments, Write};

use crate::am::gist::layout::GIST_PAGE_ID;
use crate::am::hash::layout::HASHO_PAGE_ID;
use crate::am::nbtree::layout::MAX_BT_CYCLE_ID;
use crate::am::seq::layout::SEQ_MAGIC;
use crate::am::spgist::layout::SPGIST_PAGE_ID;
use crate::damage::redact::Redaction;
use crate::page::fields::{
    self, bt_meta_page_data as btm, bt_page_opaque_data as btpo, gin_page_opaque_data as gin,
    gist_page_opaque_data as gist, hash_page_opaque_data as hasho, heap_tuple_header_data as htup,
    index_tuple_data as itup, item_id_data as lp, item_pointer_data as ip, page_header_data as pd,
    page_xlog_rec_ptr as lsn, spgist_inner_tuple_data as spgi, spgist_leaf_tuple_data as spgl,
    spgist_page_opaque_data as spgo, Field, FlagName, Table,
};
use crate::page::geometry::{maxalign, Endian};
use crate::page::reader::Reader;

/// What pg_filedump takes the special section for (its GetSpecialSectionType).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Special {
    None,
    Sequence,
    Btree,
    Hash,
    Gist,
    Gin,
    Spgist,
    Unknown,
    /// pd_special is 0 or past the page.
    Boundary,
}

/// How the items are shown: heap tuples, index tuples or SP-GiST inner or leaf tuples.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ItemKind {
    Heap,
    Index,
    SpgInner,
    SpgLeaf,
}

/// A structure's size in bytes (without a flexible array tail).
fn size(t: &Table) -> usize {
    usize::from(t.size)
}

/// Where a row starts in the structure at `base`.
fn at(base: usize, f: &Field) -> usize {
    base.saturating_add(usize::from(f.offset))
}

/// Reads past the page give 0: pg_filedump reads whatever memory follows, which no page's
/// own bytes decide; its bounds checks, which decide what is printed, are kept as they are.
/// The bytes a redaction masks print as `xx` in the dumps of bytes.
struct Page<'a>(Reader<'a>, Option<&'a Redaction>);

impl Page<'_> {
    fn masks(&self, off: usize) -> bool {
        self.1.is_some_and(|r| r.masks(off))
    }
    fn u8(&self, off: usize) -> u8 {
        self.0.u8(off).unwrap_or(0)
    }
    fn len(&self) -> usize {
        self.0.len()
    }
    /// Row `f` of the structure at `base`, bit fields extracted as the page's byte order
    /// allocates them.
    fn get(&self, base: usize, f: &Field) -> u32 {
        self.0.get(base, f)
    }
    /// A row of two bytes or fewer.
    fn half(&self, base: usize, f: &Field) -> u16 {
        u16::try_from(self.get(base, f)).unwrap_or(u16::MAX)
    }
    /// The ItemPointerData in row `f` of the structure at `base`: its block and offset.
    fn tid(&self, base: usize, f: &Field) -> (u32, u16) {
        let tid = at(base, f);
        let block = (self.get(tid, &ip::BI_HI) << 16) | self.get(tid, &ip::BI_LO);
        (block, self.half(tid, &ip::IP_POSID))
    }
    /// The PageXLogRecPtr in row `f` of the structure at `base`: xlogid and xrecoff.
    fn lsn(&self, base: usize, f: &Field) -> (u32, u32) {
        let ptr = at(base, f);
        (self.get(ptr, &lsn::XLOGID), self.get(ptr, &lsn::XRECOFF))
    }
    /// `ItemIdData` number `x` (from 1): lp_off, lp_flags, lp_len.
    fn item_id(&self, x: usize) -> (u32, u32, u32) {
        let base = x
            .saturating_sub(1)
            .saturating_mul(size(&fields::ITEM_ID_DATA))
            .saturating_add(size(&fields::PAGE_HEADER_DATA));
        (
            self.get(base, &lp::LP_OFF),
            self.get(base, &lp::LP_FLAGS),
            self.get(base, &lp::LP_LEN),
        )
    }
}

struct Out(String);

impl Out {
    fn put(&mut self, args: Arguments<'_>) {
        // Writing to a String cannot fail.
        let _ = self.0.write_fmt(args);
    }
}

/// `names` `|`-joined.
fn joined<'n>(names: impl Iterator<Item = &'n str>) -> String {
    let mut s = String::new();
    for name in names {
        if !s.is_empty() {
            s.push('|');
        }
        s.push_str(name);
    }
    s
}

/// pg_filedump's names of the bits of `value` set in its table `names`, in table order.
fn words<'n>(value: u32, names: &'n [(u32, &'n str)]) -> impl Iterator<Item = &'n str> {
    names
        .iter()
        .filter(move |&&(bit, _)| value & bit != 0)
        .map(|&(_, name)| name)
}

/// PostgreSQL's names of the flags set in `value`, without `prefix`, which pg_filedump drops.
fn unprefixed(value: u32, names: &'static [FlagName], prefix: &str) -> String {
    joined(fields::flag_names(value, names).map(|n| n.strip_prefix(prefix).unwrap_or(n)))
}

/// The name of enum value `value`, without `prefix`.
fn enum_name(value: u32, names: &'static [FlagName], prefix: &str) -> &'static str {
    names
        .iter()
        .find(|n| n.mask == value)
        .map_or("", |n| n.name.strip_prefix(prefix).unwrap_or(n.name))
}

/// pg_filedump's FormatBinary: 16 bytes a row in four words, then the printable ASCII.
fn binary(o: &mut Out, p: &Page, len: usize, start: usize) {
    if len == 0 {
        return;
    }
    let last = start.saturating_add(len);
    let mut row = start;
    while row < last {
        o.put(format_args!("  {row:04x}: "));
        let stop = row.saturating_add(16);
        for x in row..stop {
            if x < last && p.masks(x) {
                o.0.push_str("xx");
            } else if x < last {
                o.put(format_args!("{:02x}", p.u8(x)));
            } else {
                o.0.push_str("  ");
            }
            if x & 3 == 3 {
                o.0.push(' ');
            }
        }
        o.0.push(' ');
        for x in row..stop {
            o.0.push(if x < last && p.masks(x) {
                '·'
            } else if x < last {
                let c = p.u8(x);
                if (0x20..0x7f).contains(&c) {
                    char::from(c)
                } else {
                    '.'
                }
            } else {
                ' '
            });
        }
        o.0.push('\n');
        row = stop;
    }
    o.0.push('\n');
}

fn special_type(p: &Page, special: usize) -> Special {
    let len = p.len();
    if len <= size(&fields::PAGE_HEADER_DATA) {
        return Special::Unknown;
    }
    if special == 0 || special > len {
        return Special::Boundary;
    }
    // The page's last two bytes: btpo_cycleid, or the page id of a hash, GiST or SP-GiST page.
    let ptype = p.get(
        len.saturating_sub(size(&fields::BT_PAGE_OPAQUE_DATA)),
        &btpo::BTPO_CYCLEID,
    );
    let special_size = len.saturating_sub(special);
    let sized_as = |t: &Table| special_size == maxalign(size(t));
    if special_size == 0 {
        Special::None
    } else if sized_as(&fields::SEQUENCE_MAGIC)
        && p.get(special, &fields::sequence_magic::MAGIC) == SEQ_MAGIC
    {
        Special::Sequence
    } else if sized_as(&fields::SPGIST_PAGE_OPAQUE_DATA) && ptype == u32::from(SPGIST_PAGE_ID) {
        Special::Spgist
    } else if sized_as(&fields::GIN_PAGE_OPAQUE_DATA) {
        Special::Gin
    } else if sized_as(&fields::BT_PAGE_OPAQUE_DATA) && ptype <= MAX_BT_CYCLE_ID {
        Special::Btree
    } else if sized_as(&fields::HASH_PAGE_OPAQUE_DATA) && ptype == u32::from(HASHO_PAGE_ID) {
        Special::Hash
    } else if sized_as(&fields::GIST_PAGE_OPAQUE_DATA) && ptype == u32::from(GIST_PAGE_ID) {
        Special::Gist
    } else {
        Special::Unknown
    }
}

/// nbtree.h: a btree metapage, told by its special size (from pd_pagesize_version, as
/// PageGetSpecialSize does), cycle id and BTP_META.
fn is_btree_meta(p: &Page, page_size: u16, special: u16) -> bool {
    if usize::from(page_size.wrapping_sub(special)) != maxalign(size(&fields::BT_PAGE_OPAQUE_DATA))
    {
        return false;
    }
    let s = usize::from(special);
    p.get(s, &btpo::BTPO_CYCLEID) <= MAX_BT_CYCLE_ID
        && p.get(s, &btpo::BTPO_FLAGS) & u32::from(fields::BTP_META) != 0
}

/// The `-f -i` text of one block, from pg_filedump's "Block N ****" line through the blank
/// lines after the special section: what it prints for that block of a file. `page` is the
/// whole block (its length is the block size); `block` is its number within the file.
pub fn filedump_block(page: &[u8], block: u32, endian: Endian) -> String {
    block_text(page, block, endian, None)
}

/// [`filedump_block`] with the bytes `redaction` masks printed as `xx` (and `·` in the text
/// column), for sharing a page without its row data.
pub fn filedump_block_redacted(
    page: &[u8],
    block: u32,
    endian: Endian,
    redaction: &Redaction,
) -> String {
    block_text(page, block, endian, Some(redaction))
}

fn block_text(page: &[u8], block: u32, endian: Endian, redaction: Option<&Redaction>) -> String {
    let p = Page(Reader { b: page, e: endian }, redaction);
    let mut o = Out(String::new());
    let len = p.len();
    let header = size(&fields::PAGE_HEADER_DATA);
    let item_id = size(&fields::ITEM_ID_DATA);
    o.put(format_args!(
        "\nBlock {block:4} ********************************************************\n<Header> -----\n"
    ));
    if len < header {
        o.put(format_args!(
            " Error: End of block encountered within the header. Bytes read: {len:4}.\n\n"
        ));
        binary(&mut o, &p, len, 0);
        return o.0;
    }
    let lower = p.half(0, &pd::PD_LOWER);
    let upper = p.half(0, &pd::PD_UPPER);
    let special = p.half(0, &pd::PD_SPECIAL);
    let pagesize_version = p.half(0, &pd::PD_PAGESIZE_VERSION);
    let page_size = pagesize_version & fields::PAGE_SIZE_MASK;
    let version = pagesize_version & fields::PAGE_LAYOUT_VERSION_MASK;
    let max_offset = usize::from(lower)
        .saturating_sub(header)
        .checked_div(item_id)
        .unwrap_or(0);
    let mut header_bytes = header;
    let mut eof = false;
    if max_offset > 0 {
        let with_items = max_offset.saturating_mul(item_id).saturating_add(header);
        if len < with_items {
            header_bytes = len;
            eof = true;
        } else {
            header_bytes = with_items;
        }
    }
    let flags = p.get(0, &pd::PD_FLAGS);
    let flag_string = unprefixed(flags, fields::PD_FLAGS, "PD_");
    let offset = u32::try_from(len).unwrap_or(u32::MAX).wrapping_mul(block);
    // pd_upper - pd_lower is computed in int and printed unsigned, so it wraps when negative.
    let free = i32::from(upper)
        .wrapping_sub(i32::from(lower))
        .cast_unsigned();
    let (logid, recoff) = p.lsn(0, &pd::PD_LSN);
    o.put(format_args!(
        " Block Offset: 0x{offset:08x}         Offsets: Lower    {lower:4} (0x{lower:04x})\n"
    ));
    o.put(format_args!(
        " Block: Size {page_size:4}  Version {version:4}            Upper    {upper:4} (0x{upper:04x})\n"
    ));
    o.put(format_args!(
        " LSN:  logid {:6} recoff 0x{recoff:08x}      Special  {special:4} (0x{special:04x})\n",
        logid.cast_signed()
    ));
    o.put(format_args!(
        " Items: {max_offset:4}                      Free Space: {free:4}\n"
    ));
    o.put(format_args!(
        " Checksum: 0x{:04x}  Prune XID: 0x{:08x}  Flags: 0x{flags:04x} ({flag_string})\n",
        p.get(0, &pd::PD_CHECKSUM),
        p.get(0, &pd::PD_PRUNE_XID)
    ));
    o.put(format_args!(
        " Length (including item array): {header_bytes}\n\n"
    ));
    let meta = is_btree_meta(&p, page_size, special);
    if meta {
        // PageGetContents: the metapage follows the MAXALIGNed page header.
        let m = maxalign(header);
        o.put(format_args!(
            " BTree Meta Data:  Magic (0x{:08x})   Version ({})\n",
            p.get(m, &btm::BTM_MAGIC),
            p.get(m, &btm::BTM_VERSION)
        ));
        o.put(format_args!(
            "                   Root:     Block ({})  Level ({})\n",
            p.get(m, &btm::BTM_ROOT),
            p.get(m, &btm::BTM_LEVEL)
        ));
        o.put(format_args!(
            "                   FastRoot: Block ({})  Level ({})\n\n",
            p.get(m, &btm::BTM_FASTROOT),
            p.get(m, &btm::BTM_FASTLEVEL)
        ));
        // sizeof(BTMetaPageData), padded to its double's alignment.
        header_bytes = header_bytes.saturating_add(maxalign(size(&fields::BT_META_PAGE_DATA)));
    }
    let (lower, upper, special_u) = (usize::from(lower), usize::from(upper), usize::from(special));
    if max_offset > len
        || version != fields::PG_PAGE_LAYOUT_VERSION
        || upper > len
        || upper > special_u
        || lower < header.saturating_sub(item_id)
        || lower > len
        || upper < lower
        || special_u > len
    {
        o.0.push_str(" Error: Invalid header information.\n\n");
    }
    if eof {
        o.put(format_args!(
            " Error: End of block encountered within the header. Bytes read: {len:4}.\n\n"
        ));
    }
    binary(&mut o, &p, header_bytes, 0);
    if eof {
        return o.0;
    }
    let kind = special_type(&p, special_u);
    if !meta {
        items(&mut o, &p, max_offset, kind, special_u);
    }
    if kind != Special::None {
        special_section(&mut o, &p, kind, special_u);
    }
    o.0
}

/// pg_filedump's FormatItemBlock: each line pointer, its item decoded and in hex.
fn items(o: &mut Out, p: &Page, max_offset: usize, special: Special, special_at: usize) {
    o.0.push_str("<Data> -----\n");
    if max_offset == 0 {
        o.0.push_str(" Empty block - no items listed \n\n");
        return;
    }
    if max_offset > p.len() {
        o.put(format_args!(
            " Error: Item index corrupt on block. Offset: <{max_offset}>.\n\n"
        ));
        return;
    }
    let kind = match special {
        Special::Btree | Special::Hash | Special::Gist | Special::Gin => ItemKind::Index,
        Special::Spgist
            if p.get(special_at, &spgo::FLAGS) & u32::from(fields::SPGIST_LEAF) != 0 =>
        {
            ItemKind::SpgLeaf
        }
        Special::Spgist => ItemKind::SpgInner,
        _ => ItemKind::Heap,
    };
    for x in 1..=max_offset {
        let (off, flags, len) = p.item_id(x);
        let flag_text = enum_name(flags, fields::LP_FLAGS, "LP_");
        o.put(format_args!(
            " Item {x:3} -- Length: {len:4}  Offset: {off:4} (0x{off:04x})  Flags: {flag_text}\n"
        ));
        // lp_off and lp_len are 15 bits each: no sum of them overflows.
        let (off, len) = (
            usize::try_from(off).unwrap_or(usize::MAX),
            usize::try_from(len).unwrap_or(usize::MAX),
        );
        let end = off.saturating_add(len);
        if end > p.len() {
            o.put(format_args!(
                "  Error: Item contents extend beyond block.\n         BlockSize<{}> Bytes Read<{}> Item Start<{end}>.\n",
                p.len(),
                p.len()
            ));
            continue;
        }
        item(o, p, len, off, kind);
        binary(o, p, len, off);
        if x == max_offset {
            o.0.push('\n');
        }
    }
}

/// pg_filedump's FormatItem: the item's header as a heap, index or SP-GiST tuple.
fn item(o: &mut Out, p: &Page, len: usize, at: usize, kind: ItemKind) {
    match kind {
        ItemKind::Index => {
            if len < size(&fields::ITEM_POINTER_DATA) {
                if len > 0 {
                    o.0.push_str("  Error: This item does not look like an index item.\n");
                }
                return;
            }
            let (blk, pos) = p.tid(at, &itup::T_TID);
            let info = p.half(at, &itup::T_INFO);
            let tuple_size = info & fields::INDEX_SIZE_MASK;
            o.put(format_args!(
                "  Block Id: {blk}  linp Index: {pos}  Size: {tuple_size}\n  Has Nulls: {}  Has Varwidths: {}\n\n",
                u8::from(u32::from(info) & fields::INDEX_NULL_MASK != 0),
                u8::from(u32::from(info) & fields::INDEX_VAR_MASK != 0)
            ));
            if len != usize::from(tuple_size) {
                o.put(format_args!(
                    "  Error: Item size difference. Given <{len}>, Internal <{tuple_size}>.\n"
                ));
            }
        }
        ItemKind::SpgInner => {
            // SGITHDRSZ: the MAXALIGNed header, where the prefix starts.
            let head = maxalign(size(&fields::SPGIST_INNER_TUPLE_DATA));
            let Some(state) = spgist_state(o, p, len, at, head) else {
                return;
            };
            let all_the_same = p.get(at, &spgi::ALL_THE_SAME);
            let n_nodes = p.get(at, &spgi::N_NODES);
            let prefix = usize::from(p.half(at, &spgi::PREFIX_SIZE));
            let tuple_size = p.half(at, &spgi::SIZE);
            o.put(format_args!(
                "  State: {state}  allTheSame: {all_the_same} nNodes: {n_nodes} prefixSize: {prefix}\n\n"
            ));
            if len != usize::from(tuple_size) {
                o.put(format_args!(
                    "  Error: Item size difference. Given <{len}>, Internal <{tuple_size}>.\n"
                ));
            } else if prefix == maxalign(prefix) {
                let head = prefix.saturating_add(head);
                if head <= len {
                    binary(o, p, head, at);
                }
                spgist_nodes(o, p, len, at, head, n_nodes);
            }
            o.0.push('\n');
        }
        ItemKind::SpgLeaf => {
            // SGLTHDRSZ is the MAXALIGNed header, with or without the null bitmap byte.
            let head = maxalign(size(&fields::SPGIST_LEAF_TUPLE_DATA));
            let Some(state) = spgist_state(o, p, len, at, head) else {
                return;
            };
            let tuple_size = p.get(at, &spgl::SIZE);
            let next = p.half(at, &spgl::T_INFO) & fields::SGLT_NEXTOFFSET_MASK;
            let (blk, pos) = p.tid(at, &spgl::HEAP_PTR);
            o.put(format_args!(
                "  State: {state}  nextOffset: {next}  Block Id: {blk}  linp Index: {pos}\n\n"
            ));
            if u64::try_from(len).ok() != Some(u64::from(tuple_size)) {
                o.put(format_args!(
                    "  Error: Item size difference. Given <{len}>, Internal <{tuple_size}>.\n"
                ));
            }
        }
        ItemKind::Heap => heap_item(o, p, len, at),
    }
}

/// An SP-GiST tuple's tupstate as pg_filedump names it, or `None` (with pg_filedump's error
/// for a non-empty item) when the item is shorter than the tuple's header `head`. Inner and
/// leaf tuples keep tupstate in the same two bits.
fn spgist_state(o: &mut Out, p: &Page, len: usize, at: usize, head: usize) -> Option<&'static str> {
    if len < head {
        if len > 0 {
            o.0.push_str("  Error: This item does not look like an SPGiST item.\n");
        }
        return None;
    }
    let state = p.get(at, &spgl::TUPSTATE);
    Some(enum_name(state, fields::SPGIST_TUPSTATE, "SPGIST_"))
}

/// An inner tuple's nodes (SpGistNodeTupleData, which is an IndexTupleData) from `node` on,
/// while they fit in the item and stay MAXALIGNed.
fn spgist_nodes(o: &mut Out, p: &Page, len: usize, at: usize, mut node: usize, n_nodes: u32) {
    for i in 0..n_nodes {
        if node.saturating_add(size(&fields::INDEX_TUPLE_DATA)) > len {
            break;
        }
        let base = at.saturating_add(node);
        let (blk, pos) = p.tid(base, &itup::T_TID);
        let info = p.half(base, &itup::T_INFO);
        let node_size = usize::from(info & fields::INDEX_SIZE_MASK);
        o.put(format_args!(
            "  Node {i:2}:  Downlink: {blk}/{pos}  Size: {node_size}  Null: {}\n",
            u8::from(u32::from(info) & fields::INDEX_NULL_MASK != 0)
        ));
        if node.saturating_add(node_size) <= len {
            binary(o, p, node_size, base);
        }
        if node_size != maxalign(node_size) {
            break;
        }
        node = node.saturating_add(node_size);
    }
}

/// htup_details.h: t_infomask and t_infomask2 bits in pg_filedump's order and words.
const INFOMASK: [(u32, &str); 15] = [
    (0x0001, "HASNULL"),
    (0x0002, "HASVARWIDTH"),
    (0x0004, "HASEXTERNAL"),
    (0x0010, "XMAX_KEYSHR_LOCK"),
    (0x0020, "COMBOCID"),
    (0x0040, "XMAX_EXCL_LOCK"),
    (0x0080, "XMAX_LOCK_ONLY"),
    (0x0100, "XMIN_COMMITTED"),
    (0x0200, "XMIN_INVALID"),
    (0x0400, "XMAX_COMMITTED"),
    (0x0800, "XMAX_INVALID"),
    (0x1000, "XMAX_IS_MULTI"),
    (0x2000, "UPDATED"),
    (0x4000, "MOVED_OFF"),
    (0x8000, "MOVED_IN"),
];
const INFOMASK2: [(u32, &str); 3] = [
    (0x2000, "KEYS_UPDATED"),
    (0x4000, "HOT_UPDATED"),
    (0x8000, "HEAP_ONLY"),
];

fn heap_item(o: &mut Out, p: &Page, len: usize, at: usize) {
    let t_bits = usize::from(htup::T_BITS.offset);
    // sizeof(HeapTupleHeaderData): its 23 fixed bytes padded to 24.
    if len < maxalign(size(&fields::HEAP_TUPLE_HEADER_DATA)) {
        if len > 0 {
            o.0.push_str("  Error: This item does not look like a heap item.\n");
        }
        return;
    }
    let infomask = p.get(at, &htup::T_INFOMASK);
    let infomask2 = p.get(at, &htup::T_INFOMASK2);
    // HeapTupleHeaderGetXmin: a frozen tuple (XMIN_COMMITTED and XMIN_INVALID) shows
    // FrozenTransactionId, whatever its raw t_xmin.
    let xmin =
        if infomask & u32::from(fields::HEAP_XMIN_FROZEN) == u32::from(fields::HEAP_XMIN_FROZEN) {
            2
        } else {
            p.get(at, &htup::T_XMIN)
        };
    o.put(format_args!(
        "  XMIN: {xmin}  XMAX: {}  CID|XVAC: {}",
        p.get(at, &htup::T_XMAX),
        p.get(at, &htup::T_FIELD3)
    ));
    let (blk, pos) = p.tid(at, &htup::T_CTID);
    let natts = infomask2 & u32::from(fields::HEAP_NATTS_MASK);
    let hoff = p.get(at, &htup::T_HOFF);
    o.put(format_args!(
        "\n  Block Id: {blk}  linp Index: {pos}   Attributes: {natts}   Size: {hoff}\n"
    ));
    let names = joined(words(infomask, &INFOMASK).chain(words(infomask2, &INFOMASK2)));
    o.put(format_args!("  infomask: 0x{infomask:04x} ({names}) \n"));
    let bitmap = if infomask & u32::from(fields::HEAP_HASNULL) != 0 {
        usize::try_from(natts)
            .unwrap_or(usize::MAX)
            .saturating_add(7)
            / 8
    } else {
        0
    };
    let computed = maxalign(t_bits.saturating_add(bitmap));
    if u32::try_from(computed).ok() != Some(hoff) {
        o.put(format_args!(
            "  Error: Computed header length not equal to header size.\n         Computed <{computed}>  Header: <{hoff}>\n"
        ));
    } else if bitmap > 0 {
        o.0.push_str("  t_bits: ");
        for x in 0..bitmap {
            o.put(format_args!(
                "[{x}]: 0x{:02x} ",
                p.u8(at.saturating_add(t_bits).saturating_add(x))
            ));
            if x & 3 == 3 && x < bitmap.saturating_sub(1) {
                o.0.push_str("\n          ");
            }
        }
        o.0.push('\n');
    }
    o.0.push('\n');
}

/// pg_filedump's FormatSpecial: the special section as the kind it guessed, then in hex.
fn special_section(o: &mut Out, p: &Page, kind: Special, at: usize) {
    o.0.push_str("<Special Section> -----\n");
    let get = |f: &Field| p.get(at, f);
    match kind {
        Special::Unknown | Special::Boundary => {
            o.0.push_str(" Error: Invalid special section encountered.\n");
        }
        Special::Sequence => o.put(format_args!(" Sequence: 0x{SEQ_MAGIC:08x}\n")),
        Special::Btree => {
            let flags = get(&btpo::BTPO_FLAGS);
            let names = joined(words(
                flags,
                &[
                    (1, "LEAF"),
                    (2, "ROOT"),
                    (4, "DELETED"),
                    (8, "META"),
                    (16, "HALFDEAD"),
                    (32, "SPLITEND"),
                    (64, "HASGARBAGE"),
                    (128, "INCOMPLETESPLIT"),
                ],
            ));
            o.put(format_args!(
                " BTree Index Section:\n  Flags: 0x{flags:04x} ({names})\n  Blocks: Previous ({})  Next ({})  {} ({})  CycleId ({})\n\n",
                get(&btpo::BTPO_PREV).cast_signed(),
                get(&btpo::BTPO_NEXT).cast_signed(),
                if flags & u32::from(fields::BTP_DELETED) != 0 { "Next XID" } else { "Level" },
                get(&btpo::BTPO_LEVEL).cast_signed(),
                get(&btpo::BTPO_CYCLEID)
            ));
        }
        Special::Hash => {
            let flags = get(&hasho::HASHO_FLAG);
            let names = joined(words(
                flags,
                &[(1, "OVERFLOW"), (2, "BUCKET"), (4, "BITMAP"), (8, "META")],
            ));
            o.put(format_args!(
                " Hash Index Section:\n  Flags: 0x{flags:04x} ({names})\n  Bucket Number: 0x{:04x}\n  Blocks: Previous ({})  Next ({})\n\n",
                get(&hasho::HASHO_BUCKET),
                get(&hasho::HASHO_PREVBLKNO).cast_signed(),
                get(&hasho::HASHO_NEXTBLKNO).cast_signed()
            ));
        }
        Special::Gist => {
            let flags = get(&gist::FLAGS);
            let names = joined(words(
                flags,
                &[
                    (1, "LEAF"),
                    (2, "DELETED"),
                    (4, "TUPLES_DELETED"),
                    (8, "FOLLOW_RIGHT"),
                ],
            ));
            let (hi, lo) = p.lsn(at, &gist::NSN);
            o.put(format_args!(
                " GIST Index Section:\n  NSN: 0x{hi:08x}/0x{lo:08x}\n  RightLink: {}\n  Flags: 0x{flags:08x} ({names})\n\n",
                get(&gist::RIGHTLINK).cast_signed()
            ));
        }
        Special::Gin => {
            let flags = get(&gin::FLAGS);
            let names = joined(words(
                flags,
                &[
                    (1, "DATA"),
                    (2, "LEAF"),
                    (4, "DELETED"),
                    (8, "META"),
                    (16, "LIST"),
                    (32, "FULLROW"),
                    (64, "INCOMPLETESPLIT"),
                    (128, "COMPRESSED"),
                ],
            ));
            o.put(format_args!(
                " GIN Index Section:\n  Flags: 0x{flags:08x} ({names})  Maxoff: {}\n  Blocks: RightLink ({})\n\n",
                get(&gin::MAXOFF),
                get(&gin::RIGHTLINK).cast_signed()
            ));
        }
        Special::Spgist => {
            let flags = get(&spgo::FLAGS);
            let names = unprefixed(flags, fields::SPGIST_FLAGS, "SPGIST_");
            o.put(format_args!(
                " SPGIST Index Section:\n  Flags: 0x{flags:08x} ({names})\n  nRedirection: {}\n  nPlaceholder: {}\n\n",
                get(&spgo::N_REDIRECTION),
                get(&spgo::N_PLACEHOLDER)
            ));
        }
        Special::None => {}
    }
    if kind == Special::Boundary {
        o.0.push_str(" Error: Special section points off page. Unable to dump contents.\n");
    } else {
        binary(o, p, p.len().saturating_sub(at), at);
    }
}

const RULE: &str = "*******************************************************************";

/// pg_filedump's banner for `-f -i` (all blocks) or `-f -i -R BLOCK` (`range`), `file`
/// standing for FILE as the user would type it.
pub fn filedump_banner(file: &str, range: Option<u32>) -> String {
    let mut options = String::from("-f -i");
    if let Some(b) = range {
        let _ = write!(options, " -R {b}");
    }
    let mut s = String::new();
    let _ = write!(
        s,
        "\n{RULE}\n* PostgreSQL File/Block Formatted Dump Utility\n*\n* File: {file}\n* Options used: {options}\n{RULE}\n"
    );
    s
}

/// pg_filedump's last line: after the requested block (`range`), or at the end of the file.
pub fn filedump_end(last_block: u32, range: bool) -> String {
    let why = if range { "Requested Range" } else { "File" };
    let mut s = String::new();
    let _ = write!(
        s,
        "\n*** End of {why} Encountered. Last Block Read: {} ***\n",
        last_block.cast_signed()
    );
    s
}

/// What `pg_filedump -f -i -R BLOCK FILE` prints, banner to end line.
pub fn filedump_fi(file: &str, page: &[u8], block: u32, endian: Endian) -> String {
    let mut s = filedump_banner(file, Some(block));
    s.push_str(&filedump_block(page, block, endian));
    s.push_str(&filedump_end(block, true));
    s
}

/// [`filedump_fi`] with the bytes `redaction` masks printed as `xx`, and its note after the
/// banner.
pub fn filedump_fi_redacted(
    file: &str,
    page: &[u8],
    block: u32,
    endian: Endian,
    redaction: &Redaction,
) -> String {
    let mut s = filedump_banner(file, Some(block));
    let _ = writeln!(s, "* {}", redaction.note());
    s.push_str(&filedump_block_redacted(page, block, endian, redaction));
    s.push_str(&filedump_end(block, true));
    s
}
