//! How the server prints an LSN: pg_lsn's output, page_header()'s lsn, pg_waldump,
//! pg_controldata, pg_walinspect and its messages. Every LSN pgpage prints goes through here.

use alloc::format;
use alloc::string::String;

/// An LSN as the server of release `version` prints it: 19 zero-pads the low half
/// (xlogdefs.h: `"%X/%08X"` with LSN_FORMAT_ARGS, in pg_lsn_out and every message), 13 to 18
/// print `%X/%X`.
pub fn lsn_text_for(version: u32, lsn: u64) -> String {
    let (hi, lo) = (lsn >> 32, lsn & 0xFFFF_FFFF);
    if version >= 19 {
        format!("{hi:X}/{lo:08X}")
    } else {
        format!("{hi:X}/{lo:X}")
    }
}

/// An LSN in the form of the release that wrote it, when that is known (a data directory's
/// PG_VERSION, pg_control, a WAL page's magic, the user's word); when it is not (a loose
/// relation file), 13 to 18's `%X/%X`, the form pgpage has always printed there: no release
/// is guessed.
pub fn lsn_text(version: Option<u32>, lsn: u64) -> String {
    lsn_text_for(version.unwrap_or(18), lsn)
}

/// pg_lsn's input (pg_lsn.c pg_lsn_in_internal): two groups of 1 to 8 hex digits around a
/// slash, `16/B374D848`.
pub fn parse_lsn(s: &str) -> Option<u64> {
    let (hi, lo) = s.split_once('/')?;
    let half = |p: &str| (1..=8).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_hexdigit());
    if !half(hi) || !half(lo) {
        return None;
    }
    let hi = u32::from_str_radix(hi, 16).ok()?;
    let lo = u32::from_str_radix(lo, 16).ok()?;
    Some((u64::from(hi) << 32) | u64::from(lo))
}

/// `text`, an LSN pgpage printed before the release was known, as release `version` prints
/// it; text that is no LSN is left as it is.
pub fn reprint_for(version: u32, text: &mut String) {
    if let Some(lsn) = parse_lsn(text) {
        *text = lsn_text_for(version, lsn);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nineteen_pads_the_low_half_and_earlier_releases_do_not() {
        // pg_lsn_out of '0/100A2B8' on 18 and on 19.
        assert_eq!(lsn_text_for(18, 0x100_A2B8), "0/100A2B8");
        assert_eq!(lsn_text_for(19, 0x100_A2B8), "0/0100A2B8");
        assert_eq!(lsn_text_for(13, 0x16_B374_D848), "16/B374D848");
        assert_eq!(lsn_text_for(19, 0x16_0000_0028), "16/00000028");
        assert_eq!(lsn_text(None, 0x28), "0/28");
        assert_eq!(lsn_text(Some(19), 0x28), "0/00000028");
        assert_eq!(lsn_text_for(19, u64::MAX), "FFFFFFFF/FFFFFFFF");
        let mut t = String::from("0/1E7BC20");
        reprint_for(19, &mut t);
        assert_eq!(t, "0/01E7BC20");
        reprint_for(18, &mut t);
        assert_eq!(t, "0/1E7BC20");
    }
}
