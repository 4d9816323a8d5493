//! A relation file's pages as the tests that damage them read and write them: little-endian
//! words, GIN's page flags, and checksums made valid again after a change.

use pgpage::page::checksum::pg_checksum_page;
use pgpage::Endian;

pub use super::findings::BLCKSZ;

/// ginblock.h: GinPageOpaqueData's flags.
pub const GIN_DATA: u16 = 1;
pub const GIN_LEAF: u16 = 2;
pub const GIN_DELETED: u16 = 4;
pub const GIN_META: u16 = 8;
pub const GIN_LIST: u16 = 16;

pub fn u16_at(p: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([p[at], p[at + 1]])
}

pub fn u32_at(p: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(p[at..at + 4].try_into().unwrap())
}

pub fn put_u16(p: &mut [u8], at: usize, v: u16) {
    p[at..at + 2].copy_from_slice(&v.to_le_bytes());
}

/// A GIN page's flags (the last two bytes of its special space).
pub fn gin_flags(p: &[u8]) -> u16 {
    u16_at(p, BLCKSZ - 2)
}

/// The number of line pointers (pd_lower's).
pub fn maxoff(p: &[u8]) -> usize {
    (usize::from(u16_at(p, 12)) - 24) / 4
}

/// Block `block`'s checksum made valid again.
pub fn seal(bytes: &mut [u8], block: usize) {
    let p = &mut bytes[block * BLCKSZ..(block + 1) * BLCKSZ];
    let c = pg_checksum_page(p, block as u32, Endian::Little);
    p[8..10].copy_from_slice(&c.to_le_bytes());
}

/// Every page's checksum made valid again, but for all-zero (new) pages, which have none.
pub fn fix_checksums(bytes: &mut [u8]) {
    for b in 0..bytes.len() / BLCKSZ {
        if bytes[b * BLCKSZ..(b + 1) * BLCKSZ].iter().any(|&x| x != 0) {
            seal(bytes, b);
        }
    }
}

/// Bytes from hex text (`encode(..., 'hex')` as psql prints it, whitespace around it).
pub fn from_hex(s: &str) -> Vec<u8> {
    let s = s.trim();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}
