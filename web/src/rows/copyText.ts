// COPY's text format read back into fields (copyfromparse.c CopyReadAttributesText's
// escapes): the Rows view shows the worker's text lines as cells.

const ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };

/** One line (without its newline) as its fields; `\N` is NULL. */
export function copyTextFields(line: string): (string | null)[] {
  return line.split('\t').map((f) => (f === '\\N' ? null : f.includes('\\') ? f.replace(/\\(.)/g, (_, c: string) => ESCAPES[c] ?? c) : f));
}

/** A run of lines as rows. */
export function copyTextRows(text: string): (string | null)[][] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map(copyTextFields);
}
