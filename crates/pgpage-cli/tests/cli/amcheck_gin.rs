//! GIN findings held against PostgreSQL. On 13 to 19, GIN indexes of every common opclass
//! (jsonb_ops, jsonb_path_ops, int4[] and text[] array_ops, pg_trgm), with a pending list and
//! after it is flushed, give pgpage nothing to report. On 18, whose amcheck has
//! gin_index_check, copies of an index are damaged one way each (a posting tree's key order,
//! its rightmost key and pd_lower; a deleted entry leaf; a bad line pointer; a tuple size; a
//! heap pointer; a posting count; the entry order; an entry leaf moved up a level), their
//! checksums recomputed, the server restarted, and gin_index_check's error is the finding
//! pgpage reports at the same block. The file walk (am/gin/walk.rs) is among pgpage's findings:
//! untouched entry trees of three levels and posting trees of two give it nothing either.

use std::collections::HashSet;
use std::fs;

use crate::common::findings;
use crate::common::page::{
    fix_checksums, gin_flags, maxoff, put_u16, u16_at, u32_at, BLCKSZ, GIN_DATA, GIN_DELETED,
    GIN_LEAF, GIN_LIST, GIN_META,
};
use crate::common::Cluster;
use pgpage::am::nbtree::check::{KeyColumn, KeyType};
use pgpage::findings::{Evidence, Finding};

/// Every (block, finding) pgpage reports on a file's pages and in its walk, notes left out.
fn findings(bytes: &[u8], key: KeyType) -> HashSet<(u32, Finding)> {
    let mut out: HashSet<(u32, Finding)> =
        findings::page_findings(bytes, Some(&[KeyColumn::from(key)]))
            .into_iter()
            .map(|(b, _, f)| (b, f))
            .collect();
    out.extend(findings::file_findings(bytes));
    out.retain(|(_, f)| f.evidence() != Evidence::Note);
    out
}

fn rightlink(p: &[u8]) -> u32 {
    u32_at(p, BLCKSZ - 8)
}

/// (lp_off, lp_len) of line pointer `lp`.
fn lp(p: &[u8], lp: usize) -> (usize, usize) {
    let w = u32_at(p, 24 + (lp - 1) * 4);
    ((w & 0x7FFF) as usize, (w >> 17) as usize)
}

/// The first block whose page `pick` accepts.
fn find_page(bytes: &[u8], pick: impl Fn(&[u8]) -> bool) -> usize {
    bytes
        .chunks_exact(BLCKSZ)
        .position(|p| p.iter().any(|&b| b != 0) && pick(p))
        .expect("no such page")
}

/// A posting tree's internal page of three items or more, the rightmost of its level.
fn posting_root(p: &[u8]) -> bool {
    gin_flags(p) & (GIN_DATA | GIN_LEAF | GIN_DELETED) == GIN_DATA
        && rightlink(p) == u32::MAX
        && u16_at(p, BLCKSZ - 4) >= 3
}

/// An entry tree leaf whose items 1 to 4 are compressed posting lists, not posting trees.
fn entry_leaf(p: &[u8]) -> bool {
    gin_flags(p) & (GIN_DATA | GIN_META | GIN_LIST | GIN_DELETED) == 0
        && gin_flags(p) & GIN_LEAF != 0
        && maxoff(p) >= 5
        && (1..=4).all(|i| {
            let (off, _) = lp(p, i);
            // t_tid's bi_hi holds GIN_ITUP_COMPRESSED, ip_posid the TID count.
            u16_at(p, off) & 0x8000 != 0 && u16_at(p, off + 4) != 0xFFFF
        })
}

/// t_tid's block of entry tuple `i` on `p` (an internal page's downlink).
fn downlink(p: &[u8], i: usize) -> u32 {
    let (off, _) = lp(p, i);
    u32::from(u16_at(p, off)) << 16 | u32::from(u16_at(p, off + 2))
}

/// The posting list of entry tuple `i` on `p`: where it starts.
fn posting_at(p: &[u8], i: usize) -> usize {
    let (off, _) = lp(p, i);
    let block = (u32::from(u16_at(p, off)) << 16 | u32::from(u16_at(p, off + 2))) & !(1 << 31);
    off + block as usize
}

/// gin_index_check's error: the message and the block it names (in the message, or the
/// detail's "Index tid=(block,offset)"); the posting count's elog names none.
fn gin_check(c: &Cluster, index: &str) -> Option<(String, Option<u32>)> {
    let err = c
        .try_psql(&format!("select gin_index_check('{index}')"))
        .err()?;
    let msg = findings::error_message(&err);
    let number_after = |key: &str| findings::number_after(&err, key);
    let block = ["tid=(", "blk ", "block ", "page "]
        .iter()
        .find_map(|k| number_after(k));
    Some((msg, block))
}

fn gin_rule(msg: &str) -> Finding {
    let rules = [
        ("with tuples", Finding::GinDeletedPageWithTuples),
        ("exceeding count of tuples", Finding::GinTooManyTuples),
        ("past end of tuple space", Finding::GinLpPastTupleSpace),
        ("invalid line pointer storage", Finding::GinLpInvalid),
        (
            "inconsistent tuple sizes",
            Finding::GinTupleSizeInconsistent,
        ),
        (
            "wrong tuple order on entry tree page",
            Finding::GinEntryOrder,
        ),
        ("number of items mismatch", Finding::GinPostingCountMismatch),
        (
            "invalid heap pointer",
            Finding::GinPostingInvalidHeapPointer,
        ),
        ("unexpected pd_lower", Finding::GinPostingTreeLowerMismatch),
        (
            "wrong tuple order in posting tree",
            Finding::GinPostingTreeOrder,
        ),
        (
            "has unexpected last key",
            Finding::GinPostingTreeRightmostKey,
        ),
        (
            "encountered leaf page unexpectedly",
            Finding::GinLeafDepthUnexpected,
        ),
    ];
    rules
        .iter()
        .find(|(m, _)| msg.contains(m))
        .map(|&(_, f)| f)
        .unwrap_or_else(|| panic!("a gin_index_check message pgpage has no rule for: {msg}"))
}

/// The opclasses and the key type each stores.
const INDEXES: &[(&str, &str, KeyType)] = &[
    ("g_path", "j jsonb_path_ops", KeyType::Int4),
    ("g_jsonb", "j jsonb_ops", KeyType::Text),
    ("g_int", "a", KeyType::Int4),
    ("g_text", "t", KeyType::Text),
    ("g_trgm", "s gin_trgm_ops", KeyType::Int4),
    // Keys of 300 bytes: an entry tree of three levels.
    ("g_long", "l", KeyType::Text),
];

fn untouched(version: u32) {
    let mut c = Cluster::start(version);
    let mut sql = vec![
        "create extension pg_trgm".to_owned(),
        "create table g (id int4, a int4[], t text[], j jsonb, s text, l text[]) with (autovacuum_enabled = off)".to_owned(),
        "insert into g select i, array[1, i, i % 300], array['key' || lpad((i % 3000)::text, 6, '0'), 'all'], \
         jsonb_build_object('k', i % 100, 'tag', 't' || (i % 7), 'n', i), md5(i::text), \
         array[lpad(i::text, 300, 'x')] from generate_series(1, 20000) i".to_owned(),
    ];
    for (name, column, _) in INDEXES {
        sql.push(format!(
            "create index {name} on g using gin ({column}) with (fastupdate = on)"
        ));
    }
    // A pending list, flushed by VACUUM into the trees, then another one left pending.
    sql.push("insert into g select i, array[1, i], array['late' || i], jsonb_build_object('late', i), md5(i::text) from generate_series(20001, 21000) i".to_owned());
    sql.push("vacuum g".to_owned());
    sql.push("insert into g select i, array[2, i], array['pending' || i], jsonb_build_object('p', i), md5(i::text) from generate_series(21001, 21500) i".to_owned());
    sql.push("checkpoint".to_owned());
    let refs: Vec<&str> = sql.iter().map(String::as_str).collect();
    c.psql(&refs);
    let paths: Vec<_> = INDEXES
        .iter()
        .map(|(name, _, _)| c.file(&format!("select pg_relation_filepath('{name}')")))
        .collect();
    if version >= 18 {
        c.psql(&["create extension amcheck"]);
        for (name, _, _) in INDEXES {
            assert_eq!(gin_check(&c, name), None, "{version} {name}");
        }
    }
    c.stop();
    for ((name, _, key), path) in INDEXES.iter().zip(&paths) {
        let bytes = fs::read(path).unwrap();
        let found = findings(&bytes, *key);
        assert!(found.is_empty(), "{version} {name}: {found:?}");
    }
}

#[test]
fn untouched_gin_indexes_give_no_finding_13() {
    untouched(13);
}

#[test]
fn untouched_gin_indexes_give_no_finding_14() {
    untouched(14);
}

#[test]
fn untouched_gin_indexes_give_no_finding_15() {
    untouched(15);
}

#[test]
fn untouched_gin_indexes_give_no_finding_16() {
    untouched(16);
}

#[test]
fn untouched_gin_indexes_give_no_finding_17() {
    untouched(17);
}

/// One way to damage an index copy: the index it damages, its key type, and the change.
type Damage = (&'static str, KeyType, fn(&mut [u8]));

#[test]
fn gin_findings_match_gin_index_check_18() {
    untouched(18);
    let damages: &[Damage] = &[
        ("posting_last_key", KeyType::Int4, |b| {
            let blk = find_page(b, posting_root);
            let p = &mut b[blk * BLCKSZ..(blk + 1) * BLCKSZ];
            let n = usize::from(u16_at(p, BLCKSZ - 4));
            // PostingItem n's key (bi_hi, bi_lo, posid) at 32 + (n-1)*10 + 4: (0,0) -> (0,1).
            put_u16(p, 32 + (n - 1) * 10 + 8, 1);
        }),
        ("posting_order", KeyType::Int4, |b| {
            let blk = find_page(b, posting_root);
            let p = &mut b[blk * BLCKSZ..(blk + 1) * BLCKSZ];
            let (k1, k2) = (32 + 4, 32 + 10 + 4);
            let first: Vec<u8> = p[k1..k1 + 6].to_vec();
            p.copy_within(k2..k2 + 6, k1);
            p[k2..k2 + 6].copy_from_slice(&first);
        }),
        ("posting_lower", KeyType::Int4, |b| {
            let blk = find_page(b, posting_root);
            let p = &mut b[blk * BLCKSZ..(blk + 1) * BLCKSZ];
            let lower = u16_at(p, 12);
            put_u16(p, 12, lower + 10);
        }),
        ("entry_leaf_deleted", KeyType::Int4, |b| {
            let blk = find_page(b, entry_leaf);
            let p = &mut b[blk * BLCKSZ..(blk + 1) * BLCKSZ];
            let f = gin_flags(p) | GIN_DELETED;
            put_u16(p, BLCKSZ - 2, f);
        }),
        ("entry_lp_dead", KeyType::Int4, |b| {
            let blk = find_page(b, entry_leaf);
            let at = blk * BLCKSZ + 24 + 4;
            // lp_flags (bits 15-16 of the word) LP_NORMAL -> LP_DEAD.
            b[at + 1] |= 0x80;
            b[at + 2] |= 0x01;
        }),
        ("entry_tuple_size", KeyType::Int4, |b| {
            let blk = find_page(b, entry_leaf);
            let p = &mut b[blk * BLCKSZ..(blk + 1) * BLCKSZ];
            let (off, _) = lp(p, 2);
            let info = u16_at(p, off + 6);
            put_u16(p, off + 6, info + 8);
        }),
        ("entry_heap_pointer", KeyType::Int4, |b| {
            let blk = find_page(b, entry_leaf);
            let p = &mut b[blk * BLCKSZ..(blk + 1) * BLCKSZ];
            let at = posting_at(p, 2);
            // GinPostingList.first's ip_posid.
            put_u16(p, at + 4, 0);
        }),
        ("entry_posting_count", KeyType::Int4, |b| {
            let blk = find_page(b, entry_leaf);
            let p = &mut b[blk * BLCKSZ..(blk + 1) * BLCKSZ];
            let (off, _) = lp(p, 2);
            let n = u16_at(p, off + 4);
            put_u16(p, off + 4, n + 1);
        }),
        ("entry_order", KeyType::Text, |b| {
            let blk = find_page(b, entry_leaf);
            let p = &mut b[blk * BLCKSZ..(blk + 1) * BLCKSZ];
            // Item 2's key becomes item 4's: item 3 is then below it. The keys are short
            // varlenas of one length ('key' and six digits) right after the 8-byte header.
            let (o2, _) = lp(p, 2);
            let (o4, _) = lp(p, 4);
            assert_eq!(p[o2 + 8], p[o4 + 8], "keys of one length");
            let len = usize::from(p[o2 + 8] >> 1);
            let key: Vec<u8> = p[o4 + 8..o4 + 8 + len].to_vec();
            p[o2 + 8..o2 + 8 + len].copy_from_slice(&key);
        }),
        ("entry_leaf_depth", KeyType::Text, |b| {
            // The root's first downlink names the leftmost leaf: a leaf one level down where
            // the others are two or more.
            let root = &b[BLCKSZ..2 * BLCKSZ];
            let left = downlink(root, 1) as usize;
            assert_eq!(gin_flags(&b[left * BLCKSZ..]) & GIN_LEAF, 0, "three levels");
            let mut leaf = left as u32;
            while gin_flags(&b[leaf as usize * BLCKSZ..(leaf as usize + 1) * BLCKSZ]) & GIN_LEAF
                == 0
            {
                leaf = downlink(&b[leaf as usize * BLCKSZ..(leaf as usize + 1) * BLCKSZ], 1);
            }
            let (off, _) = lp(&b[BLCKSZ..2 * BLCKSZ], 1);
            put_u16(b, BLCKSZ + off, (leaf >> 16) as u16);
            put_u16(b, BLCKSZ + off + 2, leaf as u16);
        }),
    ];
    let mut c = Cluster::start(18);
    let mut sql = vec![
        "create extension amcheck".to_owned(),
        "create table g (id int4, a int4[], t text[], l text[]) with (autovacuum_enabled = off)"
            .to_owned(),
        "insert into g select i, array[1, i], array['key' || lpad((i % 3000)::text, 6, '0')], \
         array[lpad(i::text, 300, 'x')] from generate_series(1, 40000) i"
            .to_owned(),
    ];
    for (name, key, _) in damages {
        let column = match (*name, key) {
            ("entry_leaf_depth", _) => "l",
            (_, KeyType::Text) => "t",
            _ => "a",
        };
        sql.push(format!("create index {name} on g using gin ({column})"));
    }
    sql.push("checkpoint".to_owned());
    let refs: Vec<&str> = sql.iter().map(String::as_str).collect();
    c.psql(&refs);
    let paths: Vec<_> = damages
        .iter()
        .map(|(name, _, _)| c.file(&format!("select pg_relation_filepath('{name}')")))
        .collect();
    c.stop();
    for ((_, _, damage), path) in damages.iter().zip(&paths) {
        let mut bytes = fs::read(path).unwrap();
        damage(&mut bytes);
        fix_checksums(&mut bytes);
        fs::write(path, &bytes).unwrap();
    }
    c.restart();
    for ((name, key, _), path) in damages.iter().zip(&paths) {
        let (msg, block) =
            gin_check(&c, name).unwrap_or_else(|| panic!("{name}: gin_index_check found nothing"));
        let expected = gin_rule(&msg);
        let found = findings(&fs::read(path).unwrap(), *key);
        let gin: HashSet<_> = found
            .iter()
            .filter(|(_, f)| f.code().starts_with("gin_"))
            .copied()
            .collect();
        let blocks: Vec<u32> = gin.iter().map(|(b, _)| *b).collect();
        assert!(
            gin.iter().all(|(_, f)| *f == expected)
                && blocks.len() == 1
                && block.is_none_or(|b| blocks == [b]),
            "{name}: gin_index_check said {msg:?}; pgpage found {found:?}"
        );
    }
}
