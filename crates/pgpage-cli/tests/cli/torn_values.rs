//! A heap page torn between a write from before a round of updates, deletes, inserts and a
//! VACUUM (its first half: the header and line pointers) and the write after them (the rest),
//! PostgreSQL 13 to 19. Pruning compacted the page in between, so the rows' tuples moved, and
//! pgpage finds them by their t_ctid; one found so may hold bytes of the other write in its
//! values. Every row the report counts readable is one the server then serves whole after
//! `repair --torn`: the sequential COPY of the table succeeds (no value fails its type's
//! input), the block holds exactly that many rows, each as the undamaged table had it, and
//! each row neither printed nor served is named lost by its key.

use std::collections::BTreeSet;
use std::fs;

use crate::common::page::BLCKSZ;
use crate::common::{
    block_of, copy_dir, json, pgpage, repair_torn_in_place, run_copy, write_block, Cluster,
};
use crate::torn_reused::by_id;

fn torn_values_decode(version: u32) {
    let mut c = Cluster::start(version);
    // A table and history as a shop's: HOT and non-HOT updates, deletes and a VACUUM, then
    // the base write; then more of each, and new rows into the space the VACUUM freed.
    c.psql(&[
        "create table orders (id int primary key, customer text not null, amount numeric(10,2), status text, note text) with (fillfactor = 85, autovacuum_enabled = off)",
        "insert into orders select g, 'cust' || lpad((g * 419 % 500)::text, 4, '0'), (g * 37 % 10000) / 100.0, 'new', repeat('x', 20 + g % 60) from generate_series(1, 6000) g",
        "vacuum analyze orders",
        "update orders set status = 'paid' where id % 3 = 0",
        "update orders set customer = customer || 'b' where id % 17 = 0",
        "delete from orders where id % 11 = 0",
        "vacuum orders",
        "checkpoint",
    ]);
    let rel = c.file("select pg_relation_filepath('orders')");
    let rel_in_data = rel.strip_prefix(&c.data).unwrap().to_owned();
    let block: usize = c
        .psql(&["select (ctid::text::point)[0]::int from orders where id = 1691"])
        .trim()
        .parse()
        .unwrap();
    c.stop();
    let older = fs::read(&rel).unwrap();
    c.restart();
    c.psql(&[
        "update orders set status = 'shipped' where id between 1000 and 1600 and id % 3 = 0",
        "update orders set customer = 'vip' || id where id between 3000 and 3100",
        "delete from orders where id between 4000 and 4100",
        "insert into orders select g, 'cust' || lpad((g * 419 % 500)::text, 4, '0'), (g * 37 % 10000) / 100.0, 'new', repeat('x', 20 + g % 60) from generate_series(6001, 6400) g",
        "vacuum orders",
        "update orders set note = 'touched after vacuum' where id % 50 = 1",
        "checkpoint",
    ]);
    let truth = by_id(&c.psql(&["copy orders to stdout with (format csv)"]));
    let on_block: BTreeSet<i64> = c
        .psql(&[&format!(
            "select string_agg(id::text, ',') from orders where (ctid::text::point)[0] = {block}"
        )])
        .trim()
        .split(',')
        .map(|s| s.parse().unwrap())
        .collect();
    c.stop();

    let damaged = c.root.join("damaged");
    copy_dir(&c.data, &damaged);
    let file = damaged.join(&rel_in_data);
    let at = block * BLCKSZ;
    let mut page = fs::read(&file).unwrap()[at..at + BLCKSZ].to_vec();
    assert_ne!(
        page[..BLCKSZ / 2],
        older[at..at + BLCKSZ / 2],
        "{version}: the block's first half changed"
    );
    page[..BLCKSZ / 2].copy_from_slice(&older[at..at + BLCKSZ / 2]);
    write_block(&file, block, &page);

    let d = damaged.to_str().unwrap();
    let report = json(&pgpage(&["report", "--json", d]));
    let b = block_of(&report, "public.orders", block);
    assert_eq!(b["damage"], "torn", "{version}: {b:#}");
    let readable = b["rows"]["readable"].as_u64().unwrap();
    let lost: BTreeSet<i64> = b["rows"]["keys"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|k| k[0].as_str().unwrap().parse().unwrap())
        .collect();

    repair_torn_in_place(&file, block, &c.root.join("fixed"), &version.to_string());
    let served = run_copy(
        &c,
        &damaged,
        &[
            "set enable_indexscan = off",
            "set enable_bitmapscan = off",
            &format!("copy (select * from orders where (ctid::text::point)[0] = {block}) to stdout with (format csv)"),
        ],
    );
    let served = by_id(&served);
    // What the server serves of the block is the table's rows as they were, and as many as
    // the report counted readable.
    for (id, line) in &served {
        assert_eq!(Some(line), truth.get(id), "{version}: row {id}");
    }
    assert_eq!(served.len() as u64, readable, "{version}: {b:#}");
    // The rest of the block's rows are named lost, and no row both.
    let unnamed: Vec<&i64> = on_block
        .iter()
        .filter(|id| !served.contains_key(id) && !lost.contains(id))
        .collect();
    assert!(
        unnamed.is_empty(),
        "{version}: neither served nor named lost: {unnamed:?}: {b:#}"
    );
    let both: Vec<&i64> = lost.iter().filter(|id| served.contains_key(id)).collect();
    assert!(
        both.is_empty(),
        "{version}: served and named lost: {both:?}"
    );
}

each_version!(torn_values_decode);
