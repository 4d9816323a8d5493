//! `pgpage rows --all-versions DATADIR RELATION` against the server, PostgreSQL 13 to 19:
//! every tuple version on the page, led by its ctid, the xmin and xmax the server gave it
//! (txid_current() inside each transaction), its state as the test's own transactions
//! ended, and its columns as COPY printed them while the version was live.

use crate::common::{pgpage, Cluster};

/// `"(b,o)",xmin,columns` (COPY of `select ctid, xmin, *`) led as --all-versions leads it.
fn lead(line: &str, xmax: &str, state: &str) -> String {
    let close = line.find("\",").unwrap() + 1;
    let (ctid, rest) = line.split_at(close);
    let (xmin, columns) = rest[1..].split_once(',').unwrap();
    format!("{ctid},{xmin},{xmax},{state},{columns}")
}

/// The columns of such a line, without ctid and xmin.
fn columns(line: &str) -> &str {
    let close = line.find("\",").unwrap() + 2;
    line[close..].split_once(',').unwrap().1
}

fn all_versions(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create table v (id int4, s text)",
        "insert into v select g, 'row ' || g from generate_series(1, 6) g",
    ]);
    let live = |c: &Cluster| {
        c.psql(&["copy (select ctid, xmin, * from v order by ctid) to stdout (format csv)"])
    };
    let before = live(&c);
    let in_transaction = |sql: &str, end: &str| -> String {
        let out = c.psql(&["begin", sql, "select txid_current()", end]);
        out.trim().lines().last().unwrap().to_owned()
    };
    let deleter = in_transaction("delete from v where id = 2", "commit");
    let updater = in_transaction("update v set s = 'new' where id = 3", "commit");
    let aborted = in_transaction("insert into v values (99, 'gone')", "rollback");
    let undeleter = in_transaction("delete from v where id = 4", "rollback");
    let locker = in_transaction(
        "select count(*) from (select 1 from v where id = 5 for update) l",
        "commit",
    );
    let after = live(&c);
    c.psql(&["checkpoint"]);
    c.stop();

    let mut want = Vec::new();
    for line in before.lines() {
        let id = columns(line).split(',').next().unwrap();
        want.push(match id {
            "2" => lead(line, &deleter, "deleted"),
            "3" => lead(line, &updater, "updated"),
            // An aborted delete leaves its xmax; a row lock leaves a lock-only one.
            "4" => lead(line, &undeleter, "live"),
            "5" => lead(line, &locker, "live"),
            _ => lead(line, "0", "live"),
        });
    }
    let newer = after.lines().find(|l| l.ends_with(",3,new")).unwrap();
    want.push(lead(newer, "0", "live"));
    want.push(format!(
        "\"(0,{})\",{aborted},0,aborted,99,gone",
        before.lines().count() + 2
    ));
    let want = want.join("\n") + "\n";

    let data = c.data.to_str().unwrap();
    let out = pgpage(&[
        "rows",
        "--all-versions",
        "--database",
        "postgres",
        data,
        "v",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "PostgreSQL {version}: {err}");
    let got = String::from_utf8_lossy(&out.stdout);
    assert_eq!(got, want, "PostgreSQL {version}");

    // Without --all-versions: the live rows, what COPY printed after the transactions.
    let out = pgpage(&["rows", "--database", "postgres", data, "v"]);
    assert_eq!(out.status.code(), Some(0), "PostgreSQL {version}");
    let visible: String = after.lines().map(|l| format!("{}\n", columns(l))).collect();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        visible,
        "PostgreSQL {version}"
    );

    // JSON lines carry the state as a key.
    let out = pgpage(&[
        "rows",
        "--all-versions",
        "--format",
        "json",
        "--database",
        "postgres",
        data,
        "v",
    ]);
    assert_eq!(out.status.code(), Some(0), "PostgreSQL {version}");
    let states: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["state"].as_str().unwrap().to_owned()
        })
        .collect();
    let want_states: Vec<&str> = want.lines().map(|l| l.split(',').nth(4).unwrap()).collect();
    assert_eq!(states, want_states, "PostgreSQL {version}");
    eprintln!(
        "PostgreSQL {version}: --all-versions gave {} versions as the server's transactions left them",
        want.lines().count()
    );
}

each_version!(all_versions);
