//! `pgpage verify --amcheck DATADIR` orders the text keys of GIN indexes by their operator
//! class, read from pg_opclass, PostgreSQL 13 to 19. jsonb_ops and tsvector_ops compare their
//! keys byte by byte whatever the collation, and a GIN column without a collation is compared
//! under the database's default. So in a C database and in one whose default collation is not
//! C (C.utf8, which pgpage does not take for C), untouched jsonb_ops, jsonb_path_ops,
//! tsvector_ops (a column and an expression), int4[] and text[] indexes give no finding, and
//! only text[] under the non-C default is said to be unchecked. In that database, a jsonb_ops
//! and a tsvector_ops entry leaf with two keys out of order (checksums made valid again) are
//! each found at the offset where the order breaks, and on 18 gin_index_check names the same
//! block.

use std::fs;
use std::path::PathBuf;

use crate::common::page::{
    gin_flags, maxoff, seal, u16_at, BLCKSZ, GIN_DATA, GIN_DELETED, GIN_LEAF, GIN_LIST, GIN_META,
};
use crate::common::{findings, pgpage, Cluster};

/// An entry tree leaf with at least four items.
fn entry_leaf(p: &[u8]) -> bool {
    let flags = gin_flags(p);
    u16_at(p, 16) as usize == BLCKSZ - 8
        && flags & (GIN_DATA | GIN_META | GIN_LIST | GIN_DELETED) == 0
        && flags & GIN_LEAF != 0
        && maxoff(p) >= 4
}

/// Swaps line pointers 2 and 3 of the file's first entry leaf (item 3's key is then below
/// item 2's) and makes its checksum valid: the block.
fn swap_items(path: &PathBuf) -> u32 {
    let mut bytes = fs::read(path).unwrap();
    let block = (0..bytes.len() / BLCKSZ)
        .find(|&b| entry_leaf(&bytes[b * BLCKSZ..(b + 1) * BLCKSZ]))
        .unwrap_or_else(|| panic!("{}: no entry leaf", path.display()));
    let p = &mut bytes[block * BLCKSZ..(block + 1) * BLCKSZ];
    let two: Vec<u8> = p[28..32].to_vec();
    p.copy_within(32..36, 28);
    p[32..36].copy_from_slice(&two);
    seal(&mut bytes, block);
    fs::write(path, &bytes).unwrap();
    block as u32
}

const NON_C: &str = "nc";

fn check(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[&format!(
        "create database {NON_C} template template0 lc_collate 'C.utf8' lc_ctype 'C.utf8'"
    )]);
    for db in ["postgres", NON_C] {
        c.psql_in(
            db,
            &[
                "create extension amcheck",
                "create table d (j jsonb, v tsvector, s text, a int4[], t text[]) \
                 with (autovacuum_enabled = off)",
                "insert into d select jsonb_build_object('key' || lpad(i::text, 6, '0'), i), \
                 to_tsvector('simple', 'word' || lpad(i::text, 6, '0')), 'Ünïcode ' || i, \
                 array[i, i % 7], array['t' || lpad(i::text, 6, '0')] \
                 from generate_series(1, 4000) i",
                "create index d_j on d using gin (j)",
                "create index d_jp on d using gin (j jsonb_path_ops)",
                "create index d_v on d using gin (v)",
                "create index d_vx on d using gin (to_tsvector('simple', s))",
                "create index d_a on d using gin (a)",
                "create index d_t on d using gin (t)",
                "checkpoint",
            ],
        );
    }
    let path = |index: &str| {
        c.data.join(
            c.psql_in(NON_C, &[&format!("select pg_relation_filepath('{index}')")])
                .trim(),
        )
    };
    let (j, v) = (path("d_j"), path("d_v"));
    c.stop();
    let data = c.data.to_str().unwrap().to_owned();

    let out = pgpage(&["verify", "--amcheck", &data]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{version}: {stdout}{stderr}");
    let unchecked: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("not checked"))
        .collect();
    assert_eq!(
        unchecked,
        vec![
            "pgpage: note: gin index \"nc.public.d_t\": the order of its items is not checked: \
             key column 1 is text under collation OID 100, not C or POSIX"
        ],
        "{version}"
    );

    let blocks = [swap_items(&j), swap_items(&v)];
    let out = pgpage(&["verify", "--amcheck", &data]);
    let lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("\", block "))
        .map(str::to_owned)
        .collect();
    // gin_index_check's whole message (18's words), its numbers from the pages: the block,
    // the offset and the page's rightlink (GinPageOpaqueData's first word).
    let rightlink = |path: &PathBuf, block: u32| {
        let bytes = fs::read(path).unwrap();
        let p = &bytes[block as usize * BLCKSZ..(block as usize + 1) * BLCKSZ];
        let special = u16::from_le_bytes([p[16], p[17]]) as usize;
        u32::from_le_bytes(p[special..special + 4].try_into().unwrap())
    };
    let whole = |name: &str, path: &PathBuf, block: u32| {
        format!(
            "gin index \"nc.public.{name}\", block {block}, offset 3: index \"{name}\" has wrong tuple order on entry tree page, block {block}, offset 3, rightlink {}",
            rightlink(path, block)
        )
    };
    assert_eq!(
        lines,
        vec![whole("d_j", &j, blocks[0]), whole("d_v", &v, blocks[1])],
        "{version}"
    );
    assert_eq!(out.status.code(), Some(1), "{version}");

    if version >= 18 {
        c.restart();
        for (index, block) in ["d_j", "d_v"].iter().zip(blocks) {
            let err = c
                .psql_output(NON_C, &[&format!("select gin_index_check('{index}')")])
                .stderr;
            let err = String::from_utf8_lossy(&err);
            assert!(
                findings::error_message(&err).contains("wrong tuple order on entry tree page"),
                "{index}: {err}"
            );
            // pgpage's line ends in the server's message, word for word.
            let msg = findings::error_message(&err);
            assert!(
                lines.iter().any(|l| l.ends_with(&format!(": {msg}"))),
                "{index}: {msg} / {lines:?}"
            );
            assert_eq!(
                findings::number_after(&err, "block "),
                Some(block),
                "{index}: {err}"
            );
        }
    }
}

each_version!(check);
