#!/usr/bin/env bash
# Golden test of the laboratory: `pe-bench lab` on the committed results must write the committed
# results/lab/index.html and lab.json again, value for value (a change to the results or the page
# recommits them: `make lab`). Usage: tests/golden_lab.sh path/to/pe-bench
set -euo pipefail
BIN=$(realpath "${1:?usage: golden_lab.sh path/to/pe-bench}")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$BIN" lab --quiet --out "$TMP/lab" >/dev/null
if ! "$BIN" --version | grep -q "target x86-64-v3,"; then
  echo "golden_lab: comparison skipped: this build is not the default x86-64-v3 one; bit identity is promised only for that"
  exit 77
fi
for f in lab.json index.html; do
  if ! "$BIN" diff "$TMP/lab/$f" "results/lab/$f" >/dev/null 2>&1 && ! cmp -s "$TMP/lab/$f" "results/lab/$f"; then
    "$BIN" diff "$TMP/lab/$f" "results/lab/$f" || true
    echo "golden_lab: results/lab/$f is not what pe-bench lab writes now; if that is meant, run make lab and commit it" >&2
    exit 1
  fi
done
echo "golden_lab: results/lab/ is what pe-bench lab writes"
