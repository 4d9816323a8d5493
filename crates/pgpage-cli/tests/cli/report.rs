//! `pgpage report` held against the server on PostgreSQL 13 to 19. A table with a primary
//! key and a second index fills about 60 pages; a stopped copy of the cluster gets five
//! blocks damaged the ways storage damages them: one zeroed, one overwritten with random
//! bytes, one torn (sectors of an older version of the same block, taken with pageinspect's
//! get_raw_page while it was half full), one misplaced (a copy of another block of the table)
//! and one with a single bit flipped in a text column. Then:
//! - each block gets its damage class (the misplaced one names the block it holds);
//! - the rows lost on each are the rows the server shows at those TIDs on the undamaged
//!   cluster, known from the index, their keys the primary key's ids (`select id from t
//!   where ctid = any(...)` on the original); the random-bytes block's count comes from the
//!   index, never from its noise header;
//! - readable counts equal the server's rows per block on the original where the header is
//!   sane (the bit-flip block: all of them; the torn block: all but the tuples in the torn
//!   sectors);
//! - the bit-flip candidate with the true byte and bit names the right item and column, and
//!   its flipped-back value is the original value;
//! - the text output lists errors before the notes, and no output (text, Markdown, JSON)
//!   holds an unfilled `%u` or an ellipsis.
//!
//! Bad input: an empty directory, a file that is not a relation, a damaged pg_class.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;
use std::process::Command;

use crate::common::page::from_hex as hex;
use crate::common::{
    block_of, copy_dir, json, lsn, ok, pgpage, psql_at, run_pg, write_block, Cluster,
};
use serde_json::Value;

const BLCKSZ: usize = 8192;
const SECTOR: usize = 512;

fn read_block(file: &Path, block: usize) -> Vec<u8> {
    fs::read(file).unwrap()[block * BLCKSZ..(block + 1) * BLCKSZ].to_vec()
}

/// The server's rows of block `b` on the original: (lp, id) in lp order.
fn server_rows(c: &Cluster, b: usize) -> Vec<(u16, String)> {
    c.psql(&[&format!(
        "select (ctid::text::point)[1]::int, id from t where ctid = any(array(select format('(%s,%s)', {b}, g)::tid from generate_series(1, 400) g)) order by 1"
    )])
    .lines()
    .map(|l| {
        let (lp, id) = l.split_once('|').unwrap();
        (lp.parse().unwrap(), id.to_owned())
    })
    .collect()
}

/// `repair --torn` of block `block` of `file`, held against the server: the rebuilt page put
/// in place of the block in the original cluster, the server returns every row of the table
/// the original did but the `lost` ids, each with the original's values, through a
/// sequential scan and, for every id, through the primary key; verify_heapam (14 on) finds
/// nothing on the block. The original's block is put back afterwards.
fn check_rebuilt(c: &mut Cluster, rel: &str, block: usize, file: &Path, lost: &BTreeSet<String>) {
    let out_file = c.root.join(format!("rebuilt{block}"));
    let _ = fs::remove_file(&out_file);
    ok(
        pgpage(&[
            "repair",
            "--block",
            &block.to_string(),
            "--torn",
            "--out",
            out_file.to_str().unwrap(),
            file.to_str().unwrap(),
        ]),
        "repair --torn",
    );
    let rebuilt = read_block(&out_file, block);
    c.restart();
    let before = c.copy("t");
    c.stop();
    let original = read_block(&c.data.join(rel), block);
    write_block(&c.data.join(rel), block, &rebuilt);
    c.restart();
    let after = c.copy("t");
    let expected: Vec<&str> = before
        .lines()
        .filter(|l| !lost.contains(l.split(',').next().unwrap()))
        .collect();
    let mut got: Vec<&str> = after.lines().collect();
    let mut want = expected.clone();
    got.sort_unstable();
    want.sort_unstable();
    assert_eq!(got, want, "the rebuilt page's rows against the original's");
    for line in &expected {
        let id = line.split(',').next().unwrap();
        let by_index = c.psql(&[
            "set enable_seqscan = off",
            "set enable_bitmapscan = off",
            &format!("copy (select * from t where id = {id}) to stdout (format csv)"),
        ]);
        assert_eq!(by_index.trim(), *line, "id {id} through the index");
    }
    if c.psql(&["show server_version_num"])
        .trim()
        .parse::<u32>()
        .unwrap()
        >= 140000
    {
        let found = c.psql(&[
            "create extension if not exists amcheck",
            &format!(
                "select * from verify_heapam('t', startblock => {block}, endblock => {block})"
            ),
        ]);
        let found: Vec<&str> = found.lines().filter(|l| l.contains('|')).collect();
        assert!(
            found.is_empty(),
            "verify_heapam on the rebuilt block: {found:#?}"
        );
    }
    c.stop();
    write_block(&c.data.join(rel), block, &original);
}

fn keys(b: &Value) -> BTreeSet<String> {
    b["rows"]["keys"]
        .as_array()
        .map(|k| {
            k.iter()
                .map(|k| k[0].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn no_holes(text: &str, what: &str) {
    for hole in ["%u", "%d", "%s", "…"] {
        assert!(!text.contains(hole), "{what} holds {hole}:\n{text}");
    }
}

fn check(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create extension pageinspect",
        // The second index first: the primary key is preferred for the lost keys, not met first.
        // fillfactor 90: room on every page for the HOT updates below.
        "create table t (id int not null, note text not null, n int) with (autovacuum_enabled = off, fillfactor = 90)",
        "create index t_note on t (note)",
        "alter table t add constraint t_pkey primary key (id)",
        "insert into t select g, 'note-' || lpad(g::text, 6, '0') || '-Juliet', g % 7 from generate_series(1, 400) g",
    ]);
    // Fill to a third of a page past 20 pages: the last block is the torn one's old version.
    let per_page: usize = c
        .psql(&["select count(*) from t where (ctid::text::point)[0] = 0"])
        .trim()
        .parse()
        .unwrap();
    let first = 20 * per_page + per_page / 3;
    c.psql(&[&format!(
        "insert into t select g, 'note-' || lpad(g::text, 6, '0') || '-Juliet', g % 7 from generate_series(401, {first}) g"
    )]);
    let torn_block = 20usize;
    assert_eq!(
        c.psql(&["select max((ctid::text::point)[0])::int from t"])
            .trim(),
        torn_block.to_string()
    );
    let old = hex(&c.psql(&[&format!(
        "select encode(get_raw_page('t', {torn_block}), 'hex')"
    )]));
    let total = 60 * per_page;
    c.psql(&[
        &format!("insert into t select g, 'note-' || lpad(g::text, 6, '0') || '-Juliet', g % 7 from generate_series({}, {total}) g", first + 1),
        "checkpoint",
    ]);
    let rel = c
        .psql(&["select pg_relation_filepath('t')"])
        .trim()
        .to_owned();
    let pg_class = c
        .psql(&["select pg_relation_filepath('pg_class')"])
        .trim()
        .to_owned();
    let (zeroed, random, misplaced, holds, flipped) = (10usize, 30usize, 40usize, 41usize, 50usize);
    // HOT chains on the bit-flipped block: the index entries still name lp 2 and 3, whose
    // live versions are heap-only tuples further on the same page.
    c.psql(&[
        &format!("update t set n = n + 1 where ctid in ('({flipped},2)', '({flipped},3)')"),
        "checkpoint",
    ]);
    let hot: String = c.psql(&[&format!(
        "select count(*) from heap_page_items(get_raw_page('t', {flipped})) where t_infomask2 & 16384 <> 0"
    )]);
    assert_eq!(hot.trim(), "2", "two HOT-updated tuples on block {flipped}");
    let mut rows: BTreeMap<usize, Vec<(u16, String)>> = BTreeMap::new();
    for b in [zeroed, random, torn_block, misplaced, flipped] {
        rows.insert(b, server_rows(&c, b));
        assert!(!rows[&b].is_empty(), "block {b} holds rows");
    }
    // The true bit: bit 5 of the 'J' of the first item's note on `flipped` ('J' ^ 0x20 = 'j').
    let item = c.psql(&[&format!(
        "select lp_off, t_hoff from heap_page_items(get_raw_page('t', {flipped})) where lp = 1"
    )]);
    let (lp_off, t_hoff) = item.trim().split_once('|').unwrap();
    let (lp_off, t_hoff): (usize, usize) = (lp_off.parse().unwrap(), t_hoff.parse().unwrap());
    // id int4, then note's 1-byte varlena header, then 'note-000001-' (12 bytes).
    let flip_byte = lp_off + t_hoff + 4 + 1 + 12;
    let original_note = c
        .psql(&[&format!("select note from t where ctid = '({flipped},1)'")])
        .trim()
        .to_owned();
    // Structure: item 1 of block 5 gets an xmin past the cluster's next xid, its checksum
    // made valid again (the page's hint bits say committed, so the server still reads it).
    let structure = 5usize;
    rows.insert(structure, server_rows(&c, structure));
    let xmin_at: usize = c
        .psql(&[&format!(
            "select lp_off from heap_page_items(get_raw_page('t', {structure})) where lp = 1"
        )])
        .trim()
        .parse()
        .unwrap();
    c.stop();

    let damaged = c.root.join("damaged");
    copy_dir(&c.data, &damaged);
    let file = damaged.join(&rel);
    write_block(&file, zeroed, &[0u8; BLCKSZ]);
    let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ u64::from(version);
    let noise: Vec<u8> = (0..BLCKSZ)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    write_block(&file, random, &noise);
    // Torn: sectors where the old version was still free space and the new one holds tuples.
    let new = read_block(&file, torn_block);
    let upper_old = usize::from(u16::from_le_bytes([old[14], old[15]]));
    let upper_new = usize::from(u16::from_le_bytes([new[14], new[15]]));
    let torn_sectors: Vec<usize> = (upper_new / SECTOR + 1..upper_old / SECTOR)
        .take(3)
        .collect();
    assert!(
        !torn_sectors.is_empty(),
        "old upper {upper_old}, new {upper_new}"
    );
    let mut torn = new.clone();
    for s in &torn_sectors {
        torn[s * SECTOR..(s + 1) * SECTOR].copy_from_slice(&old[s * SECTOR..(s + 1) * SECTOR]);
    }
    write_block(&file, torn_block, &torn);
    let holder = read_block(&file, holds);
    write_block(&file, misplaced, &holder);
    let mut wrong = read_block(&file, structure);
    wrong[xmin_at..xmin_at + 4].copy_from_slice(&0x7FFF_FF00u32.to_le_bytes());
    let sum =
        pgpage::page::checksum::pg_checksum_page(&wrong, structure as u32, pgpage::Endian::Little);
    wrong[8..10].copy_from_slice(&sum.to_le_bytes());
    write_block(&file, structure, &wrong);
    let mut bits = read_block(&file, flipped);
    bits[flip_byte] ^= 1 << 5;
    write_block(&file, flipped, &bits);

    let d = damaged.to_str().unwrap();
    let out = pgpage(&["report", "--json", d]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let report = json(&out);
    assert_eq!(report["cluster"]["pg_version"], version);
    assert_eq!(report["cluster"]["data_checksums"], "on");
    assert_eq!(report["cluster"]["block_size"], 8192);
    assert_eq!(report["cluster"]["state"], "shut down");

    // The steps' commands run as printed from where the report was made: the data
    // directory as the user named it, the table's database and name, only NEW left to fill.
    let run_here = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_pgpage"))
            .args(args)
            .current_dir(&c.root)
            .output()
            .unwrap()
    };
    let here = json(&run_here(&["report", "--json", "damaged"]));
    let steps: Vec<String> = here["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect();
    let command = |start: &str, ends: &[&str]| -> Vec<String> {
        let step = steps
            .iter()
            .find(|s| s.contains(start))
            .unwrap_or_else(|| panic!("no step holds {start}: {steps:#?}"));
        let from = step.find(start).unwrap();
        let rest = &step[from..];
        // A command ends its line; a note after it is a shell comment.
        let end = ends
            .iter()
            .chain(&["\n", "  #"])
            .filter_map(|e| rest.find(e))
            .min()
            .unwrap_or(rest.len());
        rest[..end].split_whitespace().map(str::to_owned).collect()
    };
    // One way per block: the data directory's WAL holds a full-page image of the flipped
    // block with no record after it (the page as it is now), which recover writes as the
    // server's recovery would and needs no pick among candidates; the flip is offered only
    // without one.
    let flip_start = format!("pgpage repair --block {flipped} --flip {flip_byte}:5 ");
    let image = &block_of(&here, "public.t", flipped)["wal_image"];
    let flip = if image.is_null() {
        command(&flip_start, &[" (", ";"])
    } else {
        assert_eq!(image["records_after"], 0, "{image:#}");
        assert!(
            steps.iter().all(|s| !s.contains(&flip_start))
                && steps.iter().any(|s| s.contains("pgpage recover --block ")
                    && s.contains(&format!("--block {flipped} "))
                    && s.contains(&format!("Block {flipped} of public.t: its image at"))
                    && s.contains("the last change to the block")),
            "{steps:#?}"
        );
        format!("{flip_start}--out NEW damaged/{rel}")
            .split_whitespace()
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(flip.last().unwrap(), &format!("damaged/{rel}"), "{flip:?}");
    let repaired = c.root.join("repaired");
    let flip_args: Vec<&str> = flip[1..]
        .iter()
        .map(|a| {
            if a == "NEW" {
                repaired.to_str().unwrap()
            } else {
                a.as_str()
            }
        })
        .collect();
    let out = run_here(&flip_args);
    assert_eq!(out.status.code(), Some(0), "{flip:?}: {out:?}");
    let fixed = read_block(&repaired, flipped);
    assert_eq!(
        pgpage::page::checksum::pg_checksum_page(&fixed, flipped as u32, pgpage::Endian::Little),
        u16::from_le_bytes([fixed[8], fixed[9]]),
        "the repaired block passes its checksum"
    );
    let rows_cmd = command("pgpage rows ", &[" writes"]);
    assert!(
        !rows_cmd
            .iter()
            .any(|a| a.chars().all(|ch| ch.is_ascii_uppercase())),
        "{rows_cmd:?}"
    );
    let rows_args: Vec<&str> = rows_cmd[1..].iter().map(String::as_str).collect();
    let out = run_here(&rows_args);
    // rows exits 1 when it leaves damaged pages out, as here; 2 would be a command it
    // cannot run.
    assert_eq!(
        out.status.code(),
        Some(1),
        "{rows_cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).lines().count() > 0,
        "{rows_cmd:?} printed no row"
    );
    // The WAL's way back, as printed: every block it names is rebuilt.
    let recover_cmd = command("pgpage recover ", &[]);
    let rebuilt = c.root.join("recovered");
    let recover_args: Vec<&str> = recover_cmd[1..]
        .iter()
        .map(|a| {
            if a == "NEW" {
                rebuilt.to_str().unwrap()
            } else {
                a.as_str()
            }
        })
        .collect();
    let out = run_here(&recover_args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{recover_cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The text and the Markdown print the same steps, line by line: each command on a line
    // of its own under its sentences.
    let text_here = String::from_utf8(run_here(&["report", "damaged"]).stdout).unwrap();
    let md_here = String::from_utf8(run_here(&["report", "--markdown", "damaged"]).stdout).unwrap();
    for step in &steps {
        for line in step.lines() {
            let line = line.trim();
            assert!(
                text_here.lines().any(|l| l.trim().ends_with(line)),
                "text lacks {line}"
            );
            assert!(
                md_here
                    .lines()
                    .any(|l| l.trim().ends_with(line) || l.trim() == format!("- `{line}`")),
                "markdown lacks {line}"
            );
        }
    }

    // The table's file alone, inside the data directory: the same blocks, named.
    let alone = json(&pgpage(&["report", "--json", file.to_str().unwrap()]));
    assert_eq!(
        alone["relations"].as_array().unwrap().len(),
        1,
        "the file alone"
    );
    assert_eq!(
        alone["relations"][0], report["relations"][0],
        "the file alone"
    );

    let class = |b: usize| {
        block_of(&report, "public.t", b)["damage"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(class(zeroed), "zeroed");
    assert_eq!(class(random), "overwritten");
    assert_eq!(class(torn_block), "torn");
    assert_eq!(class(misplaced), "misplaced");
    assert_eq!(class(flipped), "bit_flip");
    assert_eq!(
        block_of(&report, "public.t", misplaced)["holds_block"],
        holds
    );
    for b in [zeroed, random, torn_block, misplaced, flipped] {
        assert_eq!(
            block_of(&report, "public.t", b)["severity"],
            "error",
            "block {b}"
        );
    }

    // Lost rows: every row of the zeroed, overwritten and misplaced blocks, by the index.
    for b in [zeroed, random, misplaced] {
        let got = block_of(&report, "public.t", b);
        let ids: BTreeSet<String> = rows[&b].iter().map(|(_, id)| id.clone()).collect();
        assert_eq!(got["rows"]["known_from"], "index", "block {b}: {got:#}");
        assert_eq!(got["rows"]["lost"], ids.len(), "block {b}");
        assert_eq!(got["rows"]["readable"], 0, "block {b}");
        assert_eq!(got["rows"]["index"], "public.t_pkey", "block {b}");
        assert_eq!(keys(got), ids, "block {b}");
    }
    // Torn: the tuples that reach into the old sectors are lost, the rest readable.
    let items = |b: usize| -> Vec<(u16, usize, usize)> {
        let page = read_block(&c.data.join(&rel), b);
        (1..=(usize::from(u16::from_le_bytes([page[12], page[13]])) - 24) / 4)
            .map(|lp| {
                let w =
                    u32::from_le_bytes(page[24 + (lp - 1) * 4..24 + lp * 4].try_into().unwrap());
                (lp as u16, (w & 0x7FFF) as usize, (w >> 17) as usize)
            })
            .collect()
    };
    let in_torn: BTreeSet<u16> = items(torn_block)
        .into_iter()
        .filter(|(_, off, len)| {
            torn_sectors
                .iter()
                .any(|s| *off < (s + 1) * SECTOR && off + len > s * SECTOR)
        })
        .map(|(lp, _, _)| lp)
        .collect();
    let want_lost: BTreeSet<String> = rows[&torn_block]
        .iter()
        .filter(|(lp, _)| in_torn.contains(lp))
        .map(|(_, id)| id.clone())
        .collect();
    let got = block_of(&report, "public.t", torn_block);
    assert_eq!(got["rows"]["known_from"], "index");
    assert_eq!(keys(got), want_lost, "{got:#}");
    assert_eq!(got["rows"]["lost"], want_lost.len());
    assert_eq!(
        got["rows"]["readable"],
        rows[&torn_block].len() - want_lost.len()
    );
    let sectors: Vec<usize> = got["torn_sectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap() as usize)
        .collect();
    assert!(
        sectors.iter().all(|s| torn_sectors.contains(s)) && !sectors.is_empty(),
        "{sectors:?} against {torn_sectors:?}"
    );
    // Bit flip: nothing lost, every row readable, the true bit named with its values.
    let got = block_of(&report, "public.t", flipped);
    assert_eq!(got["rows"]["lost"], 0);
    assert_eq!(got["rows"]["readable"], rows[&flipped].len());
    let candidate = got["bit_flips"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["byte"] == flip_byte && f["bit"] == 5)
        .unwrap_or_else(|| panic!("the true bit is not a candidate: {got:#}"));
    assert_eq!(candidate["item"], 1);
    assert_eq!(candidate["column"], "note");
    assert_eq!(candidate["flipped"], original_note.as_str());
    assert_eq!(
        candidate["stored"],
        original_note.replace("Juliet", "juliet").as_str()
    );
    // The verdict counts what the blocks say.
    let lost: u64 = rows
        .keys()
        .map(|b| {
            block_of(&report, "public.t", *b)["rows"]["lost"]
                .as_u64()
                .unwrap()
        })
        .sum();
    let verdict = report["verdict"].as_str().unwrap();
    assert!(verdict.contains(&format!("{lost} rows lost")), "{verdict}");
    assert!(
        verdict.contains("4 pages in 1 relation that the server refuses"),
        "{verdict}"
    );

    // Text: the verdict first, errors before notes; no output with holes.
    let text = pgpage(&["report", d]);
    assert_eq!(text.status.code(), Some(1));
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.starts_with(verdict), "{text}");
    let errors = text.find("Errors:").unwrap();
    if let Some(notes) = text.find("Routine notes (not damage):") {
        assert!(errors < notes);
    }
    assert!(text.find("Steps:").unwrap() > errors);
    let md = pgpage(&["report", "--markdown", d]);
    assert_eq!(md.status.code(), Some(1));
    let md = String::from_utf8(md.stdout).unwrap();
    assert!(md.contains("| error | public.t |"), "{md}");
    // The Markdown lists the zeroed block's keys (runs of consecutive ids as `first-last`):
    // expanded, the lists hold every key the JSON gives for it.
    let zeroed_keys = keys(block_of(&report, "public.t", zeroed));
    let listed: BTreeSet<String> = md
        .lines()
        .filter_map(|l| l.strip_prefix("- lost keys ("))
        .filter_map(|l| l.split_once("): ").map(|(_, list)| list))
        .flat_map(|list| list.split(", "))
        .flat_map(|k| match k.split_once('-') {
            Some((a, b)) => {
                let (a, b): (i64, i64) = (a.parse().unwrap(), b.parse().unwrap());
                (a..=b).map(|v| v.to_string()).collect::<Vec<_>>()
            }
            None => vec![k.to_owned()],
        })
        .collect();
    assert!(
        zeroed_keys.is_subset(&listed),
        "{zeroed_keys:?} not all in the Markdown's {listed:?}"
    );
    no_holes(&text, "text");
    no_holes(&md, "markdown");
    no_holes(&report.to_string(), "json");

    // The summary for a mailing-list post: the verdict and every damaged block's one line
    // (its headline, as the JSON gives it), the table, and none of the evidence or keys.
    let summary = String::from_utf8(pgpage(&["report", "--summary", d]).stdout).unwrap();
    assert!(summary.contains(verdict), "{summary}");
    for rel in report["relations"].as_array().unwrap() {
        for b in rel["blocks"].as_array().unwrap() {
            let line = format!(
                "- {} block {}: {}",
                rel["relation"].as_str().unwrap(),
                b["block"],
                b["headline"].as_str().unwrap()
            );
            assert!(summary.contains(&line), "{line} in {summary}");
        }
    }
    assert!(
        md.contains("- lost keys (") && !summary.contains("lost keys"),
        "{summary}"
    );
    assert!(
        summary.len() * 3 < md.len(),
        "a summary: {} of {} bytes",
        summary.len(),
        md.len()
    );
    no_holes(&summary, "summary");

    // Redacted, for sharing: no value the damaged rows hold (the flip's note as stored and
    // flipped back, the lost ids), every count kept, the keys counted.
    let red = String::from_utf8(pgpage(&["report", "--markdown", "--redact", d]).stdout).unwrap();
    for v in [
        candidate["stored"].as_str().unwrap(),
        original_note.as_str(),
    ] {
        assert!(md.contains(v) && !red.contains(v), "{v} in {red}");
    }
    assert!(red.contains(verdict), "{red}");
    let red_summary =
        String::from_utf8(pgpage(&["report", "--summary", "--redact", d]).stdout).unwrap();
    for v in [
        candidate["stored"].as_str().unwrap(),
        original_note.as_str(),
    ] {
        assert!(!red_summary.contains(v), "{v} in {red_summary}");
    }
    for line in md.lines().filter(|l| l.starts_with("- lost keys (")) {
        assert!(!red.contains(line), "{line} in {red}");
    }
    assert!(
        red.contains(&format!("{} keys (values redacted)", zeroed_keys.len())),
        "{red}"
    );
    let red_json = json(&pgpage(&["report", "--json", "--redact", d]));
    assert_eq!(red_json["redacted"], true);
    for b in [zeroed, flipped] {
        let (plain, redacted) = (
            block_of(&report, "public.t", b),
            block_of(&red_json, "public.t", b),
        );
        assert_eq!(plain["rows"]["lost"], redacted["rows"]["lost"]);
        assert_eq!(plain["rows"]["readable"], redacted["rows"]["readable"]);
        let n = |v: &Value| v["rows"]["keys"].as_array().map_or(0, Vec::len);
        assert_eq!(n(plain), n(redacted));
        assert!(redacted["rows"]["keys"]
            .as_array()
            .is_none_or(|k| k.iter().all(|k| k.as_array().unwrap().is_empty())));
        for f in redacted["bit_flips"].as_array().into_iter().flatten() {
            assert!(
                f.get("stored").is_none() && f.get("flipped").is_none(),
                "{f:#}"
            );
        }
    }
    no_holes(&red, "redacted markdown");

    // The server on the damaged copy with zero_damaged_pages: the pages it zeroes are the
    // blocks the report says it refuses, and the rows it then no longer has are, block by
    // block, the rows the report counts as lost plus those pgpage can still read.
    let log = c.root.join("damaged.log");
    let opts = format!(
        "-k {} -p {} -c listen_addresses='' -c fsync=off",
        c.root.display(),
        c.port
    );
    ok(
        run_pg(
            &c.bin,
            "pg_ctl",
            &[
                "-D",
                d,
                "-o",
                &opts,
                "-l",
                log.to_str().unwrap(),
                "-w",
                "start",
            ],
        ),
        "pg_ctl start on the damaged copy",
    );
    let server = psql_at(
        &c.root,
        &c.port,
        "postgres",
        &[
            "set zero_damaged_pages = on",
            "set enable_indexscan = off",
            "set enable_bitmapscan = off",
            "set enable_indexonlyscan = off",
            "select id from t",
        ],
    );
    ok(
        run_pg(
            &c.bin,
            "pg_ctl",
            &["-D", d, "-m", "immediate", "-w", "stop"],
        ),
        "pg_ctl stop",
    );
    let stderr = String::from_utf8_lossy(&server.stderr).into_owned();
    assert!(server.status.success(), "{stderr}");
    // 18 reads several blocks in one I/O and names the first zeroed one of a range to the
    // client, the others in the server log.
    let all = format!("{stderr}\n{}", fs::read_to_string(&log).unwrap_or_default());
    let zeroed_by_server: BTreeSet<usize> = all
        .lines()
        .filter_map(|l| {
            let rest = l.split("invalid page in block ").nth(1).or_else(|| {
                l.split("Block ")
                    .nth(1)
                    .filter(|_| l.contains("held the first zeroed page"))
            })?;
            rest.split_whitespace().next()?.parse().ok()
        })
        .collect();
    let refused: BTreeSet<usize> = report["relations"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["blocks"].as_array().unwrap())
        .filter(|b| !b["server"].is_null())
        .map(|b| b["block"].as_u64().unwrap() as usize)
        .collect();
    assert_eq!(zeroed_by_server, refused, "{stderr}");
    let seen: BTreeSet<String> = String::from_utf8_lossy(&server.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    let mut all_gone = 0;
    for (b, on_block) in &rows {
        let gone = on_block.iter().filter(|(_, id)| !seen.contains(id)).count();
        all_gone += gone;
        let got = &block_of(&report, "public.t", *b)["rows"];
        // The server reads the structure block; the rest it zeroes.
        let readable = if *b == structure {
            0
        } else {
            got["readable"].as_u64().unwrap()
        };
        assert_eq!(
            gone as u64,
            got["lost"].as_u64().unwrap() + readable,
            "block {b}"
        );
        assert!(keys(block_of(&report, "public.t", *b))
            .iter()
            .all(|k| !seen.contains(k)));
    }
    // Every other row is there.
    assert_eq!(seen.len(), total - all_gone);

    // --wal: each damaged block's newest full-page image in the original's pg_wal (the TID
    // scans above set hint bits after the last checkpoint, which with checksums on logs
    // images), as `pgpage fpi --block N` finds it.
    let wal = c.data.join("pg_wal");
    let with_wal = json(&pgpage(&[
        "report",
        "--json",
        "--wal",
        wal.to_str().unwrap(),
        d,
    ]));
    assert_eq!(with_wal["wal_searched"], true);
    let (db, relfilenode) = {
        let parts: Vec<&str> = rel.split('/').collect();
        (parts[1].to_owned(), parts[2].to_owned())
    };
    let mut images = 0;
    for b in [zeroed, random, torn_block, misplaced, flipped] {
        let fpi = json(&pgpage(&[
            "fpi",
            "--json",
            "--relation",
            &format!("{db}/{relfilenode}"),
            "--block",
            &b.to_string(),
            wal.to_str().unwrap(),
        ]));
        let newest = fpi["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["fork"] == "main")
            .map(|x| x["newest_image_lsn"].clone())
            .unwrap_or(Value::Null);
        let got = &block_of(&with_wal, "public.t", b)["wal_image"];
        if got["init"] == true {
            // No image since the record that built the page from nothing: fpi's newest
            // image of the block, if any, is older.
            let at = |v: &Value| lsn(v.as_str().unwrap());
            assert!(
                newest.is_null() || at(&newest) < at(&got["lsn"]),
                "block {b}: image {newest} after the initialising record {}",
                got["lsn"]
            );
            continue;
        }
        assert_eq!(
            if got.is_null() {
                Value::Null
            } else {
                got["lsn"].clone()
            },
            newest,
            "block {b}"
        );
        images += usize::from(!newest.is_null());
    }
    assert!(
        images > 0,
        "no full-page image of a damaged block in the WAL"
    );
    // Each image's LSN as this version's server prints that LSN (pg_lsn's output, `%X/%X` on
    // 13 to 18, `%X/%08X` on 19): parsed and printed back by the server, it is the same text.
    let lsns: Vec<String> = [zeroed, random, torn_block, misplaced, flipped]
        .iter()
        .filter_map(|b| block_of(&with_wal, "public.t", *b)["wal_image"]["lsn"].as_str())
        .map(str::to_owned)
        .collect();
    c.restart();
    for lsn in &lsns {
        let server = c.psql(&[&format!("select '{lsn}'::pg_lsn::text")]);
        assert_eq!(server.trim(), lsn, "the server prints {lsn} as {server}");
    }
    // An LSN whose low half has leading zeros, from the server's own pg_current_wal_lsn().
    let current = c.psql(&["select pg_current_wal_lsn()::text"]);
    let (hi, lo) = current.trim().split_once('/').unwrap();
    let value = (u64::from_str_radix(hi, 16).unwrap() << 32) | u64::from_str_radix(lo, 16).unwrap();
    assert!(
        value & 0xFFFF_FFFF < 0x1000_0000,
        "{current}: no leading zero to pad"
    );
    assert_eq!(pgpage::wal::lsn_text_for(version, value), current.trim());
    c.stop();
    // One way per block: an image followed by records is replayed (recover), an image with
    // none after it is the page as it is now (fpi); never both for one block.
    let steps = with_wal["steps"].to_string();
    for b in [zeroed, random, torn_block, misplaced, flipped] {
        let image = &block_of(&with_wal, "public.t", b)["wal_image"];
        if image.is_null() {
            continue;
        }
        let replayed = steps.contains(&format!("Block {b} of public.t: its image at"));
        if image["init"] == true {
            // A replay from the record that built the page: recover's step, or none where
            // another way serves.
            let from_init = steps.contains(&format!(
                "Block {b} of public.t: no image, but the record at {} builds the page",
                image["lsn"].as_str().unwrap()
            ));
            assert_eq!(
                from_init,
                block_of(&with_wal, "public.t", b)["route"] == "recover",
                "block {b}: {steps}"
            );
        } else {
            // An image with records after it is replayed with them; one with none is written
            // by recover too, with the pd_lsn the server's recovery gives it.
            assert!(replayed, "block {b}: {steps}");
            assert_eq!(
                block_of(&with_wal, "public.t", b)["route"],
                "recover",
                "block {b}: {steps}"
            );
        }
    }
    // The damaged directory as its own "backup": every refused page's copy there is the same
    // damaged page, so none can serve (tests/report_from.rs holds a real backup).
    let own = json(&pgpage(&["report", "--json", "--from", d, d]));
    for rel in own["relations"].as_array().unwrap() {
        for b in rel["blocks"].as_array().unwrap() {
            if b["status"] == "mismatch" {
                assert_eq!(b["backup"]["status"], "mismatch", "{b:#}");
            }
        }
    }

    // The undamaged copy: nothing to report.
    let clean = pgpage(&["report", c.data.to_str().unwrap()]);
    assert_eq!(clean.status.code(), Some(0), "{clean:?}");

    // Bad input: an empty directory, a file that is not a relation.
    let empty = c.root.join("empty");
    fs::create_dir(&empty).unwrap();
    let out = pgpage(&["report", empty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a data directory"));
    let junk = c.root.join("junk");
    fs::write(&junk, b"not a relation file at all\n").unwrap();
    let out = pgpage(&["report", junk.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("junk"));

    // A damaged pg_class: the report still runs, names the damaged catalog block, and says
    // what it could not read.
    let broken = c.root.join("broken");
    copy_dir(&c.data, &broken);
    write_block(&broken.join(&pg_class), 0, &noise);
    let out = pgpage(&["report", "--json", broken.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let got = json(&out);
    assert!(!got["unknown"].as_array().unwrap().is_empty(), "{got:#}");
    let block0 = got["relations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["path"] == pg_class.as_str())
        .unwrap_or_else(|| panic!("pg_class's file not in the report: {got:#}"));
    assert_eq!(block0["blocks"][0]["damage"], "overwritten");
    no_holes(
        &String::from_utf8(pgpage(&["report", broken.to_str().unwrap()]).stdout).unwrap(),
        "text",
    );
}

each_version!(check);

/// The tuples a page's line pointers describe: (lp, offset, length) of each LP_NORMAL one.
fn normal_items(page: &[u8]) -> Vec<(u16, usize, usize)> {
    let lower = usize::from(u16::from_le_bytes([page[12], page[13]]));
    (1..=(lower - 24) / 4)
        .filter_map(|lp| {
            let w = u32::from_le_bytes(page[24 + (lp - 1) * 4..24 + lp * 4].try_into().unwrap());
            let (off, flags, len) = ((w & 0x7FFF) as usize, (w >> 15) & 3, (w >> 17) as usize);
            (flags == 1 && len > 0).then_some((lp as u16, off, len))
        })
        .collect()
}

/// A torn heap page as a torn write leaves it: the first sectors of the page as the server
/// last wrote it, the rest from the older version of the same block (saved with
/// get_raw_page before a DELETE, a VACUUM that compacts the page, and HOT updates). Held
/// against the server: the sectors the report names are exactly the old version's, and
/// every row it counts as readable on that block is a row whose current version (its TID
/// from the server on the undamaged cluster) has the same bytes on the torn page as on the
/// original; every other row of the block is lost, with its key. `repair`'s pg_surgery
/// kills every tuple that lies in the old sectors, so no stale version of a row stays
/// visible.
fn torn_against_server(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create extension pageinspect",
        "create table t (id int primary key, note text not null, n int) with (autovacuum_enabled = off)",
        // 148-byte tuples: every 512-byte sector holds the end of a tuple header.
        "insert into t select g, repeat(chr(97 + g % 26), 100) || lpad(g::text, 6, '0'), 0 from generate_series(1, 300) g",
    ]);
    let block = 1usize;
    let old = hex(&c.psql(&[&format!("select encode(get_raw_page('t', {block}), 'hex')")]));
    // The first four rows go: VACUUM moves every other tuple of the block up by four tuples'
    // length, then three rows are updated in place (HOT, into the space the VACUUM freed).
    c.psql(&[
        &format!("delete from t where ctid in ('({block},1)', '({block},2)', '({block},3)', '({block},4)')"),
        "vacuum t",
        &format!("update t set n = n + 1 where ctid in ('({block},5)', '({block},9)', '({block},20)')"),
        "checkpoint",
    ]);
    let hot: String = c.psql(&[&format!(
        "select count(*) from heap_page_items(get_raw_page('t', {block})) where t_infomask2 & 32768 <> 0"
    )]);
    assert_eq!(hot.trim(), "3", "three heap-only tuples on block {block}");
    let live = server_rows(&c, block);
    let current = c.copy("t");
    let rel = c
        .psql(&["select pg_relation_filepath('t')"])
        .trim()
        .to_owned();
    c.stop();
    let new = read_block(&c.data.join(&rel), block);
    let upper = usize::from(u16::from_le_bytes([new[14], new[15]]));
    for from in [8usize, 12] {
        let tear: Vec<usize> = (from..BLCKSZ / SECTOR).collect();
        // The tear is seen only where the versions differ: here in every old sector.
        assert!(upper < from * SECTOR, "pd_upper {upper}");
        for s in &tear {
            assert_ne!(
                old[s * SECTOR..(s + 1) * SECTOR],
                new[s * SECTOR..(s + 1) * SECTOR],
                "sector {s} is the same in both versions"
            );
        }
        let damaged = c.root.join(format!("torn{from}"));
        copy_dir(&c.data, &damaged);
        let file = damaged.join(&rel);
        let mut torn = new.clone();
        torn[from * SECTOR..].copy_from_slice(&old[from * SECTOR..]);
        write_block(&file, block, &torn);

        let report = json(&pgpage(&["report", "--json", damaged.to_str().unwrap()]));
        let got = block_of(&report, "public.t", block);
        assert_eq!(got["damage"], "torn", "{got:#}");
        let named: Vec<usize> = got["torn_sectors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_u64().unwrap() as usize)
            .collect();
        assert_eq!(named, tear, "tear from sector {from}");
        assert_eq!(got["rows"]["known_from"], "index");
        let lost = keys(got);
        let readable: Vec<&(u16, String)> =
            live.iter().filter(|(_, id)| !lost.contains(id)).collect();
        assert_eq!(
            got["rows"]["readable"].as_u64().unwrap() as usize,
            readable.len(),
            "tear from sector {from}: {got:#}"
        );
        assert!(!readable.is_empty() && !lost.is_empty(), "{got:#}");
        // Every readable row is byte for byte the current version the server reads (hint
        // bits aside), at its own place or where the report says the older write holds it
        // (the VACUUM moved tuples between the two writes); every row whose bytes the tear
        // changed is lost, its key listed.
        let items = normal_items(&new);
        let moved: BTreeMap<u16, usize> = got["torn_moved"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|m| {
                        (
                            m["lp"].as_u64().unwrap() as u16,
                            m["lp_off"].as_u64().unwrap() as usize,
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let without_hints = |b: &[u8]| [&b[..20], &b[22..]].concat();
        for (lp, id) in &live {
            let &(_, off, len) = items.iter().find(|(l, _, _)| l == lp).unwrap();
            let at = moved.get(lp).copied().unwrap_or(off);
            let same = without_hints(&torn[at..at + len]) == without_hints(&new[off..off + len]);
            assert_eq!(
                same,
                !lost.contains(id),
                "tear from sector {from}: id {id} at lp {lp} (offset {off}, read at {at}, length {len})"
            );
        }
        // The VACUUM moved the tuples that stayed: the older write holds some rows that
        // the tear left at other places, and they read.
        assert!(
            moved
                .keys()
                .any(|lp| live.iter().any(|(l, id)| l == lp && !lost.contains(id))),
            "tear from sector {from}: no row read where the older write holds it: {got:#}"
        );
        // The rows the report lists as lost are the block's rows, no more.
        let ids: BTreeSet<String> = live.iter().map(|(_, id)| id.clone()).collect();
        assert!(lost.is_subset(&ids), "{lost:?} against {ids:?}");
        assert_eq!(got["rows"]["lost"].as_u64().unwrap() as usize, lost.len());

        // The salvage the report's steps offer prints the rows it counts readable: with
        // --include-damaged, every row of the table but the lost ones, each as the server
        // has it (the torn page's line pointers into the older sectors meet other bytes
        // there: structural damage the rows are read past).
        let out = pgpage(&[
            "rows",
            "--include-damaged",
            "--format",
            "csv",
            "--database",
            "postgres",
            damaged.to_str().unwrap(),
            "public.t",
        ]);
        let printed: BTreeSet<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
        let wanted: BTreeSet<&str> = current
            .lines()
            .filter(|l| !lost.contains(l.split(',').next().unwrap()))
            .collect();
        assert_eq!(
            printed,
            wanted,
            "tear from sector {from}: {}",
            String::from_utf8_lossy(&out.stderr)
        );

        // repair's pg_surgery kills every tuple lying in the old sectors: none of them
        // stays visible as a stale copy of its row.
        let advice = json(&pgpage(&[
            "repair",
            "--json",
            "--block",
            &block.to_string(),
            file.to_str().unwrap(),
        ]));
        let killed: BTreeSet<String> = advice["damaged"]
            .as_array()
            .unwrap_or_else(|| panic!("{advice:#}"))
            .iter()
            .map(|c| c.as_str().unwrap().to_owned())
            .collect();
        let in_tear: BTreeSet<String> = items
            .iter()
            .filter(|(_, off, len)| off + len > from * SECTOR)
            .map(|(lp, _, _)| format!("({block},{lp})"))
            .collect();
        assert_eq!(killed, in_tear, "tear from sector {from}");
        let sql = advice["surgery_sql"].as_str().unwrap();
        assert!(sql.contains("torn write"), "{sql}");
        assert!(sql.contains("heap_force_kill"), "{sql}");

        check_rebuilt(&mut c, &rel, block, &file, &lost);
    }
}

each_version!(torn_against_server);

/// A torn page whose older half holds the roots of HOT chains, as a 4 kB torn write leaves
/// it after HOT updates: the roots read there as live rows never updated, and their newest
/// versions (heap-only tuples in the newer half) are reached by nothing. Held against the
/// undamaged server: the report names the roots' sectors as the older write, counts every
/// updated row readable (its newest version) and none of them lost; `rows --include-damaged`
/// prints each row once, with the server's current values; and (14 on, pg_surgery)
/// `repair`'s SQL, run on the damaged cluster, leaves every updated row reachable through
/// the index with its current value.
fn torn_hot_roots(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create extension pageinspect",
        "create table t (id int primary key, note text not null, n int) with (autovacuum_enabled = off, fillfactor = 60)",
        "insert into t select g, repeat(chr(97 + g % 26), 100) || lpad(g::text, 6, '0'), 0 from generate_series(1, 200) g",
        "checkpoint",
    ]);
    let block = 1usize;
    let old = hex(&c.psql(&[&format!("select encode(get_raw_page('t', {block}), 'hex')")]));
    // The block's first rows lie at its end: their updates leave their roots in the older
    // half and put their newest versions, heap-only, into the free space below. Only TID
    // scans and pageinspect read the table from here: a scan would prune the block (the
    // roots would become redirects and the tuples move).
    let roots = format!("array['({block},1)', '({block},2)', '({block},3)', '({block},5)']::tid[]");
    let updated: BTreeSet<String> = c
        .psql(&[&format!("select id from t where ctid = any({roots})")])
        .lines()
        .map(str::to_owned)
        .collect();
    c.psql(&[
        &format!("update t set n = n + 1 where ctid = any({roots})"),
        "checkpoint",
    ]);
    let heap_only = c.psql(&[&format!(
        "select count(*) from heap_page_items(get_raw_page('t', {block})) where t_infomask2 & 32768 <> 0"
    )]);
    assert_eq!(heap_only.trim(), "4", "four HOT updates on block {block}");
    assert_eq!(updated.len(), 4);
    let rel = c
        .psql(&["select pg_relation_filepath('t')"])
        .trim()
        .to_owned();
    c.stop();
    let new = read_block(&c.data.join(&rel), block);
    let half = BLCKSZ / 2;
    let mut torn = new.clone();
    torn[half..].copy_from_slice(&old[half..]);
    assert_ne!(torn, new, "the halves differ");
    let dir = c.root.join("torn");
    copy_dir(&c.data, &dir);
    let file = dir.join(&rel);
    write_block(&file, block, &torn);
    let data = dir.to_str().unwrap().to_owned();
    // The undamaged table as the server prints it (its scans may prune the block now, which
    // moves tuples but keeps their line pointers).
    c.restart();
    let live = server_rows(&c, block);
    let current = c.copy("t");
    c.stop();

    let report = json(&pgpage(&["report", "--json", &data]));
    let got = block_of(&report, "public.t", block);
    assert_eq!(got["damage"], "torn", "{got:#}");
    let sectors: Vec<usize> = got["torn_sectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap() as usize)
        .collect();
    // Every root of an updated row lies in a named sector, and every named sector is in the
    // older half.
    let items = normal_items(&new);
    for (lp, off, len) in items.iter().filter(|(lp, _, _)| [1, 2, 3, 5].contains(lp)) {
        assert!(
            sectors.contains(&(off / SECTOR)) || sectors.contains(&((off + len - 1) / SECTOR)),
            "root {lp} at {off} outside {sectors:?}"
        );
    }
    assert!(sectors.iter().all(|s| s * SECTOR >= half), "{sectors:?}");
    let lost = keys(got);
    assert!(
        lost.is_disjoint(&updated),
        "updated rows counted lost: {got:#}"
    );
    // Every row of the block still reads on the torn page, byte for byte the server's current
    // version (the updated rows at their heap-only tuples, in the newer half): none is lost.
    for (lp, id) in &live {
        let &(_, off, len) = items.iter().find(|(l, _, _)| l == lp).unwrap();
        assert_eq!(
            torn[off..off + len],
            new[off..off + len],
            "id {id} at lp {lp}"
        );
    }
    assert!(lost.is_empty(), "{got:#}");
    assert_eq!(
        got["rows"]["readable"].as_u64().unwrap() as usize,
        live.len(),
        "{got:#}"
    );

    // rows --include-damaged: each id once, the updated ones with the server's values.
    let out = pgpage(&[
        "rows",
        "--include-damaged",
        "--format",
        "csv",
        "--database",
        "postgres",
        &data,
        "public.t",
    ]);
    let printed = String::from_utf8(out.stdout).unwrap();
    assert!(
        printed.lines().count() >= live.len(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut seen = BTreeSet::new();
    for line in printed.lines() {
        let id = line.split(',').next().unwrap().to_owned();
        assert!(seen.insert(id.clone()), "id {id} printed twice");
        if updated.contains(&id) {
            assert!(
                current.lines().any(|l| l == line),
                "{line} is not the server's"
            );
        }
    }
    assert!(updated.is_subset(&seen), "{updated:?} not all printed");

    // repair's pg_surgery: the stale roots killed, the newest versions saved and inserted
    // anew, so that the index reaches each with its current value.
    let advice = json(&pgpage(&[
        "repair",
        "--json",
        "--block",
        &block.to_string(),
        file.to_str().unwrap(),
    ]));
    let unreached: BTreeSet<String> = advice["unreached"]
        .as_array()
        .unwrap_or_else(|| panic!("{advice:#}"))
        .iter()
        .map(|c| c.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(unreached.len(), updated.len(), "{advice:#}");
    // repair --torn: the roots redirected to their newest versions, nothing lost.
    check_rebuilt(&mut c, &rel, block, &file, &keys(got));
    let sql = advice["surgery_sql"].as_str().unwrap().to_owned();
    if version >= 14 {
        // The server on the damaged files: the torn block put into the original's.
        write_block(&c.data.join(&rel), block, &torn);
        c.restart();
        c.psql(&[&sql]);
        for id in &updated {
            let by_index = c.psql(&[
                "set enable_seqscan = off",
                "set enable_bitmapscan = off",
                &format!("select n from t where id = {id}"),
            ]);
            assert_eq!(by_index.trim(), "1", "id {id} through the index");
        }
    }
}

each_version!(torn_hot_roots);

/// A page torn at 4 kB whose tuples all lie in its later half, as VACUUM leaves a page after
/// most of its rows are deleted: the first half the newer write's (header, line pointers,
/// and in its free space the bytes the compaction copied its tuples from), the second half
/// the page before the deletes. Every line pointer points at another write's bytes, and the
/// report still names the tear; each remaining row is found where a copy of it lies
/// (the free space, or the older half) and counted readable. Held against the server:
/// `repair --torn` gives back every row of the original with its values, and `--from` a
/// backup taken before the deletes names the sectors it holds byte for byte (the older half).
fn torn_at_4k(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create extension pageinspect",
        "create table t (id int primary key, note text not null, n int) with (autovacuum_enabled = off)",
        "insert into t select g, repeat(chr(97 + g % 26), 100) || lpad(g::text, 6, '0'), 0 from generate_series(1, 300) g",
        "checkpoint",
    ]);
    let block = 1usize;
    let rel = c
        .psql(&["select pg_relation_filepath('t')"])
        .trim()
        .to_owned();
    c.stop();
    let backup = c.root.join("backup");
    copy_dir(&c.data, &backup);
    let old = read_block(&c.data.join(&rel), block);
    c.restart();
    c.psql(&[
        &format!("delete from t where ctid = any(array(select format('({block},%s)', g)::tid from generate_series(1, 60) g where g % 7 <> 0))"),
        "vacuum t",
        "checkpoint",
    ]);
    c.stop();
    let new = read_block(&c.data.join(&rel), block);
    let upper = usize::from(u16::from_le_bytes([new[14], new[15]]));
    assert!(
        upper >= BLCKSZ / 2,
        "the remaining tuples lie in the later half: pd_upper {upper}"
    );
    let half = BLCKSZ / 2;
    let mut torn = new.clone();
    torn[half..].copy_from_slice(&old[half..]);
    let damaged = c.root.join("torn4k");
    copy_dir(&c.data, &damaged);
    let file = damaged.join(&rel);
    write_block(&file, block, &torn);

    let report = json(&pgpage(&[
        "report",
        "--json",
        "--from",
        backup.to_str().unwrap(),
        damaged.to_str().unwrap(),
    ]));
    let got = block_of(&report, "public.t", block);
    assert_eq!(got["damage"], "torn", "{got:#}");
    let sectors: Vec<usize> = got["torn_sectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap() as usize)
        .collect();
    assert!(
        !sectors.is_empty() && sectors.iter().all(|&s| s >= half / SECTOR),
        "{sectors:?}"
    );
    let lost = keys(got);
    assert!(
        lost.is_empty(),
        "every row found where a copy lies: {got:#}"
    );
    let same: Vec<usize> = got["backup"]["same_sectors"]
        .as_array()
        .unwrap_or_else(|| panic!("{got:#}"))
        .iter()
        .map(|s| s.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(
        same,
        (half / SECTOR..BLCKSZ / SECTOR).collect::<Vec<_>>(),
        "{got:#}"
    );

    check_rebuilt(&mut c, &rel, block, &file, &lost);
}

each_version!(torn_at_4k);

/// A page torn the other way: its first sector (the header and the line pointers) from the
/// older write, the tuples from the newer one. Updates between the two writes put new
/// versions into what the older header calls free space, under line pointers it does not
/// have: HOT updates leave their roots HEAP_HOT_UPDATED naming a line pointer the header
/// calls unused, and an update of the key puts the row's only live version there.
fn torn_header(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create extension pageinspect",
        "create table t (id int primary key, note text not null, n int) with (autovacuum_enabled = off, fillfactor = 70)",
        "insert into t select g, repeat(chr(97 + g % 26), 100) || lpad(g::text, 6, '0'), 0 from generate_series(1, 200) g",
    ]);
    let block = 1usize;
    // VACUUM frees two line pointers, which the later updates take again.
    c.psql(&[
        &format!("delete from t where ctid in ('({block},4)', '({block},6)')"),
        "vacuum t",
        "checkpoint",
    ]);
    let rel = c
        .psql(&["select pg_relation_filepath('t')"])
        .trim()
        .to_owned();
    // A cold backup: its page of the block is the older write.
    c.stop();
    let backup = c.root.join("backup");
    copy_dir(&c.data, &backup);
    let old = read_block(&backup.join(&rel), block);
    c.restart();
    // One transaction, and no read of the block after it (a read prunes the page): the
    // newer write holds every version the updates made, under line pointers the older
    // header calls unused (reused) or does not have.
    c.psql(&[
        "begin",
        &format!(
            "update t set n = n + 1 where ctid in ('({block},2)', '({block},3)', '({block},7)')"
        ),
        &format!("update t set id = id + 1000 where ctid in ('({block},10)', '({block},11)')"),
        "commit",
        "checkpoint",
    ]);
    c.stop();
    let new = read_block(&c.data.join(&rel), block);
    let damaged = c.root.join("torn0");
    copy_dir(&c.data, &damaged);
    c.restart();
    // Where the server finds each row of the block now (HOT versions keep their line
    // pointers when the read prunes the page).
    let live = server_rows(&c, block);
    c.stop();
    let file = damaged.join(&rel);
    let mut torn = new.clone();
    torn[..SECTOR].copy_from_slice(&old[..SECTOR]);
    write_block(&file, block, &torn);
    // Every row whose newest version lies intact on the page is readable, under a line
    // pointer the older header lacks or calls unused too (the newer write's line pointers
    // are rebuilt from the tuples); a row is lost only when that version lies in sector 0,
    // the older write's.
    let in_sector0: BTreeSet<u16> = normal_items(&new)
        .iter()
        .filter(|(_, off, _)| *off < SECTOR)
        .map(|(lp, _, _)| *lp)
        .collect();
    let want_lost: BTreeSet<String> = live
        .iter()
        .filter(|(lp, _)| in_sector0.contains(lp))
        .map(|(_, id)| id.clone())
        .collect();
    // Five of them under line pointers the older header lacks or calls unused.
    let in_old: BTreeSet<u16> = normal_items(&old).iter().map(|i| i.0).collect();
    assert_eq!(
        live.iter().filter(|(lp, _)| !in_old.contains(lp)).count(),
        5,
        "{live:?}"
    );

    let report = json(&pgpage(&["report", "--json", damaged.to_str().unwrap()]));
    let got = block_of(&report, "public.t", block);
    assert_eq!(got["damage"], "torn", "{got:#}");
    assert_eq!(got["torn_sectors"], serde_json::json!([0]), "{got:#}");
    assert!(
        got["bit_flips"].as_array().is_none_or(|a| a.is_empty()),
        "{got:#}"
    );
    assert_eq!(keys(got), want_lost, "{got:#}");
    assert_eq!(
        got["rows"]["readable"].as_u64().unwrap() as usize,
        live.len() - want_lost.len(),
        "{got:#}"
    );
    let text = String::from_utf8(pgpage(&["report", damaged.to_str().unwrap()]).stdout).unwrap();
    // The older header's all-visible flag, whose visibility map bit the updates cleared, is
    // the tear's trace on this page, not a routine note.
    let vm_note = "the page is marked all-visible but its visibility map bit is not set";
    assert!(
        got["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e.as_str().unwrap().contains(vm_note)),
        "{got:#}"
    );
    assert!(
        !report["notes"].as_array().is_some_and(|n| n
            .iter()
            .any(|n| n["message"].as_str().unwrap_or("").contains(vm_note))),
        "{:#}",
        report["notes"]
    );
    assert!(
        text.contains(
            "sector 0 of the page, its header and line pointers, is an older write than its tuples"
        ),
        "{text}"
    );
    // The backup's page has the torn header's pd_lsn, but the WAL changed the block since:
    // the backup is older, and its step does not say it restores the page exactly.
    // The data directory's own pg_wal is read without --wal.
    let with = json(&pgpage(&[
        "report",
        "--json",
        "--from",
        backup.to_str().unwrap(),
        damaged.to_str().unwrap(),
    ]));
    assert_eq!(with["wal_searched"], true);
    let b = block_of(&with, "public.t", block);
    assert_eq!(b["backup"]["age"], "older", "{b:#}");
    assert!(
        b["backup"]["note"]
            .as_str()
            .unwrap()
            .contains("the WAL changed the block after the backup's pd_lsn"),
        "{b:#}"
    );
    assert!(
        !with["steps"]
            .to_string()
            .contains("restores the page exactly"),
        "{:#}",
        with["steps"]
    );
    // The WAL's records after the image offer pgpage recover first.
    assert!(
        with["steps"]
            .to_string()
            .contains(&format!("pgpage recover --block {block}")),
        "{:#}",
        with["steps"]
    );
    // The salvage prints every other row of the table, each as the server has it.
    let out = pgpage(&[
        "rows",
        "--include-damaged",
        "--format",
        "csv",
        "--database",
        "postgres",
        damaged.to_str().unwrap(),
        "public.t",
    ]);
    c.restart();
    let current = c.copy("t");
    c.stop();
    let printed: BTreeSet<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
    let wanted: BTreeSet<&str> = current
        .lines()
        .filter(|l| !want_lost.contains(l.split(',').next().unwrap()))
        .collect();
    assert_eq!(printed, wanted, "{}", String::from_utf8_lossy(&out.stderr));
    // The rebuilt page leaves no HOT root the updates replaced visible, and no version
    // the header's all-visible flag would show although it was updated since.
    check_rebuilt(&mut c, &rel, block, &file, &want_lost);
}

each_version!(torn_header);

/// The eighth review's torn page: the first sector (the header and the line pointers) from a
/// cold backup, the rest from the newer write, between which the block saw a DELETE and a
/// VACUUM (line pointers freed), INSERTs into the freed line pointers, HOT and non-HOT
/// UPDATEs, and a read that pruned and compacted the page. The newer write's tuples then
/// stand at other places than the older line pointers say, some under line pointers past the
/// older array. Held against the server on the undamaged newer copy:
/// - the header is the older write (torn_sectors [0]);
/// - the readable rows are the server's rows of that block (every row whose tuple is not in
///   sector 0, lost only when it is), and `rows --include-damaged` prints each as the server's
///   COPY does;
/// - `repair --torn` builds a page on which the server returns the same rows at the same
///   ctids, by sequential, TID and index scans, and amcheck (verify_heapam, bt_index_check
///   with heapallindexed) finds nothing; for the file outside its data directory (no
///   catalog, no tuple lengths) it refuses, naming `pgpage recover` and `rows
///   --include-damaged`.
fn torn_header_compacted(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create extension pageinspect",
        "create table t (id int primary key, n int not null, val text) with (autovacuum_enabled = off, fillfactor = 85)",
        "create index t_n on t (n)",
        "insert into t select g, g * 7 % 1000, 'row ' || g || ' ' || md5(g::text) from generate_series(1, 1000) g",
        "checkpoint",
    ]);
    let block = 3usize;
    let rel = c
        .psql(&["select pg_relation_filepath('t')"])
        .trim()
        .to_owned();
    c.stop();
    let backup = c.root.join("backup");
    copy_dir(&c.data, &backup);
    let old = read_block(&backup.join(&rel), block);
    c.restart();
    let ids = |lps: std::ops::RangeInclusive<u16>| -> String {
        server_rows(&c, block)
            .iter()
            .filter(|(lp, _)| lps.contains(lp))
            .map(|(_, id)| id.clone())
            .collect::<Vec<_>>()
            .join(",")
    };
    let (hot, keyed) = (ids(20..=29), ids(30..=34));
    // The VACUUM frees line pointers 1-15; the INSERTs, finding no room on the full pages
    // before it, take them again.
    c.psql(&[
        &format!(
            "delete from t where ctid = any(array(select format('({block},%s)', g)::tid from generate_series(1, 15) g))"
        ),
        "vacuum t",
        "insert into t select g, g, 'row ' || g || ' ' || md5(g::text) from generate_series(9001, 9010) g",
        &format!("update t set val = val || ' hot' where id in ({hot})"),
        &format!("update t set n = n + 100000 where id in ({keyed})"),
    ]);
    // A sequential scan prunes the page (heap_page_prune_opt) and compacts it.
    c.psql(&["select count(*) from t", "checkpoint"]);
    let placed = c.psql(&[&format!(
        "select count(*) from t where id > 9000 and (ctid::text::point)[0] = {block}"
    )]);
    assert_eq!(placed.trim(), "10", "the INSERTs went to other blocks");
    c.stop();
    let new = read_block(&c.data.join(&rel), block);
    let count = |page: &[u8]| (usize::from(u16::from_le_bytes([page[12], page[13]])) - 24) / 4;
    let redirects = (1..=count(&new))
        .filter(|lp| {
            (u32::from_le_bytes(new[24 + (lp - 1) * 4..24 + lp * 4].try_into().unwrap()) >> 15) & 3
                == 2
        })
        .count();
    assert!(
        count(&new) > count(&old) && redirects > 0,
        "the newer write has {} line pointers ({redirects} redirects), the older {}: not the case under test",
        count(&new),
        count(&old)
    );
    let damaged = c.root.join("torn0");
    copy_dir(&c.data, &damaged);
    let file = damaged.join(&rel);
    let mut torn = new.clone();
    torn[..SECTOR].copy_from_slice(&old[..SECTOR]);
    write_block(&file, block, &torn);
    c.restart();
    let live = server_rows(&c, block);
    let current = c.copy("t");
    let ctid_of: BTreeMap<String, String> = c
        .psql(&["select id, ctid from t"])
        .lines()
        .filter_map(|l| l.split_once('|'))
        .map(|(id, ctid)| (id.to_owned(), ctid.to_owned()))
        .collect();
    c.stop();
    // A row is lost only when its newest tuple lies in sector 0, the older write's.
    let in_sector0: BTreeSet<u16> = normal_items(&new)
        .iter()
        .filter(|(_, off, _)| *off < SECTOR)
        .map(|(lp, _, _)| *lp)
        .collect();
    let want_lost: BTreeSet<String> = live
        .iter()
        .filter(|(lp, _)| in_sector0.contains(lp))
        .map(|(_, id)| id.clone())
        .collect();

    let report = json(&pgpage(&["report", "--json", damaged.to_str().unwrap()]));
    let got = block_of(&report, "public.t", block);
    assert_eq!(got["damage"], "torn", "{got:#}");
    assert_eq!(got["torn_sectors"], serde_json::json!([0]), "{got:#}");
    assert_eq!(keys(got), want_lost, "{got:#}");
    assert_eq!(
        got["rows"]["lost"].as_u64().unwrap() as usize,
        want_lost.len(),
        "{got:#}"
    );
    assert_eq!(
        got["rows"]["readable"].as_u64().unwrap() as usize,
        live.len() - want_lost.len(),
        "{got:#}"
    );
    let evidence = got["evidence"].to_string();
    assert!(
        evidence.contains(
            "sector 0 of the page, its header and line pointers, is an older write than its tuples"
        ) && evidence.contains("which it does not have"),
        "{got:#}"
    );
    // Each key the evidence places is where the server has that row, not where the older
    // header's line pointers lead.
    for (key, at) in evidence
        .split("key ")
        .skip(1)
        .filter_map(|t| t.split_once(" at "))
        .filter_map(|(k, rest)| Some((k, rest.get(..rest.find(')')? + 1)?)))
    {
        assert_eq!(ctid_of.get(key).map(String::as_str), Some(at), "{got:#}");
    }
    // repair's advice counts the page's tuples through the rebuilt line pointers.
    let advice = pgpage(&[
        "repair",
        "--block",
        &block.to_string(),
        file.to_str().unwrap(),
    ]);
    let said = String::from_utf8_lossy(&advice.stdout);
    let first = said.lines().next().unwrap_or_default();
    assert!(
        first.contains(&format!(
            "{} tuples (a torn write",
            normal_items(&new).len()
        )),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            "its {} tuples are lost for good",
            normal_items(&new).len()
        )),
        "{said}"
    );
    // One way for the block: with the data directory's WAL, which holds its image and the
    // records since, the replay (recover); without the WAL, the rebuild.
    assert_eq!(got["route"], "recover", "{got:#}");
    let steps = report["steps"].to_string();
    assert!(
        steps.contains(&format!("pgpage recover --block {block}"))
            && !steps.contains(&format!("pgpage repair --block {block} --torn")),
        "{steps}"
    );
    let (wal, aside) = (damaged.join("pg_wal"), damaged.join("pg_wal.aside"));
    fs::rename(&wal, &aside).unwrap();
    let without = json(&pgpage(&["report", "--json", damaged.to_str().unwrap()]));
    fs::rename(&aside, &wal).unwrap();
    let b = block_of(&without, "public.t", block);
    assert_eq!(
        b["route"],
        if want_lost.is_empty() {
            "torn_whole"
        } else {
            "none"
        },
        "{b:#}"
    );
    assert!(
        without["steps"]
            .to_string()
            .contains(&format!("pgpage repair --block {block} --torn")),
        "{:#}",
        without["steps"]
    );
    let out = pgpage(&[
        "rows",
        "--include-damaged",
        "--format",
        "csv",
        "--database",
        "postgres",
        damaged.to_str().unwrap(),
        "public.t",
    ]);
    let printed: BTreeSet<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
    let wanted: BTreeSet<&str> = current
        .lines()
        .filter(|l| !want_lost.contains(l.split(',').next().unwrap()))
        .collect();
    assert_eq!(printed, wanted, "{}", String::from_utf8_lossy(&out.stderr));
    // Without --include-damaged the page's rows are left out, counted as the report counts
    // them readable (through the rebuilt line pointers, not the older header's).
    let counted = pgpage(&[
        "rows",
        "--database",
        "postgres",
        damaged.to_str().unwrap(),
        "public.t",
    ]);
    let said = String::from_utf8_lossy(&counted.stderr);
    assert!(
        said.contains(&format!(
            "block {block}: page verification failed, calculated checksum"
        )) && said.contains(&format!(
            "its {} rows are left out",
            live.len() - want_lost.len()
        )),
        "{said}"
    );
    // The page left out whole is one line, its tuples not named one by one after it.
    assert_eq!(
        said.lines()
            .filter(|l| l.contains(&format!("block {block}")))
            .count(),
        1,
        "{said}"
    );
    // Outside its data directory the file has no catalog, so neither the tuples' lengths nor
    // the newer write's line pointers are known: --torn refuses, naming the ways left.
    let loose_dir = c.root.join("loose");
    fs::create_dir_all(&loose_dir).unwrap();
    let loose = loose_dir.join(file.file_name().unwrap());
    fs::copy(&file, &loose).unwrap();
    let refused_out = loose_dir.join("rebuilt");
    let refused = pgpage(&[
        "repair",
        "--block",
        &block.to_string(),
        "--torn",
        "--out",
        refused_out.to_str().unwrap(),
        loose.to_str().unwrap(),
    ]);
    let why = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{why}");
    assert!(
        why.contains(&format!("pgpage recover --block {block}"))
            && why.contains("pgpage rows --include-damaged"),
        "{why}"
    );
    assert!(!refused_out.exists());
    check_rebuilt(&mut c, &rel, block, &file, &want_lost);
    // The rebuilt page's rows at their ctids, and the indexes' entries for every row.
    let rebuilt = read_block(&c.root.join(format!("rebuilt{block}")), block);
    let original = read_block(&c.data.join(&rel), block);
    write_block(&c.data.join(&rel), block, &rebuilt);
    c.restart();
    let at_ctids: Vec<(u16, String)> = server_rows(&c, block);
    let want: Vec<(u16, String)> = live
        .iter()
        .filter(|(_, id)| !want_lost.contains(id))
        .cloned()
        .collect();
    assert_eq!(at_ctids, want, "the rebuilt page's rows by ctid");
    let by_n = c.psql(&[
        "set enable_seqscan = off",
        "set enable_bitmapscan = off",
        &format!(
            "select string_agg(id::text, ',' order by id) from t where n >= 0 and (ctid::text::point)[0] = {block}"
        ),
    ]);
    let mut ids: Vec<u32> = want.iter().map(|(_, id)| id.parse().unwrap()).collect();
    ids.sort_unstable();
    let ids: Vec<String> = ids.iter().map(u32::to_string).collect();
    assert_eq!(by_n.trim(), ids.join(","), "the rows through t_n");
    c.psql(&[
        "create extension if not exists amcheck",
        "select bt_index_check('t_pkey', true)",
        "select bt_index_check('t_n', true)",
    ]);
    c.stop();
    write_block(&c.data.join(&rel), block, &original);
}

each_version!(torn_header_compacted);

/// A relation file given alone is numbered from its place in the relation, as its name gives
/// it (16385.2: the third gigabyte), as verify numbers it, and the checksums are of those
/// block numbers: a segment 0 file copied under segment 2's name fails at every block, for
/// the report as for verify, and the report names the relation-wide blocks. Under its own
/// name the same bytes are sound.
#[test]
fn loose_segment_numbering() {
    let mut c = Cluster::start(16);
    c.psql(&[
        "create table t (id int, note text)",
        "insert into t select g, repeat('x', 100) from generate_series(1, 500) g",
        "checkpoint",
    ]);
    let file = c.file("select pg_relation_filepath('t')");
    c.stop();
    let node = file.file_name().unwrap().to_str().unwrap().to_owned();
    let (own, moved) = (c.root.join("own"), c.root.join("moved"));
    fs::create_dir_all(&own).unwrap();
    fs::create_dir_all(&moved).unwrap();
    fs::copy(&file, own.join(&node)).unwrap();
    let seg2 = moved.join(format!("{node}.2"));
    fs::copy(&file, &seg2).unwrap();

    let sound = pgpage(&["report", own.join(&node).to_str().unwrap()]);
    assert_eq!(sound.status.code(), Some(0), "{sound:?}");
    let verify = json(&pgpage(&["verify", "--json", seg2.to_str().unwrap()]));
    let bad: Vec<u64> = verify["files"][0]["pages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["status"] == "mismatch")
        .map(|p| p["absolute_block"].as_u64().unwrap())
        .collect();
    assert!(!bad.is_empty());
    assert!(bad.iter().all(|&b| b >= 2 * 131_072), "{bad:?}");
    let report = json(&pgpage(&["report", "--json", seg2.to_str().unwrap()]));
    let named: Vec<u64> = report["relations"][0]["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["block"].as_u64().unwrap())
        .collect::<BTreeSet<u64>>()
        .into_iter()
        .collect();
    assert_eq!(named, bad, "{report:#}");
}

/// A report on a running server's data directory says so first, in its verdict and before anything else it cannot
/// know (pg_checksums refuses such a directory); once the server is stopped cleanly, nothing.
#[test]
fn a_running_server_is_said() {
    let mut c = Cluster::start(16);
    c.psql(&[
        "create table t (id int)",
        "insert into t select generate_series(1, 100)",
    ]);
    let out = pgpage(&["report", "--json", c.data.to_str().unwrap()]);
    // Never exit 0, "nothing damaged", for what a running server's files say.
    assert_eq!(out.status.code(), Some(1));
    let running = json(&out);
    let unknown = running["unknown"].as_array().unwrap();
    assert!(
        unknown
            .first()
            .and_then(|u| u.as_str())
            .is_some_and(|u| u.starts_with("the server looks running (postmaster.pid is there and pg_control says \"in production\")")),
        "{running:#}"
    );
    // verify says it too, as pg_checksums refuses such a directory.
    let verify = pgpage(&["verify", c.data.to_str().unwrap()]);
    assert!(
        String::from_utf8_lossy(&verify.stderr).contains(
            "looks running (postmaster.pid is there and pg_control says \"in production\")"
        ),
        "{}",
        String::from_utf8_lossy(&verify.stderr)
    );
    // The verdict, the first line a reader sees, says it before any finding.
    assert!(
        running["verdict"]
            .as_str()
            .unwrap()
            .starts_with("NOT RELIABLE: the server is running")
            && running["cluster"]["running"] == true,
        "{running:#}"
    );
    c.stop();
    let out = pgpage(&["report", "--json", c.data.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let stopped = json(&out);
    let verify = pgpage(&["verify", c.data.to_str().unwrap()]);
    assert!(!String::from_utf8_lossy(&verify.stderr).contains("looks running"));
    assert!(
        !stopped["unknown"].to_string().contains("looks running")
            && !stopped["verdict"]
                .as_str()
                .unwrap()
                .contains("NOT RELIABLE")
            && stopped["cluster"].get("running").is_none(),
        "{stopped:#}"
    );
}
