// The contract's page status names (docs/contracts.md, "Page status"; the core's `status_names()`
// gives them in the order of its codes, which the page map's palette follows) and how the page
// words them. Which status is a problem is the core's to say (the verdict's rows).

export const STATUS_NAMES = ['ok', 'mismatch', 'zero', 'new_not_zero', 'bad_header'] as const;
export type StatusName = (typeof STATUS_NAMES)[number];

export const STATUS_WORDS: Record<StatusName, string> = {
  ok: 'checksum OK',
  mismatch: 'checksum mismatch',
  // The server reads it as an empty page; whether rows were lost there is the core's note
  // (zero_page_between_rows), said wherever the page is shown (ZERO_NOTE_WORDS).
  zero: 'all-zero new page, which the server reads as empty',
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

export type StatusCounts = Record<StatusName, number>;

export function emptyCounts(): StatusCounts {
  return { ok: 0, mismatch: 0, zero: 0, new_not_zero: 0, bad_header: 0 };
}

/** Adds `more` into `into`. */
export function addCounts(into: StatusCounts, more: StatusCounts): void {
  for (const s of STATUS_NAMES) into[s] += more[s];
}

/** The words for an all-zero page the core notes between pages with rows
 * (zero_page_between_rows), in the page view, the map, the problem list and the reports. */
export const ZERO_NOTE_WORDS = 'all-zero page between pages with rows: rows stored there would be gone';

/** The name of a zeroed page whose rows the report finds lost (damage `zeroed`): the server
 * raises no error for it, which is what makes it dangerous, so it is counted apart from the
 * pages the server refuses. The report's badge, the page view's and the summary's section
 * say the same words. */
export const READ_AS_EMPTY = 'read as empty';
export const READ_AS_EMPTY_WORDS =
  'a zeroed page whose rows are lost though the server reads it without an error, as an empty page: counted apart from the pages it refuses';

/** Whether a report's block is read as empty: zeroed, and the server reads it without an
 * error (an index page the server refuses as an unexpected zero page is zeroed too, but it
 * is an error the server raises, with its words in `server`). */
export const isReadAsEmpty = (b: { damage: string; server?: string | null }): boolean => b.damage === 'zeroed' && !b.server;

/** A report block's badge: what the server does with the page where it raises no error
 * (the core's `silent`: it reads a zeroed page as empty, an older copy or another relation's
 * page as if current), else the block's severity. */
export const severityBadge = (b: { damage: string; server?: string | null; severity: string; silent?: string }): string =>
  isReadAsEmpty(b) ? READ_AS_EMPTY : (b.silent?.split(':')[0] ?? b.severity);
