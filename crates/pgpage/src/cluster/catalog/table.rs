//! One table found in the catalogs for its rows: a name read as SQL reads it, the database,
//! the pg_class row (views, indexes and partitioned tables refused in words), its columns,
//! its TOAST relation, and the files of both. Pure functions the CLI calls with bytes read
//! from disk, and `TableReader`, which asks for the files it needs as `CatalogReader` does.

use alloc::borrow::ToOwned;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::columns::{table_columns, TypeCatalogs};
use super::layout::Catalog;
use super::read::{
    attribute_rows, class_rows, enum_rows, oid_name_rows, range_rows, type_rows, CatalogFile,
    CatalogProblem, ClassRow, DatabaseRow, OidName,
};
use super::reader::{
    relation_directory, relation_segments, CatalogListing, CatalogReader, ReadWith,
};
use crate::cluster::rows::Column;
use crate::file::scan::ChecksumsKnown;
use crate::tuple::visibility::TransactionLog;

/// A relation name as SQL reads it: unquoted parts folded to lower case, `"..."` parts
/// kept as written (`""` a quote), parts split at dots outside quotes. One part is in
/// schema public. Returns (schema, name).
pub fn parse_relation_name(text: &str) -> Result<(String, String), String> {
    let bad = |why: &str| format!("invalid relation name \"{text}\": {why}");
    let mut parts = alloc::vec![String::new()];
    let mut quoted = alloc::vec![false];
    let mut chars = text.trim().chars().peekable();
    while let Some(c) = chars.next() {
        let (Some(part), Some(q)) = (parts.last_mut(), quoted.last_mut()) else {
            break;
        };
        match c {
            '"' => {
                if !part.is_empty() || *q {
                    return Err(bad("a quote in the middle of a name"));
                }
                *q = true;
                loop {
                    match chars.next() {
                        Some('"') if chars.peek() == Some(&'"') => {
                            chars.next();
                            part.push('"');
                        }
                        Some('"') => break,
                        Some(c) => part.push(c),
                        None => return Err(bad("an unterminated quoted name")),
                    }
                }
                if part.is_empty() {
                    return Err(bad("a zero-length quoted name"));
                }
            }
            '.' => {
                if part.is_empty() {
                    return Err(bad("an empty name"));
                }
                parts.push(String::new());
                quoted.push(false);
            }
            c if *q => return Err(bad(&format!("'{c}' after a quoted name"))),
            c if c.is_whitespace() => return Err(bad("a space outside quotes")),
            c => part.push(c.to_ascii_lowercase()),
        }
    }
    match <[String; 2]>::try_from(parts.clone()) {
        Ok([schema, name]) if !name.is_empty() => Ok((schema, name)),
        _ => match <[String; 1]>::try_from(parts) {
            Ok([name]) if !name.is_empty() => Ok((String::from("public"), name)),
            _ => Err(bad("expected schema.name or name")),
        },
    }
}

/// quote_ident: a name as SQL would need it written.
pub fn quote_ident(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if plain {
        name.to_owned()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

/// The database named `wanted`, or the only one that is not a template or postgres.
pub fn choose_database<'a>(
    databases: &'a [DatabaseRow],
    wanted: Option<&str>,
) -> Result<&'a DatabaseRow, String> {
    let all = || {
        databases
            .iter()
            .map(|d| d.datname.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(name) = wanted {
        return databases.iter().find(|d| d.datname == name).ok_or_else(|| {
            format!(
                "database \"{name}\" does not exist; the databases are: {}",
                all()
            )
        });
    }
    let mut user = databases
        .iter()
        .filter(|d| !d.datistemplate && d.datname != "postgres");
    match (user.next(), user.next()) {
        (Some(d), None) => Ok(d),
        _ => Err(format!(
            "which database? give --database, one of: {}",
            all()
        )),
    }
}

/// The pg_class row of `schema.name`, refused in words when it is not a relation with heap
/// rows (a view, an index, a partitioned table, ...). `datname` for the message.
pub fn find_class<'a>(
    classes: &'a [ClassRow],
    namespaces: &[OidName],
    schema: &str,
    name: &str,
    datname: &str,
) -> Result<&'a ClassRow, String> {
    let shown = format!("{}.{}", quote_ident(schema), quote_ident(name));
    let class = namespaces
        .iter()
        .find(|n| n.name == schema)
        .and_then(|n| {
            classes
                .iter()
                .find(|c| c.relnamespace == n.oid && c.relname == name)
        })
        .ok_or_else(|| format!("relation {shown} does not exist in database \"{datname}\""))?;
    with_heap_rows(class, &shown)
}

/// `class` when it has heap rows, else why not in words; `shown` its name for the message.
fn with_heap_rows<'a>(class: &'a ClassRow, shown: &str) -> Result<&'a ClassRow, String> {
    let kind = match class.relkind {
        b'r' | b'm' | b't' => return Ok(class),
        b'v' => "a view",
        b'c' => "a composite type",
        b'f' => "a foreign table",
        b'p' => "a partitioned table (its rows are in its partitions)",
        b'i' | b'I' => "an index",
        b'S' => "a sequence",
        _ => "not a table",
    };
    Err(format!(
        "relation {shown} is {kind}: it has no heap rows to print"
    ))
}

/// The TOAST relation of `class`: its oid and its name (pg_toast_OID when pg_class lost it).
pub fn toast_of(class: &ClassRow, classes: &[ClassRow]) -> Option<(u32, String)> {
    match class.reltoastrelid {
        0 => None,
        toast => Some((
            toast,
            classes
                .iter()
                .find(|c| c.oid == toast)
                .map_or_else(|| format!("pg_toast_{}", class.oid), |c| c.relname.clone()),
        )),
    }
}

/// A table ready for its rows to be read.
#[derive(Clone, Debug)]
pub struct Table {
    /// `schema.name` as SQL would write it.
    pub shown: String,
    /// Its database's name.
    pub database: String,
    pub oid: u32,
    pub columns: Vec<Column>,
    /// The main fork's segments, relative to the data directory, segment 0 first.
    pub paths: Vec<String>,
    pub toast_paths: Vec<String>,
    /// The TOAST relation's name, for the server's messages about missing chunks.
    pub toast_name: String,
    pub log: TransactionLog,
    pub checksums: ChecksumsKnown,
    pub with: ReadWith,
    /// What could not be read on the way (catalog pages, files), one line each.
    pub damage: Vec<String>,
    /// The attribute numbers of the columns that name one row (`CatalogListing::row_keys`);
    /// None when the table has no such index or pg_index could not say.
    pub row_key: Option<Vec<i16>>,
}

/// Why a table cannot be read, and what could not be read on the way to that answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    pub reason: String,
    pub damage: Vec<String>,
}

/// The catalogs a table's columns come from, besides pg_class and pg_namespace.
const COLUMN_CATALOGS: [Catalog; 6] = [
    Catalog::PgClass,
    Catalog::PgNamespace,
    Catalog::PgAttribute,
    Catalog::PgType,
    Catalog::PgEnum,
    Catalog::PgRange,
];

/// Which table a `TableReader` looks for.
enum Target {
    /// `relation` as `parse_relation_name` reads it, in `database` (None: the only user
    /// database).
    Named {
        database: Option<String>,
        relation: String,
    },
    /// The relation whose file is `relfilenode` in database `database` (an oid), as a
    /// relation file's path names them: found in the listing the catalogs' reader makes
    /// anyway, so the catalogs are read once.
    File { database: u32, relfilenode: u32 },
}

/// A table found in a data directory told as paths and given as bytes (see the module's
/// doc): first what `CatalogReader` asks for (pg_xact, the maps, pg_database, pg_class),
/// then the database's pg_attribute, pg_type, pg_enum and pg_range.
pub struct TableReader {
    paths: BTreeSet<String>,
    with: ReadWith,
    checksums: ChecksumsKnown,
    target: Target,
    /// How paths are shown in messages (the data directory's name and a `/`).
    shown: String,
    reader: Option<CatalogReader>,
    log: Option<TransactionLog>,
    listing: Option<CatalogListing>,
    files: BTreeMap<String, Option<Vec<u8>>>,
}

impl TableReader {
    /// `paths` and `shown` as `CatalogReader::new` takes them; `database` None for the only
    /// user database; `relation` as `parse_relation_name` reads it.
    pub fn new(
        paths: Vec<String>,
        shown: &str,
        with: ReadWith,
        checksums: ChecksumsKnown,
        database: Option<String>,
        relation: String,
    ) -> TableReader {
        TableReader::with_target(
            paths,
            shown,
            with,
            checksums,
            Target::Named { database, relation },
        )
    }

    /// The table whose file is `relfilenode` in the database of oid `database` (a relation
    /// file's `base/DATABASE/RELFILENODE`); the rest as `new` takes it.
    pub fn by_file(
        paths: Vec<String>,
        shown: &str,
        with: ReadWith,
        checksums: ChecksumsKnown,
        database: u32,
        relfilenode: u32,
    ) -> TableReader {
        TableReader::with_target(
            paths,
            shown,
            with,
            checksums,
            Target::File {
                database,
                relfilenode,
            },
        )
    }

    fn with_target(
        paths: Vec<String>,
        shown: &str,
        with: ReadWith,
        checksums: ChecksumsKnown,
        target: Target,
    ) -> TableReader {
        TableReader {
            paths: paths.iter().cloned().collect(),
            with,
            checksums,
            target,
            shown: String::from(shown),
            reader: Some(CatalogReader::new(paths, with, shown)),
            log: None,
            listing: None,
            files: BTreeMap::new(),
        }
    }

    pub fn give(&mut self, path: &str, bytes: Option<Vec<u8>>) {
        match self.reader.as_mut() {
            Some(r) => r.give(path, bytes),
            None => {
                self.files.insert(String::from(path), bytes);
            }
        }
    }

    /// The paths to `give` next; empty when `finish` can be called.
    pub fn wanted(&mut self) -> Vec<String> {
        if let Some(r) = self.reader.as_mut() {
            let want = r.wanted();
            if !want.is_empty() {
                return want;
            }
            let mut listing = self.reader.take().map(CatalogReader::finish);
            self.log = listing.as_mut().and_then(|l| l.log.take());
            self.listing = listing;
        }
        let Ok(db) = self.database_oid() else {
            return Vec::new();
        };
        COLUMN_CATALOGS
            .iter()
            .flat_map(|c| self.catalog_paths(db, *c))
            .filter(|p| !self.files.contains_key(p))
            .collect()
    }

    fn database_oid(&self) -> Result<u32, String> {
        let listing = self
            .listing
            .as_ref()
            .ok_or_else(|| String::from("the catalogs have not been read yet"))?;
        match &self.target {
            Target::Named { database, .. } => {
                choose_database(&listing.databases, database.as_deref()).map(|d| d.oid)
            }
            Target::File { database, .. } => listing
                .databases
                .iter()
                .find(|d| d.oid == *database)
                .map(|d| d.oid)
                .ok_or_else(|| format!("no database of pg_database has oid {database}")),
        }
    }

    /// The listed relation of a `Target::File`: its pg_class oid.
    fn listed_by_file(&self, database: u32, relfilenode: u32) -> Result<u32, String> {
        self.listing
            .as_ref()
            .and_then(|l| {
                l.relations
                    .iter()
                    .map(|r| &r.relation)
                    .find(|r| r.relfilenode == relfilenode && r.database_oid == database)
            })
            .map(|r| r.oid)
            .ok_or_else(|| {
                format!("no relation of the catalogs has file {relfilenode} in database {database}")
            })
    }

    /// The segments of relation `oid` (pg_class.oid) of database `db`.
    fn relation_paths(&self, db: u32, oid: u32) -> Vec<String> {
        let Some(listing) = self.listing.as_ref() else {
            return Vec::new();
        };
        listing
            .relations
            .iter()
            .map(|r| &r.relation)
            .find(|r| r.oid == oid && (r.database_oid == db || r.database_oid == 0))
            .and_then(|r| {
                let dir = relation_directory(&listing.tablespaces, r.tablespace_oid, db)?;
                Some(relation_segments(&self.paths, &dir, r.relfilenode))
            })
            .unwrap_or_default()
    }

    fn catalog_paths(&self, db: u32, catalog: Catalog) -> Vec<String> {
        let paths = self.relation_paths(db, catalog.oid());
        if paths.is_empty() {
            return self.catalog_paths_unlisted(db, catalog).unwrap_or_default();
        }
        paths
    }

    /// A catalog's files when pg_class gave no row for it (its page damaged): a mapped
    /// catalog's file is the one pg_filenode.map names, another's is named by its oid, as
    /// initdb makes it (VACUUM FULL would have given it another, which only pg_class knows).
    fn catalog_paths_unlisted(&self, db: u32, catalog: Catalog) -> Option<Vec<String>> {
        let listing = self.listing.as_ref()?;
        let node = if catalog.is_mapped() {
            listing.maps.get(&db)?.filenumber(catalog.oid())?
        } else {
            catalog.oid()
        };
        let space = listing
            .databases
            .iter()
            .find(|d| d.oid == db)?
            .dattablespace;
        let dir = relation_directory(&listing.tablespaces, space, db)?;
        Some(relation_segments(&self.paths, &dir, node))
    }

    /// The catalog's bytes, its segments in order, naming what is missing; with each
    /// segment's path as shown and its length in blocks, for naming its problems.
    fn catalog_bytes(
        &mut self,
        db: u32,
        catalog: Catalog,
        damage: &mut Vec<String>,
    ) -> (Vec<u8>, Vec<(String, u32)>) {
        let paths = self.catalog_paths(db, catalog);
        if paths.is_empty() {
            damage.push(format!("no file for {}", catalog.name()));
        } else if self.relation_paths(db, catalog.oid()).is_empty() {
            let from = if catalog.is_mapped() {
                "as pg_filenode.map names it"
            } else {
                "by its oid, as initdb names it"
            };
            damage.push(format!(
                "pg_class gave no row for {} (a damaged page?): its file is taken {from}",
                catalog.name()
            ));
        }
        let mut bytes = Vec::new();
        let mut segments = Vec::new();
        let bs = self.with.block_size.len();
        for p in paths {
            match self.files.remove(&p).flatten() {
                Some(b) => {
                    let blocks = u32::try_from(b.len().checked_div(bs).unwrap_or(0));
                    segments.push((format!("{}{p}", self.shown), blocks.unwrap_or(u32::MAX)));
                    bytes.extend_from_slice(&b);
                }
                None => {
                    damage.push(format!(
                        "could not read file \"{}{p}\": the rows of {} from it on are left out",
                        self.shown,
                        catalog.name()
                    ));
                    break;
                }
            }
        }
        (bytes, segments)
    }

    /// The table, or why it cannot be read (no such relation, not a table, no columns),
    /// with what could not be read on the way either way.
    pub fn finish(self) -> Result<Table, Refused> {
        let mut damage = Vec::new();
        self.read(&mut damage)
            .map_err(|reason| Refused { reason, damage })
    }

    fn read(mut self, damage: &mut Vec<String>) -> Result<Table, String> {
        if let Some(l) = self.listing.as_ref() {
            damage.extend(l.damage.iter().cloned());
        }
        let db = self.database_oid()?;
        // By name, or by the pg_class oid the listing gives the file's relation.
        enum Wanted {
            Name(String, String),
            Oid(u32),
        }
        let wanted = match &self.target {
            Target::Named { relation, .. } => {
                let (schema, name) = parse_relation_name(relation)?;
                Wanted::Name(schema, name)
            }
            Target::File {
                database,
                relfilenode,
            } => Wanted::Oid(self.listed_by_file(*database, *relfilenode)?),
        };
        let datname = self
            .listing
            .as_ref()
            .and_then(|l| l.databases.iter().find(|d| d.oid == db))
            .map(|d| d.datname.clone())
            .unwrap_or_default();
        let log = self
            .log
            .take()
            .unwrap_or_else(|| TransactionLog::new(self.with.block_size.len(), self.with.endian));
        let (major, with) = (self.with.major, self.with);
        fn file(bytes: &[u8], with: ReadWith) -> CatalogFile<'_> {
            CatalogFile {
                bytes,
                block_size: with.block_size,
                endian: with.endian,
                checksums: with.checksums,
            }
        }
        // Each catalog's problems named in its own files; a line the listing gave already
        // (pg_class and pg_namespace are read by both) is not repeated.
        let mut problems: Vec<CatalogProblem> = Vec::new();
        fn named(
            problems: &mut Vec<CatalogProblem>,
            segments: &[(String, u32)],
            damage: &mut Vec<String>,
        ) {
            for p in problems.drain(..) {
                let line = p.describe_in(segments);
                if !damage.contains(&line) {
                    damage.push(line);
                }
            }
        }
        let (b, segs) = self.catalog_bytes(db, Catalog::PgClass, damage);
        let classes = class_rows(&file(&b, with), major, &log, &mut problems);
        named(&mut problems, &segs, damage);
        let (b, segs) = self.catalog_bytes(db, Catalog::PgNamespace, damage);
        let namespaces = oid_name_rows(
            &file(&b, with),
            Catalog::PgNamespace,
            "nspname",
            major,
            &log,
            &mut problems,
        );
        named(&mut problems, &segs, damage);
        let (b, segs) = self.catalog_bytes(db, Catalog::PgAttribute, damage);
        let attributes = attribute_rows(&file(&b, with), major, &log, &mut problems);
        named(&mut problems, &segs, damage);
        let (b, segs) = self.catalog_bytes(db, Catalog::PgType, damage);
        let types = type_rows(&file(&b, with), major, &log, &mut problems);
        named(&mut problems, &segs, damage);
        let (b, segs) = self.catalog_bytes(db, Catalog::PgEnum, damage);
        let enums = enum_rows(&file(&b, with), major, &log, &mut problems);
        named(&mut problems, &segs, damage);
        let (b, segs) = self.catalog_bytes(db, Catalog::PgRange, damage);
        let ranges = range_rows(&file(&b, with), major, &log, &mut problems);
        named(&mut problems, &segs, damage);
        let (class, shown) = match wanted {
            Wanted::Name(schema, name) => (
                find_class(&classes, &namespaces, &schema, &name, &datname)?,
                format!("{}.{}", quote_ident(&schema), quote_ident(&name)),
            ),
            Wanted::Oid(oid) => {
                let class = classes.iter().find(|c| c.oid == oid).ok_or_else(|| {
                    format!("pg_class of database \"{datname}\" has no row of oid {oid}")
                })?;
                // A schema pg_namespace lost is named by its oid, as the server's regnamespace prints it.
                let schema = namespaces
                    .iter()
                    .find(|n| n.oid == class.relnamespace)
                    .map_or_else(
                        || format!("{}", class.relnamespace),
                        |n| quote_ident(&n.name),
                    );
                let shown = format!("{schema}.{}", quote_ident(&class.relname));
                (with_heap_rows(class, &shown)?, shown)
            }
        };
        let catalogs = TypeCatalogs {
            types: &types,
            attributes: &attributes,
            enums: &enums,
            ranges: &ranges,
        };
        let columns = table_columns(class.oid, catalogs, with.endian);
        // A pg_attribute page left out for damage may have held some of the columns: printing
        // rows with the others would print every value after a gap under the wrong column.
        if columns.len() != usize::try_from(class.relnatts).unwrap_or(0) {
            return Err(format!(
                "relation {shown}: pg_attribute has {} of its {} columns (see the damage named above): its rows cannot be split by the catalogs; give its columns' types in order instead (pgpage rows --types int4,text,... with the table's files, or the type list of the browser's rows panel)",
                columns.len(),
                class.relnatts
            ));
        }
        let paths = self.relation_paths(db, class.oid);
        if paths.is_empty() {
            return Err(format!(
                "relation {shown}: its files are not in the data directory"
            ));
        }
        let (toast_paths, toast_name) = match toast_of(class, &classes) {
            None => (Vec::new(), String::new()),
            Some((oid, toast_name)) => {
                let p = self.relation_paths(db, oid);
                if p.is_empty() {
                    damage.push(format!(
                        "relation {shown}: the files of its TOAST relation {toast_name} are not in the data directory"
                    ));
                }
                (p, toast_name)
            }
        };
        Ok(Table {
            shown,
            database: datname,
            oid: class.oid,
            columns,
            paths,
            toast_paths,
            toast_name,
            log,
            checksums: self.checksums,
            with,
            damage: core::mem::take(damage),
            row_key: self
                .listing
                .as_ref()
                .and_then(|l| l.row_keys.get(&(db, class.oid)).cloned()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_database_is_the_only_users_one() {
        let db = |oid, name: &str, template| DatabaseRow {
            oid,
            datname: name.to_owned(),
            dattablespace: 1663,
            datistemplate: template,
            collate_is_c: true,
        };
        let mut dbs = alloc::vec![
            db(1, "template1", true),
            db(4, "template0", true),
            db(5, "postgres", false),
            db(16384, "shop", false),
        ];
        assert_eq!(choose_database(&dbs, None).map(|d| d.oid), Ok(16384));
        assert_eq!(
            choose_database(&dbs, Some("postgres")).map(|d| d.oid),
            Ok(5)
        );
        dbs.push(db(16385, "other", false));
        let err = choose_database(&dbs, None).unwrap_err();
        assert!(
            err.contains("template1, template0, postgres, shop, other"),
            "{err}"
        );
        let err = choose_database(&dbs, Some("nope")).unwrap_err();
        assert!(err.starts_with("database \"nope\" does not exist"), "{err}");
    }

    #[test]
    fn relation_names_read_as_sql_reads_them() {
        let ok = |s: &str, schema: &str, name: &str| {
            assert_eq!(
                parse_relation_name(s),
                Ok((schema.to_owned(), name.to_owned())),
                "{s}"
            );
        };
        ok("Orders", "public", "orders");
        ok("Sales.Orders", "sales", "orders");
        ok("\"Odd Schema\".\"Mixed Case\"", "Odd Schema", "Mixed Case");
        ok("\"a.b\"", "public", "a.b");
        ok("\"say \"\"hi\"\"\"", "public", "say \"hi\"");
        for bad in ["", "a.b.c", "a.", ".a", "\"a", "\"\"", "a b", "\"a\"b"] {
            assert!(parse_relation_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn views_indexes_and_partitioned_tables_are_refused_in_words() {
        let class = |oid, name: &str, relkind| ClassRow {
            oid,
            relname: name.to_owned(),
            relnamespace: 2200,
            relam: 0,
            relfilenode: oid,
            reltablespace: 0,
            reltoastrelid: 0,
            relisshared: false,
            relpersistence: b'p',
            relkind,
            relnatts: 1,
            relfrozenxid: 0,
            relminmxid: 0,
        };
        let classes = [
            class(1, "t", b'r'),
            class(2, "v", b'v'),
            class(3, "i", b'i'),
            class(4, "p", b'p'),
        ];
        let nsp = [OidName {
            oid: 2200,
            name: "public".to_owned(),
        }];
        assert_eq!(
            find_class(&classes, &nsp, "public", "t", "d").unwrap().oid,
            1
        );
        for (name, word) in [
            ("v", "a view"),
            ("i", "an index"),
            ("p", "a partitioned table"),
        ] {
            let err = find_class(&classes, &nsp, "public", name, "d").unwrap_err();
            assert!(err.contains(word), "{err}");
        }
        let err = find_class(&classes, &nsp, "other", "t", "d").unwrap_err();
        assert_eq!(err, "relation other.t does not exist in database \"d\"");
    }
}
