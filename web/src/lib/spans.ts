// Spans over one page's bytes: each names a field as PostgreSQL's headers do, its role (the
// hex colour) and its decoded value. The hex view reads only spans and bytes. Fixed
// structures are one table each; variable regions (line pointers, tuples, special space)
// are walked by code and emit the same spans. Out-of-range offsets give a flag, never a throw.

export type Role =
  | 'header'
  | 'line_pointer'
  | 'tuple_header'
  | 'tuple_data'
  | 'special'
  | 'free_space'
  | 'unknown';

export const ROLES: Role[] = ['header', 'line_pointer', 'tuple_header', 'tuple_data', 'special', 'free_space', 'unknown'];

export interface Span {
  start: number;
  len: number;
  field: string;
  role: Role;
  /** Line pointer / tuple number (1-based, as pageinspect's lp), if the span belongs to one. */
  item?: number;
  value: string;
  doc: string;
  flagged?: boolean;
}

export interface FieldRow {
  field: string;
  offset: number;
  size: 1 | 2 | 4 | 8;
  kind: 'u' | 'lsn' | 'xid' | 'flags' | 'pagesize_version' | 'tid';
  doc: string;
}

/** bufpage.h: PageHeaderData, 24 bytes. */
export const PAGE_HEADER: FieldRow[] = [
  { field: 'pd_lsn', offset: 0, size: 8, kind: 'lsn', doc: 'bufpage.h: PageHeaderData.pd_lsn, LSN of the last WAL record that changed the page' },
  { field: 'pd_checksum', offset: 8, size: 2, kind: 'u', doc: 'bufpage.h: PageHeaderData.pd_checksum, the page checksum (checksum_impl.h)' },
  { field: 'pd_flags', offset: 10, size: 2, kind: 'flags', doc: 'bufpage.h: PageHeaderData.pd_flags, PD_HAS_FREE_LINES | PD_PAGE_FULL | PD_ALL_VISIBLE' },
  { field: 'pd_lower', offset: 12, size: 2, kind: 'u', doc: 'bufpage.h: PageHeaderData.pd_lower, offset to the start of free space' },
  { field: 'pd_upper', offset: 14, size: 2, kind: 'u', doc: 'bufpage.h: PageHeaderData.pd_upper, offset to the end of free space' },
  { field: 'pd_special', offset: 16, size: 2, kind: 'u', doc: 'bufpage.h: PageHeaderData.pd_special, offset to the start of the special space' },
  { field: 'pd_pagesize_version', offset: 18, size: 2, kind: 'pagesize_version', doc: 'bufpage.h: PageHeaderData.pd_pagesize_version, page size | layout version' },
  { field: 'pd_prune_xid', offset: 20, size: 4, kind: 'xid', doc: 'bufpage.h: PageHeaderData.pd_prune_xid, oldest prunable XID, or 0' },
];
export const SIZE_OF_PAGE_HEADER = 24;

/** htup_details.h: HeapTupleHeaderData up to t_bits (offsetof(t_bits) = 23). */
export const HEAP_TUPLE_HEADER: FieldRow[] = [
  { field: 't_xmin', offset: 0, size: 4, kind: 'xid', doc: 'htup_details.h: HeapTupleFields.t_xmin, inserting transaction' },
  { field: 't_xmax', offset: 4, size: 4, kind: 'xid', doc: 'htup_details.h: HeapTupleFields.t_xmax, deleting or locking transaction' },
  { field: 't_field3', offset: 8, size: 4, kind: 'u', doc: 'htup_details.h: t_cid (command id) or t_xvac' },
  { field: 't_ctid', offset: 12, size: 4, kind: 'tid', doc: 'htup_details.h: t_ctid, this or the newer version of the tuple (block, offset)' },
  { field: 't_infomask2', offset: 18, size: 2, kind: 'flags', doc: 'htup_details.h: t_infomask2, number of attributes and flags' },
  { field: 't_infomask', offset: 20, size: 2, kind: 'flags', doc: 'htup_details.h: t_infomask, visibility flags' },
  { field: 't_hoff', offset: 22, size: 1, kind: 'u', doc: 'htup_details.h: t_hoff, offset to user data' },
];
const T_CTID_SIZE = 6;

const PD_FLAGS: [number, string][] = [
  [0x1, 'PD_HAS_FREE_LINES'],
  [0x2, 'PD_PAGE_FULL'],
  [0x4, 'PD_ALL_VISIBLE'],
];
const LP_FLAGS = ['LP_UNUSED', 'LP_NORMAL', 'LP_REDIRECT', 'LP_DEAD'];
// htup_details.h, as heap_tuple_infomask_flags names them.
const INFOMASK: [number, string][] = [
  [0x0001, 'HEAP_HASNULL'], [0x0002, 'HEAP_HASVARWIDTH'], [0x0004, 'HEAP_HASEXTERNAL'],
  [0x0008, 'HEAP_HASOID_OLD'], [0x0010, 'HEAP_XMAX_KEYSHR_LOCK'], [0x0020, 'HEAP_COMBOCID'],
  [0x0040, 'HEAP_XMAX_EXCL_LOCK'], [0x0080, 'HEAP_XMAX_LOCK_ONLY'], [0x0100, 'HEAP_XMIN_COMMITTED'],
  [0x0200, 'HEAP_XMIN_INVALID'], [0x0400, 'HEAP_XMAX_COMMITTED'], [0x0800, 'HEAP_XMAX_INVALID'],
  [0x1000, 'HEAP_XMAX_IS_MULTI'], [0x2000, 'HEAP_UPDATED'], [0x4000, 'HEAP_MOVED_OFF'],
  [0x8000, 'HEAP_MOVED_IN'],
];
const INFOMASK2: [number, string][] = [
  [0x2000, 'HEAP_KEYS_UPDATED'], [0x4000, 'HEAP_HOT_UPDATED'], [0x8000, 'HEAP_ONLY_TUPLE'],
];
const BTPO_FLAGS: [number, string][] = [
  [0x1, 'BTP_LEAF'], [0x2, 'BTP_ROOT'], [0x4, 'BTP_DELETED'], [0x8, 'BTP_META'],
  [0x10, 'BTP_HALF_DEAD'], [0x20, 'BTP_SPLIT_END'], [0x40, 'BTP_HAS_GARBAGE'],
  [0x80, 'BTP_INCOMPLETE_SPLIT'], [0x100, 'BTP_HAS_FULLXID'],
];

export function flagNames(v: number, table: [number, string][]): string[] {
  return table.filter(([bit]) => (v & bit) !== 0).map(([, name]) => name);
}

class Reader {
  constructor(
    private readonly page: Uint8Array,
    private readonly little: boolean,
  ) {}
  private view = (): DataView => new DataView(this.page.buffer, this.page.byteOffset, this.page.byteLength);
  fits(off: number, size: number): boolean {
    return off >= 0 && off + size <= this.page.length;
  }
  u8(off: number): number {
    return this.fits(off, 1) ? this.page[off] : 0;
  }
  u16(off: number): number {
    return this.fits(off, 2) ? this.view().getUint16(off, this.little) : 0;
  }
  u32(off: number): number {
    return this.fits(off, 4) ? this.view().getUint32(off, this.little) : 0;
  }
}

export type PageKind = 'heap' | 'btree' | 'hash' | 'gist' | 'gin' | 'spgist' | 'brin' | 'sequence' | 'fsm' | 'vm' | 'unknown' | 'zero';

export interface LinePointer {
  lp: number;
  lp_off: number;
  lp_flags: number;
  lp_len: number;
  flagged: boolean;
}

export interface DecodedPage {
  kind: PageKind;
  header: Record<string, string>;
  linePointers: LinePointer[];
  tuples: { lp: number; fields: Record<string, string> }[];
  special: Record<string, string>;
  spans: Span[];
  problems: string[];
}

function rowValue(r: Reader, base: number, row: FieldRow): string {
  const off = base + row.offset;
  switch (row.kind) {
    case 'lsn': {
      // pd_lsn is two uint32 halves, xlogid then xrecoff, each in the server's byte order.
      const hi = r.u32(off);
      const lo = r.u32(off + 4);
      return `${hi.toString(16).toUpperCase()}/${lo.toString(16).toUpperCase()}`;
    }
    case 'pagesize_version': {
      const v = r.u16(off);
      return `${v & 0xff00} | ${v & 0xff}`;
    }
    case 'tid':
      return `(${(r.u16(off) << 16) | r.u16(off + 2)},${r.u16(off + 4)})`;
    default:
      return String(row.size === 1 ? r.u8(off) : row.size === 2 ? r.u16(off) : r.u32(off));
  }
}

/** Guesses the page kind from the special space size and the page id, like pageinspect users do. */
function detectKind(r: Reader, pageLen: number, special: number, fork: string): PageKind {
  if (fork === 'fsm') return 'fsm';
  if (fork === 'vm') return 'vm';
  const size = pageLen - special;
  if (size === 0) return 'heap';
  const pageId = r.u16(pageLen - 2);
  if (size === 16) {
    if (pageId === 0xff80) return 'hash';
    if (pageId === 0xff81) return 'gist';
    return 'btree';
  }
  if (size === 8 && r.u32(special) === 0x1717) return 'sequence';
  if (size === 8 && pageId === 0xff82) return 'spgist';
  if (size === 8 && pageId >= 0xf091 && pageId <= 0xf093) return 'brin';
  if (size === 8) return 'gin';
  return 'unknown';
}

/** Decodes the page header, line pointers, tuple headers and special space into spans. */
export function decodePage(page: Uint8Array, littleEndian = true, fork = 'main'): DecodedPage {
  const r = new Reader(page, littleEndian);
  const n = page.length;
  const spans: Span[] = [];
  const problems: string[] = [];
  const header: Record<string, string> = {};
  const special: Record<string, string> = {};
  const linePointers: LinePointer[] = [];
  const tuples: DecodedPage['tuples'] = [];
  const push = (s: Span): void => {
    if (s.len > 0 && s.start >= 0 && s.start + s.len <= n) spans.push(s);
  };

  if (page.every((b) => b === 0)) {
    push({ start: 0, len: n, field: 'zero page', role: 'free_space', value: 'all zeros', doc: 'bufpage.h: PageIsNew, an all-zero page the server accepts' });
    return { kind: 'zero', header, linePointers, tuples, special, spans, problems };
  }

  for (const row of PAGE_HEADER) {
    const value = rowValue(r, 0, row);
    header[row.field] = value;
    let shown = value;
    if (row.kind === 'flags') shown = `${value} ${flagNames(Number(value), PD_FLAGS).join('|')}`.trim();
    push({ start: row.offset, len: row.size, field: row.field, role: 'header', value: shown, doc: row.doc });
  }
  const lower = r.u16(12);
  const upper = r.u16(14);
  const specialOff = r.u16(16);
  const fsmOrVm = fork === 'fsm' || fork === 'vm';
  const kind = detectKind(r, n, specialOff, fork);

  const specialSane = specialOff <= n && specialOff >= SIZE_OF_PAGE_HEADER;
  if (!specialSane) problems.push(`pd_special ${specialOff} is outside the page`);
  if (lower < SIZE_OF_PAGE_HEADER || lower > n) problems.push(`pd_lower ${lower} is outside the page`);
  if (upper > n || (upper !== 0 && upper < lower)) problems.push(`pd_upper ${upper} is not between pd_lower and the page end`);

  // Line pointers: bufpage.h ItemIdData, lp_off:15 lp_flags:2 lp_len:15 in one uint32.
  const lpEnd = fsmOrVm ? SIZE_OF_PAGE_HEADER : Math.min(Math.max(lower, SIZE_OF_PAGE_HEADER), n);
  const nLp = Math.floor((lpEnd - SIZE_OF_PAGE_HEADER) / 4);
  for (let i = 0; i < nLp; i++) {
    const off = SIZE_OF_PAGE_HEADER + i * 4;
    const w = r.u32(off);
    const lp = { lp: i + 1, lp_off: w & 0x7fff, lp_flags: (w >>> 15) & 3, lp_len: w >>> 17, flagged: false };
    if (lp.lp_flags !== 0 && lp.lp_flags !== 2 && (lp.lp_off + lp.lp_len > n || lp.lp_off < SIZE_OF_PAGE_HEADER)) {
      lp.flagged = true;
      problems.push(`lp ${lp.lp} points outside the page (lp_off ${lp.lp_off}, lp_len ${lp.lp_len})`);
    }
    linePointers.push(lp);
    push({
      start: off, len: 4, field: 'ItemIdData', role: 'line_pointer', item: lp.lp, flagged: lp.flagged,
      value: `lp ${lp.lp}: lp_off ${lp.lp_off}, lp_flags ${lp.lp_flags} ${LP_FLAGS[lp.lp_flags]}, lp_len ${lp.lp_len}`,
      doc: 'itemid.h: ItemIdData, lp_off:15 lp_flags:2 lp_len:15',
    });
  }

  // Tuples (LP_NORMAL only; REDIRECT and DEAD have no storage).
  const taken = new Uint8Array(n);
  for (const lp of linePointers) {
    if (lp.lp_flags !== 1 || lp.flagged || lp.lp_len === 0) continue;
    const start = lp.lp_off;
    const end = start + lp.lp_len;
    if (taken.subarray(start, end).some((b) => b !== 0)) continue; // overlapping tuples: keep the first
    taken.fill(1, start, end);
    if (kind === 'heap' || kind === 'sequence') {
      const fields: Record<string, string> = {};
      for (const row of HEAP_TUPLE_HEADER) {
        const size = row.field === 't_ctid' ? T_CTID_SIZE : row.size;
        if (row.offset + size > lp.lp_len) break;
        const value = rowValue(r, start, row);
        fields[row.field] = value;
        let shown = value;
        if (row.field === 't_infomask') shown = `${value} ${flagNames(Number(value), INFOMASK).join('|')}`;
        if (row.field === 't_infomask2') shown = `${value} natts ${Number(value) & 0x7ff} ${flagNames(Number(value), INFOMASK2).join('|')}`;
        push({ start: start + row.offset, len: size, field: row.field, role: 'tuple_header', item: lp.lp, value: shown, doc: row.doc });
      }
      const hoff = Math.min(Number(fields.t_hoff ?? 23), lp.lp_len);
      if (hoff > 23) {
        push({ start: start + 23, len: hoff - 23, field: 't_bits', role: 'tuple_header', item: lp.lp, value: 'null bitmap and padding', doc: 'htup_details.h: t_bits, the null bitmap (when HEAP_HASNULL), then MAXALIGN padding' });
      }
      push({ start: start + Math.max(hoff, 23), len: lp.lp_len - Math.max(hoff, 23), field: 'tuple data', role: 'tuple_data', item: lp.lp, value: `${lp.lp_len - hoff} bytes`, doc: 'The attribute values, laid out by the table\'s row type' });
      tuples.push({ lp: lp.lp, fields });
    } else {
      // itup.h: IndexTupleData, t_tid (6 bytes) and t_info (2 bytes), then the key.
      const fields: Record<string, string> = {};
      if (lp.lp_len >= 8) {
        fields.t_tid = `(${(r.u16(start) << 16) | r.u16(start + 2)},${r.u16(start + 4)})`;
        const info = r.u16(start + 6);
        fields.t_info = String(info);
        push({ start, len: 6, field: 't_tid', role: 'tuple_header', item: lp.lp, value: fields.t_tid, doc: 'itup.h: IndexTupleData.t_tid, the heap tuple (or child page) this entry points to' });
        push({ start: start + 6, len: 2, field: 't_info', role: 'tuple_header', item: lp.lp, value: `${info}: size ${info & 0x1fff}${info & 0x8000 ? ' INDEX_NULL_MASK' : ''}${info & 0x4000 ? ' INDEX_VAR_MASK' : ''}`, doc: 'itup.h: IndexTupleData.t_info, size and flags' });
        push({ start: start + 8, len: lp.lp_len - 8, field: 'index data', role: 'tuple_data', item: lp.lp, value: `${lp.lp_len - 8} bytes`, doc: 'The index key (and posting list)' });
      } else {
        push({ start, len: lp.lp_len, field: 'item', role: 'tuple_data', item: lp.lp, value: `${lp.lp_len} bytes`, doc: 'Item data' });
      }
      tuples.push({ lp: lp.lp, fields });
    }
  }

  // Special space.
  if (specialSane && specialOff < n) {
    if (kind === 'btree' && n - specialOff === 16) {
      const rows: [string, number, number, string][] = [
        ['btpo_prev', 0, 4, 'nbtree.h: BTPageOpaqueData.btpo_prev, left sibling'],
        ['btpo_next', 4, 4, 'nbtree.h: BTPageOpaqueData.btpo_next, right sibling'],
        ['btpo_level', 8, 4, 'nbtree.h: BTPageOpaqueData.btpo_level, tree level (0 = leaf)'],
        ['btpo_flags', 12, 2, 'nbtree.h: BTPageOpaqueData.btpo_flags'],
        ['btpo_cycleid', 14, 2, 'nbtree.h: BTPageOpaqueData.btpo_cycleid, vacuum cycle id'],
      ];
      for (const [field, off, size, doc] of rows) {
        const v = size === 4 ? r.u32(specialOff + off) : r.u16(specialOff + off);
        special[field] = String(v);
        const shown = field === 'btpo_flags' ? `${v} ${flagNames(v, BTPO_FLAGS).join('|')}` : String(v);
        push({ start: specialOff + off, len: size, field, role: 'special', value: shown, doc });
      }
    } else {
      push({ start: specialOff, len: n - specialOff, field: `special (${kind})`, role: 'special', value: `${n - specialOff} bytes`, doc: 'bufpage.h: the access method\'s special space at pd_special' });
    }
  }

  // Free space between pd_lower and pd_upper, and whatever else nothing claimed.
  if (!fsmOrVm && lower >= SIZE_OF_PAGE_HEADER && upper > lower && upper <= n) {
    push({ start: lower, len: upper - lower, field: 'free space', role: 'free_space', value: `${upper - lower} bytes`, doc: 'bufpage.h: the hole between pd_lower and pd_upper' });
  }
  spans.sort((a, b) => a.start - b.start);
  const filled: Span[] = [];
  let at = 0;
  for (const s of spans) {
    if (s.start < at) continue; // overlap: the earlier span wins
    if (s.start > at) filled.push(gap(at, s.start - at, fsmOrVm ? fork : kind));
    filled.push(s);
    at = s.start + s.len;
  }
  if (at < n) filled.push(gap(at, n - at, fsmOrVm ? fork : kind));
  return { kind, header, linePointers, tuples, special, spans: filled, problems };
}

function gap(start: number, len: number, kind: string): Span {
  if (kind === 'fsm' || kind === 'vm') {
    return { start, len, field: `${kind} contents`, role: 'tuple_data', value: `${len} bytes`, doc: kind === 'fsm' ? 'fsm_internals.h: FSMPageData, the free space tree' : 'visibilitymap.c: two bits per heap block, all-visible and all-frozen' };
  }
  return { start, len, field: 'unclaimed', role: 'unknown', value: `${len} bytes`, doc: 'Bytes no line pointer or header claims (dead space, padding or damage)' };
}

/** For each byte of the page, the index of its span (every byte has one). */
export function byteToSpan(spans: Span[], pageLen: number): Int32Array {
  const map = new Int32Array(pageLen).fill(-1);
  spans.forEach((s, i) => map.fill(i, s.start, Math.min(s.start + s.len, pageLen)));
  return map;
}
