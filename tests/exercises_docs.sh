#!/usr/bin/env bash
# docs/exercises.md's commands run as typed: every `$ pe-bench exercise ...` line runs (with this build as
# `pe-bench`, in a scratch directory that reads as the repository's root) and each file it writes equals the committed results/exercises/ one
# bit for bit; every other `$ ` command on the page must be one another test runs (make
# attention-diagnostics: tests/attention_diagnostics_current.sh). Every committed answer is on the page.
# Usage: tests/exercises_docs.sh path/to/pe-bench
set -euo pipefail
BIN=$(readlink -f "$1")
ROOT=$(pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/bin" "$TMP/work/results"
ln -s "$BIN" "$TMP/bin/pe-bench"
# the scratch directory reads as the repository's root: every committed results folder (an exercise may
# read trained models from one) but results/exercises/, which the commands write afresh
for entry in "$ROOT"/results/* "$ROOT"/data; do
  [ "$(basename "$entry")" = exercises ] || ln -s "$entry" "$TMP/work/${entry#"$ROOT"/}"
done
fail=0
ran=()
while IFS= read -r line; do
  cmd=${line#\$ }
  case "$cmd" in
    "pe-bench exercise "*)
      if ! (cd "$TMP/work" && PATH="$TMP/bin:$PATH" bash -c "$cmd" >/dev/null); then
        echo "exercises_docs: '$cmd' failed" >&2
        fail=1
        continue
      fi
      ran+=("${cmd#pe-bench exercise }")
      ;;
    "make attention-diagnostics") ;;  # tests/attention_diagnostics_current.sh runs it
    *)
      echo "exercises_docs: docs/exercises.md gives '$cmd', which no test runs" >&2
      fail=1
      ;;
  esac
done < <(grep -E '^\$ ' docs/exercises.md)
for f in "$ROOT"/results/exercises/*.json; do
  name=$(basename "$f")
  if [ ! -f "$TMP/work/results/exercises/$name" ]; then
    echo "exercises_docs: results/exercises/$name is committed but no command on docs/exercises.md writes it" >&2
    fail=1
  elif ! cmp -s "$f" "$TMP/work/results/exercises/$name"; then
    diff -u "$f" "$TMP/work/results/exercises/$name" | head -20 >&2 || true
    echo "exercises_docs: results/exercises/$name is not what this build computes; run pe-bench exercise and commit it" >&2
    fail=1
  fi
done
for f in "$TMP"/work/results/exercises/*.json; do
  [ -f "$ROOT/results/exercises/$(basename "$f")" ] || {
    echo "exercises_docs: $(basename "$f") is written but not committed under results/exercises/" >&2
    fail=1
  }
done
[ "$fail" = 0 ] || exit 1
echo "exercises_docs: ${#ran[@]} commands of docs/exercises.md ran as typed; results/exercises/ matches them"
