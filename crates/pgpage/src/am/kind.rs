//! Which access method wrote a page: its special-space size and page id (or magic, or flags),
//! and for a file, the kind most of its first pages show (a page that does not show its kind
//! is decoded as its file's).

use crate::am::brin::layout::BRIN_PAGETYPE_META;
use crate::am::gin::layout::GIN_FLAGS_ALL;
use crate::am::gist::layout::GIST_PAGE_ID;
use crate::am::hash::layout::HASHO_PAGE_ID;
use crate::am::seq::layout::SEQ_MAGIC;
use crate::am::spgist::layout::SPGIST_PAGE_ID;
use crate::page::fields::{page_header_data, Field};
use crate::page::geometry::Endian;
use crate::page::kind::{Fork, PageKind};
use crate::page::reader::Reader;

/// The page kind from the special space (size and page ids) and the fork.
pub fn detect_kind(page: &[u8], endian: Endian, fork: Fork) -> PageKind {
    match fork {
        Fork::Fsm => return PageKind::Fsm,
        Fork::Vm => return PageKind::Vm,
        Fork::Main | Fork::Init => {}
    }
    let r = Reader { b: page, e: endian };
    let (Some(upper), Some(special)) = (
        r.field(0, &page_header_data::PD_UPPER).map(|v| v as u16),
        r.field(0, &page_header_data::PD_SPECIAL).map(|v| v as u16),
    ) else {
        return PageKind::Unknown;
    };
    if upper == 0 {
        // A new page: nothing says what it belongs to.
        return PageKind::Unknown;
    }
    let special = usize::from(special);
    let Some(size) = page.len().checked_sub(special) else {
        return PageKind::Unknown;
    };
    let page_id = page.len().checked_sub(2).and_then(|at| r.u16(at));
    match (size, page_id) {
        (0, _) => PageKind::Heap,
        (16, Some(HASHO_PAGE_ID)) => PageKind::Hash,
        (16, Some(GIST_PAGE_ID)) => PageKind::Gist,
        (8, Some(SPGIST_PAGE_ID)) => PageKind::Spgist,
        (8, Some(0xF091..=0xF093)) => PageKind::Brin,
        (8, _) if r.u32(special) == Some(SEQ_MAGIC) => PageKind::Sequence,
        (16, _)
            if r.field(
                special,
                &crate::page::fields::bt_page_opaque_data::BTPO_FLAGS,
            )
            .is_some_and(|f| f < 1 << 9) =>
        {
            PageKind::Btree
        }
        // ginblock.h: GIN's flags (GIN_DATA .. GIN_COMPRESSED) are the low eight bits of
        // the special space's last two bytes; other access methods keep a page id there
        // (contrib/bloom's BLOOM_PAGE_ID 0xFF83, pgvector's 0xFF84 and 0xFF90), never GIN's.
        (8, Some(flags)) if flags <= GIN_FLAGS_ALL => PageKind::Gin,
        _ => PageKind::Unknown,
    }
}

/// Whether `page`, of `kind`, is its access method's metapage (block 0 of an index).
fn is_metapage(page: &[u8], kind: PageKind, endian: Endian) -> bool {
    let r = Reader { b: page, e: endian };
    let special = r.get(0, &page_header_data::PD_SPECIAL) as usize;
    let (field, meta): (&Field, u32) = match kind {
        PageKind::Btree => (
            &crate::page::fields::bt_page_opaque_data::BTPO_FLAGS,
            1 << 3,
        ),
        PageKind::Hash => (
            &crate::page::fields::hash_page_opaque_data::HASHO_FLAG,
            1 << 3,
        ),
        PageKind::Gin => (&crate::page::fields::gin_page_opaque_data::FLAGS, 1 << 3),
        PageKind::Spgist => (&crate::page::fields::spgist_page_opaque_data::FLAGS, 1 << 0),
        PageKind::Brin => {
            let t = &crate::page::fields::brin_special_space::TYPE;
            return r.field(special, t) == Some(u32::from(BRIN_PAGETYPE_META));
        }
        _ => return false,
    };
    r.field(special, field).is_some_and(|v| v & meta != 0)
}

/// The kind of a relation file's pages, as a PostgreSQL expert tells it: the fork suffix
/// for FSM and VM; otherwise an index's metapage, else the kind most of the readable pages
/// show on their own. A damaged page then decodes as its file's kind
/// ([`crate::am::decoded::DecodeOptions::file_kind`]) instead of `unknown`.
pub fn file_kind<'a>(
    fork: Fork,
    pages: impl IntoIterator<Item = &'a [u8]>,
    endian: Endian,
) -> PageKind {
    match fork {
        Fork::Fsm => return PageKind::Fsm,
        Fork::Vm => return PageKind::Vm,
        Fork::Main | Fork::Init => {}
    }
    let mut votes = [0u32; PageKind::ALL.len()];
    for page in pages {
        let kind = detect_kind(page, endian, fork);
        if is_metapage(page, kind, endian) {
            return kind;
        }
        if let Some(v) = votes.get_mut(kind as usize) {
            *v = v.saturating_add(1);
        }
    }
    // The first kind with the most votes; `unknown` never wins over a kind seen.
    let mut best = PageKind::Unknown;
    let mut most = 0;
    for (k, &v) in PageKind::ALL.iter().zip(&votes) {
        if *k != PageKind::Unknown && v > most {
            (best, most) = (*k, v);
        }
    }
    best
}
