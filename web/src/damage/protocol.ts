// The one typed message module between the page and the damage worker: bit-flip localisation
// of one page and the chunked comparison of two copies of a file.

/** One candidate flip as the core's `bitflip::FlipCandidate` serializes it. */
export interface FlipCandidate {
  offset: number;
  bit: number;
  byte: number;
  flipped: number;
  field: string;
  structurally_valid: boolean;
  findings: string[];
}

/** `bit_flips()` of the wasm bindings: the core's BitFlips plus the odds in words. */
export interface BitFlips {
  searched: number;
  findings_before: string[];
  candidates: FlipCandidate[];
  chance: { searched: number; matches: number; expected: number; probability: number };
  odds: string;
  /** The core's rank of each candidate (1 = most likely) and its reason in words. */
  ranks: { offset: number; bit: number; rank: number; why: string }[];
}

/** One page that is not equal in both copies (the core's `diff::PageDiff`). */
export interface PageDiff {
  block: number;
  state: 'different' | 'only_a' | 'only_b';
  newer?: 'a' | 'b' | 'same';
  bytes_changed: number;
  bits_set: number;
  bits_cleared: number;
  sectors: number[];
  ranges: [number, number][];
}

export interface DiffSummary {
  blocks_a: number;
  blocks_b: number;
  equal: number;
  different: number;
  only_a: number;
  only_b: number;
}

export interface FlipsRequest {
  type: 'flips';
  job: number;
  page: Uint8Array;
  absoluteBlock: number;
  bigEndian: boolean;
  fork: string;
  fileKind: string | undefined;
}

export interface CompareRequest {
  type: 'compare';
  job: number;
  /** A: the good copy, the baseline; B: the file open in the page view. As `pgpage diff
   * COPY FILE`: bits set are 0 in the copy and 1 in the file, what the damage set. */
  a: File;
  b: File;
  blockSize: number;
  bigEndian: boolean;
}

export type ToDamage = FlipsRequest | CompareRequest | { type: 'cancel'; job: number };

export type FromDamage =
  | { type: 'flips'; job: number; flips: BitFlips; ms: number }
  | { type: 'progress'; job: number; bytesDone: number; bytesTotal: number }
  | { type: 'compared'; job: number; pages: PageDiff[]; summary: DiffSummary; ms: number }
  | { type: 'error'; job: number; message: string };
