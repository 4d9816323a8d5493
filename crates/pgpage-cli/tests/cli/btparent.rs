//! bt_index_parent_check's cross-level checks held against the server, PostgreSQL 13 to 19:
//! multi-level B-tree indexes (int4 of three levels, text under C collation of three levels,
//! DESC, multi-column, duplicates in posting lists, and one after deletes and a VACUUM that
//! deleted pages) are built; untouched, amcheck and pgpage's file walk both find nothing.
//! Copies are then damaged (two keys of an internal page swapped, a downlink changed, the
//! root's first downlink pointed at a leaf, the metapage's root level changed, a leaf's first
//! key lowered below its parent's key, which only the key types given reveal), their
//! checksums recomputed, the server restarted, and bt_index_check's and
//! bt_index_parent_check's first error is found by pgpage at the block amcheck names, as
//! the same rule; where amcheck finds nothing, neither does pgpage.

use std::collections::HashSet;
use std::fs;

use crate::common::findings;
use crate::common::page::{fix_checksums, u16_at, u32_at, BLCKSZ};
use crate::common::Cluster;
use pgpage::am::nbtree::check::KeyColumn;
use pgpage::file::scan::{ChecksumsKnown, FileScan};
use pgpage::file::{file_geometry, GeometryChoice};
use pgpage::findings::{Evidence, Finding};

/// Key columns as `--key-types` takes them: `int4 desc nulls first,text`.
fn columns(keys: &str) -> Vec<KeyColumn> {
    keys.split(',')
        .map(|k| KeyColumn::parse(k).unwrap_or_else(|| panic!("{k}")))
        .collect()
}

/// Every structural (block, finding) pgpage reports: each page decoded with the key types,
/// and the file walk with them.
fn findings(bytes: &[u8], keys: &str) -> HashSet<(u32, Finding)> {
    let keys = columns(keys);
    let mut out: HashSet<(u32, Finding)> = findings::page_findings(bytes, Some(&keys))
        .into_iter()
        .map(|(b, _, f)| (b, f))
        .collect();
    let g = file_geometry(bytes, GeometryChoice::default(), true).unwrap();
    let mut scan = FileScan::new(g, 0, bytes.len() as u64).unwrap();
    scan.set_btree_keys(&keys);
    scan.chunk(bytes, 0);
    let walk = scan.finish(ChecksumsKnown::On);
    out.extend(
        walk.pages
            .iter()
            .flat_map(|r| r.findings.iter().map(move |f| (r.block, *f))),
    );
    out.retain(|f| f.1.evidence() != Evidence::Note);
    out
}

fn page(bytes: &[u8], block: u32) -> &[u8] {
    &bytes[block as usize * BLCKSZ..(block as usize + 1) * BLCKSZ]
}

/// Where line pointer `lp` (1-based) of the page at `block` points.
fn item_at(bytes: &[u8], block: u32, lp: usize) -> usize {
    block as usize * BLCKSZ + (u32_at(page(bytes, block), 24 + (lp - 1) * 4) & 0x7FFF) as usize
}

/// BTreeTupleGetDownLink of item `lp`.
fn downlink(bytes: &[u8], block: u32, lp: usize) -> u32 {
    let at = item_at(bytes, block, lp);
    (u32::from(u16_at(bytes, at)) << 16) | u32::from(u16_at(bytes, at + 2))
}

fn set_downlink(bytes: &mut [u8], block: u32, lp: usize, to: u32) {
    let at = item_at(bytes, block, lp);
    bytes[at..at + 2].copy_from_slice(&((to >> 16) as u16).to_le_bytes());
    bytes[at + 2..at + 4].copy_from_slice(&(to as u16).to_le_bytes());
}

/// Swaps the key bytes (after t_tid and t_info) of items `a` and `b`, of the same size.
fn swap_keys(bytes: &mut [u8], block: u32, a: usize, b: usize) {
    let (x, y) = (item_at(bytes, block, a), item_at(bytes, block, b));
    let size = |at: usize| usize::from(u16_at(bytes, at + 6) & 0x1FFF);
    assert_eq!(size(x), size(y), "items {a} and {b} of block {block}");
    let n = size(x) - 8;
    let keep = bytes[x + 8..x + 8 + n].to_vec();
    bytes.copy_within(y + 8..y + 8 + n, x + 8);
    bytes[y + 8..y + 8 + n].copy_from_slice(&keep);
}

/// amcheck's message to pgpage's finding.
fn rule(msg: &str) -> Finding {
    let rules = [
        ("item order invariant violated", Finding::BtreeItemOrder),
        ("high key invariant violated", Finding::BtreeHighKey),
        (
            "mismatch between parent key and child high key",
            Finding::BtreeParentKeyMismatch,
        ),
        (
            "leaf index block lacks downlink",
            Finding::BtreeLeafLacksDownlink,
        ),
        (
            "internal index block lacks downlink",
            Finding::BtreeInternalBlockLacksDownlink,
        ),
        ("has invalid level", Finding::BtreeChildLevelInvalid),
        (
            "down-link lower bound invariant violated",
            Finding::BtreeDownlinkLowerBound,
        ),
        (
            "leftmost down link for level points to block",
            Finding::BtreeLevelMismatch,
        ),
        (
            "is not leftmost of its level",
            Finding::BtreeFirstChildNotLeftmost,
        ),
        (
            "can't traverse from downlink",
            Finding::BtreeCannotTraverseToDownlink,
        ),
        ("downlink to deleted page", Finding::BtreeDownlinkToDeleted),
        ("is not true root", Finding::BtreeNotTrueRoot),
        (
            "left link/right link pair",
            Finding::BtreeSiblingLinksDisagree,
        ),
    ];
    rules
        .iter()
        .find(|(m, _)| msg.contains(m))
        .map(|&(_, f)| f)
        .unwrap_or_else(|| panic!("an amcheck message pgpage has no rule for: {msg}"))
}

/// amcheck's first error about an index, and the block its detail blames.
fn amcheck(c: &Cluster, function: &str, index: &str) -> Option<(String, u32)> {
    let err = c.try_psql(&format!("select {function}('{index}')")).err()?;
    let msg = findings::error_message(&err);
    let keys = [
        "Target block=",
        "Parent block=",
        "Top parent/under check block=",
        "Top parent/target block=",
        "Block pointed to=",
        "Block=",
        "Lower index tid=(",
        "block ",
    ];
    let block = keys
        .iter()
        .find_map(|k| findings::number_after(&err, k))
        .unwrap_or_else(|| panic!("no block in: {err}"));
    Some((msg, block))
}

fn held_against_amcheck(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create extension amcheck",
        "create table n (id int4) with (autovacuum_enabled = off)",
        "insert into n select g from generate_series(1, 200000) g",
        // Keys of one length differing at their end: suffix truncation keeps them whole, so
        // pivots are 300 bytes and the tree is three levels deep with few rows.
        "create table t (s text) with (autovacuum_enabled = off)",
        "insert into t select lpad(g::text, 300, 'x') from generate_series(1, 20000) g",
        "create table d (id int4) with (autovacuum_enabled = off)",
        "insert into d select g from generate_series(1, 200000) g",
        "create index n_id on n (id)",
        "create index n_desc on n (id desc nulls first)",
        "create index n_multi on n ((id % 100), id)",
        // Oids past 2^31 sort unsigned; dates and timestamps as their integers.
        "create index n_types on n (((id::int8 * 20011 % 4294967296)::oid), \
         (date '2000-01-01' + id % 50000), (timestamp '2000-01-01' + id * interval '1 s'))",
        "insert into n select null from generate_series(1, 500)",
        "create index n_nulls on n ((id % 3) nulls first, id desc nulls last)",
        "create index n_dup on n ((id % 7))",
        "create index t_s on t (s collate \"C\")",
        "create index d_id on d (id)",
        "delete from d where id % 1000 < 900 or id between 50000 and 150000",
        "vacuum d",
        "create index c_swap on n (id)",
        "create index c_downlink on n (id)",
        "create index c_level on n (id)",
        "create index c_meta on n (id)",
        "create index ct_swap on t (s collate \"C\")",
        "create index c_desc on n (id desc nulls last)",
        "create index c_lower on n (id)",
        "checkpoint",
    ]);
    let clean = [
        ("n_id", "int4"),
        ("n_desc", "int4 desc"),
        ("n_nulls", "int4 nulls first,int4 desc nulls last"),
        ("n_multi", "int4,int4"),
        ("n_types", "oid,date,timestamp"),
        ("n_dup", "int4"),
        ("t_s", "text"),
        ("d_id", "int4"),
    ];
    let path = |rel: &str| c.file(&format!("select pg_relation_filepath('{rel}')"));
    let deleted = c.psql(&[
        "create extension pageinspect",
        "select count(*) from generate_series(1, pg_relation_size('d_id') / 8192 - 1) b, \
         bt_page_stats('d_id', b::int4) s where s.type = 'd'",
    ]);
    assert_ne!(
        deleted.trim(),
        "0",
        "{version}: VACUUM deleted no page of d_id"
    );
    let levels =
        c.psql(&["select level from bt_metap('n_id') union all select level from bt_metap('t_s')"]);
    assert!(
        levels
            .split_whitespace()
            .all(|l| l.parse::<u32>().unwrap() >= 2),
        "{version}: three levels or more: {levels}"
    );
    for (i, keys) in clean {
        for f in ["bt_index_check", "bt_index_parent_check"] {
            assert_eq!(amcheck(&c, f, i), None, "{version} {f}('{i}')");
        }
        let bytes = fs::read(path(i)).unwrap();
        let ours = findings(&bytes, keys);
        assert!(ours.is_empty(), "{version} {i}: {ours:?}");
    }
    // The DESC index read as ascending is all out of order: the column options count.
    let n_desc = fs::read(path("n_desc")).unwrap();
    let ascending = findings(&n_desc, "int4");
    assert!(
        ascending.contains(&(1, Finding::BtreeItemOrder))
            || ascending.contains(&(1, Finding::BtreeHighKey)),
        "{version}: {ascending:?}"
    );

    let damaged = [
        "c_swap",
        "c_downlink",
        "c_level",
        "c_meta",
        "ct_swap",
        "c_desc",
        "c_lower",
    ];
    let paths: Vec<_> = damaged.iter().map(|i| path(i)).collect();
    c.stop();
    for (i, p) in damaged.iter().zip(&paths) {
        let mut bytes = fs::read(p).unwrap();
        let root = u32_at(&bytes, 24 + 8);
        // The root's first child, the leftmost page of level 1 (hundreds of downlinks).
        let left = downlink(&bytes, root, 1);
        match *i {
            "c_swap" | "ct_swap" => swap_keys(&mut bytes, left, 5, 6),
            // Two neighbours on a leaf of the DESC index.
            "c_desc" => swap_keys(&mut bytes, 1, 5, 6),
            "c_downlink" => {
                let next = downlink(&bytes, left, 6);
                set_downlink(&mut bytes, left, 5, next);
            }
            "c_level" => {
                let leaf = downlink(&bytes, left, 2);
                set_downlink(&mut bytes, root, 1, leaf);
            }
            "c_lower" => {
                // The first key of the leaf the second downlink names, one below the
                // parent's key beside that downlink: still above the left sibling's last key
                // by its heap TID, so only the lower bound is broken.
                let leaf = downlink(&bytes, left, 3);
                let at = item_at(&bytes, leaf, 2) + 8;
                let parent_key = u32_at(&bytes, item_at(&bytes, left, 3) + 8);
                assert_eq!(u32_at(&bytes, at), parent_key, "{version}");
                bytes[at..at + 4].copy_from_slice(&(parent_key - 1).to_le_bytes());
            }
            _ => {
                let level = u32_at(&bytes, 24 + 12);
                bytes[24 + 12..24 + 16].copy_from_slice(&(level + 1).to_le_bytes());
            }
        }
        fix_checksums(&mut bytes);
        fs::write(p, &bytes).unwrap();
    }
    c.restart();
    let mut held = 0;
    for (i, p) in damaged.iter().zip(&paths) {
        let bytes = fs::read(p).unwrap();
        let keys = match *i {
            "ct_swap" => "text",
            "c_desc" => "int4 desc nulls last",
            _ => "int4",
        };
        let ours = findings(&bytes, keys);
        assert!(!ours.is_empty(), "{version} {i}: pgpage finds nothing");
        for f in ["bt_index_check", "bt_index_parent_check"] {
            let theirs = amcheck(&c, f, i);
            if let Some((msg, block)) = &theirs {
                let rule = rule(msg);
                assert!(
                    ours.contains(&(*block, rule)),
                    "{version} {f}('{i}'): \"{msg}\" at block {block}, pgpage: {ours:?}"
                );
                held += 1;
            }
            if f == "bt_index_parent_check" {
                assert!(theirs.is_some(), "{version} {f}('{i}') found nothing");
            }
            if *i == "c_lower" {
                let lower = theirs
                    .as_ref()
                    .is_some_and(|t| t.0.starts_with("down-link lower bound invariant violated"));
                assert_eq!(
                    (lower, theirs.is_some()),
                    (f == "bt_index_parent_check", f == "bt_index_parent_check"),
                    "{version} {f}: {theirs:?}"
                );
                // Without the key types the walk cannot compare keys: nothing is found.
                assert!(findings::file_findings(&bytes).is_empty(), "{version}");
            }
            if f == "bt_index_check" && *i == "c_downlink" {
                // Only the cross-level checks see a downlink moved to a sibling.
                assert_eq!(theirs, None, "{version}");
                let per_page: Vec<_> = ours
                    .iter()
                    .filter(|f| f.1.rule().function != "bt_child_highkey_check")
                    .filter(|f| f.1.rule().function != "bt_downlink_missing_check")
                    .collect();
                assert!(per_page.is_empty(), "{version}: {per_page:?}");
            }
        }
    }
    eprintln!("PostgreSQL {version}: {held} amcheck errors found by pgpage at their blocks");
}

each_version!(held_against_amcheck);
