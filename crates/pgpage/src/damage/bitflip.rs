//! Single-bit-flip localisation: on a checksum mismatch, every bit of the page whose flip
//! makes the stored pd_checksum valid, ranked by whether the page is structurally sound after
//! the flip, with the odds that a candidate is chance.
//!
//! A bit of word j of a row only enters lane j of pg_checksum_block, so a flip is judged by
//! recomputing that one lane from the flipped row on, the other 31 lanes' results kept; all
//! flips of a lane run side by side (independent values the compiler vectorises).

use alloc::vec::Vec;
use serde::Serialize;

use crate::am::decode_page;
use crate::am::decoded::{DecodeOptions, DecodedPage};
use crate::file::scan::Chance;
use crate::findings::{Evidence, Finding};
use crate::page::checksum::{
    finish, pd_checksum_mask, BASE_OFFSETS, FNV_PRIME, N_SUMS, PD_CHECKSUM_OFFSET, ROW_BYTES,
};
use crate::page::geometry::{read_u16, Endian};
use crate::page::verify::{verify_page, PageStatus};

#[inline(always)]
fn comp(sum: u32, value: u32) -> u32 {
    let tmp = sum ^ value;
    tmp.wrapping_mul(FNV_PRIME) ^ (tmp >> 17)
}

/// One bit of the page: byte `offset` within the page, `bit` 0 (least significant) to 7.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct PageBit {
    pub offset: u32,
    pub bit: u8,
}

impl PageBit {
    /// The page with this bit flipped (a copy; the page given is never changed).
    pub fn apply(self, page: &[u8]) -> Vec<u8> {
        let mut out = Vec::from(page);
        if let Some(b) = usize::try_from(self.offset)
            .ok()
            .and_then(|o| out.get_mut(o))
        {
            *b ^= 1u8 << (self.bit & 7);
        }
        out
    }
}

/// The byte and bit of bit `b` (0 = least significant) of the word at byte `word_at`, as the
/// checksum reads that word in `endian`.
fn word_bit(word_at: usize, b: u32, endian: Endian) -> PageBit {
    let byte_in_word = match endian {
        Endian::Little => b / 8,
        Endian::Big => 3u32.saturating_sub(b / 8),
    };
    PageBit {
        offset: u32::try_from(word_at)
            .unwrap_or(u32::MAX)
            .saturating_add(byte_in_word),
        bit: (b % 8) as u8,
    }
}

/// One lane's final value (after the two rounds of zeros) for each flip of each of its
/// words: `live[32 * r + b]` for bit b of the word in row r. Row by row, every flip started
/// so far takes the next word in one pass over a contiguous array, which vectorises.
#[inline(always)]
fn lane_search(col: &[u32], base: u32, live: &mut Vec<u32>) {
    live.clear();
    let mut s = base;
    for &w in col {
        for v in live.iter_mut() {
            *v = comp(*v, w);
        }
        live.extend((0..32u32).map(|b| comp(s, w ^ (1u32 << b))));
        s = comp(s, w);
    }
    for v in live.iter_mut() {
        *v = comp(comp(*v, 0), 0);
    }
}

/// `lane_search` with AVX2's 8-wide multiply when the CPU has it (the CLI's build targets
/// plain x86-64, whose SSE2 has no 32-bit vector multiply).
fn lane_finals(col: &[u32], base: u32, live: &mut Vec<u32>) {
    #[cfg(target_arch = "x86_64")]
    if crate::page::checksum::x86::has_avx2() {
        // SAFETY: the CPU has AVX2, checked just above.
        unsafe { lane_search_avx2(col, base, live) };
        return;
    }
    lane_search(col, base, live);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn lane_search_avx2(col: &[u32], base: u32, live: &mut Vec<u32>) {
    lane_search(col, base, live);
}

/// Every bit whose flip makes `page`'s stored pd_checksum equal pg_checksum_page(flipped,
/// `blkno`), in page order: bits of pd_checksum itself (the stored value changes, the
/// computed one stays) and bits elsewhere (the computed one changes). Empty when the page is
/// not a whole number of checksum rows or has no header; on a page whose checksum already
/// matches, flips of it never match again, so it is empty too.
pub fn checksum_candidates(page: &[u8], blkno: u32, endian: Endian) -> Vec<PageBit> {
    let mut found = Vec::new();
    let Some(stored) = read_u16(page, PD_CHECKSUM_OFFSET, endian) else {
        return found;
    };
    if !page.len().is_multiple_of(ROW_BYTES) {
        return found;
    }
    let rows = page.len() / ROW_BYTES;
    let word = |r: usize, j: usize| -> u32 {
        let at = r
            .saturating_mul(ROW_BYTES)
            .saturating_add(j.saturating_mul(4));
        let mut w = [0u8; 4];
        if let Some(src) = page.get(at..at.saturating_add(4)) {
            w.copy_from_slice(src);
        }
        let v = match endian {
            Endian::Little => u32::from_le_bytes(w),
            Endian::Big => u32::from_be_bytes(w),
        };
        if r == 0 && j == 2 {
            v & pd_checksum_mask(endian)
        } else {
            v
        }
    };
    // Lane words column by column.
    let mut columns: Vec<u32> = Vec::with_capacity(page.len() / 4);
    let mut finals = [0u32; N_SUMS];
    for (j, (&base, fin)) in BASE_OFFSETS.iter().zip(finals.iter_mut()).enumerate() {
        let mut s = base;
        for r in 0..rows {
            let w = word(r, j);
            columns.push(w);
            s = comp(s, w);
        }
        *fin = comp(comp(s, 0), 0);
    }
    let fold = finals.iter().fold(0u32, |a, &f| a ^ f);
    let computed = finish(fold, blkno);

    let mut live = Vec::with_capacity(rows.saturating_mul(32));
    let lanes = columns.chunks_exact(rows.max(1));
    for (j, ((col, fin), &base)) in lanes.zip(&finals).zip(&BASE_OFFSETS).enumerate() {
        lane_finals(col, base, &mut live);
        let others = fold ^ fin;
        for (i, &v) in live.iter().enumerate() {
            let (r, b) = (i / 32, (i % 32) as u32);
            // pd_checksum's own bits are masked out of the word: handled below.
            if r == 0 && j == 2 && pd_checksum_mask(endian) & (1u32 << b) == 0 {
                continue;
            }
            if finish(others ^ v, blkno) == stored {
                let at = r
                    .saturating_mul(ROW_BYTES)
                    .saturating_add(j.saturating_mul(4));
                found.push(word_bit(at, b, endian));
            }
        }
    }
    for k in 0u32..16 {
        if stored ^ (1u16 << k) == computed {
            let byte = match endian {
                Endian::Little => k / 8,
                Endian::Big => 1u32.saturating_sub(k / 8),
            };
            found.push(PageBit {
                offset: (PD_CHECKSUM_OFFSET as u32).saturating_add(byte),
                bit: (k % 8) as u8,
            });
        }
    }
    found.sort_unstable();
    found
}

/// One candidate flip and what the page looks like after it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FlipCandidate {
    pub offset: u32,
    pub bit: u8,
    /// The byte as stored and as it would be after the flip.
    pub byte: u8,
    pub flipped: u8,
    /// The field the byte belongs to (`PageHeaderData.pd_lower`, `HeapTupleHeaderData.t_infomask`,
    /// a region's name), as the decoder lays out the flipped page.
    pub field: alloc::string::String,
    /// After the flip the server accepts the page (checksum and PageIsVerified's header
    /// rules) and the decoder finds no structural problem.
    pub structurally_valid: bool,
    /// What the decoder still finds wrong on the flipped page (PageIsVerified's header rules
    /// and the decoder's structural findings), by code.
    pub findings: Vec<Finding>,
}

/// The result of localising one page.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BitFlips {
    /// What each candidate is: `ChecksumBitFlipCandidate` (Evidence::Candidate).
    pub finding: Finding,
    /// Bits tried: every bit of the page.
    pub searched: u32,
    /// Structural findings on the page as it is, for comparison with each candidate's.
    pub findings_before: Vec<Finding>,
    /// Structurally valid candidates first, then by fewer findings, then page order.
    pub candidates: Vec<FlipCandidate>,
    /// The odds: each flip gives a checksum that is about uniform over 1..=65535, so
    /// `searched` / 65535 (about one per 8 kB page) chance matches are expected.
    pub chance: Chance,
}

/// The findings that say a page is structurally unsound: PageIsVerified's header rules and
/// the decoder's flagged structures and page-wide findings (of `decoded`, the page decoded),
/// notes left out.
pub(crate) fn structural_findings(
    page: &[u8],
    decoded: &DecodedPage,
    endian: Endian,
) -> Vec<Finding> {
    let mut out: Vec<Finding> = crate::page::verify::header_check(page, endian)
        .findings()
        .collect();
    out.extend(decoded.problems().filter_map(|s| s.problem));
    out.extend(decoded.findings.iter().copied());
    out.retain(|f| f.evidence() != Evidence::Note);
    out.sort_unstable_by_key(|f| *f as u16);
    out.dedup();
    out
}

/// Localises a single-bit flip on `page` (relation-wide block `blkno`): every candidate of
/// [`checksum_candidates`], each judged by the structure of the page it would give. A page
/// whose checksum matches, or a new page the server never checksums, has no candidates.
pub fn localise(page: &[u8], blkno: u32, opts: &DecodeOptions) -> BitFlips {
    let searched = u32::try_from(page.len().saturating_mul(8)).unwrap_or(u32::MAX);
    let findings_before = structural_findings(page, &decode_page(page, blkno, opts), opts.endian);
    let verdict = verify_page(page, blkno, opts.endian);
    let bits = if verdict.status == PageStatus::Mismatch {
        checksum_candidates(page, blkno, opts.endian)
    } else {
        Vec::new()
    };
    let mut candidates = Vec::new();
    for pb in bits {
        let flipped = pb.apply(page);
        // A flip that clears pd_upper makes a new page, which the server never checksums
        // and rejects when it is not all zeros: no repair.
        let status = verify_page(&flipped, blkno, opts.endian).status;
        if matches!(status, PageStatus::Zero | PageStatus::NewNotZero) {
            continue;
        }
        let decoded = decode_page(&flipped, blkno, opts);
        let findings = structural_findings(&flipped, &decoded, opts.endian);
        let field = decoded
            .spans
            .iter()
            .find(|s| s.start <= pb.offset && pb.offset < s.end)
            // A tuple's data is no member of its header struct: pageinspect's column
            // name (t_data, data) says where the byte is.
            .map(|s| match s.field.field() {
                Some(f) if f.role == crate::page::fields::Role::TupleData => {
                    f.column.unwrap_or(f.name).into()
                }
                _ => s.field.qualified(),
            })
            .unwrap_or_default();
        let byte = usize::try_from(pb.offset)
            .ok()
            .and_then(|o| page.get(o))
            .copied()
            .unwrap_or(0);
        candidates.push(FlipCandidate {
            offset: pb.offset,
            bit: pb.bit,
            byte,
            flipped: byte ^ (1u8 << (pb.bit & 7)),
            field,
            structurally_valid: status == PageStatus::Ok && findings.is_empty(),
            findings,
        });
    }
    candidates.sort_by_key(|c| (!c.structurally_valid, c.findings.len(), c.offset, c.bit));
    let matches = u32::try_from(candidates.len()).unwrap_or(u32::MAX);
    BitFlips {
        finding: Finding::ChecksumBitFlipCandidate,
        searched,
        findings_before,
        candidates,
        chance: Chance::of(searched, matches),
    }
}

/// The honest odds in words, for the CLI and the browser.
pub fn odds_sentence(flips: &BitFlips) -> alloc::string::String {
    alloc::format!(
        "{} of {} single-bit flips make the stored checksum valid; about {:.2} such matches are expected by chance on any page (probability of at least one {:.0}%), so a candidate is evidence, not proof",
        flips.candidates.len(),
        flips.searched,
        flips.chance.expected,
        flips.chance.probability * 100.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::checksum::{pg_checksum_page, scalar};

    fn random_page(seed: u64, len: usize) -> Vec<u8> {
        let mut x = seed | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    /// Every candidate the lane shortcut finds is a flip the whole checksum accepts, and a
    /// brute-force sweep of all 65,536 flips finds no other, in both byte orders.
    #[test]
    fn candidates_equal_brute_force() {
        for (seed, endian) in [
            (3u64, Endian::Little),
            (11, Endian::Big),
            (29, Endian::Little),
        ] {
            let page = random_page(seed, 8192);
            let blkno = seed as u32 * 7;
            let fast = checksum_candidates(&page, blkno, endian);
            let stored = read_u16(&page, 8, endian).unwrap();
            let mut slow = Vec::new();
            for offset in 0..8192u32 {
                for bit in 0..8u8 {
                    let pb = PageBit { offset, bit };
                    let p = pb.apply(&page);
                    let now = read_u16(&p, 8, endian).unwrap();
                    if finish(scalar::checksum_fold(&p, endian), blkno) == now && now == stored
                        || (8..10).contains(&offset) && pg_checksum_page(&p, blkno, endian) == now
                    {
                        slow.push(pb);
                    }
                }
            }
            assert_eq!(fast, slow, "seed {seed}");
        }
    }

    #[test]
    fn short_and_odd_pages_give_nothing() {
        assert!(checksum_candidates(&[0u8; 10], 0, Endian::Little).is_empty());
        assert!(checksum_candidates(&[1u8; 8190], 0, Endian::Little).is_empty());
    }
}
