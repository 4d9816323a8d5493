//! Bytes no write of a PostgreSQL page holds: runs of random-looking bytes that storage or
//! memory noise, or a stray write, leaves over part of a page. A page's structures repeat
//! bytes (headers full of zeros, small numbers, text from a small alphabet), so a stretch
//! where nearly every byte value differs is not a tuple PostgreSQL wrote, unless a column
//! stores such bytes as they are (a random `bytea` small enough to stay uncompressed): the
//! report holds a run against the tuples it covers before it calls it noise.
//!
//! This is statistics, not a PostgreSQL rule: the window and threshold below are chosen so
//! that random bytes pass nearly always and the page's own bytes nearly never.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

/// Bytes looked at together.
const WINDOW: usize = 64;
/// How far the window moves each time.
const STEP: usize = 8;
/// Distinct byte values in a window at or above which it looks random. 64 random bytes hold
/// about 57 distinct values (standard deviation about 2.4), so 46 or more is met by nearly
/// every window of noise; text, numbers and tuple headers hold far fewer.
const DISTINCT: usize = 46;
/// The shortest run called noise: two windows' worth, so that one value of high entropy
/// (a hash, a compressed datum) is not enough alone.
pub const MIN_RUN: usize = 128;

/// A run of random-looking bytes, `start..end` in the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Run {
    pub start: usize,
    pub end: usize,
}

impl Run {
    pub fn overlaps(&self, start: usize, end: usize) -> bool {
        self.start < end && start < self.end
    }

    /// `2992-3407`: its first and last byte.
    pub fn text(&self) -> String {
        format!("{}-{}", self.start, self.end.saturating_sub(1))
    }
}

fn distinct(bytes: &[u8]) -> usize {
    let mut seen = [false; 256];
    for &b in bytes {
        if let Some(s) = seen.get_mut(usize::from(b)) {
            *s = true;
        }
    }
    seen.iter().filter(|s| **s).count()
}

/// The runs of random-looking bytes in `page[from..]`, at least [`MIN_RUN`] long, in order.
/// Their edges are the windows', so within a few dozen bytes of the noise's own.
pub fn random_runs(page: &[u8], from: usize) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    let windows = page.get(from..).unwrap_or_default().windows(WINDOW);
    for (i, w) in windows.enumerate().step_by(STEP) {
        if distinct(w) < DISTINCT {
            continue;
        }
        let at = from.saturating_add(i);
        let end = at.saturating_add(WINDOW);
        match runs.last_mut() {
            Some(r) if r.end >= at => r.end = end,
            _ => runs.push(Run { start: at, end }),
        }
    }
    runs.retain(|r| r.end.saturating_sub(r.start) >= MIN_RUN);
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn noise(n: usize, seed: u64) -> Vec<u8> {
        let mut x = seed | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect()
    }

    #[test]
    fn random_bytes_amid_text_are_found_near_their_edges() {
        let mut page: Vec<u8> = b"note-000123-Juliet cust_10 1234.50 after backup "
            .iter()
            .copied()
            .cycle()
            .take(8192)
            .collect();
        for seed in 1..50u64 {
            let mut p = page.clone();
            p[3000..3400].copy_from_slice(&noise(400, seed));
            let runs = random_runs(&p, 0);
            assert_eq!(runs.len(), 1, "seed {seed}: {runs:?}");
            let r = runs[0];
            assert!(r.start >= 2950 && r.start <= 3040, "seed {seed}: {r:?}");
            assert!(r.end >= 3360 && r.end <= 3450, "seed {seed}: {r:?}");
        }
        page[100..110].copy_from_slice(&noise(10, 7));
        assert!(random_runs(&page, 0).is_empty());
    }

    #[test]
    fn short_high_entropy_values_are_not_runs() {
        // 32 random bytes (a digest) between tuple-like headers, again and again.
        let mut page = Vec::new();
        let mut seed = 3;
        while page.len() < 8192 {
            page.extend_from_slice(&[
                0, 0, 0, 0, 2, 3, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 24, 0,
            ]);
            page.extend(noise(32, seed));
            seed += 1;
        }
        assert!(random_runs(&page[..8192], 0).is_empty());
    }
}
