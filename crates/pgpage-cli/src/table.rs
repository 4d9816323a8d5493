//! `pgpage rows DATADIR RELATION`: a table's rows found from the catalogs on disk by the
//! core's `cluster::catalog::table::TableReader` (its database, schema and name to its files, its
//! columns, its TOAST relation, pg_xact and pg_multixact), given the files it asks for from
//! disk (docs/contracts.md, "rows").

use std::fs;

use pgpage::cluster::catalog::table::TableReader;

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
    let relation = relation.to_string_lossy().into_owned();
    pgpage::cluster::catalog::table::parse_relation_name(&relation)?;
    let mut ls = Ls::open(datadir)?;
    let mut reader = TableReader::new(
        ls.paths(),
        &format!("{}/", ls.display),
        ls.read_with(),
        ls.checksums(),
        args.database.clone(),
        relation,
    );
    loop {
        let wanted = reader.wanted();
        if wanted.is_empty() {
            break;
        }
        for path in wanted {
            let bytes = match fs::read(ls.root.join(&path)) {
                Ok(b) => Some(b),
                Err(e) => {
                    ls.damage.push(format!(
                        "could not read file \"{}/{path}\": {}",
                        ls.display,
                        io_reason(&e)
                    ));
                    None
                }
            };
            reader.give(&path, bytes);
        }
    }
    let table = match reader.finish() {
        Ok(table) => table,
        Err(refused) => {
            ls.damage.extend(refused.damage);
            report_damage(&ls);
            return Err(refused.reason);
        }
    };
    ls.damage.extend(table.damage);
    report_damage(&ls);
    let paths: Vec<_> = table.paths.iter().map(|p| ls.root.join(p)).collect();
    let toast_paths: Vec<_> = table.toast_paths.iter().map(|p| ls.root.join(p)).collect();
    let relation = Relation {
        paths: &paths,
        toast_paths: &toast_paths,
        toast_name: &table.toast_name,
        log: &table.log,
        checksums: table.checksums,
        row_key: table.row_key.as_deref(),
    };
    Ok(print_rows(
        table.columns,
        args,
        false,
        &relation,
        !ls.damage.is_empty(),
    ))
}

fn report_damage(ls: &Ls) {
    for line in &ls.damage {
        eprintln!("pgpage: warning: {line}");
    }
}
