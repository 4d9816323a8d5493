//! Catalog rows out of a catalog's heap file: the tuple versions a new transaction sees,
//! split by the version's column layout, every page or tuple that cannot be read named and
//! left out while the rest is read.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

use super::layout::{attributes, columns, Catalog};
use crate::findings::Finding;
use crate::page::geometry::{read_u16, read_u32, BlockSize, Endian};
use crate::page::verify::{header_check, verify_page, PageStatus};
use crate::tuple::visibility::{tuple_state, TransactionLog};
use crate::tuple::{deform, heap_items, TupleHeader};

/// Something in a catalog that could not be read: which catalog, where, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CatalogProblem {
    pub catalog: Catalog,
    /// Block of the catalog's relation (segments counted), None for the file as a whole.
    pub block: Option<u32>,
    /// Line pointer of the tuple, None for the whole page.
    pub lp: Option<u16>,
    pub finding: Finding,
}

impl CatalogProblem {
    /// One line for stderr: the catalog, its file when given, where, the server's words
    /// (without the xid or MultiXact it would name), the finding's code, and what is lost.
    pub fn describe(&self, file: Option<&str>) -> String {
        let file = file.map_or_else(String::new, |f| format!(" \"{f}\""));
        let at = match (self.block, self.lp) {
            (Some(b), Some(lp)) => format!(", block {b}, item {lp}"),
            (Some(b), None) => format!(", block {b}"),
            _ => String::new(),
        };
        let left_out = if self.lp.is_some() { "row" } else { "rows" };
        let words = self.finding.message().replace(" %u", "");
        format!(
            "{}{file}{at}: {words} ({}): its {left_out} left out",
            self.catalog.name(),
            self.finding.code()
        )
    }

    /// `describe` naming the segment file the block is in and the block within that file,
    /// as every other problem is named: `segments` the catalog's files in order (paths as
    /// shown) with their lengths in blocks.
    pub fn describe_in(&self, segments: &[(String, u32)]) -> String {
        let mut at = *self;
        let mut file = segments.first().map(|(p, _)| p.as_str());
        if let Some(mut b) = self.block {
            for (p, blocks) in segments {
                file = Some(p);
                if b < *blocks {
                    break;
                }
                b = b.saturating_sub(*blocks);
            }
            at.block = Some(b);
        }
        at.describe(file)
    }
}

/// A catalog's relation file as read: all its segments' bytes, in order.
#[derive(Clone, Copy, Debug)]
pub struct CatalogFile<'a> {
    pub bytes: &'a [u8],
    pub block_size: BlockSize,
    pub endian: Endian,
    /// pg_control's data_page_checksum_version is not 0: a checksum mismatch is a damaged
    /// page. Without checksums, only PageIsVerified's header checks count.
    pub checksums: bool,
}

/// Why the server would refuse a page, or None when it reads it.
fn page_problem(page: &[u8], block: u32, file: &CatalogFile) -> Option<Finding> {
    let verdict = verify_page(page, block, file.endian);
    let header = || header_check(page, file.endian).findings().next();
    match verdict.status {
        PageStatus::Ok | PageStatus::Zero => None,
        PageStatus::Mismatch if file.checksums => Some(Finding::ChecksumMismatch),
        PageStatus::Mismatch | PageStatus::BadHeader => header(),
        PageStatus::NewNotZero => Some(Finding::NewPageNotZero),
    }
}

/// Calls `visit` with the attributes of every tuple of `file` a new transaction would see
/// (heap_deform_tuple's slices, one per column of the catalog's layout in `major`). Pages
/// the server would refuse, tuples that do not split and statuses that cannot be read are
/// pushed onto `problems`.
pub fn visible_rows(
    file: &CatalogFile,
    catalog: Catalog,
    major: u32,
    log: &TransactionLog,
    problems: &mut Vec<CatalogProblem>,
    mut visit: impl FnMut(&[Option<&[u8]>]),
) {
    let attrs = attributes(catalog, major);
    let mut values = Vec::with_capacity(attrs.len());
    let problem = |block, lp, finding| CatalogProblem {
        catalog,
        block: Some(block),
        lp,
        finding,
    };
    for (block, page) in (0u32..).zip(file.bytes.chunks_exact(file.block_size.len())) {
        if let Some(finding) = page_problem(page, block, file) {
            problems.push(problem(block, None, finding));
            continue;
        }
        for item in heap_items(page, file.endian) {
            let lp = item.lp;
            let Some(tuple) = item.tuple else {
                problems.push(problem(block, Some(lp), Finding::ItemPastPage));
                continue;
            };
            let Some(header) = TupleHeader::read(tuple, file.endian) else {
                problems.push(problem(block, Some(lp), Finding::HeapItemNotTuple));
                continue;
            };
            let state = tuple_state(&header, (block, lp), log);
            match state {
                Ok(s) if s.is_visible() => {}
                Ok(_) => continue,
                Err(finding) => {
                    problems.push(problem(block, Some(lp), finding));
                    continue;
                }
            }
            match deform(tuple, &attrs, file.endian, &mut values) {
                Ok(_) => visit(&values),
                Err(e) => problems.push(problem(block, Some(lp), e.finding)),
            }
        }
    }
}

/// One catalog row's columns by name, for the layout of one version.
pub struct Row<'r, 'a> {
    names: &'r [&'static str],
    values: &'r [Option<&'a [u8]>],
    endian: Endian,
}

impl<'r, 'a> Row<'r, 'a> {
    fn get(&self, attname: &str) -> Option<&'a [u8]> {
        let i = self.names.iter().position(|n| *n == attname)?;
        self.values.get(i).copied().flatten()
    }

    /// An oid (or regproc, xid, int4 read unsigned) column.
    pub fn oid(&self, attname: &str) -> Option<u32> {
        self.get(attname)
            .filter(|v| v.len() == 4)
            .and_then(|v| read_u32(v, 0, self.endian))
    }

    /// A name column: NAMEDATALEN bytes, NUL-padded, in the database's encoding (shown as
    /// UTF-8, invalid bytes replaced).
    pub fn name(&self, attname: &str) -> Option<String> {
        let v = self.get(attname)?;
        let end = v.iter().position(|&b| b == 0).unwrap_or(v.len());
        v.get(..end)
            .map(|s| String::from_utf8_lossy(s).into_owned())
    }

    /// A text column's characters, from its varlena (a 1-byte header for a short value,
    /// else 4 bytes, as the server writes them in the byte order of the page); None for NULL
    /// or a compressed or external value.
    pub fn text(&self, attname: &str) -> Option<String> {
        let v = self.get(attname)?;
        let first = *v.first()?;
        let (short, short_len) = match self.endian {
            Endian::Little => (first & 0x01 != 0, first >> 1),
            Endian::Big => (first & 0x80 != 0, first & 0x7F),
        };
        let body = if short {
            v.get(1..usize::from(short_len))?
        } else {
            let h = read_u32(v, 0, self.endian)?;
            let (plain, len) = match self.endian {
                Endian::Little => (h & 0x03 == 0, h >> 2),
                Endian::Big => (h >> 30 == 0, h & 0x3FFF_FFFF),
            };
            v.get(4..usize::try_from(len).ok().filter(|_| plain)?)?
        };
        Some(String::from_utf8_lossy(body).into_owned())
    }

    /// A "char" column.
    pub fn char(&self, attname: &str) -> Option<u8> {
        self.get(attname).and_then(|v| v.first().copied())
    }

    pub fn bool(&self, attname: &str) -> Option<bool> {
        self.char(attname).map(|b| b != 0)
    }

    /// An int2 column.
    pub fn int2(&self, attname: &str) -> Option<i16> {
        self.get(attname)
            .filter(|v| v.len() == 2)
            .and_then(|v| read_u16(v, 0, self.endian))
            .map(|v| v as i16)
    }

    /// An int4 column.
    pub fn int4(&self, attname: &str) -> Option<i32> {
        self.oid(attname).map(|v| v as i32)
    }

    /// A float4 column.
    pub fn float4(&self, attname: &str) -> Option<f32> {
        self.oid(attname).map(f32::from_bits)
    }

    /// A column's stored bytes as heap_deform_tuple gives them (a varlena with its header);
    /// None for NULL.
    pub fn bytes(&self, attname: &str) -> Option<&'a [u8]> {
        self.get(attname)
    }
}

/// Reads a catalog's visible rows into `T`s; a row `build` cannot make (a NOT NULL column
/// that is NULL or of the wrong size) is a problem, not a row.
pub fn catalog_rows<T>(
    file: &CatalogFile,
    catalog: Catalog,
    major: u32,
    log: &TransactionLog,
    problems: &mut Vec<CatalogProblem>,
    build: impl Fn(&Row) -> Option<T>,
) -> Vec<T> {
    let names: Vec<&'static str> = columns(catalog, major).map(|c| c.attname).collect();
    let mut rows = Vec::new();
    let mut invalid = 0usize;
    visible_rows(file, catalog, major, log, problems, |values| {
        let row = Row {
            names: &names,
            values,
            endian: file.endian,
        };
        match build(&row) {
            Some(t) => rows.push(t),
            None => invalid = invalid.saturating_add(1),
        }
    });
    if invalid > 0 {
        problems.push(CatalogProblem {
            catalog,
            block: None,
            lp: None,
            finding: Finding::ValueInvalid,
        });
    }
    rows
}

/// pg_database: the columns `ls` needs.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DatabaseRow {
    pub oid: u32,
    pub datname: String,
    pub dattablespace: u32,
    pub datistemplate: bool,
    /// The database's default collation orders text as memcmp does: the libc provider
    /// (the only one before 15) with datcollate C or POSIX, or (17 on) the builtin
    /// provider's C locale. What B-tree item order checks of text keys need.
    #[serde(skip)]
    pub collate_is_c: bool,
}

/// DatabaseRow::collate_is_c from the row's datlocprovider, datcollate and datlocale.
fn collate_is_c(r: &Row, major: u32) -> bool {
    let c = |s: Option<String>| matches!(s.as_deref(), Some("C" | "POSIX"));
    if major < 15 {
        return c(r.name("datcollate"));
    }
    match r.char("datlocprovider") {
        Some(b'c') => c(r.text("datcollate")),
        Some(b'b') => r.text("datlocale").as_deref() == Some("C"),
        _ => false,
    }
}

/// pg_tablespace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TablespaceRow {
    pub oid: u32,
    pub spcname: String,
}

/// pg_class: the columns that name a relation's files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ClassRow {
    pub oid: u32,
    pub relname: String,
    pub relnamespace: u32,
    pub relam: u32,
    pub relfilenode: u32,
    pub reltablespace: u32,
    pub reltoastrelid: u32,
    pub relisshared: bool,
    pub relpersistence: u8,
    pub relkind: u8,
    /// The number of user columns, dropped ones included: how many pg_attribute rows with
    /// attnum > 0 the relation has.
    pub relnatts: i16,
    /// What verify_heapam holds the relation's xmins and MultiXactIds against.
    pub relfrozenxid: u32,
    pub relminmxid: u32,
}

/// pg_namespace and pg_am: an oid and its name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OidName {
    pub oid: u32,
    pub name: String,
}

pub fn database_rows(
    file: &CatalogFile,
    major: u32,
    log: &TransactionLog,
    problems: &mut Vec<CatalogProblem>,
) -> Vec<DatabaseRow> {
    catalog_rows(file, Catalog::PgDatabase, major, log, problems, |r| {
        Some(DatabaseRow {
            oid: r.oid("oid")?,
            datname: r.name("datname")?,
            dattablespace: r.oid("dattablespace")?,
            datistemplate: r.bool("datistemplate")?,
            collate_is_c: collate_is_c(r, major),
        })
    })
}

pub fn tablespace_rows(
    file: &CatalogFile,
    major: u32,
    log: &TransactionLog,
    problems: &mut Vec<CatalogProblem>,
) -> Vec<TablespaceRow> {
    catalog_rows(file, Catalog::PgTablespace, major, log, problems, |r| {
        Some(TablespaceRow {
            oid: r.oid("oid")?,
            spcname: r.name("spcname")?,
        })
    })
}

pub fn class_rows(
    file: &CatalogFile,
    major: u32,
    log: &TransactionLog,
    problems: &mut Vec<CatalogProblem>,
) -> Vec<ClassRow> {
    catalog_rows(file, Catalog::PgClass, major, log, problems, |r| {
        Some(ClassRow {
            oid: r.oid("oid")?,
            relname: r.name("relname")?,
            relnamespace: r.oid("relnamespace")?,
            relam: r.oid("relam")?,
            relfilenode: r.oid("relfilenode")?,
            reltablespace: r.oid("reltablespace")?,
            reltoastrelid: r.oid("reltoastrelid")?,
            relisshared: r.bool("relisshared")?,
            relpersistence: r.char("relpersistence")?,
            relkind: r.char("relkind")?,
            relnatts: r.int2("relnatts")?,
            relfrozenxid: r.oid("relfrozenxid")?,
            relminmxid: r.oid("relminmxid")?,
        })
    })
}

/// A catalog's oid and one name column: pg_namespace's nspname, pg_am's amname.
pub fn oid_name_rows(
    file: &CatalogFile,
    catalog: Catalog,
    column: &str,
    major: u32,
    log: &TransactionLog,
    problems: &mut Vec<CatalogProblem>,
) -> Vec<OidName> {
    catalog_rows(file, catalog, major, log, problems, |r| {
        Some(OidName {
            oid: r.oid("oid")?,
            name: r.name(column)?,
        })
    })
}

/// pg_index: which table an index is of, and how its key columns order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct IndexRow {
    pub indexrelid: u32,
    pub indrelid: u32,
    /// The key columns (the rest of indkey are INCLUDE columns).
    pub indnkeyatts: i16,
    /// indoption per column: INDOPTION_DESC (1) and INDOPTION_NULLS_FIRST (2).
    pub indoption: Vec<i16>,
    /// indcollation per column (0 for a type without collation).
    pub indcollation: Vec<u32>,
    /// indclass: each key column's operator class (pg_opclass.oid).
    pub indclass: Vec<u32>,
    /// indisprimary and indisunique: whose keys name a row (the report's lost rows).
    pub indisprimary: bool,
    pub indisunique: bool,
    /// indkey: the table's attribute numbers of the index's columns (0: an expression).
    pub indkey: Vec<i16>,
    /// indpred is set: the index holds only the rows its predicate admits.
    pub partial: bool,
    /// indisvalid, indisready and indislive: the index holds an entry for every row (one
    /// CREATE INDEX CONCURRENTLY left unfinished does not).
    pub complete: bool,
}

/// The elements of an int2vector or oidvector column (array.h: a one-dimensional
/// ArrayType without nulls), each `size` bytes; None when the bytes are not one.
fn vector_elements(v: &[u8], size: usize, endian: Endian) -> Option<Vec<u32>> {
    // A plain-storage varlena keeps its 4-byte header (typstorage 'p'); ndim, dataoffset,
    // elemtype, dim1 and lbound1 follow it.
    let ndim = read_u32(v, 4, endian)?;
    let n = usize::try_from(read_u32(v, 16, endian)?).ok()?;
    if ndim != 1 || n > v.len() {
        return None;
    }
    (0..n)
        .map(|i| {
            let at = i.checked_mul(size)?.checked_add(24)?;
            match size {
                2 => read_u16(v, at, endian).map(u32::from),
                _ => read_u32(v, at, endian),
            }
        })
        .collect()
}

pub fn index_rows(
    file: &CatalogFile,
    major: u32,
    log: &TransactionLog,
    problems: &mut Vec<CatalogProblem>,
) -> Vec<IndexRow> {
    catalog_rows(file, Catalog::PgIndex, major, log, problems, |r| {
        let vector = |name, size| vector_elements(r.bytes(name)?, size, r.endian);
        Some(IndexRow {
            indexrelid: r.oid("indexrelid")?,
            indrelid: r.oid("indrelid")?,
            indnkeyatts: r.int2("indnkeyatts")?,
            // Only key orders need them: a row without them still says which table.
            indoption: vector("indoption", 2)
                .unwrap_or_default()
                .into_iter()
                .map(|v| v as u16 as i16)
                .collect(),
            indcollation: vector("indcollation", 4).unwrap_or_default(),
            indclass: vector("indclass", 4).unwrap_or_default(),
            indisprimary: r.bool("indisprimary").unwrap_or(false),
            indisunique: r.bool("indisunique").unwrap_or(false),
            indkey: vector("indkey", 2)
                .unwrap_or_default()
                .into_iter()
                .map(|v| v as u16 as i16)
                .collect(),
            partial: r.bytes("indpred").is_some(),
            complete: r.bool("indisvalid").unwrap_or(false)
                && r.bool("indisready").unwrap_or(false)
                && r.bool("indislive").unwrap_or(false),
        })
    })
}

/// pg_opclass: an operator class's name, schema and access method, which say how an index
/// column's keys are compared when its storage type alone does not.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OpclassRow {
    pub oid: u32,
    pub opcmethod: u32,
    pub opcname: String,
    pub opcnamespace: u32,
}

pub fn opclass_rows(
    file: &CatalogFile,
    major: u32,
    log: &TransactionLog,
    problems: &mut Vec<CatalogProblem>,
) -> Vec<OpclassRow> {
    catalog_rows(file, Catalog::PgOpclass, major, log, problems, |r| {
        Some(OpclassRow {
            oid: r.oid("oid")?,
            opcmethod: r.oid("opcmethod")?,
            opcname: r.name("opcname")?,
            opcnamespace: r.oid("opcnamespace")?,
        })
    })
}

/// pg_attribute: what describes a table's columns for deforming and printing its rows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AttributeRow {
    pub attrelid: u32,
    pub attname: String,
    pub atttypid: u32,
    pub attlen: i16,
    pub attnum: i16,
    pub atttypmod: i32,
    pub attbyval: bool,
    pub attalign: u8,
    pub attnotnull: bool,
    pub atthasmissing: bool,
    pub attisdropped: bool,
    /// attmissingval as stored: a one-element anyarray varlena (None when NULL).
    pub attmissingval: Option<Vec<u8>>,
}

/// pg_type: what prints a value of the type (domains' base types, arrays' element types).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TypeRow {
    pub oid: u32,
    pub typname: String,
    pub typnamespace: u32,
    pub typlen: i16,
    pub typbyval: bool,
    pub typtype: u8,
    pub typalign: u8,
    pub typelem: u32,
    pub typbasetype: u32,
    pub typtypmod: i32,
    pub typrelid: u32,
}

/// pg_enum: an enum's labels in their sort order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EnumRow {
    pub oid: u32,
    pub enumtypid: u32,
    pub enumsortorder: f32,
    pub enumlabel: String,
}

pub fn attribute_rows(
    file: &CatalogFile,
    major: u32,
    log: &TransactionLog,
    problems: &mut Vec<CatalogProblem>,
) -> Vec<AttributeRow> {
    catalog_rows(file, Catalog::PgAttribute, major, log, problems, |r| {
        Some(AttributeRow {
            attrelid: r.oid("attrelid")?,
            attname: r.name("attname")?,
            atttypid: r.oid("atttypid")?,
            attlen: r.int2("attlen")?,
            attnum: r.int2("attnum")?,
            atttypmod: r.int4("atttypmod")?,
            attbyval: r.bool("attbyval")?,
            attalign: r.char("attalign")?,
            attnotnull: r.bool("attnotnull")?,
            atthasmissing: r.bool("atthasmissing")?,
            attisdropped: r.bool("attisdropped")?,
            attmissingval: r.bytes("attmissingval").map(<[u8]>::to_vec),
        })
    })
}

pub fn type_rows(
    file: &CatalogFile,
    major: u32,
    log: &TransactionLog,
    problems: &mut Vec<CatalogProblem>,
) -> Vec<TypeRow> {
    catalog_rows(file, Catalog::PgType, major, log, problems, |r| {
        Some(TypeRow {
            oid: r.oid("oid")?,
            typname: r.name("typname")?,
            typnamespace: r.oid("typnamespace")?,
            typlen: r.int2("typlen")?,
            typbyval: r.bool("typbyval")?,
            typtype: r.char("typtype")?,
            typalign: r.char("typalign")?,
            typelem: r.oid("typelem")?,
            typbasetype: r.oid("typbasetype")?,
            typtypmod: r.int4("typtypmod")?,
            typrelid: r.oid("typrelid")?,
        })
    })
}

pub fn enum_rows(
    file: &CatalogFile,
    major: u32,
    log: &TransactionLog,
    problems: &mut Vec<CatalogProblem>,
) -> Vec<EnumRow> {
    catalog_rows(file, Catalog::PgEnum, major, log, problems, |r| {
        Some(EnumRow {
            oid: r.oid("oid")?,
            enumtypid: r.oid("enumtypid")?,
            enumsortorder: r.float4("enumsortorder")?,
            enumlabel: r.name("enumlabel")?,
        })
    })
}

/// pg_range: a range type, its subtype and its multirange type.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RangeRow {
    pub rngtypid: u32,
    pub rngsubtype: u32,
    /// The range's multirange type; 0 before PostgreSQL 14, which had none.
    pub rngmultitypid: u32,
}

pub fn range_rows(
    file: &CatalogFile,
    major: u32,
    log: &TransactionLog,
    problems: &mut Vec<CatalogProblem>,
) -> Vec<RangeRow> {
    catalog_rows(file, Catalog::PgRange, major, log, problems, |r| {
        Some(RangeRow {
            rngtypid: r.oid("rngtypid")?,
            rngsubtype: r.oid("rngsubtype")?,
            rngmultitypid: if major >= 14 {
                r.oid("rngmultitypid")?
            } else {
                0
            },
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::catalog::relmap::read_relmap;
    use crate::tuple::visibility::SlruKind;
    use alloc::vec;
    use proptest::prelude::*;

    #[test]
    fn a_problem_is_named_in_the_segment_file_its_block_is_in() {
        let segments = [
            (String::from("base/5/1249"), 131_072),
            (String::from("base/5/1249.1"), 10),
        ];
        let at = |block: Option<u32>| CatalogProblem {
            catalog: Catalog::PgAttribute,
            block,
            lp: None,
            finding: Finding::ChecksumMismatch,
        };
        let line = |block| at(block).describe_in(&segments);
        assert!(line(Some(7)).starts_with("pg_attribute \"base/5/1249\", block 7: "));
        assert!(line(Some(131_071)).starts_with("pg_attribute \"base/5/1249\", block 131071: "));
        assert!(line(Some(131_072)).starts_with("pg_attribute \"base/5/1249.1\", block 0: "));
        assert!(line(Some(131_075)).starts_with("pg_attribute \"base/5/1249.1\", block 3: "));
        assert!(line(None).starts_with("pg_attribute \"base/5/1249\": "));
        assert_eq!(at(Some(3)).describe_in(&[]), at(Some(3)).describe(None));
    }

    /// A page whose header passes PageIsVerified's checks (checksums off), so that the line
    /// pointers and tuples, random as they are, get read.
    fn sane_header(page: &mut [u8], lower: u16, upper: u16) {
        let len = page.len() as u16;
        let lower = 24 + lower % (len - 24);
        let upper = lower + upper % (len - lower);
        page[10..12].copy_from_slice(&0u16.to_le_bytes());
        page[12..14].copy_from_slice(&lower.to_le_bytes());
        page[14..16].copy_from_slice(&upper.max(1).to_le_bytes());
        page[16..18].copy_from_slice(&len.to_le_bytes());
        page[18..20].copy_from_slice(&(len | 4).to_le_bytes());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn any_bytes_read_as_catalogs_never_panic(
            seed in proptest::collection::vec(any::<u8>(), 2 * 1024),
            lower in any::<u16>(),
            upper in any::<u16>(),
            major in 13u32..=18,
            xact in proptest::collection::vec(any::<u8>(), 0..64),
        ) {
            let mut bytes = seed.clone();
            sane_header(&mut bytes[..1024], lower, upper);
            let mut log = TransactionLog::new(1024, Endian::Little);
            log.add_segment(SlruKind::Xact, 0, xact.clone());
            log.add_segment(SlruKind::MultiXactOffsets, 0, seed.clone());
            log.add_segment(SlruKind::MultiXactMembers, 0, xact);
            let file = CatalogFile {
                bytes: &bytes,
                block_size: BlockSize::new(1024).unwrap(),
                endian: Endian::Little,
                checksums: false,
            };
            for catalog in Catalog::ALL {
                let mut problems = vec![];
                visible_rows(&file, catalog, major, &log, &mut problems, |_| {});
            }
            let mut problems = vec![];
            class_rows(&file, major, &log, &mut problems);
            index_rows(&file, major, &log, &mut problems);
            opclass_rows(&file, major, &log, &mut problems);
            attribute_rows(&file, major, &log, &mut problems);
            let _ = read_relmap(&seed[..major as usize * 30], major, Endian::Big);
            for multi in [0u32, 1, 2, 255, u32::MAX] {
                let _ = log.multixact_members(multi);
                let _ = log.xid_status(multi);
            }
        }
    }
}
