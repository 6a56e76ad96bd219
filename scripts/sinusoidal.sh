#!/usr/bin/env bash
# Issue 51: the sinusoidal code's amplitude (sinusoidal_scale, the d2l exercise) and layout (sinusoidal_layout),
# every experiment of experiments/sinusoidal/ (the tournament's head in seconds; the char LM's, 3 seeds each,
# about 15 minutes per file on 2 cores), then results/sinusoidal/summary.{json,md} beside the default code's
# committed rows. Complete runs are kept (--resume), so the script can be stopped and run again.
# Usage: scripts/sinusoidal.sh [path/to/pe-bench]
set -euo pipefail
BIN=${1:-build/pe-bench}
for f in experiments/sinusoidal/tournament-*.json experiments/sinusoidal/charlm-*.json; do
  echo "== $f"
  "$BIN" run "$f" --resume -q
done
/usr/bin/python3 scripts/sinusoidal_summary.py results/sinusoidal
