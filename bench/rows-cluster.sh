#!/usr/bin/env bash
# Makes (once) the PostgreSQL 15 cluster of the `rows` and `ls` benchmarks and prints its data
# directory. Usage: bench/rows-cluster.sh ROWS RELATIONS DIR
#   ROWS:      rows of table `t` (6,000,000 = about 1 GB): int4, int8, numeric, text,
#              timestamptz, float8, bool, jsonb, uuid, some NULLs, and 40 rows whose text is
#              200 kB, stored external in the TOAST relation (random hex, which pglz leaves
#              uncompressed once it is past 1 kB of it).
#   RELATIONS: extra tables in schema `many` (each a relation with a file), for `ls`.
#   DIR:       where the cluster is kept; reused while DIR/ready says the same ROWS RELATIONS.
# The cluster is left stopped; bench/run.sh starts it to time COPY beside pgpage.
set -euo pipefail

rows=$1
relations=$2
dir=$3
pgbin=${PGBIN:-/usr/lib/postgresql/15/bin}
data=$dir/data

as_pg=()
if [[ $(id -u) == 0 ]]; then
    as_pg=(runuser -u postgres --)
fi

if [[ -f $dir/ready && $(cat "$dir/ready") == "rows $rows relations $relations" && -f $data/PG_VERSION ]]; then
    echo "$data"
    exit 0
fi

rm -rf "$dir"
mkdir -p "$dir"
[[ ${#as_pg[@]} == 0 ]] || chown postgres: "$dir"
"${as_pg[@]}" "$pgbin/initdb" -k -D "$data" -U postgres --no-instructions >"$dir/initdb.log" 2>&1 ||
    { echo "initdb failed, see $dir/initdb.log" >&2; exit 1; }
sock=$(mktemp -d)
[[ ${#as_pg[@]} == 0 ]] || chown postgres: "$sock"
port=$((20000 + RANDOM % 20000))
stop() { "${as_pg[@]}" "$pgbin/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 || true; rm -rf "$sock"; }
trap stop EXIT
echo "bench: loading $rows rows and $relations relations into $data (once)" >&2
"${as_pg[@]}" "$pgbin/pg_ctl" -D "$data" -l "$dir/server.log" -w \
    -o "-k $sock -p $port -c listen_addresses='' -c max_wal_size=4GB -c fsync=off -c max_locks_per_transaction=512" start >/dev/null
psql=("${as_pg[@]}" "$pgbin/psql" -X -q -v ON_ERROR_STOP=1 -h "$sock" -p "$port" -d postgres)
"${psql[@]}" >"$dir/load.log" 2>&1 <<SQL || { echo "loading failed, see $dir/load.log" >&2; exit 1; }
CREATE TABLE t (i int4, b int8, n numeric, s text, ts timestamptz, f float8, ok bool, j jsonb, u uuid);
INSERT INTO t
SELECT g, g::int8 * 2654435761, round((g % 100000)::numeric / 7, 4),
       CASE WHEN g % 17 = 0 THEN NULL ELSE 'row ' || g || ', "quoted" ' || md5(g::text) END,
       timestamptz '2020-01-01 00:00:00+00' + g * interval '1.5 second',
       CASE WHEN g % 13 = 0 THEN NULL ELSE g / 3.0 END, g % 3 = 0,
       jsonb_build_object('id', g, 'tag', 't' || (g % 10), 'ok', g % 2 = 0),
       md5(g::text)::uuid
FROM generate_series(1, $rows) g;
-- A few values of 200 kB stored external (SET STORAGE EXTERNAL: uncompressed, as big
-- incompressible text is).
ALTER TABLE t ALTER COLUMN s SET STORAGE EXTERNAL;
INSERT INTO t
SELECT -g, g, g, (SELECT string_agg(md5((g * 10000 + k)::text), '') FROM generate_series(1, 6250) k),
       now(), g, true, '{}', md5((-g)::text)::uuid
FROM generate_series(1, 40) g;
VACUUM FREEZE t;
CREATE SCHEMA many;
DO \$\$ BEGIN
  FOR k IN 1..$relations LOOP EXECUTE format('CREATE TABLE many.r%s (a int)', k); END LOOP;
END \$\$;
VACUUM FREEZE;
CHECKPOINT;
SQL
stop
trap - EXIT
echo "rows $rows relations $relations" >"$dir/ready"
echo "$data"
