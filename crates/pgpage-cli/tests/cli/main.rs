//! The CLI's integration tests as one crate (one binary to build and link): each module holds
//! pgpage against throwaway PostgreSQL clusters of every version.
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

#[macro_use]
mod common;

mod amcheck;
mod amcheck_gin;
mod amcheck_xid;
mod bad_input;
mod big_endian;
mod bitflips;
mod btparent;
mod checksum_change;
mod diff;
mod fpi;
mod generate;
mod gin_opclass_keys;
mod header_field;
mod index_reads;
mod lost_write;
mod ls;
mod lsn_forms;
mod multixact;
mod postgres;
mod receivewal;
mod recover;
mod redact;
mod repair;
mod repair_flips;
mod report;
mod report_allindexed;
mod report_catalog;
mod report_flip_rows;
mod report_from;
mod report_keys;
mod report_maps;
mod report_noise;
mod report_samples;
mod report_steps;
mod report_storage;
mod rows;
mod serve;
mod stale;
mod tablespace_files;
mod timeline;
mod torn_reused;
mod torn_values;
mod verify;
mod verify_amcheck;
mod verify_contrib_am;
mod verify_standby;
mod versions;
mod vmfsm;
mod wal_history;
mod walcmd;
mod walnames;
mod zero_index_page;
