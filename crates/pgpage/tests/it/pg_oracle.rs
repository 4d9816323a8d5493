//! Holds our checksum against PostgreSQL's own: tests/pg_oracle.c includes the installed
//! storage/checksum_impl.h (postgresql-server-dev-15), compiled here at test time with `cc`
//! once per block size, and answers for the pages we pipe through it.
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

use pgpage::page::checksum::{checksum_fold, finish, pg_checksum_page, scalar};
use pgpage::{BlockSize, Endian};

fn server_includes() -> PathBuf {
    let pg_config = std::env::var("PG_CONFIG")
        .unwrap_or_else(|_| "/usr/lib/postgresql/15/bin/pg_config".into());
    let out = Command::new(&pg_config)
        .arg("--includedir-server")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {pg_config} (postgresql-server-dev-15): {e}"));
    assert!(
        out.status.success(),
        "{pg_config} --includedir-server failed"
    );
    let dir = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
    assert!(
        dir.join("storage/checksum_impl.h").is_file(),
        "no storage/checksum_impl.h under {}: install postgresql-server-dev-15",
        dir.display()
    );
    dir
}

/// The oracle for one block size, built once per test run (tests run in parallel, and
/// must not run a binary another test is still writing).
fn oracle(blcksz: u32) -> PathBuf {
    static BUILT: Mutex<BTreeMap<u32, PathBuf>> = Mutex::new(BTreeMap::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    built
        .entry(blcksz)
        .or_insert_with(|| build_oracle(blcksz))
        .clone()
}

fn build_oracle(blcksz: u32) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pg_oracle.c");
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("pg_oracle_{blcksz}"));
    let status = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .args(["-O2", "-Wall", "-Werror"])
        .arg("-I")
        .arg(server_includes())
        .arg(format!("-DORACLE_BLCKSZ={blcksz}"))
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("cannot run the C compiler `cc`");
    assert!(status.success(), "compiling {} failed", src.display());
    exe
}

/// PostgreSQL's (fold, checksum) for each (block number, page).
fn ask_postgres(blcksz: u32, pages: &[(u32, Vec<u8>)]) -> Vec<(u32, u16)> {
    let mut input = Vec::new();
    for (blkno, page) in pages {
        assert_eq!(page.len(), blcksz as usize);
        input.extend_from_slice(&blkno.to_le_bytes());
        input.extend_from_slice(page);
    }
    let mut child = Command::new(oracle(blcksz))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&input).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success(), "oracle failed: {:?}", out.status);
    assert_eq!(out.stdout.len(), pages.len() * 6);
    out.stdout
        .chunks_exact(6)
        .map(|r| {
            (
                u32::from_le_bytes(r[..4].try_into().unwrap()),
                u16::from_le_bytes(r[4..].try_into().unwrap()),
            )
        })
        .collect()
}

/// The dispatched body and every SIMD body this CPU has give PostgreSQL's fold too.
fn every_body_folds_to(page: &[u8], endian: Endian, want: u32) {
    assert_eq!(checksum_fold(page, endian), want, "dispatched body");
    #[cfg(target_arch = "x86_64")]
    {
        use pgpage::page::checksum::x86;
        let sse41 = x86::has_sse41().then_some(want);
        assert_eq!(x86::sse41_fold(page, endian), sse41, "sse4.1");
        assert_eq!(
            x86::avx2_fold(page, endian),
            x86::has_avx2().then_some(want),
            "avx2"
        );
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*: plenty for test data.
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn page(&mut self, len: usize) -> Vec<u8> {
        let mut p = vec![0u8; len];
        match self.next() % 4 {
            // Random bytes everywhere.
            0 | 1 => p.iter_mut().for_each(|b| *b = self.next() as u8),
            // A header-like start and a mostly zero body, as new heap pages look.
            2 => {
                for b in &mut p[..24] {
                    *b = self.next() as u8;
                }
                let at = (self.next() as usize) % len;
                p[at] = self.next() as u8;
            }
            // Sparse single bytes on zeros, to stress individual lanes.
            _ => {
                for _ in 0..8 {
                    let at = (self.next() as usize) % len;
                    p[at] = self.next() as u8;
                }
            }
        }
        p
    }
    fn blkno(&mut self) -> u32 {
        match self.next() % 3 {
            0 => (self.next() % 16) as u32,
            1 => self.next() as u32,
            _ => (self.next() % (1 << 20)) as u32,
        }
    }
}

#[test]
fn scalar_equals_postgres_for_every_block_size() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for size in BlockSize::ALL {
        let pages: Vec<(u32, Vec<u8>)> = (0..300)
            .map(|_| (rng.blkno(), rng.page(size as usize)))
            .collect();
        let want = ask_postgres(size, &pages);
        for ((blkno, page), (pg_fold, pg_checksum)) in pages.iter().zip(want) {
            let fold = scalar::checksum_fold(page, Endian::Little);
            assert_eq!(fold, pg_fold, "fold, block size {size}, block {blkno}");
            assert_eq!(
                finish(fold, *blkno),
                pg_checksum,
                "checksum, block size {size}"
            );
            assert_eq!(pg_checksum_page(page, *blkno, Endian::Little), pg_checksum);
            every_body_folds_to(page, Endian::Little, pg_fold);
        }
    }
}

/// A big-endian server reads each word most significant byte first. With pd_checksum and
/// pd_flags zero (so that masking the checksum bytes means the same in both orders), our
/// big-endian checksum of a page must equal PostgreSQL's little-endian checksum of the same
/// page with every 4-byte word byte-swapped.
#[test]
fn big_endian_equals_postgres_on_word_swapped_page() {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    for size in BlockSize::ALL {
        let be_pages: Vec<(u32, Vec<u8>)> = (0..200)
            .map(|_| {
                let mut p = rng.page(size as usize);
                p[8..12].fill(0);
                (rng.blkno(), p)
            })
            .collect();
        let swapped: Vec<(u32, Vec<u8>)> = be_pages
            .iter()
            .map(|(b, p)| {
                (
                    *b,
                    p.chunks_exact(4)
                        .flat_map(|w| [w[3], w[2], w[1], w[0]])
                        .collect(),
                )
            })
            .collect();
        let want = ask_postgres(size, &swapped);
        for ((blkno, page), (pg_fold, pg_checksum)) in be_pages.iter().zip(want) {
            assert_eq!(
                scalar::checksum_fold(page, Endian::Big),
                pg_fold,
                "block size {size}"
            );
            every_body_folds_to(page, Endian::Big, pg_fold);
            assert_eq!(pg_checksum_page(page, *blkno, Endian::Big), pg_checksum);
        }
    }
}

/// Real PostgreSQL pages (tests/fixtures, with the checksum pageinspect's page_checksum
/// gave), their stored checksum set, each hit by one random bit flip: the flipped bit is
/// among the bit-flip candidates, and every candidate, applied, gives a page whose checksum
/// by the core's scalar body AND by PostgreSQL's checksum_impl.h equals the stored one.
mod bit_flips {
    use super::*;
    use pgpage::am::decoded::DecodeOptions;
    use pgpage::damage::bitflip::{checksum_candidates, localise, PageBit};
    use proptest::prelude::*;
    use serde_json::Value;

    /// (name, page with pd_checksum stored, relation-wide block).
    fn fixture_pages() -> Vec<(String, Vec<u8>, u32)> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
        let mut out = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let Ok(mut page) = std::fs::read(path.join("page.bin")) else {
                continue;
            };
            let expected: Value =
                serde_json::from_str(&std::fs::read_to_string(path.join("expected.json")).unwrap())
                    .unwrap();
            let block = expected["block"].as_u64().unwrap() as u32;
            let checksum = expected["checksum"].as_u64().unwrap() as u16;
            page[8..10].copy_from_slice(&checksum.to_le_bytes());
            assert_eq!(pg_checksum_page(&page, block, Endian::Little), checksum);
            out.push((
                path.file_name().unwrap().to_string_lossy().into_owned(),
                page,
                block,
            ));
        }
        out.sort();
        assert!(out.len() >= 10, "fixtures missing");
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
        #[test]
        fn the_flipped_bit_is_a_candidate_and_every_candidate_verifies(
            which in any::<prop::sample::Index>(),
            offset in 0u32..8192,
            bit in 0u8..8,
        ) {
            let pages = fixture_pages();
            let (name, good, block) = &pages[which.index(pages.len())];
            let truth = PageBit { offset, bit };
            let damaged = truth.apply(good);
            let stored = u16::from_le_bytes([damaged[8], damaged[9]]);
            let bits = checksum_candidates(&damaged, *block, Endian::Little);
            prop_assert!(bits.contains(&truth), "{name}: {truth:?} not among {bits:?}");
            let repaired: Vec<(u32, Vec<u8>)> =
                bits.iter().map(|b| (*block, b.apply(&damaged))).collect();
            let pg = ask_postgres(8192, &repaired);
            for ((b, (_, page)), (_, pg_checksum)) in bits.iter().zip(&repaired).zip(pg) {
                let now = u16::from_le_bytes([page[8], page[9]]);
                // A flip inside pd_checksum changes the stored value itself.
                let want = if (8..10).contains(&b.offset) { now } else { stored };
                prop_assert_eq!(finish(scalar::checksum_fold(page, Endian::Little), *block), want);
                prop_assert_eq!(pg_checksum, want, "{} {:?}", name, b);
            }
            // The ranked form lists the same bits, the true one among them unless it made a
            // new page (pd_upper cleared), which the server never checksums.
            let ranked = localise(&damaged, *block, &DecodeOptions::default());
            let upper = u16::from_le_bytes([good[14], good[15]]);
            let clears_upper = (14..16).contains(&offset)
                && upper == 1u16 << ((offset - 14) * 8 + u32::from(bit));
            prop_assert_eq!(
                ranked.candidates.iter().any(|c| c.offset == offset && c.bit == bit),
                !clears_upper
            );
            prop_assert_eq!(ranked.searched, 65536);
        }
    }

    /// A sound page has no candidates, and the true flip of a damaged one gives back the
    /// findings the sound page had (none, for these pages the server wrote).
    #[test]
    fn the_true_flip_restores_a_structurally_valid_page() {
        for (name, good, block) in fixture_pages() {
            let damaged = PageBit {
                offset: 4000,
                bit: 3,
            }
            .apply(&good);
            let ranked = localise(&damaged, block, &DecodeOptions::default());
            let truth = ranked
                .candidates
                .iter()
                .find(|c| c.offset == 4000 && c.bit == 3)
                .unwrap_or_else(|| panic!("{name}: true flip missing"));
            let before = localise(&good, block, &DecodeOptions::default());
            assert!(
                before.candidates.is_empty(),
                "{name}: a sound page has no candidates"
            );
            assert_eq!(truth.findings, before.findings_before, "{name}");
        }
    }
}
