//! A table's visibility map and free space map pages that fail their checksum, held against
//! PostgreSQL 13 to 19. The server reads the maps zeroing what it cannot verify: VACUUM
//! logs a WARNING for each such page and goes on, and the page it then writes passes again.
//! The report must name each page with the server's own line, lose no row over it, and
//! find nothing once the server's VACUUM has run.

use std::fs;

use crate::common::{json, pgpage, Cluster};

fn map_pages(version: u32) {
    let mut c = Cluster::start(version);
    c.psql(&[
        "create table t (id int primary key, v text)",
        "insert into t select g, repeat('x', 200) from generate_series(1, 3000) g",
        "vacuum t",
        "checkpoint",
    ]);
    let path = c
        .psql(&["select pg_relation_filepath('t')"])
        .trim()
        .to_string();
    c.stop();
    let vm = c.data.join(format!("{path}_vm"));
    let fsm = c.data.join(format!("{path}_fsm"));
    // A bit among the map's bits (past the 24-byte header), and one in the FSM's leaf page
    // (its level-0 page is the fork's third block for a small table).
    let mut bytes = fs::read(&vm).unwrap();
    bytes[27] ^= 0x10;
    fs::write(&vm, &bytes).unwrap();
    let mut bytes = fs::read(&fsm).unwrap();
    assert!(
        bytes.len() >= 3 * 8192,
        "PostgreSQL {version}: the FSM has three pages"
    );
    bytes[2 * 8192 + 4096 + 5] ^= 0x01;
    fs::write(&fsm, &bytes).unwrap();

    let report = json(&pgpage(&["report", "--json", c.data.to_str().unwrap()]));
    let maps = report["map_pages"]
        .as_array()
        .unwrap_or_else(|| panic!("PostgreSQL {version}: no map pages in {report:#}"));
    let named: Vec<(String, u64)> = maps
        .iter()
        .map(|m| {
            (
                m["file"].as_str().unwrap().to_string(),
                m["block"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        named,
        [(format!("{path}_vm"), 0), (format!("{path}_fsm"), 2)],
        "PostgreSQL {version}: {report:#}"
    );
    assert!(maps
        .iter()
        .all(|m| m["relation"] == "public.t" && m["status"] == "mismatch"));
    assert!(
        report["relations"].as_array().unwrap().is_empty(),
        "PostgreSQL {version}: no heap or index block is damaged: {report:#}"
    );
    let verdict = report["verdict"].as_str().unwrap();
    assert!(
        verdict.starts_with("2 visibility or free space map pages that the server zeroes"),
        "PostgreSQL {version}: {verdict}"
    );

    // The server's own words as VACUUM reads the map: each WARNING the report's.
    c.restart();
    let out = c.psql_output("postgres", &["vacuum t"]);
    let said = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "PostgreSQL {version}: {said}");
    let warnings: Vec<&str> = said
        .lines()
        .filter(|l| l.contains("zeroing out page"))
        .collect();
    let vm_warning = maps[0]["server"].as_str().unwrap().lines().last().unwrap();
    assert!(
        warnings.iter().any(|w| w.trim() == vm_warning.trim()),
        "PostgreSQL {version}: the server said {said:?}, the report {vm_warning:?}"
    );
    for w in &warnings {
        assert!(
            maps.iter().any(|m| m["server"]
                .as_str()
                .unwrap()
                .lines()
                .any(|l| l.trim() == w.trim())),
            "PostgreSQL {version}: {w:?} is not the report's: {report:#}"
        );
    }
    assert_eq!(
        c.psql(&["select count(*) from t"]).trim(),
        "3000",
        "PostgreSQL {version}: no row is on a map page"
    );
    c.psql(&["vacuum t", "checkpoint"]);
    c.stop();

    // VACUUM wrote the visibility map page anew, as the step says.
    let after = json(&pgpage(&["report", "--json", c.data.to_str().unwrap()]));
    let left: Vec<&str> = after["map_pages"]
        .as_array()
        .map(|a| a.iter().map(|m| m["file"].as_str().unwrap()).collect())
        .unwrap_or_default();
    assert!(
        !left.iter().any(|f| f.ends_with("_vm")),
        "PostgreSQL {version}: after VACUUM: {after:#}"
    );
}

each_version!(map_pages);
