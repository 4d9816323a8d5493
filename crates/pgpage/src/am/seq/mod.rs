//! Sequences (commands/sequence.c): one heap tuple of FormData_pg_sequence_data and
//! sequence_magic in the special space.

pub mod decode;
pub mod layout;
