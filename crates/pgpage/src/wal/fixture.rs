//! Records and block references built by hand, for the tests of what reads them.

use super::{BlockImage, BlockRef, ImageCompression, RelFileLocator, WalRecord};

/// A reference to block `block` of fork `fork` of relation `rel` in database `db`
/// (tablespace pg_default), with an empty full-page image when `image`.
pub(crate) fn block(db: u32, rel: u32, fork: u8, block: u32, image: bool) -> BlockRef {
    BlockRef {
        id: 0,
        locator: RelFileLocator {
            spc_oid: 1663,
            db_oid: db,
            rel_number: rel,
        },
        fork,
        block,
        will_init: false,
        data_offset: 0,
        data_length: 0,
        image: image.then_some(BlockImage {
            offset: 0,
            length: 0,
            hole_offset: 0,
            hole_length: 0,
            compression: ImageCompression::None,
            apply: true,
            bimg_info: 0,
        }),
    }
}

/// A PostgreSQL 18 record at `lsn`, 8 bytes long, with `main` as its main data.
pub(crate) fn record<'a>(
    lsn: u64,
    rmid: u8,
    info: u8,
    blocks: &'a [BlockRef],
    main: &'a [u8],
) -> WalRecord<'a> {
    WalRecord {
        version: 18,
        lsn,
        end_lsn: lsn + 8,
        timeline: 1,
        xid: 0,
        rmid,
        info,
        blocks,
        main_data_offset: 0,
        bytes: main,
        pieces: &[],
    }
}
