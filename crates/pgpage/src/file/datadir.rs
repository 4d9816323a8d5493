//! Which files of a data directory, or of any folder of copies, are relation files to
//! verify: pg_checksums' choice (scan_directory over global/, base/ and pg_tblspc/, minus its
//! skip list), on paths as the browser gets them from a dropped or chosen folder.

use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;

use crate::file::{is_temporary_entry, parse_relation_file_name};

/// The database directory of a relative path's file (`data/base/16384/16385` ->
/// `base/16384`, `global/1262` -> `global`, `pg_tblspc/16400/PG_15_202209061/5/16401.1`
/// -> `pg_tblspc/16400/PG_15_202209061/5`), as relpath.c lays them out; None for a file
/// elsewhere.
pub fn relation_directory(path: &str) -> Option<String> {
    let parts: Vec<&str> = path.split('/').collect();
    let (file, dirs) = parts.split_last()?;
    if file.is_empty() {
        return None;
    }
    let digits = |s: &&str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let tail = |n: usize| dirs.get(dirs.len().checked_sub(n)?..);
    // The longest layout that ends at the file wins, as a search from the left would find.
    if let Some([tblspc, oid, version, db]) = tail(4) {
        if *tblspc == "pg_tblspc" && digits(oid) && !version.is_empty() && digits(db) {
            return Some(alloc::format!("pg_tblspc/{oid}/{version}/{db}"));
        }
    }
    if let Some([base, db]) = tail(2) {
        if *base == "base" && digits(db) {
            return Some(alloc::format!("base/{db}"));
        }
    }
    match tail(1) {
        Some(["global"]) => Some(String::from("global")),
        _ => None,
    }
}

/// Files of a data directory pg_checksums skips though they sit among relation files
/// (pg_checksums.c skip[], temporary files and relations): pg_control, pg_filenode.map,
/// pg_internal.init*, PG_VERSION, pgsql_tmp*, and `tNNN_` temporary relations.
pub fn is_skipped_data_dir_file(path: &str) -> bool {
    let base = path.rsplit('/').next().unwrap_or(path);
    let temp_relation = base
        .strip_prefix('t')
        .and_then(|rest| rest.split_once('_'))
        .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    matches!(base, "pg_control" | "pg_filenode.map" | "PG_VERSION")
        || base.starts_with("pg_internal.init")
        || is_temporary_entry(base)
        || temp_relation
}

/// Which of a folder's files (relative paths, `/`-separated, the folder's name first) to
/// verify: relation files minus the skip list; and in a folder that is a data directory
/// (it holds files under base/N, global or pg_tblspc) only those in the directories
/// pg_checksums scans: pg_xact/0001 or pg_multixact/offsets/0002 are named like relation
/// files but are SLRU segments, not pages. One flag per path, in order.
pub fn folder_filter<S: AsRef<str>>(paths: &[S]) -> Vec<bool> {
    let root = |p: &str| -> String { p.split('/').next().unwrap_or(p).into() };
    let data_dirs: BTreeSet<String> = paths
        .iter()
        .map(AsRef::as_ref)
        .filter(|p| relation_directory(p).is_some())
        .map(root)
        .collect();
    paths
        .iter()
        .map(AsRef::as_ref)
        .map(|p| {
            let base = p.rsplit('/').next().unwrap_or(p);
            parse_relation_file_name(base).is_some()
                && !is_skipped_data_dir_file(p)
                && (!data_dirs.contains(&root(p)) || relation_directory(p).is_some())
        })
        .collect()
}

/// The major version a `PG_VERSION` file names (`13\n` .. `18\n`; `9.6` gives 9), as the
/// server writes it in the data directory and in every database directory.
pub fn parse_pg_version(contents: &[u8]) -> Option<u32> {
    let text = core::str::from_utf8(contents).ok()?.trim();
    let major = text.split('.').next()?;
    if major.is_empty() || major.len() > 3 || !major.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    major.parse().ok()
}

/// The major version a tablespace's version directory names: `PG_16_202307071` gives 16
/// (relpath.h: TABLESPACE_VERSION_DIRECTORY).
pub fn tablespace_dir_version(name: &str) -> Option<u32> {
    let rest = name.strip_prefix("PG_")?;
    let (major, catversion) = rest.split_once('_')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(major) || !digits(catversion) {
        return None;
    }
    parse_pg_version(major.as_bytes())
}

/// The WAL locator (tablespace, database, relfilenode) a relation path names, as relpath.c
/// lays them out: `base/DB/REL`, `global/REL`, `pg_tblspc/SPC/PG_.../DB/REL` (or the tail
/// of a longer path).
pub fn locator_of(path: &str) -> Option<(u32, u32, u32)> {
    let parts: Vec<&str> = path.rsplit('/').collect();
    let rel = crate::file::parse_relation_file_name(parts.first()?)?.relfilenode;
    match (parts.get(1), parts.get(2), parts.get(3), parts.get(4)) {
        (Some(&"global"), ..) => Some((1664, 0, rel)),
        (Some(db), Some(&"base"), ..) => Some((1663, db.parse().ok()?, rel)),
        (Some(db), _, Some(spc), Some(&"pg_tblspc")) => {
            Some((spc.parse().ok()?, db.parse().ok()?, rel))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    // Cases from the browser's tests of the TypeScript this replaces (web/src/lib/lib.test.ts).
    use super::*;

    #[test]
    fn database_directories() {
        let dir = |p| relation_directory(p);
        assert_eq!(
            dir("data/base/16384/16385.1").as_deref(),
            Some("base/16384")
        );
        assert_eq!(dir("global/1262").as_deref(), Some("global"));
        assert_eq!(
            dir("pgdata/pg_tblspc/16400/PG_15_202209061/5/16401.1").as_deref(),
            Some("pg_tblspc/16400/PG_15_202209061/5")
        );
        assert_eq!(
            dir("pg_tblspc/1/base/5/f").as_deref(),
            Some("pg_tblspc/1/base/5")
        );
        for none in [
            "16385",
            "base/16385",
            "base/x/16385",
            "base/5/",
            "pg_xact/0001",
            "",
        ] {
            assert_eq!(dir(none), None, "{none:?}");
        }
    }

    #[test]
    fn skip_list() {
        for skipped in [
            "global/pg_control",
            "base/5/pg_internal.init",
            "base/5/pg_internal.init.123",
            "base/5/t3_16385",
            "base/5/PG_VERSION",
            "global/pg_filenode.map",
            "base/pgsql_tmp/pgsql_tmp123.4",
        ] {
            assert!(is_skipped_data_dir_file(skipped), "{skipped}");
        }
        for kept in ["base/5/16385", "base/5/t_16385", "base/5/tx_1"] {
            assert!(!is_skipped_data_dir_file(kept), "{kept}");
        }
    }

    #[test]
    fn a_data_directory_keeps_what_pg_checksums_scans_other_folders_every_relation_file() {
        let paths = [
            "pgdata/base/1/1259",
            "pgdata/global/1262",
            "pgdata/global/pg_control",
            "pgdata/pg_xact/0001",
            "pgdata/pg_multixact/offsets/0002",
            "pgdata/pg_tblspc/16400/PG_15_202209061/5/16401.1",
            "pgdata/16385",
            "copies/16385",
            "copies/16385_fsm",
            "copies/pg_xact/0001",
            "copies/notes.txt",
        ];
        let keep = folder_filter(&paths);
        let kept: Vec<&str> = paths
            .iter()
            .zip(keep)
            .filter_map(|(p, k)| k.then_some(*p))
            .collect();
        assert_eq!(
            kept,
            [
                "pgdata/base/1/1259",
                "pgdata/global/1262",
                "pgdata/pg_tblspc/16400/PG_15_202209061/5/16401.1",
                "copies/16385",
                "copies/16385_fsm",
                "copies/pg_xact/0001",
            ]
        );
        // A database directory dropped on its own is not a data directory.
        assert_eq!(
            folder_filter(&["16384/16385", "16384/pg_filenode.map"]),
            [true, false]
        );
    }

    #[test]
    fn versions_from_pg_version_files_and_tablespace_directories() {
        assert_eq!(parse_pg_version(b"13\n"), Some(13));
        assert_eq!(parse_pg_version(b"18"), Some(18));
        assert_eq!(parse_pg_version(b"9.6\n"), Some(9));
        assert_eq!(parse_pg_version(b""), None);
        assert_eq!(parse_pg_version(b"abc"), None);
        assert_eq!(parse_pg_version(&[0xFF, 0xFE]), None);
        assert_eq!(tablespace_dir_version("PG_16_202307071"), Some(16));
        assert_eq!(tablespace_dir_version("PG_16_"), None);
        assert_eq!(tablespace_dir_version("16384"), None);
    }
}
