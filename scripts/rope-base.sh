#!/usr/bin/env bash
# Issue 30: RoPE's base. The char LM's RoPE retrained with bases 100, 10^4, 5x10^5 and 10^6 (seeds
# 0-2, experiments/rope-base-<B>.json; base 10^4 is the published recipe: charlm-3seeds' runs are
# copied and kept under --resume), read at 128-2048; each base's census (turns per plane over the
# training offsets, census-base-<B>.json); and a base change at fine-tuning time against PI and the
# code YaRN (experiments/rope-base-abf.json, from the base-10^4 runs, 300 steps at 512 each); then
# results/figures/rope_base.png and results/rope-base/summary.md (scripts/plot_rope_base.py).
# About 3 minutes per new training run and 1-2 minutes per reading on 2 cores; kept runs are not redone.
# Usage: scripts/rope-base.sh [path/to/pe-bench]
set -euo pipefail
BIN=${1:-build/pe-bench}
OUT=results/rope-base
for dir in "$OUT/base-10000" "$OUT/abf"; do
  mkdir -p "$dir/runs/charlm/rope"
  for s in 0 1 2; do
    [ -d "$dir/runs/charlm/rope/seed$s" ] || cp -r "results/charlm-3seeds/runs/charlm/rope/seed$s" "$dir/runs/charlm/rope/"
  done
done
for b in 100 10000 500000 1000000; do
  "$BIN" run "experiments/rope-base-$b.json" --resume -q
  "$BIN" census --d-head 32 --train-length 128 --base "$b" --kappa 2,4,8,16 --maps pi,yarn --json > "$OUT/census-base-$b.json"
done
"$BIN" run experiments/rope-base-abf.json --resume -q
/usr/bin/python3 scripts/rope_base_summary.py "$OUT"
/usr/bin/python3 scripts/plot.py --only rope_base --rope-base "$OUT/summary.json"
