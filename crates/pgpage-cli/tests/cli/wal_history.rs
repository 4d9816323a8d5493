//! WAL of another history given beside a cluster shut down cleanly: a copy of the cluster
//! started since (sharing its archive, as a restored test copy with the same
//! archive_command does) writes records past the cluster's shutdown checkpoint, under the
//! same timeline and system identifier. Replayed, they would give the damaged cluster pages
//! it never had; the report and `recover` leave them out and say so.

use std::fs;

use crate::common::{copy_dir, json, pgpage, run_copy, Cluster};

fn other_history(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create table t (id int primary key, v text)",
        "insert into t select g, 'value ' || g from generate_series(1, 3000) g",
        "checkpoint",
        // Every block's first change after the checkpoint logs its image: the block's own
        // history has one to rebuild it from.
        "update t set v = v || '!' where id % 10 = 0",
    ]);
    let rel = c
        .psql(&["select pg_relation_filepath('t')"])
        .trim()
        .to_owned();
    c.stop();
    let dmg = c.root.join("dmg");
    copy_dir(&c.data, &dmg);
    let other = c.root.join("other");
    copy_dir(&c.data, &other);
    run_copy(
        &c,
        &other,
        &["update t set v = v || '?' where id % 10 = 1", "checkpoint"],
    );
    let file = dmg.join(&rel);
    let mut bytes = fs::read(&file).unwrap();
    let pristine = bytes[3 * 8192..4 * 8192].to_vec();
    bytes[3 * 8192..4 * 8192].fill(0);
    fs::write(&file, &bytes).unwrap();
    let pd_lsn = |p: &[u8]| {
        let hi = u32::from_le_bytes(p[0..4].try_into().unwrap());
        let lo = u32::from_le_bytes(p[4..8].try_into().unwrap());
        (u64::from(hi) << 32) | u64::from(lo)
    };
    let wal = other.join("pg_wal");

    let report = json(&pgpage(&[
        "report",
        "--json",
        "--wal",
        wal.to_str().unwrap(),
        dmg.to_str().unwrap(),
    ]));
    let said = report["other_history"].as_str().unwrap_or_default();
    assert!(
        said.contains("another history") && report["verdict"].as_str().unwrap().contains(said),
        "PostgreSQL {version}: {report:#}"
    );
    let b = crate::common::block_of(&report, "public.t", 3);
    let image = crate::common::lsn(b["wal_image"]["lsn"].as_str().unwrap());
    assert!(
        image <= pd_lsn(&pristine),
        "PostgreSQL {version}: the image at {image:X} is past the page's own {:X}: {b:#}",
        pd_lsn(&pristine)
    );

    let new = c.root.join("new");
    let out = pgpage(&[
        "recover",
        "--block",
        "3",
        "--wal",
        wal.to_str().unwrap(),
        "--out",
        new.to_str().unwrap(),
        file.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.contains("another history"),
        "PostgreSQL {version}: {stderr}"
    );
    let rebuilt = fs::read(&new).unwrap();
    assert_eq!(
        pd_lsn(&rebuilt[3 * 8192..4 * 8192]),
        pd_lsn(&pristine),
        "PostgreSQL {version}: the page rebuilt is not the cluster's own last write"
    );
}

each_version!(other_history);

/// A cluster that crashed after a checkpoint: a page damaged on disk whose block the WAL
/// holds an image of after the redo point is never read by the server, since crash
/// recovery writes the block from that image first. The report says so first, names no
/// ERROR for that block, and puts crash recovery before every other step; the server,
/// started on a copy, reads every row without an error.
fn crashed_cluster(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create table t (id int primary key, v text)",
        "insert into t select g, 'value ' || g from generate_series(1, 3000) g",
        "checkpoint",
        "update t set v = v || '!' where id % 10 = 0",
    ]);
    let rel = c
        .psql(&["select pg_relation_filepath('t')"])
        .trim()
        .to_owned();
    let count = c.psql(&["select count(*) from t"]).trim().to_owned();
    c.crash();
    let file = c.data.join(&rel);
    let mut bytes = fs::read(&file).unwrap();
    bytes[3 * 8192 + 7000] ^= 0x10;
    fs::write(&file, &bytes).unwrap();

    let report = json(&pgpage(&["report", "--json", c.data.to_str().unwrap()]));
    let b = crate::common::block_of(&report, "public.t", 3);
    assert!(
        report["cluster"]["crashed"] == true
            && b["crash_rewrites"].is_string()
            && b["server"].is_null()
            && report["verdict"]
                .as_str()
                .unwrap()
                .starts_with("NOT SHUT DOWN CLEANLY"),
        "PostgreSQL {version}: {report:#}"
    );
    let steps = crate::common::steps_of(&report);
    assert!(
        steps
            .get(1)
            .is_some_and(|s| s.contains("let crash recovery run")),
        "PostgreSQL {version}: {steps:#?}"
    );
    // The server's word: it starts, replays, and reads every row without an error.
    c.restart();
    assert_eq!(c.psql(&["select count(*) from t"]).trim(), count);
}

each_version!(crashed_cluster);
