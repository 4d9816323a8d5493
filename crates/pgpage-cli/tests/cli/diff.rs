//! `pgpage diff` (docs/contracts.md, "diff --json"): copies made by PostgreSQL 15 (a table copied
//! after a checkpoint, then updated and checkpointed again), held against the bytes of the
//! two copies and the server's own `page_header(get_raw_page(...)).lsn`; synthetic flips with
//! known counts; and bad input, named and never a panic.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::common::{json, pgpage, Cluster};

/// The fixture pages a real PostgreSQL wrote (tests/fixtures/*/page.bin), as one file.
fn fixture_file() -> Vec<u8> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path().join("page.bin"))
        .filter(|p| p.is_file())
        .collect();
    names.sort();
    names
        .iter()
        .flat_map(|p| std::fs::read(p).unwrap())
        .collect()
}

fn diff(a: &Path, b: &Path) -> Output {
    pgpage(&["diff", "--json", a.to_str().unwrap(), b.to_str().unwrap()])
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn synthetic_flips_give_their_known_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let a = fixture_file();
    let blocks = a.len() / 8192;
    let mut b = a.clone();
    // Block 2: byte 4000 gains bit 3 (if clear) -- computed from the byte, not assumed.
    let before = b[2 * 8192 + 4000];
    b[2 * 8192 + 4000] ^= 0x08;
    let (set2, cleared2) = if before & 0x08 == 0 { (1, 0) } else { (0, 1) };
    // Block 4: three bytes in a run across a sector boundary (510..513) all inverted.
    let mut ones = 0;
    for i in 510..513 {
        ones += b[4 * 8192 + i].count_ones();
        b[4 * 8192 + i] ^= 0xFF;
    }
    let (pa, pb) = (tmp.path().join("a/16384"), tmp.path().join("b/16384"));
    std::fs::create_dir_all(pa.parent().unwrap()).unwrap();
    std::fs::create_dir_all(pb.parent().unwrap()).unwrap();
    std::fs::write(&pa, &a).unwrap();
    std::fs::write(&pb, &b).unwrap();
    let out = diff(&pa, &pb);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v = json(&out);
    let pages = v["pages"].as_array().unwrap();
    assert_eq!(pages.len(), 2);
    let p2 = &pages[0];
    assert_eq!(p2["block"], 2);
    assert_eq!(p2["state"], "different");
    assert_eq!(p2["newer"], "same");
    assert_eq!(p2["bytes_changed"], 1);
    assert_eq!(p2["bits_set"], set2);
    assert_eq!(p2["bits_cleared"], cleared2);
    assert_eq!(p2["sectors"], serde_json::json!([4000 / 512]));
    assert_eq!(p2["ranges"], serde_json::json!([[4000, 1]]));
    let p4 = &pages[1];
    assert_eq!(p4["block"], 4);
    assert_eq!(p4["bytes_changed"], 3);
    assert_eq!(p4["bits_cleared"], ones);
    assert_eq!(p4["bits_set"], 24 - ones);
    assert_eq!(p4["sectors"], serde_json::json!([0, 1]));
    assert_eq!(p4["ranges"], serde_json::json!([[510, 3]]));
    let s = &v["summary"];
    assert_eq!(s["blocks_a"], blocks);
    assert_eq!(s["equal"], blocks - 2);
    assert_eq!(s["different"], 2);

    // Equal copies: exit 0, nothing listed.
    let out = diff(&pa, &pa);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(json(&out)["pages"], serde_json::json!([]));

    // A newer pd_lsn in B says B is newer; the human line names the decoded field.
    let mut c = a.clone();
    c[8192 + 4] = c[8192 + 4].wrapping_add(1);
    let pc = tmp.path().join("c/16384");
    std::fs::create_dir_all(pc.parent().unwrap()).unwrap();
    std::fs::write(&pc, &c).unwrap();
    let v = json(&diff(&pa, &pc));
    assert_eq!(v["pages"][0]["block"], 1);
    let lsn = |p: &[u8]| {
        (u64::from(u32::from_le_bytes(p[0..4].try_into().unwrap())) << 32)
            | u64::from(u32::from_le_bytes(p[4..8].try_into().unwrap()))
    };
    let want = if lsn(&c[8192..]) > lsn(&a[8192..]) {
        "b"
    } else {
        "a"
    };
    assert_eq!(v["pages"][0]["newer"], want);
    let human = pgpage(&["diff", pa.to_str().unwrap(), pc.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains("block 1: different") && text.contains("pd_lsn "),
        "{text}"
    );

    // A truncated copy (cut inside a page): its missing pages are only_a, the cut page too,
    // and the cut is named.
    let pt = tmp.path().join("t/16384");
    std::fs::create_dir_all(pt.parent().unwrap()).unwrap();
    std::fs::write(&pt, &a[..5 * 8192 + 100]).unwrap();
    let out = diff(&pa, &pt);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("100 bytes past its last whole page"),
        "{}",
        stderr(&out)
    );
    let v = json(&out);
    let only: Vec<u64> = v["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            assert_eq!(p["state"], "only_a");
            p["block"].as_u64().unwrap()
        })
        .collect();
    assert_eq!(only, (5..blocks as u64).collect::<Vec<_>>());
    assert_eq!(v["summary"]["only_a"], blocks - 5);
    assert_eq!(v["summary"]["blocks_b"], 5);
    // ... and the other way round, only_b.
    let v = json(&diff(&pt, &pa));
    assert_eq!(v["summary"]["only_b"], blocks - 5);

    // Two directories: per relation file, files of one side named.
    std::fs::write(tmp.path().join("b/16390_fsm"), &a[..8192]).unwrap();
    let out = diff(&tmp.path().join("a"), &tmp.path().join("b"));
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    assert_eq!(v["files"].as_array().unwrap().len(), 1);
    assert_eq!(v["files"][0]["path"], "16384");
    assert_eq!(v["files"][0]["summary"]["different"], 2);
    assert_eq!(v["only_a"], serde_json::json!([]));
    assert_eq!(v["only_b"], serde_json::json!(["16390_fsm"]));
    let out = diff(&tmp.path().join("a"), &tmp.path().join("a"));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(json(&out)["files"], serde_json::json!([]));
}

#[test]
fn bad_input_is_named_never_a_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let a = fixture_file();
    let p = |n: &str| tmp.path().join(n);
    std::fs::write(p("16384"), &a).unwrap();
    std::fs::write(p("16385"), &a).unwrap();
    let fails = |x: &Path, y: &Path, words: &str| {
        let out = diff(x, y);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        let e = stderr(&out);
        assert!(e.contains(words), "{e}");
        assert!(!e.contains("panicked"), "{e}");
        assert!(out.stdout.is_empty());
    };
    fails(&p("16384"), &p("16385"), "different relations");
    // Pages whose headers say 4 kB against 8 kB pages.
    let mut small = vec![0u8; 4 * 4096];
    for page in small.chunks_exact_mut(4096) {
        page[12..14].copy_from_slice(&24u16.to_le_bytes());
        page[14..16].copy_from_slice(&4096u16.to_le_bytes());
        page[16..18].copy_from_slice(&4096u16.to_le_bytes());
        page[18..20].copy_from_slice(&(4096u16 | 4).to_le_bytes());
    }
    std::fs::create_dir(p("small")).unwrap();
    std::fs::write(p("small/16384"), &small).unwrap();
    fails(&p("16384"), &p("small/16384"), "block size 8192 and 4096");
    fails(&p("16384"), tmp.path(), "is a directory");
    fails(tmp.path(), &p("16384"), "is a directory");
    fails(&p("16384"), &p("missing"), "No such file or directory");
    // A FIFO is never opened (opening one can block).
    let fifo = p("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    fails(&p("16384"), &fifo, "not a regular file");
}

// ---- PostgreSQL 15: copies the server made ------------------------------------------------

/// pd_lsn of every block as the server's pageinspect reads it.
fn server_lsns(c: &Cluster) -> BTreeMap<u64, u64> {
    let rows = c.psql(&["SELECT b, (page_header(get_raw_page('t', b::int))).lsn \
         FROM generate_series(0, pg_relation_size('t') / 8192 - 1) b"]);
    rows.lines()
        .map(|l| {
            let (b, lsn) = l.split_once('|').unwrap();
            let (hi, lo) = lsn.split_once('/').unwrap();
            let v =
                u64::from_str_radix(hi, 16).unwrap() << 32 | u64::from_str_radix(lo, 16).unwrap();
            (b.parse().unwrap(), v)
        })
        .collect()
}

#[test]
fn copies_made_by_postgresql_differ_where_their_bytes_do() {
    let mut c = Cluster::start(15);
    let root = c.root.clone();
    c.psql(&[
        "CREATE EXTENSION pageinspect",
        "CREATE TABLE t (id int, v text) WITH (autovacuum_enabled = off)",
        "INSERT INTO t SELECT g, repeat('x', 100) FROM generate_series(1, 3000) g",
        "VACUUM t",
        "CHECKPOINT",
    ]);
    let file = c.file("SELECT pg_relation_filepath('t')");
    let name = file.file_name().unwrap().to_owned();
    let (dir_a, dir_b) = (root.join("a"), root.join("b"));
    std::fs::create_dir(&dir_a).unwrap();
    std::fs::create_dir(&dir_b).unwrap();
    let (copy_a, copy_b) = (dir_a.join(&name), dir_b.join(&name));
    let lsn_a = server_lsns(&c);
    std::fs::copy(&file, &copy_a).unwrap();
    // Updates in a few pages, a delete in another, rows added past the end (pages only B
    // has), then a checkpoint writes them all.
    c.psql(&[
        "UPDATE t SET v = 'updated' WHERE id % 700 = 0",
        "DELETE FROM t WHERE id = 1500",
        "INSERT INTO t SELECT g, repeat('y', 100) FROM generate_series(3001, 3300) g",
        "CHECKPOINT",
    ]);
    let lsn_b = server_lsns(&c);
    std::fs::copy(&file, &copy_b).unwrap();
    c.stop();

    let (a, b) = (
        std::fs::read(&copy_a).unwrap(),
        std::fs::read(&copy_b).unwrap(),
    );
    let out = diff(&copy_a, &copy_b);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v = json(&out);
    let listed: BTreeMap<u64, &Value> = v["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["block"].as_u64().unwrap(), p))
        .collect();
    let (na, nb) = ((a.len() / 8192) as u64, (b.len() / 8192) as u64);
    assert!(nb > na, "the inserts extended the table");
    let mut differing = 0;
    for block in 0..na.max(nb) {
        let page = |f: &[u8]| {
            f.get(block as usize * 8192..(block as usize + 1) * 8192)
                .map(<[u8]>::to_vec)
        };
        match (page(&a), page(&b)) {
            (Some(x), Some(y)) if x == y => {
                assert!(!listed.contains_key(&block), "block {block} is equal");
                assert_eq!(lsn_a[&block], lsn_b[&block]);
            }
            (Some(x), Some(y)) => {
                differing += 1;
                let p = listed[&block];
                assert_eq!(p["state"], "different");
                let changed = x.iter().zip(&y).filter(|(i, j)| i != j).count();
                assert_eq!(p["bytes_changed"], changed);
                let want = match lsn_a[&block].cmp(&lsn_b[&block]) {
                    std::cmp::Ordering::Greater => "a",
                    std::cmp::Ordering::Less => "b",
                    std::cmp::Ordering::Equal => "same",
                };
                assert_eq!(p["newer"], want, "block {block}");
            }
            (None, Some(_)) => assert_eq!(listed[&block]["state"], "only_b"),
            other => panic!("block {block}: {other:?}"),
        }
    }
    assert!(differing >= 3, "the updates and the delete changed pages");
    assert_eq!(listed.len() as u64, differing + (nb - na));
    assert_eq!(v["summary"]["different"], differing);
    assert_eq!(v["summary"]["only_b"], nb - na);
    assert_eq!(v["summary"]["equal"], na - differing);
    // The same through the directories.
    let v = json(&diff(&dir_a, &dir_b));
    assert_eq!(v["files"][0]["summary"]["different"], differing);
}

// ---- inspect --bit-flips ----------------------------------------------------------------

/// A real heap page (block 0, its pageinspect checksum stored) with one bit flipped: the
/// flipped bit is listed, structurally valid, with the odds in words; a sound page gets none.
#[test]
fn inspect_bit_flips_lists_the_flipped_bit_with_the_odds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/heap_nulls_frozen");
    let mut page = std::fs::read(dir.join("page.bin")).unwrap();
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    assert_eq!(expected["block"], 0);
    let checksum = expected["checksum"].as_u64().unwrap() as u16;
    page[8..10].copy_from_slice(&checksum.to_le_bytes());
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("16384");
    std::fs::write(&file, &page).unwrap();
    let f = file.to_str().unwrap();
    let sound = json(&pgpage(&["inspect", "--json", "--bit-flips", f]));
    assert!(sound["blocks"][0].get("bit_flips").is_none());
    page[7000] ^= 0x20;
    std::fs::write(&file, &page).unwrap();
    let out = pgpage(&["inspect", "--json", "--bit-flips", f]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    let flips = &v["blocks"][0]["bit_flips"];
    assert_eq!(flips["searched"], 65536);
    let cands = flips["candidates"].as_array().unwrap();
    let truth = cands
        .iter()
        .find(|c| c["offset"] == 7000 && c["bit"] == 5)
        .unwrap_or_else(|| panic!("{flips}"));
    assert_eq!(truth["structurally_valid"], true);
    assert_eq!(
        cands[0]["structurally_valid"], true,
        "valid candidates first"
    );
    assert!((flips["chance"]["expected"].as_f64().unwrap() - 65536.0 / 65535.0).abs() < 1e-9);
    assert!(flips["note"]
        .as_str()
        .unwrap()
        .contains("evidence, not proof"));
    let text = pgpage(&["inspect", "--bit-flips", f]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("byte 7000 bit 5"), "{text}");
}

/// Two copies of a table by PostgreSQL: before and after a SELECT that set the tuples' hint
/// bits (and the server wrote the page again), and after an UPDATE. The first pair differs
/// only in hint bits, which `diff` says (the server returns the same rows from both); the
/// UPDATE's page is never called so.
fn hint_bits_only_said(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create table t (id int, note text) with (autovacuum_enabled = off)",
        "insert into t select g, 'note ' || g from generate_series(1, 500) g",
        "checkpoint",
    ]);
    let file = c.file("select pg_relation_filepath('t')");
    let before = c.root.join("before");
    std::fs::copy(&file, &before).unwrap();
    let rows_before = c.psql(&["select count(*), sum(id) from t"]);
    c.psql(&["checkpoint"]);
    let hinted = c.root.join("hinted");
    std::fs::copy(&file, &hinted).unwrap();
    c.psql(&["update t set note = 'changed' where id = 1", "checkpoint"]);
    let updated = c.root.join("updated");
    std::fs::copy(&file, &updated).unwrap();
    c.stop();
    let text = |a: &Path, b: &Path| {
        String::from_utf8(pgpage(&["diff", a.to_str().unwrap(), b.to_str().unwrap()]).stdout)
            .unwrap()
    };
    let said = "only hint bits and free space differ";
    let hints = text(&before, &hinted);
    let block_lines: Vec<&str> = hints
        .lines()
        .filter(|l| l.contains(": different"))
        .collect();
    assert!(!block_lines.is_empty(), "{hints}");
    assert!(block_lines.iter().all(|l| l.contains(said)), "{hints}");
    // The summary counts no hint bit as a difference, and says how many pages it leaves out.
    assert!(
        hints.contains(&format!(
            "differences: 0 bytes changed (0 bits set, 0 cleared) in 0 512-byte sectors; besides, {} only in hint bits",
            if block_lines.len() == 1 {
                String::from("1 page differs")
            } else {
                format!("{} pages differ", block_lines.len())
            }
        )),
        "{hints}"
    );
    let j = json(&diff(&before, &hinted));
    assert!(
        j["pages"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["hints_only"] == true),
        "{j:#}"
    );
    // The update changed block 0's tuples: that page is not hints only.
    let changed = text(&hinted, &updated);
    let block0 = changed
        .lines()
        .find(|l| l.contains("block 0: different"))
        .unwrap_or_else(|| panic!("{changed}"));
    assert!(!block0.contains(said), "{changed}");
    // The server read the same rows before the hint bits were set.
    assert!(rows_before.contains("500|125250"), "{rows_before}");
}

each_version!(hint_bits_only_said);
