// The playground's lessons: short scripts a PostgreSQL teacher would type, one statement per
// step, each showing one thing happen to the pages. The Node test runs them all on PGlite and
// holds every page they make against pageinspect; the browser test clicks through them.

export interface LessonStep {
  sql: string;
  /** What to look at after the statement (text in `backticks` renders as code). */
  say: string;
  /** What the learner does by hand before the next step: edit the page with the lab and
   * write it into the server's file. */
  then?: 'lab-write';
}

export interface Lesson {
  id: string;
  title: string;
  steps: LessonStep[];
}

export const LESSONS: Lesson[] = [
  {
    id: 'insert',
    title: 'INSERT: a tuple and its line pointer',
    steps: [
      { sql: 'create table fruit (id int, name text)', say: 'A new table is an empty file: no pages until the first row.' },
      {
        sql: "insert into fruit values (1, 'apple'), (2, 'banana')",
        say: 'Block 0 appears: two line pointers at the start (`lp` 1 and 2), the tuples at the end of the page, growing down. `pd_lower` and `pd_upper` bound the free space between them. Each tuple\'s `t_xmin` is the inserting transaction.',
      },
    ],
  },
  {
    id: 'hot',
    title: 'UPDATE with and without HOT',
    steps: [
      {
        sql: 'create table stock (id int primary key, qty int) with (fillfactor = 50);\ninsert into stock select g, 0 from generate_series(1, 10) g',
        say: 'fillfactor 50 leaves half of each heap page free for updates. The primary key is a btree index `stock_pkey`.',
      },
      {
        sql: 'update stock set qty = qty + 1 where id = 1',
        say: 'qty is in no index and the page has room: a HOT update. The old version gets `t_xmax` and HEAP_HOT_UPDATED, its `t_ctid` points at the new one, which is HEAP_ONLY_TUPLE. The index is not touched.',
      },
      {
        sql: 'update stock set id = 100 where id = 2',
        say: 'id is indexed: no HOT. The new version is a plain tuple, and `stock_pkey` gets a new entry pointing at it.',
      },
    ],
  },
  {
    id: 'vacuum',
    title: 'DELETE and VACUUM',
    steps: [
      { sql: "create table gone (id int, pad text);\ninsert into gone select g, repeat('x', 50) from generate_series(1, 60) g", say: 'Sixty rows on one page.' },
      { sql: 'delete from gone where id % 2 = 0', say: 'DELETE only sets `t_xmax` on the deleted tuples: the bytes stay where they were.' },
      {
        sql: 'vacuum gone',
        say: 'VACUUM frees the dead tuples: their line pointers become LP_UNUSED (`lp_flags` 0) and those at the end of the array are cut off, the page is compacted, and the free space map (_fsm) and visibility map (_vm) appear.',
      },
    ],
  },
  {
    id: 'toast',
    title: 'TOAST: compressed inline and out of line',
    steps: [
      { sql: 'create table docs (id int, body text)', say: 'A text column gives the table a TOAST table and its index.' },
      {
        sql: "insert into docs values (1, repeat('pgpage ', 1000))",
        say: '7000 bytes that repeat compress to a few hundred: the value stays in the heap tuple, compressed inline.',
      },
      {
        sql: "insert into docs values (2, (select string_agg(md5(g::text), '') from generate_series(1, 400) g))",
        say: '12800 bytes that barely compress: the heap tuple keeps an 18-byte TOAST pointer and the value goes to the TOAST table in chunks of about 2 KB.',
      },
    ],
  },
  {
    id: 'split',
    title: 'CREATE INDEX and a page split',
    steps: [
      { sql: 'create table nums (n int);\ncreate index nums_n on nums (n)', say: 'An empty btree is a metapage (block 0) alone.' },
      { sql: 'insert into nums select generate_series(1, 300)', say: 'A few hundred keys fit one leaf: block 1 is the root and the only leaf.' },
      {
        sql: 'insert into nums select generate_series(301, 1000)',
        say: 'The leaf fills up and splits: now there are several leaves linked by `btpo_prev`/`btpo_next`, and a new root above them (`btpo_level` 1).',
      },
    ],
  },
  {
    id: 'vacuum-full',
    title: 'VACUUM FULL: a new file',
    steps: [
      { sql: "create table big (id int, pad text);\ninsert into big select g, repeat('y', 100) from generate_series(1, 500) g;\ndelete from big where id > 50", say: 'Most rows deleted: the pages hold dead tuples.' },
      { sql: 'vacuum full big', say: 'VACUUM FULL writes the live rows to a new file: `pg_relation_filenode` changes, the old file is gone, and the new one is compact.' },
    ],
  },
  {
    id: 'corruption',
    title: 'Corruption: a flipped bit and the server\'s checksum check',
    steps: [
      {
        sql: "create table victim (id int, v text);\ninsert into victim select g, 'row ' || g from generate_series(1, 20) g",
        say: 'Block 0 of victim is on screen. Press "Edit (checksum lab)" below it, click a byte of a tuple in the hex view and type another value, then press "Write the lab\'s page into PostgreSQL\'s file". The server\'s buffer of the page is evicted, so its next read is the file\'s.',
        then: 'lab-write',
      },
      {
        sql: 'select * from victim',
        say: 'The server reads block 0, computes its checksum, finds another one stored, and refuses the page: the error above is PostgreSQL\'s own (bufmgr.c, after PageIsVerified).',
      },
      {
        sql: 'set ignore_checksum_failure = on;\nselect * from victim',
        say: 'With `ignore_checksum_failure` the server only warns ("ignoring checksum failure in block 0 …") and reads on: the changed byte is in the result. Never set this on a server you care about without a copy of the data directory.',
      },
    ],
  },
];
