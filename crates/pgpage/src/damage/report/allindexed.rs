//! amcheck's heapallindexed, without a server: every row a new snapshot sees on a page that
//! verifies must have an entry in each of its table's B-tree indexes, at its HOT chain's
//! root TID and with the key the row holds. A row whose bytes changed before its page was
//! checksummed (a bit flipped in memory, a software fault) passes PageIsVerified, and only
//! this comparison sees it: the index still names the key the row was inserted with.
//!
//! Each index's entries are read first and kept as 64-bit fingerprints of (TID, key text),
//! sorted: 8 bytes an entry, never the keys. Each live tuple's fingerprint is then looked
//! up; for the few that are not found, the index is read again for what it holds at that
//! TID, and for other entries of the row's key.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

use super::leaves::leaf_entries;
use crate::cluster::rows::{visibility, Column, RowFormat, RowWriter, Visibility};
use crate::page::geometry::Endian;
use crate::tuple::visibility::TransactionLog;
use crate::tuple::TupleHeader;

/// A table whose indexes hold more entries than this together is held against the first
/// of them only as far as this goes: their fingerprints would pass 64 MiB.
pub const MAX_ENTRIES: usize = 8 << 20;
/// Rows without their entry named one by one, per index; the rest are counted.
const MAX_MISSES: usize = 1000;

/// One key a row holds and its index does not have at the row's TID.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KeyMismatch {
    /// The index (schema-qualified) and its name as SQL writes it.
    pub index: String,
    pub sql_index: String,
    /// The line pointer of the live tuple, and the root of its HOT chain (the TID the index
    /// entry names).
    pub lp: u16,
    pub root: u16,
    /// The key the row holds.
    pub keys: Vec<Option<String>>,
    /// The index's key columns' names, in its order.
    pub columns: Vec<String>,
    /// The keys the index holds at the root's TID (empty: no entry there).
    pub index_keys: Vec<Vec<Option<String>>>,
    /// Other TIDs at which the index holds the row's key, `(block,offset)`.
    pub twins: Vec<String>,
    /// The index is unique (its key names one row).
    pub unique: bool,
}

/// One index's fingerprints, and what the table's pages said against them.
pub struct IndexPrints {
    pub name: String,
    pub sql_name: String,
    pub unique: bool,
    /// The index's key columns, as its leaves print them.
    keys: Vec<Column>,
    writer: RowWriter,
    positions: Vec<usize>,
    prints: Vec<u64>,
    /// Index pages that could not be read (a damaged leaf's entries are not there).
    pub damaged_pages: u64,
    pub too_many: bool,
    /// Live tuples compared, and those whose key could not be read (stored out of line).
    pub checked: u64,
    pub unread: u64,
    /// (block, lp, root, key) of each row not found, at most MAX_MISSES.
    misses: Vec<(u32, u16, u16, Vec<Option<String>>)>,
    pub more_misses: u64,
    /// The second reading: entries at the missed TIDs, and other TIDs of their keys.
    at_tid: BTreeMap<(u32, u16), Vec<Vec<Option<String>>>>,
    twins: BTreeMap<Vec<Option<String>>, Vec<(u32, u16)>>,
}

/// (TID, key text) as 64 bits: the TID, then each column's NULL flag, length and text.
fn fingerprint(block: u32, offset: u16, key: &[Option<String>]) -> u64 {
    use core::hash::Hasher;
    let mut h = siphasher::sip::SipHasher13::new_with_keys(0x7067_7061_6765, 0x6865_6170);
    h.write_u32(block);
    h.write_u16(offset);
    for k in key {
        match k {
            None => h.write_u8(0),
            Some(t) => {
                h.write_u8(1);
                h.write_u64(t.len() as u64);
                h.write(t.as_bytes());
            }
        }
    }
    h.finish()
}

impl IndexPrints {
    /// `heap_columns` and `positions`: the table's columns and where the index's keys stand
    /// among them; `keys`: the index's key columns.
    pub fn new(
        name: String,
        sql_name: String,
        unique: bool,
        keys: Vec<Column>,
        heap_columns: Vec<Column>,
        positions: Vec<usize>,
        endian: Endian,
    ) -> IndexPrints {
        IndexPrints {
            name,
            sql_name,
            unique,
            keys,
            writer: RowWriter::new(heap_columns, RowFormat::Json, endian, false),
            positions,
            prints: Vec::new(),
            damaged_pages: 0,
            too_many: false,
            checked: 0,
            unread: 0,
            misses: Vec::new(),
            more_misses: 0,
            at_tid: BTreeMap::new(),
            twins: BTreeMap::new(),
        }
    }

    /// One page of the index: its leaf entries' fingerprints. A page that does not verify
    /// counts as damaged, and so does an all-zero page (an index never leaves one behind
    /// but when a crash cut its extension short) and one `older` than the WAL says: the
    /// entries such a page lost are the index's damage, which its REINDEX mends.
    pub fn add_index_page(
        &mut self,
        page: &[u8],
        absolute: u32,
        endian: Endian,
        checksums: bool,
        older: bool,
        limit: usize,
    ) {
        if self.too_many {
            return;
        }
        let status = crate::page::verify::verify_page(page, absolute, endian).status;
        let entries = leaf_entries(page, absolute, endian, checksums, Some(&self.keys));
        if status != crate::page::verify::PageStatus::Ok || older {
            self.damaged_pages = self.damaged_pages.saturating_add(1);
        }
        for e in entries {
            let Some(k) = e.keys else {
                // A key that does not print: the entry cannot be compared, and the check
                // of this index says nothing rather than name rows it has.
                self.damaged_pages = self.damaged_pages.saturating_add(1);
                continue;
            };
            self.prints.push(fingerprint(e.block, e.offset, &k));
        }
        if self.prints.len() > limit {
            self.too_many = true;
            self.prints = Vec::new();
        }
    }

    /// Every entry read: sorted for lookups.
    pub fn index_read(&mut self) {
        self.prints.sort_unstable();
        self.prints.dedup();
    }

    /// A heap page that verifies (relation-wide block `block`): each tuple a new snapshot
    /// sees, looked up at its chain's root with its key.
    pub fn check_heap_page(
        &mut self,
        page: &[u8],
        block: u32,
        endian: Endian,
        log: &TransactionLog,
    ) {
        if self.too_many {
            return;
        }
        let Some(lines) = crate::damage::story::heap_lines(page, block, endian) else {
            return;
        };
        let roots = chain_roots(&lines);
        for item in crate::tuple::heap_items(page, endian) {
            let Some(tuple) = item.tuple else {
                continue;
            };
            let Some(header) = TupleHeader::read(tuple, endian) else {
                continue;
            };
            if visibility(&header, (block, item.lp), log) != Visibility::Visible {
                continue;
            }
            // A heap-only tuple no chain reaches: no entry can name it.
            let Some(&root) = roots.get(&item.lp) else {
                continue;
            };
            let Some(key) = self.writer.column_texts(tuple, &self.positions) else {
                self.unread = self.unread.saturating_add(1);
                continue;
            };
            self.checked = self.checked.saturating_add(1);
            if self
                .prints
                .binary_search(&fingerprint(block, root, &key))
                .is_err()
            {
                if self.misses.len() < MAX_MISSES {
                    self.misses.push((block, item.lp, root, key));
                } else {
                    self.more_misses = self.more_misses.saturating_add(1);
                }
            }
        }
    }

    /// Entries kept.
    pub fn entries(&self) -> usize {
        self.prints.len()
    }

    /// Whether the index must be read again (some row was not found).
    pub fn missed(&self) -> bool {
        !self.misses.is_empty()
    }

    /// The second reading of one index page: what it holds at the missed TIDs, and where
    /// else it holds their keys.
    pub fn name_page(&mut self, page: &[u8], absolute: u32, endian: Endian, checksums: bool) {
        let tids: BTreeSet<(u32, u16)> = self.misses.iter().map(|m| (m.0, m.2)).collect();
        let keys: BTreeSet<&Vec<Option<String>>> = self.misses.iter().map(|m| &m.3).collect();
        let mut at = Vec::new();
        let mut twins = Vec::new();
        for e in leaf_entries(page, absolute, endian, checksums, Some(&self.keys)) {
            let Some(k) = e.keys else { continue };
            if tids.contains(&(e.block, e.offset)) {
                at.push(((e.block, e.offset), k.clone()));
            }
            if keys.contains(&k) {
                twins.push((k, (e.block, e.offset)));
            }
        }
        for (tid, k) in at {
            self.at_tid.entry(tid).or_default().push(k);
        }
        for (k, tid) in twins {
            self.twins.entry(k).or_default().push(tid);
        }
    }

    /// Every row not found, by heap block. A row whose TID the index does not hold at all
    /// is left out when the index has damaged pages: those name it already.
    pub fn mismatches(&self) -> BTreeMap<u32, Vec<KeyMismatch>> {
        let mut out: BTreeMap<u32, Vec<KeyMismatch>> = BTreeMap::new();
        for (block, lp, root, key) in &self.misses {
            let index_keys = self
                .at_tid
                .get(&(*block, *root))
                .cloned()
                .unwrap_or_default();
            if index_keys.is_empty() && self.damaged_pages > 0 {
                continue;
            }
            let twins = self
                .twins
                .get(key)
                .into_iter()
                .flatten()
                .filter(|&&t| t != (*block, *root))
                .map(|(b, o)| alloc::format!("({b},{o})"))
                .collect();
            out.entry(*block).or_default().push(KeyMismatch {
                index: self.name.clone(),
                sql_index: self.sql_name.clone(),
                lp: *lp,
                root: *root,
                keys: key.clone(),
                columns: self.keys.iter().map(|c| c.name.clone()).collect(),
                index_keys,
                twins,
                unique: self.unique,
            });
        }
        out
    }
}

/// Each tuple's HOT chain root: a redirect or a tuple that is not heap-only starts a chain,
/// and every tuple reached from it (redirect, then t_ctid on the page) has that root.
fn chain_roots(lines: &crate::damage::story::HeapLines) -> BTreeMap<u16, u16> {
    let by_lp: BTreeMap<u16, &crate::damage::story::LineItem> =
        lines.items.iter().map(|i| (i.lp, i)).collect();
    let mut roots = BTreeMap::new();
    for start in lines
        .items
        .iter()
        .filter(|i| i.redirect_to.is_some() || (i.t_xmin.is_some() && !i.heap_only))
    {
        let mut lp = start.lp;
        // A chain visits each line pointer once; more steps than line pointers is a loop.
        for _ in 0..=by_lp.len() {
            if roots.insert(lp, start.lp).is_some() && lp != start.lp {
                break;
            }
            let Some(item) = by_lp.get(&lp) else { break };
            let Some(next) = item.redirect_to.or(item.hot_next) else {
                break;
            };
            // Only a heap-only tuple continues a chain.
            if !by_lp.get(&next).is_some_and(|n| n.heap_only) {
                break;
            }
            lp = next;
        }
    }
    roots
}
