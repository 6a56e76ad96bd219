#!/usr/bin/env bash
# Issue 30: Transformer-XL with its memory. The char LM's txl trained with segment recurrence
# (experiments/txl-memory.json: mem_len 128, consecutive segments of 128 per stream) and without
# (experiments/txl-memoryless.json, with ALiBi beside it), seeds 0-2, read at 128-2048 on 160
# validation windows, plainly and (the memory runs) in segments with the memory; then
# results/txl-memory/summary.{json,md} (with RoPE's figures on the same windows from
# results/rope-base/base-10000) and results/figures/txl_memory.png.
# About 5 minutes per run and 2 per reading on 2 cores (about 45 minutes); complete runs are kept.
# Usage: scripts/txl-memory.sh [path/to/pe-bench]
set -euo pipefail
BIN=${1:-build/pe-bench}
"$BIN" run experiments/txl-memory.json --resume -q
"$BIN" run experiments/txl-memoryless.json --resume -q
/usr/bin/python3 scripts/txl_memory_summary.py results/txl-memory
/usr/bin/python3 scripts/plot.py --only txl_memory --txl-memory results/txl-memory/summary.json
