//! `pgpage wal` against the servers' own WAL readers, on WAL that a workload of every record
//! kind pgpage describes wrote (checkpoints, B-tree splits, deduplication, vacuum and page
//! deletion, a sequence, CREATE and TRUNCATE, a restore point, commits and aborts with
//! subtransactions, a MultiXact, two-phase commit):
//! - 15 (Debian's), 18 (the PyPI build's) and 19: pg_waldump's lines (run with TZ=UTC, the
//!   zone pgpage prints timestamps in). Every record's line equals pg_waldump's up to `desc:`
//!   and in its block references; the whole line, byte for byte, for every record of the
//!   resource managers pgpage describes.
//! - 16 and 17, whose builds have no pg_waldump: pg_walinspect's `description` (timestamps
//!   there are the server's timestamptz output, turned into pg_waldump's form to compare),
//!   record type and lengths, record by record.
//! - 13 and 14, whose builds have neither: facts the server gives otherwise (the restore
//!   point's name, the sequence's relfilenode, the last checkpoint's redo point as
//!   pg_control holds it), and every record of those resource managers described.
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use crate::common::{bin_dir, pg18_tools, pgpage, Cluster};

/// The resource managers whose descriptions pgpage decodes.
const DESCRIBED: [&str; 13] = [
    "Heap",
    "Heap2",
    "XLOG",
    "XLOG2",
    "Transaction",
    "Storage",
    "Standby",
    "CLOG",
    "MultiXact",
    "Sequence",
    "RelMap",
    "Database",
    "Btree",
];

/// Records the workload must have made pgpage describe, on every version.
const EXPECTED: [&str; 26] = [
    "XLOG/CHECKPOINT_ONLINE",
    "XLOG/CHECKPOINT_SHUTDOWN",
    "XLOG/RESTORE_POINT",
    "XLOG/NEXTOID",
    "XLOG/SWITCH",
    "Transaction/COMMIT",
    "Transaction/ABORT",
    "Transaction/PREPARE",
    "Transaction/COMMIT_PREPARED",
    "Storage/CREATE",
    "Storage/TRUNCATE",
    "Standby/RUNNING_XACTS",
    "Sequence/LOG",
    "MultiXact/CREATE_ID",
    "Btree/SPLIT_R",
    "Btree/DEDUP",
    "Btree/VACUUM",
    "Btree/MARK_PAGE_HALFDEAD",
    "Btree/UNLINK_PAGE",
    "Btree/NEWROOT",
    "Btree/REUSE_PAGE",
    "RelMap/UPDATE",
    "Database/DROP",
    "Transaction/ASSIGNMENT",
    "XLOG/BACKUP_END",
    "Standby/LOCK",
];

/// And where the release writes them.
fn expected_of(version: u32) -> Vec<&'static str> {
    let mut kinds = EXPECTED.to_vec();
    if version >= 14 {
        kinds.push("Transaction/INVALIDATION");
    }
    if version >= 15 {
        kinds.extend(["Database/CREATE_WAL_LOG", "Database/CREATE_FILE_COPY"]);
    } else {
        kinds.push("Database/CREATE");
    }
    if version >= 17 {
        kinds.push("XLOG/CHECKPOINT_REDO");
    }
    if version >= 19 {
        kinds.push("XLOG2/CHECKSUMS");
    }
    kinds
}

fn lsn_arg(lsn: u64) -> String {
    format!("{:X}/{:X}", lsn >> 32, lsn & 0xFFFF_FFFF)
}

fn parse_lsn(s: &str) -> u64 {
    let (hi, lo) = s.trim().split_once('/').unwrap();
    (u64::from_str_radix(hi, 16).unwrap() << 32) | u64::from_str_radix(lo, 16).unwrap()
}

struct Wal {
    cluster: Cluster,
    start: u64,
    end: u64,
    seq_node: String,
    /// The B-tree t_a's relfilenode.
    index_node: String,
    db: String,
    /// pg_control_checkpoint()'s checkpoint_lsn and redo_lsn after the workload.
    checkpoint: (String, String),
}

fn workload(version: u32) -> Wal {
    let mut cluster = Cluster::start(version);
    cluster.psql(&[
        "alter system set wal_keep_size = '1GB'",
        "alter system set max_prepared_transactions = 2",
        // Logical: commands log their invalidations (Transaction/INVALIDATION, 14 and later).
        "alter system set wal_level = logical",
    ]);
    cluster.stop();
    cluster.restart();
    let start = parse_lsn(&cluster.psql(&["select pg_current_wal_lsn()"]));
    cluster.psql(&[
        "create table t(a int, b text)",
        "create index t_a on t(a)",
        // Few distinct keys: deduplication.
        "create index t_b on t(b)",
        "insert into t select g, 'x' || (g % 10) from generate_series(1, 20000) g",
        "checkpoint",
        "delete from t where a % 3 = 0",
        // Whole leaf pages empty: VACUUM deletes them (MARK_PAGE_HALFDEAD, UNLINK_PAGE).
        "delete from t where a > 15000",
        "vacuum t",
        // Pages deleted, then recycled once no snapshot can see them: REUSE_PAGE.
        "create table r(a int primary key)",
        "insert into r select generate_series(1, 20000)",
        "delete from r where a > 2000",
        "vacuum r",
        "select txid_current()",
        "vacuum r",
        "insert into r select generate_series(20001, 30000)",
        "vacuum full pg_class",
        "create sequence s",
        "select nextval('s') from generate_series(1, 40)",
        "create table tr(a int)",
        "insert into tr values (1)",
        "truncate tr",
        "select pg_create_restore_point('pgpage rp')",
        "begin; insert into t values (1, 'y'); savepoint a; insert into t values (2, 'z'); savepoint b; insert into t values (3, 'w'); commit",
        "begin; insert into t values (4, 'y'); savepoint a; insert into t values (5, 'z'); rollback",
        "begin; select * from t where a = 1 for share; savepoint x; update t set b = 'm' where a = 1; commit",
        "begin; insert into t values (6, 'p'); savepoint a; insert into t values (7, 'q'); prepare transaction 'p1'",
        "commit prepared 'p1'",
        // More subtransactions than a backend caches: ASSIGNMENT.
        "do $$ begin for i in 1..70 loop begin insert into tr values (i); exception when others then null; end; end loop; end $$",
    ]);
    let (create_db, backup_start, backup_stop) = if version >= 15 {
        (
            "create database d2 strategy file_copy",
            "select pg_backup_start('pgpage')",
            "select lsn from pg_backup_stop(false)",
        )
    } else {
        (
            "create database d2",
            "select pg_start_backup('pgpage', false, false)",
            "select lsn from pg_stop_backup(false)",
        )
    };
    cluster.psql(&[create_db, "drop database d2", backup_start, backup_stop]);
    if version >= 15 {
        cluster.psql(&["create database d3", "drop database d3"]);
    }
    if version >= 19 {
        // Turning checksums off online logs XLOG2 CHECKSUMS, inprogress-off then off.
        cluster.psql(&["select pg_disable_data_checksums()"]);
        let off = (0..100).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(100));
            cluster.psql(&["show data_checksums"]).trim() == "off"
        });
        assert!(off, "data checksums still on");
    }
    cluster.psql(&["checkpoint", "select pg_switch_wal()"]);
    let seq_node = cluster
        .psql(&["select pg_relation_filenode('s')"])
        .trim()
        .to_owned();
    let index_node = cluster
        .psql(&["select pg_relation_filenode('t_a')"])
        .trim()
        .to_owned();
    let db = cluster
        .psql(&["select oid from pg_database where datname = 'postgres'"])
        .trim()
        .to_owned();
    let control = cluster.psql(&["select checkpoint_lsn, redo_lsn from pg_control_checkpoint()"]);
    let (lsn, redo) = control.trim().split_once('|').unwrap();
    let checkpoint = (lsn.to_owned(), redo.to_owned());
    let end = parse_lsn(&cluster.psql(&["select pg_current_wal_lsn()"]));
    Wal {
        cluster,
        start,
        end,
        seq_node,
        index_node,
        db,
        checkpoint,
    }
}

/// pgpage's lines, by LSN.
fn our_lines(wal: &Path, options: &[&str]) -> BTreeMap<u64, String> {
    let mut args = vec!["wal"];
    args.extend(options);
    args.push(wal.to_str().unwrap());
    let out = pgpage(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    lines_by_lsn(&String::from_utf8_lossy(&out.stdout))
}

fn lines_by_lsn(text: &str) -> BTreeMap<u64, String> {
    text.lines()
        .map(|l| {
            let lsn = l.split("lsn: ").nth(1).unwrap().split(',').next().unwrap();
            (parse_lsn(lsn), l.to_owned())
        })
        .collect()
}

/// pg_waldump from the directory's first segment to its last, with TZ=UTC.
fn waldump_lines(bin: &Path, wal: &Path, options: &[&str]) -> BTreeMap<u64, String> {
    let mut segs: Vec<String> = std::fs::read_dir(wal)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.len() == 24)
        .collect();
    segs.sort();
    let out = Command::new(bin.join("pg_waldump"))
        .env("TZ", "UTC")
        .args(options)
        .args(["-p", wal.to_str().unwrap(), &segs[0], segs.last().unwrap()])
        .output()
        .unwrap();
    let lines = lines_by_lsn(&String::from_utf8_lossy(&out.stdout));
    assert!(
        !lines.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    lines
}

fn rmgr_of(line: &str) -> &str {
    line.strip_prefix("rmgr: ")
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
}

/// The record type after `desc: `.
fn type_of(line: &str) -> &str {
    line.split("desc: ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
}

/// Header (up to `desc: `), description, block references.
fn parts(line: &str) -> (&str, &str, &str) {
    let (head, rest) = line.split_at(line.find("desc: ").unwrap());
    match rest.find(", blkref #") {
        Some(at) => (head, &rest[..at], &rest[at..]),
        None => (head, rest, ""),
    }
}

/// Every record's header and block references equal, every described record's line equal.
/// Returns the number of lines compared whole, by `rmgr/type`.
fn compare_with_waldump(
    what: &str,
    ours: &BTreeMap<u64, String>,
    theirs: &BTreeMap<u64, String>,
) -> BTreeMap<String, usize> {
    let our_lsns: BTreeSet<&u64> = ours.keys().collect();
    let their_lsns: BTreeSet<&u64> = theirs.keys().collect();
    assert_eq!(
        our_lsns
            .symmetric_difference(&their_lsns)
            .take(5)
            .collect::<Vec<_>>(),
        Vec::<&&u64>::new(),
        "records read differ from {what}'s ({} ours, {} theirs)",
        ours.len(),
        theirs.len()
    );
    let mut whole = BTreeMap::new();
    for (lsn, mine) in ours {
        let theirs = &theirs[lsn];
        let (h1, _, b1) = parts(mine);
        let (h2, _, b2) = parts(theirs);
        assert_eq!(
            (h1, b1),
            (h2, b2),
            "at {lsn:X}\nours:   {mine}\n{what}: {theirs}"
        );
        if DESCRIBED.contains(&rmgr_of(mine)) {
            assert_eq!(mine, theirs, "at {lsn:X}");
            *whole
                .entry(format!("{}/{}", rmgr_of(mine), type_of(mine)))
                .or_insert(0) += 1;
        } else {
            assert!(
                mine.contains("(pgpage does not decode this record's description)"),
                "{mine}"
            );
        }
    }
    whole
}

/// The server's timestamptz output under TimeZone UTC (`2026-11-29 10:29:19.5798+00`:
/// trailing zeros of the fraction dropped) in pg_waldump's form.
fn waldump_timestamps(desc: &str) -> String {
    let mut out = String::new();
    let mut rest = desc;
    while let Some(at) = rest.find("+00") {
        let (before, after) = rest.split_at(at);
        // "YYYY-MM-DD HH:MM:SS" and maybe ".ffff" before "+00".
        let stamp_start = before
            .rfind(|c: char| !(c.is_ascii_digit() || " -:.".contains(c)))
            .map_or(0, |i| i + 1);
        let stamp = before[stamp_start..].trim_start();
        let lead = &before[..before.len() - stamp.len()];
        let (secs, frac) = stamp.split_once('.').unwrap_or((stamp, ""));
        out.push_str(lead);
        out.push_str(&format!("{secs}.{frac:0<6} UTC"));
        rest = &after[3..];
    }
    out.push_str(rest);
    out
}

/// On a server stopped once after the workload (so that the window holds its shutdown
/// checkpoint) and started again; stops it.
fn compare_with_walinspect(w: &mut Wal) -> BTreeMap<String, usize> {
    w.cluster.stop();
    w.cluster.restart();
    w.end = parse_lsn(&w.cluster.psql(&["select pg_current_wal_lsn()"]));
    let rows = w.cluster.psql(&[
        "set timezone = 'UTC'",
        "create extension if not exists pg_walinspect",
        &format!(
            "select start_lsn, resource_manager, record_type, record_length, fpi_length, description from pg_get_wal_records_info('{:X}/{:X}', '{:X}/{:X}')",
            w.start >> 32,
            w.start & 0xFFFF_FFFF,
            w.end >> 32,
            w.end & 0xFFFF_FFFF
        ),
    ]);
    let out = pgpage(&[
        "wal",
        "--json",
        w.cluster.data.join("pg_wal").to_str().unwrap(),
    ]);
    let records = json_lines(&out);
    let ours: BTreeMap<u64, &serde_json::Value> = records
        .iter()
        .map(|r| (parse_lsn(r["lsn"].as_str().unwrap()), r))
        .collect();
    let mut compared = BTreeMap::new();
    for row in rows.lines().filter(|l| !l.is_empty()) {
        let f: Vec<&str> = row.splitn(6, '|').collect();
        let lsn = parse_lsn(f[0]);
        let r = ours
            .get(&lsn)
            .unwrap_or_else(|| panic!("pgpage has no record at {lsn:X}"));
        assert_eq!(r["rmgr"], f[1], "at {lsn:X}");
        assert_eq!(r["record"], f[2], "at {lsn:X}");
        assert_eq!(
            r["len_tot"].as_u64().unwrap().to_string(),
            f[3],
            "at {lsn:X}"
        );
        let fpi = r["len_tot"].as_u64().unwrap() - r["len_rec"].as_u64().unwrap();
        assert_eq!(fpi.to_string(), f[4], "at {lsn:X}");
        if DESCRIBED.contains(&f[1]) {
            let desc = r["desc"]
                .as_str()
                .unwrap_or_else(|| panic!("no description at {lsn:X}: {r}"));
            assert_eq!(desc, waldump_timestamps(f[5]), "at {lsn:X}");
            *compared.entry(format!("{}/{}", f[1], f[2])).or_insert(0) += 1;
        }
    }
    compared
}

/// `wal --json`'s records: one JSON object a line.
fn json_lines(out: &std::process::Output) -> Vec<serde_json::Value> {
    std::str::from_utf8(&out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// What pgpage says without a server's WAL reader to compare with, held to what the server
/// says otherwise.
fn check_facts(w: &Wal) -> BTreeMap<String, usize> {
    let out = pgpage(&[
        "wal",
        "--json",
        w.cluster.data.join("pg_wal").to_str().unwrap(),
    ]);
    let records = json_lines(&out);
    let mut seen = BTreeMap::new();
    for r in &records {
        let rmgr = r["rmgr"].as_str().unwrap();
        if DESCRIBED.contains(&rmgr) {
            assert!(r["desc"].is_string(), "{r}");
            *seen
                .entry(format!("{rmgr}/{}", r["record"].as_str().unwrap()))
                .or_insert(0) += 1;
        } else {
            assert!(r["desc"].is_null(), "{r}");
        }
    }
    let with = |kind: &'static str| {
        records.iter().filter(move |r| {
            format!(
                "{}/{}",
                r["rmgr"].as_str().unwrap(),
                r["record"].as_str().unwrap()
            ) == kind
        })
    };
    assert!(with("XLOG/RESTORE_POINT").any(|r| r["desc"] == "pgpage rp"));
    let seq = format!("rel 1663/{}/{}", w.db, w.seq_node);
    assert!(
        with("Sequence/LOG").any(|r| r["desc"] == seq.as_str()),
        "{seq}"
    );
    // The workload's last checkpoint, as pg_control_checkpoint() gave it.
    let (lsn, redo) = &w.checkpoint;
    let at = records.iter().find(|r| r["lsn"] == lsn.as_str()).unwrap();
    assert_eq!(at["record"], "CHECKPOINT_ONLINE", "{at}");
    assert!(
        at["desc"]
            .as_str()
            .unwrap()
            .starts_with(&format!("redo {redo}; ")),
        "{at} / {redo}"
    );
    seen
}

fn check_version(version: u32) {
    let mut w = workload(version);
    let inspected = if (16..=17).contains(&version) {
        Some(compare_with_walinspect(&mut w))
    } else {
        w.cluster.stop();
        None
    };
    let pg_wal = w.cluster.data.join("pg_wal");
    let waldump_bin = match version {
        15 | 19 => Some(Path::new(&bin_dir(version)).to_path_buf()),
        18 => Some(
            pg18_tools().expect("pg_waldump 18 (scripts/bootstrap.sh installs the PyPI build)"),
        ),
        _ => None,
    };
    let compared = match (waldump_bin, inspected) {
        (Some(bin), _) => {
            // The filters as pg_waldump's: a relation, a block of it, a range of LSNs.
            let rel = format!("1663/{}/{}", w.db, w.index_node);
            let (start, end) = (lsn_arg(w.start), lsn_arg(w.end));
            for (ours, theirs) in [
                (
                    vec!["--relation", rel.as_str()],
                    vec!["--relation", rel.as_str()],
                ),
                (
                    vec!["--relation", rel.as_str(), "--block", "1"],
                    vec!["--relation", rel.as_str(), "--block", "1"],
                ),
                (
                    vec!["--start", start.as_str(), "--end", end.as_str()],
                    vec!["-s", start.as_str(), "-e", end.as_str()],
                ),
            ] {
                let mine = our_lines(&pg_wal, &ours);
                assert!(mine.len() > 10, "{ours:?}: {}", mine.len());
                compare_with_waldump(
                    &format!("pg_waldump {version} {theirs:?}"),
                    &mine,
                    &waldump_lines(&bin, &pg_wal, &theirs),
                );
            }
            compare_with_waldump(
                &format!("pg_waldump {version}"),
                &our_lines(&pg_wal, &[]),
                &waldump_lines(&bin, &pg_wal, &[]),
            )
        }
        (None, Some(inspected)) => inspected,
        (None, None) => BTreeMap::new(),
    };
    let facts = check_facts(&w);
    let covered = if compared.is_empty() {
        &facts
    } else {
        &compared
    };
    for kind in expected_of(version) {
        assert!(
            covered.contains_key(kind),
            "no {kind} compared: {covered:?}"
        );
    }
    eprintln!(
        "PostgreSQL {version}: {} described records compared ({}): {covered:?}",
        covered.values().sum::<usize>(),
        if compared.is_empty() {
            "server facts only"
        } else {
            "whole"
        }
    );
}

each_version!(check_version);

/// A segment of noise, and one cut short, are named with exit status 1; no segment at all
/// is exit status 2.
#[test]
fn damaged_or_missing_wal_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let seg = dir.path().join("000000010000000000000001");
    let mut noise = vec![0u8; 1 << 20];
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for b in noise.iter_mut() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    std::fs::write(&seg, &noise).unwrap();
    let out = pgpage(&["wal", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("wal_page_magic_invalid: invalid magic number"),
        "{err}"
    );

    let mut cluster = Cluster::start(18);
    cluster.psql(&["create table t as select generate_series(1, 1000) a"]);
    cluster.stop();
    let first = std::fs::read(cluster.data.join("pg_wal/000000010000000000000001")).unwrap();
    std::fs::write(&seg, &first[..100_000]).unwrap();
    let out = pgpage(&["wal", "--json", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    // The records read before the cut, one object a line; the problem on stderr.
    assert!(!json_lines(&out).is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    let problem = err
        .lines()
        .find(|l| l.starts_with("pgpage: wal_segment_truncated: "))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(problem.contains("is cut"), "{problem}");

    let empty = tempfile::tempdir().unwrap();
    let out = pgpage(&["wal", empty.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "pgpage: error: no WAL segment files found"
    );
}
