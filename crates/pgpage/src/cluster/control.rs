//! `global/pg_control` (catalog/pg_control.h: ControlFileData) for the control versions of
//! PostgreSQL 13 to 19: 1300 (13-16), 1700 (17: CheckPoint gains wal_level, in what was
//! padding), 1800 (18: default_char_signedness after data_checksum_version, which moves
//! the CRC), 1902 (19's betas: most fields move, see [`Layout`]) and 1903 (19.0:
//! data_checksum_version_init). Decoded into the columns of pg_control_system(), pg_control_checkpoint(),
//! pg_control_init() and pg_control_recovery(), with their values as row_to_json prints them.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

use crate::page::geometry::{read_u32, read_u64, Endian};
use crate::page::lsn::lsn_text_for;

/// The control versions this module knows, and the PostgreSQL releases that write them.
pub const KNOWN_VERSIONS: [(u32, &str); 5] = [
    (1300, "13-16"),
    (1700, "17"),
    (1800, "18"),
    (1902, "19 beta"),
    (1903, "19"),
];

/// pg_control.h: PG_CONTROL_FILE_SIZE, the size the server writes (zero-padded).
pub const PG_CONTROL_FILE_SIZE: usize = 8192;

/// Why pg_control could not be decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ControlError {
    /// Shorter than the structure of any known version.
    Truncated { len: usize },
    /// pg_control_version is none of [`KNOWN_VERSIONS`] in either byte order. The catalog
    /// version (read little-endian) helps name the release that wrote it.
    UnknownVersion {
        little: u32,
        big: u32,
        catalog_version: Option<u32>,
    },
}

impl core::fmt::Display for ControlError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            ControlError::Truncated { len } => write!(
                f,
                "pg_control is truncated: {len} bytes, too few to hold its fields and CRC (the server writes {PG_CONTROL_FILE_SIZE})"
            ),
            ControlError::UnknownVersion {
                little,
                big,
                catalog_version,
            } => {
                write!(f, "unknown pg_control version {little} (read big-endian: {big})")?;
                if let Some(cat) = catalog_version {
                    write!(f, ", catalog version {cat}")?;
                }
                write!(
                    f,
                    "; pgpage knows 1300 (PostgreSQL 13-16), 1700 (17), 1800 (18), 1902 (19 beta) and 1903 (19), and reads no other layout"
                )
            }
        }
    }
}

/// Where a version keeps its fields: offsetof() into ControlFileData, CheckPoint fields
/// relative to checkPointCopy. 19 moves nearly everything: CheckPoint gains
/// logicalDecodingEnabled (before nextXid) and dataChecksumState, nextMultiOffset becomes
/// 64 bits, and ControlFileData gains slru_pages_per_segment (and in 1903
/// data_checksum_version_init).
#[derive(Clone, Copy, Debug)]
struct Layout {
    cp_next_xid: usize,
    cp_next_oid: usize,
    cp_next_multi: usize,
    cp_next_multi_offset: usize,
    /// MultiXactOffset is 64 bits from 19 on.
    multi_offset_64: bool,
    cp_oldest_xid: usize,
    cp_oldest_xid_db: usize,
    cp_oldest_multi: usize,
    cp_oldest_multi_db: usize,
    cp_time: usize,
    cp_oldest_commit_ts_xid: usize,
    cp_newest_commit_ts_xid: usize,
    cp_oldest_active_xid: usize,
    /// CheckPoint.dataChecksumState (19 on).
    cp_data_checksum_state: Option<usize>,
    unlogged_lsn: usize,
    min_recovery_point: usize,
    min_recovery_point_tli: usize,
    backup_start_point: usize,
    backup_end_point: usize,
    backup_end_required: usize,
    wal_level: usize,
    wal_log_hints: usize,
    max_connections: usize,
    max_worker_processes: usize,
    max_wal_senders: usize,
    max_prepared_xacts: usize,
    max_locks_per_xact: usize,
    track_commit_timestamp: usize,
    max_align: usize,
    float_format: usize,
    blcksz: usize,
    relseg_size: usize,
    /// ControlFileData.slru_pages_per_segment (19 on).
    slru_pages_per_segment: Option<usize>,
    xlog_blcksz: usize,
    xlog_seg_size: usize,
    name_data_len: usize,
    index_max_keys: usize,
    toast_max_chunk_size: usize,
    loblksize: usize,
    float8_by_val: usize,
    /// ControlFileData.data_checksum_version_init (1903 on).
    data_checksum_version_init: Option<usize>,
    data_checksum_version: usize,
    /// ControlFileData.default_char_signedness (1800 on).
    default_char_signedness: Option<usize>,
    mock_authentication_nonce: usize,
    /// offsetof(ControlFileData, crc): the CRC covers every byte before it.
    crc: usize,
}

/// 13 to 16 (1300). 17's CheckPoint.wal_level sits in what was padding before nextXid, so
/// 1700 reads the same.
const LAYOUT_1300: Layout = Layout {
    cp_next_xid: 24,
    cp_next_oid: 32,
    cp_next_multi: 36,
    cp_next_multi_offset: 40,
    multi_offset_64: false,
    cp_oldest_xid: 44,
    cp_oldest_xid_db: 48,
    cp_oldest_multi: 52,
    cp_oldest_multi_db: 56,
    cp_time: 64,
    cp_oldest_commit_ts_xid: 72,
    cp_newest_commit_ts_xid: 76,
    cp_oldest_active_xid: 80,
    cp_data_checksum_state: None,
    unlogged_lsn: 128,
    min_recovery_point: 136,
    min_recovery_point_tli: 144,
    backup_start_point: 152,
    backup_end_point: 160,
    backup_end_required: 168,
    wal_level: 172,
    wal_log_hints: 176,
    max_connections: 180,
    max_worker_processes: 184,
    max_wal_senders: 188,
    max_prepared_xacts: 192,
    max_locks_per_xact: 196,
    track_commit_timestamp: 200,
    max_align: 204,
    float_format: 208,
    blcksz: 216,
    relseg_size: 220,
    slru_pages_per_segment: None,
    xlog_blcksz: 224,
    xlog_seg_size: 228,
    name_data_len: 232,
    index_max_keys: 236,
    toast_max_chunk_size: 240,
    loblksize: 244,
    float8_by_val: 248,
    data_checksum_version_init: None,
    data_checksum_version: 252,
    default_char_signedness: None,
    mock_authentication_nonce: 256,
    crc: 288,
};

/// 18 (1800): default_char_signedness after data_checksum_version.
const LAYOUT_1800: Layout = Layout {
    default_char_signedness: Some(256),
    mock_authentication_nonce: 257,
    crc: 292,
    ..LAYOUT_1300
};

/// 19 as its betas wrote it (1902).
const LAYOUT_1902: Layout = Layout {
    cp_next_xid: 32,
    cp_next_oid: 40,
    cp_next_multi: 44,
    cp_next_multi_offset: 48,
    multi_offset_64: true,
    cp_oldest_xid: 56,
    cp_oldest_xid_db: 60,
    cp_oldest_multi: 64,
    cp_oldest_multi_db: 68,
    cp_time: 72,
    cp_oldest_commit_ts_xid: 80,
    cp_newest_commit_ts_xid: 84,
    cp_oldest_active_xid: 88,
    cp_data_checksum_state: Some(92),
    unlogged_lsn: 136,
    min_recovery_point: 144,
    min_recovery_point_tli: 152,
    backup_start_point: 160,
    backup_end_point: 168,
    backup_end_required: 176,
    wal_level: 180,
    wal_log_hints: 184,
    max_connections: 188,
    max_worker_processes: 192,
    max_wal_senders: 196,
    max_prepared_xacts: 200,
    max_locks_per_xact: 204,
    track_commit_timestamp: 208,
    max_align: 212,
    float_format: 216,
    blcksz: 224,
    relseg_size: 228,
    slru_pages_per_segment: Some(232),
    xlog_blcksz: 236,
    xlog_seg_size: 240,
    name_data_len: 244,
    index_max_keys: 248,
    toast_max_chunk_size: 252,
    loblksize: 256,
    float8_by_val: 260,
    data_checksum_version_init: None,
    data_checksum_version: 264,
    default_char_signedness: Some(268),
    mock_authentication_nonce: 269,
    crc: 304,
};

/// 19.0 (1903): data_checksum_version_init before data_checksum_version.
const LAYOUT_1903: Layout = Layout {
    data_checksum_version_init: Some(264),
    data_checksum_version: 268,
    default_char_signedness: Some(272),
    mock_authentication_nonce: 273,
    crc: 308,
    ..LAYOUT_1902
};

fn layout(version: u32) -> Option<Layout> {
    match version {
        1300 | 1700 => Some(LAYOUT_1300),
        1800 => Some(LAYOUT_1800),
        1902 => Some(LAYOUT_1902),
        1903 => Some(LAYOUT_1903),
        _ => None,
    }
}

/// offsetof(ControlFileData, checkPointCopy); the CheckPoint fields below are relative to it.
const CHECKPOINT: usize = 40;

/// pg_control.h: DBState DB_SHUTDOWNED, a cluster shut down cleanly (not in recovery).
pub const DB_SHUTDOWNED: u32 = 1;

/// pg_control.h: DBState, in pg_controldata's words (pg_controldata.c dbState()).
pub fn state_words(state: u32) -> &'static str {
    match state {
        0 => "starting up",
        1 => "shut down",
        2 => "shut down in recovery",
        3 => "shutting down",
        4 => "in crash recovery",
        5 => "in archive recovery",
        6 => "in production",
        _ => "unrecognized status code",
    }
}

/// checksum.h: ChecksumStateType, as `SHOW data_checksums` prints it (guc_tables.c
/// data_checksums_options). 2 and 3 exist from 19 on.
pub fn checksum_state_words(version: u32) -> &'static str {
    match version {
        0 => "off",
        1 => "on",
        2 => "inprogress-off",
        3 => "inprogress-on",
        _ => "unrecognized",
    }
}

/// xlog.h: WalLevel, as pg_controldata prints it (wal_level_str()).
pub fn wal_level_words(level: i32) -> &'static str {
    match level {
        0 => "minimal",
        1 => "replica",
        2 => "logical",
        _ => "unrecognized wal_level",
    }
}

/// One column's value as row_to_json prints it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ControlValue {
    Int(i64),
    Bool(bool),
    Text(String),
}

/// A decoded pg_control.
#[derive(Clone, Debug, PartialEq)]
pub struct ControlFile {
    pub endian: Endian,
    pub pg_control_version: u32,
    /// The releases that write this version.
    pub releases: &'static str,
    pub state: u32,
    /// CheckPoint.time, for pg_controldata's "Time of latest checkpoint".
    pub checkpoint_time: i64,
    pub crc_stored: u32,
    pub crc_computed: u32,
    /// Every column of pg_control_system(), _checkpoint(), _init() and _recovery() that this
    /// version's server returns, in that order, named as the functions name them.
    pub columns: Vec<(&'static str, ControlValue)>,
    /// What the control file holds and no function column shows (19 on): the current
    /// checksum state and its name, the checkpoint's, the SLRU segment size, initdb's state.
    pub unlisted: Vec<(&'static str, ControlValue)>,
    /// Raw fields pg_controldata prints that the functions do not (state, wal_level, ...).
    pub extra: ControlExtra,
}

/// Fields pg_controldata shows beside the functions' columns.
#[derive(Clone, Debug, PartialEq)]
pub struct ControlExtra {
    pub time: i64,
    pub unlogged_lsn: u64,
    pub wal_level: i32,
    pub wal_log_hints: bool,
    pub max_connections: i32,
    pub max_worker_processes: i32,
    pub max_wal_senders: i32,
    pub max_prepared_xacts: i32,
    pub max_locks_per_xact: i32,
    pub track_commit_timestamp: bool,
    pub float_format: f64,
    pub mock_authentication_nonce: [u8; 32],
    /// CheckPoint.nextMultiOffset in full (64 bits from 19 on).
    pub next_multi_offset: u64,
    /// ControlFileData.data_checksum_version: the current state.
    pub data_checksum_version: u32,
    /// CheckPoint.dataChecksumState (19 on).
    pub checkpoint_data_checksum_version: Option<u32>,
    /// ControlFileData.slru_pages_per_segment (19 on).
    pub slru_pages_per_segment: Option<u32>,
}

/// docs/contracts.md, "control --json": every column by its function's name, then `state`
/// (pg_controldata's words), `crc_ok` and `endian`.
impl Serialize for ControlFile {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let n = self.columns.len().saturating_add(self.unlisted.len());
        let mut m = s.serialize_map(Some(n.saturating_add(3)))?;
        for (name, value) in self.columns.iter().chain(&self.unlisted) {
            m.serialize_entry(name, value)?;
        }
        m.serialize_entry("state", state_words(self.state))?;
        m.serialize_entry("crc_ok", &self.crc_ok())?;
        m.serialize_entry("endian", &self.endian)?;
        m.end()
    }
}

impl ControlFile {
    pub fn crc_ok(&self) -> bool {
        self.crc_stored == self.crc_computed
    }

    /// A column by its function's name, or a field no function shows by its JSON key.
    pub fn get(&self, name: &str) -> Option<&ControlValue> {
        self.columns
            .iter()
            .chain(&self.unlisted)
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v)
    }

    fn u32_of(&self, name: &str) -> Option<u32> {
        match self.get(name)? {
            ControlValue::Int(v) => u32::try_from(*v).ok(),
            _ => None,
        }
    }

    /// The cluster's current data checksum state (pg_controldata's "Data page checksum
    /// version"): 0 off, 1 on, and from 19 on 2 inprogress-off, 3 inprogress-on. Not
    /// pg_control_init()'s column, which 19.0 gives as the state initdb chose.
    pub fn data_page_checksum_version(&self) -> Option<u32> {
        Some(self.extra.data_checksum_version)
    }

    /// The first release that writes this pg_control version (PG_CONTROL_VERSION is the
    /// release times 100 plus a count of changes: 1300 is written by 13 to 16), which
    /// decides how LSNs print (19 pads them).
    pub fn release(&self) -> u32 {
        release_of(self.pg_control_version)
    }

    pub fn block_size(&self) -> Option<u32> {
        self.u32_of("database_block_size")
    }

    pub fn wal_segment_size(&self) -> Option<u32> {
        self.u32_of("bytes_per_wal_segment")
    }
}

/// `on`/`off`, `yes`/`no` as pg_controldata prints booleans.
fn on_off(v: bool) -> &'static str {
    if v {
        "on"
    } else {
        "off"
    }
}

impl ControlFile {
    /// pg_controldata's report (pg_controldata.c, LC_ALL=C, times in UTC): one line per
    /// field, labels and their padding as the program prints them.
    pub fn controldata_text(&self) -> String {
        let col = |name: &str| -> String {
            match self.get(name) {
                Some(ControlValue::Int(v)) => format!("{v}"),
                Some(ControlValue::Bool(v)) => String::from(on_off(*v)),
                Some(ControlValue::Text(t)) => t.clone(),
                None => String::new(),
            }
        };
        // A boolean column in pg_controldata's words for it.
        let words = |name: &str, yes: &'static str, no: &'static str| {
            String::from(
                if matches!(self.get(name), Some(ControlValue::Bool(true))) {
                    yes
                } else {
                    no
                },
            )
        };
        let x = &self.extra;
        let mut lines: Vec<(&str, String)> = Vec::with_capacity(56);
        lines.push((
            "pg_control version number:            ",
            col("pg_control_version"),
        ));
        lines.push((
            "Catalog version number:               ",
            col("catalog_version_no"),
        ));
        lines.push((
            "Database system identifier:           ",
            match self.get("system_identifier") {
                Some(ControlValue::Int(v)) => format!("{}", *v as u64),
                _ => String::new(),
            },
        ));
        lines.push((
            "Database cluster state:               ",
            String::from(state_words(self.state)),
        ));
        lines.push(("pg_control last modified:             ", ctime_text(x.time)));
        lines.push((
            "Latest checkpoint location:           ",
            col("checkpoint_lsn"),
        ));
        lines.push(("Latest checkpoint's REDO location:    ", col("redo_lsn")));
        lines.push((
            "Latest checkpoint's REDO WAL file:    ",
            col("redo_wal_file"),
        ));
        lines.push(("Latest checkpoint's TimeLineID:       ", col("timeline_id")));
        lines.push((
            "Latest checkpoint's PrevTimeLineID:   ",
            col("prev_timeline_id"),
        ));
        lines.push((
            "Latest checkpoint's full_page_writes: ",
            col("full_page_writes"),
        ));
        lines.push(("Latest checkpoint's NextXID:          ", col("next_xid")));
        lines.push(("Latest checkpoint's NextOID:          ", col("next_oid")));
        lines.push((
            "Latest checkpoint's NextMultiXactId:  ",
            col("next_multixact_id"),
        ));
        lines.push((
            "Latest checkpoint's NextMultiOffset:  ",
            format!("{}", x.next_multi_offset),
        ));
        lines.push(("Latest checkpoint's oldestXID:        ", col("oldest_xid")));
        lines.push((
            "Latest checkpoint's oldestXID's DB:   ",
            col("oldest_xid_dbid"),
        ));
        lines.push((
            "Latest checkpoint's oldestActiveXID:  ",
            col("oldest_active_xid"),
        ));
        lines.push((
            "Latest checkpoint's oldestMultiXid:   ",
            col("oldest_multi_xid"),
        ));
        lines.push((
            "Latest checkpoint's oldestMulti's DB: ",
            col("oldest_multi_dbid"),
        ));
        lines.push((
            "Latest checkpoint's oldestCommitTsXid:",
            col("oldest_commit_ts_xid"),
        ));
        lines.push((
            "Latest checkpoint's newestCommitTsXid:",
            col("newest_commit_ts_xid"),
        ));
        if let Some(v) = x.checkpoint_data_checksum_version {
            lines.push(("Latest checkpoint's data_checksum_version:", format!("{v}")));
        }
        lines.push((
            "Time of latest checkpoint:            ",
            ctime_text(self.checkpoint_time),
        ));
        lines.push((
            "Fake LSN counter for unlogged rels:   ",
            lsn_text_for(self.release(), x.unlogged_lsn),
        ));
        lines.push((
            "Minimum recovery ending location:     ",
            col("min_recovery_end_lsn"),
        ));
        lines.push((
            "Min recovery ending loc's timeline:   ",
            col("min_recovery_end_timeline"),
        ));
        lines.push((
            "Backup start location:                ",
            col("backup_start_lsn"),
        ));
        lines.push((
            "Backup end location:                  ",
            col("backup_end_lsn"),
        ));
        lines.push((
            "End-of-backup record required:        ",
            words("end_of_backup_record_required", "yes", "no"),
        ));
        lines.push((
            "wal_level setting:                    ",
            String::from(wal_level_words(x.wal_level)),
        ));
        lines.push((
            "wal_log_hints setting:                ",
            String::from(on_off(x.wal_log_hints)),
        ));
        lines.push((
            "max_connections setting:              ",
            format!("{}", x.max_connections),
        ));
        lines.push((
            "max_worker_processes setting:         ",
            format!("{}", x.max_worker_processes),
        ));
        lines.push((
            "max_wal_senders setting:              ",
            format!("{}", x.max_wal_senders),
        ));
        lines.push((
            "max_prepared_xacts setting:           ",
            format!("{}", x.max_prepared_xacts),
        ));
        lines.push((
            "max_locks_per_xact setting:           ",
            format!("{}", x.max_locks_per_xact),
        ));
        lines.push((
            "track_commit_timestamp setting:       ",
            String::from(on_off(x.track_commit_timestamp)),
        ));
        lines.push((
            "Maximum data alignment:               ",
            col("max_data_alignment"),
        ));
        lines.push((
            "Database block size:                  ",
            col("database_block_size"),
        ));
        lines.push((
            "Blocks per segment of large relation: ",
            col("blocks_per_segment"),
        ));
        if let Some(v) = x.slru_pages_per_segment {
            lines.push(("Pages per SLRU segment:               ", format!("{v}")));
        }
        lines.push((
            "WAL block size:                       ",
            col("wal_block_size"),
        ));
        lines.push((
            "Bytes per WAL segment:                ",
            col("bytes_per_wal_segment"),
        ));
        lines.push((
            "Maximum length of identifiers:        ",
            col("max_identifier_length"),
        ));
        lines.push((
            "Maximum columns in an index:          ",
            col("max_index_columns"),
        ));
        lines.push((
            "Maximum size of a TOAST chunk:        ",
            col("max_toast_chunk_size"),
        ));
        lines.push((
            "Size of a large-object chunk:         ",
            col("large_object_chunk_size"),
        ));
        lines.push((
            "Date/time type storage:               ",
            String::from("64-bit integers"),
        ));
        lines.push((
            "Float8 argument passing:              ",
            words("float8_pass_by_value", "by value", "by reference"),
        ));
        lines.push((
            "Data page checksum version:           ",
            format!("{}", x.data_checksum_version),
        ));
        if let Some(ControlValue::Bool(signed)) = self.get("default_char_signedness") {
            lines.push((
                "Default char data signedness:         ",
                String::from(if *signed { "signed" } else { "unsigned" }),
            ));
        }
        let mut nonce = String::with_capacity(64);
        for b in x.mock_authentication_nonce {
            nonce.push_str(&format!("{b:02x}"));
        }
        lines.push(("Mock authentication nonce:            ", nonce));
        let mut out = String::new();
        for (label, value) in lines {
            out.push_str(label);
            out.push_str(&value);
            out.push('\n');
        }
        out
    }
}

/// A pg_time_t as pg_controldata prints it: strftime's `%c` in the C locale, in UTC.
pub fn ctime_text(secs: i64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let weekday = DAYS
        .get(usize::try_from(days.rem_euclid(7)).unwrap_or(0))
        .copied()
        .unwrap_or("");
    let month = MONTHS
        .get(usize::try_from(m.saturating_sub(1)).unwrap_or(0))
        .copied()
        .unwrap_or("");
    format!(
        "{weekday} {month} {d:>2} {:02}:{:02}:{:02} {y}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

fn release_of(pg_control_version: u32) -> u32 {
    pg_control_version / 100
}

/// A pg_time_t as row_to_json prints a timestamptz with TimeZone=UTC:
/// `2026-11-25T00:13:05+00:00`.
pub fn timestamptz_text(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let (hh, mm, ss) = (rem / 3600, rem % 3600 / 60, rem % 60);
    format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}+00:00")
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
#[allow(clippy::arithmetic_side_effects)] // bounded: |days| < 2^63 / 86400, far from overflow
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// xlog_internal.h: XLogFileName of the segment holding `lsn`.
pub fn wal_file_name(tli: u32, lsn: u64, wal_segment_size: u32) -> Option<String> {
    let seg_size = u64::from(wal_segment_size);
    let segno = lsn.checked_div(seg_size)?;
    let per_id = 0x1_0000_0000u64.checked_div(seg_size)?;
    Some(format!(
        "{tli:08X}{:08X}{:08X}",
        segno.checked_div(per_id)?,
        segno.checked_rem(per_id)?
    ))
}

/// CRC-32C as pg_crc32c computes it (INIT_CRC32C, COMP_CRC32C, FIN_CRC32C: the Castagnoli
/// polynomial, reflected, inverted in and out), from the `crc` crate.
pub fn crc32c(bytes: &[u8]) -> u32 {
    crc::Crc::<u32>::new(&crc::CRC_32_ISCSI).checksum(bytes)
}

/// Decodes pg_control, in either byte order (the version field tells which).
pub fn decode_control(bytes: &[u8]) -> Result<ControlFile, ControlError> {
    let little = read_u32(bytes, 8, Endian::Little);
    let big = read_u32(bytes, 8, Endian::Big);
    let (Some(little), Some(big)) = (little, big) else {
        return Err(ControlError::Truncated { len: bytes.len() });
    };
    let (endian, version, lay) = if let Some(l) = layout(little) {
        (Endian::Little, little, l)
    } else if let Some(l) = layout(big) {
        (Endian::Big, big, l)
    } else {
        return Err(ControlError::UnknownVersion {
            little,
            big,
            catalog_version: read_u32(bytes, 12, Endian::Little),
        });
    };
    let covered = bytes
        .get(..lay.crc)
        .ok_or(ControlError::Truncated { len: bytes.len() })?;
    let crc_stored =
        read_u32(bytes, lay.crc, endian).ok_or(ControlError::Truncated { len: bytes.len() })?;
    let releases = KNOWN_VERSIONS
        .iter()
        .find(|(v, _)| *v == version)
        .map_or("", |(_, r)| r);
    let r = Fields {
        b: bytes,
        e: endian,
    };
    let lsn = |v: u64| lsn_text_for(release_of(version), v);
    let state = r.u32(16);
    let cp = |off: usize| CHECKPOINT.saturating_add(off);
    let wal_segment_size = r.u32(lay.xlog_seg_size);
    let redo = r.u64(cp(0));
    let tli = r.u32(cp(8));
    let next_xid = r.u64(cp(lay.cp_next_xid));
    let next_multi_offset = if lay.multi_offset_64 {
        r.u64(cp(lay.cp_next_multi_offset))
    } else {
        u64::from(r.u32(cp(lay.cp_next_multi_offset)))
    };
    let mut nonce = [0u8; 32];
    if let Some(src) =
        bytes.get(lay.mock_authentication_nonce..lay.mock_authentication_nonce.saturating_add(32))
    {
        nonce.copy_from_slice(src);
    }
    use ControlValue::{Bool, Int, Text};
    let int = |v: u32| Int(i64::from(v));
    let signed = |v: u32| Int(i64::from(v as i32));
    let xid = |off: usize| Text(format!("{}", r.u32(off)));
    let data_checksum_version = r.u32(lay.data_checksum_version);
    let mut columns: Vec<(&'static str, ControlValue)> = Vec::with_capacity(48);
    // pg_control_system()
    columns.push(("pg_control_version", int(version)));
    columns.push(("catalog_version_no", signed(r.u32(12))));
    columns.push(("system_identifier", Int(r.u64(0) as i64)));
    columns.push((
        "pg_control_last_modified",
        Text(timestamptz_text(r.i64(24))),
    ));
    // pg_control_checkpoint()
    columns.push(("checkpoint_lsn", Text(lsn(r.u64(32)))));
    columns.push(("redo_lsn", Text(lsn(redo))));
    columns.push((
        "redo_wal_file",
        Text(wal_file_name(tli, redo, wal_segment_size).unwrap_or_default()),
    ));
    columns.push(("timeline_id", signed(tli)));
    columns.push(("prev_timeline_id", signed(r.u32(cp(12)))));
    columns.push(("full_page_writes", Bool(r.bool(cp(16)))));
    columns.push((
        "next_xid",
        Text(format!("{}:{}", next_xid >> 32, next_xid & 0xFFFF_FFFF)),
    ));
    columns.push(("next_oid", xid(cp(lay.cp_next_oid))));
    columns.push(("next_multixact_id", xid(cp(lay.cp_next_multi))));
    // The function's column is an xid: a 64-bit offset (19) shows its low 32 bits there.
    columns.push((
        "next_multi_offset",
        Text(format!("{}", next_multi_offset & 0xFFFF_FFFF)),
    ));
    columns.push(("oldest_xid", xid(cp(lay.cp_oldest_xid))));
    columns.push(("oldest_xid_dbid", xid(cp(lay.cp_oldest_xid_db))));
    columns.push(("oldest_active_xid", xid(cp(lay.cp_oldest_active_xid))));
    columns.push(("oldest_multi_xid", xid(cp(lay.cp_oldest_multi))));
    columns.push(("oldest_multi_dbid", xid(cp(lay.cp_oldest_multi_db))));
    columns.push(("oldest_commit_ts_xid", xid(cp(lay.cp_oldest_commit_ts_xid))));
    columns.push(("newest_commit_ts_xid", xid(cp(lay.cp_newest_commit_ts_xid))));
    let checkpoint_time = r.i64(cp(lay.cp_time));
    columns.push(("checkpoint_time", Text(timestamptz_text(checkpoint_time))));
    // pg_control_init()
    columns.push(("max_data_alignment", signed(r.u32(lay.max_align))));
    columns.push(("database_block_size", signed(r.u32(lay.blcksz))));
    columns.push(("blocks_per_segment", signed(r.u32(lay.relseg_size))));
    columns.push(("wal_block_size", signed(r.u32(lay.xlog_blcksz))));
    columns.push(("bytes_per_wal_segment", signed(wal_segment_size)));
    columns.push(("max_identifier_length", signed(r.u32(lay.name_data_len))));
    columns.push(("max_index_columns", signed(r.u32(lay.index_max_keys))));
    columns.push((
        "max_toast_chunk_size",
        signed(r.u32(lay.toast_max_chunk_size)),
    ));
    columns.push(("large_object_chunk_size", signed(r.u32(lay.loblksize))));
    columns.push(("float8_pass_by_value", Bool(r.bool(lay.float8_by_val))));
    // 1903's pg_control_init() shows the state initdb chose; earlier ones the current state.
    let init = lay
        .data_checksum_version_init
        .map_or(data_checksum_version, |at| r.u32(at));
    columns.push(("data_page_checksum_version", signed(init)));
    if let Some(at) = lay.default_char_signedness {
        columns.push(("default_char_signedness", Bool(r.bool(at))));
    }
    // pg_control_recovery()
    columns.push((
        "min_recovery_end_lsn",
        Text(lsn(r.u64(lay.min_recovery_point))),
    ));
    columns.push((
        "min_recovery_end_timeline",
        signed(r.u32(lay.min_recovery_point_tli)),
    ));
    columns.push(("backup_start_lsn", Text(lsn(r.u64(lay.backup_start_point)))));
    columns.push(("backup_end_lsn", Text(lsn(r.u64(lay.backup_end_point)))));
    columns.push((
        "end_of_backup_record_required",
        Bool(r.bool(lay.backup_end_required)),
    ));
    // What 19's control file holds and no function column shows.
    let mut unlisted: Vec<(&'static str, ControlValue)> = Vec::new();
    if let Some(at) = lay.cp_data_checksum_state {
        let checkpoint_state = r.u32(cp(at));
        unlisted.push(("data_checksum_version", int(data_checksum_version)));
        unlisted.push(("checkpoint_data_checksum_version", int(checkpoint_state)));
        unlisted.push((
            "data_checksums",
            Text(String::from(checksum_state_words(data_checksum_version))),
        ));
    }
    if let Some(at) = lay.slru_pages_per_segment {
        unlisted.push(("slru_pages_per_segment", int(r.u32(at))));
    }
    if let Some(at) = lay.data_checksum_version_init {
        unlisted.push(("data_checksum_version_init", int(r.u32(at))));
    }
    let extra = ControlExtra {
        time: r.i64(24),
        unlogged_lsn: r.u64(lay.unlogged_lsn),
        wal_level: r.u32(lay.wal_level) as i32,
        wal_log_hints: r.bool(lay.wal_log_hints),
        max_connections: r.u32(lay.max_connections) as i32,
        max_worker_processes: r.u32(lay.max_worker_processes) as i32,
        max_wal_senders: r.u32(lay.max_wal_senders) as i32,
        max_prepared_xacts: r.u32(lay.max_prepared_xacts) as i32,
        max_locks_per_xact: r.u32(lay.max_locks_per_xact) as i32,
        track_commit_timestamp: r.bool(lay.track_commit_timestamp),
        float_format: f64::from_bits(r.u64(lay.float_format)),
        mock_authentication_nonce: nonce,
        next_multi_offset,
        data_checksum_version,
        checkpoint_data_checksum_version: lay.cp_data_checksum_state.map(|at| r.u32(cp(at))),
        slru_pages_per_segment: lay.slru_pages_per_segment.map(|at| r.u32(at)),
    };
    Ok(ControlFile {
        endian,
        pg_control_version: version,
        releases,
        state,
        checkpoint_time,
        crc_stored,
        crc_computed: crc32c(covered),
        columns,
        unlisted,
        extra,
    })
}

/// Reads within the CRC-covered structure; every offset used is below the smallest
/// layout's CRC offset, which decode_control has checked is in the input.
struct Fields<'a> {
    b: &'a [u8],
    e: Endian,
}

impl Fields<'_> {
    fn u32(&self, off: usize) -> u32 {
        read_u32(self.b, off, self.e).unwrap_or(0)
    }
    fn u64(&self, off: usize) -> u64 {
        read_u64(self.b, off, self.e).unwrap_or(0)
    }
    fn i64(&self, off: usize) -> i64 {
        self.u64(off) as i64
    }
    fn bool(&self, off: usize) -> bool {
        self.b.get(off).is_some_and(|&v| v != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32c_is_castagnoli() {
        // RFC 3720 B.4: 32 bytes of zeros.
        assert_eq!(crc32c(&[0u8; 32]), 0x8A91_36AA);
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
    }

    #[test]
    fn timestamps_and_wal_file_names() {
        assert_eq!(timestamptz_text(0), "1970-01-01T00:00:00+00:00");
        assert_eq!(timestamptz_text(951_782_400), "2000-02-29T00:00:00+00:00");
        assert_eq!(timestamptz_text(-1), "1969-12-31T23:59:59+00:00");
        assert_eq!(
            wal_file_name(1, 0x1_2300_0028, 16 << 20).unwrap(),
            "000000010000000100000023"
        );
        assert_eq!(wal_file_name(1, 0, 0), None);
    }

    #[test]
    fn bad_input_is_named() {
        assert_eq!(
            decode_control(&[0u8; 5]).unwrap_err(),
            ControlError::Truncated { len: 5 }
        );
        let mut b = vec![0u8; 8192];
        b[8..12].copy_from_slice(&1201u32.to_le_bytes());
        let e = decode_control(&b).unwrap_err();
        assert_eq!(
            e,
            ControlError::UnknownVersion {
                little: 1201,
                big: 1201u32.swap_bytes(),
                catalog_version: Some(0)
            }
        );
        assert!(format!("{e}").contains("unknown pg_control version 1201"));
        // A 1800 file cut before its CRC.
        b[8..12].copy_from_slice(&1800u32.to_le_bytes());
        assert!(matches!(
            decode_control(&b[..290]),
            Err(ControlError::Truncated { len: 290 })
        ));
        for n in 0..400 {
            let _ = decode_control(&b[..n]);
        }
    }

    #[test]
    fn big_endian_files_are_recognised() {
        let mut b = vec![0u8; 8192];
        b[8..12].copy_from_slice(&1300u32.to_be_bytes());
        b[216..220].copy_from_slice(&8192u32.to_be_bytes());
        let crc = crc32c(&b[..288]);
        b[288..292].copy_from_slice(&crc.to_be_bytes());
        let c = decode_control(&b).unwrap();
        assert_eq!((c.endian, c.pg_control_version), (Endian::Big, 1300));
        assert!(c.crc_ok());
        assert_eq!(c.block_size(), Some(8192));
    }
}
