// The pg_control files dropped so far, for the reports' cluster line: the app hands them over
// as it reads them, so the share actions, wired in wherever they sit, need no more props.
import { clusterFor, type ClusterControl } from '../app/control';
import type { FileEntry } from '../files';
import { clusterLine } from '../lib/report';

let known: readonly ClusterControl[] = [];

export function setReportControls(controls: readonly ClusterControl[]): void {
  known = controls;
}

/** The report's cluster line for a file read with this geometry. */
export function clusterOf(entry: FileEntry, blockSize: number, bigEndian: boolean): string {
  const c = clusterFor(known, entry.path);
  return clusterLine({ pgVersion: entry.pgVersion ?? c?.pgVersion ?? null, control: c?.control ?? null, bigEndian, blockSize });
}
