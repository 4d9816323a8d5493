//! `pgpage repair` on a real PostgreSQL 15 cluster: a table and its primary key damaged on
//! disk (a flipped bit in a heap page, a torn sector in another, bytes of an index page), each
//! repaired into a new file (from a backup copy, by flipping the bit back, from a page file),
//! and the result held against the server's own judges: `pg_checksums --check` on the
//! stopped cluster, then `verify_heapam` and `bt_index_check` (amcheck) and the rows
//! themselves on the started one. Then the refusals, the input never written.
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{json, pgpage, run_pg, Cluster};

const BS: usize = 8192;

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn repair(args: &[&str]) -> Output {
    let mut all = vec!["repair"];
    all.extend(args);
    pgpage(&all)
}

/// The cluster started again on its files; stopped (immediate) when dropped.
struct Started<'a>(&'a Cluster);

impl<'a> Started<'a> {
    fn new(c: &'a Cluster) -> Started<'a> {
        let opts = format!(
            "-k {} -p {} -c listen_addresses='' -c fsync=off",
            c.root.display(),
            c.port
        );
        let log = c.root.join("log2");
        let out = c.pg_ctl(&["-o", &opts, "-l", log.to_str().unwrap(), "-w", "start"]);
        assert!(
            out.status.success(),
            "restart: {}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        Started(c)
    }
}

impl Drop for Started<'_> {
    fn drop(&mut self) {
        let _ = self.0.pg_ctl(&["-m", "immediate", "-w", "stop"]);
    }
}

fn pg_checksums(c: &Cluster) -> Output {
    run_pg(
        &c.bin,
        "pg_checksums",
        &["--check", "-D", c.data.to_str().unwrap()],
    )
}

fn write_over(path: &Path, bytes: &[u8]) {
    // In place, so the file keeps its owner (postgres) and mode.
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn repaired_files_pass_pg_checksums_and_amcheck() {
    let mut c = Cluster::start(15);
    c.psql(&[
        "create extension amcheck",
        "create table t (id int primary key, v text)",
        "insert into t select g, md5(g::text) || repeat('y', g % 40) from generate_series(1, 3000) g",
        "checkpoint",
    ]);
    let heap = c.file("select pg_relation_filepath('t')");
    let index = c.file("select pg_relation_filepath('t_pkey')");
    let rows = c.psql(&["select count(*), sum(length(v)) from t"]);
    c.stop();
    let tmp = tempfile::tempdir().unwrap();
    let work = |name: &str| tmp.path().join(name);
    // The backup: copies taken while the cluster was stopped cleanly.
    let backup_dir = work("backup");
    std::fs::create_dir(&backup_dir).unwrap();
    let heap_name = heap.file_name().unwrap().to_str().unwrap().to_owned();
    let index_name = index.file_name().unwrap().to_str().unwrap().to_owned();
    let heap_backup = backup_dir.join(&heap_name);
    let index_backup = backup_dir.join(&index_name);
    std::fs::copy(&heap, &heap_backup).unwrap();
    std::fs::copy(&index, &index_backup).unwrap();

    // The damage: block 2 loses a sector to garbage, block 4 has one bit flipped in its
    // tuple data, index block 1 has bytes overwritten.
    let good_heap = std::fs::read(&heap).unwrap();
    assert!(good_heap.len() >= 6 * BS, "the table has at least 6 pages");
    let mut bad_heap = good_heap.clone();
    for (i, b) in bad_heap[2 * BS + 4096..2 * BS + 4608]
        .iter_mut()
        .enumerate()
    {
        *b ^= (i as u8).wrapping_mul(37) | 1;
    }
    let (flip_off, flip_bit) = (7000usize, 5u8);
    bad_heap[4 * BS + flip_off] ^= 1 << flip_bit;
    let good_index = std::fs::read(&index).unwrap();
    let mut bad_index = good_index.clone();
    bad_index[BS + 3000..BS + 3010].fill(0xEE);
    let damaged_heap = work(&heap_name);
    let damaged_index = work(&index_name);
    std::fs::write(&damaged_heap, &bad_heap).unwrap();
    std::fs::write(&damaged_index, &bad_index).unwrap();
    write_over(&heap, &bad_heap);
    write_over(&index, &bad_index);
    let before = pg_checksums(&c);
    assert_eq!(
        before.status.code(),
        Some(1),
        "pg_checksums finds the damage"
    );
    let said = String::from_utf8_lossy(&before.stderr).into_owned();
    assert!(
        said.contains("block 2") && said.contains("block 4"),
        "{said}"
    );

    // Without a source: what the server's tools would do, the tuples named.
    let out = repair(&["--json", "--block", "4", damaged_heap.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["status"], "mismatch");
    assert!(v["tuples"].as_array().unwrap().len() > 10);
    assert!(v["surgery_sql"]
        .as_str()
        .unwrap()
        .contains("heap_force_kill"));
    assert!(v["zero_damaged_pages"].as_str().unwrap().contains("lost"));

    // In place in the data directory, the table is named from its catalogs.
    let out = repair(&["--json", "--block", "4", heap.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["table"], "public.t");
    assert!(v["surgery_sql"]
        .as_str()
        .unwrap()
        .contains("heap_force_kill('public.t'::regclass"));

    // Block 2 from the backup, then block 4 by flipping the bit back, each into a new file.
    let step1 = work("step1");
    let out = repair(&[
        "--block",
        "2",
        "--from",
        heap_backup.to_str().unwrap(),
        "--out",
        step1.to_str().unwrap(),
        damaged_heap.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let flip = format!("{flip_off}:{flip_bit}");
    let step2 = work("step2");
    let out = repair(&[
        "--json",
        "--block",
        "4",
        "--flip",
        &flip,
        "--out",
        step2.to_str().unwrap(),
        step1.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["flip_was_candidate"], true);
    // Silent when it is the only candidate; else the reminder of the others.
    let said = stderr(&out);
    assert!(
        said.is_empty()
            || said.contains("single-bit flips that make the stored checksum valid, ranked"),
        "{said}"
    );
    // Index block 1 from a page file, as pg_waldump --save-fullpage writes one.
    let page_file = work("page1");
    std::fs::write(&page_file, &good_index[BS..2 * BS]).unwrap();
    let index_out = work("index_repaired");
    let out = repair(&[
        "--block",
        "1",
        "--page",
        page_file.to_str().unwrap(),
        "--out",
        index_out.to_str().unwrap(),
        damaged_index.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The inputs were only read.
    assert_eq!(std::fs::read(&damaged_heap).unwrap(), bad_heap);
    assert_eq!(std::fs::read(&damaged_index).unwrap(), bad_index);

    write_over(&heap, &std::fs::read(&step2).unwrap());
    write_over(&index, &std::fs::read(&index_out).unwrap());
    let after = pg_checksums(&c);
    assert!(
        after.status.success(),
        "pg_checksums --check on the repaired files: {}{}",
        String::from_utf8_lossy(&after.stdout),
        stderr(&after)
    );
    let _server = Started::new(&c);
    assert_eq!(
        c.psql(&["select count(*) from verify_heapam('t')"]).trim(),
        "0"
    );
    c.psql(&["select bt_index_check('t_pkey', true)"]);
    assert_eq!(c.psql(&["select count(*), sum(length(v)) from t"]), rows);
}

#[test]
fn refusals_are_named_and_the_input_is_never_written() {
    let tmp = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let page = std::fs::read(fixtures.join("heap_hot_redirect/page.bin")).unwrap();
    let mut file = page.clone();
    file.extend_from_slice(&page);
    let input = tmp.path().join("16400");
    std::fs::write(&input, &file).unwrap();
    let other = tmp.path().join("16401");
    std::fs::write(&other, &file).unwrap();
    let exists = tmp.path().join("exists");
    std::fs::write(&exists, b"keep").unwrap();
    let short_page = tmp.path().join("short");
    std::fs::write(&short_page, &page[..4096]).unwrap();
    let new = |n: &str| -> PathBuf { tmp.path().join(n) };
    let i = input.to_str().unwrap();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["--block", "0", "--flip", "100:1", "--out", i, i]
                .into_iter()
                .map(String::from)
                .collect(),
            "is an input file",
        ),
        (
            vec![
                "--block",
                "0",
                "--flip",
                "100:1",
                "--out",
                exists.to_str().unwrap(),
                i,
            ]
            .into_iter()
            .map(String::from)
            .collect(),
            "exists",
        ),
        (
            vec![
                "--block",
                "2",
                "--flip",
                "100:1",
                "--out",
                new("a").to_str().unwrap(),
                i,
            ]
            .into_iter()
            .map(String::from)
            .collect(),
            "block 2 out of range",
        ),
        (
            vec![
                "--block",
                "0",
                "--from",
                other.to_str().unwrap(),
                "--out",
                new("b").to_str().unwrap(),
                i,
            ]
            .into_iter()
            .map(String::from)
            .collect(),
            "files of different relations",
        ),
        (
            vec![
                "--block",
                "0",
                "--page",
                short_page.to_str().unwrap(),
                "--out",
                new("c").to_str().unwrap(),
                i,
            ]
            .into_iter()
            .map(String::from)
            .collect(),
            "not one 8192-byte page",
        ),
        (
            vec![
                "--block",
                "0",
                "--flip",
                "9000:1",
                "--out",
                new("d").to_str().unwrap(),
                i,
            ]
            .into_iter()
            .map(String::from)
            .collect(),
            "not on the page",
        ),
        (
            vec![
                "--block",
                "0",
                "--flip",
                "100:9",
                "--out",
                new("e").to_str().unwrap(),
                i,
            ]
            .into_iter()
            .map(String::from)
            .collect(),
            "BYTE_OFFSET:BIT",
        ),
        (
            vec!["--block", "0", "--flip", "100:1", i]
                .into_iter()
                .map(String::from)
                .collect(),
            "--out NEW is required",
        ),
        (
            vec![
                "--block",
                "0",
                "--flip",
                "1:1",
                "--from",
                other.to_str().unwrap(),
                "--out",
                new("f").to_str().unwrap(),
                i,
            ]
            .into_iter()
            .map(String::from)
            .collect(),
            "cannot be used with",
        ),
    ];
    for (args, words) in cases {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = repair(&a);
        assert_eq!(out.status.code(), Some(2), "{a:?}: {}", stderr(&out));
        let e = stderr(&out);
        assert!(
            e.starts_with("pgpage: error: ") && e.contains(words),
            "{a:?}: {e}"
        );
        assert_eq!(e.lines().count(), 1, "{e}");
    }
    // A header the server refuses even with a fresh checksum: refused, nothing written.
    let mut broken = page.clone();
    broken[12..14].copy_from_slice(&9000u16.to_le_bytes());
    let broken_path = tmp.path().join("broken");
    std::fs::write(&broken_path, &broken).unwrap();
    let out = repair(&[
        "--block",
        "0",
        "--page",
        broken_path.to_str().unwrap(),
        "--out",
        new("g").to_str().unwrap(),
        i,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("would still refuse"),
        "{}",
        stderr(&out)
    );
    assert!(!new("g").exists());
    assert_eq!(std::fs::read(&input).unwrap(), file);
    assert_eq!(std::fs::read(&exists).unwrap(), b"keep");
}

/// The checksum is computed for the block's relation-wide number: block 0 of segment file
/// `.1` is relation block 131072 (8 kB pages), as verify (held against pg_checksums) reads it.
#[test]
fn the_checksum_is_for_the_relation_wide_block() {
    let tmp = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let page = std::fs::read(fixtures.join("heap_nulls_frozen/page.bin")).unwrap();
    let mut damaged = page.clone();
    damaged[5000] ^= 0x40;
    let input = tmp.path().join("16500.1");
    std::fs::write(&input, &damaged).unwrap();
    let page_file = tmp.path().join("good");
    std::fs::write(&page_file, &page).unwrap();
    let out_dir = tmp.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let new = out_dir.join("16500.1");
    let out = repair(&[
        "--json",
        "--block",
        "0",
        "--page",
        page_file.to_str().unwrap(),
        "--out",
        new.to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json(&out)["absolute_block"], 131_072);
    let v = pgpage(&["verify", "--json", "--all", new.to_str().unwrap()]);
    let j = json(&v);
    assert_eq!(j["files"][0]["pages"][0]["absolute_block"], 131_072);
    assert_eq!(j["files"][0]["pages"][0]["status"], "ok", "{j}");
    let as_segment_0 = pgpage(&["verify", "--json", "--segment", "0", new.to_str().unwrap()]);
    assert_eq!(
        json(&as_segment_0)["files"][0]["pages"][0]["status"],
        "mismatch"
    );
}

/// Several blocks from one good copy go into one NEW (as the report's backup step prints them,
/// one command per file): NEW equals the good copy wherever the damage was, and FILE
/// elsewhere. A flip, a page file or a block named twice take one block: refused, and no NEW.
#[test]
fn several_blocks_from_one_good_copy() {
    let mut c = Cluster::start(16);
    c.psql(&[
        "create table t (id int, note text)",
        "insert into t select g, repeat('x', 200) from generate_series(1, 200) g",
        "checkpoint",
    ]);
    let rel = c
        .psql(&["select pg_relation_filepath('t')"])
        .trim()
        .to_owned();
    c.stop();
    let file = c.data.join(&rel);
    let good = std::fs::read(&file).unwrap();
    assert!(good.len() >= 5 * BS, "{} bytes", good.len());
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("good");
    std::fs::write(&copy, &good).unwrap();
    let mut damaged = good.clone();
    for b in [1usize, 3] {
        damaged[b * BS + 4000] ^= 0x10;
        damaged[b * BS + 6000] ^= 0x01;
    }
    let input = tmp.path().join("16400");
    std::fs::write(&input, &damaged).unwrap();
    let new = tmp.path().join("new");
    let out = repair(&[
        "--block",
        "1",
        "--block",
        "3",
        "--from",
        copy.to_str().unwrap(),
        "--out",
        new.to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        std::fs::read(&new).unwrap() == good,
        "NEW is not the good copy"
    );
    assert!(
        std::fs::read(&input).unwrap() == damaged,
        "FILE was written"
    );

    for args in [
        vec!["--block", "1", "--block", "3", "--flip", "4000:4"],
        vec![
            "--block",
            "1",
            "--block",
            "1",
            "--from",
            copy.to_str().unwrap(),
        ],
    ] {
        let refused = tmp.path().join("refused");
        let mut all = args.clone();
        all.extend(["--out", refused.to_str().unwrap(), input.to_str().unwrap()]);
        let out = repair(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).starts_with("pgpage: error: "),
            "{}",
            stderr(&out)
        );
        assert!(!refused.exists(), "{args:?} left a NEW");
    }
}
