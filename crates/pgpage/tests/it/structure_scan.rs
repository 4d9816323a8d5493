//! The structural checks verify runs on every page (`am::check_page`, `FileScan::
//! set_structure`): the same findings as the page view's full decode, on pages a real
//! PostgreSQL 15 wrote (public/samples) and on damaged copies of them, kept per block and
//! line pointer through a scan's export, import and merge.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use pgpage::am::decoded::{DecodeOptions, Hints, ItemFinding};
use pgpage::am::kind::file_kind;
use pgpage::am::{check_page, decode_page_with};
use pgpage::file::scan::{ChecksumsKnown, FileScan, Structure};
use pgpage::file::{file_geometry, GeometryChoice};
use pgpage::findings::{Finding, Values};
use pgpage::page::checksum::pg_checksum_page;
use pgpage::page::kind::{Fork, PageKind};
use pgpage::Endian;

const BS: usize = 8192;

fn read(rel: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn samples() -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../public/samples");
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".json") || name.contains('_') {
            continue;
        }
        out.push((name.clone(), read(&format!("public/samples/{name}"))));
    }
    out.sort();
    out
}

fn opts(file: &[u8]) -> DecodeOptions {
    DecodeOptions {
        file_kind: Some(file_kind(Fork::Main, file.chunks_exact(BS), Endian::Little)),
        ..DecodeOptions::default()
    }
}

/// What the page view's full decode finds (flagged spans and notes) but the hex view's
/// overlaps, which the lean check leaves out.
fn decoded(page: &[u8], block: u32, opts: &DecodeOptions) -> BTreeSet<(Option<u16>, u16)> {
    let d = decode_page_with(page, block, opts, &Hints::default());
    d.problems()
        .map(|s| (s.item, s.problem.unwrap()))
        .chain(d.findings.iter().map(|f| (None, *f)))
        .filter(|(_, f)| *f != Finding::SpanOverlap)
        .map(|(i, f)| (i, f as u16))
        .collect()
}

fn checked(page: &[u8], block: u32, opts: &DecodeOptions) -> BTreeSet<(Option<u16>, u16)> {
    check_page(page, block, opts, &Hints::default())
        .into_iter()
        .map(|f| (f.item, f.finding))
        .filter(|(_, f)| *f != Finding::SpanOverlap)
        .map(|(i, f)| (i, f as u16))
        .collect()
}

#[test]
fn the_lean_check_finds_what_the_full_decode_finds() {
    let mut pages = 0;
    for (name, file) in samples() {
        let o = opts(&file);
        for (b, page) in file.chunks_exact(BS).enumerate() {
            let b = b as u32;
            assert_eq!(
                checked(page, b, &o),
                decoded(page, b, &o),
                "{name} block {b}"
            );
            // Damage: bytes past the header turned over in several patterns.
            for seed in 0..24usize {
                let mut p = page.to_vec();
                let mut at = 24 + seed * 37;
                while at < BS {
                    p[at] ^= (seed as u8).wrapping_mul(29) | 1;
                    at += 97 + seed * 13;
                }
                // A superset: the hex view marks a finding on the bytes it shows, and drops
                // it with a span wholly inside an earlier one or a tuple it does not show;
                // the lean check keeps what amcheck says of that tuple.
                let (lean, full) = (checked(&p, b, &o), decoded(&p, b, &o));
                assert!(lean.is_superset(&full), "{name} block {b} seed {seed}");
                pages += 1;
            }
        }
    }
    assert!(pages > 100);
}

fn seal(p: &mut [u8], blkno: u32) {
    let c = pg_checksum_page(p, blkno, Endian::Little);
    p[8..10].copy_from_slice(&c.to_le_bytes());
}

fn structure_scan(file: &[u8], from: u32, to: u32) -> FileScan {
    let g = file_geometry(file, GeometryChoice::default(), true).unwrap();
    let mut scan = FileScan::new(g, 0, file.len() as u64).unwrap();
    scan.set_structure(Arc::new(Structure {
        kind: Some(PageKind::Heap),
        ..Structure::default()
    }));
    scan.chunk(&file[from as usize * BS..to as usize * BS], from);
    scan
}

#[test]
fn a_damaged_page_with_a_valid_checksum_is_listed_with_its_line_pointer() {
    let clean = read("public/samples/16427");
    let whole = structure_scan(&clean, 0, 4).finish(ChecksumsKnown::On);
    assert!(whole.pages.is_empty(), "{:?}", whole.pages);

    // Line pointer 3 of block 2 made one byte off its MAXALIGN: verify_heapam's
    // "line pointer to page offset %u is not maximally aligned".
    let mut file = clean.clone();
    let page = &mut file[2 * BS..3 * BS];
    let lp = 24 + 2 * 4;
    let word = u32::from_le_bytes(page[lp..lp + 4].try_into().unwrap());
    assert_eq!((word >> 15) & 3, 1, "line pointer 3 is LP_NORMAL");
    page[lp..lp + 4].copy_from_slice(&(word + 1).to_le_bytes());
    seal(page, 2);

    let plain = {
        let g = file_geometry(&file, GeometryChoice::default(), true).unwrap();
        let mut scan = FileScan::new(g, 0, file.len() as u64).unwrap();
        scan.chunk(&file, 0);
        scan.finish(ChecksumsKnown::On)
    };
    assert!(plain.pages.is_empty(), "checksums alone see nothing");

    // The finding carries verify_heapam's number: the line pointer's lp_off as damaged.
    let lp_off = (word + 1) & 0x7FFF;
    let want = ItemFinding {
        finding: Finding::HeapLpNotMaxaligned,
        item: Some(3),
        values: Values::new(&[lp_off]),
    };
    assert_eq!(
        want.message(),
        format!("line pointer to page offset {lp_off} is not maximally aligned")
    );
    let v = structure_scan(&file, 0, 4).finish(ChecksumsKnown::On);
    assert_eq!(v.pages.len(), 1, "{:?}", v.pages);
    assert_eq!(v.pages[0].block, 2);
    assert_eq!(v.pages[0].status, pgpage::PageStatus::Ok);
    assert!(v.pages[0].structure.contains(&want), "{:?}", v.pages[0]);
    assert!(v.pages[0].findings.contains(&want.finding));
    assert!(!v.is_problem(), "the server reads the page");

    // The browser's halves: exported, imported and merged, the finding, its line pointer
    // and its values survive.
    let mut first = FileScan::import(&structure_scan(&file, 0, 2).export()).unwrap();
    let second = FileScan::import(&structure_scan(&file, 2, 4).export()).unwrap();
    first.merge(&second).unwrap();
    assert_eq!(first.finish(ChecksumsKnown::On), v);
}
