//! `pgpage recover` held against the server's own crash recovery, on every version: a cluster
//! crashed (`pg_ctl stop -m immediate`) after a workload of every heap record kind is copied
//! twice; the server recovers one copy, pgpage the other, and every heap, visibility-map and
//! free-space-map page pgpage writes must equal the server's in every byte. Then damaged blocks of the
//! crashed copy rebuilt from the WAL's images alone.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread;
use std::time::Duration;

use crate::common::{
    bin_dir, copy_dir, json, lsn, ok, pg18_tools, pgpage, psql_at, run_copy, start_copy, stop_copy,
    Cluster,
};

/// The header field a byte offset of a page falls in (bufpage.h PageHeaderData), else "body".
fn field(offset: usize) -> &'static str {
    match offset {
        0..=7 => "pd_lsn",
        8..=9 => "pd_checksum",
        10..=11 => "pd_flags",
        12..=13 => "pd_lower",
        14..=15 => "pd_upper",
        16..=17 => "pd_special",
        18..=19 => "pd_pagesize_version",
        20..=23 => "pd_prune_xid",
        _ => "body (line pointers, tuples or map bits)",
    }
}

/// Every block of `ours` against the same block of `theirs`: one line per block that differs,
/// naming its first differing byte and the field that holds it.
fn differences(what: &str, ours: &[u8], theirs: &[u8]) -> Vec<String> {
    let blocks = ours.len().max(theirs.len()).div_ceil(8192);
    let mut out = Vec::new();
    for b in 0..blocks {
        let page = |f: &[u8]| f.get(b * 8192..(b + 1) * 8192).map(<[u8]>::to_vec);
        let (o, t) = (page(ours), page(theirs));
        if o != t {
            let (o, t) = (o.unwrap_or_default(), t.unwrap_or_default());
            let first = (0..o.len().min(t.len()))
                .find(|&i| o[i] != t[i])
                .unwrap_or(o.len().min(t.len()));
            out.push(format!(
                "{what} page {b}: first differing byte {first} ({}), ours {:02x?} server {:02x?}",
                field(first),
                o.get(first..first + 8).unwrap_or(&[]),
                t.get(first..first + 8).unwrap_or(&[])
            ));
        }
    }
    out
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// What the version's own tools print for each record of the resource managers whose names
/// start with `rmgr` (Heap: Heap and Heap2) from `from` on, by LSN:
/// pg_waldump's record type and `desc: ` text (15, 18, 19) or pg_walinspect's (16, 17). None
/// where no such tool is at hand (13, 14).
fn server_descriptions(
    c: &Cluster,
    version: u32,
    crashed: &Path,
    recovered: &Path,
    from: u64,
    rmgr: &str,
) -> Option<BTreeMap<u64, (String, String)>> {
    let mut out = BTreeMap::new();
    match version {
        16 | 17 => {
            let copy = c.root.join("walinspect");
            copy_dir(recovered, &copy);
            let from = format!("{:X}/{:X}", from >> 32, from & 0xFFFF_FFFF);
            let rows = run_copy(
                c,
                &copy,
                &[
                    "create extension pg_walinspect",
                    &format!(
                        // From the oldest segment the recovered copy keeps (its end-of-recovery
                        // checkpoint removes older ones) when that is later.
                        "select start_lsn, record_type, description from pg_get_wal_records_info(greatest('{from}'::pg_lsn, (select (substr(min(name), 9, 8) || '/' || substr(min(name), 23, 2) || '000000')::pg_lsn from pg_ls_waldir() where name ~ '^[0-9A-F]{{24}}$')), pg_current_wal_lsn()) where resource_manager like '{rmgr}%'"
                    ),
                ],
            );
            for row in rows.lines() {
                let mut cols = row.splitn(3, '|');
                let (l, rec, desc) = (
                    cols.next().unwrap(),
                    cols.next().unwrap(),
                    cols.next().unwrap(),
                );
                out.insert(lsn(l), (rec.to_owned(), desc.to_owned()));
            }
        }
        15 | 18 | 19 => {
            let bin = match version {
                15 => PathBuf::from(bin_dir(15)),
                18 => pg18_tools()?,
                _ => PathBuf::from(bin_dir(19)),
            };
            let wal = crashed.join("pg_wal");
            let names: BTreeSet<String> = fs::read_dir(&wal)
                .unwrap()
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| n.len() == 24)
                .collect();
            let (first, last) = (names.first().unwrap(), names.last().unwrap());
            // Given a start segment alone, pg_waldump reads that segment only.
            let dump = Command::new(bin.join("pg_waldump"))
                .args(["-p", wal.to_str().unwrap(), first, last])
                .output()
                .unwrap();
            for line in String::from_utf8_lossy(&dump.stdout).lines() {
                if !line.starts_with(&format!("rmgr: {rmgr}")) {
                    continue;
                }
                let l = line
                    .split("lsn: ")
                    .nth(1)
                    .unwrap()
                    .split(',')
                    .next()
                    .unwrap();
                let desc = line.split_once("desc: ").unwrap().1;
                let desc = desc.split(", blkref #").next().unwrap();
                let (rec, text) = desc.split_once(' ').unwrap_or((desc, ""));
                out.insert(lsn(l), (rec.to_owned(), text.to_owned()));
            }
        }
        _ => return None,
    }
    assert!(
        !out.is_empty(),
        "the server's tools listed no {rmgr} record"
    );
    Some(out)
}

fn recover_matches_the_servers_own_recovery(version: u32) {
    crash_and_compare(Cluster::start(version), version, |_| {});
}

each_version!(recover_matches_the_servers_own_recovery);

/// 18.6 (the PyPI build scripts/bootstrap.sh installs) names the visibility-map page a heap
/// record clears as one of its block references, where 18.4 clears it unnamed.
#[test]
fn recover_matches_on_18_6_whose_heap_records_name_the_vm_page() {
    let bin = pg18_tools().expect("no PostgreSQL 18.6 build: scripts/bootstrap.sh installs it");
    let c = Cluster::start_in(18, bin.to_str().unwrap().to_owned(), &["-k"]);
    crash_and_compare(c, 18, |crashed| {
        let wal = crashed.join("pg_wal");
        let first = fs::read_dir(&wal)
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.len() == 24)
            .min()
            .unwrap();
        let dump = Command::new(bin.join("pg_waldump"))
            .args(["-p", wal.to_str().unwrap(), &first])
            .output()
            .unwrap();
        let named = String::from_utf8_lossy(&dump.stdout)
            .lines()
            .filter(|l| l.starts_with("rmgr: Heap ") && l.contains(" fork vm blk "))
            .count();
        assert!(named > 0, "18.6 named no map page in a heap record");
    });
}

/// Runs the workload on `c`, crashes it, recovers one copy with the server and one with
/// `pgpage recover --all`, and compares them; then rebuilds damaged blocks from the WAL's
/// images. `also` looks at the crashed copy's files.
fn crash_and_compare(c: Cluster, version: u32, also: impl FnOnce(&Path)) {
    c.psql(&[
        "create table t (id int, v text, big text) with (autovacuum_enabled = off)",
        "insert into t select g, 'v' || g from generate_series(1, 500) g",
        "checkpoint",
    ]);
    let rel = c
        .psql(&["select pg_relation_filepath('t')"])
        .trim()
        .to_owned();
    c.psql(&[
        "insert into t select g, 'w' || g from generate_series(501, 800) g",
        "copy t (id) from program 'seq 801 1500'",
        "update t set v = v || 'h' where id % 7 = 0",
        "update t set id = id + 10000 where id % 11 = 0",
        "delete from t where id % 13 = 0",
        "insert into t values (5000, 'toast', (select string_agg(md5(g::text), '') from generate_series(1, 400) g))",
        "vacuum t",
        "update t set v = 'x' where id between 20 and 40",
        "vacuum freeze t",
        // A table with a unique index: speculative inserts (CONFIRM) and a vacuum that
        // comes back to the heap after the index (VACUUM, or PRUNE_VACUUM_CLEANUP from 17).
        "create table u (id int primary key, v text) with (autovacuum_enabled = off)",
        "insert into u select g, 'u' || g from generate_series(1, 300) g on conflict do nothing",
        "delete from u where id % 3 = 0",
        "vacuum u",
    ]);
    // Two transactions share a row lock: the second makes its xmax a multixact.
    let (root, port) = (c.root.clone(), c.port.clone());
    let first = thread::spawn(move || {
        psql_at(
            &root,
            &port,
            "postgres",
            &[
                "begin",
                "select count(*) from (select * from t where id < 5 for share) s",
                "select pg_sleep(2)",
                "commit",
            ],
        )
    });
    thread::sleep(Duration::from_millis(700));
    c.psql(&[
        "begin",
        "select count(*) from (select * from t where id < 5 for share) s",
        "commit",
    ]);
    ok(first.join().unwrap(), "the first share lock");
    c.psql(&[
        "delete from t where id between 100 and 110",
        "insert into t values (1, 'again')",
    ]);
    let indexes: BTreeSet<String> = c
        .psql(&["select pg_relation_filepath(oid) from pg_class where relkind = 'i'"])
        .lines()
        .map(str::to_owned)
        .collect();
    ok(
        c.pg_ctl(&["-m", "immediate", "-w", "stop"]),
        "pg_ctl stop -m immediate",
    );
    let (a, b) = (c.root.join("A"), c.root.join("B"));
    copy_dir(&c.data, &a);
    copy_dir(&c.data, &b);
    run_copy(&c, &a, &[]);
    let before = fs::read(b.join(&rel)).unwrap();

    let overlay = c.root.join("overlay");
    let out = pgpage(&[
        "recover",
        "--all",
        "--json",
        "--out",
        overlay.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let report = json(&out);
    assert_eq!(
        fs::read(b.join(&rel)).unwrap(),
        before,
        "PATH is never written"
    );
    // What is not recovered: before 19, free space map pages whose only change is a hint the
    // server may or may not write. Index blocks are recovered (and compared below) like the
    // table's.
    let blocks = report["blocks"].as_array().unwrap();
    for blk in blocks.iter().filter(|b| !b["recovered"].as_bool().unwrap()) {
        let path = blk["path"].as_str().unwrap();
        let reason = blk["reason"].as_str().unwrap();
        let hint = path.ends_with("_fsm") && version <= 18 && reason.contains("a hint");
        assert!(hint, "{path}: {reason}");
        assert!(stderr.contains(path), "{stderr}");
    }
    assert!(
        blocks
            .iter()
            .any(|b| indexes.contains(b["path"].as_str().unwrap()) && b["recovered"] == true),
        "no index block recovered"
    );
    assert_eq!(
        out.status.code(),
        Some(if report["summary"]["not_recovered"] == 0 {
            0
        } else {
            1
        })
    );
    // Every heap record kind of the workload was replayed.
    let applied: BTreeSet<String> = blocks
        .iter()
        .flat_map(|b| b["applied"].as_array().unwrap())
        .map(|a| {
            format!(
                "{}/{}",
                a["rmgr"].as_str().unwrap(),
                a["record"].as_str().unwrap()
            )
        })
        .collect();
    let prune = match version {
        13 => "Heap2/CLEAN",
        14..=16 => "Heap2/PRUNE",
        _ => "Heap2/PRUNE_VACUUM_SCAN",
    };
    let mut kinds = vec![
        "Heap/INSERT",
        "Heap/UPDATE",
        "Heap/HOT_UPDATE",
        "Heap/DELETE",
        "Heap/LOCK",
        "Heap2/MULTI_INSERT+INIT",
        prune,
    ];
    if version <= 18 {
        kinds.push("Heap2/VISIBLE");
    }
    kinds.push("Heap/HEAP_CONFIRM");
    kinds.push(match version {
        13 => "Heap2/CLEAN",
        14..=16 => "Heap2/VACUUM",
        _ => "Heap2/PRUNE_VACUUM_CLEANUP",
    });
    for kind in kinds {
        assert!(applied.contains(kind), "no {kind} replayed: {applied:?}");
    }
    let multixact = blocks
        .iter()
        .flat_map(|b| b["applied"].as_array().unwrap())
        .any(|a| a["record"] == "LOCK" && a["desc"].as_str().unwrap().contains("IS_MULTI"));
    assert!(multixact, "no row lock by a multixact was replayed");
    // Each replayed record described as the version's pg_waldump or pg_walinspect does.
    let heap_applied: BTreeMap<u64, (String, String)> = blocks
        .iter()
        .flat_map(|b| b["applied"].as_array().unwrap())
        .filter(|a| a["rmgr"].as_str().unwrap().starts_with("Heap"))
        .map(|a| {
            let text = |k: &str| a[k].as_str().unwrap().to_owned();
            (lsn(&text("lsn")), (text("record"), text("desc")))
        })
        .collect();
    let first = *heap_applied.keys().next().unwrap();
    if let Some(server) = server_descriptions(&c, version, &b, &a, first, "Heap") {
        let wrong: Vec<String> = heap_applied
            .iter()
            .filter(|(l, ours)| server.get(l) != Some(ours))
            .map(|(l, ours)| format!("{l:X}: ours {ours:?}, server {:?}", server.get(l)))
            .collect();
        assert!(
            wrong.is_empty(),
            "{} of {} descriptions differ:\n{}",
            wrong.len(),
            heap_applied.len(),
            wrong.join("\n")
        );
    }

    // Every block pgpage recovered (main, visibility-map and free-space-map forks) equals the
    // server's in the overlay; the blocks it did not recover keep the crashed copy's bytes.
    let mut compared = 0;
    let mut diffs = Vec::new();
    let wrote: BTreeSet<String> = files_under(&overlay)
        .iter()
        .map(|f| {
            f.strip_prefix(&overlay)
                .unwrap()
                .to_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    for blk in blocks.iter().filter(|b| b["recovered"].as_bool().unwrap()) {
        let path = blk["path"].as_str().unwrap();
        let n = blk["block"].as_u64().unwrap() as usize;
        let page = |f: Vec<u8>| {
            f.get(n * 8192..(n + 1) * 8192)
                .map(<[u8]>::to_vec)
                .unwrap_or_default()
        };
        let ours = page(fs::read(overlay.join(path)).unwrap());
        let theirs = page(fs::read(a.join(path)).unwrap_or_default());
        compared += 1;
        diffs.extend(differences(&format!("{path} block {n}:"), &ours, &theirs));
    }
    assert!(
        wrote.contains(&rel)
            && wrote.contains(&format!("{rel}_vm"))
            && wrote.contains(&format!("{rel}_fsm")),
        "{wrote:?}"
    );
    assert!(compared > 20, "only {compared} blocks compared");
    assert!(
        diffs.is_empty(),
        "{} of {compared} blocks differ:\n{}",
        diffs.len(),
        diffs.join("\n")
    );

    // Damaged blocks of the crashed copy, rebuilt from the WAL's images alone: a page whose
    // checksum fails (chosen as a problem page) and a zeroed one (chosen by --block).
    let damaged = c.root.join("damaged");
    copy_dir(&b, &damaged);
    let file = damaged.join(&rel);
    let mut bytes = fs::read(&file).unwrap();
    bytes[2 * 8192 + 4000..2 * 8192 + 4010].fill(0x55);
    bytes[8192..2 * 8192].fill(0);
    fs::write(&file, &bytes).unwrap();
    let server = fs::read(a.join(&rel)).unwrap();
    for (args, block) in [(vec![], 2usize), (vec!["--block", "1"], 1)] {
        let new = c.root.join(format!("rebuilt{block}"));
        let mut all = vec!["recover", "--json", "--out", new.to_str().unwrap()];
        all.extend(args);
        all.push(file.to_str().unwrap());
        let out = pgpage(&all);
        let report = json(&out);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let got = &report["blocks"][0];
        assert_eq!(report["summary"]["blocks"], 1, "{report}");
        assert_eq!(got["block"], block);
        assert_eq!(got["start"]["source"], "wal_image");
        let rebuilt = fs::read(&new).unwrap();
        let d = differences(
            &rel,
            &rebuilt[block * 8192..(block + 1) * 8192],
            &server[block * 8192..(block + 1) * 8192],
        );
        assert!(
            d.is_empty(),
            "block {block} rebuilt from images: {}",
            d.join("\n")
        );
        for other in (0..bytes.len() / 8192).filter(|&o| o != block) {
            assert_eq!(
                rebuilt[other * 8192..(other + 1) * 8192],
                bytes[other * 8192..(other + 1) * 8192],
                "block {other} was not chosen"
            );
        }
    }
    also(&b);
}

/// What recover cannot run on ends with exit 2 and one line on stderr, writing nothing.
#[test]
fn recover_refuses_what_it_cannot_run_on() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("new");
    let not_data = tmp.path().join("16384");
    fs::write(&not_data, vec![0u8; 8192]).unwrap();
    let existing = tmp.path().join("exists");
    fs::write(&existing, b"").unwrap();
    let o = out.to_str().unwrap();
    for (args, words) in [
        (
            vec!["recover", "--out", o, not_data.to_str().unwrap()],
            "not in a data directory",
        ),
        (
            vec![
                "recover",
                "--out",
                existing.to_str().unwrap(),
                not_data.to_str().unwrap(),
            ],
            "already exists",
        ),
        (
            vec![
                "recover",
                "--from",
                not_data.to_str().unwrap(),
                "--out",
                o,
                not_data.to_str().unwrap(),
            ],
            // PATH outside a data directory is refused before its backup is looked at.
            "is not in a data directory",
        ),
        (
            vec![
                "recover",
                "--upto",
                "12",
                "--out",
                o,
                not_data.to_str().unwrap(),
            ],
            "not an LSN",
        ),
    ] {
        let r = pgpage(&args);
        let stderr = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(words), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(!out.exists());
    }
}

/// The B-tree special space's fields (nbtree.h BTPageOpaqueData) and the metapage's, for a
/// byte offset of an index page; else the page header's or "body".
fn btree_field(offset: usize, block: usize) -> &'static str {
    match offset {
        8176..=8179 => "btpo_prev",
        8180..=8183 => "btpo_next",
        8184..=8187 => "btpo_level",
        8188..=8189 => "btpo_flags",
        8190..=8191 => "btpo_cycleid",
        24..=71 if block == 0 => "BTMetaPageData",
        o => field(o),
    }
}

/// A B-tree workload on `version` crashed, one copy recovered by the server and one by
/// `pgpage recover --all`: every index file pgpage writes equals the server's in every byte,
/// and every B-tree record kind of the workload was applied.
fn recover_btree_matches_the_servers_own_recovery(version: u32) {
    btree_crash_and_compare(Cluster::start(version), version, false);
}

each_version!(recover_btree_matches_the_servers_own_recovery);

/// Without data checksums (and wal_log_hints off) no hint makes a full-page image: pages start
/// from older images or from disk more often, and their hint bits are not logged.
#[test]
fn recover_btree_matches_without_checksums() {
    for version in [13, 16] {
        btree_crash_and_compare(Cluster::start_with(version, &[]), version, false);
    }
}

/// With wal_consistency_checking, each B-tree record carries an image of every page it
/// changes as the primary had it after the record; recover holds its replay of the record
/// to it under btree_mask, as the server does, and refuses the block when they differ. The
/// per-record oracle of every B-tree record of the workload.
#[test]
fn recover_btree_matches_every_record_under_wal_consistency_checking() {
    for version in 13..=19 {
        btree_crash_and_compare(Cluster::start(version), version, true);
    }
}

fn btree_crash_and_compare(c: Cluster, version: u32, consistency_checking: bool) {
    if consistency_checking {
        c.psql(&[
            "alter system set wal_consistency_checking = 'btree'",
            "select pg_reload_conf()",
        ]);
    }
    c.psql(&[
        "create table b (id int primary key, k text, cat text, n int, pad text) with (autovacuum_enabled = off)",
        // Long keys in random order: splits on both sides, and levels above the leaves.
        "create index b_k on b (k)",
        // Five values: deduplication, then posting lists split by inserts.
        "create index b_cat on b (cat)",
        // Long keys in id order: a deep tree whose whole subtrees a range delete empties.
        "create index b_pad on b (lpad(id::text, 400, '0'))",
        "create index b_n on b (n)",
        "insert into b select g, repeat(md5(g::text), 8), 'cat' || (g % 5), g, 'p' from generate_series(1, 2000) g",
        // One value only: full pages of posting lists.
        "create table d (id int, v int) with (autovacuum_enabled = off)",
        "create index d_v on d (v)",
        "create table e (id int) with (autovacuum_enabled = off)",
        "create index e_pad on e (lpad(id::text, 400, '0'))",
        "checkpoint",
    ]);
    c.psql(&[
        "insert into b select g, repeat(md5(g::text), 8), 'cat' || (g % 5), g, 'p' from generate_series(2001, 16000) g",
        "delete from b where id between 3000 and 9000",
        "vacuum b",
        // The heap's freed room takes new rows: their TIDs fall inside posting lists.
        "insert into b select g, repeat(md5(g::text), 8), 'cat' || (g % 5), g, 'p' from generate_series(16001, 19000) g",
    ]);
    // Non-HOT updates of the same rows: versions of unchanged keys pile up in the other
    // indexes (bottom-up deletion from 14); index scans between them mark the dead ones
    // (simple deletion, 13 too).
    for _ in 0..8 {
        c.psql(&[
            "update b set n = n + 1 where id between 100 and 400",
            "set enable_seqscan = off",
            "set enable_bitmapscan = off",
            "select count(*) from b where id between 100 and 400",
            "select count(*) from b where cat = 'cat1' and id < 500",
        ]);
    }
    c.psql(&["delete from b where id between 12000 and 12500", "vacuum b"]);
    // A third of the rows die, their index entries stay (no index vacuum); new rows take the
    // room pruning frees on the same heap pages, so their TIDs fall inside posting lists of
    // full pages, which split.
    c.psql(&[
        "insert into d select g, 1 from generate_series(1, 30000) g",
        "delete from d where id % 3 = 0",
        "vacuum (index_cleanup false) d",
        "insert into d select g, 1 from generate_series(30001, 45000) g",
    ]);
    // A deep tree emptied but for its last leaf: the fast root comes down to it as the pages
    // above go (UNLINK_PAGE_META); then that leaf splits and the metapage follows the new
    // downlink (INSERT_META).
    c.psql(&[
        "insert into e select g from generate_series(1, 8000) g",
        "delete from e where id < 7995",
        "vacuum e",
        "insert into e select g from generate_series(8001, 9000) g",
    ]);
    let files: BTreeMap<String, String> = c
        .psql(&["select relname || '|' || pg_relation_filepath(oid) from pg_class where relkind = 'i' and relname ~ '^(b|d|e)_'"])
        .lines()
        .filter_map(|l| l.split_once('|'))
        .map(|(n, p)| (n.to_owned(), p.to_owned()))
        .collect();
    let indexes: BTreeSet<String> = files.values().cloned().collect();
    ok(
        c.pg_ctl(&["-m", "immediate", "-w", "stop"]),
        "pg_ctl stop -m immediate",
    );
    let (a, b) = (c.root.join("A"), c.root.join("B"));
    copy_dir(&c.data, &a);
    copy_dir(&c.data, &b);
    run_copy(&c, &a, &[]);
    let overlay = c.root.join("overlay");
    let out = pgpage(&[
        "recover",
        "--all",
        "--json",
        "--out",
        overlay.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    let report = json(&out);
    let blocks = report["blocks"].as_array().unwrap();
    let refused: Vec<String> = blocks
        .iter()
        .filter(|b| !b["recovered"].as_bool().unwrap())
        .filter(|b| indexes.contains(b["path"].as_str().unwrap()))
        .map(|b| format!("{} block {}: {}", b["path"], b["block"], b["reason"]))
        .collect();
    assert!(
        refused.is_empty(),
        "{} index blocks not recovered:\n{}",
        refused.len(),
        refused.join("\n")
    );
    let applied: BTreeSet<String> = blocks
        .iter()
        .flat_map(|b| b["applied"].as_array().unwrap())
        .filter(|a| a["rmgr"] == "Btree")
        .map(|a| a["record"].as_str().unwrap().to_owned())
        .collect();
    let btree_applied_lsns: BTreeSet<u64> = blocks
        .iter()
        .flat_map(|b| b["applied"].as_array().unwrap())
        .filter(|a| a["rmgr"] == "Btree")
        .map(|a| lsn(a["lsn"].as_str().unwrap()))
        .collect();
    let mut kinds = vec![
        "INSERT_LEAF",
        "INSERT_UPPER",
        "SPLIT_L",
        "SPLIT_R",
        "NEWROOT",
        "DEDUP",
        "INSERT_POST",
        "VACUUM",
        "DELETE",
        "MARK_PAGE_HALFDEAD",
        "UNLINK_PAGE",
        "UNLINK_PAGE_META",
        "INSERT_META",
    ];
    if version >= 14 {
        kinds.push("META_CLEANUP");
    }
    // From 14 the description names the unlinked page's level: an internal page went too
    // (its leaf re-pointed at the next child to delete).
    let internal_unlinked = blocks
        .iter()
        .flat_map(|b| b["applied"].as_array().unwrap())
        .filter(|a| a["record"] == "UNLINK_PAGE")
        .any(|a| {
            let desc = a["desc"].as_str().unwrap();
            !desc.contains("level: 0") && !desc.contains("level 0;")
        });
    assert!(
        version == 13 || internal_unlinked,
        "no internal page was unlinked"
    );
    let missing: Vec<&str> = kinds
        .into_iter()
        .filter(|k| !applied.contains(*k))
        .collect();
    // Every index file pgpage wrote, whole, against the server's.
    let mut diffs = Vec::new();
    let mut compared = 0;
    let mut replayed = 0;
    for f in files_under(&overlay) {
        let rel = f
            .strip_prefix(&overlay)
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        if !indexes.contains(&rel) {
            continue;
        }
        let ours = fs::read(&f).unwrap();
        let theirs = fs::read(a.join(&rel)).unwrap();
        let crashed = fs::read(b.join(&rel)).unwrap();
        compared += 1;
        // The pages the server's recovery changed: the comparison is about them.
        replayed += differences(&rel, &crashed, &theirs).len();
        for d in differences(&rel, &ours, &theirs) {
            // Name the B-tree field the first differing byte falls in.
            let block: usize = d
                .split(" page ")
                .nth(1)
                .and_then(|s| s.split(':').next())
                .and_then(|s| s.parse().ok())
                .unwrap_or(1);
            let first: usize = d
                .split("first differing byte ")
                .nth(1)
                .and_then(|s| s.split(' ').next())
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
            diffs.push(format!("{d} [{}]", btree_field(first, block)));
        }
    }
    assert_eq!(
        compared,
        indexes.len(),
        "index files written: {compared} of {indexes:?}"
    );
    assert!(
        replayed > 100,
        "recovery changed only {replayed} index pages"
    );
    if consistency_checking {
        // The records replayed onto pages carried the primary's images to hold them to.
        let wal = pgpage(&["wal", "--json", b.join("pg_wal").to_str().unwrap()]);
        let checked = String::from_utf8_lossy(&wal.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|r| {
                r["rmgr"] == "Btree"
                    && r["lsn"]
                        .as_str()
                        .is_some_and(|l| btree_applied_lsns.contains(&lsn(l)))
            })
            .filter(|r| {
                let blocks = r["blocks"].as_array().unwrap();
                !blocks.is_empty() && blocks.iter().all(|b| b["image"] == true)
            })
            .count();
        assert!(
            checked > 10000,
            "only {checked} replayed B-tree records carry images"
        );
    }
    assert!(
        diffs.is_empty(),
        "{} index pages differ:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
    assert!(missing.is_empty(), "no {missing:?} replayed: {applied:?}");
    // Each replayed B-tree record described as the version's pg_waldump or pg_walinspect does.
    let btree_applied: BTreeMap<u64, (String, String)> = blocks
        .iter()
        .flat_map(|b| b["applied"].as_array().unwrap())
        .filter(|a| a["rmgr"] == "Btree")
        .map(|a| {
            let text = |k: &str| a[k].as_str().unwrap().to_owned();
            (lsn(&text("lsn")), (text("record"), text("desc")))
        })
        .collect();
    let first = *btree_applied.keys().next().unwrap();
    if let Some(server) = server_descriptions(&c, version, &b, &a, first, "Btree") {
        // The records the server's tools could still read: the recovered copy keeps the WAL
        // from its oldest remaining segment on.
        let oldest = *server.keys().next().unwrap();
        let wrong: Vec<String> = btree_applied
            .iter()
            .filter(|(l, ours)| **l >= oldest && server.get(l) != Some(ours))
            .take(10)
            .map(|(l, ours)| format!("{l:X}: ours {ours:?}, server {:?}", server.get(l)))
            .collect();
        let listed = btree_applied
            .keys()
            .filter(|l| server.contains_key(l))
            .count();
        assert!(
            listed > 1000,
            "the server's tools listed {listed} of the B-tree records"
        );
        assert!(
            wrong.is_empty(),
            "descriptions differ:\n{}",
            wrong.join("\n")
        );
    }
    // A split that also split a posting list (the new item's TID fell inside one).
    let posting_split = blocks
        .iter()
        .flat_map(|b| b["applied"].as_array().unwrap())
        .filter(|a| a["record"] == "SPLIT_L" || a["record"] == "SPLIT_R")
        .any(|a| {
            let desc = a["desc"].as_str().unwrap();
            !desc.ends_with("postingoff: 0") && !desc.ends_with("postingoff 0")
        });
    assert!(posting_split, "no page split also split a posting list");

    // Damaged index blocks of the crashed copy, each rebuilt from its newest image in the WAL
    // and the records after it (--block), equal the server's.
    // (Under wal_consistency_checking the WAL outgrows max_wal_size and checkpoints write most
    // pages before the crash: too few are left to rebuild.)
    let rebuilt_from_images: &[&str] = if consistency_checking {
        &[]
    } else {
        &["b_cat", "b_pad", "d_v"]
    };
    for &name in rebuilt_from_images {
        let rel = files[name].clone();
        let crashed = fs::read(b.join(&rel)).unwrap();
        let server = fs::read(a.join(&rel)).unwrap();
        let changed: Vec<usize> = (0..crashed.len() / 8192)
            .filter(|&n| crashed[n * 8192..(n + 1) * 8192] != server[n * 8192..(n + 1) * 8192])
            .collect();
        let chosen: Vec<usize> = changed
            .iter()
            .copied()
            .step_by((changed.len() / 12).max(1))
            .take(12)
            .collect();
        assert!(chosen.len() >= 8, "{name}: only {changed:?} changed");
        let damaged = c.root.join(format!("damaged-{name}"));
        copy_dir(&b, &damaged);
        let file = damaged.join(&rel);
        let mut bytes = crashed.clone();
        for &n in &chosen {
            bytes[n * 8192 + 3000..n * 8192 + 3100].fill(0x55);
        }
        fs::write(&file, &bytes).unwrap();
        let new = c.root.join(format!("rebuilt-{name}"));
        let numbers: Vec<String> = chosen.iter().map(|n| n.to_string()).collect();
        let mut args = vec!["recover", "--json", "--out", new.to_str().unwrap()];
        for n in &numbers {
            args.extend(["--block", n.as_str()]);
        }
        args.push(file.to_str().unwrap());
        let out = pgpage(&args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report = json(&out);
        assert_eq!(report["summary"]["recovered"], chosen.len(), "{report}");
        let rebuilt = fs::read(&new).unwrap();
        for n in 0..bytes.len() / 8192 {
            let page = |f: &[u8]| f[n * 8192..(n + 1) * 8192].to_vec();
            if chosen.contains(&n) {
                let d = differences(&format!("{rel} block {n}"), &page(&rebuilt), &page(&server));
                assert!(d.is_empty(), "rebuilt from WAL images: {}", d.join("\n"));
            } else {
                assert!(
                    page(&rebuilt) == page(&bytes),
                    "{name} block {n} was not chosen"
                );
            }
        }
    }
}

/// `recover --from`: blocks rebuilt from a base backup's pages and the WAL since the backup's
/// start, held against the server's own recovery of that backup (a point-in-time recovery to
/// the end of the WAL, through restore_command). A copy of the stopped cluster is the backup;
/// after it, a workload of inserts, HOT and other updates, deletes and VACUUMs; then two blocks
/// of the live copy are zeroed. `recover --from BACKUP --block` rebuilds them, `--all` every
/// block of the table's file the WAL touched, each equal to the server's page in every byte;
/// WAL that does not reach back to the backup's start, or ends before --upto, is named.
fn recover_from_backup_matches_the_servers_recovery_of_it(version: u32) {
    let mut c = Cluster::start(version);
    // The WAL since the backup's start, kept as an archive keeps it: checkpoints after the
    // backup recycle the segments in pg_wal.
    let archive = c.root.join("archive");
    fs::create_dir_all(&archive).unwrap();
    ok(
        Command::new("chown")
            .args(["postgres", archive.to_str().unwrap()])
            .output()
            .unwrap(),
        "chown archive",
    );
    c.psql(&[
        "alter system set archive_mode = on",
        &format!("alter system set archive_command = 'cp %p {}/%f'", archive.display()),
        "create table t (id int primary key, v text) with (autovacuum_enabled = off, fillfactor = 80)",
        "insert into t select g, 'v' || g from generate_series(1, 3000) g",
        "checkpoint",
    ]);
    let rel = c.file("select pg_relation_filepath('t')");
    let rel = rel.strip_prefix(&c.data).unwrap().to_path_buf();
    c.stop();
    let backup = c.root.join("backup");
    copy_dir(&c.data, &backup);
    fs::write(backup.join("postgresql.auto.conf"), "").unwrap();
    c.restart();
    // The workload in a later segment than the backup's start: WAL without the first one
    // starts after it.
    c.psql(&[
        "select pg_switch_wal()",
        "update t set v = v || 'h' where id % 5 = 0",
        "update t set id = id + 100000 where id % 17 = 0",
        "delete from t where id % 13 = 0",
        "insert into t select g, 'n' || g from generate_series(200001, 200400) g",
        "vacuum t",
        "update t set v = 'x' where id between 300 and 400",
        "checkpoint",
        "update t set v = v || 'y' where id between 1000 and 1100",
    ]);
    c.stop();
    // The server's recovery of the backup: its pages, and the WAL to the end.
    let wal = c.root.join("walcopy");
    copy_dir(&archive, &wal);
    for e in fs::read_dir(c.data.join("pg_wal")).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            fs::copy(&p, wal.join(p.file_name().unwrap())).unwrap();
        }
    }
    let a = c.root.join("A");
    copy_dir(&backup, &a);
    fs::write(a.join("recovery.signal"), "").unwrap();
    let mut conf = fs::OpenOptions::new()
        .append(true)
        .open(a.join("postgresql.auto.conf"))
        .unwrap();
    use std::io::Write as _;
    writeln!(
        conf,
        "restore_command = 'cp \"{}/%f\" \"%p\"'",
        wal.display()
    )
    .unwrap();
    // No connections while recovering: a query in a hot standby can be cancelled by a
    // recovery conflict. `pg_ctl -w start` returns once the standby is consistent, so
    // the end of recovery is waited for apart (it removes recovery.signal).
    writeln!(conf, "hot_standby = off").unwrap();
    drop(conf);
    recover_to_end(&c, &a);
    let server = fs::read(a.join(&rel)).unwrap();
    // The live copy, two of its blocks zeroed.
    let b = c.root.join("B");
    copy_dir(&c.data, &b);
    let file = b.join(&rel);
    let mut bytes = fs::read(&file).unwrap();
    let blocks = bytes.len() / 8192;
    assert!(blocks > 20, "{blocks} blocks");
    let (z1, z2) = (3usize, blocks - 2);
    for z in [z1, z2] {
        bytes[z * 8192..(z + 1) * 8192].fill(0);
    }
    fs::write(&file, &bytes).unwrap();
    let page = |bytes: &[u8], n: usize| bytes[n * 8192..(n + 1) * 8192].to_vec();

    let out_path = c.root.join("fixed");
    let out = pgpage(&[
        "recover",
        "--json",
        "--from",
        backup.to_str().unwrap(),
        "--block",
        &z1.to_string(),
        "--block",
        &z2.to_string(),
        "--wal",
        wal.to_str().unwrap(),
        "--out",
        out_path.to_str().unwrap(),
        file.to_str().unwrap(),
    ]);
    let report = json(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{report:#}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for blk in report["blocks"].as_array().unwrap() {
        assert_eq!(blk["start"]["source"], "backup", "{blk:#}");
    }
    let fixed = fs::read(&out_path).unwrap();
    for z in [z1, z2] {
        let diff = differences(&format!("block {z}"), &page(&fixed, z), &page(&server, z));
        assert!(
            diff.is_empty(),
            "{}\n{}",
            diff.join("\n"),
            fs::read_to_string(c.root.join("copy.log")).unwrap_or_default()
        );
    }
    // Every block of the file the WAL touched since the backup, from the backup's pages.
    let overlay = c.root.join("overlay");
    let out = pgpage(&[
        "recover",
        "--json",
        "--all",
        "--from",
        backup.join(&rel).to_str().unwrap(),
        "--wal",
        wal.to_str().unwrap(),
        "--out",
        overlay.to_str().unwrap(),
        file.to_str().unwrap(),
    ]);
    let report = json(&out);
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    let all = fs::read(&overlay).unwrap();
    let recovered: Vec<usize> = report["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["fork"] == "main")
        .map(|b| b["block"].as_u64().unwrap() as usize)
        .collect();
    assert!(
        recovered.contains(&z1) && recovered.contains(&z2) && recovered.len() > 5,
        "{recovered:?}"
    );
    for n in &recovered {
        let diff = differences(&format!("block {n}"), &page(&all, *n), &page(&server, *n));
        assert!(diff.is_empty(), "{}", diff.join("\n"));
    }
    // WAL that starts after the backup's start: the records between are missing. The block
    // is rebuilt only when a full-page image of it follows the gap (the image replaces the
    // page whatever came before); then it is the server's page, else it is refused, named.
    let late = c.root.join("late");
    fs::create_dir_all(&late).unwrap();
    let control = json(&pgpage(&["control", "--json", backup.to_str().unwrap()]));
    let start_segment = lsn(control["redo_lsn"].as_str().unwrap()) >> 24;
    let segno = |p: &Path| {
        let name = p.file_name().unwrap().to_str().unwrap();
        u64::from_str_radix(&name[8..16], 16).unwrap() * 256
            + u64::from_str_radix(&name[16..24], 16).unwrap()
    };
    for e in fs::read_dir(&wal).unwrap() {
        let s = e.unwrap().path();
        let name = s.file_name().unwrap().to_str().unwrap().to_owned();
        if name.len() == 24 && segno(&s) > start_segment {
            fs::copy(&s, late.join(&name)).unwrap();
        }
    }
    let late_out = c.root.join("late-out");
    let late_run = pgpage(&[
        "recover",
        "--json",
        "--from",
        backup.to_str().unwrap(),
        "--block",
        &z1.to_string(),
        "--wal",
        late.to_str().unwrap(),
        "--out",
        late_out.to_str().unwrap(),
        file.to_str().unwrap(),
    ]);
    let said = String::from_utf8_lossy(&late_run.stderr);
    match late_run.status.code() {
        Some(0) => {
            let diff = differences(
                &format!("block {z1}"),
                &page(&fs::read(&late_out).unwrap(), z1),
                &page(&server, z1),
            );
            assert!(diff.is_empty(), "{}", diff.join("\n"));
            // Recovered, but the WAL was not whole: that is said, not left out.
            let gaps = json(&late_run)["summary"]["gaps"].clone();
            assert!(
                said.contains("warning: the WAL given starts at")
                    && gaps.as_array().is_some_and(|g| g.len() == 1),
                "{said} {gaps}"
            );
        }
        Some(1) => assert!(
            said.contains("the WAL given starts at")
                || said.contains("the WAL given holds no record"),
            "{said}"
        ),
        other => panic!("{other:?}: {said}"),
    }
    // --upto past the WAL's end: what the blocks were there is unknown.
    let short = pgpage(&[
        "recover",
        "--from",
        backup.to_str().unwrap(),
        "--block",
        &z1.to_string(),
        "--wal",
        wal.to_str().unwrap(),
        "--upto",
        "FF/0",
        "--out",
        c.root.join("short-out").to_str().unwrap(),
        file.to_str().unwrap(),
    ]);
    let said = String::from_utf8_lossy(&short.stderr);
    assert_eq!(short.status.code(), Some(1), "{said}");
    assert!(said.contains("before --upto FF/0"), "{said}");
}

each_version!(recover_from_backup_matches_the_servers_recovery_of_it);

/// Starts the copy `dir`, which holds recovery.signal, waits until its archive recovery has
/// ended and the server reads as not in recovery, and stops it cleanly.
fn recover_to_end(c: &Cluster, dir: &Path) {
    start_copy(c, dir, "recovery.log");
    let mut ended = false;
    for _ in 0..1200 {
        if !dir.join("recovery.signal").exists() {
            let out = psql_at(
                &c.root,
                &c.port,
                "postgres",
                &["select pg_is_in_recovery()"],
            );
            if out.status.success() && String::from_utf8_lossy(&out.stdout).trim() == "f" {
                ended = true;
                break;
            }
        }
        thread::sleep(Duration::from_millis(100));
    }
    stop_copy(c, dir);
    assert!(
        ended,
        "recovery did not end in 120 s: {}",
        fs::read_to_string(c.root.join("recovery.log")).unwrap_or_default()
    );
}
