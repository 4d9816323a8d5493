#!/usr/bin/env bash
# Regenerates public/samples/: small relation files a real PostgreSQL 15 wrote (a heap with
# live, dead, HOT and redirected tuples, its FSM and VM forks, one index of each access method,
# a sequence), corrupted copies of the heap, and manifest.json with what PostgreSQL's
# page_checksum() and page_header() say about every page of every file. The app's "Load
# samples" button and guided tour read them. It lives outside public/ because public/ is served
# verbatim. Starts a throwaway cluster (initdb -k, as the postgres user when run as root, Unix
# socket in a temp dir, random port) and removes it.
#
#   bash scripts/make-samples.sh          # rewrites public/samples/
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=$(pwd)/public/samples
BIN=${PG_BINDIR:-/usr/lib/postgresql/15/bin}
[ -x "$BIN/initdb" ] || { echo "make-samples.sh: PostgreSQL 15 not found in $BIN" >&2; exit 1; }

as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
ROOT=$(mktemp -d /tmp/pgpage-samples-XXXXXX)
chmod 755 "$ROOT"
[ "$(id -u)" = 0 ] && chown postgres: "$ROOT"
PORT=$((20000 + RANDOM % 30000))
cleanup() { as_pg "$BIN/pg_ctl" -D "$ROOT/data" -m fast -w stop >/dev/null 2>&1 || true; rm -rf "$ROOT"; }
trap cleanup EXIT

as_pg "$BIN/initdb" -k -A trust -U postgres --no-sync -E UTF8 --locale=C -D "$ROOT/data" >/dev/null
start() {
  as_pg "$BIN/pg_ctl" -D "$ROOT/data" -l "$ROOT/log" -w \
    -o "-p $PORT -k $ROOT -c listen_addresses='' -c fsync=off -c autovacuum=off" start >/dev/null
}
start
psql() { as_pg "$BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h "$ROOT" -p "$PORT" -U postgres -d postgres "$@"; }

psql >/dev/null <<'SQL'
create extension pageinspect;
-- fillfactor 70 leaves room on each page, so updates of the unindexed columns stay HOT.
create table heap (id int primary key, v int, pad text) with (fillfactor = 70);
insert into heap select g, g % 97, repeat('p', 20 + g % 40) from generate_series(1, 250) g;
-- HOT chains whose roots vacuum turns into redirects; non-HOT updates and deletes vacuum frees.
update heap set pad = pad || 'h' where id % 5 = 0;
update heap set id = id + 1000 where id % 37 = 0;
delete from heap where id % 11 = 0;
vacuum heap;
-- After the vacuum: dead tuples (deleted, committed) on the last page, then fresh HOT chains
-- (HEAP_HOT_UPDATED -> HEAP_ONLY_TUPLE) on the first. Index scans read only the pages they
-- change, and nothing reads the pages afterwards, so no opportunistic prune tidies them away.
set enable_seqscan = off;
set enable_bitmapscan = off;
delete from heap where id in (230, 235, 240, 245);
update heap set v = v + 1 where id in (7, 14, 21, 28);
reset enable_seqscan;
reset enable_bitmapscan;

create table bt_src (k int);
insert into bt_src select g from generate_series(1, 1000) g;
create index btree on bt_src (k);

create table geo (id int, b box, tags int[]);
insert into geo select g, box(point(g % 20, g / 20), point(g % 20 + 1, g / 20 + 1)), array[g % 17, g % 5]
  from generate_series(1, 300) g;
create index hash on geo using hash (id);
create index gist on geo using gist (b);
create index gin on geo using gin (tags);
create index spgist on geo using spgist (point(id % 20, id / 20));
create index brin on geo using brin (id) with (pages_per_range = 1);
create sequence seq start 42;
select nextval('seq'), nextval('seq');
SQL

rel() { psql -c "select pg_relation_filepath('$1')"; }
node_of() { psql -c "select pg_relation_filenode('$1')"; }
HEAP=$(node_of heap)
declare -A PATHS
for r in heap btree hash gist gin spgist brin seq; do PATHS[$r]=$(rel $r); done
PG_VERSION=$(psql -c "show server_version")

# A clean shutdown writes every page with its checksum; the files are then what is on disk.
as_pg "$BIN/pg_ctl" -D "$ROOT/data" -m fast -w stop >/dev/null
rm -rf "$OUT"
mkdir -p "$OUT" "$ROOT/s"
cp_rel() { cp "$ROOT/data/$1" "$OUT/$2"; }
cp_rel "${PATHS[heap]}" "$HEAP"
cp_rel "${PATHS[heap]}_fsm" "${HEAP}_fsm"
cp_rel "${PATHS[heap]}_vm" "${HEAP}_vm"
for r in btree hash gist gin spgist brin seq; do cp_rel "${PATHS[$r]}" "$(basename "${PATHS[$r]}")"; done
node scripts/samples-corrupt.mjs "$OUT" "$HEAP" "$ROOT/changes.json"
chmod 644 "$OUT"/*
start

# role, file, kind, description: one sample a line. The corrupted copies are renamed heaps
# (90001...), each with one change; the segment-2 one is the heap's bytes under the name .2.
SAMPLES="heap|$HEAP|heap|A heap: live tuples, dead ones, HOT chains and redirect line pointers
fsm|${HEAP}_fsm|fsm|The heap's free space map fork: a tree of free-space bytes
vm|${HEAP}_vm|vm|The heap's visibility map fork: all-visible and all-frozen bits, 2 per heap page
btree|$(basename "${PATHS[btree]}")|btree|A B-tree on 1,000 ints: metapage, a root and its leaves
hash|$(basename "${PATHS[hash]}")|hash|A hash index: metapage, buckets and a bitmap page
gist|$(basename "${PATHS[gist]}")|gist|A GiST index on boxes: a root and three leaves
gin|$(basename "${PATHS[gin]}")|gin|A GIN index on int arrays: metapage and one entry-tree leaf, its root
spgist|$(basename "${PATHS[spgist]}")|spgist|An SP-GiST index on points (a quad tree): metapage, root and leaves
brin|$(basename "${PATHS[brin]}")|brin|A BRIN index: metapage, range map and summaries
sequence|$(basename "${PATHS[seq]}")|sequence|A sequence: one page, one tuple
flipped_bit|90001|heap|The heap with one bit flipped in a tuple of block 1: the checksum fails
zeroed_page|90002|heap|The heap with block 2 all zeros: a new page, which the server accepts
upper_zeroed|90003|heap|The heap with only pd_upper of block 1 zeroed: the server rejects it, pg_checksums skips it
swapped_pages|90004|heap|The heap with blocks 1 and 2 swapped: each checksum is valid for the other block
segment_2|$HEAP.2|heap|The heap's bytes named as segment 2: every block number, and so every checksum, differs"

lit() { printf "'%s'" "$(printf %s "$1" | sed "s/'/''/g")"; }
entries=()
while IFS='|' read -r role file kind desc; do
  seg=0; [[ $file =~ \.([0-9]+)$ ]] && seg=${BASH_REMATCH[1]}
  fork=main; [[ $file =~ _(fsm|vm)$ ]] && fork=${BASH_REMATCH[1]}
  cp "$OUT/$file" "$ROOT/s/$file"
  [ "$(id -u)" = 0 ] && chown postgres: "$ROOT/s/$file"
  size=$(stat -c %s "$OUT/$file")
  # page_checksum() takes the relation-wide block number, as the server computes it.
  entries+=("$(psql -c "select json_build_object(
      'role', $(lit "$role"), 'file', $(lit "$file"), 'kind', $(lit "$kind"), 'fork', $(lit "$fork"),
      'segment', $seg, 'description', $(lit "$desc"),
      'pages', json_agg(json_build_object(
        'block', b, 'absolute_block', abs_b, 'stored', stored, 'computed', computed, 'upper', upper,
        'status', case when all_zero then 'zero' when upper = 0 then 'new_not_zero'
                       when computed <> stored then 'mismatch' else 'ok' end) order by b))
    from (select b, $seg::bigint * 131072 + b as abs_b,
                 p = decode(repeat('00', 8192), 'hex') as all_zero,
                 page_checksum(p, ($seg::bigint * 131072 + b)::int) & 65535 as computed,
                 (page_header(p)).checksum & 65535 as stored,
                 (page_header(p)).upper as upper
          from generate_series(0, $size / 8192 - 1) b,
               lateral (select pg_read_binary_file($(lit "$ROOT/s/$file"), b::bigint * 8192, 8192) as p) r) pages")")
done <<<"$SAMPLES"

printf '%s\n' "${entries[@]}" | node -e '
  // One sample a line, its change (for the corrupted copies) merged in.
  const [changesPath, version] = process.argv.slice(1);
  const changes = JSON.parse(require("fs").readFileSync(changesPath, "utf8"));
  let s = "";
  process.stdin.on("data", (d) => (s += d)).on("end", () => {
    const samples = s.trim().split("\n").map((l) => ({ ...JSON.parse(l), change: changes[JSON.parse(l).role] ?? null }));
    const head = JSON.stringify({ generator: "scripts/make-samples.sh", server_version: version, block_size: 8192 });
    process.stdout.write(`${head.slice(0, -1)},\n "samples": [\n  ${samples.map((x) => JSON.stringify(x)).join(",\n  ")}\n ]}\n`);
  });' "$ROOT/changes.json" "$PG_VERSION" >"$OUT/manifest.json"
du -cb "$OUT"/* | tail -1
