// "Ask PostgreSQL": the pageinspect query that answers for one page's bytes ($1), in the
// columns `pgpage inspect --json` uses, so the answer and pgpage's decode compare key by key.

/** The query for a page of `kind` (pgpage's page kind: heap, btree, fsm, vm, ...). */
export function pageinspectSql(kind: string, block: number): string {
  const cols = [`(select row_to_json(h) from page_header($1::bytea) h) as header`, `page_checksum($1::bytea, ${Math.trunc(block)}) as checksum`];
  if (kind === 'heap') {
    cols.push(`(select json_agg(row_to_json(x)::jsonb || coalesce((select to_jsonb(fl) from
                heap_tuple_infomask_flags(x.t_infomask, x.t_infomask2) fl), '{}'::jsonb))
                from heap_page_items($1::bytea) x) as items`);
  }
  // bt_page_items refuses the metapage.
  if (kind === 'btree' && block > 0) cols.push(`(select json_agg(x) from bt_page_items($1::bytea) x) as items`);
  if (kind === 'fsm') cols.push(`fsm_page_contents($1::bytea) as fsm`);
  return `select ${cols.join(', ')}`;
}

/** Which function answered, in words for the button's panel. */
export function pageinspectFunctions(kind: string, block: number): string[] {
  const f = ['page_header', 'page_checksum'];
  if (kind === 'heap') f.push('heap_page_items', 'heap_tuple_infomask_flags');
  if (kind === 'btree' && block > 0) f.push('bt_page_items');
  if (kind === 'fsm') f.push('fsm_page_contents');
  return f;
}
