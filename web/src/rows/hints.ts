// The incident report's hints for reading rows (the core's `Report::all_row_hints`: torn
// blocks' older writes, values a flipped bit probably changed), kept by data directory when
// its report is done: the rows worker reads a damaged page's rows through them, so the rows
// panel prints and counts them as the report and `pgpage rows` do.
const byRoot = new Map<string, string>();

/** The report of the data directory dropped at `root` is done; `json` is its row hints. */
export function rememberRowHints(root: string, json: string): void {
  byRoot.set(root, json);
}

/** The row hints of the data directory at `root`, as JSON by relation path; undefined
 * before its report is done. */
export function rowHintsOf(root: string): string | undefined {
  return byRoot.get(root);
}
