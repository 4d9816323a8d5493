//! Record names (`pgpage::wal::record_type`, `fpi --block`'s records after an image) on WAL
//! that servers of 13 to 19 wrote while touching every built-in resource manager they can
//! be made to log from SQL. The oracle per version:
//! - 15 to 18: pg_walinspect's `pg_get_wal_records_info(start, end)`: the same records (LSN)
//!   with the same `resource_manager` and `record_type`.
//! - 15 (Debian's) and 18 (the PyPI build's): pg_waldump's `rmgr:` and `desc:` of each record.
//! - 13 and 14, whose builds have neither: every record is named (no `UNKNOWN`), and the names
//!   that only those releases have (Heap2's CLEAN in 13, Database's CREATE) are the ones read.
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use pgpage::wal::{record_type, rmgr_name, segment_plan, WalOptions, WalReader, WalRecord};

use crate::common::{json, ok, pg18_tools, pgpage, Cluster};

fn parse_lsn(s: &str) -> u64 {
    let (hi, lo) = s.trim().split_once('/').unwrap();
    (u64::from_str_radix(hi, 16).unwrap() << 32) | u64::from_str_radix(lo, 16).unwrap()
}

/// (resource manager, record type) per record LSN.
type Names = BTreeMap<u64, (String, String)>;

struct Wal {
    cluster: Cluster,
    start: u64,
    end: u64,
    /// The hash index's relfilenode and database: `fpi --block 0` follows its metapage.
    hash_node: u32,
    db: u32,
}

/// A server of `version` that logged records of every resource manager it can from SQL.
fn make_wal(version: u32) -> Wal {
    let mut cluster = Cluster::start(version);
    cluster.psql(&[
        "alter system set wal_keep_size = '1GB'",
        "alter system set wal_level = logical",
        "alter system set max_prepared_transactions = 2",
        "alter system set track_commit_timestamp = on",
    ]);
    cluster.stop();
    cluster.restart();
    let ts = cluster.root.join("ts");
    std::fs::create_dir(&ts).unwrap();
    if crate::common::is_root() {
        ok(
            Command::new("chown")
                .args(["postgres", ts.to_str().unwrap()])
                .output()
                .unwrap(),
            "chown",
        );
    }
    let bloom = cluster
        .psql(&["select count(*) from pg_available_extensions where name = 'bloom'"])
        .trim()
        == "1";
    let start = parse_lsn(&cluster.psql(&["select pg_current_wal_lsn()"]));
    let create_db = if version >= 15 {
        "create database d2 strategy file_copy"
    } else {
        "create database d2"
    };
    cluster.psql(&[
        "create table h(a int primary key, b text, d tsvector, e point, r int4range)",
        "insert into h select g, md5(g::text), to_tsvector(md5(g::text)), point(g % 97, g % 89), int4range(g, g + 10) from generate_series(1, 3000) g",
        "create index h_hash on h using hash (a)",
        "create index h_gin on h using gin (d)",
        "create index h_gist on h using gist (r)",
        "create index h_spg on h using spgist (e)",
        "create index h_brin on h using brin (a) with (pages_per_range = 2)",
        // Logged with the pending list (fastupdate): INSERT_LISTPAGE, then merged by VACUUM.
        "insert into h select g, md5(g::text), to_tsvector(md5(g::text)), point(g % 97, g % 89), int4range(g, g + 10) from generate_series(3001, 4000) g",
        "update h set b = b || 'u' where a % 5 = 0",
        "delete from h where a % 3 = 0",
        "vacuum h",
        "vacuum freeze h",
        "create sequence s",
        "select nextval('s') from generate_series(1, 100)",
        // A lock and an update of the same row by a subtransaction make a MultiXact.
        "begin; select * from h where a = 1 for share; savepoint x; update h set b = 'm' where a = 1; commit",
        "begin; insert into h(a) values (100000); rollback",
        "begin; insert into h(a) values (100001); prepare transaction 'p1'",
        "commit prepared 'p1'",
        "begin; insert into h(a) values (100002); prepare transaction 'p2'",
        "rollback prepared 'p2'",
        "alter table h add column z int",
        "vacuum full pg_class",
        "create table gone(a int)",
        "insert into gone select generate_series(1, 10000)",
        "delete from gone",
        "vacuum gone",
        "truncate gone",
        "drop table gone",
        &format!("create tablespace ts location '{}'", ts.display()),
        "create table in_ts(a int) tablespace ts",
        "drop table in_ts",
        "drop tablespace ts",
        create_db,
        "drop database d2",
        "select pg_logical_emit_message(true, 'pgpage', 'x')",
        "select pg_replication_origin_create('o')",
        "select pg_replication_origin_advance('o', '0/1000')",
        "select pg_replication_origin_drop('o')",
        "select pg_create_restore_point('pgpage')",
        "checkpoint",
        // Hint bits after the checkpoint: FPI_FOR_HINT (data checksums are on).
        "select count(*) from h",
        "select pg_switch_wal()",
    ]);
    if bloom {
        cluster.psql(&[
            "create extension bloom",
            "create index h_bloom on h using bloom (a)",
            "insert into h(a) select generate_series(200000, 200100)",
        ]);
    }
    let hash_node: u32 = cluster
        .psql(&["select pg_relation_filenode('h_hash')"])
        .trim()
        .parse()
        .unwrap();
    // The hash metapage is touched again by every insert after its last image.
    cluster.psql(&["insert into h(a) select generate_series(300000, 300010)"]);
    let db: u32 = cluster
        .psql(&["select oid from pg_database where datname = 'postgres'"])
        .trim()
        .parse()
        .unwrap();
    let end = parse_lsn(&cluster.psql(&["select pg_current_wal_lsn()"]));
    Wal {
        cluster,
        start,
        end,
        hash_node,
        db,
    }
}

fn segments(wal: &Path) -> Vec<(String, PathBuf)> {
    let mut v: Vec<(String, PathBuf)> = std::fs::read_dir(wal)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .filter(|(n, _)| n.len() == 24)
        .collect();
    v.sort();
    v
}

/// pgpage's names of the records in [start, end), and the version it read.
fn ours(w: &Wal) -> (Names, u32) {
    let segs = segments(&w.cluster.data.join("pg_wal"));
    let names: Vec<&str> = segs.iter().map(|(n, _)| n.as_str()).collect();
    let mut reader = WalReader::new(WalOptions::default());
    let mut seen: Vec<(u64, u8, u8)> = Vec::new();
    for i in segment_plan(&names) {
        let bytes = std::fs::read(&segs[i].1).unwrap();
        reader.push_segment(Some(&segs[i].0), &bytes, &mut |r: &WalRecord<'_>| {
            seen.push((r.lsn, r.rmid, r.info));
        });
    }
    reader.finish();
    let version = reader.summary().version.unwrap();
    let names = seen
        .into_iter()
        .filter(|(lsn, _, _)| (w.start..w.end).contains(lsn))
        .map(|(lsn, rmid, info)| (lsn, (rmgr_name(rmid), record_type(version, rmid, info))))
        .collect();
    (names, version)
}

fn walinspect(w: &Wal) -> Names {
    let rows = w.cluster.psql(&[
        "create extension if not exists pg_walinspect",
        &format!(
            "select start_lsn, resource_manager, record_type from pg_get_wal_records_info('{}', '{}')",
            lsn_arg(w.start),
            lsn_arg(w.end)
        ),
    ]);
    rows.lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('|').collect();
            (parse_lsn(f[0]), (f[1].to_owned(), f[2].to_owned()))
        })
        .collect()
}

/// pg_waldump's `rmgr: NAME ... lsn: X/Y, ... desc: TYPE ...` lines, in [start, end).
fn waldump(bin: &Path, w: &Wal) -> Names {
    let wal = w.cluster.data.join("pg_wal");
    let segs = segments(&wal);
    // The first segment of the window as pg_waldump's STARTSEG, the directory's last as ENDSEG:
    // it reads on to the WAL's end.
    let first = segs
        .iter()
        .find(|(n, _)| {
            let seg = u64::from_str_radix(&n[16..24], 16).unwrap()
                + (u64::from_str_radix(&n[8..16], 16).unwrap() << 8);
            seg == w.start >> 24
        })
        .unwrap();
    let out = Command::new(bin.join("pg_waldump"))
        .args([
            "-p",
            wal.to_str().unwrap(),
            &first.0,
            &segs.last().unwrap().0,
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let mut names = Names::new();
    for line in text.lines() {
        let rmgr = line
            .strip_prefix("rmgr: ")
            .and_then(|r| r.split_whitespace().next())
            .unwrap_or_else(|| panic!("pg_waldump line {line}"));
        let lsn = parse_lsn(
            line.split("lsn: ")
                .nth(1)
                .unwrap()
                .split(',')
                .next()
                .unwrap(),
        );
        let desc = line.split("desc: ").nth(1).unwrap();
        // rm_identify's name, or "UNKNOWN (%x)", then the record's description.
        let kind = if desc.starts_with("UNKNOWN (") {
            desc[..desc.find(')').unwrap() + 1].to_owned()
        } else {
            desc.split(' ').next().unwrap().to_owned()
        };
        if (w.start..w.end).contains(&lsn) {
            names.insert(lsn, (rmgr.to_owned(), kind));
        }
    }
    assert!(
        !names.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    names
}

fn lsn_arg(lsn: u64) -> String {
    format!("{:X}/{:X}", lsn >> 32, lsn & 0xFFFF_FFFF)
}

/// The two lists name the same records alike; the first difference is shown.
fn same(what: &str, ours: &Names, theirs: &Names) {
    let diff: Vec<String> = ours
        .keys()
        .chain(theirs.keys())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .filter(|k| ours.get(k) != theirs.get(k))
        .take(5)
        .map(|k| {
            format!(
                "{:X}: ours {:?}, {what} {:?}",
                k,
                ours.get(k),
                theirs.get(k)
            )
        })
        .collect();
    assert!(
        diff.is_empty(),
        "names differ from {what}'s ({} records of ours from {:X?} to {:X?}, {} of theirs from {:X?} to {:X?}): {diff:#?}",
        ours.len(),
        ours.keys().next(),
        ours.keys().last(),
        theirs.len(),
        theirs.keys().next(),
        theirs.keys().last()
    );
}

/// The resource managers the workload must have made log something.
const EXPECTED: [&str; 19] = [
    "XLOG",
    "Transaction",
    "Storage",
    "Database",
    "Tablespace",
    "MultiXact",
    "RelMap",
    "Standby",
    "Heap2",
    "Heap",
    "Btree",
    "Hash",
    "Gin",
    "Gist",
    "Sequence",
    "SPGist",
    "BRIN",
    "ReplicationOrigin",
    "LogicalMessage",
];

/// `fpi --block 0` on the hash index: its records after the newest image carry the names.
fn check_fpi_block(w: &Wal, expected: &Names) {
    let wal = w.cluster.data.join("pg_wal");
    let relation = format!("{}/{}", w.db, w.hash_node);
    let out = pgpage(&[
        "fpi",
        "--json",
        "--relation",
        &relation,
        "--block",
        "0",
        wal.to_str().unwrap(),
    ]);
    let report = json(&out);
    let blocks = report["blocks"].as_array().unwrap();
    let main = blocks.iter().find(|b| b["fork"] == "main").unwrap();
    let after = main["records_after"].as_array().unwrap();
    assert!(!after.is_empty(), "{main}");
    for t in after {
        let lsn = parse_lsn(t["lsn"].as_str().unwrap());
        let (rmgr, kind) = expected
            .get(&lsn)
            .unwrap_or_else(|| panic!("no record at {lsn:X}"));
        assert_eq!(t["rmgr"], rmgr.as_str());
        assert_eq!(t["record_type"], kind.as_str(), "at {lsn:X}");
    }
}

fn check_version(version: u32) {
    let mut w = make_wal(version);
    let (mine, read) = ours(&w);
    assert_eq!(read, version);
    let rmgrs: BTreeSet<&str> = mine.values().map(|(r, _)| r.as_str()).collect();
    for r in EXPECTED {
        assert!(rmgrs.contains(r), "no {r} record in {rmgrs:?}");
    }
    let kinds: BTreeSet<String> = mine.values().map(|(r, k)| format!("{r}/{k}")).collect();
    if version >= 15 {
        same("pg_walinspect", &mine, &walinspect(&w));
    } else {
        let unknown: Vec<&String> = kinds.iter().filter(|k| k.contains("UNKNOWN")).collect();
        assert!(unknown.is_empty(), "{unknown:?}");
        assert!(kinds.contains("Database/CREATE"), "{kinds:?}");
        let prune = if version == 13 {
            "Heap2/CLEAN"
        } else {
            "Heap2/PRUNE"
        };
        assert!(kinds.contains(prune), "{kinds:?}");
    }
    w.cluster.stop();
    if version == 15 {
        same(
            "pg_waldump 15",
            &mine,
            &waldump(Path::new(&crate::common::bin_dir(15)), &w),
        );
    }
    if version == 18 {
        let bin =
            pg18_tools().expect("pg_waldump 18 (scripts/bootstrap.sh installs the PyPI build)");
        same("pg_waldump 18", &mine, &waldump(&bin, &w));
    }
    if version == 19 {
        same(
            "pg_waldump 19",
            &mine,
            &waldump(Path::new(&crate::common::bin_dir(19)), &w),
        );
    }
    check_fpi_block(&w, &mine);
    eprintln!(
        "PostgreSQL {version}: {} records, {} record types named alike",
        mine.len(),
        kinds.len()
    );
}

each_version!(check_version);
