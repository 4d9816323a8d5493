//! `pgpage fpi` across a real timeline switch: a PostgreSQL 16 cluster restored from a cold
//! copy to a named restore point forks timeline 2 (PITR, recovery_target_action = promote)
//! while the original goes on writing on timeline 1 past that point: the abandoned branch.
//! Both servers' pg_wal in one directory, as an archive holds them. The oracle:
//! - pg_walinspect on the timeline-2 server (which reads its WAL along its history): the
//!   newest image of a block there is the one `fpi --block` offers, byte for byte;
//! - pg_walinspect on the timeline-1 server: the same block's image on the abandoned branch
//!   has a higher LSN, so going by LSN alone would pick it; pgpage must not.
//! - the history file's own line (split by hand) for the switch point `fpi` reports.
use std::path::Path;
use std::process::Command;

use crate::common::{bin_dir, json, ok, pg_tempdir, pgpage, psql_at, run_pg, Cluster};

const VERSION: u32 = 16;
const BLOCK: u32 = 3;

fn parse_lsn(s: &str) -> u64 {
    let (hi, lo) = s.trim().split_once('/').unwrap();
    (u64::from_str_radix(hi, 16).unwrap() << 32) | u64::from_str_radix(lo, 16).unwrap()
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// psql on the restored server's socket and port.
fn psql(root: &Path, port: &str, sql: &[&str]) -> String {
    ok(psql_at(root, port, "postgres", sql), &sql.join("; "))
}

/// The newest image of block BLOCK of `t` that pg_walinspect lists in [start, end): its LSN
/// and bytes.
fn newest_image(fpis: &str) -> (u64, Vec<u8>) {
    let last = fpis.lines().rfind(|l| !l.is_empty()).unwrap();
    let (lsn, bytes) = last.split_once('|').unwrap();
    (parse_lsn(lsn), hex(bytes))
}

fn image_query(start: &str, end: &str) -> String {
    format!(
        "select start_lsn, encode(block_fpi_data, 'hex') from pg_get_wal_block_info('{start}', '{end}', true) \
         where relfilenode = pg_relation_filenode('t') and relforknumber = 0 and relblocknumber = {BLOCK} \
         and block_fpi_data is not null order by start_lsn"
    )
}

fn copy_segments(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if name.len() == 24 || name.ends_with(".history") {
            std::fs::copy(e.path(), to.join(&name)).unwrap();
        }
    }
}

#[test]
fn postgres_16_promote_follows_the_history_and_names_the_abandoned_branch() {
    let mut p = Cluster::start(VERSION);
    p.psql(&[
        "alter system set wal_keep_size = '1GB'",
        "select pg_reload_conf()",
        "create extension pg_walinspect",
        "create table t(a int, b text) with (fillfactor = 50, autovacuum_enabled = off)",
        "insert into t select g, repeat('t', 30) from generate_series(1, 1000) g",
        "select count(*) from t",
        "checkpoint",
    ]);
    let db = p
        .psql(&["select oid from pg_database where datname = 'postgres'"])
        .trim()
        .to_owned();
    let node = p
        .psql(&["select pg_relation_filenode('t')"])
        .trim()
        .to_owned();
    // A cold copy: the base the restore starts from.
    p.stop();
    let tmp2 = pg_tempdir();
    let data2 = tmp2.path().join("data");
    ok(
        Command::new("cp")
            .args(["-a", p.data.to_str().unwrap(), data2.to_str().unwrap()])
            .output()
            .unwrap(),
        "cp -a",
    );
    p.restart();
    // Timeline 1 goes on past the restore point, far enough that its image of BLOCK has a
    // higher LSN than the one timeline 2 writes after the fork.
    p.psql(&[
        "select pg_create_restore_point('fork')",
        "insert into t select g from generate_series(1001, 1100) g",
        "select pg_switch_wal()",
        "insert into t select g from generate_series(1101, 1200) g",
        "select pg_switch_wal()",
    ]);
    let old_start = p.psql(&["select pg_current_wal_lsn()"]).trim().to_owned();
    p.psql(&[
        "checkpoint",
        &format!("update t set b = 'old branch' where ctid = '({BLOCK},1)'"),
        "select pg_switch_wal()",
    ]);
    let old_end = p.psql(&["select pg_current_wal_lsn()"]).trim().to_owned();
    let (abandoned_lsn, _) = newest_image(&p.psql(&[&image_query(&old_start, &old_end)]));

    // The restore: replay timeline 1 to the restore point, then promote to timeline 2.
    let wal1 = p.data.join("pg_wal");
    let conf = format!(
        "restore_command = 'cp {}/%f %p'\nrecovery_target_name = 'fork'\nrecovery_target_action = 'promote'\n",
        wal1.display()
    );
    let auto = data2.join("postgresql.auto.conf");
    let mut text = std::fs::read_to_string(&auto).unwrap();
    text.push_str(&conf);
    std::fs::write(&auto, text).unwrap();
    std::fs::write(data2.join("recovery.signal"), "").unwrap();
    let port2 = (p.port.parse::<u32>().unwrap() + 1).to_string();
    let log2 = tmp2.path().join("log");
    let opts = format!(
        "-k {} -p {port2} -c listen_addresses='' -c fsync=off",
        tmp2.path().display()
    );
    let bin = bin_dir(VERSION);
    let started = run_pg(
        &bin,
        "pg_ctl",
        &[
            "-D",
            data2.to_str().unwrap(),
            "-o",
            &opts,
            "-l",
            log2.to_str().unwrap(),
            "-w",
            "start",
        ],
    );
    assert!(
        started.status.success(),
        "{}",
        std::fs::read_to_string(&log2).unwrap_or_default()
    );
    let stop2 = || {
        run_pg(
            &bin,
            "pg_ctl",
            &["-D", data2.to_str().unwrap(), "-m", "fast", "-w", "stop"],
        )
    };
    // Wait for the promotion (a state, not a time).
    let mut promoted = false;
    for _ in 0..600 {
        if psql(tmp2.path(), &port2, &["select pg_is_in_recovery()"]).trim() == "f" {
            promoted = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    if !promoted {
        stop2();
        panic!(
            "not promoted: {}",
            std::fs::read_to_string(&log2).unwrap_or_default()
        );
    }
    let new_start = psql(tmp2.path(), &port2, &["select pg_current_wal_lsn()"])
        .trim()
        .to_owned();
    psql(
        tmp2.path(),
        &port2,
        &[
            "checkpoint",
            &format!("update t set b = 'new branch' where ctid = '({BLOCK},1)'"),
        ],
    );
    let new_end = psql(tmp2.path(), &port2, &["select pg_current_wal_lsn()"])
        .trim()
        .to_owned();
    let (good_lsn, good_page) = newest_image(&psql(
        tmp2.path(),
        &port2,
        &[&image_query(&new_start, &new_end)],
    ));
    assert!(
        abandoned_lsn > good_lsn,
        "the abandoned branch's image ({abandoned_lsn:X}) must be the newer by LSN for the test to hold anything ({good_lsn:X})"
    );
    ok(stop2(), "pg_ctl stop (timeline 2)");
    p.stop();

    // Both pg_wal directories in one, as an archive: timeline 1's fuller copies win.
    let tmp = tempfile::tempdir().unwrap();
    let all = tmp.path().join("wal");
    std::fs::create_dir(&all).unwrap();
    copy_segments(&data2.join("pg_wal"), &all);
    copy_segments(&wal1, &all);
    let history = std::fs::read_to_string(all.join("00000002.history")).unwrap();
    let line = history
        .lines()
        .find(|l| l.starts_with("1\t"))
        .unwrap()
        .to_owned();
    let switch = line.split('\t').nth(1).unwrap().to_owned();

    let relation = format!("{db}/{node}");
    let out_dir = tmp.path().join("out");
    let run = |dir: &Path, out: Option<&Path>| {
        let mut args = vec![
            "fpi".to_owned(),
            "--json".to_owned(),
            "--relation".to_owned(),
            relation.clone(),
            "--block".to_owned(),
            BLOCK.to_string(),
        ];
        if let Some(o) = out {
            args.extend(["--out".to_owned(), o.to_str().unwrap().to_owned()]);
        }
        args.push(dir.to_str().unwrap().to_owned());
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        pgpage(&refs)
    };
    let out = run(&all, Some(&out_dir));
    let report = json(&out);
    assert_eq!(out.status.code(), Some(0), "{report}");
    assert_eq!(report["summary"]["timeline"], 2);
    assert_eq!(report["summary"]["history"][0]["timeline"], 1);
    assert_eq!(
        parse_lsn(
            report["summary"]["history"][0]["switch_lsn"]
                .as_str()
                .unwrap()
        ),
        parse_lsn(&switch)
    );
    let block = report["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["fork"] == "main")
        .unwrap();
    assert_eq!(
        parse_lsn(block["newest_image_lsn"].as_str().unwrap()),
        good_lsn,
        "{report}"
    );
    let image = report["images"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| parse_lsn(i["lsn"].as_str().unwrap()) == good_lsn && i["block"] == BLOCK)
        .unwrap();
    assert_eq!(image["timeline"], 2);
    let page = std::fs::read(out_dir.join(image["file"].as_str().unwrap())).unwrap();
    assert!(page == good_page, "the image differs from pg_walinspect's");
    assert!(report["images"]
        .as_array()
        .unwrap()
        .iter()
        .all(|i| parse_lsn(i["lsn"].as_str().unwrap()) != abandoned_lsn));
    let problems = report["problems"].as_array().unwrap();
    assert!(problems.iter().all(|p| p["evidence"] == "note"), "{report}");
    assert!(
        problems
            .iter()
            .any(|p| p["code"] == "wal_timeline_abandoned"
                && p["message"].as_str().unwrap().contains("abandoned branch")),
        "{report}"
    );

    // Without the history file: named, and the switch is not followed.
    std::fs::remove_file(all.join("00000002.history")).unwrap();
    let report = json(&run(&all, None));
    assert!(
        report["problems"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["code"] == "wal_timeline_history_missing"),
        "{report}"
    );
    // A history file the server would refuse.
    std::fs::write(all.join("00000002.history"), "1\tnot a location\n").unwrap();
    let out = run(&all, None);
    let report = json(&out);
    assert_eq!(out.status.code(), Some(1));
    let bad = report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["code"] == "wal_timeline_history_invalid")
        .unwrap_or_else(|| panic!("{report}"));
    assert!(bad["message"]
        .as_str()
        .unwrap()
        .contains("syntax error in history file"));
}
