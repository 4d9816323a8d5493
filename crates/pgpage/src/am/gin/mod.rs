//! GIN indexes (access/gin/, ginblock.h): the page layout and posting lists, verify_gin's
//! checks of one page, the decoder and gin_index_check's walk across the file.

pub mod check;
pub mod decode;
pub mod layout;
pub mod walk;
