//! Test support shared by the core's and the CLI's tests: pages as a big-endian server lays
//! them out, made from pages a little-endian PostgreSQL wrote.
/// field byte-swapped (pd_lsn as its two 32-bit halves), ItemIdData's bit fields
/// (`lp_off:15 lp_flags:2 lp_len:15`) allocated from the most significant bit as big-endian
/// GCC allocates them, and the fixed fields of each tuple header swapped. Not sealed: the
/// caller computes the checksum it needs.
pub fn to_big_endian_heap(le: &[u8]) -> Vec<u8> {
    let mut be = le.to_vec();
    let swap = |p: &mut Vec<u8>, at: usize, n: usize| p[at..at + n].reverse();
    for (at, n) in [
        (0, 4),
        (4, 4),
        (8, 2),
        (10, 2),
        (12, 2),
        (14, 2),
        (16, 2),
        (18, 2),
        (20, 4),
    ] {
        swap(&mut be, at, n);
    }
    let lower = u16::from_le_bytes([le[12], le[13]]) as usize;
    for lp in (24..lower).step_by(4) {
        let w = u32::from_le_bytes(le[lp..lp + 4].try_into().unwrap());
        let (off, flags, len) = (w & 0x7FFF, (w >> 15) & 3, w >> 17);
        be[lp..lp + 4].copy_from_slice(&((off << 17) | (flags << 15) | len).to_be_bytes());
        if flags == 1 && len > 0 {
            // t_xmin, t_xmax, t_field3, t_ctid (bi_hi, bi_lo, ip_posid), t_infomask2,
            // t_infomask.
            let t = off as usize;
            for (at, n) in [
                (0, 4),
                (4, 4),
                (8, 4),
                (12, 2),
                (14, 2),
                (16, 2),
                (18, 2),
                (20, 2),
            ] {
                swap(&mut be, t + at, n);
            }
        }
    }
    be
}
