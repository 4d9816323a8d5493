// The differential corpus: relations of every access method with realistic history, built
// in a real PostgreSQL 15 and checkpointed, so every page on disk is what the server wrote.
import { existsSync, statSync } from 'node:fs';
import { Cluster } from './cluster';

export const CORPUS_DB = 'corpus';

/** SQL that builds the corpus; each statement leaves pages of a kind pgpage must decode. */
export const CORPUS_SQL = String.raw`
create extension if not exists pageinspect;
create extension if not exists amcheck;

-- heap: inserts, HOT and non-HOT updates, deletes, vacuum (redirect, dead, unused pointers)
create table heap_hist (id int primary key, v int, pad text, note text) with (fillfactor = 70);
insert into heap_hist select g, g % 97, repeat('x', g % 200), case when g % 7 = 0 then null else 'n' || g end
  from generate_series(1, 20000) g;
update heap_hist set pad = pad || 'u' where id % 10 = 0;          -- HOT (no indexed column)
update heap_hist set id = id + 100000 where id % 53 = 0;          -- non-HOT
delete from heap_hist where id % 11 = 0;
vacuum heap_hist;
update heap_hist set note = 'again' where id % 13 = 0;
delete from heap_hist where id % 17 = 0;

-- heap with nulls across many columns (t_bits), and a TOAST table
create table heap_wide (a int, b text, c int, d text, e int, f text, g int, h text, i int, j text);
insert into heap_wide select g, case when g%2=0 then null else 'b' end, null, 'd', g,
  case when g%3=0 then null else 'f' end, g, null, g, 'j' from generate_series(1, 3000) g;
create table heap_toast (id int, doc text);
alter table heap_toast alter column doc set storage external;
insert into heap_toast select g, repeat(md5(g::text), 200) from generate_series(1, 200) g;

-- btree: multi-level, deduplicated posting lists, text keys
create table bt_src (k int, grp int, name text);
insert into bt_src select g, g % 10, 'name-' || (g % 5000) from generate_series(1, 150000) g;
create index bt_multi on bt_src (k);
create index bt_dedup on bt_src (grp);
create index bt_text on bt_src (name);
delete from bt_src where k % 9 = 0;
vacuum bt_src;

-- other access methods
create index hash_idx on bt_src using hash (k);
create table geo (id int, p point, b box, tags int[], t text, r int4range);
insert into geo select g, point(g % 300, g / 300), box(point(g%300, g/300), point(g%300+1, g/300+1)),
  array[g % 50, g % 7, g % 3], md5(g::text), int4range(g, g + 10) from generate_series(1, 20000) g;
create index gist_idx on geo using gist (b);
create index gin_idx on geo using gin (tags);
create index spgist_pt on geo using spgist (p);
create index spgist_txt on geo using spgist (t);
create index brin_idx on geo using brin (id) with (pages_per_range = 4);

-- sequence
create sequence seq_a start 42;
select nextval('seq_a'), nextval('seq_a');

-- unlogged table: init forks
create unlogged table unlogged_t (id int primary key, v text);
insert into unlogged_t select g, 'v' || g from generate_series(1, 500) g;

vacuum (freeze) heap_wide;
vacuum geo;
checkpoint;
`;

export interface CorpusFile {
  /** Relation name. */
  rel: string;
  /** pg_class.relkind and the access method name ('heap', 'btree', ...; '' for sequences). */
  relkind: string;
  am: string;
  fork: 'main' | 'fsm' | 'vm' | 'init';
  /** Absolute path on disk. */
  path: string;
  segment: number;
  blocks: number;
}

/** Creates the corpus database and returns every file of every relation in it. */
export function buildCorpus(c: Cluster): CorpusFile[] {
  c.sql(`create database ${CORPUS_DB};`);
  c.sql(CORPUS_SQL, CORPUS_DB);
  return listFiles(c);
}

/** Every fork and segment file of the corpus's own relations (and their TOAST relations). */
export function listFiles(c: Cluster): CorpusFile[] {
  const rels = c.rows<{ rel: string; relkind: string; am: string | null; path: string }>(
    `select c.oid::regclass::text as rel, c.relkind::text as relkind, am.amname as am,
            pg_relation_filepath(c.oid) as path
       from pg_class c left join pg_am am on am.oid = c.relam
      where c.relnamespace in ('public'::regnamespace, 'pg_toast'::regnamespace)
        and c.relkind in ('r', 'i', 'S', 't', 'm')
        and pg_relation_filepath(c.oid) is not null
        and (c.relnamespace = 'public'::regnamespace or c.oid in
             (select reltoastrelid from pg_class where relnamespace = 'public'::regnamespace)
             or c.oid in (select indexrelid from pg_index where indrelid in
             (select reltoastrelid from pg_class where relnamespace = 'public'::regnamespace)))
      order by 1`,
    CORPUS_DB,
  );
  const files: CorpusFile[] = [];
  for (const r of rels) {
    for (const fork of ['main', 'fsm', 'vm', 'init'] as const) {
      const base = `${c.dataDir}/${r.path}${fork === 'main' ? '' : '_' + fork}`;
      for (let seg = 0; ; seg++) {
        const path = seg === 0 ? base : `${base}.${seg}`;
        if (!existsSync(path)) break;
        const size = statSync(path).size;
        files.push({ rel: r.rel, relkind: r.relkind, am: r.am ?? '', fork, path, segment: seg, blocks: Math.floor(size / 8192) });
      }
    }
  }
  return files;
}
