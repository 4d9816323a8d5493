// Spans over one page's bytes as the core decoder (pgpage::decode, through the wasm
// bindings) emits them: field name as in PostgreSQL's headers, role (the hex colour), the
// line pointer it belongs to and what looks wrong. The hex view reads only spans and bytes.
import type { Wasm } from '../wasm';

export interface Span {
  start: number;
  len: number;
  field: string;
  role: string;
  /** Line pointer number (OffsetNumber, from 1), if the span belongs to one. */
  item?: number;
  doc: string;
  problem?: string;
}

/** pageinspect's columns for the page, as `pgpage inspect --json` prints a block. */
export interface DecodedColumns {
  kind: string;
  header: Record<string, string | number>;
  flag_names: string[];
  items: Record<string, unknown>[];
  special: Record<string, unknown> | null;
}

export interface DecodedPage extends DecodedColumns {
  spans: Span[];
}

/** Decodes a page with the core and turns its typed arrays into spans. */
export function decodeWithCore(w: Wasm, page: Uint8Array, absoluteBlock: number, bigEndian: boolean, fork: string): DecodedPage {
  const d = w.decode(page, absoluteBlock >>> 0, bigEndian, fork, '');
  try {
    const roles = w.role_names();
    const [start, end, role, item, field, problem] = [d.start, d.end, d.role, d.item, d.field, d.problem];
    const names = d.field_names;
    const docs = d.field_docs;
    const problems = d.problems;
    const spans: Span[] = Array.from(start, (s, i) => ({
      start: s,
      len: end[i] - s,
      field: names[field[i]] ?? '?',
      role: roles[role[i]] ?? 'unused',
      item: item[i] === 0 ? undefined : item[i],
      doc: docs[field[i]] ?? '',
      problem: problem[i] === 0 ? undefined : problems[problem[i] - 1],
    }));
    const cols = JSON.parse(d.json) as DecodedColumns;
    return { ...cols, items: cols.items ?? [], spans };
  } finally {
    d.free();
  }
}

/** The integer a span of 1, 2 or 4 bytes holds, else its bytes in hex: for the hover line. */
export function spanValue(page: Uint8Array, s: Span, littleEndian: boolean): string {
  const b = page.subarray(s.start, s.start + s.len);
  if (b.length === 1 || b.length === 2 || b.length === 4) {
    const v = new DataView(b.buffer, b.byteOffset, b.length);
    const n = b.length === 1 ? v.getUint8(0) : b.length === 2 ? v.getUint16(0, littleEndian) : v.getUint32(0, littleEndian);
    return `${n} (0x${n.toString(16)})`;
  }
  const shown = Array.from(b.subarray(0, 16), (x) => x.toString(16).padStart(2, '0')).join(' ');
  return `${b.length} bytes${b.length > 0 ? `: ${shown}${b.length > 16 ? ' …' : ''}` : ''}`;
}

/** For each byte of the page, the index of its span (-1 where none). */
export function byteToSpan(spans: Span[], pageLen: number): Int32Array {
  const map = new Int32Array(pageLen).fill(-1);
  spans.forEach((s, i) => map.fill(i, s.start, Math.min(s.start + s.len, pageLen)));
  return map;
}
