#!/usr/bin/env bash
# The outside author's path (issue 36), as a CI step of .ci/run: what an adapter author outside
# this repository does, done outside the checkout, against the crates as a registry would ship
# them.
#
# 1. `cargo package` the model, the SDK and the testing crate (gapscore-core and gapscore-fold
#    are packaged beside them only because the testing crate's optional `score` feature names
#    core; no build below turns it on). Packaging verifies each .crate by building it alone.
# 2. Unpack the three .crate files in a `mktemp -d` directory, outside the checkout.
# 3. The three examples, built and run from their READMEs: the command blocks marked
#    `<!-- author-path: run -->` are extracted and run verbatim (bash -e), so a README that
#    drifts fails here. The Rust template is copied out and pointed at the unpacked crates with
#    `[patch.crates-io]` (the workspace's Cargo.lock copied in: the same versions, no network);
#    the C and Python examples run in a copy of the files their blocks name.
# 4. `gapscore new-adapter` in each language, outside the checkout: built, its own tests run,
#    loaded and a fixture scored.
# Every score is checked by its numbers. `gapscore` on PATH is this checkout's debug build.
#
# Usage: .ci/author-path.sh (from anywhere; needs cargo, cc, make, python3).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
start=${SECONDS}

export CARGO_INCREMENTAL=0
# Everything the builds below need is in the registry cache the workspace's build filled.
export CARGO_NET_OFFLINE=true

echo "--> packaging gapscore-model, gapscore-adapter-sdk, gapscore-adapter-testing"
# cargo unpacks the packaged crates it verifies against into $CARGO_HOME/registry/src/<hash of the
# overlay's path>/NAME-VERSION and reuses a copy already there: a checkout at the same path that
# packaged an older gapscore-model of the same version would be verified against that one (seen
# in CI, 2026-11-29). No gapscore crate comes from a registry, so their unpacked copies go first.
rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/gapscore-*
cargo package --locked --offline -p gapscore-model -p gapscore-fold -p gapscore-adapter-sdk \
  -p gapscore-core -p gapscore-adapter-testing
cargo build --locked -p gapscore

work=$(mktemp -d)
trap 'rm -rf "${work}"' EXIT
case "${work}" in
  "${repo}"/*) echo "mktemp -d gave a directory inside the checkout: ${work}" >&2; exit 1 ;;
esac
mkdir -p "${work}/crates" "${work}/bin"
for krate in gapscore-model gapscore-adapter-sdk gapscore-adapter-testing; do
  version=$(cargo metadata --locked --offline --format-version 1 --no-deps \
    | python3 -c "import json,sys; print(next(p['version'] for p in json.load(sys.stdin)['packages'] if p['name'] == '${krate}'))")
  tar -xzf "target/package/${krate}-${version}.crate" -C "${work}/crates"
  mv "${work}/crates/${krate}-${version}" "${work}/crates/${krate}"
done
ln -s "${repo}/target/debug/gapscore" "${work}/bin/gapscore"
export PATH="${work}/bin:${PATH}"
# The Rust builds share one target directory of their own (never the checkout's).
export CARGO_TARGET_DIR="${work}/target"

# Points a crate copied out at the unpacked crates, with the workspace's lock file (cargo adds
# the crate's own entry and drops what it does not use; the versions stay the lock's).
patch_crates() {
  {
    echo
    echo "[patch.crates-io]"
    echo "gapscore-model = { path = \"${work}/crates/gapscore-model\" }"
    echo "gapscore-adapter-sdk = { path = \"${work}/crates/gapscore-adapter-sdk\" }"
    if grep -q '^gapscore-adapter-testing' "$1/Cargo.toml"; then
      echo "gapscore-adapter-testing = { path = \"${work}/crates/gapscore-adapter-testing\" }"
    fi
  } >> "$1/Cargo.toml"
  cp "${repo}/Cargo.lock" "$1/Cargo.lock"
}

# The blocks of a README marked `<!-- author-path: run -->`, as one script.
readme_blocks() {
  awk '
    /<!-- author-path: run -->/ { marked = 1; next }
    marked && /^```sh/ { inside = 1; marked = 0; next }
    inside && /^```/ { inside = 0; next }
    inside { print }
  ' "$1"
}

# Runs the marked blocks of README $1 in directory $2; fails when it has none.
run_readme() {
  local script
  script=$(readme_blocks "$1")
  if [ -z "${script}" ]; then
    echo "$1 has no block marked <!-- author-path: run -->" >&2
    exit 1
  fi
  echo "--> $1, its marked blocks, in $2"
  (cd "$2" && bash -euo pipefail -c "${script}")
}

# Checks a JSON report's sealed counts: check_report FILE TOTAL PASSED.
check_report() {
  python3 - "$@" <<'EOF'
import json, sys
path, total, passed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sealed = json.load(open(path))["sealed_tests"]
if (sealed["total"], sealed["passed"]) != (total, passed):
    sys.exit(f"{path}: sealed {sealed}, expected {total} tests, {passed} passed")
print(f"{path}: {passed} of {total} passed, as expected")
EOF
}

# --- The Rust template, copied out as its README says.
cp -r adapters/examples/rust-template "${work}/rust-template"
patch_crates "${work}/rust-template"
run_readme adapters/examples/rust-template/README.md "${work}/rust-template"
check_report "${work}/rust-template/template-report.json" 4 1

# --- The C example: its README's blocks in a copy of the files they name.
mkdir -p "${work}/c-lines/adapters/examples" "${work}/c-lines/adapters/sdk"
cp -r adapters/sdk/include "${work}/c-lines/adapters/sdk/include"
cp -r adapters/examples/c-lines "${work}/c-lines/adapters/examples/c-lines"
run_readme adapters/examples/c-lines/README.md "${work}/c-lines"
check_report "${work}/c-lines/c-lines-report.json" 9 2

# --- The Python example, likewise (it reads the C example's format and fixtures).
mkdir -p "${work}/python-lines/adapters/examples"
cp -r adapters/examples/python-lines "${work}/python-lines/adapters/examples/python-lines"
cp -r adapters/examples/c-lines "${work}/python-lines/adapters/examples/c-lines"
run_readme adapters/examples/python-lines/README.md "${work}/python-lines"
check_report "${work}/python-lines/python-lines-report.json" 9 2

# --- gapscore new-adapter, each language, outside the checkout.
cd "${work}"
echo "--> gapscore new-adapter demo-rs --lang rust"
gapscore new-adapter demo-rs --lang rust --dir new-rust
patch_crates new-rust
(cd new-rust && cargo test && cargo build --release)
gapscore score --plugin "${CARGO_TARGET_DIR}/release/libgapscore_adapter_demo_rs.so" \
  --sealed new-rust/tests/fixtures/valid/example.demo-rs --format json -o new-rust.json
check_report new-rust.json 3 1

echo "--> gapscore new-adapter demo-c --lang c"
gapscore new-adapter demo-c --lang c --dir new-c
make -C new-c test
gapscore score --plugin new-c/libgapscore_adapter_demo_c.so \
  --sealed new-c/tests/fixtures/valid/example.demo-c --format json -o new-c.json
check_report new-c.json 3 1

echo "--> gapscore new-adapter demo-py --lang python"
gapscore new-adapter demo-py --lang python --dir new-py
(cd new-py && python3 -m unittest -v)
gapscore score --plugin-exec "python3 ${work}/new-py/adapter.py" \
  --sealed new-py/tests/fixtures/valid/example.demo-py --format json -o new-py.json
check_report new-py.json 3 1

echo "the outside author's path: done in $((SECONDS - start)) s"
