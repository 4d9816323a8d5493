//! Heap tuples split into their attributes' stored bytes, as heap_deform_tuple
//! (access/common/heaptuple.c) does it, and the varlena headers of those bytes (varatt.h).
//! Borrowed slices only: turning the bytes into text is `value`'s job.

pub mod columns;
pub mod copy;
pub mod toast;
pub mod value;
pub mod visibility;

use alloc::vec::Vec;

use crate::findings::Finding;
use crate::page::fields::HEAP_NATTS_MASK;
use crate::page::geometry::{read_u16, read_u32, Endian};

/// htup_details.h: offsetof(HeapTupleHeaderData, t_bits).
pub const SIZEOF_HEAP_TUPLE_HEADER: usize = 23;
pub use crate::page::fields::{
    HEAP_HASNULL, HEAP_MOVED_IN, HEAP_MOVED_OFF, HEAP_XMAX_COMMITTED, HEAP_XMAX_EXCL_LOCK,
    HEAP_XMAX_INVALID, HEAP_XMAX_IS_MULTI, HEAP_XMAX_KEYSHR_LOCK, HEAP_XMAX_LOCK_ONLY,
    HEAP_XMIN_COMMITTED, HEAP_XMIN_FROZEN, HEAP_XMIN_INVALID,
};

/// pg_type.typalign: the alignment an attribute's stored bytes start at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    /// 'c'
    Char,
    /// 's'
    Short,
    /// 'i'
    Int,
    /// 'd'
    Double,
}

impl Align {
    /// From pg_type.typalign / pg_attribute.attalign.
    pub fn from_typalign(c: u8) -> Option<Align> {
        match c {
            b'c' => Some(Align::Char),
            b's' => Some(Align::Short),
            b'i' => Some(Align::Int),
            b'd' => Some(Align::Double),
            _ => None,
        }
    }

    pub fn bytes(self) -> usize {
        match self {
            Align::Char => 1,
            Align::Short => 2,
            Align::Int => 4,
            Align::Double => 8,
        }
    }

    /// tupmacs.h: att_align_nominal (TYPEALIGN), saturating instead of wrapping.
    pub fn align(self, off: usize) -> usize {
        let mask = self.bytes().saturating_sub(1);
        off.checked_add(mask)
            .map_or(usize::MAX & !mask, |x| x & !mask)
    }
}

/// The parts of a pg_attribute row that decide where an attribute's bytes lie.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attribute {
    /// > 0: fixed width; -1: varlena; -2: cstring.
    pub attlen: i16,
    pub attalign: Align,
    pub attbyval: bool,
    pub attisdropped: bool,
    /// atthasmissing's value (attmissingval's single element, as stored in a tuple: the
    /// attlen bytes of a fixed-width value, or a whole varlena). Tuples written before the
    /// column was added (natts below it) read as this; None reads them as NULL.
    pub missing: Option<Vec<u8>>,
}

impl Attribute {
    /// An attribute of a type, not dropped and without a missing value.
    pub fn of_type(attlen: i16, attalign: Align, attbyval: bool) -> Attribute {
        Attribute {
            attlen,
            attalign,
            attbyval,
            attisdropped: false,
            missing: None,
        }
    }
}

/// Why a tuple cannot be split into its attributes, and which attribute (0-based) it was at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeformError {
    pub finding: Finding,
    /// The attribute the problem was found at, None for the tuple header.
    pub attnum: Option<usize>,
}

impl DeformError {
    fn header(finding: Finding) -> DeformError {
        DeformError {
            finding,
            attnum: None,
        }
    }
}

/// The fixed part of a heap tuple header (htup_details.h HeapTupleHeaderData) that row
/// extraction needs: visibility, the attribute count, the null bitmap and where data starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TupleHeader {
    pub t_xmin: u32,
    pub t_xmax: u32,
    /// t_cid / t_xvac.
    pub t_field3: u32,
    pub t_ctid_block: u32,
    pub t_ctid_offset: u16,
    pub t_infomask2: u16,
    pub t_infomask: u16,
    pub t_hoff: u8,
}

impl TupleHeader {
    /// Reads the header of a tuple (its bytes from lp_off, lp_len long). None when shorter
    /// than the 23-byte header.
    pub fn read(tuple: &[u8], e: Endian) -> Option<TupleHeader> {
        let hi = read_u16(tuple, 12, e)?;
        let lo = read_u16(tuple, 14, e)?;
        Some(TupleHeader {
            t_xmin: read_u32(tuple, 0, e)?,
            t_xmax: read_u32(tuple, 4, e)?,
            t_field3: read_u32(tuple, 8, e)?,
            t_ctid_block: (u32::from(hi) << 16) | u32::from(lo),
            t_ctid_offset: read_u16(tuple, 16, e)?,
            t_infomask2: read_u16(tuple, 18, e)?,
            t_infomask: read_u16(tuple, 20, e)?,
            t_hoff: *tuple.get(22)?,
        })
    }

    /// HeapTupleHeaderGetNatts.
    pub fn natts(&self) -> usize {
        usize::from(self.t_infomask2 & HEAP_NATTS_MASK)
    }
}

/// A normal line pointer of a heap page and the bytes it points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeapItem<'a> {
    /// Its line pointer number (1-based, as ctid's offset).
    pub lp: u16,
    pub off: usize,
    pub len: usize,
    /// The tuple's bytes; None when they do not lie between the page header and the page's
    /// end (bufpage.h ItemIdHasStorage, PageGetItem).
    pub tuple: Option<&'a [u8]>,
}

/// Every LP_NORMAL line pointer of a heap page (pd_lower says how many there are), read
/// through ItemIdData's field rows, with its tuple's bytes when they lie within the page.
pub fn heap_items(page: &[u8], endian: Endian) -> impl Iterator<Item = HeapItem<'_>> {
    use crate::page::bufpage::{SIZE_OF_ITEM_ID, SIZE_OF_PAGE_HEADER_DATA};
    use crate::page::fields::{item_id_data, page_header_data};
    let r = crate::page::reader::Reader { b: page, e: endian };
    let lower = r.field(0, &page_header_data::PD_LOWER).unwrap_or(0);
    let count = usize::try_from(lower)
        .unwrap_or(0)
        .saturating_sub(SIZE_OF_PAGE_HEADER_DATA)
        / SIZE_OF_ITEM_ID;
    (1..=u16::try_from(count).unwrap_or(u16::MAX)).filter_map(move |lp| {
        let at = usize::from(lp)
            .saturating_sub(1)
            .saturating_mul(SIZE_OF_ITEM_ID)
            .saturating_add(SIZE_OF_PAGE_HEADER_DATA);
        let flags = r.field(at, &item_id_data::LP_FLAGS)?;
        if flags != u32::from(crate::page::fields::LP_NORMAL) {
            return None;
        }
        let off = usize::try_from(r.get(at, &item_id_data::LP_OFF)).unwrap_or(usize::MAX);
        let len = usize::try_from(r.get(at, &item_id_data::LP_LEN)).unwrap_or(usize::MAX);
        let tuple = page
            .get(off..off.saturating_add(len))
            .filter(|_| off >= SIZE_OF_PAGE_HEADER_DATA);
        Some(HeapItem {
            lp,
            off,
            len,
            tuple,
        })
    })
}

/// Splits `tuple` (a heap tuple's bytes, lp_len long) into one entry per attribute of
/// `attrs`: the attribute's stored bytes (attlen bytes, a whole varlena with its header, a
/// cstring with its NUL), or None for NULL. Entries are pushed onto `out` (cleared first) so
/// a caller can reuse one vector for every tuple; on an error `out` holds the attributes
/// decoded before the problem. Ok holds how many bytes after t_hoff the attributes used:
/// a tuple's data ends exactly there (heap_fill_tuple pads nothing at the end), so fewer
/// than the tuple has means the descriptors do not fit it.
///
/// heap_deform_tuple's rules: attributes past t_infomask2's count read as their missing value
/// or NULL (getmissingattr), NULLs come from the bitmap when HEAP_HASNULL is set, every
/// attribute starts at its alignment except a varlena whose first byte is not a pad byte
/// (att_align_pointer: a 1-byte header is never aligned).
pub fn deform<'a>(
    tuple: &'a [u8],
    attrs: &'a [Attribute],
    e: Endian,
    out: &mut Vec<Option<&'a [u8]>>,
) -> Result<usize, DeformError> {
    out.clear();
    let header =
        TupleHeader::read(tuple, e).ok_or(DeformError::header(Finding::HeapItemNotTuple))?;
    let hoff = usize::from(header.t_hoff);
    if hoff < SIZEOF_HEAP_TUPLE_HEADER || hoff > tuple.len() {
        return Err(DeformError::header(Finding::HeapHoffInvalid));
    }
    let natts = header.natts();
    let bitmap = if header.t_infomask & HEAP_HASNULL != 0 {
        let end = natts
            .div_ceil(8)
            .checked_add(SIZEOF_HEAP_TUPLE_HEADER)
            .filter(|&end| end <= hoff)
            .ok_or(DeformError::header(Finding::HeapNullBitmapPastHoff))?;
        tuple.get(SIZEOF_HEAP_TUPLE_HEADER..end)
    } else {
        None
    };
    let data = tuple.get(hoff..).unwrap_or_default();
    let mut off = 0usize;
    for (attnum, att) in attrs.iter().enumerate() {
        if attnum >= natts {
            out.push(att.missing.as_deref());
            continue;
        }
        if let Some(bits) = bitmap {
            // tupmacs.h att_isnull: a clear bit is a NULL.
            let byte = bits.get(attnum / 8).copied().unwrap_or(0);
            if byte & (1 << (attnum % 8)) == 0 {
                out.push(None);
                continue;
            }
        }
        let at = |finding| DeformError {
            finding,
            attnum: Some(attnum),
        };
        off = match att.attlen {
            // att_align_pointer: a nonzero byte where the attribute would start unaligned is
            // a varlena header (pad bytes are always zero), so no padding was written.
            -1 if data.get(off).is_some_and(|&b| b != 0) => off,
            _ => att.attalign.align(off),
        };
        let len = datum_len(data.get(off..).unwrap_or_default(), att.attlen, e).map_err(at)?;
        let end = off
            .checked_add(len)
            .filter(|&end| end <= data.len())
            .ok_or(at(Finding::TupleAttributePastEnd))?;
        out.push(data.get(off..end));
        off = end;
    }
    Ok(off)
}

/// att_addlength_pointer: the length of the datum of an attribute of `attlen` that starts at
/// `rest[0]` (attlen bytes, a varlena's VARSIZE_ANY, a cstring with its NUL). Whether those
/// bytes are all there is the caller's check.
pub fn datum_len(rest: &[u8], attlen: i16, e: Endian) -> Result<usize, Finding> {
    match attlen {
        n if n > 0 => Ok(usize::from(n.unsigned_abs())),
        -1 => varlena_size(rest, e),
        -2 => rest
            .iter()
            .position(|&b| b == 0)
            .and_then(|n| n.checked_add(1))
            .ok_or(Finding::TupleAttributePastEnd),
        _ => Err(Finding::AttributeLengthInvalid),
    }
}

/// varatt.h: vartag_external values and their pointer sizes (VARTAG_SIZE).
pub const VARTAG_INDIRECT: u8 = 1;
pub const VARTAG_EXPANDED_RO: u8 = 2;
pub const VARTAG_EXPANDED_RW: u8 = 3;
pub const VARTAG_ONDISK: u8 = 18;
/// varatt.h: sizeof(varatt_external).
pub const SIZEOF_VARATT_EXTERNAL: usize = 16;

/// varatt.h VARSIZE_ANY: the whole length of a varlena starting at `v[0]`, header included,
/// checked against the header's own rules (a 4-byte length below its header, an external
/// pointer of an unknown tag).
pub fn varlena_size(v: &[u8], e: Endian) -> Result<usize, Finding> {
    let first = *v.first().ok_or(Finding::TupleAttributePastEnd)?;
    match Varlena::kind(first, e) {
        Kind::External => {
            let tag = *v.get(1).ok_or(Finding::TupleAttributePastEnd)?;
            let size = match tag {
                VARTAG_ONDISK => SIZEOF_VARATT_EXTERNAL,
                // Pointers into a backend's memory never reach disk.
                _ => return Err(Finding::VarlenaTagUnexpected),
            };
            Ok(size.saturating_add(2))
        }
        Kind::Short => Ok(match e {
            Endian::Little => usize::from(first >> 1),
            Endian::Big => usize::from(first & 0x7F),
        }),
        Kind::Plain | Kind::Compressed => {
            let word = read_u32(v, 0, e).ok_or(Finding::TupleAttributePastEnd)?;
            let size = match e {
                Endian::Little => (word >> 2) & 0x3FFF_FFFF,
                Endian::Big => word & 0x3FFF_FFFF,
            } as usize;
            if size < 4 {
                return Err(Finding::VarlenaSizeInvalid);
            }
            Ok(size)
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Short,
    External,
    Plain,
    Compressed,
}

/// One stored varlena, its header taken apart (varatt.h's VARATT_IS_* and VARDATA_ANY).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Varlena<'a> {
    /// A 1-byte or 4-byte header and the value's bytes, uncompressed.
    Inline(&'a [u8]),
    /// varattrib_4b.va_compressed: the raw size (va_tcinfo's low 30 bits, header not
    /// counted), the compression method (va_tcinfo's top 2 bits, 0 pglz, 1 lz4; always 0
    /// before PostgreSQL 14) and the compressed bytes.
    Compressed {
        rawsize: u32,
        method: u8,
        data: &'a [u8],
    },
    /// varatt_external: a value stored in the TOAST relation.
    External(ToastPointer),
}

/// varatt.h varatt_external, as a VARTAG_ONDISK pointer holds it (unaligned).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToastPointer {
    /// va_rawsize: the original size, header included.
    pub va_rawsize: i32,
    /// va_extinfo's (before 14: va_extsize's) low 30 bits: the stored size, header excluded.
    pub extsize: u32,
    /// va_extinfo's top 2 bits: the compression method when the stored value is compressed.
    pub method: u8,
    pub va_valueid: u32,
    pub va_toastrelid: u32,
}

impl ToastPointer {
    /// VARATT_EXTERNAL_IS_COMPRESSED: stored smaller than the raw value.
    pub fn is_compressed(&self) -> bool {
        i64::from(self.extsize) < i64::from(self.va_rawsize).saturating_sub(4)
    }
}

impl<'a> Varlena<'a> {
    fn kind(first: u8, e: Endian) -> Kind {
        match e {
            Endian::Little if first == 0x01 => Kind::External,
            Endian::Little if first & 0x01 == 0x01 => Kind::Short,
            Endian::Little if first & 0x03 == 0x02 => Kind::Compressed,
            Endian::Little => Kind::Plain,
            Endian::Big if first == 0x80 => Kind::External,
            Endian::Big if first & 0x80 == 0x80 => Kind::Short,
            Endian::Big if first & 0xC0 == 0x40 => Kind::Compressed,
            Endian::Big => Kind::Plain,
        }
    }

    /// Takes apart the varlena `v` (exactly one varlena, as `deform` returns it).
    pub fn parse(v: &'a [u8], e: Endian) -> Result<Varlena<'a>, Finding> {
        let size = varlena_size(v, e)?;
        let v = v.get(..size).ok_or(Finding::TupleAttributePastEnd)?;
        let first = v.first().copied().unwrap_or(0);
        Ok(match Varlena::kind(first, e) {
            Kind::Short => Varlena::Inline(v.get(1..).unwrap_or_default()),
            Kind::Plain => Varlena::Inline(v.get(4..).unwrap_or_default()),
            Kind::Compressed => {
                let info = read_u32(v, 4, e).ok_or(Finding::VarlenaSizeInvalid)?;
                Varlena::Compressed {
                    rawsize: info & 0x3FFF_FFFF,
                    method: (info >> 30) as u8,
                    data: v.get(8..).unwrap_or_default(),
                }
            }
            Kind::External => {
                let p = v.get(2..).unwrap_or_default();
                let word = |at| read_u32(p, at, e).ok_or(Finding::TupleAttributePastEnd);
                let extinfo = word(4)?;
                Varlena::External(ToastPointer {
                    va_rawsize: word(0)? as i32,
                    extsize: extinfo & 0x3FFF_FFFF,
                    method: (extinfo >> 30) as u8,
                    va_valueid: word(8)?,
                    va_toastrelid: word(12)?,
                })
            }
        })
    }
}

/// A by-value datum's bytes read as int2 (also for any 2-byte fixed type).
pub fn int2(d: &[u8], e: Endian) -> Option<i16> {
    read_u16(fixed(d, 2)?, 0, e).map(|v| v as i16)
}

/// int4 (and date, which is an int4 of days).
pub fn int4(d: &[u8], e: Endian) -> Option<i32> {
    read_u32(fixed(d, 4)?, 0, e).map(|v| v as i32)
}

/// oid, xid, regproc and the other 4-byte unsigned catalog types.
pub fn oid(d: &[u8], e: Endian) -> Option<u32> {
    read_u32(fixed(d, 4)?, 0, e)
}

/// int8 (and timestamp, time, money: 8-byte integers).
pub fn int8(d: &[u8], e: Endian) -> Option<i64> {
    let b: [u8; 8] = fixed(d, 8)?.try_into().ok()?;
    Some(match e {
        Endian::Little => i64::from_le_bytes(b),
        Endian::Big => i64::from_be_bytes(b),
    })
}

/// The one byte of `"char"`.
pub fn char(d: &[u8]) -> Option<u8> {
    fixed(d, 1)?.first().copied()
}

/// bool: any nonzero byte is true (DatumGetBool).
pub fn bool(d: &[u8]) -> Option<bool> {
    char(d).map(|b| b != 0)
}

/// name and other NUL-padded fixed-width strings: the bytes up to the first NUL.
pub fn name(d: &[u8]) -> &[u8] {
    let end = d.iter().position(|&b| b == 0).unwrap_or(d.len());
    d.get(..end).unwrap_or_default()
}

fn fixed(d: &[u8], n: usize) -> Option<&[u8]> {
    (d.len() == n).then_some(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    /// A tuple header with natts attributes, the given infomask and null bitmap, followed by
    /// `data` at a MAXALIGNed t_hoff.
    fn tuple(natts: u16, infomask: u16, bits: &[u8], data: &[u8]) -> Vec<u8> {
        let hoff = (23 + bits.len()).div_ceil(8) * 8;
        let mut t = vec![0u8; hoff];
        t[18..20].copy_from_slice(&natts.to_le_bytes());
        t[20..22].copy_from_slice(&infomask.to_le_bytes());
        t[22] = hoff as u8;
        t[23..23 + bits.len()].copy_from_slice(bits);
        t.extend_from_slice(data);
        t
    }

    fn att(attlen: i16, align: u8) -> Attribute {
        Attribute::of_type(attlen, Align::from_typalign(align).unwrap(), attlen > 0)
    }

    #[test]
    fn int4_short_varlena_unaligned_then_int8_aligned() {
        // int4 1, text 'ab' (1-byte header 0x07, not aligned), int8 at offset 8.
        let mut data = vec![1, 0, 0, 0, 0x07, b'a', b'b', 0];
        data.extend_from_slice(&7i64.to_le_bytes());
        let t = tuple(3, 0x0002, &[], &data);
        let attrs = [att(4, b'i'), att(-1, b'i'), att(8, b'd')];
        let mut out = Vec::new();
        deform(&t, &attrs, Endian::Little, &mut out).unwrap();
        assert_eq!(out[0], Some(&[1u8, 0, 0, 0][..]));
        assert_eq!(out[1], Some(&[0x07u8, b'a', b'b'][..]));
        assert_eq!(int8(out[2].unwrap(), Endian::Little), Some(7));
        assert_eq!(
            Varlena::parse(out[1].unwrap(), Endian::Little),
            Ok(Varlena::Inline(b"ab"))
        );
    }

    #[test]
    fn four_byte_varlena_is_aligned_past_pad_bytes() {
        // bool true, pad to 4, text with a 4-byte header (size 6: "hi").
        let mut data = vec![1, 0, 0, 0];
        data.extend_from_slice(&(6u32 << 2).to_le_bytes());
        data.extend_from_slice(b"hi");
        let t = tuple(2, 0, &[], &data);
        let attrs = [att(1, b'c'), att(-1, b'i')];
        let mut out = Vec::new();
        deform(&t, &attrs, Endian::Little, &mut out).unwrap();
        assert_eq!(bool(out[0].unwrap()), Some(true));
        assert_eq!(
            Varlena::parse(out[1].unwrap(), Endian::Little),
            Ok(Varlena::Inline(b"hi"))
        );
    }

    #[test]
    fn nulls_from_bitmap_and_missing_past_natts() {
        // natts 2 of 4 attributes: first NULL, second int4 5; third has a missing value.
        let t = tuple(2, HEAP_HASNULL, &[0b10], &[5, 0, 0, 0]);
        let mut attrs = vec![att(4, b'i'), att(4, b'i'), att(4, b'i'), att(4, b'i')];
        attrs[2].missing = Some(vec![9, 0, 0, 0]);
        let mut out = Vec::new();
        deform(&t, &attrs, Endian::Little, &mut out).unwrap();
        assert_eq!(out[0], None);
        assert_eq!(int4(out[1].unwrap(), Endian::Little), Some(5));
        assert_eq!(int4(out[2].unwrap(), Endian::Little), Some(9));
        assert_eq!(out[3], None);
    }

    #[test]
    fn problems_are_named() {
        let mut out = Vec::new();
        let attrs = [att(8, b'd')];
        let t = tuple(1, 0, &[], &[1, 2, 3]);
        assert_eq!(
            deform(&t, &attrs, Endian::Little, &mut out),
            Err(DeformError {
                finding: Finding::TupleAttributePastEnd,
                attnum: Some(0)
            })
        );
        // 4-byte varlena claiming 400 bytes in a 12-byte tuple.
        let t = tuple(1, 0, &[], &(400u32 << 2).to_le_bytes());
        let attrs = [att(-1, b'i')];
        assert_eq!(
            deform(&t, &attrs, Endian::Little, &mut out)
                .unwrap_err()
                .finding,
            Finding::TupleAttributePastEnd
        );
        // A bitmap for 100 attributes does not end by t_hoff 24.
        let mut t = tuple(1, HEAP_HASNULL, &[1], &[0; 8]);
        t[18] = 100;
        assert_eq!(
            deform(&t, &attrs, Endian::Little, &mut out)
                .unwrap_err()
                .finding,
            Finding::HeapNullBitmapPastHoff
        );
        // cstring without its NUL.
        let t = tuple(1, 0, &[], b"abc");
        assert_eq!(
            deform(&t, &[att(-2, b'c')], Endian::Little, &mut out)
                .unwrap_err()
                .finding,
            Finding::TupleAttributePastEnd
        );
    }

    #[test]
    fn external_and_compressed_headers() {
        let mut v = vec![0x01, VARTAG_ONDISK];
        for w in [1004u32, 500 | (1 << 30), 16500, 16400] {
            v.extend_from_slice(&w.to_le_bytes());
        }
        assert_eq!(varlena_size(&v, Endian::Little), Ok(18));
        assert_eq!(
            Varlena::parse(&v, Endian::Little),
            Ok(Varlena::External(ToastPointer {
                va_rawsize: 1004,
                extsize: 500,
                method: 1,
                va_valueid: 16500,
                va_toastrelid: 16400
            }))
        );
        let mut c = ((12u32 << 2) | 0x02).to_le_bytes().to_vec();
        c.extend_from_slice(&(100u32 | (1 << 30)).to_le_bytes());
        c.extend_from_slice(&[1, 2, 3, 4]);
        assert_eq!(
            Varlena::parse(&c, Endian::Little),
            Ok(Varlena::Compressed {
                rawsize: 100,
                method: 1,
                data: &[1, 2, 3, 4]
            })
        );
        assert_eq!(
            varlena_size(&[0x01, 7], Endian::Little),
            Err(Finding::VarlenaTagUnexpected)
        );
    }

    #[test]
    fn big_endian_headers() {
        assert_eq!(varlena_size(&[0x83, b'a', b'b'], Endian::Big), Ok(3));
        let mut v = 6u32.to_be_bytes().to_vec();
        v.extend_from_slice(b"hi");
        assert_eq!(Varlena::parse(&v, Endian::Big), Ok(Varlena::Inline(b"hi")));
    }

    proptest::proptest! {
        #[test]
        fn deform_never_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..200),
                               lens in proptest::collection::vec(-3i16..10, 0..12)) {
            let attrs: Vec<Attribute> = lens.iter().map(|&l| att(if l == 0 { 1 } else { l }, b'i')).collect();
            let mut out = Vec::new();
            let _ = deform(&bytes, &attrs, Endian::Little, &mut out);
            let _ = deform(&bytes, &attrs, Endian::Big, &mut out);
            let _ = Varlena::parse(&bytes, Endian::Little);
        }
    }
}
