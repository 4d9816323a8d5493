#!/usr/bin/env bash
# Part 3 of `npm run bench` (bench/run.sh calls it; it also runs alone): `pgpage rows` against
# the server's own COPY and against pg_filedump -D on the same table, and `pgpage ls` of a
# data directory with 10,000 relations against the server's listing of pg_class. Prints a
# Markdown section on stdout.
#
#   bench/rows.sh PGPAGE [--smoke]
#   PGPAGE_BASELINE=OLD-PGPAGE bench/rows.sh PGPAGE   also times another build of pgpage in
#                                                  the same rounds (before/after a change)
#
# The cluster (bench/rows-cluster.sh) is made once and kept in $PGPAGE_BENCH_DIR (default
# /var/tmp/pgpage-bench); the full run's table is about 1.2 GB, the smoke run's 12 MB. The
# server runs while everything is timed (COPY needs it; pgpage and pg_filedump read the files
# a CHECKPOINT wrote), page cache warm (one untimed round first), runs taken in turn.
set -euo pipefail
cd "$(dirname "$0")/.."
pgpage=$1
smoke=0
[[ ${2:-} == --smoke ]] && smoke=1
pgbin=${PGBIN:-/usr/lib/postgresql/15/bin}
out=$PWD/bench/out
mkdir -p "$out"
if ((smoke)); then
    rows=20000 relations=200 runs=1 dir=$out/rows-smoke
else
    rows=${BENCH_ROWS:-6000000} relations=10000 runs=${BENCH_RUNS:-5}
    dir=${PGPAGE_BENCH_DIR:-/var/tmp/pgpage-bench}/rows$rows
fi
types=int4,int8,numeric,text,timestamptz,float8,bool,jsonb,uuid
# pg_filedump 14.1 has no jsonb: its json decoder reads the same varlena as text.
filedump_types=int,bigint,numeric,text,timestamptz,float8,bool,json,uuid
filedump=$(command -v pg_filedump || ls /usr/lib/postgresql/*/bin/pg_filedump 2>/dev/null | tail -1 || true)

as_pg=()
if [[ $(id -u) == 0 ]]; then
    as_pg=(runuser -u postgres --)
fi
data=$(bash bench/rows-cluster.sh "$rows" "$relations" "$dir")
sock=$(mktemp -d)
[[ ${#as_pg[@]} == 0 ]] || chown postgres: "$sock"
port=$((20000 + RANDOM % 20000))
stop() { "${as_pg[@]}" "$pgbin/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 || true; rm -rf "$sock"; }
trap stop EXIT
"${as_pg[@]}" "$pgbin/pg_ctl" -D "$data" -l "$dir/server.log" -w \
    -o "-k $sock -p $port -c listen_addresses='' -c max_locks_per_transaction=512 -c autovacuum=off" start >/dev/null
psql=("${as_pg[@]}" "$pgbin/psql" -X -q -At -h "$sock" -p "$port" -d postgres)
IFS='|' read -r heap toast < <("${psql[@]}" -c \
    "SELECT pg_relation_filepath(oid), pg_relation_filepath(reltoastrelid) FROM pg_class WHERE oid = 't'::regclass")
segments=("$data/$heap")
for s in "$data/$heap".[0-9]*; do [[ -e $s ]] && segments+=("$s"); done
table_bytes=$(cat "${segments[@]}" | wc -c)
classes=$("${psql[@]}" -c 'SELECT count(*) FROM pg_class')
with_storage=$("${psql[@]}" -c "SELECT count(*) FROM pg_class WHERE relkind IN ('r', 'i', 't', 'S', 'm')")

copy_sql='COPY (SELECT * FROM t ORDER BY ctid) TO STDOUT (FORMAT csv)'
list_sql="SELECT n.nspname, c.relname, c.relkind, pg_relation_filenode(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
cmd_rows() { "$pgpage" rows --types "$types" --toast "$data/$toast" "${segments[@]}"; }
cmd_copy() { "${psql[@]}" -c "$copy_sql"; }

# The bench is void on wrong answers: pgpage's rows must be COPY's, byte for byte.
cmd_copy >"$out/rows-copy.csv"
cmd_rows >"$out/rows-pgpage.csv" 2>"$out/rows-pgpage.err"
if ! cmp -s "$out/rows-copy.csv" "$out/rows-pgpage.csv"; then
    echo "bench: pgpage rows differs from COPY; see $out/rows-*.csv" >&2
    exit 1
fi
copy_lines=$(wc -l <"$out/rows-copy.csv")
rm -f "$out/rows-copy.csv" "$out/rows-pgpage.csv"
listed=$("$pgpage" ls "$data" | wc -l)

# label wall user sys maxrss_kb status server_cpu, one line per run. server_cpu: what the
# server's backends used (user + system), from the postmaster's reaped children's times: a
# backend's CPU is added there when it exits after its psql disconnects.
times=$out/rows-times
: >"$times"
tick=$(getconf CLK_TCK)
postmaster=$(head -1 "$data/postmaster.pid")
reaped() { awk '{print $16 + $17}' "/proc/$postmaster/stat"; }
timed() { # label command...
    local label=$1 status=0 t c0 c1
    shift
    t=$(mktemp)
    c0=$(reaped)
    /usr/bin/time -o "$t" -f '%e %U %S %M' "$@" >/dev/null 2>>"$out/rows-$label.err" || status=$?
    sleep 0.3 # the backend reaped
    c1=$(reaped)
    echo "$label $(tail -1 "$t") $status $(awk -v a="$c0" -v b="$c1" -v t="$tick" 'BEGIN {printf "%.2f", (b - a) / t}')" >>"$times"
    rm -f "$t"
}
for i in $(seq 0 "$runs"); do
    timed rows "$pgpage" rows --types "$types" --toast "$data/$toast" "${segments[@]}"
    if [[ -n ${PGPAGE_BASELINE:-} ]]; then
        timed baseline "$PGPAGE_BASELINE" rows --types "$types" --toast "$data/$toast" "${segments[@]}"
    fi
    timed copy "${psql[@]}" -c "$copy_sql"
    if [[ -n $filedump ]]; then
        timed filedump bash -c 'for s in "${@:3}"; do "$1" -D "$2" "$s" || exit; done' _ "$filedump" "$filedump_types" "${segments[@]}"
    fi
    timed ls "$pgpage" ls "$data"
    timed list "${psql[@]}" -c "$list_sql"
    if ((i == 0)); then : >"$times"; fi # the first round only warms the page cache
done
stop
trap - EXIT

col() { awk -v l="$1" -v c="$2" '$1 == l {print $c}' "$times"; }
median() { sort -n | awk '{v[NR] = $1} END {if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; else print "n/a"}'; }
cpu() { awk -v l="$1" '$1 == l {print $3 + $4}' "$times" | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && a > 0 && b > 0) printf "%.2f", a / b; else print "n/a"}'; }
verdict() {
    if ((smoke)); then echo "not judged in a smoke run"; else
        awk -v r="$1" -v t="$2" 'BEGIN {print (r == "n/a") ? "not measured" : (r + 0 >= t) ? "met" : "NOT met"}'
    fi
}
rows_s=$(col rows 2 | median) copy_s=$(col copy 2 | median) fd_s=$(col filedump 2 | median)
ls_s=$(col ls 2 | median) list_s=$(col list 2 | median)
rss_mb=$(col rows 5 | sort -n | tail -1 | awk '{printf "%.0f", $1 / 1024}')
fd_rss_mb=$(col filedump 5 | sort -n | tail -1 | awk '{if ($1) printf "%.0f", $1 / 1024; else print "n/a"}')
ls_rss_mb=$(col ls 5 | sort -n | tail -1 | awk '{printf "%.0f", $1 / 1024}')
statuses() { col "$1" 6 | sort -u | paste -sd, -; }
runs_of() { col "$1" 2 | paste -sd' ' -; }

echo "## 3. rows and ls (server running, page cache warm)"
echo
echo "Table \`t\` ($types): $((copy_lines)) rows, $((table_bytes / 1048576)) MB in ${#segments[@]} segment(s),"
echo "40 of its text values 200 kB each, external in the TOAST relation. One warm-up round, then"
echo "$runs rounds taken in turn; wall time of the whole process, medians; CPU = user + system of"
echo "the process (above the wall time: more than one core busy). pgpage's rows were first"
echo "checked equal to COPY's, byte for byte."
echo
echo "| command | median s | runs (s) | CPU s (median) | max RSS MB | exit status |"
echo "|---|---:|---|---:|---:|---|"
srv() { col "$1" 7 | median; }
echo "| \`pgpage rows --types $types --toast TOAST FILE...\` | $rows_s | $(runs_of rows) | $(cpu rows) | $rss_mb | $(statuses rows) |"
if [[ -n ${PGPAGE_BASELINE:-} ]]; then
    echo "| the same with $PGPAGE_BASELINE | $(col baseline 2 | median) | $(runs_of baseline) | $(cpu baseline) | $(col baseline 5 | sort -n | tail -1 | awk '{printf "%.0f", $1 / 1024}') | $(statuses baseline) |"
fi
echo "| \`psql -c \"$copy_sql\"\` (CPU: psql's + the backend's) | $copy_s | $(runs_of copy) | $(cpu copy) + $(srv copy) | | $(statuses copy) |"
if [[ -n $filedump ]]; then
    echo "| \`pg_filedump -D $filedump_types\` on each segment ($("$filedump" -h 2>&1 | awk '/^Version/ {print $1, $2; exit}')) | $fd_s | $(runs_of filedump) | $(cpu filedump) | $fd_rss_mb | $(statuses filedump) |"
fi
echo "| \`pgpage ls DATADIR\` ($classes pg_class rows, $with_storage with storage; $listed lines) | $ls_s | $(runs_of ls) | $(cpu ls) | $ls_rss_mb | $(statuses ls) |"
echo "| \`psql -c \"SELECT ... FROM pg_class ...\"\` (names and pg_relation_filenode of every relation; CPU: psql's + the backend's) | $list_s | $(runs_of list) | $(cpu list) + $(srv list) | | $(statuses list) |"
echo
r_copy=$(ratio "$copy_s" "$rows_s") r_fd=$(ratio "$fd_s" "$rows_s")
echo "Targets:"
echo "- rows >= 2x COPY: COPY / pgpage = $r_copy x, $(verdict "$r_copy" 2)."
r_cpu=$(ratio "$(awk -v a="$(cpu copy)" -v b="$(srv copy)" 'BEGIN {print a + b}')" "$(cpu rows)")
echo "  By CPU time (load on a shared machine moves it less): COPY's (backend + psql) / pgpage's = $r_cpu x; pgpage's CPU / wall = $(ratio "$(cpu rows)" "$rows_s") cores busy."
echo "- rows faster than pg_filedump -D: pg_filedump / pgpage = $r_fd x, $(verdict "$r_fd" 1.0001)."
echo "- rows RSS under 200 MB with 200 kB TOAST values: $rss_mb MB, $( ((smoke)) && echo "not judged in a smoke run" || { ((rss_mb < 200)) && echo met || echo "NOT met"; })."
echo "- ls of $with_storage relations under 1 s: $ls_s s, $( ((smoke)) && echo "not judged in a smoke run" || awk -v s="$ls_s" 'BEGIN {print (s + 0 < 1) ? "met" : "NOT met"}')."
echo
echo "pg_filedump prints \"(TOASTED)\" for external values (with -t it stops at the 200 kB ones:"
echo "\"Unable to properly encode a string since it's too large\"), so it does a little less work."
