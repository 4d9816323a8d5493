//! Held against pageinspect: every fixture's expected.json was made by a real server, and its
//! lp_off/lp_len/t_hoff (heap_page_items), data/itemlen (bt_page_items, hash_page_items,
//! gist_page_items_bytea) and header say which bytes are tuple data and which are structure,
//! independently of the decoder the rule reads.

use super::*;
use crate::am::decode_page;
use crate::am::decoded::DecodeOptions;
use crate::page::kind::Fork;
use serde_json::Value;

fn fixture(name: &str) -> (Vec<u8>, Value) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/");
    let page = std::fs::read(format!("{dir}{name}/page.bin")).unwrap();
    let json = std::fs::read_to_string(format!("{dir}{name}/expected.json")).unwrap();
    (page, serde_json::from_str(&json).unwrap())
}

fn redacted(page: &[u8], expected: &Value) -> Redaction {
    let fork = match expected["fork"].as_str().unwrap() {
        "fsm" => Fork::Fsm,
        "vm" => Fork::Vm,
        _ => Fork::Main,
    };
    let d = decode_page(
        page,
        expected["block"].as_u64().unwrap() as u32,
        &DecodeOptions {
            fork,
            ..DecodeOptions::default()
        },
    );
    assert_eq!(d.kind.as_str(), expected["kind"].as_str().unwrap());
    redact(&d)
}

fn header(expected: &Value, column: &str) -> usize {
    expected["header"][column].as_u64().unwrap() as usize
}

/// Page header and line pointers (up to pd_lower) and the special space are kept.
fn assert_structure_kept(name: &str, page: &[u8], expected: &Value, r: &Redaction) {
    for off in (0..header(expected, "lower")).chain(header(expected, "special")..page.len()) {
        assert!(!r.masks(off), "{name}: structural byte {off} masked");
    }
}

/// ItemIdData `lp` read from the page itself (little-endian `lp_off:15 lp_flags:2 lp_len:15`).
fn item_id(page: &[u8], lp: usize) -> (usize, usize) {
    let at = 24 + (lp - 1) * 4;
    let w = u32::from_le_bytes(page[at..at + 4].try_into().unwrap());
    ((w & 0x7FFF) as usize, (w >> 17) as usize)
}

fn unhex(s: &str) -> Vec<u8> {
    let s: String = s.trim_start_matches("\\x").split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn heap_tuple_data_is_masked_and_every_header_byte_kept() {
    for name in ["heap_hot_redirect", "heap_nulls_frozen", "sequence"] {
        let (page, expected) = fixture(name);
        let r = redacted(&page, &expected);
        assert_structure_kept(name, &page, &expected, &r);
        let mut headers = vec![false; page.len()];
        let mut data_bytes = 0;
        for item in expected["items"].as_array().unwrap() {
            let Some(hoff) = item["t_hoff"].as_u64() else {
                continue;
            };
            let off = item["lp_off"].as_u64().unwrap() as usize;
            let len = item["lp_len"].as_u64().unwrap() as usize;
            let hoff = hoff as usize;
            // pageinspect's t_data is the bytes the range holds: the range is the right one.
            assert_eq!(
                unhex(item["t_data"].as_str().unwrap()),
                &page[off + hoff..off + len]
            );
            for b in off..off + hoff {
                assert!(!r.masks(b), "{name}: tuple header byte {b} masked");
            }
            headers[off..off + hoff].fill(true);
            for b in off + hoff..off + len {
                assert!(r.masks(b), "{name}: tuple data byte {b} kept");
            }
            data_bytes += len - hoff;
        }
        assert!(data_bytes > 0, "{name}: no tuple data to check");
        assert_eq!(r.bytes_of(Masked::TupleData) as usize, data_bytes, "{name}");
        // The rest of the tuple area (free space, padding, removed tuples' bytes) is masked:
        // nothing but headers, line pointers and special space is kept.
        let area = header(&expected, "lower")..header(&expected, "special");
        for (b, &kept) in headers.iter().enumerate().take(area.end).skip(area.start) {
            assert_eq!(r.masks(b), !kept, "{name}: byte {b}");
        }
    }
}

#[test]
fn index_keys_are_masked_and_tids_and_headers_kept() {
    for name in ["btree_leaf", "btree_root", "btree_posting", "hash_bucket"] {
        let (page, expected) = fixture(name);
        let r = redacted(&page, &expected);
        assert_structure_kept(name, &page, &expected, &r);
        let mut keys = 0;
        let mut storage = vec![false; page.len()];
        for item in expected["items"].as_array().unwrap() {
            let lp = item["itemoffset"].as_u64().unwrap() as usize;
            let (off, len) = item_id(&page, lp);
            storage[off + 8..off + len].fill(true);
            for b in off..off + 8 {
                assert!(
                    !r.masks(b),
                    "{name}: t_tid/t_info byte {b} of item {lp} masked"
                );
            }
            // hash_page_items shows the hash code as a number; it is the tuple's 4 data bytes.
            let key_len = match &item["data"] {
                Value::String(s) => unhex(s).len(),
                _ => 4,
            };
            let key_at = off
                + if item["nulls"].as_bool() == Some(true) {
                    16
                } else {
                    8
                };
            for b in key_at..key_at + key_len {
                assert!(r.masks(b), "{name}: key byte {b} of item {lp} kept");
            }
            keys += key_len;
            if let Some(tids) = item["tids"].as_array() {
                // bt_page_items' data stops where the posting list starts.
                let list = key_at + key_len;
                for b in list..list + 6 * tids.len() {
                    assert!(
                        !r.masks(b),
                        "{name}: posting list byte {b} of item {lp} masked"
                    );
                }
            }
        }
        assert!(keys > 0, "{name}: no keys to check");
        // Tuple data masked is the keys and their alignment padding: none outside the items.
        assert!(r.bytes_of(Masked::TupleData) as usize >= keys, "{name}");
        for m in r.ranges.iter().filter(|m| m.what == Masked::TupleData) {
            assert!(
                (m.start..m.end).all(|b| storage[b as usize]),
                "{name}: {m:?}"
            );
        }
    }
}

#[test]
fn gist_keys_are_masked() {
    let (page, expected) = fixture("gist_leaf");
    let r = redacted(&page, &expected);
    assert_structure_kept("gist_leaf", &page, &expected, &r);
    for item in expected["items"].as_array().unwrap() {
        let lp = item["itemoffset"].as_u64().unwrap() as usize;
        let (off, _) = item_id(&page, lp);
        // gist_page_items_bytea's key_data is the whole index tuple: its 8-byte header, keys.
        let tuple = unhex(item["key_data"].as_str().unwrap());
        assert_eq!(&page[off..off + tuple.len()], &tuple[..]);
        let t_info = u16::from_le_bytes([tuple[6], tuple[7]]);
        let data = if t_info & 0x8000 != 0 { 16 } else { 8 };
        assert!((off..off + 8).all(|b| !r.masks(b)));
        assert!((off + data..off + tuple.len()).all(|b| r.masks(b)));
    }
}

#[test]
fn maps_metapages_and_pointer_pages_keep_everything_structural() {
    for name in [
        "fsm_leaf",
        "fsm_root",
        "vm",
        "btree_meta",
        "hash_meta",
        "gin_meta",
        "brin_meta",
        "brin_revmap",
        "gin_posting_leaf",
    ] {
        let (page, expected) = fixture(name);
        let r = redacted(&page, &expected);
        assert_structure_kept(name, &page, &expected, &r);
        assert_eq!(r.bytes_of(Masked::TupleData), 0, "{name}");
        if matches!(expected["kind"].as_str(), Some("fsm" | "vm")) {
            assert!(r.ranges.is_empty(), "{name}");
        }
    }
}

#[test]
fn other_index_tuples_mask_all_but_their_headers() {
    for name in ["gin_entry", "spgist_root"] {
        let (page, expected) = fixture(name);
        let r = redacted(&page, &expected);
        assert_structure_kept(name, &page, &expected, &r);
        assert!(r.bytes_of(Masked::TupleData) > 0, "{name}");
        // Free space between pd_lower and pd_upper is masked.
        assert!((header(&expected, "lower")..header(&expected, "upper")).all(|b| r.masks(b)));
    }
}

#[test]
fn ranges_are_sorted_disjoint_and_agree_with_the_byte_mask() {
    let (page, expected) = fixture("heap_hot_redirect");
    let r = redacted(&page, &expected);
    let mask = r.byte_mask(page.len());
    for w in r.ranges.windows(2) {
        assert!(w[0].end <= w[1].start);
    }
    for (off, m) in mask.iter().enumerate() {
        assert_eq!(*m == 1, r.masks(off));
    }
    assert_eq!(mask.iter().filter(|&&m| m == 1).count(), r.bytes() as usize);
    assert!(r.note().starts_with(&format!(
        "row data redacted: {} bytes of tuple data masked",
        r.bytes_of(Masked::TupleData)
    )));
}

#[test]
fn garbage_redacts_without_panic() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for len in [0usize, 1, 24, 100, 8192] {
        let page: Vec<u8> = (0..len)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed as u8
            })
            .collect();
        for kind in crate::page::kind::PageKind::ALL {
            let d = decode_page(
                &page,
                0,
                &DecodeOptions {
                    kind: Some(kind),
                    ..DecodeOptions::default()
                },
            );
            let r = redact(&d);
            assert!(r.bytes() as usize <= len);
        }
    }
}

#[test]
fn row_data_columns_are_the_value_columns() {
    for c in [
        "t_data",
        "data",
        "key_data",
        "value",
        "values",
        "last_value",
    ] {
        assert!(is_row_data_column(c), "{c}");
    }
    for c in [
        "tids",
        "ctid",
        "t_ctid",
        "t_bits",
        "htid",
        "lp_off",
        "first_tid",
    ] {
        assert!(!is_row_data_column(c), "{c}");
    }
}

#[test]
fn filedump_prints_masked_bytes_as_xx_and_the_rest_as_pg_filedump() {
    let (page, expected) = fixture("heap_nulls_frozen");
    let r = redacted(&page, &expected);
    let plain = crate::text::filedump::filedump_fi("16502", &page, 0, crate::Endian::Little);
    let text =
        crate::text::filedump::filedump_fi_redacted("16502", &page, 0, crate::Endian::Little, &r);
    assert!(text.contains(&format!("* {}\n", r.note())));
    // Line by line: the same lines, except the dump rows that show masked bytes.
    let shown: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with("* row data"))
        .collect();
    let original: Vec<&str> = plain.lines().collect();
    assert_eq!(shown.len(), original.len());
    let mut changed = 0;
    for (a, b) in shown.iter().zip(&original) {
        if a != b {
            assert!(a.contains("xx"), "{a}");
            changed += 1;
        }
    }
    assert!(changed > 0);
    // Every tuple's data is gone: pageinspect's t_data hex appears in no row of the dump.
    for item in expected["items"].as_array().unwrap() {
        if let Some(t) = item["t_data"].as_str() {
            let data = unhex(t);
            let hex: String = data.iter().map(|b| format!("{b:02x}")).collect();
            assert!(!text
                .replace([' ', '\n'], "")
                .contains(&hex[..16.min(hex.len())]));
        }
    }
}

#[test]
fn sample_heap_with_dead_tuples_and_hot_chains_keeps_only_structure() {
    // public/samples/16427 (PostgreSQL 15): live and dead tuples, HOT chains, redirects. The
    // line pointers and t_hoff are read here straight from the bytes (itemid.h, htup_details.h).
    let file = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../public/samples/16427"
    ))
    .unwrap();
    for (block, page) in file.chunks_exact(8192).enumerate() {
        let d = decode_page(page, block as u32, &DecodeOptions::default());
        let r = redact(&d);
        let lower = usize::from(u16::from_le_bytes([page[12], page[13]]));
        let upper = usize::from(u16::from_le_bytes([page[14], page[15]]));
        let mut header = vec![false; page.len()];
        header[..lower].fill(true);
        let mut data = 0;
        for lp in 1..=(lower - 24) / 4 {
            let (off, len) = item_id(page, lp);
            let w = u32::from_le_bytes(page[24 + (lp - 1) * 4..24 + lp * 4].try_into().unwrap());
            if (w >> 15) & 3 != 1 || len == 0 {
                continue; // LP_UNUSED, LP_REDIRECT, LP_DEAD without storage
            }
            let hoff = usize::from(page[off + 22]);
            header[off..off + hoff].fill(true);
            assert!(
                (off + hoff..off + len).all(|b| r.masks(b)),
                "block {block} lp {lp}"
            );
            data += len - hoff;
        }
        assert!(data > 0);
        assert_eq!(
            r.bytes_of(Masked::TupleData) as usize,
            data,
            "block {block}"
        );
        assert!(
            (lower..upper).all(|b| r.masks(b)),
            "block {block}: free space kept"
        );
        for (b, &kept) in header.iter().enumerate() {
            assert_eq!(r.masks(b), !kept, "block {block} byte {b}");
        }
    }
}
