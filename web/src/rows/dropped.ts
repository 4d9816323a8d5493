// Every file dropped or chosen, relation file or not: the catalogs, pg_xact and PG_VERSION
// of a data directory are read by the rows worker although the files list leaves them out.
import type { RowsFile } from './protocol';

const dropped = new Map<string, File>();

/** Called with each drop, before the files list filters it. */
export function rememberDropped(list: readonly { path: string; file: File }[]): void {
  for (const x of list) dropped.set(x.path, x.file);
}

export function droppedFiles(): RowsFile[] {
  return [...dropped].map(([path, file]) => ({ path, file }));
}
