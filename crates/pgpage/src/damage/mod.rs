//! The forensic tools over damaged pages: single-bit flips and their odds, one header field
//! set wrong and the value its checksum confirms, two copies
//! compared, the repair kit, redaction for sharing, what happened to a page between copies,
//! the lines PostgreSQL's tools print about a page they refuse, and the incident report.

pub mod bitflip;
pub mod diff;
pub mod flips;
pub mod messages;
pub mod noise;
pub mod recover;
pub mod redact;
pub mod repair;
pub mod report;
pub mod story;
