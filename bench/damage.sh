#!/usr/bin/env bash
# Damage analysis benchmarks, a Markdown section on stdout; bench/run.sh runs it
# after its own parts and it runs alone too:
#   1. single-bit-flip localisation per page (crates/pgpage/examples/bitflip_bench.rs), on
#      the fixture pages a real PostgreSQL wrote, one bit flipped in each;
#   2. `pgpage diff A B` of two 1 GB copies that differ in a few pages, beside `cmp -l A B`
#      (which, unlike plain `cmp`, reads both files to the end) and the bare read of both
#      files (bench/read_floor.c, one thread), page cache warm, alternating runs, medians.
#
#   bench/damage.sh [--smoke]   (smoke: 8 MB copies, one run: checks it runs, not speed)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export PATH="$HOME/.cargo/bin:$PATH"
smoke=0
[[ ${1:-} == --smoke ]] && smoke=1
out=$root/bench/out
mkdir -p "$out"
if ((smoke)); then
    seconds=0.05 mb=8 runs=1 dir=$out/damage-smoke
else
    seconds=${BENCH_SECONDS:-0.5} mb=${BENCH_DIFF_MB:-1024} runs=${BENCH_RUNS:-7}
    dir=${PGPAGE_BENCH_DIR:-/var/tmp/pgpage-bench}/diff$mb
fi
(cd crates && cargo build --quiet --release -p pgpage --example bitflip_bench &&
    cargo build --quiet --release -p pgpage-cli)
[[ -x $out/read_floor ]] || cc -O2 -pthread bench/read_floor.c -o "$out/read_floor"
pgpage=$root/crates/target/release/pgpage

flip_rows=$(crates/target/release/examples/bitflip_bench "$seconds")

# Two copies of one "relation file": random pages, B with one byte changed in 5 pages.
mkdir -p "$dir/a" "$dir/b"
a=$dir/a/16384 b=$dir/b/16384
if [[ ! -f $a || $(stat -c %s "$a") != $((mb << 20)) ]]; then
    head -c $((mb << 20)) /dev/urandom >"$a"
    cp "$a" "$b"
    for block in 1 17 100 $((mb * 64)) $((mb * 128 - 1)); do
        printf '\x5a' | dd of="$b" bs=1 seek=$((block * 8192 + 4321)) conv=notrunc status=none
    done
fi
times=$out/damage-times prefix=damage
: >"$times"
# shellcheck source=bench/timing.sh
source bench/timing.sh
for i in $(seq 0 "$runs"); do
    timed diff "$pgpage" diff "$a" "$b"
    timed cmp cmp -l "$a" "$b"
    timed read sh -c 'printf "%s\n%s\n" "$1" "$2" | "$3" 1' sh "$a" "$b" "$out/read_floor"
    ((i == 0)) && : >"$times" # the first round only warms the page cache
done
listed=$(grep -c ': different' "$out/damage-diff.out" || true)

echo "## Damage analysis"
echo
((smoke)) && echo "(smoke run: tiny data, timings meaningless)" && echo
echo "Single-bit-flip localisation, native, one core: real PostgreSQL pages (tests/fixtures) with"
echo "their checksum stored and one bit flipped; ms per 8 kB page, best and median over ${seconds} s."
echo
echo "| work | best ms/page | median ms/page | candidates found (all pages) |"
echo "|---|---:|---:|---:|"
while IFS=$'\t' read -r label best med found; do
    echo "| $label | $best | $med | $found |"
done <<<"$flip_rows"
echo
echo "\`pgpage diff A B\` of two $mb MB copies differing in 5 pages (found: $listed), page cache warm,"
echo "$runs alternating runs after one warm-up, median wall time:"
echo
echo "| command | median wall s | median CPU s (user + system) | exit status |"
echo "|---|---:|---:|---|"
echo "| \`pgpage diff A B\` | $(median diff) | $(median diff 4) | $(statuses diff) |"
echo "| \`cmp -l A B\` (reads both to the end) | $(median cmp) | $(median cmp 4) | $(statuses cmp) |"
echo "| bare read of A and B (bench/read_floor.c, pread 1 MB units, 1 thread) | $(median read) | $(median read 4) | $(statuses read) |"
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (the machine may be shared)."
