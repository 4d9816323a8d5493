#!/usr/bin/env bash
# Builds the wasm bindings twice with wasm-pack (--target web): web/pkg with simd128 and
# web/pkg-scalar without, chosen at load time with wasm-feature-detect. Then wasm-opt -O3
# from binaryen when a recent one is present (wasm-pack cannot download its own here).
# Idempotent: skips a build whose output is newer than every Rust source it depends on.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

newest_src=$(find crates/pgpage crates/pgpage-wasm crates/Cargo.toml crates/Cargo.lock \
  -type f \( -name '*.rs' -o -name '*.toml' -o -name Cargo.lock \) -printf '%T@\n' | sort -n | tail -1)

build() { # out-dir rustflags
  local out=$1 flags=$2 wasm="$1/pgpage_wasm_bg.wasm"
  if [ -f "$wasm" ] && [ -f "$out/pgpage_wasm.js" ] &&
     awk -v a="$(stat -c %Y "$wasm")" -v b="$newest_src" 'BEGIN{exit !(a>=b)}'; then
    return 0
  fi
  echo "build-wasm: $out (RUSTFLAGS='$flags')" >&2
  # Separate target dirs so the two flavours do not rebuild each other.
  RUSTFLAGS="$flags" CARGO_TARGET_DIR="$PWD/crates/target/wasm-$(basename "$out")" \
    wasm-pack --log-level warn build crates/pgpage-wasm --target web --release \
    --no-pack --out-dir "../../$out" >&2
  # binaryen before 116 rewrites wasm-bindgen's externref table as anyref, which V8 rejects.
  local wo_version
  wo_version=$(wasm-opt --version 2>/dev/null | sed -n 's/^wasm-opt version \([0-9]*\).*/\1/p')
  if [ "${wo_version:-0}" -ge 116 ]; then
    local feat=()
    [[ $flags == *simd128* ]] && feat=(--enable-simd)
    wasm-opt -O3 "${feat[@]}" --enable-bulk-memory --enable-nontrapping-float-to-int \
      --enable-sign-ext --enable-mutable-globals "$wasm" -o "$wasm.opt" && mv "$wasm.opt" "$wasm"
  fi
  rm -f "$out/.gitignore"
}

build web/pkg '-C target-feature=+simd128'
build web/pkg-scalar ''
