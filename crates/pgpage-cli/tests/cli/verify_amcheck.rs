//! `pgpage verify --amcheck DATADIR` held against amcheck, PostgreSQL 13 to 19: a stopped
//! cluster whose heap has an xmin past nextXid and whose int4 B-tree has a leaf with two
//! keys swapped (each page's checksum made valid again: checksums alone see nothing, and
//! only pg_index's key types, read from the catalogs, can judge the order) is checked, and
//! every finding is where verify_heapam (14 on) and bt_index_check put theirs, in their
//! words; the untouched cluster (tables, B-tree, DESC, text under C and GIN indexes, after
//! VACUUM) gives none, and plain verify none either way; an index of a type pgpage does not
//! order is said to be unchecked.

use std::fs;

use crate::common::page::{seal, u16_at, u32_at, BLCKSZ};
use crate::common::{findings, pgpage, Cluster};

/// Line pointer `lp`'s lp_off.
fn lp_off(p: &[u8], lp: usize) -> usize {
    (u32_at(p, 24 + (lp - 1) * 4) & 0x7FFF) as usize
}

/// `verify --amcheck`'s finding lines (stdout, pg_amcheck's shape) and its exit status.
fn verify_amcheck(data: &str) -> (Vec<String>, i32) {
    let out = pgpage(&["verify", "--amcheck", data]);
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("\", block "))
        .map(str::to_owned)
        .collect();
    (lines, out.status.code().unwrap())
}

fn held_against_amcheck(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create extension amcheck",
        "create table x (id int4, s text) with (autovacuum_enabled = off)",
        "insert into x select g, 'row ' || g from generate_series(1, 3000) g",
        "create index x_id on x (id)",
        "create index x_desc on x (id desc nulls last)",
        "create index x_s on x (s collate \"C\")",
        // The database's default collation (initdb --locale=C): ordered as under C.
        "create index x_s_default on x (s)",
        // A type pgpage does not order: said to be unchecked, never guessed.
        "create index x_n on x ((id::numeric))",
        "create table g (a int4[]) with (autovacuum_enabled = off)",
        "insert into g select array[g, g + 1, g % 17] from generate_series(1, 2000) g",
        "create index g_a on g using gin (a)",
        "vacuum analyze",
        "checkpoint",
    ]);
    for i in ["x_id", "x_desc", "x_s", "x_s_default", "x_n"] {
        c.psql(&[&format!("select bt_index_check('{i}')")]);
    }
    if version >= 14 {
        let n = c.psql(&["select count(*) from verify_heapam('x')"]);
        assert_eq!(n.trim(), "0", "{version}");
    }
    let cp = c.psql(&["select next_xid from pg_control_checkpoint()"]);
    let next: u32 = cp.trim().split_once(':').unwrap().1.parse().unwrap();
    let x_path = c.file("select pg_relation_filepath('x')");
    let i_path = c.file("select pg_relation_filepath('x_id')");
    c.stop();
    let data = c.data.to_str().unwrap().to_owned();

    let (lines, code) = verify_amcheck(&data);
    assert!(lines.is_empty(), "{version}: untouched: {lines:?}");
    assert_eq!(code, 0, "{version}");
    let out = pgpage(&["verify", "--amcheck", &data]);
    let notes: Vec<String> = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains("not checked"))
        .map(str::to_owned)
        .collect();
    assert_eq!(
        notes,
        vec![
            "pgpage: note: btree index \"postgres.public.x_n\": the order of its items is not \
             checked: key column 1 is of type OID 1700, which pgpage does not order"
        ],
        "{version}"
    );

    // Heap block 1: the first normal tuple's xmin past nextXid.
    let mut x = fs::read(&x_path).unwrap();
    let page = &x[BLCKSZ..2 * BLCKSZ];
    let heap_lp = (1..=(u16_at(page, 12) as usize - 24) / 4)
        .find(|&lp| (u32_at(page, 24 + (lp - 1) * 4) >> 15) & 3 == 1)
        .unwrap();
    let at = BLCKSZ + lp_off(page, heap_lp);
    x[at..at + 4].copy_from_slice(&(next + 1000).to_le_bytes());
    seal(&mut x, 1);
    fs::write(&x_path, &x).unwrap();

    // B-tree leaf block 1 (not the rightmost: item 1 is its high key): the int4 keys of
    // items 2 and 3 swapped, their heap TIDs left.
    let mut idx = fs::read(&i_path).unwrap();
    let page = &idx[BLCKSZ..2 * BLCKSZ];
    let special = u16_at(page, 16) as usize;
    let flags = u16_at(page, special + 12);
    assert_eq!(flags & 1, 1, "{version}: block 1 is a leaf");
    assert_ne!(u32_at(page, special + 4), 0, "{version}: not the rightmost");
    let (a, b) = (BLCKSZ + lp_off(page, 2) + 8, BLCKSZ + lp_off(page, 3) + 8);
    let (ka, kb) = (u32_at(&idx, a), u32_at(&idx, b));
    assert!(ka < kb, "{version}");
    idx[a..a + 4].copy_from_slice(&kb.to_le_bytes());
    idx[b..b + 4].copy_from_slice(&ka.to_le_bytes());
    seal(&mut idx, 1);
    fs::write(&i_path, &idx).unwrap();

    let plain = pgpage(&["verify", &data]);
    assert_eq!(
        plain.status.code(),
        Some(0),
        "{version}: checksums see nothing"
    );

    let (lines, code) = verify_amcheck(&data);
    assert_eq!(code, 1, "{version}: {lines:?}");
    // Whole messages, numbers in: the server's words are compared below, once it runs.
    // verify_heapam prints nextXid as epoch:xid, as pg_control_checkpoint() does.
    let heap_line = format!(
        "heap table \"postgres.public.x\", block 1, offset {heap_lp}: xmin {} equals or exceeds next valid transaction ID {}",
        next + 1000,
        cp.trim()
    );
    let index_line = format!(
        "btree index \"postgres.public.x_id\", block 1, offset 2: {}",
        "item order invariant violated for index \"x_id\""
    );
    assert_eq!(lines, vec![heap_line.clone(), index_line], "{version}");

    // --json lists the pages with their findings and offsets.
    let out = pgpage(&["verify", "--amcheck", "--json", &data]);
    let v = crate::common::json(&out);
    let pages: Vec<(String, u64, String, u64)> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| {
            let path = f["path"].as_str().unwrap().to_owned();
            f["pages"].as_array().unwrap().iter().flat_map(move |p| {
                let path = path.clone();
                let block = p["block"].as_u64().unwrap();
                p["structure"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
                    .into_iter()
                    .map(move |s| {
                        (
                            path.clone(),
                            block,
                            s["code"].as_str().unwrap().to_owned(),
                            s["offset"].as_u64().unwrap(),
                        )
                    })
            })
        })
        .collect();
    assert_eq!(pages.len(), 2, "{version}: {pages:?}");
    assert!(pages.iter().any(|(p, b, code, o)| p
        .ends_with(x_path.file_name().unwrap().to_str().unwrap())
        && *b == 1
        && code == "heap_xmin_in_future"
        && *o == heap_lp as u64));
    assert!(pages
        .iter()
        .any(|(_, b, code, o)| *b == 1 && code == "btree_item_order" && *o == 2));

    // The server's own checks on the same files.
    c.restart();
    let err = c.try_psql("select bt_index_check('x_id')").unwrap_err();
    assert_eq!(
        findings::error_message(&err),
        "item order invariant violated for index \"x_id\"",
        "{version}"
    );
    assert!(lines[1].ends_with(&format!(": {}", findings::error_message(&err))));
    assert_eq!(
        findings::number_after(&err, "Lower index tid=("),
        Some(1),
        "{version}: {err}"
    );
    assert_eq!(
        findings::number_after(&err, "Lower index tid=(1,"),
        Some(2),
        "{version}: {err}"
    );
    if version >= 14 {
        let rows = c.psql(&["select blkno || '|' || offnum || '|' || msg from verify_heapam('x')"]);
        let rows: Vec<&str> = rows.lines().filter(|l| !l.is_empty()).collect();
        assert_eq!(rows.len(), 1, "{version}: {rows:?}");
        let want = format!(
            "1|{heap_lp}|xmin {} equals or exceeds next valid transaction ID 0:",
            next + 1000
        );
        assert!(rows[0].starts_with(&want), "{version}: {rows:?}");
        // pgpage's line ends in verify_heapam's message, word for word.
        let msg = rows[0].splitn(3, '|').nth(2).unwrap();
        assert!(
            heap_line.ends_with(&format!(": {msg}")),
            "{version}: {msg} / {heap_line}"
        );
    }
}

each_version!(held_against_amcheck);
