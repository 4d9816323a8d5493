//! What every CLI test file runs: the built binary, and its stdout read as JSON.
// Each test file is a crate of its own and uses a part of this module.
#![allow(dead_code, clippy::unwrap_used, clippy::panic)]

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
