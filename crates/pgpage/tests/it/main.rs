//! The core's integration tests as one crate (one binary to build and link): pages and files
//! held against PostgreSQL's own output, the layers of the source, the wasm bodies.
// A test's panic is how it fails. The workspace denies unwrap, expect, indexing, arithmetic
// overflow and panic to the product; clippy.toml lifts them inside #[test] functions, and this
// lifts them for the tests' helpers too, once for every module here.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

mod file_kind;
mod file_verdicts;
mod filedump;
mod fixtures;
mod fuzz_regressions;
mod layers;
mod pg_oracle;
mod span_docs;
mod structure;
mod structure_scan;
mod wasm_simd128;
