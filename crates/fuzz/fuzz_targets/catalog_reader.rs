//! Any bytes as the catalogs of a data directory: a pg_filenode.map, a catalog's heap file
//! read as each catalog of each version (and the columns a table gets from such rows), and a
//! whole directory driven through CatalogReader's wanted/give: rows or named problems, never
//! a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgpage::cluster::catalog::columns::{table_columns, TypeCatalogs};
use pgpage::cluster::catalog::layout::Catalog;
use pgpage::cluster::catalog::read::{
    attribute_rows, class_rows, database_rows, enum_rows, oid_name_rows, range_rows,
    tablespace_rows, type_rows, CatalogFile,
};
use pgpage::cluster::catalog::reader::{CatalogReader, ReadWith};
use pgpage::cluster::catalog::relmap::{read_relmap, relmap_file_size};
use pgpage::cluster::control::crc32c;
use pgpage::tuple::visibility::{SlruKind, TransactionLog};
use pgpage::{BlockSize, Endian};

/// A directory as the reader sees it: every catalog of database 5 at its usual file, the
/// non-mapped ones named by pg_class.
const PATHS: &[&str] = &[
    "pg_xact/0000",
    "pg_multixact/offsets/0000",
    "pg_multixact/members/0000",
    "global/pg_filenode.map",
    "global/1262",
    "global/1262.1",
    "base/5/pg_filenode.map",
    "base/5/1259",
    "base/5/2615",
    "base/5/2601",
    "base/5/1249",
    "base/5/1247",
    "pg_tblspc/16384/PG_16_202307071/5/1259",
];

/// Every xid committed: statuses read from pg_xact rather than failing on every tuple.
fn committed_log(block_size: usize, endian: Endian) -> TransactionLog {
    let mut log = TransactionLog::new(block_size, endian);
    log.add_segment(SlruKind::Xact, 0, vec![0x55; block_size]);
    log
}

/// One catalog's rows out of `bytes` (two for the type catalogs a table's columns come
/// from), so that each run reads its bytes once or twice, not as every catalog.
fn rows_of(which: u8, bytes: &[u8], major: u32, endian: Endian, block_size: BlockSize) {
    let file = CatalogFile {
        bytes,
        block_size,
        endian,
        checksums: bytes.first().is_some_and(|b| b & 1 == 1),
    };
    let log = committed_log(block_size.len(), endian);
    let mut problems = Vec::new();
    match which {
        0 => {
            let _ = class_rows(&file, major, &log, &mut problems);
        }
        1 => {
            let attributes = attribute_rows(&file, major, &log, &mut problems);
            let types = type_rows(&file, major, &log, &mut problems);
            let catalogs = TypeCatalogs {
                types: &types,
                attributes: &attributes,
                enums: &[],
                ranges: &[],
            };
            let mut relids: Vec<u32> = attributes.iter().map(|a| a.attrelid).collect();
            relids.sort_unstable();
            relids.dedup();
            for relid in relids.into_iter().take(8) {
                let _ = table_columns(relid, catalogs, endian);
            }
        }
        2 => {
            let _ = type_rows(&file, major, &log, &mut problems);
        }
        3 => {
            let _ = database_rows(&file, major, &log, &mut problems);
            let _ = tablespace_rows(&file, major, &log, &mut problems);
        }
        4 => {
            let _ = oid_name_rows(
                &file,
                Catalog::PgNamespace,
                "nspname",
                major,
                &log,
                &mut problems,
            );
        }
        _ => {
            let _ = enum_rows(&file, major, &log, &mut problems);
            let _ = range_rows(&file, major, &log, &mut problems);
        }
    }
    for p in &problems {
        let _ = p.describe(Some("base/5/1259"));
    }
}

/// A map the server would read (right size, magic and CRC) holding the fuzzer's mappings.
fn valid_map(mappings: &[u8], major: u32, endian: Endian) -> Vec<u8> {
    let size = relmap_file_size(major);
    let max = (size - 12) / 8;
    let word = |v: u32| match endian {
        Endian::Little => v.to_le_bytes(),
        Endian::Big => v.to_be_bytes(),
    };
    let mut map = Vec::with_capacity(size);
    map.extend_from_slice(&word(0x0059_2717));
    let n = (mappings.len() / 8).min(max);
    map.extend_from_slice(&word(n as u32));
    map.extend_from_slice(&mappings[..n * 8]);
    map.resize(8 + max * 8, 0);
    let crc = crc32c(&map);
    map.extend_from_slice(&word(crc));
    map.resize(size, 0);
    map
}

/// Drives a reader over PATHS, each file it asks for cut from `data`: a u16 length, then
/// that many bytes (a map with a first length byte's low bit set is made valid around them).
fn read_directory(mut data: &[u8], major: u32, endian: Endian) {
    let with = ReadWith {
        major,
        block_size: BlockSize::DEFAULT,
        endian,
        checksums: data.first().is_some_and(|b| b & 2 == 2),
        next_multi: Some((1, 0)),
    };
    let mut reader = CatalogReader::new(PATHS.iter().map(|p| p.to_string()), with, "d/");
    // Each round gives at least one file; the reader asks for each path once.
    for _ in 0..=PATHS.len() {
        let wanted = reader.wanted();
        if wanted.is_empty() {
            break;
        }
        for path in wanted {
            let Some((len, rest)) = data.split_first_chunk::<2>() else {
                reader.give(&path, None);
                continue;
            };
            let len = usize::from(u16::from_le_bytes(*len));
            let (bytes, rest) = rest.split_at(len.min(rest.len()));
            data = rest;
            let file = if path.ends_with("pg_filenode.map") && len & 1 == 1 {
                valid_map(bytes, major, endian)
            } else {
                bytes.to_vec()
            };
            reader.give(&path, Some(file));
        }
    }
    let listing = reader.finish();
    let _ = serde_json::to_string(&listing);
}

fuzz_target!(|data: &[u8]| {
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    let major = 13 + u32::from(head & 7) % 6;
    let endian = if head & 0x80 == 0 {
        Endian::Little
    } else {
        Endian::Big
    };
    // The shared seeds (a real page behind a 0 head byte) land on pg_class's rows.
    match (head >> 3) & 0xF {
        which @ 0..=5 => rows_of(which, rest, major, endian, BlockSize::DEFAULT),
        which @ (6 | 7) => rows_of(
            which - 6,
            rest,
            major,
            endian,
            BlockSize::new(1024).unwrap(),
        ),
        8..=10 => {
            let _ = read_relmap(rest, major, endian);
        }
        _ => read_directory(rest, major, endian),
    }
});
