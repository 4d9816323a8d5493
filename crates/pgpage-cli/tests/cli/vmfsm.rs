//! A heap's visibility map and free space map held against the server, PostgreSQL 13 to 19:
//! `pgpage verify` given a relation's main fork with its `_vm` and `_fsm` (as files and in a
//! data directory walk) names the page VACUUM warns of once PD_ALL_VISIBLE is cleared on a
//! page whose VM bit is set (and pg_visibility's pd_all_visible agrees), and no VM finding on
//! tables the server left alone; the FSM notes are the pages whose pg_freespace category is
//! above the category of the free space page_header() gives.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use crate::common::{json, pgpage, Cluster};
use pgpage::page::checksum::pg_checksum_page;
use pgpage::Endian;
use serde_json::Value;

const BLCKSZ: usize = 8192;

/// The blocks of `file` (a path ending as in `verify --json`) carrying finding `code`.
fn blocks_with(report: &Value, file: &Path, code: &str) -> BTreeSet<u64> {
    let name = file.to_str().unwrap();
    let f = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| {
            name.ends_with(f["path"].as_str().unwrap())
                || f["path"].as_str().unwrap().ends_with(name)
        })
        .unwrap_or_else(|| panic!("{name} not in the report"));
    f["pages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| {
            p["findings"]
                .as_array()
                .is_some_and(|a| a.iter().any(|c| c == code))
        })
        .map(|p| p["block"].as_u64().unwrap())
        .collect()
}

/// freespace.c: fsm_space_avail_to_cat for 8 kB pages (FSM_CAT_STEP 32, MaxFSMRequestSize
/// 8160), of the free space page_header()'s pd_lower and pd_upper leave
/// (PageGetHeapFreeSpace, a line pointer kept back).
fn category_of_free(lower: i64, upper: i64) -> i64 {
    let free = (upper - lower - 4).max(0);
    if free >= 8160 {
        255
    } else {
        (free / 32).min(254)
    }
}

/// Blocks whose FSM category (pg_freespace's avail / 32) is above what the page has.
fn fsm_promises_more(c: &Cluster, table: &str) -> BTreeSet<u64> {
    let rows = c.psql(&[&format!(
        "select s.blkno, s.avail, h.lower, h.upper from pg_freespace('{table}') s, \
         page_header(get_raw_page('{table}', s.blkno::int4)) h order by 1"
    )]);
    rows.lines()
        .filter_map(|l| {
            let v: Vec<i64> = l.split('|').map(|x| x.parse().unwrap()).collect();
            (v[1] / 32 > category_of_free(v[2], v[3])).then_some(v[0] as u64)
        })
        .collect()
}

fn with_fork(main: &Path, fork: &str) -> String {
    format!("{}_{fork}", main.display())
}

fn held_against_vacuum(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create extension pg_visibility",
        "create extension pg_freespacemap",
        "create extension pageinspect",
        "create table v with (autovacuum_enabled = off) as select g as id from generate_series(1, 3000) g",
        "vacuum v",
        // Freed space VACUUM records, then filled by inserts that leave the FSM as it was.
        "create table f (id int4, s text) with (autovacuum_enabled = off)",
        "insert into f select g, repeat('x', 40) from generate_series(1, 3000) g",
        "delete from f where id % 3 = 0",
        "vacuum f",
        "insert into f select g, repeat('y', 40) from generate_series(1, 600) g",
        "checkpoint",
    ]);
    let v = c.file("select pg_relation_filepath('v')");
    let f = c.file("select pg_relation_filepath('f')");
    let visible: BTreeSet<u64> = c
        .psql(&["select blkno from pg_visibility_map('v') where all_visible"])
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert!(visible.contains(&1), "{version}: {visible:?}");
    let fsm_more = [
        (v.clone(), fsm_promises_more(&c, "v")),
        (f.clone(), fsm_promises_more(&c, "f")),
    ];
    c.stop();

    // Untouched: no VM finding; the FSM notes are the pages the server's numbers give.
    let files: Vec<String> = [&v, &f]
        .iter()
        .flat_map(|p| {
            [
                p.display().to_string(),
                with_fork(p, "vm"),
                with_fork(p, "fsm"),
            ]
        })
        .collect();
    let mut args = vec!["verify", "--json", "--all"];
    args.extend(files.iter().map(String::as_str));
    let out = pgpage(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{version}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json(&out);
    for (rel, more) in &fsm_more {
        for code in [
            "vm_bit_without_page_flag",
            "vm_frozen_without_visible",
            "page_flag_without_vm_bit",
        ] {
            assert!(
                blocks_with(&report, rel, code).is_empty(),
                "{version} {}: {code}",
                rel.display()
            );
        }
        assert_eq!(
            &blocks_with(&report, rel, "fsm_more_than_free"),
            more,
            "{version} {}",
            rel.display()
        );
    }
    assert!(
        !fsm_more[1].1.is_empty(),
        "{version}: the inserts left the FSM as it was"
    );

    // PD_ALL_VISIBLE cleared on block 1, whose VM bit is set; its checksum made right.
    let mut heap = fs::read(&v).unwrap();
    let p = &mut heap[BLCKSZ..2 * BLCKSZ];
    let flags = u16::from_le_bytes([p[10], p[11]]) & !0x0004;
    p[10..12].copy_from_slice(&flags.to_le_bytes());
    let sum = pg_checksum_page(p, 1, Endian::Little);
    p[8..10].copy_from_slice(&sum.to_le_bytes());
    fs::write(&v, &heap).unwrap();

    // The data directory walk and the files alike name block 1, in JSON and in the
    // server's words; the server reads the page, so the exit status stays 0.
    let out = pgpage(&["verify", "--json", c.data.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{version}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rel = v.strip_prefix(&c.data).unwrap();
    assert_eq!(
        blocks_with(&json(&out), rel, "vm_bit_without_page_flag"),
        BTreeSet::from([1]),
        "{version}"
    );
    let out = pgpage(&["verify", v.to_str().unwrap(), &with_fork(&v, "vm")]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let ours: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("visibility map bit is set"))
        .collect();
    assert_eq!(ours.len(), 1, "{version}: {stderr}");
    assert!(ours[0].ends_with(" page 1"), "{version}: {stderr}");

    // The server: pg_visibility sees the same page, and VACUUM warns of it.
    c.restart();
    assert_eq!(
        c.psql(&["select blkno from pg_visibility('v') where all_visible and not pd_all_visible"])
            .trim(),
        "1",
        "{version}"
    );
    let vacuum = c.psql_output(
        "postgres",
        &["\\set SHOW_CONTEXT always", "vacuum (verbose) v"],
    );
    let server = String::from_utf8_lossy(&vacuum.stderr);
    let warned: Vec<&str> = server
        .lines()
        .filter(|l| l.contains("visibility map bit is set"))
        .collect();
    assert_eq!(warned.len(), 1, "{version}: {server}");
    let page = |l: &str| l.rsplit(' ').next().unwrap().trim().to_owned();
    let message = warned[0].split_once("WARNING:").unwrap().1.trim();
    let ours = ours[0].split_once("block 1: ").unwrap().1;
    // The same words; the server names the relation, pgpage its file.
    let words = |m: &str| {
        let (head, tail) = m.split_once(" in relation ").unwrap();
        (
            head.to_owned(),
            tail.rsplit_once(" page ").unwrap().1.to_owned(),
        )
    };
    if version >= 19 {
        // 19 (pruneheap.c) moves the relation and page into the CONTEXT line: `relation
        // "%s", page %u`; pgpage says them in the message, as 13-18 did.
        let context = server
            .lines()
            .skip_while(|l| !l.contains("visibility map bit is set"))
            .find(|l| l.starts_with("CONTEXT:"))
            .unwrap_or_else(|| panic!("{version}: no CONTEXT: {server}"));
        assert_eq!(page(context), "1", "{version}: {server}");
        assert_eq!(
            (message.to_owned(), page(context)),
            words(ours),
            "{version}: {server}"
        );
    } else {
        assert_eq!(page(warned[0]), "1", "{version}: {server}");
        assert_eq!(words(message), words(ours), "{version}: {server}");
    }
}

each_version!(held_against_vacuum);
