//! `filedump_fi` against Debian's pg_filedump 14.1 (package postgresql-filedump) on every
//! fixture page PostgreSQL 15 made: the whole `-f -i -R 0` output, byte for byte, with only the
//! banner's file name line set aside.
// A test fails by panicking; that is its job.
use std::path::Path;
use std::process::Command;

use pgpage::text::filedump::filedump_fi;
use pgpage::Endian;

#[path = "../support/pg_filedump.rs"]
mod support;
use support::{pg_filedump, without_file_line};

#[test]
fn every_fixture_page_reads_as_pg_filedump_prints_it() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let tool = pg_filedump();
    let mut cases: Vec<_> = std::fs::read_dir(&fixtures)
        .unwrap()
        .map(|e| e.unwrap().path().join("page.bin"))
        .filter(|p| p.exists())
        .collect();
    cases.sort();
    assert!(
        cases.len() >= 10,
        "fixtures missing in {}",
        fixtures.display()
    );
    let mut failed = Vec::new();
    for page in &cases {
        let theirs = Command::new(tool)
            .args(["-f", "-i", "-R", "0"])
            .arg(page)
            .output()
            .unwrap();
        let theirs = String::from_utf8(theirs.stdout).unwrap();
        let bytes = std::fs::read(page).unwrap();
        let ours = filedump_fi("page.bin", &bytes, 0, Endian::Little);
        if without_file_line(&ours) != without_file_line(&theirs) {
            let (a, b) = (without_file_line(&ours), without_file_line(&theirs));
            let at = a
                .lines()
                .zip(b.lines())
                .position(|(x, y)| x != y)
                .unwrap_or(a.lines().count().min(b.lines().count()));
            failed.push(format!(
                "{}: first difference at line {at}:\n  ours:   {:?}\n  theirs: {:?}",
                page.display(),
                a.lines().nth(at),
                b.lines().nth(at)
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
