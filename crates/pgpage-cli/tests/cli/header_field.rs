//! Pages of which one header field alone was overwritten (pd_upper 0, pd_lower past
//! pd_upper, pd_special 0), on PostgreSQL 13 to 19: the server refuses each, and the report
//! calls each `header_field`, not noise. It names the value the stored checksum verifies
//! with, which must be the one the server wrote (read before the damage), and counts as
//! readable the rows the server's COPY gave for that block; `rows --include-damaged` prints
//! them as COPY did. The step's `repair --set` gives each file byte for byte as the server
//! left it, and the server then reads every table as before. Without data checksums the line
//! pointers' value is a candidate, which the step writes with --force.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::page::{put_u16, u16_at, BLCKSZ};
use crate::common::{block_of, json, ok, pgpage, steps_of, Cluster};

/// The damaged block of each table.
const BLOCK: usize = 2;

/// Each table with the field overwritten in its block BLOCK: (table, field, the field's
/// offset in the page, the value written over it).
const CASES: [(&str, &str, usize, u16); 3] = [
    ("t_upper", "pd_upper", 14, 0),
    ("t_lower", "pd_lower", 12, 0xFFFF),
    ("t_special", "pd_special", 16, 0),
];

/// A table of some blocks with dead and unused line pointers among the live ones, and
/// updated rows whose older versions are on the page but read by no one.
fn make_table(c: &Cluster, t: &str) {
    c.psql(&[
        &format!("create table {t} (id int primary key, note text not null) with (autovacuum_enabled = off)"),
        &format!("insert into {t} select g, 'note-' || g || repeat('x', g % 50) from generate_series(1, 600) g"),
        &format!("delete from {t} where id % 7 = 0"),
        &format!("vacuum {t}"),
        &format!("update {t} set note = note || '!' where id % 11 = 0"),
    ]);
}

/// The rows COPY gives for block BLOCK of `t`.
fn rows_in_block(c: &Cluster, t: &str) -> u64 {
    let out = c.psql(&[&format!(
        "copy (select * from {t} where (ctid::text::point)[0] = {BLOCK}) to stdout"
    )]);
    out.lines().count() as u64
}

/// The field step's `pgpage repair` commands, each run with NEW a new file under `dir`:
/// the files made, by the file each repairs.
fn run_field_step(steps: &[&str], dir: &Path) -> Vec<(PathBuf, PathBuf)> {
    let step = steps
        .iter()
        .find(|s| s.contains(" --set "))
        .unwrap_or_else(|| panic!("no step sets a field: {steps:#?}"));
    let mut made = Vec::new();
    for line in step
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("pgpage repair "))
    {
        let command = line.split("  #").next().unwrap().trim();
        let out = dir.join(format!("new{}", made.len()));
        let args: Vec<String> = command
            .split_whitespace()
            .skip(1)
            .map(|w| {
                if w == "NEW" {
                    out.display().to_string()
                } else {
                    w.to_owned()
                }
            })
            .collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        ok(pgpage(&args), &format!("pgpage {}", args.join(" ")));
        made.push((PathBuf::from(args.last().unwrap()), out));
    }
    made
}

fn one_field(version: u32) {
    let mut c = Cluster::start(version);
    for (t, ..) in CASES {
        make_table(&c, t);
    }
    let before: Vec<String> = CASES.iter().map(|(t, ..)| c.copy(t)).collect();
    let readable: Vec<u64> = CASES.iter().map(|(t, ..)| rows_in_block(&c, t)).collect();
    let files: Vec<PathBuf> = CASES
        .iter()
        .map(|(t, ..)| c.file(&format!("select pg_relation_filepath('{t}')")))
        .collect();
    c.stop();
    let originals: Vec<Vec<u8>> = files.iter().map(|f| fs::read(f).unwrap()).collect();
    // The value the server wrote, then the damage: that one field overwritten.
    let mut wrote = Vec::new();
    for ((_, _, at, bad), (file, original)) in CASES.iter().zip(files.iter().zip(&originals)) {
        let mut bytes = original.clone();
        let page = &mut bytes[BLOCK * BLCKSZ..(BLOCK + 1) * BLCKSZ];
        wrote.push(u16_at(page, *at));
        put_u16(page, *at, *bad);
        fs::write(file, &bytes).unwrap();
    }
    c.restart();
    for (t, ..) in CASES {
        let refused = c
            .try_psql(&format!("select count(*) from {t}"))
            .expect_err("the server refuses the page");
        assert!(
            refused.contains(&format!("invalid page in block {BLOCK}")),
            "PostgreSQL {version}, {t}: {refused}"
        );
    }
    c.stop();

    let data = c.data.to_str().unwrap();
    let out = pgpage(&["report", "--json", data]);
    assert_eq!(out.status.code(), Some(1), "damage found: exit 1");
    let report = json(&out);
    for (i, (t, field, _, bad)) in CASES.iter().enumerate() {
        let b = block_of(&report, &format!("public.{t}"), BLOCK);
        let (value, n) = (wrote[i], readable[i]);
        let said = format!("PostgreSQL {version}, {t}: {b:#}");
        assert_eq!(b["damage"], "header_field", "{said}");
        assert_eq!(b["route"], "confirmed_field", "{said}");
        let fix = &b["header_field"];
        assert_eq!(
            (
                &fix["field"],
                &fix["stored"],
                &fix["value"],
                &fix["confirmed"]
            ),
            (
                &serde_json::json!(field),
                &serde_json::json!(bad),
                &serde_json::json!(value),
                &serde_json::json!(true)
            ),
            "{said}"
        );
        assert_eq!(
            (&b["rows"]["readable"], &b["rows"]["lost"]),
            (&serde_json::json!(n), &serde_json::json!(0)),
            "{said}"
        );
        assert_eq!(
            b["evidence"][0],
            format!("{field} is {bad}; the stored checksum verifies with {field} = {value}: the header's one field is damaged, its {n} rows are intact"),
            "{said}"
        );
        assert_eq!(
            b["headline"],
            format!("{field} is {bad}; the stored checksum verifies with {field} = {value}: one header field is damaged, the rest of the page is its own; no row lost, {n} readable; way back: set {field} back to {value} (pgpage repair --set)"),
            "{said}"
        );
    }
    assert!(
        report["verdict"]
            .as_str()
            .unwrap()
            .contains("no row lost; 3 pages have one header field wrong"),
        "{}",
        report["verdict"]
    );
    let text = String::from_utf8_lossy(&pgpage(&["report", data]).stdout).into_owned();
    assert!(
        !text.contains("not a PostgreSQL page") && !text.contains("zero_damaged_pages"),
        "no page is called noise, nor zeroing offered for it: {text}"
    );

    // rows reads the pages through the field set back: with --include-damaged, every row as
    // the server's COPY gave it before the damage.
    for (i, (t, ..)) in CASES.iter().enumerate() {
        let rows = pgpage(&[
            "rows",
            "--include-damaged",
            "--database",
            "postgres",
            data,
            t,
        ]);
        assert_eq!(
            String::from_utf8_lossy(&rows.stdout),
            before[i],
            "PostgreSQL {version}, {t}: {}",
            String::from_utf8_lossy(&rows.stderr)
        );
    }

    // Without a source, repair says the same of the page, and names the command.
    let (file, value) = (files[0].to_str().unwrap(), wrote[0]);
    let advice = pgpage(&["repair", "--block", &BLOCK.to_string(), file]);
    assert_eq!(advice.status.code(), Some(1), "the server refuses the page");
    let advice = String::from_utf8_lossy(&advice.stdout);
    assert!(
        advice.contains(&format!(
            "pd_upper is 0; the stored checksum verifies with pd_upper = {value}"
        )) && advice.contains(&format!(
            "pgpage repair --block {BLOCK} --set pd_upper={value} --out NEW"
        )),
        "{advice}"
    );
    // A value the checksum does not verify with is refused: nothing written.
    let refused = c.root.join("refused");
    let other = pgpage(&[
        "repair",
        "--block",
        &BLOCK.to_string(),
        "--set",
        &format!("pd_upper={}", value - 8),
        "--out",
        refused.to_str().unwrap(),
        file,
    ]);
    assert_eq!(other.status.code(), Some(2));
    assert!(!refused.exists());

    // The step's commands: each file as the server left it, byte for byte.
    let made = run_field_step(&steps_of(&report), &c.root);
    assert_eq!(made.len(), CASES.len(), "{made:?}");
    for (file, new) in &made {
        let i = files.iter().position(|f| f == file).unwrap();
        assert!(
            fs::read(new).unwrap() == originals[i],
            "PostgreSQL {version}: {} is not the server's file",
            new.display()
        );
        fs::copy(new, file).unwrap();
    }
    c.restart();
    for (i, (t, ..)) in CASES.iter().enumerate() {
        assert_eq!(c.copy(t), before[i], "PostgreSQL {version}, {t}");
    }
}

each_version!(one_field);

/// A cluster without data checksums: pd_checksum is 0, nothing confirms a value, and the
/// line pointers' value is offered as a candidate, written with --force: the page as the
/// server wrote it but for the checksum now set.
#[test]
fn without_checksums_the_line_pointers_give_a_candidate() {
    let mut c = Cluster::start_with(16, &[]);
    let t = "t_upper";
    make_table(&c, t);
    let before = c.copy(t);
    let n = rows_in_block(&c, t);
    let file = c.file(&format!("select pg_relation_filepath('{t}')"));
    c.stop();
    let original = fs::read(&file).unwrap();
    let mut bytes = original.clone();
    let page = &mut bytes[BLOCK * BLCKSZ..(BLOCK + 1) * BLCKSZ];
    assert_eq!(u16_at(page, 8), 0, "no checksum");
    let value = u16_at(page, 14);
    put_u16(page, 14, 0);
    fs::write(&file, &bytes).unwrap();

    let report = json(&pgpage(&["report", "--json", c.data.to_str().unwrap()]));
    let b = block_of(&report, &format!("public.{t}"), BLOCK);
    assert_eq!(
        (&b["damage"], &b["route"]),
        (
            &serde_json::json!("header_field"),
            &serde_json::json!("field")
        ),
        "{b:#}"
    );
    assert_eq!(
        (&b["header_field"]["value"], &b["header_field"]["confirmed"]),
        (&serde_json::json!(value), &serde_json::json!(false)),
        "{b:#}"
    );
    assert_eq!(b["rows"]["readable"], n, "{b:#}");
    assert_eq!(
        b["evidence"][0],
        format!("pd_upper is 0; the page has no checksum to confirm a value (pd_checksum is 0: data checksums were off when it was written), and its line pointers give pd_upper = {value} (the lowest tuple's offset), a candidate, not confirmed: the header's one field is damaged, its {n} rows read through it"),
        "{b:#}"
    );
    let steps = steps_of(&report);
    assert!(
        steps
            .iter()
            .any(|s| s.contains(&format!("--set pd_upper={value} --force --out NEW"))),
        "{steps:#?}"
    );
    let made = run_field_step(&steps, &c.root);
    let mut repaired = fs::read(&made[0].1).unwrap();
    // The checksum written is the only difference.
    repaired[BLOCK * BLCKSZ + 8..BLOCK * BLCKSZ + 10].fill(0);
    assert!(
        repaired == original,
        "the page as the server wrote it but for pd_checksum"
    );
    fs::copy(&made[0].1, &file).unwrap();
    c.restart();
    assert_eq!(c.copy(t), before);
}

/// A header field gone wrong before its page was checksummed (a software fault, or a
/// checksum recomputed over the damage): the checksum is valid with the wrong value and
/// confirms nothing, the server refuses the page for its header, and the line pointers'
/// value is the candidate the step writes with --force, which gives the page byte for byte
/// as the server wrote it.
fn checksummed_over_the_wrong_field(version: u32) {
    let mut c = Cluster::start(version);
    let t = "t_lower";
    make_table(&c, t);
    let before = c.copy(t);
    let n = rows_in_block(&c, t);
    let file = c.file(&format!("select pg_relation_filepath('{t}')"));
    c.stop();
    let original = fs::read(&file).unwrap();
    let mut bytes = original.clone();
    let value = u16_at(&bytes[BLOCK * BLCKSZ..], 12);
    put_u16(&mut bytes[BLOCK * BLCKSZ..(BLOCK + 1) * BLCKSZ], 12, 16383);
    crate::common::page::seal(&mut bytes, BLOCK);
    fs::write(&file, &bytes).unwrap();
    c.restart();
    let refused = c
        .try_psql(&format!("select count(*) from {t}"))
        .expect_err("the server refuses the header");
    assert!(
        refused.contains(&format!("invalid page in block {BLOCK}")),
        "PostgreSQL {version}: {refused}"
    );
    c.stop();

    // Without the WAL's image of the block (its segments recycled), the field's step is
    // the way back.
    let nowal = c.root.join("nowal");
    crate::common::copy_dir(&c.data, &nowal);
    for seg in fs::read_dir(nowal.join("pg_wal")).unwrap() {
        let seg = seg.unwrap().path();
        if seg.is_file() {
            fs::remove_file(seg).unwrap();
        }
    }
    let report = json(&pgpage(&["report", "--json", nowal.to_str().unwrap()]));
    let b = block_of(&report, &format!("public.{t}"), BLOCK);
    assert_eq!(
        (&b["damage"], &b["route"], &b["status"]),
        (
            &serde_json::json!("header_field"),
            &serde_json::json!("field"),
            &serde_json::json!("bad_header")
        ),
        "PostgreSQL {version}: {b:#}"
    );
    assert_eq!(
        (
            &b["header_field"]["value"],
            &b["header_field"]["confirmed"],
            &b["header_field"]["checksummed_wrong"]
        ),
        (
            &serde_json::json!(value),
            &serde_json::json!(false),
            &serde_json::json!(true)
        ),
        "PostgreSQL {version}: {b:#}"
    );
    assert_eq!(b["rows"]["readable"], n, "PostgreSQL {version}: {b:#}");
    let steps = steps_of(&report);
    let made = run_field_step(&steps, &c.root);
    assert!(
        steps
            .iter()
            .any(|s| s.contains(&format!("--set pd_lower={value} --force --out NEW"))),
        "PostgreSQL {version}: {steps:#?}"
    );
    assert!(
        fs::read(&made[0].1).unwrap() == original,
        "PostgreSQL {version}: the file as the server wrote it"
    );
    fs::copy(&made[0].1, &file).unwrap();
    c.restart();
    assert_eq!(c.copy(t), before, "PostgreSQL {version}");
}

each_version!(checksummed_over_the_wrong_field);
