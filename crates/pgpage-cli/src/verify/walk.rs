//! Which files a PATH argument stands for: a file as named, or a directory walked as
//! pg_checksums' scan_directory walks a data directory (global/, base/, pg_tblspc/; temporary
//! entries and everything that is not a relation file name passed over). Nothing is opened.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use pgpage::file::scan::ChecksumsKnown;
use pgpage::file::{is_temporary_entry, parse_relation_file_name, RelationFileName};
use pgpage::page::kind::Fork;

use super::cluster::Cluster;
use crate::args::io_reason;

/// What the walk is told beyond the paths.
#[derive(Clone, Copy, Debug, Default)]
pub struct WalkOptions {
    /// Segment number for every file, instead of the one in its name.
    pub segment: Option<u32>,
    /// Only the files of this relfilenode (pg_checksums -f).
    pub filenode: Option<u32>,
}

/// One relation file to verify.
pub struct FileJob {
    /// The path as printed: as given, or the directory as given joined with `/name` (exactly
    /// as pg_checksums builds it, so its lines and ours compare equal).
    pub display: String,
    pub path: PathBuf,
    pub len: u64,
    pub segno: u32,
    pub fork: Fork,
    /// Its name is a relation file name (every file a walk finds; a file named on the
    /// command line may not be).
    pub named_like_relation: bool,
    /// Named on the command line rather than found in a directory.
    pub explicit: bool,
    /// The data directory it was found in: an index into `Walked::clusters`.
    pub cluster: Option<usize>,
}

/// What a PATH argument expanded to, in output order.
pub enum Item {
    File(FileJob),
    /// A path or directory that cannot be verified, with the reason.
    Failed(String),
    /// Something the user should know that does not stop verification.
    Warning(String),
    /// A fact human output states before the files it concerns (checksums off in a
    /// cluster); JSON says it in its own keys.
    Note(String),
}

impl Item {
    pub fn file_len(&self) -> u64 {
        match self {
            Item::File(job) => job.len,
            Item::Failed(_) | Item::Warning(_) | Item::Note(_) => 0,
        }
    }
}

/// Whether a directory is a data directory, the only thing `-f` may be given (as
/// pg_checksums takes nothing else).
pub fn is_data_directory(path: &Path) -> bool {
    path.join("base").is_dir() || path.join("global").is_dir()
}

/// The files to verify, in output order, and the data directories they were found in.
pub struct Walked {
    pub items: Vec<Item>,
    pub clusters: Vec<Cluster>,
}

/// Expands every PATH argument, in order.
pub fn expand_all(paths: &[PathBuf], options: WalkOptions) -> Walked {
    let mut walk = Walk {
        options,
        items: Vec::new(),
        clusters: Vec::new(),
        cluster: None,
        named_clusters: HashMap::new(),
        visited: HashSet::new(),
    };
    for path in paths {
        walk.expand(path);
    }
    Walked {
        items: walk.items,
        clusters: walk.clusters,
    }
}

/// What the walk found so far, and the directories it has been in.
struct Walk {
    options: WalkOptions,
    items: Vec<Item>,
    clusters: Vec<Cluster>,
    /// The data directory being walked.
    cluster: Option<usize>,
    /// Data directories of files named on the command line, by path.
    named_clusters: HashMap<PathBuf, usize>,
    visited: HashSet<(u64, u64)>,
}

impl Walk {
    fn fail(&mut self, reason: String) {
        self.items.push(Item::Failed(reason));
    }

    fn files(&self) -> usize {
        self.items
            .iter()
            .filter(|i| matches!(i, Item::File(_)))
            .count()
    }

    /// Expands one PATH argument into files to verify, or into the reason it cannot be.
    fn expand(&mut self, path: &Path) {
        let display = path.to_string_lossy().into_owned();
        let meta = match fs::metadata(path) {
            Ok(m) => m,
            Err(e) => return self.fail(format!("could not open \"{display}\": {}", io_reason(&e))),
        };
        if meta.is_file() {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(parse_relation_file_name);
            let cluster = self.cluster_of_file(path);
            self.items.push(Item::File(FileJob {
                display,
                path: path.to_path_buf(),
                len: meta.len(),
                segno: self.options.segment.or(name.map(|n| n.segno)).unwrap_or(0),
                fork: name.map_or(Fork::Main, |n| n.fork),
                named_like_relation: name.is_some(),
                explicit: true,
                cluster,
            }));
            return;
        }
        if !meta.is_dir() {
            return self.fail(format!("\"{display}\" is neither a file nor a directory"));
        }
        let files_before = self.files();
        if is_data_directory(path) {
            self.data_dir(&display, path);
        } else {
            self.dir(&display, path, None);
        }
        if self.files() == files_before {
            self.fail(match self.options.filenode {
                Some(f) => format!("nothing to verify in \"{display}\": no file of filenode {f}"),
                None => format!("nothing to verify in \"{display}\": no relation files found"),
            });
        }
    }

    /// Reads a data directory's pg_control and PG_VERSION, says what the user must know of
    /// them before its files, and keeps them; their index in `clusters`.
    fn read_cluster(&mut self, display: &str, path: &Path) -> usize {
        let cluster = Cluster::read(display, path);
        for warning in cluster.warnings() {
            self.items.push(Item::Warning(warning));
        }
        if cluster.checksums() == ChecksumsKnown::Off {
            // pg_checksums' words, where it refuses to check such a cluster.
            self.items.push(Item::Note(format!(
                "data checksums are not enabled in cluster \"{display}\": its pages are \
                 checked by their headers only, and a stored checksum means nothing"
            )));
        }
        if let Some(words) = cluster.checksums().change_words() {
            self.items
                .push(Item::Note(format!("cluster \"{display}\": {words}")));
        }
        self.clusters.push(cluster);
        self.clusters.len().saturating_sub(1)
    }

    /// The data directory a file named on the command line lies in (`D/base/5/16385`,
    /// `D/global/1262`, `D/pg_tblspc/16400/PG_16_.../5/16385` as given, links not followed),
    /// so that a file is judged with its cluster's pg_control as a walk judges it: a cluster
    /// whose checksums were turned off keeps stale checksums in its pages. Read once per
    /// directory.
    fn cluster_of_file(&mut self, path: &Path) -> Option<usize> {
        let dir = path.ancestors().skip(2).take(4).find(|d| {
            let d = if d.as_os_str().is_empty() {
                Path::new(".")
            } else {
                d
            };
            d.join("global").join("pg_control").is_file() && d.join("PG_VERSION").is_file()
        })?;
        let top = path.strip_prefix(dir).ok()?.components().next()?;
        if !["base", "global", "pg_tblspc"].contains(&top.as_os_str().to_str()?) {
            return None;
        }
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        if let Some(&i) = self.named_clusters.get(dir) {
            return Some(i);
        }
        let i = self.read_cluster(&dir.to_string_lossy(), dir);
        self.named_clusters.insert(dir.to_path_buf(), i);
        Some(i)
    }

    /// pg_checksums' scan order: global, base, pg_tblspc; pg_control and PG_VERSION read
    /// first.
    fn data_dir(&mut self, display: &str, path: &Path) {
        let cluster = self.read_cluster(display, path);
        // A tablespace holds one directory per major version: PG_<major>_<catversion>.
        let major = self
            .clusters
            .get(cluster)
            .and_then(|c| c.pg_version.clone())
            .unwrap_or_else(|| "15".to_owned());
        let outer = self.cluster.replace(cluster);
        // pg_checksums refuses a running cluster; we read it, but pages the server writes
        // while we read them can come out torn.
        if path.join("postmaster.pid").exists() {
            self.items.push(Item::Warning(format!(
                "\"{display}/postmaster.pid\" exists: if the server is running, pages it writes \
                 while they are read can show as damaged"
            )));
        }
        for sub in ["global", "base", "pg_tblspc"] {
            let dir = path.join(sub);
            if dir.is_dir() {
                let tablespaces = (sub == "pg_tblspc").then_some(major.as_str());
                self.dir(&format!("{display}/{sub}"), &dir, tablespaces);
            }
        }
        self.cluster = outer;
    }

    /// Walks a directory as pg_checksums' scan_directory does: temporary entries skipped,
    /// regular files verified when their names are relation file names (which leaves out
    /// pg_control, pg_filenode.map, pg_internal.init*, PG_VERSION and config_exec_params)
    /// and, given `-f`, of that relfilenode; directories and links to directories entered.
    /// In pg_tblspc (`tablespaces` = the major version), each link is entered through its
    /// `PG_<major>_<catversion>` directory.
    fn dir(&mut self, display: &str, dir: &Path, tablespaces: Option<&str>) {
        // A link back up the tree would otherwise be walked forever.
        if let Ok(meta) = fs::metadata(dir) {
            if !self.visited.insert((meta.dev(), meta.ino())) {
                return;
            }
        }
        let entries = match fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) => {
                return self.fail(format!(
                    "could not open directory \"{display}\": {}",
                    io_reason(&e)
                ))
            }
        };
        // Sorted by relation file name (numerically), then by name: a stable, readable order
        // (pg_checksums takes readdir's).
        type Entry = (Option<RelationFileName>, String, fs::DirEntry);
        let mut names: Vec<Entry> = Vec::new();
        for entry in entries {
            match entry {
                Ok(entry) => {
                    // A name that is not UTF-8 is not a relation file nor a PostgreSQL
                    // directory.
                    if let Ok(name) = entry.file_name().into_string() {
                        if !is_temporary_entry(&name) {
                            names.push((parse_relation_file_name(&name), name, entry));
                        }
                    }
                }
                Err(e) => self.fail(format!(
                    "could not read directory \"{display}\": {}",
                    io_reason(&e)
                )),
            }
        }
        names.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        for (rel, name, entry) in names {
            let shown = format!("{display}/{name}");
            let path = entry.path();
            let kind = match entry.file_type() {
                Ok(k) => k,
                Err(e) => {
                    self.fail(format!(
                        "could not stat file \"{shown}\": {}",
                        io_reason(&e)
                    ));
                    continue;
                }
            };
            if kind.is_file() {
                let Some(rel) = rel else {
                    continue;
                };
                if self.options.filenode.is_some_and(|f| f != rel.relfilenode) {
                    continue;
                }
                match entry.metadata() {
                    Ok(meta) => self.items.push(Item::File(FileJob {
                        display: shown,
                        path,
                        len: meta.len(),
                        segno: self.options.segment.unwrap_or(rel.segno),
                        fork: rel.fork,
                        named_like_relation: true,
                        explicit: false,
                        cluster: self.cluster,
                    })),
                    Err(e) => self.fail(format!(
                        "could not stat file \"{shown}\": {}",
                        io_reason(&e)
                    )),
                }
            } else if kind.is_dir() || (kind.is_symlink() && path.is_dir()) {
                match tablespaces {
                    Some(major) => self.tablespace(&shown, &path, major),
                    // A data directory inside a directory (a backup's, say) is scanned as one.
                    None if path.join("PG_VERSION").is_file() && path.join("base").is_dir() => {
                        self.data_dir(&shown, &path);
                    }
                    None => self.dir(&shown, &path, None),
                }
            }
        }
    }

    /// Enters one tablespace link of pg_tblspc through its `PG_<major>_<catversion>`
    /// directory.
    fn tablespace(&mut self, display: &str, link: &Path, major: &str) {
        let prefix = format!("PG_{major}_");
        let version_dir = fs::read_dir(link).ok().and_then(|entries| {
            let mut names: Vec<String> = entries
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| n.starts_with(&prefix))
                .collect();
            names.sort();
            names.pop()
        });
        match version_dir {
            Some(v) => self.dir(&format!("{display}/{v}"), &link.join(&v), None),
            None => self.fail(format!(
                "could not find \"{display}/{prefix}*\": not a tablespace directory"
            )),
        }
    }
}
