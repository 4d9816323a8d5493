//! `pgpage fpi`: the full-page images in WAL segment files (or a pg_wal directory, an archive
//! directory, or the files `pg_waldump --save-fullpage` wrote), as docs/contracts.md, "fpi", lists
//! them; `--out` writes each page as pg_waldump does. The WAL reading is the core's
//! (`pgpage::wal`); this module finds the files, reads them and prints.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use pgpage::cluster::control::decode_control;
use pgpage::findings::Evidence;
use pgpage::wal::{
    fork_name, lsn_text, lsn_text_for, parse_fullpage_name, parse_history_name,
    parse_wal_file_name, plan_segments, record_type, restoring_after, rmgr_name, BlockHistory,
    BlockImage, RelFileLocator, RelationFilter, WalOptions, WalReader, WalRecord,
};
use pgpage::words::plural;
use serde::Serialize;

use crate::args::io_reason;
use crate::fail::{run_to_stdout, Fail};
use crate::input::open_regular;

#[derive(clap::Args, Debug)]
pub struct FpiArgs {
    /// Print JSON (docs/contracts.md, "fpi").
    #[arg(long)]
    pub json: bool,
    /// Write each image as `pg_waldump --save-fullpage` does, into DIR (created if missing;
    /// refused when not empty).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Keep the images of one relation (every fork): [TBS/]DB/RELFILENODE.
    #[arg(long, value_name = "[TBS/]DB/RELFILENODE", value_parser = parse_relation)]
    pub relation: Option<RelationFilter>,
    /// Keep the images of one block, and list the records after its newest image.
    #[arg(long, value_name = "N")]
    pub block: Option<u32>,
    /// WAL segment files, pg_wal or archive directories, a data directory, or files
    /// `pg_waldump --save-fullpage` wrote.
    #[arg(required = true, value_name = "WAL")]
    pub wal: Vec<PathBuf>,
}

pub(crate) fn parse_relation(s: &str) -> Result<RelationFilter, String> {
    RelationFilter::parse(s).ok_or_else(|| {
        format!("{s} is not [TBS/]DB/RELFILENODE (numbers, as in base/DB/RELFILENODE)")
    })
}

/// Runs the command; returns the exit status.
pub fn run(args: &FpiArgs) -> i32 {
    run_to_stdout("", |out| fpi(args, out))
}

/// What the arguments name, sorted out.
#[derive(Default)]
struct Inputs {
    /// Segment files, by file name.
    segments: Vec<(String, PathBuf)>,
    /// Files pg_waldump --save-fullpage wrote.
    saved: Vec<PathBuf>,
    /// Timeline history files (`%08X.history`), by file name.
    histories: Vec<(String, PathBuf)>,
    /// A pg_control beside the WAL (a data directory's), for its system identifier.
    control: Option<PathBuf>,
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn collect(wal: &[PathBuf]) -> Result<Inputs, Fail> {
    let mut inputs = Inputs::default();
    for path in wal {
        let meta = fs::metadata(path).map_err(|e| {
            Fail::Input(format!(
                "could not stat \"{}\": {}",
                path.display(),
                io_reason(&e)
            ))
        })?;
        if !meta.is_dir() {
            let name = file_name(path);
            if parse_fullpage_name(&name).is_some() {
                inputs.saved.push(path.clone());
            } else if parse_history_name(&name).is_some() {
                inputs.histories.push((name, path.clone()));
            } else {
                inputs.segments.push((name, path.clone()));
            }
            continue;
        }
        // A data directory: its pg_wal. A pg_wal directory: its data directory's pg_control.
        let (dir, datadir) = if path.join("pg_wal").is_dir() {
            (path.join("pg_wal"), Some(path.clone()))
        } else {
            (path.clone(), path.parent().map(Path::to_path_buf))
        };
        if let Some(control) = datadir
            .map(|d| d.join("global/pg_control"))
            .filter(|c| c.is_file())
        {
            inputs.control = Some(control);
        }
        let entries = fs::read_dir(&dir).map_err(|e| {
            Fail::Input(format!(
                "could not open directory \"{}\": {}",
                dir.display(),
                io_reason(&e)
            ))
        })?;
        for entry in entries {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if !entry.file_type()?.is_file() {
                continue;
            }
            if parse_wal_file_name(&name).is_some() {
                inputs.segments.push((name, entry.path()));
            } else if parse_fullpage_name(&name).is_some() {
                inputs.saved.push(entry.path());
            } else if parse_history_name(&name).is_some() {
                inputs.histories.push((name, entry.path()));
            }
        }
    }
    if inputs.segments.is_empty() && inputs.saved.is_empty() {
        return Err(Fail::Input("no WAL segment files found".to_owned()));
    }
    Ok(inputs)
}

/// What reading WAL gave besides its records: the reader (its summary and problems), the
/// segment files read in order (a problem's `segment` indexes them), and what planning by
/// timeline refused.
pub(crate) struct WalRead {
    pub reader: WalReader,
    pub labels: Vec<String>,
    pub planned: Vec<ProblemOut>,
}

impl WalRead {
    /// Planning's problems, then the reader's, LSNs as the WAL's release prints them.
    pub(crate) fn problems(&self) -> Vec<ProblemOut> {
        let version = self.reader.summary().version;
        let mut problems = self.planned.clone();
        problems.extend(self.reader.problems().iter().map(|p| ProblemOut {
            code: p.finding.code(),
            evidence: p.finding.evidence(),
            segment: self.labels.get(p.segment as usize).cloned(),
            lsn: p.lsn.map(|l| lsn_text(version, l)),
            message: p.detail.clone(),
        }));
        problems
    }
}

/// Reads every record of the WAL in `wal` (segment files, pg_wal or archive directories, a
/// data directory), in timeline order, handing each to `sink`.
pub(crate) fn read_wal(
    wal: &[PathBuf],
    sink: &mut dyn FnMut(&WalRecord<'_>),
) -> Result<WalRead, Fail> {
    let inputs = collect(wal)?;
    let names: Vec<&str> = inputs.segments.iter().map(|(n, _)| n.as_str()).collect();
    let texts: Vec<(&str, Option<String>)> = inputs
        .histories
        .iter()
        .map(|(n, path)| {
            let text = fs::read(path)
                .ok()
                .map(|b| String::from_utf8_lossy(&b).into_owned());
            (n.as_str(), text)
        })
        .collect();
    let histories: Vec<(&str, Option<&str>)> =
        texts.iter().map(|(n, t)| (*n, t.as_deref())).collect();
    let plan = plan_segments(
        &names,
        &histories,
        segment_size(&inputs),
        control_release(inputs.control.as_deref()),
    );
    let planned = plan
        .problems
        .iter()
        .map(|p| ProblemOut {
            code: p.finding.code(),
            evidence: p.finding.evidence(),
            segment: Some(p.file.clone()),
            lsn: None,
            message: p.detail.clone(),
        })
        .collect();
    let mut reader = WalReader::new(control_options(inputs.control.as_deref()));
    if let Some(h) = &plan.history {
        reader.set_history(h.clone());
    }
    let mut labels = Vec::new();
    let mut buf = vec![0u8; 1 << 20];
    for &i in &plan.order {
        let Some((name, path)) = inputs.segments.get(i) else {
            continue;
        };
        let reason = |what: &str, e: &io::Error| {
            Fail::Input(format!(
                "could not {what} file \"{}\": {}",
                path.display(),
                io_reason(e)
            ))
        };
        let mut file = open_regular(path).map_err(|e| reason("open", &e))?;
        labels.push(name.clone());
        reader.begin_segment(Some(name));
        loop {
            let n = match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(reason("read", &e)),
            };
            reader.feed(buf.get(..n).unwrap_or(&[]), &mut |rec: &WalRecord<'_>| {
                sink(rec)
            });
        }
        reader.end_segment();
    }
    reader.finish();
    Ok(WalRead {
        reader,
        labels,
        planned,
    })
}

/// Feeds every record of the WAL in `wal` (segment files, pg_wal or archive directories, a
/// data directory), in timeline order, to `history`: what `report --wal` learns of the
/// damaged blocks.
/// Returns the WAL's release, as its page magic gives it.
pub(crate) fn read_history(
    wal: &[PathBuf],
    history: &mut BlockHistory,
) -> Result<Option<u32>, String> {
    read_records(wal, &mut |rec: &WalRecord<'_>| history.observe(rec))
}

/// Feeds every good record of the WAL in `wal`, in timeline order, to `sink`; returns the
/// WAL's release, as its page magic gives it.
pub(crate) fn read_records(
    wal: &[PathBuf],
    sink: &mut dyn FnMut(&WalRecord<'_>),
) -> Result<Option<u32>, String> {
    let read = read_wal(wal, &mut |rec| sink(rec)).map_err(|f| match f {
        Fail::Input(line) => line,
        Fail::Io(e) => io_reason(&e),
    })?;
    Ok(read.reader.summary().version)
}

/// The release of the cluster whose pg_control is given, when it can be read.
fn control_release(control: Option<&Path>) -> Option<u32> {
    let bytes = fs::read(control?).ok()?;
    decode_control(&bytes)
        .ok()
        .filter(|c| c.crc_ok())
        .map(|c| c.release())
}

/// pg_control's system identifier and block size, when its CRC holds.
fn control_options(control: Option<&Path>) -> WalOptions {
    let mut opts = WalOptions::default();
    let Some(bytes) = control.and_then(|c| fs::read(c).ok()) else {
        return opts;
    };
    let Some(cf) = decode_control(&bytes).ok().filter(|c| c.crc_ok()) else {
        return opts;
    };
    if let Some(pgpage::cluster::control::ControlValue::Int(v)) = cf.get("system_identifier") {
        opts.system_identifier = Some(*v as u64);
    }
    if let Some(b) = cf.block_size() {
        opts.block_size = b;
    }
    opts
}

#[derive(Serialize)]
struct ImageOut {
    lsn: String,
    end_lsn: Option<String>,
    timeline: u32,
    tablespace_oid: u32,
    database_oid: u32,
    relfilenode: u32,
    fork: String,
    block: u32,
    compression: Option<&'static str>,
    hole_offset: Option<u16>,
    hole_length: Option<u16>,
    apply: Option<bool>,
    /// The file written under --out.
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    /// A saved page given as input.
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<String>,
}

#[derive(Serialize)]
struct TouchOut {
    lsn: String,
    rmgr: String,
    /// pg_waldump's name of the record (pg_walinspect's `record_type`).
    record_type: String,
    image: bool,
    will_init: bool,
    /// What the record did to a heap page's rows.
    effect: pgpage::wal::RowEffect,
}

#[derive(Serialize)]
struct BlockOut {
    tablespace_oid: u32,
    database_oid: u32,
    relfilenode: u32,
    fork: String,
    block: u32,
    newest_image_lsn: Option<String>,
    /// Records after the newest image that changed the block: the image alone lacks them.
    records_after: Vec<TouchOut>,
    /// With an image: what restoring it loses, from what the records after it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    restoring: Option<String>,
}

#[derive(Serialize, Clone)]
pub(crate) struct ProblemOut {
    pub(crate) code: &'static str,
    pub(crate) evidence: Evidence,
    pub(crate) segment: Option<String>,
    pub(crate) lsn: Option<String>,
    pub(crate) message: String,
}

/// One line of the newest timeline's history file.
#[derive(Serialize)]
struct SwitchOut {
    timeline: u32,
    switch_lsn: String,
    reason: String,
}

#[derive(Serialize)]
struct SummaryOut {
    version: Option<u32>,
    /// The newest timeline given (segments or history files): the one the WAL is read towards.
    timeline: Option<u32>,
    /// Its history file's lines, when it was given and read.
    #[serde(skip_serializing_if = "Option::is_none")]
    history: Option<Vec<SwitchOut>>,
    system_identifier: Option<String>,
    segment_size: Option<u32>,
    segments: u32,
    records: u64,
    images: usize,
    end_lsn: Option<String>,
}

#[derive(Serialize)]
struct Report {
    images: Vec<ImageOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    blocks: Option<Vec<BlockOut>>,
    problems: Vec<ProblemOut>,
    summary: SummaryOut,
}

fn fork_text(fork: u8) -> String {
    fork_name(fork).map_or_else(|| format!("fork{fork}"), str::to_owned)
}

fn prepare_out(dir: &Path) -> Result<(), Fail> {
    match fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(Fail::Input(format!(
                    "directory \"{}\" exists but is not empty",
                    dir.display()
                )));
            }
            Ok(())
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => fs::create_dir_all(dir).map_err(|e| {
            Fail::Input(format!(
                "could not create directory \"{}\": {}",
                dir.display(),
                io_reason(&e)
            ))
        }),
        Err(e) => Err(Fail::Input(format!(
            "could not open directory \"{}\": {}",
            dir.display(),
            io_reason(&e)
        ))),
    }
}

fn write_page(dir: &Path, name: &str, page: &[u8]) -> Result<(), Fail> {
    let path = dir.join(name);
    fs::write(&path, page).map_err(|e| {
        Fail::Input(format!(
            "could not write file \"{}\": {}",
            path.display(),
            io_reason(&e)
        ))
    })
}

fn fpi(args: &FpiArgs, out: &mut impl Write) -> Result<i32, Fail> {
    let inputs = collect(&args.wal)?;
    if let Some(dir) = &args.out {
        prepare_out(dir)?;
    }
    let opts = control_options(inputs.control.as_deref());
    let keep = |l: &RelFileLocator, block: u32| {
        args.relation.is_none_or(|r| r.matches(l)) && args.block.is_none_or(|b| b == block)
    };
    let names: Vec<&str> = inputs.segments.iter().map(|(n, _)| n.as_str()).collect();
    // History files are a few lines each: read whole, before planning.
    let texts: Vec<(&str, Option<String>)> = inputs
        .histories
        .iter()
        .map(|(n, path)| {
            let text = fs::read(path)
                .ok()
                .map(|b| String::from_utf8_lossy(&b).into_owned());
            (n.as_str(), text)
        })
        .collect();
    let histories: Vec<(&str, Option<&str>)> =
        texts.iter().map(|(n, t)| (*n, t.as_deref())).collect();
    let timeline_plan = plan_segments(
        &names,
        &histories,
        segment_size(&inputs),
        control_release(inputs.control.as_deref()),
    );
    let planned: Vec<ProblemOut> = timeline_plan
        .problems
        .iter()
        .map(|p| ProblemOut {
            code: p.finding.code(),
            evidence: p.finding.evidence(),
            segment: Some(p.file.clone()),
            lsn: None,
            message: p.detail.clone(),
        })
        .collect();
    let newest = timeline_plan.newest;
    let timeline_history = timeline_plan.history;
    let plan = timeline_plan.order;
    let mut reader = WalReader::new(opts);
    if let Some(h) = &timeline_history {
        reader.set_history(h.clone());
    }
    let mut history = args.block.map(|b| BlockHistory::new(args.relation, b));
    let mut images: Vec<ImageOut> = Vec::new();
    let mut wal_images = 0usize;
    let mut failure: Option<Fail> = None;
    let mut labels: Vec<String> = Vec::new();
    let mut buf = vec![0u8; 1 << 20];
    for &i in &plan {
        let Some((name, path)) = inputs.segments.get(i) else {
            continue;
        };
        let mut file = open_regular(path).map_err(|e| {
            Fail::Input(format!(
                "could not open file \"{}\": {}",
                path.display(),
                io_reason(&e)
            ))
        })?;
        labels.push(name.clone());
        reader.begin_segment(Some(name));
        loop {
            let n = match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(Fail::Input(format!(
                        "could not read file \"{}\": {}",
                        path.display(),
                        io_reason(&e)
                    )))
                }
            };
            let chunk = buf.get(..n).unwrap_or(&[]);
            reader.feed(chunk, &mut |rec: &WalRecord<'_>| {
                if let Some(h) = history.as_mut() {
                    h.observe(rec);
                }
                for b in rec.blocks {
                    let Some(img) = b.image.as_ref().filter(|_| keep(&b.locator, b.block)) else {
                        continue;
                    };
                    match image_out(rec, b.locator, b.fork, b.block, img, args, opts.block_size) {
                        Ok(entry) => {
                            wal_images = wal_images.saturating_add(1);
                            images.push(entry);
                        }
                        Err(f) => {
                            failure.get_or_insert(f);
                        }
                    }
                }
            });
            if let Some(f) = failure.take() {
                return Err(f);
            }
            if !args.json {
                for img in images.drain(..) {
                    print_image(out, &img)?;
                }
            }
        }
        reader.end_segment();
    }
    reader.finish();
    let lsn_text = |lsn: u64| lsn_text(reader.summary().version, lsn);
    let version = reader.summary().version.unwrap_or(18);
    let mut problems: Vec<ProblemOut> = planned;
    problems.extend(reader.problems().iter().map(|p| ProblemOut {
        code: p.finding.code(),
        evidence: p.finding.evidence(),
        segment: labels.get(p.segment as usize).cloned(),
        lsn: p.lsn.map(lsn_text),
        message: p.detail.clone(),
    }));
    let mut saved = saved_pages(&inputs.saved, &keep, args.out.as_deref(), &mut problems)?;
    let image_count = wal_images.saturating_add(saved.len());
    if !args.json {
        for img in saved.drain(..) {
            print_image(out, &img)?;
        }
    }
    images.append(&mut saved);
    let blocks = history.map(|h| {
        h.blocks()
            .map(|(k, image, after)| BlockOut {
                tablespace_oid: k.locator.spc_oid,
                database_oid: k.locator.db_oid,
                relfilenode: k.locator.rel_number,
                fork: fork_text(k.fork),
                block: k.block,
                newest_image_lsn: image.map(|t| lsn_text(t.lsn)),
                records_after: after
                    .iter()
                    .map(|t| TouchOut {
                        lsn: lsn_text(t.lsn),
                        rmgr: rmgr_name(t.rmid),
                        record_type: record_type(version, t.rmid, t.info),
                        image: t.image,
                        will_init: t.will_init,
                        effect: t.effect(version),
                    })
                    .collect(),
                restoring: image.map(|_| restoring_after("the image", version, after)),
            })
            .collect::<Vec<_>>()
    });
    let s = reader.summary();
    let summary = SummaryOut {
        version: s.version,
        timeline: newest,
        history: timeline_history.as_ref().map(|h| {
            h.switches
                .iter()
                .map(|sw| SwitchOut {
                    timeline: sw.parent,
                    switch_lsn: lsn_text(sw.switch_lsn),
                    reason: sw.reason.clone(),
                })
                .collect()
        }),
        system_identifier: s.system_identifier.map(|v| v.to_string()),
        segment_size: s.segment_size,
        segments: s.segments,
        records: s.records,
        images: image_count,
        end_lsn: s.end_lsn.map(lsn_text),
    };
    let broken = problems.iter().any(|p| p.evidence != Evidence::Note);
    if args.json {
        let report = Report {
            images,
            blocks,
            problems,
            summary,
        };
        serde_json::to_writer(&mut *out, &report).map_err(io::Error::from)?;
        writeln!(out)?;
    } else {
        if let Some(blocks) = &blocks {
            print_blocks(out, blocks)?;
        }
        for p in &problems {
            // A note (a recycled or never-written segment where the WAL ends: every pg_wal
            // has some) is said as verify says its notes, not as a problem.
            let note = if p.evidence == Evidence::Note {
                "note: "
            } else {
                ""
            };
            eprintln!("pgpage: {note}{}: {}", p.code, p.message);
        }
        // The segments given, not the segments that held records: a pg_wal keeps segments
        // made ahead of use, which the note above names; the WAL ends before them.
        writeln!(
            out,
            "{} images in {} records; {} {} given{}",
            image_count,
            summary.records,
            summary.segments,
            if summary.segments == 1 {
                "segment"
            } else {
                "segments"
            },
            summary
                .end_lsn
                .as_ref()
                .map(|l| format!(", the WAL read to its end at {l}"))
                .unwrap_or_default()
        )?;
    }
    Ok(i32::from(broken))
}

/// xlp_seg_size of the first segment's long page header that has a valid one, else the
/// default 16 MB: planning by timeline needs it before the reader has read a page.
fn segment_size(inputs: &Inputs) -> u32 {
    inputs
        .segments
        .iter()
        .find_map(|(_, path)| {
            let mut head = [0u8; 40];
            File::open(path).ok()?.read_exact(&mut head).ok()?;
            let size = u32::from_le_bytes(head.get(32..36)?.try_into().ok()?);
            (size.is_power_of_two() && (1 << 20..=1 << 30).contains(&size)).then_some(size)
        })
        .unwrap_or(16 << 20)
}

fn image_out(
    rec: &WalRecord<'_>,
    locator: RelFileLocator,
    fork: u8,
    block: u32,
    img: &BlockImage,
    args: &FpiArgs,
    block_size: u32,
) -> Result<ImageOut, Fail> {
    let mut entry = ImageOut {
        lsn: lsn_text_for(rec.version, rec.lsn),
        end_lsn: Some(lsn_text_for(rec.version, rec.end_lsn)),
        timeline: rec.timeline,
        tablespace_oid: locator.spc_oid,
        database_oid: locator.db_oid,
        relfilenode: locator.rel_number,
        fork: fork_text(fork),
        block,
        compression: Some(img.compression.as_str()),
        hole_offset: Some(img.hole_offset),
        hole_length: Some(img.hole_length),
        apply: Some(img.apply),
        file: None,
        source: None,
    };
    if let Some(dir) = &args.out {
        let name = pgpage::wal::FullPageName {
            timeline: rec.timeline,
            lsn: rec.lsn,
            locator,
            block,
            fork,
        }
        .text()
        .ok_or_else(|| Fail::Input(format!("invalid fork number: {fork}")))?;
        // The record's CRC held, so a page that does not restore is pgpage's to explain.
        let page = rec.restore(img, block_size).map_err(|f| {
            Fail::Input(format!(
                "{}: {} at {}",
                f.code(),
                f.message(),
                lsn_text_for(rec.version, rec.lsn)
            ))
        })?;
        write_page(dir, &name, &page)?;
        entry.file = Some(name);
    }
    Ok(entry)
}

/// Pages pg_waldump --save-fullpage wrote, listed (and copied under --out) by their names.
fn saved_pages(
    paths: &[PathBuf],
    keep: &dyn Fn(&RelFileLocator, u32) -> bool,
    out_dir: Option<&Path>,
    problems: &mut Vec<ProblemOut>,
) -> Result<Vec<ImageOut>, Fail> {
    let mut named: Vec<(pgpage::wal::FullPageName, &PathBuf)> = paths
        .iter()
        .filter_map(|p| parse_fullpage_name(&file_name(p)).map(|n| (n, p)))
        .filter(|(n, _)| keep(&n.locator, n.block))
        .collect();
    named.sort_by_key(|(n, _)| (n.lsn, n.locator, n.fork, n.block));
    let mut images = Vec::new();
    for (n, path) in named {
        let mut page = Vec::new();
        File::open(path)
            .and_then(|mut f| f.read_to_end(&mut page))
            .map_err(|e| {
                Fail::Input(format!(
                    "could not read file \"{}\": {}",
                    path.display(),
                    io_reason(&e)
                ))
            })?;
        let size_ok = page.len().is_power_of_two() && (1024..=32768).contains(&page.len());
        if !size_ok {
            let f = pgpage::findings::Finding::WalFullPageFileInvalid;
            problems.push(ProblemOut {
                code: f.code(),
                evidence: f.evidence(),
                segment: Some(file_name(path)),
                lsn: Some(lsn_text(None, n.lsn)),
                message: format!(
                    "{}: {} is {} bytes",
                    f.message(),
                    path.display(),
                    page.len()
                ),
            });
            continue;
        }
        let name = file_name(path);
        if let Some(dir) = out_dir {
            write_page(dir, &name, &page)?;
        }
        images.push(ImageOut {
            // A saved image's file name says no release: its LSN prints as 13 to 18 print it.
            lsn: lsn_text(None, n.lsn),
            end_lsn: None,
            timeline: n.timeline,
            tablespace_oid: n.locator.spc_oid,
            database_oid: n.locator.db_oid,
            relfilenode: n.locator.rel_number,
            fork: fork_text(n.fork),
            block: n.block,
            compression: None,
            hole_offset: None,
            hole_length: None,
            apply: None,
            file: out_dir.map(|_| name.clone()),
            source: Some(path.display().to_string()),
        });
    }
    Ok(images)
}

fn print_image(out: &mut impl Write, img: &ImageOut) -> io::Result<()> {
    write!(
        out,
        "{:>12}  tli {}  rel {}/{}/{} {} block {}",
        img.lsn,
        img.timeline,
        img.tablespace_oid,
        img.database_oid,
        img.relfilenode,
        img.fork,
        img.block
    )?;
    if let Some(c) = img.compression {
        write!(out, "  compression {c}")?;
    }
    if let (Some(off), Some(len)) = (img.hole_offset, img.hole_length) {
        if len > 0 {
            write!(out, "  hole {off}+{len}")?;
        }
    }
    if img.apply == Some(false) {
        write!(out, "  (not applied by replay)")?;
    }
    if let Some(src) = &img.source {
        write!(out, "  from {src}")?;
    }
    if let Some(f) = &img.file {
        write!(out, "  -> {f}")?;
    }
    writeln!(out)
}

fn print_blocks(out: &mut impl Write, blocks: &[BlockOut]) -> io::Result<()> {
    for b in blocks {
        let what = format!(
            "block {} of {}/{}/{} {}",
            b.block, b.tablespace_oid, b.database_oid, b.relfilenode, b.fork
        );
        match &b.newest_image_lsn {
            Some(lsn) => writeln!(out, "{what}: newest image at {lsn}")?,
            None => writeln!(out, "{what}: no image in this WAL")?,
        }
        if !b.records_after.is_empty() {
            writeln!(
                out,
                "  {} after it changed the block; the image alone does not have {} (replay needs the server):",
                plural(b.records_after.len() as u64, "record", "records"),
                if b.records_after.len() == 1 { "it" } else { "them" }
            )?;
            for t in &b.records_after {
                let init = if t.will_init {
                    "; re-initializes the page"
                } else {
                    ""
                };
                writeln!(
                    out,
                    "  {:>12}  {}/{}  ({}{init})",
                    t.lsn,
                    t.rmgr,
                    t.record_type,
                    t.effect.words()
                )?;
            }
        }
        if let Some(r) = &b.restoring {
            writeln!(out, "  {r}")?;
        }
    }
    Ok(())
}
