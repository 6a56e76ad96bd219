#!/usr/bin/env bash
# Golden test: runs an experiment from scratch, in a scratch folder laid out like the repository
# (experiments/ and data/ linked in), and compares every output file with the committed copy, value
# by value (`pe-bench diff`: it names each differing file and its first differing value). The
# committed outputs are what the default build makes on any x86-64 CPU; a change that moves a number
# recommits them (`make run`, `make charlm-quick`), so the diff shows what moved.
# Usage: tests/golden.sh path/to/pe-bench experiments/NAME.json [checker.py|""] [run options...]
#   checker.py, if given, is run on the fresh results.json (sanity checks beyond equality); the run
#   options go to `pe-bench run` (e.g. --threads 1: the bits must not depend on it either).
set -euo pipefail
BIN=$(realpath "${1:?usage: golden.sh path/to/pe-bench experiments/NAME.json [checker.py]}")
EXP=${2:?usage: golden.sh path/to/pe-bench experiments/NAME.json [checker.py]}
CHECK=${3:-}
shift $(($# < 3 ? $# : 3))
ROOT=$(pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ln -s "$ROOT/experiments" "$TMP/experiments"
ln -s "$ROOT/data" "$TMP/data"
# GOLDEN_READS: committed output folders the experiment reads (read-only), linked in too
for dir in ${GOLDEN_READS:-}; do
  mkdir -p "$TMP/$(dirname "$dir")"
  ln -s "$ROOT/$dir" "$TMP/$dir"
done
OUT=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["out_dir"])' "$EXP")
(cd "$TMP" && "$BIN" run "$EXP" --quiet "$@" >"$TMP/stdout")
if [[ -n "$CHECK" ]]; then python3 "$CHECK" "$TMP/$OUT/results.json"; fi
# The committed outputs are what the default x86-64 build makes; another build ran the experiment
# (and its checks) above but has nothing to match.
if ! "$BIN" --version | grep -q "target x86-64-v3,"; then
  echo "golden: comparison skipped: this build is not the default x86-64-v3 one ($("$BIN" --version)); bit identity is promised only for that"
  exit 77
fi
if ! "$BIN" diff "$TMP/$OUT" "$ROOT/$OUT"; then
  echo "golden: $EXP no longer reproduces the committed $OUT/ (above: each file's first difference)." >&2
  echo "golden: if the change is meant to move these numbers, regenerate and commit $OUT/ and say why." >&2
  exit 1
fi
