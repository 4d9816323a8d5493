//! `pgpage fpi` (docs/contracts.md, "fpi") on WAL that servers of 13 to 19 wrote, with full-page
//! images in every wal_compression the server offers. The oracle per version:
//! - 18: `pg_waldump --save-fullpage` (the PyPI build's): our `--out` directory identical,
//!   file names and bytes.
//! - 16, 17, 18: pg_walinspect's `pg_get_wal_block_info(start, end, true)`: every
//!   `block_fpi_data` identical to our page of that record and block, and no image of ours
//!   in that range that the server does not list.
//! - 15: Debian's `pg_waldump --bkp-details`: the same images (LSN, relation, fork, block),
//!   holes and compression methods.
//! - every version (the only one for 13 and 14, whose builds have neither pg_waldump nor
//!   pg_walinspect): pages whose one change after a checkpoint is known, an UPDATE of one row
//!   that nothing touches again. The page the server then writes to the relation file is the
//!   image with replay's pd_lsn (the record's end) and a fresh checksum: equal bytes past
//!   pd_checksum, and the file's pd_lsn is our end_lsn.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::{bin_dir, json, pg18_tools, pgpage, run_pg, Cluster};

fn parse_lsn(s: &str) -> u64 {
    let (hi, lo) = s.trim().split_once('/').unwrap();
    (u64::from_str_radix(hi, 16).unwrap() << 32) | u64::from_str_radix(lo, 16).unwrap()
}

/// What a version's server wrote, and what the oracles need.
struct Wal {
    cluster: Cluster,
    methods: Vec<String>,
    /// Known-change blocks of table `k`: (block, compression) in order.
    known: Vec<(u32, String)>,
    k_file: PathBuf,
    k_node: u32,
    db: u32,
    /// pg_walinspect's images (16+): (lsn, "spc.db.rel.blk_fork" key) -> page bytes.
    inspect: Option<BTreeMap<(u64, String), Vec<u8>>>,
    range: (u64, u64),
}

/// Starts a server of `version`, makes images with each wal_compression it offers, stops it.
fn make_wal(version: u32) -> Wal {
    let mut cluster = Cluster::start(version);
    cluster.psql(&[
        "alter system set wal_keep_size = '1GB'",
        "select pg_reload_conf()",
    ]);
    // 13 and 14 have a boolean wal_compression (on = pglz); 15+ an enum of what the build has.
    let enumvals = cluster.psql(&[
        "select coalesce(array_to_string(enumvals, ','), 'on,off') from pg_settings where name = 'wal_compression'",
    ]);
    // In 15+ "on" is another name of pglz: each method once.
    let methods: Vec<String> = enumvals
        .trim()
        .split(',')
        .filter(|m| version <= 14 || *m != "on")
        .map(str::to_owned)
        .collect();
    let db: u32 = cluster
        .psql(&["select oid from pg_database where datname = 'postgres'"])
        .trim()
        .parse()
        .unwrap();
    cluster.psql(&[
        "create table k(a int, b text) with (fillfactor = 50, autovacuum_enabled = off)",
        "insert into k select g, repeat('k', 30) from generate_series(1, 1000) g",
        // Hint bits set now: a read after the checkpoint would log the page for its hint bits
        // (data checksums) before the UPDATE, whose record then carries no image.
        "select count(*) from k",
        "create table t(a int, b text)",
        "insert into t select g, md5(g::text) from generate_series(1, 3000) g",
        "create index t_a on t(a)",
    ]);
    let start = parse_lsn(&cluster.psql(&["select pg_current_wal_lsn()"]));
    let mut known = Vec::new();
    for (i, m) in methods.iter().enumerate() {
        let block = i as u32;
        cluster.psql(&[
            &format!("set wal_compression = {m}"),
            "checkpoint",
            &format!("update k set b = 'known' where ctid = '({block},1)'"),
            "checkpoint",
            "update t set b = b || 'z' where a % 7 = 0",
        ]);
        known.push((block, m.to_string()));
    }
    cluster.psql(&["select pg_switch_wal()"]);
    let end = parse_lsn(&cluster.psql(&["select pg_current_wal_lsn()"]));
    let inspect = (version >= 16).then(|| {
        let rows = cluster.psql(&[
            "create extension pg_walinspect",
            &format!(
                "select start_lsn, reltablespace || '.' || reldatabase || '.' || relfilenode || '.' || relblocknumber || '_' || \
                 (array['main','fsm','vm','init'])[relforknumber + 1], encode(block_fpi_data, 'hex') \
                 from pg_get_wal_block_info('{}', '{}', true) where block_fpi_data is not null",
                lsn_arg(start),
                lsn_arg(end)
            ),
        ]);
        rows.lines()
            .filter(|l| !l.is_empty())
            .map(|l| {
                let mut f = l.split('|');
                let lsn = parse_lsn(f.next().unwrap());
                let key = f.next().unwrap().to_owned();
                (
                    (lsn, key),
                    hex(f.next().unwrap()),
                )
            })
            .collect()
    });
    let k_file = cluster.file("select pg_relation_filepath('k')");
    let k_node: u32 = cluster
        .psql(&["select pg_relation_filenode('k')"])
        .trim()
        .parse()
        .unwrap();
    cluster.stop();
    Wal {
        cluster,
        methods,
        known,
        k_file,
        k_node,
        db,
        inspect,
        range: (start, end),
    }
}

fn lsn_arg(lsn: u64) -> String {
    format!("{:X}/{:X}", lsn >> 32, lsn & 0xFFFF_FFFF)
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn pg_wal(w: &Wal) -> String {
    w.cluster.data.join("pg_wal").to_str().unwrap().to_owned()
}

/// `fpi --json --out DIR` on the cluster's pg_wal: the report and DIR.
fn extract(w: &Wal) -> (Value, tempfile::TempDir) {
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("out");
    let out = pgpage(&[
        "fpi",
        "--json",
        "--out",
        out_dir.to_str().unwrap(),
        &pg_wal(w),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (json(&out), tmp)
}

/// The known-change oracle, for every version.
fn check_known_pages(w: &Wal, report: &Value, out_dir: &Path) {
    let file = std::fs::read(&w.k_file).unwrap();
    let images = report["images"].as_array().unwrap();
    for (block, method) in &w.known {
        let mine: Vec<&Value> = images
            .iter()
            .filter(|i| {
                i["relfilenode"] == w.k_node
                    && i["database_oid"] == w.db
                    && i["fork"] == "main"
                    && i["block"] == *block
            })
            .collect();
        let newest = *mine
            .last()
            .unwrap_or_else(|| panic!("no image of block {block}"));
        let expected = match method.as_str() {
            "off" => "none",
            "on" => "pglz",
            m => m,
        };
        assert_eq!(newest["compression"], expected, "block {block}");
        let page = std::fs::read(out_dir.join(newest["file"].as_str().unwrap())).unwrap();
        let on_disk = &file[*block as usize * 8192..(*block as usize + 1) * 8192];
        assert_eq!(
            &page[10..],
            &on_disk[10..],
            "block {block} ({method}) past pd_checksum"
        );
        let disk_lsn = (u64::from(u32::from_le_bytes(on_disk[0..4].try_into().unwrap())) << 32)
            | u64::from(u32::from_le_bytes(on_disk[4..8].try_into().unwrap()));
        assert_eq!(
            disk_lsn,
            parse_lsn(newest["end_lsn"].as_str().unwrap()),
            "block {block}: replay's pd_lsn is the record's end"
        );
    }
}

fn check_walinspect(w: &Wal, report: &Value, out_dir: &Path) {
    let Some(inspect) = &w.inspect else { return };
    let (start, end) = w.range;
    let mut mine = 0;
    for i in report["images"].as_array().unwrap() {
        let lsn = parse_lsn(i["lsn"].as_str().unwrap());
        if lsn < start || lsn >= end {
            continue;
        }
        mine += 1;
        let key = format!(
            "{}.{}.{}.{}_{}",
            i["tablespace_oid"],
            i["database_oid"],
            i["relfilenode"],
            i["block"],
            i["fork"].as_str().unwrap()
        );
        let theirs = inspect
            .get(&(lsn, key.clone()))
            .unwrap_or_else(|| panic!("pg_walinspect has no image {key} at {lsn:X}"));
        let page = std::fs::read(out_dir.join(i["file"].as_str().unwrap())).unwrap();
        assert!(
            page == *theirs,
            "image {key} at {lsn:X} differs from pg_walinspect's"
        );
    }
    assert_eq!(mine, inspect.len(), "pg_walinspect lists other images");
    assert!(mine > 50, "too few images to hold anything: {mine}");
}

fn check_version(version: u32) {
    let w = make_wal(version);
    let (report, tmp) = extract(&w);
    let out_dir = tmp.path().join("out");
    assert_eq!(report["summary"]["version"], version);
    assert!(report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["evidence"] == "note"));
    check_known_pages(&w, &report, &out_dir);
    check_walinspect(&w, &report, &out_dir);
    if version >= 18 {
        check_save_fullpage(version, &w, &out_dir);
    }
    if version == 15 {
        check_bkp_details(&w, &report);
    }
    eprintln!(
        "PostgreSQL {version}: {} images, compression {:?}",
        report["images"].as_array().unwrap().len(),
        w.methods
    );
}

/// pg_waldump --save-fullpage of the version (18's from the PyPI build, 19's own build).
fn check_save_fullpage(version: u32, w: &Wal, ours: &Path) {
    let bin = if version == 18 {
        let Some(bin) = pg18_tools() else {
            panic!("pg_waldump 18 (scripts/bootstrap.sh installs the PyPI build) is missing");
        };
        bin
    } else {
        PathBuf::from(bin_dir(version))
    };
    let tmp = tempfile::tempdir().unwrap();
    let theirs = tmp.path().join("theirs");
    let range = all_segments(&pg_wal(w));
    let out = Command::new(bin.join("pg_waldump"))
        .args([
            "--save-fullpage",
            theirs.to_str().unwrap(),
            "-p",
            &pg_wal(w),
        ])
        .args(&range)
        .output()
        .unwrap();
    assert!(theirs.is_dir(), "{}", String::from_utf8_lossy(&out.stderr));
    let list = |d: &Path| {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let (a, b) = (list(ours), list(&theirs));
    let only_ours: Vec<&String> = a.iter().filter(|n| !b.contains(n)).collect();
    let only_theirs: Vec<&String> = b.iter().filter(|n| !a.contains(n)).collect();
    assert!(
        only_ours.is_empty() && only_theirs.is_empty(),
        "file names differ from pg_waldump --save-fullpage's: ours only {} (first {:?}), theirs only {:?}; pg_waldump said {}",
        only_ours.len(),
        only_ours.first(),
        only_theirs,
        String::from_utf8_lossy(&out.stderr)
    );
    for name in &a {
        assert!(
            std::fs::read(ours.join(name)).unwrap() == std::fs::read(theirs.join(name)).unwrap(),
            "{name} differs"
        );
    }
    eprintln!("pg_waldump --save-fullpage: {} files identical", a.len());
}

fn segments(dir: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.len() == 24)
        .collect();
    names.sort();
    names
}

fn first_segment(dir: &str) -> String {
    segments(dir)[0].clone()
}

/// pg_waldump's STARTSEG ENDSEG: every segment of the directory.
fn all_segments(dir: &str) -> [String; 2] {
    let names = segments(dir);
    [names[0].clone(), names[names.len() - 1].clone()]
}

/// Debian's pg_waldump 15 --bkp-details: the list of images, holes and methods.
fn check_bkp_details(w: &Wal, report: &Value) {
    let out = run_pg(
        &w.cluster.bin,
        "pg_waldump",
        &[
            "--bkp-details",
            "-p",
            &pg_wal(w),
            &first_segment(&pg_wal(w)),
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut theirs = Vec::new();
    let mut lsn = String::new();
    for line in text.lines() {
        if let Some(at) = line.find("lsn: ") {
            lsn = line[at + 5..].split(',').next().unwrap().to_owned();
        }
        let Some(rest) = line.trim().strip_prefix("blkref #") else {
            continue;
        };
        if !rest.contains("(FPW)") {
            continue;
        }
        let words: Vec<&str> = rest
            .split([' ', ',', ';'])
            .filter(|w| !w.is_empty())
            .collect();
        // "0: rel 1663/5/1247 fork main blk 14 (FPW) hole: offset: 64 length: 6288
        //  [compression saved: N method: pglz]"
        let rel = words[2];
        let method = words
            .iter()
            .position(|w| *w == "method:")
            .map_or("none", |p| words[p + 1]);
        theirs.push(format!(
            "{} {rel} {} {} {} {} {method}",
            parse_lsn(&lsn),
            words[4],
            words[6],
            words[10],
            words[12]
        ));
    }
    let ours: Vec<String> = report["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            format!(
                "{} {}/{}/{} {} {} {} {} {}",
                parse_lsn(i["lsn"].as_str().unwrap()),
                i["tablespace_oid"],
                i["database_oid"],
                i["relfilenode"],
                i["fork"].as_str().unwrap(),
                i["block"],
                i["hole_offset"],
                i["hole_length"],
                i["compression"].as_str().unwrap()
            )
        })
        .collect();
    assert!(ours.len() > 50);
    assert_eq!(ours, theirs, "pg_waldump --bkp-details lists other images");
}

each_version!(check_version);

/// Bad input: each named, exit status as the contract says, never a panic.
#[test]
fn bad_wal_is_named() {
    let w = make_wal(15);
    let other = make_wal(15);
    let tmp = tempfile::tempdir().unwrap();
    let wal = pg_wal(&w);
    let first = first_segment(&wal);
    let segs: Vec<String> = {
        let mut v: Vec<String> = std::fs::read_dir(&wal)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.len() == 24)
            .collect();
        v.sort();
        v
    };
    assert!(segs.len() >= 2, "{segs:?}");
    let codes = |args: &[&str]| {
        let out = pgpage(args);
        let report = json(&out);
        let codes: Vec<String> = report["problems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["code"].as_str().unwrap().to_owned())
            .collect();
        (out.status.code(), codes)
    };

    // A truncated segment: its first half.
    let cut = tmp.path().join("cut");
    std::fs::create_dir(&cut).unwrap();
    let bytes = std::fs::read(Path::new(&wal).join(&first)).unwrap();
    std::fs::write(cut.join(&first), &bytes[..bytes.len() / 2 + 100]).unwrap();
    let (status, found) = codes(&["fpi", "--json", cut.to_str().unwrap()]);
    assert_eq!(status, Some(1));
    assert!(
        found.contains(&"wal_segment_truncated".to_owned()),
        "{found:?}"
    );

    // Another cluster's segment in place of the second one.
    let mixed = tmp.path().join("mixed");
    std::fs::create_dir(&mixed).unwrap();
    std::fs::copy(Path::new(&wal).join(&segs[0]), mixed.join(&segs[0])).unwrap();
    std::fs::copy(
        Path::new(&pg_wal(&other)).join(&segs[1]),
        mixed.join(&segs[1]),
    )
    .unwrap();
    let (status, found) = codes(&["fpi", "--json", mixed.to_str().unwrap()]);
    assert_eq!(status, Some(1));
    assert!(
        found.contains(&"wal_system_identifier_mismatch".to_owned()),
        "{found:?}"
    );

    // A data directory's pg_control names its cluster: WAL of another one beside it is refused.
    let fake = tmp.path().join("fake");
    std::fs::create_dir_all(fake.join("global")).unwrap();
    std::fs::create_dir_all(fake.join("pg_wal")).unwrap();
    std::fs::copy(
        other.cluster.data.join("global/pg_control"),
        fake.join("global/pg_control"),
    )
    .unwrap();
    std::fs::copy(
        Path::new(&wal).join(&segs[0]),
        fake.join("pg_wal").join(&segs[0]),
    )
    .unwrap();
    let (status, found) = codes(&["fpi", "--json", fake.to_str().unwrap()]);
    assert_eq!(status, Some(1));
    assert!(
        found.contains(&"wal_system_identifier_mismatch".to_owned()),
        "{found:?}"
    );

    // A missing segment: the first and the third of three or more.
    if segs.len() >= 3 {
        let gap = tmp.path().join("gap");
        std::fs::create_dir(&gap).unwrap();
        for s in [&segs[0], &segs[2]] {
            std::fs::copy(Path::new(&wal).join(s), gap.join(s)).unwrap();
        }
        let (status, found) = codes(&["fpi", "--json", gap.to_str().unwrap()]);
        assert_eq!(status, Some(1));
        assert!(
            found.contains(&"wal_segment_missing".to_owned()),
            "{found:?}"
        );
    }

    // A flipped byte inside a record: its CRC fails.
    let flipped = tmp.path().join("flipped");
    std::fs::create_dir(&flipped).unwrap();
    let mut damaged = bytes.clone();
    damaged[3 * 8192 + 1000] ^= 0x10;
    std::fs::write(flipped.join(&first), &damaged).unwrap();
    let (status, found) = codes(&["fpi", "--json", flipped.to_str().unwrap()]);
    assert_eq!(status, Some(1));
    assert!(
        found
            .iter()
            .any(|c| c.starts_with("wal_record_") || c.starts_with("wal_contrecord")),
        "{found:?}"
    );

    // Garbage named as a segment.
    let garbage = tmp.path().join("garbage");
    std::fs::create_dir(&garbage).unwrap();
    let noise: Vec<u8> = (0..(1u32 << 20))
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(garbage.join(&first), noise).unwrap();
    let (status, found) = codes(&["fpi", "--json", garbage.to_str().unwrap()]);
    assert_eq!(status, Some(1));
    assert!(
        found.contains(&"wal_page_magic_invalid".to_owned()),
        "{found:?}"
    );

    // The WAL ends inside a record whose rest would be on a page never written: a standby's
    // pg_wal (whole pages are flushed and sent, not whole records) or a crashed server's.
    // The pages from the first one a record goes on in are zeros, or recycled WAL (an older
    // page, as a recycled segment holds): the WAL ends there, a note, exit 0, not a torn
    // record.
    let spill = (1..bytes.len() / 8192)
        .find(|&p| {
            let page = &bytes[p * 8192..];
            let info = u16::from_le_bytes([page[2], page[3]]);
            let rem = u32::from_le_bytes(page[16..20].try_into().unwrap());
            info & 1 != 0 && rem > 0 && page[..2] != [0, 0]
        })
        .expect("a record that goes on in the next page");
    for recycled in [false, true] {
        let ends = tmp.path().join(format!("ends-{recycled}"));
        std::fs::create_dir(&ends).unwrap();
        let mut cut = bytes.clone();
        for p in spill..bytes.len() / 8192 {
            let page = if recycled {
                // The same page of the segment before: its xlp_pageaddr 16 MB back.
                let mut old = bytes[p * 8192..(p + 1) * 8192].to_vec();
                let addr = u64::from_le_bytes(old[8..16].try_into().unwrap());
                old[8..16].copy_from_slice(&(addr - (1u64 << 24)).to_le_bytes());
                old
            } else {
                vec![0u8; 8192]
            };
            cut[p * 8192..(p + 1) * 8192].copy_from_slice(&page);
        }
        std::fs::write(ends.join(&first), &cut).unwrap();
        let (status, found) = codes(&["fpi", "--json", ends.to_str().unwrap()]);
        assert_eq!(
            (status, found),
            (Some(0), vec!["wal_ends_inside_record".to_owned()]),
            "recycled {recycled}"
        );
    }

    // The same unwritten pages with the next segment after them: the WAL went on, so the
    // server wrote them (it fsyncs a segment before it writes the next): a torn record.
    let gap = tmp.path().join("gap-inside");
    std::fs::create_dir(&gap).unwrap();
    let mut cut = bytes.clone();
    cut[spill * 8192..(spill + 1) * 8192].fill(0);
    std::fs::write(gap.join(&first), &cut).unwrap();
    std::fs::copy(Path::new(&wal).join(&segs[1]), gap.join(&segs[1])).unwrap();
    let (status, found) = codes(&["fpi", "--json", gap.to_str().unwrap()]);
    assert_eq!(status, Some(1), "{found:?}");
    assert!(
        found.contains(&"wal_contrecord_missing".to_owned())
            && !found.contains(&"wal_ends_inside_record".to_owned()),
        "{found:?}"
    );

    // A segment made ahead of use and never written (wal_init_zero), after the last one, as
    // every pg_wal has after a checkpoint: the WAL ends normally there. Exit 0, and the text
    // output says it as a note, not as a problem.
    let ahead = tmp.path().join("ahead");
    std::fs::create_dir(&ahead).unwrap();
    let last = segs.last().unwrap();
    std::fs::copy(Path::new(&wal).join(last), ahead.join(last)).unwrap();
    let next = format!(
        "{}{:08X}",
        &last[..16],
        u32::from_str_radix(&last[16..], 16).unwrap() + 1
    );
    std::fs::write(ahead.join(&next), vec![0u8; bytes.len()]).unwrap();
    let (status, found) = codes(&["fpi", "--json", ahead.to_str().unwrap()]);
    assert_eq!(
        (status, found),
        (Some(0), vec!["wal_segment_stale".to_owned()])
    );
    let out = pgpage(&["fpi", ahead.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.is_empty() && stderr.lines().all(|l| l.starts_with("pgpage: note: ")),
        "{stderr}"
    );

    // Cannot run: nothing there, or an --out directory that is not empty.
    let out = pgpage(&["fpi", tmp.path().join("nothing").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let out = pgpage(&["fpi", "--out", tmp.path().to_str().unwrap(), &wal]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not empty"));

    // Saved pages are read back by their names.
    let saved = tmp.path().join("saved");
    let out = pgpage(&["fpi", "--json", "--out", saved.to_str().unwrap(), &wal]);
    let listed = json(&out)["images"].as_array().unwrap().len();
    let again = pgpage(&["fpi", "--json", saved.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(0));
    let back = json(&again);
    assert_eq!(back["images"].as_array().unwrap().len(), listed);
}

/// What the records after a full-page image did, held against the server's own reading of the
/// image: the image of a table's block is put in place of the block (`repair --page`) and the
/// server restarted on it. When only pruning and VACUUM followed the image, `fpi` says that
/// restoring it loses no visible row, and COPY returns the same rows as before; when an
/// UPDATE followed, `fpi` says the image lacks what it changed, and COPY returns the older
/// value.
fn restoring_an_image(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create table t (id int primary key, v int) with (autovacuum_enabled = off)",
        "insert into t select g, g from generate_series(1, 100) g",
        "update t set v = v + 1 where id <= 10",
        "checkpoint",
        // The first change after the checkpoint images block 0 (a hint bit's FPI_FOR_HINT
        // or VACUUM's first record); VACUUM prunes the old versions the updates left.
        "select count(*) from t",
        "vacuum t",
    ]);
    let rel = c
        .psql(&["select pg_relation_filepath('t')"])
        .trim()
        .to_owned();
    let (_, db, relnode) = {
        let parts: Vec<&str> = rel.split('/').collect();
        (
            parts[0].to_owned(),
            parts[1].to_owned(),
            parts[2].to_owned(),
        )
    };
    let locator = format!("{db}/{relnode}");
    let file = c.data.join(&rel);
    let check = |c: &mut Cluster, changes_rows: bool| {
        let before = c.copy("t");
        c.stop();
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("images");
        let wal = c.data.join("pg_wal");
        let report = json(&pgpage(&[
            "fpi",
            "--json",
            "--relation",
            &locator,
            "--block",
            "0",
            "--out",
            out.to_str().unwrap(),
            wal.to_str().unwrap(),
        ]));
        let block = report["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["fork"] == "main")
            .unwrap_or_else(|| panic!("{report:#}"));
        let restoring = block["restoring"]
            .as_str()
            .unwrap_or_else(|| panic!("{block:#}"));
        let effects: Vec<&str> = block["records_after"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["effect"].as_str().unwrap())
            .collect();
        assert!(!effects.is_empty(), "{block:#}");
        assert_eq!(effects.contains(&"changes_rows"), changes_rows, "{block:#}");
        assert_eq!(
            restoring.starts_with("restoring the image loses no visible row"),
            !changes_rows,
            "{restoring}"
        );
        let newest = block["newest_image_lsn"].as_str().unwrap();
        let (hi, lo) = newest.split_once('/').unwrap();
        let image = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| {
                let n = p.file_name().unwrap().to_string_lossy().into_owned();
                n.starts_with(&format!(
                    "{:08X}-{:08X}",
                    1,
                    u32::from_str_radix(hi, 16).unwrap()
                )) && n.contains(&format!("-{:08X}.", u32::from_str_radix(lo, 16).unwrap()))
                    && n.ends_with(".0_main")
            })
            .unwrap_or_else(|| panic!("no page file of the image at {newest}"));
        let repaired = tmp.path().join("repaired");
        let said = pgpage(&[
            "repair",
            "--block",
            "0",
            "--page",
            image.to_str().unwrap(),
            "--out",
            repaired.to_str().unwrap(),
            file.to_str().unwrap(),
        ]);
        assert!(said.status.success(), "{said:?}");
        // repair names the same records after the image and what they lose.
        let stderr = String::from_utf8_lossy(&said.stderr);
        assert!(stderr.contains(restoring), "{stderr}");
        let original = std::fs::read(&file).unwrap();
        // Written in place, so the file keeps its owner, the server's user.
        std::fs::write(&file, std::fs::read(&repaired).unwrap()).unwrap();
        c.restart();
        let after = c.copy("t");
        c.stop();
        std::fs::write(&file, original).unwrap();
        c.restart();
        assert_eq!(
            after == before,
            !changes_rows,
            "before:\n{before}\nafter:\n{after}"
        );
    };
    check(&mut c, false);
    c.psql(&[
        "checkpoint",
        "update t set v = v + 100 where id = 1",
        "update t set v = v + 1000 where id = 2",
    ]);
    check(&mut c, true);
}

each_version!(restoring_an_image);
