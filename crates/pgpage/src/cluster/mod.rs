//! A data directory read offline: pg_control, the system catalogs and the relation list, the
//! hints the access methods' checks take (built here from them, and only here), the rows of
//! a table, and what the structural checks know of each relation.

pub mod catalog;
pub mod control;
pub mod hints;
pub mod rows;
pub mod structures;
