//! `pgpage report --from BACKUP` held against the server on PostgreSQL 13 to 19. A stopped
//! cluster is copied as the "backup"; the server then updates rows of one block only, and a
//! copy of the newer cluster gets that block's checksum broken and a single bit flipped on a
//! block the updates left alone. Then:
//! - the untouched block's backup page has the damaged page's pd_lsn (`same`), and of the
//!   page's bit-flip candidates the backup confirms exactly the bit that was flipped;
//! - the updated block's backup page is `older`, its pd_lsn the one the server's pageinspect
//!   gives for it on the backup, and its tuple count the server's LP_NORMAL items there that
//!   no hint bit marks dead;
//! - an all-zero block's note says so (its pd_lsn is 0), a misplaced block's sane pd_lsn is
//!   compared as any page's (against the server's pd_lsn of the block it copies), a zeroed
//!   index leaf gets REINDEX and never a repair from the backup, the Markdown table's counts
//!   read right and the server's decimal checksums are given in hex once;
//! - a block past the backup's file end is `missing`, and the printed repair command for the
//!   confirmed block runs and gives the backup's page byte for byte;
//! - a backup that is not a relation file, or a directory that is not a data directory, is
//!   refused with exit 2 and a message.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use crate::common::{copy_dir, json, lsn, ok, pgpage, run_steps, steps_of, Cluster};
use serde_json::Value;

const BLCKSZ: usize = 8192;

fn block_of(report: &Value, block: usize) -> Value {
    report["relations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["relation"] == "public.t")
        .flat_map(|r| r["blocks"].as_array().unwrap())
        .find(|b| b["block"] == block)
        .unwrap_or_else(|| panic!("block {block} not in the report: {report:#}"))
        .clone()
}

fn check(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create extension pageinspect",
        "create table t (id int primary key, note text not null) with (autovacuum_enabled = off)",
        "insert into t select g, 'note-' || lpad(g::text, 6, '0') || '-Juliet' from generate_series(1, 2000) g",
        "checkpoint",
    ]);
    let rel = c
        .psql(&["select pg_relation_filepath('t')"])
        .trim()
        .to_owned();
    let blocks: usize = c
        .psql(&["select pg_relation_size('t') / 8192"])
        .trim()
        .parse()
        .unwrap();
    assert!(blocks > 8, "the table fills {blocks} pages");
    let (updated, flipped) = (3usize, 5usize);
    // Block 6 gets a copy of block 7; the backup's last block is zeroed.
    let (misplaced, zeroed) = (6usize, blocks - 1);
    let backup_misplaced_lsn = lsn(&c.psql(&[&format!(
        "select lsn from page_header(get_raw_page('t', {misplaced}))"
    )]));
    let index_rel = c
        .psql(&["select pg_relation_filepath('t_pkey')"])
        .trim()
        .to_owned();
    // A leaf the root's downlink reaches: the server refuses it once it is zeros.
    let leaf: usize = c
        .psql(&["select blkno from generate_series(1, (pg_relation_size('t_pkey') / 8192)::int - 1) blkno where (select type from bt_page_stats('t_pkey', blkno)) = 'l' order by blkno limit 1"])
        .trim()
        .parse()
        .unwrap();
    c.stop();
    let backup = c.root.join("backup");
    copy_dir(&c.data, &backup);
    // The backup's own view of the updated block, before the updates.
    c.restart();
    let ids_on = |c: &Cluster, block: usize| -> BTreeSet<String> {
        c.psql(&[&format!(
            "select id from t where ctid = any(array(select format('({block},%s)', g)::tid from generate_series(1, 400) g))"
        )])
        .lines()
        .map(str::to_owned)
        .collect()
    };
    let backup_ids = ids_on(&c, zeroed);
    let header = c.psql(&[&format!(
        "select lsn from page_header(get_raw_page('t', {updated}))"
    )]);
    let backup_lsn = lsn(&header);
    let backup_tuples: u64 = c
        .psql(&[&format!(
            "select count(*) from heap_page_items(get_raw_page('t', {updated})) where lp_flags = 1 and t_infomask & x'0200'::int = 0 and t_infomask & x'0400'::int = 0"
        )])
        .trim()
        .parse()
        .unwrap();
    // Deletes stay on the page: the updated block's pd_lsn moves, block `flipped` keeps its.
    c.psql(&[
        &format!("delete from t where ctid in (select format('({updated},%s)', g)::tid from generate_series(1, 5) g)"),
        "insert into t select g, 'note-' || lpad(g::text, 6, '0') || '-Juliet' from generate_series(2001, 2400) g",
        "checkpoint",
    ]);
    let grown: usize = c
        .psql(&["select pg_relation_size('t') / 8192"])
        .trim()
        .parse()
        .unwrap();
    assert!(
        grown > blocks,
        "the table grew past the backup's {blocks} pages"
    );
    let current_ids = ids_on(&c, zeroed);
    let item = c.psql(&[&format!(
        "select lp_off, t_hoff from heap_page_items(get_raw_page('t', {flipped})) where lp = 1"
    )]);
    let (lp_off, t_hoff) = item.trim().split_once('|').unwrap();
    let (lp_off, t_hoff): (usize, usize) = (lp_off.parse().unwrap(), t_hoff.parse().unwrap());
    // id int4, then note's 1-byte varlena header, then 'note-000001-': the 'J'.
    let flip_byte = lp_off + t_hoff + 4 + 1 + 12;
    c.stop();

    let damaged = c.root.join("damaged");
    copy_dir(&c.data, &damaged);
    let file = damaged.join(&rel);
    let mut bytes = fs::read(&file).unwrap();
    bytes[flipped * BLCKSZ + flip_byte] ^= 1 << 5;
    // A byte of free space on the updated block: the checksum fails, the header stays sane.
    let pd_lower = usize::from(u16::from_le_bytes([
        bytes[updated * BLCKSZ + 12],
        bytes[updated * BLCKSZ + 13],
    ]));
    bytes[updated * BLCKSZ + pd_lower + 8] ^= 0x55;
    // The last block: one the backup's file does not reach.
    let last = grown - 1;
    bytes[last * BLCKSZ + 4000] ^= 0x01;
    bytes.copy_within(
        (misplaced + 1) * BLCKSZ..(misplaced + 2) * BLCKSZ,
        misplaced * BLCKSZ,
    );
    bytes[zeroed * BLCKSZ..(zeroed + 1) * BLCKSZ].fill(0);
    fs::write(&file, &bytes).unwrap();
    let index_file = damaged.join(&index_rel);
    let mut index_bytes = fs::read(&index_file).unwrap();
    index_bytes[leaf * BLCKSZ..(leaf + 1) * BLCKSZ].fill(0);
    fs::write(&index_file, &index_bytes).unwrap();

    let out = pgpage(&[
        "report",
        "--json",
        "--from",
        backup.to_str().unwrap(),
        damaged.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "damage found: exit 1");
    let report = json(&out);
    assert_eq!(report["backup_searched"], true);

    let f = block_of(&report, flipped);
    assert_eq!(f["damage"], "bit_flip", "{f:#}");
    assert_eq!(f["backup"]["status"], "ok", "{f:#}");
    assert_eq!(f["backup"]["age"], "same", "{f:#}");
    assert_eq!(
        f["backup"]["confirms_flip"],
        format!("{flip_byte}:5"),
        "the backup confirms the flipped bit: {f:#}"
    );

    let u = block_of(&report, updated);
    assert_eq!(u["backup"]["status"], "ok", "{u:#}");
    assert_eq!(u["backup"]["age"], "older", "{u:#}");
    assert_eq!(
        lsn(u["backup"]["lsn"].as_str().unwrap()),
        backup_lsn,
        "{u:#}"
    );
    assert_eq!(u["backup"]["tuples"], backup_tuples, "{u:#}");
    assert!(u["backup"].get("confirms_flip").is_none(), "{u:#}");

    // An all-zero page's pd_lsn is 0, not noise: the note says it is all zeros.
    // The data directory's own WAL, read by default, holds the changes made to the block
    // since the backup: that makes the backup older, which the zero page could not say.
    let z = block_of(&report, zeroed);
    assert_eq!(z["damage"], "zeroed", "{z:#}");
    assert_eq!(z["backup"]["age"], "older", "{z:#}");
    let note = z["backup"]["note"].as_str().unwrap();
    assert!(note.contains("all zeros (its pd_lsn is 0"), "{z:#}");
    assert!(
        note.contains("the WAL changed the block after the backup's pd_lsn"),
        "{z:#}"
    );
    // Of the zeroed block's lost keys, the backup holds the rows the server had there when
    // it was taken, and lacks the ones inserted since.
    let keys_in = |v: &Value| -> BTreeSet<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .map(|k| k[0].as_str().unwrap().to_owned())
                    .collect()
            })
            .unwrap_or_default()
    };
    let recovers: BTreeSet<String> = current_ids.intersection(&backup_ids).cloned().collect();
    let lacks: BTreeSet<String> = current_ids.difference(&backup_ids).cloned().collect();
    assert!(
        !recovers.is_empty() && !lacks.is_empty(),
        "{recovers:?} {lacks:?}"
    );
    assert_eq!(keys_in(&z["backup"]["recovers"]), recovers, "{z:#}");
    assert_eq!(keys_in(&z["backup"]["lacks"]), lacks, "{z:#}");
    // A misplaced page's pd_lsn is the other block's: it says nothing of how old the backup's
    // page of this block is, and the note says whose page it is. The data directory's own
    // WAL, read from before the backup to past the last checkpoint, holds no record of the
    // block since: the backup's page is the block as the server left it.
    let m = block_of(&report, misplaced);
    assert_eq!(m["damage"], "misplaced", "{m:#}");
    assert_eq!(m["backup"]["age"], "same", "{m:#}");
    assert_eq!(m["backup"]["age_from"], "wal", "{m:#}");
    let server_file = fs::read(c.data.join(&rel)).unwrap();
    let backup_file = fs::read(backup.join(&rel)).unwrap();
    assert!(
        server_file[misplaced * BLCKSZ..(misplaced + 1) * BLCKSZ]
            == backup_file[misplaced * BLCKSZ..(misplaced + 1) * BLCKSZ],
        "the backup's page judged current is the server's block"
    );
    assert_eq!(
        lsn(m["backup"]["lsn"].as_str().unwrap()),
        backup_misplaced_lsn,
        "{m:#}"
    );
    let note = m["backup"]["note"].as_str().unwrap();
    let holds = m["holds_block"].as_u64().unwrap();
    assert!(
        note.contains(&format!(
            "the damaged page is block {holds}'s (its pd_lsn is that block's)"
        )),
        "{m:#}"
    );
    for b in [&z, &m] {
        assert!(
            !b["backup"]["note"].as_str().unwrap().contains("noise"),
            "{b:#}"
        );
    }
    // The zeroed index leaf: REINDEX, never the backup's older leaf spliced in.
    let ix = report["relations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["relation"] == "public.t_pkey")
        .unwrap_or_else(|| panic!("t_pkey not in the report: {report:#}"));
    let ixb = ix["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["block"] == leaf)
        .unwrap_or_else(|| panic!("t_pkey block {leaf} not in the report: {ix:#}"));
    assert_eq!(ixb["damage"], "zeroed", "{ixb:#}");
    let steps = steps_of(&report);
    let index_path = index_file.display().to_string();
    assert!(
        !steps.iter().any(|s| s
            .lines()
            .any(|l| l.contains("repair") && l.contains(&index_path))),
        "no repair of the index's page: {steps:#?}"
    );
    assert!(
        steps
            .iter()
            .any(|s| s.contains("REINDEX INDEX public.t_pkey")),
        "{steps:#?}"
    );

    let l = block_of(&report, last);
    assert_eq!(l["backup"]["status"], "missing", "{l:#}");
    assert!(
        l["backup"]["note"]
            .as_str()
            .unwrap()
            .contains("ends before this block"),
        "{l:#}"
    );

    // The Markdown table: an upper bound reads "at most N" (N > 0), a zero count "0", and an
    // index's row says why it has no rows.
    let md = pgpage(&[
        "report",
        "--markdown",
        "--from",
        backup.to_str().unwrap(),
        damaged.to_str().unwrap(),
    ]);
    let md = String::from_utf8(md.stdout).unwrap();
    assert!(
        !md.contains("(at most)") && !md.contains("at most 0"),
        "{md}"
    );
    let lost_at = |block: usize| {
        md.lines()
            .find(|l| l.starts_with("| error | public.t |") && l.contains(&format!("| {block} |")))
            .unwrap_or_else(|| panic!("no table row for block {block}:\n{md}"))
            .split('|')
            .map(str::trim)
            .nth(7)
            .unwrap()
            .to_owned()
    };
    let zeroed_lost = z["rows"]["lost"].as_u64().unwrap();
    assert!(zeroed_lost > 0, "{z:#}");
    assert_eq!(lost_at(zeroed), format!("at most {zeroed_lost}"));
    assert_eq!(block_of(&report, flipped)["rows"]["lost"], 0);
    assert_eq!(lost_at(flipped), "0");
    assert!(
        md.lines()
            .any(|l| l.starts_with("| error | public.t_pkey |") && l.contains("| index: no rows |")),
        "{md}"
    );

    // The text's step for the confirmed block runs as printed, from the backup's page.
    let text = pgpage(&[
        "report",
        "--from",
        backup.to_str().unwrap(),
        damaged.to_str().unwrap(),
    ]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains(&format!("only {flip_byte}:5 (byte:bit) differs")),
        "{text}"
    );
    // The server's decimal checksums in hex once, computed here from the first WARNING
    // (18 logs that WARNING at LOG level: a client sees no decimal checksums to convert).
    match text
        .lines()
        .find_map(|l| l.split_once("calculated checksum ").map(|(_, r)| r))
    {
        Some(warning) => {
            let (calculated, expected) = warning.split_once(" but expected ").unwrap();
            let (calculated, expected): (u16, u16) = (
                calculated.parse().unwrap(),
                expected.trim().parse().unwrap(),
            );
            assert!(text.matches("calculated checksum ").count() > 1, "{text}");
            assert_eq!(
                text.matches("in hex, as pgpage verify").count(),
                1,
                "{text}"
            );
            assert!(
                text.contains(&format!(
                    "{calculated} and {expected} are {calculated:X} and {expected:X} in hex"
                )),
                "{text}"
            );
        }
        None => {
            assert!(
                version >= 18,
                "PostgreSQL {version} warns with both checksums: {text}"
            );
            assert!(!text.contains("in hex"), "{text}");
        }
    }
    // The misplaced block's backup page, current by the WAL, is offered as exact; no block
    // here needs an older page (a WAL image or replay serves the updated ones).
    assert!(
        text.contains(
            "unchanged since (no WAL record touched the block after the backup's pd_lsn)"
        ),
        "{text}"
    );
    assert!(
        !text.contains("rows updated or deleted since come back"),
        "{text}"
    );
    // One way per block: the flip the backup confirms, the backup's page not offered beside it.
    let backup_command = format!(
        "pgpage repair --block {flipped} --from {}",
        backup.join(&rel).display()
    );
    assert!(!text.contains(&backup_command), "{text}");
    // The flip's step goes on from the NEW of the step before it on the same file.
    let want =
        format!("pgpage repair --block {flipped} --flip {flip_byte}:5 --out NEW NEW_FROM_STEP_");
    assert!(text.contains(&want), "step with `{want}`:\n{text}");
    assert!(
        text.contains(&format!(
            "block {flipped} of public.t (the flip the backup confirms"
        )),
        "{text}"
    );
    let out_file = c.root.join("repaired");
    ok(
        pgpage(&[
            "repair",
            "--block",
            &flipped.to_string(),
            "--from",
            backup.join(&rel).to_str().unwrap(),
            "--out",
            out_file.to_str().unwrap(),
            file.to_str().unwrap(),
        ]),
        "repair --from as the report prints it",
    );
    let repaired = fs::read(&out_file).unwrap();
    let from_backup = fs::read(backup.join(&rel)).unwrap();
    assert_eq!(
        repaired[flipped * BLCKSZ..(flipped + 1) * BLCKSZ],
        from_backup[flipped * BLCKSZ..(flipped + 1) * BLCKSZ]
    );

    // Bad backups: not a relation file, not a data directory.
    let bad = pgpage(&[
        "report",
        "--from",
        backup.join("PG_VERSION").to_str().unwrap(),
        damaged.to_str().unwrap(),
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("is not a relation file"));
    let bad = pgpage(&[
        "report",
        "--from",
        backup.join("base").to_str().unwrap(),
        damaged.to_str().unwrap(),
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("is not a data directory"));
}

each_version!(check);

/// The WAL segment file (timeline 1, 16 MB segments) that holds `lsn`.
fn segment_of(lsn: u64) -> String {
    let segno = lsn >> 24;
    format!("00000001{:08X}{:08X}", segno >> 8, segno & 0xFF)
}

/// A misplaced page's own pd_lsn says nothing of its block, but the WAL can: a block no
/// record touched after the backup's pd_lsn, in WAL read unbroken from there to past the
/// latest checkpoint, is the backup's page as it is. The server writes the pages; the
/// report's own step splices the backup's page in, and it equals the block the server left
/// byte for byte. A block the server changed after the backup is older by the WAL. WAL with
/// a segment removed, or starting after the backup's pd_lsn, proves nothing, and the note
/// says why.
fn wal_proves_backup_current(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "alter system set wal_keep_size = '1GB'",
        "select pg_reload_conf()",
        "create extension pageinspect",
        "create table t (id int primary key, note text not null) with (autovacuum_enabled = off)",
        "insert into t select g, 'note-' || lpad(g::text, 6, '0') || '-Juliet' from generate_series(1, 2000) g",
        "vacuum (freeze) t",
        "checkpoint",
    ]);
    let rel = c
        .psql(&["select pg_relation_filepath('t')"])
        .trim()
        .to_owned();
    // Block 5 gets block 4's page and nothing changes it after the backup; block 8 gets
    // block 7's and an update changes it after the backup.
    let (untouched, changed) = (5usize, 8usize);
    let backup_lsn = lsn(&c.psql(&[&format!(
        "select lsn from page_header(get_raw_page('t', {untouched}))"
    )]));
    c.stop();
    let backup = c.root.join("backup");
    copy_dir(&c.data, &backup);
    c.restart();
    c.psql(&[&format!(
        "update t set note = note || '!' where ctid = any(array(select format('({changed},%s)', g)::tid from generate_series(1, 5) g))"
    )]);
    // WAL in several segments, for one of them to go missing.
    for round in 0..3 {
        c.psql(&[
            &format!(
                "insert into t select g, 'more' from generate_series({}, {}) g",
                10_000 + round * 100,
                10_099 + round * 100
            ),
            "select pg_switch_wal()",
        ]);
    }
    c.psql(&["checkpoint"]);
    c.stop();
    let original = fs::read(c.data.join(&rel)).unwrap();

    let damaged = c.root.join("damaged");
    copy_dir(&c.data, &damaged);
    let file = damaged.join(&rel);
    let mut bytes = original.clone();
    for block in [untouched, changed] {
        bytes.copy_within((block - 1) * BLCKSZ..block * BLCKSZ, block * BLCKSZ);
    }
    fs::write(&file, &bytes).unwrap();

    let report_of = |dir: &Path, wal: Option<&Path>| -> Value {
        let mut args = vec!["report", "--json", "--from", backup.to_str().unwrap()];
        if let Some(w) = wal {
            args.extend(["--wal", w.to_str().unwrap()]);
        }
        args.push(dir.to_str().unwrap());
        let out = pgpage(&args);
        assert_eq!(out.status.code(), Some(1), "damage found: exit 1");
        json(&out)
    };
    let report = report_of(&damaged, None);
    let u = block_of(&report, untouched);
    assert_eq!(u["damage"], "misplaced", "{u:#}");
    assert_eq!(
        lsn(u["backup"]["lsn"].as_str().unwrap()),
        backup_lsn,
        "{u:#}"
    );
    assert_eq!(u["backup"]["age"], "same", "{u:#}");
    assert_eq!(u["backup"]["age_from"], "wal", "{u:#}");
    assert_eq!(u["route"], "backup_same", "{u:#}");
    let note = u["backup"]["note"].as_str().unwrap();
    assert!(
        note.contains(&format!(
            "No WAL record touched block {untouched} after the backup's pd_lsn"
        )) && note.contains("the block as it was before the damage"),
        "{u:#}"
    );
    let ch = block_of(&report, changed);
    assert_eq!(ch["backup"]["age"], "older", "{ch:#}");
    assert_eq!(ch["backup"]["age_from"], "wal", "{ch:#}");
    assert!(
        ch["backup"]["note"]
            .as_str()
            .unwrap()
            .contains("the WAL changed the block after the backup's pd_lsn"),
        "{ch:#}"
    );
    let steps = steps_of(&report);
    assert!(
        steps.iter().any(|s| s.contains(
            "unchanged since (no WAL record touched the block after the backup's pd_lsn)"
        )),
        "{steps:#?}"
    );
    // The report's steps, run in order as printed: the block as the server left it.
    let made = run_steps(&steps, &c.root, &format!("--block {untouched} "));
    let last = made.values().last().unwrap();
    assert!(
        steps
            .iter()
            .any(|s| s.contains(&format!("--block {untouched} --from"))),
        "a repair step for block {untouched} from the backup: {steps:#?}"
    );
    let repaired = fs::read(last).unwrap();
    assert!(
        repaired[untouched * BLCKSZ..(untouched + 1) * BLCKSZ]
            == original[untouched * BLCKSZ..(untouched + 1) * BLCKSZ],
        "the backup's page spliced in is the server's block byte for byte"
    );

    // A segment after the backup's pd_lsn removed: a gap, so no age.
    let first = segment_of(backup_lsn);
    let mut segments: Vec<String> = fs::read_dir(damaged.join("pg_wal"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.len() == 24 && n.as_str() > first.as_str())
        .collect();
    segments.sort();
    assert!(segments.len() >= 3, "segments after {first}: {segments:?}");
    let gapped = c.root.join("gapped");
    copy_dir(&damaged, &gapped);
    fs::remove_file(gapped.join("pg_wal").join(&segments[0])).unwrap();
    let report = report_of(&gapped, None);
    let u = block_of(&report, untouched);
    assert!(u["backup"].get("age").is_none(), "{u:#}");
    assert_ne!(u["route"], "backup_same", "{u:#}");
    let note = u["backup"]["note"].as_str().unwrap();
    assert!(
        note.contains("but that proves nothing: the WAL read has a gap from"),
        "{u:#}"
    );
    assert!(
        !steps_of(&report)
            .iter()
            .any(|s| s.contains("unchanged since")),
        "{report:#}"
    );

    // WAL that starts after the backup's pd_lsn: the last segments only.
    let late = c.root.join("late_wal");
    fs::create_dir(&late).unwrap();
    for name in &segments[1..] {
        fs::copy(damaged.join("pg_wal").join(name), late.join(name)).unwrap();
    }
    let report = report_of(&damaged, Some(&late));
    let u = block_of(&report, untouched);
    assert!(u["backup"].get("age").is_none(), "{u:#}");
    let note = u["backup"]["note"].as_str().unwrap();
    assert!(
        note.contains("the WAL read starts at") && note.contains("after the backup's pd_lsn"),
        "{u:#}"
    );
    // Its page is offered as an older one, with the warning that it brings back rows.
    assert_eq!(u["route"], "backup_older", "{u:#}");
    assert!(
        steps_of(&report)
            .iter()
            .any(|s| s.contains("rows updated or deleted since come back")),
        "{report:#}"
    );
}

each_version!(wal_proves_backup_current);

/// Without full-page images (full_page_writes off) the WAL alone cannot rebuild a block, and
/// the backup's page is older than it: the report's backup step offers `pgpage recover
/// --from` the backup's file, which replays the WAL since the backup onto its page. Run as
/// printed, the block gives the server the rows it had before the damage.
fn older_backup_page_replayed(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "alter system set wal_keep_size = '1GB'",
        "alter system set full_page_writes = off",
        "select pg_reload_conf()",
        "create table t (id int primary key, note text not null) with (autovacuum_enabled = off)",
        "insert into t select g, 'note-' || lpad(g::text, 6, '0') || '-Romeo' from generate_series(1, 2000) g",
        "vacuum (freeze) t",
        "checkpoint",
    ]);
    let rel = c
        .psql(&["select pg_relation_filepath('t')"])
        .trim()
        .to_owned();
    let changed = 6usize;
    // The WAL before the backup goes (as recycled segments do): no record that wrote the
    // block from nothing is left, and the backup's page is where replay starts.
    // A checkpoint after the switch puts the current LSN inside the new segment
    // (pg_walfile_name of a segment's very start names the one before).
    c.psql(&["select pg_switch_wal()", "checkpoint"]);
    let first_kept = c.psql(&["select pg_walfile_name(pg_current_wal_lsn())"]);
    let first_kept = first_kept.trim().to_owned();
    c.stop();
    let backup = c.root.join("backup");
    copy_dir(&c.data, &backup);
    c.restart();
    c.psql(&[
        &format!(
            "update t set note = note || '!' where ctid = any(array(select format('({changed},%s)', g)::tid from generate_series(1, 9) g))"
        ),
        &format!("delete from t where ctid = '({changed},20)'"),
    ]);
    // Read before the next checkpoint: the hint bits it sets dirty a page the update
    // already dirtied, so no hint-bit image of the block is written after the backup.
    let truth = c.psql(&["copy (select * from t order by id) to stdout with (format csv)"]);
    c.stop();

    let damaged = c.root.join("damaged");
    copy_dir(&c.data, &damaged);
    for e in fs::read_dir(damaged.join("pg_wal")).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_owned();
        if p.is_file() && name.len() == 24 && name < first_kept {
            fs::remove_file(&p).unwrap();
        }
    }
    let file = damaged.join(&rel);
    let mut bytes = fs::read(&file).unwrap();
    bytes[changed * BLCKSZ..(changed + 1) * BLCKSZ].fill(0);
    fs::write(&file, &bytes).unwrap();

    let text = String::from_utf8(
        pgpage(&[
            "report",
            "--from",
            backup.to_str().unwrap(),
            damaged.to_str().unwrap(),
        ])
        .stdout,
    )
    .unwrap();
    let backup_file = backup.join(&rel);
    let want = format!(
        "pgpage recover --block {changed} --from {} --out NEW {}",
        backup_file.display(),
        file.display()
    );
    assert!(text.contains(&want), "`{want}` in:\n{text}");
    let out_file = c.root.join("recovered");
    ok(
        pgpage(&[
            "recover",
            "--block",
            &changed.to_string(),
            "--from",
            backup_file.to_str().unwrap(),
            "--out",
            out_file.to_str().unwrap(),
            file.to_str().unwrap(),
        ]),
        "recover --from as the report prints it",
    );
    fs::copy(&out_file, &file).unwrap();
    let after = crate::common::run_copy(
        &c,
        &damaged,
        &["copy (select * from t order by id) to stdout with (format csv)"],
    );
    assert_eq!(
        after, truth,
        "{version}: the rows after the recovered block"
    );
}

each_version!(older_backup_page_replayed);

/// A torn write whose first half (the header and line pointers) is the backup's page and whose
/// second half is newer, with no WAL left: the header's pd_lsn is the backup's, but the page
/// changed since. The backup's page is not offered as the block unchanged, nor as an exact
/// restore: its age cannot be told from a torn page's header.
fn torn_over_the_backups_page(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create table t (id int primary key, note text not null, n int not null) with (autovacuum_enabled = off, fillfactor = 50)",
        "insert into t select g, 'note-' || lpad(g::text, 6, '0') || '-Oscar', 0 from generate_series(1, 1500) g",
        "vacuum (freeze) t",
        "checkpoint",
    ]);
    let rel = c
        .psql(&["select pg_relation_filepath('t')"])
        .trim()
        .to_owned();
    let torn = 4usize;
    c.stop();
    let backup = c.root.join("backup");
    copy_dir(&c.data, &backup);
    c.restart();
    // Every row of the block updated in place (HOT: n is not indexed).
    c.psql(&[
        &format!("update t set n = n + 1 where ctid = any(array(select format('({torn},%s)', g)::tid from generate_series(1, 300) g))"),
        "checkpoint",
    ]);
    c.stop();
    let damaged = c.root.join("damaged");
    copy_dir(&c.data, &damaged);
    for e in fs::read_dir(damaged.join("pg_wal")).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            fs::remove_file(&p).unwrap();
        }
    }
    let file = damaged.join(&rel);
    let mut bytes = fs::read(&file).unwrap();
    let older = fs::read(backup.join(&rel)).unwrap();
    let at = torn * BLCKSZ;
    bytes[at..at + BLCKSZ / 2].copy_from_slice(&older[at..at + BLCKSZ / 2]);
    assert_ne!(
        bytes[at..at + BLCKSZ],
        older[at..at + BLCKSZ],
        "the newer half differs from the backup's"
    );
    fs::write(&file, &bytes).unwrap();

    let report = json(&pgpage(&[
        "report",
        "--json",
        "--from",
        backup.to_str().unwrap(),
        damaged.to_str().unwrap(),
    ]));
    let b = block_of(&report, torn);
    assert_eq!(b["damage"], "torn", "{version}: {b:#}");
    assert_ne!(b["route"], "backup_same", "{version}: {b:#}");
    assert_ne!(b["backup"]["age"], "same", "{version}: {b:#}");
    for s in steps_of(&report) {
        assert!(
            !s.contains("restores the page exactly") || !s.contains(&format!("--block {torn} ")),
            "{version}: {s}"
        );
    }
}

each_version!(torn_over_the_backups_page);
