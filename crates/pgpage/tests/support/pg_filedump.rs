//! Test support shared by the core's and the CLI's tests: Debian's pg_filedump 14.1
//! (postgresql-filedump) and its output with the one line that names the file set aside.

use std::path::Path;

/// The pg_filedump binary; the test fails with how to install it when there is none.
pub fn pg_filedump() -> &'static str {
    [
        "/usr/bin/pg_filedump",
        "/usr/lib/postgresql/15/bin/pg_filedump",
    ]
    .into_iter()
    .find(|p| Path::new(p).exists())
    .expect(
        "pg_filedump not found: apt-get install postgresql-filedump (scripts/bootstrap.sh does)",
    )
}

/// `s` without the banner's `* File: ` line: pg_filedump names the file as it was given.
pub fn without_file_line(s: &str) -> String {
    s.lines()
        .filter(|l| !l.starts_with("* File: "))
        .collect::<Vec<_>>()
        .join("\n")
}
