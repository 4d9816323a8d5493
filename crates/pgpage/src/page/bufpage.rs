//! The parts of a page every access method shares (bufpage.h, itemid.h): PageHeaderData as
//! page_header() shows it, the line pointer array, free space and the special space, and the
//! free-space arithmetic of bufpage.c.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

use crate::findings::{Finding, Values};
use crate::page::fields::{
    item_id_data, page_header_data, Field, Role, SpanField, Table, PAGE_HEADER_DATA,
};
use crate::page::fields::{LP_DEAD, LP_NORMAL, LP_REDIRECT, LP_UNUSED};
use crate::page::geometry::Endian;
use crate::page::reader::Reader;
use crate::page::spans::Spans;

/// bufpage.h: SizeOfPageHeaderData; also MAXALIGN(SizeOfPageHeaderData), PageGetContents.
pub const SIZE_OF_PAGE_HEADER_DATA: usize = 24;

/// block.h: InvalidBlockNumber.
pub const INVALID_BLOCK_NUMBER: u32 = u32::MAX;

/// itemid.h: sizeof(ItemIdData).
pub const SIZE_OF_ITEM_ID: usize = 4;

/// Writes line pointer `lp` (1-based) of `page` as itemid.h's ItemIdData bit fields lay it
/// out in `endian` (`lp_off:15, lp_flags:2, lp_len:15`, by `item_id_data`'s bits): what
/// ItemIdSetNormal, ItemIdSetRedirect and ItemIdSetDead store. False when the line pointer
/// is not on the page.
pub fn set_item_id(
    page: &mut [u8],
    endian: Endian,
    lp: u16,
    off: u16,
    flags: u8,
    len: u16,
) -> bool {
    use crate::page::fields::item_id_data::{LP_FLAGS, LP_LEN, LP_OFF};
    let at = usize::from(lp)
        .saturating_sub(1)
        .saturating_mul(SIZE_OF_ITEM_ID)
        .saturating_add(SIZE_OF_PAGE_HEADER_DATA);
    let Some(word) = page.get_mut(at..at.saturating_add(SIZE_OF_ITEM_ID)) else {
        return false;
    };
    let mut v: u32 = 0;
    for (field, value) in [
        (&LP_OFF, u32::from(off)),
        (&LP_FLAGS, u32::from(flags)),
        (&LP_LEN, u32::from(len)),
    ] {
        let Some(bits) = field.bits else {
            return false;
        };
        let mask = 1u32
            .checked_shl(u32::from(bits.width))
            .map_or(u32::MAX, |b| b.wrapping_sub(1));
        v |= (value & mask).wrapping_shl(u32::from(bits.shift_for(32, endian)));
    }
    word.copy_from_slice(&match endian {
        Endian::Little => v.to_le_bytes(),
        Endian::Big => v.to_be_bytes(),
    });
    true
}

/// pageinspect's page_header() row (checksum unsigned, as docs/contracts.md, "inspect --json",
/// says).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PageHeader {
    pub lsn: String,
    pub checksum: u16,
    /// smallint in page_header(): bits past 0x7FFF show negative, as pageinspect shows them.
    pub flags: i16,
    pub lower: u16,
    pub upper: u16,
    pub special: u16,
    pub pagesize: u16,
    pub version: u8,
    pub prune_xid: String,
    /// pd_flags bit names (bufpage.h).
    #[serde(skip)]
    pub flag_names: Vec<&'static str>,
}

/// A line pointer as heap_page_items' first four columns show it; the rows of pages whose
/// access method has no pageinspect item function.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct LinePointer {
    pub lp: u16,
    pub lp_off: u16,
    pub lp_flags: u8,
    pub lp_len: u16,
}

/// The page header, as page_header() shows it.
pub(crate) fn decode_header(r: &Reader, spans: &mut Spans) -> PageHeader {
    spans.table(0, &PAGE_HEADER_DATA, None);
    let get = |f: &Field| r.get(0, f);
    let psv = get(&page_header_data::PD_PAGESIZE_VERSION) as u16;
    let flags = get(&page_header_data::PD_FLAGS) as u16;
    let lower = get(&page_header_data::PD_LOWER) as u16;
    let upper = get(&page_header_data::PD_UPPER) as u16;
    let special = get(&page_header_data::PD_SPECIAL) as u16;
    let names =
        crate::page::fields::flag_names(u32::from(flags), crate::page::fields::PD_FLAGS).collect();
    let len = r.len();
    if r.len() >= SIZE_OF_PAGE_HEADER_DATA && r.b.iter().any(|&b| b != 0) {
        // PageIsVerified's rules come from the one header check; pd_lower below the header
        // and pd_pagesize_version are structural rules the server applies elsewhere.
        for finding in crate::page::verify::header_check(r.b, r.e).findings() {
            let field = match finding {
                Finding::HeaderFlagsInvalid => &page_header_data::PD_FLAGS,
                Finding::HeaderLowerAboveUpper => &page_header_data::PD_LOWER,
                Finding::HeaderUpperAboveSpecial => &page_header_data::PD_UPPER,
                _ => &page_header_data::PD_SPECIAL,
            };
            spans.flag(field, finding);
        }
        if usize::from(lower) < SIZE_OF_PAGE_HEADER_DATA {
            spans.flag(&page_header_data::PD_LOWER, Finding::HeaderLowerBelowHeader);
        }
        if usize::from(psv & 0xFF00) != len || psv & 0x00FF != 4 {
            spans.flag(
                &page_header_data::PD_PAGESIZE_VERSION,
                Finding::HeaderPageSizeVersion,
            );
        }
    }
    PageHeader {
        lsn: r
            .lsn(at(0, &page_header_data::PD_LSN))
            .unwrap_or_else(|| String::from("0/0")),
        checksum: get(&page_header_data::PD_CHECKSUM) as u16,
        flags: flags as i16,
        lower,
        upper,
        special,
        pagesize: psv & 0xFF00,
        version: (psv & 0x00FF) as u8,
        prune_xid: format!("{}", get(&page_header_data::PD_PRUNE_XID)),
        flag_names: names,
    }
}

/// Item bytes decoded so far on one page: the bytes the rows print (hex data, posting
/// lists, heap t_data and t_bits), not the size t_info claims (garbage claims 0 and prints
/// 8 kB). On a real page the items' storage adds up to less than the page; garbage line
/// pointers can all point at the same bytes, and decoding each again took seconds in wasm.
/// Past four pages' worth, the rest of the items are flagged, not decoded.
pub(crate) struct ItemBudget {
    pub(crate) spent: usize,
    pub(crate) limit: usize,
}

impl ItemBudget {
    pub(crate) fn new(page_len: usize) -> Self {
        Self {
            spent: 0,
            limit: page_len.saturating_mul(4),
        }
    }

    /// Whether item `lp` may still be decoded; when not, it is flagged.
    pub(crate) fn allows(&self, lp: u16, spans: &mut Spans) -> bool {
        if self.spent <= self.limit {
            return true;
        }
        spans.flag_item(&item_id_data::LP_OFF, lp, Finding::ItemsOverlapFar);
        false
    }

    pub(crate) fn spend(&mut self, bytes: usize) {
        self.spent = self.spent.saturating_add(bytes);
    }
}

/// bufpage.h: PageGetMaxOffsetNumber, capped to the line pointers that fit in the page;
/// whether pd_lower counts more (pageinspect reads those past the page's end).
pub(crate) fn max_offset(header: &PageHeader, len: usize) -> (u16, bool) {
    let lower = usize::from(header.lower);
    if lower <= SIZE_OF_PAGE_HEADER_DATA {
        return (0, false);
    }
    let n = (lower.saturating_sub(SIZE_OF_PAGE_HEADER_DATA)) / SIZE_OF_ITEM_ID;
    let fit = len.saturating_sub(SIZE_OF_PAGE_HEADER_DATA) / SIZE_OF_ITEM_ID;
    (u16::try_from(n.min(fit)).unwrap_or(u16::MAX), n > fit)
}

/// An ItemIdData as read from the page.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ItemId {
    pub lp: u16,
    pub off: u16,
    pub flags: u8,
    pub len: u16,
}

impl ItemId {
    pub fn row(&self) -> LinePointer {
        LinePointer {
            lp: self.lp,
            lp_off: self.off,
            lp_flags: self.flags,
            lp_len: self.len,
        }
    }
    /// The item's bytes lie within the page (and after the line pointers).
    pub fn storage_ok(&self, len: usize) -> bool {
        self.len != 0
            && usize::from(self.off) >= SIZE_OF_PAGE_HEADER_DATA
            && usize::from(self.off).saturating_add(usize::from(self.len)) <= len
    }
}

/// Reads line pointers 1..=max_offset and emits their spans.
pub(crate) fn line_pointers(r: &Reader, header: &PageHeader, spans: &mut Spans) -> Vec<ItemId> {
    let (n, past_page) = max_offset(header, r.len());
    let mut out = Vec::with_capacity(usize::from(n));
    for lp in 1..=n {
        let base = SIZE_OF_PAGE_HEADER_DATA
            .saturating_add(usize::from(lp.saturating_sub(1)).saturating_mul(SIZE_OF_ITEM_ID));
        let id = ItemId {
            lp,
            off: r.get(base, &item_id_data::LP_OFF) as u16,
            flags: r.get(base, &item_id_data::LP_FLAGS) as u8,
            len: r.get(base, &item_id_data::LP_LEN) as u16,
        };
        // verify_heapam's numbers: the redirect's target against FirstOffsetNumber or maxoff,
        // the item's offset and length against the page's end.
        let end = usize::from(id.off).saturating_add(usize::from(id.len));
        if id.flags == LP_REDIRECT && (id.off == 0 || id.off > n) {
            let bound = if id.off == 0 { 1 } else { n };
            let values = Values::new(&[u32::from(id.off), u32::from(bound)]);
            spans.value(Some(lp), Finding::LpRedirectOutOfRange, values);
        } else if matches!(id.flags, LP_NORMAL | LP_DEAD) && id.len != 0 && end > r.len() {
            let page = u32::try_from(r.len()).unwrap_or(u32::MAX);
            let values = Values::new(&[u32::from(id.off), u32::from(id.len), page]);
            spans.value(Some(lp), Finding::ItemPastPage, values);
        }
        let problem = match id.flags {
            LP_UNUSED if id.len != 0 || id.off != 0 => Some(Finding::LpUnusedWithStorage),
            LP_NORMAL if id.len == 0 => Some(Finding::LpNormalWithoutStorage),
            LP_REDIRECT if id.len != 0 || id.off == 0 || id.off > n => {
                Some(Finding::LpRedirectOutOfRange)
            }
            LP_NORMAL | LP_DEAD if id.len != 0 && !id.storage_ok(r.len()) => {
                Some(Finding::ItemPastPage)
            }
            LP_NORMAL | LP_DEAD
                if id.len != 0
                    && (id.off < header.upper
                        || usize::from(id.off).saturating_add(usize::from(id.len))
                            > usize::from(header.special)) =>
            {
                Some(Finding::ItemOutsideUpperSpecial)
            }
            _ => None,
        };
        spans.push(
            base,
            SIZE_OF_ITEM_ID,
            &item_id_data::LP_OFF,
            Some(lp),
            problem,
        );
        out.push(id);
    }
    if past_page {
        spans.note(Finding::LinePointersPastPage);
    }
    out
}

/// The free space between pd_lower and pd_upper.
pub(crate) fn free_space(header: &PageHeader, spans: &mut Spans) {
    let (lower, upper) = (usize::from(header.lower), usize::from(header.upper));
    if lower < upper && lower >= SIZE_OF_PAGE_HEADER_DATA {
        spans.push_region(
            lower,
            upper.saturating_sub(lower),
            SpanField::FreeSpace,
            Role::FreeSpace,
            None,
            None,
        );
    }
}

/// The special space's size (PageGetSpecialSize), None when pd_special is not in the page.
pub(crate) fn special_size(header: &PageHeader, len: usize) -> Option<usize> {
    len.checked_sub(usize::from(header.special))
}

/// Spans the special space as the access method's opaque data `table`, flagging pd_special
/// when the space is not that size; returns where the space starts.
pub(crate) fn special_opaque(
    r: &Reader,
    header: &PageHeader,
    spans: &mut Spans,
    table: &Table,
) -> usize {
    let at = usize::from(header.special);
    if special_size(header, r.len()) != Some(usize::from(table.size)) {
        spans.flag(&page_header_data::PD_SPECIAL, Finding::SpecialSizeWrong);
    }
    spans.table(at, table, None);
    at
}

/// The header is one PostgreSQL wrote: PageIsVerified's checks, pd_lower past the header,
/// pd_pagesize_version saying the page's size and layout 4. An all-zero page counts (none).
pub(crate) fn header_counts_items(r: &Reader, header: &PageHeader) -> bool {
    let psv = r.get(0, &page_header_data::PD_PAGESIZE_VERSION) as usize;
    all_zero(r.b)
        || (crate::page::verify::header_is_sane(r.b, r.e)
            && usize::from(header.lower) >= SIZE_OF_PAGE_HEADER_DATA
            && psv & 0xFF00 == r.len()
            && psv & 0x00FF == 4)
}

pub(crate) fn all_zero(page: &[u8]) -> bool {
    page.iter().all(|&b| b == 0)
}

/// PageGetFreeSpace (bufpage.c): pd_upper - pd_lower less one line pointer, or 0.
pub(crate) fn page_get_free_space(header: &PageHeader) -> u32 {
    let space = i32::from(header.upper).saturating_sub(i32::from(header.lower));
    if space < SIZE_OF_ITEM_ID as i32 {
        0
    } else {
        space.saturating_sub(SIZE_OF_ITEM_ID as i32) as u32
    }
}

/// PageGetHeapFreeSpace (bufpage.c) of a heap page: PageGetFreeSpace, or 0 when the page
/// has MaxHeapTuplesPerPage line pointers and none of them is unused.
pub fn page_get_heap_free_space(page: &[u8], endian: Endian) -> u32 {
    let r = Reader { b: page, e: endian };
    let lower = r.get(0, &page_header_data::PD_LOWER) as u16;
    let upper = r.get(0, &page_header_data::PD_UPPER) as u16;
    let space = i32::from(upper).saturating_sub(i32::from(lower));
    let space = if space < SIZE_OF_ITEM_ID as i32 {
        0
    } else {
        space.saturating_sub(SIZE_OF_ITEM_ID as i32) as u32
    };
    let nline = usize::from(lower).saturating_sub(SIZE_OF_PAGE_HEADER_DATA) / SIZE_OF_ITEM_ID;
    // htup_details.h: MaxHeapTuplesPerPage, (BLCKSZ - header) / (MAXALIGN(23) + 4).
    let max_tuples = page.len().saturating_sub(SIZE_OF_PAGE_HEADER_DATA) / 28;
    if space > 0 && nline >= max_tuples {
        let any_unused = (0..nline).any(|i| {
            let at = SIZE_OF_PAGE_HEADER_DATA.saturating_add(i.saturating_mul(SIZE_OF_ITEM_ID));
            r.field(at, &item_id_data::LP_FLAGS) == Some(u32::from(LP_UNUSED))
        });
        if !any_unused {
            return 0;
        }
    }
    space
}

/// Where row `f` of a structure laid at `base` starts.
pub(crate) fn at(base: usize, f: &Field) -> usize {
    base.saturating_add(usize::from(f.offset))
}

/// The metapage table's spans at PageGetContents.
pub(crate) fn meta_spans(table: &Table, spans: &mut Spans) {
    spans.table(SIZE_OF_PAGE_HEADER_DATA, table, None);
}
