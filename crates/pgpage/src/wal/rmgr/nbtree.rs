//! B-tree records (access/nbtxlog.h of each release; access/rmgrdesc/nbtdesc.c): the main
//! data of every record type 13 to 19 writes, decoded into typed structs that redo can use,
//! and their descriptions. 14 made deleted pages' XIDs 64-bit and let DELETE update posting
//! lists; 16 renamed the fields in the descriptions ("snapshotConflictHorizon", `key: value`)
//! and listed VACUUM's and DELETE's offsets; 17 prints isCatalogRel.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{Body, Desc, RelFileLocator, WalRecord};

/// access/rmgrlist.h: the Btree resource manager's id.
pub const RM_BTREE_ID: u8 = 11;

pub const XLOG_BTREE_INSERT_LEAF: u8 = 0x00;
pub const XLOG_BTREE_INSERT_UPPER: u8 = 0x10;
pub const XLOG_BTREE_INSERT_META: u8 = 0x20;
pub const XLOG_BTREE_SPLIT_L: u8 = 0x30;
pub const XLOG_BTREE_SPLIT_R: u8 = 0x40;
pub const XLOG_BTREE_INSERT_POST: u8 = 0x50;
pub const XLOG_BTREE_DEDUP: u8 = 0x60;
pub const XLOG_BTREE_DELETE: u8 = 0x70;
pub const XLOG_BTREE_UNLINK_PAGE: u8 = 0x80;
pub const XLOG_BTREE_UNLINK_PAGE_META: u8 = 0x90;
pub const XLOG_BTREE_NEWROOT: u8 = 0xA0;
pub const XLOG_BTREE_MARK_PAGE_HALFDEAD: u8 = 0xB0;
pub const XLOG_BTREE_VACUUM: u8 = 0xC0;
pub const XLOG_BTREE_REUSE_PAGE: u8 = 0xD0;
pub const XLOG_BTREE_META_CLEANUP: u8 = 0xE0;

/// xl_btree_insert: INSERT_LEAF, INSERT_UPPER, INSERT_META and INSERT_POST.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XlBtreeInsert {
    pub offnum: u16,
}

/// xl_btree_split: SPLIT_L and SPLIT_R.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XlBtreeSplit {
    pub level: u32,
    pub firstrightoff: u16,
    pub newitemoff: u16,
    pub postingoff: u16,
}

/// xl_btree_dedup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XlBtreeDedup {
    pub nintervals: u16,
}

/// xl_btree_vacuum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XlBtreeVacuum {
    pub ndeleted: u16,
    pub nupdated: u16,
}

/// xl_btree_delete: latestRemovedXid and a 32-bit ndeleted in 13; 14 adds nupdated, 16
/// renames the XID snapshotConflictHorizon and adds isCatalogRel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XlBtreeDelete {
    pub snapshot_conflict_horizon: u32,
    pub ndeleted: u32,
    pub nupdated: u16,
    pub is_catalog_rel: Option<bool>,
}

/// xl_btree_mark_page_halfdead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XlBtreeMarkPageHalfdead {
    pub poffset: u16,
    pub leafblk: u32,
    pub leftblk: u32,
    pub rightblk: u32,
    pub topparent: u32,
}

/// xl_btree_unlink_page: 13 holds btpo_xact (32 bits) and topparent; 14 the target's level,
/// its 64-bit safexid, and leaftopparent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XlBtreeUnlinkPage {
    pub leftsib: u32,
    pub rightsib: u32,
    pub level: Option<u32>,
    /// safexid (14 and later, epoch in the high half) or btpo_xact (13).
    pub safexid: u64,
    pub leafleftsib: u32,
    pub leafrightsib: u32,
    pub leaftopparent: u32,
}

/// xl_btree_newroot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XlBtreeNewroot {
    pub rootblk: u32,
    pub level: u32,
}

/// xl_btree_reuse_page: a 32-bit latestRemovedXid in 13, a full XID since 14, isCatalogRel
/// since 16.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XlBtreeReusePage {
    pub locator: RelFileLocator,
    pub block: u32,
    pub snapshot_conflict_horizon: u64,
    pub is_catalog_rel: Option<bool>,
}

/// xl_btree_metadata (META_CLEANUP's block 0 data, INSERT_META's and others' metapage):
/// 13 has oldest_btpo_xact and last_cleanup_num_heap_tuples, 14 last_cleanup_num_delpages.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct XlBtreeMetadata {
    pub version: u32,
    pub root: u32,
    pub level: u32,
    pub fastroot: u32,
    pub fastlevel: u32,
    pub oldest_btpo_xact: Option<u32>,
    pub last_cleanup_num_heap_tuples: Option<f64>,
    pub last_cleanup_num_delpages: Option<u32>,
    pub allequalimage: bool,
}

/// xl_btree_update and the TID offsets after it: a posting list tuple losing some TIDs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BtreeUpdate {
    pub offnum: u16,
    pub ptids: Vec<u16>,
}

/// VACUUM's and DELETE's block 0 data: the deleted offsets, then the updated offsets, then
/// one xl_btree_update per updated offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BtreeDeletedAndUpdated {
    pub deleted: Vec<u16>,
    pub updated: Vec<BtreeUpdate>,
}

/// A B-tree record's main data (and, for META_CLEANUP, its block 0 data), by record type.
#[derive(Clone, Debug, PartialEq)]
pub enum BtreeRecord {
    InsertLeaf(XlBtreeInsert),
    InsertUpper(XlBtreeInsert),
    InsertMeta(XlBtreeInsert),
    InsertPost(XlBtreeInsert),
    SplitL(XlBtreeSplit),
    SplitR(XlBtreeSplit),
    Dedup(XlBtreeDedup),
    Vacuum(XlBtreeVacuum),
    Delete(XlBtreeDelete),
    MarkPageHalfdead(XlBtreeMarkPageHalfdead),
    UnlinkPage(XlBtreeUnlinkPage),
    UnlinkPageMeta(XlBtreeUnlinkPage),
    Newroot(XlBtreeNewroot),
    ReusePage(XlBtreeReusePage),
    MetaCleanup(XlBtreeMetadata),
}

impl XlBtreeMetadata {
    pub fn decode(version: u32, data: &[u8]) -> Result<XlBtreeMetadata, String> {
        let b = Body {
            bytes: data,
            what: "xl_btree_metadata",
        };
        let v13 = version <= 13;
        Ok(XlBtreeMetadata {
            version: b.u32(0, "version")?,
            root: b.u32(4, "root")?,
            level: b.u32(8, "level")?,
            fastroot: b.u32(12, "fastroot")?,
            fastlevel: b.u32(16, "fastlevel")?,
            oldest_btpo_xact: if v13 {
                Some(b.u32(20, "oldest_btpo_xact")?)
            } else {
                None
            },
            last_cleanup_num_heap_tuples: if v13 {
                Some(b.f64(24, "last_cleanup_num_heap_tuples")?)
            } else {
                None
            },
            last_cleanup_num_delpages: if v13 {
                None
            } else {
                Some(b.u32(20, "last_cleanup_num_delpages")?)
            },
            allequalimage: b.bool(if v13 { 32 } else { 24 }, "allequalimage")?,
        })
    }
}

impl BtreeDeletedAndUpdated {
    pub fn decode(data: &[u8], ndeleted: usize, nupdated: usize) -> Result<Self, String> {
        let b = Body {
            bytes: data,
            what: "the block's deleted and updated offsets",
        };
        let deleted_arr = b.array(0, ndeleted, 2, "deleted offsets")?;
        let updated_at = deleted_arr.len();
        let updated_arr = b.array(updated_at, nupdated, 2, "updated offsets")?;
        let deleted = (0..ndeleted)
            .map(|i| deleted_arr.u16(i.saturating_mul(2), "deleted offset"))
            .collect::<Result<Vec<u16>, String>>()?;
        let mut at = updated_at.saturating_add(updated_arr.len());
        let mut updated = Vec::new();
        for i in 0..nupdated {
            let offnum = updated_arr.u16(i.saturating_mul(2), "updated offset")?;
            let n = usize::from(b.u16(at, "ndeletedtids")?);
            let ptids_arr = b.array(at.saturating_add(2), n, 2, "ptids")?;
            let ptids = (0..n)
                .map(|p| ptids_arr.u16(p.saturating_mul(2), "ptid"))
                .collect::<Result<Vec<u16>, String>>()?;
            at = at.saturating_add(2).saturating_add(ptids_arr.len());
            updated.push(BtreeUpdate { offnum, ptids });
        }
        Ok(BtreeDeletedAndUpdated { deleted, updated })
    }
}

fn insert(b: &Body<'_>) -> Result<XlBtreeInsert, String> {
    Ok(XlBtreeInsert {
        offnum: b.u16(0, "offnum")?,
    })
}

fn split(b: &Body<'_>) -> Result<XlBtreeSplit, String> {
    Ok(XlBtreeSplit {
        level: b.u32(0, "level")?,
        firstrightoff: b.u16(4, "firstrightoff")?,
        newitemoff: b.u16(6, "newitemoff")?,
        postingoff: b.u16(8, "postingoff")?,
    })
}

fn unlink(version: u32, b: &Body<'_>) -> Result<XlBtreeUnlinkPage, String> {
    if version <= 13 {
        return Ok(XlBtreeUnlinkPage {
            leftsib: b.u32(0, "leftsib")?,
            rightsib: b.u32(4, "rightsib")?,
            level: None,
            leafleftsib: b.u32(8, "leafleftsib")?,
            leafrightsib: b.u32(12, "leafrightsib")?,
            leaftopparent: b.u32(16, "topparent")?,
            safexid: u64::from(b.u32(20, "btpo_xact")?),
        });
    }
    Ok(XlBtreeUnlinkPage {
        leftsib: b.u32(0, "leftsib")?,
        rightsib: b.u32(4, "rightsib")?,
        level: Some(b.u32(8, "level")?),
        safexid: b.u64(16, "safexid")?,
        leafleftsib: b.u32(24, "leafleftsib")?,
        leafrightsib: b.u32(28, "leafrightsib")?,
        leaftopparent: b.u32(32, "leaftopparent")?,
    })
}

impl BtreeRecord {
    /// The record's main data (and META_CLEANUP's block 0 data) for a record type `info` of
    /// WAL of `version`; None for a type B-tree does not write.
    pub fn decode(version: u32, info: u8, rec: &WalRecord<'_>) -> Option<Result<Self, String>> {
        let b = Body::main(rec, "the B-tree record's main data");
        let r = match info {
            XLOG_BTREE_INSERT_LEAF => insert(&b).map(BtreeRecord::InsertLeaf),
            XLOG_BTREE_INSERT_UPPER => insert(&b).map(BtreeRecord::InsertUpper),
            XLOG_BTREE_INSERT_META => insert(&b).map(BtreeRecord::InsertMeta),
            XLOG_BTREE_INSERT_POST => insert(&b).map(BtreeRecord::InsertPost),
            XLOG_BTREE_SPLIT_L => split(&b).map(BtreeRecord::SplitL),
            XLOG_BTREE_SPLIT_R => split(&b).map(BtreeRecord::SplitR),
            XLOG_BTREE_DEDUP => b
                .u16(0, "nintervals")
                .map(|nintervals| BtreeRecord::Dedup(XlBtreeDedup { nintervals })),
            XLOG_BTREE_VACUUM => (|| {
                Ok(BtreeRecord::Vacuum(XlBtreeVacuum {
                    ndeleted: b.u16(0, "ndeleted")?,
                    nupdated: b.u16(2, "nupdated")?,
                }))
            })(),
            XLOG_BTREE_DELETE => (|| {
                let horizon = b.u32(0, "snapshotConflictHorizon")?;
                Ok(BtreeRecord::Delete(if version <= 13 {
                    XlBtreeDelete {
                        snapshot_conflict_horizon: horizon,
                        ndeleted: b.u32(4, "ndeleted")?,
                        nupdated: 0,
                        is_catalog_rel: None,
                    }
                } else {
                    XlBtreeDelete {
                        snapshot_conflict_horizon: horizon,
                        ndeleted: u32::from(b.u16(4, "ndeleted")?),
                        nupdated: b.u16(6, "nupdated")?,
                        is_catalog_rel: if version >= 16 {
                            Some(b.bool(8, "isCatalogRel")?)
                        } else {
                            None
                        },
                    }
                }))
            })(),
            XLOG_BTREE_MARK_PAGE_HALFDEAD => (|| {
                Ok(BtreeRecord::MarkPageHalfdead(XlBtreeMarkPageHalfdead {
                    poffset: b.u16(0, "poffset")?,
                    leafblk: b.u32(4, "leafblk")?,
                    leftblk: b.u32(8, "leftblk")?,
                    rightblk: b.u32(12, "rightblk")?,
                    topparent: b.u32(16, "topparent")?,
                }))
            })(),
            XLOG_BTREE_UNLINK_PAGE => unlink(version, &b).map(BtreeRecord::UnlinkPage),
            XLOG_BTREE_UNLINK_PAGE_META => unlink(version, &b).map(BtreeRecord::UnlinkPageMeta),
            XLOG_BTREE_NEWROOT => (|| {
                Ok(BtreeRecord::Newroot(XlBtreeNewroot {
                    rootblk: b.u32(0, "rootblk")?,
                    level: b.u32(4, "level")?,
                }))
            })(),
            XLOG_BTREE_REUSE_PAGE => (|| {
                let locator = b.locator(0, "locator")?;
                let block = b.u32(12, "block")?;
                Ok(BtreeRecord::ReusePage(if version <= 13 {
                    XlBtreeReusePage {
                        locator,
                        block,
                        snapshot_conflict_horizon: u64::from(b.u32(16, "latestRemovedXid")?),
                        is_catalog_rel: None,
                    }
                } else {
                    XlBtreeReusePage {
                        locator,
                        block,
                        snapshot_conflict_horizon: b.u64(16, "snapshotConflictHorizon")?,
                        is_catalog_rel: if version >= 16 {
                            Some(b.bool(24, "isCatalogRel")?)
                        } else {
                            None
                        },
                    }
                }))
            })(),
            XLOG_BTREE_META_CLEANUP => {
                let data = rec.block_ref(0).map_or(&[][..], |blk| rec.block_data(blk));
                XlBtreeMetadata::decode(version, data).map(BtreeRecord::MetaCleanup)
            }
            _ => return None,
        };
        Some(r)
    }
}

/// `%u:%u` of a FullTransactionId: epoch, then xid.
fn full_xid(x: u64) -> String {
    format!("{}:{}", x >> 32, x & 0xFFFF_FFFF)
}

fn t_f(b: Option<bool>) -> char {
    if b == Some(true) {
        'T'
    } else {
        'F'
    }
}

/// C's `%f` of a double: six decimals; "nan", "inf" and "-inf" as glibc spells them.
fn c_float(x: f64) -> String {
    if x.is_nan() {
        String::from(if x.is_sign_negative() { "-nan" } else { "nan" })
    } else if x.is_infinite() {
        String::from(if x < 0.0 { "-inf" } else { "inf" })
    } else {
        format!("{x:.6}")
    }
}

/// nbtdesc.c delvacuum_desc (16 and later): the offsets deleted, then each updated posting
/// list tuple and the TIDs it loses.
fn delvacuum(
    s: &mut String,
    rec: &WalRecord<'_>,
    ndeleted: usize,
    nupdated: usize,
) -> Result<(), String> {
    let Some(blk) = rec.block_ref(0).filter(|b| b.data_length > 0) else {
        return Ok(());
    };
    let d = BtreeDeletedAndUpdated::decode(rec.block_data(blk), ndeleted, nupdated)?;
    s.push_str(", deleted:");
    if d.deleted.is_empty() {
        s.push_str(" []");
    } else {
        let list: Vec<String> = d.deleted.iter().map(|o| format!("{o}")).collect();
        s.push_str(&format!(" [{}]", list.join(", ")));
    }
    s.push_str(", updated: [");
    let updates: Vec<String> = d
        .updated
        .iter()
        .map(|u| {
            let ptids: Vec<String> = u.ptids.iter().map(|p| format!("{p}")).collect();
            format!(
                "{{ off: {}, nptids: {}, ptids: [{}] }}",
                u.offnum,
                u.ptids.len(),
                ptids.join(", ")
            )
        })
        .collect();
    s.push_str(&updates.join(", "));
    s.push(']');
    Ok(())
}

/// btree_desc of `version`.
pub(super) fn desc(version: u32, info: u8, rec: &WalRecord<'_>) -> Desc {
    let r = match BtreeRecord::decode(version, info, rec) {
        None => return Some(Ok(String::new())),
        Some(Err(why)) => return Some(Err(why)),
        Some(Ok(r)) => r,
    };
    // 16 turned "key value; key value" into "key: value, key: value".
    let new = version >= 16;
    let text = match r {
        BtreeRecord::InsertLeaf(x)
        | BtreeRecord::InsertUpper(x)
        | BtreeRecord::InsertMeta(x)
        | BtreeRecord::InsertPost(x) => {
            if new {
                format!("off: {}", x.offnum)
            } else {
                format!("off {}", x.offnum)
            }
        }
        BtreeRecord::SplitL(x) | BtreeRecord::SplitR(x) => {
            if new {
                format!(
                    "level: {}, firstrightoff: {}, newitemoff: {}, postingoff: {}",
                    x.level, x.firstrightoff, x.newitemoff, x.postingoff
                )
            } else {
                format!(
                    "level {}, firstrightoff {}, newitemoff {}, postingoff {}",
                    x.level, x.firstrightoff, x.newitemoff, x.postingoff
                )
            }
        }
        BtreeRecord::Dedup(x) => {
            if new {
                format!("nintervals: {}", x.nintervals)
            } else {
                format!("nintervals {}", x.nintervals)
            }
        }
        BtreeRecord::Vacuum(x) => {
            if new {
                let mut s = format!("ndeleted: {}, nupdated: {}", x.ndeleted, x.nupdated);
                if let Err(why) = delvacuum(
                    &mut s,
                    rec,
                    usize::from(x.ndeleted),
                    usize::from(x.nupdated),
                ) {
                    return Some(Err(why));
                }
                s
            } else {
                format!("ndeleted {}; nupdated {}", x.ndeleted, x.nupdated)
            }
        }
        BtreeRecord::Delete(x) => {
            if version <= 13 {
                format!(
                    "latestRemovedXid {}; ndeleted {}",
                    x.snapshot_conflict_horizon, x.ndeleted
                )
            } else if !new {
                format!(
                    "latestRemovedXid {}; ndeleted {}; nupdated {}",
                    x.snapshot_conflict_horizon, x.ndeleted, x.nupdated
                )
            } else {
                let mut s = format!(
                    "snapshotConflictHorizon: {}, ndeleted: {}, nupdated: {}",
                    x.snapshot_conflict_horizon, x.ndeleted, x.nupdated
                );
                if version >= 17 {
                    s.push_str(&format!(", isCatalogRel: {}", t_f(x.is_catalog_rel)));
                }
                let ndeleted = usize::try_from(x.ndeleted).unwrap_or(usize::MAX);
                if let Err(why) = delvacuum(&mut s, rec, ndeleted, usize::from(x.nupdated)) {
                    return Some(Err(why));
                }
                s
            }
        }
        BtreeRecord::MarkPageHalfdead(x) => {
            if new {
                format!(
                    "topparent: {}, leaf: {}, left: {}, right: {}",
                    x.topparent, x.leafblk, x.leftblk, x.rightblk
                )
            } else {
                format!(
                    "topparent {}; leaf {}; left {}; right {}",
                    x.topparent, x.leafblk, x.leftblk, x.rightblk
                )
            }
        }
        BtreeRecord::UnlinkPage(x) | BtreeRecord::UnlinkPageMeta(x) => {
            if version <= 13 {
                format!(
                    "left {}; right {}; btpo_xact {}; leafleft {}; leafright {}; topparent {}",
                    x.leftsib,
                    x.rightsib,
                    x.safexid,
                    x.leafleftsib,
                    x.leafrightsib,
                    x.leaftopparent
                )
            } else {
                let level = x.level.unwrap_or(0);
                if new {
                    format!(
                        "left: {}, right: {}, level: {level}, safexid: {}, leafleft: {}, leafright: {}, leaftopparent: {}",
                        x.leftsib, x.rightsib, full_xid(x.safexid), x.leafleftsib, x.leafrightsib, x.leaftopparent
                    )
                } else {
                    format!(
                        "left {}; right {}; level {level}; safexid {}; leafleft {}; leafright {}; leaftopparent {}",
                        x.leftsib, x.rightsib, full_xid(x.safexid), x.leafleftsib, x.leafrightsib, x.leaftopparent
                    )
                }
            }
        }
        BtreeRecord::Newroot(x) => {
            if new {
                format!("level: {}", x.level)
            } else {
                format!("lev {}", x.level)
            }
        }
        BtreeRecord::ReusePage(x) => {
            let l = x.locator;
            if version <= 13 {
                format!(
                    "rel {}/{}/{}; latestRemovedXid {}",
                    l.spc_oid, l.db_oid, l.rel_number, x.snapshot_conflict_horizon
                )
            } else if !new {
                format!(
                    "rel {}/{}/{}; latestRemovedXid {}",
                    l.spc_oid,
                    l.db_oid,
                    l.rel_number,
                    full_xid(x.snapshot_conflict_horizon)
                )
            } else {
                let mut s = format!(
                    "rel: {}/{}/{}, snapshotConflictHorizon: {}",
                    l.spc_oid,
                    l.db_oid,
                    l.rel_number,
                    full_xid(x.snapshot_conflict_horizon)
                );
                if version >= 17 {
                    s.push_str(&format!(", isCatalogRel: {}", t_f(x.is_catalog_rel)));
                }
                s
            }
        }
        BtreeRecord::MetaCleanup(m) => {
            if version <= 13 {
                format!(
                    "oldest_btpo_xact {}; last_cleanup_num_heap_tuples: {}",
                    m.oldest_btpo_xact.unwrap_or(0),
                    c_float(m.last_cleanup_num_heap_tuples.unwrap_or(0.0))
                )
            } else if new {
                format!(
                    "last_cleanup_num_delpages: {}",
                    m.last_cleanup_num_delpages.unwrap_or(0)
                )
            } else {
                format!(
                    "last_cleanup_num_delpages {}",
                    m.last_cleanup_num_delpages.unwrap_or(0)
                )
            }
        }
    };
    Some(Ok(text))
}
