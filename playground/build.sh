#!/usr/bin/env bash
# Builds the playground into playground/dist/: index.html, app.js, app.css and the engine
# compiled to WebAssembly. Installs what it needs on a fresh machine: the wasm32 target
# (rustup), wasm-bindgen-cli of exactly the version of the wasm-bindgen crate (cargo
# install), and the page's npm packages (npm ci: esbuild, CodeMirror, binaryen's wasm-opt).
set -euo pipefail
cd "$(dirname "$0")"
here=$(pwd)
repo=$(cd .. && pwd)
target_dir=${CARGO_TARGET_DIR:-$repo/target}
max_wasm_bytes=3000000

step() { printf '== %s\n' "$*"; }

# The wasm-bindgen crate's version, pinned with '=' in Cargo.toml: the CLI must equal it.
bindgen_version=$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)".*/\1/p' Cargo.toml)
if [ -z "$bindgen_version" ]; then
  echo "build.sh: no 'wasm-bindgen = \"=X.Y.Z\"' in playground/Cargo.toml" >&2
  exit 1
fi

if ! rustc --print target-libdir --target wasm32-unknown-unknown 2>/dev/null | xargs test -d; then
  step "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

cargo_bin="${CARGO_HOME:-$HOME/.cargo}/bin"
bindgen="$cargo_bin/wasm-bindgen"
if [ "$("$bindgen" --version 2>/dev/null || true)" != "wasm-bindgen $bindgen_version" ]; then
  step "cargo install wasm-bindgen-cli $bindgen_version"
  # Without the TLS features: the CLI only post-processes the module here. (Not --locked:
  # the CLI's own lock file names a dependency version the registry no longer serves.)
  cargo install wasm-bindgen-cli --version "=$bindgen_version" --no-default-features --force
fi

if [ ! -x node_modules/.bin/esbuild ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  step "npm ci"
  npm ci --no-audit --no-fund
fi

step "cargo build (wasm32-unknown-unknown, profile wasm-release)"
cargo build -p matchcond-playground --target wasm32-unknown-unknown --profile wasm-release

step "wasm-bindgen"
mkdir -p build/pkg dist
"$bindgen" --target web --no-typescript --remove-name-section --remove-producers-section \
  --out-dir build/pkg "$target_dir/wasm32-unknown-unknown/wasm-release/matchcond_playground.wasm"

# wasm-opt is slow (about a minute): its output is kept for an unchanged input.
wasm_in=build/pkg/matchcond_playground_bg.wasm
if [ -f build/opt.input.wasm ] && [ -f build/opt.wasm ] && cmp -s "$wasm_in" build/opt.input.wasm; then
  step "wasm-opt (unchanged module, kept)"
else
  step "wasm-opt -Oz"
  node_modules/.bin/wasm-opt -Oz \
    --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue \
    "$wasm_in" -o build/opt.wasm
  cp "$wasm_in" build/opt.input.wasm
fi
cp build/opt.wasm dist/matchcond_playground_bg.wasm

step "bundle the page"
node scripts/bundle.mjs

raw=$(wc -c < dist/matchcond_playground_bg.wasm)
gz=$(gzip -9 -c dist/matchcond_playground_bg.wasm | wc -c)
echo "wasm module: $raw bytes ($gz gzip -9)"
if [ "$raw" -gt "$max_wasm_bytes" ]; then
  echo "build.sh: the wasm module is larger than $max_wasm_bytes bytes" >&2
  exit 1
fi
echo "built $here/dist (serve it: python3 -m http.server -d playground/dist 8000)"
