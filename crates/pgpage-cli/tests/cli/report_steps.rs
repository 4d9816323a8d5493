//! The incident report's steps, followed in order as printed, on PostgreSQL 13 to 19. One
//! file has a zeroed block the WAL rebuilds (an image and a record after it: `recover`) and a
//! block with one bit flipped (`repair --flip`). recover reads its file in place in the data
//! directory, so its step comes first and the flip's step reads its NEW. Run in order with
//! NEW names filled in, the steps give a file whose rebuilt block is what recover alone
//! gives and whose flipped block is the server's page byte for byte; the file verifies. A
//! copy outside a data directory is refused by recover with what to do instead.

use std::fs;
use std::process::Command;

use crate::common::{json, ok, pgpage, run_steps, steps_of, Cluster};

const BLCKSZ: usize = 8192;

fn block_of(report: &serde_json::Value, block: usize) -> serde_json::Value {
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

fn steps_chain(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create extension pageinspect",
        "create table t (id int primary key, note text not null) with (autovacuum_enabled = off, fillfactor = 80)",
        "insert into t select g, 'note-' || lpad(g::text, 6, '0') || '-Juliet' from generate_series(1, 2000) g",
        "vacuum (freeze) t",
        "checkpoint",
    ]);
    let (rebuilt, flipped) = (2usize, 5usize);
    // After the checkpoint the first update logs block 2's image, the second a record after it.
    c.psql(&[
        &format!("update t set note = note || '!' where ctid = '({rebuilt},1)'"),
        &format!("update t set note = note || '?' where ctid = '({rebuilt},2)'"),
    ]);
    let item = c.psql(&[&format!(
        "select lp_off, t_hoff from heap_page_items(get_raw_page('t', {flipped})) where lp = 1"
    )]);
    let (lp_off, t_hoff) = item.trim().split_once('|').unwrap();
    let (lp_off, t_hoff): (usize, usize) = (lp_off.parse().unwrap(), t_hoff.parse().unwrap());
    // id int4, then note's 1-byte varlena header, then 'note-000001-': the 'J'.
    let flip_byte = lp_off + t_hoff + 4 + 1 + 12;
    let rel = c
        .psql(&["select pg_relation_filepath('t')"])
        .trim()
        .to_owned();
    c.stop();
    let original = fs::read(c.data.join(&rel)).unwrap();

    let damaged = c.root.join("damaged");
    ok(
        Command::new("cp")
            .args(["-a", c.data.to_str().unwrap(), damaged.to_str().unwrap()])
            .output()
            .unwrap(),
        "cp -a",
    );
    let file = damaged.join(&rel);
    let mut bytes = original.clone();
    bytes[rebuilt * BLCKSZ..(rebuilt + 1) * BLCKSZ].fill(0);
    bytes[flipped * BLCKSZ + flip_byte] ^= 1 << 5;
    fs::write(&file, &bytes).unwrap();

    let out = pgpage(&["report", "--json", damaged.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "damage found: exit 1");
    let report = json(&out);
    assert_eq!(block_of(&report, rebuilt)["route"], "recover", "{report:#}");
    assert_eq!(block_of(&report, flipped)["route"], "flip", "{report:#}");
    let steps = steps_of(&report);
    let at = |what: &str| {
        steps
            .iter()
            .position(|s| s.lines().any(|l| l.trim_start().starts_with(what)))
            .unwrap_or_else(|| panic!("no step runs `{what}`: {steps:#?}"))
            + 1
    };
    let (recover_step, flip_step) = (at("pgpage recover "), at("pgpage repair "));
    assert!(recover_step < flip_step, "recover first: {steps:#?}");
    // The step replays every record after the image; what the image alone would lose is
    // the finding's sentence (the browser shows it beside the image alone).
    let image = &block_of(&report, rebuilt)["wal_image"];
    assert!(
        steps[recover_step - 1].contains(&format!(
            "Block {rebuilt} of public.t: its image at {} and ",
            image["lsn"].as_str().unwrap()
        )) && steps[recover_step - 1].contains(", all replayed."),
        "{steps:#?}"
    );
    assert!(
        image["restoring"]
            .as_str()
            .unwrap()
            .contains("pgpage recover, or the server's recovery, replays"),
        "{image:#}"
    );
    assert!(
        steps[flip_step - 1].contains(&format!("--out NEW NEW_FROM_STEP_{recover_step}")),
        "the flip's step reads recover's NEW: {steps:#?}"
    );
    assert!(
        steps[recover_step - 1].contains(&format!("Run this step before step {flip_step}")),
        "{steps:#?}"
    );

    // Every step's command, in order, as printed (of the flip candidates, the true one).
    let made = run_steps(&steps, &c.root, &format!("--flip {flip_byte}:5 "));
    let last = made.values().last().unwrap();
    let result = fs::read(last).unwrap();

    let alone = c.root.join("recover_alone");
    ok(
        pgpage(&[
            "recover",
            "--block",
            &rebuilt.to_string(),
            "--out",
            alone.to_str().unwrap(),
            file.to_str().unwrap(),
        ]),
        "recover alone",
    );
    let alone = fs::read(&alone).unwrap();
    let page = |b: &[u8], n: usize| b[n * BLCKSZ..(n + 1) * BLCKSZ].to_vec();
    assert!(
        page(&result, rebuilt) == page(&alone, rebuilt),
        "the rebuilt block is what recover alone gives"
    );
    assert!(
        page(&result, flipped) == page(&original, flipped),
        "the flip put back gives the server's page"
    );
    let verify = pgpage(&["verify", last.to_str().unwrap()]);
    assert_eq!(
        verify.status.code(),
        Some(0),
        "the steps' file verifies: {}",
        String::from_utf8_lossy(&verify.stdout)
    );

    // recover on a copy outside the data directory: refused, with what to do.
    let refused = pgpage(&[
        "recover",
        "--block",
        &rebuilt.to_string(),
        "--out",
        c.root.join("refused").to_str().unwrap(),
        last.to_str().unwrap(),
    ]);
    assert_eq!(refused.status.code(), Some(2));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("is not in a data directory")
            && err.contains("Run recover first, on the file in place"),
        "{err}"
    );
}

each_version!(steps_chain);
