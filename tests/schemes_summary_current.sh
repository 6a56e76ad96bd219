#!/usr/bin/env bash
# results/schemes/summary.{json,md} (the table of every scheme on every task) is what
# scripts/schemes_summary.py makes of the committed results now: a change that recommits a task's results
# recommits this table too (make schemes-table).
set -euo pipefail
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
/usr/bin/python3 scripts/schemes_summary.py "$TMP" >/dev/null
for f in summary.json summary.md; do
  if ! diff -u "results/schemes/$f" "$TMP/$f"; then
    echo "schemes_summary_current: results/schemes/$f is not what scripts/schemes_summary.py makes of the committed results; run make schemes-table and commit it" >&2
    exit 1
  fi
done
echo "schemes_summary_current: results/schemes/ matches the committed results"
