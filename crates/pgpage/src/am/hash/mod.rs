//! Hash indexes (access/hash/, hash.h): the special space, the metapage and the decoder.

pub mod decode;
pub mod layout;
