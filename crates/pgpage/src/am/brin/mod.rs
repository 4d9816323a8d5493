//! BRIN indexes (access/brin/, brin_page.h, brin_tuple.h): the page types, the metapage,
//! the revmap and the summaries.

pub mod decode;
pub mod layout;
