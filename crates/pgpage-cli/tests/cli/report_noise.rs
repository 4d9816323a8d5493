//! Random bytes written over part of a heap page, its header left whole,
//! PostgreSQL 13 to 19: `report` calls the page `overwritten` (not torn: no write of the page
//! holds such bytes), names the bytes, and counts as lost exactly the rows whose tuples they
//! cover, by the server's own line pointers before the damage. `repair --torn` then leaves
//! those rows out and keeps every other, as the server reads the repaired copy. A page of
//! sound random `bytea` values that is torn stays `torn`. Noise over the line pointer array
//! takes the rows of the line pointers it covers.

use std::collections::BTreeSet;
use std::fs;

use crate::common::page::from_hex as hex;
use crate::common::page::{u16_at, BLCKSZ};
use crate::common::{
    block_of, copy_dir, json, pgpage, repair_torn_in_place, run_copy, write_block, Cluster,
};

/// Deterministic noise (xorshift), not a rule of anything.
fn noise(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

fn ids(text: &str) -> BTreeSet<i64> {
    text.split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.trim().parse().unwrap())
        .collect()
}

fn overwritten_in_part(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create extension pageinspect",
        "create table t (id int primary key, customer text not null, amount numeric(10,2), note text) with (autovacuum_enabled = off)",
        "insert into t select g, 'cust_' || (g % 200), g * 1.5, 'note ' || repeat(chr(97 + g % 26), 20 + g % 40) from generate_series(1, 3000) g",
        "checkpoint",
    ]);
    let block = 5usize;
    let (from, to) = (3000usize, 3400usize);
    // The rows whose tuples the bytes cover, by the server's line pointers.
    let lost = ids(&c.psql(&[&format!(
        "select string_agg(t.id::text, ',') from heap_page_items(get_raw_page('t', {block})) h join t on t.ctid = ('({block},' || h.lp || ')')::tid where h.lp_off < {to} and h.lp_off + h.lp_len > {from}"
    )]));
    // A second block: noise over the end of its line pointer array and past it.
    let (block2, from2, to2) = (7usize, 100usize, 420usize);
    let lost2 = ids(&c.psql(&[&format!(
        "select string_agg(t.id::text, ',') from heap_page_items(get_raw_page('t', {block2})) h join t on t.ctid = ('({block2},' || h.lp || ')')::tid where (24 + 4 * (h.lp - 1) < {to2} and 24 + 4 * h.lp > {from2}) or (h.lp_off < {to2} and h.lp_off + h.lp_len > {from2})"
    )]));
    let all = ids(&c.psql(&["select string_agg(id::text, ',') from t"]));
    let on_block = ids(&c.psql(&[&format!(
        "select string_agg(id::text, ',') from t where (ctid::text::point)[0] = {block}"
    )]));
    assert!(
        lost.len() >= 2 && lost.len() < on_block.len(),
        "{version}: {lost:?} of {on_block:?}"
    );
    let rel = c.file("select pg_relation_filepath('t')");
    let rel_in_data = rel.strip_prefix(&c.data).unwrap().to_owned();
    c.stop();

    let damaged = c.root.join("damaged");
    copy_dir(&c.data, &damaged);
    let file = damaged.join(&rel_in_data);
    let mut page = fs::read(&file).unwrap()[block * BLCKSZ..(block + 1) * BLCKSZ].to_vec();
    assert!(usize::from(u16_at(&page, 14)) < from, "{version}: pd_upper");
    page[from..to].copy_from_slice(&noise(to - from, u64::from(version)));
    write_block(&file, block, &page);
    let mut page2 = fs::read(&file).unwrap()[block2 * BLCKSZ..(block2 + 1) * BLCKSZ].to_vec();
    assert!(
        usize::from(u16_at(&page2, 12)) > from2 + 64,
        "{version}: pd_lower"
    );
    page2[from2..to2].copy_from_slice(&noise(to2 - from2, u64::from(version) + 99));
    write_block(&file, block2, &page2);

    let d = damaged.to_str().unwrap();
    let report = json(&pgpage(&["report", "--json", d]));
    let b = block_of(&report, "public.t", block);
    assert_eq!(b["damage"], "overwritten", "{version}: {b}");
    let run = &b["noise"][0];
    let (start, end) = (run["start"].as_u64().unwrap(), run["end"].as_u64().unwrap());
    assert!(
        (from as u64 - 64..=from as u64 + 40).contains(&start)
            && (to as u64 - 40..=to as u64 + 64).contains(&end),
        "{version}: {run}"
    );
    assert!(
        b["headline"].as_str().unwrap().contains("random bytes"),
        "{version}: {b}"
    );
    assert!(
        !b["evidence"].to_string().contains("another write"),
        "{version}: {b}"
    );
    assert_eq!(b["rows"]["lost"], lost.len() as u64, "{version}: {b}");
    assert_eq!(
        b["rows"]["readable"],
        (on_block.len() - lost.len()) as u64,
        "{version}: {b}"
    );
    let keys: BTreeSet<i64> = b["rows"]["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k[0].as_str().unwrap().parse().unwrap())
        .collect();
    assert_eq!(keys, lost, "{version}");
    let b2 = block_of(&report, "public.t", block2);
    assert_eq!(b2["damage"], "overwritten", "{version}: {b2}");
    assert!(
        b2["evidence"].to_string().contains("line pointers"),
        "{version}: {b2}"
    );
    let keys2: BTreeSet<i64> = b2["rows"]["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k[0].as_str().unwrap().parse().unwrap())
        .collect();
    assert_eq!(keys2, lost2, "{version}: {b2}");

    // Rebuilt as their rows read: the server reads every other row, and none of the covered.
    for (i, b) in [block, block2].into_iter().enumerate() {
        let fixed = c.root.join(format!("fixed{i}"));
        repair_torn_in_place(&file, b, &fixed, &version.to_string());
    }
    let read = ids(&run_copy(
        &c,
        &damaged,
        &["select string_agg(id::text, ',') from t"],
    ));
    let want: BTreeSet<i64> = all
        .difference(&lost)
        .copied()
        .filter(|id| !lost2.contains(id))
        .collect();
    assert_eq!(read, want, "{version}");
}

each_version!(overwritten_in_part);

/// Sound random values are not noise: a page of uncompressed random `bytea`, torn where the
/// older write was still free space, is `torn`.
fn random_values_torn(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create extension pageinspect",
        "create table b (id int primary key, payload bytea) with (autovacuum_enabled = off)",
        "alter table b alter payload set storage external",
        "insert into b select g, decode(string_agg(md5(g::text || '.' || i), ''), 'hex') from generate_series(1, 8) g, generate_series(1, 20) i group by g",
    ]);
    let old = hex(&c.psql(&["select encode(get_raw_page('b', 0), 'hex')"]));
    c.psql(&[
        "insert into b select g, decode(string_agg(md5(g::text || '.' || i), ''), 'hex') from generate_series(9, 60) g, generate_series(1, 20) i group by g",
        "checkpoint",
    ]);
    let rel = c.file("select pg_relation_filepath('b')");
    let rel_in_data = rel.strip_prefix(&c.data).unwrap().to_owned();
    c.stop();
    let damaged = c.root.join("damaged");
    copy_dir(&c.data, &damaged);
    let file = damaged.join(&rel_in_data);
    let new = fs::read(&file).unwrap()[..BLCKSZ].to_vec();
    let (upper_old, upper_new) = (usize::from(u16_at(&old, 14)), usize::from(u16_at(&new, 14)));
    let sectors: Vec<usize> = (upper_new / 512 + 1..upper_old / 512).take(3).collect();
    assert!(!sectors.is_empty(), "{version}: {upper_old} {upper_new}");
    let mut torn = new.clone();
    for s in &sectors {
        torn[s * 512..(s + 1) * 512].copy_from_slice(&old[s * 512..(s + 1) * 512]);
    }
    write_block(&file, 0, &torn);
    let report = json(&pgpage(&["report", "--json", damaged.to_str().unwrap()]));
    let b = block_of(&report, "public.b", 0);
    assert_eq!(b["damage"], "torn", "{version}: {b:?}");
    assert!(b.get("noise").is_none(), "{version}: {b:?}");
}

each_version!(random_values_torn);

/// Random bytes over a HOT chain's root tuple, its newest version (a heap-only tuple) left
/// whole: `repair --torn` must leave no heap-only tuple without its root, as the server
/// checks it: REINDEX would fail ("failed to find parent tuple for heap-only tuple"), and
/// verify_heapam (14 and later) names such a tuple. The row reads by its key afterwards.
fn overwritten_hot_root(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create table t (id int primary key, v int, note text) with (fillfactor = 50, autovacuum_enabled = off)",
        "insert into t select g, g, repeat('n', 40) from generate_series(1, 1000) g",
        "checkpoint",
    ]);
    let key = 225;
    let root: String = c.psql(&[&format!("select ctid from t where id = {key}")]);
    c.psql(&[
        &format!("update t set v = v + 1 where id = {key}"),
        "checkpoint",
    ]);
    let (b, r) = {
        let t = root.trim().trim_start_matches('(').trim_end_matches(')');
        let (b, o) = t.split_once(',').unwrap();
        (b.parse::<usize>().unwrap(), o.parse::<usize>().unwrap())
    };
    let rel = c.file("select pg_relation_filepath('t')");
    let rel_in_data = rel.strip_prefix(&c.data).unwrap().to_owned();
    c.stop();

    let damaged = c.root.join("damaged");
    copy_dir(&c.data, &damaged);
    let file = damaged.join(&rel_in_data);
    let mut page = fs::read(&file).unwrap()[b * BLCKSZ..(b + 1) * BLCKSZ].to_vec();
    let item = u32::from_le_bytes(page[24 + 4 * (r - 1)..24 + 4 * r].try_into().unwrap());
    let off = (item & 0x7fff) as usize;
    let (from, to) = (off.saturating_sub(300), (off + 300).min(BLCKSZ));
    page[from..to].copy_from_slice(&noise(to - from, u64::from(version) + 7));
    write_block(&file, b, &page);

    repair_torn_in_place(&file, b, &c.root.join("fixed"), &version.to_string());
    let mut sql = vec!["create extension if not exists amcheck", "reindex table t"];
    if version >= 14 {
        sql.push("select count(*) from verify_heapam('t')");
    }
    let by_key = format!("select 'found ' || id from t where id = {key}");
    sql.push(&by_key);
    let said = run_copy(&c, &damaged, &sql);
    assert!(said.contains(&format!("found {key}")), "{version}: {said}");
    if version >= 14 {
        assert!(
            said.lines().any(|l| l.trim() == "0"),
            "{version}: verify_heapam: {said}"
        );
    }
}

each_version!(overwritten_hot_root);
