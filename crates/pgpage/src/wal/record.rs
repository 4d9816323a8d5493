//! One WAL record as xlogreader.c DecodeXLogRecord reads it: the block reference headers, the
//! image headers (whose flags changed in 15), and RestoreBlockImage's page out of an image.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::RelFileLocator;
use crate::findings::Finding;

/// xlogrecord.h SizeOfXLogRecord.
pub const SIZE_OF_XLOG_RECORD: usize = 24;
const XLR_MAX_BLOCK_ID: u8 = 32;
const XLR_BLOCK_ID_DATA_SHORT: u8 = 255;
const XLR_BLOCK_ID_DATA_LONG: u8 = 254;
const XLR_BLOCK_ID_ORIGIN: u8 = 253;
const XLR_BLOCK_ID_TOPLEVEL_XID: u8 = 252;

const BKPBLOCK_FORK_MASK: u8 = 0x0F;
const BKPBLOCK_HAS_IMAGE: u8 = 0x10;
const BKPBLOCK_HAS_DATA: u8 = 0x20;
const BKPBLOCK_WILL_INIT: u8 = 0x40;
const BKPBLOCK_SAME_REL: u8 = 0x80;

const BKPIMAGE_HAS_HOLE: u8 = 0x01;
/// 13 and 14: 0x02 is BKPIMAGE_IS_COMPRESSED (always pglz), 0x04 BKPIMAGE_APPLY.
const BKPIMAGE_IS_COMPRESSED_14: u8 = 0x02;
const BKPIMAGE_APPLY_14: u8 = 0x04;
/// 15 and later: BKPIMAGE_APPLY moved to 0x02 and each compression method has its bit.
const BKPIMAGE_APPLY: u8 = 0x02;
const BKPIMAGE_COMPRESS_PGLZ: u8 = 0x04;
const BKPIMAGE_COMPRESS_LZ4: u8 = 0x08;
const BKPIMAGE_COMPRESS_ZSTD: u8 = 0x10;

/// How an image's bytes were compressed (wal_compression).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageCompression {
    None,
    Pglz,
    Lz4,
    Zstd,
}

impl ImageCompression {
    pub fn as_str(self) -> &'static str {
        match self {
            ImageCompression::None => "none",
            ImageCompression::Pglz => "pglz",
            ImageCompression::Lz4 => "lz4",
            ImageCompression::Zstd => "zstd",
        }
    }
}

/// XLogRecordBlockImageHeader (+ XLogRecordBlockCompressHeader), decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockImage {
    /// Where the image's bytes start within the record.
    pub offset: u32,
    /// bimg_len: the bytes stored (compressed, or the page less its hole).
    pub length: u16,
    pub hole_offset: u16,
    pub hole_length: u16,
    pub compression: ImageCompression,
    /// BKPIMAGE_APPLY: replay restores it (an image only for wal_consistency_checking has it
    /// clear, and is a true copy of the page all the same).
    pub apply: bool,
    pub bimg_info: u8,
}

/// XLogRecordBlockHeader and what follows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockRef {
    pub id: u8,
    pub locator: RelFileLocator,
    pub fork: u8,
    pub block: u32,
    pub will_init: bool,
    /// Where the block's data (what its redo routine reads with XLogRecGetBlockData) starts
    /// within the record.
    pub data_offset: u32,
    pub data_length: u16,
    pub image: Option<BlockImage>,
}

/// Where a stretch of a record's bytes lies in the segments fed to the reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// The segment's index in feeding order.
    pub segment: u32,
    /// Byte offset within that segment.
    pub offset: u32,
    /// Byte offset within the record.
    pub record_offset: u32,
    pub len: u32,
}

/// One decoded record, handed to the reader's sink.
#[derive(Debug)]
pub struct WalRecord<'a> {
    /// The release whose WAL this is (its page magic): how its LSNs print and its records
    /// are named.
    pub version: u32,
    /// The record's start LSN (ReadRecPtr), as pg_waldump names images.
    pub lsn: u64,
    /// Where the record ends (EndRecPtr): replay sets an applied image's pd_lsn to it.
    pub end_lsn: u64,
    /// The timeline of the segment the record starts in (its name's, else its page's).
    pub timeline: u32,
    pub xid: u32,
    pub rmid: u8,
    pub info: u8,
    pub blocks: &'a [BlockRef],
    /// Where the main data (XLogRecGetData) starts within the record; it runs to the end.
    pub main_data_offset: u32,
    /// The whole record, header included.
    pub bytes: &'a [u8],
    pub pieces: &'a [Piece],
}

impl WalRecord<'_> {
    /// xl_prev: where the record before it starts (0 for the first record ever, and for a
    /// record too short to say).
    pub fn prev(&self) -> u64 {
        self.bytes
            .get(8..16)
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .map_or(0, u64::from_le_bytes)
    }

    /// The record's main data: its rmgr's struct (xl_heap_insert, ...) and what follows it.
    pub fn main_data(&self) -> &[u8] {
        usize::try_from(self.main_data_offset)
            .ok()
            .and_then(|at| self.bytes.get(at..))
            .unwrap_or(&[])
    }

    /// The data registered with a block reference (XLogRecGetBlockData): empty when it has
    /// none, or when the image alone is replayed.
    pub fn block_data(&self, block: &BlockRef) -> &[u8] {
        let Ok(start) = usize::try_from(block.data_offset) else {
            return &[];
        };
        start
            .checked_add(usize::from(block.data_length))
            .and_then(|end| self.bytes.get(start..end))
            .unwrap_or(&[])
    }

    /// The block reference with this block_id (XLogRecGetBlockTag's `block_id`).
    pub fn block_ref(&self, id: u8) -> Option<&BlockRef> {
        self.blocks.iter().find(|b| b.id == id)
    }

    /// The replication origin the record was written for (XLogRecGetOrigin), when its
    /// headers carry one: after the block headers, before the top-level xid and the main
    /// data's length.
    pub fn origin(&self) -> Option<u16> {
        let b = self.bytes;
        let mut at = SIZE_OF_XLOG_RECORD;
        loop {
            let id = *b.get(at)?;
            match id {
                XLR_BLOCK_ID_ORIGIN => {
                    let end = at.checked_add(3)?;
                    return b
                        .get(at.checked_add(1)?..end)?
                        .try_into()
                        .ok()
                        .map(u16::from_le_bytes);
                }
                XLR_BLOCK_ID_TOPLEVEL_XID => at = at.checked_add(5)?,
                id if id <= XLR_MAX_BLOCK_ID => {
                    let fork_flags = *b.get(at.checked_add(1)?)?;
                    // block_id, fork_flags, data_length; then the image header, the
                    // relation unless it is the previous one's, the block number.
                    let mut len: usize = 4;
                    if fork_flags & BKPBLOCK_HAS_IMAGE != 0 {
                        let bimg_info = *b.get(at.checked_add(8)?)?;
                        let (compression, _) = image_flags(self.version, bimg_info);
                        len = len.checked_add(5)?;
                        if compression != ImageCompression::None
                            && bimg_info & BKPIMAGE_HAS_HOLE != 0
                        {
                            len = len.checked_add(2)?;
                        }
                    }
                    if fork_flags & BKPBLOCK_SAME_REL == 0 {
                        len = len.checked_add(12)?;
                    }
                    at = at.checked_add(len)?.checked_add(4)?;
                }
                _ => return None,
            }
        }
    }

    /// The stored bytes of a block's image, as they are in the record.
    pub fn image_bytes(&self, image: &BlockImage) -> Option<&[u8]> {
        let start = usize::try_from(image.offset).ok()?;
        self.bytes
            .get(start..start.checked_add(usize::from(image.length))?)
    }

    /// The page an image holds, as RestoreBlockImage makes it.
    pub fn restore(&self, image: &BlockImage, block_size: u32) -> Result<Vec<u8>, Finding> {
        let raw = self
            .image_bytes(image)
            .ok_or(Finding::WalImageDecompressFailed)?;
        restore_image(image, raw, block_size)
    }
}

/// Which stretches of the segments hold `len` bytes at `record_offset` of a record: the
/// browser reads just those again when a page is asked for, instead of keeping every image.
pub fn image_pieces(pieces: &[Piece], record_offset: u32, len: u32) -> Vec<Piece> {
    let end = record_offset.saturating_add(len);
    let mut out = Vec::new();
    for p in pieces {
        let p_end = p.record_offset.saturating_add(p.len);
        let from = p.record_offset.max(record_offset);
        let to = p_end.min(end);
        if from < to {
            out.push(Piece {
                segment: p.segment,
                offset: p
                    .offset
                    .saturating_add(from.saturating_sub(p.record_offset)),
                record_offset: from.saturating_sub(record_offset),
                len: to.saturating_sub(from),
            });
        }
    }
    out
}

/// xlogreader.c RestoreBlockImage: decompress (to the page less its hole), then put the hole
/// back as zeros.
pub fn restore_image(image: &BlockImage, raw: &[u8], block_size: u32) -> Result<Vec<u8>, Finding> {
    let blcksz = usize::try_from(block_size).map_err(|_| Finding::WalImageDecompressFailed)?;
    let hole_offset = usize::from(image.hole_offset);
    let hole_length = usize::from(image.hole_length);
    let stored = blcksz
        .checked_sub(hole_length)
        .ok_or(Finding::WalImageDecompressFailed)?;
    let stored_u32 = u32::try_from(stored).map_err(|_| Finding::WalImageDecompressFailed)?;
    let decompressed;
    let body: &[u8] = match image.compression {
        ImageCompression::None => raw,
        ImageCompression::Pglz => {
            decompressed = crate::compress::pglz(raw, stored_u32)
                .map_err(|_| Finding::WalImageDecompressFailed)?;
            &decompressed
        }
        ImageCompression::Lz4 => {
            decompressed = crate::compress::lz4(raw, stored_u32)
                .map_err(|_| Finding::WalImageDecompressFailed)?;
            &decompressed
        }
        ImageCompression::Zstd => {
            decompressed = zstd(raw, stored)?;
            &decompressed
        }
    };
    if body.len() != stored {
        return Err(Finding::WalImageDecompressFailed);
    }
    let mut page = vec![0u8; blcksz];
    let (before, after) = body
        .split_at_checked(hole_offset)
        .ok_or(Finding::WalImageDecompressFailed)?;
    let after_start = hole_offset
        .checked_add(hole_length)
        .ok_or(Finding::WalImageDecompressFailed)?;
    page.get_mut(..hole_offset)
        .ok_or(Finding::WalImageDecompressFailed)?
        .copy_from_slice(before);
    page.get_mut(after_start..)
        .filter(|dst| dst.len() == after.len())
        .ok_or(Finding::WalImageDecompressFailed)?
        .copy_from_slice(after);
    Ok(page)
}

/// ZSTD_decompress into exactly `size` bytes. A page's frame never needs a large window; the
/// cap keeps a damaged frame header from asking for one.
fn zstd(raw: &[u8], size: usize) -> Result<Vec<u8>, Finding> {
    let mut decoder = ruzstd::decoding::FrameDecoder::new();
    decoder.set_max_window_size(1 << 20);
    let mut out = vec![0u8; size];
    match decoder.decode_all(raw, &mut out) {
        Ok(n) if n == size => Ok(out),
        _ => Err(Finding::WalImageDecompressFailed),
    }
}

/// A record DecodeXLogRecord refuses: which finding, and PostgreSQL's message filled in.
pub(super) type DecodeError = (Finding, String);

/// Reads the block references of `rec` (a whole record whose CRC held) into `blocks`, as
/// DecodeXLogRecord does, with the image flags of `version`. Returns where the main data
/// starts.
pub(super) fn decode_blocks(
    rec: &[u8],
    lsn: u64,
    version: u32,
    block_size: u32,
    blocks: &mut Vec<BlockRef>,
) -> Result<u32, DecodeError> {
    blocks.clear();
    // Formatted only for a message: most records never need it.
    let lsn_text = || super::lsn_text_for(version, lsn);
    let short = || {
        (
            Finding::WalRecordLayoutInvalid,
            format!("record with invalid length at {}", lsn_text()),
        )
    };
    let invalid_ref = |msg: String| (Finding::WalBlockReferenceInvalid, msg);
    let mut cursor = Cursor {
        bytes: rec,
        pos: SIZE_OF_XLOG_RECORD,
    };
    let mut remaining = rec.len().saturating_sub(SIZE_OF_XLOG_RECORD);
    let mut datatotal: usize = 0;
    let mut max_block_id: Option<u8> = None;
    let mut last_locator: Option<RelFileLocator> = None;
    // Image offsets are filled in once the headers' end (where data starts) is known.
    let mut image_order: Vec<usize> = Vec::new();
    while remaining > datatotal {
        let block_id = cursor.u8(&mut remaining).ok_or_else(short)?;
        match block_id {
            XLR_BLOCK_ID_DATA_SHORT => {
                let len = cursor.u8(&mut remaining).ok_or_else(short)?;
                datatotal = datatotal.saturating_add(usize::from(len));
                break;
            }
            XLR_BLOCK_ID_DATA_LONG => {
                let len = cursor.u32(&mut remaining).ok_or_else(short)?;
                datatotal = datatotal.saturating_add(usize::try_from(len).unwrap_or(usize::MAX));
                break;
            }
            XLR_BLOCK_ID_ORIGIN => {
                cursor.u16(&mut remaining).ok_or_else(short)?;
            }
            XLR_BLOCK_ID_TOPLEVEL_XID => {
                cursor.u32(&mut remaining).ok_or_else(short)?;
            }
            id if id <= XLR_MAX_BLOCK_ID => {
                if max_block_id.is_some_and(|m| id <= m) {
                    return Err(invalid_ref(format!(
                        "out-of-order block_id {id} at {}",
                        lsn_text()
                    )));
                }
                max_block_id = Some(id);
                let fork_flags = cursor.u8(&mut remaining).ok_or_else(short)?;
                let data_length = cursor.u16(&mut remaining).ok_or_else(short)?;
                let has_data = fork_flags & BKPBLOCK_HAS_DATA != 0;
                if has_data && data_length == 0 {
                    return Err(invalid_ref(format!(
                        "BKPBLOCK_HAS_DATA set, but no data included at {}",
                        lsn_text()
                    )));
                }
                if !has_data && data_length != 0 {
                    return Err(invalid_ref(format!(
                        "BKPBLOCK_HAS_DATA not set, but data length is {data_length} at {}",
                        lsn_text()
                    )));
                }
                datatotal = datatotal.saturating_add(usize::from(data_length));
                let image = if fork_flags & BKPBLOCK_HAS_IMAGE != 0 {
                    let length = cursor.u16(&mut remaining).ok_or_else(short)?;
                    let hole_offset = cursor.u16(&mut remaining).ok_or_else(short)?;
                    let bimg_info = cursor.u8(&mut remaining).ok_or_else(short)?;
                    let (compression, apply) = image_flags(version, bimg_info);
                    let has_hole = bimg_info & BKPIMAGE_HAS_HOLE != 0;
                    let hole_length: i64 = if compression != ImageCompression::None {
                        if has_hole {
                            i64::from(cursor.u16(&mut remaining).ok_or_else(short)?)
                        } else {
                            0
                        }
                    } else {
                        i64::from(block_size).saturating_sub(i64::from(length))
                    };
                    datatotal = datatotal.saturating_add(usize::from(length));
                    let whole = u32::from(length) == block_size;
                    if has_hole && (hole_offset == 0 || hole_length == 0 || whole) {
                        return Err(invalid_ref(format!(
                            "BKPIMAGE_HAS_HOLE set, but hole offset {hole_offset} length {hole_length} block image length {length} at {}",
                            lsn_text()
                        )));
                    }
                    if !has_hole && (hole_offset != 0 || hole_length != 0) {
                        return Err(invalid_ref(format!(
                            "BKPIMAGE_HAS_HOLE not set, but hole offset {hole_offset} length {hole_length} at {}",
                            lsn_text()
                        )));
                    }
                    if compression != ImageCompression::None && whole {
                        return Err(invalid_ref(format!(
                            "BKPIMAGE_COMPRESSED set, but block image length {length} at {}",
                            lsn_text()
                        )));
                    }
                    if !has_hole && compression == ImageCompression::None && !whole {
                        return Err(invalid_ref(format!(
                            "neither BKPIMAGE_HAS_HOLE nor BKPIMAGE_COMPRESSED set, but block image length is {length} at {}",
                            lsn_text()
                        )));
                    }
                    // The checks above leave the hole within the page, so it fits a u16.
                    let hole_length = u16::try_from(hole_length).map_err(|_| short())?;
                    image_order.push(blocks.len());
                    Some(BlockImage {
                        offset: 0,
                        length,
                        hole_offset,
                        hole_length,
                        compression,
                        apply,
                        bimg_info,
                    })
                } else {
                    None
                };
                let locator = if fork_flags & BKPBLOCK_SAME_REL == 0 {
                    let l = RelFileLocator {
                        spc_oid: cursor.u32(&mut remaining).ok_or_else(short)?,
                        db_oid: cursor.u32(&mut remaining).ok_or_else(short)?,
                        rel_number: cursor.u32(&mut remaining).ok_or_else(short)?,
                    };
                    last_locator = Some(l);
                    l
                } else {
                    last_locator.ok_or_else(|| {
                        invalid_ref(format!(
                            "BKPBLOCK_SAME_REL set but no previous rel at {}",
                            lsn_text()
                        ))
                    })?
                };
                let block = cursor.u32(&mut remaining).ok_or_else(short)?;
                blocks.push(BlockRef {
                    id,
                    locator,
                    fork: fork_flags & BKPBLOCK_FORK_MASK,
                    block,
                    will_init: fork_flags & BKPBLOCK_WILL_INIT != 0,
                    data_offset: 0,
                    data_length,
                    image,
                });
            }
            id => {
                return Err(invalid_ref(format!(
                    "invalid block_id {id} at {}",
                    lsn_text()
                )));
            }
        }
    }
    if remaining != datatotal {
        return Err(short());
    }
    // The data follows the headers, block by block: each one's image, then its data.
    let mut at = cursor.pos;
    for b in blocks.iter_mut() {
        if let Some(img) = b.image.as_mut() {
            img.offset = u32::try_from(at).map_err(|_| short())?;
            at = at.saturating_add(usize::from(img.length));
        }
        b.data_offset = u32::try_from(at).map_err(|_| short())?;
        at = at.saturating_add(usize::from(b.data_length));
    }
    u32::try_from(at).map_err(|_| short())
}

/// bimg_info's compression and BKPIMAGE_APPLY, by the layout of `version`.
fn image_flags(version: u32, info: u8) -> (ImageCompression, bool) {
    if version <= 14 {
        let compression = if info & BKPIMAGE_IS_COMPRESSED_14 != 0 {
            ImageCompression::Pglz
        } else {
            ImageCompression::None
        };
        return (compression, info & BKPIMAGE_APPLY_14 != 0);
    }
    let compression = if info & BKPIMAGE_COMPRESS_PGLZ != 0 {
        ImageCompression::Pglz
    } else if info & BKPIMAGE_COMPRESS_LZ4 != 0 {
        ImageCompression::Lz4
    } else if info & BKPIMAGE_COMPRESS_ZSTD != 0 {
        ImageCompression::Zstd
    } else {
        ImageCompression::None
    };
    (compression, info & BKPIMAGE_APPLY != 0)
}

/// COPY_HEADER_FIELD: reads a field if `remaining` still covers it.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn take<const N: usize>(&mut self, remaining: &mut usize) -> Option<[u8; N]> {
        *remaining = remaining.checked_sub(N)?;
        let end = self.pos.checked_add(N)?;
        let field: [u8; N] = self.bytes.get(self.pos..end)?.try_into().ok()?;
        self.pos = end;
        Some(field)
    }

    fn u8(&mut self, remaining: &mut usize) -> Option<u8> {
        self.take::<1>(remaining).map(|[b]| b)
    }

    fn u16(&mut self, remaining: &mut usize) -> Option<u16> {
        self.take::<2>(remaining).map(u16::from_le_bytes)
    }

    fn u32(&mut self, remaining: &mut usize) -> Option<u32> {
        self.take::<4>(remaining).map(u32::from_le_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(hole_offset: u16, hole_length: u16, length: u16) -> BlockImage {
        BlockImage {
            offset: 0,
            length,
            hole_offset,
            hole_length,
            compression: ImageCompression::None,
            apply: true,
            bimg_info: 1,
        }
    }

    #[test]
    fn restore_puts_the_hole_back_as_zeros() {
        let raw: Vec<u8> = (0..16).map(|i| i as u8 + 1).collect();
        let page = restore_image(&image(4, 16, 16), &raw, 32).unwrap();
        assert_eq!(&page[..4], &raw[..4]);
        assert!(page[4..20].iter().all(|&b| b == 0));
        assert_eq!(&page[20..], &raw[4..]);
        assert!(restore_image(&image(20, 16, 16), &raw, 32).is_err());
        assert!(restore_image(&image(4, 40, 16), &raw, 32).is_err());
    }

    #[test]
    fn pieces_map_image_bytes_back_to_segments() {
        let pieces = [
            Piece {
                segment: 0,
                offset: 8000,
                record_offset: 0,
                len: 192,
            },
            Piece {
                segment: 1,
                offset: 40,
                record_offset: 192,
                len: 500,
            },
        ];
        let got = image_pieces(&pieces, 100, 200);
        assert_eq!(got.len(), 2);
        assert_eq!((got[0].segment, got[0].offset, got[0].len), (0, 8100, 92));
        assert_eq!((got[1].segment, got[1].offset, got[1].len), (1, 40, 108));
        assert_eq!(got[1].record_offset, 92);
    }
}
