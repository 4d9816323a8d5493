// Every file dropped or chosen, relation file or not: the catalogs, pg_xact and PG_VERSION
// of a data directory are read by the rows worker although the files list leaves them out.
const dropped = new Map<string, File>();

/** Called with each drop, before the files list filters it. */
export function rememberDropped(list: readonly { path: string; file: File }[]): void {
  for (const x of list) dropped.set(x.path, x.file);
}

/** The file dropped at `path`. */
export function droppedFile(path: string): File | undefined {
  return dropped.get(path);
}

/** Every path dropped under `root`, relative to it. */
export function droppedPathsUnder(root: string): string[] {
  const paths: string[] = [];
  for (const p of dropped.keys()) if (p.startsWith(root)) paths.push(p.slice(root.length));
  return paths;
}

/** Every file dropped, with its path (the damage panel looks for WAL and pg_control in them). */
export function droppedFiles(): { path: string; file: File }[] {
  return [...dropped].map(([path, file]) => ({ path, file }));
}
