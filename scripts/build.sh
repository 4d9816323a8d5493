#!/usr/bin/env bash
# Builds the CLI (release), the wasm bindings and the static app into dist/.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
(cd crates && cargo build --release --quiet -p pgpage-cli)
bash scripts/build-wasm.sh
npx vite build --logLevel warn
