//! nbtree.h: the btpo_flags bits, the pivot tuple's t_tid encoding, the metapage magic and
//! versions, item numbers on a page (P_HIKEY) and links (P_NONE), and the rows
//! bt_page_items(), bt_metap() and bt_page_stats() show.

use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

pub(crate) const BTP_LEAF: u16 = 1 << 0;

pub(crate) const BTP_ROOT: u16 = 1 << 1;

pub(crate) const BTP_HALF_DEAD: u16 = 1 << 4;

pub(crate) const BTP_INCOMPLETE_SPLIT: u16 = 1 << 7;

pub(crate) const BTP_HAS_FULLXID: u16 = 1 << 8;

/// nbtree.h: INDEX_ALT_TID_MASK (= INDEX_AM_RESERVED_BIT) and the t_tid offset bits.
pub(crate) const INDEX_ALT_TID_MASK: u16 = 0x2000;

pub(crate) const BT_OFFSET_MASK: u16 = 0x0FFF;

pub(crate) const BT_PIVOT_HEAP_TID_ATTR: u16 = 0x1000;

pub(crate) const BT_IS_POSTING: u16 = 0x2000;

/// nbtree.h: BTREE_MAGIC.
pub(crate) const BTREE_MAGIC: u32 = 0x053162;

/// nbtree.h: BTREE_NOVAC_VERSION, the first version with the extended metapage fields.
pub(crate) const BTREE_NOVAC_VERSION: u32 = 3;

/// One bt_page_items() row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BtreeItem {
    pub itemoffset: u16,
    pub ctid: String,
    pub itemlen: u16,
    pub nulls: bool,
    pub vars: bool,
    pub data: String,
    pub dead: Option<bool>,
    pub htid: Option<String>,
    pub tids: Option<Vec<String>>,
}

/// bt_metap()'s columns.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BtreeMeta {
    pub magic: u32,
    pub version: u32,
    pub root: u32,
    pub level: u32,
    pub fastroot: u32,
    pub fastlevel: u32,
    /// PostgreSQL 14 on; 13's bt_metap shows the same word as `oldest_xact`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_cleanup_num_delpages: Option<u32>,
    /// PostgreSQL 13: btm_oldest_btpo_xact, a TransactionId (see `BtreeSpecial::name_for`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oldest_xact: Option<String>,
    pub last_cleanup_num_tuples: f64,
    pub allequalimage: bool,
}

/// BTPageOpaqueData with bt_page_stats()' columns (btpo_* as there; `type` its letter).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BtreeSpecial {
    pub btpo_prev: u32,
    pub btpo_next: u32,
    /// PostgreSQL 14 on; 13's bt_page_stats calls the same word `btpo` (a union of the level
    /// and, on deleted pages, an xid).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub btpo_level: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub btpo: Option<u32>,
    pub btpo_flags: u16,
    pub btpo_cycleid: u16,
    pub flags: Vec<&'static str>,
    #[serde(rename = "type")]
    pub page_type: String,
    pub live_items: u32,
    pub dead_items: u32,
    pub avg_item_size: u32,
    pub page_size: u16,
    pub free_size: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta: Option<BtreeMeta>,
}

impl BtreeSpecial {
    /// Names the columns as `major`'s pageinspect does: 13's bt_page_stats has `btpo` where
    /// 14 on have `btpo_level`, and its bt_metap `oldest_xact` (an xid) where 14 on have
    /// `last_cleanup_num_delpages` (nbtree.h: the same 4 bytes, reinterpreted in 14).
    pub fn name_for(&mut self, major: u32) {
        if major >= 14 {
            return;
        }
        self.btpo = self.btpo_level.take().or(self.btpo);
        if let Some(m) = self.meta.as_mut() {
            if let Some(v) = m.last_cleanup_num_delpages.take() {
                m.oldest_xact = Some(alloc::format!("{v}"));
            }
        }
    }
}

/// nbtree.h: P_HIKEY.
pub(crate) const P_HIKEY: u16 = 1;

/// nbtree.h: P_NONE.
pub(crate) const P_NONE: u32 = 0;

/// nbtree.h: BTREE_VERSION 4, the first heapkeyspace version (PostgreSQL 12).
pub(crate) const BTREE_HEAPKEYSPACE_VERSION: u32 = 4;

/// nbtree.h: MAX_BT_CYCLE_ID, the largest btpo_cycleid; the page ids of hash, GiST and
/// SP-GiST pages, kept in the same last two bytes, lie above it.
pub(crate) const MAX_BT_CYCLE_ID: u32 = 0xFF7F;
