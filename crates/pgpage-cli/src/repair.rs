//! `pgpage repair`: a new file that is a copy of a relation file with one block replaced (a
//! good copy's page, a page file such as `pg_waldump --save-fullpage` writes, one bit
//! flipped back, or one header field set back) and its checksum recomputed; the input is only read. Without a source it
//! prints what PostgreSQL's own tools would do with the page instead: pg_surgery SQL and the
//! settings `zero_damaged_pages` and `ignore_checksum_failure`, in words. The rules are the
//! core's (`pgpage::repair`); this module reads, writes and prints.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};

use pgpage::am::decoded::DecodeOptions;
use pgpage::am::kind::file_kind;
use pgpage::damage::bitflip::PageBit;
use pgpage::damage::repair::{
    advise, quote_qualified, repair_page, PageAdvice, PageSource, Repaired,
};
use pgpage::file::{file_geometry, parse_relation_file_name, Geometry, RelationFileName};
use pgpage::page::geometry::read_u16;
use pgpage::page::header_field::HeaderField;
use pgpage::page::kind::{Fork, PageKind};
use pgpage::wal::{
    lsn_text, parse_fullpage_name, record_type, restoring_after, rmgr_name, BlockHistory,
    RelationFilter,
};
use pgpage::words::plural;
use serde::Serialize;

use crate::args::{io_reason, ReadAs};
use crate::input::{open_regular, read_full_at, read_head};

#[derive(clap::Args, Clone, Debug)]
#[command(group(clap::ArgGroup::new("source").args(["from", "flip", "page", "torn", "set"])))]
#[command(group(clap::ArgGroup::new("unchecked").args(["flip", "set"])))]
#[command(
    override_usage = "pgpage repair [--json] --block N (--from GOOD_COPY | --flip BYTE_OFFSET:BIT [--force] | --set FIELD=VALUE [--force] | --page PAGE_FILE | --torn) --out NEW FILE; several blocks from one good copy: --block N --block M ... --from GOOD_COPY; without a source and --out, what the server's tools would do with the page: pgpage repair [--json] --block N [--table NAME] FILE"
)]
pub struct RepairArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// The block to repair (numbered within the file, as verify and inspect number it);
    /// repeated, with --from, every block named is taken from the good copy into one NEW.
    #[arg(long = "block", value_name = "N", required = true)]
    pub blocks: Vec<u32>,
    /// The block at hand (one of `blocks`).
    #[arg(skip)]
    pub block: u32,
    /// Take the block from this good copy of the same relation file (a backup, a standby's).
    #[arg(long, value_name = "GOOD_COPY")]
    pub from: Option<PathBuf>,
    /// Flip this bit back: a candidate `inspect --bit-flips` lists (byte offset within the
    /// page, bit 0-7).
    #[arg(long, value_name = "BYTE_OFFSET:BIT", value_parser = parse_flip)]
    pub flip: Option<PageBit>,
    /// Take the block from a file of one page (`pg_waldump --save-fullpage`, `pgpage fpi --out`).
    #[arg(long, value_name = "PAGE_FILE")]
    pub page: Option<PathBuf>,
    /// Rebuild a torn page as its rows read: rows the older write holds at other places
    /// pointed at there, a HOT root whose newest version nothing leads to redirected to it,
    /// every line pointer whose tuple the tear took made LP_DEAD (for a file in a data
    /// directory, as the incident report finds them, from the table's indexes too).
    #[arg(long)]
    pub torn: bool,
    /// Set one header field (pd_lower, pd_upper or pd_special) to VALUE: the value the
    /// incident report (or the advice, without a source) finds the stored checksum verifies
    /// with.
    #[arg(long, value_name = "FIELD=VALUE", value_parser = parse_set)]
    pub set: Option<(HeaderField, u16)>,
    /// With --flip or --set: write the page even when the change does not make the stored
    /// checksum valid (its checksum is then recomputed over bytes nothing checked).
    #[arg(long, requires = "unchecked")]
    pub force: bool,
    /// The repaired copy to create; never the input, never a file that exists.
    #[arg(long, value_name = "NEW", requires = "source")]
    pub out: Option<PathBuf>,
    /// The table's name for the pg_surgery SQL, when the catalogs beside the file do not give it.
    #[arg(long, value_name = "NAME", conflicts_with = "source")]
    pub table: Option<String>,
    #[command(flatten)]
    pub read_as: ReadAs,
    /// The damaged relation file.
    pub path: PathBuf,
}

fn parse_flip(s: &str) -> Result<PageBit, String> {
    let bad = || format!("{s} is not BYTE_OFFSET:BIT (a byte offset within the page, a bit 0-7)");
    let (off, bit) = s.split_once(':').ok_or_else(bad)?;
    let offset = off.trim().parse::<u32>().map_err(|_| bad())?;
    let bit = bit
        .trim()
        .parse::<u8>()
        .ok()
        .filter(|b| *b < 8)
        .ok_or_else(bad)?;
    Ok(PageBit { offset, bit })
}

fn parse_set(s: &str) -> Result<(HeaderField, u16), String> {
    let bad =
        || format!("{s} is not FIELD=VALUE (pd_lower, pd_upper or pd_special, a value 0-65535)");
    let (name, value) = s.split_once('=').ok_or_else(bad)?;
    let field = HeaderField::from_name(name.trim()).ok_or_else(bad)?;
    let value = value.trim().parse::<u16>().map_err(|_| bad())?;
    Ok((field, value))
}

/// Why the command cannot run (exit status 2): the one line for stderr.
struct Fatal(String);

/// Runs the command; returns the exit status.
pub fn run(args: &RepairArgs) -> i32 {
    let result = match args.blocks.as_slice() {
        [one] => {
            let one = RepairArgs {
                block: *one,
                ..args.clone()
            };
            if args.from.is_some()
                || args.flip.is_some()
                || args.page.is_some()
                || args.torn
                || args.set.is_some()
            {
                repair(&one, true)
            } else {
                advice(&one)
            }
        }
        // A good copy holds every block; a flip, a page file and a torn page are one block's.
        blocks if args.from.is_some() => {
            let mut status = 0;
            let mut seen = std::collections::BTreeSet::new();
            let twice = blocks.iter().find(|&&b| !seen.insert(b));
            let mut result = match twice {
                Some(b) => Err(Fatal(format!("--block {b} is given twice"))),
                None => Ok(0),
            };
            for (i, &block) in blocks.iter().enumerate() {
                if result.is_err() {
                    break;
                }
                let one = RepairArgs {
                    block,
                    ..args.clone()
                };
                match repair(&one, i == 0) {
                    Ok(s) => status = status.max(s),
                    Err(e) => {
                        // Never a copy with some of the blocks asked for: none, and why.
                        if i > 0 {
                            if let Some(out) = &args.out {
                                let _ = std::fs::remove_file(out);
                            }
                        }
                        result = Err(e);
                        break;
                    }
                }
            }
            result.map(|_| status)
        }
        _ => Err(Fatal(String::from(
            "several --block are repaired together only from a good copy (--from); --flip, --set, --page, --torn and the advice take one block",
        ))),
    };
    match result {
        Ok(status) => status,
        Err(Fatal(reason)) => {
            eprintln!("pgpage: error: {reason}");
            2
        }
    }
}

/// The damaged file, opened, its geometry and the block's page read.
struct Damaged {
    display: String,
    file: File,
    len: u64,
    name: Option<RelationFileName>,
    fork: Fork,
    geometry: Geometry,
    head: Vec<u8>,
    absolute: u32,
    page: Vec<u8>,
    /// The block lies past the file's end: the file never held it (its page reads as zeros).
    past_end: bool,
}

fn failed(what: &str, shown: &str, e: &io::Error) -> Fatal {
    Fatal(format!(
        "could not {what} file \"{shown}\": {}",
        io_reason(e)
    ))
}

fn file_name(p: &Path) -> Option<RelationFileName> {
    p.file_name()
        .and_then(|n| n.to_str())
        .and_then(parse_relation_file_name)
}

fn open_damaged(args: &RepairArgs) -> Result<Damaged, Fatal> {
    let display = args.path.display().to_string();
    let name = file_name(&args.path);
    let file = open_regular(&args.path).map_err(|e| failed("open", &display, &e))?;
    let len = file
        .metadata()
        .map_err(|e| failed("stat", &display, &e))?
        .len();
    let head = read_head(&file, len).map_err(|e| failed("read", &display, &e))?;
    let geometry = file_geometry(&head, args.read_as.geometry_choice(), name.is_some())
        .map_err(|why| Fatal(format!("file \"{display}\" is {why}")))?;
    let size = geometry.block_size.len();
    let blocks = len.checked_div(size as u64).unwrap_or(0);
    // A block past the file's end (a file cut short) is written from a good copy when every
    // block from the end up to it is given too: the new file then has no hole, which the
    // server would read as empty pages and lose those blocks' rows without an error.
    let past_end = u64::from(args.block) >= blocks
        && args.from.is_some()
        && blocks > 0
        && (blocks..=u64::from(args.block)).all(|b| args.blocks.iter().any(|&g| u64::from(g) == b));
    if u64::from(args.block) >= blocks && !past_end {
        let given: String = (blocks..=u64::from(args.block))
            .take(64)
            .map(|b| format!(" --block {b}"))
            .collect();
        let fill = if args.from.is_some() && blocks > 0 {
            format!(
                "; blocks past the end are written from the good copy when every block from {blocks} to {} is given ({}), so that the new file has no hole the server would read as empty pages",
                args.block,
                given.trim_start()
            )
        } else {
            String::new()
        };
        return Err(Fatal(match blocks {
            0 => format!(
                "block {} out of range: file \"{display}\" has no whole block",
                args.block
            ),
            n => format!(
                "block {} out of range: file \"{display}\" has {n} blocks (0..{}){fill}",
                args.block,
                n.saturating_sub(1)
            ),
        }));
    }
    let mut page = vec![0u8; size];
    if !past_end {
        file.read_exact_at(&mut page, u64::from(args.block).saturating_mul(size as u64))
            .map_err(|e| failed("read", &display, &e))?;
    }
    let segment = args.read_as.segment.unwrap_or(name.map_or(0, |n| n.segno));
    Ok(Damaged {
        absolute: geometry.block_size.absolute_block(segment, args.block),
        fork: name.map_or(Fork::Main, |n| n.fork),
        display,
        file,
        len,
        name,
        geometry,
        head,
        page,
        past_end,
    })
}

/// The replacement page the source names, refusing a source that is not of this file.
fn source_page(args: &RepairArgs, d: &Damaged) -> Result<Option<(Vec<u8>, String)>, Fatal> {
    let size = d.geometry.block_size.len();
    if let Some(given) = &args.from {
        let resolved = good_copy_file(given, &args.path)?;
        let good = &resolved;
        let shown = good.display().to_string();
        if let (Some(x), Some(y)) = (d.name, file_name(good)) {
            if x != y {
                return Err(Fatal(format!(
                    "\"{}\" and \"{shown}\" are files of different relations: relfilenode {} fork {} segment {} against relfilenode {} fork {} segment {}",
                    d.display, x.relfilenode, x.fork.as_str(), x.segno, y.relfilenode, y.fork.as_str(), y.segno
                )));
            }
        }
        let file = open_regular(good).map_err(|e| failed("open", &shown, &e))?;
        let len = file
            .metadata()
            .map_err(|e| failed("stat", &shown, &e))?
            .len();
        let head = read_head(&file, len).map_err(|e| failed("read", &shown, &e))?;
        if let Ok(g) = file_geometry(&head, args.read_as.geometry_choice(), true) {
            let says = !g.block_size_assumed && head.iter().any(|&x| x != 0);
            if says && (g.block_size != d.geometry.block_size || g.endian != d.geometry.endian) {
                return Err(Fatal(format!(
                    "\"{}\" and \"{shown}\" are not copies of one relation file: their page headers say block size {} and {}{}",
                    d.display,
                    d.geometry.block_size.bytes(),
                    g.block_size.bytes(),
                    if g.endian == d.geometry.endian { "" } else { ", and different byte orders" }
                )));
            }
        }
        let at = u64::from(args.block).saturating_mul(size as u64);
        if at.saturating_add(size as u64) > len {
            return Err(Fatal(format!(
                "file \"{shown}\" has no block {}: it is {len} bytes",
                args.block
            )));
        }
        let mut page = vec![0u8; size];
        file.read_exact_at(&mut page, at)
            .map_err(|e| failed("read", &shown, &e))?;
        return Ok(Some((page, format!("block {} of \"{shown}\"", args.block))));
    }
    if args.torn {
        let torn = older_write(&args.path, d.absolute).or_else(|| {
            // A loose file: what the page itself shows of the tear.
            let (sectors, items) = pgpage::am::torn_write(&d.page, d.absolute, d.geometry.endian);
            if sectors.is_empty() {
                return None;
            }
            // A header older than the tuples needs the newer write's line pointers, which
            // only the table's columns (the tuples' lengths) and its index (the HOT roots)
            // rebuild: a data directory's catalogs.
            let header_older =
                !pgpage::am::header_older(&d.page, d.absolute, d.geometry.endian).is_empty();
            let moved = if header_older {
                Vec::new()
            } else {
                pgpage::am::torn_moved(&d.page, d.absolute, d.geometry.endian, &sectors)
            };
            Some(pgpage::am::TornWrite {
                noise: false,
                items: items
                    .into_iter()
                    .filter(|lp| !moved.iter().any(|(m, _)| m == lp))
                    .collect(),
                sectors,
                moved,
                newest: Vec::new(),
                rebuilt: Vec::new(),
                not_rebuilt: header_older.then(|| {
                    String::from("the table's columns, which give its tuples' lengths, are read from a data directory's catalogs, and this file is not in one")
                }),
            })
        });
        let Some(torn) = torn else {
            return Err(Fatal(format!(
                "block {} of \"{}\" shows no torn write (no sector of another write): --torn has nothing to rebuild",
                args.block, d.display
            )));
        };
        let page = pgpage::damage::repair::torn_rebuilt(&d.page, d.geometry.endian, &torn)
            .map_err(|why| {
                Fatal(format!(
                    "block {} of \"{}\" not rebuilt: {why}. The ways left: pgpage recover --block {} (the page as the WAL makes it), or pgpage rows --include-damaged (the rows that read, to save them)",
                    args.block, d.display, args.block
                ))
            })?;
        let redirected = |n: u64| {
            if n == 1 {
                String::from("1 root redirected to its row's newest version")
            } else {
                format!("{n} roots redirected to their rows' newest versions")
            }
        };
        let words = if torn.rebuilt.is_empty() {
            format!(
                "the page rebuilt as its rows read ({} moved, {}, {} made LP_DEAD)",
                plural(torn.moved.len() as u64, "row", "rows"),
                redirected(torn.newest.len() as u64),
                plural(
                    torn.items.len().saturating_sub(torn.newest.len()) as u64,
                    "line pointer",
                    "line pointers"
                ),
            )
        } else {
            let count =
                |flags: u8| torn.rebuilt.iter().filter(|i| i.lp_flags == flags).count() as u64;
            format!(
                "the torn page rebuilt with the newer write's line pointers, from its tuples ({}, {}, {} made LP_DEAD)",
                plural(count(pgpage::page::fields::LP_NORMAL), "tuple", "tuples"),
                redirected(count(pgpage::page::fields::LP_REDIRECT)),
                plural(count(pgpage::page::fields::LP_DEAD), "line pointer", "line pointers"),
            )
        };
        return Ok(Some((page, words)));
    }
    if let Some(p) = &args.page {
        let shown = p.display().to_string();
        let file = open_regular(p).map_err(|e| failed("open", &shown, &e))?;
        let len = file
            .metadata()
            .map_err(|e| failed("stat", &shown, &e))?
            .len();
        if len != size as u64 {
            return Err(Fatal(format!(
                "page file \"{shown}\" is {len} bytes, not one {size}-byte page"
            )));
        }
        let mut page = vec![0u8; size];
        file.read_exact_at(&mut page, 0)
            .map_err(|e| failed("read", &shown, &e))?;
        return Ok(Some((page, format!("page file \"{shown}\""))));
    }
    Ok(None)
}

/// The good copy's file: `from` itself, or, when it is a directory (a backup's data
/// directory), the file at the damaged file's path inside its own data directory.
fn good_copy_file(from: &Path, damaged: &Path) -> Result<PathBuf, Fatal> {
    if !from.is_dir() {
        return Ok(from.to_path_buf());
    }
    let shown = from.display();
    let Some((_, inside)) = crate::heapctx::data_directory(damaged) else {
        return Err(Fatal(format!(
            "--from \"{shown}\" is a directory, but \"{}\" is not inside a data directory, so which file of it is the same relation file is unknown: give the good copy's file",
            damaged.display()
        )));
    };
    let file = from.join(&inside);
    if file.is_file() {
        Ok(file)
    } else {
        Err(Fatal(format!(
            "--from \"{shown}\" has no file \"{}\" (the damaged file's path inside its data directory): give the good copy's file if it lies elsewhere",
            inside.display()
        )))
    }
}

/// Refuses an --out that is the input, the good copy, or any file that exists.
fn check_out(out: &Path, inputs: &[&Path]) -> Result<(), Fatal> {
    let shown = out.display();
    match std::fs::symlink_metadata(out) {
        Ok(m) => {
            let same = inputs.iter().any(|p| {
                std::fs::metadata(p).is_ok_and(|i| i.dev() == m.dev() && i.ino() == m.ino())
            });
            Err(Fatal(if same {
                format!(
                    "--out \"{shown}\" is an input file: the repaired copy is always a new file"
                )
            } else {
                format!("--out \"{shown}\" exists: the repaired copy is always a new file")
            }))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Fatal(format!(
            "could not stat \"{shown}\": {}",
            io_reason(&e)
        ))),
    }
}

#[derive(Serialize)]
struct RepairOut<'a> {
    path: &'a str,
    out: &'a str,
    block: u32,
    absolute_block: u32,
    /// What was put in: `block N of "COPY"`, `page file "F"`, `bit B of byte O flipped`.
    source: &'a str,
    #[serde(flatten)]
    repaired: &'a Repaired,
}

/// Repairs `args.block`; `first`: NEW is created from FILE with it, else (the next block of
/// several) written into the NEW the first one created.
fn repair(args: &RepairArgs, first: bool) -> Result<i32, Fatal> {
    // LSNs as the release of FILE's data directory prints them; a loose file's as 13 to 18 do.
    let version = crate::inspect::cluster_version(&args.path);
    let lsn_text = |lsn: u64| lsn_text(version, lsn);
    let out_path = args.out.as_deref().ok_or_else(|| {
        Fatal(String::from(
            "--out NEW is required with a source: the repaired copy is a new file",
        ))
    })?;
    let mut inputs: Vec<&Path> = vec![&args.path];
    let from = args
        .from
        .as_deref()
        .map(|f| good_copy_file(f, &args.path))
        .transpose()?;
    inputs.extend(from.as_deref());
    inputs.extend(args.page.as_deref());
    if first {
        check_out(out_path, &inputs)?;
    }
    let d = open_damaged(args)?;
    let endian = d.geometry.endian;
    let (source, words, replacement) = match (source_page(args, &d)?, args.flip, args.set) {
        (Some((page, words)), _, _) => (None, words, Some(page)),
        (None, Some(bit), _) => (
            Some(bit),
            format!("bit {} of byte {} flipped", bit.bit, bit.offset),
            None,
        ),
        (None, None, Some((field, value))) => (
            None,
            format!(
                "{} set from {} to {value}",
                field.name(),
                read_u16(&d.page, field.offset(), endian).unwrap_or(0)
            ),
            None,
        ),
        (None, None, None) => return Err(Fatal(String::from("no source given"))),
    };
    let src = match (&replacement, source, args.set) {
        (Some(p), _, _) => PageSource::Page(p),
        (None, Some(bit), _) => PageSource::Flip(bit),
        (None, None, Some((field, value))) => PageSource::Field(field, value),
        (None, None, None) => return Err(Fatal(String::from("no source given"))),
    };
    let repaired = repair_page(&d.page, src, d.absolute, endian).map_err(|why| {
        Fatal(format!(
            "block {} of \"{}\" not repaired from {words}: {why}",
            args.block, d.display
        ))
    })?;
    // A bit that does not make the stored checksum valid is no candidate: a typo would give a
    // page that passes every checksum check with two wrong bits in it.
    if repaired.flip_was_candidate == Some(false) {
        let (bit, offset) = (
            args.flip.map_or(0, |b| b.bit),
            args.flip.map_or(0, |b| b.offset),
        );
        if !args.force {
            return Err(Fatal(format!(
                "flipping bit {bit} of byte {offset} does not make the stored checksum valid: it is not a bit-flip candidate (pgpage repair --block {} \"{}\" lists them); nothing written. --force writes it anyway, with a checksum recomputed over bytes nothing checked",
                args.block, d.display
            )));
        }
        eprintln!(
            "pgpage: warning: flipping bit {bit} of byte {offset} does not make the stored checksum valid (not a bit-flip candidate): written as --force asks, with the checksum recomputed, so it no longer vouches for the rest of the page"
        );
    }
    // A value the checksum does not verify with gives a page that passes every check with
    // whatever else is wrong in it: the checksum, rewritten, no longer vouches for it.
    if let (Some(false), Some((field, value))) = (repaired.field_verified, args.set) {
        let fix = pgpage::page::header_field::one_field(&d.page, d.absolute, endian)
            .filter(|f| f.field == field);
        let why = if let Some(f) = fix.as_ref().filter(|f| f.checksummed_wrong) {
            format!(
                "the stored checksum {} was computed over {} {} (it verifies with that value), so it confirms no other; the line pointers give {}",
                repaired.checksum_damaged,
                field.name(),
                f.stored,
                f.value
            )
        } else if repaired.checksum_damaged == 0 {
            String::from(
                "the page has no checksum (pd_checksum 0: data checksums were off when it was written) to confirm it",
            )
        } else {
            format!(
                "the stored checksum {} does not verify with it",
                repaired.checksum_damaged
            )
        };
        if !args.force {
            return Err(Fatal(format!(
                "setting {} to {value}: {why}; nothing written. --force writes it anyway, with the checksum recomputed over bytes nothing checked (pgpage repair --block {} \"{}\" says what the line pointers give)",
                field.name(),
                args.block,
                d.display
            )));
        }
        eprintln!(
            "pgpage: warning: setting {} to {value}: {why}; written as --force asks, with the checksum recomputed, so it no longer vouches for the rest of the page",
            field.name()
        );
    }
    // The checksum verifies with this value, and maybe with others: the search names them.
    if let (Some(true), Some((field, value))) = (repaired.field_verified, args.set) {
        let fix = pgpage::page::header_field::one_field(&d.page, d.absolute, endian);
        if let Some(f) = fix.filter(|f| f.field == field && f.verifying.len() > 1) {
            let others: Vec<String> = f
                .verifying
                .iter()
                .filter(|v| **v != value)
                .map(u16::to_string)
                .collect();
            let which = if f.confirmed && f.value == value {
                format!("the line pointers give {value}, so the others are chance matches")
            } else if f.confirmed {
                format!(
                    "the line pointers give {}, so {value} is likely a chance match",
                    f.value
                )
            } else {
                String::from(
                    "all but one are chance matches, and the rows the page gives tell which",
                )
            };
            eprintln!(
                "pgpage: note: the stored checksum verifies with {} = {} too: {which}",
                field.name(),
                pgpage::words::and_list(&others)
            );
        }
    }
    if let Some(bit) = source {
        let columns = catalog_columns(&args.path, d.name);
        // The table's relfrozenxid judges flips in xids as the report and the advice do.
        let source = crate::heapctx::heap_source(&args.path);
        let told = pgpage::damage::flips::tell_with(
            &d.page,
            d.absolute,
            endian,
            &pgpage::damage::flips::Known {
                columns: columns.as_deref(),
                relfrozenxid: source
                    .as_ref()
                    .and_then(|s| s.context())
                    .map(|c| c.relfrozenxid),
                flagged: &[],
                next_xid: source
                    .as_ref()
                    .and_then(|s| s.context())
                    .filter(|c| c.next_known)
                    .map(|c| (c.next_full_xid & 0xFFFF_FFFF) as u32),
                index: None,
            },
        );
        // A candidate whose flipped-back page breaks a rule PostgreSQL keeps matches the
        // checksum by chance: written, the page would pass every check with a tuple the
        // server cannot read.
        if let Some(c) = told.find(bit).filter(|c| !c.structurally_valid) {
            if !args.force {
                return Err(Fatal(format!(
                    "flipping bit {} of byte {} makes the stored checksum valid, but {}: a chance match, not the damage; nothing written. --force writes it anyway",
                    bit.bit, bit.offset, c.why
                )));
            }
            eprintln!(
                "pgpage: warning: flipping bit {} of byte {} makes the stored checksum valid, but {}: written as --force asks",
                bit.bit, bit.offset, c.why
            );
        }
        // A flip that is no candidate has its warning below; the only candidate needs no
        // reminder of the others.
        if told.find(bit).is_some() && told.candidates.len() > 1 {
            eprintln!("pgpage: note: {}", told.reminder(bit));
        }
    }
    // A page file pg_waldump --save-fullpage named is its record's page: the image holds
    // that record's change, under the pd_lsn from before it.
    let image_lsn = args
        .page
        .as_deref()
        .and_then(|p| p.file_name())
        .and_then(|n| parse_fullpage_name(&n.to_string_lossy()))
        .map(|n| n.lsn);
    // What the data directory's WAL holds of the block after the replacement says more than
    // the pd_lsn comparison below, which it then replaces.
    let wal_said = replacement.as_ref().and_then(|_| {
        let since = match image_lsn {
            Some(lsn) => Since::Image(lsn),
            None => Since::PageLsn(repaired.lsn_after),
        };
        wal_since(&args.path, d.absolute, since)
    });
    // A page written for another block carries that block's pd_lsn: no measure of this one's.
    let holds = pgpage::cluster::rows::copy_of_block(&d.page, d.absolute, endian);
    match (repaired.lsn_before, image_lsn) {
        _ if wal_said.is_some() => {}
        (Some(before), _) if holds.is_some() => eprintln!(
            "pgpage: note: the damaged page is block {}'s (its checksum is valid for that block and its tuples' t_ctid name it): its pd_lsn {} is that block's and says nothing of how old the replacement is for block {}",
            holds.unwrap_or(0),
            lsn_text(before),
            d.absolute
        ),
        // The damaged page's pd_lsn is where the last record that changed it ends: this
        // image's own record, or a later one. Without the WAL the two cannot be told apart.
        (Some(before), Some(image)) if image < before => eprintln!(
            "pgpage: note: the damaged page's pd_lsn ({}) is past the start of the image's record ({}): if it is that record's end, the image is the block's newest change and nothing is missing; if later records changed the block, the image lacks them. The cluster's WAL tells which (pgpage fpi --block {} on its pg_wal lists the records after the image)",
            lsn_text(before),
            lsn_text(image),
            d.absolute
        ),
        (_, Some(image)) => eprintln!(
            "pgpage: note: the image holds the block as its record at {} left it; its pd_lsn ({}) is the page's from before that record, as pg_waldump --save-fullpage writes it (the server's recovery would set it to the record's end)",
            lsn_text(image),
            lsn_text(repaired.lsn_after)
        ),
        (Some(before), None) if repaired.older() => eprintln!(
            "pgpage: warning: the replacement page is older than the damaged one (pd_lsn {} < {}): changes to the block after {} are not in it; WAL from there would replay them",
            lsn_text(repaired.lsn_after),
            lsn_text(before),
            lsn_text(repaired.lsn_after)
        ),
        (Some(_), None) => {}
        (None, None) if replacement.is_some() => eprintln!(
            "pgpage: note: the damaged page's pd_lsn is unknown (its header breaks PageIsVerified's rules, so its bytes there are not an LSN): whether the replacement (pd_lsn {}) lacks later changes cannot be told from it",
            lsn_text(repaired.lsn_after)
        ),
        (None, None) => {}
    }
    if let Some(said) = wal_said {
        eprintln!("{said}");
    }
    if let Some(said) = vm_says_all_visible(args, &d, &repaired.page) {
        eprintln!("{said}");
    }
    if first {
        write_copy(&d, args.block, &repaired.page, out_path)?;
    } else {
        write_block(args.block, &repaired.page, out_path)?;
    }
    let out_shown = out_path.display().to_string();
    let stdout = io::stdout();
    let mut w = BufWriter::new(stdout.lock());
    let printed = if args.json {
        serde_json::to_writer(
            &mut w,
            &RepairOut {
                path: &d.display,
                out: &out_shown,
                block: args.block,
                absolute_block: d.absolute,
                source: &words,
                repaired: &repaired,
            },
        )
        .map_err(io::Error::from)
        .and_then(|()| writeln!(w))
    } else {
        let sum = repaired.checksum.map_or_else(
            || String::from("none (an all-zero page)"),
            |c| {
                let damaged = if d.past_end {
                    format!("the file ended before block {}", args.block)
                } else {
                    format!("the damaged block stored {}", repaired.checksum_damaged)
                };
                format!(
                    "{c} (0x{c:04X}); {damaged}{}",
                    if replacement.is_some() {
                        format!(", the replacement carried {}", repaired.checksum_before)
                    } else {
                        String::new()
                    }
                )
            },
        );
        writeln!(
            w,
            "wrote \"{out_shown}\": \"{}\" with block {} (relation block {}) from {words}; pd_lsn {}; checksum {sum}",
            d.display,
            args.block,
            d.absolute,
            lsn_text(repaired.lsn_after)
        )
    };
    printed
        .and_then(|()| w.flush())
        .map_err(|e| Fatal(format!("writing output: {e}")))?;
    Ok(0)
}

/// A heap page written without PD_ALL_VISIBLE whose block the table's visibility map still
/// marks all-visible: what that does and how to clear the bit. None otherwise, or when the
/// map cannot be read (no `_vm` beside the file: the server then reads every bit as clear).
fn vm_says_all_visible(args: &RepairArgs, d: &Damaged, page: &[u8]) -> Option<String> {
    let name = d.name.filter(|n| n.fork == Fork::Main)?;
    let endian = d.geometry.endian;
    let flags = pgpage::page::geometry::read_u16(page, 10, endian)?;
    if flags & pgpage::page::fields::PD_ALL_VISIBLE != 0
        || pgpage::am::kind::detect_kind(page, endian, pgpage::page::kind::Fork::Main)
            != pgpage::page::kind::PageKind::Heap
    {
        return None;
    }
    let vm_path = args.path.with_file_name(format!("{}_vm", name.relfilenode));
    let size = d.geometry.block_size.len();
    let (vm_block, _, _) = pgpage::am::maps::redo::vm_position(d.absolute, size)?;
    let file = open_regular(&vm_path).ok()?;
    let mut vm_page = vec![0u8; size];
    file.read_exact_at(
        &mut vm_page,
        u64::from(vm_block).saturating_mul(size as u64),
    )
    .ok()?;
    let bits = pgpage::am::maps::redo::vm_status(&vm_page, d.absolute);
    if bits == 0 {
        return None;
    }
    let table = table_from_catalogs(&args.path, d.name).unwrap_or_else(|| String::from("TABLE"));
    Some(format!(
        "pgpage: warning: the visibility map \"{}\" marks block {} all-visible{}, and the page written is not: index-only scans would return its index entries' rows without reading it (rows it no longer has among them), and VACUUM may skip it. Before starting the server with the new file, delete that _vm file (a missing map reads as no page all-visible; VACUUM writes it again); or, once the server runs, VACUUM (DISABLE_PAGE_SKIPPING) {table}; clears the bit with \"WARNING: page is not marked all-visible but visibility map bit is set\"",
        vm_path.display(),
        d.absolute,
        if bits & 2 != 0 { " and all-frozen" } else { "" },
    ))
}

/// Where a replacement page stands in the WAL: an image's record, or its own pd_lsn.
#[derive(Clone, Copy)]
enum Since {
    Image(u64),
    PageLsn(u64),
}

/// What the data directory's pg_wal holds of the block after a replacement page with pd_lsn
/// `since`: a newer full-page image to take instead, or the records that touched it since,
/// each with what it did to the rows, and what the replacement therefore lacks. None when the
/// file is not in a data directory with a pg_wal, or the WAL does not touch the block.
fn wal_since(path: &Path, block: u32, since: Since) -> Option<String> {
    let (root, inside) = crate::heapctx::data_directory(path)?;
    let wal = root.join("pg_wal");
    if !wal.is_dir() {
        return None;
    }
    let (spc, db, rel) = pgpage::file::datadir::locator_of(&inside.to_string_lossy())?;
    let filter = RelationFilter {
        spc_oid: Some(spc),
        db_oid: db,
        rel_number: rel,
    };
    let mut history = BlockHistory::new(Some(filter), block);
    let version = crate::fpi::read_history(std::slice::from_ref(&wal), &mut history).ok()?;
    // LSNs as the WAL's server prints them (19 pads the low half).
    let lsn_text = |lsn: u64| lsn_text(version, lsn);
    let (since, after_what, what) = match since {
        Since::Image(lsn) => (
            lsn,
            format!("the image's record at {}", lsn_text(lsn)),
            "the image",
        ),
        Since::PageLsn(lsn) => (
            lsn,
            format!("the replacement's pd_lsn {}", lsn_text(lsn)),
            "the replacement",
        ),
    };
    let (_, image, after) = history.blocks().find(|(k, _, _)| k.fork == 0)?;
    if let Some(img) = image.filter(|i| i.lsn > since) {
        return Some(format!(
            "pgpage: warning: \"{}\" holds a newer full-page image of this block, at {}, after {after_what}: take it instead; pgpage fpi --relation {db}/{rel} --block {block} --out DIR \"{}\" writes it as a page file",
            wal.display(),
            lsn_text(img.lsn),
            wal.display()
        ));
    }
    let later: Vec<pgpage::wal::Touch> = after.iter().filter(|t| t.lsn > since).copied().collect();
    if later.is_empty() {
        return None;
    }
    let version = version.unwrap_or(18);
    let records: Vec<String> = later
        .iter()
        .map(|t| {
            let e = t.effect(version);
            format!(
                "{}/{} at {} ({})",
                rmgr_name(t.rmid),
                record_type(version, t.rmid, t.info),
                lsn_text(t.lsn),
                e.words()
            )
        })
        .collect();
    Some(format!(
        "pgpage: warning: \"{}\" holds {} that touched this block after {after_what}: {}; {}",
        wal.display(),
        plural(later.len() as u64, "record", "records"),
        records.join(", "),
        restoring_after(what, version, &later)
    ))
}

/// Bytes copied at once.
const COPY_BYTES: usize = 1 << 20;

/// Writes the input with `block` replaced by `page` to a new file (O_EXCL: a file that
/// appeared since the check is not overwritten either); a partial file is removed.
/// The next block of several into the NEW this run created.
fn write_block(block: u32, page: &[u8], out: &Path) -> Result<(), Fatal> {
    let shown = out.display().to_string();
    let f = OpenOptions::new()
        .write(true)
        .open(out)
        .map_err(|e| failed("open", &shown, &e))?;
    let at = u64::from(block).saturating_mul(page.len() as u64);
    f.write_all_at(page, at)
        .map_err(|e| failed("write", &shown, &e))?;
    f.sync_all().map_err(|e| failed("fsync", &shown, &e))
}

fn write_copy(d: &Damaged, block: u32, page: &[u8], out: &Path) -> Result<(), Fatal> {
    let shown = out.display().to_string();
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(out)
        .map_err(|e| failed("create", &shown, &e))?;
    let size = page.len() as u64;
    let at = u64::from(block).saturating_mul(size);
    let written = (|| -> Result<(), Fatal> {
        let mut buf = vec![0u8; COPY_BYTES];
        let mut off = 0u64;
        while off < d.len {
            let want = usize::try_from(d.len.saturating_sub(off))
                .map_or(COPY_BYTES, |n| n.min(COPY_BYTES));
            let chunk = buf.get_mut(..want).unwrap_or_default();
            let (got, err) = read_full_at(&d.file, chunk, off);
            if let Some(e) = err {
                return Err(failed("read", &d.display, &e));
            }
            if got < want {
                return Err(Fatal(format!(
                    "file \"{}\" shrank while being read",
                    d.display
                )));
            }
            f.write_all(chunk)
                .map_err(|e| failed("write", &shown, &e))?;
            off = off.saturating_add(want as u64);
        }
        // The block written over its bytes in the copy: the file's own bytes are never touched.
        f.write_all_at(page, at)
            .map_err(|e| failed("write", &shown, &e))?;
        f.sync_all().map_err(|e| failed("fsync", &shown, &e))
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(out);
    }
    written
}

/// The relation whose file `inside` (a path in its data directory) is, as the catalogs
/// claim it (`CatalogListing::claims`: its database's directory and its relfilenode).
fn claimed<'l>(
    listing: &'l pgpage::cluster::catalog::reader::CatalogListing,
    inside: &Path,
) -> Option<&'l pgpage::cluster::catalog::names::NamedRelation> {
    let p = inside.to_str()?.replace('\\', "/");
    let i = listing.claims([p.as_str()]).into_iter().next()??;
    listing.relations.get(i).map(|l| &l.relation)
}

/// The table's name from the catalogs of the data directory the file is in
/// (`DATADIR/base/DB/FILE`), as SQL.
fn table_from_catalogs(path: &Path, name: Option<RelationFileName>) -> Option<String> {
    // The data directory above the file, a tablespace's file too (D/pg_tblspc/OID/...):
    // the relation is the one whose directory (its database's, in its tablespace) and
    // relfilenode the file's are.
    name?;
    let (root, inside) = crate::heapctx::data_directory(path)?;
    let mut ls = crate::ls::Ls::open(&root).ok()?;
    let listing = ls.catalogs();
    let found = claimed(&listing, &inside)?;
    Some(quote_qualified(
        found.schema.as_deref().unwrap_or("public"),
        &found.name,
    ))
}

/// The table's columns from the catalogs of the data directory the file is in, for the
/// values a bit flip changes; None when they cannot be read.
pub(crate) fn catalog_columns(
    path: &Path,
    name: Option<RelationFileName>,
) -> Option<Vec<pgpage::cluster::rows::Column>> {
    name?;
    let (root, inside) = crate::heapctx::data_directory(path)?;
    let mut ls = crate::ls::Ls::open(&root).ok()?;
    let (database, relation) = {
        let listing = ls.catalogs();
        let found = claimed(&listing, &inside)?;
        let database = listing
            .databases
            .iter()
            .find(|d| d.oid == found.database_oid)?
            .datname
            .clone();
        (
            database,
            quote_qualified(found.schema.as_deref().unwrap_or("public"), &found.name),
        )
    };
    let mut reader = pgpage::cluster::catalog::table::TableReader::new(
        ls.paths(),
        &format!("{}/", ls.display),
        ls.read_with(),
        ls.checksums(),
        Some(database),
        relation,
    );
    loop {
        let wanted = reader.wanted();
        if wanted.is_empty() {
            break;
        }
        for p in wanted {
            let bytes = std::fs::read(ls.root.join(&p)).ok();
            reader.give(&p, bytes);
        }
    }
    reader.finish().ok().map(|t| t.columns)
}

#[derive(Serialize)]
struct AdviceOut<'a> {
    path: &'a str,
    block: u32,
    absolute_block: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    table: Option<&'a str>,
    #[serde(flatten)]
    advice: &'a PageAdvice,
}

fn advice(args: &RepairArgs) -> Result<i32, Fatal> {
    let d = open_damaged(args)?;
    let endian = d.geometry.endian;
    let kind = match d.fork {
        Fork::Fsm => Some(PageKind::Fsm),
        Fork::Vm => Some(PageKind::Vm),
        Fork::Main | Fork::Init => None,
    };
    let opts = DecodeOptions {
        endian,
        kind,
        fork: d.fork,
        file_kind: Some(file_kind(
            d.fork,
            d.head.chunks_exact(d.geometry.block_size.len()),
            endian,
        )),
    };
    let table = args
        .table
        .clone()
        .or_else(|| table_from_catalogs(&args.path, d.name));
    // A heap in a data directory: tuples whose xids the server cannot look up get
    // heap_force_freeze rather than heap_force_kill.
    let source = crate::heapctx::heap_source(&args.path);
    let a = advise(
        &d.page,
        d.absolute,
        &opts,
        table.as_deref(),
        d.name.map(|n| n.relfilenode),
        source.as_ref().and_then(|s| s.context()).as_ref(),
        catalog_columns(&args.path, d.name).as_deref(),
        older_write(&args.path, d.absolute).as_ref(),
    );
    let stdout = io::stdout();
    let mut w = BufWriter::new(stdout.lock());
    let printed = if args.json {
        serde_json::to_writer(
            &mut w,
            &AdviceOut {
                path: &d.display,
                block: args.block,
                absolute_block: d.absolute,
                table: table.as_deref(),
                advice: &a,
            },
        )
        .map_err(io::Error::from)
        .and_then(|()| writeln!(w))
    } else {
        print_advice(&mut w, &d, args.block, table.as_deref(), &a)
    };
    printed
        .and_then(|()| w.flush())
        .map_err(|e| Fatal(format!("writing output: {e}")))?;
    Ok(i32::from(a.status.is_problem()))
}

/// A torn page's older write as the incident report finds it for a file inside a data
/// directory (it reads the table's indexes to tell older versions of rows from current
/// ones, which the page alone cannot); None when it finds no tear.
fn older_write(path: &Path, absolute: u32) -> Option<pgpage::am::TornWrite> {
    crate::heapctx::data_directory(path)?;
    let (report, _) = crate::report::gather(&[path.to_path_buf()], true, &[]).ok()?;
    report
        .torn_writes()
        .into_iter()
        .find(|((_, block), _)| *block == absolute)
        .map(|(_, t)| t)
}

/// The unreached heap-only tuples in the advice's first line: not damaged, not lost.
fn unreached_words(a: &PageAdvice) -> String {
    match a.unreached.len() {
        0 => String::new(),
        1 => String::from(", 1 heap-only tuple nothing leads to (its row's newest version)"),
        n => format!(", {n} heap-only tuples nothing leads to (their rows' newest versions)"),
    }
}

fn print_advice(
    w: &mut impl Write,
    d: &Damaged,
    block: u32,
    table: Option<&str>,
    a: &PageAdvice,
) -> io::Result<()> {
    writeln!(
        w,
        "\"{}\", block {block} (relation block {}{}): {}, {} page, {}",
        d.display,
        d.absolute,
        table.map_or_else(String::new, |t| format!(", table {t}")),
        a.status.as_str(),
        a.kind.as_str(),
        match (a.tuples_known, a.tuples.len()) {
            (false, _) => String::from("number of tuples unknown from the page"),
            (true, n) if a.copy_of.is_some() => format!(
                "a copy of block {}: its {} are that block's",
                a.copy_of.unwrap_or_default(),
                pgpage::words::plural(n, "tuple", "tuples")
            ),
            (true, n) if a.torn_rebuilt => format!(
                "{} (a torn write: the older header's {} lead to other bytes, so pgpage reads the tuples through line pointers rebuilt from them; --torn writes that page){}",
                pgpage::words::plural(n, "tuple", "tuples"),
                pgpage::words::plural(a.damaged.len(), "line pointer", "line pointers"),
                unreached_words(a)
            ),
            (true, n) => format!(
                "{}, {} damaged{}{}",
                pgpage::words::plural(n, "tuple", "tuples"),
                a.damaged.len(),
                if a.torn_moved > 0 && a.torn_refused.is_none() {
                    format!(
                        " (a torn write; {} of them intact elsewhere on the page: --torn rebuilds it)",
                        a.torn_moved
                    )
                } else {
                    String::new()
                },
                unreached_words(a)
            ),
        }
    )?;
    writeln!(w, "{}.", a.zero_damaged_pages)?;
    writeln!(w, "{}.", a.ignore_checksum_failure)?;
    if let Some(f) = &a.bit_flips {
        writeln!(
            w,
            "Single-bit flips, most likely first (the rank weighs what PostgreSQL's rules say of each restored page and value): {}:",
            f.odds
        )?;
        for line in pgpage::damage::flips::lines(f, block, &d.display, "") {
            writeln!(w, "  {line}")?;
        }
    }
    match &a.header_field {
        Some(f) if f.confirmed => writeln!(
            w,
            "{name} is {}; the stored checksum verifies with {name} = {} (of the {} values it can take, that one alone): the header's one field is damaged, the rest of the page is its own. Better than either, and than any copy: pgpage repair --block {block} --set {name}={} --out NEW \"{}\" writes the page as the server wrote it",
            f.stored,
            f.value,
            f.tried,
            f.value,
            d.display,
            name = f.field.name(),
        )?,
        Some(f) => writeln!(
            w,
            "{name} is {}; its line pointers give {name} = {} ({}), a candidate, not confirmed: the header's one field is damaged. pgpage repair --block {block} --set {name}={}{} --out NEW \"{}\" writes the page with it; a good copy of the page is surer: pgpage repair --block {block} --from GOOD_COPY (or --page PAGE_FILE) --out NEW",
            f.stored,
            f.value,
            if f.checksummed_wrong {
                "the stored checksum was computed over the wrong value, so it confirms none"
            } else if !f.has_checksum {
                "the page has no checksum to confirm it"
            } else if f.verifying.len() > 1 {
                "the stored checksum verifies with other values too"
            } else {
                "no value makes the stored checksum verify: more bytes than this field changed"
            },
            f.value,
            if f.verifying.contains(&f.value) { "" } else { " --force" },
            d.display,
            name = f.field.name(),
        )?,
        None => writeln!(
            w,
            "A good copy of the page is better than either: pgpage repair --block {block} --from GOOD_COPY (or --page PAGE_FILE, --flip BYTE_OFFSET:BIT) --out NEW"
        )?,
    }
    if let Some(why) = &a.torn_refused {
        writeln!(
            w,
            "Without one, the {} cannot be rebuilt as its rows read ({why}): the ways left are pgpage recover --block {block} --out NEW (the page as the WAL makes it) and pgpage rows --include-damaged (the rows that read)",
            if a.noise { "overwritten page" } else { "torn page" }
        )?;
    } else if a.noise {
        writeln!(
            w,
            "Without one, rebuild the page without the rows the random bytes cover: pgpage repair --block {block} --torn --out NEW"
        )?;
    } else if !a.torn_sectors.is_empty() {
        writeln!(
            w,
            "Without one, rebuild the torn page as its rows read: pgpage repair --block {block} --torn --out NEW"
        )?;
    }
    if let Some(sql) = &a.surgery_sql {
        writeln!(w)?;
        w.write_all(sql.as_bytes())?;
    }
    Ok(())
}
