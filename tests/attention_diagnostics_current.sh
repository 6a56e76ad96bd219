#!/usr/bin/env bash
# results/attention-diagnostics/ (issue 52's readings of attention beyond RoPE) is what this build reads from
# the committed checkpoints now, bit for bit, and its summary what scripts/attention_diagnostics_summary.py
# makes of them: a change that moves a reading recommits them (scripts/attention-diagnostics.sh).
# Usage: tests/attention_diagnostics_current.sh path/to/pe-bench
set -euo pipefail
BIN=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
scripts/attention-diagnostics.sh "$BIN" "$TMP" >/dev/null
for f in charlm.json hybrids.json summary.json summary.md; do
  if ! cmp -s "results/attention-diagnostics/$f" "$TMP/$f"; then
    diff -u "results/attention-diagnostics/$f" "$TMP/$f" | head -20 >&2 || true
    echo "attention_diagnostics_current: results/attention-diagnostics/$f is not what this build reads; run scripts/attention-diagnostics.sh and commit it" >&2
    exit 1
  fi
done
echo "attention_diagnostics_current: results/attention-diagnostics/ matches this build's readings"
