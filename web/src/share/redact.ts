// The "Redact row data" switch of the share actions: while it is on, every export (the PNG,
// the Markdown reports, hexdump -C and pg_filedump texts) masks the bytes the core's rule
// (pgpage::redact) says may hold row data, and says so in a line of its own. The switch is
// remembered for the browser tab's session (sessionStorage), never beyond it.
import { hexdumpC } from '../lib/messages';
import { createStore } from '../lib/store';
import type { Wasm } from '../core';

const KEY = 'pgpage-redact';

function stored(): boolean {
  try {
    return sessionStorage.getItem(KEY) === 'on';
  } catch {
    return false;
  }
}

const on = createStore(typeof sessionStorage === 'undefined' ? false : stored());

export function redactOn(): boolean {
  return on.get();
}

export function setRedact(value: boolean): void {
  try {
    sessionStorage.setItem(KEY, value ? 'on' : 'off');
  } catch {
    // Storage refused (private mode): the switch still holds for this page.
  }
  on.set(value);
}

/** The switch's state, re-rendering when it changes anywhere on the page. */
export const useRedact = on.use;

/** The attribute an element whose words may hold row data (a key the report names) carries:
 * its words without them, from the core's redacted report, which the pictures paint instead
 * while the switch is on (share/png.ts). None when the words hold no row data. */
export function redactedAs(plain: string, without: string | undefined): { 'data-redacted'?: string } {
  return without !== undefined && without !== plain ? { 'data-redacted': without } : {};
}

/** One page's redaction: 1 per masked byte, the counts and the note exports carry. */
export interface Redaction {
  mask: Uint8Array;
  tupleData: number;
  other: number;
  note: string;
}

/** The core's redaction of a page, decoded as the page view decodes it (`kind`: the decoded
 * page's kind, which a page that does not show its own was decoded as). */
export function redactionOf(wasm: Wasm, bytes: Uint8Array, absoluteBlock: number, bigEndian: boolean, fork: string, kind?: string): Redaction {
  const r = wasm.redact_page(bytes, absoluteBlock, bigEndian, fork, kind);
  try {
    return { mask: r.mask, tupleData: r.tuple_data, other: r.other, note: r.note };
  } finally {
    r.free();
  }
}

/** `hexdump -C` of page bytes [from, to) at file offset `fileOffset + from`; with a
 * redaction, masked bytes print as `xx` and `·` under a first line saying what was masked. */
export function pageHexdump(bytes: Uint8Array, fileOffset: number, from: number, to: number, redaction: Redaction | null): string {
  const dump = hexdumpC(bytes.subarray(from, to), fileOffset + from, redaction?.mask.subarray(from, to));
  return redaction ? `${redaction.note}\n${dump}` : dump;
}

/** The PNG copy of the page view with its row data masked: hex cells of masked bytes show
 * `xx`, their ASCII `·`, the items table's row-data columns "redacted", and the decoded
 * columns of a tuple and the hover line are left out. `copy` is the off-screen copy png.ts paints. */
export function maskCopy(copy: HTMLElement, r: Redaction, isRowDataColumn: (c: string) => boolean): void {
  for (const row of copy.querySelectorAll<HTMLElement>('.hexrow')) {
    const cells = [...row.querySelectorAll<HTMLElement>('.hexbytes [data-off]')];
    if (cells.length === 0) continue;
    const first = Number(cells[0].dataset.off);
    for (const c of cells) if (r.mask[Number(c.dataset.off)] === 1) c.textContent = 'xx';
    const ascii = row.querySelector<HTMLElement>('.hexascii');
    if (ascii?.textContent)
      ascii.textContent = Array.from(ascii.textContent)
        .map((ch, i) => (r.mask[first + i] === 1 ? '·' : ch))
        .join('');
  }
  for (const td of copy.querySelectorAll<HTMLElement>('td[data-col]')) {
    if (isRowDataColumn(td.dataset.col ?? '') && td.textContent) td.textContent = 'redacted';
  }
  for (const el of copy.querySelectorAll('[data-testid=tuple-columns], [data-testid=hover]')) el.remove();
}
