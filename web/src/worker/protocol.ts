// The one typed message module between the page and the verify worker.
import type { Geometry, GeometryChoice } from '../lib/geometry';
import type { StatusCounts, StatusName } from '../lib/status';

/** What pg_control says of data checksums, as `FileScanJs.finish` takes it: 0 unknown (the
 * file decides), 1 on, 2 off, and while PostgreSQL 19 changes them 3 inprogress-on and
 * 4 inprogress-off (`decode_control`'s `checksums_code`). */
export type ChecksumsCode = 0 | 1 | 2 | 3 | 4;

/** Pages by whether their stored checksum is valid for their block (the core's
 * `ChecksumCounts`): every page that is not all zeros in `checksums_valid` or `checksums_not_yet`. */
export interface ChecksumCounts {
  checksums_valid: number;
  checksums_not_yet: number;
  /** Of `checksums_not_yet`, those storing a checksum other than 0. */
  checksums_not_yet_nonzero: number;
}

export interface VerifyRequest {
  type: 'verify';
  job: number;
  file: File;
  /** The file as the server names it, for the core's messages (`base/5/16385.2`). */
  path: string;
  segment: number;
  checksums: ChecksumsCode;
  /** Block size and byte order as chosen; what is not chosen comes from the file's head. */
  choice: GeometryChoice;
  chunkBytes?: number;
  /** The heap's `_vm` and `_fsm` files dropped beside it (same directory, same relfilenode):
   * read whole, the core judges each page against them (`FileScanJs.set_maps`). */
  maps?: { vm?: File; fsm?: File };
  /** Verify only the whole pages in bytes [from, to) of the file (both multiples of every
   * block size), as part `index` of a file the pool shares between workers. Part 0 sends
   * 'start'; every part sends 'progress' and 'done' with `part` filled in. */
  part?: { index: number; from: number; to: number };
  /** The structural checks (amcheck's per-page checks): entry `entry` of the hints `set` the
   * pool gave every worker (`HintsRequest`), or with `set` null the pages' own (a file its
   * data directory's catalogs do not name, or dropped alone). Absent: none (a map fork). */
  structure?: StructureRef;
}

export type StructureRef = { set: number; entry: number } | { set: null };

/** A data directory's hints for the structural checks, as the core exports them
 * (`CatalogReader.structures`), sent once to each worker before any request naming `set`. */
/** The hints are every job's, no job's own: the worker takes them aside (`serve`'s `aside`). */
export interface HintsRequest {
  type: 'hints';
  set: number;
  bytes: Uint8Array;
}

/** The verdict of a file whose parts were verified apart: their exported scans, merged. */
export interface FinishRequest {
  type: 'finish';
  job: number;
  parts: Uint8Array[];
  path: string;
  checksums: ChecksumsCode;
}

/** A job is cancelled with the bridge's `cancel` message (worker/bridge.ts). */
export type ToWorker = VerifyRequest | FinishRequest;

/** The block a mismatching page was written for, as the core's verdict says. */
export interface Misplaced {
  /** Relation-wide block number. */
  block: number;
  /** Something besides the checksum agrees (a claim); else a candidate, chance at its odds. */
  claim: boolean;
  /** The finding that says so (`misplaced_by_tuple_ids`, `misplaced_by_sibling_links`,
   * `checksum_matches_other_block`). */
  by: string;
  /** For a candidate: blocks of the searched range its checksum is valid for. */
  matches: number;
  /** The same block within this file, null when it is another segment's. */
  inFile: number | null;
}

/** A page the core's verdict lists: a problem page, or a page with a finding. */
export interface ProblemPage {
  block: number;
  absoluteBlock: number;
  status: StatusName;
  /** The status's code, as the page map holds it. */
  code: number;
  /** The server refuses to read the page (the core's `PageStatus::is_problem`). */
  problem: boolean;
  stored: number;
  /** null when the server computes none: new pages, checksums off. */
  computed: number | null;
  misplaced: Misplaced | null;
  /** The block the page's own heap tuples name, when a majority agree. */
  tupleBlock: number | null;
  /** Finding codes (`findings_table()`), the status's first. */
  findings: string[];
}

/** A finding about the whole file, with its message filled in by the core. */
export interface FileFinding {
  code: string;
  message: string;
  /** For a short read: the block that reads short; for zero pages between rows, the first. */
  block?: number;
  /** For zero pages between rows: how many, from `block` on. */
  pages?: number;
  /** The registry's evidence (`server`, `corroborated`, `note`...): a note is no problem. */
  evidence?: string;
}

/** A finding about one page: of the relation's `_vm` or `_fsm`, its message filled in as the
 * server words it (VACUUM's warning names the relation and the relation-wide block); or of
 * the structural checks (`amcheck`), in amcheck's words, with the line pointer it is about.
 * The server reads such a page: it is no problem page. */
export interface PageFinding {
  block: number;
  absoluteBlock: number;
  code: string;
  message: string;
  /** The registry's evidence: `structural` (VACUUM or amcheck says so) or `note`. */
  evidence: string;
  /** A note that is not routine on this page (the core's PageRow::routine_note): on a page
   * that fails its checksum it may be the damage's trace, which the report says with the
   * page's damage, not among its routine notes. */
  notRoutine?: true;
  /** A structural check's finding (verify_heapam, bt_index_check...), not the maps'. */
  amcheck?: boolean;
  /** Its line pointer (OffsetNumber, from 1), as amcheck's `offset`. */
  offset?: number;
  /** Whose check a structural finding is (the registry's): `amcheck`, `server` or `pgpage`. */
  checker?: string;
}

/** The odds of a bare checksum match over the range searched. */
export interface Chance {
  searched: number;
  expected: number;
  probability: number;
}

/** One file's verdict, as `FileScanJs.finish` decides it. */
export interface FileResult {
  counts: StatusCounts;
  checksumsDisabled: boolean;
  /** The cluster is changing its checksums: none is verified, and `checksumCounts` says how far. */
  checksumsInProgress: boolean;
  checksumCounts: ChecksumCounts;
  /** The server would fail to read some block of the file (a problem page or a short read). */
  problem: boolean;
  /** In block order. */
  pages: ProblemPage[];
  /** Status codes the chunks gave that the verdict judges otherwise for the pages it does
   * not list (with checksums off, a mismatch is ok): [chunk's code, verdict's code]. */
  remap: [number, number][];
  findings: FileFinding[];
  /** The maps' and the structural checks' findings about its pages, in block order. */
  pageFindings: PageFinding[];
  /** Pages with structural findings alone past the first 1000 of the file: counted, not
   * listed (the core's FileVerdictJs). */
  amcheckUnlisted: number;
  chance: Chance | null;
}

export interface StatusRun {
  /** Block (within the file) of statuses[0]. */
  firstBlock: number;
  /** Status codes as chunks see them (checksums on); the verdict settles them. */
  statuses: Uint8Array;
}

export type FromWorker =
  | { type: 'start'; job: number; geometry: Geometry; blocks: number; trailingBytes: number; trailing: Uint8Array }
  | {
      type: 'progress';
      job: number;
      /** Statuses of runs of consecutive blocks, in no particular order. */
      runs: StatusRun[];
      bytesDone: number;
      /** Of a shared file: the part whose bytesDone this is. */
      part?: number;
    }
  /** A whole file's end carries its verdict; a part's end carries its exported scan. */
  | { type: 'done'; job: number; elapsedMs: number; result?: FileResult; part?: { index: number; scan: Uint8Array } }
  | { type: 'error'; job: number; message: string }
  | { type: 'cancelled'; job: number };
