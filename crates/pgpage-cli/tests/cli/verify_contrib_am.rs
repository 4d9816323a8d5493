//! `pgpage verify --amcheck DATADIR` on an untouched cluster with indexes of contrib's
//! access methods, PostgreSQL 13 to 19: contrib/bloom's pages have an 8-byte special space
//! like GIN's (BLOOM_PAGE_ID 0xFF83 where GIN keeps its flags) and no line pointers, so
//! read as GIN every page of a healthy bloom index was "posting list segment runs past
//! pd_lower". The catalog names the access method; pgpage checks none of a method's pages
//! it does not decode, and a lone file's bloom page is not taken for GIN either. Beside it,
//! btree_gin's multi-column GIN and hstore's GIN and GiST, which pgpage does read, give
//! nothing after the server's own checks pass.

use crate::common::{pgpage, Cluster};

fn contrib_indexes_give_nothing(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create extension bloom",
        "create extension btree_gin",
        "create extension hstore",
        "create extension amcheck",
        "create table t (id int, a text, d int, h hstore) with (autovacuum_enabled = off)",
        "insert into t select g, md5(g::text), g % 100, hstore('k' || (g % 10), 'v' || g) \
         from generate_series(1, 20000) g",
        "create index t_bloom on t using bloom (id, d)",
        "create index t_gin2 on t using gin (id, a)",
        "create index t_h_gin on t using gin (h)",
        "create index t_h_gist on t using gist (h)",
        "create index t_a on t (a collate \"C\")",
        "vacuum analyze t",
        "select bt_index_check('t_a', true)",
        "checkpoint",
    ]);
    if version >= 14 {
        assert_eq!(
            c.psql(&["select count(*) from verify_heapam('t')"]).trim(),
            "0"
        );
    }
    let filenode = c
        .psql(&["select pg_relation_filepath('t_bloom')"])
        .trim()
        .to_owned();
    c.stop();
    let data = c.data.to_str().unwrap().to_owned();
    for args in [
        vec!["verify", "--amcheck", data.as_str()],
        vec!["verify", data.as_str()],
    ] {
        let out = pgpage(&args);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?} on {version}: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!stdout.contains("\", block "), "{version}: {stdout}");
    }
    // The bloom file alone, without the catalogs: its pages are not GIN's.
    let file = c.data.join(filenode);
    let out = pgpage(&["verify", "--amcheck", file.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{version}: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!stdout.contains("\", block 0"), "{version}: {stdout}");
    assert!(
        !stdout.lines().any(|l| l.starts_with("file ")),
        "{version}: {stdout}"
    );
}

each_version!(contrib_indexes_give_nothing);
