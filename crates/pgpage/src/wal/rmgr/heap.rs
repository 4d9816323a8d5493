//! The Heap and Heap2 resource managers' records of 13 to 19 (access/heapam_xlog.h of each
//! release): their main data and block data decoded into typed structs, and each record's
//! description as that release's heapdesc.c prints it (pg_waldump's text after `desc: `).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::super::record::WalRecord;

pub const RM_HEAP2_ID: u8 = 9;
pub const RM_HEAP_ID: u8 = 10;

const XLOG_HEAP_OPMASK: u8 = 0x70;
/// XLOG_HEAP_INIT_PAGE: the redo starts from an empty page.
pub const XLOG_HEAP_INIT_PAGE: u8 = 0x80;

pub const XLH_INSERT_ALL_VISIBLE_CLEARED: u8 = 1 << 0;
pub const XLH_INSERT_ALL_FROZEN_SET: u8 = 1 << 5;
pub const XLH_UPDATE_OLD_ALL_VISIBLE_CLEARED: u8 = 1 << 0;
pub const XLH_UPDATE_NEW_ALL_VISIBLE_CLEARED: u8 = 1 << 1;
pub const XLH_UPDATE_PREFIX_FROM_OLD: u8 = 1 << 5;
pub const XLH_UPDATE_SUFFIX_FROM_OLD: u8 = 1 << 6;
pub const XLH_DELETE_ALL_VISIBLE_CLEARED: u8 = 1 << 0;
pub const XLH_DELETE_IS_SUPER: u8 = 1 << 3;
pub const XLH_DELETE_IS_PARTITION_MOVE: u8 = 1 << 4;
pub const XLH_LOCK_ALL_FROZEN_CLEARED: u8 = 0x01;
pub const XLH_FREEZE_XVAC: u8 = 0x02;
pub const XLH_INVALID_XVAC: u8 = 0x04;

/// xl_heap_prune.flags (17 and later; a uint16 in 19).
pub const XLHP_IS_CATALOG_REL: u16 = 1 << 1;
pub const XLHP_CLEANUP_LOCK: u16 = 1 << 2;
pub const XLHP_HAS_CONFLICT_HORIZON: u16 = 1 << 3;
pub const XLHP_HAS_FREEZE_PLANS: u16 = 1 << 4;
pub const XLHP_HAS_REDIRECTIONS: u16 = 1 << 5;
pub const XLHP_HAS_DEAD_ITEMS: u16 = 1 << 6;
pub const XLHP_HAS_NOW_UNUSED_ITEMS: u16 = 1 << 7;
pub const XLHP_VM_ALL_VISIBLE: u16 = 1 << 8;
pub const XLHP_VM_ALL_FROZEN: u16 = 1 << 9;

/// visibilitymapdefs.h VISIBILITYMAP_VALID_BITS: all-visible (0x01) and all-frozen (0x02).
pub const VISIBILITYMAP_VALID_BITS: u8 = 0x03;

/// A record body that does not hold what its type says it does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BodyError(pub String);

fn short(what: &str) -> BodyError {
    BodyError(format!("{what} is too short"))
}

/// Little-endian reads that say which structure ran short.
struct Bytes<'a> {
    b: &'a [u8],
    what: &'static str,
}

impl Bytes<'_> {
    fn u8(&self, at: usize) -> Result<u8, BodyError> {
        self.b.get(at).copied().ok_or_else(|| short(self.what))
    }
    fn u16(&self, at: usize) -> Result<u16, BodyError> {
        let end = at.checked_add(2).ok_or_else(|| short(self.what))?;
        let s = self.b.get(at..end).ok_or_else(|| short(self.what))?;
        Ok(u16::from_le_bytes([
            s.first().copied().unwrap_or(0),
            s.get(1).copied().unwrap_or(0),
        ]))
    }
    fn u32(&self, at: usize) -> Result<u32, BodyError> {
        let end = at.checked_add(4).ok_or_else(|| short(self.what))?;
        let s: [u8; 4] = self
            .b
            .get(at..end)
            .and_then(|s| s.try_into().ok())
            .ok_or_else(|| short(self.what))?;
        Ok(u32::from_le_bytes(s))
    }
    fn u16s(&self, at: usize, n: usize) -> Result<Vec<u16>, BodyError> {
        (0..n)
            .map(|i| {
                i.checked_mul(2)
                    .and_then(|o| o.checked_add(at))
                    .ok_or_else(|| short(self.what))
                    .and_then(|o| self.u16(o))
            })
            .collect()
    }
}

fn bytes<'a>(b: &'a [u8], what: &'static str) -> Bytes<'a> {
    Bytes { b, what }
}

/// xl_heap_header: the tuple header fields an insert or update logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TupleHeader {
    pub t_infomask2: u16,
    pub t_infomask: u16,
    pub t_hoff: u8,
}

/// SizeOfHeapHeader.
pub const SIZE_OF_HEAP_HEADER: usize = 5;

pub fn tuple_header(b: &[u8]) -> Result<TupleHeader, BodyError> {
    let r = bytes(b, "xl_heap_header");
    Ok(TupleHeader {
        t_infomask2: r.u16(0)?,
        t_infomask: r.u16(2)?,
        t_hoff: r.u8(4)?,
    })
}

/// One tuple of a MULTI_INSERT's block data (xl_multi_insert_tuple and its bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MultiInsertTuple<'a> {
    pub header: TupleHeader,
    /// The tuple's bytes after its fixed header (null bitmap, padding, columns).
    pub data: &'a [u8],
}

/// The tuples of a MULTI_INSERT's block data: each xl_multi_insert_tuple starts at a
/// SHORTALIGNed place; the data must end exactly after the last one.
pub fn multi_insert_tuples(b: &[u8], ntuples: u16) -> Result<Vec<MultiInsertTuple<'_>>, BodyError> {
    let mut out = Vec::new();
    let mut at = 0usize;
    for _ in 0..ntuples {
        at = at
            .checked_add(at & 1)
            .ok_or_else(|| short("multi-insert data"))?;
        let r = bytes(b, "xl_multi_insert_tuple");
        let datalen = usize::from(r.u16(at)?);
        let header = TupleHeader {
            t_infomask2: r.u16(at.saturating_add(2))?,
            t_infomask: r.u16(at.saturating_add(4))?,
            t_hoff: r.u8(at.saturating_add(6))?,
        };
        let start = at.saturating_add(7);
        let end = start.saturating_add(datalen);
        let data = b
            .get(start..end)
            .ok_or_else(|| short("multi-insert tuple data"))?;
        out.push(MultiInsertTuple { header, data });
        at = end;
    }
    if at != b.len() {
        return Err(BodyError(String::from("total tuple length mismatch")));
    }
    Ok(out)
}

/// A freeze plan: what freezing writes to each tuple at its offsets (xl_heap_freeze_tuple of
/// 13 to 15 is one plan per tuple).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FreezePlan {
    pub xmax: u32,
    pub t_infomask2: u16,
    pub t_infomask: u16,
    pub frzflags: u8,
    pub offsets: Vec<u16>,
}

/// The line pointers a prune (or a vacuum's second pass) changes, and the freeze plans 17's
/// merged records carry with them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PruneItems {
    pub redirected: Vec<(u16, u16)>,
    pub dead: Vec<u16>,
    pub unused: Vec<u16>,
    pub plans: Vec<FreezePlan>,
}

/// 13's CLEAN and 14 to 16's PRUNE block data: the redirect pairs, the dead offsets, then
/// every offset left to the end as now unused.
pub fn prune_items_16(b: &[u8], nredirected: u16, ndead: u16) -> Result<PruneItems, BodyError> {
    let r = bytes(b, "prune offsets");
    let pairs = r.u16s(0, usize::from(nredirected).saturating_mul(2))?;
    let dead_at = usize::from(nredirected).saturating_mul(4);
    let dead = r.u16s(dead_at, usize::from(ndead))?;
    let unused_at = dead_at.saturating_add(usize::from(ndead).saturating_mul(2));
    let rest = b
        .len()
        .checked_sub(unused_at)
        .ok_or_else(|| short("prune offsets"))?;
    if rest % 2 != 0 {
        return Err(BodyError(String::from("prune offsets end mid-number")));
    }
    let unused = r.u16s(unused_at, rest / 2)?;
    Ok(PruneItems {
        redirected: pairs
            .chunks(2)
            .filter_map(|p| Some((*p.first()?, *p.get(1)?)))
            .collect(),
        dead,
        unused,
        plans: Vec::new(),
    })
}

/// 17's heap_xlog_deserialize_prune_and_freeze: the sub-records the flags announce, in their
/// order (freeze plans, redirections, dead, unused), then the plans' offsets.
pub fn prune_items_17(b: &[u8], flags: u16) -> Result<PruneItems, BodyError> {
    let r = bytes(b, "xl_heap_prune block data");
    let mut at = 0usize;
    let mut out = PruneItems::default();
    let mut plan_heads = Vec::new();
    if flags & XLHP_HAS_FREEZE_PLANS != 0 {
        let nplans = r.u16(at)?;
        // xlhp_freeze_plans: the plans start at their alignment, 4.
        at = at.saturating_add(4);
        for _ in 0..nplans {
            plan_heads.push((
                r.u32(at)?,
                r.u16(at.saturating_add(4))?,
                r.u16(at.saturating_add(6))?,
                r.u8(at.saturating_add(8))?,
                r.u16(at.saturating_add(10))?,
            ));
            at = at.saturating_add(12);
        }
    }
    let items = |at: &mut usize, width: usize| -> Result<Vec<u16>, BodyError> {
        let n = usize::from(r.u16(*at)?);
        let v = r.u16s(at.saturating_add(2), n.saturating_mul(width))?;
        *at = at
            .saturating_add(2)
            .saturating_add(n.saturating_mul(width).saturating_mul(2));
        Ok(v)
    };
    if flags & XLHP_HAS_REDIRECTIONS != 0 {
        let pairs = items(&mut at, 2)?;
        out.redirected = pairs
            .chunks(2)
            .filter_map(|p| Some((*p.first()?, *p.get(1)?)))
            .collect();
    }
    if flags & XLHP_HAS_DEAD_ITEMS != 0 {
        out.dead = items(&mut at, 1)?;
    }
    if flags & XLHP_HAS_NOW_UNUSED_ITEMS != 0 {
        out.unused = items(&mut at, 1)?;
    }
    for (xmax, t_infomask2, t_infomask, frzflags, ntuples) in plan_heads {
        let offsets = r.u16s(at, usize::from(ntuples))?;
        at = at.saturating_add(usize::from(ntuples).saturating_mul(2));
        out.plans.push(FreezePlan {
            xmax,
            t_infomask2,
            t_infomask,
            frzflags,
            offsets,
        });
    }
    if at != b.len() {
        return Err(BodyError(String::from(
            "prune block data has bytes past its offsets",
        )));
    }
    Ok(out)
}

/// 13 to 15's FREEZE_PAGE block data: one xl_heap_freeze_tuple (12 bytes) per tuple.
pub fn freeze_tuples_15(b: &[u8], ntuples: u16) -> Result<Vec<FreezePlan>, BodyError> {
    let r = bytes(b, "xl_heap_freeze_tuple");
    (0..usize::from(ntuples))
        .map(|i| {
            let at = i.saturating_mul(12);
            Ok(FreezePlan {
                xmax: r.u32(at)?,
                offsets: alloc::vec![r.u16(at.saturating_add(4))?],
                t_infomask2: r.u16(at.saturating_add(6))?,
                t_infomask: r.u16(at.saturating_add(8))?,
                frzflags: r.u8(at.saturating_add(10))?,
            })
        })
        .collect()
}

/// 16's FREEZE_PAGE block data: the plans, then each plan's offsets in plan order.
pub fn freeze_plans_16(b: &[u8], nplans: u16) -> Result<Vec<FreezePlan>, BodyError> {
    let r = bytes(b, "xl_heap_freeze_plan");
    let mut at = usize::from(nplans).saturating_mul(12);
    let mut out = Vec::new();
    for i in 0..usize::from(nplans) {
        let p = i.saturating_mul(12);
        let ntuples = usize::from(r.u16(p.saturating_add(10))?);
        out.push(FreezePlan {
            xmax: r.u32(p)?,
            t_infomask2: r.u16(p.saturating_add(4))?,
            t_infomask: r.u16(p.saturating_add(6))?,
            frzflags: r.u8(p.saturating_add(8))?,
            offsets: r.u16s(at, ntuples)?,
        });
        at = at.saturating_add(ntuples.saturating_mul(2));
    }
    Ok(out)
}

/// A Heap or Heap2 record's main data, by record type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeapRecord {
    Insert {
        offnum: u16,
        flags: u8,
    },
    MultiInsert {
        flags: u8,
        ntuples: u16,
        offsets: Vec<u16>,
    },
    Update {
        hot: bool,
        old_xmax: u32,
        old_offnum: u16,
        old_infobits_set: u8,
        flags: u8,
        new_xmax: u32,
        new_offnum: u16,
    },
    Delete {
        xmax: u32,
        offnum: u16,
        infobits_set: u8,
        flags: u8,
    },
    Lock {
        xmax: u32,
        offnum: u16,
        infobits_set: u8,
        flags: u8,
    },
    LockUpdated {
        xmax: u32,
        offnum: u16,
        infobits_set: u8,
        flags: u8,
    },
    Confirm {
        offnum: u16,
    },
    Inplace {
        offnum: u16,
        invalidations: Option<Invalidations>,
    },
    Truncate {
        db_id: u32,
        flags: u8,
        relids: Vec<u32>,
    },
    /// 13's CLEAN and 14 to 16's PRUNE.
    Clean {
        conflict_xid: u32,
        nredirected: u16,
        ndead: u16,
        is_catalog_rel: Option<bool>,
    },
    /// 14 to 16's VACUUM (a vacuum's second pass).
    Vacuum {
        nunused: u16,
    },
    /// 13 to 15 (`ntuples` tuples) and 16 (`nplans` plans, isCatalogRel).
    FreezePage {
        conflict_xid: u32,
        count: u16,
        is_catalog_rel: Option<bool>,
    },
    /// 17's PRUNE_ON_ACCESS, PRUNE_VACUUM_SCAN and PRUNE_VACUUM_CLEANUP.
    Prune {
        flags: u16,
        conflict_xid: Option<u32>,
    },
    Visible {
        conflict_xid: u32,
        flags: u8,
    },
    CleanupInfo {
        conflict_xid: u32,
    },
    NewCid {
        top_xid: u32,
        cmin: u32,
        cmax: u32,
        combocid: u32,
        locator: (u32, u32, u32),
        tid: (u32, u16),
    },
    Rewrite,
}

/// 18's xl_heap_inplace invalidations, for the description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalidations {
    pub db_id: u32,
    pub ts_id: u32,
    pub relcache_init_file_inval: bool,
    /// Each SharedInvalidationMessage's id and the Oid its kind names.
    pub msgs: Vec<(i8, u32, u32)>,
}

/// The record's type within its resource manager: `info & ~XLR_INFO_MASK`, less INIT_PAGE.
pub fn opcode(info: u8) -> u8 {
    info & XLOG_HEAP_OPMASK
}

pub fn is_init(info: u8) -> bool {
    info & XLOG_HEAP_INIT_PAGE != 0
}

/// Decodes a Heap or Heap2 record's main data; None for another resource manager.
pub fn decode(
    version: u32,
    rmid: u8,
    info: u8,
    main: &[u8],
) -> Option<Result<HeapRecord, BodyError>> {
    match rmid {
        RM_HEAP_ID => Some(decode_heap(version, info, main)),
        RM_HEAP2_ID => Some(decode_heap2(version, info, main)),
        _ => None,
    }
}

fn decode_heap(version: u32, info: u8, main: &[u8]) -> Result<HeapRecord, BodyError> {
    match opcode(info) {
        0x00 => {
            let r = bytes(main, "xl_heap_insert");
            Ok(HeapRecord::Insert {
                offnum: r.u16(0)?,
                flags: r.u8(2)?,
            })
        }
        0x10 => {
            let r = bytes(main, "xl_heap_delete");
            Ok(HeapRecord::Delete {
                xmax: r.u32(0)?,
                offnum: r.u16(4)?,
                infobits_set: r.u8(6)?,
                flags: r.u8(7)?,
            })
        }
        op @ (0x20 | 0x40) => {
            let r = bytes(main, "xl_heap_update");
            Ok(HeapRecord::Update {
                hot: op == 0x40,
                old_xmax: r.u32(0)?,
                old_offnum: r.u16(4)?,
                old_infobits_set: r.u8(6)?,
                flags: r.u8(7)?,
                new_xmax: r.u32(8)?,
                new_offnum: r.u16(12)?,
            })
        }
        0x30 => {
            let r = bytes(main, "xl_heap_truncate");
            let n = r.u32(4)?;
            let relids = (0..n)
                .map(|i| {
                    usize::try_from(i)
                        .ok()
                        .and_then(|i| i.checked_mul(4)?.checked_add(12))
                        .ok_or_else(|| short("xl_heap_truncate"))
                        .and_then(|at| r.u32(at))
                })
                .collect::<Result<Vec<u32>, BodyError>>()?;
            Ok(HeapRecord::Truncate {
                db_id: r.u32(0)?,
                flags: r.u8(8)?,
                relids,
            })
        }
        0x50 => {
            let r = bytes(main, "xl_heap_confirm");
            Ok(HeapRecord::Confirm { offnum: r.u16(0)? })
        }
        0x60 => {
            let r = bytes(main, "xl_heap_lock");
            Ok(HeapRecord::Lock {
                xmax: r.u32(0)?,
                offnum: r.u16(4)?,
                infobits_set: r.u8(6)?,
                flags: r.u8(7)?,
            })
        }
        _ => {
            let r = bytes(main, "xl_heap_inplace");
            let offnum = r.u16(0)?;
            if version < 18 {
                return Ok(HeapRecord::Inplace {
                    offnum,
                    invalidations: None,
                });
            }
            let nmsgs = r.u32(16)?;
            let msgs = (0..nmsgs)
                .map(|i| {
                    let at = usize::try_from(i)
                        .ok()
                        .and_then(|i| i.checked_mul(16)?.checked_add(20))
                        .ok_or_else(|| short("xl_heap_inplace"))?;
                    Ok((
                        i8::from_le_bytes([r.u8(at)?]),
                        r.u32(at.saturating_add(4))?,
                        r.u32(at.saturating_add(8))?,
                    ))
                })
                .collect::<Result<Vec<_>, BodyError>>()?;
            Ok(HeapRecord::Inplace {
                offnum,
                invalidations: Some(Invalidations {
                    db_id: r.u32(4)?,
                    ts_id: r.u32(8)?,
                    relcache_init_file_inval: r.u8(12)? != 0,
                    msgs,
                }),
            })
        }
    }
}

fn decode_heap2(version: u32, info: u8, main: &[u8]) -> Result<HeapRecord, BodyError> {
    match opcode(info) {
        0x00 => Ok(HeapRecord::Rewrite),
        0x10 if version <= 16 => {
            let r = bytes(main, "xl_heap_prune");
            Ok(HeapRecord::Clean {
                conflict_xid: r.u32(0)?,
                nredirected: r.u16(4)?,
                ndead: r.u16(6)?,
                is_catalog_rel: if version == 16 {
                    Some(r.u8(8)? != 0)
                } else {
                    None
                },
            })
        }
        0x20 if version == 13 => {
            let r = bytes(main, "xl_heap_freeze_page");
            Ok(HeapRecord::FreezePage {
                conflict_xid: r.u32(0)?,
                count: r.u16(4)?,
                is_catalog_rel: None,
            })
        }
        0x30 if version == 13 => {
            // xl_heap_cleanup_info: RelFileNode, then latestRemovedXid.
            let r = bytes(main, "xl_heap_cleanup_info");
            Ok(HeapRecord::CleanupInfo {
                conflict_xid: r.u32(12)?,
            })
        }
        0x20 if version <= 16 => {
            let r = bytes(main, "xl_heap_vacuum");
            Ok(HeapRecord::Vacuum { nunused: r.u16(0)? })
        }
        0x30 if version <= 16 => {
            let r = bytes(main, "xl_heap_freeze_page");
            Ok(HeapRecord::FreezePage {
                conflict_xid: r.u32(0)?,
                count: r.u16(4)?,
                is_catalog_rel: if version == 16 {
                    Some(r.u8(6)? != 0)
                } else {
                    None
                },
            })
        }
        0x10..=0x30 => {
            let r = bytes(main, "xl_heap_prune");
            let (flags, after) = if version >= 19 {
                (r.u16(0)?, 2)
            } else {
                (u16::from(r.u8(1)?), 2)
            };
            let conflict_xid = if flags & XLHP_HAS_CONFLICT_HORIZON != 0 {
                Some(r.u32(after)?)
            } else {
                None
            };
            Ok(HeapRecord::Prune {
                flags,
                conflict_xid,
            })
        }
        0x40 if version <= 18 => {
            let r = bytes(main, "xl_heap_visible");
            Ok(HeapRecord::Visible {
                conflict_xid: r.u32(0)?,
                flags: r.u8(4)?,
            })
        }
        0x50 => {
            let r = bytes(main, "xl_heap_multi_insert");
            let ntuples = r.u16(2)?;
            let offsets = if is_init(info) {
                Vec::new()
            } else {
                r.u16s(4, usize::from(ntuples))?
            };
            Ok(HeapRecord::MultiInsert {
                flags: r.u8(0)?,
                ntuples,
                offsets,
            })
        }
        0x60 => {
            let r = bytes(main, "xl_heap_lock_updated");
            Ok(HeapRecord::LockUpdated {
                xmax: r.u32(0)?,
                offnum: r.u16(4)?,
                infobits_set: r.u8(6)?,
                flags: r.u8(7)?,
            })
        }
        0x70 => {
            let r = bytes(main, "xl_heap_new_cid");
            Ok(HeapRecord::NewCid {
                top_xid: r.u32(0)?,
                cmin: r.u32(4)?,
                cmax: r.u32(8)?,
                combocid: r.u32(12)?,
                locator: (r.u32(16)?, r.u32(20)?, r.u32(24)?),
                tid: (
                    (u32::from(r.u16(28)?) << 16) | u32::from(r.u16(30)?),
                    r.u16(32)?,
                ),
            })
        }
        op => Err(BodyError(format!("unknown Heap2 record type 0x{op:02X}"))),
    }
}

/// 13 to 15's out_infobits: each bit's name and a space.
fn infobits_15(bits: u8) -> String {
    let mut s = String::new();
    for (bit, name) in INFOBITS {
        if bits & bit != 0 {
            s.push_str(name);
            s.push(' ');
        }
    }
    s
}

const INFOBITS: [(u8, &str); 5] = [
    (0x01, "IS_MULTI"),
    (0x02, "LOCK_ONLY"),
    (0x04, "EXCL_LOCK"),
    (0x08, "KEYSHR_LOCK"),
    (0x10, "KEYS_UPDATED"),
];

/// 16's infobits_desc: `name: [A, B]`.
fn infobits_16(bits: u8, key: &str) -> String {
    let names: Vec<&str> = INFOBITS
        .iter()
        .filter(|(bit, _)| bits & bit != 0)
        .map(|(_, n)| *n)
        .collect();
    format!("{key}: [{}]", names.join(", "))
}

/// rmgrdesc_utils.c array_desc: ` [a, b]`, ` []` when empty.
fn array<T>(items: &[T], one: impl Fn(&T) -> String) -> String {
    let inner: Vec<String> = items.iter().map(one).collect();
    format!(" [{}]", inner.join(", "))
}

fn offsets(items: &[u16]) -> String {
    array(items, |o| format!("{o}"))
}

fn redirects(items: &[(u16, u16)]) -> String {
    array(items, |(a, b)| format!("{a}->{b}"))
}

fn plans(items: &[FreezePlan]) -> String {
    array(items, |p| {
        format!(
            "{{ xmax: {}, infomask: {}, infomask2: {}, ntuples: {}, offsets:{} }}",
            p.xmax,
            p.t_infomask,
            p.t_infomask2,
            p.offsets.len(),
            offsets(&p.offsets)
        )
    })
}

fn tf(b: bool) -> char {
    if b {
        'T'
    } else {
        'F'
    }
}

/// The record's description as pg_waldump of `rec.version` prints it after `desc: `, without
/// the block references; None for another resource manager, an error for a body that does
/// not hold its structure.
pub fn describe(rec: &WalRecord<'_>) -> Option<Result<String, BodyError>> {
    let decoded = decode(rec.version, rec.rmid, rec.info, rec.main_data())?;
    Some(decoded.and_then(|d| desc(rec, &d)))
}

fn block0_data<'a>(rec: &'a WalRecord<'_>) -> Option<&'a [u8]> {
    rec.block_ref(0)
        .filter(|b| b.data_length > 0)
        .map(|b| rec.block_data(b))
}

fn desc(rec: &WalRecord<'_>, d: &HeapRecord) -> Result<String, BodyError> {
    let v = rec.version;
    let old = v <= 15;
    Ok(match d {
        HeapRecord::Insert { offnum, flags } if old => format!("off {offnum} flags 0x{flags:02X}"),
        HeapRecord::Insert { offnum, flags } => format!("off: {offnum}, flags: 0x{flags:02X}"),
        HeapRecord::Delete {
            xmax,
            offnum,
            infobits_set,
            flags,
        } => {
            if old {
                format!(
                    "off {offnum} flags 0x{flags:02X} {}",
                    infobits_15(*infobits_set)
                )
            } else {
                format!(
                    "xmax: {xmax}, off: {offnum}, {}, flags: 0x{flags:02X}",
                    infobits_16(*infobits_set, "infobits")
                )
            }
        }
        HeapRecord::Update {
            old_xmax,
            old_offnum,
            old_infobits_set,
            flags,
            new_xmax,
            new_offnum,
            ..
        } => {
            if old {
                format!(
                    "off {old_offnum} xmax {old_xmax} flags 0x{flags:02X} {}; new off {new_offnum} xmax {new_xmax}",
                    infobits_15(*old_infobits_set)
                )
            } else {
                format!(
                    "old_xmax: {old_xmax}, old_off: {old_offnum}, {}, flags: 0x{flags:02X}, new_xmax: {new_xmax}, new_off: {new_offnum}",
                    infobits_16(*old_infobits_set, "old_infobits")
                )
            }
        }
        HeapRecord::Truncate { flags, relids, .. } => {
            if old {
                let mut s = String::new();
                if flags & 1 != 0 {
                    s.push_str("cascade ");
                }
                if flags & 2 != 0 {
                    s.push_str("restart_seqs ");
                }
                s.push_str(&format!("nrelids {} relids", relids.len()));
                for r in relids {
                    s.push_str(&format!(" {r}"));
                }
                s
            } else {
                let mut names = Vec::new();
                if flags & 1 != 0 {
                    names.push("CASCADE");
                }
                if flags & 2 != 0 {
                    names.push("RESTART_SEQS");
                }
                format!(
                    "flags: [{}], nrelids: {}, relids:{}",
                    names.join(", "),
                    relids.len(),
                    array(relids, |r| format!("{r}"))
                )
            }
        }
        HeapRecord::Confirm { offnum } if old => format!("off {offnum}"),
        HeapRecord::Confirm { offnum } => format!("off: {offnum}"),
        HeapRecord::Lock {
            xmax,
            offnum,
            infobits_set,
            flags,
        } => {
            if old {
                format!(
                    "off {offnum}: xid {xmax}: flags 0x{flags:02X} {}",
                    infobits_15(*infobits_set)
                )
            } else {
                format!(
                    "xmax: {xmax}, off: {offnum}, {}, flags: 0x{flags:02X}",
                    infobits_16(*infobits_set, "infobits")
                )
            }
        }
        HeapRecord::Inplace { offnum, .. } if old => format!("off {offnum}"),
        HeapRecord::Inplace {
            offnum,
            invalidations,
        } => {
            let mut s = format!("off: {offnum}");
            if let Some(inv) = invalidations.as_ref().filter(|i| !i.msgs.is_empty()) {
                s.push_str(&invalidations_desc(inv));
            }
            s
        }
        HeapRecord::Clean {
            conflict_xid,
            nredirected,
            ndead,
            ..
        } => match v {
            13 => format!("remxid {conflict_xid}"),
            14 | 15 => {
                format!("latestRemovedXid {conflict_xid} nredirected {nredirected} ndead {ndead}")
            }
            _ => {
                let mut s = format!("snapshotConflictHorizon: {conflict_xid}, nredirected: {nredirected}, ndead: {ndead}");
                if let Some(data) = block0_data(rec) {
                    let items = prune_items_16(data, *nredirected, *ndead)?;
                    s.push_str(&format!(
                        ", nunused: {}, redirected:{}, dead:{}, unused:{}",
                        items.unused.len(),
                        redirects(&items.redirected),
                        offsets(&items.dead),
                        offsets(&items.unused)
                    ));
                }
                s
            }
        },
        HeapRecord::Vacuum { nunused } if old => format!("nunused {nunused}"),
        HeapRecord::Vacuum { nunused } => {
            let mut s = format!("nunused: {nunused}");
            if let Some(data) = block0_data(rec) {
                let unused = bytes(data, "vacuum offsets").u16s(0, usize::from(*nunused))?;
                s.push_str(&format!(", unused:{}", offsets(&unused)));
            }
            s
        }
        HeapRecord::FreezePage {
            conflict_xid,
            count,
            ..
        } if old => {
            format!("cutoff xid {conflict_xid} ntuples {count}")
        }
        HeapRecord::FreezePage {
            conflict_xid,
            count,
            ..
        } => {
            let mut s = format!("snapshotConflictHorizon: {conflict_xid}, nplans: {count}");
            if let Some(data) = block0_data(rec) {
                s.push_str(&format!(
                    ", plans:{}",
                    plans(&freeze_plans_16(data, *count)?)
                ));
            }
            s
        }
        HeapRecord::Prune {
            flags,
            conflict_xid,
        } => {
            let mut s = String::new();
            if let Some(x) = conflict_xid {
                s.push_str(&format!("snapshotConflictHorizon: {x}"));
            }
            s.push_str(&format!(
                ", isCatalogRel: {}",
                tf(flags & XLHP_IS_CATALOG_REL != 0)
            ));
            if v >= 19 && flags & XLHP_VM_ALL_VISIBLE != 0 {
                // All-visible, and all-frozen with it.
                let vm: u8 = if flags & XLHP_VM_ALL_FROZEN != 0 {
                    0x03
                } else {
                    0x01
                };
                s.push_str(&format!(", vm_flags: 0x{vm:02X}"));
            }
            if let Some(data) = block0_data(rec) {
                let items = prune_items_17(data, *flags)?;
                s.push_str(&format!(
                    ", nplans: {}, nredirected: {}, ndead: {}, nunused: {}",
                    items.plans.len(),
                    items.redirected.len(),
                    items.dead.len(),
                    items.unused.len()
                ));
                if !items.plans.is_empty() {
                    s.push_str(&format!(", plans:{}", plans(&items.plans)));
                }
                if !items.redirected.is_empty() {
                    s.push_str(&format!(", redirected:{}", redirects(&items.redirected)));
                }
                if !items.dead.is_empty() {
                    s.push_str(&format!(", dead:{}", offsets(&items.dead)));
                }
                if !items.unused.is_empty() {
                    s.push_str(&format!(", unused:{}", offsets(&items.unused)));
                }
            }
            s
        }
        HeapRecord::Visible {
            conflict_xid,
            flags,
        } if old => {
            format!("cutoff xid {conflict_xid} flags 0x{flags:02X}")
        }
        HeapRecord::Visible {
            conflict_xid,
            flags,
        } => {
            format!("snapshotConflictHorizon: {conflict_xid}, flags: 0x{flags:02X}")
        }
        HeapRecord::CleanupInfo { conflict_xid } => format!("remxid {conflict_xid}"),
        HeapRecord::MultiInsert {
            flags,
            ntuples,
            offsets: offs,
        } => {
            if old {
                format!("{ntuples} tuples flags 0x{flags:02X}")
            } else {
                let mut s = format!("ntuples: {ntuples}, flags: 0x{flags:02X}");
                if v >= 19 && flags & XLH_INSERT_ALL_FROZEN_SET != 0 {
                    s.push_str(&format!(", vm_flags: 0x{VISIBILITYMAP_VALID_BITS:02X}"));
                }
                if block0_data(rec).is_some() && !is_init(rec.info) {
                    s.push_str(&format!(", offsets:{}", offsets(offs)));
                }
                s
            }
        }
        HeapRecord::LockUpdated {
            xmax,
            offnum,
            infobits_set,
            flags,
        } => {
            if old {
                format!(
                    "off {offnum}: xmax {xmax}: flags 0x{flags:02X} {}",
                    infobits_15(*infobits_set)
                )
            } else {
                format!(
                    "xmax: {xmax}, off: {offnum}, {}, flags: 0x{flags:02X}",
                    infobits_16(*infobits_set, "infobits")
                )
            }
        }
        HeapRecord::NewCid {
            cmin,
            cmax,
            combocid,
            locator,
            tid,
            ..
        } => {
            if old {
                format!(
                    "rel {}/{}/{}; tid {}/{}; cmin: {cmin}, cmax: {cmax}, combo: {combocid}",
                    locator.0, locator.1, locator.2, tid.0, tid.1
                )
            } else {
                format!(
                    "rel: {}/{}/{}, tid: {}/{}, cmin: {cmin}, cmax: {cmax}, combo: {combocid}",
                    locator.0, locator.1, locator.2, tid.0, tid.1
                )
            }
        }
        HeapRecord::Rewrite => String::new(),
    })
}

/// standbydesc.c standby_desc_invalidations.
fn invalidations_desc(inv: &Invalidations) -> String {
    let mut s = String::new();
    if inv.relcache_init_file_inval {
        s.push_str(&format!(
            "; relcache init file inval dbid {} tsid {}",
            inv.db_id, inv.ts_id
        ));
    }
    s.push_str("; inval msgs:");
    for &(id, _db, oid) in &inv.msgs {
        match id {
            id if id >= 0 => s.push_str(&format!(" catcache {id}")),
            -1 => s.push_str(&format!(" catalog {oid}")),
            -2 => s.push_str(&format!(" relcache {oid}")),
            -3 => s.push_str(" smgr"),
            -4 => s.push_str(&format!(" relmap db {_db}")),
            -5 => s.push_str(&format!(" snapshot {oid}")),
            -6 => s.push_str(&format!(" relsync {oid}")),
            id => s.push_str(&format!(" unrecognized id {id}")),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_or_garbage_bodies_are_errors_never_panics() {
        for version in 13..=19 {
            for rmid in [RM_HEAP_ID, RM_HEAP2_ID] {
                for info in (0..=0xF0u8).step_by(0x10) {
                    for len in 0..40 {
                        let body: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
                        let _ = decode(version, rmid, info, &body);
                    }
                }
            }
        }
        assert!(decode(16, RM_HEAP_ID, 0, &[1]).unwrap().is_err());
        assert!(prune_items_17(&[1, 0, 0, 0], XLHP_HAS_FREEZE_PLANS).is_err());
        assert!(multi_insert_tuples(&[5, 0, 0, 0, 0, 0, 24, 1], 1).is_err());
    }

    #[test]
    fn prune_sub_records_come_in_flag_order() {
        // One plan of two tuples, one redirect, one unused.
        let mut b = Vec::new();
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&[0, 0]);
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&0x0802u16.to_le_bytes());
        b.extend_from_slice(&0x0B00u16.to_le_bytes());
        b.extend_from_slice(&[0, 0]);
        b.extend_from_slice(&2u16.to_le_bytes());
        for n in [1u16, 1, 2] {
            b.extend_from_slice(&n.to_le_bytes());
        }
        for n in [1u16, 3] {
            b.extend_from_slice(&n.to_le_bytes());
        }
        for n in [4u16, 5] {
            b.extend_from_slice(&n.to_le_bytes());
        }
        let flags = XLHP_HAS_FREEZE_PLANS | XLHP_HAS_REDIRECTIONS | XLHP_HAS_NOW_UNUSED_ITEMS;
        let items = prune_items_17(&b, flags).unwrap();
        assert_eq!(items.redirected, [(1, 2)]);
        assert_eq!(items.unused, [3]);
        assert_eq!(items.plans[0].offsets, [4, 5]);
        assert_eq!(items.plans[0].t_infomask, 0x0B00);
    }
}
