//! Timeline history files (`%08X.history`, access/transam/timeline.c) and the reading order
//! they give segments of several timelines: recovery follows the newest timeline's history,
//! so a segment of an older timeline past the point where the history left it is the
//! abandoned branch (the old primary went on writing after the promote), not the WAL.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{lsn_text, parse_wal_file_name, segment_plan};
use crate::findings::Finding;

/// One line of a history file: `parent` ended at `switch_lsn`, where its child began.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimelineSwitch {
    pub parent: u32,
    pub switch_lsn: u64,
    /// The rest of the line: why the timeline was left ("no recovery target specified",
    /// "at restore point ...").
    pub reason: String,
}

/// The history of `timeline`: its ancestors in order, each with where it was left.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimelineHistory {
    pub timeline: u32,
    pub switches: Vec<TimelineSwitch>,
}

/// The timeline a history file's name (`%08X.history`, TLHistoryFileName) is of.
pub fn parse_history_name(name: &str) -> Option<u32> {
    let hex = name.strip_suffix(".history")?;
    if hex.len() != 8 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(hex, 16).ok()
}

/// readTimeLineHistory: blank and `#` lines skipped, then `tli<TAB>X/X[<TAB>reason]` per
/// line, timelines increasing and below the file's own. The error is the server's FATAL
/// message and hint.
pub fn parse_history(timeline: u32, text: &str) -> Result<TimelineHistory, String> {
    let mut switches: Vec<TimelineSwitch> = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let syntax = |hint: &str| format!("syntax error in history file: {line} ({hint})");
        let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
        let tli = trimmed
            .get(..digits)
            .and_then(|d| d.parse::<u32>().ok())
            .ok_or_else(|| syntax("Expected a numeric timeline ID."))?;
        let rest = trimmed.get(digits..).unwrap_or("");
        let lsn_hint = "Expected a write-ahead log switchpoint location.";
        let rest = rest
            .strip_prefix('\t')
            .map(str::trim_start)
            .ok_or_else(|| syntax(lsn_hint))?;
        let lsn_end = rest
            .find(|c: char| !(c.is_ascii_hexdigit() || c == '/'))
            .unwrap_or(rest.len());
        let (lsn_text_part, reason) = rest.split_at(lsn_end);
        let (hi, lo) = lsn_text_part
            .split_once('/')
            .ok_or_else(|| syntax(lsn_hint))?;
        let (Ok(hi), Ok(lo)) = (u32::from_str_radix(hi, 16), u32::from_str_radix(lo, 16)) else {
            return Err(syntax(lsn_hint));
        };
        if switches.last().is_some_and(|s| tli <= s.parent) {
            return Err(format!(
                "invalid data in history file: {line} (Timeline IDs must be in increasing sequence.)"
            ));
        }
        switches.push(TimelineSwitch {
            parent: tli,
            switch_lsn: (u64::from(hi) << 32) | u64::from(lo),
            reason: String::from(reason.trim()),
        });
    }
    if switches.last().is_some_and(|s| timeline <= s.parent) {
        return Err(format!(
            "invalid data in history file {timeline:08X}.history (Timeline IDs must be less than child timeline's ID.)"
        ));
    }
    Ok(TimelineHistory { timeline, switches })
}

impl TimelineHistory {
    /// Whether `tli` is this timeline or one of its ancestors.
    pub fn contains(&self, tli: u32) -> bool {
        tli == self.timeline || self.switches.iter().any(|s| s.parent == tli)
    }

    /// Where the history left `tli` (None for the timeline itself and for strangers).
    pub fn end_of(&self, tli: u32) -> Option<u64> {
        self.switches
            .iter()
            .find(|s| s.parent == tli)
            .map(|s| s.switch_lsn)
    }

    /// Where `tli` began: the switch point of the timeline before it (0 for the first).
    pub fn begin_of(&self, tli: u32) -> u64 {
        let at = self.switches.iter().position(|s| s.parent == tli);
        let before = match at {
            Some(i) => i.checked_sub(1).and_then(|p| self.switches.get(p)),
            None => self.switches.last(),
        };
        before.map_or(0, |s| s.switch_lsn)
    }
}

/// A segment file left out of the reading order, and why (its index into the names).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SegmentLeftOut {
    pub index: usize,
    pub detail: String,
}

/// Something planning found: a history file missing or refused, a segment left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanProblem {
    pub finding: Finding,
    /// The file it is about: a history file's or a segment's name.
    pub file: String,
    pub detail: String,
}

/// The reading order of the segments given, and the timeline it follows.
#[derive(Clone, Debug, Default)]
pub struct TimelinePlan {
    /// Indexes into the segment names, in reading order.
    pub order: Vec<usize>,
    /// The newest timeline of the segments and history files (recovery_target_timeline =
    /// 'latest'): the one the WAL is read towards.
    pub newest: Option<u32>,
    /// Its history, when it has one and its file was given and read: for
    /// `WalReader::set_history`.
    pub history: Option<TimelineHistory>,
    pub problems: Vec<PlanProblem>,
}

/// Plans the reading of segment files `names` with the history files given (name, text; None
/// for one that could not be read): along the newest timeline's history when it is there
/// (`segment_plan_on`), else the highest timeline of each segment (`segment_plan`), with the
/// missing or bad history file named. `version`: the cluster's release where known before
/// any segment is read (its pg_control), which decides how the LSNs named print.
pub fn plan_segments(
    names: &[&str],
    histories: &[(&str, Option<&str>)],
    seg_size: u32,
    version: Option<u32>,
) -> TimelinePlan {
    let newest = names
        .iter()
        .filter_map(|n| parse_wal_file_name(n))
        .map(|(s, _)| s.timeline)
        .chain(histories.iter().filter_map(|(n, _)| parse_history_name(n)))
        .max();
    let mut plan = TimelinePlan {
        newest,
        ..TimelinePlan::default()
    };
    let history = match newest.filter(|&t| t > 1) {
        None => None,
        Some(t) => {
            let file = format!("{t:08X}.history");
            let found = histories
                .iter()
                .find(|(n, _)| parse_history_name(n) == Some(t));
            match found {
                None => {
                    plan.problems.push(PlanProblem {
                        finding: Finding::WalTimelineHistoryMissing,
                        detail: format!(
                            "the history file of timeline {t} ({file}) is missing: where the older timelines were left is not known, so each segment is read on its highest timeline, and an image of an older timeline past its switch point may be on a branch recovery abandoned"
                        ),
                        file,
                    });
                    None
                }
                Some((_, None)) => {
                    plan.problems.push(PlanProblem {
                        finding: Finding::WalTimelineHistoryMissing,
                        detail: format!("could not read history file \"{file}\": the timeline switch is not followed"),
                        file,
                    });
                    None
                }
                Some((_, Some(text))) => match parse_history(t, text) {
                    Ok(h) => Some(h),
                    Err(message) => {
                        plan.problems.push(PlanProblem {
                            finding: Finding::WalTimelineHistoryInvalid,
                            detail: format!("{message}: the timeline switch is not followed"),
                            file,
                        });
                        None
                    }
                },
            }
        }
    };
    match &history {
        Some(h) => {
            let (order, left_out) = segment_plan_on(names, seg_size, h, version);
            plan.order = order;
            plan.problems.extend(left_out.into_iter().map(|l| {
                PlanProblem {
                    finding: Finding::WalTimelineAbandoned,
                    file: names
                        .get(l.index)
                        .map_or_else(String::new, |n| String::from(*n)),
                    detail: l.detail,
                }
            }));
        }
        None => plan.order = segment_plan(names),
    }
    plan.history = history;
    plan
}

/// The reading order (indexes into `names`) that recovery towards `history`'s timeline
/// takes (xlogrecovery.c XLogFileReadAnyTLI): per segment, the newest timeline of the history
/// that had begun by then; segments of a timeline wholly past where the history left it, or
/// of a timeline not in the history, are left out and named. Names that are not segment
/// names come last, in the order given.
pub fn segment_plan_on(
    names: &[&str],
    seg_size: u32,
    history: &TimelineHistory,
    version: Option<u32>,
) -> (Vec<usize>, Vec<SegmentLeftOut>) {
    let seg_size = u64::from(seg_size);
    let mut named: Vec<(u64, u32, bool, usize)> = Vec::new();
    let mut other = Vec::new();
    let mut left_out = Vec::new();
    let file = format!("{:08X}.history", history.timeline);
    for (i, name) in names.iter().enumerate() {
        let Some((s, partial)) = parse_wal_file_name(name) else {
            other.push(i);
            continue;
        };
        let Some(segno) = s.segno(u32::try_from(seg_size).unwrap_or(u32::MAX)) else {
            other.push(i);
            continue;
        };
        let start = segno.saturating_mul(seg_size);
        if !history.contains(s.timeline) {
            left_out.push(SegmentLeftOut {
                index: i,
                detail: format!(
                    "WAL segment {name} is of timeline {}, which is not in the history of timeline {} ({file}): another branch, not read",
                    s.timeline, history.timeline
                ),
            });
            continue;
        }
        if let Some(end) = history.end_of(s.timeline).filter(|&e| start >= e) {
            left_out.push(SegmentLeftOut {
                index: i,
                detail: format!(
                    "WAL segment {name} is past the point {} where timeline {} was left ({file}): its abandoned branch, not read, and no image in it is a good copy",
                    lsn_text(version, end),
                    s.timeline
                ),
            });
            continue;
        }
        let begin_seg = history
            .begin_of(s.timeline)
            .checked_div(seg_size)
            .unwrap_or(0);
        if segno < begin_seg {
            left_out.push(SegmentLeftOut {
                index: i,
                detail: format!(
                    "WAL segment {name} is before timeline {} began at {} ({file}): not read",
                    s.timeline,
                    lsn_text(version, history.begin_of(s.timeline))
                ),
            });
            continue;
        }
        named.push((segno, s.timeline, partial, i));
    }
    // Newest timeline first within a segment, so that dedup keeps it: its copy holds the
    // older timeline's records up to the switch and its own after. Of one timeline's
    // complete and `.partial` copies, the complete one.
    named.sort_by(|a, b| (a.0, b.1, a.2).cmp(&(b.0, a.1, b.2)));
    named.dedup_by(|later, kept| later.0 == kept.0);
    let order = named.into_iter().map(|n| n.3).chain(other).collect();
    (order, left_out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A history file as the server writes one (writeTimeLineHistory) after two promotes.
    const TWO: &str =
        "1\t0/3000060\tno recovery target specified\n\n2\t0/50000A0\tat restore point \"fork\"\n";

    #[test]
    fn history_as_the_server_reads_it() {
        let h = parse_history(3, TWO).unwrap();
        assert_eq!(h.switches.len(), 2);
        assert_eq!(h.end_of(1), Some(0x0300_0060));
        assert_eq!(h.begin_of(2), 0x0300_0060);
        assert_eq!(h.begin_of(3), 0x0500_00A0);
        assert_eq!(h.begin_of(1), 0);
        assert_eq!(h.switches[1].reason, "at restore point \"fork\"");
        assert!(h.contains(3) && !h.contains(4));
        assert_eq!(parse_history_name("00000003.history"), Some(3));
        assert!(parse_history_name("3.history").is_none());
        assert!(parse_history(2, "x\t0/1")
            .unwrap_err()
            .contains("numeric timeline ID"));
        assert!(parse_history(2, "1 0/1")
            .unwrap_err()
            .contains("switchpoint"));
        assert!(parse_history(3, "2\t0/1\n1\t0/2")
            .unwrap_err()
            .contains("increasing"));
        assert!(parse_history(2, "2\t0/1").unwrap_err().contains("child"));
    }

    #[test]
    fn missing_and_bad_history_files_are_named() {
        let names = ["000000010000000000000003", "000000020000000000000003"];
        let plan = plan_segments(&names, &[], 16 << 20, None);
        assert_eq!(plan.order, [1]);
        assert_eq!(plan.newest, Some(2));
        assert_eq!(plan.problems[0].finding, Finding::WalTimelineHistoryMissing);
        let bad = plan_segments(
            &names,
            &[("00000002.history", Some("1\tnope"))],
            16 << 20,
            None,
        );
        assert_eq!(bad.problems[0].finding, Finding::WalTimelineHistoryInvalid);
        assert!(bad.history.is_none());
        let good = plan_segments(
            &names,
            &[("00000002.history", Some("1\t0/3000060\tx"))],
            16 << 20,
            None,
        );
        assert!(good.problems.is_empty() && good.history.is_some());
        assert!(plan_segments(&names[..1], &[], 16 << 20, None)
            .problems
            .is_empty());
    }

    #[test]
    fn plan_follows_the_history_and_names_the_branch_left() {
        let h = parse_history(2, "1\t0/3000060\tno recovery target specified\n").unwrap();
        let names = [
            "000000010000000000000002",
            "000000010000000000000003",
            "000000010000000000000004",
            "000000020000000000000003",
            "000000020000000000000004",
            "000000030000000000000004",
            "000000010000000000000005",
        ];
        let (order, out) = segment_plan_on(&names, 16 << 20, &h, None);
        assert_eq!(order, [0, 3, 4]);
        let left: Vec<usize> = out.iter().map(|l| l.index).collect();
        assert_eq!(left, [2, 5, 6]);
        assert!(out[0].detail.contains("abandoned branch"));
        assert!(out[1].detail.contains("not in the history"));
        // The switch point as the cluster's release prints it: 19 pads, 13 to 18 and an
        // unknown release do not.
        assert!(out[0].detail.contains(" 0/3000060 "), "{}", out[0].detail);
        let (_, out19) = segment_plan_on(&names, 16 << 20, &h, Some(19));
        assert!(
            out19[0].detail.contains(" 0/03000060 "),
            "{}",
            out19[0].detail
        );
    }
}
