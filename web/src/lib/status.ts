// Page status codes as the wasm bindings return them (pgpage::verify::PageStatus::code, its
// declaration order) and the contract's names for them.

export const STATUS_NAMES = ['ok', 'mismatch', 'zero', 'new_not_zero', 'bad_header'] as const;
export type StatusName = (typeof STATUS_NAMES)[number];

export const STATUS_WORDS: Record<StatusName, string> = {
  ok: 'checksum OK',
  mismatch: 'checksum mismatch',
  zero: 'all-zero new page (fine)',
  new_not_zero: 'pd_upper is 0 but the page is not all zeros (the server rejects it)',
  bad_header: 'checksum OK but the page header is insane (the server rejects it)',
};

/** One letter per status, so the page map and legend do not rely on colour alone. */
export const STATUS_LETTER: Record<StatusName, string> = {
  ok: '·',
  mismatch: 'M',
  zero: '0',
  new_not_zero: 'N',
  bad_header: 'H',
};

export function statusName(code: number): StatusName {
  return STATUS_NAMES[code] ?? 'mismatch';
}

export function isProblem(s: StatusName): boolean {
  return s !== 'ok' && s !== 'zero';
}

export type StatusCounts = Record<StatusName, number>;

export function emptyCounts(): StatusCounts {
  return { ok: 0, mismatch: 0, zero: 0, new_not_zero: 0, bad_header: 0 };
}

/** Adds `more` into `into`. */
export function addCounts(into: StatusCounts, more: StatusCounts): void {
  for (const s of STATUS_NAMES) into[s] += more[s];
}
