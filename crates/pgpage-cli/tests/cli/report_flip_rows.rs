//! One bit flipped on disk in two pages of a table, on PostgreSQL 13 to 19: in a row's key
//! (an int4 primary key) and in pd_upper, raised over some of the page's tuples. The server
//! refuses both pages and, under ignore_checksum_failure, reads every row of each (the key
//! flip's row with its changed value). The report must rank first the flip the primary key
//! confirms (the key the index holds for that line pointer), count no row lost on either
//! page and as many readable as the server reads, and `rows --include-damaged` must print
//! those rows as the server returns them.

use std::fs;

use crate::common::page::{u16_at, u32_at, BLCKSZ};
use crate::common::{block_of, copy_dir, json, pgpage, run_copy, Cluster};

/// The rows the server returns for block `b` of `t` under ignore_checksum_failure, sorted,
/// read from a copy of the data directory: the server sets hint bits on what it reads and
/// writes the page back with a fresh checksum, which would make the damage verify.
fn server_rows(c: &Cluster, t: &str, b: usize) -> Vec<String> {
    let copy = c.root.join(format!("read{b}"));
    copy_dir(&c.data, &copy);
    let out = run_copy(c, &copy, &[
        "set ignore_checksum_failure = on",
        "set enable_indexscan = off",
        "set enable_bitmapscan = off",
        "set enable_indexonlyscan = off",
        &format!("copy (select * from {t} where (ctid::text::point)[0] = {b}) to stdout (format csv)"),
    ]);
    let _ = std::fs::remove_dir_all(&copy);
    let mut v: Vec<String> = out.lines().map(str::to_owned).collect();
    v.sort();
    v
}

fn flips_ranked(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create table t (id int primary key, note text not null) with (autovacuum_enabled = off)",
        "insert into t select g, 'note-' || g || repeat('x', g % 30) from generate_series(1, 2000) g",
        "checkpoint",
    ]);
    let file = c.file("select pg_relation_filepath('t')");
    c.stop();
    let mut bytes = fs::read(&file).unwrap();
    // Block 3, line pointer 7: bit 2 of its id's first byte.
    let (kb, klp) = (3usize, 7usize);
    let page = &mut bytes[kb * BLCKSZ..(kb + 1) * BLCKSZ];
    let off = (u32_at(page, 24 + 4 * (klp - 1)) & 0x7FFF) as usize;
    let hoff = usize::from(page[off + 22]);
    let key_byte = off + hoff;
    page[key_byte] ^= 1 << 2;
    // Block 5: pd_upper raised by 256 (bit 0 of its high byte), still below pd_special.
    let ub = 5usize;
    let page = &mut bytes[ub * BLCKSZ..(ub + 1) * BLCKSZ];
    let upper = u16_at(page, 14);
    assert!(
        upper & 0x100 == 0 && usize::from(upper) + 256 < 8192,
        "pd_upper {upper}"
    );
    page[15] ^= 1;
    fs::write(&file, &bytes).unwrap();

    let key_rows = server_rows(&c, "t", kb);
    let upper_rows = server_rows(&c, "t", ub);
    let data_dir = c.data.clone();
    let data = data_dir.to_str().unwrap();

    let out = pgpage(&["report", "--json", data]);
    let report = json(&out);
    let said = format!("PostgreSQL {version}");
    let b = block_of(&report, "public.t", kb);
    assert_eq!(b["damage"], "bit_flip", "{said}: {b:#}");
    let first = &b["bit_flips"][0];
    assert_eq!(
        (first["byte"].as_u64(), first["bit"].as_u64()),
        (Some(key_byte as u64), Some(2)),
        "{said}: the flip the index confirms ranks first: {b:#}"
    );
    assert_eq!(
        (&b["rows"]["lost"], &b["rows"]["readable"]),
        (&serde_json::json!(0), &serde_json::json!(key_rows.len())),
        "{said}: {b:#}"
    );
    let b = block_of(&report, "public.t", ub);
    assert_eq!(b["damage"], "bit_flip", "{said}: {b:#}");
    assert_eq!(
        (
            b["bit_flips"][0]["byte"].as_u64(),
            b["bit_flips"][0]["bit"].as_u64()
        ),
        (Some(15), Some(0)),
        "{said}: {b:#}"
    );
    assert_eq!(
        (&b["rows"]["lost"], &b["rows"]["readable"]),
        (&serde_json::json!(0), &serde_json::json!(upper_rows.len())),
        "{said}: every row the server reads is readable: {b:#}"
    );

    // rows --include-damaged prints each page's rows as the server returns them.
    let rows = pgpage(&[
        "rows",
        "--include-damaged",
        "--database",
        "postgres",
        data,
        "t",
    ]);
    let printed = String::from_utf8_lossy(&rows.stdout).into_owned();
    let printed: std::collections::BTreeSet<&str> = printed.lines().collect();
    for r in key_rows.iter().chain(&upper_rows) {
        assert!(
            printed.contains(r.as_str()),
            "{said}: {r} is printed: {}",
            String::from_utf8_lossy(&rows.stderr)
        );
    }
}

each_version!(flips_ranked);
