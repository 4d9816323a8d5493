//! `pg_filenode.map` (utils/cache/relmapper.c: RelMapFile): which file holds each mapped
//! catalog (pg_class, pg_attribute, pg_type, pg_proc in a database; pg_database,
//! pg_tablespace and the other shared catalogs in global/), whose pg_class.relfilenode is 0.

use alloc::vec::Vec;

use crate::cluster::control::crc32c;
use crate::findings::Finding;
use crate::page::geometry::{read_u32, Endian};

/// relmapper.c: RELMAPPER_FILEMAGIC.
pub const RELMAPPER_FILEMAGIC: u32 = 0x0059_2717;

/// relmapper.c: MAX_MAPPINGS, 62 before PostgreSQL 16 and 64 from 16 on; 16 also dropped
/// the int32 pad after the CRC, so the file went from 512 to 524 bytes.
pub fn max_mappings(major: u32) -> usize {
    if major >= 16 {
        64
    } else {
        62
    }
}

/// sizeof(RelMapFile) for a major version: what the server reads and writes.
pub fn relmap_file_size(major: u32) -> usize {
    let crc_end = 8usize
        .saturating_add(max_mappings(major).saturating_mul(8))
        .saturating_add(4);
    if major >= 16 {
        crc_end
    } else {
        crc_end.saturating_add(4)
    }
}

/// One RelMapping: a catalog's OID and its file's number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RelMapping {
    pub mapoid: u32,
    pub mapfilenumber: u32,
}

/// A read map: the mappings that could be read, and what is wrong with the file. The server
/// refuses a map with any finding (read_relmap_file: FATAL); pgpage keeps the entries it can
/// read so that the catalogs can still be found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RelMap {
    pub mappings: Vec<RelMapping>,
    pub findings: Vec<Finding>,
}

impl RelMap {
    /// RelationMapOidToFilenumber for this map.
    pub fn filenumber(&self, oid: u32) -> Option<u32> {
        self.mappings
            .iter()
            .find(|m| m.mapoid == oid)
            .map(|m| m.mapfilenumber)
    }
}

/// read_relmap_file's checks, in its order: the size, the magic and num_mappings, the CRC.
pub fn read_relmap(bytes: &[u8], major: u32, endian: Endian) -> RelMap {
    let mut map = RelMap::default();
    let size = relmap_file_size(major);
    if bytes.len() != size {
        map.findings.push(Finding::RelMapWrongSize);
    }
    let magic = read_u32(bytes, 0, endian);
    if magic != Some(RELMAPPER_FILEMAGIC) {
        map.findings.push(Finding::RelMapInvalidData);
    }
    let max = max_mappings(major);
    let count = read_u32(bytes, 4, endian).and_then(|n| usize::try_from(n).ok());
    let valid_count = count.filter(|n| *n <= max);
    if valid_count.is_none() && magic == Some(RELMAPPER_FILEMAGIC) {
        map.findings.push(Finding::RelMapInvalidData);
    }
    let crc_at = 8usize.saturating_add(max.saturating_mul(8));
    let stored = read_u32(bytes, crc_at, endian);
    let computed = bytes.get(..crc_at).map(crc32c);
    if stored.is_none() || stored != computed {
        map.findings.push(Finding::RelMapIncorrectChecksum);
    }
    // With a bad count, every slot that looks like a mapping (both numbers set) is kept.
    let slots = valid_count.unwrap_or(max);
    for i in 0..slots {
        let at = 8usize.saturating_add(i.saturating_mul(8));
        let (Some(mapoid), Some(mapfilenumber)) = (
            read_u32(bytes, at, endian),
            read_u32(bytes, at.saturating_add(4), endian),
        ) else {
            break;
        };
        if valid_count.is_none() && (mapoid == 0 || mapfilenumber == 0) {
            continue;
        }
        map.mappings.push(RelMapping {
            mapoid,
            mapfilenumber,
        });
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A map as write_relmap_file lays it out, for the version's size.
    fn map_file(major: u32, entries: &[(u32, u32)]) -> Vec<u8> {
        let mut b = alloc::vec![0u8; relmap_file_size(major)];
        b[0..4].copy_from_slice(&RELMAPPER_FILEMAGIC.to_le_bytes());
        b[4..8].copy_from_slice(&(entries.len() as u32).to_le_bytes());
        for (i, (o, f)) in entries.iter().enumerate() {
            b[8 + i * 8..12 + i * 8].copy_from_slice(&o.to_le_bytes());
            b[12 + i * 8..16 + i * 8].copy_from_slice(&f.to_le_bytes());
        }
        let crc_at = 8 + max_mappings(major) * 8;
        let crc = crc32c(&b[..crc_at]);
        b[crc_at..crc_at + 4].copy_from_slice(&crc.to_le_bytes());
        b
    }

    #[test]
    fn sizes_are_the_servers() {
        assert_eq!(relmap_file_size(13), 512);
        assert_eq!(relmap_file_size(15), 512);
        assert_eq!(relmap_file_size(16), 524);
        assert_eq!(relmap_file_size(18), 524);
    }

    #[test]
    fn a_good_map_and_damaged_ones() {
        for major in [13, 16] {
            let good = map_file(major, &[(1259, 1259), (1249, 16390)]);
            let m = read_relmap(&good, major, Endian::Little);
            assert!(m.findings.is_empty(), "{major}: {:?}", m.findings);
            assert_eq!(m.filenumber(1249), Some(16390));
            assert_eq!(m.filenumber(1), None);

            let mut bad_crc = good.clone();
            bad_crc[13] ^= 1;
            let m = read_relmap(&bad_crc, major, Endian::Little);
            assert_eq!(m.findings, [Finding::RelMapIncorrectChecksum]);
            assert_eq!(m.mappings.len(), 2, "entries still read");

            let mut bad_magic = good.clone();
            bad_magic[0] ^= 1;
            let m = read_relmap(&bad_magic, major, Endian::Little);
            assert!(m.findings.contains(&Finding::RelMapInvalidData));
            assert_eq!(m.filenumber(1259), Some(1259));

            let mut bad_count = good.clone();
            bad_count[4..8].copy_from_slice(&1000u32.to_le_bytes());
            let m = read_relmap(&bad_count, major, Endian::Little);
            assert!(m.findings.contains(&Finding::RelMapInvalidData));
            assert_eq!(m.mappings.len(), 2, "non-empty slots kept");
        }
        let m = read_relmap(&[1, 2, 3], 16, Endian::Little);
        assert!(m.findings.contains(&Finding::RelMapWrongSize));
        assert!(m.mappings.is_empty());
        // A 15 map read as 16's is the wrong size and its CRC sits elsewhere.
        let m = read_relmap(&map_file(15, &[(1259, 1259)]), 16, Endian::Little);
        assert!(m.findings.contains(&Finding::RelMapWrongSize));
    }
}
