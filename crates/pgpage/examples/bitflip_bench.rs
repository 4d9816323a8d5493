//! Time per page of single-bit-flip localisation (pgpage::bitflip), for bench/run.sh: real
//! PostgreSQL pages (tests/fixtures) with their checksum stored and one bit flipped.
//!
//! Usage: bitflip_bench SECONDS
//! Prints "label<TAB>best ms/page<TAB>median ms/page<TAB>candidates" for the lane search
//! alone (`checksum_candidates`) and with the structural ranking (`localise`).
// A benchmark binary, not the core: bad arguments may abort it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
#![allow(clippy::arithmetic_side_effects, clippy::panic)]

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use pgpage::am::decoded::DecodeOptions;
use pgpage::damage::bitflip::{checksum_candidates, localise};
use pgpage::page::checksum::pg_checksum_page;
use pgpage::Endian;

fn main() {
    let seconds: f64 = std::env::args()
        .nth(1)
        .map_or(1.0, |s| s.parse().expect("SECONDS"));
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let mut pages = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let Ok(mut page) = std::fs::read(path.join("page.bin")) else {
            continue;
        };
        let block = 7u32;
        let sum = pg_checksum_page(&page, block, Endian::Little);
        page[8..10].copy_from_slice(&sum.to_le_bytes());
        page[5000] ^= 0x10;
        pages.push((page, block));
    }
    let opts = DecodeOptions::default();
    type Run<'a> = Box<dyn Fn(&[u8], u32) -> usize + 'a>;
    let runs: [(&str, Run); 2] = [
        (
            "lane search (checksum_candidates)",
            Box::new(|p, b| checksum_candidates(p, b, Endian::Little).len()),
        ),
        (
            "lane search and structural ranking (localise)",
            Box::new(|p, b| localise(p, b, &opts).candidates.len()),
        ),
    ];
    for (label, run) in runs {
        let mut samples = Vec::new();
        let mut found = 0usize;
        let start = Instant::now();
        while start.elapsed().as_secs_f64() < seconds || samples.len() < 3 {
            let t = Instant::now();
            found = pages
                .iter()
                .map(|(p, b)| black_box(run(black_box(p), *b)))
                .sum();
            samples.push(t.elapsed().as_secs_f64() * 1e3 / pages.len() as f64);
        }
        samples.sort_by(f64::total_cmp);
        println!(
            "{label}\t{:.3}\t{:.3}\t{}",
            samples[0],
            samples[samples.len() / 2],
            found
        );
    }
}
