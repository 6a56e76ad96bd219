#!/usr/bin/env bash
# Issue 52, part 2: what attention does beyond RoPE, from committed checkpoints (nothing is trained).
#   1. pe-bench analyze attention of the char LM's NoPE, ALiBi and RoPE (results/charlm-3seeds, seeds 0-2)
#      at 128, 256 and 512 -> results/attention-diagnostics/charlm.json; ALiBi's heads carry the mass their
#      bias alone would put past the training length (the d2l exercise 11.4) beside the measured one
#   2. the same of the 4-layer hybrid stacks (results/hybrids: 3:1 and 1:1 local-RoPE / global-NoPE) and
#      their all-NoPE and all-RoPE controls at 128, 512 and 2048 -> hybrids.json
#   3. pe-bench analyze probe of NoPE and RoPE (seeds 0-2), trained and at their initial weights: a ridge
#      probe of each token's position from each residual state, fitted on 256 windows of the training text
#      and scored on 256 of the validation text (the d2l exercise 10: does NoPE learn position?) -> probe.json
#   4. scripts/attention_diagnostics_summary.py: by layer type (NoPE, ALiBi, RoPE, local RoPE, global
#      NoPE), and the probe -> summary.md and summary.json; scripts/plot.py --only attention_diagnostics
# About a minute on 2 cores. Another OUT folder (tests/attention_diagnostics_current.sh) gets the readings and
# the summary but no figure.
# Usage: scripts/attention-diagnostics.sh [path/to/pe-bench] [OUT, default results/attention-diagnostics]
set -euo pipefail
BIN=${1:-build/pe-bench}
OUT=${2:-results/attention-diagnostics}
mkdir -p "$OUT"
CPS=()
for s in none alibi rope; do
  for seed in 0 1 2; do CPS+=(--checkpoint results/charlm-3seeds/runs/charlm/$s/seed$seed/checkpoint.json); done
done
"$BIN" analyze attention "${CPS[@]}" --lengths 128,256,512 --sequences 16 --out "$OUT/charlm.json" --quiet >/dev/null
CPS=()
for stack in 3to1:hybrid 1to1:hybrid none:none rope:rope; do
  for seed in 0 1 2; do
    CPS+=(--checkpoint results/hybrids/charlm-d4-${stack%%:*}/runs/charlm/${stack##*:}/seed$seed/checkpoint.json)
  done
done
"$BIN" analyze attention "${CPS[@]}" --lengths 128,512,2048 --sequences 16 --out "$OUT/hybrids.json" --quiet >/dev/null
# the position probe (the d2l exercise 10): trained NoPE and RoPE, and the same models at their initial weights
CPS=()
for s in none rope; do
  for seed in 0 1 2; do CPS+=(--checkpoint results/charlm-3seeds/runs/charlm/$s/seed$seed/checkpoint.json); done
done
"$BIN" analyze probe "${CPS[@]}" --initial --windows 256 --out "$OUT/probe.json" --quiet >/dev/null
/usr/bin/python3 scripts/attention_diagnostics_summary.py "$OUT"
if [ "$OUT" = results/attention-diagnostics ]; then /usr/bin/python3 scripts/plot.py --only attention_diagnostics; fi
