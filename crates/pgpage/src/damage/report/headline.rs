//! A damaged block in one line, read before its evidence: what happened to the page, how
//! many rows it costs, and the way back the steps take. The text and Markdown lead each
//! block with it, and the browser's problem list and picture show it as the row's hint. It
//! holds no row data (column names, not values), so a redacted report keeps it.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{Block, Damage, Route};
use crate::words::{plural, run_texts};

/// What happened, in a few words after the damage class.
fn what(b: &Block) -> String {
    match b.damage {
        Damage::Zeroed if b.server.is_some() => {
            String::from("all zeros where the index's links lead; the server refuses it")
        }
        // The class's own words say already that the server reads it as empty.
        Damage::Zeroed => String::from("all zeros"),
        Damage::Overwritten if !b.noise.is_empty() => format!(
            "random bytes over about bytes {} of the page; its header is its own",
            crate::words::and_list(
                &b.noise
                    .iter()
                    .map(crate::damage::noise::Run::text)
                    .collect::<Vec<_>>()
            )
        ),
        Damage::Overwritten => {
            String::from("not a PostgreSQL page; its header and line pointers are noise")
        }
        // The backup's page names the older write's sectors where the page alone shows
        // only that its header is from another write than its tuples.
        Damage::Torn
            if b.torn_sectors == [0]
                && b.backup.as_ref().is_some_and(|p| {
                    p.same_sectors.first() == Some(&0) && p.same_sectors.len() > 1
                }) =>
        {
            let same = b
                .backup
                .as_ref()
                .map(|p| run_texts(&p.same_sectors).join(", "))
                .unwrap_or_default();
            format!("sectors {same} are the backup's page, another write than the rest of the page")
        }
        Damage::Torn if b.torn_sectors == [0] => String::from(
            "its header and line pointers (sector 0, and perhaps the sectors after it) are from another write than its tuples",
        ),
        Damage::Torn if !b.torn_sectors.is_empty() => {
            let one = b.torn_sectors.len() == 1;
            format!(
                "{} {} {} from another write than {}",
                if one { "sector" } else { "sectors" },
                run_texts(&b.torn_sectors).join(", "),
                if one { "is" } else { "are" },
                // Sector 0 holds the header and line pointers: the rest is the other write.
                if b.torn_sectors.contains(&0) {
                    "the rest of the page"
                } else {
                    "sector 0"
                }
            )
        }
        Damage::Torn => String::from("its 512-byte sectors are from two writes"),
        Damage::Missing => String::from(
            "past the end of the table's file, though its indexes point into it",
        ),
        Damage::Misplaced => match b.holds_block {
            Some(n) => format!("it holds block {n}'s page"),
            None => String::from(
                "it holds another page than this block's (another relation's block, or another block of this table)",
            ),
        },
        Damage::BitFlip => match b.bit_flips.first() {
            Some(f) => {
                let place = match (&f.column, f.item) {
                    (Some(c), Some(i)) => format!("column {c} of item {i}"),
                    (None, Some(i)) => format!("{} of item {i}", f.field),
                    _ => f.field.clone(),
                };
                let of = if b.bit_flips.len() > 1 {
                    format!(", the likeliest of {} candidates", b.bit_flips.len())
                } else {
                    String::new()
                };
                format!("byte {} bit {} ({place}){of}", f.byte, f.bit)
            }
            None => String::from("one bit off"),
        },
        Damage::Checksum => String::from("no single bit or tear explains the mismatch"),
        Damage::Header => String::from("the checksum matches but the header is not valid"),
        Damage::Structure => String::from("amcheck finds it wrong though its checksum matches"),
        Damage::Stale => {
            String::from("an older version of the page, which the server reads without an error")
        }
        Damage::KeyMismatch | Damage::Older => super::keyrows::what(b),
        Damage::HeaderField => match &b.header_field {
            Some(f) => {
                let name = f.field.name();
                let said = format!("{name} is {}", f.stored);
                if f.confirmed {
                    format!(
                        "{said}; the stored checksum verifies with {name} = {}: one header field is damaged, the rest of the page is its own",
                        f.value
                    )
                } else {
                    let why = if f.checksummed_wrong {
                        "the stored checksum was computed over the wrong value"
                    } else if !f.has_checksum {
                        "the page has no checksum"
                    } else if f.verifying.len() > 1 {
                        "the stored checksum verifies with several values"
                    } else {
                        "no value makes the stored checksum verify"
                    };
                    format!(
                        "{said}; its line pointers give {name} = {} (a candidate: {why}): one header field is damaged",
                        f.value
                    )
                }
            }
            None => String::from("one header field is damaged"),
        },
    }
}

/// Its rows, as the block's rows line counts them.
fn rows(b: &Block) -> Option<String> {
    let r = b.rows.as_ref()?;
    let lost = match (r.lost, r.upper_bound) {
        (Some(0), _) => String::from("no row lost"),
        (Some(n), true) => format!("at most {} lost", plural(n, "row", "rows")),
        (Some(n), false) => format!("{} lost", plural(n, "row", "rows")),
        (None, _) => String::from("rows lost: unknown"),
    };
    Some(match (r.readable, b.damage) {
        // A page the server reads whole loses no row to a reader, but its rows are wrong.
        (_, Damage::Stale) => String::from("its rows are older versions"),
        // Its rows all read once the field is set back: said, beside none lost.
        (Some(n), Damage::HeaderField) if n > 0 => format!("{lost}, {n} readable"),
        (Some(n), _) if n > 0 && r.lost != Some(0) => format!("{lost}, {n} readable"),
        _ => lost,
    })
}

/// The way back the steps take for it.
fn way(b: &Block) -> String {
    let set = |force: &str| {
        b.header_field.as_ref().map(|f| {
            format!(
                "set {} back to {} (pgpage repair --set{force})",
                f.field.name(),
                f.value
            )
        })
    };
    match b.route {
        r if r == Route::ConfirmedField.as_str() => {
            return format!(
                "way back: {}",
                set("").unwrap_or_else(|| String::from("set the field back"))
            );
        }
        r if r == Route::Field.as_str() => {
            let force = if b
                .header_field
                .as_ref()
                .is_some_and(|f| f.verifying.contains(&f.value))
            {
                ""
            } else {
                " --force"
            };
            return format!(
                "way back: {}, if the line pointers' candidate is right",
                set(force).unwrap_or_else(|| String::from("set the field back"))
            );
        }
        _ => {}
    }
    String::from(way_of(b.route))
}

fn way_of(route: &str) -> &'static str {
    match route {
        r if r == Route::Reindex.as_str() => "way back: REINDEX",
        r if r == Route::ConfirmedFlip.as_str() => {
            "way back: flip the bit back (the backup's page confirms it)"
        }
        r if r == Route::Recover.as_str() => "way back: rebuild it from the WAL (pgpage recover)",
        r if r == Route::BackupSame.as_str() => "way back: the backup's page, unchanged since",
        r if r == Route::Flip.as_str() => "way back: flip a bit back, if one candidate is right",
        r if r == Route::TornWhole.as_str() => {
            "way back: rebuild it from its own sectors (pgpage repair --torn)"
        }
        r if r == Route::Key.as_str() => {
            "way back: the true key set by SQL, or the index rebuilt (the steps say which)"
        }
        r if r == Route::KeyReindex.as_str() => {
            "way back: REINDEX the index, once the WAL or a backup shows the page is not older than its table"
        }
        r if r == Route::KeyOlder.as_str() => {
            "way back: the page from a later copy or the WAL (its rows look older than the table's), not REINDEX"
        }
        r if r == Route::BackupOlder.as_str() => {
            "way back: the backup's older page, losing the changes since"
        }
        _ => "no good copy found: salvage its rows",
    }
}

/// The block in one line (see the module's doc).
pub(super) fn headline(b: &Block) -> String {
    let mut parts: Vec<String> = Vec::with_capacity(3);
    parts.push(what(b));
    parts.extend(rows(b));
    parts.push(way(b));
    parts.join("; ")
}
