// Which files the playground reads after a statement: every relation of the public schema
// with storage, its TOAST table and the indexes of both, each fork that exists. Shared by the
// PGlite worker and the Node tests, so both read the same files the same way.

/** One relation with storage, as the catalog of the playground's server names it. */
export interface PlayRelation {
  oid: number;
  name: string;
  /** pg_class.relkind: r table, i index, t TOAST table, S sequence, m materialized view. */
  relkind: string;
  /** The access method (heap, btree, ...); "" for a sequence. */
  am: string;
  /** pg_relation_filepath: base/5/16430, relative to the data directory. */
  path: string;
  /** pg_relation_filenode: what VACUUM FULL and TRUNCATE change. */
  filenode: number;
  /** The table an index, TOAST table or TOAST index belongs to (its name); null for a table. */
  owner: string | null;
  /** The columns as the core's decode takes them (ColumnHint::parse_list): a table's or TOAST
   * table's `typname:attlen:attalign` in attnum order (a dropped column's type as `-`), a
   * BRIN index's with its opclass (`int4:4:i int4_minmax_ops`); null for other relations. */
  columns: string | null;
}

/** One file of a relation. */
export interface PlayFile {
  relation: PlayRelation;
  fork: 'main' | 'fsm' | 'vm';
  /** Relative to the data directory: base/5/16430_fsm. */
  path: string;
}

export const FORK_SUFFIX = { main: '', fsm: '_fsm', vm: '_vm' } as const;

/** The public schema's tables, their TOAST tables and the indexes of both. */
export const RELATIONS_SQL = `
with t as (select oid, relname from pg_class where relnamespace = 'public'::regnamespace and relkind in ('r', 'm', 'S')),
toast as (select c.reltoastrelid as oid, t.relname as owner from pg_class c join t on t.oid = c.oid where c.reltoastrelid <> 0),
idx as (select i.indexrelid as oid, coalesce(t.relname, toast.owner) as owner from pg_index i
        left join t on t.oid = i.indrelid left join toast on toast.oid = i.indrelid
        where t.oid is not null or toast.oid is not null),
every as (select oid, null::name as owner from t union all select oid, owner from toast union all select oid, owner from idx)
select c.oid::int as oid, c.relname::text as name, c.relkind::text as relkind, coalesce(am.amname::text, '') as am,
       pg_relation_filepath(c.oid) as path, pg_relation_filenode(c.oid)::int as filenode, every.owner::text as owner,
       case when c.relkind in ('r', 'm', 't') or am.amname = 'brin' then
         (select string_agg(coalesce(ty.typname::text, '-') || ':' || a.attlen || ':' || a.attalign::text
                            || coalesce(' ' || op.opcname, ''), ',' order by a.attnum)
          from pg_attribute a left join pg_type ty on ty.oid = a.atttypid
          left join pg_index i on i.indexrelid = a.attrelid
          left join pg_opclass op on op.oid = i.indclass[a.attnum - 1]
          where a.attrelid = c.oid and a.attnum > 0) end as columns
from every join pg_class c on c.oid = every.oid left join pg_am am on am.oid = c.relam
where pg_relation_filepath(c.oid) is not null
order by coalesce(every.owner, c.relname), c.relkind = 'i', c.relkind = 't', c.relname`;

/**
 * The files of `relations` that exist, as `exists(path)` (relative to the data directory)
 * says: the main fork always, FSM and VM once VACUUM or a big enough table made them.
 */
export function relationFiles(relations: PlayRelation[], exists: (path: string) => boolean): PlayFile[] {
  const out: PlayFile[] = [];
  for (const relation of relations) {
    for (const fork of ['main', 'fsm', 'vm'] as const) {
      const path = relation.path + FORK_SUFFIX[fork];
      if (fork === 'main' || exists(path)) out.push({ relation, fork, path });
    }
  }
  return out;
}
