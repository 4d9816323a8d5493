//! What a WAL record that touched a heap page did to its rows, for the records after a
//! full-page image: the image lacks their changes, and whether restoring it loses a row
//! depends on what they were. Pruning (pruneheap.c) and VACUUM's second pass
//! (vacuumlazy.c) only remove versions no snapshot sees; VISIBLE sets PD_ALL_VISIBLE and
//! the visibility map; a lock changes xmax to a locker's; freezing rewrites xmin; every
//! other heap record inserts, deletes or updates rows.

use alloc::format;
use alloc::string::String;

use super::names::{record_type, HEAP, HEAP2, XLOG};

/// What one record did to the rows of the heap page it touched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RowEffect {
    /// Pruning or VACUUM: removes row versions no snapshot sees, and their line pointers.
    RemovesDead,
    /// VACUUM's pruning of 17 and later: removes dead versions and may freeze rows.
    RemovesDeadMayFreeze,
    /// Freezes rows (xmin made frozen).
    Freezes,
    /// Marks the page all-visible.
    AllVisible,
    /// Locks a row (SELECT ... FOR UPDATE/SHARE, or a key-share lock of a foreign key).
    Locks,
    /// Inserts, deletes or updates rows.
    ChangesRows,
    /// Another full-page image of the block.
    Image,
    /// Adds, moves or removes an index's entries (an index access method's record).
    IndexEntries,
    /// A record pgpage does not read for its effect (not a heap record).
    Unknown,
}

impl RowEffect {
    /// The effect of the record `rmid`/`info` in WAL of `version`.
    pub fn of(version: u32, rmid: u8, info: u8) -> RowEffect {
        let name = record_type(version, rmid, info);
        match (rmid, name.as_str()) {
            (XLOG, "FPI" | "FPI_FOR_HINT") => RowEffect::Image,
            (HEAP2, "CLEAN" | "PRUNE" | "VACUUM" | "PRUNE_ON_ACCESS" | "PRUNE_VACUUM_CLEANUP") => {
                RowEffect::RemovesDead
            }
            (HEAP2, "PRUNE_VACUUM_SCAN") => RowEffect::RemovesDeadMayFreeze,
            (HEAP2, "FREEZE_PAGE") => RowEffect::Freezes,
            (HEAP2, "VISIBLE") => RowEffect::AllVisible,
            (HEAP2, "LOCK_UPDATED") | (HEAP, "LOCK") => RowEffect::Locks,
            (HEAP2, "MULTI_INSERT" | "MULTI_INSERT+INIT")
            | (
                HEAP,
                "INSERT" | "INSERT+INIT" | "DELETE" | "UPDATE" | "UPDATE+INIT" | "HOT_UPDATE"
                | "HOT_UPDATE+INIT" | "HEAP_CONFIRM" | "INPLACE",
            ) => RowEffect::ChangesRows,
            // Btree, Hash, Gin, Gist, SpGist, Brin (rmgrlist.h).
            (11..=14 | 16 | 17, _) => RowEffect::IndexEntries,
            _ => RowEffect::Unknown,
        }
    }

    /// What the record did, as a clause after its name.
    pub fn words(self) -> &'static str {
        match self {
            RowEffect::RemovesDead => "removes dead row versions only",
            RowEffect::RemovesDeadMayFreeze => "removes dead row versions and may freeze rows",
            RowEffect::Freezes => "freezes rows",
            RowEffect::AllVisible => "marks the page all-visible",
            RowEffect::Locks => "locks a row",
            RowEffect::ChangesRows => "changes rows",
            RowEffect::Image => "another image of the block",
            RowEffect::IndexEntries => "changes index entries",
            RowEffect::Unknown => "a change pgpage does not interpret",
        }
    }
}

/// What putting `what` (an image, a backup's page) in place loses, given the effects of the
/// records that touched the block after it: one sentence.
pub fn restoring(what: &str, effects: &[RowEffect]) -> String {
    let any = |e: &[RowEffect]| effects.iter().any(|x| e.contains(x));
    if effects.is_empty() {
        format!(
            "no record touched the block after {what}: it is the page as the WAL last logged it (hint bits set since are not logged)"
        )
    } else if any(&[RowEffect::IndexEntries]) {
        format!("restoring {what} leaves the index page older than its table: entries added since are missing and entries removed since come back, so scans miss rows or reach wrong ones. Rebuild the block from the WAL (every record replayed), or REINDEX")
    } else if any(&[RowEffect::ChangesRows]) {
        format!("restoring {what} loses what the records that change rows did (rows inserted or updated since are missing, rows deleted since come back); pgpage recover, or the server's recovery, replays them")
    } else if any(&[RowEffect::Unknown, RowEffect::Image]) {
        format!("pgpage cannot say what restoring {what} loses; pgpage recover, or the server's recovery, replays those records")
    } else if any(&[RowEffect::Freezes, RowEffect::RemovesDeadMayFreeze]) {
        format!("restoring {what} loses no visible row, but rows frozen since are not frozen on it: if the table's relfrozenxid has passed their xmin, the server reports them as corruption (found xmin from before relfrozenxid)")
    } else {
        format!("restoring {what} loses no visible row (the dead versions removed since come back until VACUUM removes them again)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn effects_follow_the_release() {
        assert_eq!(RowEffect::of(16, HEAP2, 0x10), RowEffect::RemovesDead);
        assert_eq!(RowEffect::of(16, HEAP2, 0x30), RowEffect::Freezes);
        assert_eq!(
            RowEffect::of(17, HEAP2, 0x20),
            RowEffect::RemovesDeadMayFreeze
        );
        assert_eq!(RowEffect::of(17, HEAP2, 0x30), RowEffect::RemovesDead);
        assert_eq!(RowEffect::of(18, HEAP, 0x80), RowEffect::ChangesRows);
        assert_eq!(RowEffect::of(18, HEAP, 0x60), RowEffect::Locks);
        assert_eq!(RowEffect::of(18, 11, 0x00), RowEffect::IndexEntries);
        assert_eq!(RowEffect::of(18, 15, 0x00), RowEffect::Unknown);
    }

    #[test]
    fn a_row_change_outweighs_pruning() {
        let prune = [RowEffect::RemovesDead, RowEffect::AllVisible];
        assert!(
            restoring("the image", &prune).starts_with("restoring the image loses no visible row")
        );
        let mixed = [RowEffect::RemovesDead, RowEffect::ChangesRows];
        assert!(restoring("the image", &mixed).contains("rows deleted since come back"));
    }
}
