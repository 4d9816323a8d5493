// The playground's lessons: short scripts a PostgreSQL teacher would type, one statement per
// step, each showing one thing happen to the pages. A step names what to show (a relation's
// block, a line pointer or the header outlined as the tour outlines them) and the change it
// expects, read from pgpage's decoded diff of the snapshots (SnapshotDiff's comparison) or
// from the server's error. The Node test runs them all on PGlite and holds every page they
// make against pageinspect; the browser test clicks through them and checks the expectations.
import type { PageDiffRow, SnapshotComparison } from './SnapshotDiff';

/** What the step shows: a block of a relation's file, and what to outline on it. */
export interface LessonShow {
  relation: string;
  fork?: 'main' | 'fsm' | 'vm';
  block: number;
  /** A line pointer to select (its tuple is outlined). */
  item?: number;
  /** Outline the decoded page header. */
  header?: boolean;
}

/** One change the step expects, in words, and its test on the decoded diff. */
export interface LessonExpect {
  what: string;
  test(d: SnapshotComparison): boolean;
}

export interface LessonStep {
  sql: string;
  /** What to look at after the statement (text in `backticks` renders as code). */
  say: string;
  /** What the learner does by hand before the next step: edit the page with the lab and
   * write it into the server's file. */
  then?: 'lab-write';
  show?: LessonShow;
  expect: LessonExpect[];
  /** The server's error text the step expects (the corruption lesson). */
  error?: RegExp;
}

export interface Lesson {
  id: string;
  title: string;
  steps: LessonStep[];
}

/** The one shape of a step: the statement, what to say, and what it shows and expects. */
function step(sql: string, say: string, more: Partial<Omit<LessonStep, 'sql' | 'say'>> = {}): LessonStep {
  return { sql, say, expect: [], ...more };
}

// The diff's rows of a relation, and its changed (or new) fields, by name.
const pagesOf = (d: SnapshotComparison, relation: string, fork = 'main'): PageDiffRow[] => d.pages.filter((p) => p.relation === relation && p.fork === fork);
const fieldsOf = (d: SnapshotComparison, relation: string, column: string) =>
  pagesOf(d, relation).flatMap((p) => p.fields.filter((f) => f.field.endsWith(` ${column}`)));
/** Line pointers whose decoded `raw_flags` gained (or, new, carry) a flag. */
const flagged = (d: SnapshotComparison, relation: string, flag: string) => fieldsOf(d, relation, 'raw_flags').filter((f) => f.b.includes(flag) && !f.a.includes(flag));

/** A varlena header the core decoded (ToastedDatum): compressed inline or a TOAST pointer. */
export interface Toasted {
  attnum: number;
  varattrib: 'varattrib_4b.va_compressed' | 'varattrib_1b_e';
  size: number;
  rawsize: number;
  compression: string | null;
  va_tcinfo?: number;
  va_tag?: number;
  va_rawsize?: number;
  va_extinfo?: number;
  extsize?: number;
  va_valueid?: number;
  va_toastrelid?: number;
}
/** The compressed and external values of the relation's new tuples. */
const newToast = (d: SnapshotComparison, relation: string): Toasted[] =>
  fieldsOf(d, relation, 'toast')
    .filter((f) => f.a === '-')
    .flatMap((f) => JSON.parse(f.b) as Toasted[]);
/** The new tuples of TOAST tables: their chunk_id and chunk_seq as the core prints them. */
const chunks = (d: SnapshotComparison) =>
  d.pages
    .filter((p) => p.relation.startsWith('pg_toast_') && p.fork === 'main')
    .flatMap((p) => p.fields.filter((f) => / values$/.test(f.field) && f.a === '-'))
    .map((f) => {
      const [chunk_id, chunk_seq] = JSON.parse(f.b) as (string | null)[];
      return { chunk_id, chunk_seq };
    });
/** A BRIN summary `{min .. max}` as numbers. */
const range = (v: string): [number, number] | null => {
  const m = /^\{(-?\d+) \.\. (-?\d+)\}$/.exec(v);
  return m ? [Number(m[1]), Number(m[2])] : null;
};
/** The BRIN index's summaries (item values) that changed or are new: before and after. */
const summaries = (d: SnapshotComparison, relation: string) => fieldsOf(d, relation, 'value').map((f) => ({ a: range(f.a), b: range(f.b) }));

const expect = (what: string, test: (d: SnapshotComparison) => boolean): LessonExpect => ({ what, test });

export const LESSONS: Lesson[] = [
  {
    id: 'insert',
    title: 'INSERT: a tuple and its line pointer',
    steps: [
      step('create table fruit (id int, name text)', 'A new table is an empty file: no pages until the first row.', {
        expect: [expect('fruit has a file and no page yet', (d) => d.added.length > 0 && pagesOf(d, 'fruit').length === 0)],
      }),
      step(
        "insert into fruit values (1, 'apple'), (2, 'banana')",
        "Block 0 appears: two line pointers at the start (`lp` 1 and 2), the tuples at the end of the page, growing down. `pd_lower` and `pd_upper` bound the free space between them. Each tuple's `t_xmin` is the inserting transaction.",
        {
          show: { relation: 'fruit', block: 0, item: 1 },
          expect: [
            expect('fruit block 0 is a new page', (d) => pagesOf(d, 'fruit').some((p) => p.block === 0 && p.state === 'only_b')),
            expect('two new line pointers, each with a t_xmin', (d) => fieldsOf(d, 'fruit', 't_xmin').filter((f) => f.a === '-' && f.b !== '0').length === 2),
          ],
        },
      ),
    ],
  },
  {
    id: 'hot',
    title: 'UPDATE with and without HOT',
    steps: [
      step(
        'create table stock (id int primary key, qty int) with (fillfactor = 50);\ninsert into stock select g, 0 from generate_series(1, 10) g',
        'fillfactor 50 leaves half of each heap page free for updates. The primary key is a btree index `stock_pkey`.',
        { show: { relation: 'stock', block: 0, header: true } },
      ),
      step(
        'update stock set qty = qty + 1 where id = 1',
        'qty is in no index and the page has room: a HOT update. The old version gets `t_xmax` and HEAP_HOT_UPDATED, its `t_ctid` points at the new one, which is HEAP_ONLY_TUPLE. The index is not touched.',
        {
          show: { relation: 'stock', block: 0, item: 1 },
          expect: [
            expect('the old tuple gains HEAP_HOT_UPDATED', (d) => flagged(d, 'stock', 'HEAP_HOT_UPDATED').length === 1),
            expect('the new tuple is HEAP_ONLY_TUPLE', (d) => flagged(d, 'stock', 'HEAP_ONLY_TUPLE').length === 1),
            expect('stock_pkey is not touched', (d) => pagesOf(d, 'stock_pkey').length === 0),
          ],
        },
      ),
      step('update stock set id = 100 where id = 2', 'id is indexed: no HOT. The new version is a plain tuple, and `stock_pkey` gets a new entry pointing at it.', {
        show: { relation: 'stock_pkey', block: 1 },
        expect: [
          expect('no tuple becomes HEAP_ONLY_TUPLE', (d) => flagged(d, 'stock', 'HEAP_ONLY_TUPLE').length === 0),
          expect('the old tuple is not HEAP_HOT_UPDATED', (d) => flagged(d, 'stock', 'HEAP_HOT_UPDATED').length === 0),
          expect('stock_pkey gains an index tuple', (d) => pagesOf(d, 'stock_pkey').some((p) => p.fields.some((f) => f.a === '-' && /^item \d+ ctid$/.test(f.field)))),
        ],
      }),
    ],
  },
  {
    id: 'vacuum',
    title: 'DELETE and VACUUM',
    steps: [
      step("create table gone (id int, pad text);\ninsert into gone select g, repeat('x', 50) from generate_series(1, 60) g", 'Sixty rows on one page.', {
        show: { relation: 'gone', block: 0, header: true },
      }),
      step('delete from gone where id % 2 = 0', 'DELETE only sets `t_xmax` on the deleted tuples: the bytes stay where they were.', {
        show: { relation: 'gone', block: 0, item: 2 },
        expect: [expect('30 tuples get a t_xmax', (d) => fieldsOf(d, 'gone', 't_xmax').filter((f) => f.a === '0' && f.b !== '0').length === 30)],
      }),
      step(
        'vacuum gone',
        'VACUUM frees the dead tuples: their line pointers become LP_UNUSED (`lp_flags` 0) and those at the end of the array are cut off, the page is compacted, and the free space map (_fsm) and visibility map (_vm) appear.',
        {
          show: { relation: 'gone', block: 0, item: 2 },
          expect: [
            expect('29 line pointers become LP_UNUSED (lp_flags 1 → 0)', (d) => fieldsOf(d, 'gone', 'lp_flags').filter((f) => f.a === '1' && f.b === '0').length === 29),
            expect('the last line pointer is cut off the array', (d) => pagesOf(d, 'gone').some((p) => p.fields.some((f) => f.field === 'item 60' && f.b === '-'))),
            expect('the _fsm and _vm forks appear', (d) => d.added.some((f) => f.endsWith('_fsm')) && d.added.some((f) => f.endsWith('_vm'))),
          ],
        },
      ),
    ],
  },
  {
    id: 'toast',
    title: 'TOAST: compressed inline and out of line',
    steps: [
      step('create table docs (id int, body text)', 'A text column gives the table a TOAST table and its index.'),
      step(
        "insert into docs values (1, repeat('pgpage ', 1000));\nselect id, pg_column_compression(body), pg_column_size(body), octet_length(body) from docs",
        "7000 bytes that repeat compress to under a hundred: the value stays in the heap tuple, compressed inline. Its varlena header is a `varattrib_4b.va_compressed`: a 4-byte length (the `size` pg_column_size says), then `va_tcinfo`, whose low 30 bits are the raw size (7000, octet_length) and whose top two bits the method (0: pglz, what pg_column_compression says).",
        {
          show: { relation: 'docs', block: 0, item: 1 },
          expect: [
            expect('item 1 holds body compressed inline: varattrib_4b.va_compressed, rawsize 7000, pglz', (d) =>
              newToast(d, 'docs').some((t) => t.attnum === 2 && t.varattrib === 'varattrib_4b.va_compressed' && t.rawsize === 7000 && t.compression === 'pglz' && t.size < 1000),
            ),
            expect('no TOAST chunk', (d) => d.pages.every((p) => !p.relation.startsWith('pg_toast_'))),
          ],
        },
      ),
      step(
        'alter table docs alter column body set compression lz4',
        "lz4 is the other method (`va_tcinfo`'s top bits 1), but only in a server built with it: PGlite is not, and says so.",
        { error: /compression method lz4 not supported/ },
      ),
      step(
        "insert into docs values (2, (select string_agg(md5(g::text), '') from generate_series(1, 400) g));\nselect id, pg_column_compression(body), pg_column_size(body), octet_length(body) from docs",
        "12800 bytes of hex digits that pglz cannot shrink by a quarter: the value goes to the TOAST table and the heap tuple keeps an 18-byte TOAST pointer, a `varattrib_1b_e` (header byte 0x01, `va_tag` 18 = VARTAG_ONDISK) holding a `varatt_external`: `va_rawsize` 12804 (header included), `va_extinfo` (12800 bytes stored, no compression), `va_valueid` and `va_toastrelid`. The TOAST table's tuples are its chunks: `chunk_id` is the pointer's `va_valueid`, `chunk_seq` counts 0, 1, ... over chunks of at most 1996 bytes.",
        {
          show: { relation: 'docs', block: 0, item: 2 },
          expect: [
            expect('item 2 holds a TOAST pointer: varattrib_1b_e, va_tag 18, va_rawsize 12804, extsize 12800, uncompressed', (d) =>
              newToast(d, 'docs').some((t) => t.varattrib === 'varattrib_1b_e' && t.va_tag === 18 && t.va_rawsize === 12804 && t.extsize === 12800 && t.compression === null),
            ),
            expect("va_toastrelid is the TOAST table's oid", (d) => newToast(d, 'docs').some((t) => d.pages.some((p) => p.oid === t.va_toastrelid && p.relation.startsWith('pg_toast_')))),
            expect('the TOAST table gets 7 chunks of va_valueid, chunk_seq 0 to 6 (12800 bytes in chunks of 1996)', (d) => {
              const ptr = newToast(d, 'docs').find((t) => t.varattrib === 'varattrib_1b_e');
              const seqs = chunks(d).filter((c) => c.chunk_id === String(ptr?.va_valueid)).map((c) => Number(c.chunk_seq));
              return ptr !== undefined && seqs.sort((a, b) => a - b).join() === Array.from({ length: Math.ceil(12800 / 1996) }, (_, i) => i).join();
            }),
          ],
        },
      ),
      step(
        'update docs set id = 3 where id = 2',
        "An UPDATE that leaves body alone copies its TOAST pointer into the new tuple version: the same `va_valueid`, and not one new chunk.",
        {
          show: { relation: 'docs', block: 0, item: 3 },
          expect: [
            expect('the old version gets a t_xmax; the new one holds a TOAST pointer to the same 12804-byte value', (d) =>
              fieldsOf(d, 'docs', 't_xmax').some((f) => f.a === '0' && f.b !== '0') &&
              newToast(d, 'docs').some((t) => t.varattrib === 'varattrib_1b_e' && t.va_rawsize === 12804),
            ),
            expect('no new chunk', (d) => chunks(d).length === 0),
          ],
        },
      ),
    ],
  },
  {
    id: 'split',
    title: 'CREATE INDEX and a page split',
    steps: [
      step('create table nums (n int);\ncreate index nums_n on nums (n)', 'An empty btree is a metapage (block 0) alone.', { show: { relation: 'nums_n', block: 0 } }),
      step('insert into nums select generate_series(1, 300)', 'A few hundred keys fit one leaf: block 1 is the root and the only leaf.', {
        show: { relation: 'nums_n', block: 1, header: true },
        expect: [expect('nums_n block 1 appears', (d) => pagesOf(d, 'nums_n').some((p) => p.block === 1 && p.state === 'only_b'))],
      }),
      step(
        'insert into nums select generate_series(301, 1000)',
        'The leaf fills up and splits: now there are several leaves linked by `btpo_prev`/`btpo_next`, and a new root above them (`btpo_level` 1). Item 1 of a leaf that has a right sibling is its high key: the upper bound of its keys.',
        {
          show: { relation: 'nums_n', block: 1, item: 1 },
          expect: [
            expect('new btree pages', (d) => pagesOf(d, 'nums_n').filter((p) => p.state === 'only_b').length >= 2),
            expect('block 1 gets a high key: its item 1 changes', (d) => pagesOf(d, 'nums_n').some((p) => p.block === 1 && p.fields.some((f) => f.field.startsWith('item 1 ')))),
          ],
        },
      ),
    ],
  },
  {
    id: 'vacuum-full',
    title: 'VACUUM FULL: a new file',
    steps: [
      step("create table big (id int, pad text);\ninsert into big select g, repeat('y', 100) from generate_series(1, 500) g;\ndelete from big where id > 50", 'Most rows deleted: the pages hold dead tuples.', {
        show: { relation: 'big', block: 1 },
      }),
      step('vacuum full big', 'VACUUM FULL writes the live rows to a new file: `pg_relation_filenode` changes, the old file is gone, and the new one is compact.', {
        show: { relation: 'big', block: 0, header: true },
        expect: [
          expect('big has a new relfilenode', (d) => d.filenodes.some((f) => f.relation === 'big')),
          expect('the old file is gone', (d) => d.removed.length > 0),
        ],
      }),
    ],
  },
  {
    id: 'index-ams',
    title: 'Other index access methods: hash, GiST, GIN, BRIN',
    steps: [
      step(
        "create table places (id int, at point, tags text[]);\ninsert into places select g, point(g % 100, g / 100), array['t', 'u' || g % 50] from generate_series(1, 5000) g",
        'A table of 5000 rows to index four more ways. Press "Ask PostgreSQL" on any page below: pageinspect has functions for each access method.',
      ),
      step('create index places_id_hash on places using hash (id)', 'A hash index: a metapage (block 0), bucket pages, and a bitmap page of free overflow pages. `hash_page_type` names each.', {
        show: { relation: 'places_id_hash', block: 0 },
        expect: [expect('places_id_hash has pages', (d) => pagesOf(d, 'places_id_hash').length > 2)],
      }),
      step('create index places_at_gist on places using gist (at)', 'A GiST index: no metapage; each page keeps its `flags` (leaf or not) and `rightlink` in its special space.', {
        show: { relation: 'places_at_gist', block: 0 },
        expect: [expect('places_at_gist has pages', (d) => pagesOf(d, 'places_at_gist').length > 1)],
      }),
      step(
        'create index places_tags_gin on places using gin (tags)',
        "A GIN index: a metapage, the entry tree of keys, and posting trees for keys with many rows ('t' is in all 5000): their leaves hold compressed TID lists (`gin_leafpage_items`).",
        {
          show: { relation: 'places_tags_gin', block: 0 },
          expect: [expect('places_tags_gin has pages', (d) => pagesOf(d, 'places_tags_gin').length > 2)],
        },
      ),
      step('create index places_id_brin on places using brin (id) with (pages_per_range = 4)', 'A BRIN index: a metapage, a revmap of TIDs (one per range of 4 heap pages) and regular pages of summaries (min and max id per range).', {
        show: { relation: 'places_id_brin', block: 1 },
        expect: [expect('places_id_brin has a metapage, a revmap and a regular page', (d) => pagesOf(d, 'places_id_brin').length >= 3)],
      }),
      step(
        "insert into places select g, point(g % 100, g / 100), array['t', 'u' || g % 50] from generate_series(5001, 6000) g",
        "Block 2 holds the summaries: one tuple per range of 4 heap pages, its `value` the range's `{min .. max}` id as brin_page_items prints it. The new rows fill the last heap page, then new ones. A range that has a summary is widened at once by the insert (brininsert): its max grows. The new pages' ranges get none yet.",
        {
          show: { relation: 'places_id_brin', block: 2, item: 1 },
          expect: [
            expect("the last range's summary widens: its max grows past 5000", (d) => summaries(d, 'places_id_brin').some((x) => x.a && x.b && x.a[1] === 5000 && x.b[1] > 5000 && x.b[0] === x.a[0])),
            expect('no new summary', (d) => summaries(d, 'places_id_brin').every((x) => x.a !== null)),
          ],
        },
      ),
      step(
        "select brin_summarize_new_values('places_id_brin')",
        'brin_summarize_new_values (VACUUM does it too) summarizes the ranges that have no summary: a new tuple per range, and the revmap (block 1) gets its TID. Between them the summaries now cover every id up to 6000.',
        {
          show: { relation: 'places_id_brin', block: 2 },
          expect: [
            expect('new summaries of ids above 5000 only, up to 6000', (d) => {
              const added = summaries(d, 'places_id_brin').filter((x) => x.a === null && x.b !== null).map((x) => x.b!);
              return added.length > 0 && added.every(([lo, hi]) => lo > 5000 && hi <= 6000) && Math.max(...added.map(([, hi]) => hi)) === 6000;
            }),
            expect('the revmap gets their TIDs', (d) => pagesOf(d, 'places_id_brin').some((p) => p.block === 1 && p.fields.some((f) => / pages$/.test(f.field) && f.a === '(0,0)'))),
          ],
        },
      ),
    ],
  },
  {
    id: 'corruption',
    title: "Corruption: a flipped bit and the server's checksum check",
    steps: [
      step(
        "create table victim (id int, v text);\ninsert into victim select g, 'row ' || g from generate_series(1, 20) g",
        'Block 0 of victim is on screen. Press "Edit (checksum lab)" below it, click a byte of a tuple in the hex view and type another value, then press "Write the lab\'s page into PostgreSQL\'s file". The server\'s buffer of the page is evicted, so its next read is the file\'s.',
        { then: 'lab-write', show: { relation: 'victim', block: 0, item: 1 } },
      ),
      step(
        'select * from victim',
        "The server reads block 0, computes its checksum, finds another one stored, and refuses the page: the error above is PostgreSQL's own (bufmgr.c, buffer_readv_report). Its detail, \"page verification failed, calculated checksum … but expected …\" (bufpage.c: PageIsVerified), PostgreSQL 18 writes to the server log only (PIV_LOG_LOG), as the read may complete in another process.",
        { error: /invalid page in block 0 of relation/ },
      ),
      step(
        'set ignore_checksum_failure = on;\nselect * from victim',
        'With `ignore_checksum_failure` the server only warns ("ignoring checksum failure in block 0 …") and reads on: the changed byte is in the result. Never set this on a server you care about without a copy of the data directory.',
      ),
    ],
  },
];
