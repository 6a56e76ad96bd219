#!/usr/bin/env bash
# Issue 30: hybrids. Local-RoPE / global-NoPE stacks at 1:1, 3:1 (4 layers) and 1:1, 5:1 (6 layers),
# the partial-RoPE global variant (rotary_fraction 0.25, base 10^6) and the all-RoPE and all-NoPE
# stacks of the same depths, for the char LM and the passkey stack, seeds 0-2
# (experiments/hybrids/<task>-d<depth>-<config>.json; docs/hybrids.md says why the windows are half
# the training length). Then results/hybrids/summary.{json,md} and results/figures/hybrids.png.
# The passkey runs take 1-3 minutes each, the char LM's 6-12 (training and reading at 128-2048) on
# 2 cores: about five hours in all. Complete runs are kept (--resume), so the script can be stopped
# and run again; the summary reports a configuration not yet run as missing.
# Usage: scripts/hybrids.sh [path/to/pe-bench] [configuration glob, default *]
set -euo pipefail
BIN=${1:-build/pe-bench}
GLOB=${2:-*}
for task in passkey charlm; do
  for depth in 4 6; do
    for f in experiments/hybrids/$task-d$depth-$GLOB.json; do
      [ -e "$f" ] || continue
      echo "== $f"
      "$BIN" run "$f" --resume -q
    done
  done
done
/usr/bin/python3 scripts/hybrids_summary.py results/hybrids
/usr/bin/python3 scripts/plot.py --only hybrids --hybrids results/hybrids/summary.json
