//! Page status as the server's PageIsVerified (bufpage.c) decides it when data checksums
//! are on, plus the misplaced-page hint. pg_checksums skips every pd_upper == 0 page; the
//! server only accepts such a page when it is all zeros, and so do we.

use serde::Serialize;

use crate::findings::Finding;
use crate::page::checksum::{checksum_fold, finish};
use crate::page::geometry::{maxalign, read_u16, Endian};

/// bufpage.h: PD_VALID_FLAG_BITS.
pub const PD_VALID_FLAG_BITS: u16 = 0x0007;

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PageStatus {
    /// Checksum matches and the header is sane.
    Ok,
    /// Stored checksum differs from the computed one.
    Mismatch,
    /// All-zero page: PageIsNew and all zeros, accepted by the server.
    Zero,
    /// pd_upper == 0 but not all zeros: the server rejects it, pg_checksums skips it.
    NewNotZero,
    /// Checksum matches but PageIsVerified's header sanity checks fail.
    BadHeader,
}

impl PageStatus {
    /// The contract's name (docs/contracts.md, "Page status").
    pub fn as_str(self) -> &'static str {
        match self {
            PageStatus::Ok => "ok",
            PageStatus::Mismatch => "mismatch",
            PageStatus::Zero => "zero",
            PageStatus::NewNotZero => "new_not_zero",
            PageStatus::BadHeader => "bad_header",
        }
    }

    /// Whether the server would refuse to read the page.
    pub fn is_problem(self) -> bool {
        !matches!(self, PageStatus::Ok | PageStatus::Zero)
    }

    /// A stable small code for typed-array transport (wasm): the declaration order.
    pub fn code(self) -> u8 {
        self as u8
    }

    pub fn from_code(code: u8) -> Option<PageStatus> {
        Some(match code {
            0 => PageStatus::Ok,
            1 => PageStatus::Mismatch,
            2 => PageStatus::Zero,
            3 => PageStatus::NewNotZero,
            4 => PageStatus::BadHeader,
            _ => return None,
        })
    }
}

/// What verification found about one page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageVerdict {
    pub status: PageStatus,
    /// pd_checksum as stored.
    pub stored: u16,
    /// pg_checksum_page for the page's relation-wide block; None for new pages, whose
    /// checksum the server never computes.
    pub computed: Option<u16>,
    /// pg_checksum_block's fold, to find which block the stored checksum belongs to.
    pub fold: u32,
}

/// Which of PageIsVerified's header rules a page breaks (bufpage.c PageIsVerifiedExtended:
/// valid flag bits, pd_lower <= pd_upper <= pd_special <= BLCKSZ, pd_special MAXALIGNed),
/// as a set of findings. The block size is the page's length.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HeaderCheck(u8);

impl HeaderCheck {
    /// The rules in the order PageIsVerified tests them; bit i of the set is rule i.
    const RULES: [Finding; 6] = [
        Finding::HeaderIncomplete,
        Finding::HeaderFlagsInvalid,
        Finding::HeaderLowerAboveUpper,
        Finding::HeaderUpperAboveSpecial,
        Finding::HeaderSpecialPastPage,
        Finding::HeaderSpecialNotAligned,
    ];

    /// Every rule holds: the server lets the page into the buffer pool.
    pub fn is_sane(self) -> bool {
        self.0 == 0
    }

    /// The rules the page breaks.
    pub fn findings(self) -> impl Iterator<Item = Finding> {
        Self::RULES
            .into_iter()
            .zip(0u32..)
            .filter(move |&(_, bit)| self.0 & (1u8 << bit) != 0)
            .map(|(f, _)| f)
    }

    /// The set as one byte, for compact storage (`from_bits` reads it back).
    pub fn bits(self) -> u8 {
        self.0
    }

    pub fn from_bits(bits: u8) -> HeaderCheck {
        HeaderCheck(bits & 0x3F)
    }

    fn with(self, finding: Finding, broken: bool) -> HeaderCheck {
        let bit = Self::RULES
            .iter()
            .position(|&f| f == finding)
            .map_or(0, |i| 1u8 << i);
        if broken {
            HeaderCheck(self.0 | bit)
        } else {
            self
        }
    }
}

/// PageIsVerified's header sanity rules a page breaks. A page too short for its header breaks
/// `HeaderIncomplete` and nothing else is tested.
pub fn header_check(page: &[u8], endian: Endian) -> HeaderCheck {
    let field = |off| read_u16(page, off, endian);
    let (Some(flags), Some(lower), Some(upper), Some(special)) =
        (field(10), field(12), field(14), field(16))
    else {
        return HeaderCheck::default().with(Finding::HeaderIncomplete, true);
    };
    let special = usize::from(special);
    HeaderCheck::default()
        .with(
            Finding::HeaderFlagsInvalid,
            flags & !PD_VALID_FLAG_BITS != 0,
        )
        .with(Finding::HeaderLowerAboveUpper, lower > upper)
        .with(
            Finding::HeaderUpperAboveSpecial,
            usize::from(upper) > special,
        )
        .with(Finding::HeaderSpecialPastPage, special > page.len())
        .with(
            Finding::HeaderSpecialNotAligned,
            special != maxalign(special),
        )
}

/// PageIsVerified's header sanity: `header_check` finds nothing.
pub fn header_is_sane(page: &[u8], endian: Endian) -> bool {
    header_check(page, endian).is_sane()
}

/// Decides one page's status. `blkno` is relation-wide (`segno * RELSEG_SIZE + block`).
pub fn verify_page(page: &[u8], blkno: u32, endian: Endian) -> PageVerdict {
    let stored = read_u16(page, 8, endian).unwrap_or(0);
    let upper = read_u16(page, 14, endian).unwrap_or(0);
    if upper == 0 {
        let status = if page.iter().all(|&b| b == 0) {
            PageStatus::Zero
        } else {
            PageStatus::NewNotZero
        };
        return PageVerdict {
            status,
            stored,
            computed: None,
            fold: 0,
        };
    }
    let fold = checksum_fold(page, endian);
    let computed = finish(fold, blkno);
    let status = if computed != stored {
        PageStatus::Mismatch
    } else if !header_is_sane(page, endian) {
        PageStatus::BadHeader
    } else {
        PageStatus::Ok
    };
    PageVerdict {
        status,
        stored,
        computed: Some(computed),
        fold,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::checksum::{blocks_matching, pg_checksum_page};

    fn page_with(lower: u16, upper: u16, special: u16) -> Vec<u8> {
        let mut p = vec![0u8; 8192];
        p[12..14].copy_from_slice(&lower.to_le_bytes());
        p[14..16].copy_from_slice(&upper.to_le_bytes());
        p[16..18].copy_from_slice(&special.to_le_bytes());
        p[18..20].copy_from_slice(&(8192u16 | 4).to_le_bytes());
        p
    }

    fn seal(p: &mut [u8], blkno: u32) {
        let c = pg_checksum_page(p, blkno, Endian::Little);
        p[8..10].copy_from_slice(&c.to_le_bytes());
    }

    #[test]
    fn statuses() {
        assert_eq!(
            verify_page(&[0u8; 8192], 3, Endian::Little).status,
            PageStatus::Zero
        );

        let mut p = page_with(24, 8192, 8192);
        seal(&mut p, 3);
        assert_eq!(verify_page(&p, 3, Endian::Little).status, PageStatus::Ok);
        let v = verify_page(&p, 4, Endian::Little);
        assert_eq!(v.status, PageStatus::Mismatch);
        // The fold and stored checksum of the verdict find the block the page was sealed for
        // (what `scan::FileScan` then weighs as a claim or a candidate).
        let found: Vec<u32> = blocks_matching(v.fold, v.stored, 0, 10).collect();
        assert_eq!(found, [3]);

        let mut bad = page_with(100, 50, 8192);
        seal(&mut bad, 0);
        assert_eq!(
            verify_page(&bad, 0, Endian::Little).status,
            PageStatus::BadHeader
        );

        let mut new = page_with(24, 0, 8192);
        seal(&mut new, 0);
        let v = verify_page(&new, 0, Endian::Little);
        assert_eq!((v.status, v.computed), (PageStatus::NewNotZero, None));
    }

    #[test]
    fn header_check_names_each_rule_page_is_verified_tests() {
        let check = |p: &[u8]| {
            header_check(p, Endian::Little)
                .findings()
                .collect::<Vec<_>>()
        };
        assert_eq!(check(&page_with(24, 8000, 8192)), []);
        assert_eq!(
            check(&page_with(9000, 8000, 8192)),
            [Finding::HeaderLowerAboveUpper]
        );
        assert_eq!(
            check(&page_with(24, 8190, 8184)),
            [Finding::HeaderUpperAboveSpecial]
        );
        assert_eq!(
            check(&page_with(24, 8000, 8200)),
            [Finding::HeaderSpecialPastPage]
        );
        assert_eq!(
            check(&page_with(24, 8000, 8180)),
            [Finding::HeaderSpecialNotAligned]
        );
        let mut flags = page_with(24, 8000, 8192);
        flags[10] = 0x08;
        assert_eq!(check(&flags), [Finding::HeaderFlagsInvalid]);
        // Every rule at once, in PageIsVerified's order.
        let mut all = page_with(9000, 8500, 8197);
        all[10] = 0xF0;
        assert_eq!(
            check(&all),
            [
                Finding::HeaderFlagsInvalid,
                Finding::HeaderLowerAboveUpper,
                Finding::HeaderUpperAboveSpecial,
                Finding::HeaderSpecialPastPage,
                Finding::HeaderSpecialNotAligned
            ]
        );
        assert_eq!(check(&[0u8; 17]), [Finding::HeaderIncomplete]);
        let bits = header_check(&all, Endian::Little).bits();
        assert_eq!(
            HeaderCheck::from_bits(bits),
            header_check(&all, Endian::Little)
        );
        assert!(header_is_sane(&page_with(24, 8000, 8192), Endian::Little));
    }

    #[test]
    fn short_input_does_not_panic() {
        for n in 0..40 {
            let _ = verify_page(&vec![0xFFu8; n], 0, Endian::Big);
        }
    }
}
