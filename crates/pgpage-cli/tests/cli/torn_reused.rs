//! A heap page torn after VACUUM freed line pointers and new rows took them, PostgreSQL 13
//! to 19: the first 4 kB are the newer write (header, line pointers), the rest the write from
//! before the deletes, which still holds the deleted rows' tuples under their old line
//! pointers. `rows --include-damaged` prints no deleted row and only rows as the server has
//! them, and every row of the block is printed or listed lost. `repair --torn` gives a page
//! that verify_heapam and bt_index_check accept, whose index scans find no deleted row, and
//! says that the visibility map still marks the block all-visible; the VACUUM it names clears
//! that, as pg_check_visible and an index-only scan show.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;

use crate::common::page::from_hex as hex;
use crate::common::page::{u16_at, BLCKSZ};
use crate::common::{block_of, copy_dir, json, pgpage, run_copy, write_block, Cluster};

/// `id,v` lines (COPY's CSV, or psql's unaligned output with a comma separator) by id.
pub(crate) fn by_id(text: &str) -> BTreeMap<i64, String> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (id, _) = l.split_once(',').unwrap();
            (id.parse().unwrap(), l.to_owned())
        })
        .collect()
}

fn torn_after_reuse(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create extension pageinspect",
        "create extension pg_visibility",
        "create extension amcheck",
        "create table t (id int primary key, v text not null) with (autovacuum_enabled = off)",
        "insert into t select g, 'row ' || g || ' ' || repeat(md5(g::text), 2) from generate_series(1, 60) g",
        "checkpoint",
    ]);
    let old = hex(&c.psql(&["select encode(get_raw_page('t', 0), 'hex')"]));
    // Most rows deleted and vacuumed away (their index entries removed, their line pointers
    // freed and the page compacted), then new rows that take those line pointers, their
    // tuples in the page's later half; a VACUUM marks it all-visible.
    c.psql(&[
        "delete from t where id % 3 <> 0 and id <= 60",
        "vacuum t",
        "insert into t select g, 'new ' || g || ' ' || repeat(md5(g::text), 2) from generate_series(1001, 1012) g",
        "vacuum t",
        "checkpoint",
    ]);
    let deleted: BTreeSet<i64> = (1..=60).filter(|g| g % 3 != 0).collect();
    let truth = by_id(&c.psql(&["copy t to stdout with (format csv)"]));
    let blocks = c.psql(&["select pg_relation_size('t') / 8192"]);
    assert_eq!(blocks.trim(), "1", "{version}");
    // The new rows took freed line pointers: the older write has other rows' tuples there.
    let reused: BTreeSet<i64> = c
        .psql(&["select string_agg(id::text, ',') from t where id > 1000 and (ctid::text::point)[1] <= 60"])
        .trim()
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    assert!(reused.len() >= 4, "{version}: {reused:?}");
    let vm_set = c.psql(&["select all_visible from pg_visibility_map('t', 0)"]);
    assert_eq!(vm_set.trim(), "t", "{version}");
    let rel = c.file("select pg_relation_filepath('t')");
    let rel_in_data = rel.strip_prefix(&c.data).unwrap().to_owned();
    c.stop();

    let damaged = c.root.join("damaged");
    copy_dir(&c.data, &damaged);
    let file = damaged.join(&rel_in_data);
    let new = fs::read(&file).unwrap()[..BLCKSZ].to_vec();
    assert!(usize::from(u16_at(&new, 14)) > 4096, "{version}: pd_upper");
    let mut torn = new.clone();
    torn[4096..].copy_from_slice(&old[4096..]);
    write_block(&file, 0, &torn);

    let d = damaged.to_str().unwrap();
    let report = json(&pgpage(&["report", "--json", d]));
    let b = block_of(&report, "public.t", 0);
    assert_eq!(b["damage"], "torn", "{version}: {b}");
    assert!(b["rows"]["reused"].is_array(), "{version}: {b:#}");
    let lost: BTreeSet<i64> = b["rows"]["keys"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|k| k[0].as_str().unwrap().parse().unwrap())
        .collect();

    let out = pgpage(&[
        "rows",
        "--include-damaged",
        "--database",
        "postgres",
        "--format",
        "csv",
        d,
        "public.t",
    ]);
    // 1: some rows were left out, as they are here.
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{version}: {out:?}"
    );
    let printed = by_id(&String::from_utf8(out.stdout).unwrap());
    let back: Vec<&i64> = printed.keys().filter(|id| deleted.contains(id)).collect();
    assert!(back.is_empty(), "{version}: deleted rows printed: {back:?}");
    for (id, line) in &printed {
        assert_eq!(Some(line), truth.get(id), "{version}: row {id}");
    }
    let both: Vec<&i64> = lost.iter().filter(|id| printed.contains_key(id)).collect();
    assert!(
        both.is_empty(),
        "{version}: printed and listed lost: {both:?}"
    );
    let missing: Vec<&i64> = truth
        .keys()
        .filter(|id| !printed.contains_key(id) && !lost.contains(id))
        .collect();
    assert!(
        missing.is_empty(),
        "{version}: neither printed nor lost: {missing:?}"
    );

    let fixed = c.root.join("fixed");
    let out = pgpage(&[
        "repair",
        "--block",
        "0",
        "--torn",
        "--out",
        fixed.to_str().unwrap(),
        file.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{version}: {out:?}");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("marks block 0 all-visible") && said.contains("DISABLE_PAGE_SKIPPING"),
        "{version}: {said}"
    );
    fs::copy(&fixed, &file).unwrap();
    let ids = deleted
        .iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(",");
    // verify_heapam is 14's.
    let heapam = if version >= 14 {
        "select count(*) from verify_heapam('t')"
    } else {
        "select bt_index_check('t_pkey', true)"
    };
    let checks = run_copy(
        &c,
        &damaged,
        &[
            heapam,
            "select bt_index_check('t_pkey', true)",
            "set enable_seqscan = off",
            "set enable_bitmapscan = off",
            &format!("select count(*) from t where id in ({ids})"),
            "select count(*) from t where id > 0",
            "vacuum (disable_page_skipping) t",
            "select count(*) from pg_check_visible('t')",
            "select count(*) from t where id > 0",
            "reset all",
            "select count(*) from t",
        ],
    );
    // verify_heapam's count of findings (none on 13), bt_index_check's blanks, the deleted
    // ids found, the index-only count before the VACUUM, pg_check_visible, the index-only
    // count after it, a sequential count.
    let mut numbers: Vec<i64> = checks
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    if version < 14 {
        numbers.insert(0, 0);
    }
    assert_eq!(numbers.len(), 6, "{version}: {checks}");
    assert_eq!(numbers[0], 0, "{version}: verify_heapam: {checks}");
    assert_eq!(numbers[1], 0, "{version}: deleted rows by index: {checks}");
    assert_eq!(numbers[3], 0, "{version}: pg_check_visible: {checks}");
    assert_eq!(
        numbers[4], numbers[5],
        "{version}: index-only scan: {checks}"
    );
    assert_eq!(numbers[5], printed.len() as i64, "{version}: {checks}");
}

each_version!(torn_after_reuse);

/// A torn page whose first half, its header and line pointers, is the write before rows of
/// it were updated to new keys (non-HOT, the new versions placed on the same page, in that
/// half): the new versions' line pointers are beyond the older header's array, and their index
/// entries lead nowhere the page shows. Each such row is lost and named by its key, as the
/// server knows it.
fn entries_past_an_older_header(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create table t (id int primary key, note text not null) with (autovacuum_enabled = off, fillfactor = 50)",
        "insert into t select g, 'note-' || lpad(g::text, 6, '0') || '-Tango' from generate_series(1, 1200) g",
        "vacuum (freeze) t",
        "checkpoint",
    ]);
    let rel = c
        .psql(&["select pg_relation_filepath('t')"])
        .trim()
        .to_owned();
    let torn = 3usize;
    c.stop();
    let older = fs::read(c.data.join(&rel)).unwrap();
    c.restart();
    let moved: BTreeSet<String> = c
        .psql(&[&format!(
            "update t set id = id + 100000 where ctid = any(array(select format('({torn},%s)', g)::tid from generate_series(1, 8) g)) returning id"
        )])
        .lines()
        .map(|l| l.trim().to_owned())
        .filter(|l| l.parse::<u32>().is_ok())
        .collect();
    assert_eq!(moved.len(), 8, "{moved:?}");
    // The new versions stayed on the page, in its first half (the older write's there).
    let placed = c.psql(&[&format!(
        "select count(*) from t where id > 100000 and (ctid::text::point)[0] = {torn}"
    )]);
    assert_eq!(placed.trim(), "8", "the new versions are on block {torn}");
    c.psql(&["checkpoint"]);
    c.stop();
    let file = c.data.join(&rel);
    let mut bytes = fs::read(&file).unwrap();
    let at = torn * BLCKSZ;
    bytes[at..at + BLCKSZ / 2].copy_from_slice(&older[at..at + BLCKSZ / 2]);
    fs::write(&file, &bytes).unwrap();
    let report = json(&pgpage(&["report", "--json", c.data.to_str().unwrap()]));
    let b = block_of(&report, "public.t", torn);
    assert_eq!(b["damage"], "torn", "{b:#}");
    let lost: BTreeSet<String> = b["rows"]["keys"]
        .as_array()
        .map(|k| {
            k.iter()
                .map(|key| key[0].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default();
    assert!(
        moved.is_subset(&lost),
        "{version}: {moved:?} not all in {lost:?}: {b:#}"
    );
}

each_version!(entries_past_an_older_header);
