//! A system catalog's page the server refuses, held against PostgreSQL 13 to 19: one byte of
//! the pg_attribute page that holds a table's columns changed on disk. The server's sessions
//! of that database fail on it (at connect, or at the first query that reads the table's
//! columns); the report must say so beside the page, and `rows` of the table must point to
//! the type list, which reads every row as COPY gives it.

use std::fs;

use crate::common::{json, pgpage, Cluster};

fn catalog_page(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&["create database shop"]);
    c.psql_in(
        "shop",
        &[
            "create table customers (id int primary key, name text, email text)",
            "insert into customers select g, 'name ' || g, 'mail' || g || '@example.org' from generate_series(1, 300) g",
            "checkpoint",
        ],
    );
    let copy = c.psql_in("shop", &["copy customers to stdout"]);
    let at = c.psql_in(
        "shop",
        &["select (ctid::text::point)[0]::int from pg_attribute where attrelid = 'customers'::regclass and attname = 'email'"],
    );
    let block: usize = at.trim().parse().unwrap();
    let attribute = c.root.join("data").join(
        c.psql_in("shop", &["select pg_relation_filepath('pg_attribute')"])
            .trim(),
    );
    let table = c.root.join("data").join(
        c.psql_in("shop", &["select pg_relation_filepath('customers')"])
            .trim(),
    );
    c.stop();
    let mut bytes = fs::read(&attribute).unwrap();
    // A byte in the middle of the page's tuples: the checksum no longer matches.
    let at = block * 8192 + 4096;
    bytes[at] ^= 0x10;
    fs::write(&attribute, &bytes).unwrap();

    c.restart();
    let out = c.psql_output("shop", &["select count(*) from customers"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && said.contains(&format!("invalid page in block {block}")),
        "PostgreSQL {version}: the server reads the table's columns from the page: {said}"
    );
    c.stop();

    let report = json(&pgpage(&["report", "--json", c.data.to_str().unwrap()]));
    let b = report["relations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["relation"] == "pg_catalog.pg_attribute")
        .and_then(|r| {
            r["blocks"]
                .as_array()
                .unwrap()
                .iter()
                .find(|b| b["block"] == block as u64)
        })
        .unwrap_or_else(|| {
            panic!("PostgreSQL {version}: pg_attribute's block {block}: {report:#}")
        });
    assert!(
        b["evidence"].as_array().unwrap().iter().any(|e| e
            .as_str()
            .unwrap()
            .contains("every session of database shop that reads it fails with that error")),
        "PostgreSQL {version}: {b:#}"
    );

    let rows = pgpage(&[
        "rows",
        "--database",
        "shop",
        c.data.to_str().unwrap(),
        "customers",
    ]);
    let err = String::from_utf8_lossy(&rows.stderr);
    if !rows.status.success() {
        assert!(err.contains("--types"), "PostgreSQL {version}: {err}");
    }
    let typed = pgpage(&[
        "rows",
        "--format",
        "text",
        "--types",
        "int4,text,text",
        table.to_str().unwrap(),
    ]);
    assert_eq!(
        String::from_utf8_lossy(&typed.stdout),
        copy,
        "PostgreSQL {version}: {}",
        String::from_utf8_lossy(&typed.stderr)
    );
}

each_version!(catalog_page);
