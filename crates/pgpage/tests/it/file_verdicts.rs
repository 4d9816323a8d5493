//! File verdicts (scan.rs) on files built from pages a real PostgreSQL 15 wrote
//! (public/samples, tests/fixtures/verify): misplaced pages claimed only with evidence,
//! misnamed segments named once, short reads, checksums off, and parts merged in any order.

use std::path::PathBuf;

use pgpage::file::scan::{Chance, ChecksumsKnown, FileFinding, FileScan, FileVerdict, PageRow};
use pgpage::file::{file_geometry, Geometry, GeometryChoice};
use pgpage::findings::{Evidence, Finding};
use pgpage::page::checksum::pg_checksum_page;
use pgpage::{Endian, PageStatus};

const BS: usize = 8192;

fn read(rel: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn geometry(head: &[u8]) -> Geometry {
    file_geometry(head, GeometryChoice::default(), true).unwrap()
}

/// One scan of the whole file.
fn verdict(file: &[u8], segno: u32, checksums: ChecksumsKnown) -> FileVerdict {
    let mut scan = FileScan::new(geometry(file), segno, file.len() as u64).unwrap();
    scan.chunk(file, 0);
    scan.finish(checksums)
}

fn row(v: &FileVerdict, block: u32) -> &PageRow {
    v.pages
        .iter()
        .find(|p| p.block == block)
        .unwrap_or_else(|| panic!("no row for block {block}: {:?}", v.pages))
}

fn u16_at(p: &[u8], off: usize) -> u16 {
    u16::from_le_bytes([p[off], p[off + 1]])
}

fn set_u16(p: &mut [u8], off: usize, v: u16) {
    p[off..off + 2].copy_from_slice(&v.to_le_bytes());
}

fn seal(p: &mut [u8], blkno: u32) {
    let c = pg_checksum_page(p, blkno, Endian::Little);
    set_u16(p, 8, c);
}

/// A heap page as the server would have written it at `blkno`: every tuple whose t_ctid
/// points at itself (offset = its line pointer) names `blkno`, and the checksum is sealed.
fn retarget(template: &[u8], blkno: u32) -> Vec<u8> {
    let mut p = template.to_vec();
    let items = (usize::from(u16_at(&p, 12)) - 24) / 4;
    for lp in 1..=items {
        let id = u32::from_le_bytes(p[20 + 4 * lp..24 + 4 * lp].try_into().unwrap());
        let (off, flags) = ((id & 0x7FFF) as usize, (id >> 15) & 3);
        if flags == 1 && usize::from(u16_at(&p, off + 16)) == lp {
            set_u16(&mut p, off + 12, (blkno >> 16) as u16);
            set_u16(&mut p, off + 14, blkno as u16);
        }
    }
    seal(&mut p, blkno);
    p
}

/// The four heap pages of public/samples/16427.
fn heap_templates() -> Vec<Vec<u8>> {
    read("public/samples/16427")
        .chunks(BS)
        .map(<[u8]>::to_vec)
        .collect()
}

fn claims(v: &FileVerdict) -> Vec<(u32, u32, Finding)> {
    v.pages
        .iter()
        .filter_map(|p| {
            let m = p.claim()?;
            Some((p.block, m.block, m.finding))
        })
        .collect()
}

/// xorshift32, for reproducible choices.
fn next(x: &mut u32) -> u32 {
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    *x
}

#[test]
fn a_big_file_with_damaged_checksum_fields_claims_nothing_and_swapped_pages_claim_each_other() {
    const BLOCKS: u32 = 100_003;
    let templates = heap_templates();
    // An empty heap page (pd_lower at the header's end): no tuple speaks for it.
    let mut empty = templates[0].clone();
    set_u16(&mut empty, 12, 24);
    let mut x = 0x9E37_79B9u32;
    let mut damaged: Vec<u32> = (0..20).map(|_| next(&mut x) % BLOCKS).collect();
    damaged.sort_unstable();
    damaged.dedup();
    assert_eq!(damaged.len(), 20);
    // Half of the damaged pages are empty pages, whose only sign is the checksum.
    let empties: Vec<u32> = damaged.iter().copied().step_by(2).collect();
    let swapped = (5_000u32, 90_000u32);
    let page_at = |b: u32| -> Vec<u8> {
        let written = if b == swapped.0 {
            swapped.1
        } else if b == swapped.1 {
            swapped.0
        } else {
            b
        };
        let mut p = if empties.contains(&written) {
            let mut p = empty.clone();
            seal(&mut p, written);
            p
        } else {
            retarget(&templates[written as usize % templates.len()], written)
        };
        if damaged.contains(&b) {
            let good = u16_at(&p, 8);
            set_u16(&mut p, 8, good ^ 0x5A5A);
        }
        p
    };
    let g = geometry(&page_at(0));
    let mut scan = FileScan::new(g, 0, u64::from(BLOCKS) * BS as u64).unwrap();
    let mut chunk = Vec::with_capacity(1024 * BS);
    for first in (0..BLOCKS).step_by(1024) {
        chunk.clear();
        for b in first..(first + 1024).min(BLOCKS) {
            chunk.extend(page_at(b));
        }
        scan.chunk(&chunk, first);
    }
    let v = scan.finish(ChecksumsKnown::Unknown);
    assert!(!v.checksums_disabled);
    assert_eq!(v.counts.mismatch, 22);
    assert_eq!(v.counts.ok, u64::from(BLOCKS) - 22);
    assert!(v.findings.is_empty(), "{:?}", v.findings);

    // The two swapped pages, each claimed as the other's block by its tuples; nothing else.
    assert_eq!(
        claims(&v),
        [
            (swapped.0, swapped.1, Finding::MisplacedByTupleIds),
            (swapped.1, swapped.0, Finding::MisplacedByTupleIds)
        ]
    );
    assert_eq!(
        Finding::MisplacedByTupleIds.evidence(),
        Evidence::Corroborated
    );
    for b in [swapped.0, swapped.1] {
        assert!(row(&v, b).findings.contains(&Finding::HeapTidOtherBlock));
    }

    // The damaged pages: a mismatch each, never a claim. Pages with tuples naming their own
    // block get no candidate; empty pages get the nearest bare match as a candidate with
    // the odds of chance over the file, checked here by brute force and powf.
    let mut candidates = 0;
    for &b in &damaged {
        let r = row(&v, b);
        assert_eq!(r.status, PageStatus::Mismatch);
        let page = page_at(b);
        let stored = u16_at(&page, 8);
        let matching: Vec<u32> = (0..BLOCKS)
            .filter(|&o| pg_checksum_page(&page, o, Endian::Little) == stored)
            .collect();
        if !empties.contains(&b) {
            assert_eq!(r.tuple_block, Some(b));
            assert_eq!(r.misplaced, None, "block {b}");
            continue;
        }
        match r.misplaced {
            None => assert!(matching.is_empty(), "block {b}: {matching:?}"),
            Some(m) => {
                candidates += 1;
                assert!(!m.is_claim());
                assert_eq!(m.finding, Finding::ChecksumMatchesOtherBlock);
                assert_eq!(m.finding.evidence(), Evidence::Candidate);
                let nearest = matching
                    .iter()
                    .copied()
                    .min_by_key(|&o| (o.abs_diff(b), o))
                    .unwrap();
                assert_eq!(m.block, nearest);
                let c = m.chance.unwrap();
                assert_eq!((c.searched, c.matches as usize), (BLOCKS, matching.len()));
                let p = 1.0 - (1.0 - 1.0 / 65535.0f64).powf(f64::from(BLOCKS));
                assert!((c.probability - p).abs() < 1e-9, "{} vs {p}", c.probability);
                assert!((c.expected - f64::from(BLOCKS) / 65535.0).abs() < 1e-12);
            }
        }
    }
    // About three in four damaged pages of a file this size match some other block by
    // chance: the test would catch a bare match passed off as a claim.
    assert!(candidates >= 3, "only {candidates} candidates");
}

#[test]
fn swapped_heap_pages_from_the_server_claim_each_other() {
    // public/samples/90004: blocks 1 and 2 of 16427 swapped.
    let v = verdict(&read("public/samples/90004"), 0, ChecksumsKnown::Unknown);
    assert_eq!(
        claims(&v),
        [
            (1, 2, Finding::MisplacedByTupleIds),
            (2, 1, Finding::MisplacedByTupleIds)
        ]
    );
    assert_eq!(row(&v, 1).misplaced.unwrap().segno, 0);
}

#[test]
fn the_mixed_heap_fixture_claims_only_its_swapped_pair() {
    let file = read("tests/fixtures/verify/heap_mixed/16427");
    let expected: serde_json::Value =
        serde_json::from_slice(&read("tests/fixtures/verify/heap_mixed/expected.json")).unwrap();
    let v = verdict(&file, 0, ChecksumsKnown::Unknown);
    for page in expected["pages"].as_array().unwrap() {
        let block = page["block"].as_u64().unwrap() as u32;
        let status = page["status"].as_str().unwrap();
        let ours = v.pages.iter().find(|p| p.block == block);
        assert_eq!(
            ours.map_or("ok", |p| p.status.as_str()),
            if status == "zero" { "ok" } else { status },
            "block {block}"
        );
        if let Some(p) = ours {
            assert_eq!(serde_json::json!(p.stored), page["stored"], "block {block}");
            assert_eq!(
                serde_json::json!(p.computed),
                page["computed"],
                "block {block}"
            );
        }
    }
    // The server's own page_checksum named 10 and 11 as each other's; the tuples agree.
    assert_eq!(
        claims(&v),
        [
            (10, 11, Finding::MisplacedByTupleIds),
            (11, 10, Finding::MisplacedByTupleIds)
        ]
    );
    // Block 3's pd_checksum had a bit flipped: its tuples name block 3, no candidate.
    assert_eq!(row(&v, 3).tuple_block, Some(3));
    assert_eq!(row(&v, 3).misplaced, None);
}

#[test]
fn swapped_btree_leaves_are_claimed_by_their_siblings_links() {
    // public/samples/16437: metapage 0, root 3, leaves 1 <-> 2 <-> 4.
    let clean = read("public/samples/16437");
    for (a, b) in [(1u32, 2u32), (1, 4), (2, 4)] {
        let mut file = clean.clone();
        let (pa, pb) = (a as usize * BS, b as usize * BS);
        let page_a = clean[pa..pa + BS].to_vec();
        file[pa..pa + BS].copy_from_slice(&clean[pb..pb + BS]);
        file[pb..pb + BS].copy_from_slice(&page_a);
        let v = verdict(&file, 0, ChecksumsKnown::Unknown);
        assert_eq!(
            claims(&v),
            [
                (a, b, Finding::MisplacedBySiblingLinks),
                (b, a, Finding::MisplacedBySiblingLinks)
            ],
            "{a} <-> {b}"
        );
    }
    // A leaf damaged in place: its siblings name its own block, so no candidate.
    let mut file = clean.clone();
    file[2 * BS + 8] ^= 0x40;
    let v = verdict(&file, 0, ChecksumsKnown::Unknown);
    assert_eq!(row(&v, 2).status, PageStatus::Mismatch);
    assert_eq!(row(&v, 2).misplaced, None);
}

#[test]
fn a_file_named_segment_2_written_as_segment_0_is_named_once() {
    for path in [
        "public/samples/16427.2",
        "tests/fixtures/verify/heap_segment_2/16427.2",
    ] {
        let file = read(path);
        let v = verdict(&file, 2, ChecksumsKnown::Unknown);
        assert_eq!(
            v.findings,
            [FileFinding::WrittenAsSegment { segno: 0, pages: 4 }],
            "{path}"
        );
        assert_eq!(v.counts.mismatch, 4);
        for p in &v.pages {
            assert_eq!(p.misplaced, None, "{path} block {}", p.block);
            assert_eq!(p.findings, [Finding::ChecksumMismatch], "{path}");
        }
        assert_eq!(
            v.findings[0].describe("base/5/16427.2"),
            "these pages were written as segment 0 of the relation (4 pages verify there)"
        );
    }
    // With checksums off the tuples say the same.
    let mut file = read("public/samples/16427.2");
    for p in file.chunks_mut(BS) {
        set_u16(p, 8, 0);
    }
    let v = verdict(&file, 2, ChecksumsKnown::Unknown);
    assert!(v.checksums_disabled);
    assert!(v
        .findings
        .contains(&FileFinding::WrittenAsSegment { segno: 0, pages: 4 }));
    assert!(v.pages.is_empty(), "{:?}", v.pages);
    // The same bytes as segment 0 are clean.
    let v = verdict(&read("public/samples/16427"), 0, ChecksumsKnown::Unknown);
    assert!(v.findings.is_empty() && v.pages.is_empty() && !v.is_problem());
}

#[test]
fn trailing_bytes_are_the_servers_short_read_of_the_partial_block() {
    let mut file = read("public/samples/16427")[..3 * BS].to_vec();
    file.extend(vec![0x41u8; 1234]);
    let v = verdict(&file, 0, ChecksumsKnown::Unknown);
    assert_eq!((v.blocks, v.trailing_bytes, v.counts.ok), (3, 1234, 3));
    assert!(v.is_problem());
    let short = FileFinding::ReadShort {
        block: 3,
        bytes: 1234,
        block_size: 8192,
    };
    assert_eq!(v.findings, [short]);
    assert_eq!(short.finding().evidence(), Evidence::Server);
    assert_eq!(
        short.describe("base/5/16427"),
        "could not read block 3 in file \"base/5/16427\": read only 1234 of 8192 bytes"
    );

    let v = verdict(&[7u8; 42], 0, ChecksumsKnown::Unknown);
    assert_eq!((v.blocks, v.trailing_bytes), (0, 42));
    assert_eq!(
        v.findings,
        [FileFinding::ReadShort {
            block: 0,
            bytes: 42,
            block_size: 8192
        }]
    );
    // An empty file is fine, as for the server.
    let v = verdict(&[], 0, ChecksumsKnown::Unknown);
    assert!(!v.is_problem() && v.findings.is_empty());
}

#[test]
fn with_checksums_off_only_the_header_counts() {
    let mut file = read("public/samples/16427");
    for p in file.chunks_mut(BS) {
        set_u16(p, 8, 0);
    }
    set_u16(&mut file[2 * BS..], 12, 9000);
    let v = verdict(&file, 0, ChecksumsKnown::Unknown);
    assert!(v.checksums_disabled);
    assert_eq!(
        v.findings,
        [FileFinding::ChecksumsDisabled { from_pages: true }]
    );
    assert_eq!(
        (v.counts.ok, v.counts.bad_header, v.counts.mismatch),
        (3, 1, 0)
    );
    assert_eq!(v.pages.len(), 1);
    let p = &v.pages[0];
    assert_eq!(
        (p.block, p.status, p.computed),
        (2, PageStatus::BadHeader, None)
    );
    assert_eq!(p.findings, [Finding::HeaderLowerAboveUpper]);
    assert!(v.is_problem());

    // pg_control says checksums are on: every page is a mismatch.
    let v = verdict(&file, 0, ChecksumsKnown::On);
    assert!(!v.checksums_disabled && v.findings.is_empty());
    assert_eq!(v.counts.mismatch, 4);
    assert_eq!(
        row(&v, 2).findings,
        [Finding::ChecksumMismatch, Finding::HeaderLowerAboveUpper]
    );

    // pg_control says they are off, though pages still store the checksums of before
    // (pg_checksums --disable leaves them): header only.
    let mut file = read("public/samples/90001");
    set_u16(&mut file[3 * BS..], 12, 9000);
    let v = verdict(&file, 0, ChecksumsKnown::Off);
    assert_eq!(
        v.findings,
        [FileFinding::ChecksumsDisabled { from_pages: false }]
    );
    assert_eq!((v.counts.ok, v.counts.bad_header), (3, 1));
    assert_eq!(v.pages.len(), 1);
}

#[test]
fn parts_merged_in_any_order_equal_one_scan() {
    let mut file = read("tests/fixtures/verify/heap_mixed/16427");
    file.extend(read("public/samples/90004"));
    file.extend(vec![1u8; 100]);
    let one = verdict(&file, 0, ChecksumsKnown::Unknown);
    assert!(one.pages.len() > 8);
    let g = geometry(&file);
    let blocks = file.len() / BS;
    let mut x = 12345u32;
    for _ in 0..20 {
        // Random cuts into parts, each scanned in chunks, merged in a random order, some
        // through export and import.
        let mut cuts: Vec<usize> = (0..4).map(|_| next(&mut x) as usize % blocks).collect();
        cuts.extend([0, blocks]);
        cuts.sort_unstable();
        let mut parts: Vec<FileScan> = cuts
            .windows(2)
            .map(|w| {
                let mut s = FileScan::new(g, 0, file.len() as u64).unwrap();
                for b in w[0]..w[1] {
                    s.chunk(&file[b * BS..(b + 1) * BS], b as u32);
                }
                if next(&mut x) & 1 == 0 {
                    s = FileScan::import(&s.export()).unwrap();
                }
                s
            })
            .collect();
        while parts.len() > 1 {
            let i = next(&mut x) as usize % parts.len();
            let part = parts.swap_remove(i);
            let j = next(&mut x) as usize % parts.len();
            parts[j].merge(&part).unwrap();
        }
        assert_eq!(parts[0].finish(ChecksumsKnown::Unknown), one);
    }
    // Parts of different files do not merge.
    let mut a = FileScan::new(g, 0, file.len() as u64).unwrap();
    let b = FileScan::new(g, 1, file.len() as u64).unwrap();
    assert!(a.merge(&b).is_err());
}

#[test]
fn chance_odds_follow_the_binomial() {
    let c = Chance::of(131_072, 2);
    let p = 1.0 - (1.0 - 1.0 / 65535.0f64).powf(131_072.0);
    assert!((c.probability - p).abs() < 1e-12);
    assert!((c.expected - 2.000_03).abs() < 1e-4);
    assert_eq!(Chance::of(0, 0).probability, 0.0);
}

#[test]
fn a_torn_page_shows_its_tuples_naming_the_next_block() {
    // Block 126 torn: its first 3 kB as written for 126, the rest (most of its tuples) as
    // written for 127, from the same page of the server.
    let t = &heap_templates()[0];
    let mut file: Vec<u8> = (0..130).flat_map(|b| retarget(t, b)).collect();
    let next = retarget(t, 127);
    file[126 * BS + 3072..127 * BS].copy_from_slice(&next[3072..]);
    let v = verdict(&file, 0, ChecksumsKnown::Unknown);
    assert_eq!(v.pages.len(), 1);
    let r = row(&v, 126);
    assert_eq!((r.status, r.tuple_block), (PageStatus::Mismatch, Some(127)));
    assert_eq!(
        r.findings,
        [Finding::ChecksumMismatch, Finding::HeapTidOtherBlock]
    );
    assert_eq!(r.misplaced, None);
    // With checksums off, the tuples are the only sign, and they are shown.
    for p in file.chunks_mut(BS) {
        set_u16(p, 8, 0);
    }
    let v = verdict(&file, 0, ChecksumsKnown::Unknown);
    assert!(v.checksums_disabled);
    assert_eq!(v.pages.len(), 1);
    assert_eq!(row(&v, 126).status, PageStatus::Ok);
    assert_eq!(row(&v, 126).findings, [Finding::HeapTidOtherBlock]);
}

#[test]
fn a_page_of_another_segment_is_claimed_there() {
    // A file of segment 1 whose block 3 holds the page written for relation block 100.
    let t = &heap_templates()[1];
    let mut file: Vec<u8> = (0..6).flat_map(|b| retarget(t, 131_072 + b)).collect();
    file[3 * BS..4 * BS].copy_from_slice(&retarget(t, 100));
    let v = verdict(&file, 1, ChecksumsKnown::Unknown);
    assert_eq!(row(&v, 3).status, PageStatus::Mismatch);
    let m = row(&v, 3).misplaced.unwrap();
    assert!(m.is_claim());
    assert_eq!((m.block, m.segno, m.block_in_segment), (100, 0, 100));
}

#[test]
fn a_misnamed_file_without_tuples_is_named_by_its_checksums() {
    // The btree's pages named as segment 2, and resealed as segment 1 then named segment 3:
    // no tuple speaks, the checksums alone name the segment, past their aliases.
    let btree = read("public/samples/16437");
    let v = verdict(&btree, 2, ChecksumsKnown::Unknown);
    assert_eq!(
        v.findings,
        [FileFinding::WrittenAsSegment { segno: 0, pages: 5 }]
    );
    assert!(v.pages.iter().all(|p| p.misplaced.is_none()));
    let mut resealed = btree.clone();
    for (b, p) in resealed.chunks_mut(BS).enumerate() {
        seal(p, 131_072 + b as u32);
    }
    let v = verdict(&resealed, 3, ChecksumsKnown::Unknown);
    assert_eq!(
        v.findings,
        [FileFinding::WrittenAsSegment { segno: 1, pages: 5 }]
    );
    // Cut at its start: block 0 gone, the rest were written one block further on.
    let v = verdict(&btree[BS..], 0, ChecksumsKnown::Unknown);
    assert_eq!(
        v.findings,
        [FileFinding::WrittenAtOffset {
            first_block: 1,
            pages: 4
        }]
    );
}

fn zero_runs(v: &FileVerdict) -> Vec<(u32, u32)> {
    v.findings
        .iter()
        .filter_map(|f| match *f {
            FileFinding::ZeroPageBetweenRows { block, pages } => Some((block, pages)),
            _ => None,
        })
        .collect()
}

#[test]
fn an_all_zero_page_before_a_page_with_rows_is_a_note_that_counts_nothing() {
    // The server's sample (public/samples/90002): block 2 of the heap overwritten by zeros.
    let file = read("public/samples/90002");
    let v = verdict(&file, 0, ChecksumsKnown::Unknown);
    assert_eq!(zero_runs(&v), [(2, 1)]);
    let f = &v.findings[0];
    assert_eq!(f.finding().evidence(), Evidence::Note);
    assert!(f
        .describe("x")
        .starts_with("block 2: all-zero page between pages with rows"));
    // Healthy heaps have them (RelationAddBlocks extends by up to 64 pages on 16-18, and
    // RelationAddExtraBlocks by lock waiters before): the note says so, and does not claim
    // that rows were lost.
    assert!(f
        .describe("x")
        .contains("relation extension leaves such pages"));
    assert!(!f.describe("x").contains("any rows it held are gone"));
    // As pg_checksums counts it: a new page, nothing wrong, no page listed.
    assert_eq!((v.counts.zero, v.counts.ok, v.counts.problems()), (1, 3, 0));
    assert!(!v.is_problem() && v.pages.is_empty());

    // Zero pages after the last page with rows are a relation extended, not rows lost.
    let mut tail = read("public/samples/16427");
    tail.extend(std::iter::repeat_n(0u8, 3 * BS));
    assert_eq!(zero_runs(&verdict(&tail, 0, ChecksumsKnown::Unknown)), []);
    // The free space map's pages have no line pointers: its zero pages say nothing.
    let mut fsm = vec![0u8; BS];
    fsm.extend(read("public/samples/16427_fsm"));
    assert_eq!(zero_runs(&verdict(&fsm, 0, ChecksumsKnown::Unknown)), []);
}

#[test]
fn zero_runs_cut_by_parts_are_joined_and_end_at_the_last_page_with_rows() {
    let heap = read("public/samples/16427");
    let page = |b: usize| heap[b * BS..(b + 1) * BS].to_vec();
    // Blocks: 0 rows, 1-4 zero, 5 rows, 6 zero, 7 rows, 8-9 zero (the end).
    let layout = [
        Some(0),
        None,
        None,
        None,
        None,
        Some(1),
        None,
        Some(2),
        None,
        None,
    ];
    let file: Vec<u8> = layout
        .iter()
        .flat_map(|b| b.map_or_else(|| vec![0u8; BS], page))
        .collect();
    let g = geometry(&file);
    let one = verdict(&file, 0, ChecksumsKnown::On);
    assert_eq!(zero_runs(&one), [(1, 4), (6, 1)]);
    assert_eq!(
        one.findings[0].describe("x"),
        format!(
            "blocks 1 to 4 (4 pages): {}",
            Finding::ZeroPageBetweenRows.message()
        )
    );
    // Parts of two or three blocks, merged last part first, through export and import.
    let mut whole = FileScan::new(g, 0, file.len() as u64).unwrap();
    for (start, end) in [(8usize, 10usize), (5, 8), (3, 5), (0, 3)] {
        let mut part = FileScan::new(g, 0, file.len() as u64).unwrap();
        part.chunk(&file[start * BS..end * BS], start as u32);
        whole
            .merge(&FileScan::import(&part.export()).unwrap())
            .unwrap();
    }
    assert_eq!(whole.finish(ChecksumsKnown::On), one);
}
