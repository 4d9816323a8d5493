#!/usr/bin/env bash
# Builds PostgreSQL 19 from ../shared/postgresql-19 (no registry here serves a 19 build), twice:
# the tree as it branched (pg_control 1902, as clusters made by the 19 betas have) and the
# tree with pg_control-1903.patch (pg_control 1903, as 19.0 ships). Server, client tools and
# the contrib modules the tests ask (CONTRIB below). Each build is cached outside the clone,
# keyed by the source's and the patch's checksums, so a second clone on the same machine builds
# nothing; a module added to CONTRIB later is built alone against the cached install (PGXS).
#   scripts/pg19.sh          build what is missing; prints the two install directories
#   scripts/pg19.sh --where  print them only (nothing built)
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'pg19: %s\n' "$*" >&2; }

src=${PGPAGE_PG19_SOURCE:-../shared/postgresql-19}
[ -d "$src" ] && src=$(cd "$src" && pwd)
[ -d "$src" ] || src=/work/shared/postgresql-19
# Not under a home directory: the tests run these binaries as the postgres user, who cannot
# enter root's home.
if [ "$(id -u)" = 0 ]; then cache=${PGPAGE_CACHE:-/var/cache/pgpage}; else cache=${PGPAGE_CACHE:-$HOME/.cache/pgpage}; fi
tarball=$(ls "$src"/postgresql-19-*.tar.xz 2>/dev/null | head -n 1 || true)
patch_file=$src/pg_control-1903.patch
if [ -z "$tarball" ] || [ ! -f "$patch_file" ]; then
  say "no PostgreSQL 19 source in $src (postgresql-19-*.tar.xz and pg_control-1903.patch)"
  exit 1
fi
key=$(cat "$tarball" "$patch_file" | sha256sum | cut -c1-12)
# Every extension a test creates on 19.
CONTRIB=(pageinspect amcheck pg_walinspect pg_visibility pg_surgery pg_freespacemap bloom btree_gin hstore pg_trgm)
dir_for() { printf '%s/pg19-%s-%s' "$cache" "$key" "$1"; }

if [ "${1:-}" = --where ]; then
  dir_for 1902; echo; dir_for 1903; echo
  exit 0
fi

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    say "need root to run: $*"; return 1; fi
}

need=()
command -v bison >/dev/null || need+=(bison)
command -v flex >/dev/null || need+=(flex)
command -v pkg-config >/dev/null || need+=(pkg-config)
command -v make >/dev/null || need+=(make)
command -v cc >/dev/null || need+=(gcc libc6-dev)
for h in lz4.h zstd.h readline/readline.h zlib.h unicode/ucol.h; do
  [ -f /usr/include/$h ] || case $h in
    lz4.h) need+=(liblz4-dev) ;; zstd.h) need+=(libzstd-dev) ;;
    readline/readline.h) need+=(libreadline-dev) ;; zlib.h) need+=(zlib1g-dev) ;;
    unicode/ucol.h) need+=(libicu-dev) ;;
  esac
done
if [ ${#need[@]} -gt 0 ]; then
  say "apt-get install ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -qq
  as_root apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

build() { # variant: 1902 or 1903
  local variant=$1 prefix tmp
  prefix=$(dir_for "$variant")
  if [ -x "$prefix/bin/postgres" ] && [ -f "$prefix/.complete" ]; then
    return 0
  fi
  say "building PostgreSQL 19 (pg_control $variant) into $prefix"
  rm -rf "$prefix"
  mkdir -p "$cache"
  tmp=$(mktemp -d "$cache/build-$variant.XXXXXX")
  tar -xJf "$tarball" -C "$tmp"
  local tree
  tree=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -n 1)
  [ -f "$tree/configure" ] || tree=$tmp
  if [ "$variant" = 1903 ]; then
    (cd "$tree" && patch -p1 -s <"$patch_file")
  fi
  (
    cd "$tree"
    ./configure --quiet --prefix="$prefix" --with-lz4 --with-zstd --with-icu \
      --without-readline CFLAGS=-O2 >/dev/null
    make -s -j"$(nproc)" >/dev/null
    make -s install >/dev/null
    for m in "${CONTRIB[@]}"; do
      make -s -C "contrib/$m" -j"$(nproc)" install >/dev/null
    done
  )
  # The tests run the server as the postgres user.
  chmod -R a+rX "$prefix"
  touch "$prefix/.complete"
  rm -rf "$tmp"
}

# A cached build that lacks modules CONTRIB names now: each built by PGXS against the install.
add_contrib() { # variant
  local prefix tmp m missing=()
  prefix=$(dir_for "$1")
  for m in "${CONTRIB[@]}"; do
    [ -f "$prefix/share/postgresql/extension/$m.control" ] || missing+=("$m")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  say "building ${missing[*]} for PostgreSQL 19 (pg_control $1)"
  tmp=$(mktemp -d "$cache/contrib-$1.XXXXXX")
  tar -xJf "$tarball" -C "$tmp" --wildcards $(printf "*/contrib/%s/* " "${missing[@]}")
  for m in "${missing[@]}"; do
    make -s -C "$(echo "$tmp"/*/contrib/"$m")" USE_PGXS=1 PG_CONFIG="$prefix/bin/pg_config" install >/dev/null
  done
  chmod -R a+rX "$prefix"
  rm -rf "$tmp"
}

build 1902
build 1903
add_contrib 1902
add_contrib 1903
dir_for 1902; echo; dir_for 1903; echo
