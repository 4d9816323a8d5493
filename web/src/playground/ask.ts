// "Ask PostgreSQL": the pageinspect (and pg_visibility) query that answers for one page's
// bytes ($1), one column per function, and the comparison of each answer, field by field,
// with pgpage's decode of the same bytes (the core's `pgpage inspect --json` columns).
import type { DecodedColumns } from '../lib/spans';

type Json = Record<string, unknown>;

/** The page asked about. `relation` (its pg_class oid) lets the functions that read the
 * relation, not bytes (bt_metap, bt_page_stats, brin_page_items' descriptor,
 * pg_visibility_map), answer, and only while the server's page is still these bytes. */
export interface AskPage {
  kind: string;
  block: number;
  /** main, fsm, vm, ... */
  fork: string;
  relation: number | null;
}

const BLCKSZ = 8192;

/** One pageinspect call: the function, and the SQL (over $1, `b` the block, `rel` the oid)
 * whose value, as json, is the function's answer; null when it does not apply. */
interface Call {
  fn: string;
  sql(b: number, rel: number): string;
  /** Reads the relation through the server's buffers: only asked while the bytes are the
   * server's page. */
  live?: boolean;
}

const rowsOf = (call: string) => `(select json_agg(x) from ${call} x)`;
const rowOf = (call: string) => `(select row_to_json(x) from ${call} x)`;
const hashType = `(case when (select upper from page_header($1::bytea)) = 0 then null else hash_page_type($1::bytea) end)`;

/** Per page kind, the functions that answer for it, in pageinspect's documentation order. */
const CALLS: Record<string, Call[]> = {
  heap: [
    {
      fn: 'heap_page_items',
      sql: () => `(select json_agg(row_to_json(x)::jsonb || coalesce((select to_jsonb(fl) from
                  heap_tuple_infomask_flags(x.t_infomask, x.t_infomask2) fl), '{}'::jsonb))
                  from heap_page_items($1::bytea) x)`,
    },
  ],
  btree: [
    { fn: 'bt_metap', live: true, sql: (b, rel) => (b === 0 ? rowOf(`bt_metap(${rel}::oid::regclass::text)`) : 'null') },
    // bt_page_stats and bt_page_items refuse the metapage.
    { fn: 'bt_page_stats', live: true, sql: (b, rel) => (b === 0 ? 'null' : rowOf(`bt_page_stats(${rel}::oid::regclass::text, ${b})`)) },
    { fn: 'bt_page_items', sql: (b) => (b === 0 ? 'null' : rowsOf('bt_page_items($1::bytea)')) },
  ],
  hash: [
    { fn: 'hash_page_type', sql: () => `to_json(${hashType})` },
    { fn: 'hash_metapage_info', sql: () => `case when ${hashType} = 'metapage' then ${rowOf('hash_metapage_info($1::bytea)')} end` },
    { fn: 'hash_page_stats', sql: () => `case when ${hashType} in ('bucket', 'overflow') then ${rowOf('hash_page_stats($1::bytea)')} end` },
    { fn: 'hash_page_items', sql: () => `case when ${hashType} in ('bucket', 'overflow') then ${rowsOf('hash_page_items($1::bytea)')} end` },
  ],
  gist: [
    { fn: 'gist_page_opaque_info', sql: () => rowOf('gist_page_opaque_info($1::bytea)') },
    { fn: 'gist_page_items_bytea', sql: () => rowsOf('gist_page_items_bytea($1::bytea)') },
  ],
  gin: [
    { fn: 'gin_metapage_info', sql: (b) => (b === 0 ? rowOf('gin_metapage_info($1::bytea)') : 'null') },
    { fn: 'gin_page_opaque_info', sql: () => rowOf('gin_page_opaque_info($1::bytea)') },
    {
      fn: 'gin_leafpage_items',
      sql: () => `case when (select flags from gin_page_opaque_info($1::bytea)) = '{data,leaf,compressed}' then ${rowsOf('gin_leafpage_items($1::bytea)')} end`,
    },
  ],
  brin: [
    { fn: 'brin_page_type', sql: () => 'to_json(brin_page_type($1::bytea))' },
    { fn: 'brin_metapage_info', sql: () => `case when brin_page_type($1::bytea) = 'meta' then ${rowOf('brin_metapage_info($1::bytea)')} end` },
    {
      fn: 'brin_revmap_data',
      sql: () => `case when brin_page_type($1::bytea) = 'revmap' then (select json_agg(json_build_object('pages', x)) from brin_revmap_data($1::bytea) x) end`,
    },
    {
      fn: 'brin_page_items',
      live: true,
      sql: (_b, rel) => `case when brin_page_type($1::bytea) = 'regular' then ${rowsOf(`brin_page_items($1::bytea, ${rel}::oid::regclass)`)} end`,
    },
  ],
  fsm: [{ fn: 'fsm_page_contents', sql: () => 'to_json(fsm_page_contents($1::bytea))' }],
  vm: [
    {
      fn: 'pg_visibility_map',
      live: true,
      sql: (b, rel) => {
        // visibilitymap.c: HEAPBLOCKS_PER_PAGE, two bits per heap block after the header.
        const per = (BLCKSZ - 24) * 4;
        return `(select json_agg(x order by x.blkno) from pg_visibility_map(${rel}::oid::regclass) x
                 where x.blkno >= ${b * per} and x.blkno < ${(b + 1) * per})`;
      },
    },
  ],
};
CALLS.sequence = CALLS.heap;

function callsFor(p: AskPage): Call[] {
  return [{ fn: 'page_header', sql: () => rowOf('page_header($1::bytea)') }, ...(CALLS[p.kind] ?? [])];
}

/** The query for one page: one json column per function, named as the function. The live
 * functions answer only when the relation's page in the server's buffers is the same bytes
 * (but pd_checksum, which the buffer's copy holds as 0 or stale); `same_page` says which. */
export function pageinspectSql(p: AskPage): string {
  const b = Math.trunc(p.block);
  const rel = p.relation === null ? null : Math.trunc(p.relation);
  const fork = p.fork === 'vm' || p.fork === 'fsm' ? p.fork : 'main';
  const same =
    rel === null
      ? 'false'
      : `case when coalesce(pg_relation_size(${rel}::oid, '${fork}') > ${b}::bigint * ${BLCKSZ}, false)
         then (select substr(r, 1, 8) = substr($1::bytea, 1, 8) and substr(r, 11) = substr($1::bytea, 11)
               from get_raw_page(${rel}::oid::regclass::text, '${fork}', ${b}) r)
         else false end`;
  const cols = callsFor(p).map((c) => {
    const sql = c.live ? (rel === null ? 'null' : `case when (select same from s) then ${c.sql(b, rel)} end`) : c.sql(b, rel ?? 0);
    return `${sql} as ${c.fn}`;
  });
  return `with s as (select ${same} as same)
          select (select same from s) as same_page, page_checksum($1::bytea, ${b}) as page_checksum, ${cols.join(', ')}`;
}

/** The functions asked for a page, in the answer's column order. */
export function pageinspectFunctions(p: AskPage): string[] {
  return callsFor(p).map((c) => c.fn);
}

/** One field of one function's answer against pgpage's value for it. */
export interface FieldVerdict {
  fn: string;
  /** `lp 3.t_xmax`, `btpo_next`, ... */
  field: string;
  pgpage: string;
  postgres: string;
  agree: boolean;
}

/** The comparison of one page: every field of every function that answered. */
export interface AskVerdict {
  fields: FieldVerdict[];
  /** Functions that gave no answer for this page, and why. */
  silent: { fn: string; why: string }[];
  /** What was not compared, and why (a summary pgpage does not decode). */
  notes: string[];
}

const show = (v: unknown) => JSON.stringify(v) ?? 'undefined';

function columns(fn: string, ours: Json | undefined, theirs: Json, out: FieldVerdict[], prefix = ''): void {
  for (const [k, v] of Object.entries(theirs)) {
    const o = show(ours?.[k]);
    const t = show(v);
    out.push({ fn, field: `${prefix}${k}`, pgpage: o, postgres: t, agree: o === t });
  }
}

function rows(fn: string, ours: Json[], theirs: Json[] | null, out: FieldVerdict[], key = 'item'): void {
  const t = theirs ?? [];
  out.push({ fn, field: 'rows', pgpage: String(ours.length), postgres: String(t.length), agree: ours.length === t.length });
  t.forEach((row, i) => columns(fn, ours[i], row, out, `${key} ${i + 1}.`));
}

/** Compares pageinspect's answer (`pageinspectSql`'s row) with pgpage's decode of the same page. */
export function compareAnswer(p: AskPage, ours: DecodedColumns, answer: Json): AskVerdict {
  const fields: FieldVerdict[] = [];
  const silent: AskVerdict['silent'] = [];
  const notes: string[] = [];
  const special = (ours.special ?? {}) as Json;
  for (const fn of pageinspectFunctions(p)) {
    const v = answer[fn];
    if (v === null || v === undefined) {
      const live = (CALLS[p.kind] ?? []).find((c) => c.fn === fn)?.live;
      silent.push({ fn, why: live && !answer.same_page ? "the server's page is no longer these bytes (a later statement changed it)" : 'not for this page' });
      continue;
    }
    switch (fn) {
      case 'page_header': {
        const h = v as Json;
        columns(fn, ours.header, { ...h, checksum: (h.checksum as number) & 0xffff }, fields);
        break;
      }
      case 'heap_page_items':
      case 'bt_page_items':
      case 'hash_page_items':
      case 'gist_page_items_bytea':
      case 'gin_leafpage_items':
      case 'brin_revmap_data':
        rows(fn, ours.items, v as Json[], fields);
        break;
      case 'bt_metap':
      case 'hash_metapage_info':
      case 'gin_metapage_info':
      case 'brin_metapage_info':
        columns(fn, special.meta as Json | undefined, v as Json, fields);
        break;
      case 'bt_page_stats': {
        // blkno is the argument, not the page's.
        const { blkno: _blkno, ...stats } = v as Json;
        columns(fn, special, stats, fields);
        break;
      }
      case 'hash_page_stats':
      case 'gist_page_opaque_info':
      case 'gin_page_opaque_info':
        columns(fn, special, v as Json, fields);
        break;
      case 'hash_page_type':
      case 'brin_page_type':
      case 'fsm_page_contents':
        columns(fn, special, { [fn]: v }, fields);
        break;
      case 'brin_page_items': {
        const theirs = v as Json[];
        const items = ours.items as Json[];
        if (items.some((i) => 'lp_flags' in i)) {
          // Without the index's columns pgpage lists the line pointers: the tuples pageinspect
          // lists are the page's normal ones.
          const offsets = [...new Set(theirs.map((r) => r.itemoffset as number))];
          const normal = items.filter((i) => i.lp_flags === 1).map((i) => i.lp as number);
          fields.push({ fn, field: 'itemoffset', pgpage: show(normal), postgres: show(offsets), agree: show(normal) === show(offsets) });
          notes.push("brin_page_items: the summaries are not decoded: the index's columns are not known");
          break;
        }
        // One row per tuple and column; a summary pgpage does not print (bloom, minmax-multi,
        // a type without an output function here) is said, not compared.
        const undecoded = new Set<string>();
        const kept = theirs.map((r, i) => {
          const why = items[i]?.value_not_decoded;
          if (typeof why !== 'string') return r;
          undecoded.add(why);
          const { value: _value, ...rest } = r;
          return rest;
        });
        rows(fn, items, kept, fields);
        for (const u of undecoded) notes.push(`brin_page_items value: ${u}`);
        break;
      }
      case 'pg_visibility_map': {
        const visible = new Set((special.all_visible as number[] | undefined) ?? []);
        const frozen = new Set((special.all_frozen as number[] | undefined) ?? []);
        for (const r of v as { blkno: number; all_visible: boolean; all_frozen: boolean }[]) {
          columns(
            fn,
            { all_visible: visible.has(r.blkno), all_frozen: frozen.has(r.blkno) },
            { all_visible: r.all_visible, all_frozen: r.all_frozen },
            fields,
            `heap block ${r.blkno}.`,
          );
        }
        break;
      }
    }
  }
  return { fields, silent, notes };
}
