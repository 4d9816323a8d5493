//! `pgpage verify` against PostgreSQL 15's own pg_checksums on a real cluster: a throwaway
//! `initdb -k` cluster with a table and an index, stopped, copied and damaged in several
//! ways; both tools must name the same blocks with the same lines and the same summary.
//! If PostgreSQL cannot be started, the test fails with the reason.
// Tests index fixed-size test pages and panic on failure; that is their job.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::panic
)]

use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const PGBIN: &str = "/usr/lib/postgresql/15/bin";

fn is_root() -> bool {
    let out = Command::new("id").arg("-u").output().expect("id -u");
    String::from_utf8_lossy(&out.stdout).trim() == "0"
}

/// Runs a PostgreSQL program as the postgres user when we are root (the server refuses root).
fn pg(program: &str, args: &[&str]) -> Output {
    let path = format!("{PGBIN}/{program}");
    let out = if is_root() {
        Command::new("runuser")
            .args(["-u", "postgres", "--", &path])
            .args(args)
            .output()
    } else {
        Command::new(&path).args(args).output()
    };
    out.unwrap_or_else(|e| panic!("cannot run {path}: {e}"))
}

fn ok(out: Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what} failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Stops the server however the test ends.
struct Server {
    data: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = pg(
            "pg_ctl",
            &[
                "-D",
                self.data.to_str().unwrap(),
                "-m",
                "immediate",
                "-w",
                "stop",
            ],
        );
    }
}

fn flip(path: &Path, offset: u64, mask: u8) {
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .unwrap();
    let mut b = [0u8];
    f.read_exact_at(&mut b, offset).unwrap();
    f.write_all_at(&[b[0] ^ mask], offset).unwrap();
}

fn write_at(path: &Path, offset: u64, bytes: &[u8]) {
    let f = OpenOptions::new().write(true).open(path).unwrap();
    f.write_all_at(bytes, offset).unwrap();
}

fn read_block(path: &Path, block: u64) -> Vec<u8> {
    let f = std::fs::File::open(path).unwrap();
    let mut b = vec![0u8; 8192];
    f.read_exact_at(&mut b, block * 8192).unwrap();
    b
}

#[test]
fn mismatch_lines_and_summary_equal_pg_checksums() {
    let tmp = tempfile::Builder::new()
        .prefix("pgpage-pg")
        .tempdir()
        .unwrap();
    let root = tmp.path();
    if is_root() {
        ok(
            Command::new("chown")
                .args(["postgres", root.to_str().unwrap()])
                .output()
                .unwrap(),
            "chown",
        );
    }
    let data = root.join("data");
    let d = data.to_str().unwrap();
    let sock = root.to_str().unwrap();
    let port = (20_000 + std::process::id() % 30_000).to_string();
    ok(
        pg("initdb", &["-k", "-A", "trust", "--no-sync", "-D", d]),
        "initdb -k",
    );
    let log = root.join("log");
    let opts = format!("-k {sock} -p {port} -c listen_addresses='' -c fsync=off");
    let start = pg(
        "pg_ctl",
        &[
            "-D",
            d,
            "-o",
            &opts,
            "-l",
            log.to_str().unwrap(),
            "-w",
            "start",
        ],
    );
    let server = Server { data: data.clone() };
    if !start.status.success() {
        panic!(
            "PostgreSQL 15 did not start: {}\n{}",
            String::from_utf8_lossy(&start.stderr),
            std::fs::read_to_string(&log).unwrap_or_default()
        );
    }
    let mut args = vec![
        "-h",
        sock,
        "-p",
        &port,
        "-d",
        "postgres",
        "-X",
        "-A",
        "-t",
        "-q",
        "-v",
        "ON_ERROR_STOP=1",
    ];
    for sql in [
        "create table t (id int primary key, v text)",
        "insert into t select g, md5(g::text) from generate_series(1, 20000) g",
        "delete from t where id % 7 = 0",
        "vacuum t",
        "checkpoint",
        "select pg_relation_filepath('t'), pg_relation_filepath('t_pkey')",
    ] {
        args.extend(["-c", sql]);
    }
    let out = ok(pg("psql", &args), "psql");
    let rel: Vec<&str> = out.trim().lines().last().unwrap().split('|').collect();
    let (table, index) = (data.join(rel[0]), data.join(rel[1]));
    // A clean shutdown, or pg_checksums refuses the cluster.
    ok(
        pg("pg_ctl", &["-D", d, "-m", "fast", "-w", "stop"]),
        "pg_ctl stop",
    );
    drop(server);

    // Damage a copy, as pg_checksums must be run on a stopped cluster.
    let copy = root.join("copy");
    ok(
        Command::new("cp")
            .args(["-a", d, copy.to_str().unwrap()])
            .output()
            .unwrap(),
        "cp -a",
    );
    let table = copy.join(table.strip_prefix(&data).unwrap());
    let index = copy.join(index.strip_prefix(&data).unwrap());
    flip(&table, 2 * 8192 + 5000, 0x01); // a bit in tuple data
    flip(&table, 5 * 8192 + 8, 0xFF); // the checksum itself
    let (b7, b8) = (read_block(&table, 7), read_block(&table, 8));
    write_at(&table, 7 * 8192, &b8); // swapped pages
    write_at(&table, 8 * 8192, &b7);
    flip(&index, 8192 + 20, 0x40); // pd_pagesize_version of an index page
    write_at(&table, 10 * 8192 + 14, &[0, 0]); // pd_upper zeroed: pg_checksums skips it

    let c = copy.to_str().unwrap();
    let theirs = pg("pg_checksums", &["--check", "-D", c]);
    let ours = Command::new(env!("CARGO_BIN_EXE_pgpage"))
        .args(["verify", c])
        .output()
        .unwrap();
    assert_eq!(theirs.status.code(), Some(1), "{theirs:?}");
    assert_eq!(ours.status.code(), Some(1), "{ours:?}");

    let mut want: Vec<String> = String::from_utf8_lossy(&theirs.stderr)
        .lines()
        .map(|l| l.replacen("pg_checksums: ", "pgpage: ", 1))
        .collect();
    let mut got: Vec<String> = String::from_utf8_lossy(&ours.stderr)
        .lines()
        .filter(|l| l.contains("checksum verification failed"))
        .map(str::to_owned)
        .collect();
    want.sort();
    got.sort();
    assert_eq!(want.len(), 5, "pg_checksums: {want:#?}");
    assert_eq!(got, want);

    // The summary, but for "Data checksum version", which is in pg_control, not the pages.
    let theirs_summary: Vec<String> = String::from_utf8_lossy(&theirs.stdout)
        .lines()
        .take(4)
        .map(str::to_owned)
        .collect();
    let ours_summary: Vec<String> = String::from_utf8_lossy(&ours.stdout)
        .lines()
        .take(4)
        .map(str::to_owned)
        .collect();
    assert_eq!(ours_summary, theirs_summary);

    // What pg_checksums cannot say: the page it skipped and where the swapped pages belong.
    let json = Command::new(env!("CARGO_BIN_EXE_pgpage"))
        .args(["verify", "--json", table.to_str().unwrap()])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let pages = v["files"][0]["pages"].as_array().unwrap();
    let find = |b: u64| {
        pages
            .iter()
            .find(|p| p["block"] == b)
            .unwrap_or_else(|| panic!("block {b} not listed: {pages:?}"))
    };
    assert_eq!(find(7)["matches_block"], 8);
    assert_eq!(find(8)["matches_block"], 7);
    assert_eq!(find(10)["status"], "new_not_zero");
    assert_eq!(find(2)["status"], "mismatch");
}
