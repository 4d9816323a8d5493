//! The free space map and the visibility map forks (storage/freespace/, access/heap/
//! visibilitymap.c): their pages, and both held against the heap as its pages stream by.

pub mod decode;
pub mod layout;
pub mod redo;
pub mod walk;
