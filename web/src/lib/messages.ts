// The lines PostgreSQL's own tools print about a bad page, so a user can paste ours where
// theirs would appear: pg_checksums, the server's read path (bufpage.c + bufmgr.c),
// pg_basebackup, and `hexdump -C` for the bytes.

const hexUpper = (v: number): string => v.toString(16).toUpperCase();

/** pageinspect shows pd_checksum as a signed int2 (page_header's `checksum smallint`). */
export function signedInt2(v: number): number {
  return v >= 0x8000 ? v - 0x10000 : v;
}

/** `981 (0x3D5, int2 981)`: the three ways people meet a checksum. */
export function checksumWords(v: number): string {
  return `${v} (0x${hexUpper(v).padStart(4, '0')}, int2 ${signedInt2(v)})`;
}

/** pg_checksums.c: scan_file's failure line. `path` as the user would pass it. */
export function pgChecksumsLine(path: string, blockInFile: number, computed: number, stored: number): string {
  return `pg_checksums: error: checksum verification failed in file "${path}", block ${blockInFile}: calculated checksum ${hexUpper(computed)} but block contains ${hexUpper(stored)}`;
}

/**
 * The server reading the page: bufpage.c PageIsVerified's WARNING (only for a checksum
 * mismatch) then bufmgr.c's ERROR with the relation-wide block and relpath() (no segment).
 * PostgreSQL 18 reads through its AIO path: the checksum failure is logged at LOG level, which
 * a client does not see by default, and the ERROR quotes the path (`pgVersion` when known;
 * held against each server in tests/pg/cluster.ts' serverVerdicts).
 */
export function serverLines(
  relpath: string,
  absoluteBlock: number,
  status: string,
  computed: number | null,
  stored: number,
  pgVersion: number | null = null,
): string {
  const lines: string[] = [];
  const aio = pgVersion !== null && pgVersion >= 18;
  if (status === 'mismatch' && computed !== null && !aio) {
    lines.push(`WARNING:  page verification failed, calculated checksum ${computed} but expected ${stored}`);
  }
  lines.push(`ERROR:  invalid page in block ${absoluteBlock} of relation ${aio ? `"${relpath}"` : relpath}`);
  return lines.join('\n');
}

/** basebackup.c (PostgreSQL 15): sendFile's per-block warning. */
export function pgBasebackupLine(path: string, blockInFile: number, computed: number, stored: number): string {
  return `WARNING:  checksum verification failed in file "./${path.replace(/^\.\//, '')}", block ${blockInFile}: calculated ${hexUpper(computed)} but expected ${hexUpper(stored)}`;
}

/** relpath() for a relation file: `base/DB/REL[_fork]`, the segment dropped. */
export function relpathOf(dir: string | null, relfilenode: number, fork: string): string {
  const suffix = fork === 'main' ? '' : `_${fork}`;
  return `${dir ?? 'base/<dboid>'}/${relfilenode}${suffix}`;
}

/** `hexdump -C` of `bytes` whose first byte sits at file offset `base`, repeats folded to `*`. */
export function hexdumpC(bytes: Uint8Array, base = 0): string {
  const out: string[] = [];
  let prev: string | null = null;
  let starred = false;
  for (let i = 0; i < bytes.length; i += 16) {
    const row = bytes.subarray(i, Math.min(i + 16, bytes.length));
    const key = Array.from(row).join(',');
    if (key === prev && row.length === 16) {
      if (!starred) out.push('*');
      starred = true;
      continue;
    }
    prev = key;
    starred = false;
    let hex = '';
    for (let j = 0; j < 16; j++) {
      hex += j < row.length ? `${row[j].toString(16).padStart(2, '0')} ` : '   ';
      if (j === 7) hex += ' ';
    }
    let ascii = '';
    for (const b of row) ascii += b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.';
    out.push(`${(base + i).toString(16).padStart(8, '0')}  ${hex} |${ascii}|`);
  }
  out.push((base + bytes.length).toString(16).padStart(8, '0'));
  return out.join('\n') + '\n';
}
