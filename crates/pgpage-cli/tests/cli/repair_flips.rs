//! The bit-flip candidates wherever a page is discussed, held against PostgreSQL 13 to 19: a
//! table with one bit flipped in a text value ('u' -> 'q') on one page and a digit turned
//! into a control byte ('8' -> 0x18) on another, and a page of random bytes. `repair` without
//! a source lists the candidates, ranked, with their values and `--flip` commands before the
//! pg_surgery fallback; the true flip ranks first, the page it gives is the undamaged one
//! byte for byte; the control byte the server returns (under ignore_checksum_failure) is
//! printed escaped; `--flip` reminds of the others; `--from` takes a backup's data directory;
//! and a random page's "LSN" is never compared.

use std::path::Path;

use crate::common::{pgpage, Cluster};

const BS: usize = 8192;

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = pgpage(args);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn find(page: &[u8], needle: &[u8]) -> usize {
    page.windows(needle.len())
        .position(|w| w == needle)
        .unwrap_or_else(|| panic!("{} not on the page", String::from_utf8_lossy(needle)))
}

fn candidates_told(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&["create database shop"]);
    c.psql_in(
        "shop",
        &[
            "create table orders (id int primary key, customer text, note text) with (autovacuum_enabled = off)",
            "insert into orders select g, 'cust' || lpad(g::text, 5, '0'), 'note-' || lpad(g::text, 5, '0') || '-8' from generate_series(1, 1000) g",
            "select count(*) from orders",
            "checkpoint",
        ],
    );
    let id_on = |b: u32| -> u32 {
        c.psql_in(
            "shop",
            &[&format!(
                "select id from orders where (ctid::text::point)[0] = {b} order by ctid offset 4 limit 1"
            )],
        )
        .trim()
        .parse()
        .unwrap()
    };
    let (flip_id, control_id) = (id_on(1), id_on(2));
    let rel = c
        .psql_in("shop", &["select pg_relation_filepath('orders')"])
        .trim()
        .to_owned();
    let heap = c.data.join(&rel);
    c.stop();
    let good = std::fs::read(&heap).unwrap();
    // The backup: the relation file at its path inside a directory laid out as the data
    // directory is.
    let backup = tempfile::tempdir().unwrap();
    let in_backup = backup.path().join(&rel);
    std::fs::create_dir_all(in_backup.parent().unwrap()).unwrap();
    std::fs::write(&in_backup, &good).unwrap();

    let mut bad = good.clone();
    let customer = format!("cust{flip_id:05}");
    let at_u = BS + find(&good[BS..2 * BS], customer.as_bytes()) + 1;
    bad[at_u] ^= 1 << 2; // 'u' -> 'q'
    let note = format!("note-{control_id:05}-8");
    let at_8 = 2 * BS + find(&good[2 * BS..3 * BS], note.as_bytes()) + note.len() - 1;
    bad[at_8] ^= 1 << 5; // '8' -> 0x18
    let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ u64::from(version);
    for b in &mut bad[3 * BS..4 * BS] {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = (x >> 24) as u8;
    }
    std::fs::write(&heap, &bad).unwrap();
    let file = heap.to_str().unwrap();

    // The server itself, past the checksums: the values as damaged.
    c.restart();
    let got = c.psql_in(
        "shop",
        &[
            "set ignore_checksum_failure = on",
            &format!(
                "select customer, position(chr(24) in note) > 0 from orders where id in ({flip_id}, {control_id}) order by id"
            ),
        ],
    );
    let expected_customer = format!("cqst{flip_id:05}");
    assert!(got.contains(&expected_customer), "{version}: {got}");
    assert!(
        got.contains("|t"),
        "{version}: the server returns the control byte: {got}"
    );
    c.stop();

    // Block 1 without a source: the candidates, ranked, the true one first, before the
    // pg_surgery fallback.
    let (code, out, err) = run(&["repair", "--block", "1", file]);
    assert_eq!(code, Some(1), "{version}: {err}");
    let true_flip = format!("--flip {}:2 ", at_u - BS);
    let first = out
        .lines()
        .find(|l| l.trim_start().starts_with("1. byte "))
        .unwrap_or_else(|| panic!("{version}: no candidate listed: {out}"));
    assert!(
        first.contains(&format!(
            "column customer: stored {expected_customer}, flipped back {customer}"
        )) && first.contains(&true_flip),
        "{version}: {out}"
    );
    assert!(
        first.contains("flipped back, the value shares its first"),
        "{version}: {first}"
    );
    let listed = out.find("1. byte ").unwrap();
    let surgery = out.find("heap_force_kill").unwrap();
    assert!(listed < surgery, "{version}: candidates before pg_surgery");
    assert!(
        out.contains("flipping the right bit back restores the page exactly"),
        "{version}: {out}"
    );
    assert!(
        !out.contains("No tuple is known to be damaged"),
        "{version}: {out}"
    );
    let n = out
        .lines()
        .filter(|l| l.trim_start().split(". byte ").count() == 2 && l.contains("--flip"))
        .count();

    // The true flip gives the undamaged page, byte for byte; a reminder when it is one of
    // several.
    let tmp = tempfile::tempdir().unwrap();
    let new = tmp.path().join("new");
    let (code, _, err) = run(&[
        "repair",
        "--block",
        "1",
        "--flip",
        &format!("{}:2", at_u - BS),
        "--out",
        new.to_str().unwrap(),
        file,
    ]);
    assert_eq!(code, Some(0), "{version}: {err}");
    assert_eq!(
        &std::fs::read(&new).unwrap()[BS..2 * BS],
        &good[BS..2 * BS],
        "{version}"
    );
    if n > 1 {
        assert!(
            err.contains(&format!(
                "is 1 of {n} single-bit flips that make the stored checksum valid, ranked 1 of {n}"
            )),
            "{version}: {err}"
        );
    } else {
        assert!(err.is_empty(), "{version}: {err}");
    }
    // A bit that is no candidate is refused, nothing written; --force writes it, warned.
    let other = tmp.path().join("other");
    let (code, _, err) = run(&[
        "repair",
        "--block",
        "1",
        "--flip",
        "100:1",
        "--out",
        other.to_str().unwrap(),
        file,
    ]);
    assert_eq!(code, Some(2), "{version}: {err}");
    assert!(err.contains("not a bit-flip candidate"), "{version}: {err}");
    assert!(!other.exists(), "{version}: written although refused");
    let (code, _, err) = run(&[
        "repair",
        "--block",
        "1",
        "--flip",
        "100:1",
        "--force",
        "--out",
        other.to_str().unwrap(),
        file,
    ]);
    assert_eq!(code, Some(0), "{version}: {err}");
    assert!(err.contains("not a bit-flip candidate"), "{version}: {err}");
    assert!(other.exists(), "{version}: --force wrote nothing");

    // Block 2: the control byte the server returns is printed escaped, never raw.
    let (_, out, _) = run(&["repair", "--block", "2", file]);
    let line = out
        .lines()
        .find(|l| {
            l.contains(&format!(
                "stored note-{control_id:05}-\\x18, flipped back {note}"
            ))
        })
        .unwrap_or_else(|| panic!("{version}: {out}"));
    assert!(
        line.contains("loses a control or non-printable character"),
        "{version}: {line}"
    );
    assert!(
        !out.contains('\u{18}'),
        "{version}: a raw control byte printed"
    );
    let (_, report, _) = run(&["report", c.data.to_str().unwrap()]);
    assert!(
        !report.contains('\u{18}'),
        "{version}: a raw control byte in the report"
    );
    assert!(report.contains("-\\x18"), "{version}: {report}");
    // The incident report ranks block 1's candidates the same way: the true flip first.
    assert!(
        report.contains(&format!("1. flip byte {} bit 2 ", at_u - BS)),
        "{version}: {report}"
    );

    // Block 3 (random bytes) from the backup's directory: its "LSN" is not compared, and
    // the checksum it stored is the one said.
    let new3 = tmp.path().join("new3");
    let (code, out, err) = run(&[
        "repair",
        "--block",
        "3",
        "--from",
        backup.path().to_str().unwrap(),
        "--out",
        new3.to_str().unwrap(),
        file,
    ]);
    assert_eq!(code, Some(0), "{version}: {err}");
    assert_eq!(
        &std::fs::read(&new3).unwrap()[3 * BS..4 * BS],
        &good[3 * BS..4 * BS]
    );
    assert!(!err.contains("older than"), "{version}: {err}");
    assert!(
        err.contains("the damaged page's pd_lsn is unknown"),
        "{version}: {err}"
    );
    let stored = u16::from_le_bytes([bad[3 * BS + 8], bad[3 * BS + 9]]);
    let carried = u16::from_le_bytes([good[3 * BS + 8], good[3 * BS + 9]]);
    assert!(
        out.contains(&format!(
            "the damaged block stored {stored}, the replacement carried {carried}"
        )),
        "{version}: {out}"
    );
    // A directory without the file is named plainly.
    let empty = tempfile::tempdir().unwrap();
    let (code, _, err) = run(&[
        "repair",
        "--block",
        "3",
        "--from",
        empty.path().to_str().unwrap(),
        "--out",
        tmp.path().join("x").to_str().unwrap(),
        file,
    ]);
    assert_eq!(code, Some(2), "{version}");
    assert!(
        err.contains(&format!("has no file \"{rel}\"")),
        "{version}: {err}"
    );
    assert!(!Path::new(&tmp.path().join("x")).exists());
}

each_version!(candidates_told);

/// A stopped cluster with table t (200 rows, one page), its relfrozenxid (past 4), its file,
/// the file's bytes and the offset of lp 1's t_xmax, which is 0.
fn table_t(version: u32) -> (Cluster, u32, std::path::PathBuf, Vec<u8>, usize) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create table t (id int primary key, note text) with (autovacuum_enabled = off)",
        "insert into t select g, 'note ' || g from generate_series(1, 200) g",
        "checkpoint",
    ]);
    let relfrozenxid: u32 = c
        .psql(&["select relfrozenxid from pg_class where relname = 't'"])
        .trim()
        .parse()
        .unwrap();
    assert!(relfrozenxid > 4, "relfrozenxid {relfrozenxid}");
    let heap = c.file("select pg_relation_filepath('t')");
    c.stop();
    let good = std::fs::read(&heap).unwrap();
    let word = u32::from_le_bytes(good[24..28].try_into().unwrap());
    let xmax_at = (word & 0x7fff) as usize + 4;
    assert_eq!(
        &good[xmax_at..xmax_at + 4],
        &[0, 0, 0, 0],
        "lp 1's t_xmax is 0"
    );
    (c, relfrozenxid, heap, good, xmax_at)
}

/// Block 0 of public.t in a report's JSON.
fn block0(report: &serde_json::Value) -> &serde_json::Value {
    report["relations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["relation"] == "public.t")
        .and_then(|r| {
            r["blocks"]
                .as_array()
                .unwrap()
                .iter()
                .find(|b| b["block"] == 0)
        })
        .unwrap_or_else(|| panic!("block 0 of t not in the report: {report:#}"))
}

/// A flip in a tuple's t_xmax that turns 0 into a small xid: VACUUM's rule that no xid in a
/// table precedes its relfrozenxid speaks for flipping it back. Held against the server: the
/// report ranks that flip first with the very words VACUUM (FREEZE) stops with on the
/// damaged page under ignore_checksum_failure.
fn xmax_before_relfrozenxid(version: u32) {
    let (mut c, relfrozenxid, heap, good, xmax_at) = table_t(version);
    let mut bad = good.clone();
    bad[xmax_at] ^= 1 << 2;
    std::fs::write(&heap, &bad).unwrap();

    let out = pgpage(&["report", "--json", c.data.to_str().unwrap()]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let block = block0(&report);
    let first = &block["bit_flips"][0];
    assert_eq!(first["byte"], xmax_at, "{block:#}");
    assert_eq!(first["bit"], 2, "{block:#}");
    let words = format!("found xmax 4 from before relfrozenxid {relfrozenxid}");
    assert!(first["why"].as_str().unwrap().contains(&words), "{block:#}");

    c.restart();
    let vacuum = c.psql_output(
        "postgres",
        &["set ignore_checksum_failure = on", "vacuum (freeze) t"],
    );
    let said = String::from_utf8_lossy(&vacuum.stderr);
    assert!(said.contains(&words), "the server says: {said}");
}

each_version!(xmax_before_relfrozenxid);

/// The converse: a page whose bytes are the server's, its stored checksum made for the page
/// with lp 1's t_xmax turned from 0 into 4 (so that one flip makes it valid). Flipped back,
/// that tuple's xmax would precede relfrozenxid, which PostgreSQL never writes (the server,
/// shown that page, stops VACUUM (FREEZE) with its words): the flip matches by chance. The
/// report does not offer that flip and says why, and `repair --flip` refuses it without
/// --force.
fn chance_flip_breaking_a_rule(version: u32) {
    use pgpage::page::checksum::pg_checksum_page;
    use pgpage::page::geometry::Endian;
    let (mut c, relfrozenxid, heap, good, xmax_at) = table_t(version);
    let mut other = good[..BS].to_vec();
    other[xmax_at] ^= 1 << 2;
    let sum = pg_checksum_page(&other, 0, Endian::Little);
    other[8..10].copy_from_slice(&sum.to_le_bytes());
    let mut bad = good.clone();
    bad[8..10].copy_from_slice(&sum.to_le_bytes());
    std::fs::write(&heap, &bad).unwrap();

    let out = pgpage(&["report", "--json", c.data.to_str().unwrap()]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let block = block0(&report);
    // Other flips may match by chance too, with nothing against them: those stay candidates.
    let offered = block["bit_flips"]
        .as_array()
        .is_some_and(|a| a.iter().any(|f| f["byte"] == xmax_at && f["bit"] == 2));
    assert!(!offered, "{block:#}");
    let words = format!("found xmax 4 from before relfrozenxid {relfrozenxid}");
    let evidence = block["evidence"].to_string();
    assert!(evidence.contains(&words), "{block:#}");
    let text = String::from_utf8(pgpage(&["report", c.data.to_str().unwrap()]).stdout).unwrap();
    assert!(!text.contains(&format!("--flip {xmax_at}:2")), "{text}");

    let out_file = c.root.join("flipped");
    let flip = format!("{xmax_at}:2");
    let (code, _, err) = run(&[
        "repair",
        "--block",
        "0",
        "--flip",
        &flip,
        "--out",
        out_file.to_str().unwrap(),
        heap.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(&words) && err.contains("--force"), "{err}");
    assert!(!out_file.exists());
    let (code, _, err) = run(&[
        "repair",
        "--block",
        "0",
        "--flip",
        &flip,
        "--force",
        "--out",
        out_file.to_str().unwrap(),
        heap.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        &std::fs::read(&out_file).unwrap()[..BS],
        &other[..],
        "the page --force writes"
    );

    // The server, shown the flipped-back page, refuses it with the words the report gives.
    let mut flipped = good.clone();
    flipped[..BS].copy_from_slice(&other);
    std::fs::write(&heap, &flipped).unwrap();
    c.restart();
    let vacuum = c.psql_output("postgres", &["vacuum (freeze) t"]);
    let said = String::from_utf8_lossy(&vacuum.stderr);
    assert!(said.contains(&words), "the server says: {said}");
}

each_version!(chance_flip_breaking_a_rule);

/// Alignment padding, which PostgreSQL writes as zeros: a table of (int2, int8) rows has six
/// padding bytes after each int2 (the server's own page holds them zero, checked below).
/// Where one of them holds a single set bit on a page whose stored checksum is the server's,
/// flipping it back ranks first and says the padding speaks for it; where the stored checksum
/// was made for the page with that bit set (a flip that matches by chance), flipping it is
/// said to set a bit in padding, against it.
fn padding_bits(version: u32) {
    use pgpage::page::checksum::pg_checksum_page;
    use pgpage::page::geometry::Endian;
    let mut c = Cluster::start(version);
    c.psql(&[
        "create table t (a int2, b int8) with (autovacuum_enabled = off)",
        "insert into t select g, g * 1000 from generate_series(1, 200) g",
        "checkpoint",
    ]);
    let heap = c.file("select pg_relation_filepath('t')");
    c.stop();
    let good = std::fs::read(&heap).unwrap();
    let word = u32::from_le_bytes(good[24..28].try_into().unwrap());
    let off = (word & 0x7fff) as usize;
    let pad = off + usize::from(good[off + 22]) + 3;
    assert_eq!(
        &good[pad - 1..pad + 5],
        &[0; 6],
        "the server's padding is zeros"
    );

    // The damage: one bit set in the padding, the checksum the server's.
    let mut bad = good.clone();
    bad[pad] ^= 1 << 5;
    std::fs::write(&heap, &bad).unwrap();
    let report: serde_json::Value =
        serde_json::from_slice(&pgpage(&["report", "--json", c.data.to_str().unwrap()]).stdout)
            .unwrap();
    let block = block0(&report);
    let first = &block["bit_flips"][0];
    assert_eq!(
        (first["byte"].as_u64(), first["bit"].as_u64()),
        (Some(pad as u64), Some(5)),
        "{block:#}"
    );
    assert!(
        first["why"]
            .as_str()
            .unwrap()
            .contains("this speaks for it"),
        "{block:#}"
    );

    // The converse: the checksum made for the page with that bit set.
    let mut other = good[..BS].to_vec();
    other[pad] ^= 1 << 5;
    let sum = pg_checksum_page(&other, 0, Endian::Little);
    let mut chance = good.clone();
    chance[8..10].copy_from_slice(&sum.to_le_bytes());
    std::fs::write(&heap, &chance).unwrap();
    let report: serde_json::Value =
        serde_json::from_slice(&pgpage(&["report", "--json", c.data.to_str().unwrap()]).stdout)
            .unwrap();
    let block = block0(&report);
    let told = block["bit_flips"]
        .as_array()
        .and_then(|a| a.iter().find(|f| f["byte"] == pad && f["bit"] == 5))
        .unwrap_or_else(|| panic!("the padding flip among the candidates: {block:#}"));
    assert!(
        told["why"]
            .as_str()
            .unwrap()
            .contains("this speaks against it"),
        "{told:#}"
    );
}

each_version!(padding_bits);
