//! Network and identifier types as PostgreSQL prints them: inet/cidr (network.c
//! network_out with port/inet_net_ntop.c), macaddr, macaddr8, uuid.

use alloc::string::String;
use core::fmt::Write;

use crate::findings::Finding;

const PGSQL_AF_INET: u8 = 2;
const PGSQL_AF_INET6: u8 = 3;

/// network_out of inet_struct's payload (inet.h): family, bits, then the address bytes;
/// whether "/bits" is always printed depends on the column's type (inet or cidr).
pub fn inet(p: &[u8], is_cidr: bool, out: &mut String) -> Result<(), Finding> {
    let (&family, rest) = p.split_first().ok_or(Finding::ValueInvalid)?;
    let (&bits, addr) = rest.split_first().ok_or(Finding::ValueInvalid)?;
    let max = match family {
        PGSQL_AF_INET if addr.len() == 4 => 32,
        PGSQL_AF_INET6 if addr.len() == 16 => 128,
        _ => return Err(Finding::ValueInvalid),
    };
    if bits > max {
        return Err(Finding::ValueInvalid);
    }
    if max == 32 {
        for (i, b) in addr.iter().enumerate() {
            if i > 0 {
                out.push('.');
            }
            let _ = write!(out, "{b}");
        }
    } else {
        ipv6(addr, out);
    }
    // inet_net_ntop writes "/bits" unless the mask is full; network_out adds it for cidr.
    if bits != max || is_cidr {
        let _ = write!(out, "/{bits}");
    }
    Ok(())
}

/// inet_net_ntop_ipv6: the longest run of two or more zero words (the first of equals) as
/// "::", and an IPv4-compatible or -mapped tail as a dotted quad.
fn ipv6(a: &[u8], out: &mut String) {
    let mut words = [0u16; 8];
    for (w, pair) in words.iter_mut().zip(a.chunks_exact(2)) {
        if let [hi, lo] = pair {
            *w = u16::from_be_bytes([*hi, *lo]);
        }
    }
    let (mut best, mut best_len) = (None::<usize>, 0usize);
    let (mut cur, mut cur_len) = (None::<usize>, 0usize);
    for (i, &w) in words.iter().enumerate() {
        if w == 0 {
            if cur.is_none() {
                cur = Some(i);
                cur_len = 0;
            }
            cur_len = cur_len.saturating_add(1);
        } else if cur.is_some() {
            if best.is_none() || cur_len > best_len {
                (best, best_len) = (cur, cur_len);
            }
            cur = None;
        }
    }
    if cur.is_some() && (best.is_none() || cur_len > best_len) {
        (best, best_len) = (cur, cur_len);
    }
    if best_len < 2 {
        best = None;
    }
    let in_best = |i: usize| best.is_some_and(|b| i >= b && i < b.saturating_add(best_len));
    let mut i = 0usize;
    while i < 8 {
        if in_best(i) {
            if best == Some(i) {
                out.push(':');
            }
            i = i.saturating_add(1);
            continue;
        }
        if i != 0 {
            out.push(':');
        }
        let embedded_v4 = i == 6
            && best == Some(0)
            && (best_len == 6 || (best_len == 5 && words.get(5) == Some(&0xffff)));
        if embedded_v4 {
            let _ = write!(
                out,
                "{}.{}.{}.{}",
                a.get(12).copied().unwrap_or(0),
                a.get(13).copied().unwrap_or(0),
                a.get(14).copied().unwrap_or(0),
                a.get(15).copied().unwrap_or(0)
            );
            return;
        }
        let _ = write!(out, "{:x}", words.get(i).copied().unwrap_or(0));
        i = i.saturating_add(1);
    }
    if best.is_some_and(|b| b.saturating_add(best_len) == 8) {
        out.push(':');
    }
}

/// macaddr_out / macaddr8_out: lowercase hex bytes joined by ':'.
pub fn macaddr(p: &[u8], out: &mut String) {
    for (i, b) in p.iter().enumerate() {
        if i > 0 {
            out.push(':');
        }
        super::push_hex_byte(out, *b);
    }
}

/// uuid_out: 8-4-4-4-12 lowercase hex.
pub fn uuid(p: &[u8], out: &mut String) {
    // Laid out on the stack and appended once: 36 String::push calls cost more than the
    // rest of the work.
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut text = [b'-'; 36];
    let mut at = 0usize;
    for (i, b) in p.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            at = at.saturating_add(1);
        }
        for nibble in [b >> 4, b & 15] {
            if let Some(slot) = text.get_mut(at) {
                *slot = HEX.get(usize::from(nibble)).copied().unwrap_or(b'0');
            }
            at = at.saturating_add(1);
        }
    }
    out.push_str(
        core::str::from_utf8(text.get(..at.min(36)).unwrap_or_default()).unwrap_or_default(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v6(words: [u16; 8]) -> String {
        let mut a = [0u8; 16];
        for (i, w) in words.iter().enumerate() {
            a[i * 2..i * 2 + 2].copy_from_slice(&w.to_be_bytes());
        }
        let mut s = String::new();
        ipv6(&a, &mut s);
        s
    }

    // Expected strings: PostgreSQL's inet output for the same addresses.
    #[test]
    fn ipv6_compression() {
        assert_eq!(v6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]), "2001:db8::1");
        assert_eq!(v6([0; 8]), "::");
        assert_eq!(
            v6([0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304]),
            "::ffff:1.2.3.4"
        );
        assert_eq!(v6([1, 0, 0, 2, 0, 0, 0, 3]), "1:0:0:2::3");
        assert_eq!(v6([1, 0, 2, 3, 4, 5, 6, 7]), "1:0:2:3:4:5:6:7");
        assert_eq!(v6([1, 2, 3, 4, 5, 6, 0, 0]), "1:2:3:4:5:6::");
    }
}
