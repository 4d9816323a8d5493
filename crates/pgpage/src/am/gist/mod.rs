//! GiST indexes (access/gist/, gist.h): the special space and the decoder.

pub mod decode;
pub mod layout;
