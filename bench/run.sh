#!/usr/bin/env bash
# npm run bench: pgpage side by side with PostgreSQL 15, in one run, on this machine.
#   1. checksum kernel, GB/s on one core, pages in cache: PostgreSQL's own checksum_impl.h
#      (bench/pg_kernel.c) built with Debian's flags and with -O3 -march=native, against every
#      pgpage body (crates/pgpage/examples/kernel_bench.rs), plus the core's wasm bodies
#      (bench/wasm-kernel, with and without simd128) in Node and in headless Chromium;
#   2. CLI end to end: `pgpage verify DATADIR` against `pg_checksums --check -D DATADIR` on
#      the same stopped pgbench cluster, page cache warm, alternating runs, medians and ratio,
#      beside the bare cost of reading the same files (bench/read_floor.c);
#   3. `pgpage rows` against the server's COPY and pg_filedump -D on a 1.2 GB table, and
#      `pgpage ls` of 10,000 relations (bench/rows.sh, its cluster made once by
#      bench/rows-cluster.sh);
#   4. whatever bench/browser.mjs prints, when it exists (browser end to end, memory);
#   5. bench/damage.sh: bit-flip localisation per page, and `pgpage diff` of two 1 GB copies
#      beside `cmp -l` and the bare read of both;
#   6. bench/wal.sh: `pgpage fpi --out` beside `pg_waldump --save-fullpage` on 1 GB of WAL;
#   7. bench/playground.sh: the playground's statement to updated page view, 1,000-page table.
# The report goes to stdout and bench/results.md.
#
#   bench/run.sh           the full run (makes a pgbench scale 70 cluster once, kept in
#                          $PGPAGE_BENCH_DIR, default /var/tmp/pgpage-bench)
#   bench/run.sh --smoke   seconds long, tiny data, report in bench/out/smoke.md; it checks
#                          that every part still runs and agrees, never how fast it is
#
# Hook for the other part (run with node when present, given SECONDS PAGES [--smoke]):
#   bench/browser.mjs      prints its own Markdown section
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export PATH="$HOME/.cargo/bin:$PATH"

smoke=0 smoke_flag=()
if [[ ${1:-} == --smoke ]]; then
    smoke=1 smoke_flag=(--smoke)
fi
pgbin=${PGBIN:-/usr/lib/postgresql/15/bin}
out=$root/bench/out
mkdir -p "$out"
if ((smoke)); then
    seconds=0.02 pages=32 rounds=2 runs=2 scale=0 cluster_dir=$out/smoke-cluster report=$out/smoke.md
else
    seconds=${BENCH_SECONDS:-0.5} pages=32 rounds=${BENCH_ROUNDS:-7} runs=${BENCH_RUNS:-7} scale=${BENCH_SCALE:-70}
    cluster_dir=${PGPAGE_BENCH_DIR:-/var/tmp/pgpage-bench}/pgbench$scale
    report=$root/bench/results.md
fi

# Prerequisites: installed by scripts/bootstrap.sh when it exists and something is missing.
missing() {
    [[ -x $pgbin/pg_checksums && -x $pgbin/pgbench && -x $pgbin/pg_config ]] || return 0
    [[ -f /usr/include/postgresql/15/server/storage/checksum_impl.h ]] || return 0
    command -v cc >/dev/null && command -v cargo >/dev/null && return 1
    return 0
}
if missing; then
    if [[ -f scripts/bootstrap.sh ]]; then
        echo "bench: PostgreSQL 15 server/headers or a compiler missing; running scripts/bootstrap.sh all" >&2
        bash scripts/bootstrap.sh all
    fi
    missing && { echo "bench: need postgresql-15, postgresql-server-dev-15, cc and cargo" >&2; exit 2; }
fi

as_pg=()
if [[ $(id -u) == 0 ]]; then
    as_pg=(runuser -u postgres --)
fi

# --- builds ---------------------------------------------------------------------------------
echo "bench: building" >&2
inc=$("$pgbin/pg_config" --includedir-server)
# shellcheck disable=SC2046 # pg_config --cflags is a list of flags
cc $("$pgbin/pg_config" --cflags) -I"$inc" bench/pg_kernel.c -o "$out/pg_kernel_debian"
cc -O3 -march=native -I"$inc" bench/pg_kernel.c -o "$out/pg_kernel_native"
cc -O2 -pthread bench/read_floor.c -o "$out/read_floor"
(cd crates && cargo build --quiet --release -p pgpage --example kernel_bench &&
    cargo build --quiet --release -p pgpage-cli)
kernel_bench=$root/crates/target/release/examples/kernel_bench
# The core's bodies as a bare wasm module, built with and without simd128, timed in Node.
wasm_builds=()
if command -v node >/dev/null && rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    for build in simd128 plain; do
        flags=""
        [[ $build == simd128 ]] && flags="-C target-feature=+simd128"
        (cd bench/wasm-kernel && CARGO_TARGET_DIR=$out/wasm-kernel-$build RUSTFLAGS=$flags \
            cargo build --quiet --release --target wasm32-unknown-unknown)
        wasm_builds+=("$build")
    done
fi
# The same modules timed in Debian's chromium (Playwright from node_modules, never a
# downloaded browser), when both are there.
chromium=${PGPAGE_CHROMIUM:-/usr/bin/chromium}
in_chromium=0
if ((${#wasm_builds[@]})) && [[ -x $chromium && -d node_modules/@playwright/test ]]; then
    in_chromium=1
fi
# The postgres user may not be able to reach the worktree; run its copy from the cluster dir.
pgpage_src=$root/crates/target/release/pgpage

# --- 1. kernel --------------------------------------------------------------------------------
echo "bench: checksum kernels" >&2
# Rounds interleave the harnesses (one round of every body, then the next), so that when
# the machine is shared every body gets samples from the same stretches of time.
kernel_round() {
    "$out/pg_kernel_debian" "PostgreSQL checksum_impl.h, gcc Debian flags (-O2)" "$seconds" "$pages" 1 2>/dev/null
    "$out/pg_kernel_native" "PostgreSQL checksum_impl.h, gcc -O3 -march=native" "$seconds" "$pages" 1 2>/dev/null
    "$kernel_bench" "$seconds" "$pages" 1
    for build in "${wasm_builds[@]}"; do
        node bench/wasm-kernel/bench.mjs \
            "$out/wasm-kernel-$build/wasm32-unknown-unknown/release/pgpage_wasm_kernel.wasm" \
            "$build build" "$seconds" "$pages" 1
    done
    # One browser per round, launched before its clock starts, so that its rows sample the
    # same stretches of time as the others.
    if ((in_chromium)); then
        local specs=() build
        for build in "${wasm_builds[@]}"; do
            specs+=("$out/wasm-kernel-$build/wasm32-unknown-unknown/release/pgpage_wasm_kernel.wasm=$build build")
        done
        PGPAGE_CHROMIUM=$chromium node bench/wasm-kernel/chromium.mjs "$seconds" "$pages" 1 "${specs[@]}"
    fi
}
kernel_samples=$(for _ in $(seq "$rounds"); do kernel_round; done)
# A harness that failed in a round left its rows out; without them the agreement check below
# would pass on less than it claims. Every label must come once per round, from every engine.
short=$(cut -f1 <<<"$kernel_samples" | sort | uniq -c | awk -v r="$rounds" '$1 != r')
engines_missing=""
if ((${#wasm_builds[@]})) && ! grep -q '(Node ' <<<"$kernel_samples"; then engines_missing+=" Node"; fi
if ((in_chromium)) && ! grep -q '(Chromium ' <<<"$kernel_samples"; then engines_missing+=" Chromium"; fi
if [[ -n $short || -n $engines_missing ]]; then
    echo "bench: kernel rows missing (harness failed?):$engines_missing" >&2
    cut -f1 <<<"$kernel_samples" | sort | uniq -c >&2
    exit 1
fi
# label <TAB> best <TAB> median, labels in first-seen order.
kernel_rows=$(awk -F'\t' '
    !($1 in n) { order[++labels] = $1 }
    { n[$1]++; v[$1, n[$1]] = $2 }
    END {
        for (i = 1; i <= labels; i++) {
            l = order[i]; k = n[l]
            for (a = 1; a <= k; a++) x[a] = v[l, a]
            for (a = 2; a <= k; a++) for (b = a; b > 1 && x[b - 1] + 0 > x[b] + 0; b--) {
                t = x[b]; x[b] = x[b - 1]; x[b - 1] = t
            }
            printf "%s\t%.2f\t%.2f\n", l, x[k], (k % 2) ? x[(k + 1) / 2] : (x[k / 2] + x[k / 2 + 1]) / 2
        }
    }' <<<"$kernel_samples")
# Every body was given the same pages: in one byte order all must print the same check.
checks=$(awk -F'\t' '!/big endian/ {print $4}' <<<"$kernel_samples" | sort -u | wc -l)
be_checks=$(awk -F'\t' '/big endian/ {print $4}' <<<"$kernel_samples" | sort -u | wc -l)
if [[ $checks != 1 || $be_checks -gt 1 ]]; then
    echo "bench: the kernels disagree on the same pages:" >&2
    awk -F'\t' '{print $4 "\t" $1}' <<<"$kernel_samples" | sort -u >&2
    exit 1
fi
# Cycles per page, when perf can count them: fixed work (KERNEL_PASSES), the count of a short
# run subtracted to drop start-up, best of three. Unlike GB/s, barely moved by other load.
cycle_rows=""
# A VM without a PMU makes perf print "<not supported>" and still exit 0.
if perf stat -x, -e cycles:u true 2>&1 >/dev/null | grep -q '^[0-9]'; then
    echo "bench: cycles per page (perf stat)" >&2
    # Node's start-up varies by tens of millions of cycles, so wasm needs far more passes.
    if ((smoke)); then p1=5 p2=45 wasm_p2=45 reps=1; else p1=20 p2=1020 wasm_p2=20020 reps=3; fi
    cycles_of() { perf stat -x, -e cycles:u "$@" 2>&1 >/dev/null | awk -F, '$3 ~ /cycles/ {print $1; exit}'; }
    per_page() { # label command...
        local label=$1 best="" c1 c2 v
        shift
        for _ in $(seq "$reps"); do
            c1=$(KERNEL_PASSES=$p1 cycles_of "$@")
            c2=$(KERNEL_PASSES=$p2 cycles_of "$@")
            v=$(awk -v a="$c1" -v b="$c2" -v n=$(((p2 - p1) * pages)) 'BEGIN {if (a > 0 && b > a) printf "%.0f", (b - a) / n}')
            if [[ -n $v && (-z $best || $v -lt $best) ]]; then best=$v; fi
        done
        printf '%s\t%s\n' "$label" "${best:-n/a}"
    }
    cycle_rows=$(
        per_page "PostgreSQL checksum_impl.h, gcc Debian flags (-O2)" "$out/pg_kernel_debian" x 1 "$pages"
        per_page "PostgreSQL checksum_impl.h, gcc -O3 -march=native" "$out/pg_kernel_native" x 1 "$pages"
        while IFS= read -r label; do
            KERNEL_BODY=$label per_page "$label" "$kernel_bench" 1 "$pages"
        done < <(awk -F'\t' '/^pgpage/ && !/big endian/ {print $1}' <<<"$kernel_rows")
        for build in "${wasm_builds[@]}"; do
            for body in simd128 scalar; do
                [[ $build == plain && $body == simd128 ]] && continue
                p2=$wasm_p2 KERNEL_BODY=$body per_page "wasm $body body, $build build (Node)" node bench/wasm-kernel/bench.mjs \
                    "$out/wasm-kernel-$build/wasm32-unknown-unknown/release/pgpage_wasm_kernel.wasm" "$build build" 1 "$pages"
            done
        done
    )
fi
native_best=$(awk -F'\t' '/-O3 -march=native/ {print $2}' <<<"$kernel_rows")
dispatched_best=$(awk -F'\t' '/^pgpage dispatched/ && !/big endian/ {print $2}' <<<"$kernel_rows")
sse41_best=$(awk -F'\t' '/^pgpage sse4.1\t/ {print $2}' <<<"$kernel_rows")
wasm_best() { # body build engine
    awk -F'\t' -v l="wasm $1 body, $2 build ($3 " 'index($1, l) == 1 {print $2; exit}' <<<"$kernel_rows"
}
chromium_version=$(grep -o -m1 '(Chromium [^)]*)' <<<"$kernel_samples" | tr -d '()' || true)

# --- 2. CLI end to end ------------------------------------------------------------------------
echo "bench: cluster (pgbench scale $scale)" >&2
data=$(bash bench/cluster.sh "$scale" "$cluster_dir")
pgpage=$cluster_dir/pgpage
cp "$pgpage_src" "$pgpage"
chmod 755 "$pgpage"
files=$(find "$data/base" "$data/global" -type f | wc -l)
bytes=$(du -sb "$data/base" "$data/global" | awk '{s += $1} END {print s}')

run_timed() { # label command...: appends "label seconds status" to $out/cli-times
    local label=$1 t0 t1 status=0
    shift
    t0=$EPOCHREALTIME
    "$@" >"$out/cli-$label.out" 2>&1 || status=$?
    t1=$EPOCHREALTIME
    echo "$label $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.4f", b - a}') $status" >>"$out/cli-times"
}
: >"$out/cli-times"
echo "bench: CLI, $runs alternating runs each after one warm-up" >&2
for i in $(seq 0 "$runs"); do
    run_timed pgpage "${as_pg[@]}" "$pgpage" verify "$data"
    run_timed pg_checksums "${as_pg[@]}" "$pgbin/pg_checksums" --check -D "$data"
    # The floor for any tool that reads with read(2): copying the same files out of the
    # page cache and nothing else, on one core and on every core.
    run_timed read1 "${as_pg[@]}" sh -c 'find "$1/base" "$1/global" -type f | "$2" 1' sh "$data" "$out/read_floor"
    run_timed readN "${as_pg[@]}" sh -c 'find "$1/base" "$1/global" -type f | "$2" "$3"' sh "$data" "$out/read_floor" "$(nproc)"
    # ... and reading every byte once after the copy, as a checksum must.
    run_timed touchN "${as_pg[@]}" sh -c 'find "$1/base" "$1/global" -type f | "$2" "$3" touch' sh "$data" "$out/read_floor" "$(nproc)"
    if ((i == 0)); then
        : >"$out/cli-times" # the first pair only warms the page cache
    fi
done
median() { awk -v l="$1" '$1 == l {print $2}' "$out/cli-times" | sort -n |
    awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
statuses() { awk -v l="$1" '$1 == l {print $3}' "$out/cli-times" | sort -u | paste -sd,; }
pgpage_median=$(median pgpage)
pgc_median=$(median pg_checksums)
pgpage_status=$(statuses pgpage)
pgc_status=$(statuses pg_checksums)
cached=unknown
if command -v fincore >/dev/null; then
    cached=$(find "$data/base" "$data/global" -type f -print0 | xargs -0 fincore -bno RES,SIZE 2>/dev/null |
        awk '{r += $1; s += $2} END {if (s) printf "%.0f%% of the files resident in the page cache", 100 * r / s}')
fi

# --- 3. rows and ls ---------------------------------------------------------------------------
echo "bench: rows and ls" >&2
rows_report=$(bash bench/rows.sh "$pgpage_src" "${smoke_flag[@]}")

# --- report -----------------------------------------------------------------------------------
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && a > 0 && b > 0) printf "%.2f", a / b; else print "n/a"}'; }
verdict() {
    if ((smoke)); then
        echo "not judged in a smoke run"
    else
        awk -v r="$1" -v t="$2" 'BEGIN {print (r == "n/a") ? "not measured" : (r + 0 >= t) ? "met" : "NOT met"}'
    fi
}
kernel_ratio=$(ratio "$dispatched_best" "$native_best")
cli_ratio=$(ratio "$pgc_median" "$pgpage_median")
cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
{
    if ((smoke)); then
        echo "# pgpage benchmark (smoke run: tiny data, timings meaningless)"
    else
        echo "# pgpage benchmark"
    fi
    echo
    echo "Command: \`npm run bench\` (bench/run.sh), $(date -u '+%Y-%m-%d %H:%M UTC')."
    echo "CPU: $cpu, $(nproc) cores online (flags: $(grep -m1 -o -w -E 'sse4_1|avx2|avx512f' /proc/cpuinfo | paste -sd' ' -))."
    echo "Compilers: $(cc --version | head -1); $(rustc --version). PostgreSQL: $("$pgbin/pg_config" --version)."
    echo "Load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (the machine may be shared)."
    echo
    echo "## 1. Checksum kernel (one core, 8 KB pages in cache)"
    echo
    echo "$pages pages ($((pages * 8)) KB) checksummed over and over, pg_checksum_page's full work"
    echo "(fold, block number, reduction) per page; $seconds s per round, $rounds rounds taken in turn"
    echo "across all bodies, best and median."
    echo
    echo "| body | best GB/s | median GB/s | best vs PG -O3 -march=native |"
    echo "|---|---:|---:|---:|"
    while IFS=$'\t' read -r label best med _; do
        echo "| $label | $best | $med | $(ratio "$best" "$native_best")x |"
    done <<<"$kernel_rows"
    echo
    if [[ -n $cycle_rows ]]; then
        native_cycles=$(awk -F'\t' '/-O3 -march=native/ {print $2}' <<<"$cycle_rows")
        echo "Cycles per 8 KB page in user space (\`perf stat -e cycles:u\`, fixed work, start-up"
        echo "subtracted, best of three): load on a shared machine moves these far less than GB/s."
        echo
        echo "| body | cycles/page | PG -O3 -march=native / body |"
        echo "|---|---:|---:|"
        while IFS=$'\t' read -r label c; do
            echo "| $label | $c | $(ratio "$native_cycles" "$c")x |"
        done <<<"$cycle_rows"
        echo
    fi
    echo "Same work checked: on these pages every little-endian body's xor of pg_checksum_page(page i, i)"
    echo "is $(awk -F'\t' '!/big endian/ {print $4; exit}' <<<"$kernel_samples"), as PostgreSQL's own header computes (the big-endian rows agree among themselves)."
    echo
    echo "wasm rows: bench/wasm-kernel (the core's bodies exported bare, no bindings), timed by"
    if [[ -n $chromium_version ]]; then
        echo "bench/wasm-kernel/kernel.mjs in Node $(node --version) and, the same code, in headless $chromium_version"
        echo "($chromium driven by Playwright; launch and load untimed)."
    else
        echo "bench/wasm-kernel/kernel.mjs in Node $(node --version) (Chromium not measured: no $chromium"
        echo "or no node_modules/@playwright/test)."
    fi
    echo "Each body first runs 0.1 s untimed, so that V8 has tiered it up from Liftoff. The"
    echo "\"plain build\" has no simd128, so its scalar body is truly scalar."
    echo
    echo "Targets:"
    cyc() { awk -F'\t' -v l="$1" '$1 ~ l {print $2; exit}' <<<"$cycle_rows"; }
    by_cycles() { # faster slower-label faster-label
        [[ -n $cycle_rows ]] || return 0
        local r
        r=$(ratio "$(cyc "$1")" "$(cyc "$2")")
        echo " By cycles: $r x, $(verdict "$r" "$3")."
    }
    echo "- native dispatch >= 0.9x PostgreSQL's header at gcc -O3 -march=native: by best GB/s $kernel_ratio x, $(verdict "$kernel_ratio" 0.9).$(by_cycles '-O3 -march=native' '^pgpage dispatched' 0.9)"
    for engine in Node Chromium; do
        simd=$(wasm_best simd128 simd128 "$engine") plain=$(wasm_best scalar plain "$engine")
        [[ -n $simd ]] || continue
        r1=$(ratio "$simd" "$sse41_best") r2=$(ratio "$simd" "$plain")
        c1="" c2="" # perf counts Node's cycles only
        if [[ $engine == Node ]]; then
            c1=$(by_cycles '^pgpage sse4.1' '^wasm simd128 body' 0.8)
            c2=$(by_cycles '^wasm scalar body, plain' '^wasm simd128 body' 6)
        fi
        echo "- wasm simd128 ($engine) >= 0.8x native SSE4.1: by best GB/s $r1 x, $(verdict "$r1" 0.8).$c1"
        echo "- wasm simd128 ($engine) >= 6x wasm scalar (plain build, $engine): by best GB/s $r2 x, $(verdict "$r2" 6).$c2"
    done
    echo
    echo "## 2. CLI end to end (stopped cluster, page cache warm)"
    echo
    if ((scale == 0)); then made="a bare initdb -k"; else made="pgbench -i -s $scale"; fi
    echo "Cluster: $made, data checksums on, $files files, $((bytes / 1048576)) MB in base/ and global/ ($cached)."
    echo "One warm-up pair, then $runs alternating runs each; wall time of the whole process."
    echo
    echo "| command | median s | runs (s) | exit status |"
    echo "|---|---:|---|---|"
    echo "| \`pgpage verify DATADIR\` | $pgpage_median | $(awk '$1 == "pgpage" {print $2}' "$out/cli-times" | paste -sd' ') | $pgpage_status |"
    echo "| \`pg_checksums --check -D DATADIR\` | $pgc_median | $(awk '$1 == "pg_checksums" {print $2}' "$out/cli-times" | paste -sd' ') | $pgc_status |"
    echo "| bare read (bench/read_floor.c: pread 1 MB units, no checksum), 1 thread | $(median read1) | $(awk '$1 == "read1" {print $2}' "$out/cli-times" | paste -sd' ') | $(statuses read1) |"
    echo "| bare read, $(nproc) threads | $(median readN) | $(awk '$1 == "readN" {print $2}' "$out/cli-times" | paste -sd' ') | $(statuses readN) |"
    echo "| bare read and one pass over the bytes read (XOR, no checksum), $(nproc) threads | $(median touchN) | $(awk '$1 == "touchN" {print $2}' "$out/cli-times" | paste -sd' ') | $(statuses touchN) |"
    echo
    echo "Ratio pg_checksums / pgpage: $cli_ratio x. Target >= 4x: $(verdict "$cli_ratio" 4)."
    echo "Bound for a read(2)-based tool: pg_checksums / bare parallel read = $(ratio "$pgc_median" "$(median readN)") x; for one that also reads every byte once (a checksum must): pg_checksums / read and XOR = $(ratio "$pgc_median" "$(median touchN)") x."
    echo
    echo "pg_checksums said: $(grep -E 'Blocks scanned|Bad checksums' "$out/cli-pg_checksums.out" | tr -s ' ' | paste -sd';' -)"
    echo "pgpage said: $(tail -n 4 "$out/cli-pgpage.out" | tr -s ' ' | paste -sd';' -)"
    echo
    echo
    echo "$rows_report"
    echo
    echo "What bounds these figures, with measurements: bench/NOTES.md."
    if [[ -f bench/browser.mjs ]]; then
        echo
        PGPAGE_BENCH_DATADIR=$data node bench/browser.mjs "$seconds" "$pages" "${smoke_flag[@]}"
    fi
    echo
    bash bench/damage.sh "${smoke_flag[@]}"
    echo
    bash bench/wal.sh "${smoke_flag[@]}"
    # The playground's figure: statement to updated page view in chromium. A
    # failure says so in the report instead of ending the run's other figures.
    echo
    echo "## Playground (PGlite in the page)"
    echo
    if [[ -x $chromium && -d node_modules/@playwright/test ]]; then
        bash bench/playground.sh "${smoke_flag[@]}" || echo "Playground: not measured (bench/playground.sh failed; run it alone to see why)."
    else
        echo "Playground: not measured (no $chromium or no node_modules/@playwright/test)."
    fi
} | tee "$report"

# Both tools must agree on the cluster (clean: both exit 0); a bench on wrong answers is void.
if [[ $pgpage_status != "$pgc_status" ]]; then
    echo "bench: pgpage exited $pgpage_status but pg_checksums $pgc_status; see $out/cli-*.out" >&2
    exit 1
fi
