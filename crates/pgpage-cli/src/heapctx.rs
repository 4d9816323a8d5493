//! What verify_heapam's xid and attribute-count checks need beyond a heap file's pages
//! (am::heap::check::HeapContext), found from the data directory the file lies in: pg_control's
//! checkpoint, the relation's pg_class row, pg_xact and pg_multixact.

use std::path::{Path, PathBuf};

use pgpage::am::heap::check::HeapContext;
use pgpage::cluster::catalog::names::NamedRelation;
use pgpage::cluster::control::ControlFile;
use pgpage::file::parse_relation_file_name;
use pgpage::page::kind::Fork;
use pgpage::tuple::visibility::TransactionLog;

use crate::ls::Ls;
use crate::verify::cluster::Cluster;

/// The owned parts a [`HeapContext`] borrows.
pub struct HeapSource {
    control: ControlFile,
    relation: NamedRelation,
    log: Option<TransactionLog>,
}

impl HeapSource {
    pub fn context(&self) -> Option<HeapContext<'_>> {
        pgpage::cluster::hints::heap_context(&self.control, &self.relation, self.log.as_ref())
    }

    /// pg_class.relname, as the server's messages quote the relation.
    pub fn relname(&self) -> &str {
        &self.relation.name
    }
}

/// The data directory above `file` (the first directory with PG_VERSION and
/// global/pg_control) and the file's path inside it. The path as given is searched first,
/// links not followed: a tablespace's file is `D/pg_tblspc/OID/PG_.../DB/FILENODE`, and
/// its canonical path (the tablespace's own directory, outside D) has no data directory
/// above it. Then the canonical path (a file named through a link to the data directory).
pub fn data_directory(file: &Path) -> Option<(PathBuf, PathBuf)> {
    let find = |file: &Path| -> Option<(PathBuf, PathBuf)> {
        let root = file
            .ancestors()
            .skip(1)
            .find(|d| d.join("PG_VERSION").is_file() && d.join("global/pg_control").is_file())?;
        let inside = file.strip_prefix(root).ok()?.to_path_buf();
        Some((root.canonicalize().ok()?, inside))
    };
    let as_given = std::path::absolute(file).ok().filter(|p| {
        // `..` would make the ancestors lie; such a path goes the canonical way.
        !p.components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
    });
    as_given
        .as_deref()
        .and_then(find)
        .or_else(|| find(&file.canonicalize().ok()?))
}

/// The heap-check context of a main-fork relation file inside a data directory whose
/// pg_control can be trusted and whose catalogs name the file; None otherwise (the checks
/// that need it are then not judged).
pub fn heap_source(file: &Path) -> Option<HeapSource> {
    let (root, inside) = data_directory(file)?;
    let name = parse_relation_file_name(inside.file_name()?.to_str()?)?;
    if name.fork != Fork::Main {
        return None;
    }
    let dir = inside.parent()?.to_str()?.to_owned();
    let control = Cluster::read(&root.display().to_string(), &root)
        .trusted()?
        .clone();
    let mut ls = Ls::open(&root).ok()?;
    let listing = ls.catalogs();
    let relation = listing
        .relations
        .iter()
        .map(|r| &r.relation)
        .find(|r| {
            r.relfilenode == name.relfilenode
                && listing
                    .directory(r.tablespace_oid, r.database_oid)
                    .as_deref()
                    == Some(dir.as_str())
        })?
        .clone();
    Some(HeapSource {
        control,
        relation,
        log: listing.log,
    })
}
