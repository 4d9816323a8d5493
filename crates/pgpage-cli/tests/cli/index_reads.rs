//! The checks the server makes when it reads a GiST, hash, BRIN or SP-GiST page, held against
//! the server itself, PostgreSQL 13 to 19: copies of the indexes are damaged (the special space
//! shortened on GiST's root and on hash pages, BRIN regular pages given another page type,
//! SP-GiST's metapage magic number changed: the one check spgutils.c makes), their
//! checksums recomputed, the server restarted and a query made to read each index (the
//! others dropped in its transaction, sequential scans off). The server's ERROR is the
//! finding's message, filled in, at a block pgpage flags with it.

use std::collections::HashSet;
use std::fs;

use crate::common::page::{fix_checksums, u16_at, BLCKSZ};
use crate::common::Cluster;
use pgpage::am::decode_page;
use pgpage::am::decoded::DecodeOptions;
use pgpage::am::kind::file_kind;
use pgpage::findings::Finding;
use pgpage::page::kind::Fork;
use pgpage::Endian;

/// The blocks of a file pgpage flags with `finding`.
fn flagged(bytes: &[u8], finding: Finding) -> HashSet<u32> {
    let opts = DecodeOptions {
        file_kind: Some(file_kind(
            Fork::Main,
            bytes.chunks_exact(BLCKSZ),
            Endian::Little,
        )),
        ..DecodeOptions::default()
    };
    bytes
        .chunks_exact(BLCKSZ)
        .enumerate()
        .filter(|(b, p)| {
            let d = decode_page(p, *b as u32, &opts);
            d.problems().any(|s| s.problem == Some(finding)) || d.findings.contains(&finding)
        })
        .map(|(b, _)| b as u32)
        .collect()
}

/// Shortens the special space by 8 bytes on every page `pick` accepts whose pd_upper stays
/// below the new pd_special (so PageIsVerified still accepts the header).
fn shorten_special(bytes: &mut [u8], pick: impl Fn(usize, &[u8]) -> bool) -> usize {
    let mut n = 0;
    for (b, p) in bytes.chunks_exact_mut(BLCKSZ).enumerate() {
        let (upper, special) = (u16_at(p, 14), u16_at(p, 16));
        if p.iter().any(|&x| x != 0) && pick(b, p) && upper <= special - 8 {
            p[16..18].copy_from_slice(&(special - 8).to_le_bytes());
            n += 1;
        }
    }
    n
}

/// The server's ERROR line for `query` run with only `index` left among t's indexes.
fn read_error(c: &Cluster, index: &str, query: &str) -> String {
    let mut sql = vec!["begin".to_owned(), "set enable_seqscan = off".to_owned()];
    for other in ["t_gist", "t_hash", "t_brin", "t_spgist"] {
        if other != index {
            sql.push(format!("drop index {other}"));
        }
    }
    if index != "t_brin" {
        sql.push("set enable_bitmapscan = off".to_owned());
    }
    sql.push(query.to_owned());
    let refs: Vec<&str> = sql.iter().map(String::as_str).collect();
    let out = c.psql_output("postgres", &refs);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    err.lines()
        .find_map(|l| l.strip_prefix("ERROR:  "))
        .unwrap_or_else(|| panic!("{index}: the server read it without an error: {err}"))
        .to_owned()
}

fn held_against_server(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create table t (id int4, p point) with (autovacuum_enabled = off)",
        "insert into t select i, point(i, i) from generate_series(1, 20000) i",
        "create index t_gist on t using gist (p)",
        "create index t_hash on t using hash (id)",
        "create index t_brin on t using brin (id) with (pages_per_range = 4)",
        "create index t_spgist on t using spgist (p)",
        "checkpoint",
    ]);
    let path = |rel: &str| c.file(&format!("select pg_relation_filepath('{rel}')"));
    let (gist, hash, brin) = (path("t_gist"), path("t_hash"), path("t_brin"));
    let spgist = path("t_spgist");
    c.stop();

    let mut g = fs::read(&gist).unwrap();
    // GiST has no metapage to tell the file's kind by: only the root (block 0, which every
    // scan reads first) is damaged, so the other pages still say the file is GiST.
    assert_eq!(shorten_special(&mut g, |b, _| b == 0), 1, "{version}");
    let mut h = fs::read(&hash).unwrap();
    assert!(shorten_special(&mut h, |b, _| b > 0) > 10, "{version}");
    let mut r = fs::read(&brin).unwrap();
    let mut regular = 0;
    for p in r.chunks_exact_mut(BLCKSZ) {
        // brin_page.h: BrinPageType in the special space's last two bytes.
        if u16_at(p, BLCKSZ - 2) == 0xF093 {
            p[BLCKSZ - 2..].copy_from_slice(&0x1234u16.to_le_bytes());
            regular += 1;
        }
    }
    assert!(regular > 0, "{version}");
    let mut s = fs::read(&spgist).unwrap();
    // spgist_private.h: SpGistMetaPageData.magicNumber, right after the metapage's header.
    assert_eq!(&s[24..28], &0xBA0B_ABEEu32.to_le_bytes(), "{version}");
    s[24] ^= 1;
    for (bytes, p) in [
        (&mut g, &gist),
        (&mut h, &hash),
        (&mut r, &brin),
        (&mut s, &spgist),
    ] {
        fix_checksums(bytes);
        fs::write(p, &bytes).unwrap();
    }
    c.restart();

    let cases = [
        (
            "t_gist",
            "select count(*) from t where p <@ box '((100,100),(200,200))'",
            &g,
            Finding::SpecialSizeWrong,
        ),
        (
            "t_hash",
            "select count(*) from t where id = 5000",
            &h,
            Finding::SpecialSizeWrong,
        ),
        (
            "t_brin",
            "select count(*) from t where id between 100 and 200",
            &r,
            Finding::BrinPageTypeUnexpected,
        ),
        (
            "t_spgist",
            "select count(*) from t where p <@ box '((100,100),(200,200))'",
            &s,
            Finding::SpgistMetaMagicWrong,
        ),
    ];
    for (index, query, bytes, finding) in cases {
        let err = read_error(&c, index, query);
        let blocks = flagged(bytes, finding);
        let named = err
            .rsplit("block ")
            .next()
            .and_then(|s| s.trim().parse::<u32>().ok());
        let expected = match named {
            Some(b) => {
                assert!(blocks.contains(&b), "{version} {index}: {err}; {blocks:?}");
                finding
                    .message()
                    .replacen("%s", index, 1)
                    .replacen("%u", &b.to_string(), 1)
            }
            None => {
                assert!(!blocks.is_empty(), "{version} {index}: {err}");
                finding.message().replacen("%s", index, 1)
            }
        };
        assert_eq!(err, expected, "{version} {index}");
    }
}

each_version!(held_against_server);
