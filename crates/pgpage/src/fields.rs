//! Every fixed on-disk structure pgpage decodes, described once: one table per structure,
//! one row per field, with PostgreSQL's own names. Decoders, hex-view colours, tooltips and
//! docs all read these tables; variable regions are walked by code that emits the same spans.

use serde::Serialize;

/// What a byte is for; the hex view colours bytes by role (one colour per role).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// PageHeaderData.
    Header,
    /// ItemIdData array.
    LinePointer,
    /// HeapTupleHeaderData, IndexTupleData and other per-tuple headers.
    TupleHeader,
    /// A tuple's null bitmap (t_bits) or an index tuple's attribute bitmap.
    NullBitmap,
    /// Column data of a tuple.
    TupleData,
    /// The AM's special space (opaque data at pd_special).
    Special,
    /// A metapage's contents.
    Meta,
    /// Between pd_lower and pd_upper.
    FreeSpace,
    /// FSM tree nodes, VM bits, BRIN revmap TIDs: page contents that are not tuples.
    Map,
    /// Bytes nothing points at (alignment padding, space left by removed tuples).
    Unused,
}

impl Role {
    pub const ALL: [Role; 10] = [
        Role::Header,
        Role::LinePointer,
        Role::TupleHeader,
        Role::NullBitmap,
        Role::TupleData,
        Role::Special,
        Role::Meta,
        Role::FreeSpace,
        Role::Map,
        Role::Unused,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Header => "header",
            Role::LinePointer => "line_pointer",
            Role::TupleHeader => "tuple_header",
            Role::NullBitmap => "null_bitmap",
            Role::TupleData => "tuple_data",
            Role::Special => "special",
            Role::Meta => "meta",
            Role::FreeSpace => "free_space",
            Role::Map => "map",
            Role::Unused => "unused",
        }
    }

    /// A small code for typed-array transport (wasm): the declaration order.
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// A flag bit and its name as PostgreSQL's headers spell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct FlagName {
    pub mask: u32,
    pub name: &'static str,
}

const fn flag(mask: u32, name: &'static str) -> FlagName {
    FlagName { mask, name }
}

/// How a field's bytes are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    U8,
    U16,
    U32,
    I32,
    I64,
    U64,
    F64,
    Bool,
    /// PageXLogRecPtr: two u32 words, xlogid then xrecoff.
    Lsn,
    /// TransactionId.
    Xid,
    Oid,
    BlockNumber,
    /// ItemPointerData: bi_hi, bi_lo, ip_posid.
    Tid,
    /// A magic number or page id, printed in hex.
    Magic,
    /// Flag bits with their names.
    Flags(&'static [FlagName]),
    /// An array of u32 (BlockNumbers and counters).
    U32Array,
    /// Opaque bytes.
    Bytes,
}

/// A C bit field inside a little-endian-laid-out storage unit: `shift` counts from the least
/// significant bit as GCC allocates them on little-endian machines; big-endian GCC allocates
/// from the most significant bit, see [`Bits::shift_for`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Bits {
    pub shift: u8,
    pub width: u8,
}

impl Bits {
    /// Shift within a `unit_bits`-wide word read in `endian` byte order.
    pub fn shift_for(self, unit_bits: u8, endian: crate::Endian) -> u8 {
        match endian {
            crate::Endian::Little => self.shift,
            crate::Endian::Big => unit_bits
                .saturating_sub(self.shift)
                .saturating_sub(self.width),
        }
    }

    pub fn mask(self) -> u32 {
        match 1u32.checked_shl(u32::from(self.width)) {
            Some(v) => v.wrapping_sub(1),
            None => u32::MAX,
        }
    }
}

/// One field of an on-disk structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Field {
    /// The member's name in PostgreSQL's header.
    pub name: &'static str,
    /// Byte offset from the structure's start.
    pub offset: u16,
    /// Bytes it occupies (for bit fields: the storage unit's size).
    pub size: u16,
    pub bits: Option<Bits>,
    pub kind: Kind,
    pub role: Role,
    /// One line, citing the header it comes from.
    pub doc: &'static str,
}

impl Field {
    pub fn end(&self) -> u16 {
        self.offset.saturating_add(self.size)
    }
}

/// A structure: its C name, its size (without a flexible array tail) and its fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Table {
    pub name: &'static str,
    pub size: u16,
    pub fields: &'static [Field],
}

impl Table {
    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

const fn f(
    name: &'static str,
    offset: u16,
    size: u16,
    kind: Kind,
    role: Role,
    doc: &'static str,
) -> Field {
    Field {
        name,
        offset,
        size,
        bits: None,
        kind,
        role,
        doc,
    }
}

const fn bits(
    name: &'static str,
    shift: u8,
    width: u8,
    kind: Kind,
    role: Role,
    doc: &'static str,
) -> Field {
    Field {
        name,
        offset: 0,
        size: 4,
        bits: Some(Bits { shift, width }),
        kind,
        role,
        doc,
    }
}

// ---------------------------------------------------------------- bufpage.h / itemid.h

/// bufpage.h: pd_flags bits.
pub const PD_FLAGS: &[FlagName] = &[
    flag(0x0001, "PD_HAS_FREE_LINES"),
    flag(0x0002, "PD_PAGE_FULL"),
    flag(0x0004, "PD_ALL_VISIBLE"),
];

/// bufpage.h: PageHeaderData; SizeOfPageHeaderData is 24 (pd_linp starts there).
pub const PAGE_HEADER_DATA: Table = Table {
    name: "PageHeaderData",
    size: 24,
    fields: &[
        f("pd_lsn", 0, 8, Kind::Lsn, Role::Header, "bufpage.h: PageHeaderData.pd_lsn, LSN of the last WAL record that changed the page"),
        f("pd_checksum", 8, 2, Kind::U16, Role::Header, "bufpage.h: PageHeaderData.pd_checksum, storage/checksum_impl.h's pg_checksum_page"),
        f("pd_flags", 10, 2, Kind::Flags(PD_FLAGS), Role::Header, "bufpage.h: PageHeaderData.pd_flags, PD_HAS_FREE_LINES | PD_PAGE_FULL | PD_ALL_VISIBLE"),
        f("pd_lower", 12, 2, Kind::U16, Role::Header, "bufpage.h: PageHeaderData.pd_lower, offset to start of free space (end of line pointers)"),
        f("pd_upper", 14, 2, Kind::U16, Role::Header, "bufpage.h: PageHeaderData.pd_upper, offset to end of free space (first tuple)"),
        f("pd_special", 16, 2, Kind::U16, Role::Header, "bufpage.h: PageHeaderData.pd_special, offset to start of special space"),
        f("pd_pagesize_version", 18, 2, Kind::U16, Role::Header, "bufpage.h: PageHeaderData.pd_pagesize_version, page size (high bits) | layout version (low byte, 4)"),
        f("pd_prune_xid", 20, 4, Kind::Xid, Role::Header, "bufpage.h: PageHeaderData.pd_prune_xid, oldest prunable XID, or zero if none"),
    ],
};

/// itemid.h: lp_flags values.
pub const LP_FLAGS: &[FlagName] = &[
    flag(0, "LP_UNUSED"),
    flag(1, "LP_NORMAL"),
    flag(2, "LP_REDIRECT"),
    flag(3, "LP_DEAD"),
];

/// itemid.h: ItemIdData, `unsigned lp_off:15, lp_flags:2, lp_len:15` in one 32-bit word.
pub const ITEM_ID_DATA: Table = Table {
    name: "ItemIdData",
    size: 4,
    fields: &[
        bits(
            "lp_off",
            0,
            15,
            Kind::U16,
            Role::LinePointer,
            "itemid.h: ItemIdData.lp_off, offset to tuple (from start of page)",
        ),
        bits(
            "lp_flags",
            15,
            2,
            Kind::Flags(LP_FLAGS),
            Role::LinePointer,
            "itemid.h: ItemIdData.lp_flags, LP_UNUSED/LP_NORMAL/LP_REDIRECT/LP_DEAD",
        ),
        bits(
            "lp_len",
            17,
            15,
            Kind::U16,
            Role::LinePointer,
            "itemid.h: ItemIdData.lp_len, byte length of tuple",
        ),
    ],
};

// ---------------------------------------------------------------- htup_details.h

/// htup_details.h: t_infomask bits, in heap_tuple_infomask_flags' order.
pub const T_INFOMASK: &[FlagName] = &[
    flag(0x0001, "HEAP_HASNULL"),
    flag(0x0002, "HEAP_HASVARWIDTH"),
    flag(0x0004, "HEAP_HASEXTERNAL"),
    flag(0x0008, "HEAP_HASOID_OLD"),
    flag(0x0010, "HEAP_XMAX_KEYSHR_LOCK"),
    flag(0x0020, "HEAP_COMBOCID"),
    flag(0x0040, "HEAP_XMAX_EXCL_LOCK"),
    flag(0x0080, "HEAP_XMAX_LOCK_ONLY"),
    flag(0x0100, "HEAP_XMIN_COMMITTED"),
    flag(0x0200, "HEAP_XMIN_INVALID"),
    flag(0x0400, "HEAP_XMAX_COMMITTED"),
    flag(0x0800, "HEAP_XMAX_INVALID"),
    flag(0x1000, "HEAP_XMAX_IS_MULTI"),
    flag(0x2000, "HEAP_UPDATED"),
    flag(0x4000, "HEAP_MOVED_OFF"),
    flag(0x8000, "HEAP_MOVED_IN"),
];

/// htup_details.h: combinations heap_tuple_infomask_flags reports as combined_flags.
pub const T_INFOMASK_COMBINED: &[FlagName] = &[
    flag(0x0050, "HEAP_XMAX_SHR_LOCK"),
    flag(0x0300, "HEAP_XMIN_FROZEN"),
    flag(0xC000, "HEAP_MOVED"),
];

/// htup_details.h: t_infomask2 flag bits (the low 11 bits are HEAP_NATTS_MASK).
pub const T_INFOMASK2: &[FlagName] = &[
    flag(0x2000, "HEAP_KEYS_UPDATED"),
    flag(0x4000, "HEAP_HOT_UPDATED"),
    flag(0x8000, "HEAP_ONLY_TUPLE"),
];

/// htup_details.h: HEAP_NATTS_MASK.
pub const HEAP_NATTS_MASK: u16 = 0x07FF;

/// htup_details.h: HeapTupleHeaderData up to t_bits (SizeofHeapTupleHeader = 23).
pub const HEAP_TUPLE_HEADER_DATA: Table = Table {
    name: "HeapTupleHeaderData",
    size: 23,
    fields: &[
        f("t_xmin", 0, 4, Kind::Xid, Role::TupleHeader, "htup_details.h: HeapTupleFields.t_xmin, inserting xact ID"),
        f("t_xmax", 4, 4, Kind::Xid, Role::TupleHeader, "htup_details.h: HeapTupleFields.t_xmax, deleting or locking xact ID"),
        f("t_field3", 8, 4, Kind::U32, Role::TupleHeader, "htup_details.h: HeapTupleFields.t_field3, t_cid (inserting or deleting command ID) or t_xvac"),
        f("t_ctid", 12, 6, Kind::Tid, Role::TupleHeader, "htup_details.h: HeapTupleHeaderData.t_ctid, current TID of this or newer tuple"),
        f("t_infomask2", 18, 2, Kind::Flags(T_INFOMASK2), Role::TupleHeader, "htup_details.h: HeapTupleHeaderData.t_infomask2, number of attributes + flag bits"),
        f("t_infomask", 20, 2, Kind::Flags(T_INFOMASK), Role::TupleHeader, "htup_details.h: HeapTupleHeaderData.t_infomask, flag bits"),
        f("t_hoff", 22, 1, Kind::U8, Role::TupleHeader, "htup_details.h: HeapTupleHeaderData.t_hoff, sizeof header incl. bitmap, padding"),
    ],
};

// ---------------------------------------------------------------- itup.h

/// itup.h: t_info bits (the low 13 bits are INDEX_SIZE_MASK).
pub const T_INFO: &[FlagName] = &[
    flag(0x2000, "INDEX_AM_RESERVED_BIT"),
    flag(0x4000, "INDEX_VAR_MASK"),
    flag(0x8000, "INDEX_NULL_MASK"),
];

/// itup.h: IndexTupleData (8 bytes, then an optional IndexAttributeBitMapData).
pub const INDEX_TUPLE_DATA: Table = Table {
    name: "IndexTupleData",
    size: 8,
    fields: &[
        f(
            "t_tid",
            0,
            6,
            Kind::Tid,
            Role::TupleHeader,
            "itup.h: IndexTupleData.t_tid, reference TID to heap tuple",
        ),
        f(
            "t_info",
            6,
            2,
            Kind::Flags(T_INFO),
            Role::TupleHeader,
            "itup.h: IndexTupleData.t_info, size (INDEX_SIZE_MASK) | var | null bits",
        ),
    ],
};

// ---------------------------------------------------------------- nbtree.h

/// nbtree.h: btpo_flags bits.
pub const BTPO_FLAGS: &[FlagName] = &[
    flag(1 << 0, "BTP_LEAF"),
    flag(1 << 1, "BTP_ROOT"),
    flag(1 << 2, "BTP_DELETED"),
    flag(1 << 3, "BTP_META"),
    flag(1 << 4, "BTP_HALF_DEAD"),
    flag(1 << 5, "BTP_SPLIT_END"),
    flag(1 << 6, "BTP_HAS_GARBAGE"),
    flag(1 << 7, "BTP_INCOMPLETE_SPLIT"),
    flag(1 << 8, "BTP_HAS_FULLXID"),
];

/// nbtree.h: BTPageOpaqueData, the btree special space.
pub const BT_PAGE_OPAQUE_DATA: Table = Table {
    name: "BTPageOpaqueData",
    size: 16,
    fields: &[
        f(
            "btpo_prev",
            0,
            4,
            Kind::BlockNumber,
            Role::Special,
            "nbtree.h: BTPageOpaqueData.btpo_prev, left sibling, or P_NONE if leftmost",
        ),
        f(
            "btpo_next",
            4,
            4,
            Kind::BlockNumber,
            Role::Special,
            "nbtree.h: BTPageOpaqueData.btpo_next, right sibling, or P_NONE if rightmost",
        ),
        f(
            "btpo_level",
            8,
            4,
            Kind::U32,
            Role::Special,
            "nbtree.h: BTPageOpaqueData.btpo_level, tree level --- zero for leaf pages",
        ),
        f(
            "btpo_flags",
            12,
            2,
            Kind::Flags(BTPO_FLAGS),
            Role::Special,
            "nbtree.h: BTPageOpaqueData.btpo_flags, BTP_LEAF, BTP_ROOT, BTP_META ...",
        ),
        f(
            "btpo_cycleid",
            14,
            2,
            Kind::U16,
            Role::Special,
            "nbtree.h: BTPageOpaqueData.btpo_cycleid, vacuum cycle ID of latest split",
        ),
    ],
};

/// nbtree.h: BTMetaPageData, at PageGetContents of block 0.
pub const BT_META_PAGE_DATA: Table = Table {
    name: "BTMetaPageData",
    size: 41,
    fields: &[
        f("btm_magic", 0, 4, Kind::Magic, Role::Meta, "nbtree.h: BTMetaPageData.btm_magic, should contain BTREE_MAGIC (0x053162)"),
        f("btm_version", 4, 4, Kind::U32, Role::Meta, "nbtree.h: BTMetaPageData.btm_version, nbtree version (always <= BTREE_VERSION)"),
        f("btm_root", 8, 4, Kind::BlockNumber, Role::Meta, "nbtree.h: BTMetaPageData.btm_root, current root location"),
        f("btm_level", 12, 4, Kind::U32, Role::Meta, "nbtree.h: BTMetaPageData.btm_level, tree level of the root page"),
        f("btm_fastroot", 16, 4, Kind::BlockNumber, Role::Meta, "nbtree.h: BTMetaPageData.btm_fastroot, current \"fast\" root location"),
        f("btm_fastlevel", 20, 4, Kind::U32, Role::Meta, "nbtree.h: BTMetaPageData.btm_fastlevel, tree level of the \"fast\" root page"),
        f("btm_last_cleanup_num_delpages", 24, 4, Kind::U32, Role::Meta, "nbtree.h: BTMetaPageData.btm_last_cleanup_num_delpages, deleted non-recyclable pages at last cleanup"),
        f("btm_last_cleanup_num_heap_tuples", 32, 8, Kind::F64, Role::Meta, "nbtree.h: BTMetaPageData.btm_last_cleanup_num_heap_tuples, heap tuples at last cleanup (deprecated)"),
        f("btm_allequalimage", 40, 1, Kind::Bool, Role::Meta, "nbtree.h: BTMetaPageData.btm_allequalimage, are all columns \"equalimage\"?"),
    ],
};

/// nbtree.h: BTDeletedPageData, at PageGetContents of a deleted page with BTP_HAS_FULLXID.
pub const BT_DELETED_PAGE_DATA: Table = Table {
    name: "BTDeletedPageData",
    size: 8,
    fields: &[f("safexid", 0, 8, Kind::U64, Role::Meta, "nbtree.h: BTDeletedPageData.safexid, FullTransactionId after which the page can be recycled")],
};

// ---------------------------------------------------------------- hash.h

/// hash.h: hasho_flag bits.
pub const HASHO_FLAG: &[FlagName] = &[
    flag(1 << 0, "LH_OVERFLOW_PAGE"),
    flag(1 << 1, "LH_BUCKET_PAGE"),
    flag(1 << 2, "LH_BITMAP_PAGE"),
    flag(1 << 3, "LH_META_PAGE"),
    flag(1 << 4, "LH_BUCKET_BEING_POPULATED"),
    flag(1 << 5, "LH_BUCKET_BEING_SPLIT"),
    flag(1 << 6, "LH_BUCKET_NEEDS_SPLIT_CLEANUP"),
    flag(1 << 7, "LH_PAGE_HAS_DEAD_TUPLES"),
];

/// hash.h: HashPageOpaqueData, the hash special space.
pub const HASH_PAGE_OPAQUE_DATA: Table = Table {
    name: "HashPageOpaqueData",
    size: 16,
    fields: &[
        f("hasho_prevblkno", 0, 4, Kind::BlockNumber, Role::Special, "hash.h: HashPageOpaqueData.hasho_prevblkno, previous ovfl page, or maxbucket at last split for a bucket page"),
        f("hasho_nextblkno", 4, 4, Kind::BlockNumber, Role::Special, "hash.h: HashPageOpaqueData.hasho_nextblkno, next ovfl blkno"),
        f("hasho_bucket", 8, 4, Kind::U32, Role::Special, "hash.h: HashPageOpaqueData.hasho_bucket, bucket number this page belongs to"),
        f("hasho_flag", 12, 2, Kind::Flags(HASHO_FLAG), Role::Special, "hash.h: HashPageOpaqueData.hasho_flag, page type code + flag bits"),
        f("hasho_page_id", 14, 2, Kind::Magic, Role::Special, "hash.h: HashPageOpaqueData.hasho_page_id, HASHO_PAGE_ID (0xFF80)"),
    ],
};

/// hash.h: HASH_MAX_SPLITPOINTS.
pub const HASH_MAX_SPLITPOINTS: u16 = 98;

/// hash.h: HashMetaPageData up to hashm_spares; hashm_mapp (HASH_MAX_BITMAPS entries, which
/// depends on the block size) follows at offset 444.
pub const HASH_META_PAGE_DATA: Table = Table {
    name: "HashMetaPageData",
    size: 444,
    fields: &[
        f("hashm_magic", 0, 4, Kind::Magic, Role::Meta, "hash.h: HashMetaPageData.hashm_magic, HASH_MAGIC (0x6440640)"),
        f("hashm_version", 4, 4, Kind::U32, Role::Meta, "hash.h: HashMetaPageData.hashm_version, HASH_VERSION (4)"),
        f("hashm_ntuples", 8, 8, Kind::F64, Role::Meta, "hash.h: HashMetaPageData.hashm_ntuples, number of tuples stored in the table"),
        f("hashm_ffactor", 16, 2, Kind::U16, Role::Meta, "hash.h: HashMetaPageData.hashm_ffactor, target fill factor (tuples/bucket)"),
        f("hashm_bsize", 18, 2, Kind::U16, Role::Meta, "hash.h: HashMetaPageData.hashm_bsize, index page size (bytes)"),
        f("hashm_bmsize", 20, 2, Kind::U16, Role::Meta, "hash.h: HashMetaPageData.hashm_bmsize, bitmap array size (bytes)"),
        f("hashm_bmshift", 22, 2, Kind::U16, Role::Meta, "hash.h: HashMetaPageData.hashm_bmshift, log2(bitmap array size in BITS)"),
        f("hashm_maxbucket", 24, 4, Kind::U32, Role::Meta, "hash.h: HashMetaPageData.hashm_maxbucket, ID of maximum bucket in use"),
        f("hashm_highmask", 28, 4, Kind::U32, Role::Meta, "hash.h: HashMetaPageData.hashm_highmask, mask to modulo into entire table"),
        f("hashm_lowmask", 32, 4, Kind::U32, Role::Meta, "hash.h: HashMetaPageData.hashm_lowmask, mask to modulo into lower half of table"),
        f("hashm_ovflpoint", 36, 4, Kind::U32, Role::Meta, "hash.h: HashMetaPageData.hashm_ovflpoint, splitpoint from which ovflpage being allocated"),
        f("hashm_firstfree", 40, 4, Kind::U32, Role::Meta, "hash.h: HashMetaPageData.hashm_firstfree, lowest-number free ovflpage (bit#)"),
        f("hashm_nmaps", 44, 4, Kind::U32, Role::Meta, "hash.h: HashMetaPageData.hashm_nmaps, number of bitmap pages"),
        f("hashm_procid", 48, 4, Kind::Oid, Role::Meta, "hash.h: HashMetaPageData.hashm_procid, hash function id from pg_proc"),
        f("hashm_spares", 52, 392, Kind::U32Array, Role::Meta, "hash.h: HashMetaPageData.hashm_spares[HASH_MAX_SPLITPOINTS], spare pages before each splitpoint"),
    ],
};

// ---------------------------------------------------------------- gist.h

/// gist.h: GISTPageOpaqueData flags bits.
pub const GIST_FLAGS: &[FlagName] = &[
    flag(1 << 0, "F_LEAF"),
    flag(1 << 1, "F_DELETED"),
    flag(1 << 2, "F_TUPLES_DELETED"),
    flag(1 << 3, "F_FOLLOW_RIGHT"),
    flag(1 << 4, "F_HAS_GARBAGE"),
];

/// gist.h: GISTPageOpaqueData, the GiST special space.
pub const GIST_PAGE_OPAQUE_DATA: Table = Table {
    name: "GISTPageOpaqueData",
    size: 16,
    fields: &[
        f(
            "nsn",
            0,
            8,
            Kind::Lsn,
            Role::Special,
            "gist.h: GISTPageOpaqueData.nsn, this value must change on page split",
        ),
        f(
            "rightlink",
            8,
            4,
            Kind::BlockNumber,
            Role::Special,
            "gist.h: GISTPageOpaqueData.rightlink, next page if any",
        ),
        f(
            "flags",
            12,
            2,
            Kind::Flags(GIST_FLAGS),
            Role::Special,
            "gist.h: GISTPageOpaqueData.flags, F_LEAF, F_DELETED ...",
        ),
        f(
            "gist_page_id",
            14,
            2,
            Kind::Magic,
            Role::Special,
            "gist.h: GISTPageOpaqueData.gist_page_id, GIST_PAGE_ID (0xFF81)",
        ),
    ],
};

// ---------------------------------------------------------------- ginblock.h

/// ginblock.h: GinPageOpaqueData flags bits.
pub const GIN_FLAGS: &[FlagName] = &[
    flag(1 << 0, "GIN_DATA"),
    flag(1 << 1, "GIN_LEAF"),
    flag(1 << 2, "GIN_DELETED"),
    flag(1 << 3, "GIN_META"),
    flag(1 << 4, "GIN_LIST"),
    flag(1 << 5, "GIN_LIST_FULLROW"),
    flag(1 << 6, "GIN_INCOMPLETE_SPLIT"),
    flag(1 << 7, "GIN_COMPRESSED"),
];

/// ginblock.h: GinPageOpaqueData, the GIN special space.
pub const GIN_PAGE_OPAQUE_DATA: Table = Table {
    name: "GinPageOpaqueData",
    size: 8,
    fields: &[
        f("rightlink", 0, 4, Kind::BlockNumber, Role::Special, "ginblock.h: GinPageOpaqueData.rightlink, next page if any"),
        f("maxoff", 4, 2, Kind::U16, Role::Special, "ginblock.h: GinPageOpaqueData.maxoff, number of PostingItems on GIN_DATA & ~GIN_LEAF page"),
        f("flags", 6, 2, Kind::Flags(GIN_FLAGS), Role::Special, "ginblock.h: GinPageOpaqueData.flags, GIN_DATA, GIN_LEAF, GIN_META ..."),
    ],
};

/// ginblock.h: GinMetaPageData, at PageGetContents of block 0.
pub const GIN_META_PAGE_DATA: Table = Table {
    name: "GinMetaPageData",
    size: 52,
    fields: &[
        f("head", 0, 4, Kind::BlockNumber, Role::Meta, "ginblock.h: GinMetaPageData.head, first page of the pending list"),
        f("tail", 4, 4, Kind::BlockNumber, Role::Meta, "ginblock.h: GinMetaPageData.tail, last page of the pending list"),
        f("tailFreeSize", 8, 4, Kind::U32, Role::Meta, "ginblock.h: GinMetaPageData.tailFreeSize, free space in bytes in the pending list's tail page"),
        f("nPendingPages", 12, 4, Kind::U32, Role::Meta, "ginblock.h: GinMetaPageData.nPendingPages, pages in the pending list"),
        f("nPendingHeapTuples", 16, 8, Kind::I64, Role::Meta, "ginblock.h: GinMetaPageData.nPendingHeapTuples, heap tuples in the pending list"),
        f("nTotalPages", 24, 4, Kind::U32, Role::Meta, "ginblock.h: GinMetaPageData.nTotalPages, statistics for the planner, updated by VACUUM"),
        f("nEntryPages", 28, 4, Kind::U32, Role::Meta, "ginblock.h: GinMetaPageData.nEntryPages, entry tree pages"),
        f("nDataPages", 32, 4, Kind::U32, Role::Meta, "ginblock.h: GinMetaPageData.nDataPages, posting tree pages"),
        f("nEntries", 40, 8, Kind::I64, Role::Meta, "ginblock.h: GinMetaPageData.nEntries, distinct keys"),
        f("ginVersion", 48, 4, Kind::I32, Role::Meta, "ginblock.h: GinMetaPageData.ginVersion, GIN_CURRENT_VERSION (2)"),
    ],
};

/// ginblock.h: GinPostingList, one compressed segment on a posting tree leaf page.
pub const GIN_POSTING_LIST: Table = Table {
    name: "GinPostingList",
    size: 8,
    fields: &[
        f(
            "first",
            0,
            6,
            Kind::Tid,
            Role::TupleHeader,
            "ginblock.h: GinPostingList.first, first item in this posting list (unpacked)",
        ),
        f(
            "nbytes",
            6,
            2,
            Kind::U16,
            Role::TupleHeader,
            "ginblock.h: GinPostingList.nbytes, number of bytes that follow",
        ),
    ],
};

/// ginblock.h: PostingItem, a downlink on a posting tree internal page.
pub const POSTING_ITEM: Table = Table {
    name: "PostingItem",
    size: 10,
    fields: &[
        f(
            "child_blkno",
            0,
            4,
            Kind::BlockNumber,
            Role::TupleData,
            "ginblock.h: PostingItem.child_blkno, BlockIdData of the child page",
        ),
        f(
            "key",
            4,
            6,
            Kind::Tid,
            Role::TupleData,
            "ginblock.h: PostingItem.key, high key of the child page",
        ),
    ],
};

// ---------------------------------------------------------------- spgist_private.h

/// spgist_private.h: SpGistPageOpaqueData flags bits.
pub const SPGIST_FLAGS: &[FlagName] = &[
    flag(1 << 0, "SPGIST_META"),
    flag(1 << 1, "SPGIST_DELETED"),
    flag(1 << 2, "SPGIST_LEAF"),
    flag(1 << 3, "SPGIST_NULLS"),
];

/// spgist_private.h: SpGistPageOpaqueData, the SP-GiST special space.
pub const SPGIST_PAGE_OPAQUE_DATA: Table = Table {
    name: "SpGistPageOpaqueData",
    size: 8,
    fields: &[
        f("flags", 0, 2, Kind::Flags(SPGIST_FLAGS), Role::Special, "spgist_private.h: SpGistPageOpaqueData.flags, SPGIST_META, SPGIST_LEAF, SPGIST_NULLS"),
        f("nRedirection", 2, 2, Kind::U16, Role::Special, "spgist_private.h: SpGistPageOpaqueData.nRedirection, number of redirection tuples on page"),
        f("nPlaceholder", 4, 2, Kind::U16, Role::Special, "spgist_private.h: SpGistPageOpaqueData.nPlaceholder, number of placeholder tuples on page"),
        f("spgist_page_id", 6, 2, Kind::Magic, Role::Special, "spgist_private.h: SpGistPageOpaqueData.spgist_page_id, SPGIST_PAGE_ID (0xFF82)"),
    ],
};

/// spgist_private.h: SpGistMetaPageData: magicNumber, then SPGIST_CACHED_PAGES (8)
/// SpGistLastUsedPage {blkno, freeSpace} entries.
pub const SPGIST_META_PAGE_DATA: Table = Table {
    name: "SpGistMetaPageData",
    size: 68,
    fields: &[
        f("magicNumber", 0, 4, Kind::Magic, Role::Meta, "spgist_private.h: SpGistMetaPageData.magicNumber, SPGIST_MAGIC_NUMBER (0xBA0BABEE)"),
        f("lastUsedPages", 4, 64, Kind::U32Array, Role::Meta, "spgist_private.h: SpGistMetaPageData.lastUsedPages, SpGistLUPCache of {blkno, freeSpace}"),
    ],
};

/// spgist_private.h: tupstate values.
pub const SPGIST_TUPSTATE: &[FlagName] = &[
    flag(0, "SPGIST_LIVE"),
    flag(1, "SPGIST_REDIRECT"),
    flag(2, "SPGIST_DEAD"),
    flag(3, "SPGIST_PLACEHOLDER"),
];

/// spgist_private.h: SpGistInnerTupleData; the prefix datum and nodes follow.
pub const SPGIST_INNER_TUPLE_DATA: Table = Table {
    name: "SpGistInnerTupleData",
    size: 6,
    fields: &[
        bits(
            "tupstate",
            0,
            2,
            Kind::Flags(SPGIST_TUPSTATE),
            Role::TupleHeader,
            "spgist_private.h: SpGistInnerTupleData.tupstate, LIVE/REDIRECT/DEAD/PLACEHOLDER",
        ),
        bits(
            "allTheSame",
            2,
            1,
            Kind::Bool,
            Role::TupleHeader,
            "spgist_private.h: SpGistInnerTupleData.allTheSame, all nodes in tuple are equivalent",
        ),
        bits(
            "nNodes",
            3,
            13,
            Kind::U16,
            Role::TupleHeader,
            "spgist_private.h: SpGistInnerTupleData.nNodes, number of nodes within inner tuple",
        ),
        bits(
            "prefixSize",
            16,
            16,
            Kind::U16,
            Role::TupleHeader,
            "spgist_private.h: SpGistInnerTupleData.prefixSize, size of prefix, or 0 if none",
        ),
        f(
            "size",
            4,
            2,
            Kind::U16,
            Role::TupleHeader,
            "spgist_private.h: SpGistInnerTupleData.size, total size of inner tuple",
        ),
    ],
};

/// spgist_private.h: SpGistLeafTupleData; a null bitmap and the leaf datum follow.
pub const SPGIST_LEAF_TUPLE_DATA: Table = Table {
    name: "SpGistLeafTupleData",
    size: 12,
    fields: &[
        bits("tupstate", 0, 2, Kind::Flags(SPGIST_TUPSTATE), Role::TupleHeader, "spgist_private.h: SpGistLeafTupleData.tupstate, LIVE/REDIRECT/DEAD/PLACEHOLDER"),
        bits("size", 2, 30, Kind::U32, Role::TupleHeader, "spgist_private.h: SpGistLeafTupleData.size, large enough for any palloc'able value"),
        f("t_info", 4, 2, Kind::U16, Role::TupleHeader, "spgist_private.h: SpGistLeafTupleData.t_info, nextOffset in the chain plus two flag bits"),
        f("heapPtr", 6, 6, Kind::Tid, Role::TupleHeader, "spgist_private.h: SpGistLeafTupleData.heapPtr, TID of represented heap tuple"),
    ],
};

/// spgist_private.h: SpGistDeadTupleData, a REDIRECT, DEAD or PLACEHOLDER tuple.
pub const SPGIST_DEAD_TUPLE_DATA: Table = Table {
    name: "SpGistDeadTupleData",
    size: 16,
    fields: &[
        bits(
            "tupstate",
            0,
            2,
            Kind::Flags(SPGIST_TUPSTATE),
            Role::TupleHeader,
            "spgist_private.h: SpGistDeadTupleData.tupstate, REDIRECT/DEAD/PLACEHOLDER",
        ),
        bits(
            "size",
            2,
            30,
            Kind::U32,
            Role::TupleHeader,
            "spgist_private.h: SpGistDeadTupleData.size",
        ),
        f(
            "t_info",
            4,
            2,
            Kind::U16,
            Role::TupleHeader,
            "spgist_private.h: SpGistDeadTupleData.t_info, not used in dead tuples",
        ),
        f(
            "pointer",
            6,
            6,
            Kind::Tid,
            Role::TupleHeader,
            "spgist_private.h: SpGistDeadTupleData.pointer, redirection inside index",
        ),
        f(
            "xid",
            12,
            4,
            Kind::Xid,
            Role::TupleHeader,
            "spgist_private.h: SpGistDeadTupleData.xid, ID of xact that inserted this tuple",
        ),
    ],
};

// ---------------------------------------------------------------- brin_page.h

/// brin_page.h: BrinSpecialSpace.vector[MAXALIGN(1)/sizeof(uint16)]: the page type is the
/// last element, the flags the one before it.
pub const BRIN_SPECIAL_SPACE: Table = Table {
    name: "BrinSpecialSpace",
    size: 8,
    fields: &[
        f("vector", 0, 4, Kind::Bytes, Role::Special, "brin_page.h: BrinSpecialSpace.vector[0..1], unused"),
        f("flags", 4, 2, Kind::Flags(&[flag(1, "BRIN_EVACUATE_PAGE")]), Role::Special, "brin_page.h: BrinSpecialSpace.vector[2] (BrinPageFlags), BRIN_EVACUATE_PAGE"),
        f("type", 6, 2, Kind::Magic, Role::Special, "brin_page.h: BrinSpecialSpace.vector[3] (BrinPageType), BRIN_PAGETYPE_META/REVMAP/REGULAR"),
    ],
};

/// brin_page.h: BrinMetaPageData, at PageGetContents of block 0.
pub const BRIN_META_PAGE_DATA: Table = Table {
    name: "BrinMetaPageData",
    size: 16,
    fields: &[
        f(
            "brinMagic",
            0,
            4,
            Kind::Magic,
            Role::Meta,
            "brin_page.h: BrinMetaPageData.brinMagic, BRIN_META_MAGIC (0xA8109CFA)",
        ),
        f(
            "brinVersion",
            4,
            4,
            Kind::U32,
            Role::Meta,
            "brin_page.h: BrinMetaPageData.brinVersion, BRIN_CURRENT_VERSION (1)",
        ),
        f(
            "pagesPerRange",
            8,
            4,
            Kind::BlockNumber,
            Role::Meta,
            "brin_page.h: BrinMetaPageData.pagesPerRange, heap blocks summarized per range",
        ),
        f(
            "lastRevmapPage",
            12,
            4,
            Kind::BlockNumber,
            Role::Meta,
            "brin_page.h: BrinMetaPageData.lastRevmapPage, last page of the range map",
        ),
    ],
};

/// brin_tuple.h: BrinTuple's fixed part; the null bitmap and data follow.
pub const BRIN_TUPLE: Table = Table {
    name: "BrinTuple",
    size: 5,
    fields: &[
        f("bt_blkno", 0, 4, Kind::BlockNumber, Role::TupleHeader, "brin_tuple.h: BrinTuple.bt_blkno, heap blkno that the tuple is for"),
        f("bt_info", 4, 1, Kind::U8, Role::TupleHeader, "brin_tuple.h: BrinTuple.bt_info, data offset | BRIN_PLACEHOLDER_MASK | BRIN_NULLS_MASK"),
    ],
};

// ---------------------------------------------------------------- sequence.c, fsm_internals.h, visibilitymapdefs.h

/// commands/sequence.c: sequence_magic, the special space of a sequence's page.
pub const SEQUENCE_MAGIC: Table = Table {
    name: "sequence_magic",
    size: 4,
    fields: &[f(
        "magic",
        0,
        4,
        Kind::Magic,
        Role::Special,
        "commands/sequence.c: sequence_magic.magic, SEQ_MAGIC (0x1717)",
    )],
};

/// commands/sequence.h: FormData_pg_sequence_data, the data (after t_hoff) of a sequence
/// page's one tuple.
pub const FORM_DATA_PG_SEQUENCE_DATA: Table = Table {
    name: "FormData_pg_sequence_data",
    size: 17,
    fields: &[
        f(
            "last_value",
            0,
            8,
            Kind::I64,
            Role::TupleData,
            "commands/sequence.h: FormData_pg_sequence_data.last_value",
        ),
        f(
            "log_cnt",
            8,
            8,
            Kind::I64,
            Role::TupleData,
            "commands/sequence.h: FormData_pg_sequence_data.log_cnt, values pre-logged in WAL",
        ),
        f(
            "is_called",
            16,
            1,
            Kind::Bool,
            Role::TupleData,
            "commands/sequence.h: FormData_pg_sequence_data.is_called",
        ),
    ],
};

/// storage/fsm_internals.h: FSMPageData at PageGetContents: fp_next_slot, then the binary
/// tree of one-byte free-space categories (NodesPerPage bytes).
pub const FSM_PAGE_DATA: Table = Table {
    name: "FSMPageData",
    size: 4,
    fields: &[f(
        "fp_next_slot",
        0,
        4,
        Kind::I32,
        Role::Map,
        "storage/fsm_internals.h: FSMPageData.fp_next_slot, next slot to return from search",
    )],
};

/// access/visibilitymapdefs.h: bits per heap block in the VM fork's bitmap.
pub const VM_FLAGS: &[FlagName] = &[
    flag(0x01, "VISIBILITYMAP_ALL_VISIBLE"),
    flag(0x02, "VISIBILITYMAP_ALL_FROZEN"),
];

/// Every table, for docs and the table tests.
pub const ALL_TABLES: &[&Table] = &[
    &PAGE_HEADER_DATA,
    &ITEM_ID_DATA,
    &HEAP_TUPLE_HEADER_DATA,
    &INDEX_TUPLE_DATA,
    &BT_PAGE_OPAQUE_DATA,
    &BT_META_PAGE_DATA,
    &BT_DELETED_PAGE_DATA,
    &HASH_PAGE_OPAQUE_DATA,
    &HASH_META_PAGE_DATA,
    &GIST_PAGE_OPAQUE_DATA,
    &GIN_PAGE_OPAQUE_DATA,
    &GIN_META_PAGE_DATA,
    &GIN_POSTING_LIST,
    &POSTING_ITEM,
    &SPGIST_PAGE_OPAQUE_DATA,
    &SPGIST_META_PAGE_DATA,
    &SPGIST_INNER_TUPLE_DATA,
    &SPGIST_LEAF_TUPLE_DATA,
    &SPGIST_DEAD_TUPLE_DATA,
    &BRIN_SPECIAL_SPACE,
    &BRIN_META_PAGE_DATA,
    &BRIN_TUPLE,
    &SEQUENCE_MAGIC,
    &FORM_DATA_PG_SEQUENCE_DATA,
    &FSM_PAGE_DATA,
];

/// The names of the flags set in `value`, in table order; bits with no name are left out.
pub fn flag_names(value: u32, names: &'static [FlagName]) -> impl Iterator<Item = &'static str> {
    names
        .iter()
        .filter(move |fl| fl.mask != 0 && value & fl.mask == fl.mask)
        .map(|fl| fl.name)
}

#[cfg(test)]
mod tests {
    #![allow(
        clippy::indexing_slicing,
        clippy::arithmetic_side_effects,
        clippy::unwrap_used
    )] // tests may panic

    use super::*;

    #[test]
    fn rows_are_sorted_disjoint_and_inside_the_structure() {
        for t in ALL_TABLES {
            let mut end = 0u16;
            let mut unit: Option<u16> = None;
            let mut bit_end = 0u8;
            for (i, fl) in t.fields.iter().enumerate() {
                match fl.bits {
                    Some(b) => {
                        if unit != Some(fl.offset) {
                            assert!(
                                fl.offset >= end,
                                "{}.{} overlaps or is out of order",
                                t.name,
                                fl.name
                            );
                            unit = Some(fl.offset);
                            bit_end = 0;
                        }
                        assert!(b.shift >= bit_end, "{}.{} bits overlap", t.name, fl.name);
                        bit_end = b.shift + b.width;
                        assert!(
                            usize::from(bit_end) <= usize::from(fl.size) * 8,
                            "{}.{}",
                            t.name,
                            fl.name
                        );
                    }
                    None => assert!(
                        fl.offset >= end,
                        "{}.{} overlaps or is out of order",
                        t.name,
                        fl.name
                    ),
                }
                end = end.max(fl.end());
                assert!(
                    fl.end() <= t.size,
                    "{}.{} ends past {} bytes",
                    t.name,
                    fl.name,
                    t.size
                );
                assert!(
                    fl.doc.contains(".h: ") || fl.doc.contains(".c: "),
                    "{}.{} doc cites no header",
                    t.name,
                    i
                );
            }
        }
    }

    #[test]
    fn header_covers_24_bytes_without_gaps() {
        let mut at = 0;
        for fl in PAGE_HEADER_DATA.fields {
            assert_eq!(fl.offset, at, "{} starts at {}", fl.name, fl.offset);
            at = fl.end();
        }
        assert_eq!(at, 24);
        assert_eq!(PAGE_HEADER_DATA.size, 24);
    }

    #[test]
    fn item_id_bits_fill_the_word() {
        let total: u32 = ITEM_ID_DATA
            .fields
            .iter()
            .filter_map(|f| f.bits)
            .map(|b| u32::from(b.width))
            .sum();
        assert_eq!(total, 32);
        let off = ITEM_ID_DATA.fields[0].bits.unwrap();
        assert_eq!(off.shift_for(32, crate::Endian::Big), 17);
        assert_eq!(off.mask(), 0x7FFF);
    }

    #[test]
    fn special_spaces_are_maxaligned_sizes() {
        for t in [
            &BT_PAGE_OPAQUE_DATA,
            &HASH_PAGE_OPAQUE_DATA,
            &GIST_PAGE_OPAQUE_DATA,
        ] {
            assert_eq!(t.size, 16, "{}", t.name);
        }
        for t in [
            &GIN_PAGE_OPAQUE_DATA,
            &SPGIST_PAGE_OPAQUE_DATA,
            &BRIN_SPECIAL_SPACE,
        ] {
            assert_eq!(t.size, 8, "{}", t.name);
        }
    }
}
