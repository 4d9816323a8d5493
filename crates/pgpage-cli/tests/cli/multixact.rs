//! Rows whose xmax is a MultiXact: two transactions sharing a row lock, and a key-share lock
//! beside an update. pg_multixact/offsets entries are 32 bits before 19 and 64 bits from 19 on;
//! the members `rows --all-versions` names must be pg_get_multixact_members()'s, and the rows
//! the server's COPY.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{bin_dir, pgpage, Cluster};

fn rows_by_multixact(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&["create database shop"]);
    c.psql_in(
        "shop",
        &[
            "create extension pageinspect",
            "create table t (id int primary key, v text)",
            "insert into t select g, 'row ' || g from generate_series(1, 5) g",
        ],
    );
    // A transaction that holds a share lock on row 1 and a key-share lock on row 2 while
    // others take theirs: each row's xmax becomes a MultiXact.
    let psql = format!("{}/psql", bin_dir(15));
    let mut holder = Command::new("runuser")
        .args(["-u", "postgres", "--", &psql, "-h"])
        .arg(&c.root)
        .args(["-p", &c.port, "-U", "postgres", "-X", "-d", "shop"])
        .args(["-c", "begin"])
        .args(["-c", "select id from t where id = 1 for share"])
        .args(["-c", "select id from t where id = 2 for key share"])
        .args(["-c", "select pg_sleep(3)"])
        .args(["-c", "commit"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while c
        .psql(&["select count(*) from pg_locks where locktype = 'transactionid' and granted and pid <> pg_backend_pid()"])
        .trim()
        == "0"
    {
        assert!(start.elapsed() < Duration::from_secs(30), "no lock holder");
        std::thread::sleep(Duration::from_millis(50));
    }
    c.psql_in(
        "shop",
        &[
            "begin",
            "select id from t where id = 1 for share",
            "commit",
            "update t set v = 'updated' where id = 2",
        ],
    );
    assert!(holder.wait().unwrap().success());
    // The server's members of each MultiXact xmax on the page, by ctid.
    let listed = c.psql_in(
        "shop",
        &["select '(0,' || lp || ')', m.xid, m.mode \
           from heap_page_items(get_raw_page('t', 0)) h, \
                pg_get_multixact_members(h.t_xmax) m \
           where h.t_infomask & 4096 <> 0"],
    );
    let mut want: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for l in listed.lines() {
        let cols: Vec<&str> = l.split('|').collect();
        want.entry(cols[0].to_owned())
            .or_default()
            .push((cols[1].to_owned(), cols[2].to_owned()));
    }
    for ms in want.values_mut() {
        ms.sort();
    }
    let modes: Vec<Vec<&str>> = want
        .values()
        .map(|ms| {
            let mut m: Vec<&str> = ms.iter().map(|(_, m)| m.as_str()).collect();
            m.sort_unstable();
            m
        })
        .collect();
    assert_eq!(
        modes,
        [vec!["sh", "sh"], vec!["keysh", "nokeyupd"]],
        "PostgreSQL {version}: {listed}"
    );
    let copy = c.copy_in("shop", "t");
    c.stop();

    let data = c.data.to_str().unwrap();
    let out = pgpage(&["rows", "--database", "shop", data, "t"]);
    assert_eq!(
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned()
        ),
        (Some(0), copy),
        "PostgreSQL {version}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = pgpage(&[
        "rows",
        "--format",
        "json",
        "--all-versions",
        "--database",
        "shop",
        data,
        "t",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "PostgreSQL {version}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut got: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for l in String::from_utf8_lossy(&out.stdout).lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        if let Some(members) = v.get("xmax_members") {
            let mut ms: Vec<(String, String)> = members
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    (
                        m["xid"].as_str().unwrap().to_owned(),
                        m["mode"].as_str().unwrap().to_owned(),
                    )
                })
                .collect();
            ms.sort();
            got.insert(v["ctid"].as_str().unwrap().to_owned(), ms);
        }
    }
    assert_eq!(got, want, "PostgreSQL {version}");
}

each_version!(rows_by_multixact);
