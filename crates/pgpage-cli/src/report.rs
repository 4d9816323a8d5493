//! `pgpage report`: the incident report (CONTRACTS.md "The incident report"). This module
//! reads files from disk and hands the core what it asks for: each relation file's scan, the
//! bytes of the blocks `report::wanted_blocks` names, the leaf pages of a damaged table's
//! B-tree indexes and its columns. The core classifies, counts and words everything.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use pgpage::catalog::reader::{CatalogListing, ListedRelation};
use pgpage::catalog::table::TableReader;
use pgpage::control::state_words;
use pgpage::file::{file_geometry, parse_relation_file_name, Fork, GeometryChoice};
use pgpage::forks::ForkMaps;
use pgpage::report::{
    build, leaf_entries, markdown, text, wanted_blocks, ClusterFacts, FileInput, IndexInput, Input,
    RelationInput,
};
use pgpage::rows::Column;
use pgpage::scan::{ChecksumsKnown, FileScan};
use pgpage::Endian;

use crate::args::io_reason;
use crate::heapctx::data_directory;
use crate::input::{open_regular, read_full_at, read_head};
use crate::ls::Ls;
use crate::verify::cluster::Cluster;

#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    /// Print the report as JSON (CONTRACTS.md).
    #[arg(long, conflicts_with = "markdown")]
    pub json: bool,
    /// Print the report as Markdown, to paste into a mailing-list post or a ticket.
    #[arg(long)]
    pub markdown: bool,
    /// WAL segment files or directories, for full-page images of the damaged blocks.
    #[arg(long, value_name = "WAL")]
    pub wal: Vec<PathBuf>,
    /// A base backup's data directory or the relation file from it.
    #[arg(long, value_name = "BACKUP")]
    pub from: Option<PathBuf>,
    /// A data directory, or relation files.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
}

/// Bytes read at once while scanning.
const CHUNK_PAGES: usize = 256;

pub fn run(args: &ReportArgs) -> i32 {
    if !args.wal.is_empty() || args.from.is_some() {
        eprintln!(
            "pgpage: error: report does not read --wal or --from yet: run pgpage fpi --relation ... --block N over the WAL, or pgpage diff against the backup, for the blocks the report names"
        );
        return 2;
    }
    match gather(&args.paths) {
        Ok(input) => {
            let report = build(&input);
            let out = if args.json {
                match serde_json::to_string_pretty(&report) {
                    Ok(s) => s + "\n",
                    Err(e) => {
                        eprintln!("pgpage: error: {e}");
                        return 2;
                    }
                }
            } else if args.markdown {
                markdown(&report)
            } else {
                text(&report)
            };
            print!("{out}");
            i32::from(report.damaged())
        }
        Err(e) => {
            eprintln!("pgpage: error: {e}");
            2
        }
    }
}

/// A relation's files, found on disk, and what the catalogs say of it.
struct Group {
    listed: Option<ListedRelation>,
    /// Paths relative to the data directory (or as given), segment order.
    files: Vec<(u32, PathBuf, String)>,
}

/// Everything the core needs, read from disk.
fn gather(paths: &[PathBuf]) -> Result<Input, String> {
    let mut dirs: BTreeMap<PathBuf, Option<BTreeSet<String>>> = BTreeMap::new();
    let mut loose: Vec<PathBuf> = Vec::new();
    for p in paths {
        let meta = fs::metadata(p)
            .map_err(|e| format!("could not stat \"{}\": {}", p.display(), io_reason(&e)))?;
        if meta.is_dir() {
            if !p.join("PG_VERSION").is_file() {
                return Err(format!(
                    "\"{}\" is not a data directory (no PG_VERSION): give a data directory or relation files",
                    p.display()
                ));
            }
            dirs.insert(p.clone(), None);
        } else {
            match data_directory(p) {
                Some((root, inside)) => {
                    if let Some(set) = dirs.entry(root).or_insert_with(|| Some(BTreeSet::new())) {
                        set.insert(inside.to_string_lossy().into_owned());
                    }
                }
                None => loose.push(p.clone()),
            }
        }
    }
    if dirs.len() > 1 {
        return Err(String::from(
            "report reads one data directory at a time: give one data directory, or files of one",
        ));
    }
    let mut input = Input {
        cluster: ClusterFacts {
            data_checksums: String::from("unknown"),
            ..ClusterFacts::default()
        },
        relations: Vec::new(),
        unknown: Vec::new(),
    };
    if let Some((root, only)) = dirs.into_iter().next() {
        datadir(&root, only.as_ref(), &mut input)?;
    }
    for p in loose {
        let shown = p.display().to_string();
        let Some(file) = scan_file(
            &p,
            &shown,
            0,
            GeometryChoice::default(),
            ChecksumsKnown::Unknown,
            None,
        )?
        else {
            continue;
        };
        let endian = file.verdict.geometry.endian;
        input.relations.push(RelationInput {
            database: None,
            relation: None,
            relkind: None,
            endian,
            files: vec![file],
            columns: None,
            log: None,
            indexes: Vec::new(),
        });
    }
    Ok(input)
}

/// Scans one segment file; None for an empty file.
fn scan_file(
    path: &Path,
    shown: &str,
    segno: u32,
    choice: GeometryChoice,
    checksums: ChecksumsKnown,
    maps: Option<ForkMaps>,
) -> Result<Option<FileInput>, String> {
    let f = open_regular(path)
        .map_err(|e| format!("could not open file \"{shown}\": {}", io_reason(&e)))?;
    let len = f
        .metadata()
        .map_err(|e| format!("could not stat file \"{shown}\": {}", io_reason(&e)))?
        .len();
    if len == 0 {
        return Ok(None);
    }
    let head = read_head(&f, len)
        .map_err(|e| format!("could not read file \"{shown}\": {}", io_reason(&e)))?;
    let named = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(parse_relation_file_name)
        .is_some();
    let geometry =
        file_geometry(&head, choice, named).map_err(|why| format!("file \"{shown}\" is {why}"))?;
    let mut scan =
        FileScan::new(geometry, segno, len).map_err(|e| format!("file \"{shown}\": {e}"))?;
    if let Some(m) = maps {
        scan.set_maps(std::sync::Arc::new(m));
    }
    let bs = geometry.block_size.len();
    let blocks = scan.extent().blocks;
    let mut zero_blocks = Vec::new();
    let mut buf = vec![0u8; bs.saturating_mul(CHUNK_PAGES)];
    let at = |block: u32| u64::from(block).saturating_mul(bs as u64);
    let mut block = 0u32;
    while block < blocks {
        let n = blocks.saturating_sub(block).min(CHUNK_PAGES as u32);
        let want = bs.saturating_mul(n as usize);
        let chunk = buf.get_mut(..want).unwrap_or_default();
        let (got, err) = read_full_at(&f, chunk, at(block));
        if let Some(e) = err {
            return Err(format!(
                "could not read file \"{shown}\": {}",
                io_reason(&e)
            ));
        }
        let whole = got.checked_div(bs).unwrap_or(0).saturating_mul(bs);
        let mut i = block;
        scan.chunk_statuses(chunk.get(..whole).unwrap_or_default(), block, |s| {
            if s == pgpage::PageStatus::Zero {
                zero_blocks.push(i);
            }
            i = i.saturating_add(1);
        });
        if whole < want {
            break;
        }
        block = block.saturating_add(n);
    }
    let verdict = scan.finish(checksums);
    let mut pages = BTreeMap::new();
    for b in wanted_blocks(&verdict, &zero_blocks) {
        let mut page = vec![0u8; bs];
        let (got, err) = read_full_at(&f, &mut page, at(b));
        if err.is_none() && got == bs {
            pages.insert(b, page);
        }
    }
    Ok(Some(FileInput {
        path: shown.to_owned(),
        verdict,
        zero_blocks,
        pages,
    }))
}

fn read_fork(root: &Path, rel: &str, fork: &str) -> Option<Vec<u8>> {
    fs::read(root.join(format!("{rel}_{fork}"))).ok()
}

fn datadir(root: &Path, only: Option<&BTreeSet<String>>, input: &mut Input) -> Result<(), String> {
    let mut ls = Ls::open(root)?;
    let cluster = Cluster::read(&ls.display, root);
    let control = cluster.trusted();
    input.cluster = ClusterFacts {
        pg_version: Some(ls.major),
        system_identifier: control.and_then(|c| match c.get("system_identifier") {
            Some(pgpage::control::ControlValue::Int(v)) => Some((*v as u64).to_string()),
            _ => None,
        }),
        state: control.map(|c| state_words(c.state).to_owned()),
        data_checksums: String::from(match cluster.checksums() {
            ChecksumsKnown::On => "on",
            ChecksumsKnown::Off => "off",
            ChecksumsKnown::Unknown => "unknown",
        }),
        block_size: control.and_then(|c| c.block_size()),
    };
    let checksums = cluster.checksums();
    let choice = cluster.geometry_choice(GeometryChoice::default());
    let mut listing = ls.catalogs_with_index_keys();
    input.unknown.append(&mut ls.damage);
    let all_paths = ls.paths();
    let main_files: Vec<String> = all_paths
        .iter()
        .filter(|p| {
            let Some((dir, name)) = p.rsplit_once('/') else {
                return false;
            };
            (dir == "global" || dir.starts_with("base/") || dir.starts_with("pg_tblspc/"))
                && parse_relation_file_name(name).is_some_and(|f| f.fork == Fork::Main)
                && only.is_none_or(|o| o.contains(p.as_str()))
        })
        .cloned()
        .collect();
    let claims = listing.claims(main_files.iter().map(String::as_str));
    let mut groups: BTreeMap<(Option<usize>, String), Group> = BTreeMap::new();
    for (p, claim) in main_files.iter().zip(claims) {
        let Some((dir, name)) = p.rsplit_once('/') else {
            continue;
        };
        let Some(f) = parse_relation_file_name(name) else {
            continue;
        };
        let key = (claim, format!("{dir}/{}", f.relfilenode));
        let g = groups.entry(key).or_insert_with(|| Group {
            listed: claim.and_then(|i| listing.relations.get(i).cloned()),
            files: Vec::new(),
        });
        g.files.push((f.segno, root.join(p), p.clone()));
    }
    let log = listing.log.take().map(std::sync::Arc::new);
    for ((_, base), mut g) in groups {
        g.files.sort_by_key(|f| f.0);
        let relkind = g.listed.as_ref().map(|l| l.relation.relkind);
        let is_heap = matches!(relkind, Some('r' | 'm' | 't'));
        let mut files = Vec::new();
        for (segno, path, shown) in &g.files {
            let maps = (is_heap && *segno == 0).then(|| {
                ForkMaps::new(
                    read_fork(root, &base, "vm").as_deref(),
                    read_fork(root, &base, "fsm").as_deref(),
                    choice.block_size.unwrap_or(pgpage::BlockSize::DEFAULT),
                )
            });
            match scan_file(path, shown, *segno, choice, checksums, maps) {
                Ok(Some(f)) => files.push(f),
                Ok(None) => {}
                Err(e) => input.unknown.push(e),
            }
        }
        let endian = files
            .first()
            .map_or(Endian::Little, |f| f.verdict.geometry.endian);
        let damaged = files.iter().any(|f| !f.pages.is_empty());
        let (mut indexes, mut columns) = (Vec::new(), None);
        if damaged && is_heap {
            if let Some(l) = &g.listed {
                indexes = index_inputs(root, &listing, l, &all_paths, checksums, endian, &files);
                let needs_columns = files.iter().any(|f| {
                    f.verdict
                        .pages
                        .iter()
                        .any(|r| r.status == pgpage::PageStatus::Mismatch)
                });
                if needs_columns {
                    columns = table_columns(&ls, &all_paths, l, checksums, &mut input.unknown);
                }
            }
        }
        let l = g.listed.as_ref();
        input.relations.push(RelationInput {
            database: l.and_then(|l| l.database.clone()),
            relation: l.map(qualified),
            relkind,
            endian,
            files,
            columns,
            log: log.clone(),
            indexes,
        });
    }
    Ok(())
}

fn qualified(l: &ListedRelation) -> String {
    match &l.relation.schema {
        Some(s) => format!("{s}.{}", l.relation.name),
        None => l.relation.name.clone(),
    }
}

/// The table's columns from its catalogs (for the values a bit flip touches).
fn table_columns(
    ls: &Ls,
    paths: &[String],
    l: &ListedRelation,
    checksums: ChecksumsKnown,
    unknown: &mut Vec<String>,
) -> Option<Vec<Column>> {
    let mut reader = TableReader::by_file(
        paths.to_vec(),
        &format!("{}/", ls.display),
        ls.read_with(),
        checksums,
        l.relation.database_oid,
        l.relation.relfilenode,
    );
    loop {
        let wanted = reader.wanted();
        if wanted.is_empty() {
            break;
        }
        for p in wanted {
            let bytes = fs::read(ls.root.join(&p)).ok();
            reader.give(&p, bytes);
        }
    }
    match reader.finish() {
        Ok(t) => Some(t.columns),
        Err(r) => {
            unknown.push(format!(
                "the columns of {} could not be read ({}): bit flips are named without their values",
                qualified(l),
                r.reason
            ));
            None
        }
    }
}

/// The B-tree indexes of a table, each read leaf by leaf for the heap TIDs of the blocks
/// the table's files want.
fn index_inputs(
    root: &Path,
    listing: &CatalogListing,
    table: &ListedRelation,
    paths: &[String],
    checksums: ChecksumsKnown,
    endian: Endian,
    files: &[FileInput],
) -> Vec<IndexInput> {
    let blocks: BTreeSet<u32> = files
        .iter()
        .flat_map(|f| {
            f.pages.keys().map(move |b| {
                f.verdict
                    .geometry
                    .block_size
                    .absolute_block(f.verdict.segno, *b)
            })
        })
        .collect();
    let t = &table.relation;
    let mut out = Vec::new();
    for ix in listing.relations.iter().filter(|r| {
        r.index_of == Some(t.oid)
            && r.relation.database_oid == t.database_oid
            && r.relation.am.as_deref() == Some("btree")
    }) {
        let rel = &ix.relation;
        let Some(dir) = listing.directory(rel.tablespace_oid, rel.database_oid) else {
            continue;
        };
        let keys = listing
            .index_keys
            .get(&(rel.database_oid, rel.oid))
            .and_then(|k| k.as_ref().ok());
        let mut segs: Vec<(u32, &String)> = paths
            .iter()
            .filter_map(|p| {
                let (d, n) = p.rsplit_once('/')?;
                let f = parse_relation_file_name(n)?;
                (d == dir && f.relfilenode == rel.relfilenode && f.fork == Fork::Main)
                    .then_some((f.segno, p))
            })
            .collect();
        segs.sort();
        let mut entries = Vec::new();
        let mut unreadable = 0u64;
        let bs = pgpage::BlockSize::DEFAULT;
        for (segno, p) in segs {
            let Ok(bytes) = fs::read(root.join(p)) else {
                unreadable = unreadable.saturating_add(1);
                continue;
            };
            let size = files.first().map_or(bs, |f| f.verdict.geometry.block_size);
            for (i, page) in bytes.chunks_exact(size.len()).enumerate() {
                let absolute = size.absolute_block(segno, i as u32);
                let e = leaf_entries(
                    page,
                    absolute,
                    endian,
                    checksums != ChecksumsKnown::Off,
                    keys.map(Vec::as_slice),
                );
                if e.is_empty()
                    && pgpage::verify::verify_page(page, absolute, endian).status
                        == pgpage::PageStatus::Mismatch
                {
                    unreadable = unreadable.saturating_add(1);
                }
                entries.extend(e.into_iter().filter(|e| blocks.contains(&e.block)));
            }
        }
        out.push(IndexInput {
            name: qualified(ix),
            keys_known: keys.is_some(),
            uniqueness: match listing.unique_indexes.get(&(rel.database_oid, rel.oid)) {
                Some(true) => 2,
                Some(false) => 1,
                None => 0,
            },
            unreadable_pages: unreadable,
            entries,
        });
    }
    out
}
