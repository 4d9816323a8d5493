//! B-tree indexes (access/nbtree/, nbtree.h): the page layout, verify_nbtree's checks of one
//! page, the decoder (bt_page_items), redo of its WAL records, and the walk across the levels
//! of a file.

pub mod check;
pub mod decode;
pub mod layout;
pub mod redo;
pub mod walk;
