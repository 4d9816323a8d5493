//! `pgpage verify` against PostgreSQL 15's own pg_checksums on a real cluster: a throwaway
//! `initdb -k` cluster with a table and an index, stopped, copied and damaged in several
//! ways; both tools must name the same blocks with the same lines and the same summary.
//! Then a cluster without data checksums, held against the server's own reads, and data
//! directories of PostgreSQL 13 to 19, whose version verify must name. If PostgreSQL cannot
//! be started, the test fails with the reason.
use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::process::{Command, Output};

#[path = "../../../pgpage/tests/support/pg_filedump.rs"]
mod support;

use crate::common::{bin_dir, ok, pg19_bin, pg_tempdir, pgpage, run_pg, Cluster};

const PGBIN: &str = "/usr/lib/postgresql/15/bin";

/// Runs a PostgreSQL 15 program as the postgres user when we are root (the server refuses
/// root).
fn pg(program: &str, args: &[&str]) -> Output {
    run_pg(PGBIN, program, args)
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

/// A stopped PostgreSQL 15 cluster made by `initdb` with `options`, after `sql` ran in it,
/// and the last line of its output.
fn cluster_with(options: &[&str], sql: &[&str]) -> (Cluster, String) {
    let mut c = Cluster::start_with(15, options);
    let last = c
        .psql(sql)
        .trim()
        .lines()
        .last()
        .unwrap_or_default()
        .to_owned();
    // A clean shutdown, or pg_checksums refuses the cluster.
    c.stop();
    (c, last)
}

fn cluster(sql: &[&str]) -> (Cluster, String) {
    cluster_with(&["-k"], sql)
}

#[test]
fn mismatch_lines_and_summary_equal_pg_checksums() {
    let (cluster, last) = cluster(&[
        "create table t (id int primary key, v text)",
        "insert into t select g, md5(g::text) from generate_series(1, 20000) g",
        "delete from t where id % 7 = 0",
        "vacuum t",
        "checkpoint",
        "select pg_relation_filepath('t'), pg_relation_filepath('t_pkey')",
    ]);
    let (root, data) = (&cluster.root, &cluster.data);
    let d = data.to_str().unwrap();
    let rel: Vec<&str> = last.split('|').collect();
    let (table, index) = (data.join(rel[0]), data.join(rel[1]));

    // Damage a copy, as pg_checksums must be run on a stopped cluster.
    let copy = root.join("copy");
    ok(
        Command::new("cp")
            .args(["-a", d, copy.to_str().unwrap()])
            .output()
            .unwrap(),
        "cp -a",
    );
    let table = copy.join(table.strip_prefix(data).unwrap());
    let index = copy.join(index.strip_prefix(data).unwrap());
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
    // The page whose pd_checksum bytes were overwritten and the one with a flipped data bit:
    // their tuples name their own blocks, so no other block is offered, claim or candidate.
    for b in [2, 5] {
        assert!(find(b).get("matches_block").is_none(), "{}", find(b));
        assert!(find(b).get("candidate").is_none(), "{}", find(b));
    }
    assert_eq!(find(10)["status"], "new_not_zero");
    assert_eq!(find(2)["status"], "mismatch");
}

/// pgpage's and pg_checksums' stderr lines of one kind, with pg_checksums' program name
/// replaced by ours, sorted (pg_checksums walks in readdir's order).
fn lines_of(out: &Output, ours: bool, pick: impl Fn(&str) -> bool) -> Vec<String> {
    let mut lines: Vec<String> = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| pick(l))
        .map(|l| {
            if ours {
                l.to_owned()
            } else {
                l.replacen("pg_checksums: ", "pgpage: ", 1)
            }
        })
        .collect();
    lines.sort();
    lines
}

fn summary(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .take(4)
        .map(str::to_owned)
        .collect()
}

#[test]
fn verbose_filenode_and_progress_as_pg_checksums_prints_them() {
    let (cluster, last) = cluster(&[
        "create table t (id int primary key, v text)",
        "insert into t select g, md5(g::text) from generate_series(1, 3000) g",
        "vacuum t",
        // An unlogged table: its _init fork is an empty file.
        "create unlogged table u (id int)",
        "checkpoint",
        "select pg_relation_filenode('t'), pg_relation_filepath('u')",
    ]);
    let d = cluster.data.to_str().unwrap();
    let rel: Vec<&str> = last.split('|').collect();
    let (filenode, unlogged) = (rel[0], cluster.data.join(rel[1]));
    let verified = |l: &str| l.contains("checksums verified in file");

    // -v: one line per file, in pg_checksums' words, for every file it checks.
    let theirs = pg("pg_checksums", &["--check", "-v", "-D", d]);
    let ours = pgpage(&["verify", "-v", d]);
    assert_eq!(theirs.status.code(), Some(0), "{theirs:?}");
    assert_eq!(ours.status.code(), Some(0), "{ours:?}");
    let want = lines_of(&theirs, false, verified);
    assert!(want.len() > 900, "pg_checksums -v: {} files", want.len());
    assert_eq!(lines_of(&ours, true, verified), want);
    assert!(want.contains(&format!(
        "pgpage: checksums verified in file \"{}_init\"",
        unlogged.display()
    )));
    assert_eq!(summary(&ours), summary(&theirs));

    // -f: that relation's files only (main, fsm, vm), in every directory.
    let theirs = pg("pg_checksums", &["--check", "-v", "-f", filenode, "-D", d]);
    let ours = pgpage(&["verify", "-v", "-f", filenode, d]);
    assert_eq!(ours.status.code(), Some(0), "{ours:?}");
    let want = lines_of(&theirs, false, verified);
    assert_eq!(want.len(), 3, "{want:#?}");
    assert_eq!(lines_of(&ours, true, verified), want);
    assert_eq!(summary(&ours), summary(&theirs));
    // pg_checksums takes a data directory; -f means nothing for a file.
    let table = cluster.data.join(format!("base/5/{filenode}"));
    let out = pgpage(&["verify", "-f", filenode, table.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");

    // -P: progress lines in pg_checksums' format, ending at the same total.
    let theirs = pg("pg_checksums", &["--check", "-P", "-D", d]);
    let ours = pgpage(&["verify", "-P", d]);
    let progress = |out: &Output| -> Vec<String> {
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .map(str::to_owned)
            .collect()
    };
    let (theirs, ours) = (progress(&theirs), progress(&ours));
    for line in theirs.iter().chain(&ours) {
        let (mb, rest) = line
            .split_once(" MB (")
            .unwrap_or_else(|| panic!("{line:?}"));
        let (done, total) = mb.split_once('/').unwrap();
        let percent = rest.strip_suffix("%) computed").unwrap();
        for n in [done, total, percent] {
            assert!(n.parse::<u64>().is_ok(), "{line:?}");
        }
    }
    assert_eq!(ours.last(), theirs.last());
    assert!(ours.last().unwrap().contains("(100%)"), "{ours:?}");

    // inspect of the empty _init fork: a relation of no pages, not an error.
    let init = format!("{}_init", unlogged.display());
    let out = pgpage(&["inspect", "--json", &init]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["fork"], "init");
    assert_eq!(v["blocks"], serde_json::json!([]));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        format!("pgpage: warning: file \"{init}\" is empty")
    );
}

/// A cluster initialized without data checksums: pg_control says so, every stored checksum
/// is meaningless, and only PageIsVerified's header checks count. One heap page with
/// pd_lower = 9000 is the one problem, as the server's own read of it says.
#[test]
fn checksums_off_cluster_only_header_findings_count_as_the_server_reads_them() {
    let (mut cluster, last) = cluster_with(
        &[],
        &[
            "create table t (id int, v text)",
            "insert into t select g, md5(g::text) from generate_series(1, 3000) g",
            "checkpoint",
            "select pg_relation_filepath('t')",
        ],
    );
    let (root, data) = (cluster.root.clone(), cluster.data.clone());
    let d = data.to_str().unwrap();
    let table = data.join(&last);
    let blocks = std::fs::metadata(&table).unwrap().len() / 8192;
    assert!(blocks > 10, "{blocks} blocks");
    write_at(&table, 3 * 8192 + 12, &9000u16.to_le_bytes());
    let t = table.to_str().unwrap();

    let out = pgpage(&["verify", "--json", d]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = &v["clusters"][0];
    assert_eq!(c["path"], d);
    assert_eq!(c["pg_version"], "15");
    assert_eq!(c["pg_control_version"], 1300);
    assert_eq!(c["data_page_checksum_version"], 0);
    assert_eq!(c["checksums"], "off");
    assert_eq!(c["block_size"], 8192);
    assert_eq!(c["wal_segment_size"], 16 * 1024 * 1024);
    assert_eq!(c["crc_ok"], true);
    let problems: Vec<(String, serde_json::Value)> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| {
            let path = f["path"].as_str().unwrap().to_owned();
            f["pages"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |p| (path.clone(), p.clone()))
        })
        .collect();
    assert_eq!(problems.len(), 1, "{problems:#?}");
    let (path, page) = &problems[0];
    assert_eq!(path, t);
    assert_eq!(page["block"], 3);
    assert_eq!(page["status"], "bad_header");
    assert!(page["computed"].is_null(), "{page}");
    assert_eq!(
        page["findings"],
        serde_json::json!(["header_lower_above_upper"])
    );
    let s = &v["summary"];
    assert_eq!(
        (s["mismatch"].as_u64(), s["bad_header"].as_u64()),
        (Some(0), Some(1))
    );

    let out = pgpage(&["verify", d]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("checksum verification failed"), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines,
        [
            format!(
                "pgpage: data checksums are not enabled in cluster \"{d}\": its pages are \
                 checked by their headers only, and a stored checksum means nothing"
            ),
            format!(
                "pgpage: error: page verification failed in file \"{t}\", block 3: the page \
                 header is invalid: pd_lower is above pd_upper"
            ),
        ]
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Bad checksums:  0\nData checksum version: 0\n"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "Data directory \"{d}\": PostgreSQL 15 (pg_control version 1300, written by 13-16), \
             block size 8192, WAL segment size 16777216, data checksums off"
        )),
        "{text}"
    );

    // The file named alone is judged with its data directory's pg_control; a copy of it
    // elsewhere has none, but no page stores a checksum, so the file says that checksums
    // are off. The verdict is the same.
    let copy = root.join("16384");
    std::fs::copy(&table, &copy).unwrap();
    for (file, from_pages) in [(t, false), (copy.to_str().unwrap(), true)] {
        let out = pgpage(&["verify", "--json", file]);
        assert_eq!(out.status.code(), Some(1));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["clusters"].is_array(), !from_pages, "{file}");
        let f = &v["files"][0];
        assert_eq!(f["findings"][0]["code"], "checksums_disabled");
        assert_eq!(f["findings"][0]["from_pages"], from_pages);
        let pages = f["pages"].as_array().unwrap();
        assert_eq!(pages.len(), 1);
        assert_eq!(
            (&pages[0]["block"], &pages[0]["status"]),
            (&3.into(), &"bad_header".into())
        );
    }

    // The server refuses exactly that page.
    cluster.restart();
    let out = cluster.psql_output("postgres", &["select count(*) from t"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("invalid page in block 3 of relation {}", last)),
        "{err}"
    );
    let out = cluster.psql_output(
        "postgres",
        &["select count(*) from t where ctid >= '(4,0)'::tid or ctid < '(3,0)'::tid"],
    );
    assert!(
        !out.status.success(),
        "a seq scan reads block 3 too: {out:?}"
    );
}

/// Data directories of every version: verify names the version from PG_VERSION and
/// pg_control, in the summary and in the JSON, and takes its block size from pg_control: a
/// file whose pages claim another size is named and read as the server reads it.
#[test]
fn data_directories_of_every_version_are_named() {
    let builds = [
        (13, 1300, bin_dir(13)),
        (14, 1300, bin_dir(14)),
        (16, 1300, bin_dir(16)),
        (17, 1700, bin_dir(17)),
        (18, 1800, bin_dir(18)),
        (19, 1903, bin_dir(19)),
        (19, 1902, pg19_bin(1902)),
    ];
    for (version, control, bin) in builds {
        let tmp = pg_tempdir();
        let data = tmp.path().join("data");
        let d = data.to_str().unwrap();
        ok(
            run_pg(
                &bin,
                "initdb",
                &["-k", "-A", "trust", "-U", "postgres", "--no-sync", "-D", d],
            ),
            &format!("initdb of PostgreSQL {version} in {bin}"),
        );
        let out = pgpage(&["verify", "--json", d]);
        assert_eq!(out.status.code(), Some(0), "PostgreSQL {version}: {out:?}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let c = &v["clusters"][0];
        assert_eq!(c["pg_version"], version.to_string());
        assert_eq!(c["pg_control_version"], control);
        assert_eq!(c["data_page_checksum_version"], 1);
        assert_eq!(c["checksums"], "on");
        assert!(
            v["summary"]["ok"].as_u64().unwrap() > 100,
            "{}",
            v["summary"]
        );

        let out = pgpage(&["verify", d]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        let releases = match control {
            1300 => "13-16".to_owned(),
            1902 => "19 beta".to_owned(),
            _ => version.to_string(),
        };
        assert!(
            text.contains(&format!(
                "\nData checksum version: 1\nData directory \"{d}\": PostgreSQL {version} \
                 (pg_control version {control}, written by {releases}), block size 8192"
            )),
            "{text}"
        );
        assert!(out.stderr.is_empty(), "{out:?}");

        if version == 18 {
            // A damaged pg_control (its CRC no longer matches, where 18 moved it): said, and
            // each file decides instead; verification goes on.
            flip(&data.join("global/pg_control"), 100, 0x01);
            let out = pgpage(&["verify", "--json", d]);
            assert_eq!(out.status.code(), Some(0), "{out:?}");
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            let c = &v["clusters"][0];
            assert_eq!(
                (&c["crc_ok"], &c["checksums"]),
                (&false.into(), &"unknown".into())
            );
            assert_eq!(v["summary"]["mismatch"], 0);
            assert_eq!(
                String::from_utf8_lossy(&out.stderr).trim_end(),
                format!(
                    "pgpage: warning: calculated CRC checksum does not match value stored in \
                     control file \"{d}/global/pg_control\": block size and data checksums are \
                     decided from each file's pages"
                )
            );
        }
        if version == 16 {
            // Two 4 kB pages with sane headers, in a cluster of 8 kB pages.
            let mut page = vec![0u8; 4096];
            for (off, v) in [(12, 24u16), (14, 4096), (16, 4096), (18, 4096 | 4)] {
                page[off..off + 2].copy_from_slice(&v.to_le_bytes());
            }
            let odd = data.join("base/1/99999");
            std::fs::write(&odd, [page.clone(), page].concat()).unwrap();
            let out = pgpage(&["verify", "--json", d]);
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            let f = v["files"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["path"] == odd.to_str().unwrap())
                .unwrap()
                .clone();
            assert_eq!(
                (f["block_size"].as_u64(), f["pages_block_size"].as_u64()),
                (Some(8192), Some(4096))
            );
            assert_eq!(f["blocks"], 1);
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains(&format!(
                    "pgpage: warning: file \"{}\" holds pages of 4096 bytes, but pg_control \
                     says the cluster's block size is 8192",
                    odd.display()
                )),
                "{err}"
            );
        }
    }
}

/// Checksums turned off with pg_checksums --disable: pages keep the checksums they had, and
/// the server writes pages it changes without one, so their stored checksums go stale. The
/// cluster's pg_control says checksums are off, and verify believes it, for the data
/// directory and for one of its files named alone; a copy of that file outside any data
/// directory has only its pages to go by, and they store checksums.
#[test]
fn stale_checksums_after_pg_checksums_disable_are_not_mismatches() {
    let (mut cluster, last) = cluster(&[
        "create table t (id int, v text)",
        "insert into t select g, md5(g::text) from generate_series(1, 3000) g",
        "checkpoint",
        "select pg_relation_filepath('t')",
    ]);
    let (root, data) = (cluster.root.clone(), cluster.data.clone());
    let d = data.to_str().unwrap();
    ok(
        pg("pg_checksums", &["--disable", "-D", d]),
        "pg_checksums --disable",
    );
    cluster.restart();
    cluster.psql(&["update t set v = v || 'x'", "checkpoint"]);
    cluster.stop();
    let table = data.join(&last);

    let out = pgpage(&["verify", d]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout)
        .contains("Bad checksums:  0\nData checksum version: 0\n"));
    let out = pgpage(&["verify", table.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");

    let copy = root.join("16384");
    std::fs::copy(&table, &copy).unwrap();
    let out = pgpage(&["verify", "--json", copy.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["summary"]["mismatch"].as_u64().unwrap() > 0,
        "{}",
        v["summary"]
    );
}

/// `inspect --filedump` against Debian's pg_filedump 14.1 (postgresql-filedump) on the files of
/// a PostgreSQL 15 table and its btree index: the same text, byte for byte, apart from the
/// banner's file name line (pg_filedump names the file as it was given, so does pgpage).
#[test]
fn filedump_text_equals_pg_filedump() {
    let tool = support::pg_filedump();
    let (c, last) = cluster(&[
        "create table t (id int primary key, v text, n int)",
        "insert into t select g, repeat('v', g % 50), case when g % 3 = 0 then null else g end from generate_series(1, 2000) g",
        "update t set v = 'hot' where id % 17 = 0",
        "delete from t where id % 29 = 0",
        "checkpoint",
        "select pg_relation_filepath('t') || ' ' || pg_relation_filepath('t_pkey')",
    ]);
    let (heap, index) = last.split_once(' ').unwrap();
    let cases: [(&str, Option<&str>); 6] = [
        (heap, Some("0")),
        (heap, Some("3")),
        (heap, Some("10")),
        (index, Some("0")),
        (index, Some("1")),
        (index, None),
    ];
    for (rel, block) in cases {
        let file = c.data.join(rel);
        let file = file.to_str().unwrap();
        let mut theirs_args = vec!["-f", "-i"];
        let mut ours_args = vec!["inspect", "--filedump"];
        if let Some(b) = block {
            theirs_args.extend(["-R", b]);
            ours_args.extend(["--block", b]);
        }
        theirs_args.push(file);
        ours_args.push(file);
        let theirs = Command::new(tool).args(&theirs_args).output().unwrap();
        let ours = pgpage(&ours_args);
        assert!(ours.status.code().is_some_and(|s| s < 2), "{ours:?}");
        let (theirs, ours) = (
            String::from_utf8(theirs.stdout).unwrap(),
            String::from_utf8(ours.stdout).unwrap(),
        );
        assert!(theirs.contains("<Data> -----") || theirs.contains("BTree Meta Data"));
        assert_eq!(
            support::without_file_line(&ours),
            support::without_file_line(&theirs),
            "{rel} block {block:?}"
        );
    }
}
