//! The repair kit: a damaged page replaced by a good copy's page, by a chosen single-bit
//! flip or by one header field set back, its checksum recomputed for its block (the one rule the CLI and the browser share),
//! and what PostgreSQL's own tools do with the page as it is: `pg_surgery` for the tuples
//! that cannot be saved, `zero_damaged_pages` and `ignore_checksum_failure` in words.

use crate::words::plural;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

use crate::am::decode_page_with;
use crate::am::decoded::{DecodeOptions, Hints, Items};
use crate::am::heap::check::HeapContext;
use crate::damage::bitflip::PageBit;
use crate::findings::{Evidence, Finding};
use crate::page::checksum::{pg_checksum_page, PD_CHECKSUM_OFFSET};
use crate::page::geometry::{read_u16, Endian};
use crate::page::kind::PageKind;
use crate::page::verify::{header_check, verify_page, PageStatus};

/// bufpage.c PageSetChecksumInplace: writes pg_checksum_page(page, blkno) into pd_checksum in
/// the file's byte order, computed once over the page as it is. A new page (pd_upper 0) is
/// left as it is, as the server leaves it. Returns the checksum written.
pub fn set_checksum(page: &mut [u8], blkno: u32, endian: Endian) -> Option<u16> {
    if read_u16(page, 14, endian)? == 0 {
        return None;
    }
    let sum = pg_checksum_page(page, blkno, endian);
    crate::page::geometry::write_u16(page, PD_CHECKSUM_OFFSET, endian, sum)?;
    Some(sum)
}

/// Where the repaired page comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageSource<'a> {
    /// A good copy of the same block: a backup's, a standby's, a full-page image from WAL.
    Page(&'a [u8]),
    /// The damaged page with one bit flipped back.
    Flip(PageBit),
    /// The damaged page with one header field set to a value
    /// (`crate::page::header_field`).
    Field(crate::page::header_field::HeaderField, u16),
}

/// Why a page cannot be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RepairRefusal {
    /// The good copy's page is not one page of the file's block size.
    WrongSize { expected: usize, got: usize },
    /// The bit is not on the page.
    FlipOutsidePage { offset: u32, page_len: usize },
    /// Even with its checksum recomputed the server would refuse the page (its header breaks
    /// PageIsVerified's rules, or it is a new page that is not all zeros).
    NotAccepted {
        status: PageStatus,
        findings: Vec<Finding>,
    },
}

impl core::fmt::Display for RepairRefusal {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            RepairRefusal::WrongSize { expected, got } => write!(
                f,
                "the replacement page is {got} bytes, not one {expected}-byte page of the file"
            ),
            RepairRefusal::FlipOutsidePage { offset, page_len } => write!(
                f,
                "byte offset {offset} is not on the page (0..{})",
                page_len.saturating_sub(1)
            ),
            RepairRefusal::NotAccepted { status, findings } => {
                write!(
                    f,
                    "the server would still refuse the repaired page ({})",
                    status.as_str()
                )?;
                for (i, x) in findings.iter().enumerate() {
                    write!(f, "{}{}", if i == 0 { ": " } else { "; " }, x.message())?;
                }
                Ok(())
            }
        }
    }
}

/// A torn page rebuilt as pgpage reads its rows (`repair --torn`): each row the older write
/// holds at another place is pointed at there, each HOT chain root whose newest version is a
/// heap-only tuple nothing leads to becomes an LP_REDIRECT to it (as pruning leaves a chain),
/// a heap-only tuple still left without a root becomes an ordinary tuple (its chain's root),
/// and every other line pointer whose tuple the tear took (an older version, or bytes that
/// are no row) becomes LP_DEAD, as pruning leaves a dead tuple's: index entries into it then
/// find nothing, and VACUUM removes them; so does a redirect whose target that leaves dead. pd_upper is lowered to the lowest tuple where a
/// moved one lies below it, so that no insert writes over it. A page whose header is the
/// older write gets the newer write's line pointer array rebuilt from its tuples
/// (`TornWrite::rebuilt`), and is refused when that could not be built. The checksum is left for
/// [`repair_page`]. PD_ALL_VISIBLE is cleared where line pointers change. Refused when two
/// tuples would overlap.
pub fn torn_rebuilt(
    page: &[u8],
    endian: Endian,
    torn: &crate::am::TornWrite,
) -> Result<Vec<u8>, String> {
    use crate::page::bufpage::set_item_id;
    use crate::page::fields::{LP_DEAD, LP_REDIRECT};
    if let Some(why) = &torn.not_rebuilt {
        return Err(format!(
            "its header and line pointers are the older write, and the newer write's line pointers cannot be rebuilt: {why}"
        ));
    }
    let mut out = torn.view(page, endian);
    for &lp in &torn.items {
        let written = match torn.newest.iter().find(|(root, _)| *root == lp) {
            Some(&(_, to)) => set_item_id(&mut out, endian, lp, to, LP_REDIRECT, 0),
            None => set_item_id(&mut out, endian, lp, 0, LP_DEAD, 0),
        };
        if !written {
            return Err(format!("line pointer {lp} is not on the page"));
        }
    }
    // A redirect whose target the tear took leads to no row: its chain is lost, and its root
    // dead, as pruning leaves a chain all of whose versions are gone.
    let lps = crate::page::bufpage::line_pointers(
        &crate::page::reader::Reader { b: &out, e: endian },
        &crate::page::bufpage::decode_header(
            &crate::page::reader::Reader { b: &out, e: endian },
            &mut crate::page::spans::Spans::new(out.len(), true),
        ),
        &mut crate::page::spans::Spans::new(out.len(), true),
    );
    let dead: Vec<u16> = lps
        .iter()
        .filter(|id| id.flags == LP_REDIRECT)
        .filter(|id| {
            lps.iter()
                .find(|t| t.lp == id.off)
                .is_none_or(|t| t.flags != crate::page::fields::LP_NORMAL)
        })
        .map(|id| id.lp)
        .collect();
    for lp in dead {
        set_item_id(&mut out, endian, lp, 0, LP_DEAD, 0);
    }
    // A heap-only tuple that nothing leads to still (its root taken, and not known by key)
    // makes REINDEX fail ("failed to find parent tuple for heap-only tuple"): it becomes its
    // own chain's root, an ordinary tuple, which the REINDEX the steps give then indexes.
    if !torn.items.is_empty() || !torn.rebuilt.is_empty() {
        use crate::page::fields::heap_tuple_header_data as htup;
        let unreached = crate::am::unreached_heap_only_here(&out, endian);
        let at: Vec<usize> = crate::tuple::heap_items(&out, endian)
            .filter(|i| unreached.contains(&i.lp))
            .map(|i| i.off.saturating_add(usize::from(htup::T_INFOMASK2.offset)))
            .collect();
        for at in at {
            if let Some(mask2) = read_u16(&out, at, endian) {
                let cleared = mask2 & !crate::am::heap::layout::HEAP_ONLY_TUPLE;
                crate::page::geometry::write_u16(&mut out, at, endian, cleared);
            }
        }
    }
    let mut tuples: Vec<(usize, usize, u16)> = crate::tuple::heap_items(&out, endian)
        .map(|i| (i.off, i.off.saturating_add(i.len), i.lp))
        .collect();
    tuples.sort_unstable();
    for pair in tuples.windows(2) {
        if let [(_, end, a), (start, _, b)] = pair {
            if start < end {
                return Err(format!(
                    "the tuples of line pointers {a} and {b} would overlap: the older write's bytes do not make one page"
                ));
            }
        }
    }
    if let (Some(&(lowest, _, lp)), Some(lower)) = (tuples.first(), read_u16(&out, 12, endian)) {
        if lowest < usize::from(lower) {
            return Err(format!(
                "the tuple of line pointer {lp} would lie among the line pointers (offset {lowest}, pd_lower {lower})"
            ));
        }
    }
    // The page's all-visible flag is the header's claim, and a torn header may be older than
    // the tuples (a version it calls visible to all was updated since), or the tear took
    // rows (now dead line pointers): a sequential scan skips the visibility checks on a page
    // so marked, and would return those versions. Cleared, each tuple is checked; VACUUM
    // sets it again when it holds.
    if !torn.items.is_empty() || !torn.rebuilt.is_empty() {
        if let Some(flags) = read_u16(&out, 10, endian) {
            let flags = flags & !crate::page::fields::PD_ALL_VISIBLE;
            crate::page::geometry::write_u16(&mut out, 10, endian, flags);
        }
    }
    if let (Some(&(lowest, _, _)), Some(upper)) = (tuples.first(), read_u16(&out, 14, endian)) {
        if let Ok(lowest) = u16::try_from(lowest) {
            if lowest < upper {
                crate::page::geometry::write_u16(&mut out, 14, endian, lowest);
            }
        }
    }
    Ok(out)
}

/// A repaired page, ready to be written in place of block `blkno`'s.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Repaired {
    #[serde(skip)]
    pub page: Vec<u8>,
    /// The checksum written; None for an all-zero page (the server checksums no new page).
    pub checksum: Option<u16>,
    /// pd_checksum as the replacement carried it before the recomputation.
    pub checksum_before: u16,
    /// A flip: whether it alone made the stored checksum valid (a bit-flip candidate).
    /// A flip that is not one still gives a page that passes, because the checksum is
    /// rewritten: then the checksum no longer says anything about the rest of the page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flip_was_candidate: Option<bool>,
    /// A field set: whether the stored checksum verifies with it (the page is then the one
    /// the server wrote). When not, the page still passes, its checksum rewritten over bytes
    /// nothing checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field_verified: Option<bool>,
    /// pd_checksum as the damaged block stored it.
    pub checksum_damaged: u16,
    /// pd_lsn of the damaged page and of the repaired one: a good copy older than the damaged
    /// page lacks the changes made since (only WAL replay brings them back). None for the
    /// damaged page when its header breaks PageIsVerified's rules: its pd_lsn is noise.
    pub lsn_before: Option<u64>,
    pub lsn_after: u64,
}

impl Repaired {
    /// The replacement is older than the damaged page, as far as the damaged page's pd_lsn
    /// can be known.
    pub fn older(&self) -> bool {
        self.lsn_before.is_some_and(|b| self.lsn_after < b)
    }
}

/// The page to put in place of `damaged` (block `blkno`, relation-wide), made from `source`
/// with its checksum recomputed for `blkno` in `endian`. Refused when the server would not
/// read the result either.
pub fn repair_page(
    damaged: &[u8],
    source: PageSource<'_>,
    blkno: u32,
    endian: Endian,
) -> Result<Repaired, RepairRefusal> {
    let (mut page, flip_was_candidate, field_verified) = match source {
        PageSource::Page(p) if p.len() != damaged.len() => {
            return Err(RepairRefusal::WrongSize {
                expected: damaged.len(),
                got: p.len(),
            })
        }
        PageSource::Page(p) => (Vec::from(p), None, None),
        PageSource::Flip(bit) => {
            if usize::try_from(bit.offset).map_or(true, |o| o >= damaged.len()) {
                return Err(RepairRefusal::FlipOutsidePage {
                    offset: bit.offset,
                    page_len: damaged.len(),
                });
            }
            let flipped = bit.apply(damaged);
            let valid = verify_page(&flipped, blkno, endian).status == PageStatus::Ok;
            (flipped, Some(valid), None)
        }
        PageSource::Field(field, value) => {
            let set = crate::page::header_field::with_field(damaged, field, value, endian);
            let valid = verify_page(&set, blkno, endian).status == PageStatus::Ok;
            (set, None, Some(valid))
        }
    };
    let checksum_before = read_u16(&page, PD_CHECKSUM_OFFSET, endian).unwrap_or(0);
    let checksum = set_checksum(&mut page, blkno, endian);
    let status = verify_page(&page, blkno, endian).status;
    if status.is_problem() {
        return Err(RepairRefusal::NotAccepted {
            status,
            findings: header_check(&page, endian).findings().collect(),
        });
    }
    let lsn = |p: &[u8]| crate::damage::diff::page_lsn(p, endian).unwrap_or(0);
    Ok(Repaired {
        checksum_damaged: read_u16(damaged, PD_CHECKSUM_OFFSET, endian).unwrap_or(0),
        lsn_before: crate::page::verify::header_is_sane(damaged, endian).then(|| lsn(damaged)),
        lsn_after: lsn(&page),
        page,
        checksum,
        checksum_before,
        flip_was_candidate,
        field_verified,
    })
}

/// A heap tuple's address as `ctid` prints it: (relation-wide block, line pointer).
// Serialized as the server prints a tid, "(block,offset)".
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(type = "string"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Ctid {
    pub block: u32,
    pub offset: u16,
}

impl Serialize for Ctid {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("({},{})", self.block, self.offset))
    }
}

/// What the server's own tools would do with the page as it is, for a DBA who has no good
/// copy: which tuples are on it, which are damaged, and in words what each setting does.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PageAdvice {
    pub status: PageStatus,
    pub kind: PageKind,
    /// Whether the page's own header and line pointers can say which tuples it holds. When
    /// not (noise where a header should be), `tuples`, `damaged` and `freeze` are empty: how
    /// many tuples the page held is unknown from it.
    pub tuples_known: bool,
    /// The page's tuples (heap: LP_NORMAL line pointers) or index entries.
    pub tuples: Vec<Ctid>,
    /// Tuples whose own bytes (line pointer, header or data) the decoder flags, and on a
    /// torn page every tuple in its older sectors: the ones pg_surgery's heap_force_kill is
    /// for.
    pub damaged: Vec<Ctid>,
    /// Heap-only tuples nothing on the page leads to (verify_heapam: "tuple is root of chain
    /// but is marked as heap-only tuple") whose bytes are sound: each is the newest version
    /// of a row whose chain start is wrong (on a torn page, an older write's tuple). A
    /// sequential scan returns them, an index scan does not reach them.
    pub unreached: Vec<Ctid>,
    /// On a torn page, the sectors of its older write as the incident report found them
    /// (empty otherwise).
    pub torn_sectors: Vec<u32>,
    /// Of `damaged`, on a torn page, how many rows lie intact elsewhere on the page, where
    /// the older write kept them (`repair --torn` points their line pointers at them).
    pub torn_moved: usize,
    /// On a torn page, why `repair --torn` cannot rebuild it (None: it can).
    pub torn_refused: Option<String>,
    /// A torn page whose header and line pointers are the older write, read through the
    /// newer write's array rebuilt from its tuples: `tuples` are those the rebuilt array
    /// finds, `damaged` the older header's line pointers that lead to other bytes (the ones
    /// the server reads through).
    pub torn_rebuilt: bool,
    /// `torn_sectors` are not an older write but random bytes written over the page.
    pub noise: bool,
    /// The page is this other block's copy (`cluster::rows::copy_of_block`): its tuples are
    /// that block's, not this one's.
    pub copy_of: Option<u32>,
    /// Of `damaged`, the tuples whose only findings are an xmin or xmax the server cannot
    /// look up (before the oldest xid or relfrozenxid, past nextXid, a MultiXactId out of
    /// range: "could not access status of transaction", "found xmin %u from before
    /// relfrozenxid %u"): pg_surgery's heap_force_freeze is for them.
    pub freeze: Vec<Ctid>,
    /// Structural findings on the page, for the words below.
    pub findings: Vec<Finding>,
    pub zero_damaged_pages: String,
    pub ignore_checksum_failure: String,
    /// On a checksum mismatch of a heap page whose header is sane: every single-bit flip
    /// that makes the stored checksum valid, ranked, with the values it restores. Flipping
    /// the right one back restores the page exactly, which pg_surgery never does.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub bit_flips: Option<crate::damage::flips::ToldFlips>,
    /// pg_surgery SQL (heap pages only).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub surgery_sql: Option<String>,
    /// A header one field away from the server's (`crate::page::header_field`): the
    /// field and the value to set back. `tuples` and the rest are read through it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub header_field: Option<crate::page::header_field::FieldFix>,
}

/// The catalogs' name for a table, as SQL: `"Odd Schema"."t"` quoted where the server would.
pub fn quote_qualified(schema: &str, name: &str) -> String {
    format!("{}.{}", quote_ident(schema), quote_ident(name))
}

/// quote_ident: double quotes unless the name is lower-case letters, digits and underscores
/// not starting with a digit (keywords are quoted by the server too; a quoted plain name means
/// the same table).
fn quote_ident(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        && !s.as_bytes().first().is_some_and(u8::is_ascii_digit);
    if plain {
        String::from(s)
    } else {
        format!("\"{}\"", s.replace('"', "\"\""))
    }
}

fn ctid_list(ctids: &[Ctid], most: usize) -> String {
    let mut out: Vec<String> = ctids
        .iter()
        .take(most)
        .map(|c| format!("({},{})", c.block, c.offset))
        .collect();
    if ctids.len() > most {
        out.push(format!("and {} more", ctids.len().saturating_sub(most)));
    }
    out.join(", ")
}

/// Advice for block `blkno` (relation-wide) of a relation file. `table` is the table's name
/// as SQL when the catalogs gave it, `relfilenode` the file's, for the placeholder and the
/// query that finds the name.
/// `heap`: the heap-check context when a data directory gave it, so that tuples whose xmin
/// or xmax the server cannot look up are told from damaged ones. `older`: on a torn page,
/// its older write as the incident report finds it (from the table's indexes too: tuples
/// that are older versions of rows live elsewhere, which the page alone cannot tell).
#[allow(clippy::too_many_arguments)]
pub fn advise(
    page: &[u8],
    blkno: u32,
    opts: &DecodeOptions,
    table: Option<&str>,
    relfilenode: Option<u32>,
    heap: Option<&HeapContext>,
    columns: Option<&[crate::cluster::rows::Column]>,
    older: Option<&crate::am::TornWrite>,
) -> PageAdvice {
    let verdict = verify_page(page, blkno, opts.endian);
    let relfrozenxid = heap.map(|h| h.relfrozenxid).filter(|&x| x != 0);
    // The low 32 bits: a tuple's xids are those of the next xid's epoch or the one before.
    let next_xid = heap
        .filter(|h| h.next_known)
        .map(|h| (h.next_full_xid & 0xFFFF_FFFF) as u32);
    let hints = Hints {
        heap,
        ..Hints::default()
    };
    // A page one header field away from the server's is read through that field set back:
    // its line pointers and tuples are its own.
    let header_field = crate::page::header_field::one_field(page, blkno, opts.endian);
    let fixed = header_field.as_ref().map(|f| f.apply(page, opts.endian));
    let decoded = decode_page_with(fixed.as_deref().unwrap_or(page), blkno, opts, &hints);
    let heap = matches!(decoded.items, Items::Heap(_));
    let known = decoded.items_counted;
    let used: Vec<u16> = match &decoded.items {
        // A count is never taken from line pointers that pd_lower of noise counts.
        _ if !known => Vec::new(),
        Items::Heap(v) => v.iter().filter(|i| i.lp_flags == 1).map(|i| i.lp).collect(),
        // Index entries: every item the page lists.
        Items::Btree(v) => v.iter().map(|i| i.itemoffset).collect(),
        other => (1..=u16::try_from(other.len()).unwrap_or(u16::MAX)).collect(),
    };
    let tuples: Vec<Ctid> = used
        .iter()
        .map(|&offset| Ctid {
            block: blkno,
            offset,
        })
        .collect();
    let findings_on = |c: &Ctid| {
        let offset = c.offset;
        decoded
            .problems()
            .filter(move |s| s.item == Some(offset))
            .filter_map(|s| s.problem)
    };
    // A row the older write holds at another place reads wrong at its own: the server's
    // reads there are another row's bytes, so it is killed with the rest, and saved first.
    let (older_sectors, older_items, moved): (Vec<u32>, Vec<u16>, usize) = match older {
        // A header older than the tuples: every line pointer whose newer entry differs
        // reads another row's bytes, or none, at its own place; the rows the rebuilt array
        // finds are saved by it.
        Some(t) if heap && known && !t.rebuilt.is_empty() => {
            let rebuilt: Vec<(u16, u16, u8, u16)> = t
                .rebuilt
                .iter()
                .map(|i| (i.lp, i.lp_off, i.lp_flags, i.lp_len))
                .collect();
            let differ: Vec<u16> = crate::am::page_line_pointers(page, opts.endian)
                .iter()
                .filter(|id| id.flags == crate::page::fields::LP_NORMAL)
                .filter(|id| !rebuilt.contains(&(id.lp, id.off, id.flags, id.len)))
                .map(|id| id.lp)
                .collect();
            let found = rebuilt
                .iter()
                .filter(|i| i.2 == crate::page::fields::LP_NORMAL)
                .count();
            (t.sectors.clone(), differ, found)
        }
        Some(t) if heap && known && !t.sectors.is_empty() => (
            t.sectors.clone(),
            t.items
                .iter()
                .copied()
                .chain(t.moved.iter().map(|m| m.0))
                .collect(),
            t.moved.len(),
        ),
        _ => (Vec::new(), Vec::new(), 0),
    };
    // A heap-only tuple nothing leads to is sound bytes: its row's newest version.
    let unreached: Vec<Ctid> = tuples
        .iter()
        .copied()
        .filter(|c| !older_items.contains(&c.offset))
        .filter(|c| {
            let mut f = findings_on(c).peekable();
            f.peek().is_some() && f.all(|f| f == Finding::HeapRootIsHeapOnly)
        })
        .collect();
    // Tuples whose own bytes the decoder flags.
    let flagged: Vec<Ctid> = tuples
        .iter()
        .copied()
        .filter(|c| !unreached.contains(c) && findings_on(c).next().is_some())
        .collect();
    let damaged: Vec<Ctid> = tuples
        .iter()
        .copied()
        .filter(|c| flagged.contains(c) || older_items.contains(&c.offset))
        .collect();
    // Tuples whose only findings are transaction ids the server cannot look up: their data
    // is as written, so freezing them keeps the row.
    let freeze: Vec<Ctid> = flagged
        .iter()
        .copied()
        .filter(|c| !older_items.contains(&c.offset))
        .filter(|c| {
            decoded
                .problems()
                .filter(|s| s.item == Some(c.offset))
                .filter_map(|s| s.problem)
                .all(unreadable_xid)
        })
        .collect();
    let mut findings: Vec<Finding> = header_check(page, opts.endian).findings().collect();
    findings.extend(decoded.problems().filter_map(|s| s.problem));
    findings.extend(decoded.findings.iter().copied());
    findings.retain(|f| f.evidence() != Evidence::Note);
    findings.sort_unstable_by_key(|f| *f as u16);
    findings.dedup();
    // Each kind of finding in its whole message: the first line pointer it is on, with its
    // numbers, and how many more line pointers have it.
    let words: Vec<String> = findings
        .iter()
        .map(|&f| {
            let on: Vec<Option<u16>> = decoded
                .problems()
                .filter(|s| s.problem == Some(f))
                .map(|s| s.item)
                .collect();
            let first = on.first().copied().flatten();
            let message = decoded
                .item_finding(f, first)
                .message_at(blkno, table.unwrap_or("?"));
            match (first, on.len()) {
                (Some(lp), 1) => format!("{message} (line pointer {lp})"),
                (Some(lp), k) => format!(
                    "{message} (line pointer {lp}, and {} more)",
                    k.saturating_sub(1)
                ),
                (None, _) => message,
            }
        })
        .collect();

    // A header older than the tuples describes other bytes: the page's tuples are the ones
    // its rebuilt array finds, and those are what zeroing it loses.
    let rebuilt: Option<Vec<Ctid>> = older
        .filter(|t| heap && known && !t.rebuilt.is_empty())
        .map(|t| {
            t.rebuilt
                .iter()
                .filter(|i| i.lp_flags == crate::page::fields::LP_NORMAL)
                .map(|i| Ctid {
                    block: blkno,
                    offset: i.lp,
                })
                .collect()
        });
    let read_rebuilt = rebuilt.is_some();
    let header_tuples = tuples.clone();
    let tuples = rebuilt.unwrap_or(tuples);
    let what = if heap {
        ("tuple", "tuples")
    } else {
        ("entry", "entries")
    };
    let n = if known {
        plural(tuples.len(), what.0, what.1)
    } else {
        format!(
            "line pointers that are not a PostgreSQL page's (pd_lower counts {}), so how many {} it held is unknown from the page",
            decoded.items.len(),
            what.1
        )
    };
    let copy_of = crate::cluster::rows::copy_of_block(page, blkno, opts.endian);
    let zero_damaged_pages = match verdict.status {
        PageStatus::Ok | PageStatus::Zero => String::from(
            "zero_damaged_pages = on does nothing to this page: it passes the server's checks, so it is read as it is",
        ),
        _ => {
            let lost = if let Some(other) = copy_of {
                format!(
                    "the page holds block {other}'s rows, not this block's: block {other} keeps its own, and block {blkno}'s rows are already not here (the relation's indexes name them by the heap TIDs they hold for block {blkno}); restore block {blkno} from a backup or the WAL instead"
                )
            } else if !known {
                format!(
                    "whatever {} it held are lost, and how many is unknown from the page: its header and line pointers are not ones PostgreSQL writes (the relation's indexes can say, by the heap TIDs they hold for block {blkno})",
                    what.1
                )
            } else if tuples.is_empty() {
                String::from("the page holds no tuples, so nothing on it is lost")
            } else if heap {
                format!(
                    "its {n} are lost for good ({}) and indexes still point at them (REINDEX the table's indexes)",
                    ctid_list(&tuples, 12)
                )
            } else {
                format!("its {n} are lost and the index is no longer consistent: REINDEX it instead")
            };
            format!(
                "zero_damaged_pages = on zeroes this whole page in memory when the server reads it (WARNING: invalid page in block {blkno}; zeroing out page), and the zeroes reach disk at the page's next write: {lost}"
            )
        }
    };
    // The findings on tuples whose bytes are wrong, apart from the unreached heap-only ones.
    let wrong_words: Vec<&String> = findings
        .iter()
        .zip(&words)
        .filter(|(f, _)| **f != Finding::HeapRootIsHeapOnly)
        .map(|(_, w)| w)
        .collect();
    let mut parts: Vec<String> = Vec::new();
    if !wrong_words.is_empty() {
        let hit = if flagged.is_empty() {
            String::new()
        } else {
            format!(
                " (in {} {})",
                if flagged.len() == 1 { what.0 } else { what.1 },
                ctid_list(&flagged, 12)
            )
        };
        parts.push(format!(
            "it also meets bytes PostgreSQL never writes{hit}: {}; a query that reads them may get wrong values, fail with an error, or crash the backend (signal 11, and every session restarts): read them on a copy, never on the primary",
            wrong_words
                .iter()
                .map(|w| w.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    if older.is_some_and(|t| !t.rebuilt.is_empty()) {
        parts.push(format!(
            "its header and line pointers (sector 0) are an older write than its tuples (a torn write): {} of the header describe other bytes than the newer write's tuples; the newer write's line pointers, rebuilt from the tuples, find {} (pgpage repair --torn writes them)",
            plural(older_items.len(), "line pointer", "line pointers"),
            plural(moved, "tuple", "tuples"),
        ));
    } else if older.is_some_and(|t| t.noise) && !older_sectors.is_empty() {
        parts.push(format!(
            "{} lead into random bytes written over {} of the page (no write of it holds them): {} lost unless a good copy of the page has {} (pgpage repair --torn makes {} dead and keeps every other row)",
            plural(older_items.len(), "line pointer", "line pointers"),
            sector_words(&older_sectors),
            if older_items.len() == 1 { "its row is" } else { "their rows are" },
            if older_items.len() == 1 { "it" } else { "them" },
            if older_items.len() == 1 { "it" } else { "them" },
        ));
    } else if !older_sectors.is_empty() {
        // The moved rows are the rows themselves, at the place the older write kept them;
        // only the others are bytes that are not their line pointers' rows.
        let older = &older_items;
        let lost = older.len().saturating_sub(moved);
        let mut torn = format!(
            "{} point into the {} of an older write of the page (a torn write)",
            plural(older.len(), "line pointer", "line pointers"),
            sector_words(&older_sectors)
        );
        if moved > 0 {
            torn.push_str(&format!(
                ": {} of them {} intact elsewhere on the page, where the older write kept {} (pgpage repair --torn points {} at {})",
                plural(moved, "row", "rows"),
                if moved == 1 { "lies" } else { "lie" },
                if moved == 1 { "it" } else { "them" },
                if moved == 1 { "its line pointer" } else { "their line pointers" },
                if moved == 1 { "it" } else { "them" },
            ));
        }
        if lost > 0 {
            let which = if moved > 0 {
                format!(
                    "; the other {lost} {}",
                    if lost == 1 { "meets" } else { "meet" }
                )
            } else {
                String::from(": they meet")
            };
            torn.push_str(&format!(
                "{which} the older write's bytes (an older version of {}, or another row's tuple): {} lost unless a good copy of the page has {}",
                if lost == 1 { "its row" } else { "their rows" },
                if lost == 1 { "that row is" } else { "those rows are" },
                if lost == 1 { "it" } else { "them" },
            ));
        }
        parts.push(torn);
    }
    if !unreached.is_empty() {
        parts.push(format!(
            "{} ({}) nothing on the page leads to any more (verify_heapam's root-of-chain finding): their bytes are sound, their rows' newest versions, which a sequential scan returns and an index scan does not reach",
            plural(unreached.len(), "heap-only tuple", "heap-only tuples"),
            ctid_list(&unreached, 12)
        ));
    }
    let structure = if let Some(other) = copy_of {
        format!(
            "but the page holds block {other} (its checksum is valid for that block and its tuples' t_ctid name it): an index scan for a row of block {blkno} reaches block {other}'s row at the same line pointer, another row, and a sequential scan returns block {other}'s rows twice"
        )
    } else if parts.is_empty() {
        String::from(
            "the decoder finds nothing structurally wrong, so whatever changed is in values the server returns as they are, wrong but without an error",
        )
    } else {
        parts.join("; ")
    };
    // The server reads through the page's own line pointers, rebuilt or not.
    let seen = if read_rebuilt {
        plural(header_tuples.len(), "line pointer", "line pointers")
    } else {
        n.clone()
    };
    let header = |off| read_u16(page, off, opts.endian).unwrap_or(0);
    // PageIsVerified returns the page under ignore_checksum_failure only when its header is
    // sane: a checksum failure on an insane header stays an error.
    let sane = crate::page::verify::header_is_sane(page, opts.endian);
    let ignore_checksum_failure = match verdict.status {
        PageStatus::Mismatch if sane => format!(
            "ignore_checksum_failure = on lets the server read this page as it is (WARNING: page verification failed, calculated checksum {} but expected {}): it sees pd_lower {}, pd_upper {}, pd_special {} and {seen}; {structure}. The next write of the page stores a fresh checksum over the damaged bytes, after which no checksum shows the damage",
            verdict.computed.unwrap_or(0),
            verdict.stored,
            header(12),
            header(14),
            header(16),
        ),
        PageStatus::Mismatch | PageStatus::BadHeader | PageStatus::NewNotZero => format!(
            "ignore_checksum_failure = on does not help: the page's header breaks PageIsVerified's rules, which the setting does not skip (ERROR: invalid page in block), so only zero_damaged_pages or a good copy gets past it{}",
            match &header_field {
                Some(f) => format!(", or {} set back (pgpage repair --set)", f.field.name()),
                None => String::new(),
            }
        ),
        PageStatus::Ok | PageStatus::Zero => String::from(
            "ignore_checksum_failure = on does nothing to this page: its checksum matches",
        ),
    };
    let flagged_items: Vec<u16> = decoded.problems().filter_map(|s| s.item).collect();
    // A torn page's many changed bytes are no single flip: a candidate there is chance.
    let torn = findings.contains(&Finding::TornSectors) || !older_sectors.is_empty();
    let bit_flips = (verdict.status == PageStatus::Mismatch && sane && heap && !torn)
        .then(|| {
            crate::damage::flips::tell_with(
                page,
                blkno,
                opts.endian,
                &crate::damage::flips::Known {
                    columns,
                    relfrozenxid,
                    flagged: &flagged_items,
                    next_xid,
                    index: None,
                },
            )
        })
        .filter(|f| !f.candidates.is_empty());
    let surgery = Surgery {
        known,
        header_sane: sane,
        flips: bit_flips.as_ref().map_or(0, |f| f.candidates.len()),
        tuples: &header_tuples,
        damaged: &damaged,
        freeze: &freeze,
        unreached: &unreached,
        torn,
        noise: older.is_some_and(|t| t.noise),
        moved,
        copy_of,
        field: header_field.as_ref(),
    };
    let surgery_sql = heap.then(|| surgery_sql(&surgery, verdict.status, table, relfilenode));
    PageAdvice {
        status: verdict.status,
        kind: decoded.kind,
        tuples_known: known,
        tuples,
        damaged,
        unreached,
        torn_refused: older
            .filter(|t| heap && !t.sectors.is_empty())
            .and_then(|t| torn_rebuilt(page, opts.endian, t).err()),
        torn_rebuilt: read_rebuilt,
        noise: older.is_some_and(|t| t.noise),
        copy_of,
        torn_sectors: older_sectors,
        torn_moved: moved,
        freeze,
        findings,
        zero_damaged_pages,
        ignore_checksum_failure,
        bit_flips,
        surgery_sql,
        header_field,
    }
}

/// `sectors 9-15`: a run of sectors as its first and last.
fn sector_words(sectors: &[u32]) -> String {
    match (sectors.first(), sectors.last()) {
        (Some(a), Some(b)) if a != b => format!("sectors {a}-{b}"),
        (Some(a), _) => format!("sector {a}"),
        _ => String::from("no sector"),
    }
}

/// pg_surgery (PostgreSQL 14+) for the page's tuples: heap_force_kill for the damaged ones;
/// every tuple of the page commented out when none is known to be damaged, since the
/// checksum alone does not say which tuple changed.
/// verify_heapam's findings of an xmin, xmax or MultiXactId out of the cluster's or the
/// relation's bounds: the server cannot look the transaction up, the tuple's data is as
/// written.
fn unreadable_xid(f: Finding) -> bool {
    matches!(
        f,
        Finding::HeapXminInFuture
            | Finding::HeapXminBeforeOldest
            | Finding::HeapXminBeforeRelfrozenxid
            | Finding::HeapXmaxInFuture
            | Finding::HeapXmaxBeforeOldest
            | Finding::HeapXmaxBeforeRelfrozenxid
            | Finding::HeapMultiBeforeRelminmxid
            | Finding::HeapMultiBeforeOldest
            | Finding::HeapMultiInFuture
            | Finding::HeapUpdateXidInvalid
            | Finding::HeapUpdateXidInFuture
            | Finding::HeapUpdateXidBeforeOldest
            | Finding::HeapUpdateXidBeforeRelfrozenxid
    )
}

/// The tuples pg_surgery's SQL is about.
struct Surgery<'a> {
    /// The page's line pointers name its tuples (else no tuple is named).
    known: bool,
    /// PageIsVerified's header checks pass (ignore_checksum_failure can let the page in).
    header_sane: bool,
    /// How many single-bit flips make the stored checksum valid.
    flips: usize,
    tuples: &'a [Ctid],
    damaged: &'a [Ctid],
    freeze: &'a [Ctid],
    /// Heap-only tuples nothing leads to: their rows' newest versions.
    unreached: &'a [Ctid],
    /// Sectors of the page look like another version of it (a torn write).
    torn: bool,
    /// Random bytes written over part of the page, not another write of it.
    noise: bool,
    /// Of `damaged`, rows the older write holds at other places (`crate::am::torn_moved`).
    moved: usize,
    /// The page is this other block's copy.
    copy_of: Option<u32>,
    /// The page's one wrong header field, and the value to set it back to.
    field: Option<&'a crate::page::header_field::FieldFix>,
}

fn surgery_sql(
    s: &Surgery,
    status: PageStatus,
    table: Option<&str>,
    relfilenode: Option<u32>,
) -> String {
    let tuples = s.tuples;
    let kill: Vec<Ctid> = s
        .damaged
        .iter()
        .copied()
        .filter(|c| !s.freeze.contains(c))
        .collect();
    let mut out = String::from(
        "-- pg_surgery (PostgreSQL 14+) removes or freezes tuples without looking at them; it cannot be undone:\n-- copy the data directory first, and prefer a good copy of the page when there is one.\nCREATE EXTENSION IF NOT EXISTS pg_surgery;\n",
    );
    let table = match (table, relfilenode) {
        (Some(t), _) => String::from(t),
        (None, Some(r)) => {
            out.push_str(&format!(
                "-- TABLE NOT KNOWN: replace <table> by the table this file belongs to (its name is not in the files given):\n--   SELECT pg_filenode_relation(0, {r});   -- in the table's database; 0 is its default tablespace: a file under pg_tblspc/OID/ takes that OID\n"
            ));
            String::from("<table>")
        }
        (None, None) => {
            out.push_str(
                "-- TABLE NOT KNOWN: replace <table> by the table this file belongs to.\n",
            );
            String::from("<table>")
        }
    };
    if status == PageStatus::Mismatch && s.header_sane {
        out.push_str("-- The page fails its checksum: let this session read it (heap_force_* rewrites it with a new checksum).\nSET ignore_checksum_failure = on;\n");
    } else if let (true, Some(f)) = (status.is_problem(), s.field) {
        out.push_str(&format!(
            "-- The page's header fails PageIsVerified: the server reads no tuple of it, so pg_surgery cannot reach them.\n-- {} of it is wrong, the rest of the page its own: pgpage repair --set {}={} lets the server read it with every tuple{}.\n",
            f.field.name(),
            f.field.name(),
            f.value,
            if f.confirmed {
                " (the stored checksum verifies with that value)"
            } else {
                " (the line pointers' candidate: no checksum confirms it)"
            }
        ));
    } else if status.is_problem() {
        out.push_str("-- The page's header fails PageIsVerified: the server reads no tuple of it, so pg_surgery cannot reach them;\n-- zero_damaged_pages (all tuples lost) or a good copy are the ways past it.\n");
    }
    let array = |ctids: &[Ctid]| {
        let list: Vec<String> = ctids
            .iter()
            .map(|c| format!("'({},{})'", c.block, c.offset))
            .collect();
        format!("ARRAY[{}]::tid[]", list.join(", "))
    };
    let lit = if table == "<table>" {
        String::from("'<table>'")
    } else {
        format!("'{}'", table.replace('\'', "''"))
    };
    if let Some(other) = s.copy_of {
        out.push_str(&format!(
            "-- This page is block {other}'s copy: its tuples are block {other}'s rows, and block {other} has them too.\n-- pg_surgery cannot bring this block's own rows back: restore the block from a backup, or rebuild it\n-- from the WAL (pgpage recover), then REINDEX. Until then, to stop the server returning block {other}'s rows twice:\n-- SELECT heap_force_kill({lit}::regclass, {});\n",
            array(tuples)
        ));
        return out;
    }
    if !s.freeze.is_empty() {
        out.push_str(&format!(
            "-- {} whose xmin or xmax the server cannot look up (\"could not access status of transaction\",\n-- \"found xmin from before relfrozenxid\"), their data intact: heap_force_freeze marks each frozen\n-- (xmin FrozenTransactionId, xmax invalid), so the row is visible as written, even one that was deleted\n-- or whose inserter aborted; check the rows and delete the ones that should not be there:\nSELECT heap_force_freeze({lit}::regclass, {});\n",
            plural(s.freeze.len(), "tuple", "tuples"),
            array(s.freeze)
        ));
    }
    if s.moved > 0 {
        out.push_str(&format!(
            "-- {} of this page {} not at {} line {}' places but elsewhere on the page (copies pruning's
-- compaction left, in the free space or in the older sectors): the server reads each line pointer at its own
-- place, so it returns other bytes there. pgpage repair --torn rebuilds the page as they read, which is better than this SQL; else
-- save them with pgpage rows --include-damaged (it reads them where they are) before the kill below, and load
-- them back with COPY FROM afterwards.
",
            plural(s.moved, "row", "rows"),
            if s.moved == 1 { "is" } else { "are" },
            if s.moved == 1 { "its" } else { "their" },
            if s.moved == 1 { "pointer" } else { "pointers" },
        ));
    }
    if !kill.is_empty() && s.torn && s.moved > 0 {
        let stale = kill.len().saturating_sub(s.moved);
        let rest = if stale == 0 {
            String::new()
        } else {
            format!(
                ", and the {} lying in the older sectors as that write left {} (each an older version of a row,\n-- or a row whose current version the tear took: take those rows from a backup, a replica or the application)",
                plural(stale, "tuple", "tuples"),
                if stale == 1 { "it" } else { "them" }
            )
        };
        out.push_str(&format!(
            "-- Then kill the line pointers of the saved rows, which read the torn write's other bytes in place{rest}:\nSELECT heap_force_kill({lit}::regclass, {});\n",
            array(&kill)
        ));
    } else if !kill.is_empty() && s.noise {
        out.push_str(&format!(
            "-- Random bytes were written over part of this page: the {} they cover hold no row, whatever their bytes
-- read as. Restore the page from a good copy first when there is one (pgpage repair --from); otherwise kill them,
-- and take the rows that were there from a backup, a replica or the application:
SELECT heap_force_kill({lit}::regclass, {});
",
            plural(kill.len(), "tuple", "tuples"),
            array(&kill)
        ));
    } else if !kill.is_empty() && s.torn {
        // A tuple in the other version's sectors can read as a whole, sound row: the version
        // of that row before the page's last write, while its current version was in bytes
        // the tear lost. Left visible, it is a stale value or a second row with the same key.
        out.push_str(&format!(
            "-- Sectors of this page are an older write of it (a torn write): the {} lying in them are that write's\n-- bytes, not the tuples the line pointers describe. One that reads as a sound row may be an older version of a row\n-- (a row updated since reads there as never updated): left visible it shows stale values or a second row with the\n-- same key. Restore the page from a good copy first when there is one (pgpage repair --from); otherwise kill them\n-- all, and take the rows that were there from a backup, a replica or the application:\nSELECT heap_force_kill({lit}::regclass, {});\n",
            plural(kill.len(), "tuple", "tuples"),
            array(&kill)
        ));
    } else if !kill.is_empty() {
        out.push_str(&format!(
            "-- {} whose bytes are damaged (cannot be saved): heap_force_kill marks each line pointer dead,\n-- so the row is gone (its index entries go at the next VACUUM):\nSELECT heap_force_kill({lit}::regclass, {});\n",
            plural(kill.len(), "tuple", "tuples"),
            array(&kill)
        ));
        out.push_str(&format!(
            "-- Or, to keep them visible when only their transaction fields are wrong (\"could not access status of transaction\"):\n-- SELECT heap_force_freeze({lit}::regclass, {});\n",
            array(&kill)
        ));
    } else if !s.freeze.is_empty() || !s.unreached.is_empty() {
        // The frozen or unreached tuples are all the page's known problems.
    } else if !s.known {
        out.push_str("-- The page's header and line pointers are not ones PostgreSQL writes: no tuple of it can be named
-- for pg_surgery. A good copy of the page, or the rows the indexes still point at, are what is left.
");
    } else if tuples.is_empty() {
        out.push_str("-- No tuple on this page: nothing for pg_surgery to do.\n");
    } else if s.field.is_some() {
        out.push_str("-- No tuple is damaged, only the header field above: nothing for pg_surgery to do once it is set back.\n");
    } else if s.flips > 0 {
        out.push_str(&format!(
            "-- No tuple's structure is damaged, but {} the stored checksum valid (the candidates\n-- listed with this advice): flipping the right bit back restores the page exactly,\n-- which pg_surgery never does. Only if none of them is the damage and the page cannot be trusted, its {}:\n-- SELECT heap_force_kill({lit}::regclass, {});\n",
            if s.flips == 1 { String::from("1 single-bit flip makes") } else { format!("{} single-bit flips each make", s.flips) },
            plural(tuples.len(), "tuple", "tuples"),
            array(tuples)
        ));
    } else {
        out.push_str(&format!(
            "-- No tuple is known to be damaged (the checksum says the page changed, not where). Only if the page cannot be trusted,\n-- its {}:\n-- SELECT heap_force_kill({lit}::regclass, {});\n",
            plural(tuples.len(), "tuple", "tuples"),
            array(tuples)
        ));
    }
    if !s.unreached.is_empty() {
        let list = array(s.unreached);
        out.push_str(&format!(
            "-- {} nothing on the page leads to any more (verify_heapam: \"tuple is root of chain but is marked as\n-- heap-only tuple\"): their bytes are sound, each the newest version of a row whose chain start is wrong{}.\n-- A sequential scan returns them; an index scan does not reach them. Do not kill them as damaged: their rows\n-- are nowhere else. ",
            plural(s.unreached.len(), "heap-only tuple", "heap-only tuples"),
            if s.torn {
                " (it lies in the older sectors)"
            } else {
                " (on a page that fails its checksum, a tuple from an older write of the page: pgpage report, which reads the\n-- table's indexes, names the older sectors)"
            }
        ));
        if s.torn {
            out.push_str(&format!(
                "To make them reachable again, save them, kill them and insert them anew, in one session:\nCREATE TABLE pgpage_saved AS SELECT * FROM {} WHERE ctid = ANY ({list});\nSELECT heap_force_kill({lit}::regclass, {list});\nINSERT INTO {} SELECT * FROM pgpage_saved;\nDROP TABLE pgpage_saved;\n",
                table, table
            ));
        } else {
            out.push_str("Find the older tuples first; until then leave the page as it is.\n");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::checksum::scalar;

    fn fixture(name: &str) -> Vec<u8> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/");
        std::fs::read(format!("{dir}{name}/page.bin")).unwrap()
    }

    fn heap_fixture() -> Vec<u8> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/");
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.starts_with("heap"))
            .collect();
        names.sort();
        fixture(&names[0])
    }

    /// The checksum written is the scalar body's over the page with pd_checksum zeroed, in
    /// the byte order asked: computed here independently of set_checksum's path.
    #[test]
    fn set_checksum_writes_the_scalar_sum_in_the_file_byte_order() {
        for endian in [Endian::Little, Endian::Big] {
            let mut page = heap_fixture();
            page[14] = 0x10; // pd_upper not 0 in either byte order
            let blkno = 131_072 * 2 + 5;
            let want = crate::page::checksum::finish(scalar::checksum_fold(&page, endian), blkno);
            let got = set_checksum(&mut page, blkno, endian).unwrap();
            assert_eq!(got, want);
            let raw = [page[8], page[9]];
            let stored = match endian {
                Endian::Little => u16::from_le_bytes(raw),
                Endian::Big => u16::from_be_bytes(raw),
            };
            assert_eq!(stored, want);
        }
        let mut zero = alloc::vec![0u8; 8192];
        assert_eq!(set_checksum(&mut zero, 1, Endian::Little), None);
        assert!(zero.iter().all(|&b| b == 0));
    }

    #[test]
    fn a_good_copy_or_the_right_flip_repairs_and_the_rest_is_refused() {
        let good = heap_fixture();
        let blkno = 3;
        let mut sealed = good.clone();
        set_checksum(&mut sealed, blkno, Endian::Little);
        let mut bad = sealed.clone();
        bad[6000] ^= 0x04;
        let r = repair_page(&bad, PageSource::Page(&sealed), blkno, Endian::Little).unwrap();
        assert_eq!(r.page, sealed);
        let r = repair_page(
            &bad,
            PageSource::Flip(PageBit {
                offset: 6000,
                bit: 2,
            }),
            blkno,
            Endian::Little,
        )
        .unwrap();
        assert_eq!(r.page, sealed);
        assert_eq!(r.flip_was_candidate, Some(true));
        let r = repair_page(
            &bad,
            PageSource::Flip(PageBit {
                offset: 6001,
                bit: 0,
            }),
            blkno,
            Endian::Little,
        )
        .unwrap();
        assert_eq!(r.flip_was_candidate, Some(false));
        assert_eq!(
            verify_page(&r.page, blkno, Endian::Little).status,
            PageStatus::Ok
        );
        assert!(matches!(
            repair_page(
                &bad,
                PageSource::Page(&sealed[..4096]),
                blkno,
                Endian::Little
            ),
            Err(RepairRefusal::WrongSize { .. })
        ));
        assert!(matches!(
            repair_page(
                &bad,
                PageSource::Flip(PageBit {
                    offset: 9000,
                    bit: 0
                }),
                blkno,
                Endian::Little
            ),
            Err(RepairRefusal::FlipOutsidePage { .. })
        ));
        let mut broken = sealed.clone();
        broken[12..14].copy_from_slice(&9000u16.to_le_bytes()); // pd_lower past pd_upper
        let e = repair_page(&bad, PageSource::Page(&broken), blkno, Endian::Little).unwrap_err();
        assert!(matches!(
            e,
            RepairRefusal::NotAccepted {
                status: PageStatus::BadHeader,
                ..
            }
        ));
        assert!(alloc::format!("{e}").contains("bad_header"));
    }

    /// Random bytes where a page was: pd_lower of noise counts thousands of line pointers,
    /// so no count and no tuple is taken from them, and pg_surgery gets no list to kill.
    #[test]
    fn a_noise_page_has_no_tuple_count() {
        // xorshift64: bytes no PostgreSQL wrote.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let page: Vec<u8> = (0..8192)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect();
        let opts = DecodeOptions {
            file_kind: Some(PageKind::Heap),
            ..DecodeOptions::default()
        };
        let decoded = decode_page_with(&page, 128, &opts, &Hints::default());
        assert!(!decoded.items_counted);
        assert!(decoded.items.len() > 100, "pd_lower of noise counts many");
        let a = advise(&page, 128, &opts, Some("t"), None, None, None, None);
        assert!(!a.tuples_known);
        assert!(a.tuples.is_empty() && a.damaged.is_empty() && a.freeze.is_empty());
        assert!(a
            .zero_damaged_pages
            .contains("how many is unknown from the page"));
        assert!(!a.zero_damaged_pages.contains("lost for good"));
        let sql = a.surgery_sql.unwrap();
        assert!(!sql.contains("heap_force_kill"), "{sql}");
        // The same page's own header, once sane, counts again.
        let good = heap_fixture();
        assert!(decode_page_with(&good, 0, &opts, &Hints::default()).items_counted);
    }

    #[test]
    fn advice_names_the_tuples_and_the_table() {
        let mut page = heap_fixture();
        set_checksum(&mut page, 0, Endian::Little);
        page[7000] ^= 1;
        let opts = DecodeOptions::default();
        let a = advise(&page, 0, &opts, None, Some(16385), None, None, None);
        assert_eq!(a.status, PageStatus::Mismatch);
        assert!(!a.tuples.is_empty());
        assert!(a
            .zero_damaged_pages
            .contains(&alloc::format!("its {} tuple", a.tuples.len())));
        assert!(a.ignore_checksum_failure.contains("as it is"));
        let sql = a.surgery_sql.unwrap();
        assert!(sql.contains("TABLE NOT KNOWN") && sql.contains("pg_filenode_relation(0, 16385)"));
        assert!(sql.contains("SET ignore_checksum_failure = on"));
        let named = advise(
            &page,
            0,
            &opts,
            Some("public.\"T\""),
            Some(16385),
            None,
            None,
            None,
        );
        assert!(named
            .surgery_sql
            .unwrap()
            .contains("'public.\"T\"'::regclass"));
        assert_eq!(quote_qualified("Odd Schema", "t"), "\"Odd Schema\".t");
        assert_eq!(quote_qualified("public", "2x"), "public.\"2x\"");
        // A line pointer sent past the page: its tuple is the damaged one.
        let mut lp = page.clone();
        lp[24..28].copy_from_slice(&(8190u32 | 1 << 15 | 60 << 17).to_le_bytes());
        let a = advise(&lp, 0, &opts, Some("t"), None, None, None, None);
        assert_eq!(
            a.damaged,
            [Ctid {
                block: 0,
                offset: 1
            }]
        );
        assert!(a
            .surgery_sql
            .unwrap()
            .contains("heap_force_kill('t'::regclass, ARRAY['(0,1)']::tid[])"));
    }
}
