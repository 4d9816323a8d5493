// The files table's grouping: by the folder of each file's dropped path, then by relation
// (the relfilenode the core read from the file's name, with its segments and forks), so a
// data directory of thousands of files reads as its databases' relations.
import type { FileEntry } from '../files';
import { addCounts, emptyCounts, type StatusCounts } from '../lib/status';

export interface RelationGroup {
  /** Unique among all groups: folder and relfilenode (or file name, for other names). */
  key: string;
  /** The relfilenode, or the file's name when the core read no relation from it. */
  label: string;
  /** In path order: segments and forks. */
  files: FileEntry[];
}

export interface FolderGroup {
  /** The dropped path's folder (`live/base/5`), '' for files chosen one by one. */
  folder: string;
  relations: RelationGroup[];
}

/** The folder part of a dropped path: everything before its last '/'. */
export function folderOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

/** Groups files (kept in their order, which is path order) by folder, then by relation. */
export function groupFiles(files: readonly FileEntry[]): FolderGroup[] {
  const folders = new Map<string, Map<string, RelationGroup>>();
  for (const f of files) {
    const folder = folderOf(f.path);
    let rels = folders.get(folder);
    if (!rels) folders.set(folder, (rels = new Map()));
    const label = f.rel ? String(f.rel.relfilenode) : f.name;
    const key = `${folder}/${f.rel ? label : `:${label}`}`;
    let g = rels.get(key);
    if (!g) rels.set(key, (g = { key, label, files: [] }));
    g.files.push(f);
  }
  return [...folders].map(([folder, rels]) => ({ folder, relations: [...rels.values()] }));
}

/** The counts of a group's files, added. */
export function countsOf(files: readonly FileEntry[]): StatusCounts {
  const c = emptyCounts();
  for (const f of files) addCounts(c, f.counts);
  return c;
}
