//! One header field set wrong: pd_lower, pd_upper or pd_special out of the range bufpage.c's
//! PageIsVerified accepts, on a page whose other header fields, line pointers and tuples are
//! its own. Which value the stored pd_checksum verifies with, from every value the field can
//! take; without a checksum, the value the line pointers imply, as a candidate only.

use alloc::vec::Vec;
use serde::Serialize;

use crate::page::bufpage::SIZE_OF_PAGE_HEADER_DATA;
use crate::page::checksum::scalar::lane_with_first;
use crate::page::checksum::{
    checksum_fold, finish, pg_checksum_page, PD_CHECKSUM_OFFSET, ROW_BYTES,
};
use crate::page::fields::{
    item_id_data, page_header_data, Field, LP_DEAD, LP_NORMAL, LP_REDIRECT, LP_UNUSED,
};
use crate::page::geometry::{maxalign, read_u16, read_u32, write_u16, Endian};
use crate::page::reader::Reader;
use crate::page::verify::{header_is_sane, PD_VALID_FLAG_BITS};

/// The header fields PageIsVerified bounds: pd_lower <= pd_upper <= pd_special <= BLCKSZ,
/// pd_special MAXALIGNed.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HeaderField {
    PdLower,
    PdUpper,
    PdSpecial,
}

impl HeaderField {
    /// In the order they are tried: pd_upper first, the field a page that reads as new lacks.
    pub const ALL: [HeaderField; 3] = [
        HeaderField::PdUpper,
        HeaderField::PdLower,
        HeaderField::PdSpecial,
    ];

    fn row(self) -> &'static Field {
        match self {
            HeaderField::PdLower => &page_header_data::PD_LOWER,
            HeaderField::PdUpper => &page_header_data::PD_UPPER,
            HeaderField::PdSpecial => &page_header_data::PD_SPECIAL,
        }
    }

    /// The member's name in bufpage.h.
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// Its byte offset in the page.
    pub fn offset(self) -> usize {
        usize::from(self.row().offset)
    }

    pub fn from_name(name: &str) -> Option<HeaderField> {
        HeaderField::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// The page's one wrong header field and the value to set it back to.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FieldFix {
    pub field: HeaderField,
    /// The value the page stores.
    pub stored: u16,
    /// The value to set: the one the stored checksum verifies with, else the line pointers'.
    pub value: u16,
    /// The stored pd_checksum verifies with `value`, and with no other value of the field
    /// that fits the page's line pointers, or with others too of which `value` alone is
    /// what the line pointers give (the others chance matches): the page with it is the
    /// page the server wrote.
    pub confirmed: bool,
    /// Every value that fits the line pointers and that the stored checksum verifies with
    /// (more than one: confirmed only where the line pointers give one of them).
    pub verifying: Vec<u16>,
    /// How many values were tried against the checksum: a chance match among them has odds
    /// of about `tried` in 65535.
    pub tried: u32,
    /// The value the line pointers imply: for pd_upper the lowest tuple (an upper bound, and
    /// what PostgreSQL leaves), for pd_lower the end of the last line pointer that reads as
    /// one, for pd_special the end of the highest tuple, MAXALIGNed.
    pub from_line_pointers: Option<u16>,
    /// pd_checksum is not 0. A page written with data checksums off stores 0 there, and then
    /// nothing confirms a value.
    pub has_checksum: bool,
    /// Line pointers in use (LP_NORMAL) on the page with the field set.
    pub items: u16,
    /// The stored pd_checksum is valid with the stored, wrong value: the page was
    /// checksummed after the field went wrong (software wrote it so, or the checksum was
    /// recomputed since), so the checksum confirms nothing and the line pointers' value is
    /// the candidate.
    pub checksummed_wrong: bool,
}

impl FieldFix {
    /// The page with the field set to `value`; its checksum is left as stored.
    pub fn apply(&self, page: &[u8], endian: Endian) -> Vec<u8> {
        with_field(page, self.field, self.value, endian)
    }
}

/// `page` with `field` set to `value` in `endian`, nothing else changed.
pub fn with_field(page: &[u8], field: HeaderField, value: u16, endian: Endian) -> Vec<u8> {
    let mut out = Vec::from(page);
    write_u16(&mut out, field.offset(), endian, value);
    out
}

/// The header fields as read: (pd_lower, pd_upper, pd_special).
fn bounds(page: &[u8], endian: Endian) -> Option<(u16, u16, u16)> {
    Some((
        read_u16(page, HeaderField::PdLower.offset(), endian)?,
        read_u16(page, HeaderField::PdUpper.offset(), endian)?,
        read_u16(page, HeaderField::PdSpecial.offset(), endian)?,
    ))
}

/// One line pointer: (lp_off, lp_flags, lp_len), read through the field table, which
/// knows the bit order of each byte order.
fn item_id(page: &[u8], endian: Endian, lp: usize) -> Option<(u16, u8, u16)> {
    let base = SIZE_OF_PAGE_HEADER_DATA.checked_add(lp.checked_sub(1)?.checked_mul(4)?)?;
    let r = Reader { b: page, e: endian };
    let get = |f| r.field(base, f).and_then(|v| u16::try_from(v).ok());
    Some((
        get(&item_id_data::LP_OFF)?,
        u8::try_from(r.field(base, &item_id_data::LP_FLAGS)?).ok()?,
        get(&item_id_data::LP_LEN)?,
    ))
}

/// A line pointer as PostgreSQL leaves one, on a page whose header says `upper`, `special`
/// and `count` line pointers: an unused one all zeros, a redirect to one of the others, a
/// tuple (or an index's dead entry) between pd_upper and pd_special.
fn plausible((off, flags, len): (u16, u8, u16), upper: u16, special: u16, count: usize) -> bool {
    let storage = || {
        len > 0
            && off >= upper
            && u32::from(off).saturating_add(u32::from(len)) <= u32::from(special)
    };
    match flags {
        LP_UNUSED => off == 0 && len == 0,
        LP_NORMAL => storage(),
        LP_REDIRECT => len == 0 && off >= 1 && usize::from(off) <= count,
        LP_DEAD => (len == 0 && off == 0) || storage(),
        _ => false,
    }
}

/// The line pointers of a page whose header is as PostgreSQL leaves it: each plausible, and
/// pd_lower at their end. Returns the count of those in use (LP_NORMAL).
fn coherent(page: &[u8], endian: Endian) -> Option<u16> {
    let (lower, upper, special) = bounds(page, endian)?;
    if upper == 0 || !header_is_sane(page, endian) {
        return None;
    }
    let lps = usize::from(lower).checked_sub(SIZE_OF_PAGE_HEADER_DATA)?;
    if !lps.is_multiple_of(4) {
        return None;
    }
    let count = lps / 4;
    let mut used: u16 = 0;
    for lp in 1..=count {
        let id = item_id(page, endian, lp)?;
        if !plausible(id, upper, special, count) {
            return None;
        }
        if id.1 == LP_NORMAL {
            used = used.saturating_add(1);
        }
    }
    Some(used)
}

/// The values of `field` that make the header pass PageIsVerified, the other fields as
/// stored; empty when the others break it whatever the field holds. pd_upper and pd_special
/// are MAXALIGNed wherever PostgreSQL sets them (PageInit, PageAddItem), pd_lower is the end
/// of 4-byte line pointers.
fn range(field: HeaderField, page: &[u8], endian: Endian) -> Vec<u16> {
    let Some((lower, upper, special)) = bounds(page, endian) else {
        return Vec::new();
    };
    let len = page.len();
    let (lower, upper, special) = (usize::from(lower), usize::from(upper), usize::from(special));
    let special_ok = special <= len && special == maxalign(special);
    let (from, to, step) = match field {
        HeaderField::PdUpper if special_ok && lower <= special => {
            (maxalign(lower.max(1)), special, 8)
        }
        HeaderField::PdLower if special_ok && upper != 0 && upper <= special => {
            (SIZE_OF_PAGE_HEADER_DATA, upper, 4)
        }
        HeaderField::PdSpecial if upper != 0 && lower <= upper => (maxalign(upper), len, 8),
        _ => return Vec::new(),
    };
    (from..=to)
        .step_by(step)
        .filter_map(|v| u16::try_from(v).ok())
        .collect()
}

/// The value of `field` the page's line pointers imply (see [`FieldFix::from_line_pointers`]).
fn implied(field: HeaderField, page: &[u8], endian: Endian) -> Option<u16> {
    let (lower, upper, special) = bounds(page, endian)?;
    let count = usize::from(lower).saturating_sub(SIZE_OF_PAGE_HEADER_DATA) / 4;
    let items = || {
        (1..=count)
            .filter_map(|lp| item_id(page, endian, lp))
            .filter(|&(_, flags, len)| matches!(flags, LP_NORMAL | LP_DEAD) && len > 0)
            .map(|(off, _, len)| (off, len))
    };
    match field {
        HeaderField::PdUpper => Some(items().map(|(off, _)| off).min().unwrap_or(special)),
        HeaderField::PdSpecial => {
            let end = items()
                .map(|(off, len)| usize::from(off).saturating_add(usize::from(len)))
                .max()?;
            u16::try_from(maxalign(end)).ok()
        }
        HeaderField::PdLower => {
            // The array's end: the last entry that reads as a line pointer before one that
            // does not (free space is zeros, which read as unused ones, so those count not).
            let fits = usize::from(upper).saturating_sub(SIZE_OF_PAGE_HEADER_DATA) / 4;
            let mut last = 0usize;
            for lp in 1..=fits {
                let id = item_id(page, endian, lp)?;
                if !plausible(id, upper, special, fits) {
                    break;
                }
                if id != (0, LP_UNUSED, 0) {
                    last = lp;
                }
            }
            u16::try_from(SIZE_OF_PAGE_HEADER_DATA.saturating_add(last.saturating_mul(4))).ok()
        }
    }
}

/// The checksums of the page with `field` set to each of `values`, for block `blkno`: one
/// lane recomputed per value (`lane_with_first`), the other 31 lanes' fold kept.
fn checksums_with<'a>(
    page: &'a [u8],
    blkno: u32,
    endian: Endian,
    field: HeaderField,
    values: &'a [u16],
) -> impl Iterator<Item = (u16, u16)> + 'a {
    let lane = field.offset() / 4;
    let word_at = lane.saturating_mul(4);
    let word = move |v: Option<u16>| {
        let mut w: [u8; 4] = page
            .get(word_at..word_at.saturating_add(4))
            .and_then(|s| s.try_into().ok())
            .unwrap_or_default();
        if let Some(v) = v {
            write_u16(&mut w, field.offset().saturating_sub(word_at), endian, v);
        }
        read_u32(&w, 0, endian).unwrap_or(0)
    };
    let rest = checksum_fold(page, endian) ^ lane_with_first(page, endian, lane, word(None));
    values.iter().map(move |&v| {
        let fold = rest ^ lane_with_first(page, endian, lane, word(Some(v)));
        (v, finish(fold, blkno))
    })
}

/// The page's one wrong header field, when its header breaks PageIsVerified's rules (or
/// pd_upper is 0 on a page that is not all zeros, which the server takes for a new page),
/// its pd_flags and pd_pagesize_version are as PostgreSQL writes them, and exactly one of
/// pd_lower, pd_upper and pd_special, set to some value, gives a header that passes with
/// line pointers that read as PostgreSQL leaves them. None otherwise: a page whose stored
/// checksum verifies as it is (the checksum vouches for that header), or whose header is
/// more than one field away from one PostgreSQL writes (noise, another file's bytes).
pub fn one_field(page: &[u8], blkno: u32, endian: Endian) -> Option<FieldFix> {
    search(page, blkno, endian, false)
}

/// The page's one wrong header field where its header still passes PageIsVerified's rules
/// but its checksum fails: a field set to another value in range. Only a value the stored
/// checksum verifies with that is also the one the line pointers give counts: among the
/// thousands of values a field can take in range, a chance match of the checksum alone is
/// likely enough (about one in twenty pages) to be no evidence. A value one bit away from the
/// stored one is left to the search for flipped bits, which names the byte and the bit.
pub fn one_field_in_range(page: &[u8], blkno: u32, endian: Endian) -> Option<FieldFix> {
    if !header_is_sane(page, endian) {
        return None;
    }
    search(page, blkno, endian, true).filter(|f| {
        f.has_checksum
            && f.confirmed
            && f.value != f.stored
            && f.from_line_pointers == Some(f.value)
            && (f.value ^ f.stored).count_ones() != 1
    })
}

fn search(page: &[u8], blkno: u32, endian: Endian, in_range: bool) -> Option<FieldFix> {
    let len = page.len();
    if len < SIZE_OF_PAGE_HEADER_DATA
        || !len.is_multiple_of(ROW_BYTES)
        || page.iter().all(|&b| b == 0)
    {
        return None;
    }
    let (_, upper, _) = bounds(page, endian)?;
    if upper != 0 && header_is_sane(page, endian) && !in_range {
        return None;
    }
    let flags = read_u16(page, 10, endian)?;
    let size_version = read_u16(page, 18, endian)?;
    if flags & !PD_VALID_FLAG_BITS != 0
        || usize::from(size_version & 0xFF00) != len
        || size_version & 0x00FF != 4
    {
        return None;
    }
    let stored_sum = read_u16(page, PD_CHECKSUM_OFFSET, endian)?;
    let has_checksum = stored_sum != 0;
    // A checksum valid over the wrong field vouches for the page as it is: no other value
    // verifies with it, and only the line pointers can name the field's.
    let checksummed_wrong = has_checksum && pg_checksum_page(page, blkno, endian) == stored_sum;
    if checksummed_wrong && in_range {
        return None;
    }
    let mut fixes: Vec<FieldFix> = Vec::new();
    for field in HeaderField::ALL {
        let values = range(field, page, endian);
        if values.is_empty() {
            continue;
        }
        let stored = read_u16(page, field.offset(), endian)?;
        let fits = |v: u16| coherent(&with_field(page, field, v, endian), endian);
        let verifying: Vec<u16> = if has_checksum && !checksummed_wrong {
            checksums_with(page, blkno, endian, field, &values)
                .filter(|&(_, sum)| sum == stored_sum)
                .map(|(v, _)| v)
                .filter(|&v| fits(v).is_some())
                .collect()
        } else {
            Vec::new()
        };
        let from_line_pointers = implied(field, page, endian).filter(|v| values.contains(v));
        // Of several values the checksum verifies with, the one the line pointers give is the
        // field's: another matching it too is a chance the odds of `tried` make rare.
        let agreed: Vec<u16> = verifying
            .iter()
            .copied()
            .filter(|v| Some(*v) == from_line_pointers)
            .collect();
        let (value, confirmed) = match (verifying.as_slice(), agreed.as_slice()) {
            ([one], _) | (_, [one]) => (Some(*one), true),
            _ => (
                from_line_pointers
                    .filter(|&v| fits(v).is_some())
                    .or_else(|| verifying.first().copied()),
                false,
            ),
        };
        let Some(value) = value else { continue };
        let Some(items) = fits(value) else { continue };
        fixes.push(FieldFix {
            field,
            stored,
            value,
            confirmed,
            tried: if has_checksum && !checksummed_wrong {
                u32::try_from(values.len()).unwrap_or(u32::MAX)
            } else {
                0
            },
            verifying,
            from_line_pointers,
            has_checksum,
            items,
            checksummed_wrong,
        });
    }
    // The checksum names the field; without it, only a field no other one could stand for.
    let confirmed: Vec<&FieldFix> = fixes.iter().filter(|f| f.confirmed).collect();
    match (confirmed.as_slice(), fixes.as_slice()) {
        ([one], _) => Some((*one).clone()),
        ([], [one]) => Some(one.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const BLOCK: u32 = 80;

    /// A heap page as PostgreSQL leaves one: `n` tuples of 60 bytes from the page's end down,
    /// line pointers to them, pd_upper at the lowest, its checksum set for BLOCK.
    fn heap_page(n: u16) -> Vec<u8> {
        let mut p = vec![0u8; 8192];
        let mut upper = 8192u16;
        for lp in 1..=n {
            upper -= 64;
            let word = u32::from(upper) | (u32::from(LP_NORMAL) << 15) | (60u32 << 17);
            let at = 24 + usize::from(lp - 1) * 4;
            p[at..at + 4].copy_from_slice(&word.to_le_bytes());
            // Bytes that are no zeros, so that the page is not new.
            p[usize::from(upper)..usize::from(upper) + 60].fill(0x5A ^ lp as u8);
        }
        p[12..14].copy_from_slice(&(24 + 4 * n).to_le_bytes());
        p[14..16].copy_from_slice(&upper.to_le_bytes());
        p[16..18].copy_from_slice(&8192u16.to_le_bytes());
        p[18..20].copy_from_slice(&(8192u16 | 4).to_le_bytes());
        let sum = pg_checksum_page(&p, BLOCK, Endian::Little);
        p[8..10].copy_from_slice(&sum.to_le_bytes());
        p
    }

    fn set(p: &[u8], field: HeaderField, v: u16) -> Vec<u8> {
        with_field(p, field, v, Endian::Little)
    }

    #[test]
    fn the_checksum_names_the_field_and_its_value() {
        let good = heap_page(52);
        let upper = 8192 - 52 * 64;
        for (field, bad, value) in [
            (HeaderField::PdUpper, 0, upper),
            (HeaderField::PdUpper, 9000, upper),
            (HeaderField::PdLower, 9000, 24 + 4 * 52),
            (HeaderField::PdSpecial, 0, 8192),
            (HeaderField::PdSpecial, 8190, 8192),
        ] {
            let fix = one_field(&set(&good, field, bad), BLOCK, Endian::Little)
                .unwrap_or_else(|| panic!("{} = {bad}", field.name()));
            assert_eq!(
                (fix.field, fix.stored, fix.value, fix.confirmed, fix.items),
                (field, bad, value, true, 52),
                "{fix:?}"
            );
            assert_eq!(fix.verifying, [value]);
            assert_eq!(fix.apply(&set(&good, field, bad), Endian::Little), good);
        }
        // The line pointers say the same where they can.
        let fix = one_field(&set(&good, HeaderField::PdUpper, 0), BLOCK, Endian::Little);
        assert_eq!(fix.and_then(|f| f.from_line_pointers), Some(upper));
    }

    #[test]
    fn a_chance_match_beside_the_value_the_line_pointers_give_is_named_and_ruled_out() {
        // Pages that differ in pd_prune_xid only, until one whose stored checksum verifies
        // with a second value of pd_upper that fits its line pointers (about 1 in 65535 / 1000
        // values): the line pointers' value is still the field's.
        let good = heap_page(20);
        let upper = 8192 - 20 * 64;
        let found = (1u32..20_000).find_map(|xid| {
            let mut p = good.clone();
            p[20..24].copy_from_slice(&xid.to_le_bytes());
            let sum = pg_checksum_page(&p, BLOCK, Endian::Little);
            p[8..10].copy_from_slice(&sum.to_le_bytes());
            let fix = one_field(&set(&p, HeaderField::PdUpper, 0), BLOCK, Endian::Little)?;
            (fix.verifying.len() > 1).then_some(fix)
        });
        let fix = found.expect("a page with a chance match among 20000");
        assert!(fix.confirmed && fix.value == upper, "{fix:?}");
        assert!(fix.verifying.contains(&upper));
    }

    #[test]
    fn without_a_checksum_the_line_pointers_give_a_candidate() {
        let mut good = heap_page(7);
        good[8..10].fill(0);
        let fix = one_field(&set(&good, HeaderField::PdUpper, 0), BLOCK, Endian::Little)
            .expect("a candidate");
        assert_eq!(
            (fix.value, fix.confirmed, fix.has_checksum, fix.tried),
            (8192 - 7 * 64, false, false, 0)
        );
        let fix = one_field(
            &set(&good, HeaderField::PdLower, 9000),
            BLOCK,
            Endian::Little,
        )
        .expect("a candidate");
        assert_eq!((fix.value, fix.confirmed), (24 + 4 * 7, false));
    }

    #[test]
    fn a_page_that_is_no_one_field_away_is_left_alone() {
        let good = heap_page(10);
        // A sane header, even with a wrong checksum, is another class's.
        let mut flipped = good.clone();
        flipped[8000] ^= 1;
        assert_eq!(one_field(&flipped, BLOCK, Endian::Little), None);
        // The checksum computed over the bad header confirms no value: the line pointers'
        // is a candidate, said to be one.
        let mut vouched = set(&good, HeaderField::PdLower, 16383);
        let sum = pg_checksum_page(&vouched, BLOCK, Endian::Little);
        vouched[8..10].copy_from_slice(&sum.to_le_bytes());
        let fix = one_field(&vouched, BLOCK, Endian::Little).unwrap();
        assert_eq!(
            (
                fix.field,
                fix.value,
                fix.confirmed,
                fix.checksummed_wrong,
                fix.verifying.len()
            ),
            (HeaderField::PdLower, 24 + 4 * 10, false, true, 0)
        );
        assert_eq!(one_field_in_range(&vouched, BLOCK, Endian::Little), None);
        // Two fields wrong: no one value makes the header pass.
        let two = set(
            &set(&good, HeaderField::PdUpper, 0),
            HeaderField::PdSpecial,
            3,
        );
        assert_eq!(one_field(&two, BLOCK, Endian::Little), None);
        // Noise where the header is.
        let mut noise = good.clone();
        for (i, b) in noise.iter_mut().enumerate().take(400) {
            *b = (i as u8).wrapping_mul(151).wrapping_add(17);
        }
        assert_eq!(one_field(&noise, BLOCK, Endian::Little), None);
        assert_eq!(one_field(&[0u8; 8192], BLOCK, Endian::Little), None);
        for n in 0..300 {
            let _ = one_field(&vec![0xFF; n], BLOCK, Endian::Big);
        }
    }

    #[test]
    fn big_endian_pages_too() {
        // An empty big-endian page (no line pointers: their bit order does not matter).
        let mut p = vec![0u8; 8192];
        p[12..14].copy_from_slice(&24u16.to_be_bytes());
        p[14..16].copy_from_slice(&8176u16.to_be_bytes());
        p[16..18].copy_from_slice(&8176u16.to_be_bytes());
        p[18..20].copy_from_slice(&(8192u16 | 4).to_be_bytes());
        p[8180] = 0x7F;
        let sum = pg_checksum_page(&p, BLOCK, Endian::Big);
        p[8..10].copy_from_slice(&sum.to_be_bytes());
        let bad = with_field(&p, HeaderField::PdUpper, 0, Endian::Big);
        let fix = one_field(&bad, BLOCK, Endian::Big).expect("found");
        assert_eq!((fix.value, fix.confirmed, fix.items), (8176, true, 0));
    }

    proptest! {
        /// One lane recomputed gives pg_checksum_page of the page with the field set.
        #[test]
        fn the_lane_search_is_the_checksum(v in any::<u16>(), which in 0usize..3, big in any::<bool>()) {
            let endian = if big { Endian::Big } else { Endian::Little };
            let page = heap_page(20);
            let field = HeaderField::ALL[which];
            let (_, sum) = checksums_with(&page, 7, endian, field, &[v]).next().unwrap();
            prop_assert_eq!(sum, pg_checksum_page(&with_field(&page, field, v, endian), 7, endian));
        }
    }
}
