//! Structural findings (verify_heapam's and verify_nbtree's checks) on pages a real server
//! wrote: none on the untouched samples and fixtures of every access method, and the finding
//! at the right item on copies damaged the way the amcheck oracle damages them
//! (crates/pgpage-cli/tests/amcheck.rs holds them against amcheck itself).

use std::fs;
use std::path::PathBuf;

use pgpage::am::decode_page_with;
use pgpage::am::decoded::{DecodeOptions, Hints};
use pgpage::am::kind::file_kind;
use pgpage::am::nbtree::check::{KeyColumn, KeyType};
use pgpage::file::scan::{ChecksumsKnown, FileScan};
use pgpage::file::{file_geometry, GeometryChoice};
use pgpage::findings::{Evidence, Finding};
use pgpage::page::kind::Fork;
use pgpage::Endian;
use serde_json::Value;

/// Key types as ascending columns (CREATE INDEX's default).
fn columns(keys: &[KeyType]) -> Vec<KeyColumn> {
    keys.iter().map(|&k| k.into()).collect()
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fork(name: &str) -> Fork {
    match name {
        "fsm" => Fork::Fsm,
        "vm" => Fork::Vm,
        _ => Fork::Main,
    }
}

/// Every finding of a page: its spans' and its own.
fn findings(
    page: &[u8],
    block: u32,
    fork: Fork,
    kind_of_file: &[u8],
    keys: Option<&[KeyType]>,
) -> Vec<(Option<u16>, Finding)> {
    let opts = DecodeOptions {
        fork,
        file_kind: Some(file_kind(
            fork,
            kind_of_file.chunks_exact(8192),
            Endian::Little,
        )),
        ..DecodeOptions::default()
    };
    let d = decode_page_with(
        page,
        block,
        &opts,
        &Hints {
            btree_keys: keys.map(columns).as_deref(),
            ..Hints::default()
        },
    );
    d.problems()
        .map(|s| (s.item, s.problem.unwrap()))
        .chain(d.findings.iter().map(|f| (None, *f)))
        .collect()
}

#[test]
fn real_pages_of_every_access_method_have_no_structural_finding() {
    let dir = root().join("public/samples");
    let m: Value =
        serde_json::from_str(&fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let mut pages = 0;
    for s in m["samples"].as_array().unwrap() {
        if !s["change"].is_null() {
            continue;
        }
        let bytes = fs::read(dir.join(s["file"].as_str().unwrap())).unwrap();
        let f = fork(s["fork"].as_str().unwrap());
        // The B-tree sample is on int4, the GIN one on int4[] (scripts/make-samples.sh).
        let keys: Option<&[KeyType]> =
            (s["kind"] == "btree" || s["kind"] == "gin").then_some(&[KeyType::Int4]);
        for (block, page) in bytes.chunks_exact(8192).enumerate() {
            let got = findings(page, block as u32, f, &bytes, keys);
            assert!(got.is_empty(), "{} block {block}: {got:?}", s["file"]);
            pages += 1;
        }
        let g = file_geometry(&bytes, GeometryChoice::default(), true).unwrap();
        let mut scan = FileScan::new(g, 0, bytes.len() as u64).unwrap();
        scan.chunk(&bytes, 0);
        let v = scan.finish(ChecksumsKnown::On);
        assert!(v.pages.is_empty(), "{}: {:?}", s["file"], v.pages);
    }
    // Fixtures: single pages pageinspect described (no key types: at most the note).
    for e in fs::read_dir(root().join("tests/fixtures")).unwrap() {
        let p = e.unwrap().path().join("page.bin");
        let Ok(page) = fs::read(&p) else { continue };
        let name = p
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        let f = match name.as_str() {
            n if n.starts_with("fsm") => Fork::Fsm,
            "vm" => Fork::Vm,
            _ => Fork::Main,
        };
        for (item, finding) in findings(&page, 0, f, &page, None) {
            assert!(
                finding.evidence() == Evidence::Note,
                "{name}: item {item:?}: {finding:?}"
            );
        }
        pages += 1;
    }
    assert!(pages > 30, "{pages}");
}

/// The B-tree sample's pages: the metapage, then its root and leaves.
fn btree_sample() -> Vec<u8> {
    fs::read(root().join("public/samples/16437")).unwrap()
}

fn lp(n: usize) -> std::ops::Range<usize> {
    let at = 24 + (n - 1) * 4;
    at..at + 4
}

fn leaf_block(bytes: &[u8]) -> usize {
    (1..bytes.len() / 8192)
        .find(|&b| {
            let p = &bytes[b * 8192..(b + 1) * 8192];
            let flags = u16::from_le_bytes([p[8192 - 4], p[8192 - 3]]);
            flags & 1 != 0 && u32::from_le_bytes(p[8192 - 12..8192 - 8].try_into().unwrap()) != 0
        })
        .unwrap()
}

#[test]
fn swapped_index_items_break_the_item_order_at_the_first_of_them() {
    let bytes = btree_sample();
    let b = leaf_block(&bytes);
    let mut page = bytes[b * 8192..(b + 1) * 8192].to_vec();
    let (a, c) = (lp(5), lp(6));
    let first: Vec<u8> = page[a.clone()].to_vec();
    page.copy_within(c.clone(), a.start);
    page[c].copy_from_slice(&first);
    let got = findings(&page, b as u32, Fork::Main, &bytes, Some(&[KeyType::Int4]));
    // The pair (5, 6) is out of order; amcheck names the lower item, offset 5.
    let order: Vec<_> = got
        .iter()
        .filter(|f| f.1 == Finding::BtreeItemOrder)
        .collect();
    assert_eq!(order, vec![&(Some(5), Finding::BtreeItemOrder)], "{got:?}");
    // Without key types: said, not judged.
    let got = findings(&page, b as u32, Fork::Main, &bytes, None);
    assert_eq!(got, vec![(None, Finding::BtreeOrderNotChecked)]);
}

#[test]
fn a_broken_sibling_link_is_found_at_the_right_page() {
    let mut bytes = btree_sample();
    let b = leaf_block(&bytes);
    // The leftmost leaf's right sibling: make its btpo_prev name another block.
    let p = &bytes[b * 8192..(b + 1) * 8192];
    let next = u32::from_le_bytes(p[8192 - 12..8192 - 8].try_into().unwrap()) as usize;
    let at = next * 8192 + 8192 - 16;
    bytes[at..at + 4].copy_from_slice(&77u32.to_le_bytes());
    let g = file_geometry(&bytes, GeometryChoice::default(), true).unwrap();
    let mut scan = FileScan::new(g, 0, bytes.len() as u64).unwrap();
    scan.chunk(&bytes, 0);
    // Exported and imported as a worker's part would be.
    let scan = FileScan::import(&scan.export()).unwrap();
    let v = scan.finish(ChecksumsKnown::Off);
    let row = v.pages.iter().find(|r| r.block as usize == next).unwrap();
    assert!(
        row.findings.contains(&Finding::BtreeSiblingLinksDisagree),
        "{row:?}"
    );
}

#[test]
fn a_zeroed_sector_of_a_page_whose_checksum_fails_is_torn_page_evidence() {
    let bytes = fs::read(root().join("public/samples/16427")).unwrap();
    let mut page = bytes[8192..2 * 8192].to_vec();
    // The sector holding the first line pointer's tuple.
    let lp1 = u32::from_le_bytes(page[24..28].try_into().unwrap());
    let sector = (lp1 & 0x7FFF) as usize / 512;
    page[sector * 512..(sector + 1) * 512].fill(0);
    let got = findings(&page, 1, Fork::Main, &bytes, None);
    assert!(got.contains(&(Some(1), Finding::TornSectors)), "{got:?}");
    // The same bytes with a checksum that holds: damage, not evidence of a torn write.
    let c = pgpage::page::checksum::pg_checksum_page(&page, 1, Endian::Little);
    page[8..10].copy_from_slice(&c.to_le_bytes());
    let got = findings(&page, 1, Fork::Main, &bytes, None);
    assert!(!got.iter().any(|f| f.1 == Finding::TornSectors), "{got:?}");
}

#[test]
fn a_page_read_at_another_block_or_an_index_page_is_not_torn() {
    use pgpage::am::torn_write;
    // A heap page PostgreSQL wrote at block 1, its checksum failing by one flipped bit in a
    // tuple: at its own block the tuples name it; read as block 4 (a misplaced page, or a
    // file whose block numbers are off) every tuple names block 1, which no tear does.
    let bytes = fs::read(root().join("public/samples/16427")).unwrap();
    let mut page = bytes[8192..2 * 8192].to_vec();
    page[5000] ^= 0x10;
    assert!(torn_write(&page, 1, Endian::Little).0.is_empty());
    assert!(torn_write(&page, 4, Endian::Little).0.is_empty());
    // Index pages are not read by the heap's tuple rules at all, at any block.
    for name in ["btree_posting", "btree_leaf", "gin_entry", "hash_bucket"] {
        let mut page = fs::read(root().join("tests/fixtures").join(name).join("page.bin")).unwrap();
        page[5000] ^= 0x10;
        for block in [0, 4, 9] {
            let (sectors, items) = torn_write(&page, block, Endian::Little);
            assert!(
                sectors.is_empty() && items.is_empty(),
                "{name} at {block}: {sectors:?}"
            );
        }
    }
}

/// Every finding the maps give of `heap`'s pages, by heap block.
fn map_findings(heap: &[u8], maps: &pgpage::am::maps::walk::ForkMaps) -> Vec<(u32, Finding)> {
    (0u32..)
        .zip(heap.chunks_exact(8192))
        .flat_map(|(b, page)| {
            maps.check_heap_page(b, page, Endian::Little)
                .map(move |f| (b, f))
        })
        .collect()
}

#[test]
fn the_samples_visibility_map_agrees_with_its_heap() {
    use pgpage::am::maps::walk::ForkMaps;
    use pgpage::BlockSize;
    let heap = fs::read(root().join("public/samples/16427")).unwrap();
    let vm = fs::read(root().join("public/samples/16427_vm")).unwrap();
    let fsm = fs::read(root().join("public/samples/16427_fsm")).unwrap();
    // The FSM is a hint: whatever it says is at most a note.
    let found = map_findings(
        &heap,
        &ForkMaps::new(Some(&vm), Some(&fsm), BlockSize::DEFAULT),
    );
    assert!(
        found.iter().all(|f| f.1.evidence() == Evidence::Note),
        "{found:?}"
    );
    // A frozen bit without its visible bit, for heap block 0.
    let mut vm = vm;
    vm[24] = (vm[24] & !3) | 2;
    let found = map_findings(&heap, &ForkMaps::new(Some(&vm), None, BlockSize::DEFAULT));
    assert!(
        found.contains(&(0, Finding::VmFrozenWithoutVisible)),
        "{found:?}"
    );
}

#[test]
fn a_scan_given_the_maps_lists_their_findings_on_the_heap_pages_across_parts() {
    use pgpage::am::maps::walk::ForkMaps;
    use pgpage::BlockSize;
    use std::sync::Arc;
    let mut heap = fs::read(root().join("public/samples/16427")).unwrap();
    let vm = fs::read(root().join("public/samples/16427_vm")).unwrap();
    let maps = Arc::new(ForkMaps::new(Some(&vm), None, BlockSize::DEFAULT));
    // A page the sample's VM says is all-visible loses PD_ALL_VISIBLE, its checksum kept
    // right so that only the map speaks.
    let block = (0u32..)
        .zip(heap.chunks_exact(8192))
        .find(|(b, p)| p[10] & 4 != 0 && (vm[24 + *b as usize / 4] >> (2 * (b % 4))) & 1 != 0)
        .map(|(b, _)| b)
        .expect("an all-visible page");
    let p = &mut heap[block as usize * 8192..(block as usize + 1) * 8192];
    p[10] &= !4;
    let sum = pgpage::page::checksum::pg_checksum_page(p, block, Endian::Little);
    p[8..10].copy_from_slice(&sum.to_le_bytes());
    let g = file_geometry(&heap, GeometryChoice::default(), true).unwrap();
    let len = heap.len() as u64;
    // Two parts, as two threads or workers scan them, merged through export and import.
    let half = heap.len() / 8192 / 2 * 8192;
    let mut a = FileScan::new(g, 0, len).unwrap();
    a.set_maps(Arc::clone(&maps));
    a.chunk(&heap[..half], 0);
    let mut b = FileScan::new(g, 0, len).unwrap();
    b.set_maps(maps);
    b.chunk(&heap[half..], (half / 8192) as u32);
    let mut merged = FileScan::import(&a.export()).unwrap();
    merged
        .merge(&FileScan::import(&b.export()).unwrap())
        .unwrap();
    let verdict = merged.finish(ChecksumsKnown::Unknown);
    let flagged: Vec<_> = verdict
        .pages
        .iter()
        .filter(|r| r.findings.contains(&Finding::VmBitWithoutPageFlag))
        .map(|r| (r.block, r.status, r.computed == Some(r.stored)))
        .collect();
    assert_eq!(flagged, [(block, pgpage::PageStatus::Ok, true)]);
}
