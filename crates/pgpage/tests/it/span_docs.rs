//! Every span of every page PostgreSQL wrote for the tests (tests/fixtures/*/page.bin, every
//! block of public/samples/*) carries its own structure's doc: the header file that declares
//! the structure, from a table written here by hand from PostgreSQL's source tree, and for
//! the bytes of a special space or a tuple, the header of the page's own access method. A
//! doc looked up by a bare name ("flags") once gave GIN, SP-GiST and BRIN pages GiST's doc.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

use pgpage::am::decode_page;
use pgpage::am::decoded::DecodeOptions;
use pgpage::am::kind::file_kind;
use pgpage::page::fields::{Role, SpanField};
use pgpage::page::kind::{Fork, PageKind};
use pgpage::Endian;
use serde_json::Value;

/// The header (or .c file) that declares each structure pgpage describes.
fn declared_in(structure: &str) -> &'static str {
    match structure {
        "PageHeaderData" => "bufpage.h",
        "ItemIdData" => "itemid.h",
        "HeapTupleHeaderData" => "htup_details.h",
        "IndexTupleData" => "itup.h",
        "BTPageOpaqueData" | "BTMetaPageData" | "BTDeletedPageData" | "BTreeTuple" => "nbtree.h",
        "HashPageOpaqueData" | "HashMetaPageData" | "HashBitmapPage" => "hash.h",
        "GISTPageOpaqueData" | "GISTDeletedPageContents" => "gist.h",
        "GinPageOpaqueData" | "GinMetaPageData" | "GinPostingList" | "PostingItem"
        | "GinDataPage" => "ginblock.h",
        "SpGistPageOpaqueData"
        | "SpGistMetaPageData"
        | "SpGistInnerTupleData"
        | "SpGistLeafTupleData"
        | "SpGistDeadTupleData" => "spgist_private.h",
        "BrinSpecialSpace" | "BrinMetaPageData" | "RevmapContents" => "brin_page.h",
        "BrinTuple" => "brin_tuple.h",
        "sequence_magic" => "commands/sequence.c",
        "FormData_pg_sequence_data" => "commands/sequence.h",
        "FSMPageData" => "storage/fsm_internals.h",
        "VisibilityMapContents" => "access/visibilitymap",
        other => panic!("no header known for {other}"),
    }
}

/// The headers the special space's bytes of a `kind` page may cite.
fn special_headers(kind: PageKind) -> &'static [&'static str] {
    match kind {
        PageKind::Btree => &["nbtree.h"],
        PageKind::Hash => &["hash.h"],
        PageKind::Gist => &["gist.h"],
        PageKind::Gin => &["ginblock.h"],
        PageKind::Spgist => &["spgist_private.h"],
        PageKind::Brin => &["brin_page.h"],
        PageKind::Sequence => &["commands/sequence.c"],
        _ => &[],
    }
}

/// The headers a tuple's bytes on a `kind` page may cite.
fn tuple_headers(kind: PageKind) -> &'static [&'static str] {
    match kind {
        PageKind::Heap => &["htup_details.h"],
        PageKind::Sequence => &["htup_details.h", "commands/sequence.h"],
        PageKind::Btree => &["itup.h", "nbtree.h"],
        PageKind::Hash | PageKind::Gist => &["itup.h"],
        PageKind::Gin => &["itup.h", "ginblock.h"],
        PageKind::Spgist => &["spgist_private.h"],
        PageKind::Brin => &["brin_tuple.h"],
        _ => &[],
    }
}

fn pages() -> Vec<(String, Vec<u8>, Fork, Option<PageKind>)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut out = Vec::new();
    for entry in fs::read_dir(root.join("tests/fixtures")).unwrap() {
        let path = entry.unwrap().path();
        if !path.join("page.bin").is_file() {
            continue;
        }
        let expected: Value =
            serde_json::from_str(&fs::read_to_string(path.join("expected.json")).unwrap()).unwrap();
        let fork = match expected["fork"].as_str().unwrap() {
            "fsm" => Fork::Fsm,
            "vm" => Fork::Vm,
            _ => Fork::Main,
        };
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        out.push((name, fs::read(path.join("page.bin")).unwrap(), fork, None));
    }
    let dir = root.join("public/samples");
    let manifest: Value =
        serde_json::from_str(&fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let bs = manifest["block_size"].as_u64().unwrap() as usize;
    for s in manifest["samples"].as_array().unwrap() {
        let file = s["file"].as_str().unwrap();
        let fork = match s["fork"].as_str().unwrap() {
            "fsm" => Fork::Fsm,
            "vm" => Fork::Vm,
            "init" => Fork::Init,
            _ => Fork::Main,
        };
        let bytes = fs::read(dir.join(file)).unwrap();
        let kind = file_kind(fork, bytes.chunks_exact(bs).take(8), Endian::Little);
        for (b, page) in bytes.chunks_exact(bs).enumerate() {
            out.push((format!("{file} block {b}"), page.to_vec(), fork, Some(kind)));
        }
    }
    out
}

#[test]
fn every_span_cites_its_own_structures_header() {
    let mut spans_seen = 0usize;
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    let mut structures: BTreeMap<&str, usize> = BTreeMap::new();
    for (name, page, fork, file) in pages() {
        let opts = DecodeOptions {
            fork,
            file_kind: file,
            ..DecodeOptions::default()
        };
        let d = decode_page(&page, 0, &opts);
        *kinds.entry(d.kind.as_str()).or_default() += 1;
        for s in &d.spans {
            spans_seen += 1;
            let doc = s.field.doc();
            let at = format!("{name}: {} at {}", s.field.qualified(), s.start);
            let SpanField::Field(id) = s.field else {
                assert!(doc.starts_with("bufpage.h: "), "{at}: {doc}");
                continue;
            };
            let table = id.table().unwrap();
            let header = declared_in(table.name);
            *structures.entry(table.name).or_default() += 1;
            assert!(doc.starts_with(header), "{at} cites {doc:?}, not {header}");
            assert!(
                s.field.qualified().starts_with(table.name),
                "{at}: qualified name"
            );
            let cites = |hs: &[&str]| hs.iter().any(|h| doc.starts_with(h));
            match s.role {
                Role::Header => assert!(cites(&["bufpage.h"]), "{at}: {doc}"),
                Role::LinePointer => assert!(cites(&["itemid.h"]), "{at}: {doc}"),
                Role::TupleHeader | Role::NullBitmap | Role::TupleData
                    if !matches!(d.kind, PageKind::Unknown) =>
                {
                    assert!(
                        cites(tuple_headers(d.kind)),
                        "{at} on a {:?} page: {doc}",
                        d.kind
                    )
                }
                Role::Special => assert!(
                    cites(special_headers(d.kind)),
                    "{at} on a {:?} page: {doc}",
                    d.kind
                ),
                _ => {}
            }
        }
    }
    // The walk reached every access method's special space and tuples, and the structures
    // the bug report named.
    for k in [
        "heap", "sequence", "btree", "hash", "gist", "gin", "spgist", "brin", "fsm", "vm",
    ] {
        assert!(
            kinds.get(k).is_some_and(|&n| n > 0),
            "no {k} page: {kinds:?}"
        );
    }
    for t in [
        "ItemIdData",
        "GinPageOpaqueData",
        "SpGistPageOpaqueData",
        "SpGistLeafTupleData",
        "BrinSpecialSpace",
        "GISTPageOpaqueData",
        "IndexTupleData",
    ] {
        assert!(
            structures.get(t).is_some_and(|&n| n > 0),
            "no {t} span: {structures:?}"
        );
    }
    assert!(spans_seen > 10_000, "{spans_seen} spans");
}

#[test]
fn the_flags_of_each_special_space_are_its_own() {
    // The fields the bug report named, by their handles: each names its own structure.
    use pgpage::page::fields::{
        brin_special_space, gin_page_opaque_data, gist_page_opaque_data, item_id_data,
        spgist_leaf_tuple_data, spgist_page_opaque_data,
    };
    let cases = [
        (
            &gin_page_opaque_data::FLAGS,
            "ginblock.h: GinPageOpaqueData.flags",
        ),
        (
            &spgist_page_opaque_data::FLAGS,
            "spgist_private.h: SpGistPageOpaqueData.flags",
        ),
        (&brin_special_space::FLAGS, "brin_page.h: BrinSpecialSpace"),
        (
            &gist_page_opaque_data::FLAGS,
            "gist.h: GISTPageOpaqueData.flags",
        ),
        (
            &spgist_leaf_tuple_data::T_INFO,
            "spgist_private.h: SpGistLeafTupleData.t_info",
        ),
        (&item_id_data::LP_LEN, "itemid.h: ItemIdData.lp_len"),
    ];
    for (f, doc) in cases {
        assert!(f.doc.starts_with(doc), "{}: {}", f.qualified(), f.doc);
        assert_eq!(SpanField::Field(f.id).field(), Some(f));
    }
    assert!(SpanField::Field(item_id_data::LP_OFF.id)
        .doc()
        .starts_with("itemid.h: ItemIdData"));
}
