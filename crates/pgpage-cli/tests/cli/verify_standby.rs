//! `pgpage verify --amcheck` on a standby's data directory, stopped cleanly ("shut down in
//! recovery"), PostgreSQL 13 to 19. The standby's shutdown restartpoint flushes every page
//! it replayed, but pg_control keeps the checkpoint that restartpoint was made at: the
//! primary's last CHECKPOINT, older than the transactions replayed after it. Held against
//! that checkpoint's nextXid, their rows were each "xmin ... equals or exceeds next valid
//! transaction ID" while the server, whose nextXid replay moved on, finds nothing. pgpage
//! now holds xids and MultiXactIds to pg_control's nextXid and nextMulti only for a cluster
//! shut down cleanly, and says so once for the others; the same primary's directory, shut
//! down cleanly, is still held to them.

use std::process::Command;

use crate::common::{bin_dir, ok, pg_tempdir, pgpage, psql_at, run_pg, Cluster};

fn standby_stopped_in_recovery_gives_nothing(version: u32) {
    let mut primary = Cluster::start(version);
    primary.psql(&[
        "create table s (id int primary key, v text) with (autovacuum_enabled = off)",
        "insert into s select g, md5(g::text) from generate_series(1, 3000) g",
    ]);
    primary.stop();
    // A cold copy of the stopped primary is a base backup; it follows the primary.
    let tmp = pg_tempdir();
    let data = tmp.path().join("standby");
    ok(
        Command::new("cp")
            .args(["-a", primary.data.to_str().unwrap(), data.to_str().unwrap()])
            .output()
            .unwrap(),
        "cp -a",
    );
    std::fs::write(data.join("standby.signal"), "").unwrap();
    let conninfo = format!(
        "primary_conninfo = 'host={} port={} user=postgres'\n",
        primary.root.display(),
        primary.port
    );
    let mut conf = std::fs::read_to_string(data.join("postgresql.auto.conf")).unwrap();
    conf.push_str(&conninfo);
    std::fs::write(data.join("postgresql.auto.conf"), conf).unwrap();
    let _ = Command::new("chown")
        .args(["-R", "postgres", tmp.path().to_str().unwrap()])
        .output();
    primary.restart();
    let port = (primary.port.parse::<u32>().unwrap() + 1).to_string();
    let opts = format!(
        "-k {} -p {port} -c listen_addresses='' -c hot_standby=on",
        tmp.path().display()
    );
    let log = tmp.path().join("log");
    let bin = bin_dir(version);
    let started = run_pg(
        &bin,
        "pg_ctl",
        &[
            "-D",
            data.to_str().unwrap(),
            "-o",
            &opts,
            "-l",
            log.to_str().unwrap(),
            "-w",
            "start",
        ],
    );
    assert!(
        started.status.success(),
        "standby: {}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    // A checkpoint the standby replays (its shutdown restartpoint), then transactions after
    // it: updated rows, new rows, a new table, row locks of two sessions (a MultiXactId).
    primary.psql(&[
        "checkpoint",
        "update s set v = v || 'x' where id % 10 = 0",
        "insert into s select g, 'new' from generate_series(3001, 4000) g",
        "create table t as select generate_series(1, 1000) g",
        "begin",
        "select count(*) from (select * from s where id <= 50 for share) x",
        "commit",
    ]);
    let lsn = primary.psql(&["select pg_current_wal_lsn()"]);
    let standby_sql = |sql: &str| ok(psql_at(tmp.path(), &port, "postgres", &[sql]), sql);
    let mut caught_up = false;
    for _ in 0..300 {
        let replayed = standby_sql(&format!(
            "select pg_last_wal_replay_lsn() >= '{}'",
            lsn.trim()
        ));
        if replayed.trim() == "t" {
            caught_up = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(caught_up, "the standby did not replay to {lsn}");
    ok(
        run_pg(
            &bin,
            "pg_ctl",
            &["-D", data.to_str().unwrap(), "-m", "fast", "-w", "stop"],
        ),
        "stop standby",
    );
    let out = pgpage(&["verify", "--amcheck", data.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{version}: {stdout}\n{stderr}");
    assert!(!stdout.contains(", offset "), "{version}: {stdout}");
    assert!(
        stderr.contains("is \"shut down in recovery\": its pages may hold transactions"),
        "{version}: {stderr}"
    );
    // The primary, shut down cleanly, is held to its shutdown checkpoint: no such note.
    primary.stop();
    let out = pgpage(&["verify", "--amcheck", primary.data.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("its pages may hold transactions"));
}

each_version!(standby_stopped_in_recovery_gives_nothing);
