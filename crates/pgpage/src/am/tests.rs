use super::*;
use crate::am::decoded::{DecodeOptions, Items};
use crate::am::kind::detect_kind;
use crate::page::kind::Fork;

#[test]
fn garbage_of_every_length_decodes() {
    let mut seed = 0x1234_5678_9abc_def0u64;
    for len in [0usize, 1, 7, 23, 24, 25, 100, 1024, 8192, 8193] {
        for _ in 0..6 {
            let page: Vec<u8> = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed as u8
                })
                .collect();
            for kind in PageKind::ALL {
                for endian in [Endian::Little, Endian::Big] {
                    let d = decode_page(
                        &page,
                        7,
                        &DecodeOptions {
                            endian,
                            kind: Some(kind),
                            fork: Fork::Main,
                            file_kind: None,
                        },
                    );
                    let mut at = 0;
                    for s in &d.spans {
                        assert_eq!(s.start, at);
                        assert!(s.end > s.start);
                        at = s.end;
                    }
                    assert_eq!(at as usize, len);
                }
            }
        }
    }
}

#[test]
fn set_item_id_writes_the_bitfields_gcc_lays_out() {
    let le_word: u32 = 8152 | (1 << 15) | (40 << 17);
    let be_word: u32 = (8152 << 17) | (1 << 15) | 40;
    for (endian, bytes) in [
        (Endian::Little, le_word.to_le_bytes()),
        (Endian::Big, be_word.to_be_bytes()),
    ] {
        let mut page = vec![0u8; 8192];
        assert!(crate::page::bufpage::set_item_id(
            &mut page, endian, 2, 8152, 1, 40
        ));
        assert_eq!(page[28..32], bytes, "{endian:?}");
        assert!(!crate::page::bufpage::set_item_id(
            &mut page, endian, 3000, 1, 1, 1
        ));
    }
}

#[test]
fn item_id_bitfields_follow_byte_order() {
    // lp_off 8152, LP_NORMAL, lp_len 40 as GCC lays out `lp_off:15 lp_flags:2 lp_len:15`.
    let le_word: u32 = 8152 | (1 << 15) | (40 << 17);
    let be_word: u32 = (8152 << 17) | (1 << 15) | 40;
    for (endian, bytes) in [
        (Endian::Little, le_word.to_le_bytes()),
        (Endian::Big, be_word.to_be_bytes()),
    ] {
        let mut page = vec![0u8; 8192];
        let put16 = |p: &mut Vec<u8>, at: usize, v: u16| {
            let b = if endian == Endian::Little {
                v.to_le_bytes()
            } else {
                v.to_be_bytes()
            };
            p[at..at + 2].copy_from_slice(&b);
        };
        put16(&mut page, 12, 28);
        put16(&mut page, 14, 8152);
        put16(&mut page, 16, 8192);
        put16(&mut page, 18, 8192 | 4);
        page[24..28].copy_from_slice(&bytes);
        let d = decode_page(
            &page,
            0,
            &DecodeOptions {
                endian,
                kind: None,
                fork: Fork::Main,
                file_kind: None,
            },
        );
        assert_eq!(d.kind, PageKind::Heap);
        let Items::Heap(items) = &d.items else {
            panic!("heap items")
        };
        assert_eq!(
            (items[0].lp_off, items[0].lp_flags, items[0].lp_len),
            (8152, 1, 40),
            "{endian:?}"
        );
    }
}

#[test]
fn damaged_line_pointer_is_flagged_and_the_rest_still_decodes() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/heap_hot_redirect/page.bin"
    );
    let clean = std::fs::read(path).unwrap();
    let opts = DecodeOptions::default();
    let before = decode_page(&clean, 0, &opts);
    let mut bad = clean.clone();
    // lp 1: LP_NORMAL, lp_off 8184, lp_len 100: runs past the page.
    bad[24..28].copy_from_slice(&(8184u32 | (1 << 15) | (100 << 17)).to_le_bytes());
    let after = decode_page(&bad, 0, &opts);
    assert_eq!(after.kind, PageKind::Heap);
    assert_eq!(after.items.len(), before.items.len());
    let (Items::Heap(a), Items::Heap(b)) = (&after.items, &before.items) else {
        panic!("heap items")
    };
    assert_eq!(
        a[0].t_xmin, None,
        "heap_page_items shows no tuple for a line pointer past the page"
    );
    assert_eq!(a[1..], b[1..], "the other items decode as before");
    let flagged: Vec<_> = after.problems().filter(|s| s.item == Some(1)).collect();
    assert!(
        flagged.iter().any(|s| s.field.name() == "ItemIdData"),
        "{flagged:?}"
    );
    assert!(before.problems().next().is_none());
}

#[path = "../../tests/support/big_endian.rs"]
mod big_endian;
use big_endian::to_big_endian_heap;

#[test]
fn big_endian_pages_decode_like_their_little_endian_twins() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/heap_hot_redirect/page.bin"
    );
    let le = std::fs::read(path).unwrap();
    let be = to_big_endian_heap(&le);
    assert_ne!(le, be);
    let little = decode_page(&le, 0, &DecodeOptions::default());
    let big = decode_page(
        &be,
        0,
        &DecodeOptions {
            endian: Endian::Big,
            ..DecodeOptions::default()
        },
    );
    assert_eq!(big.kind, PageKind::Heap);
    assert_eq!(big.header, little.header);
    assert_eq!(big.items, little.items);
    assert_eq!(big.spans, little.spans);
    // Read as little-endian, the same bytes are nonsense: the byte order matters.
    assert_ne!(
        decode_page(&be, 0, &DecodeOptions::default()).items,
        little.items
    );
}

#[test]
fn overlapping_garbage_items_stop_decoding_instead_of_repeating_the_same_bytes() {
    // Every one of 1,400 line pointers points at the same posting tuple: decoding each would
    // print the same posting list 1,400 times (seconds in wasm).
    let mut page = vec![0u8; 8192];
    let put16 = |p: &mut [u8], at: usize, v: u16| p[at..at + 2].copy_from_slice(&v.to_le_bytes());
    put16(&mut page, 12, (24 + 1400 * 4) as u16); // pd_lower
    put16(&mut page, 14, 6000); // pd_upper
    put16(&mut page, 16, 8176); // pd_special: BTPageOpaqueData
    put16(&mut page, 18, 8192 | 4);
    put16(&mut page, 8176 + 12, 1); // btpo_flags: BTP_LEAF
    for lp in 0..1400 {
        let v: u32 = 6000 | (1 << 15) | (1816 << 17); // lp_off 6000, LP_NORMAL, lp_len 1816
        page[24 + lp * 4..28 + lp * 4].copy_from_slice(&v.to_le_bytes());
    }
    // An IndexTupleData with INDEX_ALT_TID_MASK and a posting list of 300 tids at offset 16.
    put16(&mut page, 6000, 0); // ip_blkid (bi_hi, bi_lo)
    put16(&mut page, 6002, 16);
    put16(&mut page, 6004, 0x2000 | 300); // BT_IS_POSTING | nposting
    put16(&mut page, 6006, 0x2000 | 1816); // INDEX_ALT_TID_MASK | size
    let opts = DecodeOptions {
        kind: Some(PageKind::Btree),
        ..DecodeOptions::default()
    };
    let d = decode_page(&page, 0, &opts);
    let Items::Btree(rows) = &d.items else {
        panic!("a btree page: {:?}", d.kind)
    };
    assert!(!rows.is_empty() && rows.len() < 20, "{} rows", rows.len());
    assert!(rows[0].tids.as_ref().is_some_and(|t| t.len() == 300));
    assert!(d.spans.iter().any(|s| s
        .problem
        .is_some_and(|p| p == crate::findings::Finding::ItemsOverlapFar)));
}

#[test]
fn overlapping_heap_tuples_stop_decoding_instead_of_printing_the_same_bytes() {
    // 1,000 line pointers at one 4 kB tuple: each row would print its t_data again (8 MB of
    // hex here; 520 MB and 7 s for a 32 kB page of them).
    let mut page = vec![0u8; 8192];
    let put16 = |p: &mut [u8], at: usize, v: u16| p[at..at + 2].copy_from_slice(&v.to_le_bytes());
    put16(&mut page, 12, (24 + 1000 * 4) as u16); // pd_lower
    put16(&mut page, 14, 4096); // pd_upper
    put16(&mut page, 16, 8192); // pd_special: none
    put16(&mut page, 18, 8192 | 4);
    for lp in 0..1000 {
        let v: u32 = 4096 | (1 << 15) | (4096 << 17); // lp_off 4096, LP_NORMAL, lp_len 4096
        page[24 + lp * 4..28 + lp * 4].copy_from_slice(&v.to_le_bytes());
    }
    page[4096 + 22] = 24; // t_hoff
    let d = decode_page(&page, 0, &DecodeOptions::default());
    let Items::Heap(rows) = &d.items else {
        panic!("a heap page: {:?}", d.kind)
    };
    assert!(!rows.is_empty() && rows.len() < 20, "{} rows", rows.len());
    assert!(rows[0]
        .t_data
        .as_ref()
        .is_some_and(|t| t.len() == 2 + 2 * 4072));
    assert!(d.spans.iter().any(|s| s
        .problem
        .is_some_and(|p| p == crate::findings::Finding::ItemsOverlapFar)));
}

/// contrib/bloom's pages (blutils.c BloomInitPage): an 8-byte special space like GIN's whose
/// last two bytes are BLOOM_PAGE_ID, tuples packed after the header without line pointers.
/// They are not GIN pages (whose flags never pass GIN_COMPRESSED): decoded as GIN, their
/// signatures read as posting lists "running past pd_lower" on every page of an untouched
/// index. pgvector's ivfflat (0xFF84) and hnsw (0xFF90) pages end the same way.
#[test]
fn bloom_and_other_page_ids_in_an_8_byte_special_are_not_gin() {
    for page_id in [0xFF83u16, 0xFF84, 0xFF90] {
        let mut page = vec![0u8; 8192];
        page[12..14].copy_from_slice(&8184u16.to_le_bytes()); // pd_lower: tuples fill it
        page[14..16].copy_from_slice(&8184u16.to_le_bytes()); // pd_upper
        page[16..18].copy_from_slice(&8184u16.to_le_bytes()); // pd_special
        page[18..20].copy_from_slice(&(8192u16 | 4).to_le_bytes());
        // BloomPageOpaqueData: maxoff 50, flags 0, unused, bloom_page_id.
        page[8184..8186].copy_from_slice(&50u16.to_le_bytes());
        page[8190..8192].copy_from_slice(&page_id.to_le_bytes());
        // Signature bytes that decode as GIN posting-list segments.
        for (i, b) in page[24..8184].iter_mut().enumerate() {
            *b = (i * 37 % 251) as u8;
        }
        assert_eq!(
            detect_kind(&page, Endian::Little, Fork::Main),
            PageKind::Unknown,
            "page id {page_id:#x}"
        );
    }
    // GIN's own flags, every combination, stay GIN.
    let mut page = vec![0u8; 8192];
    page[12..14].copy_from_slice(&24u16.to_le_bytes());
    page[14..16].copy_from_slice(&8184u16.to_le_bytes());
    page[16..18].copy_from_slice(&8184u16.to_le_bytes());
    page[18..20].copy_from_slice(&(8192u16 | 4).to_le_bytes());
    for flags in 0..=0xFFu16 {
        page[8190..8192].copy_from_slice(&flags.to_le_bytes());
        assert_eq!(
            detect_kind(&page, Endian::Little, Fork::Main),
            PageKind::Gin
        );
    }
}

#[test]
fn line_pointers_into_the_middle_of_a_tuple_are_no_tuples() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/heap_nulls_frozen/page.bin"
    );
    let clean = std::fs::read(path).unwrap();
    let opts = DecodeOptions::default();
    assert_eq!(decode_page(&clean, 0, &opts).not_tuples, Vec::new());
    let lp = |page: &[u8], n: usize| {
        let at = 24 + 4 * (n - 1);
        u32::from_le_bytes(page[at..at + 4].try_into().unwrap())
    };
    let count = (usize::from(u16::from_le_bytes([clean[12], clean[13]])) - 24) / 4;
    assert!(count >= 4, "the fixture has tuples to land in");
    // The lowest tuple: 16 bytes into it, line pointer 2's length still fits the page.
    let lowest = (1..=count)
        .map(|n| lp(&clean, n))
        .filter(|x| (x >> 15) & 3 == 1)
        .map(|x| x & 0x7fff)
        .min()
        .unwrap();
    let two = lp(&clean, 2);
    // Line pointer 2 as an older write of the page would leave it: inside another tuple,
    // its own length kept; line pointer 3 past the page's end.
    let mut bad = clean.clone();
    let inside = lowest + 16;
    bad[28..32].copy_from_slice(&((two & !0x7fff) | inside).to_le_bytes());
    bad[32..36].copy_from_slice(&(8184u32 | (1 << 15) | (100 << 17)).to_le_bytes());
    let d = decode_page(&bad, 0, &opts);
    let marked: Vec<(Option<u16>, Finding)> =
        d.not_tuples.iter().map(|x| (x.item, x.finding)).collect();
    // verify_heapam's verdict on the bytes there, worked out here from t_hoff and t_infomask.
    let at = usize::try_from(inside).unwrap();
    let (hoff, len) = (
        usize::from(bad[at + 22]),
        usize::try_from(two >> 17).unwrap(),
    );
    let infomask = u16::from_le_bytes([bad[at + 20], bad[at + 21]]);
    let natts = usize::from(u16::from_le_bytes([bad[at + 18], bad[at + 19]]) & 0x7ff);
    let want = if infomask & 1 != 0 {
        (24 + natts.div_ceil(8)).next_multiple_of(8)
    } else {
        24
    };
    assert!(
        hoff > len || hoff != want,
        "the test puts lp 2 on bytes that break t_hoff's rule"
    );
    let two_says = if hoff > len {
        Finding::HeapHoffPastLength
    } else {
        Finding::HeapHoffUnexpected
    };
    assert_eq!(
        marked,
        vec![(Some(2), two_says), (Some(3), Finding::ItemPastPage)]
    );
    assert!(d.not_tuples[0].message().starts_with(if hoff > len {
        "data begins at offset"
    } else {
        "tuple data should begin at byte"
    }));
    let Items::Heap(rows) = &d.items else {
        panic!("heap items")
    };
    assert!(
        rows[1].t_xmin.is_some(),
        "pageinspect still prints a header there: the mark says it is none"
    );
}
