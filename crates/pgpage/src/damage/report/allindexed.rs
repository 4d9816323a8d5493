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
use alloc::sync::Arc;
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

/// A row not found: (relation-wide block, line pointer, chain root, key, t_xmin, pd_lsn).
type Miss = (u32, u16, u16, Vec<Option<String>>, u32, Option<u64>);

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
    /// The row version's t_xmin: another copy of the page holding a tuple of this xmin at the
    /// same line pointer holds the same version, whose data never changes.
    #[serde(skip)]
    pub xmin: u32,
    /// The page's pd_lsn (it verifies: its header is sane).
    #[serde(skip)]
    pub page_lsn: Option<u64>,
    /// The table's columns up to the last key column, and the key columns' places among
    /// them: how to read the key off another copy of the page.
    #[serde(skip)]
    pub heap_columns: Arc<[Column]>,
    #[serde(skip)]
    pub positions: Vec<usize>,
    /// Rows of the same page this index holds as they are: a page whose rows all disagree
    /// is not this block's, one with some rows as the index has them is.
    #[serde(skip)]
    pub rows_agreeing: u32,
}

/// One index's fingerprints, and what the table's pages said against them.
pub struct IndexPrints {
    pub name: String,
    pub sql_name: String,
    pub unique: bool,
    /// The index's key columns, as its leaves print them.
    keys: Vec<Column>,
    writer: RowWriter,
    /// The table's columns the writer reads, up to the last key column: shared by every
    /// mismatch this index names.
    heap_columns: Arc<[Column]>,
    positions: Vec<usize>,
    /// The table's attributes up to the last key column: all a key's place needs.
    attrs: Vec<crate::tuple::Attribute>,
    prints: Vec<u64>,
    /// Where each run of `prints` sharing its top `bucket_bits` bits starts (and one past the
    /// last): a lookup reads one short run instead of binary-searching 2^20 entries across
    /// memory, since the fingerprints are uniform.
    buckets: Vec<u32>,
    bucket_bits: u32,
    /// Index pages that could not be read (a damaged leaf's entries are not there).
    pub damaged_pages: u64,
    pub too_many: bool,
    /// Live tuples compared, and those whose key could not be read (stored out of line).
    pub checked: u64,
    pub unread: u64,
    /// (block, lp, root, key) of each row not found, at most MAX_MISSES.
    misses: Vec<Miss>,
    pub more_misses: u64,
    /// The second reading: entries at the missed TIDs, and other TIDs of their keys.
    at_tid: BTreeMap<(u32, u16), Vec<Vec<Option<String>>>>,
    twins: BTreeMap<Vec<Option<String>>, Vec<(u32, u16)>>,
    /// Rows found as the index holds them, on each block where some were not.
    agreeing: BTreeMap<u32, u32>,
    /// The table's length in blocks, where known: an entry past it names a block the file
    /// no longer has (a truncated file, a lost segment).
    heap_blocks: Option<u32>,
    past_end: BTreeSet<u32>,
    /// A unique index's: each row a new snapshot sees, its key's fingerprint without the TID
    /// (a key with a NULL left out: NULLs repeat) and its TID, to find a key two rows hold,
    /// which the index cannot be rebuilt over.
    keyed: Vec<(u64, u32, u16)>,
    /// More rows than [`MAX_KEYED`]: the keys past it were not held against each other.
    pub keyed_partly: bool,
}

/// Rows whose keys are held against each other for keys two rows hold, per unique index
/// (16 bytes each: 64 MiB).
const MAX_KEYED: usize = 4 << 20;

/// Keys held by more than one row named, per index; the rest are counted.
const MAX_DUPLICATES: usize = 100;

/// The fingerprint of a key alone: the same key at any TID gives it.
fn key_print<K: AsRef<[u8]>>(key: &[Option<K>]) -> u64 {
    fingerprint(u32::MAX, u16::MAX, key)
}

/// The top `bits` bits of a fingerprint (1 to 24).
fn top_bits(fp: u64, bits: u32) -> u64 {
    fp.checked_shr(64u32.saturating_sub(bits)).unwrap_or(0)
}

/// (TID, key) as 64 bits: the TID, then each column's NULL flag, length and bytes (the
/// type's own bytes, [`super::leaves::payload`]: the same value in a heap tuple and an index
/// tuple gives the same bytes, however each stores its header).
fn fingerprint<K: AsRef<[u8]>>(block: u32, offset: u16, key: &[Option<K>]) -> u64 {
    use core::hash::Hasher;
    let mut h = siphasher::sip::SipHasher13::new_with_keys(0x7067_7061_6765, 0x6865_6170);
    h.write_u32(block);
    h.write_u16(offset);
    for k in key {
        match k {
            None => h.write_u8(0),
            Some(t) => {
                let t = t.as_ref();
                h.write_u8(1);
                h.write_u64(t.len() as u64);
                h.write(t);
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
        let last = positions.iter().max().map_or(0, |&p| p.saturating_add(1));
        let attrs = heap_columns
            .iter()
            .take(last)
            .map(|c| c.attribute.clone())
            .collect();
        let heap_columns: Vec<Column> = heap_columns.into_iter().take(last).collect();
        IndexPrints {
            name,
            sql_name,
            unique,
            keys,
            writer: RowWriter::new(heap_columns.clone(), RowFormat::Json, endian, false),
            heap_columns: heap_columns.into(),
            positions,
            attrs,
            prints: Vec::new(),
            buckets: Vec::new(),
            bucket_bits: 0,
            damaged_pages: 0,
            too_many: false,
            checked: 0,
            unread: 0,
            misses: Vec::new(),
            more_misses: 0,
            at_tid: BTreeMap::new(),
            twins: BTreeMap::new(),
            agreeing: BTreeMap::new(),
            heap_blocks: None,
            past_end: BTreeSet::new(),
            keyed: Vec::new(),
            keyed_partly: false,
        }
    }

    /// The table's length in blocks (None: not known), for the entries past its end.
    pub fn set_heap_blocks(&mut self, blocks: Option<u32>) {
        self.heap_blocks = blocks;
    }

    /// The heap blocks past the table's end that the index's entries lead into.
    pub fn past_end(&self) -> &BTreeSet<u32> {
        &self.past_end
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
        if status != crate::page::verify::PageStatus::Ok || older {
            self.damaged_pages = self.damaged_pages.saturating_add(1);
        }
        let (keys, prints, past_end) = (&self.keys, &mut self.prints, &mut self.past_end);
        let end = self.heap_blocks;
        let mut unread = false;
        super::leaves::walk_leaf(
            page,
            absolute,
            endian,
            checksums,
            &mut |data, nulls, _, tids| {
                let Some(k) = super::leaves::key_payloads(data, nulls, keys, endian) else {
                    // A key that does not read: the entry cannot be compared, and the check of
                    // this index says nothing rather than name rows it has.
                    unread = true;
                    return;
                };
                for &(block, offset) in tids {
                    prints.push(fingerprint(block, offset, &k));
                    if end.is_some_and(|n| block >= n) && past_end.len() < 1 << 16 {
                        past_end.insert(block);
                    }
                }
            },
        );
        if unread {
            self.damaged_pages = self.damaged_pages.saturating_add(1);
        }
        if self.prints.len() > limit {
            self.too_many = true;
            self.prints = Vec::new();
        }
    }

    /// Every entry read: sorted, and the runs of each top-bits bucket found, for lookups.
    pub fn index_read(&mut self) {
        self.prints.sort_unstable();
        self.prints.dedup();
        // About 8 entries a bucket, at most 2^24 buckets (64 MiB of u32 for 2^27 entries).
        let n = self.prints.len();
        let bits = usize::BITS
            .saturating_sub((n / 8).max(1).leading_zeros())
            .clamp(1, 24);
        self.bucket_bits = bits;
        let count = 1usize << bits;
        let mut buckets = Vec::with_capacity(count.saturating_add(1));
        let mut at = 0usize;
        for b in 0..count {
            while self
                .prints
                .get(at)
                .is_some_and(|&fp| top_bits(fp, bits) < b as u64)
            {
                at = at.saturating_add(1);
            }
            buckets.push(u32::try_from(at).unwrap_or(u32::MAX));
        }
        buckets.push(u32::try_from(n).unwrap_or(u32::MAX));
        self.buckets = buckets;
    }

    /// Whether the index holds fingerprint `fp`.
    fn holds(&self, fp: u64) -> bool {
        let b = usize::try_from(top_bits(fp, self.bucket_bits)).unwrap_or(usize::MAX);
        let (Some(&from), Some(&to)) = (self.buckets.get(b), self.buckets.get(b.saturating_add(1)))
        else {
            return self.prints.binary_search(&fp).is_ok();
        };
        let (from, to) = (from as usize, to as usize);
        self.prints
            .get(from..to)
            .is_some_and(|run| run.binary_search(&fp).is_ok())
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
        let roots = chain_roots(page, block, endian);
        let (mut agreeing, mut missed) = (0u32, false);
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
            let root = roots.get(usize::from(item.lp)).copied().unwrap_or(0);
            if root == 0 {
                continue;
            }
            let Some((print, alone)) = self.tuple_prints(tuple, block, root, endian) else {
                self.unread = self.unread.saturating_add(1);
                continue;
            };
            if let Some(alone) = alone.filter(|_| self.unique) {
                if self.keyed.len() < MAX_KEYED {
                    self.keyed.push((alone, block, item.lp));
                } else {
                    self.keyed_partly = true;
                }
            }
            self.checked = self.checked.saturating_add(1);
            if self.holds(print) {
                agreeing = agreeing.saturating_add(1);
            } else {
                missed = true;
                let Some(key) = self.writer.column_texts(tuple, &self.positions) else {
                    continue;
                };
                if self.misses.len() < MAX_MISSES {
                    self.misses.push((
                        block,
                        item.lp,
                        root,
                        key,
                        header.t_xmin,
                        crate::damage::diff::page_lsn(page, endian),
                    ));
                } else {
                    self.more_misses = self.more_misses.saturating_add(1);
                }
            }
        }
        if missed {
            self.agreeing.insert(block, agreeing);
        }
    }

    /// Entries kept.
    pub fn entries(&self) -> usize {
        self.prints.len()
    }

    /// A heap tuple's fingerprint at TID (block, root) with its key columns' bytes, and its
    /// key's alone when no key column is NULL; None when one cannot be read (a value stored
    /// out of line, in TOAST: no key is that long).
    fn tuple_prints(
        &self,
        tuple: &[u8],
        block: u32,
        root: u16,
        endian: Endian,
    ) -> Option<(u64, Option<u64>)> {
        let mut values = Vec::with_capacity(self.attrs.len());
        crate::tuple::deform(tuple, &self.attrs, endian, &mut values).ok()?;
        let key: Vec<Option<alloc::borrow::Cow<'_, [u8]>>> = self
            .positions
            .iter()
            .map(|&p| {
                let attlen = self.attrs.get(p)?.attlen;
                match values.get(p)? {
                    None => Some(None),
                    Some(v) => super::leaves::payload(v, attlen, endian).map(Some),
                }
            })
            .collect::<Option<Vec<_>>>()?;
        let alone = key.iter().all(Option::is_some).then(|| key_print(&key));
        Some((fingerprint(block, root, &key), alone))
    }

    /// A unique index's keys that more than one row a new snapshot sees holds: each key's
    /// TIDs (block, line pointer), in order, at most [`MAX_DUPLICATES`] keys, and how many
    /// more. REINDEX fails on any of them ("could not create unique index").
    pub fn duplicates(&self) -> (Vec<Vec<(u32, u16)>>, u64) {
        let mut keyed = self.keyed.clone();
        keyed.sort_unstable();
        let (mut out, mut more) = (Vec::new(), 0u64);
        for run in keyed.chunk_by(|a, b| a.0 == b.0) {
            if run.len() < 2 {
                continue;
            }
            let mut tids: Vec<(u32, u16)> = run.iter().map(|&(_, b, lp)| (b, lp)).collect();
            tids.sort_unstable();
            out.push(tids);
        }
        // In table order, the first named.
        out.sort_unstable();
        if out.len() > MAX_DUPLICATES {
            more = (out.len().saturating_sub(MAX_DUPLICATES)) as u64;
            out.truncate(MAX_DUPLICATES);
        }
        (out, more)
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
        for (block, lp, root, key, xmin, page_lsn) in &self.misses {
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
                xmin: *xmin,
                page_lsn: *page_lsn,
                heap_columns: Arc::clone(&self.heap_columns),
                positions: self.positions.clone(),
                rows_agreeing: self.agreeing.get(block).copied().unwrap_or(0),
            });
        }
        out
    }
}

/// Each line pointer's HOT chain root, indexed by line pointer (0: none): a redirect or a
/// tuple that is not heap-only starts a chain, and every heap-only tuple reached from it
/// (redirect, then a HEAP_HOT_UPDATED tuple's t_ctid on the same page) has that root. Read
/// straight from the line pointers and tuple headers: this runs for every page of a table.
fn chain_roots(page: &[u8], block: u32, endian: Endian) -> Vec<u16> {
    use crate::am::heap::layout::{HEAP_HOT_UPDATED, HEAP_ONLY_TUPLE};
    use crate::page::geometry::{read_u16, read_u32};
    let lower = usize::from(read_u16(page, 12, endian).unwrap_or(0));
    let count = lower.saturating_sub(24) / 4;
    // (next on the chain, heap-only, starts a chain) by line pointer.
    let mut next = alloc::vec![0u16; count.saturating_add(1)];
    let mut heap_only = alloc::vec![false; count.saturating_add(1)];
    let mut starts: Vec<u16> = Vec::new();
    for lp in 1..=count {
        let at = lp.saturating_sub(1).saturating_mul(4).saturating_add(24);
        let Some(w) = read_u32(page, at, endian) else {
            break;
        };
        let (off, flags, len) = match endian {
            Endian::Little => (w & 0x7FFF, (w >> 15) & 3, w >> 17),
            Endian::Big => (w >> 17, (w >> 15) & 3, w & 0x7FFF),
        };
        let lp16 = u16::try_from(lp).unwrap_or(0);
        match flags {
            // LP_REDIRECT: lp_off names the chain's next line pointer.
            2 => {
                if let Some(n) = next.get_mut(lp) {
                    *n = u16::try_from(off).unwrap_or(0);
                }
                starts.push(lp16);
            }
            // LP_NORMAL.
            1 => {
                let (off, len) = (off as usize, len as usize);
                let Some(h) = page
                    .get(off..off.saturating_add(len))
                    .filter(|_| off >= 24)
                    .and_then(|t| TupleHeader::read(t, endian))
                else {
                    continue;
                };
                let only = h.t_infomask2 & HEAP_ONLY_TUPLE != 0;
                if let Some(x) = heap_only.get_mut(lp) {
                    *x = only;
                }
                if !only {
                    starts.push(lp16);
                }
                if h.t_infomask2 & HEAP_HOT_UPDATED != 0
                    && h.t_ctid_block == block
                    && h.t_ctid_offset != lp16
                {
                    if let Some(n) = next.get_mut(lp) {
                        *n = h.t_ctid_offset;
                    }
                }
            }
            _ => {}
        }
    }
    let mut roots = alloc::vec![0u16; count.saturating_add(1)];
    for start in starts {
        let mut lp = start;
        // A chain visits each line pointer once; more steps than line pointers is a loop.
        for _ in 0..=count {
            let Some(r) = roots.get_mut(usize::from(lp)) else {
                break;
            };
            if *r != 0 {
                break;
            }
            *r = start;
            let n = next.get(usize::from(lp)).copied().unwrap_or(0);
            // Only a heap-only tuple continues a chain.
            if n == 0 || !heap_only.get(usize::from(n)).copied().unwrap_or(false) {
                break;
            }
            lp = n;
        }
    }
    roots
}
