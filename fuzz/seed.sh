#!/usr/bin/env bash
# Builds the seed corpora of every fuzz target in fuzz/seeds/<target>/ from the files the
# crates' tests already keep (tests/fixtures valid, invalid and real; the checker's fixtures; the
# TOML examples in the docs), so nothing is committed twice. Run from anywhere; re-running
# replaces the seeds. Generated, gitignored: the corpus libFuzzer grows lives in fuzz/corpus/.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=fuzz/seeds
max=$((128 * 1024)) # larger fixtures (the 5,000-test real runs) only slow the fuzzer down
rm -rf "$out"

# copy DIR TARGET: every fixture file under DIR, flattened to one name per path.
copy() {
  local dir=$1 target=$2
  mkdir -p "$out/$target"
  find "$dir" -type f \
    ! -name '*.snap' ! -name '*.snap.new' ! -name 'README.md' ! -name 'truth.json' \
    ! -name '*.expect.json' ! -name 'expect.json' ! -name 'args.json' \
    -size -"$max"c -print0 |
    while IFS= read -r -d '' f; do
      rel=${f#"$root"/}
      cp "$f" "$out/$target/${rel//\//__}"
    done
}

for a in simple junit pytest jest ctrf gotest tap libtest; do
  copy "adapters/$a/tests/fixtures" "$a"
  copy "adapters/$a/tests/fixtures" detect
done
# The split JUnit read (one pass against two halves) starts from the JUnit fixtures too.
copy adapters/junit/tests/fixtures junit_split

# The checker reads reports: every hand-written and copied report, and the evidence cases' ones.
copy conformance-tests/fixtures/reports checker_report
copy conformance-tests/fixtures/corpus checker_report
find conformance-tests/fixtures/evidence -name report.json -print0 |
  while IFS= read -r -d '' f; do cp "$f" "$out/checker_report/${f//\//__}"; done

# Seal records: every record in the checker's fixtures, and the record schema's examples.
mkdir -p "$out/seal_record"
grep -rl --include='*.json' '"gapscore_seal"' conformance-tests/fixtures schema |
  while IFS= read -r f; do cp "$f" "$out/seal_record/${f//\//__}"; done

# Category rules: every ```toml block of docs/sealed-envelope.md and of the rules module's
# documentation, and the rules module's test rules.
mkdir -p "$out/category_rules"
awk -v dir="$out/category_rules" '
  /^```toml/ { n++; f = dir "/sealed-envelope-" n ".toml"; on = 1; next }
  /^```/ { on = 0 }
  on { print > f }' docs/sealed-envelope.md
awk -v f="$out/category_rules/categories-doc.toml" '
  /^\/\/! ```toml/ { on = 1; next }
  /^\/\/! ```/ { on = 0 }
  on { sub(/^\/\/! ?/, ""); print > f }' core/src/categories.rs
awk -v f="$out/category_rules/categories-test.toml" '
  /const RULES: &str = r#"/ { on = 1; next }
  /^"#;/ { on = 0 }
  on { print > f }' core/src/categories.rs

# The decoders: the bad-input corpus's UTF-16 and Latin-1 files, and a few fixtures re-encoded
# as UTF-16 (with and without a byte-order mark). The first byte picks byte order and read
# size, so each seed starts with one.
mkdir -p "$out/encoding"
n=0
for f in tests/bad-input/*/*utf16* tests/bad-input/*/*latin1* tests/bad-input/*/*1252* \
  adapters/simple/tests/fixtures/valid/*.json \
  adapters/tap/tests/fixtures/valid/*.tap; do
  [ -f "$f" ] || continue
  n=$((n + 1))
  case $f in
    *utf16* | *latin1* | *1252*) { printf '\x06'; cat "$f"; } >"$out/encoding/$n-as-is" ;;
    *) [ "$n" -le 40 ] || continue
       { printf '\x0a'; head -c 4096 "$f" | iconv -f UTF-8 -t UTF-16LE; } >"$out/encoding/$n-le" 2>/dev/null || true
       { printf '\x0b'; head -c 4096 "$f" | iconv -f UTF-8 -t UTF-16; } >"$out/encoding/$n-bom" 2>/dev/null || true ;;
  esac
done

for d in "$out"/*/; do
  printf '%-16s %4d seeds\n' "$(basename "$d")" "$(find "$d" -type f | wc -l)"
done
