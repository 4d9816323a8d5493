// Which loaded file a link's `#file=` names. Links carry the file's dropped path
// (`live/base/5/16427`), which tells a backup's copy from the live one; older links carry a
// bare name, which still opens the file when exactly one loaded file has it.
import type { FileEntry } from '../files';

export type FileRefResult = { file: FileEntry } | { ambiguous: FileEntry[] } | { none: true };

export function resolveFileRef(files: readonly FileEntry[], ref: string): FileRefResult {
  const byPath = files.find((f) => f.path === ref);
  if (byPath) return { file: byPath };
  // The same relation file in a data directory dropped under another folder's name.
  const byPlace = files.filter((f) => f.relDir !== null && (ref === `${f.relDir}/${f.name}` || ref.endsWith(`/${f.relDir}/${f.name}`)));
  if (byPlace.length === 1) return { file: byPlace[0] };
  const byName = files.filter((f) => f.name === ref);
  if (byName.length === 1) return { file: byName[0] };
  if (byName.length > 1) return { ambiguous: byName };
  return { none: true };
}

/** What the page says of a link that names several files. */
export function ambiguousWords(ref: string, files: readonly FileEntry[]): string {
  return `The link names "${ref}", which ${files.length} loaded files are called (${files.map((f) => f.path).join(', ')}): pick one in the files table.`;
}
