#!/usr/bin/env bash
# make context-extension (issue 25): every context-extension reader on the three tasks, into
# results/context-extension/.
#   1. experiments/context-extension.json: the char LM's RoPE models (seeds 0-2 of charlm-3seeds, kept
#      under --resume) read at 128-2048 with every map, through cached decoding for dynamic, and
#      fine-tuned at 512 with each map (results.json, table.md, runs/);
#   2. the passkey task's RoPE and hybrid models (results/passkey/runs) read at 64-1024 with the same
#      maps (passkey.json, passkey.md);
#   3. the tournament's RoPE heads (results/tournament/runs) read at 32-1024 (tournament.json, tournament.md);
#   4. what attention does in the char LM's seed-0 model at each length and map (attention.json), and in
#      the tournament's seed-0 RoPE head (every map), ALiBi and NoPE heads (tournament-attention.json);
#   5. the figures (results/figures/context_extension_*.png).
# Usage: scripts/context-extension.sh [path/to/pe-bench] [--quick]
set -euo pipefail
BIN=${1:-build/pe-bench}
OUT=results/context-extension
MAPS="pi,ntk,yarn,selective,yarn-hf,yarn-hf:truncate=false,llama3,dynamic,longrope,compress"
"$BIN" run experiments/context-extension.json --resume
checkpoints() { for c in "$@"; do printf -- '--checkpoint\n%s\n' "$c"; done; }
mapfile -t PK < <(checkpoints results/passkey/runs/passkey/{rope,hybrid}/seed*/checkpoint.json)
"$BIN" eval --task passkey "${PK[@]}" --maps "$MAPS" --out "$OUT/passkey.json" --markdown "$OUT/passkey.md"
mapfile -t CUE < <(checkpoints results/tournament/runs/cue/rope/seed*/checkpoint.json)
"$BIN" eval --task cue "${CUE[@]}" --lengths 32,64,128,256,512,1024 --maps "$MAPS" --out "$OUT/tournament.json" \
  --markdown "$OUT/tournament.md"
"$BIN" analyze attention --checkpoint "$OUT/runs/charlm/rope/seed0/checkpoint.json" --lengths 128,256,512,1024,2048 \
  --maps "$MAPS" --sequences 4 --out "$OUT/attention.json"
"$BIN" analyze attention --checkpoint results/tournament/runs/cue/rope/seed0/checkpoint.json \
  --checkpoint results/tournament/runs/cue/alibi/seed0/checkpoint.json \
  --checkpoint results/tournament/runs/cue/none/seed0/checkpoint.json --lengths 32,64,128,256,512,1024 \
  --maps "$MAPS" --sequences 1000 --out "$OUT/tournament-attention.json"
/usr/bin/python3 scripts/plot.py --context-extension "$OUT" --out results/figures
