//! The blocks `allindexed` finds: pages that verify whose rows disagree with their indexes,
//! told as a DBA needs it (which row, which key each side holds, what the server answers),
//! and the step that settles each one.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::allindexed::KeyMismatch;
use super::keys::key_text;
use super::{command_line, Block, Damage, Paths, Relation, RelationInput, Report, Route, Severity};
use crate::cluster::catalog::table::quote_ident;
use crate::page::verify::PageStatus;
use crate::words::plural;

/// At most this many rows named in a block's evidence; the rest are counted.
pub(super) const NAMED: usize = 5;

/// One block for each page that verifies whose rows disagree with an index.
pub(super) fn key_blocks(rel: &RelationInput) -> Vec<Block> {
    let mut out = Vec::new();
    for (&block, ms) in &rel.key_mismatches {
        if ms.is_empty() {
            continue;
        }
        let Some(file) = rel.files.iter().find(|f| {
            let per = f.verdict.geometry.block_size.blocks_per_segment().max(1);
            block.checked_div(per) == Some(f.verdict.segno)
        }) else {
            continue;
        };
        let per = file.verdict.geometry.block_size.blocks_per_segment().max(1);
        let changed = ms.iter().any(|m| !m.index_keys.is_empty());
        let mut b = Block::blank_at(
            block,
            file.path.clone(),
            block.checked_rem(per).unwrap_or(block),
            PageStatus::Ok.as_str(),
        );
        b.damage = Damage::KeyMismatch;
        // A key the server answers with another row is rows gone; a row no entry leads to
        // is a row index scans miss.
        b.severity = if changed {
            Severity::Error
        } else {
            Severity::Warning
        };
        b.key_mismatches = ms.clone();
        b.page_lsn = ms.iter().find_map(|m| m.page_lsn);
        // One flipped bit, or one value changed in memory, alters one row. Rows that hold
        // other keys than the indexes name at their TIDs, several of them, are not this
        // block's rows: a page that verifies here though written for another relation.
        let mut other: Vec<u16> = ms
            .iter()
            .filter(|m| !m.index_keys.is_empty())
            .map(|m| m.lp)
            .collect();
        other.sort_unstable();
        other.dedup();
        let foreign = other.len() >= OTHER_ROWS && !older_copy(ms);
        let older = !foreign && looks_older(&rel.whole_indexes, ms);
        evidence(&mut b, rel, foreign, older);
        if older {
            // Rows deleted or updated since are back, and the server returns them without a
            // word: rows wrong, whatever the index scans miss.
            b.damage = Damage::Older;
            b.severity = Severity::Error;
        }
        if foreign {
            b.damage = Damage::Misplaced;
            b.severity = Severity::Error;
            b.evidence.insert(
                0,
                format!(
                    "{} rows here hold other keys than the table's indexes name at their TIDs: a flipped bit or a value changed in memory alters one row, not {}. {}The page holds other rows than this block's, likely another relation's block of the same number written here (a checksum covers the block number, not the relation). The indexes' entries into this block name the rows it should hold",
                    other.len(),
                    other.len(),
                    if ms.iter().all(|m| m.rows_agreeing == 0) {
                        "No row on the page is as the indexes hold it. "
                    } else {
                        ""
                    }
                ),
            );
        }
        out.push(b);
    }
    out
}

/// Rows holding other keys than their index entries name, from which a page is taken for
/// another page rather than for rows changed one by one.
const OTHER_ROWS: usize = 3;

/// The rows are this block's own, older: some are as the indexes hold them (rows not changed
/// since), some hold keys a unique index names elsewhere and nowhere here (versions updated
/// since, their entries vacuumed), and those keys are not each at the same line pointer of
/// one other block, as a copy of that block would hold them. Such a page is this block's
/// older copy (a write lost, or a backup's page put back), which the WAL or a backup
/// settles. Another relation's page agrees with no entry but by chance, though its keys
/// may well be held elsewhere in this table.
fn older_copy(ms: &[KeyMismatch]) -> bool {
    if !ms.iter().any(older_version) || !ms.iter().any(|m| m.rows_agreeing > 0) {
        return false;
    }
    let mut blocks: Option<Vec<String>> = None;
    for m in ms.iter().filter(|m| !m.twins.is_empty()) {
        let here: Vec<String> = m
            .twins
            .iter()
            .filter_map(|t| {
                let (b, lp) = t.trim_matches(|c| c == '(' || c == ')').split_once(',')?;
                (lp == format!("{}", m.root)).then(|| String::from(b))
            })
            .collect();
        blocks = Some(match blocks {
            None => here,
            Some(mut seen) => {
                seen.retain(|b| here.contains(b));
                seen
            }
        });
    }
    // Every twin at the same line pointer of one block: that block's copy.
    blocks.is_none_or(|b| b.is_empty())
}

/// A row with no entry in a unique index that holds its key at another TID: an older version
/// of that row, whose own entry VACUUM removed once a newer version was written, on a page
/// older than its rows (a lost write, or an older copy put back).
pub(super) fn older_version(m: &KeyMismatch) -> bool {
    m.unique && m.index_keys.is_empty() && !m.twins.is_empty()
}

/// Line pointers of a block whose rows have no entry in any of their table's B-tree indexes,
/// where it has two or more: the mark of rows deleted and vacuumed since, on a heap page
/// older than its table (a write lost, or an older copy put back). VACUUM removes a dead
/// row's entries from every index; lost index writes would have to lose the same rows'
/// entries in each index at once.
pub(super) fn absent_everywhere(rel: &Relation, b: &Block) -> Vec<u16> {
    absent_in(&rel.whole_indexes, &b.key_mismatches)
}

/// [`absent_everywhere`] over the indexes `whole` (those whose every page verified: a
/// damaged index's missing entries are its own damage) and a block's rows `ms`.
fn absent_in(whole: &[String], ms: &[KeyMismatch]) -> Vec<u16> {
    if whole.len() < 2 {
        return Vec::new();
    }
    let mut lps: Vec<u16> = ms.iter().map(|m| m.lp).collect();
    lps.sort_unstable();
    lps.dedup();
    lps.retain(|&lp| {
        whole.iter().all(|name| {
            ms.iter()
                .any(|m| m.lp == lp && m.index_keys.is_empty() && m.index == *name)
        })
    });
    lps
}

/// The page's rows look older than its table's: older versions of rows updated since, or
/// rows deleted since whose entries VACUUM removed from every index.
pub(super) fn looks_older(whole: &[String], ms: &[KeyMismatch]) -> bool {
    ms.iter().any(older_version) || !absent_in(whole, ms).is_empty()
}

/// A key with its columns' names: `id 4601`, `(a, b) (1, x)`.
pub(super) fn named_key(m: &KeyMismatch, key: &[Option<String>]) -> String {
    if m.columns.len() == 1 {
        format!("{} {}", m.columns.join(""), key_text(key))
    } else {
        format!("({}) {}", m.columns.join(", "), key_text(key))
    }
}

fn columns_eq(m: &KeyMismatch, key: &[Option<String>]) -> String {
    let pairs: Vec<String> = m
        .columns
        .iter()
        .zip(key)
        .map(|(c, v)| match v {
            Some(v) => format!("{c} = {v}"),
            None => format!("{c} IS NULL"),
        })
        .collect();
    pairs.join(" AND ")
}

/// `foreign`: the page is not this block's, so a row's key held elsewhere says nothing of
/// that row's history.
fn evidence(b: &mut Block, rel: &RelationInput, foreign: bool, older: bool) {
    let block = b.block;
    let table = rel.relation.clone().unwrap_or_default();
    let ms = b.key_mismatches.clone();
    for m in ms.iter().take(NAMED) {
        let tid = format!("({block},{})", m.root);
        let at = if m.root == m.lp {
            format!("the row at ({block},{})", m.lp)
        } else {
            format!(
                "the row at ({block},{}), the newest version of the HOT chain from line pointer {} (the TID its index entries name),",
                m.lp, m.root
            )
        };
        let (plain, redacted) = if m.index_keys.is_empty() {
            (
                format!(
                    "{at} holds {}, and {} has no entry at {tid}",
                    named_key(m, &m.keys),
                    m.index
                ),
                format!("{at} has no entry in {} at {tid}", m.index),
            )
        } else {
            let named: Vec<String> = m.index_keys.iter().map(|k| named_key(m, k)).collect();
            (
                format!(
                    "{at} holds {} where {} names {} at {tid}",
                    named_key(m, &m.keys),
                    m.index,
                    named.join(" and ")
                ),
                format!("{at} holds another key than {} names at {tid}", m.index),
            )
        };
        b.said_keys.push((plain.clone(), redacted));
        let mut line = plain;
        if !m.twins.is_empty() {
            let twins = format!("{} holds that key at {} too", m.index, m.twins.join(", "));
            line.push_str(&format!(
                "; {twins}{}",
                if foreign {
                    ""
                } else if older_version(m) {
                    ": this row is likely an older version of that one, whose entry VACUUM removed after the row was updated, so the page looks older than its rows (a write lost, or an older copy put back)"
                } else if m.unique {
                    ": two rows now hold one key of a unique index, so the row's own value is the one that changed"
                } else {
                    ""
                }
            ));
            b.said_keys.push((
                format!("; {twins}"),
                format!("; {} holds its key at another TID too", m.index),
            ));
        }
        if !m.index_keys.is_empty() {
            let asked = m
                .index_keys
                .first()
                .map(|k| columns_eq(m, k))
                .unwrap_or_default();
            let named = m
                .index_keys
                .first()
                .map(|k| named_key(m, k))
                .unwrap_or_default();
            let plain = format!(
                "the server answers WHERE {asked} with this row (a B-tree scan does not compare the key again at the heap): an index scan shows it as {}, an index-only scan as {}, and a sequential scan never shows {}",
                named_key(m, &m.keys),
                named,
                named
            );
            b.said_keys.push((
                plain.clone(),
                String::from(
                    "the server answers a lookup of the index's key with this row (a B-tree scan does not compare the key again at the heap): an index scan shows the row's own key, an index-only scan the index's, and a sequential scan never shows the index's",
                ),
            ));
            line.push_str(&format!("; {plain}"));
        } else {
            line.push_str("; an index scan for the row's key finds nothing");
        }
        b.evidence.push(line);
    }
    let more = b.key_mismatches.len().saturating_sub(NAMED);
    if more > 0 {
        b.evidence
            .push(format!("and {} more", plural(more as u64, "row", "rows")));
    }
    let why = if foreign {
        "the page passes its checksum and PageIsVerified, so the server reads its rows as this table's without a word"
    } else if older {
        "the page passes its checksum and PageIsVerified, so the server reads it without a word: the whole page is older than its table (a write the storage lost, or an older copy put back), not a value changed on it; the data directory's WAL since the page's pd_lsn, or a base backup with its WAL, says which changes it lacks"
    } else {
        "the page passes its checksum and PageIsVerified: its bytes are as they were when the page was written, so the change came before that, in memory or from software, and the storage wrote what it was given"
    };
    b.evidence.push(format!(
        "{why}. pgpage holds every row on a page of {table} that verifies against each B-tree index of the table, as amcheck's heapallindexed does; only that comparison sees this"
    ));
}

/// `key_mismatch`'s headline words: what happened.
pub(super) fn what(b: &Block) -> String {
    // Rows, not entries: a row missing from two indexes is one row.
    let rows = |f: &dyn Fn(&KeyMismatch) -> bool| -> u64 {
        let mut lps: Vec<u16> = b
            .key_mismatches
            .iter()
            .filter(|m| f(m))
            .map(|m| m.lp)
            .collect();
        lps.sort_unstable();
        lps.dedup();
        lps.len() as u64
    };
    let changed = rows(&|m| !m.index_keys.is_empty());
    let unled = rows(&|m| m.index_keys.is_empty());
    let index = |f: &dyn Fn(&KeyMismatch) -> bool| {
        let mut names: Vec<&str> = Vec::new();
        for m in b.key_mismatches.iter().filter(|m| f(m)) {
            if !names.contains(&m.index.as_str()) {
                names.push(m.index.as_str());
            }
        }
        names.join(", ")
    };
    let mut parts = Vec::new();
    if changed > 0 {
        parts.push(format!(
            "{} another key than {} names",
            if changed == 1 {
                String::from("1 row holds")
            } else {
                format!("{changed} rows hold")
            },
            index(&|m| !m.index_keys.is_empty())
        ));
    }
    if unled > 0 {
        parts.push(format!(
            "{} no entry in {}",
            if unled == 1 {
                String::from("1 row has")
            } else {
                format!("{unled} rows have")
            },
            index(&|m| m.index_keys.is_empty())
        ));
    }
    if b.damage == Damage::Older {
        return format!(
            "passes its checksum, but looks older than its table: {} no entry in {}, as rows deleted or updated since do once VACUUM removed their entries{}",
            if unled == 1 {
                String::from("1 row has")
            } else {
                format!("{unled} rows have")
            },
            index(&|m| m.index_keys.is_empty()),
            if changed > 0 {
                format!(
                    ", and {} another key than {} names",
                    if changed == 1 {
                        String::from("1 row holds")
                    } else {
                        format!("{changed} rows hold")
                    },
                    index(&|m| !m.index_keys.is_empty())
                )
            } else {
                String::new()
            }
        );
    }
    format!("passes its checksum, but {}", parts.join(", and "))
}

/// The rows of an `older` page that no index leads to: rows deleted or updated since,
/// back on the page the server reads.
pub(super) fn rows_back(b: &Block) -> u64 {
    let mut lps: Vec<u16> = b
        .key_mismatches
        .iter()
        .filter(|m| m.index_keys.is_empty())
        .map(|m| m.lp)
        .collect();
    lps.sort_unstable();
    lps.dedup();
    lps.len() as u64
}

/// A SQL literal: the text in single quotes, each quote doubled; NULL for a NULL.
fn literal(v: &Option<String>) -> String {
    match v {
        Some(t) => format!("'{}'", t.replace('\'', "''")),
        None => String::from("NULL"),
    }
}

/// The step for rows whose key an index does not hold: which value is true is the
/// application's to say; each way is given as SQL on the running server.
pub(super) fn key_step(r: &Report, paths: &Paths) -> Option<String> {
    let blocks: Vec<(&Relation, &Block)> = r.blocks().filter(|(_, b)| b.damage.is_key()).collect();
    let changed = blocks
        .iter()
        .any(|(rel, b)| super::route(rel, b) == Route::Key);
    if blocks.is_empty() {
        return None;
    }
    let all_older = blocks
        .iter()
        .all(|(rel, b)| super::route(rel, b) == Route::KeyOlder);
    let mut lines = Vec::new();
    if changed {
        lines.push(String::from("Rows whose key disagrees with an index, on pages that pass their checksum: no copy of the page is better (a backup or a WAL image may hold the same bytes), so settle each row on the running server, after any repair of the pages above. The index entry was made from the row as it was inserted or last updated; which of the two is true, the row's value or the index's, the application's data or a replica says."));
    } else if !all_older {
        lines.push(String::from("Rows that have no entry in an index, on pages that pass their checksum: index scans miss them. Either the index lost those entries (an index page older than its table, or one whose write was lost), or the heap page is older than its table (a write lost, or an older copy put back) and holds rows deleted since, whose entries VACUUM removed. First tell the two apart: give pgpage the WAL since the page's pd_lsn or a base backup (pgpage report --wal ARCHIVE --from BACKUP_DIR DATADIR); an older page is then named stale, and pgpage recover rebuilds it. Do not REINDEX before: on an older heap page it gives the deleted rows their entries back, for good, and no check finds them after."));
    }
    let older: Vec<&(&Relation, &Block)> = blocks
        .iter()
        .filter(|(rel, b)| super::route(rel, b) == Route::KeyOlder)
        .collect();
    if !older.is_empty() {
        let tids: Vec<String> = older
            .iter()
            .flat_map(|(_, b)| {
                b.key_mismatches
                    .iter()
                    .filter(|m| older_version(m))
                    .map(move |m| format!("({},{})", b.block, m.lp))
            })
            .collect();
        let absent: Vec<String> = older
            .iter()
            .flat_map(|(rel, b)| {
                absent_everywhere(rel, b)
                    .into_iter()
                    .map(move |lp| format!("({},{lp})", b.block))
            })
            .collect();
        if !absent.is_empty() {
            lines.push(format!(
                "Rows with no entry in any of their table's indexes ({}): VACUUM removes a deleted row's entries from every index, so these look like rows deleted since, on a page older than its table (a write lost, or an older copy put back). Do not REINDEX: it would give those deleted rows their entries back, for good, and no check would find them after. Give pgpage the WAL since the page's pd_lsn (pgpage report --wal ARCHIVE DATADIR) or a base backup (--from BACKUP_DIR): it then names the page stale, and pgpage recover rebuilds it. Without either, save those rows (SELECT * FROM the table WHERE ctid = ANY (...)), then remove them with pg_surgery's heap_force_kill on those TIDs.",
                absent.join(", ")
            ));
        }
        if !tids.is_empty() {
            lines.push(format!(
            "Rows with no entry in a unique index that holds their keys at other TIDs ({}): they look like older versions of rows that live elsewhere, on a page older than its table (a write lost, or an older copy put back). Do not REINDEX that index: it fails on the duplicate key (could not create unique index), and the older versions also show in sequential scans beside the live ones. Give pgpage the WAL since the page's pd_lsn (pgpage report --wal ARCHIVE DATADIR): it then names the page stale, and pgpage recover rebuilds it. Without that WAL, save the older versions (SELECT * FROM the table WHERE ctid = ANY (...)), then remove them with pg_surgery's heap_force_kill on those TIDs; their newer versions stay.",
            tids.join(", ")
        ));
        }
    }
    let mut reindex: BTreeMap<String, ()> = BTreeMap::new();
    for (rel, b) in &blocks {
        if super::route(rel, b) == Route::KeyOlder {
            continue;
        }
        let table = rel
            .sql_name
            .clone()
            .or_else(|| rel.relation.clone())
            .unwrap_or_else(|| paths.file(&rel.path));
        for m in &b.key_mismatches {
            let ctid = format!("'({},{})'", b.block, m.lp);
            reindex.insert(m.sql_index.clone(), ());
            if m.index_keys.is_empty() {
                continue;
            }
            let set: Vec<String> = match m.index_keys.first() {
                Some(k) if !r.redacted => m
                    .columns
                    .iter()
                    .zip(k)
                    .map(|(c, v)| format!("{} = {}", quote_ident(c), literal(v)))
                    .collect(),
                _ => m
                    .columns
                    .iter()
                    .map(|c| format!("{} = VALUE", quote_ident(c)))
                    .collect(),
            };
            lines.push(format!(
                "Block {}, line pointer {}: if {} holds the true key, set the row back to it{}:",
                b.block,
                m.lp,
                m.index,
                if r.redacted {
                    " (VALUE: the index's key, left out of this redacted report)"
                } else {
                    ""
                }
            ));
            lines.push(command_line(&format!(
                "UPDATE {table} SET {} WHERE ctid = {ctid};",
                set.join(", ")
            )));
        }
    }
    let names: Vec<String> = reindex.into_keys().collect();
    if names.is_empty() {
        return Some(lines.join("\n"));
    }
    lines.push(if changed {
        format!(
            "If the row's value is the true one, or for a row that has no entry: rebuild the index from the table (REINDEX INDEX {}), which gives each row the entry of its own key. Where the UPDATE fails on a unique key, two rows hold it: decide which one to keep first.",
            names.join("; REINDEX INDEX ")
        )
    } else {
        format!(
            "Only once the WAL or a backup shows the heap page is not older than its table (the index lost those entries, the table did not gain them): rebuild the index from the table, which gives each row its entry: REINDEX INDEX {}",
            names.join("; REINDEX INDEX ")
        )
    });
    Some(lines.join("\n"))
}
