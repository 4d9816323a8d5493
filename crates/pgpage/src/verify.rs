//! Page status as the server's PageIsVerified (bufpage.c) decides it when data checksums
//! are on, plus the misplaced-page hint. pg_checksums skips every pd_upper == 0 page; the
//! server only accepts such a page when it is all zeros, and so do we.

use serde::Serialize;

use crate::checksum::{blocks_matching, checksum_fold, finish};
use crate::layout::{maxalign, read_u16, Endian};

/// bufpage.h: PD_VALID_FLAG_BITS.
pub const PD_VALID_FLAG_BITS: u16 = 0x0007;

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
    /// The contract's name (CONTRACTS.md: `status`).
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

/// PageIsVerified's header sanity: valid flag bits, pd_lower <= pd_upper <= pd_special <=
/// block size, pd_special MAXALIGNed. The block size is the page's length.
pub fn header_is_sane(page: &[u8], endian: Endian) -> bool {
    let field = |off| read_u16(page, off, endian);
    let (Some(flags), Some(lower), Some(upper), Some(special)) =
        (field(10), field(12), field(14), field(16))
    else {
        return false;
    };
    let special = usize::from(special);
    flags & !PD_VALID_FLAG_BITS == 0
        && lower <= upper
        && usize::from(upper) <= special
        && special <= page.len()
        && special == maxalign(special)
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

/// For a mismatched page: the block of the same file (numbered within the file) whose
/// checksum the page carries, the nearest to `own_block`. `file_first_block` is the
/// relation-wide number of the file's block 0 and `file_blocks` its length in blocks.
pub fn matches_block(
    verdict: &PageVerdict,
    own_block: u32,
    file_first_block: u32,
    file_blocks: u32,
) -> Option<u32> {
    if verdict.status != PageStatus::Mismatch {
        return None;
    }
    blocks_matching(verdict.fold, verdict.stored, file_first_block, file_blocks)
        .map(|abs| abs.wrapping_sub(file_first_block))
        .min_by_key(|&b| (b.abs_diff(own_block), b))
}

#[cfg(test)]
mod tests {
    // Tests may panic: a panic is how they fail.
    #![allow(
        clippy::indexing_slicing,
        clippy::arithmetic_side_effects,
        clippy::unwrap_used
    )]
    use super::*;
    use crate::checksum::pg_checksum_page;

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
        assert_eq!(matches_block(&v, 4, 0, 10), Some(3));

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
    fn short_input_does_not_panic() {
        for n in 0..40 {
            let _ = verify_page(&vec![0xFFu8; n], 0, Endian::Big);
        }
    }
}
