#!/usr/bin/env bash
# Makes (once) a stopped PostgreSQL 15 cluster with data checksums for the CLI benchmark and
# prints its data directory. Usage: bench/cluster.sh SCALE DIR
#   SCALE: pgbench scale (70 = about 1.1 GB); 0 = a bare initdb (the smoke run's few MB).
#   DIR:   where the cluster is kept; it is reused while DIR/ready says the same scale.
# The server runs as the postgres user when we are root, on a Unix socket in a temp dir and
# a random port, and is stopped again (pg_checksums wants a cleanly stopped cluster).
set -euo pipefail

scale=$1
dir=$2
pgbin=${PGBIN:-/usr/lib/postgresql/15/bin}
data=$dir/data

as_pg=()
if [[ $(id -u) == 0 ]]; then
    as_pg=(runuser -u postgres --)
fi

if [[ -f $dir/ready && $(cat "$dir/ready") == "scale $scale" && -f $data/PG_VERSION ]]; then
    # A server left running (an interrupted load) would make pg_checksums refuse the cluster.
    if [[ -f $data/postmaster.pid ]]; then
        "${as_pg[@]}" "$pgbin/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    echo "$data"
    exit 0
fi

rm -rf "$dir"
mkdir -p "$dir"
[[ ${#as_pg[@]} == 0 ]] || chown postgres: "$dir"
"${as_pg[@]}" "$pgbin/initdb" -k -D "$data" -U postgres --no-instructions >"$dir/initdb.log" 2>&1 ||
    { echo "initdb failed, see $dir/initdb.log" >&2; exit 1; }

if [[ $scale != 0 ]]; then
    sock=$(mktemp -d)
    [[ ${#as_pg[@]} == 0 ]] || chown postgres: "$sock"
    port=$((20000 + RANDOM % 20000))
    stop() { "${as_pg[@]}" "$pgbin/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 || true; rm -rf "$sock"; }
    trap stop EXIT
    echo "bench: loading pgbench scale $scale into $data (once; a few minutes)" >&2
    "${as_pg[@]}" "$pgbin/pg_ctl" -D "$data" -l "$dir/server.log" -w \
        -o "-k $sock -p $port -c listen_addresses='' -c max_wal_size=4GB" start >/dev/null
    "${as_pg[@]}" "$pgbin/pgbench" -i -q -s "$scale" -h "$sock" -p "$port" postgres >"$dir/pgbench.log" 2>&1 ||
        { echo "pgbench -i failed, see $dir/pgbench.log" >&2; exit 1; }
    "${as_pg[@]}" "$pgbin/psql" -X -q -h "$sock" -p "$port" -d postgres -c 'VACUUM ANALYZE' -c CHECKPOINT
    stop
    trap - EXIT
fi
echo "scale $scale" >"$dir/ready"
echo "$data"
