// A data directory's global/pg_control and PG_VERSION, read when a directory (or a pg_control
// beside relation files) is dropped: the core decodes pg_control, and what it says of data
// checksums decides how every file of that directory is verified.
import { decodeControl, type Wasm } from '../core';
import type { ChecksumsCode } from '../worker/protocol';

/** A dropped data directory's control file, as the panel shows it. */
export interface ClusterControl {
  /** The dropped directory's path prefix (`pgdata/`, or '' for files dropped loose). */
  root: string;
  /** pg_control's path as dropped. */
  path: string;
  /** The major version PG_VERSION names (the core reads it), null when it was not dropped. */
  pgVersion: number | null;
  /** `decode_control`'s object: the pg_control_*() columns, `state`, `crc_ok`, `releases`, `text`,
   * and the core's reading of the checksum state (`checksums_code`, `checksum_version`,
   * `checksum_state`, `checksum_change`). */
  control: Record<string, unknown> | null;
  /** Why pg_control could not be decoded. */
  error: string | null;
}

/** A file as the pickers and drops hand it over (only what this module reads). */
interface Dropped {
  file: File;
  path: string;
}

/** The directory part of a path, with its trailing slash ('' at the top). */
const dirOf = (path: string): string => path.slice(0, path.lastIndexOf('/') + 1);

/** Every pg_control of a drop (global/pg_control of a data directory, or a pg_control dropped
 * beside relation files), decoded, with the PG_VERSION beside it. */
export async function readControls(w: Wasm, list: readonly Dropped[]): Promise<ClusterControl[]> {
  const out: ClusterControl[] = [];
  for (const c of list.filter((x) => x.path === 'pg_control' || x.path.endsWith('/pg_control'))) {
    const dir = dirOf(c.path);
    const root = dir.endsWith('global/') ? dir.slice(0, -'global/'.length) : dir;
    const version = list.find((x) => x.path === `${root}PG_VERSION`);
    const pgVersion = version ? (w.pg_version(new Uint8Array(await version.file.arrayBuffer())) ?? null) : null;
    try {
      const control = decodeControl(w, new Uint8Array(await c.file.arrayBuffer()));
      out.push({ root, path: c.path, pgVersion, control, error: null });
    } catch (e) {
      out.push({ root, path: c.path, pgVersion, control: null, error: e instanceof Error ? e.message : String(e) });
    }
  }
  return out;
}

/** A file's cluster: the pg_control of the longest root its path starts with (a decodable one
 * whose CRC holds), else null. */
export function clusterFor(controls: readonly ClusterControl[], path: string): ClusterControl | null {
  let best: ClusterControl | null = null;
  for (const c of controls) {
    if (!c.control || c.control.crc_ok !== true || !path.startsWith(c.root)) continue;
    if (!best || c.root.length > best.root.length) best = c;
  }
  return best;
}

/** What a file's cluster says of data checksums (the core's reading of pg_control's current
 * state), 0 when nothing is known. */
export function checksumsFor(controls: readonly ClusterControl[], path: string): ChecksumsCode {
  const code = clusterFor(controls, path)?.control?.checksums_code;
  return code === 1 || code === 2 || code === 3 || code === 4 ? code : 0;
}

/** The PostgreSQL major version of a file's cluster (its PG_VERSION), null when unknown. */
export function versionFor(controls: readonly ClusterControl[], path: string): number | null {
  return clusterFor(controls, path)?.pgVersion ?? null;
}

/** RELSEG_SIZE of a file's cluster as pg_control records it (`blocks_per_segment`), null when
 * no pg_control is known for it: relation-wide block numbers then assume 1 GB segments. */
export function blocksPerSegmentFor(controls: readonly ClusterControl[], path: string): number | null {
  const n = clusterFor(controls, path)?.control?.blocks_per_segment;
  return typeof n === 'number' && n > 0 ? n : null;
}
