//! Stale row versions held against the server on PostgreSQL 13 to 19. A table with a primary
//! key and an index on a second column (so that updating it is never HOT), fillfactor 100 and
//! full pages: a block's raw bytes are saved with get_raw_page, then rows of that block are
//! updated, so their new versions go to other pages and their old ones get an xmax. A stopped
//! copy gets that block torn with the saved older version's sectors: the old versions lying
//! there read as live again. Then:
//! - the report calls exactly the updated ids whose old versions lie in the old sectors
//!   stale (their live TIDs as the server shows them), counts none of them readable, and
//!   classes the block `torn`;
//! - `rows --include-damaged` prints the server's COPY of the undamaged table minus the rows
//!   the report calls lost: no key twice;
//! - another copy with a zeroed block, where a row was updated without HOT on the same page:
//!   the lost count is the number of distinct keys, the server's count of live rows on it.

use std::collections::{BTreeMap, BTreeSet};

use crate::common::page::from_hex as hex;
use crate::common::{copy_dir, json, pgpage, write_block, Cluster};
use serde_json::Value;

const BLCKSZ: usize = 8192;
const SECTOR: usize = 512;

fn block_of(report: &Value, block: usize) -> &Value {
    report["relations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["relation"] == "public.t")
        .flat_map(|r| r["blocks"].as_array().unwrap())
        .find(|b| b["block"] == block)
        .unwrap_or_else(|| panic!("block {block} not in the report: {report:#}"))
}

/// (lp, lp_off, lp_len) of each tuple of a block, from pageinspect.
fn items(c: &Cluster, block: usize) -> Vec<(u16, usize, usize)> {
    c.psql(&[&format!(
        "select lp, lp_off, lp_len from heap_page_items(get_raw_page('t', {block})) where lp_flags = 1 order by lp"
    )])
    .lines()
    .map(|l| {
        let v: Vec<usize> = l.split('|').map(|x| x.parse().unwrap()).collect();
        (v[0] as u16, v[1], v[2])
    })
    .collect()
}

/// id by lp of the rows a new snapshot sees on a block.
fn live_ids(c: &Cluster, block: usize) -> BTreeMap<u16, String> {
    c.psql(&[&format!(
        "select (ctid::text::point)[1]::int, id from t where ctid = any(array(select format('(%s,%s)', {block}, g)::tid from generate_series(1, 300) g))"
    )])
    .lines()
    .map(|l| {
        let (lp, id) = l.split_once('|').unwrap();
        (lp.parse().unwrap(), id.to_owned())
    })
    .collect()
}

fn stale_and_distinct(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create extension pageinspect",
        "create table t (id int primary key, n int not null, note text not null) with (fillfactor = 100, autovacuum_enabled = off)",
        "create index t_n on t (n)",
        // 148-byte tuples, 50 to a page.
        "insert into t select g, 0, repeat(chr(97 + g % 26), 100) || lpad(g::text, 6, '0') from generate_series(1, 600) g",
    ]);
    // Block 3: room for one version, then a row updated without HOT (n is indexed) whose new
    // version stays on the page: its key has two index entries there.
    let zeroed = 3usize;
    c.psql(&[
        &format!("delete from t where ctid in ('({zeroed},1)', '({zeroed},2)')"),
        "vacuum t",
        &format!("update t set n = 1 where ctid = '({zeroed},10)'"),
    ]);
    let moved_in = c.psql(&[&format!(
        "select count(*) from heap_page_items(get_raw_page('t', {zeroed})) where lp_flags = 1 and t_xmax = '0'"
    )]);
    assert!(moved_in.trim().parse::<u32>().unwrap() > 0);

    // Block 1: its older version saved, then rows on both sides of sector 8 updated without
    // HOT into other pages.
    let torn_block = 1usize;
    let from = 8usize;
    let old = hex(&c.psql(&[&format!(
        "select encode(get_raw_page('t', {torn_block}), 'hex')"
    )]));
    let before = items(&c, torn_block);
    let ids = live_ids(&c, torn_block);
    let in_tear: Vec<u16> = before
        .iter()
        .filter(|(_, off, _)| *off >= from * SECTOR + 64)
        .map(|(lp, _, _)| *lp)
        .take(4)
        .collect();
    let before_tear: Vec<u16> = before
        .iter()
        .filter(|(_, off, len)| off + len + 64 <= from * SECTOR)
        .map(|(lp, _, _)| *lp)
        .take(3)
        .collect();
    assert_eq!((in_tear.len(), before_tear.len()), (4, 3), "{before:?}");
    let updated: Vec<u16> = in_tear.iter().chain(&before_tear).copied().collect();
    let list: Vec<String> = updated
        .iter()
        .map(|lp| format!("'({torn_block},{lp})'"))
        .collect();
    c.psql(&[
        &format!("update t set n = n + 1 where ctid in ({})", list.join(", ")),
        "checkpoint",
    ]);
    // Nothing may read block 1 through a scan from here on: heap_page_prune_opt would
    // remove the old versions and move the tuples. pageinspect reads the buffer as it is; a
    // TID scan fetches without pruning.
    let new = hex(&c.psql(&[&format!(
        "select encode(get_raw_page('t', {torn_block}), 'hex')"
    )]));
    // Where each updated id lives now: its old version's t_ctid, which the server confirms.
    let moved: BTreeMap<u16, String> = c
        .psql(&[&format!(
            "select lp, t_ctid from heap_page_items(get_raw_page('t', {torn_block})) where lp_flags = 1 and t_xmax <> '0'"
        )])
        .lines()
        .map(|l| {
            let (lp, ctid) = l.split_once('|').unwrap();
            (lp.parse().unwrap(), ctid.to_owned())
        })
        .collect();
    assert_eq!(
        moved.keys().copied().collect::<BTreeSet<u16>>(),
        updated.iter().copied().collect::<BTreeSet<u16>>()
    );
    let mut live_at: BTreeMap<String, String> = BTreeMap::new();
    for (lp, ctid) in &moved {
        assert!(
            !ctid.starts_with(&format!("({torn_block},")),
            "lp {lp} updated in place: {ctid}"
        );
        let id = c.psql(&[&format!("select id from t where ctid = '{ctid}'")]);
        assert_eq!(id.trim(), ids[lp], "the new version at {ctid}");
        live_at.insert(ids[lp].clone(), ctid.clone());
    }
    let after = live_ids(&c, torn_block);
    assert_eq!(after.len(), ids.len() - updated.len());
    let zeroed_live = live_ids(&c, zeroed);
    let rel = c
        .psql(&["select pg_relation_filepath('t')"])
        .trim()
        .to_owned();
    c.stop();

    // The torn copy.
    let dir = c.root.join("torn");
    copy_dir(&c.data, &dir);
    let mut torn = new.clone();
    torn[from * SECTOR..].copy_from_slice(&old[from * SECTOR..]);
    write_block(&dir.join(&rel), torn_block, &torn);
    let zdir = c.root.join("zeroed");
    copy_dir(&c.data, &zdir);
    write_block(&zdir.join(&rel), zeroed, &[0u8; BLCKSZ]);
    // The undamaged table as the server prints it (its scan may prune the original now).
    c.restart();
    let table_copy = c.copy("t");
    c.stop();

    let report = json(&pgpage(&["report", "--json", dir.to_str().unwrap()]));
    let b = block_of(&report, torn_block);
    assert_eq!(b["damage"], "torn", "{b:#}");
    let stale: BTreeMap<String, String> = b["rows"]["stale_rows"]
        .as_array()
        .unwrap_or_else(|| panic!("{b:#}"))
        .iter()
        .map(|s| {
            (
                s["keys"][0].as_str().unwrap().to_owned(),
                s["live_at"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let expected: BTreeMap<String, String> = in_tear
        .iter()
        .map(|lp| (ids[lp].clone(), live_at[&ids[lp]].clone()))
        .collect();
    assert_eq!(stale, expected, "{b:#}");
    assert_eq!(b["rows"]["stale"], in_tear.len());
    // None of them readable: the block's readable rows are the rows the server sees there.
    assert_eq!(
        b["rows"]["readable"].as_u64().unwrap() as usize,
        after.len(),
        "{b:#}"
    );
    assert_eq!(b["rows"]["lost"], 0, "{b:#}");
    let sectors: Vec<u64> = b["torn_sectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap())
        .collect();
    assert!(
        !sectors.is_empty() && sectors.iter().all(|&s| s >= from as u64),
        "{sectors:?}"
    );
    let text = String::from_utf8(pgpage(&["report", dir.to_str().unwrap()]).stdout).unwrap();
    // The text counts them and names the first in key order, with where it is live.
    let (first_id, first_at) = stale.iter().next().unwrap();
    let said = if in_tear.len() == 1 {
        format!("is an older version of a row live elsewhere (key {first_id} at {first_at})")
    } else {
        format!(
            "{} rows here are older versions of rows live elsewhere (key {first_id} at {first_at}",
            in_tear.len()
        )
    };
    assert!(text.contains(&said), "{said}\n{text}");
    // Redacted, the stale versions are said by where their rows live, never by key.
    let redacted =
        String::from_utf8(pgpage(&["report", "--redact", dir.to_str().unwrap()]).stdout).unwrap();
    for (id, at) in &stale {
        assert!(
            !redacted.contains(&format!("key {id} at {at}")),
            "key {id} in the redacted report:\n{redacted}"
        );
    }
    assert!(
        redacted.contains(&format!("a row at {first_at}")),
        "{redacted}"
    );

    // rows --include-damaged: the server's rows of the undamaged table, no stale copy.
    let out = pgpage(&[
        "rows",
        "--include-damaged",
        "--database",
        "postgres",
        dir.to_str().unwrap(),
        "t",
    ]);
    let printed = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        printed == table_copy,
        "rows differ from the server's COPY; stderr: {stderr}"
    );
    let keys: Vec<&str> = printed
        .lines()
        .map(|l| l.split(',').next().unwrap())
        .collect();
    let distinct: BTreeSet<&&str> = keys.iter().collect();
    assert_eq!(distinct.len(), keys.len(), "a key printed twice");
    for lp in &in_tear {
        let id = &ids[lp];
        assert!(
            stderr.contains(&format!("key (id)=({id}) is live at {} too", live_at[id]))
                && stderr.contains(&format!("copy at ({torn_block},{lp})")),
            "{stderr}"
        );
    }

    // The zeroed copy: rows, not index entries.
    let report = json(&pgpage(&["report", "--json", zdir.to_str().unwrap()]));
    let b = block_of(&report, zeroed);
    assert_eq!(b["damage"], "zeroed");
    let lost: BTreeSet<String> = b["rows"]["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k[0].as_str().unwrap().to_owned())
        .collect();
    let server: BTreeSet<String> = zeroed_live.values().cloned().collect();
    assert_eq!(lost, server, "{b:#}");
    assert_eq!(
        b["rows"]["lost"].as_u64().unwrap() as usize,
        zeroed_live.len()
    );
    assert_eq!(
        b["rows"]["keys"].as_array().unwrap().len(),
        zeroed_live.len(),
        "a key listed twice"
    );
    let repeated = b["rows"]["repeated"]
        .as_array()
        .unwrap_or_else(|| panic!("{b:#}"));
    assert_eq!(repeated.len(), 1, "{b:#}");
    assert_eq!(repeated[0]["entries"], 2);
    assert_eq!(
        b["rows"]["index_entries"].as_u64().unwrap() as usize,
        zeroed_live.len() + 1
    );
    assert!(
        report["verdict"]
            .as_str()
            .unwrap()
            .contains(&format!("up to {} rows lost", zeroed_live.len())),
        "{}",
        report["verdict"]
    );
}

each_version!(stale_and_distinct);
