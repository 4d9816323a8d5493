#!/usr/bin/env bash
# npm test: install what is missing, build, then every test: Rust (fmt, clippy, unit and
# integration), prettier, eslint, the PostgreSQL differential tests and TypeScript units (Vitest), the
# browser tests (Playwright in Debian's chromium), and a seconds-long benchmark smoke run.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
step() { printf '\n=== %s\n' "$*"; }

step bootstrap
bash scripts/bootstrap.sh all
step build
bash scripts/build.sh
step "cargo fmt --check"
(cd crates && cargo fmt --all --check)
step "cargo clippy"
(cd crates && cargo clippy --quiet --workspace --all-targets -- -D warnings)
step "prettier --check"
npx prettier --check .
step "eslint (typescript-eslint strict, type-checked)"
npx eslint .
step "cargo test"
(cd crates && cargo test --workspace --release)
step "TypeScript types of the core's JSON (ts-rs; fails and rewrites web/src/core/generated/ when stale)"
(cd crates && cargo test --release -p pgpage-wasm --features ts ts_export)
step "typescript"
npx tsc --noEmit -p .
step "vitest (web units, wasm bindings in Node, PostgreSQL differential tests)"
npx vitest run
step "playwright (chromium)"
npx playwright test
step "benchmark smoke run"
bash bench/run.sh --smoke
