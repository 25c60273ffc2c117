#!/usr/bin/env bash
# vier in the browser as a folder of static files (docs/web.md): the engine and the page's game
# compiled to WebAssembly (web/engine) as vier.wasm.gz, the 7x6 book of every position with up
# to 9 discs cut from the built-in book as 7x6.book.gz, vier gui's page with the backend that
# needs no server (web/backend.js), the engine's worker, and the service worker (sw.js) that
# keeps the build's files for a reload without the network.
#
#   tools/web.sh [OUT]              (default: target/web)
#   python3 -m http.server -d target/web    # any static file server will do
#
# Needs the wasm32-unknown-unknown target (rustup target add wasm32-unknown-unknown) and cargo;
# downloads nothing but crates from crates.io. VIER=path/to/vier uses that binary to cut the
# book instead of building target/release/vier.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/web}
started=$(date +%s)
say() { printf 'tools/web.sh: %s\n' "$*" >&2; }

if command -v rustup >/dev/null &&
    ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    say "the wasm32-unknown-unknown target is missing: rustup target add wasm32-unknown-unknown"
    exit 1
fi

say "cargo build --release --target wasm32-unknown-unknown --manifest-path web/engine/Cargo.toml"
cargo build --release --target wasm32-unknown-unknown --manifest-path web/engine/Cargo.toml
wasm=${CARGO_TARGET_DIR:-web/engine/target}/wasm32-unknown-unknown/release/vier_web.wasm

vier=${VIER:-}
if [ -z "$vier" ]; then
    say "cargo build --release (vier book cut makes the page's book)"
    cargo build --release
    vier=${CARGO_TARGET_DIR:-target}/release/vier
fi

# a folder this script made before is made again from nothing (no file of an older layout
# stays); any other folder is left alone
marker=.made-by-tools-web.sh
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ] && [ ! -e "$out/$marker" ]; then
    say "$out exists and was not made by tools/web.sh: name an empty or new folder"
    exit 1
fi
rm -rf "$out"
mkdir -p "$out"
touch "$out/$marker"
# gzipped: half the size (the worker unpacks them with the browser's DecompressionStream)
gzip -9 -n -c "$wasm" >"$out/vier.wasm.gz"
book=$(mktemp --suffix .book)
trap 'rm -f "$book"' EXIT
"$vier" book cut --depth 9 --out "$book" >&2
gzip -9 -n -c "$book" >"$out/7x6.book.gz"
say "unpacked: vier.wasm $(wc -c <"$wasm") bytes, 7x6.book $(wc -c <"$book") bytes"
# the page is vier gui's own (src/gui/web, not copied in the repository); its backend.js here is
# web/backend.js, the game and the engine in this browser, where vier gui serves server.js
cp src/gui/web/index.html src/gui/web/app.js src/gui/web/style.css src/gui/web/icon.svg \
    src/gui/web/manifest.webmanifest "$out/"
cp web/backend.js web/engine.js web/wasm.js web/worker.js "$out/"
# the service worker keeps this build's files for a reload without the network: each file with
# its SHA-256 (checked as it is cached), and the build's hash, of all of them, names its cache
files=""
for f in "$out"/*; do
    [ -f "$f" ] || continue
    sum=$(sha256sum "$f" | cut -d' ' -f1)
    files="$files${files:+, }[\"$(basename "$f")\", \"$sum\"]"
done
build=$(printf '%s' "$files" | sha256sum | cut -c1-16)
sed -e "s|/\*BUILD\*/|$build|" -e "s|/\*FILES\*/ \[\]|[$files]|" web/sw.js >"$out/sw.js"
say "build $build"

total=0
for f in "$out"/*; do
    [ -f "$f" ] || continue
    n=$(wc -c <"$f")
    total=$((total + n))
    printf '%-22s %10d\n' "$(basename "$f")" "$n" >&2
done
printf '%-22s %10d\n' total "$total" >&2
say "built $out in $(($(date +%s) - started)) s"
# the issue's budget for the first load: page, engine and book
limit=5000000
if [ "$total" -gt "$limit" ]; then
    say "the folder holds $total bytes, more than $limit"
    exit 1
fi
