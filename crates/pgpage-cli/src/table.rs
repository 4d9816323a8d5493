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
};
use pgpage::catalog::table::{
    choose_database, find_class, parse_relation_name, quote_ident, toast_of,
};

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
    let listing = ls.catalogs();
    let db = choose_database(&listing.databases, args.database.as_deref())?;
    let log = ls.transaction_log();

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
    let class = match find_class(&classes, &namespaces, &schema, &name, &db.datname) {
        Ok(class) => class,
        Err(why) => {
            name_problems(&mut ls, &problems);
            report_damage(&ls);
            return Err(why);
        }
    };
    let shown = format!("{}.{}", quote_ident(&schema), quote_ident(&name));
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
        enums: &enums,
        ranges: &ranges,
    };
    let columns = table_columns(class.oid, &attributes, catalogs, ls.endian);
    if columns.is_empty() {
        report_damage(&ls);
        return Err(format!(
            "relation {shown}: pg_attribute has no columns for it"
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
    let (toast_paths, toast_name) = match toast_of(class, &classes) {
        None => (Vec::new(), String::new()),
        Some((toast, name)) => {
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
