//! Names from the files: the system catalogs of a data directory read without a server
//! (pg_filenode.map, pg_database, pg_class, ...), each catalog's row shape per PostgreSQL
//! version, and the relation list `pgpage ls` and the browser show.

pub mod columns;
pub mod layout;
pub mod names;
pub mod read;
pub mod reader;
pub mod relmap;
pub mod table;
