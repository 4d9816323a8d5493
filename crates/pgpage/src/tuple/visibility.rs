//! Which heap tuple versions a new transaction would see in a stopped cluster
//! (access/heap/heapam_visibility.c: HeapTupleSatisfiesMVCC with nothing in progress): hint
//! bits first, else the status pg_xact holds; lock-only xmax and MultiXacts of lockers hide
//! nothing; an updating MultiXact member is found in pg_multixact. The caller hands over the
//! SLRU segment files; nothing here reads a file.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use serde::Serialize;

use crate::findings::Finding;
use crate::page::geometry::{read_u32, Endian};
use crate::tuple::{
    TupleHeader, HEAP_MOVED_IN, HEAP_MOVED_OFF, HEAP_XMAX_COMMITTED, HEAP_XMAX_EXCL_LOCK,
    HEAP_XMAX_INVALID, HEAP_XMAX_IS_MULTI, HEAP_XMAX_KEYSHR_LOCK, HEAP_XMAX_LOCK_ONLY,
    HEAP_XMIN_COMMITTED, HEAP_XMIN_INVALID,
};

/// slru.h: SLRU_PAGES_PER_SEGMENT.
const SLRU_PAGES_PER_SEGMENT: u32 = 32;

/// htup_details.h: HEAP_LOCK_MASK (HEAP_XMAX_SHR_LOCK is EXCL | KEYSHR).
const HEAP_LOCK_MASK: u16 = HEAP_XMAX_EXCL_LOCK | HEAP_XMAX_KEYSHR_LOCK;

/// transam.h: BootstrapTransactionId and FrozenTransactionId, committed by definition.
const BOOTSTRAP_XID: u32 = 1;
const FROZEN_XID: u32 = 2;

/// clog.h: XidStatus, the two bits pg_xact keeps per transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum XidStatus {
    InProgress,
    Committed,
    Aborted,
    SubCommitted,
}

impl XidStatus {
    fn from_bits(bits: u8) -> XidStatus {
        match bits & 3 {
            1 => XidStatus::Committed,
            2 => XidStatus::Aborted,
            3 => XidStatus::SubCommitted,
            _ => XidStatus::InProgress,
        }
    }

    /// TransactionIdDidCommit after a restart. A subtransaction is marked sub-committed only
    /// while its parent's commit is being recorded (clog.c: TransactionIdSetTreeStatus); once
    /// the parent's commit is in pg_xact, the child is marked committed too. One still
    /// sub-committed belongs to a parent that never committed, and pg_subtrans, which would
    /// name the parent, is not kept across restarts: aborted. So is one in progress: nothing
    /// runs in a stopped cluster, and crash recovery aborts what was running.
    pub fn did_commit(self) -> bool {
        self == XidStatus::Committed
    }
}

/// multixact.h: MultiXactStatus of one member.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MultiXactMember {
    pub xid: u32,
    pub status: u8,
}

impl MultiXactMember {
    /// The status as pg_get_multixact_members() names it (multixact.c mxstatus_to_string).
    pub fn mode(&self) -> &'static str {
        match self.status {
            0 => "keysh",
            1 => "sh",
            2 => "fornokeyupd",
            3 => "forupd",
            4 => "nokeyupd",
            5 => "upd",
            _ => "",
        }
    }

    /// multixact.h: ISUPDATE_from_mxstatus (NoKeyUpdate or Update, above ForUpdate).
    pub fn is_update(&self) -> bool {
        self.status > 3
    }
}

/// One SLRU's segment files by segment number (their names are the number in hex).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Slru {
    segments: BTreeMap<u32, Vec<u8>>,
}

impl Slru {
    /// The u32 or byte at `byte` of SLRU page `page`, reading `len` bytes.
    fn read(&self, page: u32, byte: usize, len: usize, block_size: usize) -> Option<&[u8]> {
        let segment = self.segments.get(&(page / SLRU_PAGES_PER_SEGMENT))?;
        let in_segment = usize::try_from(page % SLRU_PAGES_PER_SEGMENT).ok()?;
        let at = in_segment.checked_mul(block_size)?.checked_add(byte)?;
        segment.get(at..at.checked_add(len)?)
    }
}

/// The transaction status files of a data directory: pg_xact and pg_multixact's offsets
/// and members, plus pg_control's next MultiXact (needed for the newest one's member count).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransactionLog {
    block_size: usize,
    endian: Endian,
    xact: Slru,
    offsets: Slru,
    members: Slru,
    next_multi: Option<(u32, u64)>,
    /// MultiXactOffset is 64 bits (19 on): 8 bytes per pg_multixact/offsets entry, and
    /// member offsets that never wrap.
    offsets_64: bool,
}

/// Which SLRU a segment file belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlruKind {
    /// pg_xact (pg_clog before 10).
    Xact,
    /// pg_multixact/offsets.
    MultiXactOffsets,
    /// pg_multixact/members.
    MultiXactMembers,
}

/// The segment number an SLRU file's name gives (slru.c SlruFileName: 4 hex digits, or up to
/// 15 when the segment numbers grow past them).
pub fn slru_segment_number(name: &str) -> Option<u32> {
    if !(4..=15).contains(&name.len()) || !name.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(name, 16).ok()
}

impl TransactionLog {
    pub fn new(block_size: usize, endian: Endian) -> TransactionLog {
        TransactionLog {
            block_size,
            endian,
            xact: Slru::default(),
            offsets: Slru::default(),
            members: Slru::default(),
            next_multi: None,
            offsets_64: false,
        }
    }

    /// Reads pg_multixact/offsets as a cluster of `major` wrote it: 64-bit entries from 19
    /// on (c.h MultiXactOffset), 32-bit before.
    pub fn set_major(&mut self, major: u32) {
        self.offsets_64 = major >= 19;
    }

    /// Whether pg_multixact/offsets entries are read as 64 bits (`set_major`).
    pub fn multixact_offsets_64(&self) -> bool {
        self.offsets_64
    }

    /// Whether any pg_xact segment was given (else only hint bits decide).
    pub fn has_xact(&self) -> bool {
        !self.xact.segments.is_empty()
    }

    /// Adds one segment file's contents.
    pub fn add_segment(&mut self, kind: SlruKind, segment: u32, bytes: Vec<u8>) {
        let slru = match kind {
            SlruKind::Xact => &mut self.xact,
            SlruKind::MultiXactOffsets => &mut self.offsets,
            SlruKind::MultiXactMembers => &mut self.members,
        };
        slru.segments.insert(segment, bytes);
    }

    /// The block size and byte order the segments are read with.
    pub fn geometry(&self) -> (usize, Endian) {
        (self.block_size, self.endian)
    }

    /// Every segment given, by SLRU and segment number: with `next_multi`, what rebuilds
    /// the log elsewhere (`structures::Structures::export`).
    pub fn segments(&self) -> impl Iterator<Item = (SlruKind, u32, &[u8])> {
        fn of(kind: SlruKind, slru: &Slru) -> impl Iterator<Item = (SlruKind, u32, &[u8])> {
            slru.segments
                .iter()
                .map(move |(&n, bytes)| (kind, n, bytes.as_slice()))
        }
        of(SlruKind::Xact, &self.xact)
            .chain(of(SlruKind::MultiXactOffsets, &self.offsets))
            .chain(of(SlruKind::MultiXactMembers, &self.members))
    }

    /// `set_next_multi`'s values.
    pub fn next_multi(&self) -> Option<(u32, u64)> {
        self.next_multi
    }

    /// pg_control's nextMulti and nextMultiOffset (checkPointCopy), which bound the newest
    /// MultiXact's members.
    pub fn set_next_multi(&mut self, next_multi: u32, next_offset: u64) {
        self.next_multi = Some((next_multi, next_offset));
    }

    /// TransactionIdGetStatus, from pg_xact (clog.c: 2 bits per xid, BLCKSZ * 4 per page).
    /// A segment or page not there is the server's "could not access status of transaction".
    pub fn xid_status(&self, xid: u32) -> Result<XidStatus, Finding> {
        match xid {
            0 => return Ok(XidStatus::Aborted),
            BOOTSTRAP_XID | FROZEN_XID => return Ok(XidStatus::Committed),
            _ => {}
        }
        let per_page = u32::try_from(self.block_size)
            .ok()
            .and_then(|b| b.checked_mul(4))
            .filter(|p| *p > 0)
            .ok_or(Finding::XactStatusUnavailable)?;
        let unavailable = Finding::XactStatusUnavailable;
        let page = xid.checked_div(per_page).ok_or(unavailable)?;
        let in_page = xid.checked_rem(per_page).ok_or(unavailable)?;
        let byte = usize::try_from(in_page / 4).map_err(|_| Finding::XactStatusUnavailable)?;
        let shift = (in_page % 4).saturating_mul(2);
        let b = self
            .xact
            .read(page, byte, 1, self.block_size)
            .and_then(|b| b.first().copied())
            .ok_or(Finding::XactStatusUnavailable)?;
        Ok(XidStatus::from_bits(b >> shift))
    }

    /// pg_multixact/offsets' entry for `multi`: its first member's offset.
    fn offset_of(&self, multi: u32) -> Option<u64> {
        let width = if self.offsets_64 { 8 } else { 4 };
        let per_page = u32::try_from(self.block_size.checked_div(width)?)
            .ok()
            .filter(|p| *p > 0)?;
        let byte = usize::try_from(multi.checked_rem(per_page)?)
            .ok()?
            .checked_mul(width)?;
        let bytes =
            self.offsets
                .read(multi.checked_div(per_page)?, byte, width, self.block_size)?;
        if self.offsets_64 {
            let b: [u8; 8] = bytes.try_into().ok()?;
            Some(match self.endian {
                Endian::Little => u64::from_le_bytes(b),
                Endian::Big => u64::from_be_bytes(b),
            })
        } else {
            read_u32(bytes, 0, self.endian).map(u64::from)
        }
    }

    /// GetMultiXactIdMembers: the members of a MultiXact, from pg_multixact/offsets (its
    /// first member's offset; the next MultiXact's, or pg_control's nextMultiOffset for the
    /// newest, ends them) and members (groups of four flag bytes and four xids).
    pub fn multixact_members(&self, multi: u32) -> Result<Vec<MultiXactMember>, Finding> {
        let missing = Finding::MultiXactMembersUnavailable;
        let start = self.offset_of(multi).ok_or(missing)?;
        // multixact.c: the MultiXactId counter skips 0 (InvalidMultiXactId) when it wraps.
        let next = match multi.wrapping_add(1) {
            0 => 1,
            n => n,
        };
        let end = match self.next_multi {
            Some((next_multi, next_offset)) if next_multi == next => next_offset,
            _ => self.offset_of(next).filter(|o| *o != 0).ok_or(missing)?,
        };
        // 32-bit offsets wrap around (before 19); 64-bit ones never do.
        let count = if self.offsets_64 {
            end.checked_sub(start).ok_or(missing)?
        } else {
            u64::from((end as u32).wrapping_sub(start as u32))
        };
        // More members than a MultiXact can hold (one per backend) is a damaged offset.
        if start == 0 || count > 1 << 20 {
            return Err(missing);
        }
        let groups_per_page = self.block_size / 20;
        let per_page = u64::try_from(groups_per_page.saturating_mul(4))
            .ok()
            .filter(|p| *p > 0)
            .ok_or(missing)?;
        let groups_per_page = u64::try_from(groups_per_page).map_err(|_| missing)?;
        let mut members = Vec::new();
        for i in 0..count {
            let offset = if self.offsets_64 {
                start.checked_add(i).ok_or(missing)?
            } else {
                u64::from((start as u32).wrapping_add(i as u32))
            };
            let member = usize::try_from(offset % 4).map_err(|_| missing)?;
            let group = (offset / 4)
                .checked_rem(groups_per_page)
                .and_then(|g| usize::try_from(g).ok())
                .ok_or(missing)?;
            let group_at = group.saturating_mul(20);
            let page = offset
                .checked_div(per_page)
                .and_then(|p| u32::try_from(p).ok())
                .ok_or(missing)?;
            let flags = self
                .members
                .read(page, group_at.saturating_add(member), 1, self.block_size)
                .and_then(|b| b.first().copied())
                .ok_or(missing)?;
            let xid_at = group_at
                .saturating_add(4)
                .saturating_add(member.saturating_mul(4));
            let xid = self
                .members
                .read(page, xid_at, 4, self.block_size)
                .and_then(|b| read_u32(b, 0, self.endian))
                .ok_or(missing)?;
            // multixact.c: an invalid xid is the unused slot at offset 0 of a wrapped log.
            if xid != 0 {
                members.push(MultiXactMember { xid, status: flags });
            }
        }
        Ok(members)
    }

    /// HeapTupleGetUpdateXid: the member that updated or deleted, if any.
    pub fn multixact_update_xid(&self, multi: u32) -> Result<Option<u32>, Finding> {
        Ok(self
            .multixact_members(multi)?
            .iter()
            .find(|m| m.is_update())
            .map(|m| m.xid))
    }
}

/// What became of a tuple version, as a new transaction sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TupleState {
    /// Inserted by a committed transaction, not deleted: visible.
    Live,
    /// Its inserting transaction aborted (or never committed before a crash).
    Aborted,
    /// Deleted by a committed transaction.
    Deleted,
    /// Replaced by a newer version (t_ctid) by a committed transaction.
    Updated,
}

impl TupleState {
    pub fn is_visible(self) -> bool {
        self == TupleState::Live
    }
}

/// htup_details.h: HEAP_XMAX_IS_LOCKED_ONLY: xmax only locked the row.
pub fn xmax_is_locked_only(infomask: u16) -> bool {
    infomask & HEAP_XMAX_LOCK_ONLY != 0
        || infomask & (HEAP_XMAX_IS_MULTI | HEAP_LOCK_MASK) == HEAP_XMAX_EXCL_LOCK
}

/// HeapTupleSatisfiesMVCC for a snapshot taken after every transaction ended, for the tuple
/// at `tid` (block, line pointer). Err names why the status could not be read (a pg_xact or
/// pg_multixact segment missing or short).
pub fn tuple_state(
    t: &TupleHeader,
    tid: (u32, u16),
    log: &TransactionLog,
) -> Result<TupleState, Finding> {
    let m = t.t_infomask;
    if m & HEAP_XMIN_COMMITTED == 0 {
        if m & HEAP_XMIN_INVALID != 0 {
            return Ok(TupleState::Aborted);
        }
        // A tuple moved by a pre-9.0 VACUUM FULL (kept by pg_upgrade): t_xvac decides.
        if m & HEAP_MOVED_OFF != 0 && log.xid_status(t.t_field3)?.did_commit() {
            return Ok(TupleState::Deleted);
        }
        if m & HEAP_MOVED_IN != 0 {
            if !log.xid_status(t.t_field3)?.did_commit() {
                return Ok(TupleState::Aborted);
            }
        } else if m & HEAP_MOVED_OFF == 0 && !log.xid_status(t.t_xmin)?.did_commit() {
            return Ok(TupleState::Aborted);
        }
    }
    if m & HEAP_XMAX_INVALID != 0 || xmax_is_locked_only(m) {
        return Ok(TupleState::Live);
    }
    let deleted = if m & HEAP_XMAX_IS_MULTI != 0 {
        match log.multixact_update_xid(t.t_xmax)? {
            Some(xid) => log.xid_status(xid)?.did_commit(),
            None => false,
        }
    } else {
        m & HEAP_XMAX_COMMITTED != 0 || log.xid_status(t.t_xmax)?.did_commit()
    };
    // A deleted tuple's t_ctid stays its own; an updated one's names its successor.
    let ctid_elsewhere = (t.t_ctid_block, t.t_ctid_offset) != tid;
    Ok(match (deleted, ctid_elsewhere) {
        (false, _) => TupleState::Live,
        (true, true) => TupleState::Updated,
        (true, false) => TupleState::Deleted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    const BLCKSZ: usize = 8192;

    /// pg_xact with the given statuses set, as clog.c's TransactionIdSetStatusBit does.
    fn log_with(statuses: &[(u32, u8)]) -> TransactionLog {
        let mut seg = vec![0u8; BLCKSZ * 32];
        for (xid, s) in statuses {
            let byte = (*xid as usize % (BLCKSZ * 4)) / 4 + (*xid as usize / (BLCKSZ * 4)) * BLCKSZ;
            seg[byte] |= s << ((xid % 4) * 2);
        }
        let mut log = TransactionLog::new(BLCKSZ, Endian::Little);
        log.add_segment(SlruKind::Xact, 0, seg);
        log
    }

    fn header(xmin: u32, xmax: u32, infomask: u16) -> TupleHeader {
        TupleHeader {
            t_xmin: xmin,
            t_xmax: xmax,
            t_field3: 0,
            t_ctid_block: 0,
            t_ctid_offset: 1,
            t_infomask2: 0,
            t_infomask: infomask,
            t_hoff: 24,
        }
    }

    #[test]
    fn statuses_from_pg_xact() {
        let log = log_with(&[(3, 1), (4, 2), (5, 3), (40000, 1)]);
        assert_eq!(log.xid_status(3), Ok(XidStatus::Committed));
        assert_eq!(log.xid_status(4), Ok(XidStatus::Aborted));
        assert_eq!(log.xid_status(5), Ok(XidStatus::SubCommitted));
        assert_eq!(log.xid_status(6), Ok(XidStatus::InProgress));
        assert_eq!(log.xid_status(40000), Ok(XidStatus::Committed));
        assert_eq!(log.xid_status(2), Ok(XidStatus::Committed));
        // Segment 1 (xids from 32 * 32768 on) is not there.
        assert_eq!(
            log.xid_status(32 * 32768),
            Err(Finding::XactStatusUnavailable)
        );
        assert_eq!(slru_segment_number("0000"), Some(0));
        assert_eq!(slru_segment_number("001A"), Some(26));
        assert_eq!(slru_segment_number("000000000000001"), Some(1));
        assert_eq!(slru_segment_number("1A"), None);
        assert_eq!(slru_segment_number("pg_x"), None);
    }

    #[test]
    fn hint_bits_then_pg_xact() {
        let log = log_with(&[(10, 1), (11, 2), (12, 3)]);
        let state = |h: TupleHeader| tuple_state(&h, (0, 1), &log);
        // Inserted, never deleted (xmax 0 carries HEAP_XMAX_INVALID once hinted; without
        // it, xid 0 is not committed).
        assert_eq!(state(header(10, 0, 0)), Ok(TupleState::Live));
        assert_eq!(
            state(header(10, 0, HEAP_XMAX_INVALID)),
            Ok(TupleState::Live)
        );
        assert_eq!(state(header(11, 0, 0)), Ok(TupleState::Aborted));
        // Hint bits win over pg_xact (and spare the lookup: xid 99999999 has no segment).
        assert_eq!(
            state(header(
                99_999_999,
                0,
                HEAP_XMIN_COMMITTED | HEAP_XMAX_INVALID
            )),
            Ok(TupleState::Live)
        );
        assert_eq!(
            state(header(99_999_999, 0, HEAP_XMIN_INVALID)),
            Ok(TupleState::Aborted)
        );
        // Frozen: both xmin bits.
        assert_eq!(
            state(header(
                99_999_999,
                0,
                HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID
            )),
            Ok(TupleState::Live)
        );
        // Sub-committed and in progress: not committed after a restart.
        assert_eq!(state(header(12, 0, 0)), Ok(TupleState::Aborted));
        assert_eq!(state(header(13, 0, 0)), Ok(TupleState::Aborted));
        // Deleted by a committed xid, kept by an aborted or lock-only one.
        assert_eq!(state(header(10, 10, 0)), Ok(TupleState::Deleted));
        assert_eq!(state(header(10, 11, 0)), Ok(TupleState::Live));
        assert_eq!(
            state(header(10, 10, HEAP_XMAX_LOCK_ONLY)),
            Ok(TupleState::Live)
        );
        assert_eq!(
            state(header(10, 10, HEAP_XMAX_EXCL_LOCK)),
            Ok(TupleState::Live)
        );
        let mut updated = header(10, 10, HEAP_XMAX_COMMITTED);
        updated.t_ctid_offset = 2;
        assert_eq!(state(updated), Ok(TupleState::Updated));
        assert_eq!(
            state(header(10, 99_999_999, 0)),
            Err(Finding::XactStatusUnavailable)
        );
    }

    /// pg_multixact as multixact.c lays it out: offsets[multi], members in groups of four.
    fn with_multis(log: &mut TransactionLog, multis: &[&[(u32, u8)]]) {
        let mut offsets = vec![0u8; BLCKSZ * 32];
        let mut members = vec![0u8; BLCKSZ * 32];
        let mut next = 1u32;
        let wide = log.multixact_offsets_64();
        for (i, ms) in multis.iter().enumerate() {
            let multi = i + 1;
            if wide {
                offsets[multi * 8..multi * 8 + 8].copy_from_slice(&u64::from(next).to_le_bytes());
            } else {
                offsets[multi * 4..multi * 4 + 4].copy_from_slice(&next.to_le_bytes());
            }
            for (xid, status) in ms.iter() {
                let group = (next / 4) as usize * 20;
                let m = (next % 4) as usize;
                members[group + m] = *status;
                members[group + 4 + m * 4..group + 8 + m * 4].copy_from_slice(&xid.to_le_bytes());
                next += 1;
            }
        }
        log.add_segment(SlruKind::MultiXactOffsets, 0, offsets);
        log.add_segment(SlruKind::MultiXactMembers, 0, members);
        log.set_next_multi(multis.len() as u32 + 1, u64::from(next));
    }

    #[test]
    fn multixact_offsets_are_64_bits_from_19_on() {
        let multis: &[&[(u32, u8)]] = &[&[(20, 0), (21, 1)], &[(20, 0), (23, 5)], &[(22, 1)]];
        for major in [18, 19] {
            let mut log = log_with(&[(20, 1), (21, 1), (22, 1), (23, 1)]);
            log.set_major(major);
            with_multis(&mut log, multis);
            for (i, want) in multis.iter().enumerate() {
                let got: Vec<(u32, u8)> = log
                    .multixact_members(i as u32 + 1)
                    .unwrap()
                    .iter()
                    .map(|m| (m.xid, m.status))
                    .collect();
                assert_eq!(&got, want, "PostgreSQL {major}, multi {}", i + 1);
            }
            // Read with the other width, the same files name other members or none.
            let mut other = log.clone();
            other.set_major(if major == 19 { 18 } else { 19 });
            assert_ne!(
                other.multixact_members(2).ok().map(|m| m.len()),
                Some(2),
                "PostgreSQL {major} read as the other"
            );
        }
    }

    #[test]
    fn multixacts_of_lockers_and_of_an_updater() {
        let mut log = log_with(&[(10, 1), (20, 1), (21, 1), (22, 1), (23, 1), (24, 2)]);
        with_multis(
            &mut log,
            &[
                &[(20, 0), (21, 1)],                   // two key-share/share lockers
                &[(20, 0), (21, 0), (22, 0), (23, 5)], // lockers and a committed updater
                &[(20, 1), (24, 5)],                   // an aborted updater (the newest)
            ],
        );
        assert_eq!(log.multixact_members(1).unwrap().len(), 2);
        assert_eq!(log.multixact_update_xid(2), Ok(Some(23)));
        assert_eq!(log.multixact_update_xid(3), Ok(Some(24)));
        let multi = |m, lock_only: bool| {
            let mask = HEAP_XMAX_IS_MULTI | if lock_only { HEAP_XMAX_LOCK_ONLY } else { 0 };
            tuple_state(&header(10, m, mask), (0, 1), &log)
        };
        assert_eq!(multi(1, true), Ok(TupleState::Live));
        assert_eq!(multi(1, false), Ok(TupleState::Live));
        assert_eq!(multi(2, false), Ok(TupleState::Deleted));
        assert_eq!(multi(3, false), Ok(TupleState::Live));
        assert_eq!(multi(9, false), Err(Finding::MultiXactMembersUnavailable));
    }
}
