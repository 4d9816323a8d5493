//! pgpage core: PostgreSQL page checksums, page status as the server decides it, and page
//! decoding. Pure functions over byte slices: no I/O, no printing, no panics on any input.
// ts-rs's derive (feature `ts`, declarations for the web app) writes code for std's prelude.
#![cfg_attr(not(any(test, feature = "ts")), no_std)]

extern crate alloc;
// Only for runtime CPU feature detection (is_x86_feature_detected!); the core stays no_std.
#[cfg(all(feature = "std", not(any(test, feature = "ts"))))]
extern crate std;

pub mod checksum;
pub mod control;
pub mod layout;
pub mod verify;

pub use layout::{BlockSize, Endian};
pub use verify::{PageStatus, PageVerdict};
pub mod bitflip;
mod btwalk;
pub mod catalog;
pub mod compress;
pub mod copy;
pub mod datadir;
pub mod decode;
pub mod diff;
pub mod fields;
pub mod file;
pub mod filedump;
pub mod findings;
pub mod flips;
pub mod forks;
mod ginwalk;
pub mod messages;
pub mod redact;
pub mod repair;
pub mod report;
pub mod rows;
pub mod scan;
pub mod story;
pub mod structures;
pub mod toast;
pub mod tuple;
pub mod value;
pub mod visibility;
pub mod wal;
pub mod words;
