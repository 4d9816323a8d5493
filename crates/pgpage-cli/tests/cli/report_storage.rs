//! Damage around a table's pages, held against PostgreSQL 13 to 19. A table's file cut
//! short: the server's sequential scans end at the file's end without a word, while an index lookup of a row that was past it
//! fails. The report must name each block past the end that the indexes point into, with
//! the keys of the rows they held (the server's own ctids before the cut).

use std::collections::BTreeSet;
use std::fs;

use crate::common::{json, pgpage, Cluster};

fn truncated(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create table t (id int primary key, v text)",
        "create index on t (v)",
        "insert into t select g, 'value ' || g from generate_series(1, 3000) g",
        "checkpoint",
    ]);
    let path = c
        .data
        .join(c.psql(&["select pg_relation_filepath('t')"]).trim());
    let blocks = fs::metadata(&path).unwrap().len() / 8192;
    assert!(blocks > 5, "PostgreSQL {version}: {blocks} blocks");
    let cut = blocks - 2;
    let lost: BTreeSet<String> = c
        .psql(&[&format!(
            "select id from t where (ctid::text::point)[0] >= {cut} order by 1"
        )])
        .lines()
        .map(str::to_owned)
        .collect();
    assert!(!lost.is_empty());
    c.stop();
    let whole = fs::read(&path).unwrap();
    let f = fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len(cut * 8192).unwrap();
    drop(f);

    let report = json(&pgpage(&["report", "--json", c.data.to_str().unwrap()]));
    let rel = report["relations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["relation"] == "public.t")
        .unwrap_or_else(|| panic!("PostgreSQL {version}: {report:#}"));
    let missing: Vec<u64> = rel["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["damage"] == "missing")
        .map(|b| b["block"].as_u64().unwrap())
        .collect();
    assert_eq!(missing, [cut, cut + 1], "PostgreSQL {version}: {report:#}");
    let keys: BTreeSet<String> = rel["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["damage"] == "missing")
        .flat_map(|b| b["rows"]["keys"].as_array().unwrap().clone())
        .map(|k| k[0].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        keys, lost,
        "PostgreSQL {version}: the lost keys are the rows past the cut"
    );
    assert!(
        report["verdict"]
            .as_str()
            .unwrap()
            .contains("2 blocks past the end of a table's file"),
        "PostgreSQL {version}: {}",
        report["verdict"]
    );

    // The backup's pages, where no WAL is left: blocks past the end are written together
    // with every block before them, giving the file as it was before the cut.
    let scratch = crate::common::pg_tempdir();
    // A copy without its WAL: the backup's pages are the way the steps give, one command
    // for the file with both blocks.
    let nowal = scratch.path().join("nowal");
    crate::common::copy_dir(&c.data, &nowal);
    for seg in fs::read_dir(nowal.join("pg_wal")).unwrap() {
        let seg = seg.unwrap().path();
        if seg.is_file() {
            fs::remove_file(seg).unwrap();
        }
    }
    let without = json(&pgpage(&["report", "--json", nowal.to_str().unwrap()]));
    let steps = crate::common::steps_of(&without).join("\n");
    let inside = path.strip_prefix(&c.data).unwrap();
    assert!(
        steps.contains(&format!(
            "pgpage repair --block {cut} --block {} --from BACKUP_FILE --out NEW {}",
            cut + 1,
            nowal.join(inside).display()
        )),
        "PostgreSQL {version}: {steps}"
    );
    let backup = scratch.path().join("backup");
    fs::write(&backup, &whole).unwrap();
    let alone = pgpage(&[
        "repair",
        "--block",
        &(cut + 1).to_string(),
        "--from",
        backup.to_str().unwrap(),
        "--out",
        scratch.path().join("alone").to_str().unwrap(),
        path.to_str().unwrap(),
    ]);
    let said = String::from_utf8_lossy(&alone.stderr);
    assert!(
        alone.status.code() == Some(2)
            && said.contains(&format!("--block {cut} --block {}", cut + 1))
            && !scratch.path().join("alone").exists(),
        "PostgreSQL {version}: a block past the end alone would leave a hole: {said}"
    );
    let new = scratch.path().join("new");
    let both = pgpage(&[
        "repair",
        "--block",
        &cut.to_string(),
        "--block",
        &(cut + 1).to_string(),
        "--from",
        backup.to_str().unwrap(),
        "--out",
        new.to_str().unwrap(),
        path.to_str().unwrap(),
    ]);
    assert!(
        both.status.success(),
        "PostgreSQL {version}: {}",
        String::from_utf8_lossy(&both.stderr)
    );
    assert!(
        fs::read(&new).unwrap() == whole,
        "PostgreSQL {version}: the new file is the file before the cut"
    );
    assert_eq!(
        fs::metadata(&path).unwrap().len(),
        cut * 8192,
        "the input is never written"
    );

    // The server: the rows are gone from a sequential scan, and an index lookup fails.
    c.restart();
    let count: usize = c.psql(&["select count(*) from t"]).trim().parse().unwrap();
    assert_eq!(count, 3000 - lost.len(), "PostgreSQL {version}");
    let key = lost.iter().next().unwrap();
    let out = c.psql_output(
        "postgres",
        &[
            "set enable_seqscan = off",
            &format!("select * from t where id = {key}"),
        ],
    );
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && said.contains("could not read block"),
        "PostgreSQL {version}: {said}"
    );
}

each_version!(truncated);

/// An index page written over by another block's page, byte for byte: the report names the
/// block it holds whatever a flipped checksum bit might also explain, and the server refuses
/// the page.
fn index_page_copied(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create table t (id int primary key, v text)",
        "insert into t select g, 'value ' || g from generate_series(1, 3000) g",
        "checkpoint",
    ]);
    let path = c
        .data
        .join(c.psql(&["select pg_relation_filepath('t_pkey')"]).trim());
    c.stop();
    let mut bytes = fs::read(&path).unwrap();
    assert!(
        bytes.len() >= 8 * 8192,
        "PostgreSQL {version}: {} bytes",
        bytes.len()
    );
    let three = bytes[3 * 8192..4 * 8192].to_vec();
    bytes[5 * 8192..6 * 8192].copy_from_slice(&three);
    fs::write(&path, &bytes).unwrap();

    let report = json(&pgpage(&["report", "--json", c.data.to_str().unwrap()]));
    let b = crate::common::block_of(&report, "public.t_pkey", 5);
    assert!(
        b["damage"] == "misplaced" && b["holds_block"] == 3,
        "PostgreSQL {version}: {b:#}"
    );
    c.restart();
    let out = c.psql_output(
        "postgres",
        &[
            "create extension amcheck",
            "select bt_index_check('t_pkey')",
        ],
    );
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("invalid page in block 5"),
        "PostgreSQL {version}: {said}"
    );
}

each_version!(index_page_copied);

/// An index whose file is gone: the server fails the queries that open it; the report says
/// so and holds no row against it (every row would lack its entry).
fn index_file_removed(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create table t (id int primary key, v text)",
        "create index t_v on t (v)",
        "insert into t select g, 'value ' || g from generate_series(1, 3000) g",
        "checkpoint",
    ]);
    let path = c
        .data
        .join(c.psql(&["select pg_relation_filepath('t_v')"]).trim());
    c.stop();
    fs::remove_file(&path).unwrap();

    let report = json(&pgpage(&["report", "--json", c.data.to_str().unwrap()]));
    assert!(
        report["verdict"]
            .as_str()
            .unwrap()
            .starts_with("1 index without its file (public.t_v)")
            && report["missing_indexes"][0]["sql_index"] == "public.t_v"
            && report["relations"].as_array().unwrap().is_empty(),
        "PostgreSQL {version}: {report:#}"
    );
    c.restart();
    let out = c.psql_output(
        "postgres",
        &[
            "set enable_seqscan = off",
            "select * from t where v = 'value 7'",
        ],
    );
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && said.contains("could not open file"),
        "PostgreSQL {version}: {said}"
    );
}

each_version!(index_file_removed);

/// Another table's block written over a table's block of the same number: its checksum is
/// valid there, and the server reads its rows as the table's. The report names the page as
/// holding other rows (misplaced), not as rows changed in memory, and its way back is the
/// WAL's replay, since the WAL holds the block. The other table's keys are the table's own
/// keys too, as two tables numbered from 1 have them: each row's key is held elsewhere in
/// the table's index, as an older version's would be, but no row is as the index has it.
fn other_tables_page(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create table a (id int primary key, v text, w int)",
        "create index on a (w)",
        "insert into a select g, 'a value ' || g, g from generate_series(1, 3000) g",
        "checkpoint",
        "update a set w = w + 1",
        // b's pages are newer than every record of a's block: no older version of a's.
        "create table b (x int primary key, y text)",
        "insert into b select g, 'b value ' || g from generate_series(1, 3000) g",
    ]);
    let pa = c
        .data
        .join(c.psql(&["select pg_relation_filepath('a')"]).trim());
    let pb = c
        .data
        .join(c.psql(&["select pg_relation_filepath('b')"]).trim());
    c.stop();
    let from = fs::read(&pb).unwrap();
    let mut bytes = fs::read(&pa).unwrap();
    bytes[3 * 8192..4 * 8192].copy_from_slice(&from[3 * 8192..4 * 8192]);
    fs::write(&pa, &bytes).unwrap();

    let report = json(&pgpage(&["report", "--json", c.data.to_str().unwrap()]));
    let b = crate::common::block_of(&report, "public.a", 3);
    assert!(
        b["damage"] == "misplaced" && b["route"] == "recover" && b["status"] == "ok",
        "PostgreSQL {version}: {b:#}"
    );
    assert!(
        !report["steps"]
            .to_string()
            .contains("heap_force_kill(public.a"),
        "PostgreSQL {version}: no row of the page is removed one by one"
    );
}

each_version!(other_tables_page);

/// One header field set to another value still in PageIsVerified's range, the checksum left
/// as written: the report names the field and the value the stored checksum and the line
/// pointers agree on, and `repair --set` with it gives back the page the server wrote.
fn header_field_in_range(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create table t (id int primary key, v text)",
        "insert into t select g, 'value ' || g from generate_series(1, 3000) g",
        "checkpoint",
    ]);
    let path = c
        .data
        .join(c.psql(&["select pg_relation_filepath('t')"]).trim());
    c.stop();
    let mut bytes = fs::read(&path).unwrap();
    let original = bytes[4 * 8192..5 * 8192].to_vec();
    let upper = u16::from_le_bytes([original[14], original[15]]);
    let lower = u16::from_le_bytes([original[12], original[13]]);
    let scribbled = lower + (upper - lower) / 2 / 8 * 8;
    assert!(scribbled > lower && scribbled < upper);
    bytes[4 * 8192 + 14..4 * 8192 + 16].copy_from_slice(&scribbled.to_le_bytes());
    fs::write(&path, &bytes).unwrap();

    let report = json(&pgpage(&["report", "--json", c.data.to_str().unwrap()]));
    let b = crate::common::block_of(&report, "public.t", 4);
    assert!(
        b["damage"] == "header_field"
            && b["header_field"]["field"] == "pd_upper"
            && b["header_field"]["value"] == u64::from(upper)
            && b["route"] == "confirmed_field",
        "PostgreSQL {version}: {b:#}"
    );
    let out = c.root.join("fixed");
    let set = format!("pd_upper={upper}");
    let run = pgpage(&[
        "repair",
        "--block",
        "4",
        "--set",
        &set,
        "--out",
        out.to_str().unwrap(),
        path.to_str().unwrap(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(
        fs::read(&out).unwrap()[4 * 8192..5 * 8192],
        original[..],
        "PostgreSQL {version}: the page as the server wrote it"
    );
}

each_version!(header_field_in_range);

/// A table's file that ends in a partial page: the server counts whole blocks only, so it
/// reads every row of the whole pages without an error, while the report names the partial
/// page rather than finding no damage.
fn partial_page(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create table t (id int primary key, v text)",
        "insert into t select g, 'value ' || g from generate_series(1, 3000) g",
        "checkpoint",
    ]);
    let path = c
        .data
        .join(c.psql(&["select pg_relation_filepath('t')"]).trim());
    let count = c.psql(&["select count(*) from t"]).trim().to_owned();
    c.stop();
    let mut bytes = fs::read(&path).unwrap();
    let blocks = bytes.len() / 8192;
    bytes.extend(std::iter::repeat_n(0x5a, 3000));
    fs::write(&path, &bytes).unwrap();

    let out = pgpage(&["report", "--json", c.data.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "PostgreSQL {version}");
    let report = json(&out);
    let said = report["partial_pages"][0].as_str().unwrap_or_default();
    assert!(
        said.contains(&format!(
            "ends 3000 bytes into block {blocks} (a partial page)"
        )) && report["verdict"].as_str().unwrap().contains(said),
        "PostgreSQL {version}: {report:#}"
    );
    c.restart();
    assert_eq!(c.psql(&["select count(*) from t"]).trim(), count);
}

each_version!(partial_page);

/// A page put back from an older copy after some of its rows were updated elsewhere: each
/// of those rows is then held twice, the older version on the page and the newer one where
/// the update put it. The report names each key's two TIDs under the unique index, as the
/// server's own ctids give them, and says REINDEX fails on them, which the server confirms.
fn duplicate_keys(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create table t (id int primary key, v text) with (fillfactor = 100, autovacuum_enabled = off)",
        "insert into t select g, 'value ' || g from generate_series(1, 3000) g",
        "checkpoint",
    ]);
    let path = c
        .data
        .join(c.psql(&["select pg_relation_filepath('t')"]).trim());
    let older = fs::read(&path).unwrap()[8192..2 * 8192].to_vec();
    let pkey_inside = c
        .psql(&["select pg_relation_filepath('t_pkey')"])
        .trim()
        .to_owned();
    let moved: Vec<String> = c
        .psql(&["select id from t where (ctid::text::point)[0] = 1 and id % 10 = 0 order by 1"])
        .lines()
        .map(str::to_owned)
        .collect();
    assert!(moved.len() > 3, "PostgreSQL {version}: {moved:?}");
    // A full page: each update puts the new version on another page.
    c.psql(&[
        "update t set v = 'moved' where (ctid::text::point)[0] = 1 and id % 10 = 0",
        "vacuum t",
        "checkpoint",
    ]);
    let expected: BTreeSet<Vec<String>> = c
        .psql(&[&format!(
            "select id || ' ' || ctid from t where id in ({}) order by id",
            moved.join(",")
        )])
        .lines()
        .map(|l| {
            let (id, ctid) = l.split_once(' ').unwrap();
            vec![id.to_owned(), ctid.to_owned()]
        })
        .collect();
    assert!(
        expected.iter().all(|e| !e[1].starts_with("(1,")),
        "PostgreSQL {version}: {expected:?}"
    );
    c.stop();
    crate::common::write_block(&path, 1, &older);

    let report = json(&pgpage(&["report", "--json", c.data.to_str().unwrap()]));
    let dup = report["duplicate_keys"]
        .as_array()
        .and_then(|d| d.iter().find(|d| d["index"] == "public.t_pkey"))
        .unwrap_or_else(|| panic!("PostgreSQL {version}: {report:#}"));
    // Each key: its older version on block 1, its newer one where the server put it.
    let newer: BTreeSet<String> = expected.iter().map(|e| e[1].clone()).collect();
    let groups = dup["tids"].as_array().unwrap();
    assert_eq!(groups.len(), moved.len(), "PostgreSQL {version}: {dup:#}");
    for g in groups {
        let tids: Vec<&str> = g
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        assert!(
            tids.len() == 2
                && tids.iter().filter(|t| t.starts_with("(1,")).count() == 1
                && tids.iter().any(|t| newer.contains(*t)),
            "PostgreSQL {version}: {tids:?} against {newer:?}"
        );
    }
    // With the WAL in pg_wal the page is named stale, and its own step (the WAL's page)
    // settles the pairs.
    let b1 = crate::common::block_of(&report, "public.t", 1);
    assert_eq!(b1["damage"], "stale", "PostgreSQL {version}: {b1:#}");
    let steps = crate::common::steps_of(&report).join("\n");
    assert!(
        !steps.contains("SELECT ctid, xmin")
            && report["verdict"]
                .as_str()
                .unwrap()
                .contains("REINDEX fails on them"),
        "PostgreSQL {version}: {steps}"
    );
    // Without the WAL and with the index damaged too, no row is held against it and no
    // page is named for them (review 18's case, after a backup's page was put back): the
    // pairs get their own step, before the REINDEX the damaged index needs.
    let scratch = crate::common::pg_tempdir();
    let copy = scratch.path().join("data");
    crate::common::copy_dir(&c.data, &copy);
    for seg in fs::read_dir(copy.join("pg_wal")).unwrap() {
        let seg = seg.unwrap().path();
        if seg.is_file() {
            fs::remove_file(seg).unwrap();
        }
    }
    let pkey = copy.join(&pkey_inside);
    let mut leaf = fs::read(&pkey).unwrap()[8192..2 * 8192].to_vec();
    leaf[4096..4608].fill(0x5a);
    crate::common::write_block(&pkey, 1, &leaf);
    let damaged = json(&pgpage(&["report", "--json", copy.to_str().unwrap()]));
    let steps = crate::common::steps_of(&damaged);
    let pairs = steps
        .iter()
        .position(|s| s.contains("SELECT ctid, xmin, * FROM public.t WHERE ctid = ANY ('{"))
        .unwrap_or_else(|| panic!("PostgreSQL {version}: {steps:#?}"));
    let reindex = steps
        .iter()
        .position(|s| {
            s.starts_with("The damaged index pages") && s.contains("REINDEX INDEX public.t_pkey")
        })
        .unwrap_or_else(|| panic!("PostgreSQL {version}: {steps:#?}"));
    assert!(pairs < reindex, "PostgreSQL {version}: {steps:#?}");
    assert_eq!(
        damaged["duplicate_keys"][0]["tids"], dup["tids"],
        "PostgreSQL {version}"
    );

    // The server: both versions read, and the index cannot be rebuilt.
    c.restart();
    let both = c.psql(&[
        "set enable_indexscan = off",
        "set enable_bitmapscan = off",
        &format!("select count(*) from t where id in ({})", moved.join(",")),
    ]);
    assert_eq!(
        both.trim(),
        (2 * moved.len()).to_string(),
        "PostgreSQL {version}"
    );
    let out = c.psql_output("postgres", &["reindex index t_pkey"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && said.contains("could not create unique index"),
        "PostgreSQL {version}: {said}"
    );
}

each_version!(duplicate_keys);
