//! pgpage core: PostgreSQL page checksums, page status as the server decides it, and page
//! decoding. Pure functions over byte slices: no I/O, no printing, no panics on any input.
// ts-rs's derive (feature `ts`, declarations for the web app) writes code for std's prelude.
#![cfg_attr(not(any(test, feature = "ts")), no_std)]
// Tests compute offsets and sizes freely; clippy.toml opens the other panicking lints to them.
#![cfg_attr(test, allow(clippy::arithmetic_side_effects))]

extern crate alloc;
// Only for runtime CPU feature detection (is_x86_feature_detected!); the core stays no_std.
#[cfg(all(feature = "std", not(any(test, feature = "ts"))))]
extern crate std;

// The layers, top down: text, damage, cluster, file, am, tuple, page. A module imports only
// from layers below its own (docs/architecture.md; tests/layers.rs holds it).
pub mod am;
pub mod cluster;
pub mod damage;
pub mod file;
pub mod page;
pub mod text;
pub mod tuple;
// WAL reading, beside the layers: it imports only page/ and the leaves.
pub mod wal;
// Leaves, imported from anywhere.
pub mod compress;
pub mod findings;
pub mod words;

pub use page::geometry::{BlockSize, Endian};
pub use page::verify::{PageStatus, PageVerdict};
