//! `pgpage inspect`: decode pages of one relation file as pageinspect would show them
//! (docs/contracts.md, "inspect --json"), or as readable text. Reads the file read-only, one page
//! at a time, and prints as it goes.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use pgpage::am::decode_page_with;
use pgpage::am::decoded::{DecodeOptions, DecodedPage, Hints};
use pgpage::am::kind::file_kind;
use pgpage::am::nbtree::check::KeyColumn;
use pgpage::damage::bitflip::{localise, odds_sentence, BitFlips};
use pgpage::damage::flips::{ToldFlip, ToldFlips};
use pgpage::damage::redact::{is_row_data_column, redact, Masked, Redaction};
use pgpage::file::{file_geometry, parse_relation_file_name, Geometry};
use pgpage::page::kind::{Fork, PageKind};
use pgpage::page::verify::verify_page;
use pgpage::tuple::columns::ColumnHint;
use serde::Serialize;

use crate::args::{io_reason, KindArg, ReadAs};
use crate::input::{open_regular, read_head};

#[derive(clap::Args, Debug)]
pub struct InspectArgs {
    /// Print JSON (docs/contracts.md, "inspect --json").
    #[arg(long, conflicts_with = "filedump")]
    pub json: bool,
    /// Print what `pg_filedump -f -i` prints (`-f -i -R N` with `--block N`), the format
    /// pasted into pgsql-hackers threads.
    #[arg(long)]
    pub filedump: bool,
    /// Only this block (numbered within the file).
    #[arg(long)]
    pub block: Option<u32>,
    /// Page kind instead of the detected one.
    #[arg(long, value_enum)]
    pub kind: Option<KindArg>,
    #[command(flatten)]
    pub read_as: ReadAs,
    /// Name the columns as this PostgreSQL major version's pageinspect does; by default the
    /// version of the data directory the file is in (PG_VERSION), else the newest names.
    #[arg(long, value_name = "MAJOR")]
    pub pg_version: Option<u32>,
    /// On a checksum mismatch, list every single bit whose flip makes the stored checksum
    /// valid, structurally valid flips first, with the odds of a chance match.
    #[arg(long, conflicts_with = "filedump")]
    pub bit_flips: bool,
    /// Mask what may be users' row data (tuple data after t_hoff, index keys, free space and
    /// unused bytes among the tuples) for sharing a corruption report: pageinspect's value
    /// columns print "redacted", pg_filedump's byte dumps `xx`; headers, line pointers, tuple
    /// headers and checksums are kept. Each block says how many bytes were masked.
    #[arg(long)]
    pub redact: bool,
    /// A B-tree index's key column types, in column order (int2, int4, int8, oid, date,
    /// timestamp, timestamptz, text; text
    /// compared as under the C collation), each with the index's DESC and NULLS FIRST/LAST
    /// if any (`int4 desc nulls first,text`), so each page's item order and high key are
    /// checked as bt_index_check checks them; without them the order is said to be unchecked.
    /// For a BRIN index, its columns' types and opclass families (`int4 minmax,inet
    /// inclusion`; a type pgpage does not know as `TYPE:ATTLEN:ATTALIGN`): regular pages list
    /// brin_page_items() with the summaries printed. For a heap, its column types: tuples'
    /// compressed and external values show their varlena headers (`toast`).
    #[arg(long, value_name = "TYPE [DESC] [NULLS FIRST|LAST] | TYPE FAMILY [,...]", value_delimiter = ',', value_parser = parse_key_type)]
    pub key_types: Vec<KeyArg>,
    pub path: PathBuf,
}

/// One `--key-types` column, as a B-tree key and as a column of a heap or BRIN index, where
/// it reads as one.
#[derive(Clone, Debug)]
pub struct KeyArg {
    key: Option<KeyColumn>,
    column: Option<ColumnHint>,
}

fn parse_key_type(s: &str) -> Result<KeyArg, String> {
    let key = KeyColumn::parse(s);
    let column = ColumnHint::parse(s);
    match (key, column) {
        (None, Err(column)) => Err(format!(
            "key type \"{s}\" is not one whose order pgpage checks: int2, int4, int8, oid, date, \
             timestamp, timestamptz or text, \
             each optionally followed by DESC and NULLS FIRST or NULLS LAST; nor a column: {column}"
        )),
        (key, column) => Ok(KeyArg {
            key,
            column: column.ok(),
        }),
    }
}

/// The major version of the cluster a relation file belongs to: the PG_VERSION of its
/// database directory (every `base/DB/` and the data directory hold one) or of the data
/// directory above `global/`, or its tablespace directory's name (`PG_16_...`).
pub(crate) fn cluster_version(path: &Path) -> Option<u32> {
    let dir = path.parent()?;
    for candidate in [dir.join("PG_VERSION"), dir.parent()?.join("PG_VERSION")] {
        if let Ok(bytes) = std::fs::read(&candidate) {
            if let Some(v) = pgpage::file::datadir::parse_pg_version(&bytes) {
                return Some(v);
            }
        }
    }
    let tablespace = dir.parent()?.file_name()?.to_str()?;
    pgpage::file::datadir::tablespace_dir_version(tablespace)
}

/// Why inspect cannot run (exit status 2).
struct Fatal(String);

/// One block of the contract's `blocks` array.
#[derive(Serialize)]
struct BlockOut<'a> {
    block: u32,
    absolute_block: u32,
    kind: PageKind,
    status: &'static str,
    header: &'a pgpage::page::bufpage::PageHeader,
    items: &'a pgpage::am::decoded::Items,
    special: &'a Option<pgpage::am::decoded::Special>,
    /// Added with --bit-flips, on mismatching pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    bit_flips: Option<BitFlipsOut<'a>>,
}

/// `bit_flips` of a block: the core's result and the odds in words.
#[derive(Serialize)]
struct BitFlipsOut<'a> {
    #[serde(flatten)]
    flips: &'a BitFlips,
    note: String,
    /// The candidates most likely first, each with its rank, its reason and (in tuple data,
    /// with the table's columns, unless redacted) the values as stored and flipped back.
    ranked: &'a [ToldFlip],
}

/// What the file is, resolved from its name, the options and its first pages.
struct Target {
    /// The path as printed.
    display: String,
    file: File,
    fork: Fork,
    segment: u32,
    geometry: Geometry,
    /// The file's first pages, which decided its geometry and decide its kind.
    head: Vec<u8>,
    kind: Option<PageKind>,
    blocks: u32,
    trailing_bytes: u64,
}

/// Runs the command; returns the exit status.
pub fn run(args: &InspectArgs) -> i32 {
    match inspect(args) {
        Ok(status) => status,
        Err(Fatal(reason)) => {
            if !reason.is_empty() {
                eprintln!("pgpage: error: {reason}");
            }
            2
        }
    }
}

fn open(args: &InspectArgs) -> Result<Target, Fatal> {
    let display = args.path.display().to_string();
    let name = args.path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let parsed = parse_relation_file_name(name);
    // Any other name is read as segment 0 of a main fork, as verify reads it.
    let (fork, name_segment) = parsed.map_or((Fork::Main, 0), |n| (n.fork, n.segno));
    let kind = args.kind.map(|k| k.0).or(match fork {
        Fork::Fsm => Some(PageKind::Fsm),
        Fork::Vm => Some(PageKind::Vm),
        Fork::Main | Fork::Init => None,
    });
    let failed = |what: &str, e: io::Error| {
        Fatal(format!(
            "could not {what} file \"{display}\": {}",
            io_reason(&e)
        ))
    };
    let file = open_regular(&args.path).map_err(|e| failed("open", e))?;
    let len = file.metadata().map_err(|e| failed("stat", e))?.len();
    let head = read_head(&file, len).map_err(|e| failed("read", e))?;
    // A file of garbage is still pages of the default size when named like a relation file
    // (each decodes to flagged values and a mismatch status), as verify and pg_checksums
    // read it.
    let geometry = file_geometry(&head, args.read_as.geometry_choice(), parsed.is_some())
        .map_err(|why| Fatal(format!("file \"{display}\" is {why}")))?;
    let size = u64::from(geometry.block_size.bytes());
    let blocks = u32::try_from(len.checked_div(size).unwrap_or(0))
        .map_err(|_| Fatal(format!("file \"{display}\" is too large")))?;
    if blocks == 0 && len > 0 {
        return Err(Fatal(format!(
            "file \"{display}\" is {len} bytes: less than one {size}-byte page"
        )));
    }
    Ok(Target {
        display,
        file,
        fork,
        segment: args.read_as.segment.unwrap_or(name_segment),
        geometry,
        head,
        kind,
        blocks,
        trailing_bytes: len.checked_rem(size).unwrap_or(0),
    })
}

fn inspect(args: &InspectArgs) -> Result<i32, Fatal> {
    let t = open(args)?;
    let range = match args.block {
        Some(b) if b >= t.blocks => {
            return Err(Fatal(match t.blocks {
                0 => format!("block {b} out of range: the file has no blocks"),
                n => format!(
                    "block {b} out of range: the file has {n} blocks (0..{})",
                    n.saturating_sub(1)
                ),
            }))
        }
        Some(b) => b..b.saturating_add(1),
        None => 0..t.blocks,
    };
    let (block_size, endian) = (t.geometry.block_size, t.geometry.endian);
    let pg_version = args.pg_version.or_else(|| cluster_version(&args.path));
    let opts = DecodeOptions {
        endian,
        kind: t.kind,
        fork: t.fork,
        // The file's kind from its head (fork, metapage, most pages), so a damaged page
        // decodes as what its file holds.
        file_kind: Some(file_kind(
            t.fork,
            t.head.chunks_exact(block_size.len()),
            endian,
        )),
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let path = &t.display;
    let write_err = |e: io::Error| match e.kind() {
        // The reader went away (`| head`): nothing more to say, as verify does.
        io::ErrorKind::BrokenPipe => Fatal(String::new()),
        _ => Fatal(format!("writing output: {e}")),
    };
    if args.json {
        #[derive(Serialize)]
        struct Head<'a> {
            path: &'a str,
            segment: u32,
            fork: &'static str,
            block_size: u32,
            /// Added to the contract's keys: the byte order the file was read in.
            endian: pgpage::Endian,
            /// Added: the PostgreSQL major version whose pageinspect names the columns.
            #[serde(skip_serializing_if = "Option::is_none")]
            pg_version: Option<u32>,
        }
        let head = Head {
            path,
            segment: t.segment,
            fork: t.fork.as_str(),
            block_size: block_size.bytes(),
            endian,
            pg_version,
        };
        let head = serde_json::to_string(&head).map_err(|e| Fatal(e.to_string()))?;
        // Streamed: the head object without its closing brace, then the blocks one by one.
        write!(out, "{},\"blocks\":[", head.trim_end_matches('}')).map_err(write_err)?;
    } else if args.filedump {
        let banner = pgpage::text::filedump::filedump_banner(path, args.block);
        out.write_all(banner.as_bytes()).map_err(write_err)?;
    } else {
        let big_endian = match (endian, t.geometry.byte_order_detected) {
            (pgpage::Endian::Big, true) => ", big-endian (detected: a big-endian server's file)",
            (pgpage::Endian::Big, false) => ", big-endian",
            (pgpage::Endian::Little, _) => "",
        };
        writeln!(
            out,
            "{path}: segment {}, fork {}, block size {}{big_endian}, {} blocks{}",
            t.segment,
            t.fork.as_str(),
            block_size.bytes(),
            t.blocks,
            if t.trailing_bytes > 0 {
                format!(", {} trailing bytes", t.trailing_bytes)
            } else {
                String::new()
            }
        )
        .map_err(write_err)?;
    }
    if t.blocks == 0 {
        // An empty file is a relation of no pages (an unlogged table's _init fork, a table
        // truncated to nothing): nothing to decode, nothing wrong, as verify says it.
        eprintln!("pgpage: warning: file \"{path}\" is empty");
    }
    // A heap inside a data directory: verify_heapam's xid and attribute-count checks too.
    let source = crate::heapctx::heap_source(&args.path);
    let heap = source.as_ref().and_then(|s| s.context());
    // Each form applies where every column reads as it.
    let btree_keys: Option<Vec<KeyColumn>> = (!args.key_types.is_empty())
        .then(|| args.key_types.iter().map(|k| k.key).collect())
        .flatten();
    let columns: Option<Vec<ColumnHint>> = (!args.key_types.is_empty())
        .then(|| args.key_types.iter().map(|k| k.column.clone()).collect())
        .flatten();
    // The table's columns, to name the values a bit flip changes: read from the catalogs only
    // when flips are asked for, and never for a redacted page (its values are not printed).
    let table_columns = (args.bit_flips && !args.redact)
        .then(|| {
            let name = args.path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            crate::repair::catalog_columns(&args.path, parse_relation_file_name(name))
        })
        .flatten();
    let mut page = vec![0u8; block_size.len()];
    let mut problems = 0u32;
    for (i, block) in range.enumerate() {
        t.file
            .read_exact_at(
                &mut page,
                u64::from(block).saturating_mul(u64::from(block_size.bytes())),
            )
            .map_err(|e| {
                Fatal(format!(
                    "could not read block {block} in file \"{path}\": {}",
                    io_reason(&e)
                ))
            })?;
        let absolute = block_size.absolute_block(t.segment, block);
        let status = verify_page(&page, absolute, endian).status;
        if status.is_problem() {
            problems = problems.saturating_add(1);
        }
        let hints = Hints {
            btree_keys: btree_keys.as_deref(),
            heap: heap.as_ref(),
            columns: columns.as_deref(),
        };
        let mut decoded = decode_page_with(&page, absolute, &opts, &hints);
        if let Some(v) = pg_version {
            decoded.name_for(v);
        }
        let flips = (args.bit_flips && status == pgpage::PageStatus::Mismatch)
            .then(|| localise(&page, absolute, &opts));
        // A redacted page's values are not to be printed, flipped or not.
        let told = flips.as_ref().map(|_| {
            pgpage::damage::flips::tell(&page, absolute, opts.endian, table_columns.as_deref())
        });
        let redaction = args.redact.then(|| redact(&decoded));
        if args.json {
            let b = BlockOut {
                block,
                absolute_block: absolute,
                kind: decoded.kind,
                status: status.as_str(),
                header: &decoded.header,
                items: &decoded.items,
                special: &decoded.special,
                bit_flips: flips.as_ref().map(|flips| BitFlipsOut {
                    flips,
                    note: odds_sentence(flips),
                    ranked: told.as_ref().map_or(&[], |t| t.candidates.as_slice()),
                }),
            };
            if i > 0 {
                out.write_all(b",").map_err(write_err)?;
            }
            match &redaction {
                Some(r) => {
                    let mut v = serde_json::to_value(&b).map_err(|e| Fatal(e.to_string()))?;
                    scrub(&mut v);
                    if let serde_json::Value::Object(m) = &mut v {
                        m.insert(String::from("redacted"), redaction_json(r));
                    }
                    serde_json::to_writer(&mut out, &v)
                }
                None => serde_json::to_writer(&mut out, &b),
            }
            .map_err(|e| write_err(io::Error::from(e)))?;
        } else if args.filedump {
            let text = match &redaction {
                Some(r) => format!(
                    "\n* {}{}",
                    r.note(),
                    pgpage::text::filedump::filedump_block_redacted(&page, block, endian, r)
                ),
                None => pgpage::text::filedump::filedump_block(&page, block, endian),
            };
            out.write_all(text.as_bytes()).map_err(write_err)?;
        } else {
            print_text(
                &mut out,
                block,
                absolute,
                status.as_str(),
                &decoded,
                path,
                redaction.as_ref(),
            )
            .map_err(write_err)?;
            if let (Some(flips), Some(told)) = (&flips, &told) {
                print_flips(&mut out, flips, told).map_err(write_err)?;
            }
        }
    }
    if args.json {
        writeln!(out, "]}}").map_err(write_err)?;
    } else if args.filedump {
        // pg_filedump counts the block after the last; an empty file has read none.
        let end = match (t.blocks, args.block) {
            (0, _) => String::from("Error: Premature end of file encountered.\n"),
            (n, b) => {
                pgpage::text::filedump::filedump_end(b.unwrap_or(n.wrapping_sub(1)), b.is_some())
            }
        };
        out.write_all(end.as_bytes()).map_err(write_err)?;
    }
    out.flush().map_err(write_err)?;
    Ok(if problems > 0 { 1 } else { 0 })
}

/// Replaces every row-data column's value (pageinspect's `t_data`, `data`, `key_data`, ...)
/// with "redacted", in the block's items and special space.
fn scrub(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if is_row_data_column(k) && !x.is_null() {
                    *x = serde_json::Value::from("redacted");
                } else {
                    scrub(x);
                }
            }
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(scrub),
        _ => {}
    }
}

/// A block's `redacted` object: bytes masked by why, the ranges, the note.
fn redaction_json(r: &Redaction) -> serde_json::Value {
    serde_json::json!({
        "tuple_data_bytes": r.bytes_of(Masked::TupleData),
        "free_space_bytes": r.bytes_of(Masked::FreeSpace),
        "unused_bytes": r.bytes_of(Masked::Unused),
        "ranges": r.ranges,
        "note": r.note(),
    })
}

/// `k=v` pairs of a JSON object, one line.
fn pairs(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Object(m) => m
            .iter()
            .filter(|(_, v)| !v.is_object())
            .map(|(k, v)| format!("{k}={}", plain(v)))
            .collect::<Vec<_>>()
            .join(" "),
        other => plain(other),
    }
}

fn plain(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.replace('\n', "\\n"),
        serde_json::Value::Array(a) => {
            format!("[{}]", a.iter().map(plain).collect::<Vec<_>>().join(","))
        }
        other => other.to_string(),
    }
}

fn print_text(
    out: &mut impl Write,
    block: u32,
    absolute: u32,
    status: &str,
    d: &DecodedPage,
    relation: &str,
    redaction: Option<&Redaction>,
) -> io::Result<()> {
    writeln!(
        out,
        "block {block} (absolute {absolute}): {}, {status}",
        d.kind.as_str()
    )?;
    let value = |mut x: serde_json::Value| {
        if redaction.is_some() {
            scrub(&mut x);
        }
        x
    };
    if let Some(r) = redaction {
        writeln!(out, "  {}", r.note())?;
    }
    let h = serde_json::to_value(&d.header).unwrap_or_default();
    let names = if d.header.flag_names.is_empty() {
        String::new()
    } else {
        format!(" ({})", d.header.flag_names.join("|"))
    };
    writeln!(out, "  header: {}{names}", pairs(&h))?;
    if let Some(s) = &d.special {
        let v = value(serde_json::to_value(s).unwrap_or_default());
        writeln!(out, "  special: {}", pairs(&v))?;
        if let Some(meta) = v.get("meta") {
            writeln!(out, "  meta: {}", pairs(meta))?;
        }
    }
    let items = value(serde_json::to_value(&d.items).unwrap_or_default());
    if let Some(rows) = items.as_array().filter(|r| !r.is_empty()) {
        if d.items_counted {
            writeln!(out, "  items: {}", rows.len())?;
        } else {
            writeln!(
                out,
                "  items: unknown: the header and line pointers are not ones PostgreSQL writes; the {} rows below are what pd_lower counts",
                rows.len()
            )?;
        }
        for row in rows {
            writeln!(out, "    {}", pairs(row))?;
        }
    }
    for f in &d.findings {
        writeln!(out, "  note: {}", f.message())?;
    }
    for p in d.problems() {
        let item = p.item.map(|i| format!(" (item {i})")).unwrap_or_default();
        writeln!(
            out,
            "  problem: bytes {}..{} {}{item}: {}",
            p.start,
            p.end,
            p.field.qualified(),
            p.problem
                .map(|f| d.item_finding(f, p.item).message_at(absolute, relation))
                .unwrap_or_default()
        )?;
    }
    Ok(())
}

/// The candidates, one a line, after the odds.
fn print_flips(out: &mut impl Write, flips: &BitFlips, told: &ToldFlips) -> io::Result<()> {
    writeln!(
        out,
        "  bit flips, most likely first: {}",
        odds_sentence(flips)
    )?;
    for t in &told.candidates {
        let Some(c) = flips
            .candidates
            .iter()
            .find(|c| c.offset == t.byte && c.bit == t.bit)
        else {
            continue;
        };
        let verdict = if c.structurally_valid {
            String::from("structurally valid after the flip")
        } else {
            let codes: Vec<&str> = c.findings.iter().map(|f| f.code()).collect();
            format!("still wrong after the flip: {}", codes.join(", "))
        };
        let mut value = String::new();
        if let Some(i) = t.item {
            value.push_str(&format!(", item {i}"));
        }
        if let (Some(col), Some(a), Some(b)) = (&t.column, &t.stored, &t.flipped) {
            value.push_str(", ");
            value.push_str(&pgpage::damage::flips::values_text(col, a, b, "\""));
        }
        writeln!(
            out,
            "    {}. byte {} bit {} (0x{:02x} -> 0x{:02x}) in {}{value}: {verdict}; {}",
            t.rank, c.offset, c.bit, c.byte, c.flipped, c.field, t.why
        )?;
    }
    Ok(())
}
