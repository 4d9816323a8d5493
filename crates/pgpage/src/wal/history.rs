//! For chosen blocks: the newest full-page image and every record after it that touched the
//! block. An image is the page as it was when its record was written; the records after it
//! changed the page again, and only replaying them (not this image alone) gives the page the
//! server had last.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use super::record::WalRecord;
use super::{RelFileLocator, RelationFilter};

/// A block of a relation fork.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BlockKey {
    pub locator: RelFileLocator,
    pub fork: u8,
    pub block: u32,
}

/// One record that referenced the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Touch {
    pub lsn: u64,
    pub rmid: u8,
    pub info: u8,
    /// The record carries an image of the block.
    pub image: bool,
    /// BKPBLOCK_WILL_INIT: replay builds the page from nothing, so no image is needed before it.
    pub will_init: bool,
}

/// The blocks kept: those of `block` (in every relation, or in `relation` when given).
#[derive(Debug, Default)]
pub struct BlockHistory {
    relation: Option<RelationFilter>,
    block: u32,
    blocks: BTreeMap<BlockKey, (Option<Touch>, Vec<Touch>)>,
}

impl BlockHistory {
    pub fn new(relation: Option<RelationFilter>, block: u32) -> BlockHistory {
        BlockHistory {
            relation,
            block,
            blocks: BTreeMap::new(),
        }
    }

    pub fn observe(&mut self, rec: &WalRecord<'_>) {
        for b in rec.blocks {
            if b.block != self.block || !self.relation.is_none_or(|r| r.matches(&b.locator)) {
                continue;
            }
            let key = BlockKey {
                locator: b.locator,
                fork: b.fork,
                block: b.block,
            };
            let touch = Touch {
                lsn: rec.lsn,
                rmid: rec.rmid,
                info: rec.info,
                image: b.image.is_some(),
                will_init: b.will_init,
            };
            let entry = self.blocks.entry(key).or_default();
            if touch.image {
                *entry = (Some(touch), Vec::new());
            } else {
                entry.1.push(touch);
            }
        }
    }

    /// Each block seen: its newest image's record (if any), and the records after it.
    pub fn blocks(&self) -> impl Iterator<Item = (&BlockKey, Option<&Touch>, &[Touch])> {
        self.blocks
            .iter()
            .map(|(k, (image, after))| (k, image.as_ref(), after.as_slice()))
    }
}
