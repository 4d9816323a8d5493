//! Single-bit-flip localisation (`inspect --bit-flips`) held against the server on PostgreSQL
//! 13 to 19. Pages of a real heap and B-tree get one bit flipped on disk (a seeded random bit
//! anywhere on the page, a bit of pd_checksum itself, a bit of an index tuple); then:
//! - the server reads the damaged heap page as it reads any bad page: its ERROR names the block;
//! - the server itself lists every single-bit flip of the damaged page that its
//!   `page_checksum()` accepts (all 65,536 tried in SQL, pages that would read as new left
//!   out, as the server never checksums them): exactly pgpage's candidates, the true bit among
//!   them and judged structurally valid;
//! - `repair --flip` with the true bit gives files the server reads again: the same COPY as
//!   before the damage, and amcheck (verify_heapam from 14, bt_index_check) finds nothing.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use crate::common::{json, pgpage, Cluster};
use serde_json::Value;

const BLCKSZ: usize = 8192;

/// A small xorshift for seeded picks: the same bits on every run of a version.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// One damaged page: relation `rel`'s file, its block, the bit flipped.
struct Damage {
    rel: &'static str,
    block: u32,
    offset: usize,
    bit: u8,
}

fn u16_at(p: &[u8], at: usize) -> usize {
    usize::from(u16::from_le_bytes([p[at], p[at + 1]]))
}

/// The (offset, bit) pairs whose flip the server's page_checksum() accepts on the page at
/// `block` of the file at `path` (relative to the data directory), pd_upper = 0 left out.
fn server_candidates(c: &Cluster, path: &str, block: u32) -> BTreeSet<(u64, u64)> {
    let sql = format!(
        "with p as (select pg_read_binary_file('{path}', {off}, {BLCKSZ}) as p),
         f as (select o, b, set_byte(p, o, get_byte(p, o) # (1 << b)) as q
               from p, generate_series(0, {last}) o, generate_series(0, 7) b)
         select o || ':' || b from f
         where (page_checksum(q, {block})::int & 65535) = (get_byte(q, 8) | (get_byte(q, 9) << 8))
           and (get_byte(q, 14) | (get_byte(q, 15) << 8)) <> 0
         order by o, b",
        off = u64::from(block) * BLCKSZ as u64,
        last = BLCKSZ - 1,
    );
    c.psql(&[&sql])
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (o, b) = l.split_once(':').unwrap();
            (o.parse().unwrap(), b.parse().unwrap())
        })
        .collect()
}

fn localised(file: &Path, block: u32) -> Value {
    let out = pgpage(&[
        "inspect",
        "--json",
        "--bit-flips",
        "--block",
        &block.to_string(),
        file.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    v["blocks"][0]["bit_flips"].clone()
}

fn held_against_server(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create table t (id int4, note text, n numeric) with (autovacuum_enabled = off)",
        "insert into t select i, repeat(md5(i::text), 1 + i % 3), i * 1.5 from generate_series(1, 3000) i",
        "create index t_id on t (id)",
        "create extension pageinspect",
        "create extension amcheck",
        "checkpoint",
    ]);
    let before = c.copy("t");
    let rel_path = |rel: &str| {
        c.psql(&[&format!("select pg_relation_filepath('{rel}')")])
            .trim()
            .to_owned()
    };
    let (heap, index) = (rel_path("t"), rel_path("t_id"));
    c.stop();

    // Seeded per version: a random bit anywhere on heap block 1 but pd_upper (a flip there
    // can make a page the server takes as new), a bit of heap block 2's pd_checksum, and a
    // bit inside an index tuple of leaf block 1.
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ u64::from(version));
    let heap_bytes = fs::read(c.data.join(&heap)).unwrap();
    let index_bytes = fs::read(c.data.join(&index)).unwrap();
    let anywhere = loop {
        let o = rng.below(BLCKSZ as u64) as usize;
        if !(14..16).contains(&o) {
            break o;
        }
    };
    let idx_page = &index_bytes[BLCKSZ..2 * BLCKSZ];
    let (upper, special) = (u16_at(idx_page, 14), u16_at(idx_page, 16));
    let in_tuple = upper + rng.below((special - upper) as u64) as usize;
    assert!(heap_bytes.len() >= 3 * BLCKSZ, "{version}: heap too small");
    let damages = [
        Damage {
            rel: "t",
            block: 1,
            offset: anywhere,
            bit: rng.below(8) as u8,
        },
        Damage {
            rel: "t",
            block: 2,
            offset: 8 + rng.below(2) as usize,
            bit: rng.below(8) as u8,
        },
        Damage {
            rel: "t_id",
            block: 1,
            offset: in_tuple,
            bit: rng.below(8) as u8,
        },
    ];
    let path_of = |rel: &str| if rel == "t" { &heap } else { &index };
    for d in &damages {
        let file = c.data.join(path_of(d.rel));
        let mut bytes = fs::read(&file).unwrap();
        bytes[d.block as usize * BLCKSZ + d.offset] ^= 1 << d.bit;
        fs::write(&file, &bytes).unwrap();
    }

    c.restart();
    // The server refuses the damaged heap page as it refuses any page whose checksum fails;
    // 18 reads blocks 1 and 2 in one I/O and names both.
    let err = c.try_psql("select count(*) from t").unwrap_err();
    let named = if version >= 18 {
        format!("ERROR:  2 invalid pages among blocks 1..2 of relation \"{heap}\"")
    } else {
        format!("ERROR:  invalid page in block 1 of relation {heap}")
    };
    assert!(err.contains(&named), "{version}: {err}");
    for d in &damages {
        let what = format!(
            "{version}: {} block {} byte {} bit {}",
            d.rel, d.block, d.offset, d.bit
        );
        let theirs = server_candidates(&c, path_of(d.rel), d.block);
        let flips = localised(&c.data.join(path_of(d.rel)), d.block);
        assert_eq!(flips["searched"], 65536, "{what}");
        let ours: BTreeSet<(u64, u64)> = flips["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| (k["offset"].as_u64().unwrap(), k["bit"].as_u64().unwrap()))
            .collect();
        assert_eq!(
            ours, theirs,
            "{what}: pgpage's candidates against the server's"
        );
        let truth = flips["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["offset"] == d.offset && k["bit"] == d.bit)
            .unwrap_or_else(|| panic!("{what}: not a candidate: {flips}"));
        assert_eq!(truth["structurally_valid"], true, "{what}: {truth}");
        // Ranked: the same candidates, ranks 1..n in order, each with a reason.
        let ranked = flips["ranked"].as_array().unwrap();
        let ranked_set: BTreeSet<(u64, u64)> = ranked
            .iter()
            .map(|k| (k["byte"].as_u64().unwrap(), k["bit"].as_u64().unwrap()))
            .collect();
        assert_eq!(ranked_set, ours, "{what}: ranked against the candidates");
        for (i, k) in ranked.iter().enumerate() {
            assert_eq!(k["rank"], i + 1, "{what}: {k}");
            assert!(!k["why"].as_str().unwrap().is_empty(), "{what}: {k}");
        }
    }
    c.stop();

    // Each damaged page repaired by flipping its bit back, into a new file that replaces it.
    let tmp = tempfile::tempdir().unwrap();
    for (i, d) in damages.iter().enumerate() {
        let file = c.data.join(path_of(d.rel));
        let out_file = tmp.path().join(format!("repaired{i}"));
        let out = pgpage(&[
            "repair",
            "--json",
            "--block",
            &d.block.to_string(),
            "--flip",
            &format!("{}:{}", d.offset, d.bit),
            "--out",
            out_file.to_str().unwrap(),
            file.to_str().unwrap(),
        ]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{version}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(json(&out)["flip_was_candidate"], true, "{version}");
        fs::copy(&out_file, &file).unwrap();
    }
    assert_eq!(
        fs::read(c.data.join(&heap)).unwrap(),
        heap_bytes,
        "{version}: heap restored"
    );
    assert_eq!(
        fs::read(c.data.join(&index)).unwrap(),
        index_bytes,
        "{version}: index restored"
    );

    c.restart();
    assert_eq!(c.copy("t"), before, "{version}");
    if version >= 14 {
        assert_eq!(
            c.psql(&["select count(*) from verify_heapam('t')"]).trim(),
            "0",
            "{version}"
        );
    }
    c.psql(&["select bt_index_check('t_id', true)"]);
}

each_version!(held_against_server);
