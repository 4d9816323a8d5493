// The lines PostgreSQL's own tools print about a bad page, so a user can paste ours where
// theirs would appear: pg_checksums, the server's read path (bufpage.c + bufmgr.c),
// pg_basebackup, and `hexdump -C` for the bytes.

import type { Wasm } from '../core';

const hexUpper = (v: number): string => v.toString(16).toUpperCase();

/** pageinspect shows pd_checksum as a signed int2 (page_header's `checksum smallint`). */
export function signedInt2(v: number): number {
  return v >= 0x8000 ? v - 0x10000 : v;
}

/** `981 (0x3D5, int2 981)`: the three ways people meet a checksum. */
export function checksumWords(v: number): string {
  return `${v} (0x${hexUpper(v).padStart(4, '0')}, int2 ${signedInt2(v)})`;
}

/** `981 (0x03D5)`: a checksum as pg_checksums and the server's WARNING give it; pageinspect's
 * signed int2 belongs where its page_header() columns are shown. */
export function checksumDecHex(v: number): string {
  return `${v} (0x${hexUpper(v).padStart(4, '0')})`;
}

/** The lines PostgreSQL's tools print about a page, in the core's words (crates/pgpage
 * messages.rs): pg_checksums, the server reading it (18's differ), pg_basebackup. */
export type MessageCore = Pick<Wasm, 'pg_checksums_line' | 'server_lines' | 'pg_basebackup_line'>;

/** `pg_checksums --check`'s failure line; `path` as the user would pass it. */
export function pgChecksumsLine(w: MessageCore, path: string, blockInFile: number, computed: number, stored: number): string {
  return w.pg_checksums_line(path, blockInFile, computed, stored);
}

/** The server reading the page: its WARNING (where a client sees it) and ERROR; `pgVersion`
 * PG_VERSION when known. */
export function serverLines(
  w: MessageCore,
  relpath: string,
  absoluteBlock: number,
  status: string,
  computed: number | null,
  stored: number,
  pgVersion: number | null = null,
): string {
  return w.server_lines(relpath, absoluteBlock, status, computed ?? undefined, stored, pgVersion ?? undefined);
}

/** pg_basebackup's per-block warning. */
export function pgBasebackupLine(w: MessageCore, path: string, blockInFile: number, computed: number, stored: number): string {
  return w.pg_basebackup_line(path, blockInFile, computed, stored);
}

/** relpath() for a relation file: `base/DB/REL[_fork]`, the segment dropped. */
export function relpathOf(dir: string | null, relfilenode: number, fork: string): string {
  const suffix = fork === 'main' ? '' : `_${fork}`;
  return `${dir ?? 'base/<dboid>'}/${relfilenode}${suffix}`;
}

/** `hexdump -C` of `bytes` whose first byte sits at file offset `base`, repeats folded to `*`;
 * bytes whose `masked` entry is 1 print as `xx` and `·` (share/redact.ts). */
export function hexdumpC(bytes: Uint8Array, base = 0, masked?: Uint8Array): string {
  const out: string[] = [];
  let prev: string | null = null;
  let starred = false;
  for (let i = 0; i < bytes.length; i += 16) {
    const end = Math.min(i + 16, bytes.length);
    let hex = '';
    let ascii = '';
    for (let j = 0; j < 16; j++) {
      const at = i + j;
      const hidden = masked?.[at] === 1;
      const b = bytes[at];
      hex += at < end ? `${hidden ? 'xx' : b.toString(16).padStart(2, '0')} ` : '   ';
      if (j === 7) hex += ' ';
      if (at < end) ascii += hidden ? '·' : b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.';
    }
    const key = hex + ascii;
    if (key === prev && end - i === 16) {
      if (!starred) out.push('*');
      starred = true;
      continue;
    }
    prev = key;
    starred = false;
    out.push(`${(base + i).toString(16).padStart(8, '0')}  ${hex} |${ascii}|`);
  }
  out.push((base + bytes.length).toString(16).padStart(8, '0'));
  return out.join('\n') + '\n';
}

/** A message as a sentence of its own: with its closing period, when the core's has none. */
export function sentence(m: string): string {
  return /[.!?:]$/.test(m.trim()) ? m.trim() : `${m.trim()}.`;
}
