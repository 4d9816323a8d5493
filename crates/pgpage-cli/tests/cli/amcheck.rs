//! The structural findings held against amcheck, PostgreSQL 13 to 19: a table with HOT
//! chains and redirects and B-tree indexes on int4 and text are built, the server stopped,
//! copies of their pages damaged the ways corruption shows (a redirect pointing nowhere,
//! overlapping line pointers, impossible infomask bits, a wrong t_hoff, a misaligned line
//! pointer, a zeroed sector, swapped index items, a broken sibling link, a wrong level, a root
//! that is not marked root), their checksums recomputed so the server reads them, the server
//! started again (nothing cached), and verify_heapam (14 on), bt_index_check and
//! bt_index_parent_check run. Every corruption amcheck reports, pgpage reports at the same
//! block and offset as the same rule; every finding pgpage reports that the version's
//! amcheck has a check for, amcheck reports; the untouched relations give neither anything.

use std::collections::HashSet;
use std::fs;

use crate::common::findings;
use crate::common::page::{fix_checksums, u16_at, u32_at, BLCKSZ};
use crate::common::{pgpage, Cluster};
use pgpage::am::decode_page_with;
use pgpage::am::decoded::{DecodeOptions, Hints, Items};
use pgpage::am::nbtree::check::{KeyColumn, KeyType};
use pgpage::findings::{Evidence, Finding};
use pgpage::Endian;

/// pgpage's stdout for `args` (whatever its exit status).
fn stdout_of(args: &[&str]) -> String {
    let out = pgpage(args);
    assert_ne!(
        out.status.code(),
        Some(2),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// No message in `text` keeps a printf conversion or the "…" that stood for a value.
fn assert_whole(text: &str, version: u32) {
    for hole in ["%u", "%d", "%s", "%X", "%zu", "%m", "…"] {
        let line = text.lines().find(|l| l.contains(hole));
        assert!(
            line.is_none(),
            "{version}: \"{hole}\" in: {}",
            line.unwrap_or_default()
        );
    }
}

/// Key types as ascending columns (CREATE INDEX's default).
fn columns(keys: &[KeyType]) -> Vec<KeyColumn> {
    keys.iter().map(|&k| k.into()).collect()
}

/// amcheck's message to pgpage's finding, and the first version whose amcheck has the check.
/// None: a check that needs more than the page (pg_xact, pg_multixact, the catalog, TOAST),
/// which pgpage leaves unjudged.
fn heap_rule(msg: &str) -> Option<(Finding, u32)> {
    let rules: &[(&str, Finding, u32)] = &[
        (
            "line pointer redirection to item at offset",
            Finding::LpRedirectOutOfRange,
            14,
        ),
        (
            "line pointer redirection to unused item",
            Finding::HeapRedirectToUnused,
            14,
        ),
        (
            "redirected line pointer points to an unused item",
            Finding::HeapRedirectToUnused,
            16,
        ),
        (
            "redirected line pointer points to a dead item",
            Finding::HeapRedirectToDead,
            16,
        ),
        (
            "redirected line pointer points to another redirected",
            Finding::HeapRedirectToRedirect,
            16,
        ),
        (
            "redirected line pointer points to a non-heap-only",
            Finding::HeapRedirectToNonHeapOnly,
            16,
        ),
        (
            "redirect line pointer points to offset",
            Finding::HeapRedirectIntersect,
            16,
        ),
        (
            "tuple points to new version at offset",
            Finding::HeapUpdateIntersect,
            16,
        ),
        (
            "non-heap-only update produced",
            Finding::HeapNonHotUpdateMadeHeapOnly,
            16,
        ),
        (
            "heap-only update produced a non-heap only",
            Finding::HeapHotUpdateMadeNonHeapOnly,
            16,
        ),
        (
            "tuple is root of chain but is marked as heap-only",
            Finding::HeapRootIsHeapOnly,
            16,
        ),
        ("is not maximally aligned", Finding::HeapLpNotMaxaligned, 14),
        (
            "is less than the minimum tuple header size",
            Finding::HeapLpTooShort,
            14,
        ),
        ("ends beyond maximum page offset", Finding::ItemPastPage, 14),
        ("data begins at offset", Finding::HeapHoffPastLength, 14),
        (
            "tuple data should begin at byte",
            Finding::HeapHoffUnexpected,
            14,
        ),
        (
            "multixact should not be marked committed",
            Finding::HeapMultixactCommitted,
            14,
        ),
        (
            "tuple has been HOT updated, but xmax is 0",
            Finding::HeapHotUpdatedXmaxInvalid,
            16,
        ),
        (
            "tuple is heap only, but not the result of an update",
            Finding::HeapOnlyNotUpdated,
            16,
        ),
        (
            "multitransaction ID is invalid",
            Finding::HeapMultiXactInvalid,
            14,
        ),
    ];
    rules
        .iter()
        .find(|(m, _, _)| msg.contains(m))
        .map(|&(_, f, v)| (f, v))
}

/// The heap findings pgpage reports and the first amcheck version that checks the same.
fn amcheck_since(f: Finding) -> Option<u32> {
    [
        Finding::LpRedirectOutOfRange,
        Finding::HeapRedirectToUnused,
        Finding::HeapRedirectToDead,
        Finding::HeapRedirectToRedirect,
        Finding::HeapRedirectToNonHeapOnly,
        Finding::HeapRedirectIntersect,
        Finding::HeapUpdateIntersect,
        Finding::HeapNonHotUpdateMadeHeapOnly,
        Finding::HeapHotUpdateMadeNonHeapOnly,
        Finding::HeapRootIsHeapOnly,
        Finding::HeapLpNotMaxaligned,
        Finding::HeapLpTooShort,
        Finding::ItemPastPage,
        Finding::HeapHoffPastLength,
        Finding::HeapHoffUnexpected,
        Finding::HeapMultixactCommitted,
        Finding::HeapHotUpdatedXmaxInvalid,
        Finding::HeapOnlyNotUpdated,
        Finding::HeapMultiXactInvalid,
    ]
    .contains(&f)
    .then_some(match f {
        Finding::HeapRedirectToUnused
        | Finding::LpRedirectOutOfRange
        | Finding::HeapLpNotMaxaligned
        | Finding::HeapLpTooShort
        | Finding::ItemPastPage
        | Finding::HeapHoffPastLength
        | Finding::HeapHoffUnexpected
        | Finding::HeapMultixactCommitted
        | Finding::HeapMultiXactInvalid => 14,
        _ => 16,
    })
}

/// Every (block, item, finding) pgpage reports on a file's pages.
fn page_findings(bytes: &[u8], keys: Option<&[KeyType]>) -> HashSet<(u32, Option<u16>, Finding)> {
    findings::page_findings(bytes, keys.map(columns).as_deref())
}

fn page_mut(bytes: &mut [u8], block: usize) -> &mut [u8] {
    &mut bytes[block * BLCKSZ..(block + 1) * BLCKSZ]
}

fn lp_word(p: &[u8], lp: usize) -> u32 {
    u32_at(p, 24 + (lp - 1) * 4)
}

fn set_lp(p: &mut [u8], lp: usize, off: u32, flags: u32, len: u32) {
    let w = (off & 0x7FFF) | (flags << 15) | (len << 17);
    p[24 + (lp - 1) * 4..24 + lp * 4].copy_from_slice(&w.to_le_bytes());
}

fn lp_parts(p: &[u8], lp: usize) -> (u32, u32, u32) {
    let w = lp_word(p, lp);
    (w & 0x7FFF, (w >> 15) & 3, w >> 17)
}

fn maxoff(p: &[u8]) -> usize {
    (usize::from(u16_at(p, 12)) - 24) / 4
}

/// The heap rows of a page as heap_page_items shows them.
fn heap_items(p: &[u8], block: u32) -> Vec<pgpage::am::heap::layout::HeapItem> {
    match decode_page_with(p, block, &DecodeOptions::default(), &Hints::default()).items {
        Items::Heap(rows) => rows,
        _ => panic!("block {block} is not a heap page"),
    }
}

/// A plain tuple of the page: normal, never updated (xmax 0, no HOT bits), committed.
fn plain_tuple(p: &[u8], block: u32, not: &[u16]) -> u16 {
    heap_items(p, block)
        .iter()
        .find(|r| {
            r.lp_flags == 1
                && r.t_xmax.as_deref() == Some("0")
                && r.t_infomask2.is_some_and(|m| m & 0xC000 == 0)
                && r.t_infomask
                    .is_some_and(|m| m & 0x2000 == 0 && m & 0x0100 != 0)
                && !not.contains(&r.lp)
        })
        .map(|r| r.lp)
        .unwrap_or_else(|| panic!("no plain tuple on block {block}"))
}

/// What amcheck said about an index: its first error (or none), the block and offset its
/// message or detail names.
fn bt_check(
    c: &Cluster,
    function: &str,
    index: &str,
) -> Option<(String, Option<u32>, Option<u16>)> {
    let err = c.try_psql(&format!("select {function}('{index}')")).err()?;
    let msg = findings::error_message(&err);
    let number_after = |key: &str| findings::number_after(&err, key);
    let (block, offset) = if let Some(b) = number_after("Lower index tid=(") {
        let at = err.find("Lower index tid=(").unwrap();
        let rest = &err[at..];
        let off = rest
            .split(',')
            .nth(1)
            .and_then(|s| s.split(')').next()?.parse().ok());
        (Some(b), off)
    } else if let Some(b) = number_after("Block=") {
        (Some(b), None)
    } else if let Some(b) = number_after("for block ") {
        (Some(b), None)
    } else {
        (number_after("block "), None)
    };
    Some((msg, block, offset))
}

fn btree_rule(msg: &str) -> Finding {
    let rules = [
        ("item order invariant violated", Finding::BtreeItemOrder),
        ("high key invariant violated", Finding::BtreeHighKey),
        (
            "left link/right link pair",
            Finding::BtreeSiblingLinksDisagree,
        ),
        ("invalid leaf page level", Finding::BtreeLeafLevelInvalid),
        (
            "invalid internal page level 0",
            Finding::BtreeInternalLevelZero,
        ),
        ("is not true root", Finding::BtreeNotTrueRoot),
        (
            "whose level is not one level down",
            Finding::BtreeLevelMismatch,
        ),
        (
            "posting list contains misplaced TID",
            Finding::BtreePostingMisplacedTid,
        ),
        ("circular link chain", Finding::BtreeCircularLinks),
        ("fell off the end", Finding::BtreeFellOffEnd),
    ];
    rules
        .iter()
        .find(|(m, _)| msg.contains(m))
        .map(|&(_, f)| f)
        .unwrap_or_else(|| panic!("an amcheck message pgpage has no rule for: {msg}"))
}

fn held_against_amcheck(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create extension amcheck",
        "create table h (id int4, v int4, s text) with (fillfactor = 50, autovacuum_enabled = off)",
        "insert into h select g, g, 'row ' || g from generate_series(1, 1200) g",
        "create index hi on h (id)",
        // HOT updates (v is in no index), twice, then pruned into redirects, then once more.
        "update h set v = v + 1 where id % 5 = 0",
        "update h set v = v + 1 where id % 5 = 0",
        "vacuum h",
        "update h set v = v + 1 where id % 10 = 0",
        "select count(*) from h",
        "create table t (id int4, s text) with (autovacuum_enabled = off)",
        "insert into t select g, md5(g::text) from generate_series(1, 4000) g",
        "create index ti_order on t (id)",
        "create index ti_link on t (id)",
        "create index ti_level on t (id)",
        "create index ti_root on t (id)",
        "create index ts_order on t (s collate \"C\")",
        "create table v with (autovacuum_enabled = off) as select g as id from generate_series(1, 2000) g",
        "vacuum v",
        "checkpoint",
    ]);
    let path = |rel: &str| c.file(&format!("select pg_relation_filepath('{rel}')"));
    let indexes = ["ti_order", "ti_link", "ti_level", "ti_root", "ts_order"];
    let heap_path = path("h");
    let v_path = path("v");
    let mut v_vm_path = v_path.clone().into_os_string();
    v_vm_path.push("_vm");
    let index_paths: Vec<_> = indexes.iter().map(|i| path(i)).collect();

    // The untouched relations: amcheck and pgpage both find nothing.
    if version >= 14 {
        assert_eq!(
            c.psql(&["select count(*) from verify_heapam('h')"]).trim(),
            "0"
        );
    }
    for i in indexes {
        assert_eq!(bt_check(&c, "bt_index_parent_check", i), None, "{i}");
    }
    c.stop();
    let heap = fs::read(&heap_path).unwrap();
    let clean: Vec<_> = page_findings(&heap, None)
        .into_iter()
        .filter(|f| f.2.evidence() != Evidence::Note)
        .collect();
    assert!(clean.is_empty(), "{version}: untouched heap: {clean:?}");
    for (i, p) in indexes.iter().zip(&index_paths) {
        let bytes = fs::read(p).unwrap();
        let keys: &[KeyType] = if i.starts_with("ts") {
            &[KeyType::Text]
        } else {
            &[KeyType::Int4]
        };
        let found = page_findings(&bytes, Some(keys));
        assert!(found.is_empty(), "{version} {i}: {found:?}");
        assert!(findings::file_findings(&bytes).is_empty(), "{version} {i}");
    }

    // ---- the visibility map: PD_ALL_VISIBLE cleared on a page the VM says is all-visible ----
    let mut v = fs::read(&v_path).unwrap();
    let v_vm = fs::read(&v_vm_path).unwrap();
    let maps = pgpage::am::maps::walk::ForkMaps::new(Some(&v_vm), None, pgpage::BlockSize::DEFAULT);
    let structural = |heap: &[u8]| -> Vec<_> {
        (0u32..)
            .zip(heap.chunks_exact(BLCKSZ))
            .flat_map(|(b, page)| {
                maps.check_heap_page(b, page, Endian::Little)
                    .map(move |f| (b, f))
            })
            .filter(|f| f.1.evidence() != Evidence::Note)
            .collect()
    };
    assert!(
        structural(&v).is_empty(),
        "{version}: untouched VM: {:?}",
        structural(&v)
    );
    let p = page_mut(&mut v, 1);
    let flags = u16_at(p, 10) & !0x0004;
    p[10..12].copy_from_slice(&flags.to_le_bytes());
    fix_checksums(&mut v);
    fs::write(&v_path, &v).unwrap();
    assert_eq!(
        structural(&v),
        vec![(1, Finding::VmBitWithoutPageFlag)],
        "{version}"
    );

    // ---- the heap, one corruption a block ----
    let mut h = heap.clone();
    let blocks = h.len() / BLCKSZ;
    assert!(blocks >= 7, "{blocks}");
    // Block 0: a redirect pointing past the last line pointer.
    let p = page_mut(&mut h, 0);
    let redirect = (1..=maxoff(p))
        .find(|&lp| lp_parts(p, lp).1 == 2)
        .expect("a redirect");
    let n = maxoff(p) as u32;
    set_lp(p, redirect, n + 5, 2, 0);
    // Block 1: a line pointer made to point at another's tuple (amcheck has no check).
    let p = page_mut(&mut h, 1);
    let one = plain_tuple(p, 1, &[]);
    let two = plain_tuple(p, 1, &[one]);
    let (off, _, len) = lp_parts(p, one as usize);
    set_lp(p, two as usize, off, 1, len);
    // Block 2: HEAP_XMAX_COMMITTED | HEAP_XMAX_IS_MULTI on a tuple with xmax 0.
    let p = page_mut(&mut h, 2);
    let multi = plain_tuple(p, 2, &[]);
    let (off, _, _) = lp_parts(p, multi as usize);
    let m = u16_at(p, off as usize + 20) | 0x0400 | 0x1000;
    p[off as usize + 20..off as usize + 22].copy_from_slice(&m.to_le_bytes());
    // Block 3: t_hoff 32 where 24 belongs.
    let p = page_mut(&mut h, 3);
    let hoff = plain_tuple(p, 3, &[]);
    let (off, _, _) = lp_parts(p, hoff as usize);
    p[off as usize + 22] = 32;
    // Block 4: HEAP_ONLY_TUPLE on a tuple no update made.
    let p = page_mut(&mut h, 4);
    let only = plain_tuple(p, 4, &[]);
    let (off, _, _) = lp_parts(p, only as usize);
    let m2 = u16_at(p, off as usize + 18) | 0x8000;
    p[off as usize + 18..off as usize + 20].copy_from_slice(&m2.to_le_bytes());
    // Block 5: the 512-byte sector at 6144 zeroed, inside the tuples.
    page_mut(&mut h, 5)[6144..6656].fill(0);
    // Block 6: a line pointer moved off MAXALIGN.
    let p = page_mut(&mut h, 6);
    let odd = plain_tuple(p, 6, &[]);
    let (off, fl, len) = lp_parts(p, odd as usize);
    set_lp(p, odd as usize, off - 2, fl, len);
    fix_checksums(&mut h);
    fs::write(&heap_path, &h).unwrap();

    // ---- the indexes, one corruption each ----
    let leaf_next = |p: &[u8]| u32_at(p, BLCKSZ - 12);
    let mut damaged = Vec::new();
    for (i, p) in indexes.iter().zip(&index_paths) {
        let mut bytes = fs::read(p).unwrap();
        let root = u32_at(&bytes, 24 + 8) as usize;
        match *i {
            "ti_order" | "ts_order" => {
                let page = page_mut(&mut bytes, 1);
                assert_ne!(leaf_next(page), 0);
                let a: Vec<u8> = page[24 + 16..24 + 20].to_vec();
                page.copy_within(24 + 20..24 + 24, 24 + 16);
                page[24 + 20..24 + 24].copy_from_slice(&a);
            }
            "ti_link" => {
                let page = page_mut(&mut bytes, 2);
                page[BLCKSZ - 16..BLCKSZ - 12].copy_from_slice(&5u32.to_le_bytes());
            }
            "ti_level" => {
                let page = page_mut(&mut bytes, 2);
                page[BLCKSZ - 8..BLCKSZ - 4].copy_from_slice(&1u32.to_le_bytes());
            }
            _ => {
                let page = page_mut(&mut bytes, root);
                let f = u16_at(page, BLCKSZ - 4) & !2;
                page[BLCKSZ - 4..BLCKSZ - 2].copy_from_slice(&f.to_le_bytes());
            }
        }
        fix_checksums(&mut bytes);
        fs::write(p, &bytes).unwrap();
        damaged.push(bytes);
    }
    c.restart();
    // pgpage's own words on the damaged copies, to hold against amcheck's below.
    let data = c.data.to_str().unwrap().to_owned();
    let amcheck_out = pgpage(&["verify", "--amcheck", &data]);
    let amcheck_text = String::from_utf8_lossy(&amcheck_out.stdout).into_owned();
    let mut said = vec![
        amcheck_text.clone(),
        stdout_of(&["verify", "--amcheck", "--json", &data]),
        stdout_of(&["inspect", heap_path.to_str().unwrap()]),
    ];
    for b in 0..7 {
        said.push(stdout_of(&[
            "repair",
            "--block",
            &b.to_string(),
            heap_path.to_str().unwrap(),
        ]));
    }
    for p in &index_paths {
        said.push(stdout_of(&["inspect", p.to_str().unwrap()]));
    }
    for text in &said {
        assert_whole(text, version);
    }

    // ---- the heap against verify_heapam ----
    let ours: HashSet<(u32, Option<u16>, Finding)> = page_findings(&h, None);
    assert!(
        ours.iter().any(|f| f.0 == 1 && f.2 == Finding::SpanOverlap),
        "{version}: {ours:?}"
    );
    let expected_ours = [
        (0, Some(redirect as u16), Finding::LpRedirectOutOfRange),
        (2, Some(multi), Finding::HeapMultixactCommitted),
        (2, Some(multi), Finding::HeapMultiXactInvalid),
        (3, Some(hoff), Finding::HeapHoffUnexpected),
        (4, Some(only), Finding::HeapOnlyNotUpdated),
        (4, Some(only), Finding::HeapRootIsHeapOnly),
        (6, Some(odd), Finding::HeapLpNotMaxaligned),
    ];
    for e in expected_ours {
        assert!(
            ours.contains(&e),
            "{version}: pgpage misses {e:?}: {ours:?}"
        );
    }
    let mut held = 0;
    if version >= 14 {
        let rows = c.psql(&[
            "select blkno || '|' || offnum || '|' || msg from verify_heapam('h') order by 1",
        ]);
        let theirs: Vec<(u32, u16, String)> = rows
            .lines()
            .filter(|l| !l.is_empty())
            .map(|l| {
                let mut it = l.splitn(3, '|');
                (
                    it.next().unwrap().parse().unwrap(),
                    it.next().unwrap().parse().unwrap(),
                    it.next().unwrap().to_owned(),
                )
            })
            .collect();
        assert!(!theirs.is_empty(), "{version}: verify_heapam found nothing");
        let mut judged = HashSet::new();
        for (blk, off, msg) in &theirs {
            let Some((f, _)) = heap_rule(msg) else {
                // Needs pg_xact, pg_multixact, the catalog or TOAST: pgpage does not judge.
                continue;
            };
            let same = ours.contains(&(*blk, Some(*off), f))
                || (f == Finding::HeapLpTooShort
                    && ours.contains(&(*blk, Some(*off), Finding::LpNormalWithoutStorage)));
            assert!(
                same,
                "{version}: amcheck ({blk},{off}) \"{msg}\" but pgpage: {:?}",
                ours.iter().filter(|o| o.0 == *blk).collect::<Vec<_>>()
            );
            judged.insert((*blk, *off, f));
            held += 1;
            // The message word for word, numbers in, where this version's amcheck words it
            // as the registry does (14 and 15 said "line pointer redirection to unused
            // item at offset %u").
            if f == Finding::HeapRedirectToUnused && version < 16 {
                continue;
            }
            let line =
                format!("heap table \"postgres.public.h\", block {blk}, offset {off}: {msg}");
            let ours_words = decode_page_with(
                &h[*blk as usize * BLCKSZ..(*blk as usize + 1) * BLCKSZ],
                *blk,
                &DecodeOptions::default(),
                &Hints::default(),
            )
            .item_finding(f, Some(*off))
            .message();
            assert_eq!(&ours_words, msg, "{version}: ({blk},{off})");
            assert!(
                amcheck_text.lines().any(|l| l == line),
                "{version}: verify --amcheck lacks \"{line}\":\n{amcheck_text}"
            );
        }
        // And the other way: each of pgpage's findings this amcheck has a check for.
        for (blk, item, f) in &ours {
            let Some(since) = amcheck_since(*f) else {
                continue;
            };
            if version < since {
                continue;
            }
            let off = item.expect("heap findings name their line pointer");
            assert!(
                judged.contains(&(*blk, off, *f)),
                "{version}: pgpage ({blk},{off}) {f:?} but amcheck: {theirs:?}"
            );
        }
    }

    // ---- the indexes against bt_index_check and bt_index_parent_check ----
    for ((i, bytes), _) in indexes.iter().zip(&damaged).zip(&index_paths) {
        let keys: &[KeyType] = if i.starts_with("ts") {
            &[KeyType::Text]
        } else {
            &[KeyType::Int4]
        };
        let pages = page_findings(bytes, Some(keys));
        let walk = findings::file_findings(bytes);
        // 13's bt_index_check compares sibling links only under bt_index_parent_check's lock
        // (bt_recheck_sibling_links came in 14).
        let function = if *i == "ti_root" || (*i == "ti_link" && version == 13) {
            "bt_index_parent_check"
        } else {
            "bt_index_check"
        };
        let (msg, block, offset) = bt_check(&c, function, i)
            .unwrap_or_else(|| panic!("{version}: {function}('{i}') found nothing"));
        let f = btree_rule(&msg);
        let block = block.unwrap_or_else(|| panic!("{version}: no block in: {msg}"));
        let found = pages
            .iter()
            .any(|(b, item, g)| *b == block && *g == f && offset.is_none_or(|o| *item == Some(o)))
            || walk.contains(&(block, f));
        assert!(
            found,
            "{version} {i}: amcheck \"{msg}\" at {block}/{offset:?}; pgpage {pages:?} {walk:?}"
        );
        held += 1;
        if *i == "ti_root" {
            // bt_index_check does not ask for the root flag.
            assert_eq!(bt_check(&c, "bt_index_check", i), None, "{version}");
        }
    }
    // VACUUM's own warning about the VM page.
    c.psql(&["vacuum (disable_page_skipping) v"]);
    let log = fs::read_to_string(c.root.join("log")).unwrap();
    // 19 (pruneheap.c) names the relation and page in the CONTEXT line after the warning.
    let warned = if version >= 19 {
        let lines: Vec<&str> = log.lines().collect();
        lines.windows(2).any(|w| {
            w[0].ends_with("WARNING:  page is not marked all-visible but visibility map bit is set")
                && w[1].ends_with("CONTEXT:  relation \"v\", page 1")
        })
    } else {
        log.contains(
            "page is not marked all-visible but visibility map bit is set in relation \"v\" page 1",
        )
    };
    assert!(
        warned,
        "{version}: VACUUM did not warn: {}",
        log.lines()
            .filter(|l| l.contains("visibility map") || l.contains("CONTEXT"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    held += 1;
    eprintln!("PostgreSQL {version}: {held} amcheck and VACUUM findings matched");
}

each_version!(held_against_amcheck);
