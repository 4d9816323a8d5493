//! The bad-input matrix (issue 5): every kind of input a forensic tool is fed gets the
//! promised exit status and one-line reasons, never a panic; `--json` stays valid JSON; the
//! other files of the same run are still verified; and no input is modified.
// Tests index fixed-size test pages and panic on failure; that is their job.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::panic
)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::SystemTime;

use pgpage::checksum::pg_checksum_page;
use pgpage::Endian;
use serde_json::Value;

const BLCKSZ: usize = 8192;

fn put(p: &mut [u8], off: usize, v: u16) {
    p[off..off + 2].copy_from_slice(&v.to_le_bytes());
}

/// A sane heap page with one tuple, sealed for `blkno`.
fn sealed_page(blkno: u32, edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut p = vec![0u8; BLCKSZ];
    put(&mut p, 12, 28);
    put(&mut p, 14, 8192 - 64);
    put(&mut p, 16, 8192);
    put(&mut p, 18, 8192 | 4);
    // lp 1: lp_off 8128, lp_flags NORMAL, lp_len 64
    p[24..28].copy_from_slice(&(8128u32 | (1 << 15) | (64 << 17)).to_le_bytes());
    for (i, b) in p[8128..].iter_mut().enumerate() {
        *b = i as u8;
    }
    edit(&mut p);
    let c = pg_checksum_page(&p, blkno, Endian::Little);
    put(&mut p, 8, c);
    p
}

fn pseudo_random(n: usize, mut x: u64) -> Vec<u8> {
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

fn pgpage(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pgpage"))
        .args(args)
        .output()
        .expect("run pgpage")
}

/// Exit status and stderr that a user can read: one line per reason, no panic.
fn checked(out: &Output, what: &str) -> i32 {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{what}: panic: {err}");
    for line in err.lines() {
        assert!(
            line.starts_with("pgpage"),
            "{what}: stray stderr line {line:?}"
        );
    }
    out.status
        .code()
        .unwrap_or_else(|| panic!("{what}: killed by a signal"))
}

fn snapshot(path: &Path) -> Option<(Vec<u8>, SystemTime)> {
    let meta = fs::metadata(path).ok()?;
    Some((fs::read(path).ok()?, meta.modified().ok()?))
}

struct Case {
    name: &'static str,
    bytes: Vec<u8>,
    verify_exit: i32,
    inspect_exit: i32,
}

fn cases() -> Vec<Case> {
    let page = |b| sealed_page(b, |_| {});
    let mut claims_16k = vec![page(0), sealed_page(1, |p| put(p, 18, 16384 | 4)), page(2)];
    let lower_past_upper = sealed_page(0, |p| {
        put(p, 12, 8000); // pd_lower past pd_upper: line pointers run off the end
        put(p, 14, 100);
    });
    vec![
        Case {
            name: "empty",
            bytes: vec![],
            verify_exit: 0,
            inspect_exit: 2,
        },
        Case {
            name: "one_byte",
            bytes: vec![7],
            verify_exit: 1,
            inspect_exit: 2,
        },
        Case {
            name: "half_page",
            bytes: pseudo_random(4096, 1),
            verify_exit: 1,
            inspect_exit: 2,
        },
        Case {
            name: "text_file",
            bytes: b"not a relation file\n".to_vec(),
            verify_exit: 1,
            inspect_exit: 2,
        },
        Case {
            name: "random_pages",
            bytes: pseudo_random(3 * BLCKSZ, 2),
            verify_exit: 1,
            inspect_exit: 1,
        },
        Case {
            name: "all_ff",
            bytes: vec![0xFF; 2 * BLCKSZ],
            verify_exit: 1,
            inspect_exit: 1,
        },
        Case {
            name: "claims_16k",
            bytes: claims_16k.concat(),
            verify_exit: 0,
            inspect_exit: 0,
        },
        Case {
            name: "lower_past_upper",
            bytes: lower_past_upper,
            verify_exit: 1,
            inspect_exit: 1,
        },
        Case {
            name: "page_and_a_half",
            bytes: {
                claims_16k.truncate(1);
                let mut b = claims_16k.concat();
                b.extend(pseudo_random(BLCKSZ / 2, 3));
                b
            },
            verify_exit: 1,
            inspect_exit: 0,
        },
    ]
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pgpage-bad-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn every_bad_input_gets_its_exit_status_valid_json_and_stays_untouched() {
    let d = dir("matrix");
    for (i, case) in cases().into_iter().enumerate() {
        let path = d.join(format!("{}", 17000 + i));
        fs::write(&path, &case.bytes).unwrap();
        let before = snapshot(&path).unwrap();
        let p = path.to_str().unwrap();

        let human = pgpage(&["verify", p]);
        assert_eq!(
            checked(&human, case.name),
            case.verify_exit,
            "verify {}",
            case.name
        );
        let json = pgpage(&["verify", "--json", "--all", p]);
        assert_eq!(
            checked(&json, case.name),
            case.verify_exit,
            "verify --json {}",
            case.name
        );
        let v: Value = serde_json::from_slice(&json.stdout)
            .unwrap_or_else(|e| panic!("{}: invalid JSON: {e}", case.name));
        let file = &v["files"][0];
        let blocks = (case.bytes.len() / BLCKSZ) as u64;
        assert_eq!(file["blocks"].as_u64(), Some(blocks), "{}", case.name);
        assert_eq!(
            file["trailing_bytes"].as_u64(),
            Some((case.bytes.len() % BLCKSZ) as u64),
            "{}",
            case.name
        );
        assert_eq!(
            file["pages"].as_array().map(Vec::len),
            Some(blocks as usize),
            "{}",
            case.name
        );

        let inspect = pgpage(&["inspect", "--json", p]);
        assert_eq!(
            checked(&inspect, case.name),
            case.inspect_exit,
            "inspect {}",
            case.name
        );
        if case.inspect_exit != 2 {
            let v: Value = serde_json::from_slice(&inspect.stdout)
                .unwrap_or_else(|e| panic!("{}: invalid inspect JSON: {e}", case.name));
            assert_eq!(
                v["blocks"].as_array().map(Vec::len),
                Some(blocks as usize),
                "{}",
                case.name
            );
        } else {
            assert_eq!(
                String::from_utf8_lossy(&inspect.stderr).lines().count(),
                1,
                "{}",
                case.name
            );
        }
        assert_eq!(
            snapshot(&path).unwrap(),
            before,
            "{} was modified",
            case.name
        );
    }
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_page_claiming_another_size_is_read_as_the_server_reads_it() {
    // PageIsVerified does not look at pd_pagesize_version: one page claiming 16 KB among
    // 8 KB pages is an ok page to the server, and the file stays 8 KB pages.
    let d = dir("claims");
    let path = d.join("17100");
    let pages = [
        sealed_page(0, |_| {}),
        sealed_page(1, |p| put(p, 18, 16384 | 4)),
        sealed_page(2, |_| {}),
    ];
    fs::write(&path, pages.concat()).unwrap();
    let out = pgpage(&["verify", "--json", "--all", path.to_str().unwrap()]);
    assert_eq!(checked(&out, "claims_16k"), 0);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["files"][0]["block_size"].as_u64(), Some(8192));
    let statuses: Vec<&str> = v["files"][0]["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["ok", "ok", "ok"]);
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn bad_files_do_not_stop_the_good_ones() {
    let d = dir("mixed");
    let good = d.join("17200");
    fs::write(
        &good,
        [sealed_page(0, |_| {}), sealed_page(1, |_| {})].concat(),
    )
    .unwrap();
    let text = d.join("notes.txt");
    fs::write(&text, "hello").unwrap();
    let missing = d.join("17201");
    let args = [
        "verify",
        "--json",
        missing.to_str().unwrap(),
        text.to_str().unwrap(),
        good.to_str().unwrap(),
    ];
    let out = pgpage(&args);
    assert_eq!(
        checked(&out, "mixed"),
        2,
        "a path that cannot be read means exit 2"
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let good_entry = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"].as_str() == good.to_str())
        .expect("the good file is still verified");
    assert_eq!(good_entry["blocks"].as_u64(), Some(2));
    assert_eq!(good_entry["pages"].as_array().map(Vec::len), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("17201"), "the missing path is named: {err}");

    let empty_dir = dir("empty");
    fs::write(empty_dir.join("README"), "no relation files here").unwrap();
    let out = pgpage(&["verify", empty_dir.to_str().unwrap()]);
    assert_eq!(checked(&out, "no relation files"), 2);
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);

    let out = pgpage(&["verify", "--no-such-flag", good.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let out = pgpage(&["inspect", "--block", "5", good.to_str().unwrap()]);
    assert_eq!(checked(&out, "block out of range"), 2);
    fs::remove_dir_all(&d).unwrap();
    fs::remove_dir_all(&empty_dir).unwrap();
}
