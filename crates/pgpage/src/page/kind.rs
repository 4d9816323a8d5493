//! What a page is (its access method's page kind, docs/contracts.md `kind`) and which fork of its
//! relation it belongs to (common/relpath.h ForkNumber).

use serde::Serialize;

/// What kind of page this is (docs/contracts.md, "inspect --json": `kind`).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PageKind {
    Heap,
    Sequence,
    Btree,
    Hash,
    Gist,
    Gin,
    Spgist,
    Brin,
    Fsm,
    Vm,
    Unknown,
}

impl PageKind {
    pub const ALL: [PageKind; 11] = [
        PageKind::Heap,
        PageKind::Sequence,
        PageKind::Btree,
        PageKind::Hash,
        PageKind::Gist,
        PageKind::Gin,
        PageKind::Spgist,
        PageKind::Brin,
        PageKind::Fsm,
        PageKind::Vm,
        PageKind::Unknown,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PageKind::Heap => "heap",
            PageKind::Sequence => "sequence",
            PageKind::Btree => "btree",
            PageKind::Hash => "hash",
            PageKind::Gist => "gist",
            PageKind::Gin => "gin",
            PageKind::Spgist => "spgist",
            PageKind::Brin => "brin",
            PageKind::Fsm => "fsm",
            PageKind::Vm => "vm",
            PageKind::Unknown => "unknown",
        }
    }

    pub fn parse(s: &str) -> Option<PageKind> {
        PageKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// relpath.h: ForkNumber, by the suffix PostgreSQL gives each fork's files.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Fork {
    Main,
    Fsm,
    Vm,
    Init,
}

/// common/relpath.c: forkNames, indexed by ForkNumber.
pub const FORK_NAMES: [&str; 4] = ["main", "fsm", "vm", "init"];

/// pg_tablespace_d.h: DEFAULTTABLESPACE_OID (base/) and GLOBALTABLESPACE_OID (global/), the
/// tablespaces whose paths relpath.c spells without a version directory.
pub const DEFAULTTABLESPACE_OID: u32 = 1663;
pub const GLOBALTABLESPACE_OID: u32 = 1664;
/// common/relpath.h ForkNumber: the visibility map's fork.
pub const VISIBILITYMAP_FORKNUM: u8 = 2;

impl Fork {
    /// relpath.c: forkNames.
    pub fn as_str(self) -> &'static str {
        match self {
            Fork::Main => FORK_NAMES[0],
            Fork::Fsm => FORK_NAMES[1],
            Fork::Vm => FORK_NAMES[2],
            Fork::Init => FORK_NAMES[3],
        }
    }

    /// The fork a file name's `_suffix` names (relpath.c forkname_to_number); the main fork
    /// has no suffix, so `main` names none.
    pub fn from_suffix(suffix: &str) -> Option<Fork> {
        [Fork::Fsm, Fork::Vm, Fork::Init]
            .into_iter()
            .find(|f| f.as_str() == suffix)
    }
}
