//! verify_heapam's checks that need more than the page (the attribute count against
//! pg_class.relnatts; xmin, xmax and MultiXactIds against the cluster's horizon and the
//! relation's relfrozenxid/relminmxid) held against amcheck, PostgreSQL 13 to 19: a table is
//! built, the server stopped, copies of its pages damaged (natts above relnatts, an xmin in
//! the future, an unfrozen xmin before relfrozenxid, an xmin before the oldest xid without
//! hint bits, a MultiXactId xmax past nextMulti), the server started again and verify_heapam
//! run (14 on; 13's server only refuses the row it cannot look up). The context comes from
//! the server (pg_class, pg_control_checkpoint()) and pg_xact on disk; every finding is at
//! amcheck's block and offset both ways, untouched and frozen tables give none, and
//! `pgpage inspect` of the file inside the data directory finds the context itself.

use std::collections::HashSet;
use std::fs;
use std::path::Path;

use crate::common::page::{put_u16, u16_at, BLCKSZ};
use crate::common::{pgpage, Cluster};
use pgpage::am::decode_page_with;
use pgpage::am::decoded::{DecodeOptions, Hints, Items};
use pgpage::am::heap::check::HeapContext;
use pgpage::findings::{Evidence, Finding};
use pgpage::page::checksum::pg_checksum_page;
use pgpage::tuple::visibility::{slru_segment_number, SlruKind, TransactionLog};
use pgpage::Endian;

/// The findings this context adds, by a fragment of amcheck's message.
fn xid_rule(msg: &str) -> Option<Finding> {
    let rules = [
        ("number of attributes", Finding::HeapNattsExceedsRelnatts),
        (
            "xmin %u equals or exceeds next valid transaction ID",
            Finding::HeapXminInFuture,
        ),
        (
            "xmin %u precedes oldest valid transaction ID",
            Finding::HeapXminBeforeOldest,
        ),
        (
            "xmin %u precedes relation freeze threshold",
            Finding::HeapXminBeforeRelfrozenxid,
        ),
        (
            "xmax %u equals or exceeds next valid transaction ID",
            Finding::HeapXmaxInFuture,
        ),
        (
            "xmax %u precedes oldest valid transaction ID",
            Finding::HeapXmaxBeforeOldest,
        ),
        (
            "xmax %u precedes relation freeze threshold",
            Finding::HeapXmaxBeforeRelfrozenxid,
        ),
        (
            "multitransaction ID %u precedes relation minimum",
            Finding::HeapMultiBeforeRelminmxid,
        ),
        (
            "multitransaction ID %u precedes oldest valid",
            Finding::HeapMultiBeforeOldest,
        ),
        (
            "multitransaction ID %u equals or exceeds next valid",
            Finding::HeapMultiInFuture,
        ),
    ];
    // amcheck's message with its numbers put back as %u, to match the registry's words.
    let mut shape = String::new();
    let mut digits = false;
    for ch in msg.chars() {
        if ch.is_ascii_digit() {
            if !digits {
                shape.push_str("%u");
            }
            digits = true;
        } else {
            digits = false;
            shape.push(ch);
        }
    }
    rules
        .iter()
        .find(|(m, _)| shape.contains(m))
        .map(|&(_, f)| f)
}

fn is_xid_finding(f: Finding) -> bool {
    [
        Finding::HeapNattsExceedsRelnatts,
        Finding::HeapXminInFuture,
        Finding::HeapXminBeforeOldest,
        Finding::HeapXminBeforeRelfrozenxid,
        Finding::HeapXmaxInFuture,
        Finding::HeapXmaxBeforeOldest,
        Finding::HeapXmaxBeforeRelfrozenxid,
        Finding::HeapMultiBeforeRelminmxid,
        Finding::HeapMultiBeforeOldest,
        Finding::HeapMultiInFuture,
        Finding::HeapUpdateXidInvalid,
        Finding::HeapUpdateXidInFuture,
        Finding::HeapUpdateXidBeforeOldest,
        Finding::HeapUpdateXidBeforeRelfrozenxid,
    ]
    .contains(&f)
}

/// pg_xact and pg_multixact of a data directory.
fn transaction_log(data: &Path) -> TransactionLog {
    let mut log = TransactionLog::new(BLCKSZ, Endian::Little);
    for (dir, kind) in [
        ("pg_xact", SlruKind::Xact),
        ("pg_multixact/offsets", SlruKind::MultiXactOffsets),
        ("pg_multixact/members", SlruKind::MultiXactMembers),
    ] {
        for e in fs::read_dir(data.join(dir)).unwrap().flatten() {
            let name = e.file_name().into_string().unwrap();
            if let Some(n) = slru_segment_number(&name) {
                log.add_segment(kind, n, fs::read(e.path()).unwrap());
            }
        }
    }
    log
}

/// The relation's pg_class row and the horizon as the server reports them.
struct Horizon {
    relnatts: u16,
    relfrozenxid: u32,
    relminmxid: u32,
    next_full_xid: u64,
    oldest_xid: u32,
    oldest_multi: u32,
    next_multi: u32,
    pg_control_version: u32,
}

fn horizon(c: &Cluster, table: &str) -> Horizon {
    let class = c.psql(&[&format!(
        "select relnatts || '|' || relfrozenxid || '|' || relminmxid from pg_class where relname = '{table}'"
    )]);
    let class: Vec<u32> = class
        .trim()
        .split('|')
        .map(|v| v.parse().unwrap())
        .collect();
    let cp = c.psql(&[
        "select next_xid || '|' || oldest_xid || '|' || oldest_multi_xid || '|' || next_multixact_id from pg_control_checkpoint()",
    ]);
    let cp: Vec<&str> = cp.trim().split('|').collect();
    let (epoch, xid) = cp[0].split_once(':').unwrap();
    let pg_control_version: u32 = c
        .psql(&["select pg_control_version from pg_control_system()"])
        .trim()
        .parse()
        .unwrap();
    Horizon {
        pg_control_version,
        relnatts: class[0] as u16,
        relfrozenxid: class[1],
        relminmxid: class[2],
        next_full_xid: (epoch.parse::<u64>().unwrap() << 32) | xid.parse::<u64>().unwrap(),
        oldest_xid: cp[1].parse().unwrap(),
        oldest_multi: cp[2].parse().unwrap(),
        next_multi: cp[3].parse().unwrap(),
    }
}

fn context<'a>(h: &Horizon, log: &'a TransactionLog) -> HeapContext<'a> {
    HeapContext {
        relnatts: h.relnatts,
        pg_control_version: h.pg_control_version,
        relfrozenxid: h.relfrozenxid,
        relminmxid: h.relminmxid,
        next_full_xid: h.next_full_xid,
        oldest_xid: h.oldest_xid,
        oldest_multi: h.oldest_multi,
        next_multi: h.next_multi,
        next_known: true,
        xact: Some(log),
    }
}

/// Every (block, item, finding) pgpage reports with the context.
fn findings(bytes: &[u8], ctx: &HeapContext) -> HashSet<(u32, u16, Finding)> {
    let mut out = HashSet::new();
    for (b, page) in bytes.chunks_exact(BLCKSZ).enumerate() {
        let hints = Hints {
            heap: Some(ctx),
            ..Hints::default()
        };
        let d = decode_page_with(page, b as u32, &DecodeOptions::default(), &hints);
        for s in d.problems() {
            let f = s.problem.unwrap();
            if f.evidence() != Evidence::Note {
                out.insert((b as u32, s.item.unwrap_or(0), f));
            }
        }
    }
    out
}

fn put_u32(p: &mut [u8], at: usize, v: u32) {
    p[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// A committed, never-updated tuple of block `block` without nulls: its line pointer and
/// the tuple's offset in the page.
fn plain_tuple(p: &[u8], block: u32) -> (u16, usize) {
    let rows = match decode_page_with(p, block, &DecodeOptions::default(), &Hints::default()).items
    {
        Items::Heap(rows) => rows,
        _ => panic!("block {block} is not a heap page"),
    };
    let r = rows
        .iter()
        .find(|r| {
            r.lp_flags == 1
                && r.t_xmax.as_deref() == Some("0")
                && r.t_infomask2.is_some_and(|m| m & 0xC000 == 0)
                && r.t_infomask
                    .is_some_and(|m| m & 0x2001 == 0 && m & 0x0100 != 0 && m & 0x0800 != 0)
        })
        .unwrap_or_else(|| panic!("no plain tuple on block {block}"));
    (r.lp, usize::from(r.lp_off))
}

fn fix_checksums(bytes: &mut [u8]) {
    for (b, p) in bytes.chunks_exact_mut(BLCKSZ).enumerate() {
        let c = pg_checksum_page(p, b as u32, Endian::Little);
        p[8..10].copy_from_slice(&c.to_le_bytes());
    }
}

fn held_against_amcheck(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create extension amcheck",
        // Transactions before the table's, so its relfrozenxid is above the oldest xid.
        "select txid_current()",
        "select txid_current()",
        "select txid_current()",
        "create table x (id int4, s text) with (autovacuum_enabled = off)",
        "insert into x select g, 'row ' || g from generate_series(1, 1500) g",
        "create table f (id int4, s text) with (autovacuum_enabled = off)",
        "insert into f select g, 'row ' || g from generate_series(1, 1500) g",
        "delete from f where id % 7 = 0",
        "vacuum freeze f",
        "select count(*) from x",
        "checkpoint",
    ]);
    let x_path = c.file("select pg_relation_filepath('x')");
    let f_path = c.file("select pg_relation_filepath('f')");
    if version >= 14 {
        for t in ["x", "f"] {
            let n = c.psql(&[&format!("select count(*) from verify_heapam('{t}')")]);
            assert_eq!(n.trim(), "0", "{version} {t}");
        }
    }
    let hx = horizon(&c, "x");
    let hf = horizon(&c, "f");
    c.stop();
    let log = transaction_log(&c.data);
    let (ctx_x, ctx_f) = (context(&hx, &log), context(&hf, &log));
    let x = fs::read(&x_path).unwrap();
    let f = fs::read(&f_path).unwrap();
    assert!(x.len() / BLCKSZ >= 5, "{}", x.len());
    let clean: Vec<_> = findings(&x, &ctx_x).into_iter().collect();
    assert!(clean.is_empty(), "{version}: untouched x: {clean:?}");
    let clean: Vec<_> = findings(&f, &ctx_f).into_iter().collect();
    assert!(clean.is_empty(), "{version}: frozen f: {clean:?}");

    // ---- one corruption a block ----
    let mut d = x.clone();
    let page = |d: &mut [u8], b: usize| -> (u16, usize) {
        let p = &d[b * BLCKSZ..(b + 1) * BLCKSZ];
        plain_tuple(p, b as u32)
    };
    // Block 0: three more attributes than relnatts.
    let (natts_lp, off) = page(&mut d, 0);
    let at = off + 18;
    let m2 = u16_at(&d, at) & !0x07FF | (hx.relnatts + 3);
    put_u16(&mut d, at, m2);
    // Block 1: xmin past nextXid.
    let (future_lp, off) = page(&mut d, 1);
    let next = hx.next_full_xid as u32;
    put_u32(&mut d, BLCKSZ + off, next + 1000);
    // Block 2: an unfrozen xmin just before relfrozenxid (and not before the oldest xid).
    let (relmin_lp, off) = page(&mut d, 2);
    assert!(hx.relfrozenxid > hx.oldest_xid, "{version}");
    put_u32(&mut d, 2 * BLCKSZ + off, hx.relfrozenxid - 1);
    // Block 3: xmax a MultiXactId past nextMulti, as lockers sharing the row leave it (lock
    // only: 16's verify_heapam looks up an updating MultiXactId's members before it checks
    // the range, and errors out).
    let (multi_lp, off) = page(&mut d, 3);
    let at = 3 * BLCKSZ + off;
    put_u32(&mut d, at + 4, hx.next_multi + 10);
    let m = (u16_at(&d, at + 20) & !0x0800) | 0x1000 | 0x0080;
    put_u16(&mut d, at + 20, m);
    // Block 4: an xmin pg_xact no longer covers, without hint bits.
    let (old_lp, off) = page(&mut d, 4);
    let at = 4 * BLCKSZ + off;
    put_u32(&mut d, at, 3_000_000_000);
    let m = u16_at(&d, at + 20) & !0x0300;
    put_u16(&mut d, at + 20, m);
    fix_checksums(&mut d);
    fs::write(&x_path, &d).unwrap();

    let ours = findings(&d, &ctx_x);
    let expected = [
        (0, natts_lp, Finding::HeapNattsExceedsRelnatts),
        (1, future_lp, Finding::HeapXminInFuture),
        (2, relmin_lp, Finding::HeapXminBeforeRelfrozenxid),
        (3, multi_lp, Finding::HeapMultiInFuture),
        (4, old_lp, Finding::HeapXminBeforeOldest),
    ];
    for e in expected {
        assert!(
            ours.contains(&e),
            "{version}: pgpage misses {e:?}: {ours:?}"
        );
    }
    // Without the context none of these is judged.
    let bare: HashSet<_> = d
        .chunks_exact(BLCKSZ)
        .enumerate()
        .flat_map(|(b, p)| {
            decode_page_with(p, b as u32, &DecodeOptions::default(), &Hints::default())
                .problems()
                .map(|s| s.problem.unwrap())
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        !bare.iter().any(|f| is_xid_finding(*f)),
        "{version}: {bare:?}"
    );

    // ---- `pgpage inspect` of the file in its data directory finds the context ----
    let out = pgpage(&["inspect", x_path.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    // Each finding's words with its numbers in (no "…" or %u left); the numbers are held
    // against verify_heapam's messages below.
    assert!(
        !text.contains('…') && !text.contains("%u"),
        "{version}: {text}"
    );
    for (_, _, f) in expected {
        // amcheck 19 words this one with the maximum before "expected".
        let words = if version >= 19 && f == Finding::HeapNattsExceedsRelnatts {
            String::from("number of attributes … exceeds maximum … expected for table")
        } else {
            f.message_unvalued()
        };
        let parts: Vec<&str> = words.split('…').collect();
        let said = text.lines().any(|l| {
            let mut rest = l;
            parts.iter().all(|p| match rest.find(p) {
                Some(at) => {
                    rest = &rest[at + p.len()..];
                    true
                }
                None => false,
            })
        });
        assert!(said, "{version}: inspect lacks \"{words}\"");
    }

    c.restart();
    // The server cannot look up the xmin before the oldest xid (13 too).
    let err = c
        .try_psql(&format!("select * from x where ctid = '(4,{old_lp})'"))
        .unwrap_err();
    // 19 says it in the DETAIL of the file's error (clog.c clog_errdetail_for_io_error).
    let refusal = if version >= 19 {
        "Could not access commit status of transaction 3000000000"
    } else {
        "could not access status of transaction 3000000000"
    };
    assert!(err.contains(refusal), "{version}: {err}");
    if version < 14 {
        eprintln!("PostgreSQL {version}: no verify_heapam; the server refuses the old xmin");
        return;
    }
    let rows =
        c.psql(&["select blkno || '|' || offnum || '|' || msg from verify_heapam('x') order by 1"]);
    let mut theirs = HashSet::new();
    for l in rows.lines().filter(|l| !l.is_empty()) {
        let mut it = l.splitn(3, '|');
        let blk: u32 = it.next().unwrap().parse().unwrap();
        let off: u16 = it.next().unwrap().parse().unwrap();
        let msg = it.next().unwrap();
        let f = xid_rule(msg).unwrap_or_else(|| panic!("{version}: unexpected \"{msg}\""));
        assert!(
            ours.contains(&(blk, off, f)),
            "{version}: amcheck ({blk},{off}) \"{msg}\" but pgpage: {ours:?}"
        );
        theirs.insert((blk, off, f));
        // inspect printed verify_heapam's message word for word.
        assert!(
            text.contains(&format!("(item {off}): {msg}")),
            "{version}: inspect lacks \"{msg}\""
        );
    }
    for o in &ours {
        assert!(
            theirs.contains(o),
            "{version}: pgpage {o:?} but amcheck: {rows}"
        );
    }
    assert_eq!(theirs.len(), expected.len(), "{version}: {rows}");
    eprintln!(
        "PostgreSQL {version}: {} verify_heapam findings matched",
        theirs.len()
    );
}

each_version!(held_against_amcheck);

/// `pgpage repair`'s pg_surgery SQL for a tuple whose xmin the server cannot look up: run in
/// the server (pg_surgery is in Debian's 15 only among the builds here), heap_force_freeze
/// makes the row readable again and every row is back.
#[test]
fn heap_force_freeze_from_repair_makes_the_row_readable_15() {
    let mut c = Cluster::start(15);
    c.psql(&[
        "create table x (id int4, s text) with (autovacuum_enabled = off)",
        "insert into x select g, 'row ' || g from generate_series(1, 1500) g",
        "select count(*) from x",
        "checkpoint",
    ]);
    let x_path = c.file("select pg_relation_filepath('x')");
    c.stop();
    let mut d = fs::read(&x_path).unwrap();
    let (lp, off) = plain_tuple(&d[BLCKSZ..2 * BLCKSZ], 1);
    let at = BLCKSZ + off;
    let id = u32::from_le_bytes(d[at + 24..at + 28].try_into().unwrap());
    put_u32(&mut d, at, 3_000_000_000);
    let m = u16_at(&d, at + 20) & !0x0300;
    put_u16(&mut d, at + 20, m);
    fix_checksums(&mut d);
    fs::write(&x_path, &d).unwrap();
    c.restart();
    let err = c.try_psql("select count(*) from x").unwrap_err();
    assert!(
        err.contains("could not access status of transaction"),
        "{err}"
    );

    let out = pgpage(&["repair", "--json", "--block", "1", x_path.to_str().unwrap()]);
    let v = crate::common::json(&out);
    let ctid = format!("(1,{lp})");
    assert_eq!(v["freeze"], serde_json::json!([ctid]), "{v}");
    let sql = v["surgery_sql"].as_str().unwrap();
    let freeze = format!("SELECT heap_force_freeze('public.x'::regclass, ARRAY['{ctid}']::tid[]);");
    assert!(sql.lines().any(|l| l == freeze), "{sql}");
    assert!(
        !sql.lines().any(|l| l.starts_with("SELECT heap_force_kill")),
        "{sql}"
    );
    let statements: Vec<&str> = sql
        .lines()
        .filter(|l| !l.starts_with("--") && !l.is_empty())
        .collect();
    c.psql(&statements);
    assert_eq!(c.psql(&["select count(*) from x"]).trim(), "1500");
    assert_eq!(
        c.psql(&[&format!("select s from x where ctid = '{ctid}'")])
            .trim(),
        format!("row {id}")
    );
}
