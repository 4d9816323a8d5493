//! `pgpage recover`: blocks of a relation file or a data directory rebuilt from WAL as the
//! server's recovery would write them (docs/contracts.md, "Recovery"). The replay is the
//! core's (`pgpage::damage::recover`); this module finds the files, reads pages and WAL, and
//! writes the new file or the overlay directory.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use pgpage::cluster::control::{decode_control, ControlValue};
use pgpage::damage::recover::{recover_settings, Chosen, Recovery};
use pgpage::page::verify::verify_page;
use pgpage::wal::{fork_name, lsn_text_for, BlockKey, RelFileLocator, WalRecord};
use pgpage::Endian;
use serde::Serialize;

use crate::args::io_reason;
use crate::fail::{run_to_stdout, Fail};
use crate::fpi::read_records;

#[derive(clap::Args, Debug)]
pub struct RecoverArgs {
    /// Print JSON (docs/contracts.md, "Recovery").
    #[arg(long)]
    pub json: bool,
    /// WAL segment files, a pg_wal directory or an archive folder, read with PATH's own
    /// pg_wal.
    #[arg(long, value_name = "WAL")]
    pub wal: Vec<PathBuf>,
    /// Start from a base backup's pages, replayed from the backup's start (its backup_label's
    /// START WAL LOCATION, or its pg_control's redo point): the same relation file inside the
    /// backup, or the backup's data directory. The WAL given must reach back to that start.
    #[arg(long, value_name = "BACKUP")]
    pub from: Option<PathBuf>,
    /// A block (within the file) to recover; repeatable.
    #[arg(long, value_name = "N")]
    pub block: Vec<u32>,
    /// Every block the WAL changes after the redo point of PATH's pg_control.
    #[arg(long)]
    pub all: bool,
    /// Replay up to this LSN (default: the end of the valid WAL).
    #[arg(long, value_name = "LSN", value_parser = parse_lsn)]
    pub upto: Option<u64>,
    /// The new file (for a relation file) or overlay directory (for a data directory); must
    /// not exist.
    #[arg(long, value_name = "NEW")]
    pub out: PathBuf,
    /// A relation file inside a data directory, or a data directory.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
}

fn parse_lsn(s: &str) -> Result<u64, String> {
    let (hi, lo) = s
        .split_once('/')
        .ok_or_else(|| format!("{s} is not an LSN (X/X)"))?;
    let hi = u32::from_str_radix(hi, 16).map_err(|_| format!("{s} is not an LSN (X/X)"))?;
    let lo = u32::from_str_radix(lo, 16).map_err(|_| format!("{s} is not an LSN (X/X)"))?;
    Ok((u64::from(hi) << 32) | u64::from(lo))
}

pub fn run(args: &RecoverArgs) -> i32 {
    run_to_stdout("", |out| recover(args, out))
}

/// A relation file's place: its relation, fork and segment, and its path under the data
/// directory.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct RelFile {
    locator: RelFileLocator,
    fork: u8,
    segment: u32,
}

const DEFAULTTABLESPACE_OID: u32 = 1663;
const GLOBALTABLESPACE_OID: u32 = 1664;

/// `base/DB/REL[_fork][.SEG]`, `global/REL...` or `pg_tblspc/SPC/DIR/DB/REL...`.
fn parse_rel_path(rel: &Path) -> Option<RelFile> {
    let parts: Vec<&str> = rel.iter().filter_map(|p| p.to_str()).collect();
    let (spc, db, name) = match parts.as_slice() {
        ["base", db, name] => (DEFAULTTABLESPACE_OID, db.parse().ok()?, *name),
        ["global", name] => (GLOBALTABLESPACE_OID, 0, *name),
        ["pg_tblspc", spc, _, db, name] => (spc.parse().ok()?, db.parse().ok()?, *name),
        _ => return None,
    };
    let (name, segment) = match name.split_once('.') {
        Some((n, s)) => (n, s.parse().ok()?),
        None => (name, 0),
    };
    let (num, fork) = match name.split_once('_') {
        Some((n, f)) => (
            n,
            match f {
                "fsm" => 1,
                "vm" => 2,
                "init" => 3,
                _ => return None,
            },
        ),
        None => (name, 0),
    };
    Some(RelFile {
        locator: RelFileLocator {
            spc_oid: spc,
            db_oid: db,
            rel_number: num.parse().ok()?,
        },
        fork,
        segment,
    })
}

fn rel_path(datadir: &Path, f: &RelFile) -> Option<PathBuf> {
    let l = f.locator;
    let mut name = l.rel_number.to_string();
    if f.fork != 0 {
        name.push('_');
        name.push_str(fork_name(f.fork)?);
    }
    if f.segment != 0 {
        name.push_str(&format!(".{}", f.segment));
    }
    Some(match l.spc_oid {
        DEFAULTTABLESPACE_OID => PathBuf::from(format!("base/{}/{name}", l.db_oid)),
        GLOBALTABLESPACE_OID => PathBuf::from(format!("global/{name}")),
        spc => {
            let dir = datadir.join(format!("pg_tblspc/{spc}"));
            let version_dir = fs::read_dir(&dir)
                .ok()?
                .filter_map(|e| e.ok())
                .find(|e| e.file_name().to_string_lossy().starts_with("PG_"))?
                .file_name();
            PathBuf::from(format!(
                "pg_tblspc/{spc}/{}/{}/{name}",
                version_dir.to_string_lossy(),
                l.db_oid
            ))
        }
    })
}

/// A base backup to start from: its data directory, the file given (when --from names one),
/// and where its replay starts.
struct Backup {
    dir: PathBuf,
    file: Option<PathBuf>,
    start: u64,
}

/// The backup `--from` names, and its start: backup_label's START WAL LOCATION (the WAL a
/// restore of it replays from), else its pg_control's redo point (a copy of a stopped cluster).
fn backup_source(from: &Path, file: Option<&RelFile>) -> Result<Backup, Fail> {
    let dir = find_datadir(from).ok_or_else(|| {
        Fail::Input(format!(
            "--from \"{}\" is not in a base backup's data directory (no global/pg_control above it), so where its replay starts is unknown: give the file inside the backup, or the backup's directory",
            from.display()
        ))
    })?;
    let given = fs::canonicalize(from)?;
    let file_given = !given.is_dir();
    if file_given {
        let rel = given.strip_prefix(&dir).unwrap_or(&given);
        if parse_rel_path(rel).as_ref() != file {
            return Err(Fail::Input(format!(
                "--from \"{}\" is not the same relation file as PATH (its relation, fork or segment differ)",
                from.display()
            )));
        }
    }
    let label = fs::read_to_string(dir.join("backup_label")).ok();
    let from_label = label.as_deref().and_then(|l| {
        l.lines()
            .find_map(|line| line.strip_prefix("START WAL LOCATION: "))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|lsn| parse_lsn(lsn).ok())
    });
    let start = match from_label {
        Some(lsn) => lsn,
        None => {
            let control = fs::read(dir.join("global/pg_control")).map_err(|e| {
                Fail::Input(format!(
                    "could not read the backup's pg_control: {}",
                    io_reason(&e)
                ))
            })?;
            let cf = decode_control(&control).map_err(|_| {
                Fail::Input(String::from(
                    "the backup's pg_control is damaged (its CRC fails)",
                ))
            })?;
            match cf.get("redo_lsn") {
                Some(ControlValue::Text(t)) => parse_lsn(t).ok(),
                _ => None,
            }
            .ok_or_else(|| Fail::Input(String::from("the backup's pg_control has no redo point")))?
        }
    };
    Ok(Backup {
        dir,
        file: file_given.then_some(given),
        start,
    })
}

fn find_datadir(path: &Path) -> Option<PathBuf> {
    let abs = fs::canonicalize(path).ok()?;
    abs.ancestors()
        .find(|d| d.join("global/pg_control").is_file())
        .map(Path::to_path_buf)
}

#[derive(Serialize)]
struct StartOut {
    source: &'static str,
    lsn: String,
}

#[derive(Serialize)]
struct AppliedOut {
    lsn: String,
    rmgr: String,
    record: String,
    desc: String,
}

#[derive(Serialize)]
struct BlockOut {
    path: String,
    fork: &'static str,
    block: u32,
    start: Option<StartOut>,
    applied: Vec<AppliedOut>,
    lsn: Option<String>,
    recovered: bool,
    reason: Option<String>,
}

#[derive(Serialize)]
struct Summary {
    blocks: usize,
    recovered: usize,
    not_recovered: usize,
    records_applied: usize,
    /// The end of the last WAL record read.
    wal_end: Option<String>,
    /// The data directory's latest checkpoint, when the WAL read ends before it.
    #[serde(skip_serializing_if = "Option::is_none")]
    short_of_checkpoint: Option<String>,
    /// Each gap met in the WAL read, in words.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    gaps: Vec<String>,
    /// Records past a cleanly shut down cluster's last checkpoint, left out, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    other_history: Option<String>,
}

#[derive(Serialize)]
struct Report {
    blocks: Vec<BlockOut>,
    summary: Summary,
}

fn recover(args: &RecoverArgs, out: &mut dyn Write) -> Result<i32, Fail> {
    if args.out.exists() {
        return Err(Fail::Input(format!(
            "\"{}\" already exists",
            args.out.display()
        )));
    }
    let datadir = find_datadir(&args.path).ok_or_else(|| {
        Fail::Input(format!(
            "\"{}\" is not in a data directory (no global/pg_control above it). Recover reads the relation's place and its WAL from there. Run recover first, on the file in place; or copy this file into a copy of the data directory, at the relation's own path (base/DB/RELFILENODE)",
            args.path.display()
        ))
    })?;
    let abs = fs::canonicalize(&args.path)?;
    let file: Option<RelFile> = if abs.is_dir() {
        None
    } else {
        let rel = abs.strip_prefix(&datadir).unwrap_or(&abs);
        Some(parse_rel_path(rel).ok_or_else(|| {
            Fail::Input(format!(
                "\"{}\" is not a relation file (base/DB/REL, global/REL, pg_tblspc/...)",
                args.path.display()
            ))
        })?)
    };
    let control = fs::read(datadir.join("global/pg_control"))
        .map_err(|e| Fail::Input(format!("could not read pg_control: {}", io_reason(&e))))?;
    let cf = decode_control(&control)
        .map_err(|_| Fail::Input(String::from("pg_control is damaged (its CRC fails)")))?;
    let (options, checksums) =
        recover_settings(&cf, args.upto).map_err(|e| Fail::Input(String::from(e)))?;
    let block_size = options.block_size;
    let redo_point = match cf.get("redo_lsn") {
        Some(ControlValue::Text(t)) => parse_lsn(t).ok(),
        _ => None,
    };
    let blocks_per_segment = (1usize << 30)
        .checked_div(block_size)
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(131072);
    if file.is_none() && !args.all {
        return Err(Fail::Input(String::from(
            "for a data directory, give --all (the blocks crash recovery would replay)",
        )));
    }
    if !args.all && args.block.is_empty() && file.is_none() {
        return Err(Fail::Input(String::from("nothing to recover")));
    }
    let backup = args
        .from
        .as_deref()
        .map(|from| backup_source(from, file.as_ref()))
        .transpose()?;
    let chosen = if args.all && backup.is_none() {
        Chosen::All {
            redo_point: redo_point
                .ok_or_else(|| Fail::Input(String::from("pg_control has no redo point")))?,
        }
    } else if args.all {
        Chosen::Backup {
            start: backup.as_ref().map_or(0, |b| b.start),
            blocks: None,
            checksums,
        }
    } else {
        let f = file
            .clone()
            .ok_or_else(|| Fail::Input(String::from("no relation file")))?;
        let blocks: Vec<u32> = if args.block.is_empty() {
            let bytes = fs::read(&abs)?;
            bytes
                .chunks_exact(block_size)
                .enumerate()
                .filter_map(|(i, page)| {
                    let i = u32::try_from(i).ok()?;
                    let abs_block = f.segment.checked_mul(blocks_per_segment)?.checked_add(i)?;
                    verify_page(page, abs_block, Endian::Little)
                        .status
                        .is_problem()
                        .then_some(i)
                })
                .collect()
        } else {
            args.block.clone()
        };
        let set: BTreeSet<BlockKey> = blocks
            .iter()
            .filter_map(|b| {
                Some(BlockKey {
                    locator: f.locator,
                    fork: f.fork,
                    block: f.segment.checked_mul(blocks_per_segment)?.checked_add(*b)?,
                })
            })
            .collect();
        match &backup {
            Some(b) => Chosen::Backup {
                start: b.start,
                blocks: Some(set),
                checksums,
            },
            None => Chosen::Blocks(set),
        }
    };
    // The WAL given and PATH's own pg_wal: an archive ends where the segments not yet
    // archived begin, and the replay must reach the directory's latest checkpoint.
    let own = datadir.join("pg_wal");
    let mut wal = args.wal.clone();
    let same = |a: &Path, b: &Path| match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    if own.is_dir() && !wal.iter().any(|w| same(w, &own)) {
        wal.push(own);
    }
    if wal.is_empty() {
        wal.push(datadir.join("pg_wal"));
    }
    let mut recovery = Recovery::new(chosen, options);
    let split = |key: &BlockKey| -> (RelFile, u32) {
        (
            RelFile {
                locator: key.locator,
                fork: key.fork,
                segment: key.block.checked_div(blocks_per_segment).unwrap_or(0),
            },
            key.block
                .checked_rem(blocks_per_segment)
                .unwrap_or(key.block),
        )
    };
    // The pages replay starts from: the backup's, with --from; else the data directory's.
    let source_dir = backup.as_ref().map_or(datadir.clone(), |b| b.dir.clone());
    let mut disk = |key: &BlockKey| -> Option<Vec<u8>> {
        let (f, b) = split(key);
        let path = match &backup {
            Some(Backup {
                file: Some(given), ..
            }) if Some(&f) == file.as_ref() => given.clone(),
            _ => source_dir.join(rel_path(&source_dir, &f)?),
        };
        let file = fs::File::open(path).ok()?;
        let mut page = vec![0u8; block_size];
        use std::os::unix::fs::FileExt;
        let at = u64::from(b).checked_mul(block_size as u64)?;
        file.read_exact_at(&mut page, at).ok()?;
        Some(page)
    };
    recovery.prepare(&mut disk);
    let mut wal_end = 0u64;
    let history_end = options.history_end;
    let version = read_records(&wal, &mut |rec: &WalRecord<'_>| {
        if history_end.is_none_or(|e| rec.lsn <= e) {
            wal_end = wal_end.max(rec.end_lsn);
        }
        recovery.observe(rec, &mut disk)
    })
    .map_err(Fail::Input)?;
    // The data directory's latest checkpoint: every change before it is on its pages, so a
    // replay that stops short of it writes blocks older than the directory's other pages.
    let checkpoint = match cf.get("checkpoint_lsn") {
        Some(ControlValue::Text(t)) => parse_lsn(t).ok(),
        _ => None,
    };
    let short = checkpoint.filter(|&c| wal_end < c);
    let version = version.unwrap_or(recovery.version());
    let gaps = recovery.gaps().to_vec();
    let other_history = recovery
        .other_history()
        .zip(history_end)
        .map(|((count, first), end)| {
            format!(
                "the WAL read holds {count} record{} past the data directory's shutdown checkpoint at {} (pg_control says \"shut down\"), the first at {}: WAL of another history (a copy of the cluster started since, archiving to the same place?), not replayed. Keep that WAL apart from this cluster's archive",
                if count == 1 { "" } else { "s" },
                lsn_text_for(version, end),
                lsn_text_for(version, first)
            )
        });
    if let Some(words) = &other_history {
        eprintln!("pgpage: warning: {words}");
    }
    let mut results = recovery.finish(checksums);
    if let (true, Some(f)) = (args.all, &file) {
        results.retain(|r| split(&r.key).0 == *f);
    }
    let mut report = Report {
        blocks: Vec::new(),
        summary: Summary {
            blocks: 0,
            recovered: 0,
            not_recovered: 0,
            records_applied: 0,
            wal_end: (wal_end > 0).then(|| lsn_text_for(version, wal_end)),
            short_of_checkpoint: short.map(|c| lsn_text_for(version, c)),
            gaps: gaps.clone(),
            other_history,
        },
    };
    for gap in &gaps {
        // A block recovered across it was started again by a full-page image after it, so
        // no record it needed was in the gap; a block that was not names the gap as its reason.
        eprintln!(
            "pgpage: warning: {gap}. Each block recovered below started again from a full-page image after it; each block the gap breaks is not recovered"
        );
    }
    if let Some(c) = short {
        eprintln!(
            "pgpage: warning: the WAL read ends at {}, before the data directory's latest checkpoint at {} (pg_control): the changes made between are not replayed, so the blocks written are older than the directory's other pages (stale). Give the WAL up to that checkpoint (the directory's pg_wal, or the archive) with --wal",
            if wal_end > 0 {
                lsn_text_for(version, wal_end)
            } else {
                String::from("its start (no record read)")
            },
            lsn_text_for(version, c)
        );
    }
    let mut writes: BTreeMap<RelFile, Vec<(u32, Vec<u8>)>> = BTreeMap::new();
    for r in results {
        let (f, b) = split(&r.key);
        let path = rel_path(&datadir, &f)
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let recovered = r.page.is_some();
        report.summary.blocks = report.summary.blocks.saturating_add(1);
        if recovered {
            report.summary.recovered = report.summary.recovered.saturating_add(1);
            report.summary.records_applied = report
                .summary
                .records_applied
                .saturating_add(r.applied.len());
        } else {
            report.summary.not_recovered = report.summary.not_recovered.saturating_add(1);
        }
        let reason = r.failure.as_ref().map(|f| f.reason.clone());
        if let Some(reason) = &reason {
            eprintln!("pgpage: block {b} of \"{path}\" not recovered: {reason}");
        }
        report.blocks.push(BlockOut {
            path: path.clone(),
            fork: fork_name(f.fork).unwrap_or("main"),
            block: b,
            start: r.start.map(|(s, lsn)| StartOut {
                source: s.as_str(),
                lsn: lsn_text_for(version, lsn),
            }),
            applied: r
                .applied
                .iter()
                .map(|a| AppliedOut {
                    lsn: lsn_text_for(version, a.lsn),
                    rmgr: a.rmgr.clone(),
                    record: a.record.clone(),
                    desc: a.desc.clone(),
                })
                .collect(),
            lsn: r.lsn.map(|l| lsn_text_for(version, l)),
            recovered,
            reason,
        });
        if let Some(page) = r.page {
            writes.entry(f).or_default().push((b, page));
        }
    }
    match &file {
        Some(f) if !args.all || writes.len() <= 1 => {
            let pages = writes.remove(f).unwrap_or_default();
            if pages.is_empty() {
                // A copy of the damaged file under a new name would pass for a repair.
                eprintln!(
                    "pgpage: note: \"{}\" not written: no block was recovered",
                    args.out.display()
                );
            } else {
                let mut bytes = fs::read(&abs)?;
                for (b, page) in pages {
                    place(&mut bytes, b, &page, block_size);
                }
                fs::write(&args.out, bytes)?;
            }
        }
        _ => {
            for (f, pages) in writes {
                let Some(rel) = rel_path(&datadir, &f) else {
                    continue;
                };
                let mut bytes = fs::read(datadir.join(&rel)).unwrap_or_default();
                for (b, page) in pages {
                    place(&mut bytes, b, &page, block_size);
                }
                let dest = args.out.join(&rel);
                if let Some(parent) = dest.parent() {
                    fs::create_dir_all(parent)?;
                }
                fs::write(dest, bytes)?;
            }
        }
    }
    if args.json {
        serde_json::to_writer(&mut *out, &report).map_err(|e| Fail::Io(e.into()))?;
        writeln!(out)?;
    } else {
        for b in report.blocks.iter().filter(|b| b.recovered) {
            writeln!(
                out,
                "recovered block {} of \"{}\": {} record{} applied, LSN {}",
                b.block,
                b.path,
                b.applied.len(),
                if b.applied.len() == 1 { "" } else { "s" },
                b.lsn.as_deref().unwrap_or("?")
            )?;
        }
        if args.all && report.summary.blocks == 0 {
            writeln!(
                out,
                "no WAL record after pg_control's redo point changes a block (a cleanly stopped cluster replays nothing): give --block N with a relation file to rebuild its blocks from their WAL images"
            )?;
        }
        writeln!(
            out,
            "{} block{} recovered, {} not recovered",
            report.summary.recovered,
            if report.summary.recovered == 1 {
                ""
            } else {
                "s"
            },
            report.summary.not_recovered
        )?;
    }
    Ok(if report.summary.not_recovered == 0 {
        0
    } else {
        1
    })
}

/// Puts a page at block `b` of a file's bytes, extending it with zero pages as the server
/// does when it extends a relation.
fn place(bytes: &mut Vec<u8>, b: u32, page: &[u8], block_size: usize) {
    let at = usize::try_from(b)
        .unwrap_or(usize::MAX)
        .saturating_mul(block_size);
    let end = at.saturating_add(block_size);
    if bytes.len() < end {
        bytes.resize(end, 0);
    }
    if let Some(dst) = bytes.get_mut(at..end) {
        dst.copy_from_slice(page);
    }
}
