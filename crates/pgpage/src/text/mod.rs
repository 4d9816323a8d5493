//! What PostgreSQL's own tools print about a page, written from pgpage's decoding so it can
//! be pasted where theirs would be: pg_filedump's block dump.

pub mod filedump;
