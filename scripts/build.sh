#!/usr/bin/env bash
# Builds the wasm bindings, the static app into dist/, and the CLI (release), which carries it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
bash scripts/build-wasm.sh
npx vite build --logLevel warn
# After the app: the CLI carries dist/ for `pgpage serve`.
(cd crates && cargo build --release --quiet -p pgpage-cli)
