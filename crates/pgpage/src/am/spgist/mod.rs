//! SP-GiST indexes (access/spgist/, spgist_private.h): the special space, the metapage and
//! the decoder.

pub mod decode;
pub mod layout;
