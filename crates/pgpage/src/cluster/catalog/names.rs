//! The relations of a database with their files, from its catalog rows: pg_class's
//! relfilenode (or the map's, for a mapped catalog), the tablespace the files are in,
//! schema and access method names, and the TOAST relation's file.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

use super::read::{ClassRow, OidName};
use super::relmap::RelMap;
use crate::page::kind::{Fork, PageKind};

pub use crate::page::kind::{DEFAULTTABLESPACE_OID, GLOBALTABLESPACE_OID};
/// transam.h: FirstNormalObjectId: objects made after initdb (users' relations) have OIDs
/// from here on.
pub const FIRST_NORMAL_OBJECT_ID: u32 = 16384;

/// pg_class.h: RELKIND_HAS_STORAGE: tables, indexes, sequences, TOAST tables and
/// materialized views have files; views, composite types, foreign and partitioned tables
/// and partitioned indexes do not.
pub fn relkind_has_storage(relkind: u8) -> bool {
    matches!(relkind, b'r' | b'i' | b'S' | b't' | b'm')
}

/// A relkind in words, as pg_class.h's RELKIND_* comments and psql's `\\d` name them.
pub fn relkind_words(relkind: char) -> &'static str {
    match relkind {
        'r' => "table",
        'i' => "index",
        'S' => "sequence",
        't' => "TOAST table",
        'v' => "view",
        'm' => "materialized view",
        'c' => "composite type",
        'f' => "foreign table",
        'p' => "partitioned table",
        'I' => "partitioned index",
        _ => "relation",
    }
}

/// The kind of a relation file's pages from the catalog: the free space map and visibility
/// map forks have their own pages; the main and init forks have the access method's
/// (heap for tables, TOAST tables and materialized views; the index's access method, whose
/// pg_am name is the page kind's). None for an access method pgpage does not decode.
pub fn file_page_kind(fork: Fork, relkind: char, am: Option<&str>) -> Option<PageKind> {
    match fork {
        Fork::Fsm => return Some(PageKind::Fsm),
        Fork::Vm => return Some(PageKind::Vm),
        Fork::Main | Fork::Init => {}
    }
    match (relkind, am) {
        ('S', _) => Some(PageKind::Sequence),
        ('r' | 't' | 'm', Some("heap")) => Some(PageKind::Heap),
        ('i', Some(am)) => PageKind::parse(am).filter(|k| {
            matches!(
                k,
                PageKind::Btree
                    | PageKind::Hash
                    | PageKind::Gist
                    | PageKind::Gin
                    | PageKind::Spgist
                    | PageKind::Brin
            )
        }),
        _ => None,
    }
}

/// One relation with storage, named.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NamedRelation {
    /// 0 for a shared catalog.
    pub database_oid: u32,
    pub tablespace_oid: u32,
    /// pg_relation_filenode(oid).
    pub relfilenode: u32,
    pub oid: u32,
    pub schema: Option<String>,
    pub name: String,
    pub relkind: char,
    pub relpersistence: char,
    pub am: Option<String>,
    pub toast_relfilenode: Option<u32>,
    /// pg_class's relnatts, relfrozenxid and relminmxid, for verify_heapam's checks
    /// (am::heap::check::HeapContext); not part of the listing.
    #[serde(skip)]
    pub relnatts: i16,
    #[serde(skip)]
    pub relfrozenxid: u32,
    #[serde(skip)]
    pub relminmxid: u32,
}

/// A relation whose file cannot be named (a mapped catalog missing from the map).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Unmapped {
    pub oid: u32,
    pub name: String,
}

/// RelationMapOidToFilenumber for mapped relations (relfilenode 0), else relfilenode.
fn filenode(c: &ClassRow, local: &RelMap, shared: &RelMap) -> Option<u32> {
    match c.relfilenode {
        0 if c.relisshared => shared.filenumber(c.oid),
        0 => local.filenumber(c.oid),
        n => Some(n),
    }
}

/// The relations with storage of one database's pg_class. Shared catalogs come back with
/// database_oid 0 (pg_class lists them in every database; the caller keeps one copy).
pub fn database_relations(
    database_oid: u32,
    database_tablespace: u32,
    classes: &[ClassRow],
    namespaces: &[OidName],
    ams: &[OidName],
    local: &RelMap,
    shared: &RelMap,
) -> (Vec<NamedRelation>, Vec<Unmapped>) {
    let nsp: BTreeMap<u32, &str> = namespaces.iter().map(|n| (n.oid, &*n.name)).collect();
    let am: BTreeMap<u32, &str> = ams.iter().map(|a| (a.oid, &*a.name)).collect();
    let by_oid: BTreeMap<u32, &ClassRow> = classes.iter().map(|c| (c.oid, c)).collect();
    let mut named = Vec::new();
    let mut unmapped = Vec::new();
    for c in classes.iter().filter(|c| relkind_has_storage(c.relkind)) {
        let Some(relfilenode) = filenode(c, local, shared) else {
            unmapped.push(Unmapped {
                oid: c.oid,
                name: c.relname.clone(),
            });
            continue;
        };
        let tablespace_oid = match (c.relisshared, c.reltablespace) {
            (true, _) => GLOBALTABLESPACE_OID,
            (false, 0) => database_tablespace,
            (false, t) => t,
        };
        let toast_relfilenode = match c.reltoastrelid {
            0 => None,
            t => by_oid.get(&t).and_then(|t| filenode(t, local, shared)),
        };
        named.push(NamedRelation {
            database_oid: if c.relisshared { 0 } else { database_oid },
            tablespace_oid,
            relfilenode,
            oid: c.oid,
            schema: nsp.get(&c.relnamespace).map(|s| String::from(*s)),
            name: c.relname.clone(),
            relkind: char::from(c.relkind),
            relpersistence: char::from(c.relpersistence),
            // Sequences and (before 12, not read here) tables of no access method: 0.
            am: am.get(&c.relam).map(|s| String::from(*s)),
            toast_relfilenode,
            relnatts: c.relnatts,
            relfrozenxid: c.relfrozenxid,
            relminmxid: c.relminmxid,
        });
    }
    (named, unmapped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::catalog::relmap::RelMapping;
    use alloc::vec;

    fn class(oid: u32, name: &str, relfilenode: u32, relkind: u8, shared: bool) -> ClassRow {
        ClassRow {
            oid,
            relname: name.into(),
            relnamespace: 11,
            relam: 2,
            relfilenode,
            reltablespace: 0,
            reltoastrelid: 0,
            relisshared: shared,
            relpersistence: b'p',
            relkind,
            relnatts: 1,
            relfrozenxid: 0,
            relminmxid: 0,
        }
    }

    #[test]
    fn mapped_shared_rewritten_and_storage_less_relations() {
        let map = |m: &[(u32, u32)]| RelMap {
            mappings: m
                .iter()
                .map(|&(mapoid, mapfilenumber)| RelMapping {
                    mapoid,
                    mapfilenumber,
                })
                .collect(),
            findings: vec![],
        };
        let local = map(&[(1259, 16999)]);
        let shared = map(&[(1262, 1262)]);
        let mut t = class(16384, "t", 16390, b'r', false);
        t.reltoastrelid = 16387;
        let classes = vec![
            class(1259, "pg_class", 0, b'r', false),
            class(1262, "pg_database", 0, b'r', true),
            class(1249, "pg_attribute", 0, b'r', false),
            t,
            class(16387, "pg_toast_16384", 16387, b't', false),
            class(16400, "v", 0, b'v', false),
            class(16401, "p", 0, b'p', false),
        ];
        let nsp = vec![OidName {
            oid: 11,
            name: "pg_catalog".into(),
        }];
        let am = vec![OidName {
            oid: 2,
            name: "heap".into(),
        }];
        let (named, unmapped) = database_relations(5, 1663, &classes, &nsp, &am, &local, &shared);
        let files: Vec<(u32, u32, u32)> = named
            .iter()
            .map(|r| (r.database_oid, r.tablespace_oid, r.relfilenode))
            .collect();
        assert_eq!(
            files,
            [
                (5, 1663, 16999),
                (0, 1664, 1262),
                (5, 1663, 16390),
                (5, 1663, 16387)
            ]
        );
        assert_eq!(named[2].toast_relfilenode, Some(16387));
        assert_eq!(named[0].schema.as_deref(), Some("pg_catalog"));
        assert_eq!(named[0].am.as_deref(), Some("heap"));
        assert_eq!(
            file_page_kind(Fork::Main, named[0].relkind, named[0].am.as_deref()),
            Some(PageKind::Heap)
        );
        assert_eq!(
            unmapped,
            [Unmapped {
                oid: 1249,
                name: "pg_attribute".into()
            }]
        );
    }
}

#[cfg(test)]
mod kind_tests {
    use super::*;

    #[test]
    fn page_kinds_from_relkind_and_access_method() {
        assert_eq!(
            file_page_kind(Fork::Main, 'i', Some("btree")),
            Some(PageKind::Btree)
        );
        assert_eq!(
            file_page_kind(Fork::Init, 'i', Some("gin")),
            Some(PageKind::Gin)
        );
        assert_eq!(
            file_page_kind(Fork::Main, 'S', None),
            Some(PageKind::Sequence)
        );
        assert_eq!(
            file_page_kind(Fork::Main, 't', Some("heap")),
            Some(PageKind::Heap)
        );
        assert_eq!(
            file_page_kind(Fork::Fsm, 'i', Some("btree")),
            Some(PageKind::Fsm)
        );
        assert_eq!(
            file_page_kind(Fork::Vm, 'r', Some("heap")),
            Some(PageKind::Vm)
        );
        // An access method named like a page kind but not an index's, or one not decoded.
        assert_eq!(file_page_kind(Fork::Main, 'i', Some("heap")), None);
        assert_eq!(file_page_kind(Fork::Main, 'i', Some("bloom")), None);
        assert_eq!(file_page_kind(Fork::Main, 'r', Some("columnar")), None);
        assert_eq!(relkind_words('t'), "TOAST table");
    }
}
