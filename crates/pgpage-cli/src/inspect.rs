//! `pgpage inspect`: decode pages of one relation file as pageinspect would show them
//! (CONTRACTS.md `inspect --json`), or as readable text. Reads the file read-only, one page
//! at a time, and prints as it goes.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

use pgpage::decode::{decode_page, file_kind, DecodeOptions, DecodedPage, PageKind};
use pgpage::file::{detect_block_size, parse_relation_file_name, Fork, DETECT_HEAD_BYTES};
use pgpage::layout::{BlockSize, Endian};
use pgpage::verify::verify_page;
use serde::Serialize;

use crate::input::open_regular;

#[derive(clap::Args, Debug)]
pub struct InspectArgs {
    /// Print JSON (CONTRACTS.md `inspect --json`).
    #[arg(long)]
    pub json: bool,
    /// Only this block (numbered within the file).
    #[arg(long)]
    pub block: Option<u32>,
    /// Page kind instead of the detected one.
    #[arg(long)]
    pub kind: Option<String>,
    /// Segment number instead of the one in the file name's `.N` suffix.
    #[arg(long)]
    pub segment: Option<u32>,
    /// Block size instead of the one detected from pd_pagesize_version.
    #[arg(long)]
    pub block_size: Option<u32>,
    /// Byte order of the server that wrote the file.
    #[arg(long, default_value = "little")]
    pub endian: String,
    pub path: PathBuf,
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
    header: &'a pgpage::decode::PageHeader,
    items: &'a pgpage::decode::Items,
    special: &'a Option<pgpage::decode::Special>,
}

/// What the file is, resolved from its name, the options and its first pages.
struct Target {
    file: File,
    fork: Fork,
    segment: u32,
    block_size: BlockSize,
    endian: Endian,
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
                eprintln!("pgpage inspect: {}: {reason}", args.path.display());
            }
            2
        }
    }
}

/// The head of the file that block size detection looks at.
fn read_head(file: &File, len: u64) -> Vec<u8> {
    let mut head = vec![0u8; usize::try_from(len.min(DETECT_HEAD_BYTES as u64)).unwrap_or(0)];
    match file.read_exact_at(&mut head, 0) {
        Ok(()) => head,
        Err(_) => Vec::new(),
    }
}

fn open(args: &InspectArgs) -> Result<Target, Fatal> {
    let endian = match args.endian.as_str() {
        "little" => Endian::Little,
        "big" => Endian::Big,
        other => {
            return Err(Fatal(format!(
                "--endian must be little or big, not {other:?}"
            )))
        }
    };
    let kind = match &args.kind {
        Some(k) => Some(PageKind::parse(k).ok_or_else(|| {
            let names: Vec<&str> = PageKind::ALL.iter().map(|k| k.as_str()).collect();
            Fatal(format!(
                "unknown --kind {k:?} (one of {})",
                names.join(", ")
            ))
        })?),
        None => None,
    };
    let name = args.path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let parsed = parse_relation_file_name(name);
    // Any other name is read as segment 0 of a main fork, as verify reads it.
    let (fork, name_segment) = parsed.map_or((Fork::Main, 0), |n| (n.fork, n.segno));
    let kind = kind.or(match fork {
        Fork::Fsm => Some(PageKind::Fsm),
        Fork::Vm => Some(PageKind::Vm),
        Fork::Main | Fork::Init => None,
    });
    let file = open_regular(&args.path).map_err(|e| Fatal(io_reason(&e)))?;
    let len = file.metadata().map_err(|e| Fatal(io_reason(&e)))?.len();
    if len == 0 {
        return Err(Fatal(String::from("empty file: no pages to inspect")));
    }
    let block_size = match args.block_size {
        Some(b) => BlockSize::new(b)
            .ok_or_else(|| Fatal(format!("--block-size {b} is not one of 1024..32768")))?,
        None => match detect_block_size(&read_head(&file, len), endian) {
            Some(b) => b,
            // As verify (and pg_checksums) do: garbage pages are still pages, of the default
            // size; each decodes to flagged values and a mismatch status.
            None => BlockSize::DEFAULT,
        },
    };
    let size = u64::from(block_size.bytes());
    let blocks = u32::try_from(len.checked_div(size).unwrap_or(0))
        .map_err(|_| Fatal(String::from("file too large")))?;
    if blocks == 0 {
        return Err(Fatal(format!(
            "{len} bytes: less than one {size}-byte page"
        )));
    }
    Ok(Target {
        file,
        fork,
        segment: args.segment.unwrap_or(name_segment),
        block_size,
        endian,
        kind,
        blocks,
        trailing_bytes: len.checked_rem(size).unwrap_or(0),
    })
}

fn io_reason(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => String::from("no such file"),
        io::ErrorKind::PermissionDenied => String::from("permission denied"),
        io::ErrorKind::IsADirectory => String::from("is a directory, not a relation file"),
        _ => e.to_string(),
    }
}

fn inspect(args: &InspectArgs) -> Result<i32, Fatal> {
    let t = open(args)?;
    let range = match args.block {
        Some(b) if b >= t.blocks => {
            return Err(Fatal(format!(
                "block {b} out of range: the file has {} blocks (0..{})",
                t.blocks,
                t.blocks.saturating_sub(1)
            )))
        }
        Some(b) => b..b.saturating_add(1),
        None => 0..t.blocks,
    };
    let bytes = u64::from(t.blocks).saturating_mul(u64::from(t.block_size.bytes()));
    let head = read_head(&t.file, bytes);
    let opts = DecodeOptions {
        endian: t.endian,
        kind: t.kind,
        fork: t.fork,
        file_kind: Some(file_kind(
            t.fork,
            head.chunks_exact(t.block_size.len()),
            t.endian,
        )),
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let path = args.path.display().to_string();
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
        }
        let head = Head {
            path: &path,
            segment: t.segment,
            fork: t.fork.as_str(),
            block_size: t.block_size.bytes(),
        };
        let head = serde_json::to_string(&head).map_err(|e| Fatal(e.to_string()))?;
        // Streamed: the head object without its closing brace, then the blocks one by one.
        write!(out, "{},\"blocks\":[", head.trim_end_matches('}')).map_err(write_err)?;
    } else {
        writeln!(
            out,
            "{path}: segment {}, fork {}, block size {}, {} blocks{}",
            t.segment,
            t.fork.as_str(),
            t.block_size.bytes(),
            t.blocks,
            if t.trailing_bytes > 0 {
                format!(", {} trailing bytes", t.trailing_bytes)
            } else {
                String::new()
            }
        )
        .map_err(write_err)?;
    }
    let mut page = vec![0u8; t.block_size.len()];
    let mut problems = 0u32;
    for (i, block) in range.enumerate() {
        t.file
            .read_exact_at(
                &mut page,
                u64::from(block).saturating_mul(u64::from(t.block_size.bytes())),
            )
            .map_err(|e| Fatal(format!("reading block {block}: {}", io_reason(&e))))?;
        let absolute = t.block_size.absolute_block(t.segment, block);
        let status = verify_page(&page, absolute, t.endian).status;
        if status.is_problem() {
            problems = problems.saturating_add(1);
        }
        let decoded = decode_page(&page, absolute, &opts);
        if args.json {
            let b = BlockOut {
                block,
                absolute_block: absolute,
                kind: decoded.kind,
                status: status.as_str(),
                header: &decoded.header,
                items: &decoded.items,
                special: &decoded.special,
            };
            if i > 0 {
                out.write_all(b",").map_err(write_err)?;
            }
            serde_json::to_writer(&mut out, &b).map_err(|e| write_err(io::Error::from(e)))?;
        } else {
            print_text(&mut out, block, absolute, status.as_str(), &decoded).map_err(write_err)?;
        }
    }
    if args.json {
        writeln!(out, "]}}").map_err(write_err)?;
    }
    out.flush().map_err(write_err)?;
    Ok(if problems > 0 { 1 } else { 0 })
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
) -> io::Result<()> {
    writeln!(
        out,
        "block {block} (absolute {absolute}): {}, {status}",
        d.kind.as_str()
    )?;
    let h = serde_json::to_value(&d.header).unwrap_or_default();
    let names = if d.header.flag_names.is_empty() {
        String::new()
    } else {
        format!(" ({})", d.header.flag_names.join("|"))
    };
    writeln!(out, "  header: {}{names}", pairs(&h))?;
    if let Some(s) = &d.special {
        let v = serde_json::to_value(s).unwrap_or_default();
        writeln!(out, "  special: {}", pairs(&v))?;
        if let Some(meta) = v.get("meta") {
            writeln!(out, "  meta: {}", pairs(meta))?;
        }
    }
    let items = serde_json::to_value(&d.items).unwrap_or_default();
    if let Some(rows) = items.as_array().filter(|r| !r.is_empty()) {
        writeln!(out, "  items: {}", rows.len())?;
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
            p.problem.map_or("", |f| f.message())
        )?;
    }
    Ok(())
}
