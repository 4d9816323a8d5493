//! Comparing two copies of a relation file page by page (backup and live, primary and
//! standby): which pages differ, which copy is newer by pd_lsn, and the damage in bits,
//! byte ranges and 512-byte sectors, as docs/contracts.md, "diff --json", lists it.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

use crate::page::geometry::{read_u16, read_u32, Endian};
use crate::page::lsn::lsn_text;

/// The unit a disk writes atomically: a torn page differs in whole sectors.
pub const SECTOR_BYTES: u32 = 512;

/// Which copy holds a page.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffState {
    Different,
    OnlyA,
    OnlyB,
}

/// Which copy is newer by pd_lsn.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Newer {
    A,
    B,
    Same,
}

/// One page that is not equal in both copies.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PageDiff {
    /// Block within the file.
    pub block: u32,
    pub state: DiffState,
    /// By pd_lsn; absent for a page only one copy has.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub newer: Option<Newer>,
    pub bytes_changed: u32,
    /// Bits 0 in A and 1 in B.
    pub bits_set: u32,
    /// Bits 1 in A and 0 in B.
    pub bits_cleared: u32,
    /// 512-byte sectors of the page (0-based) that differ.
    pub sectors: Vec<u32>,
    /// Runs of changed bytes: [offset within the page, length].
    pub ranges: Vec<[u32; 2]>,
    /// Only what the server changes without WAL-logging a row's change differs: hint bits
    /// ([`hints_only`]). Same rows.
    pub hints_only: bool,
}

/// Counts over a whole file.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DiffSummary {
    pub blocks_a: u64,
    pub blocks_b: u64,
    pub equal: u64,
    pub different: u64,
    pub only_a: u64,
    pub only_b: u64,
}

impl DiffSummary {
    /// Counts one page the comparison listed.
    pub fn add(&mut self, page: &PageDiff) {
        let n = match page.state {
            DiffState::Different => &mut self.different,
            DiffState::OnlyA => &mut self.only_a,
            DiffState::OnlyB => &mut self.only_b,
        };
        *n = n.saturating_add(1);
    }

    /// Counts pages found equal.
    pub fn add_equal(&mut self, pages: u64) {
        self.equal = self.equal.saturating_add(pages);
    }

    /// Both copies hold the same pages, byte for byte.
    pub fn is_equal(&self) -> bool {
        self.different == 0
            && self.only_a == 0
            && self.only_b == 0
            && self.blocks_a == self.blocks_b
    }
}

/// pd_lsn as one number: PageXLogRecPtr is xlogid (high half) then xrecoff, each a u32 in
/// the server's byte order.
pub fn page_lsn(page: &[u8], endian: Endian) -> Option<u64> {
    let hi = read_u32(page, 0, endian)?;
    let lo = read_u32(page, 4, endian)?;
    Some(u64::from(hi) << 32 | u64::from(lo))
}

/// Compares one page of each copy (same block); None when they are equal byte for byte.
pub fn compare_pages(block: u32, a: &[u8], b: &[u8], endian: Endian) -> Option<PageDiff> {
    if a == b {
        return None;
    }
    let (mut bytes_changed, mut bits_set, mut bits_cleared) = (0u32, 0u32, 0u32);
    let mut sectors: Vec<u32> = Vec::new();
    let mut ranges: Vec<[u32; 2]> = Vec::new();
    for (i, (x, y)) in (0u32..).zip(a.iter().zip(b)) {
        if x == y {
            continue;
        }
        bytes_changed = bytes_changed.saturating_add(1);
        bits_set = bits_set.saturating_add((!x & y).count_ones());
        bits_cleared = bits_cleared.saturating_add((x & !y).count_ones());
        let sector = i / SECTOR_BYTES;
        if sectors.last() != Some(&sector) {
            sectors.push(sector);
        }
        match ranges.last_mut() {
            Some([start, len]) if start.saturating_add(*len) == i => *len = len.saturating_add(1),
            _ => ranges.push([i, 1]),
        }
    }
    // A header PageIsVerified rejects holds no LSN, only bytes where one would be.
    let sane = crate::page::verify::header_is_sane(a, endian)
        && crate::page::verify::header_is_sane(b, endian);
    let newer = match (page_lsn(a, endian), page_lsn(b, endian)) {
        _ if !sane => None,
        (Some(x), Some(y)) if x > y => Some(Newer::A),
        (Some(x), Some(y)) if x < y => Some(Newer::B),
        _ => Some(Newer::Same),
    };
    Some(PageDiff {
        block,
        state: DiffState::Different,
        newer,
        bytes_changed,
        bits_set,
        bits_cleared,
        sectors,
        ranges,
        hints_only: hints_only(a, b, endian),
    })
}

/// Whether two copies of a heap page differ only where the server writes without a record
/// of a row's change, as wal_consistency_checking's masking (bufmask.c, heap_mask) leaves
/// aside: pd_lsn (a hint-bit write's full-page image moves it), pd_checksum, pd_flags,
/// pd_prune_xid, the free space between pd_lower and pd_upper (mask_unused_space: a
/// full-page image leaves it out, and the page it restores holds zeros there), and each
/// tuple's hint bits in t_infomask (HEAP_XMIN_COMMITTED, HEAP_XMIN_INVALID,
/// HEAP_XMAX_COMMITTED, HEAP_XMAX_INVALID). Their tuples are the same, so are their rows.
/// False for other pages and for equal ones.
pub fn hints_only(a: &[u8], b: &[u8], endian: Endian) -> bool {
    use crate::am::kind::detect_kind;
    use crate::page::fields::{
        HEAP_XMAX_COMMITTED, HEAP_XMAX_INVALID, HEAP_XMIN_COMMITTED, HEAP_XMIN_INVALID,
    };
    use crate::page::kind::{Fork, PageKind};
    const HINTS: u16 =
        HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID | HEAP_XMAX_COMMITTED | HEAP_XMAX_INVALID;
    if a.len() != b.len()
        || a == b
        || detect_kind(a, endian, Fork::Main) != PageKind::Heap
        || detect_kind(b, endian, Fork::Main) != PageKind::Heap
    {
        return false;
    }
    let masked = |p: &[u8]| -> Vec<u8> {
        let mut m = p.to_vec();
        let lower = read_u16(p, 12, endian).map_or(0, usize::from);
        let upper = read_u16(p, 14, endian).map_or(0, usize::from);
        for range in [0..12, 20..24, lower..upper.max(lower)] {
            if let Some(x) = m.get_mut(range) {
                x.fill(0);
            }
        }
        for item in crate::tuple::heap_items(p, endian) {
            let at = item.off.saturating_add(20);
            if let Some(mask) = read_u16(&m, at, endian) {
                crate::page::geometry::write_u16(&mut m, at, endian, mask & !HINTS);
            }
        }
        m
    };
    masked(a) == masked(b)
}

/// A page that only one copy has (the other file ends before it).
pub fn only_in(block: u32, state: DiffState) -> PageDiff {
    PageDiff {
        block,
        state,
        newer: None,
        bytes_changed: 0,
        bits_set: 0,
        bits_cleared: 0,
        sectors: Vec::new(),
        ranges: Vec::new(),
        hints_only: false,
    }
}

/// Compares the whole pages of two chunks that start at the same block; pages past the end
/// of the shorter chunk are left to the caller (`only_in`). Returns the differing pages and
/// how many were equal.
pub fn compare_chunks(
    first_block: u32,
    a: &[u8],
    b: &[u8],
    page_len: usize,
    endian: Endian,
) -> (Vec<PageDiff>, u64) {
    let mut out = Vec::new();
    let mut equal = 0u64;
    if page_len == 0 {
        return (out, equal);
    }
    for (block, (pa, pb)) in
        (first_block..).zip(a.chunks_exact(page_len).zip(b.chunks_exact(page_len)))
    {
        match compare_pages(block, pa, pb, endian) {
            Some(d) => out.push(d),
            None => equal = equal.saturating_add(1),
        }
    }
    (out, equal)
}

/// One decoded field whose value differs between the copies.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FieldChange {
    /// The field's name in PostgreSQL's headers (`pd_lsn`, `lp 3`).
    pub field: String,
    pub a: String,
    pub b: String,
}

/// The page header fields and line pointers that differ, decoded (bufpage.h
/// PageHeaderData, itemid.h ItemIdData): what a DBA reads first in a diff. `version`: the
/// copies' release where known, which decides how pd_lsn prints.
pub fn field_changes(a: &[u8], b: &[u8], endian: Endian, version: Option<u32>) -> Vec<FieldChange> {
    let mut out = Vec::new();
    let mut push = |field: String, x: Option<String>, y: Option<String>| {
        if x != y {
            out.push(FieldChange {
                field,
                a: x.unwrap_or_else(|| String::from("-")),
                b: y.unwrap_or_else(|| String::from("-")),
            });
        }
    };
    push(
        String::from("pd_lsn"),
        page_lsn(a, endian).map(|l| lsn_text(version, l)),
        page_lsn(b, endian).map(|l| lsn_text(version, l)),
    );
    let u16_fields: [(&str, usize); 6] = [
        ("pd_checksum", 8),
        ("pd_flags", 10),
        ("pd_lower", 12),
        ("pd_upper", 14),
        ("pd_special", 16),
        ("pd_pagesize_version", 18),
    ];
    for (name, off) in u16_fields {
        let f = |p: &[u8]| read_u16(p, off, endian).map(|v| format!("{v}"));
        push(String::from(name), f(a), f(b));
    }
    let xid = |p: &[u8]| read_u32(p, 20, endian).map(|v| format!("{v}"));
    push(String::from("pd_prune_xid"), xid(a), xid(b));
    // Line pointers up to the larger pd_lower of the two, within the page.
    let lower = |p: &[u8]| usize::from(read_u16(p, 12, endian).unwrap_or(0));
    let end = lower(a).max(lower(b)).min(a.len().max(b.len()));
    let mut at = 24usize;
    let mut lp = 1u32;
    while at.saturating_add(4) <= end {
        let item = |p: &[u8]| {
            read_u32(p, at, endian).map(|w| {
                let (off, flags, len) = match endian {
                    Endian::Little => (w & 0x7FFF, (w >> 15) & 3, w >> 17),
                    Endian::Big => (w >> 17, (w >> 15) & 3, w & 0x7FFF),
                };
                format!("lp_off={off} lp_flags={flags} lp_len={len}")
            })
        };
        push(format!("lp {lp}"), item(a), item(b));
        at = at.saturating_add(4);
        lp = lp.saturating_add(1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hint_bits_pd_flags_and_prune_xid_alone_are_hints_only() {
        // A heap page with one tuple: header, one line pointer, the tuple at the end.
        let mut a = alloc::vec![0u8; 8192];
        a[12..14].copy_from_slice(&28u16.to_le_bytes());
        a[14..16].copy_from_slice(&8160u16.to_le_bytes());
        a[16..18].copy_from_slice(&8192u16.to_le_bytes());
        a[18..20].copy_from_slice(&(8192u16 | 4).to_le_bytes());
        let lp: u32 = 8160 | (1 << 15) | (32 << 17);
        a[24..28].copy_from_slice(&lp.to_le_bytes());
        a[8160] = 0x99; // xmin
        a[8160 + 18..8160 + 20].copy_from_slice(&1u16.to_le_bytes()); // natts
        a[8160 + 22] = 24; // t_hoff
        a[8160 + 24] = 7;
        let mut b = a.clone();
        b[8160 + 20..8160 + 22].copy_from_slice(&0x0900u16.to_le_bytes()); // committed, xmax invalid
        b[10] = 4; // PD_ALL_VISIBLE
        b[20] = 0x42; // pd_prune_xid
        b[8] = 0x55; // pd_checksum
        b[4] = 0x10; // pd_lsn, as FPI_FOR_HINT moves it
        assert!(hints_only(&a, &b, Endian::Little));
        assert!(compare_pages(0, &a, &b, Endian::Little).unwrap().hints_only);
        let mut c = b.clone();
        c[8160 + 24] = 8; // a value
        assert!(!hints_only(&a, &c, Endian::Little));
        let mut d = b.clone();
        d[8160 + 21] |= 0x20; // HEAP_UPDATED, not a hint
        assert!(!hints_only(&a, &d, Endian::Little));
        assert!(!hints_only(&a, &a, Endian::Little));
        // Stale bytes in the free space, which an image restores as zeros.
        let mut e = b.clone();
        e[4000] = 0x5a;
        assert!(hints_only(&a, &e, Endian::Little));
        let mut f = b.clone();
        f[26] = 0x5a; // the line pointer, below pd_lower
        assert!(!hints_only(&a, &f, Endian::Little));
    }

    #[test]
    fn counts_bits_ranges_and_sectors() {
        let a = alloc::vec![0u8; 8192];
        let mut b = a.clone();
        b[100] = 0b101; // two bits set
        b[101] = 0x01; // one bit set, same run
        b[5000] = 0xFF;
        let mut a2 = a.clone();
        a2[6000] = 0x0F; // four bits cleared in b
        b[0..8].copy_from_slice(&[0, 0, 0, 0, 0, 0, 0, 9]); // b newer (little-endian xrecoff)
        let d = compare_pages(7, &a2, &b, Endian::Little).unwrap();
        assert_eq!(d.block, 7);
        assert_eq!(d.bytes_changed, 5);
        assert_eq!(d.bits_set, 2 + 1 + 8 + 2);
        assert_eq!(d.bits_cleared, 4);
        assert_eq!(
            d.ranges,
            alloc::vec![[7, 1], [100, 2], [5000, 1], [6000, 1]]
        );
        assert_eq!(d.sectors, alloc::vec![0, 9, 11]);
        assert_eq!(d.newer, Some(Newer::B));
        assert!(compare_pages(0, &a, &a, Endian::Little).is_none());
    }

    #[test]
    fn header_and_line_pointer_changes_are_named() {
        let mut a = alloc::vec![0u8; 8192];
        a[12..14].copy_from_slice(&32u16.to_le_bytes());
        let mut b = a.clone();
        b[28..32].copy_from_slice(&(8000u32 | 1 << 15 | 40 << 17).to_le_bytes());
        b[14..16].copy_from_slice(&8000u16.to_le_bytes());
        let c = field_changes(&a, &b, Endian::Little, None);
        let names: Vec<&str> = c.iter().map(|f| f.field.as_str()).collect();
        assert_eq!(names, ["pd_upper", "lp 2"]);
        assert_eq!(c[1].b, "lp_off=8000 lp_flags=1 lp_len=40");
    }
}
