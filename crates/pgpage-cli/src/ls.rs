//! `pgpage ls`: every relation with storage in every database of a data directory, named
//! from the catalogs on disk (docs/contracts.md, "ls --json"), with its forks, blocks and problem
//! pages; files no catalog row claims are listed unnamed. The catalogs are read by the core
//! (pgpage::catalog); this module finds and reads their files.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use pgpage::cluster::catalog::names::{NamedRelation, DEFAULTTABLESPACE_OID, GLOBALTABLESPACE_OID};
use pgpage::cluster::catalog::reader::{CatalogListing, CatalogReader, ReadWith};
use pgpage::file::datadir::{is_skipped_data_dir_file, parse_pg_version};
use pgpage::file::scan::{ChecksumsKnown, FileScan};
use pgpage::file::{parse_relation_file_name, Geometry};
use pgpage::page::kind::Fork;
use pgpage::{BlockSize, Endian};
use serde::Serialize;

use crate::args::io_reason;
use crate::input::{open_regular, read_full_at, AlignedBuf};
use crate::verify::cluster::Cluster;

#[derive(clap::Args, Debug)]
pub struct LsArgs {
    /// Print one JSON object: {"relations": [...]}.
    #[arg(long)]
    pub json: bool,
    /// The data directory.
    pub datadir: PathBuf,
}

/// Bytes read at once when a file is scanned for problem pages: 2 MiB, whole pages of every
/// block size.
const SCAN_BYTES: usize = 1 << 21;

/// One relation file of a directory: fork, segment and length.
#[derive(Clone, Copy, Debug)]
struct DirFile {
    fork: Fork,
    segno: u32,
    len: u64,
}

/// One entry of the listing (docs/contracts.md, "ls --json").
#[derive(Serialize, Debug)]
struct Entry {
    database_oid: u32,
    database: Option<String>,
    tablespace_oid: u32,
    relfilenode: u32,
    oid: Option<u32>,
    schema: Option<String>,
    name: Option<String>,
    relkind: Option<char>,
    am: Option<String>,
    toast_relfilenode: Option<u32>,
    forks: Vec<&'static str>,
    blocks: u64,
    problems: u64,
}

/// What the run needs from the data directory, and what went wrong so far (also what
/// `rows` reads a data directory's catalogs with).
pub(crate) struct Ls {
    pub(crate) root: PathBuf,
    pub(crate) display: String,
    pub(crate) major: u32,
    pub(crate) block_size: BlockSize,
    pub(crate) endian: Endian,
    checksums: ChecksumsKnown,
    next_multi: Option<(u32, u64)>,
    /// pg_tblspc/OID/PG_MAJOR_CATVERSION of each tablespace with a link.
    tablespaces: BTreeMap<u32, PathBuf>,
    /// Lines for stderr, each a damaged or skipped thing.
    pub(crate) damage: Vec<String>,
    /// One read buffer for every file scanned: most files are small, and zeroing a fresh
    /// buffer per file costs more than reading it. Page aligned: big files are read into it
    /// four times as fast (input::AlignedBuf).
    buf: AlignedBuf,
}

/// Runs the command; returns the exit status.
pub fn run(args: &LsArgs) -> i32 {
    let mut ls = match Ls::open(&args.datadir) {
        Ok(ls) => ls,
        Err(reason) => {
            eprintln!("pgpage ls: {reason}");
            return 2;
        }
    };
    let entries = ls.entries();
    let printed = if args.json {
        print_json(&entries)
    } else {
        print_text(&entries)
    };
    for line in &ls.damage {
        eprintln!("pgpage ls: {line}");
    }
    if let Err(e) = printed {
        if e.kind() != io::ErrorKind::BrokenPipe {
            eprintln!("pgpage ls: {e}");
        }
        return 2;
    }
    i32::from(!ls.damage.is_empty())
}

impl Ls {
    pub(crate) fn open(root: &Path) -> Result<Ls, String> {
        let display = root.display().to_string();
        if let Err(e) = fs::read_dir(root) {
            return Err(format!(
                "could not open directory \"{display}\": {}",
                io_reason(&e)
            ));
        }
        let version = fs::read(root.join("PG_VERSION")).map_err(|e| {
            format!(
                "could not read \"{display}/PG_VERSION\": {}: not a data directory",
                io_reason(&e)
            )
        })?;
        let major = parse_pg_version(&version)
            .ok_or_else(|| format!("\"{display}/PG_VERSION\" names no PostgreSQL version"))?;
        if !(pgpage::cluster::catalog::layout::OLDEST..=pgpage::cluster::catalog::layout::NEWEST)
            .contains(&major)
        {
            return Err(format!(
                "PostgreSQL {major} data directory \"{display}\": pgpage reads the catalogs of PostgreSQL 13 to 19"
            ));
        }
        let cluster = Cluster::read(&display, root);
        let damage = cluster.warnings();
        let with = ReadWith::from_control(major, cluster.trusted());
        Ok(Ls {
            root: root.to_path_buf(),
            display,
            major,
            block_size: with.block_size,
            endian: with.endian,
            checksums: cluster.checksums(),
            next_multi: with.next_multi,
            tablespaces: BTreeMap::new(),
            damage,
            buf: AlignedBuf::new(SCAN_BYTES),
        })
    }

    fn shown(&self, rel: &Path) -> String {
        format!("{}/{}", self.display, rel.display())
    }

    /// Every path of the directories the catalogs and the transaction status live in,
    /// relative to the data directory: what the core's reader chooses from.
    pub(crate) fn paths(&self) -> Vec<String> {
        let list = |rel: &str| -> Vec<String> {
            fs::read_dir(self.root.join(rel))
                .map(|d| {
                    d.flatten()
                        .filter_map(|e| e.file_name().to_str().map(|n| format!("{rel}/{n}")))
                        .collect()
                })
                .unwrap_or_default()
        };
        let mut dirs = vec![
            "global".to_owned(),
            "pg_xact".to_owned(),
            "pg_multixact/offsets".to_owned(),
            "pg_multixact/members".to_owned(),
        ];
        dirs.extend(list("base"));
        for link in list("pg_tblspc") {
            for version in list(&link) {
                dirs.extend(list(&version));
            }
        }
        dirs.iter().flat_map(|d| list(d)).collect()
    }

    /// Every relation named from the catalogs, then every unclaimed file, in order.
    fn entries(&mut self) -> Vec<Entry> {
        let listing = self.catalogs();
        let names: BTreeMap<u32, String> = listing
            .databases
            .iter()
            .map(|d| (d.oid, d.datname.clone()))
            .collect();
        let named = listing
            .relations
            .into_iter()
            .map(|l| (l.database, l.relation))
            .collect();
        self.listing(named, &names)
    }

    /// What the catalogs name (the core's CatalogReader, fed from disk); what could not be
    /// read is added to `damage`.
    pub(crate) fn catalogs(&mut self) -> CatalogListing {
        self.read_catalogs(false)
    }

    /// `catalogs`, with every B-tree and GIN index's key columns (`verify --amcheck`).
    pub(crate) fn catalogs_with_index_keys(&mut self) -> CatalogListing {
        self.read_catalogs(true)
    }

    fn read_catalogs(&mut self, index_keys: bool) -> CatalogListing {
        let mut reader = CatalogReader::new(
            self.paths(),
            self.read_with(),
            &format!("{}/", self.display),
        );
        if index_keys {
            reader.read_index_keys();
        }
        loop {
            let wanted = reader.wanted();
            if wanted.is_empty() {
                break;
            }
            for path in wanted {
                let bytes = match fs::read(self.root.join(&path)) {
                    Ok(b) => Some(b),
                    Err(e) => {
                        self.damage.push(format!(
                            "could not read file \"{}/{path}\": {}",
                            self.display,
                            io_reason(&e)
                        ));
                        None
                    }
                };
                reader.give(&path, bytes);
            }
        }
        let mut listing = reader.finish();
        self.damage.append(&mut listing.damage);
        self.tablespaces = listing
            .tablespaces
            .iter()
            .map(|(oid, dir)| (*oid, PathBuf::from(dir)))
            .collect();
        listing
    }

    /// How the directory's catalog pages are read.
    pub(crate) fn read_with(&self) -> ReadWith {
        ReadWith {
            major: self.major,
            block_size: self.block_size,
            endian: self.endian,
            checksums: self.checksums.verified_on_read(),
            next_multi: self.next_multi,
        }
    }

    /// Data checksums on or off, as pg_control says if it can be trusted.
    pub(crate) fn checksums(&self) -> ChecksumsKnown {
        self.checksums
    }

    /// Joins the named relations with the files on disk; files nobody claims come last in
    /// their directory's order.
    fn listing(
        &mut self,
        named: Vec<(Option<String>, NamedRelation)>,
        databases: &BTreeMap<u32, String>,
    ) -> Vec<Entry> {
        // Every directory that holds relation files: global, base/N, pg_tblspc/T/PG_x/N.
        let mut dirs: BTreeMap<(u32, u32), PathBuf> = BTreeMap::new();
        dirs.insert((GLOBALTABLESPACE_OID, 0), PathBuf::from("global"));
        let mut spaces: Vec<(u32, PathBuf)> = vec![(DEFAULTTABLESPACE_OID, PathBuf::from("base"))];
        spaces.extend(self.tablespaces.iter().map(|(t, p)| (*t, p.clone())));
        for (t, base) in spaces {
            let Ok(entries) = fs::read_dir(self.root.join(&base)) else {
                continue;
            };
            for e in entries.flatten() {
                if let Some(db) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) {
                    dirs.insert((t, db), base.join(e.file_name()));
                }
            }
        }
        let mut files: BTreeMap<(u32, u32), BTreeMap<u32, Vec<DirFile>>> = BTreeMap::new();
        for (key, dir) in &dirs {
            let Ok(entries) = fs::read_dir(self.root.join(dir)) else {
                continue;
            };
            let by_node = files.entry(*key).or_default();
            for e in entries.flatten() {
                let name = e.file_name();
                let Some(name) = name.to_str() else { continue };
                if is_skipped_data_dir_file(name) {
                    continue;
                }
                let (Some(parsed), Ok(meta)) = (parse_relation_file_name(name), e.metadata())
                else {
                    continue;
                };
                if meta.is_file() {
                    by_node
                        .entry(parsed.relfilenode)
                        .or_default()
                        .push(DirFile {
                            fork: parsed.fork,
                            segno: parsed.segno,
                            len: meta.len(),
                        });
                }
            }
        }
        let mut entries = Vec::new();
        let mut claimed: BTreeSet<(u32, u32, u32)> = BTreeSet::new();
        for (database, r) in named {
            let key = (r.tablespace_oid, r.database_oid);
            claimed.insert((key.0, key.1, r.relfilenode));
            let found = files
                .get(&key)
                .and_then(|f| f.get(&r.relfilenode))
                .cloned()
                .unwrap_or_default();
            let dir = dirs.get(&key).cloned();
            let (forks, blocks, problems) = self.measure(dir.as_deref(), r.relfilenode, &found);
            entries.push(Entry {
                database_oid: r.database_oid,
                database,
                tablespace_oid: r.tablespace_oid,
                relfilenode: r.relfilenode,
                oid: Some(r.oid),
                schema: r.schema,
                name: Some(r.name),
                relkind: Some(r.relkind),
                am: r.am,
                toast_relfilenode: r.toast_relfilenode,
                forks,
                blocks,
                problems,
            });
        }
        for ((tablespace, database), by_node) in &files {
            let dir = dirs.get(&(*tablespace, *database)).cloned();
            for (node, found) in by_node {
                if claimed.contains(&(*tablespace, *database, *node)) {
                    continue;
                }
                let (forks, blocks, problems) = self.measure(dir.as_deref(), *node, found);
                entries.push(Entry {
                    database_oid: *database,
                    database: databases.get(database).cloned(),
                    tablespace_oid: *tablespace,
                    relfilenode: *node,
                    oid: None,
                    schema: None,
                    name: None,
                    relkind: None,
                    am: None,
                    toast_relfilenode: None,
                    forks,
                    blocks,
                    problems,
                });
            }
        }
        entries.sort_by(|a, b| {
            (a.database_oid, a.tablespace_oid, a.relfilenode).cmp(&(
                b.database_oid,
                b.tablespace_oid,
                b.relfilenode,
            ))
        });
        entries
    }

    /// A relation's forks, its main fork's blocks and its problem pages (verify's verdict
    /// of each file, pgpage::scan).
    fn measure(
        &mut self,
        dir: Option<&Path>,
        relfilenode: u32,
        found: &[DirFile],
    ) -> (Vec<&'static str>, u64, u64) {
        let forks: BTreeSet<Fork> = found.iter().map(|f| f.fork).collect();
        let bytes = u64::from(self.block_size.bytes());
        let blocks = found
            .iter()
            .filter(|f| f.fork == Fork::Main)
            .map(|f| f.len.checked_div(bytes).unwrap_or(0))
            .sum();
        let mut problems = 0u64;
        if let Some(dir) = dir {
            for f in found {
                let suffix = match f.fork {
                    Fork::Main => String::new(),
                    other => format!("_{}", other.as_str()),
                };
                let seg = match f.segno {
                    0 => String::new(),
                    n => format!(".{n}"),
                };
                let rel = dir.join(format!("{relfilenode}{suffix}{seg}"));
                let mut buf = std::mem::replace(&mut self.buf, AlignedBuf::new(0));
                let scanned = self.scan(&self.root.join(&rel), f, buf.as_mut());
                self.buf = buf;
                match scanned {
                    Ok(n) => problems = problems.saturating_add(n),
                    Err(e) => self.damage.push(format!(
                        "could not read file \"{}\": {}",
                        self.shown(&rel),
                        io_reason(&e)
                    )),
                }
            }
        }
        (
            forks.into_iter().map(Fork::as_str).collect(),
            blocks,
            problems,
        )
    }

    /// verify's count of problem pages in one file.
    fn scan(&self, path: &Path, f: &DirFile, buf: &mut [u8]) -> io::Result<u64> {
        if f.len == 0 {
            return Ok(0);
        }
        let geometry = Geometry {
            block_size: self.block_size,
            endian: self.endian,
            block_size_assumed: false,
            byte_order_detected: false,
        };
        let mut scan = FileScan::new(geometry, f.segno, f.len)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?;
        let file = open_regular(path)?;
        let page = self.block_size.len();
        let want = usize::try_from(f.len).unwrap_or(usize::MAX).min(SCAN_BYTES);
        let buf = buf.get_mut(..want).unwrap_or_default();
        let mut offset = 0u64;
        let mut block = 0u32;
        loop {
            let (got, err) = read_full_at(&file, buf, offset);
            if let Some(e) = err {
                return Err(e);
            }
            let pages = got.checked_div(page).unwrap_or(0);
            let whole = pages.saturating_mul(page);
            if let Some(chunk) = buf.get(..whole) {
                scan.chunk(chunk, block);
            }
            if got < buf.len() {
                break;
            }
            offset = offset.saturating_add(got as u64);
            block = block.saturating_add(u32::try_from(pages).unwrap_or(u32::MAX));
        }
        Ok(scan.finish(self.checksums).counts.problems())
    }
}

fn print_json(entries: &[Entry]) -> io::Result<()> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    #[derive(Serialize)]
    struct Listing<'a> {
        relations: &'a [Entry],
    }
    serde_json::to_writer(&mut out, &Listing { relations: entries })?;
    writeln!(out)?;
    out.flush()
}

/// quote_ident's rule: lower-case letters, digits and underscores, not starting with a
/// digit, print as they are; anything else in double quotes.
fn quote_ident(s: &str) -> String {
    let plain = !s.is_empty()
        && !s.starts_with(|c: char| c.is_ascii_digit())
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if plain {
        s.to_owned()
    } else {
        format!("\"{}\"", s.replace('"', "\"\""))
    }
}

fn print_text(entries: &[Entry]) -> io::Result<()> {
    let header = [
        "database",
        "relation",
        "relkind",
        "am",
        "relfilenode",
        "forks",
        "blocks",
        "problems",
    ];
    let rows: Vec<[String; 8]> = entries
        .iter()
        .map(|e| {
            let relation = match (&e.schema, &e.name) {
                (Some(s), Some(n)) => format!("{}.{}", quote_ident(s), quote_ident(n)),
                (None, Some(n)) => quote_ident(n),
                _ => "(no catalog row)".to_owned(),
            };
            [
                e.database.clone().unwrap_or_else(|| match e.database_oid {
                    0 => "(shared)".to_owned(),
                    oid => format!("({oid})"),
                }),
                relation,
                e.relkind.map(String::from).unwrap_or_default(),
                e.am.clone().unwrap_or_default(),
                e.relfilenode.to_string(),
                e.forks.join(","),
                e.blocks.to_string(),
                e.problems.to_string(),
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = io::BufWriter::new(io::stdout().lock());
    let line = |out: &mut dyn Write, cells: &[&str]| -> io::Result<()> {
        let mut text = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            let pad = w.saturating_sub(cell.chars().count());
            // Numbers right-aligned, words left-aligned, as psql aligns them.
            if i >= 4 && i != 5 {
                text.push_str(&" ".repeat(pad));
                text.push_str(cell);
            } else {
                text.push_str(cell);
                text.push_str(&" ".repeat(pad));
            }
            if i < cells.len().saturating_sub(1) {
                text.push_str("  ");
            }
        }
        writeln!(out, "{}", text.trim_end())
    };
    line(&mut out, &header)?;
    for row in &rows {
        let cells: Vec<&str> = row.iter().map(String::as_str).collect();
        line(&mut out, &cells)?;
    }
    out.flush()
}
