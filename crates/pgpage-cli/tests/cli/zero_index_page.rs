//! An all-zero B-tree page where the index's links lead, PostgreSQL 13 to 19: the server
//! refuses it on every read that reaches it (_bt_checkpage: an index scan, bt_index_check),
//! and `verify`, `verify --amcheck` and `report` say so in its words, with the REINDEX step.
//! A zero page nothing reaches (what a crash right after relation extension leaves, which
//! btvacuumpage recycles) is read by the server without complaint and gets no finding.

use std::fs;
use std::process::Command;

use crate::common::page::{u16_at, u32_at, BLCKSZ};
use crate::common::{json, ok, pgpage, steps_of, Cluster};

/// The statements that read every leaf of `t_v` through the index, as the server runs them.
const INDEX_SCAN: [&str; 4] = [
    "set enable_seqscan = off",
    "set enable_bitmapscan = off",
    "set enable_indexonlyscan = off",
    "select count(*) from t where v > -1",
];

fn refused_and_reported(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create extension amcheck",
        "create table t (id int4 primary key, v int4) with (autovacuum_enabled = off)",
        "insert into t select g, g from generate_series(1, 5000) g",
        "create index t_v on t (v)",
        "checkpoint",
    ]);
    let pkey = c.file("select pg_relation_filepath('t_pkey')");
    let t_v = c.file("select pg_relation_filepath('t_v')");
    c.stop();
    let data = c.data.clone();
    let data_s = data.to_str().unwrap().to_owned();

    // A zero page past the tree's pages, reached by no link: relation extension leaves one
    // when the server stops before the page is used (the extension itself is not logged).
    let mut pk = fs::read(&pkey).unwrap();
    let legit = (pk.len() / BLCKSZ) as u32;
    pk.resize(pk.len() + BLCKSZ, 0);
    fs::write(&pkey, &pk).unwrap();
    c.restart();
    c.psql(&[
        "select bt_index_check('t_pkey')",
        "select bt_index_check('t_v')",
    ]);
    let mut scan = INDEX_SCAN.to_vec();
    scan[3] = "select count(*) from t where id > -1";
    assert_eq!(
        c.psql(&scan).trim(),
        "5000",
        "{version}: the server reads past it"
    );
    c.stop();
    let out = pgpage(&["verify", "--amcheck", &data_s]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{version}: {stdout}");
    assert!(!stdout.contains("zero page"), "{version}: {stdout}");
    let out = pgpage(&["verify", "--json", &data_s]);
    assert_eq!(out.status.code(), Some(0), "{version}");
    let report = json(&pgpage(&["report", "--json", &data_s]));
    assert_eq!(
        report["relations"].as_array().unwrap().len(),
        0,
        "{version}: block {legit} of t_pkey is no damage: {report}"
    );

    // A copy whose t_v has leaf block 2 zeroed.
    let dmg = c.root.join("dmg");
    ok(
        Command::new("cp")
            .args(["-a", &data_s, dmg.to_str().unwrap()])
            .output()
            .unwrap(),
        "cp -a",
    );
    let rel_t_v = t_v
        .strip_prefix(&data)
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    let dmg_t_v = dmg.join(&rel_t_v);
    let mut idx = fs::read(&dmg_t_v).unwrap();
    let page = &idx[2 * BLCKSZ..3 * BLCKSZ];
    let special = u16_at(page, 16) as usize;
    assert_eq!(
        u16_at(page, special + 12) & 3,
        1,
        "{version}: a leaf, not the root"
    );
    assert_ne!(u32_at(page, special + 4), 0, "{version}: not the rightmost");
    idx[2 * BLCKSZ..3 * BLCKSZ].fill(0);
    fs::write(&dmg_t_v, &idx).unwrap();
    let dmg_s = dmg.to_str().unwrap().to_owned();

    // What pgpage says, the server not started.
    let out = pgpage(&["verify", "--amcheck", &dmg_s]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{version}: {stdout}");
    let line = "btree index \"postgres.public.t_v\", block 2: index \"t_v\" contains unexpected zero page at block 2";
    let lines: Vec<&str> = stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| *l == line)
        .unwrap_or_else(|| panic!("{version}: {stdout}"));
    assert_eq!(lines.get(at + 1), Some(&"    HINT:  Please REINDEX it."));
    assert_eq!(
        lines.iter().filter(|l| l.contains("zero page")).count(),
        1,
        "{version}: t_pkey's unreached zero page is no finding: {stdout}"
    );

    // Without --amcheck too, the index by the name the server's message quotes (the
    // catalogs'), never by its file's path.
    let out = pgpage(&["verify", &dmg_s]);
    assert_eq!(out.status.code(), Some(1), "{version}");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        stderr.contains("block 2: index \"t_v\" contains unexpected zero page at block 2"),
        "{version}: {stderr}"
    );

    let out = pgpage(&["verify", "--json", &dmg_s]);
    assert_eq!(out.status.code(), Some(1), "{version}");
    let v = json(&out);
    let file = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"].as_str().unwrap().ends_with(rel_t_v.as_str()))
        .unwrap_or_else(|| panic!("{version}: {v}"));
    let pages = file["pages"].as_array().unwrap();
    assert_eq!(pages.len(), 1, "{version}: {file}");
    assert_eq!(pages[0]["block"], 2);
    assert_eq!(
        pages[0]["status"], "zero",
        "{version}: the status stays zero"
    );
    assert_eq!(pages[0]["computed"], serde_json::Value::Null);
    assert_eq!(pages[0]["findings"][0], "btree_unexpected_zero_page");

    let report = json(&pgpage(&["report", "--json", &dmg_s]));
    let rels = report["relations"].as_array().unwrap();
    assert_eq!(rels.len(), 1, "{version}: {report}");
    assert_eq!(rels[0]["relation"], "public.t_v");
    let blocks = rels[0]["blocks"].as_array().unwrap();
    assert_eq!(blocks.len(), 1, "{version}: {report}");
    let b = &blocks[0];
    assert_eq!(
        (&b["block"], &b["damage"], &b["severity"], &b["status"]),
        (
            &serde_json::json!(2),
            &serde_json::json!("zeroed"),
            &serde_json::json!("error"),
            &serde_json::json!("zero")
        ),
        "{version}: {b}"
    );
    assert!(
        b.get("rows").is_none(),
        "{version}: an index block has no rows"
    );
    let server = b["server"].as_str().unwrap().to_owned();
    assert_eq!(
        server,
        "ERROR:  index \"t_v\" contains unexpected zero page at block 2\nHINT:  Please REINDEX it."
    );
    let evidence: Vec<&str> = b["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    assert!(
        evidence
            .iter()
            .any(|e| e.starts_with("index \"t_v\" contains unexpected zero page at block 2 (")),
        "{version}: {evidence:?}"
    );
    let steps = steps_of(&report);
    assert!(
        steps
            .iter()
            .any(|s| s.ends_with(": REINDEX INDEX public.t_v")),
        "{version}: {steps:?}"
    );
    assert!(
        !steps
            .iter()
            .any(|s| s.contains("REINDEX INDEX public.t_pkey")),
        "{version}: {steps:?}"
    );
    // REINDEX rebuilds the index page from the table: no step asks for a copy of it.
    assert!(
        !steps
            .iter()
            .any(|s| s.starts_with("Get a good copy") || s.contains("--block 2 --from")),
        "{version}: {steps:?}"
    );

    // The server, started on the copy, refuses the page in the words pgpage quoted.
    c.data = dmg.clone();
    c.restart();
    let scan = c.psql_output("postgres", &INDEX_SCAN);
    assert!(
        !scan.status.success(),
        "{version}: the index scan read the page"
    );
    let err = String::from_utf8_lossy(&scan.stderr).into_owned();
    assert!(err.contains(&format!("{server}\n")), "{version}: {err}");
    let check = c.try_psql("select bt_index_check('t_v')").unwrap_err();
    assert!(check.contains(&format!("{server}\n")), "{version}: {check}");
    // t_pkey's zero page: still read without complaint.
    c.psql(&["select bt_index_check('t_pkey')"]);
    // What the step says repairs it.
    c.psql(&["reindex index public.t_v", "select bt_index_check('t_v')"]);
    assert_eq!(c.psql(&INDEX_SCAN).trim(), "5000", "{version}");
    c.stop();
}

each_version!(refused_and_reported);
