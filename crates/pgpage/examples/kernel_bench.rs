//! Kernel benchmark of every checksum body on one core, pages in cache. bench/run.sh runs it
//! (release build) beside bench/pg_kernel.c, which it mirrors: same random pages, same
//! rounds, same output line per body.
//!
//! Usage: kernel_bench SECONDS PAGES [ROUNDS]
//! Prints "label<TAB>best GB/s<TAB>median GB/s<TAB>check" per body, over ROUNDS rounds
//! (default 7) of SECONDS each; check is the xor of pg_checksum_page(page i, block i) over
//! the pages, the same for every body (and pg_kernel.c) in one byte order.
//!
//! With KERNEL_PASSES=N (and KERNEL_BODY=label to pick one body) it instead makes exactly N
//! untimed passes, for counting cycles with perf stat, as pg_kernel.c does.
// A benchmark binary, not the core: bad arguments may abort it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
#![allow(clippy::arithmetic_side_effects, clippy::panic)]

use std::hint::black_box;
use std::time::Instant;

use pgpage::page::checksum::{checksum_fold, dispatched_body, finish, scalar};
use pgpage::Endian;

const BLCKSZ: usize = 8192;

/// A checksum body: page and byte order to pg_checksum_block's fold.
type Body = fn(&[u8], Endian) -> u32;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let seconds: f64 = args.get(1).map_or(1.0, |s| s.parse().expect("SECONDS"));
    let npages: usize = args.get(2).map_or(32, |s| s.parse().expect("PAGES"));
    let rounds: usize = args.get(3).map_or(7, |s| s.parse().expect("ROUNDS")).max(1);
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let pages: Vec<u8> = (0..npages * BLCKSZ)
        .map(|_| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8
        })
        .collect();

    let mut bodies: Vec<(String, Body)> = vec![("pgpage scalar".into(), scalar::checksum_fold)];
    #[cfg(target_arch = "x86_64")]
    {
        use pgpage::page::checksum::x86;
        if x86::has_sse41() {
            bodies.push(("pgpage sse4.1".into(), |p, e| {
                x86::sse41_fold(p, e).unwrap_or(0)
            }));
        }
        if x86::has_avx2() {
            bodies.push(("pgpage avx2".into(), |p, e| {
                x86::avx2_fold(p, e).unwrap_or(0)
            }));
        }
    }
    bodies.push((
        format!("pgpage dispatched ({})", dispatched_body()),
        checksum_fold,
    ));

    let passes: Option<usize> = std::env::var("KERNEL_PASSES")
        .ok()
        .map(|s| s.parse().expect("KERNEL_PASSES"));
    let only = std::env::var("KERNEL_BODY").ok();
    for (label, body) in bodies {
        for endian in [Endian::Little, Endian::Big] {
            let label = match endian {
                Endian::Little => label.clone(),
                Endian::Big => format!("{label}, big endian"),
            };
            if only.as_ref().is_some_and(|o| *o != label) {
                continue;
            }
            let check = pages
                .chunks_exact(BLCKSZ)
                .enumerate()
                .fold(0u32, |x, (i, p)| {
                    x ^ u32::from(finish(body(p, endian), i as u32))
                });
            if let Some(passes) = passes {
                let mut sink = 0u16;
                for p in 0..passes {
                    for (i, page) in pages.chunks_exact(BLCKSZ).enumerate() {
                        sink ^= finish(body(black_box(page), endian), (p + i) as u32);
                    }
                }
                black_box(sink);
                println!("{label}\t{check}");
                continue;
            }
            let (best, median) = measure(&pages, seconds, rounds, body, endian);
            println!("{label}\t{best:.2}\t{median:.2}\t{check}");
        }
    }
}

fn measure(pages: &[u8], seconds: f64, rounds: usize, body: Body, e: Endian) -> (f64, f64) {
    let mut sink = 0u16;
    let mut gbps = vec![0f64; rounds];
    for g in &mut gbps {
        let start = Instant::now();
        let mut done = 0usize;
        let elapsed = loop {
            for (i, page) in pages.chunks_exact(BLCKSZ).enumerate() {
                sink ^= finish(body(black_box(page), e), (done + i) as u32);
            }
            done += pages.len() / BLCKSZ;
            let t = start.elapsed().as_secs_f64();
            if t >= seconds {
                break t;
            }
        };
        *g = (done * BLCKSZ) as f64 / elapsed / 1e9;
    }
    gbps.sort_by(f64::total_cmp);
    black_box(sink);
    (gbps[rounds - 1], gbps[rounds / 2])
}
