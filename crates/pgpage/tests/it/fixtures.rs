//! Golden pages from a real PostgreSQL 15 (tests/fixtures/make.sh): each `page.bin` decoded
//! by pgpage must show every column pageinspect printed in `expected.json` for the same bytes.

use std::fs;
use std::path::PathBuf;

use pgpage::am::decode_page;
use pgpage::am::decoded::DecodeOptions;
use pgpage::page::checksum::pg_checksum_page;
use pgpage::page::kind::{Fork, PageKind};
use pgpage::Endian;
use serde_json::Value;

fn fixtures() -> Vec<(String, Vec<u8>, Value)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let mut out = Vec::new();
    for entry in fs::read_dir(&dir).expect("tests/fixtures") {
        let path = entry.unwrap().path();
        // Other suites keep their own folders here (tests/fixtures/verify): only page cases.
        if !path.join("page.bin").is_file() {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let page = fs::read(path.join("page.bin")).unwrap();
        let expected: Value =
            serde_json::from_str(&fs::read_to_string(path.join("expected.json")).unwrap()).unwrap();
        out.push((name, page, expected));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Every key PostgreSQL printed has the same value in ours.
fn subset(ours: &Value, theirs: &Value, at: &str) {
    match theirs {
        Value::Object(m) => {
            for (k, v) in m {
                let o = ours
                    .get(k)
                    .unwrap_or_else(|| panic!("{at}: no column {k} in {ours}"));
                subset(o, v, &format!("{at}.{k}"));
            }
        }
        Value::Array(rows) if rows.first().is_some_and(Value::is_object) => {
            let ours = ours
                .as_array()
                .unwrap_or_else(|| panic!("{at}: not an array: {ours}"));
            assert_eq!(ours.len(), rows.len(), "{at}: row count");
            for (i, (o, t)) in ours.iter().zip(rows).enumerate() {
                subset(o, t, &format!("{at}[{}]", i + 1));
            }
        }
        Value::Number(n) => assert_eq!(ours.as_f64(), n.as_f64(), "{at}"),
        _ => assert_eq!(ours, theirs, "{at}"),
    }
}

#[test]
fn every_fixture_matches_pageinspect() {
    let all = fixtures();
    assert!(
        all.len() >= 15,
        "fixtures missing: run tests/fixtures/make.sh"
    );
    for (name, page, expected) in all {
        let fork = match expected["fork"].as_str().unwrap() {
            "fsm" => Fork::Fsm,
            "vm" => Fork::Vm,
            _ => Fork::Main,
        };
        let block = expected["block"].as_u64().unwrap() as u32;
        let opts = DecodeOptions {
            endian: Endian::Little,
            kind: None,
            fork,
            file_kind: None,
        };
        let decoded = decode_page(&page, block, &opts);
        let kind = PageKind::parse(expected["kind"].as_str().unwrap()).unwrap();
        assert_eq!(decoded.kind, kind, "{name}: kind");
        let ours = serde_json::to_value(&decoded).unwrap();
        subset(
            &ours["header"],
            &expected["header"],
            &format!("{name}.header"),
        );
        assert_eq!(
            u64::from(pg_checksum_page(&page, block, Endian::Little)),
            expected["checksum"].as_u64().unwrap(),
            "{name}: page_checksum"
        );
        if !expected["items"].is_null() {
            subset(&ours["items"], &expected["items"], &format!("{name}.items"));
        }
        if !expected["special"].is_null() {
            subset(
                &ours["special"],
                &expected["special"],
                &format!("{name}.special"),
            );
        }
        if !expected["meta"].is_null() {
            subset(
                &ours["special"]["meta"],
                &expected["meta"],
                &format!("{name}.meta"),
            );
        }
        // The spans cover the page exactly once, in order.
        let mut at = 0;
        for s in &decoded.spans {
            assert_eq!(s.start, at, "{name}: span gap or overlap at {at}");
            at = s.end;
        }
        assert_eq!(at as usize, page.len(), "{name}: spans end");
        assert!(
            decoded.problems().next().is_none(),
            "{name}: a clean page has no problems: {:?}",
            decoded.problems().collect::<Vec<_>>()
        );
    }
}

#[test]
fn damaged_fixtures_still_decode() {
    for (name, page, _) in fixtures() {
        for at in (0..page.len()).step_by(97) {
            let mut bad = page.clone();
            bad[at] ^= 0xA5;
            for kind in PageKind::ALL {
                let d = decode_page(
                    &bad,
                    0,
                    &DecodeOptions {
                        endian: Endian::Little,
                        kind: Some(kind),
                        fork: Fork::Main,
                        file_kind: None,
                    },
                );
                assert_eq!(
                    d.spans.last().map(|s| s.end as usize),
                    Some(bad.len()),
                    "{name} @ {at} as {kind:?}"
                );
            }
        }
    }
}
