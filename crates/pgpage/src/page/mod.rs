//! One page as bufpage.h lays it out, for any access method: its geometry and byte order,
//! the table of every on-disk structure, the header, line pointers, free and special space,
//! index tuples, the page's kind and fork, its checksum and the server's verdict on it.

pub mod bufpage;
pub mod checksum;
pub mod fields;
pub mod geometry;
pub mod header_field;
pub mod itup;
pub mod kind;
pub mod lsn;
pub mod reader;
pub mod spans;
pub mod verify;
pub mod write;
