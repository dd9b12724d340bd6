#!/usr/bin/env bash
# The Action's scoring step (action.yml): one gapscore score (or gapscore run, when a command is
# given), whose one report goes everywhere at once, since a sealed suite cannot be run twice:
#   - standard output, in GAPSCORE_FORMAT (the step's log); for `github` (the default) the log
#     gets the summary and the annotations go to $RUNNER_TEMP/gapscore-annotations.txt, which
#     the Annotate step prints (action/annotate.sh, below);
#   - the JSON report, $RUNNER_TEMP/gapscore-report.json (output report-path);
#   - the Markdown, appended to $GITHUB_STEP_SUMMARY (kept within 65,536 characters in all);
#   - the step outputs, appended to $GITHUB_OUTPUT (score, level, verdict, sealed-total,
#     sealed-failed, advisory).
# The step ends with gapscore's exit code (docs/score.md "Exit codes"): 1 on a failed --threshold gate
# or a run that did not fully run (unless allow-advisory), 130/143 when interrupted, 2 when it could not
# score. Inputs arrive as GAPSCORE_* variables (action.yml); lists are one item per line.
#
# The gapscore that runs is the one the install step recorded ($RUNNER_TEMP/gapscore-path, an
# absolute path), never a PATH lookup: a PATH entry inside the checkout must not pick it
# (attack i34, F5). The command input is split into words here (POSIX shell quoting, no shell
# evaluation) and given to `gapscore run` after `--` as they are, never as `bash -c COMMAND`:
# behind a shell gapscore could not see the runner, so run's per-runner recipes and its check
# of where the runner resolves (E040) would not apply (F7).
set -euo pipefail

: "${GAPSCORE_SEALED:?the sealed input is required}"
: "${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set: run this as a step of a GitHub Actions job}"
temp="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"
report="$temp/gapscore-report.json"
annotations="$temp/gapscore-annotations.txt"
gapscore="$(cat "$temp/gapscore-path" 2>/dev/null || true)"
case "$gapscore" in
  /* | [A-Za-z]:[\\/]*) ;;
  *)
    echo "::error title=gapscore::no gapscore recorded by the install step in $temp/gapscore-path" >&2
    exit 2
    ;;
esac
if [ ! -x "$gapscore" ]; then
  echo "::error title=gapscore::the gapscore the install step recorded is not there: $gapscore" >&2
  exit 2
fi

# One item per non-empty line.
lines() {
  local line
  while IFS= read -r line || [ -n "$line" ]; do
    line="${line#"${line%%[![:space:]]*}"}"
    line="${line%"${line##*[![:space:]]}"}"
    [ -n "$line" ] && printf '%s\n' "$line"
  done <<< "$1"
}

args=()
if [ -n "${GAPSCORE_COMMAND:-}" ]; then
  args+=(run)
  while IFS= read -r f; do args+=(--results "$f"); done < <(lines "$GAPSCORE_SEALED")
else
  args+=(score)
  while IFS= read -r f; do args+=(--sealed "$f"); done < <(lines "$GAPSCORE_SEALED")
fi
while IFS= read -r f; do args+=(--open "$f"); done < <(lines "${GAPSCORE_OPEN:-}")
[ -n "${GAPSCORE_SEAL:-}" ] && args+=(--seal "$GAPSCORE_SEAL")
[ -n "${GAPSCORE_SEALED_DIR:-}" ] && args+=(--sealed-dir "$GAPSCORE_SEALED_DIR")
[ -n "${GAPSCORE_THRESHOLD:-}" ] && args+=(--threshold "$GAPSCORE_THRESHOLD")
format="${GAPSCORE_FORMAT:-github}"
if [ "$format" = github ]; then
  # Problem matchers (setup-go, setup-python, setup-node) read every line of this step's log,
  # the implementation's output included, even while commands are stopped; their annotations
  # would fill this step's 10-error cap before gapscore's. So the annotations are printed by
  # a later step of their own, whose log holds nothing the implementation wrote (B-F10).
  args+=(--format summary --also "github=$annotations")
else
  args+=(--format "$format")
fi
args+=(--also "json=$report")
[ -n "${GITHUB_STEP_SUMMARY:-}" ] && args+=(--also-append "markdown=$GITHUB_STEP_SUMMARY")
args+=(--also-append "github-output=$GITHUB_OUTPUT")
if [ -n "${GAPSCORE_ARGS:-}" ]; then
  read -r -a extra <<< "$GAPSCORE_ARGS"
  args+=(${extra[@]+"${extra[@]}"})
fi
if [ -n "${GAPSCORE_COMMAND:-}" ]; then
  # shlex.split: the words as a POSIX shell would quote them, with nothing evaluated. Python
  # isolated (-I) and started outside the checkout, so nothing there is imported.
  words=()
  while IFS= read -r -d '' w; do words+=("$w"); done < <(
    cd "$temp" && python3 -I -c '
import os, shlex, sys
try:
    words = shlex.split(os.environ["GAPSCORE_COMMAND"])
except ValueError as e:
    sys.exit(f"::error title=gapscore::the command input cannot be split into words: {e}")
sys.stdout.write("".join(w + "\0" for w in words))
'
  )
  if [ "${#words[@]}" -eq 0 ]; then
    echo "::error title=gapscore::the command input has no words (or its quoting is broken)" >&2
    exit 2
  fi
  args+=(-- "${words[@]}")
fi

rm -f "$report" "$annotations"
status=0
"$gapscore" "${args[@]}" || status=$?
if [ -f "$report" ]; then
  echo "report-path=$report" >> "$GITHUB_OUTPUT"
fi
exit "$status"
