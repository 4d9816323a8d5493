//! `pgpage rows --types` against the server's own COPY, for PostgreSQL 13 to 19: a table of
//! every type `rows --types` takes, with NULLs and odd values, TOASTed values (inline compressed,
//! external pglz, external uncompressed, lz4 where the server has it), deleted, aborted
//! and updated rows; after a CHECKPOINT the table's files must print byte for byte what
//! `COPY (SELECT * FROM t ORDER BY ctid) TO STDOUT` printed. Then damaged copies: each
//! problem named on stderr, never a wrong value, exit status 1.

use std::os::unix::fs::FileExt;
use std::path::Path;

use crate::common::{ok, pgpage, run_pg, Cluster};

const TYPES: &str = "bool,int2,int4,int8,oid,float4,float8,numeric,text,varchar,bpchar,name,\
\"char\",bytea,date,time,timetz,timestamp,timestamptz,interval,uuid,json,jsonb,inet,cidr,\
macaddr,macaddr8,bit,varbit,int4[],text[],numeric[],float8[],int4range,numrange,tstzrange,\
daterange,int8range,tsrange,text,text";

const CREATE: &str = "create table t (b bool, i2 int2, i4 int4, i8 int8, o oid, f4 float4, \
f8 float8, n numeric, tx text, vc varchar(10), bc char(5), nm name, ch \"char\", by bytea, \
d date, tm time, ttz timetz, ts timestamp, tstz timestamptz, iv interval, u uuid, j json, \
jb jsonb, ip inet, ci cidr, m macaddr, m8 macaddr8, bt bit(5), vb varbit, ai int4[], \
at text[], an numeric[], af float8[], r4 int4range, rn numrange, rts tstzrange, \
rd daterange, r8 int8range, rt tsrange, ext text, lz text)";

const ROWS: &[&str] = &[
    "insert into t values (true, -32768, 2147483647, -9223372036854775808, 4294967295, 'NaN', \
     '-0', 'NaN', 'héllo \"x\", y ✓', 'v', 'ab', 'nm', 'c', '\\x00ff', '4713-01-01 BC', \
     '24:00:00', '23:59:59.999999-12:34', 'infinity', '-infinity', '-1 days +02:03:00', \
     'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{\"a\": [1, 2.5]}', \
     '{\"b\": {\"c\": null, \"a\": [true, false, 1e-5, \"x\\ny\\u0001\"]}, \"\": 0, \"long key\": {}}', \
     '2001:db8::1/64', '10.0.0.0/8', '08:00:2b:01:02:03', '08:00:2b:01:02:03:04:05', '10101', \
     '', '[0:2]={1,NULL,3}', '{{\"a b\",\"NULL\"},{\"\",null}}', '{1.5,NaN,-0.001}', \
     '{-0,Infinity,1e-300}', 'empty', '(,5.5]', '[\"2024-01-02 03:04:05+00\",infinity)', \
     '[2024-01-01,2024-02-01)', '(,)', '[\"2000-01-01 00:00:00\",\"2000-01-02 00:00:00\"]', \
     null, null)",
    "insert into t values (false, 1, 2, 3, 4, 'Infinity', 1.5e300, \
     '-12345678901234567890.000123', E'tab\\there\\nnewline\\\\back\\r', '', '', '', '', '', \
     '2000-01-01', '00:00:00', '00:00:00+00', '2024-01-02 03:04:05.123456', \
     '0001-01-01 00:00:00+00 BC', '1 year 2 mons 3 days 04:05:06.5', null, '\"\"', '[]', \
     '::ffff:1.2.3.4', '::/0', null, null, '00000', '1', '{}', '{}', '{}', '{}', '[1,10)', \
     '[1.5,2.5]', null, null, null, null, null, null)",
    "insert into t (i4, n, f4, f8, ai, jb) values \
     (10, 0.000001, 1e-40, 1e-310, '[-5:-4][2:3]={{1,2},{3,4}}', '\"scalar\"'), \
     (11, 1e300, 3.4e38, 123456789012345678, '{{{1}},{{2}}}', '12.50'), \
     (12, -0.5, -1.5, 0.1, array[null]::int4[], 'null'), \
     (13, 0.00000000000000000000000000000000000000000000000000000000000000000000001, 100000, \
      1e15, null, '{\"a\": {\"b\": [[], {}]}}')",
    // Compressed inline, external pglz, external uncompressed.
    "insert into t (i4, tx, jb, at) select 20, repeat('x', 5000), \
     jsonb_build_object('k', repeat('y', 3000)), array[repeat('z', 3000)]",
    "insert into t (i4, tx) select 21, string_agg(md5(g::text), '') from generate_series(1, 2000) g",
    "alter table t alter column ext set storage external",
    "insert into t (i4, ext) select 22, repeat('e', 10000)",
    "delete from t where i4 = 11",
    "update t set i8 = 42 where i4 = 12",
    "begin",
    "insert into t (i4) values (99)",
    "rollback",
];

fn csv_equals_copy(version: u32) {
    let c = Cluster::start(version);
    c.psql(&[CREATE]);
    c.psql(ROWS);
    let lz4 = c.psql(&[
        "select count(*) from pg_settings where name = 'default_toast_compression' \
         and 'lz4' = any(enumvals)",
    ]);
    if lz4.trim() == "1" {
        c.psql(&[
            "alter table t alter column lz set compression lz4",
            "insert into t (i4, lz) select 30, repeat('lz4 ', 3000)",
            "insert into t (i4, lz) select 31, string_agg(md5(g::text), '') from generate_series(1, 1500) g",
        ]);
    }
    if version >= 17 {
        c.psql(&["insert into t (i4, iv) values (40, 'infinity'), (41, '-infinity')"]);
    }
    // The server's COPY sets the hint bits that rows reads; the checkpoint writes them.
    let expected = c.copy("t");
    c.psql(&["checkpoint"]);
    let heap = c.file("select pg_relation_filepath('t')");
    let toast =
        c.file("select pg_relation_filepath(reltoastrelid) from pg_class where relname = 't'");
    let out = pgpage(&[
        "rows",
        "--types",
        TYPES,
        "--toast",
        toast.to_str().unwrap(),
        heap.to_str().unwrap(),
    ]);
    let got = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "PostgreSQL {version}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (n, (a, b)) in expected.lines().zip(got.lines()).enumerate() {
        assert_eq!(a, b, "PostgreSQL {version}, line {}", n + 1);
    }
    assert_eq!(got, expected, "PostgreSQL {version}");
    assert!(expected.lines().count() >= 9, "{expected}");
    eprintln!(
        "PostgreSQL {version}: {} rows equal to COPY (lz4: {})",
        expected.lines().count(),
        lz4.trim() == "1"
    );
}

each_version!(csv_equals_copy);

/// Text format and JSON lines on a small table.
#[test]
fn text_format_equals_copy_and_json_has_ctid() {
    let c = Cluster::start(15);
    c.psql(&[
        "create table s (a int4, b text)",
        "insert into s values (1, E'a\\tb\\\\c'), (2, null), (3, '')",
    ]);
    let expected = c.psql(&["copy (select * from s order by ctid) to stdout"]);
    c.psql(&["checkpoint"]);
    let heap = c.file("select pg_relation_filepath('s')");
    let out = pgpage(&[
        "rows",
        "--format",
        "text",
        "--types",
        "int4,text",
        heap.to_str().unwrap(),
    ]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
    let out = pgpage(&[
        "rows",
        "--format",
        "json",
        "--types",
        "int4,text",
        heap.to_str().unwrap(),
    ]);
    let first = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap()
        .to_owned();
    let v: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!(v["ctid"], "(0,1)");
    assert_eq!(v["col2"], "a\tb\\c");
}

fn patch(path: &Path, offset: u64, bytes: &[u8]) {
    let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.write_all_at(bytes, offset).unwrap();
}

fn read(path: &Path, offset: u64, len: usize) -> Vec<u8> {
    let f = std::fs::File::open(path).unwrap();
    let mut b = vec![0u8; len];
    f.read_exact_at(&mut b, offset).unwrap();
    b
}

/// lp_off and lp_len of a line pointer on block 0.
fn item(path: &Path, lp: u64) -> (u64, u64) {
    let w = u32::from_le_bytes(read(path, 24 + (lp - 1) * 4, 4).try_into().unwrap());
    (u64::from(w & 0x7FFF), u64::from(w >> 17))
}

/// Damage is named with file, block and offset; other rows still come out; no value is
/// printed wrong. Checksums are off so the damaged bytes are read rather than the page
/// refused.
#[test]
fn damaged_tuples_and_toast_are_named_never_printed_wrong() {
    let mut c = Cluster::start(15);
    c.psql(&[
        "create table d (a int4, b text)",
        "alter table d alter column b set storage extended",
        "insert into d values (1, 'one'), (2, repeat('x', 5000)), (3, (select string_agg(md5(g::text), '') \
         from generate_series(1, 1000) g)), (4, 'four')",
        "select count(*) from d",
        "checkpoint",
    ]);
    let heap = c.file("select pg_relation_filepath('d')");
    let toast =
        c.file("select pg_relation_filepath(reltoastrelid) from pg_class where relname = 'd'");
    let (h, t) = (heap.to_str().unwrap(), toast.to_str().unwrap());
    c.stop();
    // Turn checksums off in the copies' eyes: zero pd_checksum of the pages we damage.
    patch(&heap, 8, &[0, 0]);

    // A type list that does not fit: every tuple named, nothing printed.
    let out = pgpage(&["rows", "--types", "int8,text", h]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("file \"{h}\", block 0, offset 1")),
        "{err}"
    );

    // Without the TOAST files: the external value is named, the others print.
    let out = pgpage(&["rows", "--types", "int4,text", h]);
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text.starts_with("1,one\n2,xxxx") && text.ends_with("4,four\n"),
        "{text}"
    );
    assert!(!text.contains("\n3,"), "{text}");
    assert!(err.contains("offset 3 (attribute 2)"), "{err}");

    // A missing chunk: zero the TOAST file's first page.
    let toast_copy = toast.with_extension("copy");
    std::fs::copy(&toast, &toast_copy).unwrap();
    patch(&toast_copy, 0, &vec![0u8; 8192]);
    let out = pgpage(&[
        "rows",
        "--types",
        "int4,text",
        "--toast",
        toast_copy.to_str().unwrap(),
        h,
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("missing chunk number 0 for toast value"),
        "{err}"
    );

    // Compressed data that does not decompress to its declared size: raise row 2's rawsize.
    let (off, _) = item(&heap, 2);
    let data = off + 24 + 4; // t_hoff 24, then int4 a, then the varlena at an aligned offset
    let tcinfo = u32::from_le_bytes(read(&heap, data + 4, 4).try_into().unwrap());
    patch(&heap, data + 4, &(tcinfo + 1).to_le_bytes());
    // A varlena length past the page: row 1's text claims 1 GB.
    let (off1, _) = item(&heap, 1);
    patch(&heap, off1 + 24 + 4, &(0x3FFF_FFF0u32 << 2).to_le_bytes());
    let out = pgpage(&["rows", "--types", "int4,text", "--toast", t, h]);
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        err.contains("offset 2 (attribute 2): compressed pglz data is corrupt"),
        "{err}"
    );
    assert!(
        err.contains("offset 1 (attribute 2): attribute ends beyond total tuple length"),
        "{err}"
    );
    assert!(
        text.starts_with("3,") && text.ends_with("4,four\n"),
        "{text}"
    );
}

/// A table of catalog-defined types (enum with a value added between, domain, arrays of
/// both), a dropped column, fast defaults, TOAST, deleted, updated and aborted rows; `{t}`
/// is the table's name, `{odd}` the mixed-case table's in the quoted schema.
const CATALOG_TABLE: &[&str] = &[
    "create table {t} (id int4, m mood, d posint, arr text[], moods mood[], gone text, \
     note text, n numeric, ts timestamptz, ds posint[], fr floatrange, ir int4range, \
     trs textrange[]) with (autovacuum_enabled = off)",
    "insert into {t} select g, (array['sad','ok','happy','meh'])[g % 4 + 1]::mood, g, \
     array['a' || g, null, 'x y'], array['happy', 'meh']::mood[], 'drop me', 'n' || g, \
     g * 1.5, '2024-01-01'::timestamptz + g * interval '1 hour', array[g, g + 1]::posint[], \
     floatrange(g / 3.0, g, '(]'), int4range(g, g * 2), \
     array[textrange('a', 'b' || g), 'empty', textrange(null, 'z \"q')] \
     from generate_series(1, 30) g",
    "insert into {t} (id, note) values (100, repeat('toast', 3000))",
    "insert into {t} (id, note) select 101, string_agg(md5(g::text), '') from generate_series(1, 300) g",
    "alter table {t} drop column gone",
    "alter table {t} add column fd int4 default 7",
    "alter table {t} add column fd2 text default 'later, \"quoted\"'",
    "alter table {t} add column fd3 mood default 'meh'",
    "insert into {t} (id, fd2) values (200, null)",
    // A MultiXact of a locker and an updater (a subtransaction), and one of lockers only.
    "begin",
    "select id from {t} where id = 8 for share",
    "savepoint a",
    "update {t} set note = 'multi' where id = 8",
    "commit",
    "begin",
    "select id from {t} where id = 9 for share",
    "savepoint b",
    "select id from {t} where id = 9 for update",
    "commit",
    // Composite columns: a type of its own (with a dropped attribute), a table's row type,
    // and an array of the first.
    "alter table {t} add column cp pair, add column cps pair[], add column it item",
    r#"insert into {t} (id, cp, cps, it) values
     (300, '(1,"x y",2.5)', array['(1,a,2)'::pair, null, '(,,)'::pair, '(2,"",)'::pair],
      row(7, 'q (r)')),
     (301, '(-3,"a\"b\\c,(d)",NaN)', '{}', null)"#,
    // The aborted transaction comes last: no later scan sets its tuples' hint bits.
    "delete from {t} where id in (3, 101)",
    "update {t} set note = 'updated' where id = 5",
    "begin",
    "insert into {t} (id) values (999)",
    "delete from {t} where id = 6",
    "update {t} set note = 'nope' where id = 7",
    "rollback",
    "create table {odd} (\"Col A\" int, \"b,\" text) with (autovacuum_enabled = off)",
    "insert into {odd} values (1, 'a'), (2, null), (3, 'x\"y')",
    "delete from {odd} where \"Col A\" = 2",
    // A table and its TOAST table in a tablespace of their own.
    "create table {t}_spaced (a int, b text) tablespace spc",
    "insert into {t}_spaced select g, (select string_agg(md5((g * 1000 + h)::text), '') \
     from generate_series(1, 100 * g) h) from generate_series(1, 5) g",
];

/// Multiranges (PostgreSQL 14+) of a built-in range and of textrange, one of more than
/// MULTIRANGE_ITEM_OFFSET_STRIDE ranges; run after CATALOG_TABLE for `{t}`.
const MULTIRANGES: &[&str] = &[
    "alter table {t} add column mr int4multirange, add column mt textmultirange",
    r#"insert into {t} (id, mr, mt) values
     (400, '{[1,3),[5,7)}', '{[a,"b c"),["x\"y",z]}'),
     (401, '{}', '{}'),
     (402, '{[1,2),[3,4),[5,6),[7,8),[9,10),[11,12)}', '{(,"")}')"#,
];

/// In database shop after both tables: partitions (one with an odd name), a matview, and a
/// table of several pages to damage.
const MORE: &[&str] = &[
    "create table pt (k int, v text) partition by range (k)",
    "create table pt_1 partition of pt for values from (0) to (10)",
    "create table \"Odd Schema\".\"pt 2\" partition of pt for values from (10) to (100)",
    "insert into pt select g, 'v' || g from generate_series(0, 40) g",
    "delete from pt where k in (3, 20)",
    "create materialized view mv as select id, note, cp, cps from twin where id < 10 or id >= 300",
    "create table big (id int, s text) with (autovacuum_enabled = off)",
    "insert into big select g, md5(g::text) from generate_series(1, 1000) g",
];

/// Flips `len` bytes in the middle of block `block` of `path`.
fn damage_block(path: &Path, block: u64, len: usize) {
    let at = block * 8192 + 4000;
    let bytes: Vec<u8> = read(path, at, len).iter().map(|b| b ^ 0xA5).collect();
    patch(path, at, &bytes);
}

fn catalog_rows_equal_copy(version: u32) {
    let mut c = Cluster::start(version);
    let spc = c.root.join("spc");
    ok(run_pg("/bin", "mkdir", &[spc.to_str().unwrap()]), "mkdir");
    c.psql(&[
        "create database shop",
        &format!("create tablespace spc location '{}'", spc.display()),
    ]);
    c.psql_in(
        "shop",
        &[
            "create type mood as enum ('sad', 'ok', 'happy')",
            "alter type mood add value 'meh' before 'ok'",
            "create domain posint as int4 check (value > 0)",
            "create type floatrange as range (subtype = float8)",
            "create type textrange as range (subtype = text, collation = \"C\")",
            "create schema \"Odd Schema\"",
            "create type pair as (a int4, gone text, \"b c\" text, n numeric)",
            "alter type pair drop attribute gone",
            "create table item (x int, y text)",
        ],
    );
    // The twin gets the same statements and gives the expected COPY; `t` itself is never
    // read before the shutdown, so its tuples keep no hint bits the server would set while
    // reading, and which of them a new transaction sees is for pg_xact to say.
    for (t, odd) in [
        ("twin", "\"Odd Schema\".\"Mixed Twin\""),
        ("t", "\"Odd Schema\".\"Mixed Case\""),
    ] {
        let sql: Vec<String> = CATALOG_TABLE
            .iter()
            .map(|s| s.replace("{t}", t).replace("{odd}", odd))
            .collect();
        let sql: Vec<&str> = sql.iter().map(String::as_str).collect();
        c.psql_in("shop", &sql);
    }
    // Values written before an attribute was added lack it: NULL.
    c.psql_in(
        "shop",
        &[
            "alter type pair add attribute extra int cascade",
            "insert into twin (id, cp) values (302, '(5,x,1,9)')",
            "insert into t (id, cp) values (302, '(5,x,1,9)')",
        ],
    );
    if version >= 14 {
        for t in ["twin", "t"] {
            let sql: Vec<String> = MULTIRANGES.iter().map(|s| s.replace("{t}", t)).collect();
            let sql: Vec<&str> = sql.iter().map(String::as_str).collect();
            c.psql_in("shop", &sql);
        }
    }
    c.psql_in("shop", MORE);
    c.psql_in("shop", &["create view v as select id from twin"]);
    let expected = c.copy_in("shop", "twin");
    let expected_odd = c.copy_in("shop", "\"Odd Schema\".\"Mixed Twin\"");
    let expected_spaced = c.copy_in("shop", "twin_spaced");
    let expected_pt_1 = c.copy_in("shop", "pt_1");
    let expected_pt_2 = c.copy_in("shop", "\"Odd Schema\".\"pt 2\"");
    let expected_mv = c.copy_in("shop", "mv");
    // The rows of big not on its block 1, which is damaged below.
    let expected_big = c.copy_in("shop", "big where (ctid::text::point)[0] <> 1");
    let big = c.psql_in("shop", &["select pg_relation_filepath('big')"]);
    let big = big.trim().to_owned();
    let pg_attribute = c.psql_in("shop", &["select pg_relation_filepath('pg_attribute')"]);
    let pg_class = c.psql_in("shop", &["select pg_relation_filepath('pg_class')"]);
    let block_of = |sql: &str| -> u64 { c.psql_in("shop", &[sql]).trim().parse().unwrap() };
    let attribute_block = block_of(
        "select max((ctid::text::point)[0]) from pg_attribute where attrelid = 't'::regclass",
    );
    let class_block =
        block_of("select (ctid::text::point)[0] from pg_class where oid = 't'::regclass");
    let expected_text = c.psql_in(
        "shop",
        &[
            "set timezone = 'UTC'",
            "set extra_float_digits = 1",
            "copy (select * from twin order by ctid) to stdout",
        ],
    );
    c.psql(&["checkpoint"]);
    c.stop();
    let data = c.data.to_str().unwrap();
    for (relation, database, want) in [
        ("t", None, &expected),
        ("public.T", Some("shop"), &expected),
        ("\"Odd Schema\".\"Mixed Case\"", None, &expected_odd),
        ("t_spaced", None, &expected_spaced),
        ("pt_1", None, &expected_pt_1),
        ("\"Odd Schema\".\"pt 2\"", None, &expected_pt_2),
        ("mv", None, &expected_mv),
    ] {
        let mut args = vec!["rows"];
        if let Some(d) = database {
            args.extend(["--database", d]);
        }
        args.extend([data, relation]);
        let out = pgpage(&args);
        let got = String::from_utf8_lossy(&out.stdout);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(0),
            "PostgreSQL {version} {relation}: {err}"
        );
        assert!(err.is_empty(), "PostgreSQL {version} {relation}: {err}");
        for (n, (a, b)) in want.lines().zip(got.lines()).enumerate() {
            assert_eq!(a, b, "PostgreSQL {version} {relation}, line {}", n + 1);
        }
        assert_eq!(&got, want, "PostgreSQL {version} {relation}");
    }
    let out = pgpage(&["rows", "--format", "text", data, "t"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        expected_text,
        "PostgreSQL {version} --format text"
    );
    // JSON lines: keyed by the catalog's column names, the dropped one left out.
    let out = pgpage(&["rows", "--format", "json", data, "t"]);
    assert_eq!(out.status.code(), Some(0));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let rows = if version >= 14 { 37 } else { 34 };
    assert_eq!(lines.len(), rows);
    let first = lines[0].as_object().unwrap();
    for key in [
        "ctid", "xmin", "xmax", "id", "m", "d", "fd", "fd2", "fd3", "trs",
    ] {
        assert!(first.contains_key(key), "{key} in {first:?}");
    }
    assert!(!first.contains_key("gone"), "{first:?}");
    assert_eq!(first["fd3"], "meh", "{first:?}");
    assert_eq!(expected.lines().count(), rows, "{expected}");
    assert_eq!(expected_pt_1.lines().count(), 9, "{expected_pt_1}");
    assert_eq!(expected_pt_2.lines().count(), 30, "{expected_pt_2}");
    assert!(expected_mv.lines().count() >= 10, "{expected_mv}");
    assert_eq!(expected_odd.lines().count(), 2, "{expected_odd}");
    assert_eq!(expected_spaced.lines().count(), 5);
    for (args, words) in [
        (
            vec!["rows", data, "nosuch"],
            "relation public.nosuch does not exist",
        ),
        (
            vec!["rows", "--database", "nope", data, "t"],
            "database \"nope\" does not exist",
        ),
        (vec!["rows", data, "v"], "is a view"),
        (vec!["rows", data, "pt"], "is a partitioned table"),
        (
            vec!["rows", "--database", "postgres", data, "t"],
            "does not exist in database \"postgres\"",
        ),
        (vec!["rows", data, "a.b.c"], "invalid relation name"),
    ] {
        let out = pgpage(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(words), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // Without pg_xact the deleted and aborted rows cannot be told from live ones: the
    // output above depended on it.
    let xact = c.data.join("pg_xact");
    std::fs::rename(&xact, c.data.join("pg_xact.away")).unwrap();
    let out = pgpage(&["rows", data, "t"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("pg_xact"), "{err}");
    assert_ne!(String::from_utf8_lossy(&out.stdout), expected);
    std::fs::rename(c.data.join("pg_xact.away"), &xact).unwrap();

    // A damaged heap page: its rows are named and left out, every other row comes out.
    damage_block(&c.data.join(&big), 1, 16);
    let out = pgpage(&["rows", data, "big"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "PostgreSQL {version}: {err}");
    assert!(
        err.contains(&big) && err.contains("block 1"),
        "PostgreSQL {version}: {err}"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        expected_big,
        "PostgreSQL {version}: big without block 1"
    );
    assert!(expected_big.lines().count() > 800, "{expected_big}");

    // A damaged pg_attribute page that held t's columns: named, and no row printed under
    // columns that may be the wrong ones.
    damage_block(&c.data.join(pg_attribute.trim()), attribute_block, 16);
    let out = pgpage(&["rows", data, "t"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "PostgreSQL {version}: {err}");
    assert!(out.stdout.is_empty(), "PostgreSQL {version}");
    // Named as every other problem is: the catalog, its file and the block in it.
    let names = |catalog: &str, path: &str, block: u64| {
        let file = c.data.join(path.trim());
        err.lines().any(|l| {
            l.contains(&format!(
                "{catalog} \"{}\", block {block}: ",
                file.display()
            ))
        })
    };
    assert!(
        names("pg_attribute", &pg_attribute, attribute_block),
        "PostgreSQL {version}: {err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    // A damaged pg_class page that held t's row: named, and t not found.
    damage_block(&c.data.join(pg_class.trim()), class_block, 16);
    let out = pgpage(&["rows", data, "t"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "PostgreSQL {version}: {err}");
    assert!(out.stdout.is_empty(), "PostgreSQL {version}");
    // Named as every other problem is: the catalog, its file and the block in it.
    let names = |catalog: &str, path: &str, block: u64| {
        let file = c.data.join(path.trim());
        err.lines().any(|l| {
            l.contains(&format!(
                "{catalog} \"{}\", block {block}: ",
                file.display()
            ))
        })
    };
    assert!(
        names("pg_class", &pg_class, class_block)
            && err.contains("relation public.t does not exist"),
        "PostgreSQL {version}: {err}"
    );
    eprintln!(
        "PostgreSQL {version}: rows DATADIR RELATION equal to COPY ({} + {} rows)",
        expected.lines().count(),
        expected_odd.lines().count()
    );
}

each_version!(catalog_rows_equal_copy);

/// COPY's CSV of `query` under the settings of docs/contracts.md, "rows", and
/// ignore_checksum_failure = on (the server reads a page whose checksum fails, as
/// `--include-damaged` does); `options` are COPY's (`format csv, header`).
fn copy_ignoring_checksums(c: &Cluster, query: &str, options: &str) -> String {
    c.psql_in(
        "forensic",
        &[
            "set ignore_checksum_failure = on",
            "set timezone = 'UTC'",
            "set datestyle = 'ISO, MDY'",
            "set intervalstyle = postgres",
            "set extra_float_digits = 1",
            "set bytea_output = hex",
            &format!("copy ({query}) to stdout ({options})"),
        ],
    )
}

/// A table with an all-zero page between pages with rows and a page with one bit flipped in a
/// text column: `rows` names both on stderr with a closing count; `--include-damaged` prints
/// the flipped page's rows as the server's COPY under ignore_checksum_failure does, byte for
/// byte, listing their ctids (flagging them in JSON); `--header` is COPY's HEADER.
fn damaged_pages_named_and_included(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&["create database forensic"]);
    c.psql_in(
        "forensic",
        &[
            "create table orders (id int4, note text) with (autovacuum_enabled = off)",
            "insert into orders select g, 'note-' || lpad(g::text, 6, '0') || '-Juliet' \
             from generate_series(1, 1200) g",
            // Hint bits set and written, so the pages are read as they are.
            "select count(*) from orders",
            "checkpoint",
        ],
    );
    let per_block = |b: u32| -> u64 {
        c.psql_in(
            "forensic",
            &[&format!(
                "select count(*) from orders where (ctid::text::point)[0] = {b}"
            )],
        )
        .trim()
        .parse()
        .unwrap()
    };
    let (zero_rows, flip_rows) = (per_block(2), per_block(3));
    assert!(
        zero_rows > 0 && flip_rows > 0 && per_block(4) > 0,
        "{version}"
    );
    let path = c.data.join(
        c.psql_in("forensic", &["select pg_relation_filepath('orders')"])
            .trim(),
    );
    c.stop();
    // Block 2 zeroed; in block 3, bit 5 of the J of the first tuple's "Juliet" (J -> j).
    patch(&path, 2 * 8192, &[0u8; 8192]);
    let page = read(&path, 3 * 8192, 8192);
    let w = u32::from_le_bytes(page[24..28].try_into().unwrap());
    let (off, len) = ((w & 0x7FFF) as usize, (w >> 17) as usize);
    let at = page[off..off + len]
        .windows(6)
        .position(|w| w == b"Juliet")
        .unwrap()
        + off;
    patch(&path, 3 * 8192 + at as u64, &[page[at] ^ 0x20]);
    let data = c.data.to_str().unwrap().to_owned();
    let run = |extra: &[&str]| {
        let mut args = vec!["rows"];
        args.extend(extra);
        args.extend([data.as_str(), "orders"]);
        let out = pgpage(&args);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (plain_code, plain, plain_err) = run(&[]);
    let (inc_code, included, inc_err) = run(&["--include-damaged"]);
    let (_, headed, _) = run(&["--include-damaged", "--header"]);
    let (_, text_headed, _) = run(&["--include-damaged", "--header", "--format", "text"]);
    let (_, json, _) = run(&["--include-damaged", "--format", "json"]);
    let (json_header_code, _, _) = run(&["--header", "--format", "json"]);

    c.restart();
    let order = "select * from orders order by ctid";
    let expected_included = copy_ignoring_checksums(&c, order, "format csv");
    let expected_plain = copy_ignoring_checksums(
        &c,
        "select * from orders where (ctid::text::point)[0] <> 3 order by ctid",
        "format csv",
    );
    let expected_headed = copy_ignoring_checksums(&c, order, "format csv, header");
    let flipped: Vec<String> = copy_ignoring_checksums(
        &c,
        "select ctid from orders where (ctid::text::point)[0] = 3 order by ctid",
        "format csv",
    )
    .lines()
    .map(|l| l.trim_matches('"').to_owned())
    .collect();
    // The server itself: the flipped value is what it returns under the setting.
    assert!(expected_included.contains("-juliet"), "{version}");
    assert_eq!(flipped.len() as u64, flip_rows, "{version}");

    // Without --include-damaged: the rows of the sound pages, both damaged pages named.
    assert_eq!(plain_code, Some(1), "{version}: {plain_err}");
    assert_eq!(plain, expected_plain, "PostgreSQL {version}");
    let file = path.to_str().unwrap();
    assert!(
        plain_err.contains(&format!(
            "file \"{file}\", block 2: all zeros between pages with rows: the server reads it as an empty page; whatever rows it held are lost"
        )),
        "{version}: {plain_err}"
    );
    assert!(
        plain_err.contains(&format!(
            "file \"{file}\", block 3: page verification failed, calculated checksum"
        )) && plain_err.contains(&format!(
            "; its {flip_rows} rows are left out (--include-damaged prints them"
        )),
        "{version}: {plain_err}"
    );
    let printed = expected_plain.lines().count();
    let closing = plain_err.lines().last().unwrap_or_default();
    assert_eq!(
        closing,
        format!(
            "pgpage: {printed} rows printed; 1 page left out (among them {flip_rows} rows of pages whose checksum fails: --include-damaged prints them); 1 all-zero page between pages with rows, their rows lost (named above)"
        ),
        "{version}"
    );

    // With it: byte for byte the server's COPY under ignore_checksum_failure, the ctids of
    // the rows from the damaged page listed.
    assert_eq!(inc_code, Some(1), "{version}: {inc_err}");
    for (n, (a, b)) in expected_included.lines().zip(included.lines()).enumerate() {
        assert_eq!(a, b, "PostgreSQL {version}, line {}", n + 1);
    }
    assert_eq!(included, expected_included, "PostgreSQL {version}");
    // The server's ctids of those rows, consecutive line pointers as one run.
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for ctid in &flipped {
        let lp: u32 = ctid
            .trim_matches(|ch| ch == '(' || ch == ')')
            .split(',')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        match runs.last_mut() {
            Some(r) if r.1 + 1 == lp => r.1 = lp,
            _ => runs.push((lp, lp)),
        }
    }
    let runs: Vec<String> = runs
        .iter()
        .map(|&(a, b)| {
            if a == b {
                format!("(3,{a})")
            } else {
                format!("(3,{a})-(3,{b})")
            }
        })
        .collect();
    assert!(
        inc_err.contains(&format!(
            "; its {flip_rows} rows are printed, read as SET ignore_checksum_failure = on lets the server read them: {}",
            runs.join(", ")
        )),
        "{version}: {inc_err}"
    );
    assert!(
        inc_err.contains("block 2: all zeros between pages with rows"),
        "{version}"
    );

    // --header: COPY's HEADER option, in csv and (15 on, where COPY allows it) text.
    assert_eq!(headed, expected_headed, "PostgreSQL {version} --header");
    assert_eq!(json_header_code, Some(2), "{version}: --header with json");
    if version >= 15 {
        let expected_text = copy_ignoring_checksums(&c, order, "format text, header");
        assert_eq!(
            text_headed, expected_text,
            "PostgreSQL {version} text --header"
        );
    }

    // JSON flags exactly the rows of the damaged page.
    let marked: Vec<String> = json
        .lines()
        .filter(|l| l.contains("\"damaged\":\"checksum\""))
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["ctid"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(marked, flipped, "{version}");
    assert_eq!(
        json.lines().count(),
        expected_included.lines().count(),
        "{version}"
    );
    eprintln!(
        "PostgreSQL {version}: the zeroed page (it held {zero_rows} rows) named, {flip_rows} rows of the flipped page equal to COPY under ignore_checksum_failure"
    );
}

each_version!(damaged_pages_named_and_included);

/// A block copied over another (a misplaced write): its checksum is valid for the block it
/// was written for and its tuples' t_ctid name that block. The server under
/// ignore_checksum_failure returns its rows twice; `rows --include-damaged` leaves the copy
/// out, in every format, and says on stderr which block it duplicates: what it prints is the
/// undamaged table's COPY without the overwritten block's rows.
fn a_copied_block_is_not_printed_twice(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&["create database forensic"]);
    c.psql_in(
        "forensic",
        &[
            "create table orders (id int4 primary key, note text) with (autovacuum_enabled = off)",
            "insert into orders select g, 'note-' || lpad(g::text, 6, '0') from generate_series(1, 1500) g",
            "select count(*) from orders",
            "checkpoint",
        ],
    );
    let all = c.copy_in("forensic", "orders");
    let without_3 = copy_ignoring_checksums(
        &c,
        "select * from orders where (ctid::text::point)[0] <> 3 order by ctid",
        "format csv",
    );
    let without_3_text = copy_ignoring_checksums(
        &c,
        "select * from orders where (ctid::text::point)[0] <> 3 order by ctid",
        "format text",
    );
    let block_rows = |b: u32| -> usize {
        all.lines().count()
            - copy_ignoring_checksums(
                &c,
                &format!("select * from orders where (ctid::text::point)[0] <> {b}"),
                "format csv",
            )
            .lines()
            .count()
    };
    let (rows_1, rows_3) = (block_rows(1), block_rows(3));
    assert!(rows_1 > 0 && rows_3 > 0, "{version}");
    let path = c.data.join(
        c.psql_in("forensic", &["select pg_relation_filepath('orders')"])
            .trim(),
    );
    c.stop();
    let block_1 = read(&path, 8192, 8192);
    patch(&path, 3 * 8192, &block_1);
    let data = c.data.to_str().unwrap().to_owned();
    let run = |format: &str| {
        let out = pgpage(&[
            "rows",
            "--include-damaged",
            "--format",
            format,
            data.as_str(),
            "orders",
        ]);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, csv, err) = run("csv");
    let (_, text, text_err) = run("text");
    let (_, json, json_err) = run("json");

    // The server, reading past the checksum, returns block 1's rows twice.
    c.restart();
    let duplicated = copy_ignoring_checksums(
        &c,
        "select id from orders group by id having count(*) > 1",
        "format csv",
    );
    assert_eq!(duplicated.lines().count(), rows_1, "{version}");

    assert_eq!(code, Some(1), "{version}: {err}");
    assert_eq!(csv, without_3, "PostgreSQL {version}");
    assert_eq!(text, without_3_text, "PostgreSQL {version} text");
    let keys = |s: &str| -> Vec<i64> {
        s.lines()
            .map(|l| l.split(',').next().unwrap().parse().unwrap())
            .collect()
    };
    let json_keys: Vec<i64> = json
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["id"].as_str().unwrap().parse::<i64>().unwrap()
        })
        .collect();
    assert_eq!(json_keys, keys(&without_3), "{version} json");
    let file = path.to_str().unwrap();
    let said = format!("file \"{file}\", block 3: page verification failed, calculated checksum");
    let copy = format!(
        "block 3 holds a copy of block 1 (its checksum is valid for block 1 and its tuples' t_ctid name block 1): its {rows_1} rows are left out, they are block 1's and would be printed twice"
    );
    for e in [&err, &text_err, &json_err] {
        assert!(e.contains(&said) && e.contains(&copy), "{version}: {e}");
    }
    assert!(!err.contains("rows are printed"), "{version}: {err}");
    // repair's advice says the same, and offers no flip: one that made the checksum valid for
    // block 3 would hide block 1's rows under block 3's number.
    let advice = pgpage(&["repair", "--block", "3", file]);
    let said = String::from_utf8_lossy(&advice.stdout);
    assert!(
        said.lines()
            .next()
            .unwrap_or_default()
            .contains("a copy of block 1")
            && !said.contains("Single-bit flips")
            && !said.contains("--flip 8:"),
        "{version}: {said}"
    );
    eprintln!(
        "PostgreSQL {version}: block 3 ({rows_3} rows) overwritten by block 1 ({rows_1} rows): the copy left out, the server returns {rows_1} ids twice"
    );
}

each_version!(a_copied_block_is_not_printed_twice);

/// A page whose checksum fails with PD_ALL_VISIBLE set over deleted rows and pd_prune_xid
/// 0 (an older header's, as a torn write leaves it): the server, under ignore_checksum_failure, reads such a page without
/// checking any tuple's visibility and returns the deleted rows too. `rows
/// --include-damaged` prints the rows a snapshot sees and says how many more versions the
/// server returns there, as many as the server's own scan shows.
fn all_visible_damaged_page_named(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&["create database forensic"]);
    c.psql_in(
        "forensic",
        &[
            "create table orders (id int4, note text) with (autovacuum_enabled = off)",
            "insert into orders select g, 'note-' || g from generate_series(1, 300) g",
            "select count(*) from orders",
            // No read after the delete: a read would prune the page (LP_DEAD items).
            "delete from orders where id <= 5",
            "checkpoint",
        ],
    );
    let path = c.data.join(
        c.psql_in("forensic", &["select pg_relation_filepath('orders')"])
            .trim(),
    );
    c.stop();
    let page = read(&path, 0, 8192);
    assert_eq!(page[10] & 4, 0, "block 0 is not all-visible yet");
    patch(&path, 10, &[page[10] | 4]);
    // pd_prune_xid 0, as an older header has it: the server's read does not prune first.
    assert_ne!(&page[20..24], &[0, 0, 0, 0], "the delete set pd_prune_xid");
    patch(&path, 20, &[0, 0, 0, 0]);
    let out = pgpage(&[
        "rows",
        "--include-damaged",
        c.data.to_str().unwrap(),
        "orders",
    ]);
    let printed = String::from_utf8_lossy(&out.stdout).lines().count();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    c.restart();
    let server = copy_ignoring_checksums(&c, "select * from orders", "format csv");
    let server_rows = server.lines().count();
    let more = server_rows - printed;
    assert_eq!(more, 5, "{version}: {err}");
    assert!(
        err.contains(&format!(
            "{more} versions no snapshot sees (updated or deleted), which pgpage does not print, come back as rows there"
        )),
        "{version}: {err}"
    );
}

each_version!(all_visible_damaged_page_named);
