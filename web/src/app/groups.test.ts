// Grouping by folder, then relation: a backup's and the live copy's files stay apart, and a
// relation's segments and forks are one group.
import { describe, expect, it } from 'vitest';
import type { Fork } from '../files';
import { folderOf, groupFiles } from './groups';
import { entry } from './testing';
import { relationWords, type CatalogRelation, type ClusterCatalog } from './catalog';

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

describe('groupFiles with a catalog', () => {
  const relation = (index: number, patch: Partial<CatalogRelation>): CatalogRelation => ({
    index,
    database: 'shop',
    database_oid: 16384,
    tablespace_oid: 1663,
    relfilenode: 0,
    oid: 0,
    schema: 'public',
    name: '',
    relkind: 'r',
    relpersistence: 'p',
    am: 'heap',
    toast_relfilenode: null,
    index_of: null,
    kind: 'table',
    parent: null,
    user: true,
    ...patch,
  });
  const relations = [
    relation(0, { name: 'orders', relfilenode: 16500, oid: 16400, toast_relfilenode: 16403 }),
    relation(1, { name: 'orders_pkey', relfilenode: 16502, relkind: 'i', am: 'btree', kind: 'index', parent: 0 }),
    relation(2, { schema: 'pg_toast', name: 'pg_toast_16400', relfilenode: 16403, relkind: 't', kind: 'TOAST table', parent: 0 }),
    relation(3, { schema: 'pg_toast', name: 'pg_toast_16400_index', relfilenode: 16405, relkind: 'i', am: 'btree', kind: 'index', parent: 2 }),
    relation(4, { schema: 'pg_catalog', name: 'pg_class', relfilenode: 1259, user: false }),
    relation(5, { database: null, database_oid: 0, tablespace_oid: 1664, schema: 'pg_catalog', name: 'pg_database', relfilenode: 1262, user: false }),
  ];
  const catalog: ClusterCatalog = { root: 'pgdata/', state: 'done', relations, damage: [], error: null };
  const named = (path: string, r: number | null, fork: Fork = 'main') => {
    const f = rel(path, Number(path.slice(path.lastIndexOf('/') + 1).replace(/_.*|\..*/, '')), fork);
    f.naming = { catalog, relation: r === null ? null : relations[r], pageKind: null };
    return f;
  };

  it('lists databases, then tables (users first) with their TOAST table and indexes under them', () => {
    const files = [
      named('pgdata/base/16384/1259', 4),
      named('pgdata/base/16384/16403', 2),
      named('pgdata/base/16384/16405', 3),
      named('pgdata/base/16384/16500', 0),
      named('pgdata/base/16384/16500_fsm', 0, 'fsm'),
      named('pgdata/base/16384/16502', 1),
      named('pgdata/base/16384/16999', null),
      named('pgdata/global/1262', 5),
      rel('loose/16427', 16427),
    ];
    const g = groupFiles(files);
    expect(g.map((d) => d.title ?? d.folder)).toEqual(['pgdata / shop', 'pgdata / shared (global)', 'pgdata / not in pg_class', 'loose']);
    expect(g[0].relations.map((r) => [r.label, r.depth, r.parent, r.files.length])).toEqual([
      ['public.orders', 0, null, 2],
      ['pg_toast.pg_toast_16400', 1, 'public.orders', 1],
      ['pg_toast.pg_toast_16400_index', 2, 'pg_toast.pg_toast_16400', 1],
      ['public.orders_pkey', 1, 'public.orders', 1],
      ['pg_catalog.pg_class', 0, null, 1],
    ]);
    expect(g[0].relations[2].ancestors).toEqual([g[0].relations[0].key, g[0].relations[1].key]);
    expect(g[2].relations.map((r) => r.label)).toEqual(['base/16384/16999']);
    expect(g[3].relations.map((r) => r.label)).toEqual(['16427']);
  });

  it('names a relation with the database and the table it is of', () => {
    expect(relationWords({ catalog, relation: relations[1], pageKind: 'btree' })).toBe('shop / public.orders_pkey (index of public.orders)');
    expect(relationWords({ catalog, relation: relations[2], pageKind: 'heap' })).toBe('shop / pg_toast.pg_toast_16400 (TOAST table of public.orders)');
    expect(relationWords({ catalog, relation: relations[5], pageKind: 'heap' })).toBe('shared (global) / pg_catalog.pg_database');
    expect(relationWords({ catalog, relation: null, pageKind: null })).toBeNull();
  });
});
