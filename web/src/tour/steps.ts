// The guided tour's steps: what each says and what it shows (a sample, a block, the bytes to
// outline). Numbers in the text come from the samples' manifest, i.e. from PostgreSQL itself.
// Text in `backticks` renders as code.
import type { ByteRange } from '../components/HexView';
import type { Sample, SampleManifest, SamplePage } from '../samples/samples';
import { READ_AS_EMPTY } from '../lib/status';

/** What a step's text may quote: its sample and page, and the manifest for the others. */
export interface StepContext {
  manifest: SampleManifest;
  sample: Sample;
  page: SamplePage;
}

export interface TourStep {
  title: string;
  /** The sample (manifest `role`) and block to show. */
  role: string;
  block: number;
  /** The bytes to outline; 'change' is the corrupted copy's changed bytes within the block. */
  highlight: ByteRange | 'change';
  /** A line pointer to select, which outlines its tuple too. */
  item?: number;
  /** Outline the decoded page header beside the hex dump. */
  header?: boolean;
  /** A hint the page must show (the browser test waits for it). */
  expect?: string;
  text(c: StepContext): string[];
}

const BLCKSZ = 8192;
/** RELSEG_SIZE: blocks per 1 GB segment file at 8 KB pages (pg_config.h). */
const RELSEG_SIZE = 131072;

/** The bytes a step outlines on its page: its own range, or the sample's change within the page. */
export function stepHighlight(step: TourStep, sample: Sample): ByteRange {
  if (step.highlight !== 'change') return step.highlight;
  const c = sample.change;
  // Nothing to outline when the change is elsewhere; the unit test holds every step to a range.
  if (!c || c.block !== step.block) return { start: 0, end: 0 };
  return { start: c.offset, end: Math.min(c.offset + c.length, BLCKSZ) };
}

function pageOf(m: SampleManifest, role: string, block: number): SamplePage {
  const page = m.samples.find((s) => s.role === role)?.pages[block];
  if (!page) throw new Error(`the samples have no ${role} block ${block}`);
  return page;
}

export const TOUR_STEPS: TourStep[] = [
  {
    title: 'A page is 8 KB',
    role: 'heap',
    block: 1,
    highlight: { start: 0, end: BLCKSZ },
    text: ({ sample }) => [
      `PostgreSQL keeps every table, index, free space map and visibility map as a file of fixed-size pages of BLCKSZ bytes: 8192 unless the server was built otherwise.`,
      `Block n of a file starts at byte n × 8192. A file stops at 1 GB (RELSEG_SIZE = ${RELSEG_SIZE} blocks) and the relation continues in ${sample.file}.1, ${sample.file}.2, …`,
      `Shown: block 1 of the sample heap ${sample.file}, all ${BLCKSZ} bytes of it outlined. The page is read, written and checksummed as one unit.`,
    ],
  },
  {
    title: 'The 24-byte page header',
    role: 'heap',
    block: 1,
    highlight: { start: 0, end: 24 },
    header: true,
    text: () => [
      `Every page starts with PageHeaderData (bufpage.h), 24 bytes in the server's byte order (little-endian here):`,
      `\`pd_lsn\` (8 bytes: the WAL position of the page's last change), \`pd_checksum\` (2), \`pd_flags\` (2), \`pd_lower\` (2: end of the line pointers), \`pd_upper\` (2: start of the tuples), \`pd_special\` (2: start of the special space an index or a sequence keeps at the end; 8192 on a heap, which has none), \`pd_pagesize_version\` (2: page size | layout version 4) and \`pd_prune_xid\` (4).`,
      `The decoded header is outlined beside the hex dump.`,
    ],
  },
  {
    title: 'Line pointers and tuples',
    role: 'heap',
    block: 0,
    highlight: { start: 24, end: 28 },
    item: 1,
    text: () => [
      `After the header comes an array of 4-byte line pointers, ItemIdData (itemid.h): \`lp_off:15 lp_flags:2 lp_len:15\`, the tuple's offset, state and length. States: LP_UNUSED (0), LP_NORMAL (1), LP_REDIRECT (2: the root of a pruned HOT chain; lp_off names the next line pointer) and LP_DEAD (3).`,
      `The array grows up to pd_lower; tuples are placed from the end of the page down to pd_upper; in between is free space. A tuple is found by (block, line pointer), its ctid, so tuples can move within the page without changing their address.`,
      `Line pointer 1 is outlined and its tuple selected: a 23-byte HeapTupleHeaderData (htup_details.h: t_xmin, t_xmax, t_cid or t_xvac, t_ctid, t_infomask2, t_infomask, t_hoff) padded to t_hoff = 24, then the row's columns. Click a row of the items table to select another.`,
    ],
  },
  {
    title: 'How the checksum is computed',
    role: 'heap',
    block: 1,
    highlight: { start: 8, end: 10 },
    header: true,
    text: ({ page }) => [
      `With data checksums on (initdb -k), pg_checksum_page() (checksum_impl.h) runs on every page written and read. It reads the page as 32 parallel lanes of 4-byte words, each lane's sum starting from its own fixed base value (checksumBaseOffsets, a constant, not a place in the page) and mixing in its words FNV-1a style: \`tmp = sum ^ word; sum = tmp * 16777619 ^ (tmp >> 17)\`.`,
      `Two more rounds of zero words follow, the 32 lane sums are XOR-folded into one 32-bit value, the block number is XORed in, and \`(sum % 65535) + 1\` makes it 16 bits and never 0.`,
      `The result goes into pd_checksum, outlined. While computing, pd_checksum counts as zero: a checksum cannot cover itself. This page stores ${page.stored}; PostgreSQL computes ${page.computed} for block ${page.absolute_block}.`,
    ],
  },
  {
    title: "End Point's experiment: change one byte",
    role: 'flipped_bit',
    block: 1,
    highlight: 'change',
    text: ({ sample, page }) => [
      `End Point's experiment, in short: stop the server, change one byte of a table file, start it again and read the table. Here one bit of block 1 of ${sample.file} was flipped (outlined): ${sample.change?.what}.`,
      `pd_checksum still holds ${page.stored}, but the bytes now give ${page.computed}: the two marked bytes disagree. The server refuses the page: \`WARNING: page verification failed, calculated checksum ${page.computed} but expected ${page.stored}\`, then \`ERROR: invalid page in block 1 of relation base/…/${sample.file}\`. One bit changes the checksum completely.`,
    ],
  },
  {
    title: 'An all-zero page the server reads as empty',
    role: 'zeroed_page',
    block: 2,
    highlight: 'change',
    text: ({ sample }) => [
      `Block 2 of ${sample.file} is all zeros. The server extends a relation with zeroed pages and a crash can leave one behind before it is written, so PageIsVerified() (bufpage.c) accepts a page whose every byte is zero: PageIsNew() is true because pd_upper is 0, and neither the server nor pg_checksums computes a checksum for it. It is not among the problem pages, which the server refuses.`,
      `But this one lies between pages with rows (blocks 1 and 3). A relation extension cut short by a crash can leave such a page too, and the page alone cannot say which it is. The incident report above lists it as ${READ_AS_EMPTY.toUpperCase()}: zeroed, an all-zero page where rows were. The server reads it as empty, without an error, and its rows are gone from every query.`,
    ],
  },
  {
    title: 'Only pd_upper zeroed is not fine',
    role: 'upper_zeroed',
    block: 1,
    highlight: 'change',
    header: true,
    text: ({ sample }) => [
      `Block 1 of ${sample.file} had only pd_upper (outlined) set to 0. PageIsNew() tests exactly that field, so the page looks new and its checksum is not checked.`,
      `PageIsVerified() then insists that a new page be all zeros. This one is not, so the server fails with \`ERROR: invalid page in block 1 of relation base/…/${sample.file}\`, without a checksum WARNING.`,
      `pg_checksums skips new pages without looking further, so \`pg_checksums --check\` calls this file clean. pgpage reports it as the server would.`,
    ],
  },
  {
    title: 'A misplaced page',
    role: 'swapped_pages',
    block: 1,
    highlight: { start: 8, end: 10 },
    expect: 'valid for block 2',
    text: ({ sample, page }) => [
      `Blocks 1 and 2 of ${sample.file} swapped places. Each page is intact, but the block number is part of the checksum: this page stores ${page.stored}, computed for block 1 it gives ${page.computed}.`,
      `The block number is XORed in just before the final modulo, so neighbouring blocks usually give checksums a few apart. pgpage tries the file's other block numbers and finds that this page's checksum is valid for block 2: a page written to the wrong place, not damaged bytes.`,
    ],
  },
  {
    title: 'Segment 2: same bytes, another block number',
    role: 'segment_2',
    block: 0,
    highlight: { start: 8, end: 10 },
    text: ({ manifest, sample, page }) => {
      const heap = manifest.samples.find((s) => s.role === 'heap');
      const original = pageOf(manifest, 'heap', 0);
      return [
        `${sample.file} holds exactly the bytes of ${heap?.file ?? 'the heap'}, under a segment-2 name. The checksum uses the relation-wide block number (md.c): segment × RELSEG_SIZE + block = ${sample.segment} × ${RELSEG_SIZE} + 0 = ${page.absolute_block}.`,
        `As block 0 the page's checksum ${original.stored} is valid; as block ${page.absolute_block} PostgreSQL computes ${page.computed}. A segment file restored under the wrong name fails on every page, though no byte changed.`,
      ];
    },
  },
];
