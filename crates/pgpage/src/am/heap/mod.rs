//! The heap access method (access/heap/): heap_page_items' rows, verify_heapam's checks of
//! one page, and the page decoder.

pub mod check;
pub mod decode;
pub mod layout;
pub mod redo;
