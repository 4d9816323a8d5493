//! A file's kind from its fork, metapage and pages (`file_kind`), held against the kinds the
//! sample generator took from the server's catalog (public/samples/manifest.json), and a
//! damaged page decoding as its file's kind.

use std::fs;
use std::path::PathBuf;

use pgpage::am::decode_page;
use pgpage::am::decoded::{DecodeOptions, Items};
use pgpage::am::kind::file_kind;
use pgpage::findings::Finding;
use pgpage::page::kind::{Fork, PageKind};
use pgpage::Endian;
use serde_json::Value;

fn samples() -> (PathBuf, Value) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../public/samples");
    let m = serde_json::from_str(&fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    (dir, m)
}

fn fork(name: &str) -> Fork {
    match name {
        "fsm" => Fork::Fsm,
        "vm" => Fork::Vm,
        "init" => Fork::Init,
        _ => Fork::Main,
    }
}

#[test]
fn every_sample_files_kind_is_its_catalogs() {
    let (dir, m) = samples();
    for s in m["samples"].as_array().unwrap() {
        let bytes = fs::read(dir.join(s["file"].as_str().unwrap())).unwrap();
        let got = file_kind(
            fork(s["fork"].as_str().unwrap()),
            bytes.chunks_exact(8192),
            Endian::Little,
        );
        assert_eq!(got.as_str(), s["kind"].as_str().unwrap(), "{}", s["file"]);
        // The metapage alone decides an index's kind.
        if matches!(
            got,
            PageKind::Btree | PageKind::Hash | PageKind::Gin | PageKind::Spgist | PageKind::Brin
        ) {
            assert_eq!(
                file_kind(Fork::Main, bytes.chunks_exact(8192).take(1), Endian::Little),
                got
            );
        }
    }
    assert_eq!(
        file_kind(Fork::Main, std::iter::empty(), Endian::Little),
        PageKind::Unknown
    );
    assert_eq!(
        file_kind(Fork::Main, [&[0u8; 8192][..]], Endian::Little),
        PageKind::Unknown
    );
}

#[test]
fn a_zeroed_pd_upper_decodes_as_its_files_heap_page() {
    // 90003: the heap 16427 with only pd_upper of block 1 zeroed (scripts/make-samples.sh).
    let (dir, _) = samples();
    let bytes = fs::read(dir.join("90003")).unwrap();
    let clean = fs::read(dir.join("16427")).unwrap();
    let kind = file_kind(Fork::Main, bytes.chunks_exact(8192), Endian::Little);
    let page = &bytes[8192..16384];
    let alone = decode_page(page, 1, &DecodeOptions::default());
    assert_eq!((alone.kind, alone.items.len()), (PageKind::Unknown, 0));
    let opts = DecodeOptions {
        file_kind: Some(kind),
        ..DecodeOptions::default()
    };
    let d = decode_page(page, 1, &opts);
    assert_eq!(d.kind, PageKind::Heap);
    assert_eq!(d.findings, vec![Finding::KindFromFile]);
    assert!(d
        .problems()
        .any(|s| s.problem == Some(Finding::NewPageNotZero)));
    // The same rows as the undamaged page's: only pd_upper differs.
    let want = decode_page(&clean[8192..16384], 1, &DecodeOptions::default());
    match (&d.items, &want.items) {
        (Items::Heap(a), Items::Heap(b)) => assert!(a == b && !a.is_empty()),
        other => panic!("not heap rows: {other:?}"),
    }
}
