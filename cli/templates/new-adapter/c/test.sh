#!/bin/sh
# The plugin on its fixtures through gapscore: the valid one reads as tests/expected.json says,
# the invalid one is refused at its place (exit 2). Usage: sh test.sh ./lib@SYMBOL@.so
set -eu
cd "$(dirname "$0")"
lib=${1:-./lib@SYMBOL@.so}
gapscore=${GAPSCORE:-gapscore}

"$gapscore" parse --plugin "$lib" tests/fixtures/valid/example.@NAME@ > tests/got.json
if ! cmp -s tests/got.json tests/expected.json; then
  echo "FAIL: gapscore parse differs from tests/expected.json:" >&2
  diff tests/expected.json tests/got.json >&2 || true
  exit 1
fi
rm -f tests/got.json

status=0
"$gapscore" parse --plugin "$lib" tests/fixtures/invalid/unknown-status.@NAME@ \
  > /dev/null 2> tests/err.txt || status=$?
if [ "$status" -ne 2 ] || ! grep -q 'unknown-status.@NAME@:2:1: unknown status' tests/err.txt; then
  echo "FAIL: the invalid fixture gave exit $status:" >&2
  cat tests/err.txt >&2
  exit 1
fi
rm -f tests/err.txt
echo "ok: @NAME@ reads its fixtures"
