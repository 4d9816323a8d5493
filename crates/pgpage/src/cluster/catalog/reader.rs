//! The names of a data directory's relations, read the way a caller without a file system
//! can drive it: the reader is told every path the directory holds, asks for the files it
//! needs next (the SLRUs, the maps, pg_database, then each database's pg_class, pg_namespace
//! and pg_am), is given their bytes, and in the end lists the relations and what it could not
//! read. The CLI answers with reads from disk, the browser with File.arrayBuffer().

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde::Serialize;

use super::layout::Catalog;
use super::names::{
    database_relations, NamedRelation, DEFAULTTABLESPACE_OID, GLOBALTABLESPACE_OID,
};
use super::read::{
    attribute_rows, class_rows, database_rows, index_rows, oid_name_rows, opclass_rows,
    AttributeRow, CatalogFile, CatalogProblem, ClassRow, DatabaseRow, IndexRow, OidName,
    OpclassRow,
};
use super::relmap::{read_relmap, RelMap};
use crate::am::nbtree::check::{KeyColumn, KeyType};
use crate::cluster::catalog::columns::PG_CATALOG_NAMESPACE;
use crate::cluster::control::{ControlFile, ControlValue};
use crate::cluster::rows::Column;
use crate::file::datadir::tablespace_dir_version;
use crate::file::parse_relation_file_name;
use crate::findings::Finding;
use crate::page::geometry::{BlockSize, Endian};
use crate::tuple::value::Type;
use crate::tuple::visibility::{slru_segment_number, SlruKind, TransactionLog};
use crate::tuple::{Align, Attribute};

/// How the directory's pages are read.
#[derive(Clone, Copy, Debug)]
pub struct ReadWith {
    pub major: u32,
    pub block_size: BlockSize,
    pub endian: Endian,
    /// Data checksums are on (pg_control), so a mismatch is a damaged page (not while they
    /// change: no read verifies one then).
    pub checksums: bool,
    /// pg_control's nextMulti and nextMultiOffset, when known.
    pub next_multi: Option<(u32, u64)>,
}

impl ReadWith {
    /// From pg_control, when it can be trusted; else 8 kB little-endian pages with
    /// checksums judged on (a mismatch is named rather than passed over).
    pub fn from_control(major: u32, control: Option<&ControlFile>) -> ReadWith {
        let Some(c) = control else {
            return ReadWith {
                major,
                block_size: BlockSize::DEFAULT,
                endian: Endian::Little,
                checksums: true,
                next_multi: None,
            };
        };
        let num = |name| match c.get(name) {
            Some(ControlValue::Text(t)) => t.parse::<u32>().ok(),
            Some(ControlValue::Int(i)) => u32::try_from(*i).ok(),
            _ => None,
        };
        ReadWith {
            major,
            block_size: c
                .block_size()
                .and_then(BlockSize::new)
                .unwrap_or(BlockSize::DEFAULT),
            endian: c.endian,
            checksums: crate::file::scan::ChecksumsKnown::of_version(
                c.data_page_checksum_version(),
            )
            .verified_on_read(),
            // The whole nextMultiOffset: 64 bits from 19 on, where pg_control_checkpoint()
            // shows only its low 32.
            next_multi: num("next_multixact_id").map(|m| (m, c.extra.next_multi_offset)),
        }
    }
}

/// One relation with storage and the database it is listed under (None for shared ones).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ListedRelation {
    pub database: Option<String>,
    #[serde(flatten)]
    pub relation: NamedRelation,
    /// For an index, the oid of its table (pg_index.indrelid), in the same database.
    pub index_of: Option<u32>,
}

/// What the catalogs say: the relations, the databases, each tablespace's directory, and
/// one line per thing that could not be read.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CatalogListing {
    pub relations: Vec<ListedRelation>,
    pub databases: Vec<DatabaseRow>,
    /// pg_tblspc/OID/PG_MAJOR_CATVERSION by tablespace OID.
    pub tablespaces: BTreeMap<u32, String>,
    pub damage: Vec<String>,
    /// pg_xact and pg_multixact as read for the catalogs, for the rows of the relations.
    #[serde(skip)]
    pub log: Option<TransactionLog>,
    /// Each database's pg_filenode.map, by database oid: where its mapped catalogs are
    /// when pg_class cannot say.
    #[serde(skip)]
    pub maps: BTreeMap<u32, RelMap>,
    /// With `CatalogReader::read_index_keys`: each B-tree and GIN index's key columns by
    /// (database oid, index oid), or why its order cannot be checked.
    #[serde(skip)]
    pub index_keys: BTreeMap<(u32, u32), Result<Vec<KeyColumn>, String>>,
    /// With `read_index_keys`: each index's key columns as their output functions print
    /// them, by (database oid, index oid); absent when a key column is not of a built-in
    /// type pgpage prints. Printing a key needs neither its collation nor its opclass.
    #[serde(skip)]
    pub index_key_output: BTreeMap<(u32, u32), Vec<Column>>,
    /// Each unique index by (database oid, index oid): true for a primary key.
    #[serde(skip)]
    pub unique_indexes: BTreeMap<(u32, u32), bool>,
    /// (database oid, table oid): the attribute numbers of the columns that name one row of
    /// the table, its primary key's, else those of a unique index on plain columns that is
    /// not partial: at most one live version per key.
    pub row_keys: BTreeMap<(u32, u32), Vec<i16>>,
    /// With `read_index_keys`: each index that holds one entry per row of its table,
    /// keyed on plain columns whose values pgpage prints (not partial, not left unfinished),
    /// by (database oid, index oid): its table's columns, to find a row's key in a heap tuple.
    #[serde(skip)]
    pub heap_keys: BTreeMap<(u32, u32), HeapKeys>,
}

/// A table's columns laid out as heap_deform_tuple walks them (pg_attribute's attlen,
/// attalign and missing values), the index's key columns printed with the index's own
/// output types, and where those keys stand among the columns.
#[derive(Clone, Debug)]
pub struct HeapKeys {
    pub columns: Vec<Column>,
    pub positions: Vec<usize>,
}

/// The `HeapKeys` of `index` over its table's pg_attribute rows (`table`, any order), or
/// None when a key is an expression, an attribute is missing, or a key is not printed.
fn heap_keys(
    index: &IndexRow,
    table: &[&AttributeRow],
    key_output: &[Column],
    endian: Endian,
) -> Option<HeapKeys> {
    if index.partial || !index.complete {
        return None;
    }
    let keys: Vec<i16> = index
        .indkey
        .iter()
        .copied()
        .take(usize::try_from(index.indnkeyatts).ok()?)
        .collect();
    if keys.is_empty() || keys.len() != key_output.len() || keys.iter().any(|&k| k <= 0) {
        return None;
    }
    let mut atts: Vec<&AttributeRow> = table.iter().copied().filter(|a| a.attnum > 0).collect();
    atts.sort_by_key(|a| a.attnum);
    atts.dedup_by_key(|a| a.attnum);
    // A gap in attnum: a row of pg_attribute is missing, and every later column would be
    // read at the wrong place.
    if atts
        .iter()
        .enumerate()
        .any(|(i, a)| usize::try_from(a.attnum).ok() != Some(i.saturating_add(1)))
    {
        return None;
    }
    let columns = atts
        .iter()
        .map(|a| {
            let attalign = Align::from_typalign(a.attalign)?;
            let ty = match keys.iter().position(|&k| k == a.attnum) {
                Some(k) => key_output.get(k)?.ty.clone(),
                None => Type::Unknown {
                    name: format!("type {}", a.atttypid),
                    attlen: a.attlen,
                    attalign,
                },
            };
            let missing = a
                .attmissingval
                .as_deref()
                .filter(|_| a.atthasmissing && !a.attisdropped)
                .and_then(|v| super::columns::missing_value(v, a.attlen, endian));
            Some(Column {
                name: a.attname.clone(),
                ty,
                attribute: Attribute {
                    attlen: a.attlen,
                    attalign,
                    attbyval: a.attbyval,
                    attisdropped: a.attisdropped,
                    missing,
                },
            })
        })
        .collect::<Option<Vec<Column>>>()?;
    let positions = keys
        .iter()
        .map(|&k| usize::try_from(k).ok()?.checked_sub(1))
        .collect::<Option<Vec<usize>>>()?;
    positions
        .iter()
        .all(|&p| columns.get(p).is_some_and(|c| !c.attribute.attisdropped))
        .then_some(HeapKeys { columns, positions })
}

/// pg_collation_d.h: C_COLLATION_OID and POSIX_COLLATION_OID, the collations whose text
/// order is memcmp's.
const C_COLLATIONS: [u32; 2] = [950, 951];
/// pg_collation_d.h: DEFAULT_COLLATION_OID, the database's own.
const DEFAULT_COLLATION_OID: u32 = 100;

/// pg_index.h: INDOPTION_DESC and INDOPTION_NULLS_FIRST.
const INDOPTION_DESC: i16 = 1;
const INDOPTION_NULLS_FIRST: i16 = 2;

const GIN_AM_OID: u32 = 2742;

/// PostgreSQL's own GIN operator classes whose text keys are compared byte by byte, then by
/// length, whatever the collation: jsonb_ops (gin_compare_jsonb, "always using C
/// collation") and tsvector_ops (gin_cmp_tslexeme's tsCompareString, a memcmp). Their OIDs
/// are given by initdb, so they are known by name, schema and access method.
const BYTE_ORDER_GIN_OPCLASSES: [&str; 2] = ["jsonb_ops", "tsvector_ops"];

/// An index's key columns as its opclasses order them (the index's own pg_attribute rows
/// hold each column's type: the opclass's storage type where it has one, as for GIN), or
/// why pgpage cannot order them.
/// `default_is_c`: the database's default collation orders text as memcmp does
/// (`DatabaseRow::collate_is_c`). `opclasses`: the database's pg_opclass rows.
pub fn index_key_columns(
    index: &IndexRow,
    attributes: &[&AttributeRow],
    default_is_c: bool,
    opclasses: &[OpclassRow],
) -> Result<Vec<KeyColumn>, String> {
    let keys = u16::try_from(index.indnkeyatts).unwrap_or(0);
    (1..=keys)
        .map(|attnum| {
            let i = usize::from(attnum.saturating_sub(1));
            let att = attributes
                .iter()
                .find(|a| a.attnum == attnum as i16)
                .ok_or_else(|| format!("pg_attribute has no row for key column {attnum}"))?;
            let ty = KeyType::from_type_oid(att.atttypid).ok_or_else(|| {
                format!(
                    "key column {attnum} is of type OID {}, which pgpage does not order",
                    att.atttypid
                )
            })?;
            // initGinState: a column without a collation (text keys of a type that has
            // none, as hstore's) is compared under the database's default. A B-tree's text
            // key always has one.
            let collation = match index.indcollation.get(i).copied().unwrap_or(0) {
                0 => DEFAULT_COLLATION_OID,
                c => c,
            };
            let c = C_COLLATIONS.contains(&collation)
                || (collation == DEFAULT_COLLATION_OID && default_is_c);
            let bytewise = index.indclass.get(i).is_some_and(|oid| {
                opclasses.iter().any(|o| {
                    o.oid == *oid
                        && o.opcnamespace == PG_CATALOG_NAMESPACE
                        && o.opcmethod == GIN_AM_OID
                        && BYTE_ORDER_GIN_OPCLASSES.contains(&o.opcname.as_str())
                })
            });
            if ty == KeyType::Text && !c && !bytewise {
                return Err(format!(
                    "key column {attnum} is text under collation OID {collation}, not C or POSIX"
                ));
            }
            let option = index.indoption.get(i).copied().unwrap_or(0);
            Ok(KeyColumn {
                ty,
                desc: option & INDOPTION_DESC != 0,
                nulls_first: option & INDOPTION_NULLS_FIRST != 0,
            })
        })
        .collect()
}

/// An index's key columns for printing their values: each key attribute's layout from the
/// index's own pg_attribute row and its type's output function (a built-in type, whose OID
/// initdb fixes); None when a key column has no row or a type pgpage does not print.
pub fn index_key_output(index: &IndexRow, attributes: &[&AttributeRow]) -> Option<Vec<Column>> {
    let keys = u16::try_from(index.indnkeyatts).unwrap_or(0);
    (1..=keys)
        .map(|attnum| {
            let att = attributes.iter().find(|a| a.attnum == attnum as i16)?;
            Some(Column {
                name: att.attname.clone(),
                ty: Type::from_builtin_oid(att.atttypid)?,
                attribute: Attribute {
                    attlen: att.attlen,
                    attalign: Align::from_typalign(att.attalign)?,
                    attbyval: att.attbyval,
                    attisdropped: false,
                    missing: None,
                },
            })
        })
        .collect()
}

impl CatalogListing {
    /// The directory of a database's files in a tablespace, as relpath.c lays it out.
    pub fn directory(&self, tablespace: u32, database: u32) -> Option<String> {
        relation_directory(&self.tablespaces, tablespace, database)
    }

    /// For each path of the data directory (relative to it, `/`-separated), the index in
    /// `relations` of the relation whose file it is: its directory is the relation's
    /// database's in its tablespace, and its name is the relation's relfilenode (any fork or
    /// segment). None for a file no catalog row claims, or no relation file at all.
    pub fn claims<'p>(&self, paths: impl IntoIterator<Item = &'p str>) -> Vec<Option<usize>> {
        let mut by_file: BTreeMap<(String, u32), usize> = BTreeMap::new();
        for (i, r) in self.relations.iter().enumerate() {
            let rel = &r.relation;
            if let Some(dir) = self.directory(rel.tablespace_oid, rel.database_oid) {
                by_file.entry((dir, rel.relfilenode)).or_insert(i);
            }
        }
        paths
            .into_iter()
            .map(|p| {
                let (dir, name) = p.rsplit_once('/')?;
                let f = parse_relation_file_name(name)?;
                by_file.get(&(String::from(dir), f.relfilenode)).copied()
            })
            .collect()
    }

    /// For each relation, the one it is listed under: an index under its table (pg_index),
    /// a TOAST table under the table whose reltoastrelid it is (so the TOAST index comes
    /// under the TOAST table). None for a table, sequence or materialized view.
    pub fn parents(&self) -> Vec<Option<usize>> {
        let mut by_oid: BTreeMap<(u32, u32), usize> = BTreeMap::new();
        let mut by_toast: BTreeMap<(u32, u32, u32), usize> = BTreeMap::new();
        for (i, r) in self.relations.iter().enumerate() {
            let rel = &r.relation;
            by_oid.entry((rel.database_oid, rel.oid)).or_insert(i);
            if let Some(t) = rel.toast_relfilenode {
                // A TOAST table is made in its table's tablespace and moves with it.
                by_toast
                    .entry((rel.database_oid, rel.tablespace_oid, t))
                    .or_insert(i);
            }
        }
        self.relations
            .iter()
            .map(|r| {
                let rel = &r.relation;
                match (r.index_of, rel.relkind) {
                    (Some(table), _) => by_oid.get(&(rel.database_oid, table)).copied(),
                    (None, 't') => by_toast
                        .get(&(rel.database_oid, rel.tablespace_oid, rel.relfilenode))
                        .copied(),
                    _ => None,
                }
            })
            .collect()
    }
}

/// One database's catalogs as they are read.
#[derive(Default)]
struct DatabaseState {
    map: Option<RelMap>,
    classes: Option<Vec<ClassRow>>,
    namespaces: Option<Vec<OidName>>,
    ams: Option<Vec<OidName>>,
    indexes: Option<Vec<IndexRow>>,
    /// With `read_index_keys`.
    attributes: Option<Vec<AttributeRow>>,
    /// With `read_index_keys`.
    opclasses: Option<Vec<OpclassRow>>,
}

impl DatabaseState {
    /// The file number of one of the database's catalogs: pg_class's relfilenode, or for a
    /// mapped catalog (relfilenode 0) pg_filenode.map's.
    fn file_node(&self, catalog: Catalog) -> Option<u32> {
        self.classes
            .iter()
            .flatten()
            .find(|c| c.oid == catalog.oid())
            .map(|c| c.relfilenode)
            .filter(|n| *n != 0)
            .or_else(|| self.map.as_ref()?.filenumber(catalog.oid()))
    }
}

/// The reader (see the module's doc).
pub struct CatalogReader {
    with: ReadWith,
    /// How paths are shown in messages (the data directory's name and a `/`).
    shown: String,
    paths: BTreeSet<String>,
    files: BTreeMap<String, Option<Vec<u8>>>,
    log: Option<TransactionLog>,
    shared: Option<RelMap>,
    databases: Option<Vec<DatabaseRow>>,
    states: BTreeMap<u32, DatabaseState>,
    tablespaces: BTreeMap<u32, String>,
    damage: Vec<String>,
    /// Also read each database's pg_attribute, for `CatalogListing::index_keys`.
    index_keys: bool,
}

fn is_slru(path: &str) -> Option<(SlruKind, u32)> {
    let (dir, name) = path.rsplit_once('/')?;
    let kind = match dir {
        "pg_xact" => SlruKind::Xact,
        "pg_multixact/offsets" => SlruKind::MultiXactOffsets,
        "pg_multixact/members" => SlruKind::MultiXactMembers,
        _ => return None,
    };
    Some((kind, slru_segment_number(name)?))
}

/// The directory of a database's files in a tablespace; `tablespaces` as
/// `CatalogListing::tablespaces`.
pub fn relation_directory(
    tablespaces: &BTreeMap<u32, String>,
    tablespace: u32,
    database: u32,
) -> Option<String> {
    match tablespace {
        GLOBALTABLESPACE_OID => Some(String::from("global")),
        DEFAULTTABLESPACE_OID => Some(format!("base/{database}")),
        t => tablespaces.get(&t).map(|d| format!("{d}/{database}")),
    }
}

/// The files of a relation's main fork in `dir`, segment 0 first, as `paths` has them.
pub fn relation_segments(paths: &BTreeSet<String>, dir: &str, relfilenode: u32) -> Vec<String> {
    let mut segs: Vec<(u32, String)> = paths
        .range(format!("{dir}/{relfilenode}")..)
        .take_while(|p| p.starts_with(&format!("{dir}/{relfilenode}")))
        .filter_map(|p| {
            let name = p.rsplit('/').next()?;
            let f = parse_relation_file_name(name)?;
            (f.relfilenode == relfilenode && f.fork == crate::page::kind::Fork::Main)
                .then(|| (f.segno, p.clone()))
        })
        .collect();
    segs.sort();
    segs.into_iter().map(|(_, p)| p).collect()
}

impl CatalogReader {
    /// `paths`: every file of the data directory, relative to it, `/`-separated.
    pub fn new(paths: impl IntoIterator<Item = String>, with: ReadWith, shown: &str) -> Self {
        let paths: BTreeSet<String> = paths.into_iter().collect();
        let mut tablespaces = BTreeMap::new();
        for p in &paths {
            let mut parts = p.split('/');
            if let (Some("pg_tblspc"), Some(oid), Some(dir)) =
                (parts.next(), parts.next(), parts.next())
            {
                // A link's target holds one PG_MAJOR_CATVERSION directory per server version
                // that used it; ours is the one of our major version.
                if tablespace_dir_version(dir) == Some(with.major) {
                    if let Ok(oid) = oid.parse::<u32>() {
                        tablespaces.insert(oid, format!("pg_tblspc/{oid}/{dir}"));
                    }
                }
            }
        }
        CatalogReader {
            with,
            shown: String::from(shown),
            paths,
            files: BTreeMap::new(),
            log: None,
            shared: None,
            databases: None,
            states: BTreeMap::new(),
            tablespaces,
            damage: Vec::new(),
            index_keys: false,
        }
    }

    /// Also reads each database's pg_attribute, so the listing has every B-tree and GIN
    /// index's key columns (what verify's structural checks order items by).
    pub fn read_index_keys(&mut self) {
        self.index_keys = true;
    }

    /// Gives the bytes of a path `wanted` asked for; None when it could not be read (named
    /// by the caller; the reader goes on without it).
    pub fn give(&mut self, path: &str, bytes: Option<Vec<u8>>) {
        self.files.insert(String::from(path), bytes);
    }

    /// The directory of a database's files in a tablespace.
    pub fn directory(&self, tablespace: u32, database: u32) -> Option<String> {
        relation_directory(&self.tablespaces, tablespace, database)
    }

    fn segments(&self, dir: &str, relfilenode: u32) -> Vec<String> {
        relation_segments(&self.paths, dir, relfilenode)
    }

    /// The segments of each of `nodes`' files that the directory holds.
    fn segments_of(&self, dir: &str, nodes: &[Option<u32>]) -> Vec<String> {
        nodes
            .iter()
            .flatten()
            .flat_map(|n| self.segments(dir, *n))
            .collect()
    }

    /// Paths of `want` not given yet.
    fn missing(&self, want: &[String]) -> Vec<String> {
        want.iter()
            .filter(|p| !self.files.contains_key(*p))
            .cloned()
            .collect()
    }

    /// The next files to give; empty when the reader has all it needs.
    pub fn wanted(&mut self) -> Vec<String> {
        if self.log.is_none() {
            let slru: Vec<String> = self
                .paths
                .iter()
                .filter(|p| is_slru(p).is_some())
                .cloned()
                .collect();
            let missing = self.missing(&slru);
            if !missing.is_empty() {
                return missing;
            }
            self.build_log(&slru);
        }
        if self.shared.is_none() {
            let map = String::from("global/pg_filenode.map");
            let missing = self.missing(core::slice::from_ref(&map));
            if !missing.is_empty() && self.paths.contains(&map) {
                return missing;
            }
            self.shared = Some(self.relmap("global"));
        }
        if self.databases.is_none() {
            let node = self
                .shared
                .as_ref()
                .and_then(|m| m.filenumber(Catalog::PgDatabase.oid()));
            let want = node.map(|n| self.segments("global", n)).unwrap_or_default();
            let missing = self.missing(&want);
            if !missing.is_empty() {
                return missing;
            }
            let rows = self.read("global", node, Catalog::PgDatabase, |f, with, log, p| {
                database_rows(f, with.major, log, p)
            });
            for db in &rows {
                if db.dattablespace != DEFAULTTABLESPACE_OID
                    && !self.tablespaces.contains_key(&db.dattablespace)
                {
                    self.damage.push(format!(
                        "database \"{}\" is in tablespace {}, which has no directory under pg_tblspc: its relations are not listed",
                        db.datname, db.dattablespace
                    ));
                }
            }
            self.databases = Some(rows);
        }
        let dbs: Vec<(u32, String)> = self
            .databases
            .iter()
            .flatten()
            .filter_map(|d| Some((d.oid, self.directory(d.dattablespace, d.oid)?)))
            .filter(|(_, dir)| {
                let prefix = format!("{dir}/");
                self.paths
                    .range(prefix.clone()..)
                    .next()
                    .is_some_and(|p| p.starts_with(&prefix))
            })
            .collect();
        let mut want = Vec::new();
        for (oid, dir) in &dbs {
            want.extend(self.database_step(*oid, dir));
        }
        want
    }

    /// One database's next files, or its catalogs read when they are there.
    fn database_step(&mut self, oid: u32, dir: &str) -> Vec<String> {
        let state = self.states.entry(oid).or_default();
        if state.map.is_none() {
            let map = format!("{dir}/pg_filenode.map");
            if self.paths.contains(&map) && !self.files.contains_key(&map) {
                return alloc::vec![map];
            }
            let m = self.relmap(dir);
            self.states.entry(oid).or_default().map = Some(m);
        }
        let state = self.states.entry(oid).or_default();
        if state.classes.is_none() {
            let node = state
                .map
                .as_ref()
                .and_then(|m| m.filenumber(Catalog::PgClass.oid()));
            let want = node.map(|n| self.segments(dir, n)).unwrap_or_default();
            let missing = self.missing(&want);
            if !missing.is_empty() {
                return missing;
            }
            let rows = self.read(dir, node, Catalog::PgClass, |f, with, log, p| {
                class_rows(f, with.major, log, p)
            });
            self.states.entry(oid).or_default().classes = Some(rows);
        }
        let state = self.states.entry(oid).or_default();
        if state.namespaces.is_some() {
            return self.attributes_step(oid, dir);
        }
        // pg_namespace and pg_am are not mapped: pg_class names their files (VACUUM FULL
        // of either gives them a new one).
        let (nsp, am, index) = (
            state.file_node(Catalog::PgNamespace),
            state.file_node(Catalog::PgAm),
            state.file_node(Catalog::PgIndex),
        );
        let want = self.segments_of(dir, &[nsp, am, index]);
        let missing = self.missing(&want);
        if !missing.is_empty() {
            return missing;
        }
        let namespaces = self.read(dir, nsp, Catalog::PgNamespace, |f, with, log, p| {
            oid_name_rows(f, Catalog::PgNamespace, "nspname", with.major, log, p)
        });
        let ams = self.read(dir, am, Catalog::PgAm, |f, with, log, p| {
            oid_name_rows(f, Catalog::PgAm, "amname", with.major, log, p)
        });
        // Which table an index is of names the listing's tree only: without pg_index the
        // relations are still named.
        let indexes = self.read(dir, index, Catalog::PgIndex, |f, with, log, p| {
            index_rows(f, with.major, log, p)
        });
        let state = self.states.entry(oid).or_default();
        state.namespaces = Some(namespaces);
        state.ams = Some(ams);
        state.indexes = Some(indexes);
        self.attributes_step(oid, dir)
    }

    /// With `read_index_keys`: one database's pg_attribute (a mapped catalog) and pg_opclass
    /// (not mapped: pg_class names its file).
    fn attributes_step(&mut self, oid: u32, dir: &str) -> Vec<String> {
        let state = self.states.entry(oid).or_default();
        if !self.index_keys || state.attributes.is_some() {
            return Vec::new();
        }
        let (attribute, opclass) = (
            state.file_node(Catalog::PgAttribute),
            state.file_node(Catalog::PgOpclass),
        );
        let want = self.segments_of(dir, &[attribute, opclass]);
        let missing = self.missing(&want);
        if !missing.is_empty() {
            return missing;
        }
        let rows = self.read(dir, attribute, Catalog::PgAttribute, |f, with, log, p| {
            attribute_rows(f, with.major, log, p)
        });
        let opclasses = self.read(dir, opclass, Catalog::PgOpclass, |f, with, log, p| {
            opclass_rows(f, with.major, log, p)
        });
        let state = self.states.entry(oid).or_default();
        state.attributes = Some(rows);
        state.opclasses = Some(opclasses);
        Vec::new()
    }

    fn build_log(&mut self, slru: &[String]) {
        let mut log = TransactionLog::new(self.with.block_size.len(), self.with.endian);
        log.set_major(self.with.major);
        if let Some((multi, offset)) = self.with.next_multi {
            log.set_next_multi(multi, offset);
        }
        if !slru.iter().any(|p| p.starts_with("pg_xact/")) {
            self.damage.push(format!(
                "no segment of \"{}pg_xact\": the status of transactions without hint bits is unknown",
                self.shown
            ));
        }
        for p in slru {
            if let (Some((kind, segno)), Some(Some(bytes))) = (is_slru(p), self.files.remove(p)) {
                log.add_segment(kind, segno, bytes);
            }
        }
        self.log = Some(log);
    }

    /// A pg_filenode.map, its findings named.
    fn relmap(&mut self, dir: &str) -> RelMap {
        let path = format!("{dir}/pg_filenode.map");
        let shown = format!("{}{path}", self.shown);
        match self.files.remove(&path).flatten() {
            Some(bytes) => {
                let map = read_relmap(&bytes, self.with.major, self.with.endian);
                let size = super::relmap::relmap_file_size(self.with.major);
                for f in &map.findings {
                    let words = match f {
                        Finding::RelMapWrongSize => format!(
                            "could not read file \"{shown}\": read {} of {size}",
                            bytes.len()
                        ),
                        _ => f.message().replace("\"%s\"", &format!("\"{shown}\"")),
                    };
                    self.damage.push(format!("{words} ({})", f.code()));
                }
                map
            }
            None => {
                self.damage.push(format!(
                    "could not read file \"{shown}\": mapped catalogs cannot be found"
                ));
                RelMap::default()
            }
        }
    }

    /// Reads a catalog from its segments (given), naming what goes wrong.
    fn read<T>(
        &mut self,
        dir: &str,
        relfilenode: Option<u32>,
        catalog: Catalog,
        read: impl Fn(&CatalogFile, &ReadWith, &TransactionLog, &mut Vec<CatalogProblem>) -> Vec<T>,
    ) -> Vec<T> {
        let Some(node) = relfilenode else {
            self.damage.push(format!(
                "\"{}{dir}\": no file for {} (neither pg_filenode.map nor pg_class names one): its rows are left out",
                self.shown,
                catalog.name()
            ));
            return Vec::new();
        };
        let segs = self.segments(dir, node);
        let file = format!("{}{dir}/{node}", self.shown);
        if segs.first().map(String::as_str) != Some(&format!("{dir}/{node}")) {
            self.damage.push(format!(
                "could not open file \"{file}\": no such file: the rows of {} are left out",
                catalog.name()
            ));
            return Vec::new();
        }
        let mut bytes = Vec::new();
        let mut segments = Vec::new();
        let bs = self.with.block_size.len();
        for s in &segs {
            match self.files.remove(s).flatten() {
                Some(b) => {
                    let blocks = u32::try_from(b.len().checked_div(bs).unwrap_or(0));
                    segments.push((format!("{}{s}", self.shown), blocks.unwrap_or(u32::MAX)));
                    bytes.extend_from_slice(&b);
                }
                None => {
                    self.damage.push(format!(
                        "could not read file \"{}{s}\": the rows of {} from it on are left out",
                        self.shown,
                        catalog.name()
                    ));
                    break;
                }
            }
        }
        let f = CatalogFile {
            bytes: &bytes,
            block_size: self.with.block_size,
            endian: self.with.endian,
            checksums: self.with.checksums,
        };
        let mut problems = Vec::new();
        let empty = TransactionLog::new(self.with.block_size.len(), self.with.endian);
        let log = self.log.as_ref().unwrap_or(&empty);
        let rows = read(&f, &self.with, log, &mut problems);
        for p in &problems {
            self.damage.push(p.describe_in(&segments));
        }
        rows
    }

    /// The relations named, each database's once and shared catalogs once (database 0).
    pub fn finish(mut self) -> CatalogListing {
        let shared = self.shared.take().unwrap_or_default();
        let databases = self.databases.take().unwrap_or_default();
        let mut relations = Vec::new();
        let mut index_keys = BTreeMap::new();
        let mut index_key_output_map = BTreeMap::new();
        let mut heap_keys_map = BTreeMap::new();
        let mut unique_indexes = BTreeMap::new();
        let mut row_keys: BTreeMap<(u32, u32), (bool, Vec<i16>)> = BTreeMap::new();
        let mut shared_seen = BTreeSet::new();
        for db in &databases {
            let Some(state) = self.states.get(&db.oid) else {
                continue;
            };
            let empty = Vec::new();
            let (relations_of, unmapped) = database_relations(
                db.oid,
                db.dattablespace,
                state.classes.as_ref().unwrap_or(&empty),
                state.namespaces.as_deref().unwrap_or_default(),
                state.ams.as_deref().unwrap_or_default(),
                state.map.as_ref().unwrap_or(&RelMap::default()),
                &shared,
            );
            for u in unmapped {
                self.damage.push(format!(
                    "database \"{}\": relation \"{}\" (oid {}) is mapped but no pg_filenode.map names its file",
                    db.datname, u.name, u.oid
                ));
            }
            let index_of: BTreeMap<u32, u32> = state
                .indexes
                .iter()
                .flatten()
                .map(|i| (i.indexrelid, i.indrelid))
                .collect();
            unique_indexes.extend(
                state
                    .indexes
                    .iter()
                    .flatten()
                    .filter(|i| i.indisunique)
                    .map(|i| ((db.oid, i.indexrelid), i.indisprimary)),
            );
            for i in state.indexes.iter().flatten() {
                let keys: Vec<i16> = i
                    .indkey
                    .iter()
                    .copied()
                    .take(usize::try_from(i.indnkeyatts).unwrap_or(0))
                    .collect();
                let plain = !keys.is_empty() && keys.iter().all(|&k| k > 0);
                if !i.indisunique || i.partial || !plain {
                    continue;
                }
                let slot = row_keys.entry((db.oid, i.indrelid));
                match slot {
                    alloc::collections::btree_map::Entry::Vacant(v) => {
                        v.insert((i.indisprimary, keys));
                    }
                    alloc::collections::btree_map::Entry::Occupied(mut o) => {
                        if i.indisprimary && !o.get().0 {
                            o.insert((true, keys));
                        }
                    }
                }
            }
            if let Some(attributes) = &state.attributes {
                let mut of: BTreeMap<u32, Vec<&AttributeRow>> = BTreeMap::new();
                let tables: BTreeSet<u32> = index_of.values().copied().collect();
                for a in attributes
                    .iter()
                    .filter(|a| index_of.contains_key(&a.attrelid) || tables.contains(&a.attrelid))
                {
                    of.entry(a.attrelid).or_default().push(a);
                }
                for i in state.indexes.iter().flatten() {
                    let atts = of.get(&i.indexrelid).map(Vec::as_slice).unwrap_or_default();
                    let keys = index_key_columns(
                        i,
                        atts,
                        db.collate_is_c,
                        state.opclasses.as_deref().unwrap_or_default(),
                    );
                    index_keys.insert((db.oid, i.indexrelid), keys);
                    if let Some(out) = index_key_output(i, atts) {
                        let table = of.get(&i.indrelid).map(Vec::as_slice).unwrap_or_default();
                        if let Some(h) = heap_keys(i, table, &out, self.with.endian) {
                            heap_keys_map.insert((db.oid, i.indexrelid), h);
                        }
                        index_key_output_map.insert((db.oid, i.indexrelid), out);
                    }
                }
            }
            for r in relations_of {
                let index_of = index_of.get(&r.oid).copied();
                if r.database_oid == 0 {
                    if shared_seen.insert(r.oid) {
                        relations.push(ListedRelation {
                            database: None,
                            relation: r,
                            index_of,
                        });
                    }
                } else {
                    relations.push(ListedRelation {
                        database: Some(db.datname.to_string()),
                        relation: r,
                        index_of,
                    });
                }
            }
        }
        CatalogListing {
            relations,
            databases,
            tablespaces: self.tablespaces,
            damage: self.damage,
            log: self.log,
            maps: self
                .states
                .into_iter()
                .filter_map(|(db, state)| Some((db, state.map?)))
                .collect(),
            index_keys,
            index_key_output: index_key_output_map,
            unique_indexes,
            row_keys: row_keys.into_iter().map(|(k, (_, v))| (k, v)).collect(),
            heap_keys: heap_keys_map,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn listed(database_oid: u32, tablespace_oid: u32, relfilenode: u32) -> ListedRelation {
        ListedRelation {
            database: None,
            relation: NamedRelation {
                database_oid,
                tablespace_oid,
                relfilenode,
                oid: relfilenode,
                schema: None,
                name: String::from("r"),
                relkind: 'r',
                relpersistence: 'p',
                am: None,
                toast_relfilenode: None,
                relnatts: 0,
                relfrozenxid: 0,
                relminmxid: 0,
            },
            index_of: None,
        }
    }

    #[test]
    fn indexes_and_toast_are_listed_under_their_tables() {
        let mut table = listed(5, 1663, 16384);
        table.relation.toast_relfilenode = Some(16387);
        let mut toast = listed(5, 1663, 16387);
        toast.relation.relkind = 't';
        let mut toast_index = listed(5, 1663, 16389);
        toast_index.index_of = Some(16387);
        let mut index = listed(5, 1663, 16390);
        index.index_of = Some(16384);
        // The same relfilenode as the TOAST table, in another database.
        let mut elsewhere = listed(4, 1663, 16387);
        elsewhere.relation.relkind = 't';
        let listing = CatalogListing {
            relations: vec![table, toast, toast_index, index, elsewhere],
            ..CatalogListing::default()
        };
        assert_eq!(listing.parents(), [None, Some(0), Some(1), Some(0), None]);
    }

    #[test]
    fn paths_are_claimed_by_directory_and_relfilenode() {
        let mut tablespaces = BTreeMap::new();
        tablespaces.insert(16500, String::from("pg_tblspc/16500/PG_16_202307071"));
        let listing = CatalogListing {
            relations: vec![
                listed(5, 1663, 16384),
                listed(0, 1664, 1262),
                listed(5, 16500, 16390),
            ],
            tablespaces,
            ..CatalogListing::default()
        };
        let claims = listing.claims([
            "base/5/16384",
            "base/5/16384_fsm",
            "base/5/16384.1",
            "base/1/16384",
            "global/1262",
            "base/5/1262",
            "pg_tblspc/16500/PG_16_202307071/5/16390_vm",
            "base/5/16391",
            "pg_xact/0000",
            "base/5/pg_filenode.map",
        ]);
        assert_eq!(
            claims,
            [
                Some(0),
                Some(0),
                Some(0),
                None,
                Some(1),
                None,
                Some(2),
                None,
                None,
                None
            ]
        );
    }
}
