#!/usr/bin/env bash
# Issue 26, part 2: the char LM's RoPE extrapolation over draws of initial weights and window order.
#   1. experiments/charlm-rope-draws.json: RoPE seeds 0-5 in pe-bench's own window order (seeds 0-2
#      are copies of charlm-3seeds' runs, kept under --resume) -> results/charlm-rope-draws/own-order/
#   2. seeds 0-2 (pe-bench's initial weights) on the PyTorch recipe's window order for the same seed
#      (data/orders/torch-rope-seed<s>.json, written by scripts/torch_window_order.py)
#      -> results/charlm-rope-draws/torch-order-seed<s>/
#   3. pe-bench analyze attention of every draw at 512 -> attention.json
#   4. scripts/charlm_draws_summary.py: every draw's perplexity at 128/256/512 and final training
#      loss, beside the published runs -> results/charlm-rope-draws/summary.md and summary.json
# About 8 minutes per new run on 2 cores; kept runs are not redone.
# Usage: scripts/charlm-rope-draws.sh [path/to/pe-bench]
set -euo pipefail
BIN=${1:-build/pe-bench}
OUT=results/charlm-rope-draws
"$BIN" run experiments/charlm-rope-draws.json --resume
for s in 0 1 2; do
  "$BIN" run experiments/charlm-rope-draws.json --resume --set seeds=$s --set train_order=data/orders/torch-rope-seed$s.json \
    --set name=charlm-rope-torch-order-seed$s --set out_dir=$OUT/torch-order-seed$s --set runs_dir=$OUT/torch-order-seed$s/runs
done
# what attention does at 512 in every draw (block 2's mass past 128 follows the perplexity)
CPS=()
for c in $OUT/runs/charlm/rope/seed*/checkpoint.json $OUT/torch-order-seed*/runs/charlm/rope/seed*/checkpoint.json; do
  CPS+=(--checkpoint "$c")
done
"$BIN" analyze attention "${CPS[@]}" --lengths 512 --sequences 16 --out "$OUT/attention.json" --quiet >/dev/null
/usr/bin/python3 scripts/charlm_draws_summary.py "$OUT"
