//! The text `pg_filedump -f -i -R N FILE` prints for one block: the format people paste into
//! pgsql-hackers threads. Written from the page layouts (bufpage.h, htup_details.h, itup.h,
//! nbtree.h, hash.h, gist.h, ginblock.h, spgist_private.h) to read as pg_filedump 14.1 does,
//! including where it guesses (the special section's kind from its size and last two bytes).

use alloc::string::String;
use core::fmt::{Arguments, Write};

use crate::layout::{maxalign, read_u16, read_u32, Endian};

/// bufpage.h: SizeOfPageHeaderData, where the line pointer array starts.
const PAGE_HEADER: usize = 24;
/// htup_details.h: offsetof(HeapTupleHeaderData, t_bits).
const T_BITS: usize = 23;
/// nbtree.h: BTP_META, and MAX_BT_CYCLE_ID (the largest btpo_cycleid; the page ids of hash,
/// GiST and SP-GiST pages lie above it).
const BTP_META: u16 = 1 << 3;
const MAX_BT_CYCLE_ID: u16 = 0xFF7F;
const HASHO_PAGE_ID: u16 = 0xFF80;
const GIST_PAGE_ID: u16 = 0xFF81;
const SPGIST_PAGE_ID: u16 = 0xFF82;
/// sequence.c: SEQ_MAGIC in a sequence page's special space.
const SEQUENCE_MAGIC: u32 = 0x1717;
/// spgist_private.h: SPGIST_LEAF in SpGistPageOpaqueData.flags.
const SPGIST_LEAF: u16 = 1 << 2;
const SPGIST_TUPSTATES: [&str; 4] = ["LIVE", "REDIRECT", "DEAD", "PLACEHOLDER"];

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

struct Page<'a> {
    b: &'a [u8],
    e: Endian,
}

/// Reads past the page give 0: pg_filedump reads whatever memory follows, which no page's
/// own bytes decide; its bounds checks, which decide what is printed, are kept as they are.
impl Page<'_> {
    fn u8(&self, off: usize) -> u8 {
        self.b.get(off).copied().unwrap_or(0)
    }
    fn u16(&self, off: usize) -> u16 {
        read_u16(self.b, off, self.e).unwrap_or(0)
    }
    fn u32(&self, off: usize) -> u32 {
        read_u32(self.b, off, self.e).unwrap_or(0)
    }
    fn len(&self) -> usize {
        self.b.len()
    }
    /// A GCC bitfield of `width` bits that is the `lsb_first`-th from the low end of the word
    /// on a little-endian machine; a big-endian one allocates from the high end.
    fn bits(&self, word: u32, lsb_first: u32, width: u32) -> u32 {
        let shift = match self.e {
            Endian::Little => lsb_first,
            Endian::Big => 32u32.saturating_sub(lsb_first.saturating_add(width)),
        };
        let mask = 1u32
            .checked_shl(width)
            .map_or(u32::MAX, |m| m.wrapping_sub(1));
        word.checked_shr(shift).unwrap_or(0) & mask
    }
    /// `ItemIdData` number `x` (from 1): lp_off, lp_flags, lp_len.
    fn item_id(&self, x: usize) -> (u32, u32, u32) {
        let at = x
            .saturating_sub(1)
            .saturating_mul(4)
            .saturating_add(PAGE_HEADER);
        let w = self.u32(at);
        (
            self.bits(w, 0, 15),
            self.bits(w, 15, 2),
            self.bits(w, 17, 15),
        )
    }
    /// An ItemPointerData's block (bi_hi, bi_lo) and offset.
    fn tid(&self, at: usize) -> (u32, u16) {
        let hi = u32::from(self.u16(at));
        let lo = u32::from(self.u16(at.saturating_add(2)));
        ((hi << 16) | lo, self.u16(at.saturating_add(4)))
    }
}

struct Out(String);

impl Out {
    fn put(&mut self, args: Arguments<'_>) {
        // Writing to a String cannot fail.
        let _ = self.0.write_fmt(args);
    }
}

/// The names of the bits of `value` set in `names`, `|`-joined, in table order.
fn flag_names(value: u32, names: &[(u32, &str)]) -> String {
    let mut s = String::new();
    for &(bit, name) in names {
        if value & bit != 0 {
            if !s.is_empty() {
                s.push('|');
            }
            s.push_str(name);
        }
    }
    s
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
            if x < last {
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
            o.0.push(if x < last {
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
    let size = p.len();
    if size <= PAGE_HEADER {
        return Special::Unknown;
    }
    if special == 0 || special > size {
        return Special::Boundary;
    }
    let ptype = p.u16(size.saturating_sub(2));
    match size.saturating_sub(special) {
        0 => Special::None,
        8 if p.u32(special) == SEQUENCE_MAGIC => Special::Sequence,
        8 if ptype == SPGIST_PAGE_ID => Special::Spgist,
        8 => Special::Gin,
        16 if ptype <= MAX_BT_CYCLE_ID => Special::Btree,
        16 if ptype == HASHO_PAGE_ID => Special::Hash,
        16 if ptype == GIST_PAGE_ID => Special::Gist,
        _ => Special::Unknown,
    }
}

/// nbtree.h: a btree metapage, told by its special size (from pd_pagesize_version, as
/// PageGetSpecialSize does), cycle id and BTP_META.
fn is_btree_meta(p: &Page, page_size: u16, special: u16) -> bool {
    if page_size.wrapping_sub(special) != 16 {
        return false;
    }
    let s = usize::from(special);
    p.u16(s.saturating_add(14)) <= MAX_BT_CYCLE_ID && p.u16(s.saturating_add(12)) & BTP_META != 0
}

/// The `-f -i` text of one block, from pg_filedump's "Block N ****" line through the blank
/// lines after the special section: what it prints for that block of a file. `page` is the
/// whole block (its length is the block size); `block` is its number within the file.
pub fn filedump_block(page: &[u8], block: u32, endian: Endian) -> String {
    let p = Page { b: page, e: endian };
    let mut o = Out(String::new());
    let size = p.len();
    o.put(format_args!(
        "\nBlock {block:4} ********************************************************\n<Header> -----\n"
    ));
    if size < PAGE_HEADER {
        o.put(format_args!(
            " Error: End of block encountered within the header. Bytes read: {size:4}.\n\n"
        ));
        binary(&mut o, &p, size, 0);
        return o.0;
    }
    let lower = p.u16(12);
    let upper = p.u16(14);
    let special = p.u16(16);
    let pagesize_version = p.u16(18);
    let page_size = pagesize_version & 0xFF00;
    let version = pagesize_version & 0x00FF;
    let max_offset = usize::from(lower).saturating_sub(PAGE_HEADER) / 4;
    let mut header_bytes = PAGE_HEADER;
    let mut eof = false;
    if max_offset > 0 {
        let with_items = max_offset.saturating_mul(4).saturating_add(PAGE_HEADER);
        if size < with_items {
            header_bytes = size;
            eof = true;
        } else {
            header_bytes = with_items;
        }
    }
    let flags = p.u16(10);
    let flag_string = flag_names(
        u32::from(flags),
        &[(1, "HAS_FREE_LINES"), (2, "PAGE_FULL"), (4, "ALL_VISIBLE")],
    );
    let offset = u32::try_from(size).unwrap_or(u32::MAX).wrapping_mul(block);
    // pd_upper - pd_lower is computed in int and printed unsigned, so it wraps when negative.
    let free = (i32::from(upper).wrapping_sub(i32::from(lower))) as u32;
    o.put(format_args!(
        " Block Offset: 0x{offset:08x}         Offsets: Lower    {lower:4} (0x{lower:04x})\n"
    ));
    o.put(format_args!(
        " Block: Size {page_size:4}  Version {version:4}            Upper    {upper:4} (0x{upper:04x})\n"
    ));
    o.put(format_args!(
        " LSN:  logid {:6} recoff 0x{:08x}      Special  {special:4} (0x{special:04x})\n",
        p.u32(0) as i32,
        p.u32(4)
    ));
    o.put(format_args!(
        " Items: {max_offset:4}                      Free Space: {free:4}\n"
    ));
    o.put(format_args!(
        " Checksum: 0x{:04x}  Prune XID: 0x{:08x}  Flags: 0x{flags:04x} ({flag_string})\n",
        p.u16(8),
        p.u32(20)
    ));
    o.put(format_args!(
        " Length (including item array): {header_bytes}\n\n"
    ));
    let meta = is_btree_meta(&p, page_size, special);
    if meta {
        o.put(format_args!(
            " BTree Meta Data:  Magic (0x{:08x})   Version ({})\n",
            p.u32(24),
            p.u32(28)
        ));
        o.put(format_args!(
            "                   Root:     Block ({})  Level ({})\n",
            p.u32(32),
            p.u32(36)
        ));
        o.put(format_args!(
            "                   FastRoot: Block ({})  Level ({})\n\n",
            p.u32(40),
            p.u32(44)
        ));
        // nbtree.h: sizeof(BTMetaPageData).
        header_bytes = header_bytes.saturating_add(48);
    }
    let (lower, upper, special_u) = (usize::from(lower), usize::from(upper), usize::from(special));
    if max_offset > size
        || version != 4
        || upper > size
        || upper > special_u
        || lower < PAGE_HEADER.saturating_sub(4)
        || lower > size
        || upper < lower
        || special_u > size
    {
        o.0.push_str(" Error: Invalid header information.\n\n");
    }
    if eof {
        o.put(format_args!(
            " Error: End of block encountered within the header. Bytes read: {size:4}.\n\n"
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
        Special::Spgist if p.u16(special_at) & SPGIST_LEAF != 0 => ItemKind::SpgLeaf,
        Special::Spgist => ItemKind::SpgInner,
        _ => ItemKind::Heap,
    };
    for x in 1..=max_offset {
        let (off, flags, len) = p.item_id(x);
        let flag_text = match flags {
            0 => "UNUSED",
            1 => "NORMAL",
            2 => "REDIRECT",
            _ => "DEAD",
        };
        o.put(format_args!(
            " Item {x:3} -- Length: {len:4}  Offset: {off:4} (0x{off:04x})  Flags: {flag_text}\n"
        ));
        let end = off.saturating_add(len) as usize;
        if end > p.len() {
            o.put(format_args!(
                "  Error: Item contents extend beyond block.\n         BlockSize<{}> Bytes Read<{}> Item Start<{end}>.\n",
                p.len(),
                p.len()
            ));
            continue;
        }
        let (off, len) = (off as usize, len as usize);
        item(o, p, len, off, kind);
        binary(o, p, len, off);
        if x == max_offset {
            o.0.push('\n');
        }
    }
}

/// pg_filedump's FormatItem: the item's header as a heap, index or SP-GiST tuple.
fn item(o: &mut Out, p: &Page, len: usize, at: usize, kind: ItemKind) {
    let field = |d: usize| at.saturating_add(d);
    match kind {
        ItemKind::Index => {
            if len < 6 {
                if len > 0 {
                    o.0.push_str("  Error: This item does not look like an index item.\n");
                }
                return;
            }
            let (blk, pos) = p.tid(at);
            let info = p.u16(field(6));
            let tuple_size = info & 0x1FFF;
            o.put(format_args!(
                "  Block Id: {blk}  linp Index: {pos}  Size: {tuple_size}\n  Has Nulls: {}  Has Varwidths: {}\n\n",
                u8::from(info & 0x8000 != 0),
                u8::from(info & 0x4000 != 0)
            ));
            if len != usize::from(tuple_size) {
                o.put(format_args!(
                    "  Error: Item size difference. Given <{len}>, Internal <{tuple_size}>.\n"
                ));
            }
        }
        ItemKind::SpgInner => {
            if len < 8 {
                if len > 0 {
                    o.0.push_str("  Error: This item does not look like an SPGiST item.\n");
                }
                return;
            }
            let w = p.u32(at);
            let state = SPGIST_TUPSTATES
                .get(p.bits(w, 0, 2) as usize)
                .copied()
                .unwrap_or("");
            let all_the_same = p.bits(w, 2, 1);
            let n_nodes = p.bits(w, 3, 13);
            let prefix = p.bits(w, 16, 16) as usize;
            let tuple_size = p.u16(field(4));
            o.put(format_args!(
                "  State: {state}  allTheSame: {all_the_same} nNodes: {n_nodes} prefixSize: {prefix}\n\n"
            ));
            if len != usize::from(tuple_size) {
                o.put(format_args!(
                    "  Error: Item size difference. Given <{len}>, Internal <{tuple_size}>.\n"
                ));
            } else if prefix == maxalign(prefix) {
                let head = prefix.saturating_add(8);
                if head <= len {
                    binary(o, p, head, at);
                }
                let mut node = head;
                for i in 0..n_nodes {
                    if node.saturating_add(8) > len {
                        break;
                    }
                    let (blk, pos) = p.tid(field(node));
                    let info = p.u16(field(node).saturating_add(6));
                    let node_size = usize::from(info & 0x1FFF);
                    o.put(format_args!(
                        "  Node {i:2}:  Downlink: {blk}/{pos}  Size: {node_size}  Null: {}\n",
                        u8::from(info & 0x8000 != 0)
                    ));
                    if node.saturating_add(node_size) <= len {
                        binary(o, p, node_size, field(node));
                    }
                    if node_size != maxalign(node_size) {
                        break;
                    }
                    node = node.saturating_add(node_size);
                }
            }
            o.0.push('\n');
        }
        ItemKind::SpgLeaf => {
            // SGLTHDRSZ is 16 with or without the null bitmap byte.
            if len < 16 {
                if len > 0 {
                    o.0.push_str("  Error: This item does not look like an SPGiST item.\n");
                }
                return;
            }
            let w = p.u32(at);
            let state = SPGIST_TUPSTATES
                .get(p.bits(w, 0, 2) as usize)
                .copied()
                .unwrap_or("");
            let tuple_size = p.bits(w, 2, 30);
            let next = p.u16(field(4)) & 0x3FFF;
            let (blk, pos) = p.tid(field(6));
            o.put(format_args!(
                "  State: {state}  nextOffset: {next}  Block Id: {blk}  linp Index: {pos}\n\n"
            ));
            if len as u64 != u64::from(tuple_size) {
                o.put(format_args!(
                    "  Error: Item size difference. Given <{len}>, Internal <{tuple_size}>.\n"
                ));
            }
        }
        ItemKind::Heap => heap_item(o, p, len, at),
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
    (0x2000 << 16, "KEYS_UPDATED"),
    (0x4000 << 16, "HOT_UPDATED"),
    (0x8000 << 16, "HEAP_ONLY"),
];

fn heap_item(o: &mut Out, p: &Page, len: usize, at: usize) {
    let field = |d: usize| at.saturating_add(d);
    if len < maxalign(T_BITS) {
        if len > 0 {
            o.0.push_str("  Error: This item does not look like a heap item.\n");
        }
        return;
    }
    let infomask = p.u16(field(20));
    let infomask2 = p.u16(field(18));
    // HeapTupleHeaderGetXmin: a frozen tuple (XMIN_COMMITTED and XMIN_INVALID) shows
    // FrozenTransactionId, whatever its raw t_xmin.
    let xmin = if infomask & 0x0300 == 0x0300 {
        2
    } else {
        p.u32(at)
    };
    o.put(format_args!(
        "  XMIN: {xmin}  XMAX: {}  CID|XVAC: {}",
        p.u32(field(4)),
        p.u32(field(8))
    ));
    let (blk, pos) = p.tid(field(12));
    let natts = infomask2 & 0x07FF;
    let hoff = p.u8(field(22));
    o.put(format_args!(
        "\n  Block Id: {blk}  linp Index: {pos}   Attributes: {natts}   Size: {hoff}\n"
    ));
    let both = u32::from(infomask) | (u32::from(infomask2) << 16);
    let mut names = flag_names(both, &INFOMASK);
    let more = flag_names(both, &INFOMASK2);
    if !names.is_empty() && !more.is_empty() {
        names.push('|');
    }
    names.push_str(&more);
    o.put(format_args!("  infomask: 0x{infomask:04x} ({names}) \n"));
    let bitmap = if infomask & 1 != 0 {
        usize::from(natts).saturating_add(7) / 8
    } else {
        0
    };
    let computed = maxalign(T_BITS.saturating_add(bitmap));
    if computed != usize::from(hoff) {
        o.put(format_args!(
            "  Error: Computed header length not equal to header size.\n         Computed <{computed}>  Header: <{hoff}>\n"
        ));
    } else if bitmap > 0 {
        o.0.push_str("  t_bits: ");
        for x in 0..bitmap {
            o.put(format_args!(
                "[{x}]: 0x{:02x} ",
                p.u8(field(T_BITS).saturating_add(x))
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
    let u16at = |d: usize| p.u16(at.saturating_add(d));
    let u32at = |d: usize| p.u32(at.saturating_add(d));
    match kind {
        Special::Unknown | Special::Boundary => {
            o.0.push_str(" Error: Invalid special section encountered.\n");
        }
        Special::Sequence => o.put(format_args!(" Sequence: 0x{SEQUENCE_MAGIC:08x}\n")),
        Special::Btree => {
            let flags = u16at(12);
            let names = flag_names(
                u32::from(flags),
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
            );
            o.put(format_args!(
                " BTree Index Section:\n  Flags: 0x{flags:04x} ({names})\n  Blocks: Previous ({})  Next ({})  {} ({})  CycleId ({})\n\n",
                u32at(0) as i32,
                u32at(4) as i32,
                if flags & 4 != 0 { "Next XID" } else { "Level" },
                u32at(8) as i32,
                u16at(14)
            ));
        }
        Special::Hash => {
            let flags = u16at(12);
            let names = flag_names(
                u32::from(flags),
                &[(1, "OVERFLOW"), (2, "BUCKET"), (4, "BITMAP"), (8, "META")],
            );
            o.put(format_args!(
                " Hash Index Section:\n  Flags: 0x{flags:04x} ({names})\n  Bucket Number: 0x{:04x}\n  Blocks: Previous ({})  Next ({})\n\n",
                u32at(8),
                u32at(0) as i32,
                u32at(4) as i32
            ));
        }
        Special::Gist => {
            let flags = u16at(12);
            let names = flag_names(
                u32::from(flags),
                &[
                    (1, "LEAF"),
                    (2, "DELETED"),
                    (4, "TUPLES_DELETED"),
                    (8, "FOLLOW_RIGHT"),
                ],
            );
            o.put(format_args!(
                " GIST Index Section:\n  NSN: 0x{:08x}/0x{:08x}\n  RightLink: {}\n  Flags: 0x{flags:08x} ({names})\n\n",
                u32at(0),
                u32at(4),
                u32at(8) as i32
            ));
        }
        Special::Gin => {
            let flags = u16at(6);
            let names = flag_names(
                u32::from(flags),
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
            );
            o.put(format_args!(
                " GIN Index Section:\n  Flags: 0x{flags:08x} ({names})  Maxoff: {}\n  Blocks: RightLink ({})\n\n",
                u16at(4),
                u32at(0) as i32
            ));
        }
        Special::Spgist => {
            let flags = u16at(0);
            let names = flag_names(
                u32::from(flags),
                &[(1, "META"), (2, "DELETED"), (4, "LEAF"), (8, "NULLS")],
            );
            o.put(format_args!(
                " SPGIST Index Section:\n  Flags: 0x{flags:08x} ({names})\n  nRedirection: {}\n  nPlaceholder: {}\n\n",
                u16at(2),
                u16at(4)
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
        last_block as i32
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
