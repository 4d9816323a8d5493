//! An older but valid page (a lost write, or a block restored from an older backup) held
//! against the server on PostgreSQL 13 to 19. A table with a primary key and a second index
//! is checkpointed and the stopped cluster copied (the older copy); rows of block 5 are then
//! updated and deleted, and a varied workload runs (VACUUM, TRUNCATE of another table, a
//! dropped table, CREATE INDEX, an unlogged table) before a clean stop. Then:
//! - the undamaged cluster's report names no block (no page is older than its WAL);
//! - a copy with the older copy's block 5 in place, and an (identical) untouched block, names
//!   block 5 `stale`, with the newest record LSNs the server's pg_walinspect (16 and later)
//!   or pg_waldump (15) lists for it, and not the other;
//!   With the older copy given as the backup (`--from`), the report says its page is this one;
//! - the server reads that copy without a word but returns other rows than the live one;
//!   `rows` leaves out the older page's rows (printed with --include-damaged, but for the
//!   older versions of rows live elsewhere), the rest equal to the server's;
//! - the report's own step (`pgpage recover`) put in place gives the live cluster's rows.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::common::{
    bin_dir, copy_dir, json, lsn, pgpage, run_copy, run_steps, steps_of, write_block, Cluster,
};
use serde_json::Value;

const BLCKSZ: usize = 8192;

fn page(file: &Path, block: usize) -> Vec<u8> {
    fs::read(file).unwrap()[block * BLCKSZ..(block + 1) * BLCKSZ].to_vec()
}

/// An LSN as the version prints it (19 pads the low half to eight digits).
fn lsn_text(version: u32, l: u64) -> String {
    if version >= 19 {
        format!("{:X}/{:08X}", l >> 32, l & 0xffff_ffff)
    } else {
        format!("{:X}/{:X}", l >> 32, l & 0xffff_ffff)
    }
}

/// `COPY (select * from t order by id)` of a data directory, started on the cluster's port.
fn rows_of(c: &Cluster, dir: &Path) -> String {
    run_copy(
        c,
        dir,
        &[
            "set enable_indexscan = off",
            "set enable_bitmapscan = off",
            "copy (select * from t order by id) to stdout",
        ],
    )
}

fn blocks_of(report: &Value) -> Vec<(String, u64, String)> {
    report["relations"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| {
            let name = r["relation"].as_str().unwrap_or("?").to_owned();
            r["blocks"].as_array().unwrap().iter().map(move |b| {
                (
                    name.clone(),
                    b["block"].as_u64().unwrap(),
                    b["damage"].as_str().unwrap().to_owned(),
                )
            })
        })
        .collect()
}

/// The newest record (start, end) that touched main-fork block `block` of relfilenode `rel`
/// between `from` and `to`, as the server's own tools list them; None where this version
/// has neither pg_walinspect's block info nor a pg_waldump here.
fn server_newest(
    c: &Cluster,
    version: u32,
    rel: &str,
    block: u32,
    from: &str,
    to: &str,
) -> Option<(u64, u64)> {
    if version >= 16 {
        c.psql(&["create extension if not exists pg_walinspect"]);
        let out = c.psql(&[&format!(
            "select start_lsn, end_lsn from pg_get_wal_block_info('{from}', '{to}') where relfilenode = {rel} and relforknumber = 0 and relblocknumber = {block} and not (resource_manager = 'Heap2' and record_type = 'VISIBLE') order by start_lsn desc limit 1"
        )]);
        let line = out.lines().find(|l| l.contains('|'))?;
        let (s, e) = line.split_once('|')?;
        return Some((lsn(s), lsn(e)));
    }
    let waldump = Path::new(&bin_dir(version)).join("pg_waldump");
    if !waldump.exists() {
        return None;
    }
    let out = Command::new(&waldump)
        .args([
            "-p",
            c.data.join("pg_wal").to_str().unwrap(),
            "-s",
            from,
            "-e",
            to,
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let mine = format!("/{rel} blk {block}");
    let lines: Vec<&str> = text.lines().collect();
    // pg_waldump prints each record's start; its end is the next record's start.
    let at = |l: &str| {
        let s = l.split("lsn: ").nth(1)?.split(',').next()?;
        Some(lsn(s))
    };
    let i = lines.iter().rposition(|l| {
        (l.contains(&format!("{mine} ")) || l.contains(&format!("{mine},")) || l.ends_with(&mine))
            && !l.contains("fork")
            && !(l.contains("Heap2") && l.contains("VISIBLE"))
    })?;
    Some((
        at(lines[i])?,
        lines.get(i + 1).and_then(|l| at(l)).unwrap_or(u64::MAX),
    ))
}

fn lost_write(version: u32) {
    let mut c = Cluster::start(version);
    // No autovacuum snapshot may keep VACUUM from making the older copy's pages all-visible:
    // the untouched block must be the same page in both copies.
    c.psql(&[
        "alter system set autovacuum = off",
        "select pg_reload_conf()",
    ]);
    c.psql(&[
        "create table t (id int primary key, v text, n int) with (fillfactor = 90)",
        "create index t_v on t (v)",
        "insert into t select g, 'value ' || g, g from generate_series(1, 3000) g",
        "create table other (id int)",
        "insert into other select generate_series(1, 2000)",
        "create table gone (id int primary key)",
        "insert into gone select generate_series(1, 2000)",
        "create unlogged table u (id int primary key)",
        "insert into u select generate_series(1, 2000)",
        "vacuum freeze",
        // A database-wide VACUUM of 18 leaves t's pages not all-visible; its own does not.
        "vacuum freeze t",
        "checkpoint",
    ]);
    let file = c.file("select pg_relation_filepath('t')");
    let on5 = c
        .psql(&["select string_agg(id::text, ',') from t where (ctid::text::point)[0] = 5"])
        .trim()
        .to_owned();
    let rel = c
        .psql(&["select pg_relation_filenode('t')"])
        .trim()
        .to_owned();
    c.stop();
    let older = c.root.join("older");
    copy_dir(&c.data, &older);
    c.restart();
    let from = c.psql(&["select pg_current_wal_lsn()"]).trim().to_owned();
    c.psql(&[
        "update t set n = -n where (ctid::text::point)[0] = 5 and id % 2 = 0",
        "delete from t where (ctid::text::point)[0] = 5 and id % 5 = 0",
        "update t set v = v || 'x' where (ctid::text::point)[0] = 9",
        "vacuum t",
        "update t set n = n + 1 where (ctid::text::point)[0] = 5 and id % 7 = 0",
        "truncate other",
        "insert into other select generate_series(1, 500)",
        "drop table gone",
        "create index t_n on t (n)",
        "insert into u select generate_series(2001, 3000)",
        "delete from u where id % 3 = 0",
        "vacuum",
    ]);
    let to = c
        .psql(&["select pg_current_wal_insert_lsn()"])
        .trim()
        .to_owned();
    // The rows of the older block 5 whose live version the server now keeps on another page:
    // `rows` of the damaged copy prints each twice.
    let moved: Vec<u64> = c
        .psql(&[&format!(
            "select id from t where id in ({on5}) and (ctid::text::point)[0] <> 5 order by id"
        )])
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    assert!(!moved.is_empty(), "no row of block 5 moved to another page");
    let newest = server_newest(&c, version, &rel, 5, &from, &to);
    c.stop();
    let relpath = file.strip_prefix(&c.data).unwrap().to_path_buf();

    // The undamaged cluster after that workload: no page is older than its WAL.
    let clean = json(&pgpage(&["report", "--json", c.data.to_str().unwrap()]));
    assert_eq!(blocks_of(&clean), [], "{clean:#}");
    assert!(
        clean["verdict"]
            .as_str()
            .unwrap()
            .starts_with("no damage found"),
        "{clean:#}"
    );

    // Block 5 and the untouched block 20 from the older copy.
    let damaged = c.root.join("damaged");
    copy_dir(&c.data, &damaged);
    let dfile = damaged.join(&relpath);
    let old5 = page(&older.join(&relpath), 5);
    assert!(
        old5 != page(&dfile, 5),
        "block 5 changed since the older copy"
    );
    // A block the workload left alone: its older copy is the same page.
    let blocks = fs::metadata(older.join(&relpath)).unwrap().len() as usize / BLCKSZ;
    let untouched = (0..blocks)
        .filter(|&b| b != 5)
        .find(|&b| page(&older.join(&relpath), b) == page(&dfile, b))
        .unwrap_or_else(|| {
            let diff = pgpage(&[
                "diff",
                older.join(&relpath).to_str().unwrap(),
                dfile.to_str().unwrap(),
            ]);
            panic!(
                "no block of t untouched since the older copy: {}",
                String::from_utf8_lossy(&diff.stdout)
            )
        });
    write_block(&dfile, 5, &old5);
    write_block(&dfile, untouched, &page(&older.join(&relpath), untouched));
    let verify = pgpage(&["verify", damaged.to_str().unwrap()]);
    assert_eq!(verify.status.code(), Some(0), "the older page verifies");

    let out = pgpage(&["report", "--json", damaged.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let report = json(&out);
    assert_eq!(
        blocks_of(&report),
        [(String::from("public.t"), 5, String::from("stale"))],
        "{report:#}"
    );
    let b = &report["relations"][0]["blocks"][0];
    assert_eq!(b["severity"], "error");
    assert_eq!(b["rows"]["known_from"], "unknown", "{b:#}");
    let evidence = b["evidence"][0].as_str().unwrap();
    let pd_lsn = u64::from_le_bytes(old5[0..8].try_into().unwrap());
    let pd_lsn = (pd_lsn & 0xffff_ffff) << 32 | pd_lsn >> 32;
    assert!(
        evidence.contains(&format!(
            "the page's pd_lsn is {}, but the WAL changed block 5 after it",
            lsn_text(version, pd_lsn)
        )),
        "{evidence}"
    );
    if let Some((start, end)) = newest {
        let said = if end == u64::MAX {
            format!("last by the record at {}", lsn_text(version, start))
        } else {
            format!(
                "last by the record at {}, which ends at {}",
                lsn_text(version, start),
                lsn_text(version, end)
            )
        };
        let wal = pgpage(&[
            "wal",
            "--relation",
            &format!("5/{rel}"),
            "--block",
            "5",
            damaged.join("pg_wal").to_str().unwrap(),
        ]);
        assert!(
            evidence.contains(&said),
            "{said} not in: {evidence}\n{}",
            String::from_utf8_lossy(&wal.stdout)
        );
    }
    assert!(
        report["verdict"]
            .as_str()
            .unwrap()
            .contains("1 page older than the WAL shows"),
        "{report:#}"
    );

    // The same copy with its WAL moved out of pg_wal into an archive, as after a clean stop
    // that recycled the segments archived: without the archive the page verifies and holds
    // older versions of rows that live elsewhere, named as such, with no REINDEX (the unique
    // index would refuse the duplicates); with it (`--wal`) the page is stale again.
    let nowal = c.root.join("nowal");
    copy_dir(&damaged, &nowal);
    let archive = c.root.join("archive");
    fs::create_dir_all(&archive).unwrap();
    for e in fs::read_dir(nowal.join("pg_wal")).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() && e.file_name().len() == 24 {
            fs::rename(e.path(), archive.join(e.file_name())).unwrap();
        }
    }
    let bare = json(&pgpage(&["report", "--json", nowal.to_str().unwrap()]));
    let b5 = bare["relations"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["blocks"].as_array().unwrap())
        .find(|b| b["block"] == 5)
        .unwrap_or_else(|| panic!("block 5 named without WAL: {bare:#}"));
    assert_eq!(b5["damage"], "older", "{b5:#}");
    assert!(
        bare["duplicate_keys"][0]["index"] == "public.t_pkey",
        "the older versions beside the live ones: {bare:#}"
    );
    assert_eq!(b5["route"], "key_older", "{b5:#}");
    let steps = steps_of(&bare).join("\n");
    assert!(
        !steps.contains("REINDEX INDEX public.t_pkey") && steps.contains("Do not REINDEX"),
        "{steps}"
    );
    // Each older version it names is a row the server keeps live on another page.
    for m in b5["key_mismatches"].as_array().unwrap() {
        if m["index"] == "public.t_pkey" && !m["twins"].as_array().unwrap().is_empty() {
            let id: u64 = m["keys"][0].as_str().unwrap().parse().unwrap();
            assert!(moved.contains(&id), "{id} is not among {moved:?}: {m:#}");
        }
    }
    let archived = json(&pgpage(&[
        "report",
        "--json",
        "--wal",
        archive.to_str().unwrap(),
        nowal.to_str().unwrap(),
    ]));
    assert_eq!(
        blocks_of(&archived),
        [(String::from("public.t"), 5, String::from("stale"))],
        "{archived:#}"
    );

    // With the older copy as the backup: its page is this one, and no way to take.
    let from = json(&pgpage(&[
        "report",
        "--json",
        "--from",
        older.to_str().unwrap(),
        damaged.to_str().unwrap(),
    ]));
    let fb = &from["relations"][0]["blocks"][0];
    assert_eq!(fb["damage"], "stale", "{from:#}");
    assert_eq!(fb["route"], "recover", "{fb:#}");
    assert!(
        fb["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e.as_str().unwrap().contains("is this page byte for byte")),
        "{fb:#}"
    );
    let markdown = pgpage(&["report", "--markdown", damaged.to_str().unwrap()]);
    let markdown = String::from_utf8_lossy(&markdown.stdout);
    assert!(markdown.contains("stale"), "{markdown}");

    // The server reads the older page without a word, and returns other rows.
    let live_rows = rows_of(&c, &c.data);
    let work = c.root.join("work");
    copy_dir(&damaged, &work);
    assert_ne!(
        rows_of(&c, &work),
        live_rows,
        "the older page's rows differ"
    );
    // COPY's lines by id (psql's own lines, `SET`, are not rows).
    let sorted = |text: &str| {
        let mut lines: Vec<(i64, String)> = text
            .lines()
            .filter_map(|l| Some((l.split('\t').next()?.parse().ok()?, l.to_owned())))
            .collect();
        lines.sort();
        lines
    };
    let server = |filter: &str| {
        sorted(&run_copy(
            &c,
            &work,
            &[
                "set enable_indexscan = off",
                "set enable_bitmapscan = off",
                &format!("copy (select * from t where {filter}) to stdout"),
            ],
        ))
    };
    let moved_list = moved
        .iter()
        .map(|k| k.to_string())
        .collect::<Vec<_>>()
        .join(",");
    // `rows` leaves out the older page's rows and says why: the rest are the server's.
    let d = damaged.to_str().unwrap();
    let plain = pgpage(&[
        "rows",
        "--format",
        "text",
        "--database",
        "postgres",
        d,
        "public.t",
    ]);
    let stderr = String::from_utf8_lossy(&plain.stderr);
    assert_eq!(plain.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("block 5: older than the WAL shows"),
        "{stderr}"
    );
    assert!(!stderr.contains(" is printed at ("), "{stderr}");
    assert_eq!(
        sorted(&String::from_utf8_lossy(&plain.stdout)),
        server("(ctid::text::point)[0] <> 5"),
        "{stderr}"
    );
    // With --include-damaged its rows are printed too, but not the older versions of rows
    // live elsewhere: each is named, and the rest are the server's rows.
    let all = pgpage(&[
        "rows",
        "--format",
        "text",
        "--include-damaged",
        "--database",
        "postgres",
        d,
        "public.t",
    ]);
    let stderr = String::from_utf8_lossy(&all.stderr);
    let mut older: Vec<u64> = stderr
        .lines()
        .filter(|l| l.contains(" on a page that verifies"))
        .filter_map(|l| {
            l.split("key (id)=(")
                .nth(1)?
                .split(')')
                .next()?
                .parse()
                .ok()
        })
        .collect();
    older.sort_unstable();
    assert_eq!(older, moved, "{stderr}");
    assert!(!stderr.contains(" is printed at ("), "{stderr}");
    let ours = sorted(&String::from_utf8_lossy(&all.stdout));
    let theirs = server(&format!(
        "not ((ctid::text::point)[0] = 5 and id in ({moved_list}))"
    ));
    let only_ours: Vec<_> = ours.iter().filter(|l| !theirs.contains(l)).collect();
    let only_theirs: Vec<_> = theirs.iter().filter(|l| !ours.contains(l)).collect();
    assert!(
        only_ours.is_empty() && only_theirs.is_empty(),
        "pgpage only: {only_ours:?}; the server only: {only_theirs:?}"
    );

    // The report's steps, in order: the recover step's file in place gives the live rows.
    let steps = steps_of(&report);
    assert!(
        steps
            .iter()
            .any(|s| s.contains("pgpage recover --block 5 ")),
        "{steps:#?}"
    );
    let made = run_steps(&steps, &c.root, "recover");
    let last = made.values().last().expect("a step writes the page");
    // A copy the server has not run on with the older page (its WAL would hold that).
    let fixed = c.root.join("fixed");
    copy_dir(&damaged, &fixed);
    fs::copy(last, fixed.join(&relpath)).unwrap();
    assert_eq!(rows_of(&c, &fixed), live_rows);
    let again = json(&pgpage(&["report", "--json", fixed.to_str().unwrap()]));
    assert_eq!(blocks_of(&again), [], "{again:#}");
}

crate::each_version!(lost_write);
