//! `pgpage rows DATADIR RELATION`: a table's rows found from the catalogs on disk: its
//! database, schema and name to its files (as `ls` reads them), its columns from
//! pg_attribute, pg_type and pg_enum, its TOAST relation, and pg_xact and pg_multixact for
//! the tuples whose hint bits do not say (CONTRACTS.md `rows`).

use std::fs;
use std::path::PathBuf;

use pgpage::catalog::columns::{table_columns, TypeCatalogs};
use pgpage::catalog::layout::Catalog;
use pgpage::catalog::read::{
    attribute_rows, class_rows, enum_rows, oid_name_rows, range_rows, type_rows, CatalogProblem,
    DatabaseRow,
};
use pgpage::catalog::reader::CatalogListing;
use pgpage::visibility::TransactionLog;

use crate::args::io_reason;
use crate::ls::Ls;
use crate::rows::{print_rows, Relation, RowsArgs};

/// Runs the catalog form; returns the exit status.
pub fn run(args: &RowsArgs) -> i32 {
    match prepare(args) {
        Ok(status) => status,
        Err(reason) => {
            eprintln!("pgpage: error: {reason}");
            2
        }
    }
}

/// A relation name as SQL reads it: unquoted parts folded to lower case, `"..."` parts
/// kept as written (`""` a quote), parts split at dots outside quotes. One part is in
/// schema public.
pub fn parse_relation_name(text: &str) -> Result<(String, String), String> {
    let bad = |why: &str| format!("invalid relation name \"{text}\": {why}");
    let mut parts = vec![String::new()];
    let mut quoted = Vec::from([false]);
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
            Ok([name]) if !name.is_empty() => Ok(("public".to_owned(), name)),
            _ => Err(bad("expected schema.name or name")),
        },
    }
}

/// The database `--database` names, or the only one that is not a template or postgres.
fn choose_database<'a>(
    listing: &'a CatalogListing,
    wanted: Option<&str>,
) -> Result<&'a DatabaseRow, String> {
    let all = || {
        listing
            .databases
            .iter()
            .map(|d| d.datname.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(name) = wanted {
        return listing
            .databases
            .iter()
            .find(|d| d.datname == name)
            .ok_or_else(|| {
                format!(
                    "database \"{name}\" does not exist; the databases are: {}",
                    all()
                )
            });
    }
    let mut user = listing
        .databases
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

fn prepare(args: &RowsArgs) -> Result<i32, String> {
    let [datadir, relation] = args.paths.as_slice() else {
        return Err(format!(
            "rows without --types takes DATADIR RELATION, not {} arguments",
            args.paths.len()
        ));
    };
    if !args.toast.is_empty() {
        return Err(
            "--toast goes with --types; DATADIR RELATION finds the TOAST relation itself"
                .to_owned(),
        );
    }
    let relation = relation.to_string_lossy();
    let (schema, name) = parse_relation_name(&relation)?;
    let mut ls = Ls::open(datadir)?;
    let mut listing = ls.catalogs();
    // pg_xact and pg_multixact, as read for the catalogs.
    let log = listing
        .log
        .take()
        .unwrap_or_else(|| TransactionLog::new(ls.block_size.len(), ls.endian));
    let db = choose_database(&listing, args.database.as_deref())?;

    // The catalogs of the database, from the files `ls` named.
    let catalog_bytes = |ls: &mut Ls, catalog: Catalog| -> Vec<u8> {
        let found = listing.relations.iter().find(|r| {
            r.database.as_deref() == Some(db.datname.as_str())
                && r.relation.schema.as_deref() == Some("pg_catalog")
                && r.relation.name == catalog.name()
        });
        let Some(r) = found else {
            ls.damage.push(format!(
                "database \"{}\": no file for {}",
                db.datname,
                catalog.name()
            ));
            return Vec::new();
        };
        let r = &r.relation;
        let dir = ls.directory(r.tablespace_oid, r.database_oid);
        let files = dir.map(|d| ls.segment_files(&d, r.relfilenode));
        let mut bytes = Vec::new();
        for f in files.into_iter().flatten() {
            match fs::read(&f) {
                Ok(b) => bytes.extend_from_slice(&b),
                Err(e) => {
                    ls.damage.push(format!(
                        "could not read file \"{}\": {}: the rows of {} from it on are left out",
                        f.display(),
                        io_reason(&e),
                        catalog.name()
                    ));
                    break;
                }
            }
        }
        bytes
    };
    let major = ls.major;
    let mut problems = Vec::new();
    let bytes = catalog_bytes(&mut ls, Catalog::PgClass);
    let classes = class_rows(&ls.catalog_file(&bytes), major, &log, &mut problems);
    let bytes = catalog_bytes(&mut ls, Catalog::PgNamespace);
    let namespaces = oid_name_rows(
        &ls.catalog_file(&bytes),
        Catalog::PgNamespace,
        "nspname",
        major,
        &log,
        &mut problems,
    );
    let namespace = namespaces.iter().find(|n| n.name == schema);
    let class = namespace.and_then(|n| {
        classes
            .iter()
            .find(|c| c.relnamespace == n.oid && c.relname == name)
    });
    let shown = format!("{}.{}", quote_ident(&schema), quote_ident(&name));
    let Some(class) = class else {
        name_problems(&mut ls, &problems);
        report_damage(&ls);
        return Err(format!(
            "relation {shown} does not exist in database \"{}\"",
            db.datname
        ));
    };
    let kind = match class.relkind {
        b'r' | b'm' | b't' => None,
        b'v' => Some("a view"),
        b'c' => Some("a composite type"),
        b'f' => Some("a foreign table"),
        b'p' => Some("a partitioned table (its rows are in its partitions)"),
        b'i' | b'I' => Some("an index"),
        b'S' => Some("a sequence"),
        _ => Some("not a table"),
    };
    if let Some(kind) = kind {
        return Err(format!(
            "relation {shown} is {kind}: it has no heap rows to print"
        ));
    }
    let bytes = catalog_bytes(&mut ls, Catalog::PgAttribute);
    let attributes = attribute_rows(&ls.catalog_file(&bytes), major, &log, &mut problems);
    let bytes = catalog_bytes(&mut ls, Catalog::PgType);
    let types = type_rows(&ls.catalog_file(&bytes), major, &log, &mut problems);
    let bytes = catalog_bytes(&mut ls, Catalog::PgEnum);
    let enums = enum_rows(&ls.catalog_file(&bytes), major, &log, &mut problems);
    let bytes = catalog_bytes(&mut ls, Catalog::PgRange);
    let ranges = range_rows(&ls.catalog_file(&bytes), major, &log, &mut problems);
    name_problems(&mut ls, &problems);
    let catalogs = TypeCatalogs {
        types: &types,
        attributes: &attributes,
        enums: &enums,
        ranges: &ranges,
    };
    let columns = table_columns(class.oid, catalogs, ls.endian);
    // A pg_attribute page left out for damage may have held some of the columns: printing
    // rows with the others would print every value after a gap under the wrong column.
    if columns.len() != usize::try_from(class.relnatts).unwrap_or(0) {
        report_damage(&ls);
        return Err(format!(
            "relation {shown}: pg_attribute has {} of its {} columns (see the damage named above): its rows cannot be split",
            columns.len(),
            class.relnatts
        ));
    }

    let files_of = |ls: &Ls, oid: u32| -> Option<Vec<PathBuf>> {
        let r = listing
            .relations
            .iter()
            .map(|r| &r.relation)
            .find(|r| r.oid == oid && r.database_oid == db.oid)?;
        let dir = ls.directory(r.tablespace_oid, r.database_oid)?;
        Some(ls.segment_files(&dir, r.relfilenode))
    };
    let paths = files_of(&ls, class.oid).unwrap_or_default();
    if paths.is_empty() {
        report_damage(&ls);
        return Err(format!(
            "relation {shown}: its files are not in the data directory"
        ));
    }
    let (toast_paths, toast_name) = match class.reltoastrelid {
        0 => (Vec::new(), String::new()),
        toast => {
            let name = classes
                .iter()
                .find(|c| c.oid == toast)
                .map_or_else(|| format!("pg_toast_{}", class.oid), |c| c.relname.clone());
            let paths = files_of(&ls, toast).unwrap_or_default();
            if paths.is_empty() {
                ls.damage.push(format!(
                    "relation {shown}: the files of its TOAST relation {name} are not in the data directory"
                ));
            }
            (paths, name)
        }
    };
    report_damage(&ls);
    let relation = Relation {
        paths: &paths,
        toast_paths: &toast_paths,
        toast_name: &toast_name,
        log: &log,
        checksums: ls.checksums(),
    };
    Ok(print_rows(
        columns,
        args,
        false,
        &relation,
        !ls.damage.is_empty(),
    ))
}

/// The catalogs' unreadable pages and tuples, as `ls` names them.
fn name_problems(ls: &mut Ls, problems: &[CatalogProblem]) {
    ls.damage.extend(problems.iter().map(|p| p.describe(None)));
}

fn report_damage(ls: &Ls) {
    for line in &ls.damage {
        eprintln!("pgpage: warning: {line}");
    }
}

/// quote_ident: a name as SQL would need it written.
fn quote_ident(name: &str) -> String {
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_default_database_is_the_only_users_one() {
        let db = |oid, name: &str, template| DatabaseRow {
            oid,
            datname: name.to_owned(),
            dattablespace: 1663,
            datistemplate: template,
        };
        let mut listing = CatalogListing {
            databases: vec![
                db(1, "template1", true),
                db(4, "template0", true),
                db(5, "postgres", false),
                db(16384, "shop", false),
            ],
            ..CatalogListing::default()
        };
        assert_eq!(choose_database(&listing, None).map(|d| d.oid), Ok(16384));
        assert_eq!(
            choose_database(&listing, Some("postgres")).map(|d| d.oid),
            Ok(5)
        );
        listing.databases.push(db(16385, "other", false));
        let err = choose_database(&listing, None).unwrap_err();
        assert!(
            err.contains("template1, template0, postgres, shop, other"),
            "{err}"
        );
        let err = choose_database(&listing, Some("nope")).unwrap_err();
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
}
