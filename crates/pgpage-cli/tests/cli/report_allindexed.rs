//! A key changed in a heap tuple with the page's checksum made valid again (a value changed
//! in memory before the page was written), on PostgreSQL 13 to 19: no page check sees it,
//! amcheck's heapallindexed does. The report must name each such row, the key the index
//! holds for it and the TID of that entry as the server's amcheck names it, say nothing of
//! a clean cluster, and its SQL step must give the server back the table it had.

use std::fs;

use crate::common::page::{seal, u16_at, u32_at, BLCKSZ};
use crate::common::{copy_dir, json, pgpage, steps_of, Cluster};

/// (block, line pointer) of a ctid as the server prints it, `(70,5)`.
fn tid(text: &str) -> (usize, usize) {
    let t = text.trim().trim_start_matches('(').trim_end_matches(')');
    let (b, o) = t.split_once(',').unwrap();
    (b.parse().unwrap(), o.parse().unwrap())
}

/// The first column (an int4) of the tuple at `lp` of page `block` set to `id`, and the
/// page's checksum made valid for it.
fn set_id(bytes: &mut [u8], block: usize, lp: usize, id: i32) {
    let page = &mut bytes[block * BLCKSZ..(block + 1) * BLCKSZ];
    let item = u32_at(page, 24 + 4 * (lp - 1));
    let off = (item & 0x7FFF) as usize;
    let hoff = usize::from(page[off + 22]);
    assert!(u16_at(page, off + 18) != 0 || hoff >= 24, "a tuple at {lp}");
    page[off + hoff..off + hoff + 4].copy_from_slice(&id.to_le_bytes());
    seal(bytes, block);
}

fn sorted(text: &str) -> Vec<String> {
    let mut v: Vec<String> = text.lines().map(str::to_owned).collect();
    v.sort();
    v
}

fn changed_keys(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create extension amcheck",
        "create table t (id int primary key, grp text not null, note text) with (fillfactor = 80, autovacuum_enabled = off)",
        "create index t_grp on t (grp)",
        "insert into t select g, 'g' || (g % 37), repeat('n', g % 40) from generate_series(1, 3000) g",
        // HOT updates (the live version is not at its chain's root), then a VACUUM that
        // prunes some chains to redirects.
        "update t set note = note || '!' where id % 5 = 0",
        "delete from t where id % 13 = 0",
        "vacuum t",
        "update t set note = note || '?' where id % 10 = 0",
        "checkpoint",
    ]);
    let before = sorted(&c.copy("t"));
    // A row updated by HOT twice, and one never updated whose new key another row holds.
    let hot = tid(&c.psql(&["select ctid from t where id = 1000"]));
    let plain = tid(&c.psql(&["select ctid from t where id = 1501"]));
    let file = c.file("select pg_relation_filepath('t')");
    c.stop();

    let data_dir = c.data.clone();
    let data = data_dir.to_str().unwrap();
    let clean = pgpage(&["report", "--json", data]);
    let clean_report = json(&clean);
    assert_eq!(
        clean.status.code(),
        Some(0),
        "PostgreSQL {version}: a clean cluster: {clean_report:#}"
    );
    let verdict = clean_report["verdict"].as_str().unwrap();
    assert!(
        verdict.contains("held against its table's B-tree indexes")
            && clean_report["rows_held"].as_u64().unwrap() >= 2800,
        "PostgreSQL {version}: {verdict}"
    );

    // The cluster before the change, as a base backup: its pages have the damaged ones' pd_lsn.
    let backup = c.root.join("backup");
    copy_dir(&c.data, &backup);

    let mut bytes = fs::read(&file).unwrap();
    set_id(&mut bytes, hot.0, hot.1, 990_000);
    set_id(&mut bytes, plain.0, plain.1, 7);
    fs::write(&file, &bytes).unwrap();

    c.restart();
    // The server's own view of the damage: no error on reading, the changed row answered
    // for the index's key, and amcheck's heapallindexed naming the TID of the entry.
    assert_eq!(
        c.psql(&["select count(*) from t"]).trim(),
        before.len().to_string()
    );
    let answered = c.psql(&[
        "set enable_seqscan = off",
        "set enable_bitmapscan = off",
        "select id from t where id = 1000",
        "select id, grp from t where id = 1000",
    ]);
    // An index-only scan gives the index's key; an index scan, the row as it is.
    let grp = format!("g{}", 1000 % 37);
    assert_eq!(
        answered.lines().collect::<Vec<_>>(),
        ["1000", &format!("990000|{grp}")],
        "PostgreSQL {version}"
    );
    let amcheck = c
        .try_psql("select bt_index_check('t_pkey', true)")
        .expect_err("heapallindexed finds a row without its entry");
    c.stop();

    let out = pgpage(&["report", "--json", data]);
    assert_eq!(out.status.code(), Some(1), "damage found: exit 1");
    let report = json(&out);
    let blocks: Vec<&serde_json::Value> = report["relations"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["blocks"].as_array().unwrap())
        .collect();
    let mut named: Vec<(u64, u64)> = blocks
        .iter()
        .map(|b| {
            (
                b["block"].as_u64().unwrap(),
                b["key_mismatches"][0]["lp"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    named.sort();
    let mut want = vec![
        (hot.0 as u64, hot.1 as u64),
        (plain.0 as u64, plain.1 as u64),
    ];
    want.sort();
    assert_eq!(
        named, want,
        "PostgreSQL {version}: only the two rows: {report:#}"
    );
    let mismatch = |at: (usize, usize)| {
        let b = blocks.iter().find(|b| b["block"] == at.0 as u64).unwrap();
        assert_eq!(b["damage"], "key_mismatch", "{b:#}");
        assert_eq!(b["route"], "key", "{b:#}");
        assert_eq!(b["status"], "ok", "{b:#}");
        b["key_mismatches"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["lp"] == at.1 as u64)
            .unwrap()
            .clone()
    };
    let m = mismatch(hot);
    assert_eq!(m["index"], "public.t_pkey", "{m:#}");
    assert_eq!(m["keys"], serde_json::json!(["990000"]), "{m:#}");
    assert_eq!(m["index_keys"], serde_json::json!([["1000"]]), "{m:#}");
    // The entry's TID is the chain's root: the one amcheck names, when it names this row.
    // amcheck stops at the first: it names one of the two rows by the TID of its entry.
    let root = format!("heap tuple ({},{})", hot.0, m["root"]);
    let other = format!("heap tuple ({},{})", plain.0, plain.1);
    assert!(
        amcheck.contains(&root) || amcheck.contains(&other),
        "PostgreSQL {version}: {amcheck} names {root} or {other}"
    );
    assert!(
        m["root"] != hot.1 as u64,
        "a HOT chain's newest version: {m:#}"
    );
    let m = mismatch(plain);
    assert_eq!(m["keys"], serde_json::json!(["7"]), "{m:#}");
    assert_eq!(m["index_keys"], serde_json::json!([["1501"]]), "{m:#}");
    assert_eq!(m["root"], plain.1 as u64, "{m:#}");
    // Row 7 keeps its own entry: the unique key is now held twice.
    assert!(m["twins"].as_array().is_some_and(|t| t.len() == 1), "{m:#}");
    let verdict = report["verdict"].as_str().unwrap();
    assert!(
        verdict.contains("2 rows on pages that pass their checksum hold another key than their index entry names"),
        "{verdict}"
    );
    // The backup's page holds each row's version (its t_xmin at the same line pointer) with
    // the key the index holds: that settles which of the two keys is the true one, though the
    // server's reads since the damage set hint bits and moved the page's pd_lsn.
    let from = json(&pgpage(&[
        "report",
        "--json",
        "--from",
        backup.to_str().unwrap(),
        data,
    ]));
    for (at, key) in [(hot, 1000), (plain, 1501)] {
        let b = from["relations"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|r| r["blocks"].as_array().unwrap())
            .find(|b| b["block"] == at.0 as u64)
            .unwrap();
        let said = format!("holds the same row version at ({},{}) (t_xmin ", at.0, at.1);
        let key = format!("it holds id {key}, the key public.t_pkey names");
        assert!(
            b["evidence"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e.as_str().unwrap().contains(&said) && e.as_str().unwrap().contains(&key)),
            "PostgreSQL {version}: {said} … {key}: {b:#}"
        );
        assert_eq!(b["route"], "key", "{b:#}");
    }
    // No value of the rows in the redacted report.
    let redacted = String::from_utf8_lossy(
        &pgpage(&[
            "report",
            "--redact",
            "--from",
            backup.to_str().unwrap(),
            data,
        ])
        .stdout,
    )
    .into_owned();
    assert!(
        !redacted.contains("990000")
            && !redacted.contains("1501")
            && redacted.contains("key_mismatch"),
        "{redacted}"
    );

    // The step's UPDATEs, run as printed, give the server back every row as it was.
    c.restart();
    let steps = steps_of(&report);
    let updates: Vec<&str> = steps
        .iter()
        .flat_map(|s| s.lines())
        .map(str::trim)
        .filter(|l| l.starts_with("UPDATE "))
        .collect();
    assert_eq!(updates.len(), 2, "{steps:#?}");
    for u in &updates {
        c.psql(&[u]);
    }
    assert_eq!(sorted(&c.copy("t")), before, "PostgreSQL {version}");
    c.psql(&["select bt_index_check('t_pkey', true)"]);
}

each_version!(changed_keys);
