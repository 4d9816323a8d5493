//! pgpage core: PostgreSQL page checksums, page status as the server decides it, and page
//! decoding. Pure functions over byte slices: no I/O, no printing, no panics on any input.
#![cfg_attr(not(test), no_std)]
// Tests compute offsets and sizes freely; clippy.toml opens the other panicking lints to them.
#![cfg_attr(test, allow(clippy::arithmetic_side_effects))]

extern crate alloc;
// Only for runtime CPU feature detection (is_x86_feature_detected!); the core stays no_std.
#[cfg(all(feature = "std", not(test)))]
extern crate std;

pub mod page;

pub use page::geometry::{BlockSize, Endian};
pub use page::verify::{PageStatus, PageVerdict};
pub mod am;
pub mod bitflip;
pub mod cluster;
pub mod compress;
pub mod datadir;
pub mod diff;
pub mod file;
pub mod filedump;
pub mod findings;
pub mod flips;
pub mod messages;
pub mod redact;
pub mod repair;
pub mod report;
pub mod scan;
pub mod story;
pub mod tuple;
pub mod wal;
pub mod words;
