//! The bit-flip candidates of a page told for a person, wherever the page is discussed (the
//! incident report, the repair kit, the page's Markdown): each flip's tuple, column and
//! values as stored and flipped back, ranked by what PostgreSQL's own rules say of the page
//! and the value each flip gives, with the reason for its place. A rank is evidence, not
//! proof: any candidate may be the chance match the odds speak of.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

use crate::am::decoded::DecodeOptions;
use crate::cluster::rows::{Column, RowFormat, RowWriter};
use crate::damage::bitflip::{localise, odds_sentence, PageBit};
use crate::findings::Finding;
use crate::page::geometry::Endian;
use crate::tuple::heap_items;
use crate::tuple::toast::ValueProblem;

/// One candidate flip, told.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ToldFlip {
    /// 1 = most likely by the evidence below.
    pub rank: usize,
    /// Byte within the page.
    pub byte: u32,
    pub bit: u8,
    /// The field the byte belongs to.
    pub field: String,
    /// The page is structurally sound after the flip, and where the table's columns are
    /// known its tuple still decodes and keeps its type's rules: false for a flip PostgreSQL
    /// could not have written (`why` says which rule it breaks).
    pub structurally_valid: bool,
    /// In tuple data: the line pointer, the column, the value as stored and flipped back
    /// (control characters escaped, see [`visible`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub item: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub column: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub stored: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub flipped: Option<String>,
    /// Why the candidate has its rank, in words.
    pub why: String,
    /// Sound to the decoder, but the flipped-back page breaks a rule PostgreSQL keeps (`why`
    /// says which): a chance match to name, never to offer.
    #[serde(skip)]
    pub breaks_rule: bool,
}

/// A page's candidates, told and ranked.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToldFlips {
    /// How many flips match and how many are expected by chance.
    pub odds: String,
    pub candidates: Vec<ToldFlip>,
}

impl ToldFlips {
    /// The candidate that flips `bit`, if any.
    pub fn find(&self, bit: PageBit) -> Option<&ToldFlip> {
        self.candidates
            .iter()
            .find(|c| c.byte == bit.offset && c.bit == bit.bit)
    }

    /// What to say of a chosen flip: its rank among the candidates, or that it is none.
    pub fn reminder(&self, bit: PageBit) -> String {
        let n = self.candidates.len();
        match self.find(bit) {
            Some(_) if n == 1 => format!(
                "flipping bit {} of byte {} is the only single-bit flip that makes the stored checksum valid; still evidence, not proof ({})",
                bit.bit, bit.offset, self.odds
            ),
            Some(c) => format!(
                "flipping bit {} of byte {} is 1 of {n} single-bit flips that make the stored checksum valid, ranked {} of {n} ({}); only one of them can be the damage, and a rank is evidence, not proof",
                bit.bit, bit.offset, c.rank, c.why
            ),
            None => format!(
                "flipping bit {} of byte {} is not a bit-flip candidate: it does not make the stored checksum valid{}",
                bit.bit,
                bit.offset,
                match n {
                    0 => String::from(" and no single-bit flip does"),
                    1 => String::from(" (1 flip does: see repair without a source)"),
                    n => format!(" ({n} flips do: see repair without a source)"),
                }
            ),
        }
    }
}

/// A value for a person to read: control characters (C0, DEL, C1) escaped as `\xNN` (or
/// `\u{NNNN}`), so that a flipped byte shows instead of moving the cursor or vanishing. Not
/// for COPY output, whose escaping is the server's.
pub fn visible(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() {
            let n = u32::from(c);
            if n <= 0xFF {
                out.push_str(&format!("\\x{n:02X}"));
            } else {
                out.push_str(&format!("\\u{{{n:04X}}}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// How a candidate's value reads once flipped back, for the ranking.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Tier {
    /// Flipped back, a row's key is the one the index holds for it, which it is not as
    /// stored.
    Indexed,
    /// The flip makes a page the decoder finds broken structurally sound.
    Heals,
    /// The flip lies in an item amcheck's checks find wrong.
    Flagged,
    /// Nothing speaks against it.
    Plain,
    /// Flipped back, free space that is all zeros would hold one set bit.
    NoisesFreeSpace,
    /// Flipped back, a byte of a row's data that no value covers (alignment padding), which
    /// PostgreSQL writes as zeros, would hold a set bit.
    NoisesPadding,
    /// The flipped-back value has more control characters than the stored one.
    AddsControl,
    /// As stored, a row's key is the one the index holds for it; flipped back, it is not.
    Unindexed,
    /// The flipped-back tuple no longer decodes, or its value breaks its type's rules.
    Undecodable,
    /// The page is still (or newly) structurally broken after the flip.
    Broken,
}

fn controls(s: &str) -> usize {
    s.chars()
        .filter(|c| c.is_control() || *c == char::REPLACEMENT_CHARACTER)
        .count()
}

/// The longest prefix `v` shares with any of `others`, in characters.
fn likeness(v: &str, others: &[&str]) -> usize {
    others
        .iter()
        .map(|o| v.chars().zip(o.chars()).take_while(|(a, b)| a == b).count())
        .max()
        .unwrap_or(0)
}

/// A common beginning in words: "its first 3 characters".
fn shared(n: usize) -> String {
    match n {
        0 => String::from("no beginning"),
        1 => String::from("its first character"),
        n => format!("its first {n} characters"),
    }
}

/// Values longer than this are shown as their change in context.
const SHORT_VALUE: usize = 48;
/// Characters of context on each side of a change.
const CONTEXT: usize = 20;

/// Where an escape of [`visible`] (`\xNN`, `\u{NNNN}`) starting at `at` ends, if one does.
fn escape_end(v: &[char], at: usize) -> Option<usize> {
    match (v.get(at), v.get(at.checked_add(1)?)) {
        (Some('\\'), Some('x')) => Some(at.saturating_add(4)),
        (Some('\\'), Some('u')) => v
            .get(at..)?
            .iter()
            .position(|c| *c == '}')
            .map(|p| at.saturating_add(p).saturating_add(1)),
        _ => None,
    }
}

/// The change from `stored` to `flipped` (both as [`visible`] gives them) in context:
/// `…xxxx[y→x]xxxx…`, about [`CONTEXT`] characters each side; None when both values are
/// short enough to show whole. An escape is never cut in two.
pub fn change(stored: &str, flipped: &str) -> Option<String> {
    let a: Vec<char> = stored.chars().collect();
    let b: Vec<char> = flipped.chars().collect();
    if a.len() <= SHORT_VALUE && b.len() <= SHORT_VALUE {
        return None;
    }
    let mut start = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let most = a.len().min(b.len()).saturating_sub(start);
    let mut same_end = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(most)
        .take_while(|(x, y)| x == y)
        .count();
    // Widen the change to whole escapes on both sides.
    for v in [&a, &b] {
        let from = start.saturating_sub(8);
        if let Some(q) = (from..start).find(|q| escape_end(v, *q).is_some_and(|e| e > start)) {
            start = q;
        }
    }
    for v in [&a, &b] {
        let end = v.len().saturating_sub(same_end);
        let from = end.saturating_sub(8).max(start);
        if let Some(e) = (from..end)
            .filter_map(|q| escape_end(v, q))
            .filter(|e| *e > end && *e <= v.len())
            .max()
        {
            same_end = same_end.saturating_sub(e.saturating_sub(end));
        }
    }
    let text = |v: &[char], from: usize, to: usize| -> String {
        v.get(from..to).unwrap_or_default().iter().collect()
    };
    let before_from = start.saturating_sub(CONTEXT);
    let a_end = a.len().saturating_sub(same_end);
    let b_end = b.len().saturating_sub(same_end);
    let after_to = a_end.saturating_add(CONTEXT).min(a.len());
    Some(format!(
        "{}{}[{}→{}]{}{}",
        if before_from > 0 { "…" } else { "" },
        text(&a, before_from, start),
        text(&a, start, a_end),
        text(&b, start, b_end),
        text(&a, a_end, after_to),
        if after_to < a.len() { "…" } else { "" }
    ))
}

/// A candidate's column and values in words: both values whole when short, else the change
/// in context; `q` quotes a value (`"`, a backquote in Markdown, or nothing).
pub fn values_text(column: &str, stored: &str, flipped: &str, q: &str) -> String {
    match change(stored, flipped) {
        Some(c) => format!("column {column}, stored→flipped back: {q}{c}{q}"),
        None => format!("column {column}: stored {q}{stored}{q}, flipped back {q}{flipped}{q}"),
    }
}

/// What flipping a candidate back restores, in words, for a repair command's comment.
pub fn restores_text(column: &str, stored: &str, flipped: &str) -> String {
    match change(stored, flipped) {
        Some(c) => format!("restores {column}, stored→flipped back: \"{c}\""),
        None => format!("restores {column} = \"{flipped}\""),
    }
}

/// Every single-bit flip that makes `page`'s stored checksum valid (block `blkno`,
/// relation-wide), told with its values when `columns` (the table's, from its catalogs) are
/// known, and ranked. Empty when the checksum matches.
pub fn tell(page: &[u8], blkno: u32, endian: Endian, columns: Option<&[Column]>) -> ToldFlips {
    tell_with(
        page,
        blkno,
        endian,
        &Known {
            columns,
            ..Known::default()
        },
    )
}

/// What the caller knows of the page's relation beyond the page, for the ranking.
#[derive(Clone, Copy, Debug, Default)]
pub struct Known<'a> {
    /// The table's columns: the values a flip in tuple data changes.
    pub columns: Option<&'a [Column]>,
    /// pg_class.relfrozenxid: no xid in the table precedes it.
    pub relfrozenxid: Option<u32>,
    /// The items (line pointers) amcheck's checks of the page find wrong.
    pub flagged: &'a [u16],
    /// pg_control's next xid of a cluster shut down cleanly: every xid in the table
    /// precedes it.
    pub next_xid: Option<u32>,
    /// What a B-tree index of the table holds for the page's line pointers: the index's name,
    /// where its key columns stand among `columns`, and each (line pointer, key) entry.
    pub index: Option<IndexKeys<'a>>,
}

/// A unique B-tree index's entries into one heap page (`Known::index`).
#[derive(Clone, Copy, Debug)]
pub struct IndexKeys<'a> {
    pub name: &'a str,
    pub positions: &'a [usize],
    pub entries: &'a [(u16, Vec<Option<String>>)],
}

/// Whether `offset` lies in the page's free space (between pd_lower and pd_upper) and every
/// other byte there is zero: Some(stored byte is zero), None otherwise.
fn in_zero_free_space(page: &[u8], offset: u32, endian: Endian) -> Option<bool> {
    use crate::page::fields::page_header_data::{PD_LOWER, PD_UPPER};
    let r = crate::page::reader::Reader { b: page, e: endian };
    let lower = usize::try_from(r.field(0, &PD_LOWER)?).ok()?;
    let upper = usize::try_from(r.field(0, &PD_UPPER)?).ok()?;
    let at = usize::try_from(offset).ok()?;
    if !(lower..upper).contains(&at) {
        return None;
    }
    let free = page.get(lower..upper)?;
    let others_zero = free
        .iter()
        .enumerate()
        .all(|(i, &b)| i.saturating_add(lower) == at || b == 0);
    others_zero.then(|| page.get(at).is_some_and(|&b| b == 0))
}

/// A flip in a tuple's t_xmin or t_xmax, for the xid rules: the field's name and its value
/// as stored and flipped back; None for another field, a frozen xmin or a multixact xmax
/// (neither is an xid the rules judge).
fn xid_flip(
    page: &[u8],
    tuple_off: usize,
    offset: u32,
    bit: u8,
    endian: Endian,
) -> Option<(&'static str, u32, u32)> {
    use crate::page::fields::{HEAP_XMAX_IS_MULTI, HEAP_XMIN_FROZEN};
    use crate::page::geometry::{read_u16, read_u32};
    let at = usize::try_from(offset).ok()?.checked_sub(tuple_off)?;
    let (name, field) = match at {
        0..=3 => ("xmin", 0usize),
        4..=7 => ("xmax", 4usize),
        _ => return None,
    };
    let infomask = read_u16(page, tuple_off.checked_add(20)?, endian)?;
    if (field == 0 && infomask & HEAP_XMIN_FROZEN == HEAP_XMIN_FROZEN)
        || (field == 4 && infomask & HEAP_XMAX_IS_MULTI != 0)
    {
        return None;
    }
    let stored = read_u32(page, tuple_off.checked_add(field)?, endian)?;
    let flipped_page = PageBit { offset, bit }.apply(page);
    let flipped = read_u32(&flipped_page, tuple_off.checked_add(field)?, endian)?;
    Some((name, stored, flipped))
}

/// What VACUUM's freezing (heap_prepare_freeze_tuple) says of a flip in a tuple's t_xmin or
/// t_xmax, given the table's relfrozenxid: no xid in the table precedes it (VACUUM errors
/// "found xmin/xmax %u from before relfrozenxid %u" on one that does), whatever the hint
/// bits say. Some((true, why)): the stored value breaks the rule and the flipped one keeps
/// it; Some((false, why)): the other way round.
fn xid_rule(
    page: &[u8],
    tuple_off: usize,
    offset: u32,
    bit: u8,
    endian: Endian,
    relfrozenxid: u32,
) -> Option<(bool, String)> {
    let (name, stored, flipped) = xid_flip(page, tuple_off, offset, bit, endian)?;
    // TransactionIdPrecedes for normal xids: modulo-2^32 comparison.
    let precedes = |x: u32| {
        x >= crate::am::heap::layout::FIRST_NORMAL_TRANSACTION_ID
            && i32::from_ne_bytes(x.wrapping_sub(relfrozenxid).to_ne_bytes()) < 0
    };
    match (precedes(stored), precedes(flipped)) {
        (true, false) => Some((
            true,
            format!(
                "as stored, t_{name} {stored} precedes the table's relfrozenxid {relfrozenxid}, which PostgreSQL never leaves in a table (VACUUM stops with \"found {name} {stored} from before relfrozenxid {relfrozenxid}\"); flipped back, it is {flipped}"
            ),
        )),
        (false, true) => Some((
            false,
            format!(
                "flipped back, t_{name} {flipped} would precede the table's relfrozenxid {relfrozenxid}, which PostgreSQL never leaves in a table (VACUUM would stop with \"found {name} {flipped} from before relfrozenxid {relfrozenxid}\")"
            ),
        )),
        _ => None,
    }
}

/// What the cluster's next xid says of a flip in a tuple's t_xmin or t_xmax: every xid a
/// table holds was assigned, so it precedes the next xid of a cluster shut down cleanly
/// (amcheck: "xmin %u equals or exceeds next valid transaction ID"). Some((true, why)): the
/// stored value breaks the rule and the flipped one keeps it; Some((false, why)): the other
/// way round.
fn next_xid_rule(
    page: &[u8],
    tuple_off: usize,
    offset: u32,
    bit: u8,
    endian: Endian,
    next_xid: u32,
) -> Option<(bool, String)> {
    let (name, stored, flipped) = xid_flip(page, tuple_off, offset, bit, endian)?;
    // A normal xid not preceding the next one (modulo 2^32): never assigned.
    let unassigned = |x: u32| {
        x >= crate::am::heap::layout::FIRST_NORMAL_TRANSACTION_ID
            && i32::from_ne_bytes(x.wrapping_sub(next_xid).to_ne_bytes()) >= 0
    };
    match (unassigned(stored), unassigned(flipped)) {
        (true, false) => Some((
            true,
            format!(
                "as stored, t_{name} {stored} is not before the cluster's next transaction ID {next_xid} (pg_control, shut down cleanly): no transaction had that ID; flipped back, it is {flipped}"
            ),
        )),
        (false, true) => Some((
            false,
            format!(
                "flipped back, t_{name} {flipped} would not be before the cluster's next transaction ID {next_xid} (pg_control, shut down cleanly): no transaction had that ID (amcheck: \"{name} {flipped} equals or exceeds next valid transaction ID\")"
            ),
        )),
        _ => None,
    }
}

/// A key as the report writes it: one column's value alone, several in parentheses.
fn key_words(key: &[Option<String>]) -> String {
    let v: Vec<String> = key
        .iter()
        .map(|k| k.as_deref().map_or_else(|| String::from("NULL"), visible))
        .collect();
    if v.len() == 1 {
        v.concat()
    } else {
        format!("({})", v.join(", "))
    }
}

/// What the index says of a flip in a tuple: its entry for the tuple's line pointer holds
/// the key the row had when it was inserted or last updated. Some((true, why)): flipped back,
/// the tuple's key is that one and as stored it is not; Some((false, why)): the other way.
fn index_rule(
    page: &[u8],
    item: (usize, usize, u16),
    blkno: u32,
    c: PageBit,
    writer: &RowWriter,
    index: &IndexKeys<'_>,
) -> Option<(bool, String)> {
    let (off, len, lp) = item;
    let keys: Vec<&Vec<Option<String>>> = index
        .entries
        .iter()
        .filter(|(l, _)| *l == lp)
        .map(|(_, k)| k)
        .collect();
    if keys.is_empty() {
        return None;
    }
    let end = off.checked_add(len)?;
    let stored = writer.column_texts(page.get(off..end)?, index.positions)?;
    let flipped_page = c.apply(page);
    let flipped = writer.column_texts(flipped_page.get(off..end)?, index.positions)?;
    if stored == flipped {
        return None;
    }
    let (has_stored, has_flipped) = (keys.contains(&&stored), keys.contains(&&flipped));
    match (has_stored, has_flipped) {
        (false, true) => Some((
            true,
            format!(
                "flipped back, the row's key is {}, the key {} holds for ({blkno},{lp}); as stored it is {}, which the index does not hold there",
                key_words(&flipped),
                index.name,
                key_words(&stored)
            ),
        )),
        (true, false) => Some((
            false,
            format!(
                "as stored, the row's key is {}, the key {} holds for ({blkno},{lp}); flipped back it would be {}",
                key_words(&stored),
                index.name,
                key_words(&flipped)
            ),
        )),
        _ => None,
    }
}

/// What heap_insert's rule for t_ctid says of a flip in it: a tuple no update or lock has
/// touched (t_xmax 0) names its own TID, which only an update (setting t_xmax) changes. A
/// speculative insertion's token (SpecTokenOffsetNumber) stands there until it completes.
/// Some((true, why)): the stored t_ctid breaks the rule and the flipped one keeps it;
/// Some((false, why)): the other way round.
fn ctid_rule(
    page: &[u8],
    item: (usize, u16),
    absolute_block: u32,
    offset: u32,
    bit: u8,
    endian: Endian,
) -> Option<(bool, String)> {
    use crate::page::geometry::read_u32;
    let (tuple_off, lp) = item;
    let at = usize::try_from(offset).ok()?.checked_sub(tuple_off)?;
    if !(12..18).contains(&at) {
        return None;
    }
    if read_u32(page, tuple_off.checked_add(4)?, endian)? != 0 {
        return None;
    }
    let tid = |p: &[u8]| -> Option<(u32, u16)> {
        let t = crate::page::reader::Reader { b: p, e: endian }.tid(tuple_off.checked_add(12)?)?;
        Some((t.block, t.offset))
    };
    let stored = tid(page)?;
    let flipped = tid(&PageBit { offset, bit }.apply(page))?;
    const SPEC_TOKEN_OFFSET_NUMBER: u16 = 0xfffe;
    if stored.1 == SPEC_TOKEN_OFFSET_NUMBER || flipped.1 == SPEC_TOKEN_OFFSET_NUMBER {
        return None;
    }
    let own = |t: (u32, u16)| t == (absolute_block, lp);
    let show = |t: (u32, u16)| format!("({},{})", t.0, t.1);
    match (own(stored), own(flipped)) {
        (false, true) => Some((
            true,
            format!(
                "as stored, t_ctid {} is not the tuple's own TID although its t_xmax is 0 (heap_insert sets t_ctid to the tuple's own TID; only an update, which sets t_xmax, changes it); flipped back, it is {}",
                show(stored),
                show(flipped)
            ),
        )),
        (true, false) => Some((
            false,
            format!(
                "flipped back, t_ctid {} would not be the tuple's own TID {} although its t_xmax is 0, which PostgreSQL never writes (heap_insert sets t_ctid to the tuple's own TID; only an update, which sets t_xmax, changes it)",
                show(flipped),
                show(stored)
            ),
        )),
        _ => None,
    }
}

/// htup_details.h's t_infomask2: the attribute count (HEAP_NATTS_MASK) and three flags; the
/// two bits between (0x1800) PostgreSQL never sets. Some((true, why)): the stored value has
/// one and the flipped one not; Some((false, why)): the other way round.
fn infomask2_rule(
    page: &[u8],
    tuple_off: usize,
    offset: u32,
    bit: u8,
    endian: Endian,
) -> Option<(bool, String)> {
    use crate::page::geometry::read_u16;
    const UNUSED: u16 = 0x1800;
    let at = usize::try_from(offset).ok()?.checked_sub(tuple_off)?;
    if !(18..20).contains(&at) {
        return None;
    }
    let stored = read_u16(page, tuple_off.checked_add(18)?, endian)?;
    let flipped = read_u16(
        &PageBit { offset, bit }.apply(page),
        tuple_off.checked_add(18)?,
        endian,
    )?;
    match (stored & UNUSED != 0, flipped & UNUSED != 0) {
        (true, false) => Some((
            true,
            format!("as stored, t_infomask2 {stored:#06x} has a bit PostgreSQL never sets (0x1800, between the attribute count and HEAP_KEYS_UPDATED); flipped back, it is {flipped:#06x}"),
        )),
        (false, true) => Some((
            false,
            format!("flipped back, t_infomask2 {flipped:#06x} would have a bit PostgreSQL never sets (0x1800, between the attribute count and HEAP_KEYS_UPDATED)"),
        )),
        _ => None,
    }
}

/// [`tell`] with what the caller knows beyond the page ([`Known`]): the table's
/// relfrozenxid, whose rule speaks for or against a flip in a tuple's xmin or xmax, and the
/// items amcheck finds wrong, in which a flip would explain the finding.
pub fn tell_with(page: &[u8], blkno: u32, endian: Endian, known: &Known<'_>) -> ToldFlips {
    // A page whose checksum is valid for the block its tuples name is that block's copy: a
    // flip that makes it valid here too is chance, and would hide the copy under a checksum.
    if let Some(other) = crate::cluster::rows::copy_of_block(page, blkno, endian) {
        return ToldFlips {
            odds: format!(
                "the page holds block {other} (its checksum is valid for that block and its tuples' t_ctid name it): no flip is offered, since one that made its checksum valid here would be chance and would hide block {other}'s rows under block {blkno}'s number"
            ),
            candidates: Vec::new(),
        };
    }
    let (columns, relfrozenxid) = (known.columns, known.relfrozenxid);
    let opts = DecodeOptions {
        endian,
        ..DecodeOptions::default()
    };
    let flips = localise(page, blkno, &opts);
    let writer = columns.map(|c| RowWriter::new(c.to_vec(), RowFormat::Json, endian, false));
    let names: Vec<&Column> = columns
        .unwrap_or_default()
        .iter()
        .filter(|c| !c.attribute.attisdropped)
        .collect();
    let mut no_toast = |_: &crate::tuple::ToastPointer| -> Result<Vec<u8>, ValueProblem> {
        Err(ValueProblem::from(Finding::ValueInvalid))
    };
    // Every tuple's values as stored, for how like its neighbours a flipped value is.
    let stored_rows: Vec<(u16, Option<Vec<Option<String>>>)> = heap_items(page, endian)
        .map(|i| {
            let texts = writer
                .as_ref()
                .zip(i.tuple)
                .and_then(|(w, t)| w.values(t, &mut no_toast).ok())
                .map(|v| v.texts);
            (i.lp, texts)
        })
        .collect();
    let broken_before = !flips.findings_before.is_empty();
    let mut told: Vec<(Tier, isize, ToldFlip)> = Vec::new();
    for c in &flips.candidates {
        let item = heap_items(page, endian).find(|i| {
            usize::try_from(c.offset).is_ok_and(|o| i.off <= o && o < i.off.saturating_add(i.len))
        });
        let mut t = ToldFlip {
            rank: 0,
            byte: c.offset,
            bit: c.bit,
            field: c.field.clone(),
            structurally_valid: c.structurally_valid,
            item: item.as_ref().map(|i| i.lp),
            column: None,
            stored: None,
            flipped: None,
            why: String::new(),
            breaks_rule: false,
        };
        let mut gain = 0isize;
        let bit = PageBit {
            offset: c.offset,
            bit: c.bit,
        };
        let indexed = match (&item, &writer, &known.index) {
            (Some(i), Some(w), Some(ix)) if c.structurally_valid => {
                index_rule(page, (i.off, i.len, i.lp), blkno, bit, w, ix)
            }
            _ => None,
        };
        let rule = match (&item, relfrozenxid) {
            (Some(i), Some(rf)) if c.structurally_valid => {
                xid_rule(page, i.off, c.offset, c.bit, endian, rf)
            }
            _ => None,
        }
        .or_else(|| match (&item, known.next_xid) {
            (Some(i), Some(next)) if c.structurally_valid => {
                next_xid_rule(page, i.off, c.offset, c.bit, endian, next)
            }
            _ => None,
        })
        .or_else(|| {
            let i = item.as_ref().filter(|_| c.structurally_valid)?;
            ctid_rule(page, (i.off, i.lp), blkno, c.offset, c.bit, endian)
                .or_else(|| infomask2_rule(page, i.off, c.offset, c.bit, endian))
        });
        let tier = if let Some((keeps, why)) = rule.as_ref().filter(|(keeps, _)| !keeps) {
            // A rule PostgreSQL keeps outweighs what an index says.
            t.why = why.clone();
            let _ = keeps;
            t.structurally_valid = false;
            t.breaks_rule = true;
            Tier::Undecodable
        } else if let Some((confirms, why)) = indexed {
            t.why = why;
            // The value the flip changes, named as for any candidate in tuple data.
            if let (Some(i), Some(w)) = (&item, &writer) {
                let flipped_page = bit.apply(page);
                let end = i.off.saturating_add(i.len);
                let before = i.tuple.and_then(|s| w.values(s, &mut no_toast).ok());
                let after = flipped_page
                    .get(i.off..end)
                    .and_then(|s| w.values(s, &mut no_toast).ok());
                if let (Some(b), Some(a)) = (before, after) {
                    if let Some(((x, y), col)) = b
                        .texts
                        .iter()
                        .zip(&a.texts)
                        .zip(&names)
                        .find(|((x, y), _)| x != y)
                    {
                        t.column = Some(col.name.clone());
                        t.stored = Some(visible(x.as_deref().unwrap_or("NULL")));
                        t.flipped = Some(visible(y.as_deref().unwrap_or("NULL")));
                    }
                }
            }
            if confirms {
                Tier::Indexed
            } else {
                Tier::Unindexed
            }
        } else if let Some((keeps, why)) = rule {
            t.why = why;
            if keeps {
                Tier::Heals
            } else {
                t.structurally_valid = false;
                t.breaks_rule = true;
                Tier::Undecodable
            }
        } else if !c.structurally_valid {
            t.why = format!(
                "{} ({} finding{})",
                if broken_before {
                    "the page is not structurally sound after it either"
                } else {
                    "flipped back, the page would not be structurally sound"
                },
                c.findings.len(),
                if c.findings.len() == 1 { "" } else { "s" }
            );
            Tier::Broken
        } else if broken_before {
            t.why =
                String::from("it makes a page the decoder finds broken structurally sound again");
            Tier::Heals
        } else if let Some(lp) = item
            .as_ref()
            .map(|i| i.lp)
            .filter(|lp| known.flagged.contains(lp))
        {
            t.why = format!(
                "it lies in item {lp}, which amcheck's checks of this page find wrong: a flipped bit there would explain that finding"
            );
            Tier::Flagged
        } else if let Some(stored_zero) = in_zero_free_space(page, c.offset, endian) {
            if stored_zero {
                t.why = String::from(
                    "flipped back, the page's free space, all zeros around it, would hold one set bit; PostgreSQL leaves free space it has not written as zeros, so that speaks against it",
                );
                Tier::NoisesFreeSpace
            } else {
                t.why = String::from(
                    "flipped back, the page's free space is all zeros again, as PostgreSQL leaves free space it has not written",
                );
                gain = 1000;
                Tier::Plain
            }
        } else if let (Some(i), Some(w)) = (&item, &writer) {
            let flipped_page = PageBit {
                offset: c.offset,
                bit: c.bit,
            }
            .apply(page);
            let end = i.off.saturating_add(i.len);
            let before = i.tuple.and_then(|s| w.values(s, &mut no_toast).ok());
            let after = flipped_page
                .get(i.off..end)
                .and_then(|s| w.values(s, &mut no_toast).ok());
            match (before, after) {
                (Some(_), None) => {
                    t.structurally_valid = false;
                    t.breaks_rule = true;
                    t.why = String::from(
                        "flipped back, the tuple no longer decodes (a value breaks its type's rules or the database encoding, or the tuple's layout no longer fits): PostgreSQL would not have written that",
                    );
                    Tier::Undecodable
                }
                (Some(b), Some(a)) => {
                    let changed = b
                        .texts
                        .iter()
                        .zip(&a.texts)
                        .zip(&names)
                        .enumerate()
                        .find(|(_, ((x, y), _))| x != y);
                    match changed {
                        Some((k, ((x, y), col))) => {
                            let xs = x.as_deref().unwrap_or("NULL");
                            let ys = y.as_deref().unwrap_or("NULL");
                            t.column = Some(col.name.clone());
                            t.stored = Some(visible(xs));
                            t.flipped = Some(visible(ys));
                            let others: Vec<&str> = stored_rows
                                .iter()
                                .filter(|(lp, _)| Some(*lp) != t.item)
                                .filter_map(|(_, v)| v.as_ref()?.get(k)?.as_deref())
                                .collect();
                            let lx = likeness(xs, &others);
                            let ly = likeness(ys, &others);
                            gain = isize::try_from(ly)
                                .unwrap_or(0)
                                .saturating_sub(isize::try_from(lx).unwrap_or(0));
                            let (cx, cy) = (controls(xs), controls(ys));
                            let like = if ly == lx {
                                String::new()
                            } else {
                                format!(
                                    "; flipped back, the value shares {} with another value of the column on this page; as stored, {}: a hint, not a PostgreSQL rule",
                                    shared(ly),
                                    if lx == 0 {
                                        String::from("none")
                                    } else {
                                        shared(lx)
                                    }
                                )
                            };
                            if cy > cx {
                                t.why = format!(
                                    "flipped back, the value gains a control or non-printable character the stored one lacks: applications rarely store those{like}"
                                );
                                Tier::AddsControl
                            } else if cy < cx {
                                t.why = format!(
                                    "flipped back, the value loses a control or non-printable character the stored one has{like}"
                                );
                                gain = gain.saturating_add(1000);
                                Tier::Plain
                            } else {
                                t.why = format!("both values decode as the column's type{like}");
                                Tier::Plain
                            }
                        }
                        None => {
                            // Bytes of t_data that no value shows are alignment padding or a
                            // name's tail past its NUL, which heap_form_tuple and namein leave
                            // as the zeroed memory they start from: a set bit there is not
                            // PostgreSQL's.
                            let data_from = i
                                .tuple
                                .and_then(|s| crate::tuple::TupleHeader::read(s, endian))
                                .map(|h| i.off.saturating_add(usize::from(h.t_hoff)));
                            let at = usize::try_from(c.offset).unwrap_or(usize::MAX);
                            let padding = data_from.is_some_and(|d| at >= d && at < end);
                            let stored = page.get(at).copied().unwrap_or(0);
                            if padding && stored == 0 {
                                t.why = String::from(
                                    "the flip changes no column's value: it lies in bytes of the row's data that no value shows (alignment padding, or a name's unused tail), which PostgreSQL writes as zeros, so flipped back they would hold a set bit: this speaks against it",
                                );
                                Tier::NoisesPadding
                            } else if padding && u32::from(stored) == 1u32 << c.bit {
                                t.why = String::from(
                                    "the flip changes no column's value: it lies in bytes of the row's data that no value shows (alignment padding, or a name's unused tail), which PostgreSQL writes as zeros; as stored the byte holds this one set bit, flipped back it is zero: this speaks for it",
                                );
                                gain = gain.saturating_add(2000);
                                Tier::Plain
                            } else {
                                t.why = String::from(
                                    "the flip changes no column's value (a header or padding bit): nothing speaks for or against it",
                                );
                                Tier::Plain
                            }
                        }
                    }
                }
                _ => {
                    t.why = String::from("the tuple does not decode as stored either");
                    Tier::Plain
                }
            }
        } else {
            t.why = String::from(
                "the page is structurally sound with it as without it: nothing speaks for or against it",
            );
            Tier::Plain
        };
        told.push((tier, gain, t));
    }
    told.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then(b.1.cmp(&a.1))
            .then(a.2.byte.cmp(&b.2.byte))
            .then(a.2.bit.cmp(&b.2.bit))
    });
    let candidates = told
        .into_iter()
        .enumerate()
        .map(|(i, (_, _, mut t))| {
            t.rank = i.saturating_add(1);
            t
        })
        .collect();
    ToldFlips {
        odds: odds_sentence(&flips),
        candidates,
    }
}

/// The candidates one a line, in rank order, for the CLI and Markdown: `prefix` leads each
/// line (`- ` for Markdown), `code` wraps a field and a value (a backquote in Markdown).
pub fn lines(flips: &ToldFlips, block_in_file: u32, path: &str, code: &str) -> Vec<String> {
    flips
        .candidates
        .iter()
        .map(|c| {
            let mut line = format!(
                "{}. byte {} bit {} ({code}{}{code})",
                c.rank, c.byte, c.bit, c.field
            );
            if let Some(i) = c.item {
                line.push_str(&format!(", item {i}"));
            }
            if let (Some(col), Some(s), Some(v)) = (&c.column, &c.stored, &c.flipped) {
                line.push_str(", ");
                line.push_str(&values_text(&format!("{code}{col}{code}"), s, v, code));
            }
            line.push_str(&format!(
                ": {}; {code}pgpage repair --block {block_in_file} --flip {}:{} --out NEW {path}{code}",
                c.why, c.byte, c.bit
            ));
            line
        })
        .collect()
}

/// The page's Markdown section on its bit-flip candidates (the page's own report, the
/// browser's "Copy Markdown report"); empty when there are none.
pub fn markdown(flips: &ToldFlips, block_in_file: u32, path: &str) -> String {
    if flips.candidates.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "### Single-bit flips that make the checksum valid\n\n{}. Most likely first: the rank weighs what PostgreSQL's rules say of each restored page and value, and is evidence, not proof.\n\n",
        flips.odds
    );
    for line in lines(flips, block_in_file, path, "`") {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_t_infomask2_bit_postgresql_never_sets_speaks_against_the_flip() {
        let mut page = alloc::vec![0u8; 64];
        page[18..20].copy_from_slice(&0x4003u16.to_le_bytes());
        let (keeps, why) = infomask2_rule(&page, 0, 19, 3, Endian::Little).unwrap();
        assert!(!keeps && why.contains("0x4803"), "{why}");
        page[18..20].copy_from_slice(&0x5003u16.to_le_bytes());
        let (keeps, _) = infomask2_rule(&page, 0, 19, 4, Endian::Little).unwrap();
        assert!(keeps);
        assert_eq!(infomask2_rule(&page, 0, 18, 0, Endian::Little), None);
        assert_eq!(infomask2_rule(&page, 0, 30, 0, Endian::Little), None);
    }

    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(visible("ab\u{18}c"), "ab\\x18c");
        assert_eq!(visible("tab\there\u{7f}"), "tab\\x09here\\x7F");
        assert_eq!(visible("héllo ✓"), "héllo ✓");
        assert_eq!(visible("\u{9b}"), "\\x9B");
    }

    #[test]
    fn likeness_is_the_longest_common_beginning() {
        assert_eq!(likeness("cust155", &["cust154", "cqst1"]), 6);
        assert_eq!(likeness("cqst155", &["cust154"]), 1);
        assert_eq!(likeness("x", &[]), 0);
    }

    #[test]
    fn a_long_value_shows_its_change_in_context() {
        let stored = format!("y{}1277", "x".repeat(150));
        let flipped = format!("x{}1277", "x".repeat(150));
        assert_eq!(
            change(&stored, &flipped).unwrap(),
            format!("[y→x]{}…", "x".repeat(20))
        );
        let stored = format!("{}A{}", "a".repeat(60), "b".repeat(60));
        let flipped = format!("{}a{}", "a".repeat(60), "b".repeat(60));
        assert_eq!(
            change(&stored, &flipped).unwrap(),
            format!("…{}[A→a]{}…", "a".repeat(20), "b".repeat(20))
        );
        assert_eq!(change("cqst00123", "cust00123"), None);
    }

    #[test]
    fn an_escape_is_never_cut() {
        let stored = format!("{}\\x19{}", "a".repeat(60), "b".repeat(60));
        let flipped = format!("{}\\x18{}", "a".repeat(60), "b".repeat(60));
        let c = change(&stored, &flipped).unwrap();
        assert!(c.contains("[\\x19→\\x18]"), "{c}");
        let stored = format!("{}\\x18{}", "a".repeat(60), "b".repeat(60));
        let flipped = format!("{}X{}", "a".repeat(60), "b".repeat(60));
        assert!(change(&stored, &flipped).unwrap().contains("[\\x18→X]"));
    }

    #[test]
    fn a_shared_beginning_in_words() {
        assert_eq!(shared(0), "no beginning");
        assert_eq!(shared(1), "its first character");
        assert_eq!(shared(153), "its first 153 characters");
    }
}
