//! PostgreSQL 19 turns data checksums on and off while it runs. A 19.0 cluster (pg_control 1903)
//! caught in inprogress-on and one in inprogress-off, as pg_controldata 19 reports them, are
//! verified by pgpage, and its counts are held page by page against pageinspect's
//! page_checksum() on the same bytes, read by a server with pg_read_binary_file.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{bin_dir, json, ok, pgpage, run_pg, Cluster};

/// pg_controldata's "Data page checksum version" and cluster state.
fn controldata(cluster: &Cluster) -> (String, String) {
    let text = ok(
        run_pg(
            &cluster.bin,
            "pg_controldata",
            &[cluster.data.to_str().unwrap()],
        ),
        "pg_controldata",
    );
    let field = |label: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(label))
            .map(|v| v.trim().to_owned())
            .unwrap_or_else(|| panic!("no {label:?} in {text}"))
    };
    (
        field("Data page checksum version:"),
        field("Database cluster state:"),
    )
}

/// `SHOW data_checksums`, polled until it is `want` (a minute at most).
fn wait_for_state(cluster: &Cluster, want: &str) {
    let start = Instant::now();
    loop {
        let now = cluster.psql(&["show data_checksums"]);
        if now.trim() == want {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "data_checksums stays {now:?}, not {want}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A copy of the stopped cluster's directory beside it, owned by the postgres user (whose
/// server reads its files for the oracle); pgpage reads the copy, the server never starts on it.
fn snapshot(cluster: &Cluster) -> std::path::PathBuf {
    let snap = cluster.root.join("snap");
    ok(
        Command::new("cp")
            .args(["-a", cluster.data.to_str().unwrap(), snap.to_str().unwrap()])
            .output()
            .unwrap(),
        "cp -a",
    );
    snap
}

/// What the server says of every page of each file: pages not all zeros whose stored
/// pd_checksum equals page_checksum() for their relation-wide block, those whose does not,
/// and of these the ones storing a pd_checksum other than 0. Files by path, with their segment.
fn oracle(cluster: &Cluster, files: &[(String, u64)]) -> Counts {
    let values: Vec<String> = files
        .iter()
        .map(|(path, seg)| format!("('{}', {seg})", path.replace('\'', "''")))
        .collect();
    let sql = format!(
        "with f(path, seg) as (values {}), \
         b as (select path, seg, blk, pg_read_binary_file(path, blk * 8192, 8192) as p \
               from f, generate_series(0::bigint, (pg_stat_file(path)).size / 8192 - 1) blk), \
         c as (select path, p = decode(repeat('00', 8192), 'hex') as zero, \
                      get_byte(p, 8) + 256 * get_byte(p, 9) as stored, \
                      page_checksum(p, (seg * 131072 + blk)::int)::int & 65535 as computed \
               from b) \
         select f.path, \
                count(*) filter (where not zero and computed = stored), \
                count(*) filter (where not zero and computed is distinct from stored), \
                count(*) filter (where not zero and computed is distinct from stored \
                                 and stored <> 0) \
         from f left join c using (path) group by f.path",
        values.join(", ")
    );
    let text = cluster.psql(&[&sql]);
    text.lines()
        .map(|l| {
            let cols: Vec<&str> = l.split('|').collect();
            let n = |i: usize| cols[i].parse::<u64>().unwrap();
            (cols[0].to_owned(), [n(1), n(2), n(3)])
        })
        .collect()
}

/// The last XLOG2 record pg_waldump 19 prints of the copy's pg_wal: its LSN and description.
fn newest_xlog2(cluster: &Cluster, snap: &Path) -> (String, String) {
    let wal = snap.join("pg_wal");
    let mut first: Vec<String> = std::fs::read_dir(&wal)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.len() == 24)
        .collect();
    first.sort();
    let out = run_pg(
        &cluster.bin,
        "pg_waldump",
        &["--rmgr=XLOG2", "-p", wal.to_str().unwrap(), &first[0]],
    );
    // pg_waldump ends with an error where the WAL ends: its records are on stdout.
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let last = text
        .lines()
        .last()
        .unwrap_or_else(|| panic!("no XLOG2 record: {out:?}"));
    let lsn = last
        .split("lsn: ")
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap();
    let desc = last.split("desc: CHECKSUMS ").nth(1).unwrap();
    (lsn.to_owned(), desc.trim().to_owned())
}

/// Per file path: pages with a valid checksum, not yet, and of these with a nonzero one.
type Counts = BTreeMap<String, [u64; 3]>;

/// pgpage's counts per file, and the files with their segments, from `verify --json`.
fn counts(v: &Value) -> (Counts, Vec<(String, u64)>) {
    let mut by_file = BTreeMap::new();
    let mut files = Vec::new();
    for f in v["files"].as_array().unwrap() {
        let path = f["path"].as_str().unwrap().to_owned();
        let n = |k: &str| {
            f[k].as_u64()
                .unwrap_or_else(|| panic!("{path}: no {k} in {f}"))
        };
        by_file.insert(
            path.clone(),
            [
                n("checksums_valid"),
                n("checksums_not_yet"),
                n("checksums_not_yet_nonzero"),
            ],
        );
        files.push((path, f["segment"].as_u64().unwrap()));
    }
    (by_file, files)
}

/// Flips one bit of tuple data in block `block` of `file`.
fn flip(file: &Path, block: u64) {
    let mut bytes = std::fs::read(file).unwrap();
    let at = usize::try_from(block * 8192 + 8000).unwrap();
    bytes[at] ^= 0x10;
    std::fs::write(file, bytes).unwrap();
}

/// verify of the copy: exit 0, no mismatch, the state as pg_control has it, and the counts of
/// every file equal to what the server computes of the same bytes. Returns the JSON.
fn verify_against_server(cluster: &Cluster, snap: &Path, state: &str) -> Value {
    let out = pgpage(&["verify", "--json", snap.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    assert_eq!(v["checksum_state"], state);
    assert_eq!(v["clusters"][0]["checksum_state"], state);
    // The record that set the state, as pg_waldump reads it.
    let (lsn, set) = newest_xlog2(cluster, snap);
    assert_eq!(set, state);
    let wal = &v["clusters"][0]["wal_checksum_state"];
    assert_eq!(
        (wal["lsn"].as_str(), wal["state"].as_str()),
        (Some(lsn.as_str()), Some(state))
    );
    let s = &v["summary"];
    assert_eq!(s["mismatch"], 0, "{s}");
    let (mine, files) = counts(&v);
    assert!(
        files.len() > 100,
        "every relation file is listed: {}",
        files.len()
    );
    let theirs = oracle(cluster, &files);
    assert_eq!(mine, theirs);
    let total = |i: usize| mine.values().map(|c| c[i]).sum::<u64>();
    assert_eq!(s["checksums_valid"], total(0));
    assert_eq!(s["checksums_not_yet"], total(1));
    assert_eq!(s["checksums_not_yet_nonzero"], total(2));
    let blocks = s["blocks"].as_u64().unwrap();
    let zero = s["zero"].as_u64().unwrap();
    assert_eq!(total(0) + total(1), blocks - zero);
    v
}

#[test]
fn inprogress_on_counts_every_page_against_page_checksum() {
    // 19's initdb turns checksums on unless told not to.
    let mut cluster = Cluster::start_in(19, bin_dir(19), &["--no-data-checksums"]);
    cluster.psql(&[
        "create extension pageinspect",
        "create table t (id int, v text)",
        "insert into t select g, repeat('x', 200) from generate_series(1, 12000) g",
        "create index t_id on t (id)",
        "checkpoint",
    ]);
    assert_eq!(cluster.psql(&["show data_checksums"]).trim(), "off");
    let t = cluster.file("select pg_relation_filepath('t')");
    let control_before = std::fs::read(cluster.data.join("global/pg_control")).unwrap();
    // Slow enough (a page per 10 ms at most) to stop it part-way through the first database.
    cluster.psql(&["select pg_enable_data_checksums(cost_delay => 10, cost_limit => 1)"]);
    wait_for_state(&cluster, "inprogress-on");
    let start = Instant::now();
    while cluster
        .psql(&["select coalesce(sum(blocks_done), 0) from pg_stat_progress_data_checksums"])
        .trim()
        .parse::<u64>()
        .unwrap()
        < 20
    {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the worker does not start"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // The rewritten pages reach the files at a checkpoint; the rest stay as written off.
    cluster.psql(&["checkpoint"]);
    assert_eq!(
        cluster.psql(&["show data_checksums"]).trim(),
        "inprogress-on"
    );
    ok(
        cluster.pg_ctl(&["-m", "immediate", "-w", "stop"]),
        "pg_ctl stop -m immediate",
    );
    let (version, _) = controldata(&cluster);
    assert_eq!(version, "3", "an immediate stop keeps inprogress-on");
    let snap = snapshot(&cluster);

    // A page that already carries its checksum, then damaged: nonzero and wrong, as every
    // read will find it once checksums are on, and no problem now.
    let t_snap = snap.join(t.strip_prefix(&cluster.data).unwrap());
    let listed = json(&pgpage(&[
        "verify",
        "--json",
        "--all",
        t_snap.to_str().unwrap(),
    ]));
    let sealed = listed["files"][0]["pages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["status"] == "ok" && p["stored"] == p["computed"])
        .expect("a page of t the worker rewrote")["block"]
        .as_u64()
        .unwrap();
    flip(&t_snap, sealed);

    // The server's next start ends the change: inprogress-on becomes off.
    cluster.restart();
    assert_eq!(cluster.psql(&["show data_checksums"]).trim(), "off");

    let v = verify_against_server(&cluster, &snap, "inprogress-on");
    let s = &v["summary"];
    assert!(
        s["checksums_valid"].as_u64().unwrap() > 20
            && s["checksums_not_yet"].as_u64().unwrap() > 20,
        "caught part-way: {s}"
    );
    // Written while checksums were off, every other page stores 0.
    assert_eq!(s["checksums_not_yet_nonzero"], 1, "{s}");

    // With --all the damaged page is ok, with the server's checksum for it beside its own.
    let all = json(&pgpage(&[
        "verify",
        "--json",
        "--all",
        t_snap.to_str().unwrap(),
    ]));
    let page = &all["files"][0]["pages"][sealed as usize];
    let computed = cluster.psql(&[&format!(
        "select page_checksum(pg_read_binary_file('{}', {}, 8192), {sealed})::int & 65535",
        t_snap.display(),
        sealed * 8192
    )]);
    assert_eq!(page["status"], "ok");
    assert_eq!(page["computed"].to_string(), computed.trim());
    assert_ne!(page["stored"], page["computed"]);

    // The human text: what the server does, the counts, no mismatch lines.
    let out = pgpage(&["verify", snap.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!err.contains("checksum verification failed"), "{err}");
    assert!(
        err.contains("data checksums are being enabled (inprogress-on)")
            && err.contains("verifies none when it reads"),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "pgpage: warning: {} pages carry a valid checksum for their block, {} do not yet; 1 of these store a nonzero checksum",
            s["checksums_valid"], s["checksums_not_yet"]
        )),
        "{err}"
    );
    assert!(
        text.contains("Bad checksums:  0\nData checksum version: 3\n"),
        "{text}"
    );

    // A copy whose pg_control was taken before the change began (as a base backup's may be):
    // its WAL's newest checksum-state record disagrees, and that is said.
    std::fs::write(snap.join("global/pg_control"), control_before).unwrap();
    let out = pgpage(&["verify", snap.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    let (lsn, _) = newest_xlog2(&cluster, &snap);
    assert!(
        err.contains(&format!(
            "(XLOG2 CHECKSUMS at {lsn}) sets data checksums to \"inprogress-on\", but pg_control says \"off\""
        )),
        "{err}"
    );
}

#[test]
fn inprogress_off_survives_a_clean_stop_and_counts_as_the_server_computes() {
    let mut cluster = Cluster::start_in(19, bin_dir(19), &["-k"]);
    cluster.psql(&[
        "create extension pageinspect",
        "create table t (id int, v text)",
        "insert into t select g, repeat('x', 200) from generate_series(1, 3000) g",
        "checkpoint",
    ]);
    let t = cluster.file("select pg_relation_filepath('t')");
    // A backend that cannot take the change in: the launcher waits for it in inprogress-off.
    let psql = format!("{}/psql", bin_dir(15));
    let mut sleeper = Command::new("runuser")
        .args(["-u", "postgres", "--", &psql, "-h"])
        .arg(&cluster.root)
        .args([
            "-p",
            &cluster.port,
            "-U",
            "postgres",
            "-X",
            "-c",
            "select pg_sleep(600)",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let sql = "select pid from pg_stat_activity where query = 'select pg_sleep(600)'";
    let start = Instant::now();
    let pid = loop {
        let pid = cluster.psql(&[sql]).trim().to_owned();
        if !pid.is_empty() {
            break pid;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no sleeping backend"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    ok(
        Command::new("kill").args(["-STOP", &pid]).output().unwrap(),
        "kill -STOP",
    );
    cluster.psql(&["select pg_disable_data_checksums()"]);
    wait_for_state(&cluster, "inprogress-off");
    // A clean stop: the stopped backend, let go once the shutdown began, ends without
    // taking the change in, and the shutdown checkpoint keeps inprogress-off.
    let data = cluster.data.to_str().unwrap().to_owned();
    let bin = cluster.bin.clone();
    let stop = std::thread::spawn(move || {
        run_pg(&bin, "pg_ctl", &["-D", &data, "-m", "fast", "-w", "stop"])
    });
    std::thread::sleep(Duration::from_secs(1));
    ok(
        Command::new("kill").args(["-CONT", &pid]).output().unwrap(),
        "kill -CONT",
    );
    ok(stop.join().unwrap(), "pg_ctl stop -m fast");
    let _ = sleeper.wait();
    assert_eq!(
        controldata(&cluster),
        ("2".to_owned(), "shut down".to_owned()),
        "a clean stop keeps inprogress-off"
    );
    let snap = snapshot(&cluster);
    // Every page carries its checksum: one damaged is nonzero and wrong, and no problem.
    let t_snap = snap.join(t.strip_prefix(&cluster.data).unwrap());
    flip(&t_snap, 3);

    cluster.restart();
    assert_eq!(cluster.psql(&["show data_checksums"]).trim(), "off");
    let v = verify_against_server(&cluster, &snap, "inprogress-off");
    let s = &v["summary"];
    assert_eq!(
        (&s["checksums_not_yet"], &s["checksums_not_yet_nonzero"]),
        (&1.into(), &1.into()),
        "{s}"
    );
    let f = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == t_snap.to_str().unwrap())
        .unwrap();
    assert_eq!(f["pages"], Value::Array(Vec::new()));
}
