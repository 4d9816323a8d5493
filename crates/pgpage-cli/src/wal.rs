//! `pgpage wal`: WAL records one line each as that release's pg_waldump prints them, or as
//! JSON (docs/contracts.md, "wal"). The lines and descriptions are the core's
//! (`pgpage::wal::DumpRecord`); the WAL is read as `fpi` reads it.

use std::io::{self, Write};
use std::path::PathBuf;

use pgpage::findings::Evidence;
use pgpage::wal::rmgr::Description;
use pgpage::wal::{fork_name, lsn_text_for, DumpRecord, RelationFilter, WalRecord};
use serde::Serialize;

use crate::args::parse_lsn_arg;
use crate::fail::{run_to_stdout, Fail};
use crate::fpi::{parse_relation, read_wal};

#[derive(clap::Args, Debug)]
pub struct WalArgs {
    /// Print JSON (docs/contracts.md, "wal").
    #[arg(long)]
    pub json: bool,
    /// Keep the records that touch one relation (any fork): [TBS/]DB/RELFILENODE.
    #[arg(long, value_name = "[TBS/]DB/RELFILENODE", value_parser = parse_relation)]
    pub relation: Option<RelationFilter>,
    /// Keep the records that touch block N (of the relation given, else of any).
    #[arg(long, value_name = "N")]
    pub block: Option<u32>,
    /// Start at the first record at or after this LSN.
    #[arg(long, value_name = "LSN", value_parser = parse_lsn_arg)]
    pub start: Option<u64>,
    /// Stop before the first record that does not end by this LSN (as pg_waldump --end).
    #[arg(long, value_name = "LSN", value_parser = parse_lsn_arg)]
    pub end: Option<u64>,
    /// WAL segment files, pg_wal or archive directories, or a data directory.
    #[arg(required = true, value_name = "WAL")]
    pub wal: Vec<PathBuf>,
}

/// Runs the command; returns the exit status.
pub fn run(args: &WalArgs) -> i32 {
    run_to_stdout("", |out| wal(args, out))
}

#[derive(Serialize)]
struct BlockOut {
    id: u8,
    tablespace_oid: u32,
    database_oid: u32,
    relfilenode: u32,
    fork: String,
    block: u32,
    image: bool,
}

#[derive(Serialize)]
struct RecordOut {
    lsn: String,
    prev: String,
    xid: u32,
    rmgr: String,
    record: String,
    /// rm_desc's text as pg_waldump prints it after the record type; null when pgpage does
    /// not decode it.
    desc: Option<String>,
    /// Why the record could not be described (a body the server never writes, a fact WAL
    /// does not hold).
    #[serde(skip_serializing_if = "Option::is_none")]
    desc_error: Option<String>,
    len_rec: u32,
    len_tot: u32,
    blocks: Vec<BlockOut>,
}

fn record_out(version: u32, d: DumpRecord) -> RecordOut {
    let (desc, desc_error) = match d.description {
        Description::Text(t) => (Some(t), None),
        Description::NotDecoded => (None, None),
        Description::Invalid(why) => (None, Some(why)),
    };
    RecordOut {
        lsn: lsn_text_for(version, d.lsn),
        prev: lsn_text_for(version, d.prev),
        xid: d.xid,
        rmgr: d.rmgr,
        record: d.record,
        desc,
        desc_error,
        len_rec: d.len_rec,
        len_tot: d.len_tot,
        blocks: d
            .blocks
            .into_iter()
            .map(|b| BlockOut {
                id: b.id,
                tablespace_oid: b.tablespace_oid,
                database_oid: b.database_oid,
                relfilenode: b.relfilenode,
                fork: fork_name(b.fork).map_or_else(|| format!("fork{}", b.fork), str::to_owned),
                block: b.block,
                image: b.image,
            })
            .collect(),
    }
}

fn wal(args: &WalArgs, out: &mut impl Write) -> Result<i32, Fail> {
    let keep = |rec: &WalRecord<'_>| {
        args.start.is_none_or(|s| rec.lsn >= s)
            && args.end.is_none_or(|e| rec.end_lsn <= e)
            && (args.relation.is_none() && args.block.is_none()
                || rec.blocks.iter().any(|b| {
                    args.relation.is_none_or(|r| r.matches(&b.locator))
                        && args.block.is_none_or(|n| n == b.block)
                }))
    };
    let mut failed: Option<io::Error> = None;
    let read = read_wal(&args.wal, &mut |rec| {
        if failed.is_some() || !keep(rec) {
            return;
        }
        let d = DumpRecord::of(rec);
        // One object a line, as the text is one line a record: a record is read as it comes.
        let written = if args.json {
            serde_json::to_writer(&mut *out, &record_out(rec.version, d))
                .map_err(io::Error::from)
                .and_then(|()| writeln!(out))
        } else {
            writeln!(out, "{}", d.line())
        };
        if let Err(e) = written {
            failed = Some(e);
        }
    })?;
    if let Some(e) = failed {
        return Err(Fail::Io(e));
    }
    if read.labels.is_empty() {
        return Err(Fail::Input("no WAL segment files found".to_owned()));
    }
    let problems = read.problems();
    for p in &problems {
        let note = if p.evidence == Evidence::Note {
            "note: "
        } else {
            ""
        };
        eprintln!("pgpage: {note}{}: {}", p.code, p.message);
    }
    Ok(i32::from(
        problems.iter().any(|p| p.evidence != Evidence::Note),
    ))
}
