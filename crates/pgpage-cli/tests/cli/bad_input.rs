//! The bad-input matrix (docs/cli.md, "Bad input"): every kind of input a forensic tool is fed gets
//! the promised exit status and one-line reasons, never a panic; `--json` stays valid JSON; the
//! other files of the same run are still verified; and no input is modified.
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::SystemTime;

use pgpage::page::checksum::pg_checksum_page;
use pgpage::Endian;
use serde_json::Value;

use crate::common::pgpage;

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
            inspect_exit: 0,
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

/// Runs pgpage, failing the test (and killing pgpage) if it has not ended within 20 s: the
/// inputs below would block a plain open() forever.
fn pgpage_within(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pgpage"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run pgpage");
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > std::time::Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("pgpage {args:?} still running after 20 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn a_fifo_or_a_device_is_refused_at_once_and_the_rest_verified() {
    use std::os::unix::ffi::OsStrExt;
    let d = dir("fifo");
    let fifo = d.join("17300");
    let c = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let good = d.join("17301");
    fs::write(&good, sealed_page(0, |_| {})).unwrap();
    let (f, g) = (fifo.to_str().unwrap(), good.to_str().unwrap());

    let out = pgpage_within(&["verify", "--json", f, "/dev/zero", g]);
    assert_eq!(checked(&out, "fifo verify"), 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.lines().collect::<Vec<_>>(),
        [
            format!("pgpage: error: \"{f}\" is neither a file nor a directory"),
            String::from("pgpage: error: \"/dev/zero\" is neither a file nor a directory"),
        ]
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["ok"].as_u64(), Some(1));

    for path in [f, "/dev/zero"] {
        let out = pgpage_within(&["inspect", path]);
        assert_eq!(checked(&out, "fifo inspect"), 2);
        assert_eq!(
            String::from_utf8_lossy(&out.stderr).trim_end(),
            format!("pgpage: error: could not open file \"{path}\": not a regular file")
        );
    }
    // In a directory walk a FIFO named like a relation file is passed over, as pg_checksums
    // passes over everything that is not a regular file.
    let out = pgpage_within(&["verify", d.to_str().unwrap()]);
    assert_eq!(checked(&out, "fifo walk"), 0);
    assert!(String::from_utf8_lossy(&out.stdout).contains("Files scanned:   1\n"));
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
    // Not named like a relation file and without one sane page header: the core's
    // file_geometry says it is not one, and how to read it anyway.
    let t = text.to_str().unwrap();
    assert!(
        err.contains(&format!(
            "pgpage: error: file \"{t}\" is not a relation file: no sane PostgreSQL page header \
             at its start in either byte order (choose a block size to verify it anyway)\n"
        )),
        "{err}"
    );
    let out = pgpage(&["verify", "--block-size", "8192", t]);
    assert_eq!(checked(&out, "text file as pages"), 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains(": read only 5 of 8192 bytes"));

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

#[test]
fn a_file_that_shrinks_while_being_read_is_named_and_the_others_still_verified() {
    let d = dir("shrink");
    let good = d.join("17300");
    fs::write(
        &good,
        [sealed_page(0, |_| {}), sealed_page(1, |_| {})].concat(),
    )
    .unwrap();
    let shrinking = d.join("17301");
    // The race with the reader is real, so try until the truncation lands mid-read; a run
    // that finished first (or started after) must simply be a clean run.
    let mut seen = false;
    for (attempt, delay_ms) in [5u64, 20, 50, 100, 200, 400].into_iter().enumerate() {
        let f = fs::File::create(&shrinking).unwrap();
        f.set_len(8 << 30).unwrap(); // sparse: all-zero pages, fine for the server
        let child = Command::new(env!("CARGO_BIN_EXE_pgpage"))
            .args([
                "verify",
                "--json",
                shrinking.to_str().unwrap(),
                good.to_str().unwrap(),
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        f.set_len(1 << 20).unwrap();
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let v: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("attempt {attempt}: --json stays valid JSON: {e}"));
        let good_entry = v["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"].as_str() == good.to_str())
            .cloned()
            .expect("the good file is still verified");
        assert_eq!(good_entry["blocks"].as_u64(), Some(2));
        assert_eq!(good_entry["pages"].as_array().map(Vec::len), Some(0));
        if err.contains("shrank while being read") {
            assert_eq!(out.status.code(), Some(2), "attempt {attempt}: {err}");
            let line = err.lines().find(|l| l.contains("shrank")).unwrap();
            // pg_checksums' wording: could not read block N in file "F": read K of 8192.
            let rest = line
                .strip_prefix("pgpage: error: could not read block ")
                .unwrap_or_else(|| panic!("{line}"));
            let (block, rest) = rest.split_once(' ').unwrap();
            let tail = format!("in file \"{}\": read ", shrinking.display());
            let rest = rest.strip_prefix(&tail).unwrap_or_else(|| panic!("{line}"));
            let (got, _) = rest
                .split_once(" of 8192 ")
                .unwrap_or_else(|| panic!("{line}"));
            let (block, got) = (block.parse::<u64>().unwrap(), got.parse::<u64>().unwrap());
            assert!(got < 8192 && block * 8192 + got < 8 << 30, "{line}");
            seen = true;
            break;
        }
        assert!(
            matches!(out.status.code(), Some(0) | Some(2)),
            "attempt {attempt}: {err}"
        );
    }
    assert!(
        seen,
        "the truncation never landed while the file was being read"
    );
    fs::remove_dir_all(&d).unwrap();
}

/// Runs pgpage to the end and returns its output with its peak resident set in KiB
/// (wait4's ru_maxrss), which is what "flat memory" means for a user's machine.
fn pgpage_peak_rss(args: &[&str]) -> (Output, i64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pgpage"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (mut stdout, mut stderr) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let out = std::thread::spawn(move || {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut b).unwrap();
        b
    });
    let err = std::thread::spawn(move || {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut stderr, &mut b).unwrap();
        b
    });
    let pid = i32::try_from(child.id()).unwrap();
    let mut status = 0;
    // SAFETY: zeroed rusage is a valid value for wait4 to fill; pid is our own child, which
    // is reaped here and never waited for again through `child`.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above; the pointers are to live locals.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4");
    std::mem::forget(child);
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    let output = Output {
        status: std::os::unix::process::ExitStatusExt::from_raw(status),
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    };
    assert_eq!(output.status.code(), code);
    (output, usage.ru_maxrss)
}

#[test]
fn a_5_gb_sparse_file_and_a_set_of_segments_verify_in_flat_memory() {
    let d = dir("big");
    // Segments of 1 GB (16385, 16385.1) and one 5 GB file.
    let mut args = vec!["verify".to_owned(), "--json".to_owned()];
    for seg in 0..2 {
        let p = d.join(if seg == 0 {
            "16385".into()
        } else {
            format!("16385.{seg}")
        });
        fs::File::create(&p).unwrap().set_len(1 << 30).unwrap();
        args.push(p.to_str().unwrap().to_owned());
    }
    let big = d.join("16390");
    let f = fs::File::create(&big).unwrap();
    f.set_len(5 << 30).unwrap();
    // One real page at the very end, damaged, so the whole file is really read.
    let mut last = sealed_page(5 * 131_072 - 1, |_| {});
    last[100] ^= 1;
    std::os::unix::fs::FileExt::write_at(&f, &last, (5 << 30) - BLCKSZ as u64).unwrap();
    args.push(big.to_str().unwrap().to_owned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (out, peak_kib) = pgpage_peak_rss(&args);
    assert_eq!(checked(&out, "5 GB"), 1, "one damaged page");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["blocks"].as_u64(), Some(7 * 131_072));
    assert_eq!(v["summary"]["zero"].as_u64(), Some(7 * 131_072 - 1));
    assert_eq!(v["summary"]["mismatch"].as_u64(), Some(1));
    let bad = &v["files"][2]["pages"][0];
    assert_eq!(bad["block"].as_u64(), Some(5 * 131_072 - 1));
    // Two threads' 4 MiB buffers and the results of problem pages only: far under 64 MiB
    // for 7 GB read, and no growth with the size of the input.
    eprintln!("peak RSS verifying 7 GB: {peak_kib} KiB");
    assert!(peak_kib < 64 * 1024, "peak RSS {peak_kib} KiB");
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn an_empty_file_is_a_relation_of_no_pages_for_inspect_as_for_verify() {
    let d = dir("empty-inspect");
    let path = d.join("17400_init");
    fs::write(&path, b"").unwrap();
    let p = path.to_str().unwrap();
    let note = format!("pgpage: warning: file \"{p}\" is empty");
    for json in [true, false] {
        let args: &[&str] = if json {
            &["inspect", "--json", p]
        } else {
            &["inspect", p]
        };
        let out = pgpage(args);
        assert_eq!(checked(&out, "empty inspect"), 0);
        assert_eq!(String::from_utf8_lossy(&out.stderr).trim_end(), note);
        if json {
            let v: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(
                (v["fork"].as_str(), v["blocks"].as_array().map(Vec::len)),
                (Some("init"), Some(0))
            );
        } else {
            assert!(String::from_utf8_lossy(&out.stdout).contains(", 0 blocks"));
        }
    }
    let out = pgpage(&["inspect", "--block", "0", p]);
    assert_eq!(checked(&out, "empty inspect --block 0"), 2);
    fs::remove_dir_all(&d).unwrap();
}
