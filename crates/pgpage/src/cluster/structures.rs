//! What the structural checks know of a data directory's relations (`scan::Structure`, one
//! per relation of its catalogs' listing), decided here once for the CLI and the browser,
//! and as bytes: the browser reads the catalogs in one worker and checks pages in others,
//! which get these bytes rather than a second telling of how a catalog row becomes hints.

use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec::Vec;

use crate::am::heap::check::HeapContext;
use crate::am::nbtree::check::{KeyColumn, KeyType};
use crate::cluster::catalog::names::{file_page_kind, FIRST_NORMAL_OBJECT_ID};
use crate::cluster::catalog::reader::{CatalogListing, ListedRelation};
use crate::cluster::control::ControlFile;
use crate::file::scan::Structure;
use crate::page::geometry::Endian;
use crate::page::kind::{Fork, PageKind};
use crate::tuple::visibility::{SlruKind, TransactionLog};

/// One relation's hints, and why the order of its items is not checked when it is an index
/// whose key types pgpage cannot order (None for the catalogs' own: the server's to keep,
/// said unchecked they would drown the note for the user's indexes).
pub fn relation_structure(
    listing: &CatalogListing,
    listed: &ListedRelation,
    control: Option<&ControlFile>,
    xact: Option<&Arc<TransactionLog>>,
) -> (Structure, Option<String>) {
    let r = &listed.relation;
    // A relation of an access method pgpage does not decode (contrib/bloom, pgvector, a
    // table AM other than heap) is `Unknown`: its pages are not checked, whatever their
    // special space looks like on its own. Without its pg_am name (that catalog unread),
    // each page is checked as its own special space says.
    let kind = file_page_kind(Fork::Main, r.relkind, r.am.as_deref())
        .or_else(|| r.am.as_ref().map(|_| PageKind::Unknown));
    let heap = control
        .filter(|_| kind == Some(PageKind::Heap))
        .and_then(|c| crate::cluster::hints::heap_context(c, r, None));
    let (keys, unchecked) = match kind {
        Some(PageKind::Btree | PageKind::Gin) => {
            match listing.index_keys.get(&(r.database_oid, r.oid)) {
                Some(Ok(keys)) => (Some(keys.clone()), None),
                Some(Err(why)) => (None, Some(why.clone())),
                None => (None, Some("pg_index has no row for it".to_string())),
            }
        }
        _ => (None, None),
    };
    let structure = Structure {
        kind,
        heap,
        xact: heap.and(xact.cloned()),
        keys,
    };
    (
        structure,
        unchecked.filter(|_| r.oid >= FIRST_NORMAL_OBJECT_ID),
    )
}

/// The hints of every relation of a listing, in its order (`CatalogListing::relations`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Structures {
    pub relations: Vec<Arc<Structure>>,
}

/// Bytes that are not `Structures::export`'s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotStructures;

impl core::fmt::Display for NotStructures {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("not the structural checks' hints of a data directory")
    }
}

const MAGIC: &[u8; 4] = b"PGST";
const VERSION: u8 = 3;

/// The order of `KeyType`'s codes in the bytes.
const KEY_TYPES: [KeyType; 7] = [
    KeyType::Int2,
    KeyType::Int4,
    KeyType::Int8,
    KeyType::Oid,
    KeyType::Date,
    KeyType::Timestamp,
    KeyType::Text,
];

impl Structures {
    /// Each relation's hints, from its data directory's pg_control (None: not trusted, no
    /// heap is judged against its horizon) and the listing's pg_xact.
    pub fn of_listing(listing: &CatalogListing, control: Option<&ControlFile>) -> Structures {
        let xact = listing.log.clone().map(Arc::new);
        let relations = listing
            .relations
            .iter()
            .map(|listed| Arc::new(relation_structure(listing, listed, control, xact.as_ref()).0))
            .collect();
        Structures { relations }
    }

    /// The hints as bytes, pg_xact once for all the heaps that share it.
    pub fn export(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.push(VERSION);
        let xact = self.relations.iter().find_map(|s| s.xact.as_deref());
        match xact {
            None => out.push(0),
            Some(log) => {
                out.push(1);
                let (block_size, endian) = log.geometry();
                put_u32(&mut out, u32::try_from(block_size).unwrap_or(0));
                out.push(u8::from(endian == Endian::Big));
                out.push(u8::from(log.multixact_offsets_64()));
                match log.next_multi() {
                    None => out.push(0),
                    Some((multi, offset)) => {
                        out.push(1);
                        put_u32(&mut out, multi);
                        out.extend_from_slice(&offset.to_le_bytes());
                    }
                }
                let segments: Vec<_> = log.segments().collect();
                put_u32(&mut out, len32(segments.len()));
                for (kind, n, bytes) in segments {
                    out.push(match kind {
                        SlruKind::Xact => 0,
                        SlruKind::MultiXactOffsets => 1,
                        SlruKind::MultiXactMembers => 2,
                    });
                    put_u32(&mut out, n);
                    put_u32(&mut out, len32(bytes.len()));
                    out.extend_from_slice(bytes);
                }
            }
        }
        put_u32(&mut out, len32(self.relations.len()));
        for s in &self.relations {
            out.push(s.kind.map_or(0, |k| {
                PageKind::ALL
                    .iter()
                    .position(|&a| a == k)
                    .and_then(|i| u8::try_from(i).ok())
                    .map_or(0, |i| i.saturating_add(1))
            }));
            match &s.heap {
                None => out.push(0),
                Some(h) => {
                    out.push(if s.xact.is_some() { 2 } else { 1 });
                    out.extend_from_slice(&h.relnatts.to_le_bytes());
                    put_u32(&mut out, h.relfrozenxid);
                    put_u32(&mut out, h.relminmxid);
                    out.extend_from_slice(&h.next_full_xid.to_le_bytes());
                    put_u32(&mut out, h.oldest_xid);
                    put_u32(&mut out, h.oldest_multi);
                    put_u32(&mut out, h.next_multi);
                    out.push(u8::from(h.next_known));
                    put_u32(&mut out, h.pg_control_version);
                }
            }
            match &s.keys {
                None => out.push(0),
                Some(keys) => {
                    out.push(1);
                    out.extend_from_slice(&u16::try_from(keys.len()).unwrap_or(0).to_le_bytes());
                    for k in keys.iter().take(usize::from(u16::MAX)) {
                        let ty = KEY_TYPES.iter().position(|&t| t == k.ty).unwrap_or(0);
                        out.push(u8::try_from(ty).unwrap_or(0));
                        out.push(u8::from(k.desc) | u8::from(k.nulls_first) << 1);
                    }
                }
            }
        }
        out
    }

    /// The hints from `export`'s bytes.
    pub fn import(bytes: &[u8]) -> Result<Structures, NotStructures> {
        let mut r = Bytes(bytes);
        if r.take(4)? != MAGIC || r.u8()? != VERSION {
            return Err(NotStructures);
        }
        let xact = match r.u8()? {
            0 => None,
            1 => {
                let block_size = usize::try_from(r.u32()?).map_err(|_| NotStructures)?;
                let endian = if r.u8()? == 1 {
                    Endian::Big
                } else {
                    Endian::Little
                };
                let mut log = TransactionLog::new(block_size, endian);
                if r.u8()? == 1 {
                    log.set_major(19);
                }
                if r.u8()? == 1 {
                    let (multi, offset) = (r.u32()?, r.u64()?);
                    log.set_next_multi(multi, offset);
                }
                for _ in 0..r.u32()? {
                    let kind = match r.u8()? {
                        0 => SlruKind::Xact,
                        1 => SlruKind::MultiXactOffsets,
                        2 => SlruKind::MultiXactMembers,
                        _ => return Err(NotStructures),
                    };
                    let n = r.u32()?;
                    let len = usize::try_from(r.u32()?).map_err(|_| NotStructures)?;
                    log.add_segment(kind, n, r.take(len)?.to_vec());
                }
                Some(Arc::new(log))
            }
            _ => return Err(NotStructures),
        };
        let count = r.u32()?;
        // Each relation takes at least 3 bytes: a count past them is not ours.
        let most = r.0.len().checked_div(3).unwrap_or(0);
        let mut relations = Vec::with_capacity(usize::try_from(count).unwrap_or(0).min(most));
        for _ in 0..count {
            let kind = match r.u8()? {
                0 => None,
                k => Some(
                    *PageKind::ALL
                        .get(usize::from(k.saturating_sub(1)))
                        .ok_or(NotStructures)?,
                ),
            };
            let (heap, with_xact) = match r.u8()? {
                0 => (None, false),
                tag @ (1 | 2) => {
                    let h = HeapContext {
                        relnatts: r.u16()?,
                        relfrozenxid: r.u32()?,
                        relminmxid: r.u32()?,
                        next_full_xid: r.u64()?,
                        oldest_xid: r.u32()?,
                        oldest_multi: r.u32()?,
                        next_multi: r.u32()?,
                        next_known: match r.u8()? {
                            0 => false,
                            1 => true,
                            _ => return Err(NotStructures),
                        },
                        pg_control_version: r.u32()?,
                        xact: None,
                    };
                    (Some(h), tag == 2)
                }
                _ => return Err(NotStructures),
            };
            let keys = match r.u8()? {
                0 => None,
                1 => {
                    let n = r.u16()?;
                    let mut keys = Vec::new();
                    for _ in 0..n {
                        let ty = *KEY_TYPES.get(usize::from(r.u8()?)).ok_or(NotStructures)?;
                        let bits = r.u8()?;
                        keys.push(KeyColumn {
                            ty,
                            desc: bits & 1 != 0,
                            nulls_first: bits & 2 != 0,
                        });
                    }
                    Some(keys)
                }
                _ => return Err(NotStructures),
            };
            relations.push(Arc::new(Structure {
                kind,
                heap,
                xact: xact.clone().filter(|_| with_xact),
                keys,
            }));
        }
        if !r.0.is_empty() {
            return Err(NotStructures);
        }
        Ok(Structures { relations })
    }
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn len32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

struct Bytes<'a>(&'a [u8]);

impl<'a> Bytes<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], NotStructures> {
        let (head, rest) = self.0.split_at_checked(n).ok_or(NotStructures)?;
        self.0 = rest;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], NotStructures> {
        self.take(N)?.try_into().map_err(|_| NotStructures)
    }

    fn u8(&mut self) -> Result<u8, NotStructures> {
        Ok(u8::from_le_bytes(self.array()?))
    }

    fn u16(&mut self) -> Result<u16, NotStructures> {
        Ok(u16::from_le_bytes(self.array()?))
    }

    fn u32(&mut self) -> Result<u32, NotStructures> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64, NotStructures> {
        Ok(u64::from_le_bytes(self.array()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hints of every part (kinds, a heap with and without pg_xact, key columns with every
    /// option) come back from their bytes as they went; anything cut short or padded is
    /// refused, never a panic.
    #[test]
    fn export_import_round_trip() {
        let mut log = TransactionLog::new(8192, Endian::Little);
        log.add_segment(SlruKind::Xact, 0, alloc::vec![0x55; 8192]);
        log.add_segment(SlruKind::MultiXactOffsets, 3, alloc::vec![1, 2, 3]);
        log.set_next_multi(7, 9);
        let log = Arc::new(log);
        let heap = HeapContext {
            relnatts: 3,
            pg_control_version: 1903,
            relfrozenxid: 730,
            relminmxid: 1,
            next_full_xid: (2 << 32) | 900,
            oldest_xid: 720,
            oldest_multi: 1,
            next_multi: 7,
            next_known: true,
            xact: None,
        };
        let set = Structures {
            relations: alloc::vec![
                Arc::new(Structure::default()),
                Arc::new(Structure {
                    kind: Some(PageKind::Heap),
                    heap: Some(heap),
                    xact: Some(Arc::clone(&log)),
                    keys: None,
                }),
                Arc::new(Structure {
                    kind: Some(PageKind::Heap),
                    heap: Some(heap),
                    xact: None,
                    keys: None,
                }),
                Arc::new(Structure {
                    kind: Some(PageKind::Heap),
                    heap: Some(HeapContext {
                        next_known: false,
                        ..heap
                    }),
                    xact: None,
                    keys: None,
                }),
                Arc::new(Structure {
                    kind: Some(PageKind::Btree),
                    heap: None,
                    xact: None,
                    keys: Some(
                        KEY_TYPES
                            .iter()
                            .enumerate()
                            .map(|(i, &ty)| KeyColumn {
                                ty,
                                desc: i % 2 == 0,
                                nulls_first: i % 3 == 0,
                            })
                            .collect()
                    ),
                }),
                Arc::new(Structure {
                    kind: Some(PageKind::Unknown),
                    ..Structure::default()
                }),
            ],
        };
        let bytes = set.export();
        assert_eq!(Structures::import(&bytes), Ok(set));
        for n in 0..bytes.len() {
            assert_eq!(
                Structures::import(bytes.get(..n).unwrap_or_default()),
                Err(NotStructures),
                "cut at {n}"
            );
        }
        let mut padded = bytes.clone();
        padded.push(0);
        assert_eq!(Structures::import(&padded), Err(NotStructures));
        assert_eq!(Structures::import(b"PGSC\x06"), Err(NotStructures));
    }
}
