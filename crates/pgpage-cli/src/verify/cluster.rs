//! What a data directory says about itself before its files are read: the major version in
//! PG_VERSION and global/pg_control (block size, byte order, data checksums on or off). Its
//! files are then read with the cluster's block size and judged with its checksum setting;
//! a pg_control that cannot be read or trusted is said, and each file decides for itself.

use std::io::Read;
use std::path::{Path, PathBuf};

use pgpage::cluster::control::{
    checksum_state_words, decode_control, ControlFile, ControlValue, PG_CONTROL_FILE_SIZE,
};
use pgpage::file::scan::ChecksumsKnown;
use pgpage::file::GeometryChoice;
use pgpage::wal::{lsn_text_for, parse_wal_file_name};
use pgpage::BlockSize;
use serde::Serialize;

use crate::args::io_reason;
use crate::input::open_regular;

/// One data directory walked.
pub struct Cluster {
    /// The directory as given.
    pub display: String,
    /// PG_VERSION's major version, as the file holds it.
    pub pg_version: Option<String>,
    /// pg_control, decoded even when its CRC does not match.
    pub control: Option<ControlFile>,
    /// Why pg_control is not used, in words for a warning.
    pub distrust: Option<String>,
    /// The newest checksum-state record of its pg_wal (19 on), where there is one.
    pub wal_checksums: Option<ChecksumRecord>,
}

/// An XLOG2_CHECKSUMS record: where it is and the state it sets.
#[derive(Clone, Copy, Debug)]
pub struct ChecksumRecord {
    pub lsn: u64,
    pub state: u32,
    /// The WAL's release, for the LSN's text.
    pub version: u32,
}

impl Cluster {
    pub fn read(display: &str, path: &Path) -> Cluster {
        let pg_version = std::fs::read_to_string(path.join("PG_VERSION"))
            .ok()
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit() || b == b'.'));
        let shown = format!("{display}/global/pg_control");
        let mut bytes = Vec::with_capacity(PG_CONTROL_FILE_SIZE);
        let read = open_regular(&path.join("global").join("pg_control")).and_then(|f| {
            f.take(PG_CONTROL_FILE_SIZE as u64)
                .read_to_end(&mut bytes)
                .map(|_| ())
        });
        let fallback = "block size and data checksums are decided from each file's pages";
        let (control, distrust) = match read.map(|()| decode_control(&bytes)) {
            Err(e) => (
                None,
                Some(format!(
                    "could not read control file \"{shown}\": {}: {fallback}",
                    io_reason(&e)
                )),
            ),
            Ok(Err(e)) => (None, Some(format!("\"{shown}\": {e}: {fallback}"))),
            // pg_controldata's words for a bad CRC.
            Ok(Ok(c)) if !c.crc_ok() => (
                Some(c),
                Some(format!(
                    "calculated CRC checksum does not match value stored in control file \
                     \"{shown}\": {fallback}"
                )),
            ),
            Ok(Ok(c)) if c.block_size().and_then(BlockSize::new).is_none() => (
                Some(c),
                Some(format!(
                    "control file \"{shown}\" gives no PostgreSQL block size: {fallback}"
                )),
            ),
            Ok(Ok(c)) => (Some(c), None),
        };
        let wal_checksums = control
            .as_ref()
            .filter(|_| distrust.is_none())
            .and_then(|c| newest_checksum_record(path, c));
        Cluster {
            display: display.to_owned(),
            pg_version,
            control,
            distrust,
            wal_checksums,
        }
    }

    /// pg_control when it can be trusted.
    pub fn trusted(&self) -> Option<&ControlFile> {
        self.control.as_ref().filter(|_| self.distrust.is_none())
    }

    /// What the cluster's files are judged with.
    pub fn checksums(&self) -> ChecksumsKnown {
        ChecksumsKnown::of_version(
            self.trusted()
                .and_then(ControlFile::data_page_checksum_version),
        )
    }

    /// The state pg_control records, as `SHOW data_checksums` names it (None: not trusted).
    pub fn checksum_state(&self) -> Option<&'static str> {
        self.trusted()
            .and_then(ControlFile::data_page_checksum_version)
            .map(checksum_state_words)
    }

    /// The cluster's block size and byte order, where the user chose none.
    pub fn geometry_choice(&self, user: GeometryChoice) -> GeometryChoice {
        let Some(c) = self.trusted() else {
            return user;
        };
        GeometryChoice {
            block_size: user
                .block_size
                .or_else(|| c.block_size().and_then(BlockSize::new)),
            endian: user.endian.or(Some(c.endian)),
        }
    }

    /// Warnings to print before the cluster's files: an untrusted pg_control, a PG_VERSION
    /// that pg_control contradicts.
    pub fn warnings(&self) -> Vec<String> {
        let mut out: Vec<String> = self.distrust.iter().cloned().collect();
        let control_state = self
            .trusted()
            .and_then(ControlFile::data_page_checksum_version);
        if let (Some(r), Some(state)) = (self.wal_checksums, control_state) {
            if r.state != state {
                out.push(format!(
                    "the newest checksum-state record in \"{}/pg_wal\" (XLOG2 CHECKSUMS at {}) \
                     sets data checksums to \"{}\", but pg_control says \"{}\": the server's \
                     recovery replays that record, and a base backup verifies checksums only \
                     when it says \"on\"; pages are judged as pg_control says",
                    self.display,
                    lsn_text_for(r.version, r.lsn),
                    checksum_state_words(r.state),
                    checksum_state_words(state)
                ));
            }
        }
        if let (Some(v), Some(c)) = (&self.pg_version, self.trusted()) {
            if !releases_hold(c.releases, v) {
                out.push(format!(
                    "\"{}/PG_VERSION\" says {v}, but pg_control version {} is written by \
                     PostgreSQL {}",
                    self.display, c.pg_control_version, c.releases
                ));
            }
        }
        out
    }

    /// The one line human output gives the cluster.
    pub fn describe(&self) -> String {
        let version = match (&self.pg_version, &self.control) {
            (Some(v), Some(c)) => format!(
                "PostgreSQL {v} (pg_control version {}, written by {})",
                c.pg_control_version, c.releases
            ),
            (Some(v), None) => format!("PostgreSQL {v}"),
            (None, Some(c)) => format!(
                "PostgreSQL {} (pg_control version {}; no PG_VERSION)",
                c.releases, c.pg_control_version
            ),
            (None, None) => "PostgreSQL version unknown (no PG_VERSION, no pg_control)".to_owned(),
        };
        match self.trusted() {
            Some(c) => {
                let n = |v: Option<u32>| v.map_or_else(|| "?".to_owned(), |v| v.to_string());
                let checksums = match c.data_page_checksum_version() {
                    Some(0) => "data checksums off".to_owned(),
                    Some(v @ (2 | 3)) => {
                        format!("data checksum version {v} ({})", checksum_state_words(v))
                    }
                    v => format!("data checksum version {}", n(v)),
                };
                format!(
                    "Data directory \"{}\": {version}, block size {}, WAL segment size {}, {checksums}",
                    self.display,
                    n(c.block_size()),
                    n(c.wal_segment_size()),
                )
            }
            None => format!(
                "Data directory \"{}\": {version}, pg_control not used",
                self.display
            ),
        }
    }

    pub fn json(&self) -> ClusterJson<'_> {
        let c = self.control.as_ref();
        ClusterJson {
            path: &self.display,
            pg_version: self.pg_version.as_deref(),
            pg_control_version: c.map(|c| c.pg_control_version),
            data_page_checksum_version: c.and_then(ControlFile::data_page_checksum_version),
            block_size: c.and_then(ControlFile::block_size),
            wal_segment_size: c.and_then(ControlFile::wal_segment_size),
            crc_ok: c.map(ControlFile::crc_ok),
            checksums: self.checksums().as_str(),
            checksum_state: self.checksum_state(),
            control_error: self.distrust.as_deref(),
            wal_checksum_state: self.wal_checksums.map(|r| WalChecksumJson {
                lsn: lsn_text_for(r.version, r.lsn),
                state: checksum_state_words(r.state),
            }),
        }
    }
}

/// Whether a PG_VERSION major (`16`, or `9.6` style) is among pg_control's releases
/// (`13-16`, `17`).
fn releases_hold(releases: &str, version: &str) -> bool {
    let major = |s: &str| s.split('.').next().and_then(|m| m.parse::<u32>().ok());
    let Some(v) = major(version) else {
        return true;
    };
    match releases.split_once('-') {
        Some((lo, hi)) => major(lo)
            .zip(major(hi))
            .is_none_or(|(lo, hi)| (lo..=hi).contains(&v)),
        None => major(releases).is_none_or(|r| r == v),
    }
}

/// `verify --json`'s `clusters` entries (an addition to the keys docs/contracts.md lists under
/// "verify --json").
#[derive(Serialize)]
pub struct ClusterJson<'a> {
    pub path: &'a str,
    pub pg_version: Option<&'a str>,
    pub pg_control_version: Option<u32>,
    pub data_page_checksum_version: Option<u32>,
    pub block_size: Option<u32>,
    pub wal_segment_size: Option<u32>,
    pub crc_ok: Option<bool>,
    /// How the cluster's files were judged: `on`, `off` (header checks only), `unknown`
    /// (pg_control not used: each file decides), or while checksums change `inprogress-on`
    /// and `inprogress-off` (each computed and counted, none a mismatch).
    pub checksums: &'static str,
    /// Why pg_control was not used.
    pub control_error: Option<&'a str>,
    /// pg_control's data checksum state (docs/contracts.md, "During an online checksum
    /// change"): `on`, `off`, `inprogress-on`, `inprogress-off`; absent when not trusted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checksum_state: Option<&'static str>,
    /// The newest XLOG2 CHECKSUMS record in pg_wal since the latest checkpoint's redo
    /// point (19 on), where there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wal_checksum_state: Option<WalChecksumJson>,
}

#[derive(Serialize)]
pub struct WalChecksumJson {
    pub lsn: String,
    pub state: &'static str,
}

/// The newest XLOG2_CHECKSUMS record of the data directory's pg_wal, from the segment of the
/// latest checkpoint's redo point on: what crash recovery replays (an older one is in the
/// checkpoint pg_control keeps), and what a base backup (19) judges checksums by. None before
/// 19, without pg_wal, or when no such record is there.
fn newest_checksum_record(path: &Path, control: &ControlFile) -> Option<ChecksumRecord> {
    if control.pg_control_version < 1900 {
        return None;
    }
    let redo = match control.get("redo_wal_file") {
        Some(ControlValue::Text(name)) => name.get(8..)?.to_owned(),
        _ => return None,
    };
    let mut segments: Vec<PathBuf> = std::fs::read_dir(path.join("pg_wal"))
        .ok()?
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            matches!(parse_wal_file_name(&name), Some((_, false)))
                && name.get(8..).is_some_and(|s| s >= redo.as_str())
        })
        .map(|e| e.path())
        .collect();
    segments.sort();
    if segments.is_empty() {
        return None;
    }
    let mut newest = None;
    // A WAL that cannot be read to its end still tells what it holds up to there.
    let _ = crate::fpi::read_records(&segments, &mut |rec| {
        if let Some(state) = pgpage::wal::rmgr::checksum_state_set(rec) {
            newest = Some(ChecksumRecord {
                lsn: rec.lsn,
                state,
                version: rec.version,
            });
        }
    });
    newest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pg_version_against_control_releases() {
        assert!(releases_hold("13-16", "16"));
        assert!(releases_hold("13-16", "13"));
        assert!(!releases_hold("13-16", "17"));
        assert!(releases_hold("18", "18"));
        assert!(!releases_hold("18", "9.6"));
        assert!(releases_hold("17", "devel"));
    }
}
