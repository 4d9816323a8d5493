//! Geometry shared by every page: block sizes, byte order, segment arithmetic and the
//! endian-aware integer reads that never index out of bounds.

use serde::Serialize;

/// Byte order of the server that wrote the page ("Words are in the server's byte order").
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Endian {
    #[default]
    Little,
    Big,
}

/// A block size PostgreSQL can be configured with (`--with-blocksize`): 1 to 32 KB.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BlockSize(u32);

impl BlockSize {
    pub const DEFAULT: BlockSize = BlockSize(8192);
    pub const ALL: [u32; 6] = [1024, 2048, 4096, 8192, 16384, 32768];

    /// Accepts only the sizes PostgreSQL supports.
    pub fn new(bytes: u32) -> Option<BlockSize> {
        Self::ALL.contains(&bytes).then_some(BlockSize(bytes))
    }

    pub fn bytes(self) -> u32 {
        self.0
    }

    #[allow(clippy::len_without_is_empty)] // a block size is never empty; len() reads as "page length"
    pub fn len(self) -> usize {
        self.0 as usize
    }

    /// Blocks in one 1 GB segment file (`RELSEG_SIZE` with the default `--with-segsize=1`).
    pub fn blocks_per_segment(self) -> u32 {
        (1u32 << 30).checked_div(self.0).unwrap_or(0)
    }

    /// The relation-wide block number the checksum mixes in: `segno * RELSEG_SIZE + block`.
    /// Wraps like PostgreSQL's 32-bit BlockNumber would.
    pub fn absolute_block(self, segno: u32, block_in_file: u32) -> u32 {
        segno
            .wrapping_mul(self.blocks_per_segment())
            .wrapping_add(block_in_file)
    }

    /// The block size a page claims in `pd_pagesize_version` (bufpage.h: the low byte is the
    /// layout version, the rest the size), if it is one PostgreSQL supports.
    pub fn from_page(page: &[u8], endian: Endian) -> Option<BlockSize> {
        let v = read_u16(page, 18, endian)?;
        BlockSize::new(u32::from(v & 0xFF00))
    }
}

impl Default for BlockSize {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Reads a u16 at `off`, or None past the end.
pub fn read_u16(b: &[u8], off: usize, e: Endian) -> Option<u16> {
    let s: [u8; 2] = b.get(off..off.checked_add(2)?)?.try_into().ok()?;
    Some(match e {
        Endian::Little => u16::from_le_bytes(s),
        Endian::Big => u16::from_be_bytes(s),
    })
}

/// Writes `v` at `off` in byte order `e`; None (nothing written) past the end.
pub fn write_u16(b: &mut [u8], off: usize, e: Endian, v: u16) -> Option<()> {
    b.get_mut(off..off.checked_add(2)?)?
        .copy_from_slice(&match e {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        });
    Some(())
}

/// Reads a u32 at `off`, or None past the end.
pub fn read_u32(b: &[u8], off: usize, e: Endian) -> Option<u32> {
    let s: [u8; 4] = b.get(off..off.checked_add(4)?)?.try_into().ok()?;
    Some(match e {
        Endian::Little => u32::from_le_bytes(s),
        Endian::Big => u32::from_be_bytes(s),
    })
}

/// Reads a u64 at `off`, or None past the end.
pub fn read_u64(b: &[u8], off: usize, e: Endian) -> Option<u64> {
    let s: [u8; 8] = b.get(off..off.checked_add(8)?)?.try_into().ok()?;
    Some(match e {
        Endian::Little => u64::from_le_bytes(s),
        Endian::Big => u64::from_be_bytes(s),
    })
}

/// Rounds up to PostgreSQL's MAXALIGN (8 on every 64-bit platform it supports).
pub fn maxalign(v: usize) -> usize {
    v.checked_add(7).map_or(usize::MAX & !7, |x| x & !7)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_arithmetic_matches_relseg_size() {
        assert_eq!(BlockSize::DEFAULT.blocks_per_segment(), 131072);
        assert_eq!(BlockSize::DEFAULT.absolute_block(2, 5), 262149);
        assert_eq!(
            BlockSize::new(1024).map(|b| b.blocks_per_segment()),
            Some(1 << 20)
        );
        assert_eq!(
            BlockSize::new(32768).map(|b| b.blocks_per_segment()),
            Some(1 << 15)
        );
        assert_eq!(BlockSize::new(3000), None);
    }

    #[test]
    fn reads_are_bounds_checked() {
        let b = [1u8, 2, 3];
        assert_eq!(read_u16(&b, 1, Endian::Little), Some(0x0302));
        assert_eq!(read_u16(&b, 1, Endian::Big), Some(0x0203));
        assert_eq!(read_u16(&b, 2, Endian::Little), None);
        assert_eq!(read_u32(&b, usize::MAX, Endian::Little), None);
    }
}
