//! `inspect --redact` on files a real PostgreSQL 15 wrote: a table whose rows hold a known
//! secret (live, deleted and vacuumed, and TOASTed uncompressed), its B-tree on the secret
//! column, and its TOAST relation. With --redact no output format (JSON, text, pg_filedump)
//! carries the secret, while everything structural prints as without it; without --redact
//! the secret is there (the test would see it).
use std::path::Path;

use serde_json::Value;

use crate::common::{json, pgpage, Cluster};

/// The secrets and their hex as pageinspect's t_data and bt_page_items' data print them.
const SECRETS: [&str; 3] = ["SECRET-VALUE-123", "DELETED-SECRET-456", "TOAST-SECRET-789"];

fn hex(s: &str) -> String {
    s.bytes().map(|b| format!("{b:02x}")).collect()
}

fn inspect(file: &Path, extra: &[&str]) -> String {
    let mut args = vec!["inspect"];
    args.extend(extra);
    args.push(file.to_str().unwrap());
    let out = pgpage(&args);
    assert!(
        out.status.code() == Some(0),
        "{:?}: {}",
        args,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Whether `text` shows any part of a secret: its words in ASCII, or their hex.
fn leaks(text: &str) -> Vec<&'static str> {
    let flat = text.replace(' ', "");
    let mut found = Vec::new();
    for s in SECRETS {
        for word in s.split('-') {
            if word.len() >= 5 && (text.contains(word) || flat.contains(&hex(word))) {
                found.push(s);
            }
        }
    }
    found
}

#[test]
fn redacted_output_of_every_format_carries_no_row_data() {
    let mut c = Cluster::start(15);
    c.psql(&[
        "CREATE TABLE t (id int, v text, big text) WITH (autovacuum_enabled = off)",
        "ALTER TABLE t ALTER COLUMN big SET STORAGE EXTERNAL",
        "INSERT INTO t SELECT g, 'SECRET-VALUE-123', NULL FROM generate_series(1, 40) g",
        "INSERT INTO t VALUES (41, 'DELETED-SECRET-456', NULL)",
        "INSERT INTO t VALUES (42, 'SECRET-VALUE-123', repeat('TOAST-SECRET-789', 400))",
        "CREATE INDEX t_v ON t (v)",
        "DELETE FROM t WHERE id = 41",
        "VACUUM t",
        "CHECKPOINT",
    ]);
    let heap = c.file("SELECT pg_relation_filepath('t')");
    let index = c.file("SELECT pg_relation_filepath('t_v')");
    let toast =
        c.file("SELECT pg_relation_filepath(reltoastrelid) FROM pg_class WHERE relname = 't'");
    c.stop();

    for file in [&heap, &index, &toast] {
        for format in [&["--json"][..], &[], &["--filedump"]] {
            let plain = inspect(file, format);
            assert!(
                !leaks(&plain).is_empty(),
                "{} {format:?}: the secret is not there to redact",
                file.display()
            );
            let mut redacted = format.to_vec();
            redacted.push("--redact");
            let text = inspect(file, &redacted);
            assert_eq!(
                leaks(&text),
                Vec::<&str>::new(),
                "{} {format:?}",
                file.display()
            );
            assert!(text.contains("row data redacted: "), "{format:?}");
        }
        // Everything structural is as without --redact: header, line pointers, tuple headers.
        let (plain, redacted) = (
            json(&pgpage(&["inspect", "--json", file.to_str().unwrap()])),
            json(&pgpage(&[
                "inspect",
                "--json",
                "--redact",
                file.to_str().unwrap(),
            ])),
        );
        let blocks = plain["blocks"].as_array().unwrap();
        for (a, b) in blocks.iter().zip(redacted["blocks"].as_array().unwrap()) {
            assert_eq!(a["header"], b["header"]);
            let (ia, ib) = (
                a["items"].as_array().unwrap(),
                b["items"].as_array().unwrap(),
            );
            assert_eq!(ia.len(), ib.len());
            for (x, y) in ia.iter().zip(ib) {
                for (k, v) in x.as_object().unwrap() {
                    if ["t_data", "data"].contains(&k.as_str()) && !v.is_null() {
                        assert_eq!(y[k], Value::from("redacted"));
                    } else {
                        assert_eq!(&y[k], v, "{k}");
                    }
                }
            }
            assert!(b["redacted"]["tuple_data_bytes"].as_u64().unwrap() > 0 || ia.is_empty());
        }
    }
}
