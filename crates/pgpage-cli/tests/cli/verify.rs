//! `pgpage verify` end to end: pages built and sealed with the core, written to temporary
//! files and data directories, checked through the binary's exit status, JSON and lines.
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use pgpage::page::checksum::pg_checksum_page;
use pgpage::Endian;
use serde_json::Value;

use crate::common::{json, pgpage};

const BLCKSZ: usize = 8192;

/// A plausible heap page of `size` bytes: some line pointers and tuple bytes, sealed with the
/// checksum for relation-wide block `blkno`.
fn page(size: usize, blkno: u32, seed: u8, endian: Endian) -> Vec<u8> {
    let put = |p: &mut Vec<u8>, off: usize, v: u16| {
        let b = match endian {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        };
        p[off..off + 2].copy_from_slice(&b);
    };
    let mut p = vec![0u8; size];
    let upper = size - 256;
    put(&mut p, 12, 24 + 4 * 4); // pd_lower
    put(&mut p, 14, upper as u16); // pd_upper
    put(&mut p, 16, size as u16); // pd_special
    put(&mut p, 18, size as u16 | 4); // pd_pagesize_version
    for (i, b) in p[upper..].iter_mut().enumerate() {
        *b = seed.wrapping_mul(31).wrapping_add(i as u8);
    }
    seal(&mut p, blkno, endian);
    p
}

fn seal(p: &mut [u8], blkno: u32, endian: Endian) {
    let c = pg_checksum_page(p, blkno, endian);
    let b = match endian {
        Endian::Little => c.to_le_bytes(),
        Endian::Big => c.to_be_bytes(),
    };
    p[8..10].copy_from_slice(&b);
}

fn stored(p: &[u8]) -> u16 {
    u16::from_le_bytes([p[8], p[9]])
}

/// A clean main-fork file of `blocks` 8 KB pages for segment `segno`.
fn clean_file(blocks: u32, segno: u32) -> Vec<Vec<u8>> {
    (0..blocks)
        .map(|b| page(BLCKSZ, segno * 131_072 + b, b as u8, Endian::Little))
        .collect()
}

fn write(path: &Path, pages: &[Vec<u8>]) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, pages.concat()).unwrap();
}

fn stderr_lines(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .map(str::to_owned)
        .collect()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

#[test]
fn clean_file_exits_0_with_the_contract_json() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("16385");
    write(&path, &clean_file(5, 0));
    let p = path.to_str().unwrap();

    let out = pgpage(&["verify", "--json", p]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let v = json(&out);
    assert_eq!(keys(&v), ["files", "summary"]);
    let f = &v["files"][0];
    assert_eq!(
        keys(f),
        [
            "block_size",
            "blocks",
            "endian",
            "fork",
            "pages",
            "path",
            "segment",
            "trailing_bytes"
        ]
    );
    assert_eq!(f["path"], p);
    assert_eq!(
        (f["segment"].as_u64(), f["fork"].as_str()),
        (Some(0), Some("main"))
    );
    assert_eq!(
        (f["block_size"].as_u64(), f["blocks"].as_u64()),
        (Some(8192), Some(5))
    );
    assert_eq!(f["trailing_bytes"], 0);
    assert_eq!(f["pages"].as_array().unwrap().len(), 0);
    let s = &v["summary"];
    assert_eq!(
        keys(s),
        [
            "bad_header",
            "blocks",
            "files",
            "mismatch",
            "new_not_zero",
            "ok",
            "zero"
        ]
    );
    assert_eq!(
        (s["files"].as_u64(), s["blocks"].as_u64(), s["ok"].as_u64()),
        (Some(1), Some(5), Some(5))
    );

    let out = pgpage(&["verify", p]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out),
        "Checksum operation completed\nFiles scanned:   1\nBlocks scanned:  5\nBad checksums:  0\n"
    );
    assert!(out.stderr.is_empty(), "{out:?}");
}

/// A page copied over another one, whose bytes name no block (no tuples, no sibling links):
/// its checksum is valid where it was copied from, but a 16-bit match is what chance gives
/// one block in 65,535, so it is a candidate with its odds, never `matches_block`.
#[test]
fn mismatches_print_pg_checksums_lines_and_a_bare_match_only_as_a_candidate() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("16385.2");
    let mut pages = clean_file(6, 2);
    // Block 1 carries the page written for block 4: a misplaced page.
    pages[1] = pages[4].clone();
    // Block 3 has a flipped bit in its tuple data.
    pages[3][8000] ^= 0x10;
    write(&path, &pages);
    let p = path.to_str().unwrap();
    let abs = |b: u32| 2 * 131_072 + b;

    let out = pgpage(&["verify", "--json", p]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    let f = &v["files"][0];
    assert_eq!(f["segment"], 2);
    let listed = f["pages"].as_array().unwrap();
    assert_eq!(listed.len(), 2);
    let one = &listed[0];
    assert_eq!(
        keys(one),
        [
            "absolute_block",
            "block",
            "candidate",
            "computed",
            "findings",
            "status",
            "stored"
        ]
    );
    assert_eq!(one["block"], 1);
    assert_eq!(one["absolute_block"], abs(1));
    assert_eq!(one["status"], "mismatch");
    assert_eq!(one["stored"], stored(&pages[1]));
    assert_eq!(
        one["computed"],
        pg_checksum_page(&pages[1], abs(1), Endian::Little)
    );
    assert!(one.get("matches_block").is_none(), "{one}");
    let c = &one["candidate"];
    assert_eq!(
        (c["block"].as_u64(), c["searched"].as_u64()),
        (Some(4), Some(6))
    );
    assert!(c["matches"].as_u64().unwrap() >= 1);
    // 6 blocks searched of 65,535 checksum values.
    let expected = c["expected_chance_matches"].as_f64().unwrap();
    assert!((expected - 6.0 / 65535.0).abs() < 1e-12, "{c}");
    assert_eq!(
        one["findings"],
        serde_json::json!(["checksum_mismatch", "checksum_matches_other_block"])
    );
    let three = &listed[1];
    assert_eq!(three["block"], 3);
    assert_eq!(
        three["computed"],
        pg_checksum_page(&pages[3], abs(3), Endian::Little)
    );
    assert!(three.get("matches_block").is_none(), "{three}");
    if let Some(m) = three["candidate"]["block"].as_u64() {
        // Only when the damaged page's checksum happens to fit another block of the file.
        assert_eq!(
            pg_checksum_page(&pages[3], abs(m as u32), Endian::Little),
            stored(&pages[3])
        );
    }
    assert_eq!(v["summary"]["mismatch"], 2);
    assert_eq!(v["summary"]["ok"], 4);

    let out = pgpage(&["verify", p]);
    assert_eq!(out.status.code(), Some(1));
    let errors: Vec<String> = stderr_lines(&out)
        .into_iter()
        .filter(|l| l.contains(": error: "))
        .collect();
    let expect = |b: usize| {
        format!(
            "pgpage: error: checksum verification failed in file \"{p}\", block {b}: \
             calculated checksum {:X} but block contains {:X}",
            pg_checksum_page(&pages[b], abs(b as u32), Endian::Little),
            stored(&pages[b])
        )
    };
    assert_eq!(errors, [expect(1), expect(3)]);
    // In a file this small, the bare match is worth a hint, with its odds and never as a
    // claim.
    let hint = format!(
        "pgpage: hint: file \"{p}\", block 1: the stored checksum is also valid for block 4 \
         of this file, which chance explains at the stated odds (0.0001 chance matches \
         expected in the 6 blocks searched)"
    );
    assert!(
        stderr_lines(&out).contains(&hint),
        "{:#?}",
        stderr_lines(&out)
    );
    assert!(stdout(&out).contains("Bad checksums:  2\n"));
}

#[test]
fn every_status_and_all_pages() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("16390_fsm.1");
    let abs = |b: u32| 131_072 + b;
    let mut pages: Vec<Vec<u8>> = (0..4)
        .map(|b| page(BLCKSZ, abs(b), b as u8, Endian::Little))
        .collect();
    pages[1] = vec![0u8; BLCKSZ]; // zero: fine
    pages[2][14..16].copy_from_slice(&0u16.to_le_bytes()); // pd_upper zeroed: new_not_zero
    pages[3][12..14].copy_from_slice(&8100u16.to_le_bytes()); // pd_lower > pd_upper
    seal(&mut pages[3], abs(3), Endian::Little); // ... with a valid checksum: bad_header
    write(&path, &pages);
    let p = path.to_str().unwrap();

    let out = pgpage(&["verify", "--json", p]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    assert_eq!(v["files"][0]["fork"], "fsm");
    assert_eq!(v["files"][0]["segment"], 1);
    let listed = v["files"][0]["pages"].as_array().unwrap();
    let statuses: Vec<&str> = listed
        .iter()
        .map(|p| p["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["new_not_zero", "bad_header"]);
    assert!(listed[0]["computed"].is_null());
    assert!(listed[0].get("matches_block").is_none());
    assert_eq!(listed[1]["computed"], listed[1]["stored"]);
    let s = &v["summary"];
    assert_eq!(
        [
            &s["ok"],
            &s["mismatch"],
            &s["zero"],
            &s["new_not_zero"],
            &s["bad_header"],
            &s["blocks"]
        ],
        [1, 0, 1, 1, 1, 4]
    );

    let all = json(&pgpage(&["verify", "--json", "--all", p]));
    let listed = all["files"][0]["pages"].as_array().unwrap();
    let statuses: Vec<&str> = listed
        .iter()
        .map(|p| p["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["ok", "zero", "new_not_zero", "bad_header"]);
    assert!(listed[1]["computed"].is_null());
    assert_eq!(listed[0]["absolute_block"], abs(0));

    let out = pgpage(&["verify", p]);
    let lines = stderr_lines(&out);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with(&format!(
        "pgpage: error: page verification failed in file \"{p}\", block 2: "
    )));
    assert!(lines[0].contains("pd_upper is 0"));
    assert!(lines[1].starts_with(&format!(
        "pgpage: error: page verification failed in file \"{p}\", block 3: "
    )));
    assert!(lines[1].contains("header is invalid"));
    let summary = stdout(&out);
    assert!(summary.contains("Bad checksums:  0\n"));
    assert!(summary.contains("New pages not all zeros:  1\n"));
    assert!(summary.contains("Bad page headers:  1\n"));
}

#[test]
fn trailing_bytes_are_a_problem_and_empty_files_are_not() {
    let dir = tempfile::tempdir().unwrap();
    let torn = dir.path().join("16400");
    let mut bytes = clean_file(2, 0).concat();
    bytes.extend_from_slice(&[7u8; 100]);
    fs::write(&torn, &bytes).unwrap();
    let empty = dir.path().join("16401");
    fs::write(&empty, b"").unwrap();
    let (t, e) = (torn.to_str().unwrap(), empty.to_str().unwrap());

    let out = pgpage(&["verify", "--json", t, e]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    assert_eq!(v["files"][0]["blocks"], 2);
    assert_eq!(v["files"][0]["trailing_bytes"], 100);
    assert_eq!(v["files"][1]["blocks"], 0);
    assert_eq!(v["files"][1]["trailing_bytes"], 0);
    assert_eq!(v["summary"]["files"], 2);

    let out = pgpage(&["verify", t]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr_lines(&out),
        [format!(
            "pgpage: error: could not read block 2 in file \"{t}\": read only 100 of 8192 bytes"
        )]
    );

    let out = pgpage(&["verify", e]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("Blocks scanned:  0\n"));

    // One byte: no page at all, only trailing bytes.
    let one = dir.path().join("16402");
    fs::write(&one, [1u8]).unwrap();
    let v = json(&pgpage(&["verify", "--json", one.to_str().unwrap()]));
    assert_eq!(
        (
            v["files"][0]["blocks"].as_u64(),
            v["files"][0]["trailing_bytes"].as_u64()
        ),
        (Some(0), Some(1))
    );
}

#[test]
fn unreadable_paths_exit_2_but_the_rest_is_verified() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("16385");
    let mut pages = clean_file(3, 0);
    pages[2][5000] ^= 1;
    write(&good, &pages);
    let missing = dir.path().join("99999");
    let (g, m) = (good.to_str().unwrap(), missing.to_str().unwrap());

    let out = pgpage(&["verify", "--json", m, g]);
    assert_eq!(out.status.code(), Some(2));
    let v = json(&out);
    assert_eq!(v["files"].as_array().unwrap().len(), 1);
    assert_eq!(v["files"][0]["path"], g);
    assert_eq!(v["summary"]["mismatch"], 1);
    let lines = stderr_lines(&out);
    assert_eq!(lines.len(), 1);
    assert!(
        lines[0].starts_with(&format!("pgpage: error: could not open \"{m}\": ")),
        "{lines:?}"
    );

    let out = pgpage(&["verify", g, m]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr_lines(&out).len(), 2);
    assert!(stdout(&out).contains("Bad checksums:  1\n"));
}

/// A relation file its user may not read (mode 000): named with the system's reason, exit 2,
/// and the readable files beside it still verified, whether named alone or met in a walk.
/// Root reads every file, so under root the binary runs as nobody (65534).
#[test]
fn a_file_without_read_permission_exits_2_and_the_rest_is_verified() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let mode = |p: &Path, m: u32| fs::set_permissions(p, fs::Permissions::from_mode(m)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    mode(dir.path(), 0o755);
    // A copy of the binary that the other user can run wherever the checkout lives.
    let bin = dir.path().join("pgpage");
    fs::copy(env!("CARGO_BIN_EXE_pgpage"), &bin).unwrap();
    mode(&bin, 0o755);
    let db = dir.path().join("base").join("5");
    let (good, locked) = (db.join("16385"), db.join("16386"));
    let mut pages = clean_file(3, 0);
    pages[1][6000] ^= 4;
    write(&good, &pages);
    write(&locked, &clean_file(2, 0));
    for d in [dir.path().join("base"), db.clone()] {
        mode(&d, 0o755);
    }
    mode(&good, 0o644);
    mode(&locked, 0o000);
    let run = |args: &[&str]| {
        let mut c = Command::new(&bin);
        c.args(args);
        // SAFETY: geteuid has no preconditions and cannot fail.
        if unsafe { libc::geteuid() } == 0 {
            c.uid(65534).gid(65534);
        }
        // Another test's thread may fork while fs::copy above still has the copy open for
        // writing; until that child execs, running the copy fails with "Text file busy".
        for _ in 0..100 {
            match c.output() {
                Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                    std::thread::sleep(std::time::Duration::from_millis(20))
                }
                r => return r.unwrap(),
            }
        }
        panic!("{} stayed busy", bin.display())
    };
    let (g, l) = (good.to_str().unwrap(), locked.to_str().unwrap());
    let reason = format!("pgpage: error: could not open file \"{l}\": Permission denied");

    let out = run(&["verify", "--json", l, g]);
    assert_eq!(out.status.code(), Some(2), "{:?}", stderr_lines(&out));
    assert_eq!(stderr_lines(&out), [reason.as_str()]);
    let v = json(&out);
    assert_eq!(v["files"].as_array().unwrap().len(), 1);
    assert_eq!(v["files"][0]["path"], g);
    assert_eq!(
        (
            v["summary"]["ok"].as_u64(),
            v["summary"]["mismatch"].as_u64()
        ),
        (Some(2), Some(1))
    );

    let out = run(&["verify", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_lines(&out).contains(&reason),
        "{:?}",
        stderr_lines(&out)
    );
    let text = stdout(&out);
    assert!(text.contains("Files scanned:   1\n"), "{text}");
    assert!(text.contains("Blocks scanned:  3\n"), "{text}");
    assert!(text.contains("Bad checksums:  1\n"), "{text}");

    let out = run(&["inspect", l]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr_lines(&out),
        [format!(
            "pgpage: error: could not open file \"{l}\": Permission denied"
        )]
    );
    // The tests' own user still reads it: the refusal was the mode, and nothing changed it.
    mode(&locked, 0o644);
    assert_eq!(fs::read(&locked).unwrap(), clean_file(2, 0).concat());
}

#[test]
fn nothing_to_verify_and_usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("notes.txt"), "hello").unwrap();
    fs::write(dir.path().join("pg_control"), [0u8; 8192]).unwrap();
    let d = dir.path().to_str().unwrap();

    let out = pgpage(&["verify", d]);
    assert_eq!(out.status.code(), Some(2));
    let lines = stderr_lines(&out);
    assert_eq!(lines.len(), 1);
    assert!(lines[0].contains("nothing to verify"), "{lines:?}");

    let out = pgpage(&["verify", "--json", d]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(json(&out)["summary"]["files"], 0);

    for args in [
        &["verify", "--frobnicate", d][..],
        &["verify"],
        &["verify", "--block-size", "3000", d],
        &["verify", "--endian", "middle", d],
        &["verify", "--segment", "-1", d],
        &["frobnicate"],
        &["inspect", "--kind", "table", d],
        &["inspect", "--endian", "middle", d],
    ] {
        let out = pgpage(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        // docs/contracts.md, "Exit status": a one-line reason.
        let lines = stderr_lines(&out);
        assert_eq!(lines.len(), 1, "{args:?}: {lines:#?}");
        assert!(lines[0].starts_with("pgpage: error: "), "{lines:?}");
    }
    // A bare `pgpage` asks for the help.
    let out = pgpage(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Usage: pgpage <COMMAND>"));
}

#[test]
fn data_directory_is_walked_like_pg_checksums() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let d = data.to_str().unwrap();
    fs::create_dir_all(data.join("base/5/pgsql_tmp")).unwrap();
    fs::write(data.join("PG_VERSION"), "15\n").unwrap();
    write(&data.join("global/1262"), &clean_file(1, 0));
    for skipped in [
        "global/pg_control",
        "global/pg_filenode.map",
        "base/5/pg_internal.init",
        "base/5/PG_VERSION",
    ] {
        fs::write(data.join(skipped), [0xAAu8; 8192]).unwrap();
    }
    // Temporary files and names that are not relation files are skipped.
    for skipped in [
        "base/5/pgsql_tmp/pgsql_tmp12.0",
        "base/5/t3_16500",
        "base/5/16385.0",
        "base/5/junk",
        "base/5/16385_main",
    ] {
        fs::write(data.join(skipped), [0xAAu8; 8192]).unwrap();
    }
    let mut pages = clean_file(2, 0);
    pages[1][100] ^= 4;
    write(&data.join("base/5/16385"), &pages);
    write(&data.join("base/5/16385.1"), &clean_file(1, 1));
    write(&data.join("base/5/16385_vm"), &clean_file(1, 0));
    // A tablespace: pg_tblspc/<oid> links to a location holding PG_15_<catversion>/<db>/.
    let location = dir.path().join("ts");
    write(&location.join("PG_15_202209061/5/16600"), &clean_file(2, 0));
    write(
        &location.join("PG_14_202107181/5/16700"),
        &[vec![0x55u8; 8192]],
    );
    fs::create_dir_all(data.join("pg_tblspc")).unwrap();
    std::os::unix::fs::symlink(&location, data.join("pg_tblspc/16599")).unwrap();

    let out = pgpage(&["verify", "--json", d]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let v = json(&out);
    let paths: Vec<&str> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            format!("{d}/global/1262"),
            format!("{d}/base/5/16385"),
            format!("{d}/base/5/16385.1"),
            format!("{d}/base/5/16385_vm"),
            format!("{d}/pg_tblspc/16599/PG_15_202209061/5/16600"),
        ]
    );
    assert_eq!(v["files"][2]["segment"], 1);
    assert_eq!(v["files"][3]["fork"], "vm");
    assert_eq!(v["summary"]["blocks"], 7);
    assert_eq!(v["summary"]["mismatch"], 1);

    // The directory as given, then "/base/...", as pg_checksums builds its paths.
    let slashed = format!("{d}/");
    let out = pgpage(&["verify", &slashed]);
    let lines = stderr_lines(&out);
    assert_eq!(lines.len(), 2, "{lines:?}");
    // The garbage pg_control is said, and each file's pages decide instead.
    assert!(
        lines[0].starts_with(&format!(
            "pgpage: warning: \"{d}//global/pg_control\": unknown pg_control version"
        )),
        "{lines:?}"
    );
    assert!(lines[1].starts_with(&format!(
        "pgpage: error: checksum verification failed in file \"{d}//base/5/16385\", block 1: "
    )));
    assert!(stdout(&out).contains("Files scanned:   5\nBlocks scanned:  7\nBad checksums:  1\n"));

    // A running server's directory is read, with a warning: pages may be torn mid-write.
    fs::write(data.join("postmaster.pid"), "4242\n").unwrap();
    let out = pgpage(&["verify", d]);
    assert_eq!(out.status.code(), Some(1));
    let lines = stderr_lines(&out);
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines[1].starts_with(&format!("pgpage: warning: \"{d}/postmaster.pid\" exists")));
}

#[test]
fn segment_block_size_and_endian_options() {
    let dir = tempfile::tempdir().unwrap();
    // Pages of segment 3 in a file whose name says segment 0.
    let path = dir.path().join("16385");
    write(&path, &clean_file(2, 3));
    let p = path.to_str().unwrap();
    assert_eq!(pgpage(&["verify", p]).status.code(), Some(1));
    let out = pgpage(&["verify", "--json", "--segment", "3", p]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(json(&out)["files"][0]["segment"], 3);

    // 4 KB pages: detected from pd_pagesize_version; segments are 262144 blocks long.
    let small = dir.path().join("16386.1");
    write(
        &small,
        &(0..3)
            .map(|b| page(4096, 262_144 + b, 9, Endian::Little))
            .collect::<Vec<_>>(),
    );
    let s = small.to_str().unwrap();
    let out = pgpage(&["verify", "--json", s]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let v = json(&out);
    assert_eq!(
        (
            v["files"][0]["block_size"].as_u64(),
            v["files"][0]["blocks"].as_u64()
        ),
        (Some(4096), Some(3))
    );
    let forced = json(&pgpage(&["verify", "--json", "--block-size", "8192", s]));
    assert_eq!(forced["files"][0]["block_size"], 8192);
    assert_eq!(forced["files"][0]["trailing_bytes"], 4096);

    // Big-endian pages verify only as big-endian.
    let big = dir.path().join("16387");
    write(
        &big,
        &(0..2)
            .map(|b| page(BLCKSZ, b, 3, Endian::Big))
            .collect::<Vec<_>>(),
    );
    let b = big.to_str().unwrap();
    assert_eq!(
        pgpage(&["verify", "--endian", "big", b]).status.code(),
        Some(0)
    );
    assert_eq!(
        pgpage(&["verify", "--endian", "little", "--block-size", "8192", b])
            .status
            .code(),
        Some(1)
    );
}

#[test]
fn large_files_are_verified_in_chunks_in_order() {
    // Larger than several read chunks, with damage near chunk edges.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("16385");
    let mut pages = clean_file(700, 0);
    let damaged = [0usize, 127, 128, 129, 255, 256, 511, 512, 699];
    for &b in &damaged {
        pages[b][7000] ^= 0x80;
    }
    write(&path, &pages);
    let v = json(&pgpage(&["verify", "--json", path.to_str().unwrap()]));
    let blocks: Vec<u64> = v["files"][0]["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["block"].as_u64().unwrap())
        .collect();
    assert_eq!(blocks, damaged.map(|b| b as u64));
    assert_eq!(v["summary"]["ok"], 700 - damaged.len());
    let all = json(&pgpage(&[
        "verify",
        "--json",
        "--all",
        path.to_str().unwrap(),
    ]));
    let blocks: Vec<u64> = all["files"][0]["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["block"].as_u64().unwrap())
        .collect();
    assert_eq!(blocks, (0..700).collect::<Vec<u64>>());
}

#[test]
fn verify_leaves_files_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("16385");
    let mut pages = clean_file(4, 0);
    pages[0][300] ^= 1;
    write(&path, &pages);
    let before = (
        fs::read(&path).unwrap(),
        fs::metadata(&path).unwrap().modified().unwrap(),
    );
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert_eq!(
        pgpage(&["verify", "--all", path.to_str().unwrap()])
            .status
            .code(),
        Some(1)
    );
    let after = (
        fs::read(&path).unwrap(),
        fs::metadata(&path).unwrap().modified().unwrap(),
    );
    assert_eq!(before, after);
}

#[test]
fn a_link_back_up_the_tree_is_walked_once() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("a/b/16385"), &clean_file(2, 0));
    std::os::unix::fs::symlink("..", dir.path().join("a/b/up")).unwrap();
    let out = pgpage(&["verify", "--json", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(json(&out)["summary"]["files"], 1);
}

#[test]
fn progress_only_when_asked_in_pg_checksums_format() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("16385");
    // 3 MiB: 384 pages.
    write(&path, &clean_file(384, 0));
    let p = path.to_str().unwrap();

    let out = pgpage(&["verify", p]);
    assert!(out.stderr.is_empty(), "{out:?}");
    for args in [
        &["verify", "-P", p][..],
        &["verify", "--progress", "--json", p],
    ] {
        let out = pgpage(args);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let lines = stderr_lines(&out);
        // At most one report a second and one at the end; on a pipe, one line each.
        assert!(!lines.is_empty() && lines.len() <= 3, "{lines:?}");
        for line in &lines {
            let (mb, percent) = line
                .strip_suffix("%) computed")
                .and_then(|l| l.split_once(" MB ("))
                .unwrap_or_else(|| panic!("{line:?}"));
            let (done, total) = mb.split_once('/').unwrap();
            assert_eq!(total, "3", "{line:?}");
            assert!(done.parse::<u32>().unwrap() <= 3 && percent.parse::<u32>().unwrap() <= 100);
        }
        assert_eq!(lines.last().unwrap(), "3/3 MB (100%) computed");
    }
    // The JSON on stdout is untouched by it.
    let out = pgpage(&["verify", "-P", "--json", p]);
    assert_eq!(json(&out)["summary"]["ok"], 384);
}

#[test]
fn verbose_names_each_file_read_to_its_end() {
    let dir = tempfile::tempdir().unwrap();
    let (good, torn, empty) = (
        dir.path().join("16385"),
        dir.path().join("16386"),
        dir.path().join("16387"),
    );
    let mut pages = clean_file(3, 0);
    pages[1][5000] ^= 1;
    write(&good, &pages);
    let mut bytes = clean_file(1, 0).concat();
    bytes.extend_from_slice(&[1u8; 10]);
    fs::write(&torn, bytes).unwrap();
    fs::write(&empty, b"").unwrap();
    let (g, t, e) = (
        good.to_str().unwrap(),
        torn.to_str().unwrap(),
        empty.to_str().unwrap(),
    );
    let out = pgpage(&["verify", "-v", g, t, e]);
    assert_eq!(out.status.code(), Some(1));
    let lines = stderr_lines(&out);
    assert_eq!(
        lines[1..],
        [
            format!("pgpage: checksums verified in file \"{g}\""),
            format!(
                "pgpage: error: could not read block 1 in file \"{t}\": read only 10 of 8192 bytes"
            ),
            format!("pgpage: warning: file \"{e}\" is empty"),
            format!("pgpage: checksums verified in file \"{e}\""),
        ],
        "{lines:#?}"
    );
    assert!(lines[0].contains("block 1: calculated checksum"));
}

/// A file named as segment 2 whose pages were all written as segment 0: one sentence for the
/// file, the server's mismatch line for each page, and no per-page guesses.
#[test]
fn a_file_written_as_another_segment_is_named_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("16385.2");
    write(&path, &clean_file(5, 0));
    let p = path.to_str().unwrap();

    let v = json(&pgpage(&["verify", "--json", p]));
    let f = &v["files"][0];
    assert_eq!(
        f["findings"],
        serde_json::json!([{"code": "file_written_as_segment", "segno": 0, "pages": 5,
            "message": "these pages were written as segment 0 of the relation (5 pages verify there)"}])
    );
    let pages = f["pages"].as_array().unwrap();
    assert_eq!(pages.len(), 5);
    for page in pages {
        assert_eq!(page["status"], "mismatch");
        assert_eq!(page["findings"], serde_json::json!(["checksum_mismatch"]));
    }

    let out = pgpage(&["verify", p]);
    assert_eq!(out.status.code(), Some(1));
    let lines = stderr_lines(&out);
    assert_eq!(lines.len(), 6, "{lines:#?}");
    assert_eq!(
        lines[0],
        format!(
            "pgpage: hint: file \"{p}\": these pages were written as segment 0 of the relation \
             (5 pages verify there)"
        )
    );
    assert!(lines[1..]
        .iter()
        .all(|l| l.contains("checksum verification failed")));
}
