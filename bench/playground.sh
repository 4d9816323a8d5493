#!/usr/bin/env bash
# The playground's figure: statement to updated page view for a table of 1,000 pages, median
# of PGPAGE_BENCH_RUNS runs (default 9) in headless chromium, on the built app (dist/).
# bench/run.sh prints it with the other figures.
#   bench/playground.sh [--smoke]  PGPAGE_PORT picks the preview port (default 4317); smoke:
#                                  a 10-page table, one run: checks it runs, not speed
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${1:-} == --smoke ]]; then
    export PGPAGE_BENCH_RUNS=1 PGPAGE_BENCH_PAGES=10
fi
[[ -f dist/index.html ]] || npx vite build --logLevel warn
line=$(npx playwright test -c tests/browser-bench playground.bench.spec.ts 2>&1 | grep -o 'PLAYGROUND_BENCH.*' || true)
if [[ -z $line ]]; then
    echo "playground bench failed to run" >&2
    exit 2
fi
echo "$line"
median=$(sed -E 's/.* median_ms=([0-9]+).*/\1/' <<<"$line")
worker=$(sed -E 's/.*worker_median_ms=([0-9.]+).*/\1/' <<<"$line")
pages=$(sed -E 's/.*pages=([0-9]+).*/\1/' <<<"$line")
answer=$(sed -E 's/.*answer_median_ms=([0-9]+).*/\1/' <<<"$line")
opened=$(sed -E 's/.*opened_median_ms=([0-9]+).*/\1/' <<<"$line")
echo "Playground: statement to updated page view, ${pages}-page table: median ${median} ms (the worker's statement + CHECKPOINT + reading the files ${worker} ms; its answer on the page at ${answer} ms; snapshot added and opened at ${opened} ms)"
