#!/usr/bin/env bash
# Issue 49, packing: passkey problems of 16-64 tokens in training windows of 64 under four policies
# (padded, packed, isolated-reset, isolated-global; experiments/packing/passkey-<policy>.json), seven
# schemes x 3 seeds each, read as single documents at 64-1024 and on packed windows at 64; then
# results/packing/summary.{json,md} and results/figures/packing*.png. About 30-40 s a run and 4-6
# minutes of reading per policy on 2 cores (about an hour in all). Complete runs are kept
# (--resume), so the script can be stopped and run again; the summary lists a policy not yet run as
# missing.
# Usage: scripts/packing.sh [path/to/pe-bench] [policy glob, default *]
set -euo pipefail
BIN=${1:-build/pe-bench}
GLOB=${2:-*}
for f in experiments/packing/$GLOB.json; do
  [ -e "$f" ] || continue
  echo "== $f"
  "$BIN" run "$f" --resume -q
done
/usr/bin/python3 scripts/packing_summary.py results/packing
/usr/bin/python3 scripts/plot.py --only packing --packing results/packing/summary.json
