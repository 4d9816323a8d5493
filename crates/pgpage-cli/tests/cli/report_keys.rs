//! The lost rows' keys `pgpage report` lists, for primary keys of the types tables are keyed
//! by (uuid, bigint, numeric, varchar, text under a collation that is not C, timestamptz,
//! date, and a key of two columns), held against the server on PostgreSQL 13 to 19: one
//! block of each table is zeroed on a stopped copy, and the keys the report lists for it are
//! the key columns' text the server gives for the rows at that block on the undamaged copy.

use std::collections::BTreeSet;
use std::fs;
use std::process::Command;

use crate::common::{json, ok, pgpage, Cluster};

const BLCKSZ: usize = 8192;

fn check(version: u32) {
    let mut c = Cluster::start(version);
    // A collation that does not order text as memcmp does, where the server has one: printing
    // a key must not need its collation.
    let collation = c
        .psql(&[
            "select quote_ident(collname) from pg_collation where collname in ('und-x-icu', 'en_US.utf8', 'en_US') order by collname desc limit 1",
        ])
        .trim()
        .to_owned();
    let text_collation = if collation.is_empty() {
        eprintln!("PostgreSQL {version} has no ICU or en_US collation: the text key is under C");
        String::from("\"C\"")
    } else {
        collation
    };
    let tables = [
        ("k_uuid", "k uuid primary key", "md5(g::text)::uuid"),
        ("k_int8", "k bigint primary key", "g::bigint * 1000000007"),
        ("k_numeric", "k numeric primary key", "g / 7.0"),
        ("k_varchar", "k varchar(40) primary key", "'v-' || g"),
        (
            "k_text",
            &format!("k text collate {text_collation} primary key"),
            "'Row ' || lpad(g::text, 5, '0') || ' é'",
        ),
        (
            "k_tstz",
            "k timestamptz primary key",
            "'2026-01-01 00:00:00+00'::timestamptz + g * interval '37 minutes 1.25 seconds'",
        ),
        ("k_date", "k date primary key", "'2000-01-01'::date + g"),
        (
            "k_two",
            "a int, b text, primary key (a, b)",
            "g % 50, 'b' || g",
        ),
    ];
    for (name, columns, values) in &tables {
        let cols = if *name == "k_two" { "a, b" } else { "k" };
        c.psql(&[
            &format!("create table {name} ({columns}, pad text) with (autovacuum_enabled = off)"),
            &format!(
                "insert into {name} ({cols}, pad) select {values}, repeat('x', 60) from generate_series(1, 900) g"
            ),
        ]);
    }
    c.psql(&["checkpoint"]);
    let block = 2usize;
    let mut expected = Vec::new();
    for (name, _, _) in &tables {
        let key = if *name == "k_two" {
            "a::text, b::text"
        } else {
            "k::text"
        };
        // The server's own order of the keys (ORDER BY the key columns, qualified: the
        // output columns of the same names are their text), which the report lists them in.
        let cols = if *name == "k_two" {
            format!("{name}.a, {name}.b")
        } else {
            format!("{name}.k")
        };
        let ordered: Vec<Vec<String>> = c
            .psql(&[&format!(
                "select {key} from {name} where (ctid::text::point)[0] = {block} order by {cols}"
            )])
            .lines()
            .map(|l| l.split('|').map(str::to_owned).collect())
            .collect();
        let rows: BTreeSet<Vec<String>> = ordered.iter().cloned().collect();
        assert!(!rows.is_empty(), "{name} has rows on block {block}");
        let path = c
            .psql(&[&format!("select pg_relation_filepath('{name}')")])
            .trim()
            .to_owned();
        expected.push((format!("public.{name}"), path, rows, ordered));
    }
    c.stop();
    let damaged = c.root.join("damaged");
    ok(
        Command::new("cp")
            .args(["-a", c.data.to_str().unwrap(), damaged.to_str().unwrap()])
            .output()
            .unwrap(),
        "cp -a",
    );
    for (_, path, _, _) in &expected {
        let file = damaged.join(path);
        let mut bytes = fs::read(&file).unwrap();
        bytes[block * BLCKSZ..(block + 1) * BLCKSZ].fill(0);
        fs::write(&file, bytes).unwrap();
    }
    let out = pgpage(&["report", "--json", damaged.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    for (name, _, rows, ordered) in &expected {
        let b = report["relations"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["relation"] == name.as_str())
            .flat_map(|r| r["blocks"].as_array().unwrap())
            .find(|b| b["block"] == block)
            .unwrap_or_else(|| panic!("{name} block {block} not in the report: {report:#}"));
        assert_eq!(b["damage"], "zeroed", "{name}: {b:#}");
        assert_eq!(b["rows"]["known_from"], "index", "{name}: {b:#}");
        let listed: Vec<Vec<String>> = b["rows"]["keys"]
            .as_array()
            .unwrap_or_else(|| panic!("{name}: no keys listed: {b:#}"))
            .iter()
            .map(|k| {
                k.as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap().to_owned())
                    .collect()
            })
            .collect();
        let keys: BTreeSet<Vec<String>> = listed.iter().cloned().collect();
        assert_eq!(&keys, rows, "{name}: the lost keys are the server's");
        assert_eq!(
            &listed, ordered,
            "{name}: the lost keys in the server's ORDER BY order"
        );
    }
}

each_version!(check);

/// A zeroed heap block whose primary key leaf has a flipped bit (its checksum fails, its
/// structure sound): the lost keys still come from the primary key, read as the server
/// reads that leaf under ignore_checksum_failure, not from a non-unique index whose values
/// name no single row; they are the ids the server has at that block.
fn keys_from_a_flipped_primary_key_leaf(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create extension pageinspect",
        "create table t (id int primary key, customer text) with (autovacuum_enabled = off)",
        "create index t_customer on t (customer)",
        "insert into t select g, 'cust' || (g % 7) from generate_series(1, 2000) g",
        "checkpoint",
    ]);
    let block = 2usize;
    let ids: BTreeSet<String> = c
        .psql(&[&format!(
            "select id from t where ctid >= '({block},0)' and ctid < '({}, 0)'",
            block + 1
        )])
        .lines()
        .map(|l| l.trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect();
    assert!(!ids.is_empty());
    // The leaf of the primary key holding the block's entries.
    let leaf: usize = c
        .psql(&[&format!(
            "select b from generate_series(1, (pg_relation_size('t_pkey') / 8192 - 1)::int) b \
             where (select type from bt_page_stats('t_pkey', b)) = 'l' \
             and exists (select 1 from bt_page_items('t_pkey', b) i where i.ctid >= '({block},0)' and i.ctid < '({},0)') limit 1",
            block + 1
        )])
        .trim()
        .parse()
        .unwrap_or(0);
    let heap = c.file("select pg_relation_filepath('t')");
    let pkey = c.file("select pg_relation_filepath('t_pkey')");
    c.stop();
    let mut bytes = fs::read(&heap).unwrap();
    bytes[block * BLCKSZ..(block + 1) * BLCKSZ].fill(0);
    fs::write(&heap, &bytes).unwrap();
    let mut ix = fs::read(&pkey).unwrap();
    let page = &mut ix[leaf * BLCKSZ..(leaf + 1) * BLCKSZ];
    let lower = u16::from_le_bytes([page[12], page[13]]) as usize;
    let upper = u16::from_le_bytes([page[14], page[15]]) as usize;
    assert!(
        leaf > 0 && upper > lower + 2,
        "leaf {leaf}: no free space to flip in"
    );
    // A bit in the leaf's free space: its entries are untouched, its checksum fails.
    page[(lower + upper) / 2] ^= 0x08;
    fs::write(&pkey, &ix).unwrap();

    let report = json(&pgpage(&["report", "--json", c.data.to_str().unwrap()]));
    let got = report["relations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["relation"] == "public.t")
        .flat_map(|r| r["blocks"].as_array().unwrap())
        .find(|b| b["block"] == block)
        .unwrap_or_else(|| panic!("{report:#}"));
    assert_eq!(got["rows"]["index"], "public.t_pkey", "{got:#}");
    let listed: BTreeSet<String> = got["rows"]["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k[0].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(listed, ids, "{got:#}");
}

each_version!(keys_from_a_flipped_primary_key_leaf);
