//! `pgpage ls` and the catalog layouts against PostgreSQL 13 to 19: a cluster per version
//! with two more databases (one in a tablespace), odd schema and table names, partitions, a
//! matview, indexes, TOAST, an unlogged table, tables rewritten by VACUUM FULL and TRUNCATE,
//! catalogs rewritten (pg_class is mapped, pg_am is not), a renamed table (a dead pg_class
//! version) and an aborted CREATE TABLE. The server's own pg_relation_filenode(), pg_class,
//! pg_namespace and pg_am answers are taken before a clean shutdown; `ls --json` must give
//! the same for every relation with storage. Then a copy with a scrambled pg_class block.

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::process::{Command, Output};

use crate::common::{json, ok, pgpage, run_pg, Cluster};
use pgpage::cluster::catalog::layout::{columns, Catalog};
use serde_json::Value;

/// What every database gets.
const OBJECTS: &[&str] = &[
    r#"CREATE SCHEMA "Odd Schema""#,
    r#"CREATE TABLE "Odd Schema"."Mixed Case" (id int PRIMARY KEY, t text)"#,
    r#"INSERT INTO "Odd Schema"."Mixed Case" SELECT g, md5(g::text) FROM generate_series(1, 1000) g"#,
    r#"CREATE TABLE "ünïcødé ☃" (x int)"#,
    "CREATE TABLE parted (id int, v text) PARTITION BY RANGE (id)",
    "CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (0) TO (100)",
    "CREATE TABLE parted_2 PARTITION OF parted FOR VALUES FROM (100) TO (200)",
    "CREATE INDEX parted_id ON parted (id)",
    "INSERT INTO parted SELECT g, 'v' || g FROM generate_series(0, 199) g",
    "CREATE MATERIALIZED VIEW mv AS SELECT * FROM parted",
    "CREATE TABLE toasty (id int, big text)",
    "INSERT INTO toasty SELECT 1, string_agg(md5(g::text), '') FROM generate_series(1, 3000) g",
    "CREATE UNLOGGED TABLE unl (id int PRIMARY KEY)",
    "INSERT INTO unl SELECT generate_series(1, 100)",
    "CREATE TABLE vf (id int)",
    "INSERT INTO vf SELECT generate_series(1, 500)",
    "VACUUM FULL vf",
    "CREATE TABLE tr (id int)",
    "INSERT INTO tr SELECT generate_series(1, 500)",
    "TRUNCATE tr",
    "CREATE SEQUENCE seq",
    "CREATE VIEW v AS SELECT 1 AS one",
    "CREATE TABLE in_ts (id int) TABLESPACE ts",
    "INSERT INTO in_ts VALUES (1)",
    "VACUUM FULL pg_class",
    "VACUUM FULL pg_am",
    "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')",
    "ALTER TYPE mood ADD VALUE 'meh' BEFORE 'ok'",
    "CREATE DOMAIN posint AS int CHECK (VALUE > 0)",
    "CREATE TABLE typed (a mood, b posint, c int[], d text, e int)",
    "INSERT INTO typed VALUES ('meh', 1, '{1,2}', 'x', 5)",
    "ALTER TABLE typed DROP COLUMN d",
    "ALTER TABLE typed ADD COLUMN f int DEFAULT 42",
    // After the rewrite, so that the old pg_class version stays as a dead tuple.
    "ALTER TABLE vf RENAME TO vf_renamed",
    "BEGIN; CREATE TABLE aborted_t (x int); ROLLBACK",
];

/// The server's answer for every relation with storage of database `db`, keyed by
/// (database_oid, oid); shared catalogs under database 0.
fn server_relations(s: &Cluster, db: &str) -> BTreeMap<(u64, u64), Value> {
    let out = s.psql_in(
        db,
        &["SELECT json_agg(json_build_object(
            'database_oid', CASE WHEN c.relisshared THEN 0 ELSE d.oid::int8 END,
            'database', CASE WHEN c.relisshared THEN NULL ELSE d.datname END,
            'tablespace_oid', CASE WHEN c.relisshared THEN 1664
                WHEN c.reltablespace = 0 THEN d.dattablespace::int8 ELSE c.reltablespace::int8 END,
            'relfilenode', pg_relation_filenode(c.oid)::int8,
            'oid', c.oid::int8, 'schema', n.nspname, 'name', c.relname, 'relkind', c.relkind,
            'am', a.amname,
            'toast_relfilenode', CASE WHEN c.reltoastrelid <> 0
                THEN pg_relation_filenode(c.reltoastrelid)::int8 END,
            'blocks', pg_relation_size(c.oid) / current_setting('block_size')::int))
          FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          LEFT JOIN pg_am a ON a.oid = c.relam
          JOIN pg_database d ON d.datname = current_database()
          WHERE c.relkind IN ('r', 'i', 'S', 't', 'm')"],
    );
    let rows: Vec<Value> = serde_json::from_str(out.trim()).unwrap();
    rows.into_iter()
        .map(|r| {
            let key = (
                r["database_oid"].as_u64().unwrap(),
                r["oid"].as_u64().unwrap(),
            );
            (key, r)
        })
        .collect()
}

/// The catalog layouts of pgpage::cluster::catalog::layout against the server's pg_attribute.
fn layouts_equal_the_servers(s: &Cluster, version: u32) {
    for catalog in Catalog::ALL {
        let out = s.psql_in(
            "postgres",
            &[&format!(
                "SELECT attname, atttypid, attlen, attalign, attbyval, attnotnull FROM pg_attribute
                 WHERE attrelid = '{}'::regclass AND attnum > 0 ORDER BY attnum",
                catalog.name()
            )],
        );
        let server: Vec<String> = out.lines().map(str::to_owned).collect();
        let ours: Vec<String> = columns(catalog, version)
            .map(|c| {
                let tf = |b: bool| if b { "t" } else { "f" };
                format!(
                    "{}|{}|{}|{}|{}|{}",
                    c.attname,
                    c.atttypid,
                    c.attlen,
                    char::from(c.attalign),
                    tf(c.attbyval),
                    tf(c.attnotnull)
                )
            })
            .collect();
        assert_eq!(ours, server, "{} in PostgreSQL {version}", catalog.name());
    }
}

/// The server's pg_attribute, pg_type and pg_enum rows for table `typed` of database
/// postgres (an enum, a domain, an array, a dropped column, a fast default), and the files
/// of those catalogs.
struct ColumnsAnswer {
    attributes: Vec<String>,
    types: Vec<String>,
    enums: Vec<String>,
    files: [String; 3],
}

impl ColumnsAnswer {
    fn ask(s: &Cluster) -> ColumnsAnswer {
        let lines = |sql: &str| -> Vec<String> {
            s.psql_in("postgres", &[sql])
                .lines()
                .map(str::to_owned)
                .collect()
        };
        let attributes = lines(
            "SELECT attrelid, attname, atttypid, attlen, attnum, atttypmod, attbyval, attalign,
                    attnotnull, atthasmissing, attisdropped, attmissingval IS NOT NULL
             FROM pg_attribute WHERE attrelid = 'typed'::regclass ORDER BY attnum",
        );
        let types = lines(
            "SELECT oid, typname, typnamespace, typlen, typbyval, typtype, typalign, typelem,
                    typbasetype, typtypmod, typrelid FROM pg_type
             WHERE oid IN (SELECT atttypid FROM pg_attribute WHERE attrelid = 'typed'::regclass)
                OR typname IN ('mood', 'posint', '_int4', 'int4') ORDER BY oid",
        );
        let enums = lines(
            "SELECT oid, enumtypid, enumsortorder, enumlabel FROM pg_enum
             WHERE enumtypid = 'mood'::regtype ORDER BY enumsortorder",
        );
        let files = lines(
            "SELECT pg_relation_filepath('pg_attribute'), pg_relation_filepath('pg_type'),
                    pg_relation_filepath('pg_enum')",
        );
        let files: Vec<String> = files[0].split('|').map(str::to_owned).collect();
        ColumnsAnswer {
            attributes,
            types,
            enums,
            files: [files[0].clone(), files[1].clone(), files[2].clone()],
        }
    }

    /// The same rows read by the core from the stopped cluster's files.
    fn held_against_the_files(&self, data: &Path, version: u32) {
        use pgpage::cluster::catalog::read::{attribute_rows, enum_rows, type_rows, CatalogFile};
        use pgpage::tuple::visibility::{slru_segment_number, SlruKind, TransactionLog};
        let mut log = TransactionLog::new(8192, pgpage::Endian::Little);
        for e in std::fs::read_dir(data.join("pg_xact")).unwrap().flatten() {
            let segno = slru_segment_number(e.file_name().to_str().unwrap()).unwrap();
            log.add_segment(SlruKind::Xact, segno, std::fs::read(e.path()).unwrap());
        }
        let bytes: Vec<Vec<u8>> = self
            .files
            .iter()
            .map(|f| std::fs::read(data.join(f)).unwrap())
            .collect();
        let file = |i: usize| CatalogFile {
            bytes: &bytes[i],
            block_size: pgpage::BlockSize::DEFAULT,
            endian: pgpage::Endian::Little,
            checksums: true,
        };
        let tf = |b: bool| if b { "t" } else { "f" };
        let mut problems = Vec::new();
        let relid: u32 = self.attributes[0]
            .split('|')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let mut attrs: Vec<_> = attribute_rows(&file(0), version, &log, &mut problems)
            .into_iter()
            .filter(|a| a.attrelid == relid)
            .collect();
        attrs.sort_by_key(|a| a.attnum);
        let attrs: Vec<String> = attrs
            .iter()
            .map(|a| {
                format!(
                    "{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}",
                    a.attrelid,
                    a.attname,
                    a.atttypid,
                    a.attlen,
                    a.attnum,
                    a.atttypmod,
                    tf(a.attbyval),
                    char::from(a.attalign),
                    tf(a.attnotnull),
                    tf(a.atthasmissing),
                    tf(a.attisdropped),
                    tf(a.attmissingval.is_some())
                )
            })
            .collect();
        assert_eq!(
            attrs, self.attributes,
            "pg_attribute in PostgreSQL {version}"
        );
        let wanted: BTreeSet<u32> = self
            .types
            .iter()
            .map(|t| t.split('|').next().unwrap().parse().unwrap())
            .collect();
        let mut types: Vec<_> = type_rows(&file(1), version, &log, &mut problems)
            .into_iter()
            .filter(|t| wanted.contains(&t.oid))
            .collect();
        types.sort_by_key(|t| t.oid);
        let types: Vec<String> = types
            .iter()
            .map(|t| {
                format!(
                    "{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}",
                    t.oid,
                    t.typname,
                    t.typnamespace,
                    t.typlen,
                    tf(t.typbyval),
                    char::from(t.typtype),
                    char::from(t.typalign),
                    t.typelem,
                    t.typbasetype,
                    t.typtypmod,
                    t.typrelid
                )
            })
            .collect();
        assert_eq!(types, self.types, "pg_type in PostgreSQL {version}");
        let mood: u32 = self.enums[0].split('|').nth(1).unwrap().parse().unwrap();
        let mut enums: Vec<_> = enum_rows(&file(2), version, &log, &mut problems)
            .into_iter()
            .filter(|e| e.enumtypid == mood)
            .collect();
        enums.sort_by(|a, b| a.enumsortorder.total_cmp(&b.enumsortorder));
        let enums: Vec<String> = enums
            .iter()
            .map(|e| {
                format!(
                    "{}|{}|{}|{}",
                    e.oid, e.enumtypid, e.enumsortorder, e.enumlabel
                )
            })
            .collect();
        assert_eq!(enums, self.enums, "pg_enum in PostgreSQL {version}");
        assert!(problems.is_empty(), "{problems:?}");
    }
}

fn ls_json(data: &Path) -> (Output, Value) {
    let out = pgpage(&["ls", "--json", data.to_str().unwrap()]);
    let v = json(&out);
    (out, v)
}

fn ls_equals_the_server(version: u32) {
    let mut s = Cluster::start(version);
    layouts_equal_the_servers(&s, version);
    let ts = s.root.join("ts");
    run_pg("/bin", "mkdir", &[ts.to_str().unwrap()]);
    s.psql_in(
        "postgres",
        &[
            &format!("CREATE TABLESPACE ts LOCATION '{}'", ts.display()),
            "CREATE DATABASE second",
            "CREATE DATABASE third TABLESPACE ts",
        ],
    );
    for db in ["postgres", "second", "third"] {
        s.psql_in(db, OBJECTS);
    }
    let columns = ColumnsAnswer::ask(&s);
    let mut expected = BTreeMap::new();
    for db in ["postgres", "second", "third", "template1"] {
        expected.extend(server_relations(&s, db));
    }
    s.stop();

    columns.held_against_the_files(&s.data, version);
    let (out, v) = ls_json(&s.data);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let template0: u64 = v["relations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["database"] == "template0")
        .map(|r| r["database_oid"].as_u64().unwrap())
        .expect("template0 is listed too");
    let mut got = BTreeMap::new();
    for r in v["relations"].as_array().unwrap() {
        assert!(
            !r["name"].is_null(),
            "PostgreSQL {version}: a file no catalog claims in a clean cluster: {r}"
        );
        let key = (
            r["database_oid"].as_u64().unwrap(),
            r["oid"].as_u64().unwrap(),
        );
        if key.0 != template0 {
            assert!(got.insert(key, r.clone()).is_none(), "listed twice: {r}");
        }
    }
    assert_eq!(
        got.keys().collect::<BTreeSet<_>>(),
        expected.keys().collect::<BTreeSet<_>>(),
        "PostgreSQL {version}: relations listed"
    );
    for (key, want) in &expected {
        let r = &got[key];
        for field in [
            "database",
            "tablespace_oid",
            "relfilenode",
            "schema",
            "name",
            "relkind",
            "am",
            "toast_relfilenode",
            "blocks",
        ] {
            assert_eq!(
                r[field], want[field],
                "PostgreSQL {version}: {field} of {want}"
            );
        }
        assert_eq!(r["problems"], 0, "{r}");
    }
    // What the fixture is for: the listing shows each case.
    let find = |db: &str, name: &str| -> &Value {
        got.values()
            .find(|r| r["database"] == db && r["name"] == name)
            .unwrap_or_else(|| panic!("{db}.{name} not listed"))
    };
    assert_eq!(find("postgres", "Mixed Case")["schema"], "Odd Schema");
    assert!(find("second", "ünïcødé ☃")["oid"].is_u64());
    assert_eq!(
        find("postgres", "unl")["forks"],
        serde_json::json!(["main", "init"])
    );
    for db in ["postgres", "second", "third"] {
        for name in ["vf_renamed", "tr", "pg_class", "pg_am"] {
            let r = find(db, name);
            assert_ne!(r["relfilenode"], r["oid"], "{db}.{name} was rewritten");
        }
        assert!(find(db, "toasty")["toast_relfilenode"].is_u64());
        assert_eq!(find(db, "mv")["relkind"], "m");
        assert_ne!(find(db, "in_ts")["tablespace_oid"], 1663);
    }
    assert!(!got
        .values()
        .any(|r| r["name"] == "aborted_t" || r["name"] == "vf"));
    assert_ne!(find("third", "toasty")["tablespace_oid"], 1663);

    // The human table names the same relations, quoted where quote_ident would.
    let text = pgpage(&["ls", s.data.to_str().unwrap()]);
    assert_eq!(text.status.code(), Some(0));
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("\"Odd Schema\".\"Mixed Case\""), "{text}");
    assert!(text.lines().next().unwrap().starts_with("database"));

    if version == 15 {
        damaged_pg_class(&s, &v);
    }
}

/// A copy with one pg_class block of database postgres scrambled: that block is named on
/// stderr (file, block, reason), exit 1, the other relations still listed and the files of
/// those whose rows were lost listed unnamed.
fn damaged_pg_class(s: &Cluster, clean: &Value) {
    let copy = s.root.join("copy");
    ok(
        Command::new("cp")
            .args(["-a", s.data.to_str().unwrap(), copy.to_str().unwrap()])
            .output()
            .unwrap(),
        "cp -a",
    );
    let relations = clean["relations"].as_array().unwrap();
    let pg_class = relations
        .iter()
        .find(|r| r["database"] == "postgres" && r["name"] == "pg_class")
        .unwrap();
    let db = pg_class["database_oid"].as_u64().unwrap();
    let file = copy
        .join("base")
        .join(db.to_string())
        .join(pg_class["relfilenode"].as_u64().unwrap().to_string());
    let f = std::fs::OpenOptions::new().write(true).open(&file).unwrap();
    f.write_all_at(&[0x5A; 300], 8192 + 4000).unwrap();

    let (out, v) = ls_json(&copy);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("pg_class \"{}\", block 1: ", file.display()))
            && stderr.contains("checksum_mismatch"),
        "{stderr}"
    );
    let in_db = |v: &Value, named: bool| {
        v["relations"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["database_oid"] == db && r["name"].is_null() != named)
            .count()
    };
    let (before, after, unnamed) = (in_db(clean, true), in_db(&v, true), in_db(&v, false));
    assert!(
        after > 0 && after < before,
        "{after} of {before} still named"
    );
    assert_eq!(after + unnamed, before, "every file is still listed");

    // A byte of an unused slot of the database's pg_filenode.map changed: the server
    // refuses the map for its CRC; ls names it and still finds every mapped catalog.
    let copy2 = s.root.join("copy2");
    ok(
        Command::new("cp")
            .args(["-a", s.data.to_str().unwrap(), copy2.to_str().unwrap()])
            .output()
            .unwrap(),
        "cp -a",
    );
    let map = copy2
        .join("base")
        .join(db.to_string())
        .join("pg_filenode.map");
    let f = std::fs::OpenOptions::new().write(true).open(&map).unwrap();
    f.write_all_at(&[0xA5], 480).unwrap();
    let (out, v) = ls_json(&copy2);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "relation mapping file \"{}\" contains incorrect checksum",
            map.display()
        )) && stderr.contains("relmap_incorrect_checksum"),
        "{stderr}"
    );
    assert_eq!(in_db(&v, true), before, "every relation still named");
}

each_version!(ls_equals_the_server);

#[test]
fn not_a_data_directory() {
    let dir = tempfile::tempdir().unwrap();
    let out = pgpage(&["ls", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("PG_VERSION"), "{stderr}");
    std::fs::write(dir.path().join("PG_VERSION"), "12\n").unwrap();
    let out = pgpage(&["ls", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("13 to 19"));
}
