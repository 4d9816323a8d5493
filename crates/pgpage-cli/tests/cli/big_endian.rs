//! A big-endian server's files: pages PostgreSQL 15 wrote (public/samples/16427), laid out
//! as a big-endian server lays them out and sealed with the big-endian checksum, are found
//! to be big-endian by `verify` and `inspect` without `--endian`, and verify as such.
use std::fs;

use pgpage::page::checksum::pg_checksum_page;
use pgpage::Endian;
use serde_json::Value;

use crate::common::{json, pgpage};

const BLCKSZ: usize = 8192;

fn sample() -> Vec<u8> {
    fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../public/samples/16427"
    ))
    .unwrap()
}

#[path = "../../../pgpage/tests/support/big_endian.rs"]
mod support;

/// A little-endian heap page as a big-endian server would have written it, sealed with the
/// checksum a big-endian server computes for block `blkno`.
fn to_big_endian(le: &[u8], blkno: u32) -> Vec<u8> {
    let mut be = support::to_big_endian_heap(le);
    let c = pg_checksum_page(&be, blkno, Endian::Big);
    be[8..10].copy_from_slice(&c.to_be_bytes());
    be
}

#[test]
fn a_big_endian_file_is_detected_without_endian_and_verified() {
    let le = sample();
    assert_eq!(le.len(), 4 * BLCKSZ);
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("16427");
    let pages: Vec<Vec<u8>> = le
        .chunks(BLCKSZ)
        .enumerate()
        .map(|(b, p)| to_big_endian(p, b as u32))
        .collect();
    fs::write(&big, pages.concat()).unwrap();
    let little = dir.path().join("16428");
    fs::write(&little, &le).unwrap();
    let (b, l) = (big.to_str().unwrap(), little.to_str().unwrap());

    let out = pgpage(&["verify", "--json", "--all", b, l]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let v = json(&out);
    assert_eq!(v["files"][0]["endian"], "big");
    assert_eq!(v["files"][1]["endian"], "little");
    assert_eq!(v["summary"]["ok"], 8);
    let stored: Vec<u64> = v["files"][0]["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["stored"].as_u64().unwrap())
        .collect();
    let want: Vec<u64> = pages
        .iter()
        .map(|p| u64::from(u16::from_be_bytes([p[8], p[9]])))
        .collect();
    assert_eq!(stored, want);

    // Said once in human output, however many big-endian files there are.
    let twin = dir.path().join("16429");
    fs::write(&twin, pages.concat()).unwrap();
    let out = pgpage(&["verify", b, l, twin.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.lines().collect::<Vec<_>>(),
        [format!(
            "pgpage: file \"{b}\" holds big-endian pages (a big-endian server's): it and every \
             such file are verified in that byte order"
        )]
    );

    // A damaged big-endian page: pg_checksums' line with the big-endian checksums.
    let mut damaged = pages.clone();
    damaged[2][7000] ^= 0x20;
    fs::write(&big, damaged.concat()).unwrap();
    let out = pgpage(&["verify", b]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "pgpage: error: checksum verification failed in file \"{b}\", block 2: calculated \
             checksum {:X} but block contains {:X}\n",
            pg_checksum_page(&damaged[2], 2, Endian::Big),
            u16::from_be_bytes([damaged[2][8], damaged[2][9]])
        )),
        "{err}"
    );
    // Told it is little-endian, the same file's pages are all wrong.
    let out = pgpage(&["verify", "--json", "--endian", "little", b]);
    assert_eq!(json(&out)["summary"]["ok"], 0);
}

#[test]
fn inspect_detects_big_endian_and_decodes_as_the_little_endian_twin() {
    let le = sample();
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("16427");
    let pages: Vec<Vec<u8>> = le
        .chunks(BLCKSZ)
        .enumerate()
        .map(|(b, p)| to_big_endian(p, b as u32))
        .collect();
    fs::write(&big, pages.concat()).unwrap();
    let little = dir.path().join("16428");
    fs::write(&little, &le).unwrap();

    let b = json(&pgpage(&["inspect", "--json", big.to_str().unwrap()]));
    let l = json(&pgpage(&["inspect", "--json", little.to_str().unwrap()]));
    assert_eq!(
        (&b["endian"], &l["endian"]),
        (&"big".into(), &"little".into())
    );
    let (bb, lb) = (
        b["blocks"].as_array().unwrap(),
        l["blocks"].as_array().unwrap(),
    );
    assert_eq!(bb.len(), 4);
    for (big, little) in bb.iter().zip(lb) {
        assert_eq!(big["status"], "ok");
        assert_eq!(big["kind"], "heap");
        assert_eq!(big["items"], little["items"]);
        let (mut bh, mut lh) = (big["header"].clone(), little["header"].clone());
        // The checksum is the one field whose value differs: it is over other bytes.
        bh["checksum"] = Value::Null;
        lh["checksum"] = Value::Null;
        assert_eq!(bh, lh);
    }

    let out = pgpage(&["inspect", "--block", "0", big.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let first = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap()
        .to_owned();
    assert!(first.contains("big-endian (detected"), "{first}");
}
