// The playground's lessons: short scripts a PostgreSQL teacher would type, one statement per
// step, each showing one thing happen to the pages. A step names what to show (a relation's
// block, a line pointer or the header outlined as the tour outlines them) and the change it
// expects, read from pgpage's decoded diff of the snapshots (SnapshotDiff's comparison) or
// from the server's error. The Node test runs them all on PGlite and holds every page they
// make against pageinspect; the browser test clicks through them and checks the expectations.
import type { PageChange, PageDiffRow, SnapshotComparison } from './SnapshotDiff';

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
  /** The question the learner answers before running the step ("what will happen to lp 1?"). */
  predict?: string;
  /** What to look at after the statement (text in `backticks` renders as code). */
  say: string;
  /** What the learner does by hand before the next step: edit the page with the lab and
   * write it into the server's file. */
  then?: 'lab-write';
  show?: LessonShow;
  expect: LessonExpect[];
  /** The server's error text the step expects (the corruption lesson). */
  error?: RegExp;
  /** Another lesson that goes on from what this step shows (its id): offered after the step. */
  see?: string;
  /** What to say instead of `say` when the step did not go as the lesson expects (the
   * learner skipped the edit it asked for): the first whose test holds of what happened. */
  otherwise?: { when(o: StepOutcome): boolean; say: string }[];
}

/** What a step did, as the playground saw it: the server's error, its notices, the decoded
 * diff of the snapshots, and what the lesson's earlier steps did. */
export interface StepOutcome {
  error: string | null;
  notices: string[];
  diff: SnapshotComparison;
  earlier: StepOutcome[];
}

/** The step's explanation of what happened: `say`, unless an `otherwise` fits the outcome. */
export function sayOf(step: LessonStep, o: StepOutcome): string {
  return step.otherwise?.find((x) => x.when(o))?.say ?? step.say;
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
const flagged = (d: SnapshotComparison, relation: string, flag: string) =>
  fieldsOf(d, relation, 'raw_flags').filter((f) => f.b.includes(flag) && !f.a.includes(flag));

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

/** The core's account of what happened to a relation's pages (page_story): its events of one kind. */
const events = <E extends PageChange['event']>(d: SnapshotComparison, relation: string, event: E, fork = 'main') =>
  pagesOf(d, relation, fork).flatMap((p) => p.story.changes.filter((c): c is Extract<PageChange, { event: E }> => c.event === event));
/** Line pointers named by the relation's events of one kind. */
const lpsOf = (d: SnapshotComparison, relation: string, event: 'dead' | 'unused' | 'frozen' | 'hint_bits' | 'deleted' | 'inserted') =>
  events(d, relation, event).flatMap((c) => ('lps' in c ? c.lps : []));

// What the corruption lesson's steps saw: the server refusing block 0, warning and reading on
// (ignore_checksum_failure), or a read that rewrote the damaged page under a new checksum.
const refused = (o: StepOutcome) => /invalid page in block 0 of relation/.test(o.error ?? '');
const warned = (o: StepOutcome) => o.notices.some((n) => /ignoring checksum failure/.test(n));
const resealed = (o: StepOutcome) => events(o.diff, 'victim', 'resealed').length > 0;
/** No step of the lesson so far found block 0 damaged: the learner never changed it. */
const neverDamaged = (o: StepOutcome) => ![o, ...o.earlier].some((x) => refused(x) || warned(x));
const AGAIN = 'To see it, run `drop table victim`, pick the lesson again, and press "Flip a byte for me" (or change a byte of block 0 by hand) before step 2.';

export const LESSONS: Lesson[] = [
  {
    id: 'insert',
    title: 'INSERT: a tuple and its line pointer',
    steps: [
      step('create table fruit (id int, name text)', 'A new table is an empty file: no pages until the first row.', {
        predict: 'A new table: how many pages will its file have?',
        expect: [expect('fruit has a file and no page yet', (d) => d.added.length > 0 && pagesOf(d, 'fruit').length === 0)],
      }),
      step(
        "insert into fruit values (1, 'apple'), (2, 'banana')",
        "Block 0 appears: two line pointers at the start (`lp` 1 and 2), the tuples at the end of the page, growing down. `pd_lower` and `pd_upper` bound the free space between them. Each tuple's `t_xmin` is the inserting transaction.",
        {
          predict: 'Where on the page will the two tuples go, and where their line pointers?',
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
        'Ten tuples of 32 bytes (`lp_len`: a 24-byte header and two ints), each with a 4-byte line pointer, fill under 5% of block 0. fillfactor 50 reserves nothing by itself: it stops INSERT and COPY (and an UPDATE whose new version has to go to another page) from putting a row on a page where it would leave less than half of the page free. The other half is for UPDATEs of the rows already there: a new version goes on the same page whenever it fits, which a HOT update needs. The primary key is a btree index `stock_pkey`.',
        {
          predict: 'Ten small rows in a table with fillfactor 50: how much of block 0 will they fill, and what does fillfactor change?',
          show: { relation: 'stock', block: 0, header: true },
          expect: [
            expect('ten tuples of 32 bytes on block 0: with the header and line pointers, under 5% of the page', (d) => {
              const lens = fieldsOf(d, 'stock', 'lp_len')
                .filter((f) => f.a === '-')
                .map((f) => Number(f.b));
              return lens.length === 10 && lens.every((n) => n === 32) && 24 + lens.reduce((sum, n) => sum + 4 + n, 0) < 0.05 * 8192;
            }),
          ],
        },
      ),
      step(
        'update stock set qty = qty + 1 where id = 1',
        'qty is in no index and the page has room: a HOT update. The old version gets `t_xmax` and HEAP_HOT_UPDATED, its `t_ctid` points at the new one, which is HEAP_ONLY_TUPLE. The index is not touched.',
        {
          predict: 'qty is in no index. Will lp 1 be overwritten in place, or get a successor? Will stock_pkey change?',
          show: { relation: 'stock', block: 0, item: 1 },
          expect: [
            expect('the old tuple gains HEAP_HOT_UPDATED', (d) => flagged(d, 'stock', 'HEAP_HOT_UPDATED').length === 1),
            expect('the new tuple is HEAP_ONLY_TUPLE', (d) => flagged(d, 'stock', 'HEAP_ONLY_TUPLE').length === 1),
            expect('stock_pkey is not touched', (d) => pagesOf(d, 'stock_pkey').length === 0),
          ],
        },
      ),
      step(
        'update stock set id = 100 where id = 2',
        'id is indexed: no HOT. The new version is a plain tuple, and `stock_pkey` gets a new entry (id 100) pointing at it. The old version keeps its entry (id 2): the index now has one entry per version, and the old one stays until VACUUM removes the dead version and its entry, or until an insert that would split its leaf page deletes it first: entries an index scan marked LP_DEAD go then (simple deletion), and since PostgreSQL 14 an insert made by a non-HOT UPDATE that leaves this index\'s key unchanged also tries bottom-up index deletion, which removes the entries of versions it finds dead in the heap (nbtree\'s README: "Bottom-Up deletion").',
        {
          predict: 'id is indexed: can this UPDATE be HOT? What happens to stock_pkey?',
          show: { relation: 'stock_pkey', block: 1 },
          expect: [
            expect('no tuple becomes HEAP_ONLY_TUPLE', (d) => flagged(d, 'stock', 'HEAP_ONLY_TUPLE').length === 0),
            expect('the old tuple is not HEAP_HOT_UPDATED', (d) => flagged(d, 'stock', 'HEAP_HOT_UPDATED').length === 0),
            expect('stock_pkey gains an index tuple', (d) =>
              pagesOf(d, 'stock_pkey').some((p) => p.fields.some((f) => f.a === '-' && /^item \d+ ctid$/.test(f.field))),
            ),
            expect("stock_pkey keeps the old version's entry: one added, none removed", (d) => {
              const c = events(d, 'stock_pkey', 'index_tuples');
              const ctids = pagesOf(d, 'stock_pkey').flatMap((p) => p.fields.filter((f) => /^item \d+ ctid$/.test(f.field)));
              return c.length === 1 && c[0].added === 1 && c[0].removed === 0 && ctids.length === 1 && ctids.every((f) => f.a === '-');
            }),
          ],
        },
      ),
      step(
        'create table tight (id int primary key, qty int);\ninsert into tight select g, 0 from generate_series(1, 300) g',
        'The third case needs a full page. tight has the default fillfactor (100): INSERT fills block 0 until the next row (32 bytes and a 4-byte line pointer) no longer fits. That is 226 rows, with 32 bytes left between `pd_lower` (928) and `pd_upper` (960); the other 74 rows went to block 1.',
        {
          predict: 'Rows of 32 bytes and no fillfactor: how many will block 0 take, and how much room will it keep for updates?',
          show: { relation: 'tight', block: 0, header: true },
          expect: [
            expect('block 0 is a new page of 226 tuples, block 1 of the other 74', (d) => {
              const items = (block: number) =>
                pagesOf(d, 'tight')
                  .filter((p) => p.block === block)
                  .flatMap((p) => p.story.changes.flatMap((c) => (c.event === 'new_page' ? [c.items] : [])));
              return items(0).join() === '226' && items(1).join() === '74';
            }),
          ],
        },
      ),
      step(
        'update tight set qty = qty + 1 where id = 1',
        'qty is in no index, as in step 2, but block 0 has no room for the new version: not HOT, as a HOT update needs the new version on the same page. The server would first prune the page if `pd_prune_xid` said something on it might be dead; nothing was. The new version went to block 1 as a plain tuple (lp 75, not HEAP_ONLY_TUPLE); the old one on block 0 got `t_xmax` and a `t_ctid` of (1,75), but no HEAP_HOT_UPDATED; and `tight_pkey` got a second entry for id 1, pointing at (1,75), beside the old one at (0,1). Every index of the table gets a new entry this way, whichever columns changed. That is what a fillfactor below 100 buys: room on the page for HOT updates. The UPDATE also set block 0\'s `pd_prune_xid`: the lesson "On-access pruning" shows what the next read of such a page does.',
        {
          predict: 'qty is in no index again, but block 0 is full. Will this UPDATE be HOT? Where will the new version go, and will tight_pkey change?',
          show: { relation: 'tight', block: 0, item: 1 },
          see: 'prune',
          expect: [
            expect('lp 1 of block 0 now points at its new version on block 1: (1,75)', (d) =>
              events(d, 'tight', 'updated').some((c) => c.lp === 1 && c.to === '(1,75)'),
            ),
            expect('no tuple becomes HEAP_ONLY_TUPLE or HEAP_HOT_UPDATED', (d) =>
              [flagged(d, 'tight', 'HEAP_ONLY_TUPLE'), flagged(d, 'tight', 'HEAP_HOT_UPDATED')].every((l) => l.length === 0),
            ),
            expect("tight_pkey gains an entry for the new version and keeps the old one's", (d) => {
              const c = events(d, 'tight_pkey', 'index_tuples');
              return c.length === 1 && c[0].added === 1 && c[0].removed === 0;
            }),
          ],
        },
      ),
    ],
  },
  {
    id: 'vacuum',
    title: 'DELETE and VACUUM',
    steps: [
      step("create table gone (id int, pad text);\ninsert into gone select g, repeat('x', 50) from generate_series(1, 60) g", 'Sixty rows on one page.', {
        predict: 'Sixty rows of 50 bytes: how many pages?',
        show: { relation: 'gone', block: 0, header: true },
      }),
      step('delete from gone where id % 2 = 0', 'DELETE only sets `t_xmax` on the deleted tuples: the bytes stay where they were.', {
        predict: "Will DELETE remove the deleted tuples' bytes from the page?",
        show: { relation: 'gone', block: 0, item: 2 },
        expect: [expect('30 tuples get a t_xmax', (d) => fieldsOf(d, 'gone', 't_xmax').filter((f) => f.a === '0' && f.b !== '0').length === 30)],
      }),
      step(
        'vacuum gone',
        "VACUUM frees the dead tuples: their line pointers become LP_UNUSED (`lp_flags` 0) at once, as the table has no index whose entries could point at them, and those at the end of the array are cut off; the page is compacted, and the free space map (_fsm) and visibility map (_vm) appear. The thirty live tuples were frozen too (HEAP_XMIN_FROZEN): pruning was the page's first change since the last checkpoint, so its WAL record carries a full-page image anyway, and a plain VACUUM then freezes the whole page (since PostgreSQL 16; the lesson on the two passes of VACUUM says more).",
        {
          predict: "What will VACUUM do to the deleted rows' line pointers, and to lp 60, the last one?",
          show: { relation: 'gone', block: 0, item: 2 },
          expect: [
            expect(
              '29 line pointers become LP_UNUSED (lp_flags 1 → 0)',
              (d) => fieldsOf(d, 'gone', 'lp_flags').filter((f) => f.a === '1' && f.b === '0').length === 29,
            ),
            expect('the last line pointer is cut off the array', (d) =>
              pagesOf(d, 'gone').some((p) => p.fields.some((f) => f.field === 'item 60' && f.b === '-')),
            ),
            expect('the _fsm and _vm forks appear', (d) => d.added.some((f) => f.endsWith('_fsm')) && d.added.some((f) => f.endsWith('_vm'))),
            expect(
              'the 30 live tuples were frozen (HEAP_XMIN_FROZEN)',
              (d) => lpsOf(d, 'gone', 'frozen').join() === Array.from({ length: 30 }, (_, i) => 2 * i + 1).join(),
            ),
          ],
        },
      ),
    ],
  },
  {
    id: 'toast',
    title: 'TOAST: compressed inline and out of line',
    steps: [
      step('create table docs (id int, body text)', 'A text column gives the table a TOAST table and its index.', {
        predict: 'Which relations does a table with a text column get?',
      }),
      step(
        "insert into docs values (1, repeat('pgpage ', 1000));\nselect id, pg_column_compression(body), pg_column_size(body), octet_length(body) from docs",
        '7000 bytes that repeat compress to under a hundred: the value stays in the heap tuple, compressed inline. Its varlena header is a `varattrib_4b.va_compressed`: a 4-byte length (the `size` pg_column_size says), then `va_tcinfo`, whose low 30 bits are the raw size (7000, octet_length) and whose top two bits the method (0: pglz, what pg_column_compression says).',
        {
          predict: '7000 bytes that repeat: stored inline, compressed, or in the TOAST table?',
          show: { relation: 'docs', block: 0, item: 1 },
          expect: [
            expect('item 1 holds body compressed inline: varattrib_4b.va_compressed, rawsize 7000, pglz', (d) =>
              newToast(d, 'docs').some(
                (t) => t.attnum === 2 && t.varattrib === 'varattrib_4b.va_compressed' && t.rawsize === 7000 && t.compression === 'pglz' && t.size < 1000,
              ),
            ),
            expect('no TOAST chunk', (d) => d.pages.every((p) => !p.relation.startsWith('pg_toast_'))),
          ],
        },
      ),
      step(
        'alter table docs alter column body set compression lz4',
        "lz4 is the other method (`va_tcinfo`'s top bits 1), but only in a server built with it: PGlite is not, and says so.",
        { predict: 'Will this server accept lz4?', error: /compression method lz4 not supported/ },
      ),
      step(
        "insert into docs values (2, (select string_agg(md5(g::text), '') from generate_series(1, 400) g));\nselect id, pg_column_compression(body), pg_column_size(body), octet_length(body) from docs",
        "12800 bytes of hex digits that pglz cannot shrink by a quarter: the value goes to the TOAST table and the heap tuple keeps an 18-byte TOAST pointer, a `varattrib_1b_e` (header byte 0x01, `va_tag` 18 = VARTAG_ONDISK) holding a `varatt_external`: `va_rawsize` 12804 (header included), `va_extinfo` (12800 bytes stored, no compression), `va_valueid` and `va_toastrelid`. The TOAST table's tuples are its chunks: `chunk_id` is the pointer's `va_valueid`, `chunk_seq` counts 0, 1, ... over chunks of at most 1996 bytes.",
        {
          predict: '12800 bytes of hex digits that do not compress: where will this value go?',
          show: { relation: 'docs', block: 0, item: 2 },
          expect: [
            expect('item 2 holds a TOAST pointer: varattrib_1b_e, va_tag 18, va_rawsize 12804, extsize 12800, uncompressed', (d) =>
              newToast(d, 'docs').some(
                (t) => t.varattrib === 'varattrib_1b_e' && t.va_tag === 18 && t.va_rawsize === 12804 && t.extsize === 12800 && t.compression === null,
              ),
            ),
            expect("va_toastrelid is the TOAST table's oid", (d) =>
              newToast(d, 'docs').some((t) => d.pages.some((p) => p.oid === t.va_toastrelid && p.relation.startsWith('pg_toast_'))),
            ),
            expect('the TOAST table gets 7 chunks of va_valueid, chunk_seq 0 to 6 (12800 bytes in chunks of 1996)', (d) => {
              const ptr = newToast(d, 'docs').find((t) => t.varattrib === 'varattrib_1b_e');
              const seqs = chunks(d)
                .filter((c) => c.chunk_id === String(ptr?.va_valueid))
                .map((c) => Number(c.chunk_seq));
              return ptr !== undefined && seqs.sort((a, b) => a - b).join() === Array.from({ length: Math.ceil(12800 / 1996) }, (_, i) => i).join();
            }),
          ],
        },
      ),
      step(
        'update docs set id = 3 where id = 2',
        'An UPDATE that leaves body alone copies its TOAST pointer into the new tuple version: the same `va_valueid`, and not one new chunk.',
        {
          predict: 'The UPDATE leaves body alone: will the TOAST table get new chunks?',
          show: { relation: 'docs', block: 0, item: 3 },
          expect: [
            expect(
              'the old version gets a t_xmax; the new one holds a TOAST pointer to the same 12804-byte value',
              (d) =>
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
      step('create table nums (n int);\ncreate index nums_n on nums (n)', 'An empty btree is a metapage (block 0) alone.', {
        predict: 'How many pages does an empty B-tree have?',
        show: { relation: 'nums_n', block: 0 },
      }),
      step('insert into nums select generate_series(1, 300)', 'A few hundred keys fit one leaf: block 1 is the root and the only leaf.', {
        predict: 'Will 300 keys fit on one leaf?',
        show: { relation: 'nums_n', block: 1, header: true },
        expect: [expect('nums_n block 1 appears', (d) => pagesOf(d, 'nums_n').some((p) => p.block === 1 && p.state === 'only_b'))],
      }),
      step(
        'insert into nums select generate_series(301, 1000)',
        'The leaf fills up and splits: now there are several leaves linked by `btpo_prev`/`btpo_next`, and a new root above them (`btpo_level` 1). Item 1 of a leaf that has a right sibling is its high key: the upper bound of its keys.',
        {
          predict: 'What happens when the only leaf is full?',
          show: { relation: 'nums_n', block: 1, item: 1 },
          expect: [
            expect('new btree pages', (d) => pagesOf(d, 'nums_n').filter((p) => p.state === 'only_b').length >= 2),
            expect('block 1 gets a high key: its item 1 changes', (d) =>
              pagesOf(d, 'nums_n').some((p) => p.block === 1 && p.fields.some((f) => f.field.startsWith('item 1 '))),
            ),
          ],
        },
      ),
    ],
  },
  {
    id: 'vacuum-full',
    title: 'VACUUM FULL: a new file',
    steps: [
      step(
        "create table big (id int, pad text);\ninsert into big select g, repeat('y', 100) from generate_series(1, 500) g;\ndelete from big where id > 50",
        'Most rows deleted: the pages hold dead tuples.',
        { predict: "After the DELETE, are the dead tuples' bytes still in the file?", show: { relation: 'big', block: 1 } },
      ),
      step(
        'vacuum full big',
        'VACUUM FULL writes the live rows to a new file: `pg_relation_filenode` changes, the old file is gone, and the new one is compact.',
        {
          predict: 'Will VACUUM FULL compact the same file, or write another?',
          show: { relation: 'big', block: 0, header: true },
          expect: [
            expect('big has a new relfilenode', (d) => d.filenodes.some((f) => f.relation === 'big')),
            expect('the old file is gone', (d) => d.removed.length > 0),
          ],
        },
      ),
    ],
  },
  {
    id: 'index-ams',
    title: 'Other index access methods: hash, GiST, GIN, BRIN',
    steps: [
      step(
        "create table places (id int, at point, tags text[]);\ninsert into places select g, point(g % 100, g / 100), array['t', 'u' || g % 50] from generate_series(1, 5000) g",
        'A table of 5000 rows to index four more ways. Press "Ask PostgreSQL" on any page below: pageinspect has functions for each access method.',
        { predict: 'Four index access methods follow: which of them start with a metapage?' },
      ),
      step(
        'create index places_id_hash on places using hash (id)',
        'A hash index: a metapage (block 0), bucket pages, and a bitmap page of free overflow pages. `hash_page_type` names each.',
        {
          predict: 'What kinds of page will a hash index have?',
          show: { relation: 'places_id_hash', block: 0 },
          expect: [expect('places_id_hash has pages', (d) => pagesOf(d, 'places_id_hash').length > 2)],
        },
      ),
      step(
        'create index places_at_gist on places using gist (at)',
        'A GiST index: no metapage; each page keeps its `flags` (leaf or not) and `rightlink` in its special space.',
        {
          predict: 'Does a GiST index start with a metapage?',
          show: { relation: 'places_at_gist', block: 0 },
          expect: [expect('places_at_gist has pages', (d) => pagesOf(d, 'places_at_gist').length > 1)],
        },
      ),
      step(
        'create index places_tags_gin on places using gin (tags)',
        "A GIN index: a metapage, the entry tree of keys, and posting trees for keys with many rows ('t' is in all 5000): their leaves hold compressed TID lists (`gin_leafpage_items`).",
        {
          predict: "'t' is in all 5000 rows: how will GIN keep 5000 TIDs for one key?",
          show: { relation: 'places_tags_gin', block: 0 },
          expect: [expect('places_tags_gin has pages', (d) => pagesOf(d, 'places_tags_gin').length > 2)],
        },
      ),
      step(
        'create index places_id_brin on places using brin (id) with (pages_per_range = 4)',
        "A BRIN index: a metapage, a revmap of TIDs (one per range of 4 heap pages) and regular pages of summaries (min and max id per range): as many summaries as ranges, the heap's pages divided by 4 and rounded up (brin_page_items on block 2 lists them). Of the four, hash, GIN and BRIN start with a metapage; GiST does not.",
        {
          predict: '5000 rows, 4 heap pages to a range: how many summaries?',
          show: { relation: 'places_id_brin', block: 1 },
          expect: [expect('places_id_brin has a metapage, a revmap and a regular page', (d) => pagesOf(d, 'places_id_brin').length >= 3)],
        },
      ),
      step(
        "insert into places select g, point(g % 100, g / 100), array['t', 'u' || g % 50] from generate_series(5001, 6000) g",
        "Block 2 holds the summaries: one tuple per range of 4 heap pages, its `value` the range's `{min .. max}` id as brin_page_items prints it. The new rows fill the last heap page, then new ones. A range that has a summary is widened at once by the insert (brininsert): its max grows. The new pages' ranges get none yet.",
        {
          predict: 'The new rows extend the last range and start new ones: which summaries change now?',
          show: { relation: 'places_id_brin', block: 2, item: 1 },
          expect: [
            expect("the last range's summary widens: its max grows past 5000", (d) =>
              summaries(d, 'places_id_brin').some((x) => x.a && x.b && x.a[1] === 5000 && x.b[1] > 5000 && x.b[0] === x.a[0]),
            ),
            expect('no new summary', (d) => summaries(d, 'places_id_brin').every((x) => x.a !== null)),
          ],
        },
      ),
      step(
        "select brin_summarize_new_values('places_id_brin')",
        'brin_summarize_new_values (VACUUM does it too) summarizes the ranges that have no summary: a new tuple per range, and the revmap (block 1) gets its TID. Between them the summaries now cover every id up to 6000.',
        {
          predict: 'Which ranges get a summary now?',
          show: { relation: 'places_id_brin', block: 2 },
          expect: [
            expect('new summaries of ids above 5000 only, up to 6000', (d) => {
              const added = summaries(d, 'places_id_brin')
                .filter((x) => x.a === null && x.b !== null)
                .map((x) => x.b!);
              return added.length > 0 && added.every(([lo, hi]) => lo > 5000 && hi <= 6000) && Math.max(...added.map(([, hi]) => hi)) === 6000;
            }),
            expect('the revmap gets their TIDs', (d) =>
              pagesOf(d, 'places_id_brin').some((p) => p.block === 1 && p.fields.some((f) => / pages$/.test(f.field) && f.a === '(0,0)')),
            ),
          ],
        },
      ),
    ],
  },
  {
    id: 'prune',
    title: 'On-access pruning: a SELECT frees a HOT chain',
    steps: [
      step(
        "create table hotpage (id int primary key, n int, pad text);\ninsert into hotpage select g, 0, repeat('p', 60) from generate_series(1, 70) g",
        'Seventy rows of about 100 bytes: block 0 is nearly full, with a little over 1 KB free between `pd_lower` and `pd_upper`.',
        { predict: 'How much free space will block 0 have left?', show: { relation: 'hotpage', block: 0, header: true } },
      ),
      step(
        Array.from({ length: 6 }, () => 'update hotpage set n = n + 1 where id = 1;').join('\n'),
        'One transaction updates row 1 six times. n is in no index and the page has room: six HOT updates, a chain lp 1 → 71 → 72 → … → 76, each version HEAP_HOT_UPDATED with `t_ctid` naming the next, each new one HEAP_ONLY_TUPLE. `pd_prune_xid` is set to the updating transaction: a hint that the page may have something to prune once it is over. Free space is now under a tenth of the page.',
        {
          predict: 'Six updates of the same row in one transaction: where will the versions go, and will any of them be removed now?',
          show: { relation: 'hotpage', block: 0, item: 1 },
          expect: [
            expect(
              'six HOT updates on block 0: lp 1 → 71 → … → 76',
              (d) => events(d, 'hotpage', 'hot_update').length === 6 && events(d, 'hotpage', 'hot_update').some((c) => c.from === 1 && c.to === 71),
            ),
            expect('pd_prune_xid is set', (d) => events(d, 'hotpage', 'prune_hint').length === 1),
            expect('hotpage_pkey is not touched', (d) => pagesOf(d, 'hotpage_pkey').length === 0),
          ],
        },
      ),
      step(
        'select * from hotpage where id = 1',
        'A plain SELECT, and the page changed. Reading it (heap_page_prune_opt), the server saw `pd_prune_xid` older than every running transaction and less than a tenth of the page free, so it pruned: the dead versions 71-75 became LP_UNUSED, and lp 1, which the index entry points at, became an LP_REDIRECT to lp 76, the live version. No VACUUM ran.',
        {
          predict: 'A SELECT only reads. Will block 0 be the same after it? What will happen to lp 1 and to lp 71-75?',
          show: { relation: 'hotpage', block: 0, item: 1 },
          expect: [
            expect('pruning turned lp 1 into a redirect to lp 76', (d) => events(d, 'hotpage', 'redirected').some((c) => c.from === 1 && c.to === 76)),
            expect('lp 71-75 became LP_UNUSED', (d) => lpsOf(d, 'hotpage', 'unused').join() === '71,72,73,74,75'),
          ],
        },
      ),
    ],
  },
  {
    id: 'kill-tuple',
    title: 'LP_DEAD set by an index scan (kill_prior_tuple)',
    steps: [
      step(
        "create table k (id int primary key, v text);\ninsert into k select g, 'v' from generate_series(1, 100) g",
        'A table and its primary key: 100 entries on one leaf, block 1 of `k_pkey`.',
        {
          predict: 'Which block of k_pkey will hold the 100 keys?',
          show: { relation: 'k_pkey', block: 1 },
        },
      ),
      step(
        'delete from k where id <= 10',
        'DELETE sets `t_xmax` on ten heap tuples. Their index entries are not touched: an index does not know about visibility.',
        {
          predict: 'Will the DELETE change k_pkey?',
          show: { relation: 'k', block: 0, item: 1 },
          expect: [
            expect('10 heap tuples get a t_xmax', (d) => lpsOf(d, 'k', 'deleted').length === 10),
            expect('k_pkey is not touched', (d) => pagesOf(d, 'k_pkey').length === 0),
          ],
        },
      ),
      step(
        'begin;\nset local enable_seqscan = off;\nset local enable_bitmapscan = off;\nselect * from k where id <= 10;\ncommit',
        'An index scan over the ten deleted keys. For each, it fetched the heap tuple and found it dead to every transaction (the DELETE committed and nothing older runs), so it marked the index entry LP_DEAD (kill_prior_tuple, _bt_killitems). Later scans skip those entries without visiting the heap, and an insert that needs room on the leaf may delete them.',
        {
          predict: 'The scan finds no rows. What will it leave behind on the leaf, block 1 of k_pkey?',
          show: { relation: 'k_pkey', block: 1, item: 1 },
          expect: [
            expect('an index scan marked items 1-10 of k_pkey block 1 LP_DEAD', (d) =>
              pagesOf(d, 'k_pkey').some(
                (p) => p.block === 1 && p.story.changes.some((c) => c.event === 'dead' && c.index && c.lps.join() === '1,2,3,4,5,6,7,8,9,10'),
              ),
            ),
          ],
        },
      ),
    ],
  },
  {
    id: 'vacuum-passes',
    title: 'The two passes of VACUUM: LP_DEAD, then LP_UNUSED',
    steps: [
      step(
        "create table twopass (id int primary key, pad text);\ninsert into twopass select g, 'x' from generate_series(1, 50) g",
        'Fifty rows and a primary key: twopass_pkey holds 50 index entries, one per row, each pointing at its tuple (lp 1-50 of block 0).',
        {
          predict: 'How many index entries will twopass_pkey hold?',
        },
      ),
      step('delete from twopass where id <= 20', 'Twenty tuples get a `t_xmax`.', {
        predict: 'Which line pointers change?',
        show: { relation: 'twopass', block: 0, item: 1 },
        expect: [expect('lp 1-20 get a t_xmax', (d) => lpsOf(d, 'twopass', 'deleted').join() === Array.from({ length: 20 }, (_, i) => i + 1).join())],
      }),
      step(
        'vacuum (index_cleanup off) twopass',
        "VACUUM's first pass prunes the page: the twenty dead tuples are removed, but their line pointers stay as LP_DEAD, because index entries still point at them and a new tuple in the same slot would be found by those entries. With `index_cleanup off` VACUUM stops here: no index is touched, no second pass. And the thirty live tuples were frozen (HEAP_XMIN_FROZEN), by a plain VACUUM. Since PostgreSQL 16 VACUUM freezes a page's tuples when it must (an xmin older than `vacuum_freeze_min_age`, 50 million transactions by default), and also when it can make the whole page all-frozen cheaply: when the page gets a full-page image in the WAL anyway (heap_page_prune_and_freeze). Here pruning is the page's first change since the checkpoint the playground takes after every statement, so its WAL record carries an image of the page, and freezing adds little to it. The LP_DEAD line pointers keep the page from being all-visible: VACUUM created the visibility map (`_vm`) but set no bit in it, and its page is still all zeros in the file (the server initialized it in its buffer only).",
        {
          predict: 'The first pass removes dead tuples. What will become of their line pointers while the index still points at them?',
          show: { relation: 'twopass', block: 0, item: 1 },
          expect: [
            expect('lp 1-20 became LP_DEAD', (d) => lpsOf(d, 'twopass', 'dead').join() === Array.from({ length: 20 }, (_, i) => i + 1).join()),
            expect('twopass_pkey is not touched', (d) => pagesOf(d, 'twopass_pkey').length === 0),
            expect(
              'lp 21-50 were frozen (HEAP_XMIN_FROZEN) by this plain VACUUM',
              (d) => lpsOf(d, 'twopass', 'frozen').join() === Array.from({ length: 30 }, (_, i) => i + 21).join(),
            ),
            expect(
              "the visibility map's page is all zeros in the file: no bit set",
              (d) => pagesOf(d, 'twopass', 'vm').length === 1 && pagesOf(d, 'twopass', 'vm').every((p) => p.checksum.b === 'zero'),
            ),
          ],
        },
      ),
      step(
        'vacuum (index_cleanup on) twopass',
        'Now VACUUM removes the index entries that point at LP_DEAD line pointers (ambulkdelete), and only then, in its second pass over the heap, makes those line pointers LP_UNUSED: free for new tuples. The page is all-visible now too, and all-frozen, as its tuples were frozen in the first pass: PD_ALL_VISIBLE is set and the visibility map gets both bits. Its page is written for the first time: in the last snapshot it was all zeros, which has no checksum to verify (the server takes such a page as new); now it has a header and a checksum that passes.',
        {
          predict: 'What will happen first, to twopass_pkey, and then to lp 1-20?',
          show: { relation: 'twopass', block: 0, item: 1 },
          expect: [
            expect('twopass_pkey loses 20 index tuples', (d) => events(d, 'twopass_pkey', 'index_tuples').some((c) => c.removed === 20)),
            expect('lp 1-20 went from LP_DEAD to LP_UNUSED', (d) =>
              events(d, 'twopass', 'unused').some((c) => c.from === 'LP_DEAD' && c.lps.join() === Array.from({ length: 20 }, (_, i) => i + 1).join()),
            ),
            expect('the visibility map marks heap block 0 all-visible and all-frozen', (d) =>
              events(d, 'twopass', 'vm_bits', 'vm').some((c) => c.set && c.all_visible && c.all_frozen && c.heap_blocks.includes(0)),
            ),
            expect("the visibility map's page went from all zeros to a checksum that passes", (d) =>
              pagesOf(d, 'twopass', 'vm').some((p) => p.checksum.a === 'zero' && p.checksum.b === 'ok'),
            ),
          ],
        },
      ),
    ],
  },
  {
    id: 'visibility',
    title: 'Hint bits, the visibility map and freezing',
    steps: [
      step(
        "create table vis (id int, v text);\ninsert into vis select g, 'v' || g from generate_series(1, 100) g",
        'A hundred rows. Their `t_infomask` is 0x0802 (2050): HEAP_XMAX_INVALID (0x0800), as no transaction has deleted or locked them, and HEAP_HASVARWIDTH (0x0002), as the row has a variable-width column (v text). Neither HEAP_XMIN_COMMITTED nor HEAP_XMIN_INVALID: nobody has yet checked whether the inserting transaction committed.',
        {
          predict: 'Which t_infomask bits will the new tuples have?',
          show: { relation: 'vis', block: 0, item: 1 },
          expect: [
            expect('lp 1-100: t_infomask 0x0802, HEAP_HASVARWIDTH and HEAP_XMAX_INVALID', (d) => {
              const masks = fieldsOf(d, 'vis', 't_infomask').filter((f) => f.a === '-');
              const flags = fieldsOf(d, 'vis', 'raw_flags').filter((f) => f.a === '-');
              return (
                masks.length === 100 &&
                masks.every((f) => f.b === '2050') &&
                flags.length === 100 &&
                flags.every((f) => (JSON.parse(f.b) as string[]).sort().join() === 'HEAP_HASVARWIDTH,HEAP_XMAX_INVALID')
              );
            }),
          ],
        },
      ),
      step(
        'select count(*) from vis',
        "The first read looked up each tuple's `t_xmin` in the commit log, found it committed, and wrote that down as a hint bit, HEAP_XMIN_COMMITTED (0x0100), so the next read need not look again: `t_infomask` went from 0x0802 to 0x0902 (2306). A SELECT wrote to the page. And to the WAL: this server has data checksums on, and then the first hint-bit change of a page after a checkpoint is WAL-logged as a full-page image (an XLOG/FPI_FOR_HINT record), as it is with `wal_log_hints` on. Its `pd_lsn` moved to that record's end. The next step asks the server's WAL for it.",
        {
          predict: 'A SELECT only reads: will block 0 change?',
          show: { relation: 'vis', block: 0, item: 1 },
          expect: [
            expect('the read set HEAP_XMIN_COMMITTED on lp 1-100', (d) =>
              events(d, 'vis', 'hint_bits').some((c) => c.flags.includes('HEAP_XMIN_COMMITTED') && c.lps.length === 100),
            ),
            expect(
              't_infomask 0x0802 → 0x0902 on lp 1-100',
              (d) => fieldsOf(d, 'vis', 't_infomask').filter((f) => f.a === '2050' && f.b === '2306').length === 100,
            ),
          ],
        },
      ),
      step(
        "select w.start_lsn, w.end_lsn, w.resource_manager, w.record_type, w.block_fpi_length\nfrom page_header(get_raw_page('vis', 0)) h,\n  pg_get_wal_block_info(h.lsn - 16384, h.lsn, false) w\nwhere w.relfilenode = pg_relation_filenode('vis') and w.relforknumber = 0 and w.relblocknumber = 0",
        "pg_walinspect reads the server's own WAL: the record that ends at block 0's `pd_lsn` is XLOG/FPI_FOR_HINT, an image of the whole page (`block_fpi_length`: its bytes, without the free space between `pd_lower` and `pd_upper`). The reason is torn pages: a crash while the page is half written would leave a page whose checksum fails, and a hint bit, unlike a row change, has no WAL record to repair it from; after a crash, recovery writes this image back. Only the first hint-bit change after each checkpoint costs an image; later ones on the same page until the next checkpoint log nothing. With data checksums and `wal_log_hints` both off, hint bits are never WAL-logged. Hence the WAL a first read after a bulk load can write, and the corruption lesson's last steps: such an image holds whatever bytes the page had, damage included.",
        {
          predict: "Did the SELECT write WAL? Which record will end at block 0's pd_lsn?",
          expect: [expect('the query wrote nothing to vis', (d) => pagesOf(d, 'vis').length === 0)],
        },
      ),
      step(
        'vacuum vis',
        "VACUUM found every tuple visible to every transaction: it set PD_ALL_VISIBLE in the page header, and the visibility map (the new `_vm` fork) got the page's all-visible bit. Index-only scans trust that bit. A VACUUM that is not aggressive may skip all-visible pages (only runs of at least 32 of them, SKIP_PAGES_THRESHOLD, and PostgreSQL 18 still reads some eagerly to freeze them); an aggressive one, which must advance relfrozenxid, skips only all-frozen pages. This VACUUM froze nothing: the xmins are far younger than `vacuum_freeze_min_age`. A plain VACUUM freezes a whole page early only when pruning the page (where VACUUM decides) writes a full-page image of it anyway (see the lesson on the two passes of VACUUM). Here no image was due: there was nothing to prune and no hint bit left to set (the SELECT set them).",
        {
          predict: 'Every tuple is visible to everyone. What will VACUUM write, and where?',
          show: { relation: 'vis', block: 0, header: true },
          expect: [
            expect('the page became all-visible (PD_ALL_VISIBLE)', (d) => events(d, 'vis', 'all_visible').some((c) => c.set)),
            expect('the visibility map marks heap block 0 all-visible, not all-frozen', (d) =>
              events(d, 'vis', 'vm_bits', 'vm').some((c) => c.set && c.all_visible && !c.all_frozen && c.heap_blocks.includes(0)),
            ),
            expect('no tuple is frozen yet', (d) => lpsOf(d, 'vis', 'frozen').length === 0),
          ],
        },
      ),
      step(
        'vacuum freeze vis',
        'VACUUM FREEZE marks every tuple HEAP_XMIN_FROZEN (HEAP_XMIN_COMMITTED and HEAP_XMIN_INVALID together): visible to every transaction, whatever `t_xmin` says, so the xid can be reused after wraparound. The visibility map gets the all-frozen bit: aggressive VACUUMs (anti-wraparound ones are aggressive) skip the page too.',
        {
          predict: 'What will VACUUM FREEZE change in the tuples, and in the visibility map?',
          show: { relation: 'vis', block: 0, item: 1 },
          expect: [
            expect('lp 1-100 were frozen (HEAP_XMIN_FROZEN)', (d) => lpsOf(d, 'vis', 'frozen').length === 100),
            expect('the visibility map marks heap block 0 all-frozen', (d) =>
              events(d, 'vis', 'vm_bits', 'vm').some((c) => c.set && c.all_frozen && c.heap_blocks.includes(0)),
            ),
          ],
        },
      ),
      step(
        "update vis set v = 'changed' where id = 1",
        'One UPDATE and the page is no longer all-visible: PD_ALL_VISIBLE is cleared, and so are both of its bits in the visibility map.',
        {
          predict: 'What will one UPDATE do to PD_ALL_VISIBLE and to the visibility map?',
          show: { relation: 'vis', block: 0, header: true },
          expect: [
            expect('PD_ALL_VISIBLE was cleared', (d) => events(d, 'vis', 'all_visible').some((c) => !c.set)),
            expect('the visibility map no longer marks heap block 0', (d) =>
              events(d, 'vis', 'vm_bits', 'vm').some((c) => !c.set && c.all_visible && c.all_frozen && c.heap_blocks.includes(0)),
            ),
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
        'Block 0 of victim is on screen. Now damage it, as a disk or a memory error would: press "Flip a byte for me" (beside step 2), which flips one bit of a tuple\'s last byte in the server\'s file and says which. Or do it by hand: press "Edit (checksum lab)" below the page, click a byte of a tuple in the hex view and type another value, then press "Write the lab\'s page into PostgreSQL\'s file". Either way the checksum stays as it was, and the server\'s buffer of the page is evicted, so its next read is the file\'s.',
        {
          predict: 'Once you change one byte of block 0 in the file, what will the server do when it next reads the page?',
          then: 'lab-write',
          show: { relation: 'victim', block: 0, item: 1 },
        },
      ),
      step(
        'select * from victim',
        'The server reads block 0, computes its checksum, finds another one stored, and refuses the page: the error above is PostgreSQL\'s own (bufmgr.c, buffer_readv_report). Its detail, "page verification failed, calculated checksum … but expected …" (bufpage.c: PageIsVerified), PostgreSQL 18 writes to the server log only (PIV_LOG_LOG), as the read may complete in another process.',
        {
          predict: 'What will this SELECT say?',
          error: /invalid page in block 0 of relation/,
          otherwise: [
            {
              when: (o) => !o.error,
              say:
                'No error: the server read block 0 and its checksum matched, so nothing was refused. Either no byte of the page in the file changed (the lab\'s page was not written into it, or was written as it was), or the lab\'s "Fix checksum" sealed the change, and then the server cannot tell the page from one it wrote. What did change is in the diff: this was the first read of the tuples since their INSERT committed, so it set hint bits (HEAP_XMIN_COMMITTED) on them, and the page was written with a checksum over them. The rest of the lesson needs a page that fails its checksum before that first read. ' +
                AGAIN,
            },
          ],
        },
      ),
      step(
        'set ignore_checksum_failure = on;\nselect * from victim',
        'With `ignore_checksum_failure` the server only warns ("ignoring checksum failure in block 0 …") and reads on: the changed byte is in the result. And look at the diff: this was the first read of the tuples since their INSERT committed, so the reader set hint bits (HEAP_XMIN_COMMITTED) on them. That change marked the buffer dirty, and the checkpoint after the statement wrote it with a checksum computed afresh over the damaged bytes. (This playground checkpoints after every statement so that it can read the files; a real server writes a dirty page later, at a checkpoint or when the background writer or a backend evicts it, but write it it will.) With checksums on, that hint-bit change was also WAL-logged as a full-page image (an XLOG/FPI_FOR_HINT record, the first change to the page since the checkpoint): an image of the damaged bytes. The file\'s page now passes its checksum: the damage is still there, but no checksum check will ever find it again. This is the moment it became invisible. Never set `ignore_checksum_failure` on a server you care about without a copy of the data directory.',
        {
          predict:
            'With ignore_checksum_failure on, will the server read the damaged page? The 20 tuples were never read since their INSERT committed: what will this first read write on the page, and what happens to its checksum?',
          otherwise: [
            {
              when: (o) => !warned(o) && !resealed(o),
              say:
                'No warning: block 0 passed its checksum, so there was nothing to ignore. Nothing was resealed either (the checks say so), and no hint bit was set: an earlier read had set them all. Resealing takes a page that fails its checksum and a read that writes to it, here the first one to set its hint bits. ' +
                AGAIN,
            },
            {
              when: (o) => warned(o) && !resealed(o),
              say: 'With `ignore_checksum_failure` the server only warned ("ignoring checksum failure in block 0 …") and read on: the changed byte is in the result. But the read wrote nothing to the page: no hint bit was left to set, as an earlier read of the undamaged page had set them all, so the buffer stayed clean and no checkpoint rewrote it. The file keeps the damaged page under its old checksum (the diff shows your edit, and the checksum failing): the next read of it from the file without `ignore_checksum_failure` refuses it again. The next SELECT need not be such a read: the page is in shared buffers now, where no checksum is checked.',
            },
          ],
          show: { relation: 'victim', block: 0, header: true },
          expect: [
            expect('victim block 0 failed its checksum before this statement and passes it after: resealed over the damage', (d) =>
              pagesOf(d, 'victim').some(
                (p) => p.block === 0 && p.checksum.a === 'mismatch' && p.checksum.b === 'ok' && p.story.changes.some((c) => c.event === 'resealed'),
              ),
            ),
            expect('the read set hint bits: HEAP_XMIN_COMMITTED on the 20 tuples', (d) =>
              events(d, 'victim', 'hint_bits').some((c) => c.flags.includes('HEAP_XMIN_COMMITTED') && c.lps.length === 20),
            ),
          ],
        },
      ),
      step(
        'reset ignore_checksum_failure;\nselect * from victim',
        "No error, no warning, and the changed byte is read as if it had always been there. This SELECT found block 0 in shared buffers, where no checksum is checked (the server verifies a page when it reads it from the file), but the file's page passes its checksum now too: a read from the file, after a restart say, would pass as well. Only a copy of the page older than the flip can show it now: a backup taken before it, or a full-page image in WAL written before it. The newest image of block 0 in the WAL is no such copy: it is step 3's FPI_FOR_HINT, which holds the damaged bytes, and a standby replaying this WAL has received them too.",
        {
          predict: 'ignore_checksum_failure is off again. Will the server refuse block 0 as it did two steps ago?',
          otherwise: [
            {
              when: (o) => refused(o),
              say: 'The server refuses block 0: it read the page from the file, where nothing rewrote the damaged page, so it still fails its checksum, and every read of it from the file without `ignore_checksum_failure` fails. The damage stays visible to checksums until a write reseals the page, or a good copy replaces it.',
            },
            {
              when: (o) => !o.error && !neverDamaged(o) && ![o, ...o.earlier].some(resealed),
              say: "No error this time, though the file's page still fails its checksum: step 3 read the damaged page into shared buffers, and a page in a buffer is not verified again (the server checks a checksum when it reads the page from the file). The damage shows at the next read from the file, once the buffer is evicted or the server restarts, unless a write to the page (a hint bit, an UPDATE) reseals it first.",
            },
            {
              when: (o) => !o.error && neverDamaged(o),
              say:
                'No error, as in every step of the lesson: the page in the file never failed its checksum, so there was no damage for a checksum to find, and none to hide. ' +
                AGAIN,
            },
          ],
          expect: [expect('victim block 0 is not written again: nothing changed on it', (d) => pagesOf(d, 'victim').length === 0)],
        },
      ),
    ],
  },
];
