//! What decoding a page gives, for every access method: the options and hints a decoder
//! takes, the page's items and special space in pageinspect's shapes, its spans and findings.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use serde::Serialize;

use crate::am::brin::layout::{BrinItem, BrinSpecial, RevmapItem};
use crate::am::gin::layout::{GinLeafItem, GinSpecial};
use crate::am::gist::layout::{GistItem, GistSpecial};
use crate::am::hash::layout::{HashItem, HashSpecial};
use crate::am::heap::check::HeapContext;
use crate::am::heap::layout::HeapItem;
use crate::am::maps::layout::{FsmSpecial, VmSpecial};
use crate::am::nbtree::check::KeyColumn;
use crate::am::nbtree::layout::{BtreeItem, BtreeSpecial};
use crate::am::seq::layout::SequenceSpecial;
use crate::am::spgist::layout::SpGistSpecial;
use crate::findings::{Finding, Values};
use crate::page::bufpage::{LinePointer, PageHeader};
use crate::page::geometry::Endian;
use crate::page::kind::{Fork, PageKind};
use crate::page::lsn::reprint_for;
use crate::page::spans::{values_of, Span, ValuedFinding};
use crate::tuple::columns::ColumnHint;

/// How to decode a page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeOptions {
    pub endian: Endian,
    /// Decode as this kind instead of the detected one.
    pub kind: Option<PageKind>,
    /// The fork the page comes from (FSM and VM pages cannot be told from their bytes).
    pub fork: Fork,
    /// The kind of the page's file ([`crate::am::kind::file_kind`]): a page that does not show its
    /// kind, or shows another, is decoded as this one and flagged.
    pub file_kind: Option<PageKind>,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            endian: Endian::Little,
            kind: None,
            fork: Fork::Main,
            file_kind: None,
        }
    }
}

/// What the caller knows of the relation beyond its bytes (from the catalog or the user),
/// for checks that need it; each left out is not judged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hints<'a> {
    /// A B-tree index's key columns, in index column order; for a one-column GIN index, its
    /// opclass's key (storage) type (the column options do not apply).
    pub btree_keys: Option<&'a [KeyColumn]>,
    /// A heap's catalog row and the cluster's transaction horizon, for verify_heapam's xid
    /// and attribute-count checks.
    pub heap: Option<&'a HeapContext<'a>>,
    /// The relation's columns in attnum order (a table's, dropped ones included; a BRIN
    /// index's, with their opclass families): heap tuples' varlena headers and BRIN
    /// summaries decode with them.
    pub columns: Option<&'a [ColumnHint]>,
}

/// The items of a page, as the access method's pageinspect function lists them.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Items {
    /// heap_page_items().
    Heap(Vec<HeapItem>),
    /// bt_page_items().
    Btree(Vec<BtreeItem>),
    /// hash_page_items().
    Hash(Vec<HashItem>),
    /// gist_page_items_bytea().
    Gist(Vec<GistItem>),
    /// gin_leafpage_items().
    GinLeaf(Vec<GinLeafItem>),
    /// brin_revmap_data().
    Revmap(Vec<RevmapItem>),
    /// brin_page_items(), when the index's columns are known.
    Brin(Vec<BrinItem>),
    /// Line pointers only.
    Lines(Vec<LinePointer>),
}

impl Items {
    pub fn len(&self) -> usize {
        match self {
            Items::Heap(v) => v.len(),
            Items::Btree(v) => v.len(),
            Items::Hash(v) => v.len(),
            Items::Gist(v) => v.len(),
            Items::GinLeaf(v) => v.len(),
            Items::Revmap(v) => v.len(),
            Items::Brin(v) => v.len(),
            Items::Lines(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The special space (and metapage, when the page is one), per access method.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Special {
    Btree(BtreeSpecial),
    Hash(HashSpecial),
    Gist(GistSpecial),
    Gin(GinSpecial),
    Spgist(SpGistSpecial),
    Brin(BrinSpecial),
    Sequence(SequenceSpecial),
    Fsm(FsmSpecial),
    Vm(VmSpecial),
}

/// One decoded page. Serializes as the `inspect --json` block (docs/contracts.md) without the
/// fields that only the caller knows (`block`, `absolute_block`, `status`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DecodedPage {
    pub kind: PageKind,
    pub header: PageHeader,
    pub items: Items,
    pub special: Option<Special>,
    /// Byte ranges covering the whole page, sorted and disjoint.
    #[serde(skip)]
    pub spans: Vec<Span>,
    /// Findings about the page as a whole, not one span's bytes (decoded as its file's kind).
    #[serde(skip)]
    pub findings: Vec<Finding>,
    /// The numbers of the item findings whose messages print them, as the checks found them.
    #[serde(skip)]
    pub values: Vec<ValuedFinding>,
    /// Whether the page's own header and line pointers can count its items: the header
    /// passes PageIsVerified's sanity checks (with pd_lower past the header and
    /// pd_pagesize_version right) and at most half of the line pointers are flagged. When
    /// not (random bytes, another file's data), `items` are what pd_lower of noise counts
    /// and how many tuples the page held is unknown from the page.
    #[serde(skip)]
    pub items_counted: bool,
    /// The heap items whose line pointer or tuple header verify_heapam rejects before it
    /// reads the tuple (`heap::check::not_tuples`), with that finding: what `items` shows of
    /// their "tuple header" is other bytes.
    #[serde(skip)]
    pub not_tuples: Vec<ItemFinding>,
}

impl DecodedPage {
    /// Names the columns and prints the values as pageinspect of PostgreSQL `major` does (as
    /// 13 to 18 do unless told): btree's names changed between 13 and 18, and 19's pg_lsn
    /// zero-pads the low half of the LSN (`%X/%08X`).
    pub fn name_for(&mut self, major: u32) {
        if let Some(Special::Btree(b)) = self.special.as_mut() {
            b.name_for(major);
        }
        reprint_for(major, &mut self.header.lsn);
        if let Some(Special::Gist(g)) = self.special.as_mut() {
            reprint_for(major, &mut g.lsn);
            reprint_for(major, &mut g.nsn);
        }
    }

    /// Every flagged span: what looks wrong and where.
    pub fn problems(&self) -> impl Iterator<Item = &Span> {
        self.spans.iter().filter(|s| s.problem.is_some())
    }

    /// `finding` about line pointer `item` as an [`ItemFinding`], with the numbers its check
    /// recorded.
    pub fn item_finding(&self, finding: Finding, item: Option<u16>) -> ItemFinding {
        ItemFinding {
            finding,
            item,
            values: values_of(&self.values, finding, item),
        }
    }
}
/// A finding [`crate::am::check_page`] makes, with the line pointer (OffsetNumber) it is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ItemFinding {
    pub finding: Finding,
    pub item: Option<u16>,
    /// The numbers its message prints (none when it prints none).
    pub values: Values,
}

impl ItemFinding {
    /// The message with the numbers its check recorded.
    pub fn message(&self) -> String {
        self.finding.valued(&self.values)
    }

    /// The whole message of a finding on relation-wide block `block` of `relation` (the
    /// name its `%s` quotes: the catalogs' name, else the file): the numbers its check
    /// recorded, then the block and the line pointer where the message names them (amcheck's
    /// index checks say "block %u", "page %u", "offset %u" of the page they are on).
    pub fn message_at(&self, block: u32, relation: &str) -> String {
        let mut m = self.message().replace("%s", relation);
        let block = format!("{block}");
        for place in ["block %u", "page %u", "blk %u"] {
            m = m.replace(place, &place.replace("%u", &block));
        }
        if let Some(item) = self.item {
            m = m.replace("offset %u", &format!("offset {item}"));
        }
        m
    }
}
