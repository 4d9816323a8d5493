//! A relation in a tablespace, its files reached through the data directory
//! (`D/pg_tblspc/OID/PG_.../DB/FILENODE`), PostgreSQL 13 to 19. The file's canonical path is
//! the tablespace's own directory, outside the data directory: resolved that way, the
//! relation had no catalog row, so `verify --amcheck` checked its pages without its
//! pg_class row or key columns (and named it by file, not as pg_amcheck does), and `repair`
//! said "TABLE NOT KNOWN" and pointed at `pg_filenode_relation(0, ...)`, which names no
//! table outside the default tablespace. The path as given now finds the data directory.

use std::process::Command;

use crate::common::{pgpage, Cluster};

fn tablespace_relations_are_named(version: u32) {
    let mut c = Cluster::start(version);
    let location = c.root.join("ts");
    std::fs::create_dir(&location).unwrap();
    let _ = Command::new("chown")
        .args(["postgres", location.to_str().unwrap()])
        .output();
    c.psql(&[
        &format!("create tablespace tsp location '{}'", location.display()),
        "create table t_ts (id int, n numeric) tablespace tsp",
        "insert into t_ts select g, g / 7.0 from generate_series(1, 2000) g",
        // A key type pgpage does not order: said once, by name, when the catalogs are used.
        "create index t_ts_n on t_ts (n) tablespace tsp",
        "checkpoint",
    ]);
    let heap = c
        .psql(&["select pg_relation_filepath('t_ts')"])
        .trim()
        .to_owned();
    assert!(heap.starts_with("pg_tblspc/"), "{heap}");
    c.stop();
    let data = c.data.to_str().unwrap().to_owned();

    let out = pgpage(&["verify", "--amcheck", &data]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{version}: {stderr}");
    assert!(
        stderr.contains(
            "btree index \"postgres.public.t_ts_n\": the order of its items is not checked"
        ),
        "{version}: {stderr}"
    );

    // The heap file through the data directory: repair's advice names the table.
    let file = c.data.join(&heap);
    let out = pgpage(&["repair", "--block", "1", file.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("'public.t_ts'::regclass"),
        "{version}: {stdout}"
    );
    assert!(!stdout.contains("TABLE NOT KNOWN"), "{version}: {stdout}");
}

each_version!(tablespace_relations_are_named);
