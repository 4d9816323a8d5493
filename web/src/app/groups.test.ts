// Grouping by folder, then relation: a backup's and the live copy's files stay apart, and a
// relation's segments and forks are one group.
import { describe, expect, it } from 'vitest';
import type { Fork } from '../files';
import { folderOf, groupFiles } from './groups';
import { entry } from './testing';

const rel = (path: string, relfilenode: number, fork: Fork = 'main', segment = 0) =>
  Object.assign(entry(path.slice(path.lastIndexOf('/') + 1), { rel: { relfilenode, fork, segment } }), { path });

describe('groupFiles', () => {
  it('groups by folder, then by relfilenode, in the files order', () => {
    const files = [
      rel('backup/base/5/16427', 16427),
      rel('backup/base/5/16427_fsm', 16427, 'fsm'),
      rel('live/base/5/16427', 16427),
      rel('live/base/5/16427.1', 16427, 'main', 1),
      rel('live/base/5/16430', 16430),
      Object.assign(entry('notes.txt'), { path: 'live/notes.txt' }),
    ];
    const g = groupFiles(files);
    expect(g.map((d) => d.folder)).toEqual(['backup/base/5', 'live/base/5', 'live']);
    expect(g[0].relations.map((r) => [r.label, r.files.map((f) => f.path)])).toEqual([['16427', ['backup/base/5/16427', 'backup/base/5/16427_fsm']]]);
    expect(g[1].relations.map((r) => [r.label, r.files.length])).toEqual([
      ['16427', 2],
      ['16430', 1],
    ]);
    expect(g[2].relations[0].label).toBe('notes.txt');
    // Same relfilenode, two folders: two groups.
    expect(new Set(g.flatMap((d) => d.relations.map((r) => r.key))).size).toBe(4);
  });

  it('takes the folder as the path before its last slash', () => {
    expect(folderOf('a/b/16427')).toBe('a/b');
    expect(folderOf('16427')).toBe('');
  });
});
