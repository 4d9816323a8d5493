//! The WAL as a stream of segments fed in order, in chunks of any size, so that a browser
//! never holds more than a chunk and a record being assembled: page headers checked as
//! xlogreader.c XLogReaderValidatePageHeader does, records assembled across pages and
//! segments, their CRC-32C checked, and each good record handed to a sink.
//!
//! After a bad record or page the rest of its segment is skipped and reading starts again at
//! the next segment's first record (as pg_waldump started there would): a damaged archive
//! still gives the images of its good segments.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::record::{decode_blocks, BlockRef, Piece, WalRecord, SIZE_OF_XLOG_RECORD};
use super::timeline::TimelineHistory;
use super::{lsn_text_for, parse_wal_file_name, version_of_magic, SegmentName};
use crate::findings::Finding;

/// xlog_internal.h SizeOfXLogShortPHD and SizeOfXLogLongPHD.
const SHORT_PHD: usize = 24;
const LONG_PHD: usize = 40;
const XLP_FIRST_IS_CONTRECORD: u16 = 0x0001;
const XLP_LONG_HEADER: u16 = 0x0002;

/// xlog_internal.h XLP_FIRST_IS_OVERWRITE_CONTRECORD and XLP_ALL_FLAGS of a version: 19 drops
/// XLP_BKP_REMOVABLE (0x0004) and gives its bit to the overwrite flag.
fn xlp_overwrite_and_all(version: u32) -> (u16, u16) {
    if version >= 19 {
        (0x0004, 0x0007)
    } else {
        (0x0008, 0x000F)
    }
}
/// pg_control.h XLOG_SWITCH: the rest of the segment is unused.
const XLOG_SWITCH: u8 = 0x40;
/// xlogrecord.h XLogRecordMaxSize (16 and later; earlier servers never wrote larger ones).
const XLOG_RECORD_MAX_SIZE: u32 = 1020 * 1024 * 1024;

/// What the caller knows about the cluster beside its WAL.
#[derive(Clone, Copy, Debug)]
pub struct WalOptions {
    /// pg_control's system identifier: segments of another cluster are named and skipped.
    pub system_identifier: Option<u64>,
    /// The data block size (BLCKSZ), which the WAL does not record: pg_control's, else 8192.
    pub block_size: u32,
}

impl Default for WalOptions {
    fn default() -> Self {
        WalOptions {
            system_identifier: None,
            block_size: 8192,
        }
    }
}

/// A problem met while reading: its finding, where, and PostgreSQL's message filled in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalProblem {
    pub finding: Finding,
    /// The segment's index in feeding order.
    pub segment: u32,
    pub lsn: Option<u64>,
    pub detail: String,
}

/// What the WAL said about itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WalSummary {
    pub version: Option<u32>,
    pub system_identifier: Option<u64>,
    pub segment_size: Option<u32>,
    pub page_size: Option<u32>,
    pub segments: u32,
    pub records: u64,
    pub images: u64,
    /// Where the last good record ended.
    pub end_lsn: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SegState {
    /// Waiting for the long page header.
    Start,
    Reading,
    /// The rest of this segment is not read (after a switch record, the WAL's end, a problem).
    Skipping,
}

/// xlogreader.c's words for a page header whose magic number is not the segment's.
fn magic_invalid(version: u32, magic: u16, label: &str, page_lsn: u64, offset: u64) -> String {
    format!(
        "invalid magic number {magic:04X} in WAL segment {label}, LSN {}, offset {offset}",
        lsn_text_for(version, page_lsn)
    )
}

/// xlogreader.c's words for a page header whose xlp_pageaddr is not the page's own LSN.
fn pageaddr_unexpected(
    version: u32,
    pageaddr: u64,
    label: &str,
    page_lsn: u64,
    offset: u64,
) -> String {
    format!(
        "unexpected pageaddr {} in WAL segment {label}, LSN {}, offset {offset}",
        lsn_text_for(version, pageaddr),
        lsn_text_for(version, page_lsn)
    )
}

/// xlogreader.c's words for a record continued on a page without XLP_FIRST_IS_CONTRECORD.
fn no_contrecord(version: u32, record: u64, page_lsn: u64) -> String {
    format!(
        "there is no contrecord flag at {}: the record at {} is torn",
        lsn_text_for(version, page_lsn),
        lsn_text_for(version, record)
    )
}

/// A page never written where the WAL seemed to end (`WalReader::unwritten`).
#[derive(Clone, Debug)]
struct Unwritten {
    page_lsn: u64,
    /// The record that went on in it, noted as the WAL's end inside it.
    pending: Option<u64>,
    /// The server's words for the page, should the WAL go on after it.
    finding: Finding,
    detail: String,
}

/// A record whose bytes continue on a later page.
#[derive(Clone, Copy, Debug)]
struct Pending {
    lsn: u64,
    tot_len: u32,
    timeline: u32,
}

pub struct WalReader {
    opts: WalOptions,
    /// The newest timeline's history: records past where it left a timeline are not read.
    history: Option<TimelineHistory>,
    summary: WalSummary,
    magic: Option<u16>,
    problems: Vec<WalProblem>,
    /// A stale segment was met: the WAL ended before it, and nothing after it is read.
    ended: bool,
    /// The first page read that was never written (zeros or recycled WAL), where the WAL
    /// seemed to end: its problem if a later segment holds the WAL that goes on after it.
    unwritten: Option<Unwritten>,
    // The segment being fed.
    seg_index: Option<u32>,
    seg_name: Option<SegmentName>,
    seg_label: String,
    seg_state: SegState,
    seg_received: u64,
    seg_start: u64,
    seg_tli: u32,
    page_size: usize,
    page_buf: Vec<u8>,
    last_segno: Option<u64>,
    last_page_tli: u32,
    // Record assembly.
    pending: Option<Pending>,
    rec: Vec<u8>,
    pieces: Vec<Piece>,
    prev_lsn: Option<u64>,
    blocks: Vec<BlockRef>,
}

type Sink<'s> = &'s mut dyn FnMut(&WalRecord<'_>);

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(
        b.get(at..at.checked_add(2)?)?.try_into().ok()?,
    ))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(
        b.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(
        b.get(at..at.checked_add(8)?)?.try_into().ok()?,
    ))
}

/// MAXALIGN to 8 bytes.
fn maxalign(n: usize) -> usize {
    n.saturating_add(7) & !7
}

impl WalReader {
    pub fn new(opts: WalOptions) -> WalReader {
        WalReader {
            opts,
            history: None,
            summary: WalSummary::default(),
            magic: None,
            problems: Vec::new(),
            ended: false,
            unwritten: None,
            seg_index: None,
            seg_name: None,
            seg_label: String::new(),
            seg_state: SegState::Skipping,
            seg_received: 0,
            seg_start: 0,
            seg_tli: 0,
            page_size: 0,
            page_buf: Vec::new(),
            last_segno: None,
            last_page_tli: 0,
            pending: None,
            rec: Vec::new(),
            pieces: Vec::new(),
            prev_lsn: None,
            blocks: Vec::new(),
        }
    }

    /// Before the first segment: the history of the timeline the WAL is read towards.
    pub fn set_history(&mut self, history: TimelineHistory) {
        self.history = Some(history);
    }

    pub fn summary(&self) -> WalSummary {
        self.summary
    }

    pub fn problems(&self) -> &[WalProblem] {
        &self.problems
    }

    /// Whether a stale (recycled) segment ended the WAL; later segments were not read.
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// One whole segment: begin, feed, end.
    pub fn push_segment(&mut self, name: Option<&str>, bytes: &[u8], sink: Sink<'_>) {
        self.begin_segment(name);
        self.feed(bytes, sink);
        self.end_segment();
    }

    /// The next segment in reading order (`wal::segment_plan`), by its file name when known.
    pub fn begin_segment(&mut self, name: Option<&str>) {
        let index = self.seg_index.map_or(0, |i| i.saturating_add(1));
        self.seg_index = Some(index);
        self.summary.segments = self.summary.segments.saturating_add(1);
        self.seg_name = name.and_then(parse_wal_file_name).map(|(s, _)| s);
        self.seg_label = match name {
            Some(n) => String::from(n),
            None => format!("#{index}"),
        };
        self.seg_state = if self.ended {
            SegState::Skipping
        } else {
            SegState::Start
        };
        self.seg_received = 0;
        self.page_buf.clear();
        self.page_size = LONG_PHD;
    }

    /// The next bytes of the current segment.
    pub fn feed(&mut self, mut bytes: &[u8], sink: Sink<'_>) {
        while !bytes.is_empty() {
            if self.seg_state == SegState::Skipping {
                self.seg_received = self.seg_received.saturating_add(bytes.len() as u64);
                return;
            }
            let need = self.page_size;
            if self.page_buf.is_empty() && self.seg_state == SegState::Reading {
                if let Some((page, rest)) = bytes.split_at_checked(need) {
                    self.page(page, sink);
                    self.seg_received = self.seg_received.saturating_add(need as u64);
                    bytes = rest;
                    continue;
                }
            }
            let take = need.saturating_sub(self.page_buf.len()).min(bytes.len());
            let (head, rest) = bytes.split_at(take);
            self.page_buf.extend_from_slice(head);
            bytes = rest;
            if self.page_buf.len() < need {
                continue;
            }
            if self.seg_state == SegState::Start {
                let buf = core::mem::take(&mut self.page_buf);
                self.segment_header(&buf);
                self.page_buf = buf;
                continue;
            }
            let buf = core::mem::take(&mut self.page_buf);
            self.page(&buf, sink);
            self.seg_received = self.seg_received.saturating_add(buf.len() as u64);
            self.page_buf = buf;
            self.page_buf.clear();
        }
    }

    /// The end of the current segment's bytes: a segment shorter than its size is truncated,
    /// and a record it cut is lost.
    pub fn end_segment(&mut self) {
        let received = self.seg_received.saturating_add(self.page_buf.len() as u64);
        let expected = self.summary.segment_size.map(u64::from);
        let reading = matches!(self.seg_state, SegState::Reading | SegState::Start) && !self.ended;
        let short = expected.is_some_and(|e| received < e) || self.seg_state == SegState::Start;
        if reading && short {
            let cut = self
                .pending
                .map(|p| format!("; the record at {} is cut", self.lsn(p.lsn)))
                .unwrap_or_default();
            let detail = format!(
                "could not read from WAL segment {}, offset {}: read {} of {}{cut}",
                self.seg_label,
                self.seg_received,
                self.page_buf.len(),
                self.page_size,
            );
            self.problem(Finding::WalSegmentTruncated, None, detail);
            self.pending = None;
            self.prev_lsn = None;
        }
        self.page_buf.clear();
        self.seg_state = SegState::Skipping;
    }

    /// After the last segment: a record still open continues in a segment not given.
    pub fn finish(&mut self) {
        if let Some(p) = self.pending.take() {
            let detail = format!(
                "the WAL given ends inside the record at {}: its rest is in a later segment",
                self.lsn(p.lsn)
            );
            self.problem(Finding::WalEndsInsideRecord, Some(p.lsn), detail);
        }
    }

    /// The WAL's version, once a segment header named it; 13 to 18 alike until then.
    fn version(&self) -> u32 {
        self.summary.version.unwrap_or(18)
    }

    /// An LSN as the WAL's server prints it in its messages.
    fn lsn(&self, lsn: u64) -> String {
        lsn_text_for(self.version(), lsn)
    }

    fn problem(&mut self, finding: Finding, lsn: Option<u64>, detail: String) {
        self.problems.push(WalProblem {
            finding,
            segment: self.seg_index.unwrap_or(0),
            lsn,
            detail,
        });
    }

    /// Stops reading the current segment after a problem; the next one starts afresh.
    fn skip_segment(&mut self) {
        self.seg_state = SegState::Skipping;
        self.pending = None;
        self.prev_lsn = None;
    }

    /// The segment's long page header: which version, cluster, sizes and segment it is.
    fn segment_header(&mut self, h: &[u8]) {
        let (Some(magic), Some(info), Some(tli), Some(pageaddr)) =
            (u16_at(h, 0), u16_at(h, 2), u32_at(h, 4), u64_at(h, 8))
        else {
            return self.skip_segment();
        };
        let (Some(sysid), Some(seg_size), Some(blcksz)) =
            (u64_at(h, 24), u32_at(h, 32), u32_at(h, 36))
        else {
            return self.skip_segment();
        };
        let label = self.seg_label.clone();
        if h.iter().all(|&b| b == 0) {
            // A segment made ahead of use (wal_init_zero) that was never written.
            return self.stale_segment(format!(
                "WAL segment {label} is all zeros, made ahead of use and not written yet (as the server prepares segments; nothing wrong)"
            ));
        }
        let Some(version) = version_of_magic(magic) else {
            let (finding, detail) = if magic & 0xFF00 == 0xD100 {
                (
                    Finding::WalVersionUnsupported,
                    format!("WAL segment {label} has page magic {magic:04X}: pgpage reads the WAL of PostgreSQL 13 to 19"),
                )
            } else {
                (
                    Finding::WalPageMagicInvalid,
                    format!("invalid magic number {magic:04X} in WAL segment {label}, offset 0"),
                )
            };
            self.problem(finding, None, detail);
            return self.skip_segment();
        };
        if self.magic.is_some_and(|m| m != magic) {
            let first = self.summary.version.unwrap_or(0);
            let detail = format!(
                "WAL segment {label} is of PostgreSQL {version} (magic {magic:04X}), the first segment of {first}"
            );
            self.problem(Finding::WalPageMagicInvalid, None, detail);
            return self.skip_segment();
        }
        let (_, all_flags) = xlp_overwrite_and_all(version);
        if info & XLP_LONG_HEADER == 0 || info & !all_flags != 0 {
            let detail = format!("invalid info bits {info:04X} in WAL segment {label}, offset 0");
            self.problem(Finding::WalPageInfoInvalid, None, detail);
            return self.skip_segment();
        }
        let seg_ok = seg_size.is_power_of_two() && (1 << 20..=1 << 30).contains(&seg_size);
        let page_ok = blcksz.is_power_of_two() && (1024..=65536).contains(&blcksz);
        if !seg_ok
            || !page_ok
            || self.summary.segment_size.is_some_and(|s| s != seg_size)
            || self.summary.page_size.is_some_and(|p| p != blcksz)
        {
            let detail = format!(
                "WAL file is from different database system: incorrect segment size or XLOG_BLCKSZ in page header (WAL segment {label}: {seg_size}, {blcksz})"
            );
            self.problem(Finding::WalPageSizesInvalid, None, detail);
            return self.skip_segment();
        }
        let expected_sysid = self
            .opts
            .system_identifier
            .or(self.summary.system_identifier);
        if let Some(expected) = expected_sysid.filter(|&e| e != sysid) {
            let whose = if self.opts.system_identifier.is_some() {
                "pg_control"
            } else {
                "first segment's"
            };
            let detail = format!(
                "WAL file is from different database system: WAL file database system identifier is {sysid}, {whose} database system identifier is {expected} (WAL segment {label})"
            );
            self.problem(Finding::WalSystemIdentifierMismatch, None, detail);
            return self.skip_segment();
        }
        // seg_ok above: seg_size is a power of two, never zero.
        let segno = pageaddr.checked_div(u64::from(seg_size)).unwrap_or(0);
        if pageaddr.checked_rem(u64::from(seg_size)) != Some(0) {
            let detail = format!(
                "unexpected pageaddr {} in WAL segment {label}, offset 0",
                self.lsn(pageaddr)
            );
            self.problem(Finding::WalPageAddrUnexpected, None, detail);
            return self.skip_segment();
        }
        if let Some(named) = self.seg_name.and_then(|n| n.segno(seg_size)) {
            if segno < named && self.summary.records > 0 {
                return self.stale_segment(format!(
                    "WAL segment {label} holds recycled WAL of {}",
                    self.lsn(pageaddr)
                ));
            }
            if segno != named {
                let detail = format!(
                    "unexpected pageaddr {} in WAL segment {label}, offset 0",
                    self.lsn(pageaddr)
                );
                self.problem(Finding::WalPageAddrUnexpected, None, detail);
                return self.skip_segment();
            }
        }
        match self.last_segno {
            Some(last) if segno <= last => {
                let detail = format!(
                    "WAL segment {label} ({}) comes after a later segment: segments out of order",
                    self.lsn(pageaddr)
                );
                self.problem(Finding::WalPageAddrUnexpected, None, detail);
                return self.skip_segment();
            }
            Some(last) if segno > last.saturating_add(1) => {
                let missing = last.saturating_add(1);
                let detail = format!(
                    "could not find WAL segment of {}: segments {} to {} are missing before {label}",
                    self.lsn(missing.saturating_mul(u64::from(seg_size))),
                    missing,
                    segno.saturating_sub(1)
                );
                self.problem(Finding::WalSegmentMissing, None, detail);
                self.pending = None;
                self.prev_lsn = None;
            }
            _ => {}
        }
        if let Some(u) = self.unwritten.take() {
            // The WAL did not end at that page: the server fsyncs a segment before it
            // writes the next, so an unwritten page with WAL after it is damage or a gap.
            if let Some(rec) = u.pending {
                self.problems
                    .retain(|p| !(p.finding == Finding::WalEndsInsideRecord && p.lsn == Some(rec)));
            }
            self.problem(u.finding, Some(u.pending.unwrap_or(u.page_lsn)), u.detail);
        }
        self.magic = Some(magic);
        self.summary.version = Some(version);
        self.summary.system_identifier = Some(sysid);
        self.summary.segment_size = Some(seg_size);
        self.summary.page_size = Some(blcksz);
        self.last_segno = Some(segno);
        self.seg_start = pageaddr;
        self.seg_tli = self.seg_name.map_or(tli, |n| n.timeline);
        self.page_size = usize::try_from(blcksz).unwrap_or(8192);
        self.seg_state = SegState::Reading;
    }

    /// A segment older than its name (recycled) or never written: the WAL ended before it.
    fn stale_segment(&mut self, why: String) {
        let detail = format!("{why}: the WAL ends before it, and later segments are not read");
        self.problem(Finding::WalSegmentStale, None, detail);
        self.ended = true;
        self.skip_segment();
    }

    fn page(&mut self, page: &[u8], sink: Sink<'_>) {
        let offset = self.seg_received;
        let page_lsn = self.seg_start.saturating_add(offset);
        let (Some(magic), Some(info), Some(tli), Some(pageaddr), Some(rem_len)) = (
            u16_at(page, 0),
            u16_at(page, 2),
            u32_at(page, 4),
            u64_at(page, 8),
            u32_at(page, 16),
        ) else {
            return self.skip_segment();
        };
        let label = self.seg_label.clone();
        // Zeros or an older page: the server stops writing here (end of WAL).
        let unwritten = (magic == 0 && page.iter().all(|&b| b == 0)) || pageaddr < page_lsn;
        let bad = if unwritten {
            None
        } else if Some(magic) != self.magic {
            Some((
                Finding::WalPageMagicInvalid,
                magic_invalid(self.version(), magic, &label, page_lsn, offset),
            ))
        } else if info & !xlp_overwrite_and_all(self.version()).1 != 0 {
            Some((
                Finding::WalPageInfoInvalid,
                format!(
                    "invalid info bits {info:04X} in WAL segment {label}, LSN {}, offset {offset}",
                    self.lsn(page_lsn)
                ),
            ))
        } else if pageaddr != page_lsn {
            Some((
                Finding::WalPageAddrUnexpected,
                pageaddr_unexpected(self.version(), pageaddr, &label, page_lsn, offset),
            ))
        } else if tli < self.last_page_tli {
            Some((
                Finding::WalTimelineOutOfSequence,
                format!("out-of-sequence timeline ID {tli} (after {}) in WAL segment {label}, LSN {}, offset {offset}", self.last_page_tli, self.lsn(page_lsn)),
            ))
        } else {
            None
        };
        if let Some((finding, detail)) = bad {
            self.problem(finding, Some(page_lsn), detail);
            return self.skip_segment();
        }
        if unwritten {
            let pending = self.pending.map(|p| p.lsn);
            if self.unwritten.is_none() {
                let (finding, detail) = match pending {
                    Some(rec) => (
                        Finding::WalContrecordMissing,
                        format!(
                            "{}, and the WAL goes on in a later segment",
                            no_contrecord(self.version(), rec, page_lsn)
                        ),
                    ),
                    None if magic == 0 => (
                        Finding::WalPageMagicInvalid,
                        format!(
                            "{}: the WAL goes on in a later segment",
                            magic_invalid(self.version(), magic, &label, page_lsn, offset)
                        ),
                    ),
                    None => (
                        Finding::WalPageAddrUnexpected,
                        format!(
                            "{}: the WAL goes on in a later segment",
                            pageaddr_unexpected(self.version(), pageaddr, &label, page_lsn, offset)
                        ),
                    ),
                };
                self.unwritten = Some(Unwritten {
                    page_lsn,
                    pending,
                    finding,
                    detail,
                });
            }
            if let Some(p) = self.pending.take() {
                // The WAL ends inside this record: the server never wrote (or flushed, or
                // sent to this standby) the page its rest goes on in. Recovery ends the WAL
                // here as it does at any unwritten page (a standby's pg_wal, or a crashed
                // server's, often ends so: whole pages are flushed, not whole records). Not
                // a torn record: nothing written after it says otherwise.
                let detail = format!(
                    "the WAL ends inside the record at {}: the page at {} that would hold its \
                     rest was never written ({}), as a standby's or a crashed server's WAL \
                     may end",
                    self.lsn(p.lsn),
                    self.lsn(page_lsn),
                    if pageaddr < page_lsn && magic != 0 {
                        "it holds recycled WAL"
                    } else {
                        "zeros"
                    }
                );
                self.problem(Finding::WalEndsInsideRecord, Some(p.lsn), detail);
                self.prev_lsn = None;
            }
            self.summary.end_lsn = self.summary.end_lsn.or(Some(page_lsn));
            return self.skip_segment();
        }
        self.last_page_tli = tli;
        let hdr_len = if info & XLP_LONG_HEADER != 0 {
            LONG_PHD
        } else {
            SHORT_PHD
        };
        let mut pos = hdr_len;
        let avail = page.len().saturating_sub(hdr_len);
        let rem = usize::try_from(rem_len).unwrap_or(usize::MAX);
        if let Some(p) = self.pending {
            if info & XLP_FIRST_IS_CONTRECORD == 0 {
                let (overwrite, _) = xlp_overwrite_and_all(self.version());
                if info & overwrite == 0 {
                    self.contrecord_missing(p.lsn, page_lsn);
                }
                // Replay gave that record up (15, and 13/14 since their 2021 minor releases,
                // mark the page): the WAL goes on from here.
                self.pending = None;
                self.prev_lsn = None;
            } else {
                let need = (p.tot_len as usize).saturating_sub(self.rec.len());
                if rem != need {
                    let detail = format!(
                        "invalid contrecord length {rem_len} (expected {need}) at {}",
                        self.lsn(page_lsn)
                    );
                    self.problem(Finding::WalContrecordLengthInvalid, Some(p.lsn), detail);
                    return self.skip_segment();
                }
                let take = need.min(avail);
                let body = page.get(pos..pos.saturating_add(take)).unwrap_or(&[]);
                self.append(body, offset, pos);
                pos = pos.saturating_add(take);
                if take < need {
                    return;
                }
                self.pending = None;
                // EndRecPtr: the next record's place, MAXALIGNed as XLogInsert reserves it.
                let end_lsn = page_lsn.saturating_add(maxalign(pos) as u64);
                if !self.complete(p.lsn, end_lsn, p.timeline, sink) {
                    return;
                }
                pos = maxalign(pos);
            }
        } else if info & XLP_FIRST_IS_CONTRECORD != 0 {
            // The end of a record that began before the first segment read (or a gap).
            if rem >= avail {
                return;
            }
            pos = maxalign(pos.saturating_add(rem));
        }
        self.records_on_page(page, page_lsn, offset, pos, sink);
    }

    fn contrecord_missing(&mut self, record: u64, page_lsn: u64) {
        let detail = no_contrecord(self.version(), record, page_lsn);
        self.problem(Finding::WalContrecordMissing, Some(record), detail);
        self.pending = None;
        self.prev_lsn = None;
    }

    fn records_on_page(
        &mut self,
        page: &[u8],
        page_lsn: u64,
        offset: u64,
        mut pos: usize,
        sink: Sink<'_>,
    ) {
        while let Some(tot_len) = u32_at(page, pos) {
            let lsn = page_lsn.saturating_add(pos as u64);
            if tot_len == 0 {
                // Nothing written here yet: the end of the WAL.
                self.summary.end_lsn = Some(lsn);
                return self.skip_segment();
            }
            if (tot_len as usize) < SIZE_OF_XLOG_RECORD {
                let detail = format!(
                    "invalid record length at {}: expected at least {SIZE_OF_XLOG_RECORD}, got {tot_len}",
                    self.lsn(lsn)
                );
                self.problem(Finding::WalRecordLengthInvalid, Some(lsn), detail);
                return self.skip_segment();
            }
            if tot_len > XLOG_RECORD_MAX_SIZE {
                let detail = format!("record length {tot_len} at {} too long", self.lsn(lsn));
                self.problem(Finding::WalRecordLengthInvalid, Some(lsn), detail);
                return self.skip_segment();
            }
            self.rec.clear();
            self.pieces.clear();
            let timeline = self.seg_tli;
            let end = pos.saturating_add(tot_len as usize);
            match page.get(pos..end) {
                Some(whole) => {
                    self.append(whole, offset, pos);
                    let end_lsn = page_lsn.saturating_add(maxalign(end) as u64);
                    if !self.complete(lsn, end_lsn, timeline, sink) {
                        return;
                    }
                    pos = maxalign(end);
                }
                None => {
                    let part = page.get(pos..).unwrap_or(&[]);
                    self.append(part, offset, pos);
                    self.pending = Some(Pending {
                        lsn,
                        tot_len,
                        timeline,
                    });
                    return;
                }
            }
        }
    }

    fn append(&mut self, bytes: &[u8], page_offset: u64, pos: usize) {
        self.pieces.push(Piece {
            segment: self.seg_index.unwrap_or(0),
            offset: u32::try_from(page_offset.saturating_add(pos as u64)).unwrap_or(u32::MAX),
            record_offset: u32::try_from(self.rec.len()).unwrap_or(u32::MAX),
            len: u32::try_from(bytes.len()).unwrap_or(u32::MAX),
        });
        self.rec.extend_from_slice(bytes);
    }

    /// A whole record is in `rec`: check and decode it, hand it on. False when the rest of the
    /// page is not to be read (a problem, or a switch record).
    fn complete(&mut self, lsn: u64, end_lsn: u64, timeline: u32, sink: Sink<'_>) -> bool {
        let rec = core::mem::take(&mut self.rec);
        let ok = self.check_and_hand_on(&rec, lsn, end_lsn, timeline, sink);
        self.rec = rec;
        ok
    }

    fn check_and_hand_on(
        &mut self,
        rec: &[u8],
        lsn: u64,
        end_lsn: u64,
        timeline: u32,
        sink: Sink<'_>,
    ) -> bool {
        let (Some(xid), Some(prev), Some(&info), Some(&rmid), Some(crc)) = (
            u32_at(rec, 4),
            u64_at(rec, 8),
            rec.get(16),
            rec.get(17),
            u32_at(rec, 20),
        ) else {
            return false;
        };
        let left = self.history.as_ref().and_then(|h| {
            let end = h.end_of(timeline).filter(|&e| lsn >= e)?;
            Some((end, h.timeline))
        });
        if let Some((end, newest)) = left {
            let detail = format!(
                "the record at {} in WAL segment {} is past the point {} where timeline {timeline} was left ({newest:08X}.history): the rest of the segment is its abandoned branch, not read, and no image in it is a good copy",
                self.lsn(lsn),
                self.seg_label,
                self.lsn(end)
            );
            self.problem(Finding::WalTimelineAbandoned, Some(lsn), detail);
            self.skip_segment();
            return false;
        }
        let version = self.summary.version.unwrap_or(18);
        let custom_ok = version >= 15 && rmid >= super::RM_MIN_CUSTOM_ID;
        if rmid > super::rm_max_builtin_id(version) && !custom_ok {
            let detail = format!("invalid resource manager ID {rmid} at {}", self.lsn(lsn));
            self.problem(Finding::WalResourceManagerInvalid, Some(lsn), detail);
            self.skip_segment();
            return false;
        }
        if let Some(expected) = self.prev_lsn.filter(|&p| p != prev) {
            let detail = format!(
                "record with incorrect prev-link {} at {} (the record before is at {})",
                self.lsn(prev),
                self.lsn(lsn),
                self.lsn(expected)
            );
            self.problem(Finding::WalPrevLinkIncorrect, Some(lsn), detail);
            self.skip_segment();
            return false;
        }
        let (Some(head), Some(body)) = (rec.get(..20), rec.get(SIZE_OF_XLOG_RECORD..)) else {
            return false;
        };
        if super::crc::crc32c_of(body, head) != crc {
            let detail = format!(
                "incorrect resource manager data checksum in record at {}",
                self.lsn(lsn)
            );
            self.problem(Finding::WalRecordChecksumIncorrect, Some(lsn), detail);
            self.skip_segment();
            return false;
        }
        let mut blocks = core::mem::take(&mut self.blocks);
        let main_data_offset =
            match decode_blocks(rec, lsn, version, self.opts.block_size, &mut blocks) {
                Ok(at) => at,
                Err((finding, detail)) => {
                    self.blocks = blocks;
                    self.problem(finding, Some(lsn), detail);
                    self.skip_segment();
                    return false;
                }
            };
        let images = blocks.iter().filter(|b| b.image.is_some()).count() as u64;
        sink(&WalRecord {
            version,
            lsn,
            end_lsn,
            timeline,
            xid,
            rmid,
            info,
            blocks: &blocks,
            main_data_offset,
            bytes: rec,
            pieces: &self.pieces,
        });
        self.blocks = blocks;
        self.summary.records = self.summary.records.saturating_add(1);
        self.summary.images = self.summary.images.saturating_add(images);
        self.summary.end_lsn = Some(end_lsn);
        self.prev_lsn = Some(lsn);
        if rmid == 0 && info & 0xF0 == XLOG_SWITCH {
            self.seg_state = SegState::Skipping;
            return false;
        }
        true
    }
}
