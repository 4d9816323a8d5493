//! The columns of the catalogs pgpage reads, per PostgreSQL version 13 to 19, as each
//! version's src/include/catalog/pg_*.h declares them (FormData_pg_*: name, type, attlen,
//! attalign, attbyval, NOT NULL). One table per catalog; a column that changed or moved has
//! one row per shape, each with the versions it holds for.

use alloc::vec::Vec;

use serde::Serialize;

use crate::tuple::{Align, Attribute};

/// One column of a catalog: pg_attribute's attname, atttypid, attlen, attalign, attbyval and
/// attnotnull, for the versions `since..=until`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CatalogColumn {
    pub attname: &'static str,
    pub atttypid: u32,
    pub attlen: i16,
    pub attalign: u8,
    pub attbyval: bool,
    pub attnotnull: bool,
    pub since: u32,
    pub until: u32,
}

impl CatalogColumn {
    pub fn holds_for(&self, major: u32) -> bool {
        (self.since..=self.until).contains(&major)
    }
}

#[allow(clippy::too_many_arguments)] // One argument per pg_attribute column, as in the header.
const fn col(
    attname: &'static str,
    atttypid: u32,
    attlen: i16,
    attalign: u8,
    attbyval: bool,
    attnotnull: bool,
    since: u32,
    until: u32,
) -> CatalogColumn {
    CatalogColumn {
        attname,
        atttypid,
        attlen,
        attalign,
        attbyval,
        attnotnull,
        since,
        until,
    }
}

// pg_type_d.h: the OIDs of the column types.
const BOOL: u32 = 16;
const CHAR: u32 = 18;
const NAME: u32 = 19;
const INT2: u32 = 21;
const INT4: u32 = 23;
const REGPROC: u32 = 24;
const TEXT: u32 = 25;
const OID: u32 = 26;
const INT2VECTOR: u32 = 22;
const OIDVECTOR: u32 = 30;
const XID: u32 = 28;
const PG_NODE_TREE: u32 = 194;
const FLOAT4: u32 = 700;
const TEXT_ARRAY: u32 = 1009;
const ACLITEM_ARRAY: u32 = 1034;
const ANYARRAY: u32 = 2277;

/// The first PostgreSQL major version these tables describe, and the last.
pub const OLDEST: u32 = 13;
pub const NEWEST: u32 = 19;

/// The catalogs pgpage reads, with their OIDs (pg_*_d.h: RelationRelationId and the
/// others) and where their files are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Catalog {
    PgDatabase,
    PgTablespace,
    PgClass,
    PgNamespace,
    PgAm,
    PgAttribute,
    PgType,
    PgEnum,
    PgRange,
    PgIndex,
    PgOpclass,
}

impl Catalog {
    pub const ALL: [Catalog; 11] = [
        Catalog::PgDatabase,
        Catalog::PgTablespace,
        Catalog::PgClass,
        Catalog::PgNamespace,
        Catalog::PgAm,
        Catalog::PgAttribute,
        Catalog::PgType,
        Catalog::PgEnum,
        Catalog::PgRange,
        Catalog::PgIndex,
        Catalog::PgOpclass,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Catalog::PgDatabase => "pg_database",
            Catalog::PgTablespace => "pg_tablespace",
            Catalog::PgClass => "pg_class",
            Catalog::PgNamespace => "pg_namespace",
            Catalog::PgAm => "pg_am",
            Catalog::PgAttribute => "pg_attribute",
            Catalog::PgType => "pg_type",
            Catalog::PgEnum => "pg_enum",
            Catalog::PgRange => "pg_range",
            Catalog::PgIndex => "pg_index",
            Catalog::PgOpclass => "pg_opclass",
        }
    }

    /// The catalog's pg_class.oid.
    pub fn oid(self) -> u32 {
        match self {
            Catalog::PgDatabase => 1262,
            Catalog::PgTablespace => 1213,
            Catalog::PgClass => 1259,
            Catalog::PgNamespace => 2615,
            Catalog::PgAm => 2601,
            Catalog::PgAttribute => 1249,
            Catalog::PgType => 1247,
            Catalog::PgEnum => 3501,
            Catalog::PgRange => 3541,
            Catalog::PgIndex => 2610,
            Catalog::PgOpclass => 2616,
        }
    }

    /// Shared catalogs live in global/ and are the same in every database.
    pub fn is_shared(self) -> bool {
        matches!(self, Catalog::PgDatabase | Catalog::PgTablespace)
    }

    /// Mapped catalogs have relfilenode 0 in pg_class; pg_filenode.map names their file.
    pub fn is_mapped(self) -> bool {
        matches!(
            self,
            Catalog::PgDatabase
                | Catalog::PgTablespace
                | Catalog::PgClass
                | Catalog::PgAttribute
                | Catalog::PgType
        )
    }

    /// Every column the catalog has, in every version; [`columns`] picks one version's.
    pub fn table(self) -> &'static [CatalogColumn] {
        match self {
            Catalog::PgDatabase => PG_DATABASE,
            Catalog::PgTablespace => PG_TABLESPACE,
            Catalog::PgClass => PG_CLASS,
            Catalog::PgNamespace => PG_NAMESPACE,
            Catalog::PgAm => PG_AM,
            Catalog::PgAttribute => PG_ATTRIBUTE,
            Catalog::PgType => PG_TYPE,
            Catalog::PgEnum => PG_ENUM,
            Catalog::PgRange => PG_RANGE,
            Catalog::PgIndex => PG_INDEX,
            Catalog::PgOpclass => PG_OPCLASS,
        }
    }
}

/// A catalog's columns in one version, in attnum order; empty for a version these tables do
/// not describe.
pub fn columns(catalog: Catalog, major: u32) -> impl Iterator<Item = &'static CatalogColumn> {
    catalog.table().iter().filter(move |c| c.holds_for(major))
}

/// The tuple descriptor heap_deform_tuple needs for a catalog in one version.
pub fn attributes(catalog: Catalog, major: u32) -> Vec<Attribute> {
    columns(catalog, major)
        .map(|c| {
            Attribute::of_type(
                c.attlen,
                Align::from_typalign(c.attalign).unwrap_or(Align::Char),
                c.attbyval,
            )
        })
        .collect()
}

/// The 0-based position of a column in one version's tuples.
pub fn column_index(catalog: Catalog, major: u32, attname: &str) -> Option<usize> {
    columns(catalog, major).position(|c| c.attname == attname)
}

/// catalog/pg_database.h: FormData_pg_database.
pub const PG_DATABASE: &[CatalogColumn] = &[
    col("oid", OID, 4, b'i', true, true, 13, 19),
    col("datname", NAME, 64, b'c', false, true, 13, 19),
    col("datdba", OID, 4, b'i', true, true, 13, 19),
    col("encoding", INT4, 4, b'i', true, true, 13, 19),
    col("datcollate", NAME, 64, b'c', false, true, 13, 14),
    col("datctype", NAME, 64, b'c', false, true, 13, 14),
    col("datlocprovider", CHAR, 1, b'c', true, true, 15, 19),
    col("datistemplate", BOOL, 1, b'c', true, true, 13, 19),
    col("datallowconn", BOOL, 1, b'c', true, true, 13, 19),
    col("dathasloginevt", BOOL, 1, b'c', true, true, 17, 19),
    col("datconnlimit", INT4, 4, b'i', true, true, 13, 19),
    col("datlastsysoid", OID, 4, b'i', true, true, 13, 14),
    col("datfrozenxid", XID, 4, b'i', true, true, 13, 19),
    col("datminmxid", XID, 4, b'i', true, true, 13, 19),
    col("dattablespace", OID, 4, b'i', true, true, 13, 19),
    col("datcollate", TEXT, -1, b'i', false, true, 15, 19),
    col("datctype", TEXT, -1, b'i', false, true, 15, 19),
    col("daticulocale", TEXT, -1, b'i', false, false, 15, 16),
    col("datlocale", TEXT, -1, b'i', false, false, 17, 19),
    col("daticurules", TEXT, -1, b'i', false, false, 16, 19),
    col("datcollversion", TEXT, -1, b'i', false, false, 15, 19),
    col("datacl", ACLITEM_ARRAY, -1, b'i', false, false, 13, 15),
    col("datacl", ACLITEM_ARRAY, -1, b'd', false, false, 16, 19),
];

/// catalog/pg_tablespace.h: FormData_pg_tablespace.
pub const PG_TABLESPACE: &[CatalogColumn] = &[
    col("oid", OID, 4, b'i', true, true, 13, 19),
    col("spcname", NAME, 64, b'c', false, true, 13, 19),
    col("spcowner", OID, 4, b'i', true, true, 13, 19),
    col("spcacl", ACLITEM_ARRAY, -1, b'i', false, false, 13, 15),
    col("spcacl", ACLITEM_ARRAY, -1, b'd', false, false, 16, 19),
    col("spcoptions", TEXT_ARRAY, -1, b'i', false, false, 13, 19),
];

/// catalog/pg_class.h: FormData_pg_class.
pub const PG_CLASS: &[CatalogColumn] = &[
    col("oid", OID, 4, b'i', true, true, 13, 19),
    col("relname", NAME, 64, b'c', false, true, 13, 19),
    col("relnamespace", OID, 4, b'i', true, true, 13, 19),
    col("reltype", OID, 4, b'i', true, true, 13, 19),
    col("reloftype", OID, 4, b'i', true, true, 13, 19),
    col("relowner", OID, 4, b'i', true, true, 13, 19),
    col("relam", OID, 4, b'i', true, true, 13, 19),
    col("relfilenode", OID, 4, b'i', true, true, 13, 19),
    col("reltablespace", OID, 4, b'i', true, true, 13, 19),
    col("relpages", INT4, 4, b'i', true, true, 13, 19),
    col("reltuples", FLOAT4, 4, b'i', true, true, 13, 19),
    col("relallvisible", INT4, 4, b'i', true, true, 13, 19),
    col("relallfrozen", INT4, 4, b'i', true, true, 18, 19),
    col("reltoastrelid", OID, 4, b'i', true, true, 13, 19),
    col("relhasindex", BOOL, 1, b'c', true, true, 13, 19),
    col("relisshared", BOOL, 1, b'c', true, true, 13, 19),
    col("relpersistence", CHAR, 1, b'c', true, true, 13, 19),
    col("relkind", CHAR, 1, b'c', true, true, 13, 19),
    col("relnatts", INT2, 2, b's', true, true, 13, 19),
    col("relchecks", INT2, 2, b's', true, true, 13, 19),
    col("relhasrules", BOOL, 1, b'c', true, true, 13, 19),
    col("relhastriggers", BOOL, 1, b'c', true, true, 13, 19),
    col("relhassubclass", BOOL, 1, b'c', true, true, 13, 19),
    col("relrowsecurity", BOOL, 1, b'c', true, true, 13, 19),
    col("relforcerowsecurity", BOOL, 1, b'c', true, true, 13, 19),
    col("relispopulated", BOOL, 1, b'c', true, true, 13, 19),
    col("relreplident", CHAR, 1, b'c', true, true, 13, 19),
    col("relispartition", BOOL, 1, b'c', true, true, 13, 19),
    col("relrewrite", OID, 4, b'i', true, true, 13, 19),
    col("relfrozenxid", XID, 4, b'i', true, true, 13, 19),
    col("relminmxid", XID, 4, b'i', true, true, 13, 19),
    col("relacl", ACLITEM_ARRAY, -1, b'i', false, false, 13, 15),
    col("relacl", ACLITEM_ARRAY, -1, b'd', false, false, 16, 19),
    col("reloptions", TEXT_ARRAY, -1, b'i', false, false, 13, 19),
    col("relpartbound", PG_NODE_TREE, -1, b'i', false, false, 13, 19),
];

/// catalog/pg_namespace.h: FormData_pg_namespace.
pub const PG_NAMESPACE: &[CatalogColumn] = &[
    col("oid", OID, 4, b'i', true, true, 13, 19),
    col("nspname", NAME, 64, b'c', false, true, 13, 19),
    col("nspowner", OID, 4, b'i', true, true, 13, 19),
    col("nspacl", ACLITEM_ARRAY, -1, b'i', false, false, 13, 15),
    col("nspacl", ACLITEM_ARRAY, -1, b'd', false, false, 16, 19),
];

/// catalog/pg_am.h: FormData_pg_am.
pub const PG_AM: &[CatalogColumn] = &[
    col("oid", OID, 4, b'i', true, true, 13, 19),
    col("amname", NAME, 64, b'c', false, true, 13, 19),
    col("amhandler", REGPROC, 4, b'i', true, true, 13, 19),
    col("amtype", CHAR, 1, b'c', true, true, 13, 19),
];

/// catalog/pg_attribute.h: FormData_pg_attribute.
pub const PG_ATTRIBUTE: &[CatalogColumn] = &[
    col("attrelid", OID, 4, b'i', true, true, 13, 19),
    col("attname", NAME, 64, b'c', false, true, 13, 19),
    col("atttypid", OID, 4, b'i', true, true, 13, 19),
    col("attstattarget", INT4, 4, b'i', true, true, 13, 15),
    col("attlen", INT2, 2, b's', true, true, 13, 19),
    col("attnum", INT2, 2, b's', true, true, 13, 19),
    col("attndims", INT4, 4, b'i', true, true, 13, 15),
    col("attcacheoff", INT4, 4, b'i', true, true, 13, 17),
    col("atttypmod", INT4, 4, b'i', true, true, 13, 19),
    col("attndims", INT2, 2, b's', true, true, 16, 19),
    col("attbyval", BOOL, 1, b'c', true, true, 13, 19),
    col("attstorage", CHAR, 1, b'c', true, true, 13, 13),
    col("attalign", CHAR, 1, b'c', true, true, 13, 19),
    col("attstorage", CHAR, 1, b'c', true, true, 14, 19),
    col("attcompression", CHAR, 1, b'c', true, true, 14, 19),
    col("attnotnull", BOOL, 1, b'c', true, true, 13, 19),
    col("atthasdef", BOOL, 1, b'c', true, true, 13, 19),
    col("atthasmissing", BOOL, 1, b'c', true, true, 13, 19),
    col("attidentity", CHAR, 1, b'c', true, true, 13, 19),
    col("attgenerated", CHAR, 1, b'c', true, true, 13, 19),
    col("attisdropped", BOOL, 1, b'c', true, true, 13, 19),
    col("attislocal", BOOL, 1, b'c', true, true, 13, 19),
    col("attinhcount", INT4, 4, b'i', true, true, 13, 15),
    col("attinhcount", INT2, 2, b's', true, true, 16, 19),
    col("attstattarget", INT2, 2, b's', true, true, 16, 16),
    col("attcollation", OID, 4, b'i', true, true, 13, 19),
    col("attstattarget", INT2, 2, b's', true, false, 17, 19),
    col("attacl", ACLITEM_ARRAY, -1, b'i', false, false, 13, 15),
    col("attacl", ACLITEM_ARRAY, -1, b'd', false, false, 16, 19),
    col("attoptions", TEXT_ARRAY, -1, b'i', false, false, 13, 19),
    col("attfdwoptions", TEXT_ARRAY, -1, b'i', false, false, 13, 19),
    col("attmissingval", ANYARRAY, -1, b'd', false, false, 13, 19),
];

/// catalog/pg_type.h: FormData_pg_type.
pub const PG_TYPE: &[CatalogColumn] = &[
    col("oid", OID, 4, b'i', true, true, 13, 19),
    col("typname", NAME, 64, b'c', false, true, 13, 19),
    col("typnamespace", OID, 4, b'i', true, true, 13, 19),
    col("typowner", OID, 4, b'i', true, true, 13, 19),
    col("typlen", INT2, 2, b's', true, true, 13, 19),
    col("typbyval", BOOL, 1, b'c', true, true, 13, 19),
    col("typtype", CHAR, 1, b'c', true, true, 13, 19),
    col("typcategory", CHAR, 1, b'c', true, true, 13, 19),
    col("typispreferred", BOOL, 1, b'c', true, true, 13, 19),
    col("typisdefined", BOOL, 1, b'c', true, true, 13, 19),
    col("typdelim", CHAR, 1, b'c', true, true, 13, 19),
    col("typrelid", OID, 4, b'i', true, true, 13, 19),
    col("typsubscript", REGPROC, 4, b'i', true, true, 14, 19),
    col("typelem", OID, 4, b'i', true, true, 13, 19),
    col("typarray", OID, 4, b'i', true, true, 13, 19),
    col("typinput", REGPROC, 4, b'i', true, true, 13, 19),
    col("typoutput", REGPROC, 4, b'i', true, true, 13, 19),
    col("typreceive", REGPROC, 4, b'i', true, true, 13, 19),
    col("typsend", REGPROC, 4, b'i', true, true, 13, 19),
    col("typmodin", REGPROC, 4, b'i', true, true, 13, 19),
    col("typmodout", REGPROC, 4, b'i', true, true, 13, 19),
    col("typanalyze", REGPROC, 4, b'i', true, true, 13, 19),
    col("typalign", CHAR, 1, b'c', true, true, 13, 19),
    col("typstorage", CHAR, 1, b'c', true, true, 13, 19),
    col("typnotnull", BOOL, 1, b'c', true, true, 13, 19),
    col("typbasetype", OID, 4, b'i', true, true, 13, 19),
    col("typtypmod", INT4, 4, b'i', true, true, 13, 19),
    col("typndims", INT4, 4, b'i', true, true, 13, 19),
    col("typcollation", OID, 4, b'i', true, true, 13, 19),
    col(
        "typdefaultbin",
        PG_NODE_TREE,
        -1,
        b'i',
        false,
        false,
        13,
        19,
    ),
    col("typdefault", TEXT, -1, b'i', false, false, 13, 19),
    col("typacl", ACLITEM_ARRAY, -1, b'i', false, false, 13, 15),
    col("typacl", ACLITEM_ARRAY, -1, b'd', false, false, 16, 19),
];

/// catalog/pg_enum.h: FormData_pg_enum.
pub const PG_ENUM: &[CatalogColumn] = &[
    col("oid", OID, 4, b'i', true, true, 13, 19),
    col("enumtypid", OID, 4, b'i', true, true, 13, 19),
    col("enumsortorder", FLOAT4, 4, b'i', true, true, 13, 19),
    col("enumlabel", NAME, 64, b'c', false, true, 13, 19),
];

/// catalog/pg_range.h: FormData_pg_range (rngmultitypid from 14 on, with multiranges).
pub const PG_RANGE: &[CatalogColumn] = &[
    col("rngtypid", OID, 4, b'i', true, true, 13, 19),
    col("rngsubtype", OID, 4, b'i', true, true, 13, 19),
    col("rngmultitypid", OID, 4, b'i', true, true, 14, 19),
    col("rngcollation", OID, 4, b'i', true, true, 13, 19),
    col("rngsubopc", OID, 4, b'i', true, true, 13, 19),
    // 19 names the range's and its multirange's constructor functions.
    col("rngconstruct2", REGPROC, 4, b'i', true, true, 19, 19),
    col("rngconstruct3", REGPROC, 4, b'i', true, true, 19, 19),
    col("rngmltconstruct0", REGPROC, 4, b'i', true, true, 19, 19),
    col("rngmltconstruct1", REGPROC, 4, b'i', true, true, 19, 19),
    col("rngmltconstruct2", REGPROC, 4, b'i', true, true, 19, 19),
    col("rngcanonical", REGPROC, 4, b'i', true, true, 13, 19),
    col("rngsubdiff", REGPROC, 4, b'i', true, true, 13, 19),
];

/// catalog/pg_opclass.h: FormData_pg_opclass.
pub const PG_OPCLASS: &[CatalogColumn] = &[
    col("oid", OID, 4, b'i', true, true, 13, 19),
    col("opcmethod", OID, 4, b'i', true, true, 13, 19),
    col("opcname", NAME, 64, b'c', false, true, 13, 19),
    col("opcnamespace", OID, 4, b'i', true, true, 13, 19),
    col("opcowner", OID, 4, b'i', true, true, 13, 19),
    col("opcfamily", OID, 4, b'i', true, true, 13, 19),
    col("opcintype", OID, 4, b'i', true, true, 13, 19),
    col("opcdefault", BOOL, 1, b'c', true, true, 13, 19),
    col("opckeytype", OID, 4, b'i', true, true, 13, 19),
];

/// catalog/pg_index.h: FormData_pg_index (indnullsnotdistinct from 15 on).
pub const PG_INDEX: &[CatalogColumn] = &[
    col("indexrelid", OID, 4, b'i', true, true, 13, 19),
    col("indrelid", OID, 4, b'i', true, true, 13, 19),
    col("indnatts", INT2, 2, b's', true, true, 13, 19),
    col("indnkeyatts", INT2, 2, b's', true, true, 13, 19),
    col("indisunique", BOOL, 1, b'c', true, true, 13, 19),
    col("indnullsnotdistinct", BOOL, 1, b'c', true, true, 15, 19),
    col("indisprimary", BOOL, 1, b'c', true, true, 13, 19),
    col("indisexclusion", BOOL, 1, b'c', true, true, 13, 19),
    col("indimmediate", BOOL, 1, b'c', true, true, 13, 19),
    col("indisclustered", BOOL, 1, b'c', true, true, 13, 19),
    col("indisvalid", BOOL, 1, b'c', true, true, 13, 19),
    col("indcheckxmin", BOOL, 1, b'c', true, true, 13, 19),
    col("indisready", BOOL, 1, b'c', true, true, 13, 19),
    col("indislive", BOOL, 1, b'c', true, true, 13, 19),
    col("indisreplident", BOOL, 1, b'c', true, true, 13, 19),
    col("indkey", INT2VECTOR, -1, b'i', false, true, 13, 19),
    col("indcollation", OIDVECTOR, -1, b'i', false, true, 13, 19),
    col("indclass", OIDVECTOR, -1, b'i', false, true, 13, 19),
    col("indoption", INT2VECTOR, -1, b'i', false, true, 13, 19),
    col("indexprs", PG_NODE_TREE, -1, b'i', false, false, 13, 19),
    col("indpred", PG_NODE_TREE, -1, b'i', false, false, 13, 19),
];
