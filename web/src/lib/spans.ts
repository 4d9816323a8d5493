// Spans over one page's bytes as the core decoder (pgpage::decode, through the wasm
// bindings) emits them: the field's row (bare and qualified name, pageinspect column, doc,
// value formatted by its kind), role (the hex colour), the line pointer it belongs to and the
// finding, if the bytes look wrong. The hex view reads only spans and bytes.
import { decodedColumns, type DecodedColumns, type StructuresJs } from '../core';
import type { FileEntry } from '../files';
import type { Wasm } from '../core';

export interface Span {
  start: number;
  len: number;
  /** The bare PostgreSQL name (`pd_checksum`; `ItemIdData` for a line pointer's word). */
  field: string;
  /** `Structure.member` (`GinPageOpaqueData.flags`), or the region's name. */
  qualified: string;
  /** pageinspect's column for the field, if one shows it (`lsn` for pd_lsn). */
  column?: string;
  /** The row's value kind (`lsn`, `tid`, `flags`, `enum`, ...), if the span is a row. */
  kind?: string;
  role: string;
  /** Line pointer number (OffsetNumber, from 1), if the span belongs to one. */
  item?: number;
  /** The row's one-line doc, citing its own structure's header. */
  doc: string;
  /** The bytes' value as the core formats the row's kind (LSN as X/Y, flags by name). */
  value: string;
  /** The finding's message, if the bytes look wrong. */
  problem?: string;
  /** The finding's PostgreSQL rule (`file: function`). */
  rule?: string;
}

/** pageinspect's columns for the page, as `pgpage inspect --json` prints a block. */
export type { DecodedColumns } from '../core';

export interface DecodedPage extends DecodedColumns {
  spans: Span[];
  /** Findings about the page as a whole (decoded as its file's kind), as messages. */
  notes: string[];
}

/** The kind of a file's pages as the core decides it (fork, metapage, the pages' majority),
 * from its head; a page that does not show its kind decodes as this one. */
export function fileKindOf(w: Wasm, head: Uint8Array, blockSize: number, bigEndian: boolean, fork: string): string {
  return w.file_kind(head, blockSize, bigEndian, fork);
}

/** What the structural checks knew of a file's relation when it was verified: its entry in
 * its data directory's hints (`FileEntry.structure`). */
export interface StructureHints {
  hints: StructuresJs;
  entry: number;
}

// Each data directory's hints, read into the core once on this thread.
const imported = new WeakMap<Uint8Array, StructuresJs>();

/** The hints `f` was verified with, for the page view's decode to find what the verify list
 * found; undefined when it had its pages' own checks or none. */
export function structureHintsOf(w: Wasm, f: FileEntry): StructureHints | undefined {
  const ref = f.structure;
  const hints = f.naming?.catalog.hints;
  if (!ref || ref.set === null || !hints || hints.set !== ref.set) return undefined;
  let h = imported.get(hints.bytes);
  if (!h) imported.set(hints.bytes, (h = new w.StructuresJs(hints.bytes)));
  return { hints: h, entry: ref.entry };
}

/** What a decode may know of the page's relation beyond its bytes. */
export interface DecodeHints {
  /** As the structural checks see it (its relation's key columns, pg_class row and pg_xact). */
  structure?: StructureHints;
  /** The relation's column types (ColumnHint::parse_list), when a catalog gave them. */
  columns?: string;
  /** The name the core's messages quote for the relation (`index "%s"`): the catalog's, else the file's. */
  relation?: string;
}

/** Decodes a page with the core and turns its typed arrays into spans. */
export function decodeWithCore(
  w: Wasm,
  page: Uint8Array,
  absoluteBlock: number,
  bigEndian: boolean,
  fork: string,
  fileKind?: string,
  pgVersion?: number,
  hints: DecodeHints = {},
): DecodedPage {
  const { structure, columns } = hints;
  const d = structure
    ? w.decode_with(structure.hints, structure.entry, page, absoluteBlock >>> 0, bigEndian, fork, '', fileKind, pgVersion)
    : w.decode(page, absoluteBlock >>> 0, bigEndian, fork, '', fileKind, pgVersion, columns);
  try {
    const roles = w.role_names();
    const [start, end, role, item, field, problem, value] = [d.start, d.end, d.role, d.item, d.field, d.problem, d.value];
    const [names, qualified, columns, docs, kinds] = [d.field_names, d.field_qualified, d.field_columns, d.field_docs, d.field_kinds];
    const problems = d.problems.map((m) => m.replace('%s', hints.relation ?? 'this relation'));
    const rules = d.problem_rules;
    const spans: Span[] = Array.from(start, (s, i) => {
      const h = field[i];
      const p = problem[i] - 1;
      return {
        start: s,
        len: end[i] - s,
        field: names[h] ?? '?',
        qualified: qualified[h] ?? '?',
        column: columns[h] || undefined,
        kind: kinds[h] || undefined,
        role: roles[role[i]] ?? 'unused',
        item: item[i] === 0 ? undefined : item[i],
        doc: docs[h] ?? '',
        value: value[i] ?? '',
        problem: p < 0 ? undefined : problems[p],
        rule: p < 0 ? undefined : rules[p],
      };
    });
    const notes = Array.from(d.page_problems, (p) => problems[p]);
    const cols = decodedColumns(d);
    return { ...cols, items: cols.items ?? [], spans, notes };
  } finally {
    d.free();
  }
}

/** For each byte of the page, the index of its span (-1 where none). */
export function byteToSpan(spans: Span[], pageLen: number): Int32Array {
  const map = new Int32Array(pageLen).fill(-1);
  spans.forEach((s, i) => map.fill(i, s.start, Math.min(s.start + s.len, pageLen)));
  return map;
}
