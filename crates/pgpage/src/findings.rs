//! The registry of findings: every problem pgpage reports about a page, a structure or a file,
//! each with its message, the PostgreSQL rule it mirrors (source file and function) and how
//! strong its evidence is. verify, decode, the CLI, the browser and the reports all name a
//! finding by its variant; none of them words a problem of its own.

use serde::Serialize;

/// How much a finding proves.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Evidence {
    /// The server itself decides it the same way (a checksum it recomputes, a header or a
    /// short read it refuses): the page cannot be read as it is.
    Server,
    /// Bytes PostgreSQL never writes (a structural rule the server or amcheck checks later).
    Structural,
    /// Two independent signs agree (a checksum valid for another block AND the page's own
    /// tuple ids naming that block).
    Corroborated,
    /// One weak sign that chance explains at stated odds (a bare 16-bit checksum match).
    Candidate,
    /// Not a problem: a fact about the file worth saying (checksums off in the cluster).
    Note,
}

/// Whose check a finding is, so that a label never sends a reader to a tool that has no such
/// check: a DBA who searches amcheck's messages or runs pg_amcheck finds amcheck's findings only.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Checker {
    /// The server decides it (a read it refuses, VACUUM's warnings, recovery's WAL checks).
    Server,
    /// amcheck (verify_heapam, bt_index_check, gin_index_check) checks it, in these words.
    Amcheck,
    /// pgpage's own: no PostgreSQL tool checks it this way (the rule it cites is the one it
    /// reasons from).
    Pgpage,
}

/// Where PostgreSQL makes the same decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Rule {
    /// Path in PostgreSQL's source tree, `src/` left out.
    pub file: &'static str,
    pub function: &'static str,
}

macro_rules! findings {
    ($( $(#[$doc:meta])* $variant:ident => $code:literal, $evidence:ident, $file:literal, $function:literal, $message:literal; )*) => {
        /// Every finding pgpage reports. Fieldless, so it crosses the wasm boundary as a
        /// small code; what a finding is about (the block, the other block) travels beside it.
        #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
        #[serde(rename_all = "snake_case")]
        #[repr(u16)]
        pub enum Finding {
            $( $(#[$doc])* $variant, )*
        }

        impl Finding {
            pub const ALL: &'static [Finding] = &[ $( Finding::$variant, )* ];

            /// A stable name for JSON and tests.
            pub fn code(self) -> &'static str {
                match self { $( Finding::$variant => $code, )* }
            }

            /// One line, in PostgreSQL's words where the server or amcheck has them.
            pub fn message(self) -> &'static str {
                match self { $( Finding::$variant => $message, )* }
            }

            /// The message where nothing fills its printf placeholders (a finding shown
            /// beside the bytes it marks, whose values are on screen already): each `%u`,
            /// `%d`, `%zu`, `%s` or `%m` reads "…" instead of a raw format.
            pub fn message_unvalued(self) -> alloc::string::String {
                unvalued(self.message())
            }

            /// The message with `values` in its numeric conversions, in order: the whole
            /// line amcheck or the server prints.
            pub fn valued(self, values: &Values) -> alloc::string::String {
                fill(&self.wording(values), values.as_slice())
            }

            pub fn rule(self) -> Rule {
                match self { $( Finding::$variant => Rule { file: $file, function: $function }, )* }
            }

            pub fn evidence(self) -> Evidence {
                match self { $( Finding::$variant => Evidence::$evidence, )* }
            }
        }
    };
}

/// The numbers a finding's message prints, in the order of its printf conversions, carried
/// beside the finding by the check that makes it. Four at most: amcheck's messages have no more.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Values {
    len: u8,
    v: [u32; 4],
}

impl Values {
    /// The first four of `values`.
    pub fn new(values: &[u32]) -> Values {
        let mut v = [0u32; 4];
        for (slot, x) in v.iter_mut().zip(values) {
            *slot = *x;
        }
        Values {
            len: u8::try_from(values.len().min(4)).unwrap_or(4),
            v,
        }
    }

    pub fn as_slice(&self) -> &[u32] {
        self.v.get(..usize::from(self.len)).unwrap_or_default()
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Serialize for Values {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.as_slice())
    }
}

impl Finding {
    /// Whose check this is: amcheck's where its rule is amcheck's and the words are its own,
    /// pgpage's for the checks listed here, the server's otherwise.
    pub fn checker(self) -> Checker {
        use Finding::*;
        match self {
            FileWrittenAsSegment
            | FileWrittenAtOffset
            | MisplacedByTupleIds
            | MisplacedBySiblingLinks
            | ChecksumMatchesOtherBlock
            | ChecksumBitFlipCandidate
            | ChecksumsDisabled
            | ZeroPageBetweenRows
            | HeapTidOtherBlock
            | SpanPastPage
            | SpanOverlap
            | HeaderLowerBelowHeader
            | HeaderPageSizeVersion
            | LinePointersPastPage
            | ItemsOverlapFar
            | LpUnusedWithStorage
            | LpNormalWithoutStorage
            | ItemOutsideUpperSpecial
            | HeapItemNotTuple
            | HeapHoffInvalid
            | HeapNullBitmapPastHoff
            | HeapHasSpecial
            | GinSegmentPastLower
            | KindFromFile
            | VmFrozenWithoutVisible
            | PageFlagWithoutVmBit
            | FsmMoreThanFree
            | TornSectors
            | AttributeLengthInvalid
            | VarlenaSizeInvalid
            | TupleBytesLeftOver
            | TupleAttributesFewer
            | ValueInvalid
            | BtreeOrderNotChecked
            | GinEntryOrderNotChecked
            | ToastRelationMissing
            | WalVersionUnsupported
            | WalSegmentStale
            | WalEndsInsideRecord
            | WalTimelineHistoryMissing
            | WalTimelineAbandoned => Checker::Pgpage,
            _ if self.rule().file.starts_with("contrib/amcheck/") => Checker::Amcheck,
            _ => Checker::Server,
        }
    }

    /// The HINT line the server prints after the finding's ERROR, where it prints one.
    pub fn server_hint(self) -> Option<&'static str> {
        match self {
            Finding::BtreeUnexpectedZeroPage => Some("Please REINDEX it."),
            _ => None,
        }
    }

    /// The message as the check words it for these values, where its wording depends on
    /// them: check_tuple_header's t_hoff message has four (values: expected t_hoff, t_hoff,
    /// natts, and 1 when HEAP_HASNULL is set); a redirect out of range or an item past the
    /// page, given their numbers, read as verify_heapam prints them (the registry's words
    /// cover the findings' other causes, which amcheck does not check).
    fn wording(self, values: &Values) -> alloc::borrow::Cow<'static, str> {
        match (self, values.as_slice()) {
            (Finding::HeapHoffUnexpected, [_, _, natts, nulls]) => {
                let nulls = if *nulls != 0 { "has nulls" } else { "no nulls" };
                let atts = if *natts == 1 {
                    "1 attribute"
                } else {
                    "%u attributes"
                };
                alloc::borrow::Cow::Owned(alloc::format!(
                    "tuple data should begin at byte %u, but actually begins at byte %u ({atts}, {nulls})"
                ))
            }
            // verify_heapam words a redirect out of range by the bound it passes.
            (Finding::LpRedirectOutOfRange, [target, bound]) => {
                alloc::borrow::Cow::Borrowed(if target < bound {
                    "line pointer redirection to item at offset %u precedes minimum offset %u"
                } else {
                    "line pointer redirection to item at offset %u exceeds maximum offset %u"
                })
            }
            // amcheck 19 (PG_CONTROL_VERSION 1900 on) puts the maximum before "expected".
            (Finding::HeapNattsExceedsRelnatts, [_, _, control]) if *control >= 1900 => {
                alloc::borrow::Cow::Borrowed(
                    "number of attributes %u exceeds maximum %u expected for table",
                )
            }
            (Finding::ItemPastPage, [_, _, _]) => alloc::borrow::Cow::Borrowed(
                "line pointer to page offset %u with length %u ends beyond maximum page offset %u",
            ),
            _ => alloc::borrow::Cow::Borrowed(self.message()),
        }
    }
}

/// `message` with its numeric conversions (`%u`, `%d`, `%X`) replaced by `values` in order;
/// conversions past the values, `%s`, and the page's own place ("block %u", "page %u",
/// which the caller knows) stay as they are for the caller to fill.
fn fill(message: &str, values: &[u32]) -> alloc::string::String {
    use core::fmt::Write;
    let mut out = alloc::string::String::with_capacity(message.len().saturating_add(16));
    let mut rest = message;
    let mut next = values.iter();
    while let Some(at) = rest.find('%') {
        out.push_str(rest.get(..at).unwrap_or_default());
        let after = rest.get(at.saturating_add(1)..).unwrap_or_default();
        let spec = ["u", "d", "X"].into_iter().find(|c| after.starts_with(c));
        let place = out.ends_with("block ") || out.ends_with("page ");
        match spec.filter(|_| !place).zip(next.clone().next()) {
            Some((c, v)) => {
                next.next();
                let _ = if c == "X" {
                    write!(out, "{v:X}")
                } else {
                    write!(out, "{v}")
                };
                rest = after.get(c.len()..).unwrap_or_default();
            }
            None => {
                out.push('%');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `message` with its printf conversions (`%u`, `%d`, `%zu`, `%s`, `%m`, `%X`) as "…".
fn unvalued(message: &str) -> alloc::string::String {
    let mut out = alloc::string::String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find('%') {
        out.push_str(rest.get(..at).unwrap_or_default());
        let after = rest.get(at.saturating_add(1)..).unwrap_or_default();
        let spec = ["zu", "u", "d", "s", "m", "X"]
            .into_iter()
            .find(|c| after.starts_with(c));
        match spec {
            Some(c) => {
                out.push('…');
                rest = after.get(c.len()..).unwrap_or_default();
            }
            None => {
                out.push('%');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

findings! {
    /// The stored pd_checksum differs from pg_checksum_page's.
    ChecksumMismatch => "checksum_mismatch", Server,
        "backend/storage/page/bufpage.c", "PageIsVerified",
        "page verification failed: the stored checksum differs from the computed one";
    /// pd_upper is 0 but the page is not all zeros.
    NewPageNotZero => "new_page_not_zero", Server,
        "backend/storage/page/bufpage.c", "PageIsVerified",
        "pd_upper is 0 (a new page) but the page is not all zeros: the server rejects it";
    /// pd_flags has bits outside PD_VALID_FLAG_BITS.
    HeaderFlagsInvalid => "header_flags_invalid", Server,
        "backend/storage/page/bufpage.c", "PageIsVerified",
        "pd_flags has bits outside PD_VALID_FLAG_BITS";
    /// pd_lower > pd_upper.
    HeaderLowerAboveUpper => "header_lower_above_upper", Server,
        "backend/storage/page/bufpage.c", "PageIsVerified",
        "pd_lower is above pd_upper";
    /// pd_upper > pd_special.
    HeaderUpperAboveSpecial => "header_upper_above_special", Server,
        "backend/storage/page/bufpage.c", "PageIsVerified",
        "pd_upper is above pd_special";
    /// pd_special past the block size.
    HeaderSpecialPastPage => "header_special_past_page", Server,
        "backend/storage/page/bufpage.c", "PageIsVerified",
        "pd_special is past the end of the page";
    /// pd_special not MAXALIGNed.
    HeaderSpecialNotAligned => "header_special_not_aligned", Server,
        "backend/storage/page/bufpage.c", "PageIsVerified",
        "pd_special is not MAXALIGNed";

    // ---- File verdicts (verify.rs header_check, scan.rs): short reads, checksums off,
    // misplaced pages and files, heap tuple ids. ----
    /// A page shorter than PageHeaderData: the server never reads one (mdread fails first).
    HeaderIncomplete => "header_incomplete", Server,
        "include/storage/bufpage.h", "SizeOfPageHeaderData",
        "the page is shorter than its 24-byte header";
    /// Bytes past the last whole page: the server's read of that block comes up short.
    /// PostgreSQL 17 and later word it "could not read blocks N..N in file ...: read only K
    /// of BLCKSZ bytes" (mdreadv).
    ReadShort => "read_short", Server,
        "backend/storage/smgr/md.c", "mdread",
        "could not read block %u in file \"%s\": read only %d of %d bytes";
    /// Data checksums are off (pg_control says so, or no page of the file stores one): only
    /// PageIsVerified's header checks and structural findings count.
    ChecksumsDisabled => "checksums_disabled", Note,
        "backend/storage/page/bufpage.c", "PageIsVerifiedExtended",
        "data checksums are disabled: pages are checked by their header only";
    /// Pages of the file verify as another segment of the relation: a misnamed or misplaced
    /// segment file. Several pages agree on the same shift, which chance does not explain.
    FileWrittenAsSegment => "file_written_as_segment", Corroborated,
        "backend/storage/smgr/md.c", "_mdfd_segpath",
        "these pages were written as segment %u of the relation";
    /// Pages of the file verify at a fixed offset from their position (a file copied into
    /// another one at an offset, or cut at its start).
    FileWrittenAtOffset => "file_written_at_offset", Corroborated,
        "backend/storage/page/checksum.c", "pg_checksum_page",
        "these pages were written as relation blocks %u and on";
    /// The stored checksum is valid for block B and the page's own heap tuples (t_ctid
    /// pointing at themselves) name block B.
    MisplacedByTupleIds => "misplaced_by_tuple_ids", Corroborated,
        "backend/access/heap/hio.c", "RelationPutHeapTuple",
        "this page was written as block %u: its checksum is valid there and its tuples' t_ctid name it";
    /// The stored checksum is valid for block B and the btree sibling links agree: the left
    /// sibling's btpo_next or the right sibling's btpo_prev is B.
    MisplacedBySiblingLinks => "misplaced_by_sibling_links", Corroborated,
        "contrib/amcheck/verify_nbtree.c", "bt_recheck_sibling_links",
        "this page was written as block %u: its checksum is valid there and its siblings' links name it";
    /// The stored checksum is valid for another block of the searched range, and nothing
    /// else says so: a 16-bit checksum matches about one block in 65,535 by chance.
    ChecksumMatchesOtherBlock => "checksum_matches_other_block", Candidate,
        "backend/storage/page/checksum.c", "pg_checksum_page",
        "the stored checksum is also valid for block %u, which chance explains at the stated odds";
    /// A heap page whose own tuples (t_ctid pointing at themselves, never updated) name
    /// another block than the one the page sits at: a torn or misplaced page.
    HeapTidOtherBlock => "heap_tid_other_block", Structural,
        "backend/access/heap/hio.c", "RelationPutHeapTuple",
        "the page's tuples name block %u in their t_ctid, not the block the page is at";

    // ---- First screen: pages the server accepts that still cost rows. ----
    /// An all-zero page before a later heap page with line pointers, in the same file:
    /// PageIsVerified accepts it as a new page (PageIsNew), so its rows, if it held any, are
    /// gone without an error. Relation extension leaves such pages too, hence a note.
    ZeroPageBetweenRows => "zero_page_between_rows", Note,
        "backend/storage/page/bufpage.c", "PageIsVerified",
        "all-zero page between pages with rows: the server reads it as an empty new page, without an error; relation extension leaves such pages (several at a time under concurrent inserts and bulk loads, more from PostgreSQL 16 on), and then nothing is lost, but otherwise rows stored there would be gone: the table's indexes tell which (pgpage report), and a backup or WAL image may hold them";

    // ---- decode: a page's structures (line pointers, tuples, special spaces) -------------
    /// A structure the decoder laid out runs past the page's last byte.
    SpanPastPage => "span_past_page", Structural,
        "include/storage/bufpage.h", "PageGetItem",
        "the structure runs past the end of the page";
    /// Two structures claim the same bytes (tuples overlapping each other or the header).
    SpanOverlap => "span_overlap", Structural,
        "backend/storage/page/bufpage.c", "PageRepairFragmentation",
        "corrupted line pointer: the item overlaps another structure";
    /// pd_lower is below the page header (PageIsVerified tests only pd_lower <= pd_upper).
    HeaderLowerBelowHeader => "header_lower_below_header", Structural,
        "include/storage/bufpage.h", "PageGetMaxOffsetNumber",
        "pd_lower is below the end of the page header";
    /// pd_pagesize_version does not say the page's own size and layout version 4.
    HeaderPageSizeVersion => "header_pagesize_version", Structural,
        "include/storage/bufpage.h", "PageGetPageSize",
        "pd_pagesize_version differs from the page's size or layout version 4";
    /// pd_lower counts line pointers past the page's end; pageinspect reads them there (beyond
    /// the page), pgpage stops at the end.
    LinePointersPastPage => "line_pointers_past_page", Structural,
        "include/storage/bufpage.h", "PageGetMaxOffsetNumber",
        "pd_lower counts line pointers past the end of the page: only those within it are listed";
    /// Garbage line pointers point at the same bytes again and again.
    ItemsOverlapFar => "items_overlap_far", Structural,
        "backend/storage/page/bufpage.c", "PageRepairFragmentation",
        "items overlap far beyond the page: this and later items are not decoded";
    /// ItemIdSetUnused clears lp_off and lp_len.
    LpUnusedWithStorage => "lp_unused_with_storage", Structural,
        "include/storage/itemid.h", "ItemIdSetUnused",
        "line pointer is LP_UNUSED but has an offset or a length";
    /// An LP_NORMAL line pointer always has storage.
    LpNormalWithoutStorage => "lp_normal_without_storage", Structural,
        "include/storage/itemid.h", "ItemIdHasStorage",
        "line pointer is LP_NORMAL but has no length";
    /// A redirect names no line pointer of the page.
    LpRedirectOutOfRange => "lp_redirect_out_of_range", Structural,
        "contrib/amcheck/verify_heapam.c", "verify_heapam",
        "line pointer redirection to item at offset that precedes minimum offset or exceeds maximum offset";
    /// lp_off + lp_len past the page.
    ItemPastPage => "item_past_page", Structural,
        "contrib/amcheck/verify_heapam.c", "verify_heapam",
        "line pointer to page offset with length ends beyond maximum page offset";
    /// The item lies outside pd_upper..pd_special, where items are stored.
    ItemOutsideUpperSpecial => "item_outside_upper_special", Structural,
        "backend/storage/page/bufpage.c", "PageIndexTupleDelete",
        "corrupted line pointer: the item lies outside pd_upper..pd_special";
    /// heap_page_items shows no tuple columns for it (lp_off not MAXALIGNed, lp_len below a
    /// tuple header, or past the page).
    HeapItemNotTuple => "heap_item_not_tuple", Structural,
        "contrib/amcheck/verify_heapam.c", "verify_heapam",
        "line pointer to page offset is not maximally aligned, or its length is less than the minimum tuple header size";
    /// t_hoff below SizeofHeapTupleHeader, past lp_len or not MAXALIGNed.
    HeapHoffInvalid => "heap_hoff_invalid", Structural,
        "contrib/amcheck/verify_heapam.c", "check_tuple_header",
        "data begins at offset beyond the tuple length, or tuple data does not begin where t_hoff should say";
    /// The null bitmap t_infomask2's natts needs does not end by t_hoff.
    HeapNullBitmapPastHoff => "heap_null_bitmap_past_hoff", Structural,
        "contrib/amcheck/verify_heapam.c", "check_tuple_header",
        "tuple data should begin after the null bitmap, but t_hoff is before its end";
    /// Heap pages are PageInit'ed with no special space.
    HeapHasSpecial => "heap_has_special", Structural,
        "backend/access/heap/hio.c", "RelationGetBufferForTuple",
        "pd_special leaves a special space, which heap pages do not have";
    /// The special space is not the access method's opaque data size (_bt_checkpage,
    /// _hash_checkpage, gistcheckpage and verify_gin.c's check_index_page check it alike, in
    /// these words; SP-GiST and BRIN read on and fail later, in other words).
    SpecialSizeWrong => "special_size_wrong", Server,
        "backend/access/nbtree/nbtpage.c", "_bt_checkpage",
        "index \"%s\" contains corrupted page at block %u";
    /// The metapage magic is not the access method's.
    MetaMagicWrong => "meta_magic_wrong", Server,
        "backend/access/nbtree/nbtpage.c", "_bt_getmeta",
        "index is not of its access method: the metapage's magic number is wrong";
    /// sequence_magic is not SEQ_MAGIC.
    SequenceMagicWrong => "sequence_magic_wrong", Server,
        "backend/commands/sequence.c", "read_seq_tuple",
        "bad magic number in sequence";
    /// IndexTupleSize does not fit the tuple's own layout.
    IndexTupleSizeWrong => "index_tuple_size_wrong", Structural,
        "contrib/amcheck/verify_nbtree.c", "bt_target_page_check",
        "index tuple size does not equal lp_len";
    /// nbtree never leaves a line pointer LP_UNUSED.
    BtreeLpInvalid => "btree_lp_invalid", Structural,
        "contrib/amcheck/verify_nbtree.c", "PageGetItemIdCareful",
        "invalid line pointer storage in index";
    /// A compressed posting list segment runs past pd_lower.
    GinSegmentPastLower => "gin_segment_past_lower", Structural,
        "include/access/ginblock.h", "GinDataLeafPageGetPostingListSize",
        "posting list segment runs past pd_lower";
    /// The page does not say its kind (a new page with tuples, garbage special space); it is
    /// decoded as the kind of its file.
    KindFromFile => "kind_from_file", Note,
        "include/storage/bufpage.h", "PageIsNew",
        "the page does not show its kind: decoded as its file's kind";

    // ---- structure: amcheck's checks of one page, made offline ----------------------------
    // verify_heapam's per-page checks (PostgreSQL 14 on; the HOT chain ones 16 on), in its
    // words of 16-18 (the 14 and 15 wording, where it differs, in the row's doc).
    /// verify_heapam: lp_off of an LP_NORMAL line pointer is not MAXALIGNed.
    HeapLpNotMaxaligned => "heap_lp_not_maxaligned", Structural,
        "contrib/amcheck/verify_heapam.c", "verify_heapam",
        "line pointer to page offset %u is not maximally aligned";
    /// verify_heapam: lp_len below MAXALIGN(SizeofHeapTupleHeader).
    HeapLpTooShort => "heap_lp_too_short", Structural,
        "contrib/amcheck/verify_heapam.c", "verify_heapam",
        "line pointer length %u is less than the minimum tuple header size %u";
    /// verify_heapam: a redirect to an LP_UNUSED line pointer (14, 15: "line pointer
    /// redirection to unused item at offset %u").
    HeapRedirectToUnused => "heap_redirect_to_unused", Structural,
        "contrib/amcheck/verify_heapam.c", "verify_heapam",
        "redirected line pointer points to an unused item at offset %u";
    /// verify_heapam (16 on): a redirect to an LP_DEAD line pointer.
    HeapRedirectToDead => "heap_redirect_to_dead", Structural,
        "contrib/amcheck/verify_heapam.c", "verify_heapam",
        "redirected line pointer points to a dead item at offset %u";
    /// verify_heapam (16 on): a redirect to another redirect.
    HeapRedirectToRedirect => "heap_redirect_to_redirect", Structural,
        "contrib/amcheck/verify_heapam.c", "verify_heapam",
        "redirected line pointer points to another redirected line pointer at offset %u";
    /// verify_heapam (16 on): a redirect to a tuple without HEAP_ONLY_TUPLE.
    HeapRedirectToNonHeapOnly => "heap_redirect_to_non_heap_only", Structural,
        "contrib/amcheck/verify_heapam.c", "verify_heapam",
        "redirected line pointer points to a non-heap-only tuple at offset %u";
    /// verify_heapam (16 on): two HOT chain members point at the same tuple, one a redirect.
    HeapRedirectIntersect => "heap_redirect_intersect", Structural,
        "contrib/amcheck/verify_heapam.c", "verify_heapam",
        "redirect line pointer points to offset %u, but offset %u also points there";
    /// verify_heapam (16 on): two tuples' t_ctid (xmax = the next xmin) name the same tuple.
    HeapUpdateIntersect => "heap_update_intersect", Structural,
        "contrib/amcheck/verify_heapam.c", "verify_heapam",
        "tuple points to new version at offset %u, but offset %u also points there";
    /// verify_heapam (16 on): an update without HEAP_HOT_UPDATED made a heap-only tuple.
    HeapNonHotUpdateMadeHeapOnly => "heap_non_hot_update_made_heap_only", Structural,
        "contrib/amcheck/verify_heapam.c", "verify_heapam",
        "non-heap-only update produced a heap-only tuple at offset %u";
    /// verify_heapam (16 on): a HEAP_HOT_UPDATED tuple's new version is not heap-only.
    HeapHotUpdateMadeNonHeapOnly => "heap_hot_update_made_non_heap_only", Structural,
        "contrib/amcheck/verify_heapam.c", "verify_heapam",
        "heap-only update produced a non-heap only tuple at offset %u";
    /// verify_heapam (16 on): a committed heap-only tuple nothing on the page leads to. Judged
    /// only when the hint bits say xmin committed (or frozen): without pg_xact the status of
    /// an unhinted xmin is not known here.
    HeapRootIsHeapOnly => "heap_root_is_heap_only", Structural,
        "contrib/amcheck/verify_heapam.c", "verify_heapam",
        "tuple is root of chain but is marked as heap-only tuple";
    /// check_tuple_header: t_hoff past lp_len.
    HeapHoffPastLength => "heap_hoff_past_length", Structural,
        "contrib/amcheck/verify_heapam.c", "check_tuple_header",
        "data begins at offset %u beyond the tuple length %u";
    /// check_tuple_header: t_hoff is not MAXALIGN(SizeofHeapTupleHeader + BITMAPLEN(natts))
    /// (without the bitmap when HEAP_HASNULL is clear). amcheck's four wordings differ only
    /// by "1 attribute"/"%u attributes" and "has nulls"/"no nulls".
    HeapHoffUnexpected => "heap_hoff_unexpected", Structural,
        "contrib/amcheck/verify_heapam.c", "check_tuple_header",
        "tuple data should begin at byte %u, but actually begins at byte %u (%u attributes, has nulls)";
    /// check_tuple_header: HEAP_XMAX_COMMITTED with HEAP_XMAX_IS_MULTI.
    HeapMultixactCommitted => "heap_multixact_committed", Structural,
        "contrib/amcheck/verify_heapam.c", "check_tuple_header",
        "multixact should not be marked committed";
    /// check_tuple_header (16 on): HeapTupleHeaderIsHotUpdated with no update xid. Not judged
    /// when xmax is a MultiXactId whose update xid only pg_multixact holds.
    HeapHotUpdatedXmaxInvalid => "heap_hot_updated_xmax_invalid", Structural,
        "contrib/amcheck/verify_heapam.c", "check_tuple_header",
        "tuple has been HOT updated, but xmax is 0";
    /// check_tuple_header (16 on): HEAP_ONLY_TUPLE without HEAP_UPDATED.
    HeapOnlyNotUpdated => "heap_only_not_updated", Structural,
        "contrib/amcheck/verify_heapam.c", "check_tuple_header",
        "tuple is heap only, but not the result of an update";
    /// check_tuple_visibility: HEAP_XMAX_IS_MULTI with xmax InvalidMultiXactId (0), on a
    /// tuple whose hint bits say its xmin committed (amcheck looks at xmax only then).
    HeapMultiXactInvalid => "heap_multixact_invalid", Structural,
        "contrib/amcheck/verify_heapam.c", "check_tuple_visibility",
        "multitransaction ID is invalid";

    // ---- verify_heapam's checks that need more than the page (the catalogs, pg_control) -----
    // Judged only with a heap-check context (am::heap::check::HeapContext: pg_class's row,
    // pg_control's checkpoint, pg_xact), i.e. from a data directory. 14-18 word them alike.
    /// check_tuple: t_infomask2's attribute count above pg_class.relnatts on a tuple whose
    /// inserter committed.
    HeapNattsExceedsRelnatts => "heap_natts_exceeds_relnatts", Structural,
        "contrib/amcheck/verify_heapam.c", "check_tuple",
        "number of attributes %u exceeds maximum expected for table %u";
    /// check_tuple_visibility: xmin at or past the checkpoint's nextXid.
    HeapXminInFuture => "heap_xmin_in_future", Structural,
        "contrib/amcheck/verify_heapam.c", "check_tuple_visibility",
        "xmin %u equals or exceeds next valid transaction ID %u:%u";
    /// check_tuple_visibility: xmin before the cluster's oldestXid: pg_xact no longer has its
    /// status (the server's "could not access status of transaction %u").
    HeapXminBeforeOldest => "heap_xmin_before_oldest", Structural,
        "contrib/amcheck/verify_heapam.c", "check_tuple_visibility",
        "xmin %u precedes oldest valid transaction ID %u:%u";
    /// check_tuple_visibility: an unfrozen xmin before pg_class.relfrozenxid (VACUUM's "found
    /// xmin %u from before relfrozenxid %u").
    HeapXminBeforeRelfrozenxid => "heap_xmin_before_relfrozenxid", Structural,
        "contrib/amcheck/verify_heapam.c", "check_tuple_visibility",
        "xmin %u precedes relation freeze threshold %u:%u";
    /// check_tuple_visibility: a plain xmax at or past nextXid.
    HeapXmaxInFuture => "heap_xmax_in_future", Structural,
        "contrib/amcheck/verify_heapam.c", "check_tuple_visibility",
        "xmax %u equals or exceeds next valid transaction ID %u:%u";
    /// check_tuple_visibility: a plain xmax before oldestXid.
    HeapXmaxBeforeOldest => "heap_xmax_before_oldest", Structural,
        "contrib/amcheck/verify_heapam.c", "check_tuple_visibility",
        "xmax %u precedes oldest valid transaction ID %u:%u";
    /// check_tuple_visibility: a plain xmax before relfrozenxid.
    HeapXmaxBeforeRelfrozenxid => "heap_xmax_before_relfrozenxid", Structural,
        "contrib/amcheck/verify_heapam.c", "check_tuple_visibility",
        "xmax %u precedes relation freeze threshold %u:%u";
    /// check_mxid_in_range: a MultiXactId xmax before pg_class.relminmxid.
    HeapMultiBeforeRelminmxid => "heap_multi_before_relminmxid", Structural,
        "contrib/amcheck/verify_heapam.c", "check_tuple_visibility",
        "multitransaction ID %u precedes relation minimum multitransaction ID threshold %u";
    /// check_mxid_in_range: a MultiXactId xmax before the checkpoint's oldestMulti.
    HeapMultiBeforeOldest => "heap_multi_before_oldest", Structural,
        "contrib/amcheck/verify_heapam.c", "check_tuple_visibility",
        "multitransaction ID %u precedes oldest valid multitransaction ID threshold %u";
    /// check_mxid_in_range: a MultiXactId xmax at or past the checkpoint's nextMulti.
    HeapMultiInFuture => "heap_multi_in_future", Structural,
        "contrib/amcheck/verify_heapam.c", "check_tuple_visibility",
        "multitransaction ID %u equals or exceeds next valid multitransaction ID %u";
    /// check_tuple_visibility: a MultiXactId xmax, not lock-only, without an updating member.
    HeapUpdateXidInvalid => "heap_update_xid_invalid", Structural,
        "contrib/amcheck/verify_heapam.c", "check_tuple_visibility",
        "update xid is invalid";
    /// check_tuple_visibility: the MultiXactId's update xid at or past nextXid.
    HeapUpdateXidInFuture => "heap_update_xid_in_future", Structural,
        "contrib/amcheck/verify_heapam.c", "check_tuple_visibility",
        "update xid %u equals or exceeds next valid transaction ID %u:%u";
    /// check_tuple_visibility: the MultiXactId's update xid before oldestXid.
    HeapUpdateXidBeforeOldest => "heap_update_xid_before_oldest", Structural,
        "contrib/amcheck/verify_heapam.c", "check_tuple_visibility",
        "update xid %u precedes oldest valid transaction ID %u:%u";
    /// check_tuple_visibility: the MultiXactId's update xid before relfrozenxid.
    HeapUpdateXidBeforeRelfrozenxid => "heap_update_xid_before_relfrozenxid", Structural,
        "contrib/amcheck/verify_heapam.c", "check_tuple_visibility",
        "update xid %u precedes relation freeze threshold %u:%u";

    // verify_nbtree's checks (bt_index_check, bt_index_parent_check), 13-18 alike; "%s" is
    // the index's name, which a file does not carry.
    /// palloc_btree_page: a leaf page (not deleted) whose btpo_level is not 0.
    BtreeLeafLevelInvalid => "btree_leaf_level_invalid", Structural,
        "contrib/amcheck/verify_nbtree.c", "palloc_btree_page",
        "invalid leaf page level %u for block %u in index \"%s\"";
    /// palloc_btree_page: an internal page (not deleted) at level 0.
    BtreeInternalLevelZero => "btree_internal_level_zero", Structural,
        "contrib/amcheck/verify_nbtree.c", "palloc_btree_page",
        "invalid internal page level 0 for block %u in index \"%s\"";
    /// palloc_btree_page: more line pointers than MaxIndexTuplesPerPage.
    BtreeTooManyItems => "btree_too_many_items", Structural,
        "contrib/amcheck/verify_nbtree.c", "palloc_btree_page",
        "Number of items on block %u of index \"%s\" exceeds MaxIndexTuplesPerPage (%u)";
    /// palloc_btree_page: a non-rightmost leaf without its high key.
    BtreeLeafLacksHighKey => "btree_leaf_lacks_high_key", Structural,
        "contrib/amcheck/verify_nbtree.c", "palloc_btree_page",
        "non-rightmost leaf block %u in index \"%s\" lacks high key item";
    /// palloc_btree_page: an internal page without its high key or a downlink.
    BtreeInternalLacksDownlink => "btree_internal_lacks_downlink", Structural,
        "contrib/amcheck/verify_nbtree.c", "palloc_btree_page",
        "internal block %u in index \"%s\" lacks high key and/or at least one downlink";
    /// palloc_btree_page: an internal page marked BTP_HALF_DEAD (only leaves are, since 9.4).
    BtreeInternalHalfDead => "btree_internal_half_dead", Structural,
        "contrib/amcheck/verify_nbtree.c", "palloc_btree_page",
        "internal page block %u in index \"%s\" is half-dead";
    /// palloc_btree_page (14 on): BTP_HAS_FULLXID on a page that is not deleted.
    BtreeFullXidNotDeleted => "btree_full_xid_not_deleted", Structural,
        "contrib/amcheck/verify_nbtree.c", "palloc_btree_page",
        "full transaction id page flag appears in non-deleted block %u in index \"%s\"";
    /// palloc_btree_page (14 on): a deleted page also marked half-dead.
    BtreeDeletedHalfDead => "btree_deleted_half_dead", Structural,
        "contrib/amcheck/verify_nbtree.c", "palloc_btree_page",
        "deleted page block %u in index \"%s\" is half-dead";
    /// bt_target_page_check: a posting list's heap TIDs are not strictly ascending.
    BtreePostingMisplacedTid => "btree_posting_misplaced_tid", Structural,
        "contrib/amcheck/verify_nbtree.c", "bt_target_page_check",
        "posting list contains misplaced TID in index \"%s\"";
    /// bt_target_page_check: an item is not below the next one (key, then heap TID), by the
    /// key types the caller gave (ascending opclasses; text compared as under C collation).
    BtreeItemOrder => "btree_item_order", Structural,
        "contrib/amcheck/verify_nbtree.c", "bt_target_page_check",
        "item order invariant violated for index \"%s\"";
    /// bt_target_page_check: an item above the page's high key (on internal pages, not below).
    BtreeHighKey => "btree_high_key", Structural,
        "contrib/amcheck/verify_nbtree.c", "bt_target_page_check",
        "high key invariant violated for index \"%s\"";
    /// The key types are not known (or a key is compressed, or the page is big-endian): the
    /// item order and high key are not checked rather than guessed.
    BtreeOrderNotChecked => "btree_order_not_checked", Note,
        "contrib/amcheck/verify_nbtree.c", "bt_target_page_check",
        "the item order and high key are not checked: the index's key types are not known or not comparable here";
    /// bt_check_level_from_leftmost: the page reached by the left sibling's btpo_next does
    /// not name it in btpo_prev (reported at the right page, as amcheck does).
    BtreeSiblingLinksDisagree => "btree_sibling_links_disagree", Structural,
        "contrib/amcheck/verify_nbtree.c", "bt_recheck_sibling_links",
        "left link/right link pair in index \"%s\" not in agreement";
    /// bt_check_level_from_leftmost: a page on a level's sibling chain (from the metapage's
    /// root down the leftmost downlinks) whose btpo_level is not the level's.
    BtreeLevelMismatch => "btree_level_mismatch", Structural,
        "contrib/amcheck/verify_nbtree.c", "bt_check_level_from_leftmost",
        "leftmost down link for level points to block in index \"%s\" whose level is not one level down";
    /// bt_check_level_from_leftmost: a sibling chain that comes back on itself.
    BtreeCircularLinks => "btree_circular_links", Structural,
        "contrib/amcheck/verify_nbtree.c", "bt_check_level_from_leftmost",
        "circular link chain found in block %u of index \"%s\"";
    /// bt_check_level_from_leftmost: the chain ends on a deleted or half-dead page.
    BtreeFellOffEnd => "btree_fell_off_end", Structural,
        "contrib/amcheck/verify_nbtree.c", "bt_check_level_from_leftmost",
        "block %u fell off the end of index \"%s\"";
    /// bt_check_level_from_leftmost (bt_index_parent_check): the metapage's root page is not
    /// BTP_ROOT.
    BtreeNotTrueRoot => "btree_not_true_root", Structural,
        "contrib/amcheck/verify_nbtree.c", "bt_check_level_from_leftmost",
        "block %u is not true root in index \"%s\"";
    /// A sibling link or the metapage's root names a block past the end of the file.
    BtreeLinkPastEnd => "btree_link_past_end", Structural,
        "backend/storage/smgr/md.c", "mdreadv",
        "could not read block %u in file \"%s\": read only 0 of %d bytes";

    // ---- bt_index_parent_check's cross-level checks (am/nbtree/walk.rs), 13-18 alike: the file
    // walk holds the index still, as amcheck's ShareLock does. ----
    /// bt_check_level_from_leftmost: the first live page of a level has a left sibling.
    BtreeNotLeftmost => "btree_not_leftmost", Structural,
        "contrib/amcheck/verify_nbtree.c", "bt_check_level_from_leftmost",
        "block %u is not leftmost in index \"%s\"";
    /// bt_check_level_from_leftmost: a sibling chain reaches a fully deleted page, which no
    /// link names once VACUUM has unlinked it.
    BtreeLinkToDeleted => "btree_link_to_deleted", Structural,
        "contrib/amcheck/verify_nbtree.c", "bt_check_level_from_leftmost",
        "downlink or sibling link points to deleted block in index \"%s\"";
    /// bt_check_every_level: a level above the leaves whose pages are all deleted or
    /// half-dead (reported at the metapage).
    BtreeNoValidPagesOnLevel => "btree_no_valid_pages_on_level", Structural,
        "contrib/amcheck/verify_nbtree.c", "bt_check_every_level",
        "index \"%s\" has no valid pages on level below %u or first level";
    /// bt_child_check: a downlink names a fully deleted page (reported at the parent).
    BtreeDownlinkToDeleted => "btree_downlink_to_deleted", Structural,
        "contrib/amcheck/verify_nbtree.c", "bt_child_check",
        "downlink to deleted page found in index \"%s\"";
    /// bt_child_highkey_check: the child level's right links end before the page the next
    /// downlink names (reported at the parent).
    BtreeCannotTraverseToDownlink => "btree_cannot_traverse_to_downlink", Structural,
        "contrib/amcheck/verify_nbtree.c", "bt_child_highkey_check",
        "can't traverse from downlink %u to downlink %u of index \"%s\"";
    /// bt_child_highkey_check: the leftmost parent's first downlink names a page with a left
    /// sibling (reported at the parent).
    BtreeFirstChildNotLeftmost => "btree_first_child_not_leftmost", Structural,
        "contrib/amcheck/verify_nbtree.c", "bt_child_highkey_check",
        "the first child of leftmost target page is not leftmost of its level in index \"%s\"";
    /// bt_child_highkey_check: a page reached by a downlink or along the child level is not
    /// one level below its parent (reported at that page, amcheck's "Block pointed to").
    BtreeChildLevelInvalid => "btree_child_level_invalid", Structural,
        "contrib/amcheck/verify_nbtree.c", "bt_child_highkey_check",
        "block found while following rightlinks from child of index \"%s\" has invalid level";
    /// bt_child_highkey_check: a child right of the rightmost parent's last downlink has a
    /// high key (reported at the parent).
    BtreeChildHighKeyAboveRightmost => "btree_child_high_key_above_rightmost", Structural,
        "contrib/amcheck/verify_nbtree.c", "bt_child_highkey_check",
        "child high key is greater than rightmost pivot key on target level in index \"%s\"";
    /// bt_child_highkey_check: a child left of its parent's first downlink, with no left
    /// sibling of the parent to take the high key from (reported at the parent).
    BtreeNoLeftSiblingHighKey => "btree_no_left_sibling_high_key", Structural,
        "contrib/amcheck/verify_nbtree.c", "bt_child_highkey_check",
        "can't find left sibling high key in index \"%s\"";
    /// bt_child_highkey_check: a child's high key is not byte for byte the parent's key next
    /// to its downlink (bt_pivot_tuple_identical; reported at the parent).
    BtreeParentKeyMismatch => "btree_parent_key_mismatch", Structural,
        "contrib/amcheck/verify_nbtree.c", "bt_child_highkey_check",
        "mismatch between parent key and child high key in index \"%s\"";
    /// bt_downlink_missing_check: a leaf no downlink names, with no incomplete split to
    /// explain it.
    BtreeLeafLacksDownlink => "btree_leaf_lacks_downlink", Structural,
        "contrib/amcheck/verify_nbtree.c", "bt_downlink_missing_check",
        "leaf index block lacks downlink in index \"%s\"";
    /// bt_downlink_missing_check: below an internal page without a downlink, a leftmost
    /// descent meets a page not one level down (reported at the page without a downlink).
    BtreeDescentLevelMismatch => "btree_descent_level_mismatch", Structural,
        "contrib/amcheck/verify_nbtree.c", "bt_downlink_missing_check",
        "downlink points to block in index \"%s\" whose level is not one level down";
    /// bt_downlink_missing_check: below an internal page without a downlink, the leftmost
    /// descent ends on a fully deleted leaf.
    BtreeDownlinkToDeletedLeaf => "btree_downlink_to_deleted_leaf", Structural,
        "contrib/amcheck/verify_nbtree.c", "bt_downlink_missing_check",
        "downlink to deleted leaf page found in index \"%s\"";
    /// bt_downlink_missing_check: an internal page no downlink names that does not top an
    /// interrupted multi-level deletion.
    BtreeInternalBlockLacksDownlink => "btree_internal_block_lacks_downlink", Structural,
        "contrib/amcheck/verify_nbtree.c", "bt_downlink_missing_check",
        "internal index block lacks downlink in index \"%s\"";

    // ---- Index checks that span pages (the index walks: am/nbtree/walk.rs,
    // am/gin/walk.rs, am/spgist/decode.rs), in amcheck's and the server's words. ----
    /// bt_child_check: an item of the child (its least: P_FIRSTDATAKEY, after an internal
    /// page's minus infinity item) below the parent's key beside the downlink, by the key
    /// types the caller gave (reported at the parent, amcheck's "Parent block").
    BtreeDownlinkLowerBound => "btree_downlink_lower_bound", Structural,
        "contrib/amcheck/verify_nbtree.c", "bt_child_check",
        "down-link lower bound invariant violated for index \"%s\"";
    /// gin_check_parent_keys_consistency, gin_check_posting_tree_parent_keys_consistency: a
    /// leaf of the entry tree or of a posting tree at another depth than the tree's first
    /// leaf (depth first, last downlink first).
    GinLeafDepthUnexpected => "gin_leaf_depth_unexpected", Structural,
        "contrib/amcheck/verify_gin.c", "gin_check_parent_keys_consistency",
        "index \"%s\": internal pages traversal encountered leaf page unexpectedly on block %u";
    /// gin_check_posting_tree_parent_keys_consistency: a posting tree leaf's last TID above
    /// its parent's key (below a page that is not its level's rightmost).
    GinPostingTreeTidAboveParent => "gin_posting_tree_tid_above_parent", Structural,
        "contrib/amcheck/verify_gin.c", "gin_check_posting_tree_parent_keys_consistency",
        "index \"%s\": tid exceeds parent's high key in postingTree leaf on block %u";
    /// gin_check_posting_tree_parent_keys_consistency: a posting tree internal page (not its
    /// level's rightmost) whose right bound is not its parent's key.
    GinPostingTreeHighKeyMismatch => "gin_posting_tree_high_key_mismatch", Structural,
        "contrib/amcheck/verify_gin.c", "gin_check_posting_tree_parent_keys_consistency",
        "index \"%s\": posting tree page's high key (%u, %u) doesn't match the downlink on block %u (parent blk %u, key (%u, %u))";
    /// gin_check_posting_tree_parent_keys_consistency: a posting tree internal page's last
    /// PostingItem key above its parent's key.
    GinPostingItemAboveParent => "gin_posting_item_above_parent", Structural,
        "contrib/amcheck/verify_gin.c", "gin_check_posting_tree_parent_keys_consistency",
        "index \"%s\": posting item exceeds parent's high key in postingTree internal page on block %u offset %u";
    /// spgGetCache: the metapage's magicNumber is not SPGIST_MAGIC_NUMBER; every scan and
    /// insert reads the metapage first (13-18 make no other check of an SP-GiST page read:
    /// its special size and page id are not looked at).
    SpgistMetaMagicWrong => "spgist_meta_magic_wrong", Server,
        "backend/access/spgist/spgutils.c", "spgGetCache",
        "index \"%s\" is not an SP-GiST index";
    // A heap's visibility map and free space map against its pages (am/maps/walk.rs), and a page's
    // own PD_ALL_VISIBLE against its line pointers.
    /// The VM's all-visible bit is set for a heap page without PD_ALL_VISIBLE: VACUUM warns
    /// and clears the bit (13-16 in lazy_scan_heap, 17 on in lazy_scan_prune's caller).
    VmBitWithoutPageFlag => "vm_bit_without_page_flag", Structural,
        "backend/access/heap/vacuumlazy.c", "lazy_scan_heap",
        "page is not marked all-visible but visibility map bit is set in relation \"%s\" page %u";
    /// PD_ALL_VISIBLE on a page with LP_DEAD line pointers: VACUUM warns and clears it (13, 14:
    /// "page containing dead tuples is marked as all-visible in relation \"%s\" page %u").
    AllVisibleWithDeadItems => "all_visible_with_dead_items", Structural,
        "backend/access/heap/vacuumlazy.c", "lazy_scan_heap",
        "page containing LP_DEAD items is marked as all-visible in relation \"%s\" page %u";
    /// VISIBILITYMAP_ALL_FROZEN without VISIBILITYMAP_ALL_VISIBLE: the server sets the frozen
    /// bit only on an all-visible page and clears both together.
    VmFrozenWithoutVisible => "vm_frozen_without_visible", Structural,
        "backend/access/heap/visibilitymap.c", "visibilitymap_set",
        "the visibility map's all-frozen bit is set without its all-visible bit";
    /// PD_ALL_VISIBLE without the VM bit: allowed (VACUUM sets the bit), worth knowing.
    PageFlagWithoutVmBit => "page_flag_without_vm_bit", Note,
        "backend/access/heap/vacuumlazy.c", "lazy_scan_heap",
        "the page is marked all-visible but its visibility map bit is not set: the next VACUUM sets it";
    /// The FSM promises more free space than the page has. The FSM is a hint: an insert that
    /// finds less corrects it (RecordAndGetPageWithFreeSpace), VACUUM rewrites it.
    FsmMoreThanFree => "fsm_more_than_free", Note,
        "backend/storage/freespace/freespace.c", "RecordAndGetPageWithFreeSpace",
        "the free space map promises more free space than the page has; the server corrects it when an insert finds less";
    /// Torn-page evidence on a page whose checksum fails: 512-byte sectors (or a 4 kB half)
    /// that look like another version of the page (tuples there that are not the ones the
    /// line pointers describe: zeros, headers that break t_hoff's rule, a t_ctid not the
    /// tuple's own with no update, a redirect's target that is not heap-only). Flags every
    /// tuple lying even partly there, and heap-only tuples whose chain starts there. One copy
    /// cannot prove a torn write: a candidate for a backup or a WAL image to confirm.
    TornSectors => "torn_sectors", Candidate,
        "backend/storage/page/bufpage.c", "PageIsVerifiedExtended",
        "this line pointer's tuple lies in 512-byte sectors that look like another version of the page (a torn write?) or like bytes written over it: its bytes there are not the tuple the line pointer describes, or an older version of its row";
    // ---- damage analysis (bitflip.rs, diff.rs): one bit, two copies ----------
    /// Flipping this one bit makes the stored checksum valid. With 65,536 bits and a 16-bit
    /// checksum about one such flip per page is expected by chance: evidence, not proof.
    ChecksumBitFlipCandidate => "checksum_bit_flip_candidate", Candidate,
        "backend/storage/page/checksum.c", "pg_checksum_page",
        "flipping bit %u of byte %u makes the stored checksum valid; about one such flip per page is expected by chance";

    // ---- catalogs and visibility (catalog/, visibility.rs): names from the files ---------
    /// pg_filenode.map is not the size of this version's RelMapFile.
    RelMapWrongSize => "relmap_wrong_size", Server,
        "backend/utils/cache/relmapper.c", "read_relmap_file",
        "could not read file \"%s\": read %d of %zu";
    /// Its magic is not RELMAPPER_FILEMAGIC, or num_mappings is out of range.
    RelMapInvalidData => "relmap_invalid_data", Server,
        "backend/utils/cache/relmapper.c", "read_relmap_file",
        "relation mapping file \"%s\" contains invalid data";
    /// Its stored CRC-32C differs from the one computed over the mappings.
    RelMapIncorrectChecksum => "relmap_incorrect_checksum", Server,
        "backend/utils/cache/relmapper.c", "read_relmap_file",
        "relation mapping file \"%s\" contains incorrect checksum";
    /// The pg_xact segment or page holding a transaction's status is not there.
    XactStatusUnavailable => "xact_status_unavailable", Server,
        "backend/access/transam/slru.c", "SlruReportIOError",
        "could not access status of transaction %u";
    /// The pg_multixact offsets or members of a MultiXact are not there (or not sane).
    MultiXactMembersUnavailable => "multixact_members_unavailable", Server,
        "backend/access/transam/multixact.c", "GetMultiXactIdMembers",
        "could not access status of MultiXactId %u";
    /// A catalog's file (pg_class, pg_database, ...) is not there or cannot be read.
    CatalogFileMissing => "catalog_file_missing", Server,
        "backend/storage/smgr/md.c", "mdopenfork",
        "could not open file \"%s\": %m";
    /// A catalog's file has no row for a catalog pgpage needs (its pg_class row is gone).
    CatalogRowMissing => "catalog_row_missing", Structural,
        "backend/utils/cache/relcache.c", "RelationBuildDesc",
        "could not find pg_class tuple for the catalog";

    // ---- tuple and value decoding (tuple.rs, value/, toast): rows out of heap tuples -----
    /// An attribute's bytes run past the tuple's lp_len (a wrong type list, or damage).
    TupleAttributePastEnd => "tuple_attribute_past_end", Structural,
        "contrib/amcheck/verify_heapam.c", "check_tuple_attribute",
        "attribute ends beyond total tuple length";
    /// An attribute descriptor's attlen is none of >0, -1 (varlena), -2 (cstring).
    AttributeLengthInvalid => "attribute_length_invalid", Structural,
        "include/access/tupmacs.h", "att_addlength_pointer",
        "attribute length is neither positive, -1 (varlena) nor -2 (cstring)";
    /// An external varlena whose tag is not VARTAG_ONDISK (memory pointers never reach disk).
    VarlenaTagUnexpected => "varlena_tag_unexpected", Structural,
        "contrib/amcheck/verify_heapam.c", "check_tuple_attribute",
        "toasted attribute has unexpected TOAST tag";
    /// A 4-byte varlena header whose length is below the header's own 4 bytes.
    VarlenaSizeInvalid => "varlena_size_invalid", Structural,
        "include/varatt.h", "VARSIZE_4B",
        "varlena header claims a length shorter than its header";
    /// The type list ends before the tuple's data does (pg_filedump -D's check).
    TupleBytesLeftOver => "tuple_bytes_left_over", Structural,
        "backend/access/common/heaptuple.c", "heap_deform_tuple",
        "the tuple has bytes left over after its last attribute: the type list does not fit";
    /// The tuple has fewer attributes than the type list and no missing values fill them.
    TupleAttributesFewer => "tuple_attributes_fewer", Candidate,
        "backend/access/common/heaptuple.c", "getmissingattr",
        "the tuple has fewer attributes than the type list: the rest read as NULL";
    /// A datum's bytes are not a value of its type (a wrong length, a bad header).
    ValueInvalid => "value_invalid", Structural,
        "backend/utils/fmgr/fmgr.c", "OutputFunctionCall",
        "the stored bytes are not a valid value of the attribute's type";
    /// pglz data that does not decompress to exactly its declared size.
    PglzCorrupt => "pglz_corrupt", Server,
        "backend/access/common/toast_compression.c", "pglz_decompress_datum",
        "compressed pglz data is corrupt";
    /// lz4 data that does not decompress to exactly its declared size.
    Lz4Corrupt => "lz4_corrupt", Server,
        "backend/access/common/toast_compression.c", "lz4_decompress_datum",
        "compressed lz4 data is corrupt";
    /// va_tcinfo's compression method is neither pglz nor lz4.
    CompressionMethodInvalid => "compression_method_invalid", Server,
        "backend/access/common/detoast.c", "toast_decompress_datum",
        "invalid compression method id %d";
    /// No chunk of the TOAST value with this chunk_seq was found.
    ToastChunkMissing => "toast_chunk_missing", Server,
        "backend/access/heap/heaptoast.c", "heap_fetch_toast_slice",
        "missing chunk number %d for toast value %u in %s";
    /// A chunk_seq past the value's last chunk.
    ToastChunkNumberUnexpected => "toast_chunk_number_unexpected", Server,
        "backend/access/heap/heaptoast.c", "heap_fetch_toast_slice",
        "unexpected chunk number %d (out of range %d..%d) for toast value %u in %s";
    /// A chunk whose chunk_data is not TOAST_MAX_CHUNK_SIZE long (or the remainder, last).
    ToastChunkSizeUnexpected => "toast_chunk_size_unexpected", Server,
        "backend/access/heap/heaptoast.c", "heap_fetch_toast_slice",
        "unexpected chunk size %d (expected %d) in chunk %d of %d for toast value %u in %s";
    /// An external TOAST pointer with no TOAST relation files given to read it from.
    ToastRelationMissing => "toast_relation_missing", Note,
        "backend/access/common/detoast.c", "toast_fetch_datum",
        "the value is stored in a TOAST relation that was not given";

    // ---- GIN (am/gin/check.rs): gin_index_check's checks (amcheck 1.5,
    // PostgreSQL 18) that one page answers; "%s" is the index's name. ----
    /// check_index_page: a deleted entry tree leaf with line pointers.
    GinDeletedPageWithTuples => "gin_deleted_page_with_tuples", Structural,
        "contrib/amcheck/verify_gin.c", "check_index_page",
        "index \"%s\" has deleted page %u with tuples";
    /// check_index_page: more line pointers than MaxIndexTuplesPerPage.
    GinTooManyTuples => "gin_too_many_tuples", Structural,
        "contrib/amcheck/verify_gin.c", "check_index_page",
        "index \"%s\" has page %u with exceeding count of tuples";
    /// PageGetItemIdCareful: lp_off + lp_len past BLCKSZ less the special space.
    GinLpPastTupleSpace => "gin_lp_past_tuple_space", Structural,
        "contrib/amcheck/verify_gin.c", "PageGetItemIdCareful",
        "line pointer points past end of tuple space in index \"%s\"";
    /// PageGetItemIdCareful: an entry tree line pointer that is not LP_NORMAL with storage.
    GinLpInvalid => "gin_lp_invalid", Structural,
        "contrib/amcheck/verify_gin.c", "PageGetItemIdCareful",
        "invalid line pointer storage in index \"%s\"";
    /// gin_check_parent_keys_consistency: MAXALIGN(lp_len) differs from MAXALIGN(IndexTupleSize).
    GinTupleSizeInconsistent => "gin_tuple_size_inconsistent", Structural,
        "contrib/amcheck/verify_gin.c", "gin_check_parent_keys_consistency",
        "index \"%s\" has inconsistent tuple sizes, block %u, offset %u";
    /// gin_check_parent_keys_consistency: an entry not above the one before it (null category,
    /// then the key as the opclass compares it), by the key type the caller gave.
    GinEntryOrder => "gin_entry_order", Structural,
        "contrib/amcheck/verify_gin.c", "gin_check_parent_keys_consistency",
        "index \"%s\" has wrong tuple order on entry tree page, block %u, offset %u, rightlink %u";
    /// The key type of a one-column GIN index is not known (or a key is compressed, or the
    /// page is big-endian): the entry order is not checked rather than guessed.
    GinEntryOrderNotChecked => "gin_entry_order_not_checked", Note,
        "contrib/amcheck/verify_gin.c", "gin_check_parent_keys_consistency",
        "the entry order is not checked: the index's key type is not known or not comparable here";
    /// ginReadTupleWithoutState: a compressed posting list decodes to another count of TIDs
    /// than the tuple's header says.
    GinPostingCountMismatch => "gin_posting_count_mismatch", Structural,
        "contrib/amcheck/verify_gin.c", "ginReadTupleWithoutState",
        "number of items mismatch in GIN entry tuple, %d in tuple header, %d decoded";
    /// gin_check_parent_keys_consistency: a posting list TID whose offset is not a valid
    /// OffsetNumber.
    GinPostingInvalidHeapPointer => "gin_posting_invalid_heap_pointer", Structural,
        "contrib/amcheck/verify_gin.c", "gin_check_parent_keys_consistency",
        "index \"%s\": posting list contains invalid heap pointer on block %u";
    /// gin_check_posting_tree_parent_keys_consistency: a posting tree internal page whose
    /// pd_lower does not hold maxoff PostingItems after the right bound.
    GinPostingTreeLowerMismatch => "gin_posting_tree_lower_mismatch", Structural,
        "contrib/amcheck/verify_gin.c", "gin_check_posting_tree_parent_keys_consistency",
        "index \"%s\" has unexpected pd_lower %u in posting tree block %u with maxoff %u)";
    /// gin_check_posting_tree_parent_keys_consistency: a PostingItem key below the one before.
    GinPostingTreeOrder => "gin_posting_tree_order", Structural,
        "contrib/amcheck/verify_gin.c", "gin_check_posting_tree_parent_keys_consistency",
        "index \"%s\" has wrong tuple order in posting tree, block %u, offset %u";
    /// gin_check_posting_tree_parent_keys_consistency: the last PostingItem of a level's
    /// rightmost page keys (0,0) (plus infinity).
    GinPostingTreeRightmostKey => "gin_posting_tree_rightmost_key", Structural,
        "contrib/amcheck/verify_gin.c", "gin_check_posting_tree_parent_keys_consistency",
        "index \"%s\": rightmost posting tree page (blk %u) has unexpected last key (%u, %u)";

    // The other index access methods' read checks (am/brin/decode.rs): the server's ERROR when it
    // reads the page.
    /// A BRIN page (not the metapage) whose type is neither revmap nor regular: the server,
    /// reaching it from the range map, refuses it (brin_page.h: BRIN_IS_REGULAR_PAGE).
    BrinPageTypeUnexpected => "brin_page_type_unexpected", Server,
        "backend/access/brin/brin_revmap.c", "brinGetTupleForHeapBlock",
        "corrupted BRIN index: inconsistent range map";

    // ---- WAL: segments and records read for good copies of damaged pages ----
    /// A segment file shorter than its segment size (or than one page header).
    WalSegmentTruncated => "wal_segment_truncated", Server,
        "backend/access/transam/xlogutils.c", "WALReadRaiseError",
        "could not read from WAL segment %s, offset %d: read %d of %d";
    /// xlp_magic is not the XLOG_PAGE_MAGIC of any version, or not the first segment's.
    WalPageMagicInvalid => "wal_page_magic_invalid", Server,
        "backend/access/transam/xlogreader.c", "XLogReaderValidatePageHeader",
        "invalid magic number %04X in WAL segment %s, LSN %X/%08X, offset %u";
    /// A WAL page magic of a version before 13 or after 18.
    WalVersionUnsupported => "wal_version_unsupported", Server,
        "include/access/xlog_internal.h", "XLOG_PAGE_MAGIC",
        "the WAL is of a PostgreSQL version pgpage does not read (13 to 19)";
    /// xlp_info has bits outside XLP_ALL_FLAGS, or a segment's first page no long header.
    WalPageInfoInvalid => "wal_page_info_invalid", Server,
        "backend/access/transam/xlogreader.c", "XLogReaderValidatePageHeader",
        "invalid info bits %04X in WAL segment %s, LSN %X/%08X, offset %u";
    /// xlp_sysid differs from pg_control's or from the other segments': another cluster's WAL.
    WalSystemIdentifierMismatch => "wal_system_identifier_mismatch", Server,
        "backend/access/transam/xlogreader.c", "XLogReaderValidatePageHeader",
        "WAL file is from different database system: WAL file database system identifier is %llu, pg_control database system identifier is %llu";
    /// xlp_seg_size or xlp_xlog_blcksz invalid, or unlike the other segments'.
    WalPageSizesInvalid => "wal_page_sizes_invalid", Server,
        "backend/access/transam/xlogreader.c", "XLogReaderValidatePageHeader",
        "WAL file is from different database system: incorrect segment size in page header";
    /// xlp_pageaddr is not the page's own position: a misnamed segment, or out of order.
    WalPageAddrUnexpected => "wal_pageaddr_unexpected", Server,
        "backend/access/transam/xlogreader.c", "XLogReaderValidatePageHeader",
        "unexpected pageaddr %X/%08X in WAL segment %s, LSN %X/%08X, offset %u";
    /// xlp_tli went down from one page to the next.
    WalTimelineOutOfSequence => "wal_timeline_out_of_sequence", Server,
        "backend/access/transam/xlogreader.c", "XLogReaderValidatePageHeader",
        "out-of-sequence timeline ID %u (after %u) in WAL segment %s, LSN %X/%08X, offset %u";
    /// Segments between two given ones are not there: records across the gap are lost.
    WalSegmentMissing => "wal_segment_missing", Server,
        "bin/pg_waldump/pg_waldump.c", "WALDumpOpenSegment",
        "could not find file \"%s\": %m";
    /// A recycled or never-written segment: the WAL ended before it (a pg_wal directory always
    /// has some). Not a problem of the WAL read before it.
    WalSegmentStale => "wal_segment_stale", Note,
        "backend/access/transam/xlogreader.c", "XLogReaderValidatePageHeader",
        "unexpected pageaddr %X/%08X in WAL segment %s: a recycled segment, where the WAL ends";
    /// A record continues, but the next page does not say XLP_FIRST_IS_CONTRECORD: torn.
    WalContrecordMissing => "wal_contrecord_missing", Server,
        "backend/access/transam/xlogreader.c", "XLogDecodeNextRecord",
        "there is no contrecord flag at %X/%08X";
    /// xlp_rem_len is not what the record still needs.
    WalContrecordLengthInvalid => "wal_contrecord_length_invalid", Server,
        "backend/access/transam/xlogreader.c", "XLogDecodeNextRecord",
        "invalid contrecord length %u (expected %lld) at %X/%08X";
    /// xl_tot_len below SizeOfXLogRecord or above XLogRecordMaxSize.
    WalRecordLengthInvalid => "wal_record_length_invalid", Server,
        "backend/access/transam/xlogreader.c", "ValidXLogRecordHeader",
        "invalid record length at %X/%08X: expected at least %u, got %u";
    /// xl_rmid names no resource manager.
    WalResourceManagerInvalid => "wal_resource_manager_invalid", Server,
        "backend/access/transam/xlogreader.c", "ValidXLogRecordHeader",
        "invalid resource manager ID %u at %X/%08X";
    /// xl_prev is not the record before it.
    WalPrevLinkIncorrect => "wal_prev_link_incorrect", Server,
        "backend/access/transam/xlogreader.c", "ValidXLogRecordHeader",
        "record with incorrect prev-link %X/%08X at %X/%08X";
    /// xl_crc differs from the CRC-32C of the record: torn or damaged.
    WalRecordChecksumIncorrect => "wal_record_checksum_incorrect", Server,
        "backend/access/transam/xlogreader.c", "ValidXLogRecord",
        "incorrect resource manager data checksum in record at %X/%08X";
    /// The block headers and data lengths do not add up to xl_tot_len.
    WalRecordLayoutInvalid => "wal_record_layout_invalid", Server,
        "backend/access/transam/xlogreader.c", "DecodeXLogRecord",
        "record with invalid length at %X/%08X";
    /// A block reference DecodeXLogRecord refuses (block id, flags, hole, previous rel).
    WalBlockReferenceInvalid => "wal_block_reference_invalid", Server,
        "backend/access/transam/xlogreader.c", "DecodeXLogRecord",
        "invalid block_id %u at %X/%08X";
    /// The image does not decompress to the page less its hole.
    WalImageDecompressFailed => "wal_image_decompress_failed", Server,
        "backend/access/transam/xlogreader.c", "RestoreBlockImage",
        "could not decompress image at %X/%08X, block %d";
    /// The WAL given ends inside a record: its rest is in a segment not given, or on a page
    /// never written (zeros or recycled WAL), where a standby's or crashed server's WAL ends.
    WalEndsInsideRecord => "wal_ends_inside_record", Note,
        "backend/access/transam/xlogreader.c", "XLogDecodeNextRecord",
        "the WAL given ends inside the record at %X/%08X: its rest is in a later segment";
    /// A file named as pg_waldump --save-fullpage names them that is not one page.
    WalFullPageFileInvalid => "wal_full_page_file_invalid", Server,
        "bin/pg_waldump/pg_waldump.c", "XLogRecordSaveFPWs",
        "the file is named as a saved full-page image but is not one page";

    // ---- WAL timelines (history files) ----
    /// A timeline history file the server refuses: a line without a numeric timeline or a
    /// switch point, timelines not increasing, or not below the file's own.
    WalTimelineHistoryInvalid => "wal_timeline_history_invalid", Server,
        "backend/access/transam/timeline.c", "readTimeLineHistory",
        "syntax error in history file: %s";
    /// Segments of a timeline after the first, without its history file: where each older
    /// timeline was left is not known, so an image past that point may be on a branch that
    /// recovery abandoned.
    WalTimelineHistoryMissing => "wal_timeline_history_missing", Note,
        "backend/access/transam/timeline.c", "readTimeLineHistory",
        "the history file of timeline %u is missing: the timeline switch cannot be followed";
    /// WAL of a timeline past the point its history says it was left (the old primary went on
    /// after the promote), or of a timeline not in the newest one's history: not the WAL that
    /// recovery replays, and no image in it is a good copy.
    WalTimelineAbandoned => "wal_timeline_abandoned", Note,
        "backend/access/transam/xlogrecovery.c", "XLogFileReadAnyTLI",
        "WAL past the switch point of its timeline: the abandoned branch, not read";

    /// An all-zero page that a B-tree's own links reach (the metapage, the root, a sibling
    /// link or a downlink): _bt_checkpage refuses it on every read (scans, inserts, amcheck's
    /// palloc_btree_page), with the hint `Finding::server_hint` gives. A zero page nothing
    /// reaches is one relation extension left behind a crash, which btvacuumpage recycles.
    BtreeUnexpectedZeroPage => "btree_unexpected_zero_page", Server,
        "backend/access/nbtree/nbtpage.c", "_bt_checkpage",
        "index \"%s\" contains unexpected zero page at block %u";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_every_rule_names_a_c_file() {
        let mut codes: alloc::vec::Vec<&str> = Finding::ALL.iter().map(|f| f.code()).collect();
        codes.sort_unstable();
        let n = codes.len();
        codes.dedup();
        assert_eq!(codes.len(), n, "two findings share a code");
        for f in Finding::ALL {
            let r = f.rule();
            assert!(
                r.file.ends_with(".c") || r.file.ends_with(".h"),
                "{f:?}: {}",
                r.file
            );
            assert!(!r.function.is_empty() && !f.message().is_empty());
        }
    }

    #[test]
    fn whose_check() {
        // pgpage's torn-sector heuristic cites bufpage.c, yet neither the server nor amcheck
        // has it; verify_heapam's t_hoff check is amcheck's; a checksum mismatch the server's.
        assert_eq!(Finding::TornSectors.checker(), Checker::Pgpage);
        assert_eq!(Finding::HeapHoffUnexpected.checker(), Checker::Amcheck);
        assert_eq!(Finding::ChecksumMismatch.checker(), Checker::Server);
        for f in Finding::ALL {
            if f.checker() == Checker::Amcheck {
                assert!(f.rule().file.starts_with("contrib/amcheck/"), "{f:?}");
            }
        }
    }

    #[test]
    fn unvalued_messages_hold_no_format() {
        assert_eq!(
            unvalued("invalid leaf page level %u for block %u in index \"%s\""),
            "invalid leaf page level … for block … in index \"…\""
        );
        assert_eq!(
            unvalued("could not read file \"%s\": read %d of %zu"),
            "could not read file \"…\": read … of …"
        );
        assert_eq!(unvalued("100% sure %"), "100% sure %");
        for f in Finding::ALL {
            let m = f.message_unvalued();
            for c in ["%u", "%d", "%s", "%zu", "%m"] {
                assert!(!m.contains(c), "{f:?}: {m}");
            }
        }
    }
}
