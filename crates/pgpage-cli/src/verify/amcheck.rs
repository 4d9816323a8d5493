//! `verify --amcheck`: what the core's structural checks know of each file's relation, from
//! its data directory's catalogs (read once per directory, each relation's once for all its
//! segments): the kind of its pages, a heap's pg_class row and horizon, an index's key
//! columns; and the relation's name as pg_amcheck prints it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use pgpage::cluster::catalog::names::NamedRelation;
use pgpage::cluster::structures::relation_structure;
use pgpage::file::scan::Structure;
use pgpage::page::kind::{Fork, PageKind};

use super::cluster::Cluster;
use super::walk::Item;
use crate::heapctx::data_directory;
use crate::ls::Ls;

/// A relation as the structural checks see it.
pub struct Checked {
    /// pg_amcheck's name for it: `heap table "db.schema.rel"`, `btree index "db.schema.idx"`.
    pub name: Option<String>,
    /// The relation's own name, as amcheck's messages quote it (`index "idx"`).
    pub relname: Option<String>,
    pub structure: Arc<Structure>,
    /// Why its item order is not checked (an index whose key types pgpage cannot order).
    pub unchecked: Option<String>,
}

/// One data directory's relations by (directory of their files, relfilenode).
struct Directory {
    relations: HashMap<(String, u32), Arc<Checked>>,
}

/// Per item, what the checks know of its relation: a file of a data directory named by the
/// catalogs gets its relation's; any other main-fork file the checks of its pages alone.
pub fn relations(items: &[Item]) -> Vec<Option<Arc<Checked>>> {
    let mut directories: HashMap<PathBuf, Option<Directory>> = HashMap::new();
    let bare = Arc::new(Checked {
        name: None,
        relname: None,
        structure: Arc::new(Structure::default()),
        unchecked: None,
    });
    items
        .iter()
        .map(|item| {
            let Item::File(job) = item else { return None };
            if job.fork != Fork::Main {
                return None;
            }
            let found = data_directory(&job.path).and_then(|(root, inside)| {
                let dir = directories
                    .entry(root.clone())
                    .or_insert_with(|| read_directory(&root));
                let name = pgpage::file::parse_relation_file_name(inside.file_name()?.to_str()?)?;
                let parent = inside.parent()?.to_str()?.replace('\\', "/");
                dir.as_ref()?
                    .relations
                    .get(&(parent, name.relfilenode))
                    .cloned()
            });
            Some(found.unwrap_or_else(|| Arc::clone(&bare)))
        })
        .collect()
}

fn read_directory(root: &std::path::Path) -> Option<Directory> {
    let control = Cluster::read(&root.display().to_string(), root)
        .trusted()?
        .clone();
    let mut ls = Ls::open(root).ok()?;
    let listing = ls.catalogs_with_index_keys();
    let xact = listing.log.clone().map(Arc::new);
    let mut relations = HashMap::new();
    for listed in &listing.relations {
        let r = &listed.relation;
        let Some(dir) = listing.directory(r.tablespace_oid, r.database_oid) else {
            continue;
        };
        let (structure, unchecked) =
            relation_structure(&listing, listed, Some(&control), xact.as_ref());
        let checked = Checked {
            name: name(listed.database.as_deref(), r, structure.kind),
            relname: Some(r.name.clone()),
            structure: Arc::new(structure),
            unchecked,
        };
        relations.insert((dir, r.relfilenode), Arc::new(checked));
    }
    Some(Directory { relations })
}

/// pg_amcheck's `heap table "db.schema.rel"` / `btree index "db.schema.idx"`; other access
/// methods' indexes as `gin index "..."`.
fn name(database: Option<&str>, r: &NamedRelation, kind: Option<PageKind>) -> Option<String> {
    let what = match (r.relkind, kind?) {
        ('r' | 't' | 'm', PageKind::Heap) => "heap table".to_owned(),
        ('i', PageKind::Unknown) => format!("{} index", r.am.as_deref().unwrap_or("unknown")),
        ('i', k) => format!("{} index", k.as_str()),
        _ => return None,
    };
    let schema = r.schema.as_deref().unwrap_or("?");
    let db = database.unwrap_or("(shared)");
    Some(format!("{what} \"{db}.{schema}.{}\"", r.name))
}
