//! The report in words: for a terminal (the verdict first, then errors, warnings, the folded
//! notes and the steps), and as Markdown for a mailing-list post or a ticket. The browser's
//! download is the Markdown, so both come from here.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::Write;

use crate::page::verify::PageStatus;
use crate::words::plural;

use super::keys::{key_text, keys_text};
use super::{Block, Damage, KnownFrom, Relation, Report, Rows, Severity};

/// A line as a sentence's start: its first letter a capital.
fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

fn count(n: Option<u64>) -> String {
    n.map_or_else(|| String::from("unknown"), |n| n.to_string())
}

/// A bit flip's block reads whole, but its first-ranked flip says which value the damage
/// probably changed: readable is not right.
fn altered(b: &Block) -> Option<String> {
    if b.damage != Damage::BitFlip {
        return None;
    }
    let f = b.bit_flips.first()?;
    let (item, column) = (f.item?, f.column.as_deref()?);
    Some(format!(
        "1 value probably altered: {column} of ({},{item})",
        b.block
    ))
}

fn rows_line(r: &Rows, b: &Block) -> String {
    let from = match r.known_from {
        KnownFrom::Index => format!(
            "from the index{}",
            r.index
                .as_deref()
                .map(|i| format!(" {i}"))
                .unwrap_or_default()
        ),
        KnownFrom::Header => String::from("from the page's line pointers"),
        KnownFrom::Unknown => String::from("not known"),
    };
    let lost = match (r.lost, r.upper_bound) {
        (Some(0), _) => String::from("none lost"),
        (Some(n), true) => format!("at most {n} lost"),
        (n, _) => format!("{} lost", count(n)),
    };
    // Rows, not index entries: where a lost row had several entries, both counts.
    let entries = match (r.index_entries, r.lost) {
        (Some(e), Some(n)) if e != n => format!(" ({e} index entries)"),
        _ => String::new(),
    };
    let stale = if r.stale > 0 {
        format!(
            ", {} (older versions of rows live elsewhere: neither readable nor lost)",
            plural(r.stale, "stale version", "stale versions")
        )
    } else {
        String::new()
    };
    let altered = altered(b).map(|a| format!(" ({a})")).unwrap_or_default();
    format!(
        "rows: {lost}{entries}, {} readable{altered}{stale} ({from})",
        count(r.readable)
    )
}

/// The lost keys, each repeated key once with its number of index entries.
fn lost_keys_text(r: &Rows) -> String {
    let mut out = keys_text(&r.keys);
    if !r.repeated.is_empty() {
        let marks: Vec<String> = r
            .repeated
            .iter()
            .map(|k| {
                format!(
                    "{} ({} index entries: {})",
                    key_text(&k.keys),
                    k.entries,
                    if k.entries == 2 {
                        "one is an older version"
                    } else {
                        "all but one are older versions"
                    }
                )
            })
            .collect();
        let _ = write!(out, "; of them {}", marks.join(", "));
    }
    out
}

fn relation_name(rel: &Relation) -> String {
    let name = rel.relation.clone().unwrap_or_else(|| rel.path.clone());
    match &rel.database {
        Some(db) => format!("{name} (database {db}, file {})", rel.path),
        None => format!("{name} (file {})", rel.path),
    }
}

/// The words after a block's damage class that say what its severity means: a zeroed page
/// loses rows although the server reads it without an error (the browser's badge says
/// "read as empty" too).
fn damage_words(b: &Block) -> String {
    match b.silent {
        Some(tag) => format!("{} [{tag}]", b.damage.as_str()),
        None => String::from(b.damage.as_str()),
    }
}

/// A zeroed page the server reads without an error (an index page it refuses as an
/// unexpected zero page is zeroed too, but refused, with the server's words).
fn read_as_empty(b: &Block) -> bool {
    b.damage == Damage::Zeroed && b.server.is_none()
}

/// What a redacted report leaves out, said once at its top.
const REDACTED_WORDS: &str = "Row data redacted: column values and keys are left out (keys are counted); names, blocks, offsets, counts, LSNs and the system identifier are kept.";

/// A bit-flip candidate in one line; `q` quotes a field or value (a backquote in Markdown).
fn flip_line(f: &super::BitFlip, q: &str) -> String {
    let mut line = format!(
        "{}. flip byte {} bit {} ({q}{}{q})",
        f.rank, f.byte, f.bit, f.field
    );
    if let Some(i) = f.item {
        let _ = write!(line, ", item {i}");
    }
    match (&f.column, &f.stored, &f.flipped) {
        (Some(c), Some(s), Some(v)) => {
            let value_quote = if q.is_empty() { "\"" } else { q };
            let _ = write!(
                line,
                ", {}",
                crate::damage::flips::values_text(&format!("{q}{c}{q}"), s, v, value_quote)
            );
        }
        (Some(c), _, _) => {
            let _ = write!(line, ", column {q}{c}{q}");
        }
        _ => {}
    }
    let _ = write!(line, ": {}", f.why);
    line
}

/// Marks in `said` that the server's decimal checksums were given in hex once.
const HEX_SAID: &str = "checksums in hex";

/// The first server WARNING's checksums in the hex `pgpage verify` and pg_checksums print,
/// once per report: the two notations name the same numbers.
fn hex_words(b: &Block, said: &mut Vec<String>) -> Option<String> {
    let (calculated, stored) = b.checksums.filter(|_| b.server.is_some())?;
    if said.iter().any(|w| w == HEX_SAID) {
        return None;
    }
    said.push(String::from(HEX_SAID));
    Some(format!(
        "(the server's checksums are decimal: {calculated} and {stored} are {calculated:X} and {stored:X} in hex, as pgpage verify and pg_checksums print them)"
    ))
}

/// A block's evidence not yet said of an earlier block (the same odds of a chance bit flip,
/// the same words of a zeroed page), and whether some was said already: a caveat is said
/// once, where first needed.
/// `said` keeps each evidence line as `block<TAB>line`.
fn new_evidence<'b>(b: &'b Block, said: &mut Vec<String>) -> (Vec<&'b str>, Option<String>) {
    let mut lines = Vec::new();
    let mut earlier: Vec<String> = Vec::new();
    for e in &b.evidence {
        let first = said
            .iter()
            .find_map(|s| s.split_once('\t').filter(|(_, l)| l == e).map(|(n, _)| n));
        match first {
            Some(n) => {
                if !earlier.iter().any(|x| x == n) {
                    earlier.push(String::from(n));
                }
            }
            None => {
                said.push(format!("{}\t{e}", b.block));
                lines.push(e.as_str());
            }
        }
    }
    let note = (!earlier.is_empty()).then(|| {
        format!(
            "({} as for block {} above)",
            if lines.is_empty() {
                "the same odds and evidence"
            } else {
                "the rest"
            },
            earlier.join(", block ")
        )
    });
    (lines, note)
}

fn block_text(out: &mut String, b: &Block, said: &mut Vec<String>) {
    // The segment file and its block only where they are not the relation's own path and
    // relation-wide block (a block past the first 1 GB segment).
    let within = if b.block_in_file == b.block {
        String::new()
    } else {
        format!(" ({} block {})", b.file, b.block_in_file)
    };
    let _ = writeln!(
        out,
        "    block {}{within}: {}: {}",
        b.block,
        damage_words(b),
        b.headline
    );
    if let Some(s) = &b.server {
        for line in s.lines() {
            let _ = writeln!(out, "      server: {line}");
        }
    }
    if let Some(words) = hex_words(b, said) {
        let _ = writeln!(out, "      {words}");
    }
    let (evidence, repeated) = new_evidence(b, said);
    for e in evidence {
        let _ = writeln!(out, "      {e}");
    }
    if let Some(note) = repeated {
        let _ = writeln!(out, "      {note}");
    }
    for f in &b.bit_flips {
        let _ = writeln!(out, "      {}", flip_line(f, ""));
    }
    if let Some(p) = &b.backup {
        let _ = writeln!(out, "      {}", super::backup::line(p));
    }
    if let Some(r) = &b.rows {
        let _ = writeln!(out, "      {}", rows_line(r, b));
        if !r.keys.is_empty() {
            let _ = writeln!(out, "      lost keys: {}", lost_keys_text(r));
        }
        // Said once: the same reason under every block would bury the blocks.
        if let Some(why) = r.bound.as_ref().filter(|w| !said.contains(w)) {
            let _ = writeln!(out, "      ({why})");
            said.push(why.clone());
        }
    }
}

/// A report's blocks of one severity, the zeroed ones first: they lose rows without an error
/// from the server, so nothing else will point at them.
fn ranked(r: &Report, severity: Severity) -> Vec<(&Relation, &Block)> {
    let mut blocks: Vec<(&Relation, &Block)> =
        r.blocks().filter(|(_, b)| b.severity == severity).collect();
    blocks.sort_by_key(|(_, b)| !read_as_empty(b));
    blocks
}

/// A step's lines for a terminal: the sentence after its number, further sentences under
/// it, each command indented under them.
fn step_text(out: &mut String, n: usize, step: &str) {
    let mut lines = step.lines();
    let number = format!("  {n}. ");
    let _ = writeln!(out, "{number}{}", lines.next().unwrap_or_default());
    let indent = " ".repeat(number.chars().count());
    for line in lines {
        let _ = writeln!(out, "{indent}{line}");
    }
}

/// A step as a Markdown list item: its commands as a list of code under its sentences.
fn step_markdown(out: &mut String, n: usize, step: &str) {
    let mut lines = step.lines();
    let _ = writeln!(out, "{n}. {}", lines.next().unwrap_or_default());
    let mut in_list = false;
    for line in lines {
        match line.strip_prefix("  ") {
            Some(command) => {
                let fence = if command.contains('`') { "``" } else { "`" };
                let _ = writeln!(out, "   - {fence}{command}{fence}");
                in_list = true;
            }
            None => {
                // A blank line ends the list, or the sentence would continue its last item.
                if in_list {
                    let _ = writeln!(out);
                }
                let _ = writeln!(out, "   {line}");
                in_list = false;
            }
        }
    }
}

/// A map page the server zeroes, in one line (its server lines apart).
pub(super) fn map_line(m: &super::MapPage) -> String {
    let map = if m.fork == "vm" {
        "visibility map"
    } else {
        "free space map"
    };
    let of = m
        .relation
        .as_deref()
        .map(|t| format!(" of {t}"))
        .unwrap_or_default();
    let why = match m.status {
        PageStatus::Mismatch => "fails its checksum",
        PageStatus::NewNotZero => "has pd_upper 0 but is not all zeros",
        _ => "has a header PageIsVerified refuses",
    };
    format!(
        "the {map}{of}, block {} (file {}), {why}: the server zeroes it as it reads it and goes on; no row is on it",
        m.block, m.file
    )
}

const MAPS_TITLE: &str = "Map pages the server zeroes (no row lost)";
const MISSING_TITLE: &str = "Indexes without their file (no row lost)";
const DUPLICATES_TITLE: &str = "Keys a unique index allows once, held by more than one row";

/// The report for a terminal.
pub fn text(r: &Report) -> String {
    let mut out = String::new();
    let mut said = Vec::new();
    let _ = writeln!(out, "{}", r.verdict);
    if r.redacted {
        let _ = writeln!(out, "{REDACTED_WORDS}");
    }
    for (severity, title) in [(Severity::Error, "Errors"), (Severity::Warning, "Warnings")] {
        let blocks = ranked(r, severity);
        if blocks.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{title}:");
        let mut last: Option<&Relation> = None;
        for (rel, b) in blocks {
            if !last.is_some_and(|l| core::ptr::eq(l, rel)) {
                let _ = writeln!(out, "  {}", relation_name(rel));
                last = Some(rel);
            }
            block_text(&mut out, b, &mut said);
        }
    }
    if !r.missing_indexes.is_empty() {
        let _ = writeln!(out, "\n{MISSING_TITLE}:");
        for m in &r.missing_indexes {
            let _ = writeln!(out, "  {}", capital(&m.line));
        }
    }
    if !r.duplicate_keys.is_empty() {
        let _ = writeln!(out, "\n{DUPLICATES_TITLE}:");
        for d in &r.duplicate_keys {
            let _ = writeln!(out, "  {}", capital(&d.line));
        }
    }
    if !r.map_pages.is_empty() {
        let _ = writeln!(out, "\n{MAPS_TITLE}:");
        for m in &r.map_pages {
            let _ = writeln!(out, "  {}", capital(&m.line));
            for line in m.server.lines() {
                let _ = writeln!(out, "    server: {line}");
            }
        }
    }
    if !r.unknown.is_empty() {
        let _ = writeln!(out, "\nNot known:");
        for u in &r.unknown {
            let _ = writeln!(out, "  {u}");
        }
    }
    if !r.notes.is_empty() {
        let _ = writeln!(out, "\nRoutine notes (not damage):");
        for n in &r.notes {
            let _ = writeln!(out, "  {} x {}: {}", n.count, n.code, n.message);
        }
    }
    let _ = writeln!(out, "\nSteps:");
    for (i, s) in r.steps.iter().enumerate() {
        step_text(&mut out, i.saturating_add(1), s);
    }
    out
}

/// A table cell: pipes and line breaks would end it.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', "<br>")
}

/// The report as Markdown.
pub fn markdown(r: &Report) -> String {
    let mut out = String::new();
    let mut said: Vec<String> = Vec::new();
    let _ = writeln!(out, "# pgpage incident report\n");
    let _ = writeln!(out, "**{}**\n", r.verdict);
    if r.redacted {
        let _ = writeln!(out, "{REDACTED_WORDS}\n");
    }
    let c = &r.cluster;
    let opt = |v: Option<String>| v.unwrap_or_else(|| String::from("unknown"));
    let _ = writeln!(out, "## Cluster\n");
    let _ = writeln!(out, "| | |\n|---|---|");
    let _ = writeln!(
        out,
        "| PostgreSQL | {} |",
        opt(c.pg_version.map(|v| v.to_string()))
    );
    let _ = writeln!(
        out,
        "| system identifier | {} |",
        opt(c.system_identifier.clone())
    );
    let _ = writeln!(out, "| state | {} |", opt(c.state.clone()));
    let _ = writeln!(out, "| data checksums | {} |", c.data_checksums);
    let _ = writeln!(
        out,
        "| block size | {} |",
        opt(c.block_size.map(|v| v.to_string()))
    );
    let _ = writeln!(
        out,
        "| read | {} main-fork pages in {} relation files (pgpage verify counts every file and fork) |",
        r.pages, r.files
    );
    if !r.relations.is_empty() {
        let _ = writeln!(out, "\n## Damaged blocks\n");
        let blocks = blocks_table(&mut out, r);
        let _ = writeln!(out, "\n## Evidence\n");
        for (rel, b) in &blocks {
            let _ = writeln!(
                out,
                "### {} block {}: {}\n",
                rel.relation.as_deref().unwrap_or(&rel.path),
                b.block,
                damage_words(b)
            );
            let _ = writeln!(out, "{}.\n", capital(&b.headline));
            if let Some(s) = &b.server {
                let _ = writeln!(out, "```\n{s}\n```\n");
            }
            if let Some(words) = hex_words(b, &mut said) {
                let _ = writeln!(out, "- {words}");
            }
            let (evidence, repeated) = new_evidence(b, &mut said);
            for e in evidence {
                let _ = writeln!(out, "- {e}");
            }
            if let Some(note) = repeated {
                let _ = writeln!(out, "- {note}");
            }
            for f in &b.bit_flips {
                let _ = writeln!(out, "- {}", flip_line(f, "`"));
            }
            if let Some(p) = &b.backup {
                let _ = writeln!(out, "- {}", super::backup::line(p));
            }
            if let Some(x) = &b.rows {
                let _ = writeln!(out, "- {}", rows_line(x, b));
                // Said once, as in the text.
                if let Some(why) = x.bound.as_ref().filter(|w| !said.contains(w)) {
                    let _ = writeln!(out, "- ({why})");
                    said.push(why.clone());
                }
                if !x.keys.is_empty() {
                    let _ = writeln!(
                        out,
                        "- lost keys ({}): {}",
                        x.index.as_deref().unwrap_or("index"),
                        lost_keys_text(x)
                    );
                }
            }
            let _ = writeln!(out);
        }
    }
    if !r.missing_indexes.is_empty() {
        let _ = writeln!(out, "## {MISSING_TITLE}\n");
        for m in &r.missing_indexes {
            let _ = writeln!(out, "- {}", capital(&m.line));
        }
        let _ = writeln!(out);
    }
    if !r.duplicate_keys.is_empty() {
        let _ = writeln!(out, "## {DUPLICATES_TITLE}\n");
        for d in &r.duplicate_keys {
            let _ = writeln!(out, "- {}", capital(&d.line));
        }
        let _ = writeln!(out);
    }
    if !r.map_pages.is_empty() {
        let _ = writeln!(out, "## {MAPS_TITLE}\n");
        for m in &r.map_pages {
            let _ = writeln!(
                out,
                "- {}\n\n  ```\n  {}\n  ```\n",
                capital(&m.line),
                m.server.replace('\n', "\n  ")
            );
        }
    }
    if !r.unknown.is_empty() {
        let _ = writeln!(out, "## Not known\n");
        for u in &r.unknown {
            let _ = writeln!(out, "- {u}");
        }
        let _ = writeln!(out);
    }
    if !r.notes.is_empty() {
        let _ = writeln!(out, "## Routine notes (not damage)\n");
        for n in &r.notes {
            let _ = writeln!(out, "- {} x `{}`: {}", n.count, n.code, n.message);
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(out, "## Steps\n");
    for (i, s) in r.steps.iter().enumerate() {
        step_markdown(&mut out, i.saturating_add(1), s);
    }
    out
}

/// The report in a few lines for a mailing-list post or a ticket's first comment: the
/// verdict, the cluster in one line, the damaged blocks' table and each block's headline
/// (no evidence, keys or steps: the whole Markdown report goes beside it, as a file).
pub fn summary(r: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# pgpage incident report (summary)\n");
    let _ = writeln!(out, "**{}**\n", r.verdict);
    if r.redacted {
        let _ = writeln!(out, "{REDACTED_WORDS}\n");
    }
    let c = &r.cluster;
    let opt = |v: Option<String>| v.unwrap_or_else(|| String::from("unknown"));
    let _ = writeln!(
        out,
        "PostgreSQL {}, system identifier {}, {}, data checksums {}, block size {}; {} main-fork pages in {} relation files read.",
        opt(c.pg_version.map(|v| v.to_string())),
        opt(c.system_identifier.clone()),
        opt(c.state.clone()),
        c.data_checksums,
        opt(c.block_size.map(|v| v.to_string())),
        r.pages,
        r.files
    );
    if !r.relations.is_empty() {
        let _ = writeln!(out);
        let blocks = blocks_table(&mut out, r);
        let _ = writeln!(out);
        for (rel, b) in &blocks {
            let _ = writeln!(
                out,
                "- {} block {}: {}",
                rel.relation.as_deref().unwrap_or(&rel.path),
                b.block,
                b.headline
            );
        }
    }
    for m in &r.map_pages {
        let _ = writeln!(out, "- {}", capital(&m.line));
    }
    let _ = writeln!(
        out,
        "\nThe evidence, the rows lost by key and the steps are in the whole report (pgpage report --markdown{}).",
        if r.redacted { " --redact" } else { "" }
    );
    out
}

/// The damaged blocks' table, the worst first; the blocks in its order.
fn blocks_table<'r>(out: &mut String, r: &'r Report) -> Vec<(&'r Relation, &'r Block)> {
    let _ = writeln!(
        out,
        "| severity | relation | file | block | status | damage | rows lost | rows readable | known from |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|");
    let blocks: Vec<(&Relation, &Block)> = ranked(r, Severity::Error)
        .into_iter()
        .chain(ranked(r, Severity::Warning))
        .collect();
    {
        for (rel, b) in &blocks {
            // A block without rows of its own (an index's) says why its row columns are empty.
            let no_rows = if super::index_block(rel.relkind.as_deref(), b) {
                "index: no rows"
            } else {
                "no rows: not a table's page"
            };
            // A page that verifies but disagrees with an index reads whole: its rows are there.
            let unread = if b.damage == super::Damage::Older {
                let back = super::keyrows::rows_back(b);
                (
                    String::from("unknown: the changes since the older copy"),
                    format!(
                        "all, {} deleted or updated since among them",
                        crate::words::plural(back, "row", "rows")
                    ),
                    String::from("its indexes"),
                )
            } else if b.damage == super::Damage::KeyMismatch {
                (
                    String::from("none: the page reads whole"),
                    format!(
                        "all ({} against an index)",
                        crate::words::plural(b.key_mismatches.len() as u64, "row", "rows")
                    ),
                    String::from("its indexes"),
                )
            } else {
                (String::from(no_rows), String::from("-"), String::from("-"))
            };
            let (lost, readable, from) = b.rows.as_ref().map_or(unread, |x| {
                (
                    match (x.lost, x.upper_bound) {
                        (Some(n), true) if n > 0 => format!("at most {n}"),
                        (n, _) => count(n),
                    },
                    match altered(b) {
                        Some(_) => format!("{} (1 value probably altered)", count(x.readable)),
                        None => count(x.readable),
                    },
                    String::from(match x.known_from {
                        KnownFrom::Index => "index",
                        KnownFrom::Header => "header",
                        KnownFrom::Unknown => "unknown",
                    }),
                )
            });
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {lost} | {readable} | {from} |",
                match b.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                },
                cell(&rel.relation.clone().unwrap_or_default()),
                cell(&b.file),
                b.block,
                b.status,
                if read_as_empty(b) {
                    "zeroed (read as empty)"
                } else {
                    b.damage.as_str()
                }
            );
        }
    }
    blocks
}
