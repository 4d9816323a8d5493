#!/usr/bin/env bash
# Runs one cargo-fuzz target by hand (not part of npm test): nightly Rust and cargo-fuzz,
# seeded with real PostgreSQL pages (tests/fixtures/*/page.bin and the pages of
# public/samples/*), each behind the one head byte every target reads first. Unseeded, the
# file_verify target plateaued at 61 edges in 4M runs: random bytes never grow into a page.
#   scripts/fuzz.sh TARGET [RUNS]     TARGET: page_status | file_verify | page_decode | inspect_json
#                                     | value_output | pglz | toast_reassemble | catalog_reader
# FUZZ_SANITIZER=none runs without AddressSanitizer (the default is cargo fuzz's, address):
# the core is safe Rust but for its SIMD loads, and the decode targets run several times
# faster without it. FUZZ_JOBS=N runs N fuzzing processes on one corpus, RUNS runs each
# (logs in crates/fuzz-N.log).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
target=${1:?usage: scripts/fuzz.sh TARGET [RUNS]}
runs=${2:-10000000}
rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
command -v cargo-fuzz >/dev/null || cargo install --locked cargo-fuzz
seeds=crates/fuzz/corpus/seeds
if [ ! -d "$seeds" ]; then
  mkdir -p "$seeds"
  for p in tests/fixtures/*/page.bin; do
    n=$(basename "$(dirname "$p")")
    { printf '\000'; cat "$p"; } > "$seeds/$n"
    { printf '\005'; cat "$p" "$p"; } > "$seeds/${n}_twice"
  done
  for f in public/samples/*; do
    [ "$(basename "$f")" = manifest.json ] && continue
    { printf '\000'; head -c 8192 "$f"; } > "$seeds/sample_$(basename "$f")"
  done
fi
mkdir -p "crates/fuzz/corpus/$target"
cd crates
jobs=${FUZZ_JOBS:-1}
extra=()
((jobs > 1)) && extra=(-jobs="$jobs" -workers="$jobs")
exec cargo +nightly fuzz run -O -s "${FUZZ_SANITIZER:-address}" "$target" "fuzz/corpus/$target" "fuzz/corpus/seeds" -- \
  -runs="$runs" -max_len=40000 "${extra[@]}"
