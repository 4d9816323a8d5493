//! The TypeScript types of the JSON the bindings return, written from the Rust structs that
//! serialize it (ts-rs) into web/src/core/generated/, the web app's only copy of those shapes.
//! When the committed files differ from what the structs say, the test writes the new ones
//! and fails, so a struct changed without its types stops `npm test`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a test: a failure is the report

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use ts_rs::{Config, TS};

/// Every type the web app reads, by the root it is reached from; their fields' types follow.
fn export(cfg: &Config) {
    crate::WebListing::export_all(cfg).unwrap();
}

fn files(dir: &Path) -> BTreeMap<String, String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return BTreeMap::new();
    };
    entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ts"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

#[test]
fn ts_export() {
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web/src/core/generated");
    let fresh: PathBuf = std::env::temp_dir().join(format!("pgpage-ts-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&fresh);
    // serde_json writes a u64 as a number, which JSON.parse reads as one.
    export(&Config::new().with_out_dir(&fresh).with_large_int("number"));
    let want = files(&fresh);
    let have = files(&committed);
    std::fs::remove_dir_all(&fresh).unwrap();
    assert!(!want.is_empty(), "ts-rs wrote nothing");
    if want != have {
        let _ = std::fs::remove_dir_all(&committed);
        std::fs::create_dir_all(&committed).unwrap();
        for (name, text) in &want {
            std::fs::write(committed.join(name), text).unwrap();
        }
        let changed: Vec<&String> = want
            .keys()
            .chain(have.keys())
            .filter(|n| want.get(*n) != have.get(*n))
            .collect();
        panic!(
            "web/src/core/generated/ was out of date with the Rust structs ({changed:?}); \
             it is rewritten now: commit it"
        );
    }
}
